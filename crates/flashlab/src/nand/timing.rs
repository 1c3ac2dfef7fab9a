//! Timing model: resources with busy-until times on the simulation clock.
//!
//! Each flash operation reserves the array of the plane (or of the die, when planes of a die do
//! not work in parallel) and, for data that crosses the bus, the channel. No event queue: an
//! operation starts when it is issued and its resources are free, and returns its completion
//! time. Costs (all in ns): read = tR + transfer, program = transfer + tPROG, erase = tBERS,
//! copy-back = tR + tPROG on the array with no transfer.
//!
//! Arrays serve host commands in issue order (a busy-until time each). GC commands (between
//! [`Timeline::begin_gc`] and [`Timeline::end_gc`], with `gc_interleave`) wait in a queue per
//! array with the start they would have if nothing came between them, and start lazily: a host
//! command issued at `t` first starts the queued ones that would have started before `t`, then
//! goes after them, ahead of the rest (a host read waits for one page move, not a whole victim;
//! with suspend it interrupts a GC program or erase). A program into a block whose erase is
//! queued runs the queue through that erase first. Channels are shared by
//! several planes whose data becomes ready at different times, so a channel keeps its booked
//! transfer intervals and a transfer takes the earliest free gap at or after its data is ready:
//! a read queued behind a busy plane books the bus for when its data will be ready, and does not
//! hold the bus against transfers of idle planes meanwhile. Intervals that end before an
//! operation's issue time are forgotten (issue times do not go backwards); intervals closer than
//! one transfer merge (no transfer fits between them), so a booking is O(log n) in the booked
//! intervals however far ahead of the clock the bus is booked, and O(1) plus a short search in
//! a chunk for the bookings of a device that falls behind (see `Channel`).
//!
//! Clock arithmetic saturates at `u64::MAX` instead of wrapping: validated timings (each
//! operation at most 1 s, a page's transfer at most 1 s) cannot get there in a run a machine can
//! finish, and the simulator refuses a run whose clock does ([`CLOCK_LIMIT_NS`]), so a
//! saturated time is never reported.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::channel::Channel;
use super::geometry::Geometry;

/// `[timing]`: flash operation latencies and bus speed (timing mode). Units in the names.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimingParams {
    /// Page read, array → page register (µs): 0 to 1,000,000 (1 s; real parts take 20 to
    /// 200 µs, so the bound only keeps the simulated clock from overflowing).
    #[serde(default = "d_read")]
    pub read_us: f64,
    /// Page program (µs): 0 to 1,000,000 (1 s; real parts take 0.2 to 5 ms).
    #[serde(default = "d_prog")]
    pub program_us: f64,
    /// Block erase (µs): 0 to 1,000,000 (1 s; real parts take 2 to 25 ms).
    #[serde(default = "d_erase")]
    pub erase_us: f64,
    /// Channel bus bandwidth (MB/s, 10^6 bytes per second): 1 to 1,000,000 (real NAND buses
    /// run at 10 to 3,600 MB/s). In timing mode one page's transfer must take at most 1 s.
    #[serde(default = "d_bus")]
    pub bus_mb_s: f64,
    /// Write-buffer DRAM bandwidth (MB/s): a buffer hit, or a write the buffer accepts, takes
    /// one page's time at this rate (default 3,200: MQSim's data cache DRAM, 800 MT/s with
    /// 4-byte bursts, 1.3 µs a 4 KiB page). 1 to 1,000,000.
    #[serde(default = "d_dram")]
    pub dram_mb_s: f64,
    /// Write-buffer NVRAM bandwidth (MB/s), as `dram_mb_s` (default 3,200: battery- or
    /// capacitor-backed DRAM, the NVRAM SSDs ship; set lower for PCM or MRAM).
    #[serde(default = "d_dram")]
    pub nvram_mb_s: f64,
    /// Planes of a die operate in parallel (true) or share the die's array (false).
    #[serde(default = "d_true")]
    pub plane_parallel: bool,
    /// GC page moves interleave with host operations (true): a GC round's moves and erases wait
    /// in a queue per array, and a host operation issued while they run goes after the one in
    /// progress and before the rest, as MQSim's per-plane GC queues do. false: a round books
    /// its moves and erase on the arrays when it runs, ahead of every later host operation
    /// (a plane is blocked for the whole victim: flashlab before issue 22).
    #[serde(default = "d_true")]
    pub gc_interleave: bool,
    /// A host read suspends the GC program (or copy-back) in progress on its array: the read
    /// starts 100 µs after it is issued (the suspend time; MQSim's default
    /// `Suspend_Program_Time`) and the program resumes when the read is done, with the time it
    /// had left. Needs `gc_interleave`; host programs are never suspended.
    #[serde(default)]
    pub program_suspend: bool,
    /// A host read suspends the GC erase in progress on its array, as `program_suspend` does,
    /// after 700 µs (MQSim's default `Suspend_Erase_Time`). Needs `gc_interleave`.
    #[serde(default)]
    pub erase_suspend: bool,
}

