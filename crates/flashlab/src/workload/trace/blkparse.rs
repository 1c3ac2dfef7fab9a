//! Linux `blkparse` default text output (blktrace, Jens Axboe). Owns parsing of one line.
//!
//! Every event line starts with the header `maj,min cpu seq sec.nsec pid action rwbs`
//! (`"%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s "` in blkparse_fmt.c), followed for D (issue) events
//! by `sector + count [process]`, e.g.
//! `  8,0    3        1     0.000000000   697  D   W 223490 + 8 [kjournald]`.
//! Documented in blkparse(1) ("Default output") and blkparse_fmt.c `process_default`.
//!
//! What is used: only **D** (dispatch to the driver) events, the moment the device sees the
//! request; Q/G/I/M/C/... events describe the same I/O at other layers and are skipped, as are
//! `m` messages and `A` remaps. There is deliberately no fallback to Q when a file has no D
//! events. rwbs: contains `D` → trim (discard), else `W` → write, else `R` → read.
//! Sectors are 512 bytes. Device (`device` filter): the kernel's dev_t, `major << 20 | minor`
//! (e.g. `8,16` → 8388624).
//!
//! Lines skipped on purpose:
//! - lines whose first token does not start with a digit: the summary blkparse prints at the end
//!   (`CPU0 (8,0):`, `Total (8,0):`, ` Reads Queued: ...`, `Throughput ...`, `Events ...`,
//!   `Skips ...`) and per-process statistics; none of them is an event.
//! - events other than D.
//! - D events that move no data: no `sector + count` at all, or `+ 0` (flush / barrier /
//!   preflush requests), and SCSI pass-through D events (`bytes (cdb) [process]`), which carry no
//!   sector address.
//!
//! A line whose first token starts with a digit is an event, and any malformation in it (bad
//! `maj,min`, too few fields, non-numeric cpu/seq/time/pid; for D events also an rwbs with
//! unknown letters or a missing `[process]`) is an error.

use super::detect;
use super::input::Input;
use super::lines::{parse_u64, show, split, Ctx, LineFormat, LineSource, Sep, SECTOR_BYTES};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "blkparse",
    about:
        "blkparse default text output; D (dispatch) events: maj,min cpu seq time(s) pid D rwbs sector + count [process]",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("dev"), time_unit_override: false, detect: Detect::Sniff(sniff_blkparse) },
    build: Opener(open),
};

/// Detection: a `major,minor` device first, then at least 6 more space-separated fields.
fn sniff_blkparse(s: &Sample) -> bool {
    let (tok, n) = detect::spaced(s.first());
    n >= 7 && detect::is_dev(tok[0])
}

/// Bits of dev_t below the major number (Linux kernel `MINORBITS`).
const MINOR_BITS: u32 = 20;

/// A device number as blkparse prints it: `major,minor`.
pub fn show_dev(dev: u64) -> String {
    format!("{},{}", dev >> MINOR_BITS, dev & ((1 << MINOR_BITS) - 1))
}

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Blkparse))
}

struct Blkparse;

impl LineFormat for Blkparse {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let (tok, count) = split::<11>(line, Sep::Space);
        if !tok[0].first().is_some_and(u8::is_ascii_digit) {
            return Ok(None); // summary / statistics text, not an event
        }
        let device = dev_t(tok[0]).ok_or_else(|| at.err("dev", format!("`{}` is not `major,minor`", show(tok[0]))))?;
        if count < 7 {
            return Err(at.err_line(format!("an event needs at least 7 space-separated fields, found {count}")));
        }
        at.uint("cpu", tok[1])?;
        at.uint("seq", tok[2])?;
        let time_ns = at.time("time", tok[3], 1_000_000_000)?;
        at.uint("pid", tok[4])?;
        if tok[5] != b"D" {
            return Ok(None); // only dispatch events are requests
        }
        let op = rwbs_op(tok[6]).map_err(|msg| at.err("rwbs", msg))?;
        let Some((sector, sectors)) = data_range(&tok, count, at)? else {
            return Ok(None); // flush, barrier or pass-through: no data moved
        };
        let Some(op) = op else {
            return Err(at.err(
                "rwbs",
                format!("`{}` has no data direction (R, W or D) but moves {sectors} sectors", show(tok[6])),
            ));
        };
        let offset = sector.checked_mul(SECTOR_BYTES).ok_or_else(|| at.err("sector", "sector overflows 64 bits"))?;
        let len = sectors.checked_mul(SECTOR_BYTES).ok_or_else(|| at.err("count", "count overflows 64 bits"))?;
        at.record(time_ns, op, (offset, len), "count", Some(device)).map(Some)
    }
}

/// `maj,min` → `major << 20 | minor`.
fn dev_t(s: &[u8]) -> Option<u64> {
    let comma = s.iter().position(|&b| b == b',')?;
    let (major, minor) = (parse_u64(&s[..comma])?, parse_u64(&s[comma + 1..])?);
    if minor >= 1 << MINOR_BITS || major >= 1 << (64 - MINOR_BITS) {
        return None;
    }
    Some(major << MINOR_BITS | minor)
}

