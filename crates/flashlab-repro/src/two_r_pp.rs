//! `flashlab reproduce 2rpp`: H. An and S. Lee, "2R++: Enhancing 2R FTL to Identify Warm Pages"
//! (accepted 31 October 2022; the text we hold prints no venue — see [`CITATION`]).
//!
//! Setup (paper §4, Tables 1 and 2): FEMU blackbox SSD with line GC, 4 KiB pages; 8 GB device
//! (2,048 lines × 1,152 pages) for fio, 10 GB (2,816 × 1,024) for TPC-C and LinkBench, OP 10%.
//! fio: zipf θ = 0.5 / 0.9 / 1.1 random 4 KiB writes on an 8 GB file, 90 M writes. TPC-C: 60 M
//! writes while the database grows 1 → 10 GB; LinkBench: 600 M writes over the same growth.
//!
//! **GC trigger (the main reading).** Greedy, the baseline, is FEMU's *unmodified* blackbox FTL,
//! so it runs on FEMU's trigger (background GC at 25% free lines, victims with at least 1/8
//! invalid pages, forced at 5%: `ftl::schedule::femu`). 2R and 2R++ run on the trigger of the
//! paper's own pseudo-code, Fig. 7 lines 13–14 (`if S == W and no free block then
//! GARBAGE_COLLECT()`: collect only when a host write finds no free block), which §4.1 says
//! replaced FEMU's FTL: the textbook `classic` schedule. The other combinations (greedy on
//! `classic`, 2R / 2R++ on `femu`) and 2R / 2R++ with the FIFO fallback are ablation rows.
//!
//! **OP of the 8 GB device.** Table 1's geometry (2,048 lines × 1,152 pages = 9 GiB) gives 12.5%
//! over 8 GiB; §4.2 and Table 2 say 10%. The main rows use Table 1 (the platform's concrete
//! configuration: 10% would be 2,002.5 lines, not a whole number, while the 10 GB device's
//! Table 1 geometry is exactly 10%); the fio rows on a filled device also run at 10% (the
//! `OP10` rows), shown beside them and not judged.
//!
//! **Workloads.** fio on a device filled first (fio lays its file out before the job: the paper
//! says the space is fully in use from the start) and on one filled only by the job itself (the
//! paper's wording allows both); the `tpcc-like` / `linkbench-like` growth models; and real
//! block traces of TPC-C and LinkBench on MariaDB/InnoDB (`shared/traces/oltp`, format `blkrq`)
//! replayed on a device sized as the paper's TPC-C device is to its database: the logical
//! capacity is the trace's footprint (the 64 KiB device blocks it touches, remapped in first-touch
//! order with `host.out_of_range = "compact"`), OP 10%, FEMU's line geometry.
//!
//! Scales: `paper` uses the devices and volumes above and the full trace files ([`TRACES`], from
//! the folder [`crate::locate_traces`] checked; the built-in excerpts only with `--excerpts`,
//! said so in every output). `quick` divides
//! capacity by 64 (8 planes instead of 64, an eighth of the lines, same pages per block) and every
//! write volume by 64, so writes per page — what sets WAF — are unchanged; traces are the
//! built-in excerpts on devices sized to them.

use std::fmt::Write as _;

use serde_json::json;

use super::verdict::{self, Claim, Kind};
use super::{run_all, Outcome, RunProgress, Scale, Setup, TraceFile, Traces};
use crate::plot::{bar_chart, bar_chart_with, line_chart, line_chart_with, Bars, Line};
use flashlab::config::Config;
use flashlab::error::Error;
use flashlab::presets;
use flashlab::results::Results;
use flashlab::workload::trace::{self, TraceOptions};
use flashlab::workload::Op;

/// The paper, as its text prints it.
pub const CITATION: super::Citation = super::Citation {
    authors: "Hyojun An, Sangwon Lee (Sungkyunkwan University)",
    title: "2R++: Enhancing 2R FTL to Identify Warm Pages",
    venue: "venue not printed in the text (received 24 August 2022, accepted 31 October 2022)",
};

/// Where a workload comes from.
#[derive(Clone, Copy)]
enum Source {
    /// A generator; `writes` page writes at paper scale; `fill`: write the device once first.
    Gen { workload: &'static [&'static str], writes: u64, fill: bool },
    /// A real block trace: the built-in excerpt, and the full file under `shared/traces`.
    Trace { builtin: &'static str, full: &'static str },
}

/// One workload of the reproduction.
struct Bench {
    key: &'static str,
    label: &'static str,
    /// The FEMU preset whose geometry it runs on.
    preset: &'static str,
    source: Source,
    /// The paper's row this bench is compared with (Table 3 / Table 4 key).
    paper_row: &'static str,
}

const fn fio(
    key: &'static str,
    label: &'static str,
    theta: &'static [&'static str],
    fill: bool,
    row: &'static str,
) -> Bench {
    Bench {
        key,
        label,
        preset: "femu-8gb",
        source: Source::Gen { workload: theta, writes: 90_000_000, fill },
        paper_row: row,
    }
}

const BENCHES: &[Bench] = &[
    fio("fio-0.5", "fio zipf 0.5, device filled first", &["kind=\"zipf\"", "theta=0.5"], true, "fio-0.5"),
    fio("fio-0.9", "fio zipf 0.9, device filled first", &["kind=\"zipf\"", "theta=0.9"], true, "fio-0.9"),
    fio("fio-1.1", "fio zipf 1.1, device filled first", &["kind=\"zipf\"", "theta=1.1"], true, "fio-1.1"),
    fio("fio-0.5-job", "fio zipf 0.5, filled by the job", &["kind=\"zipf\"", "theta=0.5"], false, "fio-0.5"),
    fio("fio-0.9-job", "fio zipf 0.9, filled by the job", &["kind=\"zipf\"", "theta=0.9"], false, "fio-0.9"),
    fio("fio-1.1-job", "fio zipf 1.1, filled by the job", &["kind=\"zipf\"", "theta=1.1"], false, "fio-1.1"),
    Bench {
        key: "tpcc",
        label: "TPC-C growth model (tpcc-like)",
        preset: "femu-10gb",
        source: Source::Gen { workload: &["kind=\"tpcc-like\""], writes: 60_000_000, fill: false },
        paper_row: "tpcc",
    },
    Bench {
        key: "linkbench",
        label: "LinkBench growth model (linkbench-like)",
        preset: "femu-10gb",
        source: Source::Gen { workload: &["kind=\"linkbench-like\""], writes: 600_000_000, fill: false },
        paper_row: "linkbench",
    },
    Bench {
        key: "tpcc-trace",
        label: "TPC-C trace (MariaDB/InnoDB)",
        preset: "femu-10gb",
        source: Source::Trace { builtin: "builtin:tpcc-mdb", full: "oltp/tpcc_mdb_w10.blk.txt.zst" },
        paper_row: "tpcc",
    },
    Bench {
        key: "linkbench-trace",
        label: "LinkBench trace (MariaDB/InnoDB)",
        preset: "femu-10gb",
        source: Source::Trace { builtin: "builtin:linkbench-mdb", full: "oltp/linkbench_mdb.blk.txt.zst" },
        paper_row: "linkbench",
    },
    Bench {
        key: "tpcc-pg-trace",
        label: "TPC-C trace (PostgreSQL)",
        preset: "femu-10gb",
        source: Source::Trace { builtin: "builtin:tpcc-pg", full: "oltp/tpcc_pg_w10.blk.txt.zst" },
        paper_row: "tpcc",
    },
];

/// The full traces of the paper-scale trace rows (under `shared/traces`).
pub const TRACES: &[TraceFile] = &[
    TraceFile {
        path: "oltp/tpcc_mdb_w10.blk.txt.zst",
        bytes: 57_189_466,
        sha256: "742dbe338d9c31b381442e44344e8ff183f3fc06f351fecef5052cf25344ca07",
    },
    TraceFile {
        path: "oltp/linkbench_mdb.blk.txt.zst",
        bytes: 24_592_359,
        sha256: "14f39deadc7cec4dc06753ff33fc95da229f6bd63ee0f796ce54f921f41ab7e4",
    },
    TraceFile {
        path: "oltp/tpcc_pg_w10.blk.txt.zst",
        bytes: 11_646_955,
        sha256: "18010649372d212b153b267184c02627621cfdf60c845e455439dfadb43a2023",
    },
];

/// The keys of the fio benches on a device filled first, and of the OLTP benches.
const FIO_FILLED: [&str; 3] = ["fio-0.5", "fio-0.9", "fio-1.1"];
const FIO_JOB: [&str; 3] = ["fio-0.5-job", "fio-0.9-job", "fio-1.1-job"];
const OLTP: [&str; 5] = ["tpcc", "linkbench", "tpcc-trace", "linkbench-trace", "tpcc-pg-trace"];

/// One policy variant: label, `ftl.gc`, `ftl.gc_schedule`, extra overrides.
#[derive(Clone, Copy)]
struct Policy {
    label: &'static str,
    gc: &'static str,
    schedule: &'static str,
    params: &'static [&'static str],
}

/// The main reading first (greedy on FEMU's trigger, 2R / 2R++ on Fig. 7's), then the
/// ablations: each policy on the other trigger, and 2R / 2R++ with the FIFO fallback.
const POLICIES: &[Policy] = &[
    Policy { label: "greedy", gc: "greedy", schedule: "femu", params: &[] },
    Policy { label: "2R", gc: "2r", schedule: "classic", params: &[] },
    Policy { label: "2R++", gc: "2r++", schedule: "classic", params: &[] },
    Policy { label: "greedy (classic)", gc: "greedy", schedule: "classic", params: &[] },
    Policy { label: "2R (femu)", gc: "2r", schedule: "femu", params: &[] },
    Policy { label: "2R++ (femu)", gc: "2r++", schedule: "femu", params: &[] },
    Policy { label: "2R (FIFO fallback)", gc: "2r", schedule: "classic", params: &["ftl.gc_params.fallback=\"fifo\""] },
    Policy {
        label: "2R++ (FIFO fallback)",
        gc: "2r++",
        schedule: "classic",
        params: &["ftl.gc_params.fallback=\"fifo\""],
    },
];

/// The 8 GB device at §4.2's 10% OP instead of Table 1's 12.5%: the main policies on the fio
/// benches on a filled device, labelled `POLICY OP10`.
const OP10: [&str; 3] = ["greedy OP10", "2R OP10", "2R++ OP10"];

