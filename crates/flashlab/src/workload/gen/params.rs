//! Parameters every generator shares, parsed and validated once from the `[workload]` table.
//!
//! Owns: the common keys ([`COMMON_KEYS`]), their defaults, and every rule that ties them to the
//! device (alignment, footprint within capacity, request sizes within the footprint). What is
//! left of the table after the common keys are taken out goes to the generator's own
//! `#[serde(deny_unknown_fields)]` parameter struct through [`parse_extras`].
//!
//! Fault model: the table comes from a user. Every problem is an [`Error`] naming the key as
//! `workload.KEY`: a value of the wrong type or an unknown key is [`Error::Input`] (with the
//! configuration file), a value that is well-formed but impossible or contradicts another key is
//! [`Error::Config`]. Nothing here panics on user input.

use serde::de::DeserializeOwned;
use toml::Value;

use crate::error::{Error, Location};
use crate::units::parse_size;
use crate::workload::GenContext;

/// Keys every generator accepts; a generator's own keys come on top.
pub const COMMON_KEYS: &[&str] = &[
    "volume",
    "requests",
    "volume_ratio",
    "capacity_multiple",
    "read_share",
    "trim_share",
    "request_size",
    "align",
    "footprint",
    "start",
    "seed",
    "iat_ns",
];

/// The common keys documented (`docs/config.md`, `flashlab config show`); the same names as
/// [`COMMON_KEYS`], in the same order (a test checks).
pub const COMMON_PARAMS: &[crate::registry::Param] = &[
    param("volume", "size", "", "bytes", "Stop after requesting this many bytes. Give at most one of `volume`, `requests`, `volume_ratio`, `capacity_multiple`; default: the footprint once."),
    param("requests", "integer", "", "", "Stop after this many requests."),
    param("volume_ratio", "number", "", "× footprint", "Stop after requesting this multiple of the footprint's bytes."),
    param("capacity_multiple", "number", "", "× footprint", "The same as `volume_ratio`."),
    param("read_share", "number", "0.0", "fraction", "Probability that a request is a read."),
    param("trim_share", "number", "0.0", "fraction", "Probability that a request is a trim (`read_share + trim_share` ≤ 1)."),
    param("request_size", "size or table", "", "bytes", "Request size, or a table of sizes and weights `{ \"4KiB\" = 0.7, \"64KiB\" = 0.3 }`; default: one page."),
    param("align", "size", "", "bytes", "Every offset and length is a multiple of this; default: one page."),
    param("footprint", "size or number", "", "bytes or fraction", "Address range the generator covers: bytes, or a float in (0, 1] as a fraction of the logical capacity; default: the whole capacity."),
    param("start", "size", "0", "bytes", "First byte of the address range."),
    param("seed", "integer", "", "", "The generator's seed; default: derived from the run's `seed`."),
    param("iat_ns", "integer", "0", "ns", "Fixed inter-arrival time stamped on requests (0: all at time 0); used with open-loop arrival (`host.arrival = \"open\"`)."),
];

const fn param(
    name: &'static str,
    ty: &'static str,
    default: &'static str,
    unit: &'static str,
    doc: &'static str,
) -> crate::registry::Param {
    crate::registry::Param { name, ty, default, unit, doc }
}

/// The keys that say how long the stream is; at most one may be given.
const LIMIT_KEYS: &[&str] = &["volume", "requests", "volume_ratio", "capacity_multiple"];

/// Fixed point used for probabilities: a share `p` becomes the threshold `p · 2^53`, compared
/// with the top 53 bits of a random `u64` (exact for every share an `f64` can state).
pub const SHARE_ONE: u64 = 1 << 53;

/// The most pages (or requests) one run's stream may hold: 2^42, about 4.4 × 10^12, which at the
/// simulator's ~10^7 pages per second is about five days of run time. More is a mistake (a
/// misplaced unit) or a run to split; it is refused at load time rather than run for centuries.
pub const MAX_RUN_PAGES: u64 = 1 << 42;

