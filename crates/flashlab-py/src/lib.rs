//! `flashlab._flashlab`: the Rust side of the Python package (python/flashlab).
//!
//! Thin by design: configuration in (a preset name, a TOML path or a config tree as JSON, plus
//! `key=value` overrides), results out (the `results.json` text). Everything else — tables,
//! sweeps, plots — is Python over these results; no simulation logic lives in Python. Errors
//! from the core become `flashlab.FlashlabError` with the CLI's message; the GIL is released
//! while simulating.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use flashlab::sim::{self, Progress};
use flashlab::{Config, Error};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    flashlab,
    FlashlabError,
    PyValueError,
    "A configuration, trace or file error from the simulator (the message names the file, line and field)."
);

fn to_py(e: Error) -> PyErr {
    FlashlabError::new_err(e.to_string())
}

/// A JSON value as a TOML value. In a table, a `null` value means the key is absent (so a
/// config echoed with its unset options reads back as itself); elsewhere it is refused,
/// naming `field`.
fn json_to_toml(v: serde_json::Value, field: &str, source: &str) -> PyResult<toml::Value> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => {
            return Err(FlashlabError::new_err(format!(
                "{source}: field `{field}`: None has no TOML form (leave the key out)"
            )))
        }
        J::Bool(b) => toml::Value::Boolean(b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None if n.is_u64() => {
                return Err(FlashlabError::new_err(format!("{source}: field `{field}`: {n} is too large for TOML")))
            }
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => toml::Value::String(s),
        J::Array(items) => toml::Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, x)| json_to_toml(x, &format!("{field}[{i}]"), source))
                .collect::<PyResult<_>>()?,
        ),
        J::Object(map) => {
            let mut t = toml::Table::new();
            for (k, x) in map.into_iter().filter(|(_, x)| !x.is_null()) {
                let sub = if field.is_empty() { k.clone() } else { format!("{field}.{k}") };
                t.insert(k, json_to_toml(x, &sub, source)?);
            }
            toml::Value::Table(t)
        }
    })
}

/// `[["ftl.gc", "fifo", label], ["workload.theta", null, label]]` (JSON, in the order to apply)
/// as `["ftl.gc=\"fifo\"", "workload.theta="]` — the CLI's `--set` strings, so path handling is
/// the CLI's — and their labels: how the caller wrote each one (`overrides['ftl.gc'] = 'fifo'`),
/// which errors quote instead of `--set` syntax.
fn overrides(json: &str) -> PyResult<(Vec<String>, Vec<String>)> {
    let triples: Vec<(String, serde_json::Value, String)> =
        serde_json::from_str(json).map_err(|e| FlashlabError::new_err(format!("overrides: {e}")))?;
    let mut sets = Vec::with_capacity(triples.len());
    let mut labels = Vec::with_capacity(triples.len());
    for (k, v, label) in triples {
        sets.push(match v {
            serde_json::Value::Null => format!("{k}="),
            v => format!("{k}={}", json_to_toml(v, &k, &label)?),
        });
        labels.push(label);
    }
    Ok((sets, labels))
}

/// Parse and validate a configuration: `config` names a file or preset, or, with `tree`, is a
/// label for a config given as a JSON object.
fn load(config: &str, tree: Option<&str>, overrides_json: &str) -> PyResult<Config> {
    let (sets, labels) = overrides(overrides_json)?;
    match tree {
        None => Config::load_named_labelled(config, &sets, &labels).map_err(to_py),
        Some(json) => {
            let value: serde_json::Value =
                serde_json::from_str(json).map_err(|e| FlashlabError::new_err(format!("{config}: {e}")))?;
            match json_to_toml(value, "", config)? {
                toml::Value::Table(t) => Config::from_table_labelled(t, config, &sets, &labels).map_err(to_py),
                _ => Err(FlashlabError::new_err(format!("{config}: a configuration must be a table (dict)"))),
            }
        }
    }
}

/// A flag another thread sets to stop runs that share it (a sweep's worker threads cannot see
/// Ctrl-C themselves: Python delivers signals to the main thread only). Checked without the GIL.
#[pyclass(frozen)]
struct CancelToken(Arc<AtomicBool>);

