//! Write buffers: eviction order on hand-built sequences, hit accounting, write-back reaching
//! the FTL (so WAF and erases respond to the buffer).

use flashlab::buffer::{self, BufferConfig};
use flashlab::device::Device;
use flashlab::ftl::{self, FtlConfig, FtlSpec};
use flashlab::nand::{GcUnit, Geometry, Layout};
use flashlab::units::{ByteSize, Lpn, Nanos};

/// A 4-page buffer in front of a small page-mapped FTL, verify and check modes on.
fn device(policy: &str) -> Device {
    let geo = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 32,
        pages_per_block: 8,
        page_size: 4096,
    };
    let cfg = FtlConfig::default();
    let spec = FtlSpec {
        layout: Layout::new(geo, GcUnit::Block),
        logical_pages: 128,
        config: &cfg,
        verify: true,
        timing: None,
        seed: 1,
    };
    let b = buffer::build(
        &BufferConfig::dram(policy, if policy == "none" { 0 } else { 4 * 4096 }),
        &buffer::BufferContext { page_size: 4096, pages_per_block: 8, timing: None },
    )
    .unwrap();
    Device::new(b, ftl::build(&spec).unwrap(), 4096, true, true)
}

/// Pages written down to the FTL so far.
fn flushed(d: &Device) -> u64 {
    d.ftl.counters().host_writes
}

#[test]
fn lru_evicts_the_least_recently_used_page_and_writes_it_back() {
    let mut d = device("lru");
    for lpn in [1, 2, 3, 4] {
        d.write(Lpn(lpn), Nanos::ZERO).unwrap();
    }
    assert_eq!(flushed(&d), 0, "four pages fit in the buffer");
    d.read(Lpn(1), Nanos::ZERO).unwrap(); // 1 becomes most recent: order 2, 3, 4, 1
    d.write(Lpn(5), Nanos::ZERO).unwrap(); // evicts 2
    assert_eq!(flushed(&d), 1);
    d.write(Lpn(2), Nanos::ZERO).unwrap(); // miss (2 was evicted): evicts 3
    assert_eq!(flushed(&d), 2);
    d.write(Lpn(1), Nanos::ZERO).unwrap(); // hit
    assert_eq!(flushed(&d), 2);
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.write_hits, c.write_accesses, c.read_hits, c.read_accesses), (1, 7, 1, 1));
    d.flush(Nanos::ZERO).unwrap();
    assert_eq!(flushed(&d), 2 + 4, "flush writes the four dirty pages down");
    d.verify_all().unwrap();
}

#[test]
fn clock_gives_referenced_pages_a_second_chance() {
    let mut d = device("clock");
    for lpn in [1, 2, 3, 4] {
        d.write(Lpn(lpn), Nanos::ZERO).unwrap();
    }
    d.write(Lpn(1), Nanos::ZERO).unwrap(); // hit: 1 referenced
    d.write(Lpn(5), Nanos::ZERO).unwrap(); // hand: 1 referenced → cleared, 2 evicted
    assert_eq!(flushed(&d), 1);
    d.read(Lpn(2), Nanos::ZERO).unwrap(); // miss: 2 comes back from flash (clean); evicts 3
    assert_eq!(flushed(&d), 2);
    d.write(Lpn(6), Nanos::ZERO).unwrap(); // hand at 4: not referenced → evicted
    assert_eq!(flushed(&d), 3);
    let (hits, accesses) = d.buffer.hits();
    assert_eq!((hits, accesses), (1, 8));
    d.verify_all().unwrap();
}

#[test]
fn a_buffer_absorbs_rewrites_so_flash_sees_fewer_writes() {
    let run = |policy: &str| {
        let mut d = device(policy);
        for i in 0..4000u64 {
            d.write(Lpn(i % 3 * 7 + (i / 997) % 3), Nanos::ZERO).unwrap(); // a 3-page hot set, drifting (fits in 4 pages)
        }
        d.flush(Nanos::ZERO).unwrap();
        d.ftl.nand().counters.programs
    };
    let (none, lru, clock) = (run("none"), run("lru"), run("clock"));
    assert!(lru < none / 10 && clock < none / 10, "programs: none {none}, lru {lru}, clock {clock}");
}

/// A cyclic pattern one page larger than the buffer defeats LRU completely (every access misses).
#[test]
fn lru_thrashes_on_a_loop_one_page_too_large() {
    let mut d = device("lru");
    for i in 0..100u64 {
        d.write(Lpn(i % 5), Nanos::ZERO).unwrap();
    }
    assert_eq!(d.buffer.hits(), (0, 100));
}

