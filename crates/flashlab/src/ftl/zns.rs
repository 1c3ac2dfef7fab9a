//! `zns`: a Zoned Namespace device (NVMe ZNS, TP4053). Zone `z` is GC segment `z` (a block, or
//! a line under `ftl.gc_unit = "line"`): its logical pages are the segment's physical pages in
//! order, so the zoned address space is every physical page, the mapping is the identity and
//! the device never moves data (device WAF 1 by construction). The host owns the log: it
//! writes each zone at its write pointer and resets zones it has emptied — a host layer of its
//! own (`host.layer = "log"`, `host/log.rs`) or a trace replayed through `passthrough`.
//!
//! What a real ZNS drive refuses is refused, as a zone error the simulator reports with the
//! trace line ([`Error::Zone`]), never a panic:
//! - a write not at the zone's write pointer ("Zone Invalid Write"), to a full zone ("Zone Is
//!   Full");
//! - opening a zone when `max_active_zones` zones are already open or closed ("Too Many Active
//!   Zones"); at `max_open_zones` open zones, writing to another zone first closes the zone
//!   opened longest ago implicitly (as QEMU's emulation does), and only when none can be
//!   closed is it "Too Many Open Zones";
//! - a trim that is not whole zones (on a zoned device a trim of whole zones is their reset).
//!
//! Zone states: empty, implicitly opened, closed, full (explicit open and the read-only and
//! offline states are not modelled). A zone becomes full when its write pointer reaches its
//! capacity (the segment's pages; zone size = capacity) or when finished. Zone append
//! ([`ZoneOps::append`]) writes at the write pointer and returns the page it wrote. Reset erases
//! the zone's blocks; finish moves the write pointer to the end without programming (the pages
//! left stay erased until the reset).
//!
//! Memory: the NAND and 5 B per zone.

use serde::Deserialize;

use super::{Ftl, FtlCounters, FtlFastPath, FtlReports, FtlSpec, ReadOutcome};
use crate::error::Error;
use crate::nand::{Layout, Nand};
use crate::units::{Lpn, Nanos, Ppn};

/// `[ftl.mapping_params]` of `zns`.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ZnsParams {
    /// Most zones open (being written) at once; opening one more closes the oldest implicitly.
    pub max_open_zones: u32,
    /// Most zones open or closed (written, not full) at once.
    pub max_active_zones: u32,
}

impl Default for ZnsParams {
    fn default() -> Self {
        // Western Digital's Ultrastar DC ZN540 reports 14 open and 14 active zones.
        ZnsParams { max_open_zones: 14, max_active_zones: 14 }
    }
}

/// State of a zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneState {
    /// Write pointer at the start; nothing written since the last reset.
    Empty,
    /// Being written (implicitly opened by a write).
    Open,
    /// Written in part and closed (an open zone closed to open another).
    Closed,
    /// Written to capacity, or finished.
    Full,
}

/// Zone management commands, for a host layer that runs its own log.
pub trait ZoneOps {
    /// Pages per zone.
    fn zone_pages(&self) -> u32;
    /// Zones on the device.
    fn zone_count(&self) -> u32;
    /// A zone's state and write pointer (pages written).
    fn zone(&self, zone: u32) -> (ZoneState, u32);
    /// Reset: erase the zone, write pointer back to its start.
    fn reset(&mut self, zone: u32, t: Nanos) -> Result<Nanos, Error>;
    /// Finish: the zone becomes full where its write pointer stands.
    fn finish(&mut self, zone: u32, t: Nanos) -> Result<Nanos, Error>;
    /// Zone append: write one page at the zone's write pointer; returns the page written and
    /// when.
    fn append(&mut self, zone: u32, tag: u32, t: Nanos) -> Result<(Lpn, Nanos), Error>;
}

