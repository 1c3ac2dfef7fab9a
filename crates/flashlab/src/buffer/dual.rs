//! The two-memory buffer mechanism (DRAM + NVRAM) behind CBM and DWB: a DRAM policy and an
//! NVRAM policy (each an [`EvictPolicy`]) decide; [`Dual`] holds the pages, serves hits from
//! either memory, fetches read misses into DRAM, migrates dirty DRAM victims to NVRAM, and when
//! NVRAM is full writes the NVRAM victim block down together with the same-block DRAM pages
//! (dirty ones always, which then stay cached clean; clean ones too under CBM's rule). A page is
//! in at most one memory. DRAM is volatile: its dirty pages are what a power failure loses.

use super::pages::{destage_slot, destaged_until, Entry, EvictPolicy, FlushLog, PageStore};
use super::{BufferCounters as Counters, CrashImage, WriteBuffer};
use crate::error::Error;
use crate::fastmap::{self, FastMap};
use crate::ftl::{Ftl, ReadOutcome};
use crate::units::{Lpn, Nanos};

/// Where the two policies differ in mechanism.
#[derive(Clone, Copy, Debug)]
pub struct DualRule {
    /// Host writes go to NVRAM (CBM: DRAM is a read cache, a write hitting a DRAM page moves it
    /// to NVRAM); otherwise writes land in DRAM and dirty DRAM victims migrate to NVRAM (DWB).
    pub writes_to_nvram: bool,
    /// An NVRAM victim block also takes the same-block clean DRAM pages down (CBM's merge
    /// toward full-block writes: writes that are not needed for durability).
    pub merge_clean: bool,
}

/// A DRAM + NVRAM write buffer: the shared two-memory mechanism around a DRAM policy `D` and an
/// NVRAM policy `N`.
pub struct Dual<D, N> {
    /// DRAM pages (volatile).
    pub dram: PageStore,
    /// NVRAM pages (non-volatile).
    pub nvram: PageStore,
    /// The DRAM policy.
    pub d: D,
    /// The NVRAM policy; its victims of one eviction all lie in one logical block.
    pub n: N,
    ppb: u64,
    rule: DualRule,
    counters: Counters,
    log: FlushLog,
    /// DRAM pages per logical block, so an NVRAM eviction looks for same-block DRAM pages
    /// only when there are some.
    dram_blocks: FastMap<u64, u32>,
}

/// One page of an NVRAM victim block's write-back.
enum Down {
    Nvram(u32),
    DramDirty(u32),
    DramClean(u32),
}

impl<D: EvictPolicy, N: EvictPolicy> Dual<D, N> {
    /// Bytes of the mechanism's own state over `dram_slots` DRAM slots: the pages counted per
    /// block, made with room for every slot (and a second such map while `validate` checks it).
    pub fn memory(dram_slots: u64) -> u64 {
        2 * crate::memory::map_bytes::<u64, u32>(dram_slots, false)
    }

    /// Both memories with their policies, blocks of `pages_per_block` pages, and `rule` for where
    /// writes land and what merges. Panics unless `dram` is volatile and `nvram` is not.
    pub fn new(dram: PageStore, nvram: PageStore, d: D, n: N, pages_per_block: u64, rule: DualRule) -> Self {
        assert!(dram.volatile && !nvram.volatile);
        let dram_blocks = fastmap::with_capacity(dram.capacity() as usize);
        Dual {
            dram,
            nvram,
            d,
            n,
            ppb: pages_per_block,
            rule,
            counters: Counters::default(),
            log: FlushLog::default(),
            dram_blocks,
        }
    }

    fn insert_dram(&mut self, lpn: u64, tag: Option<u32>, how: Entry) {
        let s = self.dram.insert(lpn, tag, how.dirty());
        self.d.on_insert(s, lpn, how);
        *self.dram_blocks.entry(lpn / self.ppb).or_insert(0) += 1;
    }

    /// Take DRAM slot `s` out (evicted, moved or trimmed); returns its (lpn, tag).
    fn remove_dram(&mut self, s: u32) -> (u64, u32) {
        let lpn = self.dram.lpn[s as usize];
        self.d.on_remove(s, lpn);
        let block = lpn / self.ppb;
        let n = self.dram_blocks.get_mut(&block).expect("a DRAM page's block is counted");
        *n -= 1;
        if *n == 0 {
            self.dram_blocks.remove(&block);
        }
        self.dram.drop_slot(s)
    }

