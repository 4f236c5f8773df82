//! Shapes in a body's frame: circles, capsules (rounded segments) and
//! convex polygons (boxes among them), all one representation — up to 8
//! vertices with outward edge normals, and a rounding radius — so that the
//! narrowphase has one polygon path (as Box2D's).

use laige_core::{BinaryAngle, Result, SimScalar, Vec2};
use laige_sim::StateHash;

use crate::error::{invalid, out_of_range};
use crate::events::SHAPE_INVALID;
use crate::limits::{MAX_POLYGON_VERTICES, MAX_SHAPE_EXTENT, MIN_SIZE_DENOM};
use crate::rot::{Rot, Transform, cross, right_perp};

/// Which shape a [`Shape`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
pub enum ShapeKind {
    /// One vertex (the centre) and a radius.
    #[default]
    Circle,
    /// Two vertices (the segment) and a radius.
    Capsule,
    /// 3 to 8 vertices, counter-clockwise and convex, radius zero.
    Polygon,
}

/// A shape in its body's frame (offset and rotation already applied).
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Shape<S> {
    /// The kind (decides the collision routine).
    pub kind: ShapeKind,
    /// Vertices in use: 1 (circle), 2 (capsule) or 3..=8.
    pub count: u8,
    /// The rounding radius (circle and capsule).
    pub radius: S,
    /// The vertices, counter-clockwise; the first `count` are used.
    pub vertices: [Vec2<S>; MAX_POLYGON_VERTICES],
    /// The outward unit normal of the edge from vertex `i` to `i + 1`.
    pub normals: [Vec2<S>; MAX_POLYGON_VERTICES],
    /// The centroid.
    pub centroid: Vec2<S>,
}

/// Mass properties of one shape: mass, centroid, inertia about the centroid.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MassData<S> {
    /// kg.
    pub mass: S,
    /// The centre of mass in the body's frame.
    pub center: Vec2<S>,
    /// The rotational inertia about `center`, kg·m².
    pub inertia: S,
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Aabb<S> {
    /// The lower corner.
    pub min: Vec2<S>,
    /// The upper corner.
    pub max: Vec2<S>,
}

impl<S: SimScalar> Aabb<S> {
    /// Do the boxes overlap (touching counts)?
    #[inline]
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
    }

    /// Does the box contain `p` (boundary included)?
    #[inline]
    #[must_use]
    pub fn contains(&self, p: Vec2<S>) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }
}

fn min_size<S: SimScalar>() -> S {
    S::from_ratio(1, MIN_SIZE_DENOM)
}

fn check_size<S: SimScalar>(field: &'static str, v: S) -> Result<()> {
    if !(v.ge(min_size()) && v.le(S::from_i32(MAX_SHAPE_EXTENT))) {
        return Err(out_of_range(
            SHAPE_INVALID,
            field,
            v,
            "1/64 ..= 32 m (laige_physics::limits)",
        ));
    }
    Ok(())
}

impl<S: SimScalar> Shape<S> {
    /// A circle of `radius` centred on the body's origin.
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// use laige_physics::Shape;
    ///
    /// let ball = Shape::circle(Fpx16_16::from_ratio(1, 2))?;
    /// assert_eq!(ball.count, 1);
    /// assert!(Shape::circle(Fpx16_16::from_i32(100)).is_err());
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// `physics/shape_invalid` (OutOfRange) for a radius outside
    /// `1/64 ..= 32` m.
    pub fn circle(radius: S) -> Result<Self> {
        check_size("radius", radius)?;
        let mut s = Self {
            kind: ShapeKind::Circle,
            count: 1,
            radius,
            ..Self::default()
        };
        s.vertices[0] = Vec2::ZERO;
        Ok(s)
    }

