//! Bench area `math`: scalar op throughput of `Fpx16_16` beside the `fixed`
//! crate's `I16F16` and plain `f32`, and a 1M-element `Vec2` integration
//! kernel on both backends beside plain `f32`.
//!
//! - `math.<op>.{fx,i16f16,f32}_ns`: median ns per op over arrays, for
//!   `add mul div sqrt lerp length normalize`. Each sample maps a 2048-element
//!   input array (L1-resident) to an output array, repeated 16 times with the
//!   inputs and outputs passed through `black_box` every pass, so nothing is
//!   hoisted or elided and the compiler may vectorize all three alike. The
//!   three contenders are measured interleaved, sample by sample.
//!   `I16F16` floors its mul, truncates its div, floors its sqrt and does not
//!   saturate (it panics on division by zero and on the sqrt of a negative
//!   value, and wraps on overflow in release), so every input is valid for
//!   it: operands are chosen so no result overflows. Ours round to nearest
//!   (ties to even) and saturate; the same values take the same paths.
//! - `math.<op>.fx_vs_i16f16`, `math.<op>.fx_vs_f32`: ratios of the medians.
//! - `math.kernel_1m.{fx,fp,f32}_ns`: median ns per element of the same
//!   user code on each side, `*p = (*p + v * dt).clamp(lo, hi)` over 1M
//!   elements of `Vec<Vec2<Fpx16_16>>`, `Vec<Vec2<Fp32Pinned>>` and a plain
//!   `f32` `V2` with the ops a user's own type would have (`+`, `* f32`,
//!   component-wise `f32::clamp`); `dt`, `lo`, `hi` go through `black_box`
//!   on every side. 16 MB of state per side: the `f32` pass is
//!   memory-bound, as a real sim pass is; the `Fpx16_16` one is bound by
//!   its vector ALU work (see the `laige_core::math` module docs, Performance).
//!   `math.kernel_1m.{fx,fp}_vs_f32`: the ratios, each the median over
//!   150 interleaved rounds of that round's ratio (a round's two passes
//!   see the same load; a ratio of the two medians does not cancel the
//!   drift between rounds of the memory-bound `f32` side);
//!   `math.kernel_1m.fx_vs_f32.ratio_of_medians` beside it, the ratio of
//!   the medians this figure was before, for comparison.
//! - `math.workload_10k.{fp,f32}_ms`: median ms per tick of the reference
//!   workload's per-entity math (`laige_sim::workload::integrate` then
//!   `attract_all`, two passes over a `Vec` of 10k bodies) on `Fp32Pinned`,
//!   beside the same math written in plain `f32` (the same operations in
//!   the same order: the end states are checked bit-identical after the
//!   run). `math.workload_10k.fp_vs_f32`: the ratio, the price of the
//!   pinned type over a user's own `f32` code.
//! - `math.workload_parts_10k.{fx,fp}_{integrate,attract}_ms`: the same
//!   workload's two passes measured apart on both backends (a `Vec` of 10k
//!   bodies each), and `{integrate,attract}_fx_vs_fp`: where the
//!   `Fpx16_16` workload's time goes; `fx_attract_without_normalize_ms`
//!   is the attract pass with `center − pos` in place of its direction
//!   (not the workload: the share that is not `normalize_wide`),
//!   `fx_attract_proposal_only_ms` the pass with `normalize_wide`'s binary64
//!   proposal alone (no exact decision): the floor of the one-entity-at-a-time
//!   method, and `fx_attract_per_entity_ms` the pass through
//!   `workload::attract` per entity, which the batched
//!   `workload::attract_all` (the `attract` figures) replaced.

use std::hint::black_box;

use fixed::types::I16F16;
use laige_core::{Fp32Pinned, Fpx16_16, Vec2};

use crate::harness::{Bench, Stats, paired_ratio};
use crate::math_workload;

