//! [`SimScalar`]: the one op surface both backends implement.

use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use super::angle::BinaryAngle;
use super::backend::MathBackend;
use super::fixed::Fpx16_16;
use super::pinned::Fp32Pinned;
use super::vec2::Vec2;
use super::wide;

mod sealed {
    /// Only the two backends implement `SimScalar`.
    pub trait Sealed {}
    impl Sealed for super::Fpx16_16 {}
    impl Sealed for super::Fp32Pinned {}
}

/// A deterministic simulation scalar: [`Fpx16_16`] (default) or
/// [`Fp32Pinned`]. Sim code is written once, generic over `S: SimScalar`,
/// and instantiated per backend (static dispatch; see
/// [`MathBackend::run`](super::MathBackend::run)).
///
/// The operators are the backend's pinned ops (Q16.16: saturating, rounded
/// ties to even; binary32: IEEE, never fused). Comparisons through
/// `PartialOrd`/`PartialEq` are the backend's (total for Q16.16, false on
/// NaN for binary32); the named forms ([`lt`](Self::lt),
/// [`equals`](Self::equals), ...) say the same thing explicitly.
///
/// The trait is sealed: exactly the two backends implement it, so methods
/// can be added without breaking anyone.
///
/// ```
/// use laige_core::{Fp32Pinned, Fpx16_16, SimScalar};
///
/// fn smooth<S: SimScalar>(from: S, to: S) -> S {
///     from.lerp(to, S::from_ratio(1, 4))
/// }
/// assert_eq!(smooth(Fpx16_16::ZERO, Fpx16_16::from_i32(8)), Fpx16_16::from_i32(2));
/// assert_eq!(smooth(Fp32Pinned::ZERO, Fp32Pinned::from_i32(8)).to_f32(), 2.0);
/// ```
pub trait SimScalar:
    Copy
    + Default
    + PartialEq
    + PartialOrd
    + fmt::Debug
    + fmt::Display
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    /// Zero (`Default::default()` is the same value).
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The backend this scalar implements (part of replay identity).
    const BACKEND: MathBackend;

    /// The integer `v` (Q16.16: exact in `−32768..=32767`, saturating
    /// outside; binary32: rounded to nearest, exact for `|v| <= 2^24`).
    fn from_i32(v: i32) -> Self;
    /// The exact ratio `num / den` rounded once to nearest, ties to even
    /// (e.g. the tick length `from_ratio(1, 60)`); `den = 0` follows the
    /// backend's division by zero.
    fn from_ratio(num: i32, den: i32) -> Self;
    /// The nearest `f32`, for rendering and display only — never feed it
    /// back into the simulation.
    fn to_f32(self) -> f32;
    /// The canonical bits for state hashing (Q16.16: the raw value;
    /// binary32: the IEEE bits with every NaN mapped to `0x7FC0_0000`).
    fn to_hash_bits(self) -> u32;

    /// The square root rounded to nearest (Q16.16: negative → 0; binary32:
    /// IEEE, negative → NaN).
    #[must_use]
    fn sqrt(self) -> Self;
    /// The absolute value (Q16.16: `abs(MIN) = MAX`).
    #[must_use]
    fn abs(self) -> Self;
    /// The smaller value (binary32: NaN-propagating, `min(−0, +0) = −0`).
    #[must_use]
    fn min(self, other: Self) -> Self;
    /// The larger value (binary32: NaN-propagating, `max(−0, +0) = +0`).
    #[must_use]
    fn max(self, other: Self) -> Self;
    /// `lo` if `self < lo`, else `hi` if `self > hi`, else `self`. Bounds
    /// should be finite with `lo <= hi`; other bounds still give exactly
    /// that expression (never a panic). Binary32: NaN → NaN, `±inf` → bound.
    #[must_use]
    fn clamp(self, lo: Self, hi: Self) -> Self;
    /// Exactly `self + (b − self) × t`: one sub, one mul, one add in the
    /// backend's ops (never fused).
    #[must_use]
    fn lerp(self, b: Self, t: Self) -> Self;

    /// NaN? (Q16.16: always false.)
    fn is_nan(self) -> bool;
    /// `±inf`? (Q16.16: always false.)
    fn is_inf(self) -> bool;
    /// Neither NaN nor infinite? (Q16.16: always true.)
    fn is_finite(self) -> bool;
    /// Can `self` and `other` be ordered — neither is NaN? (Q16.16: always
    /// true.)
    fn is_ordered(self, other: Self) -> bool;

    /// `self < other` (false when either is NaN).
    #[inline]
    fn lt(self, other: Self) -> bool {
        self < other
    }
    /// `self <= other` (false when either is NaN).
    #[inline]
    fn le(self, other: Self) -> bool {
        self <= other
    }
    /// `self > other` (false when either is NaN).
    #[inline]
    fn gt(self, other: Self) -> bool {
        self > other
    }
    /// `self >= other` (false when either is NaN).
    #[inline]
    fn ge(self, other: Self) -> bool {
        self >= other
    }
    /// `self == other`: exact bit equality for Q16.16; IEEE for binary32
    /// (false when either is NaN, `−0 == +0`).
    #[inline]
    fn equals(self, other: Self) -> bool {
        self == other
    }
    /// `!equals` (true when either is NaN).
    #[inline]
    fn not_equals(self, other: Self) -> bool {
        self != other
    }

    /// The backend hook behind `Vec2::length_wide`/`Vec3::length_wide`:
    /// the length of the vector with components `c`, through the backend's
    /// wide path (Q16.16: exact 64-bit sum of squares, one rounded integer
    /// root, saturating only above `MAX`; binary32: the plain `length`).
    fn wide_length<const N: usize>(c: [Self; N]) -> Self;
    /// The hook behind `distance_wide`: the wide length of `a − b`, with the
    /// differences taken exactly (Q16.16: in `i64`, never saturated;
    /// binary32: the plain IEEE differences).
    fn wide_distance<const N: usize>(a: [Self; N], b: [Self; N]) -> Self;
    /// The hook behind `normalize_wide` (Q16.16: each component the value
    /// nearest to the exact `c / |v|`, with `|v|` unsaturated; binary32: the
    /// plain `normalize`). The zero vector gives the zero vector.
    fn wide_normalize<const N: usize>(c: [Self; N]) -> [Self; N];
    /// The hook behind `Vec2::normalize_wide_slice`: every vector of `v`
    /// replaced by its `normalize_wide`, bit for bit. Q16.16 proposes a
    /// whole chunk at once (a loop the compiler vectorizes) and settles the
    /// rare undecided vector one at a time; binary32 is the per-vector
    /// `normalize_wide` (its loop vectorizes as it is).
    #[inline(always)]
    fn wide_normalize_vec2s(v: &mut [Vec2<Self>]) {
        for x in v {
            *x = x.normalize_wide();
        }
    }
    /// The hook behind `Vec2::normalize_wide_map`: `dst[i]` becomes the
    /// `normalize_wide` of `f(&src[i])`, bit for bit, for every `i` both
    /// slices have, with one call of `f` each, in order. Q16.16 stages a
    /// chunk of `f`'s vectors and proposes them together, as
    /// `wide_normalize_vec2s`; binary32 is the per-vector `normalize_wide`.
    #[inline(always)]
    fn wide_normalize_vec2s_map<T>(
        src: &[T],
        dst: &mut [Vec2<Self>],
        f: impl Fn(&T) -> Vec2<Self>,
    ) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = f(s).normalize_wide();
        }
    }

    /// The hook behind the column passes' `a += b × s` (the workload's
    /// integrate and attract): for every `i` both slices have, the vector
    /// `acc(&mut dst[i])` becomes itself `+ by(&src[i]) * s`, component-wise
    /// with the backend's `+` and `*`, bit for bit; `by` is called once per
    /// element, in order. Q16.16 on `wasm32` built with SIMD128 computes two
    /// vectors per 128-bit vector (the same bits: `math::simd128`); every
    /// other build runs this loop, which the compiler vectorizes as it is.
    ///
    /// ```
    /// use laige_core::{Fpx16_16, SimScalar, Vec2};
    ///
    /// let one = Fpx16_16::ONE;
    /// let mut pos = [(7u8, Vec2::new(one, one)); 3];
    /// let vel = [Vec2::new(one, -one); 3];
    /// let half = Fpx16_16::from_ratio(1, 2);
    /// Fpx16_16::mul_add_vec2s(&mut pos, &vel, half, |p| &mut p.1, |v| *v);
    /// assert_eq!(pos[2].1, Vec2::new(one + half, half));
    /// ```
    #[inline(always)]
    fn mul_add_vec2s<D, T>(
        dst: &mut [D],
        src: &[T],
        s: Self,
        acc: impl Fn(&mut D) -> &mut Vec2<Self>,
        by: impl Fn(&T) -> Vec2<Self>,
    ) {
        for (d, t) in dst.iter_mut().zip(src) {
            *acc(d) += by(t) * s;
        }
    }

    /// `π`, the backend's nearest value.
    const PI: Self;
    /// `2π`, the backend's nearest value.
    const TAU: Self;
    /// `π/2`, the backend's nearest value.
    const FRAC_PI_2: Self;

    /// The sine of `self` radians (Q16.16: integer-only, within 1 ulp of
    /// the exact value for every input; binary32: `libm::sinf`, within 1
    /// ulp). The measured bounds are on each backend's inherent op.
    #[must_use]
    fn sin(self) -> Self;
    /// The cosine of `self` radians (bounds as [`sin`](Self::sin)).
    #[must_use]
    fn cos(self) -> Self;
    /// `(sin, cos)`, bit-identical to the two calls.
    #[must_use]
    fn sin_cos(self) -> (Self, Self);
    /// The tangent (Q16.16: saturated near the poles).
    #[must_use]
    fn tan(self) -> Self;
    /// The angle of the point `(x, y) = (other, self)` in `[−π, π]`.
    #[must_use]
    fn atan2(self, other: Self) -> Self;
    /// The arctangent, in `[−π/2, π/2]`.
    #[must_use]
    fn atan(self) -> Self;
    /// The arcsine (Q16.16: input clamped to `[−1, 1]`; binary32: NaN
    /// outside it).
    #[must_use]
    fn asin(self) -> Self;
    /// The arccosine (clamped or NaN as [`asin`](Self::asin)).
    #[must_use]
    fn acos(self) -> Self;

    /// The largest integer `<= self`.
    #[must_use]
    fn floor(self) -> Self;
    /// The smallest integer `>= self` (Q16.16: saturated to `MAX`).
    #[must_use]
    fn ceil(self) -> Self;
    /// The nearest integer, ties to even.
    #[must_use]
    fn round(self) -> Self;
    /// The integer part, toward zero.
    #[must_use]
    fn trunc(self) -> Self;
    /// `self − trunc(self)`.
    #[must_use]
    fn fract(self) -> Self;
    /// The least non-negative remainder of `self / rhs` (Q16.16: 0 for
    /// `rhs = 0`; binary32: NaN).
    #[must_use]
    fn rem_euclid(self, rhs: Self) -> Self;
    /// The sign: `−1`, `1` (binary32: by the sign bit, NaN for NaN) or
    /// Q16.16's `0` for zero.
    #[must_use]
    fn signum(self) -> Self;
    /// `floor(self)` as an integer (binary32: saturated, NaN → 0).
    fn to_i32_floor(self) -> i32;
    /// `ceil(self)` as an integer (binary32: saturated, NaN → 0).
    fn to_i32_ceil(self) -> i32;

    /// The hook behind [`BinaryAngle::to_radians`]: the angle in radians in
    /// `[−π, π)`, the nearest backend value.
    fn radians_from_angle(a: BinaryAngle) -> Self;
    /// The hook behind [`BinaryAngle::from_radians`]: the nearest `2^−32`
    /// turn to `self` radians.
    fn angle_from_radians(self) -> BinaryAngle;

    /// The hook behind a seeded generator's `next_in(lo, hi)`: a value in
    /// `[lo, hi)` from `below(n)`, the generator's unbiased uniform integer
    /// in `0..n`. Q16.16: `lo + below(span)` on the raws, so every raw value
    /// in the range is equally likely. Binary32: `lo + (hi − lo)·u` with
    /// `u = below(2^24) / 2^24` (exact), redrawn in the rare case rounding
    /// reaches `hi`. An empty range (`hi <= lo`), a NaN bound or an
    /// infinite span gives `lo` without drawing.
    fn uniform_in(lo: Self, hi: Self, below: impl FnMut(u64) -> u64) -> Self;
}

