//! Units: byte sizes with suffixes ("4KiB", "8GiB", "512"), durations, and the newtypes of the
//! layer interfaces.
//!
//! [`Lpn`], [`Ppn`] and [`Nanos`] are what the interfaces between layers take and return: the
//! public operations of `Device`, the `HostLayer`, `WriteBuffer` and `Ftl` traits and `Nand`'s
//! page and time operations, so a logical page, a physical page, a version tag and a time
//! cannot be swapped silently. Inside a layer the hot paths keep flat arrays of raw integers
//! (an L2P table of `u32`, OOB `u32`s, slot arrays of `u64`) indexed by `lpn.index()` or
//! `ppn.index()`: a layer converts at its boundary and does not thread the newtypes through its
//! inner loops. The types carry no arithmetic: completion times combine by their ordering
//! (`max`), and a difference or an offset is computed on `.0` where it is meant.

use std::fmt;

use serde::{Deserialize, Deserializer};

/// Logical page number: a page of the host's address space (the device's, once the device has
/// wrapped or remapped the host's number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lpn(pub u64);

impl Lpn {
    /// The page as an index into a per-logical-page array.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Lpn {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Physical page number: `segment * pages_per_segment + offset` (see `nand::Layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppn(pub u32);

impl Ppn {
    /// The page as an index into a per-physical-page array.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Ppn {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A time on the simulation clock, in nanoseconds since the start of the run (issue and
/// completion times). Ordered, so the completion of several operations is the `max` of theirs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nanos(pub u64);

impl Nanos {
    /// The start of the run (preconditioning issues every operation at this time).
    pub const ZERO: Nanos = Nanos(0);
}

/// Parse a byte size: a plain integer (bytes) or a number with a unit suffix:
/// B, KiB/MiB/GiB/TiB (powers of 1024), K/M/G/T and KB/MB/GB/TB (also powers of 1024, as
/// storage tools such as fio use them), sectors are not accepted here.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(format!("`{text}` is not a size (expected e.g. 4096, 4KiB, 8GiB)"));
    }
    let value: f64 = num.parse().map_err(|_| format!("`{text}` is not a size"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => return Err(format!("`{text}`: unknown size unit `{other}` (use B, KiB, MiB, GiB, TiB)")),
    };
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{text}` is out of range"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// A byte size in configuration: accepts an integer or a string with a unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Size;
        impl serde::de::Visitor<'_> for Size {
            type Value = ByteSize;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a size: a whole number of bytes or a string with a unit, like \"16MiB\"")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<ByteSize, E> {
                u64::try_from(n).map(ByteSize).map_err(|_| E::custom(format!("size must not be negative (got {n})")))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<ByteSize, E> {
                Ok(ByteSize(n))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ByteSize, E> {
                parse_size(s).map(ByteSize).map_err(E::custom)
            }
        }
        d.deserialize_any(Size)
    }
}

impl serde::Serialize for ByteSize {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

/// Schema: an integer number of bytes or a string with a binary unit. Marked with
/// `"format": "byte-size"` so the reference ([`crate::reference`]) gives its unit as bytes.
impl schemars::JsonSchema for ByteSize {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ByteSize".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": ["integer", "string"],
            "format": "byte-size",
            "minimum": 0,
        })
    }
}

/// A user's number for an error message: plain when it reads well, else in exponent form
/// (`1e300`, not 301 digits).
pub fn number(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-6..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A serde message with Rust's type names in words: "expected u32" becomes "expected a whole
/// number from 0 to 4294967295" (a config's reader need not know Rust).
pub fn plain_types(msg: &str) -> String {
    const WORDS: [(&str, &str); 10] = [
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number from 0 to 18446744073709551615"),
        ("usize", "a whole number from 0 to 18446744073709551615"),
        ("i32", "a whole number from -2147483648 to 2147483647"),
        ("i64", "a whole number"),
        ("f32", "a number"),
        ("f64", "a number"),
        ("char", "a single character"),
    ];
    let mut out = msg.to_string();
    for (ty, words) in WORDS {
        let pattern = format!("expected {ty}");
        let mut from = 0;
        while let Some(i) = out[from..].find(&pattern).map(|i| i + from) {
            let end = i + pattern.len();
            // Only the whole type name: not `u32x` or `u8_thing`.
            if out[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                from = end;
                continue;
            }
            out.replace_range(i..end, &format!("expected {words}"));
            from = i + "expected ".len() + words.len();
        }
    }
    out
}

/// Greatest common divisor (`gcd(a, 0) = a`): alignments of requests cut or mixed together,
/// strides coprime to a page count.
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("8GiB"), Ok(8 << 30));
        assert_eq!(parse_size("1.5MiB"), Ok(3 << 19));
        assert_eq!(parse_size(" 2 G"), Ok(2 << 30));
        assert!(parse_size("4 parsecs").unwrap_err().contains("unknown size unit"));
        assert!(parse_size("KiB").is_err());
        assert!(parse_size("0.3B").is_err());
    }

    #[test]
    fn serde_type_names_read_as_words() {
        assert_eq!(
            plain_types("invalid type: string \"abc\", expected u32"),
            "invalid type: string \"abc\", expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_types("invalid type: string \"x\", expected f64"),
            "invalid type: string \"x\", expected a number"
        );
        assert_eq!(plain_types("expected u32x or u8"), "expected u32x or u8", "only `expected TYPE`, whole");
        assert_eq!(plain_types("expected a boolean"), "expected a boolean");
    }
}
