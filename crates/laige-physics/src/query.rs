//! World queries: point, AABB, shape overlap and ray cast (shape casts:
//! `cast.rs`). Each reads the
//! bodies as they stand (after the last step), tests every collider whose
//! category meets `mask`, and reports in a documented order that depends
//! only on the world: by (entity bits, collider index), the ray's hits by
//! (fraction, entity bits, collider index). Results go into a caller's
//! vector (cleared first), so a warm query allocates nothing.

use hecs::Entity;
use laige_core::{Error, Result, SimScalar, Vec2};
use laige_sim::Entities;

use crate::body::{Colliders, RigidBody};
use crate::error::out_of_range;
use crate::events::SHAPE_INVALID;
use crate::manifold::{collide, contains_point};
use crate::rot::{Transform, right_perp};
use crate::shape::{Aabb, Shape, ShapeKind};

/// A collider a query found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColliderRef {
    /// The body's entity.
    pub body: Entity,
    /// The collider's index on it.
    pub collider: u8,
}

/// A ray's hit, or a shape cast's ([`shape_cast_all`](crate::shape_cast_all)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit<S> {
    /// What it hit.
    pub target: ColliderRef,
    /// Where along the ray, `0..=1` of its translation.
    pub fraction: S,
    /// The hit point in the world.
    pub point: Vec2<S>,
    /// The surface normal there (unit, world).
    pub normal: Vec2<S>,
}

/// The longest ray translation, metres: its products stay in range.
pub const MAX_RAY_LENGTH: i32 = 128;

fn key(r: &ColliderRef) -> (u64, u8) {
    (r.body.to_bits().get(), r.collider)
}

/// Calls `f` on every collider whose category meets `mask`, with its
/// body's transform.
pub(crate) fn each_collider<S: SimScalar>(
    entities: &Entities,
    mask: u32,
    mut f: impl FnMut(ColliderRef, &Shape<S>, Transform<S>),
) {
    let mut query = entities.query::<(Entity, &RigidBody<S>, &Colliders<S>)>();
    for (entity, body, colliders) in query.iter() {
        let xf = body.transform();
        for (i, c) in colliders.as_slice().iter().enumerate() {
            if c.filter.category & mask != 0 {
                let target = ColliderRef {
                    body: entity,
                    collider: i as u8,
                };
                f(target, &c.shape, xf);
            }
        }
    }
}

/// Every collider that contains the world point `p`, by (entity bits,
/// collider index).
pub fn query_point<S: SimScalar>(
    entities: &Entities,
    p: Vec2<S>,
    mask: u32,
    out: &mut Vec<ColliderRef>,
) {
    out.clear();
    each_collider::<S>(entities, mask, |target, shape, xf| {
        if shape.aabb(xf).contains(p) && contains_point(shape, xf, p) {
            out.push(target);
        }
    });
    out.sort_unstable_by_key(key);
}

/// Every collider whose box overlaps `aabb`, by (entity bits, collider
/// index).
pub fn query_aabb<S: SimScalar>(
    entities: &Entities,
    aabb: Aabb<S>,
    mask: u32,
    out: &mut Vec<ColliderRef>,
) {
    out.clear();
    each_collider::<S>(entities, mask, |target, shape, xf| {
        if shape.aabb(xf).overlaps(&aabb) {
            out.push(target);
        }
    });
    out.sort_unstable_by_key(key);
}

/// Every collider that overlaps `shape` placed at `xf` (penetration, not
/// just the speculative margin), by (entity bits, collider index).
pub fn query_overlap<S: SimScalar>(
    entities: &Entities,
    shape: &Shape<S>,
    xf: Transform<S>,
    mask: u32,
    out: &mut Vec<ColliderRef>,
) {
    out.clear();
    let bounds = shape.aabb(xf);
    each_collider::<S>(entities, mask, |target, other, oxf| {
        if !other.aabb(oxf).overlaps(&bounds) {
            return;
        }
        let m = collide(shape, xf, other, oxf);
        if m.points[..m.count as usize]
            .iter()
            .any(|p| p.separation.lt(S::ZERO))
        {
            out.push(target);
        }
    });
    out.sort_unstable_by_key(key);
}

/// The ray `origin → origin + translation` against a circle (local).
fn ray_circle<S: SimScalar>(
    p: Vec2<S>,
    u: Vec2<S>,
    len: S,
    c: Vec2<S>,
    r: S,
) -> Option<(S, Vec2<S>)> {
    let s = p - c;
    let b = s.dot(u);
    let off = (s - u * b).length_wide();
    if off.gt(r) {
        return None;
    }
    let half = (r * r - off * off).max(S::ZERO).sqrt();
    let t = -b - half;
    if t.lt(S::ZERO) || t.gt(len) {
        return None;
    }
    let hit = p + u * t;
    Some((t, (hit - c).normalize_wide()))
}

