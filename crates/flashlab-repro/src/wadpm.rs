//! `flashlab reproduce wadpm`: the WADPM paper (`shared/papers/000_*.txt`): a plane-level,
//! demand-loaded page mapping against hybrid (FAST) and full page mapping.
//!
//! Setup (paper Tables 1–2, §3): the `wadpm-4gb` preset (16 planes of 256 MB in 4 chips × 2 dies
//! × 2 planes, 2 KB pages, 128 KB blocks, read 25 µs, program 200 µs, erase 2 ms, 40 MB/s bus,
//! die-level parallelism), FAST with 2,048 log blocks. The four traces are not public; the
//! workloads are generators with each trace's volume, mean request size and pattern (Table 1):
//!
//! | workload | generator | volume | mean request | footprint (our choice, see below) |
//! |---|---|---|---|---|
//! | Bonnie++ | sequential, 1.8% excursions within 128 MiB | 884.38 MB | 33.06 KB | volume / 3 (write, rewrite passes over one file) |
//! | IOzone | sequential, 35.2% excursions within 256 KiB | 3.42 GB | 58.68 KB | volume / 2 (write + rewrite) |
//! | Internet Explorer | uniform random | 356.77 MB | 14.21 KB | the whole device (§5.3: "a wide address range") |
//! | PC application | mixed (half the requests continue the previous one) | 1.62 GB | 13.53 KB | volume / 2 |
//!
//! The sequential generators carry the jumps real captures of the same benchmarks have
//! (`SEQUENTIAL_SHARE`, `JUMP_SPAN_KIB`): `mixed` with `resume = true`, so a jump is an
//! excursion near the file's stream, which resumes after it. Request sizes are two-point
//! distributions of 2 KiB multiples around the stated mean. Runs start on an empty device, in
//! timing mode; a last section preconditions the device so GC runs. Quick scale divides every
//! volume and footprint by 8 (same device).
//!
//! What the paper leaves open is declared in the report before the results, each with a main
//! reading and the others run beside it (`declared`): the host (saturating: closed loop at
//! queue depth 65,536; depths 1, 8, 32), the cost of a mapping miss (a dirty translation page is
//! programmed on write-back; free, the paper's cost model), the dynamic window's step and
//! interval (chosen by the paper's criterion, best throughput, over a declared grid; the pair
//! read off Fig. 11 is by construction), IE's address range (the whole device; 357 MiB, 1 and
//! 2 GiB) and FAST's sequential log (per plane; one for the device). Every claim is judged on
//! the main reading and shown under the others; a reading that closes a gap explains it.

use std::fmt::Write as _;

use serde_json::json;

use super::verdict::{self, Claim, Kind};
use super::{run_all, Outcome, RunProgress, Scale, Setup};
use crate::plot::{bar_chart, line_chart, Bars, Line};
use flashlab::config::Config;
use flashlab::error::Error;
use flashlab::presets;
use flashlab::results::Results;
use flashlab::workload::trace::{self, TraceOptions, TraceStats};

/// The paper, as its text prints it.
pub const CITATION: super::Citation = super::Citation {
    authors: "Byungmin Ha, Hyunjin Cho, Young Ik Eom",
    title: "WADPM: Workload-Aware Dynamic Page-level Mapping Scheme for SSD based on NAND Flash Memory",
    venue: "Journal of KIISE: Computer Systems and Theory 37(4), August 2010",
};

struct Trace {
    key: &'static str,
    label: &'static str,
    kind: &'static str,
    /// `mixed`: share of requests that continue the run, and whether a jump is an excursion.
    mixed: Option<(f64, bool)>,
    /// `mixed`: jumps land within this distance of the run (anywhere when `None`).
    jump_span_kib: Option<u64>,
    /// Bytes written (Table 1), and the address range written.
    volume_mib: u64,
    footprint: Footprint,
    sizes: &'static str,
}

const TRACES: &[Trace] = &[
    Trace {
        key: "bonnie",
        label: "Bonnie++",
        kind: "mixed",
        mixed: Some((SEQUENTIAL_SHARE[0], true)),
        jump_span_kib: Some(JUMP_SPAN_KIB[0]),
        volume_mib: 884,
        footprint: Footprint::Div(3),
        sizes: "{ \"32KiB\" = 0.47, \"34KiB\" = 0.53 }",
    },
    Trace {
        key: "iozone",
        label: "IOzone",
        kind: "mixed",
        mixed: Some((SEQUENTIAL_SHARE[1], true)),
        jump_span_kib: Some(JUMP_SPAN_KIB[1]),
        volume_mib: 3502,
        footprint: Footprint::Div(2),
        sizes: "{ \"58KiB\" = 0.66, \"60KiB\" = 0.34 }",
    },
    Trace {
        key: "ie",
        label: "Internet Explorer",
        kind: "uniform",
        mixed: None,
        jump_span_kib: None,
        volume_mib: 357,
        footprint: Footprint::Whole,
        sizes: "{ \"14KiB\" = 0.895, \"16KiB\" = 0.105 }",
    },
    Trace {
        key: "pcapp",
        label: "PC application",
        kind: "mixed",
        mixed: Some((0.5, false)),
        jump_span_kib: None,
        volume_mib: 1659,
        footprint: Footprint::Div(2),
        sizes: "{ \"12KiB\" = 0.235, \"14KiB\" = 0.765 }",
    },
];

/// Share of written bytes that continue one of the last 8 writes (`trace stats`, "sequential")
/// in the real ext4 captures of Bonnie++ and IOzone (`REAL`): the rest are jumps (scattered
/// small writes, IOzone's random phases), whose mean size (42 / 62 KiB) is close to the paper's
/// mean request (33 / 59 KB), so the generators use the byte share as the per-request share.
/// A test recomputes both from the built-in traces.
const SEQUENTIAL_SHARE: [f64; 2] = [0.982, 0.648];
/// How far the captures' jumps land from the nearest recent write end: 90% of their bytes
/// within 128 MiB (Bonnie++) and 256 KiB (IOzone; `trace stats`, "jump distance"). The
/// generators' jumps land uniformly within that distance of the file's stream.
const JUMP_SPAN_KIB: [u64; 2] = [128 << 10, 256];

/// Real block traces of the paper's two benchmarks (built-in, captured on ext4 here: see
/// `data/traces/PROVENANCE.md`): key, label, built-in name, the paper's mean request (Table 1).
struct RealTrace {
    key: &'static str,
    label: &'static str,
    builtin: &'static str,
    paper_mean: &'static str,
    /// The paper's mean request rounded down to whole 4 KiB pages: the split rows' request limit.
    split_kib: u64,
}

const REAL: [RealTrace; 2] = [
    RealTrace {
        key: "bonnie-trace",
        label: "Bonnie++ (ext4 capture)",
        builtin: "bonnie-1g",
        paper_mean: "33.06 KB",
        split_kib: 32,
    },
    RealTrace {
        key: "iozone-trace",
        label: "IOzone-like (ext4 capture)",
        builtin: "iozone-like-1g",
        paper_mean: "58.68 KB",
        split_kib: 56,
    },
];
/// Label suffix of the real-trace runs with requests split to the paper's mean size.
const SPLIT: &str = " split";
/// The variants run on the real traces.
const REAL_VARIANTS: [&str; 3] = ["page", "FAST", DYNAMIC];

const WINDOWS: [u32; 7] = [1, 2, 4, 8, 12, 16, 20];
const LOADINGS: [&str; 3] = ["per-miss-entry", "read-ahead", "page-chunk"];
/// The dynamic window's step (% of the table) and interval (lookups), which the paper does not
/// give: the grid, declared before the run, over which the paper's own criterion ("set by
/// experiment to give the best performance", §5.3) picks the pair every dynamic row uses.
const STEPS: [u32; 3] = [1, 5, 10];
const INTERVALS: [u64; 3] = [512, 4096, 32768];
/// The pair read off Fig. 11's window shapes (the previous default): shown as a reading, and
/// by construction for the mean-window claims.
const FIG11_PAIR: (u32, u64) = (1, 4096);

