//! The narrowphase: contact manifolds between two shapes on two bodies,
//! after Box2D v3's routines (circle–circle, polygon–circle with rounded
//! polygons, polygon–polygon by separating axes and reference-face
//! clipping; a capsule is a rounded two-vertex polygon). Each point has a
//! feature id — the pair of vertex/edge indices that made it — stable from
//! step to step while the same features touch, which is what warm starting
//! matches on.
//!
//! Two boxes (the common case) take [`collide_boxes`]: the polygon
//! routine's manifold, bit for bit, with two vertex projections per axis
//! instead of four. On Q16.16 every transform and projection here is one
//! exact `i64` sum of raw products rounded once per component; binary32
//! keeps the operators' expressions.

use std::any::Any;

use laige_core::{Fpx16_16, SimScalar, Vec2};

use crate::rot::{Rot, Transform, left_perp};
use crate::row_math::settle;
use crate::shape::{Shape, ShapeKind};

/// A contact point as the narrowphase finds it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldPoint<S> {
    /// The point relative to body A's origin, world orientation.
    pub anchor_a: Vec2<S>,
    /// The point relative to body B's origin, world orientation.
    pub anchor_b: Vec2<S>,
    /// Negative when penetrating, metres.
    pub separation: S,
    /// The feature id: `(feature on A) << 8 | (feature on B)`.
    pub id: u16,
}

/// Up to two contact points with their normal (from A to B, world).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold<S> {
    /// Points from A towards B.
    pub normal: Vec2<S>,
    /// Points in use.
    pub count: u8,
    /// The points.
    pub points: [ManifoldPoint<S>; 2],
}

impl<S: SimScalar> Manifold<S> {
    /// Adds a point (its `anchor_b` made by [`finish`](Self::finish)),
    /// field by field in place: the manifold is built where it is returned,
    /// never assembled in scalar stores and then copied whole (a wide load
    /// of narrow stores just made stalls the store buffer).
    fn push(&mut self, anchor_a: Vec2<S>, separation: S, id: u16) {
        if (self.count as usize) < 2 {
            let p = &mut self.points[self.count as usize];
            p.anchor_a = anchor_a;
            p.separation = separation;
            p.id = id;
            self.count += 1;
        }
    }

    /// The manifold seen from B: normal negated, anchors and id halves
    /// swapped.
    fn flipped(mut self) -> Self {
        self.normal = -self.normal;
        for p in &mut self.points[..self.count as usize] {
            std::mem::swap(&mut p.anchor_a, &mut p.anchor_b);
            p.id = p.id.rotate_left(8);
        }
        self
    }

    /// Anchors from A-local to world orientation, relative to each origin.
    fn finish(&mut self, xfa: Transform<S>, xfb: Transform<S>, origin: Vec2<S>) {
        self.normal = rotate(xfa.q, self.normal);
        for p in &mut self.points[..self.count as usize] {
            p.anchor_a = rotate_sum(xfa.q, p.anchor_a, origin);
            p.anchor_b = p.anchor_a + (xfa.p - xfb.p);
        }
    }
}

/// The allowed penetration slop, metres (0.005).
pub(crate) fn linear_slop<S: SimScalar>() -> S {
    S::from_ratio(1, 200)
}

/// Contacts are made this far apart already (4 × slop): the solver then
/// lets the bodies close the gap but not pass it.
pub(crate) fn speculative_distance<S: SimScalar>() -> S {
    S::from_ratio(1, 50)
}

/// The narrowphase's constants, made once per step (each `from_ratio` is
/// an exact rational rounding: on binary32 tens of instructions).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NarrowConsts<S> {
    /// 1/2.
    half: S,
    /// A tenth of the linear slop: `slop × 1/10`.
    slop_tenth: S,
    /// 2⁻¹⁶: an incident edge shorter than this is not clipped.
    eps: S,
}

impl<S: SimScalar> NarrowConsts<S> {
    pub(crate) fn new() -> Self {
        Self {
            half: S::from_ratio(1, 2),
            slop_tenth: linear_slop::<S>() * S::from_ratio(1, 10),
            eps: S::from_ratio(1, 65536),
        }
    }
}

/// `x` as a `T` when its type is `T`: known at compile time, so each
/// backend's code below is only its own arm (as in [`max_separation`]).
#[inline(always)]
fn cast<A: Any, T: Any + Copy>(x: &A) -> Option<T> {
    (x as &dyn Any).downcast_ref::<T>().copied()
}

/// A Q16.16 value's raw integer, widened.
#[inline(always)]
fn raw(x: Fpx16_16) -> i64 {
    i64::from(x.to_raw())
}

// The narrowphase's transforms and projections. On Q16.16 each result
// component is one exact `i64` sum of raw products (a unit rotation's raw
// components are at most 2^16, coordinates below 2^31: every sum stays
// below 2^49), rounded once to nearest, ties to even, and saturated
// (`settle`), instead of a rounding per product and a saturation per sum:
// fewer instructions and closer to the exact value. On binary32 they are
// exactly `Rot`'s, `Transform`'s and `Vec2`'s operators.

