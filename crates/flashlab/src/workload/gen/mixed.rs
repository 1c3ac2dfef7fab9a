//! `mixed`: sequential runs broken by random jumps, for workloads "random + sequential" such as
//! the PC-application trace of the WADPM paper (Table 1).
//!
//! Owns: a cursor. Each request continues where the previous one ended with probability
//! `sequential_share` (default 0.5), otherwise starts at a uniform random aligned offset of the
//! footprint (a request that would cross the end of the footprint also jumps). So runs have a
//! geometric length with mean 1 / (1 − sequential_share) requests. Random draws per request: one
//! for continue-or-jump, one more for a jump.

use serde::Deserialize;

use super::params::{config, parse_common, parse_extras, share_threshold};
use super::stream::{draw53, seeded_rng, uniform_below, GenRng, Picker, Stream};
use crate::error::Error;
use crate::workload::{GenContext, Workload};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MixedParams {
    /// Probability that a request continues the previous one.
    pub sequential_share: f64,
}

impl Default for MixedParams {
    fn default() -> Self {
        MixedParams { sequential_share: 0.5 }
    }
}

pub struct MixedPicker {
    footprint_units: u64,
    next_units: u64,
    continue_below: u64,
}

impl Picker for MixedPicker {
    #[inline]
    fn pick(&mut self, rng: &mut GenRng, size_units: u64) -> u64 {
        assert!(size_units <= self.footprint_units, "request larger than the footprint");
        let cont = draw53(rng) < self.continue_below;
        let at = if cont && self.next_units + size_units <= self.footprint_units {
            self.next_units
        } else {
            uniform_below(rng, self.footprint_units - size_units + 1)
        };
        self.next_units = at + size_units;
        at
    }
}

pub fn build(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    let (common, rest) = parse_common(params, ctx)?;
    let extras: MixedParams = parse_extras("mixed", rest, ctx)?;
    if !(0.0..=1.0).contains(&extras.sequential_share) {
        return Err(config("sequential_share", format!("{} is not a probability in [0, 1]", extras.sequential_share)));
    }
    let picker = MixedPicker {
        footprint_units: common.footprint_units(),
        next_units: 0,
        continue_below: share_threshold(extras.sequential_share),
    };
    let rng = seeded_rng(&common);
    Ok(Box::new(Stream::new(common, rng, picker)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requests(share: f64, n: usize) -> Vec<crate::workload::Request> {
        let ctx = GenContext { capacity_bytes: 64 << 20, page_size: 4096, seed: 7, source: "t".into() };
        let table: toml::Table = format!("sequential_share = {share}\nrequests = {n}").parse().unwrap();
        let mut w = build(table, &ctx).unwrap();
        std::iter::from_fn(|| w.next_request().unwrap()).collect()
    }

    #[test]
    fn runs_continue_with_the_given_probability() {
        for share in [0.0, 0.5, 0.9] {
            let r = requests(share, 20_000);
            let cont =
                r.windows(2).filter(|w| w[1].offset == w[0].offset + w[0].len).count() as f64 / (r.len() - 1) as f64;
            assert!((cont - share).abs() < 0.02, "share {share}: continued {cont}");
            assert!(r.iter().all(|q| q.offset % 4096 == 0 && q.offset + q.len <= 64 << 20));
        }
    }

    #[test]
    fn a_share_outside_0_1_is_rejected() {
        let ctx = GenContext { capacity_bytes: 1 << 20, page_size: 4096, seed: 1, source: "t".into() };
        let err = build("sequential_share = 1.5".parse().unwrap(), &ctx).err().unwrap().to_string();
        assert!(err.contains("workload.sequential_share"), "{err}");
    }
}
