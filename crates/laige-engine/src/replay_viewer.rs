//! [`ReplayViewer`]: a recorded run opened for a person to look at
//! ([`Engine::replay_viewer`]): paused at tick 0, a timeline bar along the
//! bottom, the tick, the hash check and the keyframe used in the corner,
//! and the game's own `present` drawing the recorded world.
//!
//! ```text
//!  the viewer's engine (window or headless)     the recorded run
//!  its own world: empty, ticking at the rate    ReplayPlayback (the game's world,
//!  input (window events + scripted) ──► queue   built by its setup on the recorded
//!  on_tick: the tick's delivered events ──►     backend and seed)
//!           commands → a target tick ─────────► seek(target): nearest keyframe,
//!           playing: speed/4 ticks per tick        re-simulate, check every hash
//!  present: game.present(recorded world) ◄────── world()
//!           + HUD + timeline
//! ```
//!
//! **Rule: the viewer's commands are read from its own world's delivered
//! input, one tick at a time**, so a window's keys and pointer and a
//! builder's [`scripted_input`](crate::EngineBuilder::scripted_input) take
//! the same path, and a scripted session ends on the same recorded tick on
//! every run however the frames fall. Playback advances by the viewer's
//! ticks (speed ×1 is one recorded tick per viewer tick at the configured
//! rate), never by wall time.
//!
//! | input | command |
//! |---|---|
//! | Space | play / pause (at the end: from tick 0) |
//! | → / ← | one tick forward / back (pauses) |
//! | ↑ / ↓ | 60 ticks forward / back |
//! | Page Up / Page Down | 600 ticks forward / back |
//! | Home / End | the first / last tick |
//! | = / − | speed ×2 / ÷2, within ×¼ … ×8 |
//! | left button on the timeline, drag | go to the tick under the pointer |
//! | Escape, Q | close |
//!
//! Back-stepping is `seek(tick − 1)`: from the nearest keyframe at or
//! before it. The game's `present` and `view` are called with the recorded
//! world; its `on_input`, `on_frame`, `on_tick` and `finish` belong to a
//! live run and are not.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use laige_core::{Error, Result};
use laige_render::gl::{Align, Space, Sprite, TextStyle, ViewRect};
use laige_sim::World;
use laige_sim::input::{ButtonState, CoordSpace, InputKind, InputPoint, KeyCode, MouseButton};
use laige_sim::replay::{SeekReport, SeekStart};

use crate::builder::{Engine, EngineBuilder};
use crate::game::{Control, EngineScalar, Game, Setup};
use crate::replay_player::ReplayPlayback;
use crate::{EngineConfig, Frame, events};

/// Playback speeds in quarter ticks per viewer tick: ×¼ … ×8.
const SPEED_QUARTERS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// The speed a viewer opens at (×1).
const DEFAULT_SPEED: usize = 2;

/// A recorded run in a viewer: an [`Engine`]'s game
/// ([`Engine::replay_viewer`]). Run it with `run_windowed` (or
/// `run_headless` with a renderer, e.g. for screenshots of a scripted
/// session); [`status`](Self::status) reads where it is from outside.
pub struct ReplayViewer<G> {
    game: G,
    playback: ReplayPlayback,
    controls: Controls,
    timeline: Timeline,
    status: ViewerStatus,
    /// Where the last seek started and what it passed over.
    last_seek: Option<SeekReport>,
    /// The first recorded hash any seek did not reproduce.
    divergence: Option<laige_sim::replay::Divergence>,
    /// A seek's failure (a system's error), ended with at the next frame.
    failure: Option<Error>,
    /// The HUD's text, rebuilt in place every frame.
    hud: String,
}

impl<G> std::fmt::Debug for ReplayViewer<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayViewer")
            .field("tick", &self.playback.tick())
            .field("ticks", &self.playback.ticks())
            .field("controls", &self.controls)
            .finish_non_exhaustive()
    }
}

