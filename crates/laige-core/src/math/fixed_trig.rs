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
//! That Q62 path defines every result; a fast path short-cuts it. Its
//! reduction is one wrapping `u64` product of the signed raw by `2/π` in
//! Q46: the quarter turns modulo 4 in Q62 (the wrap drops whole turns, a
//! negative input is the same angle in two's complement), within `2^−36`
//! of a quarter turn for every input. The quadrant's low bit mirrors the
//! position, its high bit is the sign; the top 11 bits of the position
//! pick an entry of three 2048-entry Q31 tables (`sin a`, `cos a·π/2`,
//! `sin a·(π/2)²/2`, built at compile time from the Q62 path) and one
//! second-order step in the rest gives the value within 1.70 · 2^−31 in
//! `u64` arithmetic (three products in all; the fallback's is the only
//! branch).
//! Outside a band of ±2^−28 around each rounding boundary that rounds to
//! the Q62 path's result; inside it (about one input in 2000) the Q62
//! path runs. The all-2^32 known-answer hashes, taken in the exhaustive
//! pass (`tests/math_trig_exhaustive.rs`), prove the two agree on every
//! input.
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

/// `|x| = mag / 2^16` in quarter turns, Q80 (`< 2^95`; the integer part
/// is the quadrant, modulo 4).
#[inline(always)]
const fn quarter_turns_q80(mag: u32) -> u128 {
    // A u64 × u64 product: cannot overflow (see `mul_q62`).
    (mag as u128).wrapping_mul(TWO_OVER_PI_Q64 as u128)
}

/// `(sin |x|, cos |x|)` in Q62 for `|x| = mag / 2^16`.
#[inline(always)]
const fn sin_cos_mag_q62(mag: u32) -> (i64, i64) {
    sin_cos_turns_q62(quarter_turns_q80(mag))
}

