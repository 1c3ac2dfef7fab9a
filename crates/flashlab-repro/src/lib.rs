//! Reproductions of published results, one file per paper, registered in [`REPRODUCTIONS`].
//!
//! A reproduction builds ordinary configurations (the paper's setup, at `paper` scale or scaled
//! down at `quick` scale), runs them through [`flashlab::sim::run`] like any user run, and returns
//! its figures as JSON rows, a Markdown report with ours beside the paper's, and SVG plots. It
//! does no file I/O: the CLI writes `DIR/NAME/results.json`, `report.md` and the plots
//! ([`plot`]) and the combined `index.html` ([`html`]).
//!
//! The storage stack (`flashlab`) knows nothing of papers: the reproductions, their report, the
//! plots and the shared trace folder of paper-scale rows live here, on top of it and of the
//! host-side models they drive (the FAT file system, the OneNAND read path).

pub mod defrag;
pub mod dwb;
pub mod html;
pub mod plot;
pub mod two_r_pp;
pub mod verdict;
pub mod vsegment;
pub mod wadpm;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use flashlab::config::Config;
use flashlab::error::Error;
use flashlab::results::Results;

/// A full trace file a reproduction replays at paper scale: its path under the trace folder
/// (`../shared/traces` in the project), size and SHA-256, so a missing or different file is
/// named before anything runs.
#[derive(Clone, Copy, Debug)]
pub struct TraceFile {
    pub path: &'static str,
    pub bytes: u64,
    pub sha256: &'static str,
}

/// Where the rows that replay real traces find them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Traces {
    /// The full files, in this folder (checked by [`locate_traces`]: every needed file present,
    /// with its size and digest).
    Full(PathBuf),
    /// The built-in excerpts: always at quick scale; at paper scale only when asked for
    /// (`--excerpts`), and every output then says the run is not paper scale.
    Excerpts,
}

impl Traces {
    /// The full file `path` (relative to the trace folder), if the run replays full files.
    pub fn full(&self, path: &str) -> Option<PathBuf> {
        match self {
            Traces::Full(dir) => Some(dir.join(path)),
            Traces::Excerpts => None,
        }
    }
}

/// How a reproduction runs.
#[derive(Clone, Debug)]
pub struct Setup {
    pub scale: Scale,
    /// Simulations at once.
    pub threads: usize,
    pub traces: Traces,
}

impl Setup {
    /// Quick scale on the built-in excerpts (tests, previews).
    pub fn quick(threads: usize) -> Setup {
        Setup { scale: Scale::Quick, threads, traces: Traces::Excerpts }
    }

    /// Paper scale on excerpts: the numbers are not the paper-scale ones.
    pub fn not_paper_scale(&self) -> bool {
        self.scale == Scale::Paper && self.traces == Traces::Excerpts
    }
}

/// Where the full traces come from when `--traces` is not given: `FLASHLAB_TRACES`, else
/// `../shared/traces` relative to the working directory. Also says which it was.
pub fn default_traces_dir() -> (PathBuf, &'static str) {
    match std::env::var_os("FLASHLAB_TRACES") {
        Some(d) => (PathBuf::from(d), "FLASHLAB_TRACES"),
        None => (PathBuf::from("../shared/traces"), "../shared/traces relative to the working directory"),
    }
}

