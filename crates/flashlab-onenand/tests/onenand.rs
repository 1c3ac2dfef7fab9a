//! The OneNAND read path pinned to closed forms (paper §3.1): with dual buffering, M pages take
//! Tload + Tread + (M−1)·max(Tload, Tread), so 2N pages in 4 KB segments take
//! (2·Tload + Tread)·N and in one virtual segment 2·Tload·N + Tread when Tload ≥ Tread
//! (N·(Tload + 2·Tread) and Tload + 2N·Tread otherwise). Every driver's latency is checked against
//! its closed form, the V-Segment / DualOP-4KB crossover against the one the costs predict, and
//! Optimized against the better of the two. Traces check that every sector is read once, in order.

use flashlab_onenand::costs::{DeviceTiming, HostCosts, SECTOR_BYTES};
use flashlab_onenand::device::{Cost, Event, OneNand};
use flashlab_onenand::drivers::{self, DRIVERS};
use flashlab_onenand::{measure_read, paging};

const KB: u64 = 1024;

fn zero_costs() -> HostCosts {
    HostCosts::paper().without_host_costs()
}

fn timing(load_ns: u64, read_ns: u64) -> DeviceTiming {
    DeviceTiming { load_ns, read_ns, ..DeviceTiming::kf1g16q2m() }
}

fn latency(driver: &str, t: &DeviceTiming, c: &HostCosts, bytes: u64) -> u64 {
    let d = drivers::build(driver, c).unwrap();
    measure_read(d.as_ref(), t, c, 0, bytes, c.memory_page_bytes).unwrap().latency_ns
}

/// Dual-buffered read of M pages.
fn pipe(t: &DeviceTiming, m: u64) -> u64 {
    t.load_ns + t.read_ns + (m - 1) * t.load_ns.max(t.read_ns)
}

/// The closed form of each driver for `n` aligned 4 KB segments (2 KB flash pages).
fn closed_form(driver: &str, t: &DeviceTiming, c: &HostCosts, n: u64) -> u64 {
    let seg = c.seg_get_request_ns + c.seg_end_request_ns;
    let whole = c.vseg_get_request_ns + c.vseg_end_request_ns + c.vseg_per_segment_ns * n + c.call_ns;
    let dualop = n * (seg + c.call_ns + pipe(t, 2));
    match driver {
        "original" => n * (seg + 8 * c.sector_call_ns + 2 * (t.load_ns + t.read_ns)),
        "dualop-4kb" => dualop,
        "v-segment" => whole + c.vmap_ns(n) + pipe(t, 2 * n),
        "optimized" if n * 4 * KB <= c.optimized_threshold_bytes => dualop,
        "optimized" => {
            let create = c.vmap_create_ns + c.vmap_create_per_page_ns * n;
            let teardown = c.vmap_teardown_ns + c.vmap_teardown_per_page_ns * n;
            whole + pipe(t, 2 * n) + create.saturating_sub(t.load_ns) + teardown
        }
        other => panic!("no closed form for {other}"),
    }
}

#[test]
fn segments_and_virtual_segment_follow_the_papers_closed_forms_when_load_dominates() {
    let t = DeviceTiming::kf1g16q2m();
    assert!(t.load_ns >= t.read_ns);
    let c = zero_costs();
    for n in 1..=16 {
        let seg = latency("dualop-4kb", &t, &c, n * 4 * KB);
        let virt = latency("v-segment", &t, &c, n * 4 * KB);
        assert_eq!(seg, (2 * t.load_ns + t.read_ns) * n, "T_segments(2N), N = {n}");
        assert_eq!(virt, 2 * t.load_ns * n + t.read_ns, "T_virtual(2N), N = {n}");
        assert_eq!(seg - virt, (n - 1) * t.read_ns, "T_benefit(2N) = (N − 1)·Tread");
    }
}

#[test]
fn closed_forms_when_read_dominates() {
    let t = timing(20_000, 28_000);
    let c = zero_costs();
    for n in 1..=16 {
        assert_eq!(latency("dualop-4kb", &t, &c, n * 4 * KB), (t.load_ns + 2 * t.read_ns) * n, "N = {n}");
        assert_eq!(latency("v-segment", &t, &c, n * 4 * KB), t.load_ns + 2 * n * t.read_ns, "N = {n}");
    }
}

