//! The simulated SSD seen from the host: write buffer over FTL over NAND, page addressed.
//!
//! Owns the verify oracle (the last version written to each logical page, when `verify` is on:
//! every read is checked against it) and check mode (the FTL's invariants validated after every
//! page operation). A mismatch in either is a simulator bug and panics with the page and
//! versions involved.
//!
//! Its operations take the host's page numbers as [`Lpn`]s and times as [`Nanos`]; the oracle
//! and the remap are indexed by the raw device page inside.

use crate::buffer::WriteBuffer;
use crate::error::Error;
use crate::ftl::zns::ZoneCommand;
use crate::ftl::Ftl;
use crate::units::{Lpn, Nanos};

/// What a power failure cost (see [`Device::crash`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CrashReport {
    /// Logical pages whose last acknowledged write was lost (dirty in DRAM only), ascending.
    pub lost: Vec<u64>,
    /// Pages NVRAM held at the crash (they survive).
    pub nvram_pages: u64,
    /// Written pages whose last acknowledged version survived in NVRAM or flash (all checked).
    pub survived_pages: u64,
}

/// The simulated SSD: a write buffer over an FTL, addressed by host page, with the verify oracle
/// and check mode.
pub struct Device {
    /// The write buffer: every host operation goes through it to `ftl`.
    pub buffer: Box<dyn WriteBuffer>,
    /// The FTL below the buffer (it owns the NAND).
    pub ftl: Box<dyn Ftl>,
    page_size: u64,
    /// log2(page_size): page sizes are powers of two (validated with the geometry).
    page_shift: u32,
    logical_pages: u64,
    oracle: Option<Vec<u32>>,
    next_tag: u32,
    check: bool,
    /// Page writes accepted so far (the device's write clock).
    writes: u64,
    /// Per logical page: value of `writes` at its last write, 0 if never written.
    last_write: Option<Vec<u64>>,
    /// `host.out_of_range = "compact"`: host page numbers remapped block by block.
    remap: Option<BlockRemap>,
    /// The FTL places writes by their placement identifier ([`Ftl::has_placement`]).
    placed: bool,
    /// Pages per zone of a zoned device ([`Ftl::zone_pages`]).
    zone_pages: Option<u64>,
}

/// Host blocks (of `ppb` pages) to device blocks, assigned in first-touch order.
struct BlockRemap {
    ppb: u64,
    map: crate::fastmap::FastMap<u64, u64>,
    blocks: u64,
}

impl BlockRemap {
    #[inline]
    fn map(&mut self, lpn: u64) -> Result<u64, Error> {
        let next = self.map.len() as u64;
        let b = *self.map.entry(lpn / self.ppb).or_insert(next);
        if b >= self.blocks {
            return Err(Error::config(
                "host.out_of_range",
                format!("\"compact\": the workload touches more than the device's {} blocks of {} pages; use a larger device", self.blocks, self.ppb),
            ));
        }
        Ok(b * self.ppb + lpn % self.ppb)
    }
}

/// The device below its buffer, as preconditioning leaves it: FTL and NAND, version tags and
/// the write clock (see `sim::Preconditioned`).
#[derive(Clone)]
pub struct FlashState {
    ftl: Box<dyn Ftl>,
    oracle: Option<Vec<u32>>,
    next_tag: u32,
    writes: u64,
}

impl FlashState {
    /// The FTL and its NAND as they were when the state was taken.
    pub fn ftl(&self) -> &dyn Ftl {
        self.ftl.as_ref()
    }
    /// Version tags per logical page (verify mode), the next tag and the write clock.
    pub fn versions(&self) -> (Option<&[u32]>, u32, u64) {
        (self.oracle.as_deref(), self.next_tag, self.writes)
    }
}

/// The error for a zone command given to a conventional device.
pub fn refuse_zone_command(cmd: ZoneCommand) -> Error {
    Error::Zone(format!(
        "{} on a conventional device: zone commands need a zoned one (ftl.mapping = \"zns\")",
        cmd.name()
    ))
}

