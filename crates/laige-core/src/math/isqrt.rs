//! Integer square roots rounded to nearest (integer arithmetic only).
//!
//! `round(sqrt(n))` for an integer `n`: with `s = floor(sqrt(n))`, the
//! exact root exceeds `s + 1/2` iff `n > s² + s + 1/4`, i.e. iff
//! `n − s² > s` (both sides integers). An exact tie `sqrt(n) = s + 1/2`
//! would need `n = s² + s + 1/4`, which is not an integer, so "nearest" is
//! unambiguous and ties-to-even never has to decide.

/// `round(sqrt(n))` for a `u64` (result `<= 2^32`).
#[inline]
#[must_use]
pub(crate) const fn isqrt_round_u64(n: u64) -> u64 {
    let s = n.isqrt();
    // s² <= n, so the subtraction cannot underflow.
    if n - s * s > s { s + 1 } else { s }
}

/// `round(sqrt(n))` for a `u128` (result `<= 2^64`).
#[inline]
#[must_use]
pub(crate) const fn isqrt_round_u128(n: u128) -> u128 {
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
