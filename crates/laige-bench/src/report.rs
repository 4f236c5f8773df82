//! The bench report's pictures and history: an SVG drawn with `plotters`
//! beside the table and `bench-report.json`, and the comparison against a
//! previous report (`--baseline FILE`).
//!
//! The SVG has three parts, top to bottom:
//!
//! - **Budgets**: one bar per measured budget, as the share of its budget
//!   used (1.0 is the budget line: `value / max`, or `min / value` for a
//!   floor such as fps), green within budget, red over. A black diamond
//!   marks the anchor — the reference implementation measured beside ours
//!   (1.0× for a ratio budget; the budget's `anchor` metric otherwise) — and
//!   a grey bar the baseline's figure when one was given; a figure that
//!   changed beyond noise is labelled with its change.
//! - **Pacing**: the cumulative distribution of each pacer's frame
//!   lateness (the frame clock, `thread::sleep`, `spin_sleep`), log scale,
//!   at each measured rate.
//! - **Tick time**: the histogram of the 10k-entity workload's ticks
//!   through the game loop, for each math backend measured.

use std::collections::BTreeMap;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::harness::{Budget, Budgets, Distribution, Report};

/// The relative change beyond which a median or ratio counts as changed
/// against a baseline: run-to-run spread of medians on the shared 2-CPU
/// bench machine is 5-10%.
pub const NOISE_MEDIAN: f64 = 0.10;

/// The same for tail figures (`p99`, `max`, per-run pacing figures), whose
/// run-to-run spread there is several times the medians'.
pub const NOISE_TAIL: f64 = 0.50;

/// A change smaller than this share of the figure's budget bound is noise
/// whatever its relative size (a difference near 0 µs doubling is not news).
pub const NOISE_BUDGET_SHARE: f64 = 0.05;

/// Whether a figure went the good or the bad way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Lower for a cost, higher for a floor (fps).
    Better,
    /// The other way.
    Worse,
}

/// One figure that changed beyond noise against the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The metric.
    pub name: String,
    /// The baseline's value.
    pub old: f64,
    /// This run's value.
    pub new: f64,
    /// `new / old - 1`.
    pub relative: f64,
    /// Better or worse.
    pub direction: Direction,
}

/// The noise threshold of a metric name: tails are noisier than medians.
fn noise_of(name: &str) -> f64 {
    let tail = name.contains("p99") || name.contains("max") || name.contains(".run");
    if tail { NOISE_TAIL } else { NOISE_MEDIAN }
}

/// True when a higher value of the metric is better: a budget floor, or a
/// frame rate.
fn higher_is_better(unit: &str, budget: Option<&Budget>) -> bool {
    match budget {
        Some(b) => b.min.is_some() && b.max.is_none(),
        None => unit == "fps",
    }
}

/// The figures measured in both reports that changed beyond noise (see
/// [`NOISE_MEDIAN`], [`NOISE_TAIL`], [`NOISE_BUDGET_SHARE`]), by name.
/// Figures of different units are not compared.
pub fn compare(report: &Report, baseline: &Report, budgets: &Budgets) -> Vec<Change> {
    let mut changes = Vec::new();
    for (name, m) in &report.metrics {
        let Some(old) = baseline.metrics.get(name) else {
            continue;
        };
        if old.unit != m.unit {
            continue;
        }
        let (a, b) = (old.value, m.value);
        let scale = a.abs().max(b.abs());
        let delta = b - a;
        if !(scale > 0.0 && delta.abs() > noise_of(name) * scale) {
            continue;
        }
        let budget = budgets.budgets.get(name);
        if let Some(bound) = budget.and_then(|b| b.max.or(b.min))
            && delta.abs() <= NOISE_BUDGET_SHARE * bound.abs()
        {
            continue;
        }
        let up_good = higher_is_better(&m.unit, budget);
        let direction = if (delta > 0.0) == up_good {
            Direction::Better
        } else {
            Direction::Worse
        };
        changes.push(Change {
            name: name.clone(),
            old: a,
            new: b,
            relative: if a == 0.0 { f64::INFINITY } else { b / a - 1.0 },
            direction,
        });
    }
    changes
}

/// One bar of the budget chart.
struct BudgetBar {
    name: String,
    label: String,
    /// Share of the budget used (1.0 = at the budget).
    used: f64,
    anchor: Option<f64>,
    baseline: Option<f64>,
    pass: bool,
    change: Option<String>,
}

