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
//! **Implementation.** The simulation is the reference workload's math
//! (`workload::integrate` and `workload::attract`, the very functions the
//! sim budget is measured on) in three systems, generic over the scalar so
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
//! simulation. Presentation hands one sprite per entity (current and
//! previous position) to the render thread; the renderer interpolates with
//! the frame's alpha.
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
//! at 3 s. See `--help` ([`USAGE`]) for the options.

#![allow(
    clippy::print_stdout,
    reason = "a game prints its progress and report; the run's events go through tracing"
)]

pub mod args;
pub mod replay;

use laige_engine::hecs::Entity;
use laige_engine::input::{ButtonState, CoordSpace, InputKind, InputPoint, KeyCode, ScriptAt};
use laige_engine::render::gl::{Sprite, ViewRect};
use laige_engine::sim::StateHash;
use laige_engine::sim::workload::{
    self, Position, PrevPosition, SplitMix64, Velocity, WorkloadConfig, WorkloadParams,
};
use laige_engine::{Control, EngineConfig, EngineScalar, Game, Setup, Vec2, World};

pub use args::{Args, USAGE};

/// Sprites one B or D press spawns or despawns: 1000, just under the
/// world's default per-frame churn budget (1024), so a burst never trips
/// the churn guardrail.
pub const BURST: u32 = 1000;
/// Most bursts alive at once (the arena's storage is reserved for the
/// initial sprites plus this many bursts, so spawning never grows it).
pub const MAX_BURSTS: u32 = 16;
/// The arena's half extent in world units: ±1000 (a Q16.16-friendly size;
/// the wide normalize covers it).
pub const HALF_EXTENT: i32 = 1000;
/// A sprite's side in world units.
// det-allow(float-type, float-literal): render-space presentation (sprite size, colour, view), never sim state
pub const SPRITE_SIDE: f32 = 8.0;

/// The attractor: where the swarm is pulled to (hashed state).
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
#[state_hash(crate = laige_engine::sim)]
pub struct Attractor<S>(pub Vec2<S>);

/// The demo's generator and counters (hashed state): the SplitMix64 state
/// the bursts draw from, and the sprites spawned by bursts so far.
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
#[state_hash(crate = laige_engine::sim)]
pub struct Spawner {
    /// The generator's state.
    pub rng: u64,
    /// Burst sprites alive (0..=MAX_BURSTS × BURST).
    pub burst_alive: u32,
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
}

impl Default for Demo {
    fn default() -> Self {
        Self {
            entities: 10_000,
            progress_every_frames: 60,
            mark_first_tick: false,
        }
    }
}

/// The workload parameters of the demo's arena at `tick_rate_hz`.
fn arena(entities: u32, seed: u64, tick_rate_hz: u32) -> WorkloadConfig {
    WorkloadConfig {
        entities,
        seed,
        tick_rate_hz,
        half_extent: HALF_EXTENT,
        max_speed: 120,
        attraction: 60,
    }
}

/// A burst of `BURST` new sprites from the spawner's generator, near the
/// attractor.
fn spawn_burst<S: EngineScalar>(
    ctx: &mut laige_engine::SystemContext<'_>,
    spawner: &mut Spawner,
    at: Vec2<S>,
) {
    let mut rng = SplitMix64::new(spawner.rng);
    let spread = 64 * 256; // ±64 units, in 1/256
    let speed = 200 * 256;
    for _ in 0..BURST {
        let offset = Vec2::new(
            S::from_ratio(rng.next_in(spread), 256),
            S::from_ratio(rng.next_in(spread), 256),
        );
        let pos = at + offset;
        let vel = Vec2::new(
            S::from_ratio(rng.next_in(speed), 256),
            S::from_ratio(rng.next_in(speed), 256),
        );
        ctx.spawn((Position(pos), PrevPosition(pos), Velocity(vel)));
    }
    spawner.rng = rng.next();
    spawner.burst_alive += BURST;
}

