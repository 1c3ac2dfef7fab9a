//! Buffer layer: an SSD write buffer between the host interface and the FTL, page granular,
//! in DRAM, NVRAM, or both. One policy per file behind [`WriteBuffer`], registered in
//! [`BUFFERS`]. Policies decide what to keep and what to evict; the slots, write-back, fetch,
//! migration and merge mechanics are shared (`pages.rs` for one memory, `dual.rs` for DRAM +
//! NVRAM); the FTL below is reached only through the `ftl` argument, so flushes are ordinary
//! FTL writes and erases and WAF respond to the buffer.
//!
//! [`WriteBuffer`]'s operations take typed pages and times ([`Lpn`], [`Nanos`]), as the
//! [`Ftl`] below does; inside, the slots and the policies' structures hold raw page numbers.

pub mod blockclock;
pub mod bplru;
pub mod cbm;
pub mod clock;
pub mod dual;
pub mod dwb;
pub mod fab;
pub mod groups;
pub mod lbclock;
pub mod lru;
pub mod none;
pub mod pages;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};
use crate::memory::Estimate;
use crate::registry::{no_params as no_schema, schema_of};
use crate::registry::{Entry, Registry};
use crate::units::{ByteSize, Lpn, Nanos};

use pages::PageStore;

/// A write buffer: serves the host's page operations, reaching the FTL below through `ftl`.
pub trait WriteBuffer: Send {
    /// Read logical page `lpn` issued at `t`: from the buffer on a hit, else from `ftl`.
    fn read(&mut self, lpn: Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error>;
    /// Accept version `tag` of `lpn` issued at `t`; returns when it is acknowledged (after any
    /// write-back that made room).
    fn write(&mut self, lpn: Lpn, tag: u32, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error>;
    /// Discard `lpn`, buffered copy included, issued at `t`; returns completion.
    fn trim(&mut self, lpn: Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error>;
    /// Write every dirty page down (end of run, flush command), issued at `t`; returns completion.
    fn flush(&mut self, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error>;
    /// Hits by reads and writes, pages written down (buffers that hold pages).
    fn counters(&self) -> Option<BufferCounters> {
        None
    }
    /// Page hits and page accesses so far.
    fn hits(&self) -> (u64, u64) {
        self.counters().map_or((0, 0), |c| (c.read_hits + c.write_hits, c.read_accesses + c.write_accesses))
    }
    /// (pages written down together, times) per eviction (not flush commands), ascending.
    fn flush_batches(&self) -> Vec<(u64, u64)> {
        Vec::new()
    }
    /// Acknowledged writes held only in volatile memory now: what a power failure would lose.
    fn exposed(&self) -> u64 {
        0
    }
    /// Power fails now: the pages lost (dirty in DRAM) and the pages NVRAM keeps. The buffer
    /// is not changed; the run ends after a crash.
    fn crash(&mut self) -> CrashImage {
        CrashImage::default()
    }
    /// Cross-check internal structures (check mode).
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
    /// Timing mode, before a host request issued at `until` is served: write dirty pages down
    /// in the background while the flash is idle (above the high watermark, down to the low
    /// one), starting none at or after `until`, so the request never waits behind a destage
    /// that had not started. Default: nothing (buffers that hold no pages).
    fn destage(&mut self, _until: Nanos, _ftl: &mut dyn Ftl) -> Result<(), Error> {
        Ok(())
    }
    /// Every operation goes straight to the FTL, unchanged, and nothing is held (no buffer):
    /// the device may then hand host writes to [`crate::ftl::FtlFastPath::write_untimed`] past this layer.
    fn passes_through(&self) -> bool {
        false
    }
}

/// What a power failure leaves: (lpn, version) pairs, in page order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashImage {
    /// Acknowledged writes held dirty in DRAM only.
    pub lost: Vec<(Lpn, u32)>,
    /// Pages held in NVRAM (they survive and take precedence over flash at restart).
    pub kept: Vec<(Lpn, u32)>,
}

/// A buffer's page counts: hits and accesses by reads and by writes, and the pages written down
/// to the FTL, split by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BufferCounters {
    /// Read page accesses found in the buffer (DRAM or NVRAM).
    pub read_hits: u64,
    /// Read page accesses.
    pub read_accesses: u64,
    /// Write page accesses that found the page in the buffer.
    pub write_hits: u64,
    /// Write page accesses.
    pub write_accesses: u64,
    /// Pages written down to the FTL (evictions, merges, padding and flushes).
    pub flushed_pages: u64,
    /// Of `flushed_pages`, pages written by flush commands (the end of the run).
    pub flush_command_pages: u64,
    /// Of `flushed_pages`, pages read from flash and written back to fill a block (BPLRU
    /// padding).
    pub padded_pages: u64,
    /// Dirty pages moved from DRAM to NVRAM (DWB).
    pub migrated_pages: u64,
    /// Of `flushed_pages`, pages written down by background destaging (timing mode) rather
    /// than to make room for a request.
    pub destaged_pages: u64,
    /// Dirty DRAM pages written down with an NVRAM victim of their block (DWB), left clean.
    pub merged_dirty_pages: u64,
    /// Clean DRAM pages written down with an NVRAM victim of their block (CBM).
    pub merged_clean_pages: u64,
}

/// `[buffer]`: the write buffer (DRAM and/or NVRAM) above the FTL.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BufferConfig {
    /// Write-buffer policy (`none`: writes go straight to the FTL).
    #[serde(default = "d_policy")]
    pub policy: String,
    /// DRAM capacity (volatile).
    #[serde(default)]
    pub dram: ByteSize,
    /// NVRAM capacity (survives power loss). `cbm` and `dwb` use both memories; the other
    /// policies keep one: give `dram` or `nvram`.
    #[serde(default)]
    pub nvram: ByteSize,
    /// Timing mode: background destaging starts when more than this fraction of the memory
    /// that writes to flash (the one memory; NVRAM for `cbm` and `dwb`) holds dirty pages, and
    /// writes pages down on idle flash until `destage_low` is reached: LRU and CLOCK clean the
    /// dirty pages they would evict next (they stay cached), the other policies evict their
    /// victims early (default 0.5; 1.0 turns destaging off). Not in accounting mode, which has
    /// no idle time.
    #[serde(default)]
    pub destage_high: Option<f64>,
    /// Timing mode: the dirty fraction background destaging stops at (default 0.25; at most
    /// `destage_high`).
    #[serde(default)]
    pub destage_low: Option<f64>,
    /// Parameters of the buffer policy (see "Parameter tables"): `bplru` `padding`, `cbm`
    /// `block_threshold`, `fab` `read_cache` and `write_clean`; the other policies take none.
    #[serde(default)]
    #[schemars(with = "crate::registry::FreeTable")]
    pub params: toml::Table,
}

impl BufferConfig {
    /// A policy of the given name with a DRAM of `dram` bytes, other fields default.
    pub fn dram(policy: &str, dram: u64) -> Self {
        BufferConfig { policy: policy.into(), dram: ByteSize(dram), ..Default::default() }
    }

