//! Demand-loaded mapping cache: the part of a page-level mapping table held in controller RAM
//! when the whole table lives in flash translation pages (WADPM; DFTL uses the same mechanism).
//!
//! Owns: which mapping entries are cached and dirty, their recency (an LRU list on flat arrays
//! over translation pages by default — a page's cached entries share recency and leave together,
//! as WADPM loads and keeps whole chunks — or over single entries, DFTL's cached mapping table:
//! `recency = "page" | "entry"`), the window size (static, or adjusted by hit ratio as WADPM's
//! Fig. 8), and the counters. It decides nothing about data placement; it tells the FTL which
//! translation pages to read or write for each lookup, and the FTL pays for them on the flash.
//!
//! Entry ids are chosen by the caller (WADPM: `plane * lpis_per_plane + LPI`), so that the
//! entries of one translation page are `entries_per_tpage` consecutive ids.
//! Loading on a miss (each costs one translation-page read):
//! - `per-miss-entry`: only the missing entry;
//! - `read-ahead`: the missing entry and the next `k - 1` of the same translation page;
//! - `page-chunk` (default, WADPM's choice): every entry of the translation page.
//!
//! Write-back: evicting a dirty entry (or a page holding one) writes its translation page once,
//! with every cached entry of that page, so all of them are clean afterwards and the page is not
//! written again when they leave. A page only partly cached is read first and merged (a
//! read-modify-write: `map_merge_reads`). The most recent node is never evicted, so a window
//! smaller than one translation page still holds the page just loaded; the paper's smallest
//! window, 1% of the table, is dozens of pages.
//!
//! What a write-back costs (`write_back`): `program` (default) programs the translation page on
//! its plane, as a real controller must before the entries leave RAM; `free` counts it
//! (`map_writes`) but takes no flash time, the WADPM paper's cost model (§5.2: a miss *reads*
//! the entries from flash; writing map data back appears only as Fig. 8's flush).
//!
//! Window sizing (paper Fig. 8, θHR = 0.90, θMT = 5): at the end of each interval of
//! `interval` lookups, hit ratio < θHR grows the window by `step` of the full table; otherwise a
//! maintenance count rises, and once it reaches θMT the window shrinks by `step` (evicting the
//! excess, dirty entries written back) and the count resets. The paper does not give the step
//! or the interval; both are parameters (defaults: 1% of the table, 4,096 lookups).

use serde::Deserialize;

use crate::error::Error;

const NIL: u32 = u32::MAX;

/// What a mapping-cache miss loads (`loading`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Loading {
    /// Only the missing entry.
    PerMissEntry,
    /// The missing entry and the next `read_ahead - 1` entries of its translation page.
    ReadAhead,
    /// Every entry of the missing entry's translation page.
    PageChunk,
}

/// What writing a dirty translation page back costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WriteBack {
    /// A page program on the translation page's plane (after its merge read, when partly cached).
    Program,
    /// Counted, but no flash time: only a miss's read costs (the WADPM paper's cost model).
    Free,
}

/// `[ftl.mapping_params]` of cached mapping schemes.
#[derive(Clone, Debug, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheParams {
    /// What a mapping-cache miss loads: the missing entry (`per-miss-entry`), `read_ahead` entries
    /// (`read-ahead`), or its translation page's entries (`page-chunk`).
    #[serde(default = "d_loading")]
    pub loading: Loading,
    /// LRU unit: `page` (a translation page's cached entries share recency) or `entry`.
    #[serde(default = "d_recency")]
    pub recency: Recency,
    /// Entries loaded by `read-ahead` (the missing one included): at least 1; more than the
    /// table holds loads the table's remaining entries.
    #[serde(default = "d_read_ahead")]
    pub read_ahead: u32,
    /// Window as a fraction of the full table (static), or the starting size (dynamic), in (0, 1].
    #[serde(default = "d_window")]
    pub window: f64,
    /// Resize the window from the hit ratio (WADPM Fig. 8); otherwise it stays at `window`.
    #[serde(default)]
    pub dynamic: bool,
    /// Dynamic: hit-ratio threshold θHR, a fraction in (0, 1].
    #[serde(default = "d_hr")]
    pub hit_ratio_threshold: f64,
    /// Dynamic: good intervals before shrinking, θMT.
    #[serde(default = "d_mt")]
    pub maintenance_threshold: u32,
    /// Dynamic: grow / shrink step as a fraction of the full table, in (0, 1].
    #[serde(default = "d_step")]
    pub step: f64,
    /// Dynamic: lookups per adjustment interval (at least 1).
    #[serde(default = "d_interval")]
    pub interval: u64,
    /// Dynamic: window bounds as fractions of the full table, in (0, 1] and at most `max_window`.
    #[serde(default = "d_min")]
    pub min_window: f64,
    /// Dynamic: largest window, as a fraction of the full table, in (0, 1].
    #[serde(default = "d_max")]
    pub max_window: f64,
    /// What writing back a dirty translation page (eviction, window shrink, GC's updates) costs:
    /// `program` (a page program on its plane) or `free` (counted, no flash time).
    #[serde(default = "d_write_back")]
    pub write_back: WriteBack,
}