/// The share of its budget a value uses: `value / max`, or `min / value`
/// for a floor (a zero or negative value under a floor is far over).
fn share(b: &Budget, value: f64) -> f64 {
    match (b.max, b.min) {
        (Some(max), _) if max != 0.0 => value / max,
        (None, Some(min)) if value > 0.0 => min / value,
        (None, Some(_)) => f64::INFINITY,
        _ => 0.0,
    }
}

fn budget_bars(report: &Report, budgets: &Budgets, baseline: Option<&Report>) -> Vec<BudgetBar> {
    let changes: BTreeMap<String, Change> = baseline
        .map(|base| compare(report, base, budgets))
        .unwrap_or_default()
        .into_iter()
        .map(|c| (c.name.clone(), c))
        .collect();
    let mut bars = Vec::new();
    for (name, b) in &budgets.budgets {
        let Some(m) = report.metrics.get(name) else {
            continue;
        };
        let anchor_value = match &b.anchor {
            Some(metric) => report.metrics.get(metric).map(|a| a.value),
            None => (b.unit == "x").then_some(1.0),
        };
        let bound = match (b.min, b.max) {
            (Some(lo), None) => format!(">= {lo}"),
            (_, Some(hi)) => format!("<= {hi}"),
            (None, None) => String::new(),
        };
        let pass = b.max.is_none_or(|hi| m.value <= hi) && b.min.is_none_or(|lo| m.value >= lo);
        bars.push(BudgetBar {
            name: name.clone(),
            label: format!("{:.3} {} ({bound})", m.value, m.unit),
            used: share(b, m.value),
            anchor: anchor_value.map(|a| share(b, a)),
            baseline: baseline
                .and_then(|r| r.metrics.get(name))
                .filter(|o| o.unit == m.unit)
                .map(|o| share(b, o.value)),
            pass,
            change: changes.get(name).map(|c| {
                let arrow = match c.direction {
                    Direction::Better => "better",
                    Direction::Worse => "WORSE",
                };
                format!("{:+.0}% {arrow}", c.relative * 100.0)
            }),
        });
    }
    bars
}

/// Picture width in pixels.
const WIDTH: u32 = 1200;
/// One budget row's height.
const ROW: u32 = 22;
/// A distribution chart's height.
const CHART: u32 = 340;

/// Any plotters error, as text.
fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The report as an SVG document (see the module doc).
///
/// # Errors
///
/// A drawing error from plotters, as text.
pub fn svg(
    report: &Report,
    budgets: &Budgets,
    baseline: Option<&Report>,
) -> Result<String, String> {
    let bars = budget_bars(report, budgets, baseline);
    let n_budgets = budgets.budgets.len();
    let pacing = pacing_groups(report);
    let ticks = tick_series(report);
    let budget_h = 90 + ROW * u32::try_from(bars.len().max(1)).unwrap_or(1);
    let height = budget_h + CHART * u32::try_from(pacing.len() + 1).unwrap_or(1);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, rest) = root.split_vertically(budget_h);
        draw_budgets(&top, &bars, n_budgets, report, baseline.is_some())?;
        let mut rest = rest;
        for (rate, series) in &pacing {
            let (area, below) = rest.split_vertically(CHART);
            draw_cdf(&area, rate, series)?;
            rest = below;
        }
        draw_histogram(&rest, &ticks)?;
        root.present().map_err(err)?;
    }
    Ok(out)
}

