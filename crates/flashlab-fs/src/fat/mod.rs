//! A FAT16/FAT32 file system model that writes real FAT structures through a
//! [`BlockDevice`], so its images pass `fsck.fat -n` and read with mtools (`tests/fat.rs`).
//! Layout per Microsoft's "FAT: General Overview of On-Disk Format" v1.03 (module `layout`).
//!
//! Scope: 8.3 upper-case names only (no long-name entries), one fixed timestamp
//! (2024-01-01 00:00) so images are deterministic, files below 4 GiB, a file open at most once.
//!
//! **I/O model.** Every operation writes through everything it changed before it returns, in a
//! fixed order, with no deferred writes (the simulator counts these writes):
//! - data: per cluster touched, one write of the sectors the range covers (a partly covered
//!   sector of an existing cluster is read first; a fresh cluster's tail is zero-filled);
//! - FAT: the changed FAT sectors, ascending, to copy 1 and then copy 2 (module `table`);
//! - directory: the one sector holding the changed 32-byte entry.
//!
//! Orders: `write`/`append`: data, FAT, directory entry (size, first cluster) — a crash never
//! exposes a link to unwritten data. `create`: [directory growth: zeroed cluster, FAT], entry.
//! `mkdir`: [parent growth], new cluster with `.`/`..`, FAT, entry. `delete`/`rmdir`: entry
//! (marked 0xE5), then FAT (chain freed). `relocate`: see module `defrag`.
//! With [`Metadata::WriteBack`] the FAT and directory writes above wait in memory until a
//! close, `sync` or `flush_metadata` (data writes still go through at once); with
//! [`Metadata::Delayed`] until every n-th operation, `sync` or `flush_metadata`.
//! FAT32's FSInfo keeps its free count only while clean: [`FatFs::sync`] writes the exact
//! count; the first FAT change after that (or after mounting a volume with a count) first
//! rewrites FSInfo as "unknown" (one sector write), which `fsck.fat` accepts.
//!
//! Reads go to the device except the FAT (mirrored in memory at mount) and directory sectors
//! (cached after their first read); both mirrors are updated with every write, so they always
//! equal the disk (or, with deferred metadata, what the disk will get). Lookups in a directory
//! whose sectors are all mirrored are answered from an index (module `index`) that charges what
//! the linear scan would: an index makes the model fast, never changes what it counts.
//!
//! **Bounded metadata cache** ([`FatFs::set_metadata_cache`]): a driver that holds only `n`
//! metadata sectors (least recently used out) reads a FAT sector again whenever a chain walk or
//! FAT change needs one it does not hold, and a directory sector whenever a scan or entry update
//! does (one sector per read, as FAT drivers read metadata). Free-cluster searches are charged
//! only for the FAT sector of the cluster they find (the allocators search an in-memory free
//! map). Dirty sectors stay cached until the operation's write in write-through mode; in the
//! deferred modes an evicted dirty sector is written at once (a FAT sector to every copy), as
//! ChaN's FatFs does with its one-sector window — so a crash may then expose a FAT link to data
//! not yet written, as with that driver. With a name index ([`FatFs::set_name_index`]) the
//! scans that look a name up are not charged (the driver finds names in memory); entry updates
//! and FAT accesses still are.

mod cache;
mod defrag;
mod dir;
mod file;
mod index;
pub(crate) mod layout;
mod name;
mod table;

use std::collections::BTreeMap;

use self::file::OpenFile;
use self::layout::{fsinfo_sector, Layout, FSINFO_UNKNOWN, MEDIA};
use self::table::Table;
use crate::alloc::{sca::Sca, AllocRequest, ClusterAllocator};
use crate::blockdev::BlockDevice;
use flashlab::error::Error;

pub use self::cache::MetadataStats;
pub use self::dir::DirEntryInfo;
pub use self::index::FileRef;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FatType {
    Fat16,
    Fat32,
}

