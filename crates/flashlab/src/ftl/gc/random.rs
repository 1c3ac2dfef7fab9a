//! Random victim selection: a sealed segment of the pool chosen uniformly at random, whatever
//! its valid count — the baseline of GC analyses (e.g. Van Houdt, SIGMETRICS 2013) and one of
//! SimpleSSD's victim selections. It is d-choices with `d = 1` ([`super::d_choices`]), drawing
//! from the policy's seeded generator. Check against the analytic model: with uniform writes a
//! random victim holds the device's average valid fraction u, so WAF ≈ 1 / (1 − u); at OP 10%
//! (u ≈ 0.91 with the schedule's reserve) that is ≈ 11, and the run gives 11.3
//! (`tests/gc_schedule.rs`).

use super::d_choices::DChoices;
use super::GcPolicy;
use crate::error::Error;
use crate::nand::Layout;

/// No parameters; one stream.
pub fn shape(_layout: &Layout, params: &toml::Table) -> Result<super::GcShape, Error> {
    super::without_params("random", params)
}

/// As d-choices: the sealed segments of every pool.
pub fn memory(layout: &Layout, params: &toml::Table, est: &mut crate::memory::Estimate) {
    super::d_choices::memory(layout, params, est)
}

/// Build the random policy; it takes no parameters.
pub fn build(ctx: &super::GcContext) -> Result<Box<dyn GcPolicy>, Error> {
    shape(ctx.layout, ctx.params)?;
    Ok(Box::new(DChoices::new(ctx.layout, 1, ctx.rng())))
}
