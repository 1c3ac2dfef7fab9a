//! The one shape of every registry: a layer's policies (mapping schemes, GC policies and
//! schedules, buffers, host layers, workload generators, trace formats) are each a list of
//! [`Entry`]s — a name, a one-line description, the schema of the parameter table its
//! constructor parses (unknown keys rejected by the constructor), the layer's capability flags
//! and the constructor — wrapped in a [`Registry`] that names the config key choosing from it.
//!
//! Adding a policy is one file (the policy and its `build`) plus one [`Entry`] line in its
//! layer's registry; the catalog (`flashlab list`, `flashlab.policies()`), the reference docs,
//! the config validation and the property tests read the registries, so they need no edit.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

use crate::error::Error;

/// One registry line. `B` is the layer's constructor type; `C` its capability flags (`()` for
/// layers without any).
pub struct Entry<B: 'static, C: 'static = ()> {
    /// The name a config or command line uses.
    pub name: &'static str,
    /// One line for `flashlab list` and the reference.
    pub about: &'static str,
    /// Schema of the parameter table `build` parses (the struct it deserialises, or
    /// [`no_params`]); the reference docs are generated from it.
    pub params: ParamsFn,
    /// What the layer needs to know about this entry before building it.
    pub caps: C,
    /// The constructor.
    pub build: B,
}

/// A layer's registry: its entries and how people choose from it.
pub struct Registry<B: 'static, C: 'static = ()> {
    /// Short identifier (`mapping`, `gc`, `buffer`, …).
    pub id: &'static str,
    /// What an entry is, for errors ("GC policy": `unknown GC policy `x``).
    pub kind: &'static str,
    /// The config key that chooses an entry (`ftl.gc`).
    pub key: &'static str,
    /// Heading for `flashlab list`, naming where the choice is made (`GC policies ([ftl] gc)`).
    pub title: &'static str,
    /// The parameter table of the chosen entry (`ftl.gc_params`), if the layer has one.
    pub params_table: Option<&'static str>,
    /// The entries, in the order `flashlab list` shows them.
    pub entries: &'static [Entry<B, C>],
}

impl<B, C> Registry<B, C> {
    /// Every entry's name, in registry order.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.name).collect()
    }

    /// The entry named `name`, if any.
    pub fn get(&self, name: &str) -> Option<&'static Entry<B, C>> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The entry named `name`; an unknown name is an error listing the valid ones.
    pub fn find(&self, name: &str) -> Result<&'static Entry<B, C>, Error> {
        self.get(name).ok_or_else(|| Error::unknown(self.kind, name, self.names()))
    }

    /// The entries.
    pub fn iter(&self) -> std::slice::Iter<'static, Entry<B, C>> {
        self.entries.iter()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the registry has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The registry without its constructors: what catalogs and references read.
    pub fn listing(&self) -> Listing {
        Listing {
            id: self.id,
            kind: self.kind,
            key: self.key,
            title: self.title,
            params_table: self.params_table,
            entries: self.entries.iter().map(|e| (e.name, e.about, e.params)).collect(),
        }
    }
}

impl<B, C> IntoIterator for &Registry<B, C> {
    type Item = &'static Entry<B, C>;
    type IntoIter = std::slice::Iter<'static, Entry<B, C>>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

impl<B, C> IntoIterator for Registry<B, C> {
    type Item = &'static Entry<B, C>;
    type IntoIter = std::slice::Iter<'static, Entry<B, C>>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

impl<B, C> std::ops::Index<usize> for Registry<B, C> {
    type Output = Entry<B, C>;
    fn index(&self, i: usize) -> &Entry<B, C> {
        &self.entries[i]
    }
}

/// A registry seen without its constructor type: (name, description, parameter schema) per entry.
pub struct Listing {
    /// [`Registry::id`].
    pub id: &'static str,
    /// [`Registry::kind`].
    pub kind: &'static str,
    /// [`Registry::key`].
    pub key: &'static str,
    /// [`Registry::title`].
    pub title: &'static str,
    /// [`Registry::params_table`].
    pub params_table: Option<&'static str>,
    /// (name, description, parameter schema) per entry, in registry order.
    pub entries: Vec<(&'static str, &'static str, ParamsFn)>,
}

/// Parse an entry's parameter table (`table`: where it sits, `ftl.gc_params`) into `T`, the
/// struct whose schema the entry's `params` gives; unknown keys and wrong types are errors naming
/// `table.key`.
pub fn parse_params<T: serde::de::DeserializeOwned>(table: &str, params: &toml::Table) -> Result<T, Error> {
    serde_path_to_error::deserialize(toml::Value::Table(params.clone())).map_err(|e| {
        Error::config(format!("{table}.{}", e.path()), crate::units::plain_types(e.into_inner().message()))
    })
}

/// For entries without parameters: any key in their table is an error.
pub fn refuse_params(table: &str, name: &str, params: &toml::Table) -> Result<(), Error> {
    match params.keys().next() {
        Some(k) => Err(Error::config(format!("{table}.{k}"), format!("`{name}` takes no parameters"))),
        None => Ok(()),
    }
}

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
    /// The key in the parameter table.
    pub name: &'static str,
    /// Type as shown in the reference.
    pub ty: &'static str,
    /// Default as TOML text ("" when there is none).
    pub default: &'static str,
    /// Unit as shown in the reference (the schema's `x-unit`; "" when there is none).
    pub unit: &'static str,
    /// The description shown in the reference.
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
