//! Per-interval series over host page writes.
//!
//! The total number of host writes is not known in advance for a streamed trace, so the series
//! samples cumulative counters every `step` host writes, starting with `step = 1` and doubling
//! it (dropping every other sample) whenever more than `4 * min_intervals` samples exist. The
//! result has between `2 * min_intervals` and `4 * min_intervals` equal intervals (the last may
//! be partial) whatever the run length, in O(1) amortised time per write. When the run length
//! is known (e.g. "10 equal intervals" of a fixed write volume), [`Series::fixed`] samples every
//! `step` writes exactly and never coarsens.
//!
//! In timing mode each interval also carries its requests' latencies (a [`Sparse`] histogram
//! each for reads and writes; a coarsening merges neighbours' histograms as it merges their
//! counts), the bytes the host moved and the simulated clock at its end, for percentiles and
//! throughput over time.

use super::latency::Sparse;

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
    /// Host bytes read and written.
    pub bytes: u64,
    /// Simulated time of the latest completion, ns from the first arrival (timing mode).
    pub clock_ns: u64,
}

/// The latencies of one interval's read and write requests (timing mode).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntervalLatency {
    /// Read requests.
    pub read: Sparse,
    /// Write requests.
    pub write: Sparse,
}

impl IntervalLatency {
    fn merge(&self, other: &IntervalLatency) -> IntervalLatency {
        IntervalLatency { read: self.read.merge(&other.read), write: self.write.merge(&other.write) }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.read.heap_bytes() + self.write.heap_bytes()
    }
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
    /// Simulated seconds from the first arrival to the interval's last completion (cumulative;
    /// timing mode, else null).
    pub time_s: Option<f64>,
    /// Host bytes read and written within the interval per simulated second of it, MiB/s
    /// (per-interval; timing mode, else null; null for an interval of no simulated time).
    pub throughput_mib_s: Option<f64>,
    /// Median latency of the read requests served within the interval, µs (per-interval;
    /// timing mode, null when the interval served no read).
    pub read_p50_us: Option<f64>,
    /// 99th-percentile read latency within the interval, µs (per-interval; as `read_p50_us`).
    pub read_p99_us: Option<f64>,
    /// 99.9th-percentile read latency within the interval, µs (per-interval; as `read_p50_us`).
    pub read_p999_us: Option<f64>,
    /// Median latency of the write requests served within the interval, µs (per-interval;
    /// timing mode, null when the interval served no write).
    pub write_p50_us: Option<f64>,
    /// 99th-percentile write latency within the interval, µs (per-interval; as `write_p50_us`).
    pub write_p99_us: Option<f64>,
    /// 99.9th-percentile write latency within the interval, µs (per-interval; as
    /// `write_p50_us`).
    pub write_p999_us: Option<f64>,
}

/// The samples of a run so far, one every `step` host page writes (see the module docs for how
/// `step` grows).
#[derive(Clone, Debug)]
pub struct Series {
    min_intervals: usize,
    step: u64,
    next_at: u64,
    samples: Vec<Sample>,
    /// Per sample, the latencies of the interval it ends (timing mode; else empty).
    latency: Vec<IntervalLatency>,
    /// Latencies of an interval whose sample a coarsening dropped: they belong to the next.
    carry: Option<IntervalLatency>,
    /// Fixed step: never coarsen.
    fixed: bool,
}

impl Series {
    /// Sample every host write at first, doubling the step whenever more than `4 * min_intervals`
    /// samples exist (`min_intervals` at least 1).
    pub fn new(min_intervals: usize) -> Self {
        assert!(min_intervals >= 1);
        Series {
            min_intervals,
            step: 1,
            next_at: 1,
            samples: Vec::new(),
            latency: Vec::new(),
            carry: None,
            fixed: false,
        }
    }

    /// Sample every `step` host writes exactly.
    pub fn fixed(step: u64) -> Self {
        assert!(step >= 1);
        Series {
            min_intervals: 1,
            step,
            next_at: step,
            samples: Vec::new(),
            latency: Vec::new(),
            carry: None,
            fixed: true,
        }
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
        self.record_with(s, None);
    }

    /// [`Series::record`], with the latencies of the interval `s` ends (timing mode: give them
    /// for every sample or for none).
    pub fn record_with(&mut self, s: Sample, latency: Option<IntervalLatency>) {
        debug_assert!(s.host_writes >= self.next_at);
        self.samples.push(s);
        if let Some(mut l) = latency {
            if let Some(c) = self.carry.take() {
                l = c.merge(&l);
            }
            self.latency.push(l);
        }
        self.next_at += self.step;
        if !self.fixed && self.samples.len() > 4 * self.min_intervals {
            let kept: Vec<Sample> = self.samples.iter().skip(1).step_by(2).copied().collect();
            if !self.latency.is_empty() {
                // Kept sample k ends old intervals 2k and 2k + 1; an odd one out joins the next.
                let pairs = self.latency.chunks_exact(2);
                self.carry = pairs.remainder().first().cloned();
                self.latency = pairs.map(|p| p[0].merge(&p[1])).collect();
            }
            self.samples = kept;
            self.step *= 2;
            self.next_at = self.samples.last().map_or(0, |s| s.host_writes) + self.step;
        }
    }

