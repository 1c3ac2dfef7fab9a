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
pub mod fdp;
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
    /// Where its simulations run and their results are kept.
    pub runs: Runs,
}

/// One simulation of a reproduction's plan: a stable id (the same configuration always has
/// the same id), a label for people and the complete configuration.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlannedRun {
    pub id: String,
    pub label: String,
    pub config: Config,
}

/// Where a reproduction's simulations run and their results are kept ([`run_all`]).
#[derive(Clone, Debug, Default)]
pub enum Runs {
    /// In this process; nothing kept.
    #[default]
    Memory,
    /// In this process, each run's results kept in `DIR/ID.json` as soon as it finishes; a run
    /// whose results are already there is read back instead of simulated (an interrupted
    /// reproduction resumes where it stopped).
    Dir(PathBuf),
    /// Nothing simulated: every run's results must already be in `DIR/ID.json` (computed
    /// elsewhere, e.g. on a cluster); a missing one is an error naming it.
    Only(PathBuf),
    /// Nothing simulated: the runs are recorded here and [`run_all`] stops the reproduction
    /// with [`Error::Interrupted`] (a reproduction in phases plans one phase at a time).
    Plan(std::sync::Arc<Mutex<Vec<PlannedRun>>>),
    /// Nothing simulated: results already in `dir` are read; when some are missing, those
    /// runs are recorded in `missing` and [`run_all`] stops with [`Error::Interrupted`] (for
    /// a driver that runs them elsewhere, stores their results and asks again).
    Collect { dir: PathBuf, missing: std::sync::Arc<Mutex<Vec<PlannedRun>>> },
}

