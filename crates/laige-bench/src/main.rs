//! `laige-bench`: measures laige's figures beside reference implementations
//! and checks them against `budgets.json`.
//!
//! Run it through `cargo xtask bench [--quick] [FILTER...]` (which builds it
//! in release). Usage of the binary itself:
//!
//! ```text
//! laige-bench [--quick] [--out FILE] [--svg FILE] [--baseline FILE]
//!             [--budgets FILE] [--no-fail] [--vector-unit UNIT] [FILTER...]
//! ```
//!
//! (`laige-bench --help` says what each option does; `--version` prints the
//! version.)
//!
//! Each area (`math`, `diag`, ...) records named metrics, and a progress
//! line as each area finishes (`[k/N] area: s, elapsed s`); the report is
//! printed as a table, written as JSON (`--out`, default
//! `target/bench-report.json`) and drawn as an SVG (`--svg`, default the
//! JSON's path with `.svg`: bars against the budgets, the pacing and
//! tick-time distributions); every budget is then checked. `--baseline
//! FILE` compares against a previous JSON report: the table gains the
//! baseline's column, the figures that changed beyond noise are listed,
//! and the SVG shows the baseline's bars.
//! Exit code 1 when a budget fails (unless `--no-fail`), 2 on bad usage (a
//! short message that ends with "try '--help'") or an unreadable file.

#![allow(clippy::print_stdout, reason = "a benchmark binary prints its report")]
#![allow(clippy::print_stderr, reason = "progress lines go to stderr")]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Parser;
use laige_bench::AREAS;
use laige_bench::harness::{self, Bench, Budgets, Report, Verdict};
use laige_bench::report;
use laige_core::VectorUnit;

/// laige's benchmarks: each area's figures beside reference implementations,
/// checked against the budgets file.
#[derive(Debug, Parser)]
#[command(name = "laige-bench", version, about, long_about = None)]
struct Args {
    /// Shorter runs (fewer samples): a smoke check, not figures to quote.
    #[arg(long)]
    quick: bool,
    /// Where the JSON report goes.
    #[arg(long, value_name = "FILE", default_value = "target/bench-report.json")]
    out: PathBuf,
    /// Where the SVG report goes [default: the JSON's path with `.svg`].
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// A previous JSON report to compare against: the table gains its column
    /// and the figures that changed beyond noise are listed.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// The budgets to check the figures against.
    #[arg(long, value_name = "FILE", default_value = "budgets.json")]
    budgets: PathBuf,
    /// Exit 0 even when a budget fails (the report still says which).
    #[arg(long)]
    no_fail: bool,
    /// The widest vector unit the hot loops may use (portable, avx2,
    /// avx512): e.g. `portable` measures what a baseline x86-64 CPU gets,
    /// with the same result bits [default: the CPU's widest].
    #[arg(long, value_name = "UNIT", value_parser = parse_vector_unit)]
    vector_unit: Option<VectorUnit>,
    /// Run only the areas (diag, engine, math, net, physics, sim, sprites,
    /// render_pipeline, web) whose name contains one of these, or that a filter
    /// names the start of (e.g. `math.sqrt`).
    #[arg(value_name = "FILTER")]
    filter: Vec<String>,
}

/// `--vector-unit`'s value, with laige-core's message for a bad one.
fn parse_vector_unit(text: &str) -> Result<VectorUnit, String> {
    text.parse().map_err(|e: laige_core::Error| e.to_string())
}

