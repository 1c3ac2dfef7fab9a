//! Trace readers: one file per format, one line per format in [`FORMATS`].
//!
//! Owns: the trace options ([`TraceOptions`], parsed from a `[workload]` table with
//! `kind = "trace"`), the format registry, [`open`], [`detect_format`] and [`stats`].
//!
//! Pipeline: `input` opens the file and undoes `.gz` / `.zst` / `.bz2` compression (by file name
//! and magic bytes) → a format's `Source` parses records (`lines` holds the shared line reader
//! and field parsers) → `Reader` applies the device filter and turns raw timestamps into ns
//! relative to the first record kept, times `time_scale`. Everything streams: memory is O(1) in
//! the trace length (one line buffer per reader).
//!
//! Fault model: every malformed record is an [`Error::Input`] naming file, 1-based line (record
//! number for binary formats) and field; nothing panics on any input, and nothing is skipped
//! silently. The only lines skipped are blank lines and lines a format defines as non-I/O (each
//! format file says which). A last line without a trailing newline is accepted when it parses
//! (real traces end that way, e.g. MQSim's `wsrch-small.trace`). A last line cut off so that
//! fields are missing fails like any malformed line; one cut inside its last number cannot be
//! told from a complete line (text records carry no length), which is the one limit here. Binary
//! records cut off at end of file are errors.
//!
//! Times: records whose timestamp is earlier than the first record kept get time 0 (some real
//! traces, e.g. SYSTOR'17 and Tencent CBS, are not sorted by arrival time); [`TraceStats`]
//! counts such regressions so they are visible.

mod ascii;
mod blkparse;
mod blkrq;
pub mod builtin;
mod cloudphysics;
mod detect;
mod fio;
mod input;
mod lines;
mod msr;
mod plain_csv;
mod reader;
mod repeat;
mod scsi;
mod spc;
mod stats;
mod systor;
mod tencent;
mod vscsi;
mod wiscsee;

use std::io::Read;
use std::path::{Path, PathBuf};

use super::Workload;
use crate::error::{Error, Location};
use crate::registry::{Entry, Registry};

pub use detect::{detect_format, Detect, Sample};
pub use stats::{stats, ByteBucket, DeviceCount, SizeBucket, TraceStats};

pub(crate) use reader::{Kept, Reader, Record, Source};

/// How to read a trace.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TraceOptions {
    /// Trace file, or `builtin:NAME` for an excerpt compiled in; for [`open_stream`], only the
    /// stream's name in error messages.
    pub path: PathBuf,
    /// Format name from [`FORMATS`]; `None` = detect from the file name and first lines.
    pub format: Option<String>,
    /// Keep only records of this device / volume / ASU / LUN number (formats that carry one).
    pub device: Option<u64>,
    /// Multiply every timestamp by this (e.g. 0.5 replays twice as fast). Default 1.0.
    pub time_scale: f64,
    /// Override the time unit of formats whose unit varies ("ns", "us", "ms", "s").
    pub time_unit: Option<String>,
    /// Replay the trace this many times back to back, each pass starting one mean inter-arrival
    /// gap after the previous one's last request. Default 1.
    pub repeat: u32,
}

/// The keys a `[workload]` table with `kind = "trace"` may hold.
/// The most passes `workload.repeat` takes: 2^20 (see the error it gives).
pub const MAX_REPEAT: u32 = 1 << 20;

pub(crate) const TABLE_KEYS: &[&str] = &["path", "format", "device", "time_scale", "time_unit", "repeat"];

/// The `[workload]` keys of `kind = "trace"` (besides `kind`).
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawOptions {
    /// Trace file (relative to the config file; `.gz`, `.zst`, `.bz2` read transparently), or
    /// `builtin:NAME` for an excerpt compiled in (`flashlab list`).
    path: PathBuf,
    /// Trace format (`flashlab list`); default: detected from the file name and first lines.
    format: Option<String>,
    /// Keep only records of this device / volume / ASU / LUN number (formats that carry one).
    device: Option<u64>,
    /// Multiply every timestamp by this (0.5 replays twice as fast).
    #[serde(default = "d_time_scale")]
    time_scale: f64,
    /// Time unit of formats whose unit varies: `ns`, `us`, `ms`, `s`.
    time_unit: Option<String>,
    /// Replay the trace this many times back to back, each pass starting one mean inter-arrival
    /// gap after the previous one's last request (like MQSim's `Relay_Count`, whose next pass
    /// starts at the last request's time; a trace whose requests share one time repeats at
    /// that time); needs a regular file.
    #[serde(default = "d_repeat")]
    repeat: u32,
}

