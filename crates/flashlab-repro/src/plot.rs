//! Plots as SVG text (plotters' SVG backend; text is left to the viewer's fonts, so no font
//! files are needed). Shared by reproductions and `flashlab plot`: axis labels carry units,
//! every chart has a legend. Returns strings; writing files is the caller's business.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One named line of (x, y) points.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

type SvgArea<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawResult = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// Text sizes in pixels (SVG user units, shown 1:1 on a page at 100%): tick labels and legend,
/// axis titles, chart title. The smallest is the body's small print of the HTML report.
pub const TEXT_PX: f64 = 15.0;
const AXIS_PX: f64 = 16.0;
const TITLE_PX: f64 = 19.0;
/// plotters' SVG backend writes `font-size` as the requested size / 1.24 (points to pixels).
const PT_PER_PX: f64 = 1.24;

/// A font of `px` pixels as the SVG shows it.
fn font(px: f64) -> (&'static str, f64) {
    ("sans-serif", (px * PT_PER_PX).ceil())
}
/// No text in a chart is smaller than this (tests check every chart against it).
pub const MIN_TEXT_PX: f64 = 14.0;

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

/// How a legend entry looks.
#[derive(Clone, Copy)]
enum Swatch {
    Line(RGBColor),
    Bar(RGBColor),
    /// The paper's values: hollow black markers (diamond, square, triangle, by index).
    Reference(usize),
}

/// Width of a legend panel for `names` (about 8.5 px per character at [`TEXT_PX`]).
fn legend_width<'a>(names: impl Iterator<Item = &'a str>) -> u32 {
    let chars = names.map(|n| n.chars().count()).max().unwrap_or(0) as u32;
    (chars * 19 / 2 + 56).clamp(100, 340)
}

/// The legend in its own panel right of the plot, so it never hides data.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, Swatch)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let text_font = font(TEXT_PX).into_font();
    for (i, (name, swatch)) in entries.iter().enumerate() {
        let y = 60 + 26 * i as i32;
        match *swatch {
            Swatch::Line(c) => {
                area.draw(&PathElement::new(vec![(10, y), (34, y)], c.stroke_width(2)))?;
                area.draw(&Circle::new((22, y), 3, c.filled()))?;
            }
            Swatch::Bar(c) => area.draw(&Rectangle::new([(14, y - 6), (30, y + 6)], c.filled()))?,
            Swatch::Reference(k) => area.draw(&marker((22, y), k))?,
        }
        area.draw(&Text::new(name.clone(), (42, y - 8), text_font.clone()))?;
    }
    Ok(())
}

/// The `k`-th reference marker around `c` (pixel coordinates): a hollow black diamond, square
/// or triangle.
fn marker(c: (i32, i32), k: usize) -> PathElement<(i32, i32)> {
    let (x, y, r) = (c.0, c.1, 6);
    let pts = match k % 3 {
        0 => vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y), (x, y - r)],
        1 => vec![(x - 5, y - 5), (x + 5, y - 5), (x + 5, y + 5), (x - 5, y + 5), (x - 5, y - 5)],
        _ => vec![(x, y - r), (x + r, y + 5), (x - r, y + 5), (x, y - r)],
    };
    PathElement::new(pts, BLACK.stroke_width(2))
}

/// Plot-area width so that a title of `title` fits above it (about 10 px per character).
fn min_plot_width(title: &str) -> u32 {
    (title.chars().count() as u32 * 10 + 60).max(560)
}

/// Tick labels with as many decimals as the tick spacing needs (none for integer steps),
/// thousands grouped.
fn tick(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 || step <= 0.0 { 0 } else { (-step.log10()).ceil().clamp(0.0, 4.0) as usize };
    let s = format!("{v:.decimals$}");
    let (int, frac) = s.split_once('.').map_or((s.as_str(), None), |(a, b)| (a, Some(b)));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let grouped = if digits.len() > 4 {
        let mut g = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                g.push(',');
            }
            g.push(ch);
        }
        g
    } else {
        digits.to_string()
    };
    let s = format!("{sign}{grouped}{}", frac.map_or(String::new(), |f| format!(".{f}")));
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// Spacing of about `n` ticks over `lo..hi` (what plotters' tick picker roughly chooses).
fn step_of(lo: f64, hi: f64, n: usize) -> f64 {
    let raw = (hi - lo).abs() / n.max(1) as f64;
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|&s| s >= raw).unwrap_or(10.0 * mag)
}

