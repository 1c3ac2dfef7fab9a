//! The OneNAND raw-flash read path of the V-Segment paper (Hyun & Koh, KIISE 2008): a host
//! block layer whose requests map contiguous sectors to ≤ 4 KB memory segments
//! ([`request`]), flash block-device drivers that turn them into low-level calls
//! ([`drivers`]), and the chip itself — a NAND core and two DataRAMs with dual buffering
//! ([`device`]). No FTL sits on this path (Linux MTD reads the raw chip). Every cost is in
//! [`costs`] with its source; [`paging`] models the demand-paging workload of §4.5.
//!
//! Separate from the SSD stack (`flashlab`'s device, FTL and NAND): nothing here touches it, so
//! it is a crate of its own, as Linux keeps MTD (raw flash) apart from block devices with an
//! FTL. It takes only `flashlab`'s [`Error`], so its errors read and propagate like the rest.

pub mod costs;
pub mod device;
pub mod drivers;
pub mod paging;
pub mod request;

use costs::{DeviceTiming, HostCosts};
use device::{Accounting, Event, OneNand};
use drivers::Driver;
use flashlab::error::Error;
use request::Request;

/// One request served on a fresh device.
#[derive(Clone, Debug)]
pub struct Measured {
    pub latency_ns: u64,
    pub acct: Accounting,
    pub loads: u64,
    /// Calls, loads and reads, in order.
    pub trace: Vec<Event>,
}

/// Read `bytes` from device byte `offset` in segments of `segment_bytes` with `driver`, on a
/// fresh (idle, empty-buffered) device.
pub fn measure_read(
    driver: &dyn Driver,
    timing: &DeviceTiming,
    costs: &HostCosts,
    offset: u64,
    bytes: u64,
    segment_bytes: u64,
) -> Result<Measured, Error> {
    let req = Request::read(offset, bytes, segment_bytes, costs)?;
    let mut dev = OneNand::new(timing.clone())?.with_trace();
    driver.read(&mut dev, &req)?;
    assert_eq!(dev.accounting().total(), dev.now_ns(), "the cost categories sum to the elapsed time");
    Ok(Measured {
        latency_ns: dev.now_ns(),
        acct: dev.accounting().clone(),
        loads: dev.loads(),
        trace: dev.trace().to_vec(),
    })
}
