//! LRU write buffer: page granular, write-back; reads and writes both cached (read misses
//! insert clean pages); the least recently used page is evicted, written down if dirty.

use super::pages::{Buffered, Entry, EvictPolicy, PageStore, DESTAGE_WINDOW};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;
use crate::seglist::{SegLists, NIL};

/// Slots from least (head) to most (tail) recently used.
pub struct Lru {
    order: SegLists,
}

/// Build page LRU over one memory; it takes no parameters.
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    super::no_params(cfg)?;
    let pages = cfg.single_store(ctx)?;
    let policy = Lru::new(pages.capacity());
    Ok(Box::new(Buffered::new(pages, policy)))
}

/// The store and one LRU list over its slots.
pub fn memory(cfg: &BufferConfig, ctx: &BufferContext, est: &mut crate::memory::Estimate) {
    let (d, n) = super::slots(cfg, ctx);
    est.add("buffer", PageStore::memory(d + n) + SegLists::memory(1, d + n));
}

impl Lru {
    /// An empty list over `slots` slots.
    pub fn new(slots: u32) -> Self {
        Lru { order: SegLists::new(1, slots as usize) }
    }
}

impl EvictPolicy for Lru {
    fn on_insert(&mut self, slot: u32, _lpn: u64, _how: Entry) {
        self.order.push_back(0, slot);
    }
    fn on_hit(&mut self, slot: u32, _lpn: u64, _write: bool) {
        self.order.unlink(0, slot);
        self.order.push_back(0, slot);
    }
    fn on_remove(&mut self, slot: u32, _lpn: u64) {
        self.order.unlink(0, slot);
    }
    fn victims(&mut self, _pages: &PageStore) -> Vec<u32> {
        let head = self.order.head(0);
        debug_assert_ne!(head, NIL, "full buffer with an empty LRU list");
        vec![head]
    }
    fn dirty_ahead(&self, pages: &PageStore, n: usize) -> Option<Vec<u32>> {
        let mut out = Vec::with_capacity(n);
        let mut s = self.order.head(0);
        for _ in 0..DESTAGE_WINDOW {
            if s == NIL || out.len() == n {
                break;
            }
            if pages.dirty[s as usize] {
                out.push(s);
            }
            s = self.order.next(s);
        }
        Some(out)
    }
    fn validate(&self, pages: &PageStore) -> Result<(), String> {
        let (mut s, mut n) = (self.order.head(0), 0);
        while s != NIL {
            if !pages.is_held(s) {
                return Err(format!("lru: slot {s} listed but empty"));
            }
            n += 1;
            s = self.order.next(s);
        }
        let held = (0..pages.capacity()).filter(|&s| pages.is_held(s)).count();
        if n != held {
            return Err(format!("lru: {n} listed, {held} held"));
        }
        Ok(())
    }
}
