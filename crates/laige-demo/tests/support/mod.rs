//! What the demo-binary tests share: the binary's path and one way to run it.

use std::process::Command;

/// The demo binary built for this test run.
pub const DEMO: &str = env!("CARGO_BIN_EXE_laige-demo");

/// Runs the demo with `args` (warn-level logs) and returns (exit code,
/// stdout, stderr); a signal death reads as -1.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(DEMO)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the demo binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
