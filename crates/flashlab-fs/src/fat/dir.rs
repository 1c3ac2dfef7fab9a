//! Directories: 32-byte entries in the FAT16 fixed root region or in a cluster chain; path
//! lookup, entry insertion (growing a chained directory by one zeroed cluster when full),
//! `mkdir`, `rmdir`, `list`, `stat`. Entry layout per the FAT spec, section 6.

use super::name::{self, path_err};
use super::FatFs;
use crate::alloc::AllocRequest;
use crate::blockdev::BlockDevice;
use flashlab::error::Error;

pub(crate) const ATTR_DIRECTORY: u8 = 0x10;
pub(crate) const ATTR_VOLUME_ID: u8 = 0x08;
pub(crate) const ATTR_ARCHIVE: u8 = 0x20;
pub(crate) const ATTR_LFN: u8 = 0x0F;
pub(crate) const DELETED: u8 = 0xE5;
/// 2024-01-01, FAT date format ((year - 1980) << 9 | month << 5 | day).
const FIXED_DATE: u16 = ((2024 - 1980) << 9) | (1 << 5) | 1;

/// What `list` and `stat` report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntryInfo {
    /// "NAME.EXT" ("/" for the root).
    pub name: String,
    pub is_dir: bool,
    /// Bytes (0 for directories).
    pub size: u32,
    /// 0 for an empty file (and FAT16's root).
    pub first_cluster: u32,
}

/// A directory's storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DirLoc {
    FixedRoot,
    Chain(u32),
}

/// Sectors `first .. first + count` of a directory.
type SectorRun = (u64, u32);

/// Where a 32-byte entry lives: absolute sector and byte offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub sector: u64,
    pub offset: u32,
}

/// A live entry.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub slot: Slot,
    pub name: [u8; 11],
    pub attr: u8,
    pub first: u32,
    pub size: u32,
}

impl Entry {
    pub fn is_dir(&self) -> bool {
        self.attr & ATTR_DIRECTORY != 0
    }
    pub fn info(&self) -> DirEntryInfo {
        DirEntryInfo {
            name: name::from_short(&self.name),
            is_dir: self.is_dir(),
            size: self.size,
            first_cluster: self.first,
        }
    }
}

/// Result of scanning a directory.
pub(crate) struct Scan {
    /// The entry the visitor stopped at.
    pub found: Option<Entry>,
    /// First free slot (deleted or never used), if any before the visitor stopped.
    pub free: Option<Slot>,
    /// Last cluster of a chained directory.
    pub last_cluster: Option<u32>,
}

/// A 32-byte directory entry with the fixed timestamp.
pub(crate) fn make_entry(name: &[u8; 11], attr: u8, first: u32, size: u32) -> [u8; 32] {
    let mut e = [0u8; 32];
    e[..11].copy_from_slice(name);
    e[11] = attr;
    for o in [16, 18, 24] {
        e[o..o + 2].copy_from_slice(&FIXED_DATE.to_le_bytes());
    }
    e[20..22].copy_from_slice(&((first >> 16) as u16).to_le_bytes());
    e[26..28].copy_from_slice(&(first as u16).to_le_bytes());
    e[28..32].copy_from_slice(&size.to_le_bytes());
    e
}

pub(crate) fn parse_entry(slot: Slot, e: &[u8]) -> Entry {
    let u16_at = |o: usize| u16::from_le_bytes([e[o], e[o + 1]]) as u32;
    Entry {
        slot,
        name: e[..11].try_into().unwrap(),
        attr: e[11],
        first: (u16_at(20) << 16) | u16_at(26),
        size: u32::from_le_bytes(e[28..32].try_into().unwrap()),
    }
}

impl<D: BlockDevice> FatFs<D> {
    pub(crate) fn root(&self) -> DirLoc {
        match self.layout.root_cluster {
            0 => DirLoc::FixedRoot,
            c => DirLoc::Chain(c),
        }
    }

