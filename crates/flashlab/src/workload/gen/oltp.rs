//! `tpcc-like` and `linkbench-like`: a growing OLTP database whose page flushes are single-page
//! writes, after the workload characteristics that 2R++ (An and Lee, KTSDE 2023, §2.1 and §4.3;
//! `/work/shared/papers/004_*.txt`) reports for TPC-C and LinkBench on a 10 GB device.
//!
//! Owns: the growth schedule ([`Schedule`]: which pages exist and which are frozen after any
//! number of writes, exactly), the choice of page for every write ([`OltpPicker`]) and the two
//! models' defaults ([`TPCC_LIKE`], [`LINKBENCH_LIKE`]). The stream machinery (`stream.rs`) does
//! the rest (end of stream, time stamps, progress).
//!
//! # The model
//! A database file lies contiguously over the footprint (from `start`, default offset 0 of the
//! logical device; page = the flash page size). Every request is a one-page `Op::Write` (an OLTP
//! page flush); with the default `iat_ns = 0` every time stamp is 0. Progress after `k` of `W`
//! writes is `t = k / W`.
//!
//! * **Load.** The first `L = round(d0 · N)` writes (of `N` footprint pages) write pages
//!   `0, 1, …, L − 1` in order: the initial database, whose pages are the **core** tables (TPC-C
//!   warehouse/district/customer/stock/item; LinkBench's initial node and link tables). Core pages
//!   never freeze.
//! * **Growth.** After the load the database grows linearly over the remaining `W − L` writes:
//!   after `k ≥ L` writes it holds `L + ⌊(N − L)(k − L) / (W − L)⌋` pages, so it reaches the whole
//!   footprint exactly at the last write. A write is an **append** (the next page after the end
//!   of the database) exactly when this schedule is one page ahead of the database, otherwise an
//!   **update**. This is the nominal `D(t) = d0 + (1 − d0)·t` with the growth clock started after
//!   the load; the two differ by at most `(1 − d0) · L / W` of the footprint (0.39% for the
//!   tpcc-like default, 0.04% for linkbench-like). Started after the load, the schedule never
//!   falls behind, needs only `W ≥ N`, and ends at exactly `N` pages.
//! * **Freezing.** Appended pages (`[L, N)`: TPC-C order/order_line/history, LinkBench's new
//!   nodes and links) stay updatable while they are among the newest `w = round(active_window · N)`
//!   appended pages, the *active window*; older appended pages are **frozen** and never written
//!   again. [`Schedule::is_frozen`] answers "is page `p` frozen at progress `t`" exactly.
//! * **Updates.** An update goes to the core with probability `core_share`, otherwise to the
//!   active window (to the core while the window is still empty). Inside the chosen region a hot
//!   subset of `⌈hot_space · size⌉` pages receives `hot_access` of that region's updates, uniformly;
//!   the rest of the region receives the remainder, uniformly. In the core the hot subset is a
//!   fixed set of pages scattered over the core by an affine permutation
//!   `j ↦ (j · m + off) mod L` (`m` = fio's 64-bit golden-ratio prime [`GR_PRIME_64`] reduced
//!   mod `L`, then the next value coprime with `L`; `off` = the generator's first random draw, so
//!   the placement follows the seed, as fio's zipf `rand_off` does). In the active window the hot
//!   subset is the *newest* pages of the window.
//!
//! Per update the random draws are, in order: region, hot-or-not, page (three 64-bit draws);
//! loads and appends draw nothing. Same seed and parameters → the same stream.
//!
//! # Parameters (keys of `[workload]`) and why they have their defaults
//! | key | tpcc-like | linkbench-like | reason |
//! |---|---|---|---|
//! | `d0` | 0.10 | 0.10 | the paper's database grows from 1 GB to 10 GB on a 10 GB device (Table 2) |
//! | `active_window` | 0.14 | 0.14 | frozen share at t = 0.6 (Fig. 2: "40% of the whole space frozen at 60% progress"): by t = 0.6, `(1 − d0) · 0.6 = 0.54` of the space has been appended; `0.54 − 0.14 = 0.40` is frozen |
//! | `core_share` | 0.91 | 0.77 | the one knob set to the skew of Fig. 1 (TPC-C: the 20% most-written pages take 90% of writes; LinkBench: 80%); see below |
//! | `hot_space` | 0.2 | 0.2 | conventional 80/20 locality inside each region (as `hotcold`'s default); not tuned |
//! | `hot_access` | 0.8 | 0.8 | ditto |
//! | writes (`volume_ratio`) | 22.9 × `N` | 229 × `N` | Table 2 / §4.3: 60 M (TPC-C) and 600 M (LinkBench) 4 KiB writes on a 10 GiB logical space (2,621,440 pages: 22.89 and 228.9 writes per page); LinkBench is update-heavy, ~10× the writes of TPC-C for the same growth |
//!
//! *Write volume.* The length is given by the common keys, counted in one-page writes:
//! `requests` (the number of writes), `volume_ratio` / `capacity_multiple` (writes per footprint
//! page, as for the other generators), or `volume` (bytes, rounded up to whole pages). Without
//! any of them the model's ratio applies. Fewer than `N` writes cannot grow the database to the
//! footprint and are an error. The growth schedule depends only on progress, so linkbench-like
//! differs from tpcc-like by ~10× more updates per append, not by a different growth.
//!
//! *Skew (`core_share`).* Fig. 1 sorts the pages that were written by their write count; over a
//! whole run every footprint page is written (the database ends at `N` pages), so "the written
//! pages" and "the footprint" are the same set here. The core is 10% of the pages and, at these
//! shares, every core page is written more often than all but a handful of appended pages (the
//! first ones, appended while the window was small; none at 20,000 pages), so the top 20% of
//! pages are the whole core plus the most-written tenth of the footprint among appended pages:
//! the top-20% share is set by `core_share` and barely depends on `hot_space` / `hot_access`
//! (uniform regions, `hot_access = 0.2`, move tpcc-like's from 0.9015 to 0.9039). Measured over
//! full runs at 20,000 and 200,000 pages (`calibration_table` in `tests/oltp.rs`), the top-20%
//! share rises by ~0.008 per 0.01 of `core_share`; the defaults, rounded to 0.01, give 0.9015 /
//! 0.9011 (tpcc-like) and 0.8019 / 0.8018 (linkbench-like). Only the paper's workload
//! characteristics (skew, frozen share, growth, write volume) were used to choose the defaults,
//! never a WAF result.
//!
//! *Hot-set placement.* Hot rows of the core tables (a warehouse's districts, NURand-popular
//! items and customers, popular nodes) sit on pages spread over their tables, so the core's hot
//! pages are scattered, as fio's zipf scatters its hottest ranks, and no policy can separate hot
//! from cold by address range. Appends go to the end of their tables (heap tail, right-most
//! B-tree leaf) and recent rows are the ones most likely to be written again (a page is flushed
//! again while rows are still being added to it; the paper's temporal locality, §2.1 1)), so the
//! window's hot pages are its newest, contiguous at the end of the database.
//!
//! *Frozen share measured the paper's way* (pages whose last write comes before `t`) is higher
//! than the structural [`Schedule::frozen_share`] (0.398 at t = 0.6 for tpcc-like, 0.400 for
//! linkbench-like), because window pages that are not written again before they leave it count
//! as frozen early: linkbench-like's appended pages get ~58 updates each and measure 0.409, but
//! tpcc-like's get ~2.2, mostly while among the newest, and measure 0.497. That is a property of
//! TPC-C's write budget (22.9 writes per page, 90% of them on 20% of the pages, leaves ~2 updates
//! per appended page), hardly of the window size: a window of 0.08 to 0.14 measures 0.51 to 0.50;
//! uniform updates inside the window (`hot_access = hot_space`) would measure 0.455.
//!
//! Common keys: `start`, `footprint`, `seed`, `iat_ns` and the length keys apply as for every
//! generator. `read_share`, `trim_share`, `request_size` and `align` make no sense for page
//! flushes: any value other than their default (0, 0, one page, one page) is an error.
//!
//! Fault model: every bad value is an [`Error`] naming `workload.KEY`: `d0` outside (0, 1),
//! `active_window` outside (0, 1], `core_share` / `hot_access` outside [0, 1], `hot_space`
//! outside (0, 1), a footprint too small to give the core, the appended pages and the window at
//! least one page each, or fewer writes than footprint pages. Generating never fails; a broken
//! invariant (the database outgrowing the footprint) panics.

