//! Scene pieces the physics tests share.

use laige_core::{BinaryAngle, SimScalar, Vec2};
use laige_physics::{BodyDef, Collider, Shape, spawn_body};
use laige_sim::World;

/// `(x, y)` metres.
pub fn v<S: SimScalar>(x: i32, y: i32) -> Vec2<S> {
    Vec2::new(S::from_i32(x), S::from_i32(y))
}

/// Forty dynamic bodies dropped in five rows of eight, half a metre wide:
/// boxes, circles, capsules and diamonds in turn, each turned its own
/// angle, with restitution 0 to 0.4 and friction 0.25 to 1 varying. The
/// columns stand at `x = (3·column + x0) / 2` m, the rows at 1, 3, … 9 m.
pub fn mixed_bodies<S: SimScalar>(world: &mut World, x0: i32) {
    let half = S::from_ratio(1, 2);
    for i in 0..40 {
        let shape = match i % 4 {
            0 => Shape::rect(half, S::from_ratio(1, 3)).unwrap(),
            1 => Shape::circle(S::from_ratio(2, 5)).unwrap(),
            2 => Shape::capsule(
                Vec2::new(-half, S::ZERO),
                Vec2::new(half, S::ZERO),
                S::from_ratio(1, 5),
            )
            .unwrap(),
            _ => Shape::polygon(&[
                v::<S>(0, -1) * half,
                v::<S>(1, 0) * half,
                v::<S>(0, 1) * half,
                v::<S>(-1, 0) * half,
            ])
            .unwrap(),
        };
        let mut def = BodyDef::dynamic(Vec2::new(
            S::from_ratio(i % 8 * 3 + x0, 2),
            S::from_i32(1 + i / 8 * 2),
        ));
        def.angle = BinaryAngle::from_bits(0x0931_0000u32.wrapping_mul(i as u32));
        let c = Collider::new(shape)
            .restitution(S::from_ratio(i % 3, 5))
            .friction(S::from_ratio(1 + i % 4, 4));
        spawn_body(world, &def, &[c]).unwrap();
    }
}
