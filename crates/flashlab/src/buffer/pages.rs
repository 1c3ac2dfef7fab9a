//! The buffer mechanism every page-holding policy shares: the slots (which logical pages are
//! held, with their version tag and dirty flag), hits and misses, write-back on eviction and
//! flush, fetch on a read miss (the page is inserted clean), trims, counters split by reads and
//! writes. Policy decides, mechanism acts: an [`EvictPolicy`] only hears about inserts, hits
//! and removals and names the victims when the buffer is full; [`Buffered`] does the rest.

use std::collections::HashMap;

use super::{BufferCounters as Counters, WriteBuffer};
use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};

/// What a buffer policy decides.
pub trait EvictPolicy: Send {
    /// `lpn` was put in `slot`.
    fn on_insert(&mut self, slot: u32, lpn: u64);
    /// `lpn` in `slot` was read or written again.
    fn on_hit(&mut self, slot: u32, lpn: u64);
    /// `lpn` leaves `slot` (evicted or trimmed).
    fn on_remove(&mut self, slot: u32, lpn: u64);
    /// The buffer is full: the slots to evict now (at least one), in write-back order.
    fn victims(&mut self, pages: &PageStore) -> Vec<u32>;
    /// Cross-check the policy's structures against the slots (check mode).
    fn validate(&self, _pages: &PageStore) -> Result<(), String> {
        Ok(())
    }
}

/// A page-holding write buffer: the shared mechanism around a policy.
pub struct Buffered<P> {
    pub pages: PageStore,
    pub policy: P,
}

impl<P: EvictPolicy> Buffered<P> {
    fn make_room(&mut self, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if !self.pages.is_full() {
            return Ok(t_ns);
        }
        let victims = self.policy.victims(&self.pages);
        assert!(!victims.is_empty(), "a full buffer's policy named no victim");
        let mut done = t_ns;
        for s in victims {
            self.policy.on_remove(s, self.pages.lpn[s as usize]);
            done = done.max(self.pages.evict(s, t_ns, ftl)?);
        }
        Ok(done)
    }

    fn insert(&mut self, lpn: u64, tag: u32, dirty: bool) {
        let s = self.pages.insert(lpn, tag, dirty);
        self.policy.on_insert(s, lpn);
    }
}

impl<P: EvictPolicy> WriteBuffer for Buffered<P> {
    fn read(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        self.pages.counters.read_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.pages.counters.read_hits += 1;
            self.policy.on_hit(s, lpn);
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
            self.policy.on_hit(s, lpn);
            return Ok(t_ns);
        }
        let freed = self.make_room(t_ns, ftl)?;
        self.insert(lpn, tag, true);
        Ok(freed)
    }

    fn trim(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if let Some(s) = self.pages.slot(lpn) {
            self.policy.on_remove(s, lpn);
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

    fn counters(&self) -> Option<Counters> {
        Some(self.pages.counters)
    }

    fn validate(&self) -> Result<(), String> {
        self.pages.validate()?;
        self.policy.validate(&self.pages)
    }
}

pub const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BufferCounters {
    pub read_hits: u64,
    pub read_accesses: u64,
    pub write_hits: u64,
    pub write_accesses: u64,
    /// Dirty pages written down to the FTL (evictions and flushes).
    pub flushed_pages: u64,
}

pub struct PageStore {
    pub lpn: Vec<u64>,
    pub tag: Vec<u32>,
    pub dirty: Vec<bool>,
    slot_of: HashMap<u64, u32>,
    free: Vec<u32>,
    pub counters: BufferCounters,
}

impl PageStore {
    pub fn new(slots: u32) -> Self {
        assert!(slots > 0);
        let n = slots as usize;
        PageStore {
            lpn: vec![u64::MAX; n],
            tag: vec![0; n],
            dirty: vec![false; n],
            slot_of: HashMap::with_capacity(n),
            free: (0..slots).rev().collect(),
            counters: BufferCounters::default(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.lpn.len() as u32
    }
    /// Is `slot` holding a page?
    pub fn is_held(&self, s: u32) -> bool {
        self.lpn[s as usize] != u64::MAX
    }
    pub fn is_full(&self) -> bool {
        self.free.is_empty()
    }
    pub fn slot(&self, lpn: u64) -> Option<u32> {
        self.slot_of.get(&lpn).copied()
    }

    /// Put `lpn` into a free slot.
    pub fn insert(&mut self, lpn: u64, tag: u32, dirty: bool) -> u32 {
        let s = self.free.pop().expect("insert needs a free slot: evict first");
        self.lpn[s as usize] = lpn;
        self.tag[s as usize] = tag;
        self.dirty[s as usize] = dirty;
        let old = self.slot_of.insert(lpn, s);
        assert!(old.is_none(), "lpn {lpn} buffered twice");
        s
    }

    /// Empty slot `s`, writing it down first if dirty; returns when the write completes.
    pub fn evict(&mut self, s: u32, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        let done = self.clean(s, t_ns, ftl)?;
        self.drop_slot(s);
        Ok(done)
    }

    /// Forget slot `s` without writing it (its page was trimmed).
    pub fn drop_slot(&mut self, s: u32) {
        let lpn = std::mem::replace(&mut self.lpn[s as usize], u64::MAX);
        self.slot_of.remove(&lpn);
        self.dirty[s as usize] = false;
        self.free.push(s);
    }

    /// Write slot `s` down if dirty; it stays cached, clean.
    pub fn clean(&mut self, s: u32, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        if !self.dirty[s as usize] {
            return Ok(t_ns);
        }
        self.dirty[s as usize] = false;
        self.counters.flushed_pages += 1;
        ftl.write(self.lpn[s as usize], self.tag[s as usize], t_ns)
    }

    /// Every dirty slot, in slot order (deterministic), written down.
    pub fn flush_all(&mut self, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        let mut done = t_ns;
        for s in 0..self.capacity() {
            if self.lpn[s as usize] != u64::MAX {
                done = done.max(self.clean(s, t_ns, ftl)?);
            }
        }
        Ok(done)
    }

    /// Page hits and accesses.
    pub fn hits(&self) -> (u64, u64) {
        let c = &self.counters;
        (c.read_hits + c.write_hits, c.read_accesses + c.write_accesses)
    }

    pub fn validate(&self) -> Result<(), String> {
        let held = self.lpn.iter().filter(|&&l| l != u64::MAX).count();
        if held != self.slot_of.len() || held + self.free.len() != self.lpn.len() {
            return Err(format!("buffer: {held} held, {} mapped, {} free of {}", self.slot_of.len(), self.free.len(), self.lpn.len()));
        }
        for (&lpn, &s) in &self.slot_of {
            if self.lpn[s as usize] != lpn {
                return Err(format!("buffer: lpn {lpn} maps to slot {s} holding {}", self.lpn[s as usize]));
            }
        }
        Ok(())
    }
}