use serde::Deserialize;
use toml::Value;

use super::params::{config, parse_common, parse_extras, share_threshold, CommonParams, Limit, SizeTable};
use super::stream::{draw53, seeded_rng, uniform_below, GenRng, Picker, Stream};
use super::zipf::GR_PRIME_64;
use crate::error::Error;
use crate::units::parse_size;
use crate::workload::{GenContext, Workload};

/// The common keys that set the stream's length (`params`' own list is private).
const LIMIT_KEYS: &[&str] = &["volume", "requests", "volume_ratio", "capacity_multiple"];

/// What distinguishes the two models: their default write volume and update split.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// The generator's name (`workload.kind`).
    pub name: &'static str,
    /// Default total page writes per footprint page.
    pub writes_ratio: f64,
    /// Default probability that an update goes to the core tables.
    pub core_share: f64,
}

/// 60 M writes on 10 GiB; 20% of pages take ~90% of writes.
pub const TPCC_LIKE: Model = Model { name: "tpcc-like", writes_ratio: 22.9, core_share: 0.91 };

/// 600 M writes on 10 GiB; 20% of pages take ~80% of writes.
pub const LINKBENCH_LIKE: Model = Model { name: "linkbench-like", writes_ratio: 229.0, core_share: 0.77 };

/// Default `d0`, shared by both models as are the three below (see the table in the module
/// header): the initial database as a share of the footprint.
pub const D0: f64 = 0.10;
/// Default `active_window`: the updatable appended pages as a share of the footprint.
pub const ACTIVE_WINDOW: f64 = 0.14;
/// Default `hot_space`: the hot share of each update region (core and active window).
pub const HOT_SPACE: f64 = 0.2;
/// Default `hot_access`: the probability that an update goes to its region's hot pages.
pub const HOT_ACCESS: f64 = 0.8;

