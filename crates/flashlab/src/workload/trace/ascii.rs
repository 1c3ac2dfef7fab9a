//! The five-column ASCII traces of DiskSim, MQSim and SSDsim: one implementation, three registry
//! lines that differ only in their default time unit and in how the last column names the op.
//!
//! Format (no header), 5 space-separated fields: `time device sector count op`
//! - `disksim` (DiskSim 4.0 manual, "ascii" input trace format; `iotrace_ascii_get_ioreq_event`):
//!   `time_ms devno blkno bcount flags`; time in ms (decimal); flags hexadecimal, bit 0 set =
//!   read, clear = write; other flag bits (e.g. asynchronous, time-critical) are ignored.
//! - `mqsim` (MQSim, CMU-SAFARI, `ASCII_Trace_Definition.h`):
//!   `time_ns device lba size type`; type 1 = read, 0 = write.
//! - `ssdsim` (SSDsim, Hu et al., ICS'11; `example.ascii`): same columns and meaning as mqsim.
//!
//! Sectors and counts are 512-byte sectors; `device` is the filter's column. The `time_unit`
//! option (ns/us/ms/s) overrides the default unit, and times may be decimal in every dialect.
//! Count 0 is an error (none of these formats defines non-I/O records); only blank lines are
//! skipped.

use super::detect;
use super::input::Input;
use super::lines::{show, split, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The `disksim` registry line.
pub(crate) const FORMAT_DISKSIM: FormatEntry = Entry {
    name: "disksim",
    about: "DiskSim ASCII: time(ms) devno blkno(512 B sectors) bcount(sectors) flags(hex, bit 0 = read)",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("devno"), time_unit_override: true, detect: Detect::Sniff(sniff_disksim) },
    build: Opener(open_disksim),
};

/// The `mqsim` registry line.
pub(crate) const FORMAT_MQSIM: FormatEntry = Entry {
    name: "mqsim",
    about: "MQSim ASCII: time(ns) device lba(512 B sectors) size(sectors) type(1 = read, 0 = write)",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("device"), time_unit_override: true, detect: Detect::Sniff(sniff_mqsim) },
    build: Opener(open_mqsim),
};

/// The `ssdsim` registry line.
pub(crate) const FORMAT_SSDSIM: FormatEntry = Entry {
    name: "ssdsim",
    about: "SSDsim ASCII: time(ns) device lba(512 B sectors) size(sectors) op(1 = read, 0 = write)",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("device"), time_unit_override: true, detect: Detect::Sniff(sniff_ssdsim) },
    build: Opener(open_ssdsim),
};

/// The DiskSim / MQSim / SSDsim layout: 5 space-separated numbers.
fn five_numbers(s: &Sample) -> bool {
    let (tok, n) = detect::spaced(s.first());
    n == 5 && tok[..5].iter().all(|t| detect::number(t))
}

/// A decimal point in any sampled time (DiskSim times are fractional ms).
fn fractional(s: &Sample) -> bool {
    s.lines.iter().any(|l| split::<1>(l, Sep::Space).0[0].contains(&b'.'))
}

/// Detection (the documented tie-break of the three): a fractional time.
fn sniff_disksim(s: &Sample) -> bool {
    five_numbers(s) && fractional(s)
}

/// Detection: integer times in a file with SSDsim's `.ascii` extension.
fn sniff_ssdsim(s: &Sample) -> bool {
    five_numbers(s) && !fractional(s) && s.ext == "ascii"
}

/// Detection: integer times (ns), any other extension.
fn sniff_mqsim(s: &Sample) -> bool {
    five_numbers(s) && !fractional(s) && s.ext != "ascii"
}

/// How the last column names the op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpColumn {
    /// Hexadecimal flags word, bit 0 = read (DiskSim).
    FlagsBit0,
    /// `1` = read, `0` = write, nothing else (MQSim, SSDsim).
    OneIsRead,
}

