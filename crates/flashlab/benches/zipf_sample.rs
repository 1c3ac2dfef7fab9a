//! The zipf sampler's cost per draw: `FioZipf::rank` (no `powf` for the usual θ) beside
//! `FioZipf::rank_powf` (fio's formula as written), which it equals bit for bit.
//!
//! `cargo bench -p flashlab --bench zipf_sample`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use flashlab::workload::gen::zipf::FioZipf;

/// Draws per iteration: a fixed set of 32-bit numbers from a xorshift, the same for both.
const DRAWS: usize = 4096;

fn draws() -> Vec<u32> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..DRAWS)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u32
        })
        .collect()
}

fn zipf_rank(c: &mut Criterion) {
    let rands = draws();
    // θ = 0.9 over 2^21 slots is bench-accounting's sampler; 1.1 is fio's default θ; 0.7 has
    // no multiplication plan and keeps powf.
    for theta in [0.9, 1.1, 0.7] {
        let z = FioZipf::new(1 << 21, theta, 0);
        let mut group = c.benchmark_group(format!("zipf theta {theta} n 2^21"));
        group.throughput(Throughput::Elements(DRAWS as u64));
        group.bench_function("rank", |b| b.iter(|| rands.iter().map(|&r| z.rank(black_box(r))).sum::<u64>()));
        group.bench_function("rank_powf", |b| b.iter(|| rands.iter().map(|&r| z.rank_powf(black_box(r))).sum::<u64>()));
        group.finish();
    }
}

criterion_group!(benches, zipf_rank);
criterion_main!(benches);
