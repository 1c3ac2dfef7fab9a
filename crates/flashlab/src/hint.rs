//! Hints to the memory system for the hot paths: they change when data arrives, never what is
//! computed.
//!
//! The tables a simulated SSD keeps (the L2P table, the OOB) are larger than the caches and
//! are touched at random, so a page move or a host write waits ~100 ns for a cache line unless
//! the line was asked for early: GC knows the logical pages of a victim's valid pages before it
//! moves them, and the fast host path knows the next requests' pages.

/// How many requests (preconditioning: pages) before one is served the second prefetch stage
/// asks for what its update touches ([`crate::ftl::FtlFastPath::prefetch_update`]): by then the first
/// stage has brought its mapping in.
pub const UPDATE_AHEAD: usize = 4;

/// Ask for the cache line holding `slice[i]` (no effect if `i` is out of bounds, or off x86-64).
#[inline(always)]
pub fn prefetch<T>(slice: &[T], i: usize) {
    prefetch_into::<T, false>(slice, i);
}

/// As [`prefetch`], with the hint to fill L2 rather than L1 (`prefetcht1`), for many random
/// lines asked for long before use: GC's L2P entries, tens of moves ahead. AMD documents that
/// Zen 4 fills L2 only on this hint; our reading (not measured: no hardware counters on the VM)
/// is that the request then does not hold one of L1's few miss buffers until its line arrives,
/// so more lines are on their way at once. On bench-accounting's 128 GiB scaling point a host
/// page cost 119 ns with GC's L2P lines asked for this way 64 moves ahead, against 140 with
/// [`prefetch`] 16 ahead (medians of 5 alternating rounds of that change alone, benches/README.md,
/// session 40); [`prefetch`] 40 ahead gained nothing.
#[inline(always)]
pub fn prefetch_l2<T>(slice: &[T], i: usize) {
    prefetch_into::<T, true>(slice, i);
}

#[inline(always)]
fn prefetch_into<T, const L2: bool>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = slice.get(i) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let p = (x as *const T).cast();
        // SAFETY: SSE is part of the x86-64 baseline, so the instruction exists; a prefetch
        // reads nothing into the program and cannot fault, and the pointer is to a live element.
        unsafe {
            if L2 {
                _mm_prefetch::<_MM_HINT_T1>(p)
            } else {
                _mm_prefetch::<_MM_HINT_T0>(p)
            }
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}

/// Plain values whose all-zero bit pattern is a valid value (`ZERO`): a table of them may start
/// as zeroed memory, and is cloned and compared as bytes.
///
/// # Safety
///
/// The all-zero bit pattern must be a valid `Self` equal to `ZERO`, and `Self` must hold no
/// padding, pointer or niche (a `NonZeroU32` would make [`table`] undefined behaviour): only
/// plain integers and arrays of them.
pub unsafe trait Zeroed: Copy + PartialEq {
    /// The value whose bit pattern is all zeros.
    const ZERO: Self;
}
// SAFETY: integers and arrays of integers: every bit pattern, zero included, is a valid value.
unsafe impl Zeroed for u32 {
    const ZERO: u32 = 0;
}
// SAFETY: as above.
unsafe impl Zeroed for u64 {
    const ZERO: u64 = 0;
}
// SAFETY: as above.
unsafe impl Zeroed for [u32; 2] {
    const ZERO: [u32; 2] = [0; 2];
}

/// A huge page (x86-64 and arm64 Linux with 4 KiB base pages).
const HUGE: usize = 2 << 20;

/// Tables of at least this many bytes are placed on whole huge pages.
const ON_HUGE_PAGES: usize = 512 << 10;

/// Where a table of `n` elements of `T` lives: from [`ON_HUGE_PAGES`] bytes on, 2 MiB-aligned and
/// rounded up to whole huge pages (one TLB entry per 2 MiB instead of 512), else as a `Vec`
/// would be.
fn layout_of<T>(n: usize) -> std::alloc::Layout {
    let array = std::alloc::Layout::array::<T>(n).expect("table size fits the address space");
    if array.size() >= ON_HUGE_PAGES {
        std::alloc::Layout::from_size_align(array.size().next_multiple_of(HUGE), HUGE.max(array.align()))
            .expect("table size fits the address space")
    } else {
        array
    }
}

