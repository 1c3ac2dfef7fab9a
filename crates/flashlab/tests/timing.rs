//! The timing model end to end: on an idle device a page read costs tR + transfer and a program
//! transfer + tPROG; requests to one plane queue; closed-loop queue depth buys parallelism
//! across planes; open-loop requests start at their timestamps.

use flashlab::{sim, Config};

/// 2 channels x 2 planes, 4 KiB pages; tR 50 µs, tPROG 500 µs, 409.6 MB/s bus (10 µs per page).
fn config(trace: &str, sets: &[&str]) -> Config {
    let dir = std::env::temp_dir().join(format!("flashlab-timing-{}-{}", std::process::id(), trace.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("t{}.csv", trace.len() + sets.len()));
    std::fs::write(&path, trace).unwrap();
    let text = format!(
        r#"
[device]
channels = 2
planes_per_die = 2
blocks_per_plane = 32
pages_per_block = 16
over_provisioning = 0.25
[timing]
read_us = 50
program_us = 500
erase_us = 5000
bus_mb_s = 409.6
[workload]
kind = "trace"
path = "{}"
format = "csv"
[sim]
mode = "timing"
"#,
        path.display()
    );
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Config::from_toml_str(&text, "timing.toml", &sets).unwrap()
}

#[test]
fn idle_device_latencies_follow_the_formulas() {
    // A write, then much later a read of the same page.
    let r = sim::run(&config("time_us,op,offset,size\n0,W,0,4096\n10000,R,0,4096\n", &[]), &mut sim::Quiet).unwrap();
    let l = r.latency_us.unwrap();
    assert_eq!(l.write.max, 510.0, "transfer 10 µs + tPROG 500 µs");
    assert_eq!(l.read.max, 60.0, "tR 50 µs + transfer 10 µs");
    assert!((r.sim.simulated_s.unwrap() - 0.010060).abs() < 1e-9);
}

#[test]
fn a_multi_page_request_spreads_over_planes_and_channels() {
    // 16 KiB = 4 pages on 4 planes (2 per channel): transfers on one channel serialise, programs overlap.
    let r = sim::run(&config("time_us,op,offset,size\n0,W,0,16384\n", &[]), &mut sim::Quiet).unwrap();
    assert_eq!(r.latency_us.unwrap().write.max, 520.0, "2 transfers on a channel, then tPROG");
}

#[test]
fn open_loop_requests_to_one_plane_queue() {
    // Two writes at t=0 that land on the same plane (striping none keeps page 0 and 1 in plane 0).
    let r = sim::run(
        &config("time_us,op,offset,size\n0,W,0,4096\n0,W,4096,4096\n", &["ftl.striping=\"none\""]),
        &mut sim::Quiet,
    )
    .unwrap();
    let w = r.latency_us.unwrap().write;
    assert_eq!(w.count, 2);
    assert_eq!(w.max, 1010.0, "second program waits for the first");
}

#[test]
fn closed_loop_queue_depth_buys_plane_parallelism() {
    let mut trace = String::from("op,offset,size\n");
    for i in 0..64u64 {
        trace.push_str(&format!("R,{},4096\n", i * 4096));
    }
    // Write the pages first (precondition), then read them with QD 1 and QD 4.
    let run = |qd: &str| {
        let c =
            config(&trace, &["host.arrival=\"closed\"", &format!("host.queue_depth={qd}"), "precondition.fill=true"]);
        sim::run(&c, &mut sim::Quiet).unwrap()
    };
    let (q1, q4) = (run("1"), run("4"));
    let t1 = q1.sim.simulated_s.unwrap();
    let t4 = q4.sim.simulated_s.unwrap();
    assert!((t1 - 64.0 * 60e-6).abs() < 1e-9, "QD1: 64 reads back to back, {t1}");
    assert!(t4 < t1 / 2.5, "QD4 over 4 planes should be much faster: {t4} vs {t1}");
    assert!(q4.throughput_mib_s.unwrap() > 2.5 * q1.throughput_mib_s.unwrap());
}

#[test]
fn accounting_mode_reports_no_time() {
    let r = sim::run(&config("op,offset,size\nW,0,4096\n", &["sim.mode=\"accounting\""]), &mut sim::Quiet).unwrap();
    assert!(r.latency_us.is_none() && r.throughput_mib_s.is_none() && r.sim.simulated_s.is_none());
    assert_eq!(r.flash.programs, 1);
}

// ---- GC interleaved with host operations (issue 22) ----

use flashlab::nand::{Geometry, Timeline, TimingParams};

/// One plane on one channel; tR 50 µs, tPROG 500 µs, tBERS 5 ms, 10 µs per page transfer.
fn plane(gc_interleave: bool, program_suspend: bool, erase_suspend: bool) -> Timeline {
    let geo = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 8,
        pages_per_block: 16,
        page_size: 4096,
    };
    let p = TimingParams { bus_mb_s: 409.6, gc_interleave, program_suspend, erase_suspend, ..TimingParams::default() };
    p.validate().unwrap();
    Timeline::new(&p, &geo)
}

