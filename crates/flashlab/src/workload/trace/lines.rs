//! The shared machinery of the text formats: a line reader, field splitting and field parsers.
//!
//! Owns: [`Lines`] (one reused line buffer, 1-based line numbers, blank lines skipped, `\r\n`
//! accepted, lines capped at [`MAX_LINE_BYTES`] so a file without newlines cannot exhaust
//! memory), [`Ctx`] (file + line, so every field parser can build an error naming file, line and
//! field), the [`LineFormat`] trait a text format implements (parse one line), and
//! [`LineSource`], which turns a `LineFormat` into a [`Source`].
//!
//! Parsers work on bytes, never allocate per line, and return an error rather than guessing:
//! integers are plain ASCII digits; decimals are converted to ns exactly (no floating point).

use std::io::{BufRead, ErrorKind, Read};

use super::input::{Input, Progress};
use super::{Record, Source};
use crate::error::{Error, Location};
use crate::workload::Op;

/// Longest accepted line, newline included.
pub(crate) const MAX_LINE_BYTES: u64 = 1 << 20;

/// Bytes per sector for formats that address in 512-byte sectors.
pub(crate) const SECTOR_BYTES: u64 = 512;

/// One text format: parses one non-blank line at a time.
pub(crate) trait LineFormat: Send {
    /// Parse a line (without its line ending). `Ok(None)`: the line carries no request (a header
    /// or an event the format defines as non-I/O).
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error>;

    /// Called at end of file (`at.line` = the last line number + 1), e.g. to insist on a header.
    fn finish(&mut self, _at: &Ctx) -> Result<(), Error> {
        Ok(())
    }
}

/// A line reader with a reused buffer.
pub(crate) struct Lines {
    reader: Box<dyn BufRead + Send>,
    name: String,
    buf: Vec<u8>,
    /// Length of the current line without its line ending.
    len: usize,
    line: u64,
}

impl Lines {
    pub(crate) fn new(name: String, reader: Box<dyn BufRead + Send>) -> Self {
        Lines { reader, name, buf: Vec::with_capacity(256), len: 0, line: 0 }
    }

    /// Move to the next non-blank line; `Ok(false)` at end of file.
    pub(crate) fn advance(&mut self) -> Result<bool, Error> {
        loop {
            self.buf.clear();
            let n = (&mut self.reader).take(MAX_LINE_BYTES).read_until(b'\n', &mut self.buf);
            let n = n.map_err(|e| read_error(&self.name, self.line + 1, e))?;
            if n == 0 {
                return Ok(false);
            }
            self.line += 1;
            let ended = self.buf.last() == Some(&b'\n');
            if !ended && n as u64 == MAX_LINE_BYTES {
                return Err(self.ctx().err_line(format!("line is longer than {MAX_LINE_BYTES} bytes")));
            }
            self.len = trim_end(&self.buf[..n - usize::from(ended)]).len();
            if !self.buf[..self.len].iter().all(u8::is_ascii_whitespace) {
                return Ok(true);
            }
        }
    }

    /// The current line, without its line ending.
    pub(crate) fn line(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    pub(crate) fn ctx(&self) -> Ctx<'_> {
        Ctx { file: &self.name, line: self.line }
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

/// A read error: corrupt compressed data is an input error at the line being read; anything
/// else (a disk error) is an I/O error.
pub(crate) fn read_error(name: &str, line: u64, e: std::io::Error) -> Error {
    match e.kind() {
        ErrorKind::InvalidData | ErrorKind::UnexpectedEof | ErrorKind::InvalidInput => {
            Error::input(Location::line(name, line), format!("cannot decompress or read the data: {e}"))
        }
        _ => Error::io(name, e),
    }
}

/// Strip trailing `\r` (and other trailing ASCII whitespace).
fn trim_end(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    &s[..end]
}

/// Strip leading and trailing ASCII whitespace.
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(s.len());
    trim_end(&s[start..])
}

/// Field separators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sep {
    Comma,
    /// Runs of spaces and tabs; leading and trailing ones ignored.
    Space,
}

impl Sep {
    fn label(self) -> &'static str {
        match self {
            Sep::Comma => "comma-separated",
            Sep::Space => "space-separated",
        }
    }
}

/// The first `N` fields of `line` and the total number of fields.
pub(crate) fn split<const N: usize>(line: &[u8], sep: Sep) -> ([&[u8]; N], usize) {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut count = 0;
    let mut put = |field| {
        if count < N {
            out[count] = field;
        }
        count += 1;
    };
    match sep {
        Sep::Comma => line.split(|&b| b == b',').for_each(&mut put),
        Sep::Space => line.split(|&b| b == b' ' || b == b'\t').filter(|f| !f.is_empty()).for_each(&mut put),
    }
    (out, count)
}

