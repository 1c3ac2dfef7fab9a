//! The FAT model against the real tools: images we write must pass `fsck.fat -n` and read back
//! byte-exact with mtools; images `mkfs.fat` makes must mount and take our writes. Plus a
//! model-based proptest (path -> bytes oracle), the allocation policies' placement rules,
//! relocation, and error cases. When dosfstools/mtools are missing only the tool checks are
//! skipped (with a message); CI installs them.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use common::fat_tools::*;

use flashlab_fs::alloc;
use flashlab_fs::{BlockDevice, FatFs, FatType, FormatOptions, MemDisk, Metadata, MetadataStats};
use proptest::prelude::*;

// ---------- helpers ----------

/// splitmix64: seeded test data without extra dependencies.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn bytes_below(&mut self, max: u64) -> Vec<u8> {
        let n = self.below(max) as usize;
        self.bytes(n)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn fat16_opts(spc: u32) -> FormatOptions {
    FormatOptions { fat_type: FatType::Fat16, sectors_per_cluster: spc, ..FormatOptions::default() }
}

fn fat32_opts(spc: u32) -> FormatOptions {
    FormatOptions { fat_type: FatType::Fat32, sectors_per_cluster: spc, ..FormatOptions::default() }
}

/// 4 MiB FAT16 with 512-byte clusters (about 8000 clusters).
fn small_fs(fbs: u32) -> FatFs<MemDisk> {
    let opts = FormatOptions { data_align_sectors: fbs, flash_block_sectors: fbs, ..fat16_opts(1) };
    FatFs::format(MemDisk::new(8192, 512).unwrap(), opts).unwrap()
}

fn write_file<D: BlockDevice>(fs: &mut FatFs<D>, path: &str, data: &[u8], rng: &mut Rng) {
    let fd = fs.create(path).unwrap();
    let mut at = 0;
    while at < data.len() {
        let n = (1 + rng.below(9000) as usize).min(data.len() - at);
        fs.write(fd, &data[at..at + n]).unwrap();
        at += n;
    }
    fs.close(fd).unwrap();
}

fn check_model<D: BlockDevice>(fs: &mut FatFs<D>, model: &BTreeMap<String, Vec<u8>>) {
    for (path, bytes) in model {
        assert_eq!(fs.stat(path).unwrap().size as usize, bytes.len(), "{path} size");
        assert!(read_all(fs, path, 777) == *bytes, "{path} contents differ");
    }
    let on_disk: BTreeSet<String> = fs.files().unwrap().into_iter().map(|(p, _)| p).collect();
    assert_eq!(on_disk, model.keys().cloned().collect(), "files() lists exactly the model's files");
}

// ---------- round trip against the tools ----------

/// A [`MemDisk`] that counts the sectors written to it (and, in `.2`, read from it).
struct Counting(MemDisk, u64, u64);
impl BlockDevice for Counting {
    fn sector_size(&self) -> u32 {
        self.0.sector_size()
    }
    fn sectors(&self) -> u64 {
        self.0.sectors()
    }
    fn read(&mut self, first: u64, buf: &mut [u8]) -> Result<(), flashlab::error::Error> {
        self.2 += buf.len() as u64 / 512;
        self.0.read(first, buf)
    }
    fn write(&mut self, first: u64, data: &[u8]) -> Result<(), flashlab::error::Error> {
        self.1 += data.len() as u64 / 512;
        self.0.write(first, data)
    }
}

fn round_trip(opts: FormatOptions, sectors: u64, tag: &str) {
    round_trip_with(opts, sectors, tag, Metadata::WriteThrough);
}

fn round_trip_with(opts: FormatOptions, sectors: u64, tag: &str, metadata: Metadata) -> u64 {
    round_trip_cached(opts, sectors, tag, metadata, None).0
}