const US: u64 = 1_000;
/// A copy-back: tR + tPROG.
const MOVE: u64 = 550 * US;
const READ: u64 = 60 * US;

/// A GC round issued at 0: 8 copy-backs (0 to 4.4 ms), then the victim's erase (to 9.4 ms).
fn gc_round(tl: &mut Timeline) {
    tl.begin_gc();
    let mut done = 0;
    for _ in 0..8 {
        done = tl.copyback(0, 0);
    }
    tl.erase_block(0, 3, done);
    tl.end_gc();
}

/// Latency of a host read issued at `t` on the plane after [`gc_round`].
fn read_during_gc(tl: &mut Timeline, t: u64) -> u64 {
    gc_round(tl);
    tl.read(0, t) - t
}

#[test]
fn whole_victim_gc_blocks_a_later_read_for_all_of_it() {
    let mut tl = plane(false, false, false);
    let wait = read_during_gc(&mut tl, 600 * US);
    assert_eq!(wait, 8 * MOVE + 5_000 * US - 600 * US + READ, "behind 8 moves and the erase");
}

#[test]
fn interleaved_gc_delays_a_read_by_at_most_the_move_in_progress() {
    let mut tl = plane(true, false, false);
    // Issued during the second copy-back [550, 1100) µs: after it, before the other six.
    let wait = read_during_gc(&mut tl, 600 * US);
    assert_eq!(wait, 500 * US + READ);
    assert!(wait <= MOVE + READ);
    // The rest of the round goes on after the read: a program issued at 1.2 ms waits behind the
    // third copy-back, which started when the read was done (1.16 ms).
    assert_eq!(tl.program(0, 1_200 * US), 1_160 * US + MOVE + 500 * US);
}

#[test]
fn interleaved_gc_queues_the_erase_after_the_moves() {
    let mut tl = plane(true, false, false);
    // Issued during the erase [4.4, 9.4) ms: erases are not suspended by default.
    let wait = read_during_gc(&mut tl, 5_000 * US);
    assert_eq!(wait, 4_400 * US + 5_000 * US - 5_000 * US + READ);
}

#[test]
fn a_read_suspends_a_gc_program_then_the_program_resumes() {
    let mut tl = plane(true, true, false);
    let wait = read_during_gc(&mut tl, 600 * US);
    assert_eq!(wait, 100 * US + READ, "the suspend cost (100 µs), then the read; no move waited for");
    // The copy-back paused at 600 µs with 500 µs left resumes at 760 µs: ends at 1.26 ms, and a
    // program issued at 1.2 ms goes after it (the third copy-back has not started).
    assert_eq!(tl.program(0, 1_200 * US), 1_260 * US + 500 * US);
}

#[test]
fn a_read_suspends_a_gc_erase_only_with_erase_suspend() {
    let t = 5_000 * US;
    let wait = read_during_gc(&mut plane(true, true, false), t);
    assert_eq!(wait, 4_400 * US + READ, "program suspend alone waits for the erase");
    let mut tl = plane(true, false, true);
    let wait = read_during_gc(&mut tl, t);
    assert_eq!(wait, 700 * US + READ, "the erase suspend cost (700 µs), then the read");
    // The erase paused at 5 ms with 4.4 ms left resumes at 5.76 ms: a program then waits to 10.16 ms.
    assert_eq!(tl.program(0, 6_000 * US), 10_160 * US + 500 * US);
}