/// The main policies under their OP10 labels (the rows' keys).
const POLICY_OP10: [Policy; 3] = [
    Policy { label: OP10[0], ..POLICIES[0] },
    Policy { label: OP10[1], ..POLICIES[1] },
    Policy { label: OP10[2], ..POLICIES[2] },
];

/// Lines of the 8 GB device at 10% OP: 8 GiB × 1.1 over a line of 64 planes × 18 pages of 4 KiB
/// is 2,002.5, so 2,003 (OP 10.05%); at quick scale 128 MiB over 8 planes' lines, 251.
fn op10_lines(scale: Scale) -> u64 {
    let (logical, planes) = if scale == Scale::Quick { (128u64 << 20, 8) } else { (8u64 << 30, 64) };
    (logical as f64 * 1.1 / (planes * 18 * PAGE_BYTES) as f64).ceil() as u64
}

/// Why 2R++'s gain over 2R is not reproduced: the main 2R / 2R++ rows with one unstated detail
/// changed — the recency window counting the most recently *accessed* lines (§3.1's word; a page
/// invalidation counts as an access) instead of the most recently sealed, and the multi-victim
/// stop rules swapped (2R with 2R++'s "invalid pages reach a line" is 2R++ without its 01
/// stage, so 2R (invalid stop) → 2R++ isolates the warm-page rule; 2R → 2R (invalid stop), the
/// stop rule). Run on the rows where the paper's gain is largest or the workload is real; fio
/// θ 0.5 is left out (the fallback picks every victim there, so neither detail is exercised by
/// 2R's rule, and it is the dearest row at paper scale).
const WARM_BENCHES: [&str; 6] = ["fio-0.9", "fio-1.1", "tpcc", "linkbench", "tpcc-trace", "linkbench-trace"];
const WARM_POLICIES: [Policy; 4] = [
    Policy { label: "2R (window by access)", params: &["ftl.gc_params.window_by=\"accessed\""], ..POLICIES[1] },
    Policy { label: "2R++ (window by access)", params: &["ftl.gc_params.window_by=\"accessed\""], ..POLICIES[2] },
    Policy { label: "2R (invalid stop)", params: &["ftl.gc_params.multi_victim=\"invalid\""], ..POLICIES[1] },
    Policy { label: "2R++ (valid stop)", params: &["ftl.gc_params.multi_victim=\"valid\""], ..POLICIES[2] },
];

/// Threshold sensitivity: 2R and 2R++ at other thresholds (the main rows use 40%, 2R++'s
/// stated value, for both) on one generator and one OLTP model.
const SENS_BENCHES: [&str; 2] = ["fio-1.1", "tpcc"];
const SENS_THRESHOLDS: [f64; 4] = [0.2, 0.3, 0.5, 0.6];

/// Growth-model sensitivity: the TPC-C model's chosen knobs (`core_share`, set to Fig. 1's
/// skew; `active_window`, derived from Fig. 2) moved one at a time, for greedy, 2R and 2R++.
const MODEL_SENS: [(&str, [f64; 2]); 2] = [("core_share", [0.85, 0.95]), ("active_window", [0.10, 0.18])];

/// The main policies (greedy on FEMU's trigger, 2R / 2R++ on Fig. 7's) and each on the other
/// trigger (the ablation).
const MAIN: [&str; 3] = ["greedy", "2R", "2R++"];
const OTHER_TRIGGER: [&str; 3] = ["greedy (classic)", "2R (femu)", "2R++ (femu)"];

/// Verdict bands, stated before any run: a WAF agrees within ±15% of the paper's; so do the
/// improvement rate of Equation (1) and the returned ratio (relative to the paper's figure); an
/// effect with the paper's sign but outside its band is "direction only". (The copy-back
/// reduction is not a claim of its own: with equal host writes it equals Eq. (1)'s improvement.)
const BAND: f64 = 0.15;

/// The paper's figures.
mod paper {
    /// Table 3: θ, 2R, 2R++, improvement rate (%).
    pub const TABLE3: [(&str, f64, f64, f64); 3] =
        [("fio-0.5", 6.196, 5.896, 6.126), ("fio-0.9", 4.223, 3.871, 12.255), ("fio-1.1", 1.771, 1.481, 60.383)];
    /// Table 4: greedy, 2R, 2R++.
    pub const TABLE4: [(&str, f64, f64, f64); 2] = [("tpcc", 3.286, 1.356, 1.225), ("linkbench", 3.379, 1.217, 1.190)];
    /// Fig. 4 / Fig. 12: returned ratio, 2R and 2R++ (%).
    pub const RETURNED: [(&str, f64, f64); 2] = [("tpcc", 67.71, 41.6), ("linkbench", 97.75, 90.83)];
    /// §5.4: total copy-backs, 2R and 2R++.
    pub const COPYBACKS: [(&str, u64, u64); 2] =
        [("tpcc", 20_411_851, 12_273_717), ("linkbench", 131_538_957, 116_457_462)];
    /// Fig. 5: share of 2R's copy-backs that are C→C (%).
    pub const CC_SHARE_2R: [(&str, f64); 2] = [("tpcc", 69.21), ("linkbench", 38.53)];
    /// Fig. 2: share of the space frozen at 60% progress.
    pub const FROZEN_AT_60: f64 = 40.0;
    /// Page writes of the OLTP runs (Table 2: 240 GB and 2,400 GB of 4 KiB pages).
    pub const OLTP_WRITES: [(&str, u64); 2] = [("tpcc", 60_000_000), ("linkbench", 600_000_000)];

    pub fn table4(row: &str) -> (f64, f64, f64) {
        let r = TABLE4.iter().find(|r| r.0 == row).expect("an OLTP row");
        (r.1, r.2, r.3)
    }
}

/// What a trace needs to size its device: distinct device blocks touched, host page writes.
#[derive(Clone, Copy, Debug, serde::Serialize)]
struct TraceShape {
    blocks: u64,
    page_writes: u64,
}

/// Read the trace once: the device blocks (of `block_bytes`) it touches and its page writes (of
/// `page_bytes`, a partial page counting as one, as the simulator counts them).
fn trace_shape(path: &str, block_bytes: u64, page_bytes: u64) -> Result<TraceShape, Error> {
    let mut wl = trace::open(&TraceOptions::new(path))?;
    let mut blocks = std::collections::HashSet::with_capacity(1 << 16);
    let mut page_writes = 0;
    while let Some(r) = wl.next_request()? {
        let end = r.offset + r.len - 1;
        for b in r.offset / block_bytes..=end / block_bytes {
            blocks.insert(b);
        }
        if r.op == Op::Write {
            page_writes += end / page_bytes - r.offset / page_bytes + 1;
        }
    }
    Ok(TraceShape { blocks: blocks.len() as u64, page_writes })
}

/// A bench resolved for a scale: where its trace is, and what it writes.
struct Plan {
    /// Trace path and whether it is the full file (trace benches).
    trace: Option<(String, bool)>,
    shape: Option<TraceShape>,
    /// Page writes of the run.
    writes: u64,
}

fn plan(b: &Bench, scale: Scale, traces: &Traces) -> Result<Plan, Error> {
    match b.source {
        Source::Gen { writes, .. } => {
            Ok(Plan { trace: None, shape: None, writes: if scale == Scale::Quick { writes / 64 } else { writes } })
        }
        Source::Trace { builtin, full } => {
            let full = (scale == Scale::Paper).then(|| traces.full(full)).flatten();
            let (path, is_full) = match full {
                Some(p) => (p.display().to_string(), true),
                None => (builtin.to_string(), false),
            };
            let shape = trace_shape(&path, BLOCK_BYTES, PAGE_BYTES)?;
            Ok(Plan { trace: Some((path, is_full)), writes: shape.page_writes, shape: Some(shape) })
        }
    }
}

const PAGE_BYTES: u64 = 4096;
/// A block of the FEMU presets: 16 (10 GB) or 18 (8 GB) pages; traces run on the 10 GB one.
const BLOCK_BYTES: u64 = 16 * PAGE_BYTES;

/// Lines a trace device should have at least: FEMU's 25% / 5% thresholds and 2R++'s three open
/// lines act on whole lines, so a device of a few lines would measure rounding, not the policies.
const MIN_TRACE_LINES: u64 = 128;

/// Planes of a trace device: at quick scale 2 (lines of 32 pages: the excerpts' small footprints
/// make about a hundred lines or more); at paper scale FEMU's 64, halved while the footprint
/// would make fewer than [`MIN_TRACE_LINES`] lines (down to quick scale's 2: a built-in excerpt,
/// when the full trace is not beside the clone, then runs as at quick scale).
fn trace_planes(shape: &TraceShape, scale: Scale) -> u64 {
    if scale == Scale::Quick {
        return 2;
    }
    let mut planes = 64;
    while planes > 2 && lines_for(shape, planes) < MIN_TRACE_LINES {
        planes /= 2;
    }
    planes
}

/// Whole lines of `planes` blocks holding the trace's footprint plus 10% (the paper's OP).
fn lines_for(shape: &TraceShape, planes: u64) -> u64 {
    let logical = shape.blocks * BLOCK_BYTES;
    (logical as f64 * 1.1 / (planes * BLOCK_BYTES) as f64).ceil() as u64
}

/// A trace device: its logical bytes (the footprint), planes and lines.
fn trace_device(shape: &TraceShape, scale: Scale) -> (u64, u64, u64) {
    let planes = trace_planes(shape, scale);
    (shape.blocks * BLOCK_BYTES, planes, lines_for(shape, planes))
}

