//! The pipeline: build the stack from a validated [`Config`], precondition, stream the workload
//! through host → buffer → FTL → NAND, and collect [`Results`].
//!
//! Time: in accounting mode every operation happens at t = 0; in timing mode requests issue at
//! their trace timestamps (open loop) or when one of `queue_depth` slots frees (closed loop),
//! and completion times come from the NAND timeline. Randomness: every component's seed is
//! derived from `config.seed` by [`derive_seed`]. No wall-clock time reaches a decision.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::buffer;
use crate::config::{Config, Mode, Resolved};
use crate::device::{Device, FlashState};
use crate::error::{Error, Location};
use crate::ftl::{self, FtlCounters, GcReport, HybridReport, MappingReport};
use crate::hint::UPDATE_AHEAD;
use crate::host::{self, Arrival, HostLayer, OutOfRange};
use crate::nand::{NandCounters, Wear};
use crate::results::*;
use crate::stats::series::{IntervalLatency, Sample};
use crate::stats::{Histogram, IntervalHistogram, Series};
use crate::units::{Lpn, Nanos};
use crate::workload::{Op, Request, Workload};

mod plan;
pub use plan::{build_workload, estimate, memory_limit, validate, Plan, RunBound, TRACE_CAPACITIES};

/// Receives progress updates (the CLI draws a bar; the library does no I/O).
pub trait Progress {
    /// A phase starts: `name` for display, `total` units of work (pages when preconditioning, the
    /// workload's own progress unit when simulating; 0 when unknown). Default: nothing.
    fn phase(&mut self, _name: &str, _total: u64) {}
    /// `done` of the phase's `total` units are done; called now and then, not per unit. Default:
    /// nothing.
    fn update(&mut self, _done: u64) {}
    /// The measured phase has run to its end. Default: nothing.
    fn finish(&mut self) {}
    /// Asked now and then (every 16,384 requests or 65,536 preconditioning pages): `true` stops
    /// the run with [`Error::Interrupted`] (e.g. Ctrl-C in a Python session).
    fn cancelled(&mut self) -> bool {
        false
    }
}

/// Progress sink that ignores everything.
pub struct Quiet;
impl Progress for Quiet {}

pub use crate::seed::derive_seed;

/// Build the device stack for a config.
pub fn build_device(cfg: &Config, r: &Resolved) -> Result<Device, Error> {
    build_device_on(cfg, r, None)
}

/// The device stack, over a copy of a preconditioned flash when one is given.
fn build_device_on(cfg: &Config, r: &Resolved, flash: Option<FlashState>) -> Result<Device, Error> {
    let buffer = build_buffer(cfg, r)?;
    let mut dev = match flash {
        Some(f) => Device::from_flash(buffer, f, r.page_size, cfg.sim.check),
        None => {
            let spec = cfg.ftl_spec(r);
            Device::new(buffer, ftl::build(&spec)?, r.page_size, spec.verify, cfg.sim.check)
        }
    };
    if cfg.host.out_of_range == OutOfRange::Compact {
        dev.compact_addresses(r.layout.geo.pages_per_block as u64);
    }
    Ok(dev)
}

/// The write buffer, refused before anything is allocated if it is larger than the device.
fn build_buffer(cfg: &Config, r: &Resolved) -> Result<Box<dyn buffer::WriteBuffer>, Error> {
    let Some(buffered) = cfg.buffer.dram.0.checked_add(cfg.buffer.nvram.0) else {
        return Err(Error::config("buffer.nvram", "buffer.dram + buffer.nvram exceeds 2^64 bytes"));
    };
    if cfg.buffer.policy != "none" && buffered / r.page_size > r.logical_pages {
        // Name the key that was given: the one memory, or both.
        let (key, what) = match (cfg.buffer.dram.0, cfg.buffer.nvram.0) {
            (0, _) => ("buffer.nvram", "an NVRAM buffer".to_string()),
            (_, 0) => ("buffer.dram", "a DRAM buffer".to_string()),
            (d, n) => ("buffer.dram", format!("buffer.dram + buffer.nvram ({d} + {n} bytes)")),
        };
        return Err(Error::config(
            key,
            format!(
                "{what} of {buffered} bytes is larger than the device's logical capacity ({} bytes)",
                r.logical_pages.saturating_mul(r.page_size)
            ),
        ));
    }
    buffer::build(&cfg.buffer, &buffer_context(cfg, r))
}

/// What the buffer is told about the device: page and block size, and in timing mode its
/// memories' page access times.
fn buffer_context(cfg: &Config, r: &Resolved) -> buffer::BufferContext {
    let timing = (cfg.sim.mode == Mode::Timing).then(|| {
        let (dram_ns, nvram_ns) = cfg.timing.buffer_page_ns(r.page_size);
        buffer::BufferTiming { dram_ns, nvram_ns }
    });
    buffer::BufferContext { page_size: r.page_size, pages_per_block: r.layout.geo.pages_per_block as u64, timing }
}

/// Whether requests issue at their own times (`host.arrival`: open, or auto with a trace) rather
/// than when a queue slot frees.
pub fn open_loop(cfg: &Config) -> bool {
    match cfg.host.arrival {
        Arrival::Open => true,
        Arrival::Closed => false,
        Arrival::Auto => cfg.workload.get("kind").and_then(|k| k.as_str()) == Some("trace"),
    }
}

/// Run a whole simulation: [`Plan::new`], then [`Plan::run`].
pub fn run(cfg: &Config, progress: &mut dyn Progress) -> Result<Results, Error> {
    Plan::new(cfg.clone())?.run(progress)
}

/// Run a simulation on a copy of a preconditioned flash (from [`preconditioned`] with a config
/// of the same [`precondition_key`]) instead of preconditioning: results are identical to
/// [`run`]'s except `sim.precondition_wall_s`, the time taken to copy the state.
pub fn run_from(cfg: &Config, state: &Preconditioned, progress: &mut dyn Progress) -> Result<Results, Error> {
    Plan::new(cfg.clone())?.run_from(state, progress)
}

/// The flash as preconditioning left it, before the measured phase: what any run of the same
/// [`precondition_key`] starts from, whatever its buffer, host layer or workload.
#[derive(Clone)]
pub struct Preconditioned {
    key: String,
    flash: FlashState,
}

/// What identifies a preconditioned flash: the seed and every section the FTL's state after
/// preconditioning depends on (device, timing, FTL, preconditioning, mode, version tags). `None`
/// when preconditioning writes nothing (nothing to share).
pub fn precondition_key(cfg: &Config) -> Option<String> {
    let p = &cfg.precondition;
    if !p.fill && p.overwrite <= 0.0 || through_host(cfg) {
        return None;
    }
    let verify = cfg.sim.verify || cfg.sim.crash_at.is_some();
    let key = serde_json::json!([cfg.seed, cfg.device, cfg.timing, cfg.ftl, p, cfg.sim.mode, verify]);
    Some(key.to_string())
}

/// Precondition the flash `cfg` describes, once, for [`run_from`].
pub fn preconditioned(cfg: &Config, progress: &mut dyn Progress) -> Result<Preconditioned, Error> {
    preconditioned_by(cfg, PreconditionPath::Direct, progress)
}

