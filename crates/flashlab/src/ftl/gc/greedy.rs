//! Greedy victim selection: the sealed segment with the fewest valid pages.
//!
//! O(1) per event: sealed segments sit in per-pool buckets indexed by valid count (intrusive
//! doubly linked lists over flat arrays); an invalidation moves a segment one bucket down, and
//! selection scans up from a lowest-non-empty hint, which only moves down between selections.
//! Ties go to the segment sealed earliest in that bucket (FIFO within a bucket).

use super::{GcPolicy, GcView, SegState};
use crate::error::Error;
use crate::nand::Layout;
use crate::seglist::{SegLists, NIL};

/// The greedy policy: sealed segments bucketed by valid count, per pool.
#[derive(Clone)]
pub struct Greedy {
    pps: u32,
    /// One list per bucket, `pool * (pps + 1) + valid`.
    lists: SegLists,
    /// Bucket a segment is in (its valid count), NIL when not a candidate.
    bucket_of: crate::hint::Table<u32>,
    /// Per pool: no non-empty bucket below this.
    low_hint: Vec<u32>,
    /// Pools from segment numbers, computed (a table would be one more cache line per event).
    layout: Layout,
}

/// Build the greedy policy for `layout`; it takes no parameters.
pub fn build(ctx: &super::GcContext) -> Result<Box<dyn GcPolicy>, Error> {
    shape(ctx.layout, ctx.params)?;
    Ok(Box::new(Greedy::new(ctx.layout)))
}

/// No parameters; one stream.
pub fn shape(_layout: &Layout, params: &toml::Table) -> Result<super::GcShape, Error> {
    super::without_params("greedy", params)
}

/// A list per (pool, valid count), each segment's list, a low-water hint per pool.
pub fn memory(layout: &Layout, _params: &toml::Table, est: &mut crate::memory::Estimate) {
    let (segs, pools) = (layout.segments as u64, layout.pools as u64);
    let buckets = pools.saturating_mul(layout.pages_per_segment as u64 + 1);
    est.add(
        "GC policy",
        SegLists::memory(buckets, segs)
            .saturating_add(crate::hint::table_bytes::<u32>(segs))
            .saturating_add(crate::memory::vec_bytes::<u32>(pools)),
    );
}

impl Greedy {
    /// Empty buckets for `layout`: a segment becomes a candidate when it is sealed.
    pub fn new(layout: &Layout) -> Self {
        let pps = layout.pages_per_segment;
        let buckets = layout.pools as usize * (pps as usize + 1);
        let segs = layout.segments as usize;
        Greedy {
            pps,
            lists: SegLists::new(buckets, segs),
            bucket_of: crate::hint::table(segs, NIL),
            low_hint: vec![0; layout.pools as usize],
            layout: *layout,
        }
    }

    #[inline]
    fn slot(&self, seg: u32, valid: u32) -> usize {
        (self.layout.pool_of(seg) * (self.pps + 1) + valid) as usize
    }

    fn push_back(&mut self, seg: u32, valid: u32) {
        let b = self.slot(seg, valid);
        self.lists.push_back(b, seg);
        self.bucket_of[seg as usize] = valid;
        let pool = self.layout.pool_of(seg) as usize;
        self.low_hint[pool] = self.low_hint[pool].min(valid);
    }

    fn unlink(&mut self, seg: u32) {
        let valid = self.bucket_of[seg as usize];
        debug_assert_ne!(valid, NIL);
        let b = self.slot(seg, valid);
        self.lists.unlink(b, seg);
        self.bucket_of[seg as usize] = NIL;
    }
}

impl GcPolicy for Greedy {
    fn choose(&mut self, _view: &GcView, pool: u32) -> Option<u32> {
        let base = (pool * (self.pps + 1)) as usize;
        let mut v = self.low_hint[pool as usize];
        while v <= self.pps {
            let seg = self.lists.head(base + v as usize);
            if seg != NIL {
                self.low_hint[pool as usize] = v;
                return Some(seg);
            }
            v += 1;
        }
        self.low_hint[pool as usize] = self.pps + 1;
        None
    }

    fn take(&mut self, _view: &GcView, seg: u32) {
        self.unlink(seg);
    }

    fn on_seal(&mut self, view: &GcView, seg: u32) {
        self.push_back(seg, view.valid[seg as usize]);
    }

    #[inline]
    fn prefetch(&self, seg: u32) {
        crate::hint::prefetch(&self.bucket_of, seg as usize);
        self.lists.prefetch(seg);
    }

    #[inline]
    fn on_invalidate(&mut self, seg: u32, valid_after: u32) {
        if self.bucket_of[seg as usize] != NIL {
            self.unlink(seg);
            self.push_back(seg, valid_after);
        }
    }

    fn validate(&self, view: &GcView) -> Result<(), String> {
        for seg in 0..view.layout.segments {
            let b = self.bucket_of[seg as usize];
            let sealed = view.state[seg as usize] == SegState::Sealed;
            if sealed != (b != NIL) {
                return Err(format!(
                    "greedy: segment {seg} bucket membership ({}) disagrees with its state {:?}",
                    b != NIL,
                    view.state[seg as usize]
                ));
            }
            if b != NIL && b != view.valid[seg as usize] {
                return Err(format!(
                    "greedy: segment {seg} in bucket {b} but has {} valid pages",
                    view.valid[seg as usize]
                ));
            }
            if b != NIL && b < self.low_hint[self.layout.pool_of(seg) as usize] {
                return Err(format!("greedy: segment {seg} below its pool's low hint"));
            }
        }
        Ok(())
    }
}
