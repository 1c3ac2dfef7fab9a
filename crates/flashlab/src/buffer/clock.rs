//! CLOCK write buffer: page granular, write-back; a hit sets the page's reference bit; to
//! evict, the hand sweeps the slots in order, clearing set bits, and takes the first page whose
//! bit is clear (written down if dirty). Read misses insert clean pages.

use super::pages::PageStore;
use super::{BufferConfig, WriteBuffer};
use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};

pub struct Clock {
    pages: PageStore,
    hand: u32,
}

pub fn build(cfg: &BufferConfig, ctx: &super::BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    Ok(Box::new(Clock { pages: PageStore::new(cfg.dram_pages(ctx.page_size)?), hand: 0 }))
}

impl Clock {
    fn make_room(&mut self, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if !self.pages.is_full() {
            return Ok(t_ns);
        }
        let n = self.pages.capacity();
        loop {
            let s = self.hand;
            self.hand = (self.hand + 1) % n;
            if self.pages.referenced[s as usize] {
                self.pages.referenced[s as usize] = false;
            } else {
                return self.pages.evict(s, t_ns, ftl);
            }
        }
    }
}

impl WriteBuffer for Clock {
    fn read(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        self.pages.counters.read_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.pages.counters.read_hits += 1;
            self.pages.referenced[s as usize] = true;
            let tag = self.pages.tag[s as usize];
            return Ok(ReadOutcome { done_ns: t_ns, tag: (tag != 0).then_some(tag) });
        }
        let r = ftl.read(lpn, t_ns)?;
        let freed = self.make_room(t_ns, ftl)?;
        self.pages.insert(lpn, r.tag.unwrap_or(0), false);
        Ok(ReadOutcome { done_ns: r.done_ns.max(freed), tag: r.tag })
    }

    fn write(&mut self, lpn: u64, tag: u32, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        self.pages.counters.write_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.pages.counters.write_hits += 1;
            self.pages.tag[s as usize] = tag;
            self.pages.dirty[s as usize] = true;
            self.pages.referenced[s as usize] = true;
            return Ok(t_ns);
        }
        let freed = self.make_room(t_ns, ftl)?;
        self.pages.insert(lpn, tag, true);
        Ok(freed)
    }

    fn trim(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if let Some(s) = self.pages.slot(lpn) {
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
