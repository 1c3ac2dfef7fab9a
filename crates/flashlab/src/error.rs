//! Errors at the edges of the simulator: configuration, traces, files.
//!
//! Inside the core a broken invariant is a bug and panics with a message naming the invariant;
//! everything a user can get wrong (a malformed trace line, a config that contradicts itself, an
//! unknown policy name) is an [`Error`] that names the file, line and field, so the CLI can print
//! it and exit non-zero.

use std::fmt;
use std::path::Path;

/// Where a piece of input came from: a file and, when known, a line and a field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// The file (or stream, or override label) the problem is in.
    pub file: String,
    /// 1-based line (record number for binary formats), when known.
    pub line: Option<u64>,
    /// The field or key, when known.
    pub field: Option<String>,
}

impl Location {
    /// A whole file, no line or field.
    pub fn file(path: impl AsRef<Path>) -> Self {
        Location { file: path.as_ref().display().to_string(), line: None, field: None }
    }
    /// A line of a file.
    pub fn line(path: impl AsRef<Path>, line: u64) -> Self {
        Location { file: path.as_ref().display().to_string(), line: Some(line), field: None }
    }
    /// The same place, naming a field.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        Ok(())
    }
}

/// Every error a user can cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Malformed input at a known place (trace line, config key).
    #[error("{at}: {msg}")]
    Input {
        /// Where.
        at: Location,
        /// What is wrong.
        msg: String,
    },
    /// A configuration that is well-formed but impossible or self-contradictory. Displayed as
    /// `file:line: invalid configuration: `key`: msg` once the config has placed it
    /// ([`crate::Config::attribute`]), as an [`Error::Input`] names its place.
    #[error("{}invalid configuration: `{key}`: {msg}", place(at))]
    Config {
        /// The dotted key (`ftl.gc_params.window`).
        key: String,
        /// What is wrong.
        msg: String,
        /// Where the key was set: the config file and its line, or the override (`--set k=v`,
        /// or the label a caller gave it); `None` until the config attributes the error.
        at: Option<Location>,
    },
    /// A name that is not in a registry; lists the valid ones.
    #[error("unknown {kind} `{name}`; valid: {}", valid.join(", "))]
    UnknownName {
        /// What kind of name (`GC policy`).
        kind: &'static str,
        /// The name given.
        name: String,
        /// The registered names.
        valid: Vec<&'static str>,
    },
    /// A file that cannot be opened or read.
    #[error("{path}: {err}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        err: std::io::Error,
    },
    /// A command a zoned device refuses (a write off the write pointer, too many open or
    /// active zones): the simulator reports it with the request's trace line.
    #[error("zone error: {0}")]
    Zone(String),
    /// The simulated device ran out of reclaimable space (logical data fills physical space).
    #[error("device full: {0}")]
    DeviceFull(String),
    /// The caller asked the run to stop ([`crate::sim::Progress::cancelled`]).
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// Bad input at `at` (a trace record, a config line, an override).
    pub fn input(at: Location, msg: impl Into<String>) -> Self {
        Error::Input { at, msg: msg.into() }
    }
    /// An invalid configuration value of `key`.
    pub fn config(key: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Config { key: key.into(), msg: msg.into(), at: None }
    }
    /// A file that cannot be opened or read.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io { path: path.as_ref().display().to_string(), err: source }
    }
    /// A name not in its registry (`kind`: "GC policy", …), listing the valid ones.
    pub fn unknown(kind: &'static str, name: &str, valid: Vec<&'static str>) -> Self {
        Error::UnknownName { kind, name: name.to_string(), valid }
    }
}

/// `file:line: ` before a placed configuration error, nothing before an unplaced one.
fn place(at: &Option<Location>) -> String {
    at.as_ref().map_or(String::new(), |at| format!("{at}: "))
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
