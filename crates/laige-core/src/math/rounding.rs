//! Rounding and integer conversion for both backends: `floor`, `ceil`,
//! `round` (ties to even), `trunc`, `fract`, `rem_euclid`, `signum`,
//! `to_i32_floor`, `to_i32_ceil`.
//!
//! Q16.16 saturates as every other op does (`ceil(MAX)` would be 32768,
//! one past the range, so it is `MAX`); binary32 follows IEEE (every result
//! is exact, so any correct implementation gives the same bits) and its
//! integer conversions saturate with NaN → 0, like Rust's `as`.

use super::fixed::{Fpx16_16, round_shr16, saturate_i64};
use super::pinned::Fp32Pinned;

/// The low 16 bits of a Q16.16 raw: the fraction.
const FRAC_MASK: i32 = 0xFFFF;

impl Fpx16_16 {
    /// The largest integer `<= self` (exact; never saturates).
    #[inline]
    #[must_use]
    pub const fn floor(self) -> Self {
        Self::from_raw(self.to_raw() & !FRAC_MASK)
    }

    /// The smallest integer `>= self`, saturated: above 32767 it is `MAX`
    /// (32768 is outside the range).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// assert_eq!(Fpx16_16::from_ratio(-3, 2).ceil(), Fpx16_16::from_i32(-1));
    /// assert_eq!(Fpx16_16::MAX.ceil(), Fpx16_16::MAX);
    /// ```
    #[inline]
    #[must_use]
    pub const fn ceil(self) -> Self {
        let up = (self.to_raw() as i64 + FRAC_MASK as i64) & !(FRAC_MASK as i64);
        Self::from_raw(saturate_i64(up))
    }

    /// The nearest integer, ties to even (`0.5 → 0`, `1.5 → 2`,
    /// `−2.5 → −2`), saturated (above 32767.5 it is `MAX`).
    #[inline]
    #[must_use]
    pub const fn round(self) -> Self {
        Self::from_raw(saturate_i64(round_shr16(self.to_raw() as i64) << 16))
    }

    /// The integer part, toward zero (exact; never saturates).
    #[inline]
    #[must_use]
    pub const fn trunc(self) -> Self {
        let raw = self.to_raw();
        Self::from_raw(if raw < 0 {
            -((raw.unsigned_abs() & !(FRAC_MASK as u32)) as i64) as i32
        } else {
            raw & !FRAC_MASK
        })
    }

    /// `self − trunc(self)` (exact): the fraction with the sign of `self`,
    /// as `f32::fract`.
    #[inline]
    #[must_use]
    pub const fn fract(self) -> Self {
        Self::from_raw(self.to_raw() - self.trunc().to_raw())
    }

    /// The least non-negative remainder of `self / rhs` (exact, in
    /// `[0, |rhs|)`), as `i32::rem_euclid` on the raws; `rem_euclid(x, 0)`
    /// is 0 (the type's division by zero is defined, never a panic).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// let tau = Fpx16_16::TAU;
    /// assert_eq!((-Fpx16_16::ONE).rem_euclid(tau), tau - Fpx16_16::ONE);
    /// assert_eq!(Fpx16_16::ONE.rem_euclid(Fpx16_16::ZERO), Fpx16_16::ZERO);
    /// ```
    #[inline]
    #[must_use]
    pub const fn rem_euclid(self, rhs: Self) -> Self {
        if rhs.to_raw() == 0 {
            return Self::ZERO;
        }
        // In i64: MIN.rem_euclid(−1) would overflow in i32.
        Self::from_raw((self.to_raw() as i64).rem_euclid(rhs.to_raw() as i64) as i32)
    }

    /// `−1`, `0` or `1` by the sign of `self`.
    #[inline]
    #[must_use]
    pub const fn signum(self) -> Self {
        Self::from_raw(self.to_raw().signum() << 16)
    }

    /// `floor(self)` as an integer, in `[−32768, 32767]` (exact).
    #[inline]
    #[must_use]
    pub const fn to_i32_floor(self) -> i32 {
        self.to_raw() >> 16
    }

    /// `ceil(self)` as an integer, in `[−32768, 32768]` (exact: the
    /// integer form does not saturate).
    #[inline]
    #[must_use]
    pub const fn to_i32_ceil(self) -> i32 {
        ((self.to_raw() as i64 + FRAC_MASK as i64) >> 16) as i32
    }
}

impl Fp32Pinned {
    /// IEEE `floor` (exact; NaN → NaN, `±inf`, `±0` unchanged).
    #[inline]
    #[must_use]
    pub fn floor(self) -> Self {
        Self::from_f32(self.to_f32().floor())
    }

    /// IEEE `ceil` (exact; `ceil(−0.5) = −0`).
    #[inline]
    #[must_use]
    pub fn ceil(self) -> Self {
        Self::from_f32(self.to_f32().ceil())
    }

    /// The nearest integer, ties to even (`f32::round_ties_even`; exact).
    #[inline]
    #[must_use]
    pub fn round(self) -> Self {
        Self::from_f32(self.to_f32().round_ties_even())
    }

    /// The integer part, toward zero (exact).
    #[inline]
    #[must_use]
    pub fn trunc(self) -> Self {
        Self::from_f32(self.to_f32().trunc())
    }

    /// `self − trunc(self)` (exact; `f32::fract`: NaN for `±inf`).
    #[inline]
    #[must_use]
    pub fn fract(self) -> Self {
        Self::from_f32(self.to_f32().fract())
    }

