//! The wide Q16.16 vector path: sums of squares taken exactly in integers
//! (Q32.32 in `u128`), one 64-bit integer square root rounded to nearest,
//! saturating only when the true result exceeds `MAX`.
//!
//! Why: the plain `length` squares and sums in saturating Q16.16, which
//! caps every vector longer than ~181 units; a ±32768-unit world outgrows
//! that at once. These functions are the backing of `Vec2::length_wide`,
//! `Vec2::distance_wide`, `Vec2::normalize_wide` (and the `Vec3` forms).

use super::fixed::Fpx16_16;
use super::isqrt::{ROUND_TO_INTEGER, isqrt_round_u62, isqrt_round_u128};
use super::vec2::Vec2;

/// The largest sum of squared raws whose rounded root still fits in `MAX`:
/// `round(sqrt(n)) <= 2^31 − 1` iff `n < (2^31 − 1/2)²`, i.e.
/// `n <= 2^62 − 2^31`.
const MAX_SUM_FOR_MAX: u128 = (1 << 62) - (1 << 31);

/// `Σ raw_i²` exactly (each square < 2^63; `u128` cannot overflow for any
/// practical `N`).
#[inline]
fn sum_of_squares<const N: usize>(raws: [i64; N]) -> u128 {
    let mut sum: u128 = 0;
    for r in raws {
        sum += u128::from(r.unsigned_abs()) * u128::from(r.unsigned_abs());
    }
    sum
}

/// `round(sqrt(sum))` as Q16.16 raw, saturated to `MAX`.
#[inline]
fn root_saturated(sum: u128) -> Fpx16_16 {
    if sum > MAX_SUM_FOR_MAX {
        Fpx16_16::MAX
    } else {
        // sum < 2^62: the root is <= 2^31 − 1.
        Fpx16_16::from_raw(isqrt_round_u62(sum as u64) as i32)
    }
}

/// `length_wide`: `round(sqrt(Σ raw_i²))` (the Q32.32 sum is exact; its
/// root is directly Q16.16), saturated to `MAX` only when the true length
/// rounds above `MAX`.
#[inline]
pub(crate) fn length_wide<const N: usize>(c: [Fpx16_16; N]) -> Fpx16_16 {
    root_saturated(sum_of_squares(c.map(|x| i64::from(x.to_raw()))))
}

/// `distance_wide`: `length_wide` of `a − b` with the differences taken
/// exactly in `i64` (never saturated: `|a_i − b_i| < 2^32`).
#[inline]
pub(crate) fn distance_wide<const N: usize>(a: [Fpx16_16; N], b: [Fpx16_16; N]) -> Fpx16_16 {
    let mut d = [0i64; N];
    for i in 0..N {
        d[i] = i64::from(a[i].to_raw()) - i64::from(b[i].to_raw());
    }
    root_saturated(sum_of_squares(d))
}

/// `normalize_wide`: each component is the Q16.16 value **nearest to the
/// exact** `c_i / |v|` (`|v| = sqrt(Σ raw_j²)`, unsaturated). No tie can
/// occur (if `|v|` is irrational the quotient is; if it is an integer, the
/// reduced direction has an odd denominator), so the result is unique.
/// Vectors of any length — tiny or longer than `MAX` — get a unit
/// direction to within half a raw step per component. The zero vector
/// (and only it: the sum is exact) gives the zero vector.
///
/// How: for every sum below `2^63` (every `Vec2` and `Vec3` but those
/// near `MIN`) a binary64 quotient `q` proposes each component, and
/// [`FAR_FROM_A_HALF`] decides it unless the quotient lies near a
/// rounding boundary; there the exact
/// comparisons of [`is_nearest_quotient`] (two `u64 × u64 → u128`
/// products) accept the proposal or [`nearest_quotient`], the exact
/// search, settles it.
///
/// Why the bound decides exactly. `S = Σ raw²` (an integer `< 2^63`),
/// `m = |raw_i| <= 2^31` (exact in binary64), `Q = m·2^16 / sqrt(S) <=
/// 2^16` the exact quotient. Four binary64 operations give `q`: `S as
/// f64`, `sqrt`, `65536 / ·`, `m · ·`, each within a relative `u = 2^−53`
/// (IEEE 754's correct rounding, which Rust's `f64` operations have on
/// every target, as `Fp32Pinned` relies on for `f32`), so `q = Q·(1 + ε)`
/// with `|ε| <= 3.5u + O(u²) < 2^−51`: `|q − Q| < 2^16 · 2^−51 = 2^−35`.
/// `k`, the bits of `q + 2^52` as a binary64 less those of `2^52`, is an
/// integer within 1 of `q` (the sum is below `2^53`, so its ulp is 1), and
/// `q − k`, with `k` converted back (exact), is exact (Sterbenz: `k/2 <= q
/// <= 2k` when `k >= 1`, `q − 0 = q`). If `|q − k| < 1/2 − 2^−32` then
/// `|Q − k| < 1/2 − 2^−32 + 2^−35 < 1/2`: `k` is the integer nearest to
/// `Q`, the result. The slack (`2^−32` against an error below `2^−35`)
/// also covers a float that rounds each operation to within 2 ulp instead
/// of half an ulp, and a float unit that keeps intermediates wider than
/// binary64 (x87): `k` comes from the stored bits, which are rounded to
/// an integer, never from `(q + 2^52) − 2^52` in a register, which there
/// can give back `q` itself and so an offset of 0 for every `q`. About
/// one component in `2^31` (`|q − k|` within `2^−32` of a half) takes the
/// exact comparisons instead.
#[inline]
pub(crate) fn normalize_wide<const N: usize>(c: [Fpx16_16; N]) -> [Fpx16_16; N] {
    normalize_wide_within(c, FAR_FROM_A_HALF)
}

