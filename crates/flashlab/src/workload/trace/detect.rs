//! Trace format detection from the file name and the first lines. Owns the sniffing rules.
//!
//! Rules, in order (compression suffixes are looked through: `x.vscsi.gz` is a `.vscsi` file and
//! its decompressed lines are sniffed):
//! 1. extension `.vscsi` → `vscsi` (binary; the only format detected by name alone).
//! 2. first non-blank line is a header: `fio version 2|3 iolog` → `fio`;
//!    `version,time,op,size,lbn` → `cloudphysics`; `Timestamp,Response,IOType,LUN,Offset,Size`
//!    → `systor`; comma-separated names from flashlab's CSV columns including op, offset and size
//!    → `csv`.
//! 3. first token `major,minor` (digits,digits) followed by at least 6 more tokens → `blkparse`.
//! 4. comma-separated: 7 fields with `Read`/`Write` 4th → `msr`; 5 fields with `r`/`w` 4th →
//!    `spc`; 5 integer fields with `0`/`1` 4th → `tencent`.
//! 5. space-separated: 8 fields with `D`/`C` 2nd and `read`/`write`/`discard` 3rd → `wiscsee`;
//!    `#` header lines (one in the captures; any number the sample holds) followed by 4 fields
//!    `number R|W integer integer` → `blkrq`.
//! 6. space-separated, 5 numeric fields (DiskSim, MQSim and SSDsim all look like this; the
//!    documented tie-break): a decimal point in any sampled time → `disksim` (DiskSim times are
//!    fractional ms); else extension `.ascii` (SSDsim's convention) → `ssdsim`; else `mqsim`
//!    (integer ns). `--format` / `format = ...` overrides detection; the error says so too.
//!
//! Anything else is an error that lists the valid formats.

use std::path::Path;

use super::input::{inner_extension, Input};
use super::lines::{is, parse_u64, split, trim, Lines, Sep};
use super::{at_file, format_names};
use crate::error::Error;

/// How many non-blank lines are sniffed.
const SAMPLE_LINES: usize = 16;

/// Detect the format of a trace file; see the module comment for the rules.
pub fn detect_format(path: &Path) -> Result<&'static str, Error> {
    let ext = inner_extension(path);
    if ext == "vscsi" {
        return Ok("vscsi");
    }
    let input = Input::open(path)?;
    let mut lines = Lines::new(input.name, input.reader);
    let mut sample: Vec<Vec<u8>> = Vec::with_capacity(SAMPLE_LINES);
    while sample.len() < SAMPLE_LINES && lines.advance()? {
        sample.push(lines.line().to_vec());
    }
    sniff(&sample, &ext).map_err(|why| {
        let msg = format!(
            "cannot detect the trace format ({why}); name it with --format or `format = \"...\"` in [workload]; valid formats: {}",
            format_names().join(", ")
        );
        Error::input(at_file(&path.display().to_string()), msg)
    })
}

/// Pick a format from the first non-blank lines and the inner file extension.
fn sniff(sample: &[Vec<u8>], ext: &str) -> Result<&'static str, String> {
    let first = sample.first().ok_or("the file has no non-blank line")?;
    if first.contains(&0) || std::str::from_utf8(first).is_err() {
        return Err("the first line is binary data (binary VSCSI traces need the .vscsi extension)".into());
    }
    if first.first() == Some(&b'#')
        && sample.iter().find(|l| l.first() != Some(&b'#')).is_some_and(|l| is_blkrq_record(l))
    {
        return Ok("blkrq");
    }
    if let Some(name) = header(first) {
        return Ok(name);
    }
    let (tok, count) = split::<8>(first, Sep::Space);
    if count >= 7 && is_dev(tok[0]) {
        return Ok("blkparse");
    }
    let (f, commas) = split::<7>(first, Sep::Comma);
    match commas {
        7 if is(f[3], "Read") || is(f[3], "Write") => return Ok("msr"),
        5 if matches!(trim(f[3]), b"r" | b"R" | b"w" | b"W") => return Ok("spc"),
        5 if matches!(trim(f[3]), b"0" | b"1") && f[..5].iter().all(|x| number(trim(x))) => return Ok("tencent"),
        _ => {}
    }
    if count == 8 && tok[1].len() == 1 && matches!(tok[2], b"read" | b"write" | b"discard") {
        return Ok("wiscsee");
    }
    if count == 5 && tok[..5].iter().all(|t| number(t)) {
        return Ok(ascii_dialect(sample, ext));
    }
    Err(format!("the first line `{}` matches no known layout", super::lines::show(first)))
}

