//! Configuration: TOML parsed and validated once, at the edge, into [`Config`]; components
//! receive their section by value. Unknown keys are rejected everywhere. `--set key=value`
//! overrides are applied to the TOML tree before parsing, so they are validated the same way.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::buffer::BufferConfig;
use crate::error::{Error, Location};
use crate::ftl::FtlConfig;
use crate::host::HostConfig;
use crate::nand::{GcUnit, Geometry, Layout, TimingParams};
use crate::units::ByteSize;

/// `[device]`: geometry and capacity. Each count is at least 1, and their product (channels ×
/// chips × dies × planes × blocks × pages) at most 4294967294 physical pages: the simulator
/// numbers pages with 32 bits (larger devices need larger pages).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// Flash channels (buses shared by their chips).
    #[serde(default = "one")]
    pub channels: u32,
    /// Chips on each channel.
    #[serde(default = "one")]
    pub chips_per_channel: u32,
    /// Dies in each chip.
    #[serde(default = "one")]
    pub dies_per_chip: u32,
    /// Planes in each die (each plane has its own blocks and, with `timing.plane_parallel`, works
    /// in parallel).
    #[serde(default = "one")]
    pub planes_per_die: u32,
    /// Required: erase blocks in each plane.
    pub blocks_per_plane: u32,
    /// Required: pages in each erase block.
    pub pages_per_block: u32,
    /// Flash page size, the unit of reads and programs (a power of two from 512 B to 2 GiB).
    #[serde(default = "d_page")]
    pub page_size: ByteSize,
    /// Capacity exported to the host. Give this or `over_provisioning`, or both if they agree.
    #[serde(default)]
    pub logical_capacity: Option<ByteSize>,
    /// Spare space as a fraction of the logical capacity: (physical - logical) / logical
    /// (0.07 when neither this nor `logical_capacity` is given). At most 100: real devices
    /// ship 0.07 to about 0.3, and 100 already leaves 99% of the flash unused.
    #[serde(default)]
    pub over_provisioning: Option<f64>,
}

/// Largest `device.over_provisioning` (see its doc comment).
const MAX_OVER_PROVISIONING: f64 = 100.0;

fn one() -> u32 {
    1
}
fn d_page() -> ByteSize {
    ByteSize(4096)
}

/// Simulation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Operation counts only.
    Accounting,
    /// Counts plus per-operation resource timing: latency and throughput.
    Timing,
}

/// `[sim]`: how to simulate and what to record.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Simulation mode; latency and throughput are measured only in `timing`.
    #[serde(default = "d_mode")]
    pub mode: Mode,
    /// Validate every invariant after every page operation (slow: O(device) each).
    #[serde(default)]
    pub check: bool,
    /// Store a version tag per page and check every read against the last write.
    #[serde(default)]
    pub verify: bool,
    /// Minimum number of intervals in the per-interval series: 1 to 100000 (a sample per
    /// interval; more points than any plot resolves would only cost memory and output).
    #[serde(default = "d_intervals")]
    pub intervals: usize,
    /// Fixed interval length in host page writes (exact equal intervals when the write volume
    /// is known); overrides `intervals`. At least 1 (a sample every that many writes).
    #[serde(default)]
    pub interval_writes: Option<u64>,
    /// Track each logical page's last write to report the share of frozen pages (written before
    /// and never again) at every interval end. 8 bytes per logical page.
    #[serde(default)]
    pub track_frozen: bool,
    /// Power fails after this many host requests of the measured phase: the run stops there
    /// and reports which acknowledged writes were lost (dirty in DRAM) and checks that NVRAM
    /// and flash hold every other one. Turns verify mode on. At least 1; a value past the
    /// workload's end is an error when the workload ends.
    #[serde(default)]
    pub crash_at: Option<u64>,
    /// Record each page re-access's LRU stack distance (`reuse` in results.json).
    #[serde(default)]
    pub reuse_distance: bool,
    /// Refuse configs whose estimated peak memory (`flashlab run --dry-run` itemises it)
    /// exceeds this. Unset: the memory this machine has available (`MemAvailable` of
    /// `/proc/meminfo`, read when the config is validated), or 16 GiB where `/proc/meminfo` is
    /// not readable. Set, it may lower that or raise it up to the physical memory (`MemTotal`);
    /// a value above the physical memory is an error.
    #[serde(default)]
    pub memory_limit: Option<ByteSize>,
}