// Defaults: a typical MLC part (tR 50 µs, tPROG 500 µs, tBERS 5 ms, 400 MB/s ONFI bus), close
// to the values FEMU's blackbox SSD and MQSim ship with.
fn d_read() -> f64 {
    50.0
}
fn d_prog() -> f64 {
    500.0
}
fn d_erase() -> f64 {
    5000.0
}
fn d_bus() -> f64 {
    400.0
}
fn d_dram() -> f64 {
    3200.0
}
fn d_true() -> bool {
    true
}

/// Time to suspend a program for a read (µs; MQSim's `Suspend_Program_Time`).
pub const SUSPEND_PROGRAM_US: f64 = 100.0;
/// Time to suspend an erase for a read (µs; MQSim's `Suspend_Erase_Time`).
pub const SUSPEND_ERASE_US: f64 = 700.0;

/// Largest read, program or erase time: 1 s in µs (see the keys' doc comments).
pub const MAX_OP_US: f64 = 1e6;
/// Bus bandwidth bounds in MB/s (see `bus_mb_s`).
pub const BUS_MB_S: (f64, f64) = (1.0, 1e6);
/// Longest transfer of one page over the bus, in ns (1 s).
pub const MAX_TRANSFER_NS: f64 = 1e9;

impl TimingParams {
    /// The bounds of the `[timing]` keys: each operation at most [`MAX_OP_US`], the bus within
    /// [`BUS_MB_S`]. With these, one flash operation costs at most a few seconds of simulated
    /// time, so the clock (u64 ns, 584 years) cannot overflow in any run a machine can finish.
    pub fn validate(&self) -> Result<(), crate::error::Error> {
        let ops = [
            ("timing.read_us", self.read_us),
            ("timing.program_us", self.program_us),
            ("timing.erase_us", self.erase_us),
        ];
        for (key, v) in ops {
            if !(v.is_finite() && (0.0..=MAX_OP_US).contains(&v)) {
                return Err(crate::error::Error::config(
                    key,
                    format!("{} µs is not from 0 to {MAX_OP_US} µs (1 s)", crate::units::number(v)),
                ));
            }
        }
        let (lo, hi) = BUS_MB_S;
        for (key, v) in [
            ("timing.bus_mb_s", self.bus_mb_s),
            ("timing.dram_mb_s", self.dram_mb_s),
            ("timing.nvram_mb_s", self.nvram_mb_s),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return Err(crate::error::Error::config(
                    key,
                    format!("{} MB/s is not from {lo} to {hi} MB/s", crate::units::number(v)),
                ));
            }
        }
        if (self.program_suspend || self.erase_suspend) && !self.gc_interleave {
            let key = if self.program_suspend { "timing.program_suspend" } else { "timing.erase_suspend" };
            return Err(crate::error::Error::config(
                key,
                "suspending GC operations for reads needs timing.gc_interleave = true".to_string(),
            ));
        }
        Ok(())
    }

    /// Time to move one page of `page_size` bytes in or out of the write buffer's DRAM and
    /// NVRAM, ns (rounded).
    pub fn buffer_page_ns(&self, page_size: u64) -> (u64, u64) {
        let ns = |mb_s: f64| (page_size as f64 / (mb_s * 1e6) * 1e9).round() as u64;
        (ns(self.dram_mb_s), ns(self.nvram_mb_s))
    }

    /// One page's transfer over the bus (timing mode) takes at most [`MAX_TRANSFER_NS`].
    pub fn check_transfer(&self, page_size: u32) -> Result<(), crate::error::Error> {
        let ns = transfer_ns(page_size, self.bus_mb_s);
        if ns.is_nan() || ns > MAX_TRANSFER_NS {
            return Err(crate::error::Error::config(
                "timing.bus_mb_s",
                format!(
                    "a device.page_size of {page_size} bytes at {} MB/s takes {:.3} s to transfer, over 1 s: raise the bus speed",
                    self.bus_mb_s,
                    ns / 1e9
                ),
            ));
        }
        Ok(())
    }
}

