//! The process-wide registry of rate-limit keys and their shared state.
//!
//! Every `(subsystem, event, severity)` key owns exactly one [`KeyState`],
//! allocated once (leaked: keys live for the process) when the key is first
//! seen, whichever callsite sees it first. Callsites emitting the same key
//! share that state, so the "one event per window" contract holds per key,
//! not per callsite.
//!
//! The registry is a fixed open-addressing table of [`OnceLock`] slots:
//! a slot is written once and never changes, so a lookup is a probe of
//! lock-free reads, and two threads registering at once race only on the
//! slot's one-time initialisation (the loser reads the winner's key). A key
//! is found by probing from its hash to the first empty slot; since slots
//! are never cleared, a key once inserted is always found on that path.
//! Past [`SLOTS`] distinct keys (far more than the engine defines), further
//! keys go to an overflow list behind a mutex: still correct, no longer
//! lock-free.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use super::Severity;
use crate::EventId;

/// The number of lock-free registry slots (a power of two).
pub(crate) const SLOTS: usize = 1024;
const MASK: usize = SLOTS - 1;

/// `last_emit_ns` before the first emission.
const NEVER: i64 = i64::MIN;

/// The shared rate-limit state of one key.
///
/// Aligned to 128 bytes (two cache lines, the adjacent-line prefetch unit of
/// current x86) so two hot keys hammered from different threads never share
/// a line.
#[repr(align(128))]
pub(crate) struct KeyState {
    id: EventId,
    severity: Severity,
    /// The time-base reading of the last emission, or [`NEVER`].
    last_emit_ns: AtomicI64,
    /// Occurrences the limiter let through, since the process started.
    emitted: AtomicU64,
    /// Occurrences the limiter suppressed, since the process started.
    suppressed: AtomicU64,
    /// How much of `suppressed` the summaries have already reported.
    summarized: AtomicU64,
}

/// Whether the limiter lets an occurrence through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    Emit,
    Suppress,
}

impl KeyState {
    fn new(id: EventId, severity: Severity) -> Self {
        Self {
            id,
            severity,
            last_emit_ns: AtomicI64::new(NEVER),
            emitted: AtomicU64::new(0),
            suppressed: AtomicU64::new(0),
            summarized: AtomicU64::new(0),
        }
    }

    pub(crate) fn id(&self) -> EventId {
        self.id
    }

    pub(crate) fn severity(&self) -> Severity {
        self.severity
    }

    /// Whether this state belongs to `(id, severity)`.
    #[inline]
    pub(crate) fn matches(&self, id: EventId, severity: Severity) -> bool {
        self.severity == severity
            && same_str(self.id.subsystem(), id.subsystem())
            && same_str(self.id.event(), id.event())
    }

    /// Decides one occurrence at time `now_ns` under a window of
    /// `window_ns`, and counts it as emitted or suppressed — exactly one of
    /// the two, whatever other threads do at the same time.
    ///
    /// An occurrence is emitted when the key has never emitted, or when at
    /// least `window_ns` have passed since the last emission and this thread
    /// wins the race to record the new emission time. A window `<= 0`
    /// emits every occurrence.
    #[inline]
    pub(crate) fn decide(&self, now_ns: i64, window_ns: i64) -> Decision {
        // Relaxed everywhere below: the timestamp and the counters are
        // diagnostic values that publish no other memory; each RMW is atomic,
        // which is all the exact emitted + suppressed == occurrences count
        // needs. Readers that need a final value (tests, the summary at
        // shutdown) synchronise through thread joins or the registry.
        if window_ns <= 0 {
            self.last_emit_ns.store(now_ns, Ordering::Relaxed);
            self.emitted.fetch_add(1, Ordering::Relaxed);
            return Decision::Emit;
        }
        let last = self.last_emit_ns.load(Ordering::Relaxed);
        // `now - last` may be negative when another thread recorded a later
        // reading than ours: that emission covers this occurrence.
        if last != NEVER && now_ns.saturating_sub(last) < window_ns {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            return Decision::Suppress;
        }
        match self
            .last_emit_ns
            .compare_exchange(last, now_ns, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => {
                self.emitted.fetch_add(1, Ordering::Relaxed);
                Decision::Emit
            }
            Err(_) => {
                // Another thread emitted for this window between our load and
                // our exchange.
                self.suppressed.fetch_add(1, Ordering::Relaxed);
                Decision::Suppress
            }
        }
    }

    /// (emitted, suppressed, suppressed-but-not-yet-summarized).
    pub(crate) fn counts(&self) -> (u64, u64, u64) {
        let emitted = self.emitted.load(Ordering::Relaxed);
        let suppressed = self.suppressed.load(Ordering::Relaxed);
        let summarized = self.summarized.load(Ordering::Relaxed);
        (emitted, suppressed, suppressed.saturating_sub(summarized))
    }

