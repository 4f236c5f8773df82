//! Differential tests: `Fpx16_16` against the independent `i128` reference
//! (`math_reference`), on seeded, edge-biased random pairs and on edge
//! tables of every tie and saturation boundary.
//!
//! The 10-million-pair runs are `#[ignore]`d (heavy); run them optimized:
//! `cargo test --profile test-opt -p laige-core --test math_differential -- --ignored`.
//! The quick variants and the edge tables run in every `cargo test`.

mod math_reference;

use laige_core::{Fpx16_16, Vec2, Vec3};
use math_reference::{self as reference, EDGES, SplitMix64, biased_raw};

/// Pairs per binary op in the heavy run (the issue asks for >= 10 million).
const HEAVY_PAIRS: u64 = 10_000_000;
/// Pairs per binary op in the quick run.
const QUICK_PAIRS: u64 = 100_000;

fn fx(raw: i32) -> Fpx16_16 {
    Fpx16_16::from_raw(raw)
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    fn eval(self, a: i32, b: i32) -> i32 {
        let (x, y) = (fx(a), fx(b));
        match self {
            Op::Add => (x + y).to_raw(),
            Op::Sub => (x - y).to_raw(),
            Op::Mul => (x * y).to_raw(),
            Op::Div => (x / y).to_raw(),
        }
    }

    fn reference(self, a: i32, b: i32) -> i32 {
        match self {
            Op::Add => reference::add(a, b),
            Op::Sub => reference::sub(a, b),
            Op::Mul => reference::mul(a, b),
            Op::Div => reference::div(a, b),
        }
    }
}

/// A random odd number with at most `bits` bits (>= 1).
fn odd(rng: &mut SplitMix64, bits: u32) -> i64 {
    let v = (rng.next_u64() >> (64 - bits.max(1))) as i64;
    v | 1
}

/// A pair biased for `op`: generic biased raws, plus pairs built to land
/// exactly on a rounding tie or right at the saturation boundary.
fn pair(op: Op, rng: &mut SplitMix64) -> (i32, i32) {
    let sat = |v: i64| reference::sat(i128::from(v));
    match (op, rng.below(10)) {
        // add/sub: b chosen so a ± b lands within a few ulps of MAX or MIN.
        (Op::Add | Op::Sub, 0..=2) => {
            let a = biased_raw(rng);
            let target = if rng.next_u64() & 1 == 0 {
                i64::from(i32::MAX)
            } else {
                i64::from(i32::MIN)
            };
            let jitter = rng.below(7) as i64 - 3;
            let b = target - i64::from(a) + jitter;
            let b = if matches!(op, Op::Sub) { -b } else { b };
            (a, sat(b))
        }
        // mul ties: (x·2^i)(y·2^(15−i)) = odd·2^15, low 16 bits 0x8000.
        (Op::Mul, 0..=2) => {
            let i = rng.below(16) as u32;
            let x = odd(rng, 30 - i);
            let y = odd(rng, 30 - (15 - i));
            (sat(rng.signed(x << i)), sat(rng.signed(y << (15 - i))))
        }
        // mul saturation: a·b/2^16 within a few ulps of ±MAX.
        (Op::Mul, 3..=4) => {
            let a = biased_raw(rng);
            if a == 0 {
                return (a, biased_raw(rng));
            }
            let b = (i64::from(i32::MAX) << 16) / i64::from(a) + rng.below(5) as i64 - 2;
            (a, sat(rng.signed(b)))
        }
        // div ties: b = u·2^e (u odd, e >= 17), a = u·(2q+1)·2^(e−17):
        // a·2^16 / b = (2q+1)/2 exactly.
        (Op::Div, 0..=2) => {
            let e = 17 + rng.below(14) as u32; // 17..=30
            let u = odd(rng, 31 - e);
            let b = u << e;
            let room = 31 - (64 - u.leading_zeros()) - (e - 17);
            let q2 = odd(rng, room.max(1));
            let a = (u * q2) << (e - 17);
            (sat(rng.signed(a)), sat(rng.signed(b)))
        }
        // div saturation: a·2^16/b within a few ulps of ±MAX; divisors
        // 0, ±1 ulp.
        (Op::Div, 3..=4) => {
            let b = biased_raw(rng);
            let a = (i128::from(i32::MAX) * i128::from(b)) >> 16;
            let a = a + i128::from(rng.below(5)) - 2;
            (reference::sat(a), b)
        }
        (Op::Div, 5) => {
            let b = [0, 1, -1, 2, -2][rng.below(5) as usize];
            (biased_raw(rng), b)
        }
        _ => (biased_raw(rng), biased_raw(rng)),
    }
}