#[test]
fn buffers_need_a_dram_size() {
    let err = buffer::build(
        &BufferConfig::dram("lru", 0),
        &buffer::BufferContext { page_size: 4096, pages_per_block: 8, timing: None },
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("buffer.dram"), "{err}");
}

/// FAB (8 pages per block here): the block with the most buffered pages leaves, all its pages
/// at once; among equally large blocks the least recently used one.
#[test]
fn fab_evicts_the_largest_block_group_lru_among_ties() {
    let mut d = device("fab");
    for lpn in [0, 1, 8, 16] {
        d.write(Lpn(lpn), Nanos::ZERO).unwrap(); // block 0: 2 pages, block 1: 1, block 2: 1
    }
    d.write(Lpn(17), Nanos::ZERO).unwrap(); // full: block 0 (largest) leaves, 2 pages written down
    assert_eq!(flushed(&d), 2);
    assert!(d.buffer.counters().unwrap().flushed_pages == 2);
    d.write(Lpn(24), Nanos::ZERO).unwrap(); // room: 8, 16, 17, 24
    assert_eq!(flushed(&d), 2);
    d.write(Lpn(25), Nanos::ZERO).unwrap(); // full: block 2 {16, 17} is the largest
    assert_eq!(flushed(&d), 4);
    d.write(Lpn(8), Nanos::ZERO).unwrap(); // hit: block 1 becomes most recent; buffer 8, 24, 25
    d.write(Lpn(26), Nanos::ZERO).unwrap(); // room: 8, 24, 25, 26
    d.write(Lpn(9), Nanos::ZERO).unwrap(); // full: block 3 {24, 25, 26} (3 pages) beats block 1 {8}
    assert_eq!(flushed(&d), 7);
    d.write(Lpn(32), Nanos::ZERO).unwrap(); // room: 8, 9, 32
    d.write(Lpn(40), Nanos::ZERO).unwrap(); // 8, 9, 32, 40
    d.read(Lpn(32), Nanos::ZERO).unwrap(); // hit: block 4 recent
    d.write(Lpn(48), Nanos::ZERO).unwrap(); // full: block 1 {8, 9} largest
    assert_eq!(flushed(&d), 9);
    d.write(Lpn(56), Nanos::ZERO).unwrap(); // 32, 40, 48, 56 → full
    d.write(Lpn(64), Nanos::ZERO).unwrap(); // all groups of one page: LRU among them is block 5 (40)
    assert_eq!(flushed(&d), 10);
    d.read(Lpn(40), Nanos::ZERO).unwrap(); // 40 was written down: a miss served from flash
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.read_hits, c.read_accesses), (1, 2));
    d.verify_all().unwrap();
}

/// A buffer of `dram` DRAM pages and `nvram` NVRAM pages (0: none) in front of a small
/// page-mapped FTL with `ppb` pages per block, verify and check modes on.
fn device_with(policy: &str, dram: u64, nvram: u64, ppb: u32, tweak: impl FnOnce(&mut BufferConfig)) -> Device {
    device_in_mode(policy, dram, nvram, ppb, true, tweak)
}

/// [`device_with`], with verify (version tags kept on flash, reads checked) on or off.
fn device_in_mode(
    policy: &str,
    dram: u64,
    nvram: u64,
    ppb: u32,
    verify: bool,
    tweak: impl FnOnce(&mut BufferConfig),
) -> Device {
    let geo = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 256 / ppb,
        pages_per_block: ppb,
        page_size: 4096,
    };
    let cfg = FtlConfig::default();
    let spec = FtlSpec {
        layout: Layout::new(geo, GcUnit::Block),
        logical_pages: 128,
        config: &cfg,
        verify,
        timing: None,
        seed: 1,
    };
    let held = policy != "none";
    let mut bc = BufferConfig::dram(policy, if held { dram * 4096 } else { 0 });
    bc.nvram = ByteSize(if held { nvram * 4096 } else { 0 });
    tweak(&mut bc);
    let b = buffer::build(&bc, &buffer::BufferContext { page_size: 4096, pages_per_block: ppb as u64, timing: None })
        .unwrap();
    Device::new(b, ftl::build(&spec).unwrap(), 4096, verify, true)
}

