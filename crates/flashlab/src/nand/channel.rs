//! A channel's booked transfer intervals `[start, end)`: disjoint, sorted, and every gap between
//! two of them at least one transfer long.
//!
//! Every transfer lasts the same `len` (one page at the bus speed), so a gap shorter than that can
//! never be used: booking closes it (the interval grows over it). Then the gap after the first
//! interval that ends after `ready` always fits a transfer, and a booking looks at no more than
//! three intervals (the one before `ready`, the next, and the one after that).
//!
//! A device that falls behind keeps many intervals booked ahead of the clock (one per read whose
//! plane is busy, ~10^5 in the backlog benchmark), and no interval after `now` can be forgotten:
//! a later program transfer (booked from its issue time) may still reach the gaps between them.
//! What such a device does is predictable: program transfers book at the front (at `now`, the
//! first interval grows, swallowing the reads it reaches) and reads book near the back (at their
//! plane's free time, the latest times booked). So the intervals sit in sorted chunks: the
//! `first`, the `last`, and the ones between in a `BTreeMap` keyed by each chunk's first start.
//! A booking inside one chunk, the next chunk's front included, works on that
//! chunk by index: no tree search in the first or the last chunk (where all but 1–2% of the
//! backlog benchmark's bookings go), one in a middle chunk. A read gallops through `last` from
//! where its plane's previous read went (the hint its array keeps; reads of a plane book at ever
//! later times), or from the back, and inserts with a short `memmove`; a program gallops from
//! the front of `first` (it books at its issue time). Any other booking (one that goes past the
//! next chunk's front) goes through the map's queries, O(log n) with chunks of at most
//! [`CHUNK_MAX`] intervals ([`LAST_MAX`] for the last). A few intervals (an idle or lightly
//! loaded bus) sit in one sorted `Vec`.
//!
//! Owns the interval set only; the timeline (`timing.rs`) decides what to book and when.

use std::collections::BTreeMap;

/// One channel's bus: its booked transfer intervals (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(super) struct Channel {
    busy: Intervals,
}

/// Most intervals in a chunk of [`Big::mid`] or in [`Big::first`]: a split keeps half.
const CHUNK_MAX: usize = 64;
/// Most intervals in [`Big::last`], where reads of a backlogged device book: a split moves its
/// lower half into the map as one chunk.
const LAST_MAX: usize = 512;

/// Sorted disjoint intervals `(start, end)`.
#[derive(Clone, Debug)]
enum Intervals {
    Small(Vec<(u64, u64)>),
    Big(Big),
}

/// Many intervals, in sorted chunks: `first`, then `mid`, then `last`, each start above every
/// start before it. A `mid` chunk's key is its first start ([`Big::rekey`] keeps it so), so a
/// booking at or after a chunk's key has the interval before it in that chunk. `first` is never
/// empty, nor is a `mid` chunk, and `last` is not empty while `mid` is not.
#[derive(Clone, Debug)]
struct Big {
    first: Chunk,
    mid: BTreeMap<u64, Chunk>,
    last: Chunk,
    /// Intervals in all chunks.
    len: usize,
}

/// A chunk of a [`Big`] (a `mid` chunk by its key).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    First,
    Mid(u64),
    Last,
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals::Small(Vec::new())
    }
}

/// A sorted chunk of a [`Big`]. (A ring buffer, which frees its front without moving the rest,
/// measured slower: most insertions are near the back of `last`, and indexing costs more.)
type Chunk = Vec<(u64, u64)>;

/// Intervals of a sorted chunk starting at or before `x`.
#[inline]
fn upto(c: &[(u64, u64)], x: u64) -> usize {
    c.partition_point(|iv| iv.0 <= x)
}

