//! FTL layer: mapping, garbage collection and allocation, between the buffer and the NAND.
//!
//! A mapping scheme implements [`Ftl`] and is registered in [`MAPPINGS`] (one line each); it
//! owns a [`Nand`] and drives it. Page-mapped schemes (`page`, whole table in RAM; `dftl` and
//! `wadpm`, tables cached from flash — `ftl/page/` generic over `maptable.rs`) collect garbage
//! with the victim policies of `gc/`, the schedules of `schedule/` and the allocator of
//! `alloc.rs`; the block-mapped and log-block schemes (`block`, `bast`, `fast`: one
//! [`hybrid::LogScheme`] each, on the mechanism [`hybrid::LogBlockFtl`]) merge instead
//! ([`MappingCaps::gc_policy`]).
//!
//! Every FTL keeps these invariants, checked by [`Ftl::validate`] in check mode:
//! - every mapped logical page points at a programmed physical page whose OOB names it;
//! - per-segment valid counts equal the number of mapped pages inside the segment;
//! - every segment is exactly one of free / open / sealed, free ones erased;
//! - the NAND rules (program once, in order) hold — the NAND model asserts them itself.
//!
//! [`Ftl`]'s operations take typed pages and times ([`Lpn`], [`Ppn`], [`Nanos`]); inside, a
//! scheme's tables are flat arrays of raw integers and its inner paths pass raw numbers.

pub(crate) mod alloc;
pub mod bast;
pub mod block;
pub mod dftl;
pub mod fast;
pub mod gc;
pub mod hybrid;
pub mod mapcache;
pub mod maptable;
pub mod page;
pub mod placement;
pub mod schedule;
mod streams;
pub mod wadpm;
pub mod zns;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::nand::{GcUnit, Layout, Nand, NandCounters, TimingParams};
use crate::registry::{Entry, Registry};
use crate::units::{Lpn, Nanos, Ppn};

/// Result of a page read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    /// Completion time; equals the issue time in accounting mode or for unmapped pages.
    pub done: Nanos,
    /// Version tag stored with the page (verify mode), `None` if the page was never written.
    pub tag: Option<u32>,
}

/// Counters kept by the FTL itself (flash operation counts are in [`NandCounters`], `flash`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FtlCounters {
    /// Host page writes that reached the FTL.
    #[schemars(extend("x-unit" = "pages"))]
    pub host_writes: u64,
    /// Host page reads that reached the FTL (mapped or not).
    #[schemars(extend("x-unit" = "pages"))]
    pub host_reads: u64,
    /// Host page reads of never-written (or trimmed) pages: no flash read.
    #[schemars(extend("x-unit" = "pages"))]
    pub unmapped_reads: u64,
    /// Host page trims that reached the FTL.
    #[schemars(extend("x-unit" = "pages"))]
    pub trims: u64,
    /// Segments collected by GC.
    #[schemars(extend("x-unit" = "segments"))]
    pub gc_victims: u64,
    /// Valid pages moved by GC (copy-back or read+program).
    #[schemars(extend("x-unit" = "pages"))]
    pub gc_copies: u64,
    /// GC rounds that collected at least one victim (foreground and background).
    pub gc_rounds: u64,
    /// Of `gc_rounds`, rounds run in the background (after a host request; `femu` schedule).
    pub gc_background_rounds: u64,
    /// Background rounds declined because the victim would have freed too few pages.
    pub gc_declined_rounds: u64,
}

impl FtlCounters {
    /// The difference `self - o` (the measured phase).
    pub fn minus(&self, o: &FtlCounters) -> FtlCounters {
        FtlCounters {
            host_writes: self.host_writes - o.host_writes,
            host_reads: self.host_reads - o.host_reads,
            unmapped_reads: self.unmapped_reads - o.unmapped_reads,
            trims: self.trims - o.trims,
            gc_victims: self.gc_victims - o.gc_victims,
            gc_copies: self.gc_copies - o.gc_copies,
            gc_rounds: self.gc_rounds - o.gc_rounds,
            gc_background_rounds: self.gc_background_rounds - o.gc_background_rounds,
            gc_declined_rounds: self.gc_declined_rounds - o.gc_declined_rounds,
        }
    }
}