fn writes(d: &mut Device, lpns: &[u64]) {
    for &l in lpns {
        d.write(Lpn(l), Nanos::ZERO).unwrap();
    }
}

/// The pages a crash would lose (dirty in DRAM) and keep (in NVRAM).
fn image(d: &mut Device) -> (Vec<u64>, Vec<u64>) {
    let i = d.buffer.crash();
    (i.lost.iter().map(|&(lpn, _)| lpn.0).collect(), i.kept.iter().map(|&(lpn, _)| lpn.0).collect())
}

/// DWB paper, Fig. 4 (D-CLOCK, 6 DRAM pages): pages 5, 6, 7 were read, 4, 13, 15 written; the
/// hand is at 5. Writing 10: 5 is referenced (cleared), 4 is not and is dirty, so it migrates to
/// NVRAM and 10 takes its place. Read misses then enter with the bit set and are passed over.
#[test]
fn dwb_d_clock_walks_through_fig_4() {
    let mut d = device_with("dwb", 6, 8, 4, |_| {});
    // Clockwise from the hand: 5(R) 4(W) 6(R) 13(W) 7(R) 15(W).
    d.read(Lpn(5), Nanos::ZERO).unwrap();
    d.write(Lpn(4), Nanos::ZERO).unwrap();
    d.read(Lpn(6), Nanos::ZERO).unwrap();
    d.write(Lpn(13), Nanos::ZERO).unwrap();
    d.read(Lpn(7), Nanos::ZERO).unwrap();
    d.write(Lpn(15), Nanos::ZERO).unwrap();
    assert_eq!(image(&mut d), (vec![4, 13, 15], vec![]));
    d.write(Lpn(10), Nanos::ZERO).unwrap(); // (b)-(c): 5 cleared, 4 migrates, 10 in its slot
    assert_eq!(image(&mut d), (vec![10, 13, 15], vec![4]));
    d.read(Lpn(20), Nanos::ZERO).unwrap(); // (d)-(e): 6 cleared, 13 migrates, 20 enters referenced
    assert_eq!(image(&mut d), (vec![10, 15], vec![4, 13]));
    d.read(Lpn(21), Nanos::ZERO).unwrap(); // 7 cleared, 15 migrates
    assert_eq!(image(&mut d), (vec![10], vec![4, 13, 15]));
    d.read(Lpn(22), Nanos::ZERO).unwrap(); // 5 (cleared on the first sweep) is clean: dropped, nothing migrates
    assert_eq!(image(&mut d), (vec![10], vec![4, 13, 15]));
    d.read(Lpn(5), Nanos::ZERO).unwrap(); // 5 was dropped: a miss; the hand is on 10 (dirty): it migrates
    assert_eq!(image(&mut d), (vec![], vec![4, 10, 13, 15]));
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.migrated_pages, c.flushed_pages, c.read_hits), (4, 0, 0));
    assert_eq!(flushed(&d), 0, "nothing reached flash yet");
    d.flush(Nanos::ZERO).unwrap();
    d.verify_all().unwrap();
}

/// Fill DWB (6 DRAM, 8 NVRAM pages, 4 pages per block) so that NVRAM holds blocks 0 {0, 1},
/// 2 {8, 9, 11}, 1 {4, 5} and 3 {12} (arrival order on the NV-CLOCK ring, all by migration) and
/// DRAM holds 15, 10, 16, 20, 24, 28 (all written), the D-CLOCK hand on 15.
fn dwb_fig5_state() -> Device {
    let mut d = device_with("dwb", 6, 8, 4, |_| {});
    // Writes are never referenced, so D-CLOCK migrates them in slot order.
    writes(&mut d, &[0, 8, 9, 11, 4, 5]);
    writes(&mut d, &[1, 12, 15, 10, 16, 20, 24, 28]);
    assert_eq!(image(&mut d), (vec![10, 15, 16, 20, 24, 28], vec![0, 1, 4, 5, 8, 9, 11, 12]));
    d
}