impl Big {
    /// The chunk that holds (or would hold) start `x`.
    #[inline]
    fn part(&self, x: u64) -> Part {
        if self.last.first().is_some_and(|iv| iv.0 <= x) {
            return Part::Last;
        }
        match self.mid.first_key_value() {
            Some((&k, _)) if k <= x => Part::Mid(*self.mid.range(..=x).next_back().expect("a chunk at or before x").0),
            _ => Part::First,
        }
    }
    /// [`Intervals::at_or_before`] (kept out of line: the small list's path stays short).
    #[inline(never)]
    fn at_or_before(&self, x: u64) -> Option<(u64, u64)> {
        match self.part(x) {
            Part::First => self.first[..upto(&self.first, x)].last().copied(),
            Part::Last => Some(self.last[upto(&self.last, x) - 1]),
            Part::Mid(k) => {
                let c = &self.mid[&k];
                match upto(c, x) {
                    0 => match self.mid.range(..k).next_back() {
                        Some((_, c)) => c.last().copied(),
                        None => self.first.last().copied(),
                    },
                    i => Some(c[i - 1]),
                }
            }
        }
    }

    /// [`Intervals::after`] (out of line, as `at_or_before`).
    #[inline(never)]
    fn after(&self, x: u64) -> Option<(u64, u64)> {
        let p = self.part(x);
        let c = match p {
            Part::First => &self.first,
            Part::Mid(k) => &self.mid[&k],
            Part::Last => &self.last,
        };
        c.get(upto(c, x)).copied().or_else(|| self.front_after(p))
    }

    /// The first interval of the chunk after chunk `p` (none after `last`).
    fn front_after(&self, p: Part) -> Option<(u64, u64)> {
        use std::ops::Bound::{Excluded, Unbounded};
        let later = match p {
            Part::First => self.mid.first_key_value(),
            Part::Mid(k) => self.mid.range((Excluded(k), Unbounded)).next(),
            Part::Last => return None,
        };
        match later {
            Some((_, c)) => Some(c[0]),
            None => self.last.first().copied(),
        }
    }

    /// Key the middle chunk keyed `k` by its first start again after it lost its first interval
    /// (swallowed by the chunk before, or removed), or drop it when that was its last. Left at
    /// the old key, below its new first start, a booking ready between the two would find the
    /// interval before it in the chunk before: the slow path, where a real trace's lagging
    /// planes book often.
    #[inline(never)]
    fn rekey(&mut self, k: u64) {
        let c = self.mid.remove(&k).expect("mid chunk");
        if let Some(&(s, _)) = c.first() {
            #[cfg(test)]
            tests::REKEYS.with(|n| n.set(n.get() + 1));
            self.mid.insert(s, c);
        }
    }

