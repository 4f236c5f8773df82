//! An independent reference for the Q16.16 contract, written from the
//! spec's definitions in plain `i128` arithmetic — it never calls the code
//! under test. Every op is: the exact rational result, rounded to nearest
//! with ties to even, then saturated to `[i32::MIN, i32::MAX]`.
//!
//! Shared by `math_differential.rs` and `math_exhaustive.rs` (each uses a
//! subset, hence the `dead_code` allowance).

#![allow(dead_code, reason = "each test binary uses a different subset")]

/// The raw range.
pub const MIN: i128 = i32::MIN as i128;
/// The raw range.
pub const MAX: i128 = i32::MAX as i128;
/// 2^16: one in raw units.
pub const ONE: i128 = 1 << 16;

/// Saturates to the raw range.
pub fn sat(v: i128) -> i32 {
    v.clamp(MIN, MAX) as i32
}

/// The exact rational `n / d` rounded to nearest, ties to even (`d != 0`).
pub fn round_div(n: i128, d: i128) -> i128 {
    let (n, d) = if d < 0 { (-n, -d) } else { (n, d) };
    let q = n.div_euclid(d); // floor, since d > 0
    let r = n - q * d; // 0 <= r < d
    match (2 * r).cmp(&d) {
        std::cmp::Ordering::Less => q,
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
    }
}

/// `n / 2^s` rounded to nearest, ties to even (`s < 127`): the same
/// definition as `round_div`, with shifts (fast enough for 2^32 inputs).
pub fn round_shr(n: i128, s: u32) -> i128 {
    if s == 0 {
        return n;
    }
    let q = n >> s; // floor
    let r = n - (q << s); // 0 <= r < 2^s
    let half = 1i128 << (s - 1);
    match r.cmp(&half) {
        std::cmp::Ordering::Less => q,
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
    }
}

/// `a + b`.
pub fn add(a: i32, b: i32) -> i32 {
    sat(i128::from(a) + i128::from(b))
}

/// `a − b`.
pub fn sub(a: i32, b: i32) -> i32 {
    sat(i128::from(a) - i128::from(b))
}

/// `a × b`: the exact product of the values is `a·b / 2^32`; in raw units
/// `a·b / 2^16`.
pub fn mul(a: i32, b: i32) -> i32 {
    sat(round_div(i128::from(a) * i128::from(b), ONE))
}

/// `a / b`: in raw units `a·2^16 / b`; division by zero is `MAX`, `−MAX`,
/// or 0 by the sign of `a`.
pub fn div(a: i32, b: i32) -> i32 {
    if b == 0 {
        return match a.signum() {
            1 => i32::MAX,
            -1 => -i32::MAX,
            _ => 0,
        };
    }
    sat(round_div(i128::from(a) * ONE, i128::from(b)))
}

/// `−a`.
pub fn neg(a: i32) -> i32 {
    sat(-i128::from(a))
}

/// `|a|`.
pub fn abs(a: i32) -> i32 {
    sat(i128::from(a).abs())
}

/// The nearest integer to `a / 2^16`, ties to even (not saturated: the
/// result is in `[−32768, 32768]`).
pub fn to_i32(a: i32) -> i128 {
    round_shr(i128::from(a), 16)
}

/// Whether `r` is the square root of raw `x` rounded to nearest, under the
/// policy "negative input gives 0": in raw units the root of `x·2^16`; `r`
/// is nearest iff `(r − 1/2)² < x·2^16 < (r + 1/2)²`, i.e.
/// `(2r − 1)² < 4·x·2^16 < (2r + 1)²` (no equality: the left and right are
/// odd, the middle even).
pub fn sqrt_ok(x: i32, r: i32) -> bool {
    if x <= 0 {
        return r == 0;
    }
    if r <= 0 {
        return false;
    }
    let four_n = 4 * (i128::from(x) << 16);
    let r = i128::from(r);
    (2 * r - 1) * (2 * r - 1) < four_n && four_n < (2 * r + 1) * (2 * r + 1)
}

