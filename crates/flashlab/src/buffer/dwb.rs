//! DWB, Dual Write Buffer (S. J. Han, D. H. Kang, Y. I. Eom, "Dual write buffer algorithm for
//! improving performance and lifetime of SSDs", Journal of KIISE 43(2), 2016; paper 001):
//! DRAM managed by D-CLOCK, NVRAM by NV-CLOCK.
//!
//! D-CLOCK (Fig. 2): page CLOCK over DRAM. A page fetched by a read enters with its reference
//! bit set; a page written (stored or modified by a write) has it clear, so written pages are
//! chosen first ("dirty first migration"). A read hit sets the bit, as in CLOCK. The victim is
//! dropped when clean and migrated to NVRAM when dirty; the new page takes its slot and the
//! hand moves past it (Fig. 4).
//!
//! NV-CLOCK (Fig. 3): block-level CLOCK over NVRAM, a host access to any page of a block
//! setting the block's bit; the victim block is chosen by recency and utilization (Fig. 5:
//! `blockclock.rs`), written down together with the dirty DRAM pages of the same logical
//! block, which then stay in DRAM clean, with their reference bit set like read pages.
//!
//! Where the paper is silent (our reading): a write hit on a DRAM page clears its bit (a
//! modified page does not set it); migration into NVRAM is not a host access and so does not
//! set the block's bit.

use super::blockclock::BlockClock;
use super::clock::sweep;
use super::dual::{Dual, DualRule};
use super::pages::{Entry, EvictPolicy, PageStore};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;

/// D-CLOCK over DRAM slots: fetched pages enter referenced, written pages unreferenced, so
/// written pages are the first victims.
pub struct DClock {
    referenced: Vec<bool>,
    hand: u32,
}

impl DClock {
    /// Every bit clear, the hand at slot 0, over `slots` DRAM slots.
    pub fn new(slots: u32) -> Self {
        DClock { referenced: vec![false; slots as usize], hand: 0 }
    }
}

/// Build DWB: D-CLOCK over `dram`, the block CLOCK (NV-CLOCK) over `nvram`; it takes no parameters.
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    super::no_params(cfg)?;
    let (dram, nvram) = cfg.dual_stores(ctx)?;
    let (d, n) = (DClock::new(dram.capacity()), BlockClock::new(nvram.capacity(), ctx.pages_per_block));
    Ok(Box::new(Dual::new(
        dram,
        nvram,
        d,
        n,
        ctx.pages_per_block,
        DualRule { writes_to_nvram: false, merge_clean: false },
    )))
}

/// DRAM: a store and a reference bit per slot; NVRAM: a store and the block CLOCK; the DRAM
/// pages counted per block.
pub fn memory(cfg: &BufferConfig, ctx: &BufferContext, est: &mut crate::memory::Estimate) {
    let (d, n) = super::slots(cfg, ctx);
    let dram = PageStore::memory(d) + crate::memory::vec_bytes::<bool>(d);
    let nvram = PageStore::memory(n) + BlockClock::memory(n);
    est.add("buffer", dram + nvram + Dual::<DClock, BlockClock>::memory(d));
}

impl EvictPolicy for DClock {
    fn on_insert(&mut self, slot: u32, _lpn: u64, how: Entry) {
        self.referenced[slot as usize] = how == Entry::Read;
    }
    fn on_hit(&mut self, slot: u32, _lpn: u64, write: bool) {
        self.referenced[slot as usize] = !write;
    }
    fn on_remove(&mut self, slot: u32, _lpn: u64) {
        self.referenced[slot as usize] = false;
    }
    fn on_cleaned(&mut self, slot: u32) {
        self.referenced[slot as usize] = true;
    }
    fn victims(&mut self, _pages: &PageStore) -> Vec<u32> {
        vec![sweep(&mut self.referenced, &mut self.hand)]
    }
}
