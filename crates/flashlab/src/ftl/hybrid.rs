//! The mechanism of the block-mapped and log-block (hybrid) FTLs, [`LogBlockFtl`], generic over
//! a [`LogScheme`]: `block`, `bast`, `fast` (WADPM paper §3, Fig. 4).
//!
//! **Per plane.** Each plane is an independent FTL over its slice of the logical pages:
//! `striping = "full"` → plane = LPN mod planes, local LPN = LPN div planes; `"none"` →
//! contiguous ranges (plane = LPN / ceil(logical / planes)). Inside a plane, LBN = local LPN /
//! pages_per_block and offset = local LPN % pages_per_block. A plane has a free list of blocks,
//! a block map LBN → data block, and the log blocks of its scheme. One exception:
//! `sequential_log = "device"` (FAST) keeps one dedicated log block for the whole device, as
//! the original FAST does; opening one on a plane first merges the one open on another. The
//! registry lines of these schemes take block units and `full` / `none` striping only, and no
//! GC victim policy or schedule (`ftl.gc`, `gc_params`, `gc_schedule`, `gc_schedule_params`):
//! [`super::check`] refuses the rest before a scheme is built. Merges replace GC and run when a write needs a
//! free block.
//!
//! **Mechanism and scheme.** [`LogBlockFtl`] owns the flash and everything every scheme shares:
//! free lists, block map, block roles, the location of every logical page, counters and the
//! [`HybridReport`], in-place writes, the merges, padding, defragmentation copies. A scheme
//! owns only its log blocks of one plane (BAST: a log block per LBN and their LRU order; FAST:
//! the sequential log block and the queue of random ones; `block`: none) and decides, through
//! [`LogScheme`], where an update goes ([`LogChoice`]) and which merge frees room for it
//! ([`Merge`]); the mechanism acts on that decision.
//!
//! **Data blocks** hold offset `o` at page `o`. Pages of a block are programmed in increasing
//! order, so when a write (or a merge) must place offset `o` above the block's program point,
//! the pages in between are *skipped* (`Nand::skip_to`: free, they stay erased and unusable
//! until the block is erased); a later write at such an offset is an `update_wasted`. Skipped
//! pages are counted in [`LogBlockFtl::padding_pages`].
//!
//! **Merges** (every merge counts one `gc_victims`; every page it moves, one `gc_copies`):
//! - switch: a log block holding offsets 0..n-1 in order, all current, becomes the data block;
//!   the old data block is erased (no copies);
//! - partial: a log block holding offsets 0..k-1 in order, all current, while every other
//!   current page of the LBN is in the data block: those pages are copied (copy-back) into the
//!   log block at their offsets, which then becomes the data block;
//! - full: a new block receives the current version of every offset (from the data block and
//!   any log block); the data block and the LBN's own log block are erased;
//! - copy-merge (schemes without log blocks): a full merge that takes the update at its offset.
//!
//! A log block *dedicated* to one LBN is merged (switch, partial or full) when the scheme
//! replaces it and at once when it fills up; a *shared* log block is reclaimed by full-merging
//! every LBN with a current page in it, then erased.
//!
//! **RAM accounting** (`table_bytes`): block-map entries × 4 B + per log block a page map of
//! pages_per_block × 4 B. The simulator additionally keeps a per-logical-page location (a
//! shortcut equivalent to scanning the block map and log-block page maps); it is not counted.

use std::collections::VecDeque;

use super::{Ftl, FtlCounters, FtlFastPath, FtlReports, FtlSpec, HybridReport, ReadOutcome, Striping};
use crate::error::Error;
use crate::fastmap::FastMap;
use crate::nand::{GcUnit, Nand};
use crate::units::{Lpn, Nanos, Ppn};

/// "No block" / "no page" in the flat maps.
pub(super) const NONE: u32 = u32::MAX;

/// A log-block scheme: its log blocks of one plane (one value per plane) and the decisions
/// that differ between schemes. [`LogBlockFtl`] does the rest. Adding a scheme is one file
/// implementing this trait and one line in [`MAPPINGS`](super::MAPPINGS) (`build:
/// hybrid::build::<MyScheme>`).
pub trait LogScheme: Clone + Send + Sync + 'static {
    /// The scheme's name in error messages (its registry name).
    const NAME: &'static str;
    /// Parse `[ftl.mapping_params]`: log blocks per plane and where defragmentation copies go.
    fn budget(spec: &FtlSpec) -> Result<LogBudget, Error>;
    /// No log block yet, on a plane of `lbns` logical blocks.
    fn new(lbns: usize) -> Self;
    /// The most heap bytes one plane's scheme state takes (allocator overhead included,
    /// [`crate::memory::heap_bytes`]) on a plane of `lbns` logical blocks and `log_blocks` log
    /// blocks: the memory estimate's share of the scheme beyond its struct.
    fn plane_heap_bytes(lbns: u64, log_blocks: u32) -> u64;
    /// Where an update of offset `off` of `lbn` goes (a write that cannot go in place). A
    /// [`LogChoice::Merge`] of a shared block detaches that block first.
    fn choose(&mut self, v: &LogView, lbn: u32, off: u32) -> LogChoice;
    /// `block` was taken as the new log block [`LogChoice::Open`] asked for.
    fn opened(&mut self, block: u32, lbn: u32, dedicated: bool);
    /// Detach and return the log block dedicated to `lbn`, if it has one (it is being merged).
    fn detach(&mut self, lbn: u32) -> Option<u32>;
    /// Every log block in use.
    fn logs(&self) -> Vec<u32>;
    /// Whether `lpn` (of `lbn`), current at `page` of log block `block`, is where the
    /// scheme's maps would find it.
    fn holds(&self, v: &LogView, block: u32, page: u32, lbn: u32, lpn: u64) -> bool;
    /// The scheme's own structures agree with each other (O(plane)).
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// A scheme's answer to [`LogScheme::choose`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogChoice {
    /// Append to this log block, dedicated to the LBN (merged at once when full).
    Dedicated(u32),
    /// Append to this log block, shared by the plane's LBNs.
    Shared(u32),
    /// Take a free block as a new log block, dedicated to the LBN or shared (recorded by
    /// [`LogScheme::opened`]), and append to it.
    Open {
        /// The new log block is dedicated to the LBN (else shared by the plane's LBNs).
        dedicated: bool,
    },
    /// Run this merge first (it frees a log block), then place the write again.
    Merge(Merge),
    /// No log block: copy-merge the LBN into a new data block that takes the update.
    CopyMerge,
}

