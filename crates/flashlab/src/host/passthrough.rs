//! Pass-through host layer: a request covering bytes [offset, offset+len) touches pages
//! offset/page_size ..= (offset+len-1)/page_size. A partial-page write programs the whole page
//! (no read-modify-write is modelled). Pages of one request are issued together at `t`;
//! the request completes with its last page. The simulator applies the out-of-range policy
//! first; the device wraps (or, with `compact`, remaps) page numbers beyond its capacity.

use super::{HostConfig, HostContext, HostLayer};
use crate::device::Device;
use crate::error::Error;
use crate::units::{Lpn, Nanos};
use crate::workload::{Op, Request};

/// The pass-through host layer: a request's pages, in order, all issued at its time.
pub struct Passthrough;

/// Build [`Passthrough`]; it reads nothing from `[host]`.
pub fn build(_cfg: &HostConfig, _ctx: &HostContext) -> Result<Box<dyn HostLayer>, Error> {
    Ok(Box::new(Passthrough))
}

impl HostLayer for Passthrough {
    #[inline]
    fn submit(&mut self, req: &Request, t: Nanos, dev: &mut Device) -> Result<Nanos, Error> {
        let (first, last) = dev.page_span(req.offset, req.len);
        // Zone commands, and on a zoned device a trim (a reset of whole zones), go by the zone
        // rules.
        let cmd = match req.op {
            Op::Trim if dev.zone_pages().is_some() => Some(crate::ftl::zns::ZoneCommand::Trim),
            op => op.zone_command(),
        };
        if let Some(cmd) = cmd {
            return dev.zone_command(cmd, first, last, t);
        }
        let mut done = t;
        for lpn in (first..=last).map(Lpn) {
            let d = match req.op {
                Op::Read => dev.read(lpn, t)?,
                Op::Write => dev.write_placed(lpn, req.placement, t)?,
                Op::Trim => dev.trim(lpn, t)?,
                Op::ZoneAppend | Op::ZoneFinish | Op::ZoneReset => unreachable!("zone commands returned above"),
            };
            done = done.max(d);
        }
        Ok(done)
    }

    fn passes_through(&self) -> bool {
        true
    }
}
