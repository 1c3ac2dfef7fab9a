//! Commands that look at configs and results without simulating: `config show`, `run
//! --dry-run`, `docs` (the generated references) and `compare` (results side by side).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use flashlab::memory::human_bytes;
use flashlab::{reference, sim, Config};
use serde_json::{json, Map, Value};

use crate::emit;

/// `flashlab config show`: the resolved config with every default and a comment per key.
pub fn config_show(config: &str, sets: &[String]) -> Result<()> {
    let cfg = crate::load_config(config, sets)?;
    sim::validate(&cfg)?;
    emit(format!("# {}{}", cfg.source, sets.iter().map(|s| format!(" --set {s}")).collect::<String>()));
    emit(reference::annotated_toml(&cfg).trim_end());
    Ok(())
}

/// `flashlab run --dry-run`: load and validate, check a trace's first requests as the run
/// would (`sim::check_trace`), then say what would run.
pub fn dry_run(plan: sim::Plan, out: &Path, force: bool) -> Result<()> {
    plan.check_trace()?;
    let (cfg, r) = (plan.config(), *plan.resolved());
    let geo = r.layout.geo;
    let gib = (1u64 << 30) as f64;
    let logical = r.logical_pages * r.page_size;
    let memory = plan.estimate();
    emit(format!("config       {} (valid)", cfg.source));
    emit(format!(
        "device       {:.3} GiB logical / {:.3} GiB physical (OP {:.1}%), {} pages of {} bytes",
        logical as f64 / gib,
        geo.physical_bytes() as f64 / gib,
        r.over_provisioning * 100.0,
        r.logical_pages,
        r.page_size
    ));
    emit(format!(
        "ftl          {} mapping, {}, buffer {}",
        cfg.ftl.mapping,
        flashlab::results::gc_words(cfg, true),
        cfg.buffer.policy
    ));
    if let Some(words) = flashlab::results::host_layer_words(cfg) {
        emit(format!("host layer   {words}"));
    }
    if let Some(p) = &cfg.ftl.placement {
        emit(format!(
            "placement    {} reclaim unit handles, {} isolation, default handle {}",
            p.handles,
            p.isolation.name(),
            p.default_handle
        ));
    }
    let mode = serde_json::to_value(cfg.sim.mode)?;
    emit(format!(
        "workload     {}; {} mode, seed {}",
        flashlab::sim::describe_workload(cfg),
        mode.as_str().unwrap_or("?"),
        cfg.seed
    ));
    emit(format!(
        "memory       at most about {} at peak, of a limit of {}{}",
        human_bytes(memory.total()),
        human_bytes(flashlab::sim::memory_limit(cfg)?),
        if cfg.sim.memory_limit.is_some() { " (sim.memory_limit)" } else { " (available now)" }
    ));
    for (name, bytes) in memory.biggest(usize::MAX).into_iter().filter(|i| i.1 > 0) {
        emit(format!("               {name:<20} {:>10}", human_bytes(bytes)));
    }
    match crate::output::refuse_overwrite(out, &crate::RUN_FILES.map(String::from), force) {
        Ok(()) => {
            emit(format!("dry run      nothing simulated; a run would write {}", out.join("results.json").display()))
        }
        Err(e) => emit(format!("dry run      nothing simulated; a run would be refused: {e}")),
    }
    Ok(())
}

/// After a run: the peak resident memory of this process (Linux `VmHWM`) beside the estimate
/// the config was admitted with; `None` where either is unavailable.
pub fn memory_line(cfg: &Config, estimate: u64) -> Option<String> {
    let peak = flashlab::memory::peak_rss()?;
    // The one structure the estimate cannot bound: the bus transfers booked ahead of the clock
    // by an open-loop timing run whose device falls behind (one per page waiting, ~16 B).
    let behind = cfg.sim.mode == flashlab::config::Mode::Timing && flashlab::sim::open_loop(cfg);
    Some(memory_text(peak, estimate, behind))
}

/// The memory line for a measured `peak` and its `estimate`; `open_loop_timing`: the run may
/// book bus transfers ahead of the clock, which the estimate leaves out. A peak above the
/// estimate is otherwise a warning: the estimate is meant to bound it (sim.memory_limit admits
/// runs by it).
fn memory_text(peak: u64, estimate: u64, open_loop_timing: bool) -> String {
    let over = peak > estimate;
    let mut line = format!(
        "memory       peak {} resident (estimated at most {}{})",
        human_bytes(peak),
        human_bytes(estimate),
        if over && open_loop_timing {
            "; not counted: the bus transfers an open-loop run books ahead when the device falls behind, ~16 B per page waiting"
        } else {
            ""
        }
    );
    if over && !open_loop_timing {
        line.push_str(&format!(
            "\nwarning      the peak exceeded the estimate by {}: sim.memory_limit relies on the estimate being an \
             upper bound; please report this config",
            human_bytes(peak - estimate)
        ));
    }
    line
}