impl Device {
    /// A copy of everything below the buffer. The buffer must be empty and no page's last
    /// write tracked (both are true between preconditioning and the measured phase).
    pub fn flash_state(&self) -> FlashState {
        assert!(self.last_write.is_none(), "flash state taken while last writes are tracked");
        FlashState { ftl: self.ftl.clone(), oracle: self.oracle.clone(), next_tag: self.next_tag, writes: self.writes }
    }

    /// A device over a copy of a [`FlashState`] (taken from a device of the same FTL config)
    /// instead of a freshly built FTL.
    pub fn from_flash(buffer: Box<dyn WriteBuffer>, s: FlashState, page_size: u64, check: bool) -> Self {
        let mut d = Device::new(buffer, s.ftl, page_size, false, check);
        d.oracle = s.oracle;
        d.next_tag = s.next_tag;
        d.writes = s.writes;
        d
    }

    /// What the device layer allocates: the verify oracle (a version per logical page, when
    /// reads are verified), frozen tracking (when tracked: a last write per logical page, and a
    /// sorted copy of those the measured phase wrote, at most `frozen` pages) and the block
    /// remap of compacted addresses (a map grown by inserts, at most one entry per device
    /// block).
    pub fn memory(
        logical_pages: u64,
        ppb: u64,
        verify: bool,
        frozen: Option<u64>,
        compact: bool,
        est: &mut crate::memory::Estimate,
    ) {
        use crate::memory::{map_bytes, vec_bytes};
        if verify {
            est.add("verify oracle", vec_bytes::<u32>(logical_pages));
        }
        if let Some(run_pages) = frozen {
            est.add(
                "frozen tracking",
                vec_bytes::<u64>(logical_pages) + vec_bytes::<u64>(logical_pages.min(run_pages)),
            );
        }
        if compact {
            est.add("address remap", map_bytes::<u64, u64>((logical_pages / ppb.max(1)).max(1024), true));
        }
    }

    /// `buffer` over `ftl`, with pages of `page_size` bytes (a power of two; panics otherwise).
    /// `verify`: check every read against the last version written; `check`: validate the FTL's
    /// and the buffer's invariants after every page operation.
    pub fn new(buffer: Box<dyn WriteBuffer>, ftl: Box<dyn Ftl>, page_size: u64, verify: bool, check: bool) -> Self {
        let logical_pages = ftl.logical_pages();
        let placed = ftl.has_placement();
        let zone_pages = ftl.zone_pages().map(u64::from);
        assert!(page_size.is_power_of_two(), "page size {page_size} is not a power of two");
        Device {
            buffer,
            ftl,
            page_size,
            page_shift: page_size.trailing_zeros(),
            logical_pages,
            oracle: verify.then(|| vec![0; logical_pages as usize]),
            next_tag: 1,
            check,
            writes: 0,
            last_write: None,
            remap: None,
            placed,
            zone_pages,
        }
    }

    /// Does the FTL place writes by their placement identifiers (`ftl.placement`)?
    #[inline]
    pub fn places_writes(&self) -> bool {
        self.placed
    }

    /// Pages per zone, on a zoned device (`ftl.mapping = "zns"`).
    #[inline]
    pub fn zone_pages(&self) -> Option<u64> {
        self.zone_pages
    }

    /// Reset zone `zone` of a zoned device at `t` (its pages read as never written after);
    /// returns when the erase completes.
    pub fn zone_reset(&mut self, zone: u32, t: Nanos) -> Result<Nanos, Error> {
        let zone_pages = self.zone_pages.ok_or_else(|| Error::Zone("zone reset on a conventional device".into()))?;
        let zones = self.ftl.zones().expect("a device with zone pages has zone commands");
        let done = zones.reset(zone, t)?;
        if let Some(o) = &mut self.oracle {
            let first = zone as usize * zone_pages as usize;
            o[first..first + zone_pages as usize].fill(0);
        }
        self.after_op("zone reset", zone as u64 * zone_pages);
        Ok(done)
    }

