//! The `trace-<format>` targets: mutated trace bytes read through the public reader API
//! (`trace::open_stream`, format given), and for one case in [`SIMULATE_ONE_IN`] written to a
//! file and run through a tiny simulation (format detected half the time).
//!
//! Samples (valid inputs the mutations start from): the test traces under
//! `crates/flashlab/tests/data` (classified by `detect_format`), the first lines of every
//! built-in trace, [`EXTRA_SAMPLES`] for formats with neither, [`PLACEMENT_SAMPLES`] and
//! [`ZONE_SAMPLES`] (zone commands); each cut
//! to [`SAMPLE_BYTES`]. Placement columns: a share of `csv` cases gets a `placement` column and a
//! share of `blkrq` cases a `# fields:` declaration with its columns ([`with_placement`]), with
//! valid and invalid values and declarations.
//! Mutations: bit flips, interesting bytes, truncation, splicing (from any sample, any format),
//! numbers replaced by huge / negative / fractional ones, lines duplicated or dropped, a line
//! longer than the reader's cap; then, sometimes, gzip / zstd / bzip2 compression and corruption
//! of the compressed bytes. Options: the device filter, `time_unit` and `time_scale`, at edges.
//!
//! Expected: `Ok`, or an `Error::Input` naming the stream (and its line), or a config error
//! naming its key; anything else is counted as unlocated, a panic as a finding.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::OnceLock;

use rand::RngExt;

use crate::{Rng, Verdict};
use flashlab::workload::trace::{self, TraceOptions, FORMATS};

/// Longest sample kept (bytes), so a case stays cheap.
pub const SAMPLE_BYTES: usize = 8 * 1024;
/// One case in this many is also simulated.
pub const SIMULATE_ONE_IN: u32 = 32;

/// Hand-written samples of formats the test data lacks (a few records each).
pub const EXTRA_SAMPLES: &[(&str, &[u8])] = &[
    ("spc", b"0,20941264,8192,W,0.551706\n0,20939840,8192,W,0.554041\n1,3436288,15872,r,1.250\n2,0,512,R,2.0\n"),
    ("tencent", b"1538323200,10240,16,1,1063\n1538323200,2048,8,0,1063\n1538323201,4096,32,1,7\n"),
];

/// Samples with placement columns, valid and not (a value too big, negative, not a number; a
/// declaration naming an unknown field or missing a required one).
pub const PLACEMENT_SAMPLES: &[(&str, &[u8])] = &[
    ("csv", b"time_ns,op,offset,size,placement\n0,W,0,4096,0\n1,W,4096,4096,\n2,R,0,512,65535\n3,W,0,4096,65536\n"),
    ("csv", b"placement,op,offset,size\n-1,W,0,4096\n"),
    ("csv", b"op,offset,size,file\nW,0,4096,1\nW,4096,4096,\nW,0,4096,4294967295\nW,0,4096,4294967296\n"),
    (
        "blkrq",
        b"# capture\n# fields: time_us op(R/W) offset_bytes length_bytes - placement\n1 W 0 4096 9 3\n2 R 0 512 9 0\n",
    ),
    ("blkrq", b"# fields: time_us op offset_bytes length_bytes placement\n1 W 0 4096 70000\n2 W 0 4096\n"),
    ("blkrq", b"# fields: time_us op offset_bytes placement\n1 W 0 4096 1\n"),
];

/// `csv` samples with zone commands (append, finish, reset; zones of 128 KiB on the simulated
/// device), valid and not (an append off a zone start, a finish of part of a zone).
pub const ZONE_SAMPLES: &[(&str, &[u8])] = &[
    (
        "csv",
        b"op,offset,size\nA,0,8192\nA,0,4096\nR,4096,4096\nZF,0,131072\nZR,0,131072\nW,131072,4096\nT,131072,131072\n",
    ),
    ("csv", b"op,offset,size\nappend,4096,4096\nfinish,0,4096\nreset,0,262144\nA,0,1048576\n"),
];

/// Placement values written into columns: mostly valid, some not.
const PLACEMENTS: &[&str] = &["0", "1", "7", "255", "65535", "65536", "-1", "x", "1.5", "4294967296", "0x10"];

