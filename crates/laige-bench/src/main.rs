//! `laige-bench`: measures laige's figures beside reference implementations
//! and checks them against `budgets.json`.
//!
//! Run it through `cargo xtask bench [--quick] [FILTER...]` (which builds it
//! in release). Usage of the binary itself:
//!
//! ```text
//! laige-bench [--quick] [--out FILE] [--svg FILE] [--baseline FILE]
//!             [--budgets FILE] [--no-fail] [FILTER...]
//! ```
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
//! Exit code 1 when a budget fails (unless `--no-fail`), 2 on bad usage.

#![allow(clippy::print_stdout, reason = "a benchmark binary prints its report")]
#![allow(clippy::print_stderr, reason = "progress lines go to stderr")]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use laige_bench::AREAS;
use laige_bench::harness::{self, Bench, Budgets, Report, Verdict};
use laige_bench::report;

struct Args {
    quick: bool,
    out: PathBuf,
    svg: Option<PathBuf>,
    baseline: Option<PathBuf>,
    budgets: PathBuf,
    no_fail: bool,
    filter: Vec<String>,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        quick: false,
        out: PathBuf::from("target/bench-report.json"),
        svg: None,
        baseline: None,
        budgets: PathBuf::from("budgets.json"),
        no_fail: false,
        filter: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => args.quick = true,
            "--no-fail" => args.no_fail = true,
            "--out" => args.out = it.next().context("--out needs a FILE")?.into(),
            "--budgets" => args.budgets = it.next().context("--budgets needs a FILE")?.into(),
            "--svg" => args.svg = Some(it.next().context("--svg needs a FILE")?.into()),
            "--baseline" => {
                args.baseline = Some(it.next().context("--baseline needs a FILE")?.into());
            }
            s if s.starts_with("--") => bail!(
                "unknown option {s}; accepted: --quick --out FILE --svg FILE --baseline FILE \
                 --budgets FILE --no-fail"
            ),
            _ => args.filter.push(a),
        }
    }
    Ok(args)
}

fn run() -> anyhow::Result<bool> {
    let args = parse_args()?;
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
        "\nlaige bench on {} ({} cpus){}; {:.1} s",
        report.machine.cpu_model,
        report.machine.cpus,
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
