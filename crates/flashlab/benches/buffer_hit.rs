//! A buffer hit: one host page read served by an LRU write-back buffer (1,024 pages, all
//! resident) in front of a page-mapped FTL.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flashlab::buffer::{self, BufferConfig, BufferContext};
use flashlab::device::Device;
use flashlab::ftl::{self, FtlConfig, FtlSpec};
use flashlab::nand::{GcUnit, Layout};
use flashlab::units::{Lpn, Nanos};
use std::hint::black_box;

const PAGES: u64 = 1024;

fn buffer_hit(c: &mut Criterion) {
    let geo = common::geometry();
    let cfg = FtlConfig::default();
    let spec = FtlSpec {
        layout: Layout::new(geo, GcUnit::Block),
        logical_pages: common::logical_pages(),
        config: &cfg,
        verify: false,
        timing: None,
        seed: 1,
    };
    let ctx = BufferContext { page_size: 4096, pages_per_block: geo.pages_per_block as u64, timing: None };
    let buf = buffer::build(&BufferConfig::dram("lru", PAGES * 4096), &ctx).expect("an LRU buffer");
    let mut dev = Device::new(buf, ftl::build(&spec).expect("a small FTL"), 4096, false, false);
    for lpn in 0..PAGES {
        dev.write(Lpn(lpn), Nanos::ZERO).expect("write into the buffer");
    }
    let lpns = common::random_lpns(1 << 16, 4).into_iter().map(|l| Lpn(l.0 % PAGES)).collect::<Vec<_>>();
    let mut i = 0;
    let mut g = c.benchmark_group("buffer_hit");
    g.throughput(Throughput::Elements(1));
    g.bench_function("lru_read_hit", |b| {
        b.iter(|| {
            let lpn = lpns[i & (lpns.len() - 1)];
            i += 1;
            black_box(dev.read(black_box(lpn), Nanos::ZERO).expect("read hit"))
        })
    });
    g.finish();
    let c = dev.buffer.counters().expect("LRU counts hits");
    assert_eq!(c.read_hits, c.read_accesses, "every timed read was a hit");
}

criterion_group!(benches, buffer_hit);
criterion_main!(benches);
