//! `address`: placement by where a write lands — the simplest host-side separation, as a
//! host that knows its layout (a log region, a metadata region, a table space) would tag it.
//! `bounds = ["1GiB", "8GiB"]` (byte offsets, strictly ascending) give handle 0 to writes
//! starting below 1 GiB, 1 to those from 1 GiB up to below 8 GiB, 2 to the rest; `handles =
//! [..]` (one per range) maps each range to a chosen identifier instead.
//!
//! A write is placed by its first byte (a write across a bound goes with its start), at its
//! workload address (before `host.out_of_range`, so a bound may lie beyond the logical
//! capacity for a trace that `wrap` or `compact` folds). Stateless.

use serde::Deserialize;

use super::{Classes, PlacementContext, PlacementPolicy, TABLE};
use crate::error::Error;
use crate::registry::parse_params;
use crate::units::ByteSize;
use crate::workload::Request;

/// `[host.placement]` with `policy = "address"`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Required: byte offsets, strictly ascending, the first above 0 (sizes such as `"1GiB"`);
    /// a write starting below `bounds[0]` is class 0, from `bounds[i − 1]` up to below
    /// `bounds[i]` class i, at or past the last bound class `bounds.len()`. At most 127.
    pub bounds: Vec<ByteSize>,
    /// The identifier of each class, one per class (`bounds.len() + 1`); default: the class
    /// number (0, 1, …).
    #[serde(default)]
    pub handles: Option<Vec<u16>>,
}

/// Placement by byte offset.
pub struct Address {
    classes: Classes,
}

fn parse(params: &toml::Table) -> Result<Address, Error> {
    super::require(params, "bounds", "byte offsets such as [\"1GiB\", \"8GiB\"]")?;
    let p: Params = parse_params(TABLE, params)?;
    Ok(Address { classes: Classes::new(&p.bounds, p.handles.as_deref())? })
}

/// [`Params`] checked as [`build`] checks them.
pub fn check(params: &toml::Table) -> Result<(), Error> {
    parse(params).map(|_| ())
}

/// Build `address` from `[host.placement]`.
pub fn build(params: &toml::Table, _ctx: &PlacementContext) -> Result<Box<dyn PlacementPolicy>, Error> {
    Ok(Box::new(parse(params)?))
}

impl PlacementPolicy for Address {
    #[inline]
    fn place(&mut self, req: &Request) -> Option<u16> {
        Some(self.classes.of(req.offset))
    }
    fn largest(&self) -> Option<(&'static str, u16)> {
        Some(("handles", self.classes.largest()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::write;
    use super::*;

    const CTX: PlacementContext = PlacementContext { logical_pages: 1 << 22, page_size: 4096 };

    fn policy(text: &str) -> Result<Box<dyn PlacementPolicy>, Error> {
        build(&text.parse().unwrap(), &CTX)
    }

    #[test]
    fn a_write_is_placed_by_the_range_its_first_byte_is_in() {
        let mut p = policy("bounds = [\"1GiB\", \"8GiB\"]").unwrap();
        let g = 1u64 << 30;
        let got: Vec<_> =
            [0, g - 4096, g, 8 * g - 1, 8 * g, 20 * g].iter().map(|&o| p.place(&write(o, 4096))).collect();
        assert_eq!(got, [0, 0, 1, 1, 2, 2].map(Some));
        // A write across a bound goes with its start.
        assert_eq!(p.place(&write(g - 4096, 8192)), Some(0));
        let mut p = policy("bounds = [\"1GiB\"]\nhandles = [5, 1]").unwrap();
        assert_eq!((p.place(&write(0, 1)), p.place(&write(g, 1))), (Some(5), Some(1)));
        assert_eq!(p.largest(), Some(("handles", 5)));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let key = |text: &str| match policy(text).err().expect("refused") {
            Error::Config { key, .. } => key,
            e => panic!("{e}"),
        };
        assert_eq!(key(""), "host.placement.bounds");
        assert_eq!(key("bounds = [\"8GiB\", \"1GiB\"]"), "host.placement.bounds");
        assert_eq!(key("bounds = [\"lots\"]"), "host.placement.bounds[0]");
        assert_eq!(key("bounds = [\"1GiB\"]\nhandles = [1]"), "host.placement.handles");
        assert_eq!(key("bounds = [\"1GiB\"]\nhandles = [1, 70000]"), "host.placement.handles[1]");
        assert_eq!(key("bounds = [\"1GiB\"]\nthreshold = 0.1"), "host.placement.threshold");
        check(&"bounds = [4096]".parse().unwrap()).unwrap();
    }
}
