//! `flashlab bench`: run the benchmark scenarios and report rates. Measurement, not assertion:
//! every figure is printed with the command that reproduces it. Scenarios:
//! - `bench-accounting` / `bench-timing` presets: simulated host pages per wall-clock second;
//! - memory: peak resident set of a separate `flashlab run` of the accounting preset, per
//!   physical page of the device (Linux `/proc/self/status` VmHWM);
//! - trace parsing: MB/s of MSR Cambridge CSV, on a file made by repeating the shipped sample.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};
use flashlab::{sim, workload::trace};

use crate::{load_config, Bar};

pub fn run(quick: bool, quiet: bool) -> Result<()> {
    let sets: Vec<String> =
        if quick { vec!["workload.volume_ratio=0.5".into(), "precondition.overwrite=0.0".into()] } else { vec![] };
    let flags = sets.iter().map(|s| format!(" --set {s}")).collect::<String>();
    for preset in ["bench-accounting", "bench-timing"] {
        let cfg = load_config(preset, &sets)?;
        let r = sim::run(&cfg, &mut Bar::new(quiet))?;
        crate::emit(format!(
            "{preset:<17} {:>6.2} M host pages/s   ({} pages in {:.2} s, WAF {:.3})   [flashlab run {preset}{flags}]",
            r.sim.host_pages_per_s / 1e6,
            r.host.read_pages + r.host.write_pages,
            r.sim.wall_s,
            r.waf.unwrap_or(0.0),
        ));
    }
    backlog(quick, quiet)?;
    memory(&sets, &flags)?;
    msr_parse()?;
    Ok(())
}

/// The backlog case: `bench-timing` shrunk to one channel of 4 planes, open loop, half reads,
/// replayed with arrivals far faster than the device serves them (1 µs apart: the device falls
/// seconds behind, reads book the bus far ahead) and again slow enough that it keeps up (1 ms
/// apart). Same requests in both; the ratio of their host pages per wall-clock second shows what
/// falling behind costs the simulator (issue 22: ≥ 0.8).
fn backlog(quick: bool, quiet: bool) -> Result<()> {
    let volume = if quick { "1" } else { "4" };
    let sets: Vec<String> = [
        "device.channels=1",
        "device.chips_per_channel=2",
        "device.logical_capacity=\"512MiB\"",
        "device.blocks_per_plane=1152",
        &format!("workload.volume_ratio={volume}"),
        "workload.read_share=0.5",
        "precondition.overwrite=0.0",
        "host.arrival=\"open\"",
    ]
    .map(String::from)
    .to_vec();
    let mut rates = Vec::new();
    for (name, iat_ns) in [("backlog", 1_000u64), ("idle", 1_000_000)] {
        let sets = [sets.clone(), vec![format!("workload.iat_ns={iat_ns}")]].concat();
        let flags = sets.iter().map(|s| format!(" --set '{s}'")).collect::<String>();
        let r = sim::run(&load_config("bench-timing", &sets)?, &mut Bar::new(quiet))?;
        let offered = 1e9 / iat_ns as f64;
        let served = r.host.requests as f64 / r.sim.simulated_s.unwrap_or(f64::INFINITY);
        crate::emit(format!(
            "timing {name:<10} {:>6.2} M host pages/s   ({} pages in {:.2} s; offered {:.0} k req/s, served {:.1} k req/s)   [flashlab run bench-timing{flags}]",
            r.sim.host_pages_per_s / 1e6,
            r.host.read_pages + r.host.write_pages,
            r.sim.wall_s,
            offered / 1e3,
            served / 1e3,
        ));
        rates.push(r.sim.host_pages_per_s);
    }
    crate::emit(format!("timing backlog / idle {:.2}", rates[0] / rates[1]));
    Ok(())
}

/// Peak RSS of a child `flashlab run bench-accounting`, per physical page.
fn memory(sets: &[String], flags: &str) -> Result<()> {
    let exe = std::env::current_exe()?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["__peak-rss", "bench-accounting"]);
    for s in sets {
        cmd.args(["--set", s]);
    }
    let out = cmd.output().context("running the memory probe")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace();
    let (Some(rss), Some(pages)) =
        (it.next().and_then(|v| v.parse::<f64>().ok()), it.next().and_then(|v| v.parse::<f64>().ok()))
    else {
        crate::emit("memory            peak RSS not available on this platform".to_string());
        return Ok(());
    };
    crate::emit(format!(
        "memory            {:>6.2} bytes / physical page (peak RSS {:.0} MiB for {:.0} pages)   [flashlab run bench-accounting{flags}]",
        rss / pages,
        rss / (1u64 << 20) as f64,
        pages
    ));
    Ok(())
}

/// Entry for the hidden `__peak-rss` subcommand: run a config or preset, print
/// "peak_rss_bytes physical_pages estimate_bytes" (the peak resident set after the run, Linux
/// `VmHWM`, and the memory estimate the config was admitted with; `tests/memory.rs` compares
/// them).
pub fn peak_rss(preset: &str, sets: &[String]) -> Result<()> {
    let cfg = load_config(preset, sets)?;
    let estimate = flashlab::memory::estimate(&cfg, &cfg.resolve()?)?.total();
    let r = sim::run(&cfg, &mut sim::Quiet)?;
    // The results as the CLI writes them: their JSON text is part of a run's peak.
    let json = r.to_json();
    if let Some(peak) = flashlab::memory::peak_rss() {
        crate::emit(format!("{peak} {} {estimate}", r.device.physical_bytes / r.device.page_size));
    }
    drop(json);
    Ok(())
}

/// MB/s of streaming MSR CSV through the reader (parsing only, no simulation).
fn msr_parse() -> Result<()> {
    let sample = include_str!("../../flashlab/tests/data/traces/snia_samples_caffeine/msr-cambridge1-sample.csv");
    let path = std::env::temp_dir().join(format!("flashlab-bench-{}.csv", std::process::id()));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path)?);
    let target = 256u64 << 20;
    let mut written = 0u64;
    while written < target {
        f.write_all(sample.as_bytes())?;
        written += sample.len() as u64;
    }
    f.flush()?;
    drop(f);
    let opts = trace::TraceOptions { format: Some("msr".into()), ..trace::TraceOptions::new(path.clone()) };
    let t = Instant::now();
    let mut wl = trace::open(&opts)?;
    let mut n = 0u64;
    while wl.next_request()?.is_some() {
        n += 1;
    }
    let s = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);
    crate::emit(format!(
        "msr parse         {:>6.0} MB/s   ({n} records, {:.0} MB in {s:.2} s)   [flashlab bench]",
        written as f64 / 1e6 / s,
        written as f64 / 1e6
    ));
    Ok(())
}