#[test]
fn every_driver_matches_its_closed_form_over_parameters() {
    let mut params = vec![(DeviceTiming::kf1g16q2m(), HostCosts::paper())];
    for (l, r) in [(20_000, 28_000), (32_000, 32_000), (50_000, 10_000)] {
        params.push((timing(l, r), HostCosts::paper()));
    }
    params
        .push((DeviceTiming::kf1g16q2m(), HostCosts { vmap_create_ns: 40_000, call_ns: 5_000, ..HostCosts::paper() }));
    for (t, c) in &params {
        for d in DRIVERS {
            for n in 1..=16 {
                assert_eq!(
                    latency(d.name, t, c, n * 4 * KB),
                    closed_form(d.name, t, c, n),
                    "{} at {} KB, {t:?}",
                    d.name,
                    n * 4
                );
            }
        }
    }
}

/// Smallest number of 4 KB segments at which `a` is no slower than `b`, by the closed forms.
fn crossover(a: &str, b: &str, t: &DeviceTiming, c: &HostCosts) -> Option<u64> {
    (1..=16).find(|&n| closed_form(a, t, c, n) <= closed_form(b, t, c, n))
}

#[test]
fn v_segment_overtakes_dualop_where_the_costs_say() {
    let t = DeviceTiming::kf1g16q2m();
    let c = HostCosts::paper();
    // Paper §4.2: V-Segment is slower than DualOP-4KB up to 12 KB, faster from 16 KB.
    assert_eq!(crossover("v-segment", "dualop-4kb", &t, &c), Some(4));
    let sizes: Vec<u64> = (1..=16).collect();
    let first = |t: &DeviceTiming, c: &HostCosts| {
        sizes
            .iter()
            .copied()
            .find(|&n| latency("v-segment", t, c, n * 4 * KB) <= latency("dualop-4kb", t, c, n * 4 * KB))
    };
    assert_eq!(first(&t, &c), Some(4));
    for (tt, cc) in [
        (timing(20_000, 28_000), HostCosts::paper()),
        (DeviceTiming::kf1g16q2m(), HostCosts { vmap_teardown_ns: 60_000, ..HostCosts::paper() }),
        (DeviceTiming::kf1g16q2m(), HostCosts { seg_end_request_ns: 10_000, ..HostCosts::paper() }),
        (timing(32_000, 10_000), HostCosts::paper()),
    ] {
        assert_eq!(first(&tt, &cc), crossover("v-segment", "dualop-4kb", &tt, &cc), "{tt:?} {cc:?}");
    }
    // Each extra 4 KB segment saves V-Segment one Tread plus a segment's block and call costs,
    // and costs it one more page of mapping: the gap closes by exactly that.
    let gap =
        |n: u64| latency("v-segment", &t, &c, n * 4 * KB) as i64 - latency("dualop-4kb", &t, &c, n * 4 * KB) as i64;
    let step = (t.read_ns + c.seg_get_request_ns + c.seg_end_request_ns + c.call_ns) as i64
        - (c.vseg_per_segment_ns + c.vmap_create_per_page_ns + c.vmap_teardown_per_page_ns) as i64;
    for n in 1..16 {
        assert_eq!(gap(n) - gap(n + 1), step);
    }
}

#[test]
fn optimized_is_never_slower_than_the_better_of_v_segment_and_dualop() {
    let check = |t: &DeviceTiming, c: &HostCosts| {
        for n in 1..=16 {
            let o = latency("optimized", t, c, n * 4 * KB);
            let best = latency("v-segment", t, c, n * 4 * KB).min(latency("dualop-4kb", t, c, n * 4 * KB));
            assert!(o <= best, "{} KB: optimized {o} > {best}; {t:?} {c:?}", n * 4);
        }
    };
    check(&DeviceTiming::kf1g16q2m(), &HostCosts::paper());
    // A sweep: the threshold is where Optimized's virtual path starts to win by the closed forms
    // (the paper picked 12 KB from its measurements the same way).
    for (l, r) in [(32_000, 28_000), (20_000, 28_000), (48_000, 14_000)] {
        for (vmap_scale, seg_ns) in [(1, 3_000), (2, 3_000), (1, 8_000), (3, 1_000)] {
            let t = timing(l, r);
            let p = HostCosts::paper();
            let mut c = HostCosts {
                vmap_create_ns: p.vmap_create_ns * vmap_scale,
                vmap_teardown_ns: p.vmap_teardown_ns * vmap_scale,
                seg_get_request_ns: seg_ns / 3,
                seg_end_request_ns: seg_ns - seg_ns / 3,
                optimized_threshold_bytes: u64::MAX / 2,
                ..p
            };
            // Optimized's virtual path minus segments, per size, with the threshold out of the way.
            let virt = |c: &HostCosts, n| {
                closed_form("optimized", &t, &HostCosts { optimized_threshold_bytes: 0, ..c.clone() }, n) as i64
                    - closed_form("dualop-4kb", &t, c, n) as i64
            };
            let losing: Vec<u64> = (1..=16).filter(|&n| virt(&c, n) > 0).collect();
            assert!(
                losing.iter().enumerate().all(|(i, &n)| n == i as u64 + 1),
                "the virtual path loses on a prefix of sizes: {losing:?}"
            );
            c.optimized_threshold_bytes = losing.len() as u64 * 4 * KB;
            check(&t, &c);
        }
    }
}

