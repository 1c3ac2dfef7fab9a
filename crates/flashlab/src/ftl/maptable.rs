//! Where a page-level mapping table lives, and what a lookup in it costs.
//!
//! The page-mapped FTL (`ftl/page/`) always holds the table's content (one `u32` per logical
//! page); a [`MapTable`] says what keeping it costs: [`Resident`] is the whole table in RAM (no
//! I/O), [`CachedTable`] a table in flash translation pages with part of it cached in RAM
//! ([`MapCache`]), whose lookups pay translation-page reads and write-backs on the flash. A
//! cached scheme (DFTL, WADPM) supplies only a [`Translate`]: which cache entry a logical page
//! is, which plane holds a translation page, and whether the table fixes a page's pool. One
//! file and one registry line per scheme; the FTL is generic over the table, so the resident
//! table costs nothing on the hot path.

use super::mapcache::{MapCache, MapIo};
use super::MappingReport;
use crate::nand::Timeline;

/// Bytes per mapping entry in a translation page and in RAM.
pub const ENTRY_BYTES: u64 = 4;

/// The cost side of a page-level mapping table (see the module docs).
pub trait MapTable: Send + Sync + Clone {
    /// A host lookup of `lpn` issued at `t_ns` (`write`: its entry changes); pays any
    /// translation I/O on `tl` and returns when the data operation may start.
    fn lookup(&mut self, lpn: u64, write: bool, t_ns: u64, tl: Option<&mut Timeline>) -> u64;
    /// The pool every write of `lpn` must go to, when the table fixes it (WADPM: its plane).
    fn placement(&self, lpn: u64) -> Option<u32>;
    /// Lookups change nothing and cost nothing (no cache to load or write back), so a
    /// sequential fill may be built without them (`Ftl::fill_sequential`).
    fn lookups_free(&self) -> bool;
    /// GC moved `lpn`'s data (its entry changes without a host lookup).
    fn moved(&mut self, lpn: u64);
    /// GC finished a victim at `t_ns`: pay the translation updates deferred by [`Self::moved`].
    fn victim_done(&mut self, t_ns: u64, tl: Option<&mut Timeline>);
    /// RAM the table takes, given `logical_pages`.
    fn ram_bytes(&self, logical_pages: u64) -> u64;
    /// Cache counters, for cached tables.
    fn report(&self, logical_pages: u64) -> Option<MappingReport>;
    /// Internal consistency; `plane_of(lpn)` is the plane holding the page's data, if mapped.
    fn validate(&self, logical_pages: u64, plane_of: &dyn Fn(u64) -> Option<u32>) -> Result<(), String>;
}

/// The whole table in RAM: lookups are free.
#[derive(Clone)]
pub struct Resident;

impl MapTable for Resident {
    #[inline(always)]
    fn lookup(&mut self, _lpn: u64, _write: bool, t_ns: u64, _tl: Option<&mut Timeline>) -> u64 {
        t_ns
    }
    #[inline(always)]
    fn placement(&self, _lpn: u64) -> Option<u32> {
        None
    }
    fn lookups_free(&self) -> bool {
        true
    }
    #[inline(always)]
    fn moved(&mut self, _lpn: u64) {}
    #[inline(always)]
    fn victim_done(&mut self, _t_ns: u64, _tl: Option<&mut Timeline>) {}
    fn ram_bytes(&self, logical_pages: u64) -> u64 {
        logical_pages * ENTRY_BYTES
    }
    fn report(&self, _logical_pages: u64) -> Option<MappingReport> {
        None
    }
    fn validate(&self, _logical_pages: u64, _plane_of: &dyn Fn(u64) -> Option<u32>) -> Result<(), String> {
        Ok(())
    }
}

/// What a cached scheme decides: entry ids, translation-page placement, data placement.
pub trait Translate: Send + Sync + Clone {
    /// The cache entry of `lpn` (entries of one translation page are consecutive ids).
    fn entry(&self, lpn: u64) -> u32;
    /// The plane holding translation page `tpage`.
    fn plane_of_tpage(&self, tpage: u32) -> u32;
    /// The pool every write of `lpn` must go to, if the scheme fixes it.
    fn placement(&self, lpn: u64) -> Option<u32>;
}