/// Elements per input array (3 arrays of 8 KB: L1-resident).
const N: usize = 2048;
/// Passes over the array per sample (16 × 2048 ops ≈ 10-100 µs per sample).
const REPS: usize = 16;
/// Elements of the integration kernel.
const KERNEL_N: usize = 1 << 20;

/// splitmix64, for reproducible inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A raw Q16.16 value uniform in `[lo, hi)` (in units).
    fn raw_in(&mut self, lo: i32, hi: i32) -> i32 {
        let span = (i64::from(hi) - i64::from(lo)) << 16;
        let off = (self.next() % span as u64) as i64;
        ((i64::from(lo) << 16) + off) as i32
    }
}

/// One input set, as raw Q16.16 values (the other formats are derived
/// from the same values: `I16F16::from_bits(raw)`, `raw / 65536.0`).
struct Inputs {
    a: Vec<i32>,
    b: Vec<i32>,
    c: Vec<i32>,
}

impl Inputs {
    fn new(seed: u64, mut gen3: impl FnMut(&mut Rng) -> (i32, i32, i32)) -> Self {
        let mut rng = Rng(seed);
        let (mut a, mut b, mut c) = (
            Vec::with_capacity(N),
            Vec::with_capacity(N),
            Vec::with_capacity(N),
        );
        for _ in 0..N {
            let (x, y, z) = gen3(&mut rng);
            a.push(x);
            b.push(y);
            c.push(z);
        }
        Self { a, b, c }
    }

    fn fx(v: &[i32]) -> Vec<Fpx16_16> {
        v.iter().map(|&r| Fpx16_16::from_raw(r)).collect()
    }

    fn f32(v: &[i32]) -> Vec<f32> {
        v.iter().map(|&r| r as f32 / 65536.0).collect()
    }
}

/// Maps `(a[i], b[i], c[i])` to `out[i]` for every element, `REPS` times,
/// behind `black_box` on both sides of every pass.
#[inline(always)]
fn map3<T: Copy, O>(a: &[T], b: &[T], c: &[T], out: &mut [O], f: impl Fn(T, T, T) -> O) {
    for _ in 0..REPS {
        let (a, b, c) = (black_box(a), black_box(b), black_box(c));
        for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
            *o = f(x, y, z);
        }
        black_box(&mut *out);
    }
}

/// The second contender of an op: the `fixed` crate's `I16F16` where it
/// has the op, else `Fp32Pinned` (the other backend).
struct Second<T, F> {
    /// Name suffix: `i16f16` or `fp`.
    label: &'static str,
    /// Its value of a raw Q16.16 input.
    from_raw: fn(i32) -> T,
    /// The op.
    op: F,
}

/// The `I16F16` contender.
fn i16f16<F: Fn(I16F16, I16F16, I16F16) -> I16F16>(op: F) -> Second<I16F16, F> {
    Second {
        label: "i16f16",
        from_raw: I16F16::from_bits,
        op,
    }
}

/// The `Fp32Pinned` contender.
fn pinned<F: Fn(Fp32Pinned, Fp32Pinned, Fp32Pinned) -> Fp32Pinned>(op: F) -> Second<Fp32Pinned, F> {
    Second {
        label: "fp",
        from_raw: |r| Fp32Pinned::from_f32(r as f32 / 65536.0),
        op,
    }
}

