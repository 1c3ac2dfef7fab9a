//! WADPM: Workload-Aware Dynamic Page Mapping (`shared/papers/000_*.txt`).
//!
//! A page-level mapping whose table lives in flash translation pages, per plane, with only part
//! of it cached in controller RAM ([`MapCache`]). Address translation (paper eq. 1–3):
//! plane = LPN mod planes, LPI = LPN div planes, and the plane's table maps LPI → PPI inside the
//! plane. Data never leaves its plane, so every GC move is a copy-back (block GC units, one pool
//! per plane, the GC victim policy of `[ftl] gc`): its registry line takes block units and
//! `full` striping only.
//!
//! Built on the page-mapped FTL's mechanism (`ftl/page/`) with a cached table
//! ([`CachedTable`]): this file supplies only the translation ([`Translate`] for [`PlaneMap`]),
//! which also fixes each write's pool. Translation pages hold 4-byte
//! entries (`page_size / 4` per page); a map read costs a page read on the entry's plane, a map
//! write a page program there, both on the same array and channel as data. Where translation
//! pages sit physically, and their own garbage collection, are not modelled (their I/O is).

use super::mapcache::{CacheParams, MapCache};
use super::maptable::{CachedTable, Translate, ENTRY_BYTES};
use super::page::PageFtl;
use super::{Ftl, FtlSpec};
use crate::error::Error;

/// The plane-level translation of WADPM.
#[derive(Clone, Copy, Debug)]
pub struct PlaneMap {
    /// Planes in the device.
    pub planes: u64,
    /// Entries in each plane's table: the plane's LPIs, rounded up to whole translation pages.
    pub lpis_per_plane: u64,
    /// Entries per translation page.
    pub per_tpage: u64,
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
}

impl Translate for PlaneMap {
    #[inline]
    fn entry(&self, lpn: u64) -> u32 {
        PlaneMap::entry(self, lpn)
    }
    /// Entries of one plane are consecutive, so its translation pages sit on that plane.
    #[inline]
    fn plane_of_tpage(&self, tpage: u32) -> u32 {
        (tpage as u64 * self.per_tpage / self.lpis_per_plane) as u32
    }
    /// Eq. 1: data never leaves plane LPN mod planes (one pool per plane).
    #[inline]
    fn placement(&self, lpn: u64) -> Option<u32> {
        Some(self.split(lpn).0 as u32)
    }
}

/// The plane map of `spec` and its cache's entry count: each plane's table starts a new
/// translation page, so no page straddles planes; an error when the entries (every plane's
/// table rounded up to whole translation pages) overflow the cache's indices.
fn plane_map(spec: &FtlSpec) -> Result<(PlaneMap, u64), Error> {
    let planes = spec.layout.planes as u64;
    let per_tpage = (spec.layout.geo.page_size as u64 / ENTRY_BYTES).clamp(1, u32::MAX as u64);
    let lpis_per_plane = spec.logical_pages.div_ceil(planes).div_ceil(per_tpage).saturating_mul(per_tpage);
    let entries = planes.saturating_mul(lpis_per_plane);
    let why = format!(
        "{planes} planes x {lpis_per_plane}: each plane's table is a whole number of translation pages of {per_tpage} entries"
    );
    MapCache::check_entries("wadpm", entries, &why)?;
    Ok((PlaneMap { planes, lpis_per_plane, per_tpage }, entries))
}

/// The page mapping's structures plus the cache over every plane's table; parameters the
/// build would refuse are refused here first.
pub fn memory(spec: &FtlSpec, est: &mut crate::memory::Estimate) -> Result<(), Error> {
    let recency = Some(CacheParams::parse(&spec.config.mapping_params)?.recency);
    let (map, entries) = plane_map(spec)?;
    MapCache::memory(recency, entries, map.per_tpage as u32, est);
    super::page::memory(spec, est)
}

/// Build WADPM for `spec`: the page-mapped FTL over the cached plane tables, with
/// `[ftl.mapping_params]` as [`CacheParams`].
pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    let params = CacheParams::parse(&spec.config.mapping_params)?;
    assert_eq!(spec.layout.planes, spec.layout.pools, "block GC units: one pool per plane");
    let (map, entries) = plane_map(spec)?;
    let cache = MapCache::new(params, entries, map.per_tpage as u32);
    Ok(Box::new(PageFtl::with_table(spec, CachedTable::new(map, cache))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_follows_equations_1_to_3() {
        let m = PlaneMap { planes: 16, lpis_per_plane: 1024, per_tpage: 512 };
        assert_eq!(m.split(0), (0, 0));
        assert_eq!(m.split(17), (1, 1));
        assert_eq!(m.split(16 * 5 + 3), (3, 5));
        assert_eq!(m.entry(16 * 5 + 3), 3 * 1024 + 5);
        // Translation pages of 512 entries: plane 3's table is pages 6 and 7.
        assert_eq!(m.plane_of_tpage(6), 3);
        assert_eq!(m.plane_of_tpage(7), 3);
        assert_eq!(m.placement(16 * 5 + 3), Some(3));
    }
}
