//! Buffer layer: an SSD write buffer between the host interface and the FTL, page granular.
//! One policy per file behind [`WriteBuffer`], registered in [`BUFFERS`]: `none` (every page
//! goes straight to the FTL), `lru`, `clock`, `fab`. Policies decide what to keep and what to evict;
//! the slots, write-back and fetch mechanics are shared (`pages.rs`); the FTL below is reached
//! only through the `ftl` argument, so flushes are ordinary FTL writes.

pub mod clock;
pub mod fab;
pub mod lru;
pub mod none;
pub mod pages;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};
use crate::units::ByteSize;

pub use pages::BufferCounters;

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
    /// Hits by reads and writes, pages written down (buffers that hold pages).
    fn counters(&self) -> Option<BufferCounters> {
        None
    }
    /// Cross-check internal structures (check mode).
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// `[buffer]` section.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferConfig {
    #[serde(default = "d_policy")]
    pub policy: String,
    /// DRAM buffer capacity (policies other than `none`).
    #[serde(default)]
    pub dram: ByteSize,
}

impl BufferConfig {
    /// DRAM capacity in pages; at least one page for a policy that holds pages.
    pub fn dram_pages(&self, page_size: u64) -> Result<u32, Error> {
        let pages = self.dram.0 / page_size;
        if pages == 0 || pages > u32::MAX as u64 - 1 {
            return Err(Error::config(
                "buffer.dram",
                format!("policy `{}` needs a DRAM size of at least one {page_size}-byte page (e.g. dram = \"16MiB\")", self.policy),
            ));
        }
        Ok(pages as u32)
    }
}

fn d_policy() -> String {
    "none".into()
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig { policy: d_policy(), dram: ByteSize(0) }
    }
}

/// What a buffer needs to know about the device.
#[derive(Clone, Copy, Debug)]
pub struct BufferContext {
    pub page_size: u64,
    /// Pages per flash block: block-level policies group pages by `lpn / pages_per_block`.
    pub pages_per_block: u64,
}

/// A policy's constructor: the `[buffer]` section and the device context.
pub type BufferBuildFn = fn(&BufferConfig, &BufferContext) -> Result<Box<dyn WriteBuffer>, Error>;

pub struct BufferEntry {
    pub name: &'static str,
    pub about: &'static str,
    pub build: BufferBuildFn,
}

pub const BUFFERS: &[BufferEntry] = &[
    BufferEntry { name: "none", about: "no buffer: every page goes to the FTL", build: none::build },
    BufferEntry { name: "lru", about: "page LRU, write-back, reads cached ([buffer] dram)", build: lru::build },
    BufferEntry { name: "clock", about: "page CLOCK (second chance), write-back, reads cached ([buffer] dram)", build: clock::build },
    BufferEntry { name: "fab", about: "FAB: evict the flash block with the most buffered pages, LRU among ties (Jo et al. 2006)", build: fab::build },
];

pub fn names() -> Vec<&'static str> {
    BUFFERS.iter().map(|b| b.name).collect()
}

pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    match BUFFERS.iter().find(|b| b.name == cfg.policy) {
        Some(b) => (b.build)(cfg, ctx),
        None => Err(Error::unknown("buffer policy", &cfg.policy, names())),
    }
}
