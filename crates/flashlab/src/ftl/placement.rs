//! Host-directed placement in the device: NVMe Flexible Data Placement (FDP, TP4146, NVMe 2.1)
//! reclaim unit handles, and the Streams directive as FDP's initially isolated case. One job:
//! which write stream a host write and a GC move go to, and what happened per handle. The GC
//! mechanism (`ftl/page/`) asks it for streams and tells it what it moved; nothing here moves
//! a page.
//!
//! Model (a reclaim unit is one GC segment, a block or a line by `ftl.gc_unit`):
//! - every host write carries a placement identifier (PID): a reclaim group in its top
//!   `rgif` bits, `rgif` = ⌈log2 reclaim_groups⌉ (0 with one group, as the spec's Reclaim
//!   Group Identifier Format), and the index of a reclaim unit handle (RUH) in the rest; a write
//!   without one, or naming a group or handle that does not exist, goes to `default_handle` in a
//!   group the controller picks (any plane with room; an invalid identifier is counted, as the
//!   "Invalid Placement Identifier" event 03h would log it);
//! - `reclaim_groups` splits the planes into that many runs of consecutive planes (block
//!   segments only: a line spans every plane); a write that names a group is placed on that
//!   group's planes, and since GC moves pages within a plane, its data stays there. When every
//!   plane of the group has reached its share of valid data the write goes to another plane with
//!   room, and is counted (`spilled_pages`): the spec is silent there, and this is our choice;
//! - each handle is a write stream with its own open reclaim unit per plane, so data written
//!   through different handles never shares a reclaim unit when written;
//! - GC writes never go into a reclaim unit a handle's host writes are filling (the unit a
//!   handle references takes host data only; the controller relocates into units of its own);
//! - `isolation = "persistent"` (RUH type 2, persistently isolated): each handle has a GC
//!   stream of its own, which takes the valid pages of that handle's victims, so handles stay
//!   apart for good;
//! - `isolation = "initial"` (RUH type 1, initially isolated): GC moves valid pages of every
//!   handle into one shared GC stream, where handles mix — what the spec allows among
//!   initially isolated handles of a reclaim group, and what the Streams directive leaves to
//!   the device.
//!
//! The victim policy still chooses victims over all sealed segments of a plane, whichever
//! handle filled them (the free pool is shared, as a reclaim group's reclaim units are): the
//! policy must declare a single stream (`greedy`, `cost-benefit`, `fifo`, `random`,
//! `d-choices`); a policy with streams of its own (2R, 2R++) is refused with placement.
//!
//! Memory: one byte per logical page (its handle) and O(handles).

use serde::{Deserialize, Serialize};

use super::gc::{GcShape, GcStream};
use crate::error::Error;

/// Most reclaim unit handles (streams are a byte per segment; FDP SSDs expose 8 to 128).
pub const MAX_HANDLES: u16 = 128;

/// Most reclaim groups (a byte per logical page holds its group).
pub const MAX_GROUPS: u16 = 128;

/// A logical page whose latest write named no reclaim group (the controller chose).
const ANY_GROUP: u8 = u8::MAX;

/// Isolation type of the reclaim unit handles (NVMe FDP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// Initially isolated (type 1): handles are apart when written; GC moves every handle's
    /// valid pages into one shared stream. Also the Streams directive's model.
    Initial,
    /// Persistently isolated (type 2): GC moves a handle's pages only into that handle's
    /// reclaim units.
    Persistent,
}

impl Isolation {
    /// The name in configs.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Initial => "initial",
            Isolation::Persistent => "persistent",
        }
    }
}