/// A line chart with markers, a legend beside it, and y starting at `y_min` (or the data's
/// minimum).
pub fn line_chart(title: &str, x_label: &str, y_label: &str, lines: &[Line], y_min: Option<f64>) -> String {
    line_chart_with(title, x_label, y_label, lines, &[], y_min)
}

/// [`line_chart`] plus the paper's values (`reference`) as hollow black diamonds on the same
/// axes.
pub fn line_chart_with(
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    reference: &[Line],
    y_min: Option<f64>,
) -> String {
    let same = coincident(lines);
    let lines: Vec<Line> = lines
        .iter()
        .zip(&same)
        .map(|(l, s)| Line {
            name: s.map_or(l.name.clone(), |j| format!("{} (= {})", l.name, lines[j].name)),
            points: l.points.clone(),
        })
        .collect();
    let lw = legend_width(lines.iter().chain(reference).map(|l| l.name.as_str()));
    render((min_plot_width(title).max(640) + lw, 440), |root| {
        draw_lines(root, title, x_label, y_label, &lines, &same, reference, y_min, lw)
    })
}

/// For each line, the first earlier line it coincides with (the same points, to 1e-9 of the
/// values): drawn on top of it, it would hide it, so it is drawn with hollow markers and named
/// "B (= A)".
fn coincident(lines: &[Line]) -> Vec<Option<usize>> {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12);
    let same = |a: &Line, b: &Line| {
        a.points.len() == b.points.len()
            && !a.points.is_empty()
            && a.points.iter().zip(&b.points).all(|(p, q)| close(p.0, q.0) && close(p.1, q.1))
    };
    (0..lines.len()).map(|i| (0..i).find(|&j| same(&lines[i], &lines[j]))).collect()
}

fn bounds<'a>(lines: impl Iterator<Item = &'a Line>, y_min: Option<f64>) -> ((f64, f64), (f64, f64)) {
    let pts = lines.flat_map(|l| l.points.iter());
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

#[allow(clippy::too_many_arguments)]
fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    same: &[Option<usize>],
    reference: &[Line],
    y_min: Option<f64>,
    legend_w: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let (plot, legend) = root.split_horizontally(w - legend_w);
    let ((x0, x1), (y0, y1)) = bounds(lines.iter().chain(reference), y_min);
    let (xs, ys) = (step_of(x0, x1, 10), step_of(y0, y1, 8));
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, font(TITLE_PX))
        .margin(12)
        .x_label_area_size(52)
        .y_label_area_size(76)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_labels(10)
        .y_labels(8)
        .x_label_formatter(&|v| tick(*v, xs))
        .y_label_formatter(&|v| tick(*v, ys))
        .label_style(font(TEXT_PX))
        .axis_desc_style(font(AXIS_PX))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let mut entries = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart.draw_series(LineSeries::new(line.points.iter().copied(), color.stroke_width(2)))?;
        if same[i].is_some() {
            // On top of an identical line: large hollow markers keep both visible.
            chart.draw_series(line.points.iter().map(|&p| Circle::new(p, 7, color.stroke_width(2))))?;
        } else {
            chart.draw_series(line.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        entries.push((line.name.clone(), Swatch::Line(color)));
    }
    for (k, r) in reference.iter().enumerate() {
        chart.draw_series(r.points.iter().map(|&p| EmptyElement::at(p) + marker((0, 0), k)))?;
        entries.push((r.name.clone(), Swatch::Reference(k)));
    }
    draw_legend(&legend, &entries)
}

/// Cumulative distributions: x on a log scale (e.g. latency in µs), y from 0 to 1.
pub fn cdf_chart(title: &str, x_label: &str, lines: &[Line]) -> String {
    let lw = legend_width(lines.iter().map(|l| l.name.as_str()));
    render((min_plot_width(title).max(640) + lw, 440), |root| draw_cdf(root, title, x_label, lines, lw))
}

