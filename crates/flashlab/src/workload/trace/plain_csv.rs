//! flashlab's own plain CSV trace format (registry name `csv`), for traces converted by hand or by
//! script. Owns the header and one line. This comment is the format's documentation.
//!
//! The first non-blank line is a header naming the columns, in any order, case-insensitive:
//! - `op` (required): `R`/`read`, `W`/`write`, `T`/`trim` (case-insensitive), and for a zoned
//!   device (`ftl.mapping = "zns"`, replayed through `host.layer = "passthrough"`) the zone
//!   commands `A`/`append` (zone append: the offset is the zone's first byte, the pages go at its
//!   write pointer), `ZF`/`finish` and `ZR`/`reset` (the byte range covers whole zones). The
//!   device refuses what a ZNS drive refuses (an append not naming a zone start or crossing the
//!   zone's end, a finish or reset of part of a zone), and a conventional device refuses them
//!   all, as errors naming the line.
//! - `offset` (required): byte offset. `size` (required): bytes, > 0.
//! - at most one time column: `time_ns`, `time_us`, `time_ms` or `time_s` (decimal allowed);
//!   without one, every request is at time 0.
//! - `device` (optional): integer; the `device` filter needs this column.
//! - `placement` (optional): the request's placement identifier (an NVMe FDP placement handle or
//!   a stream id), an integer from 0 to 65535; an empty field means none (the device's default
//!   handle), so a trace may tag only some writes. Reads and trims may carry one too; the
//!   device ignores it for them. Anything else (negative, above 65535, not an integer) is an
//!   error naming the line and the field.
//! - `file` (optional): the file the request belongs to, an integer from 0 to 4294967295 (an
//!   inode number, or any id the converting script gives each file); an empty field means
//!   none. The host placement policy `file` places writes by it; nothing else reads it.
//!
//! Fields are separated by commas with no quoting; spaces around a field are ignored. Any other
//! column name, a repeated column, or a line with a different number of fields than the header is
//! an error. Example:
//! ```text
//! time_us,op,offset,size,device,placement,file
//! 0,W,0,4096,0,3,12
//! 15.5,R,8192,16384,1,,
//! ```

use super::input::Input;
use super::lines::{is, show, split, trim, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "csv",
    about: "flashlab plain CSV with a header: op(R/W/T; zone A/ZF/ZR),offset(B),size(B)[,time_ns|time_us|time_ms|time_s][,device][,placement(0-65535)][,file]",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: Some("device"), time_unit_override: false, detect: Detect::Sniff(sniff_csv) },
    build: Opener(open),
};

/// Detection: a header of comma-separated column names, all of them flashlab's, including op,
/// offset and size.
fn sniff_csv(s: &Sample) -> bool {
    let line = trim(s.first());
    let names = ["op", "offset", "size", "time_ns", "time_us", "time_ms", "time_s", "device", "placement", "file"];
    let all_known = line.split(|&b| b == b',').all(|n| names.iter().any(|k| is(n, k)));
    let has = |k: &str| line.split(|&b| b == b',').any(|n| is(n, k));
    all_known && has("op") && has("offset") && has("size")
}

/// Most columns a header may name (op, offset, size, one time column, device, placement, file).
const MAX_COLUMNS: usize = 7;

const NAMES: &str = "op, offset, size, time_ns, time_us, time_ms, time_s, device, placement, file";

fn open(input: Input, settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, PlainCsv { columns: None, filter: settings.device.is_some() }))
}

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Col {
    Op,
    Offset,
    Size,
    /// A time column in units of this many ns.
    Time(u64),
    Device,
    Placement,
    File,
}

impl Col {
    fn from_name(name: &[u8]) -> Option<Col> {
        let cols = [
            ("op", Col::Op),
            ("offset", Col::Offset),
            ("size", Col::Size),
            ("time_ns", Col::Time(1)),
            ("time_us", Col::Time(1_000)),
            ("time_ms", Col::Time(1_000_000)),
            ("time_s", Col::Time(1_000_000_000)),
            ("device", Col::Device),
            ("placement", Col::Placement),
            ("file", Col::File),
        ];
        cols.into_iter().find(|(n, _)| is(name, n)).map(|(_, c)| c)
    }

    /// Columns that may appear only once together (all time columns are one kind).
    fn same_kind(self, other: Col) -> bool {
        matches!((self, other), (Col::Time(_), Col::Time(_))) || self == other
    }
}