fn d_time_scale() -> f64 {
    1.0
}

fn d_repeat() -> u32 {
    1
}

/// Schema of the `[workload]` keys of a trace (`TABLE_KEYS`, parsed into `RawOptions`).
pub fn params() -> schemars::Schema {
    crate::registry::schema_of::<RawOptions>()
}

impl TraceOptions {
    /// Options for `path` with every knob at its default (detect the format, no filter, scale 1).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TraceOptions { path: path.into(), format: None, device: None, time_scale: 1.0, time_unit: None, repeat: 1 }
    }

    /// Parse the `[workload]` table of a config (the caller has removed `kind = "trace"`).
    ///
    /// Keys: `path` (required), `format`, `device`, `time_scale`, `time_unit`, `repeat`; any other key is
    /// an error naming it. A relative `path` is resolved against the directory of the config
    /// file `source` when `source` names an existing file; otherwise (e.g. a config given on the
    /// command line or built in code) it is left relative to the working directory.
    pub fn from_table(table: &toml::Table, source: &str) -> Result<TraceOptions, Error> {
        if let Some(key) = table.keys().find(|k| !TABLE_KEYS.contains(&k.as_str())) {
            return Err(Error::config(
                format!("workload.{key}"),
                format!("unknown key in {source} for a trace workload; valid keys: {}", TABLE_KEYS.join(", ")),
            ));
        }
        let raw: RawOptions = toml::Value::Table(table.clone()).try_into().map_err(|e| blame_key(table, &e))?;
        let opts = TraceOptions {
            path: resolve_path(raw.path, source),
            format: raw.format,
            device: raw.device,
            time_scale: raw.time_scale,
            time_unit: raw.time_unit,
            repeat: raw.repeat,
        };
        opts.validate()?;
        Ok(opts)
    }

    /// Check the knobs that do not depend on the file: format name, scale, unit.
    fn validate(&self) -> Result<(), Error> {
        if let Some(name) = &self.format {
            find_format(name)?;
        }
        if !(self.time_scale.is_finite() && self.time_scale > 0.0) {
            return Err(Error::config(
                "workload.time_scale",
                format!("must be a finite number > 0 (got {})", self.time_scale),
            ));
        }
        if let Some(unit) = &self.time_unit {
            unit_ns(unit)?;
        }
        if self.repeat == 0 {
            return Err(Error::config("workload.repeat", "must be at least 1 (the number of passes over the trace)"));
        }
        if self.repeat > MAX_REPEAT {
            return Err(Error::config(
                "workload.repeat",
                format!(
                    "{} passes is more than {MAX_REPEAT}: a trace of 4 M requests replayed that often is already the \
                     most a run may write (about five days of run time); replay a longer trace or fewer passes",
                    self.repeat
                ),
            ));
        }
        Ok(())
    }
}

/// Turn a deserialisation error into one naming the offending key: serde's message says what
/// was wrong but not where, so each present key is re-read alone with its type.
fn blame_key(table: &toml::Table, e: &toml::de::Error) -> Error {
    fn check<T: serde::de::DeserializeOwned>(table: &toml::Table, key: &str) -> Option<String> {
        let value = table.get(key)?.clone();
        value.try_into::<T>().err().map(|e| crate::units::plain_types(e.message()))
    }
    let culprit = [
        ("path", check::<PathBuf>(table, "path")),
        ("format", check::<String>(table, "format")),
        ("device", check::<u64>(table, "device")),
        ("time_scale", check::<f64>(table, "time_scale")),
        ("time_unit", check::<String>(table, "time_unit")),
        ("repeat", check::<u32>(table, "repeat")),
    ]
    .into_iter()
    .find_map(|(key, msg)| msg.map(|m| (key, m)));
    // No file name in the messages: the config's attribution names where the key came from
    // (the file and line, or the `--set`).
    match culprit {
        Some((key, msg)) => Error::config(format!("workload.{key}"), msg),
        None if !table.contains_key("path") => Error::config("workload.path", "a trace workload needs `path`"),
        None => Error::config("workload", crate::units::plain_types(e.message())),
    }
}

/// A relative trace `path` resolved against the directory of the config file `source` (when
/// `source` names an existing file); built-in traces and absolute paths as they are.
pub fn resolve_path(path: PathBuf, source: &str) -> PathBuf {
    if path.to_str().is_some_and(|p| p.starts_with(builtin::PREFIX)) {
        return path;
    }
    let config = Path::new(source);
    if path.is_relative() && config.is_file() {
        if let Some(dir) = config.parent() {
            return dir.join(path);
        }
    }
    path
}

