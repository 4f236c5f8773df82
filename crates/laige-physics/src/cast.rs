//! Shape casts: a shape swept along a translation (no rotation) against
//! the world's colliders, by conservative advancement. Each step measures
//! the exact distance between the two shapes' cores (a circle's centre, a
//! capsule's segment, a polygon) less their radii, and moves the swept
//! shape that far along the translation: no point of it moves farther than
//! the gap, so it never passes into a collider, and it stops within
//! [`CAST_TOLERANCE`] of the first one it would touch.
//!
//! Results are [`RayHit`]s in the ray casts' order: by (fraction, entity
//! bits, collider index). A collider the shape overlaps at the start is
//! hit at fraction 0.

use laige_core::{Result, SimScalar, Vec2};
use laige_sim::Entities;

use crate::manifold::collide;
use crate::query::{MAX_RAY_LENGTH, RayHit, each_collider, hit_order, ray_error};
use crate::rot::Transform;
use crate::shape::{Aabb, Shape};

/// A cast stops this close to the collider it hits, metres (1/256: the
/// solver's slop is 1/200, so a body moved to the hit rests within it).
pub const CAST_TOLERANCE: (i32, i32) = (1, 256);

/// The most advancement steps per collider: a cast that grazes a collider
/// closes in on it geometrically; one that has not stopped after these many
/// steps stops where it is (still clear of the collider) and reports it.
pub const MAX_CAST_STEPS: u32 = 32;

/// The closest points of the segment `a→b` to `p`, and the distance.
fn point_segment<S: SimScalar>(p: Vec2<S>, a: Vec2<S>, b: Vec2<S>) -> (Vec2<S>, S) {
    let d = b - a;
    let len = d.length_wide();
    let q = if len == S::ZERO {
        a
    } else {
        let u = d.normalize_wide();
        a + u * (p - a).dot(u).clamp(S::ZERO, len)
    };
    (q, p.distance_wide(q))
}

/// A shape's core in the world: its vertices (1 for a circle, 2 for a
/// capsule, the polygon's) after `xf`.
fn core<S: SimScalar>(shape: &Shape<S>, xf: Transform<S>) -> ([Vec2<S>; 8], usize) {
    let n = shape.count as usize;
    let mut v = [Vec2::default(); 8];
    for (out, p) in v.iter_mut().zip(&shape.vertices[..n]) {
        *out = xf.apply(*p);
    }
    (v, n)
}

/// The edges of a core: a point's one degenerate edge, a segment's one,
/// a polygon's `n` (closed).
fn edge<S: SimScalar>(v: &[Vec2<S>], n: usize, i: usize) -> (Vec2<S>, Vec2<S>) {
    match n {
        1 => (v[0], v[0]),
        2 => (v[0], v[1]),
        _ => (v[i], v[(i + 1) % n]),
    }
}

fn edges(n: usize) -> usize {
    if n <= 2 { 1 } else { n }
}

/// The closest points of two separated cores (on A, on B) and their
/// distance: the closest pair of two disjoint convex sets always has a
/// vertex of one of them, so vertex against edge both ways is exact.
fn core_distance<S: SimScalar>(
    a: &[Vec2<S>],
    na: usize,
    b: &[Vec2<S>],
    nb: usize,
) -> (Vec2<S>, Vec2<S>, S) {
    let mut best = (a[0], b[0], a[0].distance_wide(b[0]));
    for p in &a[..na] {
        for i in 0..edges(nb) {
            let (s, e) = edge(b, nb, i);
            let (q, d) = point_segment(*p, s, e);
            if d.lt(best.2) {
                best = (*p, q, d);
            }
        }
    }
    for p in &b[..nb] {
        for i in 0..edges(na) {
            let (s, e) = edge(a, na, i);
            let (q, d) = point_segment(*p, s, e);
            if d.lt(best.2) {
                best = (q, *p, d);
            }
        }
    }
    best
}

