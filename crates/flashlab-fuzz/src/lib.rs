//! flashlab's fuzz harness, on stable Rust: seeded case generators, one per target, and a loop
//! that runs them and counts what happened.
//!
//! Targets (read from the registries, so a new trace format or policy is fuzzed the moment it
//! is registered):
//! - `trace-<format>`, one per entry of [`flashlab::workload::trace::FORMATS`]: mutated bytes of
//!   valid samples (bit flips, truncation, splicing, huge numbers, compressed and corrupt
//!   compressed variants) read through the public reader API; a share of cases is also written
//!   to a file and run through a tiny simulation ([`traces`]).
//! - `config`: type-correct random config trees built from the configuration reference (the
//!   keys and types `flashlab::reference` derives from the config's JSON schema and from every
//!   registry entry's parameter schema), values biased to edges, then `Config::from_table` and,
//!   when valid, `sim::run` on a bounded run ([`configs`], which says what is forced and why).
//! - `output` and `memory`: the `flashlab` command run as processes, checking a property of
//!   what they leave ([`processes`]): concurrent writers into one output directory never mix
//!   or strand files; a run's peak resident memory never exceeds its estimate.
//!
//! Fault model: a case must end in `Ok` or a `flashlab::Error`; a panic, or a property a target
//! checks that does not hold ([`Verdict::Broken`]), is a finding. Panics are
//! caught here, per case, with `catch_unwind` (only to count them and print the reproducer: the
//! library never catches its own panics); an abort (allocation failure, stack overflow) kills
//! the process, so long runs execute cases in child processes (`main.rs`) that report each case
//! before running it. Every case is a pure function of (target, case index, run seed): the
//! reproducer of any finding is `flashlab-fuzz --target T --case N` plus the input it prints.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

pub mod configs;
pub mod processes;
pub mod traces;
mod values;

/// The generator every case draws from.
pub type Rng = Xoshiro256PlusPlus;

/// A fuzz target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Mutated traces read with the named format.
    Trace(&'static str),
    /// Random configurations.
    Config,
    /// Concurrent `flashlab run` writers into one output directory.
    Output,
    /// Random shapes run by `flashlab`: peak memory against the estimate.
    Memory,
}

impl Target {
    /// Every target: one per trace format, then `config`, `output` and `memory`.
    pub fn all() -> Vec<Target> {
        let mut out: Vec<Target> = flashlab::workload::trace::FORMATS.iter().map(|f| Target::Trace(f.name)).collect();
        out.extend([Target::Config, Target::Output, Target::Memory]);
        out
    }

    /// Whether a case runs `flashlab` processes (slow: seconds, not microseconds, per case).
    pub fn runs_processes(&self) -> bool {
        matches!(self, Target::Output | Target::Memory)
    }

    /// The targets a command-line word names: `all`, `trace` (every trace format), `config`,
    /// `output`, `memory`, or one `trace-<format>`.
    pub fn parse(word: &str) -> Result<Vec<Target>, String> {
        let all = Target::all();
        let picked: Vec<Target> = match word {
            "all" => all.clone(),
            "trace" => all.iter().filter(|t| matches!(t, Target::Trace(_))).cloned().collect(),
            name => all.iter().filter(|t| t.name() == name).cloned().collect(),
        };
        if picked.is_empty() {
            let names: Vec<String> = all.iter().map(Target::name).collect();
            return Err(format!("unknown target `{word}`; valid: all, trace, {}", names.join(", ")));
        }
        Ok(picked)
    }

    /// The name on the command line and in reports.
    pub fn name(&self) -> String {
        match self {
            Target::Trace(f) => format!("trace-{f}"),
            Target::Config => "config".into(),
            Target::Output => "output".into(),
            Target::Memory => "memory".into(),
        }
    }

    /// Generate case `index` of the run seeded `seed`.
    pub fn case(&self, seed: u64, index: u64) -> Case {
        let mut rng = case_rng(&self.name(), seed, index);
        match self {
            Target::Trace(format) => Case::Trace(traces::generate(format, &mut rng)),
            Target::Config => Case::Config(configs::generate(&mut rng)),
            Target::Output => Case::Output(processes::generate_output(&mut rng)),
            Target::Memory => Case::Memory(processes::generate_memory(&mut rng)),
        }
    }
}

/// The generator of one case: SplitMix-derived from the target name, the run seed and the index.
fn case_rng(target: &str, seed: u64, index: u64) -> Rng {
    let run = flashlab::sim::derive_seed(seed, target);
    Rng::seed_from_u64(flashlab::sim::derive_seed(run ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15), "case"))
}

/// One generated input.
#[derive(Clone, Debug)]
pub enum Case {
    Trace(traces::TraceCase),
    Config(configs::ConfigCase),
    Output(processes::OutputCase),
    Memory(processes::MemoryCase),
}

impl Case {
    /// Run the case; a panic propagates (see [`run_caught`]).
    pub fn run(&self) -> Verdict {
        match self {
            Case::Trace(c) => c.run(),
            Case::Config(c) => c.run(),
            Case::Output(c) => c.run(),
            Case::Memory(c) => c.run(),
        }
    }

