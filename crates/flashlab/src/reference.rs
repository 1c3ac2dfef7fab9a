//! Reference documentation generated from the code: every configuration key and every
//! `results.json` key, with its type, default, unit and description, read from JSON schemas that
//! `schemars` derives from the config and results types (doc comments become descriptions, serde
//! attributes give names and defaults), and every policy's parameter table from the parameter
//! struct its parser uses. `docs/config.md` and `docs/results.md` are this module's output
//! (`flashlab docs --write .`, with the JSON Schemas and `python/flashlab/schema.py`); a test fails when they differ, so they cannot drift.
//!
//! Owns: the schema walk ([`config_keys`], [`results_keys`], [`param_tables`]), the Markdown
//! ([`config_markdown`], [`results_markdown`]) and the annotated TOML of `flashlab config show`
//! ([`annotated_toml`]). Does no I/O.
//!
//! Units: a key's unit comes from an explicit `x-unit` in its schema
//! (`#[schemars(extend("x-unit" = "pages"))]`), else from its type ([`ByteSize`](crate::units::ByteSize):
//! bytes), else from the unit suffix of its name (`_us`, `_ns`, `_s`, `_bytes`, `_mb_s`, …).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

use crate::config::Config;
use crate::results::Results;

/// The schema of a free-form parameter table (`ftl.gc_params`, `[workload]`, …): any keys, each
/// parsed by the policy the table belongs to. Its keys are listed under "Parameter tables".
pub struct FreeTable;

impl JsonSchema for FreeTable {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FreeTable".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({ "type": "object", "x-free-table": true })
    }
}

/// One documented key.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// Dotted path (`device.page_size`; `series[].erases` for a field of an array's tables).
    pub key: String,
    /// `integer`, `number`, `string`, `boolean`, `size`, `table`, `` `a` | `b` ``, `array of …`;
    /// ` or null` when absent values are written as null (results) / the key may be left out.
    pub ty: String,
    /// The default as TOML / JSON text, when the key has one.
    pub default: Option<String>,
    /// Unit (`bytes`, `µs`, `pages`, …), empty when the value has none or the description says it.
    pub unit: String,
    /// One line.
    pub description: String,
    /// The top-level key this one belongs to (`device`; empty for top-level scalars).
    pub section: String,
}

/// A policy's parameter table: the keys `[table]` accepts when `selector = name`.
#[derive(Clone, Debug)]
pub struct ParamTable {
    /// The table (`ftl.gc_params`, `ftl.gc_schedule_params`, `ftl.mapping_params`, `workload`).
    pub table: &'static str,
    /// The key that chooses the policy (`ftl.gc`, `workload.kind`, …).
    pub selector: &'static str,
    /// The policy's registry name.
    pub name: &'static str,
    /// Its keys (dotted under `table`).
    pub keys: Vec<Key>,
}

/// A registry entry's parameter schema: the JSON schema of the struct its parser deserializes
/// the table into ([`schema_of`]), or [`no_params`].
pub type ParamsFn = fn() -> Schema;

/// The parameter schema of `T` (for a registry entry's `params` field).
pub fn schema_of<T: JsonSchema>() -> Schema {
    SchemaSettings::draft2020_12().for_deserialize().into_generator().into_root_schema_for::<T>()
}

/// The parameter schema of a policy that takes no parameters.
pub fn no_params() -> Schema {
    schemars::json_schema!({ "type": "object", "properties": {} })
}

/// A parameter written by hand (for tables parsed key by key, such as the generators' common
/// keys), as a schema property.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    /// Type as shown in the reference.
    pub ty: &'static str,
    /// Default as TOML text ("" when there is none).
    pub default: &'static str,
    pub unit: &'static str,
    pub doc: &'static str,
}