/// The simulated clock counts nanoseconds in 64 bits: a stream's arrivals (`iat_ns` × its
/// requests) must end before 2^63 ns, about 292 years.
pub const MAX_ARRIVAL_NS: u64 = 1 << 63;

/// When the stream ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Stop once this many bytes have been requested (the last request may overshoot by less
    /// than one request).
    Bytes(u64),
    /// Stop after this many requests.
    Requests(u64),
}

/// Request sizes with their probabilities, in units of the alignment.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeTable {
    /// Sizes in alignment units, ascending, all > 0.
    pub sizes_units: Vec<u64>,
    /// Cumulative thresholds in `[0, SHARE_ONE]` (the last one is exactly `SHARE_ONE`).
    pub cumulative: Vec<u64>,
}

impl SizeTable {
    /// One size, `size_units` alignment units (at least 1), with probability 1.
    pub fn fixed(size_units: u64) -> Self {
        assert!(size_units > 0, "request size must be positive");
        SizeTable { sizes_units: vec![size_units], cumulative: vec![SHARE_ONE] }
    }

    /// The smallest size, in alignment units.
    pub fn min_units(&self) -> u64 {
        self.sizes_units[0]
    }

    /// The largest size, in alignment units.
    pub fn max_units(&self) -> u64 {
        self.sizes_units[self.sizes_units.len() - 1]
    }

    /// Mean size in alignment units (for progress estimates).
    pub fn mean_units(&self) -> f64 {
        let mut previous = 0;
        let mut mean = 0.0;
        for (size, &cum) in self.sizes_units.iter().zip(&self.cumulative) {
            mean += *size as f64 * (cum - previous) as f64 / SHARE_ONE as f64;
            previous = cum;
        }
        mean
    }
}

/// Everything common to all generators, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct CommonParams {
    /// When the stream ends (default: after the footprint's bytes once).
    pub limit: Limit,
    /// Probability a request is a read / a trim; their sum is at most 1.
    pub read_share: f64,
    /// Probability a request is a trim (see `read_share`).
    pub trim_share: f64,
    /// Request sizes with their probabilities, in alignment units.
    pub sizes: SizeTable,
    /// Every offset and length is a multiple of this (bytes, > 0).
    pub align_bytes: u64,
    /// First byte of the generator's address range (multiple of `align_bytes`).
    pub start_bytes: u64,
    /// Length of the address range (multiple of `align_bytes`, ≥ the largest request).
    pub footprint_bytes: u64,
    /// Seed of the generator's RNG (`workload.seed`, default the context's seed).
    pub seed: u64,
    /// Fixed inter-arrival time stamped on requests; 0 = every request at time 0.
    pub iat_ns: u64,
}

impl CommonParams {
    /// Length of the address range in alignment units.
    pub fn footprint_units(&self) -> u64 {
        self.footprint_bytes / self.align_bytes
    }
}

/// Parse the common keys out of `table`; returns them and the rest of the table.
pub fn parse_common(mut table: toml::Table, ctx: &GenContext) -> Result<(CommonParams, toml::Table), Error> {
    let p = Parser { ctx };
    let align_bytes = p.align(table.remove("align"))?;
    let sizes_bytes = p.request_sizes(table.remove("request_size"), align_bytes)?;
    let start_bytes = p.start(table.remove("start"), align_bytes)?;
    let footprint_bytes = p.footprint(table.remove("footprint"), start_bytes, align_bytes)?;
    let sizes = p.size_table(&sizes_bytes, align_bytes, footprint_bytes)?;
    let limit = p.limit(&mut table, footprint_bytes)?;
    let read_share = p.share(table.remove("read_share"), "read_share")?;
    let trim_share = p.share(table.remove("trim_share"), "trim_share")?;
    if read_share + trim_share > 1.0 {
        return Err(config("trim_share", format!("read_share + trim_share = {} exceeds 1.0", read_share + trim_share)));
    }
    let seed = p.integer(table.remove("seed"), "seed")?.unwrap_or(ctx.seed);
    let iat_ns = p.integer(table.remove("iat_ns"), "iat_ns")?.unwrap_or(0);
    // The last arrival must fit the clock: at most this many requests (a byte limit ends after
    // at most one request per alignment unit, plus the last one's overshoot).
    let most_requests = match limit {
        Limit::Requests(n) => n,
        Limit::Bytes(b) => b / align_bytes + 1,
    };
    if iat_ns.checked_mul(most_requests).is_none_or(|t| t >= MAX_ARRIVAL_NS) {
        return Err(config(
            "iat_ns",
            format!(
                "{iat_ns} ns between up to {most_requests} requests runs past the simulated clock's end \
                 (2^63 ns, about 292 years); lower iat_ns or the run's length"
            ),
        ));
    }
    let common =
        CommonParams { limit, read_share, trim_share, sizes, align_bytes, start_bytes, footprint_bytes, seed, iat_ns };
    assert!(
        common.footprint_bytes.is_multiple_of(common.align_bytes)
            && common.start_bytes.is_multiple_of(common.align_bytes)
    );
    assert!(common.sizes.max_units() <= common.footprint_units(), "sizes were checked against the footprint");
    Ok((common, table))
}

