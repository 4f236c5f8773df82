//! [`Fpx16_16`] conversions to and from `i32`, `f32`, `f64` and integer
//! ratios. Every conversion rounds once, to nearest with ties to even, in
//! integer arithmetic, and saturates.

use super::f32_bits::{Decoded, decode_f32, decode_f64, f32_from_parts, round_scaled_to_i32};
use super::fixed::{Fpx16_16, div_by_zero_raw, div_round_i64, round_shr16, saturate_i64};

impl Fpx16_16 {
    /// The integer `v`: exact for `−32768 <= v <= 32767`; saturates outside
    /// (`v >= 32768` gives [`MAX`](Self::MAX), since 32768 itself is not
    /// representable; `v <= −32768` gives [`MIN`](Self::MIN)).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::from_i32(-3).to_raw(), -3 << 16);
    /// assert_eq!(Fpx16_16::from_i32(32768), Fpx16_16::MAX);
    /// assert_eq!(Fpx16_16::from_i32(-32768), Fpx16_16::MIN);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_i32(v: i32) -> Self {
        Self::from_raw(saturate_i64((v as i64) << 16))
    }

    /// The nearest integer, ties to even (`0.5 → 0`, `1.5 → 2`,
    /// `−0.5 → 0`, `−1.5 → −2`). The result is in `[−32768, 32768]`
    /// (`MAX` rounds up to 32768).
    #[inline]
    #[must_use]
    pub const fn to_i32(self) -> i32 {
        round_shr16(self.to_raw() as i64) as i32
    }

    /// The rounded ratio `num / den`: `round(num × 2^16 / den)`, one
    /// rounding (ties to even) of the exact rational, then saturated — so
    /// `from_ratio(1, 60)` is the Q16.16 value nearest to 1/60 (raw 1092).
    /// `den = 0` follows the division-by-zero rule: `MAX`, `−MAX` or `0`.
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::from_ratio(1, 60).to_raw(), 1092);
    /// assert_eq!(Fpx16_16::from_ratio(-3, 2).to_raw(), -0x1_8000);
    /// assert_eq!(Fpx16_16::from_ratio(1, 0), Fpx16_16::MAX);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_ratio(num: i32, den: i32) -> Self {
        if den == 0 {
            return Self::from_raw(div_by_zero_raw(num as i64));
        }
        Self::from_raw(saturate_i64(div_round_i64((num as i64) << 16, den as i64)))
    }

    /// The binary32 nearest to the value (one rounding, ties to even; the
    /// scale by 2^−16 is exact). Exact whenever `|raw| < 2^24`. For
    /// rendering and display only — never feed it back into the simulation.
    ///
    /// Computed in integers: the raw value is rounded to a 24-bit
    /// significand and the float is assembled from its bits.
    #[inline]
    #[must_use]
    pub const fn to_f32(self) -> f32 {
        let raw = self.to_raw();
        if raw == 0 {
            return 0.0;
        }
        f32_from_parts(raw < 0, raw.unsigned_abs() as u64, false, -16)
    }

    /// The Q16.16 value nearest to `v`: one rounding of the exact `v × 2^16`,
    /// ties to even (an exact tie is `v × 2^16 = k + 1/2`). NaN gives zero;
    /// `±inf` and `|v| >= 32768` saturate (`−32768.0` is exactly
    /// [`MIN`](Self::MIN)); `−0.0` gives zero.
    ///
    /// No floating-point arithmetic: the float's bits are decoded and the
    /// rounding is done on integers (adding 0.5 in `f32` would round twice).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::from_f32(1.5).to_raw(), 0x1_8000);
    /// // 2^−17 is the tie between 0 and raw 1: even → 0.
    /// assert_eq!(Fpx16_16::from_f32(1.0 / 131072.0).to_raw(), 0);
    /// assert_eq!(Fpx16_16::from_f32(3.0 / 131072.0).to_raw(), 2);
    /// assert_eq!(Fpx16_16::from_f32(f32::NAN), Fpx16_16::ZERO);
    /// assert_eq!(Fpx16_16::from_f32(1e9), Fpx16_16::MAX);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_f32(v: f32) -> Self {
        Self::from_decoded(decode_f32(v))
    }

    /// The Q16.16 value nearest to `v`, with exactly the rules of
    /// [`from_f32`](Self::from_f32) (NaN → 0, saturation, one rounding of
    /// the exact `v × 2^16`, ties to even, integer arithmetic only).
    #[inline]
    #[must_use]
    pub const fn from_f64(v: f64) -> Self {
        Self::from_decoded(decode_f64(v))
    }

    #[inline]
    const fn from_decoded(d: Decoded) -> Self {
        match d {
            Decoded::Nan => Self::ZERO,
            Decoded::Inf { neg: true } => Self::MIN,
            Decoded::Inf { neg: false } => Self::MAX,
            Decoded::Finite { neg, mant, exp } => {
                Self::from_raw(round_scaled_to_i32(neg, mant, exp + 16))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(raw: i32) -> Fpx16_16 {
        Fpx16_16::from_raw(raw)
    }

    #[test]
    fn from_i32_is_exact_inside_and_saturates_outside() {
        assert_eq!(Fpx16_16::from_i32(0), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::from_i32(1), Fpx16_16::ONE);
        assert_eq!(Fpx16_16::from_i32(32767).to_raw(), 32767 << 16);
        assert_eq!(Fpx16_16::from_i32(-32768), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_i32(32768), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_i32(-32769), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_i32(i32::MAX), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_i32(i32::MIN), Fpx16_16::MIN);
    }

    #[test]
    fn to_i32_rounds_ties_to_even() {
        let half = 0x8000;
        assert_eq!(r(half).to_i32(), 0);
        assert_eq!(r(0x1_0000 + half).to_i32(), 2);
        assert_eq!(r(0x2_0000 + half).to_i32(), 2);
        assert_eq!(r(-half).to_i32(), 0);
        assert_eq!(r(-0x1_0000 - half).to_i32(), -2);
        assert_eq!(r(-0x2_0000 - half).to_i32(), -2);
        assert_eq!(r(half + 1).to_i32(), 1);
        assert_eq!(r(half - 1).to_i32(), 0);
        assert_eq!(r(-half - 1).to_i32(), -1);
        assert_eq!(Fpx16_16::MAX.to_i32(), 32768);
        assert_eq!(Fpx16_16::MIN.to_i32(), -32768);
        assert_eq!(r(i32::MIN + half).to_i32(), -32768); // −32767.5: even
        assert_eq!(r(i32::MAX - half).to_i32(), 32767); // 32767.49999
    }

    #[test]
    fn from_ratio_rounds_once_and_defines_zero_denominators() {
        assert_eq!(Fpx16_16::from_ratio(1, 60).to_raw(), 1092);
        assert_eq!(Fpx16_16::from_ratio(1, 3).to_raw(), 21845);
        assert_eq!(Fpx16_16::from_ratio(-2, 3).to_raw(), -43691);
        // 1 / 131072 = 0.5 raw: tie → 0; 3 / 131072 = 1.5 raw → 2.
        assert_eq!(Fpx16_16::from_ratio(1, 131_072).to_raw(), 0);
        assert_eq!(Fpx16_16::from_ratio(3, 131_072).to_raw(), 2);
        assert_eq!(Fpx16_16::from_ratio(i32::MIN, -1), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_ratio(i32::MIN, 1), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_ratio(65536, 2), Fpx16_16::from_i32(32768));
        assert_eq!(Fpx16_16::from_ratio(5, 0), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_ratio(-5, 0).to_raw(), -0x7FFF_FFFF);
        assert_eq!(Fpx16_16::from_ratio(0, 0), Fpx16_16::ZERO);
    }

    #[test]
    fn to_f32_rounds_once() {
        assert_eq!(Fpx16_16::ZERO.to_f32().to_bits(), 0);
        assert_eq!(Fpx16_16::ONE.to_f32(), 1.0);
        assert_eq!(r(-0x1_8000).to_f32(), -1.5);
        assert_eq!(Fpx16_16::EPSILON.to_f32(), 1.0 / 65536.0);
        assert_eq!(Fpx16_16::MIN.to_f32(), -32768.0);
        // MAX = 2^31 − 1 raw rounds to 2^31 raw: 32768.0.
        assert_eq!(Fpx16_16::MAX.to_f32(), 32768.0);
        // raw 2^24 + 1: tie between 2^24 and 2^24 + 2 → 2^24 (even).
        assert_eq!(r((1 << 24) + 1).to_f32(), 256.0);
        // raw 2^24 + 3: tie → 2^24 + 4.
        assert_eq!(
            r((1 << 24) + 3).to_f32(),
            (((1 << 24) + 4) as f32) / 65536.0
        );
        for raw in [1, -1, 12345, -98765, (1 << 24) - 1, -(1 << 24) + 1] {
            assert_eq!(r(raw).to_f32(), raw as f32 / 65536.0, "raw {raw}");
        }
    }

    #[test]
    fn from_f32_rounds_ties_to_even_and_saturates() {
        let tie = 1.0 / 131_072.0; // 2^−17: half a raw step
        assert_eq!(Fpx16_16::from_f32(tie).to_raw(), 0);
        assert_eq!(Fpx16_16::from_f32(3.0 * tie).to_raw(), 2);
        assert_eq!(Fpx16_16::from_f32(5.0 * tie).to_raw(), 2);
        assert_eq!(Fpx16_16::from_f32(-tie).to_raw(), 0);
        assert_eq!(Fpx16_16::from_f32(-3.0 * tie).to_raw(), -2);
        // 1 + 2^−17 (exact in f32): tie between 65536 and 65537 → 65536.
        assert_eq!(Fpx16_16::from_f32(1.0 + tie).to_raw(), 65536);
        assert_eq!(Fpx16_16::from_f32(1.0 + 3.0 * tie).to_raw(), 65538);
        // Above and below the tie.
        assert_eq!(Fpx16_16::from_f32(tie * 1.5).to_raw(), 1);
        assert_eq!(Fpx16_16::from_f32(tie * 0.5).to_raw(), 0);
        // Subnormals and zeros.
        assert_eq!(Fpx16_16::from_f32(f32::from_bits(1)), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::from_f32(-0.0), Fpx16_16::ZERO);
        // Saturation: |v| >= 32768; −32768 is exact.
        assert_eq!(Fpx16_16::from_f32(32768.0), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_f32(-32768.0), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_f32(-32770.0), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_f32(f32::MAX), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_f32(f32::MIN), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_f32(f32::INFINITY), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_f32(f32::NEG_INFINITY), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_f32(f32::NAN), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::from_f32(-f32::NAN), Fpx16_16::ZERO);
        // The largest f32 below 32768 is exact.
        let below = f32::from_bits(32768.0f32.to_bits() - 1);
        assert_eq!(Fpx16_16::from_f32(below).to_raw(), i32::MAX - 127);
    }

    #[test]
    fn from_f64_matches_the_same_rules() {
        assert_eq!(Fpx16_16::from_f64(0.1).to_raw(), 6554);
        assert_eq!(Fpx16_16::from_f64(-0.1).to_raw(), -6554);
        assert_eq!(Fpx16_16::from_f64(1.0 / 131_072.0).to_raw(), 0);
        assert_eq!(Fpx16_16::from_f64(32_767.999_992).to_raw(), i32::MAX);
        // 32768 − 2^−17 is the tie between MAX (odd) and 2^31: up, saturate.
        assert_eq!(Fpx16_16::from_f64(32768.0 - 1.0 / 131_072.0), Fpx16_16::MAX);
        assert_eq!(Fpx16_16::from_f64(-32768.0), Fpx16_16::MIN);
        assert_eq!(Fpx16_16::from_f64(f64::NAN), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::from_f64(f64::MIN_POSITIVE), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::from_f64(-1e300), Fpx16_16::MIN);
    }

    #[test]
    fn from_f32_agrees_with_an_exact_f64_reference() {
        // v × 2^16 is exact in f64 for every f32; round_ties_even is exact.
        let mut x: u32 = 0x1234_5678;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v = f32::from_bits(x);
            let expected = if v.is_nan() {
                0
            } else {
                let s = (v as f64 * 65536.0).round_ties_even();
                s.clamp(i32::MIN as f64, i32::MAX as f64) as i32
            };
            assert_eq!(Fpx16_16::from_f32(v).to_raw(), expected, "bits {x:#010x}");
        }
    }
}
