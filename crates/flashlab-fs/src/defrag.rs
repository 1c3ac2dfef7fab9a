//! Online defragmentation on file close (the defrag paper, §4–5): when a file is closed, if the
//! flash block holding its last cluster has at least `threshold` of its clusters unused
//! (1/2, 1/4, 1/8 or 1/16 of a block), the fragments of the files that have data in that block —
//! their clusters stored in *other* flash blocks — are copied into the block's free clusters
//! with the device's `defrag_copy` (on the simulated SSD: copy-back inside the FTL, no host
//! transfer), then each file's FAT chain is switched to the new clusters (`FatFs::relocate`:
//! the data exists at both places until the FAT points at the new one).
//!
//! Order (our choice; the paper does not give one): the closed file first, then the other files
//! with data in the block in directory order; each file's fragments in chain order; target
//! clusters ascending; stop when the block has no free cluster left.

use super::blockdev::BlockDevice;
use super::fat::FatFs;
use flashlab::error::Error;

/// When to defragment: `None` = never; `Some(d)`: the block must have at least 1/d unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threshold(pub Option<u32>);

impl Threshold {
    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "off" | "none" => Ok(Threshold(None)),
            "1/2" => Ok(Threshold(Some(2))),
            "1/4" => Ok(Threshold(Some(4))),
            "1/8" => Ok(Threshold(Some(8))),
            "1/16" => Ok(Threshold(Some(16))),
            other => Err(Error::unknown("defrag threshold", other, vec!["off", "1/2", "1/4", "1/8", "1/16"])),
        }
    }
}

/// How the threshold is read (the paper, §5: "if, after a file is written, the block it was
/// last written to holds Threshold's worth of unused clusters, the fragments ... are copied into
/// that block").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rule {
    /// At least the threshold of the block is unused (the text's plain reading; ours).
    #[default]
    FreeAtLeast,
    /// At most the threshold is unused: only a nearly full block takes fragments (the reading
    /// under which a smaller threshold moves less, as the paper's Table 2 suggests).
    FreeAtMost,
}

impl Rule {
    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "at-least" => Ok(Rule::FreeAtLeast),
            "at-most" => Ok(Rule::FreeAtMost),
            other => Err(Error::unknown("defrag trigger rule", other, vec!["at-least", "at-most"])),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Rule::FreeAtLeast => "at-least",
            Rule::FreeAtMost => "at-most",
        }
    }
}

/// What defragmentation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DefragStats {
    /// Closes that met the threshold.
    pub triggered: u64,
    /// Clusters moved.
    pub clusters_moved: u64,
    /// Files whose chain changed.
    pub files_relocated: u64,
}

/// Run the close-time rule for `path` (just closed), threshold read as [`Rule::FreeAtLeast`].
pub fn on_close<D: BlockDevice>(
    fs: &mut FatFs<D>,
    path: &str,
    threshold: Threshold,
    stats: &mut DefragStats,
) -> Result<(), Error> {
    on_close_with(fs, path, threshold, Rule::FreeAtLeast, stats)
}

/// Run the close-time rule for `path` (just closed) with the threshold read as `rule`.
pub fn on_close_with<D: BlockDevice>(
    fs: &mut FatFs<D>,
    path: &str,
    threshold: Threshold,
    rule: Rule,
    stats: &mut DefragStats,
) -> Result<(), Error> {
    let Some(den) = threshold.0 else { return Ok(()) };
    let Some(closed) = fs.file_ref(path)? else { return Ok(()) };
    let Some(&last) = closed.chain.last() else { return Ok(()) };
    let block = fs.flash_block_of_cluster(last);
    let cpb = fs.clusters_per_flash_block();
    let free = fs.free_clusters_in_flash_block(block);
    let met = match rule {
        Rule::FreeAtLeast => free * den >= cpb,
        Rule::FreeAtMost => free > 0 && free * den <= cpb,
    };
    if !met {
        return Ok(());
    }
    stats.triggered += 1;
    let first = 2 + block * cpb;
    let mut free: Vec<u32> = (first..first + cpb).filter(|&c| fs.is_cluster_free(c)).collect();
    free.reverse();
    let mut order = fs.files_in_clusters(first, cpb)?;
    order.sort_by_key(|f| f.slot() != closed.slot());
    let sectors = (fs.cluster_bytes() / fs.device().sector_size()) as u64;
    for file in &order {
        let mut moves = Vec::new();
        for &c in file.chain.iter().filter(|&&c| c < first || c >= first + cpb) {
            let Some(t) = free.pop() else { break };
            let (s, d) = (fs.cluster_first_sector(c), fs.cluster_first_sector(t));
            fs.device_mut().defrag_copy(s, d, sectors)?;
            moves.push((c, t));
        }
        if !moves.is_empty() {
            fs.relocate_file(file, &moves)?;
            stats.clusters_moved += moves.len() as u64;
            stats.files_relocated += 1;
        }
        if free.is_empty() {
            break;
        }
    }
    Ok(())
}
