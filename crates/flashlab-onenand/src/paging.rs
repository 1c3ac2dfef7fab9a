//! Demand paging over OneNAND (paper §4.5, Fig. 14): the page faults of an application start
//! (the paper boots Qtopia from a read-only ext3 and counts 110 major faults, 5,643 minor faults
//! and 1,929 pages read, whatever the driver).
//!
//! The model, stated because the paper gives only those counts:
//! - **Files.** `files` mapped files (executables, libraries, plugins) with sizes drawn
//!   log-uniformly from `file_kb_min`–`file_kb_max`, rounded up to 4 KB pages, laid out one after
//!   the other on the device (a freshly written read-only file system: each file contiguous).
//! - **Accesses.** The process runs through code and data in sequential runs: a run starts at a
//!   page drawn uniformly over all mapped pages and touches the following pages one by one, for a
//!   run length drawn exponentially with mean `run_pages_mean`, stopping at end of file. Runs
//!   repeat until `major_faults` majors have happened. Everything is drawn from one seeded RNG.
//! - **Faults.** The first touch of a page in the page cache is a minor fault; of a page not in
//!   it, a major fault. A page already mapped faults no more. Major faults use Linux 2.6.21's
//!   mmap *read-around* (`filemap_nopage`; the paper's kernel): read `ra_pages` (32 = 128 KB,
//!   `VM_MAX_READAHEAD`) pages starting `ra_pages/2` before the faulting page, clipped to the file,
//!   skipping pages already cached; each run of missing pages is one block request with one 4 KB
//!   segment per page. As in 2.6.21, a file whose misses exceed its hits by `mmap_lotsamiss`
//!   (100) reads only the faulting page. The paper's minor faults beyond the file-backed ones
//!   are anonymous / copy-on-write faults: they read nothing and cost a minor fault each.
//! - **Time.** A major fault costs `major_fault_ns` + its requests through the driver +
//!   `fault_page_ns` per page read; a minor fault `minor_fault_ns`. All requests run back to
//!   back on one CPU (OneNAND reads are CPU copies, so the device time is CPU time).

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::costs::{DeviceTiming, HostCosts};
use crate::device::{Accounting, OneNand};
use crate::drivers::Driver;
use crate::request::Request;
use flashlab::error::Error;

/// Parameters of the fault stream and of the fault costs that are not the driver's.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PagingParams {
    pub seed: u64,
    pub files: usize,
    pub file_kb_min: u64,
    pub file_kb_max: u64,
    /// Mean length of a sequential run of touches, in 4 KB pages (ours).
    pub run_pages_mean: f64,
    /// Stop after this many major faults (paper §4.5: 110).
    pub major_faults: u64,
    /// Pad the minor faults up to this many (paper §4.5: 5,643).
    pub minor_faults: u64,
    /// Read-around window (Linux 2.6.21 `VM_MAX_READAHEAD` = 128 KB = 32 pages).
    pub ra_pages: u64,
    /// Linux 2.6.21 `MMAP_LOTSAMISS`.
    pub mmap_lotsamiss: u64,
    /// Kernel work of a minor fault: 15 µs, derived from Fig. 14: the total-minus-major time is
    /// the same for every driver, and Optimized's total is 61% of Original's and 85% of
    /// DualOP-4KB's with majors 178 / 342 / 225 ms, which puts the minor-fault time at
    /// 79–90 ms, ≈ 15 µs × 5,643.
    pub minor_fault_ns: u64,
    /// Fixed kernel work of a major fault (fault entry, page-cache lookup, PTE): taken equal to a
    /// minor fault (ours; the paper gives none).
    pub major_fault_ns: u64,
    /// Kernel work per page read (allocate it, add it to the page cache and LRU, map ext3's
    /// 1 KB blocks, unlock): 20 µs, derived from Fig. 14: Optimized spends 178 ms on 1,929 pages
    /// = 92 µs a page, of which its reads at read-around sizes (≈ 64 KB) take ≈ 70 µs.
    pub fault_page_ns: u64,
}

impl PagingParams {
    pub fn paper() -> Self {
        PagingParams {
            seed: 2008,
            files: 60,
            file_kb_min: 8,
            file_kb_max: 1024,
            run_pages_mean: 128.0,
            major_faults: 110,
            minor_faults: 5643,
            ra_pages: 32,
            mmap_lotsamiss: 100,
            minor_fault_ns: 15_000,
            major_fault_ns: 15_000,
            fault_page_ns: 20_000,
        }
    }

    fn validate(&self) -> Result<(), Error> {
        let bad = |k: &str, m: &str| Err(Error::config(format!("paging.{k}"), m));
        if self.files == 0 {
            return bad("files", "at least one file");
        }
        if self.file_kb_min == 0 || self.file_kb_max < self.file_kb_min {
            return bad("file_kb_min", "0 < file_kb_min <= file_kb_max");
        }
        if !(self.run_pages_mean.is_finite() && self.run_pages_mean >= 1.0) {
            return bad("run_pages_mean", "a run is at least one page");
        }
        if self.ra_pages == 0 {
            return bad("ra_pages", "the read-around window is at least one page");
        }
        Ok(())
    }
}

/// A major fault: the block requests it issued (device byte offset, bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MajorFault {
    pub requests: Vec<(u64, u64)>,
}

impl MajorFault {
    pub fn pages(&self) -> u64 {
        self.requests.iter().map(|r| r.1 / 4096).sum()
    }
}

