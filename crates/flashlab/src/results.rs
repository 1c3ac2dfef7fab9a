//! Results of a run: what `results.json` holds, the summary table, the series CSV. Plain data;
//! rendering to text here, writing files is the caller's business.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::config::{Config, Mode};
use crate::ftl::{FtlCounters, GcReport};
use crate::nand::{NandCounters, Wear};
use crate::stats::{LatencySummary, SeriesPoint};

/// What the host asked for in the measured phase.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostStats {
    /// Host requests issued in the measured phase.
    pub requests: u64,
    /// Read requests.
    pub read_requests: u64,
    /// Write requests.
    pub write_requests: u64,
    /// Trim (discard) requests.
    pub trim_requests: u64,
    /// Zone commands from the trace (zoned devices): appends, finishes and resets. An append's
    /// pages and bytes count as written (`write_pages`, `write_bytes`) and its latency as a
    /// write's; a reset's pages are not counted as trimmed.
    pub zone_commands: u64,
    /// Logical pages touched by reads.
    pub read_pages: u64,
    /// Logical pages touched by writes (a partial page counts as one).
    pub write_pages: u64,
    /// Logical pages trimmed.
    pub trim_pages: u64,
    /// Bytes requested by reads.
    pub read_bytes: u64,
    /// Bytes requested by writes.
    pub write_bytes: u64,
}

/// The simulated device: capacities and geometry as resolved from `[device]` and `[ftl]`.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceSummary {
    /// Raw flash capacity: every page of every block.
    pub physical_bytes: u64,
    /// Capacity exported to the host.
    pub logical_bytes: u64,
    /// Spare space: (physical - logical) / logical.
    pub over_provisioning: f64,
    /// `over_provisioning` after the pages the FTL keeps from holding data in steady state: the GC
    /// schedule's reserve of free segments and the open segments of extra write streams
    /// (`Ftl::held_pages`); null for the log-block schemes.
    pub effective_over_provisioning: Option<f64>,
    /// Flash page size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub page_size: u64,
    /// Planes in the device.
    pub planes: u32,
    /// Erase / GC units (blocks, or lines with `ftl.gc_unit = "line"`).
    pub segments: u32,
    /// Pages in each segment.
    pub pages_per_segment: u32,
}

/// The mapping scheme and its table.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MappingSummary {
    /// The mapping scheme (`ftl.mapping`).
    pub scheme: String,
    /// Mapping lookups served from controller RAM (1.0 when the whole table is in RAM).
    pub hit_ratio: Option<f64>,
    /// Bytes of mapping table held in controller RAM at the end (the cache window for DFTL /
    /// WADPM; the block and log maps for block-level and hybrid schemes; 4 per logical page
    /// for `page`).
    pub table_bytes: u64,
    /// Cached schemes: hits, misses, translation-page reads/writes, window over time.
    pub cache: Option<crate::ftl::MappingReport>,
}

/// The write buffer (`[buffer]`): hits, write-backs, power-loss exposure; counters null without a buffer.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BufferSummary {
    /// The buffer policy (`buffer.policy`).
    pub policy: String,
    /// Page hits / page accesses of the measured phase (preconditioning bypasses the buffer).
    pub hit_ratio: Option<f64>,
    /// Read page hits / read page accesses.
    pub read_hit_ratio: Option<f64>,
    /// Write page hits / write page accesses.
    pub write_hit_ratio: Option<f64>,
    /// Hits by reads and writes, pages written down, migrated, merged, padded.
    pub counters: Option<crate::buffer::BufferCounters>,
    /// (pages written down together, times), per eviction (the end-of-run flush not included).
    pub flush_batches: Vec<(u64, u64)>,
    /// Power-loss exposure: most acknowledged writes held dirty only in DRAM at once.
    pub exposed_peak: u64,
    /// Mean over host requests of the dirty pages held only in DRAM.
    pub exposed_mean: f64,
    /// (host requests so far, dirty pages held only in DRAM), sampled over the run.
    pub exposure: Vec<(u64, u64)>,
    /// Present when `sim.crash_at` cut the run short.
    pub crash: Option<crate::device::CrashReport>,
}

