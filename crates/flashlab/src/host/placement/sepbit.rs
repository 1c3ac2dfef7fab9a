//! `sepbit`: SepBIT's separation of user writes (Q. Wang, J. Li, P. P. C. Lee, T. Ouyang,
//! C. Shi, L. Huang, "Separating Data via Block Invalidation Time Inference for Write
//! Amplification Reduction in Log-Structured Storage", FAST 2022; rules checked against the
//! authors' code, github.com/fallfish/sepbit: `prototype/src/placement/sepbit.cc`, `fifo.h`,
//! and the simulator's `trace_replay/.../placement/SepBIT.java`).
//!
//! What is implemented: the user-write rule, SepBIT's Classes 1 and 2. Time is counted in
//! user-written pages (each page of a write advances it by one; GC, reads and trims do not).
//! For each written page, v = now − the time its previous version was written; the page is
//! short-lived (Class 1) if it has a previous version and v < min(ℓ, valid pages), else
//! Class 2 (first writes included). "Valid pages" are the logical pages the host has written
//! and not trimmed since the run began: the authors' code caps its FIFO of recent writes at
//! min(ℓ, the log's valid blocks), which bounds v the same way. A request carries one
//! identifier, so a request of several pages goes to Class 1 when most of its pages
//! (strictly more than half) are short-lived; each page records the class it went to. Class 1
//! writes carry handle `short` (default 0), Class 2 writes handle `long` (default 1).
//!
//! What is not: SepBIT's GC-write classes 3–6 (a victim's valid blocks regrouped by the
//! victim's class and their age against 4ℓ and 16ℓ) live in a log-structured layer's GC; an
//! FDP device's GC is the device's, which the host neither sees nor steers, so they are not
//! applied here (with `[ftl.placement] isolation = "persistent"` the device keeps each
//! handle's moved pages in that handle's reclaim units).
//!
//! The substitution for ℓ. In the paper ℓ is the average lifespan of the last 16 reclaimed
//! Class-1 segments (from opening to reclamation), +∞ until 16 have been reclaimed: GC
//! feedback an FDP device does not give the host. Here, by default, ℓ is the average lifespan
//! of host-invalidated Class-1 pages: when a page whose current version went to Class 1 is
//! overwritten or trimmed, its version's lifespan (now − its write time) is added to a batch;
//! after `batch_pages` of them ℓ becomes their mean and the batch starts over (non-sliding,
//! as the paper's batch of 16 segments); ℓ = +∞ until the first batch is full. It is the
//! nearest quantity the host observes — the lifetimes of the data Class 1 holds, which a
//! Class-1 segment's lifespan follows — and it keeps the paper's feedback loop (ℓ is learned
//! from what was classified short-lived). It is not the same number: a segment is reclaimed
//! some time after most of its pages die, so a segment lifespan runs longer than the mean
//! page lifespan, and this ℓ makes Class 1 stricter than the paper's. Alternatively
//! `threshold` fixes ℓ as a fraction of the logical pages (no adaptation).
//!
//! State: one `u32` per logical page, allocated at the first request: bit 31, the current
//! version went to Class 1; bits 0–30, its write time relative to a base (0: no version).
//! When the times reach 2^31 − 2 past the base, every stamp is rebased (the base moves to
//! 2^30 pages before now, older times clamp to it): ages from 2^30 pages written on are not
//! told apart, which changes no decision while ℓ and the valid pages stay below 2^30 (4 TiB
//! of 4 KiB pages). O(logical pages) every 2^30 pages written. Preconditioning writes the
//! device directly, below the host: the policy has seen no version of a page until the
//! measured phase writes it.

use serde::Deserialize;

use super::{PlacementContext, PlacementPolicy, TABLE};
use crate::error::Error;
use crate::memory::Estimate;
use crate::registry::parse_params;
use crate::workload::Request;

