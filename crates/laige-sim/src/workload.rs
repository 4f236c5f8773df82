//! The reference workload: the sim budget's yardstick, shared
//! by the tests, the bench, the engine and the demo.
//!
//! `n` entities, each with a [`Position`], a [`PrevPosition`] and a
//! [`Velocity`] (`Vec2<S>`), in a square world of `±half_extent` units
//! (default ±4096: "a world of thousands of units", far beyond the ~181
//! units where Q16.16's plain `length` saturates — hence the wide path).
//! Two systems per tick, in this order:
//!
//! 1. [`INTEGRATE_SYSTEM`] (order 100): `prev = pos; pos += vel × dt`, then
//!    reflect off the world bounds (position mirrored back inside, that
//!    velocity component negated) — [`integrate`], over the archetype
//!    columns ([`integrate_world`]).
//! 2. [`ATTRACT_SYSTEM`] (order 200): a point attractor at the world
//!    centre, `vel += normalize_wide(center − pos) × (attraction × dt)` —
//!    [`attract`], run in batches over the archetype columns
//!    ([`attract_world`]: the directions of 64 entities normalized
//!    together, the same bits).
//!
//! The initial state is a pure function of the seed ([`SplitMix64`], then
//! integers → `S::from_ratio`): the same config spawns the same world on
//! every platform, on either backend. The math is public ([`integrate`],
//! [`attract`] and its batched forms [`attract_all`], [`attract_columns`],
//! [`attract_world`], [`WorkloadParams`]) so the bench can run the very
//! same math as a raw hecs loop and as a plain `Vec` loop.
//!
//! ```
//! use laige_core::Fpx16_16;
//! use laige_sim::World;
//! use laige_sim::workload::{self, WorkloadConfig};
//!
//! let mut world = World::default();
//! let config = WorkloadConfig { entities: 1_000, ..WorkloadConfig::default() };
//! workload::install::<Fpx16_16>(&mut world, &config)?;
//! let schedule = world.schedule_systems();
//! let before = world.state_hash();
//! world.run_systems(&schedule)?;
//! assert_ne!(world.state_hash(), before);
//! # Ok::<(), laige_core::Error>(())
//! ```

use laige_core::{Error, Result, SimScalar, Vec2, VectorUnit};

use crate::{StateHash, World, emit, events};

/// The integrate-and-reflect system's name.
pub const INTEGRATE_SYSTEM: &str = "workload/integrate";
/// The point-attractor system's name.
pub const ATTRACT_SYSTEM: &str = "workload/attract";
/// The integrate system's order key (runs first).
pub const INTEGRATE_ORDER: i32 = 100;
/// The attract system's order key (runs second).
pub const ATTRACT_ORDER: i32 = 200;

/// Most entities [`WorkloadConfig`] accepts: 16 Mi (the bench goes to 1M).
pub const MAX_ENTITIES: u32 = 1 << 24;
/// Largest accepted world half extent: 16384 units (Q16.16 holds ±32767;
/// the margin keeps `pos + vel × dt` and the mirror step unsaturated).
pub const MAX_HALF_EXTENT: i32 = 16_384;

/// An entity's position (hashed sim state).
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Position<S>(pub Vec2<S>);

/// The position before the last integrate step (hashed sim state; a
/// game presents it as the sprite's `prev_position`, and the renderer
/// interpolates from it to [`Position`] with the frame's alpha).
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct PrevPosition<S>(pub Vec2<S>);

/// An entity's velocity in units per second (hashed sim state).
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Velocity<S>(pub Vec2<S>);

/// The reference workload's configuration. Integers only: it is turned
/// into scalars with `S::from_i32` / `S::from_ratio`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkloadConfig {
    /// Entities to spawn, 0..=[`MAX_ENTITIES`] (default 10 000: the M1
    /// budget workload).
    pub entities: u32,
    /// The spawn seed (default `0x1a16e`).
    pub seed: u64,
    /// The tick rate the systems integrate at (`dt = 1 / tick_rate_hz`),
    /// 20..=120 (default 60, the loop's default).
    pub tick_rate_hz: u32,
    /// World half extent in units, 1..=[`MAX_HALF_EXTENT`] (default 4096).
    pub half_extent: i32,
    /// Largest initial speed component in units/s, 0..=1024 (default 64).
    pub max_speed: i32,
    /// The attractor's acceleration in units/s², 0..=1024 (default 8).
    pub attraction: i32,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        Self {
            entities: 10_000,
            seed: 0x1a16e,
            tick_rate_hz: 60,
            half_extent: 4096,
            max_speed: 64,
            attraction: 8,
        }
    }
}

