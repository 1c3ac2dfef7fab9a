//! The one place where parsed records become [`Request`]s: the device filter and the clock.
//!
//! Owns: [`Record`] (what a format parser produces: raw absolute time in ns, op, byte range,
//! device), the [`Source`] trait every format implements, and [`Reader`], the [`Workload`] that
//! keeps only the records of the chosen device and makes times relative to the first record kept,
//! multiplied by `time_scale`. Formats never see the filter or the scale.

use crate::error::{Error, Location};
use crate::workload::{Op, Request, Workload};

/// One parsed trace record, before filtering and time conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// Absolute time in ns on the trace's own clock (u128: FILETIME × 100 overflows u64 soon).
    pub time_ns: u128,
    pub op: Op,
    /// Byte offset; `offset + len` is known not to overflow.
    pub offset: u64,
    /// Length in bytes; > 0.
    pub len: u64,
    /// Device / volume / ASU / LUN number, for formats that carry one.
    pub device: Option<u64>,
    /// Placement identifier, for formats with a placement column.
    pub placement: Option<u16>,
    /// File identifier, for formats with a file column.
    pub file: Option<u32>,
}

/// A format parser: yields records in file order.
pub(crate) trait Source: Send {
    /// The next record, `Ok(None)` at the end of the trace.
    fn next_record(&mut self) -> Result<Option<Record>, Error>;
    /// File and line (record number for binary formats) of the last record returned.
    fn location(&self) -> Location;
    /// Bytes of the (possibly compressed) file read so far, and its size.
    fn progress(&self) -> Option<(u64, u64)>;
}

/// A request that passed the filter, with what statistics need besides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kept {
    pub req: Request,
    pub device: Option<u64>,
    /// The record's absolute time in ns on the trace's clock, before clamping and scaling.
    pub raw_ns: u128,
}

/// A trace as a [`Workload`]: a [`Source`] plus the device filter and the clock.
pub(crate) struct Reader {
    source: Box<dyn Source>,
    device: Option<u64>,
    /// Raw time of the first record kept; `None` until then.
    origin_ns: Option<u128>,
    time_scale: f64,
    /// The first request, read ahead by [`Reader::require_requests`].
    peeked: Option<Kept>,
}

impl Reader {
    /// The `time_scale` in force.
    pub(crate) fn time_scale(&self) -> f64 {
        self.time_scale
    }

    /// File and line of the last record read.
    pub(crate) fn here(&self) -> Location {
        self.source.location()
    }

    pub(crate) fn new(source: Box<dyn Source>, device: Option<u64>, time_scale: f64) -> Self {
        assert!(time_scale.is_finite() && time_scale > 0.0, "time_scale validated before a reader is built");
        Reader { source, device, origin_ns: None, time_scale, peeked: None }
    }

    /// Read ahead to the first request kept: a trace with none (an empty file, only comments
    /// and skipped commands, or no record of the chosen device) is an error naming the file.
    pub(crate) fn require_requests(&mut self, name: &str) -> Result<(), Error> {
        self.peeked = self.next_kept()?;
        if self.peeked.is_some() {
            return Ok(());
        }
        let what = match self.device {
            Some(d) => format!("no request for device {d} (workload.device)"),
            None => {
                "no request: the trace is empty (or holds only headers, comments and commands that move no data)".into()
            }
        };
        Err(Error::input(super::at_file(name), what))
    }

    /// The next request that passes the filter, with the device and raw time it came from.
    pub(crate) fn next_kept(&mut self) -> Result<Option<Kept>, Error> {
        if let Some(k) = self.peeked.take() {
            return Ok(Some(k));
        }
        while let Some(rec) = self.source.next_record()? {
            if self.device.is_some() && rec.device != self.device {
                continue;
            }
            debug_assert!(rec.len > 0 && rec.offset.checked_add(rec.len).is_some(), "parsers validate ranges");
            let time_ns = self.relative_ns(rec.time_ns)?;
            let req = Request {
                time_ns,
                op: rec.op,
                offset: rec.offset,
                len: rec.len,
                placement: rec.placement,
                file: rec.file,
            };
            return Ok(Some(Kept { req, device: rec.device, raw_ns: rec.time_ns }));
        }
        Ok(None)
    }

    /// ns since the first record kept (0 for records stamped earlier), times `time_scale`.
    fn relative_ns(&mut self, raw_ns: u128) -> Result<u64, Error> {
        let origin = *self.origin_ns.get_or_insert(raw_ns);
        let delta = raw_ns.saturating_sub(origin);
        let too_far = || {
            let mut at = self.source.location();
            at.field = Some("time".into());
            Error::input(at, "timestamp is too far (> 584 years) after the first record, times workload.time_scale")
        };
        let delta = u64::try_from(delta).map_err(|_| too_far())?;
        if self.time_scale == 1.0 {
            return Ok(delta);
        }
        let scaled = (delta as f64 * self.time_scale).round();
        if scaled >= u64::MAX as f64 {
            return Err(too_far());
        }
        Ok(scaled as u64)
    }
}

impl Workload for Reader {
    fn next_request(&mut self) -> Result<Option<Request>, Error> {
        Ok(self.next_kept()?.map(|k| k.req))
    }

    fn location(&self) -> Option<Location> {
        Some(self.here())
    }

    fn progress(&self) -> Option<(u64, u64)> {
        self.source.progress()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<Record>);

    impl Source for Fixed {
        fn next_record(&mut self) -> Result<Option<Record>, Error> {
            Ok(if self.0.is_empty() { None } else { Some(self.0.remove(0)) })
        }
        fn location(&self) -> Location {
            Location::line("mem", 1)
        }
        fn progress(&self) -> Option<(u64, u64)> {
            None
        }
    }

    fn rec(time_ns: u128, device: u64) -> Record {
        Record { time_ns, op: Op::Read, offset: 0, len: 512, device: Some(device), placement: None, file: None }
    }

    #[test]
    fn filter_and_clock_start_at_first_kept_record() {
        let src = Fixed(vec![rec(100, 1), rec(200, 2), rec(150, 2), rec(400, 2), rec(500, 1)]);
        let mut r = Reader::new(Box::new(src), Some(2), 0.5);
        let mut times = Vec::new();
        while let Some(req) = r.next_request().expect("records are valid") {
            times.push(req.time_ns);
        }
        // 150 is earlier than the first kept record (200): clamped to 0.
        assert_eq!(times, vec![0, 0, 100]);
    }

    #[test]
    fn huge_gap_is_an_error_not_a_wrap() {
        let src = Fixed(vec![rec(0, 1), rec(u128::from(u64::MAX) + 1, 1)]);
        let mut r = Reader::new(Box::new(src), None, 1.0);
        assert!(r.next_request().is_ok());
        let err = r.next_request().expect_err("gap overflows u64");
        assert!(err.to_string().contains("mem:1"), "{err}");
    }
}
