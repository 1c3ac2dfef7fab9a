//! Shared set-up of the micro-benchmarks: a small page-mapped FTL in steady state.

#![allow(dead_code)] // each bench uses part of it

use flashlab::ftl::{self, Ftl, FtlConfig, FtlSpec};
use flashlab::nand::{GcUnit, Geometry, Layout};
use flashlab::units::{Lpn, Nanos};
use flashlab::workload::gen::stream::GenRng;
use rand::{RngExt, SeedableRng};

/// 8 planes x 64 blocks x 64 pages of 4 KiB (128 MiB physical), 87.5% of it logical.
pub fn geometry() -> Geometry {
    Geometry {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 64,
        pages_per_block: 64,
        page_size: 4096,
    }
}

pub fn logical_pages() -> u64 {
    geometry().total_pages_u64() * 7 / 8
}

/// A page-mapped FTL (greedy, block GC unit, accounting mode) filled sequentially and then
/// overwritten once at uniform random pages, so GC is in steady state.
pub fn preconditioned_ftl() -> Box<dyn Ftl> {
    let cfg = FtlConfig::default();
    let spec = FtlSpec {
        layout: Layout::new(geometry(), GcUnit::Block),
        logical_pages: logical_pages(),
        config: &cfg,
        verify: false,
        timing: None,
        seed: 1,
    };
    let mut f = ftl::build(&spec).expect("a valid small FTL");
    let n = logical_pages();
    for lpn in 0..n {
        f.write(Lpn(lpn), 0, Nanos::ZERO).expect("fill");
    }
    for lpn in random_lpns(n as usize, 1) {
        f.write(lpn, 0, Nanos::ZERO).expect("overwrite");
    }
    f
}

/// `count` uniform random logical pages (fixed seed).
pub fn random_lpns(count: usize, seed: u64) -> Vec<Lpn> {
    let n = logical_pages();
    let mut rng = GenRng::seed_from_u64(seed);
    (0..count).map(|_| Lpn(rng.random_range(0..n))).collect()
}
