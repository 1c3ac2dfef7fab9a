//! Model-based tests of the device stack: random write / read / trim sequences through every
//! registered mapping scheme × GC policy × buffer policy × GC unit × striping, in check mode
//! (every invariant validated after every page operation) and verify mode (every read compared
//! with the last acknowledged write via the OOB version tags). A new policy is covered the
//! moment it is registered. Writes carry random placement identifiers (some beyond the
//! handles), which FDP combinations (`ftl.placement`, both isolation types) place and the
//! others ignore. The zoned device (`zns`) takes no random writes of its own: it runs under
//! the host's log-structured layer (`host.layer = "log"`), which is what writes zones.

use flashlab::buffer::{self, BufferConfig};
use flashlab::device::Device;
use flashlab::ftl::placement::{Isolation, PlacementConfig};
use flashlab::ftl::{self, gc, schedule, FtlConfig, FtlSpec, Striping};
use flashlab::host::{self, HostConfig, HostContext};
use flashlab::nand::{GcUnit, Geometry, Layout, TimingParams};
use flashlab::units::{Lpn, Nanos};
use flashlab::workload::{Op, Request};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    /// A page write and its placement identifier.
    Write(u64, Option<u16>),
    Read(u64),
    Trim(u64),
}

/// A placement identifier: mostly a bare handle 0..4, else one under top bits 00, 01, 10 or 11,
/// so with two reclaim groups (one group bit) it names group 0, an invalid handle, group 1, or
/// an invalid handle, and with four groups each of them.
fn placement_id() -> impl Strategy<Value = u16> {
    prop_oneof![3 => 0u16..4, 1 => (0u16..4, 0u16..4).prop_map(|(h, g)| (g << 14) | h)]
}

fn geometry() -> Geometry {
    // 4 planes x 32 blocks x 8 pages = 1024 physical pages: room for the GC reserve of policies
    // with three write streams per plane.
    Geometry {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 32,
        pages_per_block: 8,
        page_size: 4096,
    }
}

const LOGICAL: u64 = 640;

/// Logical pages of a device with `unit` segments: fewer with lines (a line is a segment of
/// every plane, so the reserve and the frontiers take more).
fn logical_pages(unit: GcUnit) -> u64 {
    if unit == GcUnit::Line {
        600
    } else {
        LOGICAL
    }
}

/// One device configuration of the model-based tests.
#[derive(Clone, Debug)]
struct Combo {
    mapping: String,
    /// `None` for the log-block schemes, which merge instead and refuse a victim policy.
    gc: Option<String>,
    /// GC schedule (page-mapped schemes; `None` for the log-block ones, which refuse one).
    schedule: Option<String>,
    buffer: String,
    unit: GcUnit,
    striping: Striping,
    /// FDP reclaim unit handles (`ftl.placement`): their number, isolation and reclaim groups.
    placement: Option<(u16, Isolation, u16)>,
}