/// `q·v`.
#[inline(always)]
fn rotate<S: SimScalar>(q: Rot<S>, v: Vec2<S>) -> Vec2<S> {
    if let (Some(q), Some(v)) = (cast::<_, Rot<Fpx16_16>>(&q), cast::<_, Vec2<Fpx16_16>>(&v)) {
        let ((c, s), (x, y)) = ((raw(q.c), raw(q.s)), (raw(v.x), raw(v.y)));
        if let Some(w) = cast(&Vec2::new(settle(c * x - s * y), settle(s * x + c * y))) {
            return w;
        }
    }
    q.rotate(v)
}

/// `q·v + p`.
#[inline(always)]
fn apply<S: SimScalar>(q: Rot<S>, v: Vec2<S>, p: Vec2<S>) -> Vec2<S> {
    if let (Some(q), Some(v), Some(p)) = (
        cast::<_, Rot<Fpx16_16>>(&q),
        cast::<_, Vec2<Fpx16_16>>(&v),
        cast::<_, Vec2<Fpx16_16>>(&p),
    ) {
        let ((c, s), (x, y)) = ((raw(q.c), raw(q.s)), (raw(v.x), raw(v.y)));
        let (px, py) = (raw(p.x) << 16, raw(p.y) << 16);
        if let Some(w) = cast(&Vec2::new(
            settle(c * x - s * y + px),
            settle(s * x + c * y + py),
        )) {
            return w;
        }
    }
    q.rotate(v) + p
}

/// `a⁻¹·b`: `b` in `a`'s frame.
#[inline(always)]
fn inv_mul<S: SimScalar>(a: Transform<S>, b: Transform<S>) -> Transform<S> {
    if let (Some(a), Some(b)) = (
        cast::<_, Transform<Fpx16_16>>(&a),
        cast::<_, Transform<Fpx16_16>>(&b),
    ) {
        let (c, s) = (raw(a.q.c), raw(a.q.s));
        let (bc, bs) = (raw(b.q.c), raw(b.q.s));
        let d = b.p - a.p;
        let (x, y) = (raw(d.x), raw(d.y));
        let xf = Transform {
            q: Rot {
                c: settle(c * bc + s * bs),
                s: settle(c * bs - s * bc),
            },
            p: Vec2::new(settle(c * x + s * y), settle(c * y - s * x)),
        };
        if let Some(xf) = cast(&xf) {
            return xf;
        }
    }
    a.inv_mul(b)
}

/// `a·b`.
#[inline(always)]
fn dot<S: SimScalar>(a: Vec2<S>, b: Vec2<S>) -> S {
    if let (Some(a), Some(b)) = (cast::<_, Vec2<Fpx16_16>>(&a), cast::<_, Vec2<Fpx16_16>>(&b))
        && let Some(d) = cast(&settle(raw(a.x) * raw(b.x) + raw(a.y) * raw(b.y)))
    {
        return d;
    }
    a.dot(b)
}

/// `(a − b)·n` for a unit `n` (Q16.16: the differences exact in `i64`,
/// below 2^32, so the sum stays below 2^49).
#[inline(always)]
fn dot_diff<S: SimScalar>(a: Vec2<S>, b: Vec2<S>, n: Vec2<S>) -> S {
    if let (Some(a), Some(b), Some(n)) = (
        cast::<_, Vec2<Fpx16_16>>(&a),
        cast::<_, Vec2<Fpx16_16>>(&b),
        cast::<_, Vec2<Fpx16_16>>(&n),
    ) && let Some(d) = cast(&settle(
        (raw(a.x) - raw(b.x)) * raw(n.x) + (raw(a.y) - raw(b.y)) * raw(n.y),
    )) {
        return d;
    }
    dot(a - b, n)
}

/// `q·(a + b)` for a unit rotation (Q16.16: the sum exact in `i64`).
#[inline(always)]
fn rotate_sum<S: SimScalar>(q: Rot<S>, a: Vec2<S>, b: Vec2<S>) -> Vec2<S> {
    if let (Some(q), Some(a), Some(b)) = (
        cast::<_, Rot<Fpx16_16>>(&q),
        cast::<_, Vec2<Fpx16_16>>(&a),
        cast::<_, Vec2<Fpx16_16>>(&b),
    ) {
        let (c, s) = (raw(q.c), raw(q.s));
        let (x, y) = (raw(a.x) + raw(b.x), raw(a.y) + raw(b.y));
        if let Some(w) = cast(&Vec2::new(settle(c * x - s * y), settle(s * x + c * y))) {
            return w;
        }
    }
    rotate(q, a + b)
}