fn d_loading() -> Loading {
    Loading::PageChunk
}
fn d_recency() -> Recency {
    Recency::Page
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
fn d_write_back() -> WriteBack {
    WriteBack::Program
}

impl CacheParams {
    /// Parse and check `[ftl.mapping_params]`: the fractions in (0, 1], `min_window` at most
    /// `max_window`, `read_ahead` and `interval` at least 1.
    pub fn parse(table: &toml::Table) -> Result<CacheParams, Error> {
        let p: CacheParams = crate::registry::parse_params("ftl.mapping_params", table)?;
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
            return Err(Error::config(
                "ftl.mapping_params.min_window",
                format!("{} exceeds ftl.mapping_params.max_window ({})", p.min_window, p.max_window),
            ));
        }
        for (k, v) in [("read_ahead", p.read_ahead as u64), ("interval", p.interval)] {
            if v == 0 {
                return Err(Error::config(format!("ftl.mapping_params.{k}"), "must be at least 1"));
            }
        }
        Ok(p)
    }
}

/// Translation-page I/O a lookup needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapIo {
    /// Translation page to read before the lookup can complete (on a miss).
    pub read: Option<u32>,
    /// Translation pages written back (dirty evictions), each at most once per lookup.
    pub writes: Vec<u32>,
    /// Of `writes`, those only partly cached when written back: read first (read-modify-write).
    pub merge_reads: Vec<u32>,
}

/// Counters of the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheCounters {
    /// Lookups that found their entry cached.
    pub hits: u64,
    /// Lookups that did not: each reads a translation page.
    pub misses: u64,
    /// Translation-page reads: misses, read-modify-writes and GC's updates of uncached entries.
    pub map_reads: u64,
    /// Translation-page writes: dirty write-backs (eviction, window shrink) and GC's updates of
    /// uncached entries.
    pub map_writes: u64,
    /// Of `map_reads`, those that merged a partly cached dirty page before writing it back.
    pub map_merge_reads: u64,
}

/// What one LRU position stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Recency {
    /// A translation page: its cached entries share recency and leave together (WADPM's chunks).
    Page,
    /// One entry (DFTL's cached mapping table).
    Entry,
}

