//! In-memory directory indexes: what a linear scan of a directory would find, answered without
//! scanning. A directory is indexed once every one of its sectors is in the directory mirror
//! (always, for directories this model created); until then lookups scan as before.
//!
//! The index changes nothing the device sees or the bounded metadata cache counts: a lookup
//! charges exactly the sectors the linear scan would have visited (from the directory's first
//! sector up to the one where the scan stops: the name's entry, else the first never-used entry,
//! else the last sector) and the FAT sectors of the directory's chain, in the scan's order.
//! Every change to an indexed sector passes through [`FatFs::write_entry`] (which updates the
//! index), a chained directory grows only in `free_slot` (which extends it) and shrinks only by
//! `rmdir` (which drops it).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::dir::{parse_entry, DirLoc, Entry, Scan, Slot, ATTR_DIRECTORY, ATTR_LFN, ATTR_VOLUME_ID, DELETED};
use super::FatFs;
use crate::blockdev::BlockDevice;
use flashlab::error::Error;

/// What a linear scan makes of one 32-byte entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// First byte 0: never used; a scan stops here.
    End,
    Deleted,
    /// `.`/`..`, a volume label or a long-name part: passed over.
    Skip,
    Live {
        name: [u8; 11],
        first: u32,
        dir: bool,
    },
}

fn kind(e: &[u8]) -> Kind {
    match e[0] {
        0 => Kind::End,
        DELETED => Kind::Deleted,
        _ if e[11] == ATTR_LFN || e[11] & ATTR_VOLUME_ID != 0 || e[0] == b'.' => Kind::Skip,
        _ => {
            let u16_at = |o: usize| u16::from_le_bytes([e[o], e[o + 1]]) as u32;
            Kind::Live {
                name: e[..11].try_into().expect("an entry is 32 bytes"),
                first: (u16_at(20) << 16) | u16_at(26),
                dir: e[11] & ATTR_DIRECTORY != 0,
            }
        }
    }
}

/// One directory's entries by name, by first cluster and by state; positions count 32-byte
/// entries from the directory's first sector.
#[derive(Debug, Default)]
pub(crate) struct DirIndex {
    /// The directory's sectors in order.
    sectors: Vec<u64>,
    /// A chained directory's clusters in order (empty for FAT16's fixed root).
    clusters: Vec<u32>,
    names: HashMap<[u8; 11], u32>,
    /// Live entries' first clusters (≥ 2), files and directories.
    firsts: HashMap<u32, u32>,
    /// Subdirectory entries: position → first cluster.
    subdirs: BTreeMap<u32, u32>,
    deleted: BTreeSet<u32>,
    ends: BTreeSet<u32>,
    /// A name or a first cluster appears twice (a damaged or foreign volume): the index cannot
    /// stand for the scan, which returns the first of them, and is dropped.
    ambiguous: bool,
}

impl DirIndex {
    fn remove(&mut self, pos: u32, k: Kind) {
        match k {
            Kind::End => {
                self.ends.remove(&pos);
            }
            Kind::Deleted => {
                self.deleted.remove(&pos);
            }
            Kind::Skip => {}
            Kind::Live { name, first, dir } => {
                if self.names.get(&name) == Some(&pos) {
                    self.names.remove(&name);
                }
                if self.firsts.get(&first) == Some(&pos) {
                    self.firsts.remove(&first);
                }
                if dir {
                    self.subdirs.remove(&pos);
                }
            }
        }
    }

    fn add(&mut self, pos: u32, k: Kind) {
        match k {
            Kind::End => {
                self.ends.insert(pos);
            }
            Kind::Deleted => {
                self.deleted.insert(pos);
            }
            Kind::Skip => {}
            Kind::Live { name, first, dir } => {
                self.ambiguous |= self.names.insert(name, pos).is_some();
                if first >= 2 {
                    self.ambiguous |= self.firsts.insert(first, pos).is_some();
                }
                if dir {
                    self.subdirs.insert(pos, first);
                }
            }
        }
    }
}

/// A file found by [`FatFs::files_in_clusters`]: where its entry is and its chain.
#[derive(Clone, Debug)]
pub struct FileRef {
    pub(crate) slot: Slot,
    /// Its clusters, in order.
    pub chain: Vec<u32>,
}

impl FileRef {
    /// Where its directory entry is: (sector, byte offset), the file's identity.
    pub fn slot(&self) -> (u64, u32) {
        (self.slot.sector, self.slot.offset)
    }
}

impl<D: BlockDevice> FatFs<D> {
    fn entries_per_sector(&self) -> u32 {
        self.layout.bytes_per_sector / 32
    }

