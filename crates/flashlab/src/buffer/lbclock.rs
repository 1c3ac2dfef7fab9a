//! LB-CLOCK, Large Block CLOCK (B. Debnath, S. Subramanya, D. Du, D. J. Lilja, "Large Block
//! CLOCK (LB-CLOCK): a write caching algorithm for solid state disks", MASCOTS 2009): a write
//! cache managed by block-level CLOCK with recency first and block utilization second (the rule
//! is in `blockclock.rs`). A write cache: read misses are served from flash without entering it.

use super::blockclock::BlockClock;
use super::pages::Buffered;
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;

/// Build LB-CLOCK over one memory, a write-only buffer; it takes no parameters.
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    super::no_params(cfg)?;
    let pages = cfg.single_store(ctx)?;
    let policy = BlockClock::new(pages.capacity(), ctx.pages_per_block);
    Ok(Box::new(Buffered::new(pages, policy).write_only()))
}

/// The store and the block CLOCK over its groups.
pub fn memory(cfg: &BufferConfig, ctx: &BufferContext, est: &mut crate::memory::Estimate) {
    let (d, n) = super::slots(cfg, ctx);
    est.add("buffer", super::pages::PageStore::memory(d + n) + BlockClock::memory(d + n));
}
