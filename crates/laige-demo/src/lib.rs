//! # The laige demo: a swarm around a moving attractor
//!
//! **Motivation.** A game engine core is only believable once a real game
//! runs on it. This crate is that game, written the way a user would write
//! one: it depends on `laige-engine` alone and uses nothing but its public
//! API. Thousands of sprites fly in a square arena, bounce off its walls
//! and are pulled toward an attractor — the mouse pointer in a window, a
//! scripted point in a headless run. Keys pause the simulation, single-step
//! it, spawn and despawn bursts of sprites, and switch presentation
//! interpolation off so the tick cadence becomes visible.
//!
//! **Implementation.** The simulation (`sim.rs`) is the reference workload's math
//! (`workload::integrate_world` and `workload::attract_world`, the column
//! passes the sim budget is measured on, the same bits as
//! `workload::integrate` and `workload::attract` on each sprite) in three
//! systems, generic over the scalar so
//! the configured math backend (`[determinism] math`) picks the
//! instantiation:
//!
//! 1. `demo/input` (order 0) reads the tick's input events
//!    (`ctx.input()`): a pointer move in world coordinates moves the
//!    attractor; **B** spawns a burst of [`BURST`] sprites from the
//!    seeded generator kept in the world; **D** despawns a burst.
//! 2. `demo/integrate` (order 100): position += velocity × dt, reflected
//!    off the walls; the previous position is kept for interpolation.
//! 3. `demo/attract` (order 200): velocity += toward(attractor) × accel × dt,
//!    through the wide normalize (the arena is far wider than Q16.16's
//!    plain `length` range).
//!
//! All of it is hashed state (positions, velocities, the attractor, the
//! generator), so the report's state hash pins the whole run: the same
//! seed, backend and input give the same hash on every machine. Input
//! reaches the systems only through the engine's input queue — stamped on
//! the loop's clock, assigned to the tick it falls in, delivered at that
//! tick's start — which is what makes a run replayable. Engine-level keys
//! (pause, step, interpolation, quit) are handled in
//! [`Game::on_input`] through
//! [`Control`]: they change the lifecycle, not the
//! simulation. Presentation (`present.rs`) hands one sprite per entity
//! (current and previous position) to the render thread; the renderer
//! interpolates with the frame's alpha.
//!
//! **Controls** (windowed, `--window`):
//!
//! | input | effect |
//! |---|---|
//! | mouse | the attractor follows the pointer |
//! | Space | pause / resume (frames go on, ticks stop) |
//! | S or → | single step while paused |
//! | B / D | spawn / despawn a burst of 1000 sprites |
//! | I | interpolation on / off |
//! | Esc or Q | quit (the ordered shutdown, exit code 0) |
//!
//! Headless (the default) runs a scripted session: the attractor travels
//! a diamond around the arena, a burst spawns at 1 s and 2 s, one despawns
//! at 3 s. See `--help` ([`Args`]) for the options.
//!
//! **Over the network** ([`NetDemo`], `--net host|join|spectate`,
//! `--synctest N`): every player steers an attractor of their own and
//! all of them pull the one swarm. A player's input is a
//! [`PilotInput`] (the pointer in whole world units and the burst keys
//! of the tick); the simulation reads it through laige-net's
//! `PlayerInputs`, never the raw events, so every peer simulates the same
//! ticks from the same inputs. A laige-net session owns the engine's
//! ticks (`EngineBuilder::net`): it rolls back and re-simulates when a
//! remote input arrives late, and the report adds its counters. A windowed
//! player plays with the mouse and B/D; with `--pilot` a [`WindowPilot`]
//! plays instead (the scripted path and presses, raised each frame as game
//! actions stamped like the window's events: tests, unattended demos). A
//! session's run ends with a `laige-demo: pilots …; sprites N` line.

#![allow(
    clippy::print_stdout,
    reason = "a game prints its progress and report; the run's events go through tracing"
)]

pub mod args;
pub mod input_log;
pub mod net;
mod present;
mod sim;
pub mod tick_bench;

use laige_engine::input::{ButtonState, InputKind, InputPoint, KeyCode};
use laige_engine::render::gl::ViewRect;
use laige_engine::sim::workload::Velocity;
use laige_engine::{Control, EngineConfig, EngineScalar, Frame, Game, Setup, World};

pub use args::{Args, EXIT_CODES, NetMode};
pub use present::{
    HUD_HASH_EVERY, HUD_LAYER, HUD_MARGIN, HUD_PANEL_COLOR, HUD_TEXT_COLOR, HUD_TEXT_SIZE, HudHash,
    SPRITE_SIDE, demo_view, hud_rect, hud_text,
};
pub use sim::{
    Attractor, BURST, HALF_EXTENT, MAX_BURSTS, Pilot, PilotInput, Spawner, diamond_point,
    headless_script, pilot_point, pilot_script,
};

