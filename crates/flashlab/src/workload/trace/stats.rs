//! Trace statistics for `flashlab trace stats`: one streaming pass over a trace.
//!
//! Owns [`TraceStats`] (serialisable, deterministic: per-device counts in a `BTreeMap`, buckets
//! in size order) and its table rendering. Memory: O(number of devices + number of disjoint
//! extents touched) — the footprint is counted exactly by collecting page extents and merging
//! them (sorted, coalesced) whenever the list doubles, so a sequential trace stays tiny.

use std::collections::BTreeMap;
use std::fmt;

use super::{find_format, open_reader_at, Kept, TraceOptions};
use crate::error::Error;
use crate::workload::{Op, Request};

/// One bucket of the request-size histogram: sizes in `[min_bytes, 2 * min_bytes)`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SizeBucket {
    /// The lower bound as text ("512B", "4KiB", "1MiB").
    pub label: String,
    /// The lower bound in bytes, a power of two.
    pub min_bytes: u64,
    /// Requests whose size falls in the bucket.
    pub count: u64,
}

/// Bytes in a power-of-two range of a distance: `[min_bytes, 2 * min_bytes)`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ByteBucket {
    /// The lower bound as text ("512B", "4KiB", "1MiB").
    pub label: String,
    /// The lower bound in bytes, a power of two.
    pub min_bytes: u64,
    /// Bytes whose distance falls in the range.
    pub bytes: u64,
}

/// Records of one device / volume.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCount {
    /// The device number as the trace gives it.
    pub device: u64,
    /// Records of that device.
    pub records: u64,
}

/// What a trace contains (after the device filter, if any).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TraceStats {
    /// The trace's path as given (`builtin:NAME` for a built-in trace).
    pub path: String,
    /// The format read: the one given, else the built-in trace's, else the one detected.
    pub format: String,
    /// Records (requests) kept.
    pub records: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Trim requests.
    pub trims: u64,
    /// Zone commands (zone append, finish, reset; the `csv` format's `A`, `ZF`, `ZR`); an
    /// append's bytes count in `write_bytes`.
    pub zone_commands: u64,
    /// Bytes requested by reads (saturating at `u64::MAX`).
    pub read_bytes: u64,
    /// Bytes requested by writes (saturating at `u64::MAX`).
    pub write_bytes: u64,
    /// Bytes requested by trims (saturating at `u64::MAX`).
    pub trim_bytes: u64,
    /// reads / (reads + writes); 0 when there are neither.
    pub read_fraction: f64,
    /// Power-of-two buckets of request size in bytes, smallest first, empty buckets omitted.
    pub size_histogram: Vec<SizeBucket>,
    /// Smallest byte offset (0 when there are no records).
    pub offset_min: u64,
    /// Largest `offset + len`; the address span is `[offset_min, end_max)`.
    pub end_max: u64,
    /// Latest minus earliest timestamp in the trace, in ns (times `time_scale`); measured on the
    /// trace's own clock, so records stamped before the first one still count.
    pub duration_ns: u64,
    /// Records stamped earlier than the record before them (traces not sorted by arrival).
    pub time_regressions: u64,
    /// Records stamped earlier than the first record, which the reader gives time 0.
    pub time_clamped: u64,
    /// The page size in bytes that `footprint_pages` counts in ([`stats`]'s argument).
    pub page_size: u64,
    /// Distinct pages of `page_size` bytes touched, counted per device (the same offset on two
    /// devices is two pages): the data footprint of the trace.
    pub footprint_pages: u64,
    /// Distinct pages when every device's offsets share one address space, as a simulated device
    /// sees an unfiltered multi-device trace. Equals `footprint_pages` for one device.
    pub footprint_pages_merged: u64,
    /// Number of distinct devices; `None` when the format has no device column.
    pub devices: Option<u64>,
    /// Records per device, by device number.
    pub per_device: Vec<DeviceCount>,
    /// Written bytes in requests that start where one of the previous `STREAMS` (8) writes of the
    /// same device ended (a sequential continuation, tolerant of interleaved streams); the rest
    /// are jumps: scattered small writes, metadata, random phases.
    pub sequential_write_bytes: u64,
    /// The other written bytes (jumps) by distance from the nearest end of the previous
    /// `STREAMS` (8) writes of the device, in power-of-two buckets; jumps with no previous
    /// write on their device are left out.
    pub jump_distance: Vec<ByteBucket>,
}

