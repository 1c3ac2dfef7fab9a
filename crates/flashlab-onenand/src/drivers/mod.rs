//! Flash block-device drivers (paper §4.1), one file each, behind [`Driver`] and named in
//! [`DRIVERS`]. A driver turns a block-layer [`Request`] into block-layer work and low-level
//! calls on the [`OneNand`]; it never reorders or skips sectors.

pub mod dualop4kb;
pub mod optimized;
pub mod original;
pub mod vsegment;

use crate::costs::HostCosts;
use crate::device::OneNand;
use crate::request::Request;
use flashlab::error::Error;

/// A flash block-device driver on the OneNAND read path.
pub trait Driver {
    /// Serve one read request, advancing the device's host clock.
    fn read(&self, dev: &mut OneNand, req: &Request) -> Result<(), Error>;
}

/// One registry line per driver.
pub struct DriverInfo {
    /// Registry name.
    pub name: &'static str,
    /// The paper's name (figure legends).
    pub label: &'static str,
    pub about: &'static str,
    pub build: fn(&HostCosts) -> Result<Box<dyn Driver>, Error>,
}

pub const DRIVERS: &[DriverInfo] = &[
    DriverInfo {
        name: "original",
        label: "Original",
        about: "MTD's block device: one low-level call per 512 B sector, no dual buffering",
        build: original::build,
    },
    DriverInfo {
        name: "dualop-4kb",
        label: "DualOP-4KB",
        about: "one low-level call per I/O segment (≤ 4 KB), dual buffering inside it",
        build: dualop4kb::build,
    },
    DriverInfo {
        name: "v-segment",
        label: "V-Segment",
        about: "one virtual I/O segment per request, one dual-buffered call for all of it",
        build: vsegment::build,
    },
    DriverInfo {
        name: "optimized",
        label: "Optimized",
        about:
            "V-Segment with address-range reservation, creation hidden behind the first load, above a 12 KB threshold",
        build: optimized::build,
    },
];

pub fn names() -> Vec<&'static str> {
    DRIVERS.iter().map(|d| d.name).collect()
}

pub fn find(name: &str) -> Result<&'static DriverInfo, Error> {
    DRIVERS.iter().find(|d| d.name == name).ok_or_else(|| Error::unknown("onenand driver", name, names()))
}

/// Build the driver `name` with `costs` (validated).
pub fn build(name: &str, costs: &HostCosts) -> Result<Box<dyn Driver>, Error> {
    costs.validate()?;
    (find(name)?.build)(costs)
}
