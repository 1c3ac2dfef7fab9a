//! Which metadata sectors (FAT copy 1 and directory sectors) a driver with a bounded sector
//! cache would hold: a least-recently-used set of absolute sector numbers. The contents stay in
//! the file system's mirrors (the whole FAT, every directory sector seen); this set only decides
//! which accesses reach the device as reads and when a dirty sector is written on eviction.

use std::collections::{BTreeMap, HashMap};

/// What a bounded metadata cache cost (all zero when the cache is unbounded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MetadataStats {
    /// FAT sectors read from the device on a miss.
    pub fat_reads: u64,
    /// Directory sectors read from the device on a miss.
    pub dir_reads: u64,
    /// Dirty sectors written because they were evicted (write-back modes only); a FAT sector
    /// counts once although it is written to every FAT copy.
    pub evict_writes: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct MetaCache {
    /// `None`: unbounded (the FAT is mirrored at mount, directory sectors stay after their
    /// first read), so nothing is ever read again.
    capacity: Option<u32>,
    clock: u64,
    stamp_of: HashMap<u64, u64>,
    by_stamp: BTreeMap<u64, u64>,
    pub stats: MetadataStats,
}

impl MetaCache {
    pub fn new(capacity: Option<u32>) -> Self {
        MetaCache { capacity, ..Default::default() }
    }

    pub fn bounded(&self) -> bool {
        self.capacity.is_some()
    }

    /// Make `s` the most recently used sector; `false` when it was not cached (now it is).
    pub fn touch(&mut self, s: u64) -> bool {
        self.clock += 1;
        let hit = match self.stamp_of.insert(s, self.clock) {
            Some(old) => {
                self.by_stamp.remove(&old);
                true
            }
            None => false,
        };
        self.by_stamp.insert(self.clock, s);
        hit
    }

    pub fn remove(&mut self, s: u64) {
        if let Some(stamp) = self.stamp_of.remove(&s) {
            self.by_stamp.remove(&stamp);
        }
    }

    /// Up to the number of sectors over capacity, least recently used first, skipping
    /// `keep` and sectors `pinned` says must stay.
    pub fn victims(&self, keep: u64, pinned: impl Fn(u64) -> bool) -> Vec<u64> {
        let Some(cap) = self.capacity else { return Vec::new() };
        let over = self.stamp_of.len().saturating_sub(cap as usize);
        self.by_stamp.values().copied().filter(|&s| s != keep && !pinned(s)).take(over).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_and_skips_pinned() {
        let mut c = MetaCache::new(Some(2));
        assert!(!c.touch(10));
        assert!(!c.touch(11));
        assert!(c.touch(10)); // 11 is now the oldest
        assert!(!c.touch(12));
        assert_eq!(c.victims(12, |_| false), vec![11]);
        assert_eq!(c.victims(12, |s| s == 11), vec![10]);
        c.remove(11);
        assert!(c.victims(12, |_| false).is_empty());
        assert!(MetaCache::new(None).victims(0, |_| false).is_empty());
    }
}
