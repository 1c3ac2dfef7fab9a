//! Trace format detection from the file name and the first lines. Each format's rule lives in
//! its own file, named by its registry entry (`caps.detect`); this module reads the sample and
//! asks every rule. The rules exclude one another (a test holds every layout below to exactly
//! one match), so adding a format is its file and its registry line, with no order to keep.
//!
//! Rules (compression suffixes are looked through: `x.vscsi.gz` is a `.vscsi` file and its
//! decompressed lines are sniffed):
//! - by extension: `.vscsi` → `vscsi` (binary; the only format detected by name alone).
//! - header lines: `fio version 2|3 iolog` → `fio`; `version,time,op,size,lbn` →
//!   `cloudphysics`; `Timestamp,Response,IOType,LUN,Offset,Size` → `systor`; comma-separated
//!   names from flashlab's CSV columns including op, offset and size → `csv`.
//! - first token `major,minor` (digits,digits) followed by at least 6 more tokens → `blkparse`.
//! - comma-separated: 7 fields with `Read`/`Write` 4th → `msr`; 5 fields with `r`/`w` 4th →
//!   `spc`; 5 integer fields with `0`/`1` 4th → `tencent`.
//! - space-separated: 8 fields with a one-letter 2nd and `read`/`write`/`discard` 3rd →
//!   `wiscsee`; `#` header lines (one in the captures; any number the sample holds) followed by
//!   4 fields `number R|W integer integer` → `blkrq`.
//! - space-separated, 5 numeric fields (DiskSim, MQSim and SSDsim all look like this; the
//!   documented tie-break): a decimal point in any sampled time → `disksim` (DiskSim times are
//!   fractional ms); else extension `.ascii` (SSDsim's convention) → `ssdsim`; else `mqsim`
//!   (integer ns). `--format` / `format = ...` overrides detection; the error says so too.
//!
//! No rule matching is an error that lists the valid formats; two matching (a rule that fails
//! to exclude another) is an error naming both.

use std::path::Path;

use super::input::{inner_extension, Input};
use super::lines::{parse_u64, split, Lines, Sep};
use super::{at_file, format_names, FORMATS};
use crate::error::Error;

/// How many non-blank lines are sniffed.
const SAMPLE_LINES: usize = 16;

/// How detection recognises a format (a registry entry's `caps.detect`).
#[derive(Clone, Copy)]
pub enum Detect {
    /// By the inner file extension alone (binary formats): `x.vscsi.gz` is a `.vscsi` file.
    Extension(&'static str),
    /// By the first non-blank lines (and the inner extension, for tie-breaks). Every format's
    /// rule excludes the others' (a test holds them to it), so the registry order is not a
    /// priority.
    Sniff(fn(&Sample) -> bool),
}

/// What detection reads of a text trace.
pub struct Sample<'a> {
    /// The first non-blank lines (up to 16), without line ends.
    pub lines: &'a [Vec<u8>],
    /// The extension inside any compression suffix (`hm_0.csv.gz` → `csv`).
    pub ext: &'a str,
}

impl Sample<'_> {
    /// The first non-blank line (a sample is never empty when sniffed).
    pub fn first(&self) -> &[u8] {
        self.lines.first().map_or(&[], Vec::as_slice)
    }
}

/// Detect the format of a trace file; see the module comment for the rules.
pub fn detect_format(path: &Path) -> Result<&'static str, Error> {
    let ext = inner_extension(path);
    if let Some(f) = FORMATS.iter().find(|f| matches!(f.caps.detect, Detect::Extension(e) if e == ext)) {
        return Ok(f.name);
    }
    let input = Input::open(path)?;
    let mut lines = Lines::new(input.name, input.reader);
    let mut sample: Vec<Vec<u8>> = Vec::with_capacity(SAMPLE_LINES);
    while sample.len() < SAMPLE_LINES && lines.advance()? {
        sample.push(lines.line().to_vec());
    }
    sniff(&Sample { lines: &sample, ext: &ext }).map_err(|why| {
        let msg = format!(
            "cannot detect the trace format ({why}); name it (`format = \"...\"` in [workload], `--format` of `flashlab trace stats`, `format=` in Python); valid formats: {}",
            format_names().join(", ")
        );
        Error::input(at_file(&path.display().to_string()), msg)
    })
}

/// The one format whose rule matches the sample.
fn sniff(sample: &Sample) -> Result<&'static str, String> {
    let first = sample.lines.first().ok_or("the file has no non-blank line")?;
    if first.contains(&0) || std::str::from_utf8(first).is_err() {
        return Err("the first line is binary data (binary VSCSI traces need the .vscsi extension)".into());
    }
    let matches: Vec<&str> = FORMATS
        .iter()
        .filter(|f| matches!(f.caps.detect, Detect::Sniff(rule) if rule(sample)))
        .map(|f| f.name)
        .collect();
    match matches[..] {
        [one] => Ok(one),
        [] => Err(format!("the first line `{}` matches no known layout", super::lines::show(first))),
        _ => Err(format!("the first lines match several formats: {}", matches.join(", "))),
    }
}

/// `digits,digits` (a blkparse device).
pub(super) fn is_dev(tok: &[u8]) -> bool {
    let mut parts = tok.splitn(2, |&b| b == b',');
    let major = parts.next().and_then(parse_u64);
    let minor = parts.next().and_then(parse_u64);
    major.is_some() && minor.is_some()
}

/// Digits with at most one decimal point (or hex digits, for DiskSim flags).
pub(super) fn number(tok: &[u8]) -> bool {
    let dots = tok.iter().filter(|&&b| b == b'.').count();
    !tok.is_empty() && dots <= 1 && tok.iter().all(|b| b.is_ascii_hexdigit() || *b == b'.')
}

/// The space-separated fields of `line` (up to 8) and how many there are.
pub(super) fn spaced(line: &[u8]) -> ([&[u8]; 8], usize) {
    split::<8>(line, Sep::Space)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(lines: &[&str], ext: &str) -> Result<&'static str, String> {
        let sample: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
        sniff(&Sample { lines: &sample, ext })
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
        // Every format that is detected by its lines has a case above.
        for f in FORMATS.iter().filter(|f| matches!(f.caps.detect, Detect::Sniff(_))) {
            assert!(cases.iter().any(|(_, _, want)| *want == f.name), "no detection case for `{}`", f.name);
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
