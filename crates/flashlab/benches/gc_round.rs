//! A GC round: the host write that triggers one victim collection (greedy, block GC unit, classic
//! schedule: one victim per round) on a page-mapped FTL in steady state. Uniform random writes
//! run between rounds; only the writes during which the FTL's victim count grew are timed.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use flashlab::units::Nanos;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn gc_round(c: &mut Criterion) {
    let mut ftl = common::preconditioned_ftl();
    let lpns = common::random_lpns(1 << 16, 3);
    let mut i = 0;
    c.bench_function("gc_round/one_victim", |b| {
        b.iter_custom(|rounds| {
            let mut timed = Duration::ZERO;
            let mut done = 0;
            while done < rounds {
                let lpn = lpns[i & (lpns.len() - 1)];
                i += 1;
                let before = ftl.counters().gc_victims;
                let t = Instant::now();
                black_box(ftl.write(black_box(lpn), 0, Nanos::ZERO).expect("host write"));
                let spent = t.elapsed();
                let victims = ftl.counters().gc_victims - before;
                if victims > 0 {
                    timed += spent / victims as u32;
                    done += victims;
                }
            }
            timed
        })
    });
}

criterion_group!(benches, gc_round);
criterion_main!(benches);
