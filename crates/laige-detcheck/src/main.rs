//! `laige-detcheck`: runs the detcheck scenario and prints its state
//! hashes (the format is `laige_detcheck::report`). Built and run by
//! `cargo xtask detcheck` under each build of its matrix.
//!
//! ```text
//! laige-detcheck [--quick | --ticks N] [--backend ID|all] [--perturb[=TICK]] [--no-replay]
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

const USAGE: &str = "usage: laige-detcheck [--quick | --ticks N] [--backend ID|all] [--perturb[=TICK]] [--no-replay]

  --quick           the quick scenario (10 000 ticks, its own checkpoints)
  --ticks N         the full scenario cut at N ticks
  --backend ID|all  fixed_point_16_16, float_pinned_32, or all (default)
  --perturb[=TICK]  nudge one velocity by 2^-16 at TICK (default: the middle tick)
  --no-replay       skip the replay verification
  --version         the version
  -h, --help        this text";

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

/// What a command line asks for: a run, or a line of text (help, version).
enum Parsed {
    Run(Args),
    Print(String),
}

/// Parses the command line (lexopt: `--ticks 5`, `--ticks=5`; it has no
/// dependencies, and this binary is cross-built for every target of the
/// matrix).
fn parse(mut p: lexopt::Parser) -> Result<Parsed, String> {
    use lexopt::prelude::*;
    let mut config = ScenarioConfig::full();
    let mut mode = "full";
    let mut backends = MathBackend::ALL.to_vec();
    let mut perturb = false;
    let mut perturb_tick = None;
    let err = |e: lexopt::Error| e.to_string();
    while let Some(arg) = p.next().map_err(err)? {
        match arg {
            Long("quick") => {
                config = ScenarioConfig {
                    ticks: ScenarioConfig::quick().ticks,
                    checkpoint_every: ScenarioConfig::quick().checkpoint_every,
                    ..config
                };
                mode = "quick";
            }
            Long("ticks") => {
                config.ticks = p.value().map_err(err)?.parse().map_err(err)?;
                mode = "custom";
            }
            Long("backend") => {
                let v = p.value().map_err(err)?.string().map_err(err)?;
                backends = if v == "all" {
                    MathBackend::ALL.to_vec()
                } else {
                    vec![v.parse::<MathBackend>().map_err(|e| e.to_string())?]
                };
            }
            Long("perturb") => {
                perturb = true;
                if let Some(v) = p.optional_value() {
                    perturb_tick = Some(v.parse().map_err(err)?);
                }
            }
            Long("no-replay") => config.verify_replay = false,
            Long("version") => {
                return Ok(Parsed::Print(format!(
                    "laige-detcheck {}",
                    env!("CARGO_PKG_VERSION")
                )));
            }
            Short('h') | Long("help") => return Ok(Parsed::Print(USAGE.to_owned())),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if perturb {
        config.perturb_at = Some(perturb_tick.unwrap_or_else(|| config.control_tick()));
    }
    config.validate().map_err(|e| e.to_string())?;
    Ok(Parsed::Run(Args {
        config,
        mode,
        backends,
    }))
}

fn main() -> ExitCode {
    let args = match parse(lexopt::Parser::from_env()) {
        Ok(Parsed::Run(a)) => a,
        Ok(Parsed::Print(text)) => {
            println!("{text}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("laige-detcheck: {e} (try --help)");
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_args(args: &[&str]) -> Result<Parsed, String> {
        parse(lexopt::Parser::from_args(args.iter().copied()))
    }

    #[test]
    fn values_take_both_spellings_and_perturb_an_optional_tick() {
        for args in [&["--ticks", "5000"][..], &["--ticks=5000"]] {
            let Ok(Parsed::Run(a)) = parse_args(args) else {
                panic!("{args:?} did not parse");
            };
            assert_eq!((a.config.ticks, a.mode), (5000, "custom"));
        }
        let Ok(Parsed::Run(a)) = parse_args(&["--ticks=5000", "--perturb=77"]) else {
            panic!("perturb=77 did not parse");
        };
        assert_eq!(a.config.perturb_at, Some(77));
        let Ok(Parsed::Run(a)) = parse_args(&["--backend", "fixed_point_16_16", "--perturb"])
        else {
            panic!("a bare --perturb did not parse");
        };
        assert_eq!(a.backends, vec![MathBackend::FixedPoint16_16]);
        assert_eq!(a.config.perturb_at, Some(a.config.control_tick()));
    }

    #[test]
    fn bad_input_is_one_short_line_and_help_is_text() {
        let e = parse_args(&["--frobnicate"])
            .err()
            .expect("an unknown option fails");
        assert!(e.contains("--frobnicate"), "{e}");
        let e = parse_args(&["--ticks", "many"])
            .err()
            .expect("a bad number fails");
        assert!(e.contains("many"), "{e}");
        let e = parse_args(&["--backend", "f64"])
            .err()
            .expect("a bad backend fails");
        assert!(e.contains("f64"), "{e}");
        assert!(matches!(parse_args(&["--help"]), Ok(Parsed::Print(t)) if t.contains("--perturb")));
        assert!(
            matches!(parse_args(&["--version"]), Ok(Parsed::Print(t)) if t.starts_with("laige-detcheck "))
        );
    }
}
