//! The CLI as a user runs it: exit codes, files written, the keys results.json promises
//! (SPEC §4), determinism of a whole run, and errors for bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn flashlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run flashlab")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashlab-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A small, quick variant of the default preset.
const SMALL: &[&str] = &["--set", "workload.volume_ratio=1.0", "--set", "device.blocks_per_plane=64", "--quiet"];

fn run_small(out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["run", "configs/default.toml", "--out", out.to_str().unwrap()];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(extra);
    let o = flashlab(&args);
    assert!(o.status.success(), "flashlab run failed: {}", text(&o));
    let json = std::fs::read_to_string(out.join("results.json")).expect("results.json written");
    serde_json::from_str(&json).expect("results.json is JSON")
}

fn get<'a>(v: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    path.split('.').fold(v, |v, k| &v[k])
}

#[test]
fn run_writes_results_with_the_promised_keys() {
    let out = tmp("keys");
    let v = run_small(&out, &[]);
    for key in [
        "host.read_pages", "host.write_pages", "flash.reads", "flash.programs", "flash.erases", "flash.copybacks", "waf",
        "wear.erase_max", "sim.wall_s", "sim.host_pages_per_s", "mapping.hit_ratio", "latency_us.read.p99",
        "latency_us.write.mean", "latency_us.write.p50", "latency_us.read.max", "throughput_mb_s", "config.ftl.gc",
    ] {
        assert!(!get(&v, key).is_null(), "results.json lacks `{key}`");
    }
    assert!(get(&v, "buffer").get("hit_ratio").is_some());
    let waf = get(&v, "waf").as_f64().unwrap();
    assert!(waf > 1.0 && waf < 10.0, "zipf 0.9 on a full device with 10% OP: WAF {waf}");
    let writes = get(&v, "host.write_pages").as_u64().unwrap();
    let reads = get(&v, "host.read_pages").as_u64().unwrap();
    let share = reads as f64 / (reads + writes) as f64;
    assert!((share - 0.3).abs() < 0.02, "read share {share}");
    let csv = std::fs::read_to_string(out.join("series.csv")).unwrap();
    assert!(csv.starts_with("interval,host_writes,running_waf"));
    assert!(csv.lines().count() > 10, "at least 10 intervals");
    assert!(v["series"].as_array().unwrap().len() >= 10);
}

/// Everything but wall-clock figures is identical for the same config and seed.
#[test]
fn same_config_and_seed_give_identical_results() {
    let strip = |mut v: serde_json::Value| {
        for k in ["wall_s", "precondition_wall_s", "host_pages_per_s"] {
            v["sim"][k] = serde_json::Value::Null;
        }
        v
    };
    let a = strip(run_small(&tmp("det-a"), &[]));
    let b = strip(run_small(&tmp("det-b"), &[]));
    assert_eq!(a, b);
    let c = strip(run_small(&tmp("det-c"), &["--set", "seed=7"]));
    assert_ne!(a["flash"], c["flash"], "another seed should change the run");
}

#[test]
fn every_gc_policy_runs_from_the_cli() {
    for gc in ["greedy", "cost-benefit", "fifo"] {
        let v = run_small(&tmp(&format!("gc-{gc}")), &["--set", &format!("ftl.gc=\"{gc}\""), "--set", "sim.mode=\"accounting\""]);
        assert_eq!(v["config"]["ftl"]["gc"], gc);
        assert!(v["waf"].as_f64().unwrap() >= 1.0);
        assert!(v["latency_us"].is_null(), "accounting mode reports no latency");
    }
}

#[test]
fn bad_input_exits_non_zero_with_a_clear_message() {
    let o = flashlab(&["run", "configs/default.toml", "--set", "ftl.gc=\"greedyy\"", "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let t = text(&o);
    assert!(t.contains("unknown GC policy `greedyy`") && t.contains("cost-benefit"), "{t}");
    let o = flashlab(&["run", "no/such/config.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("no/such/config.toml"));
    assert!(!text(&o).contains("panicked"));
}

#[test]
fn list_names_every_registry() {
    let o = flashlab(&["list"]);
    assert!(o.status.success());
    let t = text(&o);
    for needle in ["greedy", "cost-benefit", "fifo", "page", "passthrough", "zipf", "msr", "default", "femu-8gb"] {
        assert!(t.contains(needle), "`flashlab list` lacks {needle}");
    }
}
