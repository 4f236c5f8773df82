//! Running cargo and the test/ci/bench steps.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits inside the workspace")
        .to_path_buf()
}

/// `cargo` (the one running xtask), in the workspace root.
pub(crate) fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// Runs one named step, timing it; returns whether it passed.
pub(crate) fn step(name: &str, mut cmd: Command) -> anyhow::Result<bool> {
    println!("\n==> {name}");
    let start = Instant::now();
    let status = cmd.status().with_context(|| format!("starting `{name}`"))?;
    println!(
        "<== {name}: {} in {:.1} s",
        if status.success() { "ok" } else { "FAILED" },
        start.elapsed().as_secs_f64()
    );
    Ok(status.success())
}

/// Test files matching `pred` under `crates/*/tests/`: (package, test name).
fn test_targets(pred: impl Fn(&str, &str) -> bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(crates) = std::fs::read_dir(root().join("crates")) else {
        return out;
    };
    for krate in crates.flatten() {
        let pkg = krate.file_name().to_string_lossy().into_owned();
        let Ok(tests) = std::fs::read_dir(krate.path().join("tests")) else {
            continue;
        };
        for t in tests.flatten() {
            let path = t.path();
            if path.extension().is_some_and(|e| e == "rs") {
                let name = path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if pred(&name, &text) {
                    out.push((pkg.clone(), name));
                }
            }
        }
    }
    out.sort();
    out
}

/// The examples of `crates/laige-engine/examples` that `cargo xtask test`
/// runs (every one of them: the test below keeps the list complete).
pub const ENGINE_EXAMPLES: [&str; 6] = [
    "pong",
    "record_replay",
    "headless_server",
    "custom_pass",
    "snake",
    "billiards",
];

/// The examples of `crates/laige-net/examples`, run the same way (each
/// exits non-zero when its peers disagree).
pub const NET_EXAMPLES: [&str; 1] = ["two_peers"];

/// The examples that also run windowed: under `xvfb-run` (a private X
/// server) with `--window --screenshot PATH`, each reads its frame 30 back
/// and exits non-zero when the pixels it must show are not there.
pub const WINDOWED_EXAMPLES: [&str; 3] = ["pong", "custom_pass", "billiards"];

/// The dependencies that are code under test, built like the workspace
/// crates wherever the other dependencies are not optimized: `libm`
/// (`Fp32Pinned`'s functions; its `sincosf` is the known
/// optimizer-dependent defect, wrong on s390x at opt-levels 1 and 3).
pub const OPTIMIZED_DEPS: &[&str] = &["libm"];

/// `--config` arguments that build every dependency of `profile` at
/// opt-level 0 but [`OPTIMIZED_DEPS`] (at 3), so the optimizer's time goes
/// to the code under test: the workspace crates (which `"*"` does not
/// match) and those keep the profile's level, its debug assertions and
/// overflow checks. The rest are the test tools (proptest, insta,
/// serde_json, the tracing crates, serde) and, for laige-render, the window
/// and GL stack its handoff stress test never calls (nearly all of that
/// heavy step's time was building them optimized: 218 of 229 s).
pub fn unoptimized_deps_config(profile: &str) -> Vec<String> {
    let mut out = vec![
        "--config".to_owned(),
        format!(r#"profile.{profile}.package."*".opt-level=0"#),
    ];
    for dep in OPTIMIZED_DEPS {
        out.push("--config".to_owned());
        out.push(format!("profile.{profile}.package.{dep}.opt-level=3"));
    }
    out
}

/// The features the workspace suite turns on beyond the defaults: the
/// WebRTC transport of laige-net and the demo's `--net webrtc`, and
/// laige-testkit's signaling server (the `laige-signaling` binary of the
/// browser's WebRTC step, built here with the demo it plays against), and
/// laige-bench's WebRTC-beside-UDP figures (compiled and linted here).
pub(crate) const WEBRTC: &str =
    "laige-net/webrtc,laige-demo/webrtc,laige-testkit/signaling,laige-bench/webrtc";

/// The workspace suite's features: [`WEBRTC`] and the engine's `physics`
/// (billiards needs it), so that the examples and binaries
/// ([`SuiteBinaries`]) are built on the suite's libraries.
pub(crate) const SUITE_FEATURES: &str =
    "laige-net/webrtc,laige-demo/webrtc,laige-testkit/signaling,laige-engine/physics";

/// The first line of a test file's `//!` doc comment (what it checks).
fn test_summary(pkg: &str, test: &str) -> String {
    let path = root()
        .join("crates")
        .join(pkg)
        .join("tests")
        .join(format!("{test}.rs"));
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("//! "))
        .unwrap_or("")
        .to_owned()
}