/// The demo's replay identity for `entities` sprites: what shapes its
/// simulation besides the config (`EngineBuilder::replay_identity`), so a
/// replay of another entity count is refused rather than diverging.
#[must_use]
pub fn replay_identity(entities: u32) -> u64 {
    let mut h = laige_engine::sim::StateHasher::default();
    h.write_bytes(b"laige-demo");
    h.write_u32(entities);
    h.write_u32(BURST);
    h.write_u32(MAX_BURSTS);
    h.write_u32(HALF_EXTENT.cast_unsigned());
    h.finish()
}

/// The environment variable that makes a *changed build* of the demo for
/// tests of divergence tools (`cargo xtask replay-diff`): with
/// `LAIGE_DEMO_PERTURB_TICK=N` the demo adds the [`perturbation`] system,
/// which changes one value at tick N — as a changed system in another
/// build would.
pub const PERTURB_ENV: &str = "LAIGE_DEMO_PERTURB_TICK";

/// The test aid of [`PERTURB_ENV`]: a system (`demo/perturb`, after
/// integration, before attraction) that, at tick `at` only, adds 1/65536
/// to the y velocity of the live sprite with the lowest entity id (either
/// backend's velocity). Deterministic: every run of the changed build
/// changes the same value.
pub fn perturbation(
    at: u64,
) -> impl FnMut(&mut laige_engine::SystemContext<'_>) -> laige_engine::Result<()> + Send + 'static {
    use laige_engine::{Entity, Fp32Pinned, Fpx16_16, SimScalar};
    fn nudge<S: SimScalar + Send + Sync + 'static>(ctx: &mut laige_engine::SystemContext<'_>) {
        let first = ctx
            .query_mut::<(Entity, &mut Velocity<S>)>()
            .min_by_key(|(e, _)| e.id());
        if let Some((_, v)) = first {
            v.0.y += S::from_ratio(1, 65_536);
        }
    }
    move |ctx| {
        if ctx.tick() == at {
            nudge::<Fpx16_16>(ctx);
            nudge::<Fp32Pinned>(ctx);
        }
        Ok(())
    }
}

/// The demo game (see the crate docs).
#[derive(Debug)]
pub struct Demo {
    /// Sprites at the start.
    pub entities: u32,
    /// Print a progress line every this many frames (0: never).
    pub progress_every_frames: u64,
    /// Print `laige-demo: first tick` at the first completed tick (the
    /// start-up benchmark's marker).
    pub mark_first_tick: bool,
    /// The state hash the HUD shows, refreshed every
    /// [`HUD_HASH_EVERY`] ticks.
    pub hud_hash: HudHash,
}

impl Default for Demo {
    fn default() -> Self {
        Self {
            entities: 10_000,
            progress_every_frames: 60,
            mark_first_tick: false,
            hud_hash: HudHash::default(),
        }
    }
}

impl Game for Demo {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        sim::install::<S>(setup, self.entities)
    }

    fn on_input<S: EngineScalar>(
        &mut self,
        event: &laige_engine::input::InputEvent,
        control: &mut Control,
    ) {
        let InputKind::Key {
            key,
            state: ButtonState::Pressed,
        } = event.kind
        else {
            return;
        };
        match key {
            KeyCode::SPACE => control.toggle_pause(),
            KeyCode::S | KeyCode::ARROW_RIGHT => control.step(),
            KeyCode::I => control.toggle_interpolation(),
            KeyCode::ESCAPE | KeyCode::Q => control.exit(),
            _ => {}
        }
    }

    fn on_frame<S: EngineScalar>(&mut self, world: &World, control: &mut Control) {
        let every = self.progress_every_frames;
        if every > 0 && control.frame() > 1 && (control.frame() - 1).is_multiple_of(every) {
            let ms = control.running_time_ns() / 1_000_000;
            println!(
                "laige-demo: t={}.{:03}s frame {} tick {} sprites {} presented {}{}{}",
                ms / 1000,
                ms % 1000,
                control.frame() - 1,
                control.tick(),
                world.len().saturating_sub(1),
                control.frames_presented(),
                if control.is_paused() { " [paused]" } else { "" },
                if control.interpolation() {
                    ""
                } else {
                    " [no interpolation]"
                },
            );
        }
    }

    fn on_tick<S: EngineScalar>(&mut self, _world: &World, tick: u64) {
        if self.mark_first_tick && tick == 1 {
            println!("laige-demo: first tick");
        }
    }

    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        present::present::<S>(world, frame, &mut self.hud_hash);
    }

    fn view(&self, config: &EngineConfig) -> ViewRect {
        demo_view(config)
    }
}

