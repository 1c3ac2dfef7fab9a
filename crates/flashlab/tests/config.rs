//! A catalogue of bad configurations: each must fail with a clear message naming the key (or the
//! file and line), never a panic. And the good presets must load.

use flashlab::{presets, Config};

const GOOD: &str = r#"
[device]
channels = 2
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 64
over_provisioning = 0.1
[workload]
kind = "trace"
path = "x.csv"
"#;

/// Apply overrides to the good config and expect an error containing every `needle`.
fn check_err(sets: &[&str], needles: &[&str]) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let err = Config::from_toml_str(GOOD, "good.toml", &sets).expect_err(&format!("{sets:?} should be rejected"));
    let msg = err.to_string();
    for n in needles {
        assert!(msg.contains(n), "error for {sets:?} should mention `{n}`: {msg}");
    }
}

#[test]
fn the_good_config_and_every_preset_load() {
    Config::from_toml_str(GOOD, "good.toml", &[]).unwrap();
    for p in presets::PRESETS {
        let c = Config::from_toml_str(p.text, p.name, &[]).unwrap_or_else(|e| panic!("preset {}: {e}", p.name));
        c.resolve().unwrap();
    }
}

#[test]
fn zero_and_negative_sizes() {
    check_err(&["device.pages_per_block=0"], &["device.pages_per_block", "at least 1"]);
    check_err(&["device.blocks_per_plane=0"], &["device.blocks_per_plane"]);
    check_err(&["device.channels=-2"], &["channels"]);
    check_err(&["device.page_size=\"0KiB\""], &["page_size"]);
    check_err(&["device.page_size=\"3000\""], &["page_size", "power of two"]);
    // The rule, not "at least 1", for a zero page size; and a sub-sector page is refused.
    check_err(&["device.page_size=0"], &["device.page_size", "power of two from 512 B"]);
    check_err(&["device.page_size=256"], &["device.page_size", "power of two from 512 B"]);
    check_err(
        &["device.over_provisioning=-0.1"],
        &["over_provisioning", "-0.1 is out of range", "fraction of the logical capacity"],
    );
    check_err(&["device.logical_capacity=\"-4KiB\""], &["size"]);
}

#[test]
fn capacity_that_leaves_no_spare_blocks() {
    // 2 x 2 planes x 64 blocks x 64 pages x 4 KiB = 64 MiB physical.
    check_err(&["device.over_provisioning=0.0"], &["over-provisioning"]);
    check_err(&["device.logical_capacity=\"64MiB\"", "device.over_provisioning=0.0"], &["over-provisioning"]);
    check_err(&["device.logical_capacity=\"100MiB\"", "device.over_provisioning=0.0"], &["logical_capacity"]);
    check_err(&["device.logical_capacity=\"50MiB\""], &["over_provisioning", "contradicts"]);
    check_err(&["device.logical_capacity=\"4097\"", "device.over_provisioning=0.1"], &["contradicts"]);
    // How to give one of the two (an OP sweep over a preset that sets the capacity).
    check_err(
        &["device.logical_capacity=\"50MiB\""],
        &["--set device.logical_capacity=", "{\"device.logical_capacity\": None}"],
    );
}

/// The good config on a generator, validated as a run would be ([`flashlab::sim::validate`]:
/// the memory limit is checked there); the error, expected to contain every `needle`.
fn check_validation_err(sets: &[&str], needles: &[&str]) {
    let mut all = vec!["workload.kind=\"uniform\"".to_string(), "workload.path=".to_string()];
    all.extend(sets.iter().map(|s| s.to_string()));
    let err = Config::from_toml_str(GOOD, "good.toml", &all)
        .and_then(|c| flashlab::sim::validate(&c))
        .expect_err(&format!("{sets:?} should be rejected"));
    let msg = err.to_string();
    for n in needles {
        assert!(msg.contains(n), "error for {sets:?} should mention `{n}`: {msg}");
    }
}

#[test]
fn a_device_too_large_for_memory() {
    check_err(&["device.blocks_per_plane=100000000"], &["32-bit"]);
    let huge = ["device.blocks_per_plane=1000000", "device.pages_per_block=256", "device.channels=8"];
    check_validation_err(&huge, &["memory"]);
}