struct PlainCsv {
    /// The header's columns, once read.
    columns: Option<([Col; MAX_COLUMNS], usize)>,
    /// Whether a `device` filter is set (then the header must have a device column).
    filter: bool,
}

impl PlainCsv {
    fn header(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let mut cols = [Col::Op; MAX_COLUMNS];
        let mut n = 0;
        for name in line.split(|&b| b == b',') {
            let col = Col::from_name(name)
                .ok_or_else(|| at.err("header", format!("unknown column `{}`; valid: {NAMES}", show(trim(name)))))?;
            if cols[..n].iter().any(|c| c.same_kind(col)) {
                return Err(at.err(
                    "header",
                    format!("column `{}` repeats a column (or a second time column)", show(trim(name))),
                ));
            }
            cols[n] = col; // n < MAX_COLUMNS: there are only MAX_COLUMNS distinct kinds
            n += 1;
        }
        for (need, name) in [(Col::Op, "op"), (Col::Offset, "offset"), (Col::Size, "size")] {
            if !cols[..n].contains(&need) {
                return Err(at.err(
                    "header",
                    format!("missing required column `{name}` (the first line must name the columns: {NAMES})"),
                ));
            }
        }
        if self.filter && !cols[..n].contains(&Col::Device) {
            return Err(at.err("header", "a device filter is set but the header has no `device` column"));
        }
        self.columns = Some((cols, n));
        Ok(None)
    }
}

fn parse_op(s: &[u8], at: &Ctx) -> Result<Op, Error> {
    let ops = [
        ("r", Op::Read),
        ("read", Op::Read),
        ("w", Op::Write),
        ("write", Op::Write),
        ("t", Op::Trim),
        ("trim", Op::Trim),
        ("a", Op::ZoneAppend),
        ("append", Op::ZoneAppend),
        ("zf", Op::ZoneFinish),
        ("finish", Op::ZoneFinish),
        ("zr", Op::ZoneReset),
        ("reset", Op::ZoneReset),
    ];
    ops.into_iter().find(|(n, _)| is(s, n)).map(|(_, op)| op).ok_or_else(|| {
        at.err("op", format!("`{}` is not R, W, T, A, ZF, ZR, read, write, trim, append, finish or reset", show(s)))
    })
}

