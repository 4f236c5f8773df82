//! The command line of the scenario binary, as a function of its
//! arguments: parsing and the run, with the output returned as text. One
//! home for both front ends — the native binary prints it, the browser
//! build (`wasm32-unknown-unknown`, run in Chromium by
//! `xtask/web/detcheck-run.mjs`) hands it to the page.
//!
//! ```
//! let out = laige_detcheck::cli::run(["--help"], false);
//! assert_eq!(out.code, 0);
//! assert!(out.stdout.contains("--perturb"));
//! let out = laige_detcheck::cli::run(["--ticks", "many"], false);
//! assert_eq!(out.code, 2);
//! assert!(out.stderr.contains("many"));
//! ```

use laige_core::MathBackend;

use crate::report::{self, BuildInfo};
use crate::scenario::{self, ScenarioConfig, Scene};

/// The usage text (`--help`).
pub const USAGE: &str = "usage: laige-detcheck [--scene physics] [--quick | --ticks N] [--backend ID|all] [--perturb[=TICK]] [--no-replay]
       laige-detcheck [scene options] --backend ID --write-replay FILE
       laige-detcheck [scene options] --verify-replay FILE [--dump-at TICK]

  --scene ID           workload (default) or physics (3 000 ticks, its own checkpoints)
  --quick              the quick scenario (10 000 ticks, its own checkpoints)
  --ticks N            the full scenario cut at N ticks
  --backend ID|all     fixed_point_16_16, float_pinned_32, or all (default)
  --perturb[=TICK]     nudge one velocity by 2^-16 at TICK (default: the middle tick)
  --no-replay          skip the replay verification
  --write-replay FILE  also write the run's recording to FILE (one backend)
  --verify-replay FILE play FILE, recorded on any target with the same scene options,
                       on its backend here, checking every recorded hash
  --dump-at TICK       with --verify-replay: print the state after TICK, field by field
  --version            the version
  -h, --help           this text";

struct Args {
    config: ScenarioConfig,
    mode: &'static str,
    backends: Vec<MathBackend>,
    write_replay: Option<std::path::PathBuf>,
    verify_replay: Option<std::path::PathBuf>,
    dump_at: Option<u64>,
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
    let mut scene = Scene::Workload;
    let (mut write_replay, mut verify_replay, mut dump_at) = (None, None, None);
    let mut backend_given = false;
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
            Long("write-replay") => write_replay = Some(p.value().map_err(err)?.into()),
            Long("verify-replay") => verify_replay = Some(p.value().map_err(err)?.into()),
            Long("dump-at") => dump_at = Some(p.value().map_err(err)?.parse().map_err(err)?),
            Long("backend") => {
                backend_given = true;
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
            Long("scene") => {
                let v = p.value().map_err(err)?.string().map_err(err)?;
                scene = match v.as_str() {
                    "workload" => Scene::Workload,
                    "physics" => Scene::Physics,
                    other => return Err(format!("unknown scene `{other}` (workload, physics)")),
                };
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
    if scene == Scene::Physics {
        // The physics scene has one length (`--quick` runs it whole);
        // `--ticks` cuts it.
        let whole = ScenarioConfig::physics();
        config = ScenarioConfig {
            scene,
            ticks: if mode == "custom" {
                config.ticks
            } else {
                whole.ticks
            },
            checkpoint_every: whole.checkpoint_every,
            ..config
        };
        // A cut physics run is judged against the prefix of the physics
        // answers (the emulated targets' runs).
        mode = if mode == "custom" {
            "physics-short"
        } else {
            "physics"
        };
    }
    if perturb {
        config.perturb_at = Some(perturb_tick.unwrap_or_else(|| config.control_tick()));
    }
    config.validate().map_err(|e| e.to_string())?;
    if write_replay.is_some() && (backends.len() != 1 || !config.verify_replay) {
        return Err("--write-replay writes one recording: name one --backend, and keep the replay (no --no-replay)".to_owned());
    }
    if verify_replay.is_some() && (backend_given || perturb || write_replay.is_some()) {
        return Err("--verify-replay plays the recording on its own backend: drop --backend, --perturb and --write-replay".to_owned());
    }
    if dump_at.is_some() && verify_replay.is_none() {
        return Err(
            "--dump-at dumps the state of a played recording: it needs --verify-replay".to_owned(),
        );
    }
    Ok(Parsed::Run(Args {
        config,
        mode,
        backends,
        write_replay,
        verify_replay,
        dump_at,
    }))
}

/// What a run printed and its exit code: 0 on success, 1 when a scenario
/// run failed, 2 for a bad command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code.
    pub code: u8,
    /// The report (`crate::report`'s lines), or the help text.
    pub stdout: String,
    /// The error line of a failed run or a bad command line.
    pub stderr: String,
}

/// Runs the command line `args` (without the program name).
/// `overflow_checks` is the caller's probe of this build (there is no
/// stable `cfg` for the setting): it goes into the header line.
pub fn run<I>(args: I, overflow_checks: bool) -> Outcome
where
    I: IntoIterator,
    I::Item: Into<std::ffi::OsString>,
{
    run_with(args, overflow_checks, |path| std::fs::read(path))
}

/// [`run`], reading the file of `--verify-replay` through `read` (a page
/// has no file system: the browser front end hands over the bytes it
/// fetched).
pub fn run_with<I>(
    args: I,
    overflow_checks: bool,
    read: impl Fn(&std::path::Path) -> std::io::Result<Vec<u8>>,
) -> Outcome
where
    I: IntoIterator,
    I::Item: Into<std::ffi::OsString>,
{
    let mut out = Outcome::default();
    let args = match parse(lexopt::Parser::from_args(args)) {
        Ok(Parsed::Run(a)) => a,
        Ok(Parsed::Print(text)) => {
            out.stdout = format!("{text}\n");
            return out;
        }
        Err(e) => {
            out.stderr = format!("laige-detcheck: {e} (try --help)\n");
            out.code = 2;
            return out;
        }
    };
    out.stdout
        .push_str(&report::header(&BuildInfo::current(overflow_checks)));
    if let Some(path) = &args.verify_replay {
        let played = read(path)
            .map_err(|e| format!("reading {}: {e}", path.display()))
            .and_then(|bytes| {
                crate::crossing::verify(&bytes, &args.config, args.dump_at)
                    .map_err(|e| e.to_string())
            });
        match played {
            Ok(c) => out.stdout.push_str(&report::crossing_lines(&c)),
            Err(e) => {
                out.stderr = format!("laige-detcheck: --verify-replay {}: {e}\n", path.display());
                out.code = 1;
            }
        }
        return out;
    }
    for backend in args.backends {
        match scenario::run(backend, &args.config) {
            Ok(run) => {
                out.stdout
                    .push_str(&report::run_lines(&run, args.mode, args.config.perturb_at));
                if let Some(path) = &args.write_replay
                    && let Err(e) = std::fs::write(path, &run.recorded)
                {
                    out.stderr = format!("laige-detcheck: writing {}: {e}\n", path.display());
                    out.code = 1;
                    return out;
                }
            }
            Err(e) => {
                out.stderr = format!("laige-detcheck: {backend}: {e}\n");
                out.code = 1;
                return out;
            }
        }
    }
    out
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
        for args in [&["--scene", "physics"][..], &["--quick", "--scene=physics"]] {
            let Ok(Parsed::Run(a)) = parse_args(args) else {
                panic!("{args:?} did not parse");
            };
            assert_eq!(a.config, ScenarioConfig::physics(), "{args:?}");
            assert_eq!(a.mode, "physics");
        }
        let e = parse_args(&["--scene", "snake"])
            .err()
            .expect("an unknown scene fails");
        assert!(e.contains("snake"), "{e}");
    }