/// Largest `sim.intervals` (see its doc comment).
pub const MAX_INTERVALS: usize = 100_000;

/// Largest `precondition.overwrite` (see its doc comment).
const MAX_OVERWRITE: f64 = 1000.0;

impl SimConfig {
    /// The bounds of the `[sim]` keys (see each key's doc comment; `memory_limit` is checked
    /// against the memory estimate).
    pub fn validate(&self) -> Result<(), Error> {
        if !(1..=MAX_INTERVALS).contains(&self.intervals) {
            return Err(Error::config(
                "sim.intervals",
                format!("{} is not from 1 to {MAX_INTERVALS} (one series sample per interval)", self.intervals),
            ));
        }
        if self.crash_at == Some(0) {
            return Err(Error::config(
                "sim.crash_at",
                "must be at least 1 (power fails after that many host requests)",
            ));
        }
        if self.interval_writes == Some(0) {
            return Err(Error::config("sim.interval_writes", "must be at least 1"));
        }
        Ok(())
    }
}

impl PreconditionConfig {
    /// The bound of `precondition.overwrite`.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.overwrite.is_finite() && (0.0..=MAX_OVERWRITE).contains(&self.overwrite)) {
            return Err(Error::config(
                "precondition.overwrite",
                format!(
                    "{} is not from 0 to {MAX_OVERWRITE} (multiples of the logical capacity)",
                    crate::units::number(self.overwrite)
                ),
            ));
        }
        Ok(())
    }
}

fn d_mode() -> Mode {
    Mode::Accounting
}
fn d_intervals() -> usize {
    10
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            mode: d_mode(),
            check: false,
            verify: false,
            intervals: d_intervals(),
            interval_writes: None,
            track_frozen: false,
            crash_at: None,
            reuse_distance: false,
            memory_limit: None,
        }
    }
}

/// `[precondition]`: bring the device to a steady state before measuring. Excluded from results.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    /// Write every logical page once, in order.
    #[serde(default)]
    pub fill: bool,
    /// Then overwrite this many times the logical capacity with uniform random page writes: 0 to
    /// 1000 (steady state comes after 2 or 3 overwrites; 1000 is far past any use and keeps the
    /// write count exact).
    #[serde(default)]
    pub overwrite: f64,
}

/// A whole run. Built by [`Config::from_toml_str`] / [`Config::load`].
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Name of the run, echoed in the summary and results.json.
    #[serde(default)]
    pub name: Option<String>,
    /// The one seed every random choice derives from.
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Required: geometry and capacity. Each count is at least 1, and their product (channels ×
    /// chips × dies × planes × blocks × pages) at most 4294967294 physical pages: the simulator
    /// numbers pages with 32 bits (larger devices need larger pages).
    pub device: DeviceConfig,
    /// Flash operation latencies and bus speed, which timing mode (`sim.mode = "timing"`) uses.
    /// Units in the names.
    #[serde(default)]
    pub timing: TimingParams,
    /// Mapping scheme, garbage collection and write placement.
    #[serde(default)]
    pub ftl: FtlConfig,
    /// The write buffer (DRAM and/or NVRAM) above the FTL; none by default.
    #[serde(default)]
    pub buffer: BufferConfig,
    /// How requests reach the device.
    #[serde(default)]
    pub host: HostConfig,
    /// Required: `kind` names a generator or `trace`; the other keys belong to it (see
    /// "Parameter tables").
    #[schemars(with = "crate::registry::FreeTable")]
    pub workload: toml::Table,
    /// Bring the device to a steady state before measuring (nothing by default). Excluded from
    /// results.
    #[serde(default)]
    pub precondition: PreconditionConfig,
    /// How to simulate and what to record.
    #[serde(default)]
    pub sim: SimConfig,
    /// Where the config came from (for error messages and relative trace paths).
    #[serde(skip)]
    pub source: String,
    /// The `key=value` overrides applied on top of `source` (for error messages).
    #[serde(skip)]
    pub overrides: Vec<String>,
    /// How each override is named in error messages, as its caller wrote it: `--set k=v` from
    /// the command line (the default), e.g. `overrides["k"] = v` from Python.
    #[serde(skip)]
    pub override_labels: Vec<String>,
    /// The text of the config file (`None` for a tree): validation errors find the line of
    /// their key in it.
    #[serde(skip)]
    source_text: Option<String>,
}

