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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use flashlab::config::Config;
use flashlab::error::Error;
use flashlab::results::Results;

/// The project's shared trace folder (`FLASHLAB_TRACES`, else `../shared/traces` from the
/// working directory), if it is there: paper-scale rows replay its full files.
pub(crate) fn shared_traces() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("FLASHLAB_TRACES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("../shared/traces"));
    dir.is_dir().then_some(dir)
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
    pub run: fn(Scale, usize, &dyn RunProgress) -> Result<Outcome, Error>,
}

pub const REPRODUCTIONS: &[Reproduction] = &[
    Reproduction {
        name: "2rpp",
        about: "2R++ (An & Lee, 2022): greedy vs 2R vs 2R++ on fio zipf, TPC-C-like and LinkBench-like",
        run: two_r_pp::run,
    },
    Reproduction {
        name: "wadpm",
        about: "WADPM: plane-level demand-loaded page mapping vs FAST and page mapping on four trace shapes",
        run: wadpm::run,
    },
    Reproduction {
        name: "dwb",
        about: "DWB (Han, Kang & Eom, KIISE 2016): DRAM+NVRAM write buffer vs FAB, CBM and other buffers: hit ratio, erases",
        run: dwb::run,
    },
    Reproduction {
        name: "defrag",
        about: "Defragmentation on FTL merge (FAT on BAST): SCA/AFCA x thresholds, fragmented FS + Postmark: page ops per threshold",
        run: defrag::run,
    },
    Reproduction {
        name: "vsegment",
        about: "V-Segment (Hyun & Koh, KIISE 2008): OneNAND reads via Original/DualOP-4KB/V-Segment/Optimized drivers: latency 4-64 KB, costs, page faults",
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
pub fn run_all(jobs: &[(String, Config)], threads: usize, progress: &dyn RunProgress) -> Result<Vec<Results>, Error> {
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