impl Setup {
    /// Quick scale on the built-in excerpts (tests, previews).
    pub fn quick(threads: usize) -> Setup {
        Setup { scale: Scale::Quick, threads, traces: Traces::Excerpts, runs: Runs::Memory }
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

/// What every output of a paper-scale run on the excerpts says.
pub const EXCERPTS_NOTE: &str = "**Excerpts, not paper scale:** the trace rows replayed the built-in excerpts \
     (`--excerpts`), not the full traces, so their figures and verdicts are not the paper-scale ones.";

/// The heading of a report's last section, what the run cost: the one part of a report that
/// varies from run to run (everything above it is a function of the configuration and seed).
pub const COST_HEADING: &str = "## What this run cost";

/// A reproduction's files as written to `DIR/NAME/`: `results.json` with the claims, their
/// tally, whether it is paper scale and what it cost; `report.md` with the excerpts note under
/// its title when it applies and the cost section at its end; the plots. One function for the
/// CLI and Python, so their reports are the same bytes apart from the cost section.
pub struct Finished {
    pub report_md: String,
    /// (name under `NAME/`, contents).
    pub files: Vec<(String, Vec<u8>)>,
    /// Files a reader downloads (not the plots).
    pub downloads: Vec<String>,
    pub tally: verdict::Tally,
}

pub fn finish(repro: &Reproduction, setup: &Setup, mut outcome: Outcome, wall_s: f64) -> Result<Finished, Error> {
    let tally = verdict::Tally::of(&outcome.claims);
    let excerpts = setup.not_paper_scale() && !repro.traces.is_empty();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let peak = flashlab::memory::peak_rss();
    let json_err = |e: serde_json::Error| Error::config("reproduce", e.to_string());
    if let Some(obj) = outcome.json.as_object_mut() {
        obj.insert("claims".into(), serde_json::to_value(&outcome.claims).map_err(json_err)?);
        obj.insert("tally".into(), serde_json::to_value(tally).map_err(json_err)?);
        obj.insert("paper_scale".into(), (setup.scale == Scale::Paper && !excerpts).into());
        obj.insert(
            "cost".into(),
            serde_json::json!({ "wall_s": wall_s, "threads": setup.threads, "cores": cores, "peak_rss_bytes": peak }),
        );
    }
    let mut md = outcome.report_md;
    if excerpts {
        // The note goes under the title, where a reader starts.
        let at = md.find('\n').map_or(md.len(), |i| i + 1);
        md.insert_str(at, &format!("\n{EXCERPTS_NOTE}\n"));
    }
    let peak = peak.map_or("not measured (no /proc/self/status)".to_string(), |b| {
        format!("{:.0} MiB (the process's peak resident memory so far)", b as f64 / (1 << 20) as f64)
    });
    md.push_str(&format!(
        "\n{COST_HEADING}\n\nWall time {wall_s:.1} s with {} simulation thread{} on a machine with {cores} core{}; peak memory {peak}.\n",
        setup.threads,
        if setup.threads == 1 { "" } else { "s" },
        if cores == 1 { "" } else { "s" },
    ));
    let mut files = vec![
        ("results.json".to_string(), serde_json::to_string_pretty(&outcome.json).map_err(json_err)?.into_bytes()),
        ("report.md".to_string(), md.clone().into_bytes()),
    ];
    let mut downloads = vec!["report.md".to_string(), "results.json".to_string()];
    for (file, text) in outcome.files {
        if !file.ends_with(".svg") {
            downloads.push(file.clone());
        }
        files.push((file, text.into_bytes()));
    }
    Ok(Finished { report_md: md, files, downloads, tally })
}

/// The `index.html` of several reproductions' finished reports.
pub fn index_html(scale: Scale, setup: &Setup, done: &[(&Reproduction, &Finished)]) -> String {
    let sections: Vec<html::Section> = done
        .iter()
        .map(|(r, f)| html::Section {
            name: r.name,
            about: r.about,
            report_md: &f.report_md,
            downloads: f.downloads.clone(),
            tally: f.tally,
        })
        .collect();
    let mut intro = format!(
        "Every registered reproduction at {} scale: the paper's figures beside ours, plots, and where we agree and differ.",
        if scale == Scale::Quick { "quick" } else { "paper" }
    );
    if setup.not_paper_scale() {
        intro.push_str(&format!(" {EXCERPTS_NOTE}"));
    }
    html::index_html("flashlab reproductions", &intro, &sections)
}

/// One registry line per reproduction.
pub struct Reproduction {
    pub name: &'static str,
    pub about: &'static str,
    /// The full traces its paper-scale rows replay (none for most).
    pub traces: &'static [TraceFile],
    /// Its runs come in phases, a later one planned from an earlier one's results.
    pub phased: bool,
    pub run: fn(&Setup, &dyn RunProgress) -> Result<Outcome, Error>,
}

pub const REPRODUCTIONS: &[Reproduction] = &[
    Reproduction {
        name: "2rpp",
        about: "2R++ (An & Lee, 2022): greedy vs 2R vs 2R++ on fio zipf, TPC-C-like and LinkBench-like",
        traces: two_r_pp::TRACES,
        phased: false,
        run: two_r_pp::run,
    },
    Reproduction {
        name: "wadpm",
        about: "WADPM: plane-level demand-loaded page mapping vs FAST and page mapping on four trace shapes",
        traces: &[],
        phased: true,
        run: wadpm::run,
    },
    Reproduction {
        name: "dwb",
        about: "DWB (Han, Kang & Eom, KIISE 2016): DRAM+NVRAM write buffer vs FAB, CBM and other buffers: hit ratio, erases",
        traces: dwb::TRACES,
        phased: false,
        run: dwb::run,
    },
    Reproduction {
        name: "defrag",
        about: "Defragmentation on FTL merge (FAT on BAST): SCA/AFCA x thresholds, fragmented FS + Postmark: page ops per threshold",
        traces: &[],
        phased: false,
        run: defrag::run,
    },
    Reproduction {
        name: "vsegment",
        about: "V-Segment (Hyun & Koh, KIISE 2008): OneNAND reads via Original/DualOP-4KB/V-Segment/Optimized drivers: latency 4-64 KB, costs, page faults",
        traces: &[],
        phased: false,
        run: vsegment::run,
    },
    Reproduction {
        name: "fdp",
        about: "FDP flash cache (Allison et al., EuroSys 2025): CacheLib's SOC and LOC writes with and without NVMe FDP: device WAF at 100% and 50% utilisation",
        traces: &[],
        phased: false,
        run: fdp::run,
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
/// Whether `setup` only plans ([`Runs::Plan`]): a reproduction whose work is not simulator runs
/// (it drives its own model in process) then stops at once, planning nothing.
pub(crate) fn planning(setup: &Setup) -> bool {
    matches!(setup.runs, Runs::Plan(_))
}

/// The stable id of a run: its label's letters and digits, then 16 hex digits of the SHA-256 of
/// the flashlab version and its configuration (as JSON), so the same configuration always has
/// the same id and results kept by another version are not taken for this one's.
pub fn run_id(label: &str, cfg: &Config) -> Result<String, Error> {
    use sha2::Digest;
    let json = serde_json::to_string(cfg).map_err(|e| Error::config("reproduce", format!("{label}: {e}")))?;
    let mut hasher = sha2::Sha256::new();
    hasher.update(flashlab::VERSION.as_bytes());
    hasher.update([0]);
    hasher.update(json.as_bytes());
    let digest = hasher.finalize();
    let mut slug: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{}-{hex}", slug.trim_matches('-')))
}

/// Run independent simulations as `setup.runs` says, on `setup.threads` worker threads;
/// results in input order. Each run is deterministic on its own, so neither the thread count
/// nor where a run ran changes a figure. Every job is validated ([`flashlab::sim::validate`])
/// before the first starts, so a row that cannot run is an error at once, naming the row.
pub fn run_all(jobs: &[(String, Config)], setup: &Setup, progress: &dyn RunProgress) -> Result<Vec<Results>, Error> {
    for (label, cfg) in jobs {
        flashlab::sim::validate(cfg).map_err(|e| Error::config(format!("row {label}"), e.to_string()))?;
    }
    let ids: Vec<String> = jobs.iter().map(|(label, cfg)| run_id(label, cfg)).collect::<Result<_, _>>()?;
    let stored = |dir: &Path, id: &str| dir.join(format!("{id}.json"));
    let read = |path: &Path| -> Result<Results, Error> {
        let text = flashlab::files::read_text(path, "results")?;
        Results::from_json(&text, &path.display().to_string())
    };
    match &setup.runs {
        Runs::Plan(plan) => {
            let mut plan = plan.lock().unwrap_or_else(|e| e.into_inner());
            for ((label, cfg), id) in jobs.iter().zip(ids) {
                plan.push(PlannedRun { id, label: label.clone(), config: cfg.clone() });
            }
            Err(Error::Interrupted)
        }
        Runs::Collect { dir, missing } => {
            let mut missing = missing.lock().unwrap_or_else(|e| e.into_inner());
            for ((label, cfg), id) in jobs.iter().zip(&ids) {
                if !stored(dir, id).is_file() {
                    missing.push(PlannedRun { id: id.clone(), label: label.clone(), config: cfg.clone() });
                }
            }
            if !missing.is_empty() {
                return Err(Error::Interrupted);
            }
            ids.iter().map(|id| read(&stored(dir, id))).collect()
        }
        Runs::Only(dir) => {
            let missing: Vec<String> = jobs
                .iter()
                .zip(&ids)
                .filter(|(_, id)| !stored(dir, id).is_file())
                .map(|((label, _), id)| format!("  {id}.json  ({label})"))
                .collect();
            if !missing.is_empty() {
                return Err(Error::config(
                    "--results",
                    format!(
                        "{} of the {} runs have no results in {}:\n{}",
                        missing.len(),
                        jobs.len(),
                        dir.display(),
                        missing.join("\n")
                    ),
                ));
            }
            ids.iter().map(|id| read(&stored(dir, id))).collect()
        }
        Runs::Memory | Runs::Dir(_) => {
            let dir = match &setup.runs {
                Runs::Dir(d) => Some(d.as_path()),
                _ => None,
            };
            if let Some(d) = dir {
                std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
            }
            let pool = flashlab::sim::PreconditionPool::new(
                jobs.iter().zip(&ids).filter(|(_, id)| dir.is_none_or(|d| !stored(d, id).is_file())).map(|(j, _)| &j.1),
            );
            let work: Vec<(&(String, Config), &String)> = jobs.iter().zip(&ids).collect();
            par_map(
                &work,
                setup.threads,
                progress,
                |(job, _)| job.0.clone(),
                |(job, id)| {
                    let Some(d) = dir else { return pool.run(&job.1, &mut flashlab::sim::Quiet) };
                    let path = stored(d, id);
                    if path.is_file() {
                        return read(&path);
                    }
                    let r = pool.run(&job.1, &mut flashlab::sim::Quiet)?;
                    // Written whole, then renamed: a run interrupted mid-write leaves no file.
                    let tmp = d.join(format!(".{id}.json.tmp"));
                    std::fs::write(&tmp, r.to_json()).map_err(|e| Error::io(&tmp, e))?;
                    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
                    Ok(r)
                },
            )
        }
    }
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
