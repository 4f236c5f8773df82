//! The demo in a window that is resized through winit's request (X11:
//! Xvfb + Mesa): the window opens at 1280 × 720, the engine asks for
//! 960 × 720 after frame 30 (`EngineOptions::resize_request`, winit's
//! `Window::request_inner_size`), and frame 150 is read back from the
//! resized window's back buffer.
//!
//! Checks: the capture is 960 × 720 (the surface followed the window);
//! the world keeps its 16:9 aspect with black letterbox bars of 90 px
//! above and below (every pixel of the bottom bar, and of the top bar right
//! of the HUD, is the bar colour); the swarm and the attractor are drawn
//! between the bars; the HUD stays anchored at the window's new top-left
//! corner and reads `tick …` glyph for glyph. The capture is copied to
//! `LAIGE_SCREENSHOT_DIR` when that is set.
//!
//! `harness = false`: winit's event loop must own the main thread of its
//! process, so the test re-runs itself as the windowed child (with the
//! display in its environment) and checks what the child wrote. Display:
//! the session's, else a private Xvfb; neither → one `SKIPPED` line, or a
//! failure with `LAIGE_REQUIRE_DISPLAY=1` (CI).

#![allow(clippy::print_stdout, reason = "a harness-less test reports on stdout")]

mod display_support;
mod hud_support;

use display_support::line;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use laige_demo::Demo;
use laige_engine::{Engine, EngineOptions, FrameCapture, ResizeRequest, RunLimit};

/// The child's marker: the screenshot path it writes.
const CHILD: &str = "LAIGE_RESIZE_CHILD_SHOT";
const RESIZED: (usize, usize) = (960, 720);
/// 16:9 in 960 wide is 540 tall: (720 − 540) / 2 above and below.
const BAR: usize = 90;
const ATTRACTOR: [u8; 3] = [255, 217, 51];

/// The windowed run (in the child process).
fn child(shot: &Path) -> ExitCode {
    let run = Engine::builder()
        .game(Demo {
            entities: 3_000,
            progress_every_frames: 0,
            mark_first_tick: false,
            ..Demo::default()
        })
        .options(EngineOptions {
            resize_request: Some(ResizeRequest {
                frame: 30,
                width: RESIZED.0 as u32,
                height: RESIZED.1 as u32,
            }),
            capture: Some(FrameCapture {
                frame: 150,
                path: shot.to_path_buf(),
            }),
            close_after_frames: Some(170),
            sprite_capacity: 4_096,
            ..EngineOptions::default()
        })
        .build()
        .and_then(|e| e.run_windowed(RunLimit::Unlimited));
    match run {
        Ok(report) => {
            line(&format!("{report}"));
            ExitCode::from(report.exit_code())
        }
        Err(e) => {
            line(&format!("child: {e}"));
            ExitCode::FAILURE
        }
    }
}

fn check(display: &str) -> Result<String, String> {
    let shot: PathBuf =
        std::env::temp_dir().join(format!("laige-demo-resized-{}.ppm", std::process::id()));
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .env(CHILD, &shot)
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "warn")
        .output()
        .map_err(|e| format!("running the child: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.code() != Some(0) {
        return Err(format!(
            "child exit {:?}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if let Some(dir) = std::env::var_os("LAIGE_SCREENSHOT_DIR") {
        let _ = std::fs::copy(&shot, Path::new(&dir).join("demo_resized.ppm"));
    }
    let img = hud_support::Shot::read(&shot);
    let _ = std::fs::remove_file(&shot);
    if (img.width, img.height) != RESIZED {
        return Err(format!(
            "captured {}x{}: the surface did not follow the resize to {RESIZED:?}",
            img.width, img.height
        ));
    }
    let (w, h) = RESIZED;
    // The bars: the bottom one whole, the top one right of the HUD panel.
    for y in (0..BAR).chain(h - BAR..h) {
        let from = if y < BAR { 620 } else { 0 };
        for x in from..w {
            if img.at(x, y) != [0, 0, 0] {
                return Err(format!("bar pixel ({x}, {y}) is {:?}", img.at(x, y)));
            }
        }
    }
    // Between them: the swarm (not the bar colour) and the attractor.
    let world = &img.pixels[BAR * w..(h - BAR) * w];
    let lit = world.iter().filter(|p| p.iter().any(|&c| c > 40)).count();
    let yellow = world.iter().filter(|&&p| p == ATTRACTOR).count();
    if lit < 2_000 || yellow < 16 {
        return Err(format!("{lit} sprite pixels, {yellow} attractor pixels"));
    }
    // The HUD at the new top-left corner, glyph for glyph.
    let hud = img.hud_line(0, 20);
    let words: Vec<&str> = hud.split_whitespace().collect();
    if words.len() != 4
        || (words[0], words[2]) != ("tick", "fps")
        || words[1].parse::<u64>().map_or(true, |t| t < 100)
    {
        return Err(format!("the HUD's first line reads {hud:?}"));
    }
    Ok(format!(
        "demo_windowed_resize: ok ({w}x{h} after the request: bars of {BAR} px above and below, {lit} world pixels, {yellow} attractor pixels, HUD line 1 {hud:?})"
    ))
}

fn main() -> ExitCode {
    if let Some(shot) = std::env::var_os(CHILD) {
        return child(Path::new(&shot));
    }
    display_support::run_on_display("demo_windowed_resize", 260..300, check)
}