fn d_seed() -> u64 {
    42
}

/// Capacity figures derived from a validated config.
#[derive(Clone, Copy, Debug)]
pub struct Resolved {
    /// The geometry and the GC unit (`ftl.gc_unit`).
    pub layout: Layout,
    /// Pages exported to the host: the logical capacity in whole pages.
    pub logical_pages: u64,
    /// Flash page size in bytes.
    pub page_size: u64,
    /// The spare space obtained, (physical − logical) / logical, with the logical capacity in
    /// whole pages.
    pub over_provisioning: f64,
}

impl Config {
    /// What the FTL is built from: its section, the resolved layout and capacity, whether
    /// reads are verified (`sim.verify`, or a crash test) and the timing model in timing mode.
    pub fn ftl_spec<'a>(&'a self, r: &Resolved) -> crate::ftl::FtlSpec<'a> {
        crate::ftl::FtlSpec {
            layout: r.layout,
            logical_pages: r.logical_pages,
            config: &self.ftl,
            verify: self.sim.verify || self.sim.crash_at.is_some(),
            timing: (self.sim.mode == Mode::Timing).then_some(&self.timing),
            seed: self.seed,
        }
    }

    /// Read a TOML file, apply `key=value` overrides, parse and validate.
    pub fn load(path: &Path, overrides: &[String]) -> Result<Config, Error> {
        let text = crate::files::read_text(path, "config")?;
        Self::from_toml_str(&text, &path.display().to_string(), overrides)
    }

    /// Parse TOML `text`, apply `key=value` overrides (named `--set key=value` in errors) and
    /// validate. `source` names the text in errors, and a relative trace path is resolved against
    /// its directory when it is an existing file.
    pub fn from_toml_str(text: &str, source: &str, overrides: &[String]) -> Result<Config, Error> {
        Self::from_toml_str_labelled(text, source, overrides, &cli_labels(overrides))
    }

    fn from_toml_str_labelled(
        text: &str,
        source: &str,
        overrides: &[String],
        labels: &[String],
    ) -> Result<Config, Error> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| toml_error(source, text, &e))?;
        Self::build(table, source, Some(text), overrides, labels)
    }

    /// A config given as a tree rather than text (e.g. a Python dict): errors name the field
    /// but no line.
    pub fn from_table(table: toml::Table, source: &str, overrides: &[String]) -> Result<Config, Error> {
        Self::build(table, source, None, overrides, &cli_labels(overrides))
    }

    /// [`Config::from_table`] with each override named in errors by `labels[i]` (as the caller
    /// wrote it, e.g. `overrides["ftl.gc"] = "fifo"` from Python) instead of `--set k=v`.
    pub fn from_table_labelled(
        table: toml::Table,
        source: &str,
        overrides: &[String],
        labels: &[String],
    ) -> Result<Config, Error> {
        Self::build(table, source, None, overrides, labels)
    }

    /// A config file's path, or the name of an embedded preset (`default`: always the text
    /// compiled in, so an installed binary or Python module never depends on the source tree).
    /// Anything that looks like a path (a `/` or `\\`, or a `.toml` ending) must exist: a
    /// missing file is an error, never the preset of the same stem. Paths given in `overrides`
    /// (keys ending in `path`) are relative to the current directory, while paths written in a
    /// config file are relative to that file: the former are anchored here.
    pub fn load_named(name: &str, overrides: &[String]) -> Result<Config, Error> {
        Self::load_named_labelled(name, overrides, &cli_labels(overrides))
    }

    /// [`Config::load_named`] with each override named in errors by `labels[i]` (see
    /// [`Config::from_table_labelled`]).
    pub fn load_named_labelled(name: &str, overrides: &[String], labels: &[String]) -> Result<Config, Error> {
        let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
        let anchored: Vec<String> = overrides.iter().map(|s| anchor_path(s, &cwd)).collect();
        let path = Path::new(name);
        let looks_like_path = name.contains(['/', '\\']) || name.ends_with(".toml");
        if path.is_file() || looks_like_path {
            let text = crate::files::read_text(path, "config")?;
            return Self::from_toml_str_labelled(&text, &path.display().to_string(), &anchored, labels);
        }
        match crate::presets::find(name) {
            Some(p) => Self::from_toml_str_labelled(p.text, &format!("preset {}", p.name), &anchored, labels),
            None => {
                let names: Vec<&str> = crate::presets::PRESETS.iter().map(|p| p.name).collect();
                Err(Error::input(
                    Location::file(name),
                    format!("no such file, and not a preset (presets: {})", names.join(", ")),
                ))
            }
        }
    }

    fn build(
        mut table: toml::Table,
        source: &str,
        text: Option<&str>,
        overrides: &[String],
        labels: &[String],
    ) -> Result<Config, Error> {
        if labels.len() != overrides.len() {
            return Err(Error::config("overrides", "one label per override is needed"));
        }
        for (o, label) in overrides.iter().zip(labels) {
            apply_override(&mut table, o).map_err(|e| match e {
                Error::Config { key, msg, at: None } if o.contains('=') => {
                    Error::input(Location::file(label.clone()).with_field(key), msg)
                }
                Error::Config { msg, at: None, .. } => Error::input(Location::file(label.clone()), msg),
                e => e,
            })?;
        }
        let mut cfg: Config = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
            let path = e.path().to_string();
            if path == "." {
                // At the root (e.g. a missing section): no field to name.
                return Error::input(Location::file(source), e.into_inner().message().to_string());
            }
            // The override that set the key or a table above it; for an unknown key or section
            // (the path names it), also one that set something inside it. (A missing key's path
            // is its table: an override setting another key there is not the cause.)
            let unknown = e.inner().message().starts_with("unknown field");
            let overridden = overrides.iter().rposition(|o| {
                o.split_once('=').is_some_and(|(k, _)| {
                    let k = k.trim();
                    let below = |a: &str, b: &str| a.strip_prefix(b).is_some_and(|r| r.starts_with('.'));
                    path == k || below(&path, k) || (unknown && below(k, &path))
                })
            });
            let at = match overridden {
                Some(i) => Location::file(labels[i].clone()).with_field(path.clone()),
                None => {
                    let mut at = Location::file(source).with_field(path.clone());
                    at.line = text.and_then(|t| line_of(t, &path));
                    at
                }
            };
            let mut msg = crate::units::plain_types(e.into_inner().message());
            if let Some(hint) = moved_key(&path) {
                msg.push_str(&format!("; {hint}"));
            }
            Error::input(at, msg)
        })?;
        cfg.source = source.to_string();
        cfg.overrides = overrides.to_vec();
        cfg.override_labels = labels.to_vec();
        cfg.source_text = text.map(str::to_string);
        // A trace path written in a config file is relative to that file: made absolute here,
        // so the config (echoed in results.json) means the same from any directory.
        if let Some(toml::Value::String(p)) = cfg.workload.get("path") {
            let resolved = crate::workload::trace::resolve_path(p.into(), source).display().to_string();
            cfg.workload.insert("path".into(), toml::Value::String(resolved));
        }
        cfg.settle_ftl().map_err(|e| cfg.attribute(e))?;
        cfg.resolve().map_err(|e| cfg.attribute(e))?;
        Ok(cfg)
    }

    /// The GC keys against the mapping scheme: a scheme with a victim policy gets `greedy`
    /// when `ftl.gc` is not given; a log-block scheme (which merges instead) rejects every GC
    /// key rather than ignore it.
    fn settle_ftl(&mut self) -> Result<(), Error> {
        let Some(m) = crate::ftl::mapping(&self.ftl.mapping) else { return Ok(()) };
        let f = &mut self.ftl;
        if m.caps.gc_policy {
            f.gc.get_or_insert_with(|| crate::ftl::DEFAULT_GC.to_string());
            return Ok(());
        }
        let Some(key) = f.gc_key_set() else { return Ok(()) };
        let from = self.origin_of(&key);
        Err(Error::config(
            &key,
            format!(
                "mapping `{}` merges log blocks instead of collecting garbage: it has no GC victim policy or \
                 schedule, so this key would do nothing; remove it (set in {from}; an empty override value removes a key)",
                m.name
            ),
        ))
    }

    /// Where the value of `key` (dotted) came from: the last override that set it or a table
    /// above it (`--set workload.theta=…`, `--set workload={…}`), else the config source.
    pub fn origin_of(&self, key: &str) -> String {
        let covers = |o: &&String| {
            o.split_once('=').is_some_and(|(k, _)| {
                let k = k.trim();
                key == k || key.strip_prefix(k).is_some_and(|rest| rest.starts_with('.'))
            })
        };
        match self.overrides.iter().rposition(|o| covers(&o)) {
            Some(i) => self.override_labels.get(i).cloned().unwrap_or_else(|| format!("--set {}", self.overrides[i])),
            None => self.source.clone(),
        }
    }

    /// An error about a key, blamed on the override that set it rather than on the config
    /// source (for errors raised after parsing, e.g. by a generator reading its parameters); a
    /// configuration error is placed as a type error is: `file:line` where the file sets the key,
    /// else the override's label, else the file alone. Placing twice changes nothing.
    pub fn attribute(&self, e: Error) -> Error {
        match e {
            Error::Input { mut at, msg } if at.file == self.source => {
                if let Some(field) = &at.field {
                    let origin = self.origin_of(field);
                    if origin != self.source {
                        at.file = origin;
                        at.line = None;
                    } else if at.line.is_none() {
                        at.line = self.source_text.as_deref().and_then(|t| line_of(t, field));
                    }
                }
                Error::Input { at, msg }
            }
            Error::Config { key, msg, at: None } => {
                let origin = self.origin_of(&key);
                let msg = if msg.contains(&self.source) { msg.replace(&self.source, &origin) } else { msg };
                let mut at = Location::file(&origin);
                if origin == self.source {
                    at.line = self.source_text.as_deref().and_then(|t| line_of(t, &key));
                }
                Error::Config { key, msg, at: Some(at) }
            }
            e => e,
        }
    }

    /// Validate cross-field constraints, the FTL's parameters against its registries and the
    /// spare space, and derive capacities. Cheap: nothing is built or allocated, the workload
    /// is not read (that, and the memory limit, are [`crate::sim::Plan::new`]'s).
    pub fn resolve(&self) -> Result<Resolved, Error> {
        let d = &self.device;
        let page_size = crate::nand::geometry::check_page_size("device.page_size", d.page_size.0)?;
        let geo = Geometry {
            channels: d.channels,
            chips_per_channel: d.chips_per_channel,
            dies_per_chip: d.dies_per_chip,
            planes_per_die: d.planes_per_die,
            blocks_per_plane: d.blocks_per_plane,
            pages_per_block: d.pages_per_block,
            page_size,
        };
        geo.validate()?;
        let layout = Layout::new(geo, self.ftl.gc_unit);
        let physical = geo.physical_bytes();
        let page = d.page_size.0;
        let logical_bytes = match (d.logical_capacity, d.over_provisioning) {
            (Some(c), None) => c.0,
            (None, op) => {
                let op = op.unwrap_or(0.07);
                if !(op.is_finite() && (0.0..=MAX_OVER_PROVISIONING).contains(&op)) {
                    return Err(Error::config(
                        "device.over_provisioning",
                        format!(
                            "{} is out of range: spare space as a fraction of the logical capacity, from 0 to {MAX_OVER_PROVISIONING} (0.07 is 7%)",
                            crate::units::number(op)
                        ),
                    ));
                }
                // physical / (1 + op) <= physical, a u64: the float-to-int cast cannot saturate.
                ((physical as f64 / (1.0 + op)) as u64) / page * page
            }
            (Some(c), Some(op)) => {
                let implied = physical as f64 / c.0 as f64 - 1.0;
                if (implied - op).abs() > 0.005 {
                    return Err(Error::config(
                        "device.over_provisioning",
                        format!(
                            "{op} contradicts device.logical_capacity = {} on {physical} physical bytes (which implies \
                             {implied:.4}); give one of the two: unset the other with `--set device.logical_capacity=` \
                             (CLI) or `{{\"device.logical_capacity\": None}}` in Python's overrides, e.g. to sweep \
                             over-provisioning",
                            c.0
                        ),
                    ));
                }
                c.0
            }
        };
        if logical_bytes == 0 {
            let key = if d.logical_capacity.is_some() { "device.logical_capacity" } else { "device.over_provisioning" };
            return Err(Error::config(key, "leaves a logical capacity of 0 pages"));
        }
        if logical_bytes % page != 0 {
            return Err(Error::config(
                "device.logical_capacity",
                format!("{logical_bytes} bytes is not a whole number of {page}-byte pages"),
            ));
        }
        if logical_bytes >= physical {
            let key = if d.logical_capacity.is_some() { "device.logical_capacity" } else { "device.over_provisioning" };
            return Err(Error::config(
                key,
                format!("{logical_bytes} bytes leaves no over-provisioning on a {physical}-byte device; GC needs spare blocks"),
            ));
        }
        self.check_sim(&geo)?;
        self.check_names()?;
        crate::ftl::check(&self.ftl, layout.unit)?;
        let resolved = Resolved {
            layout,
            logical_pages: logical_bytes / page,
            page_size: page,
            over_provisioning: physical as f64 / logical_bytes as f64 - 1.0,
        };
        // The FTL's own parameters and the spare space they need, checked as its constructor
        // would, nothing allocated (the memory limit is the run plan's: `sim::Plan`).
        crate::ftl::memory(&self.ftl_spec(&resolved), &mut crate::memory::Estimate::default())?;
        self.check_zoned()?;
        crate::host::memory(&self.host, &self.host_context(&resolved), &mut crate::memory::Estimate::default())?;
        Ok(resolved)
    }

    /// What a zoned device (`ftl.mapping = "zns"`) runs with: no write buffer, no block remap,
    /// and no random preconditioning overwrite unless a host layer that keeps its own log
    /// (`log`, which preconditioning then writes through) places it.
    fn check_zoned(&self) -> Result<(), Error> {
        if self.ftl.mapping != "zns" {
            return Ok(());
        }
        if self.buffer.policy != "none" {
            return Err(Error::config(
                "buffer.policy",
                "a zoned device (ftl.mapping = \"zns\") runs without a write buffer",
            ));
        }
        if self.host.out_of_range == crate::host::OutOfRange::Compact {
            return Err(Error::config(
                "host.out_of_range",
                "\"compact\" remaps blocks, which would break a zoned device's write pointers",
            ));
        }
        let layer = crate::host::HOST_LAYERS.find(&self.host.layer)?;
        if !layer.caps.zoned && self.precondition.overwrite > 0.0 {
            return Err(Error::config(
                "precondition.overwrite",
                format!(
                    "random overwrites through host layer `{}` break a zoned device's write pointers; a sequential fill (fill = true) writes zones in order, and host.layer = \"log\" takes both",
                    layer.name
                ),
            ));
        }
        Ok(())
    }

    /// What the host layer is built for.
    pub fn host_context(&self, r: &Resolved) -> crate::host::HostContext {
        crate::host::HostContext {
            layout: r.layout,
            logical_pages: r.logical_pages,
            seed: crate::seed::derive_seed(self.seed, "host"),
            zoned: self.ftl.mapping == "zns",
        }
    }

    /// Each section's bounds (its own `validate`), then what ties sections together.
    fn check_sim(&self, geo: &Geometry) -> Result<(), Error> {
        self.sim.validate()?;
        self.host.validate()?;
        self.precondition.validate()?;
        self.timing.validate()?;
        if self.sim.mode == Mode::Timing {
            self.timing.check_transfer(geo.page_size)?;
        }
        match self.workload.get("kind") {
            Some(toml::Value::String(_)) => Ok(()),
            Some(_) => Err(Error::config("workload.kind", "must be a string")),
            None => Err(Error::config("workload.kind", "missing: name a generator or `trace`")),
        }
    }

    /// Every policy name must be in its registry (the error lists the valid ones).
    fn check_names(&self) -> Result<(), Error> {
        let known = |key: &str, kind: &'static str, name: &str, valid: Vec<&'static str>| {
            if valid.contains(&name) {
                return Ok(());
            }
            // Placed on the file's line or the override by `attribute`.
            Err(Error::config(key, Error::unknown(kind, name, valid).to_string()))
        };
        use crate::{buffer, ftl, host, workload};
        // (registry, the name chosen from it, if any): the key and the word come from the registry.
        let chosen = [
            (ftl::MAPPINGS.listing(), Some(self.ftl.mapping.as_str())),
            (ftl::gc::GC_POLICIES.listing(), self.ftl.gc.as_deref()),
            (ftl::schedule::GC_SCHEDULES.listing(), self.ftl.gc_schedule.as_deref()),
            (buffer::BUFFERS.listing(), Some(self.buffer.policy.as_str())),
            (host::HOST_LAYERS.listing(), Some(self.host.layer.as_str())),
            (workload::trace::FORMATS.listing(), self.workload.get("format").and_then(|f| f.as_str())),
        ];
        for (registry, name) in chosen {
            if let Some(name) = name {
                known(registry.key, registry.kind, name, registry.entries.iter().map(|e| e.0).collect())?;
            }
        }
        let kind = self.workload.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        let mut kinds = workload::gen::GENERATORS.names();
        kinds.push("trace");
        kinds.push(workload::gen::STREAMS);
        known("workload.kind", "workload kind", kind, kinds)
    }

    /// The erase / GC unit (`ftl.gc_unit`).
    pub fn gc_unit(&self) -> GcUnit {
        self.ftl.gc_unit
    }
}