/// `# fields:` declarations, with the extra columns each record then gets (`P` a placement
/// value, `-` a tag): valid ones, one without a placement, and invalid ones.
const DECLARATIONS: &[(&str, &str)] = &[
    ("# fields: time_us op offset_bytes length_bytes placement", "P"),
    ("# fields: time_us op(R/W) offset_bytes length_bytes - placement", "-P"),
    ("#FIELDS: Time_us OP offset_bytes length_bytes placement -", "P-"),
    ("# fields: time_us op offset_bytes length_bytes -", "-"),
    ("# fields: time_us op offset_bytes length_bytes stream", "P"),
    ("# fields: time_us op offset_bytes placement", "P"),
    ("# fields: time_us op offset_bytes length_bytes placement placement", "PP"),
    ("# fields:", ""),
];

/// A generated trace input and how it is read.
#[derive(Clone, Debug)]
pub struct TraceCase {
    pub format: &'static str,
    pub bytes: Vec<u8>,
    /// What the generator did, for the report (`flip`, `zstd`, …).
    pub steps: Vec<&'static str>,
    pub device: Option<u64>,
    pub time_unit: Option<String>,
    pub time_scale: f64,
    /// Also simulated: (format detected rather than given, out_of_range, timing mode, on a
    /// zoned device).
    pub simulate: Option<(bool, &'static str, bool, bool)>,
}

/// The test data files (recursively, documentation left out).
pub fn data_files() -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_none_or(|e| e != "md") {
                out.push(p);
            }
        }
    }
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../flashlab/tests/data"));
    let mut out = Vec::new();
    walk(&root, &mut out);
    out
}

/// Up to `limit` decompressed bytes of `raw`, cut after the last newline when it is text.
fn head(raw: &[u8], limit: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let reader: Box<dyn Read + '_> = match raw {
        [0x1f, 0x8b, ..] => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        [0x28, 0xb5, 0x2f, 0xfd, ..] => match zstd::stream::read::Decoder::new(raw) {
            Ok(d) => Box::new(d),
            Err(_) => return out,
        },
        [b'B', b'Z', b'h', ..] => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
        _ => Box::new(raw),
    };
    let _ = reader.take(limit as u64).read_to_end(&mut out);
    if out.len() == limit {
        if let Some(end) = out.iter().rposition(|&b| b == b'\n') {
            out.truncate(end + 1);
        }
    }
    out
}

/// Every sample: (format, bytes).
pub fn samples() -> &'static [(&'static str, Vec<u8>)] {
    static SAMPLES: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let mut out = Vec::new();
        for path in data_files() {
            let (Ok(format), Ok(raw)) = (trace::detect_format(&path), std::fs::read(&path)) else { continue };
            out.push((format, head(&raw, SAMPLE_BYTES)));
        }
        for b in trace::builtin::BUILTINS {
            if let Ok(f) = trace::find_format(b.format) {
                out.push((f.name, head(b.bytes, SAMPLE_BYTES)));
            }
        }
        for (name, bytes) in EXTRA_SAMPLES.iter().chain(PLACEMENT_SAMPLES).chain(ZONE_SAMPLES) {
            if let Ok(f) = trace::find_format(name) {
                out.push((f.name, bytes.to_vec()));
            }
        }
        out
    })
}

/// Numbers that break parsers: overflow, signs, fractions, exponents, empty.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "9223372036854775807",
    "4294967295",
    "4294967296",
    "65535",
    "65536",
    "99999999999999999999999999999",
    "1e308",
    "1e-308",
    "0.0000000001",
    "123456789012.123456789012",
    "nan",
    "inf",
    "-0",
    "0x10",
    "",
    "1.",
    ".5",
];

/// Bytes that separate or end fields.
const BYTES: &[u8] = b"\x00\xff\n\r\t ,-.9#";

fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>, steps: &mut Vec<&'static str>) {
    let all = samples();
    match rng.random_range(0..9) {
        0 if !bytes.is_empty() => {
            let i = rng.random_range(0..bytes.len());
            bytes[i] ^= 1 << rng.random_range(0..8);
            steps.push("flip");
        }
        1 if !bytes.is_empty() => {
            let i = rng.random_range(0..bytes.len());
            bytes[i] = BYTES[rng.random_range(0..BYTES.len())];
            steps.push("byte");
        }
        2 => {
            bytes.truncate(rng.random_range(0..=bytes.len()));
            steps.push("truncate");
        }
        3 if !all.is_empty() => {
            let other = &all[rng.random_range(0..all.len())].1;
            let from = rng.random_range(0..=other.len());
            let to = rng.random_range(from..=other.len().min(from + 512));
            let at = rng.random_range(0..=bytes.len());
            bytes.splice(at..at, other[from..to].iter().copied());
            steps.push("splice");
        }
        4 | 5 => {
            // A number (a run of digits, possibly with a point) replaced.
            let starts: Vec<usize> = (0..bytes.len())
                .filter(|&i| bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit()))
                .collect();
            if !starts.is_empty() {
                let s = starts[rng.random_range(0..starts.len())];
                let e =
                    (s..bytes.len()).find(|&i| !(bytes[i].is_ascii_digit() || bytes[i] == b'.')).unwrap_or(bytes.len());
                let n = NUMBERS[rng.random_range(0..NUMBERS.len())];
                bytes.splice(s..e, n.bytes());
                steps.push("number");
            }
        }
        6 => {
            let lines: Vec<usize> =
                std::iter::once(0).chain((0..bytes.len()).filter(|&i| bytes[i] == b'\n').map(|i| i + 1)).collect();
            let a = lines[rng.random_range(0..lines.len())];
            let b = (a..bytes.len()).find(|&i| bytes[i] == b'\n').map_or(bytes.len(), |i| i + 1);
            if rng.random_bool(0.5) {
                let line = bytes[a..b].to_vec();
                bytes.splice(a..a, line);
                steps.push("dup-line");
            } else {
                bytes.drain(a..b);
                steps.push("drop-line");
            }
        }
        7 if rng.random_bool(0.01) => {
            let at = rng.random_range(0..=bytes.len());
            bytes.splice(at..at, std::iter::repeat_n(b'7', (1 << 20) + 1));
            steps.push("long-line");
        }
        _ => {
            // Binary formats: a 32- or 64-bit edge value at an aligned offset.
            if bytes.len() >= 8 {
                let at = rng.random_range(0..bytes.len() / 4 - 1) * 4;
                let v: u64 = [0, u64::MAX, u32::MAX as u64, 1 << 63, 1 << 31][rng.random_range(0..5)];
                let width = if rng.random_bool(0.5) { 4 } else { 8 };
                bytes[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
                steps.push("word");
            }
        }
    }
}

/// A placement column added to a text sample: `csv` gets a `placement` column, `blkrq` a
/// `# fields:` line after its leading `#` lines (now and then left out, so the columns are
/// ignored) and the declared columns on every record (now and then missing); other formats are
/// left alone.
pub fn with_placement(format: &str, rng: &mut Rng, bytes: &mut Vec<u8>, steps: &mut Vec<&'static str>) {
    let (head, extra): (Option<&str>, &str) = match format {
        "csv" => (None, "P"),
        "blkrq" => {
            let (decl, extra) = DECLARATIONS[rng.random_range(0..DECLARATIONS.len())];
            (Some(decl), extra)
        }
        _ => return,
    };
    let text = std::mem::take(bytes);
    let mut header = true;
    for line in text.split(|&b| b == b'\n') {
        let blank = line.iter().all(u8::is_ascii_whitespace);
        let comment = line.first() == Some(&b'#');
        if header && !blank && !(head.is_some() && comment) {
            header = false;
            match head {
                None => {
                    bytes.extend_from_slice(line);
                    bytes.extend_from_slice(b",placement\n");
                    continue;
                }
                Some(decl) if rng.random_bool(0.95) => bytes.extend_from_slice(format!("{decl}\n").as_bytes()),
                Some(_) => {}
            }
        }
        bytes.extend_from_slice(line);
        if !blank && !comment && rng.random_bool(0.98) {
            for column in extra.chars() {
                let value = match column {
                    'P' if rng.random_bool(0.9) => PLACEMENTS[rng.random_range(0..5)],
                    'P' => PLACEMENTS[rng.random_range(0..PLACEMENTS.len())],
                    _ => "17",
                };
                let sep = if head.is_some() { " " } else { "," };
                // csv: an empty field (no placement) now and then.
                let value = if head.is_none() && rng.random_bool(0.1) { "" } else { value };
                bytes.extend_from_slice(format!("{sep}{value}").as_bytes());
            }
        }
        bytes.push(b'\n');
    }
    // `split` yields one piece more than there are newlines: drop the one added after the last.
    bytes.pop();
    steps.push(if head.is_some() { "fields-decl" } else { "placement-column" });
}

