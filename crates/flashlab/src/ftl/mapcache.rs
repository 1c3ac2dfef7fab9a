//! Demand-loaded mapping cache: the part of a page-level mapping table held in controller RAM
//! when the whole table lives in flash translation pages (WADPM; DFTL uses the same mechanism).
//!
//! Owns: which mapping entries are cached (LRU over entry ids, intrusive lists on flat arrays),
//! which are dirty, the window size (static, or adjusted by hit ratio as WADPM's Fig. 8), and
//! the counters. It decides nothing about data placement; it tells the FTL which translation
//! pages to read or write for each lookup, and the FTL pays for them on the flash.
//!
//! Entry ids are chosen by the caller (WADPM: `plane * lpis_per_plane + LPI`), so that the
//! entries of one translation page are `entries_per_tpage` consecutive ids.
//! Loading on a miss (each costs one translation-page read):
//! - `per-miss-entry`: only the missing entry;
//! - `read-ahead`: the missing entry and the next `k - 1` of the same translation page;
//! - `page-chunk` (default, WADPM's choice): every entry of the translation page.
//!
//! Evicting dirty entries costs one translation-page write per distinct page, batched per
//! lookup. A window smaller than one translation page makes `page-chunk` thrash (each load
//! evicts the rest); the paper's smallest window, 1% of the table, is dozens of pages. Window sizing (paper Fig. 8, θHR = 0.90, θMT = 5): at the end of each interval of
//! `interval` lookups, hit ratio < θHR grows the window by `step` of the full table; otherwise a
//! maintenance count rises, and once it reaches θMT the window shrinks by `step` (evicting the
//! excess, dirty entries written back) and the count resets. The paper does not give the step
//! or the interval; both are parameters (defaults: 1% of the table, 4,096 lookups).

use serde::Deserialize;

use crate::error::Error;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Loading {
    PerMissEntry,
    ReadAhead,
    PageChunk,
}

/// `[ftl.mapping_params]` of cached mapping schemes.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CacheParams {
    #[serde(default = "d_loading")]
    pub loading: Loading,
    /// Entries loaded by `read-ahead` (the missing one included).
    #[serde(default = "d_read_ahead")]
    pub read_ahead: u32,
    /// Window as a fraction of the full table (static), or the starting size (dynamic).
    #[serde(default = "d_window")]
    pub window: f64,
    #[serde(default)]
    pub dynamic: bool,
    /// Dynamic: hit-ratio threshold θHR.
    #[serde(default = "d_hr")]
    pub hit_ratio_threshold: f64,
    /// Dynamic: good intervals before shrinking, θMT.
    #[serde(default = "d_mt")]
    pub maintenance_threshold: u32,
    /// Dynamic: grow / shrink step as a fraction of the full table.
    #[serde(default = "d_step")]
    pub step: f64,
    /// Dynamic: lookups per adjustment interval.
    #[serde(default = "d_interval")]
    pub interval: u64,
    /// Dynamic: window bounds as fractions of the full table.
    #[serde(default = "d_min")]
    pub min_window: f64,
    #[serde(default = "d_max")]
    pub max_window: f64,
}

fn d_loading() -> Loading {
    Loading::PageChunk
}
fn d_read_ahead() -> u32 {
    8
}
fn d_window() -> f64 {
    0.20
}
fn d_hr() -> f64 {
    0.90
}
fn d_mt() -> u32 {
    5
}
fn d_step() -> f64 {
    0.01
}
fn d_interval() -> u64 {
    4096
}
fn d_min() -> f64 {
    0.01
}
fn d_max() -> f64 {
    1.0
}

