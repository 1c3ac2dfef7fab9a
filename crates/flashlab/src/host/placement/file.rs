//! `file`: placement by the file a write belongs to, where the trace says (`csv`'s `file`
//! column). A file is written, rewritten and deleted as a unit more often than its neighbours
//! on the device are, so its pages tend to die together: the per-file streams of the
//! multi-stream SSD work (a stream per file or file type, chosen by the host) and the per-object
//! placement of FDP allocators. `handles = N` spreads files over identifiers 0 to N − 1 by file
//! id modulo N; `files = { "12" = 3 }` pins chosen files (keys: file ids) to an identifier,
//! before the modulo. A write the trace gives no file (no column, or an empty field) gets no
//! identifier: the device's default handle, counted as untagged. Stateless but for the pins.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{PlacementContext, PlacementPolicy, TABLE};
use crate::error::Error;
use crate::fastmap::FastMap;
use crate::registry::parse_params;
use crate::workload::Request;

/// `[host.placement]` with `policy = "file"`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Required: identifiers 0 to `handles` − 1, which files take by file id modulo
    /// `handles`; at least 1.
    pub handles: u16,
    /// Files pinned to an identifier: file id (a TOML key, such as `"12"`) = identifier.
    #[serde(default)]
    pub files: BTreeMap<String, u16>,
}

/// Placement by file.
pub struct File {
    handles: u32,
    pins: FastMap<u32, u16>,
    largest: (&'static str, u16),
}

fn parse(params: &toml::Table) -> Result<File, Error> {
    super::require(params, "handles", "how many identifiers files are spread over, such as 4")?;
    let p: Params = parse_params(TABLE, params)?;
    if p.handles == 0 {
        return Err(Error::config(format!("{TABLE}.handles"), "at least 1"));
    }
    let mut pins = crate::fastmap::with_capacity(p.files.len());
    let mut largest = ("handles", p.handles - 1);
    for (key, &id) in &p.files {
        let file = key.trim().parse::<u32>().map_err(|_| {
            Error::config(format!("{TABLE}.files.{key}"), "a file id is an integer from 0 to 4294967295")
        })?;
        pins.insert(file, id);
        if id > largest.1 {
            largest = ("files", id);
        }
    }
    Ok(File { handles: u32::from(p.handles), pins, largest })
}

/// [`Params`] checked as [`build`] checks them.
pub fn check(params: &toml::Table) -> Result<(), Error> {
    parse(params).map(|_| ())
}

/// Build `file` from `[host.placement]`.
pub fn build(params: &toml::Table, _ctx: &PlacementContext) -> Result<Box<dyn PlacementPolicy>, Error> {
    Ok(Box::new(parse(params)?))
}

impl PlacementPolicy for File {
    #[inline]
    fn place(&mut self, req: &Request) -> Option<u16> {
        let file = req.file?;
        match self.pins.get(&file) {
            Some(&id) => Some(id),
            None => Some((file % self.handles) as u16),
        }
    }
    fn largest(&self) -> Option<(&'static str, u16)> {
        Some(self.largest)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::write;
    use super::*;

    const CTX: PlacementContext = PlacementContext { logical_pages: 1 << 20, page_size: 4096 };

    fn policy(text: &str) -> Result<Box<dyn PlacementPolicy>, Error> {
        build(&text.parse().unwrap(), &CTX)
    }

    #[test]
    fn a_write_is_placed_by_its_file() {
        let of = |file| Request { file, ..write(0, 4096) };
        let mut p = policy("handles = 3\nfiles = { \"7\" = 5, \"9\" = 0 }").unwrap();
        let got: Vec<_> = [Some(0), Some(1), Some(4), Some(7), Some(9), Some(u32::MAX), None]
            .into_iter()
            .map(|f| p.place(&of(f)))
            .collect();
        assert_eq!(got, [Some(0), Some(1), Some(1), Some(5), Some(0), Some((u32::MAX % 3) as u16), None]);
        assert_eq!(p.largest(), Some(("files", 5)));
        assert_eq!(policy("handles = 4").unwrap().largest(), Some(("handles", 3)));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let key = |text: &str| match policy(text).err().expect("refused") {
            Error::Config { key, .. } => key,
            e => panic!("{e}"),
        };
        assert_eq!(key(""), "host.placement.handles");
        assert_eq!(key("handles = 0"), "host.placement.handles");
        assert_eq!(key("handles = 2\nfiles = { \"x\" = 1 }"), "host.placement.files.x");
        assert_eq!(key("handles = 2\nfiles = { \"-1\" = 1 }"), "host.placement.files.-1");
        assert!(key("handles = 2\nfiles = { \"1\" = -1 }").starts_with("host.placement.files"));
        assert!(key("handles = 2\nwhat = 1").starts_with("host.placement.what"));
    }
}
