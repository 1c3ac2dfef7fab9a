//! The FAT model on the simulated SSD (BAST, 2 KiB pages, 64 pages a block): every sector
//! transfer becomes FTL page operations, the sidecar image stays a valid FAT volume, and
//! close-time defragmentation moves fragments by copy-back without changing any file's bytes.

mod common;

use std::collections::BTreeMap;

use common::fat_tools::*;
use flashlab::buffer::{self, BufferConfig};
use flashlab::device::Device;
use flashlab::ftl::{self, FtlConfig, FtlSpec};
use flashlab::nand::{GcUnit, Geometry, Layout};
use flashlab_fs::defrag::{self, DefragStats, Threshold};
use flashlab_fs::simdisk::SimDisk;
use flashlab_fs::{BlockDevice, FatFs, FatType, FormatOptions, Metadata};

/// A 16 MiB FAT16 volume (2 KiB clusters = pages, data aligned to 128 KiB flash blocks) on BAST.
fn volume() -> FatFs<SimDisk> {
    let geo = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 150,
        pages_per_block: 64,
        page_size: 2048,
    };
    let cfg =
        FtlConfig { mapping: "bast".into(), mapping_params: "log_blocks = 8".parse().unwrap(), ..FtlConfig::default() };
    let spec = FtlSpec {
        layout: Layout::new(geo, GcUnit::Block),
        logical_pages: 8192,
        config: &cfg,
        verify: true,
        timing: None,
        seed: 1,
    };
    let buf = buffer::build(
        &BufferConfig::default(),
        &buffer::BufferContext { page_size: 2048, pages_per_block: 64, timing: None },
    )
    .unwrap();
    let dev = Device::new(buf, ftl::build(&spec).unwrap(), 2048, true, true);
    let opts = FormatOptions {
        fat_type: FatType::Fat16,
        sectors_per_cluster: 4,
        data_align_sectors: 256,
        flash_block_sectors: 256,
        ..FormatOptions::default()
    };
    FatFs::format(SimDisk::new(dev, 512).unwrap(), opts).unwrap()
}

fn content(id: u64, len: usize) -> Vec<u8> {
    (0..len).map(|i| (id.wrapping_mul(31).wrapping_add(i as u64 * 7) % 251) as u8).collect()
}

fn write_file(fs: &mut FatFs<SimDisk>, path: &str, data: &[u8], threshold: Threshold, stats: &mut DefragStats) {
    let fd = fs.create(path).unwrap();
    fs.write(fd, data).unwrap();
    fs.close(fd).unwrap();
    defrag::on_close(fs, path, threshold, stats).unwrap();
}

/// Fragment the volume (1 KiB files, odd ones deleted), then write 10 KiB files with close-time
/// defragmentation; every file reads back its bytes and the image passes fsck.fat.
fn fragmented_run(threshold: Threshold) -> (FatFs<SimDisk>, BTreeMap<String, Vec<u8>>, DefragStats) {
    let mut fs = volume();
    fs.mkdir("/D").unwrap();
    let mut model = BTreeMap::new();
    let mut stats = DefragStats::default();
    for i in 0..2000u64 {
        let p = format!("/D/F{i:07}.DAT");
        write_file(&mut fs, &p, &content(i, 1024), Threshold(None), &mut stats);
        model.insert(p, content(i, 1024));
    }
    for i in (1..2000u64).step_by(2) {
        let p = format!("/D/F{i:07}.DAT");
        fs.delete(&p).unwrap();
        model.remove(&p);
    }
    for i in 0..60u64 {
        let p = format!("/D/G{i:07}.DAT");
        let data = content(10_000 + i, 10 * 1024);
        write_file(&mut fs, &p, &data, threshold, &mut stats);
        model.insert(p, data);
    }
    (fs, model, stats)
}

#[test]
fn the_fs_on_the_simulated_ssd_defragments_on_close_without_changing_bytes() {
    let (mut off, model_off, none) = fragmented_run(Threshold(None));
    let (mut on, model_on, stats) = fragmented_run(Threshold(Some(2)));
    assert_eq!(none, DefragStats::default());
    assert!(stats.triggered > 0 && stats.clusters_moved > 0, "{stats:?}");
    for (fs, model) in [(&mut off, &model_off), (&mut on, &model_on)] {
        for (p, data) in model {
            assert_eq!(&read_all(fs, p, 4096), data, "{p}");
        }
        fs.device_mut().dev.verify_all().unwrap();
    }
    let (a, b) = (off.device().dev.ftl.nand().counters, on.device().dev.ftl.nand().counters);
    eprintln!("no defrag: {a:?}\ndefrag 1/2: {b:?} {stats:?}");
    assert!(b.copybacks > a.copybacks, "defragmentation copies by copy-back: {} vs {}", b.copybacks, a.copybacks);
    let hybrid = on.device().dev.ftl.hybrid_report().unwrap();
    assert!(hybrid.write_data > 0);
    if let Some(t) = tools("fsck of the defragmented SSD image") {
        let img = fsck_ok(&t, on.device().image(), "fat-sim-defrag");
        let (name, data) = model_on.iter().find(|(p, _)| p.starts_with("/D/G")).unwrap();
        assert_eq!(&mcopy_bytes(&t, &img, name), data);
    }
    assert!(on.device().sector_size() == 512);
}

