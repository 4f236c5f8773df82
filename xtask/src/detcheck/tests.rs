use super::known::{self, Answer, Known, with_short};
use super::matrix::{self, SHORT_TICKS, TARGETS};
use super::output::{self, BuildLine, ReplayField, RunLine};
use super::schedule::suite_profile_applied;
use super::verdict::{Expect, Row, Verdict, first_diff, judge, judge_control, table};
use super::{failed_tests, known_path, pairs, tests_passed};
use crate::run::root;

const SAMPLE: &str = "detcheck-output 1
build debug_assertions=true overflow_checks=true arch=x86_64 os=linux features=sse2
run backend=fixed_point_16_16 platform=x86_64-linux mode=quick ticks=20 entities=9 spawned=3 despawned=2 final=0x0000000000000003 digest=0x0000000000000000 recording=0x0000000000000009 snapshots=0x000000000000000a replay=verified:3 perturb=none
checkpoint backend=fixed_point_16_16 tick=0 hash=0x0000000000000001
checkpoint backend=fixed_point_16_16 tick=10 hash=0x0000000000000002
checkpoint backend=fixed_point_16_16 tick=20 hash=0x0000000000000003
";

fn run(backend: &str, checkpoints: &[(u64, u64)]) -> RunLine {
    RunLine {
        backend: backend.to_owned(),
        platform: "x86_64-linux".to_owned(),
        mode: "quick".to_owned(),
        ticks: checkpoints.last().map_or(0, |c| c.0),
        final_hash: checkpoints.last().map_or(0, |c| c.1),
        digest: 0,
        recording: 9,
        snapshots: 10,
        replay: ReplayField::Verified(checkpoints.len() as u64),
        perturb: None,
        checkpoints: checkpoints.to_vec(),
    }
}

const CLEAN: &[(u64, u64)] = &[(0, 1), (10, 2), (20, 3)];

fn debug_line() -> BuildLine {
    BuildLine {
        debug_assertions: true,
        overflow_checks: true,
        features: "sse2".to_owned(),
    }
}

const DEBUG: Expect = Expect {
    debug_assertions: true,
    overflow_checks: true,
};

fn known_with(backend: &str, platform: &str, checkpoints: &[(u64, u64)]) -> Known {
    let mut k = Known::new();
    insert_answer(&mut k, "quick", backend, platform, 20, checkpoints.to_vec());
    k
}

#[test]
fn output_parses_every_line() {
    let o = output::parse(SAMPLE).unwrap();
    assert!(o.build.debug_assertions && o.build.overflow_checks);
    assert_eq!(o.runs.len(), 1);
    assert_eq!(o.runs[0], run("fixed_point_16_16", CLEAN));
    assert!(output::parse("hello").is_err());
    assert!(output::parse("detcheck-output 1\n").is_err(), "no run");
    let bad_hash = SAMPLE.replace("hash=0x0000000000000002", "hash=zz");
    assert!(output::parse(&bad_hash).is_err());
    let diverged = SAMPLE.replace(
        "replay=verified:3 perturb=none",
        "replay=diverged:10 perturb=5",
    );
    let o = output::parse(&diverged).unwrap();
    assert_eq!(o.runs[0].replay, ReplayField::Diverged(10));
    assert_eq!(o.runs[0].perturb, Some(5));
}

#[test]
fn first_diff_names_the_first_differing_checkpoint() {
    assert_eq!(first_diff(CLEAN, CLEAN), None);
    assert_eq!(first_diff(CLEAN, &[(0, 1), (10, 9), (20, 3)]), Some(10));
    assert_eq!(
        first_diff(CLEAN, &[(0, 1), (10, 2)]),
        Some(20),
        "a shorter run"
    );
    assert_eq!(first_diff(&[(0, 1)], CLEAN), Some(10));
    assert_eq!(first_diff(CLEAN, &[(0, 7)]), Some(0));
}

#[test]
fn a_run_equal_to_the_known_answer_and_the_reference_passes() {
    let known = known_with("fixed_point_16_16", "any", CLEAN);
    let r = run("fixed_point_16_16", CLEAN);
    let v = judge(
        &r,
        &debug_line(),
        DEBUG,
        Some(("debug", &r)),
        &known,
        "quick",
    );
    assert_eq!(v, Verdict::Ok);
    assert!(v.passed());
}

#[test]
fn a_changed_hash_is_a_mismatch_at_its_tick() {
    let known = known_with("fixed_point_16_16", "any", CLEAN);
    let changed = run("fixed_point_16_16", &[(0, 1), (10, 2), (20, 4)]);
    let v = judge(&changed, &debug_line(), DEBUG, None, &known, "quick");
    assert_eq!(
        v,
        Verdict::Mismatch {
            against: "known answer".to_owned(),
            tick: 20
        }
    );
    assert!(!v.passed() && v.blessable());
    // Equal to the known answer but not to the reference build: the
    // reference is wrong (or the answer is stale); not blessable.
    let other = run("fixed_point_16_16", &[(0, 1), (10, 5), (20, 4)]);
    let ok = run("fixed_point_16_16", CLEAN);
    let v = judge(
        &ok,
        &debug_line(),
        DEBUG,
        Some(("debug", &other)),
        &known,
        "quick",
    );
    assert_eq!(
        v,
        Verdict::Mismatch {
            against: "debug build".to_owned(),
            tick: 10
        }
    );
    assert!(!v.blessable());
}

