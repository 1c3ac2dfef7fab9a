//! The run's plan: a configuration validated once, with everything a run derives from it
//! (resolved geometry, the workload built and its bound, the memory estimate admitted against
//! the limit). Everything a run would refuse is refused here, before anything big is
//! allocated; the run itself ([`super::run_parts`]) takes the plan's parts.
//!
//! The memory admission sums what each layer states beside its constructor — the FTL's
//! mapping scheme ([`crate::ftl::memory`]), the buffer policy's `memory`, the device's
//! ([`Device::memory`]) and the simulation loop's ([`memory`]) — plus a fixed base, and
//! compares it with the limit (`sim.memory_limit`, else the memory this machine has available,
//! read once per process). The estimate is an upper bound on the peak resident memory of a run
//! (`crates/flashlab-cli/tests/memory.rs` measures it): items that grow by doubling count their
//! last growth step, and items that scale with the run's length use the workload's bound when
//! it states one (generators); for a trace, whose length is unknown before it is read, they
//! assume [`TRACE_CAPACITIES`] logical capacities (an estimate, not a bound, for longer traces).

use super::{build_buffer, derive_seed, open_loop, run_parts, Preconditioned, Progress};
use crate::config::{Config, Mode, Resolved};
use crate::device::Device;
use crate::error::Error;
use crate::host::{self, placement, OutOfRange};
use crate::memory::{
    available_memory, grown_vec_bytes, human_bytes, physical_memory, Estimate, BASE_BYTES, FALLBACK_LIMIT_BYTES,
};
use crate::results::Results;
use crate::workload::{gen, trace, GenContext, Workload};

/// A configuration validated once, with everything a run derives from it: the resolved
/// geometry and capacities (the FTL's parameters and spare space checked,
/// [`Config::resolve`]), the host layer and buffer checked, the workload built (its parameters
/// parsed, a trace opened) and its bound, and the memory estimate admitted against the limit.
/// `run`, `--dry-run`, `config show` and Python's `check` and `run` all go through it; the run
/// takes the workload built here rather than building another.
pub struct Plan {
    cfg: Config,
    resolved: Resolved,
    bound: RunBound,
    estimate: Estimate,
    workload: Box<dyn Workload>,
}