    /// The chunk `p` names.
    fn chunk(&mut self, p: Part) -> &mut Chunk {
        match p {
            Part::First => &mut self.first,
            Part::Mid(k) => self.mid.get_mut(&k).expect("mid chunk"),
            Part::Last => &mut self.last,
        }
    }
    /// Restore: `first` non-empty (else false: nothing left), `last` non-empty when `mid` is,
    /// no empty mid chunk, no chunk over CHUNK_MAX.
    #[inline]
    fn fix(&mut self, p: Part) -> bool {
        let fine = match p {
            Part::First => (1..=CHUNK_MAX).contains(&self.first.len()),
            Part::Last => (1..=LAST_MAX).contains(&self.last.len()),
            Part::Mid(_) => false,
        };
        fine || self.refit(p)
    }
    /// [`Big::fix`] when a chunk may be empty or too long.
    #[inline(never)]
    fn refit(&mut self, p: Part) -> bool {
        match p {
            Part::Mid(k) => {
                let c = self.mid.get_mut(&k).expect("mid chunk");
                if c.is_empty() {
                    self.mid.remove(&k);
                } else if c.len() > CHUNK_MAX {
                    let upper = c.split_off(CHUNK_MAX / 2);
                    self.mid.insert(upper[0].0, upper);
                }
            }
            Part::Last => {
                if self.last.len() > LAST_MAX {
                    // The lower half leaves in a chunk of its own size; `last` keeps its buffer.
                    let lower: Chunk = self.last.drain(..LAST_MAX / 2).collect();
                    self.mid.insert(lower[0].0, lower);
                } else if self.last.is_empty() {
                    if let Some((_, c)) = self.mid.pop_last() {
                        self.last = c;
                    }
                }
            }
            Part::First => {
                if self.first.len() > CHUNK_MAX {
                    let upper = self.first.split_off(CHUNK_MAX / 2);
                    if self.last.is_empty() {
                        self.last = upper;
                    } else {
                        self.mid.insert(upper[0].0, upper);
                    }
                } else if self.first.is_empty() {
                    match self.mid.pop_first() {
                        Some((_, c)) => self.first = c,
                        None => std::mem::swap(&mut self.first, &mut self.last),
                    }
                    return !self.first.is_empty();
                }
            }
        }
        true
    }
    /// Panics unless the chunks keep their invariants (see [`Big`]).
    #[cfg(test)]
    fn check(&self) {
        let all = self.to_vec();
        assert_eq!(all.len(), self.len, "interval count");
        assert!(all.windows(2).all(|w| w[0].1 <= w[1].0), "sorted and disjoint");
        assert!(!self.first.is_empty() && self.mid.values().all(|c| !c.is_empty()), "an empty chunk");
        assert!(self.mid.is_empty() || !self.last.is_empty(), "middle chunks but no last");
        let mut below = self.first.last().map(|iv| iv.0);
        for (&k, c) in &self.mid {
            // At its first start: a chunk that lost its first interval was keyed again.
            assert!(below.is_none_or(|b| b < k) && k == c[0].0, "key {k} of a chunk from {} after {below:?}", c[0].0);
            below = c.last().map(|iv| iv.0);
        }
        assert!(self.last.first().is_none_or(|iv| below.is_none_or(|b| b < iv.0)), "last chunk order");
    }

    fn to_vec(&self) -> Vec<(u64, u64)> {
        let mut v = self.first.clone();
        v.extend(self.mid.values().flatten());
        v.extend_from_slice(&self.last);
        v
    }
}

impl Intervals {
    /// Longest `Small` list; a `Big` that drops below `SMALL_MIN` becomes a list again.
    const SMALL_MAX: usize = 32;
    const SMALL_MIN: usize = 8;

    /// Drop the intervals that end before `now`.
    #[inline]
    fn drop_stale(&mut self, now: u64) {
        match self {
            Intervals::Small(v) => {
                let stale = v.partition_point(|iv| iv.1 < now);
                if stale > 0 {
                    v.drain(..stale);
                }
            }
            Intervals::Big(b) => {
                if b.first[0].1 >= now {
                    return;
                }
                loop {
                    // Few at a time: the clock moves on by one operation.
                    let stale = gallop(&b.first, 0, |iv| iv.1 < now);
                    b.first.drain(..stale);
                    b.len -= stale;
                    if !b.fix(Part::First) {
                        *self = Intervals::Small(Vec::new());
                        return;
                    }
                    if b.first[0].1 >= now {
                        break;
                    }
                }
                if b.len < Self::SMALL_MIN {
                    *self = Intervals::Small(b.to_vec());
                }
            }
        }
    }

    /// The last interval starting at or before `x`.
    #[inline]
    fn at_or_before(&self, x: u64) -> Option<(u64, u64)> {
        match self {
            Intervals::Small(v) => v[..upto(v, x)].last().copied(),
            Intervals::Big(b) => b.at_or_before(x),
        }
    }

    /// The first interval starting after `x`.
    #[inline]
    fn after(&self, x: u64) -> Option<(u64, u64)> {
        match self {
            Intervals::Small(v) => v.get(upto(v, x)).copied(),
            Intervals::Big(b) => b.after(x),
        }
    }

    /// Remove the interval starting at `start`.
    #[inline]
    fn remove(&mut self, start: u64) {
        match self {
            Intervals::Small(v) => {
                if let Ok(i) = v.binary_search_by_key(&start, |iv| iv.0) {
                    v.remove(i);
                }
            }
            Intervals::Big(b) => {
                let p = b.part(start);
                let c = b.chunk(p);
                if let Ok(i) = c.binary_search_by_key(&start, |iv| iv.0) {
                    c.remove(i);
                    b.len -= 1;
                    match p {
                        Part::Mid(k) if i == 0 => b.rekey(k),
                        _ => {
                            if !b.fix(p) {
                                *self = Intervals::Small(Vec::new());
                            }
                        }
                    }
                }
            }
        }
    }

