//! Bounds on every numeric configuration key: the reproducers of issue 21 (geometry overflow,
//! timing values beyond physical sense, unbounded intervals and watermarks) and a walk over the
//! config schema that sets every numeric key — of the sections and of every registry's parameter
//! table — to extreme values. Each must give a configuration error naming the key, or a config
//! that validates and runs (a tiny run, stopped early) without a panic; a key added later without
//! bounds is caught here.

use std::panic::{catch_unwind, AssertUnwindSafe};

use flashlab::reference::{config_keys, param_tables};
use flashlab::sim::{self, Progress};
use flashlab::{Config, Error};

fn load(sets: &[&str]) -> Result<Config, Error> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Config::load_named("default", &sets)
}

/// The error for `sets`, which must be a configuration error (not a panic), as text: from
/// loading, validation, or building the device at the start of a run (the FTL's own checks).
fn refused(sets: &[&str]) -> String {
    let outcome = load(sets).and_then(|cfg| {
        sim::validate(&cfg)?;
        sim::run(&cfg, &mut Brief(0))
    });
    match outcome {
        Err(Error::Interrupted) | Ok(_) => panic!("{sets:?} should be refused"),
        Err(e) => e.to_string(),
    }
}

fn assert_refused(sets: &[&str], needles: &[&str]) {
    let msg = refused(sets);
    for n in needles {
        assert!(msg.contains(n), "error for {sets:?} should mention `{n}`: {msg}");
    }
}

#[test]
fn geometry_products_that_overflow_are_refused_naming_the_keys() {
    // Was: division by zero in nand/geometry.rs (planes() wrapped to 0).
    assert_refused(&["device.chips_per_channel=2147483648"], &["device.chips_per_channel"]);
    // Was: a 0.5 GiB device with 65536 planes (the product wrapped).
    assert_refused(
        &["device.channels=65536", "device.chips_per_channel=65537"],
        &["device.channels", "device.chips_per_channel", "exceed"],
    );
    // Was: an abort allocating 96 GiB.
    let max = "4294967295";
    let sets: Vec<String> = ["channels", "chips_per_channel", "dies_per_chip", "planes_per_die"]
        .iter()
        .map(|k| format!("device.{k}={max}"))
        .collect();
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    assert_refused(&sets, &["device.channels", "exceed"]);
    assert_refused(&["device.blocks_per_plane=4294967295", "device.pages_per_block=4294967295"], &["blocks_per_plane"]);
}

#[test]
fn timing_values_beyond_physical_sense_are_refused() {
    // Was: write p50 of 20.4 µs (the program time saturated then wrapped).
    assert_refused(&["timing.program_us=1e300", "sim.mode=timing"], &["timing.program_us", "1 s"]);
    // Was: reads of 0.0 µs and 18446744073.710 s simulated.
    assert_refused(&["timing.bus_mb_s=1e-300", "sim.mode=timing"], &["timing.bus_mb_s"]);
    assert_refused(&["timing.bus_mb_s=1e300"], &["timing.bus_mb_s"]);
    assert_refused(&["timing.read_us=1e7"], &["timing.read_us"]);
    assert_refused(&["timing.erase_us=-1"], &["timing.erase_us"]);
    // A page whose transfer alone would take over a second: page size and bus named together.
    assert_refused(
        &["sim.mode=timing", "timing.bus_mb_s=1", "device.page_size=\"2MiB\"", "device.blocks_per_plane=8"],
        &["timing.bus_mb_s", "device.page_size"],
    );
}

#[test]
fn series_and_watermarks_are_bounded() {
    // Was: one series sample per host write.
    assert_refused(&["sim.intervals=9223372036854775807"], &["sim.intervals", "100000"]);
    // Was: `low + 1` wrapped.
    assert_refused(
        &["ftl.gc_schedule=watermark", "ftl.gc_schedule_params.low=4294967295"],
        &["ftl.gc_schedule_params.low", "segments"],
    );
    assert_refused(&["host.queue_depth=4294967295"], &["host.queue_depth", "65536"]);
}