/// The configuration of one run.
fn config(b: &Bench, p: &Policy, scale: Scale, plan: &Plan, extra: &[String]) -> Result<Config, Error> {
    let preset = presets::find(b.preset).expect("the FEMU presets are registered");
    let mut sets: Vec<String> = vec![
        format!("name=\"2rpp {} {}\"", b.key, p.label),
        format!("ftl.gc=\"{}\"", p.gc),
        format!("ftl.gc_schedule=\"{}\"", p.schedule),
        "workload=".into(),
        "sim.mode=\"accounting\"".into(),
        format!("sim.interval_writes={}", plan.writes.div_ceil(10).max(1)),
        "sim.track_frozen=true".into(),
    ];
    sets.extend(p.params.iter().map(|s| s.to_string()));
    if scale == Scale::Quick {
        sets.push("device.chips_per_channel=1".into());
    }
    if let Some(shape) = plan.shape {
        let (_, planes, _) = trace_device(&shape, scale);
        // FEMU's 8 channels × 8 LUNs, or fewer channels (and one LUN each) for a smaller device.
        if planes < 64 {
            if scale == Scale::Paper {
                sets.push("device.chips_per_channel=1".into());
            }
            sets.push(format!("device.channels={planes}"));
        }
    }
    match (b.source, &plan.trace, &plan.shape) {
        (Source::Gen { workload, fill, .. }, _, _) => {
            sets.push(format!("workload.requests={}", plan.writes));
            sets.push(format!("precondition.fill={fill}"));
            sets.extend(workload.iter().map(|w| format!("workload.{w}")));
            if scale == Scale::Quick {
                let (lines, logical) = if b.preset == "femu-8gb" { (256, "128MiB") } else { (352, "160MiB") };
                sets.push(format!("device.blocks_per_plane={lines}"));
                sets.push(format!("device.logical_capacity=\"{logical}\""));
            }
        }
        (Source::Trace { .. }, Some((path, _)), Some(shape)) => {
            let (logical, _, lines) = trace_device(shape, scale);
            sets.push("workload.kind=\"trace\"".into());
            sets.push(format!("workload.path={}", toml::Value::String(path.clone())));
            sets.push("host.out_of_range=\"compact\"".into());
            sets.push("precondition.fill=false".into());
            sets.push(format!("device.blocks_per_plane={lines}"));
            sets.push(format!("device.logical_capacity={logical}"));
        }
        _ => unreachable!("a trace bench is planned with its trace"),
    }
    // Last, so they override the scale's device (the OP10 rows' lines).
    sets.extend(extra.iter().cloned());
    Config::from_toml_str(preset.text, &format!("preset {} (2rpp {})", preset.name, b.key), &sets)
}

/// One row of `results.json`.
fn row(b: &Bench, p: &Policy, r: &Results) -> serde_json::Value {
    let flows: serde_json::Map<String, serde_json::Value> =
        r.gc.flows.iter().map(|f| (format!("{}->{}", f.from, f.to), json!(f.pages))).collect();
    json!({
        "workload": b.key,
        "workload_label": b.label,
        "policy": p.label,
        "gc": p.gc,
        "gc_schedule": p.schedule,
        "waf": r.waf,
        "running_waf": r.series.iter().map(|s| s.running_waf).collect::<Vec<_>>(),
        "copybacks": r.ftl.gc_copies,
        "copybacks_by_flow": flows,
        "moved_into_cold": r.gc.moved_into_cold,
        "returned": r.gc.returned,
        "returned_ratio": r.gc.returned_ratio,
        "returned_age": r.gc.returned_age,
        "overwrites": r.gc.overwrites,
        "frozen_share": r.series.iter().map(|s| s.frozen_share).collect::<Vec<_>>(),
        "host_writes": r.ftl.host_writes,
        "erases": r.flash.erases,
        "victims": r.gc.victims,
        "fallback_victims": r.gc.extra.get("fallback_victims"),
        "fallback_share": r.gc.fallback_share,
        "gc_rounds": r.ftl.gc_rounds,
        "gc_background_rounds": r.ftl.gc_background_rounds,
        "gc_declined_rounds": r.ftl.gc_declined_rounds,
        "logical_bytes": r.device.logical_bytes,
        "physical_bytes": r.device.physical_bytes,
        "over_provisioning": r.device.over_provisioning,
        "effective_over_provisioning": r.device.effective_over_provisioning,
        "wall_s": r.sim.wall_s,
    })
}

pub fn run(setup: &Setup, progress: &dyn RunProgress) -> Result<Outcome, Error> {
    let scale = setup.scale;
    let plans: Vec<Plan> = BENCHES.iter().map(|b| plan(b, scale, &setup.traces)).collect::<Result<_, _>>()?;
    let mut jobs = Vec::new();
    let mut keys = Vec::new();
    for (b, pl) in BENCHES.iter().zip(&plans) {
        for p in POLICIES {
            jobs.push((format!("{} / {}", b.label, p.label), config(b, p, scale, pl, &[])?));
            keys.push((b, p));
        }
    }
    // The 8 GB device at 10% OP: the main policies on the fio benches on a filled device.
    for key in FIO_FILLED {
        let (b, pl) = BENCHES.iter().zip(&plans).find(|(b, _)| b.key == key).expect("a registered bench");
        for p in &POLICY_OP10 {
            let cfg = config(b, p, scale, pl, &[format!("device.blocks_per_plane={}", op10_lines(scale))])?;
            jobs.push((format!("{} / {}", b.label, p.label), cfg));
            keys.push((b, p));
        }
    }
    // The warm-page experiments.
    for key in WARM_BENCHES {
        let (b, pl) = BENCHES.iter().zip(&plans).find(|(b, _)| b.key == key).expect("a registered bench");
        for p in &WARM_POLICIES {
            jobs.push((format!("{} / {}", b.label, p.label), config(b, p, scale, pl, &[])?));
            keys.push((b, p));
        }
    }
    // Threshold sensitivity runs go after the main ones (their own rows, not in `rows`).
    let mut sens_keys = Vec::new();
    for key in SENS_BENCHES {
        let (b, pl) = BENCHES.iter().zip(&plans).find(|(b, _)| b.key == key).expect("a registered bench");
        for p in POLICIES.iter().filter(|p| p.label == "2R" || p.label == "2R++") {
            for t in SENS_THRESHOLDS {
                let cfg = config(b, p, scale, pl, &[format!("ftl.gc_params.threshold={t}")])?;
                jobs.push((format!("{} / {} / threshold {t}", b.label, p.label), cfg));
                sens_keys.push((b.key, p.label, t));
            }
        }
    }
    let mut model_keys = Vec::new();
    let (tb, tpl) = BENCHES.iter().zip(&plans).find(|(b, _)| b.key == "tpcc").expect("the TPC-C model bench");
    for (knob, values) in MODEL_SENS {
        for v in values {
            for p in POLICIES.iter().filter(|p| MAIN.contains(&p.label)) {
                let cfg = config(tb, p, scale, tpl, &[format!("workload.{knob}={v}")])?;
                jobs.push((format!("{} / {} / {knob} {v}", tb.label, p.label), cfg));
                model_keys.push((knob, v, p.label));
            }
        }
    }
    let mut results = run_all(&jobs, setup, progress)?;
    let model_results = results.split_off(keys.len() + sens_keys.len());
    let sens_results = results.split_off(keys.len());
    let sens: Vec<(&str, &str, f64, Results)> =
        sens_keys.into_iter().zip(sens_results).map(|((b, p, t), r)| (b, p, t, r)).collect();
    let model: Vec<(&str, f64, &str, Results)> =
        model_keys.into_iter().zip(model_results).map(|((k, v, p), r)| (k, v, p, r)).collect();
    let rows: Vec<serde_json::Value> = keys.iter().zip(&results).map(|((b, p), r)| row(b, p, r)).collect();
    let runs = Runs { keys: keys.iter().map(|(b, p)| (b.key, p.label)).collect(), results: &results };
    let runs = &runs;
    let mut files = vec![("series.csv".to_string(), series_csv(&keys, &results))];
    for b in BENCHES {
        files.push((format!("running-waf-{}.svg", b.key), running_waf_plot(b, runs)));
    }
    files.push(("frozen-share.svg".into(), frozen_plot(runs)));
    files.push(("cumulative-waf.svg".into(), cumulative_plot(runs)));
    files.push(("trigger-ablation.svg".into(), trigger_plot(runs)));
    files.push(("copyback-flows.svg".into(), flows_plot(runs)));
    files.push(("returned-ratio.svg".into(), returned_plot(runs)));
    let claims = claims(runs);
    let mut report_md = report(scale, runs, &plans, &files, &claims);
    threshold_section(&mut report_md, runs, &sens);
    model_section(&mut report_md, runs, &model);
    let json = json!({
        "reproduction": "2rpp",
        "paper": CITATION.line(),
        "scale": scale,
        "setup": setup_json(&plans, scale),
        "rows": rows,
        "model_sensitivity": model.iter().map(|(k, v, p, r)| json!({
            "workload": "tpcc", "knob": k, "value": v, "policy": p, "waf": r.waf,
        })).collect::<Vec<_>>(),
        "threshold_sensitivity": sens.iter().map(|(b, p, t, r)| json!({
            "workload": b, "policy": p, "threshold": t, "waf": r.waf, "fallback_share": r.gc.fallback_share,
        })).collect::<Vec<_>>(),
    });
    Ok(Outcome { json, report_md, files, claims })
}

/// Every run's intervals in one table.
fn series_csv(keys: &[(&Bench, &Policy)], results: &[Results]) -> String {
    let mut csv = String::from(
        "workload,policy,interval,host_writes,running_waf,cumulative_waf,erases,copybacks,moved_into_cold,returned,frozen_share\n",
    );
    for ((b, p), r) in keys.iter().zip(results) {
        for s in &r.series {
            let frozen = s.frozen_share.map_or(String::new(), |f| format!("{f:.6}"));
            let _ = writeln!(
                csv,
                "{},{},{},{},{:.6},{:.6},{},{},{},{},{frozen}",
                b.key,
                p.label,
                s.interval,
                s.host_writes,
                s.running_waf,
                s.cumulative_waf,
                s.erases,
                s.gc_copies,
                s.moved_into_cold,
                s.returned
            );
        }
    }
    csv
}

fn setup_json(plans: &[Plan], scale: Scale) -> serde_json::Value {
    let benches: Vec<serde_json::Value> = BENCHES
        .iter()
        .zip(plans)
        .map(|(b, pl)| {
            json!({
                "workload": b.key,
                "device": b.preset,
                "writes": pl.writes,
                "fill_first": matches!(b.source, Source::Gen { fill: true, .. }),
                "trace": pl.trace.as_ref().map(|t| t.0.clone()),
                "full_trace": pl.trace.as_ref().map(|t| t.1),
                "trace_shape": pl.shape,
            })
        })
        .collect();
    json!({
        "benches": benches,
        "policies": POLICIES.iter().chain(&POLICY_OP10).map(|p| json!({"label": p.label, "gc": p.gc, "gc_schedule": p.schedule, "params": p.params})).collect::<Vec<_>>(),
        "op10_blocks_per_plane": op10_lines(scale),
        "verdict_band": BAND,
        "quick_scale": "capacity / 64 (8 planes, 1/8 of the lines), write volumes / 64; traces: built-in excerpts",
    })
}

/// Results by (workload key, policy label).
struct Runs<'a> {
    keys: Vec<(&'static str, &'static str)>,
    results: &'a [Results],
}

