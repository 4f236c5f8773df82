use super::lint_source;

fn rules(src: &str) -> Vec<(&'static str, usize)> {
    lint_source(src)
        .expect("test snippet parses")
        .violations
        .into_iter()
        .map(|v| (v.rule, v.line))
        .collect()
}

#[test]
fn clean_sim_code_passes() {
    let src = r#"
use laige_core::{SimScalar, Vec2};
use std::collections::{BTreeMap, HashMap};

pub fn integrate<S: SimScalar>(pos: &mut [Vec2<S>], vel: &[Vec2<S>], dt: S) {
    for (p, v) in pos.iter_mut().zip(vel) {
        *p += *v * dt;
    }
    let half = S::from_ratio(1, 2);
    let _ = half;
}

pub fn lookup(m: &BTreeMap<u32, u32>, cache: &HashMap<u32, u32>) -> u32 {
    let mut sum = 0;
    for (_, v) in m.iter() { sum += v; }
    sum + cache.get(&1).copied().unwrap_or(0)
}
"#;
    assert_eq!(rules(src), vec![]);
}

#[test]
fn float_types_literals_and_casts_are_caught() {
    let src = "pub struct P { x: f32 }\nfn f(a: i32) -> i32 { let b = a as f64; let c = 1.5; f64::sqrt(b); 0 }\nconst D: u8 = 2f32;\n";
    let r = rules(src);
    assert!(r.contains(&("float-type", 1)), "{r:?}");
    assert!(r.contains(&("float-cast", 2)), "{r:?}");
    assert!(r.contains(&("float-literal", 2)), "{r:?}");
    assert!(r.contains(&("float-type", 2)), "{r:?}");
    assert!(
        r.contains(&("float-literal", 3)),
        "suffixed integer literal: {r:?}"
    );
}

#[test]
fn mul_add_arch_and_intrinsics_are_caught() {
    let src = "fn f(a: X) { a.mul_add(b, c); }\nuse core::arch::x86_64::_mm_add_ps;\nfn g() { unsafe { std::intrinsics::fmaf32(1, 2, 3); } }\n";
    let r = rules(src);
    assert!(r.contains(&("mul-add", 1)), "{r:?}");
    assert!(r.contains(&("arch", 2)), "{r:?}");
    assert!(r.contains(&("intrinsic", 3)), "{r:?}");
}

#[test]
fn wall_clock_reads_are_caught() {
    let src = "use std::time::Instant;\nfn f() { let t = Instant::now(); let s = std::time::SystemTime::now(); }\n";
    let r = rules(src);
    assert!(r.contains(&("wall-clock", 1)), "{r:?}");
    assert!(r.contains(&("wall-clock", 2)), "{r:?}");
    let ok = "use std::time::Duration;\nfn f(d: Duration) -> u128 { d.as_nanos() }\n";
    assert_eq!(rules(ok), vec![], "Duration is not a clock read");
    let steady = "fn f() { let t = laige_core::clock::SteadyClock.now_ns(); }\n";
    assert!(rules(steady).contains(&("wall-clock", 1)));
}

#[test]
fn unseeded_randomness_is_caught() {
    let src = "fn f() { let mut r = rand::thread_rng(); let x: u32 = rand::random(); let s = std::collections::hash_map::RandomState::new(); let g = StdRng::from_entropy(); }\n";
    let r = rules(src);
    assert_eq!(
        r.iter().filter(|x| x.0 == "unseeded-random").count(),
        1,
        "deduplicated per line: {r:?}"
    );
    let src2 = "fn f() {\nlet g = StdRng::from_entropy();\nlet h = rand::rng();\n}\n";
    let r2 = rules(src2);
    assert!(r2.contains(&("unseeded-random", 2)), "{r2:?}");
    assert!(r2.contains(&("unseeded-random", 3)), "{r2:?}");
}

#[test]
fn hash_iteration_is_caught_but_lookup_is_not() {
    let src = r#"
use std::collections::HashMap;
struct S { by_id: HashMap<u32, u32> }
impl S {
    fn total(&self) -> u32 {
        let mut t = 0;
        for (_, v) in &self.by_id { t += v; }
        t += self.by_id.values().sum::<u32>();
        t + self.by_id.get(&3).copied().unwrap_or(0)
    }
}
fn g() {
    let mut seen = HashSet::new();
    seen.insert(1);
    let v: Vec<_> = seen.iter().collect();
    let m: HashMap<u8, u8> = HashMap::default();
    for k in m.keys() {}
}
"#;
    let r = rules(src);
    let lines: Vec<usize> = r
        .iter()
        .filter(|x| x.0 == "hash-iteration")
        .map(|x| x.1)
        .collect();
    assert_eq!(lines, vec![7, 8, 15, 17], "{r:?}");
}

