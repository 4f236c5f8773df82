//! `cargo xtask detcheck`: build the detcheck scenario (crates/laige-detcheck)
//! under a matrix of builds and targets, run it on both math backends, and
//! compare every state hash with the other builds and with the known
//! answers committed in `crates/laige-detcheck/known_answers.toml`.
//!
//! ```text
//! cargo xtask detcheck [--quick] [--bless] [--builds NAME,NAME] [--host-only]
//!                       [--targets TRIPLE,TRIPLE]
//! ```
//!
//! * `--quick`: 10 000 ticks instead of 100 000 (its own known answers).
//! * `--bless`: rewrite the known answers of the mode from this run (every
//!   build of a target must agree with every other and every replay
//!   verify) and, in a full run of the whole matrix, the supported-pairs
//!   table; print the diff — a change that alters results updates the
//!   files, visibly.
//! * `--builds`: a subset of the host builds (`debug,release,…`).
//! * `--host-only`: no cross targets (and no pairs-table check).
//! * `--targets`: a subset of the targets (the host's triple for its
//!   builds; no pairs-table check).
//!
//! Beside the 7 host (x86_64) builds, the release build runs on the cross
//! targets of [`matrix::TARGETS`] — aarch64 and big-endian s390x under QEMU
//! user mode, i686 (SSE2) and i586 (x87) natively, x86_64-pc-windows-gnu
//! under Wine, wasm32-wasip1 under
//! Node's WASI, wasm32-unknown-unknown in headless Chromium's V8 — the
//! emulated ones on the short scenario (the first 20 000 ticks, same
//! checkpoints), and each of them but the browser also runs the laige-core
//! math test suite through cargo's target runner, built at the release
//! opt-level with debug assertions and overflow checks
//! ([`matrix::MATH_SUITE_PROFILE`]; the test tools among its dependencies
//! at opt-level 0, [`matrix::math_suite_config`]). Equal runs on any two
//! targets must also have recorded byte-identical replays.
//!
//! Every build also runs the second scene, the physics one
//! (`laige-detcheck --scene physics`: laige-physics under the same script,
//! 3 000 ticks), judged against its own known answers (mode `physics`: one
//! fixed-point answer for every target, pinned float per platform) and
//! shown in its own two columns of the supported-pairs table; the negative
//! control nudges it too. The emulated targets (aarch64, s390x,
//! wasm32-wasip1) run its first 1 000 ticks (`physics-short`, judged
//! against the prefix of the answers; the whole scene costs minutes per
//! backend under QEMU), or all of it with `--physics-everywhere`.
//!
//! A negative control runs too: the release binary with `--perturb` (one
//! entity nudged by 2^-16 at the middle tick), on the host, on aarch64 and
//! in the browser,
//! must be reported as a mismatch from the first checkpoint after the
//! nudge, and its replay must diverge there — a detcheck that cannot fail
//! fails. A full run of the whole matrix renders the supported-pairs table
//! (`crates/laige-sim/src/determinism_pairs.md`) from its results and fails
//! where the committed table says otherwise. Exits non-zero on any
//! mismatch, missing known answer, unapplied build flag, missed control,
//! failed math test or stale table. Prints a progress line as each build
//! and run finishes.

mod crossing;
mod known;
mod matrix;
mod output;
mod pairs;
mod schedule;
mod verdict;

#[cfg(test)]
mod tests;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::run::root;
use known::{Answer, Known, platform_key, with_short};
pub(crate) use matrix::runner;
use matrix::{Build, MATRIX, PHYSICS_SHORT_TICKS, SHORT_TICKS, TARGETS, Variant};
use output::{Output, RunLine};
use verdict::{Row, Verdict, first_diff, judge, judge_control, table};

const BACKENDS: [&str; 2] = ["fixed_point_16_16", "float_pinned_32"];
/// Must equal `laige_detcheck::scenario::SCENARIO_VERSION`.
const SCENARIO_VERSION: u32 = 1;

