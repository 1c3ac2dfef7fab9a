//! CLOCK write buffer: page granular, write-back; a hit sets the page's reference bit; to
//! evict, the hand sweeps the slots in order, clearing set bits, and takes the first page whose
//! bit is clear (written down if dirty). Read misses insert clean pages.

use super::pages::{Buffered, Entry, EvictPolicy, PageStore, DESTAGE_WINDOW};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;

/// Page CLOCK: a reference bit per slot and the hand.
pub struct Clock {
    referenced: Vec<bool>,
    hand: u32,
}

/// Build page CLOCK over one memory; it takes no parameters.
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    super::no_params(cfg)?;
    let pages = cfg.single_store(ctx)?;
    let policy = Clock { referenced: vec![false; pages.capacity() as usize], hand: 0 };
    Ok(Box::new(Buffered::new(pages, policy)))
}

/// The store and a reference bit per slot.
pub fn memory(cfg: &BufferConfig, ctx: &BufferContext, est: &mut crate::memory::Estimate) {
    let (d, n) = super::slots(cfg, ctx);
    est.add("buffer", PageStore::memory(d + n) + crate::memory::vec_bytes::<bool>(d + n));
}

/// The CLOCK hand over slots: clear set bits until a clear one; that slot is the victim and
/// the hand stops just past it.
pub fn sweep(referenced: &mut [bool], hand: &mut u32) -> u32 {
    let n = referenced.len() as u32;
    loop {
        let s = *hand;
        *hand = (*hand + 1) % n;
        if !std::mem::replace(&mut referenced[s as usize], false) {
            return s;
        }
    }
}

impl EvictPolicy for Clock {
    fn on_insert(&mut self, slot: u32, _lpn: u64, _how: Entry) {
        self.referenced[slot as usize] = false;
    }
    fn on_hit(&mut self, slot: u32, _lpn: u64, _write: bool) {
        self.referenced[slot as usize] = true;
    }
    fn on_remove(&mut self, slot: u32, _lpn: u64) {
        self.referenced[slot as usize] = false;
    }
    fn victims(&mut self, _pages: &PageStore) -> Vec<u32> {
        vec![sweep(&mut self.referenced, &mut self.hand)]
    }
    /// The dirty pages the hand reaches next with a clear bit: the next sweep's victims, in
    /// order (a page whose bit is set gets a second chance first).
    fn dirty_ahead(&self, pages: &PageStore, n: usize) -> Option<Vec<u32>> {
        let cap = self.referenced.len();
        let mut out = Vec::with_capacity(n);
        for k in 0..cap.min(DESTAGE_WINDOW) {
            let s = ((self.hand as usize + k) % cap) as u32;
            if out.len() == n {
                break;
            }
            if pages.is_held(s) && pages.dirty[s as usize] && !self.referenced[s as usize] {
                out.push(s);
            }
        }
        Some(out)
    }
}
