//! Buffered pages grouped by logical flash block (`lpn / pages_per_block`), for the block-level
//! policies (LB-CLOCK, BPLRU, DWB's NV-CLOCK, CBM's block region). A group exists while it holds
//! at least one page, so group ids fit in `0..slots` and the policies keep their orders in flat
//! arrays indexed by group id.

use super::pages::PageStore;
use crate::fastmap::{self, FastMap};

/// A store's held pages grouped by logical block; a group id (`0..slots`) is reused once its
/// group is empty.
pub struct Groups {
    /// Pages per logical block: page `lpn` is in block `lpn / ppb`.
    pub ppb: u64,
    of_block: FastMap<u64, u32>,
    /// Per group id: its logical block (`u64::MAX` while the id is free).
    pub block: Vec<u64>,
    /// Per group id: the slots holding its pages, in no particular order.
    pub slots: Vec<Vec<u32>>,
    free: Vec<u32>,
}

impl Groups {
    /// Bytes of the groups of a store of `slots` slots: per group id its block, its slot list
    /// (a `Vec` header, and on the heap at most twice its pages, at least a 32-byte allocation
    /// when it holds one page) and a free-list entry, plus the block → group map.
    pub fn memory(slots: u64) -> u64 {
        use crate::memory::{map_bytes, vec_bytes};
        vec_bytes::<u64>(slots)
            + vec_bytes::<Vec<u32>>(slots)
            + vec_bytes::<u32>(slots)
            + slots.saturating_mul(32)
            + map_bytes::<u64, u32>(slots, false)
    }

    /// Room for as many groups as the store has slots.
    pub fn new(slots: u32, pages_per_block: u64) -> Self {
        assert!(pages_per_block > 0);
        Groups {
            ppb: pages_per_block,
            of_block: fastmap::with_capacity(slots as usize),
            block: vec![u64::MAX; slots as usize],
            slots: vec![Vec::new(); slots as usize],
            free: (0..slots).rev().collect(),
        }
    }

    /// Capacity in groups (= slots).
    pub fn capacity(&self) -> usize {
        self.block.len()
    }

    /// The group of `lpn`'s block, if it holds a page.
    pub fn of(&self, lpn: u64) -> Option<u32> {
        self.of_block.get(&(lpn / self.ppb)).copied()
    }

    /// Pages group `g` holds (0 for a free id).
    pub fn len(&self, g: u32) -> usize {
        self.slots[g as usize].len()
    }

    /// Record `slot` (holding `lpn`); returns its group and whether the group is new.
    pub fn add(&mut self, slot: u32, lpn: u64) -> (u32, bool) {
        let block = lpn / self.ppb;
        let (g, new) = match self.of_block.get(&block) {
            Some(&g) => (g, false),
            None => {
                let g = self.free.pop().expect("more groups than slots");
                self.of_block.insert(block, g);
                self.block[g as usize] = block;
                (g, true)
            }
        };
        self.slots[g as usize].push(slot);
        (g, new)
    }

    /// Forget `slot` (holding `lpn`); returns its group and whether the group is now gone.
    pub fn remove(&mut self, slot: u32, lpn: u64) -> (u32, bool) {
        let block = lpn / self.ppb;
        let g = *self.of_block.get(&block).expect("a buffered page has a group");
        let v = &mut self.slots[g as usize];
        let i = v.iter().position(|&s| s == slot).expect("slot in its group");
        v.swap_remove(i);
        if !v.is_empty() {
            return (g, false);
        }
        self.of_block.remove(&block);
        self.block[g as usize] = u64::MAX;
        self.free.push(g);
        (g, true)
    }

    /// Group `g`'s slots in page order (the write-back order).
    pub fn sorted_slots(&self, g: u32, pages: &PageStore) -> Vec<u32> {
        let mut v = self.slots[g as usize].clone();
        v.sort_unstable_by_key(|&s| pages.lpn[s as usize]);
        v
    }

    /// Live group ids, ascending.
    pub fn live(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.block.len() as u32).filter(|&g| self.block[g as usize] != u64::MAX)
    }

    /// Every held page is in the group of its block, and nothing else is.
    pub fn validate(&self, pages: &PageStore, name: &str) -> Result<(), String> {
        let mut grouped = 0;
        for (&b, &g) in &self.of_block {
            if self.block[g as usize] != b {
                return Err(format!("{name}: group {g} is block {} not {b}", self.block[g as usize]));
            }
            for &s in &self.slots[g as usize] {
                if !pages.is_held(s) || pages.lpn[s as usize] / self.ppb != b {
                    return Err(format!("{name}: slot {s} in group of block {b} holds lpn {}", pages.lpn[s as usize]));
                }
            }
            grouped += self.slots[g as usize].len();
        }
        if grouped != pages.len() {
            return Err(format!("{name}: {grouped} pages in groups, {} buffered", pages.len()));
        }
        Ok(())
    }
}