/// `cargo xtask detcheck`'s options.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// 10 000 ticks instead of 100 000 (its own known answers).
    #[arg(long)]
    pub quick: bool,
    /// Rewrite the known answers of the mode from this run.
    #[arg(long)]
    pub bless: bool,
    /// A subset of the host builds, comma-separated (e.g. `debug,release`).
    #[arg(long, value_delimiter = ',', value_parser = build_named)]
    pub builds: Option<Vec<Build>>,
    /// No cross targets (and no pairs-table check).
    #[arg(long)]
    pub host_only: bool,
    /// A subset of the targets, comma-separated (e.g.
    /// `x86_64-pc-windows-gnu`; the host's triple for its builds).
    #[arg(long, value_delimiter = ',', value_parser = target_named)]
    pub targets: Option<Vec<&'static str>>,
    /// Run the whole physics scene on the emulated targets too (aarch64,
    /// s390x, wasm32-wasip1: minutes per backend under QEMU); by default
    /// they run its first 1 000 ticks, judged against the prefix of the
    /// committed answers (which a run with this flag wrote).
    #[arg(long)]
    pub physics_everywhere: bool,
}

/// A target of the matrix by its triple.
fn target_named(name: &str) -> Result<&'static str, String> {
    TARGETS
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.name)
        .ok_or_else(|| {
            let names: Vec<_> = TARGETS.iter().map(|t| t.name).collect();
            format!("unknown target `{name}`; accepted: {}", names.join(", "))
        })
}

/// A host build of the matrix by its name.
fn build_named(name: &str) -> Result<Build, String> {
    MATRIX
        .iter()
        .find(|b| b.name == name)
        .copied()
        .ok_or_else(|| {
            let names: Vec<_> = MATRIX.iter().map(|b| b.name).collect();
            format!("unknown build `{name}`; accepted: {}", names.join(", "))
        })
}

fn known_path() -> std::path::PathBuf {
    root().join("crates/laige-detcheck/known_answers.toml")
}

/// The known-answer mode a variant's runs are judged in: `quick`, `full`,
/// or `short` (the full scenario's first [`SHORT_TICKS`] ticks).
fn mode_key(quick: bool, v: &Variant) -> &'static str {
    match (quick, v.short()) {
        (true, _) => "quick",
        (false, true) => "short",
        (false, false) => "full",
    }
}

fn mode_args(mode: &str) -> Vec<String> {
    match mode {
        "quick" => vec!["--quick".to_owned()],
        "short" => vec!["--ticks".to_owned(), SHORT_TICKS.to_string()],
        _ => Vec::new(),
    }
}

/// The known-answer mode of the physics scene (`--scene physics`): one
/// length on every target, in quick and full detchecks alike.
const PHYSICS: &str = "physics";

/// The physics scene cut at [`PHYSICS_SHORT_TICKS`] (the `short` targets'
/// runs, judged against the prefix of the physics answers).
const PHYSICS_SHORT: &str = "physics-short";

/// The arguments of the physics scene's runs (cut on a `short` target).
fn physics_args(short: bool) -> Vec<String> {
    let mut a = vec!["--scene".to_owned(), PHYSICS.to_owned()];
    if short {
        a.extend(["--ticks".to_owned(), PHYSICS_SHORT_TICKS.to_string()]);
    }
    a
}

/// Whether `run` is one of the physics scene.
fn is_physics(run: &RunLine) -> bool {
    physics_mode(&run.mode)
}

/// Whether a known-answer mode is one of the physics scene's.
fn physics_mode(mode: &str) -> bool {
    mode == PHYSICS || mode == PHYSICS_SHORT
}

/// The mode `run` (of variant `v`) is judged in: the physics scene's own,
/// else the variant's.
fn mode_of(quick: bool, v: &Variant, run: &RunLine) -> &'static str {
    match run.mode.as_str() {
        PHYSICS => PHYSICS,
        PHYSICS_SHORT => PHYSICS_SHORT,
        _ => mode_key(quick, v),
    }
}

/// What a run job does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scenario,
    Control,
    /// The laige-core math test suite of a cross target.
    MathSuite,
}

/// One process to run.
struct Job {
    variant: usize,
    args: Vec<String>,
    kind: Kind,
}

struct Done {
    variant: usize,
    label: String,
    kind: Kind,
    secs: f64,
    /// The scenario's output, or the tests passed and ignored.
    result: anyhow::Result<Output>,
    tests: anyhow::Result<Suite>,
}

/// Progress: `detcheck [k/N, elapsed] what`.
struct Progress {
    done: AtomicUsize,
    total: usize,
    started: Instant,
}