/// The models' own keys as written; `None` = the model's default.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
struct OltpKeys {
    /// Initial database size as a fraction of the footprint (0.10); the database grows to the whole
    /// footprint over the run.
    d0: Option<f64>,
    /// Newest appended pages that stay updatable, as a fraction of the footprint (0.14); older
    /// appended pages freeze.
    active_window: Option<f64>,
    /// Probability that an update goes to the core (the loaded database) rather than the active
    /// window (tpcc-like 0.91, linkbench-like 0.77).
    core_share: Option<f64>,
    /// Hot share of each update region, the core and the active window (default 0.2).
    hot_space: Option<f64>,
    /// Probability that an update goes to the hot share of its region (default 0.8).
    hot_access: Option<f64>,
}

/// The models' own parameters, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OltpParams {
    /// Initial database as a share of the footprint, in (0, 1).
    pub d0: f64,
    /// Updatable appended pages as a share of the footprint, in (0, 1].
    pub active_window: f64,
    /// Probability an update goes to the core, in [0, 1].
    pub core_share: f64,
    /// Share of a region that is hot, in (0, 1).
    pub hot_space: f64,
    /// Probability an update of a region goes to its hot pages, in [0, 1].
    pub hot_access: f64,
}

impl OltpParams {
    /// The model's defaults: the shared [`D0`], [`ACTIVE_WINDOW`], [`HOT_SPACE`] and
    /// [`HOT_ACCESS`], and its own `core_share`.
    pub fn defaults(model: &Model) -> Self {
        OltpParams {
            d0: D0,
            active_window: ACTIVE_WINDOW,
            core_share: model.core_share,
            hot_space: HOT_SPACE,
            hot_access: HOT_ACCESS,
        }
    }

