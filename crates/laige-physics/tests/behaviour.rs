//! Behaviour tests that can fail: stacking, restitution, momentum,
//! rollback re-simulation and sensor events, on both backends. Each prints
//! its measured value beside its tolerance (`--nocapture`).

use hecs::Entity;
use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_physics::{
    BodyDef, Collider, Physics, PhysicsConfig, PhysicsEventKind, PhysicsState, RigidBody, Shape,
    spawn_body,
};
use laige_sim::snapshot::SnapshotRing;
use laige_sim::{StateHash, SystemSchedule, World};

#[expect(
    clippy::print_stderr,
    reason = "the measured value beside its tolerance"
)]
fn report(test: &str, backend: &str, measured: f64, tolerance: &str) {
    eprintln!("{test} [{backend}]: measured {measured:.5}, tolerance {tolerance}");
}

fn world<S: SimScalar + StateHash>(config: PhysicsConfig<S>) -> (World, SystemSchedule) {
    let mut world = World::default();
    Physics::install(&mut world, config, 0).unwrap();
    let schedule = world.schedule_systems();
    (world, schedule)
}

fn v<S: SimScalar>(x: S, y: S) -> Vec2<S> {
    Vec2::new(x, y)
}

fn body<S: SimScalar + StateHash>(world: &World, e: Entity) -> RigidBody<S> {
    world.get_copied::<RigidBody<S>>(e).unwrap()
}

fn ground<S: SimScalar + StateHash>(world: &mut World) -> Entity {
    let shape = Shape::rect(S::from_i32(30), S::ONE).unwrap();
    spawn_body(
        world,
        &BodyDef::fixed(v(S::ZERO, S::from_i32(-1))),
        &[Collider::new(shape)],
    )
    .unwrap()
}

/// Box2D's pyramid: 20 rows of unit boxes (210), touching, on the ground.
/// Returns the top box's displacement over the 10 s, and from 1 s (the
/// stack settled onto its contacts' slop) to 10 s.
fn pyramid<S: SimScalar + StateHash>(enable_sleep: bool) -> (f64, f64) {
    let config = PhysicsConfig {
        enable_sleep,
        ..PhysicsConfig::default()
    };
    let (mut world, schedule) = world::<S>(config);
    ground::<S>(&mut world);
    let h = S::from_ratio(1, 2);
    let shape = Shape::rect(h, h).unwrap();
    let base = 20;
    let mut top = None;
    for i in 0..base {
        let y = S::from_i32(2 * i + 1) * h;
        for j in i..base {
            let x = S::from_i32(i + 1) * h + S::from_i32(2 * (j - i)) * h - h * S::from_i32(base);
            let e = spawn_body(
                &mut world,
                &BodyDef::dynamic(v(x, y)),
                &[Collider::new(shape)],
            )
            .unwrap();
            top = Some(e);
        }
    }
    assert_eq!(world.len(), 211);
    let top = top.unwrap();
    let start = body::<S>(&world, top).position;
    let mut settled = start;
    for t in 0..600 {
        world.run_systems(&schedule).unwrap();
        if t == 59 {
            settled = body::<S>(&world, top).position;
        }
    }
    let end = body::<S>(&world, top).position;
    let moved = |from: Vec2<S>| f64::from((end - from).length_wide().to_f32());
    let state = Physics::state::<S>(&world).unwrap();
    assert_eq!(state.stats().clamped, 0);
    (moved(start), moved(settled))
}

#[test]
fn pyramid_of_210_boxes_stands_for_10_seconds() {
    for (name, (total, drift)) in [
        ("Fpx16_16", pyramid::<Fpx16_16>(true)),
        ("Fp32Pinned", pyramid::<Fp32Pinned>(true)),
    ] {
        report("pyramid top displacement 0-10 s (m)", name, total, "< 0.05");
        report(
            "pyramid top displacement 1-10 s (m)",
            name,
            drift,
            "< 0.005",
        );
        assert!(total < 0.05, "{name}: the top box moved {total} m");
        assert!(
            drift < 0.005,
            "{name}: the top box drifted {drift} m after settling"
        );
    }
}

