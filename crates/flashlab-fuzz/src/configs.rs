//! The `config` target: type-correct random configuration trees, parsed and, when valid, run.
//!
//! Where the keys come from: `flashlab::reference::config_keys` (every key of the config's JSON
//! schema, with its type) and `flashlab::reference::param_tables` (every registry entry's
//! parameter schema: GC policies, schedules, mappings, buffers, generators, traces), so a key or
//! policy added to the code is fuzzed without an edit here. Values come from `values` (edges
//! and small ordinary values); names from the reference's choices plus unknown and empty ones.
//!
//! A case starts from a tiny valid config (most cases), a preset, or nothing; sets a random
//! subset of keys; picks each parameter table's entry from its selector (sometimes another
//! entry's keys, to test rejection); sometimes adds an unknown key.
//!
//! What the harness forces, and why (so a case stays cheap, not to hide a failure):
//! - `sim.memory_limit` ≤ [`MEMORY_CAP`] (≤ [`CHECK_MEMORY_CAP`] with `sim.check`, which costs
//!   O(device) per page operation, and which only [`CHECK_KEPT`] of the cases drawing it keep):
//!   a valid case simulates a small device. A generated limit
//!   below the cap is kept, and so is, half the time, a malformed one (to test its error).
//! - the run is bounded by [`crate::Bounded`]: ≤ ~16 k measured requests and ≤ ~65 k
//!   preconditioning page writes per phase, then `Error::Interrupted` (counted as accepted).
//!   Nothing else is changed; the forced key is in the printed TOML, so `flashlab run` on it
//!   replays the case.

use std::sync::OnceLock;

use rand::RngExt;

use crate::{values, Rng, Verdict};
use flashlab::reference::{self, Key, ParamTable};

/// Largest `sim.memory_limit` a case runs with: 64 MiB (about 8 M physical pages).
pub const MEMORY_CAP: u64 = 64 << 20;
/// Largest `sim.memory_limit` with `sim.check` on: 64 KiB (a few thousand pages; check mode
/// validates the whole device after every page operation).
pub const CHECK_MEMORY_CAP: u64 = 64 << 10;
/// Share of the cases that draw `sim.check = true` and keep it (the rest turn it off): check
/// mode costs O(device) per page operation, so it is drawn less often than other keys.
pub const CHECK_KEPT: f64 = 0.25;
/// The source name errors carry.
pub const SOURCE: &str = "fuzz.toml";

/// A generated configuration tree.
#[derive(Clone, Debug)]
pub struct ConfigCase {
    pub table: toml::Table,
}

/// What generation reads from the reference, computed once.
struct Schema {
    /// Leaf keys of the config (no section headers, no free tables).
    keys: Vec<Key>,
    tables: Vec<ParamTable>,
    /// Candidate `workload.path` values.
    paths: Vec<String>,
}

fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let keys = reference::config_keys().into_iter().filter(|k| k.key != k.section && k.ty != "table").collect();
        let mut paths: Vec<String> = flashlab::workload::trace::builtin::BUILTINS
            .iter()
            .map(|b| format!("{}{}", flashlab::workload::trace::builtin::PREFIX, b.name))
            .collect();
        paths.extend(crate::traces::data_files().into_iter().map(|p| p.display().to_string()));
        paths.extend(["builtin:nope".to_string(), "/nonexistent/trace.csv".to_string(), String::new()]);
        Schema { keys, tables: reference::param_tables(), paths }
    })
}

/// Candidate strings for a string key.
fn strings_for(key: &str) -> Vec<String> {
    let owned = |v: Vec<&str>| v.into_iter().map(str::to_string).collect();
    match key {
        "workload.path" => schema().paths.clone(),
        "workload.format" => owned(flashlab::workload::trace::format_names()),
        "workload.time_unit" => owned(vec!["ns", "us", "ms", "s"]),
        _ => owned(vec!["fuzz", "x"]),
    }
}

/// Set a dotted key, creating tables on the way (a non-table in the way is replaced).
fn set(table: &mut toml::Table, key: &str, value: toml::Value) {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().unwrap_or(key);
    let mut t = table;
    for p in parts {
        let slot = t.entry(p).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !slot.is_table() {
            *slot = toml::Value::Table(toml::Table::new());
        }
        let toml::Value::Table(next) = slot else { unreachable!("made a table above") };
        t = next;
    }
    t.insert(last.to_string(), value);
}

fn get<'a>(table: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
    let mut parts = key.split('.');
    let mut v = table.get(parts.next()?)?;
    for p in parts {
        v = v.as_table()?.get(p)?;
    }
    Some(v)
}

