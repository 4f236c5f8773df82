//! The handoff under contention: a producer and a consumer at randomly
//! varied speeds, every descriptor and payload self-checking (each word is a
//! function of the frame index, so a torn copy is detected), strictly
//! increasing frame indices on the consumer side, and the accounting
//! invariant checked on snapshots taken concurrently by a third thread.
//!
//! The 10-million-frame run is `#[ignore]`d in the debug suite and run
//! optimized by `cargo xtask test` (`cargo test --profile test-opt -p
//! laige-render --test handoff_stress -- --ignored`); a smaller run is part
//! of the normal suite.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use laige_core::Alpha;
use laige_render::FrameDescriptor;
use laige_render::handoff::{HandoffConfig, handoff};

fn descriptor(n: u64) -> FrameDescriptor {
    FrameDescriptor {
        frame_index: n,
        sim_tick: n.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        render_time_ns: (n ^ 0x5555_5555_5555_5555).cast_signed(),
        alpha: Alpha::from_ppb(n.rotate_left(17) % 1_000_000_000),
        interpolate: n & 4 != 0,
    }
}

/// Payload of frame `n`: length 1..=8 and contents derived from `n`.
fn payload_len(n: u64) -> usize {
    usize::try_from(n % 8).unwrap_or(0) + 1
}

/// xorshift64: the speeds' randomness (deterministic per seed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Busy-waits a random while: usually short (0..16 spins), one time in
    /// eight up to `max` spins — so each side is alternately the faster one.
    fn dawdle(&mut self, max: u64) {
        let r = self.next();
        let spins = if r & 7 == 0 {
            (r >> 3) % (max + 1)
        } else {
            (r >> 3) % 16
        };
        for _ in 0..spins {
            std::hint::spin_loop();
        }
    }
}

struct Report {
    consumed: u64,
    dropped: u64,
    samples: u64,
}

fn run(frames: u64) -> Report {
    let (mut tx, mut rx) = handoff::<u64>(HandoffConfig {
        payload_capacity: 8,
    });
    let done = Arc::new(AtomicBool::new(false));
    let samples = Arc::new(AtomicU64::new(0));

    // A third thread sampling the accounting concurrently.
    let sampler = {
        let stats_of = rx_stats_handle(&tx);
        let done = Arc::clone(&done);
        let samples = Arc::clone(&samples);
        std::thread::spawn(move || {
            let mut last_submitted = 0;
            while !done.load(Ordering::Acquire) {
                let s = stats_of();
                assert!(s.is_consistent(), "inconsistent snapshot {s:?}");
                assert!(s.submitted >= last_submitted, "submitted went backwards");
                last_submitted = s.submitted;
                samples.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let consumer = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut rng = Rng(0x1234_5678_9ABC_DEF1);
            let mut last = 0u64;
            let mut consumed = 0u64;
            loop {
                let finished = done.load(Ordering::Acquire);
                if let Some(frame) = rx.try_claim() {
                    let d = *frame.descriptor();
                    let n = d.frame_index;
                    assert_eq!(d, descriptor(n), "torn descriptor");
                    assert!(
                        n > last,
                        "frame indices must strictly increase: {last} then {n}"
                    );
                    let p = frame.payload();
                    assert_eq!(p.len(), payload_len(n), "payload of frame {n}");
                    assert!(p.iter().all(|&x| x == n), "torn payload of frame {n}");
                    rng.dawdle(400); // "render" for a random while
                    last = n;
                    consumed += 1;
                    drop(frame);
                } else if finished {
                    break;
                }
                rng.dawdle(50);
            }
            let s = rx.stats();
            assert!(s.is_consistent());
            assert_eq!(s.rendered, consumed);
            consumed
        })
    };

    let mut rng = Rng(0x0F0F_1E1E_2D2D_3C3C);
    for n in 1..=frames {
        {
            let mut w = tx.writer();
            assert!(w.is_empty(), "a recycled buffer starts empty");
            w.extend(std::iter::repeat_n(n, payload_len(n)));
        }
        let _ = tx.publish(descriptor(n));
        if n % 4096 == 0 {
            let s = tx.stats();
            assert!(s.is_consistent(), "inconsistent producer snapshot {s:?}");
            assert_eq!(s.submitted, n);
        }
        rng.dawdle(300);
    }
    // Let the consumer drain the last pending frame.
    while !tx.is_idle() {
        std::thread::yield_now();
    }
    done.store(true, Ordering::Release);
    let consumed = consumer.join().expect("consumer checks passed");
    sampler.join().expect("sampler checks passed");
    let s = tx.stats();
    assert_eq!(s.submitted, frames);
    assert_eq!(s.rendered, consumed);
    assert_eq!(s.rendered + s.dropped, frames);
    assert_eq!(s.outstanding, 0);
    Report {
        consumed,
        dropped: s.dropped,
        samples: samples.load(Ordering::Relaxed),
    }
}

/// A `Send` closure that snapshots the stats from another thread: the
/// producer half stays on the producer thread, so the sampler gets a second
/// view through a tiny handoff-independent wrapper.
fn rx_stats_handle(
    tx: &laige_render::handoff::Producer<u64>,
) -> impl Fn() -> laige_render::FrameStats + Send + 'static {
    let view = tx.stats_view();
    move || view.stats()
}

#[test]
fn stress_small() {
    let r = run(200_000);
    assert!(r.consumed > 0);
    assert!(r.samples > 0);
}

#[test]
#[ignore = "heavy: run optimized by cargo xtask test"]
fn stress_ten_million_frames() {
    let r = run(10_000_000);
    // Both paths were exercised many times: frames rendered and dropped.
    assert!(r.consumed > 1000, "rendered {}", r.consumed);
    assert!(r.dropped > 1000, "dropped {}", r.dropped);
    assert!(r.samples > 0);
}
