//! NAND layer: the flash array itself. Owns per-block program state (next page to program),
//! per-block erase counts, the out-of-band (OOB) area of every page (logical page number and,
//! in verify mode, a version tag), operation counters and, in timing mode, the resource
//! timeline. It enforces the NAND rules for every FTL above it:
//! - a page is programmed once between erases, and the pages of a block in increasing order
//!   (`program` panics otherwise: a violation is an FTL bug, never a user error); `skip_to`
//!   moves the program point forward over pages that stay erased, never back;
//! - erase is per block (a line erase erases each of its blocks);
//! - copy-back stays inside one plane.
//!
//! It knows nothing of mapping or validity: that is the FTL's business.
//!
//! Its operations take and return the typed page numbers and times of the layer interfaces
//! ([`Ppn`], [`Lpn`], [`Nanos`]); its arrays (program points, erase counts, OOB) are indexed by
//! the raw numbers inside.

mod channel;
pub mod geometry;
pub mod timing;

pub use geometry::{GcUnit, Geometry, Layout, PageAddr};
pub use timing::{Timeline, TimingParams};

use crate::units::{Lpn, Nanos, Ppn};

/// OOB value of a page that holds no data (erased, or programmed with no logical page).
pub const NO_LPN: u32 = u32::MAX;

/// Operation counts, in pages (programs, reads, copy-backs) and blocks (erases).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct NandCounters {
    /// Page reads whose data crossed the bus (host reads, GC moves across planes).
    #[schemars(extend("x-unit" = "pages"))]
    pub reads: u64,
    /// Page programs, copy-back programs included.
    #[schemars(extend("x-unit" = "pages"))]
    pub programs: u64,
    /// In-plane copy-backs (each is also one program).
    #[schemars(extend("x-unit" = "pages"))]
    pub copybacks: u64,
    /// Block erases (a line erase counts one per block).
    #[schemars(extend("x-unit" = "blocks"))]
    pub erases: u64,
}

/// A flash operation in a [`Nand`]'s journal, by physical page or segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashOp {
    /// A page programmed with host data.
    Program(u32),
    /// A page's contents moved (GC): read `src`, program `dst`.
    Move {
        /// The page read.
        src: u32,
        /// The page programmed.
        dst: u32,
    },
    /// A segment erased.
    Erase(u32),
}

/// The flash array.
#[derive(Clone)]
pub struct Nand {
    layout: Layout,
    next_page: crate::hint::Table<u32>,
    erase_count: crate::hint::Table<u32>,
    oob_lpn: crate::hint::Table<u32>,
    oob_tag: Option<crate::hint::Table<u32>>,
    timeline: Option<Timeline>,
    /// The operations since the last [`Nand::take_journal`], in order, when kept
    /// ([`Nand::keep_journal`]): a host-side log replays them onto a zoned device.
    journal: Option<Vec<FlashOp>>,
    /// Operations since the NAND was built, preconditioning included (the run subtracts a
    /// snapshot for its measured phase).
    pub counters: NandCounters,
}

impl Nand {
    /// What [`Nand::new`] allocates for `layout`: the OOB (logical page per physical page), the
    /// version tags with `verify`, per-block program offsets and erase counts, and the
    /// timeline's per-plane and per-channel clocks (`timing`; a few busy intervals per channel).
    pub fn memory(layout: &Layout, verify: bool, timing: bool, est: &mut crate::memory::Estimate) {
        use crate::hint::table_bytes;
        let pages = layout.total_pages() as u64;
        let blocks = layout.geo.total_blocks() as u64;
        est.add("OOB / reverse map", table_bytes::<u32>(pages));
        if verify {
            est.add("verify tags", table_bytes::<u32>(pages));
        }
        est.add("per-block state", 2 * table_bytes::<u32>(blocks));
        if timing {
            // Per array its clocks and GC queue (a victim's moves), per channel a few booked
            // intervals, per block a queued-erase flag.
            let planes = layout.geo.planes() as u64;
            let queue = 64u64.saturating_add((layout.geo.pages_per_block as u64).saturating_mul(24));
            est.add(
                "per-block state",
                planes
                    .saturating_mul(queue)
                    .saturating_add((layout.geo.channels as u64).saturating_mul(256))
                    .saturating_add(blocks),
            );
        }
    }

