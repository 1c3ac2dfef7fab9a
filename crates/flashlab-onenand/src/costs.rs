//! Every cost of the OneNAND read path, each with its source in the paper: Hyun & Koh,
//! "Improving the Read Performance of OneNAND Flash Memory using Virtual I/O Segment", KIISE
//! Computing Practices and Letters 14(7), 2008 (`shared/papers/003_ad81e14a0c59804b.txt`).
//!
//! The device timings are the paper's Table 2 (measured in the kernel's low-level driver on a
//! KF1G16Q2M-DEB6). The host costs are not tabulated in the paper: they appear only in its
//! figures (10–14), whose values are not in the text. Each host cost below was read off the
//! text's description of those figures — the numbers the text states (4 KB ≈ 90 µs, creation +
//! teardown 40 → 50 µs from 8 to 32 KB, reservation −10 µs, optimisations −22 µs on average, up
//! to 61 µs between V-Segment and Optimized at 4–12 KB, 64 KB Optimized = 46% of Original and
//! 72% of DualOP-4KB) and the orderings it describes (V-Segment above DualOP-4KB up to 12 KB;
//! Fig. 12's block costs cross V-Seg-Total between 24 and 28 KB) — and the comment says which.
//! All times are nanoseconds of simulated time.

use flashlab::error::Error;

/// The OneNAND chip: NAND core, two DataRAMs, and its geometry.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceTiming {
    /// DataRAM → host of one whole page, synchronous burst read (Table 2: 28 µs).
    pub read_ns: u64,
    /// host → DataRAM of one whole page, asynchronous write (Table 2: 80 µs).
    pub write_ns: u64,
    /// NAND array → DataRAM, one page (Table 2: "page load" 32 µs).
    pub load_ns: u64,
    /// DataRAM → NAND array, one page (Table 2: "page program" 199 µs).
    pub program_ns: u64,
    /// NAND page (§4.1: 2 KB).
    pub page_bytes: u64,
    /// Erase block (§4.1: 128 KB).
    pub block_bytes: u64,
    /// Device capacity (KF1G16Q2M: 1 Gb = 128 MB, from the part number).
    pub capacity_bytes: u64,
}

/// Device sector, the block layer's address unit (512 B; §4.1's Original calls per sector).
pub const SECTOR_BYTES: u64 = 512;

impl DeviceTiming {
    /// Samsung OneNAND KF1G16Q2M-DEB6 (paper Table 2, §4.1).
    pub fn kf1g16q2m() -> Self {
        DeviceTiming {
            read_ns: 28_000,
            write_ns: 80_000,
            load_ns: 32_000,
            program_ns: 199_000,
            page_bytes: 2048,
            block_bytes: 128 * 1024,
            capacity_bytes: 128 << 20,
        }
    }

    pub fn pages(&self) -> u64 {
        self.capacity_bytes / self.page_bytes
    }

    /// Refuse a geometry or timing the model cannot run.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |k: &str, m: &str| Err(Error::config(format!("onenand.{k}"), m));
        if !self.page_bytes.is_power_of_two() || self.page_bytes < SECTOR_BYTES {
            return bad("page_bytes", "must be a power of two of at least one 512-byte sector");
        }
        if self.block_bytes == 0 || !self.block_bytes.is_multiple_of(self.page_bytes) {
            return bad("block_bytes", "must be a positive multiple of the page size");
        }
        if self.capacity_bytes == 0 || !self.capacity_bytes.is_multiple_of(self.block_bytes) {
            return bad("capacity_bytes", "must be a positive multiple of the block size");
        }
        for (k, v) in [
            ("read_ns", self.read_ns),
            ("write_ns", self.write_ns),
            ("load_ns", self.load_ns),
            ("program_ns", self.program_ns),
        ] {
            if v == 0 || v > 1_000_000_000 {
                return bad(k, "must be between 1 ns and 1 s");
            }
        }
        Ok(())
    }
}

