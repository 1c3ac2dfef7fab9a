//! Block-level CLOCK weighing recency and utilization: LB-CLOCK's victim rule (B. Debnath,
//! S. Subramanya, D. Du, D. J. Lilja, MASCOTS 2009), also DWB's NV-CLOCK over NVRAM.
//!
//! Pages are grouped by logical block; blocks sit on a clock ring in order of arrival (a new
//! block enters just behind the hand). A host access to any page of a block sets the block's
//! reference bit; a page migrated in by the buffer itself (DWB: DRAM → NVRAM) does not. To
//! evict, the hand sweeps, clearing set bits, until it meets a block whose bit is clear; the
//! victim is then the block with the most buffered pages among all blocks whose bit is clear
//! (recency first, utilization second), the block the hand met winning ties. All its pages
//! leave together, in page order. LB-CLOCK's two further heuristics (evicting a block filled
//! sequentially at once, and demoting blocks of small sequential writes) are not modelled.

use std::collections::BTreeSet;

use super::groups::Groups;
use super::pages::{Entry, EvictPolicy, PageStore, NIL};

/// Block-level CLOCK over one store's pages (LB-CLOCK, DWB's NV-CLOCK): block groups on a ring
/// with a reference bit each; the victim is the fullest unreferenced block (module docs).
pub struct BlockClock {
    groups: Groups,
    referenced: Vec<bool>,
    /// Ring links by group id.
    next: Vec<u32>,
    prev: Vec<u32>,
    hand: u32,
    /// Groups whose bit is clear, by (pages, id): the utilization order.
    unreferenced: BTreeSet<(u32, u32)>,
}

impl BlockClock {
    /// Bytes over a store of `slots` slots: its groups, a reference bit and ring links per
    /// group, and the utilization order (a B-tree node of 11 keys per group at worst: 96 bytes
    /// of keys and links for each, counted as 8 per group plus the node's share).
    pub fn memory(slots: u64) -> u64 {
        use crate::memory::vec_bytes;
        Groups::memory(slots) + vec_bytes::<bool>(slots) + 2 * vec_bytes::<u32>(slots) + slots.saturating_mul(24)
    }

    /// An empty ring over `slots` slots, pages grouped by blocks of `pages_per_block` pages.
    pub fn new(slots: u32, pages_per_block: u64) -> Self {
        let n = slots as usize;
        BlockClock {
            groups: Groups::new(slots, pages_per_block),
            referenced: vec![false; n],
            next: vec![NIL; n],
            prev: vec![NIL; n],
            hand: NIL,
            unreferenced: BTreeSet::new(),
        }
    }

    fn key(&self, g: u32) -> (u32, u32) {
        (self.groups.len(g) as u32, g)
    }

    /// Change group `g`'s page count by running `f`, keeping the utilization order.
    fn resize(&mut self, g: u32, f: impl FnOnce(&mut Groups)) {
        let tracked = !self.referenced[g as usize] && self.unreferenced.remove(&self.key(g));
        f(&mut self.groups);
        if tracked && self.groups.len(g) > 0 {
            self.unreferenced.insert(self.key(g));
        }
    }

    fn set_reference(&mut self, g: u32, on: bool) {
        if self.referenced[g as usize] == on {
            return;
        }
        self.referenced[g as usize] = on;
        if on {
            self.unreferenced.remove(&self.key(g));
        } else {
            self.unreferenced.insert(self.key(g));
        }
    }

    /// Put new group `g` on the ring just behind the hand.
    fn link(&mut self, g: u32) {
        if self.hand == NIL {
            self.next[g as usize] = g;
            self.prev[g as usize] = g;
            self.hand = g;
            return;
        }
        let (h, p) = (self.hand, self.prev[self.hand as usize]);
        self.next[p as usize] = g;
        self.prev[g as usize] = p;
        self.next[g as usize] = h;
        self.prev[h as usize] = g;
    }

    fn unlink(&mut self, g: u32) {
        let (p, n) = (self.prev[g as usize], self.next[g as usize]);
        if n == g {
            self.hand = NIL;
        } else {
            self.next[p as usize] = n;
            self.prev[n as usize] = p;
            if self.hand == g {
                self.hand = n;
            }
        }
        self.next[g as usize] = NIL;
        self.prev[g as usize] = NIL;
    }

    /// Groups on the ring from the hand on (tests and validation).
    pub fn ring(&self) -> Vec<u64> {
        let mut v = Vec::new();
        let mut g = self.hand;
        while g != NIL && (v.is_empty() || g != self.hand) {
            v.push(self.groups.block[g as usize]);
            g = self.next[g as usize];
        }
        v
    }
}

impl EvictPolicy for BlockClock {
    fn on_insert(&mut self, slot: u32, lpn: u64, how: Entry) {
        let g = match self.groups.of(lpn) {
            Some(g) => {
                self.resize(g, |gr| {
                    gr.add(slot, lpn);
                });
                g
            }
            None => {
                let (g, _) = self.groups.add(slot, lpn);
                self.referenced[g as usize] = true;
                self.link(g);
                g
            }
        };
        self.set_reference(g, how != Entry::Migrate);
    }

    fn on_hit(&mut self, _slot: u32, lpn: u64, _write: bool) {
        let g = self.groups.of(lpn).expect("a buffered page has a group");
        self.set_reference(g, true);
    }

    fn on_remove(&mut self, slot: u32, lpn: u64) {
        let g = self.groups.of(lpn).expect("a buffered page has a group");
        if self.groups.len(g) == 1 {
            self.unreferenced.remove(&self.key(g));
            self.unlink(g);
            self.referenced[g as usize] = false;
            self.groups.remove(slot, lpn);
        } else {
            self.resize(g, |gr| {
                gr.remove(slot, lpn);
            });
        }
    }

    fn victims(&mut self, pages: &PageStore) -> Vec<u32> {
        assert_ne!(self.hand, NIL, "a full buffer has a block");
        while self.referenced[self.hand as usize] {
            let g = self.hand;
            self.set_reference(g, false);
            self.hand = self.next[g as usize];
        }
        let met = self.hand;
        let &(most, last) = self.unreferenced.last().expect("the hand met an unreferenced block");
        let victim = if self.groups.len(met) as u32 == most { met } else { last };
        if victim == met {
            self.hand = self.next[met as usize];
        }
        self.groups.sorted_slots(victim, pages)
    }

    fn validate(&self, pages: &PageStore) -> Result<(), String> {
        self.groups.validate(pages, "block clock")?;
        let live: Vec<u32> = self.groups.live().collect();
        if self.ring().len() != live.len() {
            return Err(format!("block clock: {} blocks on the ring, {} buffered", self.ring().len(), live.len()));
        }
        let clear: BTreeSet<(u32, u32)> =
            live.iter().filter(|&&g| !self.referenced[g as usize]).map(|&g| self.key(g)).collect();
        if clear != self.unreferenced {
            return Err(format!("block clock: unreferenced set {:?} should be {clear:?}", self.unreferenced));
        }
        Ok(())
    }
}
