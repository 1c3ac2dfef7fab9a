//! `plane-page`: page mapping with the whole table in RAM whose data plane is fixed by address
//! (plane = LPN mod planes, WADPM's Eq. 1) — WADPM's placement without its cached table, the
//! ablation that separates the two. GC, victim policies and schedules are the page-mapped FTL's.

use super::maptable::{MapTable, ENTRY_BYTES};
use super::page::PageFtl;
use super::{Ftl, FtlSpec, MappingReport};
use crate::error::Error;
use crate::nand::Timeline;

/// A resident table that fixes each logical page's plane.
#[derive(Clone)]
pub struct PlaneFixed {
    planes: u32,
}

pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    crate::registry::no_params("ftl.mapping_params", "plane-page", &spec.config.mapping_params)?;
    Ok(Box::new(PageFtl::with_table(spec, PlaneFixed { planes: spec.layout.planes })?))
}

impl MapTable for PlaneFixed {
    fn lookup(&mut self, _lpn: u64, _write: bool, t_ns: u64, _tl: Option<&mut Timeline>) -> u64 {
        t_ns
    }
    fn placement(&self, lpn: u64) -> Option<u32> {
        Some((lpn % self.planes as u64) as u32)
    }
    fn lookups_free(&self) -> bool {
        true
    }
    fn moved(&mut self, _lpn: u64) {}
    fn victim_done(&mut self, _t_ns: u64, _tl: Option<&mut Timeline>) {}
    fn ram_bytes(&self, logical_pages: u64) -> u64 {
        logical_pages * ENTRY_BYTES
    }
    fn report(&self, _logical_pages: u64) -> Option<MappingReport> {
        None
    }
    fn validate(&self, logical_pages: u64, plane_of: &dyn Fn(u64) -> Option<u32>) -> Result<(), String> {
        match (0..logical_pages).find(|&l| plane_of(l).is_some_and(|p| p as u64 != l % self.planes as u64)) {
            Some(l) => Err(format!("plane-page: lpn {l} outside plane {}", l % self.planes as u64)),
            None => Ok(()),
        }
    }
}
