//! The demo's simulation: its hashed state, its three systems and the
//! headless session's input script — integer and `SimScalar` code only
//! (the determinism lint's scope), generic over the scalar so the
//! configured math backend picks the instantiation.

use laige_engine::hecs::Entity;
use laige_engine::input::{ButtonState, CoordSpace, InputKind, InputPoint, KeyCode, ScriptAt};
use laige_engine::sim::StateHash;
use laige_engine::sim::workload::{
    self, Position, PrevPosition, SplitMix64, Velocity, WorkloadConfig, WorkloadParams,
};
use laige_engine::{EngineScalar, Setup, Vec2};

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
/// The attractor: where the swarm is pulled to (hashed state).
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
pub struct Attractor<S>(pub Vec2<S>);

/// The demo's generator and counters (hashed state): the SplitMix64 state
/// the bursts draw from, and the sprites spawned by bursts so far.
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
pub struct Spawner {
    /// The generator's state.
    pub rng: u64,
    /// Burst sprites alive (0..=MAX_BURSTS × BURST).
    pub burst_alive: u32,
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

/// Registers the demo's hashed components and systems for `S` and spawns
/// its initial world: `entities` sprites from the workload's seeded
/// initial state, the attractor and the spawner.
///
/// # Errors
/// An invalid arena (`entities` out of the workload's range) or a
/// registration the world rejects.
pub fn install<S: EngineScalar>(setup: &mut Setup<'_>, entities: u32) -> laige_engine::Result<()> {
    let config = arena(entities, setup.seed(), setup.tick_rate_hz());
    config.validate()?;
    let world = setup.world();
    world.register_hashed_as::<Position<S>>("demo.position")?;
    world.register_hashed_as::<PrevPosition<S>>("demo.prev_position")?;
    world.register_hashed_as::<Velocity<S>>("demo.velocity")?;
    world.register_hashed_as::<Attractor<S>>("demo.attractor")?;
    world.register_hashed_as::<Spawner>("demo.spawner")?;
    // Storage for every sprite the demo can ever have, so a burst inside
    // a tick allocates nothing: the archetype's columns, and the
    // ECS's free list of entity ids — a despawn pushes onto it, so it is
    // grown once here by spawning and despawning the largest possible
    // swarm (at most `capacity` ids ever exist: a spawn reuses a freed
    // id first, and bursts are capped at MAX_BURSTS).
    let capacity = entities + MAX_BURSTS * BURST;
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