/// A hand-written parameter list as a schema (properties in the given order).
pub fn params_schema(params: &[Param]) -> Schema {
    let mut props = Map::new();
    for p in params {
        let mut s = Map::new();
        s.insert("x-type".into(), p.ty.into());
        if !p.default.is_empty() {
            let v: toml::Value = format!("v = {}", p.default)
                .parse::<toml::Table>()
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| panic!("parameter {}'s default `{}` is not TOML", p.name, p.default));
            s.insert("default".into(), serde_json::to_value(v).expect("TOML value as JSON"));
        }
        if !p.unit.is_empty() {
            s.insert("x-unit".into(), p.unit.into());
        }
        s.insert("description".into(), p.doc.into());
        props.insert(p.name.into(), Value::Object(s));
    }
    Schema::try_from(serde_json::json!({ "type": "object", "properties": props })).expect("an object schema")
}

/// JSON schema of the configuration (what `Config` deserializes).
pub fn config_schema() -> Value {
    let g = SchemaSettings::draft2020_12().for_deserialize().into_generator();
    g.into_root_schema_for::<Config>().to_value()
}

/// Every generated reference file, by its path from the repository root: the Markdown
/// references, the JSON Schemas of the config and of `results.json` they are read from (for
/// editors, validators and bindings in other languages), and the Python package's typed view of
/// both ([`python_types`]). `flashlab docs --write .` writes them.
pub fn generated_docs() -> Vec<(&'static str, String)> {
    let json = |v: Value| serde_json::to_string_pretty(&v).expect("a schema serialises") + "\n";
    vec![
        ("docs/config.md", config_markdown()),
        ("docs/results.md", results_markdown()),
        ("docs/config.schema.json", json(config_schema())),
        ("docs/results.schema.json", json(results_schema())),
        ("python/flashlab/schema.py", python_types()),
    ]
}

