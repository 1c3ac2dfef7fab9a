//! `fast`: fully-associative sector translation (Lee et al. 2007, "A log buffer-based flash
//! translation layer using fully-associative sector translation"), per plane; mechanism in
//! [`super::hybrid`].
//!
//! A write goes in place in the data block when its offset is above the block's program point
//! (`write_data`). Otherwise (`update_pure` / `update_wasted` as in `bast`):
//! - at offset 0 of an LBN, or continuing the sequential (SW) log block's LBN at its next
//!   offset, it goes to the single SW log block; a write at offset 0 replaces the SW log, which
//!   is then merged (switch if complete, partial if it holds 0..k-1 and the rest of the LBN is
//!   only in the data block, else full). A full SW log is merged at once;
//! - any other update is appended to the current random (RW) log block, shared by all LBNs of
//!   the plane. When the RW logs are used up, the oldest is reclaimed: every LBN with a current
//!   page in it is full-merged (one full merge each; the SW log is merged along if it belongs
//!   to such an LBN), then the RW block is erased.
//!
//! `sequential_log = "device"` keeps one SW log block for the whole device (original FAST) instead
//! of one per plane (the mechanism coordinates the planes: [`super::hybrid::SequentialLog`]).
//!
//! `[ftl.mapping_params] log_blocks` = log blocks per plane, SW included (at least 2); default
//! max(2, 3% of the plane's blocks). `ftl.gc` is refused. `defrag = "merge" | "eager"`: where
//! `defrag_copy` copies go (see [`super::hybrid::DefragMode`]).

use std::collections::VecDeque;

use super::hybrid::{log_budget, LogBudget, LogChoice, LogScheme, LogView, Merge};
use super::FtlSpec;
use crate::error::Error;

/// One plane's log blocks under FAST: one sequential (SW) log block and the random (RW) ones.
#[derive(Clone, Debug, Default)]
pub struct Fast {
    /// The sequential log block and its LBN.
    sw: Option<(u32, u32)>,
    /// Random log blocks, oldest first (the back one is being filled).
    rw: VecDeque<u32>,
}

impl LogScheme for Fast {
    const NAME: &'static str = "fast";

    fn budget(spec: &FtlSpec) -> Result<LogBudget, Error> {
        log_budget(spec, 2, "fast needs at least 2 log blocks per plane (1 sequential + 1 random)")
    }

    fn new(_lbns: usize) -> Self {
        Fast::default()
    }

    /// The random logs' deque, grown by pushes to at most every log block.
    fn plane_heap_bytes(_lbns: u64, log_blocks: u32) -> u64 {
        use crate::memory::{grown_capacity, heap_bytes, vec_bytes};
        heap_bytes(vec_bytes::<u32>(grown_capacity(log_blocks as u64)))
    }

    /// The SW log when the write continues it; at offset 0 a new SW log (merging the old one
    /// first); else the current RW log, a new one, or, when all are in use, the oldest RW log
    /// reclaimed first.
    fn choose(&mut self, v: &LogView, lbn: u32, off: u32) -> LogChoice {
        if let Some((sw, l)) = self.sw {
            if l == lbn && v.next_page(sw) == off && off < v.pages_per_block {
                return LogChoice::Dedicated(sw);
            }
        }
        if off == 0 {
            return match self.sw {
                Some((_, l)) => LogChoice::Merge(Merge::Lbn(l)),
                None => LogChoice::Open { dedicated: true },
            };
        }
        if let Some(&cur) = self.rw.back() {
            if v.next_page(cur) < v.pages_per_block {
                return LogChoice::Shared(cur);
            }
        }
        if self.rw.len() + 1 >= v.log_blocks as usize {
            let victim = self.rw.pop_front().expect("an RW log block to reclaim");
            return LogChoice::Merge(Merge::Shared(victim));
        }
        LogChoice::Open { dedicated: false }
    }

    fn opened(&mut self, block: u32, lbn: u32, dedicated: bool) {
        if dedicated {
            debug_assert!(self.sw.is_none(), "fast: one SW log block");
            self.sw = Some((block, lbn));
        } else {
            self.rw.push_back(block);
        }
    }

    /// The SW log, if it belongs to `lbn`.
    fn detach(&mut self, lbn: u32) -> Option<u32> {
        match self.sw {
            Some((sw, l)) if l == lbn => {
                self.sw = None;
                Some(sw)
            }
            _ => None,
        }
    }

    fn logs(&self) -> Vec<u32> {
        self.sw.iter().map(|&(sw, _)| sw).chain(self.rw.iter().copied()).collect()
    }

    /// In the LBN's SW log or in any RW log.
    fn holds(&self, _v: &LogView, block: u32, _page: u32, lbn: u32, _lpn: u64) -> bool {
        self.sw == Some((block, lbn)) || self.rw.contains(&block)
    }
}