/// Host request latencies in µs (timing mode; null in accounting mode), from arrival to completion.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Latencies {
    /// Read requests: count, mean, p50, p90, p99, p99.9, p99.99, max (µs).
    pub read: LatencySummary,
    /// Write requests: count, mean, p50, p90, p99, p99.9, p99.99, max (µs).
    pub write: LatencySummary,
    /// (latency µs, fraction of read requests at or below), one point per histogram bucket.
    pub read_cdf: Vec<(f64, f64)>,
    /// (latency µs, fraction of write requests at or below), one point per histogram bucket.
    pub write_cdf: Vec<(f64, f64)>,
    /// By request size, ascending: the classes up to 4 KiB, 16 KiB, 64 KiB, 256 KiB and above,
    /// each with requests (read and write summaries as `read` and `write`).
    pub by_size: Vec<SizeClassLatency>,
}

/// The latencies of the requests of one size class (timing mode).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SizeClassLatency {
    /// Largest request size of the class in bytes (null: larger than every other class).
    pub max_bytes: Option<u64>,
    /// Read requests of the class: count, mean, percentiles, max (µs).
    pub read: LatencySummary,
    /// Write requests of the class: count, mean, percentiles, max (µs).
    pub write: LatencySummary,
}

/// Upper bounds of the request size classes of [`Latencies::by_size`], bytes; larger requests
/// make a last class.
pub const SIZE_CLASSES: [u64; 4] = [4 << 10, 16 << 10, 64 << 10, 256 << 10];

/// How the run went: mode, seed, wall-clock and simulated time.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SimSummary {
    /// Simulation mode (`sim.mode`).
    pub mode: Mode,
    /// The run's seed.
    pub seed: u64,
    /// Wall-clock seconds of the measured phase (not deterministic).
    pub wall_s: f64,
    /// Wall-clock seconds spent preconditioning.
    pub precondition_wall_s: f64,
    /// Host pages (read + written + trimmed) simulated per wall-clock second.
    pub host_pages_per_s: f64,
    /// Simulated time from first arrival to last completion (timing mode), seconds.
    pub simulated_s: Option<f64>,
    /// Pages checked against the verify oracle (0 when verify is off).
    pub verified_reads: u64,
}

/// The FTL's garbage collection in a word or two for summaries (`with_schedule`: and its
/// schedule): the victim policy, or what a scheme without one does.
pub fn gc_words(cfg: &crate::Config, with_schedule: bool) -> String {
    match &cfg.ftl.gc {
        Some(gc) if with_schedule => format!("{gc} GC, {} schedule", cfg.ftl.schedule_name()),
        Some(gc) => format!("{gc} GC"),
        None if cfg.ftl.mapping == "zns" => "no device GC (zones written and reset by the host)".into(),
        None => "merges (no GC policy)".into(),
    }
}

/// The host layer in a line, when it is more than the pass-through (`log`: its GC).
pub fn host_layer_words(cfg: &crate::Config) -> Option<String> {
    if cfg.host.layer == "passthrough" {
        return None;
    }
    let p = &cfg.host.layer_params;
    let get = |k: &str, d: &str| p.get(k).and_then(|v| v.as_str()).unwrap_or(d).to_string();
    Some(format!(
        "{}: {} GC, {} schedule, over the zones",
        cfg.host.layer,
        get("gc", crate::ftl::DEFAULT_GC),
        get("gc_schedule", crate::ftl::schedule::DEFAULT)
    ))
}

/// The version of the `results.json` layout this build writes and reads: raised whenever a key
/// is renamed, removed or changes meaning, or `series.csv`'s columns change (a reader may take
/// them by position); adding a key to `results.json` alone does not. 2: `series.csv` gained the
/// timing columns (`time_s`, `throughput_mib_s`, per-interval latency percentiles) and the
/// latency summaries p90, p99.9 and p99.99. 3: `placement`, per reclaim unit handle (FDP), and `zones` (ZNS).
pub const SCHEMA_VERSION: u32 = 3;

