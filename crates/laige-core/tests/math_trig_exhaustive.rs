//! Exhaustive and differential checks of the trigonometry of both backends
//! against independent references that share no code with either backend.
//!
//! - `Fpx16_16` `sin`/`cos`: all 2^32 inputs within 1 ulp (2^−16) of the
//!   exact value, and correctly rounded on at least 99% of them. The fast
//!   reference is angle addition over two tables of the platform's binary64
//!   `sin`/`cos` ([`FixedReference`], error below `2^−32` ulp); where it lies
//!   within [`UNDECIDED`] of a rounding boundary, the direct binary64
//!   `sin`/`cos` of the input decides; an input still that close counts as
//!   *not* correctly rounded, so the percentage is a proven lower bound.
//!   The same pass checks that `sin_cos` is the two calls `sin` and `cos`
//!   on every input and hashes every result into the committed
//!   known-answer hashes [`ALL_RAWS_SIN_HASH`], [`ALL_RAWS_COS_HASH`]
//!   (the fast paths must reproduce every bit of the exact Q62 path they
//!   short-cut), so the 2^32 values are computed once for both checks.
//! - `Fp32Pinned` `sin`/`cos`: all 2^32 binary32 inputs within 1 ulp
//!   (NaN → NaN, `±inf` → NaN), against the binary64 `sin`/`cos` of the
//!   input, with the argument reduced exactly in integers for `|x| >= 2^25`
//!   ([`pinned_reference`], error below `2^−26` binary32 ulp).
//! - `tan`, `atan`, `asin`, `acos`: every input of the Q16.16 `asin`/`acos`
//!   domain, and 2^24 inputs spread over all the others; `atan2`: 16M
//!   random pairs of mixed magnitudes plus an edge table, on both backends;
//!   against the platform's binary64 functions.
//!
//! The binary64 functions are glibc's, assumed within 2 binary64 ulp
//! (glibc documents at most 1 for these); the error bounds above hold
//! under that assumption. The non-heavy tests at the end check both fast
//! references against the direct binary64 functions.
//!
//! Each loop hands out chunks of inputs to one thread per core. The
//! measured maxima are printed (run with `--nocapture`) and are the bounds
//! stated in the ops' docs.
//!
//! Heavy (`#[ignore]`d): run optimized with
//! `cargo test --profile test-opt -p laige-core --test math_trig_exhaustive -- --ignored`.

#![allow(
    clippy::print_stdout,
    reason = "the measured error bounds are the test's report (`--nocapture`)"
)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use laige_core::{Fp32Pinned, Fpx16_16};

/// A reference closer than this (in Q16.16 steps) to a rounding boundary
/// does not decide the correctly rounded result (it exceeds the error of
/// both Q16.16 references: [`FIXED_REF_ERR`], and `2^−36` for the direct
/// binary64 functions within 2 binary64 ulp).
const UNDECIDED: f64 = 1.0 / (1u64 << 30) as f64;

/// Error statistics of one op over a set of inputs.
#[derive(Default, Clone)]
struct Stats {
    inputs: u64,
    /// Largest error seen, in ulp.
    max_err: f64,
    /// The input of the largest error.
    worst: u64,
    /// Results that are the correctly rounded value (Q16.16 only).
    correct: u64,
    /// Inputs the reference could not decide (Q16.16 only).
    undecided: u64,
    /// Inputs that broke the rule (bound or special value), first ones.
    failures: Vec<String>,
    n_failures: u64,
    /// Order-independent hashes of `(input, output)` pairs, one per
    /// output ([`Stats::hash`]; the Q16.16 `sin`/`cos` pass only).
    hashes: [u64; 2],
}

impl Stats {
    fn merge(&mut self, o: Stats) {
        self.inputs += o.inputs;
        if o.max_err > self.max_err {
            self.max_err = o.max_err;
            self.worst = o.worst;
        }
        self.correct += o.correct;
        self.undecided += o.undecided;
        self.n_failures += o.n_failures;
        self.failures.extend(o.failures.into_iter().take(10));
        for (h, o) in self.hashes.iter_mut().zip(o.hashes) {
            *h = h.wrapping_add(o);
        }
    }

