//! The rate limiter's front end: the per-callsite check, the global window
//! and the per-key statistics.
//!
//! The check an [`event!`](crate::event!) runs on every occurrence is
//! [`Callsite::check`]: one relaxed load of the callsite's cached registry
//! slot, one lock-free slot read, an id compare, one coarse clock read
//! ([`time_resolution_ns`](super::time_resolution_ns)), one relaxed window load and one
//! atomic read-modify-write on the key's counters. It never allocates, never
//! formats and takes no lock; the first occurrence at a callsite registers
//! the key (one allocation per key for the process, cold, suspended from the
//! allocation watch).

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::Duration;

use super::registry::{self, KeyState};
use super::{Severity, time};
use crate::events::RATE_WINDOW_INVALID;
use crate::{Error, EventId, Result};

/// The default rate-limit window: at most one event per key per second.
///
/// The logging facade's rule: a per-second window suppresses repeats, so a
/// sustained overload logs once per second per key,
/// plus the `rate_limited` summary at shutdown.
pub const DEFAULT_RATE_WINDOW: Duration = Duration::from_secs(1);

/// The longest accepted rate-limit window (one hour). Longer windows would
/// hide a recurring degradation for most of a play session; the summary
/// still counts every suppressed occurrence.
pub const MAX_RATE_WINDOW: Duration = Duration::from_secs(3600);

/// The current window in nanoseconds. Relaxed: a plain configuration value;
/// a check that races a change uses either the old or the new window.
static WINDOW_NS: AtomicI64 = AtomicI64::new(duration_ns(DEFAULT_RATE_WINDOW));

const fn duration_ns(d: Duration) -> i64 {
    // Only called on windows <= MAX_RATE_WINDOW, far below i64::MAX ns.
    d.as_nanos() as i64
}

/// Sets the process-wide rate-limit window (default
/// [`DEFAULT_RATE_WINDOW`]); it applies to every key from the next check.
///
/// Accepted: `0..=`[`MAX_RATE_WINDOW`]. A zero window disables rate
/// limiting: every occurrence is emitted. Anything longer is an
/// [`ErrorCode::OutOfRange`](crate::ErrorCode) (`diag/rate_window_invalid`,
/// field `rate_window`), reported as a Warn event and returned; the window
/// is then unchanged.
///
/// ```
/// use std::time::Duration;
/// use laige_core::diag;
///
/// diag::set_rate_window(Duration::from_millis(250)).unwrap();
/// assert_eq!(diag::rate_window(), Duration::from_millis(250));
/// assert!(diag::set_rate_window(Duration::from_secs(7200)).is_err());
/// assert_eq!(diag::rate_window(), Duration::from_millis(250));
/// ```
pub fn set_rate_window(window: Duration) -> Result<()> {
    if window > MAX_RATE_WINDOW {
        return super::fail(Error::out_of_range(
            RATE_WINDOW_INVALID,
            "rate_window",
            format_args!("{window:?}"),
            "0 s ..= 3600 s",
        ));
    }
    WINDOW_NS.store(duration_ns(window), Ordering::Relaxed);
    Ok(())
}

/// The current process-wide rate-limit window.
#[must_use]
pub fn rate_window() -> Duration {
    let ns = WINDOW_NS.load(Ordering::Relaxed);
    Duration::from_nanos(u64::try_from(ns).unwrap_or(0))
}

/// The per-callsite cache of a rate-limit key: what the
/// [`event!`](crate::event!) macro declares as a `static` at each use.
///
/// It remembers which registry slot holds the key the callsite last
/// checked, so the steady-state check skips the registry lookup. A callsite
/// whose id expression changes between calls (for example
/// [`report`](super::report), which checks the id of whatever error it is
/// given) stays correct: a cached key that does not match is looked up again.
///
/// Use it directly to rate-limit something that is not a `tracing` event:
///
/// ```
/// use laige_core::{EventId, diag::{Callsite, Severity}};
///
/// const SPIKE: EventId = EventId::new("doc_callsite", "spike");
/// static CALLSITE: Callsite = Callsite::new();
/// assert!(CALLSITE.check(SPIKE, Severity::Warn)); // first: emit
/// assert!(!CALLSITE.check(SPIKE, Severity::Warn)); // same window: suppressed
/// ```
#[derive(Debug)]
pub struct Callsite {
    /// The cached registry slot plus one; 0 = nothing cached.
    slot: AtomicUsize,
}

impl Callsite {
    /// An empty cache (usable in a `static`).
    #[must_use]
    pub const fn new() -> Self {
        Self {
            slot: AtomicUsize::new(0),
        }
    }

    /// Counts one occurrence of `(id, severity)` and returns whether it may
    /// be emitted now (`true`: the first occurrence of the key in the
    /// current window) or is suppressed (`false`: counted for the summary).
    #[inline]
    pub fn check(&self, id: EventId, severity: Severity) -> bool {
        let key = self.key(id, severity);
        let window = WINDOW_NS.load(Ordering::Relaxed);
        key.limiter().decide(time::now_ns(), window)
    }

