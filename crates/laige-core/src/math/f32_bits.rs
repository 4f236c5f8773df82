//! IEEE binary32/binary64 encode and decode in integer arithmetic, shared by
//! the Q16.16 conversions and `Fp32Pinned::from_ratio`.
//!
//! No floating-point arithmetic happens here: floats are taken apart with
//! `to_bits` and put together with `from_bits`, and every rounding is done on
//! integers, round to nearest, ties to even.

/// A finite float as `(-1)^neg × mant × 2^exp` (exact), or a non-finite one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// Any NaN (payload ignored).
    Nan,
    /// ±infinity.
    Inf {
        /// Sign bit.
        neg: bool,
    },
    /// A finite value (including ±0 with `mant = 0`).
    Finite {
        /// Sign bit.
        neg: bool,
        /// The integer significand (hidden bit included for normals).
        mant: u64,
        /// The power of two it is scaled by.
        exp: i32,
    },
}

/// Takes a binary32 apart.
#[inline]
pub(crate) const fn decode_f32(v: f32) -> Decoded {
    let bits = v.to_bits();
    let neg = bits >> 31 != 0;
    let biased = ((bits >> 23) & 0xFF) as i32;
    let frac = (bits & 0x7F_FFFF) as u64;
    if biased == 0xFF {
        return if frac == 0 {
            Decoded::Inf { neg }
        } else {
            Decoded::Nan
        };
    }
    if biased == 0 {
        // Zero or subnormal: frac × 2^−149.
        Decoded::Finite {
            neg,
            mant: frac,
            exp: -149,
        }
    } else {
        Decoded::Finite {
            neg,
            mant: frac | (1 << 23),
            exp: biased - 150,
        }
    }
}

/// Takes a binary64 apart.
#[inline]
pub(crate) const fn decode_f64(v: f64) -> Decoded {
    let bits = v.to_bits();
    let neg = bits >> 63 != 0;
    let biased = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & 0xF_FFFF_FFFF_FFFF;
    if biased == 0x7FF {
        return if frac == 0 {
            Decoded::Inf { neg }
        } else {
            Decoded::Nan
        };
    }
    if biased == 0 {
        Decoded::Finite {
            neg,
            mant: frac,
            exp: -1074,
        }
    } else {
        Decoded::Finite {
            neg,
            mant: frac | (1 << 52),
            exp: biased - 1075,
        }
    }
}

/// `round(±mant × 2^shift)` to an integer, ties to even, saturated to the
/// `i32` range (`−2^31` itself is exact, not a saturation).
///
/// Used as `round(v × 2^16)`: `shift = exp + 16`.
#[inline]
pub(crate) const fn round_scaled_to_i32(neg: bool, mant: u64, shift: i32) -> i32 {
    // Magnitude of the rounded result, capped just above 2^31 so the
    // saturation below sees it; mant < 2^53.
    let mag: u64 = if mant == 0 {
        0
    } else if shift >= 0 {
        // mant >= 1 and shift >= 32 is certainly >= 2^32: saturate.
        if shift >= 32 || mant > (u64::MAX >> 32) >> shift {
            1 << 32
        } else {
            mant << shift
        }
    } else {
        let s = -shift;
        if s >= 64 {
            // mant < 2^53 < 2^63: the value is below one half.
            0
        } else {
            let q = mant >> s;
            let rem = mant & ((1u64 << s) - 1);
            let half = 1u64 << (s - 1);
            if rem > half || (rem == half && (q & 1) != 0) {
                q + 1
            } else {
                q
            }
        }
    };
    if neg {
        if mag >= 1 << 31 {
            i32::MIN
        } else {
            -(mag as i32)
        }
    } else if mag > i32::MAX as u64 {
        i32::MAX
    } else {
        mag as i32
    }
}

