//! UMass Trace Repository SPC traces (Financial1/2 OLTP, WebSearch1–3; Storage Performance
//! Council trace format). Owns parsing of one CSV line.
//!
//! Format (no header): `ASU,LBA,Size,Opcode,Timestamp[,optional fields...]`
//! - ASU: application storage unit, integer; the `device` filter's column.
//! - LBA: start, in 512-byte sectors. Size: bytes. Opcode: `r`/`R` read, `w`/`W` write.
//! - Timestamp: seconds since the start of the trace (decimal).
//! - The SPC specification allows further optional fields after Timestamp; they are ignored.
//!
//! Documented in the SPC trace file format specification (v1.0.1) that accompanies the UMass
//! traces; sample (Financial1's first line): `0,303567,3584,w,0.0`. Only blank lines are
//! skipped; Size 0 is an error (the format defines no non-I/O records).

use super::input::Input;
use super::lines::{show, split, trim, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "spc",
    about: "UMass SPC CSV (Financial, WebSearch): ASU,LBA(512 B sectors),Size(B),Opcode(r/w),Timestamp(s)",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("asu"), time_unit_override: false, detect: Detect::Sniff(sniff_spc) },
    build: Opener(open),
};

/// Detection: 5 comma-separated fields, `r` or `w` 4th.
fn sniff_spc(s: &Sample) -> bool {
    let (f, n) = split::<5>(s.first(), Sep::Comma);
    n == 5 && matches!(trim(f[3]), b"r" | b"R" | b"w" | b"W")
}

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Spc))
}

struct Spc;

impl LineFormat for Spc {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let ([asu, lba, size, opcode, ts], count) = split::<5>(line, Sep::Comma);
        if count < 5 {
            return Err(at.err_line(format!("expected at least 5 comma-separated fields, found {count}")));
        }
        let device = at.uint("asu", asu)?;
        let offset = at.sectors("lba", lba)?;
        let len = at.uint("size", size)?;
        let op = match super::lines::trim(opcode) {
            b"r" | b"R" => Op::Read,
            b"w" | b"W" => Op::Write,
            _ => return Err(at.err("opcode", format!("`{}` is not r, R, w or W", show(opcode)))),
        };
        let time_ns = at.time("timestamp", ts, 1_000_000_000)?;
        at.record(time_ns, op, (offset, len), "size", Some(device)).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Record>, Error> {
        Spc.parse(line.as_bytes(), &Ctx { file: "Financial1.spc", line: 1 })
    }

    #[test]
    fn parses_financial_lines() {
        let rec = parse("0,303567,3584,w,0.0").expect("valid").expect("record");
        assert_eq!(
            rec,
            Record {
                time_ns: 0,
                op: Op::Write,
                offset: 303_567 * 512,
                len: 3584,
                device: Some(0),
                placement: None,
                file: None
            }
        );
        let rec = parse("1,55590,3072,R,0.026214,extra").expect("valid").expect("record");
        assert_eq!((rec.op, rec.time_ns, rec.device), (Op::Read, 26_214_000, Some(1)));
    }

    #[test]
    fn malformed_lines_name_the_field() {
        for (line, want) in [
            ("0,1,2,x,0", "`opcode`"),
            ("0,1,0,r,0", "`size`"),
            ("0,1,2,r", "at least 5"),
            ("0,1,2,r,-1", "`timestamp`"),
        ] {
            let msg = parse(line).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("Financial1.spc:1") && msg.contains(want), "{line}: {msg}");
        }
    }
}
