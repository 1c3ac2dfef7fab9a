//! WADPM end to end: plane-level placement keeps every GC move a copy-back; loading a whole
//! translation page beats loading fewer entries on a workload with spatial locality; map I/O
//! shows in counters and latency; the dynamic window moves.

use flashlab::{sim, Config, Results};

/// 2 channels x 2 planes, 2 KiB pages (512 entries per translation page), 25/200/2000 µs.
fn run(sets: &[&str]) -> Results {
    let text = r#"
[device]
channels = 2
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 64
page_size = "2KiB"
over_provisioning = 0.15
[timing]
read_us = 25
program_us = 200
erase_us = 2000
bus_mb_s = 40
[ftl]
mapping = "wadpm"
gc = "greedy"
[workload]
kind = "hotcold"
hot_access = 0.9
hot_space = 0.05
request_size = "8KiB"
volume_ratio = 3.0
[precondition]
fill = true
[sim]
mode = "timing"
"#;
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    sim::run(&Config::from_toml_str(text, "wadpm-test.toml", &sets).unwrap(), &mut sim::Quiet).unwrap()
}

#[test]
fn every_gc_move_is_a_copyback() {
    let r = run(&[]);
    assert!(r.ftl.gc_copies > 0, "GC ran");
    assert_eq!(r.flash.copybacks, r.ftl.gc_copies, "data never leaves its plane");
    assert_eq!(r.flash.reads, 0, "no GC page crossed the bus (the workload has no reads)");
}

/// With spatial locality (the paper's premise) a whole translation page per miss hits most.
/// Without it (cold random misses), page-chunk pollutes the cache with unused neighbours. (The
/// window must hold a translation page per plane: a sequential stream touches one in each.)
#[test]
fn page_chunk_loading_wins_with_locality_and_loses_without() {
    let hit = |loading: &str, kind: &[&str]| {
        let mut sets =
            vec![format!("ftl.mapping_params.loading=\"{loading}\""), "ftl.mapping_params.window=0.2".to_string()];
        sets.extend(kind.iter().map(|s| s.to_string()));
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        run(&sets).mapping.cache.unwrap().hit_ratio.unwrap()
    };
    let seq: &[&str] = &["workload.kind=\"sequential\"", "workload.hot_access=", "workload.hot_space="];
    let (entry, ahead, chunk) = (hit("per-miss-entry", seq), hit("read-ahead", seq), hit("page-chunk", seq));
    assert!(
        chunk > ahead && ahead > entry,
        "sequential: page-chunk {chunk} > read-ahead {ahead} > per-miss-entry {entry}"
    );
    assert!(chunk > 0.99 && (ahead - 7.0 / 8.0).abs() < 0.02, "sequential: {chunk}, {ahead}");
    let (ahead, chunk) = (hit("read-ahead", &[]), hit("page-chunk", &[]));
    assert!(chunk < ahead, "hot/cold random: page-chunk {chunk} pollutes, read-ahead {ahead}");
}

#[test]
fn map_io_is_counted_and_costs_time() {
    let small = run(&["ftl.mapping_params.window=0.01"]);
    let whole = run(&["ftl.mapping_params.window=1.0"]);
    let (s, w) = (small.mapping.cache.clone().unwrap(), whole.mapping.cache.clone().unwrap());
    assert!(s.map_reads > w.map_reads && s.misses > w.misses);
    assert_eq!(s.map_reads, s.misses + (s.map_reads - s.misses), "every miss reads a translation page");
    assert!(s.map_writes > 0, "dirty entries are written back");
    assert!(small.latency_us.unwrap().write.mean > whole.latency_us.unwrap().write.mean, "misses add latency");
    assert!(small.mapping.table_bytes < whole.mapping.table_bytes);
}

/// `write_back = "free"` (the paper's cost model) counts the same map I/O, and only the miss
/// reads take flash time: faster than programming every write-back, slower than no misses.
#[test]
fn free_write_back_counts_the_writes_but_takes_no_flash_time() {
    let small = ["ftl.mapping_params.window=0.01"];
    let program = run(&small);
    let free = run(&[small[0], "ftl.mapping_params.write_back=\"free\""]);
    let whole = run(&["ftl.mapping_params.window=1.0"]);
    let (p, f) = (program.mapping.cache.clone().unwrap(), free.mapping.cache.clone().unwrap());
    assert_eq!((p.map_reads, p.map_writes, p.misses), (f.map_reads, f.map_writes, f.misses), "same cache decisions");
    assert!(f.map_writes > 0);
    let lat = |r: &Results| r.latency_us.as_ref().unwrap().write.mean;
    assert!(lat(&free) < lat(&program), "free {} vs program {}", lat(&free), lat(&program));
    assert!(lat(&free) > lat(&whole), "misses still read: free {} vs whole table {}", lat(&free), lat(&whole));
}
#[test]
fn the_dynamic_window_adjusts_during_the_run() {
    let r =
        run(&["ftl.mapping_params.dynamic=true", "ftl.mapping_params.window=0.01", "ftl.mapping_params.interval=512"]);
    let h = r.mapping.cache.unwrap().window_history;
    assert!(h.len() > 10);
    assert!(h.iter().max() > h.first(), "the window grew on low hit ratios: {h:?}");
}

#[test]
fn wadpm_needs_block_units_and_address_placement() {
    let text = "[device]\nblocks_per_plane = 64\npages_per_block = 64\n[ftl]\nmapping = \"wadpm\"\ngc_unit = \"line\"\n[workload]\nkind = \"uniform\"\n";
    // Refused when the config is loaded, before anything runs.
    let refused = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Config::from_toml_str(text, "t.toml", &sets).unwrap_err().to_string()
    };
    let err = refused(&[]);
    assert!(err.contains("gc_unit"), "{err}");
    assert!(refused(&["ftl.gc_unit=\"block\"", "ftl.striping=\"none\""]).contains("striping"));
    assert!(refused(&["ftl.gc_unit=\"block\"", "ftl.mapping_params.window=2"]).contains("ftl.mapping_params.window"));
}

/// Preconditioning is excluded from results: the cache's lookups, and FAST's write classes,
/// are those of the measured phase (the fill alone is 85% of the logical pages again).
#[test]
fn mapping_and_write_class_counters_cover_the_measured_phase_only() {
    let r = run(&["workload.volume_ratio=0.5"]);
    let c = r.mapping.cache.unwrap();
    assert_eq!(c.hits + c.misses, r.ftl.host_writes + r.ftl.host_reads + r.ftl.trims, "one lookup per page access");
    assert_eq!(c.hit_ratio, Some(c.hits as f64 / (c.hits + c.misses) as f64));
    let f = run(&["workload.volume_ratio=0.5", "ftl.mapping=\"fast\"", "ftl.mapping_params=", "ftl.gc="]);
    let h = f.hybrid.unwrap();
    assert_eq!(h.write_data + h.update_pure + h.update_wasted, f.ftl.host_writes, "every measured write classified");
}