/// DWB paper, Fig. 5: DRAM and NVRAM full. D-CLOCK picks 15 (dirty): it migrates. NV-CLOCK
/// picks block 2 (no block referenced; block 2 has the most pages, beating block 0 where the
/// hand stands); the DRAM page 10 of block 2 is dirty, so it goes down with the block and stays
/// in DRAM clean, referenced like a read page.
#[test]
fn dwb_nv_clock_walks_through_fig_5() {
    let mut d = dwb_fig5_state();
    d.write(Lpn(30), Nanos::ZERO).unwrap();
    assert_eq!(flushed(&d), 4, "block 2's three pages and DRAM page 10");
    assert_eq!(d.buffer.flush_batches(), vec![(4, 1)]);
    let (lost, kept) = image(&mut d);
    assert_eq!(kept, vec![0, 1, 4, 5, 12, 15]);
    assert_eq!(lost, vec![16, 20, 24, 28, 30], "10 is clean now");
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.merged_dirty_pages, c.migrated_pages), (1, 9));
    // 10 is referenced like a read page: the next DRAM victim passes over it and takes 16.
    d.write(Lpn(31), Nanos::ZERO).unwrap();
    assert_eq!(image(&mut d).1, vec![0, 1, 4, 5, 12, 15, 16]);
    d.read(Lpn(10), Nanos::ZERO).unwrap();
    assert_eq!(d.buffer.counters().unwrap().read_hits, 1, "10 is still in DRAM");
    d.flush(Nanos::ZERO).unwrap();
    d.verify_all().unwrap();
}

/// NV-CLOCK's recency comes first: with block 2 referenced (a read hit on 9), the hand clears
/// it and the victim comes from the unreferenced blocks: blocks 0 and 1 (two pages each) tie
/// and the hand stands on block 0.
#[test]
fn dwb_nv_clock_spares_a_referenced_block() {
    let mut d = dwb_fig5_state();
    d.read(Lpn(9), Nanos::ZERO).unwrap(); // NVRAM hit: block 2 referenced
    d.write(Lpn(30), Nanos::ZERO).unwrap();
    assert_eq!(flushed(&d), 2, "block 0's two pages; no DRAM page of block 0");
    assert_eq!(image(&mut d).1, vec![4, 5, 8, 9, 11, 12, 15]);
}

/// LB-CLOCK (6 pages, 4 per block): every block was written, so the hand clears them all and
/// stops on block 0 (1 page); the victim is the unreferenced block with the most pages, block 1.
#[test]
fn lb_clock_prefers_the_fullest_unreferenced_block() {
    let mut d = device_with("lb-clock", 6, 0, 4, |_| {});
    writes(&mut d, &[0, 4, 5, 6, 8, 12]);
    d.write(Lpn(16), Nanos::ZERO).unwrap();
    assert_eq!(flushed(&d), 3, "block 1 {{4, 5, 6}} went down");
    d.read(Lpn(4), Nanos::ZERO).unwrap(); // a write cache: the read miss does not enter
    assert_eq!(d.buffer.counters().unwrap().read_hits, 0);
    writes(&mut d, &[1, 20]); // block 0 referenced again, now 2 pages; buffer full
    d.write(Lpn(24), Nanos::ZERO).unwrap(); // hand on block 0: cleared; unreferenced: 0 {0,1}, 2 {8}, 3 {12}
    assert_eq!(flushed(&d), 5, "block 0 {{0, 1}} went down");
    d.flush(Nanos::ZERO).unwrap();
    d.verify_all().unwrap();
}

/// BPLRU (6 pages, 4 per block): the least recently written block leaves whole, padded with
/// its missing pages from flash; a block written in full, in order, goes to the LRU end.
#[test]
fn bplru_pads_victim_blocks_and_compensates_sequential_ones() {
    let mut d = device_with("bplru", 6, 0, 4, |_| {});
    d.write_through(Lpn(6), Nanos::ZERO).unwrap();
    d.write_through(Lpn(7), Nanos::ZERO).unwrap(); // on flash, not buffered
    writes(&mut d, &[0, 4, 5, 8, 9, 1]); // LRU order: block 1, block 2, block 0
    let before = flushed(&d);
    d.write(Lpn(12), Nanos::ZERO).unwrap(); // block 1 leaves: 4, 5 + padding 6, 7 read from flash
    assert_eq!(flushed(&d) - before, 4);
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.padded_pages, c.flushed_pages), (2, 4));
    assert_eq!(d.buffer.flush_batches(), vec![(4, 1)]);
    writes(&mut d, &[13]); // full: 0, 1, 8, 9, 12, 13
    d.write(Lpn(14), Nanos::ZERO).unwrap(); // block 2 leaves (no flash pages to pad with)
    assert_eq!(flushed(&d) - before, 6);
    d.write(Lpn(15), Nanos::ZERO).unwrap(); // block 3 complete and in order: LRU end
    d.write(Lpn(20), Nanos::ZERO).unwrap(); // block 3 leaves before block 0
    assert_eq!(flushed(&d) - before, 10);
    assert_eq!(image(&mut d).0, vec![0, 1, 20]);
    // Without padding the victim goes alone.
    let mut d = device_with("bplru", 6, 0, 4, |b| b.set_param("padding", false));
    d.write_through(Lpn(6), Nanos::ZERO).unwrap();
    writes(&mut d, &[0, 4, 5, 8, 9, 1, 12]);
    assert_eq!(d.buffer.counters().unwrap().padded_pages, 0);
    d.verify_all().unwrap();
}

