//! Loom model checks of `RateLimiter`, the per-key protocol behind every
//! `event!`: every interleaving of two threads counts each occurrence
//! exactly once and emits once per window. Built only under `--cfg loom`
//! (`cargo xtask test` runs it:
//! `RUSTFLAGS="--cfg loom" cargo test --release -p laige-core --test diag_limiter_loom`).

#![cfg(loom)]

use loom::sync::Arc;

use laige_core::diag::RateLimiter;

fn totals(l: &RateLimiter) -> (u64, u64, u64) {
    let s = l.stats();
    (s.emitted, s.suppressed, s.pending)
}

#[test]
fn racing_first_occurrences_emit_exactly_once() {
    loom::model(|| {
        let l = Arc::new(RateLimiter::new());
        let l2 = Arc::clone(&l);
        let t = loom::thread::spawn(move || l2.decide(5, 100));
        let mine = l.decide(5, 100);
        let theirs = t.join().unwrap();
        assert!(mine ^ theirs, "exactly one of the two emits");
        assert_eq!(totals(&l), (1, 1, 1));
    });
}

#[test]
fn racing_at_a_window_edge_emits_once_and_counts_everything() {
    loom::model(|| {
        let l = Arc::new(RateLimiter::new());
        assert!(l.decide(0, 100));
        let l2 = Arc::clone(&l);
        let t = loom::thread::spawn(move || {
            let a = l2.decide(100, 100);
            let b = l2.decide(150, 100);
            u64::from(a) + u64::from(b)
        });
        let mine = u64::from(l.decide(120, 100));
        let theirs = t.join().unwrap();
        // Exactly one of the edge occurrences (100, 120) emits; 150 lies
        // within a window of either.
        assert_eq!(mine + theirs, 1);
        assert_eq!(totals(&l), (2, 2, 2));
    });
}

#[test]
fn concurrent_summaries_and_suppressions_claim_each_once() {
    loom::model(|| {
        let l = Arc::new(RateLimiter::new());
        l.decide(0, 100);
        l.decide(1, 100);
        let l2 = Arc::clone(&l);
        let t = loom::thread::spawn(move || {
            l2.decide(2, 100);
            l2.take_unsummarized()
        });
        let mine = l.take_unsummarized();
        let theirs = t.join().unwrap();
        let last = l.take_unsummarized();
        assert_eq!(mine + theirs + last, 2);
        assert_eq!(totals(&l), (1, 2, 0));
    });
}