/// Nanoseconds per unit for the `time_unit` knob.
fn unit_ns(unit: &str) -> Result<u64, Error> {
    match unit {
        "ns" => Ok(1),
        "us" => Ok(1_000),
        "ms" => Ok(1_000_000),
        "s" => Ok(1_000_000_000),
        other => {
            Err(Error::config("workload.time_unit", format!("`{other}` is not a time unit; valid: ns, us, ms, s")))
        }
    }
}

/// What a format's reader is told when it is opened (already validated).
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// The `device` filter, so a format whose device column is optional can reject it early.
    pub(crate) device: Option<u64>,
    /// `time_unit` in ns, for formats whose unit may be overridden.
    pub(crate) unit_ns: Option<u64>,
}

/// How a registry line opens its reader (crate-internal: the reader types are not public).
pub struct Opener(pub(crate) OpenFn);

/// A format's reader constructor.
pub(crate) type OpenFn = fn(input::Input, &Settings) -> Result<Box<dyn Source>, Error>;

/// What the trace layer knows about a format before opening it.
pub struct FormatCaps {
    /// The column the `device` filter matches; `None` = the format has no device column.
    pub device_column: Option<&'static str>,
    /// Whether `time_unit` may override the format's time unit.
    pub time_unit_override: bool,
    /// How [`detect_format`] recognises the format.
    pub detect: Detect,
}

/// A registry line of [`FORMATS`]; each lives in its format's file.
pub type FormatEntry = Entry<Opener, FormatCaps>;

/// The registry: every trace format, by the name used in configs and `--format`. Adding a
/// format is one file (its reader, its detection rule and its `FORMAT` line) plus one line here;
/// detection, `time_unit` and `device` checks read the entries.
pub const FORMATS: Registry<Opener, FormatCaps> = Registry {
    id: "format",
    kind: "trace format",
    key: "workload.format",
    title: "trace formats ([workload] format, --format)",
    params_table: None,
    entries: &[
        msr::FORMAT,
        spc::FORMAT,
        blkparse::FORMAT,
        wiscsee::FORMAT,
        fio::FORMAT,
        ascii::FORMAT_DISKSIM,
        ascii::FORMAT_MQSIM,
        ascii::FORMAT_SSDSIM,
        plain_csv::FORMAT,
        cloudphysics::FORMAT,
        vscsi::FORMAT,
        systor::FORMAT,
        tencent::FORMAT,
        blkrq::FORMAT,
    ],
};

/// The names of every registered format, in registry order.
pub fn format_names() -> Vec<&'static str> {
    FORMATS.names()
}

/// Look a format up by name; an unknown name lists the valid ones.
pub fn find_format(name: &str) -> Result<&'static FormatEntry, Error> {
    FORMATS.find(name)
}

/// Open a trace as a streaming workload (detecting the format when `opts.format` is `None`),
/// replayed `opts.repeat` times.
pub fn open(opts: &TraceOptions) -> Result<Box<dyn Workload>, Error> {
    Ok(match opts.repeat {
        1 => Box::new(open_reader_at(opts)?),
        _ => Box::new(repeat::Repeat::open(opts)?),
    })
}

/// Read a trace from any byte stream (stdin, memory, a socket). `opts.format` is required
/// (detection needs a file); `opts.path` only names the stream in error messages. Compression is
/// recognised by its magic bytes.
pub fn open_stream(stream: Box<dyn Read + Send>, opts: &TraceOptions) -> Result<Box<dyn Workload>, Error> {
    opts.validate()?;
    let Some(name) = &opts.format else {
        return Err(Error::config("workload.format", "a format is required when reading a trace from a stream"));
    };
    if opts.repeat != 1 {
        return Err(Error::config("workload.repeat", "a stream cannot be read again: repeat needs a trace file"));
    }
    let entry = find_format(name)?;
    let input = input::Input::from_stream(&opts.path.display().to_string(), stream)?;
    build(entry, input, opts).map(|r| Box::new(r) as Box<dyn Workload>)
}