/// Everything `results.json` holds. Written with [`Results::to_json`] and read back with
/// [`Results::from_json`] (the same layout: `schema_version` must match).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Results {
    /// The layout of this file ([`SCHEMA_VERSION`]); a reader refuses another.
    pub schema_version: u32,
    /// The flashlab version that wrote the file.
    pub flashlab_version: String,
    /// The config's `name`.
    pub name: Option<String>,
    /// The workload, described in one line.
    pub workload: String,
    /// The simulated device: capacities and geometry.
    pub device: DeviceSummary,
    /// What the host asked for in the measured phase.
    pub host: HostStats,
    /// Flash operations during the measured phase.
    pub flash: NandCounters,
    /// FTL operations in the measured phase: host reads and writes, GC victims, copies, rounds.
    pub ftl: FtlCounters,
    /// GC by write stream: copy flows, pages moved into a cold region and returned.
    pub gc: GcReport,
    /// Write classes and merges (block-level and hybrid mapping schemes only).
    pub hybrid: Option<crate::ftl::HybridReport>,
    /// Per reclaim unit handle: host pages, GC moves, WAF, reclaim units (`ftl.placement`
    /// only).
    pub placement: Option<crate::ftl::placement::PlacementReport>,
    /// Zone resets, finishes, appends and open-zone peaks (zoned devices, `ftl.mapping =
    /// "zns"`, only).
    pub zones: Option<crate::ftl::zns::ZoneReport>,
    /// Flash programs / host page writes (null when there were none): the device's write
    /// amplification, write buffer included.
    pub waf: Option<f64>,
    /// Flash programs / page writes that reached the FTL (the buffer's write-backs): the FTL's
    /// own amplification. Equal to `waf` without a buffer.
    pub waf_ftl: Option<f64>,
    /// Per-block erase counts at the end (whole life, preconditioning included).
    pub wear: Wear,
    /// (erase count, blocks with that count), ascending: the erase-count distribution over the
    /// device's life.
    pub wear_histogram: Vec<(u32, u64)>,
    /// The mapping scheme and its table.
    pub mapping: MappingSummary,
    /// The write buffer: hits, write-backs, power-loss exposure.
    pub buffer: BufferSummary,
    /// Reuse distances of the measured phase (`sim.reuse_distance`).
    pub reuse: Option<crate::stats::ReuseSummary>,
    /// Host request latencies in µs (timing mode; null in accounting mode).
    pub latency_us: Option<Latencies>,
    /// Host bytes read and written per simulated second, in MiB/s (2^20 bytes, the unit config
    /// sizes use), from the first arrival to the last completion (timing mode only).
    pub throughput_mib_s: Option<f64>,
    /// How the run went: mode, seed, wall-clock and simulated time.
    pub sim: SimSummary,
    /// Per-interval series (also `series.csv`); intervals are equal runs of host page writes
    /// (in timing mode with their latency percentiles, throughput and simulated time).
    pub series: Vec<SeriesPoint>,
    /// The keys of each `series` point, in order: the columns of `series.csv`.
    pub series_columns: Vec<String>,
    /// What the measured phase cannot say (e.g. no block erased, too few writes to reach a
    /// steady state, or an open-loop run whose device fell behind its arrivals, with the offered
    /// and served rates); also printed under the summary.
    pub warnings: Vec<String>,
    /// The resolved configuration the run used (keys in docs/config.md).
    pub config: Config,
}

/// The columns of `series.csv`, in order: the keys of [`SeriesPoint`], as its serialisation
/// names them (the CSV header is written from the struct).
pub fn series_columns() -> Vec<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.serialize(SeriesPoint::default()).expect("a series point serialises");
    let text = w.into_inner().expect("writing to memory");
    let header = text.split(|&b| b == b'\n').next().unwrap_or_default();
    String::from_utf8_lossy(header).split(',').map(str::to_string).collect()
}

