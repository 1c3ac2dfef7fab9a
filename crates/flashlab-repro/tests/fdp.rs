//! The FDP flash-cache reproduction end to end at quick scale: every row measured at steady
//! state where the report says so, the per-handle counts adding up to the device's, the
//! study's direction (FDP brings a mixed cache's device WAF down to about 1), every claim
//! through the one verdict rule, every plot shown and laid out cleanly.

struct NoProgress;
impl flashlab_repro::RunProgress for NoProgress {}

#[test]
fn the_reproduction_measures_fdp_against_a_conventional_ssd() {
    let r = flashlab_repro::find("fdp").unwrap();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let out = (r.run)(&flashlab_repro::Setup::quick(threads), &NoProgress).unwrap();
    let rows = out.json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 49, "4 main, 2 x (5 shares + 2 OPs) x 2 devices, 2 x 2 device readings, 1, 2 x 6 ablations");
    let row = |util: f64, device: &str| {
        rows.iter()
            .find(|r| r["role"] == "main" && r["utilization"] == util && r["device"] == device)
            .unwrap_or_else(|| panic!("no main row {util} {device}"))
    };
    let waf = |r: &serde_json::Value| r["waf"].as_f64().unwrap();
    // The study's direction: at 100% FDP far below a conventional SSD, and about 1.
    let (nf, fdp) = (row(1.0, "non-fdp"), row(1.0, "fdp"));
    assert!(waf(fdp) < 1.15 && waf(fdp) >= 1.0 && waf(nf) > 2.0 * waf(fdp), "{} vs {}", waf(nf), waf(fdp));
    assert!(waf(row(0.5, "fdp")) < 1.15);
    for r in ["non-fdp", "fdp"].iter().flat_map(|d| [row(1.0, d), row(0.5, d)]) {
        assert_eq!(r["steady"], true, "a main row not at steady state: {r}");
    }
    // The core's per-handle accounting: the handles add up to the device.
    for r in rows.iter().filter(|r| !r["placement"].is_null()) {
        let p = &r["placement"];
        assert_eq!(p["sums_match"], true, "{p}");
        assert_eq!(p["invalid_ids"], 0);
        let handles = p["handles"].as_array().unwrap();
        let host: u64 = handles.iter().map(|h| h["host_pages"].as_u64().unwrap()).sum();
        assert_eq!(host, p["host_pages"].as_u64().unwrap());
        if r["device"] == "fdp" {
            assert_eq!(handles[0]["host_pages"], 0, "nothing uses the default handle");
        }
    }
    for needle in [
        "### Declared before the run",
        "**Verdict rule, stated before the results**",
        "## Device WAF with and without FDP",
        "## Per handle",
        "## Sensitivity to the SOC's share",
        "## Verdicts",
        "Tally:",
        "3.22",
        "1.03",
        "1.22",
    ] {
        assert!(out.report_md.contains(needle), "report lacks {needle}");
    }
    let declared = out.report_md.find("### Declared before the run").unwrap();
    assert!(declared < out.report_md.find("## Device WAF").unwrap(), "choices are declared before the results");
    assert_eq!(out.claims.len(), 7);
    assert!(out.claims.iter().all(|c| !c.note.contains("OUTSIDE")), "no claim is by construction");
    for (name, svg) in &out.files {
        assert!(out.report_md.contains(&format!("]({name})")), "report does not show {name}");
        let problems = flashlab_repro::plot::layout_problems(svg);
        assert!(problems.is_empty(), "{name}: {problems:?}");
    }
    if let Ok(dir) = std::env::var("FDP_OUT") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(format!("{dir}/report.md"), &out.report_md).unwrap();
        std::fs::write(format!("{dir}/results.json"), serde_json::to_string_pretty(&out.json).unwrap()).unwrap();
        for (name, text) in &out.files {
            std::fs::write(format!("{dir}/{name}"), text).unwrap();
        }
    }
}
