//! Plots as SVG text (plotters' SVG backend; text is left to the viewer's fonts, so no font
//! files are needed). Shared by reproductions and `flashlab plot`: axis labels carry units,
//! every chart has a legend. Returns strings; writing files is the caller's business.

use plotters::prelude::*;

/// One named line of (x, y) points.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

type SvgArea<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawResult = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// Draw into an SVG string of `size` pixels.
fn render(size: (u32, u32), draw: impl FnOnce(&SvgArea) -> DrawResult) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&root).expect("drawing into a string cannot fail");
        root.present().expect("drawing into a string cannot fail");
    }
    svg
}

/// A line chart with markers, a legend, and y starting at `y_min` (or the data's minimum).
pub fn line_chart(title: &str, x_label: &str, y_label: &str, lines: &[Line], y_min: Option<f64>) -> String {
    render((720, 420), |root| draw_lines(root, title, x_label, y_label, lines, y_min))
}

fn bounds(lines: &[Line], y_min: Option<f64>) -> ((f64, f64), (f64, f64)) {
    let pts = lines.iter().flat_map(|l| l.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return ((0.0, 1.0), (0.0, 1.0));
    }
    let y0 = y_min.unwrap_or(y0);
    let pad = ((y1 - y0) * 0.08).max(1e-9);
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    ((x0, x1), (y0, y1 + pad))
}

fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    y_min: Option<f64>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let ((x0, x1), (y0, y1)) = bounds(lines, y_min);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).light_line_style(WHITE.mix(0.0)).draw()?;
    for (i, line) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(line.points.iter().copied(), color.stroke_width(2)))?
            .label(line.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(line.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// Cumulative distributions: x on a log scale (e.g. latency in µs), y from 0 to 1.
pub fn cdf_chart(title: &str, x_label: &str, lines: &[Line]) -> String {
    render((720, 420), |root| draw_cdf(root, title, x_label, lines))
}

fn draw_cdf<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    lines: &[Line],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let xs = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)).filter(|&x| x > 0.0);
    let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (lo, hi) = if lo > hi { (1.0, 10.0) } else { (lo * 0.8, (hi * 1.25).max(lo * 2.0)) };
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d((lo..hi).log_scale(), 0f64..1.05)?;
    chart.configure_mesh().x_desc(x_label).y_desc("fraction of requests").light_line_style(WHITE.mix(0.0)).draw()?;
    for (i, line) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = line.points.iter().copied().filter(|p| p.0 > 0.0).collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
            .label(line.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// The plots of one run's `results.json`: running WAF, erase-count distribution, and the
/// latency CDF when the run was in timing mode. Errors name the missing key.
pub fn results_plots(v: &serde_json::Value) -> Result<Vec<(String, String)>, String> {
    let name = v["name"].as_str().unwrap_or("run").to_string();
    let series = v["series"].as_array().ok_or("results.json has no `series`")?;
    let total = series.last().and_then(|p| p["host_writes"].as_f64()).unwrap_or(0.0).max(1.0);
    let pts = |key: &str| -> Vec<(f64, f64)> {
        series.iter().filter_map(|p| Some((100.0 * p["host_writes"].as_f64()? / total, p[key].as_f64()?))).collect()
    };
    let mut out = vec![(
        "running-waf.svg".to_string(),
        line_chart(
            &format!("Running WAF: {name}"),
            "progress (% of host page writes)",
            "WAF",
            &[
                Line { name: "per interval".into(), points: pts("running_waf") },
                Line { name: "cumulative".into(), points: pts("cumulative_waf") },
            ],
            Some(0.0),
        ),
    )];
    let hist = v["wear_histogram"].as_array().ok_or("results.json has no `wear_histogram`")?;
    let pairs: Vec<(u64, u64)> = hist.iter().filter_map(|p| Some((p[0].as_u64()?, p[1].as_u64()?))).collect();
    out.push(("wear.svg".into(), wear_chart(&name, &pairs)));
    if let Some(lat) = v["latency_us"].as_object() {
        let lines: Vec<Line> = ["read", "write"]
            .iter()
            .filter_map(|op| {
                let cdf = lat.get(&format!("{op}_cdf"))?.as_array()?;
                let points: Vec<(f64, f64)> =
                    cdf.iter().filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?))).collect();
                (!points.is_empty()).then(|| Line { name: op.to_string(), points })
            })
            .collect();
        if !lines.is_empty() {
            out.push((
                "latency-cdf.svg".into(),
                cdf_chart(&format!("Latency CDF: {name}"), "latency (µs, log scale)", &lines),
            ));
        }
    }
    Ok(out)
}