    /// A box of half-extents `half_width × half_height` centred on the
    /// origin, axis-aligned (rotate it with [`transformed`](Self::transformed)).
    ///
    /// # Errors
    /// `physics/shape_invalid` (OutOfRange) for a half-extent outside
    /// `1/64 ..= 32` m.
    pub fn rect(half_width: S, half_height: S) -> Result<Self> {
        check_size("half_width", half_width)?;
        check_size("half_height", half_height)?;
        let (w, h) = (half_width, half_height);
        Self::polygon(&[
            Vec2::new(-w, -h),
            Vec2::new(w, -h),
            Vec2::new(w, h),
            Vec2::new(-w, h),
        ])
    }

    /// A capsule: the segment `p1 → p2` rounded by `radius`.
    ///
    /// # Errors
    /// `physics/shape_invalid` (OutOfRange) for a radius or a length
    /// outside `1/64 ..= 32` m.
    pub fn capsule(p1: Vec2<S>, p2: Vec2<S>, radius: S) -> Result<Self> {
        check_size("radius", radius)?;
        let d = p2 - p1;
        if !d.length_wide().ge(min_size()) {
            return Err(out_of_range(
                SHAPE_INVALID,
                "length",
                d.length_wide(),
                "at least 1/64 m",
            ));
        }
        let n = right_perp(d.normalize_wide());
        let mut s = Self {
            kind: ShapeKind::Capsule,
            count: 2,
            radius,
            centroid: p1.lerp(p2, S::from_ratio(1, 2)),
            ..Self::default()
        };
        s.vertices[0] = p1;
        s.vertices[1] = p2;
        s.normals[0] = n;
        s.normals[1] = -n;
        s.check_extent()?;
        Ok(s)
    }

    /// A convex polygon of 3..=8 `points`, counter-clockwise.
    ///
    /// # Errors
    /// `physics/shape_invalid`: InvalidArgument for a count outside 3..=8,
    /// a polygon that is not strictly convex and counter-clockwise;
    /// OutOfRange for an edge shorter than 1/64 m or a point farther than
    /// 32 m from the origin.
    pub fn polygon(points: &[Vec2<S>]) -> Result<Self> {
        let n = points.len();
        if !(3..=MAX_POLYGON_VERTICES).contains(&n) {
            return Err(invalid(SHAPE_INVALID, "points", n, "3..=8 vertices"));
        }
        let mut s = Self {
            kind: ShapeKind::Polygon,
            count: n as u8,
            ..Self::default()
        };
        for i in 0..n {
            let e = points[(i + 1) % n] - points[i];
            if !e.length_wide().ge(min_size()) {
                return Err(out_of_range(
                    SHAPE_INVALID,
                    "edge",
                    e.length_wide(),
                    "edges of at least 1/64 m",
                ));
            }
            let next = points[(i + 2) % n] - points[(i + 1) % n];
            if !cross(e, next).gt(S::ZERO) {
                return Err(invalid(
                    SHAPE_INVALID,
                    "points",
                    i,
                    "a strictly convex polygon, counter-clockwise",
                ));
            }
            s.vertices[i] = points[i];
            s.normals[i] = right_perp(e.normalize_wide());
        }
        s.check_extent()?;
        s.centroid = s.polygon_mass(S::ONE).center;
        Ok(s)
    }

    /// The shape rotated by `angle`, then moved by `offset`, in its body's
    /// frame (a collider's placement on its body).
    ///
    /// # Errors
    /// `physics/shape_invalid` (OutOfRange) when a point lands farther
    /// than 32 m from the body's origin.
    pub fn transformed(mut self, offset: Vec2<S>, angle: BinaryAngle) -> Result<Self> {
        let xf = Transform {
            p: offset,
            q: Rot::from_angle(angle),
        };
        for i in 0..self.count as usize {
            self.vertices[i] = xf.apply(self.vertices[i]);
            self.normals[i] = xf.q.rotate(self.normals[i]);
        }
        self.centroid = xf.apply(self.centroid);
        self.check_extent()?;
        Ok(self)
    }