/// Measures one op on the three formats, interleaved; records the medians
/// and the ratios (and `fp_vs_f32` when the second is `Fp32Pinned`).
fn op3<T: Copy + Default, F: Fn(T, T, T) -> T>(
    bench: &mut Bench,
    name: &str,
    inputs: &Inputs,
    fx: impl Fn(Fpx16_16, Fpx16_16, Fpx16_16) -> Fpx16_16,
    second: Second<T, F>,
    fl: impl Fn(f32, f32, f32) -> f32,
) {
    let (fa, fb, fc) = (
        Inputs::fx(&inputs.a),
        Inputs::fx(&inputs.b),
        Inputs::fx(&inputs.c),
    );
    let conv = |v: &[i32]| -> Vec<T> { v.iter().map(|&r| (second.from_raw)(r)).collect() };
    let (ia, ib, ic) = (conv(&inputs.a), conv(&inputs.b), conv(&inputs.c));
    let ifx = &second.op;
    let (la, lb, lc) = (
        Inputs::f32(&inputs.a),
        Inputs::f32(&inputs.b),
        Inputs::f32(&inputs.c),
    );
    let mut fo = vec![Fpx16_16::ZERO; N];
    let mut io = vec![T::default(); N];
    let mut lo = vec![0.0f32; N];
    let mut run_fx = || map3(&fa, &fb, &fc, &mut fo, &fx);
    let mut run_i = || map3(&ia, &ib, &ic, &mut io, ifx);
    let mut run_f = || map3(&la, &lb, &lc, &mut lo, &fl);
    let samples = bench.scaled(300).max(20);
    let stats = bench.interleaved(
        samples,
        (N * REPS) as u64,
        &mut [&mut run_fx, &mut run_i, &mut run_f],
    );
    let (f, i, l) = (stats[0].median, stats[1].median, stats[2].median);
    let label = second.label;
    bench.record(&format!("math.{name}.fx_ns"), f, "ns");
    bench.record(&format!("math.{name}.{label}_ns"), i, "ns");
    bench.record(&format!("math.{name}.f32_ns"), l, "ns");
    bench.ratio(&format!("math.{name}.fx_vs_{label}"), f, i);
    bench.ratio(&format!("math.{name}.fx_vs_f32"), f, l);
    if label == "fp" {
        bench.ratio(&format!("math.{name}.fp_vs_f32"), i, l);
    }
}

/// `I16F16` length of `(x, y)`; inputs keep `x² + y²` in range.
#[inline(always)]
fn i16f16_length(x: I16F16, y: I16F16) -> I16F16 {
    (x * x + y * y).sqrt()
}

