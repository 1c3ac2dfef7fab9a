//! The bounded fuzz run of the test command: 20,000 seeded cases per target, run by the
//! harness binary in child processes (so an abort is reported, not fatal to the test run).
//! Deterministic: the same cases every time. The long run is the same command with more cases
//! (README, "Testing").

use std::process::Command;

#[path = "../../flashlab/tests/common/skip.rs"]
mod skip;

/// Cases per target in the test command.
const CASES: u64 = 20_000;

/// Cases of the targets that run `flashlab` processes (about 0.1 s each).
const PROCESS_CASES: u64 = 60;

fn fuzz(target: &str) {
    fuzz_cases(target, CASES);
}

fn fuzz_cases(target: &str, cases: u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_flashlab-fuzz"))
        .args(["--target", target, "--cases", &cases.to_string(), "--jobs", "1"])
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

/// Concurrent writers into one output directory (issue 44): never a mixed or stranded file.
#[test]
fn concurrent_output() {
    if flashlab_fuzz::processes::flashlab_bin().is_none() {
        skip::skipped("concurrent_output fuzz target", "no flashlab binary beside the harness: build flashlab-cli");
        return;
    }
    fuzz_cases("output", PROCESS_CASES);
}

/// Random shapes over every mapping and buffer: the peak never exceeds the estimate.
#[test]
fn memory_bound() {
    if flashlab_fuzz::processes::flashlab_bin().is_none() {
        skip::skipped("memory_bound fuzz target", "no flashlab binary beside the harness: build flashlab-cli");
        return;
    }
    if !std::path::Path::new("/proc/self/status").exists() {
        skip::skipped("memory_bound fuzz target", "no /proc/self/status: peak RSS is read from Linux's VmHWM");
        return;
    }
    fuzz_cases("memory", PROCESS_CASES);
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