/// `[host.placement]` with `policy = "sepbit"`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Identifier of Class 1 (short-lived: the previous version is younger than ℓ).
    #[serde(default)]
    pub short: u16,
    /// Identifier of Class 2 (everything else, first writes included); differs from `short`.
    #[serde(default = "d_long")]
    pub long: u16,
    /// A fixed ℓ, as a fraction of the logical pages, in (0, 1]: a page is short-lived when
    /// rewritten within `threshold × logical pages` page writes. Absent: ℓ adapts (the mean
    /// lifespan of recently invalidated Class-1 pages).
    #[serde(default)]
    #[schemars(extend("x-unit" = "fraction of logical pages"))]
    pub threshold: Option<f64>,
    /// Adaptive ℓ: Class-1 versions invalidated (overwritten or trimmed) per update of ℓ, which
    /// becomes their mean lifespan; 1 to 2^24, default 4096. Not with `threshold`.
    #[serde(default)]
    pub batch_pages: Option<u64>,
}

fn d_long() -> u16 {
    1
}

/// Default of `batch_pages`.
pub const BATCH_PAGES: u64 = 4096;
/// Largest `batch_pages`.
pub const MAX_BATCH_PAGES: u64 = 1 << 24;

/// Bit of a stamp: the version went to Class 1.
const CLASS1: u32 = 1 << 31;
/// Bits of a stamp: write time − base + 1; 0 = no version.
const TIME: u32 = CLASS1 - 1;
/// Stamps are rebased before a time would reach this far past the base.
const SPAN: u64 = TIME as u64 - 1;

/// How ℓ is set.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ell {
    /// Fixed, in pages written.
    Fixed(u64),
    /// The mean lifespan of each batch of `batch` invalidated Class-1 versions.
    Adaptive { batch: u64 },
}

/// SepBIT's user-write classes over per-page write times.
pub struct SepBit {
    short: u16,
    long: u16,
    ctx: PlacementContext,
    mode: Ell,
    /// ℓ in pages written; `u64::MAX`: +∞.
    ell: u64,
    /// Per logical page, allocated at the first request: [`CLASS1`] | time − base + 1.
    stamps: Vec<u32>,
    /// User pages written so far: the clock.
    now: u64,
    /// The time stamps count from.
    base: u64,
    /// Rebase when `now − base + 1` exceeds this ([`SPAN`]; smaller in tests).
    span: u64,
    /// Logical pages holding a version (written, not trimmed).
    valid: u64,
    /// The batch of Class-1 lifespans being averaged: sum and count.
    sum: u128,
    count: u64,
}

fn parse(params: &toml::Table) -> Result<(Params, Option<f64>, u64), Error> {
    let p: Params = parse_params(TABLE, params)?;
    let key = |k: &str| format!("{TABLE}.{k}");
    if p.short == p.long {
        return Err(Error::config(
            key("long"),
            format!("{} is also `short`'s identifier: the classes would not be apart", p.long),
        ));
    }
    if let Some(t) = p.threshold {
        if !(t.is_finite() && t > 0.0 && t <= 1.0) {
            return Err(Error::config(
                key("threshold"),
                format!("{t} is not in (0, 1] (a fraction of the logical pages)"),
            ));
        }
        if p.batch_pages.is_some() {
            return Err(Error::config(
                key("batch_pages"),
                "sets how an adaptive ℓ learns: give it or `threshold`, not both",
            ));
        }
    }
    let batch = p.batch_pages.unwrap_or(BATCH_PAGES);
    if !(1..=MAX_BATCH_PAGES).contains(&batch) {
        return Err(Error::config(key("batch_pages"), format!("{batch} is not from 1 to {MAX_BATCH_PAGES}")));
    }
    let threshold = p.threshold;
    Ok((p, threshold, batch))
}

/// [`Params`] checked as [`build`] checks them.
pub fn check(params: &toml::Table) -> Result<(), Error> {
    parse(params).map(|_| ())
}