    /// Add `[start, end)`, or set the end of the interval starting at `start`.
    #[inline]
    fn insert(&mut self, start: u64, end: u64) {
        match self {
            Intervals::Small(v) => {
                match v.binary_search_by_key(&start, |iv| iv.0) {
                    Ok(i) => v[i].1 = end,
                    Err(i) => v.insert(i, (start, end)),
                }
                if v.len() > Self::SMALL_MAX {
                    let first = std::mem::take(v);
                    let len = first.len();
                    let mut b = Big { first, mid: BTreeMap::new(), last: Chunk::new(), len };
                    b.fix(Part::First);
                    *self = Intervals::Big(b);
                }
            }
            Intervals::Big(b) => {
                let p = b.part(start);
                let c = b.chunk(p);
                match c.binary_search_by_key(&start, |iv| iv.0) {
                    Ok(i) => c[i].1 = end,
                    Err(i) => {
                        c.insert(i, (start, end));
                        b.len += 1;
                        b.fix(p);
                    }
                }
            }
        }
    }

    #[cfg(test)]
    fn to_vec(&self) -> Vec<(u64, u64)> {
        match self {
            Intervals::Small(v) => v.clone(),
            Intervals::Big(b) => b.to_vec(),
        }
    }
}

impl Channel {
    /// Book `len` ns at the earliest gap starting at or after `ready`; returns the start.
    /// `now` (the operation's issue time) lets intervals that ended before it be dropped.
    /// `len` must be the same for every booking of a channel (it is the page transfer time).
    pub(super) fn book(&mut self, now: u64, ready: u64, len: u64) -> u64 {
        self.book_near(now, ready, len, &mut { u32::MAX })
    }

    /// [`Channel::book`] with a `hint` of where in the last chunk to look first (any value
    /// is correct: a wrong hint only costs a search); set to where this booking went.
    #[inline]
    pub(super) fn book_near(&mut self, now: u64, ready: u64, len: u64, hint: &mut u32) -> u64 {
        self.busy.drop_stale(now);
        if let Intervals::Big(b) = &mut self.busy {
            if len > 0 {
                if let Some(start) = b.book_fast(ready, len, hint) {
                    return start;
                }
            }
        }
        self.book_slow(ready, len)
    }

    /// [`Channel::book`] in any representation, through the interval queries.
    #[inline]
    fn book_slow(&mut self, ready: u64, len: u64) -> u64 {
        // The interval holding `ready` or ending at or before it, and the first one after it.
        let mut prev = self.busy.at_or_before(ready);
        let mut next = self.busy.after(ready);
        let mut start = prev.map_or(ready, |(_, e)| e.max(ready));
        if let Some((ns, ne)) = next {
            if ns < start.saturating_add(len) {
                // Too close to the next interval: after it, where the gap fits `len`.
                start = ne;
                prev = next;
                next = self.busy.after(ns);
            }
        }
        if len == 0 {
            return start;
        }
        // Add [start, end), merging with neighbours it touches or leaves less than `len` from.
        let end = start.saturating_add(len);
        let mut lo = start;
        let mut hi = end;
        if let Some((ps, pe)) = prev {
            debug_assert!(pe <= start, "booked over [{ps}, {pe}) at {start}");
            if start - pe < len {
                lo = ps;
            }
        }
        if let Some((ns, ne)) = next {
            debug_assert!(ns >= end, "booked over [{ns}, {ne}) at [{start}, {end})");
            if ns - end < len {
                self.busy.remove(ns);
                hi = ne;
            }
        }
        self.busy.insert(lo, hi);
        start
    }
}

