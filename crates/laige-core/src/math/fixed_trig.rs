//! Trigonometry on [`Fpx16_16`] in integer arithmetic only.
//!
//! **sin / cos.** The argument `|x|` (exact: `raw / 2^16`, up to 32768 rad)
//! is multiplied by a 64-bit `2/π` in a `u128`: the integer part is the
//! quadrant, the 80-bit fraction the position in it, accurate to `2^−50`
//! of a quarter turn for every input (no `x mod 6.28`). The fraction's top
//! 8 bits pick an entry of a 257-entry `sin` table (Q62); the rest, `b`, is
//! below `2^−8` of a quarter turn, where `sin(πb/2)` and `cos(πb/2)` are
//! two- and three-term series. One angle-addition step combines them, all
//! in Q62 with `i64 × i64 → i128` products. The Q62 result is within about
//! `2^−43` of the exact value, so the Q16.16 result, rounded once, is the
//! correctly rounded one except where the exact value lies within about
//! `2^−27` ulp of a rounding boundary (none found among the 2^33 results
//! the exhaustive test could decide).
//!
//! **atan2 / atan / asin / acos.** The octant is folded away exactly
//! (`|y| <= |x|` after a swap), the ratio taken in Q32 by one integer
//! division, and `atan(t)` is a 33-entry table at `k/32` plus the series
//! of `atan((t − k/32) / (1 + t·k/32))` (an argument below `2^−6`), in Q36.
//! `asin`/`acos` build the exact `1 − x²` and its integer root in Q31 and
//! go through the same core.

use super::fixed::Fpx16_16;
use super::isqrt::isqrt_round_u62;
use super::trig_tables::{ATAN_Q36, SIN_Q62};

/// `2/π` in Q64 (rounded to nearest; error below `2^−65`).
const TWO_OVER_PI_Q64: u64 = 0xA2F9_836E_4E44_152A;
/// `π/2` in Q62.
const K1: i64 = 0x6487_ED51_10B4_611A;
/// `(π/2)³/6` in Q62.
const K3: i64 = 0x2957_79CC_4B7C_A57D;
/// `(π/2)²/2` in Q62.
const K2: i64 = 0x4EF4_F326_F917_7969;
/// `(π/2)⁴/24` in Q62.
const K4: i64 = 0x103C_1F08_1B5A_C3B3;
/// One in Q62.
const ONE_Q62: i64 = 1 << 62;
/// `π` in Q36.
const PI_Q36: i64 = 215_888_603_272;
/// `π/2` in Q36.
const FRAC_PI_2_Q36: i64 = 107_944_301_636;

/// `π` as Q16.16 (raw 205887, the nearest value).
pub(crate) const PI_RAW: i32 = 205_887;
/// `2π` as Q16.16 (raw 411775, the nearest value).
pub(crate) const TAU_RAW: i32 = 411_775;
/// `π/2` as Q16.16 (raw 102944, the nearest value).
pub(crate) const FRAC_PI_2_RAW: i32 = 102_944;

/// `(a × b) >> 62`, floored (`|a × b| < 2^125`).
///
/// The `i128` product of two `i64`s cannot overflow (`< 2^126`), so
/// `wrapping_mul` is the same product; it keeps an overflow-checked build
/// (the optimized test profile) from running a checked 128-bit multiply
/// that release never runs.
#[inline(always)]
const fn mul_q62(a: i64, b: i64) -> i64 {
    ((a as i128).wrapping_mul(b as i128) >> 62) as i64
}

/// A Q62 value in `[−2^62, 2^62]` rounded to the nearest Q16.16 raw (a
/// half rounds up; the Q62 value is never an exact half in practice, and
/// the rule is fixed either way).
#[inline(always)]
const fn q62_to_raw(v: i64) -> i32 {
    ((v + (1 << 45)) >> 46) as i32
}

