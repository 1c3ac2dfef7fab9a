//! No write buffer: reads, writes and trims pass straight to the FTL.

use super::{BufferConfig, WriteBuffer};
use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};
use crate::units::{Lpn, Nanos};

/// No buffer: reads, writes and trims go straight to the FTL; nothing is held.
pub struct NoBuffer;

/// Build [`NoBuffer`]; it takes no parameters.
pub fn build(cfg: &BufferConfig, _ctx: &super::BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    super::no_params(cfg)?;
    Ok(Box::new(NoBuffer))
}

/// No buffer, no memory.
pub fn memory(_cfg: &BufferConfig, _ctx: &super::BufferContext, _est: &mut crate::memory::Estimate) {}

impl WriteBuffer for NoBuffer {
    #[inline]
    fn read(&mut self, lpn: Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        ftl.read(lpn, t)
    }
    #[inline]
    fn write(&mut self, lpn: Lpn, tag: u32, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        ftl.write(lpn, tag, t)
    }
    fn trim(&mut self, lpn: Lpn, t: Nanos, ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        ftl.trim(lpn, t)
    }
    fn flush(&mut self, t: Nanos, _ftl: &mut dyn Ftl) -> Result<Nanos, Error> {
        Ok(t)
    }
    fn passes_through(&self) -> bool {
        true
    }
}
