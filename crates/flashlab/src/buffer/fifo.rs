//! FIFO write buffer: pages leave in the order they entered, whatever their hits; with
//! `read_cache = false` (`[buffer.params]`) read misses bypass it (a write buffer only).

use super::pages::{Buffered, Entry, EvictPolicy, PageStore};
use super::{BufferConfig, BufferContext, WriteBuffer};
use crate::error::Error;
use crate::ftl::gc::seglist::{SegLists, NIL};

/// `[buffer.params]` of `fifo`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Read misses enter the buffer as clean pages (off: a write buffer only).
    #[serde(default = "yes")]
    pub read_cache: bool,
}

fn yes() -> bool {
    true
}

/// Slots in insertion order, oldest at the head.
pub struct Fifo {
    order: SegLists,
}

pub fn build(cfg: &BufferConfig, ctx: &BufferContext) -> Result<Box<dyn WriteBuffer>, Error> {
    let params: Params = super::parse_params(cfg)?;
    let pages = cfg.single_store(ctx)?;
    let policy = Fifo { order: SegLists::new(1, pages.capacity() as usize) };
    let b = Buffered::new(pages, policy);
    Ok(Box::new(if params.read_cache { b } else { b.write_only() }))
}

impl EvictPolicy for Fifo {
    fn on_insert(&mut self, slot: u32, _lpn: u64, _how: Entry) {
        self.order.push_back(0, slot);
    }
    fn on_hit(&mut self, _slot: u32, _lpn: u64, _write: bool) {}
    fn on_remove(&mut self, slot: u32, _lpn: u64) {
        self.order.unlink(0, slot);
    }
    fn victims(&mut self, _pages: &PageStore) -> Vec<u32> {
        let head = self.order.head(0);
        debug_assert_ne!(head, NIL, "full buffer with an empty FIFO");
        vec![head]
    }
}
