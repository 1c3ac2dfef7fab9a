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
pub mod multi;
pub mod oltp;
pub mod params;
pub mod sequential;
pub mod stream;
pub mod uniform;
pub mod zipf;

use super::{GenContext, Workload};
use crate::error::Error;
use crate::registry::{Entry, Registry};

/// A generator's constructor: the `[workload]` table (without `kind`) and the device context.
pub type BuildFn = fn(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error>;

/// The registry: one line per generator (its file holds the generator and its `build`; its
/// parameter schema is its own keys, after the common ones [`params::COMMON_PARAMS`]).
#[rustfmt::skip]
pub const GENERATORS: Registry<BuildFn> = Registry {
    id: "workload",
    kind: "workload generator",
    key: "workload.kind",
    title: "workload generators ([workload] kind)",
    params_table: Some("workload"),
    entries: &[
        Entry { name: "sequential", about: "address order over the footprint, wrapping around", params: crate::registry::schema_of::<sequential::SequentialParams>, caps: (), build: sequential::build },
        Entry { name: "uniform", about: "uniform random aligned offsets over the footprint", params: crate::registry::schema_of::<uniform::UniformParams>, caps: (), build: uniform::build },
        Entry { name: "zipf", about: "fio-compatible zipf(theta) over request slots (theta 1.1)", params: crate::registry::schema_of::<zipf::ZipfParams>, caps: (), build: zipf::build },
        Entry { name: "mixed", about: "sequential runs broken by random jumps (sequential_share 0.5; resume = true: jumps are excursions the run resumes after)", params: crate::registry::schema_of::<mixed::MixedParams>, caps: (), build: mixed::build },
        Entry { name: "hotcold", about: "hot_access (0.8) of requests on the first hot_space (0.2)", params: crate::registry::schema_of::<hotcold::HotColdParams>, caps: (), build: hotcold::build },
        Entry { name: "tpcc-like", about: "OLTP page writes: database grows 10%→100%, 22.9× footprint, top 20% of pages ~90%", params: oltp::params, caps: (), build: oltp::build_tpcc },
        Entry { name: "linkbench-like", about: "as tpcc-like but update-heavy: 229× footprint, top 20% of pages ~80%", params: oltp::params, caps: (), build: oltp::build_linkbench },
    ],
};

/// The workload kind of generators side by side ([`multi`]): like `trace`, a kind of its own
/// beside the registry (it takes none of the common keys; each stream is a generator's table).
pub const STREAMS: &str = "streams";

/// What `flashlab list` says of [`STREAMS`].
pub const STREAMS_ABOUT: &str =
    "several generators side by side by byte share, each writing with its own placement identifier ([[workload.streams]])";

/// Build the generator `kind`; an unknown name lists the valid ones.
pub fn build(kind: &str, params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    (GENERATORS.find(kind)?.build)(params, ctx)
}
