//! [`BinaryAngle`]: an angle as a fraction of a turn in a `u32`.

use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};

use super::f32_bits::{Decoded, decode_f32, f32_from_parts};
use super::fixed::Fpx16_16;
use super::pinned::Fp32Pinned;
use super::scalar::SimScalar;

/// An angle stored as `bits / 2^32` of a turn: adding and subtracting
/// wrap around the circle for free and exactly (a heading that turns
/// forever never loses precision or needs reducing), which is why
/// deterministic games keep headings this way.
///
/// Conversions to and from radians are exact roundings of the exact
/// product with a wide constant, in integers (see
/// [`to_radians`](Self::to_radians) and [`from_radians`](Self::from_radians)).
///
/// ```
/// use laige_core::{BinaryAngle, Fpx16_16, SimScalar};
///
/// let heading = BinaryAngle::from_bits(3 << 30) + BinaryAngle::QUARTER_TURN; // wraps to 0
/// assert_eq!(heading, BinaryAngle::ZERO);
/// let half: Fpx16_16 = BinaryAngle::HALF_TURN.to_radians();
/// assert_eq!(half, -Fpx16_16::PI); // the signed range is [−π, π)
/// // The nearest Q16.16 to π/2 is 4.5e−6 rad past it: 3045 steps past a quarter.
/// let q = BinaryAngle::from_radians(Fpx16_16::FRAC_PI_2);
/// assert_eq!(q - BinaryAngle::QUARTER_TURN, BinaryAngle::from_bits(3045));
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(transparent)]
pub struct BinaryAngle(u32);

/// `π` in Q62 (rounded to nearest).
const PI_Q62: u64 = 0xC90F_DAA2_2168_C235;
/// `2^80 / (2π)` (rounded to nearest): Q16.16 radians to `2^−32` turns.
const INV_TAU_Q80: u128 = 0x28BE_60DB_9391_054A_7F0A;
/// `1 / (2π)` to 256 bits (truncated), most significant word first.
const INV_TAU_256: [u64; 4] = [
    0x28BE_60DB_9391_054A,
    0x7F09_D5F4_7D4D_3770,
    0x36D8_A566_4F10_E410,
    0x7F94_58EA_F7AE_F158,
];

impl BinaryAngle {
    /// No rotation.
    pub const ZERO: Self = Self(0);
    /// A quarter turn (`π/2`).
    pub const QUARTER_TURN: Self = Self(1 << 30);
    /// Half a turn (`π`; as a signed angle, `−π`).
    pub const HALF_TURN: Self = Self(1 << 31);

    /// The angle of `bits / 2^32` turns.
    #[inline]
    #[must_use]
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// The fraction of a turn, in `2^−32` turns.
    #[inline]
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        self.0
    }

    /// The angle in radians, in `[−π, π)` (the bits read as a signed
    /// fraction of a turn), rounded once to the backend's nearest value.
    #[inline]
    #[must_use]
    pub fn to_radians<S: SimScalar>(self) -> S {
        S::radians_from_angle(self)
    }

    /// The angle nearest to `radians`, wrapped into the turn. Q16.16: the
    /// nearest `2^−32` turn of every input, exactly. Binary32: exact too,
    /// for every finite input (a 256-bit `1/2π`, so even `1e30` rad lands
    /// on the right fraction); NaN and `±inf` give [`ZERO`](Self::ZERO).
    #[inline]
    #[must_use]
    pub fn from_radians<S: SimScalar>(radians: S) -> Self {
        radians.angle_from_radians()
    }

    /// `round(raw × 2^16 / 2π)` mod 2^32 for a Q16.16 raw.
    #[must_use]
    pub(crate) const fn from_fixed(x: Fpx16_16) -> Self {
        let raw = x.to_raw();
        // |raw| · C < 2^31 · 2^78 = 2^109.
        let p = raw.unsigned_abs() as u128 * INV_TAU_Q80;
        let mag = ((p + (1 << 63)) >> 64) as u32; // wraps mod 2^32
        Self(if raw < 0 { mag.wrapping_neg() } else { mag })
    }

    /// `round(s × π / 2^15)` as Q16.16, `s` the signed bits.
    #[must_use]
    pub(crate) const fn to_fixed(self) -> Fpx16_16 {
        let s = self.0 as i32;
        let p = s.unsigned_abs() as u128 * PI_Q62 as u128;
        let mag = ((p + (1 << 76)) >> 77) as i32; // <= 205887
        Fpx16_16::from_raw(if s < 0 { -mag } else { mag })
    }

    /// The binary32 nearest to `s × 2π / 2^32`, `s` the signed bits.
    #[must_use]
    pub(crate) fn to_pinned(self) -> Fp32Pinned {
        let s = self.0 as i32;
        if s == 0 {
            return Fp32Pinned::ZERO;
        }
        // The value is |s|·π·2^62 · 2^−93 rad; |s|·π·2^62 < 2^95 is at
        // least 64 bits long (π·2^62 > 2^63).
        let p = s.unsigned_abs() as u128 * PI_Q62 as u128;
        let shift = 64 - p.leading_zeros() as i32; // p >> shift < 2^64
        let mag = (p >> shift) as u64;
        // The exact value is irrational, so never exact: sticky.
        Fp32Pinned::from_f32(f32_from_parts(s < 0, mag, true, shift - 93))
    }

    /// The nearest `2^−32` turn of a binary32 in radians (exact
    /// reduction by the 256-bit `1/2π`).
    #[must_use]
    pub(crate) fn from_pinned(x: Fp32Pinned) -> Self {
        let (neg, m, e) = match decode_f32(x.to_f32()) {
            Decoded::Finite { neg, mant, exp } => (neg, mant, exp),
            Decoded::Nan | Decoded::Inf { .. } => return Self::ZERO,
        };
        // turns·2^32 = m·2^(e+32)/2π = m·W / 2^(224 − e), W = 1/2π · 2^256.
        let sh = 224 - e; // 120..=373
        if m == 0 || sh > 280 {
            // m·W < 2^278: below half a step.
            return Self::ZERO;
        }
        // P = m·W in five little-endian words.
        let mut words = [0u64; 5];
        let mut carry: u128 = 0;
        for (i, w) in INV_TAU_256.iter().rev().enumerate() {
            let t = u128::from(*w) * u128::from(m) + carry;
            words[i] = t as u64;
            carry = t >> 64;
        }
        words[4] = carry as u64;
        // Bits sh−1 .. sh+32 of P: the 32 result bits and the rounding bit.
        let at = (sh - 1) as usize;
        let (idx, off) = (at / 64, at % 64);
        let lo = u128::from(words[idx]);
        let hi = words.get(idx + 1).map_or(0, |w| u128::from(*w));
        let window = ((lo | (hi << 64)) >> off) as u64;
        let mag = (((window & ((1 << 33) - 1)) + 1) >> 1) as u32;
        Self(if neg { mag.wrapping_neg() } else { mag })
    }
}

