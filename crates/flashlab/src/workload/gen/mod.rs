//! Synthetic workload generators, one file each, registered in [`GENERATORS`].
//! (Interface stub: implementations land with the generators work.)

use super::{GenContext, Workload};
use crate::error::Error;

/// One registry line per generator.
pub struct GeneratorEntry {
    pub name: &'static str,
    pub about: &'static str,
    /// Build from the `[workload]` table (without `kind`); unknown keys are errors.
    pub build: fn(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error>,
}

pub const GENERATORS: &[GeneratorEntry] = &[];

/// Build the generator `kind`; an unknown name lists the valid ones.
pub fn build(kind: &str, params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    match GENERATORS.iter().find(|g| g.name == kind) {
        Some(g) => (g.build)(params, ctx),
        None => Err(Error::unknown("workload generator", kind, GENERATORS.iter().map(|g| g.name).collect())),
    }
}