    fn check_extent(&self) -> Result<()> {
        let limit = S::from_i32(MAX_SHAPE_EXTENT);
        for v in &self.vertices[..self.count as usize] {
            let r = v.length_wide() + self.radius;
            if !r.le(limit) {
                return Err(out_of_range(
                    SHAPE_INVALID,
                    "extent",
                    r,
                    "every point within 32 m of the body's origin",
                ));
            }
        }
        Ok(())
    }

    /// The farthest any point of the shape lies from the body's origin,
    /// rounded up to whole metres.
    #[must_use]
    pub fn extent_ceil(&self) -> i32 {
        let mut r = 0;
        for v in &self.vertices[..self.count as usize] {
            r = r.max((v.length_wide() + self.radius).to_i32_ceil());
        }
        r
    }

    /// The mass properties at `density`. The caller keeps the result in
    /// range (see `limits`).
    #[must_use]
    pub fn mass(&self, density: S) -> MassData<S> {
        match self.kind {
            ShapeKind::Circle => {
                let r2 = self.radius * self.radius;
                let mass = density * S::PI * r2;
                MassData {
                    mass,
                    center: self.vertices[0],
                    inertia: mass * r2 * S::from_ratio(1, 2),
                }
            }
            ShapeKind::Capsule => {
                let (p1, p2, r) = (self.vertices[0], self.vertices[1], self.radius);
                let rr = r * r;
                let length = (p2 - p1).length_wide();
                let ll = length * length;
                let circle_mass = density * S::PI * rr;
                let box_mass = density * (r + r) * length;
                let mass = circle_mass + box_mass;
                // Two half discs whose centroids lie 4r/3π past the ends.
                let lc = S::from_i32(4) * r / (S::from_i32(3) * S::PI);
                let h = length * S::from_ratio(1, 2);
                let circle_inertia =
                    circle_mass * (S::from_ratio(1, 2) * rr + h * h + S::from_i32(2) * h * lc);
                let box_inertia = box_mass * (S::from_i32(4) * rr + ll) / S::from_i32(12);
                MassData {
                    mass,
                    center: self.centroid,
                    inertia: circle_inertia + box_inertia,
                }
            }
            ShapeKind::Polygon => self.polygon_mass(density),
        }
    }

    /// The fan decomposition about vertex 0 (small local coordinates).
    fn polygon_mass(&self, density: S) -> MassData<S> {
        let origin = self.vertices[0];
        let third = S::from_ratio(1, 3);
        let twelfth = S::from_ratio(1, 12);
        let (mut area, mut center, mut inertia) = (S::ZERO, Vec2::<S>::ZERO, S::ZERO);
        for i in 1..self.count as usize - 1 {
            let e1 = self.vertices[i] - origin;
            let e2 = self.vertices[i + 1] - origin;
            let d = cross(e1, e2);
            let tri = d * S::from_ratio(1, 2);
            area += tri;
            center += (e1 + e2) * (tri * third);
            let intx2 = e1.x * e1.x + e2.x * e1.x + e2.x * e2.x;
            let inty2 = e1.y * e1.y + e2.y * e1.y + e2.y * e2.y;
            inertia += d * twelfth * (intx2 + inty2);
        }
        let mass = density * area;
        let c = if area.gt(S::ZERO) {
            center / area
        } else {
            Vec2::ZERO
        };
        // About vertex 0, then shifted to the centroid.
        let inertia = density * inertia - mass * c.dot(c);
        MassData {
            mass,
            center: origin + c,
            inertia,
        }
    }

    /// The world-space box around the shape on a body at `xf`.
    #[must_use]
    pub fn aabb(&self, xf: Transform<S>) -> Aabb<S> {
        let v0 = xf.apply(self.vertices[0]);
        let (mut lo, mut hi) = (v0, v0);
        for v in &self.vertices[1..self.count as usize] {
            let w = xf.apply(*v);
            lo = lo.min(w);
            hi = hi.max(w);
        }
        let r = Vec2::splat(self.radius);
        Aabb {
            min: lo - r,
            max: hi + r,
        }
    }
}
