//! `bast`: block-associative sector translation (Kim et al. 2002, "A space-efficient flash
//! translation layer for CompactFlash systems"), per plane; mechanism in [`super::hybrid`].
//!
//! A write goes in place in the data block when its offset is above the block's program point
//! (`write_data`). Otherwise it is appended to the LBN's own log block (`update_pure` if it
//! overwrites written data, `update_wasted` if the offset was skipped): a plane holds at most
//! `log_blocks` log blocks; when none is left, the least recently written LBN's log block is
//! merged first. A full log block is merged at once. Merges: switch (log holds offsets 0..n-1 in
//! order, all current), partial (log holds 0..k-1 in order, the rest only in the data block:
//! copy the rest into the log by copy-back, then switch), else full.
//!
//! `[ftl.mapping_params] log_blocks` = log blocks per plane; default max(1, 3% of the plane's
//! blocks). The plane must keep its data blocks + `log_blocks` + 1 free block. `ftl.gc` is refused.
//! `defrag = "merge" | "eager"`: where `defrag_copy` copies go (see [`super::hybrid::DefragMode`]).

use std::collections::VecDeque;

use super::hybrid::{log_budget, LogBudget, LogChoice, LogScheme, LogView, Merge, NONE};
use super::FtlSpec;
use crate::error::Error;

/// One plane's log blocks under BAST: at most one per LBN, replaced least recently written first.
#[derive(Clone, Debug)]
pub struct Bast {
    /// LBN → its log block, or `NONE`.
    log: Vec<u32>,
    /// LBNs holding a log block, least recently written first.
    lru: VecDeque<u32>,
}

impl LogScheme for Bast {
    const NAME: &'static str = "bast";

    fn budget(spec: &FtlSpec) -> Result<LogBudget, Error> {
        let budget = log_budget(spec, 1, "bast needs at least 1 log block per plane")?;
        if budget.device_sequential_log {
            return Err(Error::config(
                "ftl.mapping_params.sequential_log",
                "bast gives every data block its own log block: only fast has a sequential log to share",
            ));
        }
        Ok(budget)
    }

    fn new(lbns: usize) -> Self {
        Bast { log: vec![NONE; lbns], lru: VecDeque::new() }
    }

    /// The log block of each LBN, and the recency deque grown by pushes to every log block.
    fn plane_heap_bytes(lbns: u64, log_blocks: u32) -> u64 {
        use crate::memory::{grown_capacity, heap_bytes, vec_bytes};
        heap_bytes(vec_bytes::<u32>(lbns)) + heap_bytes(vec_bytes::<u32>(grown_capacity(log_blocks as u64)))
    }

    /// The LBN's own log block; a new one if it has none, after merging the least recently
    /// written LBN's when all are in use.
    fn choose(&mut self, v: &LogView, lbn: u32, _off: u32) -> LogChoice {
        let log = self.log[lbn as usize];
        if log != NONE {
            self.lru.retain(|&l| l != lbn);
            self.lru.push_back(lbn);
            return LogChoice::Dedicated(log);
        }
        if self.lru.len() >= v.log_blocks as usize {
            return LogChoice::Merge(Merge::Lbn(self.lru[0]));
        }
        LogChoice::Open { dedicated: true }
    }

    fn opened(&mut self, block: u32, lbn: u32, dedicated: bool) {
        debug_assert!(dedicated && self.log[lbn as usize] == NONE, "bast: one dedicated log block per LBN");
        self.log[lbn as usize] = block;
        self.lru.push_back(lbn);
    }

    fn detach(&mut self, lbn: u32) -> Option<u32> {
        let log = std::mem::replace(&mut self.log[lbn as usize], NONE);
        self.lru.retain(|&l| l != lbn);
        (log != NONE).then_some(log)
    }

    fn logs(&self) -> Vec<u32> {
        self.log.iter().copied().filter(|&l| l != NONE).collect()
    }

    /// In the LBN's log block, and the last copy of `lpn` there.
    fn holds(&self, v: &LogView, block: u32, page: u32, lbn: u32, lpn: u64) -> bool {
        let ppb = v.pages_per_block;
        self.log[lbn as usize] == block
            && (page + 1..v.next_page(block)).all(|q| v.oob_lpn(block * ppb + q) != Some(lpn as u32))
    }

    /// Exactly the LBNs with a log block are in the LRU list.
    fn validate(&self) -> Result<(), String> {
        let mut n = 0;
        for (lbn, &l) in self.log.iter().enumerate() {
            if l != NONE {
                if !self.lru.contains(&(lbn as u32)) {
                    return Err(format!("lbn {lbn} has log block {l} but is not in the LRU list"));
                }
                n += 1;
            }
        }
        if self.lru.len() != n {
            return Err(format!("LRU list has {} lbns for {n} log blocks", self.lru.len()));
        }
        Ok(())
    }
}