/// Runs `n` pairs of `op` against the reference; returns the first
/// mismatches (empty on success).
fn run(op: Op, n: u64, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64(seed);
    let mut bad = Vec::new();
    for _ in 0..n {
        let (a, b) = pair(op, &mut rng);
        let (got, want) = (op.eval(a, b), op.reference(a, b));
        if got != want && bad.len() < 10 {
            bad.push(format!("{op:?}({a}, {b}) = {got}, reference {want}"));
        }
    }
    bad
}

fn assert_clean(bad: &[String]) {
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}

#[test]
fn quick_binary_ops_match_the_reference() {
    for (i, op) in [Op::Add, Op::Sub, Op::Mul, Op::Div].into_iter().enumerate() {
        assert_clean(&run(op, QUICK_PAIRS, 0xA5A5_0000 + i as u64));
    }
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn heavy_add_matches_the_reference() {
    assert_clean(&run(Op::Add, HEAVY_PAIRS, 0x0ADD));
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn heavy_sub_matches_the_reference() {
    assert_clean(&run(Op::Sub, HEAVY_PAIRS, 0x05AB));
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn heavy_mul_matches_the_reference() {
    assert_clean(&run(Op::Mul, HEAVY_PAIRS, 0x0AA1));
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn heavy_div_matches_the_reference() {
    assert_clean(&run(Op::Div, HEAVY_PAIRS, 0x0D1F));
}

/// Random vectors through the plain and wide length paths and the wide
/// normalize/distance, against the reference.
fn run_vectors(n: u64, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64(seed);
    let mut bad = Vec::new();
    let mut note = |s: String| {
        if bad.len() < 10 {
            bad.push(s);
        }
    };
    for _ in 0..n {
        let c = [
            biased_raw(&mut rng),
            biased_raw(&mut rng),
            biased_raw(&mut rng),
        ];
        let d = [
            biased_raw(&mut rng),
            biased_raw(&mut rng),
            biased_raw(&mut rng),
        ];
        let v2 = Vec2::new(fx(c[0]), fx(c[1]));
        let w2 = Vec2::new(fx(d[0]), fx(d[1]));
        let v3 = Vec3::new(fx(c[0]), fx(c[1]), fx(c[2]));
        let w3 = Vec3::new(fx(d[0]), fx(d[1]), fx(d[2]));
        let checks = [
            (
                "length2",
                v2.length().to_raw(),
                reference::length_plain(&c[..2]),
            ),
            ("length3", v3.length().to_raw(), reference::length_plain(&c)),
            (
                "length_wide2",
                v2.length_wide().to_raw(),
                reference::length_wide(&c[..2]),
            ),
            (
                "length_wide3",
                v3.length_wide().to_raw(),
                reference::length_wide(&c),
            ),
            (
                "distance_wide2",
                v2.distance_wide(w2).to_raw(),
                reference::distance_wide(&c[..2], &d[..2]),
            ),
            (
                "distance_wide3",
                v3.distance_wide(w3).to_raw(),
                reference::distance_wide(&c, &d),
            ),
        ];
        for (name, got, want) in checks {
            if got != want {
                note(format!("{name}({c:?}, {d:?}) = {got}, reference {want}"));
            }
        }
        let n2 = v2.normalize_wide().to_array().map(Fpx16_16::to_raw);
        if n2.as_slice() != reference::normalize_wide(&c[..2]) {
            note(format!("normalize_wide2({c:?}) = {n2:?}"));
        }
        let n3 = v3.normalize_wide().to_array().map(Fpx16_16::to_raw);
        if n3.as_slice() != reference::normalize_wide(&c) {
            note(format!("normalize_wide3({c:?}) = {n3:?}"));
        }
    }
    bad
}

#[test]
fn quick_vector_paths_match_the_reference() {
    assert_clean(&run_vectors(5_000, 0x7EC7));
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn heavy_vector_paths_match_the_reference() {
    assert_clean(&run_vectors(1_000_000, 0x7EC7_0001));
}

#[test]
fn edge_table_all_pairs_match_the_reference() {
    let mut bad = Vec::new();
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
        for &a in &EDGES {
            for &b in &EDGES {
                let (got, want) = (op.eval(a, b), op.reference(a, b));
                if got != want {
                    bad.push(format!("{op:?}({a}, {b}) = {got}, reference {want}"));
                }
            }
        }
    }
    assert_clean(&bad);
}

/// Every tie case of the op table, with the expected raw written out by hand
/// (and checked against the reference too).
#[test]
fn tie_table() {
    // (a, b, expected a*b): low 16 bits of a·b exactly 0x8000.
    let mul_ties = [
        (1, 0x8000, 0),     // 0.5 ulp → 0 (even)
        (3, 0x8000, 2),     // 1.5 → 2
        (5, 0x8000, 2),     // 2.5 → 2
        (7, 0x8000, 4),     // 3.5 → 4
        (-1, 0x8000, 0),    // −0.5 → 0
        (-3, 0x8000, -2),   // −1.5 → −2
        (0x1_8000, 1, 2),   // 1.5 raw → 2
        (0x2_8000, 1, 2),   // 2.5 raw → 2
        (0x100, 0x80, 0),   // 2^15 → 0.5 raw → 0
        (0x300, 0x80, 2),   // 3·2^15 → 1.5 → 2
        (-0x300, -0x80, 2), // positive product
        (0x300, -0x80, -2), // −1.5 → −2
    ];
    for (a, b, want) in mul_ties {
        assert_eq!((fx(a) * fx(b)).to_raw(), want, "mul({a}, {b})");
        assert_eq!(reference::mul(a, b), want, "reference mul({a}, {b})");
    }
    // (a, b, expected a/b): remainder of a·2^16 by b exactly b/2.
    let two = 2 << 16;
    let div_ties = [
        (1, two, 0),      // 0.5 → 0
        (3, two, 2),      // 1.5 → 2
        (5, two, 2),      // 2.5 → 2
        (-3, two, -2),    // −1.5 → −2
        (3, -two, -2),    // −1.5 → −2
        (-5, -two, 2),    // 2.5 → 2
        (3, 6 << 16, 0),  // 0.5 → 0
        (9, 6 << 16, 2),  // 1.5 → 2
        (15, 6 << 16, 2), // 2.5 → 2
        (1, 1 << 18, 0),  // 0.25: not a tie → 0
        (3, 1 << 18, 1),  // 0.75 → 1
    ];
    for (a, b, want) in div_ties {
        assert_eq!((fx(a) / fx(b)).to_raw(), want, "div({a}, {b})");
        assert_eq!(reference::div(a, b), want, "reference div({a}, {b})");
    }
    // to_i32: value exactly k + 0.5.
    let to_i32_ties = [
        (0x8000, 0),
        (0x1_8000, 2),
        (0x2_8000, 2),
        (0x3_8000, 4),
        (-0x8000, 0),
        (-0x1_8000, -2),
        (-0x2_8000, -2),
        (i32::MIN + 0x8000, -32768),
        (0x7FFF_8000, 32768), // 32767.5 → 32768 (even)
        (0x7FFE_8000, 32766), // 32766.5 → 32766
    ];
    for (raw, want) in to_i32_ties {
        assert_eq!(fx(raw).to_i32(), want, "to_i32({raw:#x})");
        assert_eq!(reference::to_i32(raw), i128::from(want));
    }
    // from_f32: v·2^16 exactly k + 0.5.
    let h = 1.0f32 / 131_072.0; // 2^−17
    let from_f32_ties = [
        (h, 0),
        (3.0 * h, 2),
        (5.0 * h, 2),
        (-h, 0),
        (-3.0 * h, -2),
        (1.0 + h, 0x1_0000),
        (1.0 + 3.0 * h, 0x1_0002),
        (-(2.0 + 3.0 * h), -0x2_0002),
        (100.0 + 3.0 * h, (100 << 16) + 2), // exact in f32 (|v| < 2^7)
    ];
    for (v, want) in from_f32_ties {
        assert_eq!(Fpx16_16::from_f32(v).to_raw(), want, "from_f32({v:e})");
        assert_eq!(reference::from_f32_bits(v.to_bits()), want);
    }
}

/// Every saturation boundary: the last exact result and the first
/// saturated one, per op and conversion.
#[test]
fn saturation_table() {
    let max = i32::MAX;
    let min = i32::MIN;
    let cases: [(Op, i32, i32, i32); 22] = [
        (Op::Add, max - 1, 1, max),
        (Op::Add, max, 1, max),
        (Op::Add, max, max, max),
        (Op::Add, min, -1, min),
        (Op::Add, min + 1, -1, min),
        (Op::Add, min, min, min),
        (Op::Sub, min, max, min),
        (Op::Sub, min + 1, 1, min),
        (Op::Sub, min, 1, min),
        (Op::Sub, max, -1, max),
        (Op::Sub, 0, min, max),
        (Op::Mul, min, min, max),
        (Op::Mul, min, -0x1_0000, max),
        (Op::Mul, min, 0x1_0000, min),
        (Op::Mul, max, max, max),
        (Op::Mul, 0x00B5_0000, 0x00B5_0000, 32761 << 16), // 181² exact
        (Op::Mul, 0x00B6_0000, 0x00B6_0000, max),         // 182² saturates
        (Op::Div, max, 1, max),
        (Op::Div, min, -1, max),
        (Op::Div, min, -0x1_0000, max),
        (Op::Div, min, 0x1_0000, min),
        (Op::Div, 0x7FFF, 0x8000, 0xFFFE), // 0.49998/0.5 exact
    ];
    for (op, a, b, want) in cases {
        assert_eq!(op.eval(a, b), want, "{op:?}({a}, {b})");
        assert_eq!(op.reference(a, b), want, "reference {op:?}({a}, {b})");
    }
    // mul: the largest b with a·b/2^16 <= MAX for a = 2.0, and the next.
    let a = 2 << 16;
    assert_eq!(Op::Mul.eval(a, max / 2), max - 1);
    assert_eq!(Op::Mul.eval(a, max / 2 + 1), max);
    assert_eq!(Op::Mul.eval(a, min / 2), min);
    assert_eq!(Op::Mul.eval(a, min / 2 - 1), min);
    // div by 0.5: doubles; saturates just past MAX/2.
    assert_eq!(Op::Div.eval(max / 2, 0x8000), max - 1);
    assert_eq!(Op::Div.eval(max / 2 + 1, 0x8000), max);
    // Division by zero.
    for (a, want) in [(1, max), (max, max), (-1, -max), (min, -max), (0, 0)] {
        assert_eq!(Op::Div.eval(a, 0), want, "div({a}, 0)");
        assert_eq!(reference::div(a, 0), want);
    }
    // Negation and abs saturate only at MIN.
    assert_eq!((-fx(min)).to_raw(), max);
    assert_eq!(fx(min).abs().to_raw(), max);
    assert_eq!((-fx(-max)).to_raw(), max);
    // Conversions.
    assert_eq!(Fpx16_16::from_i32(32767).to_raw(), 32767 << 16);
    assert_eq!(Fpx16_16::from_i32(32768).to_raw(), max);
    assert_eq!(Fpx16_16::from_i32(-32768).to_raw(), min);
    assert_eq!(Fpx16_16::from_i32(-32769).to_raw(), min);
    let below = f32::from_bits(32768.0f32.to_bits() - 1);
    assert_eq!(Fpx16_16::from_f32(below).to_raw(), max - 127);
    assert_eq!(Fpx16_16::from_f32(32768.0).to_raw(), max);
    assert_eq!(Fpx16_16::from_f32(-32768.0).to_raw(), min);
    let beyond = f32::from_bits((-32768.0f32).to_bits() + 1);
    assert_eq!(Fpx16_16::from_f32(beyond).to_raw(), min);
    assert_eq!(fx(max).to_i32(), 32768);
    assert_eq!(fx(min).to_i32(), -32768);
    // sqrt at the top: sqrt(MAX) and the length bound.
    assert_eq!(fx(max).sqrt().to_raw(), 11_863_283);
    assert!(reference::sqrt_ok(max, 11_863_283));
    let i = Fpx16_16::from_i32;
    assert_eq!(Vec2::new(i(181), i(0)).length(), i(181));
    assert_eq!(Vec2::new(i(182), i(0)).length(), fx(max).sqrt());
}
