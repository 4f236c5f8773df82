//! [`Vec2`]: a 2D vector over a [`SimScalar`].

use super::fixed::Fpx16_16;
use super::pinned::Fp32Pinned;
use super::scalar::SimScalar;
use super::vec_ops::{impl_vec_methods, impl_vec_ops};

/// A 2D vector of [`SimScalar`]s: a trivially copyable value type for dense
/// sim state; `Default` is the zero vector.
///
/// Every op is the scalar ops composed in a pinned order (one op per
/// component, component order x then y), so it gives the same bits every
/// time on a given backend:
///
/// | Op | Exact expression |
/// |---|---|
/// | `a + b`, `a - b`, `a * b`, `a / b`, `-a` | component-wise |
/// | `v * s`, `s * v`, `v / s` | scaling: each component with `s` |
/// | [`dot`](Self::dot) | `x·x' + y·y'` |
/// | [`length`](Self::length) | `sqrt(x·x + y·y)`: squares, add, one sqrt |
/// | [`normalize`](Self::normalize) | `v / length(v)`; zero length → zero vector |
/// | [`lerp`](Self::lerp) | `a + (b − a) · t` component-wise |
/// | [`clamp`](Self::clamp) | component-wise scalar clamp |
/// | [`equals`](Self::equals) / [`not_equals`](Self::not_equals) | all / any component |
///
/// **Plain vs wide (Q16.16).** `length`/`normalize` are the pinned
/// expressions: the squares and the sum are *saturating Q16.16*, so they
/// are exact only while `x² + y²` stays inside the Q16.16 range — about
/// 181 units (`length((181, 0)) = 181`, `length((182, 0)) = sqrt(MAX) ≈
/// 181.0193`) — and lose precision for vectors shorter than ~0.004 (their
/// squares round to 0). Use them for local per-entity math that must match
/// the op table bit for bit. For world-scale distances and directions call
/// [`length_wide`](Self::length_wide), [`distance_wide`](Self::distance_wide)
/// and [`normalize_wide`](Self::normalize_wide): the sum of squares is exact
/// in 64 bits and rounded once by an integer square root, saturating only
/// when the true length exceeds `MAX`. On [`Fp32Pinned`] the wide forms are
/// the plain ones (binary32 has the range).
///
/// ```
/// use laige_core::{Fpx16_16, Vec2};
///
/// let v = Vec2::new(Fpx16_16::from_i32(3), Fpx16_16::from_i32(4));
/// assert_eq!(v.length(), Fpx16_16::from_i32(5));
/// let far = Vec2::new(Fpx16_16::from_i32(3000), Fpx16_16::from_i32(4000));
/// assert_eq!(far.length(), Fpx16_16::MAX.sqrt()); // saturated: ~181.02
/// assert_eq!(far.length_wide(), Fpx16_16::from_i32(5000)); // exact
/// assert_eq!(Vec2::<Fpx16_16>::ZERO.normalize(), Vec2::ZERO);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct Vec2<S> {
    /// The x component.
    pub x: S,
    /// The y component.
    pub y: S,
}

impl<S: SimScalar> Vec2<S> {
    /// The zero vector (also `Default::default()`).
    pub const ZERO: Self = Self {
        x: S::ZERO,
        y: S::ZERO,
    };

    /// A vector from its components.
    #[inline]
    #[must_use]
    pub const fn new(x: S, y: S) -> Self {
        Self { x, y }
    }

    /// A vector with both components `v`.
    #[inline]
    #[must_use]
    pub const fn splat(v: S) -> Self {
        Self { x: v, y: v }
    }

    /// The components as an array `[x, y]`.
    #[inline]
    #[must_use]
    pub const fn to_array(self) -> [S; 2] {
        [self.x, self.y]
    }

    /// A vector from `[x, y]`.
    #[inline]
    #[must_use]
    pub const fn from_array(a: [S; 2]) -> Self {
        Self { x: a[0], y: a[1] }
    }

