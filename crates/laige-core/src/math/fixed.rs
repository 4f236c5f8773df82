//! [`Fpx16_16`]: the Q16.16 fixed-point scalar (the default backend) — the
//! type, its constants and its arithmetic. Conversions live in
//! `fixed_convert.rs`, text in `fixed_text.rs`.

use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use super::isqrt::isqrt_round_u62;

/// A Q16.16 fixed-point number: an `i32` raw value, value = raw / 2^16.
///
/// The default deterministic backend: every operation is integer
/// arithmetic defined for every input, so results are bit-identical on
/// every build, platform, ISA and compiler. No operation panics, in debug or
/// release, for any input.
///
/// | Property | Value |
/// |---|---|
/// | Range | [`MIN`](Self::MIN) = −32768.0 ..= [`MAX`](Self::MAX) = 32767.9999847412109375 |
/// | Resolution | [`EPSILON`](Self::EPSILON) = 2^−16 ≈ 1.5259e−5 |
/// | Rounding | round to nearest, ties to even (`*`, `/`, [`sqrt`](Self::sqrt), [`to_i32`](Self::to_i32), [`from_f32`](Self::from_f32), [`from_ratio`](Self::from_ratio), parsing) |
/// | Overflow | saturates to `MIN`/`MAX`; never wraps |
/// | `x / 0` | `MAX` for `x > 0`, `−MAX` (raw `−0x7FFF_FFFF`) for `x < 0`, `0 / 0 = 0` |
/// | Order | total (`Ord`, `Eq`, `Hash`: raw integer order) |
///
/// The operators are the documented ops: `+`, `-` saturate; `*` and `/`
/// compute the exact result in `i64`, round it to nearest (ties to even)
/// and saturate; unary `-` saturates only for `MIN` (`-MIN = MAX`). The
/// exact ties: `*` — a product whose low 16 bits are exactly `0x8000`;
/// `/` — a remainder of exactly half the divisor.
///
/// ```
/// use laige_core::Fpx16_16;
///
/// let a = Fpx16_16::from_i32(3);
/// let b: Fpx16_16 = "0.5".parse()?;
/// assert_eq!(a * b, "1.5".parse()?);
/// assert_eq!((a / b).to_i32(), 6);
/// assert_eq!(Fpx16_16::MAX + Fpx16_16::ONE, Fpx16_16::MAX); // saturates
/// assert_eq!(Fpx16_16::ONE / Fpx16_16::ZERO, Fpx16_16::MAX); // defined
/// assert_eq!(Fpx16_16::from_i32(2).sqrt().to_string(), "1.41422");
/// # Ok::<(), laige_core::Error>(())
/// ```
///
/// `Ord::clamp` would panic on `lo > hi`; the inherent
/// [`clamp`](Self::clamp) (what `x.clamp(lo, hi)` calls) never does.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Fpx16_16(i32);

/// Saturates an `i64` to the `i32` range.
#[inline(always)]
pub(crate) const fn saturate_i64(v: i64) -> i32 {
    if v > i32::MAX as i64 {
        i32::MAX
    } else if v < i32::MIN as i64 {
        i32::MIN
    } else {
        v as i32
    }
}

/// `p / 2^16` rounded to nearest, ties to even (`|p| <= 2^62`).
///
/// Adding `0x7FFF` plus the parity of the floor carries into bit 16 exactly
/// when the low 16 bits exceed `0x8000`, or equal it and the floor is odd.
#[inline(always)]
pub(crate) const fn round_shr16(p: i64) -> i64 {
    (p + 0x7FFF + ((p >> 16) & 1)) >> 16
}

/// `n / d` rounded to nearest, ties to even. `d != 0`, `|n| <= 2^62`,
/// `|d| <= 2^62` (so neither the quotient nor `2 * |r|` overflows).
#[inline(always)]
pub(crate) const fn div_round_i64(n: i64, d: i64) -> i64 {
    let q = n / d;
    let r = n % d;
    let twice_r = r.unsigned_abs() << 1;
    let abs_d = d.unsigned_abs();
    if twice_r > abs_d || (twice_r == abs_d && (q & 1) != 0) {
        // The exact quotient is beyond q, on the side of its sign.
        if (n ^ d) < 0 { q - 1 } else { q + 1 }
    } else {
        q
    }
}

