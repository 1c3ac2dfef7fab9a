//! DualOP-4KB (paper §4.1): Original changed to call the low-level driver once per I/O segment,
//! so dual buffering works inside each segment (at most 4 KB = two 2 KB pages: §2.2, Fig. 5).

use super::Driver;
use crate::costs::HostCosts;
use crate::device::{Cost, OneNand};
use crate::request::{end_segment, get_segment, Request};
use flashlab::error::Error;

pub struct DualOp4Kb {
    costs: HostCosts,
}

pub fn build(costs: &HostCosts) -> Result<Box<dyn Driver>, Error> {
    Ok(Box::new(DualOp4Kb { costs: costs.clone() }))
}

/// Serve `req` segment by segment (also Optimized's path at or below its threshold).
pub fn read_per_segment(dev: &mut OneNand, costs: &HostCosts, req: &Request) -> Result<(), Error> {
    for seg in req.segments() {
        get_segment(dev, costs);
        dev.cpu(Cost::Call, costs.call_ns);
        dev.read_bytes(seg.device_offset, seg.bytes, true)?;
        end_segment(dev, costs);
    }
    Ok(())
}

impl Driver for DualOp4Kb {
    fn read(&self, dev: &mut OneNand, req: &Request) -> Result<(), Error> {
        read_per_segment(dev, &self.costs, req)
    }
}
