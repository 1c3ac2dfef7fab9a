//! Analytic write amplification of greedy GC under uniform random page writes: the outside
//! reference the simulator's greedy is checked against (tests/gc_schedule.rs).
//!
//! Model (mean-field limit of many segments, each of `b` pages; one write stream; a victim's
//! valid pages are rewritten, then host writes fill the rest: the `classic` schedule). A
//! sealed segment starts with `b` valid pages; each host write invalidates a uniformly chosen
//! valid page, so a segment holding `i` valid pages loses one at rate `i / U` per host write
//! (`U` logical pages) and spends on average `U / i` host writes at that level. Greedy collects
//! segments when they reach the lowest occupied level `j`. With `λ` segments sealed per host
//! write, the segments at level `i` number `λ U / i` and hold `λ U` valid pages, so
//! - valid pages: `U = λ U (b − j)`, i.e. `λ = 1 / (b − j)` and WAF = `b / (b − j)` (every victim
//!   frees `b − j` pages for host writes);
//! - segments: `T / b = λ U (H_b − H_j)`, i.e. `T / U = (b / (b − j)) (H_b − H_j)`,
//!
//! with `T` physical pages and `H_x` the harmonic number, extended to real `x` (`ψ(x + 1) + γ`)
//! so `j` can lie between levels. For `b → ∞`, `H_b − H_j → −ln u` with `u = j / b`, giving
//! `u = exp(−(1 − u) (1 + OP))` — the FIFO/LRU formula of Desnoyers ("Analytic modeling of SSD
//! write performance", SYSTOR 2012): greedy and FIFO coincide when segments are large. The
//! finite-`b` form is the fluid limit of Van Houdt's greedy model ("A mean field model for a
//! class of garbage collection algorithms in flash-based solid state drives", SIGMETRICS 2013).
//!
//! Checked against the simulator with 32,768 segments of one plane (finite-size effects
//! negligible): within 0.2% for `b` = 16–64 at OP 7% and 25%, 1.3–1.7% at `b` = 8 (the real-valued
//! interpolation between levels is coarsest there).

/// Harmonic number `H_x = ψ(x + 1) + γ` for real `x >= 0`.
fn harmonic(x: f64) -> f64 {
    const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
    // ψ by the recurrence ψ(y) = ψ(y + 1) − 1/y up to y >= 6, then the asymptotic series.
    let (mut y, mut acc) = (x + 1.0, 0.0);
    while y < 6.0 {
        acc -= 1.0 / y;
        y += 1.0;
    }
    let f = 1.0 / (y * y);
    let series = f * (1.0 / 12.0 - f * (1.0 / 120.0 - f * (1.0 / 252.0 - f * (1.0 / 240.0 - f / 132.0))));
    acc + y.ln() - 0.5 / y - series + EULER_GAMMA
}

/// Greedy's WAF under uniform random writes with over-provisioning `op` ((physical − logical) /
/// logical) and `pages_per_segment` pages per segment.
pub fn greedy_uniform_waf(op: f64, pages_per_segment: u32) -> f64 {
    assert!(op > 0.0 && op.is_finite(), "over-provisioning {op} must be positive");
    assert!(pages_per_segment >= 1, "a segment holds at least one page");
    let (b, ratio) = (pages_per_segment as f64, 1.0 + op);
    let spare = |j: f64| b / (b - j) * (harmonic(b) - harmonic(j));
    if spare(0.0) <= ratio {
        return 1.0; // so much spare space that victims hold no valid page
    }
    // spare(j) falls from H_b at j = 0 towards 1 as j → b: bisect for spare(j) = 1 + op.
    let (mut lo, mut hi) = (0.0, b);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if spare(mid) > ratio {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    b / (b - lo)
}

/// The same for segments of unbounded size (= FIFO's WAF): `1 / (1 − u)`, `u = exp(−(1 − u)(1 + op))`.
pub fn greedy_uniform_waf_limit(op: f64) -> f64 {
    assert!(op > 0.0 && op.is_finite(), "over-provisioning {op} must be positive");
    let ratio = 1.0 + op;
    // g(u) = u − exp(−(1 − u) ratio) is negative near 0 and positive just below the root u = 1.
    let (mut lo, mut hi) = (0.0, 1.0 - 1e-12);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mid - (-(1.0 - mid) * ratio).exp() > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    1.0 / (1.0 - lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_numbers() {
        for (n, h) in [(1, 1.0), (2, 1.5), (4, 25.0 / 12.0), (10, 7381.0 / 2520.0)] {
            assert!((harmonic(n as f64) - h).abs() < 1e-9, "H_{n}");
        }
        assert!(harmonic(0.0).abs() < 1e-9);
    }

    #[test]
    fn waf_is_one_page_short_of_its_level_and_tends_to_the_fifo_limit() {
        // At an integer level j the formula is exact: T/U = b/(b−j)(H_b − H_j) ⇒ WAF = b/(b−j).
        let (b, j) = (32u32, 24.0);
        let op = b as f64 / (b as f64 - j) * (harmonic(b as f64) - harmonic(j)) - 1.0;
        assert!((greedy_uniform_waf(op, b) - 4.0).abs() < 1e-9);
        for op in [0.07, 0.25, 1.0] {
            let (small, big, limit) =
                (greedy_uniform_waf(op, 16), greedy_uniform_waf(op, 65_536), greedy_uniform_waf_limit(op));
            assert!(small < big && (big - limit).abs() / limit < 1e-3, "op {op}: {small} {big} {limit}");
        }
        // Desnoyers' figure: OP 7% (α = 1.07) → u ≈ 0.872, WAF ≈ 7.82.
        assert!((greedy_uniform_waf_limit(0.07) - 7.817).abs() < 0.01);
        assert_eq!(greedy_uniform_waf(100.0, 32), 1.0);
    }
}
