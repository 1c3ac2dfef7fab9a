//! `zipf`: zipf(θ) over the footprint's slots, with the meaning of θ that fio's
//! `random_distribution=zipf:θ` gives it.
//!
//! Owns: the zipf sampler ([`FioZipf`]) and its mapping onto the footprint. The algorithm follows
//! fio (`lib/zipf.c`, `lib/hash.h`; checked against fio 3.33, see `tests/data/fio/README.md`),
//! which uses the quick approximation of Gray, Sundaresan, Englert, Baclawski and Weinberger,
//! "Quickly generating billion-record synthetic databases" (SIGMOD 1994):
//!
//! * set-up, over `n` items: `zeta(n) = Σ_{i=1..m} (1/i)^θ` with the sum capped, as fio caps
//!   it, at `m = min(n, 10,000,000)` terms ([`ZIPF_MAX_GEN`]; fio: "precision will take a slight
//!   hit"), `zeta2 = 1 + 0.5^θ`, `alpha = 1/(1−θ)`, `eta = (1 − (2/n)^(1−θ)) / (1 − zeta2/zeta(n))`,
//!   and a random offset `rand_off` (fio draws it as the first 32-bit number of the
//!   distribution's own generator);
//! * per sample: `u` = a 32-bit random number / (2^32 − 1) (fio's `__rand / FRAND32_MAX`);
//!   rank 1 if `u·zeta(n) < 1`, rank 2 if `u·zeta(n) < 1 + 0.5^θ`, otherwise
//!   `1 + ⌊n·(eta·u − eta + 1)^alpha⌋`; then the 0-based rank `r` is scattered over the range by
//!   fio's multiplicative hash `__hash_u64(r) = r · 0x9e37fffffffc0001 (mod 2^64)`, and the item
//!   is `(hash + rand_off) mod n`. So the hottest items are spread over the footprint rather
//!   than packed at offset 0, and for a non-power-of-two `n` several ranks can share an item,
//!   exactly as in fio.
//!
//! θ: fio rejects only θ = 1.0 (`alpha` would divide by zero); we also reject θ ≤ 0 (no skew, or
//! an inverted one) and non-finite values. θ > 1 works (alpha < 0). θ defaults to fio's 1.1.
//!
//! Mapping onto the footprint: the slot size is the smallest request size (fio: the smallest
//! block size, `min_bs`), `n = footprint / slot`; a request starts at its slot's first byte,
//! clamped so that it ends inside the footprint when a larger size from a `request_size` table
//! would cross the end. Deviation for tiny ranges: for `n ≤ 2`, where fio's `eta` is 0/0, we
//! set `eta = 0`.

use serde::Deserialize;

use super::params::{config, parse_common, parse_extras};
use super::stream::{seeded_rng, GenRng, Picker, Stream};
use crate::error::Error;
use crate::workload::{GenContext, Workload};
use rand::Rng;

/// fio's cap on the number of terms summed for `zeta(n)` (`ZIPF_MAX_GEN` in `lib/zipf.c`).
pub const ZIPF_MAX_GEN: u64 = 10_000_000;

/// fio's 64-bit golden-ratio prime (`GR_PRIME_64` in `lib/hash.h`).
pub const GR_PRIME_64: u64 = 0x9e37_ffff_fffc_0001;

/// fio's `__hash_u64`: multiplicative hashing modulo 2^64.
#[inline]
pub fn fio_hash_u64(value: u64) -> u64 {
    value.wrapping_mul(GR_PRIME_64)
}

/// `Σ_{i=1..min(n, ZIPF_MAX_GEN)} (1/i)^θ`, summed in fio's order and form. Up to 10 M
/// `powf`s (~0.1 s), and a run builds its workload several times (validation, the memory
/// estimate's bound, the run itself), so sums are remembered per (n, θ) for the process.
pub fn zeta_capped(n: u64, theta: f64) -> f64 {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SUMS: OnceLock<Mutex<HashMap<(u64, u64), f64>>> = OnceLock::new();
    let sums = SUMS.get_or_init(Default::default);
    let key = (n.min(ZIPF_MAX_GEN), theta.to_bits());
    if let Some(&z) = sums.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return z;
    }
    let z = zeta_sum(n, theta);
    let mut sums = sums.lock().unwrap_or_else(|e| e.into_inner());
    if sums.len() >= 256 {
        sums.clear();
    }
    sums.insert(key, z);
    z
}