/// Raising `sim.memory_limit` does not let a device larger than the machine's physical memory
/// start: a limit above the physical memory is itself an error naming the key.
#[test]
fn a_device_larger_than_physical_memory_is_refused_whatever_the_limit() {
    let sets = [
        "device.blocks_per_plane=4000000",
        "device.pages_per_block=256",
        "sim.verify=true",
        "sim.memory_limit=\"1TiB\"",
    ];
    let mut owned = vec!["workload.kind=\"uniform\"".to_string(), "workload.path=".to_string()];
    owned.extend(sets.iter().map(|s| s.to_string()));
    let physical = flashlab::config::physical_memory().expect("this test needs /proc/meminfo (Linux)");
    match Config::from_toml_str(GOOD, "good.toml", &owned).and_then(|c| flashlab::sim::validate(&c)) {
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains("physical memory") && msg.contains("sim.memory_limit"), "{msg}");
        }
        Ok(_) => assert!(physical >= 1 << 40, "a 1 TiB limit accepted on a machine with {physical} bytes"),
    }
}

#[test]
fn unknown_names_list_the_valid_ones() {
    check_err(&["ftl.gc=\"greedyy\""], &["unknown GC policy `greedyy`", "greedy", "cost-benefit", "fifo"]);
    check_err(&["ftl.mapping=\"pagee\""], &["unknown mapping scheme", "page"]);
    check_err(&["ftl.gc_schedule=\"textbook\""], &["unknown GC schedule `textbook`", "classic", "watermark", "femu"]);
    check_err(&["buffer.policy=\"lru2\""], &["unknown buffer policy", "none"]);
    check_err(&["host.layer=\"fs\""], &["unknown host layer", "passthrough"]);
    check_err(&["workload.kind=\"zipff\""], &["unknown workload kind", "trace"]);
    check_err(&["ftl.gc_unit=\"page\""], &["gc_unit"]);
    check_err(&["ftl.striping=\"some\""], &["striping"]);
    check_err(&["sim.mode=\"fast\""], &["mode"]);
}

#[test]
fn unknown_keys_are_rejected() {
    check_err(&["device.chanels=4"], &["unknown field `chanels`"]);
    check_err(&["ftl.victim=\"greedy\""], &["unknown field `victim`"]);
    check_err(&["sim.chek=true"], &["unknown field `chek`"]);
    check_err(&["timing.tr_us=3"], &["unknown field `tr_us`"]);
    check_err(&["colour=\"red\""], &["unknown field `colour`"]);
}

#[test]
fn contradictory_or_impossible_settings() {
    check_err(&["sim.intervals=0"], &["sim.intervals"]);
    check_err(&["host.queue_depth=0"], &["host.queue_depth"]);
    check_err(&["timing.bus_mb_s=0"], &["timing.bus_mb_s"]);
    check_err(&["precondition.overwrite=-1"], &["precondition.overwrite"]);
    check_err(&["workload.kind=3"], &["workload.kind"]);
}

