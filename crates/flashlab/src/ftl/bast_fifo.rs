//! `bast-fifo`: BAST with first-in first-out log replacement — when every log block is in use,
//! the LBN whose log block was opened earliest is merged, however recently it was written (BAST
//! merges the least recently written). Mechanism in [`super::hybrid`]; parameters as BAST's.

use std::collections::VecDeque;

use super::hybrid::{log_budget, LogBudget, LogChoice, LogScheme, LogView, Merge, NONE};
use super::FtlSpec;
use crate::error::Error;

/// One plane's log blocks: at most one per LBN, replaced in the order they were opened.
#[derive(Clone, Debug)]
pub struct BastFifo {
    /// LBN → its log block, or `NONE`.
    log: Vec<u32>,
    /// LBNs holding a log block, in the order their log blocks were opened.
    opened: VecDeque<u32>,
}

impl LogScheme for BastFifo {
    const NAME: &'static str = "bast-fifo";

    fn budget(spec: &FtlSpec) -> Result<LogBudget, Error> {
        log_budget(spec, 1, "bast-fifo needs at least 1 log block per plane")
    }

    fn new(lbns: usize) -> Self {
        BastFifo { log: vec![NONE; lbns], opened: VecDeque::new() }
    }

    fn choose(&mut self, v: &LogView, lbn: u32, _off: u32) -> LogChoice {
        match self.log[lbn as usize] {
            NONE if self.opened.len() >= v.log_blocks as usize => LogChoice::Merge(Merge::Lbn(self.opened[0])),
            NONE => LogChoice::Open { dedicated: true },
            log => LogChoice::Dedicated(log),
        }
    }

    fn opened(&mut self, block: u32, lbn: u32, _dedicated: bool) {
        self.log[lbn as usize] = block;
        self.opened.push_back(lbn);
    }

    fn detach(&mut self, lbn: u32) -> Option<u32> {
        let log = std::mem::replace(&mut self.log[lbn as usize], NONE);
        self.opened.retain(|&l| l != lbn);
        (log != NONE).then_some(log)
    }

    fn logs(&self) -> Vec<u32> {
        self.log.iter().copied().filter(|&l| l != NONE).collect()
    }

    fn holds(&self, v: &LogView, block: u32, page: u32, lbn: u32, lpn: u64) -> bool {
        let ppb = v.pages_per_block;
        self.log[lbn as usize] == block
            && (page + 1..v.next_page(block)).all(|q| v.oob_lpn(block * ppb + q) != Some(lpn as u32))
    }

    fn validate(&self) -> Result<(), String> {
        let held = self.log.iter().filter(|&&l| l != NONE).count();
        if held != self.opened.len() {
            return Err(format!("bast-fifo: {held} log blocks, {} LBNs queued", self.opened.len()));
        }
        Ok(())
    }
}