    /// Claims the suppressed occurrences no summary has reported yet and
    /// returns how many there were. Concurrent callers claim disjoint
    /// ranges, so every suppressed occurrence is reported exactly once.
    pub(crate) fn take_unsummarized(&self) -> u64 {
        let total = self.suppressed.load(Ordering::Relaxed);
        // fetch_max hands each caller the previous high-water mark: the
        // range (prev, total] is this caller's alone.
        let prev = self.summarized.fetch_max(total, Ordering::Relaxed);
        total.saturating_sub(prev)
    }
}

/// String equality with a pointer fast path: ids written as the same
/// constant share their `&'static str`, so the common comparison is two
/// word compares.
#[inline]
fn same_str(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

static TABLE: [OnceLock<&'static KeyState>; SLOTS] = [const { OnceLock::new() }; SLOTS];
static OVERFLOW: Mutex<Vec<&'static KeyState>> = Mutex::new(Vec::new());

/// Where a key lives.
#[derive(Clone, Copy)]
pub(crate) struct Handle {
    /// The table slot, or `None` for an overflow key.
    pub(crate) slot: Option<usize>,
    /// The key's shared state.
    pub(crate) key: &'static KeyState,
}

/// FNV-1a over `subsystem`, a separator, `event` and the severity: stable,
/// allocation-free, and good enough for a table of a few hundred keys.
fn hash(id: EventId, severity: Severity) -> usize {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    let bytes = id
        .subsystem()
        .bytes()
        .chain(std::iter::once(b'/'))
        .chain(id.event().bytes())
        .chain(std::iter::once(severity as u8));
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(PRIME);
    }
    // Truncation intended: only the low bits select the slot.
    h as usize
}

/// The key in table slot `slot`, if that slot is filled.
#[inline]
pub(crate) fn slot(slot: usize) -> Option<&'static KeyState> {
    TABLE.get(slot).and_then(|s| s.get().copied())
}

/// Finds the key's state without registering it.
pub(crate) fn find(id: EventId, severity: Severity) -> Option<&'static KeyState> {
    let start = hash(id, severity);
    for i in 0..SLOTS {
        match TABLE[(start + i) & MASK].get() {
            Some(key) if key.matches(id, severity) => return Some(key),
            Some(_) => {}
            None => return None,
        }
    }
    overflow()
        .iter()
        .copied()
        .find(|key| key.matches(id, severity))
}

/// Finds the key's state, registering it on first sight (the one
/// allocation of a key's lifetime, made with the allocation watch
/// suspended: it belongs to the diagnostics, not to the caller's window).
#[cold]
pub(crate) fn register(id: EventId, severity: Severity) -> Handle {
    let _suspend = crate::alloc_watch::suspend();
    let start = hash(id, severity);
    for i in 0..SLOTS {
        let idx = (start + i) & MASK;
        let cell = &TABLE[idx];
        let key = match cell.get() {
            Some(key) => *key,
            None => *cell.get_or_init(|| Box::leak(Box::new(KeyState::new(id, severity)))),
        };
        if key.matches(id, severity) {
            return Handle {
                slot: Some(idx),
                key,
            };
        }
    }
    let mut list = overflow();
    if let Some(key) = list.iter().copied().find(|key| key.matches(id, severity)) {
        return Handle { slot: None, key };
    }
    let key: &'static KeyState = Box::leak(Box::new(KeyState::new(id, severity)));
    list.push(key);
    Handle { slot: None, key }
}