/// `[ftl.placement]`: NVMe FDP reclaim unit handles (page-mapped schemes). Absent: no
/// placement; a write's placement identifier is then ignored (the run warns, with how many).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacementConfig {
    /// Reclaim unit handles: placement identifiers 0 to `handles` − 1; 1 to 128.
    pub handles: u16,
    /// `persistent` (GC keeps each handle's data in its own reclaim units) or `initial` (GC
    /// mixes handles in one shared stream; the Streams directive).
    #[serde(default = "d_isolation")]
    pub isolation: Isolation,
    /// Handle of a write with no placement identifier or an invalid one.
    #[serde(default)]
    pub default_handle: u16,
    /// Reclaim groups: the planes split into this many runs of consecutive planes, named by
    /// a placement identifier's top ⌈log2 groups⌉ bits; 1 to 128, dividing the planes, and
    /// more than 1 only with `ftl.gc_unit = "block"` and `ftl.striping` `full` or `dynamic`.
    #[serde(default = "d_groups")]
    pub reclaim_groups: u16,
}

fn d_groups() -> u16 {
    1
}

fn d_isolation() -> Isolation {
    Isolation::Persistent
}

impl PlacementConfig {
    /// Refuse what no device could be: no handles, too many, a default beyond them.
    pub fn validate(&self) -> Result<(), Error> {
        if self.handles == 0 || self.handles > MAX_HANDLES {
            return Err(Error::config(
                "ftl.placement.handles",
                format!("{} reclaim unit handles; 1 to {MAX_HANDLES}", self.handles),
            ));
        }
        if self.default_handle >= self.handles {
            return Err(Error::config(
                "ftl.placement.default_handle",
                format!("handle {} of {} (handles are 0 to {})", self.default_handle, self.handles, self.handles - 1),
            ));
        }
        if self.reclaim_groups == 0 || self.reclaim_groups > MAX_GROUPS {
            return Err(Error::config(
                "ftl.placement.reclaim_groups",
                format!("{} reclaim groups; 1 to {MAX_GROUPS}", self.reclaim_groups),
            ));
        }
        Ok(())
    }

    /// Bits of a placement identifier that name the reclaim group (the spec's RGIF).
    pub fn group_bits(&self) -> u32 {
        u32::from(self.reclaim_groups).next_power_of_two().trailing_zeros()
    }

    /// The placement identifier of `handle` in reclaim group `group`.
    pub fn pid(&self, group: u16, handle: u16) -> u16 {
        match self.group_bits() {
            0 => handle,
            b => (group << (16 - b)) | handle,
        }
    }

    /// Refuse reclaim groups the device cannot split its planes into: `pools` GC pools
    /// (planes with block segments, one with lines), `fixed`: the mapping or the striping fixes
    /// each page's plane by its address.
    pub fn check_groups(&self, pools: u32, fixed: Option<&str>) -> Result<(), Error> {
        let g = u32::from(self.reclaim_groups);
        if g == 1 {
            return Ok(());
        }
        if pools == 1 {
            return Err(Error::config(
                "ftl.placement.reclaim_groups",
                format!("{g} reclaim groups need planes to split: set ftl.gc_unit = \"block\" (a line spans every plane) and more than one plane"),
            ));
        }
        if !pools.is_multiple_of(g) {
            return Err(Error::config(
                "ftl.placement.reclaim_groups",
                format!("{g} reclaim groups do not divide the {pools} planes"),
            ));
        }
        if let Some(why) = fixed {
            return Err(Error::config(
                "ftl.placement.reclaim_groups",
                format!("{g} reclaim groups: {why} fixes each page's plane by its address, so a write cannot choose its group"),
            ));
        }
        Ok(())
    }

    /// The write streams and GC flows placement gives a single-stream policy: one stream per
    /// handle, and with initial isolation a shared GC stream after them. `policy` is the
    /// victim policy's own shape, refused unless it has one stream.
    pub fn shape(&self, policy: &GcShape, policy_name: &str) -> Result<GcShape, Error> {
        self.validate()?;
        if policy.streams.len() != 1 {
            return Err(Error::config(
                "ftl.placement",
                format!(
                    "GC policy `{policy_name}` separates data into {} streams of its own; placement needs a single-stream policy (greedy, cost-benefit, fifo, random, d-choices)",
                    policy.streams.len()
                ),
            ));
        }
        let h = self.handles as usize;
        let names = stream_names();
        let mut streams: Vec<GcStream> = (0..h).map(|i| GcStream { name: names[i][0], cold: false }).collect();
        let flows = match self.isolation {
            Isolation::Persistent => {
                streams.extend((0..h).map(|i| GcStream { name: names[i][1], cold: false }));
                (0..h).flat_map(|i| [(i, h + i), (h + i, h + i)]).collect()
            }
            Isolation::Initial => {
                streams.push(GcStream { name: "gc", cold: false });
                (0..=h).map(|i| (i, h)).collect()
            }
        };
        Ok(GcShape { streams, flows })
    }
}

