//! The Windows build of the demo under Wine (`cargo xtask portability`).
//!
//! - On a private X server (`xvfb-run`), the demo built for
//!   `x86_64-pc-windows-gnu` opens its window through Wine's WGL (Wine
//!   hands it to the host's GLX, Mesa's llvmpipe), renders 3 000 sprites,
//!   reads frame 30 back and closes after 45 frames: exit code 0, the
//!   `window_closed` report, the shutdown events in order, and a
//!   screenshot showing the sprites (thousands of pixels off the clear
//!   color) and the attractor (its yellow on top).
//! - With no display, Wine opens no window: the demo ends at once with
//!   `gl_context/create_failed` and the engine's setup-failure exit code 1
//!   (no window or GL context: the run never began), never a hang or a
//!   panic.
//!
//! Each run is bounded by `timeout`, which ends the Windows process itself
//! (under Wine it is the Unix process the runner execs).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};

use crate::run::root;

/// The Windows target the demo is built for.
pub const TRIPLE: &str = "x86_64-pc-windows-gnu";
/// The demo's clear color ([0.06, 0.07, 0.10] × 255, rounded).
const CLEAR: [u8; 3] = [15, 18, 26];
/// The attractor's color ([1.0, 0.85, 0.2] × 255, rounded).
const ATTRACTOR: [u8; 3] = [255, 217, 51];
/// Seconds a run may take (Wine's start included) before it counts as hung.
const RUN_LIMIT_S: &str = "120";

/// `cargo build` of the demo for [`TRIPLE`] (the debug profile, in the
/// ordinary target directory).
pub fn build_command() -> Command {
    let mut c = crate::run::cargo();
    c.args(["build", "-p", "laige-demo", "--bin", "laige-demo"]);
    c.args(["--target", TRIPLE]);
    c
}

/// The binary [`build_command`] makes.
fn demo_exe() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), PathBuf::from)
        .join(TRIPLE)
        .join("debug/laige-demo.exe")
}

/// `timeout` over the demo through the target's runner (Wine), with `args`.
fn demo_under_wine(args: &[&str]) -> anyhow::Result<Command> {
    let runner = crate::detcheck::runner(TRIPLE)?
        .with_context(|| format!(".cargo/config.toml names no runner for {TRIPLE}"))?;
    let mut c = Command::new("timeout");
    c.args(["-k", "5", RUN_LIMIT_S]);
    c.args(&runner).arg(demo_exe()).args(args);
    c.current_dir(root());
    Ok(c)
}

/// stdout and stderr of a run, for a failure's message.
fn context(out: &std::process::Output) -> String {
    format!(
        "\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The windowed run on Xvfb, its report and its screenshot (module docs);
/// a one-line summary.
pub fn windowed() -> anyhow::Result<String> {
    let shot = root().join("target").join(format!("{TRIPLE}-window.ppm"));
    let _ = std::fs::remove_file(&shot);
    let inner = demo_under_wine(&[
        "--window",
        "--entities",
        "3000",
        "--close-after-frames",
        "45",
        "--screenshot",
        shot.to_str().context("the screenshot path is not UTF-8")?,
        "--screenshot-frame",
        "30",
        "--quiet",
    ])?;
    let mut c = Command::new("xvfb-run");
    c.args(["-a", "-s", "-screen 0 1280x800x24"]);
    c.arg(inner.get_program()).args(inner.get_args());
    c.current_dir(root()).env("RUST_LOG", "info");
    let out = c.output().context("starting xvfb-run")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        out.status.code() == Some(0),
        "exit status {}{}",
        out.status,
        context(&out)
    );
    ensure!(
        stdout.contains("exit:       window_closed (code 0)"),
        "no window_closed report{}",
        context(&out)
    );
    let mut last = 0;
    for marker in [
        "event=started mode=\"windowed\"",
        "event=shutdown reason=\"window_closed\"",
        "event=thread_stopped",
        "event=profiler_summary",
        "event=stopped reason=\"window_closed\"",
    ] {
        let Some(at) = stderr[last..].find(marker) else {
            bail!("`{marker}` missing or out of order{}", context(&out));
        };
        last += at;
    }
    let (w, h, rgb) = read_ppm(&shot)?;
    let pixels: Vec<[u8; 3]> = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    ensure!(
        pixels.first() == Some(&CLEAR),
        "corner pixel {:?}, expected the clear color {CLEAR:?}",
        pixels.first()
    );
    let lit = pixels.iter().filter(|&&p| p != CLEAR).count();
    let yellow = pixels.iter().filter(|&&p| p == ATTRACTOR).count();
    // 3000 sprites of ≈3 px: thousands of pixels; the attractor is a ≈9 px
    // square on top.
    ensure!(
        lit >= 3_000,
        "only {lit} pixels off the clear color in a {w}x{h} frame"
    );
    ensure!(yellow >= 16, "only {yellow} attractor pixels");
    Ok(format!(
        "{w}x{h} window, {lit} sprite pixels, {yellow} attractor pixels, closed after 45 frames with code 0 ({})",
        shot.display()
    ))
}

/// The run without a display (module docs); a one-line summary.
pub fn without_display() -> anyhow::Result<String> {
    let mut c = demo_under_wine(&["--window", "--close-after-frames", "10"])?;
    c.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    let out = c.output().context("starting the demo under Wine")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !stderr.contains("panicked"),
        "the demo panicked{}",
        context(&out)
    );
    ensure!(
        out.status.code() == Some(1),
        "exit status {} (1 expected: no window, the run never began; 124 is a hang){}",
        out.status,
        context(&out)
    );
    let Some(line) = stderr
        .lines()
        .find(|l| l.starts_with("laige-demo: gl_context/create_failed"))
    else {
        bail!("no gl_context/create_failed line{}", context(&out));
    };
    Ok(format!("exit code 1: {line}"))
}