    fn from_keys(model: &Model, keys: &OltpKeys) -> Result<Self, Error> {
        let d = Self::defaults(model);
        let params = OltpParams {
            d0: keys.d0.unwrap_or(d.d0),
            active_window: keys.active_window.unwrap_or(d.active_window),
            core_share: keys.core_share.unwrap_or(d.core_share),
            hot_space: keys.hot_space.unwrap_or(d.hot_space),
            hot_access: keys.hot_access.unwrap_or(d.hot_access),
        };
        params.validate()?;
        Ok(params)
    }

    /// Check each parameter against its range (see the fields); an error names `workload.KEY`.
    pub fn validate(&self) -> Result<(), Error> {
        let open = |x: f64| x > 0.0 && x < 1.0;
        if !open(self.d0) {
            return Err(config("d0", format!("must be strictly between 0.0 and 1.0 (got {})", self.d0)));
        }
        if !(self.active_window > 0.0 && self.active_window <= 1.0) {
            let msg = format!("must be in (0.0, 1.0], a share of the footprint (got {})", self.active_window);
            return Err(config("active_window", msg));
        }
        for (key, share) in [("core_share", self.core_share), ("hot_access", self.hot_access)] {
            if !(0.0..=1.0).contains(&share) {
                return Err(config(key, format!("must be between 0.0 and 1.0 (got {share})")));
            }
        }
        if !open(self.hot_space) {
            return Err(config("hot_space", format!("must be strictly between 0.0 and 1.0 (got {})", self.hot_space)));
        }
        Ok(())
    }
}

/// The growth schedule, in pages of the footprint: what exists and what is frozen after any
/// number of writes. Pure arithmetic, exactly what [`OltpPicker`] follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// `N`: pages in the footprint; the database ends at this size.
    pub footprint_pages: u64,
    /// `L`: pages of the initial database (the core), written first, in order.
    pub initial_pages: u64,
    /// `w`: appended pages that stay updatable (the newest `w`).
    pub window_pages: u64,
    /// `W`: total writes of the run, `≥ N`.
    pub writes: u64,
}

impl Schedule {
    /// `initial_pages = round(d0 · N)`, `window_pages = round(active_window · N)`; errors when a
    /// region rounds to nothing or `writes < N`.
    pub fn new(footprint_pages: u64, params: &OltpParams, writes: u64, writes_key: &str) -> Result<Self, Error> {
        let n = footprint_pages as f64;
        let initial_pages = (params.d0 * n).round() as u64;
        if initial_pages == 0 || initial_pages >= footprint_pages {
            let msg = format!(
                "{} of a {footprint_pages}-page footprint leaves the core or the appended pages empty",
                params.d0
            );
            return Err(config("d0", msg));
        }
        let window_pages = (params.active_window * n).round() as u64;
        if window_pages == 0 {
            let msg = format!("{} of a {footprint_pages}-page footprint is less than a page", params.active_window);
            return Err(config("active_window", msg));
        }
        if writes < footprint_pages || writes >= 1 << 62 {
            let msg = format!(
                "{writes} page writes cannot grow the database over the footprint: give at least one write per \
                 footprint page ({footprint_pages})"
            );
            return Err(config(writes_key, msg));
        }
        let schedule = Schedule { footprint_pages, initial_pages, window_pages, writes };
        assert!(schedule.initial_pages < schedule.footprint_pages && schedule.footprint_pages <= schedule.writes);
        Ok(schedule)
    }

    /// Pages in the database after `writes_done` writes (clamped to the run).
    pub fn db_pages_after(&self, writes_done: u64) -> u64 {
        let k = writes_done.min(self.writes);
        if k <= self.initial_pages {
            return k;
        }
        let grow = (self.footprint_pages - self.initial_pages) as u128;
        let span = (self.writes - self.initial_pages) as u128;
        let pages = self.initial_pages + (grow * (k - self.initial_pages) as u128 / span) as u64;
        assert!(pages <= self.footprint_pages, "the database outgrew the footprint");
        pages
    }

