//! The host block layer's read request (paper §2.2, Fig. 4): contiguous device sectors mapped to
//! non-contiguous memory I/O segments, each inside one memory page (at most 4 KB; the page cache
//! gives one segment per page, a 1 KB-block file system's buffers one per 1 KB buffer, Fig. 12).
//!
//! Costs of the block layer (§4.3): *get request* takes work off the queue, *end request*
//! completes it. A segment driver (Original, DualOP-4KB) pays both per segment, as Linux 2.6's
//! `mtd_blkdevs` does (`elv_next_request` … `end_request` once per segment); a virtual-segment
//! driver pays them once per request plus a small walk over its segments.

use crate::costs::{HostCosts, SECTOR_BYTES};
use crate::device::{Cost, OneNand};
use flashlab::error::Error;

/// One memory I/O segment: `bytes` of device data landing in memory frame `frame`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Device byte address of the segment's first byte.
    pub device_offset: u64,
    pub bytes: u64,
    /// Memory page frame the buffer lives in (non-contiguous across segments).
    pub frame: u64,
}

/// A block-layer read request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    segments: Vec<Segment>,
}

impl Request {
    /// A read of `bytes` from device byte `offset`, split into segments of `segment_bytes` (the
    /// last may be shorter) on scattered memory frames. `segment_bytes` must divide the memory
    /// page and be whole sectors.
    pub fn read(offset: u64, bytes: u64, segment_bytes: u64, costs: &HostCosts) -> Result<Request, Error> {
        if bytes == 0 || !offset.is_multiple_of(SECTOR_BYTES) || !bytes.is_multiple_of(SECTOR_BYTES) {
            return Err(Error::config(
                "onenand.request",
                format!("{bytes} bytes at {offset}: a request is whole 512-byte sectors, at least one"),
            ));
        }
        if segment_bytes == 0
            || !segment_bytes.is_multiple_of(SECTOR_BYTES)
            || !costs.memory_page_bytes.is_multiple_of(segment_bytes)
        {
            return Err(Error::config(
                "onenand.segment_bytes",
                format!(
                    "{segment_bytes}: a segment is whole sectors and divides the {}-byte memory page",
                    costs.memory_page_bytes
                ),
            ));
        }
        let per_frame = costs.memory_page_bytes / segment_bytes;
        let n = bytes.div_ceil(segment_bytes);
        let segments = (0..n)
            .map(|i| Segment {
                device_offset: offset + i * segment_bytes,
                bytes: segment_bytes.min(bytes - i * segment_bytes),
                // Scattered frames: a fixed odd stride keeps them distinct and non-adjacent.
                frame: ((i / per_frame) * 7919 + 1) % 1_000_003,
            })
            .collect();
        Ok(Request { segments })
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
    pub fn offset(&self) -> u64 {
        self.segments[0].device_offset
    }
    pub fn bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.bytes).sum()
    }
    /// Distinct memory pages the request's buffers occupy (what a virtual segment maps).
    pub fn memory_pages(&self, costs: &HostCosts) -> u64 {
        self.bytes().div_ceil(costs.memory_page_bytes)
    }
}

/// Block-layer work per segment (segment drivers).
pub fn get_segment(dev: &mut OneNand, costs: &HostCosts) {
    dev.cpu(Cost::GetRequest, costs.seg_get_request_ns);
}
pub fn end_segment(dev: &mut OneNand, costs: &HostCosts) {
    dev.cpu(Cost::EndRequest, costs.seg_end_request_ns);
}

/// Block-layer work once per request (virtual-segment drivers); the walk over segments is part
/// of completing them.
pub fn get_whole(dev: &mut OneNand, costs: &HostCosts) {
    dev.cpu(Cost::GetRequest, costs.vseg_get_request_ns);
}
pub fn end_whole(dev: &mut OneNand, costs: &HostCosts, req: &Request) {
    dev.cpu(Cost::EndRequest, costs.vseg_end_request_ns + costs.vseg_per_segment_ns * req.segments().len() as u64);
}
