//! Accounting's fast path (`Device::write_untimed`, `Ftl::write_untimed`): a closed-loop run of
//! one-page writes without a buffer gives exactly the results of the same run served request
//! by request, for every mapping scheme × GC policy × GC schedule of the registries, with a
//! series sample due every few requests (so runs end inside a batch) and with the `femu`
//! schedule's background rounds after each request. The page-by-page run is forced with the
//! verify oracle, which a write-only workload never consults.
//!
//! The fast path is taken where it should be (page mapping with its resident table, no buffer,
//! no oracle, no check mode) and refused, changing nothing, elsewhere.

#[path = "common/results.rs"]
mod results;

use flashlab::config::Config;
use flashlab::ftl::{self, gc, schedule};
use flashlab::results::Results;
use flashlab::sim::{self, Quiet};
use flashlab::units::{Lpn, Nanos};

/// A small device, filled and half overwritten, then skewed one-page writes without a buffer.
const BASE: &str = r#"
seed = 3
[device]
channels = 2
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 48
pages_per_block = 16
page_size = "4KiB"
over_provisioning = 0.3
[ftl]
mapping = "page"
gc = "greedy"
[workload]
kind = "zipf"
theta = 0.9
request_size = "4KiB"
volume_ratio = 2.0
[precondition]
fill = true
overwrite = 0.5
[sim]
mode = "accounting"
interval_writes = 7
"#;

fn config(sets: &[String]) -> Config {
    Config::from_toml_str(BASE, "fast path test", sets).expect("valid test config")
}

/// Results as JSON without the wall-clock fields and the config's `sim.verify` (the only
/// ones allowed to differ).
fn comparable(r: &Results) -> serde_json::Value {
    let mut v = results::without_wall_clock(r);
    let cfg = v["config"]["sim"].as_object_mut().expect("config.sim section");
    assert!(cfg.remove("verify").is_some(), "results.config.sim has verify");
    v
}

/// The top-level keys of two results that differ (a short failure message).
fn differing(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    let (a, b) = (a.as_object().expect("an object"), b.as_object().expect("an object"));
    let only_b = b.keys().filter(|k| !a.contains_key(*k));
    a.keys().filter(|k| a.get(*k) != b.get(*k)).chain(only_b).cloned().collect()
}

/// Every mapping × GC policy × GC schedule. The log-block schemes take no GC policy or
/// schedule.
fn combos() -> Vec<Vec<String>> {
    let mut v = Vec::new();
    for m in conventional_mappings() {
        let hybrid = !ftl::mapping(m).unwrap().caps.gc_policy;
        let gcs = if hybrid { vec![""] } else { gc::names() };
        let schedules: Vec<&str> = if hybrid { vec![""] } else { schedule::names() };
        for g in &gcs {
            for s in &schedules {
                let mut sets = vec![format!("ftl.mapping=\"{m}\"")];
                if hybrid {
                    sets.push("ftl.gc=".into());
                } else {
                    sets.push(format!("ftl.gc=\"{g}\""));
                    sets.push(format!("ftl.gc_schedule=\"{s}\""));
                }
                v.push(sets);
            }
        }
    }
    v
}

#[test]
fn the_fast_path_gives_the_results_of_the_request_by_request_path() {
    let (mut fast, mut failed, mut background) = (0, 0, 0);
    let combos = combos();
    for sets in &combos {
        let cfg = config(sets);
        let r = cfg.resolve().expect("resolves");
        // Whether this FTL takes the fast path: asked of a fresh device (one page, then the
        // device is dropped). A device this small cannot hold every combination's reserve:
        // those fail to build here and below.
        if let Ok(mut dev) = sim::build_device(&cfg, &r) {
            let takes = dev.write_untimed(&[0], 1, Nanos(0)).expect("a page on a fresh device");
            let page_resident = sets[0] == "ftl.mapping=\"page\"";
            assert_eq!(takes, page_resident, "{sets:?}: the fast path is the page mapping's (resident table) only");
            fast += takes as usize;
        }

        let mut slow_sets = sets.to_vec();
        slow_sets.push("sim.verify=true".into());
        let (plain, slow) = match (sim::run(&cfg, &mut Quiet), sim::run(&config(&slow_sets), &mut Quiet)) {
            (Ok(p), Ok(s)) => (p, s),
            // A combination this small device cannot run fails the same way on both paths.
            (Err(p), Err(s)) => {
                assert_eq!(p.to_string(), s.to_string(), "{sets:?}");
                failed += 1;
                continue;
            }
            (p, s) => panic!("{sets:?}: {:?} against {:?}", p.err(), s.err()),
        };
        background += plain.ftl.gc_background_rounds;
        assert!(plain.flash.erases > 0, "{sets:?}: GC ran");
        assert!(plain.series.len() > 20, "{sets:?}: samples are due inside batches");
        assert_eq!(slow.sim.verified_reads, 0, "{slow_sets:?}: a write-only run reads nothing back");
        let (plain, slow) = (comparable(&plain), comparable(&slow));
        assert!(plain == slow, "{sets:?}: {:?} differ", differing(&plain, &slow));
    }
    assert!(fast >= gc::names().len() * schedule::names().len(), "page × every policy × schedule took it");
    assert!(failed * 4 < combos.len(), "{failed} of {} combinations failed", combos.len());
    assert!(background > 0, "background rounds ran after requests");
}

