//! [`Vec3`]: a 3D vector over a [`SimScalar`].

use super::fixed::Fpx16_16;
use super::pinned::Fp32Pinned;
use super::scalar::SimScalar;
use super::vec_ops::{impl_vec_methods, impl_vec_ops};

/// A 3D vector of [`SimScalar`]s: a trivially copyable value type for dense
/// sim state; `Default` is the zero vector.
///
/// Every op is the scalar ops composed in a pinned order (one op per
/// component, component order x, y, z), so it gives the same bits every
/// time on a given backend:
///
/// | Op | Exact expression |
/// |---|---|
/// | `a + b`, `a - b`, `a * b`, `a / b`, `-a` | component-wise |
/// | `v * s`, `s * v`, `v / s` | scaling: each component with `s` |
/// | [`dot`](Self::dot) | `(x·x' + y·y') + z·z'` |
/// | [`length`](Self::length) | `sqrt((x·x + y·y) + z·z)`: squares, adds left to right, one sqrt |
/// | [`normalize`](Self::normalize) | `v / length(v)`; zero length → zero vector |
/// | [`lerp`](Self::lerp) | `a + (b − a) · t` component-wise |
/// | [`clamp`](Self::clamp) | component-wise scalar clamp |
/// | [`equals`](Self::equals) / [`not_equals`](Self::not_equals) | all / any component |
///
/// **Plain vs wide (Q16.16).** `length`/`normalize` are the pinned
/// expressions: the squares and the sum are *saturating Q16.16*, so they
/// are exact only while `x² + y² + z²` stays inside the Q16.16 range — about
/// 181 units (`length((181, 0, 0)) = 181`, `length((182, 0, 0)) =
/// sqrt(MAX) ≈ 181.0193`) — and lose precision for vectors shorter than ~0.004 (their
/// squares round to 0). Use them for local per-entity math that must match
/// the op table bit for bit. For world-scale distances and directions call
/// [`length_wide`](Self::length_wide), [`distance_wide`](Self::distance_wide)
/// and [`normalize_wide`](Self::normalize_wide): the sum of squares is exact
/// in 64 bits and rounded once by an integer square root, saturating only
/// when the true length exceeds `MAX`. On [`Fp32Pinned`] the wide forms are
/// the plain ones (binary32 has the range).
///
/// ```
/// use laige_core::{Fpx16_16, Vec3};
///
/// let i = Fpx16_16::from_i32;
/// let v = Vec3::new(i(2), i(3), i(6));
/// assert_eq!(v.length(), i(7));
/// let far = Vec3::new(i(2000), i(3000), i(6000));
/// assert_eq!(far.length(), Fpx16_16::MAX.sqrt()); // saturated: ~181.02
/// assert_eq!(far.length_wide(), i(7000)); // exact
/// assert_eq!(Vec3::<Fpx16_16>::ZERO.normalize(), Vec3::ZERO);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct Vec3<S> {
    /// The x component.
    pub x: S,
    /// The y component.
    pub y: S,
    /// The z component.
    pub z: S,
}

impl<S: SimScalar> Vec3<S> {
    /// The zero vector (also `Default::default()`).
    pub const ZERO: Self = Self {
        x: S::ZERO,
        y: S::ZERO,
        z: S::ZERO,
    };

    /// A vector from its components.
    #[inline]
    #[must_use]
    pub const fn new(x: S, y: S, z: S) -> Self {
        Self { x, y, z }
    }

    /// A vector with all three components `v`.
    #[inline]
    #[must_use]
    pub const fn splat(v: S) -> Self {
        Self { x: v, y: v, z: v }
    }

    /// The components as an array `[x, y, z]`.
    #[inline]
    #[must_use]
    pub const fn to_array(self) -> [S; 3] {
        [self.x, self.y, self.z]
    }

    /// A vector from `[x, y, z]`.
    #[inline]
    #[must_use]
    pub const fn from_array(a: [S; 3]) -> Self {
        Self {
            x: a[0],
            y: a[1],
            z: a[2],
        }
    }

    /// The dot product, exactly `(x·x' + y·y') + z·z'` (three muls, then
    /// the adds left to right).
    #[inline]
    #[must_use]
    pub fn dot(self, other: Self) -> S {
        self.x * other.x + self.y * other.y + self.z * other.z
    }

    /// The length, exactly `sqrt((x·x + y·y) + z·z)`: the squarings, the
    /// adds left to right, then one sqrt, in the backend's ops. Always `>= 0`
    /// (or NaN for a NaN component); `length(0, 0, 0) = 0`. Q16.16: saturating beyond ~181 units
    /// (see the type docs; use [`length_wide`](Self::length_wide) there).
    #[inline]
    #[must_use]
    pub fn length(self) -> S {
        (self.x * self.x + self.y * self.y + self.z * self.z).sqrt()
    }

    /// The length through the wide path. Q16.16: `round(sqrt(x_raw² +
    /// y_raw² + z_raw²))` with the sum exact in 64 bits and one rounded integer
    /// square root — exact to the nearest 2^−16 for every vector, saturating
    /// to `MAX` only when the true length rounds above it (the diagonal of
    /// the world, up to ~56756 units). Binary32: [`length`](Self::length).
    ///
    /// ```
    /// use laige_core::{Fpx16_16, Vec3};
    /// let i = Fpx16_16::from_i32;
    /// assert_eq!(Vec3::new(i(-2000), i(3000), i(6000)).length_wide(), i(7000));
    /// ```
    #[inline]
    #[must_use]
    pub fn length_wide(self) -> S {
        S::wide_length(self.to_array())
    }

