//! `Fp32Pinned::sin`/`cos` are bit for bit `libm::sinf`/`libm::cosf` on
//! every one of the 2^32 binary32 inputs.
//!
//! `Fp32Pinned` computes the common range with `sinf`'s own operations
//! written without its range branches, so its results must be exactly the
//! crate's; this test compares every input's bits (NaN results included:
//! a NaN input gives the same NaN bits). Run on another target, it proves
//! the same there.
//!
//! Heavy (`#[ignore]`d): run optimized with
//! `cargo test --profile test-opt -p laige-core --test math_pinned_trig_libm -- --ignored`.

use std::sync::atomic::{AtomicU64, Ordering};

use laige_core::Fp32Pinned;

/// Inputs per chunk a thread takes.
const CHUNK: u64 = 1 << 20;

/// The number of inputs in `0..n` for which `op` and `reference` give
/// different bits, and the first such input, over one thread per core.
fn mismatches(n: u64, op: fn(Fp32Pinned) -> Fp32Pinned, reference: fn(f32) -> f32) -> (u64, u64) {
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
                        let x = f32::from_bits(i as u32);
                        let got = op(Fp32Pinned::from_f32(x)).to_bits();
                        if got != reference(x).to_bits() {
                            bad.fetch_add(1, Ordering::Relaxed);
                            first.fetch_min(i, Ordering::Relaxed);
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
fn sin_is_libm_sinf_on_every_input() {
    let (bad, first) = mismatches(1 << 32, Fp32Pinned::sin, libm::sinf);
    assert_eq!(bad, 0, "first differing input bits {first:#010x}");
}

#[test]
#[ignore = "heavy: run optimized by `cargo xtask test`"]
fn cos_is_libm_cosf_on_every_input() {
    let (bad, first) = mismatches(1 << 32, Fp32Pinned::cos, libm::cosf);
    assert_eq!(bad, 0, "first differing input bits {first:#010x}");
}