fn overflow() -> std::sync::MutexGuard<'static, Vec<&'static KeyState>> {
    // A poisoned list is still a valid list (pushes are atomic w.r.t. panics).
    OVERFLOW.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Every registered key, sorted by subsystem, event, severity.
pub(crate) fn all_keys() -> Vec<&'static KeyState> {
    let _suspend = crate::alloc_watch::suspend();
    let mut keys: Vec<&'static KeyState> = TABLE.iter().filter_map(|s| s.get().copied()).collect();
    keys.extend(overflow().iter().copied());
    keys.sort_by_key(|k| (k.id, k.severity));
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: i64 = 1_000_000_000;

    fn fresh(event: &'static str) -> KeyState {
        KeyState::new(EventId::new("registry_test", event), Severity::Warn)
    }

    #[test]
    fn first_occurrence_emits_then_the_window_suppresses() {
        let k = fresh("a");
        assert_eq!(k.decide(100, SEC), Decision::Emit);
        assert_eq!(k.decide(100, SEC), Decision::Suppress);
        assert_eq!(k.decide(100 + SEC - 1, SEC), Decision::Suppress);
        assert_eq!(k.counts(), (1, 2, 2));
    }

    #[test]
    fn emits_again_once_a_full_window_has_passed() {
        let k = fresh("b");
        assert_eq!(k.decide(0, SEC), Decision::Emit);
        assert_eq!(k.decide(SEC, SEC), Decision::Emit);
        assert_eq!(k.decide(2 * SEC - 1, SEC), Decision::Suppress);
        assert_eq!(k.decide(2 * SEC, SEC), Decision::Emit);
        assert_eq!(k.counts(), (3, 1, 1));
    }

    #[test]
    fn the_window_restarts_at_each_emission_not_at_fixed_boundaries() {
        let k = fresh("c");
        assert_eq!(k.decide(0, SEC), Decision::Emit);
        assert_eq!(k.decide(SEC + 500, SEC), Decision::Emit);
        // One window after the second emission, not after 2 s.
        assert_eq!(k.decide(2 * SEC + 499, SEC), Decision::Suppress);
        assert_eq!(k.decide(2 * SEC + 500, SEC), Decision::Emit);
    }

    #[test]
    fn a_reading_behind_the_last_emission_is_suppressed() {
        let k = fresh("d");
        assert_eq!(k.decide(10 * SEC, SEC), Decision::Emit);
        assert_eq!(k.decide(5 * SEC, SEC), Decision::Suppress);
    }

    #[test]
    fn extreme_readings_do_not_overflow() {
        let k = fresh("e");
        assert_eq!(k.decide(i64::MIN + 1, SEC), Decision::Emit);
        assert_eq!(k.decide(i64::MAX, SEC), Decision::Emit);
        assert_eq!(k.decide(i64::MAX, SEC), Decision::Suppress);
    }

    #[test]
    fn a_zero_window_emits_every_occurrence() {
        let k = fresh("f");
        for _ in 0..5 {
            assert_eq!(k.decide(7, 0), Decision::Emit);
        }
        assert_eq!(k.counts(), (5, 0, 0));
    }

    #[test]
    fn summaries_claim_each_suppressed_occurrence_once() {
        let k = fresh("g");
        k.decide(0, SEC);
        k.decide(1, SEC);
        k.decide(2, SEC);
        assert_eq!(k.take_unsummarized(), 2);
        assert_eq!(k.take_unsummarized(), 0);
        k.decide(3, SEC);
        assert_eq!(k.counts(), (1, 3, 1));
        assert_eq!(k.take_unsummarized(), 1);
        assert_eq!(k.counts(), (1, 3, 0));
    }

    #[test]
    fn two_threads_deciding_at_once_count_every_occurrence_exactly_once() {
        const PER_THREAD: u64 = 200_000;
        let k = fresh("h");
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
        let (emitted, suppressed, pending) = k.counts();
        assert_eq!(emitted + suppressed, 2 * PER_THREAD);
        assert_eq!(pending, suppressed);
        // Each emission moves the recorded time forward by at least one
        // window, so readings 0..PER_THREAD allow at most PER_THREAD / 1000
        // emissions; and a sustained stream is never silent.
        assert!(emitted <= PER_THREAD / 1000, "{emitted}");
        assert!(emitted >= PER_THREAD / 2000, "{emitted}");
    }

    #[test]
    fn registering_twice_returns_the_same_state() {
        let id = EventId::new("registry_test", "twice");
        let a = register(id, Severity::Info);
        let b = register(id, Severity::Info);
        assert!(std::ptr::eq(a.key, b.key));
        assert_eq!(a.slot, b.slot);
        let other = register(id, Severity::Warn);
        assert!(!std::ptr::eq(a.key, other.key));
        assert!(std::ptr::eq(find(id, Severity::Info).unwrap(), a.key));
        assert!(find(EventId::new("registry_test", "never"), Severity::Info).is_none());
    }

    #[test]
    fn ids_with_equal_text_but_distinct_storage_share_a_key() {
        let subsystem: &'static str = Box::leak(String::from("registry_test").into_boxed_str());
        let event: &'static str = Box::leak(String::from("copied").into_boxed_str());
        let a = register(EventId::new("registry_test", "copied"), Severity::Warn);
        let b = register(EventId::new(subsystem, event), Severity::Warn);
        assert!(std::ptr::eq(a.key, b.key));
    }

    #[test]
    fn keys_are_listed_sorted() {
        register(EventId::new("registry_sort", "b"), Severity::Warn);
        register(EventId::new("registry_sort", "a"), Severity::Warn);
        register(EventId::new("registry_sort", "a"), Severity::Info);
        let listed: Vec<(EventId, Severity)> = all_keys()
            .into_iter()
            .filter(|k| k.id().subsystem() == "registry_sort")
            .map(|k| (k.id(), k.severity()))
            .collect();
        assert_eq!(
            listed,
            [
                (EventId::new("registry_sort", "a"), Severity::Info),
                (EventId::new("registry_sort", "a"), Severity::Warn),
                (EventId::new("registry_sort", "b"), Severity::Warn),
            ]
        );
    }
}
