//! The generated references (`docs/config.md`, `docs/results.md`, `flashlab config show`) against
//! the code: the shipped files are exactly what the code generates, every key a config or a
//! results.json can hold is documented, and every documented policy parameter is accepted.

use std::collections::BTreeSet;
use std::path::PathBuf;

use flashlab::reference::{self, Key, ParamTable};
use flashlab::{sim, Config};
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const REGENERATE: &str = "regenerate with `cargo run --release -p flashlab-cli -- docs --write .`";

#[test]
fn shipped_references_are_what_the_code_generates() {
    for (file, text) in reference::generated_docs() {
        let path = repo().join(file);
        let shipped =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}; {REGENERATE}", path.display()));
        assert!(shipped == text, "{} differs from the generated reference; {REGENERATE}", path.display());
    }
}

/// Dotted keys of a JSON tree: every object key (tables too); arrays of objects as `key[].sub`.
fn keys_of(prefix: &str, v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, sub) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                out.insert(key.clone());
                keys_of(&key, sub, out);
            }
        }
        Value::Array(items) => {
            for item in items.iter().filter(|i| i.is_object()) {
                keys_of(&format!("{prefix}[]"), item, out);
            }
        }
        _ => {}
    }
}

fn documented(keys: &[Key]) -> BTreeSet<String> {
    keys.iter().map(|k| k.key.clone()).collect()
}

/// The parameter table a config selects for `table`.
fn selected<'t>(tables: &'t [ParamTable], cfg: &Value, table: &str) -> &'t ParamTable {
    tables
        .iter()
        .find(|t| {
            let mut v = cfg;
            for part in t.selector.split('.') {
                v = &v[part];
            }
            let name = v.as_str().unwrap_or(if t.selector == "ftl.gc_schedule" { "classic" } else { "" });
            t.table == table && t.name == name
        })
        .unwrap_or_else(|| panic!("no parameter table for [{table}] in {cfg}"))
}

/// Every key of a config (fixed keys and the selected policies' parameters) is documented.
fn check_config_documented(cfg: &Config, what: &str) {
    let fixed = documented(&reference::config_keys());
    let tables = reference::param_tables();
    let tree = serde_json::to_value(cfg).expect("config as JSON");
    let mut keys = BTreeSet::new();
    keys_of("", &tree, &mut keys);
    for key in keys {
        let free = ["ftl.gc_params", "ftl.gc_schedule_params", "ftl.mapping_params", "host.placement", "workload"]
            .into_iter()
            .find(|t| key.starts_with(&format!("{t}.")));
        let ok = match free {
            None => fixed.contains(&key),
            Some(table) => {
                let t = selected(&tables, &tree, table);
                // A table-valued parameter (e.g. `request_size = { "4KiB" = 1 }`) is one key.
                t.keys.iter().any(|k| key == k.key || key.starts_with(&format!("{}.", k.key)))
            }
        };
        assert!(ok, "{what}: config key `{key}` is not in docs/config.md");
    }
}

#[test]
fn every_key_of_every_preset_is_documented() {
    for p in flashlab::presets::PRESETS {
        let cfg = Config::load_named(p.name, &[]).unwrap_or_else(|e| panic!("preset {}: {e}", p.name));
        check_config_documented(&cfg, p.name);
    }
}

/// A small fully-defaulted run's config, with overrides.
fn small(sets: &[&str]) -> Config {
    try_small(sets).unwrap_or_else(|e| panic!("{sets:?}: {e}"))
}

/// [`small`], or the error loading it.
fn try_small(sets: &[&str]) -> Result<Config, flashlab::Error> {
    let mut all: Vec<String> = [
        "workload.volume_ratio=0.5",
        "device.blocks_per_plane=64",
        "precondition.overwrite=0.2",
        "ftl.striping=\"full\"",
    ]
    .map(String::from)
    .to_vec();
    all.extend(sets.iter().map(|s| s.to_string()));
    Config::load_named("default", &all)
}

