//! Cost-benefit victim selection (Rosenblum & Ousterhout, "The Design and Implementation of a
//! Log-Structured File System", 1992): maximise benefit/cost = (1 - u) * age / (2u), where u is
//! the segment's valid fraction and age the logical time (host pages written) since it was
//! sealed. A segment with no valid pages wins outright. Selection scans the pool's sealed
//! segments (O(segments per pool) per victim), as the published policy does; ties go to the
//! lowest segment id so the choice is deterministic.

use super::{GcPolicy, GcView};
use crate::error::Error;
use crate::nand::Layout;

/// The cost-benefit policy: the sealed segments of each pool, scanned for the best score.
#[derive(Clone)]
pub struct CostBenefit {
    sealed: super::Members,
}

/// No parameters; one stream.
pub fn shape(_layout: &Layout, params: &toml::Table) -> Result<super::GcShape, Error> {
    super::without_params("cost-benefit", params)
}

/// The sealed segments of every pool (at most all segments), each one's position and pool.
pub fn memory(layout: &Layout, _params: &toml::Table, est: &mut crate::memory::Estimate) {
    est.add("GC policy", super::per_pool_members::<Vec<u32>>(layout, 8));
}

/// Build the cost-benefit policy for `layout`; it takes no parameters.
pub fn build(ctx: &super::GcContext) -> Result<Box<dyn GcPolicy>, Error> {
    shape(ctx.layout, ctx.params)?;
    Ok(Box::new(CostBenefit { sealed: super::Members::new(ctx.layout) }))
}

/// Score: larger is a better victim. `u` in [0, 1).
fn score(valid: u32, pps: u32, age: u64) -> f64 {
    if valid == 0 {
        return f64::INFINITY;
    }
    let u = valid as f64 / pps as f64;
    (1.0 - u) * (age as f64 + 1.0) / (2.0 * u)
}

impl GcPolicy for CostBenefit {
    fn choose(&mut self, view: &GcView, pool: u32) -> Option<u32> {
        let pps = view.layout.pages_per_segment;
        let list = self.sealed.of(pool);
        let mut best: Option<(f64, u32)> = None;
        for &seg in list {
            let age = view.now.saturating_sub(view.sealed_at[seg as usize]);
            let s = score(view.valid[seg as usize], pps, age);
            let better = match best {
                None => true,
                Some((bs, bseg)) => s > bs || (s == bs && seg < bseg),
            };
            if better {
                best = Some((s, seg));
            }
        }
        best.map(|(_, seg)| seg)
    }

    fn take(&mut self, _view: &GcView, seg: u32) {
        self.sealed.remove(seg);
    }

    fn on_seal(&mut self, _view: &GcView, seg: u32) {
        self.sealed.insert(seg);
    }

    fn validate(&self, view: &GcView) -> Result<(), String> {
        self.sealed.validate("cost-benefit", view)
    }
}

#[cfg(test)]
mod tests {
    use super::score;

    #[test]
    fn emptier_and_older_segments_score_higher() {
        assert!(score(10, 100, 50) > score(50, 100, 50));
        assert!(score(50, 100, 500) > score(50, 100, 50));
        assert_eq!(score(0, 100, 0), f64::INFINITY);
    }
}