/// A merge a scheme asks for to free a log block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// This LBN with its dedicated log block ([`LogScheme::detach`]): switch or partial merge
    /// when the log's shape allows, else full.
    Lbn(u32),
    /// This shared log block, already detached: every LBN with a current page in it is
    /// full-merged (with its dedicated log block, if any), then the block is erased.
    Shared(u32),
}

/// What a scheme may read of the mechanism when it decides.
pub struct LogView<'a> {
    nand: &'a Nand,
    /// Pages in each erase block.
    pub pages_per_block: u32,
    /// Log blocks per plane.
    pub log_blocks: u32,
}

impl LogView<'_> {
    /// `block`'s program point (pages programmed or skipped).
    #[inline]
    pub fn next_page(&self, block: u32) -> u32 {
        self.nand.next_page(block)
    }
    /// The LPN the spare area of `ppn` names, if programmed.
    #[inline]
    pub fn oob_lpn(&self, ppn: u32) -> Option<u32> {
        self.nand.oob_lpn(Ppn(ppn)).map(|l| l.0 as u32)
    }
}

/// A scheme's log-block budget and defragmentation mode ([`LogScheme::budget`]).
#[derive(Clone, Copy, Debug)]
pub struct LogBudget {
    /// Log blocks per plane.
    pub log_blocks: u32,
    /// Whether the user set `log_blocks` (an error about the space then names that key).
    pub explicit: bool,
    /// Where defragmentation copies are programmed (`mapping_params.defrag`).
    pub defrag: DefragMode,
    /// One dedicated (sequential) log block for the whole device instead of one per plane
    /// (`sequential_log = "device"`, FAST only).
    pub device_sequential_log: bool,
}

/// What a block currently is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Free,
    /// Data block of this LBN (of its plane).
    Data(u32),
    Log,
}

/// Where a host write may go, before the scheme decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// The offset is above the data block's program point (or there is no data block).
    InPlace,
    /// Overwrite of data already written at this offset.
    Pure,
    /// The offset was skipped (padding) in the data block: in-order rule forces a log write.
    Wasted,
}

/// One plane's share of the mechanism's state (its log blocks are the scheme's).
#[derive(Clone)]
struct Plane {
    free: VecDeque<u32>,
    /// LBN → data block (global block id) or `NONE`.
    data: Vec<u32>,
    /// Logical pages in this plane's slice.
    local_pages: u64,
}

/// A block-mapped or log-block FTL: the mechanism, with scheme `S` deciding where updates go.
#[derive(Clone)]
pub struct LogBlockFtl<S: LogScheme> {
    nand: Nand,
    ppb: u32,
    bpp: u32,
    planes: u32,
    striping: Striping,
    /// Logical pages per plane under `Striping::None`.
    per_plane_none: u64,
    logical: u64,
    /// Current physical page of every logical page (`NONE`: unwritten or trimmed).
    loc: Vec<u32>,
    role: Vec<Role>,
    p: Vec<Plane>,
    /// The scheme's log blocks, per plane.
    logs: Vec<S>,
    /// Log blocks per plane (0 for `block`).
    log_limit: u32,
    counters: FtlCounters,
    report: HybridReport,
    padding: u64,
    /// Set during an eager defragmentation copy: the next "host" program copies this logical
    /// page's current flash page instead (copy-back), looked up at program time so merges run
    /// first.
    copy_from: Option<u64>,
    /// How `defrag_copy` places its copies.
    defrag: DefragMode,
    /// `sequential_log = "device"`: the plane and LBN of the device's one dedicated log block;
    /// opening one on any plane merges it first.
    device_dedicated: Option<Option<(usize, u32)>>,
    /// Defragmentation copies waiting for their target's merge: target LPN → source LPN (whose
    /// current page holds the target's data until then).
    pending: FastMap<u64, u64>,
    /// The targets waiting on each source LPN, in the order the copies were asked for.
    waiting_on: FastMap<u64, Vec<u64>>,
}

/// Where a defragmentation copy (`Ftl::defrag_copy`) is programmed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DefragMode {
    /// Recorded, and done by copy-back inside the next merge of the target's logical block
    /// (the defrag paper's idea: the move rides a merge the FTL performs anyway, one copy-back
    /// and no log page). Until then reads of the target come from the source. If the source is
    /// rewritten or trimmed first, the copy is made eagerly just before.
    #[default]
    Merge,
    /// At once, as a write of the target that the scheme places like any host write (in place
    /// or in a log block, merging first if needed), programmed by copy-back from the source.
    Eager,
}

/// How many sequential (dedicated) log blocks a FAST device keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SequentialLog {
    /// One per plane: each plane is an FTL of its own (the default).
    #[default]
    PerPlane,
    /// One for the whole device, as in the original FAST (one FTL over one flash array): a
    /// sequential log opened on one plane first merges the one open on any other. Each plane
    /// still budgets a slot for it in `log_blocks`.
    Device,
}