    /// The frozen pages after `writes_done` writes are `[initial_pages, frozen_end)`.
    pub fn frozen_end_after(&self, writes_done: u64) -> u64 {
        let end = self.db_pages_after(writes_done).saturating_sub(self.window_pages).max(self.initial_pages);
        assert!(end >= self.initial_pages && end <= self.footprint_pages);
        end
    }

    /// Is footprint page `page` frozen (appended, out of the window) after `writes_done` writes?
    pub fn is_frozen_after(&self, page: u64, writes_done: u64) -> bool {
        page >= self.initial_pages && page < self.frozen_end_after(writes_done)
    }

    /// Writes done at progress `t` (clamped to [0, 1]): `⌊t · W⌋`.
    pub fn writes_at(&self, t: f64) -> u64 {
        ((t.clamp(0.0, 1.0) * self.writes as f64).floor() as u64).min(self.writes)
    }

    /// Is footprint page `page` frozen (appended, left the window) at progress `t`?
    pub fn is_frozen(&self, page: u64, t: f64) -> bool {
        self.is_frozen_after(page, self.writes_at(t))
    }

    /// Frozen pages as a share of the footprint at progress `t`.
    pub fn frozen_share(&self, t: f64) -> f64 {
        let end = self.frozen_end_after(self.writes_at(t));
        (end - self.initial_pages) as f64 / self.footprint_pages as f64
    }

    /// Database size as a share of the footprint at progress `t`.
    pub fn db_share(&self, t: f64) -> f64 {
        self.db_pages_after(self.writes_at(t)) as f64 / self.footprint_pages as f64
    }
}

/// Everything a model needs, parsed and validated: what [`build_model`] runs.
#[derive(Clone, Debug)]
pub struct OltpSetup {
    /// The model: its name and defaults.
    pub model: Model,
    /// Common keys; `limit` is `Requests(schedule.writes)`.
    pub common: CommonParams,
    /// The model's own parameters, defaults filled in.
    pub params: OltpParams,
    /// The growth schedule over the footprint's pages.
    pub schedule: Schedule,
}

/// Parse and validate `[workload]` (without `kind`) for `model`.
pub fn configure(model: &Model, table: toml::Table, ctx: &GenContext) -> Result<OltpSetup, Error> {
    check_align(model, &table, ctx)?;
    let writes_key = LIMIT_KEYS.iter().copied().find(|key| table.contains_key(*key));
    let (mut common, rest) = parse_common(table, ctx)?;
    reject_non_writes(model, &common, ctx)?;
    let keys: OltpKeys = parse_extras(model.name, rest, ctx)?;
    let params = OltpParams::from_keys(model, &keys)?;
    let footprint_pages = common.footprint_units();
    let writes = match (writes_key, common.limit) {
        (None, _) => (model.writes_ratio * footprint_pages as f64).round() as u64,
        (Some(_), Limit::Requests(count)) => count,
        (Some(_), Limit::Bytes(bytes)) => bytes.div_ceil(ctx.page_size),
    };
    let schedule = Schedule::new(footprint_pages, &params, writes, writes_key.unwrap_or("volume_ratio"))?;
    common.limit = Limit::Requests(writes);
    Ok(OltpSetup { model: *model, common, params, schedule })
}

/// `align` other than the page size is an error under its own name (checked before the common
/// keys, which would otherwise blame the default request size).
fn check_align(model: &Model, table: &toml::Table, ctx: &GenContext) -> Result<(), Error> {
    let bytes = match table.get("align") {
        Some(Value::Integer(n)) => u64::try_from(*n).ok(),
        Some(Value::String(s)) => parse_size(s).ok(),
        _ => None,
    };
    match bytes {
        Some(b) if b != ctx.page_size => Err(config("align", one_page_only(model, ctx, &format!("{b} B")))),
        _ => Ok(()),
    }
}