/// What GC did, by write stream (see [`gc::GcShape`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GcReport {
    /// The GC victim policy (`ftl.gc`).
    pub policy: String,
    /// The GC schedule and its resolved parameters (empty for schemes without one).
    pub schedule: String,
    /// Segments collected.
    pub victims: u64,
    /// Pages moved from stream `from` to stream `to`, e.g. `{"from": "N", "to": "C", "pages": 12}`.
    pub flows: Vec<Flow>,
    /// Pages GC moved from a non-cold stream into a cold one.
    pub moved_into_cold: u64,
    /// Of `moved_into_cold`, pages a later host write sent back to the normal region (only pages
    /// moved in the measured phase: never more than `moved_into_cold`).
    pub returned: u64,
    /// `returned / moved_into_cold` (null when nothing moved into cold).
    pub returned_ratio: Option<f64>,
    /// `returned` by age: the host writes (to any page) between a page's move into the cold
    /// region and its return, in drive writes (host writes over the logical pages), in buckets
    /// up to each `up_to_drive_writes` (the last, null, unbounded). Empty without a cold region.
    pub returned_age: Vec<AgeBucket>,
    /// Host writes that overwrote a page stored in each stream (the old copy's), e.g.
    /// `{"stream": "01", "pages": 9}`; beside `flows`, how many of the pages GC moved into a
    /// stream were rewritten before leaving it (2R++'s second chance at work; a page placed
    /// before the measured phase counts too, so the ratio to a flow is approximate). Empty for
    /// a policy with one stream.
    pub overwrites: Vec<StreamPages>,
    /// Share of the victims a policy's fallback rule chose (2R / 2R++: no segment under the
    /// threshold); null for policies without one or when nothing was collected.
    pub fallback_share: Option<f64>,
    /// Policy-specific counters.
    pub extra: std::collections::BTreeMap<String, u64>,
}

/// One bucket of [`GcReport::returned_age`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgeBucket {
    /// Upper bound (inclusive) in drive writes; null for the last bucket.
    pub up_to_drive_writes: Option<f64>,
    /// Returned pages of this age.
    pub pages: u64,
}

/// Pages per write stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StreamPages {
    /// The write stream's name.
    pub stream: String,
    /// Pages.
    pub pages: u64,
}

/// Bucket bounds of [`GcReport::returned_age`], in drive writes.
pub const RETURN_AGE_EDGES: [f64; 5] = [1.0 / 64.0, 1.0 / 16.0, 0.25, 1.0, 4.0];

/// Counts per age bucket (one more than [`RETURN_AGE_EDGES`]) as [`AgeBucket`]s.
pub fn age_buckets(counts: &[u64]) -> Vec<AgeBucket> {
    counts
        .iter()
        .enumerate()
        .map(|(i, &pages)| AgeBucket { up_to_drive_writes: RETURN_AGE_EDGES.get(i).copied(), pages })
        .collect()
}

/// Pages GC moved from one write stream to another ([`GcReport::flows`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Flow {
    /// Source write stream (the victim's).
    pub from: String,
    /// Destination write stream.
    pub to: String,
    /// Pages moved along this flow.
    pub pages: u64,
}

impl GcReport {
    /// The difference `self - base` (the measured phase).
    pub fn minus(&self, base: &GcReport) -> GcReport {
        let flows = self
            .flows
            .iter()
            .map(|f| {
                let b = base.flows.iter().find(|g| g.from == f.from && g.to == f.to).map_or(0, |g| g.pages);
                Flow { from: f.from.clone(), to: f.to.clone(), pages: f.pages - b }
            })
            .collect();
        let moved = self.moved_into_cold - base.moved_into_cold;
        let returned = self.returned - base.returned;
        let extra: std::collections::BTreeMap<String, u64> =
            self.extra.iter().map(|(k, v)| (k.clone(), v - base.extra.get(k).copied().unwrap_or(0))).collect();
        let victims = self.victims - base.victims;
        GcReport {
            policy: self.policy.clone(),
            schedule: self.schedule.clone(),
            victims,
            flows,
            moved_into_cold: moved,
            returned,
            returned_ratio: (moved > 0).then(|| returned as f64 / moved as f64),
            returned_age: self
                .returned_age
                .iter()
                .enumerate()
                .map(|(i, b)| AgeBucket {
                    up_to_drive_writes: b.up_to_drive_writes,
                    pages: b.pages - base.returned_age.get(i).map_or(0, |x| x.pages),
                })
                .collect(),
            overwrites: self
                .overwrites
                .iter()
                .map(|o| {
                    let b = base.overwrites.iter().find(|x| x.stream == o.stream).map_or(0, |x| x.pages);
                    StreamPages { stream: o.stream.clone(), pages: o.pages - b }
                })
                .collect(),
            fallback_share: fallback_share(&extra, victims),
            extra,
        }
    }
}

/// `fallback_victims / victims`, for policies that count fallback victims.
pub fn fallback_share(extra: &std::collections::BTreeMap<String, u64>, victims: u64) -> Option<f64> {
    let f = *extra.get("fallback_victims")?;
    (victims > 0).then(|| f as f64 / victims as f64)
}