/// Stream names in reports: handle `i`'s host stream "i" and its own GC stream "gc{i}"
/// (persistent isolation), for every handle there can be; made once, kept for the process.
fn stream_names() -> &'static [[&'static str; 2]] {
    static NAMES: std::sync::OnceLock<Vec<[&'static str; 2]>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| (0..MAX_HANDLES).map(|i| [&*format!("{i}").leak(), &*format!("gc{i}").leak()]).collect())
}

/// The FTL's placement state: each logical page's handle, and per handle what the host and GC
/// did.
#[derive(Clone)]
pub(super) struct Placement {
    isolation: Isolation,
    handles: u16,
    default_handle: u8,
    /// Per logical page: the handle of its latest host write.
    handle_of: Vec<u8>,
    /// Reclaim groups, the identifier bits naming one, and the planes (pools) of each.
    groups: u32,
    group_bits: u32,
    pools_per_group: u32,
    /// Per logical page, with more than one group: the group its latest host write named, or
    /// [`ANY_GROUP`]. Empty with one group.
    group_of: Vec<u8>,
    /// Per (stream, group): the next plane of the group, as an offset in it (round-robin).
    group_cursor: Vec<u32>,
    counts: PlacementCounts,
}

/// What happened per handle, since the device was built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PlacementCounts {
    /// Per handle: host page writes placed through it.
    pub host_pages: Vec<u64>,
    /// Per handle: its pages GC moved (by the page's handle, wherever it was stored).
    pub moved: Vec<u64>,
    /// Per stream (handles, then the shared GC stream): reclaim units filled.
    pub ru_filled: Vec<u64>,
    /// Per stream: reclaim units GC reclaimed that still held valid data (moved, as the
    /// "Media Reallocated" event reports).
    pub ru_reallocated: Vec<u64>,
    /// Host writes whose placement identifier named no handle (sent to the default).
    pub invalid: u64,
    /// Host writes that carried no placement identifier (sent to the default).
    pub untagged: u64,
    /// Per reclaim group: host page writes placed on its planes.
    pub group_host: Vec<u64>,
    /// Per reclaim group: pages GC moved on its planes.
    pub group_moved: Vec<u64>,
    /// Host page writes that named a group whose planes had no room (placed elsewhere).
    pub spilled: u64,
}

impl Placement {
    /// Placement for `logical_pages` pages, `streams` write streams and `pools` GC pools
    /// (which [`PlacementConfig::check_groups`] has accepted).
    pub(super) fn new(cfg: &PlacementConfig, logical_pages: u64, streams: usize, pools: u32) -> Self {
        let h = cfg.handles as usize;
        let groups = u32::from(cfg.reclaim_groups);
        Placement {
            isolation: cfg.isolation,
            handles: cfg.handles,
            default_handle: cfg.default_handle as u8,
            handle_of: vec![cfg.default_handle as u8; logical_pages as usize],
            groups,
            group_bits: cfg.group_bits(),
            pools_per_group: pools / groups,
            group_of: if groups > 1 { vec![ANY_GROUP; logical_pages as usize] } else { Vec::new() },
            group_cursor: vec![0; streams * groups as usize],
            counts: PlacementCounts {
                group_host: vec![0; groups as usize],
                group_moved: vec![0; groups as usize],
                spilled: 0,
                host_pages: vec![0; h],
                moved: vec![0; h],
                ru_filled: vec![0; streams],
                ru_reallocated: vec![0; streams],
                invalid: 0,
                untagged: 0,
            },
        }
    }

