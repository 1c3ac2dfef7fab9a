//! Targets that run the `flashlab` command itself, as separate processes, and check a property
//! of what it leaves behind rather than only the absence of a panic:
//! - `output`: two to four `flashlab run` writers into one output directory, started a few
//!   milliseconds apart, with or without `--force`, some stopped by SIGINT or SIGTERM. Afterwards
//!   every writer ended with success, a refusal naming the other writer or the earlier results,
//!   or the interrupt status; the directory holds no temporary, moved-aside or lock file; and its
//!   `results.json` and `series.csv` are both one run's (the seed in one, the other byte for byte
//!   that seed's series), or are still the files that were there before.
//! - `memory`: a random valid shape (geometry with up to 2^20 planes and 2^24 pages, every
//!   mapping, every buffer, the options that grow memory, accounting or closed-loop timing) run
//!   by `flashlab __peak-rss` in its own process: the peak resident set (Linux `VmHWM`) must not
//!   exceed the estimate the run was admitted with. Open-loop timing is left out: the bus
//!   transfers it books ahead when the device falls behind are the one documented exception
//!   (the summary says so when it happens).
//!
//! Both need the `flashlab` binary: `$FLASHLAB_BIN`, else the one beside this harness
//! (`target/<profile>/flashlab`, built by `cargo build -p flashlab-cli` or any workspace build).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rand::RngExt;

use crate::{Rng, Verdict};

/// The `flashlab` binary the process targets run, if there is one.
pub fn flashlab_bin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FLASHLAB_BIN") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    // Beside the harness, or (for a test binary in target/<profile>/deps) one level up.
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join(format!("flashlab{}", std::env::consts::EXE_SUFFIX)))
        .find(|p| p.is_file())
}

fn bin() -> Result<PathBuf, Verdict> {
    flashlab_bin().ok_or_else(|| {
        Verdict::Broken(
            "no flashlab binary: set FLASHLAB_BIN or build it (cargo build --release -p flashlab-cli)".into(),
        )
    })
}

/// A scratch path for one case, unique in this process.
fn scratch(what: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("flashlab-fuzz-{what}-{}-{n}", std::process::id()))
}

// ---------------------------------------------------------------------------------------------
// output

/// The run every writer makes (the default preset, small): a seed distinguishes them.
const WRITER_SETS: &[&str] = &["--set", "workload.volume_ratio=1.0", "--set", "device.blocks_per_plane=64", "--quiet"];

/// Seeds the writers draw from (each one's outputs are computed once, alone, to compare with).
const SEEDS: [u64; 3] = [11, 12, 13];