/// The cached part of a mapping table: which entries are cached and dirty, their LRU order, the
/// window size and the counters.
#[derive(Clone)]
pub struct MapCache {
    params: CacheParams,
    entries: u64,
    per_tpage: u32,
    capacity: u64,
    /// Cached entries.
    len: u64,
    /// LRU list over nodes (entries or translation pages, per `params.recency`).
    head: u32,
    tail: u32,
    prev: Vec<u32>,
    next: Vec<u32>,
    in_list: Vec<u64>,
    /// Per entry: cached; dirty (changed since its translation page was last written).
    cached: Vec<u64>,
    dirty: Vec<u64>,
    /// Per translation page: cached entries, dirty entries.
    t_cached: Vec<u32>,
    t_dirty: Vec<u32>,
    /// Lookups and translation-page I/O so far.
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

/// Call `f(word, mask)` for the words of a bitmap covering bits `[lo, hi)`.
#[inline]
fn for_words(lo: u32, hi: u32, mut f: impl FnMut(usize, u64)) {
    let mut i = lo;
    while i < hi {
        let w = i / 64;
        let end = hi.min((w + 1) * 64);
        let width = end - i;
        let mask = if width == 64 { u64::MAX } else { ((1u64 << width) - 1) << (i % 64) };
        f(w as usize, mask);
        i = end;
    }
}

/// Set bits `[lo, hi)` on or off; returns how many changed.
fn set_range(v: &mut [u64], lo: u32, hi: u32, on: bool) -> u32 {
    let mut changed = 0;
    for_words(lo, hi, |w, m| {
        let old = v[w];
        v[w] = if on { old | m } else { old & !m };
        changed += ((old ^ v[w]) & m).count_ones();
    });
    changed
}

impl MapCache {
    /// Refuse a table whose entries do not fit the cache's 32-bit indices (`scheme` names the
    /// mapping, `why` says how its entries were counted).
    pub fn check_entries(scheme: &str, entries: u64, why: &str) -> Result<(), Error> {
        if entries == 0 || entries >= NIL as u64 {
            return Err(Error::config(
                "ftl.mapping",
                format!(
                    "{scheme}: the mapping table has {entries} entries ({why}), more than the {} a cache index holds; use smaller pages, fewer planes or a smaller device",
                    NIL - 1
                ),
            ));
        }
        Ok(())
    }

    /// What [`MapCache::new`] allocates, and its translation pages GC rewrites (a list grown by
    /// pushes, at most one per translation page) and window sizes (one per adjustment). An
    /// unknown recency (parameters the build will refuse) counts per entry, the larger.
    pub fn memory(recency: Option<Recency>, entries: u64, per_tpage: u32, est: &mut crate::memory::Estimate) {
        use crate::memory::{bitmap_bytes, grown_vec_bytes, vec_bytes};
        let tpages = entries.div_ceil(per_tpage.max(1) as u64);
        let nodes = match recency {
            Some(Recency::Page) => tpages,
            Some(Recency::Entry) | None => entries,
        };
        let lru = 2 * vec_bytes::<u32>(nodes) + bitmap_bytes(nodes);
        let bits = 2 * bitmap_bytes(entries);
        let per_tpage_counts = 2 * vec_bytes::<u32>(tpages) + grown_vec_bytes::<u32>(tpages);
        est.add("mapping cache", lru + bits + per_tpage_counts);
    }

    /// A cache over `entries` mapping entries, `per_tpage` of them per translation page.
    pub fn new(params: CacheParams, entries: u64, per_tpage: u32) -> Self {
        assert!(entries > 0 && entries < NIL as u64 && per_tpage > 0);
        let n = entries as usize;
        let tpages = entries.div_ceil(per_tpage as u64) as usize;
        let nodes = match params.recency {
            Recency::Page => tpages,
            Recency::Entry => n,
        };
        let capacity = ((params.window * entries as f64).ceil() as u64).max(1);
        MapCache {
            params,
            entries,
            per_tpage,
            capacity,
            len: 0,
            head: NIL,
            tail: NIL,
            prev: vec![NIL; nodes],
            next: vec![NIL; nodes],
            in_list: vec![0; nodes.div_ceil(64)],
            cached: vec![0; n.div_ceil(64)],
            dirty: vec![0; n.div_ceil(64)],
            t_cached: vec![0; tpages],
            t_dirty: vec![0; tpages],
            counters: CacheCounters::default(),
            interval_lookups: 0,
            interval_hits: 0,
            good_intervals: 0,
            size_history: Vec::new(),
        }
    }

    /// Window size in entries: eviction holds the cache to it, except the most recent node.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
    /// Whether a write-back takes flash time.
    pub fn write_back_costs(&self) -> bool {
        self.params.write_back == WriteBack::Program
    }
    /// Entries cached now.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// Whether no entry is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether entry `e` is cached.
    pub fn is_cached(&self, e: u32) -> bool {
        bit(&self.cached, e)
    }
    /// Translation page holding entry `e`.
    pub fn tpage_of(&self, e: u32) -> u32 {
        e / self.per_tpage
    }
    /// `hits / (hits + misses)`; `None` before the first lookup.
    pub fn hit_ratio(&self) -> Option<f64> {
        let n = self.counters.hits + self.counters.misses;
        (n > 0).then(|| self.counters.hits as f64 / n as f64)
    }