struct DefragHook(Threshold, DefragStats);
impl flashlab_fs::postmark::PostmarkHooks<SimDisk> for DefragHook {
    fn after_close(&mut self, fs: &mut FatFs<SimDisk>, path: &str) -> Result<(), flashlab::error::Error> {
        defrag::on_close(fs, path, self.0, &mut self.1)
    }
}

/// The defrag paper's workload end to end on the simulated SSD: fragment, then Postmark with
/// close-time defragmentation (files kept at the end); the dumped image passes `fsck.fat -n`,
/// `mdir` lists every live file, and `mcopy` and our own reads return exactly the bytes the
/// workload wrote.
#[test]
fn postmark_with_defragmentation_leaves_an_image_real_tools_accept() {
    postmark_image_check(|_| {}, "fat-sim-postmark");
}

/// The same with the defrag reproduction's main metadata model: a 4-sector metadata cache
/// (FAT and directory sectors read on a miss and before an update), names looked up in memory,
/// directories sized for AFCA; once with changes written through, once written back (dirty
/// sectors written when evicted). Metadata reads must reach the device, and the image must
/// still pass fsck.fat and read back through mtools.
#[test]
fn postmark_with_a_bounded_metadata_cache_leaves_an_image_real_tools_accept() {
    for (m, tag) in [(Metadata::WriteThrough, "fat-sim-meta4-through"), (Metadata::WriteBack, "fat-sim-meta4-back")] {
        let stats = postmark_image_check(
            |fs| {
                fs.set_metadata(m).unwrap();
                fs.set_metadata_cache(Some(4)).unwrap();
                fs.set_name_index(true);
                fs.set_size_directories(true);
                fs.set_allocator(flashlab_fs::alloc::build("afca", &toml::Table::new()).unwrap());
            },
            tag,
        );
        assert!(stats.fat_reads > 0 && stats.dir_reads > 0, "{m:?}: metadata misses read the device: {stats:?}");
    }
}

/// Fragment, run Postmark with 1/4 defragmentation (after `setup`), read every live file back,
/// sync, and check the image with fsck.fat and mtools (when installed); the metadata cache's
/// costs.
fn postmark_image_check(setup: impl Fn(&mut FatFs<SimDisk>), tag: &str) -> flashlab_fs::MetadataStats {
    use flashlab_fs::postmark::{fragment, run_postmark, PostmarkConfig};
    let mut fs = volume();
    setup(&mut fs);
    let frag = fragment(&mut fs, "/FRAG", 1024).unwrap();
    assert!(frag.files_created > 1000);
    let cfg = PostmarkConfig {
        delete_at_end: false,
        dir: "/PM".into(),
        initial_files: 200,
        transactions: 400,
        ..PostmarkConfig::default()
    };
    let mut hook = DefragHook(Threshold(Some(4)), DefragStats::default());
    let report = run_postmark(&mut fs, &cfg, &mut hook).unwrap();
    assert!(hook.1.clusters_moved > 0, "defragmentation moved nothing: {:?}", hook.1);
    assert!(!report.live_files.is_empty());
    for (p, data) in &report.live_files {
        assert_eq!(&read_all(&mut fs, p, 4096), data, "{p}");
    }
    fs.sync().unwrap();
    fs.device_mut().dev.verify_all().unwrap();
    let stats = fs.metadata_stats();
    let Some(t) = tools("fsck/mtools on the image after Postmark with defragmentation") else { return stats };
    let img = fsck_ok(&t, fs.device().image(), tag);
    let out = std::process::Command::new(&t.mdir)
        .env("MTOOLS_SKIP_CHECK", "1")
        .arg("-b")
        .arg("-i")
        .arg(&img)
        .arg("::/PM")
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "mdir failed: {listing}");
    for (p, data) in &report.live_files {
        let name = p.rsplit('/').next().unwrap();
        assert!(listing.contains(name), "mdir lacks {name}");
        assert_eq!(&mcopy_bytes(&t, &img, p), data, "mcopy {p}");
    }
    stats
}
