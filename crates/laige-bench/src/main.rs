//! `laige-bench`: measures laige's figures beside reference implementations
//! and checks them against `budgets.json`.
//!
//! Run it through `cargo xtask bench [--quick] [FILTER...]` (which builds it
//! in release). Usage of the binary itself:
//!
//! ```text
//! laige-bench [--quick] [--out FILE] [--budgets FILE] [--no-fail] [FILTER...]
//! ```
//!
//! Each area (`math`, `diag`, ...) records named metrics; the report is
//! printed as a table and written as JSON; every budget is then checked.
//! Exit code 1 when a budget fails (unless `--no-fail`), 2 on bad usage.

#![allow(clippy::print_stdout, reason = "a benchmark binary prints its report")]
#![allow(clippy::print_stderr, reason = "progress lines go to stderr")]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use laige_bench::AREAS;
use laige_bench::harness::{self, Bench, Budgets, Verdict};

struct Args {
    quick: bool,
    out: PathBuf,
    budgets: PathBuf,
    no_fail: bool,
    filter: Vec<String>,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        quick: false,
        out: PathBuf::from("target/bench-report.json"),
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
            s if s.starts_with("--") => {
                bail!("unknown option {s}; accepted: --quick --out FILE --budgets FILE --no-fail")
            }
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

    let start = Instant::now();
    let mut bench = Bench::new(args.quick, args.filter.clone());
    for (name, area) in AREAS {
        let selected = args.filter.is_empty()
            || args
                .filter
                .iter()
                .any(|f| name.contains(f.as_str()) || f.starts_with(name));
        if !selected {
            continue;
        }
        eprintln!("== {name}");
        bench.set_area(name);
        area(&mut bench);
    }
    let report = bench.into_report(start.elapsed());
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(&args.out, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("writing {}", args.out.display()))?;

    println!(
        "\nlaige bench on {} ({} cpus){}; {:.1} s",
        report.machine.cpu_model,
        report.machine.cpus,
        if report.quick { ", quick" } else { "" },
        report.elapsed_s
    );
    println!("{:<60} {:>14} {:>22}  verdict", "metric", "value", "budget");
    let rows = harness::check(&report, &budgets);
    let mut failed = 0;
    for (name, value, bound, verdict, why) in &rows {
        let v = value.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
        let verdict = match verdict {
            Verdict::Pass => "ok",
            Verdict::Fail => {
                failed += 1;
                eprintln!("over budget: {name}: {why}");
                "OVER BUDGET"
            }
            Verdict::Skipped => "not measured",
        };
        println!("{name:<60} {v:>14} {bound:>22}  {verdict}");
    }
    println!("report: {}", args.out.display());
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