#[test]
fn a_program_into_a_block_waits_for_its_queued_erase() {
    let mut tl = plane(true, false, false);
    gc_round(&mut tl);
    // Block 3 is erased at the end of the round (9.4 ms): a host program into it at 1 µs
    // cannot go before the moves and the erase, whatever the queue order would allow.
    assert_eq!(tl.program_block(0, Some(3), US), 9_400 * US + 500 * US);
}

#[test]
fn suspend_needs_interleaving() {
    let p = TimingParams { gc_interleave: false, erase_suspend: true, ..TimingParams::default() };
    let e = p.validate().unwrap_err().to_string();
    assert!(e.contains("timing.erase_suspend") && e.contains("gc_interleave"), "{e}");
}

/// A GC-bound closed-loop run (zipf 4 KiB requests, 30% reads, over a small, full device) with interleaving
/// and both suspends: same config, same results; and faster than whole-victim GC.
#[test]
fn interleaved_gc_runs_are_deterministic() {
    let sets = |extra: &[&str]| -> Vec<String> {
        [
            "device.channels=2",
            "device.chips_per_channel=1",
            "device.logical_capacity=\"64MiB\"",
            "device.blocks_per_plane=80",
            "device.pages_per_block=64",
            "workload.read_share=0.3",
            "workload.volume_ratio=1",
            "precondition.overwrite=0.5",
        ]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
    };
    let run = |extra: &[&str]| {
        let r = sim::run(&Config::load_named("bench-timing", &sets(extra)).unwrap(), &mut sim::Quiet).unwrap();
        let key = (
            r.sim.simulated_s.unwrap(),
            format!("{:?}", r.latency_us.as_ref().unwrap()),
            r.flash.programs,
            r.flash.erases,
        );
        assert!(r.flash.erases > 0, "the run collects garbage");
        key
    };
    let suspend = ["timing.program_suspend=true", "timing.erase_suspend=true"];
    assert_eq!(run(&suspend), run(&suspend));
    let (interleaved, whole) = (run(&[]), run(&["timing.gc_interleave=false"]));
    assert!(interleaved.0 < whole.0, "interleaved {} s, whole-victim {} s", interleaved.0, whole.0);
}

/// An open-loop run whose device falls behind its arrivals says so, with both rates and what to
/// change; a comfortable one does not (issue 45: a 51 s mean read latency came with
/// `warnings: []`). Closed-loop runs cannot fall behind and are never judged.
#[test]
fn an_open_loop_run_that_falls_behind_warns_and_a_comfortable_one_does_not() {
    let run = |sets: &[&str]| {
        let mut all = vec!["host.arrival=\"open\"", "workload.volume_ratio=0.05", "precondition.fill=false"];
        all.extend_from_slice(sets);
        let sets: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        sim::run(&Config::load_named("default", &sets).unwrap(), &mut sim::Quiet).unwrap()
    };
    let behind = |r: &flashlab::Results| r.warnings.iter().find(|w| w.contains("fell behind")).cloned();
    // Every request at time 0 (iat 0), and arrivals every 2 µs, faster than the device serves.
    for iat in ["workload.iat_ns=0", "workload.iat_ns=2000"] {
        let r = run(&[iat]);
        let w = behind(&r).unwrap_or_else(|| panic!("{iat}: no warning in {:?}", r.warnings));
        assert!(w.contains("requests/s") && w.contains("workload.time_scale") && w.contains("host.arrival"), "{w}");
    }
    // One request every 2 ms: the device keeps up.
    let r = run(&["workload.iat_ns=2000000"]);
    assert_eq!(behind(&r), None, "{:?}", r.warnings);
    // Closed loop at full speed: never judged.
    let r = run(&["host.arrival=\"closed\"", "workload.iat_ns=0"]);
    assert_eq!(behind(&r), None, "{:?}", r.warnings);
}