/// The binary32 nearest to `±(mag + δ) × 2^exp`, ties to even, where
/// `0 <= δ < 1` and `δ > 0` iff `sticky`.
///
/// Preconditions (callers guarantee them): `mag != 0`; if `mag < 2^24` then
/// `sticky` is false (the value is exact); the result is a normal number.
#[inline]
pub(crate) const fn f32_from_parts(neg: bool, mag: u64, sticky: bool, exp: i32) -> f32 {
    // Position of the leading one.
    let lead = 63 - mag.leading_zeros() as i32;
    let (mut m, mut e) = if lead <= 23 {
        (mag << (23 - lead), exp - (23 - lead))
    } else {
        let s = lead - 23;
        let q = mag >> s;
        let rem = mag & ((1u64 << s) - 1);
        let half = 1u64 << (s - 1);
        let up = rem > half || (rem == half && (sticky || (q & 1) != 0));
        (if up { q + 1 } else { q }, exp + s)
    };
    if m == 1 << 24 {
        m >>= 1;
        e += 1;
    }
    // m is the 24-bit significand with its leading one at bit 23: the value
    // is m × 2^e, so the biased exponent is e + 23 + 127.
    let biased = (e + 150) as u32;
    let bits = ((neg as u32) << 31) | (biased << 23) | (m as u32 & 0x7F_FFFF);
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_special_values() {
        assert_eq!(decode_f32(f32::NAN), Decoded::Nan);
        assert_eq!(decode_f32(f32::INFINITY), Decoded::Inf { neg: false });
        assert_eq!(decode_f32(f32::NEG_INFINITY), Decoded::Inf { neg: true });
        assert_eq!(decode_f64(f64::NAN), Decoded::Nan);
        assert_eq!(decode_f64(f64::NEG_INFINITY), Decoded::Inf { neg: true });
        assert_eq!(
            decode_f32(-0.0),
            Decoded::Finite {
                neg: true,
                mant: 0,
                exp: -149
            }
        );
        assert_eq!(
            decode_f32(1.0),
            Decoded::Finite {
                neg: false,
                mant: 1 << 23,
                exp: -23
            }
        );
        assert_eq!(
            decode_f64(1.5),
            Decoded::Finite {
                neg: false,
                mant: 3 << 51,
                exp: -52
            }
        );
        assert_eq!(
            decode_f32(f32::from_bits(1)),
            Decoded::Finite {
                neg: false,
                mant: 1,
                exp: -149
            }
        );
    }

    #[test]
    fn rounds_scaled_values_ties_to_even() {
        // 0.5, 1.5, 2.5 (mant 1,3,5 × 2^−1).
        assert_eq!(round_scaled_to_i32(false, 1, -1), 0);
        assert_eq!(round_scaled_to_i32(false, 3, -1), 2);
        assert_eq!(round_scaled_to_i32(false, 5, -1), 2);
        assert_eq!(round_scaled_to_i32(true, 3, -1), -2);
        assert_eq!(round_scaled_to_i32(false, 3, -2), 1); // 0.75
        assert_eq!(round_scaled_to_i32(false, 1, -2), 0); // 0.25
        assert_eq!(round_scaled_to_i32(false, u64::MAX >> 11, -200), 0);
        assert_eq!(round_scaled_to_i32(false, 1 << 52, -63), 0);
    }

    #[test]
    fn saturates_scaled_values() {
        assert_eq!(round_scaled_to_i32(false, 1, 31), i32::MAX);
        assert_eq!(round_scaled_to_i32(true, 1, 31), i32::MIN);
        assert_eq!(round_scaled_to_i32(true, 3, 31), i32::MIN);
        assert_eq!(round_scaled_to_i32(false, 1, 30), 1 << 30);
        assert_eq!(round_scaled_to_i32(false, u64::MAX >> 11, 1000), i32::MAX);
        assert_eq!(round_scaled_to_i32(true, 1 << 52, 11), i32::MIN);
        // 2^31 − 0.5 is a tie between 2^31 − 1 (odd) and 2^31: up, saturate.
        assert_eq!(round_scaled_to_i32(false, (1 << 32) - 1, -1), i32::MAX);
        assert_eq!(round_scaled_to_i32(true, (1 << 32) - 1, -1), i32::MIN);
    }

    #[test]
    fn builds_floats_with_one_rounding() {
        assert_eq!(f32_from_parts(false, 1, false, 0), 1.0);
        assert_eq!(f32_from_parts(true, 3, false, -1), -1.5);
        assert_eq!(f32_from_parts(false, 1, false, -16), 1.0 / 65536.0);
        // 2^24 + 1 is a tie between 2^24 and 2^24 + 2: even → 2^24.
        assert_eq!(f32_from_parts(false, (1 << 24) + 1, false, 0), 16_777_216.0);
        // With a sticky bit it is above the tie: up.
        assert_eq!(f32_from_parts(false, (1 << 24) + 1, true, 0), 16_777_218.0);
        // 2^24 + 3 is a tie between +2 and +4: even → +4.
        assert_eq!(f32_from_parts(false, (1 << 24) + 3, false, 0), 16_777_220.0);
        // Rounding up into the next binade.
        assert_eq!(f32_from_parts(false, (1 << 25) - 1, false, 0), 33_554_432.0);
        assert_eq!(f32_from_parts(false, u64::MAX, false, -64), 1.0);
    }
}