    /// `verify`: keep a version tag per page. `timing`: reserve resources per operation.
    pub fn new(layout: Layout, verify: bool, timing: Option<&TimingParams>) -> Self {
        let pages = layout.total_pages() as usize;
        let blocks = layout.geo.total_blocks() as usize;
        Nand {
            layout,
            next_page: crate::hint::table(blocks, 0),
            erase_count: crate::hint::table(blocks, 0),
            oob_lpn: crate::hint::table(pages, NO_LPN),
            oob_tag: verify.then(|| crate::hint::table(pages, 0)),
            timeline: timing.map(|t| Timeline::new(t, &layout.geo)),
            journal: None,
            counters: NandCounters::default(),
        }
    }

    /// The layout the array was built with.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Logical page stored at `ppn` per its OOB, if programmed with one.
    #[inline]
    pub fn oob_lpn(&self, ppn: Ppn) -> Option<Lpn> {
        let v = self.oob_lpn[ppn.index()];
        (v != NO_LPN).then_some(Lpn(v as u64))
    }

    /// Version tag stored at `ppn` (verify mode only).
    pub fn oob_tag(&self, ppn: Ppn) -> Option<u32> {
        self.oob_tag.as_ref().map(|t| t[ppn.index()])
    }

    /// Whether `ppn` is below its block's program point (programmed or skipped since the last
    /// erase).
    pub fn is_programmed(&self, ppn: Ppn) -> bool {
        self.programmed(ppn.0)
    }

    #[inline]
    fn programmed(&self, ppn: u32) -> bool {
        let a = self.layout.decode(ppn);
        a.page < self.next_page[a.block as usize]
    }

    /// Program `ppn` with `lpn` (and `tag` in verify mode), issued at `t`; returns completion.
    #[inline(always)]
    pub fn program(&mut self, ppn: Ppn, lpn: Lpn, tag: u32, t: Nanos) -> Nanos {
        if let Some(j) = &mut self.journal {
            j.push(FlashOp::Program(ppn.0));
        }
        Nanos(self.program_raw(ppn.0, oob_of(lpn), tag, t.0))
    }

    /// Keep a journal of the operations from now on ([`FlashOp`]).
    pub fn keep_journal(&mut self) {
        self.journal.get_or_insert_with(Vec::new);
    }

