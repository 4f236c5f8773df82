//! [`Fp32Pinned`]: the pinned IEEE binary32 scalar (the opt-in backend).

use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use super::f32_bits::f32_from_parts;

/// An IEEE 754 binary32 number whose every operation is pinned: one
/// correctly rounded IEEE operation (round to nearest, ties to even) per
/// arithmetic op, in the documented order, never fused.
///
/// **No fused multiply-add, ever.** Rust never contracts `a * b + c` into an
/// FMA (unlike C compilers with `-ffp-contract=fast`); only an explicit
/// `mul_add` call fuses, and nothing in this type calls it — nor may sim
/// code (the determinism lint bans `mul_add`). `lerp` is two roundings and
/// `length` one per op; the FMA canary tests fail if that ever changes.
///
/// Policy (defined, not "whatever the CPU does"):
/// - Arithmetic (`+ - * /`, [`sqrt`](Self::sqrt)): IEEE binary32. A NaN
///   operand gives NaN; `0/0 = NaN`; `x/0 = ±inf` (no trap);
///   `inf − inf = NaN`; `inf × 0 = NaN`; `x/inf = ±0`; `sqrt(x < 0) = NaN`.
/// - Comparisons: `<`, `<=`, `>`, `>=`, `==` are false when either operand
///   is NaN, `!=` is true; NaN is not equal to itself. So this type is
///   `PartialEq`/`PartialOrd` only (no `Eq`, `Ord` or `Hash`); hash state
///   through [`to_hash_bits`](Self::to_hash_bits).
/// - [`clamp`](Self::clamp): NaN in → NaN out; `±inf` in → the bound.
/// - Signed zero follows IEEE: `−0 == +0`, `0 + −0 = +0`, `−1 × 0 = −0`.
/// - Denormals are first-class (no flush to zero): `sqrt` of the smallest
///   denormal is a finite denormal.
/// - No op signals an FP exception or changes the rounding mode.
///
/// Determinism scope: bit-exact across runs of the same build on the same
/// platform/ISA (cross-ISA is not promised until the detcheck matrix proves
/// it).
///
/// ```
/// use laige_core::Fp32Pinned;
///
/// let a = Fp32Pinned::from_f32(1.5);
/// let b = Fp32Pinned::from_f32(-0.25);
/// assert_eq!((a * b).to_f32(), -0.375);
/// assert!((Fp32Pinned::ZERO / Fp32Pinned::ZERO).is_nan());
/// assert_eq!((Fp32Pinned::ONE / Fp32Pinned::ZERO).to_f32(), f32::INFINITY);
/// let nan = Fp32Pinned::NAN;
/// assert!(nan != nan && !(nan < a) && !(nan >= a));
/// ```
#[derive(Clone, Copy, Default, PartialEq)]
#[repr(transparent)]
pub struct Fp32Pinned(f32);

/// The IEEE order of the `f32`s. Written out rather than derived: the
/// derived `<`, `>`, ... go through `partial_cmp` and match on its
/// `Option<Ordering>`, which LLVM does not always fold back into one
/// compare, and a loop with a branch per comparison is not vectorized.
/// Each method here is the one IEEE comparison (same results).
impl PartialOrd for Fp32Pinned {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(&other.0)
    }
    #[inline]
    fn lt(&self, other: &Self) -> bool {
        self.0 < other.0
    }
    #[inline]
    fn le(&self, other: &Self) -> bool {
        self.0 <= other.0
    }
    #[inline]
    fn gt(&self, other: &Self) -> bool {
        self.0 > other.0
    }
    #[inline]
    fn ge(&self, other: &Self) -> bool {
        self.0 >= other.0
    }
}

/// The canonical NaN bits [`Fp32Pinned::to_hash_bits`] maps every NaN to.
const CANONICAL_NAN_BITS: u32 = 0x7FC0_0000;

