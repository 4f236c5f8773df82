//! Loom models of the frame handoff (run: `RUSTFLAGS="--cfg loom"
//! CARGO_TARGET_DIR=target/loom cargo test -p laige-render --test
//! handoff_loom --release`).
//!
//! Every model checks, in every interleaving loom explores:
//! - no torn descriptor: each descriptor's words are derived from its frame
//!   index, so a copy mixing two publications fails the check;
//! - no data race on the payload buffers: loom tracks every `&`/`&mut`
//!   access to them (the producer's writer and publish-time recycling, the
//!   consumer's `Frame::payload`) and panics on an unsynchronized pair;
//! - the accounting invariant on snapshots taken by both threads at every
//!   step (`FrameStats::is_consistent`), and exact final counts.
#![cfg(loom)]
#![allow(
    unsafe_code,
    reason = "the wait_idle model writes and reads a loom-tracked cell"
)]

use laige_core::Alpha;
use laige_render::FrameDescriptor;
use laige_render::handoff::{Consumer, HandoffConfig, Producer, handoff};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::thread;

fn desc(n: u64) -> FrameDescriptor {
    FrameDescriptor {
        frame_index: n,
        sim_tick: n * 10,
        render_time_ns: -(n.cast_signed()),
        alpha: Alpha::from_ppb(!n % 1_000_000_000),
        interpolate: n % 2 == 0,
    }
}

/// A model builder with a preemption bound: loom explores every
/// interleaving with at most `bound` preemptions (unforced context
/// switches). The payload race needs three (consumer claims and reads frame
/// 1 → producer publishes 2 → consumer claims 2, handing frame 1's buffer
/// back → producer recycles it), so the buffer-ownership models use 3; this
/// was checked by mutation (a claim CAS without Release fails
/// `payload_pool_never_aliases_writer_and_reader` with a causality
/// violation, a consumer without the seq re-check fails
/// `seqlock_recheck_never_yields_a_torn_descriptor` with a torn
/// descriptor). All five models together take under a minute.
fn builder(bound: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(bound);
    b
}

fn publish(tx: &mut Producer<u64>, n: u64) -> laige_render::handoff::PublishOutcome {
    let out = publish_quiet(tx, n);
    assert!(tx.stats().is_consistent());
    out
}

/// Publishes frame `n` with its payload, without the stats check (the
/// models that focus on one race keep their state space small).
fn publish_quiet(tx: &mut Producer<u64>, n: u64) -> laige_render::handoff::PublishOutcome {
    {
        let mut w = tx.writer();
        assert!(w.is_empty(), "a recycled buffer starts empty");
        w.push(n);
        w.push(n + 100);
    }
    tx.publish(desc(n))
}

/// Claims at most one frame; checks it (and, with `check_stats`, the
/// accounting while it is in flight and after it finished) and returns its
/// index.
fn consume(rx: &mut Consumer<u64>, last: &mut u64, check_stats: bool) -> Option<u64> {
    let view = rx.stats_view();
    let frame = rx.try_claim()?;
    let d = *frame.descriptor();
    let n = d.frame_index;
    assert_eq!(d, desc(n), "torn descriptor");
    assert!(n > *last, "indices strictly increase");
    assert_eq!(
        frame.payload(),
        &[n, n + 100],
        "payload belongs to the frame"
    );
    if check_stats {
        let s = view.stats();
        assert!(s.in_flight && s.is_consistent(), "{s:?}");
    }
    *last = n;
    drop(frame);
    if check_stats {
        assert!(view.stats().is_consistent());
    }
    Some(n)
}

fn consume_one(rx: &mut Consumer<u64>, last: &mut u64) -> Option<u64> {
    consume(rx, last, true)
}

fn consume_quiet(rx: &mut Consumer<u64>, last: &mut u64) -> Option<u64> {
    consume(rx, last, false)
}

/// Publish/consume/drop: two publications against a consumer that tries
/// twice; whatever it misses is dropped or left pending, never lost. The
/// accounting is checked by both threads after every step.
#[test]
fn publish_consume_drop() {
    builder(3).check(|| {
        let (mut tx, mut rx) = handoff::<u64>(HandoffConfig {
            payload_capacity: 2,
        });
        let consumer = thread::spawn(move || {
            let mut last = 0;
            let mut rendered = 0;
            for _ in 0..2 {
                if consume_one(&mut rx, &mut last).is_some() {
                    rendered += 1;
                }
            }
            rendered
        });
        let mut dropped = 0;
        for n in 1..=2 {
            if publish(&mut tx, n).dropped_frame.is_some() {
                dropped += 1;
            }
        }
        let rendered = consumer.join().expect("consumer");
        let s = tx.stats();
        assert!(s.is_consistent());
        assert_eq!(s.submitted, 2);
        assert_eq!(s.rendered, rendered);
        assert_eq!(s.dropped, dropped);
        assert!(!s.in_flight);
        assert_eq!(s.outstanding, u64::from(s.pending));
    });
}

