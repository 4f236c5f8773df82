//! Exhaustive and differential checks of the trigonometry of both backends
//! against an independent reference: the platform's binary64 `sin`, `cos`,
//! `tan`, `atan2`, `asin`, `acos` (glibc's, correctly rounded or within
//! one binary64 ulp — about `2^−36` of a Q16.16 step and `2^−29` of a
//! binary32 ulp), which shares no code with either backend.
//!
//! - `Fpx16_16` `sin`/`cos`: all 2^32 inputs within 1 ulp (2^−16) of the
//!   exact value, and correctly rounded on at least 99% of them. An input
//!   whose reference lies within `2^−30` of a rounding boundary cannot be
//!   decided by the reference; it counts as *not* correctly rounded, so
//!   the percentage is a proven lower bound.
//! - `Fp32Pinned` `sin`/`cos`: all 2^32 binary32 inputs within 1 ulp
//!   (NaN → NaN, `±inf` → NaN).
//! - `tan`, `atan`, `asin`, `acos`: every input of the Q16.16 `asin`/`acos`
//!   domain, and 2^24 inputs spread over all the others; `atan2`: 16M
//!   random pairs of mixed magnitudes plus an edge table, on both backends.
//!
//! Each loop runs on two threads. The measured maxima are printed (run
//! with `--nocapture`) and are the bounds stated in the ops' docs.
//!
//! Heavy (`#[ignore]`d): run optimized with
//! `cargo test --profile test-opt -p laige-core --test math_trig_exhaustive -- --ignored`.

#![allow(
    clippy::print_stdout,
    reason = "the measured error bounds are the test's report (`--nocapture`)"
)]

use std::sync::Mutex;

use laige_core::{Fp32Pinned, Fpx16_16};

/// A reference closer than this (in Q16.16 steps) to a rounding boundary
/// does not decide the correctly rounded result.
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
        let frac = exact - exact.floor();
        if (frac - 0.5).abs() <= UNDECIDED {
            self.undecided += 1;
        } else if f64::from(got) == exact.round() {
            self.correct += 1;
        }
    }

    /// Records a binary32 result against the exact value; fails above
    /// `bound` ulp of the exact value.
    fn pinned(&mut self, input: u64, got: f32, exact: f64, bound: f64) {
        self.inputs += 1;
        let err = ulp_error(got, exact);
        if err > self.max_err {
            self.max_err = err;
            self.worst = input;
        }
        if err > bound {
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

/// `|got − exact|` in units of the binary32 ulp at `exact` (the spacing of
/// binary32 values around it; subnormal spacing below `MIN_POSITIVE`).
fn ulp_error(got: f32, exact: f64) -> f64 {
    let a = exact.abs();
    let ulp = if a < f64::from(f32::MIN_POSITIVE) {
        2f64.powi(-149)
    } else {
        2f64.powi(a.log2().floor() as i32 - 23)
    };
    (f64::from(got) - exact).abs() / ulp
}

/// Runs `check` on `n` inputs `index → input` split across two threads.
fn run(n: u64, check: impl Fn(u64, &mut Stats) + Sync) -> Stats {
    let total = Mutex::new(Stats::default());
    std::thread::scope(|s| {
        for half in 0..2u64 {
            let (check, total) = (&check, &total);
            s.spawn(move || {
                let mut local = Stats::default();
                for i in (half * n / 2)..((half + 1) * n / 2) {
                    check(i, &mut local);
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

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn fixed_sin_cos_every_input_within_one_ulp_and_correctly_rounded() {
    let stats = run(1 << 32, |i, st| {
        let raw = i as u32 as i32;
        let (s, c) = fx(raw).sin_cos();
        let (es, ec) = real(raw).sin_cos();
        st.fixed(i, s.to_raw(), es * 65536.0, 1.0);
        st.fixed(i, c.to_raw(), ec * 65536.0, 1.0);
    });
    stats.report("Fpx16_16 sin+cos");
    assert!(
        stats.correct as f64 >= 0.99 * stats.inputs as f64,
        "correctly rounded below 99%"
    );
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn pinned_sin_cos_every_input_within_one_ulp() {
    let stats = run(1 << 32, |i, st| {
        let x = f32::from_bits(i as u32);
        let (s, c) = Fp32Pinned::from_f32(x).sin_cos();
        let (s, c) = (s.to_f32(), c.to_f32());
        if i % 256 == 0 && x.is_finite() {
            let p = Fp32Pinned::from_f32(x);
            if (p.sin().to_bits(), p.cos().to_bits()) != (s.to_bits(), c.to_bits()) {
                st.fail(format!("{x:e}: sin_cos differs from sin, cos"));
            }
        }
        if !x.is_finite() {
            if !s.is_nan() || !c.is_nan() {
                st.fail(format!("{x}: sin {s}, cos {c}"));
            }
            return;
        }
        let (es, ec) = f64::from(x).sin_cos();
        st.pinned(i, s, es, 1.0);
        st.pinned(i, c, ec, 1.0);
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
