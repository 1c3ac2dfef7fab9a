//! The buffer mechanism every page-holding policy shares: the slots (which logical pages are
//! held, with their version tag and dirty flag), hits and misses, write-back on eviction and
//! flush, fetch on a read miss (the page is inserted clean when the policy caches reads), BPLRU
//! page padding, trims, counters split by reads and writes, flush batch sizes, power-loss
//! exposure and the crash image. Policy decides, mechanism acts: an [`EvictPolicy`] only hears
//! about inserts, hits and removals and names the victims when the buffer is full; [`Buffered`]
//! (one memory) and [`super::dual::Dual`] (DRAM + NVRAM) do the rest.
//!
//! Slots and policies hold raw page numbers (`u64`); a page becomes an [`Lpn`] where it goes
//! down to the FTL or out in a [`CrashImage`]. Times are [`Nanos`] throughout.

use super::{BufferCounters as Counters, CrashImage, WriteBuffer};
use crate::error::Error;
use crate::fastmap::{self, FastMap};
use crate::ftl::{Ftl, ReadOutcome, WritePlanes};
use crate::units::{Lpn, Nanos};

/// How a page enters a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Fetched by a read miss (clean).
    Read,
    /// Written by the host (dirty).
    Write,
    /// Moved from DRAM to NVRAM by the buffer itself (dirty; not a host access).
    Migrate,
}

impl Entry {
    /// A page entering this way is dirty: a host write or a migration, not a read fetch.
    pub fn dirty(self) -> bool {
        self != Entry::Read
    }
}

/// What a buffer policy decides.
pub trait EvictPolicy: Send {
    /// `lpn` was put in `slot`.
    fn on_insert(&mut self, slot: u32, lpn: u64, how: Entry);
    /// `lpn` in `slot` was read (`write` false) or written again.
    fn on_hit(&mut self, slot: u32, lpn: u64, write: bool);
    /// `lpn` leaves `slot` (evicted, migrated or trimmed).
    fn on_remove(&mut self, slot: u32, lpn: u64);
    /// `slot`'s page was written down and stays buffered, clean (DWB's merged DRAM pages).
    fn on_cleaned(&mut self, _slot: u32) {}
    /// The store is full: the slots to evict now (at least one), in write-back order.
    fn victims(&mut self, pages: &PageStore) -> Vec<u32>;
    /// Background destaging (timing mode): up to `n` dirty slots among the next
    /// [`DESTAGE_WINDOW`] the policy would evict, soonest first, without changing anything;
    /// they are written down and stay cached, clean. `None` (the default): the policy cannot
    /// say, and destaging evicts its victims early instead.
    fn dirty_ahead(&self, _pages: &PageStore, _n: usize) -> Option<Vec<u32>> {
        None
    }
    /// Cross-check the policy's structures against the slots (check mode).
    fn validate(&self, _pages: &PageStore) -> Result<(), String> {
        Ok(())
    }
}

/// Pages written down per eviction (flush commands not included): `sizes[n]` = evictions that
/// wrote n pages.
#[derive(Clone, Debug, Default)]
pub struct FlushLog {
    sizes: Vec<u64>,
}

impl FlushLog {
    /// Count one eviction that wrote `pages` pages down (none is counted for 0).
    pub fn record(&mut self, pages: u64) {
        if pages == 0 {
            return;
        }
        let n = pages as usize;
        if self.sizes.len() <= n {
            self.sizes.resize(n + 1, 0);
        }
        self.sizes[n] += 1;
    }
    /// (batch size, count) for every size seen, ascending.
    pub fn histogram(&self) -> Vec<(u64, u64)> {
        self.sizes.iter().enumerate().filter(|(_, &c)| c > 0).map(|(n, &c)| (n as u64, c)).collect()
    }
}