/// Deserialize a generator's own keys (what [`parse_common`] left) into its parameter struct.
///
/// `T` must be `#[serde(deny_unknown_fields, default)]`: every key is first checked alone, so
/// that an unknown key or a value of the wrong type is reported under its own name.
pub fn parse_extras<T: DeserializeOwned>(generator: &str, rest: toml::Table, ctx: &GenContext) -> Result<T, Error> {
    for (key, value) in &rest {
        let single: toml::Table = std::iter::once((key.clone(), value.clone())).collect();
        if let Err(e) = single.try_into::<T>() {
            return Err(extras_error(generator, key, &crate::units::plain_types(e.message()), ctx));
        }
    }
    rest.try_into::<T>().map_err(|e| {
        Error::input(Location::file(&ctx.source).with_field("workload"), crate::units::plain_types(e.message()))
    })
}

fn extras_error(generator: &str, key: &str, message: &str, ctx: &GenContext) -> Error {
    let msg = if message.starts_with("unknown field") {
        // serde's wording for a generator without keys of its own.
        let message = message.replace(", there are no fields", &format!(": `{generator}` has no keys of its own"));
        format!("unknown key for generator `{generator}` ({message}; common keys: {})", COMMON_KEYS.join(", "))
    } else {
        format!("generator `{generator}`: {message}")
    };
    Error::input(Location::file(&ctx.source).with_field(format!("workload.{key}")), msg)
}

/// A value-range error for `workload.KEY`.
pub fn config(key: &str, msg: impl Into<String>) -> Error {
    Error::config(format!("workload.{key}"), msg)
}

/// Converts a share in [0, 1] to a fixed-point threshold (see [`SHARE_ONE`]).
pub fn share_threshold(share: f64) -> u64 {
    assert!((0.0..=1.0).contains(&share), "share {share} outside [0, 1]");
    let threshold = (share * SHARE_ONE as f64).round() as u64;
    assert!(threshold <= SHARE_ONE);
    threshold
}

/// Parsing helpers that know where the configuration came from.
struct Parser<'a> {
    ctx: &'a GenContext,
}