/// `v + n·h` for a unit `n` (Q16.16: one rounding per component, the
/// product below 2^47).
#[inline(always)]
fn add_along<S: SimScalar>(v: Vec2<S>, n: Vec2<S>, h: S) -> Vec2<S> {
    if let (Some(v), Some(n), Some(h)) = (
        cast::<_, Vec2<Fpx16_16>>(&v),
        cast::<_, Vec2<Fpx16_16>>(&n),
        cast::<_, Fpx16_16>(&h),
    ) {
        let h = raw(h);
        if let Some(w) = cast(&Vec2::new(
            settle((raw(v.x) << 16) + raw(n.x) * h),
            settle((raw(v.y) << 16) + raw(n.y) * h),
        )) {
            return w;
        }
    }
    v + n * h
}

fn id(a: usize, b: usize) -> u16 {
    ((a as u16) << 8) | b as u16
}

/// The manifold between `a` on a body at `xfa` and `b` on a body at `xfb`:
/// points closer than the speculative distance (0.02 m).
#[must_use]
pub fn collide<S: SimScalar>(
    a: &Shape<S>,
    xfa: Transform<S>,
    b: &Shape<S>,
    xfb: Transform<S>,
) -> Manifold<S> {
    collide_within(a, xfa, b, xfb, speculative_distance(), &NarrowConsts::new())
}

/// As [`collide`], with points up to `spec` apart (the step widens it by
/// the pair's closing distance per step: speculative contacts, so a fast
/// body stops at a thin wall instead of passing it).
#[must_use]
pub(crate) fn collide_within<S: SimScalar>(
    a: &Shape<S>,
    xfa: Transform<S>,
    b: &Shape<S>,
    xfb: Transform<S>,
    spec: S,
    k: &NarrowConsts<S>,
) -> Manifold<S> {
    match (a.kind, b.kind) {
        (ShapeKind::Circle, ShapeKind::Circle) => collide_circles(a, xfa, b, xfb, spec, k),
        (_, ShapeKind::Circle) => collide_polygon_circle(a, xfa, b, xfb, spec, k),
        (ShapeKind::Circle, _) => collide_polygon_circle(b, xfb, a, xfa, spec, k).flipped(),
        _ if is_box(a) && is_box(b) => collide_boxes(a, xfa, b, xfb, spec, k),
        _ => collide_polygons(a, xfa, b, xfb, spec, k),
    }
}

fn collide_circles<S: SimScalar>(
    a: &Shape<S>,
    xfa: Transform<S>,
    b: &Shape<S>,
    xfb: Transform<S>,
    spec: S,
    k: &NarrowConsts<S>,
) -> Manifold<S> {
    let mut m = Manifold::default();
    let xf = inv_mul(xfa, xfb);
    let pa = a.vertices[0];
    let pb = apply(xf.q, b.vertices[0], xf.p);
    let d = pb - pa;
    let distance = d.length_wide();
    let separation = distance - a.radius - b.radius;
    if separation.gt(spec) {
        return m;
    }
    let mut normal = d.normalize_wide();
    if normal.x == S::ZERO && normal.y == S::ZERO {
        normal = Vec2::new(S::ZERO, S::ONE);
    }
    let ca = pa + normal * a.radius;
    let cb = pb - normal * b.radius;
    m.normal = normal;
    m.push(ca.lerp(cb, k.half), separation, 0);
    m.finish(xfa, xfb, Vec2::ZERO);
    m
}

/// A (rounded) polygon or capsule `a` against a circle `b`.
fn collide_polygon_circle<S: SimScalar>(
    a: &Shape<S>,
    xfa: Transform<S>,
    b: &Shape<S>,
    xfb: Transform<S>,
    spec: S,
    k: &NarrowConsts<S>,
) -> Manifold<S> {
    let mut m = Manifold::default();
    let xf = inv_mul(xfa, xfb);
    let c = apply(xf.q, b.vertices[0], xf.p);
    let (ra, rb) = (a.radius, b.radius);
    let radius = ra + rb;
    let n = a.count as usize;
    let mut index = 0;
    let mut separation = S::from_i32(-32767);
    for i in 0..n {
        let s = dot(a.normals[i], c - a.vertices[i]);
        if s.gt(separation) {
            separation = s;
            index = i;
        }
    }
    if (separation - radius).gt(spec) {
        return m;
    }
    let v1 = a.vertices[index];
    let v2 = a.vertices[if index + 1 < n { index + 1 } else { 0 }];
    let u1 = dot(c - v1, v2 - v1);
    let u2 = dot(c - v2, v1 - v2);
    let outside = separation.gt(S::ZERO);
    let vertex = if u1.lt(S::ZERO) && outside {
        Some(v1)
    } else if u2.lt(S::ZERO) && outside {
        Some(v2)
    } else {
        None
    };
    let half = k.half;
    let (anchor, sep) = match vertex {
        Some(v) => {
            let d = c - v;
            let normal = d.normalize_wide();
            let sep = d.length_wide();
            if (sep - radius).gt(spec) {
                return m;
            }
            let ca = v + normal * ra;
            let cb = c - normal * rb;
            m.normal = normal;
            (ca.lerp(cb, half), sep - radius)
        }
        None => {
            let normal = a.normals[index];
            let ca = c + normal * (ra - dot(c - v1, normal));
            let cb = c - normal * rb;
            m.normal = normal;
            (ca.lerp(cb, half), separation - radius)
        }
    };
    m.push(anchor, sep, 0);
    m.finish(xfa, xfb, Vec2::ZERO);
    m
}