/// Wrapping addresses (`host.out_of_range = "wrap"`) says when distinct pages became one: the
/// wrapped requests and the logical pages that received data from two original addresses are
/// counted in a warning naming the policy and `compact` (issue 45: MSN-FS's 169.6 GiB wrapped
/// silently onto 64 GiB). A trace that wraps without colliding, and one that never wraps, say
/// nothing.
#[test]
fn wrapped_addresses_that_collide_are_counted_in_a_warning() {
    let dir = std::env::temp_dir().join(format!("flashlab-wrap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str, offsets: &[u64]| {
        let path = dir.join(name);
        let lines: Vec<String> =
            offsets.iter().enumerate().map(|(i, o)| format!("{i},hm,0,Write,{o},4096,0")).collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let sets: Vec<String> = [
            "workload=".to_string(),
            "workload.kind=\"trace\"".into(),
            "workload.format=\"msr\"".into(),
            format!("workload.path=\"{}\"", path.display()),
            "host.out_of_range=\"wrap\"".into(),
            "sim.mode=\"accounting\"".into(),
            "precondition.fill=false".into(),
        ]
        .to_vec();
        let r = sim::run(&Config::load_named("default", &sets).unwrap(), &mut sim::Quiet).unwrap();
        r.warnings.into_iter().find(|w| w.contains("wrapped"))
    };
    let c = 1_952_256_000u64; // the default preset's logical capacity
                              // Page 0 from rounds 0 and 1, page 2 from rounds 1 and 0: two collided pages, three
                              // wrapped requests (page 1 from round 2 collides with nothing).
    let w = run("collide.csv", &[0, c, c + 8192, 8192, 2 * c + 4096]).expect("a warning");
    assert!(w.starts_with("3 requests lay beyond the logical capacity of 1952256000 bytes"), "{w}");
    assert!(w.contains("2 logical pages received data from more than one original address"), "{w}");
    assert!(w.contains("host.out_of_range = \"wrap\"") && w.contains("\"compact\""), "{w}");
    assert_eq!(run("apart.csv", &[0, c + 4096, 2 * c + 8192]), None, "wrapped, no page shared");
    assert_eq!(run("inside.csv", &[0, 4096, 0]), None, "nothing wrapped");
    std::fs::remove_dir_all(&dir).ok();
}

/// Bursts of 32 random one-page writes at one instant, 100 ms apart, over 6 MiB.
fn bursty_writes() -> String {
    let mut t = String::from("time_us,op,offset,size\n");
    let mut x: u64 = 12345;
    for burst in 0..40u64 {
        for _ in 0..32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let page = (x >> 33) % 1536;
            t.push_str(&format!("{},W,{},4096\n", burst * 100_000, page * 4096));
        }
    }
    t
}

#[test]
fn a_destaging_write_back_buffer_lowers_write_latency_on_a_bursty_trace() {
    let trace = bursty_writes();
    let run = |sets: &[&str]| {
        let mut all = vec!["precondition.fill=true"];
        all.extend_from_slice(sets);
        let r = sim::run(&config(&trace, &all), &mut sim::Quiet).unwrap();
        (r.latency_us.unwrap().write, r.buffer.counters)
    };
    let lru = ["buffer.policy=\"lru\"", "buffer.dram=\"512KiB\""];
    let (none, _) = run(&[]);
    let (held, c) = run(&[&lru[..], &["buffer.destage_high=1.0"]].concat());
    let (destaged, d) = run(&lru);
    let (c, d) = (c.unwrap(), d.unwrap());
    eprintln!("write µs: none {none:?}\n no destage {held:?}\n destage {destaged:?}");
    // Without a buffer a burst queues on the 4 planes: 8 programs each, up to ~4 ms.
    assert!(none.mean > 1000.0, "{none:?}");
    // A full buffer that never destages makes each write wait for its victim's program.
    assert!(held.mean > 100.0, "{held:?}");
    assert_eq!(c.destaged_pages, 0);
    // Destaged (above half of the 128 pages dirty, down to a quarter) between bursts, each burst
    // of 32 lands in DRAM: 1.28 µs a page at the default 3,200 MB/s.
    assert!(destaged.p99 < 2.0 && destaged.mean < 10.0, "{destaged:?}");
    assert!(d.destaged_pages > 0 && d.destaged_pages <= d.flushed_pages, "{d:?}");
}

