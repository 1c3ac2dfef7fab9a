//! The machinery every generator shares: it turns an address [`Picker`] into a [`Workload`].
//!
//! Owns: the generator's one random number generator (`Xoshiro256PlusPlus`, seeded from the
//! validated seed), the choice of operation (read / trim / write) and of request size, the end of
//! the stream, time stamps and progress. A generator file only decides *where* the next request
//! goes; everything else is decided here, identically for all generators, so that reads, trims
//! and writes draw addresses from the same distribution.
//!
//! Per request the random draws are, in order: the operation (only when `read_share` or
//! `trim_share` is non-zero), the size (only when `request_size` is a table), then whatever the
//! picker draws. Same seed and parameters → the same stream, on every platform (the only
//! floating point on the hot path is the zipf picker's, which uses IEEE `f64` operations and
//! `powf`).
//!
//! Fault model: all user input was validated by `params`; a broken invariant here (a request
//! outside the footprint, a misaligned offset) is a bug and panics naming it.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::params::{share_threshold, CommonParams, Limit, SizeTable};
use crate::error::Error;
use crate::workload::{Op, Request, Workload};

/// The random number generator every generator uses.
pub type GenRng = Xoshiro256PlusPlus;

/// Where requests go: the one decision a generator file makes.
pub trait Picker: Send {
    /// Start of the next request, in alignment units from the start of the footprint, for a
    /// request of `size_units` units. The request must fit: `at + size_units <= footprint_units`.
    fn pick(&mut self, rng: &mut GenRng, size_units: u64) -> u64;
}

/// A uniform integer in `[0, span)` by the widening multiply (Lemire); the bias is below
/// `span / 2^64`, far below anything a simulation can observe.
#[inline]
pub fn uniform_below(rng: &mut GenRng, span: u64) -> u64 {
    debug_assert!(span > 0, "uniform_below needs a non-empty range");
    ((rng.next_u64() as u128 * span as u128) >> 64) as u64
}

/// Top 53 bits of a draw, compared with thresholds from [`share_threshold`].
#[inline]
pub fn draw53(rng: &mut GenRng) -> u64 {
    rng.next_u64() >> 11
}

/// A generator: the common parameters plus a picker.
pub struct Stream<P: Picker> {
    rng: GenRng,
    picker: P,
    /// `draw53 < read_below` → read; `< trim_below` → trim; else write.
    read_below: u64,
    trim_below: u64,
    mixed_ops: bool,
    sizes: SizeTable,
    align_bytes: u64,
    start_bytes: u64,
    footprint_units: u64,
    limit: Limit,
    iat_ns: u64,
    done_bytes: u64,
    done_requests: u64,
}

/// The generator's RNG, seeded from the validated seed. A picker that needs random set-up (such
/// as fio's zipf offset) draws it from this first; then [`Stream::new`] takes it over.
pub fn seeded_rng(common: &CommonParams) -> GenRng {
    GenRng::seed_from_u64(common.seed)
}

impl<P: Picker> Stream<P> {
    /// The stream `common` describes, drawing from `rng` (from [`seeded_rng`], after any set-up
    /// draws of the picker) and placing requests with `picker`.
    pub fn new(common: CommonParams, rng: GenRng, picker: P) -> Self {
        let read_below = share_threshold(common.read_share);
        let trim_below = share_threshold((common.read_share + common.trim_share).min(1.0));
        assert!(read_below <= trim_below, "thresholds are cumulative");
        assert!(common.sizes.max_units() <= common.footprint_units(), "every size fits the footprint");
        Stream {
            rng,
            picker,
            read_below,
            trim_below,
            mixed_ops: trim_below > 0,
            footprint_units: common.footprint_units(),
            sizes: common.sizes,
            align_bytes: common.align_bytes,
            start_bytes: common.start_bytes,
            limit: common.limit,
            iat_ns: common.iat_ns,
            done_bytes: 0,
            done_requests: 0,
        }
    }

    fn finished(&self) -> bool {
        match self.limit {
            Limit::Bytes(total) => self.done_bytes >= total,
            Limit::Requests(count) => self.done_requests >= count,
        }
    }

    #[inline]
    fn next_op(&mut self) -> Op {
        if !self.mixed_ops {
            return Op::Write;
        }
        let x = draw53(&mut self.rng);
        if x < self.read_below {
            Op::Read
        } else if x < self.trim_below {
            Op::Trim
        } else {
            Op::Write
        }
    }

    /// The next request, `None` at the end of the stream.
    #[inline(always)]
    fn next(&mut self) -> Option<Request> {
        if self.finished() {
            return None;
        }
        let op = self.next_op();
        let size_units = self.next_size_units();
        let at_units = self.picker.pick(&mut self.rng, size_units);
        assert!(at_units + size_units <= self.footprint_units, "picker placed a request beyond the footprint");
        let len = size_units * self.align_bytes;
        let request = Request {
            time_ns: self.done_requests.saturating_mul(self.iat_ns),
            op,
            offset: self.start_bytes + at_units * self.align_bytes,
            len,
            placement: None,
            file: None,
        };
        self.done_bytes += len;
        self.done_requests += 1;
        Some(request)
    }

    #[inline]
    fn next_size_units(&mut self) -> u64 {
        if self.sizes.sizes_units.len() == 1 {
            return self.sizes.sizes_units[0];
        }
        let x = draw53(&mut self.rng);
        let i = self.sizes.cumulative.iter().position(|&c| x < c).unwrap_or(self.sizes.cumulative.len() - 1);
        self.sizes.sizes_units[i]
    }
}

impl<P: Picker> Workload for Stream<P> {
    #[inline]
    fn next_request(&mut self) -> Result<Option<Request>, Error> {
        Ok(self.next())
    }

    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> bool {
        while out.len() < max {
            match self.next() {
                Some(r) => out.push(r),
                None => break,
            }
        }
        true
    }

    /// A byte limit stops at the first request that reaches it (at most one request over), so
    /// it takes at most `total / smallest size` requests, rounded up.
    fn bound(&self) -> Option<crate::workload::Bound> {
        let (min, max) = (self.sizes.sizes_units[0] * self.align_bytes, self.sizes.max_units() * self.align_bytes);
        Some(match self.limit {
            Limit::Bytes(total) => crate::workload::Bound {
                requests: total.div_ceil(min.max(1)),
                bytes: total.saturating_add(max),
                align: self.align_bytes,
            },
            Limit::Requests(count) => {
                crate::workload::Bound { requests: count, bytes: count.saturating_mul(max), align: self.align_bytes }
            }
        })
    }

    /// (bytes generated, total bytes). With a `requests` limit the byte figures are the
    /// request counts times the mean request size (exact when the size is fixed).
    fn progress(&self) -> Option<(u64, u64)> {
        match self.limit {
            Limit::Bytes(total) => Some((self.done_bytes.min(total), total)),
            Limit::Requests(count) => {
                let mean_bytes = self.sizes.mean_units() * self.align_bytes as f64;
                Some(((self.done_requests as f64 * mean_bytes) as u64, (count as f64 * mean_bytes) as u64))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_below_stays_in_range_and_covers_it() {
        let mut rng = GenRng::seed_from_u64(1);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            let x = uniform_below(&mut rng, 7);
            seen[x as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
        assert_eq!(uniform_below(&mut rng, 1), 0);
    }

    #[test]
    fn draw53_is_below_share_one() {
        let mut rng = GenRng::seed_from_u64(2);
        for _ in 0..1000 {
            assert!(draw53(&mut rng) < super::super::params::SHARE_ONE);
        }
    }
}
