//! Host placement policies: the host decides the placement identifier (an NVMe FDP reclaim
//! unit handle, which the device's `[ftl.placement]` maps to a write stream) of every write.
//! One policy per file behind [`PlacementPolicy`], registered in [`PLACEMENTS`], chosen by
//! `[host.placement] policy` with its parameters beside it in the same table:
//! - `address`: by the write's byte offset (ranges between ascending bounds);
//! - `size`: by the write's length (size classes between ascending bounds);
//! - `file`: by the file the write belongs to, where the trace says (`csv`'s `file` column);
//! - `sepbit`: SepBIT's user-write separation by the lifespan of the page's previous version
//!   (Wang et al., FAST 2022);
//! - `trace`: the request's own identifier (a trace's placement column, a `streams`
//!   generator's), as without `[host.placement]`.
//!
//! Mechanism: [`Placed`] wraps the workload (after `host.max_request`'s `Split`), so the
//! simulation loop is untouched. Every request passes through the policy in order: a write
//! leaves with the policy's identifier, a trim is shown to the policy (its pages have no
//! version any more) and leaves unchanged, a read passes untouched. Policies are deterministic
//! functions of the requests they have seen, and hold O(1) or O(logical pages) state in flat
//! arrays. Where the device's semantics live (handles, isolation, what GC does per handle):
//! `ftl/placement.rs`.
//!
//! A policy sees the workload's byte addresses before the simulator applies `out_of_range`:
//! a policy keeping state per logical page folds a page beyond the logical capacity onto the
//! capacity (page modulo logical pages, where `wrap` puts it; with `compact` two remapped
//! pages may share a slot).
//!
//! Fault model: an unknown policy, a missing or non-string `policy`, an unknown key and a bad
//! value are configuration errors naming `host.placement.KEY`; so is an identifier beyond the
//! device's reclaim unit handles, or a policy without `[ftl.placement]` to use its
//! identifiers (checked where the workload is built, `sim::plan`).

pub mod address;
pub mod file;
pub mod sepbit;
pub mod size;
pub mod trace;

use crate::error::{Error, Location};
use crate::memory::Estimate;
use crate::registry::{Entry, Registry};
use crate::units::ByteSize;
use crate::workload::{Bound, Op, Request, Workload};

/// The table that holds the policy's name and parameters.
pub const TABLE: &str = "host.placement";

/// Chooses the placement identifier of each write, seeing every request in order.
pub trait PlacementPolicy: Send {
    /// The placement identifier of write `req` (`None`: none, the device's default handle).
    fn place(&mut self, req: &Request) -> Option<u16>;
    /// `req` trimmed its byte range (default: nothing to forget).
    fn trim(&mut self, _req: &Request) {}
    /// The largest identifier the policy can give and the parameter that sets it, checked
    /// against the device's reclaim unit handles; `None`: it passes the request's own.
    fn largest(&self) -> Option<(&'static str, u16)>;
}

/// What a policy is built for: the logical space the workload addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacementContext {
    /// Logical pages of the device (the workload's address space, in pages).
    pub logical_pages: u64,
    /// Page size in bytes: a request covers pages `offset / page_size ..= (offset + len − 1) /
    /// page_size`, as the host layer counts them.
    pub page_size: u64,
}

impl PlacementContext {
    /// The logical pages `req` covers, each folded onto the capacity (`lpn % logical_pages`),
    /// at most one capacity of them (a longer request is refused by the simulator after it
    /// passes here).
    pub fn pages(&self, req: &Request) -> impl Iterator<Item = u64> + '_ {
        assert!(self.page_size > 0 && self.logical_pages > 0, "a placement context has pages");
        let (first, count) = if req.len == 0 {
            (0, 0)
        } else {
            let first = req.offset / self.page_size;
            let last = req.offset.saturating_add(req.len - 1) / self.page_size;
            (first, (last - first + 1).min(self.logical_pages))
        };
        (first..first + count).map(move |lpn| lpn % self.logical_pages)
    }
}

/// A policy's constructor: its parameters (`[host.placement]` without `policy`) and the
/// logical space. Cheap: a policy allocates its per-page state at its first request, after
/// the run's memory estimate admitted it.
pub type PlacementBuildFn = fn(&toml::Table, &PlacementContext) -> Result<Box<dyn PlacementPolicy>, Error>;