/// One dialect: default unit, op rule and the column names used in error messages.
#[derive(Clone, Copy, Debug)]
struct Dialect {
    unit_ns: u64,
    op: OpColumn,
    names: [&'static str; 5],
}

const DISKSIM: Dialect =
    Dialect { unit_ns: 1_000_000, op: OpColumn::FlagsBit0, names: ["time", "devno", "blkno", "bcount", "flags"] };
const MQSIM: Dialect =
    Dialect { unit_ns: 1, op: OpColumn::OneIsRead, names: ["time", "device", "lba", "size", "type"] };
const SSDSIM: Dialect = Dialect { unit_ns: 1, op: OpColumn::OneIsRead, names: ["time", "device", "lba", "size", "op"] };

fn open_disksim(input: Input, settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Ascii::new(DISKSIM, settings)))
}

fn open_mqsim(input: Input, settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Ascii::new(MQSIM, settings)))
}

fn open_ssdsim(input: Input, settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Ascii::new(SSDSIM, settings)))
}

struct Ascii {
    dialect: Dialect,
    /// The time unit in force (the dialect's, or the `time_unit` override).
    unit_ns: u64,
}

impl Ascii {
    fn new(dialect: Dialect, settings: &Settings) -> Self {
        let unit_ns = settings.unit_ns.unwrap_or(dialect.unit_ns);
        assert!(unit_ns > 0, "time units are validated");
        Ascii { dialect, unit_ns }
    }

    fn op(&self, s: &[u8], at: &Ctx) -> Result<Op, Error> {
        let name = self.dialect.names[4];
        match self.dialect.op {
            OpColumn::FlagsBit0 => Ok(if at.hex(name, s)? & 1 == 1 { Op::Read } else { Op::Write }),
            OpColumn::OneIsRead => match s {
                b"1" => Ok(Op::Read),
                b"0" => Ok(Op::Write),
                _ => Err(at.err(name, format!("`{}` is not 1 (read) or 0 (write)", show(s)))),
            },
        }
    }
}

impl LineFormat for Ascii {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let [time, device, sector, count, op] = at.fields::<5>(line, Sep::Space)?;
        let n = self.dialect.names;
        let time_ns = at.time(n[0], time, self.unit_ns)?;
        let device = at.uint(n[1], device)?;
        let offset = at.sectors(n[2], sector)?;
        let len = at.sectors(n[3], count)?;
        let op = self.op(op, at)?;
        at.record(time_ns, op, (offset, len), n[3], Some(device)).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(dialect: Dialect, unit_ns: Option<u64>, line: &str) -> Result<Option<Record>, Error> {
        let mut ascii = Ascii::new(dialect, &Settings { device: None, unit_ns });
        ascii.parse(line.as_bytes(), &Ctx { file: "t.trace", line: 4 })
    }

    #[test]
    fn dialects_differ_in_unit_and_op_column() {
        let rec = parse(DISKSIM, None, "0.221 5 162947904 16 1").expect("ok").expect("rec");
        assert_eq!(
            rec,
            Record {
                time_ns: 221_000,
                op: Op::Read,
                offset: 162_947_904 * 512,
                len: 8192,
                device: Some(5),
                placement: None,
                file: None
            }
        );
        let rec = parse(DISKSIM, None, "1 0 0 1 a").expect("ok").expect("rec");
        assert_eq!(rec.op, Op::Write, "flags 0xa has bit 0 clear");
        let rec = parse(MQSIM, None, "938513000 4 264719034 16 0").expect("ok").expect("rec");
        assert_eq!((rec.time_ns, rec.op, rec.device), (938_513_000, Op::Write, Some(4)));
        let rec = parse(SSDSIM, Some(1_000), "7 0 1 1 1").expect("ok").expect("rec");
        assert_eq!((rec.time_ns, rec.op), (7_000, Op::Read));
    }

    #[test]
    fn malformed_lines_name_the_dialects_fields() {
        for (d, line, want) in [
            (MQSIM, "1 0 1 1 2", "field `type`"),
            (SSDSIM, "1 0 1 1 2", "field `op`"),
            (DISKSIM, "1 0 1 0 1", "field `bcount`"),
            (DISKSIM, "1 0 1 1 z", "field `flags`"),
            (MQSIM, "1 0 1 1", "expected 5 space-separated fields, found 4"),
            (MQSIM, "1 0 1 36028797018963968 1", "field `size`"),
        ] {
            let msg = parse(d, None, line).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("t.trace:4") && msg.contains(want), "{line}: {msg}");
        }
    }
}
