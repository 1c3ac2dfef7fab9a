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
//! - A placement column (the request's placement identifier: an NVMe FDP placement handle or a
//!   stream id) must be declared, so that a tag in the fifth column never becomes a placement:
//!   a header line that begins with `# fields:` lists the columns, space-separated. The first
//!   four must be `time_us op offset_bytes length_bytes` (`op(R/W)`, as the captures' headers
//!   spell it, is accepted for `op`); after them, `placement` (at most once) names the placement
//!   column and `-` a column to ignore. A record must then have at least the declared columns
//!   (more are ignored, as without a declaration), and its placement is an integer from 0 to
//!   65535; anything else is an error naming the line and the field `placement`. Reads carry
//!   it too; the device ignores it for them. A second declaration, one that names an unknown
//!   field, lacks one of the four, or lists more than 16 columns is an error naming its line.
//!   The keyword and the names are case-insensitive. Without a declaration no request has a
//!   placement. Only a line that *begins* with `fields:` after its `#` declares: the captures'
//!   one-line headers, which begin with the capture's name and mention
//!   `fields: time_us op(R/W) …` or `columns: …` further on, stay plain header lines. Example
//!   (the tag column ignored):
//!
//! ```text
//! # oltp run on /dev/nvme0n1, FDP on
//! # fields: time_us op offset_bytes length_bytes - placement
//! 25124 W 6583328768 4096 17 2
//! 30699.5 R 4437733376 512 18 0
//! ```
//!
//! No device column, so no `device` filter; times are µs (no `time_unit` override).

use super::detect;
use super::input::Input;
use super::lines::{is, parse_u64, show, split, trim, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "blkrq",
    about: "block_rq_issue tracepoint text: `#` header line, then time_us op(R/W) offset_bytes length_bytes; a `# fields:` line may declare a placement column",
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
    Ok(LineSource::boxed(input, BlkRq::default()))
}

/// Most columns a `# fields:` line may declare.
const MAX_DECLARED: usize = 16;

/// The four columns every record starts with, as a declaration names them.
const REQUIRED: &str = "time_us op offset_bytes length_bytes";

#[derive(Default)]
struct BlkRq {
    records: u64,
    /// The `# fields:` declaration, once read.
    declared: Option<Declared>,
}

/// What a `# fields:` line declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Declared {
    /// Columns declared (4 to [`MAX_DECLARED`]); a record needs at least this many.
    columns: usize,
    /// 0-based index of the placement column (4 or later), if one was declared.
    placement: Option<usize>,
    /// Line of the declaration, for errors on records.
    line: u64,
}

/// The declaration a `#` line makes: `None` when it is not a `# fields:` line.
fn declaration(line: &[u8], at: &Ctx) -> Option<Result<Declared, Error>> {
    const KEYWORD: &[u8] = b"fields:";
    let rest = trim(line.strip_prefix(b"#")?);
    let declares = rest.get(..KEYWORD.len()).is_some_and(|k| k.eq_ignore_ascii_case(KEYWORD));
    declares.then(|| parse_declaration(&rest[KEYWORD.len()..], at))
}

fn parse_declaration(names: &[u8], at: &Ctx) -> Result<Declared, Error> {
    let bad = |msg: String| at.err_line(format!("`# fields:` declaration: {msg}"));
    let (fields, count) = split::<MAX_DECLARED>(names, Sep::Space);
    if count > MAX_DECLARED {
        return Err(bad(format!("{count} columns; at most {MAX_DECLARED} may be declared")));
    }
    let fields = &fields[..count];
    let required = [&["time_us"][..], &["op", "op(R/W)"], &["offset_bytes"], &["length_bytes"]];
    let starts_right = count >= 4 && required.iter().zip(fields).all(|(names, f)| names.iter().any(|n| is(f, n)));
    if !starts_right {
        let found: Vec<String> = fields.iter().take(4).map(|f| show(f)).collect();
        return Err(bad(format!("the first four columns must be `{REQUIRED}`, found `{}`", found.join(" "))));
    }
    let mut placement = None;
    for (i, f) in fields.iter().enumerate().skip(4) {
        match *f {
            b"-" => {}
            f if is(f, "placement") && placement.is_some() => return Err(bad("`placement` is declared twice".into())),
            f if is(f, "placement") => placement = Some(i),
            _ => {
                return Err(bad(format!(
                    "unknown field `{}`; after `{REQUIRED}` a column is `placement` or `-` (ignored)",
                    show(f)
                )))
            }
        }
    }
    Ok(Declared { columns: count, placement, line: at.line })
}

impl BlkRq {
    /// A `#` line: the capture's header, or the `# fields:` declaration.
    fn header(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        if self.records > 0 {
            return Err(at.err_line("a `#` header line after the first record (two traces pasted together?)"));
        }
        if let Some(declared) = declaration(line, at) {
            if let Some(first) = self.declared {
                return Err(at.err_line(format!("a second `# fields:` declaration (the first is line {})", first.line)));
            }
            self.declared = Some(declared?);
        }
        Ok(None)
    }

    /// The placement of a record under the declaration, if one names a placement column.
    fn placement(&self, line: &[u8], at: &Ctx) -> Result<Option<u16>, Error> {
        let Some(d) = self.declared else { return Ok(None) };
        let (fields, count) = split::<MAX_DECLARED>(line, Sep::Space);
        if count < d.columns {
            return Err(at.err_line(format!(
                "expected at least {} space-separated fields (as the `# fields:` line {} declares), found {count}",
                d.columns, d.line
            )));
        }
        d.placement.map(|i| at.placement("placement", fields[i])).transpose()
    }
}

