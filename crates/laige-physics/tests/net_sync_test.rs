//! A physics scene through a rollback session's sync test (check distance
//! 7: every tick is re-simulated from a snapshot 7 ticks back and its
//! state hash compared): contacts, a stack that falls asleep, a pendulum
//! on a revolute joint, a distance joint, balls through a sensor strip,
//! and a box the players push, for 600 ticks on both backends. Any piece
//! of solver state left out of the world would make a re-simulation
//! differ and end the session with a desync.

mod support;

use laige_core::math::BackendVisitor;
use laige_core::{MathBackend, SimScalar, Vec2};
use laige_net::{PlayerInput, PlayerInputs};
use laige_physics::{
    BodyDef, Collider, Physics, PhysicsConfig, PhysicsEventKind, PhysicsState, RigidBody, Shape,
    spawn_body, spawn_distance, spawn_revolute,
};
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::{StateHash, World};
use support::run_sync_test;

/// A player's push: -1, 0 or 1 on x.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize,
)]
struct Push(i8);

impl PlayerInput for Push {
    fn from_events(previous: Self, events: &[InputEvent]) -> Self {
        let mut p = previous;
        for e in events {
            if let InputKind::Action { id: 1, value } = e.kind {
                p.0 = i8::try_from(value.clamp(-1, 1)).unwrap_or(0);
            }
        }
        p
    }
}

/// The pushed box (a marker component).
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
struct Pushed;

fn v<S: SimScalar>(x: i32, y: i32) -> Vec2<S> {
    Vec2::new(S::from_i32(x), S::from_i32(y))
}

fn scene<S: SimScalar + StateHash>() -> World {
    let mut world = World::default();
    Physics::install(&mut world, PhysicsConfig::<S>::default(), 10).unwrap();
    world.register_hashed_as::<Pushed>("test.pushed").unwrap();
    let half = S::from_ratio(1, 2);
    let ground = spawn_body(
        &mut world,
        &BodyDef::fixed(v(0, -1)),
        &[Collider::new(Shape::rect(S::from_i32(30), S::ONE).unwrap())],
    )
    .unwrap();
    // A stack of five boxes: contacts, then sleep.
    let unit = Shape::rect(half, half).unwrap();
    for i in 0..5 {
        spawn_body(
            &mut world,
            &BodyDef::dynamic(Vec2::new(S::from_i32(-10), S::from_i32(i) + half)),
            &[Collider::new(unit)],
        )
        .unwrap();
    }
    // A pendulum on a revolute joint to the ground, and a second bob on a
    // distance joint to the first.
    let bob = spawn_body(
        &mut world,
        &BodyDef::dynamic(v(3, 6)),
        &[Collider::new(Shape::circle(half).unwrap())],
    )
    .unwrap();
    spawn_revolute::<S>(&mut world, ground, bob, v(0, 6)).unwrap();
    let bob2 = spawn_body(
        &mut world,
        &BodyDef::dynamic(v(3, 3)),
        &[Collider::new(Shape::circle(half).unwrap())],
    )
    .unwrap();
    spawn_distance::<S>(&mut world, bob, bob2, v(3, 6), v(3, 3)).unwrap();
    // A sensor strip with three balls falling through it.
    spawn_body(
        &mut world,
        &BodyDef::fixed(v(8, 3)),
        &[Collider::new(Shape::rect(S::from_i32(3), S::from_ratio(1, 4)).unwrap()).sensor(true)],
    )
    .unwrap();
    for i in 0..3 {
        spawn_body(
            &mut world,
            &BodyDef::dynamic(v(7 + i, 8 + 2 * i)),
            &[Collider::new(Shape::circle(S::from_ratio(1, 4)).unwrap())],
        )
        .unwrap();
    }
    // The box the players push (their inputs summed), on the ground.
    let pushed = spawn_body(
        &mut world,
        &BodyDef::dynamic(Vec2::new(S::from_i32(16), half)),
        &[Collider::new(unit)],
    )
    .unwrap();
    world.ecs_mut().insert_one(pushed, Pushed).unwrap();
    world
        .register_system("test/push", 0, |ctx| {
            let Some(inputs) = PlayerInputs::<Push>::of(ctx) else {
                return Ok(());
            };
            let dx = i32::from(inputs.get(0).0) + i32::from(inputs.get(1).0);
            for (b, _) in ctx.query_mut::<(&mut RigidBody<S>, &Pushed)>() {
                if dx != 0 {
                    b.linear_velocity.x = S::from_i32(2 * dx);
                    b.wake();
                }
            }
            Ok(())
        })
        .unwrap();
    world
}

/// The push script: right for a while, left, then still.
fn push_at(tick: u64) -> Option<i32> {
    match tick {
        60 => Some(1),
        180 => Some(-1),
        300 => Some(0),
        _ => None,
    }
}

#[derive(Debug, Default)]
struct Seen {
    rollbacks: u64,
    events: [u64; 4],
    slept: bool,
    hash: u64,
}

struct SyncTest600;

impl<S: SimScalar + StateHash> BackendVisitor<S> for SyncTest600 {
    type Output = Seen;
    fn visit(self) -> Seen {
        let mut seen = Seen::default();
        let session = run_sync_test::<Push>(scene::<S>(), 600, push_at, |world| {
            for ev in world.resource::<PhysicsState<S>>().unwrap().events() {
                seen.events[ev.kind as usize] += 1;
            }
            seen.slept |= world
                .ecs()
                .query::<&RigidBody<S>>()
                .iter()
                .any(|b| b.sleeping);
        });
        seen.rollbacks = session.stats().rollbacks;
        seen.hash = session.world().state_hash();
        seen
    }
}

#[test]
fn a_physics_scene_passes_a_sync_test_with_check_distance_7_on_both_backends() {
    for backend in [MathBackend::FixedPoint16_16, MathBackend::FloatPinned32] {
        let seen = backend.run(SyncTest600);
        // Every tick past the check distance re-simulated 7 ticks, and
        // nothing differed; the scene did all it is here for.
        assert!(seen.rollbacks >= 590, "{backend}: {seen:?}");
        let [contact_begin, _, sensor_begin, sensor_end] = seen.events;
        assert!(contact_begin >= 5, "{backend}: {seen:?}");
        assert_eq!((sensor_begin, sensor_end), (3, 3), "{backend}: {seen:?}");
        assert!(seen.slept, "{backend}: something fell asleep: {seen:?}");
        assert_eq!(PhysicsEventKind::SensorEnd as usize, 3);
        assert_ne!(seen.hash, 0);
    }
}
