//! AFCA, adaptive flash-aware cluster allocation (S. Kim, D. Lee, S. L. Min, "An efficient
//! cluster allocation scheme for NAND flash memory based FAT file systems", SPPS 2005).
//!
//! Files are split by size so that data dying together shares flash blocks: when a large file
//! is deleted its blocks become wholly invalid and the FTL reclaims them without copying.
//!
//! The rule, per request (`size` = the file's size once the pending write completes):
//! - **large file** (`size > threshold_bytes`): if its last cluster lies in a block this policy
//!   gave to a large file and that block still has a free cluster, take the next free one there
//!   (after the last cluster, wrapping in the block); otherwise take the first cluster of a
//!   completely free flash block (searched from a cursor after the last such block, wrapping)
//!   and mark the block large;
//! - **small file**: take the next free cluster of the current shared small-file block; when it
//!   is full, move the cursor to the next block (wrapping) that has a free cluster and is not a
//!   large file's block, and mark it shared;
//! - **fallback**, when no suitable block exists: any free cluster, from a global cursor.
//!
//! A block's mark is stale once the block is completely free again (treated as unused). A small
//! file that grows past the threshold keeps its first clusters in shared blocks; its later ones
//! go to private blocks.

use super::{AllocRequest, ClusterAllocator, FatView};
use flashlab::error::Error;

pub fn build(params: &toml::Table) -> Result<Box<dyn ClusterAllocator>, Error> {
    let mut threshold_bytes = DEFAULT_THRESHOLD_BYTES;
    for (k, v) in params {
        match (k.as_str(), v.as_integer()) {
            ("threshold_bytes", Some(t)) if t >= 0 => threshold_bytes = t as u64,
            ("threshold_bytes", _) => {
                return Err(Error::config(
                    "fs.alloc_params.threshold_bytes",
                    format!("expected a byte count >= 0, got {v}"),
                ))
            }
            _ => {
                return Err(Error::config(
                    format!("fs.alloc_params.{k}"),
                    "unknown parameter of allocator `afca` (valid: threshold_bytes)",
                ))
            }
        }
    }
    Ok(Box::new(Afca::new(threshold_bytes)))
}

/// Default large-file threshold: 64 KiB, in bytes.
pub const DEFAULT_THRESHOLD_BYTES: u64 = 64 * 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unused,
    Shared,
    Large,
}

pub struct Afca {
    threshold_bytes: u64,
    /// Per flash block: what this policy last used it for (stale once it is empty again).
    kind: Vec<Kind>,
    /// Current shared small-file block.
    small_block: Option<u32>,
    /// Where the next search for an empty block for a large file starts.
    large_cursor: u32,
    /// Fallback cursor (cluster number).
    any_cursor: u32,
    /// Clusters given: [large file in its own block, large file in a new empty block, large
    /// file by fallback (no empty block), small file in a shared block, small file by fallback].
    counts: [u64; 5],
}

impl Afca {
    pub fn new(threshold_bytes: u64) -> Self {
        Afca { threshold_bytes, kind: Vec::new(), small_block: None, large_cursor: 0, any_cursor: 0, counts: [0; 5] }
    }

    fn kind_of(&self, fat: &FatView, b: u32) -> Kind {
        if fat.block_is_empty(b) {
            Kind::Unused
        } else {
            self.kind[b as usize]
        }
    }

    fn large(&mut self, fat: &FatView, last: Option<u32>) -> Option<u32> {
        if let Some(l) = last {
            let b = fat.block_of(l);
            if self.kind_of(fat, b) == Kind::Large {
                if let Some(c) = fat.free_in_block_from(b, l + 1) {
                    self.counts[0] += 1;
                    return Some(c);
                }
            }
        }
        let n = fat.flash_blocks();
        let b = (self.large_cursor..n).chain(0..self.large_cursor.min(n)).find(|&b| fat.block_is_empty(b))?;
        self.kind[b as usize] = Kind::Large;
        self.large_cursor = b + 1;
        self.counts[1] += 1;
        Some(fat.block_clusters(b).0)
    }

    fn small(&mut self, fat: &FatView) -> Option<u32> {
        if let Some(s) = self.small_block {
            if self.kind_of(fat, s) == Kind::Shared {
                if let Some(c) = fat.free_in_block_from(s, 0) {
                    return Some(c);
                }
            }
        }
        let n = fat.flash_blocks();
        let start = self.small_block.map_or(0, |s| s + 1).min(n);
        let b =
            (start..n).chain(0..start).find(|&b| fat.free_in_block(b) > 0 && self.kind_of(fat, b) != Kind::Large)?;
        self.kind[b as usize] = Kind::Shared;
        self.small_block = Some(b);
        fat.free_in_block_from(b, 0)
    }
}

impl ClusterAllocator for Afca {
    fn allocate(&mut self, fat: &FatView, req: AllocRequest) -> Option<u32> {
        if self.kind.len() != fat.flash_blocks() as usize {
            self.kind = vec![Kind::Unused; fat.flash_blocks() as usize];
        }
        let large = req.file_size_bytes > self.threshold_bytes;
        let picked = if large { self.large(fat, req.last_cluster) } else { self.small(fat) };
        if picked.is_some() && !large {
            self.counts[3] += 1;
        }
        let c = match picked {
            Some(c) => c,
            None => {
                let c = fat.next_free_from(self.any_cursor)?;
                self.counts[if large { 2 } else { 4 }] += 1;
                c
            }
        };
        self.any_cursor = c + 1;
        Some(c)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let names =
            ["large, own block", "large, new empty block", "large, fallback", "small, shared block", "small, fallback"];
        names.into_iter().zip(self.counts).collect()
    }
}