/// What the FTL's constructor refuses (its parameters, the spare space they leave) is refused
/// when the config is loaded, before anything is built: the load error names the key.
#[test]
fn ftl_parameter_errors_are_refused_at_load() {
    let r = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Config::from_toml_str(GOOD, "good.toml", &sets).err().map(|e| e.to_string()).unwrap_or_default()
    };
    assert!(r(&["ftl.gc_unit=\"line\"", "ftl.striping=\"none\""]).contains("ftl.striping"));
    let wm = "ftl.gc_schedule=\"watermark\"";
    assert!(r(&[wm, "ftl.gc_schedule_params.low=1"]).contains("ftl.gc_schedule_params.low"));
    assert!(r(&[wm, "ftl.gc_schedule_params.low=5", "ftl.gc_schedule_params.high=5"])
        .contains("ftl.gc_schedule_params.high"));
    assert!(r(&["ftl.gc_schedule_params.reserve=0"]).contains("ftl.gc_schedule_params.reserve"));
    assert!(r(&["ftl.gc_schedule_params.reservve=2"]).contains("ftl.gc_schedule_params.reservve"));
    assert!(r(&["ftl.gc_params.window=0.2"]).contains("ftl.gc_params.window"));
    let femu = "ftl.gc_schedule=\"femu\"";
    assert!(r(&[femu, "ftl.gc_schedule_params.forced=0.5", "ftl.gc_schedule_params.background=0.2"])
        .contains("ftl.gc_schedule_params.forced"));
    assert!(r(&["ftl.gc=\"2r\"", "ftl.gc_params.threshold=1.5"]).contains("ftl.gc_params.threshold"));
    let bast = ["ftl.mapping=\"bast\"", "ftl.gc=", "ftl.mapping_params.log_blocks=60"];
    assert!(r(&bast).contains("ftl.mapping_params.log_blocks"), "{}", r(&bast));
    assert!(
        r(&["ftl.mapping=\"dftl\"", "ftl.mapping_params.recency=\"sometimes\""]).contains("ftl.mapping_params.recency")
    );
    // 64 blocks per plane, but a reserve of 60 free blocks per plane leaves no room for GC.
    assert!(r(&[wm, "ftl.gc_schedule_params.low=59", "ftl.gc_schedule_params.high=60"]).contains("spare space"));
    assert!(r(&["ftl.gc_schedule_params.reserve=60"]).contains("spare space"));
    // The old watermark keys are gone: an unknown key, named.
    let e = Config::from_toml_str(GOOD, "good.toml", &["ftl.gc_free_low=3".to_string()]).unwrap_err().to_string();
    assert!(e.contains("gc_free_low"), "{e}");
}

/// Validation and construction agree: every FTL configuration that loads (is validated)
/// builds, over every mapping scheme, GC policy and schedule in the registries, with parameters
/// drawn from valid and invalid values and spare space from ample to none. Seeded draws; both
/// outcomes must be common, or the draw tests nothing.
#[test]
fn every_ftl_config_that_loads_builds() {
    // SplitMix64: seeded draws without depending on an RNG crate's API.
    let mut state = 43u64;
    let mut draw = |n: usize| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    let (mut built, mut refused) = (0, 0);
    for _ in 0..3000 {
        let m = &flashlab::ftl::MAPPINGS[draw(flashlab::ftl::MAPPINGS.len())];
        let op = [0.01, 0.03, 0.07, 0.2, 0.5][draw(5)];
        let unit = if draw(2) == 0 { "block" } else { "line" };
        let mut sets = vec![
            format!("ftl.mapping=\"{}\"", m.name),
            format!("device.over_provisioning={op}"),
            "ftl.striping=\"full\"".to_string(),
            format!("ftl.gc_unit=\"{unit}\""),
        ];
        if m.caps.gc_policy {
            let gc = &flashlab::ftl::gc::GC_POLICIES;
            let schedules = &flashlab::ftl::schedule::GC_SCHEDULES;
            sets.push(format!("ftl.gc=\"{}\"", gc[draw(gc.len())].name));
            sets.push(format!("ftl.gc_schedule=\"{}\"", schedules[draw(schedules.len())].name));
        }
        for _ in 0..draw(4) {
            sets.push(EXTRAS[draw(EXTRAS.len())].to_string());
        }
        let Ok(cfg) = Config::from_toml_str(GOOD, "good.toml", &sets) else {
            refused += 1;
            continue;
        };
        let r = cfg.resolve().expect("a loaded config resolves");
        if let Err(e) = flashlab::sim::build_device(&cfg, &r) {
            panic!("{sets:?} loaded but does not build: {e}");
        }
        built += 1;
    }
    assert!(built >= 200 && refused >= 200, "{built} built, {refused} refused: draw more evenly");
}

/// FTL parameters, valid and not, for `every_ftl_config_that_loads_builds`.
const EXTRAS: &[&str] = &[
    "ftl.gc_params.threshold=0.3",
    "ftl.gc_params.threshold=1.2",
    "ftl.gc_params.window=0.2",
    "ftl.gc_params.window=1.5",
    "ftl.gc_params.window_by=\"accessed\"",
    "ftl.gc_schedule_params.reserve=2",
    "ftl.gc_schedule_params.reserve=40",
    "ftl.gc_schedule_params.low=3",
    "ftl.gc_schedule_params.high=9",
    "ftl.gc_schedule_params.high=2",
    "ftl.gc_schedule_params.background=0.2",
    "ftl.gc_schedule_params.forced=0.3",
    "ftl.gc_schedule_params.min_invalid=0.5",
    "ftl.mapping_params.log_blocks=3",
    "ftl.mapping_params.log_blocks=50",
    "ftl.mapping_params.sequential_log=\"device\"",
    "ftl.mapping_params.recency=\"entry\"",
    "ftl.mapping_params.read_ahead=4",
    "ftl.gc=",
];

