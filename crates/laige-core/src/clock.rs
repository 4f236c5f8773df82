//! The monotonic clock: the one door through which wall-clock time enters
//! the engine.
//!
//! Everything that reads time — the game loop's due computation, the frame
//! clock, the profiler — takes a [`MonotonicClock`], so tests and replays pin
//! time with a [`SyntheticClock`] while games run on [`SteadyClock`].
//! Readings are signed 64-bit nanoseconds on an arbitrary epoch (the process's
//! first reading for [`SteadyClock`]); 2^63 ns is about 292 years.
//!
//! ```
//! use laige_core::clock::{MonotonicClock, SyntheticClock};
//!
//! let clock = SyntheticClock::new(0);
//! let handle = clock.clone();
//! handle.advance_ns(16_666_667);
//! assert_eq!(clock.now_ns(), 16_666_667);
//! ```
//!
#![doc = include_str!("clock.md")]

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, Ordering};

// In a browser (wasm32-unknown-unknown) `std::time::Instant::now` panics:
// the steady clock reads `performance.now()` through web-time there, whose
// `Instant` is std's own type on every other target.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
use std::time::Instant;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
use web_time::Instant;

/// A source of monotonic nanosecond readings.
///
/// Implementations must never go backwards; consumers still defend against a
/// backward reading (the game loop clamps it) because a misbehaving clock is
/// user code. Static dispatch: consumers are generic over `C: MonotonicClock`.
pub trait MonotonicClock {
    /// The current reading in nanoseconds on this clock's epoch.
    fn now_ns(&self) -> i64;
}

impl<C: MonotonicClock + ?Sized> MonotonicClock for &C {
    fn now_ns(&self) -> i64 {
        (**self).now_ns()
    }
}

impl<C: MonotonicClock + ?Sized> MonotonicClock for Arc<C> {
    fn now_ns(&self) -> i64 {
        (**self).now_ns()
    }
}

/// The process's steady clock ([`std::time::Instant`]), as nanoseconds since
/// the first reading any `SteadyClock` took in this process. All
/// `SteadyClock`s share that epoch, so readings from the game loop and the
/// frame clock are directly comparable.
#[derive(Clone, Copy, Debug, Default)]
pub struct SteadyClock;

fn process_epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

impl SteadyClock {
    /// Converts an [`Instant`] to this clock's nanosecond time base
    /// (saturating at 0 for instants before the epoch and at `i64::MAX`).
    #[must_use]
    pub fn instant_to_ns(instant: Instant) -> i64 {
        let since = instant.saturating_duration_since(process_epoch());
        i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
    }

    /// Converts a reading of this clock back to an [`Instant`].
    #[must_use]
    pub fn ns_to_instant(ns: i64) -> Instant {
        let ns = u64::try_from(ns).unwrap_or(0);
        process_epoch() + std::time::Duration::from_nanos(ns)
    }
}

impl MonotonicClock for SteadyClock {
    fn now_ns(&self) -> i64 {
        // The epoch is taken before `Instant::now()` on the first call, so the
        // first reading is >= 0.
        let epoch = process_epoch();
        let since = Instant::now().saturating_duration_since(epoch);
        i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
    }
}

/// A clock that moves only when told to: the test and replay time base.
///
/// Clones share one reading, so a test can keep a handle and advance the
/// clock that a game loop owns. Thread-safe (one atomic); `set_ns` may move
/// the reading backwards on purpose, to test the consumers' clamping.
#[derive(Clone, Debug, Default)]
pub struct SyntheticClock {
    now: Arc<AtomicI64>,
}

impl SyntheticClock {
    /// A clock reading `start_ns`.
    #[must_use]
    pub fn new(start_ns: i64) -> Self {
        Self {
            now: Arc::new(AtomicI64::new(start_ns)),
        }
    }

    /// Sets the reading.
    pub fn set_ns(&self, ns: i64) {
        // Relaxed: the reading is a value, not a publication of other memory.
        self.now.store(ns, Ordering::Relaxed);
    }

    /// Moves the reading forward by `delta_ns` (saturating at `i64::MAX`).
    pub fn advance_ns(&self, delta_ns: i64) {
        let _ = self
            .now
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_add(delta_ns))
            });
    }
}

impl MonotonicClock for SyntheticClock {
    fn now_ns(&self) -> i64 {
        self.now.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_clock_never_goes_backwards() {
        let c = SteadyClock;
        let mut last = c.now_ns();
        assert!(last >= 0);
        for _ in 0..10_000 {
            let now = c.now_ns();
            assert!(now >= last);
            last = now;
        }
    }

    #[test]
    fn steady_clock_round_trips_instants() {
        let now = Instant::now();
        let ns = SteadyClock::instant_to_ns(now);
        let back = SteadyClock::ns_to_instant(ns);
        assert_eq!(SteadyClock::instant_to_ns(back), ns);
    }

    #[test]
    fn synthetic_clock_clones_share_the_reading() {
        let a = SyntheticClock::new(5);
        let b = a.clone();
        b.advance_ns(10);
        assert_eq!(a.now_ns(), 15);
        a.set_ns(-3);
        assert_eq!(b.now_ns(), -3);
        a.set_ns(i64::MAX - 1);
        a.advance_ns(10);
        assert_eq!(a.now_ns(), i64::MAX);
    }
}
