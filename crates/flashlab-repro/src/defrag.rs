//! `flashlab reproduce defrag`: the defragmentation-on-merge paper (`shared/papers/002_*.txt`):
//! a FAT file system on a log-block (BAST) flash device, fragmented and then running Postmark,
//! with close-time defragmentation that moves fragments by the FTL's `defrag_copy` (copy-back)
//! at thresholds 1/2, 1/4, 1/8, 1/16 of a flash block, or off; under SCA and AFCA allocation.
//!
//! Setup: the paper states 2 KB pages, 64 pages per block, the fragmentation step (fill with 1 KB
//! files, delete the odd-numbered ones) and Postmark's parameters (Table 1). It does not state the
//! volume size, the FAT type, the cluster size, BAST's log blocks or AFCA's threshold; ours: a
//! 64 MiB FAT16 volume with 2 KiB clusters (one cluster = one flash page; data region aligned to
//! the 128 KiB flash block), BAST with 16 log blocks (3% of the 512 data blocks: the default of
//! our log-block FTLs), AFCA's large-file threshold 5 KiB (the middle of Postmark's 0.5–10 KB
//! sizes). Quick scale: a 16 MiB volume (4 log blocks), the same Postmark.
//!
//! The runs drive the file system directly (not through `flashlab run`, whose workloads are
//! block requests): each builds its device from the TOML below through the same config and
//! device code as any run, with verify mode on (every flash read checked against the last
//! write) and ends by reading back the fragmentation files the file system still holds.

use std::fmt::Write as _;

use serde_json::json;

use super::verdict::{self, Claim, Kind};
use super::{Outcome, RunProgress, Scale, Setup};
use crate::plot::{bar_chart_with, Bars};
use flashlab::config::Config;
use flashlab::error::Error;
use flashlab::ftl::HybridReport;
use flashlab::nand::NandCounters;
use flashlab::sim;
use flashlab_fs::alloc;
use flashlab_fs::defrag::{self, DefragStats, Rule, Threshold};
use flashlab_fs::postmark::{self, file_data, PostmarkConfig, PostmarkHooks, PostmarkReport};
use flashlab_fs::simdisk::SimDisk;
use flashlab_fs::{BlockDevice, FatFs, FatType, FormatOptions, Metadata, MetadataStats};

/// The paper, as its text prints it.
pub const CITATION: super::Citation = super::Citation {
    authors: "Choulseung Hyun, Donghee Lee (University of Seoul)",
    title: "De-fragmentation Scheme Exploiting Merge Operation in Flash Memory-based File System",
    venue: "venue and year not printed in the text (its funding note names a 2006 project)",
};

/// The device: one plane of 2 KiB pages, 64 pages (128 KiB) a block; 64 MiB logical on 540
/// blocks (512 data + 16 log + 12 spare); [`device_sets`] sizes the plane of each variant.
const DEVICE: &str = r#"
name = "defrag"
seed = 42
[device]
channels = 1
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 540
pages_per_block = 64
page_size = "2KiB"
logical_capacity = "64MiB"
[ftl]
mapping = "bast"
gc_unit = "block"
striping = "full"
[ftl.mapping_params]
log_blocks = 16
[workload]
kind = "sequential"
[precondition]
fill = false
overwrite = 0.0
[sim]
mode = "accounting"
verify = true
"#;

const THRESHOLDS: [&str; 5] = ["off", "1/16", "1/8", "1/4", "1/2"];
const ALLOCATORS: [&str; 2] = ["sca", "afca"];
const AFCA_THRESHOLD_BYTES: i64 = 5 * 1024;

/// One configuration of the experiment.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Variant {
    alloc: &'static str,
    threshold: &'static str,
    /// How the threshold is read.
    rule: Rule,
    /// Defragmentation copies at the target's merge (`true`, the paper's idea) or at once.
    at_merge: bool,
    metadata: Metadata,
    /// Metadata sectors the file system holds (`None`: all of them).
    meta_cache: Option<u32>,
    /// Name lookups answered from memory (not through the bounded metadata cache).
    name_index: bool,
    /// Moves by read + write instead of the FTL's copy-back (`fil_defrag_copy`).
    moves_rw: bool,
    /// Directories ask the allocator with their size (a directory is a file to AFCA).
    dir_size: bool,
    /// Cluster size in 512-byte sectors.
    cluster_sectors: u32,
    /// AFCA's large-file threshold, bytes.
    afca_threshold: i64,
    /// Per cent of the volume's clusters left free (unfragmented) by the fragmentation step.
    frag_leave_pct: u32,
    /// BAST's log blocks, per cent of the main setup's (ours: 3% of the data blocks).
    log_pct: u32,
}

/// Metadata sectors (FAT and directory) the main setup's driver holds: 4 sectors, one 2 KiB
/// flash page (our choice). The paper's file system is "FAT compatible" on its own FTL, from a
/// 2006 project on embedded multimedia software; embedded FAT drivers of that time hold a few
/// sectors, not the whole FAT (ChaN's FatFs, first released in 2006, holds one). Sensitivity:
/// 1 and 64 sectors and the whole metadata (`meta-1`, `meta-64`, `meta-cached`).
const META_CACHE_SECTORS: u32 = 4;

/// The main tables: the text's trigger reading, copies at merge, metadata written through a
/// 4-sector metadata cache (a FAT or directory sector it does not hold is read before it is
/// used or updated; names are looked up in memory), one 2 KiB cluster per flash page.
const BASE: Variant = Variant {
    alloc: "sca",
    threshold: "off",
    rule: Rule::FreeAtLeast,
    at_merge: true,
    metadata: Metadata::WriteThrough,
    meta_cache: Some(META_CACHE_SECTORS),
    name_index: true,
    moves_rw: false,
    dir_size: true,
    cluster_sectors: 4,
    afca_threshold: AFCA_THRESHOLD_BYTES,
    frag_leave_pct: 0,
    log_pct: 100,
};

/// Ablations: each changes one thing from [`BASE`], over the thresholds it lists.
struct Ablation {
    key: &'static str,
    title: &'static str,
    change: fn(Variant) -> Variant,
    thresholds: &'static [&'static str],
    allocators: &'static [&'static str],
}