/// [`normalize_wide`] with the fast decision's bound as a parameter: a
/// bound of 0 sends every component through the exact comparisons (the
/// tests compare the two).
#[inline(always)]
fn normalize_wide_within<const N: usize>(c: [Fpx16_16; N], bound: f64) -> [Fpx16_16; N] {
    // The sum in u64 (each square <= 2^62): it overflows only with four or
    // more components near MIN/MAX.
    let mut sum: u64 = 0;
    for x in c {
        let mag = u64::from(x.to_raw().unsigned_abs());
        match sum.checked_add(mag * mag) {
            Some(s) => sum = s,
            None => return normalize_huge(c),
        }
    }
    if sum == 0 {
        return [Fpx16_16::ZERO; N];
    }
    // A sum of 2^63 or more (both components of a Vec2 near MIN) goes the
    // integer way too: below it the signed conversion (one instruction on
    // x86-64) is the exact sum's.
    if sum > i64::MAX as u64 {
        return normalize_huge(c);
    }
    let scale = 65536.0 / (sum as i64 as f64).sqrt();
    let mut out = [0u64; N];
    let mut decided = true;
    for (o, x) in out.iter_mut().zip(c) {
        let mag = u64::from(x.to_raw().unsigned_abs());
        let q = mag as i64 as f64 * scale;
        // The integer k nearest to q, from the stored bits; q − k from k
        // itself (both exact: see above).
        let k = (q + ROUND_TO_INTEGER)
            .to_bits()
            .wrapping_sub(ROUND_TO_INTEGER.to_bits());
        *o = k;
        let off = q - k as i64 as f64;
        decided &= off.abs() < bound;
    }
    if !decided {
        for (o, x) in out.iter_mut().zip(c) {
            let mag = u64::from(x.to_raw().unsigned_abs());
            if !is_nearest_quotient(mag, sum, *o) {
                *o = nearest_quotient(mag, u128::from(sum), *o);
            }
        }
    }
    let mut i = 0;
    c.map(|x| {
        let r = out[i] as i32; // r <= 2^16
        i += 1;
        Fpx16_16::from_raw(if x.to_raw() < 0 { -r } else { r })
    })
}

/// [`normalize_wide`] of every vector of `v`, in place: the same result
/// bits, component for component (the batch form backing
/// `Vec2::normalize_wide_slice`). Each chunk is copied aside, then
/// [`normalize_staged`] reads the copy.
#[inline(always)]
pub(crate) fn normalize_wide_vec2s(v: &mut [Vec2<Fpx16_16>]) {
    for chunk in v.chunks_mut(CHUNK) {
        let mut staged = [Vec2::<Fpx16_16>::ZERO; CHUNK];
        let staged = &mut staged[..chunk.len()];
        staged.copy_from_slice(chunk);
        normalize_staged(staged, chunk);
    }
}