/// The largest separation of `b`'s vertices along one of `a`'s normals,
/// and that normal's edge.
///
/// Q16.16 takes [`max_separation_q16`] (chosen by type, decided at
/// compile time); binary32 the scalar operators below.
fn max_separation<S: SimScalar>(a: &Shape<S>, b: &Shape<S>) -> (usize, S) {
    let (qa, qb): (&dyn Any, &dyn Any) = (a, b);
    if let (Some(qa), Some(qb)) = (
        qa.downcast_ref::<Shape<Fpx16_16>>(),
        qb.downcast_ref::<Shape<Fpx16_16>>(),
    ) {
        let (best, max) = max_separation_q16(qa, qb);
        let max: &dyn Any = &max;
        if let Some(&max) = max.downcast_ref::<S>() {
            return (best, max);
        }
    }
    max_separation_scalar(a, b)
}

/// [`max_separation`] on Q16.16: every `n·(v − v1)` exact in `i64`
/// (`n·v − n·v1` from the raw values, Q32.32: a unit normal's raw
/// components are at most 2¹⁶, so with any coordinates every sum stays
/// below 2⁵⁰), compared exactly,
/// and only the result rounded (to nearest, ties to even) and saturated:
/// rounding is monotonic, so the minimum and maximum commute with it.
fn max_separation_q16(a: &Shape<Fpx16_16>, b: &Shape<Fpx16_16>) -> (usize, Fpx16_16) {
    let w = |x: Fpx16_16| i64::from(x.to_raw());
    let verts = &b.vertices[..b.count as usize];
    let mut best = 0;
    let mut max = i64::MIN;
    for (i, (n, v1)) in a.normals[..a.count as usize]
        .iter()
        .zip(&a.vertices)
        .enumerate()
    {
        let (nx, ny) = (w(n.x), w(n.y));
        let base = nx * w(v1.x) + ny * w(v1.y);
        let mut si = i64::MAX;
        for v in verts {
            si = si.min(nx * w(v.x) + ny * w(v.y) - base);
        }
        if si > max {
            max = si;
            best = i;
        }
    }
    (best, settle(max))
}

fn max_separation_scalar<S: SimScalar>(a: &Shape<S>, b: &Shape<S>) -> (usize, S) {
    let mut best = 0;
    let mut max = S::from_i32(-32767);
    for i in 0..a.count as usize {
        let (n, v1) = (a.normals[i], a.vertices[i]);
        let mut si = S::from_i32(32767);
        for v in &b.vertices[..b.count as usize] {
            si = si.min(n.dot(*v - v1));
        }
        if si.gt(max) {
            max = si;
            best = i;
        }
    }
    (best, max)
}

/// Is `s` a box: four vertices whose edge normals turn by exact quarter
/// turns (a [`Shape::rect`], however placed on its body)? Such a
/// quadrilateral is a rectangle, to its vertices' rounding.
fn is_box<S: SimScalar>(s: &Shape<S>) -> bool {
    let n = &s.normals;
    s.kind == ShapeKind::Polygon
        && s.count == 4
        && n[1].equals(left_perp(n[0]))
        && n[2].equals(left_perp(n[1]))
        && n[3].equals(left_perp(n[2]))
}

/// Two boxes: [`collide_polygons`]' manifold, bit for bit, with half the
/// projections. Against a direction, a box's farthest vertex is an end of
/// its edge most against that direction (the other end is within rounding
/// of it only when the edge is square to the direction); the two other
/// vertices lie at least the shorter side × 1/√2 (≥ 1/45 m) farther,
/// far beyond any rounding. So each axis takes the smaller of two
/// projections, the same minimum as of all four; and one dot product
/// names every axis' edge: a quarter turn of A's normal turns the edge of
/// B most against it by one, and B's normal `k` meets A's edge `k − j`
/// when A's normal 0 meets B's edge `j`.
fn collide_boxes<S: SimScalar>(
    pa: &Shape<S>,
    xfa: Transform<S>,
    pb: &Shape<S>,
    xfb: Transform<S>,
    spec: S,
    k: &NarrowConsts<S>,
) -> Manifold<S> {
    let (origin, xf) = shifted_frame(pa, xfa, xfb);
    let na: [Vec2<S>; 4] = std::array::from_fn(|i| pa.normals[i]);
    let va: [Vec2<S>; 4] = std::array::from_fn(|i| pa.vertices[i] - origin);
    let vb: [Vec2<S>; 4] = std::array::from_fn(|i| apply(xf.q, pb.vertices[i], xf.p));
    let nb: [Vec2<S>; 4] = if cast::<_, Vec2<Fpx16_16>>(&origin).is_some() {
        // Q16.16's rotation rounds symmetrically in sign: B's normals 1..3
        // turned are exactly normal 0 turned, then turned by quarter turns.
        let n0 = rotate(xf.q, pb.normals[0]);
        let n1 = left_perp(n0);
        [n0, n1, -n0, -n1]
    } else {
        // Binary32 turns each (the same values, but a zero's sign may
        // differ).
        std::array::from_fn(|i| rotate(xf.q, pb.normals[i]))
    };
    let j = min_dot_edge(&nb, na[0], true);
    let sep_a = box_separation(&na, &va, &vb, j);
    let sep_b = box_separation(&nb, &vb, &va, (4 - j) & 3);
    let edges = Edges {
        va: &va,
        na: &na,
        ra: pa.radius,
        vb: &vb,
        nb: &nb,
        rb: pb.radius,
        q: xfa.q,
        origin,
        shift: xfa.p - xfb.p,
        boxes: true,
    };
    edges.manifold(sep_a, sep_b, spec, k)
}