/// A page-holding write buffer in one memory (DRAM, or NVRAM when `[buffer] nvram` is given
/// instead): the shared mechanism around a policy.
pub struct Buffered<P> {
    /// The slots.
    pub pages: PageStore,
    /// The policy that names the victims.
    pub policy: P,
    /// Read misses insert the page (clean); write-only buffers (BPLRU, LB-CLOCK) leave it out.
    caches_reads: bool,
    /// BPLRU page padding: an evicted block's missing pages are read from flash and written
    /// along, so the block goes down whole (`pages_per_block`).
    pad: Option<u64>,
    /// A victim's clean pages (holding data) are written down along with its dirty ones
    /// (counted in `merged_clean_pages`), as a block-flushing buffer that writes its whole
    /// victim block does.
    writes_clean: bool,
    counters: Counters,
    log: FlushLog,
}

impl<P: EvictPolicy> Buffered<P> {
    /// `policy` over `pages`: read misses cached, no padding, a victim's clean pages dropped (the
    /// builder methods below change that).
    pub fn new(pages: PageStore, policy: P) -> Self {
        Buffered {
            pages,
            policy,
            caches_reads: true,
            pad: None,
            writes_clean: false,
            counters: Counters::default(),
            log: FlushLog::default(),
        }
    }
    /// Read misses are served from flash without entering the buffer.
    pub fn write_only(mut self) -> Self {
        self.caches_reads = false;
        self
    }
    /// Write a victim's clean pages down with its dirty ones.
    pub fn writing_clean(mut self) -> Self {
        self.writes_clean = true;
        self
    }
    /// Pad evicted blocks of `pages_per_block` pages with their missing pages from flash.
    pub fn padding(mut self, pages_per_block: u64) -> Self {
        self.pad = Some(pages_per_block);
        self
    }

    fn make_room(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        if !self.pages.is_full() {
            return Ok(t);
        }
        self.evict(t, ftl)
    }

    /// Write the policy's victims down (and pad their block) at `t`: an eviction. Returns when
    /// the writes complete.
    fn evict(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        let victims = self.policy.victims(&self.pages);
        assert!(!victims.is_empty(), "a full buffer's policy named no victim");
        let before = self.pages.written;
        let mut done = t;
        let gone: Vec<u64> = victims.iter().map(|&s| self.pages.lpn[s as usize]).collect();
        let mut clean_written = 0;
        for s in victims {
            let lpn = self.pages.lpn[s as usize];
            self.policy.on_remove(s, lpn);
            if self.writes_clean && !self.pages.dirty[s as usize] && self.pages.data[s as usize] {
                done = done.max(ftl.write(Lpn(lpn), self.pages.tag[s as usize], t)?);
                clean_written += 1;
            }
            done = done.max(self.pages.evict(s, t, ftl)?);
        }
        self.counters.merged_clean_pages += clean_written;
        let mut batch = self.pages.written - before + clean_written;
        if let Some(ppb) = self.pad.filter(|_| batch > 0) {
            let block = gone[0] / ppb;
            for lpn in block * ppb..((block + 1) * ppb).min(ftl.logical_pages()) {
                if self.pages.slot(lpn).is_some() || gone.contains(&lpn) {
                    continue;
                }
                let r = ftl.read(Lpn(lpn), t)?;
                if let Some(tag) = r.tag {
                    done = done.max(ftl.write(Lpn(lpn), tag, r.done)?);
                    self.counters.padded_pages += 1;
                    batch += 1;
                }
            }
        }
        self.log.record(batch);
        Ok(done)
    }

    fn insert(&mut self, lpn: u64, tag: Option<u32>, how: Entry) {
        let s = self.pages.insert(lpn, tag, how.dirty());
        self.policy.on_insert(s, lpn, how);
    }
}