#[test]
fn a_read_cache_never_raises_read_latency_on_a_read_only_trace() {
    let mut trace = String::from("time_us,op,offset,size\n");
    let mut x: u64 = 777;
    for i in 0..4000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // Half the reads from a hot 64-page set, the rest anywhere; 4 every 100 µs.
        let page = if x >> 63 == 1 { (x >> 20) % 64 } else { (x >> 20) % 1536 };
        trace.push_str(&format!("{},R,{},4096\n", i / 4 * 100, page * 4096));
    }
    let run = |sets: &[&str]| {
        let mut all = vec!["precondition.fill=true"];
        all.extend_from_slice(sets);
        sim::run(&config(&trace, &all), &mut sim::Quiet).unwrap()
    };
    let none = run(&[]).latency_us.unwrap().read;
    for policy in flashlab::buffer::names().into_iter().filter(|&p| p != "none") {
        let p = format!("buffer.policy=\"{policy}\"");
        let sizes: &[&str] = match policy {
            "cbm" | "dwb" => &["buffer.dram=\"256KiB\"", "buffer.nvram=\"64KiB\""],
            _ => &["buffer.dram=\"256KiB\""],
        };
        let r = run(&[&[p.as_str()][..], sizes].concat());
        let with = r.latency_us.unwrap().read;
        if ["lru", "clock", "cbm", "dwb"].contains(&policy) {
            assert!(r.buffer.read_hit_ratio.unwrap() > 0.2, "{policy}: the hot set hits");
        }
        for (what, a, b) in [
            ("mean", with.mean, none.mean),
            ("p50", with.p50, none.p50),
            ("p99", with.p99, none.p99),
            ("max", with.max, none.max),
        ] {
            assert!(a <= b, "{policy}: read {what} {a} µs with the buffer, {b} µs without");
        }
    }
}

#[test]
fn every_buffer_destages_in_check_mode_and_reads_its_last_writes() {
    // Bursts of writes and reads over a small hot set and the whole device; destaging down to
    // nothing between bursts, with every invariant checked after each operation and every
    // read checked against the last write (verify).
    let mut trace = String::from("time_us,op,offset,size\n");
    let mut x: u64 = 99;
    for burst in 0..30u64 {
        for i in 0..48u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let page = if x >> 63 == 1 { (x >> 20) % 48 } else { (x >> 20) % 1536 };
            let op = if i % 3 == 2 { "R" } else { "W" };
            trace.push_str(&format!("{},{op},{},4096\n", burst * 20_000 + i * 50, page * 4096));
        }
    }
    for striping in ["full", "dynamic"] {
        for policy in flashlab::buffer::names().into_iter().filter(|&p| p != "none") {
            let sizes: &[&str] = match policy {
                "cbm" | "dwb" => &["buffer.dram=\"128KiB\"", "buffer.nvram=\"128KiB\""],
                _ => &["buffer.dram=\"256KiB\""],
            };
            let p = format!("buffer.policy=\"{policy}\"");
            let s = format!("ftl.striping=\"{striping}\"");
            let sets = [
                &[p.as_str(), s.as_str(), "precondition.fill=true", "sim.check=true", "sim.verify=true"][..],
                sizes,
                &["buffer.destage_high=0.0", "buffer.destage_low=0.0"],
            ]
            .concat();
            let r = sim::run(&config(&trace, &sets), &mut sim::Quiet).unwrap();
            let c = r.buffer.counters.unwrap();
            assert!(c.destaged_pages > 0, "{policy}, {striping}: nothing destaged: {c:?}");
            assert_eq!(r.sim.verified_reads, r.host.read_pages, "{policy}: every read checked");
        }
    }
}

#[test]
fn destage_watermarks_are_checked() {
    let trace = "time_us,op,offset,size\n0,W,0,4096\n";
    let run = |sets: &[&str]| sim::run(&config(trace, sets), &mut sim::Quiet).map(|_| ()).unwrap_err().to_string();
    let lru = "buffer.policy=\"lru\"";
    let dram = "buffer.dram=\"64KiB\"";
    let e = run(&[lru, dram, "buffer.destage_high=1.5"]);
    assert!(e.contains("buffer.destage_high") && e.contains("1.5"), "{e}");
    let e = run(&[lru, dram, "buffer.destage_high=0.2", "buffer.destage_low=0.4"]);
    assert!(e.contains("buffer.destage_low") && e.contains("above"), "{e}");
    let e = run(&[lru, dram, "buffer.destage_high=0.5", "sim.mode=\"accounting\""]);
    assert!(e.contains("timing mode") && e.contains("buffer.destage_high"), "{e}");
    let e = run(&["buffer.destage_low=0.1"]);
    assert!(e.contains("policy `none`"), "{e}");
    let mut cfg = config(trace, &[lru, dram]);
    cfg.timing.nvram_mb_s = 0.0;
    let e = sim::run(&cfg, &mut sim::Quiet).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("timing.nvram_mb_s"), "{e}");
}

