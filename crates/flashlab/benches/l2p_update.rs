//! L2P update: one host page write to a page-mapped FTL in steady state (uniform random pages on
//! a preconditioned 128 MiB device; the GC it triggers is included, amortized).

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flashlab::units::Nanos;
use std::hint::black_box;

fn l2p_update(c: &mut Criterion) {
    let mut ftl = common::preconditioned_ftl();
    let lpns = common::random_lpns(1 << 16, 2);
    let mut i = 0;
    let mut g = c.benchmark_group("l2p_update");
    g.throughput(Throughput::Elements(1));
    g.bench_function("page_ftl_host_write", |b| {
        b.iter(|| {
            let lpn = lpns[i & (lpns.len() - 1)];
            i += 1;
            black_box(ftl.write(black_box(lpn), 0, Nanos::ZERO).expect("host write"))
        })
    });
    g.finish();
}

criterion_group!(benches, l2p_update);
criterion_main!(benches);