/// Erase-count distribution as bars, in at most 30 equal-width bins.
fn wear_chart(name: &str, pairs: &[(u64, u64)]) -> String {
    let (lo, hi) = pairs.iter().fold((u64::MAX, 0), |(a, b), &(c, _)| (a.min(c), b.max(c)));
    let (lo, hi) = if lo > hi { (0, 0) } else { (lo, hi) };
    let width = (hi - lo) / 30 + 1;
    let bins = ((hi - lo) / width + 1) as usize;
    let mut counts = vec![0.0; bins];
    for &(c, n) in pairs {
        counts[((c - lo) / width) as usize] += n as f64;
    }
    let categories = (0..bins)
        .map(|i| {
            let a = lo + i as u64 * width;
            if width == 1 {
                a.to_string()
            } else {
                format!("{a}-{}", a + width - 1)
            }
        })
        .collect();
    let bars = Bars {
        x_label: "erases per block".into(),
        categories,
        series: vec![("blocks".into(), counts)],
        stacked: false,
    };
    bar_chart(&format!("Erase counts per block: {name}"), "blocks", &bars)
}

/// Bars: one value per (category, series). Grouped side by side, or stacked.
pub struct Bars {
    /// What the categories are (x axis label).
    pub x_label: String,
    pub categories: Vec<String>,
    /// (series name, one value per category).
    pub series: Vec<(String, Vec<f64>)>,
    pub stacked: bool,
}

/// A bar chart with category labels on x, a legend, and y from 0.
pub fn bar_chart(title: &str, y_label: &str, bars: &Bars) -> String {
    let width = (160 + 95 * bars.categories.len().max(4) as u32).clamp(720, 1000);
    render((width, 420), |root| draw_bars(root, title, y_label, bars))
}

fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    y_label: &str,
    bars: &Bars,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let n = bars.categories.len().max(1);
    let totals: Vec<f64> = (0..n)
        .map(|c| {
            let vals = bars.series.iter().map(|(_, v)| v.get(c).copied().unwrap_or(0.0));
            if bars.stacked {
                vals.sum()
            } else {
                vals.fold(0.0, f64::max)
            }
        })
        .collect();
    // Headroom above the tallest bar for the legend.
    let y_max = totals.iter().copied().fold(0.0, f64::max).max(1e-9) * 1.4;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(56)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..n as f64, 0f64..y_max)?;
    let cats = bars.categories.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE.mix(0.0))
        .x_labels(n * 2 + 1)
        .x_label_formatter(&|x| {
            let i = x.floor() as usize;
            if (x - i as f64 - 0.5).abs() < 1e-6 {
                cats.get(i).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_desc(bars.x_label.as_str())
        .y_desc(y_label)
        .draw()?;
    let k = bars.series.len().max(1) as f64;
    for (si, (name, values)) in bars.series.iter().enumerate() {
        let color = COLORS[si % COLORS.len()];
        let rects = values.iter().enumerate().map(|(c, &v)| {
            let (x0, x1, y0) = if bars.stacked {
                let below: f64 = bars.series[..si].iter().map(|(_, v)| v.get(c).copied().unwrap_or(0.0)).sum();
                (c as f64 + 0.15, c as f64 + 0.85, below)
            } else {
                let w = 0.7 / k;
                (c as f64 + 0.15 + si as f64 * w, c as f64 + 0.15 + (si as f64 + 1.0) * w, 0.0)
            };
            Rectangle::new([(x0, y0), (x1, y0 + v)], color.filled())
        });
        chart
            .draw_series(rects)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_chart_is_svg_with_title_axes_and_legend() {
        let lines = vec![
            Line { name: "greedy".into(), points: vec![(1.0, 2.0), (2.0, 3.0)] },
            Line { name: "2R++".into(), points: vec![(1.0, 1.1), (2.0, 1.3)] },
        ];
        let svg = line_chart("Running WAF", "progress (% of writes)", "WAF", &lines, Some(0.0));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        for text in ["Running WAF", "progress (% of writes)", "WAF", "greedy", "2R++"] {
            assert!(svg.contains(text), "missing {text}");
        }
        assert!(svg.matches("<polyline").count() >= 2, "one polyline per series");
    }

    #[test]
    fn bar_charts_label_categories_and_series() {
        for stacked in [false, true] {
            let bars = Bars {
                x_label: "workload".into(),
                categories: vec!["tpcc".into(), "linkbench".into()],
                series: vec![("2R".into(), vec![1.4, 1.5]), ("2R++".into(), vec![1.3, 1.4])],
                stacked,
            };
            let svg = bar_chart("Cumulative WAF", "WAF", &bars);
            for text in ["Cumulative WAF", "WAF", "tpcc", "linkbench", "2R++"] {
                assert!(svg.contains(text), "stacked={stacked}: missing {text}");
            }
            assert!(svg.matches("<rect").count() > 4, "one rectangle per bar plus the background");
        }
    }
}
