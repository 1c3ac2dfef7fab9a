//! `femu`: the GC trigger of FEMU's blackbox SSD (bbssd), the platform of the 2R++ paper.
//!
//! Source: MoatLab/FEMU, `hw/femu/bbssd/ftl.c` at commit 1cfe6187b (2022-04-22, the FTL as it
//! was when the 2R++ paper's experiments ran; later versions read the two percentages from
//! parameters with the same defaults):
//! - `ssd_init_params`: `gc_thres_pcent = 0.75`, `gc_thres_lines = (int)((1 - 0.75) * tt_lines)`;
//!   `gc_thres_pcent_high = 0.95`, `gc_thres_lines_high = (int)((1 - 0.95) * tt_lines)`;
//! - `ftl_thread`: after every request (read, write or DSM) is served, `if (should_gc(ssd))
//!   do_gc(ssd, false)` — one victim when free lines <= `gc_thres_lines` (background GC);
//! - `select_victim_line(ssd, force)`: the line with the fewest valid pages, but when not forced
//!   `if (victim_line->ipc < pgs_per_line / 8) return NULL` — no GC unless the victim frees at
//!   least an eighth of a line;
//! - `ssd_write`: before a write request, `while (should_gc_high(ssd)) do_gc(ssd, true)` —
//!   forced GC, one victim at a time, while free lines <= `gc_thres_lines_high`.
//!
//! How it maps here: background rounds run after each host request in every pool at or below
//! `background` × segments free (one victim, declined unless it has `min_invalid` × pages
//! invalid: FEMU's integer `pgs_per_line / 8` is `floor(0.125 × pages)`); foreground (forced)
//! rounds run one victim at a time while a pool is at or below `forced` × segments free. FEMU
//! checks the forced rule at the start of each write request; we check it when a host write
//! stream opens a segment, the only moment the free count can drop, so both keep the free count
//! at the forced level or one above. The forced level is at least 1 segment (FEMU aborts when
//! no line is free; here GC needs one to move pages into). In timing mode background GC is
//! issued at the request's issue time, as FEMU's FTL thread does it right after the request: on
//! planes the request used it queues behind the request's operations, elsewhere it starts at
//! once, and later requests queue behind it.
//!
//! FEMU has one pool (lines) and one write pointer shared by host and GC writes; with block GC
//! units the thresholds apply per plane, and GC writes go where the victim policy sends them.
//! Defaults are FEMU's; `[ftl.gc_schedule_params]`: `background` (0.25), `forced` (0.05),
//! `min_invalid` (0.125), fractions of a pool's segments / a segment's pages.
//!
//! A background victim must hold at least one invalid page whatever `min_invalid` says (it is
//! rounded down to pages, and `0` is allowed): FEMU's `ipc < pgs_per_line / 8` with a threshold
//! of 0 would move a fully valid line to free one line, which frees nothing and, while the
//! device fills, is the only victim there is. FEMU's own default gives at least one page for
//! every line of 8 pages or more, so this changes nothing there.

use serde::Deserialize;

use super::{fraction, parse_params, GcSchedule, Round, ScheduleContext};
use crate::error::Error;

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// Background GC after a host request while a pool has at most this fraction of its segments
    /// free (FEMU: 0.25).
    #[serde(default = "d_background")]
    background: f64,
    /// Forced (foreground) GC while a pool has at most this fraction of its segments free (FEMU:
    /// 0.05; at least one segment).
    #[serde(default = "d_forced")]
    forced: f64,
    /// A background round is declined unless its victim has at least this fraction of its pages
    /// invalid, and at least one page (FEMU: 1/8).
    #[serde(default = "d_min_invalid")]
    min_invalid: f64,
}

fn d_background() -> f64 {
    0.25
}
fn d_forced() -> f64 {
    0.05
}
fn d_min_invalid() -> f64 {
    0.125
}

/// The `femu` schedule: FEMU bbssd's background and forced GC levels, in free segments per pool.
#[derive(Clone)]
pub struct Femu {
    /// Free segments at or below which background GC runs (FEMU's `gc_thres_lines`).
    background_at: u32,
    /// Free segments at or below which GC is forced (`gc_thres_lines_high`, at least 1).
    forced_at: u32,
    /// Invalid pages a background victim must hold (`pgs_per_line / 8`).
    min_invalid: u32,
}