/// What the host needs to know about a policy before building it.
#[derive(Clone, Copy)]
pub struct PlacementCaps {
    /// Its parameters checked as its build would, without the logical space (config
    /// validation).
    pub check: fn(&toml::Table) -> Result<(), Error>,
    /// What it allocates for a logical space, added to the run's memory estimate.
    pub memory: fn(&PlacementContext, &mut Estimate),
    /// Its parameters without a default, each with a working value, as `--set` overrides
    /// (what the registry-walking tests add to select the policy).
    pub required: &'static [&'static str],
}

fn no_memory(_: &PlacementContext, _: &mut Estimate) {}

/// A working `bounds` for the policies that need one.
const BOUNDS: &str = "host.placement.bounds=[\"1MiB\"]";

/// The registry: one line per policy (its file holds the policy, its parameters and `build`).
pub const PLACEMENTS: Registry<PlacementBuildFn, PlacementCaps> = Registry {
    id: "placement",
    kind: "host placement policy",
    key: "host.placement.policy",
    title: "host placement policies ([host.placement] policy; identifiers for [ftl.placement])",
    params_table: Some(TABLE),
    entries: &[
        Entry {
            name: "address",
            about: "by byte offset: handle i for writes starting between bounds[i-1] and bounds[i]",
            params: crate::registry::schema_of::<address::Params>,
            caps: PlacementCaps { check: address::check, memory: no_memory, required: &[BOUNDS] },
            build: address::build,
        },
        Entry {
            name: "size",
            about: "by request length: handle i for writes of bounds[i-1] bytes up to below bounds[i]",
            params: crate::registry::schema_of::<size::Params>,
            caps: PlacementCaps { check: size::check, memory: no_memory, required: &[BOUNDS] },
            build: size::build,
        },
        Entry {
            name: "file",
            about: "by the file a write belongs to (a trace's file column): file id modulo handles, or pinned per file",
            params: crate::registry::schema_of::<file::Params>,
            caps: PlacementCaps { check: file::check, memory: no_memory, required: &["host.placement.handles=2"] },
            build: file::build,
        },
        Entry {
            name: "sepbit",
            about: "SepBIT's user writes (Wang et al. 2022): short-lived (previous version younger than the lifespan threshold) apart from the rest; 4 B per logical page",
            params: crate::registry::schema_of::<sepbit::Params>,
            caps: PlacementCaps { check: sepbit::check, memory: sepbit::memory, required: &[] },
            build: sepbit::build,
        },
        Entry {
            name: "trace",
            about: "the request's own identifier (a trace's placement column, a streams generator's): as without [host.placement]",
            params: crate::registry::no_params,
            caps: PlacementCaps { check: trace::check, memory: no_memory, required: &[] },
            build: trace::build,
        },
    ],
};

/// The registry line `[host.placement]` names, and the table without `policy`.
fn entry(table: &toml::Table) -> Result<(&'static Entry<PlacementBuildFn, PlacementCaps>, toml::Table), Error> {
    let name = match table.get("policy") {
        Some(toml::Value::String(s)) => s,
        Some(other) => {
            return Err(Error::config(format!("{TABLE}.policy"), format!("must be a policy's name (got {other})")))
        }
        None => {
            return Err(Error::config(
                format!("{TABLE}.policy"),
                format!("missing: name a host placement policy ({})", PLACEMENTS.names().join(", ")),
            ))
        }
    };
    let found = PLACEMENTS.find(name)?;
    let mut params = table.clone();
    params.remove("policy");
    Ok((found, params))
}

/// A parameter without a default: missing, an error naming it (rather than the table).
pub(crate) fn require(params: &toml::Table, key: &str, what: &str) -> Result<(), Error> {
    match params.contains_key(key) {
        true => Ok(()),
        false => Err(Error::config(format!("{TABLE}.{key}"), format!("required: {what}"))),
    }
}

/// `[host.placement]` checked without the logical space: a known policy and its parameters.
pub fn check(table: &toml::Table) -> Result<(), Error> {
    let (e, params) = entry(table)?;
    (e.caps.check)(&params)
}

/// Build the policy `[host.placement]` names.
pub fn build(table: &toml::Table, ctx: &PlacementContext) -> Result<Box<dyn PlacementPolicy>, Error> {
    let (e, params) = entry(table)?;
    (e.build)(&params, ctx)
}