/// What an FTL can say ahead about the plane a host write goes to ([`Ftl::write_planes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WritePlanes {
    /// Not known before writing: a write issued when every array is idle starts at once.
    Unknown,
    /// The plane whose array frees first (dynamic striping): a write issued while any array is
    /// idle starts at once.
    IdleFirst,
    /// Named per page by [`Ftl::next_write_free_at`].
    Named,
}

/// A flash translation layer: the core operations every scheme implements. The fast paths
/// ([`FtlFastPath`]) and the reports ([`FtlReports`]) are optional: every method there has a
/// default, so a scheme without them writes `impl FtlFastPath for MyFtl {}` and
/// `impl FtlReports for MyFtl {}`.
pub trait Ftl: FtlFastPath + FtlReports + Send + Sync + dyn_clone::DynClone {
    /// Read logical page `lpn` issued at `t`.
    fn read(&mut self, lpn: Lpn, t: Nanos) -> Result<ReadOutcome, Error>;
    /// Write logical page `lpn` carrying version `tag`, issued at `t`; returns completion.
    fn write(&mut self, lpn: Lpn, tag: u32, t: Nanos) -> Result<Nanos, Error>;
    /// Discard logical page `lpn`, issued at `t`; returns completion.
    fn trim(&mut self, lpn: Lpn, t: Nanos) -> Result<Nanos, Error>;
    /// Copy logical pages `src..src+pages` to `tgt..tgt+pages` inside the device (a file
    /// system's defragmentation, `defrag_copy` of the defrag paper). By default through the
    /// host path (a read and a write per page, counted as host I/O); FTLs that can place the
    /// copy with copy-back override it.
    fn defrag_copy(&mut self, src: Lpn, tgt: Lpn, pages: u64, t: Nanos) -> Result<Nanos, Error> {
        let mut done = t;
        for i in 0..pages {
            let r = self.read(Lpn(src.0 + i), t)?;
            let to = Lpn(tgt.0 + i);
            done = done.max(match r.tag {
                Some(tag) => self.write(to, tag, r.done)?,
                None => self.trim(to, r.done)?,
            });
        }
        Ok(done)
    }
    /// A host request has been served (issued at `t`): the moment for background work
    /// (the `femu` GC schedule's background GC). Returns whether anything was done. Default:
    /// nothing.
    fn after_request(&mut self, _t: Nanos) -> Result<bool, Error> {
        Ok(false)
    }
    /// What the FTL can say ahead about the plane of a host write (for background destaging,
    /// which starts a write only where it would not delay the next request). Default:
    /// [`WritePlanes::Unknown`].
    fn write_planes(&self) -> WritePlanes {
        WritePlanes::Unknown
    }
    /// With [`WritePlanes::Named`]: when the array of the plane the next host write of `lpn`
    /// would go to is idle (timing mode). Default: `None`.
    fn next_write_free_at(&self, _lpn: Lpn) -> Option<Nanos> {
        None
    }
    /// The next host write of `lpn` carries placement identifier `id` (`None`: none). Only
    /// called when [`Ftl::has_placement`].
    fn set_placement(&mut self, _lpn: Lpn, _id: Option<u16>) {}
    /// Does the FTL place host writes by their placement identifier (`ftl.placement`)?
    fn has_placement(&self) -> bool {
        false
    }
    /// The zone commands of a zoned device (`zns`); `None` for a conventional one.
    fn zones(&mut self) -> Option<&mut dyn zns::ZoneOps> {
        None
    }
    /// Pages per zone of a zoned device; `None` for a conventional one.
    fn zone_pages(&self) -> Option<u32> {
        None
    }
    /// Physical page holding `lpn`'s current data, if it has one (tests compare mappings).
    fn mapped_ppn(&self, lpn: Lpn) -> Option<Ppn>;
    /// Logical pages exported to the host.
    fn logical_pages(&self) -> u64;
    /// The FTL's own counters so far, preconditioning included.
    fn counters(&self) -> FtlCounters;
    /// `counters().host_writes`, without copying the other counters (asked after every request).
    fn host_writes(&self) -> u64 {
        self.counters().host_writes
    }
    /// The flash array the FTL drives.
    fn nand(&self) -> &Nand;
    /// The flash array, mutably (the run detaches and reattaches its timeline around
    /// preconditioning).
    fn nand_mut(&mut self) -> &mut Nand;
    /// O(device) invariant check (check mode, tests).
    fn validate(&self) -> Result<(), String>;
    /// Bytes of mapping state held in controller RAM.
    fn table_bytes(&self) -> u64;
    /// The measured phase starts (after preconditioning): what follows a page from one event to
    /// a later one counts only events of this phase from now on — `GcReport::returned` counts
    /// the return of a page moved into the cold region after this call, not before, so it stays
    /// a subset of the phase's `moved_into_cold`. Default: nothing to reset.
    fn start_measure(&mut self) {}
}

