//! On-disk layout of a FAT16/FAT32 volume: the BIOS parameter block (boot sector), FSInfo, and
//! the region geometry derived from them (Microsoft, "FAT: General Overview of On-Disk Format",
//! v1.03, 2000; sections 3–5 — field offsets below are that document's).
//!
//! Regions, in sectors: reserved (boot sector; FAT32 also FSInfo at 1, backup boot at 6,
//! backup FSInfo at 7) | FAT copy 1 | FAT copy 2 | FAT16 root directory (fixed) | data
//! clusters 2.. . The type follows from the cluster count alone, as the spec says: fewer than
//! 4085 is FAT12 (not supported), fewer than 65525 FAT16, otherwise FAT32.

use super::FatType;
use flashlab::error::{Error, Location};

pub(crate) const FAT16_MIN_CLUSTERS: u32 = 4085;
pub(crate) const FAT32_MIN_CLUSTERS: u32 = 65525;
/// Largest FAT32 cluster count (28-bit entries, minus reserved values).
pub(crate) const FAT32_MAX_CLUSTERS: u32 = 0x0FFF_FFF5;
pub(crate) const MEDIA: u8 = 0xF8;
/// FSInfo "unknown" value for the free count and next-free hint.
pub(crate) const FSINFO_UNKNOWN: u32 = 0xFFFF_FFFF;

/// Geometry of a mounted or freshly formatted volume. Sector numbers are absolute.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub fat_type: FatType,
    pub bytes_per_sector: u32,
    pub sectors_per_cluster: u32,
    pub reserved_sectors: u32,
    pub fats: u32,
    /// FAT16 fixed root directory entries (0 on FAT32).
    pub root_entries: u32,
    pub total_sectors: u32,
    /// Sectors per FAT copy.
    pub fat_sectors: u32,
    /// FAT32 root directory's first cluster (0 on FAT16).
    pub root_cluster: u32,
    /// FAT32 FSInfo sector (0 when absent).
    pub fsinfo_sector: u32,
    pub root_dir_sectors: u32,
    pub first_data_sector: u32,
    pub cluster_count: u32,
}

impl Layout {
    pub fn entry_bytes(&self) -> u32 {
        match self.fat_type {
            FatType::Fat16 => 2,
            FatType::Fat32 => 4,
        }
    }
    pub fn cluster_bytes(&self) -> u32 {
        self.bytes_per_sector * self.sectors_per_cluster
    }
    pub fn root_dir_first_sector(&self) -> u32 {
        self.reserved_sectors + self.fats * self.fat_sectors
    }
    pub fn cluster_first_sector(&self, c: u32) -> u64 {
        assert!(c >= 2 && c < 2 + self.cluster_count, "cluster {c} out of range");
        self.first_data_sector as u64 + (c - 2) as u64 * self.sectors_per_cluster as u64
    }

    /// Derive the derived fields from the stored ones; checks the cluster count's type.
    fn derive(mut self) -> Result<Self, String> {
        let bps = self.bytes_per_sector;
        self.root_dir_sectors = (self.root_entries * 32).div_ceil(bps);
        self.first_data_sector = self.reserved_sectors + self.fats * self.fat_sectors + self.root_dir_sectors;
        if self.first_data_sector >= self.total_sectors {
            return Err(format!(
                "no data region: it would start at sector {} of {}",
                self.first_data_sector, self.total_sectors
            ));
        }
        self.cluster_count = (self.total_sectors - self.first_data_sector) / self.sectors_per_cluster;
        let entries = self.fat_sectors as u64 * bps as u64 / self.entry_bytes() as u64;
        if entries < self.cluster_count as u64 + 2 {
            return Err(format!("the FAT holds {entries} entries, fewer than {} clusters + 2", self.cluster_count));
        }
        Ok(self)
    }

