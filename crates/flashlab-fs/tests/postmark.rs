//! Postmark on the FAT model: determinism, counts, contents against the model (and `fsck.fat`),
//! agreement with the real `postmark` binary in distribution, and the fragmentation step.
//! When `fsck.fat` or `postmark` is missing only those checks are skipped, with a message;
//! FLASHLAB_REQUIRE_FAT_TOOLS / FLASHLAB_REQUIRE_POSTMARK turn a skip into a failure.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use common::fat_tools::*;

use flashlab_fs::postmark::{
    file_data, fragment, run_postmark, NoHooks, PostmarkConfig, PostmarkHooks, PostmarkReport,
};
use flashlab_fs::{BlockDevice, FatFs, FatType, FormatOptions, MemDisk};

// ---------- helpers ----------

/// 64 MiB FAT16, 2 KiB clusters.
fn fs64() -> FatFs<MemDisk> {
    let opts = FormatOptions { fat_type: FatType::Fat16, sectors_per_cluster: 4, ..FormatOptions::default() };
    FatFs::format(MemDisk::new(64 << 11, 512).unwrap(), opts).unwrap()
}

fn cfg(seed: u64, delete_at_end: bool) -> PostmarkConfig {
    PostmarkConfig { seed, delete_at_end, ..PostmarkConfig::default() }
}

fn run(cfg: &PostmarkConfig) -> (PostmarkReport, FatFs<MemDisk>) {
    let mut fs = fs64();
    let r = run_postmark(&mut fs, cfg, &mut NoHooks).unwrap();
    assert_eq!(r.read_mismatches, 0, "every file read back equals the model (seed {})", cfg.seed);
    (r, fs)
}

// ---------- determinism, counts, contents ----------

#[test]
fn same_seed_same_report_and_image_other_seed_differs() {
    let (a, fa) = run(&cfg(11, false));
    let (b, fb) = run(&cfg(11, false));
    assert_eq!(a, b, "same seed, same report");
    assert!(fa.into_device().image() == fb.device().image(), "same seed, same disk image");
    let (c, fc) = run(&cfg(12, false));
    assert_ne!(a, c, "another seed, another report");
    assert!(fc.device().image() != fb.device().image(), "another seed, another image");
}

#[test]
fn counts_add_up_and_the_end_phase_empties_the_directory() {
    let c = cfg(3, true);
    let mut fs = fs64();
    fs.mkdir(&c.dir).unwrap();
    let free_before = fs.free_clusters();
    let r = run_postmark(&mut fs, &c, &mut NoHooks).unwrap();
    assert_eq!(r.transactions_run, 1000);
    assert_eq!(r.files_created_initial, 500);
    assert_eq!(r.files_created() - r.files_deleted_in_transactions, r.files_live_before_end);
    assert_eq!(r.files_deleted_at_end, r.files_live_before_end);
    assert_eq!(r.files_deleted(), r.files_created());
    assert_eq!(
        r.files_read + r.files_appended + r.appends_skipped,
        r.transactions_run,
        "one read/append per transaction"
    );
    assert_eq!(
        r.files_created_in_transactions + r.files_deleted_in_transactions + r.creates_skipped,
        r.transactions_run,
        "one create/delete per transaction"
    );
    assert!(r.live_files.is_empty() && r.read_mismatches == 0);
    assert!(r.bytes_appended <= r.bytes_written && r.bytes_read > 0);
    assert!(fs.list(&c.dir).unwrap().is_empty(), "all files deleted");
    // Directory clusters added while it held up to ~1000 entries stay; file clusters are all free.
    assert!(fs.free_clusters() + 16 >= free_before, "file clusters freed");
}

