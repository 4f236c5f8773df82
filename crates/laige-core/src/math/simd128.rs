//! Q16.16 in wasm SIMD128 lanes: four `Fpx16_16` values per 128-bit
//! vector, each lane the same bits as the scalar ops (compiled only for
//! `wasm32` with `target_feature = "simd128"`).
//!
//! Rule: every function here gives, lane for lane, exactly what the scalar
//! ops of [`Fpx16_16`](super::Fpx16_16) give (`saturating_mul`, then
//! `saturating_add`) for every input, the raw values `i32::MIN` and
//! `i32::MAX` included; the tests compare them on the edge values and on
//! seeded ones, on the wasm32 targets built with SIMD128.
//!
//! How: in binary64 lanes, two values per 128-bit vector. A product of two
//! raws is an integer; below `2^53` in magnitude binary64 holds it
//! exactly, and IEEE 754's multiply (wasm's `f64x2.mul`, correctly rounded
//! like every wasm float op) then gives it exactly; scaling by `2^−16` is
//! exact too; `f64x2.nearest` rounds to the nearest integer with ties to
//! even, as the scalar multiply does. A product of `2^53` or more in
//! magnitude saturates anyway (the result's bound is `2^47`), and its
//! rounded binary64 value is still at least `2^53` with the right sign
//! (rounding is monotone), so the clamp to the `i32` range gives `MIN` or
//! `MAX` as the scalar op does. The clamped product plus the addend is an
//! integer below `2^33` in magnitude, exact; clamped to the `i32` range
//! again it is the saturating add, read back as an integer by the
//! `1.5·2^52` trick (below).
//!
//! Why floats: wasm has no widening 32-bit multiply the compiler keeps
//! (rustc's LLVM emits `i64x2_extmul_*_i32x4` against a splat as a sign
//! extension and a full `i64x2.mul`, which x86 engines build from three
//! 32-bit multiplies and several shifts, and x86 before AVX-512 has no
//! 64-bit arithmetic shift for the rounding); the binary64 path is a
//! handful of single x86 instructions per two lanes (`cvtdq2pd`, `mulpd`,
//! `roundpd`, `minpd`, `maxpd`, `addpd`).

use super::{Fpx16_16, Vec2};
use core::arch::wasm32::{
    f64x2_add, f64x2_convert_low_i32x4, f64x2_mul, f64x2_nearest, f64x2_pmax, f64x2_pmin,
    f64x2_splat, i32x4, i32x4_extract_lane, i32x4_shuffle, i32x4_splat, v128,
};

/// `2^−16`: a raw product times this is the Q16.16 product before rounding.
const RAW_STEP: f64 = 1.0 / 65536.0;

/// Four lanes of `acc.saturating_add(b.saturating_mul(s))` on Q16.16 raws.
#[inline(always)]
#[must_use]
pub fn mul_add_q16(acc: v128, b: v128, s: v128) -> v128 {
    // The high halves of each operand moved down for the second pair.
    let high = |v: v128| i32x4_shuffle::<2, 3, 2, 3>(v, v);
    let lo = mul_add_pair(acc, b, scaled(s));
    let hi = mul_add_pair(high(acc), high(b), scaled(high(s)));
    // The results are the low words of the four binary64 lanes.
    i32x4_shuffle::<0, 2, 4, 6>(lo, hi)
}

/// The low two `i32` lanes of `s` as binary64 times `2^−16` (exact).
#[inline(always)]
fn scaled(s: v128) -> v128 {
    f64x2_mul(f64x2_convert_low_i32x4(s), f64x2_splat(RAW_STEP))
}

/// The low two lanes of [`mul_add_q16`], given the low two of `s` as
/// [`scaled`] gives them: two binary64 lanes whose low words are the
/// results.
#[inline(always)]
fn mul_add_pair(acc: v128, b: v128, s_scaled: v128) -> v128 {
    let product = clamp_i32(f64x2_nearest(f64x2_mul(
        f64x2_convert_low_i32x4(b),
        s_scaled,
    )));
    let sum = clamp_i32(f64x2_add(f64x2_convert_low_i32x4(acc), product));
    // `sum + 1.5·2^52` lies in `[2^52, 2^53)`, where binary64's step is 1:
    // exact for the integer `sum`, its stored bits less those of `1.5·2^52`
    // are `sum` in two's complement in the low word. (Not wasm's
    // `i32x4.trunc_sat_f64x2_s_zero`: LLVM merges two of those into one
    // four-lane conversion that it then runs lane by lane.)
    f64x2_add(sum, f64x2_splat(ROUND_SIGNED))
}

