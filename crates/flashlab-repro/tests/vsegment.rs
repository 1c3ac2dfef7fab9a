//! The V-Segment reproduction end to end at quick scale: every figure of the paper in the
//! report, every claim through the one verdict rule, every plot linked. (The OneNAND read path
//! it runs on is pinned to closed forms in `flashlab-onenand`'s `tests/onenand.rs`.)

struct NoProgress;
impl flashlab_repro::RunProgress for NoProgress {}

#[test]
fn the_reproduction_reports_every_figure_beside_the_papers() {
    let r = flashlab_repro::find("vsegment").unwrap();
    let out = (r.run)(&flashlab_repro::Setup::quick(1), &NoProgress).unwrap();
    let rows = out.json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4 * (16 + 7 + 1), "4 drivers x (16 sizes + 7 Fig. 12 sizes + paging)");
    for row in rows {
        assert!(row["workload"].is_string() && row["policy"].is_string(), "{row}");
    }
    for needle in [
        "Fig. 10",
        "Fig. 11",
        "Fig. 12",
        "Fig. 13",
        "Fig. 14",
        "46%",
        "72%",
        "178 ms",
        "61 µs",
        "## Verdicts",
        "Tally:",
    ] {
        assert!(out.report_md.contains(needle), "report lacks {needle}");
    }
    // Every claim through the one rule; a fitted figure that misses its band means a cost was
    // entered wrong.
    assert!(out.claims.len() >= 15, "{} claims", out.claims.len());
    for c in &out.claims {
        assert!(!c.note.contains("OUTSIDE its band"), "{}: {}", c.what, c.note);
    }
    for (name, _) in &out.files {
        assert!(out.report_md.contains(&format!("]({name})")), "report does not show {name}");
    }
    if let Ok(dir) = std::env::var("VSEGMENT_OUT") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(format!("{dir}/report.md"), &out.report_md).unwrap();
        std::fs::write(format!("{dir}/results.json"), serde_json::to_string_pretty(&out.json).unwrap()).unwrap();
        for (name, text) in &out.files {
            std::fs::write(format!("{dir}/{name}"), text).unwrap();
        }
    }
}