/// Interleaved write streams a continuation may follow (see `sequential_write_bytes`).
pub const STREAMS: usize = 8;

/// Read the whole trace once and summarise it.
pub fn stats(opts: &TraceOptions, page_size: u64) -> Result<TraceStats, Error> {
    crate::nand::geometry::check_page_size("page_size", page_size)?;
    let format = match (&opts.format, super::builtin::find(&opts.path)) {
        (Some(name), _) => find_format(name)?.name,
        (None, Some(b)) => b?.format,
        (None, None) => super::detect_format(&opts.path)?,
    };
    let mut fixed = opts.clone();
    fixed.format = Some(format.to_string());
    let mut reader = open_reader_at(&fixed)?;
    let mut acc = Acc::new(page_size);
    while let Some(kept) = reader.next_kept()? {
        acc.add(&kept);
    }
    Ok(acc.finish(opts.path.display().to_string(), format.to_string(), reader.time_scale()))
}

/// The running totals.
struct Acc {
    s: TraceStats,
    buckets: [u64; 64],
    /// Raw times (trace clock, ns): first, previous, min, max.
    first_ns: Option<u128>,
    last_ns: u128,
    time_min: u128,
    time_max: u128,
    extents: Extents,
    merged: Extents,
    per_device: BTreeMap<u64, u64>,
    /// (device, end) of the last `STREAMS` writes, most recent last.
    write_ends: Vec<(u64, u64)>,
    jump_buckets: [u64; 64],
}

impl Acc {
    fn new(page_size: u64) -> Self {
        let s = TraceStats {
            path: String::new(),
            format: String::new(),
            records: 0,
            reads: 0,
            writes: 0,
            trims: 0,
            zone_commands: 0,
            read_bytes: 0,
            write_bytes: 0,
            trim_bytes: 0,
            read_fraction: 0.0,
            size_histogram: Vec::new(),
            offset_min: u64::MAX,
            end_max: 0,
            duration_ns: 0,
            time_regressions: 0,
            time_clamped: 0,
            page_size,
            footprint_pages: 0,
            footprint_pages_merged: 0,
            devices: None,
            per_device: Vec::new(),
            sequential_write_bytes: 0,
            jump_distance: Vec::new(),
        };
        Acc {
            s,
            buckets: [0; 64],
            first_ns: None,
            last_ns: 0,
            time_min: u128::MAX,
            time_max: 0,
            extents: Extents::default(),
            merged: Extents::default(),
            per_device: BTreeMap::new(),
            write_ends: Vec::with_capacity(STREAMS + 1),
            jump_buckets: [0; 64],
        }
    }

    fn add(&mut self, kept: &Kept) {
        let Request { op, offset, len, .. } = kept.req;
        let (raw_ns, device) = (kept.raw_ns, kept.device);
        assert!(len > 0, "readers never yield empty requests");
        let s = &mut self.s;
        s.records += 1;
        let mut no_bytes = 0;
        let (count, bytes) = match op {
            Op::Read => (&mut s.reads, &mut s.read_bytes),
            Op::Write => (&mut s.writes, &mut s.write_bytes),
            Op::Trim => (&mut s.trims, &mut s.trim_bytes),
            Op::ZoneAppend => (&mut s.zone_commands, &mut s.write_bytes),
            Op::ZoneFinish | Op::ZoneReset => (&mut s.zone_commands, &mut no_bytes),
        };
        *count += 1;
        *bytes = bytes.saturating_add(len);
        self.buckets[len.ilog2() as usize] += 1;
        s.offset_min = s.offset_min.min(offset);
        s.end_max = s.end_max.max(offset + len);
        if self.first_ns.is_some() && raw_ns < self.last_ns {
            s.time_regressions += 1;
        }
        if raw_ns < *self.first_ns.get_or_insert(raw_ns) {
            s.time_clamped += 1;
        }
        self.last_ns = raw_ns;
        self.time_min = self.time_min.min(raw_ns);
        self.time_max = self.time_max.max(raw_ns);
        let pages = (offset / s.page_size, (offset + len - 1) / s.page_size + 1);
        self.extents.add(device.unwrap_or(0), pages.0, pages.1);
        self.merged.add(0, pages.0, pages.1);
        if let Some(d) = device {
            *self.per_device.entry(d).or_insert(0) += 1;
        }
        if op == Op::Write {
            let d = device.unwrap_or(0);
            if self.write_ends.contains(&(d, offset)) {
                self.s.sequential_write_bytes += len;
            } else if let Some(dist) = self.write_ends.iter().filter(|e| e.0 == d).map(|e| e.1.abs_diff(offset)).min() {
                self.jump_buckets[dist.ilog2() as usize] += len;
            }
            if self.write_ends.len() == STREAMS {
                self.write_ends.remove(0);
            }
            self.write_ends.push((d, offset + len));
        }
    }