/// Reads, trims and other request sizes are errors: every request is a one-page write.
fn reject_non_writes(model: &Model, common: &CommonParams, ctx: &GenContext) -> Result<(), Error> {
    let name = model.name;
    for (key, share) in [("read_share", common.read_share), ("trim_share", common.trim_share)] {
        if share != 0.0 {
            let msg = format!("{name} issues only page writes (OLTP page flushes); {key} must be 0 (got {share})");
            return Err(config(key, msg));
        }
    }
    if common.align_bytes != ctx.page_size {
        return Err(config("align", one_page_only(model, ctx, &format!("{} B", common.align_bytes))));
    }
    if common.sizes != SizeTable::fixed(1) {
        let sizes: Vec<String> =
            common.sizes.sizes_units.iter().map(|u| format!("{} B", u * common.align_bytes)).collect();
        return Err(config("request_size", one_page_only(model, ctx, &sizes.join(", "))));
    }
    Ok(())
}

fn one_page_only(model: &Model, ctx: &GenContext, got: &str) -> String {
    format!("{} writes whole pages only; it must be the page size, {} B (got {got})", model.name, ctx.page_size)
}

/// An affine permutation of `[0, pages)`: `j ↦ (j · mul + off) mod pages`, `mul` coprime with
/// `pages`, so the first `hot` values of `j` land on `hot` distinct, evenly spread pages.
#[derive(Clone, Copy, Debug)]
pub struct Scatter {
    pages: u64,
    mul: u64,
    off: u64,
}

impl Scatter {
    /// The permutation of `[0, pages)` (`pages` at least 1) with offset `off mod pages` and as
    /// multiplier the first value from `GR_PRIME_64 mod pages` up (wrapping) coprime with `pages`.
    pub fn new(pages: u64, off: u64) -> Self {
        assert!(pages > 0, "scatter over no pages");
        let mut mul = GR_PRIME_64 % pages;
        while crate::units::gcd(mul, pages) != 1 {
            mul = (mul + 1) % pages;
        }
        let scatter = Scatter { pages, mul, off: off % pages };
        assert!(scatter.mul < pages && scatter.off < pages);
        scatter
    }

    /// The page of index `j` (`j < pages`).
    #[inline]
    pub fn page(&self, j: u64) -> u64 {
        debug_assert!(j < self.pages);
        if self.pages <= 1 << 32 {
            (j * self.mul + self.off) % self.pages // < 2^32 · 2^32 + 2^32, no overflow
        } else {
            ((j as u128 * self.mul as u128 + self.off as u128) % self.pages as u128) as u64
        }
    }
}

/// `⌈share · pages⌉`, at least 1 and at most `pages` (for `pages ≥ 1`).
fn hot_pages(share: f64, pages: u64) -> u64 {
    ((share * pages as f64).ceil() as u64).clamp(1, pages.max(1))
}

/// The page of every write, following [`Schedule`] incrementally (no division per write).
#[derive(Clone, Debug)]
pub struct OltpPicker {
    schedule: Schedule,
    /// Pages in the database; the next append (or load write) is this page.
    db_pages: u64,
    /// Bresenham accumulator of the growth `(N − L) / (W − L)` per write after the load.
    grow_acc: u64,
    grow_step: u64,
    grow_span: u64,
    /// Active window `[window_lo, db_pages)`; its hot part `[window_hot_lo, db_pages)`.
    window_lo: u64,
    window_hot_lo: u64,
    hot_space: f64,
    /// `draw53 < core_below` → core; `draw53 < hot_below` → the region's hot part.
    core_below: u64,
    hot_below: u64,
    /// Core hot pages: `core.page(j)` for `j < core_hot`.
    core: Scatter,
    core_hot: u64,
}

