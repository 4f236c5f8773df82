//! Shape casts that can fail: the time of impact against a wall and a
//! floor within the documented tolerance, the hit's normal and point, the
//! result order (fraction, then entity bits), misses, a start inside a
//! collider, bad translations, and — over many random casts of every
//! shape pair on both backends — that the shape moved to its hit does not
//! overlap the collider while moving it 1 cm further in does. Each prints
//! its measured value (`--nocapture`).

#![allow(
    clippy::print_stderr,
    reason = "the measured value beside its tolerance"
)]

use laige_core::{BinaryAngle, Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_physics::{
    BodyDef, Collider, RayHit, Rot, Shape, Transform, query_overlap, shape_cast, shape_cast_all,
    spawn_body,
};
use laige_sim::World;

/// `x` to 1/4096 (exact on both backends).
fn sc<S: SimScalar>(x: f32) -> S {
    S::from_ratio((x * 4096.0).round() as i32, 4096)
}

fn v<S: SimScalar>(x: f32, y: f32) -> Vec2<S> {
    Vec2::new(sc::<S>(x), sc::<S>(y))
}

fn at<S: SimScalar>(x: f32, y: f32) -> Transform<S> {
    Transform {
        p: v(x, y),
        q: Rot::IDENTITY,
    }
}

fn near(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

fn wall_and_floor<S: SimScalar>() {
    let mut world = World::default();
    let wall = Collider::new(Shape::rect(S::from_ratio(1, 2), S::from_i32(4)).unwrap());
    let w = spawn_body(&mut world, &BodyDef::fixed(v(10.0, 0.0)), &[wall]).unwrap();
    let floor = Collider::new(Shape::rect(S::from_i32(20), S::ONE).unwrap());
    let f = spawn_body(&mut world, &BodyDef::fixed(v(0.0, -20.0)), &[floor]).unwrap();
    let mut hits = Vec::new();

    // A unit circle along +x: its edge meets the wall's face (x = 9.5)
    // after 8.5 of 20 m.
    let ball = Shape::circle(S::ONE).unwrap();
    shape_cast_all(
        &world,
        &ball,
        at(0.0, 0.0),
        v(20.0, 0.0),
        u32::MAX,
        &mut hits,
    )
    .unwrap();
    assert_eq!(hits.len(), 1);
    let h = hits[0];
    assert_eq!(h.target.body, w);
    let moved = h.fraction.to_f32() * 20.0;
    eprintln!("circle→wall: moved {moved} m (exact 8.5, tolerance 1/256 m + rounding)");
    assert!((8.5 - 0.006..=8.5 + 1e-3).contains(&moved), "{moved}");
    assert!(near(h.normal.x.to_f32(), -1.0, 1e-3) && near(h.normal.y.to_f32(), 0.0, 1e-3));
    assert!(near(h.point.x.to_f32(), 9.5, 1e-3) && near(h.point.y.to_f32(), 0.0, 1e-3));

    // A turned box falling onto the floor (top at y = -19): its lowest
    // corner, 0.5·√2 below its centre at 45°, lands first.
    let cube = Shape::rect(S::from_ratio(1, 2), S::from_ratio(1, 2)).unwrap();
    let turned = Transform {
        p: v(3.0, -10.0),
        q: Rot::from_angle(BinaryAngle::from_bits(1 << 29)),
    };
    let hit = shape_cast(&world, &cube, turned, v(0.0, -20.0), u32::MAX, &mut hits)
        .unwrap()
        .expect("the box lands on the floor");
    assert_eq!(hit.target.body, f);
    let fall = hit.fraction.to_f32() * 20.0;
    let exact = 9.0 - 0.5 * std::f32::consts::SQRT_2;
    eprintln!("turned box→floor: fell {fall} m (exact {exact})");
    assert!(near(fall, exact - 0.002, 0.004), "{fall}");
    assert!(near(hit.normal.y.to_f32(), 1.0, 1e-3));
    assert!(near(hit.point.x.to_f32(), 3.0, 0.01) && near(hit.point.y.to_f32(), -19.0, 0.01));

    // Misses: along the wall, away from it, short of it.
    for (from, by) in [
        (at(0.0, 6.0), v(20.0, 0.0)),
        (at(0.0, 0.0), v(-20.0, 0.0)),
        (at(0.0, 0.0), v(8.0, 0.0)),
    ] {
        shape_cast_all(&world, &ball, from, by, u32::MAX, &mut hits).unwrap();
        assert!(hits.is_empty(), "{hits:?}");
    }
    // Inside the wall at the start: hit at 0.
    shape_cast_all(
        &world,
        &ball,
        at(9.8, 0.0),
        v(0.0, 3.0),
        u32::MAX,
        &mut hits,
    )
    .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].fraction, S::ZERO);
    // The mask: the wall's category is 1.
    shape_cast_all(&world, &ball, at(0.0, 0.0), v(20.0, 0.0), 0, &mut hits).unwrap();
    assert!(hits.is_empty());
    // Bad translations.
    for by in [v(0.0, 0.0), v(200.0, 0.0)] {
        let e = shape_cast_all(&world, &ball, at(0.0, 0.0), by, u32::MAX, &mut hits).unwrap_err();
        assert_eq!(e.field(), Some("translation"));
    }
}

#[test]
fn casts_stop_at_the_first_touch_with_its_normal_and_point() {
    wall_and_floor::<Fpx16_16>();
    wall_and_floor::<Fp32Pinned>();
}

