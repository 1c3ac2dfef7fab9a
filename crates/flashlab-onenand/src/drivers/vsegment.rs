//! V-Segment (paper §3.1, §4.1): merge the request's segments into one virtual I/O segment
//! (map their pages at a fresh contiguous virtual range, Fig. 6–7), read the whole request with
//! one dual-buffered low-level call, tear the mapping down. Block-layer work once per request.
//! For 2N pages and Tload ≥ Tread this is 2·Tload·N + Tread of flash time instead of
//! (2·Tload + Tread)·N, at the price of creation + teardown (40–50 µs, §3.2).

use super::Driver;
use crate::costs::HostCosts;
use crate::device::{Cost, OneNand};
use crate::request::{end_whole, get_whole, Request};
use flashlab::error::Error;

pub struct VSegment {
    costs: HostCosts,
}

pub fn build(costs: &HostCosts) -> Result<Box<dyn Driver>, Error> {
    Ok(Box::new(VSegment { costs: costs.clone() }))
}

impl Driver for VSegment {
    fn read(&self, dev: &mut OneNand, req: &Request) -> Result<(), Error> {
        let c = &self.costs;
        let pages = req.memory_pages(c);
        get_whole(dev, c);
        dev.cpu(Cost::VmapCreate, c.vmap_range_alloc_ns + c.vmap_create_ns + c.vmap_create_per_page_ns * pages);
        dev.cpu(Cost::Call, c.call_ns);
        dev.read_bytes(req.offset(), req.bytes(), true)?;
        dev.cpu(Cost::VmapTeardown, c.vmap_teardown_ns + c.vmap_teardown_per_page_ns * pages + c.vmap_range_free_ns);
        end_whole(dev, c, req);
        Ok(())
    }
}
