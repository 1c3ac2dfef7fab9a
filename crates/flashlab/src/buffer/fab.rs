//! FAB, Flash-Aware Buffer (H. Jo, J.-U. Kang, S.-Y. Park, J.-S. Kim, J. Lee, "FAB: flash-aware
//! buffer management policy for portable media players", IEEE Trans. Consumer Electronics,
//! 2006): pages are grouped by flash block (`lpn / pages_per_block`); the victim is the block
//! with the most buffered pages, the least recently used one among ties; all its pages leave
//! together (dirty ones written down in page order, clean ones dropped), which suits
//! block-level FTLs. Reads are cached too (clean pages). All DRAM.

use std::collections::BTreeMap;

use super::pages::PageStore;
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};

#[derive(Clone, Debug, Default)]
struct Group {
    slots: Vec<u32>,
    /// Logical time of the group's last access.
    last_use: u64,
}

pub struct Fab {
    pages: PageStore,
    ppb: u64,
    /// Groups by block number (ordered, so ties break the same way every run).
    groups: BTreeMap<u64, Group>,
    clock: u64,
}

pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    assert!(ctx.pages_per_block > 0);
    Ok(Box::new(Fab { pages: PageStore::new(cfg.dram_pages(ctx.page_size)?), ppb: ctx.pages_per_block, groups: BTreeMap::new(), clock: 0 }))
}

impl Fab {
    fn touch(&mut self, lpn: u64) {
        self.clock += 1;
        if let Some(g) = self.groups.get_mut(&(lpn / self.ppb)) {
            g.last_use = self.clock;
        }
    }

    fn insert(&mut self, lpn: u64, tag: u32, dirty: bool) {
        let s = self.pages.insert(lpn, tag, dirty);
        self.clock += 1;
        let g = self.groups.entry(lpn / self.ppb).or_default();
        g.slots.push(s);
        g.last_use = self.clock;
    }

    /// Evict the largest group (LRU among ties) when full.
    fn make_room(&mut self, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if !self.pages.is_full() {
            return Ok(t_ns);
        }
        let (&block, _) = self
            .groups
            .iter()
            .max_by(|a, b| a.1.slots.len().cmp(&b.1.slots.len()).then(b.1.last_use.cmp(&a.1.last_use)))
            .expect("a full buffer has a group");
        let mut group = self.groups.remove(&block).expect("chosen group exists");
        group.slots.sort_by_key(|&s| self.pages.lpn[s as usize]);
        let mut done = t_ns;
        for s in group.slots {
            done = done.max(self.pages.evict(s, t_ns, ftl)?);
        }
        Ok(done)
    }

    fn remove_from_group(&mut self, lpn: u64, s: u32) {
        let block = lpn / self.ppb;
        let g = self.groups.get_mut(&block).expect("a buffered page has a group");
        g.slots.retain(|&x| x != s);
        if g.slots.is_empty() {
            self.groups.remove(&block);
        }
    }
}

impl WriteBuffer for Fab {
    fn read(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        self.pages.counters.read_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.pages.counters.read_hits += 1;
            self.touch(lpn);
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
            self.touch(lpn);
            return Ok(t_ns);
        }
        let freed = self.make_room(t_ns, ftl)?;
        self.insert(lpn, tag, true);
        Ok(freed)
    }

    fn trim(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if let Some(s) = self.pages.slot(lpn) {
            self.remove_from_group(lpn, s);
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
        self.pages.validate()?;
        let grouped: usize = self.groups.values().map(|g| g.slots.len()).sum();
        let held = self.pages.lpn.iter().filter(|&&l| l != u64::MAX).count();
        if grouped != held {
            return Err(format!("fab: {grouped} pages in groups, {held} buffered"));
        }
        for (&b, g) in &self.groups {
            if let Some(&s) = g.slots.iter().find(|&&s| self.pages.lpn[s as usize] / self.ppb != b) {
                return Err(format!("fab: slot {s} in group {b} holds lpn {}", self.pages.lpn[s as usize]));
            }
        }
        Ok(())
    }
}