    /// Make sure sectors `first..first+count` are in the directory cache (one read if not).
    fn load_dir_sectors(&mut self, first: u64, count: u32) -> Result<(), Error> {
        if (first..first + count as u64).all(|s| self.dir_cache.contains_key(&s)) {
            return Ok(());
        }
        let bps = self.layout.bytes_per_sector as usize;
        let mut buf = vec![0u8; bps * count as usize];
        self.dev.read(first, &mut buf)?;
        for (i, sector) in buf.chunks_exact(bps).enumerate() {
            self.dir_cache.entry(first + i as u64).or_insert_with(|| sector.to_vec());
        }
        Ok(())
    }

    /// Runs of sectors (first, count) holding directory `dir`, in order, and the last cluster
    /// of a chained directory.
    fn dir_runs(&mut self, dir: DirLoc, path: &str) -> Result<(Vec<SectorRun>, Option<u32>), Error> {
        match dir {
            DirLoc::FixedRoot => {
                Ok((vec![(self.layout.root_dir_first_sector() as u64, self.layout.root_dir_sectors)], None))
            }
            DirLoc::Chain(first) => {
                let chain = self.fat_chain(first, path)?;
                let Some(&last) = chain.last() else {
                    return Err(path_err(path, "a directory on the way has no cluster (corrupt entry)"));
                };
                let spc = self.layout.sectors_per_cluster;
                Ok((chain.into_iter().map(|c| (self.layout.cluster_first_sector(c), spc)).collect(), Some(last)))
            }
        }
    }

    /// Visit the live entries of `dir` (not `.`/`..`, labels or long-name parts) in order until
    /// `stop` says so; also reports the first free slot seen.
    pub(crate) fn scan(
        &mut self,
        dir: DirLoc,
        path: &str,
        mut stop: impl FnMut(&Entry) -> bool,
    ) -> Result<Scan, Error> {
        let (runs, last_cluster) = self.dir_runs(dir, path)?;
        let mut scan = Scan { found: None, free: None, last_cluster };
        // A bounded cache reads sector by sector as the scan goes; otherwise a run at once.
        let per_sector = self.meta.bounded() && self.charge;
        for (first, count) in runs {
            if !per_sector {
                self.load_dir_sectors(first, count)?;
            }
            for s in first..first + count as u64 {
                if per_sector {
                    self.meta_touch(s, true)?;
                }
                let sector = &self.dir_cache[&s];
                for (i, e) in sector.chunks_exact(32).enumerate() {
                    let slot = Slot { sector: s, offset: (i * 32) as u32 };
                    if e[0] == 0 || e[0] == DELETED {
                        scan.free.get_or_insert(slot);
                        if e[0] == 0 {
                            return Ok(scan);
                        }
                        continue;
                    }
                    if e[11] == ATTR_LFN || e[11] & ATTR_VOLUME_ID != 0 || e[0] == b'.' {
                        continue;
                    }
                    let entry = parse_entry(slot, e);
                    if stop(&entry) {
                        scan.found = Some(entry);
                        return Ok(scan);
                    }
                }
            }
        }
        Ok(scan)
    }

    /// The directory at `comps` (all must be directories).
    fn walk_dirs(&mut self, path: &str, comps: &[[u8; 11]]) -> Result<DirLoc, Error> {
        let mut dir = self.root();
        for comp in comps {
            let e = self.find(dir, path, comp)?.found;
            dir = match e {
                Some(e) if e.is_dir() && e.first >= 2 => DirLoc::Chain(e.first),
                Some(e) if e.is_dir() => {
                    return Err(path_err(path, format!("directory `{}` has no cluster", name::from_short(comp))))
                }
                Some(_) => return Err(path_err(path, format!("`{}` is not a directory", name::from_short(comp)))),
                None => return Err(path_err(path, format!("no such directory `{}`", name::from_short(comp)))),
            };
        }
        Ok(dir)
    }

    /// Parent directory and last name of a non-root path, plus the scan for that name.
    /// With a name index ([`FatFs::set_name_index`]) the walk and the scan are not charged to
    /// the bounded metadata cache: the driver finds the name in memory.
    pub(crate) fn locate(&mut self, path: &str) -> Result<(DirLoc, [u8; 11], Scan), Error> {
        let charge = self.charge;
        self.charge = charge && !self.name_index;
        let found = self.locate_charged(path);
        self.charge = charge;
        found
    }

