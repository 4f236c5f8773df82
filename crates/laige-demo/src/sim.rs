//! The demo's simulation: its hashed state, its three systems and the
//! headless session's input script — integer and `SimScalar` code only
//! (the determinism lint's scope), generic over the scalar so the
//! configured math backend picks the instantiation.

use laige_engine::hecs::Entity;
use laige_engine::input::{
    ButtonState, CoordSpace, InputEvent, InputKind, InputPoint, KeyCode, ScriptAt,
};
use laige_engine::net::{PlayerInput, PlayerInputs};
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

/// Which player steers an attractor (network sessions: one attractor per
/// player, each pulling the whole swarm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
pub struct Pilot(pub u8);

/// One player's input in a network session (what GGRS sends each tick,
/// 5 bytes): where the player's pointer is, in whole world units, and
/// the burst keys pressed during the tick ([`PilotInput::BURST`],
/// [`PilotInput::DESPAWN`]).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize,
)]
pub struct PilotInput {
    /// The pointer's x in world units (±HALF_EXTENT).
    pub x: i16,
    /// The pointer's y in world units.
    pub y: i16,
    /// Keys pressed this tick (bit flags).
    pub keys: u8,
}

impl PilotInput {
    /// B was pressed: spawn a burst at this player's attractor.
    pub const BURST: u8 = 1;
    /// D was pressed: despawn a burst.
    pub const DESPAWN: u8 = 2;
    /// The game action that moves the pointer (`Control::action`, what
    /// the demo's window pilot raises): the value packs x (high 16 bits)
    /// and y (low 16 bits) in whole world units, each an `i16`.
    pub const ACTION_POINTER: u32 = 0x0050_494c;
    /// The game action that presses keys: the value's low bits are
    /// [`BURST`](Self::BURST) and [`DESPAWN`](Self::DESPAWN).
    pub const ACTION_KEYS: u32 = 0x0050_494b;

    /// [`ACTION_POINTER`](Self::ACTION_POINTER)'s value for the point
    /// `(x, y)` in whole world units.
    #[must_use]
    pub fn pointer_value(x: i16, y: i16) -> i32 {
        (i32::from(x) << 16) | i32::from(y.cast_unsigned())
    }
}