/// Transfer time of `page_size` bytes at `bus_mb_s` MB/s, in ns (not rounded).
fn transfer_ns(page_size: u32, bus_mb_s: f64) -> f64 {
    page_size as f64 / (bus_mb_s * 1e6) * 1e9
}

impl Default for TimingParams {
    fn default() -> Self {
        TimingParams {
            read_us: d_read(),
            program_us: d_prog(),
            erase_us: d_erase(),
            bus_mb_s: d_bus(),
            dram_mb_s: d_dram(),
            nvram_mb_s: d_dram(),
            plane_parallel: true,
            gc_interleave: true,
            program_suspend: false,
            erase_suspend: false,
        }
    }
}

/// The simulated clock's limit (ns): a completion time at or past it means the clock saturated,
/// and the run stops with an error rather than report it (`u64::MAX`, about 584 years).
pub const CLOCK_LIMIT_NS: u64 = u64::MAX;

/// Busy-until clocks of every resource, in ns, and the GC operations waiting for their arrays.
#[derive(Clone, Debug)]
pub struct Timeline {
    read_ns: u64,
    program_ns: u64,
    erase_ns: u64,
    xfer_ns: u64,
    /// Suspend costs (ns) when reads suspend GC programs / erases (`None`: they do not).
    suspend_program_ns: Option<u64>,
    suspend_erase_ns: Option<u64>,
    interleave: bool,
    /// Operations are GC's (queued with `interleave`), between [`Timeline::begin_gc`] and
    /// [`Timeline::end_gc`].
    in_gc: bool,
    arrays: Vec<Array>,
    channels: Vec<Channel>,
    /// Array resource index of each plane (the plane itself, or its die).
    array_of_plane: Vec<u32>,
    channel_of_plane: Vec<u32>,
    /// Blocks whose erase waits in a GC queue: a program there first runs that queue through
    /// the erase (the block is not erased before).
    erase_pending: Vec<bool>,
}

/// One array (a plane, or a die whose planes share it).
#[derive(Clone, Debug, Default)]
struct Array {
    /// When the operations started on it so far end.
    busy: u64,
    /// GC operations not started yet, in order; each `ready` no earlier than the previous end.
    gc: VecDeque<GcOp>,
    /// When the queued GC operations would end if no host operation came between them.
    gc_tail: u64,
    /// The operation ending at `busy` is a GC program or erase a read may suspend: its suspend
    /// cost (ns), and when it started or last resumed.
    suspendable: Option<(u64, u64)>,
    /// Where in its channel's last chunk this array's last host read booked (a hint: reads of
    /// an array book at ever later times, so the next one lands at or just after it).
    read_hint: u32,
}