    /// Heap bytes of the interval latencies held.
    pub fn latency_bytes(&self) -> usize {
        self.latency.iter().chain(&self.carry).map(IntervalLatency::heap_bytes).sum()
    }

    /// Intervals, closing with `last` (the counters at the end of the run): a new interval if
    /// it adds host writes, else it extends the last interval (reads after the last write, the
    /// clock). `tail`: the latencies since the last sample (timing mode).
    pub fn points(&self, last: Sample, tail: Option<IntervalLatency>) -> Vec<SeriesPoint> {
        let mut all = self.samples.clone();
        let mut latency = self.latency.clone();
        let tail = match (self.carry.clone(), tail) {
            (Some(c), Some(t)) => Some(c.merge(&t)),
            (c, t) => c.or(t),
        };
        match all.last_mut() {
            Some(s) if s.host_writes >= last.host_writes => {
                *s = last;
                if let (Some(l), Some(t)) = (latency.last_mut(), tail) {
                    *l = l.merge(&t);
                }
            }
            _ => {
                all.push(last);
                latency.extend(tail);
            }
        }
        let timed = latency.len() == all.len();
        let mut prev = Sample::default();
        let mut out = Vec::with_capacity(all.len());
        for (i, s) in all.iter().enumerate() {
            let lat = latency.get(i).filter(|_| timed);
            let q = |h: &Sparse, q: f64| lat.and(h.quantile_us(q));
            let (r, w) = lat.map_or((None, None), |l| (Some(&l.read), Some(&l.write)));
            let dt = s.clock_ns.saturating_sub(prev.clock_ns);
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
                time_s: lat.map(|_| s.clock_ns as f64 / 1e9),
                throughput_mib_s: lat
                    .filter(|_| dt > 0)
                    .map(|_| (s.bytes - prev.bytes) as f64 / (1u64 << 20) as f64 / (dt as f64 / 1e9)),
                read_p50_us: r.and_then(|h| q(h, 0.50)),
                read_p99_us: r.and_then(|h| q(h, 0.99)),
                read_p999_us: r.and_then(|h| q(h, 0.999)),
                write_p50_us: w.and_then(|h| q(h, 0.50)),
                write_p99_us: w.and_then(|h| q(h, 0.99)),
                write_p999_us: w.and_then(|h| q(h, 0.999)),
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
            let pts = s.points(
                Sample { host_writes: total, flash_programs: 2 * total, gc_copies: total, ..Sample::default() },
                None,
            );
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
        let pts = s.points(Sample { host_writes: 10_000, flash_programs: 30_000, ..Sample::default() }, None);
        assert_eq!(pts.len(), 10);
        assert!(pts.iter().enumerate().all(|(i, p)| p.host_writes == 1000 * (i as u64 + 1) && p.running_waf == 3.0));
    }

    #[test]
    fn interval_latencies_follow_the_coarsening() {
        use crate::stats::IntervalHistogram;
        // Write w (of 1..=1000) takes w µs and the clock advances 1 ms a write: each interval's
        // median is its middle write's latency, whatever the coarsening merged.
        let mut s = Series::new(5);
        let mut h = IntervalHistogram::default();
        for w in 1..=1000u64 {
            h.record(w * 1000);
            if s.due(w) {
                let sample = Sample { host_writes: w, bytes: 4096 * w, clock_ns: w * 1_000_000, ..Sample::default() };
                s.record_with(sample, Some(IntervalLatency { read: Sparse::default(), write: h.take() }));
            }
        }
        let last =
            Sample { host_writes: 1000, bytes: 4096 * 1000 + 8192, clock_ns: 1_002_000_000, ..Sample::default() };
        let pts = s.points(last, Some(IntervalLatency { read: Sparse::default(), write: h.take() }));
        let mut prev = 0;
        for p in &pts {
            let mid = (prev + p.host_writes + 1) as f64 / 2.0;
            let p50 = p.write_p50_us.unwrap();
            assert!(
                (p50 - mid).abs() <= mid * 0.02 + 1.0,
                "interval {} ending {}: p50 {p50}, middle {mid}",
                p.interval,
                p.host_writes
            );
            assert_eq!(p.read_p50_us, None, "no reads");
            let tp = p.throughput_mib_s.unwrap();
            assert!(tp > 3.8 && tp < 4.0, "4096 bytes a ms is 3.9 MiB/s: {tp}");
            prev = p.host_writes;
        }
        assert_eq!(pts.last().unwrap().time_s, Some(1.002), "the last interval runs to the end");
        // Without latencies (accounting mode) the timing columns are null.
        let mut s = Series::new(5);
        for w in 1..=100 {
            if s.due(w) {
                s.record(Sample { host_writes: w, ..Sample::default() });
            }
        }
        let pts = s.points(Sample { host_writes: 100, ..Sample::default() }, None);
        assert!(pts.iter().all(|p| p.time_s.is_none() && p.write_p99_us.is_none() && p.throughput_mib_s.is_none()));
    }
}