/// The root of `n >= 0` rounded to nearest, by bisection on `i128`.
pub fn root_nearest(n: i128) -> i128 {
    // Largest s with s² <= n.
    let (mut lo, mut hi) = (0i128, 1i128 << 64);
    while lo < hi {
        let mid = (lo + hi + 1) / 2;
        if mid * mid <= n {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    // Nearest: s + 1 iff n > (s + 1/2)², i.e. 4n > (2s + 1)².
    if 4 * n > (2 * lo + 1) * (2 * lo + 1) {
        lo + 1
    } else {
        lo
    }
}

/// The raw sqrt (negative → 0).
pub fn sqrt(x: i32) -> i32 {
    if x <= 0 {
        0
    } else {
        root_nearest(i128::from(x) << 16) as i32
    }
}

/// The Q16.16 value nearest to the binary32 with these bits: decode to the
/// exact `(−1)^s · m · 2^e`, then `round(m · 2^(e+16))` ties to even,
/// saturated; NaN → 0, ±inf → MIN/MAX.
pub fn from_f32_bits(bits: u32) -> i32 {
    let neg = bits >> 31 == 1;
    let biased = i32::try_from((bits >> 23) & 0xFF).unwrap_or(0);
    let frac = i128::from(bits & 0x7F_FFFF);
    if biased == 0xFF {
        return if frac != 0 {
            0
        } else if neg {
            i32::MIN
        } else {
            i32::MAX
        };
    }
    let (m, e) = if biased == 0 {
        (frac, -149)
    } else {
        (frac | (1 << 23), biased - 150)
    };
    let k = e + 16; // value × 2^16 = m · 2^k
    let mag = if k >= 0 {
        // m < 2^24, k <= 127 + 16 − 23: cap the shift well above 2^31.
        m << k.min(40)
    } else if -k >= 100 {
        0 // m · 2^k < 2^24 · 2^−100: below one half
    } else {
        round_shr(m, (-k) as u32)
    };
    sat(if neg { -mag } else { mag })
}

/// The binary32 nearest to `raw / 2^16`: `raw` and the scale are exact in
/// f64 (31 bits), so one `as f32` rounding (round to nearest, ties to even
/// by the language) is the single correctly rounded conversion.
pub fn to_f32(raw: i32) -> f32 {
    (f64::from(raw) / 65536.0) as f32
}

/// The plain (spec) length of raw components: saturating squares and sums,
/// then the rounded root — composed from the reference ops.
pub fn length_plain(c: &[i32]) -> i32 {
    let mut sum = 0;
    for (i, &x) in c.iter().enumerate() {
        let sq = mul(x, x);
        sum = if i == 0 { sq } else { add(sum, sq) };
    }
    sqrt(sum)
}

/// The wide length: the exact sum of squared raws (Q32.32), its root
/// rounded to nearest, saturated to MAX.
pub fn length_wide(c: &[i32]) -> i32 {
    let sum: i128 = c.iter().map(|&x| i128::from(x) * i128::from(x)).sum();
    sat(root_nearest(sum))
}

/// The wide distance: exact differences, then as `length_wide`.
pub fn distance_wide(a: &[i32], b: &[i32]) -> i32 {
    let sum: i128 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| {
            let d = i128::from(x) - i128::from(y);
            d * d
        })
        .sum();
    sat(root_nearest(sum))
}

/// The wide normalize: each component is the raw value nearest to the
/// exact `c · 2^16 / sqrt(Σ c²)`; zero → zero. With `f` the largest integer
/// such that `f² · Σ <= c² · 2^32` (bisection), the nearest is `f + 1` iff
/// `4 · c² · 2^32 > (2f + 1)² · Σ`.
pub fn normalize_wide(c: &[i32]) -> Vec<i32> {
    let sum: i128 = c.iter().map(|&x| i128::from(x) * i128::from(x)).sum();
    if sum == 0 {
        return vec![0; c.len()];
    }
    c.iter()
        .map(|&x| {
            let m = i128::from(x).abs();
            let target = (m * m) << 32;
            let (mut lo, mut hi) = (0i128, 1i128 << 17);
            while lo < hi {
                let mid = (lo + hi + 1) / 2;
                if mid * mid * sum <= target {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            let r = if 4 * target > (2 * lo + 1) * (2 * lo + 1) * sum {
                lo + 1
            } else {
                lo
            };
            sat(if x < 0 { -r } else { r })
        })
        .collect()
}

/// splitmix64: a small, well-mixed, seedable PRNG (no dependency).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the tiny modulo bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A uniform `i32`.
    pub fn i32(&mut self) -> i32 {
        self.next_u64() as i32
    }

    /// A random sign applied to `v`.
    pub fn signed(&mut self, v: i64) -> i64 {
        if self.next_u64() & 1 == 0 { v } else { -v }
    }
}

/// Raw values worth hitting on purpose: the range ends, zero, ±1 ulp,
/// around ±0.5 and ±1, the sqrt bound (181.02 units), powers of two.
pub const EDGES: [i32; 34] = [
    i32::MIN,
    i32::MIN + 1,
    i32::MIN + 2,
    -i32::MAX,
    -0x1_0001,
    -0x1_0000,
    -0xFFFF,
    -0x8001,
    -0x8000,
    -0x7FFF,
    -3,
    -2,
    -1,
    0,
    1,
    2,
    3,
    0x7FFF,
    0x8000,
    0x8001,
    0xFFFF,
    0x1_0000,
    0x1_0001,
    0x1_8000,
    0x2_8000,
    11_863_283, // sqrt(MAX) raw: ~181.0193
    11_863_284,
    -11_863_283,
    0x00B5_0000, // 181.0
    0x00B6_0000, // 182.0
    1 << 24,
    (1 << 24) + 1,
    i32::MAX - 1,
    i32::MAX,
];

/// A raw value biased toward the interesting parts of the range: uniform
/// bits, small magnitudes (log-uniform), edge values with jitter, integers
/// and half-integers, and values around the squaring bound.
pub fn biased_raw(rng: &mut SplitMix64) -> i32 {
    match rng.below(16) {
        0..=3 => rng.i32(),
        4..=6 => {
            // Log-uniform magnitude: every bit length equally likely.
            let bits = rng.below(32);
            let mag = (rng.next_u64() >> (64 - bits.max(1))) as i64;
            sat(i128::from(rng.signed(mag)))
        }
        7..=8 => {
            let e = EDGES[rng.below(EDGES.len() as u64) as usize];
            let jitter = rng.below(5) as i64 - 2;
            sat(i128::from(e) + i128::from(jitter))
        }
        9..=10 => {
            // Integer or half/quarter-integer of a log-uniform integer part.
            let bits = rng.below(16);
            let int = (rng.next_u64() >> (64 - bits.max(1))) as i64;
            let frac = [0, 0x8000, 0x4000, 0xC000, 1, 0xFFFF][rng.below(6) as usize];
            sat(i128::from(rng.signed((int << 16) | frac)))
        }
        11..=12 => {
            // Around the squaring bound, where length/mul saturate.
            let jitter = rng.below(1 << 14) as i64 - (1 << 13);
            sat(i128::from(rng.signed(11_863_283 + jitter)))
        }
        _ => {
            // Near the range ends.
            let off = (rng.next_u64() >> (64 - rng.below(20).max(1))) as i32;
            if rng.next_u64() & 1 == 0 {
                i32::MAX - off
            } else {
                i32::MIN + off
            }
        }
    }
}