/// The ray against a convex polygon (local): the entering edge.
fn ray_polygon<S: SimScalar>(
    p: Vec2<S>,
    u: Vec2<S>,
    len: S,
    shape: &Shape<S>,
) -> Option<(S, Vec2<S>)> {
    let (mut lower, mut upper) = (S::ZERO, len);
    let mut index = None;
    for i in 0..shape.count as usize {
        let n = shape.normals[i];
        let numerator = n.dot(shape.vertices[i] - p);
        let denominator = n.dot(u);
        if denominator == S::ZERO {
            if numerator.lt(S::ZERO) {
                return None;
            }
        } else if denominator.lt(S::ZERO) && numerator.lt(lower * denominator) {
            lower = numerator / denominator;
            index = Some(i);
        } else if denominator.gt(S::ZERO) && numerator.lt(upper * denominator) {
            upper = numerator / denominator;
        }
        if upper.lt(lower) {
            return None;
        }
    }
    index.map(|i| (lower, shape.normals[i]))
}

fn ray_shape<S: SimScalar>(
    shape: &Shape<S>,
    xf: Transform<S>,
    origin: Vec2<S>,
    u: Vec2<S>,
    len: S,
) -> Option<(S, Vec2<S>)> {
    let p = xf.apply_inv(origin);
    let lu = xf.q.inv_rotate(u);
    let hit = match shape.kind {
        ShapeKind::Circle => ray_circle(p, lu, len, shape.vertices[0], shape.radius),
        ShapeKind::Polygon => ray_polygon(p, lu, len, shape),
        ShapeKind::Capsule => {
            let (a, b, r) = (shape.vertices[0], shape.vertices[1], shape.radius);
            let n = right_perp((b - a).normalize_wide()) * r;
            let mut rect = *shape;
            rect.kind = ShapeKind::Polygon;
            rect.count = 4;
            rect.radius = S::ZERO;
            rect.vertices[..4].copy_from_slice(&[a + n, b + n, b - n, a - n]);
            let d = (b - a).normalize_wide();
            rect.normals[..4].copy_from_slice(&[n.normalize_wide(), d, -n.normalize_wide(), -d]);
            [
                ray_polygon(p, lu, len, &rect),
                ray_circle(p, lu, len, a, r),
                ray_circle(p, lu, len, b, r),
            ]
            .into_iter()
            .flatten()
            .fold(None, |best: Option<(S, Vec2<S>)>, h| match best {
                Some(bh) if !h.0.lt(bh.0) => Some(bh),
                _ => Some(h),
            })
        }
    };
    hit.map(|(t, n)| (t, xf.q.rotate(n)))
}

/// Every collider the ray `origin → origin + translation` enters, by
/// (fraction, entity bits, collider index); a ray starting inside a
/// collider does not hit it.
///
/// # Errors
/// `physics/shape_invalid` (OutOfRange) for a translation longer than
/// [`MAX_RAY_LENGTH`] or of zero length.
pub fn ray_cast_all<S: SimScalar>(
    entities: &Entities,
    origin: Vec2<S>,
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
    let mut bounds = Aabb {
        min: origin.min(origin + translation),
        max: origin.max(origin + translation),
    };
    bounds.min -= Vec2::splat(S::ONE / S::from_i32(64));
    bounds.max += Vec2::splat(S::ONE / S::from_i32(64));
    each_collider::<S>(entities, mask, |target, shape, xf| {
        if !shape.aabb(xf).overlaps(&bounds) {
            return;
        }
        if let Some((t, normal)) = ray_shape(shape, xf, origin, u, len) {
            out.push(RayHit {
                target,
                fraction: t / len,
                point: origin + u * t,
                normal,
            });
        }
    });
    out.sort_unstable_by(hit_order);
    Ok(())
}

/// The order of ray and shape-cast hits: by fraction, then entity bits,
/// then collider index.
pub(crate) fn hit_order<S: SimScalar>(a: &RayHit<S>, b: &RayHit<S>) -> std::cmp::Ordering {
    a.fraction
        .partial_cmp(&b.fraction)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(key(&a.target).cmp(&key(&b.target)))
}

/// The first collider the ray enters (ties broken by entity bits, then
/// collider index), if any.
///
/// # Errors
/// As [`ray_cast_all`].
pub fn ray_cast<S: SimScalar>(
    entities: &Entities,
    origin: Vec2<S>,
    translation: Vec2<S>,
    mask: u32,
) -> Result<Option<RayHit<S>>> {
    let len = translation.length_wide();
    if !(len.gt(S::ZERO) && len.le(S::from_i32(MAX_RAY_LENGTH))) {
        return Err(ray_error(len));
    }
    let u = translation.normalize_wide();
    let mut best: Option<RayHit<S>> = None;
    each_collider::<S>(entities, mask, |target, shape, xf| {
        if let Some((t, normal)) = ray_shape(shape, xf, origin, u, len) {
            let hit = RayHit {
                target,
                fraction: t / len,
                point: origin + u * t,
                normal,
            };
            let better = match &best {
                None => true,
                Some(b) => {
                    hit.fraction.lt(b.fraction)
                        || (hit.fraction == b.fraction && key(&hit.target) < key(&b.target))
                }
            };
            if better {
                best = Some(hit);
            }
        }
    });
    Ok(best)
}

#[cold]
pub(crate) fn ray_error<S: SimScalar>(len: S) -> Error {
    out_of_range(SHAPE_INVALID, "translation", len, "0 < length <= 128 m")
}
