//! Queries, events read by a system, kinematic bodies, range clamps and
//! every shape pair resting on another, on both backends.

use laige_core::{BinaryAngle, Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_physics::{
    Aabb, BodyDef, BodyKind, Collider, ColliderRef, Filter, Physics, PhysicsConfig,
    PhysicsEventKind, PhysicsState, RigidBody, Rot, Shape, Transform, query_aabb, query_overlap,
    query_point, ray_cast, ray_cast_all, spawn_body,
};
use laige_sim::{StateHash, World};

fn v<S: SimScalar>(x: i32, y: i32) -> Vec2<S> {
    Vec2::new(S::from_i32(x), S::from_i32(y))
}

fn installed<S: SimScalar + StateHash>(config: PhysicsConfig<S>) -> World {
    let mut world = World::default();
    Physics::install(&mut world, config, 0).unwrap();
    world
}

fn queries<S: SimScalar + StateHash>() {
    let mut world = installed::<S>(PhysicsConfig::default());
    let unit = Shape::rect(S::ONE, S::ONE).unwrap();
    // Three boxes on a line at x = 0, 4, 8 and a circle at x = 12 on layer 2.
    let mut boxes = Vec::new();
    for x in [8, 0, 4] {
        boxes.push(
            spawn_body(&mut world, &BodyDef::fixed(v(x, 0)), &[Collider::new(unit)]).unwrap(),
        );
    }
    let ball = Collider::new(Shape::circle(S::ONE).unwrap()).filter(Filter {
        category: 2,
        mask: u32::MAX,
    });
    let circle = spawn_body(&mut world, &BodyDef::fixed(v(12, 0)), &[ball]).unwrap();

    let mut out = Vec::new();
    query_point(
        &world,
        Vec2::new(S::from_ratio(1, 2), S::ZERO),
        u32::MAX,
        &mut out,
    );
    assert_eq!(
        out,
        [ColliderRef {
            body: boxes[1],
            collider: 0
        }]
    );
    query_point(&world, v::<S>(2, 0), u32::MAX, &mut out);
    assert!(out.is_empty());

    let all = Aabb {
        min: v::<S>(-2, -2),
        max: v::<S>(20, 2),
    };
    query_aabb(&world, all, u32::MAX, &mut out);
    let mut expected: Vec<_> = boxes
        .iter()
        .chain([&circle])
        .map(|&body| ColliderRef { body, collider: 0 })
        .collect();
    expected.sort_by_key(|r| r.body.to_bits());
    assert_eq!(out, expected, "by entity bits");
    query_aabb(&world, all, 2, &mut out);
    assert_eq!(
        out,
        [ColliderRef {
            body: circle,
            collider: 0
        }],
        "the mask picks layer 2"
    );

    let probe = Shape::circle(S::from_ratio(3, 2)).unwrap();
    let xf = Transform {
        p: v::<S>(2, 0),
        q: Rot::IDENTITY,
    };
    query_overlap(&world, &probe, xf, u32::MAX, &mut out);
    let mut two = vec![boxes[1], boxes[2]];
    two.sort_by_key(|e| e.to_bits());
    assert_eq!(out.iter().map(|r| r.body).collect::<Vec<_>>(), two);

    // A ray from the left along +x: box 0 first at x = -1, then 4's, 8's, the circle.
    let hit = ray_cast(&world, v::<S>(-5, 0), v::<S>(30, 0), u32::MAX)
        .unwrap()
        .unwrap();
    assert_eq!(hit.target.body, boxes[1]);
    assert!((hit.point.x.to_f32() + 1.0).abs() < 1e-3, "{:?}", hit.point);
    assert!((hit.normal.x.to_f32() + 1.0).abs() < 1e-3);
    let mut hits = Vec::new();
    ray_cast_all(&world, v::<S>(-5, 0), v::<S>(30, 0), u32::MAX, &mut hits).unwrap();
    let order: Vec<_> = hits.iter().map(|h| h.target.body).collect();
    assert_eq!(order, [boxes[1], boxes[2], boxes[0], circle]);
    assert!(
        (hits[3].point.x.to_f32() - 11.0).abs() < 1e-3,
        "{:?}",
        hits[3].point
    );
    // A ray that misses, and one out of range.
    assert!(
        ray_cast(&world, v::<S>(-5, 5), v::<S>(30, 0), u32::MAX)
            .unwrap()
            .is_none()
    );
    assert!(ray_cast(&world, v::<S>(-5, 0), v::<S>(200, 0), u32::MAX).is_err());
}

#[test]
fn queries_find_colliders_in_entity_order() {
    queries::<Fpx16_16>();
    queries::<Fp32Pinned>();
}

/// A system after the step reads the step's events from the world.
fn events_by_system<S: SimScalar + StateHash>() -> (u32, u32) {
    #[derive(Default)]
    struct Seen(u32, u32);
    let mut world = installed::<S>(PhysicsConfig::default());
    world.insert_resource(Seen::default());
    world
        .register_system("count_hits", 10, |ctx| {
            let mut begins = 0;
            let mut ends = 0;
            for ev in ctx.resource::<PhysicsState<S>>()?.events() {
                match ev.kind {
                    PhysicsEventKind::ContactBegin => begins += 1,
                    PhysicsEventKind::ContactEnd => ends += 1,
                    _ => {}
                }
            }
            let seen = ctx.resource_mut::<Seen>()?;
            seen.0 += begins;
            seen.1 += ends;
            Ok(())
        })
        .unwrap();
    spawn_body(
        &mut world,
        &BodyDef::fixed(v(0, -1)),
        &[Collider::new(Shape::rect(S::from_i32(10), S::ONE).unwrap())],
    )
    .unwrap();
    let ball =
        Collider::new(Shape::circle(S::from_ratio(1, 2)).unwrap()).restitution(S::from_ratio(4, 5));
    spawn_body(&mut world, &BodyDef::dynamic(v(0, 3)), &[ball]).unwrap();
    let schedule = world.schedule_systems();
    for _ in 0..120 {
        world.run_systems(&schedule).unwrap();
    }
    let seen = world.resource::<Seen>().unwrap();
    (seen.0, seen.1)
}

#[test]
fn a_system_reads_contact_begin_and_end() {
    for (begins, ends) in [
        events_by_system::<Fpx16_16>(),
        events_by_system::<Fp32Pinned>(),
    ] {
        // A bouncing ball: every touch begins once and ends once when it
        // leaves; the last may still be touching. More than one bounce.
        assert!(begins >= 2, "{begins}");
        assert!(
            begins == ends || begins == ends + 1,
            "{begins} begins, {ends} ends"
        );
    }
}

/// A kinematic platform moving right carries a box resting on it.
fn kinematic<S: SimScalar + StateHash>() -> f32 {
    let mut world = installed::<S>(PhysicsConfig::default());
    let mut platform = BodyDef::new(BodyKind::Kinematic, v(0, 0));
    platform.linear_velocity = v(1, 0);
    let p = spawn_body(
        &mut world,
        &platform,
        &[Collider::new(
            Shape::rect(S::from_i32(4), S::from_ratio(1, 4)).unwrap(),
        )],
    )
    .unwrap();
    let half = S::from_ratio(1, 2);
    let b = spawn_body(
        &mut world,
        &BodyDef::dynamic(Vec2::new(S::ZERO, S::from_ratio(3, 4))),
        &[Collider::new(Shape::rect(half, half).unwrap())],
    )
    .unwrap();
    let schedule = world.schedule_systems();
    for _ in 0..120 {
        world.run_systems(&schedule).unwrap();
    }
    let (p, b) = (
        world.get_copied::<RigidBody<S>>(p).unwrap(),
        world.get_copied::<RigidBody<S>>(b).unwrap(),
    );
    assert!(
        (p.position.x.to_f32() - 2.0).abs() < 1e-2,
        "{:?}",
        p.position
    );
    assert!(!b.sleeping, "a moving platform keeps its load awake");
    assert!(
        (b.linear_velocity.x.to_f32() - 1.0).abs() < 0.01,
        "{:?}",
        b.linear_velocity
    );
    b.position.x.to_f32()
}

#[test]
fn a_kinematic_platform_carries_a_box() {
    for x in [kinematic::<Fpx16_16>(), kinematic::<Fp32Pinned>()] {
        // It slips while friction (0.6 g) brings it to 1 m/s: 1/12 m.
        assert!(
            (x - (2.0 - 1.0 / 12.0)).abs() < 0.02,
            "the box moved with the platform: {x}"
        );
    }
}

/// A body leaving the world is clamped at the edge and counted.
fn clamp<S: SimScalar + StateHash>() -> u64 {
    let mut world = installed::<S>(PhysicsConfig {
        gravity: Vec2::ZERO,
        ..PhysicsConfig::default()
    });
    let mut def = BodyDef::dynamic(v(8190, 0));
    def.linear_velocity = v(120, 0);
    let e = spawn_body(
        &mut world,
        &def,
        &[Collider::new(Shape::circle(S::ONE).unwrap())],
    )
    .unwrap();
    let schedule = world.schedule_systems();
    for _ in 0..10 {
        world.run_systems(&schedule).unwrap();
    }
    let b = world.get_copied::<RigidBody<S>>(e).unwrap();
    assert_eq!(b.position.x, S::from_i32(8192));
    assert_eq!(b.linear_velocity.x, S::ZERO);
    Physics::state::<S>(&world).unwrap().stats().clamped
}

#[test]
fn leaving_the_world_is_clamped_and_counted() {
    assert!(clamp::<Fpx16_16>() >= 1);
    assert!(clamp::<Fp32Pinned>() >= 1);
}

/// Every shape dropped (rotated) onto a box, and every shape but the
/// circle (which rolls) onto a tilted box, comes to rest above it: no
/// tunnelling, no sinking, no explosion.
fn rests<S: SimScalar + StateHash>() {
    let half = S::from_ratio(1, 2);
    let shapes = [
        Shape::circle(half).unwrap(),
        Shape::rect(half, S::from_ratio(1, 4)).unwrap(),
        Shape::capsule(
            Vec2::new(-half, S::ZERO),
            Vec2::new(half, S::ZERO),
            S::from_ratio(1, 4),
        )
        .unwrap(),
        Shape::polygon(&[
            Vec2::new(S::ZERO, -half),
            Vec2::new(half, S::ZERO),
            Vec2::new(S::from_ratio(1, 4), half),
            Vec2::new(-S::from_ratio(1, 4), half),
            Vec2::new(-half, S::ZERO),
        ])
        .unwrap(),
        Shape::rect(half, half)
            .unwrap()
            .transformed(
                Vec2::new(S::from_ratio(1, 4), S::ZERO),
                BinaryAngle::from_bits(1 << 28),
            )
            .unwrap(),
    ];
    for (i, shape) in shapes.iter().enumerate() {
        for tilt in [0u32, 1 << 26] {
            if i == 0 && tilt != 0 {
                continue;
            }
            let mut world = installed::<S>(PhysicsConfig::default());
            let mut ground = BodyDef::fixed(v(0, -1));
            ground.angle = BinaryAngle::from_bits(tilt);
            spawn_body(
                &mut world,
                &ground,
                &[Collider::new(Shape::rect(S::from_i32(8), S::ONE).unwrap()).friction(S::ONE)],
            )
            .unwrap();
            let mut def = BodyDef::dynamic(v(0, 2));
            def.angle = BinaryAngle::from_bits(0x1234_5678);
            let e =
                spawn_body(&mut world, &def, &[Collider::new(*shape).friction(S::ONE)]).unwrap();
            let schedule = world.schedule_systems();
            for _ in 0..300 {
                world.run_systems(&schedule).unwrap();
            }
            let b = world.get_copied::<RigidBody<S>>(e).unwrap();
            let y = b.position.y.to_f32();
            let x = b.position.x.to_f32();
            assert!(
                y > -0.1 && y < 1.0 && x.abs() < 3.0,
                "shape {i} tilt {tilt}: at ({x}, {y})"
            );
            assert!(
                b.linear_velocity.length_wide().to_f32() < 0.1,
                "shape {i} tilt {tilt}: still moving"
            );
        }
    }
}

#[test]
fn every_shape_comes_to_rest_on_a_box() {
    rests::<Fpx16_16>();
    rests::<Fp32Pinned>();
}