#[test]
fn missing_answers_fail_for_fixed_point_and_note_for_pinned_float() {
    let empty = Known::new();
    let fixed = run("fixed_point_16_16", CLEAN);
    let v = judge(
        &fixed,
        &debug_line(),
        DEBUG,
        Some(("debug", &fixed)),
        &empty,
        "quick",
    );
    assert_eq!(v, Verdict::MissingKnownAnswer);
    assert!(!v.passed() && v.blessable());
    let float = run("float_pinned_32", CLEAN);
    let other_platform = known_with("float_pinned_32", "aarch64-macos", CLEAN);
    let v = judge(
        &float,
        &debug_line(),
        DEBUG,
        Some(("debug", &float)),
        &other_platform,
        "quick",
    );
    assert_eq!(v, Verdict::OkNoKnownAnswer("x86_64-linux".to_owned()));
    assert!(v.passed());
    // The pinned-float answer is looked up by platform.
    let here = known_with("float_pinned_32", "x86_64-linux", &[(0, 9)]);
    let v = judge(&float, &debug_line(), DEBUG, None, &here, "quick");
    assert!(matches!(v, Verdict::Mismatch { tick: 0, .. }), "{v:?}");
}

#[test]
fn unapplied_flags_and_diverged_replays_fail() {
    let known = known_with("fixed_point_16_16", "any", CLEAN);
    let r = run("fixed_point_16_16", CLEAN);
    let mut line = debug_line();
    line.overflow_checks = false;
    let v = judge(&r, &line, DEBUG, None, &known, "quick");
    assert!(matches!(v, Verdict::FlagsNotApplied(_)), "{v:?}");
    let mut diverged = r.clone();
    diverged.replay = ReplayField::Diverged(10);
    let v = judge(&diverged, &debug_line(), DEBUG, None, &known, "quick");
    assert_eq!(v, Verdict::ReplayDiverged(10));
    assert!(!v.passed() && !v.blessable());
}

#[test]
fn the_negative_control_must_be_detected_at_the_right_tick() {
    let known = known_with("fixed_point_16_16", "any", CLEAN);
    let mut control = run("fixed_point_16_16", &[(0, 1), (10, 7), (20, 8)]);
    control.perturb = Some(5);
    control.replay = ReplayField::Diverged(10);
    let v = judge_control(&control, None, &known, "quick");
    assert_eq!(v, Verdict::ControlDetected { tick: 10 });
    assert!(v.passed());

    // A detcheck that cannot fail: the perturbed run equals the baseline.
    let mut blind = run("fixed_point_16_16", CLEAN);
    blind.perturb = Some(5);
    let v = judge_control(&blind, None, &known, "quick");
    assert!(matches!(v, Verdict::ControlMissed(_)), "{v:?}");
    assert!(!v.passed());

    // Differences before the nudge mean something else is wrong.
    let mut early = control.clone();
    early.checkpoints[0].1 = 99;
    assert!(matches!(
        judge_control(&early, None, &known, "quick"),
        Verdict::ControlMissed(_)
    ));

    // The replay must diverge at the same tick.
    let mut quiet_replay = control.clone();
    quiet_replay.replay = ReplayField::Verified(3);
    assert!(matches!(
        judge_control(&quiet_replay, None, &known, "quick"),
        Verdict::ControlMissed(_)
    ));

    // Without a known answer, the clean run of the same build is the baseline.
    let clean = run("fixed_point_16_16", CLEAN);
    assert_eq!(
        judge_control(&control, Some(&clean), &Known::new(), "quick"),
        Verdict::ControlDetected { tick: 10 }
    );
    let mut unperturbed = control;
    unperturbed.perturb = None;
    assert!(matches!(
        judge_control(&unperturbed, Some(&clean), &known, "quick"),
        Verdict::ControlMissed(_)
    ));
}

#[test]
fn known_answers_round_trip_through_their_file() {
    let mut k = known_with("fixed_point_16_16", "any", CLEAN);
    k.get_mut("quick")
        .unwrap()
        .entry("float_pinned_32".to_owned())
        .or_default()
        .insert(
            "x86_64-linux".to_owned(),
            Answer {
                ticks: 20,
                checkpoints: vec![(0, 5), (20, 6)],
            },
        );
    let text = known::render(&k, 1);
    assert!(
        text.contains("[quick.float_pinned_32.x86_64-linux]"),
        "{text}"
    );
    assert!(text.contains("\"10 0x0000000000000002\","), "{text}");
    assert_eq!(known::parse(&text).unwrap(), k);
    let broken = text.replace(
        "final = \"0x0000000000000003\"",
        "final = \"0x0000000000000004\"",
    );
    assert!(
        known::parse(&broken).is_err(),
        "final must match the last checkpoint"
    );
}

#[test]
fn the_diff_shows_removed_and_added_lines() {
    let old = "a\nb\nc\n";
    let new = "a\nB\nc\nd\n";
    assert_eq!(known::diff(old, new), vec!["+B", "-b", "+d"]);
    assert!(known::diff(old, old).is_empty());
}