    #[test]
    fn a_recording_crosses_through_files_and_the_flags_that_cannot_mix_are_refused() {
        let dir = std::env::temp_dir().join(format!("laige-detcheck-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("fx.lrp");
        let f = file.to_str().unwrap();
        let scene = ["--ticks", "120"];
        let out = run(
            [
                &scene[..],
                &["--backend", "fixed_point_16_16", "--write-replay", f],
            ]
            .concat(),
            false,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        let out = run(
            [&scene[..], &["--verify-replay", f, "--dump-at", "100"]].concat(),
            false,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout
                .contains("crossing backend=fixed_point_16_16 platform="),
            "{}",
            out.stdout
        );
        assert!(out.stdout.contains(" verdict=verified:"), "{}", out.stdout);
        assert!(
            out.stdout.contains("dump tick=100 lines="),
            "{}",
            out.stdout
        );
        // Another scenario config than the recording's (the quick one's
        // checkpoints) is refused.
        let out = run(["--quick", "--verify-replay", f], false);
        assert_eq!(out.code, 1);
        assert!(out.stderr.contains("--verify-replay"), "{}", out.stderr);
        let out = run(
            ["--ticks", "120", "--verify-replay", f, "--dump-at", "500"],
            false,
        );
        assert_eq!(out.code, 1);
        assert!(out.stderr.contains("dump_at"), "{}", out.stderr);
        for bad in [
            &["--write-replay", f][..],
            &["--verify-replay", f, "--backend", "float_pinned_32"],
            &["--dump-at", "5"],
        ] {
            let e = parse_args(bad).err().expect("refused");
            assert!(e.starts_with("--"), "{e}");
        }
        // A page's run reads the bytes it was handed under the same name.
        let bytes = std::fs::read(&file).unwrap();
        let handed = |p: &std::path::Path| {
            if p == std::path::Path::new("handed.lrp") {
                Ok(bytes.clone())
            } else {
                Err(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "not handed",
                ))
            }
        };
        let out = run_with(
            [&scene[..], &["--verify-replay", "handed.lrp"]].concat(),
            false,
            handed,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stdout.contains(" verdict=verified:"), "{}", out.stdout);
        let out = run_with(["--verify-replay", "other.lrp"], false, handed);
        assert_eq!(out.code, 1);
        assert!(
            out.stderr.contains("other.lrp: not handed"),
            "{}",
            out.stderr
        );
        let _ = std::fs::remove_dir_all(&dir);
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
