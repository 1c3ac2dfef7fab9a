//! Tencent Cloud Block Storage traces (SNIA IOTTA "Tencent CBS", Zhang et al., "OSCA: An Online-
//! Model Based Cache Allocation Scheme in Cloud Block Storage Systems", USENIX ATC'20). Owns
//! parsing of one line.
//!
//! Format (no header), 5 comma-separated fields:
//! `Timestamp,Offset,Size,IOType,VolumeID`
//! - Timestamp: Unix epoch seconds (integer in the published traces; decimals accepted).
//! - Offset: 512-byte sectors. Size: sectors. IOType: `0` = read, `1` = write.
//! - VolumeID: integer, the `device` filter's column. Thousands of volumes are interleaved in
//!   one file; filter by VolumeID for a per-volume workload.
//!
//! Documented on the SNIA IOTTA page of the Tencent CBS traces; sample:
//! `1538323200,4247200,128,1,1058`. Timestamps have 1 s resolution and are not sorted within a
//! second. Size 0 is an error; only blank lines are skipped.

use super::detect;
use super::input::Input;
use super::lines::{show, split, trim, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "tencent",
    about: "Tencent CBS CSV, no header: Timestamp(epoch s),Offset(512 B sectors),Size(sectors),IOType(0 = read, 1 = write),VolumeID",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("volume_id"), time_unit_override: false, detect: Detect::Sniff(sniff_tencent) },
    build: Opener(open),
};

/// Detection: 5 comma-separated numbers, `0` or `1` 4th.
fn sniff_tencent(s: &Sample) -> bool {
    let (f, n) = split::<5>(s.first(), Sep::Comma);
    n == 5 && matches!(trim(f[3]), b"0" | b"1") && f.iter().all(|x| detect::number(trim(x)))
}

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Tencent))
}

struct Tencent;

impl LineFormat for Tencent {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let [ts, offset, size, kind, volume] = at.fields::<5>(line, Sep::Comma)?;
        let time_ns = at.time("timestamp", ts, 1_000_000_000)?;
        let range = (at.sectors("offset", offset)?, at.sectors("size", size)?);
        let op = match super::lines::trim(kind) {
            b"0" => Op::Read,
            b"1" => Op::Write,
            _ => return Err(at.err("io_type", format!("`{}` is not 0 (read) or 1 (write)", show(kind)))),
        };
        let device = at.uint("volume_id", volume)?;
        at.record(time_ns, op, range, "size", Some(device)).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Record>, Error> {
        Tencent.parse(line.as_bytes(), &Ctx { file: "cbs.csv", line: 5 })
    }

    #[test]
    fn parses_lines() {
        let rec = parse("1538323200,4247200,128,1,1058").expect("ok").expect("rec");
        assert_eq!(
            rec,
            Record {
                time_ns: 1_538_323_200_000_000_000,
                op: Op::Write,
                offset: 4_247_200 * 512,
                len: 65_536,
                device: Some(1058),
                placement: None,
                file: None,
            }
        );
    }

    #[test]
    fn errors() {
        for (line, want) in [
            ("1,2,3,2,4", "field `io_type`"),
            ("1,2,0,0,4", "field `size`"),
            ("1,2,3,0", "expected 5"),
            ("1,2,3,0,v", "field `volume_id`"),
        ] {
            let msg = parse(line).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("cbs.csv:5") && msg.contains(want), "{line}: {msg}");
        }
    }
}
