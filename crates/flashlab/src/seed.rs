//! Seeds of a run's components, derived from the one seed of its config, so that each
//! component (workload, preconditioning, a GC policy) draws from a stream of its own.

/// Seed for a named component: SplitMix64 of the run seed mixed with the name (FNV-1a).
pub fn derive_seed(seed: u64, name: &str) -> u64 {
    let mut x = seed ^ name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
