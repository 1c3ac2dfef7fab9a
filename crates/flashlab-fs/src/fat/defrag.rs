//! Hooks for defragmentation: enumerate every file's chain, map clusters to sectors and flash
//! blocks, and [`FatFs::relocate`] a file's clusters after the caller copied their data.
//!
//! Relocation write order (each step writes its changed FAT sectors to both copies before the
//! next; a step with no change writes nothing), so that after every single write the file's
//! chain reads the same bytes and the old chain stays intact until it is freed last:
//! 1. link the new clusters among themselves (`FAT[new] = successor in the new chain`) — they
//!    are marked used but nothing points at them yet;
//! 2. switch the links into them: `FAT[p] = new` for each unmoved predecessor `p`, then the
//!    directory entry's sector if the first cluster moved;
//! 3. free the old clusters (`FAT[old] = 0`).

use super::dir::{DirLoc, Entry};
use super::index::FileRef;
use super::name::path_err;
use super::FatFs;
use crate::blockdev::BlockDevice;
use flashlab::error::Error;

impl<D: BlockDevice> FatFs<D> {
    /// Every file (not directory) as (absolute path, cluster chain), depth first in directory
    /// order. A model hook (the reverse map a defragmenter keeps): not charged to a bounded
    /// metadata cache.
    pub fn files(&mut self) -> Result<Vec<(String, Vec<u32>)>, Error> {
        let was = std::mem::replace(&mut self.charge, false);
        let out = self.files_uncharged();
        self.charge = was;
        out
    }

    fn files_uncharged(&mut self) -> Result<Vec<(String, Vec<u32>)>, Error> {
        let mut out = Vec::new();
        let mut stack = vec![(String::new(), self.root())];
        while let Some((prefix, dir)) = stack.pop() {
            let mut entries = Vec::new();
            self.scan(dir, if prefix.is_empty() { "/" } else { &prefix }, |e| {
                entries.push(e.clone());
                false
            })?;
            let mut subdirs = Vec::new();
            for e in entries {
                let path = format!("{prefix}/{}", e.info().name);
                if e.is_dir() {
                    subdirs.push((path, DirLoc::Chain(e.first)));
                } else {
                    let chain = self.table.chain(e.first, &path)?;
                    out.push((path, chain));
                }
            }
            stack.extend(subdirs.into_iter().rev());
        }
        Ok(out)
    }

    /// First absolute sector of cluster `c` (panics if `c` is not a data cluster).
    pub fn cluster_first_sector(&self, c: u32) -> u64 {
        self.layout.cluster_first_sector(c)
    }
    pub fn clusters_per_flash_block(&self) -> u32 {
        self.flash_block_sectors / self.layout.sectors_per_cluster
    }
    /// Flash blocks covering the data region (the last may be short).
    pub fn flash_blocks(&self) -> u32 {
        self.layout.cluster_count.div_ceil(self.clusters_per_flash_block())
    }
    /// Flash block of cluster `c`, counted from the first data cluster (block 0 starts at
    /// [`FatFs::first_data_sector`], which is flash-block aligned).
    pub fn flash_block_of_cluster(&self, c: u32) -> u32 {
        assert!(self.table.is_cluster(c), "cluster {c} out of range");
        (c - 2) / self.clusters_per_flash_block()
    }
    pub fn free_clusters_in_flash_block(&self, b: u32) -> u32 {
        self.table.block_free(b)
    }
    pub fn is_cluster_free(&self, c: u32) -> bool {
        self.table.is_cluster(c) && self.table.is_free(c)
    }

    /// Copy the data of cluster `from` to the free cluster `to` (one read, one write).
    pub fn copy_cluster(&mut self, from: u32, to: u32) -> Result<(), Error> {
        if !self.table.is_cluster(from) || !self.is_cluster_free(to) {
            return Err(path_err(
                "copy_cluster",
                format!("need a data cluster and a free cluster, got {from} -> {to}"),
            ));
        }
        let mut buf = vec![0u8; self.layout.cluster_bytes() as usize];
        self.dev.read(self.layout.cluster_first_sector(from), &mut buf)?;
        self.dev.write(self.layout.cluster_first_sector(to), &buf)
    }

    /// Rewire file `path` after the caller copied each `old` cluster's data to the free `new`.
    pub fn relocate(&mut self, path: &str, moves: &[(u32, u32)]) -> Result<(), Error> {
        let e = self.entry(path)?;
        self.relocate_entry(e, path, moves)
    }

    /// [`FatFs::relocate`] for a file found by [`FatFs::files_in_clusters`] (no name lookup:
    /// the defragmenter knows where the entry is).
    pub fn relocate_file(&mut self, file: &FileRef, moves: &[(u32, u32)]) -> Result<(), Error> {
        let e = self.entry_at(file.slot);
        self.relocate_entry(e, "relocate_file", moves)
    }

    fn relocate_entry(&mut self, e: Entry, path: &str, moves: &[(u32, u32)]) -> Result<(), Error> {
        if e.is_dir() {
            return Err(path_err(path, "relocate moves file clusters; this is a directory"));
        }
        let chain = self.fat_chain(e.first, path)?;
        let mut target = chain.clone();
        let mut moved = vec![false; chain.len()];
        for (k, &(old, new)) in moves.iter().enumerate() {
            let Some(i) = chain.iter().position(|&c| c == old) else {
                return Err(path_err(path, format!("cluster {old} is not in the file's chain")));
            };
            if moved[i] {
                return Err(path_err(path, format!("cluster {old} is moved twice")));
            }
            if !self.is_cluster_free(new) || moves[..k].iter().any(|&(_, n)| n == new) {
                return Err(path_err(path, format!("target cluster {new} is not free (or used twice)")));
            }
            moved[i] = true;
            target[i] = new;
        }
        if moves.is_empty() {
            return Ok(());
        }
        let eoc = self.table.eoc();
        // 1. the new clusters, linked among themselves
        for i in (0..chain.len()).filter(|&i| moved[i]) {
            self.fat_set(target[i], target.get(i + 1).copied().unwrap_or(eoc))?;
        }
        self.flush_fat()?;
        // 2. links into them
        for i in (1..chain.len()).filter(|&i| moved[i] && !moved[i - 1]) {
            self.fat_set(chain[i - 1], target[i])?;
        }
        self.flush_fat()?;
        if moved[0] {
            self.update_entry(e.slot, target[0], e.size)?;
        }
        // 3. free the old ones
        for i in (0..chain.len()).filter(|&i| moved[i]) {
            self.fat_set(chain[i], 0)?;
        }
        self.flush_fat()?;
        if let Some(i) = self.is_open(e.slot) {
            self.open[i].as_mut().unwrap().chain = target;
        }
        self.op_done()
    }
}
