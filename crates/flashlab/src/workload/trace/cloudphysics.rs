//! CloudPhysics block traces in CSV form, as shipped with libCacheSim (`data/cloudPhysicsIO.csv`;
//! Waldspurger et al., "Efficient MRC Construction with SHARDS", FAST'15). Owns the header and
//! one line.
//!
//! Format: header `version,time,op,size,lbn`, then
//! - version: integer (the VSCSI record version, 1). time: seconds (decimal; the CSV rendering
//!   truncates the binary trace's µs to whole seconds).
//! - op: SCSI opcode in hex (`28` READ(10), `2a` WRITE(10), ...; see `scsi.rs`).
//! - size: bytes. lbn: logical block number in 512-byte sectors.
//!
//! Documented by libCacheSim's CSV reader configuration for this file and by the binary VSCSI
//! layout (`vscsi.rs`). Skipped on purpose: commands that move no user data (SYNCHRONIZE CACHE,
//! INQUIRY, ...); any other unknown opcode is an error, and so is a read or write of size 0.
//! There is no device column.

use super::input::Input;
use super::lines::{show, trim, Ctx, LineFormat, LineSource, Sep};
use super::scsi::{self, Command};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "cloudphysics",
    about: "CloudPhysics CSV (libCacheSim): header version,time,op,size,lbn; time s, op SCSI hex, size B, lbn 512 B sectors",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: None, time_unit_override: false, detect: Detect::Sniff(sniff_cloudphysics) },
    build: Opener(open),
};

/// Detection: the header `version,time,op,size,lbn`.
fn sniff_cloudphysics(s: &Sample) -> bool {
    trim(s.first()).eq_ignore_ascii_case(b"version,time,op,size,lbn")
}

const HEADER: [&str; 5] = ["version", "time", "op", "size", "lbn"];

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, CloudPhysics { header_seen: false }))
}

struct CloudPhysics {
    header_seen: bool,
}

impl LineFormat for CloudPhysics {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let fields = at.fields::<5>(line, Sep::Comma);
        if !self.header_seen {
            let ok = fields
                .as_ref()
                .is_ok_and(|f| f.iter().zip(HEADER).all(|(f, h)| trim(f).eq_ignore_ascii_case(h.as_bytes())));
            if !ok {
                return Err(at.err("header", format!("`{}` is not the header `version,time,op,size,lbn`", show(line))));
            }
            self.header_seen = true;
            return Ok(None);
        }
        let [version, time, op, size, lbn] = fields?;
        at.uint("version", version)?;
        let time_ns = at.time("time", time, 1_000_000_000)?;
        let opcode = at.hex("op", op)?;
        let range = (at.sectors("lbn", lbn)?, at.uint("size", size)?);
        match scsi::command(opcode) {
            Command::Io(op) => at.record(time_ns, op, range, "size", None).map(Some),
            Command::NonIo => Ok(None),
            Command::Unknown => Err(at.err("op", scsi::unknown(opcode))),
        }
    }

    fn finish(&mut self, at: &Ctx) -> Result<(), Error> {
        if self.header_seen {
            Ok(())
        } else {
            Err(at.err("header", "empty file: expected the header `version,time,op,size,lbn`"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;

    fn run(text: &str) -> Result<Vec<Record>, Error> {
        crate::workload::trace::lines::parse_text(&mut CloudPhysics { header_seen: false }, text, "cp.csv")
    }

    #[test]
    fn parses_reads_writes_and_skips_non_io() {
        let recs = run("version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633899,35,0,0\n1,5633900,28,4096,8")
            .expect("valid");
        assert_eq!(recs.len(), 2);
        assert_eq!(
            recs[0],
            Record {
                time_ns: 5_633_898_000_000_000,
                op: Op::Write,
                offset: 42_932_745 * 512,
                len: 512,
                device: None,
                placement: None,
                file: None
            }
        );
        assert_eq!((recs[1].op, recs[1].offset), (Op::Read, 4096));
    }

    #[test]
    fn errors() {
        for (text, want) in [
            ("1,5633898,2a,512,42932745", "field `header`"),
            ("version,time,op,size,lbn\n1,1,42,512,0", "SCSI opcode 0x42"),
            ("version,time,op,size,lbn\n1,1,2a,0,0", "field `size`"),
            ("version,time,op,size,lbn\n1,1,2a,512", "expected 5"),
            ("", "empty file"),
        ] {
            let msg = run(text).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("cp.csv:") && msg.contains(want), "{text}: {msg}");
        }
    }
}
