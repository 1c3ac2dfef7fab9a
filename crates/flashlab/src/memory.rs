//! Memory, the bottom half: the itemised [`Estimate`] (name → bytes) every layer adds its
//! structures to, beside its constructor, with the sizes of the standard collections
//! ([`vec_bytes`], [`grown_vec_bytes`], [`map_bytes`], [`bitmap_bytes`]); what this machine
//! has (`/proc/meminfo`, read once per process) and what this process peaked at. It imports
//! nothing from the crate: the layers import it. Summing a run's estimate and admitting it
//! against the limit is the run plan's job ([`crate::sim::Plan`]).

/// Bytes of the process besides the simulator state: the binary's pages, the allocator, the
/// latency histograms, results and their JSON text for a short series (measured: a tiny run
/// peaks at about 10.5 MiB).
pub const BASE_BYTES: u64 = 16 << 20;

/// Where `/proc/meminfo` cannot be read, the limit when `sim.memory_limit` is not set.
pub const FALLBACK_LIMIT_BYTES: u64 = 16 << 30;

/// An itemised estimate: (what, bytes), in the order the layers added them; adding to a name
/// already present adds to its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    items: Vec<(&'static str, u64)>,
}

impl Estimate {
    /// Add `bytes` to item `name` (saturating: an estimate over `u64` is refused anyway).
    pub fn add(&mut self, name: &'static str, bytes: u64) {
        match self.items.iter_mut().find(|(n, _)| *n == name) {
            Some((_, b)) => *b = b.saturating_add(bytes),
            None => self.items.push((name, bytes)),
        }
    }

    /// Every item, in the order added.
    pub fn items(&self) -> &[(&'static str, u64)] {
        &self.items
    }

    /// The bytes of item `name` (0 if absent).
    pub fn get(&self, name: &str) -> u64 {
        self.items.iter().find(|(n, _)| *n == name).map_or(0, |i| i.1)
    }

    /// The sum of every item.
    pub fn total(&self) -> u64 {
        self.items.iter().fold(0u64, |s, i| s.saturating_add(i.1))
    }

    /// The `n` biggest items, biggest first (ties in the order added).
    pub fn biggest(&self, n: usize) -> Vec<(&'static str, u64)> {
        let mut v = self.items.clone();
        v.sort_by_key(|i| std::cmp::Reverse(i.1));
        v.truncate(n);
        v
    }

    /// "L2P table 1.2 GiB, OOB 600.0 MiB, …": the `n` biggest items.
    pub fn describe(&self, n: usize) -> String {
        self.biggest(n).iter().map(|(name, b)| format!("{name} {}", human_bytes(*b))).collect::<Vec<_>>().join(", ")
    }
}

/// Bytes in MiB or GiB, one decimal.
pub fn human_bytes(bytes: u64) -> String {
    let mib = bytes as f64 / (1u64 << 20) as f64;
    if mib < 1024.0 {
        format!("{mib:.1} MiB")
    } else {
        format!("{:.1} GiB", mib / 1024.0)
    }
}

/// Bytes of a `Vec<T>` of `n` elements allocated at once.
pub fn vec_bytes<T>(n: u64) -> u64 {
    n.saturating_mul(std::mem::size_of::<T>() as u64)
}

/// Bytes of a `Vec<T>` grown by pushes to `n` elements, at its last doubling (old and new
/// buffers both alive).
pub fn grown_vec_bytes<T>(n: u64) -> u64 {
    let cap = n.max(4).checked_next_power_of_two().unwrap_or(u64::MAX);
    vec_bytes::<T>(cap).saturating_add(vec_bytes::<T>(cap / 2))
}

/// Bytes the allocator takes for one heap allocation of `payload` bytes: glibc's malloc adds an
/// 8-byte header and rounds up to 16 bytes, at least 32 (none for an empty collection, which
/// allocates nothing). What many small collections cost beyond their elements (a deque per
/// plane on a device of a million planes).
pub fn heap_bytes(payload: u64) -> u64 {
    if payload == 0 {
        return 0;
    }
    payload.saturating_add(8).div_ceil(16).saturating_mul(16).max(32)
}

/// The capacity of a `Vec` or `VecDeque` grown by pushes from empty to `n` elements (of at most
/// 1 KiB each): doubled from 4, so the next power of two of at least 4 (0 for none).
pub fn grown_capacity(n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        n.max(4).checked_next_power_of_two().unwrap_or(u64::MAX)
    }
}

/// Bytes of a bitmap over `n` items (`u64` words).
pub fn bitmap_bytes(n: u64) -> u64 {
    n.div_ceil(64).saturating_mul(8)
}

/// Bytes of a `HashMap<K, V>` (hashbrown) holding up to `n` entries: its buckets (a power of
/// two, at most 7/8 full) of `(K, V)` plus one control byte each. `grown`: the map grew by
/// inserts, so its last resize held the old table (half the buckets) too; otherwise it was made
/// with room for `n`.
pub fn map_bytes<K, V>(n: u64, grown: bool) -> u64 {
    let buckets = if n < 4 {
        4
    } else if n < 8 {
        8
    } else {
        n.saturating_mul(8).div_ceil(7).checked_next_power_of_two().unwrap_or(u64::MAX)
    };
    let table = buckets.saturating_mul(std::mem::size_of::<(K, V)>() as u64 + 1).saturating_add(16);
    if grown {
        table.saturating_add(table / 2)
    } else {
        table
    }
}

/// `MemTotal` and `MemAvailable` of `/proc/meminfo` in bytes, read once per process: the one
/// machine-dependent input of validation (the default memory limit), fixed for the process so
/// that a config valid once stays valid.
fn meminfo() -> (Option<u64>, Option<u64>) {
    static MEMINFO: std::sync::OnceLock<(Option<u64>, Option<u64>)> = std::sync::OnceLock::new();
    *MEMINFO.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let field = |name: &str| -> Option<u64> {
            let line = text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))?;
            let kib: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
            kib.checked_mul(1024)
        };
        (field("MemTotal"), field("MemAvailable"))
    })
}

/// This machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`); `None` where that
/// is not available.
pub fn physical_memory() -> Option<u64> {
    meminfo().0
}

/// Memory available to a new process when this one first asked (`MemAvailable` of
/// `/proc/meminfo`); `None` where that is not available.
pub fn available_memory() -> Option<u64> {
    meminfo().1
}

/// This process's peak resident set so far (`VmHWM` of `/proc/self/status`); `None` where that
/// is not available.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_add_up_and_the_biggest_come_first() {
        let mut e = Estimate::default();
        e.add("a", 10);
        e.add("b", 30);
        e.add("a", 25);
        assert_eq!(e.total(), 65);
        assert_eq!(e.get("a"), 35);
        assert_eq!(e.biggest(1), vec![("a", 35)]);
        e.add("c", u64::MAX);
        assert_eq!(e.total(), u64::MAX, "saturates");
    }

    #[test]
    fn a_map_holds_its_entries_in_power_of_two_buckets() {
        // 1000 entries: 1143 buckets at 7/8 load, rounded up to 2048 of 16 + 1 bytes.
        assert_eq!(map_bytes::<u64, u64>(1000, false), 2048 * 17 + 16);
        assert_eq!(map_bytes::<u64, u64>(1000, true), (2048 * 17 + 16) * 3 / 2);
        assert_eq!(grown_vec_bytes::<u32>(1000), 1024 * 4 + 512 * 4);
        assert_eq!(bitmap_bytes(65), 16);
    }
}