/// A GC key under a scheme that merges instead of collecting garbage would do nothing: refused,
/// naming the key and where it was set, for every such scheme in the registry; schemes with a
/// victim policy get `greedy` when none is given.
#[test]
fn gc_keys_under_a_log_block_mapping_are_refused_not_ignored() {
    let keys = [
        ("ftl.gc=\"2r\"", "ftl.gc"),
        ("ftl.gc_params.threshold=0.3", "ftl.gc_params.threshold"),
        ("ftl.gc_schedule=\"femu\"", "ftl.gc_schedule"),
        ("ftl.gc_schedule_params.reserve=2", "ftl.gc_schedule_params.reserve"),
    ];
    let mut refused = 0;
    for m in flashlab::ftl::MAPPINGS {
        let mapping = format!("ftl.mapping=\"{}\"", m.name);
        let plain = Config::from_toml_str(GOOD, "good.toml", std::slice::from_ref(&mapping)).unwrap();
        if m.caps.gc_policy {
            assert_eq!(plain.ftl.gc.as_deref(), Some("greedy"), "{}", m.name);
            continue;
        }
        assert_eq!(plain.ftl.gc, None, "{}", m.name);
        for (set, key) in keys {
            check_err(&[&mapping, set], &[key, m.name, &format!("--set {set}"), "would do nothing"]);
            refused += 1;
        }
    }
    assert!(refused >= 12, "block, bast and fast each refuse the four keys");
    // A key written in the file is blamed on the file.
    let text = GOOD.replace("[workload]", "[ftl]\nmapping = \"fast\"\ngc = \"greedy\"\n[workload]");
    let e = Config::from_toml_str(&text, "good.toml", &[]).unwrap_err().to_string();
    assert!(e.contains("ftl.gc") && e.contains("in good.toml"), "{e}");
}

#[test]
fn toml_syntax_errors_name_the_line() {
    let err = Config::from_toml_str("[device]\nchannels = 2\nblocks_per_plane = = 3\n", "bad.toml", &[]).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("bad.toml:3"), "{msg}");
}

#[test]
fn overrides_need_key_value_form() {
    let err = Config::from_toml_str(GOOD, "good.toml", &["ftl.gc".to_string()]).unwrap_err();
    assert!(err.to_string().contains("key=value"));
}

#[test]
fn an_override_number_out_of_range_is_an_error_not_a_string() {
    // Before: TOML refused the number, the value fell back to a string, and the key reported
    // `invalid type: string "99999999999999999999", expected u32`.
    check_err(
        &["device.channels=99999999999999999999"],
        &["device.channels", "not a valid number", "99999999999999999999"],
    );
    check_err(&["device.channels=1.2.3"], &["device.channels", "not a valid number"]);
    // Words still fall back to strings (a policy name, a size with a unit).
    Config::from_toml_str(GOOD, "good.toml", &["ftl.gc=fifo".into(), "device.page_size=4KiB".into()]).unwrap();
}

#[test]
fn a_config_tree_parses_as_its_text_does() {
    let table: toml::Table = GOOD.parse().unwrap();
    let from_text = Config::from_toml_str(GOOD, "good.toml", &["ftl.gc=\"fifo\"".into()]).unwrap();
    let from_tree = Config::from_table(table.clone(), "config dict", &["ftl.gc=\"fifo\"".into()]).unwrap();
    assert_eq!(serde_json::to_value(&from_text).unwrap(), serde_json::to_value(&from_tree).unwrap());
    // Errors from a tree name the source and field, and no line (there is no text).
    let mut bad = table;
    bad["device"].as_table_mut().unwrap().insert("chanels".into(), toml::Value::Integer(2));
    let msg = Config::from_table(bad, "config dict", &[]).unwrap_err().to_string();
    assert!(msg.starts_with("config dict: field `device.chanels`: unknown field"), "{msg}");
}