/// `python/flashlab/schema.py`: the `results.json` document and the resolved config as Python
/// `TypedDict`s (and `Literal` aliases for enums), generated from the results schema (which
/// holds the config's), so a type checker sees `Result.summary` with the keys Rust writes.
pub fn python_types() -> String {
    let schema = results_schema();
    let mut out = String::from(
        "\"\"\"Types of ``results.json`` (``Result.summary``) and of the resolved config, generated by\n\
         ``flashlab docs --write .`` from docs/results.schema.json (the Rust types); do not edit: a\n\
         test fails when this file differs from what the code generates.\n\"\"\"\n\n\
         from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict\n\n",
    );
    let mut defs: Vec<(&String, &Value)> =
        schema.get("$defs").and_then(Value::as_object).map(|d| d.iter().collect()).unwrap_or_default();
    let root = "Results".to_string();
    defs.push((&root, &schema));
    defs.sort_by(|a, b| a.0.cmp(b.0));
    for (name, def) in defs {
        match def.get("properties").and_then(Value::as_object) {
            Some(props) => {
                out.push_str(&comment_lines(def, ""));
                out.push_str(&format!("{name} = TypedDict(\"{name}\", {{\n"));
                for (key, prop) in props {
                    out.push_str(&comment_lines(prop, "    "));
                    out.push_str(&format!("    \"{key}\": {},\n", py_type(prop)));
                }
                out.push_str("})\n\n");
            }
            None => out.push_str(&format!("{}{name} = {}\n\n", comment_lines(def, ""), py_type(def))),
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// A schema's description as `#:` comment lines (none when it has none), indented by `indent`.
fn comment_lines(v: &Value, indent: &str) -> String {
    let text = v.get("description").and_then(Value::as_str).unwrap_or("");
    text.lines().map(|l| format!("{indent}#: {}\n", l.trim_end())).collect()
}

/// The Python type of a schema node (`$ref`s as quoted forward references).
fn py_type(v: &Value) -> String {
    if let Some(r) = v.get("$ref").and_then(Value::as_str) {
        return format!("\"{}\"", r.trim_start_matches("#/$defs/"));
    }
    if let Some(c) = v.get("const") {
        return format!("Literal[{c}]");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = v.get(key).and_then(Value::as_array) {
            let null = alts.iter().any(|a| a.get("type").and_then(Value::as_str) == Some("null"));
            let rest: Vec<&Value> =
                alts.iter().filter(|a| a.get("type").and_then(Value::as_str) != Some("null")).collect();
            let consts: Option<Vec<String>> = rest.iter().map(|a| a.get("const").map(Value::to_string)).collect();
            let inner = match (consts, rest.as_slice()) {
                (Some(c), _) if !c.is_empty() => format!("Literal[{}]", c.join(", ")),
                (_, [one]) => py_type(one),
                _ => "Any".to_string(),
            };
            return if null { format!("Optional[{inner}]") } else { inner };
        }
    }
    if let Some(values) = v.get("enum").and_then(Value::as_array) {
        let items: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("Literal[{}]", items.join(", "));
    }
    let types: Vec<&str> = match v.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let null = types.contains(&"null");
    let base = match types.iter().find(|t| **t != "null").copied() {
        Some("integer") => "int".to_string(),
        Some("number") => "float".to_string(),
        Some("string") => "str".to_string(),
        Some("boolean") => "bool".to_string(),
        Some("array") => match (v.get("prefixItems").and_then(Value::as_array), v.get("items")) {
            (Some(items), _) => format!("Tuple[{}]", items.iter().map(py_type).collect::<Vec<_>>().join(", ")),
            (None, Some(items)) => format!("List[{}]", py_type(items)),
            _ => "List[Any]".to_string(),
        },
        Some("object") => match v.get("additionalProperties") {
            Some(inner @ Value::Object(_)) => format!("Dict[str, {}]", py_type(inner)),
            _ => "Dict[str, Any]".to_string(),
        },
        _ => "Any".to_string(),
    };
    if null {
        format!("Optional[{base}]")
    } else {
        base
    }
}

/// JSON schema of `results.json` (what `Results` serializes).
pub fn results_schema() -> Value {
    let g = SchemaSettings::draft2020_12().for_serialize().into_generator();
    g.into_root_schema_for::<Results>().to_value()
}

/// Every configuration key (sorted by key within each table). A key naming a policy lists its
/// registry's names as its type; TOML has no null, so an optional key is one that may be left
/// out.
pub fn config_keys() -> Vec<Key> {
    let registries: [(&str, Vec<&str>); 5] = [
        ("ftl.mapping", crate::ftl::mapping_names()),
        ("ftl.gc", crate::ftl::gc::names()),
        ("ftl.gc_schedule", crate::ftl::schedule::names()),
        ("buffer.policy", crate::buffer::names()),
        ("host.layer", crate::host::names()),
    ];
    let mut keys = walk(&config_schema(), &[]);
    for k in &mut keys {
        k.ty = k.ty.trim_end_matches(" or null").to_string();
        if let Some((_, names)) = registries.iter().find(|(key, _)| *key == k.key) {
            k.ty = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" \\| ");
        }
    }
    keys
}

/// Every `results.json` key, sorted by key within each table (`config` is the configuration, documented in
/// [`config_keys`], and not expanded).
pub fn results_keys() -> Vec<Key> {
    walk(&results_schema(), &["config"])
}

/// Walk a root schema into keys; `opaque` keys are listed but not expanded.
fn walk(root: &Value, opaque: &[&str]) -> Vec<Key> {
    let empty = Map::new();
    let defs = root.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let mut w = Walker { defs, opaque, out: Vec::new() };
    w.object("", "", "", root);
    w.out
}

struct Walker<'a> {
    defs: &'a Map<String, Value>,
    opaque: &'a [&'a str],
    out: Vec<Key>,
}

