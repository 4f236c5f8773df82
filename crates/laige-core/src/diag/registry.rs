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

use std::sync::{Mutex, OnceLock, PoisonError};

use super::{RateLimiter, Severity};
use crate::EventId;

/// The number of lock-free registry slots (a power of two).
pub(crate) const SLOTS: usize = 1024;
const MASK: usize = SLOTS - 1;

/// A key and its limiter. The limiter is 128-byte aligned, so two hot
/// keys never share a cache line.
pub(crate) struct KeyState {
    id: EventId,
    severity: Severity,
    limiter: RateLimiter,
}

impl KeyState {
    fn new(id: EventId, severity: Severity) -> Self {
        Self {
            id,
            severity,
            limiter: RateLimiter::new(),
        }
    }

    pub(crate) fn id(&self) -> EventId {
        self.id
    }

    pub(crate) fn severity(&self) -> Severity {
        self.severity
    }

    pub(crate) fn limiter(&self) -> &RateLimiter {
        &self.limiter
    }

    /// Whether this state belongs to `(id, severity)`.
    #[inline]
    pub(crate) fn matches(&self, id: EventId, severity: Severity) -> bool {
        self.severity == severity
            && same_str(self.id.subsystem(), id.subsystem())
            && same_str(self.id.event(), id.event())
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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

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
