//! Joints that can fail: a pendulum on a revolute joint and one on a
//! distance joint keep their length while they swing, on both backends.

use hecs::Entity;
use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_physics::{
    BodyDef, Collider, Joint, Physics, PhysicsConfig, RigidBody, Shape, spawn_body, spawn_distance,
    spawn_revolute,
};
use laige_sim::{StateHash, World};

#[expect(
    clippy::print_stderr,
    reason = "the measured value beside its tolerance"
)]
fn report(test: &str, backend: &str, measured: f64, tolerance: &str) {
    eprintln!("{test} [{backend}]: measured {measured:.5}, tolerance {tolerance}");
}

fn v<S: SimScalar>(x: i32, y: i32) -> Vec2<S> {
    Vec2::new(S::from_i32(x), S::from_i32(y))
}

/// A 3 m pendulum released horizontally; the largest deviation of the
/// bob's distance to the pivot over 10 s, and the lowest bob height seen.
fn pendulum<S: SimScalar + StateHash>(revolute: bool) -> (f64, f64) {
    let mut world = World::default();
    Physics::install(&mut world, PhysicsConfig::<S>::default(), 0).unwrap();
    let schedule = world.schedule_systems();
    let pivot = v::<S>(0, 10);
    let anchor = spawn_body(&mut world, &BodyDef::fixed(pivot), &[]).unwrap();
    let ball = Collider::new(Shape::circle(S::from_ratio(1, 4)).unwrap());
    let bob = spawn_body(&mut world, &BodyDef::dynamic(v(3, 10)), &[ball]).unwrap();
    let joint: Entity = if revolute {
        spawn_revolute(&mut world, anchor, bob, pivot).unwrap()
    } else {
        spawn_distance(&mut world, anchor, bob, pivot, v(3, 10)).unwrap()
    };
    assert!(world.get_copied::<Joint<S>>(joint).is_some());
    let (mut worst, mut lowest) = (0.0f64, 10.0f64);
    for _ in 0..600 {
        world.run_systems(&schedule).unwrap();
        let b = world.get_copied::<RigidBody<S>>(bob).unwrap();
        let len = f64::from(b.world_center().distance_wide(pivot).to_f32());
        worst = worst.max((len - 3.0).abs());
        lowest = lowest.min(f64::from(b.position.y.to_f32()));
    }
    (worst, lowest)
}

#[test]
fn a_pendulum_keeps_its_length() {
    for (name, (worst, lowest)) in [
        ("revolute, Fpx16_16", pendulum::<Fpx16_16>(true)),
        ("revolute, Fp32Pinned", pendulum::<Fp32Pinned>(true)),
        ("distance, Fpx16_16", pendulum::<Fpx16_16>(false)),
        ("distance, Fp32Pinned", pendulum::<Fp32Pinned>(false)),
    ] {
        report(
            "pendulum |length - 3 m| max over 10 s (m)",
            name,
            worst,
            "< 0.01",
        );
        assert!(worst < 0.01, "{name}: the length strayed by {worst} m");
        // It swung through the bottom: the joint held it on the circle.
        assert!(lowest < 7.1, "{name}: lowest {lowest}");
    }
}