/// `(sin |x|, cos |x|)` in Q62 for `|x| = mag / 2^16`.
#[inline(always)]
const fn sin_cos_mag_q62(mag: u32) -> (i64, i64) {
    // Quarter turns in Q80: < 2^31 · 2^64 = 2^95.
    // A u64 × u64 product: cannot overflow (see `mul_q62`).
    let p = (mag as u128).wrapping_mul(TWO_OVER_PI_Q64 as u128);
    let quadrant = (p >> 80) as u32 & 3;
    let idx = ((p >> 72) & 0xFF) as usize;
    // The rest of the quarter turn, below 2^−8, in Q62.
    let b = ((p & ((1 << 72) - 1)) >> 18) as i64;
    let u = mul_q62(b, b);
    // sin(πb/2) = b·(π/2 − (π/2)³/6·b²) (next term < 2^−43);
    // cos(πb/2) = 1 − b²·((π/2)²/2 − (π/2)⁴/24·b²) (next term < 2^−53).
    let sb = mul_q62(b, K1 - mul_q62(K3, u));
    let cb = ONE_Q62 - mul_q62(u, K2 - mul_q62(K4, u));
    let s = SIN_Q62[idx];
    let c = SIN_Q62[256 - idx];
    let sin_t = mul_q62(s, cb) + mul_q62(c, sb);
    let cos_t = mul_q62(c, cb) - mul_q62(s, sb);
    match quadrant {
        0 => (sin_t, cos_t),
        1 => (cos_t, -sin_t),
        2 => (-sin_t, -cos_t),
        _ => (-cos_t, sin_t),
    }
}

/// `(sin x, cos x)` in Q62 for the raw `x` (sin odd, cos even exactly).
#[inline(always)]
const fn sin_cos_q62(raw: i32) -> (i64, i64) {
    let (s, c) = sin_cos_mag_q62(raw.unsigned_abs());
    (if raw < 0 { -s } else { s }, c)
}

/// Negates `v` when `neg`.
#[inline(always)]
const fn neg_if(neg: bool, v: i32) -> i32 {
    if neg { -v } else { v }
}

/// `atan(ay / ax)` in Q36, in `[0, π/2]`, for magnitudes `ay, ax <= 2^31`,
/// not both zero.
#[inline]
const fn atan_first_quadrant_q36(ay: u64, ax: u64) -> i64 {
    let swap = ay > ax;
    let (n, d) = if swap { (ax, ay) } else { (ay, ax) };
    // t = n / d in [0, 1], Q32 (n << 32 <= 2^63), truncated: error < 2^−32.
    let t = (n << 32) / d;
    let k = (t + (1 << 26)) >> 27; // nearest k/32, 0..=32
    let num = t as i64 - (k << 27) as i64; // |num| <= 2^26
    let den = (1i64 << 32) + ((t * k) >> 5) as i64; // 1 + t·k/32, Q32
    // t' = (t − k/32) / (1 + t·k/32), |t'| <= 2^−6, Q36.
    let tp = (num << 36) / den;
    let t2 = (tp * tp) >> 36;
    // atan(t') = t'·(1 − t'²/3 + t'⁴/5) (next term < 2^−44).
    let poly = (1i64 << 36) - t2 / 3 + ((t2 * t2) >> 36) / 5;
    let a = ATAN_Q36[k as usize] + ((tp as i128 * poly as i128) >> 36) as i64;
    if swap { FRAC_PI_2_Q36 - a } else { a }
}

/// The Q16.16 `atan2` of signed magnitudes (`|y|, |x| <= 2^31`, in any
/// common scale).
#[inline]
const fn atan2_parts(y_neg: bool, ay: u64, x_neg: bool, ax: u64) -> i32 {
    if ay == 0 && ax == 0 {
        return 0;
    }
    let mut a = atan_first_quadrant_q36(ay, ax);
    if x_neg {
        a = PI_Q36 - a;
    }
    // Q36 → Q16, rounded to nearest (a half rounds up: never exact).
    neg_if(y_neg, ((a + (1 << 19)) >> 20) as i32)
}

/// `(1 − x²)^½` and `|x|` in Q31 for a raw clamped to `[−1, 1]`.
#[inline]
fn asin_parts(raw: i32) -> (u64, u64) {
    let mag = if raw.unsigned_abs() > 1 << 16 {
        1u64 << 16
    } else {
        raw.unsigned_abs() as u64
    };
    // (1 − x²)·2^32 is exact; its root of ·2^62 is sqrt(1 − x²) in Q31
    // (rest << 30 <= 2^62).
    let rest = (1u64 << 32) - mag * mag;
    (isqrt_round_u62(rest << 30), mag << 15)
}

