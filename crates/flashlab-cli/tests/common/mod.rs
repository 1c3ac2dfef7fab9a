//! Helpers the CLI test binaries share: run the built `flashlab` from the repository root, and
//! read what it printed. Each test binary compiles this module on its own and uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the working directory of every run).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run the `flashlab` binary of this build with `args` from the repository root.
pub fn flashlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashlab")).args(args).current_dir(repo()).output().expect("run flashlab")
}

/// Its standard output then standard error, as text.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The names in a directory, sorted (to see that no temporary or lock file was left behind).
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}