    /// Zone command `cmd` (append, finish, reset) on logical pages `first..=last` issued at
    /// `t`, refused as [`crate::ftl::zns::command_zones`] says and on a conventional device;
    /// returns when it completes. A trim goes through [`Device::trim`].
    pub fn zone_command(&mut self, cmd: ZoneCommand, first: u64, last: u64, t: Nanos) -> Result<Nanos, Error> {
        let Some(zone_pages) = self.zone_pages else {
            return Err(refuse_zone_command(cmd));
        };
        let zones = crate::ftl::zns::command_zones(cmd, first, last, zone_pages)?;
        let mut done = t;
        match cmd {
            ZoneCommand::Append => {
                let mut next_tag = self.next_tag;
                let mut acked = Vec::new();
                let z = self.ftl.zones().expect("a device with zone pages has zone commands");
                let take = || {
                    let tag = next_tag;
                    next_tag = next_tag.wrapping_add(1).max(1);
                    tag
                };
                let r = crate::ftl::zns::append_pages(z, zones.start, last - first + 1, t, take, |lpn, tag| {
                    acked.push((lpn.0, tag))
                });
                for (lpn, tag) in acked {
                    self.next_tag = tag.wrapping_add(1).max(1);
                    self.acknowledged(lpn, tag);
                }
                done = r?;
            }
            ZoneCommand::Finish => {
                for zone in zones {
                    let z = self.ftl.zones().expect("a device with zone pages has zone commands");
                    done = done.max(z.finish(zone, t)?);
                    self.after_op("zone finish", zone as u64 * zone_pages);
                }
            }
            ZoneCommand::Reset => {
                for zone in zones {
                    done = done.max(self.zone_reset(zone, t)?);
                }
            }
            ZoneCommand::Trim => {
                for lpn in first..=last {
                    done = done.max(self.trim(Lpn(lpn), t)?);
                }
            }
        }
        Ok(done)
    }

    /// Page size in bytes.
    #[inline]
    pub fn page_size(&self) -> u64 {
        self.page_size
    }
    /// First and last logical page touched by the byte range [offset, offset + len), len > 0.
    #[inline]
    pub fn page_span(&self, offset: u64, len: u64) -> (u64, u64) {
        debug_assert!(len > 0);
        (offset >> self.page_shift, (offset + len - 1) >> self.page_shift)
    }

    /// A hint that a request covering `[offset, offset + len)` comes soon: the FTL may start
    /// fetching its first page's mapping ([`crate::ftl::FtlFastPath::prefetch`]). Changes nothing.
    #[inline]
    pub fn prefetch(&self, offset: u64, len: u64) {
        if let Some(lpn) = self.hinted_page(offset, len) {
            self.ftl.prefetch(lpn);
        }
    }

    /// The second stage of [`Device::prefetch`], a few requests before the request is served
    /// ([`crate::ftl::FtlFastPath::prefetch_update`]). Changes nothing.
    #[inline]
    pub fn prefetch_update(&self, offset: u64, len: u64) {
        if let Some(lpn) = self.hinted_page(offset, len) {
            self.ftl.prefetch_update(lpn);
        }
    }

    /// The device page a prefetch hint names: a request's first page, when it needs no remap.
    #[inline]
    fn hinted_page(&self, offset: u64, len: u64) -> Option<Lpn> {
        let (first, _) = self.page_span(offset, len);
        (self.remap.is_none() && first < self.logical_pages).then_some(Lpn(first))
    }

    /// Logical pages the device exports (the FTL's).
    #[inline]
    pub fn logical_pages(&self) -> u64 {
        self.logical_pages
    }

    /// Remap host pages block by block in first-touch order from now on (`pages_per_block`).
    pub fn compact_addresses(&mut self, pages_per_block: u64) {
        let blocks = self.logical_pages / pages_per_block;
        self.remap = Some(BlockRemap { ppb: pages_per_block, map: crate::fastmap::with_capacity(1024), blocks });
    }

    /// The device page a host page number names: remapped (`compact`), or wrapped modulo the
    /// capacity (the simulator has already refused out-of-range requests unless told to wrap).
    #[inline]
    fn device_page(&mut self, lpn: u64) -> Result<u64, Error> {
        match &mut self.remap {
            Some(r) => r.map(lpn),
            None if lpn >= self.logical_pages => Ok(lpn % self.logical_pages),
            None => Ok(lpn),
        }
    }