impl<'a> Runs<'a> {
    fn get(&self, bench: &str, policy: &str) -> &'a Results {
        let i = self.keys.iter().position(|&(b, p)| b == bench && p == policy).expect("every pair ran");
        &self.results[i]
    }
    fn waf(&self, bench: &str, policy: &str) -> f64 {
        self.get(bench, policy).waf.unwrap_or(f64::NAN)
    }
    /// WAF with the fallback share for 2R / 2R++ rows: "1.234 (fb 12%)".
    fn waf_fb(&self, bench: &str, policy: &str) -> String {
        let r = self.get(bench, policy);
        match r.gc.fallback_share {
            Some(s) => format!("{:.3} (fb {:.0}%)", r.waf.unwrap_or(f64::NAN), 100.0 * s),
            None => format!("{:.3}", r.waf.unwrap_or(f64::NAN)),
        }
    }
}

fn bench(key: &str) -> &'static Bench {
    BENCHES.iter().find(|b| b.key == key).expect("a registered bench")
}

fn running_waf_plot(b: &Bench, runs: &Runs) -> String {
    let lines: Vec<Line> = MAIN
        .iter()
        .chain(&["greedy (classic)"])
        .map(|p| {
            let r = runs.get(b.key, p);
            let n = r.series.len().max(1) as f64;
            Line {
                name: p.to_string(),
                points: r.series.iter().enumerate().map(|(i, s)| ((i + 1) as f64 * 100.0 / n, s.running_waf)).collect(),
            }
        })
        .collect();
    line_chart(&format!("Running WAF: {}", b.label), "progress (% of host writes)", "WAF (interval)", &lines, Some(0.0))
}

fn frozen_plot(runs: &Runs) -> String {
    let lines: Vec<Line> = OLTP
        .iter()
        .map(|k| {
            let r = runs.get(k, "2R++");
            let n = r.series.len().max(1) as f64;
            Line {
                name: k.to_string(),
                points: r
                    .series
                    .iter()
                    .enumerate()
                    .map(|(i, s)| ((i + 1) as f64 * 100.0 / n, 100.0 * s.frozen_share.unwrap_or(0.0)))
                    .collect(),
            }
        })
        .collect();
    let reference = [Line { name: "paper: 40% at 60%".into(), points: vec![(60.0, paper::FROZEN_AT_60)] }];
    line_chart_with(
        "Frozen pages (Fig. 2)",
        "progress (% of host writes)",
        "frozen share of the space (%)",
        &lines,
        &reference,
        Some(0.0),
    )
}

fn cumulative_plot(runs: &Runs) -> String {
    let bars = Bars {
        x_label: "workload".into(),
        categories: BENCHES.iter().map(|b| b.key.to_string()).collect(),
        series: MAIN.iter().map(|p| (p.to_string(), BENCHES.iter().map(|b| runs.waf(b.key, p)).collect())).collect(),
        stacked: false,
    };
    // The paper's WAFs over the matching bars: Table 3 (fio: 2R, 2R++), Table 4 (OLTP: all three).
    let paper_waf = |b: &Bench, policy: usize| -> f64 {
        if let Some(r) = paper::TABLE3.iter().find(|r| r.0 == b.paper_row) {
            return [f64::NAN, r.1, r.2][policy];
        }
        paper::TABLE4.iter().find(|r| r.0 == b.paper_row).map_or(f64::NAN, |r| [r.1, r.2, r.3][policy])
    };
    let reference: Vec<(String, Vec<f64>)> = MAIN
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("paper {p}"), BENCHES.iter().map(|b| paper_waf(b, i)).collect()))
        .collect();
    bar_chart_with(
        "Cumulative WAF on FEMU's GC trigger (Tables 3, 4)",
        "WAF (flash programs / host writes)",
        &bars,
        &reference,
    )
}

/// The trigger ablation: every main policy on its trigger and on the other one.
fn trigger_plot(runs: &Runs) -> String {
    let series = MAIN
        .iter()
        .zip(OTHER_TRIGGER)
        .flat_map(|(m, o)| {
            [
                (format!("{m} (main)"), BENCHES.iter().map(|b| runs.waf(b.key, m)).collect()),
                (o.to_string(), BENCHES.iter().map(|b| runs.waf(b.key, o)).collect()),
            ]
        })
        .collect();
    let bars = Bars {
        x_label: "workload".into(),
        categories: BENCHES.iter().map(|b| b.key.to_string()).collect(),
        series,
        stacked: false,
    };
    bar_chart("WAF by GC trigger: the main reading vs the other trigger", "WAF (flash programs / host writes)", &bars)
}

/// Copy-backs per host write, split by kind of flow: within the normal region (2R++ 00→01),
/// into the cold region (N→C, 01→10) and within the cold region (C→C, 10→10).
fn flows_plot(runs: &Runs) -> String {
    let mut categories = Vec::new();
    let mut kinds = [Vec::new(), Vec::new(), Vec::new()];
    for b in BENCHES.iter().filter(|b| OLTP.contains(&b.key) || FIO_FILLED.contains(&b.key)) {
        for p in ["2R", "2R++"] {
            let r = runs.get(b.key, p);
            let per = |f: &flashlab::ftl::Flow| f.pages as f64 / r.ftl.host_writes.max(1) as f64;
            let mut k = [0.0; 3];
            for f in &r.gc.flows {
                let kind = match (f.from.as_str(), f.to.as_str()) {
                    ("00", "01") => 0,
                    ("N", "C") | ("01", "10") => 1,
                    _ => 2,
                };
                k[kind] += per(f);
            }
            categories.push(format!("{} {p}", b.key));
            for (i, v) in k.into_iter().enumerate() {
                kinds[i].push(v);
            }
        }
    }
    let names = ["normal→normal (00→01)", "normal→cold (N→C, 01→10)", "cold→cold (C→C, 10→10)"];
    let bars = Bars {
        x_label: "workload and policy".into(),
        categories,
        series: names.iter().zip(kinds).map(|(n, v)| (n.to_string(), v)).collect(),
        stacked: true,
    };
    bar_chart("Copy-backs by flow (Figs. 5, 13)", "copy-backs per host write", &bars)
}

fn returned_plot(runs: &Runs) -> String {
    let ratio = |k: &str, p: &str| 100.0 * runs.get(k, p).gc.returned_ratio.unwrap_or(0.0);
    let paper_of = |k: &str| paper::RETURNED.iter().find(|r| r.0 == bench(k).paper_row).expect("an OLTP row");
    let bars = Bars {
        x_label: "workload".into(),
        categories: OLTP.iter().map(|k| k.to_string()).collect(),
        series: vec![
            ("2R paper".into(), OLTP.iter().map(|k| paper_of(k).1).collect()),
            ("2R ours".into(), OLTP.iter().map(|k| ratio(k, "2R")).collect()),
            ("2R++ paper".into(), OLTP.iter().map(|k| paper_of(k).2).collect()),
            ("2R++ ours".into(), OLTP.iter().map(|k| ratio(k, "2R++")).collect()),
        ],
        stacked: false,
    };
    bar_chart("Pages returned from the cold region (Figs. 4, 12)", "returned / moved into cold (%)", &bars)
}

/// Equation (1): (WAF_2R − WAF_2R++) / (WAF_2R − 1), in %.
/// Appended to the report: the 2R / 2R++ WAF and 2R's improvement over greedy against the
/// threshold (chosen: 2R++'s 40% for both; 2R's own value is not in the paper).
fn threshold_section(md: &mut String, runs: &Runs, sens: &[(&str, &str, f64, Results)]) {
    let w = md;
    let _ = writeln!(w, "\n## Sensitivity to the 2R / 2R++ threshold\n");
    let _ = writeln!(w, "The main rows use 40% (2R++'s stated value) for both policies; the paper gives none for 2R. WAF (share of victims the fallback chose) and, for 2R, Eq. (1)'s improvement over greedy:\n");
    let mut head = String::from("| workload | policy |");
    let mut rule = String::from("|---|---|");
    let mut ts: Vec<f64> = SENS_THRESHOLDS.to_vec();
    ts.push(0.4);
    ts.sort_by(f64::total_cmp);
    for t in &ts {
        head.push_str(&format!(" {:.0}%{} |", 100.0 * t, if *t == 0.4 { " (main)" } else { "" }));
        rule.push_str("---|");
    }
    let _ = writeln!(w, "{head}\n{rule}");
    for key in SENS_BENCHES {
        let greedy = runs.waf(key, "greedy");
        for policy in ["2R", "2R++"] {
            let mut line = format!("| {key} | {policy} |");
            for &t in &ts {
                let r = if t == 0.4 {
                    Some(runs.get(key, policy))
                } else {
                    sens.iter().find(|s| s.0 == key && s.1 == policy && s.2 == t).map(|s| &s.3)
                };
                let cell = r.map_or("-".to_string(), |r| {
                    let waf = r.waf.unwrap_or(f64::NAN);
                    let fb = r.gc.fallback_share.map_or(String::new(), |f| format!(" (fb {:.0}%)", 100.0 * f));
                    let imp =
                        if policy == "2R" { format!("; {:+.1}%", improvement(greedy, waf)) } else { String::new() };
                    format!("{waf:.3}{fb}{imp}")
                });
                line.push_str(&format!(" {cell} |"));
            }
            let _ = writeln!(w, "{line}");
        }
    }
    let spread = SENS_BENCHES
        .iter()
        .flat_map(|&key| ["2R", "2R++"].map(|p| (key, p)))
        .map(|(key, policy)| {
            let wafs: Vec<f64> = sens
                .iter()
                .filter(|s| s.0 == key && s.1 == policy)
                .filter_map(|s| s.3.waf)
                .chain(runs.get(key, policy).waf)
                .collect();
            let (lo, hi) = wafs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            (100.0 * (hi - lo) / lo, key, policy)
        })
        .fold((0.0, "", ""), |a, b| if b.0 > a.0 { b } else { a });
    let _ = writeln!(
        w,
        "\nLargest WAF spread across the thresholds: {:.1}% ({} {}): the rows above do not hinge on the chosen 40% by more than that.\n",
        spread.0, spread.1, spread.2
    );
}