/// Every documented parameter of every policy is accepted with its default value, and a key
/// that is not documented is refused: the reference and the parsers agree.
#[test]
fn every_policy_accepts_its_documented_parameters_and_refuses_others() {
    for t in reference::param_tables() {
        let select = format!("{}=\"{}\"", t.selector, t.name);
        let base: Vec<String> = match t.table {
            "workload" if t.name == "trace" => vec![
                "workload={}".into(),
                "workload.kind=\"trace\"".into(),
                "workload.path=\"builtin:msnfs\"".into(),
                "host.out_of_range=\"wrap\"".into(),
            ],
            "workload" if t.name == "streams" => vec![
                "workload={}".into(),
                select.clone(),
                "workload.volume=\"1MiB\"".into(),
                "workload.streams=[{ kind = \"uniform\", share = 1.0 }]".into(),
            ],
            "workload" => vec!["workload={}".into(), select.clone()],
            "buffer.params" => {
                let both = ["cbm", "dwb"].contains(&t.name);
                let sizes: &[&str] = match t.name {
                    "none" => &[],
                    _ if both => &["buffer.dram=\"256KiB\"", "buffer.nvram=\"256KiB\""],
                    _ => &["buffer.dram=\"256KiB\""],
                };
                std::iter::once(select.clone()).chain(sizes.iter().map(|s| s.to_string())).collect()
            }
            // Host placement needs the device's handles, and the policy its required parameters.
            "host.placement" => {
                // A host and a GC stream per handle, open on every plane: more spare space.
                let mut sets =
                    vec![select.clone(), "ftl.placement.handles=2".into(), "device.over_provisioning=0.25".into()];
                let entry = flashlab::host::placement::PLACEMENTS.find(t.name).unwrap();
                sets.extend(entry.caps.required.iter().map(|s| s.to_string()));
                sets
            }
            // Zones are written by the host's log (and the log needs zones).
            "ftl.mapping_params" | "host.layer_params" if t.name == "zns" || t.name == "log" => {
                vec![
                    select.clone(),
                    "ftl.mapping=\"zns\"".into(),
                    "host.layer=\"log\"".into(),
                    "ftl.gc_unit=\"line\"".into(),
                ]
            }
            // A schedule applies to page-mapped schemes.
            _ => vec![select.clone()],
        };
        let build = |extra: Vec<String>| -> Result<(), flashlab::Error> {
            let sets: Vec<String> = base.iter().cloned().chain(extra).collect();
            let refs: Vec<&str> = sets.iter().map(String::as_str).collect();
            let cfg = try_small(&refs)?;
            sim::validate(&cfg)?;
            let r = cfg.resolve()?;
            let spec = flashlab::ftl::FtlSpec {
                layout: r.layout,
                logical_pages: r.logical_pages,
                config: &cfg.ftl,
                verify: false,
                timing: None,
                seed: 1,
            };
            flashlab::ftl::build(&spec)?;
            let ctx = flashlab::buffer::BufferContext {
                page_size: r.page_size,
                pages_per_block: r.layout.geo.pages_per_block as u64,
                timing: None,
            };
            flashlab::buffer::build(&cfg.buffer, &ctx).map(|_| ())
        };
        build(vec![]).unwrap_or_else(|e| panic!("{select}: {e}"));
        for k in &t.keys {
            if let Some(default) = &k.default {
                build(vec![format!("{}={default}", k.key)])
                    .unwrap_or_else(|e| panic!("{select}: documented `{} = {default}` refused: {e}", k.key));
            }
        }
        let unknown = format!("{}.no_such_parameter=1", t.table);
        assert!(build(vec![unknown.clone()]).is_err(), "{select}: undocumented `{unknown}` accepted");
    }
}

