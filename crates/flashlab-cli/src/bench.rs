//! `flashlab bench`: run the benchmark presets and report rates. Measurement, not assertion:
//! figures are printed with the command that reproduces each.

use anyhow::Result;
use flashlab::sim;

use crate::{load_config, Bar};

pub fn run(quick: bool, quiet: bool) -> Result<()> {
    let scale: &[String] = if quick { &[] } else { &[] };
    let mut sets: Vec<String> = scale.to_vec();
    if quick {
        sets.push("workload.volume_ratio=1.0".into());
    }
    for preset in ["bench-accounting", "bench-timing"] {
        let cfg = load_config(preset, &sets)?;
        let mut bar = Bar::new(quiet);
        let r = sim::run(&cfg, &mut bar)?;
        let phys_pages = r.device.physical_bytes / r.device.page_size;
        println!(
            "{preset:<18} {:>7.2} M host pages/s  ({} pages in {:.2} s; WAF {:.3}; precondition {:.2} s)   [flashlab run {preset} --set ...]",
            r.sim.host_pages_per_s / 1e6,
            r.host.read_pages + r.host.write_pages,
            r.sim.wall_s,
            r.waf.unwrap_or(0.0),
            r.sim.precondition_wall_s,
        );
        let _ = phys_pages;
    }
    Ok(())
}