fn zeta_sum(n: u64, theta: f64) -> f64 {
    let terms = n.min(ZIPF_MAX_GEN);
    let mut zeta = 0.0;
    for i in 0..terms {
        zeta += (1.0 / (i + 1) as f64).powf(theta);
    }
    assert!(zeta.is_finite() && (terms == 0 || zeta >= 1.0), "zeta({n}, {theta}) = {zeta}");
    zeta
}

/// Check θ as fio does (≠ 1.0) plus θ > 0 and finite.
pub fn check_theta(theta: f64) -> Result<(), String> {
    if !theta.is_finite() || theta <= 0.0 {
        return Err(format!("theta must be a finite number > 0 (got {theta})"));
    }
    if theta == 1.0 {
        return Err("theta must be different from 1.0 (as in fio: the approximation divides by 1 − theta)".into());
    }
    Ok(())
}

/// fio's zipf distribution over `n` items, with every per-sample constant precomputed.
#[derive(Clone, Debug)]
pub struct FioZipf {
    n: u64,
    theta: f64,
    zetan: f64,
    alpha: f64,
    eta: f64,
    /// `zeta(2) = 1 + 0.5^θ`: a scaled draw `u·zeta(n)` in `[1, zeta(2))` is rank 2.
    rank2_below: f64,
    rand_off: u64,
}

impl FioZipf {
    /// Panics on an invalid θ or `n == 0` (callers validate with [`check_theta`] first).
    pub fn new(n: u64, theta: f64, rand_off: u64) -> Self {
        assert!(n > 0, "zipf over zero items");
        assert!(check_theta(theta).is_ok(), "invalid zipf theta {theta}");
        let zetan = zeta_capped(n, theta);
        let zeta2 = 1.0 + 0.5f64.powf(theta);
        let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        let eta = if eta.is_finite() { eta } else { 0.0 };
        FioZipf { n, theta, zetan, alpha: 1.0 / (1.0 - theta), eta, rank2_below: zeta2, rand_off }
    }

    pub fn n(&self) -> u64 {
        self.n
    }

    pub fn theta(&self) -> f64 {
        self.theta
    }

    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    /// 0-based popularity rank for a 32-bit random number; in `[0, n]` (rank `n` only for
    /// `rand32 = u32::MAX` or through rounding, as in fio; it hashes like any other).
    #[inline]
    pub fn rank(&self, rand32: u32) -> u64 {
        let u = rand32 as f64 / u32::MAX as f64;
        let z = u * self.zetan;
        let rank1 = if z < 1.0 {
            1
        } else if z < self.rank2_below {
            2
        } else {
            1 + (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
        };
        debug_assert!(rank1 >= 1 && rank1 <= self.n + 1, "rank {rank1} outside [1, n + 1]");
        rank1 - 1
    }

    /// The item (0-based, `< n`) that holds a 0-based rank: fio's hash plus offset, modulo n.
    #[inline]
    pub fn item(&self, rank: u64) -> u64 {
        fio_hash_u64(rank).wrapping_add(self.rand_off) % self.n
    }

    #[inline]
    pub fn sample(&self, rng: &mut GenRng) -> u64 {
        let item = self.item(self.rank(rng.next_u32()));
        debug_assert!(item < self.n);
        item
    }
}

/// Keys of `zipf` beyond the common ones.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ZipfParams {
    /// Skew, as in fio's `random_distribution=zipf:θ`: > 0 and ≠ 1.
    pub theta: f64,
}

impl Default for ZipfParams {
    fn default() -> Self {
        ZipfParams { theta: 1.1 }
    }
}

/// Zipf over slots of `slot_units` alignment units.
#[derive(Clone, Debug)]
pub struct ZipfPicker {
    zipf: FioZipf,
    slot_units: u64,
    footprint_units: u64,
}

impl ZipfPicker {
    /// Draws fio's `rand_off` from `rng` (its first draw, as fio does).
    pub fn new(footprint_units: u64, slot_units: u64, theta: f64, rng: &mut GenRng) -> Self {
        assert!(slot_units > 0 && slot_units <= footprint_units, "slot must fit the footprint");
        let n = footprint_units / slot_units;
        let rand_off = rng.next_u32() as u64;
        ZipfPicker { zipf: FioZipf::new(n, theta, rand_off), slot_units, footprint_units }
    }