/// The `SimScalar` items that are the backend's inherent op of the same
/// name and signature: one list for both backends.
macro_rules! forward_to_inherent {
    ($T:ty) => {
        const ZERO: Self = <$T>::ZERO;
        const ONE: Self = <$T>::ONE;
        const PI: Self = <$T>::PI;
        const TAU: Self = <$T>::TAU;
        const FRAC_PI_2: Self = <$T>::FRAC_PI_2;
        forward_to_inherent!(@fns
            from_i32(v: i32) -> Self;
            from_ratio(num: i32, den: i32) -> Self;
        );
        forward_to_inherent!(@methods
            to_f32() -> f32;
            sqrt() -> Self;
            abs() -> Self;
            min(other: Self) -> Self;
            max(other: Self) -> Self;
            clamp(lo: Self, hi: Self) -> Self;
            lerp(b: Self, t: Self) -> Self;
            is_nan() -> bool;
            is_inf() -> bool;
            is_finite() -> bool;
            is_ordered(other: Self) -> bool;
            sin() -> Self;
            cos() -> Self;
            sin_cos() -> (Self, Self);
            tan() -> Self;
            atan2(other: Self) -> Self;
            atan() -> Self;
            asin() -> Self;
            acos() -> Self;
            floor() -> Self;
            ceil() -> Self;
            round() -> Self;
            trunc() -> Self;
            fract() -> Self;
            rem_euclid(rhs: Self) -> Self;
            signum() -> Self;
            to_i32_floor() -> i32;
            to_i32_ceil() -> i32;
        );
    };
    (@fns $($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(
            #[inline]
            fn $name($($arg: $ty),*) -> $ret {
                Self::$name($($arg),*)
            }
        )*
    };
    (@methods $($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(
            #[inline]
            fn $name(self $(, $arg: $ty)*) -> $ret {
                Self::$name(self $(, $arg)*)
            }
        )*
    };
}

impl SimScalar for Fpx16_16 {
    forward_to_inherent!(Fpx16_16);
    const BACKEND: MathBackend = MathBackend::FixedPoint16_16;

    #[inline]
    fn to_hash_bits(self) -> u32 {
        self.to_raw() as u32
    }
    #[inline]
    fn wide_length<const N: usize>(c: [Self; N]) -> Self {
        wide::length_wide(c)
    }
    #[inline]
    fn wide_distance<const N: usize>(a: [Self; N], b: [Self; N]) -> Self {
        wide::distance_wide(a, b)
    }
    #[inline]
    fn wide_normalize<const N: usize>(c: [Self; N]) -> [Self; N] {
        wide::normalize_wide(c)
    }
    #[inline(always)]
    fn wide_normalize_vec2s(v: &mut [Vec2<Self>]) {
        wide::normalize_wide_vec2s(v);
    }
    #[inline(always)]
    fn wide_normalize_vec2s_map<T>(
        src: &[T],
        dst: &mut [Vec2<Self>],
        f: impl Fn(&T) -> Vec2<Self>,
    ) {
        wide::normalize_wide_vec2s_map(src, dst, f);
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    fn mul_add_vec2s<D, T>(
        dst: &mut [D],
        src: &[T],
        s: Self,
        acc: impl Fn(&mut D) -> &mut Vec2<Self>,
        by: impl Fn(&T) -> Vec2<Self>,
    ) {
        super::simd128::mul_add_vec2s(dst, src, s, acc, by);
    }
    #[inline]
    fn radians_from_angle(a: BinaryAngle) -> Self {
        a.to_fixed()
    }
    #[inline]
    fn angle_from_radians(self) -> BinaryAngle {
        BinaryAngle::from_fixed(self)
    }
    #[inline]
    fn uniform_in(lo: Self, hi: Self, mut below: impl FnMut(u64) -> u64) -> Self {
        let (lo, hi) = (lo.to_raw(), hi.to_raw());
        if hi <= lo {
            return Self::from_raw(lo);
        }
        let span = (i64::from(hi) - i64::from(lo)) as u64; // 1..2^32
        Self::from_raw((i64::from(lo) + below(span).min(span - 1) as i64) as i32)
    }
}

/// The plain pinned length of `c`: squares, then left-to-right adds, then
/// one sqrt.
#[inline]
fn pinned_length<const N: usize>(c: [Fp32Pinned; N]) -> Fp32Pinned {
    let mut sum = Fp32Pinned::ZERO;
    for (i, x) in c.into_iter().enumerate() {
        sum = if i == 0 { x * x } else { sum + x * x };
    }
    sum.sqrt()
}

impl SimScalar for Fp32Pinned {
    forward_to_inherent!(Fp32Pinned);
    const BACKEND: MathBackend = MathBackend::FloatPinned32;

    #[inline]
    fn to_hash_bits(self) -> u32 {
        self.to_hash_bits()
    }
    #[inline]
    fn wide_length<const N: usize>(c: [Self; N]) -> Self {
        pinned_length(c)
    }
    #[inline]
    fn wide_distance<const N: usize>(a: [Self; N], b: [Self; N]) -> Self {
        let mut d = a;
        for i in 0..N {
            d[i] = a[i] - b[i];
        }
        pinned_length(d)
    }
    #[inline]
    fn wide_normalize<const N: usize>(c: [Self; N]) -> [Self; N] {
        let len = pinned_length(c);
        if len == Self::ZERO {
            return [Self::ZERO; N];
        }
        c.map(|x| x / len)
    }
    #[inline]
    fn radians_from_angle(a: BinaryAngle) -> Self {
        a.to_pinned()
    }
    #[inline]
    fn angle_from_radians(self) -> BinaryAngle {
        BinaryAngle::from_pinned(self)
    }
    #[inline]
    fn uniform_in(lo: Self, hi: Self, mut below: impl FnMut(u64) -> u64) -> Self {
        let span = hi - lo;
        if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) || !span.is_finite() {
            return lo;
        }
        loop {
            // A 24-bit integer times 2^−24: exact.
            let u = Self::from_f32(below(1 << 24).min((1 << 24) - 1) as f32 / 16_777_216.0);
            let r = lo + span * u;
            if r < hi {
                return r;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generic_ops<S: SimScalar>() -> [u32; 12] {
        let two = S::from_i32(2);
        let third = S::from_ratio(1, 3);
        [
            (two + third).to_hash_bits(),
            (two - third).to_hash_bits(),
            (two * third).to_hash_bits(),
            (two / third).to_hash_bits(),
            (-third).to_hash_bits(),
            two.sqrt().to_hash_bits(),
            (-two).abs().to_hash_bits(),
            two.min(third).to_hash_bits(),
            two.max(third).to_hash_bits(),
            S::from_i32(5).clamp(third, two).to_hash_bits(),
            S::ZERO.lerp(two, third).to_hash_bits(),
            S::from_i32(7).to_hash_bits(),
        ]
    }

    #[test]
    fn fixed_impl_delegates_to_the_inherent_ops() {
        let two = Fpx16_16::from_i32(2);
        let third = Fpx16_16::from_ratio(1, 3);
        let expected = [
            two + third,
            two - third,
            two * third,
            two / third,
            -third,
            two.sqrt(),
            two,
            third,
            two,
            two,
            Fpx16_16::ZERO.lerp(two, third),
            Fpx16_16::from_i32(7),
        ]
        .map(|x| x.to_raw() as u32);
        assert_eq!(generic_ops::<Fpx16_16>(), expected);
        assert_eq!(
            <Fpx16_16 as SimScalar>::BACKEND,
            MathBackend::FixedPoint16_16
        );
    }

    #[test]
    fn pinned_impl_delegates_to_the_inherent_ops() {
        let two = 2.0f32;
        let third = 1.0f32 / 3.0;
        let expected = [
            two + third,
            two - third,
            two * third,
            two / third,
            -third,
            two.sqrt(),
            two,
            third,
            two,
            two,
            0.0 + (two - 0.0) * third,
            7.0,
        ]
        .map(f32::to_bits);
        assert_eq!(generic_ops::<Fp32Pinned>(), expected);
        assert_eq!(
            <Fp32Pinned as SimScalar>::BACKEND,
            MathBackend::FloatPinned32
        );
    }

    #[test]
    fn named_comparisons_match_the_backend_semantics() {
        let (a, b) = (Fpx16_16::ONE, Fpx16_16::from_i32(2));
        assert!(a.lt(b) && a.le(b) && !a.gt(b) && !a.ge(b) && a.not_equals(b));
        assert!(a.equals(a) && a.le(a) && a.ge(a));
        let nan = Fp32Pinned::NAN;
        let one = Fp32Pinned::ONE;
        for (x, y) in [(nan, one), (one, nan), (nan, nan)] {
            assert!(!x.lt(y) && !x.le(y) && !x.gt(y) && !x.ge(y));
            assert!(!x.equals(y) && x.not_equals(y));
            assert!(!SimScalar::is_ordered(x, y));
        }
        assert!(Fp32Pinned::from_f32(-0.0).equals(Fp32Pinned::ZERO));
    }

    #[test]
    fn pinned_wide_forms_are_the_plain_forms() {
        let c = [Fp32Pinned::from_f32(3.0), Fp32Pinned::from_f32(4.0)];
        assert_eq!(Fp32Pinned::wide_length(c).to_f32(), 5.0);
        assert_eq!(
            Fp32Pinned::wide_distance(c, [Fp32Pinned::ZERO; 2]).to_f32(),
            5.0
        );
        let n = Fp32Pinned::wide_normalize(c);
        assert_eq!([n[0].to_f32(), n[1].to_f32()], [3.0 / 5.0, 4.0 / 5.0]);
        assert_eq!(
            Fp32Pinned::wide_normalize([Fp32Pinned::ZERO; 3]),
            [Fp32Pinned::ZERO; 3]
        );
    }
}
