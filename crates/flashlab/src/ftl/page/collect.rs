//! The GC mechanism of the page-mapped FTL: rounds when the schedule asks (in the foreground
//! when a write stream needs a segment, in the background after requests), victims from the
//! policy through [`gc::select_victim`] (the schedule's minimum-invalid rule applied there
//! once), valid pages moved, the victim erased and freed, everything counted. Its state is
//! [`GcEngine`]: the policy, the schedule and what the mechanism keeps between rounds.

use super::bits::{clear_bits, set_bits, set_bits_in};
use super::PageFtl;
use crate::error::Error;
use crate::ftl::gc::{self, GcPolicy};
use crate::ftl::maptable::MapTable;
use crate::ftl::schedule::{GcSchedule, Round};
use crate::units::{Nanos, Ppn};

/// What the GC mechanism holds: the victim policy and the schedule, and its state between
/// rounds and requests.
#[derive(Clone)]
pub(super) struct GcEngine {
    pub(super) policy: Box<dyn GcPolicy>,
    pub(super) policy_name: String,
    pub(super) schedule: Box<dyn GcSchedule>,
    /// The schedule collects after host requests.
    pub(super) background: bool,
    /// Fully valid victims in a row (a full device, or a policy that keeps choosing them).
    pub(super) fruitless: u32,
    /// Background rounds with a minimum of invalid pages: per pool, the sealed segments that
    /// could meet it (so a round no victim could meet is declined without asking the policy).
    pub(super) gate: Option<Gate>,
    /// Background checks whose outcome cannot have changed since they were made (see [`Settled`]).
    pub(super) settled: Settled,
    /// A round is running (GC's own streams open segments without asking the schedule).
    pub(super) in_gc: bool,
    /// GC's lists of a victim's valid pages and their logical pages (reused).
    pub(super) gc_srcs: Vec<u32>,
    pub(super) gc_lpns: Vec<u32>,
}

impl GcEngine {
    pub(super) fn new(
        policy: Box<dyn GcPolicy>,
        policy_name: String,
        schedule: Box<dyn GcSchedule>,
        pools: u32,
        pages_per_segment: u32,
    ) -> Self {
        GcEngine {
            policy,
            policy_name,
            background: schedule.has_background(),
            schedule,
            fruitless: 0,
            gate: None,
            settled: Settled::new(pools),
            in_gc: false,
            gc_srcs: Vec::with_capacity(pages_per_segment as usize),
            gc_lpns: Vec::with_capacity(pages_per_segment as usize),
        }
    }
}

/// The schedule's background check after a request depends, per pool, only on the pool's free
/// segments and its gate count (and the gate's minimum): while neither changes, a pool that
/// wanted no round wants none again, and one whose round was declined is declined again. Such a
/// pool is settled: after a request it costs nothing, or one declined round added in bulk, instead
/// of a schedule call and a gate lookup (the `femu` schedule asks after every request, for every
/// pool). A pool is unsettled by whatever changes its free count or gate count.
#[derive(Clone)]
pub(super) struct Settled {
    /// Pools to check after the next request, a bit each.
    pub(super) check: Vec<u64>,
    /// Per pool: settled on a declined round.
    pub(super) declined: Vec<bool>,
    /// Pools settled on a declined round.
    pub(super) declined_count: u64,
}

impl Settled {
    pub(super) fn new(pools: u32) -> Self {
        let mut check = vec![0u64; (pools as usize).div_ceil(64)];
        for p in 0..pools as usize {
            check[p / 64] |= 1 << (p % 64);
        }
        Settled { check, declined: vec![false; pools as usize], declined_count: 0 }
    }

    /// `pool`'s free count or gate count changed: check it again.
    #[inline]
    pub(super) fn unsettle(&mut self, pool: u32) {
        self.check[pool as usize / 64] |= 1 << (pool % 64);
        if std::mem::take(&mut self.declined[pool as usize]) {
            self.declined_count -= 1;
        }
    }

