//! `flashlab`: the command-line front end. Thin: parses arguments, loads configuration, calls
//! the library, prints and writes results, draws progress bars. No simulation logic here.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use flashlab::{sim, Config};
use indicatif::{ProgressBar, ProgressStyle};

mod bench;
mod inspect;
mod output;

#[derive(Parser)]
#[command(name = "flashlab", version, about = "Fast, deterministic, trace-driven NAND flash storage simulator")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run one simulation from a TOML config (a path, or the name of a shipped preset).
    Run {
        /// A TOML config file, or a preset's name (see `flashlab list`).
        config: String,
        /// Directory for results.json and series.csv.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Override a config key, e.g. --set ftl.gc=fifo --set workload.theta=1.1
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// Power fails after N host requests: report the acknowledged writes lost (dirty in
        /// DRAM) and check NVRAM and flash hold every other one (same as --set sim.crash_at=N).
        #[arg(long, value_name = "N")]
        crash_at: Option<u64>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Load and validate the config (and a trace's first million requests, as the run
        /// checks them), print what would run, and stop: nothing is simulated or written.
        #[arg(long)]
        dry_run: bool,
        /// Print results.json on stdout instead of the text summary (the files are still written).
        #[arg(long)]
        json: bool,
        /// Replace the results of an earlier run in --out (without it, a directory holding
        /// results.json or series.csv is refused).
        #[arg(long)]
        force: bool,
    },
    /// Show a config as it would run: every key with its default filled in, a comment with its
    /// description and unit (see docs/config.md).
    Config {
        #[command(subcommand)]
        cmd: ConfigCmd,
    },
    /// Compare runs: the config keys that differ, then every scalar of results.json side by side
    /// with its ratio to the first file's.
    Compare {
        /// Two or more results.json files; ratios are to the first.
        #[arg(required = true, num_args = 2..)]
        results: Vec<PathBuf>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Only these results keys, comma-separated: a key (`waf`), a section (`flash` for
        /// every `flash.*`) or a pattern with `*` (`latency_us.*.p99`, `*erases*`).
        #[arg(long, value_delimiter = ',')]
        keys: Vec<String>,
    },
    /// Print the configuration and results references (docs/config.md, docs/results.md),
    /// generated from the code; `--write .` (from the repository root) regenerates the shipped files.
    Docs {
        /// Write the references under this directory (the repository root: docs/config.md,
        /// docs/results.md, the JSON Schemas, python/flashlab/schema.py) instead of printing them.
        #[arg(long, value_name = "ROOT")]
        write: Option<PathBuf>,
    },
    /// Reproduce a paper's results: writes DIR/NAME/results.json, report.md and plots.
    Reproduce {
        /// A registered reproduction (see `flashlab list`), or `all` (also writes DIR/index.html).
        name: String,
        /// quick (scaled down, seconds) or paper (the paper's devices and volumes).
        #[arg(long, default_value = "quick")]
        scale: String,
        /// Directory for the reports (DIR above).
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Simulations run in parallel (default: available cores).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        threads: Option<u32>,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
        /// Replace the outputs of an earlier reproduction in --out (without it, they are refused).
        #[arg(long)]
        force: bool,
        /// Folder of the full traces the paper-scale rows replay (default: FLASHLAB_TRACES, else
        /// ../shared/traces from the working directory); each needed file is checked (size,
        /// SHA-256) before anything runs.
        #[arg(long, value_name = "DIR")]
        traces: Option<PathBuf>,
        /// Paper scale on the built-in trace excerpts instead of the full traces: runs anywhere,
        /// and every output says it is not paper scale.
        #[arg(long)]
        excerpts: bool,
        /// Print the simulations the reproduction would run (JSON: stable ids, labels, complete
        /// configurations) and run nothing.
        #[arg(long)]
        plan: bool,
        /// Build the reports from results already computed, in DIR/NAME/ID.json (e.g. by
        /// Python's `flashlab.reproduce` on a cluster); simulate nothing.
        #[arg(long, value_name = "DIR")]
        results: Option<PathBuf>,
        /// Keep each run's results in DIR/NAME/ID.json and reuse those already there (default:
        /// OUT/.runs, removed when the reports are written; either way an interrupted
        /// reproduction resumes where it stopped).
        #[arg(long, value_name = "DIR")]
        runs: Option<PathBuf>,
    },
    /// Plot a run's results.json: running WAF, erase-count distribution; in timing mode the
    /// latency CDF, its tail (1 - F, log) and latency percentiles and throughput over time.
    Plot {
        /// A run's results.json.
        results: PathBuf,
        /// Where to write the SVGs (default: beside results.json).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Trace tools.
    Trace {
        #[command(subcommand)]
        cmd: TraceCmd,
    },
    /// List policies, workload generators, trace formats and presets.
    List,
    /// Run the benchmark presets and print rates (pages/s, MB/s, bytes per page).
    Bench {
        /// Fewer pages, for a quick look (figures are less stable).
        #[arg(long)]
        quick: bool,
        /// Runs of `bench-accounting` to take the median of (default 5, 1 with --quick); the
        /// scaling points take the median of at most 3.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
        repeat: Option<u32>,
        /// No progress bars (the figures are printed either way).
        #[arg(long)]
        quiet: bool,
    },
    /// (internal) run a preset and print peak RSS and physical pages, for `bench`.
    #[command(name = "__peak-rss", hide = true)]
    PeakRss {
        preset: String,
        #[arg(long = "set")]
        sets: Vec<String>,
    },
}

#[derive(Subcommand)]
enum ConfigCmd {
    /// Print the resolved config (a path or a preset, with --set overrides) as TOML.
    Show {
        /// A TOML config file, or a preset's name.
        config: String,
        /// Override a config key, e.g. --set ftl.gc=fifo
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
}

#[derive(Subcommand)]
enum TraceCmd {
    /// Records, read/write mix, size histogram, address span, footprint.
    Stats {
        /// A trace file (plain, or .gz, .zst, .bz2), or `builtin:NAME` (see `flashlab list`).
        file: PathBuf,
        /// Trace format (default: detected); see `flashlab list`.
        #[arg(long)]
        format: Option<String>,
        /// Keep only this device / volume / ASU / LUN.
        #[arg(long)]
        device: Option<u64>,
        /// Page size for the footprint: bytes or a size with a unit (4096, 4KiB); a power of
        /// two of at least 512 B.
        #[arg(long, default_value = "4KiB", value_parser = parse_page_size)]
        page_size: u64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// A byte size with an optional unit, as config files take them.
fn parse_size(text: &str) -> Result<u64, String> {
    flashlab::units::parse_size(text)
}

/// A page size: a size that is a power of two from 512 B on.
fn parse_page_size(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text)?;
    flashlab::nand::geometry::check_page_size("page size", bytes).map(u64::from).map_err(|e| match e {
        flashlab::Error::Config { msg, .. } => msg,
        e => e.to_string(),
    })
}

/// Print a line to stdout and flush it, returning the error (for a caller that must act on it
/// before going on; [`emit`] otherwise).
pub fn try_emit(text: impl std::fmt::Display) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").and_then(|_| out.flush())
}

/// Print to stdout; a closed pipe (`flashlab list | head`) ends the program quietly.
pub fn emit(text: impl std::fmt::Display) {
    if let Err(e) = try_emit(text) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            output::exit_now(0);
        }
        eprintln!("error: writing to stdout: {e}");
        output::exit_now(2);
    }
}

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<()> {
    let cli = Cli::parse();
    output::on_interrupt();
    match cli.cmd {
        Cmd::Run { config, out, mut sets, crash_at, quiet, dry_run, json, force } => {
            if let Some(n) = crash_at {
                if let Some(s) =
                    sets.iter().find(|s| s.split_once('=').is_some_and(|(k, _)| k.trim() == "sim.crash_at"))
                {
                    anyhow::bail!("--crash-at {n} and --set {s} both set sim.crash_at: give one");
                }
                sets.push(format!("sim.crash_at={n}"));
            }
            if dry_run {
                return inspect::dry_run(sim::Plan::new(load_config(&config, &sets)?)?, &out, force);
            }
            run(&config, &out, &sets, quiet, json, force)
        }
        Cmd::Config { cmd: ConfigCmd::Show { config, sets } } => inspect::config_show(&config, &sets),
        Cmd::Compare { results, json, keys } => inspect::compare(&results, json, &keys),
        Cmd::Docs { write } => inspect::docs(write.as_deref()),
        Cmd::Trace { cmd: TraceCmd::Stats { file, format, device, page_size, json } } => {
            let opts = flashlab::workload::trace::TraceOptions {
                format,
                device,
                ..flashlab::workload::trace::TraceOptions::new(file)
            };
            let stats = flashlab::workload::trace::stats(&opts, page_size)?;
            if json {
                emit(serde_json::to_string_pretty(&stats)?.to_string());
            } else {
                emit(format!("{stats}"));
            }
            Ok(())
        }
        Cmd::Reproduce { name, scale, out, threads, quiet, force, traces, excerpts, plan, results, runs } => {
            let how = ReproduceOptions {
                threads: threads.map(|t| t as usize),
                quiet,
                force,
                traces,
                excerpts,
                plan,
                results,
                runs,
            };
            reproduce(&name, &scale, &out, how)
        }
        Cmd::Plot { results, out } => plot(&results, out.as_deref()),
        Cmd::List => {
            list();
            Ok(())
        }
        Cmd::Bench { quick, repeat, quiet } => bench::run(quick, repeat, quiet),
        Cmd::PeakRss { preset, sets } => bench::peak_rss(&preset, &sets),
    }
}

/// A config file, or else an embedded preset ([`Config::load_named`]).
pub fn load_config(name: &str, sets: &[String]) -> Result<Config> {
    Ok(Config::load_named(name, sets)?)
}

/// The files `flashlab run` writes into its output directory.
const RUN_FILES: [&str; 2] = ["results.json", "series.csv"];

fn run(config: &str, out: &Path, sets: &[String], quiet: bool, as_json: bool, force: bool) -> Result<()> {
    let plan = sim::Plan::new(load_config(config, sets)?)?;
    let cfg = plan.config().clone();
    let estimate = plan.estimate().total();
    // Fail on an unusable output directory, one another flashlab is writing into, or one
    // holding earlier results, before simulating (the lock is held until the files are in).
    let dir = output::OutDir::create(out)?;
    output::refuse_overwrite(out, &RUN_FILES.map(String::from), force)?;
    let mut bar = Bar::new(quiet);
    let results = plan.run(&mut bar).map_err(|e| untouched(e.into(), out))?;
    let mut staged = output::Staged::new(out);
    let write = |staged: &mut output::Staged| -> Result<()> {
        staged.add(RUN_FILES[0], results.to_json().as_bytes())?;
        staged.add(RUN_FILES[1], results.series_csv().as_bytes())
    };
    write(&mut staged).map_err(|e| untouched(e, out))?;
    // The summary goes out before the files are replaced: if stdout fails (a full disk behind
    // a redirection), the earlier files stay as they were.
    let mut summary = if as_json { results.to_json() } else { format!("{results}") };
    if let (false, Some(line)) = (as_json, inspect::memory_line(&cfg, estimate)) {
        summary = format!("{summary}\n{line}");
    }
    if let Err(e) = try_emit(&summary) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(untouched(anyhow::Error::new(e).context("writing the summary to stdout"), out));
        }
    }
    staged.commit()?;
    dir.keep();
    let (json, csv) = (out.join(RUN_FILES[0]), out.join(RUN_FILES[1]));
    let written = format!("results      {} and {}", json.display(), csv.display());
    if as_json {
        eprintln!("{written}");
    } else {
        emit(written);
    }
    Ok(())
}