/// Runs the area.
pub fn run(b: &mut Bench) {
    let ops = [
        "add",
        "mul",
        "div",
        "sqrt",
        "lerp",
        "length",
        "normalize",
        "length_wide",
        "normalize_wide",
        "sin",
        "cos",
        "sin_cos",
        "tan",
        "atan2",
        "atan",
        "asin",
        "acos",
        "floor",
        "ceil",
        "round",
        "trunc",
        "fract",
        "rem_euclid",
        "signum",
    ];
    for op in ops {
        let name = format!("math.{op}");
        if !b.wants(&name) {
            continue;
        }
        match op {
            "add" => {
                let inp = Inputs::new(1, |r| (r.raw_in(-16000, 16000), r.raw_in(-16000, 16000), 0));
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| x + y,
                    i16f16(|x, y, _| x + y),
                    |x, y, _| x + y,
                );
            }
            "mul" => {
                let inp = Inputs::new(2, |r| (r.raw_in(-128, 128), r.raw_in(-128, 128), 0));
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| x * y,
                    i16f16(|x, y, _| x * y),
                    |x, y, _| x * y,
                );
            }
            "div" => {
                // |a| < 128, 1/16 <= |b| < 128: the quotient is in range.
                let inp = Inputs::new(3, |r| {
                    let d = r.raw_in(0, 128).max(1 << 12);
                    let d = if r.next() & 1 == 0 { d } else { -d };
                    (r.raw_in(-128, 128), d, 0)
                });
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| x / y,
                    i16f16(|x, y, _| x / y),
                    |x, y, _| x / y,
                );
            }
            "sqrt" => {
                let inp = Inputs::new(4, |r| (r.raw_in(0, 32767), 0, 0));
                op3(
                    b,
                    op,
                    &inp,
                    |x, _, _| x.sqrt(),
                    i16f16(|x, _, _| x.sqrt()),
                    |x, _, _| x.sqrt(),
                );
            }
            "lerp" => {
                let inp = Inputs::new(5, |r| {
                    (r.raw_in(-1000, 1000), r.raw_in(-1000, 1000), r.raw_in(0, 1))
                });
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, t| x.lerp(y, t),
                    i16f16(|x, y, t| t.lerp(x, y)),
                    |x, y, t| x + (y - x) * t,
                );
            }
            "length" => {
                // |x|, |y| < 100: x² + y² < 20000, in range for I16F16.
                let inp = Inputs::new(6, |r| (r.raw_in(-100, 100), r.raw_in(-100, 100), 0));
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| Vec2::new(x, y).length(),
                    i16f16(|x, y, _| i16f16_length(x, y)),
                    |x, y, _| (x * x + y * y).sqrt(),
                );
            }
            "normalize" => {
                // The x component of normalize((x, y)); |v| >= 1.
                let inp = Inputs::new(7, |r| {
                    let x = r.raw_in(-100, 100);
                    let y = r.raw_in(-100, 100);
                    let x = if x.unsigned_abs() < 1 << 16 {
                        1 << 16
                    } else {
                        x
                    };
                    (x, y, 0)
                });
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| Vec2::new(x, y).normalize().x,
                    i16f16(|x, y, _| x / i16f16_length(x, y)),
                    |x, y, _| {
                        let len = (x * x + y * y).sqrt();
                        if len == 0.0 { 0.0 } else { x / len }
                    },
                );
            }
            "length_wide" => {
                let inp = Inputs::new(6, |r| (r.raw_in(-100, 100), r.raw_in(-100, 100), 0));
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| Vec2::new(x, y).length_wide(),
                    i16f16(|x, y, _| i16f16_length(x, y)),
                    |x, y, _| (x * x + y * y).sqrt(),
                );
            }
            "normalize_wide" => {
                let inp = Inputs::new(7, |r| (r.raw_in(-100, 100), r.raw_in(-100, 100), 1 << 16));
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| Vec2::new(x, y).normalize_wide().x,
                    i16f16(|x, y, one| x / i16f16_length(x, y).max(one)),
                    |x, y, _| {
                        let len = (x * x + y * y).sqrt();
                        if len == 0.0 { 0.0 } else { x / len }
                    },
                );
            }
            "sin" | "cos" | "sin_cos" | "tan" | "atan" => {
                // Angles of a game: a few turns either way.
                let inp = Inputs::new(9, |r| (r.raw_in(-8, 8), 0, 0));
                match op {
                    "sin" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.sin(),
                        pinned(|x, _, _| x.sin()),
                        |x, _, _| x.sin(),
                    ),
                    "cos" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.cos(),
                        pinned(|x, _, _| x.cos()),
                        |x, _, _| x.cos(),
                    ),
                    "sin_cos" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| {
                            let (s, c) = x.sin_cos();
                            s + c
                        },
                        pinned(|x, _, _| {
                            let (s, c) = x.sin_cos();
                            s + c
                        }),
                        |x, _, _| {
                            let (s, c) = x.sin_cos();
                            s + c
                        },
                    ),
                    "tan" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.tan(),
                        pinned(|x, _, _| x.tan()),
                        |x, _, _| x.tan(),
                    ),
                    _ => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.atan(),
                        pinned(|x, _, _| x.atan()),
                        |x, _, _| x.atan(),
                    ),
                }
            }
            "atan2" => {
                let inp = Inputs::new(10, |r| (r.raw_in(-100, 100), r.raw_in(-100, 100), 0));
                op3(
                    b,
                    op,
                    &inp,
                    |y, x, _| y.atan2(x),
                    pinned(|y, x, _| y.atan2(x)),
                    |y, x, _| y.atan2(x),
                );
            }
            "asin" | "acos" => {
                let inp = Inputs::new(11, |r| (r.raw_in(-1, 1), 0, 0));
                if op == "asin" {
                    op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.asin(),
                        pinned(|x, _, _| x.asin()),
                        |x, _, _| x.asin(),
                    );
                } else {
                    op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.acos(),
                        pinned(|x, _, _| x.acos()),
                        |x, _, _| x.acos(),
                    );
                }
            }
            "floor" | "ceil" | "round" | "trunc" | "signum" => {
                let inp = Inputs::new(12, |r| (r.raw_in(-1000, 1000), 0, 0));
                match op {
                    "floor" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.floor(),
                        i16f16(|x, _, _| x.floor()),
                        |x, _, _| x.floor(),
                    ),
                    "ceil" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.ceil(),
                        i16f16(|x, _, _| x.ceil()),
                        |x, _, _| x.ceil(),
                    ),
                    "round" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.round(),
                        i16f16(|x, _, _| x.round_ties_even()),
                        |x, _, _| x.round_ties_even(),
                    ),
                    "trunc" => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.trunc(),
                        i16f16(|x, _, _| x.int()),
                        |x, _, _| x.trunc(),
                    ),
                    _ => op3(
                        b,
                        op,
                        &inp,
                        |x, _, _| x.signum(),
                        i16f16(|x, _, _| x.signum()),
                        |x, _, _| x.signum(),
                    ),
                }
            }
            "fract" => {
                let inp = Inputs::new(13, |r| (r.raw_in(-1000, 1000), 0, 0));
                op3(
                    b,
                    op,
                    &inp,
                    |x, _, _| x.fract(),
                    pinned(|x, _, _| x.fract()),
                    |x, _, _| x.fract(),
                );
            }
            "rem_euclid" => {
                let inp = Inputs::new(14, |r| (r.raw_in(-1000, 1000), r.raw_in(1, 100), 0));
                op3(
                    b,
                    op,
                    &inp,
                    |x, y, _| x.rem_euclid(y),
                    pinned(|x, y, _| x.rem_euclid(y)),
                    |x, y, _| x.rem_euclid(y),
                );
            }
            _ => {}
        }
    }
    if b.wants("math.kernel_1m") {
        kernel(b);
    }
    if b.wants("math.workload_10k") {
        math_workload::pinned_workload_vs_f32(b);
    }
    if b.wants("math.workload_parts_10k") {
        math_workload::workload_parts(b);
    }
}