/// [`preconditioned`], written the way `path` says (the reference paths are for tests).
pub fn preconditioned_by(
    cfg: &Config,
    path: PreconditionPath,
    progress: &mut dyn Progress,
) -> Result<Preconditioned, Error> {
    let key = precondition_key(cfg)
        .ok_or_else(|| Error::config("precondition", "nothing to share: fill is off and overwrite is 0"))?;
    // Validated (memory limit included) before the device is allocated.
    let r = *Plan::new(cfg.clone())?.resolved();
    let mut dev = build_device(cfg, &r)?;
    precondition(cfg, &mut dev, path, progress)?;
    Ok(Preconditioned { key, flash: dev.flash_state() })
}

impl Preconditioned {
    /// The preconditioned flash (FTL, NAND, version tags).
    pub fn flash(&self) -> &FlashState {
        &self.flash
    }
}

/// How preconditioning writes. Every path leaves the same flash (`tests/precondition.rs`); the
/// two page-by-page ones are the references the direct one is tested against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreconditionPath {
    /// What runs use: no clock; the sequential fill built directly where the FTL can
    /// ([`Device::fill_sequential`]), else page by page; the random overwrite page by page.
    Direct,
    /// No clock; every page written through the FTL's write path, a request of its own.
    PageByPage,
    /// Page by page with the timeline booked (timing mode), reset afterwards: preconditioning
    /// before it ran without a clock. The same flash, except under `striping = "dynamic"` in
    /// timing mode, whose placement followed that clock (every write issued at t = 0).
    Clocked,
}

/// Preconditioned flashes shared by a batch of runs (a sweep over buffers, workloads or host
/// settings on one drive): each is made once, by the first run that needs it while the others
/// with its key wait, and dropped after the last run that uses it. Keys used by one run only
/// are not pooled. Results are [`run`]'s, bit for bit, except the preconditioning wall time.
pub struct PreconditionPool {
    slots: Mutex<HashMap<String, Slot>>,
}

struct Slot {
    state: Arc<OnceLock<Option<Preconditioned>>>,
    /// Runs still to use it.
    users: usize,
}

