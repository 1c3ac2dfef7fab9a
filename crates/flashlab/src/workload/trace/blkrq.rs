//! Block-request traces captured with the Linux `block:block_rq_issue` tracepoint (registry name
//! `blkrq`): the format of the project's OLTP and file-system traces (`shared/traces/oltp`,
//! `shared/traces/fs`, and their `scripts/parse_trace.py` / `parse.py`). This comment is the
//! format's documentation.
//!
//! - Lines starting with `#` before the first record are the capture's header (what ran, phase
//!   markers such as `run_start=113449129`, dropped-request counts) and carry no request; a `#`
//!   line after a record is an error (two traces pasted together, most likely).
//! - Every other line is one request issued to the device, 4 space-separated fields:
//!   `time_us op offset_bytes length_bytes` — issue time in µs since the capture started
//!   (decimal allowed), `R` or `W`, byte offset, length in bytes (> 0; any multiple of the
//!   device's 512-byte sector, so partial 4 KiB pages occur).
//! - Columns after the fourth (a capture that also logs the request's `tag`, its process or
//!   its flags) are ignored; a line with fewer than four fields is an error.
//!
//! No device column, so no `device` filter; times are µs (no `time_unit` override).

use super::detect;
use super::input::Input;
use super::lines::{parse_u64, show, split, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "blkrq",
    about: "block_rq_issue tracepoint text: `#` header line, then time_us op(R/W) offset_bytes length_bytes",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: None, time_unit_override: false, detect: Detect::Sniff(sniff_blkrq) },
    build: Opener(open),
};

/// Detection: `#` header lines (one in the captures; any number the sample holds), then a record
/// `time_us R|W offset length`.
fn sniff_blkrq(s: &Sample) -> bool {
    s.first().first() == Some(&b'#') && s.lines.iter().find(|l| l.first() != Some(&b'#')).is_some_and(|l| record(l))
}

/// `time_us R|W offset length [more columns]`, as the `block_rq_issue` captures write them.
fn record(line: &[u8]) -> bool {
    let (t, n) = split::<4>(line, Sep::Space);
    n >= 4
        && detect::number(t[0])
        && matches!(t[1], b"R" | b"W")
        && parse_u64(t[2]).is_some()
        && parse_u64(t[3]).is_some()
}

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, BlkRq { records: 0 }))
}

struct BlkRq {
    records: u64,
}

impl LineFormat for BlkRq {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        if line.first() == Some(&b'#') {
            if self.records > 0 {
                return Err(at.err_line("a `#` header line after the first record (two traces pasted together?)"));
            }
            return Ok(None);
        }
        let [time, op, offset, len] = at.leading_fields::<4>(line, Sep::Space)?;
        let time_ns = at.time("time_us", time, 1_000)?;
        let op = match op {
            b"R" => Op::Read,
            b"W" => Op::Write,
            _ => return Err(at.err("op", format!("`{}` is not R or W", show(op)))),
        };
        let offset = at.uint("offset_bytes", offset)?;
        let len = at.uint("length_bytes", len)?;
        self.records += 1;
        at.record(time_ns, op, (offset, len), "length_bytes", None).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines::parse_text;
    use super::*;

    fn parse(text: &str) -> Result<Vec<Record>, Error> {
        parse_text(&mut BlkRq { records: 0 }, text, "t.blk.txt")
    }

    #[test]
    fn header_then_records() {
        let text = "# tpcc: ... | phase markers: load_start=0 run_start=5 | dropped flush/empty=3\n25124 W 6583328768 4096\n30699.5 R 4437733376 512\n";
        let recs = parse(text).unwrap();
        assert_eq!(
            recs,
            [
                Record { time_ns: 25_124_000, op: Op::Write, offset: 6_583_328_768, len: 4096, device: None, placement: None },
                Record { time_ns: 30_699_500, op: Op::Read, offset: 4_437_733_376, len: 512, device: None, placement: None },
            ]
        );
    }

    #[test]
    fn trailing_columns_are_ignored() {
        let four = "# capture\n25124 W 6583328768 4096\n30699.5 R 4437733376 512\n";
        let five = "# capture\n25124 W 6583328768 4096 17\n30699.5 R 4437733376 512 3 kworker\n";
        assert_eq!(parse(five).unwrap(), parse(four).unwrap());
        let lines: Vec<Vec<u8>> = five.lines().map(|l| l.as_bytes().to_vec()).collect();
        assert!(sniff_blkrq(&Sample { lines: &lines, ext: "txt" }), "a fifth column is still blkrq");
    }

    #[test]
    fn malformed_lines_name_the_field() {
        for (text, want) in [
            ("1 X 0 4096", "t.blk.txt:1: field `op`"),
            ("1 W 0 0", "t.blk.txt:1: field `length_bytes`"),
            ("1 W -5 4096", "t.blk.txt:1: field `offset_bytes`"),
            ("x W 0 4096", "t.blk.txt:1: field `time_us`"),
            ("1 W 0", "expected at least 4 space-separated fields, found 3"),
            ("# h\n1 W 0 4096\n# again", "t.blk.txt:3"),
        ] {
            let msg = parse(text).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains(want), "{text:?}: {msg}");
        }
    }
}
