//! Trigonometry on [`Fp32Pinned`]: the pure-Rust `libm` crate (a port of
//! musl's single-precision routines), built without its `arch` feature so
//! no target-specific implementation is ever swapped in. Each routine is a
//! fixed sequence of IEEE binary32/binary64 basic operations (no FMA, no
//! platform C library), so results are bit-identical on every IEEE target
//! that evaluates binary64 in binary64 (every 64-bit target; `libm` pins
//! the x87 rounding precision itself on 32-bit x86 without SSE2).
//!
//! NaN/inf policy is IEEE's, as for the arithmetic: a NaN argument gives
//! NaN; `sin(±inf)`, `cos(±inf)`, `tan(±inf)` and `asin`/`acos` outside
//! `[−1, 1]` give NaN; `atan(±inf) = ±π/2`; `atan2` follows IEEE 754's
//! table (signed zeros, infinities).

use super::pinned::Fp32Pinned;

impl Fp32Pinned {
    /// `π` (the nearest binary32, `f32::consts::PI`).
    pub const PI: Self = Self::from_f32(std::f32::consts::PI);
    /// `2π` (the nearest binary32, `f32::consts::TAU`).
    pub const TAU: Self = Self::from_f32(std::f32::consts::TAU);
    /// `π/2` (the nearest binary32, `f32::consts::FRAC_PI_2`).
    pub const FRAC_PI_2: Self = Self::from_f32(std::f32::consts::FRAC_PI_2);

    /// The sine (`libm::sinf`, exact range reduction for every finite
    /// input). Measured over all 2^32 inputs against a binary64 reference
    /// (`tests/math_trig_exhaustive.rs`): within 1 ulp (largest error
    /// 0.5009 ulp over every finite input; NaN and `±inf` give NaN).
    #[inline]
    #[must_use]
    pub fn sin(self) -> Self {
        Self::from_f32(libm::sinf(self.to_f32()))
    }

    /// The cosine (`libm::cosf`); the same measured bound as
    /// [`sin`](Self::sin).
    #[inline]
    #[must_use]
    pub fn cos(self) -> Self {
        Self::from_f32(libm::cosf(self.to_f32()))
    }

    /// `(sin, cos)`: exactly the two calls [`sin`](Self::sin) and
    /// [`cos`](Self::cos), so bit-identical to them on every target.
    ///
    /// Not `libm::sincosf`: built for s390x with optimizations (opt-level 1
    /// and 3, run under QEMU 7.2), `libm` 0.2.16's `sincosf(0.5)` returned
    /// `(0x3effffd5, 0x3f7fff80)` where `sinf`/`cosf` (and every build on
    /// x86_64, and s390x at opt-level 0) give `(0x3ef57744, 0x3f60a940)`.
    #[inline]
    #[must_use]
    pub fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }

    /// The tangent (`libm::tanf`). Measured on 2^24 inputs spread over all
    /// 2^32: within 1 ulp (largest error 0.88 ulp over tan, atan, asin, acos).
    #[inline]
    #[must_use]
    pub fn tan(self) -> Self {
        Self::from_f32(libm::tanf(self.to_f32()))
    }

    /// The angle of `(x, y) = (other, self)` in `[−π, π]` (`libm::atan2f`,
    /// IEEE special cases). Measured on 16M random pairs plus the edge
    /// table: within 2 ulp (largest error 1.43 ulp).
    #[inline]
    #[must_use]
    pub fn atan2(self, other: Self) -> Self {
        Self::from_f32(libm::atan2f(self.to_f32(), other.to_f32()))
    }

    /// The arctangent (`libm::atanf`). Measured on 2^24 inputs spread over all
    /// 2^32: within 1 ulp (largest error 0.88 ulp over tan, atan, asin, acos).
    #[inline]
    #[must_use]
    pub fn atan(self) -> Self {
        Self::from_f32(libm::atanf(self.to_f32()))
    }

    /// The arcsine (`libm::asinf`; NaN outside `[−1, 1]`). Measured as
    /// [`tan`](Self::tan).
    #[inline]
    #[must_use]
    pub fn asin(self) -> Self {
        Self::from_f32(libm::asinf(self.to_f32()))
    }

    /// The arccosine (`libm::acosf`; NaN outside `[−1, 1]`). Measured
    /// (every input): within 1 ulp.
    #[inline]
    #[must_use]
    pub fn acos(self) -> Self {
        Self::from_f32(libm::acosf(self.to_f32()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: f32) -> Fp32Pinned {
        Fp32Pinned::from_f32(v)
    }

    #[test]
    fn special_values_follow_ieee() {
        let nan = Fp32Pinned::NAN;
        let inf = Fp32Pinned::INFINITY;
        for f in [
            Fp32Pinned::sin,
            Fp32Pinned::cos,
            Fp32Pinned::tan,
            Fp32Pinned::asin,
            Fp32Pinned::acos,
            Fp32Pinned::atan,
        ] {
            assert!(f(nan).is_nan());
        }
        assert!(inf.sin().is_nan() && inf.cos().is_nan() && inf.tan().is_nan());
        assert!(p(1.5).asin().is_nan() && p(-1.5).acos().is_nan());
        // musl's atanf(inf) is the binary32 just below π/2.
        assert_eq!(inf.atan().to_bits(), Fp32Pinned::FRAC_PI_2.to_bits() - 1);
        assert_eq!(p(0.0).atan2(p(-1.0)), Fp32Pinned::PI);
        assert_eq!(p(-0.0).atan2(p(-1.0)), -Fp32Pinned::PI);
        assert_eq!(p(-0.0).sin().to_bits(), (-0.0f32).to_bits());
        assert_eq!(p(0.0).cos(), Fp32Pinned::ONE);
    }

    #[test]
    fn sin_cos_is_the_two_calls() {
        for v in [0.0f32, 1e-30, 0.5, 3.0, 1e5, 1e30, -7.25] {
            let (s, c) = p(v).sin_cos();
            assert_eq!(
                (s.to_bits(), c.to_bits()),
                (p(v).sin().to_bits(), p(v).cos().to_bits())
            );
        }
    }
}