/// Show a field in an error message (lossy, shortened).
pub(crate) fn show(s: &[u8]) -> String {
    const MAX: usize = 40;
    let text = String::from_utf8_lossy(&s[..s.len().min(MAX)]).into_owned();
    if s.len() > MAX {
        format!("{text}…")
    } else {
        text
    }
}

/// Where a line came from: builds errors and parses fields.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx<'a> {
    pub file: &'a str,
    pub line: u64,
}

impl Ctx<'_> {
    /// An error about one field of this line.
    pub(crate) fn err(&self, field: &str, msg: impl Into<String>) -> Error {
        Error::input(Location::line(self.file, self.line).with_field(field), msg)
    }

    /// An error about the line as a whole.
    pub(crate) fn err_line(&self, msg: impl Into<String>) -> Error {
        Error::input(Location::line(self.file, self.line), msg)
    }

    /// Exactly `N` fields, or an error saying how many were expected.
    pub(crate) fn fields<'l, const N: usize>(&self, line: &'l [u8], sep: Sep) -> Result<[&'l [u8]; N], Error> {
        let (fields, count) = split::<N>(line, sep);
        if count != N {
            return Err(self.err_line(format!("expected {N} {} fields, found {count}", sep.label())));
        }
        Ok(fields)
    }

    /// The first `N` fields of a line that may carry more (trailing columns a format ignores);
    /// fewer than `N` is an error.
    pub(crate) fn leading_fields<'l, const N: usize>(&self, line: &'l [u8], sep: Sep) -> Result<[&'l [u8]; N], Error> {
        let (fields, count) = split::<N>(line, sep);
        if count < N {
            return Err(self.err_line(format!("expected at least {N} {} fields, found {count}", sep.label())));
        }
        Ok(fields)
    }

    /// A non-negative decimal integer.
    pub(crate) fn uint(&self, field: &str, s: &[u8]) -> Result<u64, Error> {
        parse_u64(trim(s)).ok_or_else(|| self.err(field, not_uint(s)))
    }

    /// A placement identifier (an NVMe FDP placement handle or a stream id): a decimal integer
    /// from 0 to 65535.
    pub(crate) fn placement(&self, field: &str, s: &[u8]) -> Result<u16, Error> {
        let t = trim(s);
        if t.is_empty() {
            return Err(self.err(field, "empty field where a placement identifier (0 to 65535) was expected"));
        }
        match parse_u64(t) {
            Some(v) => u16::try_from(v)
                .map_err(|_| self.err(field, format!("{v} is more than 65535, the largest placement identifier"))),
            None => {
                Err(self
                    .err(field, format!("`{}` is not a placement identifier (an integer from 0 to 65535)", show(s))))
            }
        }
    }

    /// A hexadecimal integer, with or without `0x`.
    pub(crate) fn hex(&self, field: &str, s: &[u8]) -> Result<u64, Error> {
        let t = trim(s);
        let digits = t.strip_prefix(b"0x").or_else(|| t.strip_prefix(b"0X")).unwrap_or(t);
        parse_hex(digits).ok_or_else(|| self.err(field, format!("`{}` is not a hexadecimal integer", show(s))))
    }

    /// A non-negative decimal number of `unit_ns`-long units, as whole ns (truncated).
    pub(crate) fn time(&self, field: &str, s: &[u8], unit_ns: u64) -> Result<u128, Error> {
        parse_decimal_ns(trim(s), unit_ns).map_err(|why| self.err(field, format!("`{}` {why}", show(s))))
    }

    /// A count of 512-byte sectors, in bytes.
    pub(crate) fn sectors(&self, field: &str, s: &[u8]) -> Result<u64, Error> {
        let n = self.uint(field, s)?;
        n.checked_mul(SECTOR_BYTES).ok_or_else(|| self.err(field, format!("{n} sectors overflow a 64-bit byte count")))
    }

    /// A validated record: `len > 0` (else an error on `size_field`) and `offset + len` fits.
    pub(crate) fn record(
        &self,
        time_ns: u128,
        op: Op,
        range: (u64, u64),
        size_field: &str,
        device: Option<u64>,
    ) -> Result<Record, Error> {
        let (offset, len) = range;
        if len == 0 {
            return Err(self.err(size_field, "size 0: a request must transfer at least one byte"));
        }
        if offset.checked_add(len).is_none() {
            return Err(self.err(size_field, format!("offset {offset} + size {len} overflows 64 bits")));
        }
        Ok(Record { time_ns, op, offset, len, device, placement: None, file: None })
    }
}