impl<'a> Walker<'a> {
    /// Follow a `$ref` into `$defs` (one level; schemars never chains them).
    fn resolve(&self, s: &'a Value) -> &'a Value {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.trim_start_matches("#/$defs/");
                self.defs.get(name).unwrap_or_else(|| panic!("schema $ref {r} not in $defs"))
            }
            None => s,
        }
    }

    /// `Option<T>`: the schema of `T` and whether null is allowed.
    fn unwrap_null(&self, s: &'a Value) -> (&'a Value, bool) {
        let s = self.resolve(s);
        if let Some(alts) = s.get("anyOf").or_else(|| s.get("oneOf")).and_then(Value::as_array) {
            let non_null: Vec<&Value> = alts.iter().filter(|a| a.get("type") != Some(&"null".into())).collect();
            if non_null.len() == 1 && alts.len() == 2 {
                return (self.resolve(non_null[0]), true);
            }
        }
        let nullable = match s.get("type") {
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
            _ => false,
        };
        (s, nullable)
    }

    fn is_table(s: &Value) -> bool {
        s.get("properties").is_some() && s.get("x-free-table").is_none()
    }

    /// The keys of an object schema under `prefix`; `inherited` is the unit a parent's name
    /// gives its numbers (`latency_us.read.mean` is in µs).
    fn object(&mut self, prefix: &str, section: &str, inherited: &str, schema: &'a Value) {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
        for (name, prop) in props {
            let key = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
            let section = if prefix.is_empty() { name.as_str() } else { section };
            let (inner, nullable) = self.unwrap_null(prop);
            let description = one_line(
                prop.get("description").or_else(|| inner.get("description")).and_then(Value::as_str).unwrap_or(""),
            );
            let default = prop.get("default").filter(|d| !d.is_null()).map(render_value);
            let opaque = self.opaque.contains(&key.as_str());
            let item = inner.get("items").map(|i| self.resolve(i));
            let (ty, expand, variants) = if Self::is_table(inner) && !opaque {
                ("table".to_string(), Some((key.clone(), inner)), String::new())
            } else if let Some(item) = item.filter(|i| Self::is_table(i)) {
                ("array of tables".to_string(), Some((format!("{key}[]"), item)), String::new())
            } else {
                let (ty, variants) = self.type_of(inner, opaque);
                (ty, None, variants)
            };
            let ty = if nullable { format!("{ty} or null") } else { ty };
            let description = match (description.is_empty(), variants.is_empty()) {
                (_, true) => description,
                (true, false) => variants,
                (false, false) => format!("{description} {variants}"),
            };
            let section = if prefix.is_empty() && !ty.starts_with("table") && !ty.starts_with("array of tables") {
                ""
            } else {
                section
            };
            let own = unit_of(name, prop, inner);
            let unit = if own.is_empty() && ty.starts_with("number") { inherited.to_string() } else { own.clone() };
            self.out.push(Key { key: key.clone(), ty, default, unit, description, section: section.to_string() });
            if let Some((sub, s)) = expand {
                let inherit = if own.is_empty() { inherited } else { own.as_str() };
                self.object(&sub, section, inherit, s);
            }
        }
    }

    /// A leaf's type, and its variants' descriptions (enums whose variants are documented).
    fn type_of(&self, s: &'a Value, opaque: bool) -> (String, String) {
        if opaque || s.get("x-free-table").is_some() {
            return ("table".into(), String::new());
        }
        if let Some(t) = s.get("x-type").and_then(Value::as_str) {
            return (t.into(), String::new());
        }
        if s.get("format").and_then(Value::as_str) == Some("byte-size") {
            return ("size".into(), String::new());
        }
        if let Some(values) = s.get("enum").and_then(Value::as_array) {
            let names: Vec<String> = values.iter().map(|v| format!("`{}`", v.as_str().unwrap_or("?"))).collect();
            return (names.join(" \\| "), String::new());
        }
        if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
            let mut names = Vec::new();
            let mut docs = Vec::new();
            for a in alts {
                let a = self.resolve(a);
                let Some(c) = a.get("const").or_else(|| a.get("enum").and_then(|e| e.get(0))).and_then(Value::as_str)
                else {
                    continue;
                };
                names.push(format!("`{c}`"));
                if let Some(d) = a.get("description").and_then(Value::as_str) {
                    docs.push(format!("`{c}`: {}", one_line(d).trim_end_matches('.')));
                }
            }
            let docs = if docs.is_empty() { String::new() } else { format!("{}.", docs.join("; ")) };
            return (names.join(" \\| "), docs);
        }
        let base = |s: &Value| match s.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => {
                ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join(" or ")
            }
            _ => "any".into(),
        };
        let t = base(s);
        if t == "array" {
            if let Some(tuple) = s.get("prefixItems").and_then(Value::as_array) {
                let parts: Vec<String> = tuple.iter().map(|p| base(self.resolve(p))).collect();
                return (format!("[{}]", parts.join(", ")), String::new());
            }
            if let Some(item) = s.get("items") {
                return (format!("array of {}", self.type_of(self.resolve(item), false).0), String::new());
            }
        }
        (t, String::new())
    }
}

