//! Host layer: turns byte-addressed requests into page operations on the device. One policy per
//! file behind [`HostLayer`], registered in [`HOST_LAYERS`]: `passthrough` (a request covers
//! the pages its byte range touches). `Split` cuts long requests as a block layer's size limit
//! does. The FAT file-system model (the `flashlab-fs` crate) drives the device from a
//! reproduction rather than through this trait, and the OneNAND raw-flash read path is a
//! separate simulator (the `flashlab-onenand` crate).

pub mod log;
pub mod passthrough;
pub mod placement;

use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::error::{Error, Location};
use crate::registry::{Entry, Registry};
use crate::units::{ByteSize, Nanos};
use crate::workload::{Op, Request, Workload};

/// Turns a byte-addressed request into page operations on the device.
pub trait HostLayer: Send {
    /// Issue `req` at `t` against `dev`; returns the completion time of its last page.
    fn submit(&mut self, req: &Request, t: Nanos, dev: &mut Device) -> Result<Nanos, Error>;
    /// `submit` is the device's page operations over the request's pages, in order, all issued
    /// at `t`, completing with the last (the pass-through layer): the simulator may then serve
    /// requests past this layer ([`Device::write_untimed`]).
    fn passes_through(&self) -> bool {
        false
    }
    /// Logical pages the layer exports to the workload, when it keeps a mapping of its own
    /// (`log`); `None`: the device's.
    fn logical_pages(&self) -> Option<u64> {
        None
    }
}

/// What a host layer is built for: the device's layout, the logical pages the host exports and
/// the run's seed.
#[derive(Clone, Copy, Debug)]
pub struct HostContext {
    /// The device's layout (geometry, GC unit).
    pub layout: crate::nand::Layout,
    /// Logical pages the workload addresses.
    pub logical_pages: u64,
    /// The run's seed.
    pub seed: u64,
    /// The device is zoned (`ftl.mapping = "zns"`).
    pub zoned: bool,
}

/// What to do with a request beyond the logical capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutOfRange {
    /// Stop with an error naming the trace line (default).
    Error,
    /// Wrap addresses modulo the logical capacity (distinct pages of a larger trace alias; the
    /// run counts the wrapped requests and the pages where two original addresses met, and warns
    /// when any did, at 2 bytes of memory per logical page).
    Wrap,
    /// Remap every address flash block by flash block, in first-touch order: distinct pages stay
    /// distinct and a block's pages stay together, so a trace with a sparse address range runs
    /// on any device its touched blocks fit; an error when they do not.
    Compact,
}

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Open loop for traces (their timestamps), closed loop for generators.
    Auto,
    /// At the workload's timestamps (scaled by the trace's `time_scale`).
    Open,
    /// Back to back, with at most `queue_depth` requests outstanding.
    Closed,
}

/// `[host]`: how requests reach the device.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Host layer that turns byte requests into logical pages.
    #[serde(default = "d_layer")]
    pub layer: String,
    /// What to do with a request beyond the logical capacity.
    #[serde(default = "d_oor")]
    pub out_of_range: OutOfRange,
    /// When requests are issued.
    #[serde(default = "d_arrival")]
    pub arrival: Arrival,
    /// Outstanding requests in closed loop: 1 to 65536, NVMe's largest queue (a deeper queue
    /// models no real host, and the simulator keeps one slot per outstanding request).
    #[serde(default = "d_qd")]
    pub queue_depth: u32,
    /// Parameters of the host layer (see "Parameter tables"); `log` takes its GC here.
    #[serde(default)]
    #[schemars(with = "crate::registry::FreeTable")]
    pub layer_params: toml::Table,
    /// Split requests longer than this into consecutive requests of at most this size, each
    /// issued on its own (with the original's arrival time), as a block layer's request-size
    /// limit (`max_sectors_kb`) does. At least 1 byte; absent: requests are issued whole.
    #[serde(default)]
    pub max_request: Option<ByteSize>,
    /// Host placement policy: chooses the placement identifier of every write, which the
    /// device's `[ftl.placement]` maps to a reclaim unit handle. `policy` names it
    /// (`address`, `size`, `sepbit`, `trace`; `flashlab list`); the table's other keys are its
    /// parameters (see "Parameter tables"). Absent: a write keeps the identifier it carries (a
    /// trace's placement column, a `streams` generator's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::registry::FreeTable>")]
    pub placement: Option<toml::Table>,
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

