//! `laige-detcheck`: runs the detcheck scenario and prints its state
//! hashes (the format is `laige_detcheck::report`). Built and run by
//! `cargo xtask detcheck` under each build of its matrix.
//!
//! ```text
//! laige-detcheck [--quick | --ticks N] [--backend ID|all] [--perturb [TICK]] [--no-replay]
//! ```
//!
//! `--perturb` is the negative control: one entity's velocity is nudged
//! by 2^-16 at the middle tick (or TICK), so every hash from the next
//! checkpoint on must differ from the known answers.

#![allow(
    clippy::print_stdout,
    reason = "a command-line tool: stdout is its output"
)]
#![allow(
    clippy::print_stderr,
    reason = "a command-line tool: usage errors go to stderr"
)]

use std::hint::black_box;
use std::process::ExitCode;

use laige_core::MathBackend;
use laige_detcheck::report::{self, BuildInfo};
use laige_detcheck::scenario::{self, ScenarioConfig};

const USAGE: &str = "usage: laige-detcheck [--quick | --ticks N] [--backend ID|all] [--perturb [TICK]] [--no-replay]";

/// Whether integer overflow panics in this build (the `overflow-checks`
/// profile setting has no stable `cfg`): add one to `i32::MAX` behind
/// `black_box` under `catch_unwind`, with the panic message silenced.
fn overflow_checks() -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let panicked =
        std::panic::catch_unwind(|| black_box(black_box(i32::MAX) + black_box(1))).is_err();
    std::panic::set_hook(hook);
    panicked
}

struct Args {
    config: ScenarioConfig,
    mode: &'static str,
    backends: Vec<MathBackend>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut config = ScenarioConfig::full();
    let mut mode = "full";
    let mut backends = MathBackend::ALL.to_vec();
    let mut perturb = false;
    let mut perturb_tick = None;
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| {
            args.get(i + 1)
                .ok_or_else(|| format!("{} needs a value", args[i]))
        };
        match args[i].as_str() {
            "--quick" => {
                config = ScenarioConfig {
                    ticks: ScenarioConfig::quick().ticks,
                    checkpoint_every: ScenarioConfig::quick().checkpoint_every,
                    ..config
                };
                mode = "quick";
            }
            "--ticks" => {
                config.ticks = value(i)?.parse().map_err(|e| format!("--ticks: {e}"))?;
                mode = "custom";
                i += 1;
            }
            "--backend" => {
                let v = value(i)?;
                backends = if v == "all" {
                    MathBackend::ALL.to_vec()
                } else {
                    vec![v.parse::<MathBackend>().map_err(|e| e.to_string())?]
                };
                i += 1;
            }
            "--perturb" => {
                perturb = true;
                if let Some(t) = args.get(i + 1).and_then(|v| v.parse::<u64>().ok()) {
                    perturb_tick = Some(t);
                    i += 1;
                }
            }
            "--no-replay" => config.verify_replay = false,
            other => return Err(format!("unknown argument {other}")),
        }
        i += 1;
    }
    if perturb {
        config.perturb_at = Some(perturb_tick.unwrap_or_else(|| config.control_tick()));
    }
    config.validate().map_err(|e| e.to_string())?;
    Ok(Args {
        config,
        mode,
        backends,
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let args = match parse(&args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("laige-detcheck: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    print!("{}", report::header(&BuildInfo::current(overflow_checks())));
    for backend in args.backends {
        match scenario::run(backend, &args.config) {
            Ok(run) => print!(
                "{}",
                report::run_lines(&run, args.mode, args.config.perturb_at)
            ),
            Err(e) => {
                eprintln!("laige-detcheck: {backend}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
