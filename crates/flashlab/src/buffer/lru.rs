//! LRU write buffer: page granular, write-back; reads and writes both cached (read misses
//! insert clean pages); the least recently used page is evicted, written down if dirty.

use super::pages::{PageStore, NIL};
use super::{BufferConfig, WriteBuffer};
use crate::error::Error;
use crate::ftl::gc::seglist::SegLists;
use crate::ftl::{Ftl, ReadOutcome};

pub struct Lru {
    pages: PageStore,
    /// Slots from least (head) to most (tail) recently used.
    order: SegLists,
}

pub fn build(cfg: &BufferConfig, ctx: &super::BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    let slots = cfg.dram_pages(ctx.page_size)?;
    Ok(Box::new(Lru { pages: PageStore::new(slots), order: SegLists::new(1, slots as usize) }))
}

impl Lru {
    fn touch(&mut self, s: u32) {
        self.order.unlink(0, s);
        self.order.push_back(0, s);
    }

    /// A slot for a new page: evict the LRU one if full. Returns (slot-free time).
    fn make_room(&mut self, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if !self.pages.is_full() {
            return Ok(t_ns);
        }
        let victim = self.order.head(0);
        debug_assert_ne!(victim, NIL);
        self.order.unlink(0, victim);
        self.pages.evict(victim, t_ns, ftl)
    }

    fn insert(&mut self, lpn: u64, tag: u32, dirty: bool) {
        let s = self.pages.insert(lpn, tag, dirty);
        self.order.push_back(0, s);
    }
}

impl WriteBuffer for Lru {
    fn read(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        self.pages.counters.read_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.pages.counters.read_hits += 1;
            self.touch(s);
            let tag = self.pages.tag[s as usize];
            return Ok(ReadOutcome { done_ns: t_ns, tag: (tag != 0).then_some(tag) });
        }
        let r = ftl.read(lpn, t_ns)?;
        let freed = self.make_room(t_ns, ftl)?;
        self.insert(lpn, r.tag.unwrap_or(0), false);
        Ok(ReadOutcome { done_ns: r.done_ns.max(freed), tag: r.tag })
    }

    fn write(&mut self, lpn: u64, tag: u32, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        self.pages.counters.write_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.pages.counters.write_hits += 1;
            self.pages.tag[s as usize] = tag;
            self.pages.dirty[s as usize] = true;
            self.touch(s);
            return Ok(t_ns);
        }
        let freed = self.make_room(t_ns, ftl)?;
        self.insert(lpn, tag, true);
        Ok(freed)
    }

    fn trim(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if let Some(s) = self.pages.slot(lpn) {
            self.order.unlink(0, s);
            self.pages.drop_slot(s);
        }
        ftl.trim(lpn, t_ns)
    }

    fn flush(&mut self, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        self.pages.flush_all(t_ns, ftl)
    }

    fn hits(&self) -> (u64, u64) {
        self.pages.hits()
    }

    fn counters(&self) -> Option<super::BufferCounters> {
        Some(self.pages.counters)
    }

    fn validate(&self) -> Result<(), String> {
        self.pages.validate()
    }
}