impl CacheParams {
    pub fn parse(table: &toml::Table) -> Result<CacheParams, Error> {
        let p: CacheParams = serde_path_to_error::deserialize(toml::Value::Table(table.clone())).map_err(|e| {
            Error::config(format!("ftl.mapping_params.{}", e.path()), e.into_inner().message().to_string())
        })?;
        let frac = |k: &str, v: f64| {
            if v > 0.0 && v <= 1.0 {
                Ok(())
            } else {
                Err(Error::config(format!("ftl.mapping_params.{k}"), format!("{v} is not a fraction in (0, 1]")))
            }
        };
        frac("window", p.window)?;
        frac("hit_ratio_threshold", p.hit_ratio_threshold)?;
        frac("step", p.step)?;
        frac("min_window", p.min_window)?;
        frac("max_window", p.max_window)?;
        if p.min_window > p.max_window {
            return Err(Error::config("ftl.mapping_params.min_window", "exceeds max_window"));
        }
        if p.read_ahead == 0 || p.interval == 0 {
            return Err(Error::config("ftl.mapping_params", "read_ahead and interval must be at least 1"));
        }
        Ok(p)
    }
}

/// Translation-page I/O a lookup needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapIo {
    /// Translation page to read before the lookup can complete (on a miss).
    pub read: Option<u32>,
    /// Translation pages written back (dirty evictions).
    pub writes: Vec<u32>,
}

/// Counters of the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheCounters {
    pub hits: u64,
    pub misses: u64,
    pub map_reads: u64,
    pub map_writes: u64,
}

pub struct MapCache {
    params: CacheParams,
    entries: u64,
    per_tpage: u32,
    capacity: u64,
    len: u64,
    head: u32, // LRU end
    tail: u32, // MRU end
    prev: Vec<u32>,
    next: Vec<u32>,
    cached: Vec<u64>,
    dirty: Vec<u64>,
    pub counters: CacheCounters,
    interval_lookups: u64,
    interval_hits: u64,
    good_intervals: u32,
    /// Window size (entries) at the end of each adjustment interval.
    pub size_history: Vec<u64>,
}

#[inline]
fn bit(v: &[u64], i: u32) -> bool {
    v[i as usize / 64] >> (i % 64) & 1 == 1
}
#[inline]
fn set(v: &mut [u64], i: u32, on: bool) {
    let m = 1u64 << (i % 64);
    if on {
        v[i as usize / 64] |= m;
    } else {
        v[i as usize / 64] &= !m;
    }
}