/// `results.json` `zones`: what the host did with the zones.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ZoneReport {
    /// Zones on the device.
    pub zones: u32,
    /// Pages per zone.
    pub zone_pages: u32,
    /// Zone resets (each erases the zone's blocks).
    pub resets: u64,
    /// Zones finished by the host.
    pub finishes: u64,
    /// Pages written by zone append.
    pub appends: u64,
    /// Open zones closed to open another (the open limit reached).
    pub implicit_closes: u64,
    /// Most zones open at once.
    pub peak_open: u32,
    /// Most zones active (open or closed) at once.
    pub peak_active: u32,
}

impl ZoneReport {
    /// The counts since `base` (the sizes and peaks are this report's).
    pub fn minus(&self, base: &ZoneReport) -> ZoneReport {
        ZoneReport {
            resets: self.resets - base.resets,
            finishes: self.finishes - base.finishes,
            appends: self.appends - base.appends,
            implicit_closes: self.implicit_closes - base.implicit_closes,
            ..self.clone()
        }
    }
}

/// The zoned device.
#[derive(Clone)]
pub struct Zns {
    nand: Nand,
    zone_pages: u32,
    wp: Vec<u32>,
    state: Vec<ZoneState>,
    /// Open zones, oldest first (at most `max_open`, a short list).
    open: Vec<u32>,
    active: u32,
    max_open: u32,
    max_active: u32,
    counters: FtlCounters,
    report: ZoneReport,
}

fn zone_error(msg: String) -> Error {
    Error::Zone(msg)
}

/// A host command on zones: a trace's zone append, finish or reset, or a trim (which a zoned
/// device takes as a reset of whole zones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneCommand {
    /// Zone append: pages at the write pointer of the zone whose first page is named.
    Append,
    /// Zone finish: the zone becomes full.
    Finish,
    /// Zone reset: the zone is erased, its write pointer back at its start.
    Reset,
    /// A trim, on a zoned device a reset.
    Trim,
}

impl ZoneCommand {
    /// The command's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            ZoneCommand::Append => "zone append",
            ZoneCommand::Finish => "zone finish",
            ZoneCommand::Reset => "zone reset",
            ZoneCommand::Trim => "trim",
        }
    }
}

/// The zones a host command on logical pages `first..=last` of a zoned device with
/// `zone_pages` pages per zone names, refused as a zoned drive refuses it: a zone append names
/// one zone by its first page (NVMe's ZSLBA) and its pages must fit in a zone; a finish, a reset
/// and a trim cover whole zones.
pub fn command_zones(cmd: ZoneCommand, first: u64, last: u64, zone_pages: u64) -> Result<std::ops::Range<u32>, Error> {
    let zone = |p: u64| u32::try_from(p / zone_pages).unwrap_or(u32::MAX);
    match cmd {
        ZoneCommand::Append => {
            if !first.is_multiple_of(zone_pages) {
                return Err(zone_error(format!(
                    "zone append at page {first}: an append names the first page of its zone (zones of {zone_pages} pages)"
                )));
            }
            if last - first >= zone_pages {
                return Err(zone_error(format!(
                    "zone append of {} pages: more than a zone of {zone_pages} pages (Zone Boundary Error)",
                    last - first + 1
                )));
            }
            Ok(zone(first)..zone(first) + 1)
        }
        ZoneCommand::Trim | ZoneCommand::Finish | ZoneCommand::Reset => {
            if !first.is_multiple_of(zone_pages) || !(last + 1).is_multiple_of(zone_pages) {
                return Err(zone_error(format!(
                    "{} of pages {first}..={last}: a zoned device {} whole zones of {zone_pages} pages",
                    cmd.name(),
                    if cmd == ZoneCommand::Finish { "finishes" } else { "resets" }
                )));
            }
            Ok(zone(first)..zone(last) + 1)
        }
    }
}