fn run() -> anyhow::Result<bool> {
    let args = Args::parse();
    if let Some(unit) = args.vector_unit {
        VectorUnit::limit_widest(unit);
    }
    let budgets_text = std::fs::read_to_string(&args.budgets)
        .with_context(|| format!("reading budgets {}", args.budgets.display()))?;
    let budgets: Budgets = serde_json::from_str(&budgets_text)
        .with_context(|| format!("parsing budgets {}", args.budgets.display()))?;

    // Read before measuring: a bad baseline fails at once, not after the run.
    let baseline: Option<Report> = match &args.baseline {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading baseline {}", path.display()))?;
            Some(
                serde_json::from_str(&text)
                    .with_context(|| format!("parsing baseline {}", path.display()))?,
            )
        }
        None => None,
    };

    let start = Instant::now();
    let mut bench = Bench::new(args.quick, args.filter.clone());
    let selected: Vec<_> = AREAS
        .iter()
        .filter(|(name, _)| {
            args.filter.is_empty()
                || args
                    .filter
                    .iter()
                    .any(|f| name.contains(f.as_str()) || f.starts_with(name))
        })
        .collect();
    for (k, (name, area)) in selected.iter().enumerate() {
        eprintln!("== {name}");
        let area_start = Instant::now();
        bench.set_area(name);
        area(&mut bench);
        eprintln!(
            "[{}/{}] {name} done in {:.1} s (elapsed {:.1} s)",
            k + 1,
            selected.len(),
            area_start.elapsed().as_secs_f64(),
            start.elapsed().as_secs_f64()
        );
    }
    let report = bench.into_report(start.elapsed());
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(&args.out, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("writing {}", args.out.display()))?;
    let svg_path = args
        .svg
        .clone()
        .unwrap_or_else(|| args.out.with_extension("svg"));
    let picture = report::svg(&report, &budgets, baseline.as_ref())
        .map_err(|e| anyhow::anyhow!("drawing {}: {e}", svg_path.display()))?;
    std::fs::write(&svg_path, picture)
        .with_context(|| format!("writing {}", svg_path.display()))?;

    println!(
        "\nlaige bench on {} ({} cpus, vector unit {}){}; {:.1} s",
        report.machine.cpu_model,
        report.machine.cpus,
        report.machine.vector_unit,
        if report.quick { ", quick" } else { "" },
        report.elapsed_s
    );
    let base_header = if baseline.is_some() { "baseline" } else { "" };
    println!(
        "{:<60} {:>14} {base_header:>14} {:>22}  verdict",
        "metric", "value", "budget"
    );
    let rows = harness::check(&report, &budgets);
    let mut failed = 0;
    for (name, value, bound, verdict, why) in &rows {
        let v = value.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
        let base = match &baseline {
            Some(b) => b
                .metrics
                .get(name)
                .map_or_else(|| "-".to_owned(), |m| format!("{:.3}", m.value)),
            None => String::new(),
        };
        let verdict = match verdict {
            Verdict::Pass => "ok",
            Verdict::Fail => {
                failed += 1;
                eprintln!("over budget: {name}: {why}");
                "OVER BUDGET"
            }
            Verdict::Skipped => "not measured",
        };
        println!("{name:<60} {v:>14} {base:>14} {bound:>22}  {verdict}");
    }
    if let (Some(base), Some(path)) = (&baseline, &args.baseline) {
        let changes = report::compare(&report, base, &budgets);
        println!(
            "\nagainst {}: {} figure(s) changed beyond noise",
            path.display(),
            changes.len()
        );
        for c in &changes {
            let way = match c.direction {
                report::Direction::Better => "better",
                report::Direction::Worse => "WORSE",
            };
            println!(
                "  {:<58} {:>12.3} -> {:>12.3}  {:+6.1}%  {way}",
                c.name,
                c.old,
                c.new,
                c.relative * 100.0
            );
        }
    }
    println!("report: {} and {}", args.out.display(), svg_path.display());
    if failed > 0 {
        println!("{failed} budget(s) failed");
    }
    Ok(failed == 0 || args.no_fail)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("laige-bench: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_take_both_spellings_and_filters() {
        let a = Args::try_parse_from([
            "laige-bench",
            "--quick",
            "--out=x.json",
            "--baseline",
            "old.json",
            "math",
            "sim",
        ])
        .expect("valid command line");
        assert!(a.quick);
        assert!(!a.no_fail);
        assert_eq!(a.out, PathBuf::from("x.json"));
        assert_eq!(a.baseline, Some(PathBuf::from("old.json")));
        assert_eq!(a.budgets, PathBuf::from("budgets.json"));
        assert_eq!(a.filter, ["math", "sim"]);
    }

    #[test]
    fn a_bad_option_is_a_short_usage_error() {
        let e = Args::try_parse_from(["laige-bench", "--quik"]).expect_err("unknown option");
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
        let text = e.render().to_string();
        assert!(text.contains("--quik"), "{text}");
        assert!(text.contains("--help"), "{text}");
        assert!(text.lines().count() < 8, "{text}");
        let e = Args::try_parse_from(["laige-bench", "--out"]).expect_err("missing value");
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue);
    }

    #[test]
    fn help_and_version_are_answers_not_runs() {
        for (flag, kind) in [
            ("--help", clap::error::ErrorKind::DisplayHelp),
            ("--version", clap::error::ErrorKind::DisplayVersion),
        ] {
            let e = Args::try_parse_from(["laige-bench", flag]).expect_err(flag);
            assert_eq!(e.kind(), kind, "{flag}");
        }
    }
}