impl<P: EvictPolicy> WriteBuffer for Buffered<P> {
    fn read(&mut self, Lpn(lpn): Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        self.counters.read_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.counters.read_hits += 1;
            self.policy.on_hit(s, lpn, false);
            return Ok(self.pages.outcome(s, t));
        }
        let r = ftl.read(Lpn(lpn), t)?;
        if !self.caches_reads {
            return Ok(r);
        }
        // The page goes to the host as it comes from flash; a write-back that makes room for
        // its copy runs on, without holding the read up.
        self.make_room(t, ftl)?;
        self.insert(lpn, r.tag, Entry::Read);
        Ok(r)
    }

    fn write(&mut self, Lpn(lpn): Lpn, tag: u32, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        self.counters.write_accesses += 1;
        if let Some(s) = self.pages.slot(lpn) {
            self.counters.write_hits += 1;
            self.pages.overwrite(s, tag);
            self.policy.on_hit(s, lpn, true);
            return Ok(self.pages.after_access(t));
        }
        let freed = self.make_room(t, ftl)?;
        self.insert(lpn, Some(tag), Entry::Write);
        Ok(self.pages.after_access(freed))
    }

    fn destage(&mut self, until: Nanos, ftl: &mut dyn Ftl) -> Result<(), Error> {
        let before = self.pages.written + self.counters.padded_pages + self.counters.merged_clean_pages;
        // Policies that name their next dirty pages are destaged page by page.
        let by_page = self.policy.dirty_ahead(&self.pages, 0).is_some();
        while let Some((at, lanes)) = destage_slot(&mut self.pages, until, ftl, by_page) {
            if let Some(dirty) = self.policy.dirty_ahead(&self.pages, (lanes as usize).max(PLANE_BATCH)) {
                // Cleaned in place: the pages stay cached.
                if dirty.is_empty() {
                    // The next victims are all clean: nothing a write would wait for until
                    // more pages have come in (looked at again after an eighth of the window).
                    let inserts = self.pages.inserts;
                    let d = self.pages.destage.as_mut().expect("destaging");
                    d.active = false;
                    d.quiet_until = inserts + (DESTAGE_WINDOW / 8) as u64;
                    break;
                }
                let mut written = 0;
                for s in dirty {
                    debug_assert!(self.pages.dirty[s as usize], "dirty_ahead named a clean slot");
                    // Each page when its own plane is idle, where the FTL can say which plane.
                    let at = match ftl.next_write_free_at(Lpn(self.pages.lpn[s as usize])) {
                        Some(free) => {
                            let d = self.pages.destage.as_ref().expect("destaging");
                            let start = free.0.max(d.clock);
                            if start >= until.0 || !self.pages.destage_due() {
                                break;
                            }
                            Nanos(start)
                        }
                        None if written < lanes => at,
                        None => break,
                    };
                    self.pages.clean(s, at, ftl)?;
                    self.policy.on_cleaned(s);
                    written += 1;
                }
                if written == 0 {
                    break;
                }
                continue;
            }
            let start = self.pages.written;
            while self.pages.written - start < lanes && !self.pages.is_empty() && self.pages.destage_due() {
                self.evict(at, ftl)?;
            }
        }
        let after = self.pages.written + self.counters.padded_pages + self.counters.merged_clean_pages;
        self.counters.destaged_pages += after - before;
        destaged_until(&mut self.pages, until);
        Ok(())
    }

    fn trim(&mut self, Lpn(lpn): Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        if let Some(s) = self.pages.slot(lpn) {
            self.policy.on_remove(s, lpn);
            self.pages.drop_slot(s);
        }
        ftl.trim(Lpn(lpn), t)
    }

    fn flush(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        let before = self.pages.written;
        let done = self.pages.flush_all(t, ftl)?;
        self.counters.flush_command_pages += self.pages.written - before;
        Ok(done)
    }

    fn counters(&self) -> Option<Counters> {
        let c = self.counters;
        Some(Counters { flushed_pages: self.pages.written + c.padded_pages + c.merged_clean_pages, ..c })
    }

    fn flush_batches(&self) -> Vec<(u64, u64)> {
        self.log.histogram()
    }

    fn exposed(&self) -> u64 {
        self.pages.exposed()
    }

    fn crash(&mut self) -> CrashImage {
        let mut image = CrashImage::default();
        self.pages.crash_into(&mut image);
        image
    }

    fn validate(&self) -> Result<(), String> {
        self.pages.validate()?;
        self.policy.validate(&self.pages)
    }
}

