//! FIFO victim selection: the segment sealed longest ago, whatever its valid count — the
//! circular log of early log-structured file systems. A per-pool queue in seal order.

use std::collections::VecDeque;

use super::{GcPolicy, GcView, SegState};
use crate::error::Error;
use crate::nand::Layout;

/// The FIFO policy: a queue of sealed segments per pool, in seal order.
#[derive(Clone)]
pub struct Fifo {
    queues: Vec<VecDeque<u32>>,
    pool_of: Vec<u32>,
}

/// No parameters; one stream.
pub fn shape(_layout: &Layout, params: &toml::Table) -> Result<super::GcShape, Error> {
    super::without_params("fifo", params)
}

/// A queue per pool (together at most every segment), each segment's pool.
pub fn memory(layout: &Layout, _params: &toml::Table, est: &mut crate::memory::Estimate) {
    est.add("GC policy", super::per_pool_members::<VecDeque<u32>>(layout, 4));
}

/// Build the FIFO policy for `layout`; it takes no parameters.
pub fn build(ctx: &super::GcContext) -> Result<Box<dyn GcPolicy>, Error> {
    let (layout, params) = (ctx.layout, ctx.params);
    shape(layout, params)?;
    Ok(Box::new(Fifo {
        queues: vec![VecDeque::new(); layout.pools as usize],
        pool_of: (0..layout.segments).map(|s| layout.pool_of(s)).collect(),
    }))
}

impl GcPolicy for Fifo {
    fn choose(&mut self, _view: &GcView, pool: u32) -> Option<u32> {
        self.queues[pool as usize].front().copied()
    }

    fn take(&mut self, _view: &GcView, seg: u32) {
        let taken = self.queues[self.pool_of[seg as usize] as usize].pop_front();
        debug_assert_eq!(taken, Some(seg), "fifo: took a segment it did not choose");
    }

    fn on_seal(&mut self, _view: &GcView, seg: u32) {
        self.queues[self.pool_of[seg as usize] as usize].push_back(seg);
    }

    fn validate(&self, view: &GcView) -> Result<(), String> {
        let queued: usize = self.queues.iter().map(|q| q.len()).sum();
        let sealed = view.state.iter().filter(|&&s| s == SegState::Sealed).count();
        if queued != sealed {
            return Err(format!("fifo: {queued} queued segments but {sealed} sealed"));
        }
        for q in &self.queues {
            if let Some(w) = q
                .iter()
                .zip(q.iter().skip(1))
                .find(|(a, b)| view.sealed_at[**a as usize] > view.sealed_at[**b as usize])
            {
                return Err(format!("fifo: segment {} queued before {} but sealed later", w.0, w.1));
            }
        }
        Ok(())
    }
}
