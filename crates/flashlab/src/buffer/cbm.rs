//! CBM, Cooperative Buffer Management (Q. Wei, C. Chen, J. Yang, "CBM: a cooperative buffer
//! management for SSD", MSST 2014), as the DWB paper compares against it: DRAM is a read cache
//! (page LRU, clean pages only), NVRAM the write buffer. A write always lands in NVRAM (a write
//! hitting a DRAM page moves it there). NVRAM is split into a Page Region (randomly written
//! pages, page LRU) and a Block Region (blocks, block LRU): when a block gathers
//! `[buffer.params] block_threshold` pages in the Page Region (default half a block: our choice, the
//! DWB paper does not give CBM's) it migrates to the Block Region. The victim is the least
//! recently used block of the Block Region, or, when that is empty, every Page Region page of
//! the block of the least recently used page. It goes down merged with the same-block pages of
//! the read cache (clean pages written along, toward full-block writes, which the DWB paper
//! names as CBM's extra flash writes).

use super::dual::{Dual, DualRule};
use super::groups::Groups;
use super::lru::Lru;
use super::pages::{Entry, EvictPolicy, PageStore, NIL};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;
use crate::seglist::SegLists;

/// `[buffer.params]` of `cbm`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Pages of a block in the Page Region that move it to the Block Region (default half a
    /// block: our choice, the DWB paper does not give CBM's); 1 to the pages of a block.
    #[serde(default)]
    #[schemars(extend("x-unit" = "pages"))]
    pub block_threshold: Option<u32>,
}

/// Build CBM: a page-LRU read cache in `dram`, the two regions in `nvram`; `block_threshold`
/// must be 1 to the pages of a block.
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    let params: Params = super::parse_params(cfg)?;
    let (dram, nvram) = cfg.dual_stores(ctx)?;
    let threshold = params.block_threshold.unwrap_or((ctx.pages_per_block / 2).max(1) as u32);
    if threshold == 0 || threshold as u64 > ctx.pages_per_block {
        return Err(Error::config(
            "buffer.params.block_threshold",
            format!("{threshold} pages: must be 1..={} (pages per block)", ctx.pages_per_block),
        ));
    }
    let d = Lru::new(dram.capacity());
    let n = CbmRegions::new(nvram.capacity(), ctx.pages_per_block, threshold);
    Ok(Box::new(Dual::new(
        dram,
        nvram,
        d,
        n,
        ctx.pages_per_block,
        DualRule { writes_to_nvram: true, merge_clean: true },
    )))
}

/// DRAM: a store and its LRU; NVRAM: a store, its groups, two LRU lists and a region flag per
/// group; the DRAM pages counted per block.
pub fn memory(cfg: &BufferConfig, ctx: &BufferContext, est: &mut crate::memory::Estimate) {
    let (d, n) = super::slots(cfg, ctx);
    let dram = PageStore::memory(d) + SegLists::memory(1, d);
    let nvram =
        PageStore::memory(n) + Groups::memory(n) + 2 * SegLists::memory(1, n) + crate::memory::vec_bytes::<bool>(n);
    est.add("buffer", dram + nvram + Dual::<Lru, CbmRegions>::memory(d));
}

/// CBM's NVRAM: Page Region and Block Region.
pub struct CbmRegions {
    groups: Groups,
    threshold: u32,
    /// Page Region slots, least (head) to most recently used (list 0).
    pages_lru: SegLists,
    /// Block Region group ids, least to most recently used (list 0).
    blocks_lru: SegLists,
    in_block_region: Vec<bool>,
}

impl CbmRegions {
    /// Empty regions over `slots` NVRAM slots, pages grouped by blocks of `pages_per_block` pages;
    /// a block with `threshold` pages in the Page Region moves to the Block Region.
    pub fn new(slots: u32, pages_per_block: u64, threshold: u32) -> Self {
        let n = slots as usize;
        CbmRegions {
            groups: Groups::new(slots, pages_per_block),
            threshold,
            pages_lru: SegLists::new(1, n),
            blocks_lru: SegLists::new(1, n),
            in_block_region: vec![false; n],
        }
    }
}

impl EvictPolicy for CbmRegions {
    fn on_insert(&mut self, slot: u32, lpn: u64, _how: Entry) {
        let (g, _) = self.groups.add(slot, lpn);
        if self.in_block_region[g as usize] {
            self.blocks_lru.unlink(0, g);
            self.blocks_lru.push_back(0, g);
            return;
        }
        self.pages_lru.push_back(0, slot);
        if self.groups.len(g) as u32 >= self.threshold {
            for &s in &self.groups.slots[g as usize] {
                self.pages_lru.unlink(0, s);
            }
            self.in_block_region[g as usize] = true;
            self.blocks_lru.push_back(0, g);
        }
    }

    fn on_hit(&mut self, slot: u32, lpn: u64, _write: bool) {
        let g = self.groups.of(lpn).expect("a buffered page has a group");
        if self.in_block_region[g as usize] {
            self.blocks_lru.unlink(0, g);
            self.blocks_lru.push_back(0, g);
        } else {
            self.pages_lru.unlink(0, slot);
            self.pages_lru.push_back(0, slot);
        }
    }

    fn on_remove(&mut self, slot: u32, lpn: u64) {
        let g = self.groups.of(lpn).expect("a buffered page has a group");
        let block_region = self.in_block_region[g as usize];
        if !block_region {
            self.pages_lru.unlink(0, slot);
        }
        let (_, gone) = self.groups.remove(slot, lpn);
        if gone && block_region {
            self.blocks_lru.unlink(0, g);
            self.in_block_region[g as usize] = false;
        }
    }

    fn victims(&mut self, pages: &PageStore) -> Vec<u32> {
        let g = match self.blocks_lru.head(0) {
            NIL => {
                let s = self.pages_lru.head(0);
                assert_ne!(s, NIL, "a full NVRAM holds pages");
                self.groups.of(pages.lpn[s as usize]).expect("a buffered page has a group")
            }
            g => g,
        };
        self.groups.sorted_slots(g, pages)
    }

    fn validate(&self, pages: &PageStore) -> Result<(), String> {
        self.groups.validate(pages, "cbm")?;
        let (mut s, mut listed) = (self.pages_lru.head(0), 0);
        while s != NIL {
            let g = self.groups.of(pages.lpn[s as usize]).ok_or("cbm: listed page without group")?;
            if self.in_block_region[g as usize] {
                return Err(format!("cbm: slot {s} in the Page Region list but its block is in the Block Region"));
            }
            listed += 1;
            s = self.pages_lru.next(s);
        }
        let in_pages: usize =
            self.groups.live().filter(|&g| !self.in_block_region[g as usize]).map(|g| self.groups.len(g)).sum();
        if listed != in_pages {
            return Err(format!("cbm: {listed} pages listed, {in_pages} in the Page Region"));
        }
        Ok(())
    }
}