/// When the next round of background destaging of `pages` may start before `until`, and how
/// many pages it writes: the store is above its high watermark (or still on its way down to the
/// low one), and the plane the writes go to is idle before `until`. Under dynamic striping the
/// FTL sends a write to the plane idle first, and a page-mapped FTL with block segments can
/// name the plane of a write ahead ([`Ftl::write_planes`]): a round that goes page by
/// page (`by_page`) may then start as soon as any array is idle, each page when its own plane
/// is. Otherwise the FTL's choice of plane is not known ahead, so a round waits for every
/// array to be idle and writes one page per array; so does an early eviction (`by_page` false:
/// a victim may be a whole block). `None`: no destage now.
pub fn destage_slot(pages: &mut PageStore, until: Nanos, ftl: &dyn Ftl, by_page: bool) -> Option<(Nanos, u64)> {
    let dirty = pages.dirty_pages;
    let d = pages.destage.as_mut()?;
    if pages.slot_of.is_empty() || pages.inserts < d.quiet_until || !d.due(dirty) {
        return None;
    }
    let tl = ftl.nand().timeline()?;
    // The FTL places by the clock (dynamic striping), or can name each write's plane for a
    // destage that goes page by page: a page may start as soon as its plane is idle, no
    // earlier than the first idle array.
    let per_plane = match ftl.write_planes() {
        WritePlanes::IdleFirst => true,
        WritePlanes::Named => by_page,
        WritePlanes::Unknown => false,
    };
    let (idle, lanes) = if per_plane { (tl.first_idle_at(), 1) } else { (tl.idle_at(), tl.arrays() as u64) };
    // Issue times never go backwards: not before the last request either.
    let at = idle.max(d.clock);
    (at < until.0).then_some((Nanos(at), lanes))
}

/// A request issued at `until` is about to be served: later destages start no earlier.
pub fn destaged_until(pages: &mut PageStore, until: Nanos) {
    if let Some(d) = &mut pages.destage {
        d.clock = d.clock.max(until.0);
    }
}

/// No slot or group (`u32::MAX`): an unlinked ring or list link, an empty hand or list head. The
/// same value as [`crate::seglist::NIL`], which the policies' lists return.
pub const NIL: u32 = u32::MAX;

/// Page slots of one memory.
pub struct PageStore {
    /// Per slot: the logical page held, `u64::MAX` when the slot is free.
    pub lpn: Vec<u64>,
    /// Per slot: the held page's version tag (see `data`).
    pub tag: Vec<u32>,
    /// Per slot: the held page is newer than flash and goes down before it leaves.
    pub dirty: Vec<bool>,
    /// The slot holds a version of its page that exists: written by the host, or read from a
    /// page the FTL maps (not a read of a never-written page). Independent of verify mode,
    /// where `tag` is the version (0 when tags are not kept).
    pub data: Vec<bool>,
    slot_of: FastMap<u64, u32>,
    free: Vec<u32>,
    /// Pages held dirty now.
    dirty_pages: u64,
    /// Dirty pages written down so far.
    pub written: u64,
    /// DRAM (contents lost on power failure) or NVRAM.
    pub volatile: bool,
    /// Pages put into slots so far.
    pub inserts: u64,
    /// Time to move one page in or out (timing mode; 0 in accounting mode).
    pub access_ns: u64,
    /// Background destaging of this memory (timing mode, the memory that writes to flash).
    pub destage: Option<Destage>,
}

/// Dirty pages asked of [`EvictPolicy::dirty_ahead`] at a time when the FTL can say each
/// write's plane (each then starts when its plane is idle).
pub const PLANE_BATCH: usize = 64;

/// How far ahead of eviction [`EvictPolicy::dirty_ahead`] looks for dirty pages: when the next
/// this many victims are clean, a burst of writes finds room without waiting for a program.
pub const DESTAGE_WINDOW: usize = 4096;

/// Background destaging watermarks in dirty pages, and whether a destage is under way.
#[derive(Clone, Copy, Debug)]
pub struct Destage {
    /// Start when more pages than this are dirty.
    pub high: u64,
    /// Stop when this many or fewer are.
    pub low: u64,
    /// Started above `high` and not yet down to `low`.
    pub active: bool,
    /// The issue time of the latest request: a destage starts no earlier (issue times do not
    /// go backwards).
    pub clock: u64,
    /// No destage until the store has taken this many inserts (its next victims were clean).
    pub quiet_until: u64,
}