impl LineFormat for BlkRq {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        if line.first() == Some(&b'#') {
            return self.header(line, at);
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
        let placement = self.placement(line, at)?;
        self.records += 1;
        let rec = at.record(time_ns, op, (offset, len), "length_bytes", None)?;
        Ok(Some(Record { placement, ..rec }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines::parse_text;
    use super::*;

    fn parse(text: &str) -> Result<Vec<Record>, Error> {
        parse_text(&mut BlkRq::default(), text, "t.blk.txt")
    }

    #[test]
    fn header_then_records() {
        let text = "# tpcc: ... | phase markers: load_start=0 run_start=5 | dropped flush/empty=3\n25124 W 6583328768 4096\n30699.5 R 4437733376 512\n";
        let recs = parse(text).unwrap();
        assert_eq!(
            recs,
            [
                Record {
                    time_ns: 25_124_000,
                    op: Op::Write,
                    offset: 6_583_328_768,
                    len: 4096,
                    device: None,
                    placement: None,
                    file: None
                },
                Record {
                    time_ns: 30_699_500,
                    op: Op::Read,
                    offset: 4_437_733_376,
                    len: 512,
                    device: None,
                    placement: None,
                    file: None
                },
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

    #[test]
    fn declared_placement_column() {
        let text = "# capture\n# fields: time_us op(R/W) offset_bytes length_bytes - placement\n\
                    25124 W 6583328768 4096 17 2\n30699.5 R 4437733376 512 18 65535 kworker/0:1\n";
        let recs = parse(text).unwrap();
        let want = [
            Record {
                time_ns: 25_124_000,
                op: Op::Write,
                offset: 6_583_328_768,
                len: 4096,
                device: None,
                placement: Some(2),
                file: None,
            },
            Record {
                time_ns: 30_699_500,
                op: Op::Read,
                offset: 4_437_733_376,
                len: 512,
                device: None,
                placement: Some(65_535),
                file: None,
            },
        ];
        assert_eq!(recs, want);
        let five = parse("#FIELDS: Time_us OP offset_bytes length_bytes Placement\n1 W 0 4096 0\n").unwrap();
        assert_eq!(five[0].placement, Some(0));
        // A declaration without `placement` only names the columns.
        let none = parse("# fields: time_us op offset_bytes length_bytes -\n1 W 0 4096 9\n").unwrap();
        assert_eq!(none[0].placement, None);
        let lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
        assert!(sniff_blkrq(&Sample { lines: &lines, ext: "txt" }), "a declaration is still blkrq");
    }

    #[test]
    fn the_captures_headers_declare_nothing() {
        // As in shared/traces/oltp and fs: `fields:` / `columns:` inside the one header line.
        for header in [
            "# tpcc_mdb_w10: TPC-C | run_start=5 | fields: time_us op(R/W) offset_bytes length_bytes | dropped flush/empty=3",
            "# bonnie_1g: bonnie++ 2.00a; columns: time_us op(R/W) offset_bytes length_bytes",
        ] {
            let recs = parse(&format!("{header}\n1 W 0 4096 7\n")).unwrap();
            assert_eq!(recs[0].placement, None, "{header}");
        }
    }

    #[test]
    fn bad_placement_or_declaration_names_the_line() {
        let decl = "# fields: time_us op offset_bytes length_bytes placement\n";
        for (text, want) in [
            (
                format!("{decl}1 W 0 4096 1\n1 W 0 4096 -1"),
                "t.blk.txt:3: field `placement`: `-1` is not a placement identifier",
            ),
            (format!("{decl}1 W 0 4096 65536"), "t.blk.txt:2: field `placement`: 65536 is more than 65535"),
            (format!("{decl}1 W 0 4096 x"), "t.blk.txt:2: field `placement`: `x` is not"),
            (
                format!("{decl}1 W 0 4096"),
                "t.blk.txt:2: expected at least 5 space-separated fields (as the `# fields:` line 1 declares), found 4",
            ),
            (format!("{decl}1 X 0 4096 1"), "t.blk.txt:2: field `op`"),
            (
                format!("# h\n{decl}{decl}1 W 0 4096 1"),
                "t.blk.txt:3: a second `# fields:` declaration (the first is line 2)",
            ),
            (
                "# fields: time_us op offset_bytes length_bytes stream\n1 W 0 4096 1".into(),
                "t.blk.txt:1: `# fields:` declaration: unknown field `stream`",
            ),
            (
                "# fields: time_us op offset_bytes length_bytes placement placement\n".into(),
                "t.blk.txt:1: `# fields:` declaration: `placement` is declared twice",
            ),
            (
                "# fields: time_us op offset_bytes\n1 W 0 4096".into(),
                "t.blk.txt:1: `# fields:` declaration: the first four columns must be",
            ),
            ("# fields: op time_us offset_bytes length_bytes\n".into(), "t.blk.txt:1: `# fields:` declaration: the first four columns must be `time_us op offset_bytes length_bytes`, found `op time_us offset_bytes length_bytes`"),
            ("# fields:\n".into(), "t.blk.txt:1: `# fields:` declaration: the first four columns"),
            (
                format!("# fields: {REQUIRED}{}\n", " -".repeat(13)),
                "t.blk.txt:1: `# fields:` declaration: 17 columns; at most 16",
            ),
        ] {
            let msg = parse(&text).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.starts_with(want), "{text:?}: {msg}");
        }
    }
}