/// [`max_separation`] of two boxes: along normal `n[i]` from `start[i]`,
/// the nearer of `w[e]` and `w[e + 1]`, `e = first + i` (mod 4).
fn box_separation<S: SimScalar>(
    n: &[Vec2<S>; 4],
    start: &[Vec2<S>; 4],
    w: &[Vec2<S>; 4],
    first: usize,
) -> (usize, S) {
    let (qn, qs, qw): (&dyn Any, &dyn Any, &dyn Any) = (n, start, w);
    if let (Some(n), Some(s), Some(w)) = (
        qn.downcast_ref::<[Vec2<Fpx16_16>; 4]>(),
        qs.downcast_ref::<[Vec2<Fpx16_16>; 4]>(),
        qw.downcast_ref::<[Vec2<Fpx16_16>; 4]>(),
    ) {
        let (best, max) = box_separation_q16(n, s, w, first);
        let max: &dyn Any = &max;
        if let Some(&max) = max.downcast_ref::<S>() {
            return (best, max);
        }
    }
    let mut best = 0;
    let mut max = S::from_i32(-32767);
    for i in 0..4 {
        let e = (first + i) & 3;
        let (n, v1) = (n[i], start[i]);
        // The smaller by a comparison, not the IEEE minimum: they differ
        // only in a zero's sign, and the separations are only compared.
        let (d1, d2) = (n.dot(w[e] - v1), n.dot(w[(e + 1) & 3] - v1));
        let si = if d2.lt(d1) { d2 } else { d1 };
        if si.gt(max) {
            max = si;
            best = i;
        }
    }
    (best, max)
}

/// [`box_separation`] on Q16.16: exact `i64` projections, rounded once,
/// as [`max_separation_q16`].
fn box_separation_q16(
    n: &[Vec2<Fpx16_16>; 4],
    start: &[Vec2<Fpx16_16>; 4],
    w: &[Vec2<Fpx16_16>; 4],
    first: usize,
) -> (usize, Fpx16_16) {
    let r = |x: Fpx16_16| i64::from(x.to_raw());
    let mut best = 0;
    let mut max = i64::MIN;
    for i in 0..4 {
        let (nx, ny) = (r(n[i].x), r(n[i].y));
        let base = nx * r(start[i].x) + ny * r(start[i].y);
        let proj = |v: Vec2<Fpx16_16>| nx * r(v.x) + ny * r(v.y) - base;
        let e = (first + i) & 3;
        let si = proj(w[e]).min(proj(w[(e + 1) & 3]));
        if si > max {
            max = si;
            best = i;
        }
    }
    (best, settle(max))
}

/// Where the closest points of segments `p1→q1` and `p2→q2` lie: whether
/// each is at the segment's start or end (`None` for inside), and their
/// distance. Unit directions keep every product within the shapes' size.
fn segment_ends<S: SimScalar>(
    p1: Vec2<S>,
    q1: Vec2<S>,
    p2: Vec2<S>,
    q2: Vec2<S>,
) -> (Option<bool>, Option<bool>, S) {
    let (d1, d2) = (q1 - p1, q2 - p2);
    let (l1, l2) = (d1.length_wide(), d2.length_wide());
    let (u1, u2) = (d1.normalize_wide(), d2.normalize_wide());
    let r = p1 - p2;
    let b = u1.dot(u2);
    let c = u1.dot(r);
    let f = u2.dot(r);
    let denom = S::ONE - b * b;
    let mut t1 = if denom.gt(S::ZERO) {
        ((b * f - c) / denom).clamp(S::ZERO, l1)
    } else {
        S::ZERO
    };
    let mut t2 = b * t1 + f;
    if t2.lt(S::ZERO) {
        t2 = S::ZERO;
        t1 = (-c).clamp(S::ZERO, l1);
    } else if t2.gt(l2) {
        t2 = l2;
        t1 = (b * l2 - c).clamp(S::ZERO, l1);
    }
    let end = |t: S, l: S| {
        if t == S::ZERO {
            Some(false)
        } else if t == l {
            Some(true)
        } else {
            None
        }
    };
    let c1 = p1 + u1 * t1;
    let c2 = p2 + u2 * t2;
    (end(t1, l1), end(t2, l2), c1.distance_wide(c2))
}

