//! Conformance tests for the synthetic workload generators (`workload::gen`): the registry,
//! parameter errors, bounds and alignment of every request (property-based), the statistical
//! shape of each generator, determinism, and the zipf skew against real fio 3.33 logs in
//! `tests/data/fio/` (see its README.md).
//!
//! Statistical tolerances are 5 standard deviations of the sampling error at the sample count
//! used, so a correct generator fails with probability < 1e-6 per check, while the seeds are fixed
//! so every run is the same.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flashlab::workload::gen::{build, GENERATORS};
use flashlab::workload::{GenContext, Op, Request, Workload};
use proptest::prelude::*;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// Generators of one-page writes only, with their own default volume (`workload::gen::oltp`,
/// tested in `tests/oltp.rs`): they reject reads, trims and other request sizes.
const PAGE_WRITES_ONLY: &[&str] = &["tpcc-like", "linkbench-like"];

/// Generators that take every common key with any valid value.
fn general_generators() -> Vec<&'static str> {
    GENERATORS.iter().map(|g| g.name).filter(|name| !PAGE_WRITES_ONLY.contains(name)).collect()
}

fn ctx(capacity_bytes: u64) -> GenContext {
    GenContext { capacity_bytes, page_size: 4 * KIB, seed: 42, source: "generators-test.toml".into() }
}

fn table(text: &str) -> toml::Table {
    toml::from_str(text).unwrap_or_else(|e| panic!("test TOML `{text}` does not parse: {e}"))
}

fn make(kind: &str, text: &str, capacity_bytes: u64) -> Box<dyn Workload> {
    build(kind, table(text), &ctx(capacity_bytes)).unwrap_or_else(|e| panic!("{kind} with `{text}`: {e}"))
}

fn collect(mut workload: Box<dyn Workload>) -> Vec<Request> {
    let mut requests = Vec::new();
    while let Some(r) = workload.next_request().expect("generators never fail") {
        requests.push(r);
    }
    requests
}

fn generate(kind: &str, text: &str, capacity_bytes: u64) -> Vec<Request> {
    collect(make(kind, text, capacity_bytes))
}

fn error(kind: &str, text: &str) -> String {
    match build(kind, table(text), &ctx(64 * MIB)) {
        Ok(_) => panic!("{kind} with `{text}` should be rejected"),
        Err(e) => e.to_string(),
    }
}

/// `count` successes out of `n` is within 5 standard deviations of `p`.
fn assert_share(what: &str, count: usize, n: usize, p: f64) {
    let share = count as f64 / n as f64;
    let sd = (p * (1.0 - p) / n as f64).sqrt();
    assert!((share - p).abs() <= 5.0 * sd + 1e-12, "{what}: {share:.5} vs expected {p} (5σ = {:.5})", 5.0 * sd);
}

// ---------------------------------------------------------------------------------------------
// Registry and errors

#[test]
fn registry_names_are_unique_and_each_builds_with_defaults() {
    let names: BTreeSet<&str> = GENERATORS.iter().map(|g| g.name).collect();
    assert_eq!(names.len(), GENERATORS.len(), "duplicate generator names");
    for entry in GENERATORS {
        assert!(!entry.about.is_empty());
        // The page-write-only generators default to many times the footprint; ask for 1×.
        let text = if PAGE_WRITES_ONLY.contains(&entry.name) { "volume_ratio = 1" } else { "" };
        let mut workload = make(entry.name, text, 8 * MIB);
        assert_eq!(workload.progress(), Some((0, 8 * MIB)));
        let mut requests = Vec::new();
        while let Some(r) = workload.next_request().unwrap() {
            requests.push(r);
        }
        assert_eq!(requests.len() as u64, 8 * MIB / (4 * KIB), "{}: default volume is 1× footprint", entry.name);
        assert!(requests.iter().all(|r| r.op == Op::Write && r.len == 4 * KIB && r.time_ns == 0));
        assert!(requests.iter().all(|r| r.offset % (4 * KIB) == 0 && r.offset + r.len <= 8 * MIB));
        assert_eq!(workload.progress(), Some((8 * MIB, 8 * MIB)));
        assert_eq!(workload.next_request().unwrap(), None, "{}: stays finished", entry.name);
    }
}

