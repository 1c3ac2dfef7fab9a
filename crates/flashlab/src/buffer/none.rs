//! No write buffer: reads, writes and trims pass straight to the FTL.

use super::{BufferConfig, WriteBuffer};
use crate::error::Error;
use crate::ftl::{Ftl, ReadOutcome};

pub struct NoBuffer;

pub fn build(cfg: &BufferConfig, _ctx: &super::BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    super::no_params(cfg)?;
    Ok(Box::new(NoBuffer))
}

impl WriteBuffer for NoBuffer {
    #[inline]
    fn read(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<ReadOutcome, Error> {
        ftl.read(lpn, t_ns)
    }
    #[inline]
    fn write(&mut self, lpn: u64, tag: u32, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        ftl.write(lpn, tag, t_ns)
    }
    fn trim(&mut self, lpn: u64, t_ns: u64, ftl: &mut dyn Ftl) -> Result<u64, Error> {
        ftl.trim(lpn, t_ns)
    }
    fn flush(&mut self, t_ns: u64, _ftl: &mut dyn Ftl) -> Result<u64, Error> {
        Ok(t_ns)
    }
}