/// The frame two polygons are collided in: A shifted so its vertex 0 is
/// the origin (small numbers, less round-off). Returns that vertex and
/// B's transform into the frame.
fn shifted_frame<S: SimScalar>(
    pa: &Shape<S>,
    xfa: Transform<S>,
    xfb: Transform<S>,
) -> (Vec2<S>, Transform<S>) {
    let origin = pa.vertices[0];
    let sfa = Transform {
        p: apply(xfa.q, origin, xfa.p),
        q: xfa.q,
    };
    (origin, inv_mul(sfa, xfb))
}

fn collide_polygons<S: SimScalar>(
    pa: &Shape<S>,
    xfa: Transform<S>,
    pb: &Shape<S>,
    xfb: Transform<S>,
    spec: S,
    k: &NarrowConsts<S>,
) -> Manifold<S> {
    let (origin, xf) = shifted_frame(pa, xfa, xfb);
    let mut a = *pa;
    for v in &mut a.vertices[..a.count as usize] {
        *v -= origin;
    }
    let mut b = *pb;
    for i in 0..b.count as usize {
        b.vertices[i] = apply(xf.q, pb.vertices[i], xf.p);
        b.normals[i] = rotate(xf.q, pb.normals[i]);
    }
    let sep_a = max_separation(&a, &b);
    let sep_b = max_separation(&b, &a);
    let edges = Edges {
        va: &a.vertices[..a.count as usize],
        na: &a.normals[..a.count as usize],
        ra: a.radius,
        vb: &b.vertices[..b.count as usize],
        nb: &b.normals[..b.count as usize],
        rb: b.radius,
        q: xfa.q,
        origin,
        shift: xfa.p - xfb.p,
        boxes: false,
    };
    edges.manifold(sep_a, sep_b, spec, k)
}

/// Two polygons in one frame (A's, shifted to its vertex 0), with their
/// radii and the way back to world orientation: what remains of the
/// polygon–polygon routine once the separating axes are known.
///
/// The manifold is returned as one value made at the end, its points
/// already turned to world ([`Manifold::finish`]'s arithmetic): built in
/// the caller's return slot, never assembled field by field in a local
/// and then copied out whole (a wide load of narrow stores just made
/// stalls the store buffer: measured, a few percent of the step).
struct Edges<'a, S> {
    va: &'a [Vec2<S>],
    na: &'a [Vec2<S>],
    ra: S,
    vb: &'a [Vec2<S>],
    nb: &'a [Vec2<S>],
    rb: S,
    /// A's rotation.
    q: Rot<S>,
    /// A's vertex 0 (the frame's origin) in A's frame.
    origin: Vec2<S>,
    /// `xfa.p − xfb.p`: from an anchor on A to the same point on B.
    shift: Vec2<S>,
    /// Both polygons are boxes ([`is_box`]).
    boxes: bool,
}

/// The edge of the polygon with `normals` most against `dir` (the first
/// on a tie): the incident edge. A box's normals 2 and 3 are exactly 0
/// and 1 negated, and so are their dot products with `dir` (each backend
/// rounds to nearest, ties to even, symmetric in sign), so a box takes two
/// dot products.
fn min_dot_edge<S: SimScalar>(normals: &[Vec2<S>], dir: Vec2<S>, boxed: bool) -> usize {
    let mut best = 0;
    if boxed {
        let (p, q) = (dot(dir, normals[0]), dot(dir, normals[1]));
        let mut min = p;
        for (i, d) in [q, -p, -q].into_iter().enumerate() {
            if d.lt(min) {
                min = d;
                best = i + 1;
            }
        }
        return best;
    }
    let mut min = S::from_i32(32767);
    for (i, n) in normals.iter().enumerate() {
        let d = dot(dir, *n);
        if d.lt(min) {
            min = d;
            best = i;
        }
    }
    best
}