impl PreconditionPool {
    /// A pool for the runs of `configs` (each config once per run it will make).
    pub fn new<'a>(configs: impl IntoIterator<Item = &'a Config>) -> Self {
        let mut slots: HashMap<String, Slot> = HashMap::new();
        for key in configs.into_iter().filter_map(precondition_key) {
            slots.entry(key).or_insert_with(|| Slot { state: Arc::default(), users: 0 }).users += 1;
        }
        slots.retain(|_, s| s.users > 1);
        PreconditionPool { slots: Mutex::new(slots) }
    }

    /// Run `cfg`, from its pooled preconditioned flash when it has one. A preconditioning that
    /// fails is not pooled: the run then preconditions itself and reports its own error.
    pub fn run(&self, cfg: &Config, progress: &mut dyn Progress) -> Result<Results, Error> {
        let Some(key) = precondition_key(cfg) else { return run(cfg, progress) };
        let Some(state) = self.lock().get(&key).map(|s| s.state.clone()) else { return run(cfg, progress) };
        let made = state.get_or_init(|| preconditioned(cfg, progress).ok());
        let result = match made {
            Some(s) => run_from(cfg, s, progress),
            None => run(cfg, progress),
        };
        let mut slots = self.lock();
        if let Some(s) = slots.get_mut(&key) {
            s.users -= 1;
            if s.users == 0 {
                slots.remove(&key);
            }
        }
        result
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn run_parts(
    cfg: &Config,
    r: &Resolved,
    mut workload: Box<dyn Workload>,
    state: Option<&Preconditioned>,
    progress: &mut dyn Progress,
) -> Result<Results, Error> {
    if let Some(s) = state {
        if precondition_key(cfg).as_deref() != Some(s.key.as_str()) {
            return Err(Error::config(
                "precondition",
                "the preconditioned state was made for another device, FTL, seed or preconditioning",
            ));
        }
    }
    let t0 = Instant::now();
    let mut dev = build_device_on(cfg, r, state.map(|s| s.flash.clone()))?;
    // From a shared state, "preconditioning" is the copy of it.
    let copy_s = if state.is_some() { t0.elapsed().as_secs_f64() } else { 0.0 };
    let mut host = host::build(&cfg.host, &cfg.host_context(r))?;
    let t1 = Instant::now();
    if through_host(cfg) {
        if cfg.precondition.fill || cfg.precondition.overwrite > 0.0 {
            check_trace(cfg, r)?;
        }
        precondition_host(cfg, r, &mut dev, host.as_mut(), progress)?;
    } else if state.is_none() {
        if precondition_key(cfg).is_some() {
            check_trace(cfg, r)?;
        }
        precondition(cfg, &mut dev, PreconditionPath::Direct, progress)?;
    }
    let precondition_wall_s = copy_s + t1.elapsed().as_secs_f64();
    let open_loop = open_loop(cfg);
    if cfg.sim.track_frozen {
        dev.track_last_writes();
    }
    dev.ftl.start_measure();
    let mut m = Measure::new(cfg, &dev, r.logical_pages);
    let t1 = Instant::now();
    progress.phase("simulating", workload.progress().map_or(0, |p| p.1));
    let crashed = m.drive(cfg, &mut dev, host.as_mut(), workload.as_mut(), open_loop, progress)?;
    progress.finish();
    let wall_s = t1.elapsed().as_secs_f64();
    let crash_at = Nanos(m.last_done);
    let mut results = m.finish(cfg, r, &mut dev, wall_s, precondition_wall_s);
    if crashed {
        // After the results are taken, so the restart check's reads are not counted.
        results.buffer.crash = Some(dev.crash(crash_at)?);
    }
    Ok(results)
}

/// Requests (preconditioning: pages) read ahead in a batch, each one's mapping prefetched as
/// it is read ([`Device::prefetch`]).
const BATCH: usize = 16;

/// Fill sequentially, then overwrite uniformly at random, straight to the FTL (the buffer
/// starts empty and counts only the measured phase), each page write a request of its own (so a
/// schedule's background GC runs as it would), without a clock: every write is issued at t = 0
/// and the timeline would be forgotten afterwards, so booking it would only cost time (only
/// `dynamic` striping in timing mode reads the clock, and then places as in accounting mode).
fn precondition(
    cfg: &Config,
    dev: &mut Device,
    path: PreconditionPath,
    progress: &mut dyn Progress,
) -> Result<(), Error> {
    let clock = (path != PreconditionPath::Clocked).then(|| dev.ftl.nand_mut().detach_timeline());
    let result = precondition_writes(cfg, dev, path, progress);
    if let Some(timeline) = clock {
        dev.ftl.nand_mut().attach_timeline(timeline);
    }
    if let Some(tl) = dev.ftl.nand_mut().timeline_mut() {
        tl.reset();
    }
    result
}

/// Does preconditioning write through the host layer? A layer that keeps its own log on a
/// zoned device (`log`) must see every write, so its device's state is its own (never shared
/// through a [`PreconditionPool`]).
fn through_host(cfg: &Config) -> bool {
    host::HOST_LAYERS.get(&cfg.host.layer).is_some_and(|e| e.caps.zoned)
}

/// [`precondition`] through the host layer: the same pages in the same order as the direct
/// path writes (the fill in address order, then the overwrite's draws from the same seed), as
/// one-page write requests at time 0 with the device's clock detached, so a zoned device
/// under `log` starts where the conventional SSD does.
fn precondition_host(
    cfg: &Config,
    r: &Resolved,
    dev: &mut Device,
    host: &mut dyn host::HostLayer,
    progress: &mut dyn Progress,
) -> Result<(), Error> {
    let clock = dev.ftl.nand_mut().detach_timeline();
    let result = (|| {
        let p = &cfg.precondition;
        let n = r.logical_pages;
        let mut write = |lpn: u64| -> Result<(), Error> {
            let req = Request {
                time_ns: 0,
                op: Op::Write,
                offset: lpn * r.page_size,
                len: r.page_size,
                placement: None,
                file: None,
            };
            host.submit(&req, Nanos::ZERO, dev)?;
            dev.end_request(Nanos::ZERO)
        };
        let mut tick = |done: u64| {
            if done & 0xFFFF == 0 {
                progress.update(done);
                if progress.cancelled() {
                    return Err(Error::Interrupted);
                }
            }
            Ok(())
        };
        if p.fill {
            for lpn in 0..n {
                write(lpn)?;
                tick(lpn)?;
            }
        }
        if p.overwrite > 0.0 {
            let total = (p.overwrite * n as f64) as u64;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(derive_seed(cfg.seed, "precondition"));
            for i in 0..total {
                write(rng.random_range(0..n))?;
                tick(i)?;
            }
        }
        Ok(())
    })();
    dev.ftl.nand_mut().attach_timeline(clock);
    if let Some(tl) = dev.ftl.nand_mut().timeline_mut() {
        tl.reset();
    }
    result
}

fn precondition_writes(
    cfg: &Config,
    dev: &mut Device,
    path: PreconditionPath,
    progress: &mut dyn Progress,
) -> Result<(), Error> {
    let p = &cfg.precondition;
    let n = dev.logical_pages();
    if p.fill {
        progress.phase("precondition: fill", n);
        if path == PreconditionPath::Direct && dev.fill_sequential()? {
            progress.update(n);
        } else {
            for lpn in 0..n {
                dev.write_through(Lpn(lpn), Nanos::ZERO)?;
                dev.end_request(Nanos::ZERO)?;
                if lpn & 0xFFFF == 0 {
                    progress.update(lpn);
                    if progress.cancelled() {
                        return Err(Error::Interrupted);
                    }
                }
            }
        }
    }
    if p.overwrite > 0.0 {
        // overwrite <= 1000 and n < 2^32 (validated): the product fits a u64 exactly enough.
        let total = (p.overwrite * n as f64) as u64;
        progress.phase("precondition: random overwrite", total);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(derive_seed(cfg.seed, "precondition"));
        // As the measured phase's drive loop does: pages drawn a batch ahead of the batch being
        // written (the same draws in the same order), each one's mapping fetched as it is drawn
        // and its old page's state a few writes before it is written.
        let mut pages: Vec<u64> = Vec::with_capacity(2 * BATCH);
        let mut drawn = 0u64;
        let mut draw = |pages: &mut Vec<u64>, drawn: &mut u64, dev: &Device| {
            let k = (total - *drawn).min(BATCH as u64) as usize;
            for _ in 0..k {
                let lpn = rng.random_range(0..n);
                dev.ftl.prefetch(Lpn(lpn));
                pages.push(lpn);
            }
            *drawn += k as u64;
        };
        draw(&mut pages, &mut drawn, dev);
        let mut i = 0;
        while i < total {
            let k = (total - i).min(BATCH as u64) as usize;
            draw(&mut pages, &mut drawn, dev);
            // The batch in one call where the device can (accounting's fast path), else page by
            // page; the pages after it are there for the prefetch stages.
            let direct = path == PreconditionPath::Direct;
            if direct && dev.write_through_untimed(&pages, k, Nanos::ZERO)? {
                if (i >> 16) != ((i + k as u64 - 1) >> 16) || i & 0xFFFF == 0 {
                    progress.update(i);
                    if progress.cancelled() {
                        return Err(Error::Interrupted);
                    }
                }
                i += k as u64;
                pages.drain(..k);
                continue;
            }
            for j in 0..k {
                if let Some(&next) = pages.get(j + UPDATE_AHEAD) {
                    dev.ftl.prefetch_update(Lpn(next));
                }
                dev.write_through(Lpn(pages[j]), Nanos::ZERO)?;
                dev.end_request(Nanos::ZERO)?;
                if i & 0xFFFF == 0 {
                    progress.update(i);
                    if progress.cancelled() {
                        return Err(Error::Interrupted);
                    }
                }
                i += 1;
            }
            pages.drain(..k);
        }
    }
    Ok(())
}

/// When requests arrive: at their trace time (open loop), or as soon as one of the host's
/// `queue_depth` slots is free (closed loop; completions are waited for only in timing mode,
/// where they take time).
struct Arrivals {
    /// Completion times of the requests in flight (closed loop, timing mode). Grown by need: a
    /// queue holds at most min(queue depth, requests) completions, and the depth is a user's
    /// number (4294967295 must not reserve 32 GiB up front).
    slots: BinaryHeap<Reverse<u64>>,
    depth: usize,
    /// The closed loop's clock: when the last request was issued.
    now: u64,
    open_loop: bool,
    /// Completions are waited for: closed loop in timing mode.
    waits: bool,
}

impl Arrivals {
    fn new(depth: usize, open_loop: bool, timing: bool) -> Self {
        Arrivals { slots: BinaryHeap::new(), depth, now: 0, open_loop, waits: !open_loop && timing }
    }

    /// The issue time of `req`, the next request.
    #[inline(always)]
    fn arrive(&mut self, req: &Request) -> u64 {
        if self.open_loop {
            return req.time_ns;
        }
        if self.slots.len() >= self.depth {
            let Reverse(t) = self.slots.pop().expect("queue is full so not empty");
            self.now = self.now.max(t);
        }
        self.now
    }

    /// The request just issued completes at `done`.
    #[inline(always)]
    fn complete(&mut self, done: u64) {
        if self.waits {
            self.slots.push(Reverse(done));
        }
    }
}

/// Serve `req`, issued at `issue`, through the host layer and the device, then the device's
/// after-request work; returns its completion.
#[inline(always)]
fn serve_one(host: &mut dyn HostLayer, dev: &mut Device, req: &Request, issue: u64) -> Result<Nanos, Error> {
    let done = host.submit(req, Nanos(issue), dev)?;
    dev.end_request(Nanos(issue))?;
    check_clock(done.0)?;
    Ok(done)
}

/// A zone error (what a zoned device refuses) raised by the request just served, placed at
/// its trace line.
#[cold]
fn located(e: Error, wl: &dyn Workload) -> Error {
    match e {
        Error::Zone(msg) => Error::input(
            wl.location().unwrap_or_else(|| Location::file("workload")).with_field("offset"),
            format!("zone error: {msg}"),
        ),
        e => e,
    }
}

/// A completion time at the clock's limit: the timeline saturated there (it never wraps), so the
/// run stops rather than report it.
fn check_clock(done_ns: u64) -> Result<(), Error> {
    if done_ns < crate::nand::timing::CLOCK_LIMIT_NS {
        return Ok(());
    }
    Err(Error::config(
        "timing",
        "the simulated clock reached its limit of 2^64 ns (584 years): the workload's timestamps \
         (or iat_ns) or the flash timings are too large for this run",
    ))
}

/// Bytes in a MiB: throughput is in MiB/s, as sizes in configs are binary.
const MIB: f64 = (1u64 << 20) as f64;

/// State of the measured phase.
struct Measure {
    host: HostStats,
    base_nand: NandCounters,
    base_ftl: FtlCounters,
    base_gc: GcReport,
    base_mapping: Option<MappingReport>,
    base_hybrid: Option<HybridReport>,
    base_placement: Option<crate::ftl::placement::PlacementReport>,
    base_zones: Option<crate::ftl::zns::ZoneReport>,
    /// Device write clock at the start of the measured phase (for the frozen share).
    base_writes: u64,
    series: Series,
    read_lat: Histogram,
    write_lat: Histogram,
    /// Timing mode: the latencies of the series interval in progress and by request size.
    timed: Option<Box<TimedLatencies>>,
    first_issue: Option<u64>,
    /// The latest issue (arrival, in an open-loop run) seen.
    last_issue: u64,
    last_done: u64,
    capacity: u64,
    exposure: Exposure,
    /// Write requests whose placement identifier the device ignored (no `[ftl.placement]`).
    unplaced: u64,
    reuse: Option<crate::stats::ReuseDistance>,
    /// With `host.out_of_range = "wrap"`: which original addresses met on each page.
    wrap: Option<std::cell::RefCell<WrapTrack>>,
}

/// What wrapping addresses did (`host.out_of_range = "wrap"`): a tag per logical page, the
/// wrap round (original address / capacity, plus one, saturating) of the first request that
/// touched it, and a top bit once requests of two different rounds have — distinct pages of the
/// workload that became one page of the device.
struct WrapTrack {
    page_size: u64,
    tags: Vec<u16>,
    wrapped_requests: u64,
    collided_pages: u64,
}

/// The top bit of a [`WrapTrack`] tag: the page has collided.
const COLLIDED: u16 = 0x8000;

impl WrapTrack {
    /// A request placed at `offset` (already wrapped), `len` bytes, from wrap round `round`.
    #[inline]
    fn note(&mut self, offset: u64, len: u64, round: u64) {
        let tag = (round.saturating_add(1)).min(COLLIDED as u64 - 1) as u16;
        let first = offset / self.page_size;
        let end = offset.saturating_add(len).div_ceil(self.page_size).min(self.tags.len() as u64);
        for t in &mut self.tags[first.min(end) as usize..end as usize] {
            if *t == 0 {
                *t = tag;
            } else if *t & !COLLIDED != tag && *t & COLLIDED == 0 {
                *t |= COLLIDED;
                self.collided_pages += 1;
            }
        }
    }

    /// The warning, when distinct pages collided.
    fn warning(&self, capacity: u64) -> Option<String> {
        (self.collided_pages > 0).then(|| {
            format!(
                "{} requests lay beyond the logical capacity of {capacity} bytes and were wrapped onto it \
                 (host.out_of_range = \"wrap\"): {} logical pages received data from more than one original address, \
                 so distinct pages of the workload became one and their overwrites and reads are not the workload's; \
                 host.out_of_range = \"compact\" remaps the addresses used without collisions, or use a device as \
                 large as the workload's span",
                self.wrapped_requests, self.collided_pages
            )
        })
    }
}

/// Power-loss exposure over host requests: peak, sum (for the mean) and a coarsening trace of
/// at most 64 points (the sampling step doubles when it fills).
#[derive(Default)]
struct Exposure {
    peak: u64,
    sum: u128,
    step: u64,
    points: Vec<(u64, u64)>,
}

impl Exposure {
    #[inline]
    fn record(&mut self, request: u64, pages: u64) {
        self.peak = self.peak.max(pages);
        self.sum += pages as u128;
        if request >= self.step.max(1) * (self.points.len() as u64 + 1) {
            self.points.push((request, pages));
            if self.points.len() >= 64 {
                self.points = self.points.iter().skip(1).step_by(2).copied().collect();
                self.step = self.step.max(1) * 2;
            }
        }
    }
}

impl Measure {
    /// `logical_pages`: what the workload addresses (the host layer's, which a zoned device's
    /// zones may exceed).
    fn new(cfg: &Config, dev: &Device, logical_pages: u64) -> Self {
        Measure {
            host: HostStats::default(),
            base_nand: dev.ftl.nand().counters,
            base_ftl: dev.ftl.counters(),
            base_gc: dev.ftl.gc_report(),
            base_mapping: dev.ftl.mapping_report(),
            base_hybrid: dev.ftl.hybrid_report(),
            base_placement: dev.ftl.placement_report(),
            base_zones: dev.ftl.zone_report(),
            base_writes: dev.writes(),
            series: match cfg.sim.interval_writes {
                Some(step) => Series::fixed(step),
                None => Series::new(cfg.sim.intervals),
            },
            read_lat: Histogram::default(),
            write_lat: Histogram::default(),
            timed: (cfg.sim.mode == Mode::Timing).then(Box::default),
            first_issue: None,
            last_issue: 0,
            last_done: 0,
            capacity: logical_pages * dev.page_size(),
            exposure: Exposure::default(),
            unplaced: 0,
            reuse: cfg.sim.reuse_distance.then(crate::stats::ReuseDistance::new),
            wrap: (cfg.host.out_of_range == OutOfRange::Wrap).then(|| {
                std::cell::RefCell::new(WrapTrack {
                    page_size: dev.page_size(),
                    tags: vec![0; logical_pages as usize],
                    wrapped_requests: 0,
                    collided_pages: 0,
                })
            }),
        }
    }

    fn sample(&self, dev: &Device) -> Sample {
        let n = dev.ftl.nand().counters;
        let f = dev.ftl.counters();
        let g = dev.ftl.gc_report().minus(&self.base_gc);
        Sample {
            host_writes: f.host_writes - self.base_ftl.host_writes,
            flash_programs: n.programs - self.base_nand.programs,
            erases: n.erases - self.base_nand.erases,
            gc_copies: f.gc_copies - self.base_ftl.gc_copies,
            moved_into_cold: g.moved_into_cold,
            returned: g.returned,
            bytes: self.host.read_bytes + self.host.write_bytes,
            clock_ns: self.last_done.saturating_sub(self.first_issue.unwrap_or(self.last_done)),
        }
    }

    /// The latencies of the interval that ends now (timing mode), starting the next.
    fn take_interval(&mut self) -> Option<IntervalLatency> {
        self.timed.as_mut().map(|t| IntervalLatency { read: t.interval[0].take(), write: t.interval[1].take() })
    }

    /// Serve the workload: requests read in batches ([`Measure::read_batch`]); each one arrives
    /// ([`Arrivals::arrive`]), is served ([`serve_one`], or a run of one-page writes at once in
    /// accounting's fast path, [`Measure::serve_untimed`]) and observed
    /// ([`Measure::observe`]). Returns whether the simulated power failed (`sim.crash_at`);
    /// otherwise the buffer is flushed at the end.
    fn drive(
        &mut self,
        cfg: &Config,
        dev: &mut Device,
        host: &mut dyn HostLayer,
        wl: &mut dyn Workload,
        open_loop: bool,
        progress: &mut dyn Progress,
    ) -> Result<bool, Error> {
        let timing = cfg.sim.mode == Mode::Timing;
        let mut queue = Arrivals::new(cfg.host.queue_depth as usize, open_loop, timing);
        let base_writes = self.base_ftl.host_writes;
        // Requests are read (and range-checked) in batches, and the device is told each one's
        // first page as it is read, so its mapping is on its way to the cache by the time the
        // request is served: the window holds the batch being served and, after it, the batch
        // read next. An error met while reading is returned after the requests before it are
        // served, so errors come in the order they would one request at a time. The second
        // stage (the old page's validity and counters) is asked for UPDATE_AHEAD requests
        // before one is served (across the batches), once its mapping has had time to arrive.
        let mut window: Vec<Request> = Vec::with_capacity(2 * BATCH);
        // Accounting, closed loop, through the pass-through host layer: a batch of one-page
        // writes may go to the device in runs (`serve_untimed`).
        let untimed =
            !timing && !open_loop && host.passes_through() && self.reuse.is_none() && cfg.sim.crash_at.is_none();
        let mut lpns: Vec<u64> = Vec::with_capacity(2 * BATCH);
        let mut ids: Vec<Option<u16>> = Vec::new();
        let mut pending: Option<Error> = None;
        let mut ended = false;
        loop {
            let read_before = window.len();
            if !ended && pending.is_none() {
                ended = self.read_batch(cfg, dev, wl, &mut window, &mut pending);
            }
            // The batch read before this one; all that is left once nothing more comes.
            let last = ended || pending.is_some();
            let batch_end = if last { window.len() } else { read_before };
            let (batch, ahead) = window.split_at(batch_end);
            let served = if untimed {
                self.serve_untimed(batch, ahead, queue.now, dev, wl, progress, base_writes, (&mut lpns, &mut ids))?
            } else {
                0
            };
            for (i, &req) in batch.iter().enumerate().skip(served) {
                if let Some(next) = window.get(i + UPDATE_AHEAD) {
                    dev.prefetch_update(next.offset, next.len);
                }
                let issue = queue.arrive(&req);
                if timing {
                    dev.before_request(Nanos(issue))?;
                }
                let Nanos(done) = serve_one(host, dev, &req, issue).map_err(|e| located(e, wl))?;
                queue.complete(done);
                if self.observe(cfg, &req, issue, done, dev, wl, progress, base_writes)? {
                    return Ok(true);
                }
            }
            window.drain(..batch_end);
            if let Some(e) = pending.take() {
                return Err(e);
            }
            if last {
                break;
            }
        }
        if let Some(n) = cfg.sim.crash_at {
            return Err(Error::config(
                "sim.crash_at",
                format!(
                    "power was to fail after request {n}, but the workload ended after {} requests",
                    self.host.requests
                ),
            ));
        }
        let t = self.last_done;
        self.last_done = self.last_done.max(dev.flush(Nanos(t))?.0);
        check_clock(self.last_done)?;
        Ok(false)
    }

    /// What a served request leaves to be measured: its latency and size, reuse distances,
    /// the time series, progress and cancellation, the buffer's exposure. Returns whether the
    /// simulated power fails here (`sim.crash_at`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn observe(
        &mut self,
        cfg: &Config,
        req: &Request,
        issue: u64,
        done: u64,
        dev: &Device,
        wl: &dyn Workload,
        progress: &mut dyn Progress,
        base_writes: u64,
    ) -> Result<bool, Error> {
        let (first, last) = dev.page_span(req.offset, req.len);
        self.account(req, issue, done, last - first + 1);
        if req.placement.is_some() && req.op == Op::Write && !dev.places_writes() {
            self.unplaced += 1;
        }
        if let Some(rd) = self.reuse.as_mut().filter(|_| req.op != Op::Trim) {
            (first..=last).for_each(|lpn| rd.access(lpn));
        }
        if self.series.due(dev.ftl.host_writes() - base_writes) {
            let s = self.sample(dev);
            let latency = self.take_interval();
            self.series.record_with(s, latency);
        }
        if self.host.requests & 0x3FFF == 0 {
            if let Some((d, _)) = wl.progress() {
                progress.update(d);
            }
            if progress.cancelled() {
                return Err(Error::Interrupted);
            }
        }
        self.exposure.record(self.host.requests, dev.buffer.exposed());
        Ok(cfg.sim.crash_at == Some(self.host.requests))
    }

    /// Append the next batch of up to [`BATCH`] requests to `window`, each range-checked and its
    /// first page's mapping prefetched ([`Device::prefetch`]) as it is read. Returns whether the
    /// workload has ended; an error met (reading or range-checking) goes to `pending`, with the
    /// requests before it kept and none after it.
    fn read_batch(
        &self,
        cfg: &Config,
        dev: &Device,
        wl: &mut dyn Workload,
        window: &mut Vec<Request>,
        pending: &mut Option<Error>,
    ) -> bool {
        let from = window.len();
        if wl.next_batch(window, from + BATCH) {
            // A generator's batch: read ahead at once, then range-checked in order.
            let ended = window.len() < from + BATCH;
            let bad =
                window[from..].iter_mut().position(|req| match self.check_range(req, cfg.host.out_of_range, wl) {
                    Ok(()) => {
                        dev.prefetch(req.offset, req.len);
                        false
                    }
                    Err(e) => {
                        *pending = Some(e);
                        true
                    }
                });
            if let Some(i) = bad {
                window.truncate(from + i);
            }
            return ended;
        }
        while window.len() < from + BATCH {
            match wl.next_request() {
                Ok(Some(mut req)) => {
                    if let Err(e) = self.check_range(&mut req, cfg.host.out_of_range, wl) {
                        *pending = Some(e);
                        break;
                    }
                    dev.prefetch(req.offset, req.len);
                    window.push(req);
                }
                Ok(None) => return true,
                Err(e) => {
                    *pending = Some(e);
                    break;
                }
            }
        }
        false
    }

    /// Accounting's fast path, for a batch of requests read ahead in a closed loop through the
    /// pass-through host layer (`ahead`: the requests that follow, for prefetching only): when
    /// every request of `batch` is a one-page write, the device writes them
    /// past the host and buffer layers ([`Device::write_untimed`]) in runs that end where a
    /// series sample is due, and each run is accounted at once as the per-request loop would
    /// account its requests one by one (each completes at its issue time `now`). Returns how
    /// many requests it served (the first ones of `batch`): 0 when a request is not a one-page
    /// write or the device cannot; the caller serves the rest one by one.
    #[allow(clippy::too_many_arguments)]
    fn serve_untimed(
        &mut self,
        batch: &[Request],
        ahead: &[Request],
        now: u64,
        dev: &mut Device,
        wl: &dyn Workload,
        progress: &mut dyn Progress,
        base_writes: u64,
        (lpns, ids): (&mut Vec<u64>, &mut Vec<Option<u16>>),
    ) -> Result<usize, Error> {
        lpns.clear();
        for req in batch {
            let (first, last) = dev.page_span(req.offset, req.len);
            if req.op != Op::Write || first != last {
                return Ok(0);
            }
            lpns.push(first);
        }
        ids.clear();
        if dev.places_writes() {
            ids.extend(batch.iter().map(|req| req.placement));
        } else {
            self.unplaced += batch.iter().filter(|req| req.placement.is_some()).count() as u64;
        }
        // The first pages of the requests that follow, for the device's prefetch stages.
        lpns.extend(ahead.iter().map(|req| dev.page_span(req.offset, req.len).0));
        let mut k = 0;
        while k < batch.len() {
            // One host write per request: a run ends on the request after which a sample is due.
            let due_in = self.series.next_at().saturating_sub(dev.ftl.host_writes() - base_writes).max(1);
            let n = (batch.len() - k).min(usize::try_from(due_in).unwrap_or(usize::MAX));
            if !dev.write_untimed_placed(&lpns[k..], ids.get(k..).unwrap_or_default(), n, Nanos(now))? {
                break;
            }
            let run = &batch[k..k + n];
            let before = self.host.requests;
            let h = &mut self.host;
            h.requests += n as u64;
            h.write_requests += n as u64;
            h.write_pages += n as u64;
            h.write_bytes += run.iter().map(|r| r.len).sum::<u64>();
            self.write_lat.record_n(0, n as u64);
            self.first_issue.get_or_insert(now);
            self.last_done = self.last_done.max(now);
            if self.series.due(dev.ftl.host_writes() - base_writes) {
                let s = self.sample(dev);
                self.series.record(s);
            }
            if before >> 14 != self.host.requests >> 14 {
                if let Some((d, _)) = wl.progress() {
                    progress.update(d);
                }
                if progress.cancelled() {
                    return Err(Error::Interrupted);
                }
            }
            let exposed = dev.buffer.exposed();
            for r in before + 1..=self.host.requests {
                self.exposure.record(r, exposed);
            }
            k += n;
        }
        Ok(k)
    }

    /// A request inside the logical capacity passes; anything else goes to [`Measure::place_range`].
    #[inline]
    fn check_range(&self, req: &mut Request, policy: OutOfRange, wl: &dyn Workload) -> Result<(), Error> {
        if req.len > 0 && req.offset < self.capacity && req.len <= self.capacity - req.offset {
            if let Some(w) = &self.wrap {
                w.borrow_mut().note(req.offset, req.len, 0);
            }
            return Ok(());
        }
        self.place_range(req, policy, wl)
    }

    /// A request of no bytes, or not inside the logical capacity: [`place_range`].
    #[cold]
    fn place_range(&self, req: &mut Request, policy: OutOfRange, wl: &dyn Workload) -> Result<(), Error> {
        place_range(req, self.capacity, policy, self.wrap.as_ref(), wl)
    }

    #[inline]
    fn account(&mut self, req: &Request, issue: u64, done: u64, pages: u64) {
        let h = &mut self.host;
        h.requests += 1;
        match req.op {
            Op::Read => {
                h.read_requests += 1;
                h.read_pages += pages;
                h.read_bytes += req.len;
                self.read_lat.record(done - issue);
                if let Some(t) = &mut self.timed {
                    t.record(0, req.len, done - issue);
                }
            }
            // A zone append writes data: its pages, bytes and latency are a write's.
            Op::Write | Op::ZoneAppend => {
                let append = u64::from(req.op == Op::ZoneAppend);
                h.write_requests += 1 - append;
                h.zone_commands += append;
                h.write_pages += pages;
                h.write_bytes += req.len;
                self.write_lat.record(done - issue);
                if let Some(t) = &mut self.timed {
                    t.record(1, req.len, done - issue);
                }
            }
            Op::Trim => {
                h.trim_requests += 1;
                h.trim_pages += pages;
            }
            Op::ZoneFinish | Op::ZoneReset => h.zone_commands += 1,
        }
        self.first_issue.get_or_insert(issue);
        self.last_issue = self.last_issue.max(issue);
        self.last_done = self.last_done.max(done);
    }

    fn finish(
        mut self,
        cfg: &Config,
        r: &Resolved,
        dev: &mut Device,
        wall_s: f64,
        precondition_wall_s: f64,
    ) -> Results {
        let last = self.sample(dev);
        let flash = ftl::nand_minus(&dev.ftl.nand().counters, &self.base_nand);
        let ftl_c = dev.ftl.counters().minus(&self.base_ftl);
        let timing = cfg.sim.mode == Mode::Timing;
        let span_ns = self.last_done.saturating_sub(self.first_issue.unwrap_or(0));
        let moved = self.host.read_bytes + self.host.write_bytes;
        let pages = self.host.read_pages + self.host.write_pages + self.host.trim_pages;
        let (hits, accesses) = dev.buffer.hits();
        let counters = dev.buffer.counters();
        let ratio = |h: u64, a: u64| (a > 0).then(|| h as f64 / a as f64);
        let exposed_mean =
            if self.host.requests > 0 { self.exposure.sum as f64 / self.host.requests as f64 } else { 0.0 };
        let geo = r.layout.geo;
        let verified_reads = if cfg.sim.verify { self.host.read_pages } else { 0 };
        let tail = self.take_interval();
        let series = self.series_points(last, tail, dev);
        let mut warnings = steady_state_warnings(cfg, r, self.host.write_pages, flash.erases);
        if let Some(w) = self.wrap.as_ref().and_then(|w| w.borrow().warning(self.capacity)) {
            warnings.push(w);
        }
        if self.unplaced > 0 {
            warnings.push(format!(
                "{} write requests carried a placement identifier, which this device ignores: [ftl.placement] gives it reclaim unit handles",
                self.unplaced
            ));
        }
        if timing && open_loop(cfg) {
            let first = self.first_issue.unwrap_or(0);
            warnings.extend(saturation_warning(self.host.requests, first, self.last_issue, self.last_done));
        }
        Results {
            schema_version: crate::results::SCHEMA_VERSION,
            flashlab_version: crate::VERSION.to_string(),
            name: cfg.name.clone(),
            workload: describe_workload(cfg),
            device: DeviceSummary {
                physical_bytes: geo.physical_bytes(),
                logical_bytes: r.logical_pages * r.page_size,
                over_provisioning: r.over_provisioning,
                effective_over_provisioning: dev.ftl.held_pages().map(|held| {
                    let (physical, logical) = (r.layout.total_pages() as f64, r.logical_pages as f64);
                    (physical - held as f64 - logical) / logical
                }),
                page_size: r.page_size,
                planes: geo.planes(),
                segments: r.layout.segments,
                pages_per_segment: r.layout.pages_per_segment,
            },
            waf: (self.host.write_pages > 0).then(|| flash.programs as f64 / self.host.write_pages as f64),
            waf_ftl: (ftl_c.host_writes > 0).then(|| flash.programs as f64 / ftl_c.host_writes as f64),
            flash,
            ftl: ftl_c,
            host: self.host,
            wear: Wear::of(dev.ftl.nand().erase_counts()),
            wear_histogram: wear_histogram(dev.ftl.nand().erase_counts()),
            mapping: {
                let cache = match (dev.ftl.mapping_report(), &self.base_mapping) {
                    (Some(now), Some(base)) => Some(now.minus(base)),
                    (now, _) => now,
                };
                MappingSummary {
                    scheme: cfg.ftl.mapping.clone(),
                    hit_ratio: cache.as_ref().map_or(Some(1.0), |c| c.hit_ratio),
                    table_bytes: dev.ftl.table_bytes(),
                    cache,
                }
            },
            buffer: BufferSummary {
                policy: cfg.buffer.policy.clone(),
                hit_ratio: ratio(hits, accesses),
                read_hit_ratio: counters.and_then(|c| ratio(c.read_hits, c.read_accesses)),
                write_hit_ratio: counters.and_then(|c| ratio(c.write_hits, c.write_accesses)),
                counters,
                flush_batches: dev.buffer.flush_batches(),
                exposed_peak: self.exposure.peak,
                exposed_mean,
                exposure: self.exposure.points.clone(),
                crash: None,
            },
            latency_us: timing.then(|| Latencies {
                read: self.read_lat.summary(),
                write: self.write_lat.summary(),
                read_cdf: self.read_lat.cdf_us(),
                write_cdf: self.write_lat.cdf_us(),
                by_size: self.timed.as_ref().map_or_else(Vec::new, |t| {
                    t.by_size
                        .iter()
                        .enumerate()
                        .filter(|(_, h)| h[0].count() + h[1].count() > 0)
                        .map(|(i, h)| SizeClassLatency {
                            max_bytes: SIZE_CLASSES.get(i).copied(),
                            read: h[0].summary(),
                            write: h[1].summary(),
                        })
                        .collect()
                }),
            }),
            throughput_mib_s: (timing && span_ns > 0).then(|| moved as f64 / MIB / (span_ns as f64 / 1e9)),
            sim: SimSummary {
                mode: cfg.sim.mode,
                seed: cfg.seed,
                wall_s,
                precondition_wall_s,
                host_pages_per_s: if wall_s > 0.0 { pages as f64 / wall_s } else { 0.0 },
                simulated_s: timing.then(|| span_ns as f64 / 1e9),
                verified_reads,
            },
            series,
            series_columns: crate::results::series_columns(),
            reuse: self.reuse.as_ref().map(|rd| {
                let bytes = cfg.buffer.dram.0 + cfg.buffer.nvram.0;
                rd.summary((cfg.buffer.policy != "none" && bytes > 0).then(|| bytes / r.page_size))
            }),
            gc: dev.ftl.gc_report().minus(&self.base_gc),
            hybrid: match (dev.ftl.hybrid_report(), &self.base_hybrid) {
                (Some(now), Some(base)) => Some(now.minus(base)),
                (now, _) => now,
            },
            placement: match (dev.ftl.placement_report(), &self.base_placement) {
                (Some(now), Some(base)) => Some(now.minus(base)),
                (now, _) => now,
            },
            zones: match (dev.ftl.zone_report(), &self.base_zones) {
                (Some(now), Some(base)) => Some(now.minus(base)),
                (now, _) => now,
            },
            warnings,
            config: cfg.clone(),
        }
    }
}