/// Open a trace file as a [`Reader`], one pass (also used by [`stats`], which needs device
/// numbers and describes the file: `repeat` does not apply).
pub(crate) fn open_reader_at(opts: &TraceOptions) -> Result<Reader, Error> {
    opts.validate()?;
    if let Some(b) = builtin::find(&opts.path) {
        let b = b?;
        let entry = find_format(opts.format.as_deref().unwrap_or(b.format))?;
        let input =
            input::Input::from_stream(&opts.path.display().to_string(), Box::new(std::io::Cursor::new(b.bytes)))?;
        return build(entry, input, opts);
    }
    let entry = match &opts.format {
        Some(name) => find_format(name)?,
        None => find_format(detect_format(&opts.path)?)?,
    };
    let input = input::Input::open(&opts.path)?;
    build(entry, input, opts)
}

fn build(entry: &FormatEntry, input: input::Input, opts: &TraceOptions) -> Result<Reader, Error> {
    if opts.device.is_some() && entry.caps.device_column.is_none() {
        return Err(Error::config(
            "workload.device",
            format!("trace format `{}` has no device column, so it cannot be filtered by device", entry.name),
        ));
    }
    let unit_ns = match &opts.time_unit {
        Some(_) if !entry.caps.time_unit_override => {
            let takers: Vec<&str> = FORMATS.iter().filter(|f| f.caps.time_unit_override).map(|f| f.name).collect();
            return Err(Error::config(
                "workload.time_unit",
                format!(
                    "trace format `{}` has a fixed time unit; only {} take `time_unit`",
                    entry.name,
                    takers.join(", ")
                ),
            ));
        }
        Some(unit) => Some(unit_ns(unit)?),
        None => None,
    };
    let settings = Settings { device: opts.device, unit_ns };
    let source = (entry.build.0)(input, &settings)?;
    let mut reader = Reader::new(source, opts.device, opts.time_scale);
    reader.require_requests(&opts.path.display().to_string())?;
    Ok(reader)
}

/// Where a file-level problem (no line) happened.
pub(crate) fn at_file(name: &str) -> Location {
    Location { file: name.to_string(), line: None, field: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_unique_and_documented() {
        let names = format_names();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "format `{n}` registered twice");
        }
        for f in FORMATS {
            assert!(!f.about.is_empty(), "format `{}` has no description", f.name);
        }
    }

    #[test]
    fn unknown_format_lists_valid_names() {
        let mut opts = TraceOptions::new("x.trace");
        opts.format = Some("nope".into());
        let err = open(&opts).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("unknown trace format `nope`"), "{err}");
        assert!(err.contains("msr") && err.contains("tencent"), "{err}");
    }

    #[test]
    fn table_rejects_unknown_keys_and_bad_values() {
        let table: toml::Table = toml::from_str("path = \"a.csv\"\nspeed = 2").unwrap_or_default();
        let err = TraceOptions::from_table(&table, "cfg.toml").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("workload.speed"), "{err}");
        let table: toml::Table = toml::from_str("path = \"a.csv\"\ntime_scale = -1.0").unwrap_or_default();
        assert!(TraceOptions::from_table(&table, "cfg.toml").is_err());
        let table: toml::Table = toml::from_str("path = \"a.csv\"\ntime_unit = \"fortnight\"").unwrap_or_default();
        assert!(TraceOptions::from_table(&table, "cfg.toml").is_err());
        let table: toml::Table = toml::from_str("path = \"a.csv\"\ndevice = \"x\"").unwrap_or_default();
        let err = TraceOptions::from_table(&table, "cfg.toml").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("workload.device") && err.contains("expected a whole number from 0"), "{err}");
        for bad in ["-1", "2.5", "0"] {
            let table: toml::Table = toml::from_str(&format!("path = \"a.csv\"\nrepeat = {bad}")).unwrap_or_default();
            let err = TraceOptions::from_table(&table, "cfg.toml").err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains("workload.repeat"), "repeat = {bad}: {err}");
        }
    }

    #[test]
    fn table_parses_every_key() {
        let text =
            "path = \"/t/a.csv\"\nformat = \"msr\"\ndevice = 3\ntime_scale = 0.5\ntime_unit = \"us\"\nrepeat = 4";
        let table: toml::Table = toml::from_str(text).unwrap_or_default();
        let opts = TraceOptions::from_table(&table, "nonexistent.toml").expect("valid table");
        assert_eq!(opts.path, PathBuf::from("/t/a.csv"));
        assert_eq!(opts.format.as_deref(), Some("msr"));
        assert_eq!(opts.device, Some(3));
        assert_eq!(opts.time_scale, 0.5);
        assert_eq!(opts.time_unit.as_deref(), Some("us"));
        assert_eq!(opts.repeat, 4);
    }
}
