//! `cargo xtask portability`: the builds a user on another platform gets.
//!
//! - `laige-engine --no-default-features`: the headless, simulation-only
//!   engine (no GL, no winit) builds and its library tests pass.
//! - `wasm32-unknown-unknown` (a browser): laige-core, laige-sim and the
//!   headless engine check with warnings denied; the clock reads
//!   `performance.now()` there through web-time, and the engine has no
//!   POSIX signals to handle. So does the browser run (the engine's `web`
//!   feature: winit's web backend, WebGL2) through the demo's page binary
//!   and the engine's examples that have a page (`window` compiles nothing
//!   more there).
//! - macOS (`aarch64-apple-darwin`) and Windows with the MSVC ABI
//!   (`x86_64-pc-windows-msvc`): `cargo check --workspace` with the default
//!   features and warnings denied. No platform SDK is needed for a check
//!   (nothing in the default build compiles C or links), so every crate
//!   is checked; on Apple platforms the GL paths are compiled but return
//!   `Unsupported` (no context is made there yet).
//! - Windows with the GNU ABI (`x86_64-pc-windows-gnu`, MinGW-w64), run
//!   under Wine: the library tests of laige-sim and the headless engine,
//!   and the demo's window ([`crate::wine_window`]).

use std::process::Command;

use crate::run::cargo;
use crate::wine_window;

/// Targets checked without their platform's SDK, and what each is.
pub const SDK_FREE_CHECKS: [(&str, &str); 2] = [
    ("aarch64-apple-darwin", "macOS on Apple silicon"),
    ("x86_64-pc-windows-msvc", "Windows, MSVC ABI"),
];

/// Runs one step, noting a failure and going on.
fn step(name: &str, cmd: Command, failed: &mut Vec<String>) -> anyhow::Result<()> {
    if !crate::run::step(name, cmd)? {
        failed.push(name.to_owned());
    }
    Ok(())
}

/// Runs one in-process check, timed and printed like a step.
fn check(name: &str, f: impl FnOnce() -> anyhow::Result<String>, failed: &mut Vec<String>) {
    println!("\n==> {name}");
    let start = std::time::Instant::now();
    let outcome = f();
    let secs = start.elapsed().as_secs_f64();
    match outcome {
        Ok(summary) => println!("<== {name}: ok in {secs:.1} s: {summary}"),
        Err(e) => {
            println!("<== {name}: FAILED in {secs:.1} s: {e:#}");
            failed.push(name.to_owned());
        }
    }
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

    let mut c = cargo();
    c.args([
        "check",
        "--target",
        "wasm32-unknown-unknown",
        "-p",
        "laige-engine",
    ]);
    c.args([
        "--no-default-features",
        "--features",
        crate::web::WEB_EXAMPLE_FEATURES,
    ]);
    for example in crate::web::WEB_EXAMPLES {
        c.args(["--example", example]);
    }
    c.env("RUSTFLAGS", "-D warnings");
    step(
        "wasm32-unknown-unknown: the engine's examples that have a page",
        c,
        &mut failed,
    )?;

    for (triple, what) in SDK_FREE_CHECKS {
        let mut c = cargo();
        c.args(["check", "--workspace", "--target", triple]);
        c.env("RUSTFLAGS", "-D warnings");
        step(
            &format!("{triple} ({what}): cargo check --workspace"),
            c,
            &mut failed,
        )?;
    }

    let triple = wine_window::TRIPLE;
    let mut c = cargo();
    c.args(["test", "--lib", "--target", triple]);
    c.args([
        "-p",
        "laige-sim",
        "-p",
        "laige-engine",
        "--no-default-features",
    ]);
    step(
        &format!("{triple} under Wine: laige-sim and headless laige-engine lib tests"),
        c,
        &mut failed,
    )?;
    step(
        &format!("{triple}: build laige-demo"),
        wine_window::build_command(),
        &mut failed,
    )?;
    check(
        &format!("{triple} under Wine on Xvfb: laige-demo --window, screenshot checked"),
        wine_window::windowed,
        &mut failed,
    );
    check(
        &format!("{triple} under Wine, no display: laige-demo --window fails cleanly"),
        wine_window::without_display,
        &mut failed,
    );
    crate::finish(&failed)
}
