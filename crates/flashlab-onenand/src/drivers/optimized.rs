//! Optimized (paper §3.2, §4.1): V-Segment with its three optimisations —
//! address-range reservation (§3.2.1: no range allocation or free, ≈ −10 µs), creation hidden
//! behind the first page load (§3.2.2, Fig. 9: issue the load, build the mapping while the core
//! loads), and selective use (§3.2.3: a virtual segment only for requests above
//! `optimized_threshold_bytes`, 12 KB in §4.1; smaller ones go segment by segment as
//! DualOP-4KB).

use super::dualop4kb::read_per_segment;
use super::Driver;
use crate::costs::HostCosts;
use crate::device::{Cost, OneNand};
use crate::request::{end_whole, get_whole, Request};
use flashlab::error::Error;

pub struct Optimized {
    costs: HostCosts,
}

pub fn build(costs: &HostCosts) -> Result<Box<dyn Driver>, Error> {
    Ok(Box::new(Optimized { costs: costs.clone() }))
}

impl Driver for Optimized {
    fn read(&self, dev: &mut OneNand, req: &Request) -> Result<(), Error> {
        let c = &self.costs;
        if req.bytes() <= c.optimized_threshold_bytes {
            return read_per_segment(dev, c, req);
        }
        let pages = req.memory_pages(c);
        get_whole(dev, c);
        dev.cpu(Cost::Call, c.call_ns);
        let create = c.vmap_create_ns + c.vmap_create_per_page_ns * pages;
        dev.read_bytes_overlapped(req.offset(), req.bytes(), true, |d| d.cpu(Cost::VmapCreate, create))?;
        dev.cpu(Cost::VmapTeardown, c.vmap_teardown_ns + c.vmap_teardown_per_page_ns * pages);
        end_whole(dev, c, req);
        Ok(())
    }
}