    /// Adds the pairs `(input, outputs[k])` to `hashes[k]`: the wrapping
    /// sum of SplitMix64's finalizer over `input | output << 32`, so any
    /// changed output changes the hash, whatever order the inputs come in.
    fn hash(&mut self, input: u64, outputs: [i32; 2]) {
        fn mix(mut z: u64) -> u64 {
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        for (h, o) in self.hashes.iter_mut().zip(outputs) {
            *h = h.wrapping_add(mix(input | (u64::from(o as u32) << 32)));
        }
    }

    fn fail(&mut self, msg: String) {
        self.n_failures += 1;
        if self.failures.len() < 10 {
            self.failures.push(msg);
        }
    }

    /// Records a Q16.16 result `got` against the exact value `exact` (in
    /// raw steps); fails above `bound` ulp.
    fn fixed(&mut self, input: u64, got: i32, exact: f64, bound: f64) {
        self.inputs += 1;
        let err = (f64::from(got) - exact).abs();
        if err > self.max_err {
            self.max_err = err;
            self.worst = input;
        }
        if err + UNDECIDED >= bound {
            self.fail(format!("input {input}: got {got}, exact {exact}"));
        }
        let nearest = nearest_integer(exact);
        if boundary_distance(exact, nearest) <= UNDECIDED {
            self.undecided += 1;
        } else if f64::from(got) == nearest {
            self.correct += 1;
        }
    }

    /// [`fixed`](Self::fixed) against a fast reference `fast` within
    /// [`FIXED_REF_ERR`] of the exact value; where that lies within
    /// [`UNDECIDED`] of a rounding boundary, the slower `direct` one
    /// decides (and the input is undecided if it too lies that close).
    fn fixed_fast(
        &mut self,
        input: u64,
        got: i32,
        fast: f64,
        direct: impl FnOnce() -> f64,
        bound: f64,
    ) {
        let exact = if boundary_distance(fast, nearest_integer(fast)) <= UNDECIDED {
            direct()
        } else {
            fast
        };
        self.fixed(input, got, exact, bound);
    }

    /// Records a binary32 result against a reference within
    /// [`PINNED_REF_ERR`] ulp of the exact value; fails unless the result
    /// is proven within `bound` ulp of the exact value.
    fn pinned(&mut self, input: u64, got: f32, exact: f64, bound: f64) {
        self.inputs += 1;
        let err = ulp_error(got, exact);
        if err > self.max_err {
            self.max_err = err;
            self.worst = input;
        }
        if err + PINNED_REF_ERR > bound {
            self.fail(format!(
                "input {input:#x}: got {got:e}, exact {exact:e} ({err} ulp)"
            ));
        }
    }

    fn report(&self, name: &str) {
        let pct = 100.0 * self.correct as f64 / self.inputs.max(1) as f64;
        println!(
            "{name}: {} inputs, max error {:.6} ulp (input {:#x}), correctly rounded {:.6}% ({} undecided; Q16.16 only)",
            self.inputs, self.max_err, self.worst, pct, self.undecided
        );
        assert_eq!(
            self.n_failures,
            0,
            "{name}: {} failures, first ones:\n{}",
            self.n_failures,
            self.failures.join("\n")
        );
    }
}

/// `1.5 · 2^52`: adding it rounds a binary64 of magnitude below `2^51` to
/// an integer (the sum's ulp is 1), ties to even.
const TOINT: f64 = 1.5 / f64::EPSILON;

/// The integer nearest to `x` (`|x| < 2^51`; a tie, which only an input
/// the reference does not decide can be, goes to even). Two additions
/// instead of `f64::round`/`floor`, which are library calls where the
/// baseline ISA has no rounding instruction (x86_64 without SSE4.1): a
/// third of the Q16.16 pass's time went to them.
#[inline]
fn nearest_integer(x: f64) -> f64 {
    debug_assert!(x.abs() < 2f64.powi(51), "{x} is out of range");
    (x + TOINT) - TOINT
}

/// The distance of `x` to the nearest rounding boundary `k + 1/2`, given
/// its `nearest` integer: `1/2 − |x − nearest|`, exact (both differences
/// are of nearby values).
#[inline]
fn boundary_distance(x: f64, nearest: f64) -> f64 {
    0.5 - (x - nearest).abs()
}

/// `|got − exact|` in units of the binary32 ulp at `exact` (the spacing of
/// binary32 values around it; subnormal spacing below `MIN_POSITIVE`).
/// The binade is taken from `|exact|·(1 − 2^−40)`, so a reference a hair
/// above a power of two (within its own error) is measured in the finer
/// ulp below it: the error is never understated.
fn ulp_error(got: f32, exact: f64) -> f64 {
    let a = exact.abs() * (1.0 - 2f64.powi(-40));
    let ulp = if a < f64::from(f32::MIN_POSITIVE) {
        2f64.powi(-149)
    } else {
        // a is a normal binary64: its unbiased exponent, minus 23.
        let e = ((a.to_bits() >> 52) & 0x7FF) as i64 - 1023;
        f64::from_bits(((e - 23 + 1023) as u64) << 52)
    };
    (f64::from(got) - exact).abs() / ulp
}

/// Inputs per chunk handed to a thread.
const CHUNK: u64 = 1 << 16;

/// Runs `check` on the `n` inputs `index → input` on one thread per core,
/// each taking the next chunk of indices until none is left (inputs cost
/// unevenly: a huge binary32 argument takes the slow reduction).
fn run(n: u64, check: impl Fn(u64, &mut Stats) + Sync) -> Stats {
    let threads = std::thread::available_parallelism().map_or(2, |p| p.get());
    let next = AtomicU64::new(0);
    let total = Mutex::new(Stats::default());
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (check, total, next) = (&check, &total, &next);
            s.spawn(move || {
                let mut local = Stats::default();
                loop {
                    // Relaxed: the counter only hands out disjoint chunks;
                    // the results are published through the mutex.
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= n {
                        break;
                    }
                    for i in start..(start + CHUNK).min(n) {
                        check(i, &mut local);
                    }
                }
                total.lock().unwrap_or_else(|e| e.into_inner()).merge(local);
            });
        }
    });
    total.into_inner().unwrap_or_else(|e| e.into_inner())
}