impl Progress {
    fn step(&self, what: &str) {
        let k = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        println!(
            "detcheck [{k}/{}, {:.0} s] {what}",
            self.total,
            self.started.elapsed().as_secs_f64()
        );
    }
}

fn output_of(c: &mut Command, what: &str) -> anyhow::Result<String> {
    let o = c.output().with_context(|| format!("starting {what}"))?;
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    if !o.status.success() {
        let stderr = String::from_utf8_lossy(&o.stderr);
        let tail: Vec<&str> = stderr
            .lines()
            .chain(stdout.lines())
            .rev()
            .take(12)
            .collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!("{what} exited with {}: {}", o.status, tail.join("\n"));
    }
    Ok(stdout)
}

/// Sums libtest's `test result: ok. N passed; 0 failed; K ignored` lines.
fn tests_passed(stdout: &str) -> (u64, u64) {
    let mut passed = 0;
    let mut ignored = 0;
    for line in stdout.lines().filter(|l| l.starts_with("test result:")) {
        for part in line.split([';', '.']) {
            let mut w = part.split_whitespace();
            if let (Some(n), Some(what)) = (w.next(), w.next())
                && let Ok(n) = n.parse::<u64>()
            {
                match what {
                    "passed" => passed += n,
                    "ignored" => ignored += n,
                    _ => {}
                }
            }
        }
    }
    (passed, ignored)
}

/// A math test suite's outcome: tests passed, ignored, and the failures
/// tolerated on a target whose float unit is not binary32 (tests of the
/// pinned-float backend, whose promise is per target there).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suite {
    pub passed: u64,
    pub ignored: u64,
    pub tolerated: Vec<String>,
    /// Each of [`REQUIRED_EVERYWHERE`] ran and passed.
    pub required_ok: [bool; 2],
}

/// The names of libtest's `test NAME ... FAILED` lines.
fn failed_tests(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
        .map(str::to_owned)
        .collect()
}

/// The math tests that must pass on every target: the committed
/// known-answer hashes of the math op sequence and of the game-ops sequence
/// on the fixed-point backend.
const REQUIRED_EVERYWHERE: [&str; 2] = [
    "fixed_point_sequence_matches_the_committed_hash",
    "game_ops_fixed_sequence_matches_the_committed_hash",
];

fn required_everywhere(name: &str) -> bool {
    REQUIRED_EVERYWHERE.iter().any(|r| name.contains(r))
}

/// Runs a math suite command. Every failure fails it, except — where
/// `tolerate` (a target whose floats are not IEEE binary32) — failures of
/// tests outside [`REQUIRED_EVERYWHERE`], which are recorded.
fn run_suite(c: &mut Command, what: &str, tolerate: bool, sum: &mut Suite) -> anyhow::Result<()> {
    let o = c.output().with_context(|| format!("starting {what}"))?;
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let failed = failed_tests(&stdout);
    let (passed, ignored) = tests_passed(&stdout);
    sum.passed += passed;
    sum.ignored += ignored;
    for (k, name) in REQUIRED_EVERYWHERE.iter().enumerate() {
        sum.required_ok[k] |= stdout.lines().any(|l| l == format!("test {name} ... ok"));
    }
    let fatal: Vec<&str> = failed
        .iter()
        .map(String::as_str)
        .filter(|n| !tolerate || required_everywhere(n))
        .collect();
    if !o.status.success() && (failed.is_empty() || !fatal.is_empty()) {
        let stderr = String::from_utf8_lossy(&o.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "{what} exited with {}; failed: {}; {}",
            o.status,
            if fatal.is_empty() {
                "-".to_owned()
            } else {
                fatal.join(", ")
            },
            tail.join("\n")
        );
    }
    sum.tolerated.extend(failed);
    Ok(())
}