    /// What [`Placement::new`] allocates.
    pub(super) fn memory(cfg: &PlacementConfig, logical_pages: u64, est: &mut crate::memory::Estimate) {
        est.add("placement handles", crate::memory::vec_bytes::<u8>(logical_pages));
        if cfg.reclaim_groups > 1 {
            est.add("placement handles", crate::memory::vec_bytes::<u8>(logical_pages));
        }
    }

    /// The next host write of `lpn` carries placement identifier `id`.
    #[inline]
    pub(super) fn set(&mut self, lpn: u64, id: Option<u16>) {
        let (group, handle) = match id {
            Some(i) if self.group_bits == 0 => (0, i),
            Some(i) => (u32::from(i) >> (16 - self.group_bits), i & (u16::MAX >> self.group_bits)),
            None => (0, 0),
        };
        let (g, h) = match id {
            Some(_) if handle < self.handles && group < self.groups => (group as u8, handle as u8),
            Some(_) => {
                self.counts.invalid += 1;
                (ANY_GROUP, self.default_handle)
            }
            None => {
                self.counts.untagged += 1;
                (ANY_GROUP, self.default_handle)
            }
        };
        self.handle_of[lpn as usize] = h;
        if let Some(slot) = self.group_of.get_mut(lpn as usize) {
            *slot = g;
        }
    }

    /// The planes a host write of `lpn` must go to, `first..first + n`, when its identifier
    /// named a reclaim group (and there is more than one).
    #[inline]
    pub(super) fn group_pools(&self, lpn: u64) -> Option<(u32, u32)> {
        let g = *self.group_of.get(lpn as usize)?;
        (g != ANY_GROUP).then(|| (u32::from(g) * self.pools_per_group, self.pools_per_group))
    }

    /// The round-robin offset of `stream`'s next write in the group starting at plane `first`.
    #[inline]
    pub(super) fn group_cursor(&self, stream: usize, first: u32) -> u32 {
        self.group_cursor[stream * self.groups as usize + (first / self.pools_per_group) as usize]
    }

    /// `stream` wrote at offset `off` of the group starting at plane `first`: the next write
    /// goes to the plane after.
    #[inline]
    pub(super) fn advance_group_cursor(&mut self, stream: usize, first: u32, off: u32) {
        let next = if off + 1 == self.pools_per_group { 0 } else { off + 1 };
        self.group_cursor[stream * self.groups as usize + (first / self.pools_per_group) as usize] = next;
    }

    /// A host write that named a group with no room went to another plane.
    pub(super) fn spilled(&mut self) {
        self.counts.spilled += 1;
    }

    /// A host page was written on plane (pool) `pool`: counted with more than one reclaim
    /// group (with one, the group's host pages are the handles').
    #[inline]
    pub(super) fn wrote_on(&mut self, pool: u32) {
        if self.groups > 1 {
            self.counts.group_host[(pool / self.pools_per_group) as usize] += 1;
        }
    }

    /// The handle of `lpn`'s latest host write.
    #[inline]
    pub(super) fn handle(&self, lpn: u64) -> usize {
        self.handle_of[lpn as usize] as usize
    }

    /// Stream of a host write of `lpn` (its handle), counted.
    #[inline(always)]
    pub(super) fn host_stream(&mut self, lpn: u64) -> usize {
        let h = self.handle_of[lpn as usize] as usize;
        self.counts.host_pages[h] += 1;
        h
    }

    /// Stream for the valid pages of a victim filled by stream `victim_stream`: its handle's
    /// GC stream (persistent), or the shared one (initial).
    #[inline]
    pub(super) fn gc_stream(&self, victim_stream: usize) -> usize {
        let h = self.handles as usize;
        match self.isolation {
            Isolation::Persistent => h + victim_stream % h,
            Isolation::Initial => h,
        }
    }

    /// The handle all of stream `stream`'s pages belong to: a host stream's, and under
    /// persistent isolation a GC stream's; `None` for the shared GC stream.
    #[inline]
    fn handle_of_stream(&self, stream: usize) -> Option<usize> {
        let h = self.handles as usize;
        match self.isolation {
            Isolation::Persistent => Some(stream % h),
            Isolation::Initial => (stream < h).then_some(stream),
        }
    }