/// Zone append of `pages` pages to `zone`, refused whole when they do not fit between the
/// write pointer and the zone's end (NVMe's Zone Boundary Error). `tag()` gives each page's
/// version tag and `wrote(lpn, tag)` sees each page written; returns when the last completes.
pub fn append_pages(
    z: &mut dyn ZoneOps,
    zone: u32,
    pages: u64,
    t: Nanos,
    mut tag: impl FnMut() -> u32,
    mut wrote: impl FnMut(Lpn, u32),
) -> Result<Nanos, Error> {
    let (_, wp) = z.zone(zone);
    if u64::from(wp) + pages > u64::from(z.zone_pages()) {
        return Err(zone_error(format!(
            "zone append of {pages} pages to zone {zone} at write pointer {wp}: past the zone's end at {} (Zone Boundary Error)",
            z.zone_pages()
        )));
    }
    let mut done = t;
    for _ in 0..pages {
        let tag = tag();
        let (lpn, d) = z.append(zone, tag, t)?;
        wrote(lpn, tag);
        done = done.max(d);
    }
    Ok(done)
}

fn params(spec: &FtlSpec) -> Result<ZnsParams, Error> {
    let p: ZnsParams = crate::registry::parse_params("ftl.mapping_params", &spec.config.mapping_params)?;
    let zones = spec.layout.segments;
    for (key, value) in [("max_open_zones", p.max_open_zones), ("max_active_zones", p.max_active_zones)] {
        if value == 0 {
            return Err(Error::config(format!("ftl.mapping_params.{key}"), "zone limits are at least 1"));
        }
    }
    if p.max_open_zones > p.max_active_zones {
        return Err(Error::config(
            "ftl.mapping_params.max_open_zones",
            format!(
                "{} open zones exceed the {} active zones (open zones are active)",
                p.max_open_zones, p.max_active_zones
            ),
        ));
    }
    if p.max_active_zones > zones {
        return Err(Error::config(
            "ftl.mapping_params.max_active_zones",
            format!("{} active zones on a device of {zones} zones", p.max_active_zones),
        ));
    }
    Ok(p)
}

/// Build `zns` for `spec`: zones over every segment of the layout.
pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    Ok(Box::new(Zns::new(spec)?))
}

impl Zns {
    /// The zoned device for `spec`.
    pub fn new(spec: &FtlSpec) -> Result<Zns, Error> {
        let p = params(spec)?;
        let zones = spec.layout.segments as usize;
        Ok(Zns {
            nand: Nand::new(spec.layout, spec.verify, spec.timing),
            zone_pages: spec.layout.pages_per_segment,
            wp: vec![0; zones],
            state: vec![ZoneState::Empty; zones],
            open: Vec::with_capacity(p.max_open_zones as usize + 1),
            active: 0,
            max_open: p.max_open_zones,
            max_active: p.max_active_zones,
            counters: FtlCounters::default(),
            report: ZoneReport {
                zones: zones as u32,
                zone_pages: spec.layout.pages_per_segment,
                ..ZoneReport::default()
            },
        })
    }
}

/// The registry's `memory`: the NAND and the zone table.
pub fn memory(spec: &FtlSpec, est: &mut crate::memory::Estimate) -> Result<(), Error> {
    params(spec)?;
    est.add("per-block state", spec.layout.segments as u64 * 5);
    Nand::memory(&spec.layout, spec.verify, spec.timing.is_some(), est);
    Ok(())
}

impl Zns {
    fn layout(&self) -> &Layout {
        self.nand.layout()
    }

    fn split(&self, lpn: u64) -> (u32, u32) {
        ((lpn / self.zone_pages as u64) as u32, (lpn % self.zone_pages as u64) as u32)
    }

    /// Make `zone` open for a write: from empty (a new active zone) or closed, closing the
    /// oldest open zone first at the open limit.
    fn open_for_write(&mut self, zone: u32) -> Result<(), Error> {
        match self.state[zone as usize] {
            ZoneState::Open => return Ok(()),
            ZoneState::Full => return Err(zone_error(format!("zone {zone} is full (Zone Is Full)"))),
            ZoneState::Empty if self.active >= self.max_active => {
                return Err(zone_error(format!(
                    "opening zone {zone} would make {} active zones, the device allows {} (Too Many Active Zones)",
                    self.active + 1,
                    self.max_active
                )))
            }
            ZoneState::Empty => self.active += 1,
            ZoneState::Closed => {}
        }
        if self.open.len() as u32 >= self.max_open {
            let oldest = self.open.remove(0);
            self.state[oldest as usize] = ZoneState::Closed;
            self.report.implicit_closes += 1;
        }
        self.open.push(zone);
        self.state[zone as usize] = ZoneState::Open;
        self.report.peak_open = self.report.peak_open.max(self.open.len() as u32);
        self.report.peak_active = self.report.peak_active.max(self.active);
        Ok(())
    }

