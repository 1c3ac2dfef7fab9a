//! Stats layer: counters, per-interval series and latency histograms. Observes; never decides.

pub mod latency;
pub mod series;

pub use latency::{Histogram, LatencySummary};
pub use series::{Series, SeriesPoint};