/// Largest `host.queue_depth`: NVMe's maximum queue depth (64 Ki entries).
pub const MAX_QUEUE_DEPTH: u32 = 65_536;

impl HostConfig {
    /// The bounds of the `[host]` keys (see each key's doc comment).
    pub fn validate(&self) -> Result<(), Error> {
        if self.max_request.is_some_and(|m| m.0 == 0) {
            return Err(Error::config("host.max_request", "must be at least 1 byte"));
        }
        if let Some(table) = &self.placement {
            placement::check(table)?;
        }
        if !(1..=MAX_QUEUE_DEPTH).contains(&self.queue_depth) {
            return Err(Error::config(
                "host.queue_depth",
                format!("{} is not from 1 to {MAX_QUEUE_DEPTH} (NVMe's largest queue)", self.queue_depth),
            ));
        }
        Ok(())
    }
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            layer: d_layer(),
            out_of_range: d_oor(),
            arrival: d_arrival(),
            queue_depth: d_qd(),
            layer_params: toml::Table::new(),
            max_request: None,
            placement: None,
        }
    }
}

/// A host layer's constructor: the `[host]` section and the device it drives.
pub type HostBuildFn = fn(&HostConfig, &HostContext) -> Result<Box<dyn HostLayer>, Error>;

/// What a host layer needs known before it is built.
#[derive(Clone, Copy)]
pub struct HostCaps {
    /// Runs on a zoned device only (`ftl.mapping = "zns"`): it writes zones.
    pub zoned: bool,
    /// What it allocates, added to the run's memory estimate; every error its build would give.
    pub memory: fn(&HostConfig, &HostContext, &mut crate::memory::Estimate) -> Result<(), Error>,
}

fn no_memory(cfg: &HostConfig, _: &HostContext, _: &mut crate::memory::Estimate) -> Result<(), Error> {
    match cfg.layer_params.keys().next() {
        Some(k) => Err(Error::config(
            format!("host.layer_params.{k}"),
            format!("host layer `{}` takes no parameters", cfg.layer),
        )),
        None => Ok(()),
    }
}

/// The registry: one line per host layer (its file holds the layer and its `build`).
pub const HOST_LAYERS: Registry<HostBuildFn, HostCaps> = Registry {
    id: "host",
    kind: "host layer",
    key: "host.layer",
    title: "host layers ([host] layer)",
    params_table: Some("host.layer_params"),
    entries: &[
        Entry {
            name: "passthrough",
            about: "a request covers the pages its byte range touches",
            params: crate::registry::no_params,
            caps: HostCaps { zoned: false, memory: no_memory },
            build: passthrough::build,
        },
        Entry {
            name: "log",
            about: "log-structured host layer on a zoned device: segments are zones, its own victim policy, schedule and over-provisioning",
            params: crate::registry::schema_of::<log::LogParams>,
            caps: HostCaps { zoned: true, memory: log::memory },
            build: log::build,
        },
    ],
};

/// A workload whose requests longer than `max` bytes are split into consecutive pieces (a zone
/// append into appends to its zone; zone finish and reset whole).
pub struct Split {
    inner: Box<dyn Workload>,
    max: u64,
    /// The rest of a request being split.
    rest: Option<Request>,
}

impl Split {
    /// `inner` with requests longer than `max` bytes (at least 1) cut into consecutive pieces of at
    /// most `max` bytes, each with the original's time.
    pub fn new(inner: Box<dyn Workload>, max: u64) -> Self {
        assert!(max > 0, "validated: max_request is positive");
        Split { inner, max, rest: None }
    }
}