fn sha256_of(path: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    use std::io::Read;
    let mut hasher = sha2::Sha256::new();
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The trace source for running `repros` at `scale`: at quick scale the excerpts; at paper
/// scale the folder `dir` (default [`default_traces_dir`]) after checking that every file the
/// reproductions need is there with its size and SHA-256, or the excerpts when `excerpts`
/// asks for them. A missing or different file is an error listing every needed file and
/// where it was looked for.
pub fn locate_traces(
    repros: &[&Reproduction],
    scale: Scale,
    dir: Option<PathBuf>,
    excerpts: bool,
) -> Result<Traces, Error> {
    if scale == Scale::Quick {
        if dir.is_some() || excerpts {
            return Err(Error::config(
                "--traces / --excerpts",
                "apply to --scale paper (quick scale always replays the built-in excerpts)",
            ));
        }
        return Ok(Traces::Excerpts);
    }
    if excerpts {
        if dir.is_some() {
            return Err(Error::config("--traces / --excerpts", "give one: the full traces' folder or the excerpts"));
        }
        return Ok(Traces::Excerpts);
    }
    let (dir, from) = match dir {
        Some(d) => (d, "--traces"),
        None => default_traces_dir(),
    };
    let mut needed: Vec<TraceFile> = Vec::new();
    for f in repros.iter().flat_map(|r| r.traces) {
        if !needed.iter().any(|n| n.path == f.path) {
            needed.push(*f);
        }
    }
    let mut problems = Vec::new();
    for f in &needed {
        let p = dir.join(f.path);
        let problem = match std::fs::metadata(&p) {
            Err(_) => Some("missing".to_string()),
            Ok(m) if !m.is_file() => Some("not a regular file".into()),
            Ok(m) if m.len() != f.bytes => Some(format!("{} bytes", m.len())),
            Ok(_) => match sha256_of(&p) {
                Err(e) => Some(format!("unreadable: {e}")),
                Ok(d) if d != f.sha256 => Some(format!("sha256 {d}")),
                Ok(_) => None,
            },
        };
        if let Some(why) = problem {
            problems.push(format!("  {}  ({} bytes, sha256 {}): {why}", f.path, f.bytes, f.sha256));
        }
    }
    if problems.is_empty() {
        return Ok(Traces::Full(dir));
    }
    let shown = std::path::absolute(&dir).unwrap_or(dir.clone());
    Err(Error::config(
        "--traces",
        format!(
            "paper scale replays the full traces, and {} of the {} it needs are not in {} (from {from}):\n{}\n\
             name their folder with --traces DIR (or FLASHLAB_TRACES), or pass --excerpts to run on the built-in \
             excerpts (every output then says it is not paper scale)",
            problems.len(),
            needed.len(),
            shown.display(),
            problems.join("\n")
        ),
    ))
}

/// A paper's citation, from its own text (what the text does not print is said so).
pub struct Citation {
    pub authors: &'static str,
    pub title: &'static str,
    /// Journal or proceedings with volume, issue and date, as printed.
    pub venue: &'static str,
}

impl Citation {
    /// "Authors, "Title", venue."
    pub fn line(&self) -> String {
        format!("{}, \"{}\", {}.", self.authors, self.title, self.venue)
    }
}

/// How big to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Scaled-down devices and volumes (same writes per page): seconds.
    Quick,
    /// The paper's devices and volumes.
    Paper,
}

impl std::str::FromStr for Scale {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "quick" => Ok(Scale::Quick),
            "paper" => Ok(Scale::Paper),
            other => Err(Error::unknown("scale", other, vec!["quick", "paper"])),
        }
    }
}

/// What a reproduction produces.
pub struct Outcome {
    /// `results.json`: setup and a `rows` list.
    pub json: serde_json::Value,
    /// `report.md`.
    pub report_md: String,
    /// Extra files (name, contents), e.g. SVG plots referenced by the report.
    pub files: Vec<(String, String)>,
    /// Every claim the report judges, through [`verdict`]'s one rule (the CLI adds them and
    /// their tally to `results.json`; `index.html` shows the tallies).
    pub claims: Vec<verdict::Claim>,
}

/// Progress of a reproduction: runs finished out of all runs.
pub trait RunProgress: Sync {
    fn start(&self, _total_runs: usize) {}
    fn finished(&self, _label: &str) {}
}

/// A reproduction that runs in phases (later runs depend on earlier results) starts the
/// progress once over every phase and passes this to each: it forwards finished runs only.
pub(crate) struct Continuing<'a>(pub &'a dyn RunProgress);

impl RunProgress for Continuing<'_> {
    fn finished(&self, label: &str) {
        self.0.finished(label)
    }
}