    /// `pool` was just checked: no round (`declined` false) or a declined one.
    #[inline]
    pub(super) fn settle(&mut self, pool: u32, declined: bool) {
        self.check[pool as usize / 64] &= !(1 << (pool % 64));
        self.declined[pool as usize] = declined;
        self.declined_count += declined as u64;
    }
}

/// Sealed segments per pool holding at most `max_valid` valid pages (kept exactly, O(1) per
/// event: seal, invalidation, victim), for background rounds whose first victim must free
/// `pages_per_segment - max_valid` pages.
#[derive(Clone)]
pub(super) struct Gate {
    pub(super) max_valid: u32,
    pub(super) count: Vec<u32>,
}

/// GC asks for the L2P entry of a move this many moves ahead, into L2 ([`crate::hint::prefetch_l2`]),
/// in both modes' moves ([`PageFtl::list_victim`] asks for the first this many at once).
/// bench-accounting's 128 GiB scaling point, medians of 4 alternating rounds (benches/README.md,
/// session 40), ns per host page: 16 ahead into L1 (before) ~136, 32 into L2 ~119, 64 ~115, 128
/// ~113 (the ranges overlap from 64 on); at 8 GiB no difference. 64 was kept: 128 asks for over
/// half of a typical victim (~217 valid pages) in one burst as it is listed.
const GC_AHEAD: usize = 64;

impl<M: MapTable> PageFtl<M> {
    /// One GC round on `pool`: victims until the round is complete (one victim, or until the pool
    /// has `until_free` free segments) and the policy wants no more. A round whose first victim
    /// would free fewer than `min_invalid` pages is declined. Returns whether anything was
    /// collected.
    pub(super) fn run_round(&mut self, pool: u32, round: Round, t_ns: u64) -> Result<bool, Error> {
        assert!(!self.gc.in_gc, "GC re-entered");
        self.gc.in_gc = true;
        self.gc.policy.on_round_start();
        self.nand.begin_gc();
        let result = self.collect_round(pool, round, t_ns);
        self.nand.end_gc();
        self.gc.in_gc = false;
        let collected = result?;
        if collected {
            self.counters.gc_rounds += 1;
        }
        Ok(collected)
    }

    pub(super) fn collect_round(&mut self, pool: u32, round: Round, t_ns: u64) -> Result<bool, Error> {
        let pps = self.segs.layout.pages_per_segment;
        let mut victims = 0u32;
        loop {
            let view = self.segs.view(self.counters.host_writes);
            let need = match round.until_free {
                None => victims == 0,
                Some(n) => self.segs.free_count(pool) < n,
            };
            let want = victims > 0 && self.gc.policy.continue_round(&view, victims);
            if !need && !want {
                return Ok(victims > 0);
            }
            let min_invalid = if victims == 0 { round.min_invalid } else { 0 };
            let Some(victim) = gc::select_victim(self.gc.policy.as_mut(), &view, pool, min_invalid) else {
                if min_invalid > 0 {
                    return Ok(false);
                }
                return Err(Error::DeviceFull(format!("GC found no victim in pool {pool}")));
            };
            assert_eq!(
                self.segs.layout.pool_of(victim),
                pool,
                "GC policy `{}` chose segment {victim} outside pool {pool}",
                self.gc.policy_name
            );
            assert_eq!(
                self.segs.state[victim as usize],
                gc::SegState::Sealed,
                "GC policy `{}` chose unsealed segment {victim}",
                self.gc.policy_name
            );
            self.gc.fruitless = if self.segs.valid[victim as usize] == pps { self.gc.fruitless + 1 } else { 0 };
            if self.gc.fruitless > 0 && !self.pool_has_invalid(pool, victim) {
                return Err(Error::DeviceFull(format!(
                    "every segment of pool {pool} is fully valid: logical data fills the physical space ({})",
                    self.pool_summary(pool)
                )));
            }
            assert!(
                self.gc.fruitless <= 4 * self.segs.layout.segments_per_pool(),
                "GC policy keeps choosing fully valid victims in pool {pool} while others hold invalid pages ({})",
                self.pool_summary(pool)
            );
            self.collect(victim, pool, t_ns)?;
            victims += 1;
        }
    }