/// `1.5·2^52`: adding it to an integer of magnitude `<= 2^51` is exact and
/// leaves the integer in the sum's low bits.
const ROUND_SIGNED: f64 = 6_755_399_441_055_744.0;

/// Two binary64 lanes clamped to `[i32::MIN, i32::MAX]` (`pmin`/`pmax`,
/// one x86 instruction each, are `min`/`max` here: no lane is NaN).
#[inline(always)]
fn clamp_i32(v: v128) -> v128 {
    f64x2_pmax(
        f64x2_pmin(v, f64x2_splat(f64::from(i32::MAX))),
        f64x2_splat(f64::from(i32::MIN)),
    )
}

/// `SimScalar::mul_add_vec2s` for Q16.16: two vectors (four components)
/// per step, `acc + by × s` in lanes ([`mul_add_q16`]: the scalar `*` then
/// `+`), the odd last vector by the scalar ops.
#[inline(always)]
pub(crate) fn mul_add_vec2s<D, T>(
    dst: &mut [D],
    src: &[T],
    s: Fpx16_16,
    acc: impl Fn(&mut D) -> &mut Vec2<Fpx16_16>,
    by: impl Fn(&T) -> Vec2<Fpx16_16>,
) {
    let n = dst.len().min(src.len());
    let (dst, src) = (&mut dst[..n], &src[..n]);
    let sv = i32x4_splat(s.to_raw());
    let mut pairs = dst.chunks_exact_mut(2);
    for (d, t) in (&mut pairs).zip(src.chunks_exact(2)) {
        let [d0, d1] = d else { continue };
        let (a0, a1) = (acc(d0), acc(d1));
        let (b0, b1) = (by(&t[0]), by(&t[1]));
        let a = i32x4(a0.x.to_raw(), a0.y.to_raw(), a1.x.to_raw(), a1.y.to_raw());
        let b = i32x4(b0.x.to_raw(), b0.y.to_raw(), b1.x.to_raw(), b1.y.to_raw());
        let r = mul_add_q16(a, b, sv);
        let raw = Fpx16_16::from_raw;
        *a0 = Vec2::new(
            raw(i32x4_extract_lane::<0>(r)),
            raw(i32x4_extract_lane::<1>(r)),
        );
        *a1 = Vec2::new(
            raw(i32x4_extract_lane::<2>(r)),
            raw(i32x4_extract_lane::<3>(r)),
        );
    }
    if let ([d], Some(t)) = (pairs.into_remainder(), src.last()) {
        *acc(d) += by(t) * s;
    }
}

#[cfg(test)]
mod tests {
    use super::mul_add_q16;
    use crate::Fpx16_16;
    use core::arch::wasm32::{i32x4, i32x4_extract_lane, v128};

    fn lanes(v: v128) -> [i32; 4] {
        [
            i32x4_extract_lane::<0>(v),
            i32x4_extract_lane::<1>(v),
            i32x4_extract_lane::<2>(v),
            i32x4_extract_lane::<3>(v),
        ]
    }

    /// Raw values where the rules turn: the extremes, signs, one raw step,
    /// one unit, halves and ties of the rounding, the products that land
    /// on the saturation bounds (181.02 units squared is `MAX`).
    const EDGES: [i32; 32] = [
        i32::MIN,
        i32::MIN + 1,
        i32::MAX,
        i32::MAX - 1,
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        0x8000,
        -0x8000,
        0x8001,
        -0x8001,
        0x1_0000,
        -0x1_0000,
        0x1_8000,
        -0x1_8000,
        0x00B5_04F3, // ≈ 181.019: its square is just below MAX
        -0x00B5_04F3,
        0x00B5_04F4, // its square is just above MAX
        -0x00B5_04F4,
        0x7FFF_8000,
        -0x7FFF_8000,
        1092,        // 1/60, the workload's dt
        0x0100_0000, // 256: times 2^23 ± 1 raws, a product near 2^47
        0x0080_0000,
        0x007F_FFFF,
        -0x0080_0001,
        0x0400_0001, // a product near 2^53 with 0x7FFF_FFFF
        -0x0400_0000,
    ];