fn run_job(variants: &[Variant], job: &Job) -> Done {
    let start = Instant::now();
    let v = &variants[job.variant];
    let (result, tests) = if job.kind == Kind::MathSuite {
        let triple = v.target.triple.unwrap_or_default();
        let mut sum = Suite::default();
        let mut outcome = Ok(());
        for mut c in matrix::math_suite(&[triple], false) {
            outcome = run_suite(
                &mut c,
                &format!("cargo test --release -p laige-core --target {triple}"),
                !v.target.pinned_exact,
                &mut sum,
            );
            if outcome.is_err() {
                break;
            }
        }
        let outcome = outcome.and_then(|()| {
            let missing: Vec<&str> = REQUIRED_EVERYWHERE
                .iter()
                .zip(sum.required_ok)
                .filter(|(_, ok)| !ok)
                .map(|(name, _)| *name)
                .collect();
            if missing.is_empty() {
                Ok(sum)
            } else {
                Err(anyhow::anyhow!(
                    "the suite did not pass {} (the fixed-point known answers of the math op sequences)",
                    missing.join(", ")
                ))
            }
        });
        (Err(anyhow::anyhow!("not a scenario run")), outcome)
    } else {
        let result = v
            .run_command()
            .and_then(|mut c| output_of(c.args(&job.args), &v.binary().display().to_string()))
            .and_then(|out| output::parse(&out));
        (result, Err(anyhow::anyhow!("not a test run")))
    };
    Done {
        variant: job.variant,
        label: job.args.join(" "),
        kind: job.kind,
        secs: start.elapsed().as_secs_f64(),
        result,
        tests,
    }
}

