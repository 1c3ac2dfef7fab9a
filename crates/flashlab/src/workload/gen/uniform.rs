//! `uniform`: uniformly random aligned offsets over the footprint.
//!
//! Owns: nothing but the footprint size. A request of `s` units starts at a uniform aligned
//! position among the `footprint − s + 1` positions where it fits entirely, so every request
//! lies inside the footprint and no position is favoured. Extra keys: none.

use serde::Deserialize;

use super::params::{parse_common, parse_extras};
use super::stream::{seeded_rng, uniform_below, GenRng, Picker, Stream};
use crate::error::Error;
use crate::workload::{GenContext, Workload};

/// `uniform` takes only the common keys.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct UniformParams {}

/// Uniform over the positions where a request fits, in alignment units.
#[derive(Clone, Debug)]
pub struct UniformPicker {
    footprint_units: u64,
}

impl UniformPicker {
    /// Uniform over a footprint of `footprint_units` (at least 1) units.
    pub fn new(footprint_units: u64) -> Self {
        assert!(footprint_units > 0, "empty footprint");
        UniformPicker { footprint_units }
    }
}

impl Picker for UniformPicker {
    #[inline]
    fn pick(&mut self, rng: &mut GenRng, size_units: u64) -> u64 {
        assert!(size_units <= self.footprint_units, "request larger than the footprint");
        uniform_below(rng, self.footprint_units - size_units + 1)
    }
}

/// Build `uniform` from the `[workload]` table (common keys only).
pub fn build(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    let (common, rest) = parse_common(params, ctx)?;
    let _extras: UniformParams = parse_extras("uniform", rest, ctx)?;
    let picker = UniformPicker::new(common.footprint_units());
    let rng = seeded_rng(&common);
    Ok(Box::new(Stream::new(common, rng, picker)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_fitting_position_is_reached() {
        let mut rng = GenRng::seed_from_u64(3);
        let mut p = UniformPicker::new(8);
        let mut seen = [0u32; 8];
        for _ in 0..6_000 {
            seen[p.pick(&mut rng, 3) as usize] += 1;
        }
        assert!(seen[..6].iter().all(|&c| c > 800), "{seen:?}");
        assert_eq!(&seen[6..], &[0, 0], "a 3-unit request never starts past unit 5 of 8");
    }
}