    fn finish(mut self, path: String, format: String, time_scale: f64) -> TraceStats {
        let mut s = self.s;
        s.path = path;
        s.format = format;
        let rw = s.reads + s.writes;
        s.read_fraction = if rw == 0 { 0.0 } else { s.reads as f64 / rw as f64 };
        if s.records == 0 {
            s.offset_min = 0;
        } else {
            let span = (self.time_max - self.time_min) as f64 * time_scale;
            s.duration_ns = if span >= u64::MAX as f64 { u64::MAX } else { span.round() as u64 };
        }
        s.size_histogram = (0..64)
            .filter(|&k| self.buckets[k] > 0)
            .map(|k| SizeBucket { label: size_label(1 << k), min_bytes: 1 << k, count: self.buckets[k] })
            .collect();
        s.jump_distance = (0..64)
            .filter(|&k| self.jump_buckets[k] > 0)
            .map(|k| ByteBucket { label: size_label(1 << k), min_bytes: 1 << k, bytes: self.jump_buckets[k] })
            .collect();
        s.footprint_pages = self.extents.pages();
        s.footprint_pages_merged = self.merged.pages();
        if !self.per_device.is_empty() {
            s.devices = Some(self.per_device.len() as u64);
        }
        s.per_device = self.per_device.into_iter().map(|(device, records)| DeviceCount { device, records }).collect();
        s
    }
}

/// Page extents `(device, start, end)` (pages `[start, end)` of one device), merged lazily;
/// counts distinct (device, page) pairs exactly.
#[derive(Default)]
struct Extents {
    list: Vec<(u64, u64, u64)>,
    /// Length after the last merge; merge again when the list doubles.
    merged_len: usize,
}

impl Extents {
    fn add(&mut self, device: u64, start: u64, end: u64) {
        debug_assert!(start < end);
        if let Some(last) = self.list.last_mut() {
            if last.0 == device && start <= last.2 && end >= last.1 {
                (last.1, last.2) = (last.1.min(start), last.2.max(end)); // touches the previous extent
                return;
            }
        }
        self.list.push((device, start, end));
        if self.list.len() >= 2 * self.merged_len.max(1 << 16) {
            self.merge();
        }
    }

    fn merge(&mut self) {
        self.list.sort_unstable();
        let mut out: Vec<(u64, u64, u64)> = Vec::with_capacity(self.list.len());
        for &(d, s, e) in &self.list {
            match out.last_mut() {
                Some(last) if last.0 == d && s <= last.2 => last.2 = last.2.max(e),
                _ => out.push((d, s, e)),
            }
        }
        self.list = out;
        self.merged_len = self.list.len();
    }

    fn pages(&mut self) -> u64 {
        self.merge();
        self.list.iter().map(|(_, s, e)| e - s).sum()
    }
}

/// "512B", "4KiB", "1MiB", ... for a power of two.
fn size_label(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let k = (bytes.ilog2() / 10) as usize;
    format!("{}{}", bytes >> (10 * k), UNITS[k])
}

fn page_label(bytes: u64) -> String {
    if bytes.is_power_of_two() {
        size_label(bytes)
    } else {
        format!("{bytes} B")
    }
}

/// Bytes as a short human-readable number.
fn human(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut k = 0;
    while v >= 1024.0 && k + 1 < UNITS.len() {
        v /= 1024.0;
        k += 1;
    }
    if k == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.2} {}", UNITS[k])
    }
}

/// How many of the busiest devices the table lists.
const DEVICES_SHOWN: usize = 10;