/// The demo as one peer of a network session of `players` players: one
/// attractor per player, steered by that player's [`PilotInput`] (the
/// session itself is the engine's, `EngineBuilder::net`); everything but
/// the setup, the window pilot and the closing line is the [`Demo`]'s.
#[derive(Debug)]
pub struct NetDemo {
    /// The local game's options (entities, progress lines).
    pub demo: Demo,
    /// Players in the session (2..=4).
    pub players: u8,
    /// A scripted hand on a windowed player's controls (`--pilot`).
    pub pilot: Option<WindowPilot>,
}

impl laige_engine::GameWrapper for NetDemo {
    type Inner = Demo;

    fn inner(&self) -> &Demo {
        &self.demo
    }

    fn inner_mut(&mut self) -> &mut Demo {
        &mut self.demo
    }

    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        sim::install_for::<S>(setup, self.demo.entities, self.players)
    }

    fn on_frame<S: EngineScalar>(&mut self, world: &World, control: &mut Control) {
        Game::on_frame::<S>(&mut self.demo, world, control);
        if let Some(pilot) = &mut self.pilot {
            pilot.steer(control);
        }
    }

    /// One closing line after a session that simulated: every player's
    /// last input as this peer simulated it and the sprites alive (`laige-demo: pilots 0 (x, y) 1 (x, y);
    /// sprites N`), so two peers' runs can be compared by eye or by a test.
    fn finish<S: EngineScalar>(&mut self, world: &World, report: &laige_engine::RunReport) {
        Game::finish::<S>(&mut self.demo, world, report);
        if report.net.as_ref().is_none_or(|n| n.stats.ticks == 0) {
            return;
        }
        let Some(inputs) = laige_engine::net::PlayerInputs::<PilotInput>::of(world) else {
            return;
        };
        let mut line = String::from("laige-demo: pilots");
        for (player, input, _) in inputs.iter() {
            line.push_str(&format!(" {player} ({}, {})", input.x, input.y));
        }
        let sprites = world.ecs().query::<&Velocity<S>>().iter().count();
        println!("{line}; sprites {sprites}");
    }
}

/// The key presses of the window pilot: (the tick, in seconds of ticks,
/// from which the press is raised; the keys): a burst at 2 s and at 4 s,
/// a despawn at 6 s. A run that plays them all ends with one burst more
/// than it started with.
pub const PILOT_PRESSES: [(u64, u8); 3] = [
    (2, PilotInput::BURST),
    (4, PilotInput::BURST),
    (6, PilotInput::DESPAWN),
];

/// A scripted hand on a windowed network player's controls (`--pilot`,
/// for tests and unattended demos): at every frame that follows a new
/// tick it raises the headless pilot's pointer for that tick
/// ([`pilot_point`]) and, once their tick is reached, the
/// [`PILOT_PRESSES`], as game actions ([`Control::action`]) — stamped on
/// the loop's clock at the frame's reading, as the window's own events
/// are, and read by [`PilotInput`] like a pointer move and a key press.
#[derive(Clone, Copy, Debug)]
pub struct WindowPilot {
    player: u8,
    tick_rate_hz: u32,
    last_tick: Option<u64>,
    presses: usize,
}

impl WindowPilot {
    /// The pilot of `player` in a session ticking at `tick_rate_hz`.
    #[must_use]
    pub fn new(player: u8, tick_rate_hz: u32) -> Self {
        Self {
            player,
            tick_rate_hz,
            last_tick: None,
            presses: 0,
        }
    }

    /// This frame's actions (none when no tick completed since the last
    /// frame).
    pub fn steer(&mut self, control: &mut Control) {
        let tick = control.tick();
        if self.last_tick == Some(tick) {
            return;
        }
        self.last_tick = Some(tick);
        let at = pilot_point(self.player, tick, self.tick_rate_hz);
        let units = |v: i32| i16::try_from(v / InputPoint::SUBUNITS).unwrap_or(0);
        control.action(
            PilotInput::ACTION_POINTER,
            PilotInput::pointer_value(units(at.x), units(at.y)),
        );
        if let Some(&(second, keys)) = PILOT_PRESSES.get(self.presses)
            && tick >= second * u64::from(self.tick_rate_hz)
        {
            control.action(PilotInput::ACTION_KEYS, i32::from(keys));
            self.presses += 1;
        }
    }
}