/// `flashlab docs`: print or write `config.md` and `results.md`.
pub fn docs(write: Option<&Path>) -> Result<()> {
    let files = reference::generated_docs();
    match write {
        Some(dir) => {
            let mut staged = crate::output::Staged::new(dir);
            for (name, text) in &files {
                staged.add(name, text.as_bytes())?;
            }
            for path in staged.commit()? {
                emit(format!("wrote        {}", path.display()));
            }
        }
        None => {
            for (_, text) in files {
                emit(text);
            }
        }
    }
    Ok(())
}

/// A results.json, read and checked.
fn read_results(path: &Path) -> Result<Value> {
    let text = flashlab::files::read_text(path, "results")?;
    let v: Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let is_results = ["host", "flash", "sim", "config"].iter().all(|k| v.get(k).is_some_and(Value::is_object));
    if !is_results {
        bail!("{}: not a flashlab results.json (no host / flash / sim / config objects)", path.display());
    }
    Ok(v)
}

/// Scalars under dotted keys, in document order. Numbers only, or every scalar (strings and
/// booleans as JSON text, arrays as JSON text) with `all`.
fn flatten(prefix: &str, v: &Value, all: bool, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, sub) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, sub, all, out);
            }
        }
        Value::Number(_) => out.push((prefix.to_string(), v.clone())),
        Value::Null if !all => out.push((prefix.to_string(), Value::Null)),
        _ if all => out.push((prefix.to_string(), v.clone())),
        _ => {}
    }
}

/// The union of keys, in the first file's order, then keys only later files have.
fn union(flats: &[Vec<(String, Value)>]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for f in flats {
        for (k, _) in f {
            if seen.insert(k.clone()) {
                keys.push(k.clone());
            }
        }
    }
    keys
}

fn lookup<'a>(flat: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    flat.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `flashlab compare`: config keys that differ, then every scalar result with ratios to the first.
pub fn compare(files: &[PathBuf], as_json: bool, keys: &[String]) -> Result<()> {
    if files.len() < 2 {
        bail!("compare needs at least two results.json files");
    }
    let docs: Vec<Value> = files.iter().map(|f| read_results(f)).collect::<Result<_>>()?;
    let configs: Vec<Vec<(String, Value)>> = docs
        .iter()
        .map(|d| {
            let mut out = Vec::new();
            flatten("config", &d["config"], true, &mut out);
            out
        })
        .collect();
    let results: Vec<Vec<(String, Value)>> = docs
        .iter()
        .map(|d| {
            let mut out = Vec::new();
            let mut m = d.as_object().cloned().unwrap_or_default();
            m.remove("config");
            flatten("", &Value::Object(m), false, &mut out);
            out
        })
        .collect();
    let mut differing = Vec::new();
    for key in union(&configs) {
        let values: Vec<Value> = configs.iter().map(|c| lookup(c, &key).cloned().unwrap_or(Value::Null)).collect();
        if values.iter().any(|v| v != &values[0]) {
            differing.push((key, values));
        }
    }
    let mut rows = Vec::new();
    for key in union(&results) {
        let values: Vec<Value> = results.iter().map(|r| lookup(r, &key).cloned().unwrap_or(Value::Null)).collect();
        if values.iter().all(Value::is_null) {
            continue; // a section no run has (e.g. `hybrid` on page mapping)
        }
        let ratios: Vec<Option<f64>> = values.iter().map(|v| ratio(v, &values[0])).collect();
        rows.push((key, values, ratios));
    }
    if !keys.is_empty() {
        let patterns: Vec<&str> = keys.iter().map(|k| k.trim()).filter(|k| !k.is_empty()).collect();
        for p in &patterns {
            if !rows.iter().any(|r| key_matches(p, &r.0)) {
                let some: Vec<&str> = rows.iter().take(6).map(|r| r.0.as_str()).collect();
                bail!(
                    "--keys: no results key matches `{p}` (keys look like {}, …; a section such as `flash` or a pattern such as `latency_us.*.p99` matches several)",
                    some.join(", ")
                );
            }
        }
        rows.retain(|r| patterns.iter().any(|p| key_matches(p, &r.0)));
    }
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    if as_json {
        let cfg: Vec<Value> = differing.iter().map(|(k, v)| json!({ "key": k, "values": v })).collect();
        let res: Vec<Value> =
            rows.iter().map(|(k, v, r)| json!({ "key": k, "values": v, "ratios": r[1..].to_vec() })).collect();
        let mut top = Map::new();
        top.insert("files".into(), json!(names));
        top.insert("config_differences".into(), Value::Array(cfg));
        top.insert("results".into(), Value::Array(res));
        emit(serde_json::to_string_pretty(&Value::Object(top))?);
        return Ok(());
    }
    emit(compare_table(&names, &differing, &rows));
    Ok(())
}

