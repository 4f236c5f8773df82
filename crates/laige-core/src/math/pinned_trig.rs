//! Trigonometry on [`Fp32Pinned`]: the pure-Rust `libm` crate (a port of
//! musl's single-precision routines), built without its `arch` feature so
//! no target-specific implementation is ever swapped in. Each routine is a
//! fixed sequence of IEEE binary32/binary64 basic operations (no FMA, no
//! platform C library), so results are bit-identical on every IEEE target
//! that evaluates binary64 in binary64 (every 64-bit target; `libm` pins
//! the x87 rounding precision itself on 32-bit x86 without SSE2).
//!
//! `sin` and `cos` give `sinf`'s and `cosf`'s bits without calling them for
//! `|x| < 2^28·π/2`: the same binary64 operations on the same values, with
//! the quadrant chosen by a count of compares and a select instead of
//! `sinf`'s chain of range branches (which random game angles mispredict),
//! and inlined into the caller.
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

    /// The sine: bit for bit `libm::sinf` (exact range reduction for every
    /// finite input). Measured over all 2^32 inputs against a binary64
    /// reference (`tests/math_trig_exhaustive.rs`): within 1 ulp (largest
    /// error 0.5009 ulp over every finite input; NaN and `±inf` give NaN).
    ///
    /// Below `2^28·π/2` the reduction and the polynomials are `sinf`'s own
    /// operations, written without its chain of range branches (see
    /// `quadrant_and_remainder`); larger inputs, `±inf` and NaN call
    /// `libm::sinf` itself. `tests/math_pinned_trig_libm.rs` checks every
    /// input of the computed range (and a band above it) against
    /// `libm::sinf`.
    #[inline]
    #[must_use]
    pub fn sin(self) -> Self {
        let x = self.to_f32();
        let ix = x.to_bits() & 0x7FFF_FFFF;
        if ix >= MEDIUM_LIMIT {
            return Self::from_f32(libm_sinf(x));
        }
        if ix < TINY_LIMIT {
            // |x| < 2^−12: sinf returns x itself.
            return self;
        }
        let (q, y) = quadrant_and_remainder(x);
        Self::from_f32(sin_in_quadrant(q, y))
    }

    /// The cosine: bit for bit `libm::cosf`, computed as
    /// [`sin`](Self::sin) is (one quadrant further on); the same measured
    /// bound.
    #[inline]
    #[must_use]
    pub fn cos(self) -> Self {
        let x = self.to_f32();
        let ix = x.to_bits() & 0x7FFF_FFFF;
        if ix >= MEDIUM_LIMIT {
            return Self::from_f32(libm_cosf(x));
        }
        if ix < TINY_LIMIT {
            // |x| < 2^−12: cosf returns 1.
            return Self::ONE;
        }
        let (q, y) = quadrant_and_remainder(x);
        Self::from_f32(sin_in_quadrant(q.wrapping_add(1), y))
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

/// `|x|` bits from which `sinf`/`cosf` reduce through the multi-word `2/π`
/// (`2^28·π/2`; `±inf` and NaN are above it too).
const MEDIUM_LIMIT: u32 = 0x4DC9_0FDB;
/// `|x|` bits below which `sinf` returns `x` and `cosf` returns 1 (2^−12).
const TINY_LIMIT: u32 = 0x3980_0000;
/// `|x|` bits up to which `sinf`/`cosf` subtract a small multiple of `π/2`
/// (about `9π/4`); above, they round `x·2/π` to the quadrant.
const SMALL_LIMIT: u32 = 0x40E2_31D5;
/// `|x|` bits of the upper ends of the first four small ranges (about
/// `π/4`, `3π/4`, `5π/4`, `7π/4`): `k` of them exceeded, `k·π/2` is
/// subtracted.
const SMALL_STEPS: [u32; 4] = [0x3F49_0FDA, 0x4016_CBE3, 0x407B_53D1, 0x40AF_EDDF];
/// `k·π/2` in binary64 (`k · FRAC_PI_2`, one rounding), `k = 0..=4`.
const PIO2_MULTIPLES: [f64; 5] = [
    0.0,
    std::f64::consts::FRAC_PI_2,
    2.0 * std::f64::consts::FRAC_PI_2,
    3.0 * std::f64::consts::FRAC_PI_2,
    4.0 * std::f64::consts::FRAC_PI_2,
];
/// `1.5 · 2^52`: adding it rounds a binary64 to an integer (round to nearest).
const TOINT: f64 = 1.5 / f64::EPSILON;
/// 53 bits of `2/π`.
const INV_PIO2: f64 = f64::from_bits(0x3FE4_5F30_6DC9_C883); // 6.36619772367581382433e-1
/// The first 25 bits of `π/2`.
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5000_0000); // 1.57079631090164184570e0
/// `π/2 − PIO2_1`.
const PIO2_1T: f64 = f64::from_bits(0x3E51_10B4_611A_6263); // 1.58932547735281966916e-8