impl<G: Game> ReplayViewer<G> {
    fn new(game: G, mut playback: ReplayPlayback) -> Self {
        let status = ViewerStatus::default();
        status.publish(playback.tick(), playback.state_hash(), None, 0);
        Self {
            game,
            playback,
            controls: Controls::default(),
            timeline: Timeline::default(),
            status,
            last_seek: None,
            divergence: None,
            failure: None,
            hud: String::with_capacity(512),
        }
    }

    /// A handle that reads where the viewer is (its tick, state hash and
    /// hash check), live and after the run.
    #[must_use]
    pub fn status(&self) -> ViewerStatus {
        self.status.clone()
    }

    /// The recorded run.
    #[must_use]
    pub fn playback(&self) -> &ReplayPlayback {
        &self.playback
    }

    fn go_to(&mut self, target: u64) {
        let target = target.min(self.playback.ticks());
        if target == self.playback.tick() {
            return;
        }
        match self.playback.seek(target) {
            Ok(report) => {
                for (tick, why) in &report.skipped {
                    laige_core::event!(
                        Warn,
                        events::REPLAY_VIEWER_KEYFRAME_SKIPPED,
                        tick = *tick,
                        why = %why
                    );
                }
                if let Some(d) = report.divergence
                    && self.divergence.is_none_or(|first| d.tick < first.tick)
                {
                    self.divergence = Some(d);
                }
                self.status.0.skipped.fetch_add(
                    u64::try_from(report.skipped.len()).unwrap_or(u64::MAX),
                    Ordering::Relaxed,
                );
                self.last_seek = Some(report);
                let hash = self.playback.state_hash();
                self.status.publish(
                    self.playback.tick(),
                    hash,
                    self.divergence.map(|d| d.tick),
                    self.last_seek.as_ref().map_or(0, |r| r.checked),
                );
            }
            Err(err) => {
                self.controls.playing = false;
                self.failure.get_or_insert(err);
            }
        }
    }

    fn draw_hud(&mut self, frame: &mut Frame<'_>) {
        let [w, _] = frame.screen_size();
        self.timeline.screen = frame.screen_size();
        self.timeline.pixel_scale = frame.pixel_scale();
        let (tick, ticks) = (self.playback.tick(), self.playback.ticks());
        self.hud.clear();
        let _ = writeln!(
            self.hud,
            "REPLAY tick {tick} / {ticks}  {}  {}",
            speed_label(self.controls.speed),
            if self.controls.playing {
                "playing"
            } else {
                "paused"
            }
        );
        match &self.divergence {
            None => {
                let _ = writeln!(self.hud, "hash ok");
            }
            Some(d) => {
                let _ = writeln!(self.hud, "DIVERGED at tick {}", d.tick);
            }
        }
        match self.last_seek.as_ref().map(|r| (r.start, r.resimulated)) {
            None => {
                let _ = writeln!(self.hud, "opened at tick 0");
            }
            Some((SeekStart::Keyframe(k), n)) => {
                let _ = writeln!(self.hud, "keyframe {k} + {n} ticks");
            }
            Some((SeekStart::Current(t), n)) => {
                let _ = writeln!(self.hud, "from tick {t} + {n} ticks");
            }
            Some((SeekStart::Origin, n)) => {
                let _ = writeln!(self.hud, "no keyframe: tick 0 + {n} ticks");
            }
        }
        if let Some((at, _)) = self.last_seek.as_ref().and_then(|r| r.skipped.first()) {
            let _ = writeln!(self.hud, "keyframe {at} damaged: passed over");
        }
        if self.playback.damage.is_some() {
            let _ = writeln!(self.hud, "torn file: its first {ticks} ticks play");
        }
        // Bottom-right, over the help line and the timeline: the game's
        // own HUD usually holds a top corner.
        let lines = self.hud.lines().count();
        let widest = self.hud.lines().map(str::len).max().unwrap_or(0);
        #[expect(clippy::cast_precision_loss, reason = "a handful of short lines")]
        let (top, backdrop_w) = (
            HUD_BOTTOM + lines as f32 * LINE,
            widest as f32 * LINE + 2.0 * PAD,
        );
        frame.push(Sprite {
            space: Space::Screen,
            layer: 254,
            ..Sprite::quad(
                [w - PAD - backdrop_w * 0.5, (HUD_BOTTOM + top) * 0.5],
                [backdrop_w, top - HUD_BOTTOM + 2.0 * PAD],
                [0.0, 0.0, 0.0, 0.6],
            )
        });
        let colour = if self.divergence.is_some() {
            [1.0, 0.35, 0.3, 1.0]
        } else {
            [1.0; 4]
        };
        frame.text(
            &self.hud,
            &TextStyle {
                position: [w - 2.0 * PAD, top],
                size: LINE,
                color: colour,
                align: Align::Right,
                ..TextStyle::default()
            },
        );
        self.draw_timeline(frame);
    }