    fn slot_at(&self, ix: &DirIndex, pos: u32) -> Slot {
        let eps = self.entries_per_sector();
        Slot { sector: ix.sectors[(pos / eps) as usize], offset: (pos % eps) * 32 }
    }

    /// Index `dir` if every sector of it is in the mirror; `false` when it cannot be (not all
    /// read yet, a broken chain, or an ambiguous directory): the caller scans instead.
    pub(crate) fn ensure_index(&mut self, dir: DirLoc, path: &str) -> bool {
        #[cfg(test)]
        if self.scan_only {
            return false;
        }
        if self.dirs.contains_key(&dir) {
            return true;
        }
        let (sectors, clusters) = match dir {
            DirLoc::FixedRoot => {
                let first = self.layout.root_dir_first_sector() as u64;
                ((first..first + self.layout.root_dir_sectors as u64).collect::<Vec<_>>(), Vec::new())
            }
            DirLoc::Chain(first) => {
                let Ok(chain) = self.table.chain(first, path) else { return false };
                if chain.is_empty() {
                    return false;
                }
                let spc = self.layout.sectors_per_cluster as u64;
                let sectors = chain
                    .iter()
                    .flat_map(|&c| {
                        let s = self.layout.cluster_first_sector(c);
                        s..s + spc
                    })
                    .collect();
                (sectors, chain)
            }
        };
        if !sectors.iter().all(|s| self.dir_cache.contains_key(s)) {
            return false;
        }
        let mut ix = DirIndex { sectors, clusters, ..Default::default() };
        let eps = self.entries_per_sector();
        for (i, s) in ix.sectors.clone().iter().enumerate() {
            for (j, e) in self.dir_cache[s].chunks_exact(32).enumerate() {
                ix.add(i as u32 * eps + j as u32, kind(e));
            }
        }
        if ix.ambiguous {
            return false;
        }
        for (i, &s) in ix.sectors.iter().enumerate() {
            self.sector_dir.insert(s, (dir, i as u32 * eps));
        }
        self.dirs.insert(dir, ix);
        true
    }

    /// Forget `dir`'s index (its sectors are about to leave the mirror).
    pub(crate) fn drop_index(&mut self, dir: DirLoc) {
        if let Some(ix) = self.dirs.remove(&dir) {
            for s in ix.sectors {
                self.sector_dir.remove(&s);
            }
        }
    }

    /// The entry at `slot` is about to become `new`: keep its directory's index in step.
    pub(crate) fn index_entry_write(&mut self, slot: Slot, new: &[u8; 32]) {
        let Some(&(dir, base)) = self.sector_dir.get(&slot.sector) else { return };
        let old = kind(&self.dir_cache[&slot.sector][slot.offset as usize..][..32]);
        let ix = self.dirs.get_mut(&dir).expect("an indexed sector belongs to an indexed directory");
        let pos = base + slot.offset / 32;
        ix.remove(pos, old);
        ix.add(pos, kind(new));
        if ix.ambiguous {
            self.drop_index(dir);
        }
    }

    /// Chained directory `dir` grew by zeroed cluster `c` (already linked in the FAT).
    pub(crate) fn index_grow(&mut self, dir: DirLoc, c: u32) {
        let eps = self.entries_per_sector();
        let spc = self.layout.sectors_per_cluster;
        let first = self.layout.cluster_first_sector(c);
        let Some(ix) = self.dirs.get_mut(&dir) else { return };
        for s in first..first + spc as u64 {
            let base = ix.sectors.len() as u32 * eps;
            ix.sectors.push(s);
            ix.ends.extend(base..base + eps);
            self.sector_dir.insert(s, (dir, base));
        }
        ix.clusters.push(c);
    }

    /// [`FatFs::scan`] of `dir` for `name`, from the index when there is one: the same result
    /// and the same charges to a bounded metadata cache.
    pub(crate) fn find(&mut self, dir: DirLoc, path: &str, name: &[u8; 11]) -> Result<Scan, Error> {
        if !self.ensure_index(dir, path) {
            return self.scan(dir, path, |e| e.name == *name);
        }
        let eps = self.entries_per_sector();
        let ix = &self.dirs[&dir];
        let end = ix.ends.first().copied();
        let found = ix.names.get(name).copied().filter(|&p| end.is_none_or(|e| p < e));
        let first_free = match (ix.deleted.first().copied(), end) {
            (Some(d), Some(e)) => Some(d.min(e)),
            (d, e) => d.or(e),
        };
        let free = first_free.filter(|&f| found.is_none_or(|p| f < p));
        // The scan stops at the name, else at the first never-used entry, else at the end.
        let visited = found.or(end).map_or(ix.sectors.len(), |p| (p / eps) as usize + 1);
        let scan = Scan {
            found: found.map(|p| {
                let slot = self.slot_at(ix, p);
                parse_entry(slot, &self.dir_cache[&slot.sector][slot.offset as usize..][..32])
            }),
            free: free.map(|p| self.slot_at(ix, p)),
            last_cluster: ix.clusters.last().copied(),
        };
        if self.meta.bounded() && self.charge {
            let fat: Vec<u64> = ix.clusters.iter().map(|&c| self.fat_sector_of(c)).collect();
            let dir_sectors = ix.sectors[..visited].to_vec();
            let mut last = None;
            for s in fat {
                if last != Some(s) {
                    self.meta_touch(s, true)?;
                    last = Some(s);
                }
            }
            for s in dir_sectors {
                self.meta_touch(s, true)?;
            }
        }
        Ok(scan)
    }

