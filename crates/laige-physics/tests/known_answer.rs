//! The Q16.16 known answer: a scene with every shape, a joint, a sensor,
//! restitution, friction and sleep, 600 steps, one state hash. Q16.16 is
//! integer arithmetic, so the hash is the same in every build profile and
//! on every target; a change to it is a change to the physics (update the
//! constant deliberately, with the reason in the commit).

use laige_core::Fpx16_16 as F;
use laige_physics::{BodyDef, Collider, Physics, PhysicsConfig, Shape, spawn_body, spawn_revolute};
use laige_sim::World;

#[path = "support/scenes.rs"]
mod scenes;
use scenes::{mixed_bodies, v};

const KNOWN_HASH: u64 = 0xc632_0ab6_6104_7949;

#[test]
fn the_fixed_point_scene_hashes_to_its_known_answer() {
    let mut world = World::default();
    Physics::install(&mut world, PhysicsConfig::<F>::default(), 0).unwrap();
    let ground = spawn_body(
        &mut world,
        &BodyDef::fixed(v::<F>(0, -1)),
        &[Collider::new(Shape::rect(F::from_i32(20), F::ONE).unwrap())],
    )
    .unwrap();
    mixed_bodies::<F>(&mut world, -10);
    let half = F::from_ratio(1, 2);
    let bob = spawn_body(
        &mut world,
        &BodyDef::dynamic(v::<F>(14, 6)),
        &[Collider::new(Shape::circle(half).unwrap())],
    )
    .unwrap();
    spawn_revolute(&mut world, ground, bob, v::<F>(14, 9)).unwrap();
    let strip = Collider::new(Shape::rect(F::from_i32(6), half).unwrap()).sensor(true);
    spawn_body(&mut world, &BodyDef::fixed(v::<F>(0, 4)), &[strip]).unwrap();
    let schedule = world.schedule_systems();
    for _ in 0..600 {
        world.run_systems(&schedule).unwrap();
    }
    let stats = Physics::state::<F>(&world).unwrap().stats();
    assert!(stats.touching > 30 && stats.sleeping > 0, "{stats:?}");
    assert_eq!(
        world.state_hash(),
        KNOWN_HASH,
        "{:#018x}",
        world.state_hash()
    );
}