/// `[ftl.mapping_params]` of the log-block schemes.
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LogParams {
    /// Log blocks per plane (default: 3% of a plane's blocks, at least 1 for BAST, 2 for FAST).
    pub log_blocks: Option<u32>,
    /// Where defragmentation copies go: `"merge"` (default) or `"eager"`.
    #[serde(default)]
    pub defrag: DefragMode,
    /// FAST: one sequential log block per plane (`"per-plane"`, default) or for the whole
    /// device (`"device"`, the original FAST's one SW log block).
    #[serde(default)]
    pub sequential_log: SequentialLog,
}

/// [`LogParams`] → a budget of at least `min` log blocks per plane (`too_few`: the error when
/// fewer are asked for); default 3% of the plane's blocks (the paper's FAST setup: 2,048 log
/// blocks of a 4 GB device ≈ 6% of the blocks; we take half that), at least `min`.
pub(super) fn log_budget(spec: &FtlSpec, min: u32, too_few: &str) -> Result<LogBudget, Error> {
    let params: LogParams = crate::registry::parse_params("ftl.mapping_params", &spec.config.mapping_params)?;
    if params.log_blocks.is_some_and(|n| n < min) {
        return Err(Error::config("ftl.mapping_params.log_blocks", too_few));
    }
    Ok(LogBudget {
        log_blocks: params.log_blocks.unwrap_or_else(|| (spec.layout.geo.blocks_per_plane * 3 / 100).max(min)),
        explicit: params.log_blocks.is_some(),
        defrag: params.defrag,
        device_sequential_log: params.sequential_log == SequentialLog::Device,
    })
}

/// The registry's `build` for scheme `S`.
pub fn build<S: LogScheme>(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    Ok(Box::new(LogBlockFtl::<S>::new(spec)?))
}

/// What a log-block FTL allocates: the page locations (one per logical page), per block its
/// role, a free-list entry and a data-block map entry, the scheme's per-block state (BAST's log
/// of each data block), per plane its lists and the scheme's state, and the NAND. Refuses what
/// [`LogBlockFtl::new`] refuses, first: the scheme's parameters and a plane without room for
/// its data, log and merge blocks.
pub fn memory<S: LogScheme>(spec: &FtlSpec, est: &mut crate::memory::Estimate) -> Result<(), Error> {
    use crate::memory::vec_bytes;
    let budget = S::budget(spec)?;
    // Plane 0 holds the most logical pages under every striping: if it has room, all have.
    let (_, lbns) = plane_blocks::<S>(spec, &budget, 0)?;
    let blocks = spec.layout.geo.total_blocks() as u64;
    est.add("L2P table", vec_bytes::<u32>(spec.logical_pages));
    est.add("per-block state", blocks.saturating_mul(std::mem::size_of::<Role>() as u64));
    // Per plane (plane 0 has the most LBNs): the structs, the heap blocks of its free list (one
    // entry per block) and data map (one per LBN), and the scheme's own.
    let heap = crate::memory::heap_bytes;
    let bpp = spec.layout.geo.blocks_per_plane as u64;
    let per_plane = (std::mem::size_of::<Plane>() + std::mem::size_of::<S>()) as u64
        + heap(vec_bytes::<u32>(bpp))
        + heap(vec_bytes::<u32>(lbns))
        + S::plane_heap_bytes(lbns, budget.log_blocks);
    est.add("per-plane state", (spec.layout.planes as u64).saturating_mul(per_plane));
    Nand::memory(&spec.layout, spec.verify, spec.timing.is_some(), est);
    Ok(())
}

/// (logical pages, logical blocks) of `plane`, once it is known to have room for them, the
/// scheme's log blocks and a free block for merges.
fn plane_blocks<S: LogScheme>(spec: &FtlSpec, budget: &LogBudget, plane: u32) -> Result<(u64, u64), Error> {
    let (name, geo, planes, logical) = (S::NAME, spec.layout.geo, spec.layout.planes, spec.logical_pages);
    let (ppb, bpp) = (geo.pages_per_block, geo.blocks_per_plane);
    let per_plane_none = logical.div_ceil(planes as u64).max(1);
    let local_pages = match spec.config.striping {
        Striping::None => per_plane_none.min(logical.saturating_sub(plane as u64 * per_plane_none)),
        _ => (logical + planes as u64 - 1 - plane as u64) / planes as u64,
    };
    let lbns = local_pages.div_ceil(ppb as u64);
    let log_limit = budget.log_blocks;
    let needed = lbns + log_limit as u64 + 1;
    if needed > bpp as u64 {
        let key = if budget.explicit && lbns + 2 <= bpp as u64 {
            "ftl.mapping_params.log_blocks"
        } else {
            "device.over_provisioning"
        };
        return Err(Error::config(
            key,
            format!(
                "{name}: plane {plane} has {bpp} blocks but needs {lbns} data blocks + {log_limit} log blocks + 1 free block for merges; raise over-provisioning or lower log_blocks"
            ),
        ));
    }
    Ok((local_pages, lbns))
}

