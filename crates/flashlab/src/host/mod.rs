//! Host layer: turns byte-addressed requests into page operations on the device. One policy per
//! file behind [`HostLayer`], registered in [`HOST_LAYERS`]. Today: `passthrough` (a request
//! covers the pages its byte range touches). Later: a file system model, a block layer with a
//! raw-flash driver.

pub mod passthrough;

use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::error::Error;
use crate::workload::Request;

pub trait HostLayer: Send {
    /// Issue `req` at `t_ns` against `dev`; returns the completion time of its last page.
    fn submit(&mut self, req: &Request, t_ns: u64, dev: &mut Device) -> Result<u64, Error>;
}

/// What to do with a request beyond the logical capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutOfRange {
    /// Stop with an error naming the trace line (default).
    Error,
    /// Wrap addresses modulo the logical capacity (distinct pages of a larger trace alias).
    Wrap,
    /// Remap every address flash block by flash block, in first-touch order: distinct pages stay
    /// distinct and a block's pages stay together, so a trace with a sparse address range runs
    /// on any device its touched blocks fit; an error when they do not.
    Compact,
}

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Open loop for traces (their timestamps), closed loop for generators.
    Auto,
    /// At the workload's timestamps (scaled by the trace's `time_scale`).
    Open,
    /// Back to back, with at most `queue_depth` requests outstanding.
    Closed,
}

/// `[host]` section.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    #[serde(default = "d_layer")]
    pub layer: String,
    #[serde(default = "d_oor")]
    pub out_of_range: OutOfRange,
    #[serde(default = "d_arrival")]
    pub arrival: Arrival,
    /// Outstanding requests in closed loop.
    #[serde(default = "d_qd")]
    pub queue_depth: u32,
}

fn d_layer() -> String {
    "passthrough".into()
}
fn d_oor() -> OutOfRange {
    OutOfRange::Error
}
fn d_arrival() -> Arrival {
    Arrival::Auto
}
fn d_qd() -> u32 {
    32
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig { layer: d_layer(), out_of_range: d_oor(), arrival: d_arrival(), queue_depth: d_qd() }
    }
}

pub struct HostEntry {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn(&HostConfig) -> Result<Box<dyn HostLayer>, Error>,
}

pub const HOST_LAYERS: &[HostEntry] = &[HostEntry {
    name: "passthrough",
    about: "a request covers the pages its byte range touches",
    build: passthrough::build,
}];

pub fn names() -> Vec<&'static str> {
    HOST_LAYERS.iter().map(|h| h.name).collect()
}

pub fn build(cfg: &HostConfig) -> Result<Box<dyn HostLayer>, Error> {
    match HOST_LAYERS.iter().find(|h| h.name == cfg.layer) {
        Some(h) => (h.build)(cfg),
        None => Err(Error::unknown("host layer", &cfg.layer, names())),
    }
}