/// Unit of a key: explicit `x-unit`, a byte size, else the suffix of its name.
fn unit_of(name: &str, prop: &Value, inner: &Value) -> String {
    if let Some(u) = prop.get("x-unit").or_else(|| inner.get("x-unit")).and_then(Value::as_str) {
        return u.into();
    }
    if inner.get("format").and_then(Value::as_str) == Some("byte-size") {
        return "bytes".into();
    }
    const SUFFIXES: &[(&str, &str)] = &[
        ("_mib_s", "MiB/s"),
        ("_mb_s", "MB/s"),
        ("_per_s", "per s"),
        ("_us", "µs"),
        ("_ns", "ns"),
        ("_s", "s"),
        ("_bytes", "bytes"),
        ("_pages", "pages"),
        ("_ratio", "fraction"),
        ("_share", "fraction"),
    ];
    SUFFIXES.iter().find(|(s, _)| name.ends_with(s)).map_or(String::new(), |(_, u)| (*u).into())
}

/// A description on one line: paragraphs joined, rustdoc links as plain code, Markdown table
/// bars escaped.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace("[`", "`").replace("`]", "`").replace('|', "\\|")
}

/// A default as TOML-like text.
fn render_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Object(m) if m.is_empty() => "{}".into(),
        other => other.to_string(),
    }
}

/// The keys of one parameter schema, dotted under `table`.
fn table_keys(table: &str, schema: &Schema) -> Vec<Key> {
    let mut keys = walk(schema.as_value(), &[]);
    for k in &mut keys {
        k.key = format!("{table}.{}", k.key);
        k.section = table.to_string();
        k.ty = k.ty.trim_end_matches(" or null").to_string();
    }
    keys
}

/// Every registry's parameter tables: `[ftl.gc_params]` per GC policy, `[ftl.gc_schedule_params]`
/// per schedule, `[ftl.mapping_params]` per mapping, and `[workload]` per generator (its own keys
/// after the common ones) and for traces.
pub fn param_tables() -> Vec<ParamTable> {
    let mut out = Vec::new();
    let mut add = |table, selector, name, schema: Schema| {
        out.push(ParamTable { table, selector, name, keys: table_keys(table, &schema) });
    };
    let listings = [
        crate::ftl::gc::GC_POLICIES.listing(),
        crate::ftl::schedule::GC_SCHEDULES.listing(),
        crate::ftl::MAPPINGS.listing(),
        crate::buffer::BUFFERS.listing(),
    ];
    for l in listings {
        let Some(table) = l.params_table else { continue };
        for (name, _, params) in l.entries {
            add(table, l.key, name, params());
        }
    }
    let common = params_schema(crate::workload::gen::params::COMMON_PARAMS);
    for e in crate::workload::gen::GENERATORS {
        let mut schema = common.clone();
        let own = (e.params)();
        if let (Some(all), Some(more)) = (
            schema.get_mut("properties").and_then(Value::as_object_mut),
            own.get("properties").and_then(Value::as_object),
        ) {
            all.extend(more.clone());
        }
        if let Some(defs) = own.get("$defs") {
            schema.insert("$defs".into(), defs.clone());
        }
        add("workload", "workload.kind", e.name, schema);
    }
    add("workload", "workload.kind", "trace", crate::workload::trace::params());
    for t in out.iter_mut().filter(|t| t.table == "workload") {
        let kind = Key {
            key: "workload.kind".into(),
            ty: "string".into(),
            default: None,
            unit: String::new(),
            description: format!("Required: the workload, `\"{}\"` for this table (`flashlab list`).", t.name),
            section: "workload".into(),
        };
        t.keys.insert(0, kind);
    }
    out
}