fn draw_cdf<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    lines: &[Line],
    legend_w: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let (plot, legend) = root.split_horizontally(w - legend_w);
    let xs = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)).filter(|&x| x > 0.0);
    let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (lo, hi) = if lo > hi { (1.0, 10.0) } else { (lo * 0.8, (hi * 1.25).max(lo * 2.0)) };
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, font(TITLE_PX))
        .margin(12)
        .x_label_area_size(52)
        .y_label_area_size(76)
        .build_cartesian_2d((lo..hi).log_scale(), 0f64..1.05)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("fraction of requests")
        .x_label_formatter(&|v| tick(*v, if *v >= 1.0 { 1.0 } else { *v }))
        .y_label_formatter(&|v| tick(*v, 0.1))
        .label_style(font(TEXT_PX))
        .axis_desc_style(font(AXIS_PX))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let mut entries = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = line.points.iter().copied().filter(|p| p.0 > 0.0).collect();
        chart.draw_series(LineSeries::new(pts, color.stroke_width(2)))?;
        entries.push((line.name.clone(), Swatch::Line(color)));
    }
    draw_legend(&legend, &entries)
}

/// Positive values over many decades: y on a log scale, x on a log scale too (`log_x`) or
/// linear. Points with a non-positive coordinate on a log axis are left out (a log axis has no
/// place for them).
pub fn log_chart(title: &str, x_label: &str, y_label: &str, lines: &[Line], log_x: bool) -> String {
    let lw = legend_width(lines.iter().map(|l| l.name.as_str()));
    let lines: Vec<Line> = lines
        .iter()
        .map(|l| Line {
            name: l.name.clone(),
            points: l.points.iter().copied().filter(|&(x, y)| y > 0.0 && (x > 0.0 || !log_x)).collect(),
        })
        .collect();
    let ((x0, x1), _) = bounds(lines.iter(), None);
    let ys = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    let (y0, y1) = if y0 > y1 { (1.0, 10.0) } else { (y0 / 1.5, (y1 * 1.5).max(y0 * 2.0)) };
    render((min_plot_width(title).max(640) + lw, 440), |root| {
        root.fill(&WHITE)?;
        let (w, _) = root.dim_in_pixel();
        let (plot, legend) = root.split_horizontally(w - lw);
        let mut builder = ChartBuilder::on(&plot);
        builder.caption(title, font(TITLE_PX)).margin(12).x_label_area_size(52).y_label_area_size(86);
        let entries = if log_x {
            let (x0, x1) = if x0 > 0.0 { (x0 * 0.8, (x1 * 1.25).max(x0 * 2.0)) } else { (1.0, 10.0) };
            let mut chart = builder.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
            let x_fmt = |v: &f64| tick(*v, if *v >= 1.0 { 1.0 } else { *v });
            log_mesh(chart.configure_mesh(), x_label, y_label, &x_fmt).draw()?;
            draw_log_lines(&mut chart, &lines)?
        } else {
            let xs = step_of(x0, x1, 10);
            let mut chart = builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?;
            let x_fmt = |v: &f64| tick(*v, xs);
            log_mesh(chart.configure_mesh(), x_label, y_label, &x_fmt).x_labels(10).draw()?;
            draw_log_lines(&mut chart, &lines)?
        };
        draw_legend(&legend, &entries)
    })
}

/// The mesh of a [`log_chart`]: labels, formats and styles (a log y axis).
fn log_mesh<'a, 'b, DB: DrawingBackend, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    mut mesh: plotters::chart::MeshStyle<'a, 'b, X, Y, DB>,
    x_label: &str,
    y_label: &str,
    x_fmt: &'b dyn Fn(&f64) -> String,
) -> plotters::chart::MeshStyle<'a, 'b, X, Y, DB> {
    mesh.x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(x_fmt)
        .y_label_formatter(&|v| log_tick(*v))
        .label_style(font(TEXT_PX))
        .axis_desc_style(font(AXIS_PX))
        .light_line_style(WHITE.mix(0.0));
    mesh
}

/// A log axis's tick label: grouped digits down to 0.001, powers of ten (`1e-5`) below.
fn log_tick(v: f64) -> String {
    if v > 0.0 && v < 1e-3 {
        format!("{v:.0e}")
    } else {
        tick(v, if v >= 1.0 { 1.0 } else { v })
    }
}

/// Each line with markers, in the palette's order; the legend entries.
fn draw_log_lines<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<DB, CT>,
    lines: &[Line],
) -> Result<Vec<(String, Swatch)>, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut entries = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart.draw_series(LineSeries::new(line.points.iter().copied(), color.stroke_width(2)))?;
        chart.draw_series(line.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        entries.push((line.name.clone(), Swatch::Line(color)));
    }
    Ok(entries)
}

