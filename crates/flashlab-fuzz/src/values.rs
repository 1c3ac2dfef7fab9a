//! Values biased to the edges where arithmetic breaks: zero, one, powers of two around 2^31,
//! 2^32 and 2^63, the extremes of `i64` (TOML's integer) and `f64`, tiny and negative floats,
//! empty and unknown strings; mixed with small ordinary values so that valid cases stay common.

use rand::RngExt;

use crate::Rng;

/// Integers a TOML file can hold that break narrowing, products and sums.
const EDGE_INTS: &[i64] = &[
    0,
    1,
    2,
    3,
    7,
    8,
    15,
    16,
    63,
    64,
    255,
    256,
    511,
    512,
    4095,
    4096,
    65_535,
    65_536,
    65_537,
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) - 1,
    1 << 32,
    (1 << 32) + 1,
    1 << 53,
    (1 << 62) + 1,
    i64::MAX,
    i64::MAX - 1,
    i64::MIN,
    -1,
    -2,
];

/// Floats: zero, signs, tiny, huge, around 1, non-finite.
const EDGE_FLOATS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    0.999_999_9,
    1.000_000_1,
    1e-300,
    5e-324,
    f64::MIN_POSITIVE,
    1e300,
    f64::MAX,
    f64::MIN,
    1e9,
    1e18,
    1.8446744073709552e19,
    4294967296.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

/// Size strings: units, spellings, fractions, overflowing and malformed ones.
const EDGE_SIZES: &[&str] = &[
    "0",
    "0B",
    "1B",
    "512B",
    "4KiB",
    "4K",
    "4KB",
    "8KiB",
    "1MiB",
    "16MiB",
    "1GiB",
    "1.5GiB",
    "2GiB",
    "4GiB",
    "1TiB",
    "64TiB",
    "16EiB",
    "8EiB",
    "1e300B",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "-4KiB",
    "",
    " ",
    "KiB",
    "4 KiB",
    "4kib",
    "0.5KiB",
    "1e3",
    "nan",
    "inf",
    "4QiB",
];

/// A small integer, usually in `1..=64`.
pub(crate) fn small(rng: &mut Rng) -> i64 {
    match rng.random_range(0..8) {
        0 => 0,
        1..=5 => rng.random_range(1..=16),
        _ => rng.random_range(1..=256),
    }
}

/// An integer: small, an edge, or log-uniform over 64 bits (either sign).
pub(crate) fn integer(rng: &mut Rng) -> i64 {
    match rng.random_range(0..10) {
        0..=3 => small(rng),
        4..=6 => EDGE_INTS[rng.random_range(0..EDGE_INTS.len())],
        7 | 8 => {
            let bits = rng.random_range(0..63);
            rng.random_range(0..=(1i64 << bits))
        }
        _ => {
            let bits = rng.random_range(0..62);
            -rng.random_range(0..=(1i64 << bits))
        }
    }
}

/// A float: a fraction in [0, 1], an edge, or log-uniform of either sign.
pub(crate) fn number(rng: &mut Rng) -> f64 {
    match rng.random_range(0..10) {
        0..=3 => rng.random_range(0.0..=1.0),
        4..=6 => EDGE_FLOATS[rng.random_range(0..EDGE_FLOATS.len())],
        7 | 8 => 10f64.powi(rng.random_range(-320..=308)) * rng.random_range(1.0..10.0),
        _ => -rng.random_range(0.0..1e6),
    }
}

/// A size as TOML: an integer of bytes (page-ish multiples, edges) or a string with a unit.
pub(crate) fn size(rng: &mut Rng) -> toml::Value {
    match rng.random_range(0..10) {
        0..=3 => toml::Value::Integer(512 << rng.random_range(0..16)),
        4..=6 => toml::Value::String(EDGE_SIZES[rng.random_range(0..EDGE_SIZES.len())].into()),
        _ => toml::Value::Integer(integer(rng)),
    }
}

/// A value of a reference type name (`integer`, `number`, `boolean`, `size`, `size or number`,
/// `size or table`, `string`, `table`, or a `` `a` | `b` `` choice); `strings` are the candidates
/// for a string key (names it can hold), to which unknown and empty names are added.
///
/// `wild = false` draws plausible values only (small positive integers, fractions, page-sized
/// sizes, valid names), so that most such cases pass validation and reach the simulation.
pub(crate) fn of_type(rng: &mut Rng, ty: &str, strings: &[String], wild: bool) -> toml::Value {
    let choices = choices(ty);
    if !choices.is_empty() {
        return string(rng, &choices, wild);
    }
    if !wild {
        return match ty {
            "integer" => toml::Value::Integer(rng.random_range(1..=64)),
            "number" | "size or number" => toml::Value::Float(rng.random_range(0.0..=1.0)),
            "boolean" => toml::Value::Boolean(rng.random_bool(0.5)),
            "size" | "size or table" => toml::Value::Integer(4096 << rng.random_range(0..6)),
            "table" => toml::Value::Table(toml::Table::new()),
            _ => string(rng, strings, wild),
        };
    }
    match ty {
        "integer" => toml::Value::Integer(integer(rng)),
        "number" => toml::Value::Float(number(rng)),
        "boolean" => toml::Value::Boolean(rng.random_bool(0.5)),
        "size" => size(rng),
        "size or number" if rng.random_bool(0.5) => toml::Value::Float(number(rng)),
        "size or number" => size(rng),
        "size or table" if rng.random_bool(0.3) => size_table(rng),
        "size or table" => size(rng),
        "table" => toml::Value::Table(toml::Table::new()),
        _ => string(rng, strings, wild),
    }
}

/// `{ "4KiB" = 0.7, "64KiB" = 0.3 }`-like tables, weights edge-biased.
fn size_table(rng: &mut Rng) -> toml::Value {
    let mut t = toml::Table::new();
    for _ in 0..rng.random_range(0..4) {
        let key = match size(rng) {
            toml::Value::String(s) => s,
            v => v.to_string(),
        };
        t.insert(key, toml::Value::Float(number(rng)));
    }
    toml::Value::Table(t)
}

/// One of `names` (usually; always when not `wild`), else an unknown or empty name.
pub(crate) fn string(rng: &mut Rng, names: &[String], wild: bool) -> toml::Value {
    let odd = ["", "nope", " ", "\u{0}", "page ", "PAGE", "é"];
    let s = if names.is_empty() || (wild && rng.random_bool(0.05)) {
        odd[rng.random_range(0..odd.len())].to_string()
    } else {
        names[rng.random_range(0..names.len())].clone()
    };
    toml::Value::String(s)
}

/// The names of a `` `a` \| `b` `` type, empty for other types.
pub(crate) fn choices(ty: &str) -> Vec<String> {
    if !ty.starts_with('`') {
        return Vec::new();
    }
    ty.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_read_the_reference_spelling() {
        assert_eq!(choices("`page` \\| `block`"), vec!["page".to_string(), "block".to_string()]);
        assert!(choices("integer").is_empty());
    }
}