/// The host model, declared before the run. The paper has none (an SSDsim-based simulator fed
/// traces); a saturating host, closed loop at NVMe's largest queue (every request the workload
/// has is waiting), is the closest to it. Closed loop at these depths are the other readings.
const HOST_DEPTH: u32 = 65_536;
const OTHER_DEPTHS: [u32; 3] = [1, 8, 32];

/// The label of a dynamic run at one grid point.
fn grid_label(step: u32, interval: u64) -> String {
    format!("WADPM dynamic step {step}% / {interval}")
}
/// The dynamic rows at the chosen grid point.
const DYNAMIC: &str = "WADPM dynamic";
/// Label suffixes of the other readings.
fn qd_suffix(depth: u32) -> String {
    format!(" [QD {depth}]")
}
const FREE_WB: &str = " [write-back free]";
const SW_DEVICE: &str = " [device SW log]";
/// FAST with one sequential log block for the whole device (the original FAST).
fn fast_device_sw() -> Variant {
    fast().with(SW_DEVICE, &["ftl.mapping_params.sequential_log=\"device\"".to_string()])
}
fn ie_suffix(mib: u64) -> String {
    format!(" [IE footprint {mib} MiB]")
}
/// Internet Explorer's footprint readings (paper scale, MiB): its volume (cache files written
/// once over that much space, the previous default), 1 and 2 GiB; the main reading spreads it
/// over the whole device (§5.3: "a random access pattern and a wide address range").
const IE_FOOTPRINTS: [u64; 3] = [357, 1024, 2048];

/// One run: label and the overrides that make it.
struct Variant {
    label: String,
    sets: Vec<String>,
}

impl Variant {
    fn new(label: impl Into<String>, sets: &[&str]) -> Variant {
        Variant { label: label.into(), sets: sets.iter().map(|s| s.to_string()).collect() }
    }
    fn relabel(mut self, label: String) -> Variant {
        self.label = label;
        self
    }
    /// The same run under another reading: a label suffix and more overrides.
    fn with(&self, suffix: &str, sets: &[String]) -> Variant {
        let mut v = Variant { label: format!("{}{suffix}", self.label), sets: self.sets.clone() };
        v.sets.extend(sets.iter().cloned());
        v
    }
}

fn page() -> Variant {
    Variant::new("page", &["ftl.mapping=\"page\"", "ftl.mapping_params="])
}
fn fast() -> Variant {
    Variant::new(
        "FAST",
        &["ftl.mapping=\"fast\"", "ftl.gc=", "ftl.mapping_params=", "ftl.mapping_params.log_blocks=128"],
    )
}
/// Dynamic WADPM (starting at 1%) at a grid point, labelled `label`.
fn dynamic(label: impl Into<String>, (step, interval): (u32, u64)) -> Variant {
    Variant {
        label: label.into(),
        sets: vec![
            "ftl.mapping_params.dynamic=true".into(),
            "ftl.mapping_params.window=0.01".into(),
            format!("ftl.mapping_params.step={}", step as f64 / 100.0),
            format!("ftl.mapping_params.interval={interval}"),
        ],
    }
}
fn static_window(w: u32) -> Variant {
    Variant { label: format!("WADPM {w}%"), sets: vec![format!("ftl.mapping_params.window={}", w as f64 / 100.0)] }
}

/// The runs that choose the window's step and interval, and everything else that does not
/// depend on them: page, FAST, the grid, static windows, loading methods (main host).
fn first_variants() -> Vec<Variant> {
    let mut v = vec![page(), fast()];
    for step in STEPS {
        for interval in INTERVALS {
            v.push(dynamic(grid_label(step, interval), (step, interval)));
        }
    }
    v.extend(WINDOWS.map(static_window));
    for l in LOADINGS {
        v.push(Variant {
            label: format!("WADPM 4% {l}"),
            sets: vec!["ftl.mapping_params.window=0.04".into(), format!("ftl.mapping_params.loading=\"{l}\"")],
        });
    }
    v
}

/// The other readings of one generator workload, with the chosen grid point.
fn reading_variants(t: &Trace, chosen: (u32, u64), scale: Scale) -> Vec<Variant> {
    let mut v = Vec::new();
    let main = [page(), fast(), dynamic(DYNAMIC, chosen)];
    for depth in OTHER_DEPTHS {
        for m in &main {
            v.push(m.with(&qd_suffix(depth), &[format!("host.queue_depth={depth}")]));
        }
    }
    let free = ["ftl.mapping_params.write_back=\"free\"".to_string()];
    v.push(dynamic(DYNAMIC, chosen).with(FREE_WB, &free));
    v.push(fast_device_sw());
    v.push(static_window(20).with(FREE_WB, &free));
    if t.footprint == Footprint::Whole {
        let div = if scale == Scale::Quick { 8 } else { 1 };
        for mib in IE_FOOTPRINTS {
            for m in &main {
                v.push(m.with(&ie_suffix(mib), &[format!("workload.footprint=\"{}MiB\"", mib / div)]));
            }
        }
    }
    v
}

/// A generator's address range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Footprint {
    /// The volume divided by this (files rewritten that many times).
    Div(u64),
    /// The whole device (at quick scale an eighth of it, as every volume).
    Whole,
}

fn config(t: &Trace, v: &Variant, scale: Scale) -> Result<Config, Error> {
    let preset = presets::find("wadpm-4gb").expect("registered preset");
    let div = if scale == Scale::Quick { 8 } else { 1 };
    let volume = t.volume_mib / div;
    let footprint = match t.footprint {
        Footprint::Div(d) => format!("\"{}MiB\"", (volume / d).max(1)),
        // A float: an integer would be bytes.
        Footprint::Whole => format!("{:?}", 1.0 / div as f64),
    };
    let mut sets = vec![
        format!("name=\"wadpm {} {}\"", t.key, v.label),
        "workload=".into(),
        format!("workload.kind=\"{}\"", t.kind),
        format!("workload.volume=\"{volume}MiB\""),
        format!("workload.footprint={footprint}"),
        format!("workload.request_size={}", t.sizes),
        "workload.align=\"2KiB\"".into(),
        "host.arrival=\"closed\"".into(),
        format!("host.queue_depth={HOST_DEPTH}"),
    ];
    if let Some((share, resume)) = t.mixed {
        sets.push(format!("workload.sequential_share={share}"));
        sets.push(format!("workload.resume={resume}"));
    }
    if let Some(kib) = t.jump_span_kib {
        sets.push(format!("workload.jump_span=\"{kib}KiB\""));
    }
    sets.extend(v.sets.iter().cloned());
    Config::from_toml_str(preset.text, &format!("preset wadpm-4gb (wadpm {})", t.key), &sets)
}

/// A real trace replayed whole at both scales (it takes well under a second a run), with the
/// generators' host, its addresses compacted onto the device (ext4 put its journal near 4 GiB).
fn real_config(t: &RealTrace, v: &Variant, split: bool) -> Result<Config, Error> {
    let preset = presets::find("wadpm-4gb").expect("registered preset");
    let mut sets = vec![
        format!("name=\"wadpm {} {}{}\"", t.key, v.label, if split { SPLIT } else { "" }),
        "workload=".into(),
        "workload.kind=\"trace\"".into(),
        format!("workload.path=\"builtin:{}\"", t.builtin),
        "host.out_of_range=\"compact\"".into(),
        "host.arrival=\"closed\"".into(),
        format!("host.queue_depth={HOST_DEPTH}"),
    ];
    if split {
        sets.push(format!("host.max_request=\"{}KiB\"", t.split_kib));
    }
    sets.extend(v.sets.iter().cloned());
    Config::from_toml_str(preset.text, &format!("preset wadpm-4gb (wadpm {})", t.key), &sets)
}

