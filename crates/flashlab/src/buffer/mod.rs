//! Buffer layer: an SSD write buffer between the host interface and the FTL, page granular.
//! One policy per file behind [`WriteBuffer`], registered in [`BUFFERS`]. Today: `none`
//! (every page goes straight to the FTL). Policies decide what to keep and what to evict; the
//! FTL below is reached only through the `ftl` argument, so flushes are ordinary FTL writes.

pub mod none;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};

pub trait WriteBuffer: Send {
    fn read(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error>;
    fn write(&mut self, lpn: u64, tag: u32, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error>;
    fn trim(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error>;
    /// Write every dirty page down (end of run, flush command).
    fn flush(&mut self, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error>;
    /// Page hits and page accesses so far.
    fn hits(&self) -> (u64, u64) {
        (0, 0)
    }
}

/// `[buffer]` section.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferConfig {
    #[serde(default = "d_policy")]
    pub policy: String,
}

fn d_policy() -> String {
    "none".into()
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig { policy: d_policy() }
    }
}

pub struct BufferEntry {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn(&BufferConfig) -> Result<Box<dyn WriteBuffer>, Error>,
}

pub const BUFFERS: &[BufferEntry] = &[BufferEntry { name: "none", about: "no buffer: every page goes to the FTL", build: none::build }];

pub fn names() -> Vec<&'static str> {
    BUFFERS.iter().map(|b| b.name).collect()
}

pub fn build(cfg: &BufferConfig) -> Result<Box<dyn WriteBuffer>, Error> {
    match BUFFERS.iter().find(|b| b.name == cfg.policy) {
        Some(b) => (b.build)(cfg),
        None => Err(Error::unknown("buffer policy", &cfg.policy, names())),
    }
}
