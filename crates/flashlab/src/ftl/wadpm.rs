//! WADPM: Workload-Aware Dynamic Page Mapping (`shared/papers/000_*.txt`).
//!
//! A page-level mapping whose table lives in flash translation pages, per plane, with only part
//! of it cached in controller RAM ([`MapCache`]). Address translation (paper eq. 1–3):
//! plane = LPN mod planes, LPI = LPN div planes, and the plane's table maps LPI → PPI inside the
//! plane. Data never leaves its plane, so every GC move is a copy-back (block GC units, one pool
//! per plane, the GC victim policy of `[ftl] gc`).
//!
//! Built on the page-mapped FTL's mechanism (`page.rs`), which asks this module for the pool of
//! a host write and routes every lookup through the cache. Translation pages hold 4-byte
//! entries (`page_size / 4` per page); a map read costs a page read on the entry's plane, a map
//! write a page program there, both on the same array and channel as data. Where translation
//! pages sit physically, and their own garbage collection, are not modelled (their I/O is).

use super::mapcache::{CacheParams, MapCache};
use super::page::PageFtl;
use super::{Ftl, FtlSpec};
use crate::error::Error;
use crate::nand::GcUnit;

/// Bytes per mapping entry in a translation page and in RAM.
pub const ENTRY_BYTES: u64 = 4;

/// The plane-level translation of WADPM.
#[derive(Clone, Copy, Debug)]
pub struct PlaneMap {
    pub planes: u64,
    pub lpis_per_plane: u64,
}

impl PlaneMap {
    /// Eq. 1–2: (plane, LPI) of a logical page.
    #[inline]
    pub fn split(&self, lpn: u64) -> (u64, u64) {
        (lpn % self.planes, lpn / self.planes)
    }
    /// The cache entry of a logical page: the plane's table, then the LPI.
    #[inline]
    pub fn entry(&self, lpn: u64) -> u32 {
        let (plane, lpi) = self.split(lpn);
        (plane * self.lpis_per_plane + lpi) as u32
    }
    /// The plane holding the translation page `tpage` (entries of one plane are consecutive).
    #[inline]
    pub fn plane_of_tpage(&self, tpage: u32, per_tpage: u64) -> u32 {
        (tpage as u64 * per_tpage / self.lpis_per_plane) as u32
    }
}

pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    if spec.layout.unit != GcUnit::Block {
        return Err(Error::config("ftl.gc_unit", "wadpm keeps data in its plane: it needs gc_unit = \"block\""));
    }
    let params = CacheParams::parse(&spec.config.mapping_params)?;
    let planes = spec.layout.planes as u64;
    let map = PlaneMap { planes, lpis_per_plane: spec.logical_pages.div_ceil(planes) };
    // Entries per translation page: whole entries of one plane's table never straddle planes
    // because each plane's table starts a new page.
    let per_tpage = (spec.layout.geo.page_size as u64 / ENTRY_BYTES).max(1);
    let lpis_padded = map.lpis_per_plane.div_ceil(per_tpage) * per_tpage;
    let map = PlaneMap { planes, lpis_per_plane: lpis_padded };
    let cache = MapCache::new(params, planes * lpis_padded, per_tpage as u32);
    Ok(Box::new(PageFtl::with_cached_table(spec, Some(map), cache)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_follows_equations_1_to_3() {
        let m = PlaneMap { planes: 16, lpis_per_plane: 1024 };
        assert_eq!(m.split(0), (0, 0));
        assert_eq!(m.split(17), (1, 1));
        assert_eq!(m.split(16 * 5 + 3), (3, 5));
        assert_eq!(m.entry(16 * 5 + 3), 3 * 1024 + 5);
        // Translation pages of 512 entries: plane 3's table is pages 6 and 7.
        assert_eq!(m.plane_of_tpage(6, 512), 3);
        assert_eq!(m.plane_of_tpage(7, 512), 3);
    }
}
