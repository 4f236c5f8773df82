//! The Q16.16 known answer: a scene with every shape, a joint, a sensor,
//! restitution, friction and sleep, 600 steps, one state hash. Q16.16 is
//! integer arithmetic, so the hash is the same in every build profile and
//! on every target; a change to it is a change to the physics (update the
//! constant deliberately, with the reason in the commit).

use laige_core::{BinaryAngle, Fpx16_16 as F, Vec2};
use laige_physics::{BodyDef, Collider, Physics, PhysicsConfig, Shape, spawn_body, spawn_revolute};
use laige_sim::World;

const KNOWN_HASH: u64 = 0xc632_0ab6_6104_7949;

fn v(x: i32, y: i32) -> Vec2<F> {
    Vec2::new(F::from_i32(x), F::from_i32(y))
}

#[test]
fn the_fixed_point_scene_hashes_to_its_known_answer() {
    let mut world = World::default();
    Physics::install(&mut world, PhysicsConfig::<F>::default(), 0).unwrap();
    let ground = spawn_body(
        &mut world,
        &BodyDef::fixed(v(0, -1)),
        &[Collider::new(Shape::rect(F::from_i32(20), F::ONE).unwrap())],
    )
    .unwrap();
    let half = F::from_ratio(1, 2);
    for i in 0..40 {
        let shape = match i % 4 {
            0 => Shape::rect(half, F::from_ratio(1, 3)).unwrap(),
            1 => Shape::circle(F::from_ratio(2, 5)).unwrap(),
            2 => Shape::capsule(
                Vec2::new(-half, F::ZERO),
                Vec2::new(half, F::ZERO),
                F::from_ratio(1, 5),
            )
            .unwrap(),
            _ => Shape::polygon(&[
                v(0, -1) * half,
                v(1, 0) * half,
                v(0, 1) * half,
                v(-1, 0) * half,
            ])
            .unwrap(),
        };
        let mut def = BodyDef::dynamic(Vec2::new(
            F::from_ratio(i % 8 * 3 - 10, 2),
            F::from_i32(1 + i / 8 * 2),
        ));
        def.angle = BinaryAngle::from_bits(0x0931_0000u32.wrapping_mul(i as u32));
        let c = Collider::new(shape)
            .restitution(F::from_ratio(i % 3, 5))
            .friction(F::from_ratio(1 + i % 4, 4));
        spawn_body(&mut world, &def, &[c]).unwrap();
    }
    let bob = spawn_body(
        &mut world,
        &BodyDef::dynamic(v(14, 6)),
        &[Collider::new(Shape::circle(half).unwrap())],
    )
    .unwrap();
    spawn_revolute(&mut world, ground, bob, v(14, 9)).unwrap();
    let strip = Collider::new(Shape::rect(F::from_i32(6), half).unwrap()).sensor(true);
    spawn_body(&mut world, &BodyDef::fixed(v(0, 4)), &[strip]).unwrap();
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
