//! Write buffers: eviction order on hand-built sequences, hit accounting, write-back reaching
//! the FTL (so WAF and erases respond to the buffer).

use flashlab::buffer::{self, BufferConfig};
use flashlab::device::Device;
use flashlab::ftl::{self, FtlConfig, FtlSpec};
use flashlab::nand::{GcUnit, Geometry, Layout};

/// A 4-page buffer in front of a small page-mapped FTL, verify and check modes on.
fn device(policy: &str) -> Device {
    let geo = Geometry { channels: 1, chips_per_channel: 1, dies_per_chip: 1, planes_per_die: 1, blocks_per_plane: 32, pages_per_block: 8, page_size: 4096 };
    let cfg = FtlConfig::default();
    let spec = FtlSpec { layout: Layout::new(geo, GcUnit::Block), logical_pages: 128, config: &cfg, verify: true, timing: None };
    let b = buffer::build(&BufferConfig::dram(policy, 4 * 4096), &buffer::BufferContext { page_size: 4096, pages_per_block: 8 }).unwrap();
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
        d.write(lpn, 0).unwrap();
    }
    assert_eq!(flushed(&d), 0, "four pages fit in the buffer");
    d.read(1, 0).unwrap(); // 1 becomes most recent: order 2, 3, 4, 1
    d.write(5, 0).unwrap(); // evicts 2
    assert_eq!(flushed(&d), 1);
    d.write(2, 0).unwrap(); // miss (2 was evicted): evicts 3
    assert_eq!(flushed(&d), 2);
    d.write(1, 0).unwrap(); // hit
    assert_eq!(flushed(&d), 2);
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.write_hits, c.write_accesses, c.read_hits, c.read_accesses), (1, 7, 1, 1));
    d.flush(0).unwrap();
    assert_eq!(flushed(&d), 2 + 4, "flush writes the four dirty pages down");
    d.verify_all().unwrap();
}

#[test]
fn clock_gives_referenced_pages_a_second_chance() {
    let mut d = device("clock");
    for lpn in [1, 2, 3, 4] {
        d.write(lpn, 0).unwrap();
    }
    d.write(1, 0).unwrap(); // hit: 1 referenced
    d.write(5, 0).unwrap(); // hand: 1 referenced → cleared, 2 evicted
    assert_eq!(flushed(&d), 1);
    d.read(2, 0).unwrap(); // miss: 2 comes back from flash (clean); evicts 3
    assert_eq!(flushed(&d), 2);
    d.write(6, 0).unwrap(); // hand at 4: not referenced → evicted
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
            d.write(i % 3 * 7 + (i / 997) % 3, 0).unwrap(); // a 3-page hot set, drifting (fits in 4 pages)
        }
        d.flush(0).unwrap();
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
        d.write(i % 5, 0).unwrap();
    }
    assert_eq!(d.buffer.hits(), (0, 100));
}

#[test]
fn buffers_need_a_dram_size() {
    let err = buffer::build(&BufferConfig::dram("lru", 0), &buffer::BufferContext { page_size: 4096, pages_per_block: 8 }).err().unwrap().to_string();
    assert!(err.contains("buffer.dram"), "{err}");
}

/// FAB (8 pages per block here): the block with the most buffered pages leaves, all its pages
/// at once; among equally large blocks the least recently used one.
#[test]
fn fab_evicts_the_largest_block_group_lru_among_ties() {
    let mut d = device("fab");
    for lpn in [0, 1, 8, 16] {
        d.write(lpn, 0).unwrap(); // block 0: 2 pages, block 1: 1, block 2: 1
    }
    d.write(17, 0).unwrap(); // full: block 0 (largest) leaves, 2 pages written down
    assert_eq!(flushed(&d), 2);
    assert!(d.buffer.counters().unwrap().flushed_pages == 2);
    d.write(24, 0).unwrap(); // room: 8, 16, 17, 24
    assert_eq!(flushed(&d), 2);
    d.write(25, 0).unwrap(); // full: block 2 {16, 17} is the largest
    assert_eq!(flushed(&d), 4);
    d.write(8, 0).unwrap(); // hit: block 1 becomes most recent; buffer 8, 24, 25
    d.write(26, 0).unwrap(); // room: 8, 24, 25, 26
    d.write(9, 0).unwrap(); // full: block 3 {24, 25, 26} (3 pages) beats block 1 {8}
    assert_eq!(flushed(&d), 7);
    d.write(32, 0).unwrap(); // room: 8, 9, 32
    d.write(40, 0).unwrap(); // 8, 9, 32, 40
    d.read(32, 0).unwrap(); // hit: block 4 recent
    d.write(48, 0).unwrap(); // full: block 1 {8, 9} largest
    assert_eq!(flushed(&d), 9);
    d.write(56, 0).unwrap(); // 32, 40, 48, 56 → full
    d.write(64, 0).unwrap(); // all groups of one page: LRU among them is block 5 (40)
    assert_eq!(flushed(&d), 10);
    d.read(40, 0).unwrap(); // 40 was written down: a miss served from flash
    let c = d.buffer.counters().unwrap();
    assert_eq!((c.read_hits, c.read_accesses), (1, 2));
    d.verify_all().unwrap();
}