    fn locate_charged(&mut self, path: &str) -> Result<(DirLoc, [u8; 11], Scan), Error> {
        let comps = name::split(path)?;
        let Some((last, parents)) = comps.split_last() else {
            return Err(path_err(path, "the root directory cannot be used here"));
        };
        let dir = self.walk_dirs(path, parents)?;
        let scan = self.find(dir, path, last)?;
        Ok((dir, *last, scan))
    }

    /// The existing entry at `path`.
    pub(crate) fn entry(&mut self, path: &str) -> Result<Entry, Error> {
        self.locate(path)?.2.found.ok_or_else(|| path_err(path, "no such file or directory"))
    }

    /// Overwrite the 32-byte entry at `slot` and write its sector.
    pub(crate) fn write_entry(&mut self, slot: Slot, raw: &[u8; 32]) -> Result<(), Error> {
        self.meta_touch(slot.sector, true)?;
        self.index_entry_write(slot, raw);
        let sector = self.dir_cache.get_mut(&slot.sector).expect("directory sector written before it was read");
        sector[slot.offset as usize..slot.offset as usize + 32].copy_from_slice(raw);
        if self.metadata.deferred() {
            self.dir_dirty.insert(slot.sector);
            return Ok(());
        }
        self.dev.write(slot.sector, sector)
    }

    /// Update size and first cluster of the entry at `slot`.
    pub(crate) fn update_entry(&mut self, slot: Slot, first: u32, size: u32) -> Result<(), Error> {
        let sector = &self.dir_cache[&slot.sector];
        let mut raw: [u8; 32] = sector[slot.offset as usize..slot.offset as usize + 32].try_into().unwrap();
        raw[20..22].copy_from_slice(&((first >> 16) as u16).to_le_bytes());
        raw[26..28].copy_from_slice(&(first as u16).to_le_bytes());
        raw[28..32].copy_from_slice(&size.to_le_bytes());
        self.write_entry(slot, &raw)
    }

    /// Write a zeroed cluster `c` (with `head` at its start) and cache it as directory sectors.
    fn write_dir_cluster(&mut self, c: u32, head: &[u8]) -> Result<(), Error> {
        let bps = self.layout.bytes_per_sector as usize;
        let mut buf = vec![0u8; self.layout.cluster_bytes() as usize];
        buf[..head.len()].copy_from_slice(head);
        let first = self.layout.cluster_first_sector(c);
        self.dev.write(first, &buf)?;
        for (i, s) in buf.chunks_exact(bps).enumerate() {
            self.dir_cache.insert(first + i as u64, s.to_vec());
            self.dir_dirty.remove(&(first + i as u64));
        }
        for i in 0..buf.len() / bps {
            self.meta_touch(first + i as u64, false)?;
        }
        Ok(())
    }

    /// A free slot in `dir` (`scan` of it given): the scan's, or the first entry of a new
    /// zeroed cluster linked to the chain (writes: cluster, then FAT).
    pub(crate) fn free_slot(&mut self, dir: DirLoc, scan: &Scan, path: &str) -> Result<Slot, Error> {
        if let Some(slot) = scan.free {
            return Ok(slot);
        }
        let (DirLoc::Chain(first), Some(last)) = (dir, scan.last_cluster) else {
            return Err(path_err(
                path,
                format!(
                    "the FAT16 root directory is full ({} entries); put files in a subdirectory",
                    self.layout.root_entries
                ),
            ));
        };
        // A FAT directory is a file whose length is its chain: with directory sizing on, the
        // allocator sees the size it will have with the new cluster (a large directory is a
        // large file to AFCA); off, every directory asks as size 0 (always "small").
        let size = if self.size_directories {
            (self.table.chain(first, path)?.len() as u64 + 1) * self.layout.cluster_bytes() as u64
        } else {
            0
        };
        let req = AllocRequest { file_size_bytes: size, last_cluster: Some(last), first_cluster: Some(first) };
        let c = self.alloc_cluster(req)?.ok_or_else(|| self.full_err(path))?;
        self.write_dir_cluster(c, &[])?;
        self.fat_set(last, c)?;
        self.index_grow(dir, c);
        self.flush_fat()?;
        Ok(Slot { sector: self.layout.cluster_first_sector(c), offset: 0 })
    }