/// The preconditioned comparison: page mapping with GC inside each plane (block units, the
/// `page` rows above) and across planes (line units: a victim's pages move to the GC frontier's
/// line, which stripes over every plane), and dynamic WADPM at the chosen grid point (always
/// inside the plane).
fn pre_variants(chosen: (u32, u64)) -> [Variant; 3] {
    [
        Variant::new("page, per-plane GC", &["ftl.mapping=\"page\"", "ftl.mapping_params="]),
        Variant::new("page, cross-plane GC", &["ftl.mapping=\"page\"", "ftl.mapping_params=", "ftl.gc_unit=\"line\""]),
        dynamic(DYNAMIC, chosen),
    ]
}
const PRE_LABELS: [&str; 3] = ["page, per-plane GC", "page, cross-plane GC", DYNAMIC];
/// Preconditioning before the measured workload: the whole device written once, then this many
/// times its capacity in uniform random page writes (paper scale; half at quick scale).
const PRE_OVERWRITE: f64 = 1.0;

fn pre_label(v: &str) -> String {
    format!("preconditioned: {v}")
}

fn pre_config(t: &Trace, v: &Variant, scale: Scale) -> Result<Config, Error> {
    let overwrite = if scale == Scale::Quick { PRE_OVERWRITE / 2.0 } else { PRE_OVERWRITE };
    let sets = ["precondition.fill=true".to_string(), format!("precondition.overwrite={overwrite}")];
    config(t, &v.with("", &sets).relabel(pre_label(&v.label)), scale)
}