/// A queued GC operation: its earliest start (when the round ran, or its data crossed the bus),
/// its time on the array, and the block it erases.
#[derive(Clone, Copy, Debug)]
struct GcOp {
    ready: u64,
    len: u64,
    kind: GcKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GcKind {
    Read,
    Program,
    Erase(u32),
}

/// Validated times are at most 1 s ([`MAX_OP_US`]): the cast cannot saturate.
fn us_to_ns(us: f64) -> u64 {
    debug_assert!((0.0..=MAX_OP_US).contains(&us), "unvalidated time {us} µs");
    (us * 1000.0).round() as u64
}

impl Timeline {
    /// Idle resources for `geo` under validated `p`: one array per plane (per die without
    /// `plane_parallel`) and one bus per channel.
    pub fn new(p: &TimingParams, geo: &Geometry) -> Self {
        let planes = geo.planes();
        // At most MAX_TRANSFER_NS once validated (`check_transfer`): the cast cannot saturate.
        let xfer_ns = transfer_ns(geo.page_size, p.bus_mb_s).round() as u64;
        let array_of_plane: Vec<u32> =
            (0..planes).map(|pl| if p.plane_parallel { pl } else { geo.die_of_plane(pl) }).collect();
        let arrays = if p.plane_parallel { planes } else { geo.dies() };
        Timeline {
            read_ns: us_to_ns(p.read_us),
            program_ns: us_to_ns(p.program_us),
            erase_ns: us_to_ns(p.erase_us),
            xfer_ns,
            suspend_program_ns: p.program_suspend.then(|| us_to_ns(SUSPEND_PROGRAM_US)),
            suspend_erase_ns: p.erase_suspend.then(|| us_to_ns(SUSPEND_ERASE_US)),
            interleave: p.gc_interleave,
            in_gc: false,
            arrays: vec![Array::default(); arrays as usize],
            channels: vec![Channel::default(); geo.channels as usize],
            array_of_plane,
            channel_of_plane: (0..planes).map(|pl| geo.channel_of_plane(pl)).collect(),
            erase_pending: if p.gc_interleave { vec![false; geo.total_blocks() as usize] } else { Vec::new() },
        }
    }

    /// The operations until [`Timeline::end_gc`] are a GC round's: with `gc_interleave` they
    /// wait in their arrays' queues (their times as if no host operation came between them are
    /// returned) and start when the clock reaches them, host operations issued meanwhile first.
    pub fn begin_gc(&mut self) {
        assert!(!self.in_gc, "GC round begun twice");
        self.in_gc = self.interleave;
    }

    /// The GC round [`Timeline::begin_gc`] began is over: later operations are booked as host
    /// operations.
    pub fn end_gc(&mut self) {
        self.in_gc = false;
    }

    /// Page read at `plane` issued at `t`: array read then transfer out. Returns completion.
    #[inline]
    pub fn read(&mut self, plane: u32, t: u64) -> u64 {
        let a = self.array_of_plane[plane as usize] as usize;
        let c = self.channel_of_plane[plane as usize] as usize;
        if self.in_gc {
            let start = t.max(self.gc_free(a));
            let array_done = start.saturating_add(self.read_ns);
            let done = self.channels[c].book(t, array_done, self.xfer_ns).saturating_add(self.xfer_ns);
            self.enqueue(a, GcOp { ready: start, len: done - start, kind: GcKind::Read });
            return done;
        }
        self.catch_up(a, t);
        if let Some(done) = self.suspend_for_read(a, c, t) {
            return done;
        }
        let arr = &mut self.arrays[a];
        let array_done = t.max(arr.busy).saturating_add(self.read_ns);
        let done = self.channels[c].book_near(t, array_done, self.xfer_ns, &mut arr.read_hint);
        let done = done.saturating_add(self.xfer_ns);
        self.host_booked(a, done);
        done
    }

    /// Page program at `plane` issued at `t`: transfer in then program.
    #[inline]
    pub fn program(&mut self, plane: u32, t: u64) -> u64 {
        self.program_block(plane, None, t)
    }

    /// [`Timeline::program`] into `block`: a GC erase of it still queued runs first.
    #[inline]
    pub fn program_block(&mut self, plane: u32, block: Option<u32>, t: u64) -> u64 {
        let a = self.array_of_plane[plane as usize] as usize;
        let c = self.channel_of_plane[plane as usize] as usize;
        let xfer_done = self.channels[c].book(t, t, self.xfer_ns).saturating_add(self.xfer_ns);
        if self.in_gc {
            let start = xfer_done.max(self.gc_free(a));
            self.enqueue(a, GcOp { ready: start, len: self.program_ns, kind: GcKind::Program });
            return start.saturating_add(self.program_ns);
        }
        self.catch_up(a, t);
        if let Some(b) = block {
            while self.erase_pending.get(b as usize) == Some(&true) {
                self.start_next_gc(a);
            }
        }
        let done = xfer_done.max(self.arrays[a].busy).saturating_add(self.program_ns);
        self.host_booked(a, done);
        done
    }