impl OltpPicker {
    /// Draws the core scatter offset from `rng` (its first draw).
    pub fn new(schedule: Schedule, params: &OltpParams, rng: &mut GenRng) -> Self {
        let core_pages = schedule.initial_pages;
        let off = uniform_below(rng, core_pages);
        let picker = OltpPicker {
            schedule,
            db_pages: 0,
            grow_acc: 0,
            grow_step: schedule.footprint_pages - schedule.initial_pages,
            grow_span: schedule.writes - schedule.initial_pages,
            window_lo: core_pages,
            window_hot_lo: core_pages,
            hot_space: params.hot_space,
            core_below: share_threshold(params.core_share),
            hot_below: share_threshold(params.hot_access),
            core: Scatter::new(core_pages, off),
            core_hot: hot_pages(params.hot_space, core_pages),
        };
        assert!(picker.grow_step > 0 && picker.grow_step <= picker.grow_span, "W ≥ N > L");
        picker
    }

    /// The schedule it follows.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Pages in the database so far.
    pub fn db_pages(&self) -> u64 {
        self.db_pages
    }

    #[inline]
    fn append(&mut self) -> u64 {
        let page = self.db_pages;
        self.db_pages += 1;
        assert!(self.db_pages <= self.schedule.footprint_pages, "the database outgrew the footprint");
        let l = self.schedule.initial_pages;
        self.window_lo = self.db_pages.saturating_sub(self.schedule.window_pages).max(l);
        let window = self.db_pages - self.window_lo;
        self.window_hot_lo = self.db_pages - hot_pages(self.hot_space, window);
        debug_assert!(self.window_lo <= self.window_hot_lo && self.window_hot_lo < self.db_pages);
        page
    }

    /// A page of `[lo, hi)`, its hot part being `[hot_lo, hi)`: `hot` picks the part (an empty
    /// cold part sends every pick to the hot part).
    #[inline]
    fn in_window(rng: &mut GenRng, hot: bool, lo: u64, hot_lo: u64, hi: u64) -> u64 {
        if hot || hot_lo == lo {
            hot_lo + uniform_below(rng, hi - hot_lo)
        } else {
            lo + uniform_below(rng, hot_lo - lo)
        }
    }

    #[inline]
    fn update(&mut self, rng: &mut GenRng) -> u64 {
        let to_core = draw53(rng) < self.core_below || self.window_lo == self.db_pages;
        let hot = draw53(rng) < self.hot_below;
        if to_core {
            let core_pages = self.schedule.initial_pages;
            let j = if hot || self.core_hot == core_pages {
                uniform_below(rng, self.core_hot)
            } else {
                self.core_hot + uniform_below(rng, core_pages - self.core_hot)
            };
            self.core.page(j)
        } else {
            let page = Self::in_window(rng, hot, self.window_lo, self.window_hot_lo, self.db_pages);
            debug_assert!(page >= self.window_lo && page < self.db_pages, "update outside the active window");
            page
        }
    }
}

impl Picker for OltpPicker {
    #[inline]
    fn pick(&mut self, rng: &mut GenRng, size_units: u64) -> u64 {
        assert_eq!(size_units, 1, "OLTP writes are one page");
        if self.db_pages < self.schedule.initial_pages {
            return self.append(); // the load
        }
        self.grow_acc += self.grow_step;
        if self.grow_acc >= self.grow_span {
            self.grow_acc -= self.grow_span;
            return self.append();
        }
        self.update(rng)
    }
}

/// Schema of the keys both OLTP models accept besides the common ones.
pub(super) fn params() -> schemars::Schema {
    crate::registry::schema_of::<OltpKeys>()
}

/// Build `model` from the `[workload]` table (without `kind`).
pub fn build_model(model: &Model, params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    let setup = configure(model, params, ctx)?;
    let mut rng = seeded_rng(&setup.common);
    let picker = OltpPicker::new(setup.schedule, &setup.params, &mut rng);
    Ok(Box::new(Stream::new(setup.common, rng, picker)))
}

/// Build `tpcc-like` from the `[workload]` table (without `kind`).
pub fn build_tpcc(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    build_model(&TPCC_LIKE, params, ctx)
}