/// What the policy `[host.placement]` names allocates.
pub fn memory(table: &toml::Table, ctx: &PlacementContext, est: &mut Estimate) -> Result<(), Error> {
    let (e, _) = entry(table)?;
    (e.caps.memory)(ctx, est);
    Ok(())
}

/// A workload whose writes carry the placement a policy chose.
pub struct Placed {
    inner: Box<dyn Workload>,
    policy: Box<dyn PlacementPolicy>,
}

impl Placed {
    /// `inner`'s requests, each write's placement chosen by `policy`.
    pub fn new(inner: Box<dyn Workload>, policy: Box<dyn PlacementPolicy>) -> Self {
        Placed { inner, policy }
    }

    #[inline]
    fn apply(&mut self, req: &mut Request) {
        match req.op {
            Op::Write => req.placement = self.policy.place(req),
            Op::Trim => self.policy.trim(req),
            Op::Read | Op::ZoneAppend | Op::ZoneFinish | Op::ZoneReset => {}
        }
    }
}

impl Workload for Placed {
    fn next_request(&mut self) -> Result<Option<Request>, Error> {
        let mut next = self.inner.next_request()?;
        if let Some(req) = next.as_mut() {
            self.apply(req);
        }
        Ok(next)
    }
    /// The inner workload's batch, placed request by request in order (the same stream
    /// `next_request` yields).
    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> bool {
        let start = out.len();
        if !self.inner.next_batch(out, max) {
            return false;
        }
        for req in &mut out[start..] {
            self.apply(req);
        }
        true
    }
    fn location(&self) -> Option<Location> {
        self.inner.location()
    }
    fn progress(&self) -> Option<(u64, u64)> {
        self.inner.progress()
    }
    fn bound(&self) -> Option<Bound> {
        self.inner.bound()
    }
}

/// Classes between ascending bounds (`address`, `size`): a value below `bounds[0]` is class
/// 0, from `bounds[i − 1]` up to below `bounds[i]` class i, at or past the last bound class
/// `bounds.len()`; each class's identifier is `handles[class]` (default: the class).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Classes {
    bounds: Vec<u64>,
    handles: Vec<u16>,
}

impl Classes {
    /// `bounds` strictly ascending and positive, at most [`MAX_BOUNDS`]; `handles`, when given,
    /// one per class.
    pub(crate) fn new(bounds: &[ByteSize], handles: Option<&[u16]>) -> Result<Self, Error> {
        let key = |k: &str| format!("{TABLE}.{k}");
        if bounds.is_empty() {
            return Err(Error::config(key("bounds"), "give at least one bound (two classes)"));
        }
        if bounds.len() > MAX_BOUNDS {
            return Err(Error::config(
                key("bounds"),
                format!(
                    "{} bounds; at most {MAX_BOUNDS} ({} classes, the most handles a device has)",
                    bounds.len(),
                    MAX_BOUNDS + 1
                ),
            ));
        }
        if bounds[0].0 == 0 {
            return Err(Error::config(key("bounds"), "the first bound must be above 0 (class 0 would be empty)"));
        }
        if let Some(w) = bounds.windows(2).find(|w| w[1] <= w[0]) {
            return Err(Error::config(
                key("bounds"),
                format!("must be strictly ascending ({} bytes then {} bytes)", w[0].0, w[1].0),
            ));
        }
        let handles = match handles {
            Some(h) if h.len() != bounds.len() + 1 => {
                return Err(Error::config(
                    key("handles"),
                    format!(
                        "{} identifiers for {} classes: give one per class (bounds + 1)",
                        h.len(),
                        bounds.len() + 1
                    ),
                ))
            }
            Some(h) => h.to_vec(),
            None => (0..=bounds.len() as u16).collect(),
        };
        Ok(Classes { bounds: bounds.iter().map(|b| b.0).collect(), handles })
    }

    /// The identifier of value `x`.
    #[inline]
    pub(crate) fn of(&self, x: u64) -> u16 {
        self.handles[self.bounds.partition_point(|&b| b <= x)]
    }

    /// The largest identifier.
    pub(crate) fn largest(&self) -> u16 {
        *self.handles.iter().max().expect("at least two classes")
    }
}

