//! `flashlab-fuzz`: run the fuzz targets for many cases, in child processes so that an abort
//! (allocation failure, stack overflow) is caught and its case reported, and print per target
//! the cases, outcomes, panics, aborts and the rate, then each distinct panic (location,
//! message, a minimal reproducer).
//!
//! `flashlab-fuzz --target all --cases 1000000 --jobs 2`: the long run.
//! `flashlab-fuzz --target config --case 123`: replay one case in this process.
//!
//! Child protocol (stdout, one line each): `s I` before case I runs (flushed), `d K` after it
//! (K: `o` ok, `r` refused, `u` unlocated error, `b` broken property, `p` panic), `p JSON` /
//! `u JSON` / `b JSON` with the details. A child that exits without `d` for its last `s` aborted on that case; the parent
//! reports it and continues after it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::Parser;
use flashlab_fuzz::{run_caught, Outcome, Tally, Target, Verdict};
use serde_json::json;

#[derive(Parser, Debug, Clone)]
#[command(about = "Fuzz flashlab's trace readers and configuration (never a panic or an abort)")]
struct Args {
    /// `all`, `trace` (every trace format), `config`, `output`, `memory`, or one
    /// `trace-<format>`.
    #[arg(long, default_value = "all")]
    target: String,
    /// Cases per target.
    #[arg(long, default_value_t = 20_000)]
    cases: u64,
    /// Child processes running at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Run seed: every case is a function of (target, seed, case index).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// First case index.
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Cases per child process (default: 20,000 for traces, 1,000 for configs, 10 for the
    /// targets that run `flashlab` processes).
    #[arg(long)]
    chunk: Option<u64>,
    /// Replay one case in this process: print its input and what it came to.
    #[arg(long)]
    case: Option<u64>,
    /// A case running longer than this (seconds of wall time) is killed and reported as a
    /// hang: detection only, it decides no outcome of a case that finishes.
    #[arg(long, default_value_t = 60)]
    hang_secs: u64,
    /// With `--case`: also write the case's raw input (trace bytes, or the config's TOML) here,
    /// before running it.
    #[arg(long)]
    write: Option<std::path::PathBuf>,
    /// Internal: run cases start..start+cases of one target here and report on stdout.
    #[arg(long, hide = true)]
    child: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let targets = match Target::parse(&args.target) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(i) = args.case {
        return replay(&targets, args.seed, i, args.write.as_deref());
    }
    if args.child {
        return child(&targets[0], args.seed, args.start, args.cases);
    }
    let mut failed = false;
    for t in &targets {
        failed |= !parent(t, &args);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn replay(targets: &[Target], seed: u64, index: u64, write: Option<&std::path::Path>) -> ExitCode {
    for t in targets {
        let case = t.case(seed, index);
        println!("# {} case {index} (seed {seed})\n{}", t.name(), case.reproducer());
        if let Some(path) = write {
            if let Err(e) = std::fs::write(path, case.raw()) {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        let _ = std::io::stdout().flush();
        println!("# outcome: {:?}", run_caught(&case));
    }
    ExitCode::SUCCESS
}

fn child(target: &Target, seed: u64, start: u64, count: u64) -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut minimised = std::collections::HashSet::new();
    for i in start..start + count {
        if writeln!(out, "s {i}").and_then(|_| out.flush()).is_err() {
            return ExitCode::FAILURE;
        }
        let case = target.case(seed, i);
        let outcome = run_caught(&case);
        let line = match &outcome {
            Outcome::Done(Verdict::Ok) => "d o".to_string(),
            Outcome::Done(Verdict::Refused(_)) => "d r".to_string(),
            Outcome::Done(Verdict::Unlocated(msg)) => {
                let detail = json!({ "index": i, "message": msg, "repro": case.reproducer() });
                format!("u {detail}\nd u")
            }
            Outcome::Done(Verdict::Broken(msg)) => {
                let detail = json!({ "index": i, "message": msg, "repro": case.reproducer() });
                format!("b {detail}\nd b")
            }
            Outcome::Panic { location, message } => {
                // The first panic at each place is minimised; later ones only counted.
                let repro = if minimised.insert(location.clone()) {
                    case.minimise(location).reproducer()
                } else {
                    String::new()
                };
                let detail = json!({ "index": i, "location": location, "message": message, "repro": repro });
                format!("p {detail}\nd p")
            }
        };
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// A distinct panic: first seen case (lowest index), its details, how many cases hit it.
#[derive(Clone, Debug)]
struct Finding {
    index: u64,
    message: String,
    repro: String,
    count: u64,
}

#[derive(Default)]
struct Report {
    tally: Tally,
    panics: BTreeMap<String, Finding>,
    unlocated: Vec<(u64, String, String)>,
    broken: Vec<(u64, String, String)>,
    aborts: Vec<(u64, String, String)>,
}

/// Run one target's cases in child processes; print its report. `false` when anything failed.
fn parent(target: &Target, args: &Args) -> bool {
    let default_chunk = match target {
        t if t.runs_processes() => 10,
        Target::Config => 1_000,
        _ => 20_000,
    };
    let chunk = args.chunk.unwrap_or(default_chunk).max(1);
    let end = args.start + args.cases;
    let chunks: Vec<(u64, u64)> =
        (args.start..end).step_by(chunk as usize).map(|a| (a, (a + chunk).min(end))).collect();
    let queue = Arc::new(Mutex::new(chunks.into_iter()));
    let report = Arc::new(Mutex::new(Report::default()));
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..args.jobs.max(1) {
            let (queue, report) = (queue.clone(), report.clone());
            s.spawn(move || loop {
                let next = queue.lock().ok().and_then(|mut q| q.next());
                let Some((a, b)) = next else { break };
                run_chunk(target, args.seed, a, b, args.hang_secs, &report);
            });
        }
    });
    let secs = t0.elapsed().as_secs_f64();
    let r = report.lock().map(|mut r| std::mem::take(&mut *r)).unwrap_or_default();
    print_report(target, args.seed, &r, secs);
    r.tally.panics == 0 && r.tally.aborts == 0 && r.tally.unlocated == 0 && r.tally.broken == 0
}

/// Run cases a..b in children until all are done, restarting after each abort.
fn run_chunk(target: &Target, seed: u64, mut a: u64, b: u64, hang_secs: u64, report: &Mutex<Report>) {
    while a < b {
        let exe = std::env::current_exe().expect("the harness knows its own path");
        let spawned = Command::new(exe)
            .args(["--child", "--target", &target.name(), "--seed", &seed.to_string()])
            .args(["--start", &a.to_string(), "--cases", &(b - a).to_string()])
            .env("RUST_BACKTRACE", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => panic!("cannot start a child process: {e}"),
        };
        let stderr = child.stderr.take();
        let stdout = child.stdout.take().map(BufReader::new);
        let child = Arc::new(Mutex::new(child));
        let watchdog = Watchdog::start(child.clone(), hang_secs);
        let err_reader = std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut e) = stderr {
                let _ = std::io::Read::read_to_string(&mut e, &mut text);
            }
            text
        });
        let mut local = Report::default();
        let mut running: Option<u64> = None;
        for line in stdout.into_iter().flat_map(|r| r.lines()).map_while(Result::ok) {
            watchdog.tick();
            let (tag, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            match tag {
                "s" => running = rest.parse().ok(),
                "d" => {
                    local.tally.add(&match rest {
                        "o" => Outcome::Done(Verdict::Ok),
                        "r" => Outcome::Done(Verdict::Refused(String::new())),
                        "u" => Outcome::Done(Verdict::Unlocated(String::new())),
                        "b" => Outcome::Done(Verdict::Broken(String::new())),
                        _ => Outcome::Panic { location: String::new(), message: String::new() },
                    });
                    running = None;
                }
                "p" => record_panic(&mut local, rest),
                "u" | "b" => {
                    let v: serde_json::Value = serde_json::from_str(rest).unwrap_or_default();
                    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
                    let found = (v["index"].as_u64().unwrap_or(0), s("message"), s("repro"));
                    if tag == "u" {
                        local.unlocated.push(found);
                    } else {
                        local.broken.push(found);
                    }
                }
                _ => {}
            }
        }
        let hung = watchdog.stop();
        let status = child.lock().expect("no panic while holding the child").wait();
        let mut stderr = err_reader.join().unwrap_or_default();
        if hung {
            stderr = format!("HANG: no progress for {hang_secs} s, killed (replay the case to see where it loops)");
        }
        let ok = status.as_ref().is_ok_and(|s| s.success());
        let next = match (ok, running) {
            (true, None) => b,
            (_, Some(i)) => {
                let tail = stderr.lines().take(3).collect::<Vec<_>>().join(" / ");
                let repro = target.case(seed, i).reproducer();
                local.tally.cases += 1;
                local.tally.aborts += 1;
                local.aborts.push((
                    i,
                    format!("{}: {tail}", status.map_or_else(|e| e.to_string(), |s| s.to_string())),
                    repro,
                ));
                i + 1
            }
            (false, None) => panic!("a child process failed between cases: {status:?}\n{stderr}"),
        };
        merge(report, local);
        a = next;
    }
}

/// The watchdog's state: (last progress, stopped, killed), and its wake-up.
type WatchState = (Mutex<(Instant, bool, bool)>, std::sync::Condvar);

/// Kills a child that reports no progress for `secs` seconds (a case stuck in a loop).
struct Watchdog {
    state: Arc<WatchState>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn start(child: Arc<Mutex<std::process::Child>>, secs: u64) -> Watchdog {
        let state: Arc<WatchState> = Arc::new((Mutex::new((Instant::now(), false, false)), std::sync::Condvar::new()));
        let shared = state.clone();
        let limit = std::time::Duration::from_secs(secs.max(1));
        let thread = std::thread::spawn(move || {
            let (lock, cv) = &*shared;
            let Ok(mut g) = lock.lock() else { return };
            while !g.1 {
                if g.0.elapsed() >= limit {
                    if let Ok(mut c) = child.lock() {
                        let _ = c.kill();
                    }
                    g.2 = true;
                    return;
                }
                g = match cv.wait_timeout(g, std::time::Duration::from_millis(500)) {
                    Ok((g, _)) => g,
                    Err(_) => return,
                };
            }
        });
        Watchdog { state, thread: Some(thread) }
    }

    fn tick(&self) {
        if let Ok(mut g) = self.state.0.lock() {
            g.0 = Instant::now();
        }
    }

    /// Stop watching; whether the child was killed for hanging.
    fn stop(mut self) -> bool {
        if let Ok(mut g) = self.state.0.lock() {
            g.1 = true;
        }
        self.state.1.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.state.0.lock().map(|g| g.2).unwrap_or(false)
    }
}

fn record_panic(r: &mut Report, json_text: &str) {
    let v: serde_json::Value = serde_json::from_str(json_text).unwrap_or_default();
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    let index = v["index"].as_u64().unwrap_or(0);
    let f =
        r.panics.entry(s("location")).or_insert(Finding { index, message: s("message"), repro: s("repro"), count: 0 });
    f.count += 1;
    if index < f.index && !s("repro").is_empty() {
        (f.index, f.message, f.repro) = (index, s("message"), s("repro"));
    }
}

fn merge(into: &Mutex<Report>, from: Report) {
    let Ok(mut r) = into.lock() else { return };
    r.tally.merge(&from.tally);
    for (loc, f) in from.panics {
        match r.panics.get_mut(&loc) {
            Some(g) => {
                g.count += f.count;
                if f.index < g.index && !f.repro.is_empty() {
                    (g.index, g.message, g.repro) = (f.index, f.message, f.repro);
                }
            }
            None => {
                r.panics.insert(loc, f);
            }
        }
    }
    r.unlocated.extend(from.unlocated);
    r.broken.extend(from.broken);
    r.aborts.extend(from.aborts);
}

fn print_report(target: &Target, seed: u64, r: &Report, secs: f64) {
    let t = &r.tally;
    println!(
        "{:<18} cases {:>9}  ok {:>9}  refused {:>9}  unlocated {:>5}  broken {:>5}  panics {:>5}  aborts {:>3}  {:>8.1} s  {:>9.0} cases/s",
        target.name(),
        t.cases,
        t.ok,
        t.refused,
        t.unlocated,
        t.broken,
        t.panics,
        t.aborts,
        secs,
        t.cases as f64 / secs.max(1e-9)
    );
    for (loc, f) in &r.panics {
        println!(
            "  PANIC at {loc}: {} ({} cases; first: --target {} --seed {seed} --case {})\n{}",
            f.message,
            f.count,
            target.name(),
            f.index,
            indent(&f.repro)
        );
    }
    // Aborts and unlocated errors: the first few, inputs cut (replay with --case for all of it).
    for (i, status, repro) in r.aborts.iter().take(5) {
        println!(
            "  ABORT case {i} (--target {} --seed {seed} --case {i}): {status}\n{}",
            target.name(),
            indent(&cut(repro))
        );
    }
    for (i, msg, repro) in r.unlocated.iter().take(5) {
        println!("  UNLOCATED ERROR case {i}: {msg}\n{}", indent(&cut(repro)));
    }
    for (i, msg, repro) in r.broken.iter().take(5) {
        println!(
            "  BROKEN case {i} (--target {} --seed {seed} --case {i}): {msg}\n{}",
            target.name(),
            indent(&cut(repro))
        );
    }
}

/// At most 1,000 characters of a reproducer.
fn cut(text: &str) -> String {
    match text.char_indices().nth(1000) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}
