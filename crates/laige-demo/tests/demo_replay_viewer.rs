//! The replay viewer as a user drives it (`laige-demo --replay FILE
//! --window`), under X11 (Xvfb + Mesa): a scripted session of keys and
//! pointer (`--input-log`, at the viewer's ticks) — the end, the start, a
//! press on the timeline and a drag along it, a step back, a jump, play,
//! pause, a faster play — ends on the tick those commands add up to, with
//! the state hash the recorded run had there; the frame shows the HUD
//! saying so and the timeline bar. A damaged keyframe on the way is passed
//! over (the one before it used) with the same end. A changed build (one
//! velocity nudged at tick 290) is caught by the seek that re-simulates
//! over that tick: the viewer names tick 291 and exits 5.
//!
//! `harness = false`, as the other windowed tests: the session's display,
//! else a private Xvfb; neither → `SKIPPED`, unless
//! `LAIGE_REQUIRE_DISPLAY=1` (CI).

#![allow(clippy::print_stdout, reason = "a harness-less test reports on stdout")]

mod display_support;
#[allow(
    dead_code,
    reason = "the viewer's HUD is right-aligned: read with text_at, not hud_line"
)]
mod hud_support;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use laige_engine::input::{
    ButtonState, CoordSpace, InputEvent, InputKind, InputPoint, KeyCode, MouseButton,
};
use laige_engine::sim::replay::Replay;

const DEMO: &str = env!("CARGO_BIN_EXE_laige-demo");
const RATE: u64 = 60;
const WIDTH: u32 = 800;
const HEIGHT: u32 = 600;
/// Recorded ticks: 10 s at 60 Hz.
const TICKS: u64 = 600;
/// The bar spans x 16..784 of the 800-pixel window (16 margins); its
/// middle row is 10 + 6 logical pixels above the bottom.
const BAR_LEFT: f32 = 16.0;
const BAR_WIDTH: f32 = 768.0;
const BAR_ROW_FROM_TOP: f32 = 600.0 - 16.0;

fn key(k: KeyCode) -> InputKind {
    InputKind::Key {
        key: k,
        state: ButtonState::Pressed,
    }
}

/// The window pixel over `fraction` of the bar.
#[expect(clippy::cast_possible_truncation, reason = "test pixels")]
fn over_bar(fraction: f32) -> InputPoint {
    let x = BAR_LEFT + BAR_WIDTH * fraction;
    InputPoint {
        x: (x * 256.0) as i32,
        y: (BAR_ROW_FROM_TOP * 256.0) as i32,
    }
}

/// The scripted session and the tick it ends on.
fn script() -> (String, u64) {
    let press = |fraction, state| InputKind::MouseButton {
        button: MouseButton::LEFT,
        state,
        position: over_bar(fraction),
        space: CoordSpace::Window,
    };
    let steps: Vec<(u64, InputKind)> = vec![
        (5, key(KeyCode::END)),                  // 600
        (10, key(KeyCode::HOME)),                // 0
        (15, press(0.25, ButtonState::Pressed)), // 150
        (
            16,
            InputKind::MouseMove {
                position: over_bar(0.5),
                space: CoordSpace::Window,
            },
        ), // dragged to 300
        (17, press(0.5, ButtonState::Released)),
        (20, key(KeyCode::ARROW_LEFT)), // 299
        (25, key(KeyCode::ARROW_UP)),   // 359
        (30, key(KeyCode::SPACE)),      // plays ticks 30..=39: 369
        (40, key(KeyCode::SPACE)),      // paused
        (45, key(KeyCode::EQUAL)),      // x2
        (46, key(KeyCode::SPACE)),      // plays ticks 46..=49 at x2: 377
        (50, key(KeyCode::SPACE)),      // paused
    ];
    let mut log = String::new();
    for (tick, kind) in steps {
        // A microsecond into the tick's span.
        let time_ns = i64::try_from(tick * 1_000_000_000 / RATE).unwrap() + 1_000;
        let event = InputEvent {
            tick,
            time_ns,
            seq: 0,
            kind,
        };
        laige_demo::input_log::push_line(&mut log, tick, &[event]);
    }
    (log, 377)
}

struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let d = std::env::temp_dir().join(format!("laige-demo-viewer-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Self(d)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn output(cmd: &mut Command) -> Result<(i32, String, String), String> {
    let out = cmd.output().map_err(|e| format!("running the demo: {e}"))?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Records 600 ticks of 400 sprites with a keyframe every 32.
fn record(s: &Scratch, cfg: &Path) -> Result<PathBuf, String> {
    let file = s.path("run.lrp");
    let (code, out, err) = output(Command::new(DEMO).env("RUST_LOG", "warn").args([
        "--unpaced",
        "--quiet",
        "--entities",
        "400",
        "--seconds",
        "10",
        "--config",
        cfg.to_str().unwrap(),
        "--record",
        file.to_str().unwrap(),
    ]))?;
    if code != 0 {
        return Err(format!("recording: exit {code}\n{out}\n{err}"));
    }
    Ok(file)
}

/// Views `file` under `display` with the script; returns the viewer's
/// closing line, its stderr and the screenshot.
fn view(
    s: &Scratch,
    display: &str,
    cfg: &Path,
    file: &Path,
    name: &str,
    perturb_at: Option<u64>,
) -> Result<(String, String, hud_support::Shot), String> {
    let (log, _) = script();
    let log_path = s.path("viewer.log");
    std::fs::write(&log_path, log).map_err(|e| e.to_string())?;
    let shot = s.path(&format!("{name}.ppm"));
    let mut cmd = Command::new(DEMO);
    if let Some(tick) = perturb_at {
        cmd.env(laige_demo::PERTURB_ENV, tick.to_string());
    }
    let (code, out, err) = output(
        cmd.env("DISPLAY", display)
            .env_remove("WAYLAND_DISPLAY")
            .env("RUST_LOG", "warn")
            .args([
                "--replay",
                file.to_str().unwrap(),
                "--window",
                "--entities",
                "400",
                "--config",
                cfg.to_str().unwrap(),
                "--input-log",
                log_path.to_str().unwrap(),
                // At 60 frames a second, past the script's 50 ticks.
                "--close-after-frames",
                "120",
                "--screenshot",
                shot.to_str().unwrap(),
                "--screenshot-frame",
                "110",
            ]),
    )?;
    // A recorded hash that a seek did not reproduce exits 5.
    let expected_code = if perturb_at.is_some() { 5 } else { 0 };
    if code != expected_code {
        return Err(format!(
            "viewer ({name}): exit {code}, expected {expected_code}\n{out}\n{err}"
        ));
    }
    let closing = out
        .lines()
        .find(|l| l.starts_with("laige-demo: viewer at tick"))
        .ok_or_else(|| format!("no closing line ({name})\n{out}\n{err}"))?
        .to_owned();
    if !shot.exists() {
        return Err(format!("no screenshot ({name})\n{out}\n{err}"));
    }
    Ok((closing, err, hud_support::Shot::read(&shot)))
}

/// The viewer's HUD line `n` of `lines`, `text.len()` cells wide: the HUD
/// is right-aligned 12 pixels from the right edge, its last line's bottom
/// 50 pixels above the bottom edge (over the help line and the bar).
fn hud_line(shot: &hud_support::Shot, n: usize, lines: usize, text: &str) -> String {
    let x = shot.width - 12 - 16 * text.len();
    shot.text_at(x, shot.height - 50 - 16 * lines, n, text.len())
}

fn check(display: &str) -> Result<String, String> {
    let s = Scratch::new();
    let cfg = s.path("viewer.toml");
    std::fs::write(
        &cfg,
        format!(
            "[loop]\ntick_rate_hz = {RATE}\n[replay]\nkeyframe_interval = 32\n\
             [render]\nwindow_width = {WIDTH}\nwindow_height = {HEIGHT}\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    let file = record(&s, &cfg)?;
    let replay = Replay::read(&file).map_err(|e| e.to_string())?;
    if replay.ticks() != TICKS {
        return Err(format!(
            "recorded {} ticks, expected {TICKS}",
            replay.ticks()
        ));
    }
    let (_, end) = script();
    let expected = replay.hash_at(end).ok_or("no hash at the end tick")?;
    let want = format!("laige-demo: viewer at tick {end} state hash {expected:#018x}, hash ok");

    let (closing, _, shot) = view(&s, display, &cfg, &file, "clean", None)?;
    if !closing.starts_with(&want) || !closing.ends_with(", 0 damaged keyframe(s) passed over") {
        return Err(format!("closing line {closing:?}, expected {want:?}…"));
    }
    if (shot.width, shot.height) != (WIDTH as usize, HEIGHT as usize) {
        return Err(format!("a {}x{} frame", shot.width, shot.height));
    }
    for (n, text) in [
        "REPLAY tick 377 / 600  x2  paused",
        "hash ok",
        "from tick 375 + 2 ticks",
    ]
    .iter()
    .enumerate()
    {
        let read = hud_line(&shot, n, 3, text);
        if read != *text {
            return Err(format!("HUD line {n} reads {read:?}, expected {text:?}"));
        }
    }
    // The played part of the bar (377 of 600 ticks) in its blue, the rest
    // in its grey; the playhead is white.
    let row = HEIGHT as usize - 16;
    let played = shot.at(16 + 100, row);
    let rest = shot.at(16 + 700, row);
    if played[2] < 200 || played[0] > 120 {
        return Err(format!(
            "the played part of the bar is {played:?}, not blue"
        ));
    }
    if rest[2] > 100 {
        return Err(format!("the unplayed part of the bar is {rest:?}"));
    }

    // A damaged keyframe on the way (tick 288: the drag to 300 starts
    // there) is passed over for the one before it; the end is the same.
    let mut bytes = std::fs::read(&file).map_err(|e| e.to_string())?;
    let k = replay
        .keyframes()
        .find(|k| k.tick == 288)
        .ok_or("no keyframe at 288")?;
    let at = bytes
        .windows(64)
        .position(|w| w == &k.bytes[..64])
        .ok_or("keyframe bytes not found")?;
    bytes[at + 500] ^= 0x40;
    let damaged = s.path("damaged.lrp");
    std::fs::write(&damaged, &bytes).map_err(|e| e.to_string())?;
    let (closing, err, _) = view(&s, display, &cfg, &damaged, "damaged", None)?;
    if !closing.starts_with(&want) || closing.ends_with(", 0 damaged keyframe(s) passed over") {
        return Err(format!(
            "damaged: closing line {closing:?}, expected {want:?} and a keyframe passed over"
        ));
    }
    if !err.contains("viewer_keyframe_skipped") || !err.contains("tick=288") {
        return Err(format!(
            "damaged: no viewer_keyframe_skipped warning naming tick 288\n{err}"
        ));
    }

    // A changed build (one velocity nudged at tick 290): the drag to 300
    // re-simulates 289..300 from the keyframe of 288 and meets it; the
    // first recorded hash not reproduced is the one after tick 290.
    let (closing, _, _) = view(&s, display, &cfg, &file, "changed", Some(290))?;
    if !closing.starts_with(&format!("laige-demo: viewer at tick {end} state hash "))
        || !closing.contains(", diverged at tick 291,")
    {
        return Err(format!(
            "changed build: closing line {closing:?}, expected a divergence at tick 291"
        ));
    }
    Ok(format!(
        "demo_replay_viewer: ok (scripted session ended on tick {end}, state hash {expected:#018x} as recorded; HUD and timeline read back from the frame; a damaged keyframe passed over; a changed build's divergence named at tick 291)"
    ))
}

fn main() -> ExitCode {
    display_support::run_on_display("demo_replay_viewer", 180..220, check)
}
