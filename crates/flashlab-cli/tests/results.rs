//! Simulated results do not move when the simulator gets faster: `results.json` and
//! `series.csv` of the benchmark presets and of small runs of every mapping, GC policy, GC
//! schedule and buffer are compared with committed snapshots (`tests/snapshots/runs/`),
//! wall-clock figures left out. A change that is meant to alter results (a model fix) updates
//! them with `UPDATE_SNAPSHOTS=1` in the same commit and says why.

use std::process::Command;

mod common;
use common::repo;

/// The registry names `flashlab list` prints under the heading that starts with `heading`.
fn listed(heading: &str) -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_flashlab")).arg("list").output().expect("run flashlab list");
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            inside = line.starts_with(heading);
        } else if inside {
            names.push(line.split_whitespace().next().unwrap().to_string());
        }
    }
    assert!(!names.is_empty(), "`flashlab list` has no `{heading}` section");
    names
}

/// A small device (1.75 GiB of 2.25 GiB, 64 planes of 36 blocks) with the bench workload:
/// every page-mapped run collects garbage from the start.
const SMALL: &[&str] = &[
    "device.blocks_per_plane=36",
    "device.logical_capacity=\"1792MiB\"",
    "workload.volume_ratio=2.0",
    "sim.intervals=16",
];

/// Run `preset` with `sets`; compare (or write) its snapshot `name`.
fn check(name: &str, preset: &str, sets: &[&str]) {
    let out = std::env::temp_dir().join(format!("flashlab-results-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flashlab"));
    cmd.args(["run", preset, "--quiet", "--out"]).arg(&out).current_dir(repo());
    for s in sets {
        cmd.args(["--set", s]);
    }
    let o = cmd.output().expect("run flashlab");
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    for k in ["wall_s", "precondition_wall_s", "host_pages_per_s"] {
        v["sim"][k] = serde_json::Value::Null;
    }
    let json = serde_json::to_string_pretty(&v).unwrap() + "\n";
    let csv = std::fs::read_to_string(out.join("series.csv")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let dir = repo().join("crates/flashlab-cli/tests/snapshots/runs").join(name);
    if std::env::var("UPDATE_SNAPSHOTS").is_ok() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("results.json"), &json).unwrap();
        std::fs::write(dir.join("series.csv"), &csv).unwrap();
        return;
    }
    for (file, actual) in [("results.json", &json), ("series.csv", &csv)] {
        let path = dir.join(file);
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("missing snapshot {}: run with UPDATE_SNAPSHOTS=1", path.display()));
        if let Some((i, (e, a))) = expected.lines().zip(actual.lines()).enumerate().find(|(_, (e, a))| e != a) {
            panic!(
                "{name}/{file} differs from the snapshot at line {}:\n  expected: {e}\n  actual:   {a}\n(UPDATE_SNAPSHOTS=1 to accept a change that is meant)",
                i + 1
            );
        }
        assert_eq!(expected.lines().count(), actual.lines().count(), "{name}/{file}: line count differs");
    }
}

#[test]
fn bench_accounting_results_are_unchanged() {
    check("bench-accounting", "bench-accounting", &[]);
}

#[test]
fn bench_timing_results_are_unchanged() {
    check("bench-timing", "bench-timing", &[]);
}

#[test]
fn every_gc_policy_gives_unchanged_results() {
    for gc in listed("GC policies") {
        let set = format!("ftl.gc=\"{gc}\"");
        check(&format!("gc-{gc}"), "bench-accounting", &[SMALL, &[&set]].concat());
        let line = [SMALL, &[&set, "ftl.gc_unit=\"line\"", "device.blocks_per_plane=36"]].concat();
        check(&format!("gc-{gc}-line"), "bench-accounting", &line);
    }
}

#[test]
fn every_gc_schedule_gives_unchanged_results() {
    for schedule in listed("GC schedules") {
        let set = format!("ftl.gc_schedule=\"{schedule}\"");
        check(&format!("schedule-{schedule}"), "bench-accounting", &[SMALL, &[&set]].concat());
        let timed = [SMALL, &[&set, "sim.mode=\"timing\"", "workload.volume_ratio=0.5"]].concat();
        check(&format!("schedule-{schedule}-timing"), "bench-timing", &timed);
    }
}

#[test]
fn every_mapping_gives_unchanged_results() {
    for mapping in listed("mapping schemes") {
        let set = format!("ftl.mapping=\"{mapping}\"");
        let mut sets = vec![
            "device.blocks_per_plane=16",
            "device.logical_capacity=\"768MiB\"",
            "workload.volume_ratio=0.5",
            "workload.read_share=0.3",
            "sim.intervals=16",
            &set,
        ];
        if mapping == "zns" {
            // Zones are written by the host's log, a line (superblock) each: zones of one block
            // per plane would keep 64 open, over the device's 14.
            sets.extend(["host.layer=\"log\"", "ftl.gc_unit=\"line\""]);
        }
        if !matches!(mapping.as_str(), "page" | "dftl" | "wadpm") {
            sets.push("device.logical_capacity=\"512MiB\"");
        }
        check(&format!("mapping-{mapping}"), "bench-accounting", &sets);
    }
}

#[test]
fn every_buffer_gives_unchanged_results() {
    for buffer in listed("buffer policies") {
        let set = format!("buffer.policy=\"{buffer}\"");
        let mut sets = [SMALL, &[&set, "workload.read_share=0.3", "workload.volume_ratio=0.5"]].concat();
        if matches!(buffer.as_str(), "cbm" | "dwb") {
            sets.extend(["buffer.dram=\"16MiB\"", "buffer.nvram=\"16MiB\""]);
        } else if buffer != "none" {
            sets.push("buffer.dram=\"32MiB\"");
        }
        check(&format!("buffer-{buffer}"), "bench-accounting", &sets);
    }
}
