//! Comparing runs with each other and with the known answers: one row per
//! build × backend, plus the negative control; and the table.

use std::fmt::Write as _;

use super::known::{Answer, Known, platform_key};
use super::output::{BuildLine, ReplayField, RunLine};

/// The verdict of one row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Equal to the known answer and to the reference build.
    Ok,
    /// Equal to the reference build; no known answer exists for this
    /// platform (pinned float off its recorded platforms).
    OkNoKnownAnswer(String),
    /// The first checkpoint that differs from `against`.
    Mismatch { against: String, tick: u64 },
    /// No known answer where one is required (fixed point).
    MissingKnownAnswer,
    /// The run's own replay playback diverged.
    ReplayDiverged(u64),
    /// The build did not get the flags it was meant to have.
    FlagsNotApplied(String),
    /// The negative control was reported as a mismatch where expected.
    ControlDetected { tick: u64 },
    /// The negative control was *not* detected (detcheck cannot fail).
    ControlMissed(String),
    /// A math test suite passed (ignored: the heavy tests it skips;
    /// tolerated: float tests failing where floats are not IEEE binary32,
    /// named so that the table shows them).
    TestsPassed {
        passed: u64,
        ignored: u64,
        tolerated: Vec<String>,
    },
    /// Another target's recording (x86_64's) verified here: every one of
    /// its N recorded hashes reproduced.
    CrossingVerified(u64),
    /// Another target's recording diverged here where the known answers
    /// say the runs differ, named down to the field (`count` differences
    /// in all).
    CrossingReported {
        tick: u64,
        field: String,
        count: usize,
    },
    /// The build or the run failed.
    Failed(String),
}

impl Verdict {
    pub fn passed(&self) -> bool {
        matches!(
            self,
            Self::Ok
                | Self::OkNoKnownAnswer(_)
                | Self::ControlDetected { .. }
                | Self::TestsPassed { .. }
                | Self::CrossingVerified(_)
                | Self::CrossingReported { .. }
        )
    }

    /// Failures that `--bless` resolves (a result change, visibly).
    pub fn blessable(&self) -> bool {
        match self {
            Self::MissingKnownAnswer => true,
            Self::Mismatch { against, .. } => against == "known answer",
            _ => false,
        }
    }

    pub fn text(&self) -> String {
        match self {
            Self::Ok => "ok: = known answer, = reference, replay verified".to_owned(),
            Self::OkNoKnownAnswer(p) => format!(
                "ok: = reference, replay verified (no known answer for {p}: not a promised pair)"
            ),
            Self::Mismatch { against, tick } => {
                format!("MISMATCH: differs from the {against} from tick {tick}")
            }
            Self::MissingKnownAnswer => "MISSING known answer (run --bless)".to_owned(),
            Self::ReplayDiverged(t) => format!("REPLAY DIVERGED at tick {t}"),
            Self::FlagsNotApplied(w) => format!("BUILD FLAGS NOT APPLIED: {w}"),
            Self::ControlDetected { tick } => format!(
                "ok: negative control reported as a mismatch from tick {tick} (expected), replay diverged there"
            ),
            Self::ControlMissed(w) => format!("CONTROL MISSED: {w}"),
            Self::TestsPassed {
                passed,
                ignored,
                tolerated,
            } => {
                let mut t = format!("ok: {passed} tests passed ({ignored} heavy ones ignored)");
                if !tolerated.is_empty() {
                    t.push_str(&format!(
                        "; floats are not binary32 here: {} failed (recorded; the fixed-point known-answer hash passed)",
                        tolerated.join(", ")
                    ));
                }
                t
            }
            Self::CrossingVerified(n) => {
                format!("ok: x86_64's recording verified here ({n} recorded hashes reproduced)")
            }
            Self::CrossingReported { tick, field, count } => format!(
                "ok: x86_64's recording diverges here at tick {tick}, as the known answers differ; {count} difference(s), first: {field}"
            ),
            Self::Failed(w) => format!("FAILED: {w}"),
        }
    }
}

/// What a build promises about itself (checked against its `build` line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    pub debug_assertions: bool,
    pub overflow_checks: bool,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub target: String,
    pub build: String,
    pub flags: String,
    pub backend: String,
    pub final_hash: Option<u64>,
    pub verdict: Verdict,
}

/// The tick of the first checkpoint where `a` and `b` differ (in tick or
/// hash, or where one sequence ends).
pub fn first_diff(a: &[(u64, u64)], b: &[(u64, u64)]) -> Option<u64> {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return Some(x.0.min(y.0));
        }
    }
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Less => Some(b[a.len()].0),
        std::cmp::Ordering::Greater => Some(a[b.len()].0),
    }
}

fn known_answer<'a>(known: &'a Known, mode: &str, run: &RunLine) -> Option<&'a Answer> {
    known
        .get(mode)?
        .get(&run.backend)?
        .get(&platform_key(&run.backend, &run.platform))
}

