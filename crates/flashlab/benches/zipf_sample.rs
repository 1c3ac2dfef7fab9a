//! The zipf sampler: one `FioZipf::sample` (fio's zipf, θ 0.9, over 2 M items: bench-accounting's
//! 8 GiB of 4 KiB pages).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flashlab::workload::gen::stream::GenRng;
use flashlab::workload::gen::zipf::FioZipf;
use rand::SeedableRng;
use std::hint::black_box;

fn zipf_sample(c: &mut Criterion) {
    let z = FioZipf::new(2 << 20, 0.9, 0);
    let mut rng = GenRng::seed_from_u64(1);
    let mut g = c.benchmark_group("zipf_sample");
    g.throughput(Throughput::Elements(1));
    g.bench_function("fio_zipf_0.9_2M", |b| b.iter(|| black_box(z.sample(&mut rng))));
    g.finish();
}

criterion_group!(benches, zipf_sample);
criterion_main!(benches);