/// Records the phases a run starts.
#[derive(Default)]
struct Phases(Vec<String>);
impl sim::Progress for Phases {
    fn phase(&mut self, name: &str, _total: u64) {
        self.0.push(name.to_string());
    }
}

#[test]
fn a_trace_beyond_the_device_is_refused_before_preconditioning() {
    // Line 3 ends past the 6 MiB logical capacity.
    let trace = "time_us,op,offset,size\n0,W,0,4096\n10,W,7340032,4096\n20,R,0,4096\n";
    let mut phases = Phases::default();
    let e = sim::run(&config(trace, &["precondition.fill=true"]), &mut phases).unwrap_err().to_string();
    assert!(e.contains(":3") && e.contains("offset") && e.contains("beyond the logical capacity"), "{e}");
    assert!(phases.0.iter().all(|p| !p.starts_with("precondition")), "preconditioned first: {:?}", phases.0);
    // Wrapping accepts it, and then the run preconditions.
    let mut phases = Phases::default();
    sim::run(&config(trace, &["precondition.fill=true", "host.out_of_range=\"wrap\""]), &mut phases).unwrap();
    assert!(phases.0.iter().any(|p| p.starts_with("precondition")), "{:?}", phases.0);
}

#[test]
fn latencies_are_reported_by_request_size() {
    // Idle device: 4 KiB writes take transfer + tPROG (510 µs), 16 KiB ones spread over the 4
    // planes (520 µs); reads of 64 KiB are 16 pages, 4 per plane.
    let mut trace = String::from("time_us,op,offset,size\n");
    for i in 0..10u64 {
        trace.push_str(&format!("{},W,{},4096\n", i * 100_000, i * 4096));
        trace.push_str(&format!("{},W,{},16384\n", i * 100_000 + 20_000, 65536 + i * 16384));
        trace.push_str(&format!("{},R,{},65536\n", i * 100_000 + 40_000, 65536));
    }
    let r = sim::run(&config(&trace, &[]), &mut sim::Quiet).unwrap();
    let l = r.latency_us.unwrap();
    let classes: Vec<(Option<u64>, u64, u64)> =
        l.by_size.iter().map(|c| (c.max_bytes, c.read.count, c.write.count)).collect();
    assert_eq!(classes, [(Some(4096), 0, 10), (Some(16384), 0, 10), (Some(65536), 10, 0)]);
    assert_eq!((l.by_size[0].write.max, l.by_size[1].write.max), (510.0, 520.0));
    assert!(l.by_size[2].read.p50 > 60.0, "16 pages: more than one page's read");
}

#[test]
fn a_read_waits_for_at_most_the_destage_program_already_started() {
    // 64 buffered writes at t = 0, then at 1 ms a read of a page in flash. Destaging (down to
    // nothing) may start a program on a plane only before the read arrives: at 0 and 510 µs,
    // two per plane; so the read waits for at most one program, 570 µs in all with its own
    // 60 µs, never for the 16 the buffer still holds per plane.
    let mut trace = String::from("time_us,op,offset,size\n");
    for i in 0..64u64 {
        trace.push_str(&format!("0,W,{},4096\n", (200 + i) * 4096));
    }
    trace.push_str("1000,R,40960,4096\n");
    for striping in ["full", "dynamic"] {
        let s = format!("ftl.striping=\"{striping}\"");
        let sets = [
            "precondition.fill=true",
            "buffer.policy=\"lru\"",
            "buffer.dram=\"512KiB\"",
            "buffer.destage_high=0.0",
            "buffer.destage_low=0.0",
            s.as_str(),
        ];
        let r = sim::run(&config(&trace, &sets), &mut sim::Quiet).unwrap();
        let l = r.latency_us.unwrap();
        assert!(l.read.max <= 570.0, "{striping}: read waited {} µs", l.read.max);
        assert!(l.write.max < 2.0, "{striping}: writes land in DRAM: {}", l.write.max);
        assert_eq!(r.buffer.counters.unwrap().destaged_pages, 8, "{striping}: two programs on each of 4 planes");
    }
}