/// [`normalize_wide`] of `f(x)` for every `x` of `src`, written to `dst`
/// in order (the shorter of the two bounds the pass): the same result bits,
/// component for component, as `normalize_wide` of each (the batch form
/// backing `Vec2::normalize_wide_map`). `f` is called once per element, in
/// order. Per chunk, the vectors `f` gives are staged in a stack buffer by
/// a loop of their own (as simple as `f`, it vectorizes on every unit;
/// with `f` inside the proposal's loop, baseline x86-64 ran that loop 15 %
/// slower), then [`normalize_staged`] reads the buffer.
#[inline(always)]
pub(crate) fn normalize_wide_vec2s_map<T>(
    src: &[T],
    dst: &mut [Vec2<Fpx16_16>],
    f: impl Fn(&T) -> Vec2<Fpx16_16>,
) {
    for (src, dst) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
        let mut staged = [Vec2::<Fpx16_16>::ZERO; CHUNK];
        let staged = &mut staged[..src.len().min(dst.len())];
        for (o, x) in staged.iter_mut().zip(src) {
            *o = f(x);
        }
        normalize_staged(staged, dst);
    }
}

/// `dst[i] =` [`normalize_wide`]`(staged[i])` for a chunk (at most
/// [`CHUNK`] vectors; the shorter slice bounds it), bit for bit: the
/// binary64 proposal of the whole chunk in a loop without branches (the
/// compiler runs it two, four or eight vectors wide: `cvtdq2pd`, `sqrtpd`,
/// `divpd` on x86-64), then [`normalize_wide`] itself for each vector the
/// fast decision did not settle.
///
/// Why that is exact. The proposal differs from the one-vector form only in
/// the sum: the squares and their sum are taken in binary64 (three more
/// roundings, no integer sum), so `q = Q·(1 + ε)` with `|ε| <= 4u + O(u²) <
/// 2^−50` (`u = 2^−53`) and `|q − Q| < 2^16 · 2^−50 = 2^−34`, still far
/// inside the `2^−32` slack of [`FAR_FROM_A_HALF`]; the argument of
/// [`normalize_wide`] holds as it stands, for any sum (no `2^63` limit:
/// binary64 has the range). The quotient is signed here: `q + 1.5·2^52`
/// lies in `[2^52, 2^53)` (ulp 1) for `|q| <= 2^16 + 1`, so its stored bits
/// less those of `1.5·2^52` are the integer `k` nearest to `q`, in two's
/// complement in their low 32 bits (read from the stored bits, as in
/// [`normalize_wide`], never from a register that may be wider than
/// binary64); `q − k` is exact (Sterbenz, or `q − 0`). Rounding to the
/// nearest is symmetric and no tie occurs, so the signed `k` is the result.
/// The zero vector's quotient is NaN (`0 · ∞`), which the decision rejects:
/// it too takes [`normalize_wide`].
// Always inlined: a caller's wider vector unit (`VectorUnit`) reaches the
// loop only through inlining.
#[inline(always)]
fn normalize_staged(staged: &[Vec2<Fpx16_16>], dst: &mut [Vec2<Fpx16_16>]) {
    /// `1.5·2^52`: adding it rounds a binary64 of magnitude `<= 2^51` to an
    /// integer, held in the low bits of the sum's stored bits.
    const ROUND_SIGNED: f64 = 6_755_399_441_055_744.0;
    let mut rejected = [false; CHUNK];
    let mut any_rejected = false;
    for ((c, o), bad) in dst.iter_mut().zip(staged).zip(&mut rejected) {
        let x = f64::from(o.x.to_raw());
        let y = f64::from(o.y.to_raw());
        let scale = 65536.0 / (x * x + y * y).sqrt();
        let (qx, qy) = (x * scale, y * scale);
        let kx = (qx + ROUND_SIGNED).to_bits() as u32 as i32;
        let ky = (qy + ROUND_SIGNED).to_bits() as u32 as i32;
        let off_x = qx - f64::from(kx);
        let off_y = qy - f64::from(ky);
        // `!(a < b)`, not `a >= b`: a NaN offset is rejected.
        let far = (off_x.abs() < FAR_FROM_A_HALF) & (off_y.abs() < FAR_FROM_A_HALF);
        *bad = !far;
        any_rejected |= !far;
        *c = Vec2::new(Fpx16_16::from_raw(kx), Fpx16_16::from_raw(ky));
    }
    if any_rejected {
        for ((c, o), bad) in dst.iter_mut().zip(staged).zip(&rejected) {
            if *bad {
                *c = Vec2::from_array(normalize_wide(o.to_array()));
            }
        }
    }
}

