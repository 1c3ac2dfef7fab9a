//! flashlab: a fast, deterministic, trace-driven simulator of NAND flash storage.
//!
//! The stack, top to bottom (see ARCHITECTURE.md): workload → host → buffer → FTL (mapping,
//! GC, allocator) → NAND → stats. The public API is "configuration in, results out".

pub mod error;
pub mod units;
pub mod workload;

pub use error::{Error, Location, Result};