/// `cargo xtask test`: every test the project has.
pub fn test() -> anyhow::Result<()> {
    let mut failed = Vec::new();

    // 1. The whole workspace suite (debug): unit, integration, doc tests,
    //    with the engine's `physics` (the examples' feature: they are
    //    built on these libraries below) and the `webrtc` feature of
    //    laige-net and the demo on, so that
    //    their sessions over real WebRTC on loopback (`net_webrtc`,
    //    `demo_webrtc`, a signaling server in the test process) run in the
    //    same build instead of a second build of the crates above laige-net.
    let mut c = cargo();
    c.args([
        "test",
        "--workspace",
        "--all-targets",
        "--features",
        SUITE_FEATURES,
    ]);
    if !step("cargo test --workspace (webrtc feature on)", c)? {
        failed.push("workspace tests".to_owned());
    }
    let mut c = cargo();
    c.args(["test", "--workspace", "--doc", "--features", SUITE_FEATURES]);
    if !step("cargo test --workspace --doc", c)? {
        failed.push("doc tests".to_owned());
    }

    // 1b. The examples, each run to completion (headless: they bound their
    //     own runs and exit 0 only when their checks hold), then windowed;
    //     built on the workspace suite's libraries (`SuiteBinaries`).
    let bins = SuiteBinaries::build();
    if let Err(e) = &bins {
        println!("<== binaries and examples: FAILED: {e:#}");
        failed.push("examples build".to_owned());
    }
    let binary = |name: &str| bins.as_ref().ok().and_then(|b| b.get(name).ok());
    for example in ENGINE_EXAMPLES.iter().chain(&NET_EXAMPLES) {
        let Some(exe) = binary(example) else {
            println!("<== example {example}: FAILED: not built");
            failed.push(format!("example {example}"));
            continue;
        };
        let mut c = Command::new(exe);
        c.current_dir(root());
        if !step(&format!("example {example}"), c)? {
            failed.push(format!("example {example}"));
        }
    }

    // 1c. The windowed examples under Xvfb, each checking its screenshot.
    let shots = root().join("target/example-screenshots");
    let _ = std::fs::create_dir_all(&shots);
    let have_xvfb = Command::new("xvfb-run")
        .arg("--help")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    for example in WINDOWED_EXAMPLES {
        if !have_xvfb {
            if std::env::var("LAIGE_REQUIRE_DISPLAY").as_deref() == Ok("1") {
                println!("<== windowed example {example}: FAILED: no xvfb-run");
                failed.push(format!("windowed example {example}"));
            } else {
                println!("SKIPPED: windowed example {example}: no xvfb-run");
            }
            continue;
        }
        let Some(exe) = binary(example) else {
            println!("<== windowed example {example}: FAILED: not built");
            failed.push(format!("windowed example {example}"));
            continue;
        };
        let shot = shots.join(format!("{example}.ppm"));
        let mut c = Command::new("xvfb-run");
        c.current_dir(root());
        c.args(["-a", "-s", "-screen 0 1280x800x24"]);
        c.arg(exe);
        c.args(["--window", "--screenshot"]);
        c.arg(&shot);
        if !step(
            &format!("windowed example {example} (xvfb-run, screenshot checked)"),
            c,
        )? {
            failed.push(format!("windowed example {example}"));
        }
    }

    // The `trace` feature's spans: compiled, linted and checked (the
    //    workspace suite builds without them).
    let mut c = cargo();
    c.args([
        "clippy",
        "-p",
        "laige-engine",
        "--features",
        "trace",
        "--",
        "-D",
        "warnings",
    ]);
    if !step("trace feature: clippy laige-engine --features trace", c)? {
        failed.push("trace clippy".to_owned());
    }
    let mut c = cargo();
    c.args([
        "test",
        "-p",
        "laige-sim",
        "--features",
        "trace",
        "--test",
        "trace_spans",
    ]);
    if !step("trace feature: the spans a tick opens", c)? {
        failed.push("trace spans".to_owned());
    }

    // The `webrtc` feature of laige-net and the demo (off by default; its
    //    tests ran in step 1): linted.
    let mut c = cargo();
    c.args([
        "clippy",
        "-p",
        "laige-net",
        "-p",
        "laige-demo",
        "-p",
        "laige-testkit",
        "-p",
        "laige-bench",
        "--all-targets",
    ]);
    c.args(["--features", WEBRTC, "--", "-D", "warnings"]);
    if !step(
        "webrtc feature: clippy laige-net, laige-demo, laige-testkit, laige-bench",
        c,
    )? {
        failed.push("webrtc clippy".to_owned());
    }

    // 2. Heavy tests (exhaustive math, 10M-frame stress): `#[ignore = "heavy..."]`,
    //    run in the optimized `test-opt` profile.
    //    One step per test file, each saying what it checks (the first
    //    line of its doc comment), so a long step is never a silent one.
    let heavy = test_targets(|_, text| text.contains("#[ignore = \"heavy"));
    for (k, (pkg, t)) in heavy.iter().enumerate() {
        let mut c = cargo();
        c.args(["test", "--profile", "test-opt", "-p", pkg, "--test", t]);
        c.args(unoptimized_deps_config("test-opt"));
        c.args(["--", "--ignored"]);
        let what = test_summary(pkg, t);
        let name = format!(
            "heavy {}/{} (test-opt): {pkg}/{t}: {what}",
            k + 1,
            heavy.len()
        );
        if !step(&name, c)? {
            failed.push(format!("heavy {t}"));
        }
    }

    // 3. Loom models: test files whose name contains `loom`, built with
    //    `--cfg loom` in their own target dir.
    for (pkg, t) in test_targets(|name, _| name.contains("loom")) {
        let mut c = cargo();
        // Without default features: the models check the concurrent core
        // (handoff, rate limiter), and the GL/winit stack compiled under
        // `--cfg loom` would only cost minutes.
        c.args([
            "test",
            "--release",
            "--no-default-features",
            "-p",
            &pkg,
            "--test",
            &t,
        ]);
        c.env("RUSTFLAGS", "--cfg loom");
        c.env("CARGO_TARGET_DIR", root().join("target/loom"));
        if !step(&format!("loom: {pkg}/{t}"), c)? {
            failed.push(format!("loom {t}"));
        }
    }

    // 4. Repo-wide checks.
    println!("\n==> lint (crate edges, determinism)");
    if let Err(e) = crate::lint::run(&crate::lint::Args::default()) {
        println!("<== lint: FAILED: {e:#}");
        failed.push("lint".to_owned());
    }

    // 4b. Two machines, one simulation: an x86_64 and an aarch64 (QEMU)
    //     demo peer over loopback agree on every confirmed tick.
    println!("\n==> net-cross (x86_64 vs aarch64 demo peers)");
    if let Err(e) = crate::net_cross::run() {
        println!("<== net-cross: FAILED: {e:#}");
        failed.push("net-cross".to_owned());
    }

    // 4c. The browser: the demo's page in headless Chromium runs 300+
    //     frames of the 10k swarm on WebGL2 without a console error, and
    //     its state hash at tick 300 equals the native demo's; then pages
    //     and a native peer in WebRTC sessions (webrtc-test.mjs).
    println!("\n==> web (the demo page in headless Chromium)");
    match crate::web::demo_test() {
        Ok(true) => {}
        Ok(false) => failed.push("web demo".to_owned()),
        Err(e) => {
            println!("<== web: FAILED: {e:#}");
            failed.push("web demo".to_owned());
        }
    }

    // 5. detcheck: the full build matrix, both backends, known answers
    //    (CI runs the full matrix on every push).
    println!("\n==> detcheck (full matrix)");
    if let Err(e) = crate::detcheck::run(&crate::detcheck::Args::default()) {
        println!("<== detcheck: FAILED: {e:#}");
        failed.push("detcheck".to_owned());
    }

    crate::finish(&failed)
}