/// A failure after the output directory was checked: say that its files are as they were.
fn untouched(e: anyhow::Error, out: &Path) -> anyhow::Error {
    anyhow::anyhow!("{e:#}\n(no output was written: the files in {} are as they were)", out.display())
}

/// `flashlab reproduce`'s options besides the name, scale and output folder.
struct ReproduceOptions {
    threads: Option<usize>,
    quiet: bool,
    force: bool,
    traces: Option<PathBuf>,
    excerpts: bool,
    plan: bool,
    results: Option<PathBuf>,
    runs: Option<PathBuf>,
}

fn reproduce(name: &str, scale: &str, out: &Path, how: ReproduceOptions) -> Result<()> {
    use flashlab_repro::{self as reproduce, Runs};
    let ReproduceOptions { threads, quiet, force, traces, excerpts, plan, results, runs } = how;
    let scale: reproduce::Scale = scale.parse()?;
    let chosen: Vec<&reproduce::Reproduction> = if name == "all" {
        reproduce::REPRODUCTIONS.iter().collect()
    } else {
        vec![reproduce::find(name).map_err(|e| anyhow::anyhow!("{e} (or `all`)"))?]
    };
    if [plan, results.is_some(), runs.is_some()].iter().filter(|&&x| x).count() > 1 {
        anyhow::bail!("give at most one of --plan, --results DIR and --runs DIR");
    }
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Paper scale replays the full traces: a missing one is an error before anything runs.
    let traces = reproduce::locate_traces(&chosen, scale, traces, excerpts)?;
    let setup = reproduce::Setup { scale, threads, traces, runs: Runs::Memory };
    if plan {
        return print_plan(&chosen, &setup);
    }
    // Earlier outputs are refused before anything runs, unless --force.
    let mut earlier: Vec<String> = chosen.iter().map(|r| format!("{}/results.json", r.name)).collect();
    if name == "all" {
        earlier.push("index.html".into());
    }
    let dir = output::OutDir::create(out)?;
    output::refuse_overwrite(out, &earlier, force)?;
    // Every file is staged and renamed into place only when all reproductions have run.
    let mut staged = output::Staged::new(out);
    let mut done = Vec::new();
    // Each run's results are kept as it finishes (in --runs DIR, else OUT/.runs/NAME, removed
    // once the reports are written), so an interrupted reproduction resumes where it stopped.
    let mut scratch = Vec::new();
    for repro in &chosen {
        let runs = match (&results, &runs) {
            (Some(d), _) => Runs::Only(d.join(repro.name)),
            (None, Some(d)) => Runs::Dir(d.join(repro.name)),
            (None, None) => {
                let d = out.join(".runs").join(repro.name);
                scratch.push(d.clone());
                Runs::Dir(d)
            }
        };
        if let Runs::Dir(d) = &runs {
            output::keep_runs_in(d);
        }
        let setup = reproduce::Setup { runs, ..setup.clone() };
        let kept = match &setup.runs {
            Runs::Dir(d) => Some(d.clone()),
            _ => None,
        };
        let finished = reproduce_one(repro, &setup, quiet).map_err(|e| {
            let e = untouched(e, out);
            match kept.filter(|d| std::fs::read_dir(d).is_ok_and(|mut r| r.next().is_some())) {
                Some(d) => anyhow::anyhow!(
                    "{e:#}\n(the simulations that finished are kept in {}: rerunning resumes from them)",
                    d.display()
                ),
                None => e,
            }
        })?;
        for (file, bytes) in &finished.files {
            staged.add(&format!("{}/{file}", repro.name), bytes).map_err(|e| untouched(e, out))?;
        }
        done.push((*repro, finished));
    }
    if name == "all" {
        let refs: Vec<(&reproduce::Reproduction, &reproduce::Finished)> = done.iter().map(|(r, f)| (*r, f)).collect();
        let index = reproduce::index_html(scale, &setup, &refs);
        staged.add("index.html", index.as_bytes()).map_err(|e| untouched(e, out))?;
    }
    staged.commit()?;
    dir.keep();
    for d in scratch {
        let _ = std::fs::remove_dir_all(d);
    }
    let _ = std::fs::remove_dir(out.join(".runs"));
    for (repro, _) in &done {
        emit(format!("report       {}", out.join(repro.name).join("report.md").display()));
    }
    if name == "all" {
        emit(format!("report       {}", out.join("index.html").display()));
    }
    Ok(())
}

