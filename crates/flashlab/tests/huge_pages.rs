//! The big tables ask for transparent huge pages, and so do their clones (a run from a shared
//! preconditioned flash clones them): checked in the kernel's view of this process, the
//! `THPeligible` flag of the mapping that holds each table (Linux, `madvise` or `always` mode).

#[path = "common/skip.rs"]
mod skip;

use skip::skipped;

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
        skipped(CHECK, "transparent huge pages are off or absent here (Linux, madvise or always mode needed)");
        return;
    }
    // 64 MiB: many huge pages, so the advice covers the middle whatever the alignment.
    let table = flashlab::hint::table(16 << 20, u32::MAX);
    let clone = table.clone();
    assert_eq!(*clone, *table);
    let middle = |t: &[u32]| t.as_ptr() as usize + std::mem::size_of_val(t) / 2;
    let Some(original) = thp_eligible(middle(&table)) else {
        skipped(CHECK, "/proc/self/smaps has no THPeligible field for the table (kernel too old?)");
        return;
    };
    assert!(original, "the table's mapping is not eligible for huge pages");
    assert_eq!(thp_eligible(middle(&clone)), Some(true), "the clone's mapping is not eligible for huge pages");
    // A mid-size table (a 128 GiB device's per-segment valid counts are 590 KB) takes a whole
    // huge page of its own.
    let mid = flashlab::hint::table(150_000, 0u32);
    assert_eq!(thp_eligible(middle(&mid)), Some(true), "a 600 KB table's mapping is not eligible for huge pages");
}