    /// `zone` leaves the open and active sets (full, or reset).
    fn retire(&mut self, zone: u32) {
        let s = self.state[zone as usize];
        if s == ZoneState::Open {
            self.open.retain(|&z| z != zone);
        }
        if matches!(s, ZoneState::Open | ZoneState::Closed) {
            self.active -= 1;
        }
    }

    /// Program the page at `zone`'s write pointer.
    fn program_at_wp(&mut self, zone: u32, tag: u32, t: Nanos) -> Result<(Lpn, Nanos), Error> {
        self.open_for_write(zone)?;
        let off = self.wp[zone as usize];
        let lpn = zone as u64 * self.zone_pages as u64 + off as u64;
        let done = self.nand.program(Ppn(lpn as u32), Lpn(lpn), tag, t);
        self.counters.host_writes += 1;
        self.wp[zone as usize] = off + 1;
        if off + 1 == self.zone_pages {
            self.retire(zone);
            self.state[zone as usize] = ZoneState::Full;
        }
        Ok((Lpn(lpn), done))
    }

    fn check_zone(&self, zone: u32) -> Result<(), Error> {
        if zone as usize >= self.wp.len() {
            return Err(zone_error(format!("zone {zone} beyond the device's {} zones", self.wp.len())));
        }
        Ok(())
    }
}

impl ZoneOps for Zns {
    fn zone_pages(&self) -> u32 {
        self.zone_pages
    }

    fn zone_count(&self) -> u32 {
        self.wp.len() as u32
    }

    fn zone(&self, zone: u32) -> (ZoneState, u32) {
        (self.state[zone as usize], self.wp[zone as usize])
    }

    fn reset(&mut self, zone: u32, t: Nanos) -> Result<Nanos, Error> {
        self.check_zone(zone)?;
        if self.state[zone as usize] == ZoneState::Empty {
            return Ok(t);
        }
        self.retire(zone);
        self.state[zone as usize] = ZoneState::Empty;
        self.wp[zone as usize] = 0;
        self.report.resets += 1;
        Ok(self.nand.erase_segment(zone, t))
    }

    fn finish(&mut self, zone: u32, t: Nanos) -> Result<Nanos, Error> {
        self.check_zone(zone)?;
        if self.state[zone as usize] == ZoneState::Full {
            return Ok(t);
        }
        if self.state[zone as usize] == ZoneState::Empty && self.active >= self.max_active {
            return Err(zone_error(format!(
                "finishing empty zone {zone} needs an active zone (Too Many Active Zones)"
            )));
        }
        self.retire(zone);
        self.state[zone as usize] = ZoneState::Full;
        // The rest of the zone's pages stay erased: move each block's program point to its end.
        let layout = *self.layout();
        let first = zone * self.zone_pages;
        for off in self.wp[zone as usize]..self.zone_pages {
            let a = layout.decode(first + off);
            if self.nand.next_page(a.block) <= a.page {
                self.nand.skip_to(a.block, a.page + 1);
            }
        }
        self.wp[zone as usize] = self.zone_pages;
        self.report.finishes += 1;
        Ok(t)
    }

    fn append(&mut self, zone: u32, tag: u32, t: Nanos) -> Result<(Lpn, Nanos), Error> {
        self.check_zone(zone)?;
        let r = self.program_at_wp(zone, tag, t)?;
        self.report.appends += 1;
        Ok(r)
    }
}

impl Ftl for Zns {
    fn read(&mut self, Lpn(lpn): Lpn, t: Nanos) -> Result<ReadOutcome, Error> {
        let (zone, off) = self.split(lpn);
        self.counters.host_reads += 1;
        if off >= self.wp[zone as usize] || !self.nand.is_programmed(Ppn(lpn as u32)) {
            self.counters.unmapped_reads += 1;
            return Ok(ReadOutcome { done: t, tag: None });
        }
        let ppn = Ppn(lpn as u32);
        Ok(ReadOutcome { done: self.nand.read(ppn, t), tag: Some(self.nand.oob_tag(ppn).unwrap_or(0)) })
    }