/// results.json of runs covering every mapping scheme, buffer policy, mode and optional section:
/// each key is documented in docs/results.md.
#[test]
fn every_results_key_of_runs_covering_every_scheme_and_buffer_is_documented() {
    let known = documented(&reference::results_keys());
    let mut runs: Vec<Vec<String>> = Vec::new();
    for m in flashlab::ftl::mapping_names() {
        runs.push(vec![format!("ftl.mapping=\"{m}\""), "sim.mode=\"accounting\"".into()]);
    }
    // Zones (lines across the planes: a block per plane would open more zones than the
    // device's 14) under the host's log; FDP handles fed by a host placement policy.
    runs.last_mut().expect("mappings").extend(["host.layer=\"log\"".into(), "ftl.gc_unit=\"line\"".into()]);
    assert!(runs.last().expect("mappings")[0].contains("zns"), "zns is the last mapping");
    runs.push(vec![
        "ftl.placement.handles=2".into(),
        "host.placement.policy=\"sepbit\"".into(),
        "device.over_provisioning=0.25".into(),
    ]);
    for b in flashlab::buffer::names().into_iter().filter(|b| *b != "none") {
        let both = if ["cbm", "dwb"].contains(&b) { "buffer.nvram=\"256KiB\"" } else { "buffer.nvram=0" };
        runs.push(vec![format!("buffer.policy=\"{b}\""), "buffer.dram=\"256KiB\"".into(), both.into()]);
    }
    runs.push(vec![
        "ftl.gc=\"2r++\"".into(),
        "sim.mode=\"timing\"".into(),
        "sim.track_frozen=true".into(),
        "sim.reuse_distance=true".into(),
    ]);
    runs.push(vec![
        "buffer.policy=\"dwb\"".into(),
        "buffer.dram=\"256KiB\"".into(),
        "buffer.nvram=\"256KiB\"".into(),
        "sim.crash_at=50".into(),
    ]);
    let mut seen = BTreeSet::new();
    for sets in runs {
        let refs: Vec<&str> = sets.iter().map(String::as_str).collect();
        let results = sim::run(&small(&refs), &mut sim::Quiet).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
        let json: Value = serde_json::from_str(&results.to_json()).expect("results.json parses");
        let mut keys = BTreeSet::new();
        keys_of("", &json, &mut keys);
        for key in keys.into_iter().filter(|k| k != "config" && !k.starts_with("config.")) {
            // `gc.extra` is a map of policy-specific counters, documented as one key.
            let key = if key.starts_with("gc.extra.") { "gc.extra".to_string() } else { key };
            assert!(known.contains(&key), "{sets:?}: results key `{key}` is not in docs/results.md");
            seen.insert(key);
        }
    }
    for optional in [
        "buffer.crash.lost",
        "mapping.cache.hits",
        "hybrid.full_merges",
        "reuse.histogram",
        "latency_us.read_cdf",
        "placement.handles",
        "zones.resets",
    ] {
        assert!(seen.contains(optional), "the runs should cover `{optional}`");
    }
}

#[test]
fn config_show_text_parses_back_to_the_same_config() {
    let placed = vec![
        "ftl.placement.handles=2",
        "host.placement.policy=\"sepbit\"",
        "host.placement.threshold=0.1",
        "device.over_provisioning=0.25",
    ];
    for sets in [vec![], vec!["ftl.gc=\"2r\"", "ftl.gc_params.threshold=0.3", "ftl.mapping=\"page\""], placed] {
        let cfg = small(&sets);
        let text = reference::annotated_toml(&cfg);
        let again = Config::from_toml_str(&text, "config show", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(serde_json::to_value(&again).unwrap(), serde_json::to_value(&cfg).unwrap(), "{text}");
        for k in reference::config_keys() {
            if k.ty == "table" {
                // An optional table left out is shown commented out.
                let shown = [format!("\n[{}]\n", k.key), format!("\n# [{}]\n", k.key)];
                assert!(shown.iter().any(|t| text.contains(t)), "config show lacks `[{}]`:\n{text}", k.key);
                continue;
            }
            let name = k.key.rsplit('.').next().unwrap();
            let set = format!("\n{name} = ");
            let unset = format!("\n# {name} =");
            assert!(text.contains(&set) || text.contains(&unset), "config show lacks `{}`:\n{text}", k.key);
        }
    }
}