/// Most bounds of `address` and `size`: one class per reclaim unit handle a device may have.
pub const MAX_BOUNDS: usize = crate::ftl::placement::MAX_HANDLES as usize - 1;

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn write(offset: u64, len: u64) -> Request {
        Request { time_ns: 0, op: Op::Write, offset, len, placement: Some(9), file: None }
    }

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn classes_split_at_each_bound() {
        let c = Classes::new(&[ByteSize(10), ByteSize(20)], None).unwrap();
        let got: Vec<u16> = [0, 9, 10, 19, 20, u64::MAX].iter().map(|&x| c.of(x)).collect();
        assert_eq!(got, vec![0, 0, 1, 1, 2, 2]);
        let c = Classes::new(&[ByteSize(10)], Some(&[7, 3])).unwrap();
        assert_eq!((c.of(9), c.of(10), c.largest()), (7, 3, 7));
    }

    #[test]
    fn classes_refuse_bad_bounds_and_handles_naming_the_key() {
        let key = |r: Result<Classes, Error>| match r.unwrap_err() {
            Error::Config { key, .. } => key,
            e => panic!("{e}"),
        };
        assert_eq!(key(Classes::new(&[], None)), "host.placement.bounds");
        assert_eq!(key(Classes::new(&[ByteSize(0)], None)), "host.placement.bounds");
        assert_eq!(key(Classes::new(&[ByteSize(5), ByteSize(5)], None)), "host.placement.bounds");
        assert_eq!(key(Classes::new(&[ByteSize(5)], Some(&[1]))), "host.placement.handles");
        let many: Vec<ByteSize> = (1..=128).map(ByteSize).collect();
        assert_eq!(key(Classes::new(&many, None)), "host.placement.bounds");
    }

    #[test]
    fn the_table_names_a_known_policy() {
        let key = |t: &str| match check(&table(t)).unwrap_err() {
            Error::Config { key, .. } => key,
            Error::UnknownName { name, .. } => format!("unknown {name}"),
            e => panic!("{e}"),
        };
        assert_eq!(key(""), "host.placement.policy");
        assert_eq!(key("policy = 3"), "host.placement.policy");
        assert_eq!(key("policy = \"hot\""), "unknown hot");
        assert_eq!(key("policy = \"trace\"\nextra = 1"), "host.placement.extra");
        check(&table("policy = \"trace\"")).unwrap();
    }

    #[test]
    fn pages_fold_onto_the_capacity_and_stop_at_one_capacity() {
        let ctx = PlacementContext { logical_pages: 8, page_size: 4096 };
        let pages = |offset, len| ctx.pages(&write(offset, len)).collect::<Vec<_>>();
        assert_eq!(pages(4095, 2), vec![0, 1]);
        assert_eq!(pages(7 * 4096, 8192), vec![7, 0]);
        assert_eq!(pages(0, 0), Vec::<u64>::new());
        assert_eq!(pages(0, u64::MAX).len(), 8);
    }

    /// A fixed list of requests.
    struct Fixed(Vec<Request>);
    impl Workload for Fixed {
        fn next_request(&mut self) -> Result<Option<Request>, Error> {
            Ok((!self.0.is_empty()).then(|| self.0.remove(0)))
        }
        fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> bool {
            let k = max.saturating_sub(out.len()).min(self.0.len());
            out.extend(self.0.drain(..k));
            true
        }
    }

    #[test]
    fn placed_places_writes_and_passes_reads_and_trims_unchanged() {
        let ctx = PlacementContext { logical_pages: 1 << 20, page_size: 4096 };
        let policy = build(&table("policy = \"address\"\nbounds = [\"1MiB\"]\nhandles = [4, 2]"), &ctx).unwrap();
        let reqs = vec![
            write(0, 4096),
            Request { op: Op::Read, ..write(0, 4096) },
            Request { op: Op::Trim, ..write(2 << 20, 4096) },
            write(2 << 20, 4096),
        ];
        let one_by_one = {
            let mut p = Placed::new(Box::new(Fixed(reqs.clone())), policy);
            std::iter::from_fn(|| p.next_request().unwrap()).map(|r| r.placement).collect::<Vec<_>>()
        };
        assert_eq!(one_by_one, vec![Some(4), Some(9), Some(9), Some(2)]);
        let policy = build(&table("policy = \"address\"\nbounds = [\"1MiB\"]\nhandles = [4, 2]"), &ctx).unwrap();
        let mut p = Placed::new(Box::new(Fixed(reqs)), policy);
        let mut out = Vec::new();
        assert!(p.next_batch(&mut out, 3));
        assert!(p.next_batch(&mut out, 8));
        assert_eq!(out.iter().map(|r| r.placement).collect::<Vec<_>>(), one_by_one);
    }
}