fn fx(raw: i32) -> Fpx16_16 {
    Fpx16_16::from_raw(raw)
}

fn real(raw: i32) -> f64 {
    f64::from(raw) / 65536.0
}

/// How many inputs the sampled checks take: `2^SAMPLE_BITS`.
const SAMPLE_BITS: u32 = 24;

/// The `i`-th of `2^SAMPLE_BITS` inputs spread over all 2^32: every
/// `2^(32 − SAMPLE_BITS)`-th, with the low bits rotating so every residue
/// occurs.
fn spread(i: u64) -> u32 {
    let step = 32 - SAMPLE_BITS;
    ((i << step) | (i & ((1 << step) - 1))) as u32
}

/// The fast reference for `Fpx16_16` `sin`/`cos`: with `raw = 2^16·h + l`
/// (`h = raw >> 16`, `l` its low 16 bits), the input is the exact sum
/// `h + l/2^16`, and `sin`/`cos` of it are one angle addition over four
/// 65536-entry tables of the binary64 `sin`/`cos` of `h` and of `l/2^16`
/// (both exact binary64 arguments).
///
/// Error: each entry is within 2 binary64 ulp of its exact value, at most
/// `2^−52` (every entry is at most 1 in magnitude); each product then errs
/// by at most `2·2^−52` plus its rounding `2^−54`, and the sum adds its
/// rounding `2^−53`: below `2^−49.5` in all, i.e. below `2^−33.5` of a
/// Q16.16 step. [`FIXED_REF_ERR`] (`2^−32` steps) bounds it.
struct FixedReference {
    sin_hi: Vec<f64>,
    cos_hi: Vec<f64>,
    sin_lo: Vec<f64>,
    cos_lo: Vec<f64>,
}

/// A bound on [`FixedReference`]'s error, in Q16.16 steps.
const FIXED_REF_ERR: f64 = 1.0 / (1u64 << 32) as f64;

impl FixedReference {
    fn new() -> Self {
        let hi: Vec<(f64, f64)> = (-32768..32768).map(|h| f64::from(h).sin_cos()).collect();
        let lo: Vec<(f64, f64)> = (0..65536).map(|l| real(l).sin_cos()).collect();
        Self {
            sin_hi: hi.iter().map(|p| p.0).collect(),
            cos_hi: hi.iter().map(|p| p.1).collect(),
            sin_lo: lo.iter().map(|p| p.0).collect(),
            cos_lo: lo.iter().map(|p| p.1).collect(),
        }
    }

