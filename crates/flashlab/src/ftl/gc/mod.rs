//! Garbage-collection victim policies, one file each, registered in [`GC_POLICIES`].
//!
//! Policy decides, mechanism acts: a policy sees segments through a read-only [`GcView`] and
//! event hooks, and only answers "which segment next" and "which write stream gets host writes
//! and moved pages". Moving valid pages, erasing and counting live in the FTL's GC mechanism
//! (`ftl::page`), the same for every policy; *when* GC runs and how many victims a round takes
//! is the GC schedule's decision (`ftl::schedule`).

pub mod analytic;
pub mod cost_benefit;
pub mod d_choices;
pub mod fifo;
pub mod greedy;
mod members;
pub mod random;
pub mod two_region;

pub use members::Members;

use crate::error::Error;
use crate::nand::Layout;
use crate::registry::{self, schema_of, Entry, Registry};

/// Life cycle of a segment (block or line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegState {
    /// Erased, on its pool's free list.
    Free,
    /// Being written by a write stream.
    Open,
    /// Fully written; a GC candidate.
    Sealed,
}

/// What a policy may look at. Indexes are segment ids.
pub struct GcView<'a> {
    /// The device layout (segment size, pools).
    pub layout: &'a Layout,
    /// Valid pages per segment.
    pub valid: &'a [u32],
    /// Free / open / sealed, per segment.
    pub state: &'a [SegState],
    /// Write stream that filled (or is filling) each segment.
    pub stream: &'a [u8],
    /// Logical time (host pages written so far) at which each segment was sealed.
    pub sealed_at: &'a [u64],
    /// Logical time now: host pages written so far.
    pub now: u64,
}

/// A victim-selection policy.
pub trait GcPolicy: Send + Sync + dyn_clone::DynClone {
    /// The victim the policy would collect next among the *sealed* segments of `pool`, or
    /// `None` if there is none. Choosing commits nothing: the mechanism either declines it (a
    /// round whose first victim must free the schedule's `min_invalid` pages) or takes it
    /// ([`GcPolicy::take`]) before anything else changes.
    fn choose(&mut self, view: &GcView, pool: u32) -> Option<u32>;

    /// The segment just chosen is collected: it is no longer a candidate.
    fn take(&mut self, view: &GcView, seg: u32);

    /// Could this round's first victim free `min_invalid` pages? Asked before
    /// [`GcPolicy::choose`] when the schedule sets a minimum; `false` only when the choice
    /// cannot free that many (a policy that tracks it answers without searching). The rule
    /// itself is the mechanism's: it declines a choice that frees fewer, whatever this says.
    fn may_free(&mut self, _view: &GcView, _pool: u32, _min_invalid: u32) -> bool {
        true
    }

