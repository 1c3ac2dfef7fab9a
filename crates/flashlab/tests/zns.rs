//! Zoned namespaces end to end: the host's log-structured layer over a ZNS device against the
//! conventional page-mapped SSD (same segment size, OP, victim policy and schedule, same
//! trace: the same WAF and erases, while the device itself only ever writes at write
//! pointers; preconditioning through the host's log leaves the SSD's own state), and what a
//! zoned device refuses, reported with the trace line.

use flashlab::{sim, Config, Results};

const DEVICE: &str = r#"
[device]
channels = 1
chips_per_channel = 1
planes_per_die = 1
blocks_per_plane = 512
pages_per_block = 32
over_provisioning = 0.15
"#;

fn run(text: &str) -> Results {
    let cfg = Config::from_toml_str(text, "zns.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    sim::run(&cfg, &mut sim::Quiet).unwrap_or_else(|e| panic!("{e}"))
}

fn pair(workload: &str, gc: &str, mode: &str) -> (Results, Results) {
    let conventional = run(&format!(
        "{DEVICE}[ftl]\nmapping = \"page\"\ngc = \"{gc}\"\n[workload]\n{workload}\n[sim]\nmode = \"{mode}\"\n"
    ));
    let zoned = run(&format!(
        "{DEVICE}[ftl]\nmapping = \"zns\"\n[host]\nlayer = \"log\"\n[host.layer_params]\ngc = \"{gc}\"\n[workload]\n{workload}\n[sim]\nmode = \"{mode}\"\nverify = true\ncheck = true\n"
    ));
    (conventional, zoned)
}

#[test]
fn zns_with_the_host_log_equals_the_conventional_ssd() {
    let workloads = [
        "kind = \"uniform\"\nvolume_ratio = 4.0",
        "kind = \"uniform\"\nvolume_ratio = 1.0\n[precondition]\nfill = true\noverwrite = 1.0",
        "kind = \"zipf\"\ntheta = 0.9\nread_share = 0.3\nvolume_ratio = 4.0",
        "kind = \"hotcold\"\nrequest_size = \"16KiB\"\ntrim_share = 0.05\nvolume_ratio = 4.0",
    ];
    for workload in workloads {
        for gc in ["greedy", "cost-benefit"] {
            for mode in ["accounting", "timing"] {
                let (c, z) = pair(workload, gc, mode);
                let what = format!("{workload:?} {gc} {mode}");
                assert!(c.ftl.gc_copies > 0, "{what}: the workload must make GC copy");
                assert_eq!(c.waf, z.waf, "{what}: end-to-end WAF");
                assert_eq!(c.flash.programs, z.flash.programs, "{what}");
                assert_eq!(c.flash.erases, z.flash.erases, "{what}");
                assert_eq!(c.host.write_pages, z.host.write_pages, "{what}");
                // The device wrote only what the host asked it to: its own WAF is 1.
                assert_eq!(z.waf_ftl, Some(1.0), "{what}");
                assert_eq!(z.ftl.gc_copies, 0, "{what}");
                let zones = z.zones.as_ref().expect("a zone report");
                assert_eq!(zones.resets, z.flash.erases, "{what}: every erase is a host reset");
                assert!(zones.peak_open >= 1 && zones.peak_active <= 14, "{what}: {zones:?}");
            }
        }
    }
}

fn zoned_trace(lines: &str, extra: &str) -> Result<Results, String> {
    trace_on(
        &format!("mapping = \"zns\"\nmapping_params = {{ max_open_zones = 2, max_active_zones = 3 }}\n{extra}"),
        lines,
    )
}

/// A csv trace of `lines` run on the device with `[ftl]` `setup` (and the sections after it),
/// in verify and check mode, and checked by the dry run, which must refuse what the run does.
fn trace_on(setup: &str, lines: &str) -> Result<Results, String> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (setup, lines).hash(&mut h);
    let dir = std::env::temp_dir().join(format!("flashlab-zns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("t{:x}.csv", h.finish()));
    std::fs::write(&path, format!("op,offset,size\n{lines}")).unwrap();
    let text = format!(
        "{DEVICE}[ftl]\n{setup}[workload]\nkind = \"trace\"\npath = \"{}\"\n[sim]\nverify = true\ncheck = true\n",
        path.display()
    );
    let cfg = Config::from_toml_str(&text, "zns.toml", &[]).map_err(|e| e.to_string())?;
    // The dry run reads the trace through the same zone rules and refuses what the run refuses.
    let dry = sim::Plan::new(cfg.clone()).and_then(|p| p.check_trace()).map_err(|e| e.to_string());
    let run = sim::run(&cfg, &mut sim::Quiet).map_err(|e| e.to_string());
    assert_eq!(dry.as_ref().err(), run.as_ref().err(), "the dry run and the run disagree");
    run
}

#[test]
fn a_zoned_trace_runs_and_what_a_zns_drive_refuses_names_the_line() {
    // One zone is 32 pages of 4 KiB = 128 KiB.
    let ok = zoned_trace("W,0,65536\nW,65536,65536\nR,0,4096\nT,0,131072\nW,0,4096\nW,131072,8192\n", "").unwrap();
    let zones = ok.zones.unwrap();
    assert_eq!((zones.resets, zones.peak_open), (1, 2));
    assert_eq!(ok.flash.erases, 1);
    for (lines, want) in [
        ("W,0,4096\nW,8192,4096\n", "t.csv:3: field `offset`: zone error: write to page 2 of zone 0, whose write pointer is at page 1 (Zone Invalid Write)"),
        ("W,0,131072\nW,0,4096\n", ":3: field `offset`: zone error: write to page 0 of zone 0, which is full (Zone Is Full)"),
        ("W,0,4096\nW,131072,4096\nW,262144,4096\nW,393216,4096\n", ":5: field `offset`: zone error: opening zone 3 would make 4 active zones, the device allows 3 (Too Many Active Zones)"),
        ("W,0,4096\nT,0,4096\n", ":3: field `offset`: zone error: trim of pages 0..=0: a zoned device resets whole zones of 32 pages"),
    ] {
        let e = zoned_trace(lines, "").unwrap_err();
        let want = want.trim_start_matches("t.csv");
        assert!(e.contains(want), "{lines:?}: {e}");
        assert!(e.contains(".csv:"), "{e}");
    }
}

/// Zone append, finish and reset from a trace (`A`, `ZF`, `ZR`): appends land at the write
/// pointer (reads of them return them, in verify mode), finish fills a zone, reset empties it;
/// what a ZNS drive refuses, and a conventional device or the host's log given zone commands,
/// is an error naming the line, the same in the dry run.
#[test]
fn zone_commands_from_a_trace_append_finish_and_reset() {
    // Zones of 32 pages of 4 KiB = 128 KiB. Two appends to zone 0 (pages 0..3), a read of the
    // second, a finish of zone 0, its reset, an append again, then a finish of zones 1 and 2,
    // and a write at zone 3's write pointer.
    let lines =
        "A,0,8192\nA,0,4096\nR,8192,4096\nZF,0,131072\nZR,0,131072\nA,0,4096\nZF,131072,262144\nW,393216,4096\n";
    let ok = zoned_trace(lines, "").unwrap();
    let zones = ok.zones.unwrap();
    assert_eq!((zones.appends, zones.finishes, zones.resets), (4, 3, 1), "{zones:?}");
    assert_eq!((ok.host.zone_commands, ok.host.write_requests, ok.host.write_pages), (6, 1, 5));
    assert_eq!(ok.flash.programs, 5);
    // host.max_request splits an append into appends to the same zone.
    let split = zoned_trace("A,0,16384\nA,0,16384\nR,28672,4096\n", "[host]\nmax_request = \"8KiB\"\n").unwrap();
    assert_eq!(split.zones.unwrap().appends, 8);
    for (setup, lines, want) in [
        ("", "A,4096,4096\n", ":2: field `offset`: zone error: zone append at page 1: an append names the first page of its zone (zones of 32 pages)"),
        ("", "W,0,122880\nA,0,16384\n", ":3: field `offset`: zone error: zone append of 4 pages to zone 0 at write pointer 30: past the zone's end at 32 (Zone Boundary Error)"),
        ("", "A,0,262144\n", ":2: field `offset`: zone error: zone append of 64 pages: more than a zone of 32 pages (Zone Boundary Error)"),
        ("", "ZF,0,4096\n", ":2: field `offset`: zone error: zone finish of pages 0..=0: a zoned device finishes whole zones of 32 pages"),
        ("", "ZR,131072,4096\n", ":2: field `offset`: zone error: zone reset of pages 32..=32: a zoned device resets whole zones of 32 pages"),
        ("", "W,0,4096\nW,131072,4096\nW,262144,4096\nZF,393216,131072\n", ":5: field `offset`: zone error: finishing empty zone 3 needs an active zone (Too Many Active Zones)"),
        ("[host]\nlayer = \"log\"\n", "W,0,4096\nZR,0,131072\n", ":3: field `offset`: zone error: zone reset: host.layer = \"log\" writes the zones itself"),
    ] {
        let e = zoned_trace(lines, setup).unwrap_err();
        assert!(e.contains(want), "{lines:?}: {e}");
    }
    let e = trace_on("mapping = \"page\"\n", "W,0,4096\nA,0,4096\n").unwrap_err();
    assert!(e.contains(":3: field `offset`: zone error: zone append on a conventional device"), "{e}");
}

#[test]
fn zoned_configs_refuse_what_cannot_work() {
    let base = |ftl: &str, rest: &str| format!("{DEVICE}[ftl]\n{ftl}\n{rest}[workload]\nkind = \"uniform\"\n");
    let err =
        |text: String| Config::from_toml_str(&text, "z.toml", &[]).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err(base("mapping = \"page\"", "[host]\nlayer = \"log\"\n")).contains("needs a zoned device"));
    let preconditioned = "[host]\nlayer = \"log\"\n[precondition]\nfill = true\noverwrite = 1.0\n";
    assert_eq!(err(base("mapping = \"zns\"", preconditioned)), "", "the log takes a fill and an overwrite");
    assert!(err(base("mapping = \"zns\"", "[precondition]\noverwrite = 1.0\n")).contains("precondition.overwrite"));
    assert!(err(base("mapping = \"zns\"", "[buffer]\npolicy = \"lru\"\ndram = \"64KiB\"\n")).contains("buffer.policy"));
    assert!(err(base("mapping = \"zns\"\ngc = \"greedy\"", "")).contains("ftl.gc"));
    assert!(err(base("mapping = \"zns\"", "[host]\nlayer = \"log\"\n[host.layer_params]\ngc = \"nope\"\n"))
        .contains("nope"));
    assert!(err(base("mapping = \"zns\"", "[host]\nlayer = \"log\"\n[host.layer_params]\nwhat = 1\n"))
        .contains("host.layer_params"));
    assert!(err(base("mapping = \"page\"", "[host.layer_params]\nwhat = 1\n")).contains("host.layer_params.what"));
}