#[pymethods]
impl CancelToken {
    #[new]
    fn new() -> Self {
        CancelToken(Arc::new(AtomicBool::new(false)))
    }
    /// Stop every run holding this token (within about 16,000 requests).
    fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Reports progress to an optional Python callable `(phase, done, total)` and stops the run on
/// Ctrl-C or a cancelled token: callback and signal check take the GIL briefly, at most every
/// 100 ms.
struct PyProgress {
    token: Option<Arc<AtomicBool>>,
    callback: Option<Py<PyAny>>,
    phase: String,
    total: u64,
    last_report: Instant,
    last_signals: Instant,
    error: Option<PyErr>,
}

/// True at most once per 100 ms (wall time paces only the UI, never the simulation).
fn due(last: &mut Instant) -> bool {
    if last.elapsed() < Duration::from_millis(100) {
        return false;
    }
    *last = Instant::now();
    true
}

impl PyProgress {
    fn new(callback: Option<Py<PyAny>>, token: Option<Arc<AtomicBool>>) -> Self {
        let now = Instant::now();
        PyProgress { token, callback, phase: String::new(), total: 0, last_report: now, last_signals: now, error: None }
    }
    fn report(&mut self, done: u64) {
        if let Some(cb) = &self.callback {
            let r = Python::attach(|py| cb.call1(py, (self.phase.as_str(), done, self.total)).map(|_| ()));
            if let Err(e) = r {
                self.error.get_or_insert(e);
            }
        }
    }
}

impl Progress for PyProgress {
    fn phase(&mut self, name: &str, total: u64) {
        self.phase = name.to_string();
        self.total = total;
        self.report(0);
    }
    fn update(&mut self, done: u64) {
        if due(&mut self.last_report) {
            self.report(done);
        }
    }
    fn finish(&mut self) {
        let total = self.total;
        self.report(total);
    }
    fn cancelled(&mut self) -> bool {
        if self.error.is_none() && self.token.as_ref().is_some_and(|t| t.load(Ordering::Relaxed)) {
            self.error = Some(pyo3::exceptions::PyKeyboardInterrupt::new_err("cancelled"));
        }
        if self.error.is_none() && due(&mut self.last_signals) {
            if let Err(e) = Python::attach(|py| py.check_signals()) {
                self.error = Some(e);
            }
        }
        self.error.is_some()
    }
}

/// Configurations already validated by a sweep, each under its key ([`seedless_key`]): a sweep
/// over seeds or over keys the workload does not read validates each distinct config once.
#[pyclass(frozen)]
struct CheckCache(Mutex<HashSet<String>>);

#[pymethods]
impl CheckCache {
    #[new]
    fn new() -> Self {
        CheckCache(Mutex::new(HashSet::new()))
    }
    /// How many distinct configurations were validated.
    fn __len__(&self) -> usize {
        self.0.lock().map_or(0, |set| set.len())
    }
}

/// A config's identity for validation: its source and every field but the seed, which only
/// seeds the random streams (validation checks values, sizes and names, and builds the
/// workload's generator, whose set-up — a zipf table can take 100 ms — does not depend on it).
fn seedless_key(cfg: &Config) -> PyResult<String> {
    let mut c = cfg.clone();
    c.seed = 0;
    let json = serde_json::to_string(&c).map_err(|e| FlashlabError::new_err(e.to_string()))?;
    Ok(format!("{}\n{json}", cfg.source))
}

/// Validate a configuration without running it ([`sim::validate`]); returns the parsed config
/// as JSON (the `config` member of `results.json`), or `None` when `want_config` is false. With
/// a `cache`, a configuration equal to one validated before but for its seed is not validated
/// again. The GIL is released while validating.
#[pyfunction]
#[pyo3(signature = (config, tree=None, overrides="[]", cache=None, want_config=true))]
fn check(
    py: Python<'_>,
    config: &str,
    tree: Option<&str>,
    overrides: &str,
    cache: Option<&CheckCache>,
    want_config: bool,
) -> PyResult<Option<String>> {
    py.detach(|| {
        let cfg = load(config, tree, overrides)?;
        let key = cache.map(|_| seedless_key(&cfg)).transpose()?;
        let known = match (&key, cache) {
            (Some(k), Some(c)) => c.0.lock().is_ok_and(|set| set.contains(k)),
            _ => false,
        };
        if !known {
            sim::validate(&cfg).map_err(to_py)?;
            if let (Some(k), Some(c)) = (key, cache) {
                if let Ok(mut set) = c.0.lock() {
                    set.insert(k);
                }
            }
        }
        if !want_config {
            return Ok(None);
        }
        serde_json::to_string(&cfg).map(Some).map_err(|e| FlashlabError::new_err(e.to_string()))
    })
}

/// Test hook, private (`flashlab._flashlab._die`): end this process the way a simulator bug
/// would — `"panic"`: a Rust panic (Python sees `PanicException`); `"abort"`:
/// `std::process::abort` (SIGABRT, as an allocation failure does). The sweep tests use it to
/// kill workers for real; nothing else calls it.
#[pyfunction]
fn _die(kind: &str) -> PyResult<()> {
    match kind {
        "panic" => panic!("flashlab._flashlab._die(\"panic\"): a panic on purpose (test hook)"),
        "abort" => std::process::abort(),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "_die: kind must be \"panic\" or \"abort\", not {kind:?}"
        ))),
    }
}