impl fmt::Display for TraceStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "trace            {} ({})", self.path, self.format)?;
        write!(
            f,
            "records          {} (reads {}, writes {}, trims {}",
            self.records, self.reads, self.writes, self.trims
        )?;
        if self.zone_commands > 0 {
            write!(f, ", zone commands {}", self.zone_commands)?;
        }
        writeln!(f, ")")?;
        writeln!(f, "read fraction    {:.3} (of reads + writes)", self.read_fraction)?;
        writeln!(
            f,
            "bytes            read {}, written {}, trimmed {}",
            human(self.read_bytes),
            human(self.write_bytes),
            human(self.trim_bytes)
        )?;
        let span = self.end_max - self.offset_min;
        writeln!(f, "address span     [{}, {}) = {}", self.offset_min, self.end_max, human(span))?;
        let fp = self.footprint_pages.saturating_mul(self.page_size);
        write!(f, "footprint        {} pages of {} = {}", self.footprint_pages, page_label(self.page_size), human(fp))?;
        if self.footprint_pages_merged != self.footprint_pages {
            write!(f, " ({} pages with all devices in one address space)", self.footprint_pages_merged)?;
        }
        writeln!(f)?;
        let secs = self.duration_ns as f64 / 1e9;
        write!(f, "duration         {secs:.6} s")?;
        if self.time_regressions > 0 {
            write!(f, " (not sorted by time: {} records earlier than their predecessor", self.time_regressions)?;
            write!(f, ", {} earlier than the first record and replayed at time 0)", self.time_clamped)?;
        }
        writeln!(f)?;
        self.fmt_devices(f)?;
        if self.write_bytes > 0 {
            writeln!(
                f,
                "sequential       {:.1}% of written bytes continue one of the last {STREAMS} writes",
                100.0 * self.sequential_write_bytes as f64 / self.write_bytes as f64
            )?;
        }
        if let (Some(half), Some(most)) = (self.jump_within(0.5), self.jump_within(0.9)) {
            writeln!(
                f,
                "jump distance    half of the other written bytes land within {} of one of those writes' ends, 90% within {}",
                human(half),
                human(most)
            )?;
        }
        writeln!(f, "request sizes    (bucket = [size, 2 × size): count, share)")?;
        for b in &self.size_histogram {
            let share = b.count as f64 / self.records.max(1) as f64 * 100.0;
            writeln!(f, "  {:>8}  {:>12}  {:>6.2}%", b.label, b.count, share)?;
        }
        Ok(())
    }
}

impl TraceStats {
    /// The distance (a power of two) within which `share` of the jump bytes land: the upper
    /// bound of the bucket where the cumulative share reaches it. `None` without jumps.
    pub fn jump_within(&self, share: f64) -> Option<u64> {
        let total: u64 = self.jump_distance.iter().map(|b| b.bytes).sum();
        let mut acc = 0;
        for b in &self.jump_distance {
            acc += b.bytes;
            if acc as f64 >= share * total as f64 {
                return Some(b.min_bytes.saturating_mul(2));
            }
        }
        None
    }

