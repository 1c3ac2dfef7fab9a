//! The sealed segments of each pool as an unordered set with O(1) insert, remove and access by
//! index: what policies that scan (cost-benefit) or sample (random, d-choices) the candidates
//! keep. Not a policy; shared by them.

use super::{GcView, SegState};
use crate::nand::Layout;

const NIL: u32 = u32::MAX;

/// Sealed segments per pool, unordered; each member's index in its pool's list for O(1)
/// removal (swap with the last).
#[derive(Clone)]
pub struct Members {
    lists: Vec<Vec<u32>>,
    pos: Vec<u32>,
    pool_of: Vec<u32>,
}

impl Members {
    /// Empty sets for every pool of `layout`.
    pub fn new(layout: &Layout) -> Members {
        Members {
            lists: vec![Vec::new(); layout.pools as usize],
            pos: vec![NIL; layout.segments as usize],
            pool_of: (0..layout.segments).map(|s| layout.pool_of(s)).collect(),
        }
    }

    /// The members of `pool`, in no meaningful order (it changes as members leave).
    pub fn of(&self, pool: u32) -> &[u32] {
        &self.lists[pool as usize]
    }

    /// `seg` was sealed.
    pub fn insert(&mut self, seg: u32) {
        let list = &mut self.lists[self.pool_of[seg as usize] as usize];
        self.pos[seg as usize] = list.len() as u32;
        list.push(seg);
    }

    /// `seg` was taken as a victim.
    pub fn remove(&mut self, seg: u32) {
        let i = self.pos[seg as usize] as usize;
        let list = &mut self.lists[self.pool_of[seg as usize] as usize];
        list.swap_remove(i);
        if let Some(&moved) = list.get(i) {
            self.pos[moved as usize] = i as u32;
        }
        self.pos[seg as usize] = NIL;
    }

    /// Members are exactly the sealed segments (`who` names the policy in the error).
    pub fn validate(&self, who: &str, view: &GcView) -> Result<(), String> {
        for (seg, &p) in self.pos.iter().enumerate() {
            let sealed = view.state[seg] == SegState::Sealed;
            if sealed != (p != NIL) {
                return Err(format!("{who}: segment {seg} membership disagrees with its state"));
            }
        }
        Ok(())
    }
}