    /// Compute the layout for a new volume on `sectors` sectors of `bps` bytes.
    pub fn for_format(fat_type: FatType, bps: u32, sectors: u64, spc: u32, align: u32) -> Result<Layout, Error> {
        let cfg = |k: &str, m: String| Error::config(format!("fs.format.{k}"), m);
        if !spc.is_power_of_two() || spc > 128 || spc * bps > 32 * 1024 {
            return Err(cfg(
                "sectors_per_cluster",
                format!("{spc} must be a power of two with clusters of at most 32 KiB"),
            ));
        }
        if align == 0 {
            return Err(cfg("data_align_sectors", "must be at least 1".into()));
        }
        let total = u32::try_from(sectors)
            .map_err(|_| cfg("sectors", format!("{sectors} sectors exceed FAT's 32-bit sector count")))?;
        let (min_reserved, root_entries, eb): (u32, u32, u32) = match fat_type {
            FatType::Fat16 => (1, 512, 2),
            FatType::Fat32 => (32, 0, 4),
        };
        let root_dir_sectors = (root_entries * 32).div_ceil(bps);
        let fat_sectors = min_fat_sectors(total as u64, min_reserved + root_dir_sectors, spc, bps, eb);
        // Pad the reserved region so the data region starts on an `align` boundary; the FAT
        // keeps its size (it only gets a few spare entries).
        let unpadded = min_reserved + 2 * fat_sectors + root_dir_sectors;
        let reserved = min_reserved + (align - unpadded % align) % align;
        if reserved > u16::MAX as u32 {
            return Err(cfg(
                "data_align_sectors",
                format!("{align} needs {reserved} reserved sectors (at most 65535)"),
            ));
        }
        let layout = Layout {
            fat_type,
            bytes_per_sector: bps,
            sectors_per_cluster: spc,
            reserved_sectors: reserved,
            fats: 2,
            root_entries,
            total_sectors: total,
            fat_sectors,
            root_cluster: if fat_type == FatType::Fat32 { 2 } else { 0 },
            fsinfo_sector: if fat_type == FatType::Fat32 { 1 } else { 0 },
            root_dir_sectors: 0,
            first_data_sector: 0,
            cluster_count: 0,
        }
        .derive()
        .map_err(|m| cfg("sectors", m))?;
        let n = layout.cluster_count;
        let ok = match fat_type {
            FatType::Fat16 => (FAT16_MIN_CLUSTERS..FAT32_MIN_CLUSTERS).contains(&n),
            FatType::Fat32 => (FAT32_MIN_CLUSTERS..=FAT32_MAX_CLUSTERS).contains(&n),
        };
        if !ok {
            let valid = match fat_type {
                FatType::Fat16 => "4085..=65524",
                FatType::Fat32 => ">= 65525",
            };
            return Err(cfg(
                "sectors_per_cluster",
                format!(
                    "{fat_type:?} needs {valid} clusters, but {total} sectors of {bps} bytes with {spc} sectors/cluster give {n}; \
                     change sectors_per_cluster, the disk size or the FAT type"
                ),
            ));
        }
        Ok(layout)
    }

    /// Parse a boot sector. `dev_sector_size` and `dev_sectors` describe the device.
    pub fn parse(boot: &[u8], dev_sector_size: u32, dev_sectors: u64) -> Result<Layout, Error> {
        let bad = |m: String| Error::input(Location::file("boot sector"), m);
        if boot.len() < 512 || boot[510] != 0x55 || boot[511] != 0xAA {
            return Err(bad("no 0x55AA signature: not a FAT volume".into()));
        }
        let u16_at = |o: usize| u16::from_le_bytes([boot[o], boot[o + 1]]) as u32;
        let u32_at = |o: usize| u32::from_le_bytes(boot[o..o + 4].try_into().unwrap());
        let bps = u16_at(11);
        let spc = boot[13] as u32;
        if bps != dev_sector_size {
            return Err(bad(format!("bytes per sector {bps} differs from the device's {dev_sector_size}")));
        }
        if !spc.is_power_of_two() || spc > 128 {
            return Err(bad(format!("sectors per cluster {spc} is not a power of two <= 128")));
        }
        let fats = boot[16] as u32;
        if fats == 0 {
            return Err(bad("zero FAT copies".into()));
        }
        let total = if u16_at(19) != 0 { u16_at(19) } else { u32_at(32) };
        if total as u64 > dev_sectors {
            return Err(bad(format!("volume has {total} sectors but the device only {dev_sectors}")));
        }
        let fat16_size = u16_at(22);
        let is32 = fat16_size == 0;
        let layout = Layout {
            fat_type: if is32 { FatType::Fat32 } else { FatType::Fat16 },
            bytes_per_sector: bps,
            sectors_per_cluster: spc,
            reserved_sectors: u16_at(14),
            fats,
            root_entries: u16_at(17),
            total_sectors: total,
            fat_sectors: if is32 { u32_at(36) } else { fat16_size },
            root_cluster: if is32 { u32_at(44) } else { 0 },
            fsinfo_sector: if is32 { u16_at(48) } else { 0 },
            root_dir_sectors: 0,
            first_data_sector: 0,
            cluster_count: 0,
        }
        .derive()
        .map_err(bad)?;
        let n = layout.cluster_count;
        match layout.fat_type {
            _ if n < FAT16_MIN_CLUSTERS => Err(bad(format!("{n} clusters: FAT12 is not supported"))),
            FatType::Fat16 if n >= FAT32_MIN_CLUSTERS => {
                Err(bad(format!("{n} clusters is FAT32 but the BPB is FAT16's")))
            }
            FatType::Fat32 if n < FAT32_MIN_CLUSTERS => {
                Err(bad(format!("{n} clusters is FAT16 but the BPB is FAT32's")))
            }
            FatType::Fat32 if layout.root_cluster < 2 || layout.root_cluster >= n + 2 => {
                Err(bad(format!("root cluster {} out of range", layout.root_cluster)))
            }
            _ => Ok(layout),
        }
    }