    /// Entries `[first, end)` of translation page `t`.
    #[inline]
    fn range(&self, t: u32) -> (u32, u32) {
        let first = t * self.per_tpage;
        (first, (first as u64 + self.per_tpage as u64).min(self.entries) as u32)
    }

    #[inline]
    fn node_of(&self, e: u32) -> u32 {
        match self.params.recency {
            Recency::Page => self.tpage_of(e),
            Recency::Entry => e,
        }
    }

    fn unlink(&mut self, x: u32) {
        let (p, n) = (self.prev[x as usize], self.next[x as usize]);
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
        set(&mut self.in_list, x, false);
    }

    /// Make node `x` the most recently used (linking it if it is not in the list).
    fn touch(&mut self, x: u32) {
        if self.tail == x {
            return;
        }
        if bit(&self.in_list, x) {
            self.unlink(x);
        }
        self.prev[x as usize] = self.tail;
        self.next[x as usize] = NIL;
        if self.tail == NIL {
            self.head = x
        } else {
            self.next[self.tail as usize] = x
        }
        self.tail = x;
        set(&mut self.in_list, x, true);
    }

    fn mark_dirty(&mut self, e: u32) {
        if !bit(&self.dirty, e) {
            set(&mut self.dirty, e, true);
            let t = self.tpage_of(e) as usize;
            self.t_dirty[t] += 1;
        }
    }

    /// Look up entry `e` (a host read or write of its page); `write` marks it dirty.
    pub fn access(&mut self, e: u32, write: bool) -> MapIo {
        debug_assert!((e as u64) < self.entries);
        let mut io = MapIo::default();
        self.interval_lookups += 1;
        if self.is_cached(e) {
            self.counters.hits += 1;
            self.interval_hits += 1;
        } else {
            self.counters.misses += 1;
            self.counters.map_reads += 1;
            io.read = Some(self.tpage_of(e));
            self.load(e);
        }
        self.touch(self.node_of(e));
        if write {
            self.mark_dirty(e);
        }
        self.evict_to(self.capacity, &mut io);
        if self.params.dynamic && self.interval_lookups >= self.params.interval {
            self.adjust(&mut io);
        }
        self.counters.map_writes += io.writes.len() as u64;
        self.counters.map_reads += io.merge_reads.len() as u64;
        self.counters.map_merge_reads += io.merge_reads.len() as u64;
        io
    }