/// CBM (4 DRAM, 6 NVRAM pages, 4 per block, threshold 2): reads fill the DRAM read cache;
/// writes go to NVRAM's Page Region until a block has two pages, then to the Block Region,
/// whose least recent block is the victim, written down with its block's clean DRAM pages.
#[test]
fn cbm_evicts_block_region_lru_and_merges_clean_read_pages() {
    let mut d = device_with("cbm", 4, 6, 4, |b| b.set_param("block_threshold", 2i64));
    d.write_through(Lpn(0), Nanos::ZERO).unwrap();
    d.write_through(Lpn(1), Nanos::ZERO).unwrap();
    d.read(Lpn(0), Nanos::ZERO).unwrap();
    d.read(Lpn(1), Nanos::ZERO).unwrap(); // DRAM: 0, 1 (clean)
    writes(&mut d, &[5, 9, 4]); // block 1 {4, 5} reaches the threshold: Block Region
    d.write(Lpn(1), Nanos::ZERO).unwrap(); // a write hit on a DRAM page moves it to NVRAM
    assert_eq!(image(&mut d), (vec![], vec![1, 4, 5, 9]), "CBM never holds dirty pages in DRAM");
    writes(&mut d, &[13, 14]); // block 3 joins the Block Region; NVRAM full
    let base = flushed(&d);
    d.write(Lpn(20), Nanos::ZERO).unwrap(); // victim: block 1 (least recent in the Block Region)
    assert_eq!(flushed(&d) - base, 2);
    writes(&mut d, &[2]); // block 0 {1, 2}: Block Region; NVRAM full
    d.write(Lpn(21), Nanos::ZERO).unwrap(); // victim: block 3
    assert_eq!(flushed(&d) - base, 4);
    writes(&mut d, &[30]); // NVRAM: 9, 1, 2, 20, 21, 30
    d.write(Lpn(31), Nanos::ZERO).unwrap(); // victim: block 0 {1, 2}, merged with DRAM's clean page 0
    assert_eq!(flushed(&d) - base, 7);
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.merged_clean_pages, c.write_hits, c.read_hits), (1, 1, 0));
    d.flush(Nanos::ZERO).unwrap();
    d.verify_all().unwrap();
}

/// The same clean merge without verify (no version tags on flash): a clean DRAM page read from
/// a written page still goes down with its block; one read from a never-written page does not.
#[test]
fn cbm_merges_clean_pages_in_accounting_mode() {
    for verify in [false, true] {
        let mut d = device_in_mode("cbm", 4, 6, 4, verify, |b| b.set_param("block_threshold", 2i64));
        d.write_through(Lpn(0), Nanos::ZERO).unwrap();
        d.read(Lpn(0), Nanos::ZERO).unwrap(); // DRAM: 0 (clean, on flash)
        d.read(Lpn(3), Nanos::ZERO).unwrap(); // DRAM: 3 (never written: nothing to merge)
        writes(&mut d, &[1, 2]); // block 0 {1, 2}: Block Region
        writes(&mut d, &[5, 6, 9, 10]); // NVRAM full
        let base = flushed(&d);
        d.write(Lpn(13), Nanos::ZERO).unwrap(); // victim: block 0 {1, 2}, merged with DRAM's page 0, not 3
        assert_eq!(flushed(&d) - base, 3, "verify {verify}");
        assert_eq!(d.buffer.counters().unwrap().merged_clean_pages, 1, "verify {verify}");
    }
}

