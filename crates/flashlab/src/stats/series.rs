//! Per-interval series over host page writes.
//!
//! The total number of host writes is not known in advance for a streamed trace, so the series
//! samples cumulative counters every `step` host writes, starting with `step = 1` and doubling
//! it (dropping every other sample) whenever more than `4 * min_intervals` samples exist. The
//! result has between `2 * min_intervals` and `4 * min_intervals` equal intervals (the last may
//! be partial) whatever the run length, in O(1) amortised time per write. When the run length
//! is known (e.g. "10 equal intervals" of a fixed write volume), [`Series::fixed`] samples every
//! `step` writes exactly and never coarsens.

/// Cumulative counters at the end of an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Sample {
    /// Host page writes that reached the FTL.
    pub host_writes: u64,
    /// Flash page programs.
    pub flash_programs: u64,
    /// Block erases.
    pub erases: u64,
    /// Pages moved by GC.
    pub gc_copies: u64,
    /// Pages GC moved into a cold region, and of those, sent back by host writes.
    pub moved_into_cold: u64,
    /// Of `moved_into_cold`, pages a host write sent back.
    pub returned: u64,
}

/// One interval of the series, as written to CSV and results.json.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct SeriesPoint {
    /// Interval number, from 0 (per-interval).
    pub interval: usize,
    /// Host page writes from the start of the measured phase to the end of the interval
    /// (cumulative; pages that reached the FTL).
    pub host_writes: u64,
    /// Flash programs / host page writes within the interval (per-interval).
    pub running_waf: f64,
    /// Flash programs / host page writes from the start to the end of the interval (cumulative).
    pub cumulative_waf: f64,
    /// Block erases within the interval (per-interval).
    pub erases: u64,
    /// Pages moved by GC within the interval (per-interval).
    pub gc_copies: u64,
    /// Pages GC moved into a cold region within the interval (per-interval).
    pub moved_into_cold: u64,
    /// Of the pages in a cold region, those a host write sent back, within the interval
    /// (per-interval).
    pub returned: u64,
    /// Share of the logical space frozen at the end of the interval: written before and never
    /// written again (at the interval's end; null unless `sim.track_frozen`).
    pub frozen_share: Option<f64>,
}

/// The samples of a run so far, one every `step` host page writes (see the module docs for how
/// `step` grows).
#[derive(Clone, Debug)]
pub struct Series {
    min_intervals: usize,
    step: u64,
    next_at: u64,
    samples: Vec<Sample>,
    /// Fixed step: never coarsen.
    fixed: bool,
}

impl Series {
    /// Sample every host write at first, doubling the step whenever more than `4 * min_intervals`
    /// samples exist (`min_intervals` at least 1).
    pub fn new(min_intervals: usize) -> Self {
        assert!(min_intervals >= 1);
        Series { min_intervals, step: 1, next_at: 1, samples: Vec::new(), fixed: false }
    }

    /// Sample every `step` host writes exactly.
    pub fn fixed(step: u64) -> Self {
        assert!(step >= 1);
        Series { min_intervals: 1, step, next_at: step, samples: Vec::new(), fixed: true }
    }

    /// Is a sample due at `host_writes`? (Cheap check for the hot path.)
    #[inline]
    pub fn due(&self, host_writes: u64) -> bool {
        host_writes >= self.next_at
    }

    /// Host writes at which the next sample is due.
    pub fn next_at(&self) -> u64 {
        self.next_at
    }

    /// Keep `s`, the counters when the sample fell due (`s.host_writes` at least
    /// [`Series::next_at`]), and set the next due point; may coarsen the series.
    pub fn record(&mut self, s: Sample) {
        debug_assert!(s.host_writes >= self.next_at);
        self.samples.push(s);
        self.next_at += self.step;
        if !self.fixed && self.samples.len() > 4 * self.min_intervals {
            let kept: Vec<Sample> = self.samples.iter().skip(1).step_by(2).copied().collect();
            self.samples = kept;
            self.step *= 2;
            self.next_at = self.samples.last().map_or(0, |s| s.host_writes) + self.step;
        }
    }

    /// Intervals, closing with `last` (the counters at the end of the run) if it adds writes.
    pub fn points(&self, last: Sample) -> Vec<SeriesPoint> {
        let mut all = self.samples.clone();
        if all.last().is_none_or(|s| s.host_writes < last.host_writes) {
            all.push(last);
        }
        let mut prev = Sample::default();
        let mut out = Vec::with_capacity(all.len());
        for (i, s) in all.iter().enumerate() {
            let dw = s.host_writes - prev.host_writes;
            let dp = s.flash_programs - prev.flash_programs;
            out.push(SeriesPoint {
                interval: i,
                host_writes: s.host_writes,
                running_waf: if dw == 0 { 0.0 } else { dp as f64 / dw as f64 },
                cumulative_waf: if s.host_writes == 0 { 0.0 } else { s.flash_programs as f64 / s.host_writes as f64 },
                erases: s.erases - prev.erases,
                gc_copies: s.gc_copies - prev.gc_copies,
                moved_into_cold: s.moved_into_cold - prev.moved_into_cold,
                returned: s.returned - prev.returned,
                frozen_share: None,
            });
            prev = *s;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_between_two_and_four_times_the_minimum_equal_intervals() {
        for total in [25u64, 1000, 123_457] {
            let mut s = Series::new(10);
            for w in 1..=total {
                if s.due(w) {
                    s.record(Sample { host_writes: w, flash_programs: 2 * w, gc_copies: w, ..Sample::default() });
                }
            }
            let pts = s.points(Sample {
                host_writes: total,
                flash_programs: 2 * total,
                gc_copies: total,
                ..Sample::default()
            });
            assert!(pts.len() >= 20 && pts.len() <= 41, "total {total}: {} intervals", pts.len());
            let widths: Vec<u64> = pts.windows(2).map(|w| w[1].host_writes - w[0].host_writes).collect();
            let full = widths[0];
            assert!(widths[..widths.len() - 1].iter().all(|&x| x == full), "equal intervals: {widths:?}");
            assert!(pts.iter().all(|p| (p.running_waf - 2.0).abs() < 1e-12));
            assert_eq!(pts.last().unwrap().host_writes, total);
        }
    }

    #[test]
    fn a_fixed_step_gives_exactly_that_many_equal_intervals() {
        let mut s = Series::fixed(1000);
        for w in 1..=10_000u64 {
            if s.due(w) {
                s.record(Sample { host_writes: w, flash_programs: 3 * w, ..Sample::default() });
            }
        }
        let pts = s.points(Sample { host_writes: 10_000, flash_programs: 30_000, ..Sample::default() });
        assert_eq!(pts.len(), 10);
        assert!(pts.iter().enumerate().all(|(i, p)| p.host_writes == 1000 * (i as u64 + 1) && p.running_waf == 3.0));
    }
}