impl<S: LogScheme> LogBlockFtl<S> {
    /// The mechanism with no data written and the scheme's log budget ([`LogScheme::budget`]).
    pub fn new(spec: &FtlSpec) -> Result<Self, Error> {
        let layout = spec.layout;
        let cfg = spec.config;
        let name = S::NAME;
        assert_eq!(layout.unit, GcUnit::Block, "{name}: the registry admits block units only (ftl::check)");
        let budget = S::budget(spec)?;
        let geo = layout.geo;
        let (ppb, bpp, planes) = (geo.pages_per_block, geo.blocks_per_plane, layout.planes);
        let logical = spec.logical_pages;
        let per_plane_none = logical.div_ceil(planes as u64).max(1);
        let log_limit = budget.log_blocks;
        let mut p = Vec::with_capacity(planes as usize);
        let mut logs = Vec::with_capacity(planes as usize);
        for plane in 0..planes {
            let (local_pages, lbns) = plane_blocks::<S>(spec, &budget, plane)?;
            let first = plane * bpp;
            p.push(Plane { free: (first..first + bpp).collect(), data: vec![NONE; lbns as usize], local_pages });
            logs.push(S::new(lbns as usize));
        }
        Ok(LogBlockFtl {
            nand: Nand::new(layout, spec.verify, spec.timing),
            ppb,
            bpp,
            planes,
            striping: cfg.striping,
            per_plane_none,
            logical,
            loc: vec![NONE; logical as usize],
            role: vec![Role::Free; geo.total_blocks() as usize],
            p,
            logs,
            log_limit,
            counters: FtlCounters::default(),
            report: HybridReport { log_blocks: log_limit as u64 * planes as u64, ..HybridReport::default() },
            padding: 0,
            copy_from: None,
            defrag: budget.defrag,
            device_dedicated: budget.device_sequential_log.then_some(None),
            pending: FastMap::default(),
            waiting_on: FastMap::default(),
        })
    }

    /// Pages programmed with no data to keep offsets aligned (see the module docs).
    pub fn padding_pages(&self) -> u64 {
        self.padding
    }

    // ---- addressing ----

    /// (plane, local LPN) of `lpn`.
    #[inline]
    fn split(&self, lpn: u64) -> (usize, u64) {
        match self.striping {
            Striping::None => ((lpn / self.per_plane_none) as usize, lpn % self.per_plane_none),
            _ => ((lpn % self.planes as u64) as usize, lpn / self.planes as u64),
        }
    }

    #[inline]
    fn join(&self, plane: usize, local: u64) -> u64 {
        match self.striping {
            Striping::None => plane as u64 * self.per_plane_none + local,
            _ => local * self.planes as u64 + plane as u64,
        }
    }

    /// (plane, lbn, offset) of `lpn`.
    #[inline]
    fn locate(&self, lpn: u64) -> (usize, u32, u32) {
        let (plane, local) = self.split(lpn);
        (plane, (local / self.ppb as u64) as u32, (local % self.ppb as u64) as u32)
    }

    /// Global LPN at (plane, lbn, offset), if inside the plane's slice.
    #[inline]
    fn lpn_at(&self, plane: usize, lbn: u32, off: u32) -> Option<u64> {
        let local = lbn as u64 * self.ppb as u64 + off as u64;
        (local < self.p[plane].local_pages).then(|| self.join(plane, local))
    }

    #[inline]
    fn next(&self, block: u32) -> u32 {
        self.nand.next_page(block)
    }

    #[inline]
    fn is_valid(&self, ppn: u32) -> bool {
        self.nand.oob_lpn(Ppn(ppn)).is_some_and(|l| self.loc[l.index()] == ppn)
    }

