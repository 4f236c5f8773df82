//! The rate limiter's time base: a cheap, coarse monotonic clock.
//!
//! The limiter reads the time on every check, including every suppressed
//! one, so the reading is the largest part of the check's cost. On Linux it
//! is `CLOCK_MONOTONIC_COARSE` (a vDSO read of the kernel's last timer tick:
//! about 7 ns against about 25–30 ns for `CLOCK_MONOTONIC`, measured on the
//! bench machine), whose resolution is the kernel tick — typically 1–4 ms, see
//! [`resolution_ns`]. A window edge is therefore accurate to one tick, which
//! is immaterial for the default one-second window; a window shorter than the
//! resolution behaves as one tick. Elsewhere the time base is
//! [`SteadyClock`](crate::clock::SteadyClock).
//!
//! This clock only decides when a diagnostic may be emitted again; it never
//! feeds simulation time (that comes through [`crate::clock`]).

/// The current reading in nanoseconds on an arbitrary monotonic epoch.
#[cfg(target_os = "linux")]
#[inline]
pub(crate) fn now_ns() -> i64 {
    use rustix::time::{ClockId, clock_gettime};
    let ts = clock_gettime(ClockId::MonotonicCoarse);
    ts.tv_sec
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec)
}

/// The current reading in nanoseconds on an arbitrary monotonic epoch.
#[cfg(not(target_os = "linux"))]
#[inline]
pub(crate) fn now_ns() -> i64 {
    use crate::clock::{MonotonicClock, SteadyClock};
    SteadyClock.now_ns()
}

/// The resolution of the limiter's time base in nanoseconds: the smallest
/// step between two different readings (window edges are accurate to this).
#[cfg(target_os = "linux")]
#[must_use]
pub fn resolution_ns() -> i64 {
    use rustix::time::{ClockId, clock_getres};
    let ts = clock_getres(ClockId::MonotonicCoarse);
    ts.tv_sec
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec)
        .max(1)
}

/// The resolution of the limiter's time base in nanoseconds: the smallest
/// step between two different readings (window edges are accurate to this).
#[cfg(not(target_os = "linux"))]
#[must_use]
pub fn resolution_ns() -> i64 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_goes_backwards() {
        let mut last = now_ns();
        for _ in 0..10_000 {
            let now = now_ns();
            assert!(now >= last, "{now} < {last}");
            last = now;
        }
    }

    #[test]
    fn resolution_is_positive_and_at_most_a_tenth_of_the_default_window() {
        let res = resolution_ns();
        assert!(res >= 1);
        assert!(res <= 100_000_000, "resolution {res} ns");
    }
}
