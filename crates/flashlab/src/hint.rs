//! Hints to the memory system for the hot paths: they change when data arrives, never what is
//! computed.
//!
//! The tables a simulated SSD keeps (the L2P table, the OOB) are larger than the caches and
//! are touched at random, so a page move or a host write waits ~100 ns for a cache line unless
//! the line was asked for early: GC knows the logical pages of a victim's valid pages before it
//! moves them, and the fast host path knows the next requests' pages.

/// How many requests (preconditioning: pages) before one is served the second prefetch stage
/// asks for what its update touches ([`crate::ftl::Ftl::prefetch_update`]): by then the first
/// stage has brought its mapping in.
pub const UPDATE_AHEAD: usize = 4;

/// Ask for the cache line holding `slice[i]` (no effect if `i` is out of bounds, or off x86-64).
#[inline(always)]
pub fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = slice.get(i) {
        // SAFETY: SSE is part of the x86-64 baseline, so the instruction exists; a prefetch
        // reads nothing into the program and cannot fault, and the pointer is to a live element.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}

/// Integers whose all-zero bit pattern is zero (so a zeroed allocation holds them).
pub trait Zeroed: Copy + PartialEq {
    const ZERO: Self;
}
impl Zeroed for u32 {
    const ZERO: u32 = 0;
}
impl Zeroed for u64 {
    const ZERO: u64 = 0;
}

/// `n` copies of `value` for random access, backed by transparent huge pages where
/// the system allows them on request (Linux `madvise` mode): one TLB entry then covers 2 MiB
/// instead of 4 KiB, which the random accesses of a large L2P table or OOB area need (measured
/// here: a random read of an 8 MB table took 75 ns with 4 KiB pages, 32 ns with huge pages).
/// Contents are those of `vec![value; n]`; only where they live changes.
fn table_vec<T: Zeroed>(n: usize, value: T) -> Vec<T> {
    // A zeroed allocation this size is fresh memory from the kernel (calloc → mmap), not yet
    // touched: the advice applies before the first page faults.
    let mut v = vec![T::ZERO; n];
    advise_huge(&v);
    if value != T::ZERO {
        v.fill(value);
    }
    v
}

/// A table of `n` copies of `value` for random access, on huge pages (see `table_vec`).
pub fn table<T: Zeroed>(n: usize, value: T) -> Table<T> {
    Table(table_vec(n, value))
}

/// A fixed-length table on huge pages where the system allows them. A clone is one too: a
/// derived `Vec` clone is a fresh allocation the kernel backs with small pages in `madvise` mode
/// (a run from a shared preconditioned flash clones its tables).
#[derive(Debug, PartialEq, Eq)]
pub struct Table<T>(Vec<T>);

impl<T: Zeroed> Clone for Table<T> {
    fn clone(&self) -> Self {
        let mut v = table_vec(self.0.len(), T::ZERO);
        v.copy_from_slice(&self.0);
        Table(v)
    }
}

impl<T> std::ops::Deref for Table<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Table<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

const HUGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
fn advise_huge<T>(v: &[T]) {
    let (start, len) = (v.as_ptr() as usize, std::mem::size_of_val(v));
    if len < 2 * HUGE {
        return;
    }
    let first = start.next_multiple_of(HUGE);
    let end = (start + len) / HUGE * HUGE;
    if end > first {
        // SAFETY: the range lies inside `v`'s allocation; MADV_HUGEPAGE changes how the kernel
        // backs those pages, never their contents. A refusal (no THP support) is harmless.
        unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge<T>(_v: &[T]) {}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_holds_what_vec_would() {
        for n in [0, 1, 1000, 3 << 20] {
            assert_eq!(*super::table(n, u32::MAX), vec![u32::MAX; n]);
            assert_eq!(*super::table(n, 0u64), vec![0u64; n]);
            assert_eq!(*super::table(n, 7u32).clone(), vec![7u32; n]);
        }
    }
}