#[test]
fn the_table_has_one_line_per_row() {
    let rows = vec![
        Row {
            target: "x86_64-unknown-linux-gnu".to_owned(),
            build: "debug".to_owned(),
            flags: "opt 0".to_owned(),
            backend: "fixed_point_16_16".to_owned(),
            final_hash: Some(3),
            verdict: Verdict::Ok,
        },
        Row {
            target: "aarch64-unknown-linux-gnu".to_owned(),
            build: "native".to_owned(),
            flags: "opt 3, target-cpu=native".to_owned(),
            backend: "float_pinned_32".to_owned(),
            final_hash: None,
            verdict: Verdict::Failed("cargo build failed".to_owned()),
        },
    ];
    let t = table(&rows);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].starts_with("target "));
    assert!(lines[3].starts_with("aarch64-unknown-linux-gnu "));
    assert!(lines[2].contains("0x0000000000000003") && lines[2].contains("ok:"));
    assert!(lines[3].contains("FAILED: cargo build failed"));
}

#[test]
fn the_committed_pairs_table_is_the_one_the_known_answers_imply() {
    let text = std::fs::read_to_string(known_path()).unwrap();
    let known = with_short(&known::parse(&text).unwrap(), SHORT_TICKS);
    let implied = pairs::render(&pairs::from_known(&known));
    let committed = std::fs::read_to_string(pairs::path()).unwrap();
    assert!(
        committed == implied,
        "{} is not the table the committed known answers imply; run `cargo xtask detcheck --bless` (it renders it from a fresh matrix). Diff (committed -> implied):\n{}",
        pairs::path().display(),
        known::diff(&committed, &implied).join("\n")
    );
    // Every target of the matrix has a row, and fixed point is promised
    // on each of them.
    for t in TARGETS {
        let row = committed
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", t.name)))
            .unwrap_or_else(|| panic!("no row for {}", t.name));
        assert!(row.contains("✓ promised: = the known answer"), "{row}");
    }
}

fn short_known() -> Known {
    let mut k = Known::new();
    for (platform, cps) in [
        ("any", vec![(0, 1), (10, 2), (20, 3), (30, 4)]),
        ("x86_64-linux", vec![(0, 5), (10, 6), (20, 7), (30, 8)]),
    ] {
        let backend = if platform == "any" {
            "fixed_point_16_16"
        } else {
            "float_pinned_32"
        };
        k.entry("full".to_owned())
            .or_default()
            .entry(backend.to_owned())
            .or_default()
            .insert(
                platform.to_owned(),
                Answer {
                    ticks: 30,
                    checkpoints: cps,
                },
            );
    }
    k
}

#[test]
fn short_answers_are_the_full_answers_prefix_unless_stored() {
    let mut k = short_known();
    k.entry("short".to_owned())
        .or_default()
        .entry("float_pinned_32".to_owned())
        .or_default()
        .insert(
            "i586-linux".to_owned(),
            Answer {
                ticks: 10,
                checkpoints: vec![(0, 5), (10, 66)],
            },
        );
    let s = with_short(&k, 10);
    let fixed = &s["short"]["fixed_point_16_16"]["any"];
    assert_eq!(fixed.ticks, 10);
    assert_eq!(fixed.checkpoints, vec![(0, 1), (10, 2)]);
    assert_eq!(
        s["short"]["float_pinned_32"]["i586-linux"].checkpoints,
        vec![(0, 5), (10, 66)],
        "a stored short answer is kept"
    );
    // The pairs: equal to the reference, or different from a checkpoint.
    assert_eq!(
        pairs::compare("float_pinned_32", &[(0, 5), (10, 6)], &s, "short"),
        pairs::Outcome::Agrees
    );
    assert_eq!(
        pairs::compare("float_pinned_32", &[(0, 5), (10, 66)], &s, "short"),
        pairs::Outcome::Differs(10)
    );
    assert_eq!(
        pairs::compare("float_pinned_32", &[(0, 5)], &Known::new(), "short"),
        pairs::Outcome::NotRecorded
    );
}