/// The round trip; returns the sectors written and read after formatting (before the final
/// check) and the metadata cache's counts.
fn round_trip_cached(
    opts: FormatOptions,
    sectors: u64,
    tag: &str,
    metadata: Metadata,
    cache: Option<u32>,
) -> (u64, u64, MetadataStats) {
    let mut fs = FatFs::format(Counting(MemDisk::new(sectors, 512).unwrap(), 0, 0), opts).unwrap();
    fs.set_metadata(metadata).unwrap();
    fs.set_metadata_cache(cache).unwrap();
    fs.device_mut().1 = 0;
    let mut rng = Rng(0xF1A5_0000 + sectors);
    let dirs = ["/DATA", "/DATA/SUB", "/D2", "/"];
    for d in &dirs[..3] {
        fs.mkdir(d).unwrap();
    }
    let mut model = BTreeMap::new();
    for i in 0..200 {
        let dir = dirs[i % dirs.len()];
        let path = format!("{}/F{i:04}.BIN", dir.trim_end_matches('/'));
        let data = rng.bytes_below(100 * 1024);
        write_file(&mut fs, &path, &data, &mut rng);
        model.insert(path, data);
    }
    let paths: Vec<String> = model.keys().cloned().collect();
    for (k, path) in paths.iter().enumerate() {
        let data = model.get_mut(path).unwrap();
        let fd = fs.open(path).unwrap();
        if k % 5 == 0 {
            let extra = rng.bytes_below(20_000);
            fs.append(fd, &extra).unwrap();
            data.extend_from_slice(&extra);
        } else if k % 5 == 1 {
            let pos = rng.below(data.len() as u64 + 1) as usize;
            let new = rng.bytes_below(30_000);
            fs.seek(fd, pos as u64).unwrap();
            fs.write(fd, &new).unwrap();
            data.resize(data.len().max(pos + new.len()), 0);
            data[pos..pos + new.len()].copy_from_slice(&new);
        }
        fs.close(fd).unwrap();
        if k % 7 == 3 {
            fs.delete(path).unwrap();
            model.remove(path);
        }
    }
    let stats = fs.metadata_stats();
    let read = fs.device().2;
    check_model(&mut fs, &model);
    fs.sync().unwrap();

    // Mount the image afresh: everything must be on disk.
    let Counting(disk, written, _) = fs.into_device();
    let written = (written, read, stats);
    let image = disk.image().to_vec();
    let mut fs = FatFs::mount(MemDisk::from_image(image.clone(), 512).unwrap()).unwrap();
    check_model(&mut fs, &model);

    let Some(t) = tools("fsck/mtools checks of the round trip") else { return written };
    let img = fsck_ok(&t, &image, tag);
    let listing = mdir(&t, &img, "/DATA");
    for path in paths.iter().filter(|p| p.starts_with("/DATA/F")) {
        let base = &path["/DATA/".len().."/DATA/".len() + 5];
        assert_eq!(listing.contains(base), model.contains_key(path), "mdir /DATA and {path}:\n{listing}");
    }
    for (path, bytes) in &model {
        assert!(mcopy_bytes(&t, &img, path) == *bytes, "mcopy {path} returned different bytes");
    }
    std::fs::remove_file(img).ok();
    written
}

/// A bounded metadata cache under every write policy: the round trip still mounts afresh,
/// passes fsck and reads back byte-exact; metadata misses reach the device as reads (more of
/// them with a smaller cache); write-back modes write evicted dirty sectors.
#[test]
fn bounded_metadata_cache_reads_metadata_and_images_stay_valid() {
    let opts = || fat16_opts(4);
    let run = |m, c, tag| round_trip_cached(opts(), 131072, tag, m, c);
    let (_, _, none) = run(Metadata::WriteThrough, None, "mc-unbounded");
    assert_eq!(none, MetadataStats::default(), "an unbounded cache never misses");
    let mut reads = Vec::new();
    for (m, c, tag) in [
        (Metadata::WriteThrough, Some(1), "mc-wt-1"),
        (Metadata::WriteThrough, Some(64), "mc-wt-64"),
        (Metadata::WriteBack, Some(1), "mc-wb-1"),
        (Metadata::Delayed(8), Some(4), "mc-delay-4"),
        (Metadata::Delayed(16), None, "mc-delay-unbounded"),
    ] {
        let (written, read, st) = run(m, c, tag);
        eprintln!("{tag}: {written} sectors written, {read} read, {st:?}");
        if c.is_some() {
            assert!(st.fat_reads > 0 && st.dir_reads > 0, "{tag}: {st:?}");
            assert!(read >= st.fat_reads + st.dir_reads, "{tag}: misses are device reads");
            assert_eq!(st.evict_writes > 0, m != Metadata::WriteThrough, "{tag}: {st:?}");
            reads.push(st.fat_reads + st.dir_reads);
        }
    }
    assert!(reads[0] > reads[1], "one sector misses more than 64: {reads:?}");
}

