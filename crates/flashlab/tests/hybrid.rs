//! Hand-built sequences for the block-mapped and hybrid (log-block) FTLs: write classes,
//! switch / partial / full merges with exact copy counts, BAST vs FAST, read-after-write.

use flashlab::ftl::{self, Ftl, FtlConfig, FtlSpec, HybridReport, Striping};
use flashlab::nand::{GcUnit, Geometry, Layout};
use flashlab::units::{Lpn, Nanos};

fn geo(planes: u32, blocks: u32, pages: u32) -> Geometry {
    Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: planes,
        blocks_per_plane: blocks,
        pages_per_block: pages,
        page_size: 4096,
    }
}

fn build_on(
    mapping: &str,
    g: Geometry,
    logical: u64,
    params: &str,
    striping: Striping,
) -> Result<Box<dyn Ftl>, flashlab::error::Error> {
    let cfg = FtlConfig {
        mapping: mapping.into(),
        striping,
        mapping_params: params.parse().unwrap(),
        ..FtlConfig::default()
    };
    let spec = FtlSpec {
        layout: Layout::new(g, GcUnit::Block),
        logical_pages: logical,
        config: &cfg,
        verify: true,
        timing: None,
        seed: 1,
    };
    ftl::build(&spec)
}

/// 1 plane, 8 blocks of 4 pages, 16 logical pages (4 LBNs).
fn tiny(mapping: &str, log_blocks: Option<u32>) -> Box<dyn Ftl> {
    let params = log_blocks.map_or(String::new(), |n| format!("log_blocks = {n}"));
    build_on(mapping, geo(1, 8, 4), 16, &params, Striping::Full).unwrap()
}

/// Writes with increasing tags, checking invariants after each.
struct Run {
    f: Box<dyn Ftl>,
    tag: u32,
    last: Vec<Option<u32>>,
}

impl Run {
    fn new(f: Box<dyn Ftl>) -> Self {
        let n = f.logical_pages() as usize;
        Run { f, tag: 0, last: vec![None; n] }
    }
    fn w(&mut self, lpns: &[u64]) -> &mut Self {
        for &l in lpns {
            self.tag += 1;
            self.f.write(Lpn(l), self.tag, Nanos::ZERO).unwrap();
            self.last[l as usize] = Some(self.tag);
            self.f.validate().unwrap();
        }
        self
    }
    fn trim(&mut self, l: u64) {
        self.f.trim(Lpn(l), Nanos::ZERO).unwrap();
        self.last[l as usize] = None;
        self.f.validate().unwrap();
    }
    fn check_reads(&mut self) {
        for l in 0..self.last.len() {
            assert_eq!(self.f.read(Lpn(l as u64), Nanos::ZERO).unwrap().tag, self.last[l], "lpn {l}");
        }
    }
    fn r(&self) -> HybridReport {
        self.f.hybrid_report().unwrap()
    }
    fn copies(&self) -> u64 {
        self.f.counters().gc_copies
    }
}

#[test]
fn in_order_writes_are_write_data() {
    for m in ["block", "bast", "fast"] {
        let mut r = Run::new(tiny(m, None));
        r.w(&[0, 1, 2, 3, 4, 5]);
        let h = r.r();
        assert_eq!((h.write_data, h.update_pure, h.update_wasted), (6, 0, 0), "{m}");
        assert_eq!(r.f.nand().counters.programs, 6, "{m}: no padding, no copies");
        r.check_reads();
    }
}

#[test]
fn overwrite_is_update_pure_and_skipped_offset_is_update_wasted() {
    for m in ["block", "bast", "fast"] {
        let mut r = Run::new(tiny(m, None));
        r.w(&[0, 0]);
        assert_eq!((r.r().write_data, r.r().update_pure, r.r().update_wasted), (1, 1, 0), "{m}");
        // LBN 1 (lpns 4..7): offset 3 first (in place, offsets 0..2 skipped), then offset 1.
        r.w(&[7]);
        assert_eq!(r.r().write_data, 2, "{m}");
        r.w(&[5]);
        let h = r.r();
        assert_eq!((h.write_data, h.update_pure, h.update_wasted), (2, 1, 1), "{m}");
        r.w(&[6]);
        assert_eq!(r.r().update_wasted, 2, "{m}");
        r.check_reads();
    }
}