impl Destage {
    /// Whether to destage now with `dirty` pages dirty (and remember it).
    pub fn due(&mut self, dirty: u64) -> bool {
        self.active = if self.active { dirty > self.low } else { dirty > self.high };
        self.active
    }
}

impl PageStore {
    /// Bytes of a store of `slots` slots: per slot its page, tag, flags and free-list entry,
    /// plus the page → slot map made with room for every slot.
    pub fn memory(slots: u64) -> u64 {
        use crate::memory::{map_bytes, vec_bytes};
        vec_bytes::<u64>(slots) // lpn
            + vec_bytes::<u32>(slots) // tag
            + 2 * vec_bytes::<bool>(slots) // dirty, data
            + vec_bytes::<u32>(slots) // free
            + map_bytes::<u64, u32>(slots, false)
    }

    /// An empty store of `slots` slots (at least 1), in volatile memory (DRAM).
    pub fn new(slots: u32) -> Self {
        assert!(slots > 0);
        let n = slots as usize;
        PageStore {
            lpn: vec![u64::MAX; n],
            tag: vec![0; n],
            dirty: vec![false; n],
            data: vec![false; n],
            slot_of: fastmap::with_capacity(n),
            free: (0..slots).rev().collect(),
            dirty_pages: 0,
            written: 0,
            volatile: true,
            inserts: 0,
            access_ns: 0,
            destage: None,
        }
    }

    /// The same with a page access time of `access_ns` and, when given, destage watermarks as
    /// fractions (high, low) of the slots.
    pub fn timed(mut self, access_ns: u64, watermarks: Option<(f64, f64)>) -> Self {
        self.access_ns = access_ns;
        let cap = self.capacity() as f64;
        self.destage = watermarks.map(|(high, low)| Destage {
            high: (high * cap).floor() as u64,
            low: (low * cap).floor() as u64,
            active: false,
            clock: 0,
            quiet_until: 0,
        });
        self
    }

    /// Pages held dirty now.
    pub fn dirty_pages(&self) -> u64 {
        self.dirty_pages
    }

    /// Background destaging is under way (above the high watermark, not yet at the low one).
    pub fn destage_due(&mut self) -> bool {
        let dirty = self.dirty_pages;
        self.destage.as_mut().is_some_and(|d| d.due(dirty))
    }

    /// The same, in non-volatile memory.
    pub fn non_volatile(mut self) -> Self {
        self.volatile = false;
        self
    }

    /// Slots in the store.
    pub fn capacity(&self) -> u32 {
        self.lpn.len() as u32
    }
    /// Pages held.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }
    /// No page is held.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }
    /// Is `slot` holding a page?
    pub fn is_held(&self, s: u32) -> bool {
        self.lpn[s as usize] != u64::MAX
    }
    /// Every slot holds a page: an insert needs an eviction first.
    pub fn is_full(&self) -> bool {
        self.free.is_empty()
    }
    /// The slot holding `lpn`, if it is buffered.
    #[inline]
    pub fn slot(&self, lpn: u64) -> Option<u32> {
        self.slot_of.get(&lpn).copied()
    }
    /// Dirty pages that a power failure would lose (0 in NVRAM).
    pub fn exposed(&self) -> u64 {
        if self.volatile {
            self.dirty_pages
        } else {
            0
        }
    }

    /// A read served from slot `s`: done after one page access.
    pub fn outcome(&self, s: u32, t: Nanos) -> ReadOutcome {
        ReadOutcome { done: self.after_access(t), tag: self.data[s as usize].then_some(self.tag[s as usize]) }
    }

    /// `t` plus one page access of this memory.
    #[inline]
    pub fn after_access(&self, t: Nanos) -> Nanos {
        Nanos(t.0.saturating_add(self.access_ns))
    }