/// The plots of one run's results: running WAF, erase-count distribution, and in timing mode
/// the latency CDF, its tail (1 − F on a log axis, where p99.9 and beyond are visible),
/// latency percentiles over simulated time and throughput over simulated time.
pub fn results_plots(r: &flashlab::results::Results) -> Vec<(String, String)> {
    let name = r.name.clone().unwrap_or_else(|| "run".into());
    let total = r.series.last().map_or(0.0, |p| p.host_writes as f64).max(1.0);
    let pts = |value: fn(&flashlab::stats::SeriesPoint) -> f64| -> Vec<(f64, f64)> {
        r.series.iter().map(|p| (100.0 * p.host_writes as f64 / total, value(p))).collect()
    };
    let mut out = vec![(
        "running-waf.svg".to_string(),
        line_chart(
            &format!("Running WAF: {name}"),
            "progress (% of host page writes)",
            "WAF",
            &[
                Line { name: "per interval".into(), points: pts(|p| p.running_waf) },
                Line { name: "cumulative".into(), points: pts(|p| p.cumulative_waf) },
            ],
            Some(0.0),
        ),
    )];
    let pairs: Vec<(u64, u64)> = r.wear_histogram.iter().map(|&(c, n)| (c as u64, n)).collect();
    out.push(("wear.svg".into(), wear_chart(&name, &pairs)));
    if let Some(lat) = &r.latency_us {
        let lines: Vec<Line> = [("read", &lat.read_cdf), ("write", &lat.write_cdf)]
            .into_iter()
            .filter(|(_, cdf)| !cdf.is_empty())
            .map(|(op, cdf)| Line { name: op.to_string(), points: cdf.clone() })
            .collect();
        if !lines.is_empty() {
            out.push((
                "latency-cdf.svg".into(),
                cdf_chart(&format!("Latency CDF: {name}"), "latency (µs, log scale)", &lines),
            ));
            let tails: Vec<Line> = lines
                .iter()
                .map(|l| Line { name: l.name.clone(), points: l.points.iter().map(|&(x, f)| (x, 1.0 - f)).collect() })
                .collect();
            out.push((
                "latency-tail.svg".into(),
                log_chart(
                    &format!("Latency tail: {name}"),
                    "latency (µs, log scale)",
                    "fraction of requests slower (1 - F, log)",
                    &tails,
                    true,
                ),
            ));
        }
        let over_time = |value: Column| -> Vec<(f64, f64)> {
            r.series.iter().filter_map(|p| Some((p.time_s?, value(p)?))).collect()
        };
        let percentiles: [(&str, Column); 6] = [
            ("read p50", |p| p.read_p50_us),
            ("read p99", |p| p.read_p99_us),
            ("read p99.9", |p| p.read_p999_us),
            ("write p50", |p| p.write_p50_us),
            ("write p99", |p| p.write_p99_us),
            ("write p99.9", |p| p.write_p999_us),
        ];
        let lines: Vec<Line> = percentiles
            .into_iter()
            .map(|(n, f)| Line { name: n.into(), points: over_time(f) })
            .filter(|l| !l.points.is_empty())
            .collect();
        if !lines.is_empty() {
            out.push((
                "latency-time.svg".into(),
                log_chart(
                    &format!("Latency per interval: {name}"),
                    "simulated time (s, interval end)",
                    "latency (µs, log scale)",
                    &lines,
                    false,
                ),
            ));
        }
        let tp = over_time(|p| p.throughput_mib_s);
        if !tp.is_empty() {
            out.push((
                "throughput-time.svg".into(),
                line_chart(
                    &format!("Throughput per interval: {name}"),
                    "simulated time (s, interval end)",
                    "host MiB/s",
                    &[Line { name: "read + write".into(), points: tp }],
                    Some(0.0),
                ),
            ));
        }
    }
    out
}

/// A column of the series that may be absent (the timing columns).
type Column = fn(&flashlab::stats::SeriesPoint) -> Option<f64>;

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

/// A bar chart with category labels on x, a legend beside it, and y from 0.
pub fn bar_chart(title: &str, y_label: &str, bars: &Bars) -> String {
    bar_chart_with(title, y_label, bars, &[])
}

