//! SCA, the sequential cluster allocation of classic FAT drivers: the next free cluster at or
//! after a global cursor (the cluster after the last one handed out), wrapping at the end of
//! the volume. Files interleave in allocation order, so small and large files share flash
//! blocks. The baseline of Kim, Lee & Min (SPPS 2005).

use super::{AllocRequest, ClusterAllocator, FatView};
use flashlab::error::Error;

pub fn build(params: &toml::Table) -> Result<Box<dyn ClusterAllocator>, Error> {
    if let Some(k) = params.keys().next() {
        return Err(Error::config(format!("fs.alloc_params.{k}"), "allocator `sca` takes no parameters"));
    }
    Ok(Box::new(Sca::default()))
}

#[derive(Default)]
pub struct Sca {
    /// Cluster after the last one handed out (0 before the first: starts at cluster 2).
    cursor: u32,
}

impl ClusterAllocator for Sca {
    fn allocate(&mut self, fat: &FatView, _req: AllocRequest) -> Option<u32> {
        let c = fat.next_free_from(self.cursor)?;
        self.cursor = c + 1;
        Some(c)
    }
}
