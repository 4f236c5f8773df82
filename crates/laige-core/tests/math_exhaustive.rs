//! Exhaustive checks over all 2^32 inputs of every unary `Fpx16_16` op
//! (`sqrt`, `neg`, `abs`, `to_i32`, `to_f32`, `from_f32`, and the
//! `to_f32` → `from_f32` round trip) against the independent `i128`
//! reference (`math_reference`), and `Vec2::normalize_wide` over three
//! boxes of 2^24 vectors. Each test splits the range across two
//! threads.
//!
//! Heavy (`#[ignore]`d): run optimized with
//! `cargo test --profile test-opt -p laige-core --test math_exhaustive -- --ignored`.

mod math_reference;

use std::sync::Mutex;

use laige_core::Fpx16_16;
use math_reference as reference;

/// Mismatches reported per test (the count is always reported).
const MAX_REPORTED: usize = 10;

/// Runs `check(bits)` for every `u32` (2^32 inputs) on two threads;
/// `check` returns a description of a mismatch, or `None`.
fn for_all_u32(check: impl Fn(u32) -> Option<String> + Sync) {
    for_all_below(1 << 32, |i| check(i as u32));
}

/// Runs `check(i)` for every `i` in `0..n` (`n` even) on two threads.
fn for_all_below(n: u64, check: impl Fn(u64) -> Option<String> + Sync) {
    let failures = Mutex::new((0u64, Vec::<String>::new()));
    std::thread::scope(|s| {
        for half in 0..2u64 {
            let (check, failures) = (&check, &failures);
            s.spawn(move || {
                let start = half * (n / 2);
                let end = start + n / 2;
                let mut local = (0u64, Vec::new());
                for i in start..end {
                    if let Some(msg) = check(i) {
                        local.0 += 1;
                        if local.1.len() < MAX_REPORTED {
                            local.1.push(msg);
                        }
                    }
                }
                let mut all = failures.lock().unwrap_or_else(|e| e.into_inner());
                all.0 += local.0;
                all.1.extend(local.1);
            });
        }
    });
    let (count, msgs) = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    assert_eq!(
        count,
        0,
        "{count} mismatches, first ones:\n{}",
        msgs.join("\n")
    );
}

fn fx(bits: u32) -> Fpx16_16 {
    Fpx16_16::from_raw(bits as i32)
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn sqrt_is_the_nearest_root_for_every_raw() {
    for_all_u32(|bits| {
        let x = bits as i32;
        let r = fx(bits).sqrt().to_raw();
        (!reference::sqrt_ok(x, r)).then(|| format!("sqrt({x}) = {r}"))
    });
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn neg_and_abs_saturate_exactly_for_every_raw() {
    for_all_u32(|bits| {
        let x = bits as i32;
        let (n, a) = ((-fx(bits)).to_raw(), fx(bits).abs().to_raw());
        (n != reference::neg(x) || a != reference::abs(x))
            .then(|| format!("neg({x}) = {n}, abs({x}) = {a}"))
    });
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn to_i32_rounds_ties_to_even_for_every_raw() {
    for_all_u32(|bits| {
        let x = bits as i32;
        let got = fx(bits).to_i32();
        (i128::from(got) != reference::to_i32(x)).then(|| format!("to_i32({x}) = {got}"))
    });
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn to_f32_then_from_f32_round_trips_for_every_raw() {
    for_all_u32(|bits| {
        let x = bits as i32;
        let f = fx(bits).to_f32();
        if f.to_bits() != reference::to_f32(x).to_bits() {
            return Some(format!(
                "to_f32({x}) = {f:e}, reference {:e}",
                reference::to_f32(x)
            ));
        }
        let back = Fpx16_16::from_f32(f).to_raw();
        // |raw| < 2^24: exact in binary32, so the trip is the identity.
        // Larger: the float was rounded; from_f32 must match the reference.
        let want = if x.unsigned_abs() < 1 << 24 {
            x
        } else {
            reference::from_f32_bits(f.to_bits())
        };
        (back != want).then(|| format!("from_f32(to_f32({x}) = {f:e}) = {back}, want {want}"))
    });
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn from_f32_matches_the_reference_for_every_bit_pattern() {
    for_all_u32(|bits| {
        let got = Fpx16_16::from_f32(f32::from_bits(bits)).to_raw();
        let want = reference::from_f32_bits(bits);
        (got != want).then(|| format!("from_f32({bits:#010x}) = {got}, reference {want}"))
    });
}

/// `Vec2::normalize_wide` against the `i128` reference for every vector of
/// three boxes of 2^24 vectors each: both components in `[−2^11, 2^11)`
/// (the short vectors, where the quotients are coarse), both magnitudes in
/// `[2^31 − 2^11 − 1, 2^31]` (the longest ones, where the binary64 sum
/// rounds),
/// and one of each; the signs cover all four quadrants. The fast decision's
/// exactness is argued in its comment; this checks the argument.
#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn normalize_wide_matches_the_reference_in_three_boxes() {
    for_all_below(3 << 24, |i| {
        let v = box_vector(i);
        let got = v.normalize_wide().to_array().map(Fpx16_16::to_raw);
        let c = v.to_array().map(Fpx16_16::to_raw);
        (got.as_slice() != reference::normalize_wide(&c))
            .then(|| format!("normalize_wide{c:?} = {got:?}"))
    });
}

/// `Vec2::normalize_wide_slice` against the `i128` reference over the same
/// three boxes, in slices of 64 consecutive vectors: the batch proposal
/// (binary64 sums) and its fix-up are checked on every vector.
#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn the_batch_normalize_matches_the_reference_in_three_boxes() {
    const BATCH: u64 = 64;
    for_all_below((3 << 24) / BATCH, |j| {
        let mut batch = [laige_core::Vec2::<Fpx16_16>::ZERO; BATCH as usize];
        for (k, v) in (0..).zip(batch.iter_mut()) {
            *v = box_vector(j * BATCH + k);
        }
        let input = batch;
        laige_core::Vec2::normalize_wide_slice(&mut batch);
        input.iter().zip(&batch).find_map(|(v, n)| {
            let c = v.to_array().map(Fpx16_16::to_raw);
            let got = n.to_array().map(Fpx16_16::to_raw);
            (got.as_slice() != reference::normalize_wide(&c))
                .then(|| format!("normalize_wide_slice at {c:?} = {got:?}"))
        })
    });
}

/// Vector `i < 3·2^24` of the three boxes: `i >> 24` picks the box, the
/// low 24 bits the two 12-bit coordinates.
fn box_vector(i: u64) -> laige_core::Vec2<Fpx16_16> {
    let (a, b) = ((i & 0xFFF) as i64, ((i >> 12) & 0xFFF) as i64);
    let (x, y) = match i >> 24 {
        0 => (a - 2048, b - 2048),
        1 => (far(a), far(b)),
        _ => (far(a), b - 2048),
    };
    laige_core::Vec2::new(Fpx16_16::from_raw(x as i32), Fpx16_16::from_raw(y as i32))
}

/// A magnitude in `[2^31 − 2^11 − 1, 2^31]` from `a < 2^12`, signed by its
/// low bit (negative ones reach `MIN`).
fn far(a: i64) -> i64 {
    let mag = (1i64 << 31) - (a >> 1);
    if a & 1 == 0 { mag - 1 } else { -mag }
}
