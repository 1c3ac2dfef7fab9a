//! Latency histogram: log-linear buckets (64 sub-buckets per power of two, ≤ 1.6% relative
//! error), O(1) record, fixed memory. Values in ns; summaries reported in µs.

/// Latencies in ns: counts in 64 log-linear buckets per power of two, plus the count, sum,
/// smallest and largest value.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
}

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; BUCKETS], total: 0, sum_ns: 0, min_ns: u64::MAX, max_ns: 0 }
    }
}

#[inline]
fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros() - SUB_BITS + 1; // ≥ 1
    let sub = (v >> (exp - 1)) - SUB; // in [0, SUB)
    (exp as u64 * SUB + sub) as usize
}

/// Lowest value of a bucket.
fn bucket_low(b: usize) -> u64 {
    let (exp, sub) = (b as u64 / SUB, b as u64 % SUB);
    if exp == 0 {
        sub
    } else {
        (SUB + sub) << (exp - 1)
    }
}

/// Middle of a bucket's value range (its best single estimate).
fn bucket_mid(b: usize) -> u64 {
    let exp = b as u64 / SUB;
    let width = if exp == 0 { 1 } else { 1u64 << (exp - 1) };
    bucket_low(b) + width / 2
}

/// Value at quantile `q` of `total` values in `buckets` ((bucket, count), ascending): the
/// middle of its bucket, clamped to the smallest and largest value seen, ns.
fn quantile_of(buckets: impl Iterator<Item = (usize, u64)>, total: u64, q: f64, min_ns: u64, max_ns: u64) -> u64 {
    let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    for (b, c) in buckets {
        seen += c;
        if seen >= rank {
            return bucket_mid(b).clamp(min_ns, max_ns);
        }
    }
    max_ns
}

/// Latency summary in µs.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct LatencySummary {
    /// Requests measured.
    pub count: u64,
    /// Mean latency (µs).
    pub mean: f64,
    /// Median latency (µs; histogram bucket resolution).
    pub p50: f64,
    /// 90th-percentile latency (µs; histogram bucket resolution).
    pub p90: f64,
    /// 99th-percentile latency (µs; histogram bucket resolution).
    pub p99: f64,
    /// 99.9th-percentile latency (µs; histogram bucket resolution).
    pub p999: f64,
    /// 99.99th-percentile latency (µs; histogram bucket resolution).
    pub p9999: f64,
    /// Largest latency (µs).
    pub max: f64,
}

impl Histogram {
    /// Add one latency of `ns` ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.record_n(ns, 1);
    }

    /// `n` requests of `ns` each: what `n` calls of [`Histogram::record`] leave.
    #[inline]
    pub fn record_n(&mut self, ns: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.counts[bucket(ns)] += n;
        self.total += n;
        self.sum_ns += ns as u128 * n as u128;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Latencies recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// Value at quantile `q` in [0, 1]: the middle of its bucket, clamped to the values seen, ns.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        quantile_of(self.counts.iter().copied().enumerate(), self.total, q, self.min_ns, self.max_ns)
    }

    /// Count, mean, p50, p90, p99, p99.9, p99.99 and max in µs (all 0 when empty).
    pub fn summary(&self) -> LatencySummary {
        if self.total == 0 {
            return LatencySummary::default();
        }
        let us = |q: f64| self.quantile_ns(q) as f64 / 1e3;
        LatencySummary {
            count: self.total,
            mean: self.sum_ns as f64 / self.total as f64 / 1e3,
            p50: us(0.50),
            p90: us(0.90),
            p99: us(0.99),
            p999: us(0.999),
            p9999: us(0.9999),
            max: self.max_ns as f64 / 1e3,
        }
    }

    /// (latency µs, cumulative fraction) points for a CDF plot, one per non-empty bucket.
    pub fn cdf_us(&self) -> Vec<(f64, f64)> {
        let mut seen = 0u64;
        let mut out = Vec::new();
        for (b, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                seen += c;
                out.push((bucket_low(b) as f64 / 1e3, seen as f64 / self.total as f64));
            }
        }
        out
    }
}

/// The latencies of one interval of a time series: a dense histogram that remembers which
/// buckets it touched, so taking its contents ([`IntervalHistogram::take`]) costs the buckets
/// used, not all of them, however short the interval.
#[derive(Clone, Debug)]
pub struct IntervalHistogram {
    counts: Vec<u64>,
    touched: Vec<u16>,
    min_ns: u64,
    max_ns: u64,
}

impl Default for IntervalHistogram {
    fn default() -> Self {
        IntervalHistogram { counts: vec![0; BUCKETS], touched: Vec::new(), min_ns: u64::MAX, max_ns: 0 }
    }
}