/// Exact metadata reads and eviction writes of a hand-built sequence with a one-sector cache
/// (ChaN FatFs's window): create, write, close, open on the fixed FAT16 root.
#[test]
fn one_sector_cache_counts_are_exact() {
    for (m, evict_writes) in [(Metadata::WriteThrough, 0), (Metadata::WriteBack, 2)] {
        let opts = FormatOptions { data_align_sectors: 8, flash_block_sectors: 8, ..fat16_opts(1) };
        let mut fs = FatFs::format(Counting(MemDisk::new(8192, 512).unwrap(), 0, 0), opts).unwrap();
        fs.set_metadata(m).unwrap();
        fs.set_metadata_cache(Some(1)).unwrap();
        // create: root sector 0 (miss); write: FAT sector 0 (miss), root sector 0 (miss) for the
        // entry's size; open: root sector 0 (hit), FAT sector 0 for the chain (miss).
        let fd = fs.create("/A.TXT").unwrap();
        fs.write(fd, &[7u8; 100]).unwrap();
        fs.close(fd).unwrap();
        let fd = fs.open("/A.TXT").unwrap();
        fs.close(fd).unwrap();
        let want = MetadataStats { fat_reads: 2, dir_reads: 2, evict_writes };
        assert_eq!(fs.metadata_stats(), want, "{m:?}");
        assert_eq!(fs.device().2, 4, "{m:?}: the four misses are the only device reads");
    }
    let mut fs = small_fs(8);
    assert!(fs.set_metadata_cache(Some(0)).is_err());
    assert!(fs.set_metadata(Metadata::Delayed(0)).is_err());
}

/// A delayed write-back writes metadata only every n-th operation: fewer writes than
/// write-back at close, more than never.
#[test]
fn delayed_write_back_flushes_every_n_operations() {
    let mut fs = FatFs::format(Counting(MemDisk::new(8192, 512).unwrap(), 0, 0), fat16_opts(1)).unwrap();
    fs.set_metadata(Metadata::Delayed(3)).unwrap();
    fs.device_mut().1 = 0;
    let fd = fs.create("/A.TXT").unwrap(); // op 1: nothing written
    assert_eq!(fs.device().1, 0);
    fs.write(fd, &[1u8; 512]).unwrap(); // op 2: the data sector only
    assert_eq!(fs.device().1, 1);
    fs.close(fd).unwrap(); // op 3: FAT sector to both copies, the root sector
    assert_eq!(fs.device().1, 1 + 2 + 1);
    let mut fs = FatFs::mount(MemDisk::from_image(fs.into_device().0.image().to_vec(), 512).unwrap()).unwrap();
    assert_eq!(read_all(&mut fs, "/A.TXT", 100), vec![1u8; 512]);
}

/// With a metadata cache (FAT and directory sectors written back at close and sync) the same
/// operations write fewer sectors, and the synced image still mounts afresh, passes fsck and
/// reads back byte-exact with mtools.
#[test]
fn metadata_write_back_writes_less_and_the_synced_image_passes_fsck() {
    let through = round_trip_with(fat16_opts(4), 131072, "fat16-write-through", Metadata::WriteThrough);
    let back = round_trip_with(fat16_opts(4), 131072, "fat16-write-back", Metadata::WriteBack);
    eprintln!("sectors written: write-through {through}, write-back {back}");
    assert!(back < through, "write-back {back} sectors, write-through {through}");
}

#[test]
fn fat16_round_trip_passes_fsck_and_mtools() {
    round_trip(fat16_opts(4), 131072, "rt16");
}

#[test]
fn fat32_round_trip_passes_fsck_and_mtools() {
    round_trip(fat32_opts(1), 131072, "rt32");
}

// ---------- images made by mkfs.fat ----------

#[test]
fn mounts_and_writes_mkfs_images() {
    let Some(t) = tools("mounting mkfs.fat images (the whole test needs mkfs.fat)") else { return };
    for (fat, spc) in [("16", "4"), ("32", "1")] {
        let img = tmp(&format!("mkfs{fat}.img"));
        let (ok, text) =
            run(Command::new(&t.mkfs).args(["-C", "-F", fat, "-s", spc, "-n", "MKFS"]).arg(&img).arg("65536"));
        assert!(ok, "mkfs.fat -F {fat}: {text}");
        let bytes = std::fs::read(&img).unwrap();
        std::fs::remove_file(&img).ok();
        let mut fs = FatFs::mount(MemDisk::from_image(bytes, 512).unwrap()).unwrap();
        assert_eq!(fs.fat_type(), if fat == "16" { FatType::Fat16 } else { FatType::Fat32 });
        let mut rng = Rng(7);
        let mut model = BTreeMap::new();
        fs.mkdir("/OURS").unwrap();
        for i in 0..40 {
            let path = format!("/OURS/M{i}.DAT");
            let data = rng.bytes_below(50_000);
            write_file(&mut fs, &path, &data, &mut rng);
            model.insert(path, data);
        }
        check_model(&mut fs, &model);
        let img = fsck_ok(&t, fs.device().image(), &format!("mkfs{fat}-ours"));
        assert!(mcopy_bytes(&t, &img, "/OURS/M3.DAT") == model["/OURS/M3.DAT"]);
        std::fs::remove_file(img).ok();
    }
}