/// Appended to the report: the TPC-C model's headlines against its chosen knobs.
fn model_section(md: &mut String, runs: &Runs, model: &[(&str, f64, &str, Results)]) {
    let w = md;
    let _ = writeln!(w, "## Sensitivity of the TPC-C growth model\n");
    let (pg, p2r, p2rpp) = paper::table4("tpcc");
    let _ = writeln!(
        w,
        "`core_share` was set to Fig. 1's skew and `active_window` derived from Fig. 2 (see `workload/gen/oltp.rs`); each row moves one of them. Eq. (1) improvements in %; the paper's Table 4 gives {:.1} (2R over greedy) and {:.1} (2R++ over 2R) on TPC-C.\n",
        improvement(pg, p2r),
        improvement(p2r, p2rpp)
    );
    let _ = writeln!(
        w,
        "| model | greedy WAF | 2R WAF | 2R++ WAF | 2R over greedy | 2R++ over 2R |\n|---|---|---|---|---|---|"
    );
    let mut spans = [(f64::MAX, f64::MIN); 2];
    let mut line = |w: &mut String, label: String, g: f64, a: f64, b: f64| {
        let (i1, i2) = (improvement(g, a), improvement(a, b));
        for (s, v) in spans.iter_mut().zip([i1, i2]) {
            *s = (s.0.min(v), s.1.max(v));
        }
        let _ = writeln!(w, "| {label} | {g:.3} | {a:.3} | {b:.3} | {i1:.1} | {i2:.1} |");
    };
    line(w, "main (defaults)".into(), runs.waf("tpcc", "greedy"), runs.waf("tpcc", "2R"), runs.waf("tpcc", "2R++"));
    for (knob, values) in MODEL_SENS {
        for v in values {
            let waf = |p: &str| {
                model.iter().find(|m| m.0 == knob && m.1 == v && m.2 == p).and_then(|m| m.3.waf).unwrap_or(f64::NAN)
            };
            line(w, format!("`{knob}` = {v}"), waf("greedy"), waf("2R"), waf("2R++"));
        }
    }
    let inside = |s: (f64, f64), p: f64| if (s.0..=s.1).contains(&p) { "inside" } else { "outside" };
    let _ = writeln!(
        w,
        "\nOver these rows 2R over greedy spans {:.1}–{:.1}% (paper {:.1}: {} that range) and 2R++ over 2R {:.1}–{:.1}% (paper {:.1}: {}): \
         where the paper's figure is outside, these two knobs do not explain the gap.\n",
        spans[0].0,
        spans[0].1,
        improvement(pg, p2r),
        inside(spans[0], improvement(pg, p2r)),
        spans[1].0,
        spans[1].1,
        improvement(p2r, p2rpp),
        inside(spans[1], improvement(p2r, p2rpp))
    );
}

fn improvement(w2r: f64, w2rpp: f64) -> f64 {
    100.0 * (w2r - w2rpp) / (w2r - 1.0)
}

fn pct(x: f64) -> String {
    format!("{x:.2}%")
}

/// Every claim of the paper we test, judged by the one rule with [`BAND`].
/// A fio row's 2R WAF, 2R++ WAF and Eq. (1) improvement, at Table 1's OP or §4.2's 10%.
fn fio_figures(runs: &Runs, key: &str, op10: bool) -> [f64; 3] {
    let (a, b) = if op10 { (OP10[1], OP10[2]) } else { ("2R", "2R++") };
    let (w2r, w2rpp) = (runs.waf(key, a), runs.waf(key, b));
    [w2r, w2rpp, improvement(w2r, w2rpp)]
}

/// The 2R WAF, 2R++ WAF and Eq. (1) improvement with §3.1's "most recently accessed" window,
/// where run.
fn window_reading(runs: &Runs, key: &str) -> Option<(String, [f64; 3])> {
    WARM_BENCHES.contains(&key).then(|| {
        let (w2r, w2rpp) = (runs.waf(key, WARM_POLICIES[0].label), runs.waf(key, WARM_POLICIES[1].label));
        (
            "§3.1's most recently *accessed* lines as the recency window (a page invalidation counts as an access)"
                .to_string(),
            [w2r, w2rpp, improvement(w2r, w2rpp)],
        )
    })
}

/// A claim; a gap is explained by an ambiguity of the paper when its other reading, also run,
/// puts the figure inside the band (`readings`: the reading and our figure under it).
fn judged(kind: Kind, what: String, paper: f64, ours: f64, readings: &[(String, f64)]) -> Claim {
    let claim = Claim::new(kind, what, paper, ours, BAND, "");
    match readings.iter().find(|(_, x)| !Claim::new(kind, "", paper, *x, BAND, "").has_gap()) {
        Some((reading, x)) => claim.because(format!(
            "an ambiguity of the paper, both readings run: with {reading} ours is {x:.3}, inside the band"
        )),
        None => claim,
    }
}

fn claims(runs: &Runs) -> Vec<Claim> {
    let mut c = Vec::new();
    for (keys, how, other_keys, other_how) in [
        (FIO_FILLED, "device filled first", FIO_JOB, "filled by the job"),
        (FIO_JOB, "filled by the job", FIO_FILLED, "filled first"),
    ] {
        for ((k, other), (_, p2r, p2rpp, pimp)) in keys.iter().zip(other_keys).zip(paper::TABLE3) {
            let theta = &bench(k).paper_row[4..];
            // Ours, and the same figures under the readings the paper leaves open: the device state
            // for every fio row, and §4.2's 10% OP for the rows on a filled device.
            let ours = fio_figures(runs, k, false);
            let mut readings = vec![(
                format!("the device {other_how} (§5.1's wording allows both states)"),
                fio_figures(runs, other, false),
            )];
            if FIO_FILLED.contains(k) {
                readings
                    .push(("§4.2's 10% OP (Table 1's geometry gives 12.5%)".to_string(), fio_figures(runs, k, true)));
            }
            readings.extend(window_reading(runs, k));
            let claimed = [
                ("2R WAF", Kind::Value, p2r),
                ("2R++ WAF", Kind::Value, p2rpp),
                ("improvement of 2R++ over 2R, Eq. (1), %", Kind::Effect, pimp),
            ];
            for (i, (what, kind, paper)) in claimed.into_iter().enumerate() {
                let alt: Vec<(String, f64)> = readings.iter().map(|(r, f)| (r.clone(), f[i])).collect();
                c.push(judged(kind, format!("fio θ={theta} ({how}): {what}"), paper, ours[i], &alt));
            }
        }
    }
    for k in OLTP {
        let row = bench(k).paper_row;
        let (g, r, rpp) = paper::table4(row);
        let name = bench(k).label;
        let window = window_reading(runs, k);
        let alt = |i: usize| -> Vec<(String, f64)> { window.iter().map(|(r, f)| (r.clone(), f[i])).collect() };
        c.push(judged(Kind::Value, format!("{name}: greedy WAF"), g, runs.waf(k, "greedy"), &[]));
        for (i, (label, p)) in [("2R", r), ("2R++", rpp)].into_iter().enumerate() {
            c.push(judged(Kind::Value, format!("{name}: {label} WAF"), p, runs.waf(k, label), &alt(i)));
        }
        let (o2r, o2rpp) = (runs.waf(k, "2R"), runs.waf(k, "2R++"));
        c.push(judged(
            Kind::Effect,
            format!("{name}: improvement of 2R++ over 2R, Eq. (1), %"),
            improvement(r, rpp),
            improvement(o2r, o2rpp),
            &alt(2),
        ));
        c.push(Claim::new(
            Kind::Effect,
            format!("{name}: improvement of 2R over greedy, Eq. (1), %"),
            improvement(g, r),
            improvement(runs.waf(k, "greedy"), o2r),
            BAND,
            "",
        ));
        let ret = paper::RETURNED.iter().find(|x| x.0 == row).expect("an OLTP row");
        for (label, p) in [("2R", ret.1), ("2R++", ret.2)] {
            let ours = runs.get(k, label).gc.returned_ratio.map_or(f64::NAN, |x| 100.0 * x);
            c.push(Claim::new(Kind::Value, format!("{name}: {label} returned ratio, %"), p, ours, BAND, ""));
        }
        let frozen = runs.get(k, "2R++").series.get(5).and_then(|s| s.frozen_share).map_or(f64::NAN, |f| 100.0 * f);
        let kind = if k.ends_with("-trace") { Kind::Value } else { Kind::Fitted };
        let note = if kind == Kind::Fitted {
            "the growth model freezes 40% of the space at 60% progress by construction"
        } else {
            ""
        };
        c.push(Claim::new(
            kind,
            format!("{name}: frozen share of the space at 60% progress (Fig. 2), %"),
            paper::FROZEN_AT_60,
            frozen,
            BAND,
            note,
        ));
    }
    c
}

fn report(scale: Scale, runs: &Runs, plans: &[Plan], files: &[(String, String)], claims: &[Claim]) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(
        w,
        "# 2R++ reproduction ({} scale)\n",
        match scale {
            Scale::Quick => "quick",
            Scale::Paper => "paper",
        }
    );
    let _ = writeln!(
        w,
        "Paper: {} It builds on M. Kang, S. Choi, G. Oh and S. W. Lee, \"2R: Efficiently isolating cold \
         pages in flash storages\", Proceedings of the VLDB Endowment 13(12), 2020 (its reference [1]).\n",
        CITATION.line()
    );
    let _ = writeln!(w, "{}\n", verdict::tally(claims));
    setup_section(w, scale, runs, plans);
    table3(w, runs);
    table4(w, runs);
    trigger_section(w, runs);
    returned_section(w, runs, scale);
    let _ = writeln!(w, "## Running WAF (Figs. 9–11)\n");
    for (name, _) in files.iter().filter(|(n, _)| n.starts_with("running-waf")) {
        let _ = writeln!(w, "![{name}]({name})\n");
    }
    let _ = writeln!(w, "Every interval of every run: [series.csv](series.csv).\n");
    frozen_section(w, runs);
    ablation_section(w, runs);
    warm_section(w, runs);
    let _ = writeln!(w, "## Verdicts\n");
    let _ = writeln!(w, "By the rule and the ±{:.0}% band stated under Setup, before the results.\n", 100.0 * BAND);
    let _ = writeln!(w, "{}", verdict::section(claims, 3));
    why_section(w, runs);
    md
}