    /// `f32::rem_euclid`: the exact IEEE remainder `self % rhs`, plus
    /// `|rhs|` (one rounded add) when it is negative. NaN for `rhs = 0`,
    /// NaN or infinite `self`.
    #[inline]
    #[must_use]
    pub fn rem_euclid(self, rhs: Self) -> Self {
        Self::from_f32(self.to_f32().rem_euclid(rhs.to_f32()))
    }

    /// `f32::signum`: `1` for `+0` and positives, `−1` for `−0` and
    /// negatives, NaN for NaN.
    #[inline]
    #[must_use]
    pub fn signum(self) -> Self {
        Self::from_f32(self.to_f32().signum())
    }

    /// `floor(self)` as an integer, saturated to the `i32` range; NaN → 0
    /// (Rust's `as`).
    #[inline]
    #[must_use]
    pub fn to_i32_floor(self) -> i32 {
        self.to_f32().floor() as i32
    }

    /// `ceil(self)` as an integer, saturated; NaN → 0.
    #[inline]
    #[must_use]
    pub fn to_i32_ceil(self) -> i32 {
        self.to_f32().ceil() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(raw: i32) -> Fpx16_16 {
        Fpx16_16::from_raw(raw)
    }

    /// The exact rational reference: `raw / 2^16` floored, ceiled, rounded
    /// (ties to even) and truncated in `i64`, saturated to the Q16.16 range.
    fn reference(raw: i32) -> [i32; 4] {
        let v = raw as i64;
        let floor = v.div_euclid(65536);
        let ceil = -((-v).div_euclid(65536));
        let rem = v - floor * 65536;
        let round = if rem > 32768 || (rem == 32768 && floor & 1 == 1) {
            floor + 1
        } else {
            floor
        };
        let trunc = if v < 0 { ceil } else { floor };
        [floor, ceil, round, trunc].map(|i| saturate_i64(i * 65536))
    }

    #[test]
    fn fixed_rounding_matches_the_exact_reference() {
        let mut raws = vec![i32::MIN, i32::MIN + 1, i32::MAX, i32::MAX - 0x8000, 0];
        for k in -3..=3 {
            for off in [-0x8001, -0x8000, -0x7FFF, -1, 0, 1, 0x7FFF, 0x8000, 0x8001] {
                raws.push(k * 65536 + off);
            }
        }
        let mut x = 0x1234_5678u32;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            raws.push(x as i32);
        }
        for raw in raws {
            let v = r(raw);
            let got = [v.floor(), v.ceil(), v.round(), v.trunc()].map(Fpx16_16::to_raw);
            assert_eq!(got, reference(raw), "raw {raw}");
            assert_eq!(v.fract().to_raw(), raw - v.trunc().to_raw());
            assert_eq!(v.to_i32_floor() as i64, (raw as i64).div_euclid(65536));
            assert_eq!(v.to_i32_ceil() as i64, -(-(raw as i64)).div_euclid(65536));
            assert_eq!(v.round().to_raw() >> 16, v.to_i32().min(32767));
        }
    }

    #[test]
    fn fixed_rem_euclid_signum() {
        assert_eq!(Fpx16_16::MIN.rem_euclid(r(-1)), Fpx16_16::ZERO);
        assert_eq!(r(-5).rem_euclid(r(3)), r(1));
        assert_eq!(r(-5).rem_euclid(r(-3)), r(1));
        assert_eq!(r(5).rem_euclid(Fpx16_16::ZERO), Fpx16_16::ZERO);
        assert_eq!(r(-7).signum(), -Fpx16_16::ONE);
        assert_eq!(Fpx16_16::ZERO.signum(), Fpx16_16::ZERO);
        assert_eq!(Fpx16_16::MAX.signum(), Fpx16_16::ONE);
        assert_eq!(Fpx16_16::MIN.fract(), Fpx16_16::ZERO);
        assert_eq!(r(-0x1_8000).fract(), r(-0x8000));
    }

    #[test]
    fn pinned_rounding_follows_ieee() {
        let p = Fp32Pinned::from_f32;
        assert_eq!(p(2.5).round().to_f32(), 2.0);
        assert_eq!(p(-2.5).round().to_f32(), -2.0);
        assert_eq!(p(3.5).round().to_f32(), 4.0);
        assert_eq!(p(-0.5).ceil().to_bits(), (-0.0f32).to_bits());
        assert_eq!(p(-1.25).floor().to_f32(), -2.0);
        assert_eq!(p(-1.25).trunc().to_f32(), -1.0);
        assert_eq!(p(-1.25).fract().to_f32(), -0.25);
        assert_eq!(p(-1.0).rem_euclid(p(4.0)).to_f32(), 3.0);
        assert!(p(1.0).rem_euclid(p(0.0)).is_nan());
        assert_eq!(p(-0.0).signum().to_f32(), -1.0);
        assert!(Fp32Pinned::NAN.signum().is_nan());
        assert_eq!(p(1e20).to_i32_floor(), i32::MAX);
        assert_eq!(p(-1e20).to_i32_ceil(), i32::MIN);
        assert_eq!(Fp32Pinned::NAN.to_i32_floor(), 0);
        assert_eq!(p(-1.5).to_i32_floor(), -2);
        assert_eq!(p(-1.5).to_i32_ceil(), -1);
    }
}