/// `(sin, cos)` in Q62 of `p` quarter turns (Q80, below `2^96`).
#[inline(always)]
const fn sin_cos_turns_q62(p: u128) -> (i64, i64) {
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

/// Steps of the fast path's tables per quarter turn.
const FAST_STEPS: usize = 2048;

/// The fast path's tables, for `a = i·π/4096` (`i` in `0..2048`, a quarter
/// turn in 2048 steps), in Q31 (`2^31` is one): `sin a`, `cos a · π/2` and
/// `sin a · (π/2)²/2`, each the Q62 path's value (times the Q62 constant)
/// rounded to nearest: within `2^−32 + 2^−41` of the exact one. Built at
/// compile time.
struct FastTables {
    sin: [u32; FAST_STEPS],
    cos_k1: [u32; FAST_STEPS],
    sin_k2: [u32; FAST_STEPS],
}

/// A Q62 value in `[0, 2^63)` rounded to nearest Q31.
const fn q62_to_q31(v: i64) -> u32 {
    ((v + (1 << 30)) >> 31) as u32
}

/// The tables of [`FastTables`].
const FAST: FastTables = {
    let mut t = FastTables {
        sin: [0; FAST_STEPS],
        cos_k1: [0; FAST_STEPS],
        sin_k2: [0; FAST_STEPS],
    };
    let mut i = 0;
    while i < FAST_STEPS {
        // i/2048 quarter turns in Q80.
        let (s, c) = sin_cos_turns_q62((i as u128) << 69);
        t.sin[i] = q62_to_q31(s);
        // Both products are below 2^63 (π/2 < 2, (π/2)²/2 < 2) and their
        // Q31 values below 2^32.
        t.cos_k1[i] = q62_to_q31(mul_q62(c, K1));
        t.sin_k2[i] = q62_to_q31(mul_q62(s, K2));
        i += 1;
    }
    t
};

/// `2/π` in Q46 (rounded to nearest: `2^46·2/π − 0.0207`).
const TWO_OVER_PI_Q46: u64 = 0x28BE_60DB_9391;

/// A quarter turn in [`fast_turns`]'s Q62 (the cosine is the sine a
/// quarter turn on).
const QUARTER_TURN: u64 = 1 << 62;

/// Half the width, in Q31 steps (`2^−31`), of the band around each
/// rounding boundary where [`sin_fast`] does not decide: its value is
/// within 1.70 steps of the exact one (see there) and the Q62 path's
/// within `2^−12`, so outside the band both round to the same Q16.16 value.
const FAST_MARGIN: u64 = 8;

/// `x = raw / 2^16` radians in quarter turns, Q62, modulo 4 (the top two
/// bits are the quadrant), for [`sin_fast`]: `raw · 2/π` in Q46, one
/// wrapping `u64` product (the wrap is whole turns; a negative `raw` is
/// its two's complement, the same angle). Its error is `raw · 0.0207`
/// Q62 steps, below `2^−36` of a quarter turn for every input.
#[inline(always)]
const fn fast_turns(raw: i32) -> u64 {
    (raw as i64 as u64).wrapping_mul(TWO_OVER_PI_Q46)
}

/// The Q16.16 sine of `w` quarter turns (Q62, as [`fast_turns`]), sign
/// included — the value the Q62 path rounds to — or `None` within
/// [`FAST_MARGIN`] of a rounding boundary (about one input in 2000),
/// where only the Q62 path decides.
#[inline(always)]
const fn sin_fast(w: u64) -> Option<i32> {
    let v = sin_q31(w);
    // The distance to the nearest boundary (k + 1/2)·2^15, shifted by the
    // margin: below 2·margin iff within the margin (two's complement).
    let x = v.wrapping_add(1 << 14);
    if x.wrapping_add(FAST_MARGIN as i64) & (0x7FFF & !(2 * FAST_MARGIN as i64 - 1)) == 0 {
        return None;
    }
    Some((x >> 15) as i32)
}

/// `sin` of `w` quarter turns (as in [`sin_fast`]) in Q31, within 1.70
/// Q31 steps of the exact value.
///
/// The quadrant's low bit mirrors the position (in odd quadrants the sine
/// is that of the rest of the quarter turn: the bits' complement, one Q63
/// step short), its high bit is the sign. The top 11 bits of the position
/// pick `a` in [`FAST`]; the rest `b` (in quarter turns, below `2^−11`)
/// gives `sin(a + β) ≈ sin a + b·(cos a·π/2 − b·sin a·(π/2)²/2)` with
/// `β = b·π/2`: two `u64` products. The errors, in Q31 steps: the dropped
/// `cos a·β³/6` below 0.162; the `sin a` entry 0.5; the last product's
/// truncation 1; the reduction's `2^−36` quarter turn 0.033; the other
/// entries, `b`'s truncation to Q43 and the inner product's below 0.002
/// together: 1.70 in all.
#[inline(always)]
const fn sin_q31(w: u64) -> i64 {
    let h = w << 1;
    let mirror = ((h as i64) >> 63) as u64;
    let g = h ^ mirror; // the position in the quarter turn, Q63
    let idx = (g >> 52) as usize & (FAST_STEPS - 1);
    let b = (g >> 20) & 0xFFFF_FFFF; // Q43, below 2^32
    // S2·b < 2^64, C1 > S2·b/2^43 (cos a·π/2 > 1.2e−3 > sin a·(π/2)²/2·2^−11),
    // b·(C1 − S2·b) < 2^64.
    let inner = FAST.cos_k1[idx] as u64 - ((FAST.sin_k2[idx] as u64 * b) >> 43);
    let v = (FAST.sin[idx] as u64 + ((b * inner) >> 43)) as i64; // <= 2^31 + 2
    let sign = (w as i64) >> 63;
    (v ^ sign) - sign
}

/// `sin` through the Q62 path (the fast path's fallback).
#[cold]
#[inline(never)]
const fn sin_exact(raw: i32) -> i32 {
    q62_to_raw(sin_cos_q62(raw).0)
}

/// `cos` through the Q62 path (the fast path's fallback).
#[cold]
#[inline(never)]
const fn cos_exact(raw: i32) -> i32 {
    q62_to_raw(sin_cos_mag_q62(raw.unsigned_abs()).1)
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
        let raw = self.to_raw();
        Self::from_raw(match sin_fast(fast_turns(raw)) {
            Some(r) => r,
            None => sin_exact(raw),
        })
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
        let raw = self.to_raw();
        Self::from_raw(match sin_fast(fast_turns(raw).wrapping_add(QUARTER_TURN)) {
            Some(r) => r,
            None => cos_exact(raw),
        })
    }

    /// `(sin, cos)` of `self`: bit-identical to the two calls, for the cost
    /// of one.
    #[inline]
    #[must_use]
    pub const fn sin_cos(self) -> (Self, Self) {
        let raw = self.to_raw();
        let w = fast_turns(raw);
        let s = match sin_fast(w) {
            Some(r) => r,
            None => sin_exact(raw),
        };
        let c = match sin_fast(w.wrapping_add(QUARTER_TURN)) {
            Some(r) => r,
            None => cos_exact(raw),
        };
        (Self::from_raw(s), Self::from_raw(c))
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

    /// The fast path against the Q62 path on 2^18 inputs spread over all
    /// 2^32 (every input: the all-raws known-answer hashes): the same
    /// results, and its Q31 value within the 1.70 steps of its error bound.
    #[test]
    fn the_fast_path_agrees_with_the_q62_path() {
        let mut undecided = 0;
        let mut worst = 0i64;
        for k in 0..(1u32 << 18) {
            let raw = k.wrapping_mul(0x9E37_79B9) as i32 ^ (k & 0xFF) as i32;
            let x = r(raw);
            let (s, c) = sin_cos_q62(raw);
            let (want_s, want_c) = (q62_to_raw(s), q62_to_raw(c));
            assert_eq!(
                (x.sin().to_raw(), x.cos().to_raw()),
                (want_s, want_c),
                "{raw}"
            );
            assert_eq!(x.sin_cos(), (r(want_s), r(want_c)), "{raw}");
            for (quarters, exact) in [(0, s), (QUARTER_TURN, c)] {
                let w = fast_turns(raw).wrapping_add(quarters);
                // The Q31 value against the Q62 one (within 2^−43 of the
                // exact), in Q33 steps: the bound is 1.70 · 4 plus the
                // floor of the Q62 value's shift.
                let err = ((sin_q31(w) << 2) - (exact >> 29)).abs();
                assert!(err <= 7, "{raw}: {err}");
                worst = worst.max(err);
                undecided += u32::from(sin_fast(w).is_none());
            }
        }
        // The comparison measures the error (it is not zero everywhere).
        assert!(worst >= 3, "{worst}");
        // About one in 2000 (16 of 32768 Q31 positions per step).
        assert!(undecided < 1 << 10, "{undecided}");
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
        // The Q46 2/π is the Q64 one rounded (its rest is far from a half).
        assert_eq!(TWO_OVER_PI_Q46, (TWO_OVER_PI_Q64 + (1 << 17)) >> 18);
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