    fn insert_nvram(&mut self, lpn: u64, tag: u32, how: Entry) {
        let s = self.nvram.insert(lpn, Some(tag), true);
        self.n.on_insert(s, lpn, how);
    }

    /// Free a DRAM slot: a clean victim is dropped, a dirty one migrates to NVRAM.
    fn make_room_dram(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        if !self.dram.is_full() {
            return Ok(t);
        }
        let mut done = t;
        for s in self.d.victims(&self.dram) {
            let dirty = self.dram.dirty[s as usize];
            let (lpn, tag) = self.remove_dram(s);
            if dirty {
                self.counters.migrated_pages += 1;
                done = done.max(self.make_room_nvram(t, ftl)?);
                self.insert_nvram(lpn, tag, Entry::Migrate);
            }
        }
        Ok(done)
    }

    /// Free NVRAM when it is full ([`Dual::evict_nvram`]).
    fn make_room_nvram(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        if !self.nvram.is_full() {
            return Ok(t);
        }
        self.evict_nvram(t, ftl)
    }

    /// NVRAM's victim block goes down with the same-block DRAM pages, in page order.
    fn evict_nvram(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        let victims = self.n.victims(&self.nvram);
        assert!(!victims.is_empty(), "a full NVRAM's policy named no victim");
        let block = self.nvram.lpn[victims[0] as usize] / self.ppb;
        let mut down: Vec<(u64, Down)> = Vec::with_capacity(self.ppb as usize);
        for &s in &victims {
            let lpn = self.nvram.lpn[s as usize];
            debug_assert_eq!(lpn / self.ppb, block, "an NVRAM victim spans blocks");
            down.push((lpn, Down::Nvram(s)));
        }
        let in_dram = if self.dram_blocks.contains_key(&block) {
            block * self.ppb..((block + 1) * self.ppb).min(ftl.logical_pages())
        } else {
            0..0
        };
        for lpn in in_dram {
            if let Some(s) = self.dram.slot(lpn) {
                if self.dram.dirty[s as usize] {
                    down.push((lpn, Down::DramDirty(s)));
                } else if self.rule.merge_clean && self.dram.data[s as usize] {
                    down.push((lpn, Down::DramClean(s)));
                }
            }
        }
        down.sort_unstable_by_key(|d| d.0);
        let mut done = t;
        for (lpn, d) in &down {
            done = done.max(match *d {
                Down::Nvram(s) => {
                    self.n.on_remove(s, *lpn);
                    self.nvram.evict(s, t, ftl)?
                }
                Down::DramDirty(s) => {
                    let w = self.dram.clean(s, t, ftl)?;
                    self.d.on_cleaned(s);
                    self.counters.merged_dirty_pages += 1;
                    w
                }
                Down::DramClean(s) => {
                    self.counters.merged_clean_pages += 1;
                    ftl.write(Lpn(*lpn), self.dram.tag[s as usize], t)?
                }
            });
        }
        self.log.record(down.len() as u64);
        Ok(done)
    }
}

impl<D: EvictPolicy, N: EvictPolicy> WriteBuffer for Dual<D, N> {
    fn read(&mut self, Lpn(lpn): Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        self.counters.read_accesses += 1;
        if let Some(s) = self.dram.slot(lpn) {
            self.counters.read_hits += 1;
            self.d.on_hit(s, lpn, false);
            return Ok(self.dram.outcome(s, t));
        }
        // (A read miss below does not wait for the write-back that makes room for its copy.)
        if let Some(s) = self.nvram.slot(lpn) {
            self.counters.read_hits += 1;
            self.n.on_hit(s, lpn, false);
            return Ok(self.nvram.outcome(s, t));
        }
        let r = ftl.read(Lpn(lpn), t)?;
        self.make_room_dram(t, ftl)?;
        self.insert_dram(lpn, r.tag, Entry::Read);
        Ok(r)
    }