    fn draw_timeline(&self, frame: &mut Frame<'_>) {
        let t = &self.timeline;
        let (left, width) = (t.left(), t.width());
        let (tick, ticks) = (self.playback.tick(), self.playback.ticks().max(1));
        let bar = |x: f32, w: f32, colour: [f32; 4], layer: u8| Sprite {
            space: Space::Screen,
            layer,
            ..Sprite::quad([x + w * 0.5, BAR_Y + BAR_H * 0.5], [w, BAR_H], colour)
        };
        frame.push(bar(left, width, [0.15, 0.15, 0.18, 0.9], 252));
        #[expect(clippy::cast_precision_loss, reason = "a pixel position")]
        let done = width * (tick as f32 / ticks as f32);
        frame.push(bar(left, done, [0.3, 0.55, 0.95, 1.0], 253));
        if let Some(d) = &self.divergence {
            #[expect(clippy::cast_precision_loss, reason = "a pixel position")]
            let x = left + width * (d.tick as f32 / ticks as f32);
            frame.push(bar(x - 1.0, 3.0, [1.0, 0.25, 0.2, 1.0], 254));
        }
        frame.push(Sprite {
            space: Space::Screen,
            layer: 255,
            ..Sprite::quad(
                [left + done, BAR_Y + BAR_H * 0.5],
                [4.0, BAR_H + 8.0],
                [1.0; 4],
            )
        });
        frame.text(
            HELP,
            &TextStyle {
                position: [left, HELP_TOP],
                size: 8.0,
                color: [0.8, 0.8, 0.8, 1.0],
                ..TextStyle::default()
            },
        );
    }
}

/// Logical pixels: the HUD's line height (and glyph advance) and padding.
const LINE: f32 = 16.0;
const PAD: f32 = 6.0;
/// The timeline bar's bottom, height and side margins (logical pixels,
/// from the bottom-left).
const BAR_Y: f32 = 10.0;
const BAR_H: f32 = 12.0;
const BAR_MARGIN: f32 = 16.0;
/// The bar's hit area reaches this far above and below it.
const BAR_SLOP: f32 = 8.0;
/// The help line's top (8-pixel text over the bar), and the HUD's
/// bottom over it (logical pixels from the bottom).
const HELP_TOP: f32 = BAR_Y + BAR_H + 16.0;
const HUD_BOTTOM: f32 = HELP_TOP + 12.0;
const HELP: &str =
    "space play  <- -> step  up/dn 60  pgup/pgdn 600  home/end  -/= speed  drag bar  esc quit";

fn speed_label(index: usize) -> &'static str {
    ["x1/4", "x1/2", "x1", "x2", "x4", "x8"][index.min(SPEED_QUARTERS.len() - 1)]
}

/// The viewer's controls: what the input asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Controls {
    playing: bool,
    /// An index into [`SPEED_QUARTERS`].
    speed: usize,
    /// Quarter ticks played and not yet whole.
    quarters: u32,
    /// The left button went down on the timeline and is still down.
    dragging: bool,
}