#[test]
fn the_fast_path_is_refused_changing_nothing_where_it_does_not_apply() {
    for (sets, why) in [
        (vec!["sim.verify=true".to_string()], "the verify oracle"),
        (vec!["sim.check=true".to_string()], "check mode"),
        (vec!["buffer.policy=\"lru\"".into(), "buffer.dram=\"64KiB\"".into()], "a buffer that holds pages"),
        (vec!["sim.mode=\"timing\"".into()], "a timeline"),
        (vec!["ftl.mapping=\"dftl\"".into()], "lookups that keep state"),
    ] {
        let cfg = config(&sets);
        let r = cfg.resolve().expect("resolves");
        let mut dev = sim::build_device(&cfg, &r).expect("builds");
        assert!(!dev.write_untimed(&[0, 1], 2, Nanos(0)).expect("no error"), "{why}");
        assert_eq!(dev.writes(), 0, "{why}: nothing written");
        assert_eq!(dev.ftl.host_writes(), 0, "{why}: nothing written");
        assert!(dev.ftl.mapped_ppn(Lpn(0)).is_none(), "{why}: nothing mapped");
    }
    // A page beyond the logical capacity is the host layer's to wrap or refuse.
    let cfg = config(&[]);
    let mut dev = sim::build_device(&cfg, &cfg.resolve().unwrap()).expect("builds");
    let beyond = dev.logical_pages();
    assert!(!dev.write_untimed(&[0, beyond], 2, Nanos(0)).expect("no error"));
    assert_eq!(dev.ftl.host_writes(), 0);
    // And the plain device takes it: two pages written, the third a hint (beyond the capacity
    // even: a hint is never written).
    assert!(dev.write_untimed(&[5, 9, beyond], 2, Nanos(0)).expect("writes"));
    assert_eq!((dev.writes(), dev.ftl.host_writes()), (2, 2));
    assert!(dev.ftl.mapped_ppn(Lpn(5)).is_some() && dev.ftl.mapped_ppn(Lpn(9)).is_some());
}

/// The `femu` schedule's background check after every request skips the pools whose outcome
/// cannot have changed (settled: their free and gate counts unchanged since). Check mode
/// re-derives every settled pool's outcome after every page operation (`Ftl::validate`), and
/// the results equal those of the run without check mode, for every mapping × GC policy that
/// takes a schedule, at two background minimums (FEMU's 1/8 and a stricter 0.3).
#[test]
fn settled_background_checks_are_what_checking_again_would_find() {
    let mut declined = 0;
    for m in conventional_mappings() {
        if !ftl::mapping(m).unwrap().caps.gc_policy {
            continue;
        }
        for g in gc::names() {
            for min_invalid in ["0.125", "0.3"] {
                let sets = vec![
                    format!("ftl.mapping=\"{m}\""),
                    format!("ftl.gc=\"{g}\""),
                    "ftl.gc_schedule=\"femu\"".to_string(),
                    format!("ftl.gc_schedule_params.min_invalid={min_invalid}"),
                    "workload.volume_ratio=0.5".into(),
                ];
                let plain = sim::run(&config(&sets), &mut Quiet).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
                let mut checked_sets = sets.clone();
                checked_sets.push("sim.check=true".into());
                let checked =
                    sim::run(&config(&checked_sets), &mut Quiet).unwrap_or_else(|e| panic!("{checked_sets:?}: {e}"));
                let (mut a, mut b) = (results::without_wall_clock(&plain), results::without_wall_clock(&checked));
                a["config"]["sim"].as_object_mut().unwrap().remove("check");
                b["config"]["sim"].as_object_mut().unwrap().remove("check");
                assert!(a == b, "{sets:?}: {:?} differ", differing(&a, &b));
                declined += plain.ftl.gc_declined_rounds;
                assert!(plain.ftl.gc_background_rounds > 0, "{sets:?}: background rounds ran");
            }
        }
    }
    assert!(declined > 0, "some background rounds were declined");
}

/// Every mapping scheme but the zoned device, which takes its writes through the host's log
/// (`tests/zns.rs`): it has no device-level fast path or shared preconditioned flash.
fn conventional_mappings() -> Vec<&'static str> {
    ftl::mapping_names().into_iter().filter(|&m| m != "zns").collect()
}
