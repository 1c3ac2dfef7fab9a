//! d-choices victim selection: sample `d` distinct sealed segments of the pool uniformly at
//! random and collect the one with the fewest valid pages (ties: the first sampled). `d = 1` is
//! random selection ([`super::random`]); `d` at least the pool's sealed count is greedy. The
//! policy analysed by B. Van Houdt, "A mean field model for a class of garbage collection
//! algorithms in flash-based solid state drives" (SIGMETRICS 2013), and offered by SimpleSSD's
//! block allocator beside random and greedy.
//!
//! Randomness comes from the policy's own generator ([`super::GcContext::rng`]), seeded from
//! the run's seed: the same config and seed give the same victims. Sampling is without
//! replacement (rejection of repeats, cheap for `d` far below the candidates; when `d` is at
//! least the candidates every one is examined). The default `d = 10` is our choice, not a
//! paper's setting; measured (`tests/gc_schedule.rs`, uniform random writes, OP 10%, 32-page
//! blocks): WAF random 11.30, d = 2 7.44, d = 10 5.22, greedy 4.99 — sweep `d` where it matters.

use rand::RngExt;

use super::{GcPolicy, GcView, Members, PolicyRng};
use crate::error::Error;
use crate::nand::Layout;

/// `[ftl.gc_params]` of `d-choices`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Sealed segments sampled per victim (at least 1; 1 is random selection).
    #[serde(default = "d_default")]
    pub d: u32,
}

fn d_default() -> u32 {
    10
}

/// The d-choices policy: the sealed segments of each pool, a generator and `d`.
#[derive(Clone)]
pub struct DChoices {
    sealed: Members,
    rng: PolicyRng,
    d: u32,
    /// Scratch for the sample (indices drawn this choice).
    drawn: Vec<u32>,
}

impl DChoices {
    /// The policy sampling `d` (≥ 1) candidates per victim.
    pub fn new(layout: &Layout, d: u32, rng: PolicyRng) -> DChoices {
        DChoices { sealed: Members::new(layout), rng, d: d.max(1), drawn: Vec::new() }
    }
}

fn parse(params: &toml::Table) -> Result<Params, Error> {
    let p: Params = crate::registry::parse_params("ftl.gc_params", params)?;
    if p.d == 0 {
        return Err(Error::config("ftl.gc_params.d", "must be at least 1 (1 is random selection)"));
    }
    Ok(p)
}

/// One stream; `d` checked.
pub fn shape(_layout: &Layout, params: &toml::Table) -> Result<super::GcShape, Error> {
    parse(params)?;
    Ok(super::GcShape::single())
}

/// The sealed segments of every pool, each one's position and pool.
pub fn memory(layout: &Layout, _params: &toml::Table, est: &mut crate::memory::Estimate) {
    est.add("GC policy", super::per_pool_members::<Vec<u32>>(layout, 8));
}

/// Build d-choices from `[ftl.gc_params]` (`d`, default 10).
pub fn build(ctx: &super::GcContext) -> Result<Box<dyn GcPolicy>, Error> {
    let p = parse(ctx.params)?;
    Ok(Box::new(DChoices::new(ctx.layout, p.d, ctx.rng())))
}

impl GcPolicy for DChoices {
    fn choose(&mut self, view: &GcView, pool: u32) -> Option<u32> {
        let list = self.sealed.of(pool);
        let n = list.len() as u32;
        if n == 0 {
            return None;
        }
        let fewest = |best: Option<u32>, seg: u32| match best {
            Some(b) if view.valid[b as usize] <= view.valid[seg as usize] => Some(b),
            _ => Some(seg),
        };
        if self.d >= n {
            // Every candidate examined: greedy over the pool, ties to the first listed.
            return list.iter().fold(None, |b, &s| fewest(b, s));
        }
        self.drawn.clear();
        let mut best = None;
        while (self.drawn.len() as u32) < self.d {
            let i = self.rng.random_range(0..n);
            if self.drawn.contains(&i) {
                continue;
            }
            self.drawn.push(i);
            best = fewest(best, list[i as usize]);
        }
        best
    }

    fn take(&mut self, _view: &GcView, seg: u32) {
        self.sealed.remove(seg);
    }

    fn on_seal(&mut self, _view: &GcView, seg: u32) {
        self.sealed.insert(seg);
    }

    fn validate(&self, view: &GcView) -> Result<(), String> {
        self.sealed.validate("d-choices", view)
    }
}