    /// Sealed segments of `pool` with at least `min_invalid` invalid pages, and whether the gate
    /// was built, or rebuilt for a new minimum, by one scan to answer (every settled check is
    /// then stale).
    pub(super) fn gate_count(&mut self, pool: u32, min_invalid: u32) -> (u32, bool) {
        let max_valid = self.segs.layout.pages_per_segment.saturating_sub(min_invalid);
        let rebuilt = self.gc.gate.as_ref().is_none_or(|g| g.max_valid != max_valid);
        if rebuilt {
            self.gc.gate = Some(Gate { max_valid, count: self.count_sealed_at_most(max_valid) });
        }
        (self.gc.gate.as_ref().expect("gate built").count[pool as usize], rebuilt)
    }

    /// Per pool: sealed segments with at most `max_valid` valid pages.
    pub(super) fn count_sealed_at_most(&self, max_valid: u32) -> Vec<u32> {
        let l = &self.segs.layout;
        let mut count = vec![0u32; l.pools as usize];
        for seg in 0..l.segments {
            if self.segs.state[seg as usize] == gc::SegState::Sealed && self.segs.valid[seg as usize] <= max_valid {
                count[l.pool_of(seg) as usize] += 1;
            }
        }
        count
    }

    pub(super) fn pool_summary(&self, pool: u32) -> String {
        let l = &self.segs.layout;
        let segs: Vec<u32> = (0..l.segments).filter(|&s| l.pool_of(s) == pool).collect();
        let count = |st| segs.iter().filter(|&&s| self.segs.state[s as usize] == st).count();
        let valid: u64 = segs.iter().map(|&s| self.segs.valid[s as usize] as u64).sum();
        format!(
            "{} free, {} open, {} sealed segments of {} pages; {valid} valid pages",
            count(gc::SegState::Free),
            count(gc::SegState::Open),
            count(gc::SegState::Sealed),
            l.pages_per_segment
        )
    }

    /// Does any sealed segment of `pool` other than `victim` hold an invalid page? (O(segments);
    /// asked only after a fully valid victim, to tell a full device from a FIFO-like policy.)
    pub(super) fn pool_has_invalid(&self, pool: u32, victim: u32) -> bool {
        let pps = self.segs.layout.pages_per_segment;
        (0..self.segs.layout.segments).any(|s| {
            s != victim
                && self.segs.layout.pool_of(s) == pool
                && self.segs.state[s as usize] == gc::SegState::Sealed
                && self.segs.valid[s as usize] < pps
        })
    }

