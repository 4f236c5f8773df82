//! Windowed smoke test of the demo under X11 (Xvfb + Mesa): the demo binary
//! opens its window, renders the swarm through the render thread, writes a
//! read-back of frame 30 (taken from the window's back buffer before the
//! swap), and a close request sent through the event loop proxy after 45
//! frames shuts it down in order with exit code 0.
//!
//! Checks: exit code 0 and the `window_closed` report; the shutdown events
//! in order (engine/shutdown → render_thread/thread_stopped →
//! engine/profiler_summary → engine/stopped); the screenshot shows the
//! sprites (thousands of pixels off the clear color) and the attractor (its
//! yellow drawn on top).
//!
//! `harness = false`, following `crates/laige-render/tests/gl_windowed.rs`:
//! display = the session's (`DISPLAY` / `WAYLAND_DISPLAY`), else a private
//! Xvfb started on a free display number (when the `Xvfb` binary is
//! installed); neither → one `SKIPPED` line and success, unless
//! `LAIGE_REQUIRE_DISPLAY=1` (CI), which makes it a failure.

#![allow(clippy::print_stdout, reason = "a harness-less test reports on stdout")]

mod display_support;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const DEMO: &str = env!("CARGO_BIN_EXE_laige-demo");
/// The demo's clear color ([0.06, 0.07, 0.10] × 255, rounded).
const CLEAR: [u8; 3] = [15, 18, 26];
/// The attractor's color ([1.0, 0.85, 0.2] × 255, rounded).
const ATTRACTOR: [u8; 3] = [255, 217, 51];

/// A binary PPM (P6): (width, height, RGB bytes).
fn read_ppm(path: &Path) -> Result<(usize, usize, Vec<u8>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while at < bytes.len() && !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(String::from_utf8_lossy(&bytes[start..at]).into_owned());
    }
    at += 1; // the single whitespace after maxval
    if fields[0] != "P6" || fields[3] != "255" {
        return Err(format!("not an 8-bit P6 PPM: {fields:?}"));
    }
    let w: usize = fields[1].parse().map_err(|_| "bad width")?;
    let h: usize = fields[2].parse().map_err(|_| "bad height")?;
    let data = bytes[at..].to_vec();
    if data.len() != w * h * 3 {
        return Err(format!("{} pixel bytes for {w}x{h}", data.len()));
    }
    Ok((w, h, data))
}

fn check(display: &str) -> Result<String, String> {
    let shot: PathBuf =
        std::env::temp_dir().join(format!("laige-demo-window-{}.ppm", std::process::id()));
    let out = Command::new(DEMO)
        .args([
            "--window",
            "--entities",
            "3000",
            "--close-after-frames",
            "45",
            "--screenshot",
            shot.to_str().ok_or("temp path")?,
            "--screenshot-frame",
            "30",
            "--quiet",
        ])
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "info")
        .output()
        .map_err(|e| format!("running the demo: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = || format!("\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    if out.status.code() != Some(0) {
        return Err(format!("exit status {:?}{}", out.status, context()));
    }
    if !stdout.contains("exit:       window_closed (code 0)") {
        return Err(format!("no window_closed report{}", context()));
    }
    let mut last = 0;
    for marker in [
        "event=started mode=\"windowed\"",
        "event=shutdown reason=\"window_closed\"",
        "event=thread_stopped",
        "event=profiler_summary",
        "event=stopped reason=\"window_closed\"",
    ] {
        let at = stderr[last..]
            .find(marker)
            .ok_or_else(|| format!("`{marker}` missing or out of order{}", context()))?;
        last += at;
    }
    let (w, h, rgb) = read_ppm(&shot)?;
    let _ = std::fs::remove_file(&shot);
    let pixels: Vec<[u8; 3]> = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    let corner = pixels[0];
    if corner != CLEAR {
        return Err(format!(
            "corner pixel {corner:?}, expected the clear color {CLEAR:?}"
        ));
    }
    let lit = pixels.iter().filter(|&&p| p != CLEAR).count();
    let yellow = pixels.iter().filter(|&&p| p == ATTRACTOR).count();
    // 3000 sprites of 8 units (≈2.9 px at 1280×720 over ±1008 units):
    // thousands of pixels; the attractor is a ≈9 px square on top.
    if lit < 3_000 {
        return Err(format!(
            "only {lit} pixels off the clear color in a {w}x{h} frame"
        ));
    }
    if yellow < 16 {
        return Err(format!("only {yellow} attractor pixels"));
    }
    Ok(format!(
        "demo_windowed: ok ({w}x{h} window, {lit} sprite pixels, {yellow} attractor pixels, closed through the proxy with code 0, shutdown in order)"
    ))
}

fn main() -> ExitCode {
    display_support::run_on_display("demo_windowed", 140..180, check)
}