impl Workload for Split {
    fn next_request(&mut self) -> Result<Option<Request>, Error> {
        let req = match self.rest.take() {
            Some(r) => r,
            None => match self.inner.next_request()? {
                Some(r) => r,
                None => return Ok(None),
            },
        };
        // Zone finish and reset move no data: no transfer limit applies.
        if req.len <= self.max || matches!(req.op, Op::ZoneFinish | Op::ZoneReset) {
            return Ok(Some(req));
        }
        // A zone append's pieces are appends to the same zone (its offset names the zone).
        // Otherwise saturating: an offset this close to 2^64 is out of range, which the
        // simulator reports.
        let offset = if req.op == Op::ZoneAppend { req.offset } else { req.offset.saturating_add(self.max) };
        self.rest = Some(Request { offset, len: req.len - self.max, ..req });
        Ok(Some(Request { len: self.max, ..req }))
    }
    /// Each request becomes at most `len / max` + 1 pieces.
    fn bound(&self) -> Option<crate::workload::Bound> {
        let b = self.inner.bound()?;
        Some(crate::workload::Bound {
            requests: b.requests.saturating_add(b.bytes / self.max),
            bytes: b.bytes,
            align: crate::units::gcd(b.align, self.max),
        })
    }
    fn location(&self) -> Option<Location> {
        self.inner.location()
    }
    fn progress(&self) -> Option<(u64, u64)> {
        self.inner.progress()
    }
}

/// The host layers' names, in registry order.
pub fn names() -> Vec<&'static str> {
    HOST_LAYERS.names()
}

/// Build the host layer `[host] layer` names; an unknown name lists the valid ones.
pub fn build(cfg: &HostConfig, ctx: &HostContext) -> Result<Box<dyn HostLayer>, Error> {
    let entry = check(cfg, ctx)?;
    (entry.build)(cfg, ctx)
}

/// The host layer's registry line, once its device fits: a layer that writes zones needs a
/// zoned device.
fn check(cfg: &HostConfig, ctx: &HostContext) -> Result<&'static Entry<HostBuildFn, HostCaps>, Error> {
    let entry = HOST_LAYERS.find(&cfg.layer)?;
    if entry.caps.zoned && !ctx.zoned {
        return Err(Error::config(
            "host.layer",
            format!("host layer `{}` writes zones: it needs a zoned device (ftl.mapping = \"zns\")", entry.name),
        ));
    }
    Ok(entry)
}

/// What the host layer allocates (its registry line's `memory`), checked as its build would.
pub fn memory(cfg: &HostConfig, ctx: &HostContext, est: &mut crate::memory::Estimate) -> Result<(), Error> {
    (check(cfg, ctx)?.caps.memory)(cfg, ctx, est)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;

    struct Fixed(Vec<Request>);
    impl Workload for Fixed {
        fn next_request(&mut self) -> Result<Option<Request>, Error> {
            Ok((!self.0.is_empty()).then(|| self.0.remove(0)))
        }
    }

    #[test]
    fn split_cuts_long_requests_into_consecutive_pieces_at_the_same_time() {
        let req = |time_ns, op, offset, len| Request { time_ns, op, offset, len, placement: None, file: None };
        let inner =
            Fixed(vec![req(5, Op::Write, 4096, 100 << 10), req(9, Op::Read, 0, 32 << 10), req(11, Op::Trim, 0, 1)]);
        let mut s = Split::new(Box::new(inner), 32 << 10);
        let mut got = Vec::new();
        while let Some(r) = s.next_request().unwrap() {
            got.push((r.time_ns, r.op, r.offset, r.len));
        }
        let k = 32u64 << 10;
        assert_eq!(
            got,
            vec![
                (5, Op::Write, 4096, k),
                (5, Op::Write, 4096 + k, k),
                (5, Op::Write, 4096 + 2 * k, k),
                (5, Op::Write, 4096 + 3 * k, 4 << 10),
                (9, Op::Read, 0, k),
                (11, Op::Trim, 0, 1),
            ]
        );
    }
}