/// `--plan`: every simulation the reproductions would run, as JSON (one object per
/// reproduction: its runs with stable ids, labels and complete configurations). A reproduction
/// in phases lists its first phase (later ones depend on its results); one whose work is not
/// simulator runs (the file-system and OneNAND models) lists none and says so.
fn print_plan(chosen: &[&flashlab_repro::Reproduction], setup: &flashlab_repro::Setup) -> Result<()> {
    let mut all = Vec::new();
    for repro in chosen {
        let recorded = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let s = flashlab_repro::Setup { runs: flashlab_repro::Runs::Plan(recorded.clone()), ..setup.clone() };
        match (repro.run)(&s, &NoBar) {
            Err(flashlab::Error::Interrupted) => {}
            Err(e) => return Err(e.into()),
            Ok(_) => anyhow::bail!("reproduction {} ran while planning (a bug)", repro.name),
        }
        let runs = std::mem::take(&mut *recorded.lock().unwrap_or_else(|e| e.into_inner()));
        let complete = runs.is_empty();
        all.push(serde_json::json!({
            "reproduction": repro.name,
            "scale": setup.scale,
            "runs": runs,
            "note": match (complete, repro.phased) {
                (true, _) => "no simulator runs: this reproduction drives its own model (file system, OneNAND) in process",
                (false, true) => "the first phase only: the later phase's runs depend on its results",
                (false, false) => "every simulator run of the reproduction",
            },
        }));
    }
    emit(serde_json::to_string_pretty(&all)?);
    Ok(())
}