/// Plain-`f32` 2D vector for the baseline kernel, with the ops a user's
/// own `f32` vector type would have, so its kernel is the same expression
/// as the `Vec2` ones.
#[derive(Clone, Copy)]
pub(crate) struct V2 {
    pub(crate) x: f32,
    pub(crate) y: f32,
}

impl V2 {
    /// Both components `v`.
    fn splat(v: f32) -> Self {
        Self { x: v, y: v }
    }

    /// Component-wise `f32::clamp`.
    #[inline]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        Self {
            x: self.x.clamp(lo.x, hi.x),
            y: self.y.clamp(lo.y, hi.y),
        }
    }
}

impl std::ops::Add for V2 {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self {
            x: self.x + rhs.x,
            y: self.y + rhs.y,
        }
    }
}

impl std::ops::Mul<f32> for V2 {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: f32) -> Self {
        Self {
            x: self.x * rhs,
            y: self.y * rhs,
        }
    }
}

/// `pos += vel * dt; pos = clamp(pos, lo, hi)` over 1M elements, for
/// `Fpx16_16`, `Fp32Pinned` and plain `f32`, interleaved.
fn kernel(b: &mut Bench) {
    let n = if b.quick() { KERNEL_N / 8 } else { KERNEL_N };
    let mut rng = Rng(8);
    let raws: Vec<(i32, i32, i32, i32)> = (0..n)
        .map(|_| {
            (
                rng.raw_in(-1000, 1000),
                rng.raw_in(-1000, 1000),
                rng.raw_in(-10, 10),
                rng.raw_in(-10, 10),
            )
        })
        .collect();
    let fx = Fpx16_16::from_raw;
    let fl = |r: i32| r as f32 / 65536.0;
    let mut fx_pos: Vec<Vec2<Fpx16_16>> =
        raws.iter().map(|r| Vec2::new(fx(r.0), fx(r.1))).collect();
    let fx_vel: Vec<Vec2<Fpx16_16>> = raws.iter().map(|r| Vec2::new(fx(r.2), fx(r.3))).collect();
    let fp = |r: i32| Fp32Pinned::from_f32(fl(r));
    let mut fp_pos: Vec<Vec2<Fp32Pinned>> =
        raws.iter().map(|r| Vec2::new(fp(r.0), fp(r.1))).collect();
    let fp_vel: Vec<Vec2<Fp32Pinned>> = raws.iter().map(|r| Vec2::new(fp(r.2), fp(r.3))).collect();
    let mut f_pos: Vec<V2> = raws
        .iter()
        .map(|r| V2 {
            x: fl(r.0),
            y: fl(r.1),
        })
        .collect();
    let f_vel: Vec<V2> = raws
        .iter()
        .map(|r| V2 {
            x: fl(r.2),
            y: fl(r.3),
        })
        .collect();
    drop(raws);

    let fx_dt = Fpx16_16::from_ratio(1, 60);
    let fx_lo = Vec2::splat(Fpx16_16::from_i32(-1000));
    let fx_hi = Vec2::splat(Fpx16_16::from_i32(1000));
    let fp_dt = Fp32Pinned::from_ratio(1, 60);
    let fp_lo = Vec2::splat(Fp32Pinned::from_i32(-1000));
    let fp_hi = Vec2::splat(Fp32Pinned::from_i32(1000));
    let f_dt = 1.0f32 / 60.0;
    let f_lo = V2::splat(-1000.0);
    let f_hi = V2::splat(1000.0);

    let mut run_fx = || {
        let (dt, lo, hi) = black_box((fx_dt, fx_lo, fx_hi));
        for (p, &v) in fx_pos.iter_mut().zip(black_box(&fx_vel)) {
            *p = (*p + v * dt).clamp(lo, hi);
        }
        black_box(&mut fx_pos);
    };
    let mut run_fp = || {
        let (dt, lo, hi) = black_box((fp_dt, fp_lo, fp_hi));
        for (p, &v) in fp_pos.iter_mut().zip(black_box(&fp_vel)) {
            *p = (*p + v * dt).clamp(lo, hi);
        }
        black_box(&mut fp_pos);
    };
    let mut run_f = || {
        let (dt, lo, hi) = black_box((f_dt, f_lo, f_hi));
        for (p, &v) in f_pos.iter_mut().zip(black_box(&f_vel)) {
            *p = (*p + v * dt).clamp(lo, hi);
        }
        black_box(&mut f_pos);
    };
    let samples = b.scaled(150).max(10);
    let rounds = b.interleaved_rounds(
        samples,
        n as u64,
        &mut [&mut run_fx, &mut run_fp, &mut run_f],
    );
    let median = |r: &[f64]| Stats::of(&mut r.to_vec()).median;
    let (x, p, f) = (median(&rounds[0]), median(&rounds[1]), median(&rounds[2]));
    b.record("math.kernel_1m.fx_ns", x, "ns");
    b.record("math.kernel_1m.fp_ns", p, "ns");
    b.record("math.kernel_1m.f32_ns", f, "ns");
    b.record(
        "math.kernel_1m.fx_vs_f32",
        paired_ratio(&rounds[0], &rounds[2]),
        "x",
    );
    b.record(
        "math.kernel_1m.fp_vs_f32",
        paired_ratio(&rounds[1], &rounds[2]),
        "x",
    );
    b.ratio("math.kernel_1m.fx_vs_f32.ratio_of_medians", x, f);
}
