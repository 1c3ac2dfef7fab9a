//! What happens along a GC policy's write streams, counted for the page-mapped FTL's GC report:
//! pages GC moved from one stream to another, host overwrites by the stream of the old copy,
//! and the cold region — pages GC moved into a cold stream, and those a host write sent back
//! (with their age). One job: it counts what the mechanism tells it and changes nothing else.
//!
//! Memory: with a cold region, two bits and a move time per logical page; otherwise
//! O(streams²).

use super::gc::GcShape;
use super::{age_buckets, Flow, GcReport, StreamPages, RETURN_AGE_EDGES};
use crate::memory::{bitmap_bytes, vec_bytes, Estimate};

#[derive(Clone)]
pub(super) struct StreamTrack {
    shape: GcShape,
    /// Per stream: part of the cold region (`shape`'s flags, flat for the hot path).
    cold: Vec<bool>,
    /// Pages moved by GC from stream `i` to stream `j`, at `i * streams + j`.
    flows: Vec<u64>,
    /// Host writes that overwrote a page stored in each stream (the old copy's stream), counted
    /// when the policy has more than one.
    overwrites: Vec<u64>,
    /// Per 64 logical pages, two bit sets side by side (one cache line for both): `[0]`, moved
    /// into a cold stream by GC and not written or trimmed since; `[1]`, the same for moves made
    /// since [`StreamTrack::start_measure`], the pages whose return counts in `returned` (so the
    /// returned pages are a subset of `moved_into_cold` of the same phase: a page
    /// preconditioning moved is not counted when the measured phase sends it back). Allocated
    /// only when the policy has cold streams.
    in_cold: Vec<[u64; 2]>,
    /// Per logical page in the cold region, the host writes counted when GC moved it there
    /// (allocated with `in_cold`): a return's age.
    cold_since: Vec<u64>,
    moved_into_cold: u64,
    returned: u64,
    /// Returned pages by age (host writes between the move into cold and the return), in the
    /// buckets of [`RETURN_AGE_EDGES`] scaled to the logical pages.
    returned_age: [u64; RETURN_AGE_EDGES.len() + 1],
    age_edges: [u64; RETURN_AGE_EDGES.len()],
}

impl StreamTrack {
    pub(super) fn new(shape: GcShape, logical_pages: u64) -> Self {
        let n = shape.streams.len();
        let cold = shape.cold();
        let tracks_cold = cold.contains(&true);
        StreamTrack {
            shape,
            cold,
            flows: vec![0; n * n],
            overwrites: vec![0; n],
            in_cold: if tracks_cold { vec![[0; 2]; (logical_pages as usize).div_ceil(64)] } else { Vec::new() },
            cold_since: if tracks_cold { vec![0; logical_pages as usize] } else { Vec::new() },
            moved_into_cold: 0,
            returned: 0,
            returned_age: [0; RETURN_AGE_EDGES.len() + 1],
            age_edges: RETURN_AGE_EDGES.map(|e| (e * logical_pages as f64).round() as u64),
        }
    }

    /// What [`StreamTrack::new`] allocates beyond O(streams²): with a cold region, a second
    /// cold bit and the move time of each logical page.
    pub(super) fn memory(shape: &GcShape, logical_pages: u64, est: &mut Estimate) {
        if shape.streams.iter().any(|s| s.cold) {
            est.add("cold-region tracking", bitmap_bytes(logical_pages) + vec_bytes::<u64>(logical_pages));
        }
    }

    /// Number of write streams.
    #[inline]
    pub(super) fn streams(&self) -> usize {
        self.cold.len()
    }

    /// Is stream `s` part of the cold region?
    #[inline]
    pub(super) fn is_cold(&self, s: usize) -> bool {
        self.cold[s]
    }

    /// Does a page moved from stream `from` to stream `to` enter the cold region?
    #[inline]
    pub(super) fn enters_cold(&self, from: usize, to: usize) -> bool {
        self.cold[to] && !self.cold[from]
    }

    /// Whether host overwrites are counted by stream (more than one stream): the caller looks
    /// up the old copy's stream only then.
    #[inline]
    pub(super) fn counts_overwrites(&self) -> bool {
        self.overwrites.len() > 1
    }

    /// A host write overwrote a page stored in stream `stream`.
    #[inline]
    pub(super) fn overwrote(&mut self, stream: usize) {
        self.overwrites[stream] += 1;
    }

    /// A host write of `lpn`, the `host_writes`-th so far (not counting it): it leaves the cold
    /// region, counted as a return when it entered in this phase.
    #[inline]
    pub(super) fn host_write(&mut self, lpn: u64, host_writes: u64) {
        if !self.in_cold.is_empty() {
            self.leave_cold(lpn, Some(host_writes));
        }
    }