/// Host-side costs: block layer, low-level driver calls, virtual segments, Optimized's policy.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HostCosts {
    /// Get-request cost per I/O segment in the segment drivers (Original, DualOP-4KB): taking
    /// the request off the queue. §4.3 / Fig. 12: paid per segment, so it grows steeply with
    /// size. Get + end per segment = 3 µs, read off Fig. 12's description (with 1 KB buffers,
    /// the per-segment drivers' block cost stays below V-Seg-Block + Vmap up to 24 KB and
    /// exceeds it from 28 KB) and Fig. 13's (V-Segment still slower at 12 KB); split 1 + 2 is
    /// ours.
    pub seg_get_request_ns: u64,
    /// End-request cost per I/O segment in the segment drivers (`end_request`: complete one
    /// segment's buffers; §4.3). See `seg_get_request_ns`.
    pub seg_end_request_ns: u64,
    /// Get-request cost once per request with a virtual segment: take the request and walk all
    /// its segments to map them. §4.3 / Fig. 12: V-Seg-Block starts slightly above the segment
    /// drivers' 8-segment cost (8 × 3 = 24 µs) and hardly grows. With the end cost, 25 µs, set
    /// so that V-Segment − DualOP-4KB at 4 KB is ≈ 61 µs (Fig. 13's largest gap; the split
    /// 8 + 17 is ours).
    pub vseg_get_request_ns: u64,
    /// End-request cost once per request with a virtual segment: wake the waiting process and
    /// free the request (§4.3). See `vseg_get_request_ns`.
    pub vseg_end_request_ns: u64,
    /// Per-segment part of the once-per-request block work (walking the segments; Fig. 12:
    /// V-Seg-Block "changes very little" with size): 0.25 µs, ours.
    pub vseg_per_segment_ns: u64,
    /// One low-level (MTD/OneNAND driver) call of the DualOP-4KB, V-Segment and Optimized
    /// drivers: 0.5 µs. Small so that 4 KB ≈ 90 µs (§3.2.3; flash alone is 2·32 + 28 = 92 µs)
    /// and V-Segment is still behind DualOP-4KB at 12 KB with a 61 µs gap at 4 KB (§4.2, §4.4:
    /// the gap closes by one segment's block cost + call + Tread per 4 KB, so these three must
    /// stay under ≈ 31.5 µs).
    pub call_ns: u64,
    /// One 512-byte low-level call of the Original driver through mtdblock: 4.25 µs, the least
    /// that keeps Original the slowest driver at 4 KB too (§4.2: "Original is the worst at every
    /// size", above V-Segment's 4 KB = DualOP-4KB + 61 µs); Optimized at 64 KB is then 44% of
    /// Original (paper 46%; 3.5 µs would give 46% but put V-Segment below Original at 4 KB).
    pub sector_call_ns: u64,
    /// Allocate a virtual address range for a virtual segment (§3.2.1): half of the 10 µs that
    /// address-range reservation saves (§3.2.1: "average 10 µs").
    pub vmap_range_alloc_ns: u64,
    /// Return the virtual address range (§3.2.1): the other half of the 10 µs.
    pub vmap_range_free_ns: u64,
    /// Create a virtual segment, fixed part: map the pages, flush the cache range (§3.2.1
    /// steps 2–3). Creation + teardown = 40 µs at 8 KB and ≈ 50 µs at 32 KB (§3.2.3, Fig. 12);
    /// the create/teardown split (7 + 0.5/page vs 20 + 1/page) is ours, chosen so that hiding
    /// creation behind the first load saves ≈ 12 µs and both optimisations 22 µs on average
    /// over 16–64 KB (§4.4, Fig. 13).
    pub vmap_create_ns: u64,
    /// Create, per 4 KB memory page mapped (page-table entry + cache lines; see `vmap_create_ns`).
    pub vmap_create_per_page_ns: u64,
    /// Tear down a virtual segment, fixed part: flush the cache, unmap, flush the TLB (§3.2.1).
    pub vmap_teardown_ns: u64,
    /// Teardown, per 4 KB memory page.
    pub vmap_teardown_per_page_ns: u64,
    /// Memory page, the largest I/O segment (§2.2: a segment is at most one 4 KB page).
    pub memory_page_bytes: u64,
    /// Optimized uses a virtual segment only for requests larger than this (§4.1: 12 KB).
    pub optimized_threshold_bytes: u64,
}