/// A request of no bytes, or not inside the logical `capacity`: refused, or moved inside it by
/// the out-of-range policy (wrapped requests noted in `wrap`).
#[cold]
fn place_range(
    req: &mut Request,
    capacity: u64,
    policy: OutOfRange,
    wrap: Option<&std::cell::RefCell<WrapTrack>>,
    wl: &dyn Workload,
) -> Result<(), Error> {
    let at = || wl.location().unwrap_or_else(|| Location::file("workload"));
    if req.len == 0 {
        return Err(Error::input(at().with_field("size"), "request of 0 bytes"));
    }
    // Wrapping or remapping moves a request's start, not its length: one longer than the
    // device would write more pages than the device holds (and once took hours doing so).
    if req.len > capacity {
        return Err(Error::input(
            at().with_field("size"),
            format!(
                "request of {} bytes is longer than the logical capacity of {} bytes: no out_of_range policy can place it",
                req.len, capacity
            ),
        ));
    }
    let end = req.offset.checked_add(req.len);
    if end.is_some_and(|e| e <= capacity) || (policy == OutOfRange::Compact && end.is_some()) {
        return Ok(());
    }
    match policy {
        OutOfRange::Error => Err(Error::input(
            at().with_field("offset"),
            format!(
                "request [{}, +{}) ends beyond the logical capacity of {} bytes (set host.out_of_range = \"wrap\" to wrap addresses, or \"compact\" to remap them block by block)",
                req.offset, req.len, capacity
            ),
        )),
        OutOfRange::Wrap => {
            let round = req.offset / capacity;
            req.offset %= capacity;
            if let Some(w) = wrap {
                let mut w = w.borrow_mut();
                w.wrapped_requests += u64::from(round > 0);
                w.note(req.offset, req.len, round);
            }
            Ok(())
        }
        // The device remaps every page (Device::compact_addresses).
        OutOfRange::Compact => Ok(()),
    }
}