/// The workspace's binaries and examples, built (debug) with
/// [`SUITE_FEATURES`]: after the workspace suite, whose build made their
/// libraries, only the examples are left to compile and link. `cargo run
/// -p` instead resolves features for one package and builds laige-engine,
/// laige-net and the demo over again.
pub(crate) struct SuiteBinaries(Vec<(String, PathBuf)>);

impl SuiteBinaries {
    /// Builds them (the step's time printed).
    pub(crate) fn build() -> anyhow::Result<Self> {
        println!("\n==> cargo build --workspace --bins --examples --features {SUITE_FEATURES}");
        let start = Instant::now();
        let mut c = cargo();
        c.args(["build", "--workspace", "--bins", "--examples"]);
        c.args(["--features", SUITE_FEATURES]);
        c.arg("--message-format=json-render-diagnostics");
        c.stderr(std::process::Stdio::inherit());
        let out = c.output().context("building the binaries and examples")?;
        println!(
            "<== binaries and examples: {} in {:.1} s",
            if out.status.success() { "ok" } else { "FAILED" },
            start.elapsed().as_secs_f64()
        );
        if !out.status.success() {
            bail!("building the workspace's binaries and examples failed");
        }
        Ok(Self(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter(|m| {
                    matches!(m["target"]["kind"][0].as_str(), Some("bin" | "example"))
                        && m["profile"]["test"] == false
                })
                .filter_map(|m| {
                    Some((
                        m["target"]["name"].as_str()?.to_owned(),
                        PathBuf::from(m["executable"].as_str()?),
                    ))
                })
                .collect(),
        ))
    }