/// Without sleep the solver alone holds the pyramid: the top box stays
/// within 10 cm (Q16.16 creeps: a residual velocity below the 1/65536 m
/// per substep grid; see the crate docs), and the pyramid does not fall.
#[test]
fn pyramid_without_sleep_creeps_but_stands() {
    for (name, (total, drift)) in [
        ("Fpx16_16", pyramid::<Fpx16_16>(false)),
        ("Fp32Pinned", pyramid::<Fp32Pinned>(false)),
    ] {
        report(
            "no-sleep pyramid top displacement 0-10 s (m)",
            name,
            total,
            "< 0.1",
        );
        report(
            "no-sleep pyramid top displacement 1-10 s (m)",
            name,
            drift,
            "< 0.05",
        );
        assert!(total < 0.1, "{name}: the top box moved {total} m");
        assert!(drift < 0.05, "{name}: the top box drifted {drift} m");
    }
}

/// A ball of restitution 0.5 dropped from 4 m rebounds to about 1 m.
fn bounce<S: SimScalar + StateHash>() -> f64 {
    let config = PhysicsConfig {
        enable_sleep: false,
        ..PhysicsConfig::default()
    };
    let (mut world, schedule) = world::<S>(config);
    let g = ground::<S>(&mut world);
    let _ = g;
    let r = S::from_ratio(1, 4);
    let drop = S::from_i32(4);
    let ball = Collider::new(Shape::circle(r).unwrap())
        .restitution(S::from_ratio(1, 2))
        .friction(S::ZERO);
    let e = spawn_body(&mut world, &BodyDef::dynamic(v(S::ZERO, drop + r)), &[ball]).unwrap();
    let mut bounced = false;
    let mut apex = S::ZERO;
    for _ in 0..300 {
        world.run_systems(&schedule).unwrap();
        let b = body::<S>(&world, e);
        if b.linear_velocity.y.gt(S::ZERO) {
            bounced = true;
        }
        if bounced {
            if b.linear_velocity.y.lt(S::ZERO) {
                break;
            }
            apex = apex.max(b.position.y - r);
        }
    }
    assert!(bounced);
    f64::from(apex.to_f32()) / 4.0
}

#[test]
fn a_ball_with_restitution_half_rebounds_to_a_quarter_of_its_drop() {
    for (name, ratio) in [
        ("Fpx16_16", bounce::<Fpx16_16>()),
        ("Fp32Pinned", bounce::<Fp32Pinned>()),
    ] {
        report("rebound height / drop height", name, ratio, "0.25 +- 0.03");
        assert!((ratio - 0.25).abs() < 0.03, "{name}: rebound ratio {ratio}");
    }
}

/// Two balls head-on without gravity: the momentum after the collision
/// equals the momentum before within 0.5 %.
fn head_on<S: SimScalar + StateHash>() -> f64 {
    let config = PhysicsConfig {
        gravity: Vec2::ZERO,
        ..PhysicsConfig::default()
    };
    let (mut world, schedule) = world::<S>(config);
    let big =
        Collider::new(Shape::circle(S::from_ratio(1, 2)).unwrap()).restitution(S::from_ratio(1, 2));
    let small =
        Collider::new(Shape::circle(S::from_ratio(1, 4)).unwrap()).restitution(S::from_ratio(1, 2));
    let mut a = BodyDef::dynamic(v(S::from_i32(-3), S::ZERO));
    a.linear_velocity = v(S::from_i32(4), S::ZERO);
    let mut b = BodyDef::dynamic(v(S::from_i32(3), S::ZERO));
    b.linear_velocity = v(S::from_i32(-6), S::ZERO);
    let ea = spawn_body(&mut world, &a, &[big]).unwrap();
    let eb = spawn_body(&mut world, &b, &[small]).unwrap();
    let momentum = |world: &World| {
        let (a, b) = (body::<S>(world, ea), body::<S>(world, eb));
        f64::from((a.linear_velocity.x * a.mass + b.linear_velocity.x * b.mass).to_f32())
    };
    let before = momentum(&world);
    for _ in 0..120 {
        world.run_systems(&schedule).unwrap();
    }
    let (va, vb) = (
        body::<S>(&world, ea).linear_velocity.x,
        body::<S>(&world, eb).linear_velocity.x,
    );
    assert!(va.lt(S::ZERO) || va.lt(vb), "the balls met and separated");
    assert!(vb.gt(S::ZERO));
    let after = momentum(&world);
    ((after - before) / before).abs()
}