fn setup_section(w: &mut String, scale: Scale, runs: &Runs, plans: &[Plan]) {
    let _ = writeln!(w, "## Setup\n");
    let _ = writeln!(w, "| workload | device | logical / physical | page writes | first |\n|---|---|---|---|---|");
    for (b, pl) in BENCHES.iter().zip(plans) {
        let d = &runs.get(b.key, "greedy").device;
        let dev = match (b.source, b.preset) {
            (Source::Trace { .. }, _) => "FEMU lines, sized to the trace".to_string(),
            (_, "femu-8gb") => "8 GB (paper Table 1: 2,048 lines × 1,152 pages)".into(),
            _ => "10 GB (paper Table 1: 2,816 lines × 1,024 pages)".into(),
        };
        let first = match b.source {
            Source::Gen { fill: true, .. } => "device filled sequentially".to_string(),
            Source::Gen { .. } => "empty device".into(),
            Source::Trace { .. } => match &pl.trace {
                Some((p, true)) => format!("empty device; full trace `{}`", p.rsplit('/').next().unwrap_or(p)),
                Some((p, false)) => format!("empty device; excerpt `{p}`"),
                None => String::new(),
            },
        };
        let gib = (1u64 << 30) as f64;
        let _ = writeln!(
            w,
            "| {} | {dev} | {:.3} / {:.3} GiB (OP {:.1}%) | {} | {first} |",
            b.label,
            d.logical_bytes as f64 / gib,
            d.physical_bytes as f64 / gib,
            100.0 * d.over_provisioning,
            pl.writes
        );
    }
    let _ = writeln!(
        w,
        "\n**GC trigger: the main reading.** The paper's pseudo-code collects only when a host write finds no free block — \
         Fig. 7, lines 13–14: `if S == W AND no free block then GARBAGE_COLLECT();` — and §4.1 says the experiments ran \
         \"by modifying the FTL of FEMU's Blackbox SSD\": 2R and 2R++ replace FEMU's FTL, trigger included, while greedy, the \
         baseline, is FEMU's FTL unmodified. So the judged rows run **greedy on FEMU's trigger** (`ftl.gc_schedule = \"femu\"`: \
         FEMU's stock GC, `hw/femu/bbssd/ftl.c` of 2022, runs in the background after a request when free lines are at most \
         25% of the lines — one line, and only if it has at least 1/8 of its pages invalid — and is forced before writes \
         while free lines are at most 5%; it keeps at least 5% of the lines free, so its effective OP is about half the \
         configured one, the results' `effective_over_provisioning`) and **2R and 2R++ on Fig. 7's trigger** (the `classic` \
         schedule: a victim round whenever a new line would leave the device with no free line, no background GC). The \
         other combinations — greedy on `classic`, 2R and 2R++ on `femu` (`2R (femu)`, `2R++ (femu)`) — are ablation rows, \
         not judged.\n\n\
         FEMU geometry as presets `femu-8gb` / `femu-10gb`: 8 channels × 8 LUNs × 1 plane, so 18 / 16 pages per block make the \
         paper's pages per line; line GC, 4 KiB pages. **OP** (argued before the runs): the 10 GB device's Table 1 geometry \
         (2,816 lines × 1,024 pages = 11 GiB) is exactly the text's 10%. The 8 GB device's (2,048 lines × 1,152 pages = 9 GiB) \
         is 12.5%, while §4.2 and Table 2 say 10% — which would be 2,002.5 lines, not a whole number. Table 1 is the \
         platform's configuration, so the judged fio rows use 12.5%; the same fio rows at 10% (2,003 lines; `OP10`) are \
         shown beside them and not judged. 2R/2R++: threshold 40%, recency window 20%, victims from the first victim's region \
         until their valid (2R) / invalid (2R++) pages reach a line; when no line is under the threshold, the least-utilized \
         eligible line (the FIFO fallback is an ablation). *fb* next to a 2R/2R++ WAF is the share of victims the fallback \
         chose: where it is high, the row measures the fallback more than 2R's rule. Accounting mode (WAF does not depend on time).\n\n\
         **fio** runs twice: on a device filled sequentially first (the paper: fio runs with the space fully in use from the \
         start, as fio lays out its 8 GB file before the job) and on an empty device filled only by the zipf job (at θ = 1.1 \
         most pages are then never written).\n\n\
         **Real OLTP traces** (`shared/traces/oltp`, captured with the kernel's `block:block_rq_issue` tracepoint: MariaDB 10.11 \
         InnoDB with O_DIRECT, a 256 MB buffer pool, doublewrite and redo log on; 10-warehouse TPC-C for 30 min, LinkBench with \
         1.5 M nodes for 25 min; and 10-warehouse TPC-C (go-tpc) on PostgreSQL 15 with buffered I/O for 22 min; load phases \
         included). Each stands in for the paper's row of the same benchmark (both TPC-C traces for Table 4's TPC-C row), \
         declared here before the runs. The paper's TPC-C device is as large as its database at the end of the \
         run (10 GB), so each trace runs on a device whose logical capacity is the trace's footprint — the 64 KiB device blocks \
         it touches, remapped in first-touch order (`host.out_of_range = \"compact\"`) — plus 10% OP, in FEMU lines (64 planes, \
         or fewer when the footprint would make under 128 lines). Unlike the \
         paper's, these databases do not grow tenfold: the load phase writes most of the footprint first. Partial-page writes \
         (InnoDB's 512-byte redo writes) count as one page write, with no read-modify-write."
    );
    let _ = writeln!(
        w,
        "\n**Verdict rule, stated before the runs** (the code's `BAND`): a WAF, an improvement rate (Eq. 1) or a returned ratio \
         *agrees* when it is within ±{:.0}% of the paper's figure; an improvement with the paper's sign outside the band is \
         *direction only*; anything else *differs*; a figure one of our parameters was derived from is *by construction* and \
         not evidence. The main rows (greedy on FEMU's trigger, 2R / 2R++ on Fig. 7's) are judged; the ablations are not. The copy-back reduction of 2R++ \
         against 2R equals Eq. (1)'s improvement when host writes are equal, so it is not judged twice.",
        100.0 * BAND
    );
    if scale == Scale::Quick {
        let _ = writeln!(
            w,
            "\n**Quick scale**: capacity / 64 (8 planes instead of 64, 1/8 of the lines) and write volumes / 64; writes per page \
             are the paper's. The trace rows replay the built-in excerpts (1/128 and 1/64 spatial samples of the traces: every \
             access to a sampled page kept) on devices sized to them with 2 planes (lines of 32 pages). Absolute copy-back counts \
             are therefore 1/64 of the paper's; compare per-write figures."
        );
    } else if plans.iter().any(|p| p.trace.as_ref().is_some_and(|t| !t.1)) {
        let _ = writeln!(
            w,
            "\n**The full traces were not found** (`shared/traces`, or `FLASHLAB_TRACES`): the trace rows replay the built-in excerpts."
        );
    }
    let _ = writeln!(w);
}

/// The least share of victims above the threshold `t` that a cumulative WAF implies: GC's
/// copies per host write are u / (1 − u) for a mean victim utilisation u, so u = (WAF − 1) / WAF;
/// victims under `t` hold at most `t` and those above at most 1, so at least (u − t) / (1 − t)
/// of them were above it — victims the threshold rule cannot have chosen (0 when u ≤ t).
fn fallback_bound(waf: f64, t: f64) -> f64 {
    let u = (waf - 1.0) / waf;
    ((u - t) / (1.0 - t)).max(0.0)
}

fn table3(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "![cumulative-waf.svg](cumulative-waf.svg)\n");
    let _ = writeln!(w, "## Table 3: cumulative WAF of fio (main reading)\n");
    let _ = writeln!(
        w,
        "*fb* is the share of our victims the fallback chose; *paper fb ≥* is the least share of the paper's victims that were \
         above the 40% threshold, from its own WAF (mean victim utilisation (WAF − 1) / WAF; victims under 40% hold at most 40%, \
         the others at most all their pages): some rule the paper does not state chose at least that many.\n"
    );
    let _ = writeln!(w, "| zipf | device | 2R paper | paper fb ≥ | 2R ours | 2R++ paper | paper fb ≥ | 2R++ ours | improvement paper | improvement ours | greedy ours |");
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|---|---|");
    for (keys, how) in [(FIO_FILLED, "filled first"), (FIO_JOB, "filled by the job")] {
        for (k, (_, p2r, p2rpp, pimp)) in keys.iter().zip(paper::TABLE3) {
            let (o2r, o2rpp) = (runs.waf(k, "2R"), runs.waf(k, "2R++"));
            let _ = writeln!(
                w,
                "| {} | {how} | {p2r:.3} | {:.0}% | {} | {p2rpp:.3} | {:.0}% | {} | {pimp:.3}% | {:.3}% | {:.3} |",
                &bench(k).paper_row[4..],
                100.0 * fallback_bound(p2r, 0.4),
                runs.waf_fb(k, "2R"),
                100.0 * fallback_bound(p2rpp, 0.4),
                runs.waf_fb(k, "2R++"),
                improvement(o2r, o2rpp),
                runs.waf(k, "greedy")
            );
        }
    }
    let _ = writeln!(w, "\n**OP of the 8 GB device**: the judged rows above use Table 1's geometry (12.5%); the same runs at §4.2's 10%:\n");
    let _ = writeln!(w, "| zipf | greedy 12.5% | greedy 10% | 2R 12.5% | 2R 10% | 2R++ 12.5% | 2R++ 10% | improvement 12.5% | improvement 10% |\n|---|---|---|---|---|---|---|---|---|");
    for k in FIO_FILLED {
        let _ = writeln!(
            w,
            "| {} | {:.3} | {:.3} | {} | {} | {} | {} | {:.1}% | {:.1}% |",
            &bench(k).paper_row[4..],
            runs.waf(k, "greedy"),
            runs.waf(k, OP10[0]),
            runs.waf_fb(k, "2R"),
            runs.waf_fb(k, OP10[1]),
            runs.waf_fb(k, "2R++"),
            runs.waf_fb(k, OP10[2]),
            improvement(runs.waf(k, "2R"), runs.waf(k, "2R++")),
            improvement(runs.waf(k, OP10[1]), runs.waf(k, OP10[2]))
        );
    }
    let _ = writeln!(w);
}

fn table4(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "## Table 4: cumulative WAF of OLTP (main reading)\n");
    let _ = writeln!(w, "| workload | greedy paper | greedy ours | 2R paper | 2R ours | 2R++ paper | 2R++ ours |\n|---|---|---|---|---|---|---|");
    for k in OLTP {
        let (g, r, rpp) = paper::table4(bench(k).paper_row);
        let _ = writeln!(
            w,
            "| {} | {g:.3} | {:.3} | {r:.3} | {} | {rpp:.3} | {} |",
            bench(k).label,
            runs.waf(k, "greedy"),
            runs.waf_fb(k, "2R"),
            runs.waf_fb(k, "2R++")
        );
    }
    let _ = writeln!(w);
}