    /// Four lanes of [`mul_add_q16`] against the scalar ops on each lane.
    fn check(acc: [i32; 4], b: [i32; 4], s: [i32; 4]) {
        let got = lanes(mul_add_q16(v(acc), v(b), v(s)));
        let want = [0, 1, 2, 3].map(|i| mul_add(acc[i], b[i], s[i]));
        assert_eq!(got, want, "{acc:?} + {b:?} × {s:?}");
    }

    fn v(a: [i32; 4]) -> v128 {
        i32x4(a[0], a[1], a[2], a[3])
    }

    /// `acc + b × s` by the scalar ops.
    fn mul_add(acc: i32, b: i32, s: i32) -> i32 {
        let r = Fpx16_16::from_raw;
        r(acc).saturating_add(r(b).saturating_mul(r(s))).to_raw()
    }

    /// Every triple of edge values, in every lane position (the accumulator
    /// 0 among them: the multiply alone).
    #[test]
    fn lanes_are_the_scalar_ops_on_every_triple_of_edge_values() {
        let n = EDGES.len();
        for (i, &x) in EDGES.iter().enumerate() {
            for (j, &y) in EDGES.iter().enumerate() {
                for (k, &z) in EDGES.iter().enumerate() {
                    // The triple in a different lane each time, other
                    // edges beside.
                    let lane = (i + j + k) % 4;
                    let mut acc = [EDGES[(i + 7) % n], z, y, EDGES[k]];
                    let mut b = [EDGES[(j + 3) % n], x, z, EDGES[i]];
                    let mut s = [EDGES[(k + 5) % n], y, x, EDGES[j]];
                    acc[lane] = x;
                    b[lane] = y;
                    s[lane] = z;
                    check(acc, b, s);
                }
            }
        }
        // The known answers of the contract, lane for lane: MIN × MIN =
        // MAX, MIN × MAX = MIN, half a raw step ties to even (0, and 1.5
        // steps to 2) on either sign; MAX + 1 raw = MAX, MIN − 1 raw = MIN;
        // the product saturates before the sum (−10 + MAX × MAX is
        // MAX − 10, not MAX).
        let (min, max) = (i32::MIN, i32::MAX);
        let got = mul_add_q16(
            v([0; 4]),
            v([min, min, 0x8000, -0x1_8000]),
            v([min, max, 1, 1]),
        );
        assert_eq!(lanes(got), [max, min, 0, -2]);
        let got = mul_add_q16(
            v([max, min, -10, 10]),
            v([0x1_0000, -0x1_0000, max, min]),
            v([1, 1, max, max]),
        );
        assert_eq!(lanes(got), [max, min, max - 10, min + 10]);
    }

    /// The slice kernel against the scalar `+=` and `*` on each vector: odd
    /// and even lengths, unequal slices (the shorter bounds it, the rest
    /// untouched), edge values in the vectors and as the scale.
    #[test]
    fn the_slice_kernel_is_the_scalar_loop() {
        use crate::{SimScalar, Vec2};
        let r = Fpx16_16::from_raw;
        let vecs: Vec<Vec2<Fpx16_16>> = EDGES
            .iter()
            .zip(EDGES.iter().rev())
            .map(|(&x, &y)| Vec2::new(r(x), r(y)))
            .collect();
        for s in [0, 1, -1, 1092, 0x8000, i32::MIN, i32::MAX, 0x00B5_04F4] {
            for len in [0, 1, 2, 3, 25, 26] {
                let mut dst: Vec<(u8, Vec2<Fpx16_16>)> =
                    vecs.iter().rev().map(|&v| (9, v)).take(len + 1).collect();
                let mut want = dst.clone();
                for (d, t) in want.iter_mut().zip(&vecs[..len]) {
                    d.1 += *t * r(s);
                }
                Fpx16_16::mul_add_vec2s(&mut dst, &vecs[..len], r(s), |d| &mut d.1, |t| *t);
                assert_eq!(dst, want, "scale {s}, {len} vectors");
            }
        }
    }

    /// Seeded raws of every bit length and sign.
    #[test]
    fn lanes_are_the_scalar_ops_on_seeded_values() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x as i32) >> (x >> 59)
        };
        for _ in 0..200_000 {
            let acc = [next(), next(), next(), next()];
            let b = [next(), next(), next(), next()];
            let s = [next(), next(), next(), next()];
            check(acc, b, s);
        }
    }
}