fn compress(rng: &mut Rng, bytes: &[u8], steps: &mut Vec<&'static str>) -> Vec<u8> {
    let out = match rng.random_range(0..3) {
        0 => {
            steps.push("gzip");
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(bytes).and_then(|_| e.finish()).unwrap_or_default()
        }
        1 => {
            steps.push("zstd");
            zstd::encode_all(bytes, 1).unwrap_or_default()
        }
        _ => {
            steps.push("bzip2");
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(bytes).and_then(|_| e.finish()).unwrap_or_default()
        }
    };
    let mut out = out;
    if rng.random_bool(0.5) && !out.is_empty() {
        steps.push("corrupt");
        for _ in 0..rng.random_range(1..4) {
            if rng.random_bool(0.3) {
                out.truncate(rng.random_range(4.min(out.len())..=out.len()));
            } else {
                // Past the magic bytes, so the codec is still recognised.
                let i = rng.random_range(4.min(out.len() - 1)..out.len());
                out[i] ^= 1 << rng.random_range(0..8);
            }
        }
    }
    out
}

/// Generate a case for `format`.
pub fn generate(format: &'static str, rng: &mut Rng) -> TraceCase {
    let all = samples();
    let own: Vec<&Vec<u8>> = all.iter().filter(|(f, _)| *f == format).map(|(_, b)| b).collect();
    let mut bytes = if own.is_empty() || rng.random_bool(0.1) {
        all.get(rng.random_range(0..all.len().max(1))).map(|s| s.1.clone()).unwrap_or_default()
    } else {
        own[rng.random_range(0..own.len())].clone()
    };
    let mut steps = Vec::new();
    if rng.random_bool(0.25) {
        with_placement(format, rng, &mut bytes, &mut steps);
    }
    if rng.random_bool(0.9) {
        for _ in 0..rng.random_range(1..=6) {
            mutate(rng, &mut bytes, &mut steps);
        }
    }
    if rng.random_bool(0.12) {
        bytes = compress(rng, &bytes, &mut steps);
    }
    let caps = &trace::find_format(format).map(|f| &f.caps).ok();
    let device = match caps {
        Some(c) if c.device_column.is_some() && rng.random_bool(0.2) => {
            Some([0, 1, 2, 7, u32::MAX as u64, u64::MAX][rng.random_range(0..6)])
        }
        _ => None,
    };
    let time_unit = match caps {
        Some(c) if c.time_unit_override && rng.random_bool(0.2) => {
            Some(["ns", "us", "ms", "s"][rng.random_range(0..4)].to_string())
        }
        _ => None,
    };
    let time_scale = if rng.random_bool(0.1) {
        [1e-300, 5e-324, 1e300, f64::MAX, 0.5, 2.0, 0.0, -1.0, f64::NAN][rng.random_range(0..9)]
    } else {
        1.0
    };
    let simulate = (rng.random_range(0..SIMULATE_ONE_IN) == 0).then(|| {
        let oor = ["error", "wrap", "compact"][rng.random_range(0..3)];
        (rng.random_bool(0.5), oor, rng.random_bool(0.5), rng.random_bool(0.25))
    });
    TraceCase { format, bytes, steps, device, time_unit, time_scale, simulate }
}

impl TraceCase {
    /// The name the stream is read under (errors must name it).
    pub fn stream_name(&self) -> String {
        format!("fuzz-case.{}", self.format)
    }

    fn options(&self) -> TraceOptions {
        let mut o = TraceOptions::new(self.stream_name());
        o.format = Some(self.format.to_string());
        o.device = self.device;
        o.time_unit = self.time_unit.clone();
        o.time_scale = self.time_scale;
        o
    }

    /// Read every request (and simulate, for the chosen share).
    pub fn run(&self) -> Verdict {
        let name = self.stream_name();
        let located = |e: &flashlab::Error| match e {
            flashlab::Error::Input { at, .. } => at.file == name,
            flashlab::Error::Config { key, .. } => !key.is_empty(),
            _ => false,
        };
        let stream = Box::new(std::io::Cursor::new(self.bytes.clone()));
        let read = trace::open_stream(stream, &self.options()).and_then(|mut wl| {
            while wl.next_request()?.is_some() {}
            Ok(())
        });
        let verdict = crate::judge(read, located);
        match (&verdict, self.simulate) {
            (Verdict::Unlocated(_), _) | (_, None) => verdict,
            (_, Some(sim)) => self.simulate(sim),
        }
    }