/// Where a key of an older layout went: the buffer policies' own options (`[buffer] padding`,
/// `block_threshold`, `read_cache`, `write_clean`) moved into `[buffer.params]` when every layer
/// took its parameters in a table of the policy's own.
fn moved_key(path: &str) -> Option<String> {
    let key = path.strip_prefix("buffer.")?;
    let owner = crate::buffer::BUFFERS.iter().find(|e| {
        (e.params)().get("properties").and_then(serde_json::Value::as_object).is_some_and(|p| p.contains_key(key))
    })?;
    Some(format!(
        "`{key}` is a parameter of buffer policy `{}`: write it as `buffer.params.{key}` ([buffer.params])",
        owner.name
    ))
}

pub use crate::memory::physical_memory;

/// How the command line names overrides in errors: `--set k=v`.
fn cli_labels(overrides: &[String]) -> Vec<String> {
    overrides.iter().map(|o| format!("--set {o}")).collect()
}

/// Line (1-based) where the key `a.b.c` is set in `text`, if it is set there plainly
/// (`c = ...` under `[a.b]`, or `b.c = ...` under `[a]`). Best effort: for error messages only.
fn line_of(text: &str, path: &str) -> Option<u64> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut section = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = h.trim().to_string();
            // A table header is where a section named by `path` (or one inside it) starts.
            if section == path || section.strip_prefix(path).is_some_and(|r| r.starts_with('.')) {
                return Some(i as u64 + 1);
            }
            continue;
        }
        let Some((key, _)) = line.split_once('=') else { continue };
        let full = if section.is_empty() { key.trim().to_string() } else { format!("{section}.{}", key.trim()) };
        if full == path || (parts.len() > 1 && path.starts_with(&format!("{full}."))) {
            return Some(i as u64 + 1);
        }
    }
    None
}

