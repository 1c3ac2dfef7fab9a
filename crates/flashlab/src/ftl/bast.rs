//! `bast`: block-associative sector translation (Kim et al. 2002, "A space-efficient flash
//! translation layer for CompactFlash systems"), per plane; mechanism in [`super::hybrid`].
//!
//! A write goes in place in the data block when its offset is above the block's program point
//! (`write_data`). Otherwise it is appended to the LBN's own log block (`update_pure` if it
//! overwrites written data, `update_wasted` if the offset was skipped): a plane holds at most
//! `log_blocks` log blocks; when none is left, the least recently written LBN's log block is
//! merged first. A full log block is merged at once. Merges: switch (log holds offsets 0..n-1 in
//! order, all current), partial (log holds 0..k-1 in order, the rest only in the data block:
//! copy the rest into the log by copy-back, then switch), else full.
//!
//! `[ftl.mapping_params] log_blocks` = log blocks per plane; default max(1, 3% of the plane's
//! blocks). The plane must keep its data blocks + `log_blocks` + 1 free block. `ftl.gc` is refused.
//! `defrag = "merge" | "eager"`: where `defrag_copy` copies go (see [`super::hybrid::DefragMode`]).

use super::hybrid::{
    default_log_blocks, impl_hybrid_ftl, locate, parse_log_params, Class, HybridFtl, Role, Scheme, NONE,
};
use super::{Ftl, FtlSpec};
use crate::error::Error;

#[derive(Clone)]
pub struct BastFtl(pub(super) HybridFtl);

pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    let params = parse_log_params(&spec.config.mapping_params)?;
    if params.log_blocks == Some(0) {
        return Err(Error::config("ftl.mapping_params.log_blocks", "bast needs at least 1 log block per plane"));
    }
    let n = params.log_blocks.unwrap_or_else(|| default_log_blocks(spec, 1));
    Ok(Box::new(BastFtl(HybridFtl::new(spec, Scheme::Bast, Some(n), params.log_blocks.is_some(), params.defrag)?)))
}

impl BastFtl {
    /// Merge `lbn`'s log block (switch, partial or full).
    fn merge_log(&mut self, plane: usize, lbn: u32, t: u64) -> Result<u64, Error> {
        let h = &mut self.0;
        let p = &mut h.p[plane];
        let log = std::mem::replace(&mut p.bast_log[lbn as usize], NONE);
        p.lru.retain(|&l| l != lbn);
        match h.try_switch_or_partial(plane, lbn, log, t) {
            Some(done) => Ok(done),
            None => h.full_merge(plane, lbn, &[log], t),
        }
    }

    fn host_write(&mut self, lpn: u64, tag: u32, t: u64) -> Result<u64, Error> {
        let (plane, lbn, off) = locate(&self.0, lpn);
        let mut done = t;
        let class = self.0.classify(plane, lbn, off, lpn);
        if class == Class::InPlace {
            return self.0.write_in_place(plane, lbn, off, lpn, tag, t);
        }
        let mut log = self.0.p[plane].bast_log[lbn as usize];
        if log == NONE {
            if self.0.p[plane].lru.len() >= self.0.log_limit as usize {
                let victim = self.0.p[plane].lru[0];
                done = done.max(self.merge_log(plane, victim, t)?);
            }
            log = self.0.alloc(plane, Role::Log)?;
            let p = &mut self.0.p[plane];
            p.bast_log[lbn as usize] = log;
            p.lru.push_back(lbn);
        } else {
            let p = &mut self.0.p[plane];
            p.lru.retain(|&l| l != lbn);
            p.lru.push_back(lbn);
        }
        let h = &mut self.0;
        h.count_update(class);
        done = done.max(h.program_host(log, lpn, tag, t));
        if h.next(log) == h.ppb {
            done = done.max(self.merge_log(plane, lbn, done)?);
        }
        Ok(done)
    }
}

impl_hybrid_ftl!(BastFtl);