impl WorkloadConfig {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// `workload/config_invalid` (InvalidArgument, naming the field), after
    /// one rate-limited warn.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, value: i64, accepted: &'static str| {
            let err =
                Error::invalid_argument(events::WORKLOAD_CONFIG_INVALID, field, value, accepted);
            emit::report(&err);
            Err(err)
        };
        if self.entities > MAX_ENTITIES {
            return bad("entities", i64::from(self.entities), "0..=16777216");
        }
        if !(20..=120).contains(&self.tick_rate_hz) {
            return bad("tick_rate_hz", i64::from(self.tick_rate_hz), "20..=120");
        }
        if !(1..=MAX_HALF_EXTENT).contains(&self.half_extent) {
            return bad(
                "half_extent",
                i64::from(self.half_extent),
                "1..=16384 units",
            );
        }
        if !(0..=1024).contains(&self.max_speed) {
            return bad("max_speed", i64::from(self.max_speed), "0..=1024 units/s");
        }
        if !(0..=1024).contains(&self.attraction) {
            return bad(
                "attraction",
                i64::from(self.attraction),
                "0..=1024 units/s^2",
            );
        }
        Ok(())
    }
}

/// The workload's per-tick constants in the backend's scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkloadParams<S> {
    /// `1 / tick_rate_hz` s.
    pub dt: S,
    /// The world half extent.
    pub bound: S,
    /// The attractor (the world centre).
    pub center: Vec2<S>,
    /// `attraction × dt`: the velocity change per tick toward the centre.
    pub accel_dt: S,
}

impl<S: SimScalar> WorkloadParams<S> {
    /// The constants of `config` (assumed validated).
    #[must_use]
    pub fn new(config: &WorkloadConfig) -> Self {
        let rate = i32::try_from(config.tick_rate_hz).unwrap_or(60);
        Self {
            dt: S::from_ratio(1, rate),
            bound: S::from_i32(config.half_extent),
            center: Vec2::ZERO,
            accel_dt: S::from_ratio(config.attraction, rate),
        }
    }
}

/// One entity's integrate-and-reflect step (system 1): `prev = pos` and
/// `pos += vel × dt`, then a component that left `[-bound, bound]` is
/// mirrored back inside and its velocity flipped.
#[inline]
pub fn integrate<S: SimScalar>(
    pos: &mut Vec2<S>,
    prev: &mut Vec2<S>,
    vel: &mut Vec2<S>,
    p: &WorkloadParams<S>,
) {
    advance(pos, prev, vel, p);
    keep_inside(pos, vel, p);
}

/// The first half of [`integrate`]: `prev = pos`, then `pos += vel × dt`.
#[inline]
fn advance<S: SimScalar>(
    pos: &mut Vec2<S>,
    prev: &mut Vec2<S>,
    vel: &Vec2<S>,
    p: &WorkloadParams<S>,
) {
    *prev = *pos;
    *pos += *vel * p.dt;
}

/// The second half of [`integrate`]: a component outside `[-bound, bound]`
/// is mirrored back inside ([`reflect`]) and its velocity flipped; nothing
/// is written for a body inside (the common case).
#[inline]
fn keep_inside<S: SimScalar>(pos: &mut Vec2<S>, vel: &mut Vec2<S>, p: &WorkloadParams<S>) {
    if is_outside(pos, p.bound) {
        let (x, vx) = reflect(pos.x, vel.x, p.bound);
        let (y, vy) = reflect(pos.y, vel.y, p.bound);
        *pos = Vec2::new(x, y);
        *vel = Vec2::new(vx, vy);
    }
}

/// Whether a component of `pos` is outside `[-bound, bound]` (the bodies
/// [`reflect`] moves; a NaN component is not outside). Without a branch.
#[inline]
fn is_outside<S: SimScalar>(pos: &Vec2<S>, bound: S) -> bool {
    (pos.x > bound) | (pos.x < -bound) | (pos.y > bound) | (pos.y < -bound)
}