fn remove(table: &mut toml::Table, key: &str) -> Option<toml::Value> {
    match key.split_once('.') {
        None => table.remove(key),
        Some((head, rest)) => remove(table.get_mut(head)?.as_table_mut()?, rest),
    }
}

/// Every leaf of a tree as a dotted key (tables that are empty count as leaves).
fn leaves(table: &toml::Table, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::Table(t) if !t.is_empty() => leaves(t, &key, out),
            _ => out.push(key),
        }
    }
}

/// A small valid config: one to a few planes of a few blocks, a generator of a few requests.
fn tiny(rng: &mut Rng) -> toml::Table {
    let mut t = toml::Table::new();
    set(&mut t, "device.blocks_per_plane", toml::Value::Integer(rng.random_range(32..=128)));
    set(&mut t, "device.over_provisioning", toml::Value::Float(rng.random_range(0.15..=0.5)));
    set(&mut t, "device.pages_per_block", toml::Value::Integer(1 << rng.random_range(2..=6)));
    if rng.random_bool(0.5) {
        set(&mut t, "device.planes_per_die", toml::Value::Integer(rng.random_range(1..=4)));
    }
    let kinds = flashlab::workload::gen::GENERATORS.names();
    set(&mut t, "workload.kind", toml::Value::String(kinds[rng.random_range(0..kinds.len())].into()));
    set(&mut t, "workload.requests", toml::Value::Integer(rng.random_range(1..=2000)));
    t
}

/// Generate one case.
pub fn generate(rng: &mut Rng) -> ConfigCase {
    let mut table = match rng.random_range(0..10) {
        0..=6 => tiny(rng),
        7 | 8 => {
            let p = &flashlab::presets::PRESETS[rng.random_range(0..flashlab::presets::PRESETS.len())];
            p.text.parse().unwrap_or_default()
        }
        _ => toml::Table::new(),
    };
    let s = schema();
    let rate = [0.03, 0.08, 0.2][rng.random_range(0..3)];
    let wild = rng.random_bool(0.5);
    for k in &s.keys {
        if rng.random_bool(rate) {
            set(&mut table, &k.key, values::of_type(rng, &k.ty, &strings_for(&k.key), wild));
        } else if rng.random_bool(0.01) {
            remove(&mut table, &k.key);
        }
    }
    if rng.random_bool(0.15) {
        geometry(rng, &mut table);
    }
    workload(rng, &mut table);
    params(rng, &mut table, wild);
    if rng.random_bool(0.02) {
        let key = ["bogus", "device.bogus", "ftl.gc_params.bogus", "workload.bogus"][rng.random_range(0..4)];
        set(&mut table, key, toml::Value::Integer(1));
    }
    if rng.random_bool(0.01) {
        // A type error: a string where anything else is.
        let k = &s.keys[rng.random_range(0..s.keys.len())];
        set(&mut table, &k.key, toml::Value::String("1".into()));
    }
    force_memory_limit(rng, &mut table);
    ConfigCase { table }
}

/// Every geometry count at once, over the whole `u32` range (powers of two and their
/// neighbours most often): where products of counts overflow.
fn geometry(rng: &mut Rng, table: &mut toml::Table) {
    let counts =
        ["channels", "chips_per_channel", "dies_per_chip", "planes_per_die", "blocks_per_plane", "pages_per_block"];
    for key in counts {
        let v: i64 = match rng.random_range(0..4) {
            0 => rng.random_range(1..=8),
            1 => (1i64 << rng.random_range(0..=32)) + rng.random_range(-1..=1),
            2 => u32::MAX as i64,
            _ => rng.random_range(0..=u32::MAX as i64),
        };
        set(table, &format!("device.{key}"), toml::Value::Integer(v));
    }
}

/// Sometimes switch the workload kind (clearing the old kind's keys).
fn workload(rng: &mut Rng, table: &mut toml::Table) {
    if !rng.random_bool(0.3) {
        return;
    }
    let mut kinds = flashlab::workload::gen::GENERATORS.names();
    kinds.push("trace");
    let kind = kinds[rng.random_range(0..kinds.len())];
    set(table, "workload", toml::Value::Table(toml::Table::new()));
    set(table, "workload.kind", toml::Value::String(kind.into()));
    if kind == "trace" {
        let paths = &schema().paths;
        set(table, "workload.path", toml::Value::String(paths[rng.random_range(0..paths.len())].clone()));
    }
}