fn draw_budgets<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    bars: &[BudgetBar],
    n_budgets: usize,
    report: &Report,
    with_baseline: bool,
) -> Result<(), String> {
    let n = bars.len().max(1) as f64;
    let x_max = bars
        .iter()
        .map(|b| b.used)
        .filter(|u| u.is_finite())
        .fold(1.25_f64, f64::max)
        .min(3.0)
        * 1.05;
    let title = format!(
        "Budgets ({} of {n_budgets} measured): share used (1.0 = the budget; diamond = anchor{}) — {} ({} cpus){}",
        bars.len(),
        if with_baseline {
            ", grey = baseline"
        } else {
            ""
        },
        report.machine.cpu_model,
        report.machine.cpus,
        if report.quick { ", quick run" } else { "" },
    );
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(330)
        .build_cartesian_2d(0.0..x_max, 0.0..n)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_desc("share of the budget")
        .draw()
        .map_err(err)?;
    // Row i is the band n-1-i .. n-i (the first budget on top).
    let band = |i: usize| (n - 1.0 - i as f64, n - i as f64);
    let clamp = |v: f64| v.clamp(0.0, x_max);
    for (i, bar) in bars.iter().enumerate() {
        let (lo, hi) = band(i);
        let colour = if bar.pass {
            GREEN.mix(0.7)
        } else {
            RED.mix(0.8)
        };
        if let Some(base) = bar.baseline {
            chart
                .draw_series([Rectangle::new(
                    [(0.0, lo + 0.62), (clamp(base), hi - 0.08)],
                    BLACK.mix(0.3).filled(),
                )])
                .map_err(err)?;
        }
        let bar_hi = if bar.baseline.is_some() {
            lo + 0.62
        } else {
            hi - 0.15
        };
        chart
            .draw_series([Rectangle::new(
                [(0.0, lo + 0.15), (clamp(bar.used), bar_hi)],
                colour.filled(),
            )])
            .map_err(err)?;
        if let Some(a) = bar.anchor.filter(|a| a.is_finite()) {
            chart
                .draw_series([EmptyElement::at((clamp(a), (lo + hi) / 2.0))
                    + Polygon::new(vec![(0, -6), (5, 0), (0, 6), (-5, 0)], BLACK.filled())])
                .map_err(err)?;
        }
        let over = if bar.used > x_max { " >>" } else { "" };
        let text = match &bar.change {
            Some(c) => format!("{}{over}  [{c}]", bar.label),
            None => format!("{}{over}", bar.label),
        };
        let style = ("sans-serif", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        chart
            .draw_series([Text::new(text, (0.01 * x_max, (lo + hi) / 2.0), style)])
            .map_err(err)?;
        // The name in the label area, right-aligned against the axis.
        let (px, py) = chart.backend_coord(&(0.0, (lo + hi) / 2.0));
        let name_style = ("monospace", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        area.draw(&Text::new(bar.name.clone(), (px - 6, py), name_style))
            .map_err(err)?;
    }
    // The budget line.
    chart
        .draw_series([PathElement::new(
            vec![(1.0, 0.0), (1.0, n)],
            ShapeStyle {
                color: BLACK.to_rgba(),
                filled: false,
                stroke_width: 2,
            },
        )])
        .map_err(err)?;
    Ok(())
}

/// The pacing distributions by rate: `(rate, [(pacer, lateness µs)])`.
type PacingGroup = (String, Vec<(String, Vec<f64>)>);

fn pacing_groups(report: &Report) -> Vec<PacingGroup> {
    let mut groups: BTreeMap<String, Vec<(String, Vec<f64>)>> = BTreeMap::new();
    for (name, d) in &report.distributions {
        // render_pipeline.pacing_<rate>.<pacer>.lateness_us
        let Some(rest) = name.strip_prefix("render_pipeline.pacing_") else {
            continue;
        };
        let parts: Vec<&str> = rest.split('.').collect();
        if let [rate, pacer, "lateness_us"] = parts[..] {
            groups
                .entry(rate.to_owned())
                .or_default()
                .push((pacer.to_owned(), d.samples.clone()));
        }
    }
    // By rate as a number (60hz before 240hz).
    let mut groups: Vec<PacingGroup> = groups.into_iter().collect();
    groups.sort_by_key(|(rate, _)| {
        rate.trim_end_matches("hz")
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    groups
}

/// The 10k workload's tick distributions: `(backend, tick ms)`.
fn tick_series(report: &Report) -> Vec<(String, Vec<f64>)> {
    report
        .distributions
        .iter()
        .filter_map(|(name, d): (&String, &Distribution)| {
            let backend = name
                .strip_prefix("sim.workload.")?
                .strip_suffix(".10k.loop_tick_ms")?;
            Some((backend.to_owned(), d.samples.clone()))
        })
        .collect()
}

const SERIES: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

fn draw_cdf<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    rate: &str,
    series: &[(String, Vec<f64>)],
) -> Result<(), String> {
    // Lateness below 1 µs is drawn at 1 µs (the log axis has no zero).
    let floor = 1.0;
    let hi = series
        .iter()
        .flat_map(|(_, s)| s.iter().copied())
        .fold(10.0_f64, f64::max)
        * 1.2;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("Frame-clock lateness at {rate}: cumulative share of frames"),
            ("sans-serif", 16),
        )
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(50)
        .build_cartesian_2d((floor..hi).log_scale(), 0.0..1.0)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("lateness after the deadline (µs, log; under 1 µs drawn at 1 µs)")
        .x_labels(10)
        .x_label_formatter(&|v| axis_label(*v))
        .y_desc("share of frames")
        .draw()
        .map_err(err)?;
    for (k, (pacer, samples)) in series.iter().enumerate() {
        let colour = SERIES[k % SERIES.len()];
        let mut sorted: Vec<f64> = samples.iter().map(|&v| v.max(floor)).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len().max(1) as f64;
        let points = sorted
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, (i + 1) as f64 / n));
        let p99 = sorted
            .get(((0.99 * n).ceil() as usize).clamp(1, sorted.len().max(1)) - 1)
            .copied()
            .unwrap_or(0.0);
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(err)?
            .label(format!(
                "{pacer} (p99 {p99:.0} µs, {} frames)",
                sorted.len()
            ))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    Ok(())
}

fn draw_histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    series: &[(String, Vec<f64>)],
) -> Result<(), String> {
    const BINS: usize = 60;
    // The axis spans the 1st to 99th percentile of all ticks, so one
    // preempted tick does not squeeze the rest into a bar; the ticks
    // outside are counted in the caption.
    let mut all: Vec<f64> = series.iter().flat_map(|(_, s)| s.iter().copied()).collect();
    all.sort_by(f64::total_cmp);
    let rank = |p: f64| {
        all.get((p * (all.len() as f64 - 1.0)).round() as usize)
            .copied()
    };
    let (lo, hi) = match (rank(0.01), rank(0.99)) {
        (Some(lo), Some(hi)) if hi > lo => (lo, hi),
        (Some(v), Some(_)) => (v * 0.9, v * 1.1 + 1e-9),
        _ => (0.0, 1.0),
    };
    // Log-spaced bins on a log axis: backends an order of magnitude apart
    // both keep their shape.
    let lo = lo.max(1e-9);
    let hi = hi.max(lo * 1.01);
    let span = (hi / lo).ln();
    let edge = |i: usize| lo * (span * i as f64 / BINS as f64).exp();
    let mut outside = 0;
    let counts: Vec<Vec<u32>> = series
        .iter()
        .map(|(_, s)| {
            let mut c = vec![0_u32; BINS];
            for &v in s {
                if v < lo || v > hi {
                    outside += 1;
                    continue;
                }
                let i = (((v / lo).ln() / span * BINS as f64) as usize).min(BINS - 1);
                c[i] += 1;
            }
            c
        })
        .collect();
    let top = counts.iter().flatten().copied().max().unwrap_or(1).max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "Tick time of the 10k-entity workload through the game loop \
                 (1st-99th percentile; {outside} ticks outside)"
            ),
            ("sans-serif", 16),
        )
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(50)
        .build_cartesian_2d((lo..hi).log_scale(), 0_u32..top + top / 10 + 1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("tick time (ms, log)")
        .x_labels(10)
        .x_label_formatter(&|v| axis_label(*v))
        .y_desc("ticks")
        .draw()
        .map_err(err)?;
    for (k, ((backend, samples), c)) in series.iter().zip(&counts).enumerate() {
        let colour = SERIES[k % SERIES.len()];
        let mut sorted = samples.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
        chart
            .draw_series(
                c.iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(|(i, &n)| {
                        Rectangle::new([(edge(i), 0), (edge(i + 1), n)], colour.mix(0.5).filled())
                    }),
            )
            .map_err(err)?
            .label(format!(
                "{backend} (median {median:.3} ms, {} ticks)",
                samples.len()
            ))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.filled()));
    }
    if series.is_empty() {
        let style = ("sans-serif", 14).into_font().color(&BLACK);
        chart
            .draw_series([Text::new(
                "not measured in this run (area sim)".to_owned(),
                (lo + (hi - lo) * 0.3, top / 2),
                style,
            )])
            .map_err(err)?;
    } else {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

/// A log axis' tick label in at most three significant digits (the axis'
/// own key points are products like 0.1 × 3 = 0.30000000000000004).
fn axis_label(v: f64) -> String {
    let digits = if v >= 100.0 {
        0
    } else {
        (2.0 - v.abs().log10().floor()).clamp(0.0, 9.0) as usize
    };
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Machine, Metric};

    fn report(metrics: &[(&str, f64, &str)]) -> Report {
        Report {
            machine: Machine {
                cpus: 2,
                cpu_model: "test cpu".into(),
                vector_unit: "avx2".into(),
            },
            quick: false,
            elapsed_s: 1.0,
            metrics: metrics
                .iter()
                .map(|&(n, v, u)| {
                    (
                        n.to_owned(),
                        Metric {
                            value: v,
                            unit: u.to_owned(),
                        },
                    )
                })
                .collect(),
            distributions: BTreeMap::new(),
        }
    }

    fn budgets() -> Budgets {
        serde_json::from_str(
            r#"{"budgets": {
                "a.median": {"max": 2.0, "unit": "ms", "why": "t", "anchor": "a.reference"},
                "b.fps": {"min": 10.0, "unit": "fps", "why": "t"},
                "c.ratio": {"max": 1.5, "unit": "x", "why": "t"},
                "d.diff_us": {"max": 10.0, "unit": "us", "why": "t"}
            }}"#,
        )
        .unwrap()
    }

    #[test]
    fn changes_beyond_noise_are_marked_with_their_direction() {
        let old = report(&[
            ("a.median", 1.0, "ms"),
            ("a.p99", 1.0, "ms"),
            ("b.fps", 20.0, "fps"),
            ("c.ratio", 1.0, "x"),
            ("d.diff_us", 0.1, "us"),
            ("e.unbudgeted", 5.0, "ns"),
        ]);
        let new = report(&[
            ("a.median", 1.25, "ms"),    // +25%: worse
            ("a.p99", 1.3, "ms"),        // +30% on a tail: noise
            ("b.fps", 30.0, "fps"),      // +50% fps: better
            ("c.ratio", 1.05, "x"),      // +5%: noise
            ("d.diff_us", 0.4, "us"),    // x4 but 0.3 us of a 10 us budget: noise
            ("e.unbudgeted", 4.0, "ns"), // -20%: better
        ]);
        let changes = compare(&new, &old, &budgets());
        let got: Vec<(&str, Direction)> = changes
            .iter()
            .map(|c| (c.name.as_str(), c.direction))
            .collect();
        assert_eq!(
            got,
            [
                ("a.median", Direction::Worse),
                ("b.fps", Direction::Better),
                ("e.unbudgeted", Direction::Better),
            ]
        );
        assert!((changes[0].relative - 0.25).abs() < 1e-12);
    }

    #[test]
    fn bars_are_shares_of_the_budget_with_their_anchor() {
        let r = report(&[
            ("a.median", 1.0, "ms"),
            ("a.reference", 0.5, "ms"),
            ("b.fps", 5.0, "fps"),
            ("c.ratio", 1.8, "x"),
        ]);
        let bars = budget_bars(&r, &budgets(), None);
        let got: Vec<(&str, f64, Option<f64>, bool)> = bars
            .iter()
            .map(|b| (b.name.as_str(), b.used, b.anchor, b.pass))
            .collect();
        assert_eq!(
            got,
            [
                ("a.median", 0.5, Some(0.25), true),
                ("b.fps", 2.0, None, false),
                ("c.ratio", 1.2, Some(1.0 / 1.5), false),
            ]
        );
    }

    #[test]
    fn the_svg_holds_every_part() {
        let mut r = report(&[("a.median", 1.0, "ms"), ("c.ratio", 1.8, "x")]);
        for pacer in ["frame_clock", "sleep", "spin_sleep"] {
            r.distributions.insert(
                format!("render_pipeline.pacing_60hz.{pacer}.lateness_us"),
                Distribution {
                    unit: "us".into(),
                    samples: vec![3.0, 40.0, 90.0],
                },
            );
        }
        r.distributions.insert(
            "sim.workload.fx.10k.loop_tick_ms".into(),
            Distribution {
                unit: "ms".into(),
                samples: vec![0.5, 0.52, 0.61],
            },
        );
        let base = report(&[("a.median", 0.5, "ms")]);
        let svg = svg(&r, &budgets(), Some(&base)).unwrap();
        for needle in [
            "<svg",
            "a.median",
            "c.ratio",
            "+100% WORSE",
            "Frame-clock lateness at 60hz",
            "spin_sleep (p99 90",
            "Tick time of the 10k-entity workload",
            "fx (median 0.520 ms, 3 ticks)",
        ] {
            assert!(svg.contains(needle), "{needle} missing");
        }
    }

    #[test]
    fn axis_labels_are_short() {
        assert_eq!(axis_label(0.1 * 3.0), "0.3");
        assert_eq!(axis_label(0.7000000000000001), "0.7");
        assert_eq!(axis_label(1.0), "1");
        assert_eq!(axis_label(2.5), "2.5");
        assert_eq!(axis_label(0.05), "0.05");
        assert_eq!(axis_label(3000.0), "3000");
        assert_eq!(axis_label(40.0), "40");
    }
}