struct Runs {
    keys: Vec<(&'static str, String)>,
    results: Vec<Results>,
    /// The window's step (%) and interval (lookups) the grid chose.
    chosen: (u32, u64),
}

impl Runs {
    fn get(&self, trace: &str, label: &str) -> &Results {
        self.find(trace, label).unwrap_or_else(|| panic!("no run {trace} / {label}"))
    }
    fn find(&self, trace: &str, label: &str) -> Option<&Results> {
        let label = if label == DYNAMIC && !self.keys.iter().any(|(t, l)| *t == trace && l == DYNAMIC) {
            grid_label(self.chosen.0, self.chosen.1)
        } else {
            label.to_string()
        };
        self.keys.iter().position(|(t, l)| *t == trace && *l == label).map(|i| &self.results[i])
    }
    /// `label` under the reading `suffix`, or the main run when that reading does not change it
    /// (e.g. page mapping with write-backs free).
    fn reading(&self, trace: &str, label: &str, suffix: &str) -> &Results {
        self.find(trace, &format!("{label}{suffix}")).unwrap_or_else(|| self.get(trace, label))
    }
}

/// Geometric mean over the four generator workloads of dynamic WADPM's throughput at a grid
/// point, relative to page mapping: the criterion that chooses the grid point.
fn grid_score(runs: &Runs, (step, interval): (u32, u64)) -> f64 {
    let logs: f64 = TRACES
        .iter()
        .map(|t| {
            let r = tput(runs.get(t.key, &grid_label(step, interval))) / tput(runs.get(t.key, "page")).max(1e-9);
            r.max(1e-12).ln()
        })
        .sum();
    (logs / TRACES.len() as f64).exp()
}

/// The grid point with the highest [`grid_score`] (the first in grid order on a tie).
fn choose(runs: &Runs) -> (u32, u64) {
    let mut best = (STEPS[0], INTERVALS[0]);
    for step in STEPS {
        for interval in INTERVALS {
            if grid_score(runs, (step, interval)) > grid_score(runs, best) {
                best = (step, interval);
            }
        }
    }
    best
}

fn tput(r: &Results) -> f64 {
    r.throughput_mib_s.unwrap_or(0.0)
}
fn hit(r: &Results) -> f64 {
    r.mapping.cache.as_ref().and_then(|c| c.hit_ratio).unwrap_or(1.0)
}

/// A dynamic run's window as a share of the full table: (final, mean over the adjustment
/// intervals); `None` when no interval completed.
fn window_shares(r: &Results) -> Option<(f64, f64)> {
    let c = r.mapping.cache.as_ref()?;
    let full = (c.full_table_bytes / 4).max(1) as f64;
    let last = *c.window_history.last()?;
    let mean = c.window_history.iter().sum::<u64>() as f64 / c.window_history.len() as f64;
    Some((last as f64 / full, mean / full))
}

/// The final window for a table cell.
fn final_window_text(r: &Results) -> String {
    window_shares(r).map_or("never adjusted".into(), |(last, _)| format!("{:.0}%", 100.0 * last))
}

pub fn run(setup: &Setup, progress: &dyn RunProgress) -> Result<Outcome, Error> {
    let scale = setup.scale;
    // First the runs that choose the window's step and interval, then those that use them.
    let first = first_variants();
    let mut jobs = Vec::new();
    let mut keys = Vec::new();
    for t in TRACES {
        for v in &first {
            jobs.push((format!("{} / {}", t.label, v.label), config(t, v, scale)?));
            keys.push((t.key, v.label.clone()));
        }
    }
    // The second phase's size does not depend on the choice: one progress bar over both.
    let second_len =
        TRACES.iter().map(|t| reading_variants(t, FIG11_PAIR, scale).len() + PRE_LABELS.len()).sum::<usize>()
            + REAL.len() * (REAL_VARIANTS.len() * 2 + 1);
    progress.start(jobs.len() + second_len);
    let phase = super::Continuing(progress);
    let results = run_all(&jobs, setup, &phase)?;
    let mut runs = Runs { keys, results, chosen: FIG11_PAIR };
    runs.chosen = choose(&runs);
    let chosen = runs.chosen;
    let mut jobs = Vec::new();
    let mut keys = Vec::new();
    for t in TRACES {
        for v in reading_variants(t, chosen, scale) {
            jobs.push((format!("{} / {}", t.label, v.label), config(t, &v, scale)?));
            keys.push((t.key, v.label));
        }
    }
    for t in &REAL {
        for v in [page(), fast(), dynamic(DYNAMIC, chosen)] {
            for split in [false, true] {
                let label = format!("{}{}", v.label, if split { SPLIT } else { "" });
                jobs.push((format!("{} / {label}", t.label), real_config(t, &v, split)?));
                keys.push((t.key, label));
            }
        }
        let v = fast_device_sw();
        jobs.push((format!("{} / {}", t.label, v.label), real_config(t, &v, false)?));
        keys.push((t.key, v.label));
    }
    for t in TRACES {
        for v in pre_variants(chosen) {
            jobs.push((format!("{} / {}", t.label, pre_label(&v.label)), pre_config(t, &v, scale)?));
            keys.push((t.key, pre_label(&v.label)));
        }
    }
    debug_assert_eq!(jobs.len(), second_len);
    runs.results.extend(run_all(&jobs, setup, &phase)?);
    runs.keys.extend(keys);
    let mut real_stats = Vec::new();
    for t in &REAL {
        real_stats.push(trace::stats(&TraceOptions::new(format!("builtin:{}", t.builtin)), 4096)?);
    }
    let rows: Vec<serde_json::Value> = runs
        .keys
        .iter()
        .zip(&runs.results)
        .map(|((t, l), r)| {
            json!({
                "workload": t, "policy": l, "throughput_mib_s": r.throughput_mib_s, "waf": r.waf,
                "write_latency_us_mean": r.latency_us.as_ref().map(|x| x.write.mean),
                "mapping_hit_ratio": r.mapping.hit_ratio, "table_bytes": r.mapping.table_bytes,
                "map_reads": r.mapping.cache.as_ref().map(|c| c.map_reads), "map_writes": r.mapping.cache.as_ref().map(|c| c.map_writes),
                "window_history": r.mapping.cache.as_ref().map(|c| c.window_history.clone()),
                "write_classes": r.hybrid, "gc_moves": r.ftl.gc_copies, "copybacks": r.flash.copybacks, "erases": r.flash.erases,
            })
        })
        .collect();
    let files = plots(&runs);
    let report_md = report(scale, &runs, &real_stats);
    let json = json!({
        "reproduction": "wadpm",
        "paper": CITATION.line(),
        "scale": scale,
        "host_queue_depth": HOST_DEPTH,
        "window_step": chosen.0 as f64 / 100.0,
        "window_interval": chosen.1,
        "rows": rows,
    });
    Ok(Outcome { json, report_md, files, claims: claims(&runs) })
}

fn plots(runs: &Runs) -> Vec<(String, String)> {
    let cats: Vec<String> = TRACES.iter().map(|t| t.label.to_string()).collect();
    let tp = Bars {
        x_label: "workload".into(),
        categories: cats.clone(),
        series: ["page", "FAST", "WADPM dynamic"]
            .iter()
            .map(|l| (l.to_string(), TRACES.iter().map(|t| tput(runs.get(t.key, l))).collect()))
            .collect(),
        stacked: false,
    };
    let hits = Bars {
        x_label: "workload".into(),
        categories: cats.clone(),
        series: LOADINGS
            .iter()
            .map(|l| {
                (l.to_string(), TRACES.iter().map(|t| 100.0 * hit(runs.get(t.key, &format!("WADPM 4% {l}")))).collect())
            })
            .collect(),
        stacked: false,
    };
    let windows: Vec<Line> = TRACES
        .iter()
        .map(|t| Line {
            name: t.label.to_string(),
            points: WINDOWS
                .iter()
                .map(|&w| {
                    (
                        w as f64,
                        tput(runs.get(t.key, &format!("WADPM {w}%"))) / tput(runs.get(t.key, "page")).max(1e-9) * 100.0,
                    )
                })
                .collect(),
        })
        .collect();
    let dynamic: Vec<Line> = TRACES
        .iter()
        .map(|t| {
            let r = runs.get(t.key, "WADPM dynamic");
            let hist = r.mapping.cache.as_ref().map(|c| c.window_history.clone()).unwrap_or_default();
            let full = r.mapping.cache.as_ref().map_or(1, |c| c.full_table_bytes / 4).max(1) as f64;
            Line {
                name: t.label.to_string(),
                points: hist.iter().enumerate().map(|(i, &e)| (i as f64 + 1.0, 100.0 * e as f64 / full)).collect(),
            }
        })
        .collect();
    vec![
        ("throughput.svg".into(), bar_chart("Throughput by mapping (Figs. 4b, 12)", "MiB/s", &tp)),
        (
            "hit-ratio-loading.svg".into(),
            bar_chart("Mapping hit ratio by loading method, 4% window (Fig. 9)", "hit ratio (%)", &hits),
        ),
        (
            "static-windows.svg".into(),
            line_chart(
                "WADPM with static windows (Fig. 10)",
                "window (% of the page table)",
                "throughput (% of page mapping)",
                &windows,
                Some(0.0),
            ),
        ),
        (
            "dynamic-window.svg".into(),
            line_chart(
                "Dynamic window size (Fig. 11)",
                "adjustment interval",
                "window (% of the page table)",
                &dynamic,
                Some(0.0),
            ),
        ),
    ]
}

fn report(scale: Scale, runs: &Runs, real_stats: &[TraceStats]) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(w, "# WADPM reproduction ({} scale)\n", if scale == Scale::Quick { "quick" } else { "paper" });
    let _ = writeln!(w, "Paper: {}\n", CITATION.line());
    let _ = writeln!(w, "## Setup\n\nDevice: preset `wadpm-4gb` (paper Table 2): 4 GB, 16 planes of 256 MB (4 chips × 2 dies × 2 planes, planes of a die share its array: 8 operate at once), 128 KB blocks, 2 KB pages, read 25 µs / program 200 µs / erase 2 ms, 40 MB/s per chip bus. FAST with 2,048 log blocks (128 per plane). Empty device, timing mode. 4-byte mapping entries (512 per 2 KB translation page).\n");
    declared(w, scale);
    let _ = writeln!(
        w,
        "| workload | pattern | volume (paper) | mean request (paper) | our generator |\n|---|---|---|---|---|"
    );
    for (t, (vol, mean, pat)) in TRACES.iter().zip([
        ("884.38 MB", "33.06 KB", "sequential"),
        ("3.42 GB", "58.68 KB", "sequential"),
        ("356.77 MB", "14.21 KB", "random"),
        ("1.62 GB", "13.53 KB", "random + sequential"),
    ]) {
        let shape = match t.mixed {
            Some((share, true)) => format!(
                " ({:.1}% of requests continue the file, the rest are excursions within {} of it)",
                100.0 * share,
                t.jump_span_kib.map_or("the footprint".into(), |k| if k >= 1024 {
                    format!("{} MiB", k / 1024)
                } else {
                    format!("{k} KiB")
                })
            ),
            Some((share, false)) => {
                format!(" ({:.0}% continue the previous request, the rest start a new run)", 100.0 * share)
            }
            None => String::new(),
        };
        let _ = writeln!(
            w,
            "| {} | {pat} | {vol} | {mean} | `{}`{shape}, {} MiB{}, footprint {} |",
            t.label,
            t.kind,
            t.volume_mib,
            if scale == Scale::Quick { " / 8" } else { "" },
            match t.footprint {
                Footprint::Div(d) => format!("volume/{d}"),
                Footprint::Whole => format!("the whole device{}", if scale == Scale::Quick { " / 8" } else { "" }),
            }
        );
    }
    let _ = writeln!(w, "\nThe traces are not public: generators keep their volume, mean request size and pattern; footprints are our assumption (Bonnie++ and IOzone rewrite their files; IE's cache files are spread over the device, see above; PC application updates half its data). \
        The Bonnie++ and IOzone generators are not purely sequential: real ext4 captures of the same benchmarks (the real-trace rows below) write {:.1}% and {:.1}% of their bytes as jumps that continue none of the last 8 writes (scattered small writes, IOzone's random phases; `flashlab trace stats`, \"sequential\"), with mean jump sizes of 42 and 62 KiB, close to the paper's mean requests, and 90% of the jumped bytes within 128 MiB and 256 KiB of the stream (\"jump distance\"); the generators jump on that share of requests, within that distance, and resume the file's stream after each jump. \
        Internet Explorer and PC application have no real counterpart here: IE stays uniform random, PC application keeps an even mix of runs and jumps (our assumption).\n",
        100.0 * (1.0 - SEQUENTIAL_SHARE[0]), 100.0 * (1.0 - SEQUENTIAL_SHARE[1]));
    let _ = writeln!(w, "{RULE}\n");
    let _ = writeln!(
        w,
        "## Fig. 4: write classes under hybrid mapping (FAST)\n\nPage mapping has one class (all `write_data`).\n"
    );
    let _ = writeln!(w, "| workload | write_data | update_pure | update_wasted | FAST / page throughput | paper |\n|---|---|---|---|---|---|");
    for t in TRACES {
        let f = runs.get(t.key, "FAST");
        let h = f.hybrid.unwrap_or_default();
        let n = (h.write_data + h.update_pure + h.update_wasted).max(1) as f64;
        let paper = if t.mixed.is_some_and(|(_, resume)| resume) {
            "mostly update_pure"
        } else {
            "update_wasted a little above update_pure"
        };
        let _ = writeln!(
            w,
            "| {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {paper}; hybrid 25–50% of page |",
            t.label,
            100.0 * h.write_data as f64 / n,
            100.0 * h.update_pure as f64 / n,
            100.0 * h.update_wasted as f64 / n,
            100.0 * tput(f) / tput(runs.get(t.key, "page")).max(1e-9)
        );
    }
    let _ = writeln!(w, "\n![throughput.svg](throughput.svg)\n");
    let _ = writeln!(w, "## Fig. 9: hit ratio by loading method (window 4%)\n\nPaper: page-chunk has the highest hit ratio on every workload.\n");
    let _ = writeln!(w, "| workload | per-miss-entry | read-ahead (8) | page-chunk |\n|---|---|---|---|");
    for t in TRACES {
        let c: Vec<String> = LOADINGS
            .iter()
            .map(|l| format!("{:.1}%", 100.0 * hit(runs.get(t.key, &format!("WADPM 4% {l}")))))
            .collect();
        let _ = writeln!(w, "| {} | {} |", t.label, c.join(" | "));
    }
    let _ = writeln!(w, "\n![hit-ratio-loading.svg](hit-ratio-loading.svg)\n");
    let _ = writeln!(w, "## Fig. 10 / Table 4: static windows\n\nThroughput as a share of page mapping; paper: Bonnie++/IOzone no loss at small windows, IE −15% and PC −10% at 20%.\n");
    let _ = writeln!(
        w,
        "| workload | {} |\n|---|{}",
        WINDOWS.map(|x| format!("{x}%")).join(" | "),
        "---|".repeat(WINDOWS.len())
    );
    for t in TRACES {
        let page = tput(runs.get(t.key, "page")).max(1e-9);
        let c: Vec<String> = WINDOWS
            .iter()
            .map(|&x| format!("{:.1}%", 100.0 * tput(runs.get(t.key, &format!("WADPM {x}%"))) / page))
            .collect();
        let _ = writeln!(w, "| {} | {} |", t.label, c.join(" | "));
    }
    let page_bytes = runs.get("ie", "page").mapping.table_bytes;
    let sizes: Vec<String> = WINDOWS
        .iter()
        .map(|&x| format!("{} KB", runs.get("ie", &format!("WADPM {x}%")).mapping.table_bytes / 1024))
        .collect();
    let _ = writeln!(w, "\nTable sizes — ours: hybrid (FAST) {} KB, WADPM {}, page {:.2} MB. Paper: hybrid 60 KB, WADPM 54 / 108 / 215 / 430 / 645 / 860 / 1,075 KB, page 5.25 MB. Ours use 4-byte entries and count FAST's log-block page maps; the paper's figures imply packed ~21-bit entries.\n",
        runs.get("ie", "FAST").mapping.table_bytes / 1024, sizes.join(" / "), page_bytes as f64 / (1 << 20) as f64);
    let _ = writeln!(w, "![static-windows.svg](static-windows.svg)\n");
    let (step, interval) = runs.chosen;
    let edge = step == STEPS[STEPS.len() - 1]
        || step == STEPS[0]
        || interval == INTERVALS[0]
        || interval == INTERVALS[INTERVALS.len() - 1];
    let _ = writeln!(w, "## Fig. 11 / 12: dynamic window\n\nParameters: θHR 0.90, θMT 5 (paper); step {step}% of the table and {interval} lookups per interval, chosen by the grid declared above{} (geometric mean of WADPM's throughput relative to page mapping over the four generators: {:.3}; the Fig. 11 pair, 1% / 4,096, scores {:.3}). Paper: Bonnie++/IOzone stay near 2% with ~100% hits, IE grows to 35%, PC to 50%; average 2 / 2 / 26 / 22%; WADPM 1.85–3.5× hybrid throughput and 2.6–11% below page mapping.\n",
        if edge { ", a point on the grid's edge: a wider grid might choose another" } else { "" },
        grid_score(runs, runs.chosen), grid_score(runs, FIG11_PAIR));
    let _ = writeln!(w, "The Fig. 11 pair was read off the paper's window shapes: a window that settles at 2% for Bonnie++ and IOzone, and static windows of 1, 2, 4, 8 ... %, mean a step of 1%; IE reaching 35% with a mean of 26% means one step per ~2,700 of its lookups, PC application reaching 50% with a mean of 22% one per ~17,000; 4,096 lies between them. Mean-window figures under that pair are therefore *by construction*; they are shown as a reading of each window claim, never counted as agreement.\n");
    let _ = writeln!(w, "| workload | final window | mean window | hit ratio | WADPM / FAST | WADPM / page |\n|---|---|---|---|---|---|");
    for t in TRACES {
        let r = runs.get(t.key, "WADPM dynamic");
        let (last, mean) = window_shares(r).unwrap_or((0.0, 0.0));
        let _ = writeln!(
            w,
            "| {} | {:.1}% | {:.1}% | {:.1}% | {:.2}× | {:+.1}% |",
            t.label,
            100.0 * last,
            100.0 * mean,
            100.0 * hit(r),
            tput(r) / tput(runs.get(t.key, "FAST")).max(1e-9),
            100.0 * (tput(r) / tput(runs.get(t.key, "page")).max(1e-9) - 1.0)
        );
    }
    let _ = writeln!(w, "\n![dynamic-window.svg](dynamic-window.svg)\n");
    sensitivity(w, runs);
    readings(w, runs, scale);
    real_traces(w, runs, real_stats);
    preconditioned(w, runs, scale);
    verdict(w, runs);
    md
}

