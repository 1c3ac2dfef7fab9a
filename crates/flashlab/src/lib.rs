//! flashlab: a fast, deterministic, trace-driven simulator of NAND flash storage.
//!
//! The stack, top to bottom (see ARCHITECTURE.md): workload → host → buffer → FTL (mapping,
//! GC, allocator) → NAND → stats. The public API is "configuration in, results out":
//! [`Config::load`] then [`sim::run`].

#![warn(missing_docs)]

/// This flashlab's version (the crate's), as results record it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod buffer;
pub mod catalog;
pub mod config;
pub mod device;
pub mod error;
pub(crate) mod fastmap;
pub mod files;
pub mod ftl;
pub(crate) mod hint;
pub mod host;
pub mod memory;
pub mod nand;
pub mod presets;
pub mod reference;
pub mod registry;
pub mod results;
pub mod seed;
pub mod seglist;
pub mod sim;
pub mod stats;
pub mod units;
pub mod workload;

pub use config::Config;
pub use error::{Error, Location, Result};
pub use results::Results;

/// `docs/adding-a-policy.md`'s worked example, compiled and run as a doc test so it cannot drift
/// from the `GcPolicy` trait.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/adding-a-policy.md")]
pub struct AddingAPolicy;
