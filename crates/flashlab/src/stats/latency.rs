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
        Histogram {
            counts: vec![0; (64 - SUB_BITS as usize + 1) * SUB as usize],
            total: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
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

/// Latency summary in µs.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct LatencySummary {
    /// Requests measured.
    pub count: u64,
    /// Mean latency (µs).
    pub mean: f64,
    /// Median latency (µs; histogram bucket resolution).
    pub p50: f64,
    /// 99th-percentile latency (µs; histogram bucket resolution).
    pub p99: f64,
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
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_mid(b).clamp(self.min_ns, self.max_ns);
            }
        }
        self.max_ns
    }

    /// Count, mean, p50, p99 and max in µs (all 0 when empty).
    pub fn summary(&self) -> LatencySummary {
        if self.total == 0 {
            return LatencySummary::default();
        }
        LatencySummary {
            count: self.total,
            mean: self.sum_ns as f64 / self.total as f64 / 1e3,
            p50: self.quantile_ns(0.50) as f64 / 1e3,
            p99: self.quantile_ns(0.99) as f64 / 1e3,
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
}