/// Every mapping x GC x schedule x layout the registries offer, each with a buffer in front.
/// Every buffer runs in front of every GC policy on page mapping (block units, full striping,
/// default schedule); every schedule runs with every GC policy on page mapping with block and
/// line units; elsewhere buffers and schedules take turns, which keeps the test time flat as
/// policies are added.
fn combos() -> Vec<Combo> {
    let buffers = buffer::names();
    let schedules = schedule::names();
    let mut v = Vec::new();
    let mut turn = 0;
    for m in ftl::mapping_names().into_iter().filter(|&m| m != "zns") {
        let hybrid = !ftl::mapping(m).unwrap().caps.gc_policy;
        let gcs: Vec<Option<&str>> = if hybrid { vec![None] } else { gc::names().into_iter().map(Some).collect() };
        for g in gcs {
            // The layouts the scheme's registry line accepts (its units x stripings, less the
            // line-unit rule every scheme shares).
            let layouts = ftl::mapping(m).unwrap().layouts();
            for &(unit, striping) in &layouts {
                let mut push = |schedule: Option<&str>, b: &str| {
                    v.push(Combo {
                        mapping: m.to_string(),
                        gc: g.map(str::to_string),
                        schedule: schedule.map(str::to_string),
                        buffer: b.to_string(),
                        unit,
                        striping,
                        placement: None,
                    })
                };
                let base = m == "page" && striping == Striping::Full;
                if base && unit == GcUnit::Block {
                    for b in &buffers {
                        push(None, b);
                    }
                }
                if base {
                    for s in &schedules {
                        push(Some(s), buffers[turn % buffers.len()]);
                        turn += 1;
                    }
                } else {
                    let s = (!hybrid).then(|| schedules[turn % schedules.len()]);
                    push(s, buffers[turn % buffers.len()]);
                    turn += 1;
                }
            }
        }
    }
    // FDP: both isolation types with greedy and a buffer, block and line units, page mapping
    // and a cached table, one reclaim group and several (block units), full and dynamic
    // striping.
    for (m, unit, handles, isolation, groups, striping, b) in [
        ("page", GcUnit::Block, 3, Isolation::Persistent, 1, Striping::Full, "none"),
        ("page", GcUnit::Line, 2, Isolation::Initial, 1, Striping::Full, "lru"),
        ("dftl", GcUnit::Block, 2, Isolation::Initial, 1, Striping::Full, "none"),
        ("page", GcUnit::Block, 3, Isolation::Initial, 1, Striping::Full, "cbm"),
        ("page", GcUnit::Block, 2, Isolation::Persistent, 2, Striping::Full, "none"),
        ("page", GcUnit::Block, 2, Isolation::Initial, 4, Striping::Dynamic, "lru"),
        ("dftl", GcUnit::Block, 2, Isolation::Persistent, 2, Striping::Full, "none"),
    ] {
        v.push(Combo {
            mapping: m.into(),
            gc: Some("greedy".into()),
            schedule: None,
            buffer: b.into(),
            unit,
            striping,
            placement: Some((handles, isolation, groups)),
        });
    }
    v
}

#[test]
fn every_buffer_meets_every_gc_policy_and_every_schedule_runs_every_policy() {
    let c = combos();
    for b in buffer::names() {
        for g in gc::names() {
            assert!(c.iter().any(|x| x.gc.as_deref() == Some(g) && x.buffer == b), "{b} never runs in front of {g}");
        }
    }
    for s in schedule::names() {
        for g in gc::names() {
            for unit in [GcUnit::Block, GcUnit::Line] {
                let runs =
                    c.iter().any(|x| x.gc.as_deref() == Some(g) && x.schedule.as_deref() == Some(s) && x.unit == unit);
                assert!(runs, "schedule {s} never runs {g} with {unit:?} units");
            }
        }
    }
    for m in ftl::mapping_names().into_iter().filter(|&m| m != "zns") {
        assert!(c.iter().any(|x| x.mapping == m), "mapping {m} never runs");
    }
    for isolation in [Isolation::Persistent, Isolation::Initial] {
        assert!(c.iter().any(|x| x.placement.is_some_and(|p| p.1 == isolation)), "{isolation:?} never runs");
    }
    assert!(c.iter().any(|x| x.placement.is_some_and(|p| p.2 > 1)), "reclaim groups never run");
}

/// Page mapping, no buffer, full striping, default schedule.
fn page(gc: &str, unit: GcUnit) -> Combo {
    Combo {
        mapping: "page".into(),
        gc: Some(gc.into()),
        schedule: None,
        buffer: "none".into(),
        unit,
        striping: Striping::Full,
        placement: None,
    }
}

