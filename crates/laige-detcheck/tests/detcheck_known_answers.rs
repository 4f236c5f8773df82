//! The committed known answers agree with the scenario: the file's
//! scenario version is the code's, and the quick fixed-point run — the
//! answer promised on every platform and build — reproduces its committed
//! checkpoints in this (test) build. `cargo xtask detcheck` checks the rest
//! (every build of the matrix, both backends, the full run).

use laige_core::MathBackend;
use laige_detcheck::scenario::{self, ReplayOutcome, SCENARIO_VERSION, ScenarioConfig};

const FILE: &str = include_str!("../known_answers.toml");

/// The checkpoints of one `[section]` of the file: `"TICK 0xHASH"` lines.
fn checkpoints(section: &str) -> Vec<(u64, u64)> {
    let header = format!("[{section}]");
    let body = FILE
        .split_once(&header)
        .unwrap_or_else(|| panic!("no {header} in known_answers.toml"))
        .1;
    let body = body.split("\n[").next().unwrap_or("");
    body.lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix('"')?.strip_suffix("\",")?;
            let (t, h) = l.split_once(' ')?;
            Some((
                t.parse().ok()?,
                u64::from_str_radix(h.strip_prefix("0x")?, 16).ok()?,
            ))
        })
        .collect()
}

#[test]
fn the_file_is_for_this_scenario_version() {
    let line = FILE
        .lines()
        .find(|l| l.starts_with("scenario_version"))
        .expect("a scenario_version line");
    assert_eq!(line, format!("scenario_version = {SCENARIO_VERSION}"));
}

#[test]
fn quick_and_full_answers_agree_where_they_overlap() {
    for backend in ["fixed_point_16_16.any", "float_pinned_32.x86_64-linux"] {
        let quick = checkpoints(&format!("quick.{backend}"));
        let full = checkpoints(&format!("full.{backend}"));
        assert_eq!(quick.len(), 11, "{backend}");
        assert_eq!(full.len(), 21, "{backend}");
        for (t, h) in &quick {
            if let Some((_, fh)) = full.iter().find(|(ft, _)| ft == t) {
                assert_eq!(h, fh, "{backend} tick {t}");
            }
        }
    }
}

#[test]
fn the_quick_fixed_point_run_reproduces_its_known_answer() {
    let run = scenario::run(MathBackend::FixedPoint16_16, &ScenarioConfig::quick()).unwrap();
    assert_eq!(run.replay, ReplayOutcome::Verified(11));
    assert_eq!(
        run.checkpoints,
        checkpoints("quick.fixed_point_16_16.any"),
        "the simulation's results changed: if on purpose, run `cargo xtask detcheck --bless` (and --quick --bless) and commit the diff"
    );
}