/// `cargo xtask detcheck`: the matrix, judged against the known answers.
pub fn run(o: &Args) -> anyhow::Result<()> {
    let mode = if o.quick { "quick" } else { "full" };
    let started = Instant::now();
    let known_text = std::fs::read_to_string(known_path()).unwrap_or_default();
    let known = with_short(&known::parse(&known_text)?, SHORT_TICKS);
    let mut variants = matrix::variants(o.builds.as_deref(), !o.host_only);
    if let Some(names) = &o.targets {
        variants.retain(|v| names.contains(&v.target.name));
    }
    if variants.is_empty() {
        bail!("detcheck: no build of the matrix is left by --builds, --host-only and --targets");
    }
    let whole = o.builds.is_none() && !o.host_only && o.targets.is_none();
    // One math suite per cross target, on its first variant.
    let suites: Vec<usize> = variants
        .iter()
        .enumerate()
        .filter(|(i, v)| {
            v.target.math_suite
                && v.target.triple.is_some()
                && variants[..*i]
                    .iter()
                    .all(|w| w.target.name != v.target.name)
        })
        .map(|(i, _)| i)
        .collect();
    let controls: Vec<usize> = TARGETS
        .iter()
        .filter(|t| t.control)
        .filter_map(|t| control_variant(&variants, t))
        .collect();
    // Each variant and control runs the workload and the physics scene.
    let scenes = 2;
    let total = variants.len()
        + suites.len()
        + variants.len() * scenes * BACKENDS.len()
        + controls.len() * scenes
        + suites.len();
    let progress = Progress {
        done: AtomicUsize::new(0),
        total,
        started,
    };

    // 1. Build, and 2. run: each variant × backend as its own process, the
    //    controls, the math suites, each as soon as its build is done.
    let jobs_of = |i: usize| {
        let v = &variants[i];
        let mut jobs = Vec::new();
        // The emulated (`short`) targets run the physics scene's first
        // PHYSICS_SHORT_TICKS (the whole of it costs minutes per backend
        // under QEMU) unless `--physics-everywhere`.
        let short_physics = v.short() && !o.physics_everywhere;
        for scene_args in [mode_args(mode_key(o.quick, v)), physics_args(short_physics)] {
            for backend in BACKENDS {
                let mut a = scene_args.clone();
                a.extend(["--backend".to_owned(), backend.to_owned()]);
                jobs.push(Job {
                    variant: i,
                    args: a,
                    kind: Kind::Scenario,
                });
            }
            if controls.contains(&i) {
                let mut a = scene_args;
                a.extend(["--backend", "all", "--perturb"].map(str::to_owned));
                jobs.push(Job {
                    variant: i,
                    args: a,
                    kind: Kind::Control,
                });
            }
        }
        jobs
    };
    let schedule::Outcome {
        built,
        suite_built,
        mut done,
        build_secs,
        first_run_secs,
        workers,
    } = schedule::build_and_run(&variants, &suites, jobs_of, &progress)?;
    let run_secs = started.elapsed().as_secs_f64() - first_run_secs.unwrap_or(0.0);
    done.sort_by_key(|d| (d.variant, d.kind as u8, d.label.clone()));

    // 3. Judge.
    let ran = Ran {
        variants: &variants,
        built: &built,
        done: &done,
        quick: o.quick,
    };
    let judged = judge_all(&ran, &known);
    let mut rows = judged.rows;
    // 2b. The replay-crossing rows: the host's recordings played by every
    //     other target's build.
    let (crossing_rows, crossing_secs) = crossing::rows(
        &variants,
        &built,
        &known,
        &root().join("target/detcheck/crossing"),
    )?;
    rows.extend(crossing_rows);
    for (k, &i) in suites.iter().enumerate() {
        let v = &variants[i];
        let verdict = match (
            &suite_built[k],
            done.iter()
                .find(|d| d.variant == i && d.kind == Kind::MathSuite),
        ) {
            (Err(e), _) => Verdict::Failed(e.clone()),
            (Ok(_), Some(d)) => match &d.tests {
                Ok(suite) => Verdict::TestsPassed {
                    passed: suite.passed,
                    ignored: suite.ignored,
                    tolerated: suite.tolerated.clone(),
                },
                Err(e) => Verdict::Failed(format!("{e:#}")),
            },
            (Ok(_), None) => Verdict::Failed("the math test suite did not run".to_owned()),
        };
        rows.push(Row {
            target: v.target.name.to_owned(),
            build: "math test suite".to_owned(),
            flags: if v.target.name == "wasm32-wasip1" {
                format!("{}, +simd128", matrix::MATH_SUITE_FLAGS)
            } else {
                matrix::MATH_SUITE_FLAGS.to_owned()
            },
            backend: "-".to_owned(),
            final_hash: None,
            verdict,
        });
    }
    println!("\n{}", table(&rows));
    for (i, v) in variants.iter().enumerate() {
        let runs: Vec<String> = done
            .iter()
            .filter(|d| d.variant == i)
            .map(|d| {
                let physics = if d.label.contains(PHYSICS) {
                    " (physics)"
                } else {
                    ""
                };
                let what = match d.kind {
                    Kind::MathSuite => "math suite".to_owned(),
                    Kind::Control => format!("control{physics}"),
                    Kind::Scenario => {
                        format!("{}{physics}", d.label.rsplit(' ').next().unwrap_or(""))
                    }
                };
                format!("{what} {:.1} s", d.secs)
            })
            .collect();
        let suite = suites
            .iter()
            .position(|&s| s == i)
            .and_then(|k| suite_built[k].as_ref().ok())
            .map_or_else(String::new, |s| format!(", math suite build {s:.1} s"));
        println!(
            "  {:<40} build {}{suite}; runs: {}",
            v.label(),
            built[i]
                .as_ref()
                .map_or_else(|e| e.clone(), |s| format!("{s:.1} s")),
            runs.join(", ")
        );
    }
    let features = |name: &str| {
        done.iter()
            .find(|d| variants[d.variant].label() == name)
            .and_then(|d| d.result.as_ref().ok())
            .map_or_else(|| "-".to_owned(), |o| o.build.features.clone())
    };
    println!(
        "  target features: default build {}; native build {}",
        features("release"),
        features("native")
    );
    println!(
        "detcheck ({mode}, {} ticks; short targets {}): builds {build_secs:.1} s; runs from +{:.1} s for {run_secs:.1} s (one beside each build, then {workers} at a time); total {:.1} s",
        if o.quick { 10_000 } else { 100_000 },
        if o.quick { 10_000 } else { SHORT_TICKS },
        first_run_secs.unwrap_or(0.0),
        started.elapsed().as_secs_f64()
    );
    println!(
        "  replay crossing (x86_64's recordings played by the other targets): {crossing_secs:.1} s"
    );

    // 4. The supported-pairs table (full runs of the whole matrix).
    let with_pairs = !o.quick && whole;
    let pairs_path = pairs::path();
    let committed_pairs = std::fs::read_to_string(&pairs_path).unwrap_or_default();
    if !with_pairs {
        println!(
            "detcheck: the supported-pairs table is checked by a full run of the whole matrix only"
        );
    }

    // 5. Bless or verdict.
    if o.bless {
        let blessing = bless(&ran, &rows, &judged.clean, &known_text, with_pairs)?;
        if !rewrite(&known_path(), &known_text, &blessing.known)? {
            println!("detcheck --bless: known answers unchanged");
        }
        if let Some(fresh) = blessing.pairs {
            rewrite(&pairs_path, &committed_pairs, &fresh)?;
        }
        return Ok(());
    }
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.verdict.passed()).collect();
    let fresh_pairs = with_pairs.then(|| pairs::render(&judged.pairs));
    // What the committed known answers imply must be the committed table
    // too (the test checks the same; here a stale file is named at once).
    let implied_is_stale =
        with_pairs && pairs::render(&pairs::from_known(&known)) != committed_pairs;
    if implied_is_stale {
        println!(
            "detcheck: the committed known answers imply another supported-pairs table than {}",
            pairs_path.display()
        );
    }
    let stale_pairs = implied_is_stale
        || fresh_pairs
            .as_ref()
            .is_some_and(|fresh| *fresh != committed_pairs);
    if stale_pairs && let Some(fresh) = &fresh_pairs {
        println!(
            "detcheck: this run disagrees with the committed supported-pairs table ({}):",
            pairs_path.display()
        );
        for line in known::diff(&committed_pairs, fresh) {
            println!("  {line}");
        }
    }
    if !failed.is_empty() || stale_pairs {
        bail!(
            "detcheck: {} of {} row(s) failed (see the table){}",
            failed.len(),
            rows.len(),
            if stale_pairs {
                "; the supported-pairs table is stale (run --bless after checking the diff)"
            } else {
                ""
            }
        );
    }
    println!("detcheck: every target, build and backend agrees with the known answers");
    Ok(())
}