impl Default for Controls {
    fn default() -> Self {
        Self {
            playing: false,
            speed: DEFAULT_SPEED,
            quarters: 0,
            dragging: false,
        }
    }
}

impl Controls {
    /// Applies one input event to `want` (the tick to go to), given the
    /// current tick, the recorded ticks and the timeline's geometry.
    fn apply(&mut self, kind: &InputKind, want: &mut u64, ticks: u64, timeline: &Timeline) {
        match *kind {
            InputKind::Key {
                key,
                state: ButtonState::Pressed,
            } => match key {
                KeyCode::SPACE => {
                    self.playing = !self.playing;
                    self.quarters = 0;
                    if self.playing && *want >= ticks {
                        *want = 0;
                    }
                }
                KeyCode::ARROW_RIGHT => {
                    self.playing = false;
                    *want = want.saturating_add(1);
                }
                KeyCode::ARROW_LEFT => {
                    self.playing = false;
                    *want = want.saturating_sub(1);
                }
                KeyCode::ARROW_UP => *want = want.saturating_add(60),
                KeyCode::ARROW_DOWN => *want = want.saturating_sub(60),
                KeyCode::PAGE_UP => *want = want.saturating_add(600),
                KeyCode::PAGE_DOWN => *want = want.saturating_sub(600),
                KeyCode::HOME => *want = 0,
                KeyCode::END => *want = ticks,
                KeyCode::EQUAL => self.speed = (self.speed + 1).min(SPEED_QUARTERS.len() - 1),
                KeyCode::MINUS => self.speed = self.speed.saturating_sub(1),
                _ => {}
            },
            InputKind::MouseButton {
                button: MouseButton::LEFT,
                state,
                position,
                space: CoordSpace::Window,
            } => {
                if state == ButtonState::Pressed {
                    if let Some(tick) = timeline.tick_at(position, ticks) {
                        self.dragging = true;
                        *want = tick;
                    }
                } else {
                    self.dragging = false;
                }
            }
            InputKind::MouseMove {
                position,
                space: CoordSpace::Window,
            } if self.dragging => *want = timeline.tick_along(position, ticks),
            _ => {}
        }
        *want = (*want).min(ticks);
    }

    /// Plays on one viewer tick: the whole ticks due at the speed.
    fn advance(&mut self, want: &mut u64, ticks: u64) {
        if !self.playing {
            return;
        }
        self.quarters += SPEED_QUARTERS[self.speed];
        *want = want.saturating_add(u64::from(self.quarters / 4)).min(ticks);
        self.quarters %= 4;
        if *want >= ticks {
            self.playing = false;
        }
    }
}

/// Where the timeline is on the target, from the last presented frame.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Timeline {
    /// The target in logical pixels.
    screen: [f32; 2],
    /// Physical pixels per logical one.
    pixel_scale: f32,
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            screen: [640.0, 480.0],
            pixel_scale: 1.0,
        }
    }
}

impl Timeline {
    fn left(&self) -> f32 {
        BAR_MARGIN
    }

    fn width(&self) -> f32 {
        (self.screen[0] - 2.0 * BAR_MARGIN).max(1.0)
    }

    /// A window-space pointer position (physical pixels from the
    /// top-left) in logical pixels from the bottom-left.
    fn logical(&self, p: InputPoint) -> [f32; 2] {
        let scale = if self.pixel_scale > 0.0 {
            self.pixel_scale
        } else {
            1.0
        };
        #[expect(clippy::cast_precision_loss, reason = "pointer pixels")]
        let (x, y) = (
            p.x as f32 / InputPoint::SUBUNITS as f32 / scale,
            p.y as f32 / InputPoint::SUBUNITS as f32 / scale,
        );
        [x, self.screen[1] - y]
    }

    /// The tick under a press at `p`, or `None` off the bar.
    fn tick_at(&self, p: InputPoint, ticks: u64) -> Option<u64> {
        let [x, y] = self.logical(p);
        let on_bar = (BAR_Y - BAR_SLOP..=BAR_Y + BAR_H + BAR_SLOP).contains(&y)
            && (self.left() - BAR_SLOP..=self.left() + self.width() + BAR_SLOP).contains(&x);
        on_bar.then(|| self.tick_along(p, ticks))
    }

