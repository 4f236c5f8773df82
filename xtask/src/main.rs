//! `cargo xtask`: the project's tasks as plain Rust (matklad's cargo-xtask).
//!
//! ```text
//! cargo xtask test        every test: the workspace suite, the heavy optimized
//!                         tests (exhaustive math, stress), the loom models, lint
//! cargo xtask ci          fmt --check, clippy -D warnings, then `test`
//! cargo xtask bench [--quick] [FILTER...]
//!                         the benchmarks in release, checked against budgets.json
//! cargo xtask detcheck [--quick] [--bless] [--builds A,B]
//!                         the detcheck scenario under a matrix of builds, both
//!                         backends, against the committed known answers
//! cargo xtask lint [--list-allowed]
//!                         crate-edge check (laige-render never depends on laige-sim)
//!                         and the determinism lint over sim code
//! cargo xtask desync-diff A B
//!                         compare two peers' snapshot dumps of a desynced tick
//!                         down to the component and the entity
//! ```
//!
//! `ci` runs every step and reports every failure before exiting
//! (`--keep-going` semantics, as Bevy's `tools/ci` does).

#![allow(clippy::print_stdout, reason = "xtask is a command-line tool")]
#![allow(clippy::print_stderr, reason = "xtask is a command-line tool")]

mod desync_diff;
mod detcheck;
mod detlint;
mod edges;
mod lint;
mod run;
mod tidy;

use std::process::ExitCode;

use anyhow::bail;

const USAGE: &str = "usage: cargo xtask <test|ci|bench|detcheck|lint|desync-diff> [args]
  test                   run every test (the README's test command)
  ci                     fmt --check + clippy -D warnings + test
  bench [--quick] [F..]  benchmarks in release against budgets.json
  detcheck [--quick] [--bless] [--builds A,B]
                         same scenario, matrix of builds, both backends, known answers
  lint [--list-allowed]  crate-edge check + determinism lint (--rules lists the rules)
  desync-diff A B        compare two snapshot dumps of a desynced tick";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => run::test(),
        Some("ci") => run::ci(),
        Some("bench") => run::bench(&args[1..]),
        Some("lint") => lint::run(&args[1..]),
        Some("detcheck") => detcheck::run(&args[1..]),
        Some("desync-diff") => desync_diff::run(&args[1..]),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(anyhow::anyhow!("unknown task `{other}`\n{USAGE}")),
        None => {
            let r: anyhow::Result<()> = Err(anyhow::anyhow!("no task given"));
            eprintln!("{USAGE}");
            r
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Fails with the list of failed steps, if any.
fn finish(failed: &[String]) -> anyhow::Result<()> {
    if failed.is_empty() {
        println!("xtask: all steps passed");
        Ok(())
    } else {
        bail!("{} step(s) failed: {}", failed.len(), failed.join(", "))
    }
}