#[test]
fn original_is_slowest_and_optimized_fastest_at_every_size() {
    let (t, c) = (DeviceTiming::kf1g16q2m(), HostCosts::paper());
    for n in 1..=16 {
        let l: Vec<u64> = DRIVERS.iter().map(|d| latency(d.name, &t, &c, n * 4 * KB)).collect();
        assert!(l[0] > *l[1..].iter().max().unwrap(), "{} KB: {l:?}", n * 4);
        assert_eq!(l[3], *l.iter().min().unwrap(), "{} KB: {l:?}", n * 4);
    }
}

#[test]
fn paper_headline_ratios_at_64_kb() {
    let (t, c) = (DeviceTiming::kf1g16q2m(), HostCosts::paper());
    let l = |d| latency(d, &t, &c, 64 * KB) as f64;
    let (o, d, opt) = (l("original"), l("dualop-4kb"), l("optimized"));
    // Paper §4.2: 46% of Original, 72% of DualOP-4KB.
    assert!((opt / o - 0.46).abs() < 0.02, "{}", opt / o);
    assert!((opt / d - 0.72).abs() < 0.02, "{}", opt / d);
    // §3.2.3: 4 KB takes about 90 µs.
    assert!((85_000..=100_000).contains(&latency("dualop-4kb", &t, &c, 4 * KB)));
}

/// The device bytes that reached the host, in order.
fn bytes_read(trace: &[Event], page_bytes: u64) -> Vec<(u64, u64)> {
    trace
        .iter()
        .filter_map(|e| match *e {
            Event::Read { page, offset, bytes, .. } => Some((page * page_bytes + offset, bytes)),
            _ => None,
        })
        .collect()
}

#[test]
fn every_driver_reads_every_sector_once_in_order() {
    let (t, c) = (DeviceTiming::kf1g16q2m(), HostCosts::paper());
    for d in DRIVERS {
        let drv = (d.build)(&c).unwrap();
        for (offset, bytes, seg) in [
            (0, 4 * KB, 4 * KB),
            (0, 64 * KB, 4 * KB),
            (3 * SECTOR_BYTES, 13 * KB, 4 * KB),
            (4096 * 7, 20 * KB, KB),
            (2048, 2048, 512),
            (0, 512, 512),
        ] {
            let m = measure_read(drv.as_ref(), &t, &c, offset, bytes, seg).unwrap();
            let reads = bytes_read(&m.trace, t.page_bytes);
            let mut at = offset;
            for (o, b) in reads {
                assert_eq!(o, at, "{}: read out of order or twice", d.name);
                at += b;
            }
            assert_eq!(at, offset + bytes, "{}: every sector read", d.name);
            // The BufferRAM check: each flash page is loaded exactly once.
            let pages = (offset + bytes - 1) / t.page_bytes - offset / t.page_bytes + 1;
            assert_eq!(m.loads, pages, "{} {offset}+{bytes}", d.name);
            let calls: Vec<(u64, u64)> = m
                .trace
                .iter()
                .filter_map(|e| if let Event::Call { offset, bytes, .. } = *e { Some((offset, bytes)) } else { None })
                .collect();
            let segs = bytes.div_ceil(seg);
            let expected = match d.name {
                "original" => bytes / SECTOR_BYTES,
                "dualop-4kb" => segs,
                "v-segment" => 1,
                _ if bytes <= c.optimized_threshold_bytes => segs,
                _ => 1,
            };
            assert_eq!(calls.len() as u64, expected, "{}: low-level calls", d.name);
            assert!(calls.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0), "{}: calls contiguous and in order", d.name);
        }
    }
}

