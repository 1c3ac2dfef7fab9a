//! SYSTOR'17 enterprise VDI block traces (SNIA IOTTA, Lee et al., "Understanding Storage Traffic
//! Characteristics on Enterprise Virtual Desktop Infrastructure", SYSTOR'17). Owns the header and
//! one line.
//!
//! Format: header `Timestamp,Response,IOType,LUN,Offset,Size`, then
//! - Timestamp: Unix epoch seconds (decimal, ns digits). Response: seconds (validated, unused).
//! - IOType: `R` or `W`. LUN: integer, the `device` filter's column. Offset, Size: bytes.
//!
//! Documented on the SNIA IOTTA page of the SYSTOR'17 traces. Lines are ordered by completion,
//! not arrival, so timestamps sometimes go backwards (see the clamping rule in `mod.rs`). Size 0
//! is an error; only blank lines are skipped.

use super::input::Input;
use super::lines::{is, show, trim, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "systor",
    about: "SYSTOR'17 CSV: header Timestamp,Response,IOType,LUN,Offset,Size; epoch s, R/W, bytes",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("lun"), time_unit_override: false, detect: Detect::Sniff(sniff_systor) },
    build: Opener(open),
};

/// Detection: the header `Timestamp,Response,IOType,LUN,Offset,Size`.
fn sniff_systor(s: &Sample) -> bool {
    trim(s.first()).eq_ignore_ascii_case(b"Timestamp,Response,IOType,LUN,Offset,Size")
}

const HEADER: [&str; 6] = ["Timestamp", "Response", "IOType", "LUN", "Offset", "Size"];

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Systor { header_seen: false }))
}

struct Systor {
    header_seen: bool,
}

impl LineFormat for Systor {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let fields = at.fields::<6>(line, Sep::Comma);
        if !self.header_seen {
            let ok = fields
                .as_ref()
                .is_ok_and(|f| f.iter().zip(HEADER).all(|(f, h)| trim(f).eq_ignore_ascii_case(h.as_bytes())));
            if !ok {
                return Err(at.err(
                    "header",
                    format!("`{}` is not the header `Timestamp,Response,IOType,LUN,Offset,Size`", show(line)),
                ));
            }
            self.header_seen = true;
            return Ok(None);
        }
        let [ts, response, kind, lun, offset, size] = fields?;
        let time_ns = at.time("timestamp", ts, 1_000_000_000)?;
        at.time("response", response, 1_000_000_000)?;
        let op = if is(kind, "R") {
            Op::Read
        } else if is(kind, "W") {
            Op::Write
        } else {
            return Err(at.err("io_type", format!("`{}` is not R or W", show(kind))));
        };
        let device = at.uint("lun", lun)?;
        let range = (at.uint("offset", offset)?, at.uint("size", size)?);
        at.record(time_ns, op, range, "size", Some(device)).map(Some)
    }

    fn finish(&mut self, at: &Ctx) -> Result<(), Error> {
        if self.header_seen {
            Ok(())
        } else {
            Err(at.err("header", "empty file: expected the header `Timestamp,Response,IOType,LUN,Offset,Size`"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<Vec<Record>, Error> {
        crate::workload::trace::lines::parse_text(&mut Systor { header_seen: false }, text, "lun.csv")
    }

    #[test]
    fn parses_lines() {
        let recs =
            run("Timestamp,Response,IOType,LUN,Offset,Size\n1456095145.133076000,0.000806000,R,0,899056122368,131072")
                .expect("ok");
        assert_eq!(
            recs[0],
            Record {
                time_ns: 1_456_095_145_133_076_000,
                op: Op::Read,
                offset: 899_056_122_368,
                len: 131_072,
                device: Some(0),
                placement: None,
                file: None,
            }
        );
    }

    #[test]
    fn errors() {
        for (text, want) in [
            ("1,2,R,0,0,1", "field `header`"),
            ("Timestamp,Response,IOType,LUN,Offset,Size\n1,2,X,0,0,1", "field `io_type`"),
            ("Timestamp,Response,IOType,LUN,Offset,Size\n1,2,R,0,0,0", "field `size`"),
            ("Timestamp,Response,IOType,LUN,Offset,Size\n1,2,R,0,0", "expected 6"),
        ] {
            let msg = run(text).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("lun.csv:") && msg.contains(want), "{text}: {msg}");
        }
    }
}