/// Requests of a trace checked before preconditioning (about a second of parsing at most), so
/// a bad line or a trace for a larger device is refused before minutes of preconditioning
/// rather than after; a later one is refused when reached.
pub const PRECHECK_REQUESTS: u64 = 1_000_000;

/// The first [`PRECHECK_REQUESTS`] requests of a trace workload (no more than `sim.crash_at`),
/// read by a fresh reader and refused as the measured phase would refuse them: a line that does
/// not parse, a request of no bytes or longer than the device, or one beyond the logical
/// capacity with `host.out_of_range = "error"`. Nothing to check for a generator. Run before
/// preconditioning, and by `flashlab run --dry-run`.
pub fn check_trace(cfg: &Config, r: &Resolved) -> Result<(), Error> {
    if cfg.workload.get("kind").and_then(|k| k.as_str()) != Some("trace") {
        return Ok(());
    }
    let mut wl = build_workload(cfg, r)?;
    let capacity = r.logical_pages * r.page_size;
    // A zoned device the trace writes itself (not through a host log): its zone rules, checked
    // on the device model a run uses, without a clock.
    let mut zoned = match cfg.ftl.mapping == "zns" && !through_host(cfg) {
        true => {
            Some(crate::ftl::zns::Zns::new(&crate::ftl::FtlSpec { verify: false, timing: None, ..cfg.ftl_spec(r) })?)
        }
        false => None,
    };
    if let Some(z) = zoned.as_mut().filter(|_| cfg.precondition.fill) {
        // The sequential fill the run writes first (zones in order; no other preconditioning
        // runs on a zoned device written by the trace).
        use crate::ftl::Ftl;
        for lpn in 0..r.logical_pages {
            z.write(Lpn(lpn), 0, Nanos::ZERO)?;
        }
    }
    for _ in 0..PRECHECK_REQUESTS.min(cfg.sim.crash_at.unwrap_or(u64::MAX)) {
        let Some(mut req) = wl.next_request()? else { break };
        if let Some(cmd) = req.op.zone_command().filter(|_| zoned.is_none()) {
            // What the host layer refuses: the log writes zones itself; a conventional device
            // has none.
            let e = match through_host(cfg) {
                true => crate::host::log::refuse_zone_command(cmd),
                false => crate::device::refuse_zone_command(cmd),
            };
            return Err(located(e, wl.as_ref()));
        }
        if req.len == 0 || req.offset.checked_add(req.len).is_none_or(|end| end > capacity) {
            place_range(&mut req, capacity, cfg.host.out_of_range, None, wl.as_ref())?;
        }
        if let Some(z) = &mut zoned {
            check_zones(z, &req, r.page_size).map_err(|e| located(e, wl.as_ref()))?;
        }
    }
    Ok(())
}

