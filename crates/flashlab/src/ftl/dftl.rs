//! DFTL: A. Gupta, Y. Kim, B. Urgaonkar, "DFTL: a flash translation layer employing
//! demand-based selective caching of page-level address mappings", ASPLOS 2009.
//!
//! A page-level mapping whose table lives in translation pages on flash; a cached mapping table
//! (CMT) in RAM holds recently used entries (LRU, [`MapCache`]); the global translation
//! directory (where each translation page is) is small and always in RAM, so it costs nothing
//! here. A miss reads one translation page and, as DFTL does, caches only the missing entry
//! (`loading = "per-miss-entry"`, `recency = "entry"` unless `[ftl.mapping_params]` says
//! otherwise); evicting a dirty entry reads its translation page, merges every cached entry of
//! it and writes it back, so the page's other dirty entries are clean (DFTL's batch update). Data
//! placement and GC are the page-mapped FTL's (`ftl/page/`, with a [`CachedTable`]): any
//! striping, any victim policy.
//! GC that moves a page whose entry is not cached rewrites its translation page (batched per
//! victim), the overhead DFTL's paper analyses. Translation page `t` sits on plane
//! `t mod planes`; its flash space and GC are not modelled (its I/O is).

use super::mapcache::{CacheParams, MapCache};
use super::maptable::{CachedTable, Translate, ENTRY_BYTES};
use super::page::PageFtl;
use super::{Ftl, FtlSpec};
use crate::error::Error;

/// DFTL's translation: the entry is the LPN; translation page `t` sits on plane `t mod planes`.
#[derive(Clone)]
pub struct Dftl {
    planes: u32,
}

impl Translate for Dftl {
    #[inline]
    fn entry(&self, lpn: u64) -> u32 {
        lpn as u32
    }
    #[inline]
    fn plane_of_tpage(&self, tpage: u32) -> u32 {
        tpage % self.planes
    }
    /// Data goes where the striping policy puts it.
    #[inline]
    fn placement(&self, _lpn: u64) -> Option<u32> {
        None
    }
}

/// DFTL's defaults that differ from [`CacheParams`]'s (WADPM's): one entry per miss, LRU over
/// entries.
const DEFAULTS: &[(&str, &str)] = &[("loading", "per-miss-entry"), ("recency", "entry")];

/// Schema of the `[ftl.mapping_params]` DFTL accepts: [`CacheParams`] with DFTL's defaults.
pub fn params() -> schemars::Schema {
    let mut schema = crate::registry::schema_of::<CacheParams>();
    for (key, value) in DEFAULTS {
        let prop = schema.get_mut("properties").and_then(|p| p.get_mut(*key)).and_then(|p| p.as_object_mut());
        prop.expect("CacheParams has the key").insert("default".into(), (*value).into());
    }
    schema
}

/// The cache parameters: `[ftl.mapping_params]` over DFTL's defaults.
fn cache_params(spec: &FtlSpec) -> Result<CacheParams, Error> {
    let mut table = spec.config.mapping_params.clone();
    for (key, value) in DEFAULTS {
        table.entry(*key).or_insert_with(|| toml::Value::String((*value).into()));
    }
    CacheParams::parse(&table)
}

/// One entry per logical page: the page mapping's structures plus the cache's; parameters the
/// build would refuse are refused here first.
pub fn memory(spec: &FtlSpec, est: &mut crate::memory::Estimate) -> Result<(), Error> {
    let recency = Some(cache_params(spec)?.recency);
    let per_tpage = (spec.layout.geo.page_size as u64 / ENTRY_BYTES).clamp(1, u32::MAX as u64);
    MapCache::check_entries("dftl", spec.logical_pages, "one per logical page")?;
    MapCache::memory(recency, spec.logical_pages, per_tpage as u32, est);
    super::page::memory(spec, est)
}

/// Build DFTL for `spec`: the page-mapped FTL over a cached table of one entry per logical page,
/// with `[ftl.mapping_params]` over DFTL's defaults.
pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    let params = cache_params(spec)?;
    let per_tpage = (spec.layout.geo.page_size as u64 / ENTRY_BYTES).clamp(1, u32::MAX as u64);
    MapCache::check_entries("dftl", spec.logical_pages, "one per logical page")?;
    let cache = MapCache::new(params, spec.logical_pages, per_tpage as u32);
    Ok(Box::new(PageFtl::with_table(spec, CachedTable::new(Dftl { planes: spec.layout.planes }, cache))?))
}