fn not_uint(s: &[u8]) -> String {
    if trim(s).is_empty() {
        "empty field where an integer was expected".into()
    } else {
        format!("`{}` is not a non-negative integer (or overflows 64 bits)", show(s))
    }
}

/// Plain ASCII decimal digits into a u64; `None` on anything else or overflow.
pub(crate) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

fn parse_hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    s.iter().try_fold(0u64, |v, &b| Some((v << 4) | u64::from((b as char).to_digit(16)?)))
}

/// Parse `digits[.digits][e[+-]digits]` times `unit_ns` into whole ns (truncating below 1 ns),
/// exactly, in integer arithmetic.
pub(crate) fn parse_decimal_ns(s: &[u8], unit_ns: u64) -> Result<u128, &'static str> {
    const NOT: &str = "is not a non-negative decimal number";
    const MANTISSA_CAP: u128 = 10u128.pow(26);
    let (mut mantissa, mut exp10, mut digits) = (0u128, 0i64, 0usize);
    let mut i = 0;
    while let Some(d) = s.get(i).and_then(|b| (*b as char).to_digit(10)) {
        mantissa = mantissa.checked_mul(10).and_then(|m| m.checked_add(u128::from(d))).ok_or("is out of range")?;
        (i, digits) = (i + 1, digits + 1);
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        while let Some(d) = s.get(i).and_then(|b| (*b as char).to_digit(10)) {
            if mantissa < MANTISSA_CAP {
                mantissa = mantissa * 10 + u128::from(d);
                exp10 -= 1;
            }
            (i, digits) = (i + 1, digits + 1);
        }
    }
    if digits == 0 {
        return Err(NOT);
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let rest = &s[i + 1..];
        let (neg, num) = match rest.first() {
            Some(b'-') => (true, &rest[1..]),
            Some(b'+') => (false, &rest[1..]),
            _ => (false, rest),
        };
        let e = parse_u64(num).filter(|&e| e <= 400).ok_or(NOT)? as i64;
        exp10 += if neg { -e } else { e };
        i = s.len();
    }
    if i != s.len() {
        return Err(NOT);
    }
    scale_pow10(mantissa, u128::from(unit_ns), exp10).ok_or("is out of range")
}

/// `mantissa * unit * 10^exp10`, truncated, or `None` on overflow.
fn scale_pow10(mantissa: u128, unit: u128, exp10: i64) -> Option<u128> {
    let value = mantissa.checked_mul(unit)?;
    if exp10 >= 0 {
        let exp = u32::try_from(exp10).ok()?;
        return if value == 0 { Some(0) } else { value.checked_mul(10u128.checked_pow(exp)?) };
    }
    let exp = u32::try_from(-exp10).ok()?;
    Some(10u128.checked_pow(exp).map_or(0, |div| value / div))
}

/// Case-insensitive equality with an ASCII word.
pub(crate) fn is(s: &[u8], word: &str) -> bool {
    trim(s).eq_ignore_ascii_case(word.as_bytes())
}

/// A [`Source`] over a [`LineFormat`].
pub(crate) struct LineSource<F> {
    lines: Lines,
    format: F,
    progress: Option<Progress>,
    last_line: u64,
}

impl<F: LineFormat> LineSource<F> {
    pub(crate) fn new(input: Input, format: F) -> Self {
        LineSource { lines: Lines::new(input.name, input.reader), format, progress: input.progress, last_line: 0 }
    }

    pub(crate) fn boxed(input: Input, format: F) -> Box<dyn Source>
    where
        F: 'static,
    {
        Box::new(Self::new(input, format))
    }
}

impl<F: LineFormat> Source for LineSource<F> {
    fn next_record(&mut self) -> Result<Option<Record>, Error> {
        while self.lines.advance()? {
            let at = self.lines.ctx();
            if let Some(rec) = self.format.parse(self.lines.line(), &at)? {
                self.last_line = at.line;
                return Ok(Some(rec));
            }
        }
        let end = Ctx { file: self.lines.name(), line: self.lines.line + 1 };
        self.format.finish(&end)?;
        Ok(None)
    }

    fn location(&self) -> Location {
        Location::line(self.lines.name(), self.last_line)
    }