impl Add for BinaryAngle {
    type Output = Self;
    /// Wrapping (exact modulo a turn).
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self(self.0.wrapping_add(rhs.0))
    }
}

impl Sub for BinaryAngle {
    type Output = Self;
    /// Wrapping (exact modulo a turn).
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self(self.0.wrapping_sub(rhs.0))
    }
}

impl Neg for BinaryAngle {
    type Output = Self;
    /// The opposite rotation (wrapping: `−HALF_TURN = HALF_TURN`).
    #[inline]
    fn neg(self) -> Self {
        Self(self.0.wrapping_neg())
    }
}

impl AddAssign for BinaryAngle {
    #[inline]
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl SubAssign for BinaryAngle {
    #[inline]
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_exactly() {
        let a = BinaryAngle::from_bits(u32::MAX);
        assert_eq!(a + BinaryAngle::from_bits(2), BinaryAngle::from_bits(1));
        assert_eq!(BinaryAngle::ZERO - a, BinaryAngle::from_bits(1));
        assert_eq!(-BinaryAngle::HALF_TURN, BinaryAngle::HALF_TURN);
        let mut h = BinaryAngle::ZERO;
        for _ in 0..4 {
            h += BinaryAngle::QUARTER_TURN;
        }
        assert_eq!(h, BinaryAngle::ZERO);
    }

    #[test]
    fn fixed_conversions_are_the_nearest_values() {
        assert_eq!(BinaryAngle::QUARTER_TURN.to_fixed(), Fpx16_16::FRAC_PI_2);
        assert_eq!(BinaryAngle::HALF_TURN.to_fixed(), -Fpx16_16::PI);
        assert_eq!(BinaryAngle::from_fixed(Fpx16_16::ZERO), BinaryAngle::ZERO);
        // raw 102944 / 2^16 rad is 1073744869.4 steps (300-bit arithmetic).
        assert_eq!(
            BinaryAngle::from_fixed(Fpx16_16::FRAC_PI_2).to_bits(),
            1_073_744_869
        );
        for raw in [1, -1, 12345, -777_777, i32::MAX, i32::MIN] {
            let x = raw as f64 / 65536.0;
            let turns = (x / std::f64::consts::TAU).rem_euclid(1.0) * 4294967296.0;
            let got = BinaryAngle::from_fixed(Fpx16_16::from_raw(raw)).to_bits();
            let diff = (got as f64 - turns).abs();
            assert!(
                diff.min(4294967296.0 - diff) <= 0.5 + 1e-3,
                "raw {raw}: {got} vs {turns}"
            );
        }
    }

    #[test]
    fn pinned_conversions_are_the_nearest_values() {
        let q = BinaryAngle::QUARTER_TURN.to_pinned();
        assert_eq!(q.to_f32(), std::f32::consts::FRAC_PI_2);
        assert_eq!(
            BinaryAngle::HALF_TURN.to_pinned().to_f32(),
            -std::f32::consts::PI
        );
        assert_eq!(BinaryAngle::from_pinned(Fp32Pinned::NAN), BinaryAngle::ZERO);
        assert_eq!(
            BinaryAngle::from_pinned(Fp32Pinned::INFINITY),
            BinaryAngle::ZERO
        );
        for v in [1.0f32, -1.0, 0.001, 3.0, -2.5e3, 1e-20, 6.283_185_5] {
            let turns = (f64::from(v) / std::f64::consts::TAU).rem_euclid(1.0) * 4294967296.0;
            let got = BinaryAngle::from_pinned(Fp32Pinned::from_f32(v)).to_bits();
            let diff = (got as f64 - turns).abs();
            assert!(
                diff.min(4294967296.0 - diff) <= 0.5 + 1e-3,
                "{v}: {got} vs {turns}"
            );
        }
        // 1e30 rad: checked with 300-bit arithmetic (mpmath).
        let big = BinaryAngle::from_pinned(Fp32Pinned::from_f32(1e30));
        assert_eq!(big.to_bits(), BIG_1E30_BITS);
    }

    /// `round(1e30_f32 / 2π · 2^32) mod 2^32`, computed with mpmath.
    const BIG_1E30_BITS: u32 = 2_771_379_783;
}
