//! FAB, Flash-Aware Buffer (H. Jo, J.-U. Kang, S.-Y. Park, J.-S. Kim, J. Lee, "FAB: flash-aware
//! buffer management policy for portable media players", IEEE Trans. Consumer Electronics,
//! 2006): pages are grouped by flash block (`lpn / pages_per_block`); the victim is the block
//! with the most buffered pages, the least recently used one among ties; all its pages leave
//! together (dirty ones written down in page order, clean ones dropped), which suits
//! block-level FTLs. Reads are cached too (clean pages). All DRAM.

use std::collections::BTreeMap;

use super::pages::{Buffered, Entry, EvictPolicy, PageStore};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;

#[derive(Clone, Debug, Default)]
struct Group {
    slots: Vec<u32>,
    /// Logical time of the group's last access.
    last_use: u64,
}

pub struct Fab {
    ppb: u64,
    /// Groups by block number (ordered, so ties break the same way every run).
    groups: BTreeMap<u64, Group>,
    clock: u64,
}

pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    assert!(ctx.pages_per_block > 0);
    let fab = Fab { ppb: ctx.pages_per_block, groups: BTreeMap::new(), clock: 0 };
    Ok(Box::new(Buffered::new(cfg.single_store(ctx)?, fab)))
}

impl EvictPolicy for Fab {
    fn on_insert(&mut self, slot: u32, lpn: u64, _how: Entry) {
        self.clock += 1;
        let g = self.groups.entry(lpn / self.ppb).or_default();
        g.slots.push(slot);
        g.last_use = self.clock;
    }

    fn on_hit(&mut self, _slot: u32, lpn: u64, _write: bool) {
        self.clock += 1;
        if let Some(g) = self.groups.get_mut(&(lpn / self.ppb)) {
            g.last_use = self.clock;
        }
    }

    fn on_remove(&mut self, slot: u32, lpn: u64) {
        let block = lpn / self.ppb;
        let g = self.groups.get_mut(&block).expect("a buffered page has a group");
        g.slots.retain(|&x| x != slot);
        if g.slots.is_empty() {
            self.groups.remove(&block);
        }
    }

    /// Every page of the largest group (LRU among ties), in page order.
    fn victims(&mut self, pages: &PageStore) -> Vec<u32> {
        let group = self
            .groups
            .values()
            .max_by(|a, b| a.slots.len().cmp(&b.slots.len()).then(b.last_use.cmp(&a.last_use)))
            .expect("a full buffer has a group");
        let mut slots = group.slots.clone();
        slots.sort_by_key(|&s| pages.lpn[s as usize]);
        slots
    }

    fn validate(&self, pages: &PageStore) -> Result<(), String> {
        let grouped: usize = self.groups.values().map(|g| g.slots.len()).sum();
        let held = (0..pages.capacity()).filter(|&s| pages.is_held(s)).count();
        if grouped != held {
            return Err(format!("fab: {grouped} pages in groups, {held} buffered"));
        }
        for (&b, g) in &self.groups {
            if let Some(&s) = g.slots.iter().find(|&&s| pages.lpn[s as usize] / self.ppb != b) {
                return Err(format!("fab: slot {s} in group {b} holds lpn {}", pages.lpn[s as usize]));
            }
        }
        Ok(())
    }
}