impl Results {
    /// `results.json` text, keys sorted as declared, deterministic apart from wall times.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialise")
    }

    /// Read a `results.json` text back (`file` names it in errors). A file of another
    /// `schema_version` (or one written before versions existed) is refused, naming both.
    pub fn from_json(text: &str, file: &str) -> Result<Results, crate::Error> {
        use crate::error::Location;
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| crate::Error::input(Location::file(file), e.to_string()))?;
        let found = value.get("schema_version").and_then(serde_json::Value::as_u64);
        if found != Some(SCHEMA_VERSION as u64) {
            let found =
                found.map_or("none (written before flashlab 0.1's versioned results)".into(), |v| v.to_string());
            let msg = format!(
                "results schema_version {found}; this flashlab reads {SCHEMA_VERSION}: rerun with this version"
            );
            return Err(crate::Error::input(Location::file(file).with_field("schema_version"), msg));
        }
        serde_path_to_error::deserialize(value).map_err(|e| {
            let at = Location::file(file).with_field(e.path().to_string());
            crate::Error::input(at, e.into_inner().to_string())
        })
    }

    /// The per-interval series as CSV: a header of [`series_columns`], then one row per point;
    /// numbers as in `results.json` (shortest exact decimal), an absent value as an empty field.
    pub fn series_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        if self.series.is_empty() {
            w.write_record(series_columns()).expect("writing to memory");
        }
        for p in &self.series {
            w.serialize(p).expect("a series point serialises");
        }
        String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of numbers is UTF-8")
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

