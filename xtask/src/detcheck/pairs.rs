//! The supported-pairs table of the determinism docs
//! (`crates/laige-sim/src/determinism_pairs.md`, included by
//! `laige_sim::determinism`), generated — never written by hand — from the
//! matrix: by `detcheck --bless` from a fresh full run, and, in the test,
//! from the committed known answers, which must render the committed file.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::known::{Known, platform_key};
use super::matrix::{SHORT_TICKS, TARGETS, Target};
use super::verdict::first_diff;
use super::{BACKENDS, PHYSICS};
use crate::run::root;

/// The platform whose pinned-float answer the others are compared with.
pub const REFERENCE_PLATFORM: &str = "x86_64-linux";
/// Ticks of the full scenario.
pub const FULL_TICKS: u64 = 100_000;

pub fn path() -> PathBuf {
    root().join("crates/laige-sim/src/determinism_pairs.md")
}

/// One target × backend of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Equal to the reference: the known answer (fixed point), the
    /// x86_64-linux answer (pinned float).
    Agrees,
    /// Differs from the reference from this checkpoint on.
    Differs(u64),
    /// No answer is recorded for the target.
    NotRecorded,
    /// The target's own rows failed (builds disagree, replay diverged…).
    Fails(String),
}

#[derive(Clone, Debug)]
pub struct Pair {
    pub target: &'static Target,
    /// The physics scene's pair (`--scene physics`), else the workload's.
    pub physics: bool,
    pub builds: String,
    pub ticks: u64,
    pub backend: &'static str,
    pub outcome: Outcome,
}

/// How `checkpoints` of a `mode` run compare with the reference answer.
pub fn compare(backend: &str, checkpoints: &[(u64, u64)], known: &Known, mode: &str) -> Outcome {
    let key = platform_key(backend, REFERENCE_PLATFORM);
    match known
        .get(mode)
        .and_then(|m| m.get(backend))
        .and_then(|p| p.get(&key))
    {
        None => Outcome::NotRecorded,
        Some(a) => match first_diff(checkpoints, &a.checkpoints) {
            None => Outcome::Agrees,
            Some(t) => Outcome::Differs(t),
        },
    }
}

/// The pairs that the committed known answers (with the derived `short`
/// ones) state, for every target of the matrix.
pub fn from_known(known: &Known) -> Vec<Pair> {
    let mut out = Vec::new();
    for t in TARGETS {
        let (mode, ticks) = if t.short {
            ("short", SHORT_TICKS)
        } else {
            ("full", FULL_TICKS)
        };
        for backend in BACKENDS {
            let answer = known
                .get(mode)
                .and_then(|m| m.get(backend))
                .and_then(|p| p.get(&platform_key(backend, t.platform)));
            out.push(Pair {
                target: t,
                physics: false,
                builds: builds_text(t),
                ticks,
                backend,
                outcome: answer.map_or(Outcome::NotRecorded, |a| {
                    compare(backend, &a.checkpoints, known, mode)
                }),
            });
        }
        // The physics scene's pairs, once it has known answers.
        let Some(physics) = known.get(PHYSICS) else {
            continue;
        };
        for backend in BACKENDS {
            let answer = physics
                .get(backend)
                .and_then(|p| p.get(&platform_key(backend, t.platform)));
            out.push(Pair {
                target: t,
                physics: true,
                builds: builds_text(t),
                ticks: answer.map_or(0, |a| a.ticks),
                backend,
                outcome: answer.map_or(Outcome::NotRecorded, |a| {
                    compare(backend, &a.checkpoints, known, PHYSICS)
                }),
            });
        }
    }
    out
}

/// `100 000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{a0}');
        }
        out.push(c);
    }
    out
}

