//! The page slots a buffer policy manages: which logical pages are held, with their version tag,
//! dirty flag and reference bit, and the write-back / fetch mechanics every policy shares
//! (policies only choose which slot to evict). Hit counters split by reads and writes.

use std::collections::HashMap;

use crate::error::Error;
use crate::ftl::Ftl;

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
    pub referenced: Vec<bool>,
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
            referenced: vec![false; n],
            slot_of: HashMap::with_capacity(n),
            free: (0..slots).rev().collect(),
            counters: BufferCounters::default(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.lpn.len() as u32
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
        self.referenced[s as usize] = false;
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