impl Fp32Pinned {
    /// Zero (`+0.0`).
    pub const ZERO: Self = Self(0.0);
    /// One.
    pub const ONE: Self = Self(1.0);
    /// The most negative finite value (`f32::MIN`).
    pub const MIN: Self = Self(f32::MIN);
    /// The largest finite value (`f32::MAX`).
    pub const MAX: Self = Self(f32::MAX);
    /// The smallest positive normal value (`f32::MIN_POSITIVE`).
    pub const MIN_POSITIVE: Self = Self(f32::MIN_POSITIVE);
    /// The gap between 1 and the next value (`f32::EPSILON`, 2^−23).
    pub const EPSILON: Self = Self(f32::EPSILON);
    /// `+inf`.
    pub const INFINITY: Self = Self(f32::INFINITY);
    /// `−inf`.
    pub const NEG_INFINITY: Self = Self(f32::NEG_INFINITY);
    /// A quiet NaN (bits `0x7FC0_0000`).
    pub const NAN: Self = Self(f32::from_bits(CANONICAL_NAN_BITS));

    /// Wraps an `f32` (no conversion; every `f32`, NaN included, is valid).
    #[inline]
    #[must_use]
    pub const fn from_f32(v: f32) -> Self {
        Self(v)
    }

    /// The `f32` value.
    #[inline]
    #[must_use]
    pub const fn to_f32(self) -> f32 {
        self.0
    }

    /// The value with the given IEEE bits.
    #[inline]
    #[must_use]
    pub const fn from_bits(bits: u32) -> Self {
        Self(f32::from_bits(bits))
    }

    /// The IEEE bits (NaN payloads and the sign of zero preserved).
    #[inline]
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        self.0.to_bits()
    }

    /// The bits for state hashing: [`to_bits`](Self::to_bits) with every NaN
    /// mapped to `0x7FC0_0000`, so NaN payload differences (which the ISA
    /// may choose) do not split hashes. `+0` and `−0` hash differently: they
    /// are different states (`1/−0 = −inf`).
    #[inline]
    #[must_use]
    pub const fn to_hash_bits(self) -> u32 {
        if self.0.is_nan() {
            CANONICAL_NAN_BITS
        } else {
            self.0.to_bits()
        }
    }

    /// The integer `v`, rounded to nearest binary32, ties to even (exact
    /// for `|v| <= 2^24`).
    #[inline]
    #[must_use]
    pub const fn from_i32(v: i32) -> Self {
        Self(v as f32)
    }

    /// The binary32 nearest to the exact rational `num / den` (one rounding,
    /// ties to even, computed in integers), so `from_ratio(1, 60)` is the
    /// float nearest to 1/60 even where `num` or `den` is not itself exact
    /// in `f32`. `den = 0` follows IEEE division: `±inf` for `num != 0`,
    /// NaN for `0/0`.
    ///
    /// ```
    /// use laige_core::Fp32Pinned;
    /// assert_eq!(Fp32Pinned::from_ratio(1, 60).to_f32(), 1.0 / 60.0);
    /// assert_eq!(Fp32Pinned::from_ratio(-3, 2).to_f32(), -1.5);
    /// assert!(Fp32Pinned::from_ratio(0, 0).is_nan());
    /// ```
    #[must_use]
    pub const fn from_ratio(num: i32, den: i32) -> Self {
        if den == 0 {
            return Self(if num > 0 {
                f32::INFINITY
            } else if num < 0 {
                f32::NEG_INFINITY
            } else {
                f32::NAN
            });
        }
        if num == 0 {
            // IEEE: 0 / negative = −0.
            return Self(if den < 0 { -0.0 } else { 0.0 });
        }
        let neg = (num < 0) != (den < 0);
        let n = num.unsigned_abs() as u64;
        let d = den.unsigned_abs() as u64;
        // Scale the numerator so its leading one is at bit 62: the quotient
        // is then >= 2^62 / 2^31 = 2^31, more than the 25 bits rounding needs.
        let shift = n.leading_zeros() as i32 - 1;
        let scaled = n << shift;
        let q = scaled / d;
        let sticky = !scaled.is_multiple_of(d);
        Self(f32_from_parts(neg, q, sticky, -shift))
    }

    /// The square root: IEEE, correctly rounded (`sqrt(−0) = −0`,
    /// `sqrt(x < 0) = NaN`, `sqrt(+inf) = +inf`).
    #[inline]
    #[must_use]
    pub fn sqrt(self) -> Self {
        Self(self.0.sqrt())
    }

    /// `|self|`: clears the sign bit (NaN stays NaN).
    #[inline]
    #[must_use]
    pub const fn abs(self) -> Self {
        Self(self.0.abs())
    }

    /// The smaller of the two, NaN-propagating (IEEE 754-2019 `minimum`): a
    /// NaN operand gives NaN (that operand), and `min(−0, +0) = −0`.
    #[inline]
    #[must_use]
    pub const fn min(self, other: Self) -> Self {
        if self.0.is_nan() {
            self
        } else if other.0.is_nan() || other.0 < self.0 {
            other
        } else if self.0 < other.0 {
            self
        } else if other.0.is_sign_negative() {
            // Equal: only ±0 can differ; prefer −0.
            other
        } else {
            self
        }
    }

    /// The larger of the two, NaN-propagating (IEEE 754-2019 `maximum`): a
    /// NaN operand gives NaN (that operand), and `max(−0, +0) = +0`.
    #[inline]
    #[must_use]
    pub const fn max(self, other: Self) -> Self {
        if self.0.is_nan() {
            self
        } else if other.0.is_nan() || other.0 > self.0 {
            other
        } else if self.0 > other.0 {
            self
        } else if other.0.is_sign_positive() {
            // Equal: only ±0 can differ; prefer +0.
            other
        } else {
            self
        }
    }

    /// `lo` if `self < lo`, else `hi` if `self > hi`, else `self`: NaN in →
    /// NaN out, `±inf` → the bound. Bounds must be finite with `lo <= hi`;
    /// other bounds are a caller error that still gives exactly that
    /// expression (never a panic).
    #[inline]
    #[must_use]
    pub const fn clamp(self, lo: Self, hi: Self) -> Self {
        if self.0 < lo.0 {
            lo
        } else if self.0 > hi.0 {
            hi
        } else {
            self
        }
    }

    /// Exactly `self + (b − self) × t`: one sub, one mul, one add, three
    /// IEEE roundings, never fused. `t` outside `[0, 1]` extrapolates.
    #[inline]
    #[must_use]
    pub fn lerp(self, b: Self, t: Self) -> Self {
        self + (b - self) * t
    }

    /// IEEE: true for any NaN.
    #[inline]
    #[must_use]
    pub const fn is_nan(self) -> bool {
        self.0.is_nan()
    }

    /// IEEE: true for `±inf`.
    #[inline]
    #[must_use]
    pub const fn is_inf(self) -> bool {
        self.0.is_infinite()
    }

    /// IEEE: true unless NaN or `±inf`.
    #[inline]
    #[must_use]
    pub const fn is_finite(self) -> bool {
        self.0.is_finite()
    }

    /// True when the two can be compared: neither is NaN.
    #[inline]
    #[must_use]
    pub const fn is_ordered(self, other: Self) -> bool {
        !self.0.is_nan() && !other.0.is_nan()
    }
}