/// Fill parameter tables: each table's keys of the entry its selector names (sometimes another
/// entry's, which must be refused).
fn params(rng: &mut Rng, table: &mut toml::Table, wild: bool) {
    let tables = &schema().tables;
    let mut names: Vec<&str> = tables.iter().map(|t| t.table).collect();
    names.dedup();
    for name in names {
        if !rng.random_bool(0.4) {
            continue;
        }
        let entries: Vec<&ParamTable> = tables.iter().filter(|t| t.table == name).collect();
        let random = entries[rng.random_range(0..entries.len())];
        // The entry the selector names, except now and then (its keys must then be refused):
        // the workload's kind is kept (switching it is `workload`'s job); the policies' selectors
        // are set to a random entry.
        let entry = if name == "workload" {
            let kind = get(table, random.selector).and_then(|v| v.as_str()).map(str::to_string);
            match entries.iter().find(|e| Some(e.name) == kind.as_deref()) {
                Some(e) if rng.random_bool(0.9) => *e,
                _ => random,
            }
        } else {
            if rng.random_bool(0.9) {
                set(table, random.selector, toml::Value::String(random.name.into()));
                if name == "buffer.params" && random.name != "none" && get(table, "buffer.dram").is_none() {
                    set(table, "buffer.dram", toml::Value::Integer(4096 << rng.random_range(0..8)));
                }
            }
            random
        };
        let prob = rng.random_range(0.2..=1.0);
        for k in entry.keys.iter().filter(|k| k.key != entry.selector) {
            if rng.random_bool(prob) {
                set(table, &k.key, values::of_type(rng, &k.ty, &strings_for(&k.key), wild));
            }
        }
    }
}

/// `sim.memory_limit` at most the cap (see the module comment); `sim.check` thinned out.
fn force_memory_limit(rng: &mut Rng, table: &mut toml::Table) {
    let mut check = matches!(get(table, "sim.check"), Some(toml::Value::Boolean(true)));
    if check && !rng.random_bool(CHECK_KEPT) {
        set(table, "sim.check", toml::Value::Boolean(false));
        check = false;
    }
    let cap = if check { CHECK_MEMORY_CAP } else { MEMORY_CAP };
    let given = match get(table, "sim.memory_limit") {
        Some(toml::Value::Integer(n)) => Some(u64::try_from(*n).ok()),
        Some(toml::Value::String(s)) => Some(flashlab::units::parse_size(s).ok()),
        Some(_) => Some(None),
        None => None,
    };
    let keep = match given {
        Some(Some(n)) => n <= cap,
        Some(None) => rng.random_bool(0.5),
        None => false,
    };
    if !keep {
        set(table, "sim.memory_limit", toml::Value::Integer(cap as i64));
    }
}

impl ConfigCase {
    /// The tree as TOML text (what `flashlab run` replays).
    pub fn toml(&self) -> String {
        toml::to_string(&self.table).unwrap_or_else(|e| format!("# not printable as TOML ({e}): {:?}", self.table))
    }

    /// Parse, and run when valid (bounded, see the module comment).
    pub fn run(&self) -> Verdict {
        let cfg = match flashlab::Config::from_table(self.table.clone(), SOURCE, &[]) {
            Ok(cfg) => cfg,
            Err(e) => return crate::judge::<()>(Err(e), located),
        };
        crate::judge(flashlab::sim::run(&cfg, &mut crate::Bounded::new()), located)
    }

    /// Remove keys one at a time while the case still panics at `location` (at most a few
    /// hundred runs).
    pub fn minimise(&self, location: &str) -> ConfigCase {
        let mut best = self.clone();
        // Two passes: tables emptied by the first are removed by the second.
        for _ in 0..2 {
            let mut keys = Vec::new();
            leaves(&best.table, "", &mut keys);
            for key in keys.into_iter().take(300) {
                let mut trial = best.clone();
                remove(&mut trial.table, &key);
                let still = matches!(
                    crate::run_caught(&crate::Case::Config(trial.clone())),
                    crate::Outcome::Panic { location: l, .. } if l == location
                );
                if still {
                    best = trial;
                }
            }
        }
        best
    }
}

/// A config error is located when it names a key, a file or a field.
fn located(e: &flashlab::Error) -> bool {
    match e {
        flashlab::Error::Config { key, .. } => !key.is_empty(),
        flashlab::Error::Input { at, .. } => !at.file.is_empty(),
        flashlab::Error::Io { path, .. } => !path.is_empty(),
        _ => true,
    }
}
