//! `hotcold`: a share `hot_access` of requests (default 0.8) lands uniformly on a share
//! `hot_space` of the footprint (default 0.2); the rest land uniformly on the remainder.
//!
//! Owns: the split of the footprint. Placement: the hot region is contiguous at the *start* of
//! the footprint, `[start, start + hot)`, with `hot = round(hot_space × footprint)` in alignment
//! units; the cold region is the rest, `[start + hot, start + footprint)`. Within a region a
//! request starts uniformly among the positions where it fits entirely inside that region, so
//! the access shares hold exactly per request. Only when a request is larger than its region
//! does it start at the region's beginning, clamped so that it ends inside the footprint (it
//! then spills into the other region; avoid this by keeping both regions larger than the
//! largest request).
//!
//! Fault model: `hot_access` outside [0, 1], `hot_space` outside (0, 1), or a footprint too
//! small to give both regions at least one alignment unit are configuration errors.

use serde::Deserialize;

use super::params::{config, parse_common, parse_extras, share_threshold};
use super::stream::{draw53, seeded_rng, uniform_below, GenRng, Picker, Stream};
use crate::error::Error;
use crate::workload::{GenContext, Workload};

/// Keys of `hotcold` beyond the common ones.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HotColdParams {
    /// Probability that a request goes to the hot region, in [0, 1].
    pub hot_access: f64,
    /// Share of the footprint that is hot, in (0, 1).
    pub hot_space: f64,
}

impl Default for HotColdParams {
    fn default() -> Self {
        HotColdParams { hot_access: 0.8, hot_space: 0.2 }
    }
}

/// Two uniform regions, in alignment units.
#[derive(Clone, Debug)]
pub struct HotColdPicker {
    footprint_units: u64,
    /// The hot region is `[0, hot_units)`, the cold one `[hot_units, footprint_units)`.
    hot_units: u64,
    /// `draw53 < hot_below` → hot.
    hot_below: u64,
}

impl HotColdPicker {
    /// Split a footprint of `footprint_units` units; an error when a share is out of range or a
    /// region would be empty.
    pub fn new(footprint_units: u64, params: &HotColdParams) -> Result<Self, Error> {
        if !(0.0..=1.0).contains(&params.hot_access) {
            return Err(config("hot_access", format!("must be between 0.0 and 1.0 (got {})", params.hot_access)));
        }
        if !(params.hot_space > 0.0 && params.hot_space < 1.0) {
            return Err(config(
                "hot_space",
                format!("must be strictly between 0.0 and 1.0 (got {})", params.hot_space),
            ));
        }
        let hot_units = (params.hot_space * footprint_units as f64).round() as u64;
        if hot_units == 0 || hot_units >= footprint_units {
            return Err(config(
                "hot_space",
                format!("{} of a {footprint_units}-unit footprint leaves a region empty", params.hot_space),
            ));
        }
        let hot_below = share_threshold(params.hot_access);
        assert!(hot_units > 0 && hot_units < footprint_units);
        Ok(HotColdPicker { footprint_units, hot_units, hot_below })
    }

    /// Size of the hot region in alignment units.
    pub fn hot_units(&self) -> u64 {
        self.hot_units
    }

    /// A uniform start in `[low, high)` where a request of `size_units` fits; clamped into the
    /// footprint when the region is too small for it.
    #[inline]
    fn in_region(&self, rng: &mut GenRng, low: u64, high: u64, size_units: u64) -> u64 {
        debug_assert!(low < high && high <= self.footprint_units);
        if high - low >= size_units {
            low + uniform_below(rng, high - low - size_units + 1)
        } else {
            low.min(self.footprint_units - size_units)
        }
    }
}

impl Picker for HotColdPicker {
    #[inline]
    fn pick(&mut self, rng: &mut GenRng, size_units: u64) -> u64 {
        assert!(size_units <= self.footprint_units, "request larger than the footprint");
        if draw53(rng) < self.hot_below {
            self.in_region(rng, 0, self.hot_units, size_units)
        } else {
            self.in_region(rng, self.hot_units, self.footprint_units, size_units)
        }
    }
}

/// Build `hotcold` from the `[workload]` table: the common keys, `hot_access` and `hot_space`.
pub fn build(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    let (common, rest) = parse_common(params, ctx)?;
    let extras: HotColdParams = parse_extras("hotcold", rest, ctx)?;
    let picker = HotColdPicker::new(common.footprint_units(), &extras)?;
    let rng = seeded_rng(&common);
    Ok(Box::new(Stream::new(common, rng, picker)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn regions_split_at_the_rounded_share() {
        let p = HotColdPicker::new(1000, &HotColdParams::default()).unwrap();
        assert_eq!(p.hot_units(), 200);
        let edge = HotColdParams { hot_access: 0.8, hot_space: 0.0001 };
        assert!(HotColdPicker::new(1000, &edge).unwrap_err().to_string().contains("workload.hot_space"));
    }

    #[test]
    fn requests_stay_inside_their_region() {
        let mut rng = GenRng::seed_from_u64(4);
        let mut p = HotColdPicker::new(100, &HotColdParams { hot_access: 0.5, hot_space: 0.2 }).unwrap();
        for _ in 0..10_000 {
            let at = p.pick(&mut rng, 4);
            assert!(at + 4 <= 20 || at >= 20, "request at {at} straddles the region boundary");
            assert!(at + 4 <= 100);
        }
    }

    #[test]
    fn oversized_requests_are_clamped_into_the_footprint() {
        let mut rng = GenRng::seed_from_u64(5);
        let mut p = HotColdPicker::new(10, &HotColdParams { hot_access: 0.0, hot_space: 0.8 }).unwrap();
        assert_eq!(p.pick(&mut rng, 5), 5, "cold region [8, 10) is too small: clamp to 10 - 5");
    }
}