impl Big {
    /// [`Channel::book`] inside the chunk that holds `ready` (the same steps as
    /// [`Channel::book_slow`], on indices), the front of the chunk after it included (where the
    /// programs of a backlogged device book, at the end of the first chunk): one tree search
    /// for a middle chunk, none for the first or the last. `None` when the interval before
    /// `ready` is in the chunk before, or the booking goes past the next chunk's front.
    #[inline]
    fn book_fast(&mut self, ready: u64, len: u64, hint: &mut u32) -> Option<u64> {
        use std::ops::Bound::{Excluded, Unbounded};
        // The chunk, and the interval after its last (the next chunk's first; none after `last`).
        let (p, c, beyond) = match self.last.first() {
            Some(iv) if iv.0 <= ready => (Part::Last, &self.last, None),
            last => match self.mid.first_key_value() {
                Some((&k, m)) if ready < k => (Part::First, &self.first, m.first().copied()),
                None => (Part::First, &self.first, last.copied()),
                Some(_) => {
                    let (&k, c) = self.mid.range(..=ready).next_back().expect("a chunk at or before ready");
                    (Part::Mid(k), c, self.front_after(Part::Mid(k)))
                }
            },
        };
        let n = c.len();
        let i = match p {
            Part::Last => match c.get(*hint as usize) {
                Some(iv) if iv.0 <= ready => upto_from(c, *hint as usize + 1, ready),
                _ => upto_from_back(c, ready),
            },
            // Programs book at their issue time, near the front of the first chunk.
            _ => upto_from(c, 0, ready),
        };
        if i == 0 && p != Part::First {
            // The interval before `ready` in the chunk before: not with every middle chunk keyed
            // by its first start, but the queries would still book it right.
            return None;
        }
        let at = |j: usize| if j < n { Some(c[j]) } else { beyond };
        let mut pi = i.checked_sub(1);
        let mut prev = pi.map(|j| c[j]);
        let mut ni = i;
        let mut next = at(ni);
        let mut start = prev.map_or(ready, |(_, e)| e.max(ready));
        if let Some((ns, ne)) = next {
            if ns < start.saturating_add(len) {
                if ni >= n {
                    return None;
                }
                start = ne;
                prev = next;
                pi = Some(ni);
                ni += 1;
                next = at(ni);
            }
        }
        let end = start.saturating_add(len);
        let merge_prev = prev.is_some_and(|(_, pe)| start - pe < len);
        let merge_next = next.is_some_and(|(ns, _)| ns - end < len);
        // A new interval starts at `ready`, which is in this chunk's range.
        debug_assert!(merge_prev || start == ready);
        let c = self.chunk(p);
        if ni >= n && merge_next {
            // `next` is the following chunk's first: it leaves that chunk, merged into this one.
            let ne = next.expect("merging with the next interval").1;
            match pi.filter(|_| merge_prev) {
                Some(j) => c[j].1 = ne,
                None => c.push((start, ne)),
            }
            let following = match p {
                Part::Mid(k) => self.mid.range_mut((Excluded(k), Unbounded)).next(),
                _ => self.mid.iter_mut().next(),
            };
            match following {
                Some((&k, m)) => {
                    m.remove(0);
                    self.rekey(k);
                }
                None => {
                    self.last.remove(0);
                }
            }
            self.len -= usize::from(merge_prev);
            self.fix(Part::Last);
        } else {
            match (merge_prev, merge_next) {
                (true, true) => {
                    c[pi.unwrap()].1 = next.unwrap().1;
                    c.remove(ni);
                    self.len -= 1;
                }
                (true, false) => c[pi.unwrap()].1 = end,
                (false, true) => c[ni] = (start, next.unwrap().1),
                (false, false) => {
                    c.insert(ni, (start, end));
                    self.len += 1;
                }
            }
        }
        if p == Part::Last {
            *hint = if merge_prev { pi.unwrap() } else { ni } as u32;
        }
        let alive = self.fix(p);
        debug_assert!(alive);
        Some(start)
    }
}