#[test]
fn validation_errors_name_the_file_line_or_override() {
    let dir = std::env::temp_dir().join(format!("flashlab-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cfg.toml");
    let text = flashlab::presets::find("default").unwrap().text.replace("[sim]\n", "[sim]\nintervals = 0\n");
    std::fs::write(&path, &text).unwrap();
    let line = text.lines().position(|l| l.starts_with("intervals")).unwrap() + 1;
    let err = Config::load(&path, &[]).unwrap_err().to_string();
    let want = format!("{}:{line}: invalid configuration: `sim.intervals`", path.display());
    assert!(err.starts_with(&want), "{err}\nshould start with {want}");
    // Set by an override: the override is named instead of the file.
    let err = load(&["timing.read_us=1e9"]).unwrap_err().to_string();
    assert!(err.starts_with("--set timing.read_us=1e9: invalid configuration: `timing.read_us`"), "{err}");
    // A key checked when the workload is built (a generator's parameter).
    let err = load(&["workload.theta=-1"]).and_then(|c| sim::validate(&c)).unwrap_err().to_string();
    assert!(err.contains("--set workload.theta=-1") && err.contains("workload.theta"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 44's messages that pointed at the wrong thing, and the run-length keys that accepted
/// runs of centuries: each error names the key and the real limit.
#[test]
fn run_lengths_are_bounded_and_messages_name_the_real_limit() {
    // Was "must be a positive multiple of the footprint (got 1000000000000)".
    let msg = refused(&["workload.volume_ratio=1e12"]);
    assert!(msg.contains("workload.volume_ratio") && msg.contains("more than a run may hold"), "{msg}");
    assert!(!msg.contains("positive"), "{msg}");
    assert_refused(&["workload.volume_ratio=-1"], &["workload.volume_ratio", "must be positive"]);
    assert_refused(
        &["workload.volume_ratio=", "workload.requests=1125899906842624"],
        &["workload.requests", "five days"],
    );
    assert_refused(&["workload.volume_ratio=", "workload.volume=\"100000TiB\""], &["workload.volume", "five days"]);
    assert_refused(
        &["workload.volume_ratio=", "workload.requests=1000000", "workload.iat_ns=10000000000000000"],
        &["workload.iat_ns", "292 years"],
    );
    // The longest run allowed still loads (only loaded and validated here, never run).
    let cfg = load(&["workload.volume_ratio=", "workload.requests=4398046511104"]).unwrap();
    sim::validate(&cfg).unwrap();
    // A trace replayed two million times.
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/traces/umass_financial1_ssdsim/example.ascii");
    let path = format!("workload.path=\"{trace}\"");
    let sets =
        ["workload=", "workload.kind=\"trace\"", "workload.format=\"ssdsim\"", &path, "host.out_of_range=\"wrap\""];
    assert_refused(&[&sets[..], &["workload.repeat=2000000"]].concat(), &["workload.repeat", "1048576"]);
    // Was: an NVRAM buffer too large blamed buffer.dram.
    assert_refused(&["buffer.policy=\"dwb\"", "buffer.nvram=\"4GiB\""], &["buffer.nvram", "NVRAM", "1952256000 bytes"]);
    assert_refused(&["buffer.policy=\"lru\"", "buffer.dram=\"4GiB\""], &["buffer.dram", "DRAM"]);
    // Was: "… + … kept free … need more than …" whose two terms did not exceed the total: the
    // third term and the sum are stated, and the sum does exceed the physical pages.
    let msg = refused(&["device.over_provisioning=0.01"]);
    let numbers: Vec<u64> =
        msg.split(|c: char| !c.is_ascii_digit()).filter(|w| w.len() > 3).map(|w| w.parse().unwrap()).collect();
    assert!(msg.contains("a segment per pool for invalid pages to gather in"), "{msg}");
    let [logical, kept, gather, total, physical] = numbers[..] else { panic!("five figures expected: {msg}") };
    assert_eq!(logical + kept + gather, total, "{msg}");
    assert!(total > physical, "{msg}");
}

/// Stops a run at its first progress check: the walk only needs to see the run start and step.
struct Brief(u32);
impl Progress for Brief {
    fn cancelled(&mut self) -> bool {
        self.0 += 1;
        self.0 > 4
    }
}

/// Overrides that make the default preset tiny, so a config that validates runs in milliseconds.
const TINY: &[&str] = &["device.blocks_per_plane=64", "device.pages_per_block=16", "workload.volume_ratio=0.5"];

/// What a numeric key is set to: its type's extremes and nonsense.
fn extremes(ty: &str) -> Vec<String> {
    let mut v = Vec::new();
    if ty.contains("integer") || ty.contains("size") {
        v.extend(["0", "4294967295", "4294967296", "9223372036854775807"].map(String::from));
    }
    if ty.contains("number") {
        v.extend(["1e300", "-1.0", "0.0", "1.7976931348623157e308", "5e-324"].map(String::from));
    }
    v
}

/// Every numeric key with the overrides that select the policy it belongs to.
fn numeric_keys() -> Vec<(String, String, Vec<String>)> {
    let numeric = |ty: &str| ty.contains("integer") || ty.contains("number") || ty.contains("size");
    let mut out = Vec::new();
    for k in config_keys() {
        if numeric(&k.ty) && k.key != "sim.memory_limit" {
            // The other keys of `[ftl.placement]` need its handles (and spare space for them).
            let select = if k.key.starts_with("ftl.placement.") && k.key != "ftl.placement.handles" {
                vec!["ftl.placement.handles=2".into(), "device.over_provisioning=0.25".into()]
            } else {
                Vec::new()
            };
            out.push((k.key, k.ty, select));
        }
    }
    for t in param_tables() {
        let select: Vec<String> = if t.table == "workload" {
            if t.name == "trace" {
                vec!["workload={ kind = \"trace\", path = \"builtin:msnfs\" }".into(), "host.out_of_range=wrap".into()]
            } else if t.name == "streams" {
                vec![
                    "workload={ kind = \"streams\", volume = \"1MiB\", streams = [{ kind = \"uniform\", share = 1.0 }] }"
                        .into(),
                ]
            } else {
                vec![format!("workload={{ kind = \"{}\" }}", t.name)]
            }
        } else if t.selector == "ftl.mapping" {
            vec![format!("{}={}", t.selector, t.name), "ftl.striping=full".into()]
        } else if t.table == "host.placement" {
            // A host placement policy places writes on the device's FDP handles (a host and a GC
            // stream each, open on every plane: more spare space), with the policy's required
            // parameters.
            let mut v = vec![
                format!("{}={}", t.selector, t.name),
                "ftl.placement.handles=2".into(),
                "device.over_provisioning=0.25".into(),
            ];
            let entry = flashlab::host::placement::PLACEMENTS.find(t.name).unwrap();
            v.extend(entry.caps.required.iter().map(|s| s.to_string()));
            v
        } else {
            vec![format!("{}={}", t.selector, t.name)]
        };
        for k in t.keys.into_iter().filter(|k| numeric(&k.ty)) {
            out.push((k.key, k.ty, select.clone()));
        }
    }
    out
}

#[test]
fn every_numeric_key_is_bounded() {
    let keys = numeric_keys();
    assert!(keys.len() > 50, "the walk found only {} numeric keys", keys.len());
    let mut failures = Vec::new();
    for (key, ty, select) in &keys {
        // The selection alone must be a working config, or the walk tests nothing: a buffer
        // policy gets the memory it needs (one or both of DRAM and NVRAM).
        // The zoned device takes its writes through the host's log, a zone per line.
        let extras: [&[&str]; 4] = [
            &[],
            &["buffer.dram=\"1MiB\""],
            &["buffer.dram=\"1MiB\"", "buffer.nvram=\"1MiB\""],
            &["host.layer=\"log\"", "ftl.gc_unit=\"line\"", "precondition.overwrite=0.0"],
        ];
        let base = extras
            .iter()
            .map(|x| {
                TINY.iter().chain(x.iter()).map(|s| s.to_string()).chain(select.iter().cloned()).collect::<Vec<_>>()
            })
            .find(|b| Config::load_named("default", b).and_then(|c| sim::run(&c, &mut sim::Quiet)).is_ok())
            .unwrap_or_else(|| panic!("{select:?} does not validate on the tiny default"));
        for value in extremes(ty) {
            let mut sets = base.clone();
            sets.push(format!("{key}={value}"));
            // Refused (naming the key) by validation or when the run builds the device, or run
            // until stopped; a full device is a fair outcome of some values, a panic never is.
            let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<(), Error> {
                let cfg = Config::load_named("default", &sets)?;
                sim::validate(&cfg)?;
                match sim::run(&cfg, &mut Brief(0)) {
                    Ok(_) | Err(Error::Interrupted | Error::DeviceFull(_)) => Ok(()),
                    Err(e) => Err(e),
                }
            }));
            match outcome {
                Err(_) => failures.push(format!("{key}={value}: panicked")),
                Ok(Err(e)) if !e.to_string().contains(key.as_str()) => {
                    failures.push(format!("{key}={value}: error does not name the key: {e}"))
                }
                Ok(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