#[test]
fn unknown_generator_lists_the_valid_names() {
    let e = error("zipff", "");
    assert!(e.contains("zipff"), "{e}");
    for entry in GENERATORS {
        assert!(e.contains(entry.name), "`{e}` does not list {}", entry.name);
    }
}

#[test]
fn unknown_keys_are_errors_naming_the_key() {
    for entry in GENERATORS {
        let e = error(entry.name, "read_shares = 0.5");
        assert!(e.contains("workload.read_shares") && e.contains("unknown key"), "{}: {e}", entry.name);
        assert!(e.contains("read_share"), "the message lists the valid keys: {e}");
    }
    let e = error("hotcold", "hot_spac = 0.1");
    assert!(e.contains("workload.hot_spac") && e.contains("hot_space"), "{e}");
    let e = error("uniform", "theta = 0.9");
    assert!(e.contains("workload.theta"), "a zipf key is unknown to uniform: {e}");
}

#[test]
fn bad_values_give_clear_errors() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("uniform", "read_share = 1.5", &["workload.read_share", "between 0.0 and 1.0"]),
        ("zipf", "theta = 1.0", &["workload.theta", "different from 1.0"]),
        ("zipf", "theta = 1", &["workload.theta", "different from 1.0"]),
        ("zipf", "theta = 0.0", &["workload.theta", "> 0"]),
        ("zipf", "theta = -0.9", &["workload.theta", "> 0"]),
        ("zipf", "theta = \"high\"", &["workload.theta", "expected a number"]),
        ("uniform", "request_size = \"6KiB\"", &["workload.request_size", "multiple of the alignment"]),
        ("uniform", "request_size = { \"4KiB\" = 0.5, \"6KiB\" = 0.5 }", &["workload.request_size", "6144"]),
        ("uniform", "align = \"8KiB\"", &["workload.request_size", "multiple of the alignment"]),
        ("sequential", "footprint = \"128MiB\"", &["workload.footprint", "exceeds the device capacity"]),
        ("sequential", "footprint = \"32MiB\"\nstart = \"48MiB\"", &["workload.footprint", "exceeds"]),
        ("uniform", "volume = \"1GiB\"\nrequests = 5", &["workload.requests", "only one"]),
        ("uniform", "volume_ratio = 2.0\ncapacity_multiple = 3.0", &["only one", "volume_ratio and capacity_multiple"]),
        ("uniform", "volume = \"4 parsecs\"", &["workload.volume", "unknown size unit"]),
        ("hotcold", "hot_access = 1.2", &["workload.hot_access"]),
        ("hotcold", "hot_space = 1.0", &["workload.hot_space"]),
        ("uniform", "request_size = \"128MiB\"", &["workload.request_size", "larger than the footprint"]),
    ];
    for (kind, text, needles) in cases {
        let e = error(kind, text);
        for needle in *needles {
            assert!(e.contains(needle), "{kind} with `{text}`: `{e}` lacks `{needle}`");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bounds and alignment of every request, over random parameters

#[derive(Clone, Debug)]
struct Setup {
    kind: &'static str,
    align_bytes: u64,
    sizes_units: Vec<u64>,
    start_units: u64,
    footprint_units: u64,
    spare_units: u64,
    read_share: f64,
    trim_share: f64,
    requests: u64,
    seed: u64,
}

impl Setup {
    fn capacity_bytes(&self) -> u64 {
        (self.start_units + self.footprint_units + self.spare_units) * self.align_bytes
    }

    fn toml(&self) -> String {
        let sizes: Vec<String> = self
            .sizes_units
            .iter()
            .enumerate()
            .map(|(i, s)| format!("\"{}\" = {}", s * self.align_bytes, i + 1))
            .collect();
        let align = self.align_bytes;
        let mut text = [
            format!("align = {align}"),
            format!("request_size = {{ {} }}", sizes.join(", ")),
            format!("start = {}", self.start_units * align),
            format!("footprint = {}", self.footprint_units * align),
            format!("read_share = {}\ntrim_share = {}", self.read_share, self.trim_share),
            format!("requests = {}\nseed = {}\n", self.requests, self.seed),
        ]
        .join("\n");
        if self.kind == "zipf" {
            text.push_str("theta = 1.1\n");
        }
        if self.kind == "hotcold" {
            text.push_str("hot_space = 0.3\n");
        }
        text
    }
}

fn setups() -> impl Strategy<Value = Setup> {
    let kinds = general_generators();
    (
        proptest::sample::select(kinds),
        proptest::sample::select(vec![512u64, 4096, 16384]),
        proptest::collection::btree_set(1u64..9, 1..4),
        0u64..50,
        20u64..3000,
        0u64..50,
        0.0f64..0.6,
        0.0f64..0.4,
        1u64..600,
        any::<u64>(),
    )
        .prop_map(
            |(
                kind,
                align_bytes,
                sizes,
                start_units,
                footprint_units,
                spare_units,
                read_share,
                trim_share,
                requests,
                seed,
            )| {
                Setup {
                    kind,
                    align_bytes,
                    sizes_units: sizes.into_iter().collect(),
                    start_units,
                    footprint_units,
                    spare_units,
                    read_share,
                    trim_share,
                    requests,
                    seed: seed >> 1, // TOML integers are signed
                }
            },
        )
}

proptest! {
    // Failures print the minimal case; nothing is persisted next to the sources.
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_request_is_aligned_and_inside_the_footprint(setup in setups()) {
        let requests = generate(setup.kind, &setup.toml(), setup.capacity_bytes());
        prop_assert_eq!(requests.len() as u64, setup.requests);
        let low = setup.start_units * setup.align_bytes;
        let high = low + setup.footprint_units * setup.align_bytes;
        let sizes: BTreeSet<u64> = setup.sizes_units.iter().map(|s| s * setup.align_bytes).collect();
        for r in &requests {
            prop_assert_eq!(r.offset % setup.align_bytes, 0, "misaligned {:?}", r);
            prop_assert!(sizes.contains(&r.len), "size {} not in the table", r.len);
            prop_assert!(r.offset >= low && r.offset + r.len <= high, "{:?} outside [{}, {})", r, low, high);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shapes

#[test]
fn hotcold_access_share_holds() {
    for (hot_access, hot_space) in [(0.8, 0.2), (0.95, 0.05), (0.5, 0.5)] {
        let text = format!("hot_access = {hot_access}\nhot_space = {hot_space}\nrequests = 200000\nread_share = 0.25");
        let requests = generate("hotcold", &text, 256 * MIB);
        // The hot region is round(hot_space × footprint) in 4 KiB units.
        let hot_end = (hot_space * (256 * MIB / (4 * KIB)) as f64).round() as u64 * 4 * KIB;
        let hot = requests.iter().filter(|r| r.offset + r.len <= hot_end).count();
        let straddling = requests.iter().filter(|r| r.offset < hot_end && r.offset + r.len > hot_end).count();
        assert_eq!(straddling, 0, "4 KiB requests never straddle the regions");
        assert_share(&format!("hot share {hot_access}/{hot_space}"), hot, requests.len(), hot_access);
        // Reads draw from the same distribution.
        let reads: Vec<&Request> = requests.iter().filter(|r| r.op == Op::Read).collect();
        let hot_reads = reads.iter().filter(|r| r.offset + r.len <= hot_end).count();
        assert_share("hot share among reads", hot_reads, reads.len(), hot_access);
    }
}

#[test]
fn hotcold_is_uniform_inside_each_region() {
    let requests = generate("hotcold", "requests = 200000", 40 * MIB);
    let hot_end = 8 * MIB;
    let hot_low_half = requests.iter().filter(|r| r.offset < hot_end / 2).count();
    let cold_low_half = requests.iter().filter(|r| r.offset >= hot_end && r.offset < hot_end + 16 * MIB).count();
    assert_share("lower half of the hot region", hot_low_half, requests.len(), 0.8 * 0.5);
    assert_share("lower half of the cold region", cold_low_half, requests.len(), 0.2 * 0.5);
}

#[test]
fn read_and_trim_shares_hold() {
    for kind in ["sequential", "uniform", "zipf", "hotcold"] {
        let requests = generate(kind, "read_share = 0.3\ntrim_share = 0.1\nrequests = 100000", 64 * MIB);
        let reads = requests.iter().filter(|r| r.op == Op::Read).count();
        let trims = requests.iter().filter(|r| r.op == Op::Trim).count();
        assert_share(&format!("{kind} reads"), reads, requests.len(), 0.3);
        assert_share(&format!("{kind} trims"), trims, requests.len(), 0.1);
    }
    let all_reads = generate("uniform", "read_share = 1.0\nrequests = 1000", 64 * MIB);
    assert!(all_reads.iter().all(|r| r.op == Op::Read));
}

#[test]
fn request_size_table_shares_hold() {
    let text = "request_size = { \"4KiB\" = 0.7, \"64KiB\" = 0.3 }\nrequests = 100000";
    for kind in ["sequential", "uniform", "zipf", "hotcold"] {
        let requests = generate(kind, text, 64 * MIB);
        let large = requests.iter().filter(|r| r.len == 64 * KIB).count();
        assert!(requests.iter().all(|r| r.len == 4 * KIB || r.len == 64 * KIB));
        assert_share(&format!("{kind} 64 KiB share"), large, requests.len(), 0.3);
    }
}

#[test]
fn uniform_covers_the_footprint_evenly() {
    let requests = generate("uniform", "start = \"16MiB\"\nfootprint = \"32MiB\"\nrequests = 100000", 64 * MIB);
    assert!(requests.iter().all(|r| r.offset >= 16 * MIB && r.offset + r.len <= 48 * MIB));
    for quarter in 0..4u64 {
        let low = 16 * MIB + quarter * 8 * MIB;
        let count = requests.iter().filter(|r| r.offset >= low && r.offset < low + 8 * MIB).count();
        assert_share(&format!("quarter {quarter}"), count, requests.len(), 0.25);
    }
}

#[test]
fn sequential_walks_in_order_and_wraps() {
    let requests = generate("sequential", "start = \"1MiB\"\nfootprint = \"64KiB\"\nrequests = 40", 4 * MIB);
    for (i, r) in requests.iter().enumerate() {
        assert_eq!(r.offset, MIB + (i as u64 % 16) * 4 * KIB, "request {i}");
    }
    let requests = generate(
        "sequential",
        "footprint = \"1MiB\"\nrequest_size = { \"4KiB\" = 1, \"12KiB\" = 1, \"64KiB\" = 1 }\nrequests = 5000",
        4 * MIB,
    );
    let mut wraps = 0;
    for pair in requests.windows(2) {
        if pair[1].offset == 0 {
            wraps += 1;
            assert!(pair[0].offset + pair[0].len + pair[1].len > MIB, "wrapped only when the next did not fit");
        } else {
            assert_eq!(pair[1].offset, pair[0].offset + pair[0].len, "contiguous");
        }
    }
    assert!(wraps > 10, "5000 requests of ~27 KiB wrap a 1 MiB footprint many times ({wraps})");
}

#[test]
fn limits_and_time_stamps() {
    let requests = generate("uniform", "volume = \"1MiB\"\niat_ns = 2500", 64 * MIB);
    assert_eq!(requests.len(), 256);
    assert!(requests.iter().enumerate().all(|(i, r)| r.time_ns == i as u64 * 2500));
    let requests = generate("uniform", "footprint = \"8MiB\"\ncapacity_multiple = 2.5", 64 * MIB);
    assert_eq!(requests.len() as u64, 20 * MIB / (4 * KIB));
    let requests = generate("uniform", "volume_ratio = 0.5", 8 * MIB);
    assert_eq!(requests.len() as u64, 4 * MIB / (4 * KIB));
    let mut w = make("zipf", "requests = 10\nrequest_size = \"8KiB\"", 8 * MIB);
    assert_eq!(w.progress(), Some((0, 80 * KIB)));
    w.next_request().unwrap();
    assert_eq!(w.progress(), Some((8 * KIB, 80 * KIB)));
}

#[test]
fn same_seed_same_stream() {
    let text = "read_share = 0.2\ntrim_share = 0.1\nrequest_size = { \"4KiB\" = 1, \"16KiB\" = 1 }\nrequests = 5000";
    for name in general_generators() {
        let a = generate(name, text, 64 * MIB);
        let b = generate(name, text, 64 * MIB);
        assert_eq!(a, b, "{}: same seed, same stream", name);
        let c = generate(name, &format!("{text}\nseed = 43"), 64 * MIB);
        assert_ne!(a, c, "{}: another seed, another stream", name);
        let d = collect(
            build(name, table(&format!("{text}\nseed = 43")), &GenContext { seed: 1, ..ctx(64 * MIB) }).unwrap(),
        );
        assert_eq!(c, d, "{}: the `seed` key overrides the context's seed", name);
    }
}

/// A generator read ahead in batches (`Workload::next_batch`, as the simulation loop reads it)
/// yields the stream `next_request` yields, ending at the same request, for every generator.
#[test]
fn batches_read_the_stream_one_request_at_a_time_reads() {
    let text = "read_share = 0.2\ntrim_share = 0.1\nrequest_size = { \"4KiB\" = 1, \"16KiB\" = 1 }\nrequests = 5003";
    for g in GENERATORS {
        // The page-write generators grow a database over the footprint first (16,384 pages).
        let (text, n) = if PAGE_WRITES_ONLY.contains(&g.name) { ("requests = 20003", 20003) } else { (text, 5003) };
        let one_by_one = generate(g.name, text, 64 * MIB);
        assert_eq!(one_by_one.len(), n, "{}", g.name);
        for max in [1, 16, n, n + 1000] {
            let mut w = make(g.name, text, 64 * MIB);
            let mut batched = Vec::new();
            loop {
                let before = batched.len();
                assert!(w.next_batch(&mut batched, before + max), "{}: generators read ahead", g.name);
                if batched.len() < before + max {
                    break;
                }
            }
            assert_eq!(batched, one_by_one, "{} in batches of {max}", g.name);
            assert_eq!(w.next_request().expect("no error"), None, "{}: the stream has ended", g.name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Zipf against real fio

/// Per-block write counts from a fio iolog (version 2: `file action offset length`; version 3,
/// which fio 3.x writes: a time stamp first). Only `write` lines are counted.
fn fio_block_counts(path: &Path, blocks: usize, block_bytes: u64) -> Vec<u32> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = BufReader::new(flate2::read::GzDecoder::new(file)).lines();
    let header = lines.next().expect("iolog has a header").expect("iolog is text");
    let skip = match header.trim() {
        "fio version 2 iolog" => 0,
        "fio version 3 iolog" => 1,
        other => panic!("{}: not a fio v2/v3 iolog header: `{other}`", path.display()),
    };
    let mut counts = vec![0u32; blocks];
    for line in lines {
        let line = line.expect("iolog is text");
        let fields: Vec<&str> = line.split_whitespace().skip(skip).collect();
        if fields.len() == 4 && fields[1] == "write" {
            let offset: u64 = fields[2].parse().expect("offset is an integer");
            assert_eq!(fields[3], block_bytes.to_string(), "fixed block size");
            counts[(offset / block_bytes) as usize] += 1;
        }
    }
    counts
}

/// Share of accesses to the hottest 1%, 10%, 20% of blocks, and the share of blocks touched.
fn skew_stats(counts: &[u32]) -> [f64; 4] {
    let mut sorted = counts.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = sorted.iter().map(|&c| c as u64).sum();
    let top = |fraction: f64| {
        let k = (counts.len() as f64 * fraction) as usize;
        sorted[..k].iter().map(|&c| c as u64).sum::<u64>() as f64 / total as f64
    };
    let touched = sorted.iter().filter(|&&c| c > 0).count() as f64 / counts.len() as f64;
    [top(0.01), top(0.10), top(0.20), touched]
}

fn our_block_counts(theta: f64, seed: u64, requests: u64, blocks: usize) -> Vec<u32> {
    let text = format!("theta = {theta}\nrequests = {requests}\nseed = {seed}");
    let mut counts = vec![0u32; blocks];
    for r in generate("zipf", &text, blocks as u64 * 4 * KIB) {
        counts[(r.offset / (4 * KIB)) as usize] += 1;
    }
    counts
}

/// Mean and standard deviation of each statistic over `runs` seeds of our generator.
fn our_skew_distribution(theta: f64, requests: u64, blocks: usize, runs: u64) -> ([f64; 4], [f64; 4]) {
    let samples: Vec<[f64; 4]> =
        (1..=runs).map(|seed| skew_stats(&our_block_counts(theta, seed, requests, blocks))).collect();
    let mut mean = [0.0; 4];
    let mut sd = [0.0; 4];
    for j in 0..4 {
        mean[j] = samples.iter().map(|s| s[j]).sum::<f64>() / runs as f64;
        let var = samples.iter().map(|s| (s[j] - mean[j]).powi(2)).sum::<f64>() / (runs - 1) as f64;
        sd[j] = var.sqrt();
    }
    (mean, sd)
}

/// fio 3.33, `--size=16M --bs=4k --io_size=128M --random_distribution=zipf:θ` (4096 blocks,
/// 32768 writes). For each statistic, our generator's mean and sampling standard deviation over
/// 40 seeds at the same n and sample count; if fio and we sample the same distribution, fio's
/// single run differs from our mean by at most 5 σ·√(1 + 1/40) (false alarm < 1e-6).
#[test]
fn zipf_skew_matches_fio() {
    const BLOCKS: usize = 4096;
    const RUNS: u64 = 40;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio");
    let names = ["top 1%", "top 10%", "top 20%", "touched"];
    for theta in [0.5, 0.9, 1.1] {
        let fio_counts = fio_block_counts(&dir.join(format!("zipf-{theta}.log.gz")), BLOCKS, 4 * KIB);
        let requests: u64 = fio_counts.iter().map(|&c| c as u64).sum();
        assert_eq!(requests, 32768, "the log holds the documented number of writes");
        let fio = skew_stats(&fio_counts);
        let (mean, sd) = our_skew_distribution(theta, requests, BLOCKS, RUNS);
        for j in 0..4 {
            let tolerance = 5.0 * sd[j] * (1.0 + 1.0 / RUNS as f64).sqrt();
            println!(
                "θ={theta} {:8}: fio {:.4}  ours {:.4} ± {:.4} (sd)  |Δ| {:.4} ≤ {:.4}",
                names[j],
                fio[j],
                mean[j],
                sd[j],
                (fio[j] - mean[j]).abs(),
                tolerance
            );
            assert!(
                (fio[j] - mean[j]).abs() <= tolerance,
                "θ={theta} {}: fio {:.4} vs ours {:.4} (tolerance {:.4})",
                names[j],
                fio[j],
                mean[j],
                tolerance
            );
        }
    }
}

/// The comparison above can tell θ apart: shifting θ by 0.05 moves our curve out of the band.
#[test]
fn zipf_skew_comparison_detects_a_shifted_theta() {
    const BLOCKS: usize = 4096;
    for theta in [0.5, 0.9, 1.1] {
        let (mean, sd) = our_skew_distribution(theta, 32768, BLOCKS, 20);
        for shifted in [theta - 0.05, theta + 0.05] {
            let (other, _) = our_skew_distribution(shifted, 32768, BLOCKS, 5);
            let separated = (0..4).any(|j| (other[j] - mean[j]).abs() > 5.0 * sd[j] * 1.1);
            assert!(separated, "θ={theta} vs {shifted}: {other:?} within the band of {mean:?} ± 5×{sd:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Measurement (not an assertion): cargo test --release -p flashlab --test generators -- --ignored --nocapture

#[test]
#[ignore]
fn generation_rate() {
    let capacity = 8 << 30; // 8 GiB of 4 KiB pages: n = 2 Mi items
    let count: u64 = 50_000_000;
    for kind in ["sequential", "uniform", "zipf", "hotcold"] {
        let text =
            if kind == "zipf" { format!("theta = 0.9\nrequests = {count}") } else { format!("requests = {count}") };
        let built = std::time::Instant::now();
        let mut w = make(kind, &text, capacity);
        let setup_s = built.elapsed().as_secs_f64();
        let started = std::time::Instant::now();
        let mut checksum = 0u64;
        while let Some(r) = w.next_request().unwrap() {
            checksum = checksum.wrapping_add(r.offset);
        }
        let rate = count as f64 / started.elapsed().as_secs_f64();
        println!("{kind:10}: {:6.1} M requests/s (set-up {setup_s:.3} s, checksum {checksum:x})", rate / 1e6);
    }
    let built = std::time::Instant::now();
    let _w = make("zipf", "theta = 0.9", 8 << 40); // 2^31 items: the zeta sum is capped as in fio
    println!("zipf set-up for n = 2^31 items: {:.3} s", built.elapsed().as_secs_f64());
}