const HEADER: &str = "<!-- Generated by `flashlab docs --write .` from the code (crates/flashlab/src/reference.rs); \
do not edit: a test fails when this file differs from what the code generates. -->";

/// A Markdown table of keys, with their defaults (config) or without (results).
fn key_table(out: &mut String, keys: &[&Key], defaults: bool) {
    if defaults {
        out.push_str("| key | type | default | unit | description |\n|---|---|---|---|---|\n");
    } else {
        out.push_str("| key | type | unit | description |\n|---|---|---|---|\n");
    }
    for k in keys {
        let default = k.default.as_ref().map_or(String::new(), |d| format!(" `{}` |", d.replace('|', "\\|")));
        let default = match (defaults, default.is_empty()) {
            (false, _) => String::new(),
            (true, true) => "  |".to_string(),
            (true, false) => default,
        };
        out.push_str(&format!("| `{}` | {} |{default} {} | {} |\n", k.key, k.ty, k.unit, k.description));
    }
    out.push('\n');
}

/// Sections: the top-level scalars, then one per top-level table (its description first).
fn sections(out: &mut String, keys: &[Key], defaults: bool, heading: &dyn Fn(&str) -> String) {
    let top: Vec<&Key> = keys.iter().filter(|k| k.section.is_empty()).collect();
    if !top.is_empty() {
        out.push_str("## Top level\n\n");
        key_table(out, &top, defaults);
    }
    for head in keys.iter().filter(|k| !k.section.is_empty() && k.key == k.section) {
        out.push_str(&format!("## {}\n\n", heading(&head.key)));
        if !head.description.is_empty() {
            out.push_str(&format!("{}\n\n", head.description));
        }
        let rows: Vec<&Key> = keys.iter().filter(|k| k.section == head.key && k.key != head.key).collect();
        if rows.is_empty() {
            out.push_str(&format!("Type: {}.\n\n", head.ty));
        } else {
            key_table(out, &rows, defaults);
        }
    }
}

/// `docs/config.md`: every configuration key, then every registry's parameter table.
pub fn config_markdown() -> String {
    let mut out = format!(
        "{HEADER}\n\n# Configuration reference\n\n\
         Every key a flashlab config (TOML) accepts; any other key is an error. Keys are dotted: \
         `device.page_size` is `page_size` under `[device]`, and `--set device.page_size=\"8KiB\"` \
         overrides it. Sizes (type `size`) are a number of bytes or a string with a binary unit \
         (`\"16MiB\"`, `\"16MB\"` and `\"16M\"` all mean 16 × 2^20 bytes). A key without a default may be \
         left out (it is unset) unless the description says it is required. `flashlab config show \
         CONFIG` prints a config with every default filled in and these descriptions as comments.\n\n"
    );
    sections(&mut out, &config_keys(), true, &|s| format!("`[{s}]`"));
    out.push_str(
        "## Parameter tables\n\n\
         `[ftl.gc_params]`, `[ftl.gc_schedule_params]`, `[ftl.mapping_params]` and the rest of \
         `[workload]` belong to the policy chosen by `ftl.gc`, `ftl.gc_schedule`, `ftl.mapping` and \
         `workload.kind`; each policy parses its table into the struct listed here, and a key it does \
         not list is an error.\n\n",
    );
    let common: Vec<String> =
        crate::workload::gen::params::COMMON_PARAMS.iter().map(|p| format!("workload.{}", p.name)).collect();
    let tables = param_tables();
    for t in &tables {
        if t.table == "workload" && t.name == crate::workload::gen::GENERATORS[0].name {
            out.push_str("### `[workload]`: keys every generator takes\n\n");
            let rows: Vec<&Key> = t.keys.iter().filter(|k| common.contains(&k.key)).collect();
            key_table(&mut out, &rows, true);
        }
        out.push_str(&format!("### `[{}]` with `{} = \"{}\"`\n\n", t.table, t.selector, t.name));
        let generator = t.table == "workload" && t.name != "trace";
        let rows: Vec<&Key> = t.keys.iter().filter(|k| !(generator && common.contains(&k.key))).collect();
        if generator {
            out.push_str("The keys every generator takes, and:\n\n");
        }
        if t.keys.is_empty() {
            out.push_str("No parameters: the table must be empty.\n\n");
        } else {
            key_table(&mut out, &rows, true);
        }
    }
    out
}

