//! BPLRU, Block Padding LRU (H. Kim, S. Ahn, "BPLRU: a buffer management scheme for improving
//! random writes in flash storage", FAST 2008): a write buffer managed by block-level LRU. A
//! write to any page of a block makes the block most recent; the victim is the least recently
//! written block, all its pages together. Page padding (on by default, `[buffer.params] padding`):
//! the victim block's pages that are not buffered are read from flash and written along, so a
//! log-block FTL sees whole blocks (switch merges); under page mapping padding only adds
//! writes. LRU compensation: a block whose last page was just written with every page of the
//! block buffered (written sequentially in full) becomes least recent, since it is unlikely to
//! be rewritten soon. A write buffer: read misses are served from flash without entering it,
//! and read hits do not change the order.

use super::groups::Groups;
use super::pages::{Buffered, Entry, EvictPolicy, PageStore, NIL};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;
use crate::seglist::SegLists;

/// BPLRU's policy: block groups in one list, least recently written first.
pub struct Bplru {
    groups: Groups,
    /// Group ids, least (head) to most (tail) recently written.
    order: SegLists,
}

/// `[buffer.params]` of `bplru`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Page padding: an evicted block's missing pages are read from flash and written with it,
    /// so a log-block FTL sees whole blocks (switch merges).
    #[serde(default = "yes")]
    pub padding: bool,
}

fn yes() -> bool {
    true
}

/// Build BPLRU over one memory: a write-only buffer that pads evicted blocks unless `padding`
/// is false.
pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    let params: Params = super::parse_params(cfg)?;
    let pages = cfg.single_store(ctx)?;
    let policy = Bplru::new(pages.capacity(), ctx.pages_per_block);
    let b = Buffered::new(pages, policy).write_only();
    Ok(Box::new(if params.padding { b.padding(ctx.pages_per_block) } else { b }))
}

/// The store, its block groups and one LRU list over them.
pub fn memory(cfg: &BufferConfig, ctx: &BufferContext, est: &mut crate::memory::Estimate) {
    let (d, n) = super::slots(cfg, ctx);
    est.add("buffer", PageStore::memory(d + n) + Groups::memory(d + n) + SegLists::memory(1, d + n));
}

impl Bplru {
    /// An empty list over `slots` slots, pages grouped by blocks of `pages_per_block` pages.
    pub fn new(slots: u32, pages_per_block: u64) -> Self {
        Bplru { groups: Groups::new(slots, pages_per_block), order: SegLists::new(1, slots as usize) }
    }

    fn touch(&mut self, g: u32) {
        self.order.unlink(0, g);
        self.order.push_back(0, g);
    }
}

impl EvictPolicy for Bplru {
    fn on_insert(&mut self, slot: u32, lpn: u64, _how: Entry) {
        let (g, new) = self.groups.add(slot, lpn);
        if new {
            self.order.push_back(0, g);
        } else {
            self.touch(g);
        }
        let ppb = self.groups.ppb;
        if lpn % ppb == ppb - 1 && self.groups.len(g) as u64 == ppb {
            // LRU compensation: a fully, sequentially written block goes to the LRU end.
            self.order.unlink(0, g);
            self.order.push_front(0, g);
        }
    }

    fn on_hit(&mut self, _slot: u32, lpn: u64, write: bool) {
        if write {
            let g = self.groups.of(lpn).expect("a buffered page has a group");
            self.touch(g);
        }
    }

    fn on_remove(&mut self, slot: u32, lpn: u64) {
        let (g, gone) = self.groups.remove(slot, lpn);
        if gone {
            self.order.unlink(0, g);
        }
    }

    fn victims(&mut self, pages: &PageStore) -> Vec<u32> {
        let g = self.order.head(0);
        assert_ne!(g, NIL, "a full buffer has a block");
        self.groups.sorted_slots(g, pages)
    }

    fn validate(&self, pages: &PageStore) -> Result<(), String> {
        self.groups.validate(pages, "bplru")?;
        let (mut g, mut n) = (self.order.head(0), 0);
        while g != NIL {
            n += 1;
            g = self.order.next(g);
        }
        let live = self.groups.live().count();
        if n != live {
            return Err(format!("bplru: {n} blocks listed, {live} buffered"));
        }
        Ok(())
    }
}