/// Does `--keys` pattern `p` select results key `key`: the key itself, a section of it
/// (`flash` selects `flash.erases`), or a pattern where `*` stands for any run of characters.
fn key_matches(p: &str, key: &str) -> bool {
    if !p.contains('*') {
        return key == p || key.strip_prefix(p).is_some_and(|rest| rest.starts_with('.'));
    }
    let parts: Vec<&str> = p.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !key.starts_with(first) || key.len() < first.len() + last.len() || !key.ends_with(last) {
        return false;
    }
    let mut rest = &key[first.len()..key.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

/// `b / a` for two numbers, `a` nonzero.
fn ratio(b: &Value, a: &Value) -> Option<f64> {
    let (a, b) = (a.as_f64()?, b.as_f64()?);
    (a != 0.0).then(|| b / a)
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (_, Some(i), _) => i.to_string(),
            (_, _, Some(f)) if f.abs() >= 1e6 || (f != 0.0 && f.abs() < 1e-3) => format!("{f:.4e}"),
            (_, _, Some(f)) => format!("{f:.4}"),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

type Row = (String, Vec<Value>, Vec<Option<f64>>);

/// The text table: a legend of the files, differing config keys, then key | A | B | B/A | ….
fn compare_table(names: &[String], differing: &[(String, Vec<Value>)], rows: &[Row]) -> String {
    let letters: Vec<String> = (0..names.len()).map(label).collect();
    let mut out = String::new();
    for (l, n) in letters.iter().zip(names) {
        out.push_str(&format!("{l}  {n}\n"));
    }
    let mut header = vec!["key".to_string()];
    for (i, l) in letters.iter().enumerate() {
        header.push(l.clone());
        if i > 0 {
            header.push(format!("{l}/{}", letters[0]));
        }
    }
    let mut table: Vec<Vec<String>> = vec![header];
    if !differing.is_empty() {
        for (k, vals) in differing {
            let mut line = vec![k.clone()];
            for (i, v) in vals.iter().enumerate() {
                line.push(cell(v));
                if i > 0 {
                    line.push(String::new());
                }
            }
            table.push(line);
        }
    }
    let config_rows = table.len();
    for (k, vals, ratios) in rows {
        let mut line = vec![k.clone()];
        for (i, v) in vals.iter().enumerate() {
            line.push(cell(v));
            if i > 0 {
                line.push(ratios[i].map_or("-".into(), |r| format!("{r:.3}")));
            }
        }
        table.push(line);
    }
    let widths: Vec<usize> =
        (0..table[0].len()).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    out.push('\n');
    for (i, r) in table.iter().enumerate() {
        if i == 1 && config_rows > 1 {
            out.push_str("# config keys that differ\n");
        }
        if i == config_rows {
            out.push_str("# results\n");
        }
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| if c == 0 { format!("{s:<w$}", w = widths[c]) } else { format!("{s:>w$}", w = widths[c]) })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// A, B, …, Z, then A1, B1, ….
fn label(i: usize) -> String {
    let c = (b'A' + (i % 26) as u8) as char;
    if i < 26 {
        c.to_string()
    } else {
        format!("{c}{}", i / 26)
    }
}

#[cfg(test)]
mod tests {
    use super::{key_matches, memory_text};

    #[test]
    fn compare_keys_match_a_key_a_section_or_a_pattern() {
        assert!(key_matches("waf", "waf") && !key_matches("waf", "waf_ftl"));
        assert!(key_matches("flash", "flash.erases") && !key_matches("flash", "flashy.x"));
        assert!(key_matches("latency_us.*.p99", "latency_us.read.p99"));
        assert!(!key_matches("latency_us.*.p99", "latency_us.read.p999"));
        assert!(key_matches("*erases*", "flash.erases") && key_matches("*", "anything"));
        assert!(!key_matches("a*a", "a") && key_matches("a*a", "aa"));
    }

    #[test]
    fn a_peak_above_the_estimate_is_a_warning_unless_the_estimate_says_why() {
        let fine = memory_text(100 << 20, 120 << 20, false);
        assert!(!fine.contains("warning"), "{fine}");
        let over = memory_text(130 << 20, 120 << 20, false);
        assert!(over.contains("\nwarning      the peak exceeded the estimate by 10.0 MiB"), "{over}");
        let behind = memory_text(130 << 20, 120 << 20, true);
        assert!(!behind.contains("warning") && behind.contains("not counted"), "{behind}");
    }
}
