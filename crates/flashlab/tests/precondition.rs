//! A run from a shared preconditioned flash (`sim::PreconditionPool`, `sim::run_from`) gives
//! exactly the results of a run that preconditions itself, for every registered mapping scheme
//! and GC policy, in both modes, with and without version tags: the copy of the FTL carries all
//! of its state.

use flashlab::config::Config;
use flashlab::ftl::{self, gc};
use flashlab::results::Results;
use flashlab::sim::{self, PreconditionPool, Quiet};

/// A small device, filled and half overwritten, then a skewed workload through a buffer.
const BASE: &str = r#"
seed = 7
[device]
channels = 2
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 16
page_size = "4KiB"
over_provisioning = 0.15
[ftl]
mapping = "page"
gc = "greedy"
[buffer]
policy = "lru"
dram = "64KiB"
[workload]
kind = "zipf"
theta = 0.9
read_share = 0.3
request_size = "4KiB"
volume_ratio = 1.5
[precondition]
fill = true
overwrite = 0.5
"#;

fn config(sets: &[String]) -> Config {
    Config::from_toml_str(BASE, "precondition test", sets).expect("valid test config")
}

/// Results as JSON without the wall-clock fields (the only ones allowed to differ).
fn comparable(r: &Results) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("results serialize");
    let sim = v["sim"].as_object_mut().expect("sim section");
    for k in ["wall_s", "precondition_wall_s", "host_pages_per_s"] {
        assert!(sim.remove(k).is_some(), "results.sim has {k}");
    }
    v
}

fn combos() -> Vec<Vec<String>> {
    let mut v = Vec::new();
    for m in ftl::mapping_names() {
        let hybrid = !ftl::mapping(m).unwrap().gc_policy;
        let gcs = if hybrid { vec![""] } else { gc::names() };
        for g in gcs {
            for mode in ["accounting", "timing"] {
                for verify in [false, true] {
                    v.push(vec![
                        format!("ftl.mapping=\"{m}\""),
                        if hybrid { "ftl.gc=".into() } else { format!("ftl.gc=\"{g}\"") },
                        format!("sim.mode=\"{mode}\""),
                        format!("sim.verify={verify}"),
                    ]);
                }
            }
        }
    }
    v
}

#[test]
fn a_run_from_a_shared_preconditioned_flash_equals_a_run_that_preconditions() {
    for sets in combos() {
        let cfg = config(&sets);
        let alone = sim::run(&cfg, &mut Quiet).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
        let state = sim::preconditioned(&cfg, &mut Quiet).expect("preconditions");
        // Twice from the same state: a run must not change the state it started from.
        for _ in 0..2 {
            let from = sim::run_from(&cfg, &state, &mut Quiet).expect("runs from the state");
            assert_eq!(comparable(&alone), comparable(&from), "{sets:?}");
        }
        assert!(alone.flash.erases > 0 || alone.ftl.gc_copies > 0 || sets[0].contains("block"), "{sets:?}: GC ran");
    }
}

#[test]
fn the_pool_shares_one_state_across_buffers_and_keeps_results() {
    let mut cfgs = Vec::new();
    for b in ["none", "lru", "fab", "dwb"] {
        let mut sets = vec![format!("buffer.policy=\"{b}\"")];
        if b == "none" {
            sets.push("buffer.dram=0".into());
        }
        if b == "dwb" {
            sets.push("buffer.nvram=\"8KiB\"".into());
        }
        cfgs.push(config(&sets));
    }
    // Another seed preconditions another flash: not shared with the rest.
    cfgs.push(config(&["seed=8".into()]));
    let pool = PreconditionPool::new(&cfgs);
    for cfg in &cfgs {
        let pooled = pool.run(cfg, &mut Quiet).expect("pooled run");
        let alone = sim::run(cfg, &mut Quiet).expect("plain run");
        assert_eq!(comparable(&pooled), comparable(&alone), "{}", cfg.buffer.policy);
    }
}

#[test]
fn a_state_from_another_flash_is_refused() {
    let state = sim::preconditioned(&config(&[]), &mut Quiet).expect("preconditions");
    for other in ["seed=8", "precondition.overwrite=0.25", "ftl.gc=\"fifo\"", "device.blocks_per_plane=80"] {
        let e = sim::run_from(&config(&[other.into()]), &state, &mut Quiet).expect_err(other);
        assert!(e.to_string().contains("precondition"), "{other}: {e}");
    }
    // A different buffer or workload is the point of sharing: accepted.
    for same in ["buffer.policy=\"fab\"", "workload.theta=0.5"] {
        sim::run_from(&config(&[same.into()]), &state, &mut Quiet).expect(same);
    }
    let none = config(&["precondition.fill=false".into(), "precondition.overwrite=0".into()]);
    assert!(sim::precondition_key(&none).is_none());
    assert!(sim::preconditioned(&none, &mut Quiet).is_err());
}