#[test]
fn block_layer_costs_are_per_segment_or_per_request() {
    let (t, c) = (DeviceTiming::kf1g16q2m(), HostCosts::paper());
    for kb in [8u64, 16, 32] {
        let segs = kb; // 1 KB buffers (paper Fig. 12)
        for name in ["original", "dualop-4kb"] {
            let m = measure_read(drivers::build(name, &c).unwrap().as_ref(), &t, &c, 0, kb * KB, KB).unwrap();
            assert_eq!(m.acct.get(Cost::GetRequest) + m.acct.get(Cost::EndRequest), segs * 3_000);
        }
        let m = measure_read(drivers::build("v-segment", &c).unwrap().as_ref(), &t, &c, 0, kb * KB, KB).unwrap();
        assert_eq!(m.acct.get(Cost::GetRequest) + m.acct.get(Cost::EndRequest), 25_000 + segs * 250);
        assert_eq!(m.acct.get(Cost::VmapCreate) + m.acct.get(Cost::VmapTeardown), c.vmap_ns(kb / 4));
    }
    // §3.2.3: creation + teardown 40 µs at 8 KB, ~50 µs at 32 KB.
    assert_eq!(c.vmap_ns(2), 40_000);
    assert!((48_000..=50_000).contains(&c.vmap_ns(8)));
}

#[test]
fn dual_buffered_writes_overlap_write_and_program() {
    let t = DeviceTiming::kf1g16q2m();
    for m in 1..=8u64 {
        let mut d = OneNand::new(t.clone()).unwrap();
        d.write_pages(0, m * t.page_bytes, true).unwrap();
        assert_eq!(d.now_ns(), t.write_ns + m * t.program_ns.max(t.write_ns), "dual, {m} pages");
        let mut s = OneNand::new(t.clone()).unwrap();
        s.write_pages(0, m * t.page_bytes, false).unwrap();
        assert_eq!(s.now_ns(), m * (t.write_ns + t.program_ns), "single, {m} pages");
        assert_eq!(d.programs(), m);
    }
}

#[test]
fn demand_paging_stream_is_sized_like_the_papers_boot() {
    let (t, c) = (DeviceTiming::kf1g16q2m(), HostCosts::paper());
    let p = paging::PagingParams::paper();
    let s = paging::generate(&p, &t).unwrap();
    assert_eq!(s, paging::generate(&p, &t).unwrap(), "deterministic in the seed");
    assert_eq!(s.majors.len(), 110);
    assert_eq!(s.minors(), 5643);
    let pages = s.pages_read() as f64;
    assert!((pages / 1929.0 - 1.0).abs() < 0.15, "pages read {pages}");
    let major = |name: &str| paging::run(&s, drivers::build(name, &c).unwrap().as_ref(), &p, &t, &c).unwrap().major_ns;
    let (o, d, v, opt) = (major("original"), major("dualop-4kb"), major("v-segment"), major("optimized"));
    assert!(opt <= v && v < d && d < o, "{opt} {v} {d} {o}");
}

#[test]
fn bad_parameters_are_errors() {
    let c = HostCosts::paper();
    let e = drivers::build("vsegment", &c).err().unwrap().to_string();
    assert!(
        e.contains("unknown onenand driver `vsegment`") && e.contains("v-segment") && e.contains("dualop-4kb"),
        "{e}"
    );
    assert!(OneNand::new(DeviceTiming { page_bytes: 3000, ..DeviceTiming::kf1g16q2m() }).is_err());
    assert!(OneNand::new(DeviceTiming { load_ns: 0, ..DeviceTiming::kf1g16q2m() }).is_err());
    assert!(OneNand::new(DeviceTiming { block_bytes: 1000, ..DeviceTiming::kf1g16q2m() }).is_err());
    assert!(drivers::build("optimized", &HostCosts { memory_page_bytes: 1000, ..c.clone() }).is_err());
    let t = DeviceTiming::kf1g16q2m();
    let d = drivers::build("dualop-4kb", &c).unwrap();
    for (off, bytes, seg) in
        [(0, 0, 4096), (100, 4096, 4096), (0, 4096, 3000), (0, 4096, 8192), (t.capacity_bytes - 4096, 8192, 4096)]
    {
        assert!(measure_read(d.as_ref(), &t, &c, off, bytes, seg).is_err(), "{off} {bytes} {seg}");
    }
    let mut dev = OneNand::new(t.clone()).unwrap();
    assert!(dev.write_pages(512, 2048, true).is_err());
    let p = paging::PagingParams::paper();
    assert!(paging::generate(&paging::PagingParams { files: 0, ..p.clone() }, &t).is_err());
    assert!(paging::generate(&paging::PagingParams { files: 2, file_kb_max: 8, major_faults: 1000, ..p.clone() }, &t)
        .is_err());
    assert!(paging::generate(&paging::PagingParams { file_kb_min: 4096, file_kb_max: 1 << 20, ..p }, &t).is_err());
}