#[test]
fn biases_table_limit_and_out_of_files_follow_postmark() {
    let small = |read_bias, create_bias, initial_files, transactions| PostmarkConfig {
        read_bias,
        create_bias,
        initial_files,
        transactions,
        ..cfg(5, true)
    };
    // Read bias 10: every first part reads; create bias 0: every second part deletes, so with 20
    // files the run stops after 20 transactions (postmark: "out of files!").
    let (r, _) = run(&small(10, 0, 20, 100));
    assert_eq!((r.transactions_run, r.files_read, r.files_appended, r.files_deleted_in_transactions), (20, 20, 0, 20));
    // Create bias 10: the table holds 2 x 10 files, later creates are skipped.
    let (r, _) = run(&small(0, 10, 10, 30));
    assert_eq!((r.files_created_in_transactions, r.creates_skipped, r.files_read), (10, 20, 0));
    assert_eq!(r.files_appended + r.appends_skipped, 30);
    // -1 disables a part.
    let (r, _) = run(&small(-1, -1, 10, 30));
    assert_eq!((r.transactions_run, r.files_read + r.files_appended, r.files_created()), (30, 0, 10));
}

struct CountCloses(BTreeMap<String, u32>);
impl<D: BlockDevice> PostmarkHooks<D> for CountCloses {
    fn after_close(&mut self, fs: &mut FatFs<D>, path: &str) -> Result<(), flashlab::Error> {
        fs.stat(path)?; // the file exists and is closed: it can be opened
        let fd = fs.open(path)?;
        fs.close(fd)?;
        *self.0.entry(path.to_string()).or_default() += 1;
        Ok(())
    }
}

#[test]
fn live_files_match_the_model_hooks_see_every_close_and_fsck_passes() {
    let c = PostmarkConfig { dir: "/WORK".into(), ..cfg(21, false) };
    let mut fs = fs64();
    let mut hooks = CountCloses(BTreeMap::new());
    let r = run_postmark(&mut fs, &c, &mut hooks).unwrap();
    assert_eq!(r.read_mismatches, 0);
    let closes: u32 = hooks.0.values().sum();
    assert_eq!(closes as u64, r.files_created() + r.files_read + r.files_appended, "a hook call per close");
    assert_eq!(r.live_files.len() as u64, r.files_live_before_end);
    assert_eq!(r.files_deleted_at_end, 0);
    for (path, bytes) in &r.live_files {
        assert!(bytes.len() >= c.min_size as usize && bytes.len() <= c.max_size as usize, "{path} size");
        assert!(read_all(&mut fs, path, 1000) == *bytes, "{path} contents");
    }
    let on_disk: BTreeSet<String> = fs.files().unwrap().into_iter().map(|(p, _)| p).collect();
    assert_eq!(on_disk, r.live_files.keys().cloned().collect(), "the directory holds exactly the live files");
    if let Some(fsck) = tools("fsck of the postmark image") {
        fsck_ok(&fsck, fs.device().image(), "postmark");
    }
}

#[test]
fn bad_configurations_are_errors() {
    let mut fs = fs64();
    for bad in [
        PostmarkConfig { initial_files: 0, ..PostmarkConfig::default() },
        PostmarkConfig { min_size: 2000, max_size: 1000, ..PostmarkConfig::default() },
        PostmarkConfig { min_size: 0, ..PostmarkConfig::default() },
        PostmarkConfig { read_bias: 11, ..PostmarkConfig::default() },
        PostmarkConfig { create_bias: -2, ..PostmarkConfig::default() },
        PostmarkConfig { write_block: 0, ..PostmarkConfig::default() },
        PostmarkConfig { transactions: 10_000_000, ..PostmarkConfig::default() },
        PostmarkConfig { dir: "/lower".into(), ..PostmarkConfig::default() },
    ] {
        let e = run_postmark(&mut fs, &bad, &mut NoHooks).expect_err("invalid configuration");
        assert!(!e.to_string().is_empty());
    }
    let fd = fs.create("/AFILE").unwrap();
    fs.close(fd).unwrap();
    let e = run_postmark(&mut fs, &PostmarkConfig { dir: "/AFILE".into(), ..PostmarkConfig::default() }, &mut NoHooks);
    assert!(e.expect_err("dir is a file").to_string().contains("not a directory"));
    assert!(fragment(&mut fs, "/FRAG", 0).is_err(), "empty files never fill a volume");
    // A too-small volume ends a run with the file system's full error, not a panic.
    let opts = FormatOptions {
        sectors_per_cluster: 1,
        data_align_sectors: 8,
        flash_block_sectors: 8,
        ..FormatOptions::default()
    };
    let mut tiny = FatFs::format(MemDisk::new(8192, 512).unwrap(), opts).unwrap();
    let big = PostmarkConfig { min_size: 8192, ..cfg(1, true) };
    let e = run_postmark(&mut tiny, &big, &mut NoHooks).expect_err("4 MiB cannot hold 500 files of 8 KB");
    assert!(e.to_string().contains("full"), "{e}");
}