    /// What the scheme reads when it decides.
    #[inline]
    fn view(&self) -> LogView<'_> {
        LogView { nand: &self.nand, pages_per_block: self.ppb, log_blocks: self.log_limit }
    }

    // ---- block management ----

    fn alloc(&mut self, plane: usize, role: Role) -> Result<u32, Error> {
        let Some(b) = self.p[plane].free.pop_front() else {
            return Err(Error::DeviceFull(format!("{}: plane {plane} has no free block", S::NAME)));
        };
        debug_assert_eq!(self.role[b as usize], Role::Free);
        self.role[b as usize] = role;
        Ok(b)
    }

    fn release(&mut self, plane: usize, block: u32, t: u64) -> u64 {
        let Nanos(done) = self.nand.erase_segment(block, Nanos(t));
        self.role[block as usize] = Role::Free;
        self.p[plane].free.push_back(block);
        done
    }

    /// Skip `block`'s pages up to (not including) `page`: they stay erased (free of cost).
    fn pad_to(&mut self, block: u32, page: u32, t: u64) -> u64 {
        let next = self.next(block);
        if page > next {
            self.nand.skip_to(block, page);
            self.padding += (page - next) as u64;
        }
        t
    }

    /// Program host data for `lpn` at the next page of `block`.
    fn program_host(&mut self, block: u32, lpn: u64, tag: u32, t: u64) -> u64 {
        let ppn = block * self.ppb + self.next(block);
        let (dst, as_lpn, t) = (Ppn(ppn), Lpn(lpn), Nanos(t));
        let Nanos(done) = match self.copy_from.take() {
            Some(src) => self.nand.move_page_as(Ppn(self.loc[src as usize]), dst, as_lpn, t),
            None => self.nand.program(dst, as_lpn, tag, t),
        };
        self.loc[lpn as usize] = ppn;
        done
    }

    /// Merge copy of flash page `src` as `lpn`'s data to the next page of `block`.
    fn copy_as(&mut self, src: u32, lpn: u64, block: u32, t: u64) -> u64 {
        let dst = block * self.ppb + self.next(block);
        let Nanos(done) = self.nand.move_page_as(Ppn(src), Ppn(dst), Lpn(lpn), Nanos(t));
        self.loc[lpn as usize] = dst;
        self.counters.gc_copies += 1;
        done
    }

    /// The page a merge copies for `lpn`: a waiting defragmentation copy's source (the copy is
    /// done by this merge), else `lpn`'s current page.
    #[inline]
    fn merge_source(&mut self, lpn: u64) -> Option<u32> {
        if !self.pending.is_empty() {
            if let Some(src) = self.take_pending(lpn) {
                self.report.defrag_in_merge += 1;
                return Some(self.loc[src as usize]);
            }
        }
        let cur = self.loc[lpn as usize];
        (cur != NONE).then_some(cur)
    }

    /// Merge copy of `lpn` (see [`LogBlockFtl::merge_source`]) to offset `off` of `block`, if
    /// it has data.
    fn merge_copy(&mut self, lpn: u64, block: u32, off: u32, t: u64) -> u64 {
        match self.merge_source(lpn) {
            Some(src) => {
                let done = self.pad_to(block, off, t);
                done.max(self.copy_as(src, lpn, block, t))
            }
            None => t,
        }
    }

    // ---- defragmentation copies (`DefragMode::Merge`) ----

    /// Forget the waiting copy into `tgt`, returning its source.
    fn take_pending(&mut self, tgt: u64) -> Option<u64> {
        let src = self.pending.remove(&tgt)?;
        let w = self.waiting_on.get_mut(&src).expect("a waiting copy is listed under its source");
        w.retain(|&x| x != tgt);
        if w.is_empty() {
            self.waiting_on.remove(&src);
        }
        Some(src)
    }

    /// `tgt` gets new data (a write or a trim): a copy still waiting for it is void.
    fn supersede(&mut self, tgt: u64) {
        if !self.pending.is_empty() && self.take_pending(tgt).is_some() {
            self.report.defrag_superseded += 1;
        }
    }

    /// Targets waiting on `src`, which is about to change: each must be copied first.
    fn waiting_targets(&mut self, src: u64) -> Vec<u64> {
        if self.waiting_on.is_empty() {
            return Vec::new();
        }
        let targets = self.waiting_on.remove(&src).unwrap_or_default();
        for t in &targets {
            self.pending.remove(t);
        }
        targets
    }

    /// Record a copy of `src`'s data to `tgt`, done at `tgt`'s next merge. `tgt`'s own waiting
    /// copy is void, and copies waiting on `tgt` must have been made (`waiting_targets`).
    fn defer_copy(&mut self, src: u64, tgt: u64) {
        self.supersede(tgt);
        debug_assert!(!self.waiting_on.contains_key(&tgt), "copies waiting on the target were made first");
        let src = self.pending.get(&src).copied().unwrap_or(src);
        if src == tgt {
            return;
        }
        self.loc[tgt as usize] = NONE;
        if self.loc[src as usize] == NONE {
            return;
        }
        self.pending.insert(tgt, src);
        self.waiting_on.entry(src).or_default().push(tgt);
        self.report.defrag_deferred += 1;
    }

    /// `lpn` is about to get new data: its own waiting copy is void, and copies waiting on it
    /// are made now, eagerly.
    fn before_change(&mut self, lpn: u64, t: u64) -> Result<u64, Error> {
        self.supersede(lpn);
        let mut done = t;
        for tgt in self.waiting_targets(lpn) {
            self.report.defrag_forced += 1;
            done = done.max(self.copy_now(lpn, tgt, t)?);
        }
        Ok(done)
    }

    /// Copy `src`'s current page to `tgt` at once, placed as a write of `tgt`.
    fn copy_now(&mut self, src: u64, tgt: u64, t: u64) -> Result<u64, Error> {
        let cur = self.loc[src as usize];
        if cur == NONE {
            return Ok(self.trim_page(tgt, t));
        }
        let tag = self.nand.oob_tag(Ppn(cur)).unwrap_or(0);
        self.copy_from = Some(src);
        let done = self.host_write(tgt, tag, t)?;
        debug_assert!(self.copy_from.is_none(), "the copy was programmed");
        self.report.defrag_eager += 1;
        Ok(done)
    }

    // ---- host writes ----

    fn classify(&self, plane: usize, lbn: u32, off: u32, lpn: u64) -> Class {
        let d = self.p[plane].data[lbn as usize];
        if d == NONE || off >= self.next(d) {
            return Class::InPlace;
        }
        if self.loc[lpn as usize] != NONE || self.nand.oob_lpn(Ppn(d * self.ppb + off)).is_some() {
            Class::Pure
        } else {
            Class::Wasted
        }
    }

    fn count_update(&mut self, class: Class) {
        match class {
            Class::Pure => self.report.update_pure += 1,
            Class::Wasted => self.report.update_wasted += 1,
            Class::InPlace => unreachable!("an in-place write is not an update"),
        }
    }

    /// A host write (or an eager defragmentation copy) of `lpn`: in place when its offset is
    /// above the data block's program point, else where the scheme says, after the merges it
    /// asks for (which may make the write in place).
    fn host_write(&mut self, lpn: u64, tag: u32, t: u64) -> Result<u64, Error> {
        let (plane, lbn, off) = self.locate(lpn);
        let mut done = t;
        loop {
            let class = self.classify(plane, lbn, off, lpn);
            if class == Class::InPlace {
                return Ok(done.max(self.write_in_place(plane, lbn, off, lpn, tag, t)?));
            }
            let v = LogView { nand: &self.nand, pages_per_block: self.ppb, log_blocks: self.log_limit };
            let (log, dedicated) = match self.logs[plane].choose(&v, lbn, off) {
                LogChoice::Dedicated(b) => (b, true),
                LogChoice::Shared(b) => (b, false),
                LogChoice::Open { dedicated } => {
                    if let (true, Some(Some((q, l)))) = (dedicated, self.device_dedicated) {
                        // The device's one sequential log is open on another plane: merge it.
                        debug_assert_ne!(q, plane, "{}: the scheme merges its own plane's log first", S::NAME);
                        done = done.max(self.merge(q, Merge::Lbn(l), t)?);
                        continue;
                    }
                    let b = self.alloc(plane, Role::Log)?;
                    self.logs[plane].opened(b, lbn, dedicated);
                    if let (true, Some(open)) = (dedicated, self.device_dedicated.as_mut()) {
                        *open = Some((plane, lbn));
                    }
                    (b, dedicated)
                }
                LogChoice::Merge(m) => {
                    done = done.max(self.merge(plane, m, t)?);
                    continue;
                }
                LogChoice::CopyMerge => {
                    self.count_update(class);
                    return Ok(done.max(self.copy_merge(plane, lbn, off, lpn, tag, t)?));
                }
            };
            debug_assert_eq!(self.role[log as usize], Role::Log, "{} chose block {log}", S::NAME);
            self.count_update(class);
            done = done.max(self.program_host(log, lpn, tag, t));
            if dedicated && self.next(log) == self.ppb {
                done = done.max(self.merge(plane, Merge::Lbn(lbn), done)?);
            }
            return Ok(done);
        }
    }

    /// First write at its offset in the data block (allocating one if the LBN has none).
    fn write_in_place(&mut self, plane: usize, lbn: u32, off: u32, lpn: u64, tag: u32, t: u64) -> Result<u64, Error> {
        let mut d = self.p[plane].data[lbn as usize];
        if d == NONE {
            d = self.alloc(plane, Role::Data(lbn))?;
            self.p[plane].data[lbn as usize] = d;
        }
        let done = self.pad_to(d, off, t);
        self.report.write_data += 1;
        Ok(done.max(self.program_host(d, lpn, tag, t)))
    }

    /// [`Ftl::fill_sequential`]: on a fresh device every page of a sequential fill is the next
    /// offset of its logical block (each plane's slice is written in order), so each write is
    /// in place (a data block taken at its first offset) whatever the scheme; no merge, no log
    /// block, no padding.
    fn fill(&mut self, first_tag: u32) -> Result<bool, Error> {
        let fresh = self.counters == FtlCounters::default()
            && self.nand.counters == crate::nand::NandCounters::default()
            && self.pending.is_empty()
            && self.copy_from.is_none();
        if !fresh || self.nand.timing() {
            return Ok(false);
        }
        for lpn in 0..self.logical {
            let (plane, lbn, off) = self.locate(lpn);
            debug_assert_eq!(self.classify(plane, lbn, off, lpn), Class::InPlace, "fill of lpn {lpn}");
            self.counters.host_writes += 1;
            self.write_in_place(plane, lbn, off, lpn, first_tag.wrapping_add(lpn as u32), 0)?;
        }
        Ok(true)
    }

    fn trim_page(&mut self, lpn: u64, t_ns: u64) -> u64 {
        self.check_lpn(lpn);
        self.counters.trims += 1;
        self.loc[lpn as usize] = NONE;
        t_ns
    }

    fn check_lpn(&self, lpn: u64) {
        assert!(lpn < self.logical, "lpn {lpn} beyond the logical capacity: the host layer must reject it");
    }

    // ---- merges ----

    fn merge(&mut self, plane: usize, m: Merge, t: u64) -> Result<u64, Error> {
        match m {
            Merge::Lbn(lbn) => {
                let log = self.detach(plane, lbn).expect("a merged LBN has a dedicated log block");
                match self.try_switch_or_partial(plane, lbn, log, t) {
                    Some(done) => Ok(done),
                    None => self.full_merge(plane, lbn, &[log], t),
                }
            }
            Merge::Shared(block) => self.reclaim(plane, block, t),
        }
    }

    /// Detach `lbn`'s dedicated log block from the scheme (it is being merged), and forget it as
    /// the device's one sequential log.
    fn detach(&mut self, plane: usize, lbn: u32) -> Option<u32> {
        let log = self.logs[plane].detach(lbn);
        if let Some(open) = self.device_dedicated.as_mut() {
            if log.is_some() && *open == Some((plane, lbn)) {
                *open = None;
            }
        }
        log
    }

    /// Reclaim shared log block `victim`: full-merge every LBN with a current page in it (in
    /// page order of their first such page), each with its dedicated log block, then erase it.
    fn reclaim(&mut self, plane: usize, victim: u32, t: u64) -> Result<u64, Error> {
        let mut lbns = Vec::new();
        for i in 0..self.next(victim) {
            let ppn = victim * self.ppb + i;
            if self.is_valid(ppn) {
                let lpn = self.nand.oob_lpn(Ppn(ppn)).expect("a valid page names its lpn").0;
                let lbn = self.locate(lpn).1;
                if !lbns.contains(&lbn) {
                    lbns.push(lbn);
                }
            }
        }
        let mut done = t;
        for lbn in lbns {
            let own = self.detach(plane, lbn);
            done = done.max(self.full_merge(plane, lbn, own.as_slice(), t)?);
        }
        Ok(done.max(self.release(plane, victim, done)))
    }

    /// Copy-merge of `lbn` taking host data for `lpn` at `off` (schemes without log blocks): a
    /// new block receives the current pages below `off` (copy-back), the new page, then the
    /// current pages above; the old data block is erased. Counted as a full merge.
    fn copy_merge(&mut self, plane: usize, lbn: u32, off: u32, lpn: u64, tag: u32, t: u64) -> Result<u64, Error> {
        let old = self.p[plane].data[lbn as usize];
        debug_assert_ne!(old, NONE);
        let new = self.alloc(plane, Role::Data(lbn))?;
        let mut done = t;
        for i in 0..self.ppb {
            if i == off {
                done = done.max(self.pad_to(new, i, t));
                done = done.max(self.program_host(new, lpn, tag, t));
                continue;
            }
            let Some(l) = self.lpn_at(plane, lbn, i) else { break };
            done = done.max(self.merge_copy(l, new, i, t));
        }
        self.p[plane].data[lbn as usize] = new;
        done = done.max(self.release(plane, old, done));
        self.report.full_merges += 1;
        self.counters.gc_victims += 1;
        Ok(done)
    }

    /// Switch or partial merge of `log` (a log block dedicated to `lbn`) if its shape allows;
    /// `None` if it needs a full merge. On success the log is the LBN's data block.
    fn try_switch_or_partial(&mut self, plane: usize, lbn: u32, log: u32, t: u64) -> Option<u64> {
        let k = self.next(log);
        if k == 0 {
            return None;
        }
        for i in 0..k {
            let ppn = log * self.ppb + i;
            let lpn = self.lpn_at(plane, lbn, i)?;
            if self.nand.oob_lpn(Ppn(ppn)) != Some(Lpn(lpn)) {
                return None;
            }
            let cur = self.loc[lpn as usize];
            if cur != NONE && cur != ppn {
                return None;
            }
        }
        let d = self.p[plane].data[lbn as usize];
        for i in k..self.ppb {
            let Some(lpn) = self.lpn_at(plane, lbn, i) else { break };
            let cur = self.loc[lpn as usize];
            if cur != NONE && (d == NONE || cur / self.ppb != d) {
                return None;
            }
        }
        let mut done = t;
        if k < self.ppb {
            for i in k..self.ppb {
                let Some(lpn) = self.lpn_at(plane, lbn, i) else { break };
                done = done.max(self.merge_copy(lpn, log, i, t));
            }
            self.report.partial_merges += 1;
        } else {
            self.report.switch_merges += 1;
        }
        if d != NONE {
            done = done.max(self.release(plane, d, done));
        }
        self.role[log as usize] = Role::Data(lbn);
        self.p[plane].data[lbn as usize] = log;
        self.counters.gc_victims += 1;
        Some(done)
    }

    /// Full merge of `lbn`: a new data block gets the current version of every offset; the old
    /// data block and `own_logs` (log blocks dedicated to this LBN, already detached from the
    /// scheme's structures) are erased. With no current page left, the LBN keeps no data block.
    fn full_merge(&mut self, plane: usize, lbn: u32, own_logs: &[u32], t: u64) -> Result<u64, Error> {
        let mut srcs = Vec::with_capacity(self.ppb as usize);
        for i in 0..self.ppb {
            let Some(lpn) = self.lpn_at(plane, lbn, i) else { break };
            if let Some(src) = self.merge_source(lpn) {
                srcs.push((i, lpn, src));
            }
        }
        let mut done = t;
        let new = if srcs.is_empty() {
            NONE
        } else {
            let n = self.alloc(plane, Role::Data(lbn))?;
            for &(i, lpn, src) in &srcs {
                done = done.max(self.pad_to(n, i, t));
                done = done.max(self.copy_as(src, lpn, n, t));
            }
            n
        };
        let old = std::mem::replace(&mut self.p[plane].data[lbn as usize], new);
        let mut erased = done;
        if old != NONE {
            erased = erased.max(self.release(plane, old, done));
        }
        for &l in own_logs {
            erased = erased.max(self.release(plane, l, done));
        }
        self.report.full_merges += 1;
        self.counters.gc_victims += 1;
        Ok(erased)
    }

    fn table_bytes_used(&self) -> u64 {
        let lbns: u64 = self.p.iter().map(|p| p.data.len() as u64).sum();
        lbns * 4 + self.report.log_blocks * self.ppb as u64 * 4
    }

    /// O(device) check: block roles, block map and the scheme's log blocks agree with the NAND
    /// OOB.
    fn check(&self) -> Result<(), String> {
        let ppb = self.ppb;
        let mut seen_log = vec![false; self.role.len()];
        for (pi, p) in self.p.iter().enumerate() {
            let first = pi as u32 * self.bpp;
            let in_plane = |b: u32| b >= first && b < first + self.bpp;
            // Free list.
            let mut free_seen = std::collections::HashSet::new();
            for &b in &p.free {
                if !in_plane(b) || !free_seen.insert(b) {
                    return Err(format!("plane {pi}: free list holds block {b} twice or from another plane"));
                }
                if self.role[b as usize] != Role::Free {
                    return Err(format!("block {b} is on the free list but is {:?}", self.role[b as usize]));
                }
                if self.next(b) != 0 {
                    return Err(format!("free block {b} is not erased ({} pages programmed)", self.next(b)));
                }
            }
            // Block map.
            for (lbn, &d) in p.data.iter().enumerate() {
                if d != NONE && (!in_plane(d) || self.role[d as usize] != Role::Data(lbn as u32)) {
                    return Err(format!(
                        "plane {pi}: lbn {lbn} maps to block {d}, which is {:?}",
                        self.role.get(d as usize)
                    ));
                }
            }
            // The scheme's log blocks.
            self.logs[pi].validate().map_err(|e| format!("plane {pi}: {e}"))?;
            let logs = self.logs[pi].logs();
            if logs.len() > self.log_limit as usize {
                return Err(format!("plane {pi}: {} log blocks in use, limit {}", logs.len(), self.log_limit));
            }
            for &l in &logs {
                if !in_plane(l) || self.role[l as usize] != Role::Log || seen_log[l as usize] {
                    return Err(format!(
                        "plane {pi}: log block {l} is {:?} or listed twice",
                        self.role.get(l as usize)
                    ));
                }
                seen_log[l as usize] = true;
            }
            let data = p.data.iter().filter(|&&d| d != NONE).count();
            if p.free.len() + data + logs.len() != self.bpp as usize {
                return Err(format!(
                    "plane {pi}: {} free + {data} data + {} log blocks != {} blocks",
                    p.free.len(),
                    logs.len(),
                    self.bpp
                ));
            }
            // Data blocks hold their own offsets only.
            for (lbn, &d) in p.data.iter().enumerate() {
                if d == NONE {
                    continue;
                }
                for i in 0..self.next(d) {
                    if let Some(Lpn(l)) = self.nand.oob_lpn(Ppn(d * ppb + i)) {
                        if self.lpn_at(pi, lbn as u32, i) != Some(l) {
                            return Err(format!("data block {d} of lbn {lbn} holds lpn {l} at page {i}"));
                        }
                    }
                }
            }
        }
        for (b, r) in self.role.iter().enumerate() {
            if *r == Role::Log && !seen_log[b] {
                return Err(format!("block {b} is a log block no log map knows"));
            }
        }
        // Every current page: programmed, names its lpn, and lies where the maps say.
        let v = self.view();
        for (lpn, &ppn) in self.loc.iter().enumerate() {
            if ppn == NONE {
                continue;
            }
            let oob = || self.nand.oob_lpn(Ppn(ppn)).map(|l| l.0);
            if ppn >= self.nand.layout().total_pages()
                || !self.nand.is_programmed(Ppn(ppn))
                || oob() != Some(lpn as u64)
            {
                return Err(format!("lpn {lpn} maps to ppn {ppn} whose OOB names {:?}", oob()));
            }
            let (plane, lbn, off) = self.locate(lpn as u64);
            let (block, page) = (ppn / ppb, ppn % ppb);
            if block / self.bpp != plane as u32 {
                return Err(format!("lpn {lpn} of plane {plane} stored in block {block} of another plane"));
            }
            match self.role[block as usize] {
                Role::Data(l) => {
                    if l != lbn || page != off || self.p[plane].data[lbn as usize] != block {
                        return Err(format!(
                            "lpn {lpn} (lbn {lbn} offset {off}) at block {block} page {page}, data of lbn {l}"
                        ));
                    }
                }
                Role::Log => {
                    if !self.logs[plane].holds(&v, block, page, lbn, lpn as u64) {
                        return Err(format!("lpn {lpn} (lbn {lbn}) maps to log block {block} page {page}, which the log maps do not give"));
                    }
                }
                Role::Free => return Err(format!("lpn {lpn} maps into free block {block}")),
            }
        }
        // Waiting defragmentation copies: the target has no page of its own, the source has
        // one and waits on no copy itself; both indexes agree.
        let listed: usize = self.waiting_on.values().map(Vec::len).sum();
        if listed != self.pending.len() {
            return Err(format!("{} waiting copies but {listed} listed under their sources", self.pending.len()));
        }
        for (&tgt, &src) in &self.pending {
            if self.loc[tgt as usize] != NONE || self.loc[src as usize] == NONE || self.pending.contains_key(&src) {
                return Err(format!(
                    "waiting copy {src} → {tgt}: target has a page, or source has none or waits itself"
                ));
            }
            if !self.waiting_on.get(&src).is_some_and(|w| w.contains(&tgt)) {
                return Err(format!("waiting copy {src} → {tgt} is not listed under its source"));
            }
        }
        self.nand.validate()
    }
}