/// The quadrant `q` (mod 4) and the remainder `y = x − q·π/2` of a finite
/// `x` with `2^−12 <= |x| < 2^28·π/2`, by exactly the binary64 operations
/// `libm::sinf` and `libm::cosf` use (musl's): up to about `9π/4`, one
/// subtraction of the `k·π/2` below `|x|` (`k` from the same thresholds),
/// `q = ±k`; above, `rem_pio2f`'s medium path (`x·2/π` rounded through
/// `TOINT`, then `x − n·PIO2_1 − n·PIO2_1T`). The range test is the one
/// branch; `k` is a count of compares, so the small range has no
/// data-dependent branch to mispredict.
#[inline]
fn quadrant_and_remainder(x: f32) -> (u32, f64) {
    let x64 = f64::from(x);
    let bits = x.to_bits();
    let ix = bits & 0x7FFF_FFFF;
    let neg = bits >> 31 != 0;
    if ix <= SMALL_LIMIT {
        let k = SMALL_STEPS.iter().map(|&t| u32::from(ix > t)).sum::<u32>();
        let s = PIO2_MULTIPLES[k as usize];
        // sinf/cosf: `x + k·π/2` for negative x, `x − k·π/2` otherwise
        // (x is not zero here, so `± 0.0` keeps it exactly).
        if neg {
            (k.wrapping_neg() & 3, x64 + s)
        } else {
            (k & 3, x64 - s)
        }
    } else {
        let tmp = x64 * INV_PIO2 + TOINT;
        // As rem_pio2f: on x87 the sum must be rounded to binary64 first.
        #[cfg(all(target_arch = "x86", not(target_feature = "sse2")))]
        let tmp = std::hint::black_box(tmp);
        let f_n = tmp - TOINT;
        ((f_n as i32 as u32) & 3, x64 - f_n * PIO2_1 - f_n * PIO2_1T)
    }
}

/// `sin(q·π/2 + y)` for `|y| <= ~π/4`: `k_sinf(y)` for even `q`,
/// `k_cosf(y)` for odd, negated for `q mod 4` in `{2, 3}` — the selection
/// `sinf` (quadrant `q`) and `cosf` (quadrant `q + 1`) make. Both kernels
/// are odd/even exactly (round to nearest is sign-symmetric), so
/// `k_sinf(−y) = −k_sinf(y)` and `k_cosf(−y) = k_cosf(y)` bit for bit.
#[inline]
fn sin_in_quadrant(q: u32, y: f64) -> f32 {
    let s = k_sinf(y);
    let c = k_cosf(y);
    let r = if q & 1 == 0 { s } else { c };
    if q & 2 == 0 { r } else { -r }
}

