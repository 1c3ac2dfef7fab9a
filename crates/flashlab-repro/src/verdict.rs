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
//! printed so, and counted in the tally. [`Claim::readings`] attaches the same figure under the
//! other readings a report runs (another host model, another cost reading): each is judged by
//! the same band and printed, and one inside the band explains the gap (that reading removes
//! it); none inside leaves it unexplained.
//!
//! An ordering the paper states without a figure ("page-chunk hits most") is a claim too
//! ([`Claim::ordering`]): it *agrees* when it holds and *differs* when it does not.

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

/// The claim's figure under another reading of the paper's set-up, judged by the same band.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Reading {
    pub label: String,
    pub ours: f64,
    pub verdict: Verdict,
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
    /// The same figure under the report's other readings ([`Claim::readings`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub readings: Vec<Reading>,
    /// An ordering: ours is 1 when it holds, 0 when it does not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ordering: bool,
    #[serde(skip)]
    kind: Kind,
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

    /// An ordering the paper states without a figure: *agrees* when it holds, else *differs*;
    /// `observed` says what ours shows.
    pub fn ordering(what: impl Into<String>, holds: bool, observed: impl Into<String>) -> Claim {
        let ours = if holds { 1.0 } else { 0.0 };
        let mut c = Claim::judge(Kind::Value, what.into(), 1.0, ours, 0.0, "holds".into(), observed.into());
        c.ordering = true;
        c
    }

    /// The figure under the report's other readings, each judged by this claim's band; the
    /// first inside the band explains a gap (that reading removes it).
    pub fn readings(mut self, readings: impl IntoIterator<Item = (String, f64)>) -> Claim {
        for (label, ours) in readings {
            let verdict = Claim::verdict_of(self.kind, self.paper, ours, self.tolerance);
            self.readings.push(Reading { label, ours, verdict });
        }
        if self.has_gap() && self.explanation.is_none() {
            if let Some(r) = self.readings.iter().find(|r| r.verdict == Verdict::Agrees) {
                self.explanation = Some(if self.ordering {
                    format!("under {} it holds", r.label)
                } else {
                    format!("under {} ours is {} (inside the band)", r.label, fmt_num(r.ours))
                });
            }
        }
        self
    }

    fn verdict_of(kind: Kind, paper: f64, ours: f64, tolerance: f64) -> Verdict {
        let within = ours.is_finite() && (ours - paper).abs() <= tolerance;
        match kind {
            Kind::Fitted => Verdict::ByConstruction,
            _ if within => Verdict::Agrees,
            Kind::Effect if ours.is_finite() && ours.signum() == paper.signum() && ours != 0.0 => {
                Verdict::DirectionOnly
            }
            _ => Verdict::Differs,
        }
    }

    fn judge(kind: Kind, what: String, paper: f64, ours: f64, tolerance: f64, band: String, note: String) -> Claim {
        let within = ours.is_finite() && (ours - paper).abs() <= tolerance;
        // A fitted figure is no evidence, but missing it means the fit was entered wrong.
        let note = match (kind, within) {
            (Kind::Fitted, true) => join(&note, "within its band: the fitted parameter was entered right"),
            (Kind::Fitted, false) => join(&note, "OUTSIDE its band: the fitted parameter is off"),
            _ => note,
        };
        let verdict = Claim::verdict_of(kind, paper, ours, tolerance);
        Claim {
            what,
            paper,
            ours,
            tolerance,
            band,
            verdict,
            note,
            explanation: None,
            readings: Vec::new(),
            ordering: false,
            kind,
        }
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

/// A figure as the report prints it: up to one decimal.
fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        "n/a".into()
    } else if x == x.round() {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
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
        let figures = if c.ordering {
            format!("paper: holds; ours: {}", if c.ours == 1.0 { "holds" } else { "does not hold" })
        } else {
            let ours = if c.ours.is_finite() { format!("{:.digits$}", c.ours) } else { "n/a".into() };
            format!("paper {:.digits$}, ours {ours} (band {})", c.paper, c.band)
        };
        let readings: Vec<String> = c
            .readings
            .iter()
            .map(|r| {
                let v = match (c.ordering, r.ours.is_finite()) {
                    (true, _) if r.ours == 1.0 => "holds".into(),
                    (true, _) => "does not hold".into(),
                    (false, true) => format!("{:.digits$}", r.ours),
                    (false, false) => "n/a".into(),
                };
                format!("{} {v} ({})", r.label, r.verdict.label())
            })
            .collect();
        let _ = writeln!(
            md,
            "- **{}**: {}: {figures}{}{}{}",
            c.verdict.label(),
            c.what,
            if c.note.is_empty() { String::new() } else { format!("; {}", c.note) },
            if readings.is_empty() { String::new() } else { format!("; other readings: {}", readings.join(", ")) },
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

    #[test]
    fn orderings_and_readings() {
        let yes = Claim::ordering("a ≥ b", true, "a 2, b 1");
        let no = Claim::ordering("c ≥ d", false, "c 1, d 2");
        assert_eq!((yes.verdict, no.verdict), (Verdict::Agrees, Verdict::Differs));
        assert!(no.unexplained());
        assert!(section(&[yes, no], 1)
            .contains("- **differs**: c ≥ d: paper: holds; ours: does not hold; c 1, d 2 — **unexplained**"));
        // A reading inside the band explains the gap; one outside does not.
        let c = Claim::new(Kind::Effect, "e", 10.0, 30.0, 0.25, "")
            .readings([("QD 8".to_string(), 40.0), ("free write-back".to_string(), 11.0)]);
        assert_eq!(c.verdict, Verdict::DirectionOnly);
        assert_eq!(c.readings[0].verdict, Verdict::DirectionOnly);
        assert_eq!(c.readings[1].verdict, Verdict::Agrees);
        assert_eq!(c.explanation.as_deref(), Some("under free write-back ours is 11 (inside the band)"));
        let s = section(std::slice::from_ref(&c), 1);
        assert!(
            s.contains(
                "other readings: QD 8 40.0 (direction only), free write-back 11.0 (agrees) — explained: under free"
            ),
            "{s}"
        );
        let d = Claim::new(Kind::Effect, "f", 10.0, 30.0, 0.25, "").readings([("QD 8".to_string(), 40.0)]);
        assert!(d.unexplained());
    }
}