impl Game for Demo {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        let config = arena(self.entities, setup.seed(), setup.tick_rate_hz());
        config.validate()?;
        let world = setup.world();
        world.register_hashed_as::<Position<S>>("demo.position")?;
        world.register_hashed_as::<PrevPosition<S>>("demo.prev_position")?;
        world.register_hashed_as::<Velocity<S>>("demo.velocity")?;
        world.register_hashed_as::<Attractor<S>>("demo.attractor")?;
        world.register_hashed_as::<Spawner>("demo.spawner")?;
        // Storage for every sprite the demo can ever have, so a burst inside
        // a tick allocates nothing (G-R1): the archetype's columns, and the
        // ECS's free list of entity ids — a despawn pushes onto it, so it is
        // grown once here by spawning and despawning the largest possible
        // swarm (at most `capacity` ids ever exist: a spawn reuses a freed
        // id first, and bursts are capped at MAX_BURSTS).
        let capacity = self.entities + MAX_BURSTS * BURST;
        let ecs = world.ecs_mut();
        ecs.reserve::<(Position<S>, PrevPosition<S>, Velocity<S>)>(capacity);
        let placeholders: Vec<_> = ecs
            .spawn_batch((0..capacity).map(|_| {
                let p = Vec2::<S>::ZERO;
                (Position(p), PrevPosition(p), Velocity(p))
            }))
            .collect();
        for e in placeholders {
            let _ = ecs.despawn(e);
        }
        ecs.spawn_batch(workload::initial_state::<S>(&config));
        world.spawn((
            Attractor(Vec2::<S>::ZERO),
            Spawner {
                rng: config.seed ^ 0xdeb0_0000,
                burst_alive: 0,
            },
        ));

        let mut doomed: Vec<Entity> = Vec::with_capacity(BURST as usize);
        world.register_system("demo/input", 0, move |ctx| {
            let input = ctx.input();
            if input.is_empty() {
                return Ok(());
            }
            let Some((attractor, spawner)) = ctx
                .query_mut::<(&Attractor<S>, &Spawner)>()
                .next()
                .map(|(a, s)| (*a, *s))
            else {
                return Ok(());
            };
            let (mut attractor, mut spawner) = (attractor, spawner);
            for ev in input {
                match ev.kind {
                    InputKind::MouseMove {
                        position,
                        space: CoordSpace::World,
                    } => attractor.0 = position.to_vec2::<S>(),
                    InputKind::Key {
                        key: KeyCode::B,
                        state: ButtonState::Pressed,
                    } if spawner.burst_alive < MAX_BURSTS * BURST => {
                        spawn_burst(ctx, &mut spawner, attractor.0);
                    }
                    InputKind::Key {
                        key: KeyCode::D,
                        state: ButtonState::Pressed,
                    } => {
                        doomed.clear();
                        doomed.extend(
                            ctx.query_mut::<(Entity, &Velocity<S>)>()
                                .map(|(e, _)| e)
                                .take(BURST as usize),
                        );
                        for &e in &doomed {
                            ctx.despawn(e)?;
                        }
                        spawner.burst_alive = spawner.burst_alive.saturating_sub(BURST);
                    }
                    _ => {}
                }
            }
            if let Some((a, s)) = ctx.query_mut::<(&mut Attractor<S>, &mut Spawner)>().next() {
                *a = attractor;
                *s = spawner;
            }
            Ok(())
        })?;
        let params = WorkloadParams::<S>::new(&config);
        world.register_system("demo/integrate", 100, move |ctx| {
            for (pos, prev, vel) in
                ctx.query_mut::<(&mut Position<S>, &mut PrevPosition<S>, &mut Velocity<S>)>()
            {
                workload::integrate(&mut pos.0, &mut prev.0, &mut vel.0, &params);
            }
            Ok(())
        })?;
        world.register_system("demo/attract", 200, move |ctx| {
            let center = ctx
                .query_mut::<&Attractor<S>>()
                .next()
                .map_or(Vec2::ZERO, |a| a.0);
            let params = WorkloadParams { center, ..params };
            for (pos, vel) in ctx.query_mut::<(&Position<S>, &mut Velocity<S>)>() {
                workload::attract(&pos.0, &mut vel.0, &params);
            }
            Ok(())
        })?;
        Ok(())
    }

    fn on_input(&mut self, event: &laige_engine::input::InputEvent, control: &mut Control) {
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

    fn on_frame(&mut self, world: &World, control: &mut Control) {
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

    fn on_tick(&mut self, _world: &World, tick: u64) {
        if self.mark_first_tick && tick == 1 {
            println!("laige-demo: first tick");
        }
    }

    fn present<S: EngineScalar>(&mut self, world: &World, sprites: &mut Vec<Sprite>) {
        let mut query = world
            .ecs()
            .query::<(&Position<S>, &PrevPosition<S>, &Velocity<S>)>();
        for (pos, prev, vel) in query.iter() {
            let (vx, vy) = (vel.0.x.to_f32(), vel.0.y.to_f32());
            // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
            let speed = (vx * vx + vy * vy).sqrt().max(1e-3);
            sprites.push(Sprite {
                position: [pos.0.x.to_f32(), pos.0.y.to_f32()],
                prev_position: [prev.0.x.to_f32(), prev.0.y.to_f32()],
                size: [SPRITE_SIDE, SPRITE_SIDE],
                // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
                rotation: 0.0,
                color: [
                    // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
                    0.55 + 0.45 * vx / speed,
                    // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
                    0.55 + 0.45 * vy / speed,
                    // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
                    0.95,
                    // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
                    1.0,
                ],
                ..Sprite::default()
            });
        }
        let mut attractor = world.ecs().query::<&Attractor<S>>();
        if let Some(a) = attractor.iter().next() {
            sprites.push(Sprite::quad(
                [a.0.x.to_f32(), a.0.y.to_f32()],
                // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
                [SPRITE_SIDE * 3.0, SPRITE_SIDE * 3.0],
                // det-allow(float-literal): render-space presentation (sprite size, colour, view), never sim state
                [1.0, 0.85, 0.2, 1.0],
            ));
        }
    }

    fn view(&self, config: &EngineConfig) -> ViewRect {
        demo_view(config)
    }
}

/// The arena fitted to the window's aspect: the square `±HALF_EXTENT`
/// (plus a sprite of margin) centered, the longer axis extended.
#[must_use]
pub fn demo_view(config: &EngineConfig) -> ViewRect {
    #[allow(
        clippy::cast_precision_loss,
        reason = "window sides ≤ 16384 and the extent are exact in f32"
    )]
    let (w, h, half) = (
        // det-allow(float-cast): render-space presentation (sprite size, colour, view), never sim state
        config.render.window_width as f32,
        // det-allow(float-cast): render-space presentation (sprite size, colour, view), never sim state
        config.render.window_height as f32,
        // det-allow(float-cast): render-space presentation (sprite size, colour, view), never sim state
        HALF_EXTENT as f32 + SPRITE_SIDE,
    );
    let (hx, hy) = if w >= h {
        (half * w / h, half)
    } else {
        (half, half * h / w)
    };
    ViewRect::new(-hx, -hy, hx, hy)
        .or_else(|_| ViewRect::new(-half, -half, half, half))
        .unwrap_or_else(|_| unreachable!("a symmetric finite view is valid"))
}

