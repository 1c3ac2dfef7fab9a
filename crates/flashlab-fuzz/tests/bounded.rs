//! The bounded fuzz run of the test command: 20,000 seeded cases per target, run by the
//! harness binary in child processes (so an abort is reported, not fatal to the test run).
//! Deterministic: the same cases every time. The long run is the same command with more cases
//! (README, "Testing").

use std::process::Command;

/// Cases per target in the test command.
const CASES: u64 = 20_000;

fn fuzz(target: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_flashlab-fuzz"))
        .args(["--target", target, "--cases", &CASES.to_string(), "--jobs", "1"])
        .output()
        .expect("the harness binary runs");
    let report = String::from_utf8_lossy(&out.stdout);
    println!("{report}");
    assert!(
        out.status.success(),
        "{target}: panics, aborts or unlocated errors:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_trace_format() {
    fuzz("trace");
}

#[test]
fn configs() {
    fuzz("config");
}

#[test]
fn every_format_has_a_sample() {
    assert_eq!(flashlab_fuzz::traces::formats_without_samples(), Vec::<&str>::new());
}

#[test]
fn cases_are_deterministic() {
    for t in flashlab_fuzz::Target::all() {
        for i in [0, 1, 999] {
            assert_eq!(t.case(7, i).reproducer(), t.case(7, i).reproducer(), "{}", t.name());
        }
    }
}