/// No progress display (planning runs nothing).
struct NoBar;
impl flashlab_repro::RunProgress for NoBar {}

/// Run one reproduction; its files (under `NAME/`), report and tally.
fn reproduce_one(
    repro: &flashlab_repro::Reproduction,
    setup: &flashlab_repro::Setup,
    quiet: bool,
) -> Result<flashlab_repro::Finished> {
    let bar = RunBar::new(quiet);
    let t = std::time::Instant::now();
    let outcome = (repro.run)(setup, &bar)?;
    bar.done();
    let wall_s = t.elapsed().as_secs_f64();
    let finished = flashlab_repro::finish(repro, setup, outcome, wall_s)?;
    emit(format!("{:<12} {} files ({wall_s:.1} s)", repro.name, finished.files.len()));
    Ok(finished)
}

fn plot(results: &Path, out: Option<&Path>) -> Result<()> {
    let text = flashlab::files::read_text(results, "results")?;
    let r = flashlab::results::Results::from_json(&text, &results.display().to_string())?;
    let plots = flashlab_repro::plot::results_plots(&r);
    let dir = out.map(Path::to_path_buf).unwrap_or_else(|| results.parent().unwrap_or(Path::new(".")).to_path_buf());
    let out_dir = output::OutDir::create(&dir)?;
    let mut staged = output::Staged::new(&dir);
    for (name, svg) in &plots {
        staged.add(name, svg.as_bytes())?;
    }
    let written = staged.commit()?;
    out_dir.keep();
    for path in written {
        emit(format!("plot         {}", path.display()));
    }
    Ok(())
}