    /// GC moved the pages of `lpns` out of a segment of stream `from`. A handle's own streams
    /// hold only its pages (a page written through another handle since is invalid, not
    /// moved), so they count by the stream; the shared GC stream mixes handles, so its pages
    /// count by their handle.
    #[inline]
    pub(super) fn moved(&mut self, from: usize, pool: u32, lpns: &[u32]) {
        let g = if self.groups == 1 { 0 } else { (pool / self.pools_per_group) as usize };
        self.counts.group_moved[g] += lpns.len() as u64;
        match self.handle_of_stream(from) {
            Some(h) => self.counts.moved[h] += lpns.len() as u64,
            None => {
                for &lpn in lpns {
                    self.counts.moved[self.handle_of[lpn as usize] as usize] += 1;
                }
            }
        }
    }

    /// A hint that `lpn` is written soon: start fetching its handle.
    #[inline]
    pub(super) fn prefetch(&self, lpn: usize) {
        crate::hint::prefetch(&self.handle_of, lpn);
        if !self.group_of.is_empty() {
            crate::hint::prefetch(&self.group_of, lpn);
        }
    }

    /// A reclaim unit of `stream` was filled.
    pub(super) fn filled(&mut self, stream: usize) {
        self.counts.ru_filled[stream] += 1;
    }

    /// A victim of `stream` holding valid pages is being reclaimed.
    pub(super) fn reallocated(&mut self, stream: usize) {
        self.counts.ru_reallocated[stream] += 1;
    }

    pub(super) fn handles(&self) -> usize {
        self.handles as usize
    }

    /// The report: the counts, and per stream the reclaim units it holds now.
    /// `held[s]` / `valid[s]`: pages of the open and sealed segments stream `s` filled, and
    /// the valid pages in them.
    pub(super) fn report(&self, held: &[u64], valid: &[u64]) -> PlacementReport {
        let c = &self.counts;
        let stream = |s: usize| StreamHoldings {
            ru_filled: c.ru_filled[s],
            ru_reallocated: c.ru_reallocated[s],
            held_pages: held[s],
            valid_pages: valid[s],
        };
        // A handle's holdings: its host stream's, and under persistent isolation its own GC
        // stream's.
        let n = self.handles();
        let own = |i: usize| {
            let mut s = stream(i);
            if self.isolation == Isolation::Persistent {
                let g = stream(n + i);
                s.ru_filled += g.ru_filled;
                s.ru_reallocated += g.ru_reallocated;
                s.held_pages += g.held_pages;
                s.valid_pages += g.valid_pages;
            }
            s
        };
        PlacementReport {
            isolation: self.isolation,
            handles: (0..self.handles())
                .map(|h| HandleReport {
                    handle: h as u16,
                    host_pages: c.host_pages[h],
                    gc_moves: c.moved[h],
                    waf: waf(c.host_pages[h], c.moved[h]),
                    stored: own(h),
                })
                .collect(),
            gc_stream: (self.isolation == Isolation::Initial).then(|| stream(self.handles())),
            invalid_ids: c.invalid,
            untagged_writes: c.untagged,
            reclaim_groups: (0..self.groups as usize)
                .map(|g| {
                    let host = if self.groups == 1 { c.host_pages.iter().sum() } else { c.group_host[g] };
                    GroupReport {
                        group: g as u16,
                        host_pages: host,
                        gc_moves: c.group_moved[g],
                        waf: waf(host, c.group_moved[g]),
                    }
                })
                .collect(),
            spilled_pages: c.spilled,
        }
    }
}

fn waf(host: u64, moved: u64) -> Option<f64> {
    (host > 0).then(|| (host + moved) as f64 / host as f64)
}