    /// The input as text a person can replay (TOML for configs; options and escaped bytes for
    /// traces).
    pub fn reproducer(&self) -> String {
        match self {
            Case::Trace(c) => c.reproducer(),
            Case::Config(c) => c.toml(),
            Case::Output(c) => c.reproducer(),
            Case::Memory(c) => c.toml.clone(),
        }
    }

    /// The raw input: the trace's bytes, or the config as TOML.
    pub fn raw(&self) -> Vec<u8> {
        match self {
            Case::Trace(c) => c.bytes.clone(),
            Case::Config(c) => c.toml().into_bytes(),
            Case::Output(c) => c.reproducer().into_bytes(),
            Case::Memory(c) => c.toml.clone().into_bytes(),
        }
    }

    /// A smaller input that panics at the same place, when the case panics (configs: keys
    /// removed one by one while the panic stays; traces: as generated).
    pub fn minimise(&self, location: &str) -> Case {
        match self {
            Case::Config(c) => Case::Config(c.minimise(location)),
            other => other.clone(),
        }
    }
}

/// How a case that did not panic ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted (and, where run, simulated).
    Ok,
    /// Refused with a `flashlab::Error` that says where (its message).
    Refused(String),
    /// Refused with an error that does not name its place (the message).
    Unlocated(String),
    /// A property the target checks does not hold (what was seen).
    Broken(String),
}

/// What a case came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done(Verdict),
    /// A panic: where and what.
    Panic {
        location: String,
        message: String,
    },
}

thread_local! {
    /// Set while a case runs on this thread: the panic hook records here instead of printing.
    static CAUGHT: RefCell<Option<Option<(String, String)>>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Install (once) a panic hook that, on a thread running a case, records the panic's location
/// and message silently; elsewhere it defers to the previous hook.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let capturing = CAUGHT.with(|c| c.borrow().is_some());
            if !capturing {
                return previous(info);
            }
            let location = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            let message = match (info.payload().downcast_ref::<&str>(), info.payload().downcast_ref::<String>()) {
                (Some(s), _) => s.to_string(),
                (_, Some(s)) => s.clone(),
                _ => "(non-string panic payload)".into(),
            };
            CAUGHT.with(|c| *c.borrow_mut() = Some(Some((location, message))));
        }));
    });
}

/// Run `case`, catching a panic (harness only: to count it and report its reproducer).
pub fn run_caught(case: &Case) -> Outcome {
    install_hook();
    CAUGHT.with(|c| *c.borrow_mut() = Some(None));
    let result = panic::catch_unwind(AssertUnwindSafe(|| case.run()));
    let caught = CAUGHT.with(|c| c.borrow_mut().take()).flatten();
    match result {
        Ok(v) => Outcome::Done(v),
        Err(_) => {
            let (location, message) = caught.unwrap_or_else(|| ("(unknown)".into(), "(no message)".into()));
            Outcome::Panic { location, message }
        }
    }
}

/// A progress sink that bounds a run without a clock: each phase may ask `cancelled` a fixed
/// number of times (preconditioning asks every 65,536 pages from its first page on, the
/// measured phase every 16,384 requests), so a case simulates at most ~65 k preconditioning
/// pages per phase and ~16 k requests, deterministically.
pub struct Bounded {
    asked: u32,
    allowed: u32,
}

impl Bounded {
    pub fn new() -> Self {
        Bounded { asked: 0, allowed: 1 }
    }
}

impl Default for Bounded {
    fn default() -> Self {
        Self::new()
    }
}

impl flashlab::sim::Progress for Bounded {
    fn phase(&mut self, name: &str, _total: u64) {
        self.asked = 0;
        // Preconditioning asks at its first page too: let it reach its second question.
        self.allowed = if name.starts_with("precondition") { 2 } else { 1 };
    }
    fn cancelled(&mut self) -> bool {
        self.asked += 1;
        self.asked >= self.allowed
    }
}

/// Judge a library result: `Ok`, or an error that says where (`located`).
pub(crate) fn judge<T>(r: Result<T, flashlab::Error>, located: impl Fn(&flashlab::Error) -> bool) -> Verdict {
    match r {
        Ok(_) | Err(flashlab::Error::Interrupted) => Verdict::Ok,
        Err(e) if located(&e) => Verdict::Refused(e.to_string()),
        Err(e) => Verdict::Unlocated(e.to_string()),
    }
}

/// Counts of one target's run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub cases: u64,
    pub ok: u64,
    pub refused: u64,
    pub unlocated: u64,
    pub broken: u64,
    pub panics: u64,
    pub aborts: u64,
}

impl Tally {
    pub fn add(&mut self, o: &Outcome) {
        self.cases += 1;
        match o {
            Outcome::Done(Verdict::Ok) => self.ok += 1,
            Outcome::Done(Verdict::Refused(_)) => self.refused += 1,
            Outcome::Done(Verdict::Unlocated(_)) => self.unlocated += 1,
            Outcome::Done(Verdict::Broken(_)) => self.broken += 1,
            Outcome::Panic { .. } => self.panics += 1,
        }
    }

    pub fn merge(&mut self, o: &Tally) {
        self.cases += o.cases;
        self.ok += o.ok;
        self.refused += o.refused;
        self.unlocated += o.unlocated;
        self.broken += o.broken;
        self.panics += o.panics;
        self.aborts += o.aborts;
    }
}