/// How to format a volume.
#[derive(Clone, Debug)]
pub struct FormatOptions {
    pub fat_type: FatType,
    /// A power of two; clusters of at most 32 KiB.
    pub sectors_per_cluster: u32,
    /// Up to 11 upper-case characters; empty means none ("NO NAME").
    pub label: String,
    /// The first data sector is a multiple of this (sectors); a multiple of
    /// `flash_block_sectors`, so clusters line up with flash blocks.
    pub data_align_sectors: u32,
    /// Flash block (erase unit) size in sectors; a multiple of `sectors_per_cluster`.
    pub flash_block_sectors: u32,
    /// Volume serial number (fixed, for deterministic images).
    pub volume_id: u32,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            fat_type: FatType::Fat16,
            sectors_per_cluster: 4,
            label: "FLASHLAB".into(),
            data_align_sectors: 256,
            flash_block_sectors: 256,
            volume_id: 0x464C_4153,
        }
    }
}

impl FormatOptions {
    /// Whether the FAT type fits a volume of `sectors` sectors of `sector_bytes` each with this
    /// cluster size and data alignment (FAT16 holds at most 65,524 clusters): [`FatFs::format`]'s
    /// layout check, without a device.
    pub fn check_layout(&self, sector_bytes: u32, sectors: u64) -> Result<(), Error> {
        let (spc, align) = (self.sectors_per_cluster, self.data_align_sectors);
        Layout::for_format(self.fat_type, sector_bytes, sectors, spc, align).map(|_| ())
    }
}

/// When changed FAT and directory sectors reach the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Metadata {
    /// At the end of every operation (the crash-ordered default described above).
    #[default]
    WriteThrough,
    /// Kept dirty in memory and written when a file is closed, on [`FatFs::sync`] or
    /// [`FatFs::flush_metadata`], as FAT drivers with a metadata cache do: many changes to one
    /// sector cost one write. A crash loses the changes since the last write-back.
    WriteBack,
    /// Kept dirty in memory and written after every `n`-th file-system operation (create, write,
    /// close, delete, mkdir, rmdir, relocate), on [`FatFs::sync`] or
    /// [`FatFs::flush_metadata`], but not at close: Linux's vfat without `-o flush`, whose
    /// dirty buffers reach the disk when the flusher finds them older than a delay
    /// (`dirty_expire_centisecs`, 30 s by default). The model has no clock, so the delay is
    /// counted in operations.
    Delayed(u32),
}

impl Metadata {
    /// Whether metadata writes wait in memory.
    pub fn deferred(self) -> bool {
        self != Metadata::WriteThrough
    }
}

/// An open file handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fd(pub(crate) u32);

/// A mounted FAT volume on device `D`.
pub struct FatFs<D: BlockDevice> {
    dev: D,
    layout: Layout,
    table: Table,
    alloc: Box<dyn ClusterAllocator>,
    flash_block_sectors: u32,
    /// Directory sectors read so far (absolute sector → bytes), always equal to the disk.
    dir_cache: BTreeMap<u64, Vec<u8>>,
    /// Directories whose every sector is in `dir_cache`, indexed (module `index`).
    dirs: std::collections::HashMap<dir::DirLoc, index::DirIndex>,
    /// Indexed sector → its directory and the position of its first entry.
    sector_dir: std::collections::HashMap<u64, (dir::DirLoc, u32)>,
    /// Tests: never index (every lookup scans), the reference the indexes are checked against.
    #[cfg(test)]
    scan_only: bool,
    metadata: Metadata,
    /// Deferred metadata: directory sectors changed since the last write-back.
    dir_dirty: std::collections::BTreeSet<u64>,
    /// Which metadata sectors a bounded cache holds (unbounded by default).
    meta: cache::MetaCache,
    /// Name lookups answered from memory (see [`FatFs::set_name_index`]).
    name_index: bool,
    /// Directories ask the allocator with their size (see [`FatFs::set_size_directories`]).
    size_directories: bool,
    /// Whether metadata accesses are charged to the bounded cache (off while enumerating files
    /// for defragmentation, a model hook with no device I/O of its own).
    charge: bool,
    /// `Metadata::Delayed`: operations since the last write-back.
    ops_since_flush: u32,
    open: Vec<Option<OpenFile>>,
    /// FAT32: FSInfo on disk holds a free count (must be invalidated before the FAT changes).
    fsinfo_has_count: bool,
}

/// Sectors per device write when laying down big regions at format time.
const CHUNK_SECTORS: usize = 128;

