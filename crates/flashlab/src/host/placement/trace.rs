//! `trace`: the request's own placement identifier — a trace's placement column (`csv`'s
//! `placement`, `blkrq`'s declared column) or a `streams` generator's per-stream `placement`;
//! `None` where the workload gives none. The same as leaving `[host.placement]` out; naming
//! it says in the config where identifiers come from. No parameters, no state.

use super::{PlacementContext, PlacementPolicy, TABLE};
use crate::error::Error;
use crate::registry::refuse_params;
use crate::workload::Request;

/// The workload's own identifiers.
pub struct Trace;

/// `trace` takes no parameters.
pub fn check(params: &toml::Table) -> Result<(), Error> {
    refuse_params(TABLE, "trace", params)
}

/// Build `trace`; any parameter is an error.
pub fn build(params: &toml::Table, _ctx: &PlacementContext) -> Result<Box<dyn PlacementPolicy>, Error> {
    check(params)?;
    Ok(Box::new(Trace))
}

impl PlacementPolicy for Trace {
    #[inline]
    fn place(&mut self, req: &Request) -> Option<u16> {
        req.placement
    }
    fn largest(&self) -> Option<(&'static str, u16)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::write;
    use super::*;
    use crate::workload::Request;

    #[test]
    fn a_write_keeps_its_own_identifier_and_parameters_are_refused() {
        let ctx = PlacementContext { logical_pages: 16, page_size: 4096 };
        let mut p = build(&toml::Table::new(), &ctx).unwrap();
        assert_eq!(p.place(&write(0, 4096)), Some(9));
        assert_eq!(p.place(&Request { placement: None, ..write(0, 4096) }), None);
        match build(&"short = 1".parse().unwrap(), &ctx).err().unwrap() {
            Error::Config { key, .. } => assert_eq!(key, "host.placement.short"),
            e => panic!("{e}"),
        }
    }
}