/// Schema of [`Params`], the keys [`build`] accepts.
pub(super) fn params() -> schemars::Schema {
    crate::registry::schema_of::<Params>()
}

/// Build `femu` from `[ftl.gc_schedule_params]`: fractions in [0, 1], `forced` at most
/// `background`, and a forced level below the segments of a pool.
pub fn build(ctx: &ScheduleContext, params: &toml::Table) -> Result<Box<dyn GcSchedule>, Error> {
    let p: Params = parse_params(params)?;
    let background = fraction("background", p.background, false)?;
    let forced = fraction("forced", p.forced, false)?;
    let min_invalid = fraction("min_invalid", p.min_invalid, false)?;
    if forced > background {
        return Err(Error::config(
            "ftl.gc_schedule_params.forced",
            format!("{forced} exceeds ftl.gc_schedule_params.background ({background}): forced GC is the lower level"),
        ));
    }
    let n = ctx.segments_per_pool as f64;
    let s = Femu {
        background_at: (background * n) as u32,
        forced_at: ((forced * n) as u32).max(1),
        // At least one page: a fully valid victim frees nothing (module docs).
        min_invalid: ((min_invalid * ctx.pages_per_segment as f64) as u32).max(1),
    };
    if s.forced_at >= ctx.segments_per_pool {
        return Err(Error::config("ftl.gc_schedule_params.forced", "leaves no segment for data"));
    }
    Ok(Box::new(s))
}

impl GcSchedule for Femu {
    fn reserve(&self) -> u32 {
        self.forced_at
    }

    fn foreground(&self, free: u32) -> Option<Round> {
        (free <= self.forced_at).then_some(Round::ONE)
    }

    fn has_background(&self) -> bool {
        true
    }

    fn background(&self, free: u32) -> Option<Round> {
        (free <= self.background_at).then_some(Round { until_free: None, min_invalid: self.min_invalid })
    }

    fn describe(&self) -> String {
        format!(
            "femu (background at <= {} free segments, victim >= {} invalid pages; forced at <= {})",
            self.background_at, self.min_invalid, self.forced_at
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_femus_integer_arithmetic() {
        // The 2R++ paper's 10 GB device: 2,816 lines of 1,024 pages.
        let ctx = ScheduleContext { segments_per_pool: 2816, pages_per_segment: 1024, streams: 1 };
        let s = build(&ctx, &toml::Table::new()).unwrap();
        // (int)(0.25 * 2816) = 704, (int)(0.05 * 2816) = 140 (140.8), 1024 / 8 = 128.
        assert_eq!(s.background(705), None, "no GC above 25% free");
        assert_eq!(s.background(704), Some(Round { until_free: None, min_invalid: 128 }));
        assert_eq!(s.foreground(141), None);
        assert_eq!(s.foreground(140), Some(Round::ONE), "forced at 5%");
        assert_eq!(s.reserve(), 140);
        assert!(s.has_background());
    }

    #[test]
    fn a_tiny_pool_still_keeps_one_segment_and_bad_params_are_refused() {
        let ctx = ScheduleContext { segments_per_pool: 10, pages_per_segment: 8, streams: 1 };
        let s = build(&ctx, &toml::Table::new()).unwrap();
        assert_eq!(
            (s.foreground(1), s.background(2)),
            (Some(Round::ONE), Some(Round { until_free: None, min_invalid: 1 }))
        );
        // No invalid page asked for, or a fraction under one page: still one page.
        for text in ["min_invalid = 0.0", "min_invalid = 0.1"] {
            let s = build(&ctx, &text.parse().unwrap()).unwrap();
            assert_eq!(s.background(2), Some(Round { until_free: None, min_invalid: 1 }), "{text}");
        }
        for (text, key) in [
            ("forced = 0.3", "forced"),
            ("background = 1.5", "background"),
            ("min_invalid = -1.0", "min_invalid"),
            ("bg = 0.1", "bg"),
        ] {
            let e = build(&ctx, &text.parse().unwrap()).err().expect(text).to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }
}