    /// Read host page `lpn` issued at `t`; returns completion.
    #[inline]
    pub fn read(&mut self, lpn: Lpn, t: Nanos) -> Result<Nanos, Error> {
        let lpn = self.device_page(lpn.0)?;
        self.read_page(lpn, t)
    }

    /// Read device page `lpn` (after any remap).
    #[inline]
    fn read_page(&mut self, lpn: u64, t: Nanos) -> Result<Nanos, Error> {
        let r = self.buffer.read(Lpn(lpn), t, self.ftl.as_mut())?;
        if let Some(o) = &self.oracle {
            let want = o[lpn as usize];
            let got = r.tag.unwrap_or(0);
            assert_eq!(
                got, want,
                "verify: read of lpn {lpn} returned version {got}, last acknowledged write was {want}"
            );
        }
        self.after_op("read", lpn);
        Ok(r.done)
    }

    /// Write host page `lpn` (a new version) issued at `t`; returns when it is acknowledged.
    #[inline]
    pub fn write(&mut self, lpn: Lpn, t: Nanos) -> Result<Nanos, Error> {
        self.write_placed(lpn, None, t)
    }

    /// [`Device::write`] of a write that carries placement identifier `id` (`None`: none),
    /// which the FTL's placement (`ftl.placement`) uses; an FTL without placement ignores it.
    #[inline]
    pub fn write_placed(&mut self, lpn: Lpn, id: Option<u16>, t: Nanos) -> Result<Nanos, Error> {
        let lpn = self.device_page(lpn.0)?;
        if self.placed {
            self.ftl.set_placement(Lpn(lpn), id);
        }
        let tag = self.take_tag();
        let done = self.buffer.write(Lpn(lpn), tag, t, self.ftl.as_mut())?;
        self.acknowledged(lpn, tag);
        Ok(done)
    }

