//! Q16.16 in wasm SIMD128 lanes: four `Fpx16_16` values per 128-bit
//! vector, each lane the same bits as the scalar op (compiled only for
//! `wasm32` with `target_feature = "simd128"`).
//!
//! Rule: every function here gives, lane for lane, exactly what the scalar
//! op of [`Fpx16_16`](super::Fpx16_16) gives (`saturating_mul`,
//! `saturating_add`) for every input, the raw values `i32::MIN` and
//! `i32::MAX` included; the tests compare them on the edge values and on
//! seeded ones, on the wasm32 targets built with SIMD128.
//!
//! Why by hand: the compiler does not vectorize the scalar multiply's
//! 64-bit products on wasm32 on its own; here two widening multiplies per
//! four products do it (`i64x2_extmul_*_i32x4`, which rustc's LLVM emits as
//! `i64x2.extend_*_i32x4_s` and `i64x2.mul`).

use super::{Fpx16_16, Vec2};
use core::arch::wasm32::{
    i32x4, i32x4_add, i32x4_extract_lane, i32x4_shr, i32x4_shuffle, i32x4_splat, i64x2_add,
    i64x2_extmul_high_i32x4, i64x2_extmul_low_i32x4, i64x2_gt, i64x2_lt, i64x2_shr, i64x2_splat,
    v128, v128_and, v128_bitselect, v128_xor,
};

/// Four Q16.16 products, each `Fpx16_16::saturating_mul` of its lanes: the
/// exact signed product (`i64x2.extmul`, `|p| <= 2^62`), rounded to the
/// nearest 2^−16 with ties to even, then saturated to the `i32` range.
#[inline(always)]
#[must_use]
pub fn mul_q16(a: v128, b: v128) -> v128 {
    let lo = round_saturate(i64x2_extmul_low_i32x4(a, b));
    let hi = round_saturate(i64x2_extmul_high_i32x4(a, b));
    // The low 32 bits of each 64-bit lane (little-endian lanes 0, 2 of
    // `lo`, then of `hi`): the saturated results, in input order.
    i32x4_shuffle::<0, 2, 4, 6>(lo, hi)
}

/// `p / 2^16` rounded to nearest, ties to even, clamped to `i32` (two
/// 64-bit lanes, `|p| <= 2^62`): adding `0x7FFF` plus the parity of the
/// floor carries into bit 16 exactly when the low 16 bits exceed `0x8000`,
/// or equal it and the floor is odd; the arithmetic shift takes the floor
/// of the signed sum, so negative products round as the scalar op's
/// magnitudes do (ties to even is symmetric).
#[inline(always)]
fn round_saturate(p: v128) -> v128 {
    let parity = v128_and(i64x2_shr(p, 16), i64x2_splat(1));
    let r = i64x2_shr(i64x2_add(i64x2_add(p, i64x2_splat(0x7FFF)), parity), 16);
    let max = i64x2_splat(i64::from(i32::MAX));
    let min = i64x2_splat(i64::from(i32::MIN));
    let r = v128_bitselect(max, r, i64x2_gt(r, max));
    v128_bitselect(min, r, i64x2_lt(r, min))
}

/// Four saturating `i32` sums, each `Fpx16_16::saturating_add` of its
/// lanes: the wrapping sum, replaced by `MAX` or `MIN` (the sign of `a`)
/// where it overflowed (both operands of one sign, the sum of the other).
#[inline(always)]
#[must_use]
pub fn add_sat(a: v128, b: v128) -> v128 {
    let s = i32x4_add(a, b);
    let overflowed = i32x4_shr(v128_and(v128_xor(s, a), v128_xor(s, b)), 31);
    let saturated = v128_xor(i32x4_shr(a, 31), i32x4_splat(i32::MAX));
    v128_bitselect(saturated, s, overflowed)
}

/// `SimScalar::mul_add_vec2s` for Q16.16: two vectors (four components)
/// per step, `acc + by × s` in lanes ([`mul_q16`], then [`add_sat`]: the
/// scalar `*` then `+`), the odd last vector by the scalar ops.
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
        let r = add_sat(a, mul_q16(b, sv));
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
    use super::{add_sat, mul_q16};
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
    const EDGES: [i32; 26] = [
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
        1092, // 1/60, the workload's dt
    ];

    /// Four lanes of `op` against the scalar `f` on each lane.
    fn check(a: [i32; 4], b: [i32; 4], op: fn(v128, v128) -> v128, f: fn(i32, i32) -> i32) {
        let got = lanes(op(
            i32x4(a[0], a[1], a[2], a[3]),
            i32x4(b[0], b[1], b[2], b[3]),
        ));
        let want = [0, 1, 2, 3].map(|i| f(a[i], b[i]));
        assert_eq!(got, want, "{a:?} {b:?}");
    }

    fn mul(a: i32, b: i32) -> i32 {
        Fpx16_16::from_raw(a)
            .saturating_mul(Fpx16_16::from_raw(b))
            .to_raw()
    }

    fn add(a: i32, b: i32) -> i32 {
        Fpx16_16::from_raw(a)
            .saturating_add(Fpx16_16::from_raw(b))
            .to_raw()
    }

    /// Every pair of edge values, in every lane position.
    #[test]
    fn lanes_are_the_scalar_ops_on_every_pair_of_edge_values() {
        for (i, &x) in EDGES.iter().enumerate() {
            for (j, &y) in EDGES.iter().enumerate() {
                // The pair in a different lane each time, other edges beside.
                let k = (i + j) % 4;
                let mut a = [EDGES[(i + 7) % 26], y, x, EDGES[j]];
                let mut b = [EDGES[(j + 3) % 26], x, y, EDGES[i]];
                a[k] = x;
                b[k] = y;
                check(a, b, mul_q16, mul);
                check(a, b, add_sat, add);
            }
        }
        // The known answers of the contract, lane for lane: MIN × MIN =
        // MAX, MIN × MAX = MIN, half a raw step ties to even (0, and 1.5
        // steps to 2) on either sign; MAX + 1 raw = MAX, MIN − 1 raw = MIN.
        let v = |a: [i32; 4]| i32x4(a[0], a[1], a[2], a[3]);
        let (min, max) = (i32::MIN, i32::MAX);
        let got = mul_q16(v([min, min, 0x8000, -0x1_8000]), v([min, max, 1, 1]));
        assert_eq!(lanes(got), [max, min, 0, -2]);
        let got = add_sat(v([max, min, max, min]), v([1, -1, min, max]));
        assert_eq!(lanes(got), [max, min, -1, -1]);
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
            let a = [next(), next(), next(), next()];
            let b = [next(), next(), next(), next()];
            check(a, b, mul_q16, mul);
            check(a, b, add_sat, add);
        }
    }
}
