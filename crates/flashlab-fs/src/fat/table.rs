//! The FAT mirror: every entry of FAT copy 1 held in memory, always equal to what is on disk
//! once an operation returns. Changes mark their FAT sector dirty; [`Table::flush`] writes the
//! dirty sectors, ascending, to copy 1 and then to each further copy (runs of adjacent sectors
//! go down as one write). Free-cluster bookkeeping (per cluster, per flash block, total) is
//! kept beside it for the allocators.

use super::layout::Layout;
use super::FatType;
use crate::alloc::FatView;
use crate::blockdev::BlockDevice;
use flashlab::error::{Error, Location};

pub(crate) struct Table {
    fat_type: FatType,
    /// Raw entries (FAT32: with their reserved top 4 bits), index = cluster.
    entries: Vec<u32>,
    free: Vec<bool>,
    block_free: Vec<u32>,
    free_count: u32,
    cluster_count: u32,
    clusters_per_block: u32,
    bytes_per_sector: u32,
    /// FAT-relative sectors changed since the last flush (unsorted, may repeat).
    dirty: Vec<u32>,
    /// The cluster whose entry links to each cluster (0: none): the reverse of the chains, so
    /// the first cluster of a chain is found from any of its clusters ([`Table::head`]).
    prev: Vec<u32>,
}

impl Table {
    /// Value marking the end of a chain.
    pub fn eoc(&self) -> u32 {
        match self.fat_type {
            FatType::Fat16 => 0xFFFF,
            FatType::Fat32 => 0x0FFF_FFFF,
        }
    }
    fn mask(&self) -> u32 {
        match self.fat_type {
            FatType::Fat16 => 0xFFFF,
            FatType::Fat32 => 0x0FFF_FFFF,
        }
    }
    pub fn entries_per_sector(&self) -> u32 {
        self.bytes_per_sector / if self.fat_type == FatType::Fat16 { 2 } else { 4 }
    }

    /// Build from the bytes of one FAT copy.
    pub fn from_bytes(layout: &Layout, bytes: &[u8], clusters_per_block: u32) -> Table {
        let entries: Vec<u32> = match layout.fat_type {
            FatType::Fat16 => bytes.chunks_exact(2).map(|e| u16::from_le_bytes([e[0], e[1]]) as u32).collect(),
            FatType::Fat32 => bytes.chunks_exact(4).map(|e| u32::from_le_bytes(e.try_into().unwrap())).collect(),
        };
        let mut t = Table {
            fat_type: layout.fat_type,
            entries,
            free: Vec::new(),
            block_free: Vec::new(),
            free_count: 0,
            cluster_count: layout.cluster_count,
            clusters_per_block,
            bytes_per_sector: layout.bytes_per_sector,
            dirty: Vec::new(),
            prev: Vec::new(),
        };
        t.prev = vec![0; t.entries.len()];
        for c in 2..t.cluster_count + 2 {
            if let Some(n) = t.next_cluster(c) {
                t.prev[n as usize] = c;
            }
        }
        t.set_clusters_per_block(clusters_per_block);
        t
    }

    /// Recompute the free maps for a new flash-block size (in clusters).
    pub fn set_clusters_per_block(&mut self, cpb: u32) {
        assert!(cpb >= 1);
        let n = self.cluster_count;
        self.clusters_per_block = cpb;
        self.free = (0..n + 2).map(|c| c >= 2 && self.get(c) == 0).collect();
        self.block_free = vec![0; n.div_ceil(cpb) as usize];
        for c in 2..n + 2 {
            if self.free[c as usize] {
                self.block_free[((c - 2) / cpb) as usize] += 1;
            }
        }
        self.free_count = self.block_free.iter().sum();
    }