/// The cast of `shape` from `xf` along the unit `u` for `len` metres
/// against `other` at `oxf`: the distance travelled, the hit point and
/// the other collider's surface normal there.
fn cast_one<S: SimScalar>(
    shape: &Shape<S>,
    xf: Transform<S>,
    u: Vec2<S>,
    len: S,
    other: &Shape<S>,
    oxf: Transform<S>,
) -> Option<(S, Vec2<S>, Vec2<S>)> {
    // Overlapping at the start: hit at 0, the narrowphase's normal.
    let m = collide(shape, xf, other, oxf);
    if let Some(p) = m.points[..m.count as usize]
        .iter()
        .find(|p| p.separation.lt(S::ZERO))
    {
        return Some((S::ZERO, xf.p + p.anchor_a, -m.normal));
    }
    let tolerance = S::from_ratio(CAST_TOLERANCE.0, CAST_TOLERANCE.1);
    let radii = shape.radius + other.radius;
    let (b, nb) = core(other, oxf);
    let mut travelled = S::ZERO;
    for _ in 0..MAX_CAST_STEPS {
        let at = Transform {
            p: xf.p + u * travelled,
            q: xf.q,
        };
        let (a, na) = core(shape, at);
        let (pa, pb, d) = core_distance(&a, na, &b, nb);
        let gap = d - radii;
        let normal = (pa - pb).normalize_wide();
        if gap.lt(tolerance) {
            let normal = if normal == Vec2::ZERO { -u } else { normal };
            return Some((travelled, pb + normal * other.radius, normal));
        }
        // The distance along the sweep is convex: once it stops falling
        // (moving away from the closest points, or along them) it never
        // falls again.
        if !u.dot(normal).lt(S::ZERO) {
            return None;
        }
        travelled += gap - tolerance / S::from_i32(2);
        if travelled.gt(len) {
            return None;
        }
    }
    let at = xf.p + u * travelled;
    let (a, na) = core(shape, Transform { p: at, q: xf.q });
    let (pa, pb, _) = core_distance(&a, na, &b, nb);
    let normal = (pa - pb).normalize_wide();
    Some((travelled, pb + normal * other.radius, normal))
}

/// Every collider whose category meets `mask` that `shape`, placed at
/// `xf` and moved by `translation` (without turning), touches, by
/// (fraction, entity bits, collider index); a collider it overlaps at the
/// start is hit at fraction 0. `point` is where the shape first touches
/// the collider, `normal` the collider's surface normal there (pointing
/// back at the cast shape).
///
/// ```
/// use laige_core::{Fpx16_16 as F, Vec2};
/// use laige_physics::{BodyDef, Collider, Rot, Shape, Transform, shape_cast_all, spawn_body};
/// use laige_sim::World;
///
/// let mut world = World::default();
/// let wall = Collider::new(Shape::rect(F::from_ratio(1, 2), F::from_i32(4))?);
/// spawn_body(&mut world, &BodyDef::fixed(Vec2::new(F::from_i32(10), F::ZERO)), &[wall])?;
/// let ball = Shape::circle(F::ONE)?;
/// let mut hits = Vec::new();
/// let from = Transform { p: Vec2::new(F::ZERO, F::ZERO), q: Rot::IDENTITY };
/// shape_cast_all(&world, &ball, from, Vec2::new(F::from_i32(20), F::ZERO), u32::MAX, &mut hits)?;
/// // The ball's edge meets the wall's face at x = 9.5: its centre moved 8.5 of 20 m.
/// assert!((hits[0].fraction.to_f32() - 8.5 / 20.0).abs() < 0.001);
/// assert_eq!(hits[0].normal, Vec2::new(-F::ONE, F::ZERO));
/// # Ok::<(), laige_core::Error>(())
/// ```
///
/// # Errors
/// `physics/shape_invalid` (OutOfRange) for a translation longer than
/// [`MAX_RAY_LENGTH`] or of zero length.
pub fn shape_cast_all<S: SimScalar>(
    entities: &Entities,
    shape: &Shape<S>,
    xf: Transform<S>,
    translation: Vec2<S>,
    mask: u32,
    out: &mut Vec<RayHit<S>>,
) -> Result<()> {
    out.clear();
    let len = translation.length_wide();
    if !(len.gt(S::ZERO) && len.le(S::from_i32(MAX_RAY_LENGTH))) {
        return Err(ray_error(len));
    }
    let u = translation.normalize_wide();
    let start = shape.aabb(xf);
    let end = shape.aabb(Transform {
        p: xf.p + translation,
        q: xf.q,
    });
    let bounds = Aabb {
        min: start.min.min(end.min),
        max: start.max.max(end.max),
    };
    each_collider::<S>(entities, mask, |target, other, oxf| {
        if !other.aabb(oxf).overlaps(&bounds) {
            return;
        }
        if let Some((t, point, normal)) = cast_one(shape, xf, u, len, other, oxf) {
            out.push(RayHit {
                target,
                fraction: (t / len).clamp(S::ZERO, S::ONE),
                point,
                normal,
            });
        }
    });
    out.sort_unstable_by(hit_order);
    Ok(())
}

/// The first collider [`shape_cast_all`] reports, if any.
///
/// # Errors
/// As [`shape_cast_all`].
pub fn shape_cast<S: SimScalar>(
    entities: &Entities,
    shape: &Shape<S>,
    xf: Transform<S>,
    translation: Vec2<S>,
    mask: u32,
    out: &mut Vec<RayHit<S>>,
) -> Result<Option<RayHit<S>>> {
    shape_cast_all(entities, shape, xf, translation, mask, out)?;
    Ok(out.first().copied())
}