/// Build `linkbench-like` from the `[workload]` table (without `kind`).
pub fn build_linkbench(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    build_model(&LINKBENCH_LIKE, params, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn schedule(n: u64, writes: u64) -> Schedule {
        Schedule::new(n, &OltpParams::defaults(&TPCC_LIKE), writes, "requests").unwrap()
    }

    #[test]
    fn schedule_loads_then_grows_to_the_footprint() {
        let s = schedule(1000, 22_900);
        assert_eq!((s.initial_pages, s.window_pages), (100, 140));
        assert_eq!(s.db_pages_after(0), 0);
        assert_eq!(s.db_pages_after(100), 100);
        assert_eq!(s.db_pages_after(22_900), 1000);
        assert_eq!(s.db_pages_after(u64::MAX), 1000);
        // 0.40 less the growth that waits for the load (0.9 · 100 / 22,900 · 0.4) and a page of
        // rounding.
        assert!((s.frozen_share(0.6) - 0.40).abs() < 0.003, "{}", s.frozen_share(0.6));
        assert_eq!(s.frozen_share(0.1), 0.0, "nothing freezes before the window fills");
        assert!(!s.is_frozen(0, 1.0) && !s.is_frozen(99, 1.0), "core pages never freeze");
        assert!(s.is_frozen(100, 1.0) && !s.is_frozen(1000 - 140, 1.0) && s.is_frozen(1000 - 141, 1.0));
    }

    #[test]
    fn the_picker_follows_the_schedule_exactly() {
        for (n, writes) in [(1000, 1000), (1000, 1001), (1000, 22_900), (37, 5_000)] {
            let s = schedule(n, writes);
            let mut rng = GenRng::seed_from_u64(3);
            let mut p = OltpPicker::new(s, &OltpParams::defaults(&TPCC_LIKE), &mut rng);
            for k in 1..=writes {
                let before = p.db_pages();
                let page = p.pick(&mut rng, 1);
                assert_eq!(p.db_pages(), s.db_pages_after(k), "n {n}, W {writes}, after {k} writes");
                if p.db_pages() > before {
                    assert_eq!(page, before, "an append writes the next page");
                } else {
                    assert!(page < before && !s.is_frozen_after(page, k), "update of {page} after {k}");
                }
            }
        }
    }

    #[test]
    fn scatter_is_a_permutation() {
        for pages in [1, 2, 10, 97, 256, 1000] {
            let s = Scatter::new(pages, 12_345);
            let mut seen = vec![false; pages as usize];
            for j in 0..pages {
                seen[s.page(j) as usize] = true;
            }
            assert!(seen.iter().all(|&x| x), "{pages}");
        }
    }

    #[test]
    fn hot_parts_are_at_least_one_page() {
        assert_eq!(hot_pages(0.2, 1), 1);
        assert_eq!(hot_pages(0.2, 10), 2);
        assert_eq!(hot_pages(0.2, 11), 3);
        assert_eq!(hot_pages(0.99, 3), 3);
    }

    #[test]
    fn bad_values_name_their_key() {
        let d = OltpParams::defaults(&LINKBENCH_LIKE);
        let cases = [
            (OltpParams { d0: 0.0, ..d }, "workload.d0"),
            (OltpParams { d0: 1.0, ..d }, "workload.d0"),
            (OltpParams { active_window: 0.0, ..d }, "workload.active_window"),
            (OltpParams { active_window: 1.5, ..d }, "workload.active_window"),
            (OltpParams { core_share: -0.1, ..d }, "workload.core_share"),
            (OltpParams { hot_access: 1.1, ..d }, "workload.hot_access"),
            (OltpParams { hot_space: 1.0, ..d }, "workload.hot_space"),
            (OltpParams { hot_space: f64::NAN, ..d }, "workload.hot_space"),
        ];
        for (params, key) in cases {
            let e = params.validate().unwrap_err().to_string();
            assert!(e.contains(key), "{params:?}: {e}");
        }
        let e = Schedule::new(4, &d, 100, "requests").unwrap_err().to_string();
        assert!(e.contains("workload.d0"), "round(0.1 · 4) = 0 core pages: {e}");
        let e = Schedule::new(1000, &d, 999, "requests").unwrap_err().to_string();
        assert!(e.contains("workload.requests") && e.contains("at least"), "{e}");
    }
}
