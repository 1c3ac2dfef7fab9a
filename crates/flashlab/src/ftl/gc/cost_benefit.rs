//! Cost-benefit victim selection (Rosenblum & Ousterhout, "The Design and Implementation of a
//! Log-Structured File System", 1992): maximise benefit/cost = (1 - u) * age / (2u), where u is
//! the segment's valid fraction and age the logical time (host pages written) since it was
//! sealed. A segment with no valid pages wins outright. Selection scans the pool's sealed
//! segments (O(segments per pool) per victim), as the published policy does; ties go to the
//! lowest segment id so the choice is deterministic.

use super::{GcPolicy, GcView, SegState};
use crate::error::Error;
use crate::nand::Layout;

/// The cost-benefit policy: the sealed segments of each pool, scanned for the best score.
#[derive(Clone)]
pub struct CostBenefit {
    /// Sealed segments per pool, unordered; `pos` gives each one's index for O(1) removal.
    members: Vec<Vec<u32>>,
    pos: Vec<u32>,
    pool_of: Vec<u32>,
}

const NIL: u32 = u32::MAX;

/// No parameters; one stream.
pub fn shape(_layout: &Layout, params: &toml::Table) -> Result<super::GcShape, Error> {
    super::without_params("cost-benefit", params)
}

/// The sealed segments of every pool (at most all segments), each one's position and pool.
pub fn memory(layout: &Layout, _params: &toml::Table, est: &mut crate::memory::Estimate) {
    est.add("GC policy", super::per_pool_members::<Vec<u32>>(layout, 8));
}

/// Build the cost-benefit policy for `layout`; it takes no parameters.
pub fn build(layout: &Layout, params: &toml::Table) -> Result<Box<dyn GcPolicy>, Error> {
    shape(layout, params)?;
    Ok(Box::new(CostBenefit {
        members: vec![Vec::new(); layout.pools as usize],
        pos: vec![NIL; layout.segments as usize],
        pool_of: (0..layout.segments).map(|s| layout.pool_of(s)).collect(),
    }))
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
        let list = &self.members[pool as usize];
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
        let i = self.pos[seg as usize] as usize;
        let list = &mut self.members[self.pool_of[seg as usize] as usize];
        list.swap_remove(i);
        if let Some(&moved) = list.get(i) {
            self.pos[moved as usize] = i as u32;
        }
        self.pos[seg as usize] = NIL;
    }

    fn on_seal(&mut self, _view: &GcView, seg: u32) {
        let list = &mut self.members[self.pool_of[seg as usize] as usize];
        self.pos[seg as usize] = list.len() as u32;
        list.push(seg);
    }

    fn validate(&self, view: &GcView) -> Result<(), String> {
        for (seg, &p) in self.pos.iter().enumerate() {
            let sealed = view.state[seg] == SegState::Sealed;
            if sealed != (p != NIL) {
                return Err(format!("cost-benefit: segment {seg} membership disagrees with its state"));
            }
        }
        Ok(())
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