/// One writer of an `output` case.
#[derive(Clone, Debug)]
pub struct Writer {
    pub seed: u64,
    pub force: bool,
    /// Started this long after the previous writer.
    pub delay_ms: u64,
    /// Sent this signal this long after it started.
    pub signal: Option<(&'static str, u64)>,
}

/// An `output` case.
#[derive(Clone, Debug)]
pub struct OutputCase {
    /// Whether the directory already holds a run's results (the first of the seeds writers draw from, 11).
    pub earlier: bool,
    pub writers: Vec<Writer>,
}

pub fn generate_output(rng: &mut Rng) -> OutputCase {
    let n = rng.random_range(2..=4);
    let writers = (0..n)
        .map(|_| Writer {
            seed: SEEDS[rng.random_range(0..SEEDS.len())],
            force: rng.random_bool(0.7),
            delay_ms: [0, 0, 1, 5, 20, 60][rng.random_range(0..6)],
            signal: rng.random_bool(0.2).then(|| (["INT", "TERM"][rng.random_range(0..2)], rng.random_range(0..150))),
        })
        .collect();
    OutputCase { earlier: rng.random_bool(0.5), writers }
}

/// What one seed's run writes, alone: (results.json's seed, series.csv), computed once.
fn expected(bin: &Path, seed: u64) -> Result<Vec<u8>, String> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Vec<u8>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(csv) = cache.lock().map_err(|e| e.to_string())?.get(&seed) {
        return Ok(csv.clone());
    }
    let dir = scratch("alone");
    let o = writer_command(bin, &dir, seed, false).output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!("the run alone failed: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let csv = std::fs::read(dir.join("series.csv")).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    cache.lock().map_err(|e| e.to_string())?.insert(seed, csv.clone());
    Ok(csv)
}

fn writer_command(bin: &Path, dir: &Path, seed: u64, force: bool) -> Command {
    let mut c = Command::new(bin);
    c.args(["run", "default", "--out", dir.to_str().unwrap_or_default(), "--set", &format!("seed={seed}")]);
    c.args(WRITER_SETS);
    if force {
        c.arg("--force");
    }
    c.stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

impl OutputCase {
    pub fn reproducer(&self) -> String {
        let mut lines = vec![format!(
            "# writers into one directory{}; each: flashlab run default --out DIR --set seed=S {}",
            if self.earlier { " holding seed 11's results" } else { " (fresh)" },
            WRITER_SETS.join(" ")
        )];
        for w in &self.writers {
            lines.push(format!(
                "after {:>2} ms: seed {}{}{}",
                w.delay_ms,
                w.seed,
                if w.force { " --force" } else { "" },
                w.signal.map(|(s, ms)| format!(", SIG{s} after {ms} ms")).unwrap_or_default()
            ));
        }
        lines.join("\n")
    }

    pub fn run(&self) -> Verdict {
        match self.check() {
            Ok(()) => Verdict::Ok,
            Err(v) => v,
        }
    }

    fn check(&self) -> Result<(), Verdict> {
        let bin = bin()?;
        let broken = |m: String| Verdict::Broken(m);
        let dir = scratch("out");
        let before = if self.earlier {
            let o = writer_command(&bin, &dir, SEEDS[0], false).output().map_err(|e| broken(e.to_string()))?;
            if !o.status.success() {
                return Err(broken(format!("the first run failed: {}", String::from_utf8_lossy(&o.stderr))));
            }
            Some(read_pair(&dir).map_err(broken)?)
        } else {
            None
        };
        let mut started = Vec::new();
        for w in &self.writers {
            std::thread::sleep(Duration::from_millis(w.delay_ms));
            let child = writer_command(&bin, &dir, w.seed, w.force).spawn().map_err(|e| broken(e.to_string()))?;
            started.push((w, Instant::now(), child));
        }
        // Signals in the order they fall due.
        let mut due: Vec<(Instant, &'static str, u32)> = started
            .iter()
            .filter_map(|(w, at, c)| w.signal.map(|(s, ms)| (*at + Duration::from_millis(ms), s, c.id())))
            .collect();
        due.sort();
        for (at, sig, pid) in due {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            // The writer may be done already: then there is nothing to stop.
            let _ = Command::new("kill").args([format!("-{sig}"), pid.to_string()]).stderr(Stdio::null()).status();
        }
        // Seeds whose run may be in the directory: writers that succeeded, and writers stopped
        // by a signal (one that arrives during the renames takes effect after them: the files
        // are written, and the exit status is still 130).
        let mut succeeded = false;
        let mut may_have_written = Vec::new();
        for (w, _, child) in started {
            let o = child.wait_with_output().map_err(|e| broken(e.to_string()))?;
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            match o.status.code() {
                Some(0) => {
                    succeeded = true;
                    may_have_written.push(w.seed);
                }
                Some(2) if err.contains("is writing into") || err.contains("already holds results") => {}
                Some(130) if w.signal.is_some() => may_have_written.push(w.seed),
                // A signal that came before the handler was installed ends it by the signal.
                None if w.signal.is_some() => {}
                other => return Err(broken(format!("seed {} exited {other:?}: {err}", w.seed))),
            }
        }
        let outcome = if !dir.exists() {
            if before.is_some() || succeeded {
                Err(format!(
                    "the output directory is gone (earlier results: {}, a writer succeeded: {succeeded})",
                    before.is_some()
                ))
            } else {
                Ok(())
            }
        } else {
            check_dir(&bin, &dir, before, succeeded, &may_have_written)
        };
        let _ = std::fs::remove_dir_all(&dir);
        outcome.map_err(broken)
    }
}

/// The directory after every writer ended: exactly the two files, from one run that may have
/// written them (or still the earlier ones), and nothing else.
fn check_dir(
    bin: &Path,
    dir: &Path,
    before: Option<(u64, Vec<u8>)>,
    succeeded: bool,
    may_have_written: &[u64],
) -> Result<(), String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    names.sort();
    if names.is_empty() && before.is_none() && !succeeded {
        // A fresh directory whose writers were all stopped may stay, empty, when another
        // writer held it at that moment.
        return Ok(());
    }
    if names != ["results.json", "series.csv"] {
        return Err(format!("the directory holds {names:?}"));
    }
    let (seed, csv) = read_pair(dir)?;
    // Still the earlier files: right when nothing replaced them, or when the last writer ran
    // the same seed (identical files).
    if before.as_ref().is_some_and(|b| *b == (seed, csv.clone())) && (!succeeded || may_have_written.contains(&seed)) {
        return Ok(());
    }
    if !may_have_written.contains(&seed) {
        return Err(format!(
            "results.json has seed {seed}, from no writer that succeeded or was stopped (those: {may_have_written:?})"
        ));
    }
    if csv != expected(bin, seed)? {
        return Err(format!("results.json is seed {seed}'s, series.csv is not: the two files mix runs"));
    }
    Ok(())
}

/// results.json's seed and series.csv's bytes.
fn read_pair(dir: &Path) -> Result<(u64, Vec<u8>), String> {
    let json = std::fs::read_to_string(dir.join("results.json")).map_err(|e| format!("results.json: {e}"))?;
    let v: serde_json::Value = serde_json::from_str(&json).map_err(|e| format!("results.json: {e}"))?;
    let seed = v["config"]["seed"].as_u64().ok_or("results.json has no config.seed")?;
    let csv = std::fs::read(dir.join("series.csv")).map_err(|e| format!("series.csv: {e}"))?;
    Ok((seed, csv))
}

// ---------------------------------------------------------------------------------------------
// memory

/// Most physical pages of a `memory` case (16.8 M: a case takes a second or two and at most
/// about 1 GiB).
pub const MAX_PAGES: u64 = 1 << 24;
/// Most planes of a `memory` case: 2^20, where per-plane state (free lists, log blocks, open
/// segments) outweighs the estimate's 16 MiB allowance for the process itself, as the audit's
/// BAST shape did.
pub const MAX_PLANES: u64 = 1 << 20;

/// A `memory` case: a config, as TOML.
#[derive(Clone, Debug)]
pub struct MemoryCase {
    pub toml: String,
}

fn pick<T: Copy>(rng: &mut Rng, from: &[T]) -> T {
    from[rng.random_range(0..from.len())]
}

pub fn generate_memory(rng: &mut Rng) -> MemoryCase {
    let mut geo = [
        pick(rng, &[1u64, 2, 4, 8, 64, 1024, 16384, 65536, 65536]),
        pick(rng, &[1u64, 2, 4, 16]),
        pick(rng, &[1u64, 2]),
        pick(rng, &[1u64, 2, 4]),
        pick(rng, &[4u64, 8, 16, 64, 256, 1024, 4096]),
        pick(rng, &[1u64, 2, 4, 16, 64, 256]),
    ];
    // Shrink the largest of channels and blocks until the device fits the case's bounds.
    while geo[..4].iter().product::<u64>() > MAX_PLANES {
        geo[0] = (geo[0] / 2).max(1);
        geo[1] = if geo[0] == 1 { (geo[1] / 2).max(1) } else { geo[1] };
    }
    while geo.iter().product::<u64>() > MAX_PAGES {
        if geo[4] > 4 {
            geo[4] /= 2;
        } else if geo[5] > 1 {
            geo[5] /= 2;
        } else {
            geo[0] = (geo[0] / 2).max(1);
        }
    }
    let [channels, chips, dies, planes, blocks, pages] = geo;
    let mapping = pick(rng, &flashlab::ftl::MAPPINGS.iter().collect::<Vec<_>>());
    let buffers: Vec<&str> = flashlab::buffer::BUFFERS.names();
    let buffer = if rng.random_bool(0.5) { "none" } else { pick(rng, &buffers) };
    let op = pick(rng, &[0.07, 0.1, 0.28, 1.0, 3.0]);
    let page = pick(rng, &["4KiB", "4KiB", "8KiB", "16KiB"]);
    let volume = if mapping.caps.gc_policy { 0.02 } else { 0.0005 };
    let mut t = format!(
        "name = \"fuzz-memory\"\nseed = {}\n\n[device]\nchannels = {channels}\nchips_per_channel = {chips}\n\
         dies_per_chip = {dies}\nplanes_per_die = {planes}\nblocks_per_plane = {blocks}\npages_per_block = {pages}\n\
         page_size = \"{page}\"\nover_provisioning = {op}\n\n[ftl]\nmapping = \"{}\"\n\n[workload]\nkind = \"uniform\"\n\
         request_size = \"{page}\"\nvolume_ratio = {volume}\n\n[precondition]\nfill = {}\n\n[buffer]\npolicy = \"{buffer}\"\n",
        rng.random_range(0..1000u32),
        mapping.name,
        rng.random_bool(0.8),
    );
    if buffer != "none" {
        let size = pick(rng, &["1MiB", "16MiB", "64MiB"]);
        t.push_str(&format!("dram = \"{size}\"\n"));
        if matches!(buffer, "cbm" | "dwb") {
            t.push_str(&format!("nvram = \"{size}\"\n"));
        }
    }
    let mut sim = Vec::new();
    if rng.random_bool(0.3) {
        sim.push("mode = \"timing\"".to_string());
        t.push_str(&format!("\n[host]\narrival = \"closed\"\nqueue_depth = {}\n", pick(rng, &[1, 32, 4096])));
    } else {
        sim.push("mode = \"accounting\"".to_string());
    }
    for key in ["verify", "track_frozen", "reuse_distance"] {
        if rng.random_bool(0.2) {
            sim.push(format!("{key} = true"));
        }
    }
    if rng.random_bool(0.2) {
        sim.push(format!("intervals = {}", pick(rng, &[1000, 100000])));
    }
    t.push_str(&format!("\n[sim]\n{}\n", sim.join("\n")));
    MemoryCase { toml: t }
}

impl MemoryCase {
    pub fn run(&self) -> Verdict {
        let bin = match bin() {
            Ok(b) => b,
            Err(v) => return v,
        };
        let path = scratch("memory").with_extension("toml");
        if let Err(e) = std::fs::write(&path, &self.toml) {
            return Verdict::Broken(format!("{}: {e}", path.display()));
        }
        let o = Command::new(bin).args(["__peak-rss", path.to_str().unwrap_or_default()]).output();
        let _ = std::fs::remove_file(&path);
        let o = match o {
            Ok(o) => o,
            Err(e) => return Verdict::Broken(e.to_string()),
        };
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        match o.status.code() {
            Some(0) => {}
            // A shape the config refuses (too little spare space, a table too large): named.
            Some(2) if err.contains("invalid configuration") || err.contains("field `") => {
                return Verdict::Refused(err)
            }
            other => return Verdict::Broken(format!("exit {other:?}: {err}")),
        }
        let out = String::from_utf8_lossy(&o.stdout);
        let fields: Vec<u64> = out.split_whitespace().filter_map(|f| f.parse().ok()).collect();
        let [peak, _pages, estimate] = fields[..] else {
            // No /proc here: nothing to compare.
            return Verdict::Refused(format!("no peak measured: {out:?}"));
        };
        if peak > estimate {
            return Verdict::Broken(format!(
                "peak {peak} bytes resident above the estimate of {estimate} bytes (x{:.3})",
                estimate as f64 / peak as f64
            ));
        }
        Verdict::Ok
    }
}