    /// `(sin, cos)` of `raw / 2^16`, in Q16.16 steps.
    #[inline]
    fn sin_cos(&self, raw: i32) -> (f64, f64) {
        let h = ((raw >> 16) + 32768) as usize;
        let l = (raw & 0xFFFF) as usize;
        let (sh, ch) = (self.sin_hi[h], self.cos_hi[h]);
        let (sl, cl) = (self.sin_lo[l], self.cos_lo[l]);
        ((sh * cl + ch * sl) * 65536.0, (ch * cl - sh * sl) * 65536.0)
    }
}

/// `2/π` in binary, the first 320 bits after the point, most significant
/// limb first (the digits of the classic 24-bit table of `2/π`, regrouped).
const TWO_OVER_PI: [u64; 5] = [
    0xA2F9_836E_4E44_1529,
    0xFC27_57D1_F534_DDC0,
    0xDB62_9599_3C43_9041,
    0xFE51_63AB_DEBB_C561,
    0xB724_6E3A_424D_D2E0,
];

/// Bits of the smallest binary32 argument [`pinned_reference`] reduces
/// itself: `2^25` (below it the binary64 `sin`/`cos` reduce a binary32
/// argument on their fast path).
const REDUCE_FROM_BITS: u32 = 0x4C00_0000;

/// A bound on [`pinned_reference`]'s error, in binary32 ulp of the result.
const PINNED_REF_ERR: f64 = 1.0 / (1u64 << 26) as f64;

/// `(sin x, cos x)` for a finite binary32 `x >= 0` (`None` for NaN and
/// `+inf`), to within a relative `2^−50` (below `2^−26` binary32 ulp):
///
/// - below `2^25`, the binary64 `sin`/`cos` of `x` itself (within 2 ulp,
///   a relative `2^−51`);
/// - from `2^25`, `x = m·2^e` (`m < 2^24`, `e >= 2`) is reduced exactly:
///   the bits of `2/π` of weight above `2^(2−e)` only add whole turns, so
///   `m` times the next 192 bits is the position in the turn, in quarter
///   turns with 190 bits of fraction (the bits left out err by less than
///   `2^−166` of a quarter turn). The quadrant `q` and the signed rest
///   `f ∈ [−1/2, 1/2)` (128 bits) give `r = f·π/2` with a relative error
///   below `2^−51.4` (the conversion, `π/2` and the product, each
///   rounded once), and `sin x`, `cos x` are `±sin r`, `±cos r` by `q`,
///   where `|r| <= π/4` keeps the binary64 functions on their fast path
///   and the relative error below `2^−50.2`. `|f| > 2^−58` is asserted,
///   so the 128-bit truncation stays below a relative `2^−70`.
fn pinned_reference(x: f32) -> Option<(f64, f64)> {
    let bits = x.to_bits();
    debug_assert!(bits >> 31 == 0, "a non-negative argument");
    if bits >= 0x7F80_0000 {
        return None;
    }
    if bits < REDUCE_FROM_BITS {
        return Some(f64::from(x).sin_cos());
    }
    let m = u64::from((bits & 0x7F_FFFF) | 0x80_0000);
    let s = (bits >> 23) as usize - 152; // e − 2, with e = exponent − 150
    let (q, r) = (s / 64, s % 64);
    let limb = |k: usize| {
        if r == 0 {
            TWO_OVER_PI[q + k]
        } else {
            (TWO_OVER_PI[q + k] << r) | (TWO_OVER_PI[q + k + 1] >> (64 - r))
        }
    };
    let (w0, w1, w2) = (limb(0), limb(1), limb(2));
    // m · (w0:w1:w2), modulo 2^192 (whole turns dropped).
    let p2 = u128::from(m) * u128::from(w2);
    let p1 = u128::from(m) * u128::from(w1) + (p2 >> 64);
    let p0 = u128::from(m) * u128::from(w0) + (p1 >> 64);
    let (n0, n1, n2) = (p0 as u64, p1 as u64, p2 as u64);
    let frac = ((u128::from(n0) << 64 | u128::from(n1)) << 2) | u128::from(n2 >> 62);
    // A fraction at or above one half is the next quadrant, minus the rest.
    let quadrant = (n0 >> 62) + (frac >> 127) as u64;
    let f = frac as i128;
    assert!(
        f.unsigned_abs() > 1 << 70,
        "x = {x:e} lies too near a multiple of π/2"
    );
    let r = f as f64 * (std::f64::consts::FRAC_PI_2 * 2f64.powi(-128));
    let (sr, cr) = r.sin_cos();
    Some(match quadrant & 3 {
        0 => (sr, cr),
        1 => (cr, -sr),
        2 => (-sr, -cr),
        _ => (-cr, sr),
    })
}

