//! Results compared across runs that must agree: everything but the wall clock.

use flashlab::results::Results;

/// `r` as JSON without the wall-clock fields of `sim` (the only ones two runs of the same
/// simulation may differ in).
pub fn without_wall_clock(r: &Results) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("results serialize");
    let sim = v["sim"].as_object_mut().expect("sim section");
    for k in ["wall_s", "precondition_wall_s", "host_pages_per_s"] {
        assert!(sim.remove(k).is_some(), "results.sim has {k}");
    }
    v
}
