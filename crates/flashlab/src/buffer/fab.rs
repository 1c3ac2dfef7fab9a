//! FAB, Flash-Aware Buffer (H. Jo, J.-U. Kang, S.-Y. Park, J.-S. Kim, J. Lee, "FAB: flash-aware
//! buffer management policy for portable media players", IEEE Trans. Consumer Electronics,
//! 2006): pages are grouped by flash block (`lpn / pages_per_block`); the victim is the block
//! with the most buffered pages, the least recently used one among ties; all its pages leave
//! together (dirty ones written down in page order, clean ones dropped), which suits
//! block-level FTLs. Reads are cached too (clean pages). All DRAM.
//!
//! Two options give the readings of FAB as the DWB paper's baseline: `read_cache = false` (a
//! write-only buffer) and `write_clean = true` (a victim's clean pages go down with its block).
//!
//! Blocks sit in one list per page count, each least recently used first, so the victim is the
//! head of the fullest non-empty list: O(1) per access instead of a scan over the blocks.

use super::groups::Groups;
use super::pages::{Buffered, Entry, EvictPolicy, PageStore, NIL};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;
use crate::seglist::SegLists;

/// FAB's policy: block groups in one list per page count, each least recently used first; the
/// victim is the head of the fullest non-empty list.
pub struct Fab {
    groups: Groups,
    /// List k: groups holding k pages, least (head) to most recently used.
    by_size: SegLists,
    /// Logical time of each group's last access (orders a group re-entering a list).
    last_use: Vec<u64>,
    clock: u64,
    /// Upper bound on the fullest non-empty list.
    max: usize,
    /// The group being evicted: out of the lists while its pages leave.
    leaving: u32,
}

/// `[buffer.params]` of `fab`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Read misses enter the buffer as clean pages. Off: a write buffer only, the reading of
    /// the DWB paper's "unlike existing buffer algorithms, pages requested by reads are also
    /// stored in the buffer" (§1).
    #[serde(default = "yes")]
    pub read_cache: bool,
    /// A victim block's clean pages are written back with its dirty ones (off: dropped), the
    /// reading of the DWB paper's "unlike the buffer algorithms in the experiment, DWB does not
    /// write pages referenced by reads to flash" (§4, Fig. 11).
    #[serde(default)]
    pub write_clean: bool,
}

fn yes() -> bool {
    true
}

/// Build FAB over one memory with its `read_cache` and `write_clean` options (`write_clean`
/// needs `read_cache`).
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    let params: Params = super::parse_params(cfg)?;
    if !params.read_cache && params.write_clean {
        return Err(Error::config(
            "buffer.params.write_clean",
            "without read_cache FAB holds no clean pages to write back: set one of the two",
        ));
    }
    let pages = cfg.single_store(ctx)?;
    let fab = Fab::new(pages.capacity(), ctx.pages_per_block);
    let mut b = Buffered::new(pages, fab);
    if !params.read_cache {
        b = b.write_only();
    }
    if params.write_clean {
        b = b.writing_clean();
    }
    Ok(Box::new(b))
}

/// The store, its block groups, lists by group size and a last use per group.
pub fn memory(cfg: &BufferConfig, ctx: &BufferContext, est: &mut crate::memory::Estimate) {
    let (d, n) = super::slots(cfg, ctx);
    let slots = d + n;
    est.add(
        "buffer",
        PageStore::memory(slots)
            + Groups::memory(slots)
            + SegLists::memory(ctx.pages_per_block + 1, slots)
            + crate::memory::vec_bytes::<u64>(slots),
    );
}

impl Fab {
    /// Empty lists over `slots` slots, pages grouped by blocks of `pages_per_block` pages.
    pub fn new(slots: u32, pages_per_block: u64) -> Self {
        let n = slots as usize;
        Fab {
            groups: Groups::new(slots, pages_per_block),
            by_size: SegLists::new(pages_per_block as usize + 1, n),
            last_use: vec![0; n],
            clock: 0,
            max: 0,
            leaving: NIL,
        }
    }

    /// Put `g` (in no list) into the list of its size, in recency order.
    fn place(&mut self, g: u32) {
        let k = self.groups.len(g);
        self.max = self.max.max(k);
        let mut after = self.by_size.tail(k);
        while after != NIL && self.last_use[after as usize] > self.last_use[g as usize] {
            after = self.by_size.prev(after);
        }
        if after == NIL {
            self.by_size.push_front(k, g);
        } else {
            self.by_size.insert_after(k, g, after);
        }
    }

    fn touch(&mut self, g: u32) {
        self.clock += 1;
        self.last_use[g as usize] = self.clock;
    }
}

impl EvictPolicy for Fab {
    fn on_insert(&mut self, slot: u32, lpn: u64, _how: Entry) {
        if let Some(g) = self.groups.of(lpn) {
            self.by_size.unlink(self.groups.len(g), g);
        }
        let (g, _) = self.groups.add(slot, lpn);
        self.touch(g);
        self.place(g);
    }

    fn on_hit(&mut self, _slot: u32, lpn: u64, _write: bool) {
        let g = self.groups.of(lpn).expect("a buffered page has a group");
        self.by_size.unlink(self.groups.len(g), g);
        self.touch(g);
        self.place(g);
    }

    fn on_remove(&mut self, slot: u32, lpn: u64) {
        let g = self.groups.of(lpn).expect("a buffered page has a group");
        if g == self.leaving {
            if self.groups.remove(slot, lpn).1 {
                self.leaving = NIL;
            }
            return;
        }
        self.by_size.unlink(self.groups.len(g), g);
        if !self.groups.remove(slot, lpn).1 {
            self.place(g);
        }
    }

    /// Every page of the largest group (LRU among ties), in page order.
    fn victims(&mut self, pages: &PageStore) -> Vec<u32> {
        while self.by_size.head(self.max) == NIL {
            assert!(self.max > 0, "a full buffer has a group");
            self.max -= 1;
        }
        let g = self.by_size.head(self.max);
        self.by_size.unlink(self.max, g);
        self.leaving = g;
        self.groups.sorted_slots(g, pages)
    }

    fn validate(&self, pages: &PageStore) -> Result<(), String> {
        self.groups.validate(pages, "fab")?;
        let mut listed = 0;
        for k in 0..self.by_size_lists() {
            let mut g = self.by_size.head(k);
            let mut prev_use = 0;
            while g != NIL {
                if self.groups.len(g) != k {
                    return Err(format!("fab: group {g} of {} pages in list {k}", self.groups.len(g)));
                }
                if k > self.max {
                    return Err(format!("fab: list {k} above the maximum {}", self.max));
                }
                if self.last_use[g as usize] < prev_use {
                    return Err(format!("fab: list {k} out of recency order at group {g}"));
                }
                prev_use = self.last_use[g as usize];
                listed += 1;
                g = self.by_size.next(g);
            }
        }
        let live = self.groups.live().count();
        if listed != live {
            return Err(format!("fab: {listed} groups listed, {live} buffered"));
        }
        Ok(())
    }
}

impl Fab {
    fn by_size_lists(&self) -> usize {
        self.groups.ppb as usize + 1
    }
}