fn cell(p: &Pair) -> String {
    let fixed = p.backend == "fixed_point_16_16";
    match (&p.outcome, fixed) {
        (Outcome::Agrees, true) => "✓ promised: = the known answer".to_owned(),
        (Outcome::Agrees, false) if p.target.platform == REFERENCE_PLATFORM => {
            "✓ promised: the reference".to_owned()
        }
        (Outcome::Agrees, false) => format!("✓ promised: = {REFERENCE_PLATFORM}"),
        (Outcome::Differs(t), true) => format!(
            "✗ BUG: differs from the known answer from tick {}",
            thousands(*t)
        ),
        (Outcome::Differs(t), false) => format!(
            "✗ not promised across targets: differs from {REFERENCE_PLATFORM} from tick {} (runs on this target agree with each other)",
            thousands(*t)
        ),
        (Outcome::NotRecorded, _) => "not promised: no answer recorded".to_owned(),
        (Outcome::Fails(w), _) => format!("✗ fails: {}", w.replace('|', "\\|")),
    }
}

/// The markdown file: one row per target, the workload's two columns,
/// then — once the physics scene has pairs — its two.
pub fn render(pairs: &[Pair]) -> String {
    let with_physics = pairs.iter().any(|p| p.physics);
    let mut out = String::from(
        "<!-- Generated from the detcheck matrix by `cargo xtask detcheck --bless`: do not edit.\n     \
         `cargo test -p xtask` checks it against crates/laige-detcheck/known_answers.toml, and every\n     \
         full `cargo xtask detcheck` against a fresh run of the matrix. -->\n\
         | target | runs here as | word size, byte order, floats | builds | ticks | `fixed_point_16_16` | `float_pinned_32` |",
    );
    if with_physics {
        out.push_str(" physics scene, `fixed_point_16_16` | physics scene, `float_pinned_32` |");
    }
    out.push_str("\n| --- | --- | --- | --- | --- | --- | --- |");
    if with_physics {
        out.push_str(" --- | --- |");
    }
    out.push('\n');
    let mut physics_together = Vec::new();
    let mut physics_alone = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for p in pairs {
        if !names.contains(&p.target.name) {
            names.push(p.target.name);
        }
    }
    let mut together = Vec::new();
    let mut alone = Vec::new();
    for name in names {
        let of = |backend: &str, physics: bool| {
            pairs
                .iter()
                .find(|p| p.target.name == name && p.backend == backend && p.physics == physics)
        };
        let (Some(f), Some(g)) = (of("fixed_point_16_16", false), of("float_pinned_32", false))
        else {
            continue;
        };
        let _ = write!(
            out,
            "| `{name}` | {} | {} | {} | {} | {} | {} |",
            f.target.how,
            f.target.varies,
            f.builds,
            thousands(f.ticks),
            cell(f),
            cell(g)
        );
        if with_physics {
            let physics_cell = |p: Option<&Pair>| p.map_or_else(|| "not run".to_owned(), cell);
            let pg = of("float_pinned_32", true);
            let _ = write!(
                out,
                " {} | {} |",
                physics_cell(of("fixed_point_16_16", true)),
                physics_cell(pg)
            );
            if pg.is_some_and(|p| p.outcome == Outcome::Agrees) {
                physics_together.push(format!("`{name}`"));
            } else {
                physics_alone.push(format!("`{name}`"));
            }
        }
        out.push('\n');
        if g.outcome == Outcome::Agrees {
            together.push(format!("`{name}`"));
        } else {
            alone.push(format!("`{name}`"));
        }
    }
    let _ = write!(
        out,
        "\nPinned-float replays and sessions are promised between any two of {}",
        together.join(", ")
    );
    if alone.is_empty() {
        out.push_str(".\n");
    } else {
        let _ = writeln!(
            out,
            "; {} only with {}.",
            alone.join(", "),
            if alone.len() == 1 {
                "itself"
            } else {
                "themselves, each"
            }
        );
    }
    if with_physics {
        let _ = writeln!(
            out,
            "\nPinned-float physics is promised between any two of {}; elsewhere each target only with itself.",
            if physics_together.is_empty() {
                "(none recorded)".to_owned()
            } else {
                physics_together.join(", ")
            }
        );
    }
    out
}

/// The builds column: the builds a default run makes (a cross target's
/// further builds are opt-in, `--builds NAME`, and not in the table).
fn builds_text(t: &super::matrix::Target) -> String {
    if t.triple.is_some() {
        t.builds.first().copied().unwrap_or_default().to_owned()
    } else {
        t.builds.join(", ")
    }
}
