//! CLOCK write buffer: page granular, write-back; a hit sets the page's reference bit; to
//! evict, the hand sweeps the slots in order, clearing set bits, and takes the first page whose
//! bit is clear (written down if dirty). Read misses insert clean pages.

use super::pages::{Buffered, EvictPolicy, PageStore};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;

pub struct Clock {
    referenced: Vec<bool>,
    hand: u32,
}

pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    let slots = cfg.dram_pages(ctx.page_size)?;
    Ok(Box::new(Buffered { pages: PageStore::new(slots), policy: Clock { referenced: vec![false; slots as usize], hand: 0 } }))
}

impl EvictPolicy for Clock {
    fn on_insert(&mut self, slot: u32, _lpn: u64) {
        self.referenced[slot as usize] = false;
    }
    fn on_hit(&mut self, slot: u32, _lpn: u64) {
        self.referenced[slot as usize] = true;
    }
    fn on_remove(&mut self, slot: u32, _lpn: u64) {
        self.referenced[slot as usize] = false;
    }
    fn victims(&mut self, pages: &PageStore) -> Vec<u32> {
        let n = pages.capacity();
        loop {
            let s = self.hand;
            self.hand = (self.hand + 1) % n;
            if self.referenced[s as usize] {
                self.referenced[s as usize] = false;
            } else {
                return vec![s];
            }
        }
    }
}