/// The verdict of a clean run of `build`.
pub fn judge(
    run: &RunLine,
    build: &BuildLine,
    expect: Expect,
    reference: Option<(&str, &RunLine)>,
    known: &Known,
    mode: &str,
) -> Verdict {
    if build.overflow_checks != expect.overflow_checks
        || build.debug_assertions != expect.debug_assertions
    {
        return Verdict::FlagsNotApplied(format!(
            "expected overflow_checks={} debug_assertions={}, the binary reports {} / {}",
            expect.overflow_checks,
            expect.debug_assertions,
            build.overflow_checks,
            build.debug_assertions
        ));
    }
    match run.replay {
        ReplayField::Verified(_) => {}
        ReplayField::Diverged(t) => return Verdict::ReplayDiverged(t),
        ReplayField::Skipped => {
            return Verdict::Failed("the replay was not verified".to_owned());
        }
    }
    if let Some(a) = known_answer(known, mode, run)
        && let Some(tick) = first_diff(&run.checkpoints, &a.checkpoints)
    {
        return Verdict::Mismatch {
            against: "known answer".to_owned(),
            tick,
        };
    }
    // A shorter run (an unoptimized build's) is compared with the
    // reference's checkpoints up to its own last tick.
    if let Some((name, r)) = reference
        && let Some(tick) = first_diff(
            &run.checkpoints,
            &r.checkpoints[..r.checkpoints.partition_point(|c| c.0 <= run.ticks)],
        )
    {
        return Verdict::Mismatch {
            against: format!("{name} build"),
            tick,
        };
    }
    if known_answer(known, mode, run).is_some() {
        Verdict::Ok
    } else if run.backend == "fixed_point_16_16" {
        Verdict::MissingKnownAnswer
    } else {
        Verdict::OkNoKnownAnswer(run.platform.clone())
    }
}

/// The verdict of the negative control: its hashes must equal the clean
/// baseline's (known answer, else the same build's clean run) up to the
/// perturbed tick and differ from the first checkpoint after it, and its
/// own replay must diverge right there.
pub fn judge_control(
    control: &RunLine,
    clean: Option<&RunLine>,
    known: &Known,
    mode: &str,
) -> Verdict {
    let Some(at) = control.perturb else {
        return Verdict::ControlMissed("the control run was not perturbed".to_owned());
    };
    let baseline: &[(u64, u64)] = match known_answer(known, mode, control) {
        Some(a) => &a.checkpoints,
        None => match clean {
            Some(c) => &c.checkpoints,
            None => return Verdict::ControlMissed("no baseline to compare with".to_owned()),
        },
    };
    let Some(expected) = baseline.iter().map(|c| c.0).find(|&t| t > at) else {
        return Verdict::ControlMissed(format!("no checkpoint after the perturbed tick {at}"));
    };
    match first_diff(&control.checkpoints, baseline) {
        None => Verdict::ControlMissed(format!(
            "perturbed at tick {at}, yet every hash equals the baseline"
        )),
        Some(t) if t != expected => Verdict::ControlMissed(format!(
            "perturbed at tick {at}: first difference at tick {t}, expected {expected}"
        )),
        Some(t) => match control.replay {
            ReplayField::Diverged(r) if r == expected => Verdict::ControlDetected { tick: t },
            other => Verdict::ControlMissed(format!(
                "hashes differ from tick {t} as expected, but the replay reported {other:?} (expected a divergence at {expected})"
            )),
        },
    }
}

/// The table: target × build × backend × final hash × verdict.
pub fn table(rows: &[Row]) -> String {
    let w_target = rows
        .iter()
        .map(|r| r.target.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let w_build = rows.iter().map(|r| r.build.len()).max().unwrap_or(5).max(5);
    let w_flags = rows.iter().map(|r| r.flags.len()).max().unwrap_or(5).max(5);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<w_target$}  {:<w_build$}  {:<w_flags$}  {:<17}  {:<18}  verdict",
        "target", "build", "flags", "backend", "final state hash"
    );
    let _ = writeln!(
        out,
        "{}  {}  {}  {}  {}  {}",
        "-".repeat(w_target),
        "-".repeat(w_build),
        "-".repeat(w_flags),
        "-".repeat(17),
        "-".repeat(18),
        "-".repeat(7)
    );
    for r in rows {
        let hash = r
            .final_hash
            .map_or_else(|| "-".to_owned(), |h| format!("{h:#018x}"));
        let _ = writeln!(
            out,
            "{:<w_target$}  {:<w_build$}  {:<w_flags$}  {:<17}  {:<18}  {}",
            r.target,
            r.build,
            r.flags,
            r.backend,
            hash,
            r.verdict.text()
        );
    }
    out
}