/// An FTL's optional fast paths: batched untimed writes, a direct sequential fill and cache
/// prefetching. Each either changes nothing and says so (`Ok(false)`), or leaves exactly the
/// state the page-by-page [`Ftl`] operations would; the defaults do nothing.
pub trait FtlFastPath {
    /// Accounting's fast path: host write requests of one page each, the first `n` of `lpns`,
    /// `lpns[i]` carrying tag `first_tag + i`, in order, each issued at `t` and followed by
    /// [`Ftl::after_request`] at `t` — the state and counters [`Ftl::write`] plus
    /// `after_request` per page leave — when every operation completes at its issue time (no
    /// timeline, lookups that cost nothing and keep no state). The pages after the first `n`
    /// are those of the requests that follow: hints for prefetching, not written. Served
    /// without a call per page through the layers above. `Ok(false)`, changing nothing, when
    /// this FTL cannot: the caller then writes page by page. An error is the one the
    /// page-by-page path meets at the same page, the pages before it written. `ids[i]`: the
    /// placement identifier of page `i` (empty when the FTL does not place writes; an FTL
    /// that does declines with fewer than `n`). Default: cannot.
    fn write_untimed(
        &mut self,
        _lpns: &[u64],
        _ids: &[Option<u16>],
        _n: usize,
        _first_tag: u32,
        _t: Nanos,
    ) -> Result<bool, Error> {
        Ok(false)
    }
    /// Write every logical page once, in order: the state a sequential fill of a fresh device
    /// leaves when each page `lpn` is written by [`Ftl::write`] with tag `first_tag + lpn` as a
    /// request of its own ([`Ftl::after_request`] after it), all at t = 0 with no timeline —
    /// built directly, without the per-request path, and identical to it. `Ok(false)`, changing
    /// nothing, when this FTL cannot (it has been written, it has a timeline, or its lookups
    /// keep state): the caller then writes page by page. An error is the one the page-by-page
    /// fill meets at the same page. Default: cannot.
    fn fill_sequential(&mut self, _first_tag: u32) -> Result<bool, Error> {
        Ok(false)
    }
    /// A hint that `lpn` will be read or written soon: start bringing what its lookup touches
    /// into the cache (`hint`). Changes nothing. Default: nothing to do.
    fn prefetch(&self, _lpn: Lpn) {}
    /// The second stage of [`FtlFastPath::prefetch`], a few requests later, when `lpn`'s mapping is
    /// likely in the cache: start fetching what its update touches next (the old page's
    /// validity and its block's counters). Changes nothing. Default: nothing to do.
    fn prefetch_update(&self, _lpn: Lpn) {}
}

/// What an FTL reports beyond [`FtlCounters`]; each scheme fills in what it has, the defaults
/// report nothing.
pub trait FtlReports {
    /// Physical pages the FTL keeps from holding data in steady state: the GC schedule's
    /// reserve of free segments and the open segments of write streams beyond the first (their
    /// unwritten pages), counted whole. `None` for schemes whose spare space is not one pool of
    /// segments (the log-block schemes).
    fn held_pages(&self) -> Option<u64> {
        None
    }
    /// GC activity by stream; mapping schemes without a victim policy return the default.
    fn gc_report(&self) -> GcReport {
        GcReport::default()
    }
    /// Mapping-table caching, for schemes that keep only part of the table in RAM.
    fn mapping_report(&self) -> Option<MappingReport> {
        None
    }
    /// Zone resets, finishes, appends and open-zone peaks (zoned devices).
    fn zone_report(&self) -> Option<zns::ZoneReport> {
        None
    }
    /// Per reclaim unit handle: host pages, GC moves, reclaim units (`ftl.placement`).
    fn placement_report(&self) -> Option<placement::PlacementReport> {
        None
    }
    /// Write classes and merges, for block-level and hybrid (log-block) schemes.
    fn hybrid_report(&self) -> Option<HybridReport> {
        None
    }
}
dyn_clone::clone_trait_object!(Ftl);