impl<S: SimScalar> Edges<'_, S> {
    /// The manifold from A's best axis `(edge_a, sep_a)` and B's: empty
    /// when either separates the polygons by more than `spec`; else the
    /// closest features (two edges clipped, or two vertices), in world
    /// orientation.
    fn manifold(
        &self,
        (edge_a, sep_a): (usize, S),
        (edge_b, sep_b): (usize, S),
        spec: S,
        k: &NarrowConsts<S>,
    ) -> Manifold<S> {
        let (va, vb) = (self.va, self.vb);
        let radius = self.ra + self.rb;
        if (sep_a - radius).gt(spec) || (sep_b - radius).gt(spec) {
            return Manifold::default();
        }
        let flip = sep_b.gt(sep_a + k.slop_tenth);
        let (edge_a, edge_b) = if flip {
            (min_dot_edge(self.na, self.nb[edge_b], self.boxes), edge_b)
        } else {
            (edge_a, min_dot_edge(self.nb, self.na[edge_a], self.boxes))
        };
        let next = |i: usize, n: usize| if i + 1 < n { i + 1 } else { 0 };
        let separation = sep_a.max(sep_b);
        if separation.gt(k.slop_tenth) {
            let (i11, i12) = (edge_a, next(edge_a, va.len()));
            let (i21, i22) = (edge_b, next(edge_b, vb.len()));
            let (v11, v12) = (va[i11], va[i12]);
            let (v21, v22) = (vb[i21], vb[i22]);
            if let (Some(e1), Some(e2), distance) = segment_ends(v11, v12, v21, v22) {
                // Vertex against vertex: the normal joins them.
                if (distance - radius).gt(spec) {
                    return Manifold::default();
                }
                let (ia, va) = if e1 { (i12, v12) } else { (i11, v11) };
                let (ib, vb) = if e2 { (i22, v22) } else { (i21, v21) };
                let normal = (vb - va).normalize_wide();
                let c1 = va + normal * self.ra;
                let c2 = vb - normal * self.rb;
                let point = self.point(c1.lerp(c2, k.half), distance - radius, id(ia, ib));
                return Manifold {
                    normal: rotate(self.q, normal),
                    count: 1,
                    points: [point, ManifoldPoint::default()],
                };
            }
        }
        self.clip(edge_a, edge_b, flip, spec, k)
    }

    /// A point from its anchor in this frame: [`Manifold::finish`] for one.
    #[inline(always)]
    fn point(&self, anchor: Vec2<S>, separation: S, id: u16) -> ManifoldPoint<S> {
        let anchor_a = rotate_sum(self.q, anchor, self.origin);
        ManifoldPoint {
            anchor_a,
            anchor_b: anchor_a + self.shift,
            separation,
            id,
        }
    }

    /// Clips the incident edge against the reference edge's side planes
    /// (Box2D's `b2ClipPolygons`): up to two points, at the midpoint
    /// between the surfaces.
    fn clip(
        &self,
        edge_a: usize,
        edge_b: usize,
        flip: bool,
        spec: S,
        k: &NarrowConsts<S>,
    ) -> Manifold<S> {
        let (a, b) = ((self.va, self.na, self.ra), (self.vb, self.nb, self.rb));
        let ((v1, n1, r1), (v2, _, r2), i11, i21) = if flip {
            (b, a, edge_b, edge_a)
        } else {
            (a, b, edge_a, edge_b)
        };
        let i12 = if i11 + 1 < v1.len() { i11 + 1 } else { 0 };
        let i22 = if i21 + 1 < v2.len() { i21 + 1 } else { 0 };
        let normal = n1[i11];
        let (v11, v12) = (v1[i11], v1[i12]);
        let (v21, v22) = (v2[i21], v2[i22]);
        let tangent = left_perp(normal);
        let lower1 = S::ZERO;
        let upper1 = dot_diff(v12, v11, tangent);
        // The incident edge runs against the tangent (both counter-clockwise).
        let upper2 = dot_diff(v21, v11, tangent);
        let lower2 = dot_diff(v22, v11, tangent);
        let eps = k.eps;
        let span = upper2 - lower2;
        let v_lower = if lower2.lt(lower1) && span.gt(eps) {
            v22.lerp(v21, (lower1 - lower2) / span)
        } else {
            v22
        };
        let v_upper = if upper2.gt(upper1) && span.gt(eps) {
            v22.lerp(v21, (upper1 - lower2) / span)
        } else {
            v21
        };
        let sep_lower = dot_diff(v_lower, v11, normal);
        let sep_upper = dot_diff(v_upper, v11, normal);
        let half = k.half;
        let v_lower = add_along(v_lower, normal, half * (r1 - r2 - sep_lower));
        let v_upper = add_along(v_upper, normal, half * (r1 - r2 - sep_upper));
        let radius = r1 + r2;
        // In order: the points as Box2D adds them, each kept when within
        // `spec`.
        let (first, second, normal) = if flip {
            // Anchors are in A's frame (`a` is the incident polygon here), the
            // points lie midway, so they serve as A's anchors unchanged.
            (
                (v_upper, sep_upper, id(i21, i12)),
                (v_lower, sep_lower, id(i22, i11)),
                -normal,
            )
        } else {
            (
                (v_lower, sep_lower, id(i11, i22)),
                (v_upper, sep_upper, id(i12, i21)),
                normal,
            )
        };
        let keep = |(_, sep, _): (Vec2<S>, S, u16)| !(sep - radius).gt(spec);
        let point = |(anchor, sep, id): (Vec2<S>, S, u16)| self.point(anchor, sep - radius, id);
        let none = ManifoldPoint::default();
        let (count, points) = match (keep(first), keep(second)) {
            (true, true) => (2, [point(first), point(second)]),
            (true, false) => (1, [point(first), none]),
            (false, true) => (1, [point(second), none]),
            (false, false) => (0, [none, none]),
        };
        Manifold {
            normal: rotate(self.q, normal),
            count,
            points,
        }
    }
}