fn write_chunked(dev: &mut dyn BlockDevice, first: u64, bytes: &[u8]) -> Result<(), Error> {
    let step = CHUNK_SECTORS * dev.sector_size() as usize;
    for (i, chunk) in bytes.chunks(step).enumerate() {
        dev.write(first + (i * CHUNK_SECTORS) as u64, chunk)?;
    }
    Ok(())
}

fn read_chunked(dev: &mut dyn BlockDevice, first: u64, bytes: &mut [u8]) -> Result<(), Error> {
    let step = CHUNK_SECTORS * dev.sector_size() as usize;
    for (i, chunk) in bytes.chunks_mut(step).enumerate() {
        dev.read(first + (i * CHUNK_SECTORS) as u64, chunk)?;
    }
    Ok(())
}

impl<D: BlockDevice> FatFs<D> {
    /// Format `dev` and mount the new volume (allocator: SCA). Writes, in order: the reserved
    /// region (boot sector; FAT32: FSInfo, backups at 6 and 7), each FAT copy, the root
    /// directory (with the volume-label entry).
    pub fn format(mut dev: D, opts: FormatOptions) -> Result<Self, Error> {
        let bps = dev.sector_size();
        let spc = opts.sectors_per_cluster;
        let layout = Layout::for_format(opts.fat_type, bps, dev.sectors(), spc, opts.data_align_sectors)?;
        let fbs = opts.flash_block_sectors;
        if fbs == 0 || !fbs.is_multiple_of(spc) {
            return Err(Error::config(
                "fs.format.flash_block_sectors",
                format!("{fbs} is not a positive multiple of sectors_per_cluster ({spc})"),
            ));
        }
        if !opts.data_align_sectors.is_multiple_of(fbs) {
            return Err(Error::config(
                "fs.format.data_align_sectors",
                format!(
                    "{} must be a multiple of flash_block_sectors ({fbs}) so clusters line up with flash blocks",
                    opts.data_align_sectors
                ),
            ));
        }
        let label = name::label(&opts.label)?;
        let is32 = opts.fat_type == FatType::Fat32;

        let mut reserved = vec![0u8; (layout.reserved_sectors * bps) as usize];
        let boot = layout.boot_sector(&label, opts.volume_id);
        reserved[..bps as usize].copy_from_slice(&boot);
        if is32 {
            let info = fsinfo_sector(bps, FSINFO_UNKNOWN, FSINFO_UNKNOWN);
            for (sector, bytes) in [(1, &info), (6, &boot), (7, &info)] {
                reserved[sector * bps as usize..(sector + 1) * bps as usize].copy_from_slice(bytes);
            }
        }
        write_chunked(&mut dev, 0, &reserved)?;

        let mut fat = vec![0u8; (layout.fat_sectors * bps) as usize];
        if is32 {
            fat[0..4].copy_from_slice(&(0x0FFF_FF00 | MEDIA as u32).to_le_bytes());
            fat[4..12].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0x0F, 0xFF, 0xFF, 0xFF, 0x0F]);
        // FAT[1], root EOC
        } else {
            fat[0..4].copy_from_slice(&[MEDIA, 0xFF, 0xFF, 0xFF]);
        }
        for copy in 0..layout.fats {
            write_chunked(&mut dev, (layout.reserved_sectors + copy * layout.fat_sectors) as u64, &fat)?;
        }

        let (root_first, root_sectors) = if is32 {
            (layout.cluster_first_sector(layout.root_cluster), spc)
        } else {
            (layout.root_dir_first_sector() as u64, layout.root_dir_sectors)
        };
        let mut root = vec![0u8; (root_sectors * bps) as usize];
        if label != *b"NO NAME    " {
            root[..32].copy_from_slice(&dir::make_entry(&label, dir::ATTR_VOLUME_ID, 0, 0));
        }
        write_chunked(&mut dev, root_first, &root)?;

        let table = Table::from_bytes(&layout, &fat, fbs / spc);
        Ok(FatFs {
            dev,
            layout,
            table,
            alloc: Box::new(Sca::default()),
            flash_block_sectors: fbs,
            dir_cache: BTreeMap::new(),
            dirs: Default::default(),
            sector_dir: Default::default(),
            #[cfg(test)]
            scan_only: false,
            metadata: Metadata::WriteThrough,
            dir_dirty: Default::default(),
            meta: Default::default(),
            charge: true,
            name_index: false,
            size_directories: false,
            ops_since_flush: 0,
            open: Vec::new(),
            fsinfo_has_count: false,
        })
    }

    /// Mount an existing FAT16/FAT32 volume (e.g. one made by `mkfs.fat`). The flash block is
    /// one cluster until [`FatFs::set_flash_block_sectors`]; the allocator is SCA.
    pub fn mount(mut dev: D) -> Result<Self, Error> {
        let bps = dev.sector_size();
        let mut boot = vec![0u8; bps as usize];
        dev.read(0, &mut boot)?;
        let layout = Layout::parse(&boot, bps, dev.sectors())?;
        let mut fat = vec![0u8; (layout.fat_sectors * bps) as usize];
        read_chunked(&mut dev, layout.reserved_sectors as u64, &mut fat)?;
        let mut fsinfo_has_count = false;
        if layout.fsinfo_sector != 0 && layout.fsinfo_sector < layout.reserved_sectors {
            let mut info = vec![0u8; bps as usize];
            dev.read(layout.fsinfo_sector as u64, &mut info)?;
            fsinfo_has_count =
                info[0..4] == 0x4161_5252u32.to_le_bytes() && info[488..492] != FSINFO_UNKNOWN.to_le_bytes();
        }
        let table = Table::from_bytes(&layout, &fat, 1);
        Ok(FatFs {
            dev,
            flash_block_sectors: layout.sectors_per_cluster,
            layout,
            table,
            alloc: Box::new(Sca::default()),
            dir_cache: BTreeMap::new(),
            dirs: Default::default(),
            sector_dir: Default::default(),
            #[cfg(test)]
            scan_only: false,
            metadata: Metadata::WriteThrough,
            dir_dirty: Default::default(),
            meta: Default::default(),
            charge: true,
            name_index: false,
            size_directories: false,
            ops_since_flush: 0,
            open: Vec::new(),
            fsinfo_has_count,
        })
    }

    /// Replace the cluster allocation policy (e.g. from [`crate::alloc::build`]).
    pub fn set_allocator(&mut self, alloc: Box<dyn ClusterAllocator>) {
        self.alloc = alloc;
    }

    /// Choose when metadata reaches the device; pending metadata is written back first.
    pub fn set_metadata(&mut self, m: Metadata) -> Result<(), Error> {
        if m == Metadata::Delayed(0) {
            return Err(Error::config("fs.metadata", "a delayed write-back needs a delay of at least 1 operation"));
        }
        self.flush_metadata()?;
        self.metadata = m;
        self.ops_since_flush = 0;
        Ok(())
    }

    /// Hold at most `sectors` metadata sectors (FAT and directory) in memory, least recently
    /// used out, so that misses reach the device as reads; `None` (the default) keeps every
    /// one. Pending metadata is written back first and the new cache starts empty.
    pub fn set_metadata_cache(&mut self, sectors: Option<u32>) -> Result<(), Error> {
        if sectors == Some(0) {
            return Err(Error::config(
                "fs.metadata_cache_sectors",
                "a bounded metadata cache holds at least 1 sector (leave it unset for an unbounded one)",
            ));
        }
        self.flush_metadata()?;
        self.meta = cache::MetaCache::new(sectors);
        Ok(())
    }

    /// Answer name lookups (path walks and the search for a name in its directory) from
    /// memory, as a driver with a name or directory-entry cache does (Linux's dentry cache,
    /// embedded drivers' handle tables): those scans no longer pass through the bounded
    /// metadata cache, while every FAT access and every update of a directory sector still do
    /// (so an entry update on a sector the cache does not hold reads it first). No effect
    /// without a bounded cache.
    pub fn set_name_index(&mut self, on: bool) {
        self.name_index = on;
    }

    /// Directories ask the allocator for a cluster with the size they will have (their chain's
    /// bytes with the new cluster), as any file does; off (the default), with size 0.
    pub fn set_size_directories(&mut self, on: bool) {
        self.size_directories = on;
    }

    /// The cluster allocator's decision counts (see [`ClusterAllocator::counters`]).
    pub fn allocator_counters(&self) -> Vec<(&'static str, u64)> {
        self.alloc.counters()
    }

    /// What the bounded metadata cache cost so far (zero when unbounded).
    pub fn metadata_stats(&self) -> MetadataStats {
        self.meta.stats
    }

    /// Write every pending FAT sector (both copies), then every pending directory sector.
    pub fn flush_metadata(&mut self) -> Result<(), Error> {
        if self.table.has_dirty() {
            self.invalidate_fsinfo()?;
        }
        self.table.flush(&mut self.dev, &self.layout)?;
        for s in std::mem::take(&mut self.dir_dirty) {
            let bytes = &self.dir_cache[&s];
            self.dev.write(s, bytes)?;
        }
        Ok(())
    }

    /// FAT32: rewrite FSInfo as "count unknown" before the first FAT change after a sync.
    fn invalidate_fsinfo(&mut self) -> Result<(), Error> {
        if self.fsinfo_has_count {
            let info = fsinfo_sector(self.layout.bytes_per_sector, FSINFO_UNKNOWN, FSINFO_UNKNOWN);
            self.dev.write(self.layout.fsinfo_sector as u64, &info)?;
            self.fsinfo_has_count = false;
        }
        Ok(())
    }

    /// End of a file-system operation: with [`Metadata::Delayed`], write back every n-th time.
    pub(crate) fn op_done(&mut self) -> Result<(), Error> {
        if let Metadata::Delayed(n) = self.metadata {
            self.ops_since_flush += 1;
            if self.ops_since_flush >= n {
                self.ops_since_flush = 0;
                self.flush_metadata()?;
            }
        }
        Ok(())
    }

    /// A metadata sector is needed (FAT copy 1 or directory). With a bounded cache: a miss
    /// reads it from the device (`read`; `false` for a directory sector being overwritten
    /// whole), then sectors over capacity leave, dirty ones written first in deferred modes.
    pub(crate) fn meta_touch(&mut self, s: u64, read: bool) -> Result<(), Error> {
        if !self.meta.bounded() || !self.charge || self.meta.touch(s) {
            return Ok(());
        }
        let fat_rel = self.fat_relative(s);
        if read {
            let mut buf = vec![0u8; self.layout.bytes_per_sector as usize];
            self.dev.read(s, &mut buf)?;
            match fat_rel {
                Some(rel) => {
                    debug_assert_eq!(buf, self.table.sector_bytes(rel), "FAT sector {s} differs from the mirror");
                    self.meta.stats.fat_reads += 1;
                }
                None => {
                    debug_assert!(self.dir_cache.get(&s).is_none_or(|c| *c == buf), "directory sector {s} differs");
                    self.dir_cache.entry(s).or_insert(buf);
                    self.meta.stats.dir_reads += 1;
                }
            }
        }
        let deferred = self.metadata.deferred();
        let victims = self.meta.victims(s, |v| !deferred && self.is_dirty_meta(v));
        for v in victims {
            if self.is_dirty_meta(v) {
                match self.fat_relative(v) {
                    Some(rel) => {
                        self.invalidate_fsinfo()?;
                        self.table.write_sector(&mut self.dev, &self.layout, rel)?;
                    }
                    None => {
                        self.dev.write(v, &self.dir_cache[&v])?;
                        self.dir_dirty.remove(&v);
                    }
                }
                self.meta.stats.evict_writes += 1;
            }
            self.meta.remove(v);
        }
        Ok(())
    }

    /// FAT-relative sector number of absolute sector `s` if it lies in FAT copy 1.
    fn fat_relative(&self, s: u64) -> Option<u32> {
        let first = self.layout.reserved_sectors as u64;
        (first..first + self.layout.fat_sectors as u64).contains(&s).then(|| (s - first) as u32)
    }

    fn is_dirty_meta(&self, s: u64) -> bool {
        match self.fat_relative(s) {
            Some(rel) => self.table.is_dirty_sector(rel),
            None => self.dir_dirty.contains(&s),
        }
    }

    /// Absolute sector of FAT copy 1 holding cluster `c`'s entry.
    fn fat_sector_of(&self, c: u32) -> u64 {
        self.layout.reserved_sectors as u64 + (c / self.table.entries_per_sector()) as u64
    }

    /// The chain starting at `first`, charging the FAT sectors walked.
    pub(crate) fn fat_chain(&mut self, first: u32, path: &str) -> Result<Vec<u32>, Error> {
        let chain = self.table.chain(first, path)?;
        if self.meta.bounded() {
            let mut last = None;
            for &c in &chain {
                let s = self.fat_sector_of(c);
                if last != Some(s) {
                    self.meta_touch(s, true)?;
                    last = Some(s);
                }
            }
        }
        Ok(chain)
    }

    /// Set FAT entry `c` to `v`, charging its sector (read-modify-write).
    pub(crate) fn fat_set(&mut self, c: u32, v: u32) -> Result<(), Error> {
        self.meta_touch(self.fat_sector_of(c), true)?;
        self.table.set(c, v);
        Ok(())
    }

    /// Set the flash block size (sectors): a multiple of the cluster size, and the data region
    /// must start on a flash-block boundary.
    pub fn set_flash_block_sectors(&mut self, sectors: u32) -> Result<(), Error> {
        let spc = self.layout.sectors_per_cluster;
        if sectors == 0 || !sectors.is_multiple_of(spc) {
            return Err(Error::config(
                "fs.flash_block_sectors",
                format!("{sectors} is not a positive multiple of the cluster size ({spc} sectors)"),
            ));
        }
        if !self.layout.first_data_sector.is_multiple_of(sectors) {
            return Err(Error::config(
                "fs.flash_block_sectors",
                format!(
                    "the data region starts at sector {}, not on a {sectors}-sector flash block",
                    self.layout.first_data_sector
                ),
            ));
        }
        self.flash_block_sectors = sectors;
        self.table.set_clusters_per_block(sectors / spc);
        Ok(())
    }

    /// FAT32: write the exact free-cluster count to FSInfo (one sector). No-op on FAT16.
    pub fn sync(&mut self) -> Result<(), Error> {
        self.flush_metadata()?;
        if self.layout.fsinfo_sector == 0 {
            return Ok(());
        }
        let info = fsinfo_sector(self.layout.bytes_per_sector, self.table.free_count(), FSINFO_UNKNOWN);
        self.dev.write(self.layout.fsinfo_sector as u64, &info)?;
        self.fsinfo_has_count = true;
        Ok(())
    }

    pub fn fat_type(&self) -> FatType {
        self.layout.fat_type
    }
    pub fn cluster_bytes(&self) -> u32 {
        self.layout.cluster_bytes()
    }
    /// Data clusters; valid numbers are `2 .. 2 + cluster_count()`.
    pub fn cluster_count(&self) -> u32 {
        self.layout.cluster_count
    }
    pub fn free_clusters(&self) -> u32 {
        self.table.free_count()
    }
    pub fn first_data_sector(&self) -> u64 {
        self.layout.first_data_sector as u64
    }
    pub fn flash_block_sectors(&self) -> u32 {
        self.flash_block_sectors
    }
    pub fn device(&self) -> &D {
        &self.dev
    }
    /// The device, for callers that move cluster data themselves (defragmentation). Writing
    /// anything but free clusters corrupts the volume.
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.dev
    }
    pub fn into_device(self) -> D {
        self.dev
    }

    /// Write pending FAT changes (FSInfo invalidated first when it holds a count).
    fn flush_fat(&mut self) -> Result<(), Error> {
        if self.metadata.deferred() {
            return Ok(());
        }
        self.invalidate_fsinfo()?;
        self.table.flush(&mut self.dev, &self.layout)
    }

    /// Ask the allocator for a cluster and mark it end-of-chain in the mirror (not yet on
    /// disk). `None` when the volume is full.
    fn alloc_cluster(&mut self, req: AllocRequest) -> Result<Option<u32>, Error> {
        let Some(c) = self.alloc.allocate(&self.table.view(), req) else { return Ok(None) };
        assert!(
            self.table.is_cluster(c) && self.table.is_free(c),
            "allocator returned cluster {c}, which is not a free cluster"
        );
        let eoc = self.table.eoc();
        self.fat_set(c, eoc)?;
        Ok(Some(c))
    }
}
