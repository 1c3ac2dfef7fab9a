//! `log`: a host-side log-structured layer over a zoned device (`ftl.mapping = "zns"`), as a
//! log-structured file system or ZenFS runs on ZNS. Segments are zones; the host keeps the
//! mapping from its logical pages to zone pages, writes each zone at its write pointer,
//! chooses victims, copies their valid pages (reading them from the device and writing them
//! at a write pointer) and resets the zones it emptied. End-to-end WAF (flash programs per host
//! page written) then counts the host's copies; the device's own WAF is 1.
//!
//! Built on the simulator's GC mechanism rather than beside it: the layer's mapping, victim
//! choice and schedule are a page-mapped FTL (`ftl::page`) over the device's layout, with the
//! victim policy and schedule from the GC registries (`[host.layer_params]`: `gc`,
//! `gc_params`, `gc_schedule`, `gc_schedule_params`, `striping`), kept as the host's own state
//! (accounting only, no clock of its own). Its flash operations, journaled in order, are
//! replayed onto the zoned device — a program as a write at the zone's write pointer (segment
//! `s` is zone `s`, page for page), a move as a device read then write, an erase as a zone
//! reset — so the device checks every zone rule, times every operation and counts them. The
//! host's over-provisioning is the device's `over_provisioning`: the zones hold every
//! physical page and the host exports `1 / (1 + OP)` of them.
//!
//! Hence a check against an outside reference is an identity of accounting: with the same
//! segment size, OP, victim policy and schedule, ZNS + `log` gives the conventional page-mapped
//! SSD's WAF and erase counts on the same trace (`tests/zns.rs`), while the zone rules, the
//! open-zone limits and the timing are the device's.
//!
//! Memory: the host's table (4 B per logical page, a valid bit and 4 B of OOB per physical
//! page) beside the device's.

use serde::Deserialize;

use super::{HostConfig, HostContext, HostLayer};
use crate::device::Device;
use crate::error::Error;
use crate::ftl::zns::ZoneCommand;
use crate::ftl::{self, Ftl, FtlConfig, FtlSpec, Striping};
use crate::nand::FlashOp;
use crate::units::{Lpn, Nanos};
use crate::workload::{Op, Request};

/// `[host.layer_params]` of `log`: the host's GC.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LogParams {
    /// Victim policy (the GC registry, `flashlab list`).
    pub gc: String,
    /// Its parameters.
    #[schemars(with = "crate::registry::FreeTable")]
    pub gc_params: toml::Table,
    /// When the host collects (the GC schedule registry).
    pub gc_schedule: String,
    /// Its parameters.
    #[schemars(with = "crate::registry::FreeTable")]
    pub gc_schedule_params: toml::Table,
    /// Where host writes go across the device's planes (zones open at once: one per plane
    /// under `full` and `none` with block-sized zones).
    pub striping: Striping,
}

impl Default for LogParams {
    fn default() -> Self {
        LogParams {
            gc: ftl::DEFAULT_GC.to_string(),
            gc_params: toml::Table::new(),
            gc_schedule: ftl::schedule::DEFAULT.to_string(),
            gc_schedule_params: toml::Table::new(),
            striping: Striping::Full,
        }
    }
}

/// The host's log.
pub struct Log {
    /// The host's mapping, victim policy and schedule.
    table: Box<dyn Ftl>,
}

fn ftl_config(cfg: &HostConfig, ctx: &HostContext) -> Result<FtlConfig, Error> {
    let p: LogParams = crate::registry::parse_params("host.layer_params", &cfg.layer_params)?;
    if p.striping == Striping::Dynamic {
        return Err(Error::config(
            "host.layer_params.striping",
            "the host's log has no clock of its own to place by: \"full\" or \"none\"",
        ));
    }
    Ok(FtlConfig {
        mapping: "page".into(),
        gc: Some(p.gc),
        gc_params: p.gc_params,
        gc_unit: ctx.layout.unit,
        striping: p.striping,
        gc_schedule: Some(p.gc_schedule),
        gc_schedule_params: p.gc_schedule_params,
        ..FtlConfig::default()
    })
}