/// [`upto`] when every interval before `from` starts at or before `x`: galloping forward from
/// `from`, O(log d) for an `x` d intervals after it.
#[inline]
fn upto_from(c: &[(u64, u64)], from: usize, x: u64) -> usize {
    gallop(c, from, |iv| iv.0 <= x)
}

/// The first index from `from` on whose interval fails `pred`, when `pred` holds for every
/// interval before it and fails for every one after: galloping forward, O(log d) for an
/// answer d intervals after `from`.
#[inline]
fn gallop(c: &[(u64, u64)], from: usize, pred: impl Fn(&(u64, u64)) -> bool) -> usize {
    let n = c.len();
    let mut lo = from;
    let mut step = 1;
    let hi = loop {
        let j = lo + step - 1;
        if j >= n {
            break n;
        }
        if !pred(&c[j]) {
            break j;
        }
        lo = j + 1;
        step *= 2;
    };
    lo + c[lo..hi].partition_point(pred)
}

/// [`upto`] searched from the back, galloping: O(log d) for an `x` d intervals from the end
/// (reads of a backlogged device book near the end of the last chunk).
#[inline]
fn upto_from_back(c: &[(u64, u64)], x: u64) -> usize {
    let n = c.len();
    // Every interval from `hi` on starts after `x`; every one before `lo` at or before it.
    let mut hi = n;
    let mut step = 1;
    let lo = loop {
        if hi < step {
            break 0;
        }
        let j = hi - step;
        if c[j].0 <= x {
            break j + 1;
        }
        hi = j;
        step *= 2;
    };
    lo + upto(&c[lo..hi], x)
}

impl Channel {
    pub(super) fn clear(&mut self) {
        self.busy = Intervals::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Middle chunks keyed again by [`Big::rekey`] on this thread.
        pub(super) static REKEYS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    fn intervals(c: &Channel) -> Vec<(u64, u64)> {
        c.busy.to_vec()
    }

    #[test]
    fn channel_gaps_are_filled_in_time_order() {
        let mut c = Channel::default();
        assert_eq!(c.book(0, 100, 10), 100);
        assert_eq!(c.book(0, 0, 10), 0, "fits before the booked interval");
        assert_eq!(c.book(0, 95, 10), 110, "overlaps [100,110): goes after it");
        assert_eq!(c.book(0, 5, 10), 10);
        assert_eq!(intervals(&c), vec![(0, 20), (100, 120)], "touching intervals merge");
        assert_eq!(c.book(50, 50, 10), 50);
        assert_eq!(intervals(&c), vec![(50, 60), (100, 120)], "intervals ended before `now` are dropped");
    }

    #[test]
    fn gaps_shorter_than_a_transfer_are_closed() {
        let mut c = Channel::default();
        assert_eq!(c.book(0, 0, 10), 0);
        assert_eq!(c.book(0, 15, 10), 15, "a 5 ns gap is left before it");
        assert_eq!(intervals(&c), vec![(0, 25)], "the 5 ns gap can hold no transfer: closed");
        assert_eq!(c.book(0, 2, 10), 25, "ready inside the closed gap: after the interval");
        assert_eq!(c.book(0, 50, 10), 50);
        assert_eq!(c.book(0, 41, 10), 60, "[41, 51) overlaps [50, 60): after it");
        assert_eq!(intervals(&c), vec![(0, 35), (50, 70)]);
        assert_eq!(c.book(0, 36, 10), 36, "fits, leaving 1 and 4 ns gaps: both closed");
        assert_eq!(intervals(&c), vec![(0, 70)]);
    }

    /// The merged representation books exactly as a plain list of every interval would.
    #[test]
    fn bookings_match_a_list_of_every_interval() {
        let mut c = Channel::default();
        let mut all: Vec<(u64, u64)> = Vec::new();
        let len = 7;
        let mut x = 12345u64;
        let mut now = 0;
        let mut big = 0;
        for _ in 0..5000 {
            x = lcg(x);
            now += (x >> 60) % 3 + if (x >> 40).is_multiple_of(700) { 3000 } else { 0 };
            let ready = now + (x >> 33) % 2000;
            let start = first_fit(&mut all, ready, len);
            assert_eq!(c.book(now, ready, len), start, "booking at ready {ready}");
            big += matches!(c.busy, Intervals::Big(_)) as u32;
        }
        assert!(big > 300 && big < 4900, "both representations used: {big} bookings in the map");
    }

    /// The next state of the tests' 64-bit linear congruential generator (Knuth's MMIX constants).
    fn lcg(x: u64) -> u64 {
        x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407)
    }

