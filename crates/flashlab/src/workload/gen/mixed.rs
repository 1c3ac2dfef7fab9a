//! `mixed`: sequential runs broken by random jumps, for workloads "random + sequential" such as
//! the PC-application trace of the WADPM paper (Table 1).
//!
//! Owns: a cursor. Each request continues where the previous one ended with probability
//! `sequential_share` (default 0.5), otherwise starts at a uniform random aligned offset of the
//! footprint (a request that would cross the end of the footprint also jumps). So runs have a
//! geometric length with mean 1 / (1 − sequential_share) requests. With `resume = true` a jump
//! is an excursion: the request after it continues the run where the run left off (a file
//! system's small scattered writes interleaved with a file being written in order), so runs
//! are as long as the footprint allows. `jump_span` keeps jumps near the run: a jump lands
//! uniformly within that many bytes before or after the run's position (default: anywhere in
//! the footprint), as real file-system traces' jumps mostly do (`flashlab trace stats` gives
//! their distances). Random draws per request: one for continue-or-jump, one more for a jump.

use serde::Deserialize;

use super::params::{config, parse_common, parse_extras, share_threshold};
use super::stream::{draw53, seeded_rng, uniform_below, GenRng, Picker, Stream};
use crate::error::Error;
use crate::units::ByteSize;
use crate::workload::{GenContext, Workload};

/// Keys of `mixed` beyond the common ones.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MixedParams {
    /// Probability that a request continues the sequential run.
    pub sequential_share: f64,
    /// A jump is an excursion: the run resumes after it (default: the run restarts there).
    pub resume: bool,
    /// Jumps land within this distance of the run's position (default: anywhere).
    pub jump_span: Option<ByteSize>,
}

impl Default for MixedParams {
    fn default() -> Self {
        MixedParams { sequential_share: 0.5, resume: false, jump_span: None }
    }
}

/// The run's cursor and the jump rule, in alignment units: continue the run or jump.
pub struct MixedPicker {
    footprint_units: u64,
    next_units: u64,
    continue_below: u64,
    resume: bool,
    /// Jump distance limit in alignment units (`u64::MAX`: anywhere).
    span_units: u64,
}

impl Picker for MixedPicker {
    #[inline]
    fn pick(&mut self, rng: &mut GenRng, size_units: u64) -> u64 {
        assert!(size_units <= self.footprint_units, "request larger than the footprint");
        let cont = draw53(rng) < self.continue_below;
        if cont && self.next_units + size_units <= self.footprint_units {
            let at = self.next_units;
            self.next_units = at + size_units;
            return at;
        }
        let last_start = self.footprint_units - size_units;
        let at = if self.span_units == u64::MAX {
            uniform_below(rng, last_start + 1)
        } else {
            let lo = self.next_units.saturating_sub(self.span_units).min(last_start);
            let hi = self.next_units.saturating_add(self.span_units).min(last_start);
            lo + uniform_below(rng, hi - lo + 1)
        };
        // An excursion leaves the run where it was, unless the run reached the footprint's end.
        if !self.resume || cont {
            self.next_units = at + size_units;
        }
        at
    }
}

/// Build `mixed` from the `[workload]` table: the common keys, `sequential_share`, `resume` and
/// `jump_span`.
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
        resume: extras.resume,
        span_units: match extras.jump_span {
            None => u64::MAX,
            Some(ByteSize(0)) => return Err(config("jump_span", "must be at least one alignment unit")),
            Some(ByteSize(b)) => b.div_ceil(common.align_bytes),
        },
    };
    let rng = seeded_rng(&common);
    Ok(Box::new(Stream::new(common, rng, picker)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requests(share: f64, n: usize) -> Vec<crate::workload::Request> {
        requests_with(&format!("sequential_share = {share}\nrequests = {n}"))
    }

    fn requests_with(params: &str) -> Vec<crate::workload::Request> {
        let ctx = GenContext { capacity_bytes: 64 << 20, page_size: 4096, seed: 7, source: "t".into() };
        let table: toml::Table = params.parse().unwrap();
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

    /// With `resume`, the request after an excursion continues the run: the requests that are
    /// not excursions, taken alone, are one sequential run (wrapping at the footprint's end).
    #[test]
    fn resumed_runs_continue_after_excursions() {
        let r = requests_with("sequential_share = 0.8\nresume = true\nrequests = 20000\nrequest_size = \"8KiB\"");
        let (mut next, mut excursions, mut restarts) = (r[0].offset + r[0].len, 0, 0);
        for q in &r[1..] {
            if q.offset == next {
                next += q.len;
            } else if next + q.len > 64 << 20 {
                restarts += 1; // the run hit the end of the footprint and starts elsewhere
                next = q.offset + q.len;
            } else {
                excursions += 1;
            }
        }
        let share = excursions as f64 / (r.len() - 1) as f64;
        assert!((share - 0.2).abs() < 0.02, "excursions {share}");
        // 125 MiB of in-run writes over a 64 MiB footprint: a run reaches its end a few times
        // (each restart begins at a random offset), against ~4,000 excursions.
        assert!(restarts <= 8, "runs end only at the footprint's end: {restarts} restarts");
        // Without resume the same draws restart the run at each jump.
        let r = requests_with("sequential_share = 0.8\nrequests = 20000\nrequest_size = \"8KiB\"");
        let cont = r.windows(2).filter(|w| w[1].offset == w[0].offset + w[0].len).count() as f64 / (r.len() - 1) as f64;
        assert!((cont - 0.8).abs() < 0.02, "{cont}");
    }

    /// Jumps land within `jump_span` of the run's position, on both sides. (Without `resume`
    /// the run's position is always the previous request's end.)
    #[test]
    fn jumps_stay_within_their_span() {
        let r =
            requests_with("sequential_share = 0.7\njump_span = \"64KiB\"\nrequests = 20000\nrequest_size = \"4KiB\"");
        let (mut before, mut after) = (0, 0);
        for w in r.windows(2) {
            let d = w[1].offset as i64 - (w[0].offset + w[0].len) as i64;
            assert!(d.abs() <= 64 << 10, "jump of {d} bytes");
            if d < 0 {
                before += 1
            } else if d > 0 {
                after += 1
            }
        }
        assert!(before > 2000 && after > 2000, "both sides: {before} before, {after} after");
        let ctx = GenContext { capacity_bytes: 1 << 20, page_size: 4096, seed: 1, source: "t".into() };
        let err = build("jump_span = 0".parse().unwrap(), &ctx).err().unwrap().to_string();
        assert!(err.contains("workload.jump_span"), "{err}");
    }

    #[test]
    fn a_share_outside_0_1_is_rejected() {
        let ctx = GenContext { capacity_bytes: 1 << 20, page_size: 4096, seed: 1, source: "t".into() };
        let err = build("sequential_share = 1.5".parse().unwrap(), &ctx).err().unwrap().to_string();
        assert!(err.contains("workload.sequential_share"), "{err}");
    }
}
