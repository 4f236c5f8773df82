//! `cargo xtask portability`: the builds a user on another platform gets.
//!
//! - `laige-engine --no-default-features`: the headless, simulation-only
//!   engine (no GL, no winit) builds and its library tests pass.
//! - `wasm32-unknown-unknown` (a browser): laige-core and laige-sim check;
//!   their clock reads `performance.now()` there through web-time.

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

    let mut c = cargo();
    c.args([
        "check",
        "--target",
        "wasm32-unknown-unknown",
        "-p",
        "laige-core",
        "-p",
        "laige-sim",
    ]);
    step(
        "wasm32-unknown-unknown: laige-core, laige-sim",
        c,
        &mut failed,
    )?;
    crate::finish(&failed)
}
