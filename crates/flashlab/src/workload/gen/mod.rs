//! Synthetic workload generators, one file each, registered in [`GENERATORS`].
//!
//! Owns: the registry and the split of work between the shared parts and the generators.
//! `params` parses and validates the keys every generator takes ([`params::COMMON_KEYS`]: the
//! stream length, read/trim shares, request sizes, alignment, footprint and start, seed,
//! inter-arrival time); `stream` turns a generator's address picker into a [`Workload`]
//! (operation and size choice, end of stream, time stamps, progress); each generator file owns
//! only its own keys (a `#[serde(deny_unknown_fields)]` struct) and where requests go.
//!
//! Adding a generator: one file with a `Picker` and a `build` function, and one line in
//! [`GENERATORS`].
//!
//! Fault model: configuration errors (unknown generator, unknown key, bad value) are
//! [`Error`]s naming the key as `workload.KEY`; generating never fails.

pub mod hotcold;
pub mod mixed;
pub mod oltp;
pub mod params;
pub mod sequential;
pub mod stream;
pub mod uniform;
pub mod zipf;

use super::{GenContext, Workload};
use crate::error::Error;

/// A generator's constructor: the `[workload]` table (without `kind`) and the device context.
pub type BuildFn = fn(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error>;

/// One registry line per generator.
pub struct GeneratorEntry {
    pub name: &'static str,
    pub about: &'static str,
    /// Build from the `[workload]` table (without `kind`); unknown keys are errors.
    pub build: BuildFn,
    /// Schema of the generator's own keys (the struct it parses; the common keys are
    /// [`params::COMMON_PARAMS`]).
    pub params: crate::reference::ParamsFn,
}

#[rustfmt::skip]
pub const GENERATORS: &[GeneratorEntry] = &[
    GeneratorEntry { name: "sequential", about: "address order over the footprint, wrapping around", build: sequential::build, params: crate::reference::schema_of::<sequential::SequentialParams> },
    GeneratorEntry { name: "uniform", about: "uniform random aligned offsets over the footprint", build: uniform::build, params: crate::reference::schema_of::<uniform::UniformParams> },
    GeneratorEntry { name: "zipf", about: "fio-compatible zipf(theta) over request slots (theta 1.1)", build: zipf::build, params: crate::reference::schema_of::<zipf::ZipfParams> },
    GeneratorEntry { name: "mixed", about: "sequential runs broken by random jumps (sequential_share 0.5; resume = true: jumps are excursions the run resumes after)", build: mixed::build, params: crate::reference::schema_of::<mixed::MixedParams> },
    GeneratorEntry { name: "hotcold", about: "hot_access (0.8) of requests on the first hot_space (0.2)", build: hotcold::build, params: crate::reference::schema_of::<hotcold::HotColdParams> },
    GeneratorEntry { name: "tpcc-like", about: "OLTP page writes: database grows 10%→100%, 22.9× footprint, top 20% of pages ~90%", build: oltp::build_tpcc, params: oltp::params },
    GeneratorEntry { name: "linkbench-like", about: "as tpcc-like but update-heavy: 229× footprint, top 20% of pages ~80%", build: oltp::build_linkbench, params: oltp::params },
];

/// Build the generator `kind`; an unknown name lists the valid ones.
pub fn build(kind: &str, params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    match GENERATORS.iter().find(|g| g.name == kind) {
        Some(g) => (g.build)(params, ctx),
        None => Err(Error::unknown("workload generator", kind, GENERATORS.iter().map(|g| g.name).collect())),
    }
}