/// The headless session's script for a run of `seconds` at
/// `tick_rate_hz`: the attractor travels a diamond through the arena
/// (one pointer move every 6 ticks, integer math only, so the script is
/// the same on every platform), a burst spawns at 1 s and 2 s, one
/// despawns at 3 s.
#[must_use]
pub fn headless_script(seconds: u64, tick_rate_hz: u32) -> Vec<(ScriptAt, InputKind)> {
    let rate = u64::from(tick_rate_hz);
    let ticks = seconds.saturating_mul(rate);
    let mut script = Vec::new();
    let r = i64::from(HALF_EXTENT) * 3 / 5 * 256; // 600 units, Q24.8
    // One lap per 4 s: a triangle wave on each axis, y a quarter lap behind.
    let lap = 4 * rate.max(1);
    let tri = |t: u64| -> i64 {
        let phase = i64::try_from(t % lap).unwrap_or(0);
        let lap = i64::try_from(lap).unwrap_or(1);
        // -r..r..-r over one lap.
        (4 * r * (phase - lap / 2).abs()) / lap - r
    };
    for tick in (0..ticks).step_by(6) {
        let x = tri(tick);
        let y = tri(tick + lap / 4);
        script.push((
            ScriptAt::Tick(tick),
            InputKind::MouseMove {
                position: InputPoint {
                    x: i32::try_from(x).unwrap_or(0),
                    y: i32::try_from(y).unwrap_or(0),
                },
                space: CoordSpace::World,
            },
        ));
    }
    for (second, key) in [(1, KeyCode::B), (2, KeyCode::B), (3, KeyCode::D)] {
        if second < seconds {
            script.push((
                ScriptAt::Tick(second * rate),
                InputKind::Key {
                    key,
                    state: ButtonState::Pressed,
                },
            ));
        }
    }
    script
}