/// The real-trace rows beside the generators' ones.
fn real_traces(w: &mut String, runs: &Runs, stats: &[TraceStats]) {
    let _ = writeln!(
        w,
        "## Real block traces: Bonnie++ and IOzone on ext4\n\nThe rows above come from shaped generators; these replay real \
         block traces of the same two benchmarks, captured here with the kernel's `block:block_rq_issue` tracepoint on ext4 \
         (built-ins `bonnie-1g`, `iozone-like-1g`; provenance in `data/traces/PROVENANCE.md`), whole at both scales, with \
         the generators' host, addresses compacted in 64 KiB blocks onto the device. They are not the paper's traces: a 1 GiB file \
         (paper: 884 MB for Bonnie++), IOzone's phases as fio jobs, and requests merged by the loop device up to 1.25 MiB, so \
         their mean request is far above the paper's.\n"
    );
    let _ = writeln!(
        w,
        "| trace | requests | reads / writes (MiB) | mean request (paper's) | footprint | page MiB/s | FAST MiB/s | WADPM MiB/s | \
         FAST vs page | WADPM / FAST | WADPM vs page | WADPM hit ratio, final window |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for (t, s) in REAL.iter().zip(stats) {
        for split in [false, true] {
            let sfx = if split { SPLIT } else { "" };
            let get = |l: &str| runs.get(t.key, &format!("{l}{sfx}"));
            let (page, fast, dynamic) = (get("page"), get("FAST"), get("WADPM dynamic"));
            let window = final_window_text(dynamic);
            let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
            let bytes = s.read_bytes + s.write_bytes;
            let (label, requests, mean) = if split {
                let n = page.host.requests;
                (format!("… split to {} KiB", t.split_kib), n, bytes as f64 / n.max(1) as f64 / 1024.0)
            } else {
                (t.label.to_string(), s.records, bytes as f64 / s.records.max(1) as f64 / 1024.0)
            };
            let _ = writeln!(
                w,
                "| {label} | {requests} | {:.0} / {:.0} | {mean:.1} KiB ({}) | {:.0} MiB | {:.1} | {:.1} | {:.1} | {:+.1}% | {:.2}× | {:+.1}% | {:.1}%, {window} |",
                mib(s.read_bytes),
                mib(s.write_bytes),
                t.paper_mean,
                mib(s.footprint_pages * 4096),
                tput(page),
                tput(fast),
                tput(dynamic),
                100.0 * (tput(fast) / tput(page).max(1e-9) - 1.0),
                tput(dynamic) / tput(fast).max(1e-9),
                100.0 * (tput(dynamic) / tput(page).max(1e-9) - 1.0),
                100.0 * hit(dynamic),
            );
        }
    }
    let _ = writeln!(
        w,
        "\nThe \"split\" rows replay the same traces with every request cut into pieces of at most the paper's mean request \
         (`host.max_request`, a block layer's request-size limit), each issued on its own; they answer whether our large merged \
         requests, rather than the traces' content, make the difference to the paper. Only the unsplit rows are counted in the verdicts.\n"
    );
    for t in &REAL {
        let vs_page = |l: &str, sfx: &str| {
            let page = tput(runs.get(t.key, &format!("page{sfx}"))).max(1e-9);
            100.0 * (tput(runs.get(t.key, &format!("{l}{sfx}"))) / page - 1.0)
        };
        let _ = writeln!(
            w,
            "- {}: split to {} KiB, FAST vs page goes from {:+.1}% to {:+.1}%, WADPM vs page from {:+.1}% to {:+.1}%.",
            t.label,
            t.split_kib,
            vs_page("FAST", ""),
            vs_page("FAST", SPLIT),
            vs_page("WADPM dynamic", ""),
            vs_page("WADPM dynamic", SPLIT)
        );
    }
    let _ = writeln!(w);
}