/// [`integrate`] over three columns of the same entities (`pos[i]`,
/// `prev[i]`, `vel[i]` belong together; the shortest slice bounds the
/// pass), per batch of 64 bodies: `prev = pos; pos += vel × dt` over the
/// batch (loops without a branch that run several bodies wide; the
/// `+= × dt` through [`SimScalar::mul_add_vec2s`], SIMD128 lanes on wasm32
/// built with them), then the reflection of each body only if one of the
/// batch left the bounds (most batches: none). Built for the widest vector
/// unit of the CPU ([`VectorUnit`]). Each body's step depends on its own components only:
/// the same result bits as [`integrate`] on each body in turn.
#[inline]
pub fn integrate_columns<S: SimScalar>(
    pos: &mut [Position<S>],
    prev: &mut [PrevPosition<S>],
    vel: &mut [Velocity<S>],
    p: &WorkloadParams<S>,
) {
    VectorUnit::widest().run(
        #[inline(always)]
        || integrate_batches(pos, prev, vel, p),
    );
}

/// [`integrate_columns`]' passes, inlined into each vector unit's build.
#[inline(always)]
fn integrate_batches<S: SimScalar>(
    pos: &mut [Position<S>],
    prev: &mut [PrevPosition<S>],
    vel: &mut [Velocity<S>],
    p: &WorkloadParams<S>,
) {
    for ((pos, prev), vel) in pos
        .chunks_mut(INTEGRATE_BATCH)
        .zip(prev.chunks_mut(INTEGRATE_BATCH))
        .zip(vel.chunks_mut(INTEGRATE_BATCH))
    {
        // The batch's bodies: the three columns' common length.
        let n = pos.len().min(prev.len()).min(vel.len());
        let (pos, prev, vel) = (&mut pos[..n], &mut prev[..n], &mut vel[..n]);
        // `advance` in two passes: `prev = pos`, then `pos += vel × dt`
        // through the backend's column hook (on wasm32 with SIMD128, Q16.16
        // in 128-bit lanes; elsewhere the plain loop), the same bits.
        for (prev, pos) in prev.iter_mut().zip(pos.iter()) {
            prev.0 = pos.0;
        }
        S::mul_add_vec2s(pos, vel, p.dt, |pos| &mut pos.0, |vel| vel.0);
        let mut any_outside = false;
        for pos in pos.iter() {
            any_outside |= is_outside(&pos.0, p.bound);
        }
        if any_outside {
            for (pos, vel) in pos.iter_mut().zip(vel.iter_mut()) {
                keep_inside(&mut pos.0, &mut vel.0, p);
            }
        }
    }
}

/// Bodies [`integrate_columns`] advances before it looks for one outside
/// the bounds.
const INTEGRATE_BATCH: usize = 64;

/// The integrate system's pass over a hecs world: [`integrate_columns`] on
/// the three columns of every archetype that has them (the entities
/// `query::<(&mut Position<S>, &mut PrevPosition<S>, &mut Velocity<S>)>`
/// visits; each entity's step depends on its own components only).
pub fn integrate_world<S: SimScalar>(ecs: &hecs::World, p: &WorkloadParams<S>) {
    for archetype in ecs.archetypes() {
        // Dynamic borrows of three distinct columns: never taken elsewhere
        // while a system holds the world.
        let (Some(mut pos), Some(mut prev), Some(mut vel)) = (
            archetype.get::<&mut Position<S>>(),
            archetype.get::<&mut PrevPosition<S>>(),
            archetype.get::<&mut Velocity<S>>(),
        ) else {
            continue;
        };
        integrate_columns(&mut pos, &mut prev, &mut vel, p);
    }
}

/// Mirrors a coordinate that left `[-bound, bound]` back inside and flips
/// its velocity component; the result is clamped into the bounds.
#[inline]
fn reflect<S: SimScalar>(c: S, v: S, bound: S) -> (S, S) {
    if c > bound {
        ((bound + bound - c).clamp(-bound, bound), -v)
    } else if c < -bound {
        ((-bound - bound - c).clamp(-bound, bound), -v)
    } else {
        (c, v)
    }
}