/// [`bar_chart`] plus the paper's values per category (`reference`: name, one value per
/// category; NaN for none) as hollow black diamonds over the bars (grouped bars: over the bar
/// of the series at the same position in `bars.series`).
pub fn bar_chart_with(title: &str, y_label: &str, bars: &Bars, reference: &[(String, Vec<f64>)]) -> String {
    let names = bars.series.iter().map(|s| s.0.as_str()).chain(reference.iter().map(|r| r.0.as_str()));
    let lw = legend_width(names);
    let cat_chars = bars.categories.iter().map(|c| c.chars().count()).max().unwrap_or(0) as u32;
    let per_cat = (cat_chars * 9 + 16).max(80);
    let n = bars.categories.len().max(1) as u32;
    let width = (150 + per_cat * n.max(4)).clamp(min_plot_width(title).min(1060 - lw), 1060 - lw) + lw;
    // Labels that do not fit side by side stand upright.
    let upright = (width - lw - 150) / n < per_cat;
    let label_h = if upright { cat_chars * 9 + 44 } else { 60 };
    render((width, 380 + label_h), |root| draw_bars(root, title, y_label, bars, reference, lw, (upright, label_h)))
}

fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    y_label: &str,
    bars: &Bars,
    reference: &[(String, Vec<f64>)],
    legend_w: u32,
    (upright, label_h): (bool, u32),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let (plot, legend) = root.split_horizontally(w - legend_w);
    let n = bars.categories.len().max(1);
    let totals: Vec<f64> = (0..n)
        .map(|c| {
            let vals = bars.series.iter().map(|(_, v)| v.get(c).copied().unwrap_or(0.0));
            let top = if bars.stacked { vals.sum() } else { vals.fold(0.0, f64::max) };
            reference.iter().filter_map(|r| r.1.get(c).copied()).filter(|v| v.is_finite()).fold(top, f64::max)
        })
        .collect();
    let y_max = totals.iter().copied().fold(0.0, f64::max).max(1e-9) * 1.08;
    let ys = step_of(0.0, y_max, 8);
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, font(TITLE_PX))
        .margin(12)
        .x_label_area_size(label_h)
        .y_label_area_size(84)
        .build_cartesian_2d(0f64..n as f64, 0f64..y_max)?;
    let cats = bars.categories.clone();

    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE.mix(0.0))
        .x_labels(n * 2 + 1)
        .y_labels(8)
        .x_label_formatter(&|x| {
            let i = x.floor() as usize;
            if !upright && (x - i as f64 - 0.5).abs() < 1e-6 {
                cats.get(i).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| tick(*v, ys))
        .label_style(font(TEXT_PX))
        .axis_desc_style(font(AXIS_PX))
        .x_desc(bars.x_label.as_str())
        .y_desc(y_label)
        .draw()?;
    if upright {
        // Upright category labels hang from the axis, top-aligned at each category's centre.
        let style = TextStyle::from(font(TEXT_PX).into_font())
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let axis_y = chart.backend_coord(&(0.0, 0.0)).1;
        for (i, cat) in bars.categories.iter().enumerate() {
            let x = chart.backend_coord(&(i as f64 + 0.5, 0.0)).0;
            plot.draw(&Text::new(cat.clone(), (x, axis_y + 10), style.clone()))?;
        }
    }
    let k = bars.series.len().max(1) as f64;
    let slot = |c: usize, si: usize| -> (f64, f64) {
        if bars.stacked {
            (c as f64 + 0.15, c as f64 + 0.85)
        } else {
            let w = 0.7 / k;
            (c as f64 + 0.15 + si as f64 * w, c as f64 + 0.15 + (si as f64 + 1.0) * w)
        }
    };
    let mut entries = Vec::new();
    for (si, (name, values)) in bars.series.iter().enumerate() {
        let color = COLORS[si % COLORS.len()];
        let rects = values.iter().enumerate().map(|(c, &v)| {
            let (x0, x1) = slot(c, si);
            let y0 = if bars.stacked {
                bars.series[..si].iter().map(|(_, v)| v.get(c).copied().unwrap_or(0.0)).sum()
            } else {
                0.0
            };
            Rectangle::new([(x0, y0), (x1, y0 + v)], color.filled())
        });
        chart.draw_series(rects)?;
        entries.push((name.clone(), Swatch::Bar(color)));
    }
    for (ri, (name, values)) in reference.iter().enumerate() {
        let pts = values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(c, &v)| {
            let (x0, x1) = slot(c, ri.min(bars.series.len().saturating_sub(1)));
            EmptyElement::at(((x0 + x1) / 2.0, v)) + marker((0, 0), ri)
        });
        chart.draw_series(pts)?;
        entries.push((name.clone(), Swatch::Reference(ri)));
    }
    draw_legend(&legend, &entries)
}

