//! Cluster allocation policies for [`crate::fat::FatFs`], one file each, registered in
//! [`ALLOCATORS`].
//!
//! Policy decides, mechanism acts: a policy sees the FAT through a read-only [`FatView`] and
//! answers "which free cluster next" for one [`AllocRequest`]; marking the cluster in the FAT,
//! linking the chain and writing the FAT sectors live in the file system. Flash blocks are
//! counted from the first data cluster: block `b` holds clusters
//! `2 + b * clusters_per_flash_block ..` (the data region is aligned to the flash block, so
//! these are whole device flash blocks; the last one may be short).

pub mod afca;
pub mod sca;

use flashlab::error::Error;

/// What a policy may look at.
pub struct FatView<'a> {
    /// Free (0) or not, per cluster; index = cluster number (0 and 1 are reserved).
    pub(crate) free: &'a [bool],
    /// Free clusters per flash block.
    pub(crate) block_free: &'a [u32],
    pub(crate) cluster_count: u32,
    pub(crate) clusters_per_flash_block: u32,
}

impl FatView<'_> {
    /// Data clusters; valid cluster numbers are `2 .. 2 + cluster_count`.
    pub fn cluster_count(&self) -> u32 {
        self.cluster_count
    }
    /// Is cluster `c` (in `2 .. 2 + cluster_count`) free?
    pub fn is_free(&self, c: u32) -> bool {
        self.free[c as usize]
    }
    pub fn clusters_per_flash_block(&self) -> u32 {
        self.clusters_per_flash_block
    }
    /// Number of flash blocks covering the data region (the last may be short).
    pub fn flash_blocks(&self) -> u32 {
        self.block_free.len() as u32
    }
    pub fn block_of(&self, c: u32) -> u32 {
        (c - 2) / self.clusters_per_flash_block
    }
    /// Clusters of flash block `b`: `first .. end`.
    pub fn block_clusters(&self, b: u32) -> (u32, u32) {
        let first = 2 + b * self.clusters_per_flash_block;
        (first, (first + self.clusters_per_flash_block).min(2 + self.cluster_count))
    }
    pub fn free_in_block(&self, b: u32) -> u32 {
        self.block_free[b as usize]
    }
    /// Every cluster of block `b` is free.
    pub fn block_is_empty(&self, b: u32) -> bool {
        let (first, end) = self.block_clusters(b);
        self.block_free[b as usize] == end - first
    }
    /// The first free cluster of block `b` at or after `from` (wrapping inside the block).
    pub fn free_in_block_from(&self, b: u32, from: u32) -> Option<u32> {
        let (first, end) = self.block_clusters(b);
        let from = from.clamp(first, end);
        (from..end).chain(first..from).find(|&c| self.is_free(c))
    }
    /// The first free cluster at or after `from`, wrapping over the whole data region.
    pub fn next_free_from(&self, from: u32) -> Option<u32> {
        let end = 2 + self.cluster_count;
        let from = from.clamp(2, end);
        (from..end).chain(2..from).find(|&c| self.is_free(c))
    }
}

/// The file (or directory) that needs one more cluster.
#[derive(Clone, Copy, Debug)]
pub struct AllocRequest {
    /// Size in bytes the file will have once the write needing this cluster completes (for a
    /// directory: its chain's bytes with the new cluster, or 0 unless
    /// `FatFs::set_size_directories` is on).
    pub file_size_bytes: u64,
    /// The file's current last cluster, `None` for an empty file.
    pub last_cluster: Option<u32>,
    /// The file's first cluster, `None` for an empty file.
    pub first_cluster: Option<u32>,
}

/// A cluster allocation policy. Must return a free cluster (the file system asserts it), or
/// `None` when it finds none (the file system then reports the volume full).
pub trait ClusterAllocator: Send {
    fn allocate(&mut self, fat: &FatView, req: AllocRequest) -> Option<u32>;
    /// How its decisions went so far (name, count), for reports; none by default.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// A policy's constructor from its parameter table (unknown keys are errors).
pub type AllocBuildFn = fn(params: &toml::Table) -> Result<Box<dyn ClusterAllocator>, Error>;

/// One registry line per policy.
pub struct AllocEntry {
    pub name: &'static str,
    pub about: &'static str,
    pub build: AllocBuildFn,
}

pub const ALLOCATORS: &[AllocEntry] = &[
    AllocEntry {
        name: "sca",
        about: "next free cluster from a global cursor, wrapping (classic FAT)",
        build: sca::build,
    },
    AllocEntry {
        name: "afca",
        about: "large files get private flash blocks, small files share blocks (Kim, Lee & Min, SPPS 2005)",
        build: afca::build,
    },
];

pub fn names() -> Vec<&'static str> {
    ALLOCATORS.iter().map(|e| e.name).collect()
}

/// Build the allocator `name`; an unknown name lists the valid ones.
pub fn build(name: &str, params: &toml::Table) -> Result<Box<dyn ClusterAllocator>, Error> {
    match ALLOCATORS.iter().find(|e| e.name == name) {
        Some(e) => (e.build)(params),
        None => Err(Error::unknown("cluster allocator", name, names())),
    }
}