    /// An entry changed without a host lookup (GC moved its page): dirty if cached; otherwise
    /// its translation page must be rewritten (returned, for the caller to batch).
    pub fn remap(&mut self, e: u32) -> Option<u32> {
        if self.is_cached(e) {
            self.mark_dirty(e);
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

    /// Cache `e` and the neighbours the loading method brings with it (one translation-page read).
    fn load(&mut self, e: u32) {
        let (first, end) = self.range(self.tpage_of(e));
        let (lo, hi) = match self.params.loading {
            Loading::PerMissEntry => (e, e + 1),
            // Saturating: `read_ahead` is any u32, and the table's end bounds the load anyway.
            Loading::ReadAhead => (e, e.saturating_add(self.params.read_ahead).min(end)),
            Loading::PageChunk => (first, end),
        };
        if self.params.recency == Recency::Page {
            let added = set_range(&mut self.cached, lo, hi, true);
            let t = self.tpage_of(e) as usize;
            self.t_cached[t] += added;
            self.len += added as u64;
            return;
        }
        // Neighbours first, so that with per-entry recency the missing entry ends most recent.
        for x in (lo..hi).filter(|&x| x != e).chain(std::iter::once(e)) {
            if self.is_cached(x) {
                continue;
            }
            set(&mut self.cached, x, true);
            let t = self.tpage_of(x) as usize;
            self.t_cached[t] += 1;
            self.len += 1;
            if self.params.recency == Recency::Entry {
                self.touch(x);
            }
        }
    }

    /// Write translation page `t` back: every cached entry of it becomes clean (one program, and a
    /// read first when only part of the page is cached).
    fn write_back(&mut self, t: u32, io: &mut MapIo) {
        let (first, end) = self.range(t);
        debug_assert!(!io.writes.contains(&t), "translation page {t} written twice in one batch");
        if (self.t_cached[t as usize] as u64) < (end - first) as u64 {
            io.merge_reads.push(t);
        }
        io.writes.push(t);
        set_range(&mut self.dirty, first, end, false);
        self.t_dirty[t as usize] = 0;
    }

    /// Take entry `x` out of the cache (`t_cached` still counts it while the page is written).
    fn drop_entry(&mut self, x: u32) {
        set(&mut self.cached, x, false);
        let t = self.tpage_of(x) as usize;
        self.t_cached[t] -= 1;
        self.len -= 1;
    }

    /// Evict least recently used nodes until at most `cap` entries remain (never the most recent
    /// node); a dirty one writes its translation page back, which cleans the page's other cached
    /// entries too, so each page is written once however many of its entries leave.
    fn evict_to(&mut self, cap: u64, io: &mut MapIo) {
        while self.len > cap && self.head != self.tail {
            let x = self.head;
            self.unlink(x);
            match self.params.recency {
                Recency::Page => {
                    if self.t_dirty[x as usize] > 0 {
                        self.write_back(x, io);
                    }
                    let (first, end) = self.range(x);
                    let dropped = set_range(&mut self.cached, first, end, false);
                    debug_assert_eq!(dropped, self.t_cached[x as usize]);
                    self.t_cached[x as usize] = 0;
                    self.len -= dropped as u64;
                }
                Recency::Entry => {
                    if bit(&self.dirty, x) {
                        self.write_back(self.tpage_of(x), io);
                    }
                    self.drop_entry(x);
                }
            }
        }
    }

    /// WADPM Fig. 8, at the end of an interval.
    fn adjust(&mut self, io: &mut MapIo) {
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
            self.evict_to(self.capacity, io);
            self.good_intervals = 0;
        }
        self.interval_lookups = 0;
        self.interval_hits = 0;
        self.size_history.push(self.capacity);
    }

    /// Cross-check the LRU list, the cached and dirty bits and the per-page counts.
    pub fn validate(&self) -> Result<(), String> {
        let (mut x, mut nodes) = (self.head, 0u64);
        while x != NIL {
            if !bit(&self.in_list, x) {
                return Err(format!("map cache: node {x} in the LRU list but not marked listed"));
            }
            nodes += 1;
            x = self.next[x as usize];
        }
        let listed: u64 = self.in_list.iter().map(|w| w.count_ones() as u64).sum();
        let marked: u64 = self.cached.iter().map(|w| w.count_ones() as u64).sum();
        if listed != nodes || marked != self.len || (self.len > self.capacity && nodes > 1) {
            return Err(format!(
                "map cache: {nodes} nodes in the list, {listed} marked; {marked} entries cached, len {}, capacity {}",
                self.len, self.capacity
            ));
        }
        for t in 0..self.t_cached.len() as u32 {
            let (first, end) = self.range(t);
            let (c, d) =
                (first..end).fold((0, 0), |(c, d), e| (c + self.is_cached(e) as u32, d + bit(&self.dirty, e) as u32));
            if (c, d) != (self.t_cached[t as usize], self.t_dirty[t as usize]) {
                return Err(format!("map cache: translation page {t} counts differ from its entries"));
            }
            let listed = match self.params.recency {
                Recency::Page => bit(&self.in_list, t),
                Recency::Entry => (first..end).any(|e| bit(&self.in_list, e)),
            };
            if (c > 0) != listed {
                return Err(format!("map cache: translation page {t} cached but not listed, or listed empty"));
            }
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
    fn an_evicted_dirty_entry_writes_its_page_once_and_cleans_the_rest_of_it() {
        // DFTL's layout: entry recency, per-miss loading; window 4 entries of 64, 16 per page.
        let mut c = MapCache::new(params("loading = \"per-miss-entry\"\nrecency = \"entry\"\nwindow = 0.0625"), 64, 16);
        for e in [0, 1, 2, 3] {
            assert_eq!(c.access(e, true).read, Some(0), "miss: reads translation page 0");
        }
        assert!(c.access(0, false).read.is_none(), "hit");
        // LRU is now 1, 2, 3, 0. Loading 40 evicts 1 (dirty): page 0 is read (4 of its 16
        // entries cached), merged and written once; 2, 3 and 0 are clean from then on.
        let io = c.access(40, false);
        assert_eq!((io.read, io.writes.clone(), io.merge_reads.clone()), (Some(2), vec![0], vec![0]));
        assert!(!c.is_cached(1) && c.is_cached(0));
        for e in [41, 42, 43] {
            let io = c.access(e, false);
            assert!(io.writes.is_empty(), "entry {} left clean: page 0 is not written again", e - 41);
        }
        assert!(!c.is_cached(0) && !c.is_cached(2) && !c.is_cached(3));
        let k = c.counters;
        assert_eq!((k.hits, k.misses, k.map_reads, k.map_writes, k.map_merge_reads), (1, 8, 9, 1, 1));
        assert_eq!(c.remap(43), None, "cached: becomes dirty");
        assert_eq!(c.remap(50), Some(3), "not cached: its translation page must be rewritten");
        c.validate().unwrap();
    }

    #[test]
    fn page_recency_keeps_and_evicts_whole_translation_pages() {
        // WADPM's layout: page-chunk loading, page recency; 2 of 4 pages of 16 entries fit.
        let mut c = MapCache::new(params("window = 0.5"), 64, 16);
        assert_eq!(c.access(0, true).read, Some(0));
        assert_eq!(c.access(17, true).read, Some(1));
        assert!(c.access(5, false).read.is_none(), "page 0 is cached whole");
        // Page 1 is now least recent: loading page 2 writes it back whole (no merge read).
        let io = c.access(33, false);
        assert_eq!((io.read, io.writes.clone(), io.merge_reads.clone()), (Some(2), vec![1], vec![]));
        assert_eq!(c.len(), 32);
        let io = c.access(49, false);
        assert_eq!(io.writes, vec![0], "page 0 next, written once");
        let io = c.access(1, false);
        assert!(io.writes.is_empty(), "page 2 was never written to: evicted clean");
        let k = c.counters;
        assert_eq!((k.misses, k.map_reads, k.map_writes, k.map_merge_reads), (5, 5, 2, 0));
        c.validate().unwrap();
    }

    #[test]
    fn no_translation_page_is_written_twice_in_one_eviction_batch() {
        // Random lookups with growing and shrinking windows, every loading and recency: a batch
        // (one lookup's write-backs, shrinks included) names each page at most once, and a page
        // written back holds no dirty entry afterwards.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut batches_with_several_writes = 0;
        for loading in ["per-miss-entry", "read-ahead", "page-chunk"] {
            for recency in ["page", "entry"] {
                let mut c = MapCache::new(
                    params(&format!(
                        "loading = \"{loading}\"\nrecency = \"{recency}\"\nread_ahead = 4\nwindow = 0.2\n\
                         dynamic = true\nstep = 0.15\ninterval = 64\nmaintenance_threshold = 1\nhit_ratio_threshold = 0.6"
                    )),
                    640,
                    32,
                );
                for i in 0..20_000u64 {
                    let hot = next() % 4 != 0;
                    let e = if hot { next() % 96 } else { next() % 640 } as u32;
                    let io = c.access(e, next() % 2 == 0);
                    let mut w = io.writes.clone();
                    w.sort_unstable();
                    w.dedup();
                    assert_eq!(w.len(), io.writes.len(), "{loading}/{recency} lookup {i}: {:?}", io.writes);
                    assert!(io.merge_reads.iter().all(|t| io.writes.contains(t)));
                    for &t in &io.writes {
                        assert_eq!(c.t_dirty[t as usize], 0, "{loading}/{recency}: page {t} still dirty");
                    }
                    batches_with_several_writes += (io.writes.len() > 1) as u32;
                    if i % 997 == 0 {
                        c.validate().unwrap();
                    }
                }
                assert!(c.size_history.windows(2).any(|w| w[1] < w[0]), "{loading}/{recency}: never shrank");
            }
        }
        assert!(batches_with_several_writes > 0, "no batch evicted two dirty pages: the test checks nothing");
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
        let hot = 63; // the last entry loaded
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
