//! One verdict rule for a reproduction's claims.
//!
//! A claim is a figure of the paper and ours, with a tolerance band stated with the claim (and
//! in the report before the results), and gets one verdict:
//! - **agrees**: ours is within the band around the paper's figure;
//! - **direction only**: for an effect (a difference or an improvement, whose sign is the
//!   paper's point), ours has the paper's sign but lies outside the band;
//! - **differs**: otherwise;
//! - **by construction**: a parameter of ours was derived from this figure, so agreement is
//!   not evidence (never counted as agreement).

use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Agrees,
    DirectionOnly,
    Differs,
    ByConstruction,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::DirectionOnly => "direction only",
            Verdict::Differs => "differs",
            Verdict::ByConstruction => "by construction",
        }
    }
}

/// What kind of figure a claim compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A level (e.g. a WAF): agrees or differs.
    Value,
    /// An effect whose sign is the point (e.g. an improvement): direction only is possible.
    Effect,
    /// A figure a parameter of ours was derived from.
    Fitted,
}

/// One claim: what, the paper's figure, ours, the band around the paper's figure.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Claim {
    pub what: String,
    pub paper: f64,
    pub ours: f64,
    /// Agrees when |ours − paper| <= tolerance.
    pub tolerance: f64,
    /// The band as stated ("±15%", "±3 points").
    pub band: String,
    pub verdict: Verdict,
    /// Printed after the figures (units, context).
    pub note: String,
}

impl Claim {
    /// A claim whose band is a fraction of the paper's figure (`band` 0.15 = ±15%).
    pub fn new(
        kind: Kind,
        what: impl Into<String>,
        paper: f64,
        ours: f64,
        band: f64,
        note: impl Into<String>,
    ) -> Claim {
        assert!(band >= 0.0, "a band is a non-negative fraction");
        Claim::judge(kind, what.into(), paper, ours, band * paper.abs(), format!("±{:.0}%", 100.0 * band), note.into())
    }

    /// A claim whose band is an absolute tolerance in `unit` (e.g. 3.0 "points", 5.0 "µs");
    /// a tolerance of 0 asks for the paper's figure exactly (orders, counts).
    pub fn within(
        kind: Kind,
        what: impl Into<String>,
        paper: f64,
        ours: f64,
        tolerance: f64,
        unit: &str,
        note: impl Into<String>,
    ) -> Claim {
        assert!(tolerance >= 0.0, "a tolerance is non-negative");
        let band = if tolerance == 0.0 { "exact".to_string() } else { format!("±{tolerance} {unit}") };
        Claim::judge(kind, what.into(), paper, ours, tolerance, band, note.into())
    }

    fn judge(kind: Kind, what: String, paper: f64, ours: f64, tolerance: f64, band: String, note: String) -> Claim {
        let within = ours.is_finite() && (ours - paper).abs() <= tolerance;
        // A fitted figure is no evidence, but missing it means the fit was entered wrong.
        let note = match (kind, within) {
            (Kind::Fitted, true) => join(&note, "within its band: the fitted parameter was entered right"),
            (Kind::Fitted, false) => join(&note, "OUTSIDE its band: the fitted parameter is off"),
            _ => note,
        };
        let verdict = match kind {
            Kind::Fitted => Verdict::ByConstruction,
            _ if within => Verdict::Agrees,
            Kind::Effect if ours.is_finite() && ours.signum() == paper.signum() && ours != 0.0 => {
                Verdict::DirectionOnly
            }
            _ => Verdict::Differs,
        };
        Claim { what, paper, ours, tolerance, band, verdict, note }
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}; {b}")
    }
}

/// The claims as a Markdown list, then the tally.
pub fn section(claims: &[Claim], digits: usize) -> String {
    let mut md = String::new();
    for c in claims {
        let ours = if c.ours.is_finite() { format!("{:.digits$}", c.ours) } else { "n/a".into() };
        let _ = writeln!(
            md,
            "- **{}**: {}: paper {:.digits$}, ours {ours} (band {}){}",
            c.verdict.label(),
            c.what,
            c.paper,
            c.band,
            if c.note.is_empty() { String::new() } else { format!("; {}", c.note) }
        );
    }
    let _ = writeln!(md, "\n{}", tally(claims));
    md
}

/// How many claims got each verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    pub agrees: usize,
    pub direction_only: usize,
    pub differs: usize,
    pub by_construction: usize,
    pub claims: usize,
}

impl Tally {
    pub fn of(claims: &[Claim]) -> Tally {
        let n = |v: Verdict| claims.iter().filter(|c| c.verdict == v).count();
        Tally {
            agrees: n(Verdict::Agrees),
            direction_only: n(Verdict::DirectionOnly),
            differs: n(Verdict::Differs),
            by_construction: n(Verdict::ByConstruction),
            claims: claims.len(),
        }
    }
}

/// "Tally: 3 agree, 1 direction only, 2 differ, 0 by construction (of 6 claims)".
pub fn tally(claims: &[Claim]) -> String {
    let t = Tally::of(claims);
    format!(
        "Tally: {} agree, {} direction only, {} differ, {} by construction (of {} claims).",
        t.agrees, t.direction_only, t.differs, t.by_construction, t.claims
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule() {
        let v = |k, p, o| Claim::new(k, "x", p, o, 0.15, "").verdict;
        assert_eq!(v(Kind::Value, 3.0, 3.4), Verdict::Agrees);
        assert_eq!(v(Kind::Value, 3.0, 3.5), Verdict::Differs);
        assert_eq!(v(Kind::Effect, 57.8, 20.0), Verdict::DirectionOnly);
        assert_eq!(v(Kind::Effect, 57.8, -5.0), Verdict::Differs);
        assert_eq!(v(Kind::Effect, 57.8, 60.0), Verdict::Agrees);
        assert_eq!(v(Kind::Fitted, 1.0, 1.0), Verdict::ByConstruction);
        assert_eq!(v(Kind::Value, 1.0, f64::NAN), Verdict::Differs);
        let claims =
            [Claim::new(Kind::Value, "a", 1.0, 1.0, 0.1, ""), Claim::new(Kind::Effect, "b", 1.0, 3.0, 0.1, "")];
        assert_eq!(tally(&claims), "Tally: 1 agree, 1 direction only, 0 differ, 0 by construction (of 2 claims).");
        assert!(section(&claims, 2).contains("- **direction only**: b: paper 1.00, ours 3.00 (band ±10%)"));
        let abs = |p, o| Claim::within(Kind::Value, "d", p, o, 3.0, "points", "");
        assert_eq!(abs(46.0, 44.5).verdict, Verdict::Agrees);
        assert_eq!(abs(46.0, 42.0).verdict, Verdict::Differs);
        assert!(section(&[abs(46.0, 44.5)], 1).contains("(band ±3 points)"));
        assert_eq!(Claim::within(Kind::Value, "e", 16.0, 16.0, 0.0, "KB", "").band, "exact");
        assert_eq!(Claim::within(Kind::Value, "e", 16.0, 20.0, 0.0, "KB", "").verdict, Verdict::Differs);
        let missing = [Claim::new(Kind::Effect, "c", 1.0, f64::NAN, 0.1, "")];
        assert!(section(&missing, 1).contains("- **differs**: c: paper 1.0, ours n/a (band ±10%)"));
    }
}
