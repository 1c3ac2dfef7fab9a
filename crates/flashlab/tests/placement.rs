//! FDP placement against an outside reference: two streams of uniform random writes on their
//! own logical ranges, perfectly separated by persistently isolated reclaim unit handles, each
//! behave as greedy on a device of their own — per-handle WAF within 2% of the analytic greedy
//! WAF (`ftl::gc::analytic`: Desnoyers, SYSTOR 2012; Van Houdt, SIGMETRICS 2013) at the
//! handle's effective over-provisioning (pages of the reclaim units it holds / its valid pages
//! − 1). Under greedy over the whole device both streams' victims reach the same valid count,
//! so the mean-field model also predicts the two effective OPs equal whatever the streams'
//! sizes and rates: that is checked too.

use flashlab::ftl::gc::analytic::greedy_uniform_waf;
use flashlab::ftl::placement::PlacementReport;
use flashlab::units::{Lpn, Nanos};
use flashlab::{sim, Config};
use rand::{RngExt, SeedableRng};

/// One plane of 4096 blocks × 32 pages at `op`, two persistently isolated handles; stream 0
/// owns the first `share0` of the logical pages and gets `rate0` of the writes. Fill each page
/// once through its handle, write 3× the logical capacity (warm-up), then measure 3× more.
/// Returns the measured phase's report and pages per segment, and per handle its effective OP
/// averaged over 24 points of the measured phase.
fn two_streams(op: f64, share0: f64, rate0: f64, isolation: &str) -> (PlacementReport, u32, Vec<f64>) {
    let text = format!(
        r#"
[device]
channels = 1
chips_per_channel = 1
planes_per_die = 1
blocks_per_plane = 4096
pages_per_block = 32
over_provisioning = {op}
[ftl]
gc = "greedy"
[ftl.placement]
handles = 2
isolation = "{isolation}"
[workload]
kind = "uniform"
[sim]
mode = "accounting"
"#
    );
    let cfg = Config::from_toml_str(&text, "two.toml", &[]).unwrap();
    let r = cfg.resolve().unwrap();
    let mut dev = sim::build_device(&cfg, &r).unwrap();
    let logical = dev.logical_pages();
    let split = (share0 * logical as f64) as u64;
    let handle = |lpn: u64| u16::from(lpn >= split);
    for lpn in 0..logical {
        dev.write_placed(Lpn(lpn), Some(handle(lpn)), Nanos::ZERO).unwrap();
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    let mut write = |dev: &mut flashlab::device::Device, n: u64| {
        for _ in 0..n {
            let lpn =
                if rng.random::<f64>() < rate0 { rng.random_range(0..split) } else { rng.random_range(split..logical) };
            dev.write_placed(Lpn(lpn), Some(handle(lpn)), Nanos::ZERO).unwrap();
        }
    };
    write(&mut dev, 3 * logical);
    let base = dev.ftl.placement_report().unwrap();
    let mut op_sum = [0.0; 2];
    for _ in 0..24 {
        write(&mut dev, logical / 8);
        let now = dev.ftl.placement_report().unwrap();
        for (sum, h) in op_sum.iter_mut().zip(&now.handles) {
            *sum += effective_op(&h.stored) / 24.0;
        }
    }
    (dev.ftl.placement_report().unwrap().minus(&base), r.layout.pages_per_segment, op_sum.to_vec())
}

fn effective_op(h: &flashlab::ftl::placement::StreamHoldings) -> f64 {
    h.held_pages as f64 / h.valid_pages as f64 - 1.0
}

#[test]
fn separated_uniform_streams_match_the_analytic_greedy_waf_at_their_effective_op() {
    let mut rows = Vec::new();
    for (op, share0, rate0) in [(0.15, 0.25, 0.5), (0.15, 0.1, 0.9), (0.30, 0.5, 0.2), (0.07, 0.3, 0.7)] {
        let (report, pages, ops) = two_streams(op, share0, rate0, "persistent");
        assert_eq!(report.invalid_ids + report.untagged_writes, 0);
        for (h, eff) in report.handles.iter().zip(&ops) {
            let waf = h.waf.unwrap();
            let want = greedy_uniform_waf(*eff, pages);
            rows.push(format!(
                "OP {op} share {share0} rate {rate0} handle {}: effective OP {eff:.4}, WAF {waf:.3}, analytic {want:.3} ({:+.2}%)",
                h.handle,
                100.0 * (waf / want - 1.0)
            ));
            assert!((waf / want - 1.0).abs() < 0.02, "{}", rows.join("\n"));
            // The device-wide spare space, shared: each handle's is the device's.
            assert!((eff / op - 1.0).abs() < 0.1, "{}", rows.join("\n"));
        }
    }
    eprintln!("{}", rows.join("\n"));
}

/// Initially isolated handles mix in one GC stream: the report has its line, and every page GC
/// moved went there.
#[test]
fn initial_isolation_moves_every_handle_into_the_shared_gc_stream() {
    let (report, _, _) = two_streams(0.15, 0.25, 0.5, "initial");
    let gc = report.gc_stream.as_ref().expect("a shared GC stream");
    let moved: u64 = report.handles.iter().map(|h| h.gc_moves).sum();
    assert!(moved > 0 && gc.ru_filled > 0, "{report:?}");
    assert!(report.handles.iter().all(|h| h.stored.ru_filled > 0 && h.host_pages > 0));
}

/// Placement in timing mode, through the simulator: a `streams` workload's identifiers reach
/// the handles, the handles' counts add up to the device's, and the run is timed.
#[test]
fn placement_runs_in_timing_mode_and_its_counts_add_up() {
    let text = r#"
[device]
channels = 2
chips_per_channel = 1
planes_per_die = 2
blocks_per_plane = 256
pages_per_block = 32
over_provisioning = 0.25
[ftl]
striping = "dynamic"
[ftl.placement]
handles = 3
isolation = "initial"
[workload]
kind = "streams"
volume = "256MiB"
[[workload.streams]]
kind = "uniform"
footprint = "8MiB"
share = 0.4
placement = 1
[[workload.streams]]
kind = "sequential"
start = "8MiB"
footprint = "48MiB"
request_size = "64KiB"
share = 0.5
placement = 2
[[workload.streams]]
kind = "zipf"
start = "56MiB"
footprint = "8MiB"
share = 0.1
placement = 7
[precondition]
fill = true
[sim]
mode = "timing"
verify = true
"#;
    let cfg = Config::from_toml_str(text, "timing.toml", &[]).unwrap();
    let r = sim::run(&cfg, &mut sim::Quiet).unwrap();
    let p = r.placement.as_ref().expect("a placement report");
    let host: u64 = p.handles.iter().map(|h| h.host_pages).sum();
    let moved: u64 = p.handles.iter().map(|h| h.gc_moves).sum();
    assert_eq!(host, r.ftl.host_writes);
    assert_eq!(moved, r.ftl.gc_copies);
    assert_eq!(r.flash.programs, host + moved);
    // Identifier 7 names no handle: the default handle 0 takes its writes, counted as invalid.
    assert_eq!(p.invalid_ids, p.handles[0].host_pages);
    assert!(p.handles.iter().all(|h| h.host_pages > 0), "{p:?}");
    assert!(p.gc_stream.as_ref().is_some_and(|g| g.ru_filled > 0), "{p:?}");
    assert!(r.latency_us.as_ref().is_some_and(|l| l.write.count > 0));
}

/// Two reclaim groups split the planes, and a group's data stays on its planes: two tenants of
/// equal size, each on its own group (placement identifiers with the group in the top bit),
/// behave as greedy on devices of their own — each group holds half the flash whatever its
/// tenant's share of the writes, so each group's WAF matches the analytic greedy WAF at its
/// effective OP, and the two OPs are the same. (With one group the handles' OPs would adapt to
/// the rates instead: the test above.)
#[test]
fn reclaim_groups_are_devices_of_their_own() {
    let text = r#"
[device]
channels = 1
chips_per_channel = 1
planes_per_die = 2
blocks_per_plane = 2048
pages_per_block = 32
over_provisioning = 0.15
[ftl]
gc = "greedy"
[ftl.placement]
handles = 2
reclaim_groups = 2
[workload]
kind = "uniform"
[sim]
mode = "accounting"
"#;
    let cfg = Config::from_toml_str(text, "groups.toml", &[]).unwrap();
    let r = cfg.resolve().unwrap();
    let placement = cfg.ftl.placement.clone().unwrap();
    let mut dev = sim::build_device(&cfg, &r).unwrap();
    let logical = dev.logical_pages();
    let split = logical / 2;
    // Tenant 0: handle 0 in group 0; tenant 1: handle 1 in group 1 (identifier 0x8001).
    let pid = |lpn: u64| if lpn < split { placement.pid(0, 0) } else { placement.pid(1, 1) };
    assert_eq!(placement.pid(1, 1), 0x8001);
    for lpn in 0..logical {
        dev.write_placed(Lpn(lpn), Some(pid(lpn)), Nanos::ZERO).unwrap();
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    let mut write = |dev: &mut flashlab::device::Device, n: u64| {
        for _ in 0..n {
            let lpn =
                if rng.random::<f64>() < 0.85 { rng.random_range(0..split) } else { rng.random_range(split..logical) };
            dev.write_placed(Lpn(lpn), Some(pid(lpn)), Nanos::ZERO).unwrap();
        }
    };
    write(&mut dev, 3 * logical);
    let base = dev.ftl.placement_report().unwrap();
    let mut op_sum = [0.0; 2];
    for _ in 0..16 {
        write(&mut dev, logical / 4);
        let now = dev.ftl.placement_report().unwrap();
        for (sum, h) in op_sum.iter_mut().zip(&now.handles) {
            *sum += effective_op(&h.stored) / 16.0;
        }
    }
    let report = dev.ftl.placement_report().unwrap().minus(&base);
    assert_eq!((report.invalid_ids, report.untagged_writes, report.spilled_pages), (0, 0, 0), "{report:?}");
    let mut rows = Vec::new();
    for ((g, h), eff) in report.reclaim_groups.iter().zip(&report.handles).zip(op_sum) {
        // Each group holds one handle's data only, so their counts are the same.
        assert_eq!((g.host_pages, g.gc_moves), (h.host_pages, h.gc_moves), "{report:?}");
        let (waf, want) = (g.waf.unwrap(), greedy_uniform_waf(eff, r.layout.pages_per_segment));
        rows.push(format!("group {}: effective OP {eff:.4}, WAF {waf:.3}, analytic {want:.3}", g.group));
        assert!((waf / want - 1.0).abs() < 0.02, "{}", rows.join("\n"));
    }
    assert!((op_sum[0] / op_sum[1] - 1.0).abs() < 0.05, "each group keeps its half of the flash: {}", rows.join("\n"));
    eprintln!("{}", rows.join("\n"));
}

/// Reclaim groups the device cannot have are refused at build, naming the key.
#[test]
fn impossible_reclaim_groups_are_refused() {
    let base = r#"
[device]
channels = 2
chips_per_channel = 1
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 16
over_provisioning = 0.25
[workload]
kind = "uniform"
[sim]
mode = "accounting"
"#;
    for (ftl, want) in [
        ("[ftl]\n[ftl.placement]\nhandles = 2\nreclaim_groups = 3\n", "do not divide the 4 planes"),
        ("[ftl]\n[ftl.placement]\nhandles = 2\nreclaim_groups = 0\n", "1 to 128"),
        ("[ftl]\ngc_unit = \"line\"\n[ftl.placement]\nhandles = 2\nreclaim_groups = 2\n", "a line spans every plane"),
        ("[ftl]\nstriping = \"none\"\n[ftl.placement]\nhandles = 2\nreclaim_groups = 2\n", "ftl.striping = \"none\""),
        ("[ftl]\nmapping = \"wadpm\"\n[ftl.placement]\nhandles = 2\nreclaim_groups = 2\n", "the mapping fixes"),
    ] {
        let text = format!("{base}{ftl}");
        let err = Config::from_toml_str(&text, "g.toml", &[])
            .and_then(|c| c.resolve().and_then(|r| sim::build_device(&c, &r).map(|_| ())))
            .expect_err(ftl)
            .to_string();
        assert!(err.contains("ftl.placement.reclaim_groups") && err.contains(want), "{ftl}: {err}");
        // The dry run (`flashlab run --dry-run`: the plan, validated, memory admitted) refuses
        // it too.
        let dry = Config::from_toml_str(&text, "g.toml", &[]).and_then(sim::Plan::new).err().map(|e| e.to_string());
        assert_eq!(dry.as_deref(), Some(err.as_str()), "{ftl}: the dry run and the build disagree");
    }
}