/// One entity's point-attractor step (system 2), through the wide
/// normalize (the world is far wider than Q16.16's plain `length` range).
#[inline]
pub fn attract<S: SimScalar>(pos: &Vec2<S>, vel: &mut Vec2<S>, p: &WorkloadParams<S>) {
    pull(vel, to_center(pos, p).normalize_wide(), p);
}

/// The attractor's offset from `pos`: `center − pos` (the vector
/// [`attract`] normalizes).
#[inline]
fn to_center<S: SimScalar>(pos: &Vec2<S>, p: &WorkloadParams<S>) -> Vec2<S> {
    p.center - *pos
}

/// `vel += dir × accel_dt`: the velocity change of [`attract`] given the
/// direction.
#[inline]
fn pull<S: SimScalar>(vel: &mut Vec2<S>, dir: Vec2<S>, p: &WorkloadParams<S>) {
    *vel += dir * p.accel_dt;
}

/// Entities [`attract_all`] gathers per batch (a stack buffer of
/// directions and one of velocity references).
pub const ATTRACT_BATCH: usize = 64;

/// The point-attractor step (system 2) over every `(position, velocity)`
/// pair of `bodies`, in batches of [`ATTRACT_BATCH`]: `center − pos` of a
/// batch gathered, normalized together ([`Vec2::normalize_wide_slice`]),
/// then `vel += dir × accel_dt` each (on Q16.16, whose batch normalize
/// runs several vectors wide; binary32 takes [`attract`] per pair, already
/// vectorized). The same result bits as [`attract`] on each pair in turn:
/// each entity's step depends on its own components only. Allocates
/// nothing.
#[inline]
pub fn attract_all<'a, S: SimScalar + 'a>(
    bodies: impl IntoIterator<Item = (&'a Vec2<S>, &'a mut Vec2<S>)>,
    p: &WorkloadParams<S>,
) {
    let mut bodies = bodies.into_iter();
    // Binary32: one entity at a time, a loop the compiler already runs four
    // wide; gathering references into a batch would only add work.
    if matches!(S::BACKEND, laige_core::MathBackend::FloatPinned32) {
        for (pos, vel) in bodies {
            attract(pos, vel, p);
        }
        return;
    }
    let mut dirs = [Vec2::<S>::ZERO; ATTRACT_BATCH];
    let mut vels: [Option<&'a mut Vec2<S>>; ATTRACT_BATCH] = [const { None }; ATTRACT_BATCH];
    loop {
        let mut n = 0;
        // The buffers first: `zip` then never takes a pair it cannot store.
        for ((dir, slot), (pos, vel)) in dirs.iter_mut().zip(&mut vels).zip(bodies.by_ref()) {
            *dir = to_center(pos, p);
            *slot = Some(vel);
            n += 1;
        }
        Vec2::normalize_wide_slice(&mut dirs[..n]);
        for (dir, slot) in dirs[..n].iter().zip(&mut vels) {
            if let Some(vel) = slot.take() {
                pull(vel, *dir, p);
            }
        }
        if n < ATTRACT_BATCH {
            return;
        }
    }
}

/// [`attract_all`] over two columns of the same entities (`pos[i]` and
/// `vel[i]` belong together; the shorter slice bounds the pass): per batch,
/// the directions of `center − pos` through [`Vec2::normalize_wide_map`],
/// then `vel += dir × accel_dt`, loops over contiguous memory the compiler
/// runs several entities wide, built for the widest vector unit of the CPU
/// ([`VectorUnit`]). The same result bits as [`attract`] on each pair.
#[inline]
pub fn attract_columns<S: SimScalar>(
    pos: &[Position<S>],
    vel: &mut [Velocity<S>],
    p: &WorkloadParams<S>,
) {
    VectorUnit::widest().run(
        #[inline(always)]
        || attract_batches(pos, vel, p),
    );
}

/// [`attract_columns`]' passes, inlined into each vector unit's build.
#[inline(always)]
fn attract_batches<S: SimScalar>(
    pos: &[Position<S>],
    vel: &mut [Velocity<S>],
    p: &WorkloadParams<S>,
) {
    for (pos, vel) in pos.chunks(ATTRACT_BATCH).zip(vel.chunks_mut(ATTRACT_BATCH)) {
        let mut dirs = [Vec2::<S>::ZERO; ATTRACT_BATCH];
        let dirs = &mut dirs[..pos.len().min(vel.len())];
        // The offsets to the centre go straight to the batch (which stages
        // them per chunk): no pass of ours fills a buffer for it.
        Vec2::normalize_wide_map(pos, dirs, |pos| to_center(&pos.0, p));
        // `pull` of each: `vel += dir × accel_dt` through the column hook.
        S::mul_add_vec2s(vel, dirs, p.accel_dt, |vel| &mut vel.0, |dir| *dir);
    }
}

/// The attract system's pass over a hecs world: [`attract_columns`] on the
/// position and velocity columns of every archetype that has both (the
/// entities `query::<(&Position<S>, &mut Velocity<S>)>` visits). Each
/// entity's step depends on its own components only, so the archetype order
/// does not change a bit.
pub fn attract_world<S: SimScalar>(ecs: &hecs::World, p: &WorkloadParams<S>) {
    for archetype in ecs.archetypes() {
        // Dynamic borrows of two distinct columns: never taken elsewhere
        // while a system holds the world.
        let (Some(pos), Some(mut vel)) = (
            archetype.get::<&Position<S>>(),
            archetype.get::<&mut Velocity<S>>(),
        ) else {
            continue;
        };
        attract_columns(&pos, &mut vel, p);
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, well-mixed PRNG
/// whose whole state is one `u64` — the workload's deterministic spawn
/// stream. Not cryptographic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    #[allow(
        clippy::should_implement_trait,
        reason = "an infinite generator, not an Iterator; `next` is its conventional name"
    )]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform-ish integer in `-limit..=limit` (modulo bias is
    /// irrelevant here; `limit >= 0`).
    pub fn next_in(&mut self, limit: i32) -> i32 {
        let span = u64::from(limit.unsigned_abs()) * 2 + 1;
        let offset = i64::try_from(self.next() % span).unwrap_or(0);
        i32::try_from(offset - i64::from(limit.unsigned_abs())).unwrap_or(0)
    }
}

/// Sub-unit resolution of spawned values: 1/256 unit.
const SPAWN_DIVISOR: i32 = 256;

/// The initial components of every entity, in spawn order: a pure function
/// of `config` (assumed validated).
pub fn initial_state<S: SimScalar>(
    config: &WorkloadConfig,
) -> impl ExactSizeIterator<Item = (Position<S>, PrevPosition<S>, Velocity<S>)> {
    let mut rng = SplitMix64::new(config.seed);
    let extent = config.half_extent.saturating_mul(SPAWN_DIVISOR);
    let speed = config.max_speed.saturating_mul(SPAWN_DIVISOR);
    (0..config.entities as usize).map(move |_| {
        let pos = Vec2::new(
            S::from_ratio(rng.next_in(extent), SPAWN_DIVISOR),
            S::from_ratio(rng.next_in(extent), SPAWN_DIVISOR),
        );
        let vel = Vec2::new(
            S::from_ratio(rng.next_in(speed), SPAWN_DIVISOR),
            S::from_ratio(rng.next_in(speed), SPAWN_DIVISOR),
        );
        (Position(pos), PrevPosition(pos), Velocity(vel))
    })
}

/// Installs the workload in `world`: registers the three components as
/// hashed (stable names `workload.position`, `workload.prev_position`,
/// `workload.velocity`), spawns the entities (setup: not counted against
/// the churn budget), and registers the two systems.
///
/// # Errors
/// `workload/config_invalid` for a bad config; `world/hashed_name_invalid`
/// or `system/name_invalid` if the workload is already installed. Nothing
/// is spawned when the config is invalid.
pub fn install<S: SimScalar + StateHash>(world: &mut World, config: &WorkloadConfig) -> Result<()> {
    config.validate()?;
    world.register_hashed_as::<Position<S>>("workload.position")?;
    world.register_hashed_as::<PrevPosition<S>>("workload.prev_position")?;
    world.register_hashed_as::<Velocity<S>>("workload.velocity")?;
    let params = WorkloadParams::<S>::new(config);
    world.register_system(INTEGRATE_SYSTEM, INTEGRATE_ORDER, move |ctx| {
        integrate_world(ctx.ecs(), &params);
        Ok(())
    })?;
    world.register_system(ATTRACT_SYSTEM, ATTRACT_ORDER, move |ctx| {
        attract_world(ctx.ecs(), &params);
        Ok(())
    })?;
    world.ecs_mut().spawn_batch(initial_state::<S>(config));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_core::{Fp32Pinned, Fpx16_16};

    #[test]
    fn splitmix64_matches_the_reference_stream() {
        // The published SplitMix64 outputs for seed 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next(), 0x06c4_5d18_8009_454f);
        let mut r = SplitMix64::new(7);
        for _ in 0..10_000 {
            let v = r.next_in(5);
            assert!((-5..=5).contains(&v));
        }
        assert_eq!(SplitMix64::new(1).next_in(0), 0);
    }

    #[test]
    fn reflection_keeps_entities_inside_and_flips_velocity() {
        let p = WorkloadParams::<Fpx16_16> {
            dt: Fpx16_16::ONE,
            bound: Fpx16_16::from_i32(10),
            center: Vec2::ZERO,
            accel_dt: Fpx16_16::ZERO,
        };
        let mut pos = Vec2::new(Fpx16_16::from_i32(9), Fpx16_16::from_i32(-9));
        let mut prev = Vec2::ZERO;
        let mut vel = Vec2::new(Fpx16_16::from_i32(3), Fpx16_16::from_i32(-2));
        integrate(&mut pos, &mut prev, &mut vel, &p);
        assert_eq!(
            prev,
            Vec2::new(Fpx16_16::from_i32(9), Fpx16_16::from_i32(-9))
        );
        assert_eq!(
            pos,
            Vec2::new(Fpx16_16::from_i32(8), Fpx16_16::from_i32(-9))
        );
        assert_eq!(
            vel,
            Vec2::new(Fpx16_16::from_i32(-3), Fpx16_16::from_i32(2))
        );
    }

    #[test]
    fn attraction_pulls_toward_the_centre_across_thousands_of_units() {
        let p = WorkloadParams::<Fpx16_16>::new(&WorkloadConfig::default());
        let pos = Vec2::new(Fpx16_16::from_i32(4000), Fpx16_16::from_i32(-3000));
        let mut vel = Vec2::ZERO;
        attract(&pos, &mut vel, &p);
        // Direction (-0.8, 0.6) × 8/60: the wide path keeps the direction
        // (the plain `length` would saturate at this range).
        assert!(vel.x < Fpx16_16::ZERO && vel.y > Fpx16_16::ZERO);
        let expect_x = Fpx16_16::from_ratio(-8 * 8, 600);
        assert!((vel.x - expect_x).abs() <= Fpx16_16::from_raw(2), "{vel:?}");
    }

    /// The batched pass gives [`attract`]'s bits on every entity, for
    /// counts on both sides of the batch size, on both backends.
    fn batched_attract_is_attract<S: SimScalar>() {
        for n in [
            0,
            1,
            ATTRACT_BATCH - 1,
            ATTRACT_BATCH,
            ATTRACT_BATCH + 1,
            300,
        ] {
            let config = WorkloadConfig {
                entities: n as u32,
                ..WorkloadConfig::default()
            };
            let p = WorkloadParams::<S>::new(&config);
            let mut bodies: Vec<(Vec2<S>, Vec2<S>)> = initial_state::<S>(&config)
                .map(|(pos, _, vel)| (pos.0, vel.0))
                .collect();
            // The zero direction (an entity on the attractor) too.
            if let Some(first) = bodies.first_mut() {
                first.0 = p.center;
            }
            let mut each = bodies.clone();
            for (pos, vel) in &mut each {
                attract(pos, vel, &p);
            }
            let pos: Vec<Position<S>> = bodies.iter().map(|b| Position(b.0)).collect();
            let vel: Vec<Velocity<S>> = bodies.iter().map(|b| Velocity(b.1)).collect();
            for unit in VectorUnit::all_here() {
                let mut vel = vel.clone();
                unit.run(
                    #[inline(always)]
                    || attract_batches(&pos, &mut vel, &p),
                );
                let columns: Vec<_> = pos.iter().zip(&vel).map(|(p, v)| (p.0, v.0)).collect();
                assert_eq!(columns, each, "{n} entities, columns, {unit:?}");
            }
            let mut vel = vel;
            attract_columns(&pos, &mut vel, &p);
            attract_all(bodies.iter_mut().map(|(pos, vel)| (&*pos, vel)), &p);
            assert_eq!(bodies, each, "{n} entities");
            let columns: Vec<_> = pos.iter().zip(&vel).map(|(p, v)| (p.0, v.0)).collect();
            assert_eq!(columns, each, "{n} entities, columns");
            assert!(n < 2 || bodies[1].1 != initial_state::<S>(&config).nth(1).unwrap().2.0);
        }
    }

    #[test]
    fn batched_attract_is_attract_on_both_backends() {
        batched_attract_is_attract::<Fpx16_16>();
        batched_attract_is_attract::<Fp32Pinned>();
    }

    /// [`integrate_columns`] (on Q16.16 two passes per batch) against
    /// [`integrate`] on each body: bodies that leave the box through each
    /// side, in the first, a middle and the last slot of a batch, bodies
    /// whose step saturates, and columns of unequal length.
    fn integrate_columns_is_integrate<S: SimScalar>() {
        let config = WorkloadConfig::default();
        let p = WorkloadParams::<S>::new(&config);
        let half = config.half_extent;
        let mut rng = SplitMix64::new(0x5EED);
        let coord = |rng: &mut SplitMix64| match rng.next() % 4 {
            // Inside, well away from the walls.
            0 => S::from_i32(rng.next_in(half) - half / 2),
            // Right at a wall, either side of it.
            1 => S::from_i32(if rng.next() & 1 == 0 { half } else { -half }),
            2 => S::from_ratio(rng.next_in(2 * half) - half, 1 + rng.next_in(7)),
            // Far outside: the mirror itself leaves the box and is clamped.
            _ => S::from_i32(if rng.next() & 1 == 0 { 30_000 } else { -30_000 }),
        };
        for n in [
            0,
            1,
            INTEGRATE_BATCH - 1,
            INTEGRATE_BATCH,
            INTEGRATE_BATCH + 1,
            1000,
        ] {
            let mut bodies: Vec<(Vec2<S>, Vec2<S>, Vec2<S>)> = (0..n)
                .map(|_| {
                    let pos = Vec2::new(coord(&mut rng), coord(&mut rng));
                    let vel = Vec2::new(
                        S::from_i32(rng.next_in(60_000) - 30_000),
                        S::from_i32(rng.next_in(600) - 300),
                    );
                    (pos, Vec2::ZERO, vel)
                })
                .collect();
            // One body per wall that crosses it this step, at batch edges.
            for (i, (x, v)) in [(0, (half, 600)), (INTEGRATE_BATCH - 1, (-half, -600))] {
                if let Some(b) = bodies.get_mut(i) {
                    b.0 = Vec2::new(S::from_i32(x), S::from_i32(x));
                    b.2 = Vec2::new(S::from_i32(v), S::from_i32(-v));
                }
            }
            let mut each = bodies.clone();
            for (pos, prev, vel) in &mut each {
                integrate(pos, prev, vel, &p);
            }
            let pos: Vec<Position<S>> = bodies.iter().map(|b| Position(b.0)).collect();
            let prev: Vec<PrevPosition<S>> = bodies.iter().map(|b| PrevPosition(b.1)).collect();
            let mut vel: Vec<Velocity<S>> = bodies.iter().map(|b| Velocity(b.2)).collect();
            // One more velocity than bodies: the shortest column bounds it.
            vel.push(Velocity(Vec2::new(S::ONE, S::ONE)));
            // Every vector unit's build, and the one the system picks.
            let builds = VectorUnit::all_here().map(Some).chain([None]);
            for unit in builds {
                let (mut pos, mut prev, mut vel) = (pos.clone(), prev.clone(), vel.clone());
                match unit {
                    Some(unit) => unit.run(
                        #[inline(always)]
                        || integrate_batches(&mut pos, &mut prev, &mut vel, &p),
                    ),
                    None => integrate_columns(&mut pos, &mut prev, &mut vel, &p),
                }
                assert_eq!(vel.pop().map(|v| v.0), Some(Vec2::new(S::ONE, S::ONE)));
                let columns: Vec<_> = (0..n).map(|i| (pos[i].0, prev[i].0, vel[i].0)).collect();
                assert_eq!(columns, each, "{n} bodies, {unit:?}");
            }
            let reflected = each.iter().zip(&bodies).filter(|(a, b)| a.2 != b.2).count();
            assert!(
                n < INTEGRATE_BATCH || reflected > 1,
                "{n} bodies: {reflected} reflected"
            );
        }
    }

    #[test]
    fn integrate_columns_is_integrate_on_both_backends() {
        integrate_columns_is_integrate::<Fpx16_16>();
        integrate_columns_is_integrate::<Fp32Pinned>();
    }

    /// The two systems (columns per archetype) against [`integrate`] and
    /// [`attract`] on each entity, with a second archetype (an extra
    /// component) in the world: every entity is stepped, once.
    #[test]
    fn the_systems_step_every_entity_once() {
        let mut w = World::default();
        let config = WorkloadConfig {
            entities: 150,
            ..WorkloadConfig::default()
        };
        install::<Fpx16_16>(&mut w, &config).unwrap();
        let p = WorkloadParams::<Fpx16_16>::new(&config);
        let extra: Vec<_> = initial_state::<Fpx16_16>(&config).take(70).collect();
        for (pos, prev, vel) in extra {
            w.ecs_mut().spawn((pos, prev, vel, 7u8));
        }
        let components = |w: &mut World| -> Vec<_> {
            w.ecs_mut()
                .query_mut::<(
                    &Position<Fpx16_16>,
                    &PrevPosition<Fpx16_16>,
                    &Velocity<Fpx16_16>,
                )>()
                .into_iter()
                .map(|(pos, prev, vel)| (pos.0, prev.0, vel.0))
                .collect()
        };
        let mut want = components(&mut w);
        for (pos, prev, vel) in &mut want {
            integrate(pos, prev, vel, &p);
            attract(pos, vel, &p);
        }
        let schedule = w.schedule_systems();
        w.run_systems(&schedule).unwrap();
        let got = components(&mut w);
        assert_eq!(got.len(), 220);
        assert_eq!(got, want);
    }

    #[test]
    fn spawning_is_a_pure_function_of_the_config() {
        let config = WorkloadConfig {
            entities: 500,
            ..WorkloadConfig::default()
        };
        let a: Vec<_> = initial_state::<Fpx16_16>(&config).collect();
        let b: Vec<_> = initial_state::<Fpx16_16>(&config).collect();
        assert_eq!(a, b);
        let bound = Fpx16_16::from_i32(config.half_extent);
        assert!(
            a.iter()
                .all(|(p, _, _)| p.0.x.abs() <= bound && p.0.y.abs() <= bound)
        );
        let other: Vec<_> =
            initial_state::<Fpx16_16>(&WorkloadConfig { seed: 2, ..config }).collect();
        assert_ne!(a, other);
        assert_eq!(initial_state::<Fp32Pinned>(&config).len(), 500);
    }

    #[test]
    fn bad_configs_name_the_field() {
        for (config, field) in [
            (
                WorkloadConfig {
                    entities: MAX_ENTITIES + 1,
                    ..WorkloadConfig::default()
                },
                "entities",
            ),
            (
                WorkloadConfig {
                    tick_rate_hz: 10,
                    ..WorkloadConfig::default()
                },
                "tick_rate_hz",
            ),
            (
                WorkloadConfig {
                    half_extent: 0,
                    ..WorkloadConfig::default()
                },
                "half_extent",
            ),
            (
                WorkloadConfig {
                    max_speed: -1,
                    ..WorkloadConfig::default()
                },
                "max_speed",
            ),
            (
                WorkloadConfig {
                    attraction: 5000,
                    ..WorkloadConfig::default()
                },
                "attraction",
            ),
        ] {
            let err = config.validate().unwrap_err();
            assert_eq!(err.id(), events::WORKLOAD_CONFIG_INVALID);
            assert_eq!(err.field(), Some(field));
        }
    }

    #[test]
    fn installing_twice_is_an_error_not_a_duplicate() {
        let mut w = World::default();
        let config = WorkloadConfig {
            entities: 10,
            ..WorkloadConfig::default()
        };
        install::<Fpx16_16>(&mut w, &config).unwrap();
        assert!(install::<Fpx16_16>(&mut w, &config).is_err());
        assert_eq!(w.len(), 10);
    }
}
