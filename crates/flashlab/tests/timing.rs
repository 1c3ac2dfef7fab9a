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
