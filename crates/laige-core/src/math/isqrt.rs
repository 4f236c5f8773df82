//! Integer square roots rounded to nearest (integer arithmetic only).
//!
//! `round(sqrt(n))` for an integer `n`: with `s = floor(sqrt(n))`, the
//! exact root exceeds `s + 1/2` iff `n > s² + s + 1/4`, i.e. iff
//! `n − s² > s` (both sides integers). An exact tie `sqrt(n) = s + 1/2`
//! would need `n = s² + s + 1/4`, which is not an integer, so "nearest" is
//! unambiguous and ties-to-even never has to decide.

/// `floor(sqrt(n))` for a `u64`, seeded by the hardware's binary64
/// square root and then corrected exactly in integers.
///
/// IEEE 754 requires `sqrt` to be correctly rounded, and `n as f64` is
/// within a relative `2^−53` of `n`, so the seed is within `2^−20` of the
/// exact root: its truncation is `floor(sqrt(n))` or one of its two
/// neighbours. The two integer comparisons below move it to exactly
/// `floor(sqrt(n))` — the integers, not the float, decide the result, so
/// the bits are the same on every platform (the exhaustive `sqrt` test
/// and `isqrt`'s tests against `u64::isqrt` prove it).
#[inline]
#[must_use]
pub(crate) fn isqrt_floor_u64(n: u64) -> u64 {
    let mut s = ((n as f64).sqrt() as u64).min(u32::MAX as u64);
    // s <= 2^32 − 1, so s² fits in u64.
    if s * s > n {
        s -= 1;
    } else if n - s * s > 2 * s {
        // (s + 1)² <= n, written without overflow.
        s += 1;
    }
    s
}

/// `round(sqrt(n))` for a `u64` (result `<= 2^32`).
#[inline]
#[must_use]
pub(crate) fn isqrt_round_u64(n: u64) -> u64 {
    let s = isqrt_floor_u64(n);
    // s² <= n, so the subtraction cannot underflow.
    if n - s * s > s { s + 1 } else { s }
}

/// `2^52` in binary64: a non-negative value below `2^52` plus this is
/// rounded to an integer, which the sum's low mantissa bits then hold.
pub(crate) const ROUND_TO_INTEGER: f64 = 4_503_599_627_370_496.0;

/// `round(sqrt(n))` for `n <= 2^62` (result `<= 2^31`), seeded by the
/// hardware's binary64 square root and decided in integers.
///
/// `r` is the nearest root iff `r² − r < n <= r² + r` (for `r >= 1`; `0`
/// iff `n = 0`): `(2r − 1)² < 4n < (2r + 1)²` divided by 4, with the
/// quarter dropped because both sides are integers; i.e. iff
/// `0 <= r² + r − n < 2r`: one product and one comparison. The seed,
/// `sqrt(n as f64)` rounded to an integer by adding `2^52`, is within
/// one of the answer (the float's error is below `2^−21` for every `n`,
/// `2^−29` for `n < 2^53`), and is the answer unless the exact root lies
/// closer than that error to a half: never for `n < 2^47` (the `sqrt` of
/// every Q16.16 value: such a root is never within `2^−26` of a half),
/// for about one in `2^21` of the larger `n`. The comparison accepts the
/// seed; one it rejects (that, or a platform whose float rounds
/// differently) goes through the exact search of [`isqrt_round_search`],
/// so the integers decide every bit on every platform. `n <= 2^62` keeps
/// `r² + r` in `u64` and `n` exact in the `i64` conversion.
#[inline]
#[must_use]
pub(crate) fn isqrt_round_u62(n: u64) -> u64 {
    debug_assert!(n <= 1 << 62, "n = {n}");
    let seed = ((n as i64 as f64).sqrt() + ROUND_TO_INTEGER).to_bits();
    let r = seed.wrapping_sub(ROUND_TO_INTEGER.to_bits()).min(1 << 31);
    // r² + r − n, wrapped: below 2r iff r is the nearest root (r >= 1).
    let d = (r * r + r).wrapping_sub(n);
    if d < 2 * r || (r | n) == 0 {
        r
    } else {
        isqrt_round_search(n, r)
    }
}

/// [`isqrt_round_u62`] from any guess `r <= 2^31`: steps toward the
/// nearest root, each step one of the same exact comparisons.
#[cold]
#[inline(never)]
fn isqrt_round_search(n: u64, mut r: u64) -> u64 {
    while r > 0 && r * r - r >= n {
        r -= 1;
    }
    while r * r + r < n {
        r += 1;
    }
    r
}