#[test]
fn load_named_finds_files_and_presets_and_lists_presets() {
    let c = Config::load_named("default", &[]).unwrap();
    assert_eq!(c.name.as_deref(), Some("default"));
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/default.toml");
    let c = Config::load_named(shipped, &[]).unwrap();
    assert_eq!(c.name.as_deref(), Some("default"));
    assert!(c.source.ends_with("configs/default.toml"), "{}", c.source);
    // A path that does not exist is an error, never the preset of the same stem: only a bare
    // name means a preset.
    for missing in ["configs/default.toml", "default.toml", "elsewhere/trace.toml", "./default"] {
        let msg = Config::load_named(missing, &[]).unwrap_err().to_string();
        assert!(msg.starts_with(missing) && msg.contains("No such file"), "{missing}: {msg}");
    }
    let msg = Config::load_named("no-such-config", &[]).unwrap_err().to_string();
    assert!(msg.starts_with("no-such-config: no such file, and not a preset (presets: default, trace"), "{msg}");
}

#[test]
fn load_named_anchors_override_paths_and_an_empty_one_removes_the_key() {
    let cwd = std::env::current_dir().unwrap();
    let c = Config::load_named("trace", &["workload.path=my.trace".into()]).unwrap();
    assert_eq!(c.workload["path"].as_str().unwrap(), cwd.join("my.trace").display().to_string());
    let c = Config::load_named("trace", &["workload.path=builtin:msnfs".into()]).unwrap();
    assert_eq!(c.workload["path"].as_str().unwrap(), "builtin:msnfs");
    // `key=` removes the key (it used to become the current directory).
    let c = Config::load_named("trace", &["workload.path=".into()]).unwrap();
    assert!(!c.workload.contains_key("path"));
}

#[test]
fn validate_catches_workload_and_buffer_errors_without_running() {
    let base = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Config::load_named("default", &sets).unwrap()
    };
    flashlab::sim::validate(&base(&[])).unwrap();
    let msg = flashlab::sim::validate(&base(&["workload.requests=10"])).unwrap_err().to_string();
    assert!(msg.contains("give only one of volume, requests, volume_ratio"), "{msg}");
    let msg = flashlab::sim::validate(&base(&["workload.theta=1.0"])).unwrap_err().to_string();
    assert!(msg.contains("theta must be different from 1.0"), "{msg}");
    let msg =
        flashlab::sim::validate(&base(&["buffer.policy=\"lru\"", "buffer.dram=\"64GiB\""])).unwrap_err().to_string();
    assert!(msg.contains("larger than the device"), "{msg}");
    let msg = flashlab::sim::validate(&base(&["workload={kind=\"trace\", path=\"/no/such.trace\"}"]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("/no/such.trace"), "{msg}");
}

#[test]
fn a_cancelled_run_stops_with_interrupted() {
    struct After(u32);
    impl flashlab::sim::Progress for After {
        fn cancelled(&mut self) -> bool {
            self.0 = self.0.saturating_sub(1);
            self.0 == 0
        }
    }
    for n in [1, 3] {
        let cfg = Config::load_named("default", &[]).unwrap();
        let err = flashlab::sim::run(&cfg, &mut After(n)).unwrap_err();
        assert!(matches!(err, flashlab::Error::Interrupted), "{err}");
    }
}

#[test]
fn the_catalog_holds_every_registry_entry() {
    let regs = flashlab::catalog::registries();
    let get = |id: &str| regs.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("no registry {id}"));
    let names = |id: &str| get(id).entries.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names("mapping"), flashlab::ftl::MAPPINGS.iter().map(|m| m.name.to_string()).collect::<Vec<_>>());
    assert_eq!(names("gc"), flashlab::ftl::gc::GC_POLICIES.iter().map(|m| m.name.to_string()).collect::<Vec<_>>());
    assert_eq!(names("buffer"), flashlab::buffer::BUFFERS.iter().map(|m| m.name.to_string()).collect::<Vec<_>>());
    assert_eq!(names("preset"), presets::PRESETS.iter().map(|p| p.name.to_string()).collect::<Vec<_>>());
    assert!(names("workload").contains(&"trace".to_string()));
    assert!(names("builtin").iter().all(|n| n.starts_with("builtin:")));
    assert!(regs.iter().all(|r| r.entries.iter().all(|(_, about)| !about.is_empty())), "every entry has a description");
}