    fn write(&mut self, Lpn(lpn): Lpn, tag: u32, t: Nanos) -> Result<Nanos, Error> {
        let (zone, off) = self.split(lpn);
        let wp = self.wp[zone as usize];
        if self.state[zone as usize] == ZoneState::Full {
            return Err(zone_error(format!("write to page {off} of zone {zone}, which is full (Zone Is Full)")));
        }
        if off != wp {
            return Err(zone_error(format!(
                "write to page {off} of zone {zone}, whose write pointer is at page {wp} (Zone Invalid Write)"
            )));
        }
        self.program_at_wp(zone, tag, t).map(|(_, done)| done)
    }

    fn trim(&mut self, Lpn(lpn): Lpn, t: Nanos) -> Result<Nanos, Error> {
        // The host layer checked that the trim covers whole zones: its first page resets the
        // zone, the others find it empty.
        let (zone, off) = self.split(lpn);
        self.counters.trims += 1;
        if off == 0 {
            return self.reset(zone, t);
        }
        if self.state[zone as usize] != ZoneState::Empty {
            return Err(zone_error(format!("trim of page {off} of zone {zone}: a zoned device resets whole zones")));
        }
        Ok(t)
    }

    fn zones(&mut self) -> Option<&mut dyn ZoneOps> {
        Some(self)
    }

    fn zone_pages(&self) -> Option<u32> {
        Some(self.zone_pages)
    }

    fn mapped_ppn(&self, Lpn(lpn): Lpn) -> Option<Ppn> {
        let (zone, off) = self.split(lpn);
        (off < self.wp[zone as usize] && self.nand.is_programmed(Ppn(lpn as u32))).then_some(Ppn(lpn as u32))
    }

    fn logical_pages(&self) -> u64 {
        self.layout().total_pages() as u64
    }

    fn counters(&self) -> FtlCounters {
        self.counters
    }

    fn nand(&self) -> &Nand {
        &self.nand
    }

    fn nand_mut(&mut self) -> &mut Nand {
        &mut self.nand
    }

    fn validate(&self) -> Result<(), String> {
        let mut active = 0;
        for (z, (&s, &wp)) in self.state.iter().zip(&self.wp).enumerate() {
            let ok = match s {
                ZoneState::Empty => wp == 0,
                ZoneState::Open | ZoneState::Closed => wp > 0 && wp < self.zone_pages,
                ZoneState::Full => wp == self.zone_pages,
            };
            if !ok {
                return Err(format!("zone {z} {s:?} with write pointer {wp}"));
            }
            if matches!(s, ZoneState::Open | ZoneState::Closed) {
                active += 1;
            }
            if (s == ZoneState::Open) != self.open.contains(&(z as u32)) {
                return Err(format!("zone {z} {s:?} but open list {:?}", self.open));
            }
        }
        if active != self.active || self.open.len() as u32 > self.max_open || self.active > self.max_active {
            return Err(format!("{active} active zones, counted {}; {} open", self.active, self.open.len()));
        }
        self.nand.validate()
    }

    fn table_bytes(&self) -> u64 {
        0
    }
}

impl FtlFastPath for Zns {}