#[test]
fn the_pairs_table_states_each_outcome() {
    let t = |name: &str| TARGETS.iter().find(|t| t.name == name).unwrap();
    let pair = |target: &str, backend: &'static str, outcome| pairs::Pair {
        target: t(target),
        physics: false,
        builds: "release".to_owned(),
        ticks: 100_000,
        backend,
        outcome,
    };
    let md = pairs::render(&[
        pair(
            "x86_64-unknown-linux-gnu",
            "fixed_point_16_16",
            pairs::Outcome::Agrees,
        ),
        pair(
            "x86_64-unknown-linux-gnu",
            "float_pinned_32",
            pairs::Outcome::Agrees,
        ),
        pair(
            "i586-unknown-linux-gnu",
            "fixed_point_16_16",
            pairs::Outcome::Agrees,
        ),
        pair(
            "i586-unknown-linux-gnu",
            "float_pinned_32",
            pairs::Outcome::Differs(5000),
        ),
        pair(
            "s390x-unknown-linux-gnu",
            "fixed_point_16_16",
            pairs::Outcome::Differs(20),
        ),
        pair(
            "s390x-unknown-linux-gnu",
            "float_pinned_32",
            pairs::Outcome::NotRecorded,
        ),
    ]);
    let row = |name: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap()
            .to_owned()
    };
    assert!(row("x86_64-unknown-linux-gnu").contains("| 100\u{a0}000 |"));
    assert!(
        row("x86_64-unknown-linux-gnu")
            .ends_with("| ✓ promised: = the known answer | ✓ promised: the reference |")
    );
    assert!(
        row("i586-unknown-linux-gnu").contains("differs from x86_64-linux from tick 5\u{a0}000")
    );
    assert!(
        row("s390x-unknown-linux-gnu")
            .contains("✗ BUG: differs from the known answer from tick 20")
    );
    assert!(row("s390x-unknown-linux-gnu").contains("not promised: no answer recorded"));
    assert!(md.ends_with(
        "between any two of `x86_64-unknown-linux-gnu`; `i586-unknown-linux-gnu`, `s390x-unknown-linux-gnu` only with themselves, each.\n"
    ));
}

#[test]
fn libtest_summaries_are_added_up() {
    let out = "running 3 tests\n...\ntest result: ok. 3 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\
               test result: ok. 10 passed; 0 failed; 0 ignored; 0 measured; 5 filtered out; finished in 1.2s\n";
    assert_eq!(tests_passed(out), (13, 2));
    assert_eq!(tests_passed("no summary"), (0, 0));
    let failing =
        "test math::a ... ok\ntest pinned_lerp_endpoints ... FAILED\ntest b ... ignored, heavy\n";
    assert_eq!(failed_tests(failing), vec!["pinned_lerp_endpoints"]);
}

#[test]
fn runners_come_from_the_cargo_config() {
    let qemu = matrix::runner("aarch64-unknown-linux-gnu")
        .unwrap()
        .unwrap();
    assert_eq!(qemu[0], "qemu-aarch64");
    let wasi = matrix::runner("wasm32-wasip1").unwrap().unwrap();
    assert!(
        std::path::Path::new(&wasi[0]).is_file(),
        "the WASI runner resolves to a file in the workspace: {wasi:?}"
    );
    assert_eq!(matrix::runner("i686-unknown-linux-gnu").unwrap(), None);
    // Windows: the Wine runner script, executable (cargo starts it as is).
    let wine = matrix::runner("x86_64-pc-windows-gnu").unwrap().unwrap();
    let meta = std::fs::metadata(&wine[0]).unwrap();
    assert!(meta.is_file(), "{wine:?}");
    assert_ne!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111,
        0,
        "{wine:?} is not executable"
    );
    // Every cross target of the matrix is named in the config (linker or
    // runner): a target missing there would not link or run.
    let config = std::fs::read_to_string(root().join(".cargo/config.toml")).unwrap();
    for t in TARGETS.iter().filter_map(|t| t.triple) {
        assert!(config.contains(&format!("[target.{t}]")), "{t}");
    }
}