/// The raw result of a Q16.16 division by zero: `MAX`, `-MAX` or `0`.
#[inline(always)]
pub(crate) const fn div_by_zero_raw(numerator_sign: i64) -> i32 {
    if numerator_sign > 0 {
        i32::MAX
    } else if numerator_sign < 0 {
        -i32::MAX
    } else {
        0
    }
}

impl Fpx16_16 {
    /// The smallest value, −32768.0 (raw `i32::MIN`).
    pub const MIN: Self = Self(i32::MIN);
    /// The largest value, 32767.9999847412109375 (raw `i32::MAX`).
    pub const MAX: Self = Self(i32::MAX);
    /// Zero.
    pub const ZERO: Self = Self(0);
    /// One (raw `0x1_0000`).
    pub const ONE: Self = Self(1 << 16);
    /// The resolution, 2^−16 (raw 1): the smallest positive value.
    pub const EPSILON: Self = Self(1);

    /// The value `raw / 2^16` (the exact bits; no rounding).
    #[inline]
    #[must_use]
    pub const fn from_raw(raw: i32) -> Self {
        Self(raw)
    }

    /// The raw `i32` (value × 2^16), e.g. for hashing or serialization.
    #[inline]
    #[must_use]
    pub const fn to_raw(self) -> i32 {
        self.0
    }

    /// `self + rhs`, saturated (the `+` operator).
    #[inline]
    #[must_use]
    pub const fn saturating_add(self, rhs: Self) -> Self {
        Self(self.0.saturating_add(rhs.0))
    }

    /// `self - rhs`, saturated (the `-` operator).
    #[inline]
    #[must_use]
    pub const fn saturating_sub(self, rhs: Self) -> Self {
        Self(self.0.saturating_sub(rhs.0))
    }

    /// `self × rhs` (the `*` operator): the exact `i64` product, rounded to
    /// nearest 2^−16 with ties to even (low 16 bits exactly `0x8000`), then
    /// saturated. `MIN × MIN = MAX`.
    #[inline]
    #[must_use]
    pub const fn saturating_mul(self, rhs: Self) -> Self {
        // Computed on magnitudes: |a|·|b| is exact in u64 (<= 2^62), and
        // ties-to-even is symmetric, so rounding the magnitude and then
        // applying the sign equals rounding the signed product. (The
        // unsigned 32×32→64 form also vectorizes on baseline x86-64, where
        // the signed one does not.)
        let sign = (self.0 ^ rhs.0) >> 31; // 0, or −1 for a negative product
        let p = self.0.unsigned_abs() as u64 * rhs.0.unsigned_abs() as u64;
        // Round to nearest, ties to even: `p + 0x7FFF + bit16(p)` carries
        // into bit 16 exactly when the low 16 bits exceed 0x8000, or equal
        // it and bit 16 is odd. That sum >> 16 is the rounded magnitude; it
        // saturates (>= 2^31) exactly when the sum is >= 2^47.
        //
        // The same addition adds SAT_BIAS = 2^63 − 2^47, a multiple of 2^16
        // (the rounding is untouched), so that no 64-bit compare is needed:
        // the biased sum is at most 2^62 + 2^15 + SAT_BIAS < 2^64 (no
        // overflow), its bit 63 is set exactly when the magnitude
        // saturates, and when it does not, its bits 16..47 are the
        // magnitude (< 2^31) plus 2^31.
        const SAT_BIAS: u64 = (1 << 63) - (1 << 47);
        let t = p + (0x7FFF + SAT_BIAS) + ((p >> 16) & 1);
        // −1 when saturated, else 0: bit 63 spread by a 32-bit arithmetic
        // shift of the high word.
        let sat = ((t >> 32) as i32) >> 31;
        // Not saturated: biased = mag + 2^31 (mod 2^32), and
        // (biased + sign) ^ sign ^ 2^31 = (mag + sign) ^ sign: `mag` for
        // sign 0, ~(mag − 1) = −mag for sign −1. Saturated: all ones ^ sign
        // ^ 2^31 = i32::MAX ^ sign: MAX, or MIN (exact for −2^31) when
        // negative. Branch-free, and only 32-bit lanes after the 64-bit
        // shifts and adds (it vectorizes without a 64-bit compare on SSE2).
        let biased = (t >> 16) as i32;
        Self((biased.wrapping_add(sign) | sat) ^ (sign ^ i32::MIN))
    }