/// `docs/results.md`: every `results.json` key, then the columns of `series.csv`.
pub fn results_markdown() -> String {
    let mut out = format!(
        "{HEADER}\n\n# Results reference\n\n\
         Every key of `results.json` (written by `flashlab run`, printed by `flashlab run --json`). \
         Keys are dotted paths into the JSON; `a[].b` is key `b` of each element of the array `a`. \
         `or null` marks a value written as null when it does not apply (e.g. latencies in \
         accounting mode, buffer figures without a buffer). Counters cover the measured phase \
         (preconditioning excluded) unless the description says otherwise. \
         `flashlab compare A/results.json B/results.json` prints the scalar keys side by side.\n\n"
    );
    let keys = results_keys();
    sections(&mut out, &keys, false, &|s| format!("`{s}`"));
    out.push_str(
        "## `series.csv`\n\n\
         One row per interval, the same values as `results.json`'s `series` (the column names are \
         its keys). Columns marked *per-interval* count that interval only; *cumulative* ones \
         cover the measured phase from its start to the interval's end; `frozen_share` is empty \
         unless `sim.track_frozen = true`.\n\n",
    );
    out.push_str("| column | type | unit | description |\n|---|---|---|---|\n");
    for column in crate::results::series_columns() {
        let key = format!("series[].{column}");
        let k = keys
            .iter()
            .find(|k| k.key == key)
            .unwrap_or_else(|| panic!("series.csv column {column} is not in SeriesPoint"));
        out.push_str(&format!("| `{column}` | {} | {} | {} |\n", k.ty, k.unit, k.description));
    }
    out
}

/// Print a configuration as TOML with every default filled in, each key preceded by a
/// `# description (unit)` comment; unset optional keys appear commented out (`# key =`).
/// Parameter tables show the keys set and, commented out, the chosen policy's other parameters
/// with their defaults. The text parses back to the same configuration.
pub fn annotated_toml(cfg: &Config) -> String {
    let tree = toml::Table::try_from(cfg).expect("a config serializes to a TOML table");
    let keys = config_keys();
    let tables = param_tables();
    let mut out = String::from("# The resolved configuration, every default filled in (`# key =`: not set).\n");
    for k in keys.iter().filter(|k| k.section.is_empty()) {
        leaf(&mut out, k, &k.key, tree.get(&k.key));
    }
    for head in keys.iter().filter(|k| !k.section.is_empty() && k.key == k.section) {
        let section = tree.get(&head.key).and_then(toml::Value::as_table).cloned().unwrap_or_default();
        out.push_str(&format!("\n{}[{}]\n", comment(head), head.key));
        if head.ty == "table" && !keys.iter().any(|k| k.section == head.key && k.key != head.key) {
            free_table(&mut out, &head.key, &section, selected_table(&tree, &tables, &head.key));
            continue;
        }
        let mut subtables = Vec::new();
        for k in keys.iter().filter(|k| k.section == head.key && k.key != head.key) {
            let name = &k.key[head.key.len() + 1..];
            if k.ty == "table" {
                subtables.push((k, name));
            } else {
                leaf(&mut out, k, name, section.get(name));
            }
        }
        for (k, name) in subtables {
            let set = section.get(name).and_then(toml::Value::as_table).cloned().unwrap_or_default();
            out.push_str(&format!("\n{}[{}]\n", comment(k), k.key));
            free_table(&mut out, &k.key, &set, selected_table(&tree, &tables, &k.key));
        }
    }
    out
}