    /// First fit over every interval ever booked, kept sorted: the plain reference.
    fn first_fit(all: &mut Vec<(u64, u64)>, ready: u64, len: u64) -> u64 {
        let mut start = ready;
        let mut i = all.partition_point(|iv| iv.1 <= ready);
        while let Some(&(s, e)) = all.get(i) {
            if s >= start + len {
                break;
            }
            start = start.max(e);
            i += 1;
        }
        all.insert(i, (start, start + len));
        start
    }

    /// A device far behind its host, as in the backlog benchmark: programs book at their issue
    /// time, reads at their plane's free time far ahead, a few anywhere between. The chunked
    /// representation (first, middle and last chunks) books exactly as a plain list would.
    #[test]
    fn backlogged_bookings_match_a_list_of_every_interval() {
        let mut c = Channel::default();
        let mut all: Vec<(u64, u64)> = Vec::new();
        let len = 10;
        let mut x = 987654321u64;
        let mut now = 0;
        let mut plane_free = [0u64; 4];
        // Each plane's reads pass the hint of where its last one went, as `Timeline::read` does.
        let mut hints = [u32::MAX; 4];
        let (mut mid, mut shrunk) = (0u32, 0u32);
        for n in 0..40_000u32 {
            x = lcg(x);
            now += (x >> 61) % 3;
            // The host pauses twice: the device catches up and the booked set shrinks.
            if n == 15_000 || n == 30_000 {
                now = all.last().map_or(now, |iv| iv.1) - 30;
            }
            let mut none = u32::MAX;
            let (ready, hint) = match (x >> 20) % 16 {
                0..=7 => (now, &mut none),
                8..=14 => {
                    let plane = ((x >> 30) % 4) as usize;
                    let p = &mut plane_free[plane];
                    *p = (*p).max(now) + 150 + (x >> 40) % 60;
                    (*p, &mut hints[plane])
                }
                _ => (now + (x >> 35) % (plane_free[0].saturating_sub(now) + 1), &mut none),
            };
            let want = first_fit(&mut all, ready, len);
            assert_eq!(c.book_near(now, ready, len, hint), want, "booking {n} at ready {ready}, now {now}");
            if let Intervals::Big(b) = &c.busy {
                b.check();
            }
            match &c.busy {
                Intervals::Big(b) if !b.mid.is_empty() => mid += 1,
                Intervals::Small(_) if n > 15_000 => shrunk += 1,
                _ => {}
            }
        }
        assert!(mid > 20_000, "the middle chunks were used: {mid} bookings");
        assert!(REKEYS.get() > 100, "middle chunks that lost their first interval were keyed again");
        assert!(shrunk > 0, "the chunks went back to a list when the device caught up");
    }