    #[inline]
    fn take_tag(&mut self) -> u32 {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1).max(1);
        tag
    }

    /// Accounting's fast path: host write requests of one page each, the first `n` of `pages`
    /// (device pages below the logical capacity; the rest are the pages of the requests that
    /// follow, hints for prefetching), each issued at `t` and completing then — the state and
    /// counters [`Device::write`] plus [`Device::end_request`] per page leave, without the
    /// calls through the buffer layer ([`crate::ftl::FtlFastPath::write_untimed`]). `Ok(false)`, changing nothing,
    /// when the device cannot: a buffer that holds pages, a remap, the verify oracle, check
    /// mode, tracked last writes, version tags that would wrap, a page beyond the capacity,
    /// or an FTL with a timeline or costly lookups. After an error the device is not used
    /// again (its version tags and write clock are not advanced).
    pub fn write_untimed(&mut self, pages: &[u64], n: usize, t: Nanos) -> Result<bool, Error> {
        self.write_untimed_placed(pages, &[], n, t)
    }

    /// [`Device::write_untimed`] of writes that carry placement identifiers: `ids[i]` is the
    /// `i`-th page's (the FTL's placement uses them; it declines, `Ok(false)`, with fewer than
    /// `n` when the FTL places writes).
    pub fn write_untimed_placed(
        &mut self,
        pages: &[u64],
        ids: &[Option<u16>],
        n: usize,
        t: Nanos,
    ) -> Result<bool, Error> {
        if !self.buffer.passes_through() {
            return Ok(false);
        }
        self.write_through_placed(pages, ids, n, t)
    }

    /// [`Device::write_untimed`] past the buffer, whatever it is: what
    /// [`Device::write_through`] plus [`Device::end_request`] per page leave (preconditioning,
    /// before the buffer holds any page).
    pub fn write_through_untimed(&mut self, pages: &[u64], n: usize, t: Nanos) -> Result<bool, Error> {
        self.write_through_placed(pages, &[], n, t)
    }

    fn write_through_placed(&mut self, pages: &[u64], ids: &[Option<u16>], n: usize, t: Nanos) -> Result<bool, Error> {
        let written = &pages[..n];
        let tags_fit = self.next_tag as u64 + n as u64 <= u32::MAX as u64;
        let plain = self.remap.is_none()
            && self.oracle.is_none()
            && !self.check
            && self.last_write.is_none()
            && (!self.placed || ids.len() >= n);
        if !plain || !tags_fit || written.iter().any(|&l| l >= self.logical_pages) {
            return Ok(false);
        }
        let ids = if self.placed { &ids[..n] } else { &[] };
        if !self.ftl.write_untimed(pages, ids, n, self.next_tag, t)? {
            return Ok(false);
        }
        self.next_tag += n as u32;
        self.writes += n as u64;
        Ok(true)
    }

    /// The write of version `tag` to `lpn` is acknowledged to the host.
    #[inline]
    fn acknowledged(&mut self, lpn: u64, tag: u32) {
        if let Some(o) = &mut self.oracle {
            o[lpn as usize] = tag;
        }
        self.writes += 1;
        if let Some(l) = &mut self.last_write {
            l[lpn as usize] = self.writes;
        }
        self.after_op("write", lpn);
    }

    /// Write straight to the FTL, past the buffer (preconditioning, before the buffer holds
    /// any page: a buffered copy of `lpn` would go stale).
    pub fn write_through(&mut self, lpn: Lpn, t: Nanos) -> Result<Nanos, Error> {
        let tag = self.take_tag();
        let done = self.ftl.write(lpn, tag, t)?;
        self.acknowledged(lpn.0, tag);
        Ok(done)
    }

    /// Preconditioning's sequential fill built directly ([`crate::ftl::FtlFastPath::fill_sequential`]): the state
    /// `write_through(lpn)` + `end_request` for every logical page in order leaves, version tags
    /// and write clock included. `Ok(false)`, changing nothing, when the device has been
    /// written, checks every operation (check mode validates after each page: it writes page
    /// by page), tracks last writes, has too few tags left, or its FTL cannot build the fill.
    pub fn fill_sequential(&mut self) -> Result<bool, Error> {
        let n = self.logical_pages;
        let tags_fit = self.next_tag as u64 + n <= u32::MAX as u64;
        if self.writes != 0 || self.check || self.last_write.is_some() || !tags_fit {
            return Ok(false);
        }
        let first = self.next_tag;
        if !self.ftl.fill_sequential(first)? {
            return Ok(false);
        }
        if let Some(o) = &mut self.oracle {
            o.iter_mut().enumerate().for_each(|(lpn, t)| *t = first + lpn as u32);
        }
        self.next_tag = first + n as u32;
        self.writes = n;
        Ok(true)
    }

    /// Power fails now. DRAM's dirty pages are lost; what restarts is NVRAM's pages over flash.
    /// Checks (verify mode) that every acknowledged write survives except exactly the lost
    /// ones, whose surviving version must be older; a violation is a simulator bug and panics.
    pub fn crash(&mut self, t: Nanos) -> Result<CrashReport, Error> {
        let image = self.buffer.crash();
        let oracle = self.oracle.as_ref().expect("crash checks need verify mode (sim.verify)");
        let kept: std::collections::HashMap<u64, u32> = image.kept.iter().map(|&(lpn, tag)| (lpn.0, tag)).collect();
        let lost: std::collections::HashSet<u64> = image.lost.iter().map(|&(lpn, _)| lpn.0).collect();
        let mut report = CrashReport {
            lost: image.lost.iter().map(|&(lpn, _)| lpn.0).collect(),
            nvram_pages: image.kept.len() as u64,
            ..Default::default()
        };
        for lpn in 0..self.logical_pages {
            let want = oracle[lpn as usize];
            let got = match kept.get(&lpn) {
                Some(&tag) => tag,
                None => self.ftl.read(Lpn(lpn), t)?.tag.unwrap_or(0),
            };
            if lost.contains(&lpn) {
                assert_ne!(got, want, "crash: lpn {lpn} was reported lost but version {want} survived");
            } else {
                assert_eq!(got, want, "crash: lpn {lpn} should survive with version {want}, restart finds {got}");
                report.survived_pages += (want != 0) as u64;
            }
        }
        Ok(report)
    }

    /// Discard host page `lpn` issued at `t`; returns completion.
    pub fn trim(&mut self, lpn: Lpn, t: Nanos) -> Result<Nanos, Error> {
        let lpn = self.device_page(lpn.0)?;
        let done = self.buffer.trim(Lpn(lpn), t, self.ftl.as_mut())?;
        if let Some(o) = &mut self.oracle {
            o[lpn as usize] = 0;
        }
        self.after_op("trim", lpn);
        Ok(done)
    }

    /// Copy host pages `src..src+pages` to `tgt..` inside the device (`Ftl::defrag_copy`): the
    /// target pages then hold the source's versions. Needs no write buffer (a buffered copy
    /// of either range would go stale).
    pub fn defrag_copy(&mut self, src: Lpn, tgt: Lpn, pages: u64, t: Nanos) -> Result<Nanos, Error> {
        if self.buffer.counters().is_some() {
            return Err(Error::config(
                "buffer.policy",
                "defragmentation copies inside the FTL: run it with buffer.policy = \"none\"",
            ));
        }
        let mut done = t;
        for i in 0..pages {
            let (s, d) = (self.device_page(src.0 + i)?, self.device_page(tgt.0 + i)?);
            done = done.max(self.ftl.defrag_copy(Lpn(s), Lpn(d), 1, t)?);
            if let Some(o) = &mut self.oracle {
                o[d as usize] = o[s as usize];
            }
            self.after_op("defrag_copy", d);
        }
        Ok(done)
    }

    /// A host request issued at `t` has been served: the FTL's background work (e.g. the
    /// `femu` GC schedule's background GC) runs now; check mode validates after any.
    pub fn end_request(&mut self, t: Nanos) -> Result<(), Error> {
        if self.ftl.after_request(t)? {
            self.after_op("background work", 0);
        }
        Ok(())
    }

    /// A host request arrives at `t` (timing mode): the buffer first destages in the background
    /// what it may while the flash is idle before `t` ([`WriteBuffer::destage`]).
    pub fn before_request(&mut self, t: Nanos) -> Result<(), Error> {
        self.buffer.destage(t, self.ftl.as_mut())?;
        self.after_op("background destage", 0);
        Ok(())
    }

    /// Write every dirty buffered page down (a flush command) issued at `t`; returns completion.
    pub fn flush(&mut self, t: Nanos) -> Result<Nanos, Error> {
        let done = self.buffer.flush(t, self.ftl.as_mut())?;
        self.after_op("flush", 0);
        Ok(done)
    }

    #[inline]
    fn after_op(&self, op: &str, lpn: u64) {
        if self.check {
            if let Err(e) = self.ftl.validate().and_then(|_| self.buffer.validate()) {
                panic!("check mode: invariant broken after {op} of lpn {lpn}: {e}");
            }
        }
    }

    /// Start recording each page's last write (for the frozen-page share).
    pub fn track_last_writes(&mut self) {
        self.last_write.get_or_insert_with(|| vec![0; self.logical_pages as usize]);
    }

    /// Page writes accepted so far.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// For each write-clock value in `at` (ascending), the share of logical pages written at or
    /// before it and never after. `None` unless tracking was on.
    pub fn frozen_shares(&self, at: &[u64]) -> Option<Vec<f64>> {
        let last = self.last_write.as_ref()?;
        // Room for every page at once: a collect would grow by doubling, up to twice the table.
        let mut written: Vec<u64> = Vec::with_capacity(last.len());
        written.extend(last.iter().copied().filter(|&w| w > 0));
        written.sort_unstable();
        let n = self.logical_pages as f64;
        Some(at.iter().map(|&t| written.partition_point(|&w| w <= t) as f64 / n).collect())
    }

    /// Read back every logical page and compare with the oracle (verify mode); returns pages checked.
    pub fn verify_all(&mut self) -> Result<u64, Error> {
        if self.oracle.is_none() {
            return Ok(0);
        }
        for lpn in 0..self.logical_pages {
            self.read_page(lpn, Nanos::ZERO)?;
        }
        Ok(self.logical_pages)
    }
}
