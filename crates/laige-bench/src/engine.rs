//! Bench area `engine`: how fast the engine starts, and how many frames
//! per second the demo game sustains through the whole GL pipeline.
//!
//! - `engine.startup.headless_first_tick_ms` (median of 5, ms): from
//!   spawning the demo binary (`laige-demo --frames 3 --unpaced
//!   --mark-startup`, 10k sprites) to its `laige-demo: first tick` line on
//!   stdout — process start, config, world setup (10k entities spawned),
//!   the loop's start and one tick, plus the pipe.
//! - `engine.startup.windowed_first_present_ms` (median of 3, ms): from
//!   spawning `laige-demo --window --mark-startup` to its `laige-demo: first
//!   frame presented` line — the above plus the X11 window, the GL context
//!   (GLX on Mesa), the render thread's take-over, the first draw and swap.
//!   Needs an X display: the session's, or a private Xvfb this area starts;
//!   without either it is skipped with a note.
//! - `engine.demo_fps.gl_10k` / `gl_100k` (frames/s): the demo game run
//!   in-process, unpaced, with the GL pipeline on a 1280×720 headless EGL
//!   context: *frames presented* (rendered by the render thread) per second
//!   of wall time, over 300 frames (60 in quick mode) — the pipeline's
//!   sustained presentation rate: simulation, sprite build, handoff, cull +
//!   batch, draw. On CI the GL is Mesa's llvmpipe, a software rasterizer
//!   sharing the machine's cores with the simulation. `.sim_fps` beside it
//!   is the loop's frame rate (equal, since nothing is dropped). Skipped
//!   with a note without EGL.
//!
//! The demo binary is the release build next to this bench binary
//! (`target/release/laige-demo`), brought up to date first (`cargo build
//! --release -p laige-demo`) when the bench runs under cargo.
//!
//! The fps runs are unpaced: frames on virtual time, each published once the
//! renderer finished the previous one (so `sim_fps` equals the presented
//! rate and nothing is dropped); the simulation's ticks of frame k+1 overlap
//! the drawing of frame k.

#![allow(
    clippy::cast_precision_loss,
    reason = "figures in a report: u64 counts and ns to f64"
)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use laige_demo::Demo;
use laige_engine::{
    Engine, EngineConfig, EngineOptions, ErrorCode, HeadlessRender, Pacing, RunLimit,
};

use crate::harness::{Bench, Stats};

/// Runs the area.
pub fn run(b: &mut Bench) {
    match demo_binary() {
        Ok(demo) => {
            if b.wants("engine.startup.headless_first_tick_ms") {
                headless_startup(b, &demo);
            }
            if b.wants("engine.startup.windowed_first_present_ms") {
                windowed_startup(b, &demo);
            }
        }
        Err(e) => eprintln!("engine: startup figures skipped: {e}"),
    }
    for (name, entities) in [("gl_10k", 10_000), ("gl_100k", 100_000)] {
        if b.wants(&format!("engine.demo_fps.{name}")) {
            demo_fps(b, name, entities);
        }
    }
}

/// The release demo binary beside this one, (re)built first when the
/// bench runs under cargo (`cargo xtask bench` → `cargo run`, which sets
/// `CARGO`): a no-op when it is up to date, and never a stale binary.
fn demo_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().ok_or("the bench binary has no directory")?;
    let demo = dir.join(format!("laige-demo{}", std::env::consts::EXE_SUFFIX));
    if let Ok(cargo) = std::env::var("CARGO") {
        let status = Command::new(cargo)
            .args(["build", "--release", "--quiet", "-p", "laige-demo"])
            .status()
            .map_err(|e| format!("running cargo: {e}"))?;
        if !status.success() {
            return Err("cargo build --release -p laige-demo failed".to_owned());
        }
    }
    if demo.exists() {
        Ok(demo)
    } else {
        Err(format!(
            "{} is missing (run through `cargo xtask bench`, or build it with `cargo build --release -p laige-demo`)",
            demo.display()
        ))
    }
}