    /// The operations journaled since the last call, in order (empty without a journal); the
    /// caller hands the vector back with [`Nand::return_journal`] to reuse its allocation.
    pub fn take_journal(&mut self) -> Vec<FlashOp> {
        self.journal.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Give back a vector [`Nand::take_journal`] returned (cleared here), keeping its
    /// allocation.
    pub fn return_journal(&mut self, mut ops: Vec<FlashOp>) {
        if let Some(j) = &mut self.journal {
            if j.is_empty() {
                ops.clear();
                *j = ops;
            }
        }
    }

    #[inline(always)]
    fn program_raw(&mut self, ppn: u32, lpn: u32, tag: u32, t_ns: u64) -> u64 {
        let a = self.layout.decode(ppn);
        self.advance(a, ppn);
        self.write_oob(ppn, lpn, tag);
        self.counters.programs += 1;
        match &mut self.timeline {
            Some(tl) => tl.program_block(a.plane, Some(a.block), t_ns),
            None => t_ns,
        }
    }

    /// Move `block`'s program point forward to `page` without programming: the pages between
    /// stay erased and unusable until the block is erased (NAND allows skipping forward, never
    /// going back). Free: no operation reaches the chip.
    pub fn skip_to(&mut self, block: u32, page: u32) {
        let next = &mut self.next_page[block as usize];
        assert!(
            page >= *next && page <= self.layout.geo.pages_per_block,
            "NAND rule broken: skip of block {block} back to page {page} from {next}"
        );
        *next = page;
    }

    /// Read `ppn` over the bus, issued at `t`; returns completion.
    #[inline]
    pub fn read(&mut self, ppn: Ppn, t: Nanos) -> Nanos {
        Nanos(self.read_raw(ppn.0, t.0))
    }

    #[inline]
    fn read_raw(&mut self, ppn: u32, t_ns: u64) -> u64 {
        self.counters.reads += 1;
        match &mut self.timeline {
            Some(tl) => tl.read(self.layout.decode(ppn).plane, t_ns),
            None => t_ns,
        }
    }

    /// Move a page's contents from `src` to `dst`: copy-back when both are in one plane, else a
    /// read out and a program in. Returns the completion time.
    #[inline]
    pub fn move_page(&mut self, src: Ppn, dst: Ppn, t: Nanos) -> Nanos {
        if let Some(j) = &mut self.journal {
            j.push(FlashOp::Move { src: src.0, dst: dst.0 });
        }
        let lpn = self.oob_lpn[src.index()];
        Nanos(self.move_raw(src.0, dst.0, lpn, t.0))
    }

    /// [`Nand::move_page`] that stores the data under another logical page `lpn` (copy-back
    /// with a rewritten spare area: a file system's defragmentation copy).
    pub fn move_page_as(&mut self, src: Ppn, dst: Ppn, lpn: Lpn, t: Nanos) -> Nanos {
        if let Some(j) = &mut self.journal {
            j.push(FlashOp::Move { src: src.0, dst: dst.0 });
        }
        Nanos(self.move_raw(src.0, dst.0, oob_of(lpn), t.0))
    }

    #[inline]
    fn move_raw(&mut self, src: u32, dst: u32, lpn: u32, t_ns: u64) -> u64 {
        let (sa, da) = (self.layout.decode(src), self.layout.decode(dst));
        debug_assert!(self.programmed(src), "move from unprogrammed page {src}");
        let tag = self.oob_tag.as_ref().map_or(0, |t| t[src as usize]);
        if sa.plane == da.plane {
            self.advance(da, dst);
            self.write_oob(dst, lpn, tag);
            self.counters.programs += 1;
            self.counters.copybacks += 1;
            match &mut self.timeline {
                Some(tl) => tl.copyback(sa.plane, t_ns),
                None => t_ns,
            }
        } else {
            let t = self.read_raw(src, t_ns);
            self.program_raw(dst, lpn, tag, t)
        }
    }

    /// A hint that the OOB of pages `[first, first + n)` is read soon (a GC victim's): start
    /// bringing it into the cache (`hint`). Changes nothing.
    #[inline]
    pub fn prefetch_oob(&self, first: u32, n: u32) {
        let per_line = (64 / std::mem::size_of::<u32>()) as u32;
        for p in (first..first + n).step_by(per_line as usize) {
            crate::hint::prefetch(&self.oob_lpn, p as usize);
        }
    }

    /// A hint that segment `seg` is erased soon: start bringing its blocks' program points and
    /// erase counts into the cache. Changes nothing.
    #[inline]
    pub fn prefetch_erase(&self, seg: u32) {
        for block in self.layout.blocks_of(seg) {
            crate::hint::prefetch(&self.next_page, block as usize);
            crate::hint::prefetch(&self.erase_count, block as usize);
        }
    }

    /// The logical pages stored at pages `[first, end)` per their OOB ([`NO_LPN`] where none:
    /// erased, or programmed without one); GC lists a victim's valid pages with them.
    #[inline]
    pub fn oob_range(&self, first: u32, end: u32) -> &[u32] {
        &self.oob_lpn[first as usize..end as usize]
    }

    /// [`Nand::move_page`] for `srcs[i] → first_dst + i`, in order, without a clock (accounting
    /// mode): the same program-order checks, OOB writes and counts as one move at a time. The
    /// destinations are consecutive pages of one segment, so under block GC units they are
    /// consecutive pages of one block (checked once for the run); under line units each page is
    /// checked as it comes.
    pub fn move_run(&mut self, srcs: &[u32], lpns: &[u32], first_dst: u32) {
        assert!(self.timeline.is_none(), "a run of moves is untimed: timing mode moves page by page");
        assert_eq!(srcs.len(), lpns.len());
        let n = srcs.len() as u32;
        if n == 0 {
            return;
        }
        if let Some(j) = &mut self.journal {
            j.extend(srcs.iter().enumerate().map(|(i, &src)| FlashOp::Move { src, dst: first_dst + i as u32 }));
        }
        let (first, last) = (self.layout.decode(first_dst), self.layout.decode(first_dst + n - 1));
        if self.layout.unit == GcUnit::Block && first.block == last.block {
            // One block: its program point moves over the run; every source is in the same plane
            // (GC stays in its pool, a plane), so each move is a copy-back.
            debug_assert!(srcs.iter().all(|&s| self.layout.decode(s).plane == first.plane));
            self.advance(first, first_dst);
            self.next_page[first.block as usize] += n - 1;
            let dst = first_dst as usize..(first_dst + n) as usize;
            self.oob_lpn[dst.clone()].copy_from_slice(lpns);
            if let Some(t) = &mut self.oob_tag {
                for (i, &s) in dst.zip(srcs) {
                    t[i] = t[s as usize];
                }
            }
            self.counters.programs += n as u64;
            self.counters.copybacks += n as u64;
            return;
        }
        for (i, (&src, &lpn)) in srcs.iter().zip(lpns).enumerate() {
            self.move_raw(src, first_dst + i as u32, lpn, 0);
        }
    }

    /// Erase every block of segment `seg`, issued at `t`; returns completion.
    pub fn erase_segment(&mut self, seg: u32, t: Nanos) -> Nanos {
        if let Some(j) = &mut self.journal {
            j.push(FlashOp::Erase(seg));
        }
        let t_ns = t.0;
        let pps = self.layout.pages_per_segment;
        let first = seg as usize * pps as usize;
        self.oob_lpn[first..first + pps as usize].fill(NO_LPN);
        let mut done = t_ns;
        let layout = self.layout;
        for block in layout.blocks_of(seg) {
            self.next_page[block as usize] = 0;
            self.erase_count[block as usize] += 1;
            self.counters.erases += 1;
            if let Some(tl) = &mut self.timeline {
                let plane = layout.plane_of_block(block);
                done = done.max(tl.erase_block(plane, block, t_ns));
            }
        }
        Nanos(done)
    }

    /// Erases of each block, indexed by global block id.
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    /// The timeline, in timing mode while attached.
    pub fn timeline(&self) -> Option<&Timeline> {
        self.timeline.as_ref()
    }

    /// The timeline, in timing mode while attached.
    pub fn timeline_mut(&mut self) -> Option<&mut Timeline> {
        self.timeline.as_mut()
    }

    /// Take the timeline out: operations cost no time until [`Nand::attach_timeline`]
    /// (preconditioning runs without a clock, as in accounting mode).
    pub fn detach_timeline(&mut self) -> Option<Timeline> {
        self.timeline.take()
    }

    /// Put back the timeline [`Nand::detach_timeline`] took.
    pub fn attach_timeline(&mut self, timeline: Option<Timeline>) {
        assert!(self.timeline.is_none(), "attaching a timeline to a NAND that has one");
        self.timeline = timeline;
    }

    /// The operations until [`Nand::end_gc`] are a GC round's (see [`Timeline::begin_gc`]).
    pub fn begin_gc(&mut self) {
        if let Some(tl) = &mut self.timeline {
            tl.begin_gc();
        }
    }

    /// End the GC round [`Nand::begin_gc`] began (see [`Timeline::end_gc`]).
    pub fn end_gc(&mut self) {
        if let Some(tl) = &mut self.timeline {
            tl.end_gc();
        }
    }

    /// When `plane`'s array is free, in timing mode.
    #[inline]
    pub fn plane_free_at(&self, plane: u32) -> Option<Nanos> {
        self.timeline.as_ref().map(|t| Nanos(t.array_free_at(plane)))
    }

    /// Whether operations are timed: a timeline is attached.
    pub fn timing(&self) -> bool {
        self.timeline.is_some()
    }

    /// Pages programmed in block `block`.
    pub fn next_page(&self, block: u32) -> u32 {
        self.next_page[block as usize]
    }

    #[inline]
    fn advance(&mut self, a: PageAddr, ppn: u32) {
        let next = &mut self.next_page[a.block as usize];
        assert!(
            a.page == *next,
            "NAND rule broken: program of ppn {ppn} (block {}, page {}) but the block's next programmable page is {}",
            a.block,
            a.page,
            *next
        );
        *next += 1;
    }

    #[inline]
    fn write_oob(&mut self, ppn: u32, lpn: u32, tag: u32) {
        self.oob_lpn[ppn as usize] = lpn;
        if let Some(t) = &mut self.oob_tag {
            t[ppn as usize] = tag;
        }
    }

    /// O(pages) cross-check: every page below a block's program point is the only kind that
    /// carries an OOB lpn; pages above it are erased.
    pub fn validate(&self) -> Result<(), String> {
        for ppn in 0..self.layout.total_pages() {
            if !self.programmed(ppn) && self.oob_lpn[ppn as usize] != NO_LPN {
                return Err(format!(
                    "ppn {ppn} is not programmed but its OOB holds lpn {}",
                    self.oob_lpn[ppn as usize]
                ));
            }
        }
        for (b, &n) in self.next_page.iter().enumerate() {
            if n > self.layout.geo.pages_per_block {
                return Err(format!("block {b} program point {n} beyond the block"));
            }
        }
        Ok(())
    }
}

/// `lpn` as the OOB stores it (32 bits; [`NO_LPN`] is reserved).
#[inline]
fn oob_of(lpn: Lpn) -> u32 {
    debug_assert!(lpn.0 < NO_LPN as u64, "lpn {lpn} does not fit the OOB");
    lpn.0 as u32
}

/// Wear statistics over per-block erase counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Wear {
    /// Fewest erases of any block.
    pub erase_min: u32,
    /// Most erases of any block.
    pub erase_max: u32,
    /// Mean erases per block.
    pub erase_mean: f64,
    /// Standard deviation of erases per block.
    pub erase_stddev: f64,
}