/// What a block-mapped or hybrid (log-block) FTL did (WADPM paper §3, Fig. 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HybridReport {
    /// First write of a page at its offset in its data block.
    pub write_data: u64,
    /// Overwrite of valid data: goes to a log block.
    pub update_pure: u64,
    /// The offset in the data block is free, but a later offset was already programmed, so the
    /// in-order rule forces the write into a log block.
    pub update_wasted: u64,
    /// Switch merges: a complete in-order log block becomes the data block.
    pub switch_merges: u64,
    /// Partial merges: the log block completed from the data block, then switched.
    pub partial_merges: u64,
    /// Full merges: a new data block assembled from the data block and the log blocks.
    pub full_merges: u64,
    /// Log blocks the scheme may hold (per device).
    pub log_blocks: u64,
    /// Defragmentation copies (`Ftl::defrag_copy`) recorded for the target's next merge
    /// (`defrag = "merge"`); those not done, voided or forced (below) still wait.
    pub defrag_deferred: u64,
    /// Defragmentation copies done inside a merge by copy-back.
    pub defrag_in_merge: u64,
    /// Defragmentation copies voided because the target got new data first.
    pub defrag_superseded: u64,
    /// Defragmentation copies made eagerly because their source was about to change.
    pub defrag_forced: u64,
    /// Defragmentation copies programmed at once as writes of the target (`defrag = "eager"`, and
    /// the forced ones).
    pub defrag_eager: u64,
}

impl HybridReport {
    /// The difference `self - base` (the measured phase).
    pub fn minus(&self, base: &HybridReport) -> HybridReport {
        HybridReport {
            write_data: self.write_data - base.write_data,
            update_pure: self.update_pure - base.update_pure,
            update_wasted: self.update_wasted - base.update_wasted,
            switch_merges: self.switch_merges - base.switch_merges,
            partial_merges: self.partial_merges - base.partial_merges,
            full_merges: self.full_merges - base.full_merges,
            log_blocks: self.log_blocks,
            defrag_deferred: self.defrag_deferred - base.defrag_deferred,
            defrag_in_merge: self.defrag_in_merge - base.defrag_in_merge,
            defrag_superseded: self.defrag_superseded - base.defrag_superseded,
            defrag_forced: self.defrag_forced - base.defrag_forced,
            defrag_eager: self.defrag_eager - base.defrag_eager,
        }
    }
}

/// What a cached mapping table did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MappingReport {
    /// Mapping lookups served from the cache.
    pub hits: u64,
    /// Mapping lookups that loaded from a translation page.
    pub misses: u64,
    /// hits / (hits + misses); null without lookups.
    pub hit_ratio: Option<f64>,
    /// Translation-page reads (misses, and read-modify-writes of partly cached pages).
    pub map_reads: u64,
    /// Translation-page writes (dirty write-backs).
    pub map_writes: u64,
    /// Of `map_reads`: reads of a partly cached dirty page merged before its write-back.
    pub map_merge_reads: u64,
    /// Bytes of the whole mapping table (4 bytes per logical page).
    pub full_table_bytes: u64,
    /// Bytes of the table held in RAM at the end of the run.
    pub cached_table_bytes: u64,
    /// Window size (entries) after each adjustment interval (dynamic windows).
    pub window_history: Vec<u64>,
}

impl MappingReport {
    /// The difference `self - base` (the measured phase): counters and hit ratio of the
    /// lookups after `base`, the window adjustments after it; sizes as they are now.
    pub fn minus(&self, base: &MappingReport) -> MappingReport {
        let (hits, misses) = (self.hits - base.hits, self.misses - base.misses);
        MappingReport {
            hits,
            misses,
            hit_ratio: (hits + misses > 0).then(|| hits as f64 / (hits + misses) as f64),
            map_reads: self.map_reads - base.map_reads,
            map_writes: self.map_writes - base.map_writes,
            map_merge_reads: self.map_merge_reads - base.map_merge_reads,
            full_table_bytes: self.full_table_bytes,
            cached_table_bytes: self.cached_table_bytes,
            window_history: self.window_history[base.window_history.len().min(self.window_history.len())..].to_vec(),
        }
    }
}

/// Where host writes go across planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Striping {
    /// Consecutive page writes go to consecutive planes (round-robin).
    Full,
    /// Each plane owns a contiguous range of logical pages.
    None,
    /// Timing mode: each write goes to the plane whose array is free first (round-robin among
    /// ties), steering host writes away from planes busy with GC. Accounting mode has no clock,
    /// so there it is the same as `full`; the two modes can then differ in placement and WAF.
    Dynamic,
}

impl Striping {
    /// The name in configs (`ftl.striping`).
    pub fn name(self) -> &'static str {
        match self {
            Striping::Full => "full",
            Striping::None => "none",
            Striping::Dynamic => "dynamic",
        }
    }
}