impl<S: LogScheme> Ftl for LogBlockFtl<S> {
    fn read(&mut self, Lpn(lpn): Lpn, t: Nanos) -> Result<ReadOutcome, Error> {
        self.check_lpn(lpn);
        self.counters.host_reads += 1;
        let from = if self.pending.is_empty() { lpn } else { self.pending.get(&lpn).copied().unwrap_or(lpn) };
        let ppn = self.loc[from as usize];
        if ppn == NONE {
            self.counters.unmapped_reads += 1;
            return Ok(ReadOutcome { done: t, tag: None });
        }
        let ppn = Ppn(ppn);
        Ok(ReadOutcome { done: self.nand.read(ppn, t), tag: Some(self.nand.oob_tag(ppn).unwrap_or(0)) })
    }

    fn write(&mut self, Lpn(lpn): Lpn, tag: u32, Nanos(t_ns): Nanos) -> Result<Nanos, Error> {
        self.check_lpn(lpn);
        self.counters.host_writes += 1;
        let done = self.before_change(lpn, t_ns)?;
        Ok(Nanos(done.max(self.host_write(lpn, tag, t_ns)?)))
    }

    fn trim(&mut self, Lpn(lpn): Lpn, Nanos(t_ns): Nanos) -> Result<Nanos, Error> {
        self.check_lpn(lpn);
        let done = self.before_change(lpn, t_ns)?;
        Ok(Nanos(done.max(self.trim_page(lpn, t_ns))))
    }