#[test]
fn presets_are_the_embedded_text_and_need_no_source_tree() {
    let c = Config::load_named("default", &[]).unwrap();
    assert_eq!(c.source, "preset default");
    let c = Config::load_named("trace", &[]).unwrap();
    assert_eq!(c.workload["path"].as_str(), Some("builtin:msnfs"));
}

#[test]
fn a_trace_path_in_a_file_is_made_absolute_against_the_file() {
    let dir = std::env::temp_dir().join(format!("flashlab-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("c.toml");
    std::fs::write(&file, GOOD).unwrap();
    let c = Config::load(&file, &[]).unwrap();
    assert_eq!(c.workload["path"].as_str().unwrap(), dir.join("x.csv").display().to_string());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_after_parsing_are_blamed_on_the_override_that_set_the_key() {
    let cfg = Config::load_named("default", &["workload.theta=\"high\"".into()]).unwrap();
    let r = cfg.resolve().unwrap();
    let msg = flashlab::sim::build_workload(&cfg, &r).err().unwrap().to_string();
    assert!(msg.starts_with("--set workload.theta=\"high\": field `workload.theta`"), "{msg}");
    // A key the override did not set stays with the preset; a table override covers its keys.
    let cfg =
        Config::load_named("default", &["workload.kind=\"trace\"".into(), "workload.path=\"builtin:msnfs\"".into()])
            .unwrap();
    let msg = flashlab::sim::build_workload(&cfg, &cfg.resolve().unwrap()).err().unwrap().to_string();
    assert!(msg.contains("unknown key in preset default for a trace workload"), "{msg}");
    let cfg = Config::load_named("default", &["workload={kind=\"zipf\", theta=\"x\"}".into()]).unwrap();
    assert_eq!(cfg.origin_of("workload.theta"), "--set workload={kind=\"zipf\", theta=\"x\"}");
    assert_eq!(cfg.origin_of("workloads.theta"), "preset default");
}

/// An unknown key or section is placed where it was written: at its line in the file (a table
/// header included), or on the override that set it, never on the file for an override's key.
#[test]
fn unknown_keys_are_placed_where_they_were_written() {
    // A section set only by an override (the file has no `nosuch`).
    check_err(&["nosuch.key=1"], &["--set nosuch.key=1: field `nosuch`", "unknown field `nosuch`"]);
    let err = |text: &str| Config::from_toml_str(text, "good.toml", &[]).unwrap_err().to_string();
    // A section header in the file: its line (GOOD's last line is 10).
    let msg = err(&format!("{GOOD}[nosuch]\nx = 1\n"));
    assert!(msg.starts_with("good.toml:11: field `nosuch`"), "{msg}");
    // A missing key of a section: the section's header line, even when an override set
    // another key of that section.
    let msg = err("[device]\nblocks_per_plane = 64\n");
    assert!(msg.starts_with("good.toml:1: field `device`") && msg.contains("pages_per_block"), "{msg}");
    let msg = Config::from_toml_str("[device]\nblocks_per_plane = 64\n", "good.toml", &["device.channels=2".into()])
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("good.toml:1: field `device`") && msg.contains("pages_per_block"), "{msg}");
    // A generator's unknown key (checked after parsing, by the generator): its line, or the
    // override.
    let text = "[device]\nblocks_per_plane = 64\npages_per_block = 64\nover_provisioning = 0.1\n\
                [workload]\nkind = \"uniform\"\nwrites = \"1MiB\"\n";
    let cfg = Config::from_toml_str(text, "gen.toml", &[]).unwrap();
    let msg = flashlab::sim::validate(&cfg).unwrap_err().to_string();
    assert!(msg.starts_with("gen.toml:7: field `workload.writes`"), "{msg}");
    assert!(msg.contains("`uniform` has no keys of its own"), "{msg}");
    let cfg = Config::from_toml_str(text, "gen.toml", &["workload.colour=1".into()]).unwrap();
    let msg = flashlab::sim::validate(&cfg).unwrap_err().to_string();
    assert!(msg.starts_with("--set workload.colour=1: field `workload.colour`"), "{msg}");
}