    /// The dot product, exactly `x·x' + y·y'` (two muls, then one add).
    #[inline]
    #[must_use]
    pub fn dot(self, other: Self) -> S {
        self.x * other.x + self.y * other.y
    }

    /// The length, exactly `sqrt(x·x + y·y)`: the squarings, the add, then
    /// one sqrt, in the backend's ops. Always `>= 0` (or NaN for a NaN
    /// component); `length(0, 0) = 0`. Q16.16: saturating beyond ~181 units
    /// (see the type docs; use [`length_wide`](Self::length_wide) there).
    #[inline]
    #[must_use]
    pub fn length(self) -> S {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    /// The length through the wide path. Q16.16: `round(sqrt(x_raw² +
    /// y_raw²))` with the sum exact in 64 bits and one rounded integer
    /// square root — exact to the nearest 2^−16 for every vector, saturating
    /// to `MAX` only when the true length rounds above it (the diagonal of
    /// the world, up to ~46341 units). Binary32: [`length`](Self::length).
    ///
    /// ```
    /// use laige_core::{Fpx16_16, Vec2};
    /// let v = Vec2::new(Fpx16_16::from_i32(-20000), Fpx16_16::from_i32(15000));
    /// assert_eq!(v.length_wide(), Fpx16_16::from_i32(25000));
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
    /// use laige_core::{Fpx16_16, Vec2};
    /// let a = Vec2::new(Fpx16_16::from_i32(-15000), Fpx16_16::ZERO);
    /// let b = Vec2::new(Fpx16_16::from_i32(15000), Fpx16_16::ZERO);
    /// assert_eq!(a.distance_wide(b), Fpx16_16::from_i32(30000));
    /// ```
    #[inline]
    #[must_use]
    pub fn distance_wide(self, other: Self) -> S {
        S::wide_distance(self.to_array(), other.to_array())
    }

    /// [`normalize_wide`](Self::normalize_wide) of every vector of `v`, in
    /// place, with the same result bits as one call per vector. Q16.16:
    /// the binary64 proposals of a whole chunk are computed together (a
    /// loop without branches, which the compiler runs several vectors
    /// wide), and only the rare vector whose proposal lies near a rounding
    /// boundary (about one component in 2^31) or that is zero takes the
    /// one-vector path; over a batch this is several times faster than the
    /// per-vector loop. Binary32: the per-vector loop.
    ///
    /// ```
    /// use laige_core::{Fpx16_16, Vec2};
    /// let mut dirs = [
    ///     Vec2::new(Fpx16_16::from_i32(3000), Fpx16_16::from_i32(-4000)),
    ///     Vec2::ZERO,
    /// ];
    /// let one_by_one = dirs.map(Vec2::normalize_wide);
    /// Vec2::normalize_wide_slice(&mut dirs);
    /// assert_eq!(dirs, one_by_one);
    /// ```
    #[inline(always)]
    pub fn normalize_wide_slice(v: &mut [Self]) {
        S::wide_normalize_vec2s(v);
    }

    /// [`normalize_wide`](Self::normalize_wide) of `f(x)` for every `x` of
    /// `src`, written to `dst` in order, with the same result bits as one
    /// call per vector; the shorter of the two slices bounds the pass (the
    /// rest of `dst` is left as it is). `f` is called once per element, in
    /// order. For vectors computed from other data (an offset from a
    /// position, a difference of two columns): the batch of
    /// [`normalize_wide_slice`](Self::normalize_wide_slice) without a
    /// buffer of the caller's, nor the copy that one makes of its input.
    ///
    /// ```
    /// use laige_core::{Fpx16_16, Vec2};
    /// let target = Vec2::new(Fpx16_16::from_i32(100), Fpx16_16::ZERO);
    /// let positions = [
    ///     Vec2::new(Fpx16_16::from_i32(-2900), Fpx16_16::from_i32(4000)),
    ///     target,
    /// ];
    /// let mut dirs = [Vec2::ZERO; 2];
    /// Vec2::normalize_wide_map(&positions, &mut dirs, |p| target - *p);
    /// assert_eq!(dirs, positions.map(|p| (target - p).normalize_wide()));
    /// ```
    #[inline(always)]
    pub fn normalize_wide_map<T>(src: &[T], dst: &mut [Self], f: impl Fn(&T) -> Self) {
        S::wide_normalize_vec2s_map(src, dst, f);
    }
}

impl_vec_ops!(Vec2 { x, y });
impl_vec_methods!(Vec2 { x, y });

#[cfg(test)]
mod tests {
    use super::*;

