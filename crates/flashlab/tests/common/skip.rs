//! Skipped checks, made visible: libtest has no runtime "skipped" status, so a check that cannot
//! run here (a tool not installed, `../shared` absent) says so on stderr and appends one line to
//! the skip log, which `scripts/test` prints as a `SKIPPED` summary after the runs. The log is
//! `$FLASHLAB_SKIP_LOG`, else `skipped-checks.log` in Cargo's test temp directory
//! (`target/tmp/`; for a unit test of the library, the workspace's `target/tmp/`). Shared by every crate's tests (`#[path]`-included outside this one).
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// Where skips are recorded.
pub fn log_path() -> PathBuf {
    std::env::var_os("FLASHLAB_SKIP_LOG").map(PathBuf::from).unwrap_or_else(|| {
        // Integration tests have Cargo's test temp directory; a unit test including this file
        // (`#[path]` from `src/`) does not, and uses the workspace's `target/tmp`.
        let tmp = option_env!("CARGO_TARGET_TMPDIR").map(PathBuf::from);
        tmp.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/tmp"))
            .join("skipped-checks.log")
    })
}

/// Record that `check` was skipped and why (`how`: what to install or provide to run it).
pub fn skipped(check: &str, how: &str) {
    skipped_to(&log_path(), check, how);
}

/// [`skipped`], into the log at `path`.
pub fn skipped_to(path: &std::path::Path, check: &str, how: &str) {
    let line = format!("SKIPPED {check}: {how}");
    eprintln!("{line}");
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // One short append per line: concurrent tests do not interleave within a line.
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
    if let Err(e) = appended {
        eprintln!("(could not record the skip in {}: {e})", path.display());
    }
}