/// Buckets of a histogram (64 sub-buckets for each power of two a `u64` can reach).
pub const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB as usize;

impl IntervalHistogram {
    /// Add one latency of `ns` ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let b = bucket(ns);
        if self.counts[b] == 0 {
            self.touched.push(b as u16);
        }
        self.counts[b] += 1;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// The interval's latencies as a [`Sparse`] histogram; this one is left empty.
    pub fn take(&mut self) -> Sparse {
        self.touched.sort_unstable();
        let buckets = self.touched.iter().map(|&b| (b, std::mem::take(&mut self.counts[b as usize]))).collect();
        self.touched.clear();
        let s = Sparse { buckets, min_ns: self.min_ns, max_ns: self.max_ns };
        (self.min_ns, self.max_ns) = (u64::MAX, 0);
        s
    }
}

/// A histogram of the same buckets holding only the non-empty ones, ascending: an interval's
/// latencies, merged with its neighbour's when a series coarsens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sparse {
    buckets: Vec<(u16, u64)>,
    min_ns: u64,
    max_ns: u64,
}

impl Sparse {
    /// Latencies held.
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.1).sum()
    }

    /// Both intervals' latencies in one histogram.
    pub fn merge(&self, other: &Sparse) -> Sparse {
        let (a, b) = (&self.buckets, &other.buckets);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    out.push((x.0, x.1 + y.1));
                    (i, j) = (i + 1, j + 1);
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    out.push(*x);
                    i += 1;
                }
                (Some(x), None) => {
                    out.push(*x);
                    i += 1;
                }
                (_, Some(y)) => {
                    out.push(*y);
                    j += 1;
                }
                (None, None) => unreachable!("the loop runs while either has buckets"),
            }
        }
        Sparse { buckets: out, min_ns: self.min_ns.min(other.min_ns), max_ns: self.max_ns.max(other.max_ns) }
    }

    /// Value at quantile `q` in [0, 1] in µs, as [`Histogram::quantile_ns`] gives it; `None`
    /// when empty.
    pub fn quantile_us(&self, q: f64) -> Option<f64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let buckets = self.buckets.iter().map(|&(b, c)| (b as usize, c));
        Some(quantile_of(buckets, total, q, self.min_ns, self.max_ns) as f64 / 1e3)
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<(u16, u64)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut last = 0;
        for v in [0u64, 1, 63, 64, 65, 127, 128, 1000, 123_456, 9_999_999_999] {
            let b = bucket(v);
            assert!(b >= last);
            last = b;
            let lo = bucket_low(b);
            assert!(lo <= v && (v - lo) as f64 <= v as f64 / 63.0 + 1.0, "v={v} lo={lo}");
        }
    }

    #[test]
    fn quantiles_of_a_uniform_sequence() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        let s = h.summary();
        assert_eq!(s.count, 10_000);
        assert!((s.mean - 5000.5).abs() < 1e-6);
        assert!((s.p50 - 5000.0).abs() / 5000.0 < 0.01, "p50 {}", s.p50);
        assert!((s.p99 - 9900.0).abs() / 9900.0 < 0.01, "p99 {}", s.p99);
        assert_eq!(s.max, 10_000.0);
    }

    #[test]
    fn a_single_value_is_its_own_percentiles() {
        let mut h = Histogram::default();
        h.record(60_240);
        let s = h.summary();
        assert_eq!((s.p50, s.p99, s.max), (60.24, 60.24, 60.24));
    }

    #[test]
    fn interval_histograms_agree_with_the_whole_and_merge() {
        let (mut whole, mut a, mut b) =
            (Histogram::default(), IntervalHistogram::default(), IntervalHistogram::default());
        for v in 1..=5_000u64 {
            whole.record(v * 977);
            a.record(v * 977);
        }
        for v in 5_001..=10_000u64 {
            whole.record(v * 977);
            b.record(v * 977);
        }
        let (sa, sb) = (a.take(), b.take());
        assert_eq!(a.take(), Sparse { buckets: vec![], min_ns: u64::MAX, max_ns: 0 }, "taking empties it");
        let m = sa.merge(&sb);
        assert_eq!(m.count(), 10_000);
        for q in [0.5, 0.9, 0.99, 0.999, 0.9999] {
            assert_eq!(m.quantile_us(q), Some(whole.quantile_ns(q) as f64 / 1e3), "q {q}");
        }
        assert!(sa.quantile_us(0.99).unwrap() < sb.quantile_us(0.01).unwrap());
        assert_eq!(Sparse::default().quantile_us(0.5), None);
    }
}