/// Is `p` (world) inside `shape` on a body at `xf`?
#[must_use]
pub fn contains_point<S: SimScalar>(shape: &Shape<S>, xf: Transform<S>, p: Vec2<S>) -> bool {
    let local = xf.apply_inv(p);
    match shape.kind {
        ShapeKind::Circle => local.distance_wide(shape.vertices[0]).le(shape.radius),
        ShapeKind::Capsule => {
            let (a, b) = (shape.vertices[0], shape.vertices[1]);
            let d = b - a;
            let len = d.length_wide();
            let u = d.normalize_wide();
            let t = (local - a).dot(u).clamp(S::ZERO, len);
            (a + u * t).distance_wide(local).le(shape.radius)
        }
        ShapeKind::Polygon => (0..shape.count as usize)
            .all(|i| !shape.normals[i].dot(local - shape.vertices[i]).gt(S::ZERO)),
    }
}

#[cfg(test)]
mod tests {
    use laige_core::{BinaryAngle, Fp32Pinned};

    use super::*;
    use crate::rot::Rot;

    /// Every bit of a manifold (signed zeros included).
    fn bits<S: SimScalar>(m: &Manifold<S>) -> Vec<u32> {
        let mut out = vec![m.normal.x.to_hash_bits(), m.normal.y.to_hash_bits()];
        out.push(u32::from(m.count));
        for p in &m.points {
            for v in [p.anchor_a, p.anchor_b] {
                out.extend([v.x.to_hash_bits(), v.y.to_hash_bits()]);
            }
            out.extend([p.separation.to_hash_bits(), u32::from(p.id)]);
        }
        out
    }

    /// A deterministic stream of numbers (xorshift64).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 32) as u32
        }

        /// `lo..=hi` in 1/256 m.
        fn len<S: SimScalar>(&mut self, lo: i32, hi: i32) -> S {
            S::from_ratio(lo + (self.next() % (hi - lo + 1) as u32) as i32, 256)
        }

        /// No turn, a quarter turn, 45°, a tiny tilt or any angle.
        fn angle(&mut self) -> BinaryAngle {
            let bits = match self.next() % 6 {
                0 => 0,
                1 => 1 << 30,
                2 => 1 << 29,
                3 => self.next() % 64,
                4 => 0u32.wrapping_sub(self.next() % 64),
                _ => self.next(),
            };
            BinaryAngle::from_bits(bits)
        }
    }

    /// The box routine agrees with the polygon routine bit for bit on
    /// boxes of every size, placement and turn (tiny tilts and 45°, where
    /// projections tie, included); the cases cover edge and corner
    /// contacts.
    fn boxes_match_polygons<S: SimScalar>() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let k = NarrowConsts::<S>::new();
        let (mut touching, mut corners) = (0, 0);
        for _ in 0..20_000 {
            let shape = |rng: &mut Rng| {
                let s = Shape::rect(rng.len(4, 512), rng.len(4, 512)).unwrap();
                if rng.next().is_multiple_of(2) {
                    s
                } else {
                    let at = Vec2::new(rng.len(-256, 256), rng.len(-256, 256));
                    s.transformed(at, rng.angle()).unwrap()
                }
            };
            let (a, b) = (shape(&mut rng), shape(&mut rng));
            assert!(is_box(&a) && is_box(&b));
            let xfa = Transform {
                p: Vec2::new(rng.len(-2560, 2560), rng.len(-2560, 2560)),
                q: Rot::from_angle(rng.angle()),
            };
            let xfb = Transform {
                p: xfa.p + Vec2::new(rng.len(-768, 768), rng.len(-768, 768)),
                q: Rot::from_angle(rng.angle()),
            };
            let spec = speculative_distance::<S>();
            let fast = collide_boxes(&a, xfa, &b, xfb, spec, &k);
            let slow = collide_polygons(&a, xfa, &b, xfb, spec, &k);
            assert_eq!(
                bits(&fast),
                bits(&slow),
                "{a:?} at {xfa:?}, {b:?} at {xfb:?}"
            );
            touching += usize::from(fast.count > 0);
            corners += usize::from(fast.count == 1);
        }
        assert!(
            touching > 4000 && corners > 100,
            "{touching} touching, {corners} corners"
        );
    }

    #[test]
    fn boxes_match_polygons_on_q16() {
        boxes_match_polygons::<Fpx16_16>();
    }

    #[test]
    fn boxes_match_polygons_on_binary32() {
        boxes_match_polygons::<Fp32Pinned>();
    }

    #[test]
    fn only_rectangles_are_boxes() {
        let h = Fpx16_16::from_ratio(1, 2);
        assert!(is_box(&Shape::rect(h, Fpx16_16::ONE).unwrap()));
        let kite = [(0, -2), (1, 0), (0, 1), (-1, 0)]
            .map(|(x, y)| Vec2::new(Fpx16_16::from_i32(x), Fpx16_16::from_i32(y)));
        assert!(!is_box(&Shape::polygon(&kite).unwrap()));
        assert!(!is_box(&Shape::circle(h).unwrap()));
    }
}