/// Formats recognised by a header line.
fn header(first: &[u8]) -> Option<&'static str> {
    let line = trim(first);
    if line.starts_with(b"fio version 2 iolog") || line.starts_with(b"fio version 3 iolog") {
        return Some("fio");
    }
    if line.eq_ignore_ascii_case(b"version,time,op,size,lbn") {
        return Some("cloudphysics");
    }
    if line.eq_ignore_ascii_case(b"Timestamp,Response,IOType,LUN,Offset,Size") {
        return Some("systor");
    }
    let names = ["op", "offset", "size", "time_ns", "time_us", "time_ms", "time_s", "device"];
    let all_known = line.split(|&b| b == b',').all(|n| names.iter().any(|k| is(n, k)));
    let has = |k: &str| line.split(|&b| b == b',').any(|n| is(n, k));
    (all_known && has("op") && has("offset") && has("size")).then_some("csv")
}

/// `time_us R|W offset length`, as the `block_rq_issue` captures write them.
fn is_blkrq_record(line: &[u8]) -> bool {
    let (t, n) = split::<5>(line, Sep::Space);
    n == 4 && number(t[0]) && matches!(t[1], b"R" | b"W") && parse_u64(t[2]).is_some() && parse_u64(t[3]).is_some()
}

/// `digits,digits`.
fn is_dev(tok: &[u8]) -> bool {
    let mut parts = tok.splitn(2, |&b| b == b',');
    let major = parts.next().and_then(parse_u64);
    let minor = parts.next().and_then(parse_u64);
    major.is_some() && minor.is_some()
}

/// Digits with at most one decimal point (or hex digits, for DiskSim flags).
fn number(tok: &[u8]) -> bool {
    let dots = tok.iter().filter(|&&b| b == b'.').count();
    !tok.is_empty() && dots <= 1 && tok.iter().all(|b| b.is_ascii_hexdigit() || *b == b'.')
}

/// The DiskSim / SSDsim / MQSim tie-break.
fn ascii_dialect(sample: &[Vec<u8>], ext: &str) -> &'static str {
    let fractional = sample.iter().any(|l| split::<1>(l, Sep::Space).0[0].contains(&b'.'));
    if fractional {
        "disksim"
    } else if ext == "ascii" {
        "ssdsim"
    } else {
        "mqsim"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(lines: &[&str], ext: &str) -> Result<&'static str, String> {
        let sample: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
        sniff(&sample, ext)
    }

    #[test]
    fn every_layout_is_recognised() {
        let cases: &[(&[&str], &str, &str)] = &[
            (&["fio version 3 iolog", "0 /dev/sda add"], "", "fio"),
            (&["version,time,op,size,lbn"], "csv", "cloudphysics"),
            (&["Timestamp,Response,IOType,LUN,Offset,Size"], "csv", "systor"),
            (&["time_ns,op,offset,size"], "csv", "csv"),
            (&["  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]"], "", "blkparse"),
            (&["128166385295514663,hm,0,Write,9056014336,2048,2833"], "csv", "msr"),
            (&["0,303567,3584,w,0.0"], "spc", "spc"),
            (&["1538323200,4247200,128,1,1058"], "", "tencent"),
            (&["39949 D read 299008 4096 0.000000000 0 False"], "txt", "wiscsee"),
            (&["0 5 174224064 16 1", "0.221 5 162947904 16 1"], "", "disksim"),
            (&["0 0 303567 7 0"], "ascii", "ssdsim"),
            (&["938513000 4 264719034 16 0"], "trace", "mqsim"),
            (&["# tpcc_mdb_w10: TPC-C ... | dropped flush/empty=437235", "25124 W 6583328768 4096"], "txt", "blkrq"),
            (&["# header", "# more header", "0.5 R 0 512"], "", "blkrq"),
        ];
        for (lines, ext, want) in cases {
            assert_eq!(check(lines, ext), Ok(*want), "{lines:?}");
        }
    }

    #[test]
    fn unknown_layouts_are_errors() {
        assert!(check(&[], "").is_err());
        assert!(check(&["hello world"], "").is_err());
        assert!(check(&["\u{0}\u{1}binary"], "").unwrap_err().contains("binary"));
        assert!(check(&["op,offset"], "").is_err());
        assert!(check(&["# a comment", "hello world"], "").is_err(), "a header alone is not a blkrq trace");
        assert!(check(&["# a comment", "# another"], "").is_err(), "nothing but `#` lines");
        assert!(check(&["25124 W 6583328768 4096"], "").is_err(), "the captures' records come after a `#` header");
    }
}