#[test]
fn complete_in_order_log_makes_a_switch_merge() {
    for m in ["bast", "fast"] {
        let mut r = Run::new(tiny(m, None));
        r.w(&[0, 1, 2, 3]);
        let erases = r.f.nand().counters.erases;
        r.w(&[0, 1, 2, 3]);
        let h = r.r();
        assert_eq!((h.switch_merges, h.partial_merges, h.full_merges), (1, 0, 0), "{m}");
        assert_eq!(h.update_pure, 4, "{m}");
        assert_eq!(r.copies(), 0, "{m}: a switch copies nothing");
        assert_eq!(r.f.nand().counters.erases - erases, 1, "{m}: the old data block is erased");
        r.check_reads();
    }
}

#[test]
fn half_log_makes_a_partial_merge_copying_the_missing_offsets() {
    // BAST with one log block: LBN 1's update evicts LBN 0's log (offsets 0, 1).
    let mut r = Run::new(tiny("bast", Some(1)));
    r.w(&[0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
    let (c0, cb0) = (r.copies(), r.f.nand().counters.copybacks);
    r.w(&[4]);
    let h = r.r();
    assert_eq!((h.switch_merges, h.partial_merges, h.full_merges), (0, 1, 0));
    assert_eq!(r.copies() - c0, 2, "offsets 2 and 3 copied");
    assert_eq!(r.f.nand().counters.copybacks - cb0, 2, "copies are copy-backs");
    r.check_reads();

    // FAST: SW log holds LBN 0's offsets 0, 1; an update at offset 0 of LBN 1 replaces it.
    let mut r = Run::new(tiny("fast", None));
    r.w(&[0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
    let c0 = r.copies();
    r.w(&[4]);
    let h = r.r();
    assert_eq!((h.switch_merges, h.partial_merges, h.full_merges), (0, 1, 0));
    assert_eq!(r.copies() - c0, 2);
    r.check_reads();
}

#[test]
fn random_overwrites_make_full_merges_with_exact_moves() {
    // BAST: log [2, 1, 2, 0] fills up: full merge moves 0, 1, 2 (log) and 3 (data) = 4 pages.
    let mut r = Run::new(tiny("bast", Some(1)));
    r.w(&[0, 1, 2, 3]);
    r.w(&[2, 1, 2, 0]);
    let h = r.r();
    assert_eq!((h.switch_merges, h.partial_merges, h.full_merges), (0, 0, 1));
    assert_eq!(r.copies(), 4);
    assert_eq!(r.f.counters().gc_victims, 1);
    r.check_reads();

    // A trimmed page is not moved.
    let mut r = Run::new(tiny("bast", Some(1)));
    r.w(&[0, 1, 2, 3]);
    r.trim(3);
    r.w(&[2, 1, 2, 0]);
    assert_eq!((r.r().full_merges, r.copies()), (1, 3));
    r.check_reads();

    // block: an overwrite at offset 1 copy-merges: 3 pages moved + the new page.
    let mut r = Run::new(tiny("block", None));
    r.w(&[0, 1, 2, 3]);
    r.w(&[1]);
    assert_eq!((r.r().full_merges, r.copies(), r.f.nand().counters.programs), (1, 3, 8));
    r.check_reads();

    // FAST with 2 log blocks (1 SW, 1 RW): RW fills with LBN 0 and 1 pages, the next random
    // update reclaims it with a full merge of each LBN (4 pages each).
    let mut r = Run::new(tiny("fast", Some(2)));
    r.w(&[0, 1, 2, 3, 4, 5, 6, 7]);
    r.w(&[1, 5, 2, 6]);
    assert_eq!(r.r().full_merges, 0);
    r.w(&[3]);
    let h = r.r();
    assert_eq!(h.full_merges, 2);
    assert_eq!(r.copies(), 8);
    r.check_reads();
}

fn lcg(x: &mut u64) -> u64 {
    *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *x >> 33
}

#[test]
fn every_read_returns_the_last_write() {
    for (m, params) in [("block", ""), ("bast", ""), ("fast", ""), ("fast", "sequential_log = \"device\"")] {
        for striping in [Striping::Full, Striping::None] {
            let f = build_on(m, geo(2, 16, 4), 80, params, striping).unwrap();
            let mut r = Run::new(f);
            let mut x = 42;
            for _ in 0..3000 {
                let l = if lcg(&mut x).is_multiple_of(4) { lcg(&mut x) % 80 } else { lcg(&mut x) % 12 };
                match lcg(&mut x) % 10 {
                    0 => r.trim(l),
                    1..=3 => assert_eq!(r.f.read(Lpn(l), Nanos::ZERO).unwrap().tag, r.last[l as usize], "{m}"),
                    _ => {
                        r.w(&[l]);
                    }
                }
            }
            r.check_reads();
            let c = r.f.counters();
            assert_eq!(r.f.nand().counters.programs, c.host_writes + c.gc_copies, "{m}");
        }
    }
}

/// Same random update workload on BAST and FAST with the same log-block budget.
fn random_workload(m: &str) -> (HybridReport, u64) {
    let f = build_on(m, geo(1, 64, 8), 384, "log_blocks = 8", Striping::Full).unwrap();
    let mut r = Run::new(f);
    for l in 0..384 {
        r.w(&[l]);
    }
    let base = r.copies();
    let mut x = 7;
    for _ in 0..8000 {
        // 80% of updates on a 64-page hot set.
        let l = if lcg(&mut x) % 10 < 8 { lcg(&mut x) % 64 } else { lcg(&mut x) % 384 };
        r.tag += 1;
        r.f.write(Lpn(l), r.tag, Nanos::ZERO).unwrap();
        r.last[l as usize] = Some(r.tag);
    }
    r.f.validate().unwrap();
    r.check_reads();
    (r.r(), r.copies() - base)
}

#[test]
fn fast_merges_less_than_bast_on_random_updates() {
    let (b, bc) = random_workload("bast");
    let (f, fc) = random_workload("fast");
    eprintln!("bast: {b:?} copies {bc}\nfast: {f:?} copies {fc}");
    assert!(f.full_merges < b.full_merges && fc < bc, "FAST should merge less: bast {b:?} {bc}, fast {f:?} {fc}");
}

#[test]
fn configuration_errors_name_their_key() {
    let err = |m: &str, g: Geometry, logical: u64, params: &str, s: Striping| {
        build_on(m, g, logical, params, s).err().map(|e| e.to_string()).unwrap_or_default()
    };
    assert!(err("bast", geo(1, 8, 4), 16, "foo = 1", Striping::Full).contains("ftl.mapping_params.foo"));
    assert!(err("bast", geo(1, 8, 4), 16, "defrag = \"later\"", Striping::Full).contains("ftl.mapping_params.defrag"));
    assert!(err("block", geo(1, 8, 4), 16, "log_blocks = 1", Striping::Full).contains("ftl.mapping_params.log_blocks"));
    assert!(err("fast", geo(1, 8, 4), 16, "log_blocks = 6", Striping::Full).contains("ftl.mapping_params.log_blocks"));
    assert!(err("fast", geo(1, 8, 4), 16, "log_blocks = 1", Striping::Full).contains("ftl.mapping_params.log_blocks"));
    assert!(err("bast", geo(1, 8, 4), 30, "", Striping::Full).contains("device.over_provisioning"));
    assert!(err("bast", geo(2, 8, 4), 16, "", Striping::Dynamic).contains("ftl.striping"));
    let cfg = FtlConfig { mapping: "fast".into(), gc_unit: GcUnit::Line, ..FtlConfig::default() };
    let spec = FtlSpec {
        layout: Layout::new(geo(2, 8, 4), GcUnit::Line),
        logical_pages: 16,
        config: &cfg,
        verify: false,
        timing: None,
        seed: 1,
    };
    assert!(ftl::build(&spec).err().unwrap().to_string().contains("ftl.gc_unit"));
    // Log blocks reported device-wide; RAM = block map + log page maps.
    let f = build_on("bast", geo(2, 8, 4), 16, "log_blocks = 2", Striping::Full).unwrap();
    assert_eq!(f.hybrid_report().unwrap().log_blocks, 4);
    assert_eq!(f.table_bytes(), 4 * 4 + 4 * 4 * 4);
}

impl Run {
    fn defrag(&mut self, src: u64, tgt: u64, n: u64) {
        self.f.defrag_copy(Lpn(src), Lpn(tgt), n, Nanos::ZERO).unwrap();
        for i in 0..n {
            self.last[(tgt + i) as usize] = self.last[(src + i) as usize];
        }
        self.f.validate().unwrap();
    }
}

/// Eager `defrag_copy` on BAST (`defrag = "eager"`): a page moved into free space of its target block
/// goes in place by copy-back — no host write, no bus transfer, no erase; into an already
/// written offset it goes to the target's log block, again by copy-back. The FS-level source
/// stays valid (the FTL does not know the FS freed it) and every read returns the last data.
#[test]
fn bast_defrag_copy_places_pages_by_copy_back() {
    let mut r =
        Run::new(build_on("bast", geo(1, 8, 4), 16, "log_blocks = 2\ndefrag = \"eager\"", Striping::Full).unwrap());
    r.w(&[0, 1, 4, 5, 6]); // LBN 0 pages 0-1, LBN 1 pages 0-2
    let (programs, copybacks, reads, erases) = {
        let n = r.f.nand().counters;
        (n.programs, n.copybacks, n.reads, n.erases)
    };
    let host = r.f.counters().host_writes;
    r.defrag(4, 2, 2); // LBN 1's pages 0-1 into LBN 0's free offsets 2-3
    let n = r.f.nand().counters;
    assert_eq!((n.programs - programs, n.copybacks - copybacks, n.reads - reads, n.erases - erases), (2, 2, 0, 0));
    assert_eq!(r.f.counters().host_writes, host, "no host write");
    assert_eq!(r.r().write_data, 5 + 2, "placed in place in LBN 0's data block");
    r.check_reads();
    r.defrag(6, 0, 1); // offset 0 of LBN 0 is written: the copy goes to LBN 0's log block
    assert_eq!(r.r().update_pure, 1);
    assert_eq!(r.f.nand().counters.copybacks - copybacks, 3);
    r.check_reads();
    // The page FTL has no copy-back placement: the default copies through the host path.
    let mut p = Run::new(build_on("page", geo(1, 32, 4), 16, "", Striping::Full).unwrap());
    p.w(&[0, 1]);
    p.defrag(0, 5, 2);
    assert_eq!(p.f.counters().host_writes, 4, "the default path is a read and a write per page");
    p.check_reads();
}

fn nand_ops(f: &dyn Ftl) -> (u64, u64, u64) {
    let n = f.nand().counters;
    (n.programs, n.copybacks, n.erases)
}

/// Merge-time `defrag_copy` (the default, the defrag paper's idea): the copy is recorded and
/// costs nothing until the target's logical block is merged, where it is one copy-back and no
/// log page; reads of the target come from the source meanwhile. The same sequence with eager
/// copies costs two more copy-backs (the copies, then the merge moving them again).
#[test]
fn bast_defrag_copies_ride_the_targets_next_merge() {
    let run = |params: &str| {
        let mut r = Run::new(build_on("bast", geo(1, 8, 4), 16, params, Striping::Full).unwrap());
        r.w(&[0, 1, 4, 5, 6]); // LBN 0 offsets 0-1, LBN 1 offsets 0-2
        let before = nand_ops(r.f.as_ref());
        r.defrag(4, 2, 2); // LBN 1's offsets 0-1 into LBN 0's free offsets 2-3
        let copied = nand_ops(r.f.as_ref());
        r.check_reads();
        // LBN 0's offsets 0-1 updated (its log block), then LBNs 2 and 3 take the two log
        // blocks: LBN 0's log (offsets 0-1 in order) is partially merged.
        r.w(&[0, 1, 8, 8, 12, 12]);
        r.check_reads();
        (r.r(), before, copied, nand_ops(r.f.as_ref()))
    };
    let (m, before, copied, after) = run("log_blocks = 2");
    assert_eq!(copied, before, "merge mode: nothing programmed at the copy");
    assert_eq!((m.defrag_deferred, m.defrag_in_merge, m.defrag_forced, m.defrag_eager), (2, 2, 0, 0));
    assert_eq!(m.partial_merges, 1);
    // Host writes 0, 1, 8, 8, 12, 12 (6 programs) + the merge's 2 copy-backs of the moved pages.
    assert_eq!((after.0 - copied.0, after.1 - copied.1), (8, 2));
    let (e, _, _, eager_after) = run("log_blocks = 2\ndefrag = \"eager\"");
    assert_eq!((e.defrag_deferred, e.defrag_eager), (0, 2));
    assert_eq!(eager_after.1 - before.1, 4, "eager: 2 copy-backs at the copy, 2 more when the merge moves them");
    assert_eq!(after.1 - before.1, 2, "merge mode: one copy-back per page");
    assert_eq!(after.2, eager_after.2, "same erases");
}

/// A waiting copy is void when its target gets new data first, made eagerly when its source is
/// about to change, and a copy from a waiting target copies the target's own source.
#[test]
fn waiting_defrag_copies_follow_writes_trims_and_chains() {
    let mut r = Run::new(tiny("bast", Some(2)));
    r.w(&[0, 1, 4, 5, 6]);
    r.defrag(4, 2, 2);
    r.w(&[3]); // target rewritten: its copy is void
    assert_eq!((r.r().defrag_superseded, r.r().defrag_forced), (1, 0));
    r.check_reads();
    let eager = r.r().defrag_eager;
    r.w(&[4]); // source of the copy into 2 rewritten: that copy is made first
    assert_eq!((r.r().defrag_forced, r.r().defrag_eager - eager), (1, 1));
    r.check_reads();
    r.defrag(5, 10, 1); // into LBN 2 (never written)
    r.defrag(10, 11, 1); // from a waiting target: copies 5's data
    assert_eq!(r.r().defrag_deferred, 4);
    r.check_reads();
    r.trim(5); // the source of both: both copies made first, then 5 is trimmed
    assert_eq!(r.r().defrag_forced, 3);
    r.check_reads();
    r.defrag(7, 12, 1); // an unwritten source: the target is unmapped
    r.check_reads();
}

/// Random writes, trims and defragmentation copies (merge mode) on every log-block scheme:
/// invariants after every step, and every read returns the last data.
#[test]
fn random_defrag_copies_keep_every_scheme_consistent() {
    for m in ["block", "bast", "fast"] {
        let mut r = Run::new(build_on(m, geo(2, 12, 4), 32, "", Striping::Full).unwrap());
        let mut x = 11;
        for step in 0..4000 {
            let l = lcg(&mut x) % 32;
            match lcg(&mut x) % 10 {
                0 => r.trim(l),
                1..=3 => {
                    let n = 1 + lcg(&mut x) % 3;
                    let t = lcg(&mut x) % (33 - n);
                    let s = lcg(&mut x) % (33 - n);
                    if s + n <= t || t + n <= s {
                        r.defrag(s, t, n);
                    }
                }
                _ => {
                    r.w(&[l]);
                }
            }
            if step % 97 == 0 {
                r.check_reads();
            }
        }
        r.check_reads();
        let h = r.r();
        assert!(h.defrag_in_merge > 0 && h.defrag_forced > 0 && h.defrag_superseded > 0, "{m}: {h:?}");
    }
}

/// FAST's sequential log block per plane (ours) or one for the device (the original FAST): a
/// sequential stream striped over 4 planes restarts a logical block on every plane in turn, so
/// with one log for the device each start merges the log another plane just opened (partial
/// merges copying what the stream wrote in place before), where per-plane logs switch-merge.
#[test]
fn one_sequential_log_for_the_device_merges_on_every_plane_switch() {
    let run = |params: &str| {
        let f = build_on("fast", geo(4, 32, 4), 256, params, Striping::Full).unwrap();
        let mut r = Run::new(f);
        let all: Vec<u64> = (0..256).collect();
        r.w(&all).w(&all).w(&all);
        r.check_reads();
        (r.r(), r.copies())
    };
    let (per_plane, per_plane_copies) = run("log_blocks = 3");
    let (device, device_copies) = run("log_blocks = 3\nsequential_log = \"device\"");
    assert_eq!(per_plane, run("log_blocks = 3\nsequential_log = \"per-plane\"").0, "per-plane is the default");
    assert_eq!(per_plane.full_merges + per_plane.partial_merges, 0, "per plane: switches only: {per_plane:?}");
    assert_eq!(per_plane_copies, 0);
    assert!(device.partial_merges + device.full_merges > 0 && device_copies > 0, "device: {device:?}");
    assert_eq!(
        (device.write_data, device.update_pure, device.update_wasted),
        (per_plane.write_data, per_plane.update_pure, per_plane.update_wasted),
        "the same writes, classified alike"
    );
    let err = build_on("bast", geo(1, 8, 4), 16, "sequential_log = \"device\"", Striping::Full).err().unwrap();
    assert!(err.to_string().contains("ftl.mapping_params.sequential_log"), "{err}");
}