/// The driver-independent fault stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultStream {
    pub majors: Vec<MajorFault>,
    /// File-backed minor faults (first touch of a cached page).
    pub file_minors: u64,
    /// Anonymous / copy-on-write minor faults added to reach the paper's count.
    pub anon_minors: u64,
    pub file_pages: u64,
}

impl FaultStream {
    pub fn minors(&self) -> u64 {
        self.file_minors + self.anon_minors
    }
    pub fn pages_read(&self) -> u64 {
        self.majors.iter().map(|m| m.pages()).sum()
    }
    pub fn requests(&self) -> usize {
        self.majors.iter().map(|m| m.requests.len()).sum()
    }
}

struct File {
    first_page: u64,
    pages: u64,
    cached: Vec<bool>,
    mapped: Vec<bool>,
    misses: u64,
    hits: u64,
}

/// Generate the fault stream (see the module comment). Deterministic in `p.seed`.
pub fn generate(p: &PagingParams, timing: &DeviceTiming) -> Result<FaultStream, Error> {
    p.validate()?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(p.seed);
    let (lo, hi) = ((p.file_kb_min as f64).ln(), (p.file_kb_max as f64).ln());
    let mut files = Vec::with_capacity(p.files);
    let mut next = 0u64;
    for _ in 0..p.files {
        let kb = (lo + (hi - lo) * rng.random::<f64>()).exp();
        let pages = ((kb / 4.0).ceil() as u64).max(1);
        files.push(File {
            first_page: next,
            pages,
            cached: vec![false; pages as usize],
            mapped: vec![false; pages as usize],
            misses: 0,
            hits: 0,
        });
        next += pages;
    }
    if next * 4096 > timing.capacity_bytes {
        return Err(Error::config(
            "paging.files",
            format!("{} KB of files do not fit the {}-byte device", next * 4, timing.capacity_bytes),
        ));
    }
    let mut s = FaultStream { majors: Vec::new(), file_minors: 0, anon_minors: 0, file_pages: next };
    let mut unmapped = next;
    while (s.majors.len() as u64) < p.major_faults {
        if unmapped == 0 {
            return Err(Error::config(
                "paging.major_faults",
                format!("the files ({next} pages) run out before {} major faults", p.major_faults),
            ));
        }
        let mut x = rng.random_range(0..next);
        let fi = files.iter().position(|f| x < f.first_page + f.pages).expect("x is below the last file's end");
        x -= files[fi].first_page;
        let run = 1 + (-(1.0 - rng.random::<f64>()).ln() * p.run_pages_mean) as u64;
        let f = &mut files[fi];
        for page in x..(x + run).min(f.pages) {
            if (s.majors.len() as u64) == p.major_faults {
                break;
            }
            touch(f, page, p, &mut s, &mut unmapped);
        }
    }
    s.anon_minors = p.minor_faults.saturating_sub(s.file_minors);
    Ok(s)
}

fn touch(f: &mut File, page: u64, p: &PagingParams, s: &mut FaultStream, unmapped: &mut u64) {
    let i = page as usize;
    if f.mapped[i] {
        return;
    }
    f.mapped[i] = true;
    *unmapped -= 1;
    if f.cached[i] {
        f.hits += 1;
        s.file_minors += 1;
        return;
    }
    f.misses += 1;
    let (start, end) = if f.misses > f.hits + p.mmap_lotsamiss {
        (page, page + 1)
    } else {
        let start = page.saturating_sub(p.ra_pages / 2);
        (start, (start + p.ra_pages).min(f.pages))
    };
    let mut requests = Vec::new();
    let mut run_start = None;
    for q in start..=end {
        let missing = q < end && !f.cached[q as usize];
        match (missing, run_start) {
            (true, None) => run_start = Some(q),
            (false, Some(r)) => {
                requests.push(((f.first_page + r) * 4096, (q - r) * 4096));
                run_start = None;
            }
            _ => {}
        }
        if missing {
            f.cached[q as usize] = true;
        }
    }
    assert!(!requests.is_empty(), "a major fault reads at least its own page");
    s.majors.push(MajorFault { requests });
}

/// The fault stream served by one driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PagingResult {
    pub major_ns: u64,
    pub minor_ns: u64,
    /// Time inside the driver and device (part of `major_ns`).
    pub io_ns: u64,
    pub acct: Accounting,
}

impl PagingResult {
    pub fn total_ns(&self) -> u64 {
        self.major_ns + self.minor_ns
    }
}

/// Serve `stream` with `driver` on a fresh device.
pub fn run(
    stream: &FaultStream,
    driver: &dyn Driver,
    p: &PagingParams,
    timing: &DeviceTiming,
    costs: &HostCosts,
) -> Result<PagingResult, Error> {
    let mut dev = OneNand::new(timing.clone())?;
    let mut major_ns = 0;
    for m in &stream.majors {
        let t0 = dev.now_ns();
        for &(off, bytes) in &m.requests {
            driver.read(&mut dev, &Request::read(off, bytes, 4096, costs)?)?;
        }
        major_ns += p.major_fault_ns + (dev.now_ns() - t0) + p.fault_page_ns * m.pages();
    }
    Ok(PagingResult {
        major_ns,
        minor_ns: stream.minors() * p.minor_fault_ns,
        io_ns: dev.now_ns(),
        acct: dev.accounting().clone(),
    })
}