const ABLATIONS: [Ablation; 17] = [
    Ablation {
        key: "rule-at-most",
        title: "threshold read as *at most* T of the block unused",
        change: |v| Variant { rule: Rule::FreeAtMost, ..v },
        thresholds: &THRESHOLDS,
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "eager",
        title: "copies programmed at once (as writes of the target) instead of at its merge",
        change: |v| Variant { at_merge: false, ..v },
        thresholds: &THRESHOLDS,
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "write-back",
        title: "FAT and directory changes held in the metadata cache, written back when evicted or at close (ChaN's FatFs window, with 4 sectors)",
        change: |v| Variant { metadata: Metadata::WriteBack, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "delayed",
        title: "FAT and directory changes written back every 100 operations and at sync, not at close (Linux vfat's delayed write-back; the delay of 100 operations is our choice; held dirty sectors are written when evicted)",
        change: |v| Variant { metadata: Metadata::Delayed(100), ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "meta-cached",
        title: "every FAT and directory sector in memory (the FAT mirrored at mount, directories after their first read): no metadata reads (the main setup before issue 40)",
        change: |v| Variant { meta_cache: None, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "meta-1",
        title: "a one-sector metadata cache (FatFs's window size)",
        change: |v| Variant { meta_cache: Some(1), ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "meta-64",
        title: "a 64-sector (32 KiB) metadata cache",
        change: |v| Variant { meta_cache: Some(64), ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "meta-scans",
        title: "names looked up by scanning the directory through the 4-sector cache (no name index): every scanned sector it does not hold is read",
        change: |v| Variant { name_index: false, ..v },
        thresholds: &["off"],
        allocators: &["sca"],
    },
    Ablation {
        key: "moves-rw",
        title: "moves as a read and a write by the file system (no `fil_defrag_copy`): §4 counts moved data as copy-backs, this counts it as Table 2's reads and writes",
        change: |v| Variant { moves_rw: true, ..v },
        thresholds: &["1/4", "1/2"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "frag-75",
        title: "fragmentation fills 75% of the volume (25% left free and unfragmented) before deleting every other file",
        change: |v| Variant { frag_leave_pct: 25, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "log-half",
        title: "half the log blocks (BAST's log-block count is our choice: 3% of the data blocks)",
        change: |v| Variant { log_pct: 50, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "log-double",
        title: "twice the log blocks",
        change: |v| Variant { log_pct: 200, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "cluster-512",
        title: "512-byte clusters (four per flash page; FAT32 at paper scale, where a 64 MiB FAT16 volume cannot have 131,072 clusters)",
        change: |v| Variant { cluster_sectors: 1, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "cluster-1k",
        title: "1 KiB clusters (two per flash page)",
        change: |v| Variant { cluster_sectors: 2, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "cluster-4k",
        title: "4 KiB clusters (two flash pages each)",
        change: |v| Variant { cluster_sectors: 8, ..v },
        thresholds: &["off", "1/4"],
        allocators: &ALLOCATORS,
    },
    Ablation {
        key: "dir-size-0",
        title: "directories ask the allocator with size 0, so AFCA always treats them as small files (the main setup before issue 40)",
        change: |v| Variant { dir_size: false, ..v },
        thresholds: &["off", "1/4"],
        allocators: &["afca"],
    },
    Ablation {
        key: "afca-block",
        title: "AFCA's large-file threshold at one flash block (128 KiB: \"size relative to the flash memory block size\", the AFCA journal paper's abstract), so every Postmark file is small",
        change: |v| Variant { afca_threshold: 128 * 1024, ..v },
        thresholds: &["off", "1/4"],
        allocators: &["afca"],
    },
];

/// The paper's Tables 2 (SCA) and 3 (AFCA): page write, page read, copy-back, erase per threshold.
const PAPER: [(&str, [[u64; 4]; 5]); 2] = [
    (
        "sca",
        [
            [236218, 478907, 215846, 5480],
            [236218, 478973, 215846, 5480],
            [236218, 478973, 215846, 5480],
            [247740, 489677, 198945, 5434],
            [250858, 494412, 212956, 5563],
        ],
    ),
    (
        "afca",
        [
            [208908, 446946, 130318, 3718],
            [202773, 440864, 133853, 3698],
            [202773, 440864, 133853, 3698],
            [202773, 440864, 133853, 3698],
            [201504, 440851, 135121, 3698],
        ],
    ),
];

/// Flash operations as the paper counts them.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
struct Ops {
    page_writes: u64,
    page_reads: u64,
    copybacks: u64,
    erases: u64,
}

impl Ops {
    fn between(a: &NandCounters, b: &NandCounters) -> Ops {
        Ops {
            page_writes: (b.programs - b.copybacks) - (a.programs - a.copybacks),
            page_reads: b.reads - a.reads,
            copybacks: b.copybacks - a.copybacks,
            erases: b.erases - a.erases,
        }
    }
    fn plus(&self, o: &Ops) -> Ops {
        Ops {
            page_writes: self.page_writes + o.page_writes,
            page_reads: self.page_reads + o.page_reads,
            copybacks: self.copybacks + o.copybacks,
            erases: self.erases + o.erases,
        }
    }
    fn get(&self, i: usize) -> u64 {
        [self.page_writes, self.page_reads, self.copybacks, self.erases][i]
    }
}

struct Run {
    v: Variant,
    /// The ablation it belongs to (`None`: the main tables).
    ablation: Option<&'static str>,
    fragmentation: Ops,
    postmark: Ops,
    defrag: DefragStats,
    report: PostmarkReport,
    fragment_files: u64,
    verified_files: u64,
    /// The FTL's defragmentation-copy counters over the Postmark phase.
    ftl: HybridReport,
    /// The bounded metadata cache's reads and eviction writes (whole run).
    meta: MetadataStats,
    /// The allocator's decisions during Postmark.
    alloc_counts: Vec<(&'static str, u64)>,
}

impl Run {
    /// Fragmentation and Postmark together (what the paper's tables appear to count).
    fn total(&self) -> Ops {
        self.fragmentation.plus(&self.postmark)
    }
}

struct Hook {
    threshold: Threshold,
    rule: Rule,
    stats: DefragStats,
}

impl<D: BlockDevice> PostmarkHooks<D> for Hook {
    fn after_close(&mut self, fs: &mut FatFs<D>, path: &str) -> Result<(), Error> {
        defrag::on_close_with(fs, path, self.threshold, self.rule, &mut self.stats)
    }
}

/// The volume's flash blocks (data blocks of BAST): 512 at paper scale (64 MiB), 128 at quick
/// (16 MiB).
fn data_blocks(scale: Scale) -> u32 {
    if scale == Scale::Quick {
        128
    } else {
        512
    }
}

/// BAST's log blocks in the main setup: 16 at paper scale (3% of the data blocks), 4 at quick.
fn log_blocks(scale: Scale) -> u32 {
    if scale == Scale::Quick {
        4
    } else {
        16
    }
}

/// Blocks beyond data and log blocks (the free block a merge writes into, and slack): 12 at
/// paper scale and 8 at quick, what the main setup has always had (540 and 140 blocks), so the
/// main tables keep their device while a variant with more log blocks gets the blocks it needs.
fn spare_blocks(scale: Scale) -> u32 {
    if scale == Scale::Quick {
        8
    } else {
        12
    }
}

/// The device overrides of one variant: the plane is sized from the log blocks the variant
/// asks for (data + log + spare), so no variant can ask for more blocks than the plane has.
fn device_sets(v: &Variant, scale: Scale) -> Vec<String> {
    let logs = (log_blocks(scale) * v.log_pct / 100).max(1);
    let mut sets = vec![
        format!("device.blocks_per_plane={}", data_blocks(scale) + logs + spare_blocks(scale)),
        format!("device.logical_capacity=\"{}MiB\"", data_blocks(scale) / 8),
        format!("ftl.mapping_params.log_blocks={logs}"),
    ];
    if !v.at_merge {
        sets.push("ftl.mapping_params.defrag=\"eager\"".into());
    }
    sets
}

/// One variant's device, empty (cheap: building checks the configuration and the FTL's block
/// budget, and simulates nothing).
fn device(v: &Variant, scale: Scale) -> Result<flashlab::device::Device, Error> {
    let cfg = Config::from_toml_str(DEVICE, "reproduce defrag device", &device_sets(v, scale))?;
    let r = cfg.resolve()?;
    sim::build_device(&cfg, &r)
}

fn one(v: Variant, ablation: Option<&'static str>, scale: Scale) -> Result<Run, Error> {
    let dev = device(&v, scale)?;
    let mut disk = SimDisk::new(dev, 512)?;
    disk.set_copyback_moves(!v.moves_rw);
    // FAT16 holds at most 65,524 clusters; a volume with more (512-byte clusters at paper
    // scale) is FAT32, as mkfs.fat would choose.
    let mut opts = FormatOptions {
        fat_type: FatType::Fat16,
        sectors_per_cluster: v.cluster_sectors,
        data_align_sectors: 256,
        flash_block_sectors: 256,
        ..FormatOptions::default()
    };
    if opts.check_layout(512, disk.sectors()).is_err() {
        opts.fat_type = FatType::Fat32;
    }
    let mut fs = FatFs::format(disk, opts)?;
    fs.set_metadata(v.metadata)?;
    fs.set_metadata_cache(v.meta_cache)?;
    fs.set_name_index(v.name_index);
    fs.set_size_directories(v.dir_size);
    let mut params = toml::Table::new();
    if v.alloc == "afca" {
        params.insert("threshold_bytes".into(), toml::Value::Integer(v.afca_threshold));
    }
    fs.set_allocator(alloc::build(v.alloc, &params)?);
    let start = fs.device().dev.ftl.nand().counters;
    let leave = (fs.cluster_count() as u64 * v.frag_leave_pct as u64 / 100) as u32;
    let frag = postmark::fragment_leaving(&mut fs, "/FRAG", 1024, leave)?;
    fs.sync()?;
    let mid = fs.device().dev.ftl.nand().counters;
    let ftl_mid = fs.device().dev.ftl.hybrid_report().unwrap_or_default();
    let alloc_mid = fs.allocator_counters();
    let pm = PostmarkConfig { dir: "/PM".into(), ..PostmarkConfig::default() };
    let mut hook = Hook { threshold: Threshold::parse(v.threshold)?, rule: v.rule, stats: DefragStats::default() };
    let report = postmark::run_postmark(&mut fs, &pm, &mut hook)?;
    fs.sync()?;
    let end = fs.device().dev.ftl.nand().counters;
    let ftl = fs.device().dev.ftl.hybrid_report().unwrap_or_default().minus(&ftl_mid);
    let meta = fs.metadata_stats();
    let alloc_counts =
        fs.allocator_counters().into_iter().zip(alloc_mid).map(|((name, end), (_, mid))| (name, end - mid)).collect();
    // Read back what the fragmentation step left: every even-numbered 1 KB file.
    let mut verified = 0;
    for id in (2..=frag.files_created).step_by(2) {
        let path = format!("/FRAG/F{id:07}.DAT");
        let fd = fs.open(&path)?;
        let mut buf = vec![0u8; 1024];
        let n = fs.read(fd, &mut buf)?;
        fs.close(fd)?;
        if n != 1024 || buf != file_data(id, 0, 1024) {
            return Err(Error::config(
                "reproduce defrag",
                format!("{path} changed: the file system or defragmentation lost data"),
            ));
        }
        verified += 1;
    }
    fs.device_mut().dev.verify_all()?;
    Ok(Run {
        v,
        ablation,
        ftl,
        meta,
        alloc_counts,
        fragmentation: Ops::between(&start, &mid),
        postmark: Ops::between(&mid, &end),
        defrag: hook.stats,
        report,
        fragment_files: frag.files_created,
        verified_files: verified,
    })
}

/// Every run of the reproduction at `scale`: the main tables, then each ablation.
fn jobs(scale: Scale) -> Vec<(Variant, Option<&'static str>)> {
    let mut jobs: Vec<(Variant, Option<&'static str>)> = Vec::new();
    for &alloc in &ALLOCATORS {
        for &threshold in &THRESHOLDS {
            jobs.push((Variant { alloc, threshold, ..BASE }, None));
        }
    }
    for a in ABLATIONS.iter().filter(|a| ran(a.key, scale)) {
        for &alloc in a.allocators {
            for &threshold in a.thresholds {
                jobs.push(((a.change)(Variant { alloc, threshold, ..BASE }), Some(a.key)));
            }
        }
    }
    jobs
}

pub fn run(setup: &Setup, progress: &dyn RunProgress) -> Result<Outcome, Error> {
    if super::planning(setup) {
        return Err(Error::Interrupted);
    }
    let (scale, threads) = (setup.scale, setup.threads);
    let jobs = jobs(scale);
    // Every device first: a variant that cannot exist at this scale fails now, not after the
    // runs before it (paper scale once failed after 33 minutes on the last ablation's device).
    for (v, a) in &jobs {
        device(v, scale).map_err(|e| {
            Error::config("reproduce defrag", format!("{} / {} / {}: {e}", v.alloc, v.threshold, a.unwrap_or("main")))
        })?;
    }
    let runs = super::par_map(
        &jobs,
        threads,
        progress,
        |(v, a)| format!("{} / threshold {} / {}", v.alloc, v.threshold, a.unwrap_or("main")),
        |&(v, a)| one(v, a, scale),
    )?;
    let rows: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            json!({
                "workload": "fragment + postmark", "policy": format!("{} / threshold {} / {}", r.v.alloc, r.v.threshold, r.ablation.unwrap_or("main")),
                "allocation": r.v.alloc, "threshold": r.v.threshold, "ablation": r.ablation,
                "trigger": r.v.rule.name(), "copies": if r.v.at_merge { "merge" } else { "eager" },
                "metadata": format!("{:?}", r.v.metadata), "cluster_bytes": r.v.cluster_sectors * 512, "ftl_defrag": {
                    "deferred": r.ftl.defrag_deferred, "in_merge": r.ftl.defrag_in_merge, "superseded": r.ftl.defrag_superseded,
                    "forced": r.ftl.defrag_forced, "eager": r.ftl.defrag_eager,
                },
                "metadata_cache_sectors": r.v.meta_cache, "metadata_cache": r.meta,
                "allocator_postmark": r.alloc_counts.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
                "postmark": r.postmark, "fragmentation": r.fragmentation, "defrag": r.defrag,
                "fragment_files": r.fragment_files, "verified_files": r.verified_files,
                "postmark_files_created": r.report.files_created(), "postmark_bytes_written": r.report.bytes_written,
                "postmark_bytes_read": r.report.bytes_read,
            })
        })
        .collect();
    let files = plots(&runs);
    let report_md = report(scale, &runs);
    let json = json!({
        "reproduction": "defrag",
        "paper": CITATION.line(),
        "scale": scale,
        "rows": rows,
    });
    Ok(Outcome { json, report_md, files, claims: claims(&runs) })
}

fn get<'a>(runs: &'a [Run], alloc: &str, t: &str) -> &'a Run {
    get_in(runs, None, alloc, t)
}

fn get_in<'a>(runs: &'a [Run], ablation: Option<&str>, alloc: &str, t: &str) -> &'a Run {
    runs.iter().find(|r| r.ablation == ablation && r.v.alloc == alloc && r.v.threshold == t).expect("every run exists")
}

fn plots(runs: &[Run]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (i, what) in ["page writes", "page reads", "copy-backs", "erases"].iter().enumerate() {
        let bars = Bars {
            x_label: "defragmentation threshold".into(),
            categories: THRESHOLDS.iter().map(|t| t.to_string()).collect(),
            series: ALLOCATORS
                .iter()
                .map(|a| (a.to_uppercase(), THRESHOLDS.iter().map(|t| get(runs, a, t).total().get(i) as f64).collect()))
                .collect(),
            stacked: false,
        };
        let reference: Vec<(String, Vec<f64>)> = PAPER
            .iter()
            .map(|(alloc, rows)| {
                (format!("paper {}", alloc.to_uppercase()), rows.iter().map(|r| r[i] as f64).collect())
            })
            .collect();
        let name = format!("{}.svg", what.replace(' ', "-"));
        let title = format!("Flash {what}, whole run: fragmentation + Postmark (as Tables 2–3)");
        files.push((name, bar_chart_with(&title, what, &bars, &reference)));
    }
    files
}

fn report(scale: Scale, runs: &[Run]) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(
        w,
        "# Defragmentation-on-merge reproduction ({} scale)\n",
        if scale == Scale::Quick { "quick" } else { "paper" }
    );
    let _ = writeln!(w, "Paper: {}\n", CITATION.line());
    let _ = writeln!(w, "## Setup\n");
    let _ = writeln!(
        w,
        "Flash: 2 KiB pages, 64 pages (128 KiB) per block (paper), one plane of {} blocks; BAST with {} log blocks (ours: 3% of the data blocks). \
         File system: FAT16, {} MiB, 2 KiB clusters (one cluster = one page), data region aligned to the flash block, 512-byte sectors (ours: the paper gives no volume size). \
         Every FS write goes through to the device (data, both FAT copies, the directory sector); a write covering part of a page reads the page first (the FTL's read-modify-write; a page never written costs no read). \
         Metadata reads: the driver holds {META_CACHE_SECTORS} FAT or directory sectors (least recently used out; ours: one flash page, the size of an embedded driver's buffer, see the ablations for 1, 64 and all); a FAT sector it does not hold is read before a chain walk or a FAT change uses it, a directory sector before an entry in it is updated; names are looked up in memory (a name index), since scanning the fragmentation directory's thousands of entries through a few sectors would read millions of sectors (`meta-scans`).",
        data_blocks(scale) + log_blocks(scale) + spare_blocks(scale),
        log_blocks(scale),
        data_blocks(scale) / 8
    );
    let _ = writeln!(
        w,
        "Fragmentation (paper): fill `/FRAG` with 1 KB files until the volume is full, delete the odd-numbered ones. \
         Postmark (paper's Table 1): 500 initial files, 1,000 transactions, 0.5–10 KB, create/delete bias 5, read/append bias 5, 512-byte reads and writes, seed 42; remaining files deleted at the end. \
         Defragmentation runs when a Postmark file is closed, when the block holding the file's last cluster has at least the threshold of its clusters unused (the text's plain reading); its copies (`defrag_copy`) are recorded by the FTL and done by copy-back inside the next merge of the target's logical block (the paper's idea: no log page, one copy-back), or eagerly just before if the source is rewritten first. AFCA's large-file threshold: 5 KiB (ours). Page writes exclude copy-back programs; page reads are flash reads that cross the bus.\n"
    );
    let r0 = get(runs, "sca", "off");
    let _ = writeln!(
        w,
        "Fragmentation made {} files ({} MiB of 1 KB files in 2 KiB clusters), {} remain; it cost {} page writes, {} page reads, {} copy-backs and {} erases (SCA; not in the tables below). Postmark created {} files, wrote {:.2} MB and read {:.2} MB. \
         Every run ends by reading back all {} remaining fragmentation files through the file system (byte-exact) and every written page through the FTL (verify mode).\n",
        r0.fragment_files, r0.fragment_files * 2 / 1024, r0.verified_files,
        r0.fragmentation.page_writes, r0.fragmentation.page_reads, r0.fragmentation.copybacks, r0.fragmentation.erases,
        r0.report.files_created(), r0.report.bytes_written as f64 / 1e6, r0.report.bytes_read as f64 / 1e6, r0.verified_files
    );
    for (n, (alloc, paper)) in PAPER.iter().enumerate() {
        let _ = writeln!(w, "## Table {}: {} allocation\n", n + 2, alloc.to_uppercase());
        let r = get(runs, alloc, "off");
        let share = r.postmark.page_writes as f64 / r.total().page_writes.max(1) as f64;
        let _ = writeln!(w, "Each cell: ours for the whole run (fragmentation + Postmark) | the paper's. The paper does not say which phases it counts; the fragmentation step writes the whole volume, so a count of Postmark alone would be far below its totals (ours: Postmark is {:.0}% of the run's page writes). Postmark alone and the clusters moved follow.\n", 100.0 * share);
        let _ = writeln!(w, "| threshold | page write | page read | copy-back | erase | Postmark only: write / read / copy-back / erase | moved | FTL copies: in a merge / forced / void / waiting |\n|---|---|---|---|---|---|---|---|");
        for (i, t) in THRESHOLDS.iter().enumerate() {
            let r = get(runs, alloc, t);
            let total = r.total();
            let cells: Vec<String> = (0..4).map(|k| format!("{} \\| {}", total.get(k), paper[i][k])).collect();
            let pm: Vec<String> = (0..4).map(|k| r.postmark.get(k).to_string()).collect();
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} |",
                if *t == "off" { "none" } else { t },
                cells.join(" | "),
                pm.join(" / "),
                r.defrag.clusters_moved,
                ftl_copies(r)
            );
        }
        let _ = writeln!(w);
    }
    for what in ["page-writes", "page-reads", "copy-backs", "erases"] {
        let _ = writeln!(w, "![{what}.svg]({what}.svg)\n");
    }
    pattern(w, runs);
    move_cost(w, scale, runs);
    ablations(w, scale, runs);
    verdict(w, scale, runs);
    md
}

/// The FTL's fate of the defragmentation copies (Postmark phase).
fn ftl_copies(r: &Run) -> String {
    let f = &r.ftl;
    if !r.v.at_merge {
        return format!("eager: {}", f.defrag_eager);
    }
    let waiting = f.defrag_deferred - f.defrag_in_merge - f.defrag_superseded - f.defrag_forced;
    format!("{} / {} / {} / {waiting}", f.defrag_in_merge, f.defrag_forced, f.defrag_superseded)
}

/// Relative change of `x` against `base`, %.
fn change(x: u64, base: u64) -> f64 {
    100.0 * (x as f64 / base.max(1) as f64 - 1.0)
}

/// Table 2's pattern across thresholds under each reading of the trigger.
fn pattern(w: &mut String, runs: &[Run]) {
    let _ = writeln!(
        w,
        "## The trigger: Table 2's pattern under each reading\n\nThe paper's Table 2 (SCA) has 1/16 and 1/8 equal to \"none\" in page writes, copy-backs and erases (66 more page reads), and 1/4 and 1/2 different. Under the text's plain reading (\"at least T of the block unused\") whatever triggers at 1/4 also triggers at 1/16, so a threshold that moves nothing at 1/16 moves nothing at 1/4 either; under the reverse reading (\"at most T unused\": a nearly full block takes the fragments) a smaller threshold triggers less. Each cell: clusters moved, copy-backs and erases against \"none\" (whole run).\n"
    );
    let _ = writeln!(
        w,
        "| allocation | reading | {} |\n|---|---|{}",
        THRESHOLDS[1..].join(" | "),
        "---|".repeat(THRESHOLDS.len() - 1)
    );
    for (alloc, paper) in PAPER {
        let cells: Vec<String> = (1..THRESHOLDS.len())
            .map(|i| {
                format!(
                    "copy-backs {:+.1}%, erases {:+.1}%",
                    change(paper[i][2], paper[0][2]),
                    change(paper[i][3], paper[0][3])
                )
            })
            .collect();
        let _ = writeln!(w, "| {} | paper | {} |", alloc.to_uppercase(), cells.join(" | "));
        for (label, ablation) in [("at least T unused (ours)", None), ("at most T unused", Some("rule-at-most"))] {
            let none = get_in(runs, ablation, alloc, "off").total();
            let cells: Vec<String> = THRESHOLDS[1..]
                .iter()
                .map(|t| {
                    let r = get_in(runs, ablation, alloc, t);
                    let x = r.total();
                    format!(
                        "{} moved, copy-backs {:+.1}%, erases {:+.1}%",
                        r.defrag.clusters_moved,
                        change(x.copybacks, none.copybacks),
                        change(x.erases, none.erases)
                    )
                })
                .collect();
            let _ = writeln!(w, "| {} | {label} | {} |", alloc.to_uppercase(), cells.join(" | "));
        }
    }
    let moves = |ablation: Option<&str>| -> Vec<bool> {
        THRESHOLDS[1..].iter().map(|t| get_in(runs, ablation, "sca", t).defrag.clusters_moved > 0).collect()
    };
    let paper_moves = [false, false, true, true];
    for (label, ablation) in [("at least", None), ("at most", Some("rule-at-most"))] {
        let m = moves(ablation);
        let _ = writeln!(
            w,
            "\n- Reading \"{label}\", SCA: moves at {} (paper's pattern: moves at 1/4 and 1/2 only) — {}.",
            THRESHOLDS[1..].iter().zip(&m).filter(|p| *p.1).map(|p| *p.0).collect::<Vec<_>>().join(", "),
            if m == paper_moves { "the paper's pattern" } else { "not the paper's pattern" }
        );
    }
    let _ = writeln!(w);
}

/// Whether an ablation runs at this scale: a 16 MiB FAT16 volume (quick) cannot have 4 KiB
/// clusters (too few clusters for FAT16).
fn ran(key: &str, scale: Scale) -> bool {
    !(key == "cluster-4k" && scale == Scale::Quick)
}

/// One table per ablation: Postmark-phase counts beside the main run of the same allocation and
/// threshold.
fn ablations(w: &mut String, scale: Scale, runs: &[Run]) {
    let _ = writeln!(w, "## Ablations\n\nEach changes one thing from the main tables. Cells: whole-run page writes / reads / copy-backs / erases (change against the main run of the same allocation and threshold), clusters moved, and the FTL's copies as above.\n");
    for a in &ABLATIONS {
        if !ran(a.key, scale) {
            let _ = writeln!(
                w,
                "**{}** (`{}`): paper scale only (a 16 MiB FAT16 volume cannot have them).\n",
                a.title, a.key
            );
            continue;
        }
        let _ = writeln!(w, "**{}** (`{}`)\n", a.title, a.key);
        let _ = writeln!(w, "| allocation | threshold | writes / reads / copy-backs / erases | vs main | moved | FTL copies |\n|---|---|---|---|---|---|");
        for &alloc in a.allocators {
            for t in a.thresholds {
                let r = get_in(runs, Some(a.key), alloc, t);
                let (x, m) = (r.total(), get(runs, alloc, t).total());
                let _ = writeln!(
                    w,
                    "| {} | {} | {} / {} / {} / {} | {:+.1}% / {:+.1}% / {:+.1}% / {:+.1}% | {} | {} |",
                    alloc.to_uppercase(),
                    if *t == "off" { "none" } else { t },
                    x.page_writes,
                    x.page_reads,
                    x.copybacks,
                    x.erases,
                    change(x.page_writes, m.page_writes),
                    change(x.page_reads, m.page_reads),
                    change(x.copybacks, m.copybacks),
                    change(x.erases, m.erases),
                    r.defrag.clusters_moved,
                    ftl_copies(r)
                );
            }
        }
        let _ = writeln!(w);
    }
}

const RULE: &str = "**Verdict rule, stated before the results** (`reproduce/verdict.rs`): the paper's effects are relative \
changes between rows of its tables (whole runs, as our tables). Ours *agree* within ±50% of the paper's change (our volume, \
cluster size and log blocks are choices, so only the rough size can match), are *direction only* with the paper's sign outside \
that, and *differ* otherwise.";

/// A row of the tables: (allocation, threshold).
type Row = (&'static str, &'static str);

/// The paper's effects: (what, the row, the row it is compared with, column: 0 page writes,
/// 1 page reads, 2 copy-backs, 3 erases, the paper's table).
const EFFECTS: [(&str, Row, Row, usize, &str); 7] = [
    ("SCA, 1/4 vs none: copy-backs", ("sca", "1/4"), ("sca", "off"), 2, "Table 2"),
    ("SCA, 1/4 vs none: erases", ("sca", "1/4"), ("sca", "off"), 3, "Table 2"),
    ("SCA, 1/4 vs none: page writes", ("sca", "1/4"), ("sca", "off"), 0, "Table 2"),
    ("AFCA, 1/4 vs none: erases", ("afca", "1/4"), ("afca", "off"), 3, "Table 3"),
    ("AFCA, 1/4 vs none: copy-backs", ("afca", "1/4"), ("afca", "off"), 2, "Table 3"),
    ("AFCA vs SCA without defragmentation: erases", ("afca", "off"), ("sca", "off"), 3, "Tables 2–3"),
    ("AFCA vs SCA without defragmentation: page writes", ("afca", "off"), ("sca", "off"), 0, "Tables 2–3"),
];

/// A row of an ablation, or the main run's where the ablation's change cannot touch that row:
/// moves as read + write at "none" (nothing moves), directory sizing and AFCA's threshold under
/// SCA (which ignores sizes). `None`: the ablation did not run that row.
fn row_in<'a>(runs: &'a [Run], ablation: Option<&str>, (alloc, t): Row) -> Option<&'a Run> {
    let found = runs.iter().find(|r| r.ablation == ablation && r.v.alloc == alloc && r.v.threshold == t);
    let same_as_main = match ablation {
        Some("moves-rw") => t == "off",
        Some("dir-size-0" | "afca-block") => alloc == "sca",
        _ => false,
    };
    found.or_else(|| same_as_main.then(|| get(runs, alloc, t)))
}

/// Each claim's figure with one cause removed, for every ablation that ran both of its rows:
/// (ablation, figure).
fn claim_ablations(runs: &[Run], row: Row, base: Row, col: usize) -> Vec<(&'static str, f64)> {
    ABLATIONS
        .iter()
        .filter_map(|a| {
            let (r, b) = (row_in(runs, Some(a.key), row)?, row_in(runs, Some(a.key), base)?);
            Some((a.key, change(r.total().get(col), b.total().get(col))))
        })
        .collect()
}

/// The claims, each with its figure under every ablation (the experiments tried on it), so a
/// gap that stays unexplained says which causes were tried.
fn claims(runs: &[Run]) -> Vec<Claim> {
    let paper = |(alloc, t): Row, col: usize| {
        let table = PAPER.iter().find(|x| x.0 == alloc).expect("paper table").1;
        table[THRESHOLDS.iter().position(|&x| x == t).expect("a threshold")][col]
    };
    let ours = |(alloc, t): Row, col: usize| get(runs, alloc, t).total().get(col);
    EFFECTS
        .iter()
        .map(|&(what, row, base, col, table)| {
            let p = change(paper(row, col), paper(base, col));
            let tried = claim_ablations(runs, row, base, col);
            // Every ablation's figure is listed (the experiments tried on this claim), but none is
            // taken as the gap's explanation: each changes a setting we chose, none removes a
            // cause the paper's text names, and with a dozen tried on an effect of a few per cent
            // one can land inside the band by chance. A gap stays unexplained until an
            // experiment isolates its cause.
            let inside = tried.iter().filter(|(_, x)| (x - p).abs() <= 0.5 * p.abs()).count();
            let list = tried.iter().map(|(k, x)| format!("{k} {x:+.1}")).collect::<Vec<_>>().join(", ");
            Claim::new(
                Kind::Effect,
                format!("{what}, %"),
                p,
                change(ours(row, col), ours(base, col)),
                0.5,
                format!(
                    "{table}; the same effect under each ablation: {list} ({inside} of {} inside the band)",
                    tried.len()
                ),
            )
        })
        .collect()
}

/// §4 moves data by copy-back; Table 2's 1/4 and 1/2 rows add page writes and reads instead.
fn move_cost(w: &mut String, scale: Scale, runs: &[Run]) {
    let sca = &PAPER[0].1;
    let added = |i: usize, col: usize| sca[i][col] as i64 - sca[0][col] as i64;
    let _ = writeln!(
        w,
        "## The cost of a move

§4 moves data with the FTL's copy-back (`fil_defrag_copy`), which adds no page write or read. Yet the paper's Table 2 (SCA) adds {} page writes and {} page reads at 1/4 ({:+} copy-backs) and {} / {} at 1/2 ({:+} copy-backs) over \"none\": if each moved page were read and written once, those rows would mean about {} and {} moved pages. Ours, the main setup (moves by copy-back) and the ablations that could explain the difference (each SCA, against its own \"none\"):\n",
        added(3, 0), added(3, 1), added(3, 2), added(4, 0), added(4, 1), added(4, 2), added(3, 0), added(4, 0)
    );
    let _ = writeln!(w, "| run | threshold | clusters moved | pages moved | added page writes | added page reads | added copy-backs | added writes per page moved |\n|---|---|---|---|---|---|---|---|");
    let mut closest: Option<(&str, f64)> = None;
    for key in [None, Some("moves-rw"), Some("cluster-1k"), Some("cluster-512"), Some("rule-at-most")] {
        if key.is_some_and(|k| !ran(k, scale)) {
            continue;
        }
        for t in ["1/4", "1/2"] {
            let (Some(r), Some(b)) = (row_in(runs, key, ("sca", t)), row_in(runs, key, ("sca", "off"))) else {
                continue;
            };
            let (x, y) = (r.total(), b.total());
            let d = |col: usize| x.get(col) as i64 - y.get(col) as i64;
            let pages = r.defrag.clusters_moved * r.v.cluster_sectors as u64 / 4;
            let _ = writeln!(
                w,
                "| {} | {t} | {} | {pages} | {} | {} | {} | {} |",
                key.map_or("main".to_string(), |k| format!("`{k}`")),
                r.defrag.clusters_moved,
                d(0),
                d(1),
                d(2),
                if pages == 0 { "–".to_string() } else { format!("{:.2}", d(0) as f64 / pages as f64) }
            );
            if t == "1/4" {
                let share = d(0) as f64 / added(3, 0) as f64;
                if closest.is_none_or(|c| (1.0 - share).abs() < (1.0 - c.1).abs()) {
                    closest = Some((key.unwrap_or("main"), share));
                }
            }
        }
    }
    let main = get(runs, "sca", "1/4");
    let _ = writeln!(
        w,
        "\n- The paper's own 1/4 row implies about {:.0} times more moved data than our trigger moves: {} added page writes (as read + write, one per moved page) against our {} clusters moved ({} pages) at SCA, 1/4.",
        added(3, 0) as f64 / (main.defrag.clusters_moved * main.v.cluster_sectors as u64 / 4).max(1) as f64,
        added(3, 0),
        main.defrag.clusters_moved,
        main.defrag.clusters_moved * main.v.cluster_sectors as u64 / 4
    );
    if let Some((k, share)) = closest {
        let _ = writeln!(
            w,
            "- Closest of the explanations run (added page writes at 1/4 against the paper's {}): `{k}`, {:.0}% of them. Moves as read + write alone add about one write and one read per moved page, so they explain the sign of the paper's added reads and writes, not their size; sub-page clusters (`cluster-1k`, `cluster-512`) move more clusters, each by read + write (a move that is not a whole page cannot be a copy-back), and add partial-page read-modify-writes. Quick scale has a quarter of paper scale's volume but the same Postmark.",
            added(3, 0),
            100.0 * share
        );
    }
    let _ = writeln!(w);
}

fn verdict(w: &mut String, scale: Scale, runs: &[Run]) {
    let _ = writeln!(w, "## Verdicts\n\n{RULE}\n");
    let _ = write!(w, "{}", verdict::section(&claims(runs), 1));
    let _ = writeln!(w, "\nWhat the ablations show (each an experiment above, not a guess):\n");
    let base_q = get(runs, "sca", "1/4").total();
    let eager_q = get_in(runs, Some("eager"), "sca", "1/4").total();
    let _ = writeln!(
        w,
        "- Copies at merge vs at once (SCA, 1/4): {} vs {} copy-backs, {} vs {} erases.",
        base_q.copybacks, eager_q.copybacks, base_q.erases, eager_q.erases
    );
    for alloc in ALLOCATORS {
        let (m, b) = (get(runs, alloc, "off").total(), get_in(runs, Some("write-back"), alloc, "off").total());
        let _ = writeln!(
            w,
            "- Metadata written back instead of through (`write-back`; {}, no defragmentation): page writes {} → {} ({:+.1}%), erases {} → {} ({:+.1}%).",
            alloc.to_uppercase(),
            m.page_writes,
            b.page_writes,
            change(b.page_writes, m.page_writes),
            m.erases,
            b.erases,
            change(b.erases, m.erases)
        );
    }
    let (s, a) = (
        get_in(runs, Some("write-back"), "sca", "off").total(),
        get_in(runs, Some("write-back"), "afca", "off").total(),
    );
    let _ = writeln!(
        w,
        "- AFCA vs SCA with metadata written back: erases {:+.1}% (paper −32.2%).",
        change(a.erases, s.erases)
    );
    let (s, a) = (get(runs, "sca", "off").total(), get_in(runs, Some("afca-block"), "afca", "off").total());
    let _ = writeln!(w, "- AFCA with a one-block large-file threshold vs SCA: erases {:+.1}%, page writes {:+.1}% (paper −32.2%, −11.6%).", change(a.erases, s.erases), change(a.page_writes, s.page_writes));
    let effect = |ab: Option<&str>, i: usize| {
        change(get_in(runs, ab, "sca", "1/4").total().get(i), get_in(runs, ab, "sca", "off").total().get(i))
    };
    let _ = writeln!(
        w,
        "- Sensitivity to the log blocks (our choice), SCA 1/4 vs none — copy-backs: {:+.1}% (half) / {:+.1}% (main) / {:+.1}% (double); erases: {:+.1}% / {:+.1}% / {:+.1}% (paper −7.8%, −0.8%).",
        effect(Some("log-half"), 2),
        effect(None, 2),
        effect(Some("log-double"), 2),
        effect(Some("log-half"), 3),
        effect(None, 3),
        effect(Some("log-double"), 3)
    );
    // Page reads per page write: the paper's 478,907 / 236,218 = 2.03 (SCA, none).
    let ratio = |o: Ops| o.page_reads as f64 / o.page_writes.max(1) as f64;
    let main = get(runs, "sca", "off").total();
    let _ = writeln!(
        w,
        "- Page reads per page write (SCA, no defragmentation): paper {:.2}; ours {:.2} with the {META_CACHE_SECTORS}-sector metadata cache (main: {} page reads, {} FAT + {} directory sectors read on a miss), then by metadata model:",
        478_907.0 / 236_218.0,
        ratio(main),
        main.page_reads,
        get(runs, "sca", "off").meta.fat_reads,
        get(runs, "sca", "off").meta.dir_reads
    );
    for key in ["meta-cached", "meta-1", "meta-64", "meta-scans", "write-back", "delayed"] {
        let r = get_in(runs, Some(key), "sca", "off");
        let o = r.total();
        let _ = writeln!(
            w,
            "  - `{key}`: {:.2} ({} page reads, {} page writes, {} erases; metadata sectors read on a miss: {} FAT + {} directory; {} written on eviction)",
            ratio(o),
            o.page_reads,
            o.page_writes,
            o.erases,
            r.meta.fat_reads,
            r.meta.dir_reads,
            r.meta.evict_writes
        );
    }
    let counts = |r: &Run| r.alloc_counts.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join("; ");
    let afca = get(runs, "afca", "off");
    let n = |k: &str| afca.alloc_counts.iter().find(|c| c.0 == k).map_or(0, |c| c.1);
    let _ = writeln!(
        w,
        "- AFCA's decisions during Postmark (clusters, no defragmentation) — main: {}; `afca-block`: {}. \
         Large files found an empty flash block for {} of {} clusters: the fragmentation step leaves surviving 1 KB files in every flash block, so a large file falls back to the next free cluster, which is what SCA allocates. \
         With 25% of the volume left free and unfragmented (`frag-75`): {}; AFCA vs SCA erases {:+.1}%, page writes {:+.1}% (paper −32.2%, −11.6%).",
        counts(afca),
        counts(get_in(runs, Some("afca-block"), "afca", "off")),
        n("large, new empty block"),
        n("large, new empty block") + n("large, own block") + n("large, fallback"),
        counts(get_in(runs, Some("frag-75"), "afca", "off")),
        change(get_in(runs, Some("frag-75"), "afca", "off").total().erases, get_in(runs, Some("frag-75"), "sca", "off").total().erases),
        change(get_in(runs, Some("frag-75"), "afca", "off").total().page_writes, get_in(runs, Some("frag-75"), "sca", "off").total().page_writes),
    );
    let afca_sca = |ab: Option<&str>| {
        let (a, s) = (row_in(runs, ab, ("afca", "off")), row_in(runs, ab, ("sca", "off")));
        a.zip(s).map_or(f64::NAN, |(a, s)| change(a.total().erases, s.total().erases))
    };
    let _ = writeln!(
        w,
        "- AFCA's rule, from the texts: the defrag paper gives it twice (§2: small files share a flash block, and once a file grows past a set size it is allocated block by block thereafter; §5: a file larger than a predetermined size is taken as large and given one flash block, small files share one), which is ours; neither says anything of directories, what to do when no empty block is left (ours: the next free cluster), or the size (ours: 5 KiB). The AFCA paper itself (Kim, Lee, Min, SPPS 2005) was not found in the stored sources searched; its journal version's abstract (JISE 25(4), 2009) sizes files \"relative to the flash memory block size\" (`afca-block`). A FAT directory is a file whose length is its chain, so ours asks for a directory's cluster with that size (main); with size 0 instead (`dir-size-0`) AFCA vs SCA erases are {:+.1}% (main {:+.1}%, paper −32.2%).",
        afca_sca(Some("dir-size-0")),
        afca_sca(None)
    );
    for c in ["cluster-512", "cluster-1k", "cluster-4k"].into_iter().filter(|c| ran(c, scale)) {
        let (s, a) = (get_in(runs, Some(c), "sca", "off").total(), get_in(runs, Some(c), "afca", "off").total());
        let _ = writeln!(
            w,
            "- `{c}`: AFCA vs SCA erases {:+.1}%, SCA page writes {} (paper 236,218), page reads {} (paper 478,907).",
            change(a.erases, s.erases),
            s.page_writes,
            s.page_reads
        );
    }
    let _ = writeln!(
        w,
        "\nWhy figures can differ: the paper does not give the volume size, FAT type, cluster size, the FTL's log blocks, AFCA's threshold, \
         which phases its counts cover, or how its file system caches metadata; the main tables write every change through at once and \
         hold {META_CACHE_SECTORS} metadata sectors (our choice); the ablations show what deferred metadata writes, \
         other cache sizes, a cache that holds everything, directory scans through the cache and other cluster sizes change. Absolute counts therefore differ; the comparison is between thresholds and allocators under one setup."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run's device exists at paper scale (and quick): a row added at quick scale alone
    /// once made the paper-scale reproduction fail after 33 minutes.
    #[test]
    fn every_variant_device_builds_at_both_scales() {
        for scale in [Scale::Paper, Scale::Quick] {
            let jobs = jobs(scale);
            assert!(jobs.len() > 10, "main tables and ablations");
            for (v, a) in &jobs {
                let dev = device(v, scale).unwrap_or_else(|e| panic!("{scale:?} {v:?} {a:?}: {e}"));
                let pages = u64::from(data_blocks(scale)) * 64;
                assert_eq!(dev.logical_pages(), pages, "{scale:?} {a:?}: the volume's flash blocks");
            }
        }
    }

    /// How long one paper-scale run takes, and its counts (the main setup, then each ablation's
    /// change; SCA and no defragmentation unless `DEFRAG_TIME_ALLOC=afca`,
    /// `DEFRAG_TIME_THRESHOLD=1/4|1/16`; `DEFRAG_TIME_ONLY=main,meta-1,...` picks variants):
    /// `cargo test --release -p flashlab-repro paper_one_variant_time -- --ignored --nocapture`.
    #[test]
    #[ignore = "minutes at paper scale; run by hand to time the variants"]
    fn paper_one_variant_time() {
        let only = std::env::var("DEFRAG_TIME_ONLY").ok();
        let threshold = match std::env::var("DEFRAG_TIME_THRESHOLD").ok().as_deref() {
            Some("1/4") => "1/4",
            Some("1/16") => "1/16",
            _ => "off",
        };
        let alloc = if std::env::var("DEFRAG_TIME_ALLOC").as_deref() == Ok("afca") { "afca" } else { "sca" };
        let base = Variant { threshold, alloc, ..BASE };
        let mut variants = vec![("main", base)];
        variants.extend(ABLATIONS.iter().map(|a| (a.key, (a.change)(base))));
        for (key, v) in
            variants.into_iter().filter(|(k, _)| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *k)))
        {
            let t = std::time::Instant::now();
            let r = one(v, None, Scale::Paper).unwrap_or_else(|e| panic!("paper-scale run {key}: {e}"));
            let o = r.total();
            eprintln!(
                "paper scale, {alloc}, threshold {threshold}, {key}: {:.1} s; whole run: {} page writes, {} page reads, {} copy-backs, {} erases; {} clusters moved; metadata reads {} FAT + {} directory",
                t.elapsed().as_secs_f64(),
                o.page_writes,
                o.page_reads,
                o.copybacks,
                o.erases,
                r.defrag.clusters_moved,
                r.meta.fat_reads,
                r.meta.dir_reads
            );
            assert!(r.verified_files > 0, "the run read back the fragmentation files");
        }
    }
}