#[test]
fn allow_with_reason_silences_and_is_listed() {
    let src = "// det-allow(float-type): render-space conversion only, never sim state\nfn to_render(x: i32) -> f32 { 0 as _ }\nfn g() -> f32 { todo() } // det-allow(float-type): same\n";
    let report = lint_source(src).unwrap();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.allowed.len(), 2);
    assert!(report.allowed[0].reason.contains("render-space"));
}

#[test]
fn allow_without_reason_or_with_unknown_rule_is_reported() {
    let src =
        "// det-allow(float-type)\nfn f() -> f32 { g() }\n// det-allow(floats): typo\nfn h() {}\n";
    let r = rules(src);
    assert!(r.contains(&("bad-allow", 1)), "{r:?}");
    assert!(
        r.contains(&("float-type", 2)),
        "no reason, no exemption: {r:?}"
    );
    assert!(r.contains(&("bad-allow", 3)), "{r:?}");
}

#[test]
fn file_allow_covers_the_whole_file() {
    let src = "//! det-allow-file(float-literal): test tolerances\nfn f() { let a = 1.0; }\nfn g() { let b = 2.0; }\n";
    let report = lint_source(src).unwrap();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.allowed.len(), 2);
}

#[test]
fn floats_inside_macros_are_caught() {
    let src = "fn f() { let v = vec![1.0, 2.0]; assert!(x < 0.5); }\n";
    let r = rules(src);
    assert!(r.contains(&("float-literal", 1)), "{r:?}");
}

/// A system the way game code registers one, reading the wall clock to
/// scale its step: the lint must reject it (a "deliberate
/// non-determinism" proof).
#[test]
fn a_system_that_reads_the_wall_clock_is_caught() {
    let src = r#"
use std::time::Instant;
use laige_core::{Fpx16_16, SimScalar};
use laige_sim::World;
use laige_sim::workload::Velocity;

pub fn install(world: &mut World) -> laige_core::Result<()> {
    let start = Instant::now();
    world.register_system("game/drift", 300, move |ctx| {
        // Speeds up with real elapsed time: differs on every machine and run.
        let secs = start.elapsed().as_secs();
        let push = Fpx16_16::from_i32(i32::try_from(secs).unwrap_or(0));
        for v in ctx.query_mut::<&mut Velocity<Fpx16_16>>() {
            v.0.x += push;
        }
        Ok(())
    })
}

pub fn stamp(world: &mut World) -> laige_core::Result<()> {
    world.register_system("game/stamp", 400, |_ctx| {
        let _now = std::time::SystemTime::now();
        Ok(())
    })
}
"#;
    let r = rules(src);
    assert!(r.contains(&("wall-clock", 2)), "the import: {r:?}");
    assert!(r.contains(&("wall-clock", 8)), "Instant::now(): {r:?}");
    assert!(
        r.contains(&("wall-clock", 11)),
        "Instant::elapsed() reads the clock too: {r:?}"
    );
    assert!(r.contains(&("wall-clock", 22)), "SystemTime::now(): {r:?}");
    let lines = lint_lines(src);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("sim/drift.rs:8: wall-clock: wall-clock reads differ per run")),
        "reported as file:line: rule: explanation: {lines:?}"
    );
}

/// A system that sums scores by iterating a `HashMap` (its order is
/// randomized per process): caught; the same system over a `BTreeMap`
/// passes.
#[test]
fn a_system_that_iterates_a_hash_map_is_caught() {
    let src = r#"
use std::collections::HashMap;
use laige_sim::World;

#[derive(Default)]
struct Scores {
    by_team: HashMap<u32, i64>,
}

pub fn install(world: &mut World) -> laige_core::Result<()> {
    let mut scores = Scores::default();
    let mut leader = 0_u32;
    world.register_system("game/leader", 500, move |ctx| {
        for (team, score) in &scores.by_team {
            // The first maximum wins: which one depends on the order.
            if *score > 0 { leader = *team; break; }
        }
        let total: i64 = scores.by_team.values().sum();
        let _ = (ctx, total, leader);
        Ok(())
    })
}
"#;
    let r = rules(src);
    let hits: Vec<usize> = r
        .iter()
        .filter(|x| x.0 == "hash-iteration")
        .map(|x| x.1)
        .collect();
    assert_eq!(hits, vec![14, 18], "{r:?}");
    let fixed = src
        .replace("HashMap", "BTreeMap")
        .replace("by_team: BTreeMap", "by_team: std::collections::BTreeMap");
    assert_eq!(rules(&fixed), vec![], "a BTreeMap iterates in key order");
}

/// Lints `src` as if it were `sim/drift.rs`, through the same path
/// `cargo xtask lint` takes, and returns its report lines.
fn lint_lines(src: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("laige-detlint-{}", std::process::id()));
    let sim = dir.join("sim");
    std::fs::create_dir_all(&sim).unwrap();
    std::fs::write(sim.join("drift.rs"), src).unwrap();
    let (bad, _, n) = super::lint_paths(&dir, &["sim".to_owned()], &[]).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(n, 1);
    bad
}