/// Progress over a reproduction's runs (thread-safe; quiet when not a terminal).
struct RunBar {
    bar: Option<ProgressBar>,
}

impl RunBar {
    fn new(quiet: bool) -> Self {
        let on = !quiet && std::io::stderr().is_terminal();
        RunBar { bar: on.then(|| ProgressBar::new(0)) }
    }
    fn done(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl flashlab_repro::RunProgress for RunBar {
    fn start(&self, total: usize) {
        if let Some(b) = &self.bar {
            b.set_length(total as u64);
            b.set_style(
                ProgressStyle::with_template("{msg:40} [{bar:30}] {pos}/{len} runs, {elapsed}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
        }
    }
    fn finished(&self, label: &str) {
        if let Some(b) = &self.bar {
            b.set_message(label.to_string());
            b.inc(1);
        }
    }
}

fn list() {
    // The core's registries, and the reproductions (above the core) just before the presets.
    let mut registries = flashlab::catalog::registries();
    let at = registries.iter().position(|r| r.id == "preset").unwrap_or(registries.len());
    registries.insert(at, flashlab_repro::registry());
    for r in registries {
        emit(format!("{}:", r.title));
        for (name, about) in r.entries {
            emit(format!("  {name:<16} {about}"));
        }
    }
}

/// Progress bar on a terminal; silent otherwise or with --quiet.
pub struct Bar {
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Bar {
    pub fn new(quiet: bool) -> Self {
        Bar { bar: None, enabled: !quiet && std::io::stderr().is_terminal() }
    }
}

impl sim::Progress for Bar {
    fn phase(&mut self, name: &str, total: u64) {
        if !self.enabled {
            return;
        }
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        let b = ProgressBar::new(total.max(1));
        b.set_style(
            ProgressStyle::with_template("{msg:32} [{bar:40}] {percent:>3}% eta {eta}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        b.set_message(name.to_string());
        self.bar = Some(b);
    }
    fn update(&mut self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }
    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