/// musl's `__sindf`: the sine on `[−π/4, π/4]` in binary64 (the same
/// constants and the same order of operations as `libm`'s `k_sinf`).
#[inline]
fn k_sinf(x: f64) -> f32 {
    const S1: f64 = f64::from_bits(0xBFC5_5555_54CB_AC77); // -0.166666666416265235595
    const S2: f64 = f64::from_bits(0x3F81_1110_896E_FBB2); // 0.0083333293858894631756
    const S3: f64 = f64::from_bits(0xBF2A_00F9_E2CA_E774); // -0.000198393348360966317347
    const S4: f64 = f64::from_bits(0x3EC6_CD87_8C3B_46A7); // 0.0000027183114939898219064
    let z = x * x;
    let w = z * z;
    let r = S3 + z * S4;
    let s = z * x;
    ((x + s * (S1 + z * S2)) + s * w * r) as f32
}

/// musl's `__cosdf`: the cosine on `[−π/4, π/4]` (as `libm`'s `k_cosf`).
#[inline]
fn k_cosf(x: f64) -> f32 {
    const C0: f64 = f64::from_bits(0xBFDF_FFFF_FD0C_5E81); // -0.499999997251031003120
    const C1: f64 = f64::from_bits(0x3FA5_5553_E105_3A42); // 0.0416666233237390631894
    const C2: f64 = f64::from_bits(0xBF56_C087_E80F_1E27); // -0.00138867637746099294692
    const C3: f64 = f64::from_bits(0x3EF9_9342_E0EE_5069); // 0.0000243904487962774090654
    let z = x * x;
    let w = z * z;
    let r = C2 + z * C3;
    (((1.0 + z * C0) + w * C1) + (w * z) * r) as f32
}

/// `libm::sinf` out of line: the rare inputs (huge, `±inf`, NaN).
#[cold]
#[inline(never)]
fn libm_sinf(x: f32) -> f32 {
    libm::sinf(x)
}

/// `libm::cosf` out of line: the rare inputs (huge, `±inf`, NaN).
#[cold]
#[inline(never)]
fn libm_cosf(x: f32) -> f32 {
    libm::cosf(x)
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
    /// Every range edge of the reduction (a few ulp either side, both
    /// signs) and 2^16 inputs spread over all 2^32: the same bits as
    /// `libm::sinf`/`cosf` (the heavy `tests/math_pinned_trig_libm.rs`
    /// checks every input below the libm limit).
    #[test]
    fn sin_and_cos_are_libm_bit_for_bit() {
        let edges = [TINY_LIMIT, SMALL_LIMIT, MEDIUM_LIMIT, 0x7F80_0000]
            .into_iter()
            .chain(SMALL_STEPS);
        let near = edges.flat_map(|e| (e - 4..=e + 4).flat_map(|b| [b, b | 0x8000_0000]));
        let spread = (0u32..1 << 16).map(|i| (i << 16) | (i.wrapping_mul(0x9E37) & 0xFFFF));
        for b in near.chain(spread) {
            let x = f32::from_bits(b);
            assert_eq!(
                p(x).sin().to_bits(),
                libm::sinf(x).to_bits(),
                "sin {b:#010x}"
            );
            assert_eq!(
                p(x).cos().to_bits(),
                libm::cosf(x).to_bits(),
                "cos {b:#010x}"
            );
        }
    }

    #[test]
    fn multiples_of_half_pi_are_musls() {
        // musl's S1_PIO2..S4_PIO2 (its comments give the bits).
        assert_eq!(PIO2_MULTIPLES[2].to_bits(), 0x4009_21FB_5444_2D18);
        assert_eq!(PIO2_MULTIPLES[4].to_bits(), 0x4019_21FB_5444_2D18);
        assert_eq!(PIO2_MULTIPLES[1].to_bits(), 0x3FF9_21FB_5444_2D18);
        assert_eq!(PIO2_MULTIPLES[3].to_bits(), 0x4012_D97C_7F33_21D2);
    }
}