fn device(c: &Combo) -> Device {
    let (mapping, buf, unit, striping) = (c.mapping.as_str(), c.buffer.as_str(), c.unit, c.striping);
    let mut cfg = FtlConfig {
        mapping: mapping.into(),
        gc: c.gc.clone(),
        gc_schedule: c.schedule.clone(),
        gc_unit: unit,
        striping,
        placement: c.placement.map(|(handles, isolation, reclaim_groups)| PlacementConfig {
            handles,
            isolation,
            default_handle: 0,
            reclaim_groups,
        }),
        ..FtlConfig::default()
    };
    // Schemes with a cached table (their parameters include the cache `window`): a small,
    // moving window so lookups miss, evict dirty entries and resize, and the timing model on
    // so translation I/O is paid.
    let entry = ftl::mapping(mapping).unwrap();
    let cached = (entry.params)().get("properties").and_then(|p| p.get("window")).is_some();
    if cached {
        cfg.mapping_params =
            "window = 0.05\ndynamic = true\ninterval = 64\nmin_window = 0.02\nmax_window = 0.3".parse().unwrap();
    }
    let layout = Layout::new(geometry(), unit);
    let logical = logical_pages(unit);
    // Dynamic striping places by plane availability, so it runs with the timing model on.
    let timing = TimingParams::default();
    let timing = (striping == Striping::Dynamic || cached).then_some(&timing);
    let spec = FtlSpec { layout, logical_pages: logical, config: &cfg, verify: true, timing, seed: 1 };
    let f = ftl::build(&spec).unwrap_or_else(|e| panic!("{c:?}: {e}"));
    // A 16-page buffer (+ 12 pages of NVRAM for the two-memory policies): small enough that
    // evictions, migrations and write-backs happen all the time.
    let mut bc = BufferConfig::dram(buf, if buf == "none" { 0 } else { 16 * 4096 });
    if buf == "cbm" || buf == "dwb" {
        bc.nvram = flashlab::units::ByteSize(12 * 4096);
    }
    let b = buffer::build(&bc, &buffer::BufferContext { page_size: 4096, pages_per_block: 8, timing: None })
        .expect("buffer");
    Device::new(b, f, 4096, true, true)
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    // Skewed addresses so GC sees both hot and cold data.
    let lpn = prop_oneof![3 => 0u64..48, 1 => 0u64..LOGICAL];
    prop::collection::vec(
        prop_oneof![6 => (lpn.clone(), prop::option::of(placement_id())).prop_map(|(l, id)| Step::Write(l, id)), 3 => lpn.clone().prop_map(Step::Read), 1 => lpn.prop_map(Step::Trim)],
        1..3000,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, .. ProptestConfig::default() })]

    #[test]
    fn every_read_returns_the_last_write(steps in steps()) {
        for c in combos() {
            let mut dev = device(&c);
            let n = dev.logical_pages();
            for s in &steps {
                // Device::read asserts the oracle; check mode validates after each op (and after
                // any background GC at the end of the request).
                match *s {
                    Step::Write(l, id) => { dev.write_placed(Lpn(l % n), id, Nanos::ZERO).unwrap(); }
                    Step::Read(l) => { dev.read(Lpn(l % n), Nanos::ZERO).unwrap(); }
                    Step::Trim(l) => { dev.trim(Lpn(l % n), Nanos::ZERO).unwrap(); }
                }
                dev.end_request(Nanos::ZERO).unwrap();
            }
            dev.flush(Nanos::ZERO).unwrap();
            dev.verify_all().unwrap();
        }
    }
}