    /// Write the bytes to a file and run a tiny device on them.
    fn simulate(&self, (detect, out_of_range, timing, zoned): (bool, &'static str, bool, bool)) -> Verdict {
        let dir = std::env::temp_dir().join(format!("flashlab-fuzz-{}", std::process::id()));
        let path = dir.join(format!("case-{:?}.{}", std::thread::current().id(), self.format).replace(['(', ')'], ""));
        if std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &self.bytes)).is_err() {
            return Verdict::Ok;
        }
        let mut t = toml::Table::new();
        let mut w = toml::Table::new();
        w.insert("kind".into(), "trace".into());
        w.insert("path".into(), path.display().to_string().into());
        if !detect {
            w.insert("format".into(), self.format.into());
        }
        if let Some(d) = self.device {
            w.insert("device".into(), toml::Value::Integer(d.min(i64::MAX as u64) as i64));
        }
        if let Some(u) = &self.time_unit {
            w.insert("time_unit".into(), u.clone().into());
        }
        w.insert("time_scale".into(), self.time_scale.into());
        let text = format!(
            "[device]\nchannels = 2\nblocks_per_plane = 64\npages_per_block = 32\n[host]\nout_of_range = \"{out_of_range}\"\n\
             [sim]\nmode = \"{}\"\nverify = true\n{}",
            if timing { "timing" } else { "accounting" },
            if zoned { "[ftl]\nmapping = \"zns\"\n" } else { "" }
        );
        t.extend(text.parse::<toml::Table>().unwrap_or_default());
        t.insert("workload".into(), toml::Value::Table(w));
        let located = |e: &flashlab::Error| match e {
            flashlab::Error::Input { at, .. } => !at.file.is_empty(),
            flashlab::Error::Config { key, .. } => !key.is_empty(),
            flashlab::Error::DeviceFull(_) => true,
            _ => false,
        };
        let result = flashlab::Config::from_table(t, crate::configs::SOURCE, &[])
            .and_then(|cfg| flashlab::sim::run(&cfg, &mut crate::Bounded::new()));
        let _ = std::fs::remove_file(&path);
        crate::judge(result, located)
    }

    /// Options, steps and the bytes (escaped; long inputs cut).
    pub fn reproducer(&self) -> String {
        let shown: String =
            self.bytes.iter().take(4096).flat_map(|b| std::ascii::escape_default(*b)).map(char::from).collect();
        format!(
            "format = {:?}, device = {:?}, time_unit = {:?}, time_scale = {:?}, simulate = {:?}\nsteps: {}\n\
             bytes ({} long{}): b\"{shown}\"",
            self.format,
            self.device,
            self.time_unit,
            self.time_scale,
            self.simulate,
            self.steps.join(" "),
            self.bytes.len(),
            if self.bytes.len() > 4096 { ", first 4096 shown" } else { "" },
        )
    }
}

/// Formats with no sample (the coverage test holds this empty).
pub fn formats_without_samples() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name).filter(|n| !samples().iter().any(|(f, _)| f == n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// What reading a placement case gave: requests with a placement, none, or which error.
    fn outcome(format: &str, bytes: Vec<u8>) -> &'static str {
        let mut o = TraceOptions::new("case");
        o.format = Some(format.into());
        let read = trace::open_stream(Box::new(std::io::Cursor::new(bytes)), &o).and_then(|mut w| {
            let mut any = false;
            while let Some(r) = w.next_request()? {
                any |= r.placement.is_some();
            }
            Ok(any)
        });
        match read {
            Ok(true) => "placement",
            Ok(false) => "none",
            Err(e) if e.to_string().contains("field `placement`") => "bad value",
            Err(e) if e.to_string().contains("`# fields:` declaration") => "bad declaration",
            Err(e) if e.to_string().contains("as the `# fields:` line") => "missing column",
            Err(e) if e.to_string().contains("(as in the header)") => "missing column",
            Err(e) => panic!("{format}: unexpected error {e}"),
        }
    }

    /// The placement generator reaches every side: requests with a placement, requests
    /// without, a bad value, a bad declaration and a missing declared column.
    #[test]
    fn placement_cases_reach_values_and_errors() {
        let mut seen = std::collections::BTreeSet::new();
        let samples: [(&str, &[u8]); 2] =
            [("csv", b"op,offset,size\nW,0,4096\nR,0,512\n"), ("blkrq", b"# c\n1 W 0 4096\n2 R 0 512\n")];
        for (format, sample) in samples {
            for seed in 0..400 {
                let mut bytes = sample.to_vec();
                with_placement(format, &mut Rng::seed_from_u64(seed), &mut bytes, &mut Vec::new());
                seen.insert((format, outcome(format, bytes)));
            }
        }
        let csv = ["placement", "none", "bad value", "missing column"].map(|o| ("csv", o));
        let blkrq = ["placement", "none", "bad value", "bad declaration", "missing column"].map(|o| ("blkrq", o));
        for want in csv.iter().chain(&blkrq) {
            assert!(seen.contains(want), "{want:?} never generated: {seen:?}");
        }
    }
}
