//! Reuse distance: for each access to a page seen before, the LRU stack distance — how many
//! distinct other pages were touched since its previous access. An LRU buffer of C pages hits
//! exactly the re-accesses at distance < C, so the distribution says how much any buffer of a
//! given size can gain (DWB paper, Fig. 9: "the ratio of re-access distances within the buffer
//! size").
//!
//! A Fenwick tree over access times holds a 1 at each page's latest access; the distance of a
//! re-access at time t to a page last seen at t0 is the sum over (t0, t). O(log n) per access;
//! when time outgrows the tree, the latest accesses are renumbered 1..=n in order and the tree
//! rebuilt for twice the pages seen, so its size follows the pages touched, not the run
//! length. Distances are kept in power-of-two buckets, so [`ReuseSummary::within`] is exact for power-of-two sizes.

use crate::fastmap::FastMap;

/// Reuse distances of a stream of page accesses: each page's latest access in a Fenwick tree,
/// distances counted in power-of-two buckets.
#[derive(Clone, Debug, Default)]
pub struct ReuseDistance {
    last: FastMap<u64, u64>,
    /// Fenwick tree, 1-based over times 1..tree.len()-1.
    tree: Vec<u32>,
    now: u64,
    /// Accesses recorded (times are renumbered, this is not).
    accesses: u64,
    /// `buckets[0]`: distance 0; `buckets[k]`, k ≥ 1: 2^(k-1) ≤ distance < 2^k.
    buckets: Vec<u64>,
    first_accesses: u64,
}

/// LRU stack distances of page re-accesses (`sim.reuse_distance`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ReuseSummary {
    /// Page accesses (reads and writes) of the measured phase.
    pub accesses: u64,
    /// Accesses to pages not seen before (no distance).
    pub first_accesses: u64,
    /// (distance upper bound, exclusive; re-accesses with a distance from the previous bound up
    /// to it), ascending; distances in distinct pages.
    pub histogram: Vec<(u64, u64)>,
    /// Share of re-accesses an LRU buffer of the run's buffer size would hit.
    pub within_buffer: Option<f64>,
}

impl ReuseDistance {
    /// Nothing recorded, with a tree of 4096 access times (it grows as pages are seen).
    pub fn new() -> Self {
        ReuseDistance { tree: vec![0; 1 << 12], ..Default::default() }
    }

