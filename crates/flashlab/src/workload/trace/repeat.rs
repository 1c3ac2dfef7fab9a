//! `workload.repeat`: a trace replayed several times back to back, so that a short trace (a
//! shipped excerpt) runs long enough to reach a steady state or to be timed. MQSim's
//! `Relay_Count` does the same, starting each pass at the previous pass's last arrival time
//! (plus the first record's timestamp); here a pass starts one mean gap later, so the seam
//! between passes looks like the rest of the trace.
//!
//! Pass `k` (from 0) is the file read again from its start, every time shifted by `k × period`.
//! The period is the first pass's span (its latest time, after `time_scale`) plus its mean gap
//! between requests (span / (requests − 1), rounded down; 0 for a one-request trace): each pass
//! starts one mean gap after the previous pass's latest request. Every pass reads the file again
//! (memory stays O(1) in the trace's length) and yields the same requests as the first.

use super::{open_reader_at, Reader, TraceOptions};
use crate::error::{Error, Location};
use crate::workload::{Request, Workload};

/// A trace read `opts.repeat` times.
pub(crate) struct Repeat {
    opts: TraceOptions,
    reader: Reader,
    /// The pass being read, from 0.
    pass: u32,
    /// During the first pass: its latest time and its requests so far.
    latest: u64,
    count: u64,
    /// The shift between passes, known once the first pass has ended.
    period: u64,
}

impl Repeat {
    /// The trace `opts` names, opened for its first pass. A pipe or a FIFO is refused before it
    /// is opened: it yields its records once, so a second pass would find nothing, or wait (a
    /// missing file is left to the open's own error).
    pub(crate) fn open(opts: &TraceOptions) -> Result<Self, Error> {
        let path = &opts.path;
        if super::builtin::find(path).is_none() && path.exists() && !path.is_file() {
            return Err(Error::config(
                "workload.repeat",
                format!(
                    "`{}` is not a regular file, so it cannot be read again for another pass; \
                     save the trace to a file to repeat it",
                    path.display()
                ),
            ));
        }
        let reader = open_reader_at(opts)?;
        Ok(Repeat { opts: opts.clone(), reader, pass: 0, latest: 0, count: 0, period: 0 })
    }
}

impl Workload for Repeat {
    fn next_request(&mut self) -> Result<Option<Request>, Error> {
        loop {
            if let Some(mut req) = self.reader.next_request()? {
                if self.pass == 0 {
                    self.latest = self.latest.max(req.time_ns);
                    self.count += 1;
                } else {
                    let shift = u64::from(self.pass).checked_mul(self.period);
                    req.time_ns = shift.and_then(|s| req.time_ns.checked_add(s)).ok_or_else(|| {
                        let mut at = self.reader.here();
                        at.field = Some("time".into());
                        Error::input(
                            at,
                            format!(
                                "pass {} of workload.repeat is too far (> 584 years) after the first",
                                self.pass + 1
                            ),
                        )
                    })?;
                }
                return Ok(Some(req));
            }
            if self.pass + 1 >= self.opts.repeat {
                return Ok(None);
            }
            if self.pass == 0 {
                let gap = if self.count > 1 { self.latest / (self.count - 1) } else { 0 };
                self.period = self.latest.saturating_add(gap);
            }
            self.pass += 1;
            self.reader = open_reader_at(&self.opts)?;
        }
    }

    fn location(&self) -> Option<Location> {
        self.reader.location()
    }