    /// The same config with `[buffer.params] key = value`.
    pub fn param(mut self, key: &str, value: impl Into<toml::Value>) -> Self {
        self.set_param(key, value);
        self
    }

    /// Set `[buffer.params] key = value`.
    pub fn set_param(&mut self, key: &str, value: impl Into<toml::Value>) {
        self.params.insert(key.into(), value.into());
    }

    fn pages(&self, key: &str, bytes: u64, page_size: u64) -> Result<u32, Error> {
        let pages = bytes / page_size;
        if pages == 0 {
            return Err(Error::config(
                key,
                format!(
                    "policy `{}` needs a {key} size of at least one {page_size}-byte page (e.g. {} = \"16MiB\")",
                    self.policy,
                    &key[7..]
                ),
            ));
        }
        if pages > u32::MAX as u64 - 1 {
            return Err(Error::config(key, format!("{bytes} bytes is more than {} pages", u32::MAX - 1)));
        }
        Ok(pages as u32)
    }

    /// The destage watermarks (high, low) as fractions, defaults filled in: `None` outside
    /// timing mode, without a buffer, or with destaging turned off (`destage_high = 1`).
    pub fn watermarks(&self, ctx: &BufferContext) -> Option<(f64, f64)> {
        let high = self.destage_high.unwrap_or(DESTAGE_HIGH);
        let low = self.destage_low.unwrap_or(DESTAGE_LOW.min(high));
        (ctx.timing.is_some() && self.policy != "none" && high < 1.0).then_some((high, low))
    }