/// The op an rwbs string names (`None` for `N`, no data), or why it is not an rwbs string.
fn rwbs_op(rwbs: &[u8]) -> Result<Option<Op>, String> {
    if rwbs.is_empty() || !rwbs.iter().all(|b| b"FDWRNASMEB".contains(b)) {
        return Err(format!("`{}` is not an rwbs field (letters F D W R N A S M E B)", show(rwbs)));
    }
    Ok(if rwbs.contains(&b'D') {
        Some(Op::Trim)
    } else if rwbs.contains(&b'W') {
        Some(Op::Write)
    } else if rwbs.contains(&b'R') {
        Some(Op::Read)
    } else {
        None
    })
}

/// The `sector + count` of a D event, `None` when the event moves no data.
fn data_range(tok: &[&[u8]; 11], count: usize, at: &Ctx) -> Result<Option<(u64, u64)>, Error> {
    let is_tail = |t: &[u8]| t.first().is_some_and(|b| *b == b'[' || *b == b'(');
    if count < 8 {
        return Err(at.err_line("a D event must end with `sector + count [process]` or `[process]`"));
    }
    if is_tail(tok[7]) {
        return Ok(None); // `[process]` only: a zero-length request (flush / barrier)
    }
    let first = at.uint("sector", tok[7])?;
    if count >= 9 && is_tail(tok[8]) {
        return Ok(None); // pass-through: `bytes (cdb) [process]`, no sector address
    }
    if count < 11 || tok[8] != b"+" || !is_tail(tok[10]) {
        return Err(at.err_line("a D event must end with `sector + count [process]`"));
    }
    let sectors = at.uint("count", tok[9])?;
    Ok((sectors > 0).then_some((first, sectors)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Record>, Error> {
        Blkparse.parse(line.as_bytes(), &Ctx { file: "sda.txt", line: 9 })
    }

    #[test]
    fn dispatch_events_become_requests() {
        let rec =
            parse("  8,0    3        1     0.000000000   697  D   W 223490 + 8 [kjournald]").expect("ok").expect("rec");
        assert_eq!(
            rec,
            Record {
                time_ns: 0,
                op: Op::Write,
                offset: 223_490 * 512,
                len: 4096,
                device: Some(8 << 20),
                placement: None,
                file: None
            }
        );
        let rec = parse("8,16 0 5 1.500000001 12 D RA 100 + 16 [cat]").expect("ok").expect("rec");
        assert_eq!((rec.op, rec.time_ns, rec.device), (Op::Read, 1_500_000_001, Some((8 << 20) | 16)));
        let rec = parse("259,0 1 2 0.1 1 D DS 0 + 2048 [fstrim]").expect("ok").expect("rec");
        assert_eq!((rec.op, rec.len), (Op::Trim, 2048 * 512));
    }

    #[test]
    fn non_io_lines_are_skipped() {
        for line in [
            "  8,0    3        2     0.000000100   697  Q   W 223490 + 8 [kjournald]",
            "  8,0    3        3     0.000000200   697  C   W 223490 + 8 [0]",
            "  8,0    3        4     0.000000300   697  D  FWS [jbd2/sda1-8]",
            "  8,0    3        5     0.000000400   697  D  WS 223490 + 0 [jbd2/sda1-8]",
            "  8,0    1        6     0.000000500  1234  D   R 36 (12 00 00 00 24 00) [sg_inq]",
            "  8,0    3        7     0.000000600   697  P   N [kjournald]",
            "  8,0    3        8     0.000000700   697  A   W 12912077 + 8 <- (8,2) 606224",
            "CPU0 (8,0):",
            " Reads Queued:           0,        0KiB\t Writes Queued:           5,       20KiB",
            "Total (8,0):",
            "Throughput (R/W): 0KiB/s / 40KiB/s",
            "Events (8,0): 56 entries",
        ] {
            assert_eq!(parse(line).expect(line), None, "{line}");
        }
    }

    #[test]
    fn malformed_events_are_errors() {
        for (line, want) in [
            ("8,0 3 1 0.0 697 D W 223490 + 8", "sector + count [process]"),
            ("8,0 3 1 0.0 697 D W 2234x0 + 8 [k]", "field `sector`"),
            ("8,0 3 1 0.0 697 D W 1 + x [k]", "field `count`"),
            ("8,0 3 1 zero 697 D W 1 + 8 [k]", "field `time`"),
            ("8,0 3 1 0.0 697 D Q 1 + 8 [k]", "field `rwbs`"),
            ("8,0 3 1 0.0 697 D N 1 + 8 [k]", "no data direction"),
            ("8.0 3 1 0.0 697 D W 1 + 8 [k]", "field `dev`"),
            ("8,0 3 1", "at least 7"),
        ] {
            let msg = parse(line).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("sda.txt:9") && msg.contains(want), "{line}: {msg}");
        }
    }
}