/// Run one simulation; returns the `results.json` text.
#[pyfunction]
#[pyo3(signature = (config, tree=None, overrides="[]", progress=None, token=None))]
fn run(
    py: Python<'_>,
    config: &str,
    tree: Option<&str>,
    overrides: &str,
    progress: Option<Py<PyAny>>,
    token: Option<&CancelToken>,
) -> PyResult<String> {
    let cfg = load(config, tree, overrides)?;
    let mut p = PyProgress::new(progress, token.map(|t| t.0.clone()));
    let result = py.detach(|| sim::run(&cfg, &mut p).map(|r| r.to_json()));
    if let Some(e) = p.error.take() {
        return Err(e);
    }
    result.map_err(to_py)
}

/// Statistics of a trace file (`flashlab trace stats --json`).
#[pyfunction]
#[pyo3(signature = (path, format=None, device=None, page_size=4096))]
fn trace_stats(
    py: Python<'_>,
    path: &str,
    format: Option<String>,
    device: Option<u64>,
    page_size: u64,
) -> PyResult<String> {
    let opts = flashlab::workload::trace::TraceOptions {
        format,
        device,
        ..flashlab::workload::trace::TraceOptions::new(path)
    };
    let stats = py.detach(|| flashlab::workload::trace::stats(&opts, page_size)).map_err(to_py)?;
    serde_json::to_string(&stats).map_err(|e| FlashlabError::new_err(e.to_string()))
}

/// One registry for Python: (id, title, [(name, about), ...]).
type Registry = (String, String, Vec<(String, String)>);

/// Every registry: `[(id, title, [(name, about), ...]), ...]`.
#[pyfunction]
fn registries() -> Vec<Registry> {
    flashlab::catalog::registries().into_iter().map(|r| (r.id.to_string(), r.title.to_string(), r.entries)).collect()
}

/// The embedded presets: `[(name, about), ...]`.
#[pyfunction]
fn presets() -> Vec<(String, String)> {
    flashlab::presets::PRESETS.iter().map(|p| (p.name.to_string(), flashlab::presets::about(p).to_string())).collect()
}

/// A size in bytes from `"16MiB"`, `"4K"`, `"4096"` (the config's units).
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    flashlab::units::parse_size(text).map_err(FlashlabError::new_err)
}