    /// `DefragMode::Merge`: recorded for the target's next merge (see [`DefragMode`]).
    /// `Eager`: each page is placed where the scheme would put a write of `tgt`, programmed by
    /// copy-back from the source's current flash page. Either way no host transfer.
    fn defrag_copy(&mut self, Lpn(src): Lpn, Lpn(tgt): Lpn, pages: u64, Nanos(t_ns): Nanos) -> Result<Nanos, Error> {
        let mut done = t_ns;
        for i in 0..pages {
            let (s, d) = (src + i, tgt + i);
            self.check_lpn(s);
            self.check_lpn(d);
            if s == d {
                continue;
            }
            done = done.max(self.before_change(d, t_ns)?);
            match self.defrag {
                DefragMode::Merge => self.defer_copy(s, d),
                DefragMode::Eager => done = done.max(self.copy_now(s, d, t_ns)?),
            }
        }
        Ok(Nanos(done))
    }

    fn logical_pages(&self) -> u64 {
        self.logical
    }

    fn counters(&self) -> FtlCounters {
        self.counters
    }

    fn nand(&self) -> &Nand {
        &self.nand
    }

    fn nand_mut(&mut self) -> &mut Nand {
        &mut self.nand
    }

    fn validate(&self) -> Result<(), String> {
        self.check()
    }

    fn mapped_ppn(&self, lpn: Lpn) -> Option<Ppn> {
        let ppn = self.loc[lpn.index()];
        (ppn != NONE).then_some(Ppn(ppn))
    }

    fn table_bytes(&self) -> u64 {
        self.table_bytes_used()
    }
}

impl<S: LogScheme> FtlFastPath for LogBlockFtl<S> {
    fn fill_sequential(&mut self, first_tag: u32) -> Result<bool, Error> {
        self.fill(first_tag)
    }
}

impl<S: LogScheme> FtlReports for LogBlockFtl<S> {
    fn hybrid_report(&self) -> Option<HybridReport> {
        Some(self.report)
    }
}
