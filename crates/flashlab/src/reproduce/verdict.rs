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

/// One claim: what, the paper's figure, ours, the band (a fraction of the paper's figure).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Claim {
    pub what: String,
    pub paper: f64,
    pub ours: f64,
    /// Relative band: agrees when |ours − paper| <= band × |paper|.
    pub band: f64,
    pub verdict: Verdict,
    /// Printed after the figures (units, context).
    pub note: String,
}

impl Claim {
    pub fn new(
        kind: Kind,
        what: impl Into<String>,
        paper: f64,
        ours: f64,
        band: f64,
        note: impl Into<String>,
    ) -> Claim {
        assert!(band >= 0.0, "a band is a non-negative fraction");
        let within = ours.is_finite() && (ours - paper).abs() <= band * paper.abs();
        let verdict = match kind {
            Kind::Fitted => Verdict::ByConstruction,
            _ if within => Verdict::Agrees,
            Kind::Effect if ours.is_finite() && ours.signum() == paper.signum() && ours != 0.0 => {
                Verdict::DirectionOnly
            }
            _ => Verdict::Differs,
        };
        Claim { what: what.into(), paper, ours, band, verdict, note: note.into() }
    }
}

/// The claims as a Markdown list, then the tally.
pub fn section(claims: &[Claim], digits: usize) -> String {
    let mut md = String::new();
    for c in claims {
        let ours = if c.ours.is_finite() { format!("{:.digits$}", c.ours) } else { "n/a".into() };
        let _ = writeln!(
            md,
            "- **{}**: {}: paper {:.digits$}, ours {ours} (band ±{:.0}%){}",
            c.verdict.label(),
            c.what,
            c.paper,
            100.0 * c.band,
            if c.note.is_empty() { String::new() } else { format!("; {}", c.note) }
        );
    }
    let _ = writeln!(md, "\n{}", tally(claims));
    md
}

/// "Tally: 3 agree, 1 direction only, 2 differ, 0 by construction (of 6 claims)".
pub fn tally(claims: &[Claim]) -> String {
    let n = |v: Verdict| claims.iter().filter(|c| c.verdict == v).count();
    format!(
        "Tally: {} agree, {} direction only, {} differ, {} by construction (of {} claims).",
        n(Verdict::Agrees),
        n(Verdict::DirectionOnly),
        n(Verdict::Differs),
        n(Verdict::ByConstruction),
        claims.len()
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
        let missing = [Claim::new(Kind::Effect, "c", 1.0, f64::NAN, 0.1, "")];
        assert!(section(&missing, 1).contains("- **differs**: c: paper 1.0, ours n/a (band ±10%)"));
    }
}
