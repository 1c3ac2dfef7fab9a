//! What a command does to its output directory when something else is going on: a second
//! writer, a failing stdout, a signal, a file a rename cannot replace, and inputs that are not
//! files at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{flashlab, listing, repo, text};

#[path = "../../flashlab/tests/common/skip.rs"]
mod skip;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashlab-outputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A small, quick variant of the default preset.
const SMALL: &[&str] = &["--set", "workload.volume_ratio=1.0", "--set", "device.blocks_per_plane=64", "--quiet"];

/// A run of minutes (it is stopped long before it ends).
const LONG: &[&str] = &["--set", "workload.volume_ratio=1000", "--quiet"];

fn run(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["run", "default", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    flashlab(&args)
}

fn spawn(out: &Path, extra: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .current_dir(repo())
        .args(["run", "default", "--out", out.to_str().unwrap()])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait (up to a minute) until `path` exists.
fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &std::process::Child, sig: &str) {
    let kill = Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
}

/// Two writers into one directory: while one runs, a second (with or without `--force`, a run
/// or a reproduction) is refused at once naming the first one's pid, and the first one's files
/// are its own. Then SIGTERM, like Ctrl-C, stops the first and removes the directory it
/// created, lock file and all.
#[test]
fn a_second_writer_is_refused_and_sigterm_cleans_up_like_ctrl_c() {
    let out = tmp("two-writers").join("o");
    let first = spawn(&out, LONG);
    wait_for(&out.join(".flashlab-lock"));
    let holder = format!("another flashlab (pid {}) is writing into {}", first.id(), out.display());
    for extra in [SMALL, &[SMALL, &["--force"]].concat()] {
        let o = run(&out, extra);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(&holder), "{}", text(&o));
    }
    let o = flashlab(&["reproduce", "wadpm", "--quiet", "--force", "--out", out.to_str().unwrap()]);
    assert!(o.status.code() == Some(2) && text(&o).contains(&holder), "{}", text(&o));
    assert_eq!(listing(&out), [".flashlab-lock"], "the refused writers wrote nothing");

    signal(&first, "TERM");
    let o = first.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    assert!(text(&o).contains("interrupted: no output was written"), "{}", text(&o));
    assert!(!out.parent().unwrap().exists(), "the directories it created are gone");

    // SIGHUP (a closed terminal) the same.
    let first = spawn(&out, LONG);
    wait_for(&out.join(".flashlab-lock"));
    signal(&first, "HUP");
    let o = first.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    assert!(!out.parent().unwrap().exists());
}

/// Two `--force` runs started together never mix: the directory ends with both files from one
/// run (the other is refused, or comes strictly after).
#[test]
fn concurrent_forced_runs_never_mix_their_files() {
    let out = tmp("forced-pairs");
    assert!(run(&out, SMALL).status.success());
    for pair in 0..5 {
        let seeds = [format!("seed={}", 100 + 2 * pair), format!("seed={}", 101 + 2 * pair)];
        let children: Vec<_> = seeds.iter().map(|s| spawn(&out, &[SMALL, &["--force", "--set", s]].concat())).collect();
        let outcomes: Vec<_> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        assert!(outcomes.iter().any(|o| o.status.success()), "at least one of a pair writes");
        for o in outcomes.iter().filter(|o| !o.status.success()) {
            assert!(text(o).contains("is writing into"), "{}", text(o));
        }
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
        let seed = json["config"]["seed"].as_u64().unwrap();
        // series.csv has no seed: it must be byte for byte what that seed's run writes.
        let alone = tmp(&format!("forced-alone-{pair}"));
        assert!(run(&alone, &[SMALL, &["--set", &format!("seed={seed}")]].concat()).status.success());
        assert_eq!(
            std::fs::read(out.join("series.csv")).unwrap(),
            std::fs::read(alone.join("series.csv")).unwrap(),
            "pair {pair}: series.csv is from the run whose results.json is there"
        );
        assert_eq!(listing(&out), ["results.json", "series.csv"]);
    }
}

/// A summary that cannot be printed (stdout on a full disk) fails the command before the files
/// are replaced, and says so.
#[test]
fn a_failing_stdout_leaves_the_earlier_files() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        skip::skipped("a_failing_stdout_leaves_the_earlier_files", "no /dev/full here to fail stdout with");
        return;
    };
    let out = tmp("dev-full");
    assert!(run(&out, SMALL).status.success());
    let before = std::fs::read(out.join("results.json")).unwrap();
    for json in [true, false] {
        let mut args = vec!["run", "default", "--force", "--out", out.to_str().unwrap(), "--set", "seed=9"];
        args.extend_from_slice(SMALL);
        if json {
            args.push("--json");
        }
        let o = Command::new(env!("CARGO_BIN_EXE_flashlab"))
            .current_dir(repo())
            .args(&args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let t = text(&o);
        assert!(t.contains("writing the summary to stdout") && t.contains("no output was written"), "{t}");
        assert_eq!(std::fs::read(out.join("results.json")).unwrap(), before);
        assert_eq!(listing(&out), ["results.json", "series.csv"]);
    }
}

/// The audit's reproducer: a directory where series.csv goes. The rerun with `--force` fails
/// before replacing anything, and results.json is still the first run's.
#[test]
fn a_file_that_cannot_be_replaced_leaves_every_file_as_it_was() {
    let out = tmp("unreplaceable");
    assert!(run(&out, SMALL).status.success());
    let before = std::fs::read(out.join("results.json")).unwrap();
    std::fs::remove_file(out.join("series.csv")).unwrap();
    std::fs::create_dir(out.join("series.csv")).unwrap();
    let o = run(&out, &[SMALL, &["--force", "--set", "seed=9"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("series.csv is a directory") && text(&o).contains("nothing was replaced"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read(out.join("results.json")).unwrap(), before);
    assert_eq!(listing(&out), ["results.json", "series.csv"]);
}

/// A device, a directory or an oversized file given as a config or a results file is refused
/// at once, naming it, without reading it (`/dev/zero` once grew to 4 GB in 5 s).
#[test]
fn inputs_that_are_not_regular_files_are_refused_at_once() {
    let dir = tmp("not-files");
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.toml");
    std::fs::File::create(&big).unwrap().set_len(65 << 20).unwrap();
    let d = dir.to_str().unwrap();
    let mut cases = vec![
        vec!["run", d, "--dry-run"],
        vec!["run", big.to_str().unwrap(), "--dry-run"],
        vec!["plot", d],
        vec!["compare", d, d],
    ];
    if Path::new("/dev/zero").exists() {
        cases.extend([
            vec!["run", "/dev/zero", "--dry-run"],
            vec!["plot", "/dev/zero"],
            vec!["compare", "/dev/zero", "/dev/zero"],
        ]);
    }
    for args in cases {
        let start = Instant::now();
        let o = flashlab(&args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(args[1]) && (t.contains("not a regular file") || t.contains("byte limit")), "{args:?}: {t}");
        assert!(start.elapsed() < Duration::from_secs(30), "{args:?} took {:?}", start.elapsed());
    }
}