impl MapCache {
    /// A cache over `entries` mapping entries, `per_tpage` of them per translation page.
    pub fn new(params: CacheParams, entries: u64, per_tpage: u32) -> Self {
        assert!(entries > 0 && entries < NIL as u64 && per_tpage > 0);
        let n = entries as usize;
        let capacity = ((params.window * entries as f64).ceil() as u64).max(1);
        MapCache {
            params,
            entries,
            per_tpage,
            capacity,
            len: 0,
            head: NIL,
            tail: NIL,
            prev: vec![NIL; n],
            next: vec![NIL; n],
            cached: vec![0; n.div_ceil(64)],
            dirty: vec![0; n.div_ceil(64)],
            counters: CacheCounters::default(),
            interval_lookups: 0,
            interval_hits: 0,
            good_intervals: 0,
            size_history: Vec::new(),
        }
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn is_cached(&self, e: u32) -> bool {
        bit(&self.cached, e)
    }
    pub fn tpage_of(&self, e: u32) -> u32 {
        e / self.per_tpage
    }
    pub fn hit_ratio(&self) -> Option<f64> {
        let n = self.counters.hits + self.counters.misses;
        (n > 0).then(|| self.counters.hits as f64 / n as f64)
    }

    fn unlink(&mut self, e: u32) {
        let (p, n) = (self.prev[e as usize], self.next[e as usize]);
        if p == NIL {
            self.head = n
        } else {
            self.next[p as usize] = n
        }
        if n == NIL {
            self.tail = p
        } else {
            self.prev[n as usize] = p
        }
    }

    fn push_mru(&mut self, e: u32) {
        self.prev[e as usize] = self.tail;
        self.next[e as usize] = NIL;
        if self.tail == NIL {
            self.head = e
        } else {
            self.next[self.tail as usize] = e
        }
        self.tail = e;
    }

    /// Look up entry `e` (a host read or write of its page); `write` marks it dirty.
    pub fn access(&mut self, e: u32, write: bool) -> MapIo {
        debug_assert!((e as u64) < self.entries);
        let mut io = MapIo::default();
        self.interval_lookups += 1;
        if self.is_cached(e) {
            self.counters.hits += 1;
            self.interval_hits += 1;
            self.unlink(e);
            self.push_mru(e);
        } else {
            self.counters.misses += 1;
            self.counters.map_reads += 1;
            io.read = Some(self.tpage_of(e));
            self.load(e);
        }
        if write {
            set(&mut self.dirty, e, true);
        }
        self.evict_to(self.capacity, &mut io.writes);
        if self.params.dynamic && self.interval_lookups >= self.params.interval {
            self.adjust(&mut io.writes);
        }
        self.counters.map_writes += io.writes.len() as u64;
        io
    }

    /// An entry changed without a host lookup (GC moved its page): dirty if cached; otherwise
    /// its translation page must be rewritten (returned, for the caller to batch).
    pub fn remap(&mut self, e: u32) -> Option<u32> {
        if self.is_cached(e) {
            set(&mut self.dirty, e, true);
            None
        } else {
            Some(self.tpage_of(e))
        }
    }

    /// Count translation-page I/O the caller did outside `access` (GC's batched updates).
    pub fn count_io(&mut self, reads: u64, writes: u64) {
        self.counters.map_reads += reads;
        self.counters.map_writes += writes;
    }

    fn load(&mut self, e: u32) {
        let first = self.tpage_of(e) * self.per_tpage;
        let end = ((first as u64 + self.per_tpage as u64).min(self.entries)) as u32;
        let (lo, hi) = match self.params.loading {
            Loading::PerMissEntry => (e, e + 1),
            Loading::ReadAhead => (e, (e + self.params.read_ahead).min(end)),
            Loading::PageChunk => (first, end),
        };
        // Neighbours first, so the missing entry ends most recently used.
        for x in lo..hi {
            if x == e || self.is_cached(x) {
                continue;
            }
            set(&mut self.cached, x, true);
            self.push_mru(x);
            self.len += 1;
        }
        set(&mut self.cached, e, true);
        self.push_mru(e);
        self.len += 1;
    }

    /// Evict LRU entries until at most `cap` remain; dirty ones add their translation page to
    /// `writes` (each page once per batch).
    fn evict_to(&mut self, cap: u64, writes: &mut Vec<u32>) {
        while self.len > cap {
            let e = self.head;
            debug_assert_ne!(e, NIL);
            self.unlink(e);
            set(&mut self.cached, e, false);
            self.len -= 1;
            if bit(&self.dirty, e) {
                set(&mut self.dirty, e, false);
                let t = self.tpage_of(e);
                if !writes.contains(&t) {
                    writes.push(t);
                }
            }
        }
    }

    /// WADPM Fig. 8, at the end of an interval.
    fn adjust(&mut self, writes: &mut Vec<u32>) {
        let p = &self.params;
        let hr = self.interval_hits as f64 / self.interval_lookups as f64;
        let step = ((p.step * self.entries as f64).ceil() as u64).max(1);
        let (min, max) =
            ((p.min_window * self.entries as f64).ceil() as u64, (p.max_window * self.entries as f64).ceil() as u64);
        if hr < p.hit_ratio_threshold {
            self.capacity = (self.capacity + step).min(max.max(1));
        } else if self.good_intervals < p.maintenance_threshold {
            self.good_intervals += 1;
        } else {
            self.capacity = self.capacity.saturating_sub(step).max(min.max(1));
            self.evict_to(self.capacity, writes);
            self.good_intervals = 0;
        }
        self.interval_lookups = 0;
        self.interval_hits = 0;
        self.size_history.push(self.capacity);
    }

    /// Cross-check the LRU list against the cached bits and the count.
    pub fn validate(&self) -> Result<(), String> {
        let (mut e, mut n) = (self.head, 0u64);
        while e != NIL {
            if !self.is_cached(e) {
                return Err(format!("map cache: entry {e} in the LRU list but not marked cached"));
            }
            n += 1;
            e = self.next[e as usize];
        }
        let marked: u64 = self.cached.iter().map(|w| w.count_ones() as u64).sum();
        if n != self.len || marked != self.len || self.len > self.capacity {
            return Err(format!("map cache: list {n}, marked {marked}, len {}, capacity {}", self.len, self.capacity));
        }
        if (0..self.entries as u32).any(|x| bit(&self.dirty, x) && !self.is_cached(x)) {
            return Err("map cache: a dirty entry is not cached".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(text: &str) -> CacheParams {
        CacheParams::parse(&text.parse::<toml::Table>().unwrap()).unwrap()
    }

    #[test]
    fn loading_methods_load_what_they_say_at_one_read_each() {
        for (text, loaded) in [
            ("loading = \"per-miss-entry\"", 1),
            ("loading = \"read-ahead\"\nread_ahead = 4", 4),
            ("loading = \"page-chunk\"", 16),
        ] {
            let mut c = MapCache::new(params(&format!("{text}\nwindow = 1.0")), 64, 16);
            let io = c.access(17, false);
            assert_eq!(io.read, Some(1), "{text}: entry 17 is in translation page 1");
            assert_eq!(c.len(), loaded, "{text}");
            assert!(c.is_cached(17));
            assert_eq!(c.counters.map_reads, 1);
            c.validate().unwrap();
        }
        // Read-ahead stops at the translation page's end.
        let mut c = MapCache::new(params("loading = \"read-ahead\"\nread_ahead = 8\nwindow = 1.0"), 64, 16);
        c.access(30, false);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn lru_eviction_writes_back_dirty_pages_once_per_batch() {
        // Window 4 entries of 64; per-miss loading.
        let mut c = MapCache::new(params("loading = \"per-miss-entry\"\nwindow = 0.0625"), 64, 16);
        for e in [0, 1, 2, 3] {
            c.access(e, true);
        }
        assert!(c.access(0, false).read.is_none(), "hit");
        let io = c.access(40, false); // evicts LRU = 1 (dirty, page 0)
        assert_eq!((io.read, io.writes.clone()), (Some(2), vec![0]));
        assert!(!c.is_cached(1) && c.is_cached(0));
        assert_eq!((c.counters.hits, c.counters.misses, c.counters.map_writes), (1, 5, 1));
        assert_eq!(c.remap(2), None, "cached: becomes dirty");
        assert_eq!(c.remap(50), Some(3), "not cached: its translation page must be rewritten");
        c.validate().unwrap();
    }

    #[test]
    fn the_window_grows_on_misses_and_shrinks_after_theta_mt_good_intervals() {
        let mut c = MapCache::new(
            params("dynamic = true\nwindow = 0.1\nstep = 0.1\ninterval = 10\nmaintenance_threshold = 2\nloading = \"per-miss-entry\""),
            100,
            10,
        );
        assert_eq!(c.capacity(), 10);
        for e in 0..10 {
            c.access(e * 7 % 100, false); // 10 misses: hit ratio 0 < 0.9
        }
        assert_eq!(c.capacity(), 20, "grows by one step");
        // Three intervals of hits: two raise the count, the third shrinks by a step.
        let hot = c.head;
        for _ in 0..30 {
            c.access(hot, false);
        }
        assert_eq!(c.size_history, vec![20, 20, 20, 10]);
        assert!(c.len() <= 10);
        c.validate().unwrap();
    }

    #[test]
    fn bad_parameters_name_their_key() {
        for (text, key) in [
            ("window = 0.0", "window"),
            ("loading = \"all\"", "loading"),
            ("min_window = 0.5\nmax_window = 0.2", "min_window"),
            ("windw = 0.1", "windw"),
        ] {
            let err = CacheParams::parse(&text.parse::<toml::Table>().unwrap()).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
    }
}