/// Bytes a [`table`] of `n` elements of `T` occupies (its huge pages whole): for memory
/// estimates.
pub fn table_bytes<T>(n: u64) -> u64 {
    let bytes = n.saturating_mul(std::mem::size_of::<T>() as u64);
    if bytes >= ON_HUGE_PAGES as u64 {
        bytes.div_ceil(HUGE as u64).saturating_mul(HUGE as u64)
    } else {
        bytes
    }
}

/// `n` copies of `value` for random access (the L2P table, the OOB, per-segment state). From
/// 512 KiB on, the table sits on transparent huge pages where the system allows them on request
/// (Linux `madvise` mode): the memory is advised before its first touch. Random accesses to a
/// large table otherwise miss the TLB (measured here: a random read of an 8 MB table took
/// 75 ns with 4 KiB pages, 32 ns with huge pages; at 128 GiB, the per-segment tables on huge
/// pages made `bench-accounting` ~8% faster).
pub fn table<T: Zeroed>(n: usize, value: T) -> Table<T> {
    let ptr = allocate::<T>(n);
    // SAFETY: the allocation holds `n` elements of `T`, aligned; each is written once before
    // any is read (the first touch, after the advice).
    unsafe {
        if value == T::ZERO {
            std::ptr::write_bytes(ptr.as_ptr(), 0, n);
        } else {
            for i in 0..n {
                ptr.as_ptr().add(i).write(value);
            }
        }
    }
    Table { ptr, len: n }
}

/// Room for `n` elements of `T` laid out by [`layout_of`] (advised onto huge pages from
/// [`ON_HUGE_PAGES`] bytes on), not yet written.
fn allocate<T>(n: usize) -> std::ptr::NonNull<T> {
    let layout = layout_of::<T>(n);
    if layout.size() == 0 {
        return std::ptr::NonNull::dangling();
    }
    // SAFETY: the layout has a non-zero size.
    let raw = unsafe { std::alloc::alloc(layout) };
    let Some(ptr) = std::ptr::NonNull::new(raw.cast::<T>()) else { std::alloc::handle_alloc_error(layout) };
    if layout.size() >= ON_HUGE_PAGES {
        advise_huge(raw, layout.size());
    }
    ptr
}

/// A fixed-length table from [`table`] (it derefs to a slice). A clone is placed as the
/// original: a derived `Vec` clone would be a fresh allocation the kernel backs with small
/// pages in `madvise` mode (a run from a shared preconditioned flash clones its tables).
pub struct Table<T: Zeroed> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
}

// SAFETY: a `Table` owns its elements as a `Vec` does.
unsafe impl<T: Zeroed + Send> Send for Table<T> {}
// SAFETY: shared access only reads through `&[T]`.
unsafe impl<T: Zeroed + Sync> Sync for Table<T> {}

impl<T: Zeroed> Drop for Table<T> {
    fn drop(&mut self) {
        let layout = layout_of::<T>(self.len);
        if layout.size() != 0 {
            // SAFETY: allocated in `table` with this same layout (a function of the length).
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), layout) };
        }
    }
}

impl<T: Zeroed> Clone for Table<T> {
    /// One pass: the copy is the first touch of the new table (no zero-fill before it; a run
    /// from a shared preconditioned flash clones every table).
    fn clone(&self) -> Self {
        let ptr = allocate::<T>(self.len);
        // SAFETY: `ptr` has room for `len` elements and does not overlap `self`; `T: Copy`.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), ptr.as_ptr(), self.len) };
        Table { ptr, len: self.len }
    }
}