    /// The entry at `slot` as the mirror holds it now.
    pub(crate) fn entry_at(&self, slot: Slot) -> Entry {
        parse_entry(slot, &self.dir_cache[&slot.sector][slot.offset as usize..][..32])
    }

    /// Directories in the order [`FatFs::files`] visits them (a directory, then each of its
    /// subdirectories in entry order, depth first), all indexed; `None` if one cannot be.
    fn dirs_in_order(&mut self) -> Option<Vec<DirLoc>> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(dir) = stack.pop() {
            if !self.ensure_index(dir, "/") {
                return None;
            }
            out.push(dir);
            stack.extend(self.dirs[&dir].subdirs.values().rev().map(|&c| DirLoc::Chain(c)));
            if out.len() > self.layout.cluster_count as usize {
                return None;
            }
        }
        Some(out)
    }

    /// The files with a cluster in `count` clusters from `first`, in [`FatFs::files`]'s order,
    /// found from the clusters (each cluster's chain back to its first cluster, then the entry
    /// with that first cluster) rather than by listing every file. A model hook: no device I/O,
    /// nothing charged.
    pub fn files_in_clusters(&mut self, first: u32, count: u32) -> Result<Vec<FileRef>, Error> {
        let Some(order) = self.dirs_in_order() else { return self.files_in_clusters_by_listing(first, count) };
        let mut heads: Vec<u32> = Vec::new();
        for c in (first..first + count).filter(|&c| self.table.is_cluster(c) && !self.table.is_free(c)) {
            match self.table.head(c) {
                Some(h) if !heads.contains(&h) => heads.push(h),
                Some(_) => {}
                None => return self.files_in_clusters_by_listing(first, count),
            }
        }
        let mut found: Vec<(usize, u32, u32)> = Vec::new();
        for (rank, dir) in order.iter().enumerate() {
            let ix = &self.dirs[dir];
            for &h in &heads {
                if let Some(&pos) = ix.firsts.get(&h) {
                    if !ix.subdirs.contains_key(&pos) {
                        found.push((rank, pos, h));
                    }
                }
            }
        }
        found.sort_unstable();
        let mut out = Vec::with_capacity(found.len());
        for (rank, pos, h) in found {
            let slot = self.slot_at(&self.dirs[&order[rank]], pos);
            out.push(FileRef { slot, chain: self.table.chain(h, "files_in_clusters")? });
        }
        Ok(out)
    }

    /// [`FatFs::files_in_clusters`] by listing every file (a volume not fully indexed).
    fn files_in_clusters_by_listing(&mut self, first: u32, count: u32) -> Result<Vec<FileRef>, Error> {
        let in_range = |c: &u32| (first..first + count).contains(c);
        let mut out = Vec::new();
        for (path, chain) in self.files()? {
            if chain.iter().any(in_range) {
                let was = std::mem::replace(&mut self.charge, false);
                let e = self.entry(&path);
                self.charge = was;
                out.push(FileRef { slot: e?.slot, chain });
            }
        }
        Ok(out)
    }

    /// The file at `path` (not a directory) and its chain, looked up without charging a
    /// bounded metadata cache (a model hook); `None` if there is no such file.
    pub fn file_ref(&mut self, path: &str) -> Result<Option<FileRef>, Error> {
        let was = std::mem::replace(&mut self.charge, false);
        let e = self.locate(path).map(|l| l.2.found);
        self.charge = was;
        match e {
            Ok(Some(e)) if !e.is_dir() => Ok(Some(FileRef { slot: e.slot, chain: self.table.chain(e.first, path)? })),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockdev::MemDisk;
    use crate::defrag::{on_close, DefragStats, Threshold};
    use crate::{FatType, FormatOptions, Metadata};

    /// A memory disk that logs every transfer (kind, first sector, bytes).
    struct Logged {
        disk: MemDisk,
        log: Vec<(char, u64, usize)>,
    }

    impl BlockDevice for Logged {
        fn sector_size(&self) -> u32 {
            self.disk.sector_size()
        }
        fn sectors(&self) -> u64 {
            self.disk.sectors()
        }
        fn read(&mut self, first: u64, buf: &mut [u8]) -> Result<(), Error> {
            self.log.push(('r', first, buf.len()));
            self.disk.read(first, buf)
        }
        fn write(&mut self, first: u64, data: &[u8]) -> Result<(), Error> {
            self.log.push(('w', first, data.len()));
            self.disk.write(first, data)
        }
    }

    fn volume(scan_only: bool, cache: Option<u32>, name_index: bool, metadata: Metadata) -> FatFs<Logged> {
        let disk = Logged { disk: MemDisk::new(8192, 512).unwrap(), log: Vec::new() };
        let opts = FormatOptions {
            fat_type: FatType::Fat16,
            sectors_per_cluster: 1,
            data_align_sectors: 16,
            flash_block_sectors: 16,
            ..FormatOptions::default()
        };
        let mut fs = FatFs::format(disk, opts).unwrap();
        fs.scan_only = scan_only;
        fs.set_metadata_cache(cache).unwrap();
        fs.set_name_index(name_index);
        fs.set_metadata(metadata).unwrap();
        fs
    }

    /// One step of a seeded random workload: create, write, close (with close-time
    /// defragmentation), delete, mkdir, rmdir, over a few directories; errors are part of the
    /// result (a full root, a missing file).
    fn step<D: BlockDevice>(fs: &mut FatFs<D>, r: u64, stats: &mut DefragStats) -> String {
        let dirs = ["/", "/A", "/A/B", "/C"];
        let dir = dirs[(r % 4) as usize];
        let name = format!("{}/F{}.DAT", dir.trim_end_matches('/'), (r >> 8) % 97);
        let res = match (r >> 4) % 8 {
            0..=3 => fs.create(&name).and_then(|fd| {
                fs.write(fd, &vec![(r >> 16) as u8; ((r >> 20) % 3000) as usize])?;
                fs.close(fd)?;
                on_close(fs, &name, Threshold(Some(4)), stats)
            }),
            4 | 5 => fs.delete(&name),
            6 => fs.mkdir(dirs[1 + ((r >> 12) % 3) as usize]),
            _ => fs.rmdir(dirs[1 + ((r >> 12) % 3) as usize]),
        };
        format!("{res:?}")
    }

    /// With indexes, every lookup, close-time defragmentation and metadata charge gives the
    /// same transfers, in the same order, as the linear scans, under each metadata cache and
    /// write-back mode: the index changes the model's speed, never what it counts.
    #[test]
    fn indexed_lookups_issue_the_same_transfers_as_scans() {
        let modes = [
            (None, true, Metadata::WriteThrough),
            (Some(4), true, Metadata::WriteThrough),
            (Some(4), false, Metadata::WriteThrough),
            (Some(2), false, Metadata::WriteBack),
            (Some(3), true, Metadata::Delayed(5)),
        ];
        for (cache, name_index, metadata) in modes {
            let mut a = volume(true, cache, name_index, metadata);
            let mut b = volume(false, cache, name_index, metadata);
            let (mut sa, mut sb) = (DefragStats::default(), DefragStats::default());
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for i in 0..3000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let (ra, rb) = (step(&mut a, x, &mut sa), step(&mut b, x, &mut sb));
                let what = format!("{cache:?}/{name_index}/{metadata:?} step {i}");
                assert_eq!(ra, rb, "{what}");
                assert_eq!(a.dev.log, b.dev.log, "{what}");
                assert_eq!(a.metadata_stats(), b.metadata_stats(), "{what}");
            }
            assert_eq!(sa, sb);
            // Every block's files, from the clusters and by listing, in the same order.
            let cpb = b.clusters_per_flash_block();
            let mut shared = 0;
            for block in 0..b.flash_blocks() {
                let first = 2 + block * cpb;
                let fast = b.files_in_clusters(first, cpb).unwrap();
                let listed = b.files_in_clusters_by_listing(first, cpb).unwrap();
                let key = |f: &Vec<FileRef>| f.iter().map(|f| (f.slot(), f.chain.clone())).collect::<Vec<_>>();
                assert_eq!(key(&fast), key(&listed), "block {block}");
                shared += (fast.len() > 1) as u32;
            }
            assert!(shared > 0, "some block holds several files");
            assert!(sa.clusters_moved > 0 && !b.dirs.is_empty(), "the workload defragments and indexes");
            a.sync().unwrap();
            b.sync().unwrap();
            assert!(a.dev.disk.image() == b.dev.disk.image());
        }
    }
}