    /// The executable of binary or example `name`.
    pub(crate) fn get(&self, name: &str) -> anyhow::Result<&Path> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_path())
            .with_context(|| format!("no `{name}` among the workspace's binaries and examples"))
    }
}

/// `cargo xtask ci`: formatting, clippy, then every test.
pub fn ci() -> anyhow::Result<()> {
    let mut failed = Vec::new();
    let mut c = cargo();
    c.args(["fmt", "--all", "--check"]);
    if !step("cargo fmt --check", c)? {
        failed.push("fmt".to_owned());
    }
    let mut c = cargo();
    c.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]);
    if !step("cargo clippy", c)? {
        failed.push("clippy".to_owned());
    }
    if let Err(e) = test() {
        println!("{e:#}");
        failed.push("test".to_owned());
    }
    crate::finish(&failed)
}

/// `cargo xtask bench`: build and run `laige-bench` in release.
pub fn bench(trace: bool, args: &[String]) -> anyhow::Result<()> {
    // The `web` area measures the pages: build both sites first.
    if wants_area(args, "web") {
        crate::web::build_variant(crate::web::Simd::Off)?;
        crate::web::build_variant(crate::web::Simd::On)?;
    }
    let mut c = cargo();
    c.args(["run", "--release", "--quiet", "-p", "laige-bench"]);
    if trace {
        c.args(["--features", "trace"]);
    }
    // The `net` area's WebRTC figures need the WebRTC stack.
    if wants_area(args, "net") {
        c.args(["--features", "webrtc"]);
    }
    c.arg("--");
    c.args(args);
    let status = c.status().context("starting laige-bench")?;
    if !status.success() {
        bail!("bench failed (a budget was exceeded or the run failed)");
    }
    Ok(())
}

/// Whether laige-bench's `args` select `area`: no filter (every area), or
/// a filter naming part of it or a metric inside it (`web.tick`).
fn wants_area(args: &[String], area: &str) -> bool {
    // laige-bench's options that take a value (the next argument).
    const VALUED: [&str; 5] = ["--out", "--svg", "--baseline", "--budgets", "--vector-unit"];
    let mut filters = Vec::new();
    let mut skip = false;
    for a in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        if VALUED.contains(&a.as_str()) {
            skip = true;
        } else if !a.starts_with('-') {
            filters.push(a.as_str());
        }
    }
    filters.is_empty()
        || filters
            .iter()
            .any(|f| area.contains(f) || f.starts_with(area))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_area_is_built_for_only_when_selected() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(wants_area(&args(&[]), "web"));
        assert!(wants_area(&args(&["--quick"]), "web"));
        assert!(wants_area(&args(&["--quick", "web"]), "web"));
        assert!(wants_area(&args(&["web.tick"]), "web"));
        assert!(!wants_area(&args(&["math"]), "web"));
        assert!(!wants_area(&args(&["--baseline", "web", "math"]), "web"));
    }

    #[test]
    fn every_example_is_run_by_the_test_command() {
        for (krate, list) in [
            ("laige-engine", &ENGINE_EXAMPLES[..]),
            ("laige-net", &NET_EXAMPLES[..]),
        ] {
            let dir = root().join("crates").join(krate).join("examples");
            let mut found: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| {
                    let name = e.ok()?.file_name().into_string().ok()?;
                    name.strip_suffix(".rs").map(str::to_owned)
                })
                .collect();
            found.sort();
            let mut listed: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
            listed.sort();
            assert_eq!(found, listed, "crates/{krate}/examples vs the list run");
        }
        assert!(
            WINDOWED_EXAMPLES
                .iter()
                .all(|w| ENGINE_EXAMPLES.contains(w)),
            "every windowed example is an engine example"
        );
    }
}
