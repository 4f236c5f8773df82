//! `cargo xtask portability`: the builds a user on another platform gets.
//!
//! - `laige-engine --no-default-features`: the headless, simulation-only
//!   engine (no GL, no winit) builds and its library tests pass.
//! - `wasm32-unknown-unknown` (a browser): laige-core, laige-sim and the
//!   headless engine check with warnings denied; the clock reads
//!   `performance.now()` there through web-time, and the engine has no
//!   POSIX signals to handle. So does the browser run (the engine's `web`
//!   feature: winit's web backend, WebGL2) through the demo's page binary.

use std::process::Command;

use crate::run::cargo;

/// Runs one step, noting a failure and going on.
fn step(name: &str, cmd: Command, failed: &mut Vec<String>) -> anyhow::Result<()> {
    if !crate::run::step(name, cmd)? {
        failed.push(name.to_owned());
    }
    Ok(())
}

/// `cargo xtask portability`.
pub fn run() -> anyhow::Result<()> {
    let mut failed = Vec::new();
    let mut c = cargo();
    c.args([
        "test",
        "--lib",
        "-p",
        "laige-engine",
        "--no-default-features",
    ]);
    step(
        "laige-engine --no-default-features: lib tests",
        c,
        &mut failed,
    )?;

    // Warnings denied: code that only this target compiles is linted here.
    for (what, packages) in [
        (
            "laige-core, laige-sim",
            &["-p", "laige-core", "-p", "laige-sim"][..],
        ),
        (
            "the headless engine (no default features)",
            &["-p", "laige-engine", "--no-default-features"][..],
        ),
        (
            "the web run (the demo's page binary)",
            &[
                "-p",
                "laige-demo",
                "--no-default-features",
                "--features",
                "web",
                "--bin",
                "laige-demo-web",
            ][..],
        ),
    ] {
        let mut c = cargo();
        c.args(["check", "--target", "wasm32-unknown-unknown"]);
        c.args(packages);
        c.env("RUSTFLAGS", "-D warnings");
        step(&format!("wasm32-unknown-unknown: {what}"), c, &mut failed)?;
    }
    crate::finish(&failed)
}