    /// Copy-back inside one plane: read and program on the array, no bus transfer.
    #[inline]
    pub fn copyback(&mut self, plane: u32, t: u64) -> u64 {
        let a = self.array_of_plane[plane as usize] as usize;
        let len = self.read_ns + self.program_ns;
        if self.in_gc {
            let start = t.max(self.gc_free(a));
            self.enqueue(a, GcOp { ready: start, len, kind: GcKind::Program });
            return start.saturating_add(len);
        }
        self.catch_up(a, t);
        let done = t.max(self.arrays[a].busy).saturating_add(len);
        self.host_booked(a, done);
        done
    }

    /// Block erase at `plane` issued at `t`.
    #[inline]
    pub fn erase(&mut self, plane: u32, t: u64) -> u64 {
        self.erase_block(plane, u32::MAX, t)
    }

    /// [`Timeline::erase`] of `block` (programs into it wait for it when it is queued).
    pub fn erase_block(&mut self, plane: u32, block: u32, t: u64) -> u64 {
        let a = self.array_of_plane[plane as usize] as usize;
        if self.in_gc {
            let start = t.max(self.gc_free(a));
            if let Some(p) = self.erase_pending.get_mut(block as usize) {
                *p = true;
            }
            self.enqueue(a, GcOp { ready: start, len: self.erase_ns, kind: GcKind::Erase(block) });
            return start.saturating_add(self.erase_ns);
        }
        self.catch_up(a, t);
        let done = t.max(self.arrays[a].busy).saturating_add(self.erase_ns);
        self.host_booked(a, done);
        done
    }

    /// When the array serving `plane` finishes the operations started on it (queued GC
    /// operations not counted: host operations go before those not started).
    #[inline]
    pub fn array_free_at(&self, plane: u32) -> u64 {
        self.arrays[self.array_of_plane[plane as usize] as usize].busy
    }

    /// When every array is idle: the operations started on each, and the GC operations queued,
    /// have ended by then.
    pub fn idle_at(&self) -> u64 {
        self.arrays.iter().map(|a| a.busy.max(a.gc_tail)).max().unwrap_or(0)
    }

    /// When the array of `plane` is idle: its started and queued operations ended.
    pub fn array_idle_at(&self, plane: u32) -> u64 {
        let a = &self.arrays[self.array_of_plane[plane as usize] as usize];
        a.busy.max(a.gc_tail)
    }

    /// When the first array is idle (its started and queued operations ended).
    pub fn first_idle_at(&self) -> u64 {
        self.arrays.iter().map(|a| a.busy.max(a.gc_tail)).min().unwrap_or(0)
    }

    /// Arrays that work in parallel (planes, or dies without `plane_parallel`).
    pub fn arrays(&self) -> usize {
        self.arrays.len()
    }

    /// Forget all reservations (after preconditioning).
    pub fn reset(&mut self) {
        self.arrays.iter_mut().for_each(|a| *a = Array::default());
        self.channels.iter_mut().for_each(Channel::clear);
        self.erase_pending.iter_mut().for_each(|p| *p = false);
    }

    /// Time to move one page over a channel, in ns (rounded).
    pub fn transfer_ns(&self) -> u64 {
        self.xfer_ns
    }

    /// When a GC operation queued now on array `a` could start: after the queued ones.
    #[inline]
    fn gc_free(&self, a: usize) -> u64 {
        let arr = &self.arrays[a];
        arr.busy.max(arr.gc_tail)
    }

    fn enqueue(&mut self, a: usize, op: GcOp) {
        let arr = &mut self.arrays[a];
        debug_assert!(op.ready >= arr.gc_tail, "GC operation queued before the previous one ends");
        arr.gc_tail = op.ready.saturating_add(op.len);
        arr.gc.push_back(op);
    }

    /// Start, in order, the queued GC operations of array `a` that the clock has reached by `t`
    /// (those that would start before `t`): a host operation issued at `t` goes after them.
    #[inline]
    fn catch_up(&mut self, a: usize, t: u64) {
        while let Some(op) = self.arrays[a].gc.front() {
            if op.ready.max(self.arrays[a].busy) >= t {
                break;
            }
            self.start_next_gc(a);
        }
    }