/// `req`'s pages through the zoned device `z` as the pass-through host layer issues them (no
/// clock, no data): what the run would refuse.
fn check_zones(z: &mut crate::ftl::zns::Zns, req: &Request, page_size: u64) -> Result<(), Error> {
    use crate::ftl::zns::{ZoneCommand, ZoneOps};
    use crate::ftl::Ftl;
    let (first, last) = (req.offset / page_size, (req.offset + req.len - 1) / page_size);
    let cmd = match req.op {
        Op::Trim => Some(ZoneCommand::Trim),
        op => op.zone_command(),
    };
    let zones = match cmd {
        Some(cmd) => crate::ftl::zns::command_zones(cmd, first, last, u64::from(ZoneOps::zone_pages(z)))?,
        None => 0..0,
    };
    match req.op {
        Op::Read => {}
        Op::Write => (first..=last).try_for_each(|lpn| z.write(Lpn(lpn), 0, Nanos::ZERO).map(|_| ()))?,
        Op::Trim => (first..=last).try_for_each(|lpn| z.trim(Lpn(lpn), Nanos::ZERO).map(|_| ()))?,
        Op::ZoneAppend => {
            crate::ftl::zns::append_pages(z, zones.start, last - first + 1, Nanos::ZERO, || 0, |_, _| ())?;
        }
        Op::ZoneFinish => zones.into_iter().try_for_each(|zone| z.finish(zone, Nanos::ZERO).map(|_| ()))?,
        Op::ZoneReset => zones.into_iter().try_for_each(|zone| z.reset(zone, Nanos::ZERO).map(|_| ()))?,
    }
    Ok(())
}