#[test]
fn the_math_suites_build_and_run_at_the_release_opt_level_with_checks_libm_included() {
    let s390x = "s390x-unknown-linux-gnu";
    let commands = matrix::math_suite(&[s390x, "wasm32-wasip1"], true)
        .into_iter()
        .chain(matrix::math_suite(&[s390x], false));
    for c in commands {
        let args: Vec<_> = c.get_args().map(|a| a.to_string_lossy()).collect();
        assert!(args.iter().any(|a| a == "--release"), "{args:?}");
        // The other dependencies at opt-level 0, libm kept at 3.
        for w in matrix::math_suite_config().windows(2).step_by(2) {
            assert!(
                args.windows(2).any(|a| a[0] == w[0] && a[1] == w[1]),
                "{w:?} missing from {args:?}"
            );
        }
        assert!(
            args.iter()
                .any(|a| a == r#"profile.release.package."*".opt-level=0"#),
            "{args:?}"
        );
        assert!(
            args.iter()
                .any(|a| a == "profile.release.package.libm.opt-level=3"),
            "{args:?}"
        );
        let envs: Vec<_> = c.get_envs().collect();
        for (k, v) in matrix::MATH_SUITE_PROFILE {
            assert!(
                envs.iter()
                    .any(|(ek, ev)| ek == k && ev.is_some_and(|ev| ev == *v)),
                "{k}={v} missing from {envs:?}"
            );
        }
    }
    // The build checks each test executable's profile as cargo reports it.
    let profile = |opt: &str, da: bool, oc: bool| {
        serde_json::json!({
            "opt_level": opt, "debuginfo": 1, "debug_assertions": da,
            "overflow_checks": oc, "test": true
        })
    };
    assert!(suite_profile_applied(&profile("3", true, true)));
    assert!(!suite_profile_applied(&profile("0", true, true)));
    assert!(!suite_profile_applied(&profile("3", false, true)));
    assert!(!suite_profile_applied(&profile("3", true, false)));
}

/// A synthetic full matrix for `--bless`: every variant of
/// [`matrix::variants`] built, each of its two scenario runs' checkpoints
/// given by `world(target, build, backend)` (every 5 000 ticks up to the
/// target's length), replays verified, flags as promised, and the negative
/// controls.
struct Synthetic {
    variants: Vec<matrix::Variant>,
    built: Vec<super::schedule::BuildTime>,
    done: Vec<super::Done>,
}

/// Checkpoint ticks of a full (100 000) or short (20 000) run.
fn checkpoint_ticks(short: bool) -> Vec<u64> {
    let end = if short {
        SHORT_TICKS
    } else {
        pairs::FULL_TICKS
    };
    [0, 5_000, 10_000, 20_000, 50_000, 100_000]
        .into_iter()
        .filter(|&t| t <= end)
        .collect()
}

/// Checkpoints whose hash is `before`'s up to `from` (excluded) and
/// `after`'s from there: `seed * 1 000 000 + tick`.
fn world_line(short: bool, before: u64, after: u64, from: u64) -> Vec<(u64, u64)> {
    checkpoint_ticks(short)
        .into_iter()
        .map(|t| (t, if t < from { before } else { after } * 1_000_000 + t))
        .collect()
}

/// The negative control of variant `i`: both backends nudged in the
/// middle, their hashes `world`'s up to there and others from the next
/// checkpoint on, where the replay diverges.
fn control(
    i: usize,
    v: &matrix::Variant,
    world: &impl Fn(&matrix::Target, &str, &str) -> Vec<(u64, u64)>,
) -> super::Done {
    let at = if v.short() { 10_000 } else { 50_000 };
    let runs = super::BACKENDS
        .into_iter()
        .map(|backend| {
            let checkpoints: Vec<(u64, u64)> = world(v.target, v.build.name, backend)
                .into_iter()
                .map(|(t, h)| (t, if t > at { h + 1 } else { h }))
                .collect();
            let after = checkpoints.iter().find(|c| c.0 > at).unwrap().0;
            run_line(
                v,
                backend,
                checkpoints,
                ReplayField::Diverged(after),
                Some(at),
            )
        })
        .collect();
    done(
        i,
        v,
        "--backend all --perturb".to_owned(),
        super::Kind::Control,
        runs,
    )
}

/// The run line of `backend` on variant `v`, ending at its last checkpoint
/// (a run records the hash it ends on).
fn run_line(
    v: &matrix::Variant,
    backend: &str,
    checkpoints: Vec<(u64, u64)>,
    replay: ReplayField,
    perturb: Option<u64>,
) -> RunLine {
    let last = *checkpoints.last().unwrap();
    RunLine {
        backend: backend.to_owned(),
        platform: v.target.platform.to_owned(),
        mode: if v.short() { "short" } else { "full" }.to_owned(),
        ticks: last.0,
        final_hash: last.1,
        digest: 0,
        recording: last.1,
        snapshots: last.1,
        replay,
        perturb,
        checkpoints,
    }
}

/// A finished run of variant `i` whose build is what the variant expects.
fn done(
    i: usize,
    v: &matrix::Variant,
    label: String,
    kind: super::Kind,
    runs: Vec<RunLine>,
) -> super::Done {
    super::Done {
        variant: i,
        label,
        kind,
        secs: 0.0,
        result: Ok(output::Output {
            build: BuildLine {
                debug_assertions: v.build.expect.debug_assertions,
                overflow_checks: v.build.expect.overflow_checks,
                features: String::new(),
            },
            runs,
        }),
        tests: Err(anyhow::anyhow!("not a test run")),
    }
}

fn synthetic(world: impl Fn(&matrix::Target, &str, &str) -> Vec<(u64, u64)>) -> Synthetic {
    let variants = matrix::variants(None, true);
    let mut finished = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        for backend in super::BACKENDS {
            let mut checkpoints = world(v.target, v.build.name, backend);
            // An unoptimized build of a full target runs the short scenario.
            if v.short() {
                checkpoints.retain(|c| c.0 <= SHORT_TICKS);
            }
            // Equal runs record equal replays.
            let replay = ReplayField::Verified(checkpoints.len() as u64);
            let runs = vec![run_line(v, backend, checkpoints, replay, None)];
            finished.push(done(
                i,
                v,
                format!("--backend {backend}"),
                super::Kind::Scenario,
                runs,
            ));
        }
        if v.target.control && super::control_variant(&variants, v.target) == Some(i) {
            finished.push(control(i, v, &world));
        }
    }
    Synthetic {
        built: vec![Ok(0.0); variants.len()],
        variants,
        done: finished,
    }
}

impl Synthetic {
    fn ran(&self) -> super::Ran<'_> {
        super::Ran {
            variants: &self.variants,
            built: &self.built,
            done: &self.done,
            quick: false,
        }
    }

    /// Judged against `known_text`, then `--bless` of the whole full matrix.
    fn bless(&self, known_text: &str) -> (Vec<Row>, anyhow::Result<super::Blessing>) {
        let known = with_short(&known::parse(known_text).unwrap(), SHORT_TICKS);
        let judged = super::judge_all(&self.ran(), &known);
        let blessing = super::bless(&self.ran(), &judged.rows, &judged.clean, known_text, true);
        (judged.rows, blessing)
    }
}