impl fmt::Display for Results {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.host;
        let d = &self.device;
        let gib = (1u64 << 30) as f64;
        writeln!(f, "run          {}", self.name.as_deref().unwrap_or("(unnamed)"))?;
        writeln!(f, "workload     {}", self.workload)?;
        let effective =
            d.effective_over_provisioning.map_or(String::new(), |e| format!(", {:.1}% effective", e * 100.0));
        writeln!(
            f,
            "device       {:.2} GiB logical / {:.2} GiB physical (OP {:.1}%{effective}), {} planes, {} segments x {} pages",
            d.logical_bytes as f64 / gib,
            d.physical_bytes as f64 / gib,
            d.over_provisioning * 100.0,
            d.planes,
            d.segments,
            d.pages_per_segment
        )?;
        writeln!(
            f,
            "ftl          {} mapping, {}, buffer {}",
            self.mapping.scheme,
            gc_words(&self.config, false),
            self.buffer.policy
        )?;
        if let Some(words) = host_layer_words(&self.config) {
            writeln!(f, "host layer   {words}")?;
        }
        if !self.gc.schedule.is_empty() {
            writeln!(f, "gc schedule  {}", self.gc.schedule)?;
        }
        writeln!(
            f,
            "host         {} requests: {} pages read, {} written, {} trimmed",
            h.requests, h.read_pages, h.write_pages, h.trim_pages
        )?;
        writeln!(
            f,
            "flash        {} reads, {} programs ({} copy-backs), {} erases",
            self.flash.reads, self.flash.programs, self.flash.copybacks, self.flash.erases
        )?;
        let rounds = if self.ftl.gc_background_rounds + self.ftl.gc_declined_rounds > 0 {
            format!(
                " in {} rounds ({} in the background, {} background rounds declined)",
                self.ftl.gc_rounds, self.ftl.gc_background_rounds, self.ftl.gc_declined_rounds
            )
        } else {
            format!(" in {} rounds", self.ftl.gc_rounds)
        };
        let fallback = self
            .gc
            .fallback_share
            .map_or(String::new(), |s| format!("; {:.1}% chosen by the fallback rule", s * 100.0));
        writeln!(
            f,
            "gc           {} victims{rounds}, {} pages moved{fallback}",
            self.ftl.gc_victims, self.ftl.gc_copies
        )?;
        if self.gc.flows.len() > 1 || self.gc.moved_into_cold > 0 {
            let flows: Vec<String> =
                self.gc.flows.iter().map(|fl| format!("{}->{} {}", fl.from, fl.to, fl.pages)).collect();
            writeln!(f, "gc flows     {}", flows.join(", "))?;
            writeln!(
                f,
                "cold region  {} pages moved in, {} returned by host writes (ratio {})",
                self.gc.moved_into_cold,
                self.gc.returned,
                opt(self.gc.returned_ratio, 4)
            )?;
        }
        if let Some(z) = &self.zones {
            writeln!(
                f,
                "zones        {} zones of {} pages: {} resets, {} finishes, {} appends; at most {} open, {} active ({} closed implicitly)",
                z.zones, z.zone_pages, z.resets, z.finishes, z.appends, z.peak_open, z.peak_active, z.implicit_closes
            )?;
        }
        if let Some(p) = &self.placement {
            let handles: Vec<String> = p
                .handles
                .iter()
                .filter(|h| h.host_pages + h.gc_moves > 0)
                .map(|h| format!("{}: {} pages WAF {}", h.handle, h.host_pages, opt(h.waf, 3)))
                .collect();
            writeln!(
                f,
                "placement    {} isolation; {}; {} untagged, {} invalid ids",
                p.isolation.name(),
                if handles.is_empty() { "no host writes".to_string() } else { handles.join(", ") },
                p.untagged_writes,
                p.invalid_ids
            )?;
        }
        if let Some(c) = &self.buffer.counters {
            let b = &self.buffer;
            let batches: u64 = b.flush_batches.iter().map(|x| x.1).sum();
            let mean = if batches > 0 {
                b.flush_batches.iter().map(|x| x.0 * x.1).sum::<u64>() as f64 / batches as f64
            } else {
                0.0
            };
            writeln!(
                f,
                "buffer       hit ratio {} (reads {}, writes {})",
                opt(b.hit_ratio, 4),
                opt(b.read_hit_ratio, 4),
                opt(b.write_hit_ratio, 4)
            )?;
            let evicted = if batches > 0 {
                format!("{batches} evictions, mean {mean:.2} pages each")
            } else {
                "no eviction wrote".into()
            };
            writeln!(
                f,
                "write-back   {} pages written down: {} at the end-of-run flush, the rest by evictions ({evicted})",
                c.flushed_pages, c.flush_command_pages
            )?;
            writeln!(f, "exposure     dirty pages only in DRAM: peak {}, mean {:.1}", b.exposed_peak, b.exposed_mean)?;
        }
        if let Some(c) = &self.buffer.crash {
            writeln!(
                f,
                "crash        after request {}: {} acknowledged page writes lost (DRAM), {} pages kept in NVRAM, {} written pages verified intact",
                self.host.requests,
                c.lost.len(),
                c.nvram_pages,
                c.survived_pages
            )?;
        }
        if self.config.buffer.policy == "none" {
            writeln!(f, "WAF          {}", opt(self.waf, 3))?;
        } else {
            writeln!(
                f,
                "WAF          {} (flash programs / host page writes; FTL alone: {})",
                opt(self.waf, 3),
                opt(self.waf_ftl, 3)
            )?;
        }
        writeln!(
            f,
            "wear         erases/block min {} max {} mean {:.2} sd {:.2}",
            self.wear.erase_min, self.wear.erase_max, self.wear.erase_mean, self.wear.erase_stddev
        )?;
        if let Some(l) = &self.latency_us {
            for (name, s) in [("read", &l.read), ("write", &l.write)] {
                if s.count > 0 {
                    writeln!(
                        f,
                        "{name:<5} lat µs mean {:.1}  p50 {:.1}  p90 {:.1}  p99 {:.1}  p99.9 {:.1}  p99.99 {:.1}  max {:.1}",
                        s.mean, s.p50, s.p90, s.p99, s.p999, s.p9999, s.max
                    )?;
                }
            }
            writeln!(
                f,
                "throughput   {} MiB/s over {} s simulated",
                opt(self.throughput_mib_s, 1),
                opt(self.sim.simulated_s, 3)
            )?;
        }
        let p = &self.config.precondition;
        if p.fill || p.overwrite > 0.0 {
            let fill = if p.fill { "sequential fill" } else { "" };
            let and = if p.fill && p.overwrite > 0.0 { " + " } else { "" };
            let overwrite = if p.overwrite > 0.0 {
                format!("{}x capacity of random overwrites", p.overwrite)
            } else {
                String::new()
            };
            writeln!(
                f,
                "precondition {fill}{and}{overwrite}, not measured: {:.2} s wall",
                self.sim.precondition_wall_s
            )?;
        }
        for w in &self.warnings {
            writeln!(f, "warning      {w}")?;
        }
        write!(
            f,
            "speed        {:.2} M host pages/s ({:.2} s wall{})",
            self.sim.host_pages_per_s / 1e6,
            self.sim.wall_s,
            if self.sim.precondition_wall_s > 0.0 {
                format!(" + {:.2} s preconditioning", self.sim.precondition_wall_s)
            } else {
                String::new()
            }
        )
    }
}