/// Timing mode's latencies beyond the run's totals, reads at index 0 and writes at 1: those of
/// the series interval in progress, and by request size class ([`SIZE_CLASSES`], then larger).
#[derive(Default)]
struct TimedLatencies {
    interval: [IntervalHistogram; 2],
    by_size: [[Histogram; 2]; SIZE_CLASSES.len() + 1],
}

impl TimedLatencies {
    /// A request of `len` bytes, a read (`op` 0) or a write (1), took `ns`.
    #[inline]
    fn record(&mut self, op: usize, len: u64, ns: u64) {
        self.interval[op].record(ns);
        let class = SIZE_CLASSES.iter().position(|&max| len <= max).unwrap_or(SIZE_CLASSES.len());
        self.by_size[class][op].record(ns);
    }
}

/// Fewest requests an open-loop run needs before its rates are judged.
const SATURATION_MIN_REQUESTS: u64 = 100;

/// Served span over offered span above which an open-loop run is said to have fallen behind.
pub const SATURATION_RATIO: f64 = 1.25;

/// An open-loop run whose device fell behind its arrivals: the requests arrived over
/// `last_issue - first` ns but were served only by `last_done`, more than
/// [`SATURATION_RATIO`] times as long. Its latencies then measure the queue that built up, not
/// the device (a 51 s mean read latency with no warning was how a user found out). Says the
/// offered and served rates, the backlog left when the last request arrived, and what to change.
fn saturation_warning(requests: u64, first: u64, last_issue: u64, last_done: u64) -> Option<String> {
    if requests < SATURATION_MIN_REQUESTS {
        return None;
    }
    let offered_ns = last_issue.saturating_sub(first);
    let served_ns = last_done.saturating_sub(first).max(1);
    if (served_ns as f64) <= SATURATION_RATIO * offered_ns as f64 {
        return None;
    }
    let served_rate = requests as f64 / (served_ns as f64 / 1e9);
    let backlog = (served_ns - offered_ns) as f64 / 1e9 * served_rate;
    let offered = if offered_ns == 0 {
        "all at once".to_string()
    } else {
        format!("over {:.3} s ({:.0} requests/s)", offered_ns as f64 / 1e9, requests as f64 / (offered_ns as f64 / 1e9))
    };
    Some(format!(
        "the device fell behind the offered load: {requests} requests arrived {offered} but were served over {:.3} s \
         ({served_rate:.0} requests/s), about {backlog:.0} still queued when the last one arrived; latencies measure \
         that queue, not the device. Slow the arrivals (workload.time_scale for a trace, workload.iat_ns for a \
         generator), use a larger or faster device, or use closed-loop arrival (host.arrival = \"closed\")",
        served_ns as f64 / 1e9
    ))
}

