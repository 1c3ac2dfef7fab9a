//! Stats layer: counters, per-interval series, latency histograms and reuse distances.
//! Observes; never decides.

pub mod latency;
pub mod reuse;
pub mod series;

pub use latency::{Histogram, IntervalHistogram, LatencySummary, Sparse};
pub use reuse::{ReuseDistance, ReuseSummary};
pub use series::{Series, SeriesPoint};