    /// The tick at `p`'s x along the bar (clamped to its ends), rounded
    /// to the nearest.
    fn tick_along(&self, p: InputPoint, ticks: u64) -> u64 {
        let [x, _] = self.logical(p);
        let f = f64::from(((x - self.left()) / self.width()).clamp(0.0, 1.0));
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss,
            reason = "a fraction of the tick count, in range"
        )]
        let tick = (f * ticks as f64).round() as u64;
        tick.min(ticks)
    }
}

/// Where a [`ReplayViewer`] is, readable from outside its run (shared
/// atomics; cloning shares them).
#[derive(Clone, Debug, Default)]
pub struct ViewerStatus(Arc<StatusCells>);

#[derive(Debug, Default)]
struct StatusCells {
    tick: AtomicU64,
    state_hash: AtomicU64,
    /// The first diverging tick + 1 (0: none).
    diverged: AtomicU64,
    checked: AtomicU64,
    skipped: AtomicU64,
}

impl ViewerStatus {
    fn publish(&self, tick: u64, hash: u64, diverged: Option<u64>, checked: u64) {
        self.0.tick.store(tick, Ordering::Relaxed);
        self.0.state_hash.store(hash, Ordering::Relaxed);
        self.0.diverged.store(
            diverged.map_or(0, |t| t.saturating_add(1)),
            Ordering::Relaxed,
        );
        self.0.checked.fetch_add(checked, Ordering::Relaxed);
    }

    /// The recorded tick the viewer shows.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.0.tick.load(Ordering::Relaxed)
    }

    /// The state hash of the world at [`tick`](Self::tick).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.0.state_hash.load(Ordering::Relaxed)
    }

    /// The first tick whose recorded hash a seek did not reproduce.
    #[must_use]
    pub fn diverged_at(&self) -> Option<u64> {
        self.0.diverged.load(Ordering::Relaxed).checked_sub(1)
    }

    /// Recorded state hashes compared so far (all seeks).
    #[must_use]
    pub fn hashes_checked(&self) -> u64 {
        self.0.checked.load(Ordering::Relaxed)
    }

    /// Damaged keyframes passed over so far (all seeks).
    #[must_use]
    pub fn keyframes_skipped(&self) -> u64 {
        self.0.skipped.load(Ordering::Relaxed)
    }
}

impl<G: Game> Game for ReplayViewer<G> {
    /// The viewer's own world holds nothing: it ticks so that input is
    /// delivered at a steady rate.
    fn setup<S: EngineScalar>(&mut self, _setup: &mut Setup<'_>) -> Result<()> {
        Ok(())
    }

    fn on_input<S: EngineScalar>(
        &mut self,
        event: &laige_sim::input::InputEvent,
        control: &mut Control,
    ) {
        if let InputKind::Key {
            key: KeyCode::ESCAPE | KeyCode::Q,
            state: ButtonState::Pressed,
        } = event.kind
        {
            control.exit();
        }
    }

    fn on_frame<S: EngineScalar>(&mut self, _world: &World, control: &mut Control) {
        if let Some(err) = self.failure.take() {
            control.fail(err);
        }
    }

    fn on_tick<S: EngineScalar>(&mut self, world: &World, _tick: u64) {
        let ticks = self.playback.ticks();
        let mut want = self.playback.tick();
        let mut controls = self.controls;
        for event in world.input().delivered() {
            controls.apply(&event.kind, &mut want, ticks, &self.timeline);
        }
        controls.advance(&mut want, ticks);
        self.controls = controls;
        self.go_to(want);
    }

    fn present<S: EngineScalar>(&mut self, _world: &World, frame: &mut Frame<'_>) {
        let (world, tick) = (self.playback.world(), self.playback.tick());
        self.game
            .present::<S>(world, &mut frame.with_world(world, tick));
        self.draw_hud(frame);
    }