/// Fixed point everywhere seed 1; pinned float seed 2 on every target but
/// i586, whose x87 floats differ from tick 5 000 (seed 3) — the shape of
/// the committed answers.
fn committed_world(t: &matrix::Target, _build: &str, backend: &str) -> Vec<(u64, u64)> {
    match (backend, t.platform) {
        ("fixed_point_16_16", _) => world_line(t.short, 1, 1, 0),
        (_, "i586-linux") => world_line(t.short, 2, 3, 5_000),
        _ => world_line(t.short, 2, 2, 0),
    }
}

fn insert(k: &mut Known, mode: &str, backend: &str, platform: &str, cps: Vec<(u64, u64)>) {
    let ticks = cps.last().unwrap().0;
    insert_answer(k, mode, backend, platform, ticks, cps);
}

/// Stores `checkpoints` as the answer of `backend` on `platform` in `mode`.
fn insert_answer(
    k: &mut Known,
    mode: &str,
    backend: &str,
    platform: &str,
    ticks: u64,
    checkpoints: Vec<(u64, u64)>,
) {
    k.entry(mode.to_owned())
        .or_default()
        .entry(backend.to_owned())
        .or_default()
        .insert(platform.to_owned(), Answer { ticks, checkpoints });
}

/// The answers of a world as the file stores them: fixed point once
/// (`any`, its short answer derived), pinned float per platform (`full`
/// for the full targets, `short` for the emulated ones).
fn answers_of(world: impl Fn(&matrix::Target, &str, &str) -> Vec<(u64, u64)>) -> Known {
    let mut k = Known::new();
    let host = &TARGETS[0];
    insert(
        &mut k,
        "full",
        "fixed_point_16_16",
        "any",
        world(host, "debug", "fixed_point_16_16"),
    );
    for t in TARGETS {
        let mode = if t.short { "short" } else { "full" };
        insert(
            &mut k,
            mode,
            "float_pinned_32",
            t.platform,
            world(t, "release", "float_pinned_32"),
        );
    }
    k
}

fn committed() -> (Known, String) {
    let k = answers_of(committed_world);
    let text = known::render(&k, super::SCENARIO_VERSION);
    (k, text)
}

fn implied_pairs(known_text: &str) -> String {
    let k = with_short(&known::parse(known_text).unwrap(), SHORT_TICKS);
    pairs::render(&pairs::from_known(&k))
}

#[test]
fn blessing_an_unchanged_matrix_writes_the_same_files() {
    let (_, text) = committed();
    let (rows, blessing) = synthetic(committed_world).bless(&text);
    assert!(rows.iter().all(|r| r.verdict.passed()), "{}", table(&rows));
    let blessing = blessing.unwrap();
    assert_eq!(blessing.known, text);
    let table_md = blessing.pairs.unwrap();
    assert_eq!(table_md, implied_pairs(&text));
    assert!(table_md.ends_with("`i586-unknown-linux-gnu` only with itself.\n"));
}

#[test]
fn blessing_a_changed_answer_of_a_row_that_agrees_only_with_itself() {
    // i586's pinned float changes: it now differs from x86_64 from tick
    // 10 000, with other hashes. Not a promised pair, and nothing else moves.
    let (mut expected, text) = committed();
    let i586_float = |t: &matrix::Target| world_line(t.short, 2, 4, 10_000);
    let world = |t: &matrix::Target, build: &str, backend: &str| {
        if backend == "float_pinned_32" && t.platform == "i586-linux" {
            i586_float(t)
        } else {
            committed_world(t, build, backend)
        }
    };
    let (rows, blessing) = synthetic(world).bless(&text);
    // Against the committed answers that row (and only it) is a
    // known-answer mismatch, which is what --bless is for.
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.verdict.passed()).collect();
    assert_eq!(failed.len(), 1, "{}", table(&rows));
    assert_eq!(
        (failed[0].target.as_str(), failed[0].backend.as_str()),
        ("i586-unknown-linux-gnu", "float_pinned_32")
    );
    assert!(failed[0].verdict.blessable(), "{:?}", failed[0].verdict);

    let blessing = blessing.unwrap();
    let i586 = TARGETS.iter().find(|t| t.platform == "i586-linux").unwrap();
    insert(
        &mut expected,
        "full",
        "float_pinned_32",
        "i586-linux",
        i586_float(i586),
    );
    assert_eq!(known::parse(&blessing.known).unwrap(), expected);
    assert!(blessing.known.contains("\"10000 0x00000000003d3010\","));
    let table_md = blessing.pairs.unwrap();
    assert_eq!(table_md, implied_pairs(&blessing.known));
    let row = table_md
        .lines()
        .find(|l| l.starts_with("| `i586-unknown-linux-gnu` |"))
        .unwrap();
    assert!(
        row.ends_with("| ✓ promised: = the known answer | ✗ not promised across targets: differs from x86_64-linux from tick 10\u{a0}000 (runs on this target agree with each other) |"),
        "{row}"
    );
    assert!(table_md.ends_with("`i586-unknown-linux-gnu` only with itself.\n"));
}