impl PlayerInput for PilotInput {
    /// The pointer stays where it was until it moves; key presses count
    /// for the tick they fall in only.
    fn from_events(previous: Self, events: &[InputEvent]) -> Self {
        let units = |v: i32| {
            let clamped = (v / InputPoint::SUBUNITS).clamp(-HALF_EXTENT, HALF_EXTENT);
            i16::try_from(clamped).unwrap_or(0)
        };
        let mut s = Self {
            keys: 0,
            ..previous
        };
        for ev in events {
            match ev.kind {
                InputKind::MouseMove {
                    position,
                    space: CoordSpace::World,
                } => (s.x, s.y) = (units(position.x), units(position.y)),
                InputKind::Key {
                    key,
                    state: ButtonState::Pressed,
                } if key == KeyCode::B => s.keys |= Self::BURST,
                InputKind::Key {
                    key,
                    state: ButtonState::Pressed,
                } if key == KeyCode::D => s.keys |= Self::DESPAWN,
                InputKind::Action {
                    id: Self::ACTION_POINTER,
                    value,
                } => {
                    let half = i16::try_from(HALF_EXTENT).unwrap_or(i16::MAX);
                    let x = i16::try_from(value >> 16).unwrap_or(0);
                    let y = u16::try_from(value & 0xffff).unwrap_or(0).cast_signed();
                    (s.x, s.y) = (x.clamp(-half, half), y.clamp(-half, half));
                }
                InputKind::Action {
                    id: Self::ACTION_KEYS,
                    value,
                } => {
                    let pressed = value & i32::from(Self::BURST | Self::DESPAWN);
                    s.keys |= u8::try_from(pressed).unwrap_or(0);
                }
                _ => {}
            }
        }
        s
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

/// Registers the demo's hashed components and systems for `S` and spawns
/// its initial world: `entities` sprites from the workload's seeded
/// initial state, the attractor and the spawner.
///
/// # Errors
/// An invalid arena (`entities` out of the workload's range) or a
/// registration the world rejects.
pub fn install<S: EngineScalar>(setup: &mut Setup<'_>, entities: u32) -> laige_engine::Result<()> {
    install_for::<S>(setup, entities, 0)
}

/// [`install`] for a network session of `players` players (0: a local
/// game): each player's [`PilotInput`] moves the attractor of their
/// [`Pilot`] and triggers their bursts; every attractor pulls the whole
/// swarm. Raw input events are not read (only the players' inputs are
/// shared by every peer).
///
/// # Errors
/// As [`install`].
pub fn install_for<S: EngineScalar>(
    setup: &mut Setup<'_>,
    entities: u32,
    players: u8,
) -> laige_engine::Result<()> {
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
    let spawner = Spawner {
        rng: config.seed ^ 0xdeb0_0000,
        burst_alive: 0,
    };
    if players > 0 {
        return install_pilots::<S>(setup, &config, spawner, players);
    }
    let world = setup.world();
    world.spawn((Attractor(Vec2::<S>::ZERO), spawner));

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
                } => despawn_burst::<S>(ctx, &mut spawner, &mut doomed)?,
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
    register_integrate::<S>(world, params)?;
    world.register_system("demo/attract", 200, move |ctx| {
        let center = ctx
            .query_mut::<&Attractor<S>>()
            .next()
            .map_or(Vec2::ZERO, |a| a.0);
        // The column pass: the directions of a batch normalized together,
        // the same bits as `workload::attract` on each sprite.
        workload::attract_world(ctx.ecs(), &WorkloadParams { center, ..params });
        Ok(())
    })?;
    Ok(())
}

/// Despawns up to a burst of sprites (the first ones a query finds).
fn despawn_burst<S: EngineScalar>(
    ctx: &mut laige_engine::SystemContext<'_>,
    spawner: &mut Spawner,
    doomed: &mut Vec<Entity>,
) -> laige_engine::Result<()> {
    doomed.clear();
    doomed.extend(
        ctx.query_mut::<(Entity, &Velocity<S>)>()
            .map(|(e, _)| e)
            .take(BURST as usize),
    );
    for &e in doomed.iter() {
        ctx.despawn(e)?;
    }
    spawner.burst_alive = spawner.burst_alive.saturating_sub(BURST);
    Ok(())
}

/// The network game's attractors (one per player, the first with the
/// spawner) and systems: `demo/pilots` (order 0) applies every player's
/// input, `demo/integrate` as in the local game, `demo/attract` pulls
/// each sprite toward every attractor in turn.
fn install_pilots<S: EngineScalar>(
    setup: &mut Setup<'_>,
    config: &WorkloadConfig,
    spawner: Spawner,
    players: u8,
) -> laige_engine::Result<()> {
    let world = setup.world();
    world.register_hashed_as::<Pilot>("demo.pilot")?;
    world.spawn((Attractor(Vec2::<S>::ZERO), Pilot(0), spawner));
    for p in 1..players {
        world.spawn((Attractor(Vec2::<S>::ZERO), Pilot(p)));
    }
    let mut doomed: Vec<Entity> = Vec::with_capacity(BURST as usize);
    world.register_system("demo/pilots", 0, move |ctx| {
        let Some(inputs) = PlayerInputs::<PilotInput>::of(ctx) else {
            return Ok(());
        };
        let Some(mut spawner) = ctx.query_mut::<&Spawner>().next().copied() else {
            return Ok(());
        };
        for (player, input, _) in inputs.iter() {
            let at = Vec2::new(S::from_i32(input.x.into()), S::from_i32(input.y.into()));
            let mut moved = false;
            for (a, pilot) in ctx.query_mut::<(&mut Attractor<S>, &Pilot)>() {
                if usize::from(pilot.0) == player {
                    a.0 = at;
                    moved = true;
                }
            }
            if !moved {
                continue;
            }
            if input.keys & PilotInput::BURST != 0 && spawner.burst_alive < MAX_BURSTS * BURST {
                spawn_burst(ctx, &mut spawner, at);
            }
            if input.keys & PilotInput::DESPAWN != 0 {
                despawn_burst::<S>(ctx, &mut spawner, &mut doomed)?;
            }
        }
        if let Some(s) = ctx.query_mut::<&mut Spawner>().next() {
            *s = spawner;
        }
        Ok(())
    })?;
    let params = WorkloadParams::<S>::new(config);
    register_integrate::<S>(world, params)?;
    world.register_system("demo/attract", 200, move |ctx| {
        let mut centers = [Vec2::<S>::ZERO; laige_engine::net::MAX_PLAYERS];
        let mut n = 0;
        for a in ctx.query_mut::<&Attractor<S>>() {
            if n < centers.len() {
                centers[n] = a.0;
                n += 1;
            }
        }
        for (pos, vel) in ctx.query_mut::<(&Position<S>, &mut Velocity<S>)>() {
            for &center in &centers[..n] {
                workload::attract(&pos.0, &mut vel.0, &WorkloadParams { center, ..params });
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// `demo/integrate` (order 100): position += velocity × dt, off the walls.
fn register_integrate<S: EngineScalar>(
    world: &mut laige_engine::World,
    params: WorkloadParams<S>,
) -> laige_engine::Result<()> {
    world.register_system("demo/integrate", 100, move |ctx| {
        // The column pass over each archetype: the same bits as
        // `workload::integrate` on each sprite.
        workload::integrate_world(ctx.ecs(), &params);
        Ok(())
    })
}

/// Player `player`'s pointer at `tick` in a network session (Q24.8
/// world units): the headless path ([`diamond_point`]) a quarter lap
/// later per player, mirrored on x for odd players — where
/// [`pilot_script`] puts it.
#[must_use]
pub fn pilot_point(player: u8, tick: u64, tick_rate_hz: u32) -> InputPoint {
    let shift = u64::from(player) * u64::from(tick_rate_hz);
    let mut at = diamond_point(tick + shift, tick_rate_hz);
    if player % 2 == 1 {
        at.x = -at.x;
    }
    at
}

/// The headless script of player `player` of a network session: the
/// local game's pointer path ([`headless_script`]) a quarter lap later
/// per player, mirrored on x for odd players, so the attractors travel
/// apart and each player's input changes every 6 ticks (remote
/// predictions fail: rollbacks happen). Player 0 also spawns a burst at
/// 1 s and despawns one at 3 s (a rollback across spawns and despawns).
#[must_use]
pub fn pilot_script(player: u8, seconds: u64, tick_rate_hz: u32) -> Vec<(ScriptAt, InputKind)> {
    let rate = u64::from(tick_rate_hz);
    let shift = u64::from(player) * rate; // a quarter lap per player
    let mut script = headless_script(seconds + 4, tick_rate_hz);
    script.retain_mut(|(at, kind)| {
        let ScriptAt::Tick(t) = at else {
            return false;
        };
        match kind {
            InputKind::MouseMove { position, .. } => {
                if *t < shift {
                    return false;
                }
                *t -= shift;
                if player % 2 == 1 {
                    position.x = -position.x;
                }
            }
            InputKind::Key { key, .. } => {
                let second = *t / rate.max(1);
                if player != 0 || (*key == KeyCode::B && second != 1) {
                    return false;
                }
            }
            _ => {}
        }
        *t < seconds * rate
    });
    script
}

/// The headless pilot's pointer at `tick` (Q24.8 world units): a diamond
/// through the arena, one lap per 4 s at `tick_rate_hz` — a triangle wave
/// of ±600 units on each axis, y a quarter lap behind. Integer math only,
/// so the path is the same on every platform.
#[must_use]
pub fn diamond_point(tick: u64, tick_rate_hz: u32) -> InputPoint {
    let r = i64::from(HALF_EXTENT) * 3 / 5 * 256; // 600 units, Q24.8
    let lap = 4 * u64::from(tick_rate_hz).max(1);
    let tri = |t: u64| -> i64 {
        let phase = i64::try_from(t % lap).unwrap_or(0);
        let lap = i64::try_from(lap).unwrap_or(1);
        // -r..r..-r over one lap.
        (4 * r * (phase - lap / 2).abs()) / lap - r
    };
    InputPoint {
        x: i32::try_from(tri(tick)).unwrap_or(0),
        y: i32::try_from(tri(tick + lap / 4)).unwrap_or(0),
    }
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
    for tick in (0..ticks).step_by(6) {
        script.push((
            ScriptAt::Tick(tick),
            InputKind::MouseMove {
                position: diamond_point(tick, tick_rate_hz),
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