    /// Stream for a host write of `lpn`: an index into the [`GcShape::streams`] the policy's
    /// registry line declared (stream 0 by default).
    fn host_stream(&self, _lpn: u64) -> usize {
        0
    }
    /// Stream for valid pages moved out of `victim`. Default: the host stream, as FEMU does.
    fn gc_stream(&self, _view: &GcView, _victim: u32) -> usize {
        0
    }
    /// A GC round starts (before its first victim).
    fn on_round_start(&mut self) {}
    /// After the round the schedule asked for is complete, keep collecting? (multi-victim
    /// rules, e.g. 2R).
    fn continue_round(&self, _view: &GcView, _victims_this_round: u32) -> bool {
        false
    }
    /// Policy-specific counters for results (name, value).
    fn metrics(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// A segment became sealed (a candidate).
    fn on_seal(&mut self, _view: &GcView, _seg: u32) {}
    /// A page of `seg` became invalid; `valid_after` is its new valid count.
    fn on_invalidate(&mut self, _seg: u32, _valid_after: u32) {}
    /// A hint that a page of `seg` will soon become invalid: start fetching the state
    /// [`GcPolicy::on_invalidate`] will touch (`hint`). Changes nothing.
    fn prefetch(&self, _seg: u32) {}
    /// A segment was erased and returned to the free pool.
    fn on_erase(&mut self, _seg: u32) {}
    /// Cross-check internal structures against the view (check mode).
    fn validate(&self, _view: &GcView) -> Result<(), String> {
        Ok(())
    }
}
dyn_clone::clone_trait_object!(GcPolicy);

/// The next victim of `pool`, the schedule's minimum-invalid rule applied: the policy chooses,
/// a choice that frees fewer than `min_invalid` pages is declined (`None`, nothing changed), and
/// otherwise the policy takes it. The one place the rule is applied; the GC mechanism
/// (`ftl/page/collect.rs`) calls it for every victim.
pub fn select_victim(policy: &mut dyn GcPolicy, view: &GcView, pool: u32, min_invalid: u32) -> Option<u32> {
    if min_invalid > 0 && !policy.may_free(view, pool, min_invalid) {
        return None;
    }
    let seg = policy.choose(view, pool)?;
    if view.layout.pages_per_segment - view.valid[seg as usize] < min_invalid {
        return None;
    }
    policy.take(view, seg);
    Some(seg)
}

/// The random number generator a policy may draw from: xoshiro256++, seeded per policy.
pub type PolicyRng = rand_xoshiro::Xoshiro256PlusPlus;

/// What a policy is built from: the layout, its `[ftl.gc_params]` table and a seed.
#[derive(Clone, Copy)]
pub struct GcContext<'a> {
    /// The device layout (segments, pools).
    pub layout: &'a Layout,
    /// `[ftl.gc_params]` (unknown keys are the policy's to refuse).
    pub params: &'a toml::Table,
    /// This policy's seed: `derive_seed(run seed, "gc:" + policy name)`, so two runs with the
    /// same config and seed draw the same numbers, and a policy's draws do not depend on what
    /// any other component draws.
    pub seed: u64,
}

impl GcContext<'_> {
    /// A generator seeded with [`GcContext::seed`]: the one source of randomness a policy may
    /// use (no thread RNG, no clock), so a run stays a function of its config.
    pub fn rng(&self) -> PolicyRng {
        <PolicyRng as rand::SeedableRng>::seed_from_u64(self.seed)
    }
}

/// A policy's constructor.
pub type GcBuildFn = fn(ctx: &GcContext) -> Result<Box<dyn GcPolicy>, Error>;

/// What the mechanism needs to know about a policy before building it, from its parameters
/// alone (nothing allocated): its write streams and the copy flows between them. A value the
/// registry line's `shape` returns; the mechanism sizes its frontiers, its cold-region tracking
/// and its reports from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GcShape {
    /// The write streams (frontiers), by index; stream 0 takes host writes unless
    /// [`GcPolicy::host_stream`] says otherwise.
    pub streams: Vec<GcStream>,
    /// The (from, to) stream pairs GC can move pages along, listed in reports even when zero.
    pub flows: Vec<(usize, usize)>,
}

/// One write stream of a [`GcShape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GcStream {
    /// Display name in copy-flow metrics ("all", or "N", "C", "00", …).
    pub name: &'static str,
    /// Part of a cold region? Pages GC moves from a non-cold stream into a cold one count as
    /// "moved into cold"; a later host write to such a page counts as "returned".
    pub cold: bool,
}

impl GcShape {
    /// One stream ("all"), not cold, GC moving pages within it: the shape of most policies.
    pub fn single() -> GcShape {
        GcShape { streams: vec![GcStream { name: "all", cold: false }], flows: vec![(0, 0)] }
    }

    /// Per stream, whether it is cold.
    pub fn cold(&self) -> Vec<bool> {
        self.streams.iter().map(|s| s.cold).collect()
    }
}

/// A policy's registry capabilities: its parameters checked into its [`GcShape`], and its
/// memory, both before anything is built.
#[derive(Clone, Copy)]
pub struct GcCaps {
    /// Parse and check `[ftl.gc_params]` (every error the build would give) and say the shape.
    pub shape: fn(layout: &Layout, params: &toml::Table) -> Result<GcShape, Error>,
    /// What the built policy allocates on `layout` (its per-segment and per-pool state), added
    /// to the run's memory estimate ([`crate::memory`]).
    pub memory: fn(layout: &Layout, params: &toml::Table, est: &mut crate::memory::Estimate),
}

/// A registry line of [`GC_POLICIES`].
pub type GcEntry = Entry<GcBuildFn, GcCaps>;

