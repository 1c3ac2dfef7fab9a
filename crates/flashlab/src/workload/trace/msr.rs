//! MSR Cambridge block traces (SNIA IOTTA set "MSR Cambridge Traces", Narayanan et al.,
//! "Write off-loading", FAST'08). Owns parsing of one CSV line; the hot path of trace reading.
//!
//! Format (no header), 7 comma-separated fields per line:
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`
//! - Timestamp: Windows FILETIME, 100 ns ticks since 1601 (integer).
//! - Hostname: non-empty text (not used). DiskNumber: integer, the `device` filter's column.
//! - Type: `Read` or `Write` (case-insensitive). Offset, Size: bytes. ResponseTime: 100 ns ticks
//!   (validated, not used).
//!
//! Documented in the SNIA IOTTA repository's description of the MSR Cambridge traces; sample:
//! `128166385295514663,hm,0,Write,9056014336,2048,2833`. No line is skipped except blank ones;
//! Size 0 is an error (the format has no non-I/O records).

use super::input::Input;
use super::lines::{is, split, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "msr",
    about: "MSR Cambridge CSV, no header: Timestamp(100 ns FILETIME),Hostname,DiskNumber,Type(Read/Write),Offset(B),Size(B),ResponseTime",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("disk_number"), time_unit_override: false, detect: Detect::Sniff(sniff_msr) },
    build: Opener(open),
};

/// Detection: 7 comma-separated fields, `Read` or `Write` 4th.
fn sniff_msr(s: &Sample) -> bool {
    let (f, n) = split::<7>(s.first(), Sep::Comma);
    n == 7 && (is(f[3], "Read") || is(f[3], "Write"))
}

/// FILETIME tick length.
const TICK_NS: u128 = 100;

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Msr))
}

struct Msr;

impl LineFormat for Msr {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let [ts, host, disk, kind, offset, size, response] = at.fields::<7>(line, Sep::Comma)?;
        let ticks = at.uint("timestamp", ts)?;
        if host.is_empty() {
            return Err(at.err("hostname", "empty hostname"));
        }
        let device = at.uint("disk_number", disk)?;
        let op = if is(kind, "Read") {
            Op::Read
        } else if is(kind, "Write") {
            Op::Write
        } else {
            return Err(at.err("type", format!("`{}` is not Read or Write", super::lines::show(kind))));
        };
        let range = (at.uint("offset", offset)?, at.uint("size", size)?);
        at.uint("response_time", response)?;
        at.record(u128::from(ticks) * TICK_NS, op, range, "size", Some(device)).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Record>, Error> {
        Msr.parse(line.as_bytes(), &Ctx { file: "hm_0.csv", line: 3 })
    }

    #[test]
    fn parses_a_real_line() {
        let rec = parse("128166385295514663,hm,0,Write,9056014336,2048,2833").expect("valid").expect("a record");
        assert_eq!(
            rec,
            Record {
                time_ns: 12_816_638_529_551_466_300,
                op: Op::Write,
                offset: 9_056_014_336,
                len: 2048,
                device: Some(0),
                placement: None,
                file: None,
            }
        );
        let rec = parse("128166386567849449,hm,2,read,0,4096,3654").expect("valid").expect("a record");
        assert_eq!((rec.op, rec.device), (Op::Read, Some(2)));
    }

    #[test]
    fn malformed_lines_name_the_field() {
        let cases = [
            ("128166385295514663,hm,0,Write,12x,2048,2833", "field `offset`"),
            ("128166385295514663,hm,0,Erase,0,2048,2833", "field `type`"),
            ("128166385295514663,hm,0,Write,0,0,2833", "field `size`"),
            ("t,hm,0,Write,0,1,2833", "field `timestamp`"),
            ("1,,0,Write,0,1,2833", "field `hostname`"),
            ("1,hm,0,Write,0,1", "expected 7 comma-separated fields, found 6"),
        ];
        for (line, want) in cases {
            let msg = parse(line).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.starts_with("hm_0.csv:3") && msg.contains(want), "{line}: {msg}");
        }
    }
}