// ---------- model-based proptest ----------

#[derive(Clone, Debug)]
enum Op {
    Mkdir(usize),
    Create(usize, usize),
    Write(usize, usize, u16, u64),
    Append(usize, usize, u16, u64),
    Read(usize, usize),
    Delete(usize, usize),
    /// Mount the image afresh (everything must be on disk).
    Remount,
}

const DIRS: [&str; 4] = ["", "/A", "/B", "/A/C"];

fn path_of(d: usize, n: usize) -> String {
    format!("{}/N{n}.DAT", DIRS[d])
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let (d, n) = (0..DIRS.len(), 0..6usize);
    prop::collection::vec(
        prop_oneof![
            1 => (1..DIRS.len()).prop_map(Op::Mkdir),
            3 => (d.clone(), n.clone()).prop_map(|(d, n)| Op::Create(d, n)),
            3 => (d.clone(), n.clone(), 0..20_000u16, any::<u64>()).prop_map(|(d, n, l, s)| Op::Write(d, n, l, s)),
            2 => (d.clone(), n.clone(), 0..5_000u16, any::<u64>()).prop_map(|(d, n, l, s)| Op::Append(d, n, l, s)),
            2 => (d.clone(), n.clone()).prop_map(|(d, n)| Op::Read(d, n)),
            1 => (d, n).prop_map(|(d, n)| Op::Delete(d, n)),
            1 => Just(Op::Remount),
        ],
        1..80,
    )
}