/// What is wrong with a chart's layout, for tests: text smaller than [`MIN_TEXT_PX`], or text
/// anchored inside the plotted area (the box the grid lines span) — a legend or label drawn
/// over the data. Empty when the chart is fine.
pub fn layout_problems(svg: &str) -> Vec<String> {
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.parse().ok()
    };
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for tag in svg.split("<line").skip(1).map(|t| t.split('>').next().unwrap_or("")) {
        if let (Some(a), Some(b), Some(c), Some(d)) =
            (attr(tag, "x1"), attr(tag, "x2"), attr(tag, "y1"), attr(tag, "y2"))
        {
            x0 = x0.min(a.min(b));
            x1 = x1.max(a.max(b));
            y0 = y0.min(c.min(d));
            y1 = y1.max(c.max(d));
        }
    }
    let mut problems = Vec::new();
    for part in svg.split("<text").skip(1) {
        let (tag, rest) = part.split_once('>').unwrap_or((part, ""));
        let content = rest.split("</text>").next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        match attr(tag, "font-size") {
            Some(px) if px + 1e-9 >= MIN_TEXT_PX => {}
            px => problems.push(format!("`{content}` at {px:?} px (minimum {MIN_TEXT_PX})")),
        }
        if let (Some(x), Some(y)) = (attr(tag, "x"), attr(tag, "y")) {
            if x > x0 + 1.0 && x < x1 - 1.0 && y > y0 + 1.0 && y < y1 - 1.0 {
                problems.push(format!("`{content}` at ({x}, {y}) lies inside the plot area"));
            }
        }
    }
    problems
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
        assert_eq!(layout_problems(&svg), Vec::<String>::new());
    }

    /// Legends stand beside the plot, never over it, and no text is small — with long names,
    /// data filling the whole area, the paper's markers, and crowded categories.
    #[test]
    fn legends_stay_out_of_the_plot_and_text_is_legible() {
        let full: Vec<(f64, f64)> = (0..50).map(|i| (i as f64, (i % 7) as f64 * 1000.0)).collect();
        let lines = vec![
            Line { name: "a rather long series name".into(), points: full.clone() },
            Line { name: "b".into(), points: full.iter().map(|&(x, y)| (x, 6000.0 - y)).collect() },
        ];
        let reference = [Line { name: "paper".into(), points: vec![(10.0, 3000.0), (40.0, 5000.0)] }];
        let svgs = [
            line_chart_with("Everything at once", "x", "y", &lines, &reference, Some(0.0)),
            cdf_chart("CDF", "latency (µs)", &lines),
            bar_chart_with(
                "Crowded categories",
                "count",
                &Bars {
                    x_label: "what".into(),
                    categories: (0..12).map(|i| format!("category number {i}")).collect(),
                    series: vec![("first".into(), vec![5.0; 12]), ("second".into(), vec![7.0; 12])],
                    stacked: false,
                },
                &[("paper".into(), vec![6.0; 12])],
            ),
        ];
        for svg in &svgs {
            assert_eq!(layout_problems(svg), Vec::<String>::new());
            assert!(svg.contains("a rather long series name") || svg.contains("first"));
        }
        // The check can fail: a legend drawn inside the plot, and small text, are caught.
        let inside = svgs[0].replacen("<text x=\"", "<text x=\"300\" y=\"200\" font-size=\"9\" q=\"", 1);
        assert_eq!(layout_problems(&inside).len(), 2, "{:?}", layout_problems(&inside));
    }

    #[test]
    fn ticks_are_integers_for_integer_steps_and_grouped() {
        assert_eq!(tick(120.0, 20.0), "120");
        assert_eq!(tick(100000.0, 20000.0), "100,000");
        assert_eq!(tick(-2500.0, 500.0), "-2500");
        assert_eq!(tick(0.25, 0.05), "0.25");
        assert_eq!(tick(1.5, 0.5), "1.5");
        assert_eq!(tick(-0.0, 1.0), "0");
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
            assert_eq!(layout_problems(&svg), Vec::<String>::new());
        }
    }
}