// ---------- the real postmark ----------

#[derive(Debug, Default)]
struct Real {
    created_initial: u64,
    created_tx: u64,
    deleted_tx: u64,
    deleted_end: u64,
    read: u64,
    appended: u64,
    bytes_read: f64,
    bytes_written: f64,
}

/// Parse postmark's verbose report.
fn parse_real(text: &str) -> Real {
    assert!(!text.contains("out of files"), "postmark ran out of files:\n{text}");
    let mut r = Real::default();
    let mut mixed = 0;
    let num = |s: &str| s.parse::<u64>().unwrap_or_else(|_| panic!("number `{s}` in postmark output:\n{text}"));
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.as_slice() {
            ["Creation", "alone:", n, ..] => r.created_initial = num(n),
            ["Deletion", "alone:", n, ..] => r.deleted_end = num(n),
            ["Mixed", "with", "transactions:", n, ..] => {
                *(if mixed == 0 { &mut r.created_tx } else { &mut r.deleted_tx }) = num(n);
                mixed += 1;
            }
            [n, "read", ..] => r.read = num(n),
            [n, "appended", ..] => r.appended = num(n),
            [x, unit @ ("megabytes" | "kilobytes" | "bytes"), what @ ("read" | "written"), ..] => {
                let scale = match *unit {
                    "megabytes" => 1048576.0,
                    "kilobytes" => 1024.0,
                    _ => 1.0,
                };
                let v = x.parse::<f64>().unwrap() * scale;
                *(if *what == "read" { &mut r.bytes_read } else { &mut r.bytes_written }) = v;
            }
            _ => {}
        }
    }
    assert_eq!(mixed, 2, "postmark's report has both 'Mixed with transactions' lines:\n{text}");
    r
}