/// `round(sqrt(n))` for a `u128` (result `<= 2^64`).
#[inline]
#[must_use]
pub(crate) fn isqrt_round_u128(n: u128) -> u128 {
    if n <= u64::MAX as u128 {
        return isqrt_round_u64(n as u64) as u128;
    }
    let s = n.isqrt();
    if n - s * s > s { s + 1 } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `r` is the root of `n` rounded to nearest: `(2r−1)² < 4n < (2r+1)²`.
    fn is_nearest_root(n: u128, r: u128) -> bool {
        let four_n = 4 * n;
        let lo_ok = r == 0 || (2 * r - 1) * (2 * r - 1) < four_n;
        lo_ok && four_n < (2 * r + 1) * (2 * r + 1)
    }

    #[test]
    fn the_seeded_floor_root_is_exact() {
        let mut samples: Vec<u64> =
            vec![0, 1, 2, 3, u64::MAX, u64::MAX - 1, 1 << 52, (1 << 53) + 1];
        for s in [1u64, 3, 1 << 20, (1 << 26) + 1, (1 << 32) - 1, 94_906_265] {
            samples.extend([
                s * s - 1,
                s * s,
                s * s + 1,
                s * s + 2 * s,
                (s * s).wrapping_add(2 * s + 1),
            ]);
        }
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            samples.push(x);
            samples.push(x >> (x % 64));
        }
        for n in samples {
            assert_eq!(isqrt_floor_u64(n), n.isqrt(), "n = {n}");
        }
    }

    #[test]
    fn the_u62_root_is_the_general_one() {
        let mut samples: Vec<u64> = vec![0, 1, 2, 3, 4, 5, 6, 1 << 62, (1 << 62) - 1, 1 << 47];
        for s in [
            1u64,
            2,
            3,
            255,
            65535,
            (1 << 23) + 1,
            (1 << 31) - 1,
            1 << 31,
        ] {
            for n in [s * s - 1, s * s, s * s + 1, s * s + s, s * s + s + 1] {
                if n <= 1 << 62 {
                    samples.push(n);
                }
            }
        }
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            samples.push(x >> 2);
            samples.push((x >> 2) >> (x % 62));
        }
        for n in samples {
            assert_eq!(isqrt_round_u62(n), isqrt_round_u64(n), "n = {n}");
        }
    }

    #[test]
    fn the_search_corrects_any_seed() {
        for n in [0u64, 1, 2, 3, 1000, 1 << 30, (1 << 62) - 1, 1 << 62] {
            let want = isqrt_round_u64(n);
            // Far seeds only where the search's steps stay few.
            let far = if want < 1 << 16 {
                [want / 2, want * 2 + 5]
            } else {
                [want; 2]
            };
            for seed in [[want.saturating_sub(3), (want + 3).min(1 << 31)], far].concat() {
                assert_eq!(isqrt_round_search(n, seed), want, "{n}");
            }
        }
    }

    #[test]
    fn small_values_round_to_nearest() {
        let expected = [0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4];
        for (n, e) in expected.iter().enumerate() {
            assert_eq!(isqrt_round_u64(n as u64), *e, "n = {n}");
        }
    }

    #[test]
    fn boundaries_between_roots() {
        // s² + s rounds down to s, s² + s + 1 rounds up to s + 1.
        for s in [
            1u64,
            2,
            255,
            65535,
            1 << 20,
            (1 << 31) - 1,
            u32::MAX as u64 - 1,
        ] {
            assert_eq!(isqrt_round_u64(s * s + s), s);
            assert_eq!(isqrt_round_u64(s * s + s + 1), s + 1);
            assert_eq!(isqrt_round_u64(s * s), s);
        }
        assert_eq!(isqrt_round_u64(u64::MAX), 1 << 32);
    }

    #[test]
    fn u128_agrees_with_the_nearest_root_definition() {
        let samples = [
            0u128,
            1,
            u64::MAX as u128,
            u64::MAX as u128 + 1,
            1 << 64,
            3 << 62,
            (1 << 66) - 1,
            u128::MAX,
        ];
        for n in samples {
            let r = isqrt_round_u128(n);
            if n < (1 << 126) {
                assert!(is_nearest_root(n, r), "n = {n}, r = {r}");
            } else {
                assert_eq!(r, 1 << 64, "n = {n}");
            }
        }
        let mut x: u128 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2000 {
            x = x.wrapping_mul(0x2545_F491_4F6C_DD1D).wrapping_add(1) >> 3;
            assert!(is_nearest_root(x, isqrt_round_u128(x)), "n = {x}");
        }
    }
}