/// `[ftl]`: mapping scheme, garbage collection and write placement.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Mapping scheme (registry [`MAPPINGS`]; `flashlab list`).
    #[serde(default = "d_mapping")]
    pub mapping: String,
    /// GC victim policy (registry [`gc::GC_POLICIES`]; `flashlab list`) of schemes with one
    /// ([`MappingCaps::gc_policy`]; default `greedy`, filled in when the config is loaded).
    /// Log-block schemes merge instead and refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "greedy"))]
    pub gc: Option<String>,
    /// Parameters of the GC policy (see "Parameter tables").
    #[serde(default)]
    #[schemars(with = "crate::registry::FreeTable")]
    pub gc_params: toml::Table,
    /// Erase / GC unit: a block, or a line (superblock: the same block in every plane).
    #[serde(default = "d_unit")]
    pub gc_unit: GcUnit,
    /// Where host writes go across planes.
    #[serde(default = "d_striping")]
    pub striping: Striping,
    /// When GC runs and how many victims a round takes (registry [`schedule::GC_SCHEDULES`];
    /// `flashlab list`); unset: `classic`. Page-mapped schemes only.
    #[serde(default)]
    pub gc_schedule: Option<String>,
    /// Parameters of the GC schedule (see "Parameter tables").
    #[serde(default)]
    #[schemars(with = "crate::registry::FreeTable")]
    pub gc_schedule_params: toml::Table,
    /// Parameters of the mapping scheme, e.g. a cached table's window (see "Parameter tables").
    #[serde(default)]
    #[schemars(with = "crate::registry::FreeTable")]
    pub mapping_params: toml::Table,
    /// NVMe Flexible Data Placement: reclaim unit handles that a write's placement identifier
    /// chooses (page-mapped schemes with a single-stream GC policy). Absent: no placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<placement::PlacementConfig>,
}

fn d_mapping() -> String {
    "page".into()
}
/// The GC victim policy of page-mapped schemes when `ftl.gc` is not given.
pub const DEFAULT_GC: &str = "greedy";
fn d_unit() -> GcUnit {
    GcUnit::Block
}
fn d_striping() -> Striping {
    Striping::Full
}

impl FtlConfig {
    /// The GC victim policy's name (`ftl.gc`, else [`DEFAULT_GC`]).
    pub fn gc_name(&self) -> &str {
        self.gc.as_deref().unwrap_or(DEFAULT_GC)
    }

    /// The GC schedule's name (`ftl.gc_schedule`, else [`schedule::DEFAULT`]).
    pub fn schedule_name(&self) -> &str {
        self.gc_schedule.as_deref().unwrap_or(schedule::DEFAULT)
    }

    /// The first GC key that is set (`ftl.gc`, `ftl.gc_params.K`, `ftl.gc_schedule`,
    /// `ftl.gc_schedule_params.K`), dotted: what a scheme without a victim policy refuses.
    pub fn gc_key_set(&self) -> Option<String> {
        if self.gc.is_some() {
            Some("ftl.gc".to_string())
        } else if let Some(k) = self.gc_params.keys().next() {
            Some(format!("ftl.gc_params.{k}"))
        } else if self.gc_schedule.is_some() {
            Some("ftl.gc_schedule".to_string())
        } else {
            self.gc_schedule_params.keys().next().map(|k| format!("ftl.gc_schedule_params.{k}"))
        }
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            mapping: d_mapping(),
            gc: None,
            gc_params: toml::Table::new(),
            gc_unit: d_unit(),
            striping: d_striping(),
            gc_schedule: None,
            gc_schedule_params: toml::Table::new(),
            mapping_params: toml::Table::new(),
            placement: None,
        }
    }
}

/// Everything a mapping scheme is built from.
pub struct FtlSpec<'a> {
    /// The device layout: geometry and GC unit.
    pub layout: Layout,
    /// Logical pages exported to the host.
    pub logical_pages: u64,
    /// The `[ftl]` section.
    pub config: &'a FtlConfig,
    /// Keep a version tag per page so reads can be verified.
    pub verify: bool,
    /// The timing model in timing mode; `None` in accounting mode (the NAND keeps no timeline).
    pub timing: Option<&'a TimingParams>,
    /// The run's seed (`seed` of the config): policies that draw random numbers derive theirs
    /// from it ([`gc::GcContext::rng`]).
    pub seed: u64,
}

/// A mapping scheme's constructor.
pub type MappingBuildFn = fn(&FtlSpec) -> Result<Box<dyn Ftl>, Error>;

