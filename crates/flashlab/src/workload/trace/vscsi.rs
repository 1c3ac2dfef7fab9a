//! CloudPhysics / VMware vscsiStats binary traces, VSCSI version 1 (as read by libCacheSim's
//! `vscsiReader`; `data/cloudPhysicsIO.vscsi`). Owns reading of 32-byte records.
//!
//! Layout: consecutive 32-byte little-endian records, no header:
//! `u32 sn, u32 len (bytes), u32 nSG, u16 cmd (SCSI opcode), u16 ver, u64 lbn (512-byte
//! sectors), u64 ts (µs)`. `ver >> 8` is the record version and must be 1 (version-2 records are
//! 40 bytes and laid out differently; libCacheSim's `test_vscsi_version` uses the same test).
//! Documented by libCacheSim's `vscsi.h` (`trace_v1_record_t`).
//!
//! Errors name the record number (1-based) as the "line". A file whose size is not a multiple
//! of 32 bytes ends in a truncated record, which is an error naming its byte offset. Commands that
//! move no data are skipped (see `scsi.rs`); reads and writes of 0 bytes are errors. Detected by
//! the file extension `.vscsi` only (binary content cannot be sniffed reliably).

use std::io::{BufRead, ErrorKind, Read};

use super::input::{Input, Progress};
use super::lines::{read_error, Ctx};
use super::scsi::{self, Command};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Settings, Source};
use crate::error::{Error, Location};
use crate::registry::Entry;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "vscsi",
    about: "binary VSCSI v1 (CloudPhysics): 32-byte LE records sn,len(B),nSG,cmd(SCSI),ver,lbn(512 B sectors),ts(µs)",
    params: crate::registry::no_params,
    caps: FormatCaps { device_column: None, time_unit_override: false, detect: Detect::Extension("vscsi") },
    build: Opener(open),
};

const RECORD_BYTES: usize = 32;

/// The record version in `ver >> 8`.
const VERSION: u16 = 1;

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(Box::new(Vscsi { reader: input.reader, name: input.name, progress: input.progress, record: 0, last: 0 }))
}

struct Vscsi {
    reader: Box<dyn BufRead + Send>,
    name: String,
    progress: Option<Progress>,
    /// Records read so far.
    record: u64,
    /// Number of the last record returned.
    last: u64,
}

impl Vscsi {
    /// Fill `buf` completely; `Ok(false)` at a clean end of file; an error if the file ends
    /// inside a record.
    fn read_record(&mut self, buf: &mut [u8; RECORD_BYTES]) -> Result<bool, Error> {
        let mut got = 0;
        while got < RECORD_BYTES {
            match self.reader.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(read_error(&self.name, self.record + 1, e)),
            }
        }
        if got == 0 {
            return Ok(false);
        }
        self.record += 1;
        if got < RECORD_BYTES {
            let offset = (self.record - 1) * RECORD_BYTES as u64;
            let msg = format!(
                "truncated record at byte offset {offset}: {got} of {RECORD_BYTES} bytes before the end of the file"
            );
            return Err(Error::input(Location::line(&self.name, self.record), msg));
        }
        Ok(true)
    }

    fn decode(&self, r: &[u8; RECORD_BYTES]) -> Result<Option<Record>, Error> {
        let at = Ctx { file: &self.name, line: self.record };
        let len = u64::from(u32::from_le_bytes([r[4], r[5], r[6], r[7]]));
        let cmd = u16::from_le_bytes([r[12], r[13]]);
        let ver = u16::from_le_bytes([r[14], r[15]]);
        let lbn = u64::from_le_bytes([r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23]]);
        let ts_us = u64::from_le_bytes([r[24], r[25], r[26], r[27], r[28], r[29], r[30], r[31]]);
        if ver >> 8 != VERSION {
            return Err(
                at.err("ver", format!("record version {} (ver = 0x{ver:04x}) is not VSCSI version 1", ver >> 8))
            );
        }
        let offset =
            lbn.checked_mul(512).ok_or_else(|| at.err("lbn", format!("lbn {lbn} overflows a 64-bit byte offset")))?;
        match scsi::command(u64::from(cmd)) {
            Command::Io(op) => at.record(u128::from(ts_us) * 1_000, op, (offset, len), "len", None).map(Some),
            Command::NonIo => Ok(None),
            Command::Unknown => Err(at.err("cmd", scsi::unknown(u64::from(cmd)))),
        }
    }
}

impl Source for Vscsi {
    fn next_record(&mut self) -> Result<Option<Record>, Error> {
        let mut buf = [0u8; RECORD_BYTES];
        while self.read_record(&mut buf)? {
            if let Some(rec) = self.decode(&buf)? {
                self.last = self.record;
                return Ok(Some(rec));
            }
        }
        Ok(None)
    }

    fn location(&self) -> Location {
        Location::line(&self.name, self.last)
    }

    fn progress(&self) -> Option<(u64, u64)> {
        self.progress.as_ref().map(Progress::get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;

    fn record(len: u32, cmd: u16, ver: u16, lbn: u64, ts: u64) -> Vec<u8> {
        let mut r = Vec::with_capacity(RECORD_BYTES);
        r.extend(7u32.to_le_bytes());
        r.extend(len.to_le_bytes());
        r.extend(1u32.to_le_bytes());
        r.extend(cmd.to_le_bytes());
        r.extend(ver.to_le_bytes());
        r.extend(lbn.to_le_bytes());
        r.extend(ts.to_le_bytes());
        r
    }

    fn all(bytes: Vec<u8>) -> Result<Vec<Record>, Error> {
        let input = Input { name: "t.vscsi".into(), reader: Box::new(std::io::Cursor::new(bytes)), progress: None };
        let mut src = open(input, &Settings::default())?;
        let mut out = Vec::new();
        while let Some(r) = src.next_record()? {
            out.push(r);
        }
        Ok(out)
    }

    #[test]
    fn reads_records_and_skips_non_io() {
        let mut bytes = record(512, 0x2a, 0x100, 42_932_745, 5_633_898_368_802);
        bytes.extend(record(0, 0x35, 0x100, 0, 5_633_898_368_900));
        bytes.extend(record(4096, 0x28, 0x100, 8, 5_633_898_369_000));
        let recs = all(bytes).expect("valid");
        assert_eq!(recs.len(), 2);
        assert_eq!(
            recs[0],
            Record {
                time_ns: 5_633_898_368_802_000,
                op: Op::Write,
                offset: 42_932_745 * 512,
                len: 512,
                device: None,
                placement: None,
                file: None
            }
        );
        assert_eq!(recs[1].op, Op::Read);
    }

    #[test]
    fn truncated_and_bad_records_are_errors() {
        let mut bytes = record(512, 0x2a, 0x100, 1, 1);
        bytes.extend(&record(512, 0x2a, 0x100, 1, 1)[..20]);
        let msg = all(bytes).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("t.vscsi:2") && msg.contains("byte offset 32"), "{msg}");
        let msg = all(record(512, 0x2a, 0x200, 1, 1)).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("t.vscsi:1: field `ver`"), "{msg}");
        let msg = all(record(0, 0x28, 0x100, 1, 1)).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("field `len`"), "{msg}");
        let msg = all(record(1, 0x42, 0x100, 1, 1)).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("field `cmd`"), "{msg}");
    }
}