fn trigger_section(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "## Ablation: each policy on the other trigger\n");
    let _ = writeln!(
        w,
        "Greedy on the textbook `classic` schedule (one victim round whenever a new line would leave no free line; no background \
         GC), and 2R / 2R++ on FEMU's (as the previous version of this reproduction ran them). The difference is the trigger alone.\n"
    );
    let _ = writeln!(w, "![trigger-ablation.svg](trigger-ablation.svg)\n");
    let _ = writeln!(w, "| workload | greedy femu (main) | greedy classic | 2R classic (main) | 2R femu | 2R++ classic (main) | 2R++ femu |\n|---|---|---|---|---|---|---|");
    for b in BENCHES {
        let _ = writeln!(
            w,
            "| {} | {:.3} | {:.3} | {} | {} | {} | {} |",
            b.key,
            runs.waf(b.key, "greedy"),
            runs.waf(b.key, "greedy (classic)"),
            runs.waf_fb(b.key, "2R"),
            runs.waf_fb(b.key, "2R (femu)"),
            runs.waf_fb(b.key, "2R++"),
            runs.waf_fb(b.key, "2R++ (femu)")
        );
    }
    let _ = writeln!(w, "\nGC rounds on FEMU's trigger (greedy): background rounds run / declined (victim under 1/8 invalid), and rounds forced:\n");
    let _ = writeln!(w, "| workload | background | declined | forced | effective OP |\n|---|---|---|---|---|");
    for b in BENCHES {
        let r = runs.get(b.key, "greedy");
        let f = &r.ftl;
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} |",
            b.key,
            f.gc_background_rounds,
            f.gc_declined_rounds,
            f.gc_rounds - f.gc_background_rounds,
            r.device.effective_over_provisioning.map_or("-".into(), |e| pct(100.0 * e))
        );
    }
    let _ = writeln!(w);
}

fn returned_section(w: &mut String, runs: &Runs, scale: Scale) {
    let _ = writeln!(w, "## Cold-region pollution (Figs. 4, 5, 12, 13; §5.4)\n");
    let _ = writeln!(w, "Returned ratio: pages GC moved into the cold region that a later host write sent back to normal, over all pages moved into cold.\n");
    let _ = writeln!(w, "![returned-ratio.svg](returned-ratio.svg)\n");
    let _ = writeln!(
        w,
        "| workload | returned 2R paper | 2R ours | returned 2R++ paper | 2R++ ours |\n|---|---|---|---|---|"
    );
    let ratio = |r: &Results| r.gc.returned_ratio.map_or("-".into(), |x| pct(100.0 * x));
    for k in OLTP {
        let (_, p2r, p2rpp) = *paper::RETURNED.iter().find(|r| r.0 == bench(k).paper_row).expect("an OLTP row");
        let _ = writeln!(
            w,
            "| {} | {p2r:.2}% | {} | {p2rpp:.2}% | {} |",
            bench(k).label,
            ratio(runs.get(k, "2R")),
            ratio(runs.get(k, "2R++"))
        );
    }
    let per_write = |r: &Results| r.ftl.gc_copies as f64 / r.ftl.host_writes.max(1) as f64;
    let _ = writeln!(w, "\nCopy-backs (totals; per host write in brackets; the paper's per-write figure divides by its 60 M / 600 M writes):\n");
    let _ = writeln!(w, "| workload | 2R paper | 2R ours | 2R++ paper | 2R++ ours | 2R++/2R paper | 2R++/2R ours |\n|---|---|---|---|---|---|---|");
    for k in OLTP {
        let row = bench(k).paper_row;
        let (_, c2r, c2rpp) = *paper::COPYBACKS.iter().find(|x| x.0 == row).expect("an OLTP row");
        let writes = paper::OLTP_WRITES.iter().find(|x| x.0 == row).expect("an OLTP row").1 as f64;
        let (o2r, o2rpp) = (runs.get(k, "2R"), runs.get(k, "2R++"));
        let _ = writeln!(
            w,
            "| {} | {c2r} [{:.3}] | {} [{:.3}] | {c2rpp} [{:.3}] | {} [{:.3}] | {:.3} | {:.3} |",
            bench(k).label,
            c2r as f64 / writes,
            o2r.ftl.gc_copies,
            per_write(o2r),
            c2rpp as f64 / writes,
            o2rpp.ftl.gc_copies,
            per_write(o2rpp),
            c2rpp as f64 / c2r as f64,
            o2rpp.ftl.gc_copies as f64 / o2r.ftl.gc_copies.max(1) as f64
        );
    }
    if scale == Scale::Quick {
        let _ = writeln!(w, "\n(Quick scale: our totals are for 1/64 of the writes, and excerpts of the traces.)");
    }
    let _ = writeln!(w, "\n![copyback-flows.svg](copyback-flows.svg)\n");
    let _ = writeln!(w, "Copy-backs by flow (share of each policy's copy-backs):\n");
    let _ = writeln!(w, "| workload | policy | flows | C→C share paper (2R, Fig. 5) |\n|---|---|---|---|");
    for b in BENCHES {
        for p in ["2R", "2R++"] {
            let r = runs.get(b.key, p);
            let total = r.ftl.gc_copies.max(1) as f64;
            let flows: Vec<String> =
                r.gc.flows
                    .iter()
                    .map(|f| format!("{}→{} {:.1}%", f.from, f.to, 100.0 * f.pages as f64 / total))
                    .collect();
            let paper_cc = paper::CC_SHARE_2R
                .iter()
                .find(|(k, _)| *k == b.paper_row && p == "2R" && OLTP.contains(&b.key))
                .map_or("—".into(), |(_, v)| pct(*v));
            let _ = writeln!(w, "| {} | {p} | {} | {paper_cc} |", b.key, flows.join(", "));
        }
    }
    let _ = writeln!(w);
}

fn frozen_section(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "## Frozen pages (Fig. 2)\n");
    let _ = writeln!(w, "Share of the logical space written at least once and never again after each tenth of the run (the paper: about 40% at 60%).\n");
    let _ = writeln!(
        w,
        "| workload | 10% | 20% | 30% | 40% | 50% | 60% | 70% | 80% | 90% |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for k in OLTP {
        let r = runs.get(k, "2R++");
        let cells: Vec<String> = r
            .series
            .iter()
            .take(9)
            .map(|s| s.frozen_share.map_or("-".into(), |f| format!("{:.1}%", 100.0 * f)))
            .collect();
        let _ = writeln!(w, "| {k} | {} |", cells.join(" | "));
    }
    let _ = writeln!(w, "\n![frozen-share.svg](frozen-share.svg)\n");
}

fn ablation_section(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "## Ablation: what 2R/2R++ do when no line is under the threshold\n");
    let _ = writeln!(
        w,
        "The papers do not say. Default: the least-utilized eligible line. Alternative: the oldest line (FIFO), whatever it holds. \
         Both on Fig. 7's trigger, as the main 2R / 2R++ rows.\n"
    );
    let _ = writeln!(w, "| workload | 2R | 2R (FIFO fallback) | 2R++ | 2R++ (FIFO fallback) |\n|---|---|---|---|---|");
    for b in BENCHES {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} |",
            b.key,
            runs.waf_fb(b.key, "2R"),
            runs.waf_fb(b.key, "2R (FIFO fallback)"),
            runs.waf_fb(b.key, "2R++"),
            runs.waf_fb(b.key, "2R++ (FIFO fallback)")
        );
    }
    let _ = writeln!(w);
}

/// The paper's Eq. (1) improvement for a bench's row.
fn paper_improvement(key: &str) -> f64 {
    let row = bench(key).paper_row;
    match paper::TABLE3.iter().find(|r| r.0 == row) {
        Some(r) => r.3,
        None => {
            let (_, r, rpp) = paper::table4(row);
            improvement(r, rpp)
        }
    }
}

fn flow(r: &Results, from: &str, to: &str) -> u64 {
    r.gc.flows.iter().find(|f| f.from == from && f.to == to).map_or(0, |f| f.pages)
}

fn overwrites(r: &Results, stream: &str) -> u64 {
    r.gc.overwrites.iter().find(|o| o.stream == stream).map_or(0, |o| o.pages)
}

/// Share of `r`'s returned pages that came back within `dw` drive writes of their move into cold.
fn returned_within(r: &Results, dw: f64) -> Option<f64> {
    let total: u64 = r.gc.returned_age.iter().map(|b| b.pages).sum();
    let within: u64 =
        r.gc.returned_age.iter().filter(|b| b.up_to_drive_writes.is_some_and(|u| u <= dw)).map(|b| b.pages).sum();
    (total > 0).then(|| within as f64 / total as f64)
}