impl Add for Fp32Pinned {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self(self.0 + rhs.0)
    }
}

impl Sub for Fp32Pinned {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self(self.0 - rhs.0)
    }
}

impl Mul for Fp32Pinned {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        Self(self.0 * rhs.0)
    }
}

impl Div for Fp32Pinned {
    type Output = Self;
    #[inline]
    fn div(self, rhs: Self) -> Self {
        Self(self.0 / rhs.0)
    }
}

impl Neg for Fp32Pinned {
    type Output = Self;
    /// Flips the sign bit (exact; `−(+0) = −0`, NaN stays NaN).
    #[inline]
    fn neg(self) -> Self {
        Self(-self.0)
    }
}

impl AddAssign for Fp32Pinned {
    #[inline]
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl SubAssign for Fp32Pinned {
    #[inline]
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}

impl MulAssign for Fp32Pinned {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        *self = *self * rhs;
    }
}

impl DivAssign for Fp32Pinned {
    #[inline]
    fn div_assign(&mut self, rhs: Self) {
        *self = *self / rhs;
    }
}

/// The `f32` text (`Display` of `f32`: shortest round-trip decimal).
impl fmt::Display for Fp32Pinned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// The `f32` debug text (`1.0`, `NaN`, `-0.0`).
impl fmt::Debug for Fp32Pinned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Fp32Pinned;

    /// Serialized as the plain `f32`.
    impl Serialize for Fp32Pinned {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f32(self.0)
        }
    }

    /// Deserialized from a plain `f32`.
    impl<'de> Deserialize<'de> for Fp32Pinned {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            f32::deserialize(d).map(Self)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::hint::black_box;

    use super::*;

    fn p(v: f32) -> Fp32Pinned {
        Fp32Pinned::from_f32(v)
    }

    fn bits(v: Fp32Pinned) -> u32 {
        v.to_bits()
    }

    #[test]
    fn arithmetic_is_ieee_binary32() {
        assert_eq!((p(0.1) + p(0.2)).to_f32(), 0.1f32 + 0.2f32);
        assert_eq!(bits(p(1.0) / p(3.0)), (1.0f32 / 3.0).to_bits());
        assert_eq!(bits(p(2.0).sqrt()), 2.0f32.sqrt().to_bits());
        assert_eq!(p(16_777_216.0) + p(1.0), p(16_777_216.0)); // ties to even
        assert_eq!(p(16_777_216.0) + p(3.0), p(16_777_220.0));
    }

    #[test]
    fn nan_and_inf_policy() {
        let nan = Fp32Pinned::NAN;
        let inf = Fp32Pinned::INFINITY;
        let one = Fp32Pinned::ONE;
        let zero = Fp32Pinned::ZERO;
        assert!((nan + one).is_nan());
        assert!((zero / zero).is_nan());
        assert_eq!(bits(one / zero), f32::INFINITY.to_bits());
        assert_eq!(bits(-one / zero), f32::NEG_INFINITY.to_bits());
        assert!((inf - inf).is_nan());
        assert!((inf * zero).is_nan());
        assert_eq!(bits(one / inf), 0);
        assert_eq!(bits(-one / inf), (-0.0f32).to_bits());
        assert!((-one).sqrt().is_nan());
        assert_eq!(bits(p(-0.0).sqrt()), (-0.0f32).to_bits());
        assert_eq!(inf.sqrt(), inf);
        assert!(nan.is_nan() && !nan.is_inf() && !nan.is_finite());
        assert!(inf.is_inf() && !inf.is_finite() && !inf.is_nan());
        assert!(one.is_finite());
        assert!(one.is_ordered(inf) && !one.is_ordered(nan) && !nan.is_ordered(one));
    }

    #[test]
    #[expect(
        clippy::neg_cmp_op_on_partial_ord,
        reason = "IEEE comparison semantics are the point"
    )]
    fn comparisons_are_false_on_nan() {
        let nan = Fp32Pinned::NAN;
        let one = Fp32Pinned::ONE;
        assert!(!(nan < one) && !(nan <= one) && !(nan > one) && !(nan >= one));
        assert!(!(one < nan) && !(one == nan) && one != nan);
        assert!(nan != nan && !(nan == nan));
        assert!(p(-0.0) == p(0.0));
        assert_eq!(nan.partial_cmp(&one), None);
    }

    #[test]
    fn signed_zero_follows_ieee() {
        assert_eq!(bits(p(0.0) + p(-0.0)), 0);
        assert_eq!(bits(p(-0.0) + p(-0.0)), (-0.0f32).to_bits());
        assert_eq!(bits(p(-1.0) * p(0.0)), (-0.0f32).to_bits());
        assert_eq!(bits(-Fp32Pinned::ZERO), (-0.0f32).to_bits());
        assert_eq!(bits(p(1.0) - p(1.0)), 0);
    }

    #[test]
    fn denormals_are_not_flushed() {
        let tiny = Fp32Pinned::from_bits(1); // 2^−149
        assert!(tiny.to_f32() > 0.0);
        let root = tiny.sqrt();
        assert!(root.is_finite() && root.to_f32() > 0.0);
        assert_eq!(bits(tiny + tiny), 2);
        assert_eq!(bits(Fp32Pinned::MIN_POSITIVE / p(2.0)), 0x0040_0000);
        let denorm = Fp32Pinned::from_bits(0x0000_0100);
        assert_eq!(
            bits(denorm.sqrt()),
            (f32::from_bits(0x100)).sqrt().to_bits()
        );
        // Denormal results round to nearest even, not to zero: 2^−149 / 2
        // is the tie between 0 and 2^−149 (→ 0); 3·2^−149 / 2 → 2·2^−149.
        assert_eq!(bits(tiny * p(0.5)), 0);
        assert_eq!(bits(Fp32Pinned::from_bits(3) * p(0.5)), 2);
        assert_eq!(bits(Fp32Pinned::from_bits(3) / p(4.0)), 1);
    }

    #[test]
    fn clamp_maps_nan_to_nan_and_inf_to_the_bound() {
        let (lo, hi) = (p(-1.0), p(2.0));
        assert!(Fp32Pinned::NAN.clamp(lo, hi).is_nan());
        assert_eq!(Fp32Pinned::INFINITY.clamp(lo, hi), hi);
        assert_eq!(Fp32Pinned::NEG_INFINITY.clamp(lo, hi), lo);
        assert_eq!(p(0.5).clamp(lo, hi), p(0.5));
        assert_eq!(p(9.0).clamp(lo, hi), hi);
        // Bad bounds: the expression, no panic.
        assert_eq!(p(0.5).clamp(hi, lo), hi);
        assert_eq!(p(0.5).clamp(Fp32Pinned::NAN, hi), p(0.5));
    }

    #[test]
    fn min_max_propagate_nan_and_order_signed_zero() {
        let nan = Fp32Pinned::NAN;
        let one = Fp32Pinned::ONE;
        assert!(nan.min(one).is_nan() && one.min(nan).is_nan());
        assert!(nan.max(one).is_nan() && one.max(nan).is_nan());
        assert_eq!(p(1.0).min(p(2.0)), p(1.0));
        assert_eq!(p(1.0).max(p(2.0)), p(2.0));
        assert_eq!(bits(p(0.0).min(p(-0.0))), (-0.0f32).to_bits());
        assert_eq!(bits(p(-0.0).min(p(0.0))), (-0.0f32).to_bits());
        assert_eq!(bits(p(0.0).max(p(-0.0))), 0);
        assert_eq!(bits(p(-0.0).max(p(0.0))), 0);
    }

    #[test]
    fn from_ratio_is_correctly_rounded() {
        assert_eq!(Fp32Pinned::from_ratio(1, 60).to_f32(), 1.0 / 60.0);
        assert_eq!(Fp32Pinned::from_ratio(2, 3).to_f32(), 2.0 / 3.0);
        assert_eq!(Fp32Pinned::from_ratio(-7, 2).to_f32(), -3.5);
        assert_eq!(bits(Fp32Pinned::from_ratio(0, -5)), (-0.0f32).to_bits());
        assert_eq!(Fp32Pinned::from_ratio(1, 0), Fp32Pinned::INFINITY);
        assert_eq!(Fp32Pinned::from_ratio(-1, 0), Fp32Pinned::NEG_INFINITY);
        // Operands not exact in f32: one rounding of the exact ratio.
        let got = Fp32Pinned::from_ratio(i32::MAX, 3).to_f32();
        assert!(is_nearest_f32(i32::MAX, 3, got));
        assert_eq!(
            Fp32Pinned::from_ratio(i32::MIN, -1).to_f32(),
            2_147_483_648.0
        );
        assert_eq!(
            Fp32Pinned::from_ratio(1, i32::MIN).to_f32(),
            -1.0 / 2_147_483_648.0
        );
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            x ^= x << 7;
            x ^= x >> 9;
            let num = x as i32;
            let den = (x >> 32) as i32 >> (x % 31);
            if den != 0 {
                let got = Fp32Pinned::from_ratio(num, den).to_f32();
                assert!(is_nearest_f32(num, den, got), "{num} / {den} -> {got}");
            }
        }
    }

    /// Exact check that `r` is the binary32 nearest to `num / den` (ties
    /// to even), in `i128`: with `r = M·2^E`, compare `num/den` with `r`
    /// and the half-ulp on either side, all scaled by `den·2^(K+1)`.
    fn is_nearest_f32(num: i32, den: i32, r: f32) -> bool {
        let neg = (num < 0) != (den < 0);
        if num == 0 {
            return r == 0.0;
        }
        if r.is_sign_negative() != neg || !r.is_normal() {
            return false;
        }
        let b = r.to_bits();
        let m = i128::from((b & 0x7F_FFFF) | 0x80_0000);
        let e = ((b >> 23) & 0xFF) as i32 - 150;
        let (n, d) = (
            i128::from(num.unsigned_abs()),
            i128::from(den.unsigned_abs()),
        );
        const K: i32 = 64;
        let x = n << (K + 1); // 2·(n/d)·d·2^K
        let rv = (m * d) << (K + 1 + e); // 2·r·d·2^K
        let half_ulp = d << (K + e); // (ulp/2)·2·d·2^K
        let diff = x - rv;
        let below_half = if m == 0x80_0000 {
            half_ulp / 2
        } else {
            half_ulp
        };
        if diff > 0 {
            diff < half_ulp || (diff == half_ulp && m % 2 == 0)
        } else {
            -diff < below_half || (-diff == below_half && m % 2 == 0)
        }
    }

    #[test]
    fn hash_bits_canonicalize_nan_only() {
        assert_eq!(
            Fp32Pinned::from_bits(0x7FC0_1234).to_hash_bits(),
            0x7FC0_0000
        );
        assert_eq!(
            Fp32Pinned::from_bits(0xFFFF_FFFF).to_hash_bits(),
            0x7FC0_0000
        );
        assert_eq!(p(-0.0).to_hash_bits(), 0x8000_0000);
        assert_eq!(p(1.0).to_hash_bits(), 1.0f32.to_bits());
    }

    /// `x·x` for x = 1 + 2^−12 is 1 + 2^−11 + 2^−24: the 2^−24 is exactly
    /// half an ulp of 1, so the unfused product rounds (to even) to
    /// 1 + 2^−11, while a fused multiply-add keeps it.
    const CANARY: f32 = 1.0 + 1.0 / 4096.0;

    #[test]
    fn dot_product_canary_detects_fma_contraction() {
        // x·x + (1 · −1): unfused 2^−11; fused 2^−11 + 2^−24.
        let x = p(black_box(CANARY));
        let (one, minus_one) = (p(black_box(1.0)), p(black_box(-1.0)));
        let dot = x * x + one * minus_one;
        assert_eq!(bits(dot), (1.0f32 / 2048.0).to_bits());
        let fused = CANARY.mul_add(CANARY, -1.0);
        assert_ne!(
            bits(dot),
            fused.to_bits(),
            "the inputs must tell fused from unfused"
        );
    }

    #[test]
    fn lerp_canary_is_not_fma_fused() {
        // a = −1, b = 2^−12, t = 1 + 2^−12: b − a = 1 + 2^−12 exactly;
        // (b − a)·t rounds to 1 + 2^−11; + a → 2^−11. Fused: 2^−11 + 2^−24.
        let a = p(black_box(-1.0));
        let b = p(black_box(1.0 / 4096.0));
        let t = p(black_box(CANARY));
        let l = a.lerp(b, t);
        assert_eq!(bits(l), (1.0f32 / 2048.0).to_bits());
        let fused = (b - a).to_f32().mul_add(t.to_f32(), a.to_f32());
        assert_ne!(
            bits(l),
            fused.to_bits(),
            "the inputs must tell fused from unfused"
        );
    }

    #[test]
    fn display_and_debug_are_the_f32_text() {
        assert_eq!(p(1.5).to_string(), "1.5");
        assert_eq!(format!("{:?}", p(1.0)), "1.0");
        assert_eq!(format!("{:?}", Fp32Pinned::NAN), "NaN");
        assert_eq!(format!("{:.2}", p(0.125)), "0.12");
    }

    #[test]
    fn assign_operators_match_the_binary_ones() {
        let (a, b) = (p(1.25), p(-3.5));
        let mut x = a;
        x += b;
        assert_eq!(x, a + b);
        x = a;
        x -= b;
        assert_eq!(x, a - b);
        x = a;
        x *= b;
        assert_eq!(x, a * b);
        x = a;
        x /= b;
        assert_eq!(x, a / b);
    }
}