/// Build `log` for `ctx`'s device.
pub fn build(cfg: &HostConfig, ctx: &HostContext) -> Result<Box<dyn HostLayer>, Error> {
    let config = ftl_config(cfg, ctx)?;
    let spec = spec(&config, ctx);
    let mut table: Box<dyn Ftl> = Box::new(ftl::page::PageFtl::new(&spec).map_err(rename)?);
    table.nand_mut().keep_journal();
    Ok(Box::new(Log { table }))
}

fn spec<'a>(config: &'a FtlConfig, ctx: &HostContext) -> FtlSpec<'a> {
    FtlSpec {
        layout: ctx.layout,
        logical_pages: ctx.logical_pages,
        config,
        verify: false,
        timing: None,
        seed: ctx.seed,
    }
}

/// An error about the host table's `ftl.KEY` is about `host.layer_params.KEY`.
fn rename(e: Error) -> Error {
    match e {
        Error::Config { key, msg, at } => match key.strip_prefix("ftl.") {
            Some(rest) => Error::Config { key: format!("host.layer_params.{rest}"), msg, at },
            None => Error::Config { key, msg, at },
        },
        e => e,
    }
}

/// What the layer allocates: a page-mapped table over the device's layout.
pub fn memory(cfg: &HostConfig, ctx: &HostContext, est: &mut crate::memory::Estimate) -> Result<(), Error> {
    let config = ftl_config(cfg, ctx)?;
    ftl::page::memory(&spec(&config, ctx), est).map_err(rename)
}

impl Log {
    /// Replay the host table's journaled operations onto the zoned device from `t`; returns
    /// when the last completes.
    fn replay(&mut self, dev: &mut Device, t: Nanos) -> Result<Nanos, Error> {
        let ops = self.table.nand_mut().take_journal();
        let mut done = t;
        let mut result = Ok(());
        for &op in &ops {
            let r = match op {
                FlashOp::Program(ppn) => dev.write(Lpn(ppn as u64), t),
                FlashOp::Move { src, dst } => {
                    dev.read(Lpn(src as u64), t).and_then(|read| dev.write(Lpn(dst as u64), read))
                }
                FlashOp::Erase(seg) => dev.zone_reset(seg, t),
            };
            match r {
                Ok(d) => done = done.max(d),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.table.nand_mut().return_journal(ops);
        result.map(|()| done)
    }
}

/// The error for a trace's zone command given to the log layer.
pub fn refuse_zone_command(cmd: ZoneCommand) -> Error {
    Error::Zone(format!(
        "{}: host.layer = \"log\" writes the zones itself; a trace's zone commands go to the device through host.layer = \"passthrough\"",
        cmd.name()
    ))
}

impl HostLayer for Log {
    fn submit(&mut self, req: &Request, t: Nanos, dev: &mut Device) -> Result<Nanos, Error> {
        if let Some(cmd) = req.op.zone_command() {
            return Err(refuse_zone_command(cmd));
        }
        let (first, last) = dev.page_span(req.offset, req.len);
        let mut done = t;
        for lpn in (first..=last).map(Lpn) {
            let d = match req.op {
                Op::Read => match self.table.mapped_ppn(lpn) {
                    Some(ppn) => dev.read(Lpn(ppn.0 as u64), t)?,
                    None => t,
                },
                Op::Write => {
                    self.table.write(lpn, 0, Nanos::ZERO)?;
                    self.replay(dev, t)?
                }
                Op::Trim => {
                    self.table.trim(lpn, Nanos::ZERO)?;
                    t
                }
                Op::ZoneAppend | Op::ZoneFinish | Op::ZoneReset => unreachable!("zone commands returned above"),
            };
            done = done.max(d);
        }
        self.table.after_request(Nanos::ZERO)?;
        done = done.max(self.replay(dev, t)?);
        Ok(done)
    }

    fn logical_pages(&self) -> Option<u64> {
        Some(self.table.logical_pages())
    }
}