    #[inline]
    fn key(&self, id: EventId, severity: Severity) -> &'static KeyState {
        // Relaxed: the slot index is only a hint; the registry slot's own
        // `OnceLock` read (acquire) is what makes the key's state visible.
        let cached = self.slot.load(Ordering::Relaxed);
        if cached != 0
            && let Some(key) = registry::slot(cached - 1)
            && key.matches(id, severity)
        {
            return key;
        }
        self.key_slow(id, severity)
    }

    #[cold]
    #[inline(never)]
    fn key_slow(&self, id: EventId, severity: Severity) -> &'static KeyState {
        let handle = registry::register(id, severity);
        if let Some(slot) = handle.slot {
            self.slot.store(slot + 1, Ordering::Relaxed);
        }
        handle.key
    }
}

impl Default for Callsite {
    fn default() -> Self {
        Self::new()
    }
}

/// A key's rate-limit counts since the process started (see [`rate_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateStats {
    /// Occurrences the limiter let through to `tracing`.
    pub emitted: u64,
    /// Occurrences the limiter suppressed.
    pub suppressed: u64,
    /// The part of `suppressed` no
    /// [`emit_rate_limited_summary`](super::emit_rate_limited_summary) has
    /// reported yet.
    pub pending: u64,
}

impl RateStats {
    /// Every occurrence of the key: `emitted + suppressed`.
    #[must_use]
    pub const fn occurrences(&self) -> u64 {
        self.emitted + self.suppressed
    }
}

/// The counts of `(id, severity)`; all zero for a key never checked.
///
/// Meant for tests and dashboards: it reads three relaxed counters, so while
/// other threads are emitting it is a recent value, not a snapshot.
///
/// ```
/// use laige_core::{EventId, diag::{self, Severity}};
///
/// const DOC_STATS: EventId = EventId::new("doc_stats", "hit");
/// for _ in 0..3 {
///     laige_core::event!(Info, DOC_STATS, n = 1);
/// }
/// let stats = diag::rate_stats(DOC_STATS, Severity::Info);
/// assert_eq!((stats.emitted, stats.suppressed), (1, 2));
/// ```
#[must_use]
pub fn rate_stats(id: EventId, severity: Severity) -> RateStats {
    registry::find(id, severity).map_or_else(RateStats::default, |key| key.limiter().stats())
}

/// Counts one occurrence of `(id, severity)` without a callsite cache and
/// returns whether it may be emitted (the uncached form of
/// [`Callsite::check`]: one registry probe more).
pub fn check(id: EventId, severity: Severity) -> bool {
    let key = registry::find(id, severity).unwrap_or_else(|| registry::register(id, severity).key);
    let window = WINDOW_NS.load(Ordering::Relaxed);
    key.limiter().decide(time::now_ns(), window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callsite_caches_its_key_and_checks_per_key() {
        const A: EventId = EventId::new("limiter_test", "a");
        static CS: Callsite = Callsite::new();
        assert!(CS.check(A, Severity::Warn));
        assert_ne!(CS.slot.load(Ordering::Relaxed), 0);
        assert!(!CS.check(A, Severity::Warn));
        // A different severity is a different key.
        assert!(CS.check(A, Severity::Error));
        assert!(!CS.check(A, Severity::Warn));
        let warn = rate_stats(A, Severity::Warn);
        assert_eq!((warn.emitted, warn.suppressed, warn.pending), (1, 2, 2));
        assert_eq!(warn.occurrences(), 3);
        assert_eq!(rate_stats(A, Severity::Error).emitted, 1);
    }

    #[test]
    fn two_callsites_share_one_key() {
        const B: EventId = EventId::new("limiter_test", "b");
        static FIRST: Callsite = Callsite::new();
        static SECOND: Callsite = Callsite::new();
        assert!(FIRST.check(B, Severity::Info));
        assert!(!SECOND.check(B, Severity::Info));
        assert!(!check(B, Severity::Info));
        assert_eq!(
            rate_stats(B, Severity::Info),
            RateStats {
                emitted: 1,
                suppressed: 2,
                pending: 2
            }
        );
    }

    #[test]
    fn public_types_are_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Callsite>();
        send_sync::<RateStats>();
        send_sync::<Severity>();
        send_sync::<super::super::SuppressedKey>();
        #[cfg(feature = "subscriber")]
        {
            send_sync::<super::super::SubscriberConfig>();
            send_sync::<super::super::CapturedEvent>();
        }
    }

    #[test]
    fn unknown_keys_read_zero() {
        assert_eq!(
            rate_stats(EventId::new("limiter_test", "never"), Severity::Warn),
            RateStats::default()
        );
    }
}
