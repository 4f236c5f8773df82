//! `cargo xtask replay-diff` on a real divergence: the demo recorded by
//! its plain build and by a changed one (`LAIGE_DEMO_PERTURB_TICK`: one
//! velocity nudged at a tick, as a changed system would) is bisected to the
//! right tick, and the two sides' re-simulations name the entity, the
//! component type and the field with both values.
//!
//! Uses the workspace's debug demo binary beside this test's xtask binary
//! (`cargo test --workspace` builds it; `cargo build -p laige-demo` when
//! this test runs alone).

use std::path::{Path, PathBuf};
use std::process::Command;

const PERTURB: &str = "LAIGE_DEMO_PERTURB_TICK";

fn demo() -> PathBuf {
    let xtask = Path::new(env!("CARGO_BIN_EXE_xtask"));
    let demo = xtask.with_file_name(format!("laige-demo{}", std::env::consts::EXE_SUFFIX));
    assert!(
        demo.exists(),
        "{} is missing: build it first (cargo build -p laige-demo; cargo test --workspace does)",
        demo.display()
    );
    demo
}

fn record(demo: &Path, file: &Path, perturb: Option<&str>) {
    let mut c = Command::new(demo);
    c.args([
        "--unpaced",
        "--quiet",
        "--entities",
        "1000",
        "--ticks",
        "400",
        "--record",
    ])
    .arg(file)
    .env("RUST_LOG", "warn");
    if let Some(t) = perturb {
        c.env(PERTURB, t);
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_changed_system_is_bisected_to_its_tick_entity_and_field() {
    let demo = demo();
    let dir = std::env::temp_dir().join(format!("laige-replay-diff-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.lrp"), dir.join("b.lrp"));
    record(&demo, &a, None);
    record(&demo, &b, Some("300"));
    let run = |extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("replay-diff")
            .arg(&a)
            .arg(&b)
            .arg("--demo")
            .arg(&demo)
            .args(extra)
            .args(["--", "--entities", "1000"])
            .env("RUST_LOG", "warn")
            .output()
            .unwrap();
        (
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        )
    };
    let (ok, out) = run(&["--b-env", &format!("{PERTURB}=300")]);
    assert!(!ok, "{out}");
    // The nudge is inside tick 300 (completed count 300 → 301).
    assert!(
        out.contains(
            "first differ at tick 301 (tick 300 is equal); both hold the keyframe of tick 256"
        ),
        "{out}"
    );
    assert!(
        out.contains("from the keyframe of tick 256, 44 tick(s) re-simulated"),
        "{out}"
    );
    assert!(
        out.contains("tick 300: the two sides' states agree"),
        "{out}"
    );
    let field = out
        .lines()
        .find(|l| l.contains("field "))
        .unwrap_or_else(|| panic!("no field line: {out}"));
    // Velocity(Vec2): the tuple's field 0, its y; both values printed.
    assert!(
        field
            .trim_start()
            .starts_with("component demo.velocity, entity ")
            && field.contains(", field 0.y: "),
        "{field}"
    );
    let values = field
        .split_once("(values ")
        .and_then(|(_, v)| v.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no values: {field}"));
    let (va, vb) = values.split_once(" vs ").unwrap();
    assert_ne!(va, vb, "{field}");
    assert!(out.contains("the recordings diverge at tick 301"), "{out}");
    // Without the changed build on side B, that side does not reproduce
    // its own recording: said, not reported as a field.
    let (ok, out) = run(&[]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("side b: this build does not reproduce its own recording")
            && out.contains("diverged at tick 301"),
        "{out}"
    );
    assert!(!out.contains("field 0.y"), "{out}");
    // A recording against itself: nothing to report.
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["replay-diff"])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("every common checkpoint agrees"));
    let _ = std::fs::remove_dir_all(&dir);
}