impl Wear {
    /// Wear of per-block erase counts (population standard deviation); all zero for no
    /// blocks.
    pub fn of(counts: &[u32]) -> Wear {
        if counts.is_empty() {
            return Wear::default();
        }
        let n = counts.len() as f64;
        let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n;
        let var = counts.iter().map(|&c| (c as f64 - mean).powi(2)).sum::<f64>() / n;
        Wear {
            erase_min: *counts.iter().min().unwrap_or(&0),
            erase_max: *counts.iter().max().unwrap_or(&0),
            erase_mean: mean,
            erase_stddev: var.sqrt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nand(unit: GcUnit) -> Nand {
        let geo = Geometry {
            channels: 2,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 4,
            pages_per_block: 4,
            page_size: 4096,
        };
        Nand::new(Layout::new(geo, unit), true, None)
    }

    #[test]
    #[should_panic(expected = "NAND rule broken")]
    fn out_of_order_program_panics() {
        let mut n = nand(GcUnit::Block);
        n.program(Ppn(1), Lpn(7), 0, Nanos::ZERO);
    }

    #[test]
    #[should_panic(expected = "NAND rule broken")]
    fn second_program_without_erase_panics() {
        let mut n = nand(GcUnit::Block);
        n.program(Ppn(0), Lpn(7), 0, Nanos::ZERO);
        n.program(Ppn(0), Lpn(8), 0, Nanos::ZERO);
    }

    #[test]
    fn erase_resets_block_and_counts_wear() {
        let mut n = nand(GcUnit::Line);
        for ppn in 0..8 {
            n.program(Ppn(ppn), Lpn(ppn as u64), ppn * 10, Nanos::ZERO);
        }
        assert_eq!(n.oob_tag(Ppn(3)), Some(30));
        n.erase_segment(0, Nanos::ZERO);
        assert_eq!(n.counters.erases, 2, "a line of two planes erases two blocks");
        assert_eq!(n.oob_lpn(Ppn(3)), None);
        n.program(Ppn(0), Lpn(1), 0, Nanos::ZERO);
        let w = Wear::of(n.erase_counts());
        assert_eq!((w.erase_min, w.erase_max), (0, 1));
        n.validate().unwrap();
    }

    #[test]
    fn move_within_a_plane_is_a_copyback() {
        let mut n = nand(GcUnit::Block);
        let t = Nanos::ZERO;
        n.program(Ppn(0), Lpn(5), 9, t);
        n.move_page(Ppn(0), Ppn(4), t); // block 1, plane 0
        n.program(Ppn(16), Lpn(6), 1, t); // block 4 = plane 1
        n.move_page(Ppn(16), Ppn(5), t); // to plane 0: read + program
        assert_eq!(n.counters.copybacks, 1);
        assert_eq!(n.counters.programs, 4);
        assert_eq!(n.counters.reads, 1);
        assert_eq!((n.oob_lpn(Ppn(4)), n.oob_tag(Ppn(4))), (Some(Lpn(5)), Some(9)));
    }
}