/// Vectors the batch forms stage and propose per pass (stack buffers of
/// 512 bytes of vectors and 64 flags).
const CHUNK: usize = 64;

/// The bound of [`normalize_wide`]'s fast decision: a binary64 quotient
/// closer than this to its nearest integer rounds to the same integer as
/// the exact quotient (`1/2 − 2^−32`; the float's error is below `2^−35`).
const FAR_FROM_A_HALF: f64 = 0.5 - 1.0 / 4_294_967_296.0;

/// Whether `r` is the integer nearest to `mag·2^16 / sqrt(sum)`:
/// `(2r − 1)²·sum < 4·mag²·2^32 < (2r + 1)²·sum` (for `r = 0` only the
/// right side), exactly: with `(2r ± 1)² = 4r² + 1 ± 4r`, one square and
/// two `u64 × u64 → u128` products. Any `r > 2^16 + 1` is rejected without
/// a product (the quotient is at most `2^16`), which keeps `(2r + 1)² <
/// 2^35` and every product below `2^99`.
#[inline(always)]
fn is_nearest_quotient(mag: u64, sum: u64, r: u64) -> bool {
    if r > (1 << 16) + 1 {
        return false;
    }
    let target = u128::from(mag * mag) << 34; // 4·mag²·2^32, mag <= 2^31
    let mid = 4 * r * r + 1;
    let hi = u128::from(mid + 4 * r) * u128::from(sum);
    let lo = u128::from(mid - 4 * r) * u128::from(sum); // (2r − 1)², 1 at r = 0
    target < hi && (r == 0 || lo < target)
}

/// [`normalize_wide`] for sums of `2^63` or more (a `Vec2` or `Vec3` with
/// components near `MIN`, or four or more near `MIN`/`MAX`, beyond `u64`):
/// an integer root of the exact `u128` sum seeds the exact search.
#[cold]
#[inline(never)]
fn normalize_huge<const N: usize>(c: [Fpx16_16; N]) -> [Fpx16_16; N] {
    let sum = sum_of_squares(c.map(|x| i64::from(x.to_raw())));
    // L = round(sqrt(sum)) >= 2^31.5 is precise already (relative error
    // below 2^−32): |c|·2^16 / L is within one of the answer.
    let len = u64::try_from(isqrt_round_u128(sum)).unwrap_or(u64::MAX);
    c.map(|x| {
        let mag = u64::from(x.to_raw().unsigned_abs());
        let approx = ((mag << 16) + len / 2) / len;
        let r = nearest_quotient(mag, sum, approx) as i32; // r <= 2^16
        Fpx16_16::from_raw(if x.to_raw() < 0 { -r } else { r })
    })
}