/// Spawns `demo args` and returns the ms until a stdout line equal to
/// `marker`; the child is then waited for (it ends by itself).
fn time_to_line(
    demo: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    marker: &str,
) -> Result<f64, String> {
    let t0 = Instant::now();
    let mut cmd = Command::new(demo);
    cmd.args(args)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(|e| format!("spawning the demo: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut seen = None;
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        if seen.is_none() && line == marker {
            seen = Some(t0.elapsed());
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    match (seen, status.success()) {
        (Some(t), true) => Ok(t.as_secs_f64() * 1e3),
        (None, _) => Err(format!("no `{marker}` line (exit {status})")),
        (Some(_), false) => Err(format!("the demo failed: {status}")),
    }
}

fn headless_startup(b: &mut Bench, demo: &Path) {
    let args = ["--frames", "3", "--unpaced", "--quiet", "--mark-startup"];
    let mut samples = Vec::new();
    for _ in 0..if b.quick() { 3 } else { 5 } {
        match time_to_line(demo, &args, &[], "laige-demo: first tick") {
            Ok(ms) => samples.push(ms),
            Err(e) => {
                eprintln!("engine: headless startup skipped: {e}");
                return;
            }
        }
    }
    let stats = Stats::of(&mut samples);
    b.record("engine.startup.headless_first_tick_ms", stats.median, "ms");
}

fn windowed_startup(b: &mut Bench, demo: &Path) {
    let session = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
    let (xvfb, display) = match session {
        Some(d) => (None, d),
        None => match laige_testkit::PrivateXvfb::start(180..220, "1280x800x24") {
            Some(x) => {
                let d = x.display().to_owned();
                (Some(x), d)
            }
            None => {
                eprintln!(
                    "engine: engine.startup.windowed_first_present_ms skipped: no X display and no Xvfb to start (install xvfb)"
                );
                return;
            }
        },
    };
    let args = [
        "--window",
        "--quiet",
        "--mark-startup",
        "--close-after-frames",
        "5",
    ];
    let mut samples = Vec::new();
    let mut failure = None;
    for _ in 0..3 {
        match time_to_line(
            demo,
            &args,
            &[("DISPLAY", display.as_str())],
            "laige-demo: first frame presented",
        ) {
            Ok(ms) => samples.push(ms),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    drop(xvfb);
    match failure {
        Some(e) => eprintln!("engine: windowed startup skipped: {e}"),
        None => {
            let stats = Stats::of(&mut samples);
            b.record(
                "engine.startup.windowed_first_present_ms",
                stats.median,
                "ms",
            );
        }
    }
}

fn demo_fps(b: &mut Bench, name: &str, entities: u32) {
    let frames: u64 = if b.quick() { 60 } else { 300 };
    let config = EngineConfig::default();
    let options = EngineOptions {
        pacing: Pacing::Unpaced,
        handle_ctrl_c: false,
        headless_render: HeadlessRender::Gl {
            width: config.render.window_width,
            height: config.render.window_height,
        },
        sprite_capacity: entities as usize + 1,
        ..EngineOptions::default()
    };
    let game = Demo {
        entities,
        progress_every_frames: 0,
        mark_first_tick: false,
        ..Demo::default()
    };
    let script = laige_demo::headless_script(frames.div_ceil(60), config.game_loop.tick_rate_hz);
    let run = Engine::builder()
        .game(game)
        .config(config)
        .options(options)
        .scripted_input(script)
        .build()
        .and_then(|e| e.run_headless(RunLimit::Frames(frames)));
    match run {
        Ok(report) if report.exit_code() == 0 => {
            let secs = report.wall_ns as f64 / 1e9;
            b.record(
                &format!("engine.demo_fps.{name}"),
                report.frames_rendered as f64 / secs,
                "fps",
            );
            b.record(
                &format!("engine.demo_fps.{name}.sim_fps"),
                report.frames as f64 / secs,
                "fps",
            );
        }
        Ok(report) => eprintln!("engine: demo_fps.{name} failed: {}", report.exit),
        Err(e) if e.code() == ErrorCode::Unsupported => {
            eprintln!("engine: engine.demo_fps.{name} skipped: no usable EGL ({e})");
        }
        Err(e) => eprintln!("engine: demo_fps.{name} failed: {e}"),
    }
}
