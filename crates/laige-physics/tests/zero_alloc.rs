//! A warm physics step allocates nothing: after a warm-up, 240 steps of a
//! scene with boxes, circles, capsules, a joint and a sensor (and a
//! snapshot save and load among them) make no heap acquisition. The
//! negative control proves the counter sees this thread.

use laige_core::alloc_watch::{self, CountingAlloc};
use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_physics::{BodyDef, Collider, Physics, PhysicsConfig, Shape, spawn_body, spawn_revolute};
use laige_sim::snapshot::SnapshotRing;
use laige_sim::{StateHash, World};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn scene<S: SimScalar + StateHash>() -> World {
    let mut world = World::default();
    Physics::install(
        &mut world,
        PhysicsConfig::<S> {
            enable_sleep: false,
            ..PhysicsConfig::default()
        },
        0,
    )
    .unwrap();
    let v = |x: i32, y: i32| Vec2::new(S::from_i32(x), S::from_i32(y));
    let ground = spawn_body(
        &mut world,
        &BodyDef::fixed(v(0, -1)),
        &[Collider::new(Shape::rect(S::from_i32(20), S::ONE).unwrap())],
    )
    .unwrap();
    let half = S::from_ratio(1, 2);
    for i in 0..30 {
        let shape = match i % 3 {
            0 => Shape::rect(half, half).unwrap(),
            1 => Shape::circle(half).unwrap(),
            _ => Shape::capsule(
                Vec2::new(-half, S::ZERO),
                Vec2::new(half, S::ZERO),
                S::from_ratio(1, 4),
            )
            .unwrap(),
        };
        spawn_body(
            &mut world,
            &BodyDef::dynamic(v(i % 6 * 2 - 6, 1 + i / 6 * 2)),
            &[Collider::new(shape)],
        )
        .unwrap();
    }
    let bob = spawn_body(
        &mut world,
        &BodyDef::dynamic(v(12, 8)),
        &[Collider::new(Shape::circle(half).unwrap())],
    )
    .unwrap();
    spawn_revolute(&mut world, ground, bob, v(12, 12)).unwrap();
    let strip = Collider::new(Shape::rect(S::from_i32(8), half).unwrap()).sensor(true);
    spawn_body(&mut world, &BodyDef::fixed(v(0, 3)), &[strip]).unwrap();
    world
}

fn warm_steps_allocate_nothing<S: SimScalar + StateHash>() {
    let mut world = scene::<S>();
    let schedule = world.schedule_systems();
    let mut ring = SnapshotRing::new(&world, 1).unwrap();
    for _ in 0..240 {
        world.run_systems(&schedule).unwrap();
    }
    ring.save(0, &world).unwrap();
    ring.load(0, &mut world).unwrap();
    let ((), counts) = alloc_watch::count_allocs(|| {
        for t in 0..240 {
            world.run_systems(&schedule).unwrap();
            if t == 120 {
                ring.save(0, &world).unwrap();
                ring.load(0, &mut world).unwrap();
            }
        }
    });
    assert_eq!(counts.allocations(), 0, "{counts:?}");
    let stats = Physics::state::<S>(&world).unwrap().stats();
    assert!(stats.touching > 20, "the scene has contacts: {stats:?}");
}

#[test]
fn the_counting_allocator_sees_this_thread() {
    assert!(alloc_watch::is_installed());
    let (v, counts) = alloc_watch::count_allocs(|| vec![1u8; 64]);
    assert_eq!(v.len(), 64);
    assert_eq!(counts.allocations(), 1);
}

#[test]
fn a_warm_step_allocates_nothing() {
    warm_steps_allocate_nothing::<Fpx16_16>();
    warm_steps_allocate_nothing::<Fp32Pinned>();
}