/// The seq re-check: the consumer's copy races a publication; with three
/// preemptions loom interleaves the producer's word stores between the
/// consumer's word loads in every way that matters.
#[test]
fn seqlock_recheck_never_yields_a_torn_descriptor() {
    builder(3).check(|| {
        let (mut tx, mut rx) = handoff::<u64>(HandoffConfig::default());
        let _ = publish_quiet(&mut tx, 1);
        let consumer = thread::spawn(move || {
            let mut last = 0;
            consume_quiet(&mut rx, &mut last)
        });
        let _ = publish_quiet(&mut tx, 2);
        let got = consumer.join().expect("consumer");
        // Frame 1 or frame 2 (whichever was pending), never a mix.
        assert!(matches!(got, Some(1 | 2)), "{got:?}");
        let s = tx.stats();
        assert_eq!(s.submitted, 2);
        assert_eq!(s.rendered, 1);
        assert_eq!(s.dropped + s.outstanding, 1);
    });
}

/// The payload pool: the producer fills and publishes new frames while the
/// consumer reads the previous frame's buffer. Loom's cell tracking fails
/// the model if a buffer is ever handed to the producer while the consumer
/// still reads it.
#[test]
fn payload_pool_never_aliases_writer_and_reader() {
    builder(3).check(|| {
        let (mut tx, mut rx) = handoff::<u64>(HandoffConfig {
            payload_capacity: 2,
        });
        let _ = publish_quiet(&mut tx, 1);
        let consumer = thread::spawn(move || {
            let mut last = 0;
            let a = consume_quiet(&mut rx, &mut last);
            let b = consume_quiet(&mut rx, &mut last);
            (a, b)
        });
        let _ = publish_quiet(&mut tx, 2);
        let _ = publish_quiet(&mut tx, 3);
        let (a, _b) = consumer.join().expect("consumer");
        assert!(
            a.is_some(),
            "frame 1 or a successor was pending at the first claim"
        );
        assert!(tx.stats().is_consistent());
    });
}

/// wait_idle: once the producer sees the handoff idle, the consumer's
/// stage effects (a plain write in a loom-tracked cell) are visible to it.
#[test]
fn idle_means_the_stage_effects_are_visible() {
    builder(2).check(|| {
        let effect = Arc::new(loom::cell::UnsafeCell::new(0u64));
        let (mut tx, mut rx) = handoff::<u64>(HandoffConfig::default());
        let stop = Arc::new(AtomicBool::new(false));
        let consumer = {
            let effect = Arc::clone(&effect);
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    if let Some(frame) = rx.try_claim() {
                        let n = frame.descriptor().frame_index;
                        // SAFETY: loom checks this write against the
                        // producer's read below; the handoff's finish store
                        // (Release) and is_idle's load (Acquire) order them.
                        effect.with_mut(|p| unsafe { *p = n });
                    } else {
                        thread::yield_now();
                    }
                }
            })
        };
        let _ = publish(&mut tx, 1);
        while !tx.is_idle() {
            thread::yield_now();
        }
        // SAFETY: the consumer wrote before finishing frame 1, and nothing
        // else is published: loom reports a race if the edge is missing.
        let seen = effect.with(|p| unsafe { *p });
        assert_eq!(seen, 1);
        let s = tx.stats();
        assert_eq!((s.submitted, s.rendered, s.outstanding), (1, 1, 0));
        stop.store(true, Ordering::Release);
        consumer.join().expect("consumer");
    });
}

/// Parking: a consumer that parks when the slot is empty is always woken by
/// the publish that follows (loom reports a deadlock on a lost wake-up).
#[test]
fn a_parked_consumer_is_never_left_asleep() {
    builder(3).check(|| {
        let (mut tx, mut rx) = handoff::<u64>(HandoffConfig::default());
        let consumer = thread::spawn(move || {
            let mut last = 0;
            loop {
                if let Some(n) = consume_one(&mut rx, &mut last) {
                    return n;
                }
                if rx.prepare_park() {
                    thread::park();
                }
            }
        });
        let handle = consumer.thread().clone();
        let out = publish(&mut tx, 1);
        if out.consumer_parked {
            handle.unpark();
        }
        assert_eq!(consumer.join().expect("consumer"), 1);
        assert!(tx.is_idle());
    });
}
