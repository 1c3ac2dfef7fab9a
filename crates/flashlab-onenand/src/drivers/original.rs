//! Original (paper §4.1): Linux 2.6.21's MTD block device. For each I/O segment it gets the
//! segment, then calls the low-level driver once per 512-byte sector (through mtdblock), so dual
//! buffering never applies; the BufferRAM check still loads each 2 KB page once.

use super::Driver;
use crate::costs::{HostCosts, SECTOR_BYTES};
use crate::device::{Cost, OneNand};
use crate::request::{end_segment, get_segment, Request};
use flashlab::error::Error;

pub struct Original {
    costs: HostCosts,
}

pub fn build(costs: &HostCosts) -> Result<Box<dyn Driver>, Error> {
    Ok(Box::new(Original { costs: costs.clone() }))
}

impl Driver for Original {
    fn read(&self, dev: &mut OneNand, req: &Request) -> Result<(), Error> {
        for seg in req.segments() {
            get_segment(dev, &self.costs);
            for s in 0..seg.bytes / SECTOR_BYTES {
                dev.cpu(Cost::Call, self.costs.sector_call_ns);
                dev.read_bytes(seg.device_offset + s * SECTOR_BYTES, SECTOR_BYTES, false)?;
            }
            end_segment(dev, &self.costs);
        }
        Ok(())
    }
}