    /// Checks every policy shares: sizes in whole pages, options only where they apply.
    fn validate(&self, ctx: &BufferContext) -> Result<(), Error> {
        for (key, v) in [("buffer.destage_high", self.destage_high), ("buffer.destage_low", self.destage_low)] {
            let Some(v) = v else { continue };
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(Error::config(key, format!("{} is not a fraction from 0 to 1", crate::units::number(v))));
            }
            if ctx.timing.is_none() {
                return Err(Error::config(
                    key,
                    "background destaging happens on idle flash, in timing mode (sim.mode = \"timing\"); \
                     accounting mode has no idle time: remove the key",
                ));
            }
            if self.policy == "none" {
                return Err(Error::config(key, "policy `none` holds no pages to destage: remove the key"));
            }
        }
        if let (Some(high), Some(low)) = (self.destage_high, self.destage_low) {
            if low > high {
                return Err(Error::config(
                    "buffer.destage_low",
                    format!("{low} is above buffer.destage_high ({high}): destaging stops below where it starts"),
                ));
            }
        } else if let (None, Some(low)) = (self.destage_high, self.destage_low) {
            if low > DESTAGE_HIGH {
                return Err(Error::config(
                    "buffer.destage_low",
                    format!("{low} is above buffer.destage_high's default ({DESTAGE_HIGH}): set destage_high too"),
                ));
            }
        }
        for (key, size) in [("buffer.dram", self.dram.0), ("buffer.nvram", self.nvram.0)] {
            if self.policy == "none" && size > 0 {
                return Err(Error::config(
                    key,
                    "policy `none` holds no pages: remove the size or choose a buffer policy (`flashlab list`)",
                ));
            }
            if size % ctx.page_size != 0 {
                return Err(Error::config(
                    key,
                    format!("{size} bytes is not a whole number of {}-byte pages", ctx.page_size),
                ));
            }
        }
        Ok(())
    }

    /// The one memory of a single-memory policy: DRAM, or NVRAM when only `nvram` is set.
    pub fn single_store(&self, ctx: &BufferContext) -> Result<PageStore, Error> {
        match (self.dram.0, self.nvram.0) {
            (0, 0) => Err(Error::config(
                "buffer.dram",
                format!(
                    "policy `{}` needs a size: set `dram` (volatile) or `nvram` (non-volatile), e.g. dram = \"16MiB\"",
                    self.policy
                ),
            )),
            (d, 0) => Ok(self.timed(PageStore::new(self.pages("buffer.dram", d, ctx.page_size)?), ctx, true)),
            (0, n) => {
                Ok(self.timed(PageStore::new(self.pages("buffer.nvram", n, ctx.page_size)?).non_volatile(), ctx, true))
            }
            _ => Err(Error::config(
                "buffer.nvram",
                format!(
                    "policy `{}` keeps one memory: set `dram` or `nvram`, not both (cbm and dwb use both)",
                    self.policy
                ),
            )),
        }
    }

    /// DRAM and NVRAM of a two-memory policy (CBM, DWB).
    pub fn dual_stores(&self, ctx: &BufferContext) -> Result<(PageStore, PageStore), Error> {
        let dram = self.pages("buffer.dram", self.dram.0, ctx.page_size)?;
        let nvram = self.pages("buffer.nvram", self.nvram.0, ctx.page_size)?;
        Ok((self.timed(PageStore::new(dram), ctx, false), self.timed(PageStore::new(nvram).non_volatile(), ctx, true)))
    }

    /// A store with its access time and, when it is the memory that writes to flash
    /// (`writes_flash`), its destage watermarks (timing mode).
    fn timed(&self, store: PageStore, ctx: &BufferContext, writes_flash: bool) -> PageStore {
        let Some(t) = ctx.timing else { return store };
        let access = if store.volatile { t.dram_ns } else { t.nvram_ns };
        let marks = self.watermarks(ctx).filter(|_| writes_flash);
        store.timed(access, marks)
    }
}

fn d_policy() -> String {
    "none".into()
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig {
            policy: d_policy(),
            dram: ByteSize(0),
            nvram: ByteSize(0),
            destage_high: None,
            destage_low: None,
            params: toml::Table::new(),
        }
    }
}

/// Default `buffer.destage_high`.
pub const DESTAGE_HIGH: f64 = 0.5;
/// Default `buffer.destage_low`.
pub const DESTAGE_LOW: f64 = 0.25;

/// What a buffer needs to know about the device.
#[derive(Clone, Copy, Debug)]
pub struct BufferContext {
    /// Flash page size in bytes: a buffer slot holds one page.
    pub page_size: u64,
    /// Pages per flash block: block-level policies group pages by `lpn / pages_per_block`.
    pub pages_per_block: u64,
    /// Timing mode: the memories' page access times (`None` in accounting mode, where time
    /// does not pass).
    pub timing: Option<BufferTiming>,
}

