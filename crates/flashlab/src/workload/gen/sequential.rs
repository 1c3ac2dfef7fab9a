//! `sequential`: requests in address order over the footprint, wrapping around.
//!
//! Owns: the cursor. The first request starts at the start of the footprint; each next request
//! starts where the previous one ended; a request that would cross the end of the footprint
//! starts again at its beginning instead (so with mixed sizes the last few units before the end
//! may be skipped on that pass). No random draws for addresses. Extra keys: none.

use serde::Deserialize;

use super::params::{parse_common, parse_extras};
use super::stream::{seeded_rng, GenRng, Picker, Stream};
use crate::error::Error;
use crate::workload::{GenContext, Workload};

/// `sequential` takes only the common keys.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SequentialParams {}

/// The cursor over the footprint, in alignment units.
#[derive(Clone, Debug)]
pub struct SequentialPicker {
    footprint_units: u64,
    next_units: u64,
}

impl SequentialPicker {
    /// A cursor at the start of a footprint of `footprint_units` (at least 1) units.
    pub fn new(footprint_units: u64) -> Self {
        assert!(footprint_units > 0, "empty footprint");
        SequentialPicker { footprint_units, next_units: 0 }
    }
}

impl Picker for SequentialPicker {
    #[inline]
    fn pick(&mut self, _rng: &mut GenRng, size_units: u64) -> u64 {
        assert!(size_units <= self.footprint_units, "request larger than the footprint");
        if self.next_units + size_units > self.footprint_units {
            self.next_units = 0;
        }
        let at = self.next_units;
        self.next_units += size_units;
        assert!(self.next_units <= self.footprint_units);
        at
    }
}

/// Build `sequential` from the `[workload]` table (common keys only).
pub fn build(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    let (common, rest) = parse_common(params, ctx)?;
    let _extras: SequentialParams = parse_extras("sequential", rest, ctx)?;
    let picker = SequentialPicker::new(common.footprint_units());
    let rng = seeded_rng(&common);
    Ok(Box::new(Stream::new(common, rng, picker)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn wraps_when_the_next_request_does_not_fit() {
        let mut rng = GenRng::seed_from_u64(0);
        let mut p = SequentialPicker::new(10);
        let got: Vec<u64> = [4, 4, 4, 1, 4].iter().map(|&s| p.pick(&mut rng, s)).collect();
        assert_eq!(got, vec![0, 4, 0, 4, 5]);
    }
}