#[test]
fn blessing_a_changed_promised_answer_keeps_the_promised_pairs() {
    // Fixed point changes on every target from tick 5 000, and pinned float
    // on every target that agrees with x86_64 from tick 10 000 (within the
    // short runs too); i586's own pinned float stays.
    let (committed_known, text) = committed();
    let world = |t: &matrix::Target, build: &str, backend: &str| match (backend, t.platform) {
        ("fixed_point_16_16", _) => world_line(t.short, 1, 5, 5_000),
        (_, "i586-linux") => committed_world(t, build, backend),
        _ => world_line(t.short, 2, 6, 10_000),
    };
    let (rows, blessing) = synthetic(world).bless(&text);
    assert!(
        rows.iter().any(|r| !r.verdict.passed()),
        "the change is seen"
    );
    // The controls, nudged after the change, differ from the committed
    // answer too early: against the blessed one they are detected.
    assert!(
        rows.iter()
            .any(|r| matches!(r.verdict, Verdict::ControlMissed(_))),
        "{}",
        table(&rows)
    );
    let blessing = blessing.unwrap();
    assert_eq!(known::parse(&blessing.known).unwrap(), answers_of(world));
    assert_ne!(
        known::parse(&blessing.known).unwrap(),
        committed_known,
        "the answers changed"
    );
    // The short fixed-point answer is the new full answer's prefix:
    // derived, not stored.
    assert!(!blessing.known.contains("[short.fixed_point_16_16"));
    let table_md = blessing.pairs.unwrap();
    assert_eq!(table_md, implied_pairs(&blessing.known));
    assert_eq!(
        table_md,
        implied_pairs(&text),
        "the same pairs are promised as before"
    );
}

#[test]
fn blessing_refuses_builds_of_a_target_that_disagree() {
    // Every build changes its fixed-point answer, but `native` to other
    // hashes than the reference (`release`): each of them differs from the
    // committed answer first, yet they do not agree with each other.
    let (_, text) = committed();
    let world = |t: &matrix::Target, build: &str, backend: &str| match backend {
        "fixed_point_16_16" if build == "native" => world_line(t.short, 1, 8, 5_000),
        "fixed_point_16_16" => world_line(t.short, 1, 7, 5_000),
        _ => committed_world(t, build, backend),
    };
    let (rows, blessing) = synthetic(world).bless(&text);
    assert!(
        rows.iter()
            .filter(|r| !r.verdict.passed())
            .all(|r| r.verdict.blessable() || r.build.starts_with("control")),
        "{}",
        table(&rows)
    );
    let e = format!("{:#}", blessing.unwrap_err());
    assert!(
        e.starts_with(
            "not blessing: x86_64-unknown-linux-gnu native / fixed_point_16_16: MISMATCH"
        ),
        "{e}"
    );
}

#[test]
fn an_unoptimized_build_runs_short_and_is_judged_on_the_reference_prefix() {
    let variants = matrix::variants(None, true);
    let host = |name: &str| {
        variants
            .iter()
            .find(|v| v.target.triple.is_none() && v.build.name == name)
            .unwrap()
    };
    assert!(host("debug").short() && host("debug-no-overflow").short());
    assert!(!host("release").short() && !host("release-overflow").short());
    // `debug`'s fixed point departs at tick 5,000 (inside its short run):
    // caught against the known answer, and named on the host's row.
    let (_, text) = committed();
    let world = |t: &matrix::Target, build: &str, backend: &str| match backend {
        "fixed_point_16_16" if build == "debug" && t.triple.is_none() => {
            let mut w = committed_world(t, build, backend);
            for c in &mut w {
                if c.0 >= 5_000 {
                    c.1 ^= 1;
                }
            }
            w
        }
        _ => committed_world(t, build, backend),
    };
    let (rows, _) = synthetic(world).bless(&text);
    let bad: Vec<_> = rows.iter().filter(|r| !r.verdict.passed()).collect();
    assert_eq!(bad.len(), 1, "{}", table(&rows));
    assert_eq!(
        (bad[0].target.as_str(), bad[0].build.as_str()),
        ("x86_64-unknown-linux-gnu", "debug")
    );
    // The clean matrix passes with the debug runs short.
    let (rows, _) = synthetic(committed_world).bless(&text);
    assert!(rows.iter().all(|r| r.verdict.passed()), "{}", table(&rows));
}

#[test]
fn blessing_refuses_a_control_that_is_missed_against_the_blessed_answers() {
    // Fixed point changes everywhere, and the host's control is blind:
    // its hashes equal the clean run's, nudge or not.
    let (_, text) = committed();
    let world = |t: &matrix::Target, build: &str, backend: &str| match backend {
        "fixed_point_16_16" => world_line(t.short, 1, 9, 5_000),
        _ => committed_world(t, build, backend),
    };
    let mut m = synthetic(world);
    let host = m
        .done
        .iter_mut()
        .find(|d| d.kind == super::Kind::Control && m.variants[d.variant].target.triple.is_none())
        .unwrap();
    for r in &mut host.result.as_mut().unwrap().runs {
        r.checkpoints = world(&TARGETS[0], "release", &r.backend);
        r.replay = ReplayField::Verified(r.checkpoints.len() as u64);
    }
    let e = format!("{:#}", m.bless(&text).1.unwrap_err());
    assert!(
        e.starts_with("not blessing: x86_64-unknown-linux-gnu control (release, nudged at 50000) / fixed_point_16_16: CONTROL MISSED"),
        "{e}"
    );
}

