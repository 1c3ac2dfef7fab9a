//! Windowed greedy (Hu et al., "Write amplification analysis in flash-based solid state drives",
//! SYSTOR 2009): greedy over the `window` segments sealed longest ago, a knob between FIFO
//! (window 1) and greedy (window = every segment). A per-pool queue in seal order.

use std::collections::VecDeque;

use super::{frees_enough, GcPolicy, GcView, SegState};
use crate::error::Error;
use crate::nand::Layout;

/// `[ftl.gc_params]` of `windowed`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Sealed segments, oldest first, among which the fewest-valid one is the victim.
    #[serde(default = "d_window")]
    #[schemars(extend("x-unit" = "segments"))]
    pub window: u32,
}

fn d_window() -> u32 {
    16
}

#[derive(Clone)]
pub struct Windowed {
    window: usize,
    queues: Vec<VecDeque<u32>>,
    pool_of: Vec<u32>,
}

pub fn build(layout: &Layout, params: &toml::Table) -> Result<Box<dyn GcPolicy>, Error> {
    let p: Params = crate::registry::parse_params("ftl.gc_params", params)?;
    if p.window == 0 {
        return Err(Error::config("ftl.gc_params.window", "must be at least 1 segment"));
    }
    Ok(Box::new(Windowed {
        window: p.window as usize,
        queues: vec![VecDeque::new(); layout.pools as usize],
        pool_of: (0..layout.segments).map(|s| layout.pool_of(s)).collect(),
    }))
}

impl GcPolicy for Windowed {
    fn select_victim(&mut self, view: &GcView, pool: u32, min_invalid: u32) -> Option<u32> {
        let q = &mut self.queues[pool as usize];
        let (i, &seg) = q.iter().take(self.window).enumerate().min_by_key(|&(_, &s)| view.valid[s as usize])?;
        if !frees_enough(view, seg, min_invalid) {
            return None;
        }
        q.remove(i)
    }

    fn on_seal(&mut self, _view: &GcView, seg: u32) {
        self.queues[self.pool_of[seg as usize] as usize].push_back(seg);
    }

    fn validate(&self, view: &GcView) -> Result<(), String> {
        let queued: usize = self.queues.iter().map(VecDeque::len).sum();
        let sealed = view.state.iter().filter(|&&s| s == SegState::Sealed).count();
        if queued != sealed {
            return Err(format!("windowed: {queued} queued segments but {sealed} sealed"));
        }
        Ok(())
    }
}