/// The comparison with GC running: the paper's argument (§2.3) that plane-level mapping makes
/// every GC move a copy-back, where a page mapping may move pages across planes.
fn preconditioned(w: &mut String, runs: &Runs, scale: Scale) {
    let overwrite = if scale == Scale::Quick { PRE_OVERWRITE / 2.0 } else { PRE_OVERWRITE };
    let _ = writeln!(
        w,
        "## GC running: a preconditioned device\n\nThe rows above start from an empty device, so no GC runs. The paper argues (§2.3) \
         that plane-level mapping keeps every GC move inside its plane, where the chip's copy-back moves a page without the bus, \
         while a page mapping may move a victim's pages to another plane, through the controller. Here every run first writes the \
         whole device once and then {overwrite}× its capacity in uniform random pages (`[precondition]`, excluded from the \
         results), then runs the workload above. Page mapping is shown twice: with one GC pool per plane (block units, as in \
         the rows above: its GC is also copy-back only) and with line units, where a victim's pages go to the GC frontier's \
         line, striped over all 16 planes (cross-plane moves: a read, two bus transfers and a program). The GC schedule is \
         `classic` (one victim when a pool would drop below its reserve); the dynamic window starts where preconditioning left \
         it. The paper gives no figure for this; nothing here is counted in the tally.\n"
    );
    let _ = writeln!(
        w,
        "| workload | mapping | MiB/s | WAF | erases | GC moves | by copy-back | through the controller | mean write latency (µs) | map hit ratio, final window |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for t in TRACES {
        for v in PRE_LABELS {
            let r = runs.get(t.key, &pre_label(v));
            let moves = r.ftl.gc_copies;
            let _ = writeln!(
                w,
                "| {} | {v} | {:.1} | {:.2} | {} | {moves} | {:.1}% | {} | {:.0} | {:.1}%{} |",
                t.label,
                tput(r),
                r.waf.unwrap_or(f64::NAN),
                r.flash.erases,
                100.0 * r.flash.copybacks as f64 / moves.max(1) as f64,
                moves.saturating_sub(r.flash.copybacks),
                r.latency_us.as_ref().map_or(f64::NAN, |l| l.write.mean),
                100.0 * hit(r),
                if r.mapping.cache.is_some() { format!(", {}", final_window_text(r)) } else { String::new() },
            );
        }
    }
    let _ = writeln!(
        w,
        "\nUniform random preconditioning drives the dynamic window up to the whole table, and the measured phase starts \
         there: these rows compare GC, with WADPM's map I/O mostly the write-back of a shrinking window.\n"
    );
    let _ = writeln!(w, "The paper's argument, checked (not counted):\n");
    for t in TRACES {
        let (plane, cross, wadpm) = (
            runs.get(t.key, &pre_label(PRE_LABELS[0])),
            runs.get(t.key, &pre_label(PRE_LABELS[1])),
            runs.get(t.key, &pre_label(PRE_LABELS[2])),
        );
        let all_copyback = wadpm.ftl.gc_copies > 0 && wadpm.flash.copybacks == wadpm.ftl.gc_copies;
        let _ = writeln!(
            w,
            "- {}: WADPM's {} GC moves are {} copy-backs; cross-plane page mapping moves {:.1}% by copy-back; WADPM runs at {:.2}× the cross-plane page mapping's throughput and {:+.1}% against per-plane page mapping (the cost of its cached table once GC runs).",
            t.label,
            wadpm.ftl.gc_copies,
            if all_copyback { "all" } else { "not all" },
            100.0 * cross.flash.copybacks as f64 / cross.ftl.gc_copies.max(1) as f64,
            tput(wadpm) / tput(cross).max(1e-9),
            100.0 * (tput(wadpm) / tput(plane).max(1e-9) - 1.0),
        );
    }
    let _ = writeln!(w);
}

/// How much the dynamic rows depend on the two parameters the paper leaves open.
fn sensitivity(w: &mut String, runs: &Runs) {
    let _ = writeln!(
        w,
        "### Sensitivity to the window step and interval\n\nThe paper gives θHR and θMT but neither the step nor the interval; \
         each cell is WADPM (dynamic, starting at 1%) against FAST / against page mapping, with the final window in brackets. \
         Our default is 1% per 4,096 lookups.\n"
    );
    let mut head = String::from("| workload | step |");
    let mut rule = String::from("|---|---|");
    for i in INTERVALS {
        let _ = write!(head, " every {i} lookups |");
        rule.push_str("---|");
    }
    let _ = writeln!(w, "{head}\n{rule}");
    for t in TRACES {
        let (fast, page) = (tput(runs.get(t.key, "FAST")).max(1e-9), tput(runs.get(t.key, "page")).max(1e-9));
        for step in STEPS {
            let mut row = format!("| {} | {step}% |", t.label);
            for interval in INTERVALS {
                let r = runs.get(t.key, &grid_label(step, interval));
                let last = final_window_text(r);
                let _ = write!(row, " {:.2}× / {:+.1}% ({last}) |", tput(r) / fast, 100.0 * (tput(r) / page - 1.0));
            }
            let _ = writeln!(w, "{row}");
        }
    }
    let _ = writeln!(w);
}

/// A claim from a range the paper gives over its four workloads: agrees inside the range.
fn range_claim(kind: Kind, what: String, lo: f64, hi: f64, ours: f64, unit: &str) -> Claim {
    let mid = (lo + hi) / 2.0;
    Claim::new(
        kind,
        what,
        mid,
        ours,
        (hi - mid) / mid,
        format!("paper's range {lo}–{hi}{unit}, over its four workloads"),
    )
}

/// The verdict rule, stated before the results.
const RULE: &str = "**Verdict rule, stated before the results** (`reproduce/verdict.rs`): the paper gives ranges over its four \
workloads (hybrid 25–50% of page-mapping throughput; WADPM 185–350% of hybrid; WADPM 2.6–11% below page mapping), averages \
per workload for the dynamic window (2 / 2 / 26 / 22% of the table), two points of Fig. 10 (a 20% window costs IE about 15% \
and PC application about 10% of page mapping's throughput) and orderings without a figure (Fig. 4a's write classes, Fig. 9's \
best loading method). A figure of ours *agrees* inside the paper's range, or within ±25% of a per-workload figure; an effect \
with the paper's sign outside that is *direction only*; anything else *differs*; an ordering agrees when it holds. Every \
claim is judged at the main reading declared above and shown under the other readings; a gap that another reading closes is \
explained by it, any other gap is counted unexplained.";