    fn view(&self, config: &EngineConfig) -> ViewRect {
        self.game.view(config)
    }
}

impl<G: Game> Engine<G> {
    /// Opens the replay at `path` in a [`ReplayViewer`]: the recorded
    /// world is built by this engine's game on the recorded backend and
    /// seed (as [`replay_player`](Self::replay_player)), paused at tick 0;
    /// the returned engine runs the viewer (`run_windowed`, or
    /// `run_headless` with a renderer). The builder's scripted input, if
    /// any, drives the viewer (its ticks are the viewer's); pointer
    /// positions are read in window pixels.
    ///
    /// ```no_run
    /// use laige_engine::{Engine, RunLimit};
    /// # #[derive(Default)] struct MyGame;
    /// # impl laige_engine::Game for MyGame {
    /// #     fn setup<S: laige_engine::EngineScalar>(&mut self, _: &mut laige_engine::Setup<'_>) -> laige_engine::Result<()> { Ok(()) }
    /// # }
    /// let viewer = Engine::builder().game(MyGame).build()?.replay_viewer("match.lrp")?;
    /// let status = viewer.game().status();
    /// viewer.run_windowed(RunLimit::Unlimited)?;
    /// println!("closed at tick {} (state hash {:#018x})", status.tick(), status.state_hash());
    /// # Ok::<(), laige_engine::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`replay_player`](Self::replay_player); a builder that
    /// records (`record`) or plays a network session (`net`):
    /// `engine/options_invalid` (a viewer is neither).
    pub fn replay_viewer(self, path: impl AsRef<Path>) -> Result<Engine<ReplayViewer<G>>> {
        let mut parts = self.parts;
        if parts.record.is_some() {
            return Err(Error::invalid_argument(
                events::OPTIONS_INVALID,
                "record",
                "set",
                "no recording in a replay viewer (it plays a recording)",
            ));
        }
        #[cfg(feature = "net")]
        if parts.net.is_some() {
            return Err(Error::invalid_argument(
                events::OPTIONS_INVALID,
                "net",
                "set",
                "no network session in a replay viewer",
            ));
        }
        let playback = crate::replay_player::open(&mut parts, path.as_ref())?;
        let mut options = parts.options;
        options.pointer_space = CoordSpace::Window;
        EngineBuilder {
            game: ReplayViewer::new(parts.game, playback),
            config: parts.config,
            registrations: Vec::new(),
            script: parts.script,
            options,
            record: None,
            replay_identity: parts.replay_identity,
            net: Default::default(),
        }
        .build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(key: KeyCode) -> InputKind {
        InputKind::Key {
            key,
            state: ButtonState::Pressed,
        }
    }

    fn press_at(x: f32, y_from_top: f32) -> InputKind {
        InputKind::MouseButton {
            button: MouseButton::LEFT,
            state: ButtonState::Pressed,
            position: window_point(x, y_from_top),
            space: CoordSpace::Window,
        }
    }

    #[expect(clippy::cast_possible_truncation, reason = "test pixels")]
    fn window_point(x: f32, y_from_top: f32) -> InputPoint {
        InputPoint {
            x: (x * 256.0) as i32,
            y: (y_from_top * 256.0) as i32,
        }
    }

    fn run(c: &mut Controls, from: u64, ticks: u64, kinds: &[InputKind]) -> u64 {
        let mut want = from;
        let t = Timeline {
            screen: [432.0, 300.0],
            pixel_scale: 1.0,
        };
        for k in kinds {
            c.apply(k, &mut want, ticks, &t);
        }
        c.advance(&mut want, ticks);
        want
    }

    #[test]
    fn keys_step_jump_and_clamp_to_the_recording() {
        let mut c = Controls::default();
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::ARROW_RIGHT)]), 101);
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::ARROW_LEFT)]), 99);
        assert_eq!(run(&mut c, 0, 1000, &[key(KeyCode::ARROW_LEFT)]), 0);
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::ARROW_UP)]), 160);
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::ARROW_DOWN)]), 40);
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::PAGE_UP)]), 700);
        assert_eq!(run(&mut c, 700, 1000, &[key(KeyCode::PAGE_UP)]), 1000);
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::PAGE_DOWN)]), 0);
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::END)]), 1000);
        assert_eq!(run(&mut c, 100, 1000, &[key(KeyCode::HOME)]), 0);
        // Two commands in one tick add up.
        let both = [key(KeyCode::ARROW_UP), key(KeyCode::ARROW_LEFT)];
        assert_eq!(run(&mut c, 100, 1000, &both), 159);
        assert!(!c.playing);
    }

    #[test]
    fn playing_advances_by_the_speed_in_quarter_ticks_and_stops_at_the_end() {
        let mut c = Controls::default();
        let mut at = run(&mut c, 10, 100, &[key(KeyCode::SPACE)]);
        assert_eq!((at, c.playing), (11, true), "x1 plays one tick per tick");
        at = run(&mut c, at, 100, &[key(KeyCode::EQUAL)]);
        assert_eq!(at, 13, "x2");
        at = run(
            &mut c,
            at,
            100,
            &[
                key(KeyCode::MINUS),
                key(KeyCode::MINUS),
                key(KeyCode::MINUS),
            ],
        );
        assert_eq!(at, 13, "x1/4: a quarter");
        for _ in 0..3 {
            at = run(&mut c, at, 100, &[]);
        }
        assert_eq!(at, 14, "four quarters make one tick");
        for _ in 0..9 {
            c.apply(&key(KeyCode::EQUAL), &mut at, 100, &Timeline::default());
        }
        assert_eq!(speed_label(c.speed), "x8", "the speed stops at x8");
        at = run(&mut c, 95, 100, &[]);
        assert_eq!((at, c.playing), (100, false), "the end pauses");
        at = run(&mut c, at, 100, &[key(KeyCode::SPACE)]);
        assert_eq!(
            (at, c.playing),
            (8, true),
            "play at the end starts from tick 0"
        );
        at = run(&mut c, at, 100, &[key(KeyCode::ARROW_RIGHT)]);
        assert_eq!((at, c.playing), (9, false), "a step pauses");
    }

    #[test]
    fn the_timeline_maps_a_press_and_a_drag_to_ticks() {
        // A 432 x 300 target: the bar spans x 16..416 (400 px), y from the
        // bottom 10..22, i.e. 278..290 from the top.
        let mut c = Controls::default();
        assert_eq!(run(&mut c, 0, 1000, &[press_at(216.0, 284.0)]), 500);
        assert!(c.dragging);
        let drag = InputKind::MouseMove {
            position: window_point(116.0, 100.0),
            space: CoordSpace::Window,
        };
        assert_eq!(
            run(&mut c, 500, 1000, &[drag]),
            250,
            "a drag follows x only"
        );
        let off_end = InputKind::MouseMove {
            position: window_point(900.0, 100.0),
            space: CoordSpace::Window,
        };
        assert_eq!(
            run(&mut c, 250, 1000, &[off_end]),
            1000,
            "clamped to the end"
        );
        let release = InputKind::MouseButton {
            button: MouseButton::LEFT,
            state: ButtonState::Released,
            position: window_point(0.0, 0.0),
            space: CoordSpace::Window,
        };
        assert_eq!(
            run(&mut c, 1000, 1000, &[release, drag]),
            1000,
            "released: moves do nothing"
        );
        assert_eq!(
            run(&mut c, 7, 1000, &[press_at(216.0, 100.0)]),
            7,
            "a press off the bar"
        );
        assert!(!c.dragging);
        // On a 2x display the same logical place is twice the pixels.
        let t = Timeline {
            screen: [432.0, 300.0],
            pixel_scale: 2.0,
        };
        assert_eq!(t.tick_at(window_point(432.0, 568.0), 1000), Some(500));
    }
}