/// Warnings about what the measured phase can say: no erase at all (the WAF of a device that
/// never needed GC), or fewer host page writes than the device's spare pages (GC has not yet
/// cycled through the spare space once, so the WAF is a transient). Not for crash runs, which
/// stop early on purpose, nor for runs that write nothing.
fn steady_state_warnings(cfg: &Config, r: &Resolved, host_writes: u64, erases: u64) -> Vec<String> {
    if host_writes == 0 || cfg.sim.crash_at.is_some() {
        return Vec::new();
    }
    let spare = r.layout.geo.total_pages_u64().saturating_sub(r.logical_pages);
    let hint = if cfg.precondition.fill {
        "replay a longer trace or more write volume"
    } else {
        "precondition the device ([precondition] fill = true, overwrite = 1.0) or replay a longer trace"
    };
    if erases == 0 {
        let why = if cfg.precondition.fill || cfg.precondition.overwrite > 0.0 {
            "too few for garbage collection to run, so the WAF says nothing about it"
        } else {
            "the WAF is that of an empty device that never needed garbage collection"
        };
        vec![format!("no block was erased in the measured phase ({host_writes} host page writes): {why}; {hint}")]
    } else if host_writes < spare {
        vec![format!(
            "the measured phase wrote {host_writes} host pages, fewer than the device's {spare} spare pages: GC has not \
             cycled through the spare space once, so the WAF is a transient, not a steady state; {hint}"
        )]
    } else {
        Vec::new()
    }
}

impl Measure {
    /// Series points with the frozen share at each interval end, when tracked.
    fn series_points(
        &self,
        last: Sample,
        tail: Option<IntervalLatency>,
        dev: &Device,
    ) -> Vec<crate::stats::SeriesPoint> {
        let mut points = self.series.points(last, tail);
        // The series keeps a subset of its samples (it coarsens): match points to clock values
        // by host writes, which are the same count with no write buffer between.
        let ends: Vec<u64> = points.iter().map(|p| self.base_writes + p.host_writes).collect();
        if let Some(shares) = dev.frozen_shares(&ends) {
            for (p, f) in points.iter_mut().zip(shares) {
                p.frozen_share = Some(f);
            }
        }
        points
    }
}

/// (erase count, blocks) pairs, ascending by count.
fn wear_histogram(counts: &[u32]) -> Vec<(u32, u64)> {
    let mut map = std::collections::BTreeMap::new();
    for &c in counts {
        *map.entry(c).or_insert(0u64) += 1;
    }
    map.into_iter().collect()
}

/// The `[workload]` table on one line, its keys sorted (`results.workload`, and the dry run).
pub fn describe_workload(cfg: &Config) -> String {
    let mut parts: Vec<String> = cfg.workload.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.sort();
    parts.join(" ")
}