    fn write(&mut self, Lpn(lpn): Lpn, tag: u32, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        self.counters.write_accesses += 1;
        if let Some(s) = self.nvram.slot(lpn) {
            self.counters.write_hits += 1;
            self.nvram.overwrite(s, tag);
            self.n.on_hit(s, lpn, true);
            return Ok(self.nvram.after_access(t));
        }
        let in_dram = self.dram.slot(lpn);
        if in_dram.is_some() {
            self.counters.write_hits += 1;
        }
        match (in_dram, self.rule.writes_to_nvram) {
            (Some(s), false) => {
                self.dram.overwrite(s, tag);
                self.d.on_hit(s, lpn, true);
                Ok(self.dram.after_access(t))
            }
            (None, false) => {
                let freed = self.make_room_dram(t, ftl)?;
                self.insert_dram(lpn, Some(tag), Entry::Write);
                Ok(self.dram.after_access(freed))
            }
            (held, true) => {
                if let Some(s) = held {
                    self.remove_dram(s);
                }
                let freed = self.make_room_nvram(t, ftl)?;
                self.insert_nvram(lpn, tag, Entry::Write);
                Ok(self.nvram.after_access(freed))
            }
        }
    }

    fn destage(&mut self, until: Nanos, ftl: &mut dyn Ftl) -> Result<(), Error> {
        let written = |b: &Self| b.dram.written + b.nvram.written + b.counters.merged_clean_pages;
        let before = written(self);
        while let Some((at, lanes)) = destage_slot(&mut self.nvram, until, ftl, false) {
            // NVRAM victim blocks, about `lanes` pages at once.
            let start = written(self);
            while written(self) - start < lanes && !self.nvram.is_empty() && self.nvram.destage_due() {
                self.evict_nvram(at, ftl)?;
            }
        }
        self.counters.destaged_pages += written(self) - before;
        destaged_until(&mut self.nvram, until);
        Ok(())
    }

    fn trim(&mut self, Lpn(lpn): Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        if let Some(s) = self.dram.slot(lpn) {
            self.remove_dram(s);
        }
        if let Some(s) = self.nvram.slot(lpn) {
            self.n.on_remove(s, lpn);
            self.nvram.drop_slot(s);
        }
        ftl.trim(Lpn(lpn), t)
    }

    fn flush(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        let before = self.dram.written + self.nvram.written;
        let done = self.dram.flush_all(t, ftl)?.max(self.nvram.flush_all(t, ftl)?);
        self.counters.flush_command_pages += self.dram.written + self.nvram.written - before;
        Ok(done)
    }

    fn counters(&self) -> Option<Counters> {
        let c = self.counters;
        Some(Counters { flushed_pages: self.dram.written + self.nvram.written + c.merged_clean_pages, ..c })
    }

    fn flush_batches(&self) -> Vec<(u64, u64)> {
        self.log.histogram()
    }

    fn exposed(&self) -> u64 {
        self.dram.exposed() + self.nvram.exposed()
    }

    fn crash(&mut self) -> CrashImage {
        let mut image = CrashImage::default();
        self.dram.crash_into(&mut image);
        self.nvram.crash_into(&mut image);
        image
    }

    fn validate(&self) -> Result<(), String> {
        self.dram.validate().map_err(|e| format!("DRAM {e}"))?;
        self.nvram.validate().map_err(|e| format!("NVRAM {e}"))?;
        self.d.validate(&self.dram)?;
        self.n.validate(&self.nvram)?;
        let mut blocks: FastMap<u64, u32> = fastmap::with_capacity(self.dram_blocks.len());
        for s in (0..self.dram.capacity()).filter(|&s| self.dram.is_held(s)) {
            *blocks.entry(self.dram.lpn[s as usize] / self.ppb).or_insert(0) += 1;
        }
        if blocks != self.dram_blocks {
            return Err(format!("dual buffer: DRAM pages per block {:?}, counted {:?}", blocks, self.dram_blocks));
        }
        for s in 0..self.dram.capacity() {
            let lpn = self.dram.lpn[s as usize];
            if lpn == u64::MAX {
                continue;
            }
            if self.nvram.slot(lpn).is_some() {
                return Err(format!("dual buffer: lpn {lpn} in DRAM and NVRAM"));
            }
            if self.rule.writes_to_nvram && self.dram.dirty[s as usize] {
                return Err(format!("dual buffer: lpn {lpn} dirty in a read-cache DRAM"));
            }
        }
        Ok(())
    }
}