fn run_real(postmark: &Path, c: &PostmarkConfig) -> Real {
    let dir = tmp(&format!("real{}", c.seed));
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        "set location {}\nset number {}\nset transactions {}\nset size {} {}\nset read {}\nset write {}\n\
         set bias read {}\nset bias create {}\nset seed {}\nrun\nquit\n",
        dir.display(),
        c.initial_files,
        c.transactions,
        c.min_size,
        c.max_size,
        c.read_block,
        c.write_block,
        c.read_bias,
        c.create_bias,
        c.seed
    );
    let cfg_path = dir.join("pm.cfg");
    std::fs::write(&cfg_path, script).unwrap();
    let out = Command::new(postmark).arg(&cfg_path).current_dir(&dir).output().expect("spawn postmark");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "postmark failed: {text}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(left.len(), 1, "postmark deletes its files (only the script is left): {left:?}");
    parse_real(&text)
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Postmark draws from a Mersenne Twister, we from xoshiro: runs agree in distribution, not
/// exactly. Counts of the two parts are binomial (p = bias / 10) and checked against ±3σ; bytes
/// read and written, and bytes per read, against the spread of our own runs (±4 sample σ for one
/// run, and for the mean over the real runs).
#[test]
fn agrees_with_the_real_postmark_in_distribution() {
    let Some(postmark) =
        tool("postmark", "FLASHLAB_REQUIRE_POSTMARK", "Debian package postmark", "real-postmark comparison")
    else {
        return;
    };
    let ours: Vec<PostmarkReport> = (100..116).map(|s| run(&cfg(s, true)).0).collect();
    let stat = |f: &dyn Fn(&PostmarkReport) -> f64| mean_sd(&ours.iter().map(f).collect::<Vec<_>>());
    let (bw_mean, bw_sd) = stat(&|r| r.bytes_written as f64);
    let (br_mean, br_sd) = stat(&|r| r.bytes_read as f64);
    let (bpr_mean, bpr_sd) = stat(&|r| r.bytes_read as f64 / r.files_read as f64);
    let (ctx_mean, _) = stat(&|r| r.files_created_in_transactions as f64);
    eprintln!(
        "ours ({} seeds): created_tx mean {ctx_mean:.1}, bytes written {bw_mean:.0} ± {bw_sd:.0}, \
         read {br_mean:.0} ± {br_sd:.0}, per read {bpr_mean:.0} ± {bpr_sd:.0}",
        ours.len()
    );
    let c = PostmarkConfig::default();
    let t = c.transactions as f64;
    let binom = |p: f64| (t * p, 3.0 * (t * p * (1.0 - p)).sqrt());
    let seeds = [1u64, 7, 42, 1000, 31337];
    let mut real_bw = Vec::new();
    for &seed in &seeds {
        let r = run_real(&postmark, &PostmarkConfig { seed, ..c.clone() });
        eprintln!("real seed {seed}: {r:?}");
        assert_eq!(r.created_initial, c.initial_files as u64);
        let (mu, tol) = binom(c.create_bias as f64 / 10.0);
        assert!((r.created_tx as f64 - mu).abs() <= tol, "created in transactions {} vs {mu} ± {tol}", r.created_tx);
        assert_eq!(r.created_tx + r.deleted_tx, c.transactions as u64, "one create or delete per transaction");
        assert_eq!(r.deleted_end, c.initial_files as u64 + r.created_tx - r.deleted_tx, "the rest deleted at the end");
        let (mu, tol) = binom(c.read_bias as f64 / 10.0);
        assert!((r.read as f64 - mu).abs() <= tol, "read {} vs {mu} ± {tol}", r.read);
        assert!(r.read + r.appended <= 1000 && r.read + r.appended >= 990, "appends skipped only at max size");
        let one = |x: f64, mean: f64, sd: f64, what: &str| {
            let tol = 4.0 * sd * (1.0 + 1.0 / ours.len() as f64).sqrt() + 0.01 * 1048576.0; // + print rounding
            assert!((x - mean).abs() <= tol, "seed {seed}: real {what} {x:.0} vs ours {mean:.0} ± {tol:.0}");
        };
        one(r.bytes_written, bw_mean, bw_sd, "bytes written");
        one(r.bytes_read, br_mean, br_sd, "bytes read");
        let per_read = r.bytes_read / r.read as f64;
        let tol = 4.0 * bpr_sd * (1.0 + 1.0 / ours.len() as f64).sqrt() + 0.01 * 1048576.0 / r.read as f64;
        assert!(
            (per_read - bpr_mean).abs() <= tol,
            "seed {seed}: bytes per read {per_read:.0} vs {bpr_mean:.0} ± {tol:.0}"
        );
        real_bw.push(r.bytes_written);
    }
    let (real_mean, _) = mean_sd(&real_bw);
    let tol = 4.0 * bw_sd * (1.0 / seeds.len() as f64 + 1.0 / ours.len() as f64).sqrt() + 0.01 * 1048576.0;
    eprintln!("mean bytes written: real {real_mean:.0}, ours {bw_mean:.0} (tolerance {tol:.0})");
    assert!(
        (real_mean - bw_mean).abs() <= tol,
        "mean bytes written: real {real_mean:.0} vs ours {bw_mean:.0} ± {tol:.0}"
    );
}

// ---------- fragmentation ----------

fn fragmented(spc: u32, sectors: u64, file_size: u32) -> (FatFs<MemDisk>, flashlab_fs::postmark::FragmentReport) {
    let opts = FormatOptions {
        sectors_per_cluster: spc,
        data_align_sectors: 8,
        flash_block_sectors: 8,
        ..FormatOptions::default()
    };
    let mut fs = FatFs::format(MemDisk::new(sectors, 512).unwrap(), opts).unwrap();
    let r = fragment(&mut fs, "/FRAG", file_size).unwrap();
    (fs, r)
}