    type V = Vec2<Fpx16_16>;
    type P = Vec2<Fp32Pinned>;

    fn fi(v: i32) -> Fpx16_16 {
        Fpx16_16::from_i32(v)
    }

    fn vi(x: i32, y: i32) -> V {
        V::new(fi(x), fi(y))
    }

    fn pf(x: f32, y: f32) -> P {
        P::new(Fp32Pinned::from_f32(x), Fp32Pinned::from_f32(y))
    }

    #[test]
    fn default_is_zero_and_the_type_is_plain_data() {
        assert_eq!(V::default(), V::ZERO);
        assert_eq!(P::default().x.to_bits(), 0);
        assert_eq!(std::mem::size_of::<V>(), 8);
        fn assert_copy_send_sync<T: Copy + Send + Sync + 'static>() {}
        assert_copy_send_sync::<V>();
        assert_copy_send_sync::<P>();
    }

    #[test]
    fn operators_are_component_wise() {
        let (a, b) = (vi(1, -2), vi(3, 4));
        assert_eq!(a + b, vi(4, 2));
        assert_eq!(a - b, vi(-2, -6));
        assert_eq!(a * b, vi(3, -8));
        assert_eq!(b / vi(3, 2), vi(1, 2));
        assert_eq!(-a, vi(-1, 2));
        assert_eq!(a * fi(2), vi(2, -4));
        assert_eq!(fi(2) * a, vi(2, -4));
        assert_eq!(b / fi(2), V::new(Fpx16_16::from_ratio(3, 2), fi(2)));
        let mut c = a;
        c += b;
        c -= a;
        assert_eq!(c, b);
        c *= fi(3);
        assert_eq!(c, vi(9, 12));
        c /= fi(3);
        assert_eq!(c, b);
        c *= vi(2, 0);
        assert_eq!(c, vi(6, 0));
        c /= vi(2, 1);
        assert_eq!(c, vi(3, 0));
        assert_eq!(Fp32Pinned::from_f32(0.5) * pf(2.0, -4.0), pf(1.0, -2.0));
        // Saturation is per component.
        assert_eq!(
            V::splat(Fpx16_16::MAX) + vi(1, -1),
            V::new(Fpx16_16::MAX, Fpx16_16::MAX - fi(1))
        );
    }

    #[test]
    fn dot_length_and_the_q16_bound() {
        assert_eq!(vi(1, 2).dot(vi(3, -4)), fi(-5));
        assert_eq!(vi(3, 4).length(), fi(5));
        assert_eq!(vi(0, 0).length(), Fpx16_16::ZERO);
        assert_eq!(vi(181, 0).length(), fi(181));
        assert_eq!(vi(182, 0).length(), Fpx16_16::MAX.sqrt());
        assert_eq!(vi(0, -182).length(), Fpx16_16::MAX.sqrt());
        assert_eq!(vi(128, 128).length(), Fpx16_16::from_raw(11_863_283));
        assert_eq!(pf(3.0, 4.0).length().to_f32(), 5.0);
        assert!(pf(f32::NAN, 0.0).length().is_nan());
    }