/// A binary PPM (P6): (width, height, RGB bytes).
fn read_ppm(path: &Path) -> anyhow::Result<(usize, usize, Vec<u8>)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let start = at;
        while bytes.get(at).is_some_and(|b| !b.is_ascii_whitespace()) {
            at += 1;
        }
        ensure!(at > start, "{} ends inside its header", path.display());
        fields.push(String::from_utf8_lossy(&bytes[start..at]).into_owned());
    }
    // The single whitespace after maxval.
    at += 1;
    ensure!(
        fields[0] == "P6" && fields[3] == "255",
        "{} is not an 8-bit P6 PPM: {fields:?}",
        path.display()
    );
    let w: usize = fields[1].parse().context("the PPM's width")?;
    let h: usize = fields[2].parse().context("the PPM's height")?;
    let data = bytes.get(at..).unwrap_or_default().to_vec();
    ensure!(
        data.len() == w * h * 3,
        "{} pixel bytes for {w}x{h}",
        data.len()
    );
    Ok((w, h, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ppm_is_read_and_a_torn_one_refused() {
        let dir = std::env::temp_dir().join(format!("xtask-ppm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.ppm");
        std::fs::write(&good, b"P6\n2 1\n255\n\x0f\x12\x1a\xff\xd9\x33").unwrap();
        let (w, h, rgb) = read_ppm(&good).unwrap();
        assert_eq!((w, h), (2, 1));
        assert_eq!(rgb[..3], CLEAR);
        assert_eq!(rgb[3..], ATTRACTOR);
        let torn = dir.join("torn.ppm");
        std::fs::write(&torn, b"P6\n2 1\n255\n\x0f\x12").unwrap();
        assert!(read_ppm(&torn).is_err());
        let header = dir.join("header.ppm");
        std::fs::write(&header, b"P6\n2").unwrap();
        assert!(read_ppm(&header).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_demo_runs_through_the_configured_wine_runner() {
        let c = demo_under_wine(&["--window"]).unwrap();
        let args: Vec<_> = c.get_args().map(|a| a.to_string_lossy()).collect();
        assert_eq!(c.get_program(), "timeout");
        assert!(args.iter().any(|a| a.ends_with("wine-run.sh")), "{args:?}");
        assert!(
            args.iter()
                .any(|a| a.ends_with("x86_64-pc-windows-gnu/debug/laige-demo.exe")),
            "{args:?}"
        );
        assert_eq!(args.last().map(|a| a.as_ref()), Some("--window"));
    }
}