/// Turn a TOML syntax error into file:line.
fn toml_error(source: &str, text: &str, e: &toml::de::Error) -> Error {
    let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() as u64 + 1);
    let mut at = Location::file(source);
    at.line = line;
    Error::input(at, e.message().to_string())
}

/// `key=value` with a relative path value (key ending in `path`, not a built-in trace) made
/// absolute against `cwd`.
fn anchor_path(spec: &str, cwd: &Path) -> String {
    match spec.split_once('=') {
        Some((k, v)) if k.trim().ends_with("path") => {
            let raw = v.trim().trim_matches('"');
            let p = Path::new(raw);
            if p.is_relative() && !raw.is_empty() && !raw.starts_with(crate::workload::trace::builtin::PREFIX) {
                let abs = cwd.join(p).display().to_string();
                format!("{}=\"{}\"", k.trim(), abs.replace('\\', "\\\\").replace('"', "\\\""))
            } else {
                spec.to_string()
            }
        }
        _ => spec.to_string(),
    }
}

/// Digits with at most a sign, point, exponent and underscores: meant as a number.
fn looks_numeric(raw: &str) -> bool {
    let digits = raw.trim_start_matches(['+', '-']);
    digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | 'e' | 'E' | '+' | '-'))
}

/// Apply `a.b.c=value` to the TOML tree. The value is parsed as TOML (number, bool, string,
/// array, inline table) and taken as a plain string if it does not parse, unless it looks like
/// a number (then TOML's complaint is the error: a value out of range). An empty value
/// (`a.b.c=`) removes the key, e.g. to drop a generator's parameter when switching generators.
pub fn apply_override(table: &mut toml::Table, spec: &str) -> Result<(), Error> {
    let (key, raw) = spec
        .split_once('=')
        .ok_or_else(|| Error::config(spec, "an override must look like key=value (e.g. ftl.gc=fifo)"))?;
    let key = key.trim();
    let value: toml::Value = match format!("v = {}", raw.trim()).parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| toml::Value::String(raw.trim().to_string())),
        // A number TOML refuses (out of range, say) is an error, not a string the key then
        // calls the wrong type.
        Err(e) if looks_numeric(raw.trim()) => {
            return Err(Error::config(key, format!("`{}` is not a valid number: {}", raw.trim(), e.message())))
        }
        Err(_) => toml::Value::String(raw.trim().to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::config(key, "empty key segment"));
    }
    let mut cur = table;
    for p in &parts[..parts.len() - 1] {
        let entry = cur.entry(p.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = entry.as_table_mut().ok_or_else(|| Error::config(key, format!("`{p}` is not a table")))?;
    }
    let last = parts[parts.len() - 1].to_string();
    if raw.trim().is_empty() {
        cur.remove(&last);
    } else {
        cur.insert(last, value);
    }
    Ok(())
}