/// Writes `fresh` over the file at `path` (whose text is `committed`) and
/// prints the changed lines, if they differ; whether it wrote.
fn rewrite(path: &std::path::Path, committed: &str, fresh: &str) -> anyhow::Result<bool> {
    let diff = known::diff(committed, fresh);
    if diff.is_empty() {
        return Ok(false);
    }
    std::fs::write(path, fresh).with_context(|| format!("writing {}", path.display()))?;
    println!("detcheck --bless: rewrote {}:", path.display());
    for line in diff {
        println!("  {line}");
    }
    Ok(true)
}

/// What `--bless` writes: the known-answer file's text and, for a full
/// run of the whole matrix, the supported-pairs table's.
#[derive(Debug)]
struct Blessing {
    known: String,
    pairs: Option<String>,
}

/// `--bless`: the known answers of this run and the table they render.
///
/// Refuses where a row failed for another reason than its known answer
/// (`rows`, judged against the committed answers `known_text`; a missed
/// negative control is judged again, below, as its baseline may be that
/// answer). The new
/// answers are the reference runs (`clean`) over the committed ones; a
/// `short` answer equal to the prefix of the `full` answer being written
/// is derived, not stored. Then every run is judged again against the new
/// answers, as the next detcheck will judge it: each row must pass (the
/// builds of a target agree with each other, replays verify), and the
/// table (`with_pairs`) is rendered from that judgement, which must be
/// the table the new answers imply.
fn bless(
    ran: &Ran<'_>,
    rows: &[Row],
    clean: &[(&'static str, &RunLine)],
    known_text: &str,
    with_pairs: bool,
) -> anyhow::Result<Blessing> {
    // A control is judged against the known answer up to its nudge: where
    // that answer changes, it is judged again against the new one below.
    if let Some(bad) = rows.iter().find(|r| {
        !r.verdict.passed()
            && !r.verdict.blessable()
            && !matches!(r.verdict, Verdict::ControlMissed(_))
    }) {
        bail!(
            "not blessing: {} {} / {}: {} (only a known-answer change can be blessed)",
            bad.target,
            bad.build,
            bad.backend,
            bad.verdict.text()
        );
    }
    let mut next = known::parse(known_text)?;
    // The full (and quick) answers first: a short answer is compared with
    // the full answer that is written.
    let cut_from = |mode: &str| match mode {
        "short" => Some(("full", SHORT_TICKS)),
        PHYSICS_SHORT => Some((PHYSICS, PHYSICS_SHORT_TICKS)),
        _ => None,
    };
    let (short, long): (Vec<_>, Vec<_>) =
        clean.iter().partition(|(mode, _)| cut_from(mode).is_some());
    for &(mode, run) in long.into_iter().chain(short) {
        let key = platform_key(&run.backend, &run.platform);
        let derived = cut_from(mode).is_some_and(|(from, ticks)| {
            next.get(from)
                .and_then(|m| m.get(&run.backend))
                .and_then(|p| p.get(&key))
                .is_some_and(|a| {
                    first_diff(&run.checkpoints, &known::prefix(a, ticks).checkpoints).is_none()
                })
        });
        let answers = next
            .entry(mode.to_owned())
            .or_default()
            .entry(run.backend.clone())
            .or_default();
        if derived {
            answers.remove(&key);
        } else {
            answers.insert(
                key,
                Answer {
                    ticks: run.ticks,
                    checkpoints: run.checkpoints.clone(),
                },
            );
        }
    }
    let blessed = with_short(&next, SHORT_TICKS);
    let again = judge_all(ran, &blessed);
    if let Some(bad) = again.rows.iter().find(|r| !r.verdict.passed()) {
        bail!(
            "not blessing: {} {} / {}: {} (judged against the answers this run would bless: the builds of a target agree, the controls are detected)",
            bad.target,
            bad.build,
            bad.backend,
            bad.verdict.text()
        );
    }
    let pairs = with_pairs.then(|| pairs::render(&again.pairs));
    if let Some(fresh) = &pairs
        && pairs::render(&pairs::from_known(&blessed)) != *fresh
    {
        bail!(
            "the blessed known answers imply another supported-pairs table than this run (a detcheck bug)"
        );
    }
    Ok(Blessing {
        known: known::render(&next, SCENARIO_VERSION),
        pairs,
    })
}

/// What [`judge_all`] judges: the variants, their builds and the finished
/// runs of one detcheck.
struct Ran<'a> {
    variants: &'a [Variant],
    built: &'a [schedule::BuildTime],
    done: &'a [Done],
    quick: bool,
}

/// What [`judge_all`] finds.
struct Judged<'a> {
    rows: Vec<Row>,
    /// The reference variant's clean run per target and backend, with the
    /// mode it belongs to (for `--bless`).
    clean: Vec<(&'static str, &'a RunLine)>,
    /// Per target and backend, for the supported-pairs table.
    pairs: Vec<pairs::Pair>,
}

