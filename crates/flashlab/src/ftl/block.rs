//! `block`: pure block mapping, per plane (see [`super::hybrid`] for the shared mechanism).
//!
//! Offset `o` of a logical block lives at page `o` of its data block. A write at `o` goes in
//! place when `o` is above the data block's program point (`write_data`; skipped offsets are
//! padded). Otherwise (an overwrite, `update_pure`, or an out-of-order first write,
//! `update_wasted`) the block is copy-merged: a new block receives the current pages below `o`
//! (copy-back), the new page at `o`, then the current pages above `o`; the old block is erased.
//! Each copy-merge counts as a full merge (and one `gc_victims`; its copies in `gc_copies`).
//! No log blocks; `[ftl.mapping_params]` must be empty; `ftl.gc` is refused.

use super::hybrid::{impl_hybrid_ftl, locate, Class, DefragMode, HybridFtl, Role, Scheme, NONE};
use super::{Ftl, FtlSpec};
use crate::error::Error;

#[derive(Clone)]
pub struct BlockFtl(pub(super) HybridFtl);

pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    if let Some(k) = spec.config.mapping_params.keys().next() {
        return Err(Error::config(format!("ftl.mapping_params.{k}"), "the block mapping takes no parameters"));
    }
    Ok(Box::new(BlockFtl(HybridFtl::new(spec, Scheme::Block, None, false, DefragMode::Merge)?)))
}

impl BlockFtl {
    fn host_write(&mut self, lpn: u64, tag: u32, t: u64) -> Result<u64, Error> {
        let h = &mut self.0;
        let (plane, lbn, off) = locate(h, lpn);
        let class = h.classify(plane, lbn, off, lpn);
        if class == Class::InPlace {
            return h.write_in_place(plane, lbn, off, lpn, tag, t);
        }
        h.count_update(class);
        let old = h.p[plane].data[lbn as usize];
        debug_assert_ne!(old, NONE);
        let new = h.alloc(plane, Role::Data(lbn))?;
        let mut done = t;
        for i in 0..h.ppb {
            if i == off {
                done = done.max(h.pad_to(new, i, t));
                done = done.max(h.program_host(new, lpn, tag, t));
                continue;
            }
            let Some(l) = h.lpn_at(plane, lbn, i) else { break };
            done = done.max(h.merge_copy(l, new, i, t));
        }
        h.p[plane].data[lbn as usize] = new;
        done = done.max(h.release(plane, old, done));
        h.report.full_merges += 1;
        h.counters.gc_victims += 1;
        Ok(done)
    }
}

impl_hybrid_ftl!(BlockFtl);