/// What the configuration needs to know about a mapping scheme before building it.
#[derive(Clone, Copy, Debug)]
pub struct MappingCaps {
    /// Whether the scheme collects garbage with a victim policy (`ftl.gc`, `gc_params`) and a
    /// GC schedule; the log-block schemes merge instead, and those keys are errors there.
    pub gc_policy: bool,
    /// The erase / GC units it runs on (`ftl.gc_unit`).
    pub units: &'static [GcUnit],
    /// The placements across planes it runs with (`ftl.striping`). Beyond these lists, one
    /// rule holds for every scheme: [`layout_rule`].
    pub stripings: &'static [Striping],
    /// Whether it fixes each logical page's plane by its address whatever the striping
    /// (WADPM's plane = LPN mod planes), so a write cannot choose its plane (FDP reclaim
    /// groups are refused).
    pub fixes_plane: bool,
    /// What it allocates for a spec (its tables, the NAND below), added to the run's memory
    /// estimate ([`crate::memory`]) before anything is built; an error where it cannot be built
    /// at that size at all.
    pub memory: MappingMemoryFn,
}

/// A mapping scheme's memory: [`MappingCaps::memory`].
pub type MappingMemoryFn = fn(&FtlSpec, &mut crate::memory::Estimate) -> Result<(), Error>;

/// A registry line of [`MAPPINGS`].
pub type MappingEntry = Entry<MappingBuildFn, MappingCaps>;

/// Block and line units.
const ANY_UNIT: &[GcUnit] = &[GcUnit::Block, GcUnit::Line];
/// Block units only: the scheme keeps data in its plane.
const BLOCK_UNIT: &[GcUnit] = &[GcUnit::Block];
/// Every striping.
const ANY_STRIPING: &[Striping] = &[Striping::Full, Striping::None, Striping::Dynamic];
/// Stripings that fix each logical page's plane by its address.
const BY_ADDRESS: &[Striping] = &[Striping::Full, Striping::None];
/// LPN mod planes only (WADPM's Eq. 1).
const FULL_ONLY: &[Striping] = &[Striping::Full];

/// The registry: one line per mapping scheme (its file holds the scheme and its `build`; a
/// log-block scheme is a [`hybrid::LogScheme`] built by `hybrid::build::<Scheme>`).
pub const MAPPINGS: Registry<MappingBuildFn, MappingCaps> = Registry {
    id: "mapping",
    kind: "mapping scheme",
    key: "ftl.mapping",
    title: "mapping schemes ([ftl] mapping)",
    params_table: Some("ftl.mapping_params"),
    entries: &[
        Entry {
            name: "page",
            about: "page-level mapping, whole table in RAM; GC by a victim policy",
            params: crate::registry::no_params,
            caps: MappingCaps { gc_policy: true, units: ANY_UNIT, stripings: ANY_STRIPING, fixes_plane: false, memory: page::memory_page },
            build: page::build,
        },
        Entry {
            name: "block",
            about: "block-level mapping per plane; updates copy-merge the block",
            params: crate::registry::no_params,
            caps: MappingCaps {
                gc_policy: false,
                units: BLOCK_UNIT,
                stripings: BY_ADDRESS,
                fixes_plane: false,
                memory: hybrid::memory::<block::Block>,
            },
            build: hybrid::build::<block::Block>,
        },
        Entry {
            name: "bast",
            about: "hybrid: one log block per data block, LRU log replacement (BAST)",
            params: crate::registry::schema_of::<hybrid::LogParams>,
            caps: MappingCaps {
                gc_policy: false,
                units: BLOCK_UNIT,
                stripings: BY_ADDRESS,
                fixes_plane: false,
                memory: hybrid::memory::<bast::Bast>,
            },
            build: hybrid::build::<bast::Bast>,
        },
        Entry {
            name: "fast",
            about: "hybrid: one sequential + fully associative random log blocks (FAST)",
            params: crate::registry::schema_of::<hybrid::LogParams>,
            caps: MappingCaps {
                gc_policy: false,
                units: BLOCK_UNIT,
                stripings: BY_ADDRESS,
                fixes_plane: false,
                memory: hybrid::memory::<fast::Fast>,
            },
            build: hybrid::build::<fast::Fast>,
        },
        Entry {
            name: "dftl",
            about: "demand-based page mapping: cached mapping table, translation pages in flash (Gupta et al. 2009)",
            params: dftl::params,
            caps: MappingCaps { gc_policy: true, units: ANY_UNIT, stripings: ANY_STRIPING, fixes_plane: false, memory: dftl::memory },
            build: dftl::build,
        },
        Entry {
            name: "wadpm",
            about:
                "plane-level page mapping, table in flash, LRU cache of entries (Workload-Aware Dynamic Page Mapping)",
            params: crate::registry::schema_of::<mapcache::CacheParams>,
            caps: MappingCaps { gc_policy: true, units: BLOCK_UNIT, stripings: FULL_ONLY, fixes_plane: true, memory: wadpm::memory },
            build: wadpm::build,
        },
        Entry {
            name: "zns",
            about: "zoned namespace (ZNS): zone = GC segment, written at its write pointer, reset by the host; no device GC",
            params: crate::registry::schema_of::<zns::ZnsParams>,
            caps: MappingCaps { gc_policy: false, units: ANY_UNIT, stripings: FULL_ONLY, fixes_plane: false, memory: zns::memory },
            build: zns::build,
        },
    ],
};