/// The write buffer's memories in timing mode.
#[derive(Clone, Copy, Debug, Default)]
pub struct BufferTiming {
    /// One page in or out of DRAM, ns.
    pub dram_ns: u64,
    /// One page in or out of NVRAM, ns.
    pub nvram_ns: u64,
}

/// A policy's constructor: the `[buffer]` section (its `params` table parsed by the policy) and
/// the device context.
pub type BufferBuildFn = fn(&BufferConfig, &BufferContext) -> Result<Box<dyn WriteBuffer>, Error>;

/// What a policy's structures take for a `[buffer]` section (its slots and its own lists),
/// added to the run's memory estimate ([`crate::memory`]) before anything is built.
pub type BufferMemoryFn = fn(&BufferConfig, &BufferContext, &mut Estimate);

/// What the configuration needs to know about a buffer policy before building it.
#[derive(Clone, Copy)]
pub struct BufferCaps {
    /// Its memory, stated beside its constructor.
    pub memory: BufferMemoryFn,
}

/// The registry: one line per policy (its file holds the policy, its `build`, its `memory` and
/// its parameter struct). Single-memory policies take `[buffer] dram` or `nvram`; `cbm` and
/// `dwb` take both.
#[rustfmt::skip]
pub const BUFFERS: Registry<BufferBuildFn, BufferCaps> = Registry {
    id: "buffer",
    kind: "buffer policy",
    key: "buffer.policy",
    title: "buffer policies ([buffer] policy)",
    params_table: Some("buffer.params"),
    entries: &[
        Entry { name: "none", about: "no buffer: every page goes to the FTL", params: no_schema, caps: BufferCaps { memory: none::memory }, build: none::build },
        Entry { name: "lru", about: "page LRU, write-back, reads cached", params: no_schema, caps: BufferCaps { memory: lru::memory }, build: lru::build },
        Entry { name: "clock", about: "page CLOCK (second chance), write-back, reads cached", params: no_schema, caps: BufferCaps { memory: clock::memory }, build: clock::build },
        Entry { name: "fab", about: "FAB: evict the flash block with the most buffered pages, LRU among ties (Jo et al. 2006)", params: schema_of::<fab::Params>, caps: BufferCaps { memory: fab::memory }, build: fab::build },
        Entry { name: "lb-clock", about: "LB-CLOCK: block CLOCK, recency then block utilization; write cache (Debnath et al. 2009)", params: no_schema, caps: BufferCaps { memory: lbclock::memory }, build: lbclock::build },
        Entry { name: "bplru", about: "BPLRU: block LRU with page padding (params.padding) and LRU compensation; write cache (Kim & Ahn 2008)", params: schema_of::<bplru::Params>, caps: BufferCaps { memory: bplru::memory }, build: bplru::build },
        Entry { name: "cbm", about: "CBM: DRAM read cache + NVRAM write buffer in page/block regions (params.block_threshold) (Wei et al. 2014); dram + nvram", params: schema_of::<cbm::Params>, caps: BufferCaps { memory: cbm::memory }, build: cbm::build },
        Entry { name: "dwb", about: "DWB: D-CLOCK in DRAM, dirty-first migration to NV-CLOCK in NVRAM (Han et al. 2016); dram + nvram", params: no_schema, caps: BufferCaps { memory: dwb::memory }, build: dwb::build },
    ],
};

/// Slots of a single-memory policy (DRAM or NVRAM, whichever is set) and of the DRAM and
/// NVRAM of a two-memory one, for the memory estimate (sizes as configured; a size the build
/// would refuse is refused there).
pub(crate) fn slots(cfg: &BufferConfig, ctx: &BufferContext) -> (u64, u64) {
    (cfg.dram.0 / ctx.page_size, cfg.nvram.0 / ctx.page_size)
}

/// The buffer policies' names, in registry order.
pub fn names() -> Vec<&'static str> {
    BUFFERS.names()
}

/// Build the policy `[buffer] policy` names; an unknown name lists the valid ones.
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    let entry = BUFFERS.find(&cfg.policy)?;
    cfg.validate(ctx)?;
    (entry.build)(cfg, ctx)
}

/// The `[buffer.params]` of a policy without parameters: any key is an error.
pub(crate) fn no_params(cfg: &BufferConfig) -> Result<(), Error> {
    crate::registry::refuse_params("buffer.params", &cfg.policy, &cfg.params)
}

/// The `[buffer.params]` table parsed into the policy's parameter struct.
pub(crate) fn parse_params<T: serde::de::DeserializeOwned>(cfg: &BufferConfig) -> Result<T, Error> {
    crate::registry::parse_params("buffer.params", &cfg.params)
}