#[test]
fn momentum_is_conserved_in_a_head_on_collision() {
    for (name, err) in [
        ("Fpx16_16", head_on::<Fpx16_16>()),
        ("Fp32Pinned", head_on::<Fp32Pinned>()),
    ] {
        report("relative momentum error", name, err, "< 0.005");
        assert!(err < 0.005, "{name}: momentum changed by {err}");
    }
}

/// A tumbling pile: save mid-run, run on, load, run again: the same state
/// hash at the end, tick for tick.
fn rollback<S: SimScalar + StateHash>() {
    let (mut world, schedule) = world::<S>(PhysicsConfig::default());
    ground::<S>(&mut world);
    for i in 0..12 {
        let x = S::from_ratio(i % 4 - 2, 1) + S::from_ratio(i, 10);
        let y = S::from_i32(2 + i);
        let shape = match i % 3 {
            0 => Shape::circle(S::from_ratio(2, 5)).unwrap(),
            1 => Shape::rect(S::from_ratio(1, 2), S::from_ratio(1, 4)).unwrap(),
            _ => Shape::capsule(
                v(S::from_ratio(-1, 2), S::ZERO),
                v(S::from_ratio(1, 2), S::ZERO),
                S::from_ratio(1, 4),
            )
            .unwrap(),
        };
        let mut def = BodyDef::dynamic(v(x, y));
        def.angular_velocity = S::from_i32(i - 6);
        spawn_body(
            &mut world,
            &def,
            &[Collider::new(shape).restitution(S::from_ratio(1, 5))],
        )
        .unwrap();
    }
    for _ in 0..90 {
        world.run_systems(&schedule).unwrap();
    }
    assert!(Physics::state::<S>(&world).unwrap().stats().touching > 0);
    let mut ring = SnapshotRing::new(&world, 1).unwrap();
    let saved = ring.save_hashed(0, &world).unwrap();
    let mut first = Vec::new();
    for _ in 0..120 {
        world.run_systems(&schedule).unwrap();
        first.push(world.state_hash());
    }
    ring.load(0, &mut world).unwrap();
    assert_eq!(world.state_hash(), saved);
    for (t, expected) in first.iter().enumerate() {
        world.run_systems(&schedule).unwrap();
        assert_eq!(world.state_hash(), *expected, "tick {t} after the load");
    }
}

#[test]
fn a_restored_snapshot_resimulates_bit_identically() {
    rollback::<Fpx16_16>();
    rollback::<Fp32Pinned>();
}

/// A ball falls through a sensor strip onto the ground: one sensor begin,
/// one sensor end, one contact begin with the ground, nothing else.
fn sensor<S: SimScalar + StateHash>() -> [usize; 4] {
    let (mut world, schedule) = world::<S>(PhysicsConfig::default());
    ground::<S>(&mut world);
    let strip =
        Collider::new(Shape::rect(S::from_i32(2), S::from_ratio(1, 4)).unwrap()).sensor(true);
    spawn_body(
        &mut world,
        &BodyDef::fixed(v(S::ZERO, S::from_i32(3))),
        &[strip],
    )
    .unwrap();
    let ball = Collider::new(Shape::circle(S::from_ratio(1, 4)).unwrap());
    spawn_body(
        &mut world,
        &BodyDef::dynamic(v(S::ZERO, S::from_i32(6))),
        &[ball],
    )
    .unwrap();
    let mut counts = [0usize; 4];
    for _ in 0..240 {
        world.run_systems(&schedule).unwrap();
        for ev in world.resource::<PhysicsState<S>>().unwrap().events() {
            counts[ev.kind as usize] += 1;
        }
    }
    counts
}

#[test]
fn sensors_report_begin_and_end_once_per_overlap() {
    let expected = [1, 0, 1, 1]; // contact begin, contact end, sensor begin, sensor end
    assert_eq!(PhysicsEventKind::SensorEnd as usize, 3);
    assert_eq!(sensor::<Fpx16_16>(), expected);
    assert_eq!(sensor::<Fp32Pinned>(), expected);
}

