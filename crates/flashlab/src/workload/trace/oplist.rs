//! A minimal text trace (registry name `oplist`): one request per line, 3 space-separated
//! fields `op offset_bytes length_bytes` with op `R`, `W` or `T` (trim); no time (requests
//! arrive closed-loop), no device column. Detected by its first line.

use super::input::Input;
use super::lines::{parse_u64, show, split, Ctx, LineFormat, LineSource, Sep};
use super::{Detect, FormatCaps, FormatEntry, Opener, Record, Sample, Settings, Source};
use crate::error::Error;
use crate::registry::Entry;
use crate::workload::Op;

/// The registry line.
pub(crate) const FORMAT: FormatEntry = Entry {
    name: "oplist",
    about: "op(R/W/T) offset_bytes length_bytes, space-separated, no time",
    params: crate::reference::no_params,
    caps: FormatCaps { device_column: None, time_unit_override: false, detect: Detect::Sniff(sniff_oplist) },
    build: Opener(open),
};

/// Detection: 3 space-separated fields, `R`, `W` or `T` first, then two integers.
fn sniff_oplist(s: &Sample) -> bool {
    let (f, n) = split::<3>(s.first(), Sep::Space);
    n == 3 && matches!(f[0], b"R" | b"W" | b"T") && parse_u64(f[1]).is_some() && parse_u64(f[2]).is_some()
}

fn open(input: Input, _settings: &Settings) -> Result<Box<dyn Source>, Error> {
    Ok(LineSource::boxed(input, OpList))
}

struct OpList;

impl LineFormat for OpList {
    fn parse(&mut self, line: &[u8], at: &Ctx) -> Result<Option<Record>, Error> {
        let [op, offset, len] = at.fields::<3>(line, Sep::Space)?;
        let op = match op {
            b"R" => Op::Read,
            b"W" => Op::Write,
            b"T" => Op::Trim,
            _ => return Err(at.err("op", format!("`{}` is not R, W or T", show(op)))),
        };
        let offset = at.uint("offset_bytes", offset)?;
        let len = at.uint("length_bytes", len)?;
        at.record(0, op, (offset, len), "length_bytes", None).map(Some)
    }
}