impl<T: Zeroed> std::ops::Deref for Table<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialized elements (or a dangling pointer and length 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroed> std::ops::DerefMut for Table<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroed + std::fmt::Debug> std::fmt::Debug for Table<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Zeroed> PartialEq for Table<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

#[cfg(target_os = "linux")]
fn advise_huge(start: *mut u8, len: usize) {
    // SAFETY: the range is one live allocation of ours; MADV_HUGEPAGE changes how the kernel
    // backs those pages, never their contents. A refusal (no THP support) is harmless.
    unsafe { libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_start: *mut u8, _len: usize) {}

/// The tests' visible-skip log (shared with the integration tests).
#[cfg(test)]
#[path = "../tests/common/skip.rs"]
mod skip;

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_holds_what_vec_would() {
        for n in [0, 1, 1000, 3 << 20] {
            assert_eq!(*super::table(n, u32::MAX), vec![u32::MAX; n]);
            assert_eq!(*super::table(n, 0u64), vec![0u64; n]);
            assert_eq!(*super::table(n, 7u32).clone(), vec![7u32; n]);
            assert_eq!(*super::table(n, [1u32, 2]), vec![[1u32, 2]; n]);
        }
    }

    #[test]
    fn large_tables_take_whole_huge_pages() {
        use super::{layout_of, table_bytes, HUGE, ON_HUGE_PAGES};
        let n = ON_HUGE_PAGES / 4 + 1;
        let l = layout_of::<u32>(n);
        assert_eq!((l.size(), l.align()), (HUGE, HUGE));
        assert_eq!(table_bytes::<u32>(n as u64), HUGE as u64);
        assert_eq!(table_bytes::<u32>(1000), 4000);
        assert_eq!(layout_of::<u32>(1000).size(), 4000);
        let t = super::table(n, 3u32);
        assert_eq!(t.as_ptr() as usize % HUGE, 0);
        assert!(t.iter().all(|&x| x == 3));
    }

    // The big tables ask for transparent huge pages, and so do their clones (a run from a shared
    // preconditioned flash clones them): checked in the kernel's view of this process, the
    // `THPeligible` flag of the mapping that holds each table (Linux, `madvise` or `always` mode).

    /// `THPeligible` of the mapping holding `addr`, from `/proc/self/smaps`; `None` when the file or
    /// the field is not there.
    fn thp_eligible(addr: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let mut words = line.split_whitespace();
            if let Some(range) = words.next().filter(|w| w.contains('-') && !w.ends_with(':')) {
                let (lo, hi) = range.split_once('-')?;
                let (lo, hi) = (usize::from_str_radix(lo, 16).ok()?, usize::from_str_radix(hi, 16).ok()?);
                inside = (lo..hi).contains(&addr);
            } else if inside && line.starts_with("THPeligible:") {
                return Some(line.split_whitespace().nth(1)? == "1");
            }
        }
        None
    }

    #[test]
    fn a_table_and_its_clone_ask_for_huge_pages() {
        const CHECK: &str = "huge pages for tables and their clones";
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if !(mode.contains("[madvise]") || mode.contains("[always]")) {
            super::skip::skipped(
                CHECK,
                "transparent huge pages are off or absent here (Linux, madvise or always mode needed)",
            );
            return;
        }
        // 64 MiB: many huge pages, so the advice covers the middle whatever the alignment.
        let table = super::table(16 << 20, u32::MAX);
        let clone = table.clone();
        assert_eq!(*clone, *table);
        let middle = |t: &[u32]| t.as_ptr() as usize + std::mem::size_of_val(t) / 2;
        let Some(original) = thp_eligible(middle(&table)) else {
            super::skip::skipped(CHECK, "/proc/self/smaps has no THPeligible field for the table (kernel too old?)");
            return;
        };
        assert!(original, "the table's mapping is not eligible for huge pages");
        assert_eq!(thp_eligible(middle(&clone)), Some(true), "the clone's mapping is not eligible for huge pages");
        // A mid-size table (a 128 GiB device's per-segment valid counts are 590 KB) takes a whole
        // huge page of its own.
        let mid = super::table(150_000, 0u32);
        assert_eq!(thp_eligible(middle(&mid)), Some(true), "a 600 KB table's mapping is not eligible for huge pages");
    }
}