    /// Start array `a`'s first queued GC operation when the array is free.
    fn start_next_gc(&mut self, a: usize) {
        let arr = &mut self.arrays[a];
        let op = arr.gc.pop_front().expect("a queued GC operation to start");
        let start = op.ready.max(arr.busy);
        arr.busy = start.saturating_add(op.len);
        arr.suspendable = match op.kind {
            GcKind::Read => None,
            GcKind::Program => self.suspend_program_ns.map(|c| (c, start)),
            GcKind::Erase(block) => {
                if let Some(p) = self.erase_pending.get_mut(block as usize) {
                    *p = false;
                }
                self.suspend_erase_ns.map(|c| (c, start))
            }
        };
    }

    /// A host operation on array `a` ends at `done`: the array is busy until then.
    #[inline]
    fn host_booked(&mut self, a: usize, done: u64) {
        let arr = &mut self.arrays[a];
        arr.busy = done;
        arr.suspendable = None;
    }

    /// A read issued at `t` suspends the GC program or erase running on array `a` when that
    /// lets it finish sooner: it starts after the suspend cost (or after the read that already
    /// suspended it), and the GC operation resumes after it with the time it had left.
    fn suspend_for_read(&mut self, a: usize, c: usize, t: u64) -> Option<u64> {
        let (cost, resumed) = self.arrays[a].suspendable?;
        let busy = self.arrays[a].busy;
        // Paused from `t`, or from the end of the read that suspended it before.
        let paused = t.max(resumed);
        let start = if t >= resumed { t.saturating_add(cost) } else { resumed };
        if t >= busy || start >= busy {
            return None;
        }
        let array_done = start.saturating_add(self.read_ns);
        let done = self.channels[c].book(t, array_done, self.xfer_ns).saturating_add(self.xfer_ns);
        let arr = &mut self.arrays[a];
        arr.busy = done.saturating_add(busy - paused);
        arr.suspendable = Some((cost, done));
        Some(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 4,
            pages_per_block: 4,
            page_size: 4096,
        }
    }
    fn params() -> TimingParams {
        TimingParams { read_us: 50.0, program_us: 500.0, erase_us: 5000.0, bus_mb_s: 409.6, ..TimingParams::default() }
    }

    #[test]
    fn costs_follow_the_formulas() {
        let mut t = Timeline::new(&params(), &geo());
        let x = t.transfer_ns();
        assert_eq!(x, 10_000, "4096 B at 409.6 MB/s = 10 µs");
        assert_eq!(t.read(0, 0), 50_000 + x);
        assert_eq!(t.program(1, 0), x + 500_000);
        assert_eq!(t.erase(2, 0), 5_000_000);
        assert_eq!(t.copyback(3, 0), 550_000);
    }

    #[test]
    fn one_channel_serialises_transfers_but_planes_overlap() {
        let mut t = Timeline::new(&params(), &geo());
        // planes 0 and 2 share channel 0 (channel-first numbering).
        let a = t.program(0, 0);
        let b = t.program(2, 0);
        assert_eq!(a, 10_000 + 500_000);
        assert_eq!(b, 20_000 + 500_000, "second transfer waits for the bus, programs overlap");
        let c = t.program(0, 0);
        assert_eq!(c, a + 500_000, "same plane waits for its array");
    }

    #[test]
    fn a_read_waiting_for_its_plane_does_not_hold_the_bus() {
        let mut t = Timeline::new(&params(), &geo());
        // Plane 0 busy programming until 510 µs; a read of plane 0 at t=0 waits for it.
        t.program(0, 0);
        let slow = t.read(0, 0);
        assert_eq!(slow, 510_000 + 50_000 + 10_000);
        // Plane 2 shares channel 0 and is idle: its read is not delayed by the queued one.
        assert_eq!(t.read(2, 1_000), 1_000 + 50_000 + 10_000);
    }

    #[test]
    fn planes_of_a_die_share_the_array_when_not_parallel() {
        let mut p = params();
        p.plane_parallel = false;
        let mut t = Timeline::new(&p, &geo());
        // dies = 2: planes 0 and 2 are die 0.
        let a = t.copyback(0, 0);
        let b = t.copyback(2, 0);
        assert_eq!(b, a + 550_000);
    }
}
