//! `fast`: fully-associative sector translation (Lee et al. 2007, "A log buffer-based flash
//! translation layer using fully-associative sector translation"), per plane; mechanism in
//! [`super::hybrid`].
//!
//! A write goes in place in the data block when its offset is above the block's program point
//! (`write_data`). Otherwise (`update_pure` / `update_wasted` as in `bast`):
//! - at offset 0 of an LBN, or continuing the sequential (SW) log block's LBN at its next
//!   offset, it goes to the single SW log block; a write at offset 0 replaces the SW log, which
//!   is then merged (switch if complete, partial if it holds 0..k-1 and the rest of the LBN is
//!   only in the data block, else full). A full SW log is merged at once;
//! - any other update is appended to the current random (RW) log block, shared by all LBNs of
//!   the plane. When the RW logs are used up, the oldest is reclaimed: every LBN with a current
//!   page in it is full-merged (one full merge each; the SW log is merged along if it belongs
//!   to such an LBN), then the RW block is erased.
//!
//! `[ftl.mapping_params] log_blocks` = log blocks per plane, SW included (at least 2); default
//! max(2, 3% of the plane's blocks). `ftl.gc` is refused. `defrag = "merge" | "eager"`: where
//! `defrag_copy` copies go (see [`super::hybrid::DefragMode`]).

use super::hybrid::{default_log_blocks, impl_hybrid_ftl, locate, parse_log_params, Class, HybridFtl, Role, Scheme};
use super::{Ftl, FtlSpec};
use crate::error::Error;

#[derive(Clone)]
pub struct FastFtl(pub(super) HybridFtl);

pub fn build(spec: &FtlSpec) -> Result<Box<dyn Ftl>, Error> {
    let params = parse_log_params(&spec.config.mapping_params)?;
    if params.log_blocks.is_some_and(|n| n < 2) {
        return Err(Error::config(
            "ftl.mapping_params.log_blocks",
            "fast needs at least 2 log blocks per plane (1 sequential + 1 random)",
        ));
    }
    let n = params.log_blocks.unwrap_or_else(|| default_log_blocks(spec, 2));
    Ok(Box::new(FastFtl(HybridFtl::new(spec, Scheme::Fast, Some(n), params.log_blocks.is_some(), params.defrag)?)))
}

enum Target {
    Sw(u32),
    Rw(u32),
}

impl FastFtl {
    /// Merge and detach the SW log block.
    fn merge_sw(&mut self, plane: usize, t: u64) -> Result<u64, Error> {
        let h = &mut self.0;
        let Some((sw, lbn)) = h.p[plane].sw.take() else { return Ok(t) };
        match h.try_switch_or_partial(plane, lbn, sw, t) {
            Some(done) => Ok(done),
            None => h.full_merge(plane, lbn, &[sw], t),
        }
    }

    /// Reclaim the oldest RW log block: full-merge every LBN with a current page in it.
    fn reclaim_rw(&mut self, plane: usize, t: u64) -> Result<u64, Error> {
        let h = &mut self.0;
        let victim = h.p[plane].rw.pop_front().expect("an RW log block to reclaim");
        let mut lbns = Vec::new();
        for i in 0..h.next(victim) {
            let ppn = victim * h.ppb + i;
            if h.is_valid(ppn) {
                let lpn = h.nand.oob_lpn(ppn).unwrap() as u64;
                let lbn = locate(h, lpn).1;
                if !lbns.contains(&lbn) {
                    lbns.push(lbn);
                }
            }
        }
        let mut done = t;
        for lbn in lbns {
            let own: Vec<u32> = match h.p[plane].sw {
                Some((sw, l)) if l == lbn => {
                    h.p[plane].sw = None;
                    vec![sw]
                }
                _ => Vec::new(),
            };
            done = done.max(h.full_merge(plane, lbn, &own, t)?);
        }
        Ok(done.max(h.release(plane, victim, done)))
    }

    fn host_write(&mut self, lpn: u64, tag: u32, t: u64) -> Result<u64, Error> {
        let (plane, lbn, off) = locate(&self.0, lpn);
        let mut done = t;
        let (class, target) = loop {
            let h = &mut self.0;
            let class = h.classify(plane, lbn, off, lpn);
            if class == Class::InPlace {
                return Ok(done.max(h.write_in_place(plane, lbn, off, lpn, tag, t)?));
            }
            if let Some((sw, l)) = h.p[plane].sw {
                if l == lbn && h.next(sw) == off && off < h.ppb {
                    break (class, Target::Sw(sw));
                }
            }
            if off == 0 {
                if h.p[plane].sw.is_some() {
                    done = done.max(self.merge_sw(plane, t)?);
                    continue;
                }
                let sw = h.alloc(plane, Role::Log)?;
                h.p[plane].sw = Some((sw, lbn));
                break (class, Target::Sw(sw));
            }
            if let Some(&cur) = h.p[plane].rw.back() {
                if h.next(cur) < h.ppb {
                    break (class, Target::Rw(cur));
                }
            }
            if h.p[plane].rw.len() + 1 >= h.log_limit as usize {
                done = done.max(self.reclaim_rw(plane, t)?);
                continue;
            }
            let rw = h.alloc(plane, Role::Log)?;
            h.p[plane].rw.push_back(rw);
            break (class, Target::Rw(rw));
        };
        let h = &mut self.0;
        h.count_update(class);
        match target {
            Target::Rw(b) => Ok(done.max(h.program_host(b, lpn, tag, t))),
            Target::Sw(b) => {
                done = done.max(h.program_host(b, lpn, tag, t));
                if h.next(b) == h.ppb {
                    done = done.max(self.merge_sw(plane, done)?);
                }
                Ok(done)
            }
        }
    }
}

impl_hybrid_ftl!(FastFtl);