fn apply(fs: &mut FatFs<MemDisk>, model: &mut BTreeMap<String, Vec<u8>>, dirs: &mut BTreeSet<String>, op: &Op) {
    let parent_ok = |dirs: &BTreeSet<String>, d: usize| d == 0 || dirs.contains(DIRS[d]);
    match *op {
        Op::Mkdir(d) => {
            let parent = DIRS[d].rsplit_once('/').unwrap().0;
            let expect_ok = !dirs.contains(DIRS[d]) && (parent.is_empty() || dirs.contains(parent));
            assert_eq!(fs.mkdir(DIRS[d]).is_ok(), expect_ok, "{op:?}");
            if expect_ok {
                dirs.insert(DIRS[d].to_string());
            }
        }
        Op::Create(d, n) => {
            let p = path_of(d, n);
            let expect_ok = parent_ok(dirs, d) && !model.contains_key(&p);
            let r = fs.create(&p);
            assert_eq!(r.is_ok(), expect_ok, "{op:?}");
            if let Ok(fd) = r {
                fs.close(fd).unwrap();
                model.insert(p, Vec::new());
            }
        }
        Op::Write(d, n, len, seed) | Op::Append(d, n, len, seed) => {
            let p = path_of(d, n);
            let Some(data) = model.get_mut(&p) else {
                assert!(fs.open(&p).is_err(), "{op:?} on a missing file");
                return;
            };
            let mut rng = Rng(seed);
            let new = rng.bytes(len as usize);
            let fd = fs.open(&p).unwrap();
            if matches!(op, Op::Append(..)) {
                fs.append(fd, &new).unwrap();
                data.extend_from_slice(&new);
            } else {
                let pos = rng.below(data.len() as u64 + 1) as usize;
                fs.seek(fd, pos as u64).unwrap();
                fs.write(fd, &new).unwrap();
                data.resize(data.len().max(pos + new.len()), 0);
                data[pos..pos + new.len()].copy_from_slice(&new);
            }
            fs.close(fd).unwrap();
        }
        Op::Read(d, n) => {
            let p = path_of(d, n);
            match model.get(&p) {
                Some(bytes) => assert!(read_all(fs, &p, 777) == *bytes, "{op:?}: contents differ"),
                None => assert!(fs.open(&p).is_err(), "{op:?} on a missing file"),
            }
        }
        Op::Delete(d, n) => {
            let p = path_of(d, n);
            assert_eq!(fs.delete(&p).is_ok(), model.remove(&p).is_some(), "{op:?}");
        }
        Op::Remount => {
            let image = fs.device().image().to_vec();
            *fs = FatFs::mount(MemDisk::from_image(image, 512).unwrap()).unwrap();
            fs.set_flash_block_sectors(16).unwrap();
            check_model(fs, model);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn random_operations_match_the_model(ops in ops(), afca in any::<bool>()) {
        let mut fs = small_fs(16);
        if afca {
            let params: toml::Table = toml::from_str("threshold_bytes = 4096").unwrap();
            fs.set_allocator(alloc::build("afca", &params).unwrap());
        }
        let (mut model, mut dirs) = (BTreeMap::new(), BTreeSet::new());
        for op in &ops {
            apply(&mut fs, &mut model, &mut dirs, op);
        }
        check_model(&mut fs, &model);
        if let Some(t) = tools("fsck of the proptest image") {
            let img = fsck_ok(&t, fs.device().image(), "prop");
            std::fs::remove_file(img).ok();
        }
    }
}

// ---------- allocation policies ----------

fn chain_of<D: BlockDevice>(fs: &mut FatFs<D>, path: &str) -> Vec<u32> {
    fs.files().unwrap().into_iter().find(|(p, _)| p == path).unwrap().1
}

#[test]
fn sca_allocates_in_order_from_its_cursor() {
    let mut fs = small_fs(16);
    let mut rng = Rng(1);
    write_file(&mut fs, "/A.DAT", &[1; 1536], &mut rng);
    write_file(&mut fs, "/B.DAT", &[2; 1024], &mut rng);
    assert_eq!(chain_of(&mut fs, "/A.DAT"), vec![2, 3, 4]);
    assert_eq!(chain_of(&mut fs, "/B.DAT"), vec![5, 6]);
    fs.delete("/A.DAT").unwrap();
    // The cursor is after 6: the freed clusters 2..=4 are not reused yet.
    write_file(&mut fs, "/C.DAT", &[3; 1024], &mut rng);
    assert_eq!(chain_of(&mut fs, "/C.DAT"), vec![7, 8]);
    // Fill to the end: the cursor wraps to the freed clusters.
    let rest = (fs.free_clusters() - 3) as usize * 512;
    write_file(&mut fs, "/D.DAT", &vec![4; rest], &mut rng);
    write_file(&mut fs, "/E.DAT", &[5; 1536], &mut rng);
    assert_eq!(chain_of(&mut fs, "/E.DAT"), vec![2, 3, 4]);
    assert_eq!(fs.free_clusters(), 0);
}

/// Owner (path) of every allocated file cluster.
fn owners<D: BlockDevice>(fs: &mut FatFs<D>) -> BTreeMap<u32, String> {
    fs.files().unwrap().into_iter().flat_map(|(p, ch)| ch.into_iter().map(move |c| (c, p.clone()))).collect()
}

#[test]
fn afca_gives_large_files_private_blocks_and_packs_small_ones() {
    // 8-cluster flash blocks, large = more than 4 KiB (8 clusters of 512 bytes).
    let mut fs = small_fs(8);
    let params: toml::Table = toml::from_str("threshold_bytes = 4096").unwrap();
    fs.set_allocator(alloc::build("afca", &params).unwrap());
    assert_eq!(fs.clusters_per_flash_block(), 8);
    let big = fs.create("/BIG.DAT").unwrap();
    for i in 0..10 {
        let fd = fs.create(&format!("/S{i}.DAT")).unwrap();
        fs.write(fd, &[i as u8; 1024]).unwrap();
        fs.close(fd).unwrap();
        fs.append(big, &[0xB0 | i as u8; 4096]).unwrap();
    }
    fs.close(big).unwrap();
    let owner = owners(&mut fs);
    let big_chain = chain_of(&mut fs, "/BIG.DAT");
    assert_eq!(big_chain.len(), 80);
    // Clusters allocated while BIG was at most 4 KiB (its first 8) share blocks with small
    // files; every later one sits in a block holding only BIG's clusters.
    let private: BTreeSet<u32> = big_chain[8..].iter().map(|&c| fs.flash_block_of_cluster(c)).collect();
    assert_eq!(private.len(), 9, "72 clusters fill exactly 9 blocks");
    for (&c, p) in &owner {
        if private.contains(&fs.flash_block_of_cluster(c)) {
            assert_eq!(p, "/BIG.DAT", "cluster {c} of {p} sits in one of BIG's private blocks");
        }
    }
    // Small files (and BIG's small start) are packed: 28 clusters in 4 shared blocks.
    let shared: BTreeSet<u32> = owner
        .iter()
        .filter(|(c, p)| *p != "/BIG.DAT" || big_chain[..8].contains(c))
        .map(|(&c, _)| fs.flash_block_of_cluster(c))
        .collect();
    assert_eq!(shared.len(), 4, "shared blocks {shared:?}");
    assert!(shared.is_disjoint(&private));
    // Its decision counts say the same: 9 new blocks, 63 clusters in them, 28 shared.
    let counts: Vec<u64> = fs.allocator_counters().into_iter().map(|c| c.1).collect();
    assert_eq!(counts, vec![63, 9, 0, 28, 0], "{:?}", fs.allocator_counters());
    let data = read_all(&mut fs, "/BIG.DAT", 777);
    assert!(data.chunks(4096).enumerate().all(|(i, c)| c.iter().all(|&b| b == 0xB0 | i as u8)));
    if let Some(t) = tools("fsck of the AFCA image") {
        std::fs::remove_file(fsck_ok(&t, fs.device().image(), "afca")).ok();
    }
}

#[test]
fn allocator_registry_rejects_unknown_names_and_params() {
    let err = alloc::build("best-fit", &toml::Table::new()).err().unwrap().to_string();
    assert!(err.contains("sca") && err.contains("afca"), "{err}");
    let params: toml::Table = toml::from_str("treshold = 1").unwrap();
    assert!(alloc::build("afca", &params).is_err());
    assert!(alloc::build("sca", &params).is_err());
}

// ---------- relocation ----------

#[test]
fn relocate_keeps_contents_and_passes_fsck() {
    let mut fs = small_fs(16);
    let mut rng = Rng(99);
    let data = rng.bytes(10 * 512 - 100);
    write_file(&mut fs, "/MOVE.DAT", &data, &mut rng);
    write_file(&mut fs, "/OTHER.DAT", &rng.bytes(3000), &mut rng);
    let before = chain_of(&mut fs, "/MOVE.DAT");
    let last = 1 + fs.cluster_count();
    let moves: Vec<(u32, u32)> =
        [0usize, 3, 4, 9].iter().enumerate().map(|(k, &i)| (before[i], last - k as u32)).collect();
    for &(old, new) in &moves {
        fs.copy_cluster(old, new).unwrap();
    }
    let fd = fs.open("/MOVE.DAT").unwrap();
    fs.relocate("/MOVE.DAT", &moves).unwrap();
    let after = chain_of(&mut fs, "/MOVE.DAT");
    assert_eq!(fs.stat("/MOVE.DAT").unwrap().first_cluster, after[0]);
    for (i, &c) in after.iter().enumerate() {
        let expect = moves.iter().find(|m| m.0 == before[i]).map_or(before[i], |m| m.1);
        assert_eq!(c, expect, "chain position {i}");
    }
    assert!(moves.iter().all(|&(old, _)| fs.is_cluster_free(old)));
    // The open handle follows the new chain.
    let mut buf = vec![0u8; data.len()];
    assert_eq!(fs.read(fd, &mut buf).unwrap(), data.len());
    assert!(buf == data);
    fs.close(fd).unwrap();
    assert!(read_all(&mut fs, "/MOVE.DAT", 777) == data);
    // Bad moves are errors: a used target, a cluster not in the file.
    assert!(fs.relocate("/MOVE.DAT", &[(after[1], after[2])]).is_err());
    assert!(fs.relocate("/MOVE.DAT", &[(before[0], 500)]).is_err());
    if let Some(t) = tools("fsck after relocate") {
        std::fs::remove_file(fsck_ok(&t, fs.device().image(), "reloc")).ok();
    }
}

// ---------- directories ----------

#[test]
fn thousands_of_files_in_one_directory() {
    let opts = FormatOptions { data_align_sectors: 8, flash_block_sectors: 8, ..fat32_opts(1) };
    let mut fs = FatFs::format(MemDisk::new(131072, 512).unwrap(), opts).unwrap();
    fs.mkdir("/POST").unwrap();
    for i in 0..3000 {
        let fd = fs.create(&format!("/POST/P{i:05}")).unwrap();
        fs.write(fd, format!("file {i}").as_bytes()).unwrap();
        fs.close(fd).unwrap();
    }
    fs.sync().unwrap(); // FSInfo gets an exact count; the deletes below must invalidate it
    for i in (0..3000).step_by(3) {
        fs.delete(&format!("/POST/P{i:05}")).unwrap();
    }
    let list = fs.list("/POST").unwrap();
    assert_eq!(list.len(), 2000);
    assert_eq!(read_all(&mut fs, "/POST/P02999", 777), b"file 2999");
    fs.mkdir("/POST/SUB").unwrap();
    assert!(fs.rmdir("/POST").is_err(), "not empty");
    fs.rmdir("/POST/SUB").unwrap();
    if let Some(t) = tools("fsck of the big directory") {
        let img = fsck_ok(&t, fs.device().image(), "bigdir");
        assert!(mdir(&t, &img, "/POST").contains("P02998"));
        std::fs::remove_file(img).ok();
    }
}

#[test]
fn fat16_root_directory_full_is_an_error() {
    let mut fs = small_fs(16);
    // 512 entries, one taken by the volume label.
    for i in 0..511 {
        let fd = fs.create(&format!("/R{i}")).unwrap();
        fs.close(fd).unwrap();
    }
    let err = fs.create("/R511").err().unwrap().to_string();
    assert!(err.contains("root directory is full") && err.contains("subdirectory"), "{err}");
}

// ---------- errors ----------

#[test]
fn errors_are_clear_and_leave_the_volume_consistent() {
    let mut fs = small_fs(16);
    for bad in ["/lower.txt", "/TOOLONGNAME.TXT", "/A.B.C", "/BAD*.TXT", "NOSLASH", "/X.ABCD", "/DIR//F", "/.DAT"] {
        let err = fs.create(bad).err().unwrap_or_else(|| panic!("{bad} accepted")).to_string();
        assert!(err.contains(bad), "error names the path: {err}");
    }
    let fd = fs.create("/F.TXT").unwrap();
    fs.close(fd).unwrap();
    assert!(fs.create("/F.TXT").err().unwrap().to_string().contains("already exists"));
    assert!(fs.delete("/MISSING.TXT").err().unwrap().to_string().contains("no such file"));
    assert!(fs.open("/NODIR/F.TXT").is_err());
    assert!(fs.seek(fd, 0).is_err(), "closed descriptor");
    fs.mkdir("/D").unwrap();
    assert!(fs.delete("/D").is_err() && fs.open("/D").is_err() && fs.rmdir("/F.TXT").is_err());

    // Disk full: a write that does not fit fails whole, with a clear message.
    let fd = fs.open("/F.TXT").unwrap();
    let free = fs.free_clusters() as usize;
    fs.write(fd, &vec![7; (free - 2) * 512]).unwrap();
    let err = fs.append(fd, &[8; 5 * 512]).err().unwrap().to_string();
    assert!(err.contains("file system full"), "{err}");
    assert_eq!(fs.size(fd).unwrap() as usize, (free - 2) * 512);
    assert_eq!(fs.free_clusters(), 2);
    fs.append(fd, &[9; 1024]).unwrap();
    fs.close(fd).unwrap();
    assert!(fs.mkdir("/FULL").err().unwrap().to_string().contains("full"));
    if let Some(t) = tools("fsck of the full volume") {
        std::fs::remove_file(fsck_ok(&t, fs.device().image(), "full")).ok();
    }
}

#[test]
fn format_rejects_invalid_geometry() {
    let err = FatFs::format(MemDisk::new(131072, 512).unwrap(), fat16_opts(1)).err().unwrap().to_string();
    assert!(err.contains("4085..=65524"), "{err}");
    let err = FatFs::format(MemDisk::new(131072, 512).unwrap(), fat32_opts(4)).err().unwrap().to_string();
    assert!(err.contains(">= 65525"), "{err}");
    let opts = FormatOptions { data_align_sectors: 100, ..fat16_opts(4) };
    assert!(
        FatFs::format(MemDisk::new(131072, 512).unwrap(), opts).is_err(),
        "align not a multiple of the flash block"
    );
    let opts = FormatOptions { label: "bad label".into(), ..fat16_opts(4) };
    assert!(FatFs::format(MemDisk::new(131072, 512).unwrap(), opts).is_err());
    assert!(FatFs::mount(MemDisk::new(8192, 512).unwrap()).is_err(), "blank disk");
    let mut d = MemDisk::new(4, 512).unwrap();
    assert!(d.write(3, &[0; 1024]).is_err() && d.read(0, &mut [0; 100]).is_err());
}

#[test]
fn data_region_is_aligned_to_the_flash_block() {
    for (opts, sectors) in [(fat16_opts(4), 131072), (fat32_opts(1), 131072)] {
        let fs = FatFs::format(MemDisk::new(sectors, 512).unwrap(), opts).unwrap();
        assert_eq!(fs.first_data_sector() % 256, 0);
        assert_eq!(fs.cluster_first_sector(2), fs.first_data_sector());
        assert_eq!(fs.flash_block_of_cluster(2 + fs.clusters_per_flash_block()), 1);
    }
}

// ---------- write order: a crash after any write leaves a consistent file ----------

/// A disk that logs every write (to replay prefixes of an operation's writes).
struct LoggingDisk {
    inner: MemDisk,
    log: Vec<(u64, Vec<u8>)>,
}

impl BlockDevice for LoggingDisk {
    fn sector_size(&self) -> u32 {
        self.inner.sector_size()
    }
    fn sectors(&self) -> u64 {
        self.inner.sectors()
    }
    fn read(&mut self, first_sector: u64, buf: &mut [u8]) -> Result<(), flashlab::Error> {
        self.inner.read(first_sector, buf)
    }
    fn write(&mut self, first_sector: u64, data: &[u8]) -> Result<(), flashlab::Error> {
        self.log.push((first_sector, data.to_vec()));
        self.inner.write(first_sector, data)
    }
}

/// Replay each prefix of `log` on `before` and return what `path` reads after mounting.
fn reads_after_each_write(before: &[u8], log: &[(u64, Vec<u8>)], path: &str) -> Vec<Vec<u8>> {
    (0..=log.len())
        .map(|k| {
            let mut disk = MemDisk::from_image(before.to_vec(), 512).unwrap();
            for (s, d) in &log[..k] {
                disk.write(*s, d).unwrap();
            }
            read_all(&mut FatFs::mount(disk).unwrap(), path, 777)
        })
        .collect()
}

#[test]
fn every_write_prefix_of_append_and_relocate_leaves_a_whole_file() {
    // The same with a one-sector metadata cache (its misses add reads; that write-through
    // never writes on eviction is checked in `bounded_metadata_cache_reads_metadata...`).
    for cache in [None, Some(1)] {
        crash_order_with(cache);
    }
}

fn crash_order_with(cache: Option<u32>) {
    let inner = FatFs::format(
        MemDisk::new(8192, 512).unwrap(),
        FormatOptions { data_align_sectors: 16, flash_block_sectors: 16, ..fat16_opts(1) },
    )
    .unwrap()
    .into_device();
    let mut fs = FatFs::mount(LoggingDisk { inner, log: Vec::new() }).unwrap();
    fs.set_metadata_cache(cache).unwrap();
    let mut rng = Rng(5);
    let data = rng.bytes(6000);
    write_file(&mut fs, "/F.DAT", &data, &mut rng);

    // Append: the old contents until the last write (the directory entry), then the new.
    let before = fs.device().inner.image().to_vec();
    fs.device_mut().log.clear();
    let fd = fs.open("/F.DAT").unwrap();
    let extra = rng.bytes(3000);
    fs.append(fd, &extra).unwrap();
    fs.close(fd).unwrap();
    let log = std::mem::take(&mut fs.device_mut().log);
    let seen = reads_after_each_write(&before, &log, "/F.DAT");
    let full = [data.clone(), extra].concat();
    assert!(seen[..seen.len() - 1].iter().all(|r| *r == data) && seen[seen.len() - 1] == full);

    // Relocate: the same bytes after every write.
    let chain = chain_of(&mut fs, "/F.DAT");
    let last = 1 + fs.cluster_count();
    let moves: Vec<(u32, u32)> =
        [0usize, 1, 7, 17].iter().enumerate().map(|(k, &i)| (chain[i], last - k as u32)).collect();
    for &(old, new) in &moves {
        fs.copy_cluster(old, new).unwrap();
    }
    let before = fs.device().inner.image().to_vec();
    fs.device_mut().log.clear();
    fs.relocate("/F.DAT", &moves).unwrap();
    let log = std::mem::take(&mut fs.device_mut().log);
    assert!(log.len() >= 3, "link new, switch, free: {} writes", log.len());
    for (k, r) in reads_after_each_write(&before, &log, "/F.DAT").iter().enumerate() {
        assert!(*r == full, "contents differ after {k} of {} relocate writes", log.len());
    }
}