/// One step of `flashlab.reproduce`: run reproduction `name` (or `all`) with every simulator
/// run's results read from `runs_dir/NAME/ID.json`. While some are missing, returns them (JSON
/// `{"missing": [{"reproduction", "id", "label", "config"}]}`, the first reproduction and phase
/// that lacks any) for the caller to run (`run_planned`) and store; then writes the reports into
/// `out/NAME/` (and `out/index.html` for `all`) exactly as `flashlab reproduce` does, and returns
/// `{"missing": [], "reports": [paths]}`.
#[pyfunction]
#[pyo3(signature = (name, scale, out, runs_dir, traces=None, excerpts=false, threads=1, wall_s=0.0))]
#[allow(clippy::too_many_arguments)]
fn reproduce_step(
    py: Python<'_>,
    name: &str,
    scale: &str,
    out: &str,
    runs_dir: &str,
    traces: Option<&str>,
    excerpts: bool,
    threads: usize,
    wall_s: f64,
) -> PyResult<String> {
    use flashlab_repro as repro;
    let scale: repro::Scale = scale.parse().map_err(to_py)?;
    let chosen: Vec<&repro::Reproduction> =
        if name == "all" { repro::REPRODUCTIONS.iter().collect() } else { vec![repro::find(name).map_err(to_py)?] };
    let traces = repro::locate_traces(&chosen, scale, traces.map(std::path::PathBuf::from), excerpts).map_err(to_py)?;
    let base = repro::Setup { scale, threads: threads.max(1), traces, runs: repro::Runs::Memory };
    let out = std::path::Path::new(out);
    py.detach(|| -> PyResult<String> {
        let mut done = Vec::new();
        for r in &chosen {
            let missing = Arc::new(Mutex::new(Vec::new()));
            let dir = std::path::Path::new(runs_dir).join(r.name);
            let setup = repro::Setup { runs: repro::Runs::Collect { dir, missing: missing.clone() }, ..base.clone() };
            match (r.run)(&setup, &NoProgress) {
                Err(Error::Interrupted) => {
                    let runs = std::mem::take(&mut *missing.lock().unwrap_or_else(|e| e.into_inner()));
                    let list: Vec<serde_json::Value> = runs
                        .into_iter()
                        .map(|p| {
                            serde_json::json!({
                                "reproduction": r.name,
                                "id": p.id,
                                "label": p.label,
                                "config": serde_json::to_string(&p.config).unwrap_or_default(),
                            })
                        })
                        .collect();
                    return Ok(serde_json::json!({ "missing": list }).to_string());
                }
                Err(e) => return Err(to_py(e)),
                Ok(outcome) => done.push((*r, repro::finish(r, &setup, outcome, wall_s).map_err(to_py)?)),
            }
        }
        let write = |path: std::path::PathBuf, bytes: &[u8]| -> PyResult<()> {
            if let Some(d) = path.parent() {
                std::fs::create_dir_all(d).map_err(|e| to_py(Error::io(d, e)))?;
            }
            std::fs::write(&path, bytes).map_err(|e| to_py(Error::io(&path, e)))
        };
        let mut reports = Vec::new();
        for (r, f) in &done {
            for (file, bytes) in &f.files {
                write(out.join(r.name).join(file), bytes)?;
            }
            reports.push(out.join(r.name).join("report.md").display().to_string());
        }
        if name == "all" {
            let refs: Vec<(&repro::Reproduction, &repro::Finished)> = done.iter().map(|(r, f)| (*r, f)).collect();
            write(out.join("index.html"), repro::index_html(scale, &base, &refs).as_bytes())?;
            reports.push(out.join("index.html").display().to_string());
        }
        Ok(serde_json::json!({ "missing": [], "reports": reports }).to_string())
    })
}

/// No progress display.
struct NoProgress;
impl flashlab_repro::RunProgress for NoProgress {}

/// Run one configuration of a reproduction's plan (the complete configuration as JSON, from
/// `reproduce_step`); returns the `results.json` text.
#[pyfunction]
#[pyo3(signature = (config_json, token=None))]
fn run_planned(py: Python<'_>, config_json: &str, token: Option<&CancelToken>) -> PyResult<String> {
    let cfg: Config = serde_json::from_str(config_json)
        .map_err(|e| FlashlabError::new_err(format!("a planned run's configuration: {e}")))?;
    let mut p = PyProgress::new(None, token.map(|t| t.0.clone()));
    let result = py.detach(|| sim::run(&cfg, &mut p).map(|r| r.to_json()));
    if let Some(e) = p.error.take() {
        return Err(e);
    }
    result.map_err(to_py)
}

#[pymodule]
fn _flashlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FlashlabError", m.py().get_type::<FlashlabError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PanicException", m.py().get_type::<pyo3::panic::PanicException>())?;
    m.add_class::<CancelToken>()?;
    m.add_class::<CheckCache>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(registries, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(_die, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce_step, m)?)?;
    m.add_function(wrap_pyfunction!(run_planned, m)?)?;
    Ok(())
}