impl HostCosts {
    /// These costs with every host cost zero (segment size and threshold kept): the flash alone,
    /// as in §3.1's closed forms.
    pub fn without_host_costs(&self) -> Self {
        HostCosts {
            seg_get_request_ns: 0,
            seg_end_request_ns: 0,
            vseg_get_request_ns: 0,
            vseg_end_request_ns: 0,
            vseg_per_segment_ns: 0,
            call_ns: 0,
            sector_call_ns: 0,
            vmap_range_alloc_ns: 0,
            vmap_range_free_ns: 0,
            vmap_create_ns: 0,
            vmap_create_per_page_ns: 0,
            vmap_teardown_ns: 0,
            vmap_teardown_per_page_ns: 0,
            ..self.clone()
        }
    }

    /// The costs read off the paper (see each field).
    pub fn paper() -> Self {
        HostCosts {
            seg_get_request_ns: 1_000,
            seg_end_request_ns: 2_000,
            vseg_get_request_ns: 8_000,
            vseg_end_request_ns: 17_000,
            vseg_per_segment_ns: 250,
            call_ns: 500,
            sector_call_ns: 4_250,
            vmap_range_alloc_ns: 5_000,
            vmap_range_free_ns: 5_000,
            vmap_create_ns: 7_000,
            vmap_create_per_page_ns: 500,
            vmap_teardown_ns: 20_000,
            vmap_teardown_per_page_ns: 1_000,
            memory_page_bytes: 4096,
            optimized_threshold_bytes: 12 * 1024,
        }
    }

    /// Creation + teardown of a virtual segment over `pages` memory pages, without address-range
    /// reservation (V-Segment; Fig. 12's V-Seg-Vmap).
    pub fn vmap_ns(&self, pages: u64) -> u64 {
        self.vmap_range_alloc_ns
            + self.vmap_create_ns
            + self.vmap_create_per_page_ns * pages
            + self.vmap_teardown_ns
            + self.vmap_teardown_per_page_ns * pages
            + self.vmap_range_free_ns
    }

    /// Refuse costs the model cannot run (all costs are plain durations; only sizes can be wrong).
    pub fn validate(&self) -> Result<(), Error> {
        if !self.memory_page_bytes.is_power_of_two() || self.memory_page_bytes < SECTOR_BYTES {
            return Err(Error::config("onenand.memory_page_bytes", "must be a power of two of at least 512 bytes"));
        }
        if !self.optimized_threshold_bytes.is_multiple_of(SECTOR_BYTES) {
            return Err(Error::config("onenand.optimized_threshold_bytes", "must be a multiple of 512 bytes"));
        }
        let all = [
            self.seg_get_request_ns,
            self.seg_end_request_ns,
            self.vseg_get_request_ns,
            self.vseg_end_request_ns,
            self.vseg_per_segment_ns,
            self.call_ns,
            self.sector_call_ns,
            self.vmap_range_alloc_ns,
            self.vmap_range_free_ns,
            self.vmap_create_ns,
            self.vmap_create_per_page_ns,
            self.vmap_teardown_ns,
            self.vmap_teardown_per_page_ns,
        ];
        if all.iter().any(|&v| v > 1_000_000_000) {
            return Err(Error::config("onenand.host_costs", "a host cost above 1 s is surely a unit mistake"));
        }
        Ok(())
    }
}
