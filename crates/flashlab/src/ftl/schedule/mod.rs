//! GC schedules: *when* garbage collection runs and *how many* victims a round takes, apart from
//! *which* victims (the victim policy of `ftl::gc`). One file per schedule, one line each in
//! [`GC_SCHEDULES`], chosen by `ftl.gc_schedule` with parameters in `[ftl.gc_schedule_params]`.
//!
//! Policy decides, mechanism acts: a schedule only answers two questions from a pool's free
//! segment count, and the GC mechanism (`ftl::page`) runs the rounds it asks for:
//! - [`GcSchedule::foreground`]: a host write stream of the pool needs a new segment; collect a
//!   round first? (Asked again after every round, so a schedule that wants more rounds says so.)
//! - [`GcSchedule::background`]: a host request has just been served; collect a round now?
//!
//! A [`Round`] takes one victim, or victims until the pool has a number of free segments; the
//! victim policy may extend it (2R's multi-victim rule, `GcPolicy::continue_round`). A round may
//! require its first victim to free a minimum of pages, and is declined (nothing moves) if the
//! policy's victim would free fewer.
//!
//! Space: [`GcSchedule::reserve`] is the number of free segments per pool the schedule keeps back
//! from host data in steady state. The FTL refuses a device whose spare space cannot hold it
//! and reports the over-provisioning left after it (`device.effective_over_provisioning`).

pub mod classic;
pub mod femu;
pub mod watermark;

use crate::error::Error;
use crate::registry::{Entry, Registry};

/// One GC round, as a schedule asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    /// Keep taking victims until the pool has at least this many free segments; `None`: one
    /// victim (the victim policy may still extend the round).
    pub until_free: Option<u32>,
    /// Pages the round's first victim must hold invalid; if the policy's choice holds fewer, the
    /// round is declined and nothing is collected. 0: any victim.
    pub min_invalid: u32,
}

impl Round {
    /// One victim, whatever it frees.
    pub const ONE: Round = Round { until_free: None, min_invalid: 0 };
}

/// What a schedule is built for.
#[derive(Clone, Copy, Debug)]
pub struct ScheduleContext {
    /// Segments (erase units: blocks or lines) per pool.
    pub segments_per_pool: u32,
    /// Pages in each segment.
    pub pages_per_segment: u32,
    /// Write streams of the victim policy (each keeps one open segment per pool).
    pub streams: u32,
}

/// A GC schedule. Schedules hold no mutable state: each answer is a function of the pool's free
/// segment count and the schedule's parameters.
pub trait GcSchedule: Send + Sync + dyn_clone::DynClone {
    /// Free segments per pool kept back from host data in steady state (the space check and the
    /// effective over-provisioning count it).
    fn reserve(&self) -> u32;
    /// A host write stream of a pool with `free` free segments needs a new segment: the round to
    /// collect first, if any. The mechanism asks again after each round.
    fn foreground(&self, free: u32) -> Option<Round>;
    /// Does this schedule collect in the background (after host requests)?
    fn has_background(&self) -> bool {
        false
    }
    /// After a host request: the round to collect now in a pool with `free` free segments.
    fn background(&self, _free: u32) -> Option<Round> {
        None
    }
    /// One line for summaries: the name and the resolved parameters.
    fn describe(&self) -> String;
}
dyn_clone::clone_trait_object!(GcSchedule);

/// A schedule's constructor: its context and its `[ftl.gc_schedule_params]` table.
pub type ScheduleBuildFn = fn(&ScheduleContext, &toml::Table) -> Result<Box<dyn GcSchedule>, Error>;

/// The registry: one line per schedule (its file holds the schedule and its `build`).
pub const GC_SCHEDULES: Registry<ScheduleBuildFn> = Registry {
    id: "gc_schedule",
    kind: "GC schedule",
    key: "ftl.gc_schedule",
    title: "GC schedules ([ftl] gc_schedule; page-mapped schemes)",
    params_table: Some("ftl.gc_schedule_params"),
    entries: &[
        Entry {
            name: "classic",
            about: "one victim per round when a new segment would take the pool below its reserve (1 segment): the textbook model",
            params: classic::params,
            caps: (),
            build: classic::build,
        },
        Entry {
            name: "watermark",
            about: "collect from free <= low (streams + 1) until free >= high (low + 1), per pool: multi-victim rounds",
            params: watermark::params,
            caps: (),
            build: watermark::build,
        },
        Entry {
            name: "femu",
            about: "FEMU bbssd: background GC after a request when free <= 25% (one victim, >= 1/8 invalid), forced at 5%",
            params: femu::params,
            caps: (),
            build: femu::build,
        },
    ],
};

/// The schedule used when `ftl.gc_schedule` is not set.
pub const DEFAULT: &str = "classic";

/// Names of the registered GC schedules, in registry order.
pub fn names() -> Vec<&'static str> {
    GC_SCHEDULES.names()
}

/// Build the schedule `name`; an unknown name lists the valid ones.
pub fn build(name: &str, ctx: &ScheduleContext, params: &toml::Table) -> Result<Box<dyn GcSchedule>, Error> {
    (GC_SCHEDULES.find(name)?.build)(ctx, params)
}

/// Parse a schedule's parameter table into `T` (unknown keys are errors naming the key).
pub(crate) fn parse_params<T: serde::de::DeserializeOwned>(params: &toml::Table) -> Result<T, Error> {
    crate::registry::parse_params("ftl.gc_schedule_params", params)
}

/// Check that `x` is a fraction in `[lo, 1]` (`lo` excluded when `open` is true).
pub(crate) fn fraction(key: &str, x: f64, open: bool) -> Result<f64, Error> {
    let ok = x.is_finite() && x <= 1.0 && if open { x > 0.0 } else { x >= 0.0 };
    if ok {
        Ok(x)
    } else {
        Err(Error::config(
            format!("ftl.gc_schedule_params.{key}"),
            format!("{x} is not a fraction in {}0, 1]", if open { "(" } else { "[" }),
        ))
    }
}