/// With the Block Region empty, CBM evicts the block of the least recently used Page Region page.
#[test]
fn cbm_falls_back_to_the_page_region() {
    let mut d = device_with("cbm", 2, 3, 4, |b| b.set_param("block_threshold", 4i64));
    writes(&mut d, &[0, 4, 1]);
    d.write(Lpn(8), Nanos::ZERO).unwrap(); // LRU page is 0: block 0 {0, 1} goes down
    assert_eq!(flushed(&d), 2);
    assert_eq!(image(&mut d).1, vec![4, 8]);
}

/// A crash loses exactly the acknowledged writes held dirty in DRAM, for every policy; NVRAM
/// and flash hold every other last write (Device::crash checks each page and panics if not).
#[test]
fn crash_loses_exactly_the_dram_only_dirty_pages() {
    // Every policy with its defaults, and FAB's two options.
    let fab_options: [fn(&mut BufferConfig); 2] =
        [|b| b.set_param("read_cache", false), |b| b.set_param("write_clean", true)];
    let variants = buffer::names().into_iter().map(|p| (p, None)).chain(fab_options.map(|o| ("fab", Some(o))));
    for (policy, option) in variants {
        let (dram, nvram) = if policy == "cbm" || policy == "dwb" { (8, 8) } else { (12, 0) };
        let mut d = device_with(policy, dram, nvram, 4, |b| option.into_iter().for_each(|o| o(b)));
        let mut x = 7u64;
        for i in 0..400u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let lpn = (x >> 33) % 40;
            if i % 3 == 0 {
                d.read(Lpn(lpn), Nanos::ZERO).unwrap();
            } else {
                d.write(Lpn(lpn), Nanos::ZERO).unwrap();
            }
        }
        let exposed = d.buffer.exposed();
        let (lost, kept) = image(&mut d);
        assert_eq!(lost.len() as u64, exposed, "{policy}: exposure counts the pages a crash loses");
        let report = d.crash(Nanos::ZERO).unwrap();
        assert_eq!(report.lost, lost, "{policy}");
        assert_eq!(report.nvram_pages, kept.len() as u64);
        match policy {
            "none" => assert!(lost.is_empty()),
            "cbm" => assert!(lost.is_empty() && !kept.is_empty(), "CBM keeps writes in NVRAM only"),
            "dwb" => {
                assert!(!lost.is_empty() && !kept.is_empty(), "DWB: recent writes in DRAM, migrated ones in NVRAM")
            }
            _ => assert!(!lost.is_empty() && kept.is_empty(), "{policy}: all in DRAM"),
        }
        // The same buffer in NVRAM loses nothing.
        if nvram == 0 && policy != "none" {
            let mut d = device_with(policy, 0, 12, 4, |_| {});
            writes(&mut d, &[1, 2, 3, 9, 1]);
            assert_eq!(d.crash(Nanos::ZERO).unwrap().lost, Vec::<u64>::new(), "{policy} in NVRAM");
        }
    }
}

/// Options that mean nothing for the chosen policy are errors naming the key, as are sizes that
/// are not whole pages.
#[test]
fn buffer_options_apply_only_where_they_mean_something() {
    let ctx = buffer::BufferContext { page_size: 4096, pages_per_block: 8, timing: None };
    let err = |bc: BufferConfig| buffer::build(&bc, &ctx).err().expect("an error").to_string();
    assert!(err(BufferConfig::dram("none", 4096)).contains("buffer.dram"));
    assert!(err(BufferConfig::dram("lru", 4096).param("padding", false)).contains("buffer.params.padding"));
    assert!(
        err(BufferConfig::dram("dwb", 4096).param("block_threshold", 2i64)).contains("buffer.params.block_threshold")
    );
    assert!(err(BufferConfig::dram("lru", 4097)).contains("whole number of 4096-byte pages"));
    assert!(err(BufferConfig { nvram: ByteSize(4096), ..BufferConfig::dram("lru", 4096) }).contains("not both"));
    assert!(err(BufferConfig::dram("dwb", 4096)).contains("buffer.nvram"));
    assert!(err(
        BufferConfig { nvram: ByteSize(4096), ..BufferConfig::dram("cbm", 4096) }.param("block_threshold", 9i64)
    )
    .contains("1..=8"));
    assert!(buffer::build(&BufferConfig::dram("bplru", 4096).param("padding", false), &ctx).is_ok());
    assert!(err(BufferConfig::dram("lru", 4096).param("read_cache", false)).contains("buffer.params.read_cache"));
    assert!(err(BufferConfig::dram("dwb", 4096).param("write_clean", true)).contains("buffer.params.write_clean"));
    let both = BufferConfig::dram("fab", 4096).param("read_cache", false).param("write_clean", true);
    assert!(err(both).contains("buffer.params.write_clean"));
}

