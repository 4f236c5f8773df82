//! Rotations as a unit (cos, sin) pair and rigid transforms: integrating a
//! rotation is a multiply-add and one wide normalize, never a trig call.

use laige_core::{BinaryAngle, SimScalar, Vec2};
use laige_sim::StateHash;

/// A rotation: `c = cos θ`, `s = sin θ`, kept unit length.
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
pub struct Rot<S> {
    /// The cosine.
    pub c: S,
    /// The sine.
    pub s: S,
}

impl<S: SimScalar> Default for Rot<S> {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl<S: SimScalar> Rot<S> {
    /// No rotation.
    pub const IDENTITY: Self = Self {
        c: S::ONE,
        s: S::ZERO,
    };

    /// The rotation by `angle`.
    #[must_use]
    pub fn from_angle(angle: BinaryAngle) -> Self {
        let (s, c) = angle.to_radians::<S>().sin_cos();
        Self { c, s }
    }

    /// The angle in radians, in `[−π, π]`.
    #[must_use]
    pub fn angle(self) -> S {
        self.s.atan2(self.c)
    }

    /// `v` rotated by this rotation.
    #[inline]
    #[must_use]
    pub fn rotate(self, v: Vec2<S>) -> Vec2<S> {
        Vec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }

    /// `v` rotated by the inverse rotation.
    #[inline]
    #[must_use]
    pub fn inv_rotate(self, v: Vec2<S>) -> Vec2<S> {
        Vec2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }

    /// `self · other`: apply `other`, then `self`.
    #[inline]
    #[must_use]
    pub fn then(self, other: Self) -> Self {
        Self {
            c: self.c * other.c - self.s * other.s,
            s: self.s * other.c + self.c * other.s,
        }
    }

    /// `self⁻¹ · other`.
    #[inline]
    #[must_use]
    pub fn inv_mul(self, other: Self) -> Self {
        Self {
            c: self.c * other.c + self.s * other.s,
            s: self.c * other.s - self.s * other.c,
        }
    }

    /// The rotation advanced by `delta` radians (small): the tangent step
    /// `q + δ·q⊥`, normalized through the wide path (`delta = 0`: `self`
    /// unchanged).
    #[inline]
    #[must_use]
    pub fn integrate(self, delta: S) -> Self {
        if delta == S::ZERO {
            return self;
        }
        let v = Vec2::new(self.c - delta * self.s, self.s + delta * self.c).normalize_wide();
        if v.x == S::ZERO && v.y == S::ZERO {
            return Self::IDENTITY;
        }
        Self { c: v.x, s: v.y }
    }

    /// The same rotation renormalized.
    #[inline]
    #[must_use]
    pub fn normalized(self) -> Self {
        let v = Vec2::new(self.c, self.s).normalize_wide();
        if v.x == S::ZERO && v.y == S::ZERO {
            return Self::IDENTITY;
        }
        Self { c: v.x, s: v.y }
    }
}

/// A rigid transform: rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform<S> {
    /// The translation.
    pub p: Vec2<S>,
    /// The rotation.
    pub q: Rot<S>,
}

impl<S: SimScalar> Default for Transform<S> {
    fn default() -> Self {
        Self {
            p: Vec2::ZERO,
            q: Rot::IDENTITY,
        }
    }
}

impl<S: SimScalar> Transform<S> {
    /// `q·v + p`.
    #[inline]
    #[must_use]
    pub fn apply(self, v: Vec2<S>) -> Vec2<S> {
        self.q.rotate(v) + self.p
    }

    /// The inverse transform of `v`: `q⁻¹·(v − p)`.
    #[inline]
    #[must_use]
    pub fn apply_inv(self, v: Vec2<S>) -> Vec2<S> {
        self.q.inv_rotate(v - self.p)
    }

    /// `self⁻¹ · other`: `other` seen in this frame.
    #[inline]
    #[must_use]
    pub fn inv_mul(self, other: Self) -> Self {
        Self {
            q: self.q.inv_mul(other.q),
            p: self.q.inv_rotate(other.p - self.p),
        }
    }
}

/// The 2D cross product `a.x·b.y − a.y·b.x`.
#[inline]
#[must_use]
pub fn cross<S: SimScalar>(a: Vec2<S>, b: Vec2<S>) -> S {
    a.x * b.y - a.y * b.x
}

/// `w × v` for a scalar spin `w`: `(−w·v.y, w·v.x)`.
#[inline]
#[must_use]
pub fn cross_sv<S: SimScalar>(w: S, v: Vec2<S>) -> Vec2<S> {
    Vec2::new(-w * v.y, w * v.x)
}

/// `v × 1`: `(v.y, −v.x)`, the right perpendicular.
#[inline]
#[must_use]
pub fn right_perp<S: SimScalar>(v: Vec2<S>) -> Vec2<S> {
    Vec2::new(v.y, -v.x)
}

/// `1 × v`: `(−v.y, v.x)`, the left perpendicular.
#[inline]
#[must_use]
pub fn left_perp<S: SimScalar>(v: Vec2<S>) -> Vec2<S> {
    Vec2::new(-v.y, v.x)
}