impl Plan {
    /// Validate `cfg`; an error about a key names the file line or override that set it.
    pub fn new(cfg: Config) -> Result<Plan, Error> {
        let at = |e| cfg.attribute(e);
        let resolved = cfg.resolve().map_err(at)?;
        build_buffer(&cfg, &resolved).map_err(at)?;
        let workload = build_workload(&cfg, &resolved).map_err(at)?;
        let bound = bound_of(&cfg, &resolved, workload.as_ref());
        let estimate = admit(&cfg, &resolved, bound).map_err(at)?;
        Ok(Plan { cfg, resolved, bound, estimate, workload })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Its geometry and capacities.
    pub fn resolved(&self) -> &Resolved {
        &self.resolved
    }

    /// What the run may take at most (requests, host pages).
    pub fn bound(&self) -> RunBound {
        self.bound
    }

    /// The memory estimate the run was admitted with.
    pub fn estimate(&self) -> &Estimate {
        &self.estimate
    }

    /// The trace's first requests checked as the run would check them ([`super::check_trace`]),
    /// errors attributed to the config as a run's are.
    pub fn check_trace(&self) -> Result<(), Error> {
        super::check_trace(&self.cfg, &self.resolved).map_err(|e| self.cfg.attribute(e))
    }

    /// Run the simulation.
    pub fn run(self, progress: &mut dyn Progress) -> Result<Results, Error> {
        self.run_on(None, progress)
    }

    /// [`Plan::run`] on a copy of a preconditioned flash ([`super::run_from`]).
    pub fn run_from(self, state: &Preconditioned, progress: &mut dyn Progress) -> Result<Results, Error> {
        self.run_on(Some(state), progress)
    }

    fn run_on(self, state: Option<&Preconditioned>, progress: &mut dyn Progress) -> Result<Results, Error> {
        let Plan { cfg, resolved, workload, .. } = self;
        run_parts(&cfg, &resolved, workload, state, progress).map_err(|e| cfg.attribute(e))
    }
}

/// Everything a run would refuse, checked without simulating or allocating the device: a
/// [`Plan`] made and dropped.
pub fn validate(cfg: &Config) -> Result<(), Error> {
    Plan::new(cfg.clone()).map(|_| ())
}

/// What a run of `cfg` may take at most, when its workload says (generators): requests, and
/// host pages (each request touches its bytes in pages, plus two partial pages unless requests
/// are aligned to pages).
#[derive(Clone, Copy, Debug)]
pub struct RunBound {
    /// Host requests.
    pub requests: u64,
    /// Host pages: each request's pages, partial pages included.
    pub pages: u64,
}

/// The run's bound, from its workload (built, not run). A trace is not read ahead: then
/// [`TRACE_CAPACITIES`] times the logical capacity, in requests and in pages.
fn bound_of(cfg: &Config, r: &Resolved, workload: &dyn Workload) -> RunBound {
    let assumed = RunBound {
        requests: r.logical_pages.saturating_mul(TRACE_CAPACITIES),
        pages: r.logical_pages.saturating_mul(TRACE_CAPACITIES),
    };
    if cfg.workload.get("kind").and_then(|k| k.as_str()) == Some("trace") {
        return assumed;
    }
    let Some(b) = workload.bound() else { return assumed };
    let partial = if b.align.is_multiple_of(r.page_size) { 0 } else { b.requests.saturating_mul(2) };
    let pages = (b.bytes / r.page_size).saturating_add(partial);
    RunBound { requests: b.requests, pages }
}

/// Series samples and points: a 64-byte sample, its 216-byte point in the results and its
/// pretty JSON text in results.json (the timing columns null in accounting mode, numbers in
/// timing mode); measured about 335 and 560 bytes a point of peak resident memory, interval
/// latencies included (`tests/memory.rs`).
const SERIES_POINT_BYTES: u64 = 360;
const SERIES_POINT_BYTES_TIMED: u64 = 520;

/// A trace's length is not known before it is read: run-length structures of a trace run are
/// estimated for this many times the logical capacity of page writes and requests (the series
/// at a fixed `sim.interval_writes`, the closed-loop queue), unless the queue depth or the
/// interval count bounds them lower. An estimate, not a bound, for longer traces.
pub const TRACE_CAPACITIES: u64 = 64;

/// What the simulation loop allocates: the closed-loop queue (timing mode: one completion
/// time per outstanding request, at most the depth), the series, and the reuse-distance
/// structure over the pages the run can touch.
fn memory(cfg: &Config, r: &Resolved, run: RunBound, est: &mut Estimate) {
    if cfg.sim.mode == Mode::Timing && !open_loop(cfg) {
        let outstanding = (cfg.host.queue_depth as u64).min(run.requests).saturating_add(1);
        est.add("host queue", grown_vec_bytes::<u64>(outstanding));
    }
    let samples = match cfg.sim.interval_writes {
        Some(step) => run.pages / step.max(1),
        None => (cfg.sim.intervals as u64).saturating_mul(4).min(run.pages),
    }
    .saturating_add(2);
    let timed = cfg.sim.mode == Mode::Timing;
    let point = if timed { SERIES_POINT_BYTES_TIMED } else { SERIES_POINT_BYTES };
    est.add("series", samples.saturating_mul(point));
    if timed {
        // Two dense histograms for the interval in progress, and per sample a sparse one each
        // for reads and writes: together at most one bucket per request of the interval, and
        // at most every bucket each.
        let buckets = crate::stats::latency::BUCKETS as u64;
        let per_sample = (run.requests / samples.max(1)).saturating_add(1).min(2 * buckets);
        let sparse = per_sample * std::mem::size_of::<(u16, u64)>() as u64 + 64;
        est.add("series latencies", 2 * buckets * 10 + samples.saturating_mul(sparse));
        // Read and write histograms per request size class.
        let classes = crate::results::SIZE_CLASSES.len() as u64 + 1;
        est.add("latency by size", 2 * classes * buckets * 8);
    }
    if cfg.sim.reuse_distance {
        let pages = match cfg.host.out_of_range {
            OutOfRange::Compact => r.layout.total_pages() as u64,
            _ => r.logical_pages,
        };
        est.add("reuse distance", crate::stats::ReuseDistance::memory(pages.min(run.pages)));
    }
}

/// Build the workload named by `[workload] kind`, its long requests split
/// (`host.max_request`), then its writes placed by the host placement policy
/// (`[host.placement]`).
pub fn build_workload(cfg: &Config, r: &Resolved) -> Result<Box<dyn Workload>, Error> {
    let wl = open_workload(cfg, r).map_err(|e| cfg.attribute(e))?;
    let wl: Box<dyn Workload> = match cfg.host.max_request {
        Some(max) => Box::new(host::Split::new(wl, max.0)),
        None => wl,
    };
    Ok(match &cfg.host.placement {
        Some(table) => {
            let policy = build_placement(cfg, r, table).map_err(|e| cfg.attribute(e))?;
            Box::new(placement::Placed::new(wl, policy))
        }
        None => wl,
    })
}

/// The logical space a host placement policy keeps state over: the device's logical pages.
fn placement_context(r: &Resolved) -> placement::PlacementContext {
    placement::PlacementContext { logical_pages: r.logical_pages, page_size: r.page_size }
}

/// The host placement policy, its identifiers held to the device's reclaim unit handles: a
/// policy choosing identifiers for a device without `[ftl.placement]` would change nothing,
/// and one beyond its handles would only be counted invalid.
fn build_placement(
    cfg: &Config,
    r: &Resolved,
    table: &toml::Table,
) -> Result<Box<dyn placement::PlacementPolicy>, Error> {
    let policy = placement::build(table, &placement_context(r))?;
    let Some(largest) = policy.largest() else { return Ok(policy) };
    let Some(device) = &cfg.ftl.placement else {
        return Err(Error::config(
            placement::TABLE,
            "the device has no reclaim unit handles to place writes on: add [ftl.placement] (e.g. handles = 2)",
        ));
    };
    let (key, id) = largest;
    if id >= device.handles {
        return Err(Error::config(
            format!("{}.{key}", placement::TABLE),
            format!(
                "identifier {id}, but [ftl.placement] has {} handles (0 to {})",
                device.handles,
                device.handles - 1
            ),
        ));
    }
    Ok(policy)
}

fn open_workload(cfg: &Config, r: &Resolved) -> Result<Box<dyn Workload>, Error> {
    let mut table = cfg.workload.clone();
    let kind = match table.remove("kind") {
        Some(toml::Value::String(k)) => k,
        _ => return Err(Error::config("workload.kind", "missing: name a generator or `trace`")),
    };
    if kind == "trace" {
        let opts = trace::TraceOptions::from_table(&table, &cfg.source)?;
        return trace::open(&opts).map_err(|e| match e {
            Error::Io { .. } => Error::config("workload.path", e.to_string()),
            e => e,
        });
    }
    let ctx = GenContext {
        capacity_bytes: r.logical_pages * r.page_size,
        page_size: r.page_size,
        seed: derive_seed(cfg.seed, "workload"),
        source: cfg.source.clone(),
    };
    if kind == gen::STREAMS {
        return gen::multi::build(table, &ctx);
    }
    gen::build(&kind, table, &ctx)
}

/// The whole estimate for a resolved config, given the run's bound (from its workload,
/// [`crate::sim::Plan`]): every layer's structures plus the base. An error where a layer
/// cannot be built at all at this size (e.g. a cached mapping table with more entries than its
/// 32-bit indices hold).
pub fn estimate(cfg: &Config, r: &Resolved, run: RunBound) -> Result<Estimate, Error> {
    let mut est = Estimate::default();
    est.add("base", BASE_BYTES);
    crate::ftl::memory(&cfg.ftl_spec(r), &mut est)?;
    crate::host::memory(&cfg.host, &cfg.host_context(r), &mut est)?;
    if let Some(table) = &cfg.host.placement {
        placement::memory(table, &placement_context(r), &mut est)?;
    }
    let ctx = super::buffer_context(cfg, r);
    let buffer = crate::buffer::BUFFERS.find(&cfg.buffer.policy)?;
    (buffer.caps.memory)(&cfg.buffer, &ctx, &mut est);
    if cfg.host.out_of_range == crate::host::OutOfRange::Wrap {
        // The measured phase's wrap tags (`WrapTrack`), one per logical page.
        est.add("wrap tags", r.logical_pages.saturating_mul(2));
    }
    let verify = cfg.sim.verify || cfg.sim.crash_at.is_some();
    let compact = cfg.host.out_of_range == OutOfRange::Compact;
    let frozen = cfg.sim.track_frozen.then_some(run.pages);
    Device::memory(r.logical_pages, r.layout.geo.pages_per_block as u64, verify, frozen, compact, &mut est);
    memory(cfg, r, run, &mut est);
    Ok(est)
}

/// How much a run may take: `sim.memory_limit` when set (an error above this machine's
/// physical memory), else the memory available now (`MemAvailable`), else
/// [`FALLBACK_LIMIT_BYTES`](crate::memory::FALLBACK_LIMIT_BYTES).
pub fn memory_limit(cfg: &Config) -> Result<u64, Error> {
    let physical = physical_memory();
    match (cfg.sim.memory_limit, physical) {
        (Some(l), Some(p)) if l.0 > p => Err(Error::config(
            "sim.memory_limit",
            format!(
                "{} is above this machine's physical memory ({}): a limit may lower the available memory ({}) or raise it up to the physical memory, not beyond",
                human_bytes(l.0),
                human_bytes(p),
                available_memory().map_or("unknown".into(), human_bytes)
            ),
        )),
        (Some(l), _) => Ok(l.0),
        (None, _) => Ok(available_memory().unwrap_or(FALLBACK_LIMIT_BYTES)),
    }
}

/// The estimate for a run of `run` at most, refused with an error naming its biggest items
/// when it exceeds [`memory_limit`].
fn admit(cfg: &Config, r: &Resolved, run: RunBound) -> Result<Estimate, Error> {
    let limit = memory_limit(cfg)?;
    let est = estimate(cfg, r, run)?;
    let need = est.total();
    if need > limit {
        let against = match cfg.sim.memory_limit {
            Some(_) => format!("sim.memory_limit = {}", human_bytes(limit)),
            None if available_memory().is_some() => {
                format!(
                    "the {} this machine has available (set sim.memory_limit to raise it up to the physical memory)",
                    human_bytes(limit)
                )
            }
            None => format!("the default limit of {} (/proc/meminfo unreadable)", human_bytes(limit)),
        };
        return Err(Error::config(
            "sim.memory_limit",
            format!(
                "simulating this config needs about {} of memory, over {against}; biggest: {}",
                human_bytes(need),
                est.describe(3)
            ),
        ));
    }
    Ok(est)
}