    /// Move the valid pages of `victim`, erase it, return it to the free pool.
    pub(super) fn collect(&mut self, victim: u32, pool: u32, t_ns: u64) -> Result<(), Error> {
        if let Some(g) = &mut self.gc.gate {
            if self.segs.valid[victim as usize] <= g.max_valid {
                g.count[pool as usize] -= 1;
            }
        }
        let stream = match &mut self.placement {
            Some(p) => {
                let from = self.segs.stream[victim as usize] as usize;
                if self.segs.valid[victim as usize] > 0 {
                    p.reallocated(from);
                }
                p.gc_stream(from)
            }
            None => self.gc.policy.gc_stream(&self.segs.view(self.counters.host_writes), victim),
        };
        let mut done = t_ns;
        if self.nand.timing() {
            // Listed once (nothing a move does changes the victim's valid bits or OOB but the
            // move itself), then moved one by one in page order, each booked on the timeline.
            let (srcs, lpns) = self.list_victim(victim);
            let mut result = Ok(());
            for (k, (&ppn, &lpn)) in srcs.iter().zip(&lpns).enumerate() {
                if let Some(&next) = lpns.get(k + GC_AHEAD) {
                    crate::hint::prefetch_l2(&self.l2p, next as usize);
                }
                match self.move_valid(ppn, lpn, victim, stream, pool, t_ns) {
                    Ok(t) => done = done.max(t),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            self.gc.gc_srcs = srcs;
            self.gc.gc_lpns = lpns;
            result?;
        } else {
            self.move_runs(victim, stream, pool)?;
        }
        assert_eq!(self.segs.valid[victim as usize], 0, "victim {victim} still has valid pages after collection");
        self.table.victim_done(done, self.nand.timeline_mut());
        self.nand.erase_segment(victim, Nanos(done));
        self.segs.release(victim);
        self.gc.settled.unsettle(pool);
        self.gc.policy.on_erase(victim);
        self.counters.gc_victims += 1;
        Ok(())
    }

    /// The valid pages of `victim` and the logical pages their OOB names, in page order, in GC's
    /// reused lists (taken from `gc_srcs` / `gc_lpns`; the caller puts them back). The victim's
    /// OOB was written long ago: its lines are asked for at once, so they arrive together while
    /// the valid bits are listed (~10% on bench-accounting); then the first [`GC_AHEAD`] L2P
    /// entries the moves will write.
    pub(super) fn list_victim(&mut self, victim: u32) -> (Vec<u32>, Vec<u32>) {
        let pps = self.segs.layout.pages_per_segment;
        let (first, end) = (victim * pps, victim * pps + pps);
        self.nand.prefetch_oob(first, pps);
        self.nand.prefetch_erase(victim);
        let mut srcs = std::mem::take(&mut self.gc.gc_srcs);
        let mut lpns = std::mem::take(&mut self.gc.gc_lpns);
        set_bits_in(&self.valid_bits, first, end, self.nand.oob_range(first, end), &mut srcs, &mut lpns);
        for &lpn in lpns.iter().take(GC_AHEAD) {
            crate::hint::prefetch_l2(&self.l2p, lpn as usize);
        }
        (srcs, lpns)
    }

    /// Accounting mode: move the valid pages of `victim` as [`PageFtl::move_valid`] does one by
    /// one, in the same order and to the same pages, with the same state at every seal (the only
    /// point a policy looks), but in runs: the victim's valid pages and their logical pages are
    /// listed once, then copied to the frontier one open-segment stretch at a time, with the
    /// counters updated once per stretch and the L2P entries asked for ahead of their writes.
    pub(super) fn move_runs(&mut self, victim: u32, stream: usize, pool: u32) -> Result<(), Error> {
        let pps = self.segs.layout.pages_per_segment;
        let (first, end) = (victim * pps, victim * pps + pps);
        let (srcs, lpns) = self.list_victim(victim);
        let from = self.segs.stream[victim as usize] as usize;
        let into_cold = self.streams.enters_cold(from, stream);
        let mut k = 0;
        while k < srcs.len() {
            let want = (srcs.len() - k) as u32;
            let (dst, n) = match self.segs.frontier_run(stream, pool, want) {
                Some(run) => run,
                None => {
                    // As `take_page` does inside GC: open the next free segment, or fail.
                    self.open_segment(stream, pool)?;
                    continue;
                }
            };
            let run = k..k + n as usize;
            self.nand.move_run(&srcs[run.clone()], &lpns[run.clone()], dst);
            let ahead = lpns.get(k + GC_AHEAD..).unwrap_or_default();
            for (i, &lpn) in lpns[run].iter().enumerate() {
                if let Some(&next) = ahead.get(i) {
                    crate::hint::prefetch_l2(&self.l2p, next as usize);
                }
                self.l2p[lpn as usize] = dst + i as u32;
                self.table.moved(lpn as u64);
                if into_cold {
                    self.streams.enter_cold(lpn as u64, self.counters.host_writes);
                }
            }
            if let Some(p) = &mut self.placement {
                p.moved(from, pool, &lpns[k..k + n as usize]);
            }
            set_bits(&mut self.valid_bits, dst, dst + n);
            let moved = n as u64;
            self.segs.valid[victim as usize] -= n;
            self.segs.valid[self.segs.layout.segment_of(dst) as usize] += n;
            self.counters.gc_copies += moved;
            self.streams.moved(from, stream, moved);
            let last = dst + n - 1;
            if self.segs.is_last_page(last) {
                self.seal(last);
            }
            k += n as usize;
        }
        clear_bits(&mut self.valid_bits, first, end);
        self.gc.gc_srcs = srcs;
        self.gc.gc_lpns = lpns;
        Ok(())
    }

    /// Move valid page `ppn` of `victim`, holding `lpn` per its OOB, to the frontier of
    /// (stream, pool).
    #[inline]
    pub(super) fn move_valid(
        &mut self,
        ppn: u32,
        lpn: u32,
        victim: u32,
        stream: usize,
        pool: u32,
        t_ns: u64,
    ) -> Result<u64, Error> {
        assert_ne!(lpn, crate::nand::NO_LPN, "valid page {ppn} carries no lpn in its OOB");
        let lpn = lpn as u64;
        let dst = match self.segs.frontier_page(stream, pool) {
            Some(p) => p,
            None => self.take_page(stream, pool, t_ns)?,
        };
        let Nanos(done) = self.nand.move_page(Ppn(ppn), Ppn(dst), Nanos(t_ns));
        self.valid_bits[ppn as usize / 64] &= !(1 << (ppn % 64));
        self.segs.valid[victim as usize] -= 1;
        self.pool_valid[pool as usize] -= 1;
        self.place(lpn, dst);
        self.counters.gc_copies += 1;
        self.table.moved(lpn);
        let from = self.segs.stream[victim as usize] as usize;
        if let Some(p) = &mut self.placement {
            p.moved(from, pool, &[lpn as u32]);
        }
        self.streams.moved(from, stream, 1);
        if self.streams.enters_cold(from, stream) {
            self.streams.enter_cold(lpn, self.counters.host_writes);
        }
        Ok(done)
    }

    /// The background rounds the schedule asks for after a host request (see
    /// [`Ftl::after_request`]).
    pub(super) fn background_rounds(&mut self, Nanos(t_ns): Nanos) -> Result<bool, Error> {
        let mut worked = false;
        // Settled pools declined again (in bulk); the others checked in pool order.
        self.counters.gc_declined_rounds += self.gc.settled.declined_count;
        let pools = self.segs.layout.pools;
        let mut next = 0u32;
        while let Some(pool) = self.next_to_check(next) {
            next = pool + 1;
            let Some(round) = self.gc.schedule.background(self.segs.free_count(pool)) else {
                self.gc.settled.settle(pool, false);
                continue;
            };
            if round.min_invalid > 0 {
                let (count, rebuilt) = self.gate_count(pool, round.min_invalid);
                if rebuilt {
                    // Pools after this one settled on a declined round under the old gate were
                    // counted above and are checked again below: take their count back.
                    for p in next..pools {
                        self.counters.gc_declined_rounds -= self.gc.settled.declined[p as usize] as u64;
                    }
                    (0..pools).for_each(|p| self.gc.settled.unsettle(p));
                }
                if count == 0 {
                    // No sealed segment frees enough: whatever the policy chose would fail.
                    self.counters.gc_declined_rounds += 1;
                    self.gc.settled.settle(pool, true);
                    continue;
                }
            }
            if self.run_round(pool, round, t_ns)? {
                self.counters.gc_background_rounds += 1;
                worked = true;
            } else {
                self.counters.gc_declined_rounds += 1;
            }
        }
        Ok(worked)
    }

    /// The first pool at or after `from` to check after this request.
    #[inline]
    pub(super) fn next_to_check(&self, from: u32) -> Option<u32> {
        let check = &self.gc.settled.check;
        let mut w = from as usize / 64;
        let mut bits = *check.get(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some(w as u32 * 64 + bits.trailing_zeros());
            }
            w += 1;
            bits = *check.get(w)?;
        }
    }
}