/// Issue 40 item 4: the experiments on why 2R++'s gain over 2R is not reproduced.
fn warm_section(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "## Why 2R++'s gain over 2R is not reproduced: experiments\n");
    let _ = writeln!(
        w,
        "Eq. (1) improvement of 2R++ over 2R under the main reading and with one unstated detail changed. *Window by access*: \
         the 20% recency window holds the most recently *accessed* lines (§3.1's word; a page invalidation counts as an access) \
         instead of the most recently sealed. *Stop rules swapped*: 2R with 2R++'s stop rule (victims until their invalid \
         pages reach a line) is 2R++ without its 01 stage, so `2R (invalid stop)` → `2R++` is the warm-page rule's own gain, \
         and `2R` → `2R (invalid stop)` the stop rule's. fio θ 0.5 is not run (its fallback picks every victim).\n"
    );
    let _ = writeln!(
        w,
        "| workload | paper | main: 2R → 2R++ | window by access: 2R → 2R++ | 2R (invalid stop) | 2R++ (valid stop) | warm-page rule alone | stop rule alone |\n|---|---|---|---|---|---|---|---|"
    );
    let [wa2r, wa2rpp, inv, val] = WARM_POLICIES.map(|p| p.label);
    for k in WARM_BENCHES {
        let f = |p: &str| runs.waf(k, p);
        let _ = writeln!(
            w,
            "| {k} | {} | {:.3} → {:.3}: {} | {:.3} → {:.3}: {} | {} | {} | {} | {} |",
            pct(paper_improvement(k)),
            f("2R"),
            f("2R++"),
            pct(improvement(f("2R"), f("2R++"))),
            f(wa2r),
            f(wa2rpp),
            pct(improvement(f(wa2r), f(wa2rpp))),
            runs.waf_fb(k, inv),
            runs.waf_fb(k, val),
            pct(improvement(f(inv), f("2R++"))),
            pct(improvement(f("2R"), f(inv))),
        );
    }
    let _ = writeln!(
        w,
        "\n**Warm pages** (main 2R / 2R++ rows). 2R: of the pages GC moved into the cold region in the measured phase, the share a \
         host write sent back (the returned ratio), and of those the share back within 1/16, 1/4 and 1 drive write (host writes \
         over the logical capacity) of the move. 2R++: of the pages moved 00 → 01, the share rewritten while in 01 (host \
         overwrites of 01 pages over the 00 → 01 flow: the warm pages its second chance catches) and the share moved on 01 → 10. \
         2R++ can only gain where 2R's returns are many and the 01 stage holds a page long enough to see its rewrite. \
         *Returned pages' region* is not an open detail: §3.1 places every written page in a 00 block \"regardless of the block \
         it was in\" (Fig. 6 ①), as we do, so no other reading is run.\n"
    );
    let _ = writeln!(
        w,
        "| workload | 2R returned | ≤1/16 dw | ≤1/4 dw | ≤1 dw | 2R++ 00→01 rewritten in 01 | 01→10 | 2R++ returned |\n|---|---|---|---|---|---|---|---|"
    );
    let share = |x: Option<f64>| x.map_or("-".into(), |x| pct(100.0 * x));
    for b in BENCHES {
        let (r2, r3) = (runs.get(b.key, "2R"), runs.get(b.key, "2R++"));
        let into01 = flow(r3, "00", "01");
        let of01 = |n: u64| (into01 > 0).then(|| n as f64 / into01 as f64);
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            b.key,
            share(r2.gc.returned_ratio),
            share(returned_within(r2, 1.0 / 16.0)),
            share(returned_within(r2, 0.25)),
            share(returned_within(r2, 1.0)),
            share(of01(overwrites(r3, "01"))),
            share(of01(flow(r3, "01", "10"))),
            share(r3.gc.returned_ratio),
        );
    }
    let _ = writeln!(w);
}

/// Where the figures differ, with the experiments above that speak to it (data-driven lines).
fn why_section(w: &mut String, runs: &Runs) {
    let _ = writeln!(w, "## Why figures differ\n");
    // The trigger: each main policy against the other trigger, on the OLTP rows.
    let mut lines = Vec::new();
    for k in OLTP {
        let w = |p: &str| runs.waf(k, p);
        lines.push(format!(
            "{k}: greedy {:.2} vs {:.2}, 2R {:.2} vs {:.2}, 2R++ {:.2} vs {:.2}",
            w("greedy"),
            w("greedy (classic)"),
            w("2R"),
            w("2R (femu)"),
            w("2R++"),
            w("2R++ (femu)")
        ));
    }
    let _ = writeln!(
        w,
        "- **The GC trigger** (ablation above, measured; main reading first, then the other trigger) — {}. FEMU collects \
         lines with as little as 1/8 of their pages invalid whenever a quarter of the lines is not free, and keeps 5% of the lines \
         free, which costs copies that Fig. 7's no-free-block trigger never makes.",
        lines.join("; ")
    );
    let fb: Vec<String> = BENCHES
        .iter()
        .map(|b| {
            let s = |p: &str| runs.get(b.key, p).gc.fallback_share.map_or("-".into(), |x| format!("{:.0}%", 100.0 * x));
            format!("{} {} / {}", b.key, s("2R"), s("2R++"))
        })
        .collect();
    let _ = writeln!(
        w,
        "- **2R's threshold rule rarely decides on some rows**: share of 2R / 2R++ victims chosen by the fallback — {}. Where it \
         is high the row measures the fallback (least-utilized line), not the FIFO-with-threshold rule; the FIFO-fallback ablation \
         shows how much that choice moves WAF.",
        fb.join("; ")
    );
    // Item 4's experiments, summarised from the rows.
    let mean = |f: &dyn Fn(&str) -> f64| WARM_BENCHES.iter().map(|k| f(k)).sum::<f64>() / WARM_BENCHES.len() as f64;
    let [wa2r, wa2rpp, inv, _] = WARM_POLICIES.map(|p| p.label);
    let main_gain = mean(&|k| improvement(runs.waf(k, "2R"), runs.waf(k, "2R++")));
    let rule_gain = mean(&|k| improvement(runs.waf(k, inv), runs.waf(k, "2R++")));
    let stop_gain = mean(&|k| improvement(runs.waf(k, "2R"), runs.waf(k, inv)));
    let window_gain = mean(&|k| improvement(runs.waf(k, wa2r), runs.waf(k, wa2rpp)));
    let paper_gain = mean(&|k| paper_improvement(k));
    let caught = |k: &str| {
        let r = runs.get(k, "2R++");
        overwrites(r, "01") as f64 / flow(r, "00", "01").max(1) as f64
    };
    let fio_caught = FIO_FILLED.iter().map(|k| caught(k)).sum::<f64>() / 3.0;
    let oltp_caught = OLTP.iter().map(|k| caught(k)).sum::<f64>() / OLTP.len() as f64;
    let which = if stop_gain.abs() < rule_gain.abs() {
        "the 01 stage's more than the stop rule's"
    } else {
        "the stop rule's more than the 01 stage's"
    };
    // The window reading closes the gap if it brings the mean gain at least halfway to the paper's.
    let window_verdict = if (window_gain - paper_gain).abs() <= 0.5 * (main_gain - paper_gain).abs() {
        "which closes at least half of the gap"
    } else {
        "which does not close half of the gap: the window's definition is not the cause"
    };
    let _ = writeln!(
        w,
        "- **2R++'s gain over 2R** (experiments above; means over {} rows): the paper's Eq. (1) improvement averages {}, ours \
         {}. The warm-page rule alone (2R with 2R++'s stop rule → 2R++) gives {}, the stop rule alone {}: what gain we see is \
         {which}. With the window by most recent access the gain is {}, {window_verdict}. The 01 stage catches {} of the \
         pages moved into it on the filled fio rows and {} on the OLTP rows (means); the rest reach the cold region, where \
         most are rewritten all the same (2R++'s returned ratio in the table). What remains of the gap is unexplained: no \
         row here removes it; the measured rewrite ages point at the workloads' rewrite intervals against the time a page \
         spends in 01 (a guess, not tested by an ablation).",
        WARM_BENCHES.len(),
        pct(paper_gain),
        pct(main_gain),
        pct(rule_gain),
        pct(stop_gain),
        pct(window_gain),
        pct(100.0 * fio_caught),
        pct(100.0 * oltp_caught),
    );
    let _ = writeln!(
        w,
        "- **Workloads.** The growth models reproduce the characteristics the paper states (1 → 10 GB growth, 20% of pages taking \
         90% / 80% of writes, ~40% of the space frozen at 60% progress by construction, 60 M / 600 M writes), not the page-level \
         timing of the real benchmarks; the trace rows are real InnoDB I/O (doublewrite, redo log, ext4 journal) but on a \
         database that does not grow tenfold and with fewer writes per page than the paper's LinkBench run (17 vs ~230). \
         2R++ targets warm pages re-written after long intervals, so the 2R vs 2R++ gap is the figure most sensitive to these \
         differences.\n\
         - **fio.** Our zipf generator follows fio's algorithm (checked against real fio logs). Which device state the paper \
         used is not certain; both are reported.\n\
         - **Unstated details** (documented in `ftl/gc/two_region.rs`): 2R's threshold (we use 2R++'s 40%), which lines the 20% \
         window counts (the most recently sealed; the most recently accessed is run above), the fallback when no line is under the threshold, and whether the modified \
         FTL kept FEMU's 1/8 rule for 2R's victims (we keep it: the trigger is FEMU's, the victims the policy's).\n\
         - **Quick scale** uses 1/64 of the capacity and an eighth of the lines. fio's zipf puts a fixed share of the writes on \
         the top *k* ranks, not on the top *x%* of the pages, so over 32 K instead of 2 M pages the skew is weaker; FEMU's \
         percentages act on 256–352 lines instead of 2,048–2,816; the trace rows are excerpts. Compare shapes at quick scale, \
         numbers at paper scale."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every paper-scale configuration builds its device — as on a fresh clone, whose trace rows
    /// replay the built-in excerpts (the case that once failed after the whole run's planning:
    /// 64 planes left an excerpt 4 lines) — so no row can exist at quick scale only. Building a
    /// device allocates its tables (the 10 GB ones: tens of MB), not a run.
    #[test]
    fn every_paper_scale_row_builds_its_device() {
        for scale in [Scale::Paper, Scale::Quick] {
            for b in BENCHES {
                let pl = match b.source {
                    Source::Trace { builtin, .. } => {
                        let shape = trace_shape(builtin, BLOCK_BYTES, PAGE_BYTES).expect("a built-in excerpt");
                        Plan {
                            trace: Some((builtin.to_string(), false)),
                            writes: shape.page_writes,
                            shape: Some(shape),
                        }
                    }
                    Source::Gen { .. } => plan(b, scale, &Traces::Excerpts).expect("a generator plan"),
                };
                let mut variants: Vec<(Policy, Vec<String>)> = POLICIES.iter().map(|p| (*p, vec![])).collect();
                if FIO_FILLED.contains(&b.key) {
                    let lines = format!("device.blocks_per_plane={}", op10_lines(scale));
                    variants.extend(POLICY_OP10.iter().map(|p| (*p, vec![lines.clone()])));
                }
                if WARM_BENCHES.contains(&b.key) {
                    variants.extend(WARM_POLICIES.iter().map(|p| (*p, vec![])));
                }
                for (p, extra) in variants {
                    let cfg = config(b, &p, scale, &pl, &extra).expect("a valid configuration");
                    let r = cfg.resolve().expect("resolves");
                    let what = format!("{:?} {} {}", scale, b.key, p.label);
                    let dev = flashlab::sim::build_device(&cfg, &r).unwrap_or_else(|e| panic!("{what}: {e}"));
                    if let Some(shape) = pl.shape {
                        let lines = cfg.device.blocks_per_plane as u64;
                        assert!(lines >= MIN_TRACE_LINES.min(100), "{what}: {lines} lines ({shape:?})");
                    }
                    drop(dev);
                }
            }
        }
        assert_eq!(op10_lines(Scale::Paper), 2003, "8 GiB x 1.1 over 64 x 18 pages of 4 KiB is 2,002.5 lines");
        assert!((fallback_bound(6.196, 0.4) - 0.731).abs() < 1e-3 && fallback_bound(1.481, 0.4) == 0.0);
    }
}