    fn fmt_devices(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(n) = self.devices else {
            return writeln!(f, "devices          (the format has no device column)");
        };
        let mut busiest: Vec<&DeviceCount> = self.per_device.iter().collect();
        busiest.sort_by(|a, b| b.records.cmp(&a.records).then(a.device.cmp(&b.device)));
        // blkparse's device numbers are dev_t: shown as it prints them, `major,minor`, too.
        let name = |d: u64| match self.format.as_str() {
            "blkparse" => format!("{d} ({})", super::blkparse::show_dev(d)),
            _ => d.to_string(),
        };
        let shown: Vec<String> =
            busiest.iter().take(DEVICES_SHOWN).map(|d| format!("{}: {}", name(d.device), d.records)).collect();
        let more = if busiest.len() > DEVICES_SHOWN { ", ..." } else { "" };
        writeln!(f, "devices          {n} (records by device, busiest first: {}{more})", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_count_distinct_pages() {
        let mut e = Extents::default();
        for (s, t) in [(0, 2), (1, 3), (10, 11), (2, 3), (5, 6), (10, 12), (0, 1)] {
            e.add(0, s, t);
        }
        e.add(1, 0, 2);
        e.add(1, 1, 4);
        assert_eq!(e.pages(), 3 + 1 + 2 + 4);
    }

    #[test]
    fn accumulator_counts_everything() {
        let kept = |raw_ns, op, offset, len, device| Kept {
            req: Request { time_ns: 0, op, offset, len, placement: None, file: None },
            device: Some(device),
            raw_ns,
        };
        let mut acc = Acc::new(4096);
        acc.add(&kept(100, Op::Write, 0, 4096, 2));
        acc.add(&kept(50, Op::Read, 6144, 4096, 1));
        acc.add(&kept(300, Op::Trim, 1 << 20, 512, 2));
        let s = acc.finish("t".into(), "csv".into(), 1.0);
        assert_eq!((s.records, s.reads, s.writes, s.trims), (3, 1, 1, 1));
        assert_eq!((s.offset_min, s.end_max), (0, (1 << 20) + 512));
        assert_eq!(s.footprint_pages, 2 + 2, "device 2: pages 0 and 256; device 1: pages 1 and 2");
        assert_eq!(s.footprint_pages_merged, 4, "pages 0, 1, 2 and 256");
        assert_eq!((s.duration_ns, s.time_regressions, s.time_clamped), (250, 1, 1));
        assert_eq!(s.devices, Some(2));
        assert_eq!(s.per_device, vec![DeviceCount { device: 1, records: 1 }, DeviceCount { device: 2, records: 2 }]);
        let labels: Vec<_> = s.size_histogram.iter().map(|b| (b.label.as_str(), b.count)).collect();
        assert_eq!(labels, vec![("512B", 1), ("4KiB", 2)]);
        assert_eq!(s.read_fraction, 0.5);
        assert!(s.to_string().contains("records          3"));
    }

    /// A write continues a stream when it starts where one of the last eight writes of its
    /// device ended; reads in between do not break it; the ninth-oldest stream is forgotten.
    #[test]
    fn sequential_writes_follow_up_to_eight_interleaved_streams() {
        let w = |offset, len, device| Kept {
            req: Request { time_ns: 0, op: Op::Write, offset, len, placement: None, file: None },
            device: Some(device),
            raw_ns: 0,
        };
        let mut acc = Acc::new(4096);
        acc.add(&w(0, 4096, 0)); // first write: a jump
        acc.add(&Kept {
            req: Request { time_ns: 0, op: Op::Read, offset: 4096, len: 512, placement: None, file: None },
            device: Some(0),
            raw_ns: 0,
        });
        acc.add(&w(4096, 8192, 0)); // continues: 8192 bytes
        acc.add(&w(4096 + 8192, 100, 1)); // same offset on another device: a jump
        for k in 1..=6u64 {
            acc.add(&w(k << 30, 10, 0)); // six other streams: the first is now 8 writes back
        }
        acc.add(&w(12288, 1000, 0)); // continues the first stream
        for k in 1..=8u64 {
            acc.add(&w(k << 31, 10, 0)); // eight jumps
        }
        acc.add(&w(13288, 1, 0)); // the first stream, now 9 writes back: forgotten
        let s = acc.finish("t".into(), "csv".into(), 1.0);
        assert_eq!(s.sequential_write_bytes, 8192 + 1000);
    }

    /// Jump bytes by distance to the nearest recent write end, and the quantile reading of it.
    #[test]
    fn jump_distances_are_bucketed_by_powers_of_two() {
        let w = |offset, len| Kept {
            req: Request { time_ns: 0, op: Op::Write, offset, len, placement: None, file: None },
            device: None,
            raw_ns: 0,
        };
        let mut acc = Acc::new(4096);
        acc.add(&w(0, 4096)); // no earlier write: not in the histogram
        acc.add(&w(4196, 10)); // 100 B after the end at 4096
        acc.add(&w(1 << 20, 10)); // 1 MiB - 4206 B from the nearest end
        acc.add(&w((1 << 20) + 10 + 5000, 10)); // 5000 B after the previous end
        let s = acc.finish("t".into(), "csv".into(), 1.0);
        let got: Vec<(u64, u64)> = s.jump_distance.iter().map(|b| (b.min_bytes, b.bytes)).collect();
        assert_eq!(got, vec![(64, 10), (4096, 10), (1 << 19, 10)]);
        assert_eq!(
            (s.jump_within(0.3), s.jump_within(0.5), s.jump_within(0.9)),
            (Some(128), Some(8192), Some(1 << 20))
        );
    }

    #[test]
    fn labels() {
        assert_eq!(size_label(1), "1B");
        assert_eq!(size_label(4096), "4KiB");
        assert_eq!(size_label(1 << 30), "1GiB");
        assert_eq!(size_label(1 << 63), "8EiB");
    }
}