    /// `self / rhs` (the `/` operator): `(self.raw << 16) / rhs.raw`
    /// computed in `i64`, rounded to nearest with ties to even (a remainder
    /// of exactly half the divisor), then saturated (`MIN / −1 = MAX`).
    /// Division by zero: `MAX` for `self > 0`, `−MAX` (raw `−0x7FFF_FFFF`)
    /// for `self < 0`, and `0 / 0 = 0`.
    #[inline]
    #[must_use]
    pub const fn saturating_div(self, rhs: Self) -> Self {
        if rhs.0 == 0 {
            return Self(div_by_zero_raw(self.0 as i64));
        }
        Self(saturate_i64(div_round_i64(
            (self.0 as i64) << 16,
            rhs.0 as i64,
        )))
    }

    /// `−self`, saturated (unary `-`): `−MIN = MAX`, the only saturating case.
    #[inline]
    #[must_use]
    pub const fn saturating_neg(self) -> Self {
        Self(self.0.saturating_neg())
    }

    /// `|self|`, saturated: `abs(MIN) = MAX`.
    #[inline]
    #[must_use]
    pub const fn abs(self) -> Self {
        Self(self.0.saturating_abs())
    }

    /// The square root, rounded to nearest 2^−16: `round(sqrt(raw × 2^16))`
    /// (an exact tie cannot occur), decided in integers: a binary64 seed
    /// that one exact integer comparison accepts (an exact search settles
    /// any seed it rejects), so the bits are the same on every platform.
    /// The result is in `[0, 181.0193]`; `sqrt(MAX)` is raw 11863283.
    ///
    /// **Negative input returns zero** (the type has no NaN; zero is the
    /// value nearest to any real part of the result).
    #[inline]
    #[must_use]
    pub fn sqrt(self) -> Self {
        // A negative raw becomes 0, whose root is 0. raw << 16 < 2^47; its
        // rounded root < 2^24 fits in i32.
        Self(isqrt_round_u62((self.0.max(0) as u64) << 16) as i32)
    }

    /// The smaller of the two (total order).
    #[inline]
    #[must_use]
    pub const fn min(self, other: Self) -> Self {
        if other.0 < self.0 { other } else { self }
    }

    /// The larger of the two (total order).
    #[inline]
    #[must_use]
    pub const fn max(self, other: Self) -> Self {
        if other.0 > self.0 { other } else { self }
    }

    /// Plain total-order bounding: `lo` if `self < lo`, else `hi` if
    /// `self > hi`, else `self`. Never panics: with `lo > hi` (a caller
    /// error) the result is still exactly that expression.
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

    /// Exactly `self + (b − self) × t` with the saturating, rounded ops: one
    /// sub, one mul, one add. `t` outside `[0, 1]` extrapolates by the same
    /// expression. `lerp(a, b, 0) = a` always; `lerp(a, b, 1) = b` whenever
    /// `b − a` does not saturate.
    #[inline]
    #[must_use]
    pub const fn lerp(self, b: Self, t: Self) -> Self {
        self.saturating_add(b.saturating_sub(self).saturating_mul(t))
    }

    /// Always `false`: Q16.16 has no NaN.
    #[inline]
    #[must_use]
    pub const fn is_nan(self) -> bool {
        false
    }

    /// Always `false`: Q16.16 has no infinities.
    #[inline]
    #[must_use]
    pub const fn is_inf(self) -> bool {
        false
    }

    /// Always `true`: every Q16.16 value is finite.
    #[inline]
    #[must_use]
    pub const fn is_finite(self) -> bool {
        true
    }

    /// Always `true`: every pair of Q16.16 values is ordered.
    #[inline]
    #[must_use]
    pub const fn is_ordered(self, other: Self) -> bool {
        let _ = other;
        true
    }
}

impl Add for Fpx16_16 {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        self.saturating_add(rhs)
    }
}

impl Sub for Fpx16_16 {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        self.saturating_sub(rhs)
    }
}