    /// `lpn` was trimmed: it leaves the cold region, not counted as a return.
    #[inline]
    pub(super) fn trimmed(&mut self, lpn: u64) {
        if !self.in_cold.is_empty() {
            self.leave_cold(lpn, None);
        }
    }

    /// GC moved `pages` pages from stream `from` to stream `to`; pages entering the cold region
    /// are counted (each one's [`StreamTrack::enter_cold`] is the caller's).
    #[inline]
    pub(super) fn moved(&mut self, from: usize, to: usize, pages: u64) {
        self.flows[from * self.cold.len() + to] += pages;
        if self.enters_cold(from, to) {
            self.moved_into_cold += pages;
        }
    }

    /// GC moved `lpn` into the cold region when `host_writes` host writes had been counted.
    #[inline]
    pub(super) fn enter_cold(&mut self, lpn: u64, host_writes: u64) {
        let w = &mut self.in_cold[lpn as usize / 64];
        let bit = 1u64 << (lpn % 64);
        w[0] |= bit;
        w[1] |= bit;
        self.cold_since[lpn as usize] = host_writes;
    }

    /// `lpn` leaves the cold region: by a host write (`Some(host_writes)`, a return when it
    /// entered in this phase) or by a trim (`None`).
    #[inline]
    fn leave_cold(&mut self, lpn: u64, write: Option<u64>) {
        let w = &mut self.in_cold[lpn as usize / 64];
        let bit = 1u64 << (lpn % 64);
        if w[0] & bit != 0 {
            if let Some(host_writes) = write.filter(|_| w[1] & bit != 0) {
                self.returned += 1;
                let age = host_writes - self.cold_since[lpn as usize];
                self.returned_age[self.age_edges.partition_point(|&e| e < age)] += 1;
            }
            w[0] &= !bit;
            w[1] &= !bit;
        }
    }

    /// A hint that `lpn` will be written soon: its cold bits' line ([`crate::hint`]).
    #[inline]
    pub(super) fn prefetch(&self, lpn: usize) {
        if !self.in_cold.is_empty() {
            crate::hint::prefetch(&self.in_cold, lpn / 64);
        }
    }

    /// The second stage of [`StreamTrack::prefetch`]: `lpn`'s move time.
    #[inline]
    pub(super) fn prefetch_update(&self, lpn: usize) {
        if !self.cold_since.is_empty() {
            crate::hint::prefetch(&self.cold_since, lpn);
        }
    }

    /// The measured phase starts: only moves into cold from now on count a later return.
    pub(super) fn start_measure(&mut self) {
        for w in &mut self.in_cold {
            w[1] = 0;
        }
    }

    /// The report's stream part: flows (nonzero or declared), the cold region and overwrites.
    pub(super) fn report(&self, report: &mut GcReport) {
        let n = self.cold.len();
        let name = |s: usize| self.shape.streams[s].name.to_string();
        for from in 0..n {
            for to in 0..n {
                let pages = self.flows[from * n + to];
                if pages > 0 || self.shape.flows.contains(&(from, to)) {
                    report.flows.push(Flow { from: name(from), to: name(to), pages });
                }
            }
        }
        report.moved_into_cold = self.moved_into_cold;
        report.returned = self.returned;
        report.returned_ratio = (self.moved_into_cold > 0).then(|| self.returned as f64 / self.moved_into_cold as f64);
        if !self.in_cold.is_empty() {
            report.returned_age = age_buckets(&self.returned_age);
        }
        if n > 1 {
            report.overwrites = (0..n).map(|s| StreamPages { stream: name(s), pages: self.overwrites[s] }).collect();
        }
    }

    /// Check the cold bits against where each page is stored: `stored_cold(lpn)` says whether
    /// `lpn` is mapped to a segment of a cold stream.
    pub(super) fn validate(&self, logical_pages: u64, stored_cold: impl Fn(u64) -> bool) -> Result<(), String> {
        if self.in_cold.is_empty() {
            return Ok(());
        }
        for lpn in 0..logical_pages {
            let [now, phase] = self.in_cold[lpn as usize / 64].map(|w| w >> (lpn % 64) & 1 == 1);
            if phase && !now {
                return Err(format!("lpn {lpn}: counted as moved into cold in this phase but not in the cold region"));
            }
            let cold = stored_cold(lpn);
            if now != cold {
                return Err(format!("lpn {lpn}: cold-tracking bit {now} but stored in a cold segment: {cold}"));
            }
        }
        Ok(())
    }
}