/// The integer `r` nearest to `mag·2^16 / sqrt(sum)`, starting from any
/// guess: `r` is nearest iff `(2r − 1)²·sum < 4·mag²·2^32 < (2r + 1)²·sum`
/// (the middle is never equal to either side: see `normalize_wide`).
/// `4·mag²·2^32 <= 2^96` fits `u128`; the products with `sum` saturate
/// (only conceivable for absurdly long arrays) without changing the answer.
#[cold]
#[inline(never)]
fn nearest_quotient(mag: u64, sum: u128, guess: u64) -> u64 {
    let target = (u128::from(mag) * u128::from(mag)) << 34; // 4·mag²·2^32
    let mut r = guess.min(1 << 17);
    // Moves toward the answer one step at a time; each step strictly
    // approaches it (the guesses given here are within a step or two).
    // Saturating products keep both comparisons right for any N: a
    // saturated product exceeds every possible target.
    while r > 0 && u128::from(2 * r - 1).pow(2).saturating_mul(sum) >= target {
        r -= 1;
    }
    while u128::from(2 * r + 1).pow(2).saturating_mul(sum) <= target {
        r += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::isqrt::isqrt_round_u64;

    fn r(raw: i32) -> Fpx16_16 {
        Fpx16_16::from_raw(raw)
    }

    fn i(v: i32) -> Fpx16_16 {
        Fpx16_16::from_i32(v)
    }

    #[test]
    fn length_wide_is_exact_far_beyond_181() {
        assert_eq!(length_wide([i(3), i(4)]), i(5));
        assert_eq!(length_wide([i(3000), i(4000)]), i(5000));
        assert_eq!(length_wide([i(182), i(0)]), i(182));
        assert_eq!(length_wide([i(-20000), i(0), i(0)]), i(20000));
        assert_eq!(length_wide([i(2), i(3), i(6)]), i(7));
        assert_eq!(length_wide([Fpx16_16::ZERO; 2]), Fpx16_16::ZERO);
        // Tiny vectors keep their length (the plain path rounds x² to 0).
        assert_eq!(length_wide([r(3), r(4)]), r(5));
        assert_eq!(
            length_wide([Fpx16_16::EPSILON, Fpx16_16::ZERO]),
            Fpx16_16::EPSILON
        );
    }

    #[test]
    fn length_wide_saturates_only_above_max() {
        assert_eq!(length_wide([Fpx16_16::MAX, Fpx16_16::ZERO]), Fpx16_16::MAX);
        assert_eq!(length_wide([Fpx16_16::MIN, Fpx16_16::ZERO]), Fpx16_16::MAX);
        assert_eq!(
            length_wide([Fpx16_16::MIN, Fpx16_16::MIN, Fpx16_16::MIN]),
            Fpx16_16::MAX
        );
        // 23170·√2 < MAX: fits; the diagonal of MAX does not.
        let d = i(23170);
        assert_eq!(length_wide([d, d]).to_raw(), 2_147_439_624); // 23170·√2 ≈ 32767.33
        assert_eq!(length_wide([Fpx16_16::MAX, Fpx16_16::MAX]), Fpx16_16::MAX);
        // The exact threshold: sum 2^62 − 2^31 → 2^31 − 1; one more → MAX too
        // (saturation), and below it a plain root.
        let s = ((1u128 << 62) - (1 << 31)) as u64;
        assert_eq!(isqrt_round_u64(s), (1 << 31) - 1);
        assert_eq!(isqrt_round_u64(s + 1), 1 << 31);
    }

    #[test]
    fn distance_wide_takes_differences_without_saturating() {
        let a = [i(-30000), i(0)];
        let b = [i(30000), i(0)];
        // The difference (60000) saturates Q16.16, but not here: MAX.
        assert_eq!(distance_wide(a, b), Fpx16_16::MAX);
        let a = [i(-10000), i(-10000)];
        let b = [i(10000), i(5000)];
        assert_eq!(distance_wide(a, b), i(25000));
        assert_eq!(distance_wide(b, a), i(25000));
        assert_eq!(distance_wide(a, a), Fpx16_16::ZERO);
    }

    /// The acceptance test and the exact search agree: from any guess the
    /// search lands on the one `r` the comparisons accept, and they reject
    /// its neighbours (the fallback a rejected float proposal takes).
    #[test]
    fn the_exact_search_settles_any_rejected_proposal() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..100 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (a, b) = ((x >> 33) as i64, (x as u32 >> 1 >> (x % 31)) as i64);
            let sum = (a * a + b * b) as u64;
            if sum == 0 {
                continue;
            }
            let mag = a as u64;
            for guess in [0, 1, 1 << 15, 1 << 16, (1 << 16) + 1, 1 << 17, u64::MAX] {
                let r = nearest_quotient(mag, u128::from(sum), guess);
                assert!(is_nearest_quotient(mag, sum, r), "{a} {b} {guess}");
                assert!(!is_nearest_quotient(mag, sum, r + 1), "{a} {b}");
                assert!(r == 0 || !is_nearest_quotient(mag, sum, r - 1), "{a} {b}");
            }
        }
    }

    /// The bound's fast decision gives the exact comparisons' result: over
    /// seeded vectors of every scale (both components from 1 raw to near
    /// `MIN`), `Vec2` and `Vec3`, and the vectors whose quotients are exact
    /// integers or halves away from them.
    #[test]
    fn the_fast_decision_is_the_exact_one() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A raw of a random bit length (1..=32), either sign.
            (x as i32) >> (x >> 59)
        };
        for _ in 0..300_000 {
            let v3 = [r(next()), r(next()), r(next())];
            let v2 = [v3[0], v3[1]];
            assert_eq!(normalize_wide(v2), normalize_wide_within(v2, 0.0), "{v2:?}");
            assert_eq!(normalize_wide(v3), normalize_wide_within(v3, 0.0), "{v3:?}");
        }
        for v in [
            [3, 4],
            [5, 12],
            [1, 0],
            [0, -7],
            [1, 1],
            [i32::MIN, 1],
            [i32::MAX, i32::MIN],
            [i32::MIN, i32::MIN],
        ] {
            let v = v.map(r);
            assert_eq!(normalize_wide(v), normalize_wide_within(v, 0.0), "{v:?}");
        }
    }

    /// Vectors whose quotient lies within `2^−32` of a half (found by
    /// continued fractions: `y/x` near `sqrt(2^34/(2k+1)² − 1)`, so the x
    /// quotient is near `k + 1/2`): the fast decision must reject them.
    const NEAR_A_HALF: [[i32; 2]; 9] = [
        [29_126, 1_272_534_357],
        [41_943, 366_503_524],
        [1_143_983, 745_989_868],
        [5_480_154, 358_926_055],
        [435_024_308, 844_891_441],
        [1_498_774_076, 1_498_803_185],
        [1_054_908_233, 135_688_707],
        [327_371_091, 1_706_733_968],
        [104_973_433, 136_234_627],
    ];

    /// The edge vectors of the batch test: zero, the extremes (the sum of
    /// `(MIN, MIN)` is `2^63`), axes, exact quotients, and the
    /// [`NEAR_A_HALF`] ones in every quadrant and both orders.
    fn edge_vectors() -> Vec<Vec2<Fpx16_16>> {
        let (min, max) = (i32::MIN, i32::MAX);
        let mut v = vec![
            [0, 0],
            [1, 0],
            [0, -1],
            [1, 1],
            [-1, 1],
            [3, 4],
            [-3000, 4000],
            [min, min],
            [min, max],
            [max, max],
            [max, min],
            [min, 0],
            [0, min],
            [min, 1],
            [-1, min],
            [max, -1],
            [min, min + 1],
            [min + 1, min + 1],
        ];
        for [a, b] in NEAR_A_HALF {
            for (x, y) in [(a, b), (-a, b), (a, -b), (-a, -b)] {
                v.push([x, y]);
                v.push([y, x]);
            }
        }
        v.into_iter().map(|[x, y]| Vec2::new(r(x), r(y))).collect()
    }

    fn one_by_one(v: &[Vec2<Fpx16_16>]) -> Vec<Vec2<Fpx16_16>> {
        v.iter()
            .map(|c| Vec2::from_array(normalize_wide(c.to_array())))
            .collect()
    }

    #[test]
    fn the_near_half_vectors_are_near_a_half() {
        // 4·x²·2^32 against (2k+1)²·S, S = x² + y²: within (2k+1)·S·2^−30
        // of each other iff the quotient is within about 2^−32 of k + 1/2.
        for [x, y] in NEAR_A_HALF {
            let (x, y) = (u128::from(x.unsigned_abs()), u128::from(y.unsigned_abs()));
            let s = x * x + y * y;
            let q = normalize_wide([r(x as i32), r(y as i32)])[0].to_raw() as u128;
            let target = (x * x) << 34;
            let near = |k: u128| target.abs_diff((2 * k + 1).pow(2) * s) << 30 < (2 * k + 1) * s;
            assert!(near(q) || (q > 0 && near(q - 1)), "{x} {y}");
        }
    }

    /// The batch normalize gives `normalize_wide`'s bits for every vector:
    /// seeded vectors of every scale (each component of a random bit length
    /// 1..=32, either sign), in slices of every length across the chunk
    /// boundary, with the edge vectors mixed in at seeded places.
    #[test]
    fn the_batch_normalize_is_normalize_wide_bit_for_bit() {
        let edges = edge_vectors();
        let mut batch = edges.clone();
        normalize_wide_vec2s(&mut batch);
        assert_eq!(batch, one_by_one(&edges));
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        while checked < 400_000 {
            let len = (next() % 300) as usize;
            let mut input: Vec<Vec2<Fpx16_16>> = (0..len)
                .map(|_| {
                    let (a, b) = (next(), next());
                    let c = |w: u64| r((w as i32) >> (w >> 59));
                    Vec2::new(c(a), c(b))
                })
                .collect();
            if len > 0 && next() % 4 == 0 {
                let at = (next() % len as u64) as usize;
                input[at] = edges[(next() % edges.len() as u64) as usize];
            }
            let mut batch = input.clone();
            normalize_wide_vec2s(&mut batch);
            assert_eq!(batch, one_by_one(&input), "{input:?}");
            checked += len;
        }
        let mut empty: [Vec2<Fpx16_16>; 0] = [];
        normalize_wide_vec2s(&mut empty);
    }

    /// The mapped batch: `f` of each element, normalized, bit for bit as
    /// one call per vector; the shorter slice bounds the pass and the rest
    /// of `dst` is untouched; `f` runs once per element, in order, also
    /// for the vectors the batch settles one at a time (the zero vector,
    /// the near-half edges).
    #[test]
    fn the_mapped_batch_normalizes_f_of_each_element() {
        let edges = edge_vectors();
        // Elements of another type than the vectors: raw pairs, which `f`
        // turns into the negated vector (a non-trivial map).
        let raws: Vec<(i32, i32)> = edges
            .iter()
            .chain(&edges)
            .map(|v| (v.x.to_raw(), v.y.to_raw()))
            .collect();
        let f = |&(x, y): &(i32, i32)| -Vec2::new(r(x), r(y));
        let want = |n: usize| -> Vec<Vec2<Fpx16_16>> {
            raws[..n].iter().map(|e| f(e).normalize_wide()).collect()
        };
        let marker = Vec2::new(r(7), r(-7));
        for len in [0, 1, 63, 64, 65, raws.len()] {
            // dst as long as src, shorter, and longer.
            let mut dst = vec![marker; len];
            let seen = std::cell::RefCell::new(Vec::new());
            Vec2::normalize_wide_map(&raws[..len], &mut dst, |e| {
                seen.borrow_mut().push(*e);
                f(e)
            });
            assert_eq!(dst, want(len));
            assert_eq!(seen.into_inner(), raws[..len]);
            let mut short = vec![marker; len / 2];
            Vec2::normalize_wide_map(&raws[..len], &mut short, f);
            assert_eq!(short, want(len / 2));
            let mut long = vec![marker; len + 5];
            Vec2::normalize_wide_map(&raws[..len], &mut long, f);
            assert_eq!(long[..len], want(len)[..]);
            assert!(long[len..].iter().all(|v| *v == marker));
        }
        let plain = [(3000 << 16, -4000 << 16); 100];
        let mut dst = [Vec2::ZERO; 100];
        Vec2::normalize_wide_map(&plain, &mut dst, f);
        assert!(dst.iter().all(|v| *v == Vec2::new(r(-39322), r(52429))));
    }

    #[test]
    fn normalize_wide_keeps_direction_at_any_length() {
        let n = normalize_wide([i(3000), i(-4000)]);
        assert_eq!(n, [r(39322), r(-52429)]); // 0.6, −0.8 rounded
        // Tiny vectors get a precise direction too: (1, 1) raw → 1/√2.
        let n = normalize_wide([Fpx16_16::EPSILON, Fpx16_16::EPSILON]);
        assert_eq!(n, [r(46341), r(46341)]);
        let n = normalize_wide([r(1), r(-2), r(2)]); // |v| = 3 raw
        assert_eq!(n, [r(21845), r(-43691), r(43691)]);
        assert_eq!(normalize_wide([Fpx16_16::ZERO; 3]), [Fpx16_16::ZERO; 3]);
        assert_eq!(
            normalize_wide([Fpx16_16::EPSILON, Fpx16_16::ZERO]),
            [Fpx16_16::ONE, Fpx16_16::ZERO]
        );
        // Longer than MAX: (MIN, MIN) normalizes to (−1/√2, −1/√2).
        let n = normalize_wide([Fpx16_16::MIN, Fpx16_16::MIN]);
        assert_eq!(n, [r(-46341), r(-46341)]);
        let n = normalize_wide([Fpx16_16::MAX, Fpx16_16::ZERO, Fpx16_16::ZERO]);
        assert_eq!(n, [Fpx16_16::ONE, Fpx16_16::ZERO, Fpx16_16::ZERO]);
        // Sums beyond u64 (four or more MIN components): −1/2, −1/√5.
        assert_eq!(normalize_wide([Fpx16_16::MIN; 4]), [r(-32768); 4]);
        assert_eq!(normalize_wide([Fpx16_16::MIN; 5]), [r(-29309); 5]);
        assert_eq!(length_wide([Fpx16_16::MIN; 4]), Fpx16_16::MAX);
    }
}