    /// The boot sector (and FAT32 backup) for this layout.
    pub fn boot_sector(&self, label: &[u8; 11], volume_id: u32) -> Vec<u8> {
        let mut b = vec![0u8; self.bytes_per_sector as usize];
        let is32 = self.fat_type == FatType::Fat32;
        b[0..3].copy_from_slice(if is32 { &[0xEB, 0x58, 0x90] } else { &[0xEB, 0x3C, 0x90] });
        b[3..11].copy_from_slice(b"FLASHLAB");
        b[11..13].copy_from_slice(&(self.bytes_per_sector as u16).to_le_bytes());
        b[13] = self.sectors_per_cluster as u8;
        b[14..16].copy_from_slice(&(self.reserved_sectors as u16).to_le_bytes());
        b[16] = self.fats as u8;
        b[17..19].copy_from_slice(&(self.root_entries as u16).to_le_bytes());
        if self.total_sectors < 0x10000 && !is32 {
            b[19..21].copy_from_slice(&(self.total_sectors as u16).to_le_bytes());
        } else {
            b[32..36].copy_from_slice(&self.total_sectors.to_le_bytes());
        }
        b[21] = MEDIA;
        b[24..26].copy_from_slice(&32u16.to_le_bytes()); // sectors per track
        b[26..28].copy_from_slice(&64u16.to_le_bytes()); // heads
        let ext = if is32 {
            b[36..40].copy_from_slice(&self.fat_sectors.to_le_bytes());
            b[44..48].copy_from_slice(&self.root_cluster.to_le_bytes());
            b[48..50].copy_from_slice(&(self.fsinfo_sector as u16).to_le_bytes());
            b[50..52].copy_from_slice(&6u16.to_le_bytes()); // backup boot sector
            64
        } else {
            b[22..24].copy_from_slice(&(self.fat_sectors as u16).to_le_bytes());
            36
        };
        b[ext] = 0x80; // drive number
        b[ext + 2] = 0x29; // extended boot signature
        b[ext + 3..ext + 7].copy_from_slice(&volume_id.to_le_bytes());
        b[ext + 7..ext + 18].copy_from_slice(label);
        b[ext + 18..ext + 26].copy_from_slice(if is32 { b"FAT32   " } else { b"FAT16   " });
        b[510] = 0x55;
        b[511] = 0xAA;
        b
    }
}

/// An FSInfo sector with the given free count and next-free hint.
pub(crate) fn fsinfo_sector(bps: u32, free: u32, next_free: u32) -> Vec<u8> {
    let mut s = vec![0u8; bps as usize];
    s[0..4].copy_from_slice(&0x4161_5252u32.to_le_bytes());
    s[484..488].copy_from_slice(&0x6141_7272u32.to_le_bytes());
    s[488..492].copy_from_slice(&free.to_le_bytes());
    s[492..496].copy_from_slice(&next_free.to_le_bytes());
    s[508..512].copy_from_slice(&0xAA55_0000u32.to_le_bytes());
    s
}

/// Smallest FAT (sectors per copy, two copies) that has an entry for every cluster left
/// after it: binary search, since the cluster count shrinks as the FAT grows.
fn min_fat_sectors(total: u64, fixed: u32, spc: u32, bps: u32, eb: u32) -> u32 {
    let need = |f: u64| {
        let clusters = total.saturating_sub(fixed as u64 + 2 * f) / spc as u64;
        ((clusters + 2) * eb as u64).div_ceil(bps as u64)
    };
    let (mut lo, mut hi) = (1u64, need(0).max(1));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if need(mid) <= mid {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi as u32
}