/// Expected hash of `Fpx16_16::sin` over every raw input ([`Stats::hash`]
/// with the raw's bits as the input). A change of any one result changes
/// it: update it only with a change of results (a spec change), which
/// breaks every recorded replay.
const ALL_RAWS_SIN_HASH: u64 = 0xcd70_efdc_1979_2467;
/// Expected hash of `Fpx16_16::cos` over every raw input, as
/// [`ALL_RAWS_SIN_HASH`].
const ALL_RAWS_COS_HASH: u64 = 0x3eab_5389_98e2_c640;

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn fixed_sin_cos_every_input_within_one_ulp_correctly_rounded_and_known() {
    let reference = FixedReference::new();
    let stats = run(1 << 32, |i, st| {
        let raw = i as u32 as i32;
        let x = fx(raw);
        let (s, c) = (x.sin(), x.cos());
        if x.sin_cos() != (s, c) {
            st.fail(format!("raw {raw}: sin_cos differs from sin, cos"));
        }
        let (s, c) = (s.to_raw(), c.to_raw());
        st.hash(i, [s, c]);
        let (es, ec) = reference.sin_cos(raw);
        let direct = || real(raw).sin_cos();
        st.fixed_fast(i, s, es, || direct().0 * 65536.0, 1.0);
        st.fixed_fast(i, c, ec, || direct().1 * 65536.0, 1.0);
    });
    stats.report("Fpx16_16 sin+cos");
    assert!(
        stats.correct as f64 >= 0.99 * stats.inputs as f64,
        "correctly rounded below 99%"
    );
    let changed: Vec<String> = [
        ("sin", stats.hashes[0], ALL_RAWS_SIN_HASH),
        ("cos", stats.hashes[1], ALL_RAWS_COS_HASH),
    ]
    .into_iter()
    .filter(|&(_, got, committed)| got != committed)
    .map(|(op, got, committed)| format!("{op}: {got:#018x} (committed {committed:#018x})"))
    .collect();
    assert!(
        changed.is_empty(),
        "all-raws known-answer hash changed: {}",
        changed.join(", ")
    );
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn pinned_sin_cos_every_input_within_one_ulp() {
    // One reference per magnitude serves both signs (sin is odd, cos
    // even, exactly); every one of the 2^32 inputs is checked.
    let stats = run(1 << 31, |i, st| {
        let magnitude = i as u32;
        let reference = pinned_reference(f32::from_bits(magnitude));
        for sign in [0, 1 << 31] {
            let input = magnitude | sign;
            let x = f32::from_bits(input);
            let (s, c) = Fp32Pinned::from_f32(x).sin_cos();
            let (s, c) = (s.to_f32(), c.to_f32());
            if i % 256 == 0 && x.is_finite() {
                let p = Fp32Pinned::from_f32(x);
                if (p.sin().to_bits(), p.cos().to_bits()) != (s.to_bits(), c.to_bits()) {
                    st.fail(format!("{x:e}: sin_cos differs from sin, cos"));
                }
            }
            let Some((es, ec)) = reference else {
                if !s.is_nan() || !c.is_nan() {
                    st.fail(format!("{x}: sin {s}, cos {c}"));
                }
                continue;
            };
            let es = if sign == 0 { es } else { -es };
            st.pinned(u64::from(input), s, es, 1.0);
            st.pinned(u64::from(input), c, ec, 1.0);
        }
    });
    stats.report("Fp32Pinned sin+cos");
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn fixed_tan_atan_asin_acos() {
    // tan: within 1 ulp where |tan| <= 2^12; relative 2^−27 beyond.
    let stats = run(1 << SAMPLE_BITS, |i, st| {
        let raw = spread(i) as i32;
        if fx(raw).sin_cos() != (fx(raw).sin(), fx(raw).cos()) {
            st.fail(format!("raw {raw}: sin_cos differs from sin, cos"));
        }
        let got = fx(raw).tan().to_raw();
        let exact = real(raw).tan() * 65536.0;
        if exact.abs() <= 4096.0 * 65536.0 {
            st.fixed(i, got, exact, 1.0);
        } else if exact.abs() < 2147483647.0 {
            let rel = (f64::from(got) - exact).abs() / exact.abs();
            if rel > 2f64.powi(-27) {
                st.fail(format!("tan raw {raw}: {got} vs {exact}"));
            }
        } else if got != if exact > 0.0 { i32::MAX } else { i32::MIN } {
            st.fail(format!("tan raw {raw}: {got} should saturate ({exact})"));
        }
    });
    stats.report("Fpx16_16 tan (|tan| <= 4096)");
    let stats = run(1 << SAMPLE_BITS, |i, st| {
        let raw = spread(i) as i32;
        st.fixed(i, fx(raw).atan().to_raw(), real(raw).atan() * 65536.0, 1.0);
    });
    stats.report("Fpx16_16 atan");
    let stats = run(2 * 65536 + 1 + 2000, |i, st| {
        // Every raw in [−1, 1], and 1000 beyond each end (clamped).
        let raw = i as i32 - 65536 - 1000;
        let x = real(raw).clamp(-1.0, 1.0);
        st.fixed(i, fx(raw).asin().to_raw(), x.asin() * 65536.0, 1.0);
        st.fixed(i, fx(raw).acos().to_raw(), x.acos() * 65536.0, 1.0);
    });
    stats.report("Fpx16_16 asin+acos");
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn pinned_tan_atan_asin_acos() {
    let stats = run(1 << SAMPLE_BITS, |i, st| {
        let x = f32::from_bits(spread(i));
        let p = Fp32Pinned::from_f32(x);
        let v = f64::from(x);
        let cases = [
            (p.tan(), v.tan()),
            (p.atan(), v.atan()),
            (p.asin(), v.asin()),
            (p.acos(), v.acos()),
        ];
        for (got, exact) in cases {
            let got = got.to_f32();
            if exact.is_nan() || got.is_nan() {
                if exact.is_nan() != got.is_nan() {
                    st.fail(format!("{x:e}: {got} vs {exact}"));
                }
            } else {
                st.pinned(i, got, exact, 1.0);
            }
        }
    });
    stats.report("Fp32Pinned tan+atan+asin+acos");
}

/// xorshift64*: the random pairs of the atan2 test.
fn pair(i: u64) -> (u64, u64) {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    let a = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    let b = (a ^ (a >> 31)).wrapping_mul(0x2545_F491_4F6C_DD1D);
    (a, b)
}

/// A raw of mixed magnitude: random bits shifted right by 0..32.
fn mixed(bits: u64) -> i32 {
    ((bits as u32) as i32) >> ((bits >> 32) % 32)
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn atan2_random_pairs_and_edges_both_backends() {
    const PAIRS: u64 = 16_000_000;
    let stats = run(PAIRS, |i, st| {
        let (a, b) = pair(i);
        let (y, x) = (mixed(a), mixed(b));
        if y == 0 && x == 0 {
            return;
        }
        let exact = f64::from(y).atan2(f64::from(x)) * 65536.0;
        st.fixed(i, fx(y).atan2(fx(x)).to_raw(), exact, 2.0);
    });
    stats.report("Fpx16_16 atan2 (random pairs)");
    let edges = [
        i32::MIN,
        i32::MIN + 1,
        -65536,
        -1,
        0,
        1,
        65536,
        i32::MAX - 1,
        i32::MAX,
    ];
    let mut st = Stats::default();
    for (k, &y) in edges.iter().enumerate() {
        for &x in &edges {
            if y == 0 && x == 0 {
                assert_eq!(fx(0).atan2(fx(0)), Fpx16_16::ZERO);
                continue;
            }
            let exact = f64::from(y).atan2(f64::from(x)) * 65536.0;
            st.fixed(k as u64, fx(y).atan2(fx(x)).to_raw(), exact, 2.0);
        }
    }
    st.report("Fpx16_16 atan2 (edges)");

    let stats = run(PAIRS, |i, st| {
        let (a, b) = pair(i);
        let (y, x) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let got = Fp32Pinned::from_f32(y)
            .atan2(Fp32Pinned::from_f32(x))
            .to_f32();
        let exact = f64::from(y).atan2(f64::from(x));
        if exact.is_nan() || got.is_nan() {
            if exact.is_nan() != got.is_nan() {
                st.fail(format!("atan2({y:e}, {x:e}): {got} vs {exact}"));
            }
        } else {
            st.pinned(i, got, exact, 2.0);
        }
    });
    stats.report("Fp32Pinned atan2 (random pairs)");
    let edges = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        1e-45,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    for &y in &edges {
        for &x in &edges {
            let got = Fp32Pinned::from_f32(y)
                .atan2(Fp32Pinned::from_f32(x))
                .to_f32();
            let exact = f64::from(y).atan2(f64::from(x));
            // IEEE's table, signed zeros included: the binary32 nearest to
            // the binary64 answer (exact at the ±0 and ±π/4 multiples).
            assert!(
                ulp_error(got, exact) <= 1.0 && got.is_sign_negative() == exact.is_sign_negative(),
                "atan2({y:e}, {x:e}) = {got:e}, exact {exact:e}"
            );
        }
    }
}

/// The direct binary64 `sin`/`cos` of a Q16.16 input, in steps, err by at
/// most 2 binary64 ulp of a value at most 1: `2^−52 · 2^16`.
const DIRECT_REF_ERR: f64 = 1.0 / (1u64 << 36) as f64;

#[test]
fn fixed_reference_agrees_with_the_direct_functions() {
    let reference = FixedReference::new();
    let mut raws = vec![
        i32::MIN,
        i32::MIN + 1,
        -65537,
        -65536,
        -1,
        0,
        1,
        65535,
        65536,
        i32::MAX,
    ];
    raws.extend((0..1u64 << 16).map(|i| spread(i << 8) as i32));
    for raw in raws {
        let (fs, fc) = reference.sin_cos(raw);
        let (ds, dc) = real(raw).sin_cos();
        let tol = FIXED_REF_ERR + DIRECT_REF_ERR;
        assert!(
            (fs - ds * 65536.0).abs() <= tol,
            "sin raw {raw}: {fs} vs {}",
            ds * 65536.0
        );
        assert!(
            (fc - dc * 65536.0).abs() <= tol,
            "cos raw {raw}: {fc} vs {}",
            dc * 65536.0
        );
    }
}

#[test]
fn pinned_reduction_agrees_with_the_direct_functions() {
    assert_eq!(
        TWO_OVER_PI[0] as f64 / 2f64.powi(64),
        std::f64::consts::FRAC_2_PI
    );
    // Every binade the reduction serves, at its ends and at scattered
    // mantissas: a wrong bit of the 2/π constant, or a wrong window,
    // shows in the binades that use it.
    let mut checked = 0;
    for exponent in (REDUCE_FROM_BITS >> 23)..=254 {
        for k in 0..64u32 {
            let mantissa = match k {
                0 => 0,
                1 => 0x7F_FFFF,
                _ => (k.wrapping_mul(0x9E37_79B9) >> 9) & 0x7F_FFFF,
            };
            let x = f32::from_bits(exponent << 23 | mantissa);
            let (rs, rc) = pinned_reference(x).expect("finite");
            // The pure-Rust libm (musl's reduction), the same on every
            // target: a platform's binary64 `sin` may reduce these large
            // arguments less exactly (Wine's msvcrt: 84 ulp at 2^25).
            let (ds, dc) = (libm::sin(f64::from(x)), libm::cos(f64::from(x)));
            // Both within a relative 2^−50 of the exact values, which are
            // far from 0 for binary32 arguments: 2^−48 of each other.
            for (a, b) in [(rs, ds), (rc, dc)] {
                assert!(
                    (a - b).abs() <= 2f64.powi(-48) * b.abs().max(2f64.powi(-40)),
                    "x = {x:e}: {a:e} vs {b:e}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 64 * (255 - (REDUCE_FROM_BITS >> 23)));
}
