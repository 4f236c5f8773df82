//! [`RateLimiter`]: the per-key protocol — one emission per window, every
//! occurrence counted exactly once — as a standalone type with explicit
//! time.

// One switch for loom: the atomics are model-checked under `--cfg loom`
// (`tests/diag_limiter_loom.rs`); everything else uses std.
#[cfg(loom)]
use loom::sync::atomic::{AtomicI64, AtomicU64, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use super::RateStats;

/// `last_emit_ns` before the first emission.
const NEVER: i64 = i64::MIN;

/// The rate-limit state of one key: when it last emitted and how many
/// occurrences it emitted and suppressed.
///
/// Every [`event!`](crate::event!) key owns one (in the process-wide
/// registry). It is public for code that rate-limits something keyed
/// differently (per entity, per connection) or wants deterministic time:
/// the caller supplies the reading and the window, e.g. from a
/// [`SyntheticClock`](crate::clock::SyntheticClock).
///
/// Aligned to 128 bytes (two cache lines, the adjacent-line prefetch unit
/// of current x86) so two limiters hammered from different threads never
/// share a line. Lock-free; `Sync`.
///
/// ```
/// use laige_core::diag::RateLimiter;
///
/// const SEC: i64 = 1_000_000_000;
/// let limiter = RateLimiter::new();
/// assert!(limiter.decide(0, SEC)); // first occurrence: emit
/// assert!(!limiter.decide(SEC / 2, SEC)); // within the window: suppressed
/// assert!(limiter.decide(SEC, SEC)); // a full window later: emit
/// let stats = limiter.stats();
/// assert_eq!((stats.emitted, stats.suppressed), (2, 1));
/// ```
#[derive(Debug)]
#[repr(align(128))]
pub struct RateLimiter {
    /// The reading of the last emission, or [`NEVER`].
    last_emit_ns: AtomicI64,
    /// Occurrences let through.
    emitted: AtomicU64,
    /// Occurrences suppressed.
    suppressed: AtomicU64,
    /// How much of `suppressed` has been claimed by `take_unsummarized`.
    summarized: AtomicU64,
}

impl RateLimiter {
    /// A limiter that has seen nothing: its first occurrence is emitted.
    #[must_use]
    pub fn new() -> Self {
        Self {
            last_emit_ns: AtomicI64::new(NEVER),
            emitted: AtomicU64::new(0),
            suppressed: AtomicU64::new(0),
            summarized: AtomicU64::new(0),
        }
    }

    /// Decides one occurrence at reading `now_ns` under a window of
    /// `window_ns` and counts it: `true` = emit (counted as emitted),
    /// `false` = suppress (counted as suppressed) — exactly one of the two,
    /// whatever other threads do at the same time.
    ///
    /// An occurrence is emitted when the limiter has never emitted, or when
    /// `now_ns - last_emission >= window_ns` and this caller wins the race
    /// to record the new emission (the loser of a race is suppressed: the
    /// winner's emission covers it). A reading behind the last emission is
    /// suppressed. A window `<= 0` emits every occurrence. No allocation,
    /// no lock: a few relaxed atomics.
    #[inline]
    pub fn decide(&self, now_ns: i64, window_ns: i64) -> bool {
        // Relaxed everywhere below: the timestamp and the counters are
        // diagnostic values that publish no other memory; each RMW is atomic,
        // which is all the exact emitted + suppressed == occurrences count
        // needs. Readers that need final values (tests, the summary at
        // shutdown) synchronise through thread joins.
        if window_ns <= 0 {
            self.last_emit_ns.store(now_ns, Ordering::Relaxed);
            self.emitted.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        let last = self.last_emit_ns.load(Ordering::Relaxed);
        // `now - last` is negative when another thread recorded a later
        // reading than ours: that emission covers this occurrence.
        if last != NEVER && now_ns.saturating_sub(last) < window_ns {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        match self
            .last_emit_ns
            .compare_exchange(last, now_ns, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => {
                self.emitted.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(_) => {
                // Another thread emitted between our load and our exchange.
                self.suppressed.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// The counts so far (`pending` = suppressed occurrences not yet
    /// claimed by [`take_unsummarized`](Self::take_unsummarized)). Relaxed
    /// reads: while other threads decide, a recent value, not a snapshot.
    #[must_use]
    pub fn stats(&self) -> RateStats {
        let emitted = self.emitted.load(Ordering::Relaxed);
        let suppressed = self.suppressed.load(Ordering::Relaxed);
        let summarized = self.summarized.load(Ordering::Relaxed);
        RateStats {
            emitted,
            suppressed,
            pending: suppressed.saturating_sub(summarized),
        }
    }

    /// Claims the suppressed occurrences no earlier call has claimed and
    /// returns how many there were. Concurrent callers claim disjoint
    /// counts, so every suppressed occurrence is claimed exactly once.
    pub fn take_unsummarized(&self) -> u64 {
        let total = self.suppressed.load(Ordering::Relaxed);
        // fetch_max hands each caller the previous high-water mark: the
        // range (prev, total] is this caller's alone.
        let prev = self.summarized.fetch_max(total, Ordering::Relaxed);
        total.saturating_sub(prev)
    }
}

impl Default for RateLimiter {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const SEC: i64 = 1_000_000_000;

    fn counts(l: &RateLimiter) -> (u64, u64, u64) {
        let s = l.stats();
        (s.emitted, s.suppressed, s.pending)
    }

    #[test]
    fn first_occurrence_emits_then_the_window_suppresses() {
        let k = RateLimiter::new();
        assert!(k.decide(100, SEC));
        assert!(!k.decide(100, SEC));
        assert!(!k.decide(100 + SEC - 1, SEC));
        assert_eq!(counts(&k), (1, 2, 2));
    }

    #[test]
    fn emits_again_once_a_full_window_has_passed() {
        let k = RateLimiter::new();
        assert!(k.decide(0, SEC));
        assert!(k.decide(SEC, SEC));
        assert!(!k.decide(2 * SEC - 1, SEC));
        assert!(k.decide(2 * SEC, SEC));
        assert_eq!(counts(&k), (3, 1, 1));
    }

    #[test]
    fn the_window_restarts_at_each_emission_not_at_fixed_boundaries() {
        let k = RateLimiter::new();
        assert!(k.decide(0, SEC));
        assert!(k.decide(SEC + 500, SEC));
        // One window after the second emission, not after 2 s.
        assert!(!k.decide(2 * SEC + 499, SEC));
        assert!(k.decide(2 * SEC + 500, SEC));
    }

    #[test]
    fn a_reading_behind_the_last_emission_is_suppressed() {
        let k = RateLimiter::new();
        assert!(k.decide(10 * SEC, SEC));
        assert!(!k.decide(5 * SEC, SEC));
    }

    #[test]
    fn extreme_readings_do_not_overflow() {
        let k = RateLimiter::new();
        assert!(k.decide(i64::MIN + 1, SEC));
        assert!(k.decide(i64::MAX, SEC));
        assert!(!k.decide(i64::MAX, SEC));
    }

    #[test]
    fn a_zero_or_negative_window_emits_every_occurrence() {
        let k = RateLimiter::default();
        for w in [0, 0, -5] {
            assert!(k.decide(7, w));
        }
        assert_eq!(counts(&k), (3, 0, 0));
    }

    #[test]
    fn summaries_claim_each_suppressed_occurrence_once() {
        let k = RateLimiter::new();
        k.decide(0, SEC);
        k.decide(1, SEC);
        k.decide(2, SEC);
        assert_eq!(k.take_unsummarized(), 2);
        assert_eq!(k.take_unsummarized(), 0);
        k.decide(3, SEC);
        assert_eq!(counts(&k), (1, 3, 1));
        assert_eq!(k.take_unsummarized(), 1);
        assert_eq!(counts(&k), (1, 3, 0));
    }

    #[test]
    fn two_threads_deciding_at_once_count_every_occurrence_exactly_once() {
        const PER_THREAD: u64 = 200_000;
        let k = RateLimiter::new();
        // Readings advance 1 ns per occurrence and the window is 1000 ns, so
        // roughly every thousandth occurrence races for an emission.
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    for t in 0..PER_THREAD {
                        k.decide(i64::try_from(t).unwrap(), 1000);
                    }
                });
            }
        });
        let (emitted, suppressed, pending) = counts(&k);
        assert_eq!(emitted + suppressed, 2 * PER_THREAD);
        assert_eq!(pending, suppressed);
        // Each emission moves the recorded time forward by at least one
        // window, so readings 0..PER_THREAD allow at most PER_THREAD / 1000
        // emissions; and a sustained stream is never silent.
        assert!(emitted <= PER_THREAD / 1000, "{emitted}");
        assert!(emitted >= PER_THREAD / 2000, "{emitted}");
    }
}