impl Parser<'_> {
    fn type_error(&self, key: &str, msg: impl Into<String>) -> Error {
        Error::input(Location::file(&self.ctx.source).with_field(format!("workload.{key}")), msg)
    }

    /// A byte size: a non-negative integer or a string with a unit.
    fn size(&self, value: Value, key: &str) -> Result<u64, Error> {
        match value {
            Value::Integer(n) if n >= 0 => Ok(n as u64),
            Value::Integer(n) => Err(config(key, format!("size must not be negative (got {n})"))),
            Value::String(s) => parse_size(&s).map_err(|msg| self.type_error(key, msg)),
            other => Err(self.type_error(key, format!("expected a size such as \"4KiB\", got {}", other.type_str()))),
        }
    }

    fn integer(&self, value: Option<Value>, key: &str) -> Result<Option<u64>, Error> {
        match value {
            None => Ok(None),
            Some(Value::Integer(n)) if n >= 0 => Ok(Some(n as u64)),
            Some(Value::Integer(n)) => Err(config(key, format!("must not be negative (got {n})"))),
            Some(other) => Err(self.type_error(key, format!("expected an integer, got {}", other.type_str()))),
        }
    }

    fn float(&self, value: Value, key: &str) -> Result<f64, Error> {
        let x = match value {
            Value::Float(x) => x,
            Value::Integer(n) => n as f64,
            other => return Err(self.type_error(key, format!("expected a number, got {}", other.type_str()))),
        };
        if x.is_finite() {
            Ok(x)
        } else {
            Err(config(key, format!("must be a finite number (got {x})")))
        }
    }

    fn share(&self, value: Option<Value>, key: &str) -> Result<f64, Error> {
        let Some(value) = value else { return Ok(0.0) };
        let share = self.float(value, key)?;
        if !(0.0..=1.0).contains(&share) {
            return Err(config(key, format!("must be between 0.0 and 1.0 (got {share})")));
        }
        Ok(share)
    }

    fn align(&self, value: Option<Value>) -> Result<u64, Error> {
        let align = match value {
            None => self.ctx.page_size,
            Some(v) => self.size(v, "align")?,
        };
        if align == 0 {
            return Err(config("align", "alignment must be positive"));
        }
        Ok(align)
    }

    /// `request_size`: one size, or a table `{ "4KiB" = 0.7, "64KiB" = 0.3 }` of weights.
    /// Returns (bytes, weight) pairs sorted by size.
    fn request_sizes(&self, value: Option<Value>, align: u64) -> Result<Vec<(u64, f64)>, Error> {
        let mut sizes = match value {
            None => vec![(self.ctx.page_size, 1.0)],
            Some(Value::Table(table)) => self.size_weights(table)?,
            Some(v) => vec![(self.size(v, "request_size")?, 1.0)],
        };
        sizes.sort_by_key(|&(bytes, _)| bytes);
        if sizes.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(config("request_size", "the same size appears twice in the table"));
        }
        for &(bytes, _) in &sizes {
            if bytes == 0 || bytes % align != 0 {
                return Err(config(
                    "request_size",
                    format!("size {bytes} B must be a positive multiple of the alignment, workload.align ({align} B)"),
                ));
            }
        }
        Ok(sizes)
    }

    fn size_weights(&self, table: toml::Table) -> Result<Vec<(u64, f64)>, Error> {
        if table.is_empty() {
            return Err(config("request_size", "the size table is empty"));
        }
        let mut sizes = Vec::with_capacity(table.len());
        for (size_text, weight) in table {
            let key = format!("request_size.\"{size_text}\"");
            let bytes = parse_size(&size_text).map_err(|msg| self.type_error(&key, msg))?;
            let weight = self.float(weight, &key)?;
            if weight <= 0.0 {
                return Err(config(&key, format!("weight must be positive (got {weight})")));
            }
            sizes.push((bytes, weight));
        }
        Ok(sizes)
    }

    fn start(&self, value: Option<Value>, align: u64) -> Result<u64, Error> {
        let start = match value {
            None => 0,
            Some(v) => self.size(v, "start")?,
        };
        if start % align != 0 {
            return Err(config("start", format!("{start} B is not a multiple of the alignment ({align} B)")));
        }
        Ok(start)
    }

    /// `footprint`: bytes (integer or size string, a multiple of `align`) or a fraction in
    /// (0, 1] of the capacity (rounded down to `align`); `start + footprint` must fit.
    fn footprint(&self, value: Option<Value>, start: u64, align: u64) -> Result<u64, Error> {
        let capacity = self.ctx.capacity_bytes;
        let bytes = self.footprint_bytes(value, align)?;
        if bytes == 0 {
            return Err(config(
                "footprint",
                format!("footprint is empty (capacity {capacity} B, alignment {align} B)"),
            ));
        }
        match start.checked_add(bytes) {
            Some(end) if end <= capacity => Ok(bytes),
            _ => Err(config(
                "footprint",
                format!("workload.start {start} B + footprint {bytes} B exceeds the device capacity ({capacity} B)"),
            )),
        }
    }

    fn footprint_bytes(&self, value: Option<Value>, align: u64) -> Result<u64, Error> {
        let capacity = self.ctx.capacity_bytes;
        match value {
            None => Ok(capacity / align * align),
            Some(Value::Float(fraction)) if fraction > 0.0 && fraction <= 1.0 => {
                Ok((fraction * capacity as f64) as u64 / align * align)
            }
            Some(Value::Float(fraction)) => {
                Err(config("footprint", format!("a fraction must be in (0, 1] (got {fraction})")))
            }
            Some(v) => {
                let bytes = self.size(v, "footprint")?;
                if !bytes.is_multiple_of(align) {
                    let hint = "a fraction of the capacity is written as a float, e.g. 1.0";
                    let msg = format!("{bytes} B is not a multiple of the alignment ({align} B); {hint}");
                    return Err(config("footprint", msg));
                }
                Ok(bytes)
            }
        }
    }

    fn size_table(&self, sizes: &[(u64, f64)], align: u64, footprint: u64) -> Result<SizeTable, Error> {
        assert!(!sizes.is_empty() && align > 0);
        let largest = sizes[sizes.len() - 1].0;
        if largest > footprint {
            return Err(config(
                "request_size",
                format!("size {largest} B is larger than the footprint ({footprint} B)"),
            ));
        }
        let total: f64 = sizes.iter().map(|&(_, w)| w).sum();
        let mut running = 0.0;
        let mut cumulative = Vec::with_capacity(sizes.len());
        for &(_, weight) in sizes {
            running += weight;
            cumulative.push(share_threshold((running / total).min(1.0)));
        }
        *cumulative.last_mut().expect("table is not empty") = SHARE_ONE;
        let sizes_units = sizes.iter().map(|&(bytes, _)| bytes / align).collect();
        Ok(SizeTable { sizes_units, cumulative })
    }

    /// At most one of `volume`, `requests`, `volume_ratio`, `capacity_multiple`; default 1×
    /// footprint. `volume_ratio` and `capacity_multiple` are the same thing: a multiple of the
    /// footprint's bytes.
    fn limit(&self, table: &mut toml::Table, footprint: u64) -> Result<Limit, Error> {
        let given: Vec<(&str, Value)> =
            LIMIT_KEYS.iter().filter_map(|&key| table.remove(key).map(|value| (key, value))).collect();
        if given.len() > 1 {
            let names: Vec<&str> = given.iter().map(|(key, _)| *key).collect();
            return Err(config(
                names[1],
                format!("give only one of {} (got {})", LIMIT_KEYS.join(", "), names.join(" and ")),
            ));
        }
        let Some((key, value)) = given.into_iter().next() else { return Ok(Limit::Bytes(footprint)) };
        let page = self.ctx.page_size.max(1);
        let max_bytes = MAX_RUN_PAGES.saturating_mul(page);
        let too_long = |what: String| {
            config(
                key,
                format!(
                    "{what}, more than a run may hold ({MAX_RUN_PAGES} requests or pages of {page} bytes: about five days at the \
                     simulator's ~10^7 pages/s); split the run or check the unit"
                ),
            )
        };
        let limit = match key {
            "volume" => {
                let bytes = self.size(value, key)?;
                if bytes > max_bytes {
                    return Err(too_long(format!("{bytes} bytes")));
                }
                Limit::Bytes(bytes)
            }
            "requests" => {
                let n = self.integer(Some(value), key)?.unwrap_or(0);
                if n > MAX_RUN_PAGES {
                    return Err(too_long(format!("{n} requests")));
                }
                Limit::Requests(n)
            }
            _ => {
                let ratio = self.float(value, key)?;
                if ratio <= 0.0 {
                    return Err(config(key, format!("must be positive (got {ratio})")));
                }
                let bytes = ratio * footprint as f64;
                if bytes > max_bytes as f64 {
                    return Err(too_long(format!("{ratio} × the footprint of {footprint} bytes is {bytes:.3e} bytes")));
                }
                Limit::Bytes(bytes as u64)
            }
        };
        match limit {
            Limit::Bytes(0) | Limit::Requests(0) => Err(config(key, "the stream would be empty")),
            _ => Ok(limit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> GenContext {
        GenContext { capacity_bytes: 1 << 30, page_size: 4096, seed: 7, source: "test.toml".into() }
    }

    fn parse(text: &str) -> Result<CommonParams, Error> {
        let table: toml::Table = toml::from_str(text).expect("test TOML parses");
        parse_common(table, &ctx()).map(|(common, _)| common)
    }

    #[test]
    fn defaults_cover_the_device_once() {
        let c = parse("").unwrap();
        assert_eq!(c.limit, Limit::Bytes(1 << 30));
        assert_eq!((c.align_bytes, c.start_bytes, c.footprint_bytes), (4096, 0, 1 << 30));
        assert_eq!(c.sizes, SizeTable::fixed(1));
        assert_eq!((c.seed, c.iat_ns, c.read_share, c.trim_share), (7, 0, 0.0, 0.0));
    }

    #[test]
    fn size_tables_are_sorted_and_normalized() {
        let c = parse(r#"request_size = { "64KiB" = 3, "4KiB" = 7 }"#).unwrap();
        assert_eq!(c.sizes.sizes_units, vec![1, 16]);
        assert_eq!(c.sizes.cumulative[1], SHARE_ONE);
        assert!((c.sizes.cumulative[0] as f64 / SHARE_ONE as f64 - 0.7).abs() < 1e-12);
        assert!((c.sizes.mean_units() - (0.7 + 0.3 * 16.0)).abs() < 1e-9);
    }

    #[test]
    fn footprint_fraction_rounds_down_to_alignment() {
        let c = parse("footprint = 0.3").unwrap();
        assert_eq!(c.footprint_bytes, ((0.3 * (1u64 << 30) as f64) as u64) / 4096 * 4096);
        let c = parse("footprint = \"256MiB\"\nstart = \"512MiB\"").unwrap();
        assert_eq!((c.start_bytes, c.footprint_bytes), (512 << 20, 256 << 20));
    }

    #[test]
    fn limits_in_each_form() {
        assert_eq!(parse("volume = \"2GiB\"").unwrap().limit, Limit::Bytes(2 << 30));
        assert_eq!(parse("requests = 10").unwrap().limit, Limit::Requests(10));
        assert_eq!(parse("volume_ratio = 2.5").unwrap().limit, Limit::Bytes(5 << 29));
        assert_eq!(parse("capacity_multiple = 2").unwrap().limit, Limit::Bytes(2 << 30));
        let e = parse("volume = \"1GiB\"\nrequests = 3").unwrap_err().to_string();
        assert!(e.contains("workload.requests") && e.contains("only one"), "{e}");
        assert!(parse("requests = 0").is_err());
    }

    #[test]
    fn bad_values_name_their_key() {
        let cases = [
            ("read_share = 1.5", "workload.read_share"),
            ("trim_share = -0.1", "workload.trim_share"),
            ("read_share = 0.7\ntrim_share = 0.5", "workload.trim_share"),
            ("request_size = \"6KiB\"", "workload.request_size"),
            ("request_size = \"2GiB\"", "workload.request_size"),
            ("footprint = \"2GiB\"", "workload.footprint"),
            ("footprint = 1.5", "workload.footprint"),
            ("start = \"1GiB\"", "workload.footprint"),
            ("start = 100", "workload.start"),
            ("align = 0", "workload.align"),
            ("seed = \"x\"", "workload.seed"),
            ("volume = true", "workload.volume"),
            ("request_size = { \"4KiB\" = 0 }", "workload.request_size.\"4KiB\""),
        ];
        for (text, key) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "`{text}` gave `{e}`, expected it to name {key}");
        }
    }

    #[test]
    fn share_thresholds_are_exact_at_the_ends() {
        assert_eq!(share_threshold(0.0), 0);
        assert_eq!(share_threshold(1.0), SHARE_ONE);
        assert_eq!(share_threshold(0.5), SHARE_ONE / 2);
    }
}