    fn progress(&self) -> Option<(u64, u64)> {
        self.progress.as_ref().map(Progress::get)
    }
}

/// Test helper: feed `text` line by line to a format as if read from `file`, then finish.
#[cfg(test)]
pub(crate) fn parse_text<F: LineFormat>(format: &mut F, text: &str, file: &str) -> Result<Vec<Record>, Error> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        out.extend(format.parse(line.as_bytes(), &Ctx { file, line: i as u64 + 1 })?);
    }
    format.finish(&Ctx { file, line: 0 })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b"12x"), None);
        assert_eq!(parse_hex(b"2a"), Some(42));
        assert_eq!(parse_hex(b"AA"), Some(170));
        assert_eq!(parse_hex(b"g"), None);
        assert_eq!(parse_hex(b"11112222333344445"), None);
    }

    #[test]
    fn decimals_are_exact() {
        let s = 1_000_000_000;
        assert_eq!(parse_decimal_ns(b"1456095145.133076000", s), Ok(1_456_095_145_133_076_000));
        assert_eq!(parse_decimal_ns(b"0.000003021", s), Ok(3021));
        assert_eq!(parse_decimal_ns(b"143067.780", 1_000_000), Ok(143_067_780_000));
        assert_eq!(parse_decimal_ns(b"3.021e-06", s), Ok(3021));
        assert_eq!(parse_decimal_ns(b"1.5E+3", 1), Ok(1500));
        assert_eq!(parse_decimal_ns(b".5", 1000), Ok(500));
        assert_eq!(parse_decimal_ns(b"7", 100), Ok(700));
        assert_eq!(parse_decimal_ns(b"0.0000000001", s), Ok(0));
        assert!(parse_decimal_ns(b"1e999", 1).is_err());
        assert!(parse_decimal_ns(b"9e38", s).is_err());
        for bad in [&b""[..], b".", b"-1", b"1.2.3", b"e5", b"1e", b"nan", b"1 2", b"0x10"] {
            assert!(parse_decimal_ns(bad, 1).is_err(), "{}", show(bad));
        }
    }

    #[test]
    fn splitting_counts_every_field() {
        let (f, n) = split::<3>(b"a,b,,d", Sep::Comma);
        assert_eq!((f, n), ([&b"a"[..], b"b", b""], 4));
        let (f, n) = split::<2>(b"  x \t y  ", Sep::Space);
        assert_eq!((f, n), ([&b"x"[..], b"y"], 2));
        let (_, n) = split::<2>(b"", Sep::Space);
        assert_eq!(n, 0);
    }

    #[test]
    fn blank_lines_and_crlf_are_skipped_and_numbered() {
        let text: &[u8] = b"a\r\n\n  \nb\nc";
        let mut lines = Lines::new("t".into(), Box::new(text));
        let mut seen = Vec::new();
        while lines.advance().expect("in-memory read") {
            seen.push((lines.ctx().line, lines.line().to_vec()));
        }
        assert_eq!(seen, vec![(1, b"a".to_vec()), (4, b"b".to_vec()), (5, b"c".to_vec())]);
    }

    #[test]
    fn field_errors_name_file_line_and_field() {
        let at = Ctx { file: "f.csv", line: 7 };
        let msg = at.uint("offset", b"12x").err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(msg, "f.csv:7: field `offset`: `12x` is not a non-negative integer (or overflows 64 bits)");
        let msg = at.fields::<3>(b"1,2", Sep::Comma).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(msg, "f.csv:7: expected 3 comma-separated fields, found 2");
        assert!(at.record(0, Op::Read, (u64::MAX, 1), "size", None).is_err());
        assert!(at.record(0, Op::Read, (0, 0), "size", None).is_err());
    }

    #[test]
    fn placement_is_0_to_65535() {
        let at = Ctx { file: "f.csv", line: 7 };
        assert_eq!(at.placement("placement", b" 0 ").ok(), Some(0));
        assert_eq!(at.placement("placement", b"65535").ok(), Some(u16::MAX));
        for (bad, want) in [
            (&b"65536"[..], "65536 is more than 65535"),
            (b"18446744073709551616", "is not a placement identifier"),
            (b"-1", "`-1` is not a placement identifier"),
            (b"1.5", "`1.5` is not"),
            (b"0x10", "`0x10` is not"),
            (b"", "empty field"),
        ] {
            let msg = at.placement("placement", bad).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.starts_with("f.csv:7: field `placement`: ") && msg.contains(want), "{}: {msg}", show(bad));
        }
    }
}