impl Fpx16_16 {
    /// `π`, the nearest Q16.16 value (raw 205887).
    pub const PI: Self = Self::from_raw(PI_RAW);
    /// `2π`, the nearest Q16.16 value (raw 411775).
    pub const TAU: Self = Self::from_raw(TAU_RAW);
    /// `π/2`, the nearest Q16.16 value (raw 102944).
    pub const FRAC_PI_2: Self = Self::from_raw(FRAC_PI_2_RAW);

    /// The sine of `self` radians, in integer arithmetic only, for every
    /// input (exact range reduction up to ±32768 rad).
    ///
    /// Measured over all 2^32 inputs (`tests/math_trig_exhaustive.rs`,
    /// against a binary64 reference): every result within 1 ulp (2^−16) of
    /// the exact value (largest error 0.500000 ulp), and the correctly
    /// rounded value on every input the reference decides — all but 14 of
    /// the 2^33 `sin` and `cos` results, whose exact values lie within
    /// 2^−30 ulp of a rounding boundary. Odd: `sin(−x) = −sin(x)` exactly.
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::FRAC_PI_2.sin(), Fpx16_16::ONE);
    /// assert_eq!(Fpx16_16::ZERO.sin(), Fpx16_16::ZERO);
    /// assert_eq!(Fpx16_16::from_ratio(1, 2).sin().to_raw(), 31420); // 0.4794255
    /// ```
    #[inline]
    #[must_use]
    pub const fn sin(self) -> Self {
        Self::from_raw(q62_to_raw(sin_cos_q62(self.to_raw()).0))
    }

    /// The cosine of `self` radians; the same method and measured bound as
    /// [`sin`](Self::sin). Even: `cos(−x) = cos(x)` exactly.
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::ZERO.cos(), Fpx16_16::ONE);
    /// assert_eq!(Fpx16_16::PI.cos(), -Fpx16_16::ONE);
    /// ```
    #[inline]
    #[must_use]
    pub const fn cos(self) -> Self {
        Self::from_raw(q62_to_raw(sin_cos_mag_q62(self.to_raw().unsigned_abs()).1))
    }

    /// `(sin, cos)` of `self`: bit-identical to the two calls, for the cost
    /// of one.
    #[inline]
    #[must_use]
    pub const fn sin_cos(self) -> (Self, Self) {
        let (s, c) = sin_cos_q62(self.to_raw());
        (Self::from_raw(q62_to_raw(s)), Self::from_raw(q62_to_raw(c)))
    }

    /// The tangent: the Q62 sine over the Q62 cosine, rounded once to
    /// nearest and saturated (near the poles `|tan|` exceeds `MAX`).
    ///
    /// Measured (`tests/math_trig_exhaustive.rs`, 2^24 inputs spread over
    /// all 2^32; 2^28 in a longer run): within 1 ulp where `|tan x| <= 2^12`
    /// (largest error 0.56 ulp, correctly rounded on 99.9996%); above that
    /// the relative error is below `2^−27` (the slope there is so steep
    /// that one input step moves the result by thousands of ulp).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::ZERO.tan(), Fpx16_16::ZERO);
    /// assert_eq!(Fpx16_16::from_ratio(1, 2).tan().to_raw(), 35802); // 0.5463025
    /// ```
    #[must_use]
    pub const fn tan(self) -> Self {
        let (s, c) = sin_cos_q62(self.to_raw());
        if c == 0 {
            return if s < 0 { Self::MIN } else { Self::MAX };
        }
        // round(s·2^16 / c): |s·2^16| <= 2^78.
        let n = (s as i128) << 16;
        let d = c as i128;
        let q = n / d;
        let r = n % d;
        let up = 2 * r.unsigned_abs() >= d.unsigned_abs();
        let q = if up {
            if (n < 0) != (d < 0) { q - 1 } else { q + 1 }
        } else {
            q
        };
        Self::from_raw(if q > i32::MAX as i128 {
            i32::MAX
        } else if q < i32::MIN as i128 {
            i32::MIN
        } else {
            q as i32
        })
    }

    /// The angle of the point `(x, y) = (other, self)` in `[−π, π]`
    /// (`self.atan2(x)` like `f32::atan2`), integer arithmetic only, for
    /// every pair. `atan2(0, 0) = 0`, `atan2(0, x < 0) = π` (the type has
    /// no signed zero).
    ///
    /// Measured (`tests/math_trig_exhaustive.rs`: 16M random pairs of mixed
    /// magnitudes plus an edge table of axes, zeros, `MIN`/`MAX` and equal
    /// magnitudes): within 1 ulp everywhere (largest error 0.500014 ulp),
    /// correctly rounded on 99.9995% of the pairs.
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// let one = Fpx16_16::ONE;
    /// assert_eq!(one.atan2(one).to_raw(), 51472); // π/4
    /// assert_eq!(Fpx16_16::ZERO.atan2(-one), Fpx16_16::PI);
    /// assert_eq!((-one).atan2(Fpx16_16::ZERO), -Fpx16_16::FRAC_PI_2);
    /// ```
    #[inline]
    #[must_use]
    pub const fn atan2(self, other: Self) -> Self {
        let (y, x) = (self.to_raw(), other.to_raw());
        Self::from_raw(atan2_parts(
            y < 0,
            y.unsigned_abs() as u64,
            x < 0,
            x.unsigned_abs() as u64,
        ))
    }

    /// The arctangent, in `[−π/2, π/2]`: exactly `self.atan2(ONE)`.
    /// Measured on 2^24 inputs spread over all 2^32 (2^28 in a longer
    /// run): within 1 ulp (largest error 0.500015 ulp).
    #[inline]
    #[must_use]
    pub const fn atan(self) -> Self {
        self.atan2(Self::ONE)
    }

    /// The arcsine, in `[−π/2, π/2]`, through the exact `1 − x²` and its
    /// integer root. **Inputs outside `[−1, 1]` are clamped to it** (the
    /// type has no NaN; `asin(2) = π/2`). Measured over every input in
    /// `[−1, 1]`: within 1 ulp (largest error 0.500009 ulp).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::ONE.asin(), Fpx16_16::FRAC_PI_2);
    /// assert_eq!(Fpx16_16::from_ratio(1, 2).asin().to_raw(), 34315); // π/6
    /// ```
    #[inline]
    #[must_use]
    pub fn asin(self) -> Self {
        let raw = self.to_raw();
        let (c, s) = asin_parts(raw);
        Self::from_raw(atan2_parts(raw < 0, s, false, c))
    }

    /// The arccosine, in `[0, π]`; clamped like [`asin`](Self::asin), and
    /// the same measured bound (every input in `[−1, 1]`: largest error
    /// 0.500009 ulp).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::ONE.acos(), Fpx16_16::ZERO);
    /// assert_eq!((-Fpx16_16::ONE).acos(), Fpx16_16::PI);
    /// ```
    #[inline]
    #[must_use]
    pub fn acos(self) -> Self {
        let raw = self.to_raw();
        let (c, s) = asin_parts(raw);
        Self::from_raw(atan2_parts(false, c, raw < 0, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(raw: i32) -> Fpx16_16 {
        Fpx16_16::from_raw(raw)
    }

    fn exact_raw(v: f64) -> f64 {
        v * 65536.0
    }

    #[test]
    fn constants_are_the_nearest_values() {
        use std::f64::consts::{FRAC_PI_2, PI, TAU};
        assert_eq!(Fpx16_16::PI.to_raw(), exact_raw(PI).round() as i32);
        assert_eq!(Fpx16_16::TAU.to_raw(), exact_raw(TAU).round() as i32);
        assert_eq!(
            Fpx16_16::FRAC_PI_2.to_raw(),
            exact_raw(FRAC_PI_2).round() as i32
        );
        assert_eq!(K1 as f64 / ONE_Q62 as f64, FRAC_PI_2);
        assert!((PI_Q36 as f64 / (1u64 << 36) as f64 - PI).abs() < 1e-11);
    }

    #[test]
    fn sin_and_cos_are_near_the_f64_values_at_the_extremes() {
        for raw in [
            i32::MIN,
            i32::MIN + 1,
            -1,
            0,
            1,
            12345,
            PI_RAW,
            FRAC_PI_2_RAW,
            i32::MAX,
        ] {
            let x = raw as f64 / 65536.0;
            let (s, c) = r(raw).sin_cos();
            assert!(
                (s.to_raw() as f64 - exact_raw(x.sin())).abs() <= 0.5001,
                "{raw}"
            );
            assert!(
                (c.to_raw() as f64 - exact_raw(x.cos())).abs() <= 0.5001,
                "{raw}"
            );
            assert_eq!((r(raw).sin(), r(raw).cos()), (s, c));
        }
    }

    #[test]
    fn sin_is_odd_and_cos_even() {
        for raw in [1, 777, 205887, 1 << 30, i32::MAX] {
            assert_eq!(r(-raw).sin(), -r(raw).sin());
            assert_eq!(r(-raw).cos(), r(raw).cos());
        }
    }

    #[test]
    fn tan_saturates_near_poles_and_is_odd() {
        // raw 102944 is 4.5e−6 past π/2: tan ≈ −224700 saturates to MIN;
        // one step before π/2 it is ≈ +90000, saturating to MAX.
        assert_eq!(r(FRAC_PI_2_RAW).tan(), Fpx16_16::MIN);
        assert_eq!(r(-FRAC_PI_2_RAW).tan(), Fpx16_16::MAX);
        assert_eq!(r(FRAC_PI_2_RAW - 1).tan(), Fpx16_16::MAX);
        assert_eq!(r(-777).tan(), -r(777).tan());
        let x = 0.75f64;
        assert_eq!(r(49152).tan().to_raw(), exact_raw(x.tan()).round() as i32);
    }

    #[test]
    fn atan2_edge_table() {
        let one = Fpx16_16::ONE;
        let zero = Fpx16_16::ZERO;
        let half_pi = Fpx16_16::FRAC_PI_2;
        let quarter = 51472; // round(π/4 · 2^16)
        let cases = [
            (zero, zero, 0),
            (zero, one, 0),
            (zero, -one, PI_RAW),
            (one, zero, half_pi.to_raw()),
            (-one, zero, -half_pi.to_raw()),
            (one, one, quarter),
            (-one, -one, -(PI_RAW - quarter + 1)), // −3π/4 = −154415.6 → −154416
            (Fpx16_16::MAX, Fpx16_16::MAX, quarter),
            (Fpx16_16::MIN, Fpx16_16::MIN, -154416),
            (Fpx16_16::MIN, Fpx16_16::MAX, -quarter),
            (Fpx16_16::MAX, Fpx16_16::MIN, 154416),
            (Fpx16_16::EPSILON, Fpx16_16::MAX, 0),
            (Fpx16_16::MAX, Fpx16_16::EPSILON, half_pi.to_raw()),
            (zero, Fpx16_16::MIN, PI_RAW),
            (Fpx16_16::MIN, zero, -half_pi.to_raw()),
        ];
        for (y, x, want) in cases {
            assert_eq!(y.atan2(x).to_raw(), want, "atan2({y:?}, {x:?})");
        }
    }

    #[test]
    fn asin_acos_clamp_and_hit_the_ends() {
        let one = Fpx16_16::ONE;
        assert_eq!(one.asin(), Fpx16_16::FRAC_PI_2);
        assert_eq!((-one).asin(), -Fpx16_16::FRAC_PI_2);
        assert_eq!(Fpx16_16::MAX.asin(), Fpx16_16::FRAC_PI_2);
        assert_eq!(Fpx16_16::MIN.asin(), -Fpx16_16::FRAC_PI_2);
        assert_eq!(Fpx16_16::ZERO.asin(), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::ZERO.acos(), Fpx16_16::FRAC_PI_2);
        assert_eq!(Fpx16_16::MAX.acos(), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::MIN.acos(), Fpx16_16::PI);
        assert_eq!(one.atan().to_raw(), 51472);
    }
}
