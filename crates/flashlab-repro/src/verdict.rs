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
//!
//! A claim judged *differs* or *direction only* carries its explanation — the ablation row that
//! removes the cause (the claim's figure with that cause removed), or a stated ambiguity of the
//! paper with both readings run — given with [`Claim::because`]; one without is *unexplained*,
//! printed so, and counted in the tally.

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
    /// Why a claim that does not agree differs: the experiment that isolates the cause (given
    /// with [`Claim::because`]); `None` on a gap is *unexplained*.
    pub explanation: Option<String>,
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
        Claim { what, paper, ours, tolerance, band, verdict, note, explanation: None }
    }

    /// The explanation of a gap: an ablation row that removes its cause (name the row and give its
    /// figure), or a stated ambiguity of the paper with both readings run. Kept only where the
    /// claim has a gap (*differs* or *direction only*): an agreement needs none.
    pub fn because(mut self, why: impl Into<String>) -> Claim {
        if self.has_gap() {
            self.explanation = Some(why.into());
        }
        self
    }

    /// *differs* or *direction only*.
    pub fn has_gap(&self) -> bool {
        matches!(self.verdict, Verdict::Differs | Verdict::DirectionOnly)
    }

    /// A gap with no explanation.
    pub fn unexplained(&self) -> bool {
        self.has_gap() && self.explanation.is_none()
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
            "- **{}**: {}: paper {:.digits$}, ours {ours} (band {}){}{}",
            c.verdict.label(),
            c.what,
            c.paper,
            c.band,
            if c.note.is_empty() { String::new() } else { format!("; {}", c.note) },
            match (&c.explanation, c.unexplained()) {
                (Some(why), _) => format!(" — explained: {why}"),
                (None, true) => " — **unexplained**".to_string(),
                (None, false) => String::new(),
            }
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
    /// Claims that differ or agree in direction only with no explanation.
    pub unexplained: usize,
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
            unexplained: claims.iter().filter(|c| c.unexplained()).count(),
            claims: claims.len(),
        }
    }
}

/// "Tally: 3 agree, 1 direction only, 2 differ, 0 by construction (of 6 claims); 1 of the 3
/// gaps unexplained.".
pub fn tally(claims: &[Claim]) -> String {
    let t = Tally::of(claims);
    format!(
        "Tally: {} agree, {} direction only, {} differ, {} by construction (of {} claims); {} of the {} gaps unexplained.",
        t.agrees,
        t.direction_only,
        t.differs,
        t.by_construction,
        t.claims,
        t.unexplained,
        t.direction_only + t.differs
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
        assert_eq!(
            tally(&claims),
            "Tally: 1 agree, 1 direction only, 0 differ, 0 by construction (of 2 claims); 1 of the 1 gaps unexplained."
        );
        assert!(section(&claims, 2)
            .contains("- **direction only**: b: paper 1.00, ours 3.00 (band ±10%) — **unexplained**"));
        // An explanation is kept on a gap and counted; an agreement takes none.
        let explained = [
            Claim::new(Kind::Value, "a", 1.0, 1.0, 0.1, "").because("not needed"),
            Claim::new(Kind::Effect, "b", 1.0, 3.0, 0.1, "").because("row X removes it: 1.05"),
        ];
        assert!(explained[0].explanation.is_none());
        assert_eq!(Tally::of(&explained).unexplained, 0);
        assert!(section(&explained, 2).contains("(band ±10%) — explained: row X removes it: 1.05"));
        assert!(tally(&explained).ends_with("; 0 of the 1 gaps unexplained."));
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