/// Build `sepbit` from `[host.placement]`; its stamps are allocated at the first request.
pub fn build(params: &toml::Table, ctx: &PlacementContext) -> Result<Box<dyn PlacementPolicy>, Error> {
    Ok(Box::new(SepBit::new(params, ctx, SPAN)?))
}

/// One `u32` per logical page.
pub fn memory(ctx: &PlacementContext, est: &mut Estimate) {
    est.add("placement stamps (sepbit)", crate::memory::vec_bytes::<u32>(ctx.logical_pages));
}

impl SepBit {
    fn new(params: &toml::Table, ctx: &PlacementContext, span: u64) -> Result<Self, Error> {
        let (p, threshold, batch) = parse(params)?;
        assert!(ctx.logical_pages > 0 && span >= 4, "a logical space and room for times");
        let (mode, ell) = match threshold {
            Some(t) => {
                let pages = ((t * ctx.logical_pages as f64).ceil() as u64).max(1);
                (Ell::Fixed(pages), pages)
            }
            None => (Ell::Adaptive { batch }, u64::MAX),
        };
        Ok(SepBit {
            short: p.short,
            long: p.long,
            ctx: *ctx,
            mode,
            ell,
            stamps: Vec::new(),
            now: 0,
            base: 0,
            span,
            valid: 0,
            sum: 0,
            count: 0,
        })
    }

    fn allocate(&mut self) {
        if self.stamps.is_empty() {
            self.stamps = vec![0; self.ctx.logical_pages as usize];
        }
    }

    /// When the current version of the page with stamp `s` was written.
    #[inline]
    fn written(&self, s: u32) -> Option<u64> {
        let t = s & TIME;
        (t != 0).then(|| self.base + t as u64 - 1)
    }

    /// The version with stamp `s` dies now (overwritten or trimmed): a Class-1 version's
    /// lifespan joins the batch that sets an adaptive ℓ.
    #[inline]
    fn invalidated(&mut self, s: u32) {
        let Ell::Adaptive { batch } = self.mode else { return };
        if s & CLASS1 == 0 {
            return;
        }
        let born = self.written(s).expect("a Class-1 stamp holds a time");
        self.sum += (self.now - born) as u128;
        self.count += 1;
        if self.count == batch {
            self.ell = ((self.sum / batch as u128) as u64).max(1);
            self.sum = 0;
            self.count = 0;
        }
    }

    /// Move the base to `span / 2` pages before now; older times clamp to it.
    fn rebase(&mut self) {
        let base = self.now - self.span / 2;
        assert!(base >= self.base, "the clock only moves forward");
        let old = self.base;
        for s in &mut self.stamps {
            let t = *s & TIME;
            if t != 0 {
                let born = (old + t as u64 - 1).max(base);
                *s = (*s & CLASS1) | (born - base + 1) as u32;
            }
        }
        self.base = base;
    }

    /// ℓ in pages written (`u64::MAX`: +∞).
    pub fn ell(&self) -> u64 {
        self.ell
    }
}

impl PlacementPolicy for SepBit {
    fn place(&mut self, req: &Request) -> Option<u16> {
        self.allocate();
        let ctx = self.ctx;
        let limit = self.ell.min(self.valid);
        let (mut pages, mut short) = (0u64, 0u64);
        for (i, lpn) in ctx.pages(req).enumerate() {
            let now = self.now + i as u64;
            if self.written(self.stamps[lpn as usize]).is_some_and(|born| now - born < limit) {
                short += 1;
            }
            pages += 1;
        }
        let class1 = 2 * short > pages;
        for lpn in ctx.pages(req) {
            if self.now - self.base + 1 > self.span {
                self.rebase();
            }
            let old = self.stamps[lpn as usize];
            if old & TIME == 0 {
                self.valid += 1;
            } else {
                self.invalidated(old);
            }
            self.stamps[lpn as usize] = ((self.now - self.base + 1) as u32) | if class1 { CLASS1 } else { 0 };
            self.now += 1;
        }
        Some(if class1 { self.short } else { self.long })
    }