#[test]
fn equal_runs_with_other_snapshot_bytes_fail_naming_the_target() {
    let (_, text) = committed();
    let mut m = synthetic(committed_world);
    let s390x = m
        .done
        .iter_mut()
        .find(|d| {
            d.kind == super::Kind::Scenario
                && m.variants[d.variant].target.triple == Some("s390x-unknown-linux-gnu")
        })
        .unwrap();
    let run = &mut s390x.result.as_mut().unwrap().runs[0];
    run.snapshots ^= 1;
    let backend = run.backend.clone();
    let (rows, _) = m.bless(&text);
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.verdict.passed()).collect();
    assert!(!failed.is_empty(), "{}", table(&rows));
    for r in &failed {
        assert_eq!(r.backend, backend, "{}", table(&rows));
        let text = format!("{:?}", r.verdict);
        assert!(text.contains("different snapshot bytes"), "{text}");
        assert!(
            r.target == "s390x-unknown-linux-gnu" || text.contains("s390x"),
            "{}",
            table(&rows)
        );
    }
}

#[test]
fn the_physics_scene_has_its_own_columns_and_answers() {
    let t = |name: &str| TARGETS.iter().find(|t| t.name == name).unwrap();
    let pair = |target: &str, physics: bool, backend: &'static str, outcome| pairs::Pair {
        target: t(target),
        physics,
        builds: "release".to_owned(),
        ticks: 100_000,
        backend,
        outcome,
    };
    let md = pairs::render(&[
        pair(
            "x86_64-unknown-linux-gnu",
            false,
            "fixed_point_16_16",
            pairs::Outcome::Agrees,
        ),
        pair(
            "x86_64-unknown-linux-gnu",
            false,
            "float_pinned_32",
            pairs::Outcome::Agrees,
        ),
        pair(
            "x86_64-unknown-linux-gnu",
            true,
            "fixed_point_16_16",
            pairs::Outcome::Agrees,
        ),
        pair(
            "x86_64-unknown-linux-gnu",
            true,
            "float_pinned_32",
            pairs::Outcome::Agrees,
        ),
        pair(
            "i586-unknown-linux-gnu",
            false,
            "fixed_point_16_16",
            pairs::Outcome::Agrees,
        ),
        pair(
            "i586-unknown-linux-gnu",
            false,
            "float_pinned_32",
            pairs::Outcome::Agrees,
        ),
        pair(
            "i586-unknown-linux-gnu",
            true,
            "fixed_point_16_16",
            pairs::Outcome::Differs(500),
        ),
        pair(
            "i586-unknown-linux-gnu",
            true,
            "float_pinned_32",
            pairs::Outcome::Differs(1000),
        ),
    ]);
    assert!(md.contains(
        "| `float_pinned_32` | physics scene, `fixed_point_16_16` | physics scene, `float_pinned_32` |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    ));
    let row = |name: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap()
            .to_owned()
    };
    assert!(row("x86_64-unknown-linux-gnu").ends_with(
        "| ✓ promised: the reference | ✓ promised: = the known answer | ✓ promised: the reference |"
    ));
    assert!(
        row("i586-unknown-linux-gnu")
            .contains("✗ BUG: differs from the known answer from tick 500 |")
    );
    assert!(
        row("i586-unknown-linux-gnu").contains("differs from x86_64-linux from tick 1\u{a0}000")
    );
    assert!(md.ends_with(
        "Pinned-float physics is promised between any two of `x86_64-unknown-linux-gnu`; elsewhere each target only with itself.\n"
    ));

    // From known answers: the physics mode's own, one fixed-point answer
    // for every target; a physics run is judged in that mode.
    let mut k = Known::new();
    insert(
        &mut k,
        "physics",
        "fixed_point_16_16",
        "any",
        vec![(0, 1), (500, 2)],
    );
    insert(
        &mut k,
        "physics",
        "float_pinned_32",
        "x86_64-linux",
        vec![(0, 3), (500, 4)],
    );
    let from = pairs::from_known(&k);
    let physics: Vec<_> = from.iter().filter(|p| p.physics).collect();
    assert_eq!(physics.len(), 2 * TARGETS.len());
    assert!(
        physics
            .iter()
            .filter(|p| p.backend == "fixed_point_16_16")
            .all(|p| p.outcome == pairs::Outcome::Agrees)
    );
    let mut r = run("fixed_point_16_16", &[(0, 1), (500, 2)]);
    r.mode = "physics".to_owned();
    let v = matrix::variants(None, false).remove(0);
    assert_eq!(super::mode_of(false, &v, &r), "physics");
    assert_eq!(
        judge(&r, &debug_line(), DEBUG, None, &k, "physics"),
        Verdict::Ok
    );
    r.checkpoints[1].1 = 9;
    assert!(matches!(
        judge(&r, &debug_line(), DEBUG, None, &k, "physics"),
        Verdict::Mismatch { tick: 500, .. }
    ));
}