/// What is declared before the results: the readings of everything the paper leaves open.
fn declared(w: &mut String, scale: Scale) {
    let ie = |mib: u64| if scale == Scale::Quick { format!("{} MiB", mib / 8) } else { format!("{mib} MiB") };
    let _ = writeln!(w, "### Declared before the run\n");
    let _ = writeln!(w, "- **Host.** The paper has no host model (an SSDsim-based simulator fed traces). Main reading: a saturating host, closed loop at queue depth {HOST_DEPTH} (NVMe's largest queue: every request the workload has is waiting), the closest to a trace-driven simulator that issues every request without a host. Other readings: closed loop at depth {} (rows \"[QD n]\").", OTHER_DEPTHS.map(|d| d.to_string()).join(", "));
    let _ = writeln!(w, "- **The cost of a mapping miss.** Main reading: physical. A miss reads its translation page (25 µs, before the request's data operation); a dirty translation page that leaves RAM (an eviction, the window shrinking, GC's updates) is programmed on its plane (200 µs), because a controller cannot drop a changed entry without writing it to flash, and our generators only write, so nearly every evicted page is dirty. The paper's reading (§5.2: a miss *reads* the entries from flash; writing map data appears only as Fig. 8's flush): write-backs counted but free (`ftl.mapping_params.write_back = \"free\"`, rows \"[write-back free]\").");
    let _ = writeln!(w, "- **The window's step and interval.** The paper gives θHR = 0.9 and θMT = 5, \"set by experiment to give the best performance\" (§5.3), and neither the step nor the interval. Ours by that criterion: over the grid step {} % × interval {} lookups, the pair with the highest geometric mean, over the four generators, of dynamic WADPM's throughput relative to page mapping at the main host (the first in grid order on a tie). Every dynamic row uses it, and every claim on a dynamic row depends on it (the sensitivity table shows how much). The pair read off Fig. 11's shapes (1% / 4,096) is shown, *by construction* for the window claims.", STEPS.map(|x| x.to_string()).join(" / "), INTERVALS.map(|x| x.to_string()).join(" / "));
    let _ = writeln!(w, "- **Internet Explorer's address range.** §5.3: IE and PC application have \"a random access pattern and a wide address range\"; the paper gives no number. Main reading: the widest, uniform over the whole device{}. Other readings: {} (its volume: cache files written once over just that much space, our earlier choice), {} and {} (rows \"[IE footprint …]\").", if scale == Scale::Quick { " (an eighth of it at quick scale, as every volume)" } else { "" }, ie(IE_FOOTPRINTS[0]), ie(IE_FOOTPRINTS[1]), ie(IE_FOOTPRINTS[2]));
    let _ = writeln!(w, "- **FAST's sequential log block.** Main reading: one per plane (16 in all: each plane is an FTL of its own, as WADPM's planes are). Other reading: one for the whole device, as in the original FAST (`ftl.mapping_params.sequential_log = \"device\"`, rows \"[device SW log]\"): a stream striped over the planes then merges the sequential log at every plane switch.");
    let _ = writeln!(w, "- **What is judged.** Every figure and ordering of the paper's text that we run: Fig. 4a's write classes, Fig. 4b's and Fig. 12's throughput ranges, Fig. 9's best loading method, Fig. 10 at 20%, Fig. 11's mean windows, per generator; the two real ext4 captures against the same throughput ranges (their split-request rows as a reading).\n");
}

/// The runs of one workload under one reading (`suffix`; `""`: the main reading). Where the
/// reading has no run of a label, its main run stands in only when the reading cannot change
/// it (`write-back free` leaves page mapping and FAST as they are); otherwise the figure is
/// not shown under that reading.
struct View<'r> {
    runs: &'r Runs,
    trace: &'r str,
    suffix: &'r str,
    /// Whether a run of the reading itself was read, and whether one was missing.
    found: std::cell::Cell<bool>,
    missing: std::cell::Cell<bool>,
}

impl<'r> View<'r> {
    fn get(&self, label: &str) -> &'r Results {
        match self.runs.find(self.trace, &format!("{label}{}", self.suffix)) {
            Some(r) => {
                self.found.set(true);
                r
            }
            None => {
                let unchanged = (self.suffix == FREE_WB && matches!(label, "page" | "FAST"))
                    || (self.suffix == SW_DEVICE && !label.starts_with("FAST"));
                if !self.suffix.is_empty() && !unchanged {
                    self.missing.set(true);
                }
                self.runs.get(self.trace, label)
            }
        }
    }
    /// Throughput, never zero.
    fn t(&self, label: &str) -> f64 {
        tput(self.get(label)).max(1e-9)
    }
}

type Figure = dyn Fn(&View) -> f64;

/// `f` under the reading `suffix`; `None` when the reading changed none of the runs it reads
/// or lacks one it would change.
fn under(runs: &Runs, trace: &str, suffix: &str, f: &Figure) -> Option<f64> {
    let view = View {
        runs,
        trace,
        suffix,
        found: std::cell::Cell::new(suffix.is_empty()),
        missing: std::cell::Cell::new(false),
    };
    let v = f(&view);
    (view.found.get() && !view.missing.get()).then_some(v)
}

/// The other readings a workload ran: (label, suffix).
fn other_readings(trace: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> =
        OTHER_DEPTHS.iter().map(|&d| (format!("closed loop QD {d}"), qd_suffix(d))).collect();
    v.push(("write-back free".into(), FREE_WB.into()));
    if TRACES.iter().any(|t| t.key == trace && t.footprint == Footprint::Whole) {
        v.extend(IE_FOOTPRINTS.iter().map(|&m| (format!("IE footprint {m} MiB (paper scale)"), ie_suffix(m))));
    }
    if REAL.iter().any(|t| t.key == trace) {
        v = vec![("requests split to the paper's mean".into(), SPLIT.into())];
    }
    v.push(("one sequential log block for the device".into(), SW_DEVICE.into()));
    v
}

/// A claim judged on the main reading, with its figure under the workload's other readings.
fn with_readings(runs: &Runs, trace: &str, claim: impl Fn(f64) -> Claim, f: &Figure) -> Claim {
    let main = under(runs, trace, "", f).expect("the main reading runs everything");
    let readings =
        other_readings(trace).into_iter().filter_map(|(label, sfx)| under(runs, trace, &sfx, f).map(|v| (label, v)));
    claim(main).readings(readings.collect::<Vec<_>>())
}

/// The paper's figures as claims under the one rule.
fn claims(runs: &Runs) -> Vec<Claim> {
    let mut claims = Vec::new();
    let (step, interval) = runs.chosen;
    let grid = format!("dynamic: step {step}% / {interval} lookups, chosen by the grid");
    // The three throughput claims of every workload: generators first, then the real traces.
    let throughput = |claims: &mut Vec<Claim>, key: &str, label: &str| {
        let figures: [(&str, f64, f64, &Figure); 3] = [
            ("hybrid (FAST) throughput below page mapping", 50.0, 75.0, &|v| 100.0 * (1.0 - v.t("FAST") / v.t("page"))),
            ("WADPM (dynamic) throughput above hybrid", 85.0, 250.0, &|v| 100.0 * (v.t(DYNAMIC) / v.t("FAST") - 1.0)),
            ("WADPM (dynamic) throughput below page mapping", 2.6, 11.0, &|v| {
                100.0 * (1.0 - v.t(DYNAMIC) / v.t("page"))
            }),
        ];
        for (i, (what, lo, hi, f)) in figures.into_iter().enumerate() {
            let what = format!("{label}: {what}, %");
            let dep = if i > 0 { Some(grid.clone()) } else { None };
            claims.push(with_readings(
                runs,
                key,
                |ours| {
                    let mut c = range_claim(Kind::Effect, what.clone(), lo, hi, ours, "%");
                    if let Some(d) = &dep {
                        c.note = format!("{}; {d}", c.note);
                    }
                    c
                },
                f,
            ));
        }
    };
    for (t, avg_window) in TRACES.iter().zip([2.0, 2.0, 26.0, 22.0]) {
        let seq = t.mixed.is_some_and(|(_, resume)| resume);
        let fast = runs.get(t.key, "FAST").hybrid.unwrap_or_default();
        let (pure, wasted) = (fast.update_pure, fast.update_wasted);
        let holds = move |v: &View| {
            let h = v.get("FAST").hybrid.unwrap_or_default();
            if (seq && h.update_pure > h.update_wasted) || (!seq && h.update_wasted > h.update_pure) {
                1.0
            } else {
                0.0
            }
        };
        let what = if seq {
            format!("{}: Fig. 4a, FAST writes more update_pure than update_wasted", t.label)
        } else {
            format!("{}: Fig. 4a, FAST writes a little more update_wasted than update_pure", t.label)
        };
        claims.push(with_readings(
            runs,
            t.key,
            |ours| {
                Claim::ordering(what.clone(), ours == 1.0, format!("update_pure {pure}, update_wasted {wasted} pages"))
            },
            &holds,
        ));
        throughput(&mut claims, t.key, t.label);
        let hits: Vec<f64> = LOADINGS.iter().map(|l| hit(runs.get(t.key, &format!("WADPM 4% {l}")))).collect();
        claims.push(Claim::ordering(
            format!("{}: Fig. 9, page-chunk loading has the highest hit ratio (4% window)", t.label),
            hits[2] >= hits[0] && hits[2] >= hits[1],
            format!(
                "per-miss-entry {:.1}%, read-ahead {:.1}%, page-chunk {:.1}%",
                100.0 * hits[0],
                100.0 * hits[1],
                100.0 * hits[2]
            ),
        ));
        if let Some(paper) = match t.key {
            "ie" => Some(15.0),
            "pcapp" => Some(10.0),
            _ => None,
        } {
            claims.push(with_readings(
                runs,
                t.key,
                |ours| {
                    Claim::new(
                        Kind::Effect,
                        format!("{}: Fig. 10, throughput below page mapping with a 20% window, %", t.label),
                        paper,
                        ours,
                        0.25,
                        "the text's \"about\"",
                    )
                },
                &|v| 100.0 * (1.0 - v.t("WADPM 20%") / v.t("page")),
            ));
        }
        let mean_window = |v: &View| window_shares(v.get(DYNAMIC)).map_or(f64::NAN, |(_, m)| 100.0 * m);
        let fig11 = window_shares(runs.get(t.key, &grid_label(FIG11_PAIR.0, FIG11_PAIR.1)))
            .map_or(f64::NAN, |(_, m)| 100.0 * m);
        claims.push(with_readings(
            runs,
            t.key,
            |ours| {
                Claim::new(
                    Kind::Value,
                    format!("{}: Fig. 11, mean dynamic window, % of the table", t.label),
                    avg_window,
                    ours,
                    0.25,
                    format!("{grid}; the Fig. 11 pair (1% / 4,096, by construction) gives {fig11:.1}"),
                )
            },
            &mean_window,
        ));
    }
    for t in &REAL {
        throughput(&mut claims, t.key, t.label);
    }
    claims
}

