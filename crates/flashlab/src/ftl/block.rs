//! `block`: pure block mapping, per plane (see [`super::hybrid`] for the shared mechanism).
//!
//! Offset `o` of a logical block lives at page `o` of its data block. A write at `o` goes in
//! place when `o` is above the data block's program point (`write_data`; skipped offsets are
//! padded). Otherwise (an overwrite, `update_pure`, or an out-of-order first write,
//! `update_wasted`) the block is copy-merged: a new block receives the current pages below `o`
//! (copy-back), the new page at `o`, then the current pages above `o`; the old block is erased.
//! Each copy-merge counts as a full merge (and one `gc_victims`; its copies in `gc_copies`).
//! No log blocks; `[ftl.mapping_params]` must be empty; `ftl.gc` is refused.

use super::hybrid::{DefragMode, LogBudget, LogChoice, LogScheme, LogView};
use super::FtlSpec;
use crate::error::Error;

/// One plane of the block mapping: no log blocks, so nothing of its own.
#[derive(Clone, Debug)]
pub struct Block;

impl LogScheme for Block {
    const NAME: &'static str = "block";

    fn budget(spec: &FtlSpec) -> Result<LogBudget, Error> {
        if let Some(k) = spec.config.mapping_params.keys().next() {
            return Err(Error::config(format!("ftl.mapping_params.{k}"), "the block mapping takes no parameters"));
        }
        Ok(LogBudget { log_blocks: 0, explicit: false, defrag: DefragMode::Merge, device_sequential_log: false })
    }

    fn new(_lbns: usize) -> Self {
        Block
    }

    fn plane_heap_bytes(_lbns: u64, _log_blocks: u32) -> u64 {
        0
    }

    /// Every update copy-merges its block.
    fn choose(&mut self, _v: &LogView, _lbn: u32, _off: u32) -> LogChoice {
        LogChoice::CopyMerge
    }

    fn opened(&mut self, block: u32, _lbn: u32, _dedicated: bool) {
        unreachable!("the block mapping opens no log block (block {block})")
    }

    fn detach(&mut self, _lbn: u32) -> Option<u32> {
        None
    }

    fn logs(&self) -> Vec<u32> {
        Vec::new()
    }

    fn holds(&self, _v: &LogView, _block: u32, _page: u32, _lbn: u32, _lpn: u64) -> bool {
        false
    }
}