/// The zoned device under the host's log: `steps` as one-page requests through `host.layer =
/// "log"` (greedy, `unit` zones) on a `zns` device in check and verify mode (every zone rule
/// and invariant after each operation, every device read against the last write of its zone
/// page); returns the device's flash counters.
fn zoned_run(steps: &[Step], unit: GcUnit) -> flashlab::nand::NandCounters {
    let layout = Layout::new(geometry(), unit);
    let cfg = FtlConfig { mapping: "zns".into(), gc: None, gc_unit: unit, ..FtlConfig::default() };
    let logical = logical_pages(unit);
    let spec = FtlSpec { layout, logical_pages: logical, config: &cfg, verify: true, timing: None, seed: 1 };
    let b = buffer::build(
        &BufferConfig::dram("none", 0),
        &buffer::BufferContext { page_size: 4096, pages_per_block: 8, timing: None },
    )
    .expect("buffer");
    let mut dev = Device::new(b, ftl::build(&spec).expect("zns"), 4096, true, true);
    let ctx = HostContext { layout, logical_pages: logical, seed: 1, zoned: true };
    let mut host = host::build(&HostConfig { layer: "log".into(), ..HostConfig::default() }, &ctx).expect("log");
    for s in steps {
        let (op, l) = match *s {
            Step::Write(l, _) => (Op::Write, l),
            Step::Read(l) => (Op::Read, l),
            Step::Trim(l) => (Op::Trim, l),
        };
        let req = Request { time_ns: 0, op, offset: (l % logical) * 4096, len: 4096, placement: None, file: None };
        host.submit(&req, Nanos::ZERO, &mut dev).unwrap_or_else(|e| panic!("{unit:?} {s:?}: {e}"));
        dev.end_request(Nanos::ZERO).unwrap();
    }
    let counters = dev.ftl.nand().counters;
    dev.verify_all().unwrap();
    counters
}

/// The conventional page-mapped SSD the zoned run must equal: greedy, classic schedule.
fn conventional_run(steps: &[Step], unit: GcUnit) -> flashlab::nand::NandCounters {
    let mut dev = device(&page("greedy", unit));
    let n = dev.logical_pages();
    for s in steps {
        match *s {
            Step::Write(l, _) => dev.write(Lpn(l % n), Nanos::ZERO).map(|_| ()),
            Step::Read(l) => dev.read(Lpn(l % n), Nanos::ZERO).map(|_| ()),
            Step::Trim(l) => dev.trim(Lpn(l % n), Nanos::ZERO).map(|_| ()),
        }
        .unwrap();
        dev.end_request(Nanos::ZERO).unwrap();
    }
    dev.ftl.nand().counters
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, .. ProptestConfig::default() })]

    #[test]
    fn zns_under_the_host_log_keeps_every_zone_rule_and_equals_the_page_ssd(steps in steps()) {
        for unit in [GcUnit::Block, GcUnit::Line] {
            let (z, c) = (zoned_run(&steps, unit), conventional_run(&steps, unit));
            prop_assert_eq!((z.programs, z.erases), (c.programs, c.erases), "{:?}", unit);
            // The host reads every page it moves; the conventional SSD moves within a plane by
            // copy-back, without a read over the bus.
            prop_assert_eq!(z.reads, c.reads + c.copybacks, "{:?}", unit);
            prop_assert_eq!(z.copybacks, 0);
        }
    }
}

/// Sustained overwrites force many GC rounds on every combination; WAF must stay finite and
/// the device must keep working (no DeviceFull with 10%+ spare space).
#[test]
fn long_random_overwrite_survives_gc_everywhere() {
    for combo in combos() {
        let mut dev = device(&combo);
        let n = dev.logical_pages();
        let mut x = 12345u64;
        for i in 0..20 * n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            dev.write(Lpn((x >> 33) % n), Nanos::ZERO).unwrap_or_else(|e| panic!("{combo:?} write {i}: {e}"));
            dev.end_request(Nanos::ZERO).unwrap_or_else(|e| panic!("{combo:?} background GC after write {i}: {e}"));
        }
        dev.verify_all().unwrap();
        let c = dev.ftl.counters();
        let nand = dev.ftl.nand().counters;
        assert!(c.gc_victims > 0, "{combo:?}: GC never ran");
        if combo.schedule.as_deref() == Some("femu") {
            assert!(c.gc_background_rounds > 0, "{combo:?}: femu never collected in the background");
        }
        assert_eq!(nand.programs, c.host_writes + c.gc_copies, "{combo:?}: programs = host writes + GC copies");
        assert!(nand.programs as f64 / c.host_writes as f64 > 1.0);
    }
}