/// The registry: one line per policy (its file holds the policy, its `build`, `shape` and
/// `memory`).
#[rustfmt::skip]
pub const GC_POLICIES: Registry<GcBuildFn, GcCaps> = Registry {
    id: "gc",
    kind: "GC policy",
    key: "ftl.gc",
    title: "GC policies ([ftl] gc)",
    params_table: Some("ftl.gc_params"),
    entries: &[
        Entry { name: "greedy", about: "fewest valid pages first; O(1) with valid-count buckets", params: registry::no_params, caps: GcCaps { shape: greedy::shape, memory: greedy::memory }, build: greedy::build },
        Entry { name: "cost-benefit", about: "max (1-u)/2u x age (Rosenblum & Ousterhout, LFS)", params: registry::no_params, caps: GcCaps { shape: cost_benefit::shape, memory: cost_benefit::memory }, build: cost_benefit::build },
        Entry { name: "fifo", about: "oldest sealed segment first (circular log)", params: registry::no_params, caps: GcCaps { shape: fifo::shape, memory: fifo::memory }, build: fifo::build },
        Entry { name: "2r", about: "2R: FIFO scan with threshold, normal/cold regions (Kang et al., VLDB 2020)", params: schema_of::<two_region::Params>, caps: GcCaps { shape: two_region::shape_2r, memory: two_region::memory }, build: two_region::build_2r },
        Entry { name: "2r++", about: "2R++: 2R plus a second-chance 01 region (An & Lee, 2022)", params: schema_of::<two_region::Params>, caps: GcCaps { shape: two_region::shape_2rpp, memory: two_region::memory }, build: two_region::build_2rpp },
        Entry { name: "random", about: "a sealed segment chosen uniformly at random (seeded)", params: registry::no_params, caps: GcCaps { shape: random::shape, memory: random::memory }, build: random::build },
        Entry { name: "d-choices", about: "fewest valid pages among d sealed segments sampled at random (Van Houdt, 2013)", params: schema_of::<d_choices::Params>, caps: GcCaps { shape: d_choices::shape, memory: d_choices::memory }, build: d_choices::build },
    ],
};

/// Names of the registered GC policies, in registry order.
pub fn names() -> Vec<&'static str> {
    GC_POLICIES.names()
}

/// Build the policy `name` (`params`: its `[ftl.gc_params]` table, unknown keys are errors;
/// `run_seed`: the run's seed, from which the policy's own is derived); an unknown name lists
/// the valid ones.
pub fn build(name: &str, layout: &Layout, params: &toml::Table, run_seed: u64) -> Result<Box<dyn GcPolicy>, Error> {
    (GC_POLICIES.find(name)?.build)(&GcContext { layout, params, seed: policy_seed(run_seed, name) })
}

/// The seed of policy `name` in a run seeded `run_seed`.
pub fn policy_seed(run_seed: u64, name: &str) -> u64 {
    crate::seed::derive_seed(run_seed, &format!("gc:{name}"))
}

/// The shape of a policy without parameters (any key in `[ftl.gc_params]` refused, naming
/// `name`): one stream, not cold.
pub(crate) fn without_params(name: &str, params: &toml::Table) -> Result<GcShape, Error> {
    crate::registry::refuse_params("ftl.gc_params", name, params)?;
    Ok(GcShape::single())
}

/// Bytes of a per-pool collection of segments (header `H` per pool, each grown by pushes to
/// its pool's share of the segments) plus `per_segment` bytes for every segment.
pub(crate) fn per_pool_members<H>(layout: &Layout, per_segment: u64) -> u64 {
    use crate::memory::{grown_vec_bytes, vec_bytes};
    let (segs, pools) = (layout.segments as u64, layout.pools as u64);
    vec_bytes::<H>(pools)
        .saturating_add(pools.saturating_mul(grown_vec_bytes::<u32>(segs.div_ceil(pools.max(1)))))
        .saturating_add(segs.saturating_mul(per_segment))
}

/// The shape of policy `name` with `params` ([`GcCaps::shape`]): its parameters checked,
/// nothing built.
pub fn shape(name: &str, layout: &Layout, params: &toml::Table) -> Result<GcShape, Error> {
    (GC_POLICIES.find(name)?.caps.shape)(layout, params)
}