    #[test]
    fn normalize_maps_zero_length_to_zero() {
        assert_eq!(V::ZERO.normalize(), V::ZERO);
        assert_eq!(P::ZERO.normalize(), P::ZERO);
        assert_eq!(vi(0, 5).normalize(), vi(0, 1));
        assert_eq!(vi(-3, 0).normalize(), vi(-1, 0));
        // Raw 100: its square rounds to 0, so its length is 0 → zero vector.
        let tiny = V::new(Fpx16_16::from_raw(100), Fpx16_16::ZERO);
        assert_eq!(tiny.normalize(), V::ZERO);
        assert_eq!(tiny.normalize_wide(), vi(1, 0));
        let n = pf(3.0, 4.0).normalize();
        assert_eq!((n.x.to_f32(), n.y.to_f32()), (3.0 / 5.0, 4.0 / 5.0));
        let n = pf(f32::INFINITY, 0.0).normalize();
        assert!(n.x.is_nan() && n.y.to_f32() == 0.0);
    }

    #[test]
    fn wide_forms_cover_the_world() {
        let v = vi(30000, -30000);
        assert_eq!(v.length(), Fpx16_16::MAX.sqrt());
        assert_eq!(v.length_wide(), Fpx16_16::MAX); // 42426 > MAX: saturates
        let v = vi(20000, -15000);
        assert_eq!(v.length_wide(), fi(25000));
        assert_eq!(
            v.normalize_wide(),
            V::new(Fpx16_16::from_ratio(4, 5), Fpx16_16::from_ratio(-3, 5))
        );
        assert_eq!(vi(-30000, 0).distance_wide(vi(30000, 0)), Fpx16_16::MAX);
        assert_eq!(vi(-10000, 0).distance_wide(vi(10000, 0)), fi(20000));
        assert_eq!(pf(1.0, 1.0).distance_wide(pf(4.0, 5.0)).to_f32(), 5.0);
        assert_eq!(pf(6.0, 8.0).length_wide().to_f32(), 10.0);
        assert_eq!(pf(0.0, -2.0).normalize_wide(), pf(0.0, -1.0));
    }

    #[test]
    fn lerp_clamp_min_max_abs_are_component_wise() {
        let (a, b) = (vi(0, 10), vi(4, -10));
        let half = Fpx16_16::from_ratio(1, 2);
        assert_eq!(a.lerp(b, half), vi(2, 0));
        assert_eq!(a.lerp(b, Fpx16_16::ZERO), a);
        assert_eq!(a.lerp(b, Fpx16_16::ONE), b);
        assert_eq!(vi(-5, 50).clamp(V::ZERO, vi(64, 64)), vi(0, 50));
        assert_eq!(vi(-5, 70).clamp(V::ZERO, vi(64, 64)), vi(0, 64));
        assert_eq!(a.min(b), vi(0, -10));
        assert_eq!(a.max(b), vi(4, 10));
        assert_eq!(vi(-3, 3).abs(), vi(3, 3));
        let c = pf(f32::NAN, f32::INFINITY).clamp(P::ZERO, pf(1.0, 1.0));
        assert!(c.x.is_nan() && c.y.to_f32() == 1.0);
    }

    #[test]
    fn equals_is_all_components_and_false_on_nan() {
        assert!(vi(1, 2).equals(vi(1, 2)));
        assert!(vi(1, 2).not_equals(vi(1, 3)));
        let nan = pf(f32::NAN, 0.0);
        assert!(!nan.equals(nan) && nan.not_equals(nan));
        assert!(pf(-0.0, 0.0).equals(pf(0.0, -0.0)));
    }

    #[test]
    fn display_shows_both_components() {
        assert_eq!(
            V::new(Fpx16_16::from_ratio(3, 2), fi(-2)).to_string(),
            "(1.5, -2)"
        );
        assert_eq!(format!("{:.1}", pf(1.0, 0.25)), "(1.0, 0.2)");
        assert_eq!(format!("{:?}", vi(1, 2)), "Vec2 { x: 1, y: 2 }");
    }
}