#[test]
fn fragment_leaves_every_other_file_and_holes_between_them() {
    let (mut fs, r) = fragmented(2, 8 << 11, 1024); // 8 MiB, 1 KiB clusters: a file per cluster
    assert!(r.files_created > 7000, "{r:?}");
    assert_eq!(r.files_deleted, r.files_created.div_ceil(2));
    assert_eq!(r.free_clusters_at_full, 0);
    let names: Vec<String> = fs.list("/FRAG").unwrap().into_iter().map(|e| e.name).collect();
    let want: Vec<String> = (2..=r.files_created).step_by(2).map(|id| format!("F{id:07}.DAT")).collect();
    assert_eq!(names, want, "the even-numbered files remain, in order");
    for id in (2..=r.files_created).step_by(2).step_by(97) {
        assert!(read_all(&mut fs, &format!("/FRAG/F{id:07}.DAT"), 1000) == file_data(id, 0, 1024), "F{id:07} contents");
    }
    let used = |c: u32| !fs.is_cluster_free(c);
    let holes = (3..fs.cluster_count() + 1).filter(|&c| !used(c) && used(c - 1) && used(c + 1)).count() as u64;
    assert!(
        holes * 10 >= r.files_deleted * 9,
        "free clusters lie between used ones: {holes} holes for {} deleted",
        r.files_deleted
    );
    assert_eq!(fs.free_clusters() as u64, r.files_deleted, "each deleted file freed its one cluster");
    if let Some(fsck) = tools("fsck of the fragmented image") {
        fsck_ok(&fsck, fs.device().image(), "fragment");
    }
}

#[test]
fn fragment_ends_with_whole_files_only() {
    // 4 MiB, 512-byte clusters: whatever the size, the volume ends full of whole files.
    for clusters in 1..=12u32 {
        let size = clusters * 512 - 17;
        let (mut fs, r) = fragmented(1, 8192, size);
        let entries = fs.list("/FRAG").unwrap();
        assert_eq!(entries.len() as u64, r.files_created - r.files_deleted);
        assert!(entries.iter().all(|e| e.size == size), "every file is whole ({size} bytes)");
        assert!(r.free_clusters_at_full < clusters, "{r:?}");
    }
}

#[test]
fn fragment_removes_a_file_whose_data_no_longer_fits() {
    // A 512-byte directory cluster holds 16 entries; /FRAG's first also holds `.` and `..`, so
    // creating file 15 + 16j grows the directory by one cluster. Pad the volume so that exactly 2
    // clusters are free before such a growth: the 2-cluster file then gets its entry, not its data.
    let opts = FormatOptions {
        sectors_per_cluster: 1,
        data_align_sectors: 8,
        flash_block_sectors: 8,
        ..FormatOptions::default()
    };
    let mut fs = FatFs::format(MemDisk::new(8192, 512).unwrap(), opts).unwrap();
    fs.mkdir("/FRAG").unwrap();
    fs.mkdir("/PAD").unwrap();
    let free = fs.free_clusters();
    // Before the growth at file 15 + 16j: 2 * (14 + 16j) + j clusters used by files and growths.
    let j = (free - 30) / 33;
    let pad = free - 30 - 33 * j;
    if pad > 0 {
        let fd = fs.create("/PAD/PAD.BIN").unwrap();
        fs.write(fd, &vec![7u8; pad as usize * 512]).unwrap();
        fs.close(fd).unwrap();
    }
    let r = fragment(&mut fs, "/FRAG", 1000).unwrap();
    assert!(r.partial_file_removed, "{r:?}");
    assert_eq!(r.files_created, 14 + 16 * j as u64, "{r:?}");
    assert_eq!(r.free_clusters_at_full, 1);
    let entries = fs.list("/FRAG").unwrap();
    assert_eq!(entries.len() as u64, r.files_created - r.files_deleted);
    assert!(entries.iter().all(|e| e.size == 1000), "no half-created file is left");
    if let Some(fsck) = tools("fsck of the fragmented image") {
        fsck_ok(&fsck, fs.device().image(), "fragment-partial");
    }
}