/// One registry line per reproduction.
pub struct Reproduction {
    pub name: &'static str,
    pub about: &'static str,
    /// The full traces its paper-scale rows replay (none for most).
    pub traces: &'static [TraceFile],
    pub run: fn(&Setup, &dyn RunProgress) -> Result<Outcome, Error>,
}

pub const REPRODUCTIONS: &[Reproduction] = &[
    Reproduction {
        name: "2rpp",
        about: "2R++ (An & Lee, 2022): greedy vs 2R vs 2R++ on fio zipf, TPC-C-like and LinkBench-like",
        traces: two_r_pp::TRACES,
        run: two_r_pp::run,
    },
    Reproduction {
        name: "wadpm",
        about: "WADPM: plane-level demand-loaded page mapping vs FAST and page mapping on four trace shapes",
        traces: &[],
        run: wadpm::run,
    },
    Reproduction {
        name: "dwb",
        about: "DWB (Han, Kang & Eom, KIISE 2016): DRAM+NVRAM write buffer vs FAB, CBM and other buffers: hit ratio, erases",
        traces: dwb::TRACES,
        run: dwb::run,
    },
    Reproduction {
        name: "defrag",
        about: "Defragmentation on FTL merge (FAT on BAST): SCA/AFCA x thresholds, fragmented FS + Postmark: page ops per threshold",
        traces: &[],
        run: defrag::run,
    },
    Reproduction {
        name: "vsegment",
        about: "V-Segment (Hyun & Koh, KIISE 2008): OneNAND reads via Original/DualOP-4KB/V-Segment/Optimized drivers: latency 4-64 KB, costs, page faults",
        traces: &[],
        run: vsegment::run,
    },
];

/// The reproductions as a catalog registry (`flashlab list` shows it beside the core's).
pub fn registry() -> flashlab::catalog::Registry {
    flashlab::catalog::Registry {
        id: "reproduction",
        title: "reproductions (flashlab reproduce NAME)",
        entries: REPRODUCTIONS.iter().map(|r| (r.name.into(), r.about.into())).collect(),
    }
}

pub fn names() -> Vec<&'static str> {
    REPRODUCTIONS.iter().map(|r| r.name).collect()
}

pub fn find(name: &str) -> Result<&'static Reproduction, Error> {
    REPRODUCTIONS.iter().find(|r| r.name == name).ok_or_else(|| Error::unknown("reproduction", name, names()))
}

/// Run independent simulations on `threads` worker threads; results in input order. Each run is
/// deterministic on its own, so the thread count never changes a figure.
/// Every job is validated ([`flashlab::sim::validate`]) before the first starts, so a row
/// that cannot run is an error at once, naming the row.
pub fn run_all(jobs: &[(String, Config)], threads: usize, progress: &dyn RunProgress) -> Result<Vec<Results>, Error> {
    for (label, cfg) in jobs {
        flashlab::sim::validate(cfg).map_err(|e| Error::config(format!("row {label}"), e.to_string()))?;
    }
    let pool = flashlab::sim::PreconditionPool::new(jobs.iter().map(|j| &j.1));
    par_map(jobs, threads, progress, |(label, _)| label.clone(), |(_, cfg)| pool.run(cfg, &mut flashlab::sim::Quiet))
}

/// `f` over `jobs` on `threads` worker threads, results in input order; the first error wins.
pub fn par_map<J: Sync, T: Send>(
    jobs: &[J],
    threads: usize,
    progress: &dyn RunProgress,
    label: impl Fn(&J) -> String + Sync,
    f: impl Fn(&J) -> Result<T, Error> + Sync,
) -> Result<Vec<T>, Error> {
    progress.start(jobs.len());
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result<T, Error>>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = f(job);
                progress.finished(&label(job));
                out.lock().expect("no worker panics while holding the lock")[i] = Some(r);
            });
        }
    });
    out.into_inner().expect("workers finished").into_iter().map(|r| r.expect("every job ran")).collect()
}