fn verdict(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "## Verdicts\n\nBy the rule stated under Setup.\n");
    let claims = claims(runs);
    let _ = write!(w, "{}", verdict::section(&claims, 1));
    let _ = writeln!(
        w,
        "\nWhy figures can differ: the paper's traces are not available and our generators keep only their volume, mean size and \
         pattern (footprints and interleavings are assumptions); the paper's simulator (SSDsim-based) and its host are not \
         specified (the host and miss-cost readings above show how much they move the figures); the paper packs mapping entries \
         (~21 bits), we use 4-byte entries; translation pages' own flash space and GC are not modelled."
    );
}

/// Every claim's figure under every reading, as tables: how much each choice moves them.
fn readings(w: &mut String, runs: &Runs, scale: Scale) {
    let _ = writeln!(w, "## Other readings\n\nThe same rows under the readings declared above; the verdicts below judge the main reading and quote these.\n");
    let _ = writeln!(w, "| workload | reading | FAST vs page | WADPM / FAST | WADPM vs page | mean window | WADPM map reads / writes |\n|---|---|---|---|---|---|---|");
    for t in TRACES {
        let mut rows = vec![("main (saturating host, physical miss cost)".to_string(), String::new())];
        rows.extend(other_readings(t.key).into_iter().filter(|(_, s)| !s.starts_with(" [IE")));
        for (label, sfx) in rows {
            let (page, fast, dynw) = (
                runs.reading(t.key, "page", &sfx),
                runs.reading(t.key, "FAST", &sfx),
                runs.reading(t.key, DYNAMIC, &sfx),
            );
            let c = dynw.mapping.cache.as_ref();
            let _ = writeln!(
                w,
                "| {} | {label} | {:+.1}% | {:.2}× | {:+.1}% | {:.1}% | {} / {} |",
                t.label,
                100.0 * (tput(fast) / tput(page).max(1e-9) - 1.0),
                tput(dynw) / tput(fast).max(1e-9),
                100.0 * (tput(dynw) / tput(page).max(1e-9) - 1.0),
                window_shares(dynw).map_or(f64::NAN, |(_, m)| 100.0 * m),
                c.map_or(0, |c| c.map_reads),
                c.map_or(0, |c| c.map_writes),
            );
        }
    }
    let _ = writeln!(w, "\n### Internet Explorer's address range\n");
    let _ = writeln!(w, "| footprint | FAST vs page | WADPM vs page | largest window | mean window | hit ratio |\n|---|---|---|---|---|---|");
    let div = if scale == Scale::Quick { 8 } else { 1 };
    let mut rows = vec![(format!("whole device (main{})", if div > 1 { ", / 8" } else { "" }), String::new())];
    rows.extend(IE_FOOTPRINTS.iter().map(|&m| (format!("{} MiB", m / div), ie_suffix(m))));
    for (label, sfx) in &rows {
        let (page, fast, dynw) =
            (runs.reading("ie", "page", sfx), runs.reading("ie", "FAST", sfx), runs.reading("ie", DYNAMIC, sfx));
        let largest = dynw.mapping.cache.as_ref().and_then(|c| {
            let full = (c.full_table_bytes / 4).max(1) as f64;
            c.window_history.iter().max().map(|&m| m as f64 / full)
        });
        let _ = writeln!(
            w,
            "| {label} | {:+.1}% | {:+.1}% | {:.1}% | {:.1}% | {:.1}% |",
            100.0 * (tput(fast) / tput(page).max(1e-9) - 1.0),
            100.0 * (tput(dynw) / tput(page).max(1e-9) - 1.0),
            100.0 * largest.unwrap_or(f64::NAN),
            window_shares(dynw).map_or(f64::NAN, |(_, m)| 100.0 * m),
            100.0 * hit(dynw),
        );
    }
    let wide = runs.get("ie", DYNAMIC);
    let narrow = runs.reading("ie", DYNAMIC, &ie_suffix(IE_FOOTPRINTS[0]));
    let vs_page = |r: &Results, sfx: &str| 100.0 * (tput(r) / tput(runs.reading("ie", "page", sfx)).max(1e-9) - 1.0);
    let _ = writeln!(
        w,
        "\nWhat it implies: over its volume only ({} MiB), IE's mean window is {:.1}% and WADPM runs {:+.1}% against page mapping; spread over the whole device, {:.1}% and {:+.1}% (paper: mean 26%, largest 35%, and −2.6 to −11%). The window the hit-ratio rule settles on follows the address range, so Fig. 11's IE curve is a statement about the trace's footprint, which the paper does not give.\n",
        IE_FOOTPRINTS[0] / div,
        window_shares(narrow).map_or(f64::NAN, |(_, m)| 100.0 * m),
        vs_page(narrow, &ie_suffix(IE_FOOTPRINTS[0])),
        window_shares(wide).map_or(f64::NAN, |(_, m)| 100.0 * m),
        vs_page(wide, ""),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run of both scales makes a valid configuration (the paper scale is not run in the
    /// tests: it is checked here before anyone waits for it).
    #[test]
    fn every_configuration_of_both_scales_is_valid() {
        for scale in [Scale::Quick, Scale::Paper] {
            for t in TRACES {
                let mut vs = first_variants();
                vs.extend(reading_variants(t, FIG11_PAIR, scale));
                for v in &vs {
                    config(t, v, scale).unwrap_or_else(|e| panic!("{scale:?} {} {}: {e}", t.key, v.label));
                }
                for v in pre_variants(FIG11_PAIR) {
                    pre_config(t, &v, scale).unwrap_or_else(|e| panic!("{scale:?} {} {}: {e}", t.key, v.label));
                }
            }
        }
        for t in &REAL {
            for v in [page(), fast(), dynamic(DYNAMIC, FIG11_PAIR), fast_device_sw()] {
                for split in [false, true] {
                    real_config(t, &v, split).unwrap_or_else(|e| panic!("{} {}: {e}", t.key, v.label));
                }
            }
        }
    }

    /// The generators' jump shares are the built-in captures' statistics, not tuned.
    #[test]
    fn sequential_shares_are_the_real_captures() {
        for ((t, want), span) in REAL.iter().zip(SEQUENTIAL_SHARE).zip(JUMP_SPAN_KIB) {
            let s = trace::stats(&TraceOptions::new(format!("builtin:{}", t.builtin)), 4096).unwrap();
            let share = s.sequential_write_bytes as f64 / s.write_bytes as f64;
            assert!((share - want).abs() < 0.0005, "{}: {share:.4} vs {want}", t.builtin);
            assert_eq!(s.jump_within(0.9), Some(span << 10), "{}", t.builtin);
        }
    }
}