/// `results.json` `placement`: what each reclaim unit handle wrote and GC moved (FDP).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlacementReport {
    /// Isolation type of the handles.
    pub isolation: Isolation,
    /// Per handle, in order.
    pub handles: Vec<HandleReport>,
    /// With initial isolation, the shared stream GC moves every handle's pages into.
    pub gc_stream: Option<StreamHoldings>,
    /// Host page writes whose placement identifier named no handle (placed on the default
    /// handle; FDP's "Invalid Placement Identifier" event).
    pub invalid_ids: u64,
    /// Host page writes without a placement identifier (placed on the default handle).
    pub untagged_writes: u64,
    /// Per reclaim group, in order (one group: the whole device).
    pub reclaim_groups: Vec<GroupReport>,
    /// Host page writes that named a reclaim group whose planes had all reached their share of
    /// valid data, and went to another group's plane.
    pub spilled_pages: u64,
}

/// One reclaim group's line of [`PlacementReport`]: what was written and moved on its planes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GroupReport {
    /// The group's identifier.
    pub group: u16,
    /// Host page writes placed on the group's planes.
    pub host_pages: u64,
    /// Pages GC moved on the group's planes.
    pub gc_moves: u64,
    /// (host pages + GC moves) / host pages; null without host writes.
    pub waf: Option<f64>,
}

/// One reclaim unit handle's line of [`PlacementReport`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HandleReport {
    /// The placement identifier.
    pub handle: u16,
    /// Host page writes placed through the handle.
    pub host_pages: u64,
    /// Pages of the handle's data GC moved (wherever they were stored).
    pub gc_moves: u64,
    /// (host pages + GC moves) / host pages: the handle's write amplification; null without
    /// host writes.
    pub waf: Option<f64>,
    /// The reclaim units the handle's streams filled, reclaimed and hold (its host stream,
    /// and under persistent isolation its own GC stream).
    pub stored: StreamHoldings,
}

/// A write stream's reclaim units: counts over the measured phase, holdings at its end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StreamHoldings {
    /// Reclaim units the stream filled.
    pub ru_filled: u64,
    /// Reclaim units of the stream GC reclaimed while they held valid data, which it moved
    /// (FDP's "Media Reallocated" event).
    pub ru_reallocated: u64,
    /// Pages of the reclaim units the stream holds at the end (open and filled): with
    /// `valid_pages`, its effective over-provisioning `held / valid − 1`.
    pub held_pages: u64,
    /// Valid pages in those reclaim units at the end.
    pub valid_pages: u64,
}

impl PlacementReport {
    /// The counts since `base` (the holdings are this report's).
    pub fn minus(&self, base: &PlacementReport) -> PlacementReport {
        let sub = |a: &StreamHoldings, b: &StreamHoldings| StreamHoldings {
            ru_filled: a.ru_filled - b.ru_filled,
            ru_reallocated: a.ru_reallocated - b.ru_reallocated,
            ..a.clone()
        };
        PlacementReport {
            isolation: self.isolation,
            handles: self
                .handles
                .iter()
                .zip(&base.handles)
                .map(|(a, b)| {
                    let (host, moved) = (a.host_pages - b.host_pages, a.gc_moves - b.gc_moves);
                    HandleReport {
                        handle: a.handle,
                        host_pages: host,
                        gc_moves: moved,
                        waf: waf(host, moved),
                        stored: sub(&a.stored, &b.stored),
                    }
                })
                .collect(),
            gc_stream: match (&self.gc_stream, &base.gc_stream) {
                (Some(a), Some(b)) => Some(sub(a, b)),
                (a, _) => a.clone(),
            },
            invalid_ids: self.invalid_ids - base.invalid_ids,
            untagged_writes: self.untagged_writes - base.untagged_writes,
            reclaim_groups: self
                .reclaim_groups
                .iter()
                .zip(&base.reclaim_groups)
                .map(|(a, b)| {
                    let (host, moved) = (a.host_pages - b.host_pages, a.gc_moves - b.gc_moves);
                    GroupReport { group: a.group, host_pages: host, gc_moves: moved, waf: waf(host, moved) }
                })
                .collect(),
            spilled_pages: self.spilled_pages - base.spilled_pages,
        }
    }
}