impl FtlReports for Zns {
    fn zone_report(&self) -> Option<ZoneReport> {
        Some(self.report.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::FtlConfig;
    use crate::nand::{GcUnit, Geometry};

    /// 8 one-plane blocks of 4 pages, block zones, the zone limits given: what `f` makes of
    /// its spec.
    fn with_spec<T>(max_open: u32, max_active: u32, f: impl FnOnce(&FtlSpec) -> T) -> T {
        let geo = Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_size: 4096,
        };
        let mut cfg = FtlConfig { mapping: "zns".into(), ..FtlConfig::default() };
        cfg.mapping_params = format!("max_open_zones = {max_open}\nmax_active_zones = {max_active}").parse().unwrap();
        let spec = FtlSpec {
            layout: Layout::new(geo, GcUnit::Block),
            logical_pages: 32,
            config: &cfg,
            verify: true,
            timing: None,
            seed: 1,
        };
        f(&spec)
    }

    fn zns(max_open: u32, max_active: u32) -> Zns {
        with_spec(max_open, max_active, |spec| Zns::new(spec).unwrap())
    }

    #[test]
    fn writes_follow_the_write_pointer_and_zones_fill() {
        let mut z = zns(2, 3);
        for p in 0..4 {
            z.write(Lpn(p), 1, Nanos(0)).unwrap();
        }
        assert_eq!(z.zone(0), (ZoneState::Full, 4));
        let e = z.write(Lpn(5), 1, Nanos(0)).unwrap_err().to_string();
        assert!(e.contains("Zone Invalid Write") && e.contains("zone 1"), "{e}");
        let e = z.write(Lpn(2), 1, Nanos(0)).unwrap_err().to_string();
        assert!(e.contains("Zone Is Full"), "{e}");
        assert_eq!(z.read(Lpn(3), Nanos(0)).unwrap().tag, Some(1));
        assert_eq!(z.read(Lpn(4), Nanos(0)).unwrap().tag, None);
        z.validate().unwrap();
    }

    #[test]
    fn open_and_active_limits() {
        let mut z = zns(2, 3);
        z.write(Lpn(0), 1, Nanos(0)).unwrap(); // zone 0 open
        z.write(Lpn(4), 1, Nanos(0)).unwrap(); // zone 1 open
        z.write(Lpn(8), 1, Nanos(0)).unwrap(); // zone 2: zone 0 closed implicitly
        assert_eq!(z.zone(0).0, ZoneState::Closed);
        assert_eq!(z.report.implicit_closes, 1);
        let e = z.write(Lpn(12), 1, Nanos(0)).unwrap_err().to_string();
        assert!(e.contains("Too Many Active Zones"), "{e}");
        // Writing the closed zone reopens it (closing the oldest open one).
        z.write(Lpn(1), 1, Nanos(0)).unwrap();
        assert_eq!(z.zone(1).0, ZoneState::Closed);
        // A reset frees an active zone.
        z.reset(1, Nanos(0)).unwrap();
        z.write(Lpn(12), 1, Nanos(0)).unwrap();
        z.validate().unwrap();
        assert_eq!((z.report.peak_open, z.report.peak_active), (2, 3));
    }

    #[test]
    fn append_finish_and_reset() {
        let mut z = zns(2, 2);
        let (lpn, _) = z.append(3, 9, Nanos(0)).unwrap();
        assert_eq!(lpn, Lpn(12));
        let (lpn, _) = z.append(3, 9, Nanos(0)).unwrap();
        assert_eq!(lpn, Lpn(13));
        z.finish(3, Nanos(0)).unwrap();
        assert_eq!(z.zone(3), (ZoneState::Full, 4));
        assert!(z.append(3, 9, Nanos(0)).is_err());
        z.validate().unwrap();
        let erases = z.nand.counters.erases;
        z.reset(3, Nanos(0)).unwrap();
        assert_eq!(z.nand.counters.erases, erases + 1);
        assert_eq!(z.zone(3), (ZoneState::Empty, 0));
        z.write(Lpn(12), 1, Nanos(0)).unwrap();
        assert!(z.reset(99, Nanos(0)).is_err());
        z.validate().unwrap();
    }

    #[test]
    fn limits_are_checked() {
        let cfg_err =
            |open: u32, active: u32| with_spec(open, active, |spec| params(spec).err().map(|e| e.to_string()));
        assert!(cfg_err(3, 2).unwrap().contains("max_open_zones"));
        assert!(cfg_err(0, 2).unwrap().contains("max_open_zones"));
        assert!(cfg_err(2, 9).unwrap().contains("max_active_zones"));
        assert!(cfg_err(2, 8).is_none());
    }
}
