//! `classic`: the textbook GC schedule — one victim per round, whenever opening a segment for
//! host writes would take the pool below its reserve of free segments.
//!
//! This is the model the analytic greedy write amplification assumes (Desnoyers, "Analytic
//! modeling of SSD write performance", SYSTOR 2012; Van Houdt, "A mean field model for a class
//! of garbage collection algorithms in flash-based solid state drives", SIGMETRICS 2013) and the
//! one single-victim simulators such as SSD-iq's implement: when the write frontier is full,
//! one victim is collected, its valid pages are written first into a fresh segment, and host
//! writes fill the rest. With one write stream the free segment count stays at the reserve.
//!
//! Parameters (`[ftl.gc_schedule_params]`): `reserve` — free segments per pool kept for GC's own
//! destination (default 1, the fewest that lets a victim's valid pages always find room; at
//! least 1). A pool is one plane with block GC units and the whole device with lines, so the
//! space GC needs is one segment per physical pool, not a multiple of the write streams.

use serde::Deserialize;

use super::{parse_params, GcSchedule, Round, ScheduleContext};
use crate::error::Error;

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// Free segments per pool below which opening a segment for host writes first runs GC (one
    /// victim): at least 1 (GC needs a free segment to copy into) and below the segments of a pool.
    #[serde(default = "one")]
    reserve: u32,
}

fn one() -> u32 {
    1
}

/// The `classic` schedule: one foreground victim whenever a pool has at most `reserve` free
/// segments.
#[derive(Clone)]
pub struct Classic {
    reserve: u32,
}

/// Schema of [`Params`], the keys [`build`] accepts.
pub(super) fn params() -> schemars::Schema {
    crate::registry::schema_of::<Params>()
}

/// Build `classic` from `[ftl.gc_schedule_params]`: `reserve` at least 1 and below the segments
/// of a pool.
pub fn build(ctx: &ScheduleContext, params: &toml::Table) -> Result<Box<dyn GcSchedule>, Error> {
    let p: Params = parse_params(params)?;
    if p.reserve == 0 || p.reserve >= ctx.segments_per_pool {
        return Err(Error::config(
            "ftl.gc_schedule_params.reserve",
            format!(
                "must be at least 1 (GC needs a free segment to move pages into) and below the {} segments of a pool",
                ctx.segments_per_pool
            ),
        ));
    }
    Ok(Box::new(Classic { reserve: p.reserve }))
}

impl GcSchedule for Classic {
    fn reserve(&self) -> u32 {
        self.reserve
    }

    fn foreground(&self, free: u32) -> Option<Round> {
        (free <= self.reserve).then_some(Round::ONE)
    }

    fn describe(&self) -> String {
        format!("classic (reserve {} segment{} per pool)", self.reserve, if self.reserve == 1 { "" } else { "s" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> ScheduleContext {
        ScheduleContext { segments_per_pool: 64, pages_per_segment: 32, streams: 3 }
    }

    #[test]
    fn one_victim_whenever_a_new_segment_would_cross_the_reserve() {
        let s = build(&ctx(), &toml::Table::new()).unwrap();
        assert_eq!(s.reserve(), 1, "one segment, whatever the number of streams");
        assert_eq!(s.foreground(2), None);
        assert_eq!(s.foreground(1), Some(Round::ONE));
        assert_eq!(s.foreground(0), Some(Round::ONE));
        assert!(!s.has_background());
        assert_eq!(s.background(0), None);
    }

    #[test]
    fn reserve_is_a_parameter_and_bad_values_are_refused() {
        let s = build(&ctx(), &"reserve = 3".parse().unwrap()).unwrap();
        assert_eq!((s.reserve(), s.foreground(3), s.foreground(4)), (3, Some(Round::ONE), None));
        for (text, key) in [("reserve = 0", "reserve"), ("reserve = 64", "reserve"), ("reserv = 1", "reserv")] {
            let e = build(&ctx(), &text.parse().unwrap()).err().expect(text).to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }
}