impl LineFormat for PlainCsv {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let Some((cols, n)) = self.columns else {
            return self.header(line, at);
        };
        let (fields, count) = split::<MAX_COLUMNS>(line, Sep::Comma);
        if count != n {
            return Err(at.err_line(format!("expected {n} comma-separated fields (as in the header), found {count}")));
        }
        let (mut op, mut offset, mut len, mut time_ns, mut device, mut placement) = (Op::Read, 0, 0, 0, None, None);
        let mut file = None;
        for (col, field) in cols[..n].iter().zip(fields) {
            match *col {
                Col::Op => op = parse_op(field, at)?,
                Col::Offset => offset = at.uint("offset", field)?,
                Col::Size => len = at.uint("size", field)?,
                Col::Time(unit) => time_ns = at.time("time", field, unit)?,
                Col::Device => device = Some(at.uint("device", field)?),
                // An empty field: no placement for this request.
                Col::Placement if trim(field).is_empty() => placement = None,
                Col::Placement => placement = Some(at.placement("placement", field)?),
                Col::File if trim(field).is_empty() => file = None,
                Col::File => {
                    let id = at.uint("file", field)?;
                    file = Some(u32::try_from(id).map_err(|_| {
                        at.err("file", format!("{id} is more than 4294967295, the largest file identifier"))
                    })?);
                }
            }
        }
        let rec = at.record(time_ns, op, (offset, len), "size", device)?;
        Ok(Some(Record { placement, file, ..rec }))
    }

    fn finish(&mut self, at: &Ctx) -> Result<(), Error> {
        match self.columns {
            None => Err(at.err("header", format!("empty file: expected a header naming the columns ({NAMES})"))),
            Some(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, filter: bool) -> Result<Vec<Record>, Error> {
        crate::workload::trace::lines::parse_text(&mut PlainCsv { columns: None, filter }, text, "t.csv")
    }

    #[test]
    fn columns_in_any_order() {
        let recs = run("size, OP ,offset,time_us,device\n4096,W,0,1.5,3\n512,trim,512,2,4", false).expect("valid");
        assert_eq!(
            recs[0],
            Record { time_ns: 1500, op: Op::Write, offset: 0, len: 4096, device: Some(3), placement: None, file: None }
        );
        assert_eq!((recs[1].op, recs[1].time_ns), (Op::Trim, 2000));
        let recs = run("op,offset,size\nr,0,1", false).expect("valid");
        assert_eq!(
            recs[0],
            Record { time_ns: 0, op: Op::Read, offset: 0, len: 1, device: None, placement: None, file: None }
        );
    }

    #[test]
    fn bad_headers_and_lines_are_errors() {
        for (text, filter, want) in [
            ("op,offset,size,offest\n", false, "unknown column `offest`"),
            ("op,offset,size,time_ns,time_s\n", false, "repeats"),
            ("op,offset\n", false, "missing required column `size`"),
            ("op,offset,size\n", true, "no `device` column"),
            ("op,offset,size\nW,0", false, "expected 3"),
            ("op,offset,size\nX,0,1", false, "field `op`"),
            ("op,offset,size\nW,0,0", false, "field `size`"),
            ("op,offset,size,placement,PLACEMENT\n", false, "repeats"),
            ("op,offset,size,placement\nW,0,1,1\nW,0,1", false, "t.csv:3: expected 4"),
            ("", false, "empty file"),
        ] {
            let msg = run(text, filter).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("t.csv:") && msg.contains(want), "{text}: {msg}");
        }
    }

    #[test]
    fn placement_column_is_optional_and_may_be_empty() {
        let text = "op,offset,size,Placement\nW,0,4096,7\nW,4096,4096,\nW,8192,4096, 65535 \nR,0,512,0\n";
        let recs = run(text, false).expect("valid");
        let got: Vec<Option<u16>> = recs.iter().map(|r| r.placement).collect();
        assert_eq!(got, [Some(7), None, Some(u16::MAX), Some(0)]);
        assert_eq!(
            recs[0],
            Record { time_ns: 0, op: Op::Write, offset: 0, len: 4096, device: None, placement: Some(7), file: None }
        );
        let lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
        assert!(sniff_csv(&Sample { lines: &lines, ext: "csv" }), "a placement column is still csv");
        let all = run("placement,device,time_ns,size,offset,op\n1,2,3,4,5,w", false).expect("every column");
        assert_eq!(
            all[0],
            Record { time_ns: 3, op: Op::Write, offset: 5, len: 4, device: Some(2), placement: Some(1), file: None }
        );
    }

    #[test]
    fn file_column_and_zone_commands() {
        let text =
            "op,offset,size,file\nW,0,4096,12\nW,4096,4096,\nA,0,8192, 4294967295 \nzf,0,131072,\nReset,0,131072,3\n";
        let recs = run(text, false).expect("valid");
        let got: Vec<(Op, Option<u32>)> = recs.iter().map(|r| (r.op, r.file)).collect();
        assert_eq!(
            got,
            [
                (Op::Write, Some(12)),
                (Op::Write, None),
                (Op::ZoneAppend, Some(u32::MAX)),
                (Op::ZoneFinish, None),
                (Op::ZoneReset, Some(3))
            ]
        );
        let lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
        assert!(sniff_csv(&Sample { lines: &lines, ext: "csv" }), "a file column is still csv");
        for (value, want) in [("4294967296", "4294967296 is more than 4294967295"), ("-1", "`-1`"), ("x", "`x`")] {
            let text = format!("op,offset,size,file\nW,0,4096,1\nW,0,4096,{value}\n");
            let msg = run(&text, false).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.starts_with("t.csv:3: field `file`: ") && msg.contains(want), "{value}: {msg}");
        }
        let msg = run("op,offset,size\nZ,0,4096\n", false).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("t.csv:2: field `op`: `Z` is not R, W, T, A, ZF, ZR"), "{msg}");
    }

    #[test]
    fn bad_placement_names_file_line_and_field() {
        for (value, want) in [
            ("-1", "`-1` is not a placement identifier"),
            ("65536", "65536 is more than 65535"),
            ("99999999999999999999999", "is not a placement identifier"),
            ("x", "`x` is not a placement identifier"),
            ("1.0", "`1.0` is not"),
        ] {
            let text = format!("op,offset,size,placement\nW,0,4096,1\nW,0,4096,{value}\n");
            let msg = run(&text, false).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.starts_with("t.csv:3: field `placement`: ") && msg.contains(want), "{value}: {msg}");
        }
    }
}
