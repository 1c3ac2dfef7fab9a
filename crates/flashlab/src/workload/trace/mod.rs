//! Trace readers, one file per format, registered in [`FORMATS`]. Streamed; `.gz`, `.zst`, `.bz2`
//! decompressed transparently. (Interface stub: implementations land with the trace work.)

use std::path::PathBuf;

use super::Workload;
use crate::error::Error;

/// How to read a trace.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TraceOptions {
    pub path: PathBuf,
    /// Format name from [`FORMATS`]; `None` = detect from the file name and first lines.
    pub format: Option<String>,
    /// Keep only records of this device / volume / ASU / LUN number (formats that carry one).
    pub device: Option<u64>,
    /// Multiply every timestamp by this (e.g. 0.5 replays twice as fast). Default 1.0.
    pub time_scale: f64,
    /// Override the time unit of formats whose unit varies ("ns", "us", "ms", "s").
    pub time_unit: Option<String>,
}

impl TraceOptions {
    /// Parse the `[workload]` table of a `kind = "trace"` config (without `kind`).
    pub fn from_table(table: &toml::Table, source: &str) -> Result<TraceOptions, Error> {
        let path = table.get("path").and_then(|v| v.as_str()).ok_or_else(|| Error::config("workload.path", format!("{source}: missing")))?;
        Ok(TraceOptions { path: PathBuf::from(path), format: None, device: None, time_scale: 1.0, time_unit: None })
    }
}

pub struct FormatEntry {
    pub name: &'static str,
    pub about: &'static str,
}

pub const FORMATS: &[FormatEntry] = &[];

/// Open a trace as a streaming workload.
pub fn open(opts: &TraceOptions) -> Result<Box<dyn Workload>, Error> {
    Err(Error::config("workload.path", format!("{}: trace readers not built yet", opts.path.display())))
}

/// Trace statistics (stub until the readers land).
#[derive(serde::Serialize)]
pub struct TraceStats {}
impl std::fmt::Display for TraceStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "-")
    }
}
pub fn stats(opts: &TraceOptions, _page_size: u64) -> Result<TraceStats, Error> {
    open(opts).map(|_| TraceStats {})
}