    fn add(&mut self, mut i: usize, delta: i32) {
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    fn prefix(&self, mut i: usize) -> u64 {
        let mut s = 0u64;
        while i > 0 {
            s += self.tree[i] as u64;
            i &= i - 1;
        }
        s
    }

    /// Time outgrew the tree: number the pages' latest accesses 1..=n in their order (distances
    /// count pages between two accesses, so they do not change) and size the tree for twice
    /// the pages seen, so it is bounded by the pages touched, not the accesses made.
    fn renumber(&mut self) {
        let mut order: Vec<(u64, u64)> = Vec::with_capacity(self.last.len());
        order.extend(self.last.iter().map(|(&lpn, &t)| (t, lpn)));
        order.sort_unstable();
        let len = (2 * (order.len() + 1)).next_power_of_two().max(1 << 12);
        self.tree = Vec::new();
        self.tree = vec![0; len];
        for (i, &(_, lpn)) in order.iter().enumerate() {
            let t = i as u64 + 1;
            self.last.insert(lpn, t);
            self.add(t as usize, 1);
        }
        self.now = order.len() as u64 + 1;
    }

    /// Bytes for `pages` distinct pages: the latest-access map (grown by inserts), the tree (at
    /// most a power of two ≥ twice the pages, and while renumbering the old one beside it) and
    /// the renumbering's sorted copy of the map.
    pub fn memory(pages: u64) -> u64 {
        use crate::memory::{map_bytes, vec_bytes};
        let tree = vec_bytes::<u32>((2 * (pages + 1)).checked_next_power_of_two().unwrap_or(u64::MAX).max(1 << 12));
        map_bytes::<u64, u64>(pages, true) + 2 * tree + vec_bytes::<(u64, u64)>(pages)
    }

    /// Record an access to `lpn`.
    pub fn access(&mut self, lpn: u64) {
        self.now += 1;
        self.accesses += 1;
        if self.now as usize >= self.tree.len() {
            self.renumber();
        }
        let t = self.now as usize;
        match self.last.insert(lpn, self.now) {
            Some(t0) => {
                let d = self.prefix(t - 1) - self.prefix(t0 as usize);
                let k = if d == 0 { 0 } else { 64 - d.leading_zeros() as usize };
                if self.buckets.len() <= k {
                    self.buckets.resize(k + 1, 0);
                }
                self.buckets[k] += 1;
                self.add(t0 as usize, -1);
            }
            None => self.first_accesses += 1,
        }
        self.add(t, 1);
    }

    /// The distances so far; `within_buffer` is the share of re-accesses an LRU buffer of
    /// `buffer_pages` pages would hit (`None` without a size).
    pub fn summary(&self, buffer_pages: Option<u64>) -> ReuseSummary {
        let mut s = ReuseSummary {
            accesses: self.accesses,
            first_accesses: self.first_accesses,
            histogram: self.buckets.iter().enumerate().map(|(k, &c)| (1u64 << k, c)).collect(),
            within_buffer: None,
        };
        s.within_buffer = buffer_pages.and_then(|p| s.within(p));
        s
    }
}

impl ReuseSummary {
    /// Re-accesses at distance < `pages` (what an LRU buffer of `pages` pages hits), as a share
    /// of all re-accesses; exact when `pages` is a power of two, rounded down to one otherwise.
    pub fn within(&self, pages: u64) -> Option<f64> {
        let total: u64 = self.histogram.iter().map(|b| b.1).sum();
        if total == 0 || pages == 0 {
            return None;
        }
        // Bucket bounds are powers of two: those up to `pages` hold distances below it.
        let hit: u64 = self.histogram.iter().filter(|b| b.0 <= pages).map(|b| b.1).sum();
        Some(hit as f64 / total as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: distinct pages strictly between the two accesses.
    fn naive(seq: &[u64]) -> Vec<Option<u64>> {
        (0..seq.len())
            .map(|i| {
                let j = (0..i).rev().find(|&j| seq[j] == seq[i])?;
                let mut seen: Vec<u64> = seq[j + 1..i].to_vec();
                seen.sort_unstable();
                seen.dedup();
                Some(seen.len() as u64)
            })
            .collect()
    }

    #[test]
    fn distances_match_brute_force_across_tree_growth() {
        let mut x = 99u64;
        let seq: Vec<u64> = (0..9000)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let r = x >> 33;
                if r.is_multiple_of(4) {
                    r % 3000
                } else {
                    r % 40
                }
            })
            .collect();
        let mut rd = ReuseDistance::new();
        let mut want = vec![0u64; 16];
        for (&l, d) in seq.iter().zip(naive(&seq)) {
            rd.access(l);
            if let Some(d) = d {
                want[if d == 0 { 0 } else { 64 - d.leading_zeros() as usize }] += 1;
            }
        }
        let got: Vec<u64> = (0..16).map(|k| rd.buckets.get(k).copied().unwrap_or(0)).collect();
        assert_eq!(got, want);
        assert_eq!(rd.first_accesses, seq.iter().collect::<std::collections::HashSet<_>>().len() as u64);
    }

    #[test]
    fn a_loop_of_n_pages_has_distance_n_minus_one() {
        let mut rd = ReuseDistance::new();
        for i in 0..50u64 {
            rd.access(i % 5);
        }
        // Distance 4 everywhere: an LRU of 4 pages hits nothing, one of 5 (≥ 8 here) everything.
        assert_eq!(rd.summary(None).within(4), Some(0.0));
        assert_eq!(rd.summary(None).within(8), Some(1.0));
        assert_eq!(rd.summary(None).first_accesses, 5);
    }
}