/// A table in flash translation pages, cached in RAM by a [`MapCache`].
#[derive(Clone)]
pub struct CachedTable<X> {
    /// The scheme's entry ids and placement.
    pub translate: X,
    /// The entries held in RAM.
    pub cache: MapCache,
    /// Translation pages GC must rewrite for moved pages whose entries are not cached.
    gc_tpages: Vec<u32>,
}

impl<X: Translate> CachedTable<X> {
    /// A table translated by `translate`, cached by `cache`, with no GC rewrites pending.
    pub fn new(translate: X, cache: MapCache) -> Self {
        CachedTable { translate, cache, gc_tpages: Vec::new() }
    }

    /// Pay one lookup's translation I/O: the miss read gates the data operation; write-backs
    /// (after their merge read, when partly cached) occupy their planes without gating it, and
    /// cost nothing under `write_back = "free"`.
    fn pay(&self, io: &MapIo, t_ns: u64, tl: &mut Timeline) -> u64 {
        let mut done = t_ns;
        if let Some(tp) = io.read {
            done = tl.read(self.translate.plane_of_tpage(tp), t_ns);
        }
        if !self.cache.write_back_costs() {
            return done;
        }
        for &tp in &io.writes {
            let plane = self.translate.plane_of_tpage(tp);
            let start = if io.merge_reads.contains(&tp) { tl.read(plane, t_ns) } else { t_ns };
            tl.program(plane, start);
        }
        done
    }
}

impl<X: Translate> MapTable for CachedTable<X> {
    #[inline]
    fn lookup(&mut self, lpn: u64, write: bool, t_ns: u64, tl: Option<&mut Timeline>) -> u64 {
        let io = self.cache.access(self.translate.entry(lpn), write);
        match tl {
            Some(tl) => self.pay(&io, t_ns, tl),
            None => t_ns,
        }
    }

    #[inline]
    fn placement(&self, lpn: u64) -> Option<u32> {
        self.translate.placement(lpn)
    }

    fn lookups_free(&self) -> bool {
        false
    }

    #[inline]
    fn moved(&mut self, lpn: u64) {
        if let Some(tp) = self.cache.remap(self.translate.entry(lpn)) {
            self.gc_tpages.push(tp);
        }
    }

    /// Each translation page of moved, uncached entries is read and rewritten once per victim
    /// (the rewrite free under `write_back = "free"`).
    fn victim_done(&mut self, t_ns: u64, tl: Option<&mut Timeline>) {
        let mut pages = std::mem::take(&mut self.gc_tpages);
        pages.sort_unstable();
        pages.dedup();
        self.cache.count_io(pages.len() as u64, pages.len() as u64);
        if let Some(tl) = tl {
            for &tp in &pages {
                let plane = self.translate.plane_of_tpage(tp);
                let t = tl.read(plane, t_ns);
                if self.cache.write_back_costs() {
                    tl.program(plane, t);
                }
            }
        }
        pages.clear();
        self.gc_tpages = pages;
    }

    fn ram_bytes(&self, _logical_pages: u64) -> u64 {
        self.cache.capacity() * ENTRY_BYTES
    }

    fn report(&self, logical_pages: u64) -> Option<MappingReport> {
        let k = self.cache.counters;
        Some(MappingReport {
            hits: k.hits,
            misses: k.misses,
            hit_ratio: self.cache.hit_ratio(),
            map_reads: k.map_reads,
            map_writes: k.map_writes,
            map_merge_reads: k.map_merge_reads,
            full_table_bytes: logical_pages * ENTRY_BYTES,
            cached_table_bytes: self.cache.len() * ENTRY_BYTES,
            window_history: self.cache.size_history.clone(),
        })
    }

    fn validate(&self, logical_pages: u64, plane_of: &dyn Fn(u64) -> Option<u32>) -> Result<(), String> {
        self.cache.validate()?;
        for lpn in 0..logical_pages {
            if let (Some(want), Some(plane)) = (self.translate.placement(lpn), plane_of(lpn)) {
                if want != plane {
                    return Err(format!("lpn {lpn} stored in plane {plane}, its table places it in pool {want}"));
                }
            }
        }
        Ok(())
    }
}