impl MappingEntry {
    /// Refuse a layout the scheme does not run on: a unit or a striping missing from its lists
    /// (the error names the key, the scheme and the valid values), or a combination
    /// [`layout_rule`] refuses.
    pub fn check_layout(&self, unit: GcUnit, striping: Striping) -> Result<(), Error> {
        if !self.caps.units.contains(&unit) {
            return Err(self.refuse("ftl.gc_unit", unit.name(), self.caps.units.iter().map(|u| u.name())));
        }
        if !self.caps.stripings.contains(&striping) {
            return Err(self.refuse("ftl.striping", striping.name(), self.caps.stripings.iter().map(|s| s.name())));
        }
        layout_rule(unit, striping)
    }

    /// Every (unit, striping) the scheme runs on, units first, in the order of its lists.
    pub fn layouts(&self) -> Vec<(GcUnit, Striping)> {
        let pairs = self.caps.units.iter().flat_map(|&u| self.caps.stripings.iter().map(move |&s| (u, s)));
        pairs.filter(|&(u, s)| layout_rule(u, s).is_ok()).collect()
    }

    fn refuse(&self, key: &str, value: &str, valid: impl Iterator<Item = &'static str>) -> Error {
        let valid: Vec<String> = valid.map(|v| format!("\"{v}\"")).collect();
        Error::config(
            key,
            format!("mapping `{}` does not run with {key} = \"{value}\"; valid: {}", self.name, valid.join(", ")),
        )
    }
}

/// The layout rule of every scheme, beyond its lists: a line (the same block in every plane)
/// is one pool across the planes, so the stripings that pick a plane per write (`none`: by
/// address range, `dynamic`: the plane free first) need block units.
pub fn layout_rule(unit: GcUnit, striping: Striping) -> Result<(), Error> {
    if unit == GcUnit::Line && striping != Striping::Full {
        return Err(Error::config(
            "ftl.striping",
            "`none` and `dynamic` need gc_unit = \"block\": a line spans every plane",
        ));
    }
    Ok(())
}

/// The registry entry of the scheme `config` names, once the config suits it: a known name,
/// a layout it runs on ([`MappingEntry::check_layout`], with the layout's unit `unit`), and no
/// GC key unless it has a victim policy ([`MappingCaps::gc_policy`]).
pub fn check(config: &FtlConfig, unit: GcUnit) -> Result<&'static MappingEntry, Error> {
    let m = MAPPINGS.find(&config.mapping)?;
    m.check_layout(unit, config.striping)?;
    if let Some(key) = config.gc_key_set().filter(|_| !m.caps.gc_policy) {
        return Err(Error::config(
            key,
            format!(
                "mapping `{}` merges blocks when a write needs one; it has no GC victim policy or schedule (page-mapped schemes only)",
                m.name
            ),
        ));
    }
    if let Some(p) = &config.placement {
        if !m.caps.gc_policy {
            return Err(Error::config(
                "ftl.placement",
                format!("mapping `{}` has no write streams; placement needs a page-mapped scheme", m.name),
            ));
        }
        p.validate()?;
    }
    Ok(m)
}

/// The registry entry of mapping scheme `name`.
pub fn mapping(name: &str) -> Option<&'static MappingEntry> {
    MAPPINGS.get(name)
}

/// Names of the registered mapping schemes, in registry order.
pub fn mapping_names() -> Vec<&'static str> {
    MAPPINGS.names()
}

/// Build the FTL named in the spec's config, once [`check`] accepts the config; unknown names
/// list the valid ones.
pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    (check(spec.config, spec.layout.unit)?.build)(spec)
}

/// What the FTL [`build`] would make allocates (its mapping scheme's `memory`: tables, GC
/// policy, NAND), added to `est`; refuses what the constructor would — its parameters, the GC
/// policy's and schedule's, the spare space they need — allocating nothing.
pub fn memory(spec: &FtlSpec, est: &mut crate::memory::Estimate) -> Result<(), Error> {
    (check(spec.config, spec.layout.unit)?.caps.memory)(spec, est)
}

/// Convenience for results: NAND counters difference.
pub fn nand_minus(a: &NandCounters, b: &NandCounters) -> NandCounters {
    NandCounters {
        reads: a.reads - b.reads,
        programs: a.programs - b.programs,
        copybacks: a.copybacks - b.copybacks,
        erases: a.erases - b.erases,
    }
}