    /// Every interval of `all` with the gaps shorter than `len` closed: what a channel keeps.
    fn merged(all: &[(u64, u64)], len: u64) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &(s, e) in all {
            match out.last_mut() {
                Some(last) if s - last.1 < len => last.1 = e,
                _ => out.push((s, e)),
            }
        }
        out
    }

    /// One booking around each place where a chunk ends and the next begins (before, in and
    /// after the gap, merging with either side or both): the start and every interval kept
    /// match the plain list.
    #[test]
    fn bookings_across_chunk_boundaries_match_a_list() {
        let len = 10;
        let mut c = Channel::default();
        let mut all = Vec::new();
        let mut hint = u32::MAX;
        // Reads far ahead of the clock, with gaps of 2 to 4 transfers: first, middle and last
        // chunks.
        for k in 0..3000u64 {
            let ready = 1_000 + 35 * k - (k % 4) * 5;
            assert_eq!(c.book_near(0, ready, len, &mut hint), first_fit(&mut all, ready, len));
        }
        let Intervals::Big(b) = &mut c.busy else { panic!("a big set") };
        assert!(b.mid.len() > 2, "middle chunks: {}", b.mid.len());
        // In every other middle chunk, the interval before it (the last of the chunk before)
        // swallows its first one, as the programs of a backlogged device make the first grow, but
        // here without keying the chunk again: its key stays below its first start, and the
        // interval before ends after the key. The bookings no longer leave such a chunk
        // (`Big::rekey`), and the fallback through the queries still books it right.
        let keys: Vec<u64> = b.mid.keys().copied().collect();
        for (j, k) in keys.iter().enumerate().step_by(2) {
            let gone = b.mid.get_mut(k).expect("a chunk").remove(0);
            let before = match j {
                0 => b.first.last_mut(),
                _ => b.mid.get_mut(&keys[j - 1]).expect("a chunk").last_mut(),
            }
            .expect("no empty chunk");
            // The list books the gap between them.
            all.push((before.1, gone.0));
            before.1 = gone.1;
            b.len -= 1;
        }
        all.sort_unstable();
        let mut fronts: Vec<u64> = b.mid.values().map(|m| m[0].0).collect();
        fronts.push(b.last[0].0);
        let mut cases = 0;
        for front in fronts {
            for ready in front - 4 * len..front + 2 * len {
                for now in [0, ready.min(front - 2 * len)] {
                    let (mut c, mut all) = (c.clone(), all.clone());
                    let want = first_fit(&mut all, ready, len);
                    assert_eq!(c.book_near(now, ready, len, &mut u32::MAX.clone()), want, "ready {ready}, now {now}");
                    // What lies before `now` no longer matters (an interval ended before it is
                    // dropped, and the list may have merged it with a later one).
                    let from_now = |v: Vec<(u64, u64)>| -> Vec<(u64, u64)> {
                        v.into_iter().filter(|iv| iv.1 >= now).map(|(s, e)| (s.max(now), e)).collect()
                    };
                    let kept = from_now(merged(&all, len));
                    let got = from_now(intervals(&c));
                    let first_diff = got.iter().zip(&kept).position(|(g, k)| g != k);
                    assert!(
                        got.len() == kept.len() && first_diff.is_none(),
                        "after booking at ready {ready}, now {now}: {} intervals kept, {} wanted; first difference {:?}",
                        got.len(),
                        kept.len(),
                        first_diff.map(|i| (&got[i.saturating_sub(1)..=i], &kept[i.saturating_sub(1)..=i]))
                    );
                    cases += 1;
                }
            }
        }
        assert!(cases > 100);
    }

    /// A booking that goes past a one-interval middle chunk and merges with the next chunk's
    /// first interval (the slow path): that chunk is keyed again by its new first start.
    #[test]
    fn a_middle_chunk_losing_its_first_interval_is_keyed_again() {
        let len = 10;
        let chunks = [vec![(0, 10), (20, 30)], vec![(45, 55)], vec![(70, 80), (100, 110)], vec![(130, 140)]];
        let mut all: Vec<(u64, u64)> = chunks.concat();
        let mid: BTreeMap<u64, Chunk> = chunks[1..3].iter().map(|c| (c[0].0, c.clone())).collect();
        let big = Big { first: chunks[0].clone(), mid, last: chunks[3].clone(), len: all.len() };
        big.check();
        let mut c = Channel { busy: Intervals::Big(big) };
        // [36, 46) overlaps [45, 55): after it, [55, 65) closes both gaps around it.
        assert_eq!(c.book(0, 36, len), first_fit(&mut all, 36, len));
        assert_eq!(intervals(&c), merged(&all, len));
        let Intervals::Big(b) = &c.busy else { panic!("a big set") };
        b.check();
        assert_eq!(b.mid.keys().copied().collect::<Vec<_>>(), [45, 100]);
    }
}
