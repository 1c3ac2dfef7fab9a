//! `size`: placement by request length — small (often random, often short-lived) writes apart
//! from large (often sequential) ones, the request-size hint hosts and block layers have
//! always had. `bounds = ["16KiB", "256KiB"]` (lengths in bytes, strictly ascending) give
//! handle 0 to writes shorter than 16 KiB, 1 to those from 16 KiB up to below 256 KiB, 2 to
//! the rest; `handles = [..]` (one per class) maps each class to a chosen identifier instead.
//!
//! The length is the request's as the host layer receives it (after `host.max_request`
//! splits long requests). Stateless.

use serde::Deserialize;

use super::{Classes, PlacementContext, PlacementPolicy, TABLE};
use crate::error::Error;
use crate::registry::parse_params;
use crate::units::ByteSize;
use crate::workload::Request;

/// `[host.placement]` with `policy = "size"`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Required: request lengths in bytes, strictly ascending, the first above 0 (sizes such
    /// as `"16KiB"`); a write shorter than `bounds[0]` is class 0, from `bounds[i − 1]` up to
    /// below `bounds[i]` class i, at or past the last bound class `bounds.len()`. At most 127.
    pub bounds: Vec<ByteSize>,
    /// The identifier of each class, one per class (`bounds.len() + 1`); default: the class
    /// number (0, 1, …).
    #[serde(default)]
    pub handles: Option<Vec<u16>>,
}

/// Placement by request length.
pub struct Size {
    classes: Classes,
}

fn parse(params: &toml::Table) -> Result<Size, Error> {
    super::require(params, "bounds", "request lengths such as [\"16KiB\", \"256KiB\"]")?;
    let p: Params = parse_params(TABLE, params)?;
    Ok(Size { classes: Classes::new(&p.bounds, p.handles.as_deref())? })
}

/// [`Params`] checked as [`build`] checks them.
pub fn check(params: &toml::Table) -> Result<(), Error> {
    parse(params).map(|_| ())
}

/// Build `size` from `[host.placement]`.
pub fn build(params: &toml::Table, _ctx: &PlacementContext) -> Result<Box<dyn PlacementPolicy>, Error> {
    Ok(Box::new(parse(params)?))
}

impl PlacementPolicy for Size {
    #[inline]
    fn place(&mut self, req: &Request) -> Option<u16> {
        Some(self.classes.of(req.len))
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
    fn a_write_is_placed_by_its_length_class() {
        let mut p = policy("bounds = [\"16KiB\", \"256KiB\"]").unwrap();
        let k = 1u64 << 10;
        let got: Vec<_> = [1, 4 * k, 16 * k - 1, 16 * k, 255 * k, 256 * k, 1 << 30]
            .iter()
            .map(|&len| p.place(&write(12345 * 4096, len)))
            .collect();
        assert_eq!(got, [0, 0, 0, 1, 1, 2, 2].map(Some));
        let mut p = policy("bounds = [\"64KiB\"]\nhandles = [3, 0]").unwrap();
        assert_eq!((p.place(&write(0, 4096)), p.place(&write(0, 1 << 20))), (Some(3), Some(0)));
        assert_eq!(p.largest(), Some(("handles", 3)));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let key = |text: &str| match policy(text).err().expect("refused") {
            Error::Config { key, .. } => key,
            e => panic!("{e}"),
        };
        assert_eq!(key("bounds = [0]"), "host.placement.bounds");
        assert_eq!(key("bounds = [\"16KiB\", \"16KiB\"]"), "host.placement.bounds");
        assert_eq!(key("bounds = [\"16KiB\"]\nhandles = [0, 1, 2]"), "host.placement.handles");
        assert_eq!(key("bounds = [-4]"), "host.placement.bounds[0]");
    }
}