    pub fn view(&self) -> FatView<'_> {
        FatView {
            free: &self.free,
            block_free: &self.block_free,
            cluster_count: self.cluster_count,
            clusters_per_flash_block: self.clusters_per_block,
        }
    }

    pub fn get(&self, c: u32) -> u32 {
        self.entries[c as usize] & self.mask()
    }
    pub fn is_free(&self, c: u32) -> bool {
        self.free[c as usize]
    }
    pub fn free_count(&self) -> u32 {
        self.free_count
    }
    pub fn block_free(&self, b: u32) -> u32 {
        self.block_free[b as usize]
    }
    pub fn is_cluster(&self, c: u32) -> bool {
        c >= 2 && c < self.cluster_count + 2
    }

    /// Set entry `c` to `v` (0 = free, [`Table::eoc`] = end of chain, else the next cluster).
    pub fn set(&mut self, c: u32, v: u32) {
        assert!(self.is_cluster(c), "FAT set of cluster {c} out of range");
        assert!(v == 0 || v == self.eoc() || self.is_cluster(v), "FAT value {v:#x} for cluster {c} is not a cluster");
        let i = c as usize;
        let was_free = self.free[i];
        if let Some(old) = self.next_cluster(c).filter(|&n| self.prev[n as usize] == c) {
            self.prev[old as usize] = 0;
        }
        if self.is_cluster(v) {
            self.prev[v as usize] = c;
        }
        self.entries[i] = (self.entries[i] & !self.mask()) | v;
        self.free[i] = v == 0;
        let b = ((c - 2) / self.clusters_per_block) as usize;
        match (was_free, v == 0) {
            (true, false) => {
                self.free_count -= 1;
                self.block_free[b] -= 1;
            }
            (false, true) => {
                self.free_count += 1;
                self.block_free[b] += 1;
            }
            _ => {}
        }
        self.dirty.push(c / self.entries_per_sector());
    }

    /// The cluster entry `c` links to, if it links to a data cluster.
    fn next_cluster(&self, c: u32) -> Option<u32> {
        let n = self.get(c);
        self.is_cluster(n).then_some(n)
    }

    /// The first cluster of the chain holding used cluster `c` (following the links back), or
    /// `None` when the links back do not end within the volume's clusters (a loop).
    pub fn head(&self, c: u32) -> Option<u32> {
        let mut h = c;
        for _ in 0..=self.cluster_count {
            match self.prev[h as usize] {
                0 => return Some(h),
                p => h = p,
            }
        }
        None
    }

    /// The chain starting at `first` (empty for 0). A broken chain (free, reserved or
    /// out-of-range link, or a loop) is an error naming `path`.
    pub fn chain(&self, first: u32, path: &str) -> Result<Vec<u32>, Error> {
        let mut out = Vec::new();
        let mut c = first;
        if c == 0 {
            return Ok(out);
        }
        loop {
            if !self.is_cluster(c) || self.is_free(c) || out.len() > self.cluster_count as usize {
                return Err(Error::input(
                    Location::file(path),
                    format!("corrupt cluster chain at cluster {c} (after {} clusters)", out.len()),
                ));
            }
            out.push(c);
            let next = self.get(c);
            if next >= self.eoc() - 7 {
                return Ok(out);
            }
            c = next;
        }
    }

    /// Whether FAT sectors wait to be written.
    pub fn has_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Forget pending changes (after an operation rolled its mirror changes back).
    pub fn discard_dirty(&mut self) {
        self.dirty.clear();
    }

    /// Whether FAT-relative sector `s` waits to be written.
    pub fn is_dirty_sector(&self, s: u32) -> bool {
        self.dirty.contains(&s)
    }

    /// The bytes of FAT-relative sector `s` as the mirror holds them.
    pub fn sector_bytes(&self, s: u32) -> Vec<u8> {
        let eps = self.entries_per_sector() as usize;
        let entries = &self.entries[s as usize * eps..(s as usize + 1) * eps];
        match self.fat_type {
            FatType::Fat16 => entries.iter().flat_map(|&e| (e as u16).to_le_bytes()).collect(),
            FatType::Fat32 => entries.iter().flat_map(|&e| e.to_le_bytes()).collect(),
        }
    }

    /// Write FAT-relative sector `s` to every copy now (an eviction from a bounded cache) and
    /// drop it from the pending set.
    pub fn write_sector(&mut self, dev: &mut dyn BlockDevice, layout: &Layout, s: u32) -> Result<(), Error> {
        let bytes = self.sector_bytes(s);
        for copy in 0..layout.fats {
            dev.write(layout.reserved_sectors as u64 + copy as u64 * layout.fat_sectors as u64 + s as u64, &bytes)?;
        }
        self.dirty.retain(|&d| d != s);
        Ok(())
    }

    /// Write the dirty FAT sectors to every copy: copy 1 ascending, then copy 2, ...
    pub fn flush(&mut self, dev: &mut dyn BlockDevice, layout: &Layout) -> Result<(), Error> {
        if self.dirty.is_empty() {
            return Ok(());
        }
        self.dirty.sort_unstable();
        self.dirty.dedup();
        let bps = self.bytes_per_sector as usize;
        let mut runs: Vec<(u32, Vec<u8>)> = Vec::new();
        for &s in &self.dirty {
            let bytes = self.sector_bytes(s);
            debug_assert_eq!(bytes.len(), bps);
            match runs.last_mut() {
                Some((start, buf)) if *start as usize + buf.len() / bps == s as usize => buf.extend_from_slice(&bytes),
                _ => runs.push((s, bytes)),
            }
        }
        for copy in 0..layout.fats {
            let base = layout.reserved_sectors as u64 + copy as u64 * layout.fat_sectors as u64;
            for (start, buf) in &runs {
                dev.write(base + *start as u64, buf)?;
            }
        }
        self.dirty.clear();
        Ok(())
    }
}
