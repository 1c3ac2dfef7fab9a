//! Allocator: segment bookkeeping, free pools and write frontiers.
//!
//! Owns, per segment: state (free / open / sealed), valid-page count, the write stream that
//! filled it and when it was sealed; per pool (a plane for block units, the whole device for
//! line units): a FIFO free list, so erased segments are reused oldest-first and wear spreads;
//! per (stream, pool): the open segment and its next offset. It decides nothing about GC —
//! the FTL's mechanism asks it for pages and tells it what was invalidated.

use std::collections::VecDeque;

use super::gc::{GcView, SegState};
use crate::nand::Layout;

const NIL: u32 = u32::MAX;

/// Per-segment state, the free list of each pool and the open segment of each (stream, pool).
#[derive(Clone)]
pub struct Segments {
    /// The layout whose segments these are.
    pub layout: Layout,
    /// Valid pages per segment, kept by the FTL's mechanism as it maps and invalidates pages.
    pub valid: crate::hint::Table<u32>,
    /// Free / open / sealed, per segment.
    pub state: Vec<SegState>,
    /// Write stream that filled (or is filling) each segment.
    pub stream: Vec<u8>,
    /// Logical time (the caller's clock: host pages written) at which each segment was sealed.
    pub sealed_at: crate::hint::Table<u64>,
    free: Vec<VecDeque<u32>>,
    /// Open segment and next offset per `stream * pools + pool`.
    open_seg: Vec<u32>,
    open_off: Vec<u32>,
}

impl Segments {
    /// Every segment free, on its pool's free list in segment order, for `streams` write streams
    /// (1 to 255; panics otherwise).
    pub fn new(layout: Layout, streams: usize) -> Self {
        assert!(streams >= 1 && streams <= u8::MAX as usize, "stream count {streams} out of range");
        let n = layout.segments as usize;
        let mut free = vec![VecDeque::new(); layout.pools as usize];
        for seg in 0..layout.segments {
            free[layout.pool_of(seg) as usize].push_back(seg);
        }
        let fronts = streams * layout.pools as usize;
        Segments {
            layout,
            valid: crate::hint::table(n, 0),
            state: vec![SegState::Free; n],
            stream: vec![0; n],
            sealed_at: crate::hint::table(n, 0),
            free,
            open_seg: vec![NIL; fronts],
            open_off: vec![0; fronts],
        }
    }

    /// The read-only view a GC policy sees, at logical time `now`.
    pub fn view(&self, now: u64) -> GcView<'_> {
        GcView {
            layout: &self.layout,
            valid: &self.valid,
            state: &self.state,
            stream: &self.stream,
            sealed_at: &self.sealed_at,
            now,
        }
    }

    /// Segments on `pool`'s free list.
    pub fn free_count(&self, pool: u32) -> u32 {
        self.free[pool as usize].len() as u32
    }

    /// Next page of the open segment of (stream, pool), if it has room.
    #[inline]
    pub fn frontier_page(&mut self, stream: usize, pool: u32) -> Option<u32> {
        let f = stream * self.layout.pools as usize + pool as usize;
        let seg = self.open_seg[f];
        if seg == NIL {
            return None;
        }
        let off = self.open_off[f];
        debug_assert!(off < self.layout.pages_per_segment);
        self.open_off[f] = off + 1;
        Some(seg * self.layout.pages_per_segment + off)
    }

    /// Up to `want` consecutive pages of the open segment of (stream, pool): its first page and
    /// how many (at least 1, at most what the segment has left); `None` if no segment is open.
    #[inline]
    pub fn frontier_run(&mut self, stream: usize, pool: u32, want: u32) -> Option<(u32, u32)> {
        let f = stream * self.layout.pools as usize + pool as usize;
        let seg = self.open_seg[f];
        if seg == NIL || want == 0 {
            return None;
        }
        let off = self.open_off[f];
        let n = want.min(self.layout.pages_per_segment - off);
        debug_assert!(n > 0);
        self.open_off[f] = off + n;
        Some((seg * self.layout.pages_per_segment + off, n))
    }

    /// Was `ppn` the last page of its segment? (Then the caller seals it after programming.)
    #[inline]
    pub fn is_last_page(&self, ppn: u32) -> bool {
        self.layout.is_last_in_segment(ppn)
    }

    /// Open a free segment of `pool` for `stream`; `None` if the pool has none.
    pub fn open_next(&mut self, stream: usize, pool: u32) -> Option<u32> {
        let f = stream * self.layout.pools as usize + pool as usize;
        assert_eq!(self.open_seg[f], NIL, "stream {stream} pool {pool} already has an open segment");
        let seg = self.free[pool as usize].pop_front()?;
        assert_eq!(self.state[seg as usize], SegState::Free, "free list held non-free segment {seg}");
        self.state[seg as usize] = SegState::Open;
        self.stream[seg as usize] = stream as u8;
        self.open_seg[f] = seg;
        self.open_off[f] = 0;
        Some(seg)
    }

    /// The segment holding `ppn` is full: close its frontier and mark it sealed.
    pub fn seal(&mut self, ppn: u32, now: u64) -> u32 {
        let seg = self.layout.segment_of(ppn);
        let f = self.stream[seg as usize] as usize * self.layout.pools as usize + self.layout.pool_of(seg) as usize;
        assert_eq!(self.open_seg[f], seg, "sealing segment {seg} that is not its stream's open segment");
        self.open_seg[f] = NIL;
        self.state[seg as usize] = SegState::Sealed;
        self.sealed_at[seg as usize] = now;
        seg
    }

    /// An erased segment goes back to its pool's free list.
    pub fn release(&mut self, seg: u32) {
        assert_eq!(self.valid[seg as usize], 0, "releasing segment {seg} with valid pages");
        self.state[seg as usize] = SegState::Free;
        self.free[self.layout.pool_of(seg) as usize].push_back(seg);
    }

    /// Check free lists and frontiers against segment states.
    pub fn validate(&self) -> Result<(), String> {
        let mut on_free = vec![false; self.state.len()];
        for (pool, q) in self.free.iter().enumerate() {
            for &seg in q {
                if self.layout.pool_of(seg) as usize != pool {
                    return Err(format!("segment {seg} on free list of pool {pool}, belongs elsewhere"));
                }
                if std::mem::replace(&mut on_free[seg as usize], true) {
                    return Err(format!("segment {seg} twice on the free lists"));
                }
            }
        }
        let open: Vec<u32> = self.open_seg.iter().copied().filter(|&s| s != NIL).collect();
        for (seg, st) in self.state.iter().enumerate() {
            let is_open = open.contains(&(seg as u32));
            let ok = match st {
                SegState::Free => on_free[seg] && !is_open && self.valid[seg] == 0,
                SegState::Open => !on_free[seg] && is_open,
                SegState::Sealed => !on_free[seg] && !is_open,
            };
            if !ok {
                return Err(format!(
                    "segment {seg}: state {st:?} disagrees with free list ({}) / frontiers ({is_open})",
                    on_free[seg]
                ));
            }
        }
        Ok(())
    }
}
