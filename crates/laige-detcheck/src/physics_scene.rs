//! The physics scene of the detcheck scenario (`--scene physics`): a
//! Box2D-style test of laige-physics on the scenario's machinery (scripted
//! input, checkpoints, snapshot round trips, replay playback).
//!
//! A static ground; on its left half a pyramid of [`PYRAMID_ROWS`] rows of
//! unit boxes (it settles and sleeps); on its right half
//! [`CHAINS`] chains of [`LINKS`] small boxes joined by revolute joints,
//! dropped from a height ("falling hinges"). The script's impulses push,
//! at 1/16 of their workload strength, every dynamic body right of the
//! centre (waking it, so that side never sleeps for long), and its spawns
//! drop balls until [`MAX_BALLS`] are in the scene. Contacts, friction,
//! restitution, joints, sleep and wake, and body creation mid-run all take
//! part, and all of it is world state: the checkpoints hash it, the
//! snapshots carry it.

use hecs::Entity;
use laige_core::{BinaryAngle, Result, SimScalar, Vec2};
use laige_physics::{
    BodyDef, BodyKind, Collider, Colliders, Physics, PhysicsConfig, RigidBody, Shape, ShapeKind,
    spawn_body, spawn_revolute,
};
use laige_sim::{StateHash, World, hash_of};

use crate::input::TickInput;

/// Rows of the pyramid (`n (n + 1) / 2` boxes).
pub const PYRAMID_ROWS: i32 = 8;
/// Hinge chains.
pub const CHAINS: i32 = 5;
/// Boxes per chain.
pub const LINKS: i32 = 6;
/// Balls the spawns add, at most.
pub const MAX_BALLS: usize = 40;

fn v<S: SimScalar>(x: S, y: S) -> Vec2<S> {
    Vec2::new(x, y)
}

/// Installs the physics (at the scenario's 60 Hz) and builds the scene.
///
/// # Errors
/// None expected: every value is within laige-physics' ranges.
pub fn install<S: SimScalar + StateHash>(world: &mut World) -> Result<()> {
    Physics::install(world, PhysicsConfig::<S>::default(), 0)?;
    let ground = spawn_body(
        world,
        &BodyDef::fixed(v(S::ZERO, S::from_i32(-1))),
        &[Collider::new(Shape::rect(S::from_i32(30), S::ONE)?).friction(S::from_ratio(3, 5))],
    )?;
    let _ = ground;
    let h = S::from_ratio(1, 2);
    let cube = Collider::new(Shape::rect(h, h)?);
    let left = S::from_i32(-14);
    for row in 0..PYRAMID_ROWS {
        let y = S::from_i32(2 * row + 1) * h;
        for k in 0..PYRAMID_ROWS - row {
            let x = left + S::from_i32(row + 2 * k) * h;
            spawn_body(world, &BodyDef::dynamic(v(x, y)), &[cube])?;
        }
    }
    let link_half = S::from_ratio(1, 4);
    let link = Collider::new(Shape::rect(link_half, S::from_ratio(1, 8))?)
        .density(S::from_i32(2))
        .restitution(S::from_ratio(1, 5));
    for c in 0..CHAINS {
        let x0 = S::from_i32(2 + 3 * c);
        let y = S::from_i32(6 + 2 * c);
        let mut prev: Option<Entity> = None;
        for l in 0..LINKS {
            let x = x0 + S::from_i32(l) * link_half * S::from_i32(2);
            let mut def = BodyDef::dynamic(v(x, y));
            def.angle = BinaryAngle::from_bits(0x0400_0000u32.wrapping_mul(c.cast_unsigned()));
            let e = spawn_body(world, &def, &[link])?;
            if let Some(p) = prev {
                spawn_revolute(world, p, e, v(x - link_half, y))?;
            }
            prev = Some(e);
        }
    }
    Ok(())
}

/// Applies one tick's input: the impulse (1/256 m/s per unit) to every
/// dynamic body right of the centre, waking it, then the spawns as balls
/// (while under [`MAX_BALLS`]). Returns the balls spawned.
///
/// # Errors
/// None expected (the balls' values are within range).
pub fn apply<S: SimScalar + StateHash>(world: &mut World, input: &TickInput) -> Result<u64> {
    if input.impulse != [0, 0] {
        let push = v(
            S::from_ratio(i32::from(input.impulse[0]), 256),
            S::from_ratio(i32::from(input.impulse[1]), 256),
        );
        for body in world.ecs_mut().query_mut::<&mut RigidBody<S>>() {
            if body.kind == BodyKind::Dynamic && body.position.x > S::ZERO {
                body.linear_velocity += push;
                body.wake();
            }
        }
    }
    let mut spawned = 0;
    let ball = Collider::new(Shape::circle(S::from_ratio(3, 10))?).restitution(S::from_ratio(1, 2));
    for s in input.spawns.iter().take(usize::from(input.n_spawn)) {
        if balls::<S>(world) >= MAX_BALLS {
            break;
        }
        let mut def = BodyDef::dynamic(v(
            S::from_ratio(s.pos[0] % 3072, 256),
            S::from_i32(14) + S::from_ratio(s.pos[1].rem_euclid(1024), 256),
        ));
        def.linear_velocity = v(
            S::from_ratio(s.vel[0] % 1024, 256),
            S::from_ratio(s.vel[1] % 1024, 256),
        );
        spawn_body(world, &def, &[ball])?;
        spawned += 1;
    }
    Ok(spawned)
}

/// The balls in the scene (the only circles).
fn balls<S: SimScalar + StateHash>(world: &World) -> usize {
    world
        .ecs()
        .query::<&Colliders<S>>()
        .iter()
        .filter(|c| {
            c.as_slice()
                .first()
                .is_some_and(|c| c.shape.kind == ShapeKind::Circle)
        })
        .count()
}

/// The negative control's nudge: the dynamic body whose state hash is
/// smallest (a choice by hashed state only) gets 2^-16 m/s more x
/// velocity, and is woken.
pub fn nudge<S: SimScalar + StateHash>(world: &mut World) {
    let chosen = world
        .ecs()
        .query::<(Entity, &RigidBody<S>)>()
        .iter()
        .filter(|(_, b)| b.kind == BodyKind::Dynamic)
        .map(|(e, b)| (hash_of(b), e))
        .min_by_key(|&(h, _)| h)
        .map(|(_, e)| e);
    if let Some(e) = chosen
        && let Ok(mut b) = world.ecs_mut().get::<&mut RigidBody<S>>(e)
    {
        b.linear_velocity.x += S::from_ratio(1, 65_536);
        b.wake();
    }
}