fn order<S: SimScalar>() {
    let mut world = World::default();
    let post = Collider::new(Shape::circle(S::from_ratio(1, 2)).unwrap());
    // Spawned far to near, and two at the same distance.
    let far = spawn_body(&mut world, &BodyDef::fixed(v(12.0, 0.0)), &[post]).unwrap();
    let twin_a = spawn_body(&mut world, &BodyDef::fixed(v(6.0, 1.0)), &[post]).unwrap();
    let twin_b = spawn_body(&mut world, &BodyDef::fixed(v(6.0, -1.0)), &[post]).unwrap();
    let near_ = spawn_body(&mut world, &BodyDef::fixed(v(3.0, 0.0)), &[post]).unwrap();
    let capsule = Shape::capsule(v(0.0, -1.5), v(0.0, 1.5), S::from_ratio(1, 4)).unwrap();
    let mut hits: Vec<RayHit<S>> = Vec::new();
    shape_cast_all(
        &world,
        &capsule,
        at(0.0, 0.0),
        v(20.0, 0.0),
        u32::MAX,
        &mut hits,
    )
    .unwrap();
    let bodies: Vec<_> = hits.iter().map(|h| h.target.body).collect();
    let (lo, hi) = if twin_a.to_bits() < twin_b.to_bits() {
        (twin_a, twin_b)
    } else {
        (twin_b, twin_a)
    };
    assert_eq!(bodies, vec![near_, lo, hi, far]);
    assert_eq!(hits[1].fraction, hits[2].fraction, "the twins tie");
    let mut again = Vec::new();
    shape_cast_all(
        &world,
        &capsule,
        at(0.0, 0.0),
        v(20.0, 0.0),
        u32::MAX,
        &mut again,
    )
    .unwrap();
    assert_eq!(hits, again);
}

#[test]
fn results_are_ordered_by_fraction_then_entity_bits() {
    order::<Fpx16_16>();
    order::<Fp32Pinned>();
}

/// A small deterministic generator for the random casts.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        lo + (hi - lo) * ((self.0 >> 40) as f32 / (1u64 << 24) as f32)
    }
}

fn shapes<S: SimScalar>(k: usize, size: f32) -> Shape<S> {
    let s = sc::<S>(size);
    match k % 4 {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::rect(s, s * S::from_ratio(1, 2)).unwrap(),
        2 => Shape::capsule(v(-size, 0.0), v(size, 0.0), s * S::from_ratio(1, 3)).unwrap(),
        _ => Shape::polygon(&[
            v(0.0, -size),
            v(size, 0.0),
            v(0.0, size),
            v(-size * 0.7, 0.0),
        ])
        .unwrap(),
    }
}

fn random_casts<S: SimScalar>() -> (u32, u32) {
    let mut rng = Lcg(0x5ca5_7000);
    let (mut hit, mut checked) = (0, 0);
    let mut out = Vec::new();
    let mut overlaps = Vec::new();
    for i in 0..400 {
        let mut world = World::default();
        let mut def = BodyDef::fixed(v(rng.next(-2.0, 2.0), rng.next(-2.0, 2.0)));
        def.angle = BinaryAngle::from_bits((rng.next(0.0, 1.0) * 4.0e9) as u32);
        let target = shapes::<S>(i / 4, rng.next(0.3, 2.0));
        spawn_body(&mut world, &def, &[Collider::new(target)]).unwrap();
        let cast = shapes::<S>(i, rng.next(0.2, 1.5));
        let from = Transform {
            p: v(rng.next(-12.0, 12.0), rng.next(-12.0, 12.0)),
            q: Rot::from_angle(BinaryAngle::from_bits((rng.next(0.0, 1.0) * 4.0e9) as u32)),
        };
        let aim = v::<S>(rng.next(-3.0, 3.0), rng.next(-3.0, 3.0)) - from.p;
        let by = aim * S::from_ratio(3, 2);
        if shape_cast(&world, &cast, from, by, u32::MAX, &mut out)
            .unwrap()
            .is_none_or(|h| h.fraction == S::ZERO)
        {
            continue;
        }
        let h = out[0];
        hit += 1;
        let len = by.length_wide().to_f32();
        // At the hit: clear of the target (the narrowphase reports no
        // penetration).
        let stop = Transform {
            p: from.p + by * h.fraction,
            q: from.q,
        };
        query_overlap(&world, &cast, stop, u32::MAX, &mut overlaps);
        assert!(
            overlaps.is_empty(),
            "cast {i}: overlapping at its hit {h:?}"
        );
        // 1 cm further into the target (along the cast, so 1 cm / |u·n|
        // of travel), when the cast goes that far and does not graze:
        // overlapping.
        let u = by.normalize_wide();
        let into = -u.dot(h.normal).to_f32();
        assert!(
            into > -1e-3,
            "cast {i}: the normal {h:?} faces away from the cast"
        );
        let further = h.fraction.to_f32() + 0.01 / into.max(1e-6) / len;
        if into > 0.3 && further <= 1.0 {
            let past = Transform {
                p: from.p + by * sc::<S>(further),
                q: from.q,
            };
            query_overlap(&world, &cast, past, u32::MAX, &mut overlaps);
            assert!(
                !overlaps.is_empty(),
                "cast {i}: 1 cm past its hit {h:?} is still clear"
            );
            checked += 1;
        }
    }
    (hit, checked)
}

#[test]
fn random_casts_stop_clear_of_the_target_and_within_a_centimetre() {
    for (name, (hit, checked)) in [
        ("Fpx16_16", random_casts::<Fpx16_16>()),
        ("Fp32Pinned", random_casts::<Fp32Pinned>()),
    ] {
        eprintln!("{name}: {hit} of 400 random casts hit; {checked} checked 1 cm past the hit");
        assert!(
            hit > 150 && checked > 100,
            "{name}: {hit} hits, {checked} checked"
        );
    }
}