impl Mul for Fpx16_16 {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        self.saturating_mul(rhs)
    }
}

impl Div for Fpx16_16 {
    type Output = Self;
    #[inline]
    fn div(self, rhs: Self) -> Self {
        self.saturating_div(rhs)
    }
}

impl Neg for Fpx16_16 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        self.saturating_neg()
    }
}

impl AddAssign for Fpx16_16 {
    #[inline]
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl SubAssign for Fpx16_16 {
    #[inline]
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}

impl MulAssign for Fpx16_16 {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        *self = *self * rhs;
    }
}

impl DivAssign for Fpx16_16 {
    #[inline]
    fn div_assign(&mut self, rhs: Self) {
        *self = *self / rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(raw: i32) -> Fpx16_16 {
        Fpx16_16::from_raw(raw)
    }

    #[test]
    fn constants_have_the_documented_raw_values() {
        assert_eq!(Fpx16_16::MIN.to_raw(), i32::MIN);
        assert_eq!(Fpx16_16::MAX.to_raw(), i32::MAX);
        assert_eq!(Fpx16_16::ZERO.to_raw(), 0);
        assert_eq!(Fpx16_16::ONE.to_raw(), 65536);
        assert_eq!(Fpx16_16::EPSILON.to_raw(), 1);
        assert_eq!(Fpx16_16::default(), Fpx16_16::ZERO);
    }

    #[test]
    fn add_and_sub_saturate() {
        assert_eq!(Fpx16_16::MAX + Fpx16_16::MAX, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN - Fpx16_16::MAX, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::MIN + Fpx16_16::MIN, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::MAX - Fpx16_16::MIN, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MAX + Fpx16_16::EPSILON, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN - Fpx16_16::EPSILON, Fpx16_16::MIN);
        assert_eq!(r(i32::MAX - 1) + Fpx16_16::EPSILON, Fpx16_16::MAX);
        assert_eq!(r(3) + r(-5), r(-2));
        assert_eq!(r(3) - r(5), r(-2));
    }

    #[test]
    fn mul_rounds_ties_to_even() {
        // raw 1 × raw 0x8000 = 0x8000 exactly: the tie between 0 and 1 → 0.
        assert_eq!(r(1) * r(0x8000), r(0));
        // raw 3 × raw 0x8000 = 0x1_8000: tie between 1 and 2 → 2.
        assert_eq!(r(3) * r(0x8000), r(2));
        // raw 5 × raw 0x8000 = 0x2_8000: tie between 2 and 3 → 2.
        assert_eq!(r(5) * r(0x8000), r(2));
        // Negative ties are symmetric: −0x8000 → 0, −0x1_8000 → −2.
        assert_eq!(r(-1) * r(0x8000), r(0));
        assert_eq!(r(-3) * r(0x8000), r(-2));
        assert_eq!(r(-5) * r(0x8000), r(-2));
        // Just off the tie rounds to nearest.
        assert_eq!(r(1) * r(0x8001), r(1));
        assert_eq!(r(1) * r(0x7FFF), r(0));
        assert_eq!(r(-1) * r(0x8001), r(-1));
        // 1.5 × 1.5 = 2.25 exactly.
        assert_eq!(r(0x1_8000) * r(0x1_8000), r(0x2_4000));
    }

    #[test]
    fn mul_saturates() {
        assert_eq!(Fpx16_16::MIN * Fpx16_16::MIN, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MAX * Fpx16_16::MAX, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN * Fpx16_16::MAX, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::MIN * -Fpx16_16::ONE, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN * Fpx16_16::ONE, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::MAX * -Fpx16_16::ONE, r(-i32::MAX));
        // 181.02 ≈ sqrt(32768): 181² fits, 182² saturates.
        let a = Fpx16_16::from_i32(181);
        assert_eq!((a * a).to_raw(), 32761 << 16);
        let b = Fpx16_16::from_i32(182);
        assert_eq!(b * b, Fpx16_16::MAX);
        assert_eq!(-b * b, Fpx16_16::MIN);
    }

    /// The previous formulation of `saturating_mul` (a 64-bit saturation
    /// test and a select), kept as the reference the branch-free one must
    /// match bit for bit.
    fn mul_reference(a: i32, b: i32) -> i32 {
        let sign = (a ^ b) >> 31;
        let p = a.unsigned_abs() as u64 * b.unsigned_abs() as u64;
        let t = p + 0x7FFF + ((p >> 16) & 1);
        if t >> 47 != 0 {
            i32::MAX ^ sign
        } else {
            let mag = (t >> 16) as i32;
            (mag ^ sign).wrapping_sub(sign)
        }
    }

    /// `a × b` through the operator, in all four sign combinations and both
    /// operand orders, against [`mul_reference`].
    fn assert_mul_matches_reference(a: i32, b: i32) {
        for (x, y) in [(a, b), (b, a)] {
            for (x, y) in [
                (x, y),
                (x.wrapping_neg(), y),
                (x, y.wrapping_neg()),
                (x.wrapping_neg(), y.wrapping_neg()),
            ] {
                assert_eq!(
                    (r(x) * r(y)).to_raw(),
                    mul_reference(x, y),
                    "raw {x} × raw {y}"
                );
            }
        }
    }

    /// The `i`-th of a sequence of 64-bit values scattered over the whole
    /// range (a Weyl step through a multiply-xorshift mix): sweep inputs,
    /// reproducible. Random pairs against the reference are the job of
    /// `tests/math_differential.rs`.
    fn scattered(i: u64) -> u64 {
        let z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (z ^ (z >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }

    /// Raws on and around every power of two and the named boundaries:
    /// ±(2^k + d) for d in −3..=3, the extremes, the unit and the half.
    fn structured_raws() -> Vec<i32> {
        let mut v = vec![0, 1, 2, 3, i32::MAX, i32::MAX - 1, i32::MIN, i32::MIN + 1];
        for k in 0..=31u32 {
            for d in -3i64..=3 {
                let m = (1i64 << k) + d;
                for x in [m, -m] {
                    if let Ok(x) = i32::try_from(x) {
                        v.push(x);
                    }
                }
            }
        }
        for c in [
            0x8000i64,
            0x1_0000,
            0x1_8000,
            181 << 16,
            182 << 16,
            11_863_283,
        ] {
            for d in -2i64..=2 {
                v.push((c + d) as i32);
                v.push(-(c + d) as i32);
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn mul_at_the_saturation_boundary() {
        // (a, b, a × b as raw): |a·b| around 2^47 − 2^15, where the rounded
        // magnitude goes from 2^31 − 1 (MAX / −MAX) to 2^31 (MAX / MIN).
        let cases: [(i32, i32, i32, i32); 11] = [
            // 2^47 − 2^15: a tie, floor 2^31 − 1 odd → 2^31: saturates.
            (65537, 2_147_450_880, i32::MAX, i32::MIN),
            // 2^47 − 2^15 − 1: just below that tie → 2^31 − 1.
            (88513, 1_590_020_543, i32::MAX, -i32::MAX),
            // 2^47 − 2^15 + 3: above it → 2^31: saturates.
            (120_153, 1_171_318_971, i32::MAX, i32::MIN),
            // 2^47 − 3·2^15: a tie, floor 2^31 − 2 even → stays.
            (73928, 1_903_710_208, i32::MAX - 1, -(i32::MAX - 1)),
            // 2^47 − 3·2^15 + 1: just above that tie → 2^31 − 1.
            (66049, 2_130_804_225, i32::MAX, -i32::MAX),
            // 2^47 − 3·2^15 − 1: just below it → 2^31 − 2.
            (65537, 2_147_450_879, i32::MAX - 1, -(i32::MAX - 1)),
            // 2^47 − 2^16 (ONE × MAX) and 2^47 − 2^16 + 2: exact, 2^31 − 1.
            (65536, i32::MAX, i32::MAX, -i32::MAX),
            (65538, 2_147_418_113, i32::MAX, -i32::MAX),
            // 2^47 − 1, 2^47 − 2, 2^47 + 2: round to 2^31 or above.
            (10_610_063, 13_264_529, i32::MAX, i32::MIN),
            (178_481, 788_529_246, i32::MAX, i32::MIN),
            (151_345, 929_911_714, i32::MAX, i32::MIN),
        ];
        for (a, b, pos, neg) in cases {
            assert_eq!((r(a) * r(b)).to_raw(), pos, "{a} × {b}");
            assert_eq!((r(b) * r(a)).to_raw(), pos, "{b} × {a}");
            assert_eq!((r(-a) * r(b)).to_raw(), neg, "−{a} × {b}");
            assert_eq!((r(a) * r(-b)).to_raw(), neg, "{a} × −{b}");
            assert_eq!((r(-a) * r(-b)).to_raw(), pos, "−{a} × −{b}");
            assert_mul_matches_reference(a, b);
        }
        // The extremes: MIN × MIN = MAX, MIN × ±ONE, MAX × −ONE, MIN × ε.
        assert_eq!(Fpx16_16::MIN * Fpx16_16::MIN, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN * Fpx16_16::ONE, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::ONE * Fpx16_16::MIN, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::MIN * -Fpx16_16::ONE, Fpx16_16::MAX);
        assert_eq!((Fpx16_16::MAX * -Fpx16_16::ONE).to_raw(), -i32::MAX);
        assert_eq!((Fpx16_16::MIN * Fpx16_16::EPSILON).to_raw(), -0x8000);
        assert_eq!((Fpx16_16::MIN * -Fpx16_16::EPSILON).to_raw(), 0x8000);
        assert_eq!(Fpx16_16::MIN * Fpx16_16::ZERO, Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::MIN * r(2), r(-0x1_0000));
    }

    #[test]
    fn mul_ties_at_large_magnitudes() {
        // a = 2^15·x (x odd), b odd: the product's low 17 bits are 0x8000
        // (x·b ≡ 1 mod 4: floor even, stays) or 0x1_8000 (≡ 3: floor odd,
        // rounds up), at every magnitude up to the boundary.
        // 0x3FFF_8000 × 3 = 0xBFFE_8000: floor 0xBFFE even → stays.
        assert_eq!((r(0x3FFF_8000) * r(3)).to_raw(), 0xBFFE);
        // × 5 = 0x1_3FFD_8000: floor 0x1_3FFD odd → 0x1_3FFE.
        assert_eq!((r(0x3FFF_8000) * r(5)).to_raw(), 0x1_3FFE);
        // 0x7FFF_8000 × 0x8001 = 0x4000_3FFF_8000: odd floor → 0x4000_4000.
        assert_eq!((r(0x7FFF_8000) * r(0x8001)).to_raw(), 0x4000_4000);
        assert_eq!((r(-0x7FFF_8000) * r(0x8001)).to_raw(), -0x4000_4000);
        // × 0x8003 = 0x4001_3FFE_8000: even floor → 0x4001_3FFE.
        assert_eq!((r(0x7FFF_8000) * r(0x8003)).to_raw(), 0x4001_3FFE);
        assert_eq!((r(0x7FFF_8000) * r(-0x8003)).to_raw(), -0x4001_3FFE);
        // × 0xFFFF = 0x7FFF_0000_8000: even floor → 0x7FFF_0000.
        assert_eq!((r(0x7FFF_8000) * r(0xFFFF)).to_raw(), 0x7FFF_0000);
        // × 0x1_0001 = 0x7FFF_FFFF_8000: odd floor 2^31 − 1 → 2^31: MAX,
        // and exactly MIN when negative.
        assert_eq!(r(0x7FFF_8000) * r(0x1_0001), Fpx16_16::MAX);
        assert_eq!(r(-0x7FFF_8000) * r(0x1_0001), Fpx16_16::MIN);
        for i in 0..20_000_u64 {
            let v = scattered(i);
            let x = ((v as u32) & 0xFFFF) | 1; // odd, 2^15·x < 2^31
            let b = ((v >> 32) as u32 >> (v as u32 >> 27)) | 1; // odd
            assert_mul_matches_reference((x << 15) as i32, b as i32);
        }
    }

    #[test]
    fn mul_matches_the_reference_on_structured_pairs() {
        // Every pair of the structured set (both orders, all signs), and
        // each structured raw against a run of consecutive raws around
        // every other one (products land on every low-bit pattern there).
        let raws = structured_raws();
        for &a in &raws {
            for &b in &raws {
                assert_eq!((r(a) * r(b)).to_raw(), mul_reference(a, b), "{a} × {b}");
            }
        }
        for &a in raws.iter().step_by(7) {
            for &c in raws.iter().step_by(5) {
                for d in -40..=40 {
                    assert_mul_matches_reference(a, c.wrapping_add(d));
                }
            }
        }
    }

    #[test]
    fn mul_matches_the_reference_next_to_the_boundary() {
        // For many a: the b whose |a·b| is nearest 2^47 − 2^15 (the first
        // saturating product) and its neighbours.
        let check = |a: i32| {
            let m = u64::from(a.unsigned_abs().max(1));
            let b0 = ((1u64 << 47) - (1 << 15)) / m;
            for d in -3i64..=3 {
                let b = b0 as i64 + d;
                if (0..=1i64 << 31).contains(&b) {
                    // b = 2^31 is raw MIN's magnitude.
                    assert_mul_matches_reference(a, (b as u32) as i32);
                }
            }
        };
        for a in structured_raws() {
            check(a);
        }
        for i in 0..50_000_u64 {
            let a = (scattered(i) >> 33) as i32 | 1 << 16; // >= 1.0
            check(a);
        }
    }

    /// The heavy run: every structured raw against the 2^13 consecutive
    /// raws around every power of two (both signs), about 0.1 billion
    /// pairs (random pairs: `tests/math_differential.rs`). Run it
    /// optimized: `cargo test --release -p laige-core --lib -- --ignored mul_`.
    #[test]
    #[ignore = "heavy: run with --release -- --ignored"]
    fn mul_matches_the_reference_on_many_pairs() {
        for a in structured_raws() {
            for k in 0..=31u32 {
                let c = 1i64 << k;
                for b in (c - 4096).max(0)..c + 4096 {
                    for b in [b, -b] {
                        let b = b as i32; // 2^31 wraps to raw MIN
                        assert_eq!((r(a) * r(b)).to_raw(), mul_reference(a, b), "{a} × {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn div_rounds_ties_to_even() {
        let two = Fpx16_16::from_i32(2);
        // raw 1 / 2 = 0.5 raw: tie → 0; raw 3 / 2 = 1.5 → 2; raw 5 / 2 → 2.
        assert_eq!(r(1) / two, r(0));
        assert_eq!(r(3) / two, r(2));
        assert_eq!(r(5) / two, r(2));
        assert_eq!(r(-1) / two, r(0));
        assert_eq!(r(-3) / two, r(-2));
        assert_eq!(r(3) / -two, r(-2));
        assert_eq!(r(-3) / -two, r(2));
        // 1 / 3 = 21845.33 raw → 21845; 2 / 3 = 43690.67 → 43691.
        let three = Fpx16_16::from_i32(3);
        assert_eq!(Fpx16_16::ONE / three, r(21845));
        assert_eq!(two / three, r(43691));
        assert_eq!(-two / three, r(-43691));
    }

    #[test]
    fn div_saturates_and_defines_division_by_zero() {
        assert_eq!(Fpx16_16::MAX / Fpx16_16::EPSILON, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN / Fpx16_16::EPSILON, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::MIN / -Fpx16_16::EPSILON, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN / -Fpx16_16::ONE, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN / Fpx16_16::ONE, Fpx16_16::MIN);
        assert_eq!(Fpx16_16::ONE / Fpx16_16::ZERO, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::EPSILON / Fpx16_16::ZERO, Fpx16_16::MAX);
        assert_eq!((-Fpx16_16::ONE / Fpx16_16::ZERO).to_raw(), -0x7FFF_FFFF);
        assert_eq!((Fpx16_16::MIN / Fpx16_16::ZERO).to_raw(), -0x7FFF_FFFF);
        assert_eq!(Fpx16_16::ZERO / Fpx16_16::ZERO, Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::ZERO / Fpx16_16::MIN, Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::MIN / Fpx16_16::MIN, Fpx16_16::ONE);
    }

    #[test]
    fn neg_and_abs_saturate_only_at_min() {
        assert_eq!(-Fpx16_16::MIN, Fpx16_16::MAX);
        assert_eq!(Fpx16_16::MIN.abs(), Fpx16_16::MAX);
        assert_eq!(-Fpx16_16::MAX, r(-i32::MAX));
        assert_eq!(r(-i32::MAX).abs(), Fpx16_16::MAX);
        assert_eq!(-Fpx16_16::ZERO, Fpx16_16::ZERO);
        assert_eq!(r(-7).abs(), r(7));
    }

    #[test]
    fn sqrt_rounds_to_nearest_and_zeroes_negatives() {
        assert_eq!(Fpx16_16::from_i32(4).sqrt(), Fpx16_16::from_i32(2));
        assert_eq!(Fpx16_16::ONE.sqrt(), Fpx16_16::ONE);
        assert_eq!(Fpx16_16::ZERO.sqrt(), Fpx16_16::ZERO);
        // sqrt(2) = 1.41421356 → raw 92681.9 → 92682.
        assert_eq!(Fpx16_16::from_i32(2).sqrt(), r(92682));
        // raw 1: sqrt(2^16) = 256 exactly.
        assert_eq!(Fpx16_16::EPSILON.sqrt(), r(256));
        // sqrt(MAX × 2^16) = 11863283.20 → 11863283.
        assert_eq!(Fpx16_16::MAX.sqrt(), r(11_863_283));
        assert_eq!(Fpx16_16::from_i32(32761).sqrt(), Fpx16_16::from_i32(181));
        // Negative input: zero, including MIN.
        assert_eq!((-Fpx16_16::ONE).sqrt(), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::MIN.sqrt(), Fpx16_16::ZERO);
        assert_eq!((-Fpx16_16::EPSILON).sqrt(), Fpx16_16::ZERO);
    }

    #[test]
    fn min_max_clamp_follow_the_total_order_and_never_panic() {
        let (a, b) = (r(-3), r(9));
        assert_eq!(a.min(b), a);
        assert_eq!(a.max(b), b);
        assert_eq!(r(20).clamp(a, b), b);
        assert_eq!(r(-20).clamp(a, b), a);
        assert_eq!(r(4).clamp(a, b), r(4));
        // Inverted bounds (lo = 9 > hi = −3): the documented expression,
        // no panic.
        assert_eq!(r(4).clamp(b, a), b);
        assert_eq!(r(20).clamp(b, a), a);
    }

    #[test]
    fn lerp_is_the_pinned_expression() {
        let a = Fpx16_16::from_i32(2);
        let b = Fpx16_16::from_i32(6);
        let half = r(0x8000);
        assert_eq!(a.lerp(b, half), Fpx16_16::from_i32(4));
        assert_eq!(a.lerp(b, Fpx16_16::ZERO), a);
        assert_eq!(a.lerp(b, Fpx16_16::ONE), b);
        assert_eq!(a.lerp(b, Fpx16_16::from_i32(2)), Fpx16_16::from_i32(10));
        // b − a saturates: lerp(a, b, 1) ≠ b, exactly a + MAX.
        let lo = Fpx16_16::from_i32(-20000);
        let hi = Fpx16_16::from_i32(20000);
        assert_eq!(lo.lerp(hi, Fpx16_16::ONE), lo + Fpx16_16::MAX);
        assert_eq!(lo.lerp(hi, Fpx16_16::ZERO), lo);
    }

    #[test]
    fn classification_is_constant() {
        for x in [Fpx16_16::MIN, Fpx16_16::ZERO, Fpx16_16::MAX] {
            assert!(!x.is_nan());
            assert!(!x.is_inf());
            assert!(x.is_finite());
            assert!(x.is_ordered(Fpx16_16::MIN));
        }
    }

    #[test]
    fn assign_operators_match_the_binary_ones() {
        let (a, b) = (r(0x1_8000), r(-0x2_4000));
        let mut x = a;
        x += b;
        assert_eq!(x, a + b);
        let mut x = a;
        x -= b;
        assert_eq!(x, a - b);
        let mut x = a;
        x *= b;
        assert_eq!(x, a * b);
        let mut x = a;
        x /= b;
        assert_eq!(x, a / b);
    }

    #[test]
    fn order_is_the_raw_integer_order() {
        assert!(Fpx16_16::MIN < Fpx16_16::ZERO);
        assert!(Fpx16_16::ZERO < Fpx16_16::EPSILON);
        assert!(Fpx16_16::EPSILON < Fpx16_16::MAX);
        assert_eq!(r(5).cmp(&r(5)), std::cmp::Ordering::Equal);
    }
}
