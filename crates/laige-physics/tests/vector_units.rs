//! The solver runs on the widest vector unit of the CPU (four contact
//! constraints side by side), and the results are the same bits on every
//! unit: each backend's scene hashes the same whether its step ran on
//! baseline x86-64, AVX2 or AVX-512 (on other CPUs and architectures only
//! the portable build exists, and the test compares it with itself).
//!
//! The scene has boxes, circles, capsules and polygons with restitution
//! and friction, a pendulum, a sensor, and a dynamic plank carrying more
//! than 64 circles, so its contacts overflow the 64 colours.

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2, VectorUnit};
use laige_physics::{
    BodyDef, Collider, Physics, PhysicsConfig, RigidBody, Shape, spawn_body, spawn_revolute,
};
use laige_sim::{StateHash, World};

#[path = "support/scenes.rs"]
mod scenes;
use scenes::{mixed_bodies, v};

fn scene<S: SimScalar + StateHash>() -> World {
    let mut world = World::default();
    Physics::install(&mut world, PhysicsConfig::<S>::default(), 0).unwrap();
    let ground = spawn_body(
        &mut world,
        &BodyDef::fixed(v(0, -1)),
        &[Collider::new(Shape::rect(S::from_i32(30), S::ONE).unwrap())],
    )
    .unwrap();
    mixed_bodies::<S>(&mut world, -40);
    let half = S::from_ratio(1, 2);
    let bob = spawn_body(
        &mut world,
        &BodyDef::dynamic(v(-27, 6)),
        &[Collider::new(Shape::circle(half).unwrap())],
    )
    .unwrap();
    spawn_revolute(&mut world, ground, bob, v::<S>(-27, 9)).unwrap();
    let strip = Collider::new(Shape::rect(S::from_i32(6), half).unwrap()).sensor(true);
    spawn_body(&mut world, &BodyDef::fixed(v(-16, 4)), &[strip]).unwrap();
    // The plank: 20 m long, 80 circles of radius 0.12 m side by side on it.
    spawn_body(
        &mut world,
        &BodyDef::dynamic(v(10, 1)),
        &[
            Collider::new(Shape::rect(S::from_i32(10), S::from_ratio(1, 4)).unwrap())
                .density(S::from_ratio(1, 4)),
        ],
    )
    .unwrap();
    for i in 0..80 {
        let at = Vec2::new(S::from_ratio(i * 25 + 13, 100), S::from_ratio(3, 2));
        let ball =
            Collider::new(Shape::circle(S::from_ratio(12, 100)).unwrap()).density(S::from_i32(4));
        spawn_body(&mut world, &BodyDef::dynamic(at), &[ball]).unwrap();
    }
    world
}

/// The scene's state hash after 240 steps, and the lowest circle's height
/// on the plank (it must rest on it, not fall through).
fn run<S: SimScalar + StateHash>(unit: VectorUnit) -> (u64, S) {
    VectorUnit::limit_widest(unit);
    let mut world = scene::<S>();
    let schedule = world.schedule_systems();
    for _ in 0..240 {
        world.run_systems(&schedule).unwrap();
    }
    VectorUnit::limit_widest(VectorUnit::Avx512);
    let mut lowest = S::from_i32(100);
    for body in world.ecs().query::<&RigidBody<S>>().iter() {
        if body.position.x.gt(S::from_ratio(1, 2)) && body.position.y.gt(S::ONE) {
            lowest = lowest.min(body.position.y);
        }
    }
    (world.state_hash(), lowest)
}

fn same_bits_on_every_unit<S: SimScalar + StateHash>(name: &str) {
    let (portable, lowest) = run::<S>(VectorUnit::Portable);
    // The plank's top is at 1.25 m: the circles (radius 0.12 m) rest there.
    assert!(
        lowest.gt(S::from_ratio(130, 100)),
        "{name}: a circle sank into the plank: y = {lowest:?}"
    );
    for unit in VectorUnit::all_here() {
        let (hash, _) = run::<S>(unit);
        assert_eq!(
            hash, portable,
            "{name} on {unit:?}: {hash:#018x} vs portable {portable:#018x}"
        );
    }
}

#[test]
fn every_vector_unit_computes_the_same_bits() {
    // One test: the unit limit is the whole process's.
    same_bits_on_every_unit::<Fpx16_16>("Fpx16_16");
    same_bits_on_every_unit::<Fp32Pinned>("Fp32Pinned");
}

/// The same comparison in an optimized build, where the lanes are vector
/// instructions (the unoptimized build above runs them one at a time).
#[test]
#[ignore = "heavy: run by cargo xtask test in the optimized test-opt profile"]
fn every_vector_unit_computes_the_same_bits_optimized() {
    same_bits_on_every_unit::<Fpx16_16>("Fpx16_16");
    same_bits_on_every_unit::<Fp32Pinned>("Fp32Pinned");
}