/// FAB's two readings as the DWB paper's baseline: without a read cache a re-read misses;
/// writing clean pages back sends a victim block's read pages down with its dirty ones.
#[test]
fn fab_options_drop_the_read_cache_or_write_clean_pages_back() {
    let run = |tweak: fn(&mut BufferConfig)| {
        let mut d = device_with("fab", 4, 0, 8, tweak);
        d.write_through(Lpn(1), Nanos::ZERO).unwrap();
        d.write_through(Lpn(2), Nanos::ZERO).unwrap();
        d.read(Lpn(1), Nanos::ZERO).unwrap();
        d.read(Lpn(2), Nanos::ZERO).unwrap(); // block 0: 1, 2 read (clean) unless reads are not cached
        d.write(Lpn(0), Nanos::ZERO).unwrap(); // block 0: 0 dirty
        d.read(Lpn(1), Nanos::ZERO).unwrap(); // a hit when reads are cached
        writes(&mut d, &[8]);
        d.write(Lpn(16), Nanos::ZERO).unwrap(); // full when reads are cached: block 0 (largest) leaves
        let (c, f) = (d.buffer.counters().unwrap(), flushed(&d));
        d.verify_all().unwrap();
        (c.read_hits, c.merged_clean_pages, c.flushed_pages, f)
    };
    // Flash writes count the two written through first.
    assert_eq!(run(|_| {}), (1, 0, 1, 3), "default: clean pages dropped, the dirty page written");
    assert_eq!(run(|b| b.set_param("write_clean", true)), (1, 2, 3, 5), "clean 1, 2 written with 0");
    assert_eq!(run(|b| b.set_param("read_cache", false)), (0, 0, 0, 2), "reads bypass: 0, 8, 16 fit");
}

/// `host.out_of_range = "compact"` maps trace blocks to device blocks in first-touch order:
/// every page stays distinct and every block's pages stay together, so each buffer sees exactly
/// what it sees on a device large enough for the raw addresses; a trace that touches more
/// blocks than the device has is an error naming the option.
#[test]
fn compact_addresses_change_nothing_a_buffer_sees() {
    use flashlab::{config::Config, presets, sim};
    let preset = presets::find("dwb-64gb").unwrap();
    let run = |policy: &str, capacity: &str, blocks: u32, oor: &str, path: &str| {
        let mut sets: Vec<String> = vec![
            format!("device.logical_capacity=\"{capacity}\""),
            format!("device.blocks_per_plane={blocks}"),
            "precondition.fill=false".into(),
            "precondition.overwrite=0".into(),
            "sim.verify=true".into(),
            format!("host.out_of_range=\"{oor}\""),
            format!("workload.path=\"{path}\""),
            format!("buffer.policy=\"{policy}\""),
            "buffer.dram=\"8MiB\"".into(),
            "buffer.nvram=0".into(),
        ];
        if policy == "dwb" || policy == "cbm" {
            sets.push("buffer.nvram=\"1MiB\"".into());
        }
        sim::run(&Config::from_toml_str(preset.text, "test", &sets).unwrap(), &mut sim::Quiet)
    };
    // CloudPhysics' addresses reach 31 GiB; its touched blocks fit in 2 GiB.
    for policy in ["fab", "dwb", "cbm", "lb-clock"] {
        let raw = run(policy, "64GiB", 4384, "error", "builtin:cloudphysics").unwrap();
        let compact = run(policy, "2GiB", 137, "compact", "builtin:cloudphysics").unwrap();
        assert_eq!(raw.buffer.counters, compact.buffer.counters, "{policy}");
        assert_eq!(raw.buffer.flush_batches, compact.buffer.flush_batches, "{policy}");
        assert_eq!(raw.sim.verified_reads, compact.sim.verified_reads);
        let wrapped = run(policy, "2GiB", 137, "wrap", "builtin:cloudphysics").unwrap();
        assert_ne!(raw.buffer.counters, wrapped.buffer.counters, "{policy}: wrapping aliases distinct pages");
    }
    let err = run("lru", "2GiB", 137, "compact", "builtin:msnfs")
        .map(|_| ())
        .expect_err("MSN-FS touches 6 GiB of blocks")
        .to_string();
    assert!(err.contains("host.out_of_range") && err.contains("larger device"), "{err}");
}
