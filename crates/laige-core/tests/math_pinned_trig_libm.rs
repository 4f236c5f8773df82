//! `Fp32Pinned::sin`/`cos` are bit for bit `libm::sinf`/`libm::cosf` on
//! every binary32 input they compute themselves.
//!
//! `Fp32Pinned` computes `|x| < 2^28·π/2` with `sinf`'s own operations
//! written without its range branches, so its results must be exactly the
//! crate's; this test compares the bits of every input of either sign below
//! that limit and of the 2^16 inputs above it (NaN results included). The
//! inputs further up (`|x|` from about `2^28`, `±inf`, NaN) are passed to
//! `libm::sinf`/`cosf` themselves: comparing those with themselves would
//! cost most of the run (about 40% of all inputs, and libm's slowest path on
//! both sides) and prove nothing. Run on another target, it proves the same
//! there.
//!
//! Heavy (`#[ignore]`d): run optimized with
//! `cargo test --profile test-opt -p laige-core --test math_pinned_trig_libm -- --ignored`.

use std::sync::atomic::{AtomicU64, Ordering};

use laige_core::Fp32Pinned;

/// Inputs per chunk a thread takes.
const CHUNK: u64 = 1 << 20;

/// `|x|` bits from which `Fp32Pinned::sin`/`cos` call libm itself
/// (`2^28·π/2`, the bits of `0x4DC9_0FDB`).
const LIBM_FROM: u64 = 0x4DC9_0FDB;

/// The inputs compared, as indices into the positive bits below the
/// limit plus a band above it, then the same with the sign bit set.
const PER_SIGN: u64 = LIBM_FROM + (1 << 16);

fn input(i: u64) -> f32 {
    let sign = if i >= PER_SIGN { 0x8000_0000 } else { 0 };
    f32::from_bits(sign | (i % PER_SIGN) as u32)
}

/// The number of compared inputs for which `op` and `reference` give
/// different bits, and the first such input's bits, over one thread per
/// core.
fn mismatches(op: fn(Fp32Pinned) -> Fp32Pinned, reference: fn(f32) -> f32) -> (u64, u64) {
    let n = 2 * PER_SIGN;
    let threads = std::thread::available_parallelism().map_or(2, |p| p.get());
    let next = AtomicU64::new(0);
    let bad = AtomicU64::new(0);
    let first = AtomicU64::new(u64::MAX);
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (next, bad, first) = (&next, &bad, &first);
            s.spawn(move || {
                loop {
                    // Relaxed: the counters only hand out disjoint chunks and
                    // sum results; the scope's join publishes them.
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= n {
                        break;
                    }
                    for i in start..(start + CHUNK).min(n) {
                        let x = input(i);
                        let got = op(Fp32Pinned::from_f32(x)).to_bits();
                        if got != reference(x).to_bits() {
                            bad.fetch_add(1, Ordering::Relaxed);
                            first.fetch_min(u64::from(x.to_bits()), Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    (bad.into_inner(), first.into_inner())
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn sin_is_libm_sinf_on_every_input_it_computes() {
    let (bad, first) = mismatches(Fp32Pinned::sin, libm::sinf);
    assert_eq!(bad, 0, "first differing input bits {first:#010x}");
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn cos_is_libm_cosf_on_every_input_it_computes() {
    let (bad, first) = mismatches(Fp32Pinned::cos, libm::cosf);
    assert_eq!(bad, 0, "first differing input bits {first:#010x}");
}
