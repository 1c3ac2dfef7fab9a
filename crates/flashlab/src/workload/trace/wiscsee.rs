//! WiscSee's blkparse-derived event files (`blkparse-events-for-ftlsim.txt`; He et al., "The
//! Unwritten Contract of Solid State Drives", EuroSys'17; github.com/junhe/wiscsee). Owns parsing
//! of one line.
//!
//! Format (no header), 8 space-separated fields:
//! `pid action op offset size time delta sync`
//! - action: `D` (dispatch) or `C` (complete); only D lines are requests (C lines repeat the same
//!   I/O at completion and are skipped on purpose).
//! - op: `read`, `write` or `discard` (→ trim). offset, size: bytes. time: seconds (decimal).
//! - delta: seconds since the previous event (not used); sync: `True`/`False` (validated).
//!
//! Documented by WiscSee's blktrace parser (`BlktraceResult`, column names in its config as
//! `pid action operation offset size timestamp pre_wait_time sync`) and its test data, e.g.
//! `39949 D read 299008 4096 0.000000000 0 False`. Size 0 is an error.

use super::detect;
use super::input::Input;
use super::lines::{is, show, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "wiscsee",
    about: "WiscSee blkparse-derived events: pid action(D/C) op(read/write/discard) offset(B) size(B) time(s) delta(s) sync; D lines",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: None, time_unit_override: false, detect: Detect::Sniff(sniff_wiscsee) },
    build: Opener(open),
};

/// Detection: 8 space-separated fields, a one-letter action 2nd, `read`/`write`/`discard` 3rd.
fn sniff_wiscsee(s: &Sample) -> bool {
    let (tok, n) = detect::spaced(s.first());
    n == 8 && tok[1].len() == 1 && matches!(tok[2], b"read" | b"write" | b"discard")
}

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, WiscSee))
}

struct WiscSee;

impl LineFormat for WiscSee {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let [pid, action, op, offset, size, time, _delta, sync] = at.fields::<8>(line, Sep::Space)?;
        at.uint("pid", pid)?;
        match action {
            b"D" => {}
            b"C" => return Ok(None),
            _ => return Err(at.err("action", format!("`{}` is not D or C", show(action)))),
        }
        let op = match op {
            b"read" => Op::Read,
            b"write" => Op::Write,
            b"discard" => Op::Trim,
            _ => return Err(at.err("op", format!("`{}` is not read, write or discard", show(op)))),
        };
        let range = (at.uint("offset", offset)?, at.uint("size", size)?);
        let time_ns = at.time("time", time, 1_000_000_000)?;
        if !(is(sync, "True") || is(sync, "False")) {
            return Err(at.err("sync", format!("`{}` is not True or False", show(sync))));
        }
        at.record(time_ns, op, range, "size", None).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Record>, Error> {
        WiscSee.parse(line.as_bytes(), &Ctx { file: "events.txt", line: 2 })
    }

    #[test]
    fn dispatch_lines_are_requests() {
        let rec = parse("35181 D read 136327168 4096 0.000003021 3.021e-06 False").expect("ok").expect("rec");
        assert_eq!(
            rec,
            Record {
                time_ns: 3021,
                op: Op::Read,
                offset: 136_327_168,
                len: 4096,
                device: None,
                placement: None,
                file: None
            }
        );
        let rec = parse("1386 D discard 136314880 4096 0.439239477 4.43e-06 False").expect("ok").expect("rec");
        assert_eq!(rec.op, Op::Trim);
        assert_eq!(parse("0 C read 299008 4096 0.000122793 0.000122793 False").expect("ok"), None);
    }

    #[test]
    fn malformed_lines_are_errors() {
        for (line, want) in [
            ("1 D flush 0 4096 0.1 0 False", "field `op`"),
            ("1 X read 0 4096 0.1 0 False", "field `action`"),
            ("1 D read 0 4096 0.1 0 Maybe", "field `sync`"),
            ("1 D read 0 4096 0.1 0", "expected 8"),
        ] {
            let msg = parse(line).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("events.txt:2") && msg.contains(want), "{line}: {msg}");
        }
    }
}