    /// The distance between two points through the wide path. Q16.16: the
    /// differences are taken exactly in `i64` (never saturated, even across
    /// the whole ±32768 world), then as [`length_wide`](Self::length_wide).
    /// Binary32: `(self − other).length()`.
    ///
    /// ```
    /// use laige_core::{Fpx16_16, Vec3};
    /// let i = Fpx16_16::from_i32;
    /// let a = Vec3::new(i(-15000), i(0), i(0));
    /// let b = Vec3::new(i(15000), i(0), i(0));
    /// assert_eq!(a.distance_wide(b), i(30000));
    /// ```
    #[inline]
    #[must_use]
    pub fn distance_wide(self, other: Self) -> S {
        S::wide_distance(self.to_array(), other.to_array())
    }
}

impl_vec_ops!(Vec3 { x, y, z });
impl_vec_methods!(Vec3 { x, y, z });

#[cfg(test)]
mod tests {
    use super::*;

    type V = Vec3<Fpx16_16>;
    type P = Vec3<Fp32Pinned>;

    fn fi(v: i32) -> Fpx16_16 {
        Fpx16_16::from_i32(v)
    }

    fn vi(x: i32, y: i32, z: i32) -> V {
        V::new(fi(x), fi(y), fi(z))
    }

    fn pf(x: f32, y: f32, z: f32) -> P {
        P::new(
            Fp32Pinned::from_f32(x),
            Fp32Pinned::from_f32(y),
            Fp32Pinned::from_f32(z),
        )
    }

    #[test]
    fn default_is_zero_and_the_type_is_plain_data() {
        assert_eq!(V::default(), V::ZERO);
        assert_eq!(std::mem::size_of::<V>(), 12);
        assert_eq!(V::splat(fi(2)).to_array(), [fi(2); 3]);
        assert_eq!(V::from_array([fi(1), fi(2), fi(3)]), vi(1, 2, 3));
    }

    #[test]
    fn operators_are_component_wise() {
        let (a, b) = (vi(1, -2, 3), vi(3, 4, -5));
        assert_eq!(a + b, vi(4, 2, -2));
        assert_eq!(a - b, vi(-2, -6, 8));
        assert_eq!(a * b, vi(3, -8, -15));
        assert_eq!(vi(6, 4, 9) / vi(3, 2, 3), vi(2, 2, 3));
        assert_eq!(-a, vi(-1, 2, -3));
        assert_eq!(a * fi(2), vi(2, -4, 6));
        assert_eq!(fi(2) * a, vi(2, -4, 6));
        assert_eq!(vi(2, 4, 6) / fi(2), vi(1, 2, 3));
        let mut c = a;
        c += b;
        c -= b;
        c *= fi(2);
        c /= fi(2);
        c *= vi(1, 1, 2);
        c /= vi(1, 1, 2);
        assert_eq!(c, a);
        assert_eq!(
            Fp32Pinned::from_f32(2.0) * pf(1.0, 2.0, 3.0),
            pf(2.0, 4.0, 6.0)
        );
    }

    #[test]
    fn dot_length_normalize() {
        assert_eq!(vi(1, 2, 3).dot(vi(4, -5, 6)), fi(12));
        assert_eq!(vi(2, 3, 6).length(), fi(7));
        assert_eq!(vi(181, 0, 0).length(), fi(181));
        assert_eq!(vi(0, 0, 182).length(), Fpx16_16::MAX.sqrt());
        assert_eq!(V::ZERO.normalize(), V::ZERO);
        assert_eq!(P::ZERO.normalize(), P::ZERO);
        assert_eq!(vi(0, 0, -9).normalize(), vi(0, 0, -1));
        assert_eq!(pf(2.0, 3.0, 6.0).length().to_f32(), 7.0);
        let n = pf(2.0, 3.0, 6.0).normalize();
        assert_eq!(
            n.to_array().map(Fp32Pinned::to_f32),
            [2.0 / 7.0, 3.0 / 7.0, 6.0 / 7.0]
        );
    }

    #[test]
    fn wide_forms() {
        assert_eq!(vi(2000, -3000, 6000).length_wide(), fi(7000));
        assert_eq!(V::splat(Fpx16_16::MIN).length_wide(), Fpx16_16::MAX);
        assert_eq!(vi(-10000, 0, 0).distance_wide(vi(10000, 0, 0)), fi(20000));
        let n = vi(2000, 3000, 6000).normalize_wide();
        let e = V::new(
            Fpx16_16::from_ratio(2, 7),
            Fpx16_16::from_ratio(3, 7),
            Fpx16_16::from_ratio(6, 7),
        );
        assert_eq!(n, e);
        assert_eq!(V::ZERO.normalize_wide(), V::ZERO);
        let n = V::splat(Fpx16_16::MIN).normalize_wide();
        assert_eq!(n, V::splat(Fpx16_16::from_raw(-37837))); // −1/√3
        assert_eq!(pf(2.0, 3.0, 6.0).length_wide().to_f32(), 7.0);
    }

    #[test]
    fn lerp_clamp_equals() {
        let (a, b) = (vi(0, 10, -4), vi(4, -10, 4));
        assert_eq!(a.lerp(b, Fpx16_16::from_ratio(1, 2)), vi(2, 0, 0));
        assert_eq!(
            vi(-5, 50, 99).clamp(V::ZERO, V::splat(fi(64))),
            vi(0, 50, 64)
        );
        assert_eq!(a.min(b), vi(0, -10, -4));
        assert_eq!(a.max(b), vi(4, 10, 4));
        assert_eq!(vi(-1, 2, -3).abs(), vi(1, 2, 3));
        assert!(a.equals(a) && a.not_equals(b));
        let nan = pf(0.0, 0.0, f32::NAN);
        assert!(!nan.equals(nan) && nan.not_equals(nan));
        assert_eq!(vi(1, 2, 3).to_string(), "(1, 2, 3)");
    }
}