    pub fn zipf(&self) -> &FioZipf {
        &self.zipf
    }
}

impl Picker for ZipfPicker {
    #[inline]
    fn pick(&mut self, rng: &mut GenRng, size_units: u64) -> u64 {
        assert!(size_units <= self.footprint_units, "request larger than the footprint");
        let slot = self.zipf.sample(rng);
        (slot * self.slot_units).min(self.footprint_units - size_units)
    }
}

pub fn build(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    let (common, rest) = parse_common(params, ctx)?;
    let extras: ZipfParams = parse_extras("zipf", rest, ctx)?;
    check_theta(extras.theta).map_err(|msg| config("theta", msg))?;
    let mut rng = seeded_rng(&common);
    let picker = ZipfPicker::new(common.footprint_units(), common.sizes.min_units(), extras.theta, &mut rng);
    Ok(Box::new(Stream::new(common, rng, picker)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn theta_rule_mirrors_fio_plus_positivity() {
        assert!(check_theta(0.5).is_ok() && check_theta(1.1).is_ok() && check_theta(3.0).is_ok());
        assert!(check_theta(1.0).unwrap_err().contains("different from 1.0"));
        for bad in [0.0, -0.5, f64::NAN, f64::INFINITY] {
            assert!(check_theta(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_two_hottest_ranks_have_their_exact_probabilities() {
        // Gray et al.'s method is exact for ranks 1 and 2: P = 1/zeta(n) and 0.5^θ/zeta(n).
        for theta in [0.5, 0.9, 1.1] {
            let z = FioZipf::new(1000, theta, 0);
            let draws = 200_000u32;
            let mut counts = [0u32; 2];
            for i in 0..draws {
                let r = z.rank((i as u64 * (u32::MAX as u64 / draws as u64)) as u32);
                if r < 2 {
                    counts[r as usize] += 1;
                }
            }
            let p1 = counts[0] as f64 / draws as f64;
            let p2 = counts[1] as f64 / draws as f64;
            assert!((p1 - 1.0 / z.zetan()).abs() < 1e-4, "θ={theta}: {p1} vs {}", 1.0 / z.zetan());
            assert!((p2 - 0.5f64.powf(theta) / z.zetan()).abs() < 1e-4, "θ={theta}");
        }
    }

    #[test]
    fn ranks_and_items_stay_in_range() {
        for (n, theta) in [(1, 0.9), (2, 0.9), (3, 1.1), (4096, 0.5), (1_000_003, 1.1)] {
            let z = FioZipf::new(n, theta, 12345);
            for rand32 in [0, 1, 7, u32::MAX / 3, u32::MAX - 1, u32::MAX] {
                assert!(z.rank(rand32) <= n);
                assert!(z.item(z.rank(rand32)) < n);
            }
        }
    }

    #[test]
    fn hashing_scatters_hot_ranks_like_fio() {
        let z = FioZipf::new(4096, 0.9, 100);
        assert_eq!(z.item(0), 100, "rank 0 hashes to 0, then the offset");
        assert_eq!(z.item(1), (GR_PRIME_64 % 4096 + 100) % 4096);
        // For a power-of-two n the odd multiplier is a bijection on ranks 0..n.
        let mut seen = vec![false; 4096];
        for rank in 0..4096 {
            seen[z.item(rank) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn zeta_sum_is_capped_like_fio() {
        assert_eq!(zeta_capped(1, 0.9), 1.0);
        assert!((zeta_capped(2, 0.5) - (1.0 + 0.5f64.sqrt())).abs() < 1e-15);
        // n = 2^31 items costs the same as ZIPF_MAX_GEN items, not 2^31 terms.
        assert_eq!(zeta_capped(1 << 31, 1.1), zeta_capped(ZIPF_MAX_GEN, 1.1));
    }

    #[test]
    fn the_offset_is_the_first_draw() {
        let mut a = GenRng::seed_from_u64(9);
        let mut b = GenRng::seed_from_u64(9);
        let picker = ZipfPicker::new(4096, 1, 0.9, &mut a);
        assert_eq!(picker.zipf().item(0), b.next_u32() as u64 % 4096);
    }
}
