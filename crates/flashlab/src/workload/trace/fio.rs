//! fio I/O logs (`write_iolog=` / `read_iolog=`), versions 2 and 3. Owns the header check, the
//! v2 wait clock and parsing of one line.
//!
//! Documented in fio's HOWTO ("Trace file format") and implemented by `read_iolog()` in fio's
//! iolog.c. The first non-blank line is the header and selects the version:
//! - `fio version 2 iolog`: lines `filename action` (add/open/close) or
//!   `filename action offset length` (read/write/trim/sync/datasync/wait). v2 has no timestamps:
//!   requests are at time 0 except that `wait` lines advance the clock by `offset` microseconds
//!   (fio sleeps that long during replay).
//! - `fio version 3 iolog`: every line starts with a timestamp in milliseconds:
//!   `ms filename action` or `ms filename action offset length`. fio ignores `wait` in v3; so do we.
//!
//! read/write/trim become requests (offset, length in bytes; length 0 is an error). Skipped on
//! purpose, because they move no data: add/open/close (file management), sync/datasync (cache
//! flushes), and v3 `wait`. Version 1 logs (no header) are rejected, as fio itself does.
//! Offsets are per file, so a log whose I/O touches more than one file is an error rather than a
//! silent merge of unrelated address spaces. There is no device column.

use super::input::Input;
use super::lines::{show, split, trim, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "fio",
    about: "fio iolog v2/v3 (header `fio version N iolog`): [ms] filename action [offset length]; v2 `wait` advances time (µs)",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: None, time_unit_override: false, detect: Detect::Sniff(sniff_fio) },
    build: Opener(open),
};

/// Detection: the header `fio version 2 iolog` or `fio version 3 iolog`.
fn sniff_fio(s: &Sample) -> bool {
    let line = trim(s.first());
    line.starts_with(b"fio version 2 iolog") || line.starts_with(b"fio version 3 iolog")
}

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, Fio { version: None, wait_ns: 0, file: None }))
}

struct Fio {
    /// 2 or 3 once the header has been read.
    version: Option<u8>,
    /// v2 clock: sum of `wait` lines so far, in ns.
    wait_ns: u128,
    /// The file the first I/O line names.
    file: Option<Vec<u8>>,
}

/// What a line's action word means.
enum Action {
    Io(Op),
    File,
    Sync,
    Wait,
}

fn action(word: &[u8], at: &Ctx) -> Result<Action, Error> {
    Ok(match word {
        b"read" => Action::Io(Op::Read),
        b"write" => Action::Io(Op::Write),
        b"trim" => Action::Io(Op::Trim),
        b"add" | b"open" | b"close" => Action::File,
        b"sync" | b"datasync" => Action::Sync,
        b"wait" => Action::Wait,
        _ => {
            return Err(at.err(
                "action",
                format!(
                    "`{}` is not an iolog action (add, open, close, read, write, trim, sync, datasync, wait)",
                    show(word)
                ),
            ))
        }
    })
}

impl Fio {
    fn header(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        self.version = match trim(line) {
            b"fio version 2 iolog" => Some(2),
            b"fio version 3 iolog" => Some(3),
            _ => {
                let msg = format!(
                    "`{}` is not `fio version 2 iolog` or `fio version 3 iolog` (v1 logs are not supported)",
                    show(line)
                );
                return Err(at.err("header", msg));
            }
        };
        Ok(None)
    }

    /// A v2 line: `filename action [offset length]`.
    fn v2(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let ([file, act, offset, length], count) = split::<4>(line, Sep::Space);
        if count != 2 && count != 4 {
            return Err(at.err_line(format!("expected 2 or 4 space-separated fields (v2), found {count}")));
        }
        let args = (count == 4).then_some((offset, length));
        let time_ns = self.wait_ns;
        self.act(file, action(act, at)?, args, time_ns, at)
    }

    /// A v3 line: `ms filename action [offset length]`.
    fn v3(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let ([ms, file, act, offset, length], count) = split::<5>(line, Sep::Space);
        if count != 3 && count != 5 {
            return Err(at.err_line(format!("expected 3 or 5 space-separated fields (v3), found {count}")));
        }
        let time_ns = u128::from(at.uint("timestamp", ms)?) * 1_000_000;
        let act = match action(act, at)? {
            Action::Wait => return Ok(None),
            other => other,
        };
        self.act(file, act, (count == 5).then_some((offset, length)), time_ns, at)
    }