    fn trim(&mut self, req: &Request) {
        self.allocate();
        let ctx = self.ctx;
        for lpn in ctx.pages(req) {
            let old = self.stamps[lpn as usize];
            if old & TIME != 0 {
                self.invalidated(old);
                self.valid -= 1;
                self.stamps[lpn as usize] = 0;
            }
        }
    }

    fn largest(&self) -> Option<(&'static str, u16)> {
        Some(if self.short > self.long { ("short", self.short) } else { ("long", self.long) })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::write;
    use super::*;
    use crate::workload::Op;

    const PS: u64 = 4096;

    fn ctx(pages: u64) -> PlacementContext {
        PlacementContext { logical_pages: pages, page_size: PS }
    }

    fn sepbit(text: &str, pages: u64) -> SepBit {
        SepBit::new(&text.parse().unwrap(), &ctx(pages), SPAN).unwrap()
    }

    /// Write page `lpn` (one page).
    fn put(p: &mut SepBit, lpn: u64) -> Option<u16> {
        p.place(&write(lpn * PS, PS))
    }

    #[test]
    fn first_writes_are_long_lived_and_quick_rewrites_short_lived() {
        let mut p = sepbit("", 100);
        // ℓ = +∞ at first: the bound is the valid pages.
        assert_eq!(p.ell(), u64::MAX);
        let first: Vec<_> = (0..10).map(|l| put(&mut p, l)).collect();
        assert_eq!(first, vec![Some(1); 10]);
        // 10 valid pages: page 0 at time 10, v = 10 − 0 = 10, is not below 10; page 9 at 11,
        // v = 11 − 9 = 2, is.
        assert_eq!(put(&mut p, 0), Some(1));
        assert_eq!(put(&mut p, 9), Some(0));
        // Page 9 again right away: v = 1.
        assert_eq!(put(&mut p, 9), Some(0));
    }

    #[test]
    fn a_fixed_threshold_is_a_fraction_of_the_logical_pages() {
        // ℓ = 0.05 × 100 = 5 page writes.
        let mut p = sepbit("threshold = 0.05\nshort = 3\nlong = 2", 100);
        assert_eq!(p.ell(), 5);
        for l in 0..20 {
            put(&mut p, l);
        }
        // Page 15 was written at time 15; now 20: v = 5, not below 5.
        assert_eq!(put(&mut p, 15), Some(2));
        // Page 19 at 19; now 21: v = 2.
        assert_eq!(put(&mut p, 19), Some(3));
        assert_eq!(p.largest(), Some(("short", 3)));
    }

    #[test]
    fn an_adaptive_ell_is_the_mean_lifespan_of_invalidated_class1_versions() {
        let mut p = sepbit("batch_pages = 4", 100);
        for l in 0..10 {
            put(&mut p, l);
        }
        // Class 2 versions dying teach nothing.
        put(&mut p, 0);
        assert_eq!(p.ell(), u64::MAX);
        // Pages 5..9 rewritten (v < 10 valid): Class 1 at times 11..15.
        let class: Vec<_> = (5..9).map(|l| put(&mut p, l)).collect();
        assert_eq!(class, vec![Some(0); 4]);
        // Their versions die at 15..18, at ages 4 (15 − 11), 4, 4, 4: ℓ = 4, learned after
        // these four rewrites were classified (Class 1 again, with ℓ = +∞).
        for l in 5..9 {
            assert_eq!(put(&mut p, l), Some(0));
        }
        assert_eq!(p.ell(), 4);
        // A trim also ends a version's life: pages 5..8, written at 15..18, die at 19 aged 4,
        // 3, 2 and 1: ℓ = 10 / 4, rounded down; page 9's Class-2 version teaches nothing.
        p.trim(&Request { op: Op::Trim, ..write(5 * PS, 5 * PS) });
        assert_eq!((p.ell(), p.count, p.valid), (2, 0, 5));
        // A trimmed page has no version: its next write is a first write.
        assert_eq!(put(&mut p, 6), Some(1));
    }

    #[test]
    fn a_request_goes_with_the_majority_of_its_pages() {
        let mut p = sepbit("threshold = 1.0", 100);
        for l in 0..8 {
            put(&mut p, l);
        }
        // Pages 6..10: 6 and 7 have versions, 8 and 9 do not: 2 short of 4 is no majority.
        assert_eq!(p.place(&write(6 * PS, 4 * PS)), Some(1));
        // Pages 7..11: 7, 8 and 9 have versions now: 3 of 4 are short.
        assert_eq!(p.place(&write(7 * PS, 4 * PS)), Some(0));
        // Each page recorded its request's class.
        assert_eq!(p.stamps[7] & CLASS1, CLASS1);
        assert_eq!(p.stamps[6] & CLASS1, 0);
    }

    #[test]
    fn rebasing_keeps_every_decision_while_ages_stay_below_half_the_span() {
        // A span of 128 rebases every 64 pages written and keeps ages below 64 exact; this
        // workload rewrites a page once it is 20 writes old (one such page per request), so no
        // age reaches 64 and no decision may change.
        let table: toml::Table = "batch_pages = 3".parse().unwrap();
        let mut small = SepBit::new(&table, &ctx(16), 128).unwrap();
        let mut wide = SepBit::new(&table, &ctx(16), SPAN).unwrap();
        let mut last = [0u64; 16];
        let (mut now, mut oldest_age, mut x) = (0u64, 0u64, 12345u64);
        for _ in 0..5000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let old = (0..16).min_by_key(|&l| last[l]).unwrap();
            let (lpn, len) = if now - last[old] >= 20 { (old as u64, 1) } else { ((x >> 33) % 16, 1 + (x >> 20) % 3) };
            for i in 0..len {
                let l = ((lpn + i) % 16) as usize;
                oldest_age = oldest_age.max(now - last[l]);
                last[l] = now;
                now += 1;
            }
            let req = write(lpn * PS, len * PS);
            assert_eq!(small.place(&req), wide.place(&req));
            assert_eq!(small.ell(), wide.ell());
        }
        assert!(oldest_age < 64, "the workload keeps ages below half the span ({oldest_age})");
        assert!(small.base > 0 && wide.base == 0);
        assert!(small.ell() < u64::MAX, "ℓ was learned");
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let key = |text: &str| match SepBit::new(&text.parse().unwrap(), &ctx(100), SPAN).err().expect("refused") {
            Error::Config { key, .. } => key,
            e => panic!("{e}"),
        };
        assert_eq!(key("short = 1"), "host.placement.long");
        assert_eq!(key("threshold = 0.0"), "host.placement.threshold");
        assert_eq!(key("threshold = 1.5"), "host.placement.threshold");
        assert_eq!(key("threshold = nan"), "host.placement.threshold");
        assert_eq!(key("threshold = 0.1\nbatch_pages = 8"), "host.placement.batch_pages");
        assert_eq!(key("batch_pages = 0"), "host.placement.batch_pages");
        assert_eq!(key("long = -1"), "host.placement.long");
        assert_eq!(key("fifo = 3"), "host.placement.fifo");
    }

    #[test]
    fn the_stamps_are_allocated_at_the_first_request_and_estimated() {
        let mut p = sepbit("", 1000);
        assert!(p.stamps.is_empty());
        put(&mut p, 3);
        assert_eq!(p.stamps.len(), 1000);
        let mut est = Estimate::default();
        memory(&ctx(1000), &mut est);
        assert_eq!(est.total(), 4000);
    }
}
