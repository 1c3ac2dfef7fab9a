//! Workload layer: the top of the stack. A [`Workload`] is a stream of host [`Request`]s in bytes,
//! produced either by a generator (`gen/`, one file per generator) or by a trace reader
//! (`trace/`, one file per format). Workloads never see the device; the host layer turns bytes
//! into logical pages and applies the out-of-range policy.
//!
//! Fault model: a trace reader returns an [`Error`] naming file, line and field for every
//! malformed record; it never panics and never silently skips a line it cannot parse.

pub mod gen;
pub mod trace;

use crate::error::{Error, Location};

/// What a request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Read the byte range.
    Read,
    /// Write the byte range.
    Write,
    /// Discard / TRIM / unmap.
    Trim,
    /// Zone append (zoned devices): write the request's pages at the write pointer of the zone
    /// whose first page the offset names (NVMe ZNS's ZSLBA).
    #[serde(rename = "zone_append")]
    ZoneAppend,
    /// Zone finish (zoned devices): the zones the byte range covers, whole, become full.
    #[serde(rename = "zone_finish")]
    ZoneFinish,
    /// Zone reset (zoned devices): the zones the byte range covers, whole, are erased and
    /// their write pointers return to their start.
    #[serde(rename = "zone_reset")]
    ZoneReset,
}

impl Op {
    /// The zone command a zone append, finish or reset is (which only a zoned device takes);
    /// `None` for the others.
    #[inline]
    pub fn zone_command(self) -> Option<crate::ftl::zns::ZoneCommand> {
        use crate::ftl::zns::ZoneCommand;
        match self {
            Op::ZoneAppend => Some(ZoneCommand::Append),
            Op::ZoneFinish => Some(ZoneCommand::Finish),
            Op::ZoneReset => Some(ZoneCommand::Reset),
            Op::Read | Op::Write | Op::Trim => None,
        }
    }
}

/// One host request, in bytes, with its arrival time on the simulation clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Arrival time in ns from the start of the workload (0 for generators, which run closed-loop).
    pub time_ns: u64,
    /// What the request does.
    pub op: Op,
    /// Byte offset on the logical device.
    pub offset: u64,
    /// Length in bytes; always > 0.
    pub len: u64,
    /// Placement identifier the write carries (an NVMe FDP placement handle or a stream id:
    /// the trace's placement column, a generator's stream, or the host placement policy's
    /// choice); `None`: the device's default handle. Ignored by reads and trims.
    pub placement: Option<u16>,
    /// The file the request belongs to, for trace formats that say (`csv`'s `file` column);
    /// `None` otherwise. Only the host placement policy `file` reads it.
    pub file: Option<u32>,
}

/// A stream of requests. Streaming: implementations hold O(1) state, never a whole trace.
pub trait Workload: Send {
    /// The next request, `Ok(None)` at the end of the stream.
    fn next_request(&mut self) -> Result<Option<Request>, Error>;

    /// Append the next requests to `out` until it holds `max` or the stream ends (then it holds
    /// fewer), exactly as calls of [`Workload::next_request`] would yield them, and return
    /// `true`; for a stream whose requests cannot fail and name no location (a generator), so
    /// that reading ahead changes nothing. `false`, appending nothing, when the workload serves
    /// one request at a time (a trace: default).
    fn next_batch(&mut self, _out: &mut Vec<Request>, _max: usize) -> bool {
        false
    }

    /// Where the most recent request came from (file and line for traces), so that errors
    /// raised downstream (e.g. an address beyond capacity) can name it.
    fn location(&self) -> Option<Location> {
        None
    }

    /// Progress as (done, total) in any unit (bytes of file read, bytes of volume generated),
    /// for progress bars. `None` when unknown.
    fn progress(&self) -> Option<(u64, u64)> {
        None
    }

    /// At most how many requests and bytes the stream will yield, when known before it runs
    /// (generators know; a trace is not read ahead). The memory estimate bounds the structures
    /// that grow with a run's length by it.
    fn bound(&self) -> Option<Bound> {
        None
    }
}

/// Upper bounds on a workload's length: [`Workload::bound`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// At most this many requests.
    pub requests: u64,
    /// At most this many bytes, all requests together.
    pub bytes: u64,
    /// Every request's offset and length are multiples of this many bytes.
    pub align: u64,
}

/// What a generator needs to know about the device and the run.
#[derive(Clone, Debug)]
pub struct GenContext {
    /// Logical capacity of the device in bytes (the generator's address space).
    pub capacity_bytes: u64,
    /// Flash page size in bytes (the natural alignment of requests).
    pub page_size: u64,
    /// Seed for the generator's own RNG (derived from the run's seed).
    pub seed: u64,
    /// Name of the configuration source, for error messages (e.g. "configs/default.toml").
    pub source: String,
}