#[test]
fn greedy_beats_fifo_on_skewed_overwrites() {
    let waf = |g: &str| {
        let mut dev = device(&page(g, GcUnit::Block));
        let n = dev.logical_pages();
        let mut x = 99u64;
        for i in 0..40 * n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // 80% of writes on 20% of the space.
            let hot = (x >> 60) < 13;
            let lpn = if hot { (x >> 20) % (n / 5) } else { (x >> 20) % n };
            dev.write(Lpn(if i < n { i } else { lpn }), Nanos::ZERO).unwrap();
        }
        let c = dev.ftl.counters();
        dev.ftl.nand().counters.programs as f64 / c.host_writes as f64
    };
    let (greedy, fifo) = (waf("greedy"), waf("fifo"));
    assert!(greedy < fifo, "greedy WAF {greedy} should beat FIFO {fifo} on skewed writes");
}

#[test]
fn block_unit_gc_moves_are_copybacks_and_line_unit_moves_cross_planes() {
    let run = |unit| {
        let mut dev = device(&page("greedy", unit));
        let n = dev.logical_pages();
        let mut x = 7u64;
        for _ in 0..10 * n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            dev.write(Lpn((x >> 33) % n), Nanos::ZERO).unwrap();
        }
        let c = dev.ftl.nand().counters;
        assert!(dev.ftl.counters().gc_copies > 0, "{unit:?}: GC moved no page");
        c
    };
    let b = run(GcUnit::Block);
    assert!(b.copybacks > 0 && b.reads == 0, "block unit: every GC move stays in its plane: {b:?}");
    let l = run(GcUnit::Line);
    assert!(l.reads > 0, "line unit: some GC moves change plane: {l:?}");
}

/// GC moves pages only along the policy's declared flows: 2R N→C and C→C; 2R++ 00→01, 01→10
/// and 10→10 (a page reaches the cold region only through the second-chance 01 region).
#[test]
fn two_region_policies_move_pages_only_along_their_flows() {
    for (gc, allowed) in
        [("2r", vec![("N", "C"), ("C", "C")]), ("2r++", vec![("00", "01"), ("01", "10"), ("10", "10")])]
    {
        let mut dev = device(&page(gc, GcUnit::Line));
        let n = dev.logical_pages();
        let mut x = 5u64;
        for i in 0..30 * n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // 90% of writes on 10% of the pages, after a full first pass.
            let lpn = if i < n {
                i
            } else if (x >> 60) < 14 {
                (x >> 20) % (n / 10)
            } else {
                (x >> 20) % n
            };
            dev.write(Lpn(lpn), Nanos::ZERO).unwrap();
        }
        dev.verify_all().unwrap();
        let report = dev.ftl.gc_report();
        let moved: u64 = report.flows.iter().map(|f| f.pages).sum();
        assert_eq!(moved, dev.ftl.counters().gc_copies, "{gc}: every GC copy is on some flow");
        for f in &report.flows {
            assert!(allowed.contains(&(f.from.as_str(), f.to.as_str())), "{gc}: unexpected flow {}→{}", f.from, f.to);
            assert!(f.pages > 0, "{gc}: flow {}→{} never used", f.from, f.to);
        }
        let into_cold = report
            .flows
            .iter()
            .find(|f| f.from == allowed[allowed.len() - 2].0 && f.to == allowed[allowed.len() - 2].1)
            .unwrap()
            .pages;
        assert_eq!(report.moved_into_cold, into_cold, "{gc}: pages moved into cold = the flow into the cold stream");
        assert!(report.returned > 0 && report.returned <= report.moved_into_cold);
    }
}