    fn act(
        &mut self,
        file: &[u8],
        act: Action,
        args: Option<(&[u8], &[u8])>,
        time_ns: u128,
        at: &Ctx,
    ) -> Result<Option<Record>, Error> {
        match (act, args) {
            (Action::File, None) | (Action::Sync, _) => Ok(None),
            (Action::Wait, Some((usec, _))) => {
                self.wait_ns = self.wait_ns.saturating_add(u128::from(at.uint("offset", usec)?) * 1_000);
                Ok(None)
            }
            (Action::Io(op), Some((offset, length))) => {
                self.check_file(file, at)?;
                let range = (at.uint("offset", offset)?, at.uint("length", length)?);
                at.record(time_ns, op, range, "length", None).map(Some)
            }
            (Action::File, Some(_)) => Err(at.err_line("add/open/close lines take no offset and length")),
            (Action::Wait | Action::Io(_), None) => Err(at.err_line("this action needs an offset and a length")),
        }
    }

    fn check_file(&mut self, file: &[u8], at: &Ctx) -> Result<(), Error> {
        match &self.file {
            None => self.file = Some(file.to_vec()),
            Some(first) if first.as_slice() == file => {}
            Some(first) => {
                let msg = format!(
                    "I/O to a second file `{}` (the first was `{}`): offsets are per file, so only single-file logs can be replayed",
                    show(file),
                    show(first)
                );
                return Err(at.err("filename", msg));
            }
        }
        Ok(())
    }
}

impl LineFormat for Fio {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        match self.version {
            None => self.header(line, at),
            Some(2) => self.v2(line, at),
            Some(_) => self.v3(line, at),
        }
    }

    fn finish(&mut self, at: &Ctx) -> Result<(), Error> {
        match self.version {
            None => {
                Err(at.err("header", "empty file: expected the header `fio version 2 iolog` or `fio version 3 iolog`"))
            }
            Some(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<Vec<Record>, Error> {
        crate::workload::trace::lines::parse_text(&mut Fio { version: None, wait_ns: 0, file: None }, text, "job.iolog")
    }

    #[test]
    fn v2_waits_advance_time() {
        let log = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n/dev/sdb wait 1500 0\n\
                   /dev/sdb read 4096 8192\n/dev/sdb sync 0 0\n/dev/sdb trim 0 4096\n/dev/sdb close";
        let recs = run(log).expect("valid log");
        let got: Vec<_> = recs.iter().map(|r| (r.time_ns, r.op, r.offset, r.len)).collect();
        assert_eq!(
            got,
            vec![(0, Op::Write, 0, 4096), (1_500_000, Op::Read, 4096, 8192), (1_500_000, Op::Trim, 0, 4096)]
        );
    }

    #[test]
    fn v3_has_millisecond_timestamps() {
        let log = "fio version 3 iolog\n0 /dev/nvme0n1 add\n2 /dev/nvme0n1 open\n5 /dev/nvme0n1 write 8192 4096\n7 /dev/nvme0n1 wait 10 0";
        let recs = run(log).expect("valid log");
        assert_eq!(recs.len(), 1);
        assert_eq!((recs[0].time_ns, recs[0].offset), (5_000_000, 8192));
    }

    #[test]
    fn bad_logs_are_errors() {
        for (log, want) in [
            ("/dev/sdb write 0 4096", "field `header`"),
            ("", "empty file"),
            ("fio version 2 iolog\n/dev/sdb write 0", "expected 2 or 4"),
            ("fio version 2 iolog\n/dev/sdb scribble 0 1", "field `action`"),
            ("fio version 2 iolog\n/dev/sdb write 0 0", "field `length`"),
            ("fio version 2 iolog\n/dev/sdb write 0 1\n/dev/sdc write 0 1", "field `filename`"),
            ("fio version 3 iolog\nx /dev/sdb write 0 1", "field `timestamp`"),
            ("fio version 3 iolog\n1 /dev/sdb write", "this action needs"),
        ] {
            let msg = run(log).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("job.iolog:") && msg.contains(want), "{log}: {msg}");
        }
    }
}
