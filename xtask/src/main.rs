//! `cargo xtask`: the project's tasks as plain Rust (matklad's cargo-xtask).
//!
//! `cargo xtask --help` lists the tasks and `cargo xtask TASK --help` each
//! one's options (clap): `test`, `ci`, `bench`, `detcheck`, `lint`,
//! `package`, `portability`, `desync-diff`, `replay-diff`, `net-cross`,
//! `web`.
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
mod net_cross;
mod package;
mod platforms;
mod portability;
mod replay_diff;
mod run;
mod tidy;
mod web;
mod wine_window;

use std::process::ExitCode;

use anyhow::bail;
use clap::{Parser, Subcommand};

/// The project's tasks (run as `cargo xtask TASK`).
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", version)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Every test: the workspace suite, the heavy optimized tests, the loom
    /// models, lint, detcheck (the README's test command).
    Test,
    /// fmt --check, clippy -D warnings, then `test`.
    Ci,
    /// The benchmarks in release, checked against budgets.json; the
    /// arguments go to laige-bench (`cargo xtask bench -- --help` lists them).
    Bench {
        /// Build the bench with the `trace` feature (the spans compiled in, no
        /// subscriber): compare with `--baseline` against a default build's
        /// report to see what the spans cost.
        #[arg(long)]
        trace: bool,
        /// laige-bench's arguments: `--quick`, `--baseline FILE` (compare with
        /// a previous target/bench-report.json), area filters, ...
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The detcheck scenario under the matrix of builds and targets, both
    /// backends, against the committed known answers.
    Detcheck(detcheck::Args),
    /// The repository rules: crate edges, the determinism lint, the code map.
    Lint(lint::Args),
    /// cargo package of the publishable crates, their tests and the README
    /// example built outside the workspace on the packages, docs as docs.rs
    /// builds them.
    Package {
        /// Package uncommitted changes too (local use; CI packages a clean clone).
        #[arg(long)]
        allow_dirty: bool,
    },
    /// The engine without default features; core and sim for
    /// wasm32-unknown-unknown.
    Portability,
    /// Compare two peers' snapshot dumps of a desynced tick down to the
    /// component, the entity and the field.
    DesyncDiff {
        /// The first dump.
        a: String,
        /// The second dump.
        b: String,
    },
    /// Where two recordings of one run part: their hashes bisected, the
    /// window re-simulated on each side, the first differing tick named
    /// down to the entity, the component and the field with both values.
    ReplayDiff(replay_diff::Args),
    /// An x86_64 demo peer and an aarch64 one under QEMU play 1,260 ticks
    /// over loopback and must agree on every confirmed tick's state hash
    /// (also a step of `test`).
    NetCross,
    /// The demo as a static site under target/web (the page, the wasm
    /// module, wasm-bindgen's glue; wasm-opt when binaryen is installed);
    /// `--serve` serves it on 127.0.0.1.
    Web(web::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // A usage error: clap's one-line reason and its "For more
            // information, try '--help'" hint, not the whole help.
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help, --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    let result = match &cli.task {
        Task::Test => run::test(),
        Task::Ci => run::ci(),
        Task::Bench { trace, args } => run::bench(*trace, args),
        Task::Detcheck(args) => detcheck::run(args),
        Task::Lint(args) => lint::run(args),
        Task::Package { allow_dirty } => package::run_package(*allow_dirty),
        Task::Portability => portability::run(),
        Task::DesyncDiff { a, b } => desync_diff::run(a, b),
        Task::ReplayDiff(args) => replay_diff::run(args),
        Task::NetCross => net_cross::run(),
        Task::Web(args) => web::run(args),
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

#[cfg(test)]
mod cli_tests {
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn help_on_a_task_prints_help_and_runs_nothing() {
        for task in [
            "test",
            "ci",
            "bench",
            "detcheck",
            "lint",
            "package",
            "portability",
            "replay-diff",
        ] {
            let e = Cli::try_parse_from(["xtask", task, "--help"]).expect_err(task);
            assert_eq!(e.kind(), ErrorKind::DisplayHelp, "{task}");
        }
    }

    #[test]
    fn options_parse_and_bench_passes_its_arguments_through() {
        let cli = Cli::try_parse_from(["xtask", "detcheck", "--quick", "--builds=debug,release"])
            .expect("detcheck options");
        let Task::Detcheck(a) = cli.task else {
            panic!("not detcheck");
        };
        let names: Vec<&str> = a.builds.unwrap().iter().map(|b| b.name).collect();
        assert!(a.quick && names == ["debug", "release"]);
        let cli = Cli::try_parse_from(["xtask", "bench", "--quick", "sprites"]).expect("bench");
        let Task::Bench { trace, args } = cli.task else {
            panic!("not bench");
        };
        assert!(!trace);
        assert_eq!(args, ["--quick", "sprites"]);
        let cli = Cli::try_parse_from(["xtask", "bench", "--trace", "--baseline=b.json", "sim"])
            .expect("bench --trace");
        let Task::Bench { trace, args } = cli.task else {
            panic!("not bench");
        };
        assert!(trace);
        assert_eq!(args, ["--baseline=b.json", "sim"]);
        let e = Cli::try_parse_from(["xtask", "detcheck", "--builds", "nope"]).expect_err("nope");
        assert!(e.to_string().contains("accepted: debug"), "{e}");
    }
}