    /// Every pass counts: the file's progress, plus one file per pass done, of one per pass.
    fn progress(&self) -> Option<(u64, u64)> {
        let (done, size) = self.reader.progress()?;
        let passes = u64::from(self.opts.repeat);
        Some((u64::from(self.pass).saturating_mul(size).saturating_add(done), passes.saturating_mul(size)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;
    use std::path::PathBuf;

    fn requests(wl: &mut dyn Workload) -> Vec<Request> {
        std::iter::from_fn(|| wl.next_request().expect("a valid trace")).collect()
    }

    /// An MSR trace written to a scratch file, removed when dropped.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn trace(name: &str, lines: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("flashlab-repeat-{}-{name}.csv", std::process::id()));
        std::fs::write(&path, lines).expect("write a scratch trace");
        Scratch(path)
    }

    fn msr(path: &Scratch, repeat: u32) -> TraceOptions {
        TraceOptions { format: Some("msr".into()), repeat, ..TraceOptions::new(&path.0) }
    }

    #[test]
    fn passes_follow_each_other_one_mean_gap_apart() {
        // MSR: FILETIME (100 ns units); requests at 0, 300 and 900 ns: span 900, mean gap 450.
        let f = trace(
            "gaps",
            "128166372003061629,h,0,Read,0,4096,10\n\
             128166372003061632,h,0,Write,8192,4096,10\n\
             128166372003061638,h,0,Read,4096,512,10\n",
        );
        let mut opts = msr(&f, 1);
        let once = requests(&mut *super::super::open(&opts).expect("opens"));
        assert_eq!(once.iter().map(|r| r.time_ns).collect::<Vec<_>>(), [0, 300, 900]);
        opts.repeat = 3;
        let mut wl = super::super::open(&opts).expect("opens");
        let all = requests(&mut *wl);
        assert_eq!(all.len(), 9);
        assert_eq!(
            all.iter().map(|r| r.time_ns).collect::<Vec<_>>(),
            [0, 300, 900, 1350, 1650, 2250, 2700, 3000, 3600]
        );
        for (k, pass) in all.chunks(3).enumerate() {
            for (r, o) in pass.iter().zip(&once) {
                assert_eq!((r.op, r.offset, r.len), (o.op, o.offset, o.len), "pass {k}");
            }
        }
        assert_eq!(all[1].op, Op::Write);
        // The last pass reads the file to its end: progress is complete.
        let (done, total) = wl.progress().expect("a file's size is known");
        assert_eq!(done, total);
        assert!(wl.next_request().expect("ended").is_none());
    }

    #[test]
    fn a_one_request_trace_repeats_at_its_own_time() {
        let f = trace("one", "128166372003061629,h,0,Read,0,4096,10\n");
        let opts = msr(&f, 2);
        let all = requests(&mut *super::super::open(&opts).expect("opens"));
        assert_eq!(all.iter().map(|r| r.time_ns).collect::<Vec<_>>(), [0, 0]);
    }

    #[test]
    fn a_pass_beyond_the_clock_is_an_error_naming_the_line() {
        // Span ~5.8e18 ns: the third pass's times pass u64::MAX ns.
        let f = trace(
            "far",
            "0,h,0,Read,0,4096,10\n\
             58000000000000000,h,0,Read,0,4096,10\n",
        );
        let opts = msr(&f, 3);
        let mut wl = super::super::open(&opts).expect("opens");
        let mut err = None;
        for _ in 0..6 {
            if let Err(e) = wl.next_request() {
                err = Some(e.to_string());
                break;
            }
        }
        let err = err.expect("the third pass overflows the clock");
        assert!(err.contains(":1") && err.contains("workload.repeat") && err.contains("pass 3"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_refused_before_it_is_read() {
        // What `--set workload.path=/dev/stdin` is when a trace is piped in: no second pass.
        let dir = std::env::temp_dir().join(format!("flashlab-repeat-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let fifo = dir.join("trace.csv");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("no NUL in a temp path");
        // SAFETY: `c_path` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo {}", fifo.display());
        // Refused without opening it (opening a FIFO with no writer would wait).
        let err = super::super::open(&msr(&Scratch(fifo.clone()), 2)).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("workload.repeat") && err.contains("not a regular file"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn zero_passes_and_streams_are_refused() {
        let f = trace("zero", "0,h,0,Read,0,4096,10\n");
        let opts = msr(&f, 0);
        let err = super::super::open(&opts).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("workload.repeat") && err.contains("at least 1"), "{err}");
        let opts = TraceOptions { repeat: 2, format: Some("msr".into()), ..TraceOptions::new("stdin") };
        let stream = Box::new(std::io::Cursor::new(b"0,h,0,Read,0,4096,10\n".to_vec()));
        let err = super::super::open_stream(stream, &opts).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("workload.repeat") && err.contains("stream"), "{err}");
    }
}