    /// Put `lpn` into a free slot: `tag` is its version, `None` for a never-written page.
    pub fn insert(&mut self, lpn: u64, tag: Option<u32>, dirty: bool) -> u32 {
        debug_assert!(tag.is_some() || !dirty, "a dirty page has data");
        let s = self.free.pop().expect("insert needs a free slot: evict first");
        self.inserts += 1;
        self.lpn[s as usize] = lpn;
        self.tag[s as usize] = tag.unwrap_or(0);
        self.data[s as usize] = tag.is_some();
        self.dirty[s as usize] = dirty;
        self.dirty_pages += dirty as u64;
        let old = self.slot_of.insert(lpn, s);
        assert!(old.is_none(), "lpn {lpn} buffered twice");
        s
    }

    /// A host write to the page in slot `s`.
    pub fn overwrite(&mut self, s: u32, tag: u32) {
        self.tag[s as usize] = tag;
        self.data[s as usize] = true;
        if !self.dirty[s as usize] {
            self.dirty[s as usize] = true;
            self.dirty_pages += 1;
        }
    }

    /// Empty slot `s`, writing it down first if dirty; returns when the write completes.
    pub fn evict(&mut self, s: u32, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        let done = self.clean(s, t, ftl)?;
        self.drop_slot(s);
        Ok(done)
    }

    /// Forget slot `s` without writing it (trimmed, migrated, or lost); returns its (lpn, tag).
    pub fn drop_slot(&mut self, s: u32) -> (u64, u32) {
        let lpn = std::mem::replace(&mut self.lpn[s as usize], u64::MAX);
        self.slot_of.remove(&lpn);
        if std::mem::replace(&mut self.dirty[s as usize], false) {
            self.dirty_pages -= 1;
        }
        self.free.push(s);
        (lpn, self.tag[s as usize])
    }

    /// Write slot `s` down if dirty; it stays cached, clean.
    pub fn clean(&mut self, s: u32, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        if !self.dirty[s as usize] {
            return Ok(t);
        }
        self.dirty[s as usize] = false;
        self.dirty_pages -= 1;
        self.written += 1;
        ftl.write(Lpn(self.lpn[s as usize]), self.tag[s as usize], t)
    }

    /// Every dirty slot, in page order (sequential for the FTL, deterministic), written down.
    pub fn flush_all(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        let mut dirty: Vec<u32> = (0..self.capacity()).filter(|&s| self.dirty[s as usize]).collect();
        dirty.sort_unstable_by_key(|&s| self.lpn[s as usize]);
        let mut done = t;
        for s in dirty {
            done = done.max(self.clean(s, t, ftl)?);
        }
        Ok(done)
    }

    /// Power fails: DRAM's dirty pages are lost, NVRAM's pages survive. Adds to `image`, in
    /// page order.
    pub fn crash_into(&self, image: &mut CrashImage) {
        let mut held: Vec<u32> = self.slot_of.values().copied().collect();
        held.sort_unstable_by_key(|&s| self.lpn[s as usize]);
        for s in held {
            let page = (Lpn(self.lpn[s as usize]), self.tag[s as usize]);
            if !self.volatile {
                image.kept.push(page);
            } else if self.dirty[s as usize] {
                image.lost.push(page);
            }
        }
    }

    /// Cross-check the slots, the page → slot map, the free list and the dirty count (check mode).
    pub fn validate(&self) -> Result<(), String> {
        let held = self.lpn.iter().filter(|&&l| l != u64::MAX).count();
        if held != self.slot_of.len() || held + self.free.len() != self.lpn.len() {
            return Err(format!(
                "buffer: {held} held, {} mapped, {} free of {}",
                self.slot_of.len(),
                self.free.len(),
                self.lpn.len()
            ));
        }
        for (&lpn, &s) in &self.slot_of {
            if self.lpn[s as usize] != lpn {
                return Err(format!("buffer: lpn {lpn} maps to slot {s} holding {}", self.lpn[s as usize]));
            }
        }
        let dirty = self.dirty.iter().filter(|&&d| d).count() as u64;
        if dirty != self.dirty_pages {
            return Err(format!("buffer: {dirty} dirty slots, {} counted", self.dirty_pages));
        }
        Ok(())
    }
}