    pub(crate) fn full_err(&self, path: &str) -> Error {
        path_err(path, format!("file system full: all {} clusters are in use", self.layout.cluster_count))
    }

    /// Create directory `path` (its parent must exist; error if the name exists).
    pub fn mkdir(&mut self, path: &str) -> Result<(), Error> {
        let (dir, name, scan) = self.locate(path)?;
        if scan.found.is_some() {
            return Err(path_err(path, "already exists"));
        }
        let slot = self.free_slot(dir, &scan, path)?;
        let size = if self.size_directories { self.layout.cluster_bytes() as u64 } else { 0 };
        let req = AllocRequest { file_size_bytes: size, last_cluster: None, first_cluster: None };
        let c = self.alloc_cluster(req)?.ok_or_else(|| self.full_err(path))?;
        let parent = match dir {
            DirLoc::Chain(p) if p != self.layout.root_cluster => p,
            _ => 0,
        };
        let mut head = [0u8; 64];
        head[..32].copy_from_slice(&make_entry(b".          ", ATTR_DIRECTORY, c, 0));
        head[32..].copy_from_slice(&make_entry(b"..         ", ATTR_DIRECTORY, parent, 0));
        self.write_dir_cluster(c, &head)?;
        self.flush_fat()?;
        self.write_entry(slot, &make_entry(&name, ATTR_DIRECTORY, c, 0))?;
        self.op_done()
    }

    /// Remove the empty directory `path`: entry first, then its chain is freed.
    pub fn rmdir(&mut self, path: &str) -> Result<(), Error> {
        let e = self.entry(path)?;
        if !e.is_dir() {
            return Err(path_err(path, "not a directory"));
        }
        if self.scan(DirLoc::Chain(e.first), path, |_| true)?.found.is_some() {
            return Err(path_err(path, "directory not empty"));
        }
        let chain = self.fat_chain(e.first, path)?;
        self.delete_entry(e.slot)?;
        self.drop_index(DirLoc::Chain(e.first));
        let spc = self.layout.sectors_per_cluster as u64;
        for &c in &chain {
            self.fat_set(c, 0)?;
            let first = self.layout.cluster_first_sector(c);
            for s in first..first + spc {
                self.dir_cache.remove(&s);
                // The freed cluster's pending entry changes no longer matter.
                self.dir_dirty.remove(&s);
                self.meta.remove(s);
            }
        }
        self.flush_fat()?;
        self.op_done()
    }

    /// Mark the entry at `slot` deleted (writes its sector).
    pub(crate) fn delete_entry(&mut self, slot: Slot) -> Result<(), Error> {
        let mut raw: [u8; 32] = self.dir_cache[&slot.sector][slot.offset as usize..][..32].try_into().unwrap();
        raw[0] = DELETED;
        self.write_entry(slot, &raw)
    }

    /// Entries of directory `path` in on-disk order.
    pub fn list(&mut self, path: &str) -> Result<Vec<DirEntryInfo>, Error> {
        let comps = name::split(path)?;
        let dir = self.walk_dirs(path, &comps)?;
        let mut out = Vec::new();
        self.scan(dir, path, |e| {
            out.push(e.info());
            false
        })?;
        Ok(out)
    }

    /// Information about `path` ("/" is the root directory).
    pub fn stat(&mut self, path: &str) -> Result<DirEntryInfo, Error> {
        if name::split(path)?.is_empty() {
            return Ok(DirEntryInfo {
                name: "/".into(),
                is_dir: true,
                size: 0,
                first_cluster: self.layout.root_cluster,
            });
        }
        Ok(self.entry(path)?.info())
    }
}
