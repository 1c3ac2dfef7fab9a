//! `HashMap` for integer keys (page and block numbers) with a multiply-xorshift hash instead of
//! SipHash: the keys come from the simulator's own inputs, so flooding resistance buys nothing
//! and SipHash was a quarter of a buffered run's time.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Clone, Copy, Default)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        let x = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^ (x >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.0 ^= n as u64;
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// An empty map with room for `n` entries.
pub fn with_capacity<K, V>(n: usize) -> FastMap<K, V> {
    FastMap::with_capacity_and_hasher(n, Default::default())
}