/// `# description (unit)` on one line.
fn comment(k: &Key) -> String {
    let unit = if k.unit.is_empty() { String::new() } else { format!(" ({})", k.unit) };
    let text = if k.description.is_empty() { k.ty.replace("\\|", "|") } else { k.description.replace("\\|", "|") };
    format!("# {text}{unit}\n")
}

fn leaf(out: &mut String, k: &Key, name: &str, value: Option<&toml::Value>) {
    out.push_str(&comment(k));
    match value {
        Some(v) => out.push_str(&format!("{name} = {v}\n")),
        None => out.push_str(&format!("# {name} =\n")),
    }
}

/// The parameter table that applies to the free table `table` under this configuration.
fn selected_table<'t>(tree: &toml::Table, tables: &'t [ParamTable], table: &str) -> Option<&'t ParamTable> {
    tables.iter().find(|t| {
        if t.table != table {
            return false;
        }
        let mut cur = Some(tree);
        let mut value = None;
        for part in t.selector.split('.') {
            value = cur.and_then(|c| c.get(part));
            cur = value.and_then(toml::Value::as_table);
        }
        let name = match value.and_then(toml::Value::as_str) {
            Some(v) => v,
            None if t.selector == "ftl.gc_schedule" => crate::ftl::schedule::DEFAULT,
            None => "",
        };
        name == t.name
    })
}

/// A parameter table's keys: those set, then the policy's other parameters commented out.
fn free_table(out: &mut String, table: &str, set: &toml::Table, params: Option<&ParamTable>) {
    let doc = |name: &str| params.and_then(|p| p.keys.iter().find(|k| k.key == format!("{table}.{name}")));
    for (name, v) in set {
        if let Some(k) = doc(name) {
            out.push_str(&comment(k));
        }
        out.push_str(&format!("{name} = {v}\n"));
    }
    for k in params.map_or(&[][..], |p| &p.keys[..]) {
        let name = &k.key[table.len() + 1..];
        if !set.contains_key(name) && !name.contains('.') {
            out.push_str(&comment(k));
            match &k.default {
                Some(d) => out.push_str(&format!("# {name} = {d}\n")),
                None => out.push_str(&format!("# {name} =\n")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn properties(schema: &Schema) -> Vec<String> {
        let props = schema.get("properties").and_then(Value::as_object).expect("an object schema");
        props.keys().cloned().collect()
    }

    #[test]
    fn hand_written_parameter_lists_match_their_parsers() {
        let common: Vec<&str> = crate::workload::gen::params::COMMON_PARAMS.iter().map(|p| p.name).collect();
        assert_eq!(common, crate::workload::gen::params::COMMON_KEYS, "COMMON_PARAMS and COMMON_KEYS differ");
        let mut trace = properties(&crate::workload::trace::params());
        let mut parsed: Vec<String> = crate::workload::trace::TABLE_KEYS.iter().map(|k| k.to_string()).collect();
        trace.sort();
        parsed.sort();
        assert_eq!(trace, parsed, "the trace schema (RawOptions) and TABLE_KEYS differ");
    }

    #[test]
    fn series_csv_columns_are_the_series_keys() {
        let mut columns = crate::results::series_columns();
        let mut keys: Vec<String> =
            results_keys().into_iter().filter_map(|k| k.key.strip_prefix("series[].").map(String::from)).collect();
        columns.sort();
        keys.sort();
        assert_eq!(columns, keys, "series.csv columns and SeriesPoint's fields differ");
    }

    #[test]
    fn every_key_has_a_description_and_series_columns_say_how_they_count() {
        for k in config_keys().iter().chain(&results_keys()) {
            assert!(!k.description.is_empty(), "`{}` has no description (a doc comment on its field)", k.key);
        }
        for t in param_tables() {
            for k in &t.keys {
                assert!(!k.description.is_empty(), "`{}` ({} {}) has no description", k.key, t.selector, t.name);
            }
        }
        for k in results_keys().iter().filter(|k| k.key.starts_with("series[].") && k.key != "series[].frozen_share") {
            let d = &k.description;
            assert!(d.contains("per-interval") || d.contains("cumulative"), "`{}`: cumulative or per-interval?", k.key);
        }
    }
}