/// The rows, the reference runs and the pairs.
fn judge_all<'a>(ran: &Ran<'a>, known: &Known) -> Judged<'a> {
    let Ran {
        variants,
        built,
        done,
        quick,
    } = *ran;
    let mut rows = Vec::new();
    let mut clean = Vec::new();
    let mut pair_list = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        if let Err(e) = &built[i] {
            rows.push(Row {
                target: v.target.name.to_owned(),
                build: v.build.name.to_owned(),
                flags: v.build.flags.to_owned(),
                backend: "-".to_owned(),
                final_hash: None,
                verdict: Verdict::Failed(e.clone()),
            });
        }
    }
    // Every clean run: (variant, its build line, the run).
    let runs: Vec<(usize, &output::BuildLine, &RunLine)> = done
        .iter()
        .filter(|d| d.kind == Kind::Scenario)
        .filter_map(|d| d.result.as_ref().ok().map(|o| (d.variant, o)))
        .flat_map(|(i, o)| o.runs.iter().map(move |r| (i, &o.build, r)))
        .collect();
    for t in TARGETS {
        // The workload's runs, then the physics scene's.
        for (physics, backend) in [false, true]
            .into_iter()
            .flat_map(|p| BACKENDS.map(|b| (p, b)))
        {
            let these: Vec<_> = runs
                .iter()
                .filter(|(i, _, r)| {
                    variants[*i].target.name == t.name
                        && r.backend == backend
                        && is_physics(r) == physics
                })
                .collect();
            // The reference is the target's longest run (its first
            // optimized build where the unoptimized ones run short).
            let Some(&&(ri, _, reference)) = these
                .iter()
                .find(|(i, _, _)| !variants[*i].short())
                .or_else(|| these.first())
            else {
                continue;
            };
            let mode = mode_of(quick, &variants[ri], reference);
            clean.push((mode, reference));
            let mut worst: Option<Verdict> = None;
            for &&(i, line, run) in &these {
                let v = &variants[i];
                let verdict = judge(
                    run,
                    line,
                    v.build.expect,
                    Some((variants[ri].build.name, reference)),
                    known,
                    mode_of(quick, v, run),
                );
                if !verdict.passed() && worst.is_none() {
                    worst = Some(verdict.clone());
                }
                rows.push(Row {
                    target: t.name.to_owned(),
                    build: if physics {
                        format!("{} (physics)", v.build.name)
                    } else {
                        v.build.name.to_owned()
                    },
                    flags: v.build.flags.to_owned(),
                    backend: backend.to_owned(),
                    final_hash: Some(run.final_hash),
                    verdict,
                });
            }
            let builds: Vec<&str> = these
                .iter()
                .map(|(i, _, _)| variants[*i].build.name)
                .collect();
            let outcome = match worst {
                Some(v) => pairs::Outcome::Fails(v.text()),
                None => pairs::compare(backend, &reference.checkpoints, known, mode),
            };
            pair_list.push(pairs::Pair {
                target: t,
                physics,
                builds: builds.join(", "),
                ticks: reference.ticks,
                backend,
                outcome,
            });
        }
    }
    // Equal runs of any two builds or targets recorded the same replay
    // bytes and encoded the same snapshot bytes.
    for (k, (i, _, a)) in runs.iter().enumerate() {
        for (j, _, b) in &runs[k + 1..] {
            if i == j || a.backend != b.backend || a.checkpoints != b.checkpoints {
                continue;
            }
            let differs = [
                ("replay", a.recording, b.recording),
                ("snapshot", a.snapshots, b.snapshots),
            ];
            for (what, x, y) in differs {
                if x != y {
                    rows.push(Row {
                        target: variants[*j].target.name.to_owned(),
                        build: variants[*j].build.name.to_owned(),
                        flags: variants[*j].build.flags.to_owned(),
                        backend: b.backend.clone(),
                        final_hash: Some(b.final_hash),
                        verdict: Verdict::Failed(format!(
                            "the same run as on {} encoded different {what} bytes ({x:#018x} vs {y:#018x})",
                            variants[*i].label(),
                        )),
                    });
                }
            }
        }
    }
    for d in done {
        let v = &variants[d.variant];
        match (&d.result, d.kind) {
            (_, Kind::MathSuite) | (Ok(_), Kind::Scenario) => {}
            (Err(e), _) => rows.push(Row {
                target: v.target.name.to_owned(),
                build: if d.kind == Kind::Control {
                    format!("control ({})", v.build.name)
                } else {
                    v.build.name.to_owned()
                },
                flags: v.build.flags.to_owned(),
                backend: "-".to_owned(),
                final_hash: None,
                verdict: Verdict::Failed(format!("{e:#}")),
            }),
            (Ok(o), Kind::Control) => {
                for run in &o.runs {
                    let mode = mode_of(quick, v, run);
                    let baseline = clean
                        .iter()
                        .find(|(m, r)| {
                            r.backend == run.backend
                                && r.platform == run.platform
                                && physics_mode(m) == physics_mode(mode)
                        })
                        .map(|(_, r)| *r);
                    rows.push(Row {
                        target: v.target.name.to_owned(),
                        build: format!(
                            "control ({}{}, nudged at {})",
                            v.build.name,
                            if physics_mode(mode) { ", physics" } else { "" },
                            run.perturb
                                .map_or_else(|| "-".to_owned(), |t| t.to_string())
                        ),
                        flags: v.build.flags.to_owned(),
                        backend: run.backend.clone(),
                        final_hash: Some(run.final_hash),
                        verdict: judge_control(run, baseline, known, mode),
                    });
                }
            }
        }
    }
    Judged {
        rows,
        clean,
        pairs: pair_list,
    }
}

/// The variant of `variants` that runs target `t`'s negative control: its
/// release build, else its first build in the run (the browser row ships
/// SIMD128 and builds the plain one only when asked).
fn control_variant(variants: &[matrix::Variant], t: &matrix::Target) -> Option<usize> {
    let on = |name: &str| {
        variants
            .iter()
            .position(|v| v.target.name == t.name && v.build.name == name)
    };
    on("release").or_else(|| variants.iter().position(|v| v.target.name == t.name))
}
