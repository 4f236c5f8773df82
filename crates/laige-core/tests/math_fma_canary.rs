//! FMA canaries on the public op surface: a dot product and a lerp whose
//! results differ if the multiply and the add were ever fused into one
//! rounding. They assert the unfused result bit for bit, and that the
//! inputs really do tell the two apart (so the canary cannot go blind).
//!
//! The inputs: `x = 1 + 2^-12`, so `x·x = 1 + 2^-11 + 2^-24` exactly. The
//! `2^-24` is half an ulp of 1, a tie, which the unfused product rounds to
//! even (`1 + 2^-11`) while a fused multiply-add keeps it.
//!
//! The fused results are computed in binary64, which holds each `x·x + c`
//! here exactly, then rounded once to binary32 — not with `f32::mul_add`,
//! which is a C library's `fmaf` on some targets and rounds twice there
//! (MinGW-w64's, linked by `x86_64-pc-windows-gnu`).

use std::hint::black_box;

use laige_core::{Fp32Pinned, SimScalar, Vec2, Vec3};

const X: f32 = 1.0 + 1.0 / 4096.0;
/// The unfused result of both canaries: 2^-11.
const UNFUSED: f32 = 1.0 / 2048.0;
/// What a fused evaluation would give: 2^-11 + 2^-24.
const FUSED: f32 = 1.0 / 2048.0 + 1.0 / 16_777_216.0;

fn p(v: f32) -> Fp32Pinned {
    Fp32Pinned::from_f32(black_box(v))
}

/// `x·y + c` rounded once to binary32, for inputs whose exact result
/// binary64 holds (the products and sums of these canaries).
fn fused(x: f32, y: f32, c: f32) -> f32 {
    (f64::from(black_box(x)) * f64::from(black_box(y)) + f64::from(c)) as f32
}

#[test]
fn the_inputs_distinguish_fused_from_unfused() {
    assert_eq!(fused(X, X, -1.0), FUSED);
    assert_ne!(UNFUSED, FUSED);
}

#[test]
fn vec2_dot_is_not_fused() {
    // (x, 1)·(x, −1) = x·x + 1·(−1).
    let d = Vec2::new(p(X), p(1.0)).dot(Vec2::new(p(X), p(-1.0)));
    assert_eq!(d.to_bits(), UNFUSED.to_bits());
}

#[test]
fn vec3_dot_is_not_fused() {
    let d = Vec3::new(p(X), p(1.0), p(0.0)).dot(Vec3::new(p(X), p(-1.0), p(5.0)));
    assert_eq!(d.to_bits(), UNFUSED.to_bits());
}

#[test]
fn scalar_lerp_is_not_fused() {
    // a = −1, b = 2^-12, t = x: b − a = x exactly; (b − a)·t = x·x rounds
    // to 1 + 2^-11; + a gives 2^-11. Fused: 2^-11 + 2^-24.
    let l = p(-1.0).lerp(p(1.0 / 4096.0), p(X));
    assert_eq!(l.to_bits(), UNFUSED.to_bits());
    let g = <Fp32Pinned as SimScalar>::lerp(p(-1.0), p(1.0 / 4096.0), p(X));
    assert_eq!(g.to_bits(), UNFUSED.to_bits());
}

#[test]
fn vec2_lerp_is_not_fused() {
    let a = Vec2::new(p(-1.0), p(-1.0));
    let b = Vec2::new(p(1.0 / 4096.0), p(1.0 / 4096.0));
    let l = a.lerp(b, p(X));
    assert_eq!([l.x.to_bits(), l.y.to_bits()], [UNFUSED.to_bits(); 2]);
}

#[test]
fn sum_of_squares_rounds_each_square_before_the_add() {
    // The sum inside `length` and `dot(v, v)`: x·x + y·y with y = 2^-12.
    // Unfused: fl(x·x) = 1 + 2^-11, + 2^-24 is a tie → 1 + 2^-11 (even).
    // Fused: 1 + 2^-11 + 2^-24 + 2^-24 = 1 + 2^-11 + 2^-23, representable.
    let y = 1.0 / 4096.0;
    let v = Vec2::new(p(X), p(y));
    assert_eq!(v.dot(v).to_bits(), (1.0f32 + 1.0 / 2048.0).to_bits());
    assert_eq!(fused(X, X, y * y), 1.0 + 1.0 / 2048.0 + 1.0 / 8_388_608.0);
    // length is sqrt of exactly that unfused sum.
    assert_eq!(
        v.length().to_bits(),
        (1.0f32 + 1.0 / 2048.0).sqrt().to_bits()
    );
}