#[test]
fn out_of_range_values_are_errors_at_creation() {
    type F = Fpx16_16;
    let ball = Collider::new(Shape::circle(F::ONE).unwrap());
    let far = BodyDef::dynamic(v(F::from_i32(9000), F::ZERO));
    let err = BodyDef::build(&far, &[ball]).unwrap_err();
    assert_eq!(err.field(), Some("position"));
    let mut fast = BodyDef::dynamic(Vec2::ZERO);
    fast.linear_velocity = v(F::from_i32(100), F::from_i32(100));
    assert_eq!(
        fast.build(&[ball]).unwrap_err().field(),
        Some("linear_velocity")
    );
    let heavy = Collider::new(Shape::rect(F::from_i32(20), F::from_i32(20)).unwrap());
    assert_eq!(
        BodyDef::dynamic(Vec2::ZERO)
            .build(&[heavy])
            .unwrap_err()
            .field(),
        Some("mass")
    );
    let tiny = Collider::new(Shape::circle(F::from_ratio(1, 20)).unwrap());
    assert_eq!(
        BodyDef::dynamic(Vec2::ZERO)
            .build(&[tiny])
            .unwrap_err()
            .field(),
        Some("inertia")
    );
    let mut spinless = BodyDef::dynamic(Vec2::ZERO);
    spinless.fixed_rotation = true;
    assert!(spinless.build(&[tiny]).is_ok());
    let light =
        Collider::new(Shape::circle(F::from_ratio(1, 4)).unwrap()).density(F::from_ratio(1, 1000));
    assert_eq!(
        BodyDef::dynamic(Vec2::ZERO)
            .build(&[light])
            .unwrap_err()
            .field(),
        Some("mass")
    );
    assert!(Shape::<F>::circle(F::from_i32(40)).is_err());
    assert!(
        Shape::<F>::polygon(&[
            Vec2::ZERO,
            v(F::ONE, F::ZERO),
            v(F::ONE, F::ONE),
            v(F::from_i32(2), F::from_ratio(1, 2))
        ])
        .is_err()
    );
    // Within range: accepted on the other backend too.
    let ok = Collider::new(Shape::rect(Fp32Pinned::ONE, Fp32Pinned::ONE).unwrap());
    assert!(BodyDef::dynamic(Vec2::ZERO).build(&[ok]).is_ok());
}

/// A 0.1 m ball at the speed limit (128 m/s: 2.1 m per step) against a
/// wall 0.1 m thick: speculative contacts as long as the pair's closing
/// distance per step stop it at the wall; it never comes out behind.
fn tunnel<S: SimScalar + StateHash>() -> f64 {
    let config = PhysicsConfig {
        gravity: Vec2::ZERO,
        ..PhysicsConfig::default()
    };
    let (mut world, schedule) = world::<S>(config);
    let wall = Collider::new(Shape::rect(S::from_ratio(1, 20), S::from_i32(2)).unwrap());
    spawn_body(&mut world, &BodyDef::fixed(Vec2::ZERO), &[wall]).unwrap();
    let ball = Collider::new(Shape::circle(S::from_ratio(1, 10)).unwrap()).density(S::from_i32(16));
    let mut def = BodyDef::dynamic(v(S::from_i32(-7), S::from_ratio(1, 3)));
    def.linear_velocity = v(S::from_i32(128), S::ZERO);
    let e = spawn_body(&mut world, &def, &[ball]).unwrap();
    let mut farthest = -7.0f64;
    for _ in 0..60 {
        world.run_systems(&schedule).unwrap();
        farthest = farthest.max(f64::from(body::<S>(&world, e).position.x.to_f32()));
    }
    farthest
}

#[test]
fn a_fast_small_ball_does_not_tunnel_through_a_thin_wall() {
    for (name, x) in [
        ("Fpx16_16", tunnel::<Fpx16_16>()),
        ("Fp32Pinned", tunnel::<Fp32Pinned>()),
    ] {
        // The ball's centre never passes the wall's face minus its radius.
        report(
            "fast ball's farthest x (wall face at -0.05, radius 0.1)",
            name,
            x,
            "<= -0.14",
        );
        assert!(x <= -0.14, "{name}: the ball reached x = {x}");
    }
}
