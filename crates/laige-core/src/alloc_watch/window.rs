//! The per-thread watch state: windows, labels and suspension.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, Ordering};

/// What a window counted: allocator calls made on this thread while the
/// window was armed and not suspended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocCounts {
    /// Successful `alloc` and `alloc_zeroed` calls.
    pub allocs: u64,
    /// Successful `realloc` calls (a `Vec` growing in place or moving).
    pub reallocs: u64,
    /// `dealloc` calls.
    pub deallocs: u64,
    /// Bytes requested: the `size` of each counted allocation plus the
    /// `new_size` of each counted reallocation.
    pub bytes: u64,
    /// The [`label`](super::label) current at the window's first allocation
    /// or reallocation — the "first offending site". `None` when the window
    /// has not allocated, or when no label was set at that moment.
    pub first_label: Option<&'static str>,
}

impl AllocCounts {
    /// `allocs + reallocs`: the heap acquisitions the zero-allocation rule
    /// (the zero-allocation rule) forbids on a steady-state hot path.
    #[must_use]
    pub const fn allocations(&self) -> u64 {
        self.allocs.saturating_add(self.reallocs)
    }

    /// Whether the window saw no allocator call at all (no allocation,
    /// reallocation or deallocation).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.allocs == 0 && self.reallocs == 0 && self.deallocs == 0
    }

    fn merge(&mut self, inner: &Self) {
        if self.allocations() == 0 && inner.allocations() > 0 {
            self.first_label = inner.first_label;
        }
        self.allocs = self.allocs.saturating_add(inner.allocs);
        self.reallocs = self.reallocs.saturating_add(inner.reallocs);
        self.deallocs = self.deallocs.saturating_add(inner.deallocs);
        self.bytes = self.bytes.saturating_add(inner.bytes);
    }
}

/// One thread's watch state. Only `Cell`s of `Copy` data: no drop glue, so
/// the thread-local needs no destructor registration (which could allocate
/// from inside the allocator).
struct ThreadState {
    /// `armed && suspended == 0`: the one flag the allocator reads.
    charging: Cell<bool>,
    armed: Cell<bool>,
    suspended: Cell<u32>,
    counts: Cell<AllocCounts>,
    label: Cell<Option<&'static str>>,
}

impl ThreadState {
    const fn new() -> Self {
        Self {
            charging: Cell::new(false),
            armed: Cell::new(false),
            suspended: Cell::new(0),
            counts: Cell::new(AllocCounts {
                allocs: 0,
                reallocs: 0,
                deallocs: 0,
                bytes: 0,
                first_label: None,
            }),
            label: Cell::new(None),
        }
    }

    fn update_charging(&self) {
        self.charging
            .set(self.armed.get() && self.suspended.get() == 0);
    }
}

thread_local! {
    static STATE: ThreadState = const { ThreadState::new() };
}

// ---- the allocator's side (called from inside `GlobalAlloc` methods) ----

#[inline]
pub(super) fn on_alloc(size: usize) {
    let _ = STATE.try_with(|s| {
        if s.charging.get() {
            let mut c = s.counts.get();
            if c.allocations() == 0 {
                c.first_label = s.label.get();
            }
            c.allocs = c.allocs.saturating_add(1);
            c.bytes = c.bytes.saturating_add(size as u64);
            s.counts.set(c);
        }
    });
}

#[inline]
pub(super) fn on_realloc(new_size: usize) {
    let _ = STATE.try_with(|s| {
        if s.charging.get() {
            let mut c = s.counts.get();
            if c.allocations() == 0 {
                c.first_label = s.label.get();
            }
            c.reallocs = c.reallocs.saturating_add(1);
            c.bytes = c.bytes.saturating_add(new_size as u64);
            s.counts.set(c);
        }
    });
}

#[inline]
pub(super) fn on_dealloc() {
    let _ = STATE.try_with(|s| {
        if s.charging.get() {
            let mut c = s.counts.get();
            c.deallocs = c.deallocs.saturating_add(1);
            s.counts.set(c);
        }
    });
}

// ---- the public API ----

/// Whether [`CountingAlloc`](super::CountingAlloc) is this process's global
/// allocator. Without it every window reads zero, so a zero-allocation
/// check should assert this first.
///
/// The first call probes once (a one-byte allocation inside a private
/// window, leaving the caller's window untouched); the answer is cached.
#[must_use]
pub fn is_installed() -> bool {
    // 0 = unknown, 1 = no, 2 = yes. Relaxed: a cached fact that every
    // thread would compute identically.
    static INSTALLED: AtomicU8 = AtomicU8::new(0);
    match INSTALLED.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let probed = probe();
            INSTALLED.store(if probed { 2 } else { 1 }, Ordering::Relaxed);
            probed
        }
    }
}

/// Allocates one byte inside a private, unsuspended window and reports
/// whether the allocator counted it; the caller's window and suspension
/// are restored.
fn probe() -> bool {
    let saved = save();
    let suspended = STATE.try_with(|s| s.suspended.replace(0)).unwrap_or(0);
    start_window();
    drop(std::hint::black_box(Box::new(0_u8)));
    let probed = current_counts().allocs > 0;
    let _ = STATE.try_with(|s| s.suspended.set(suspended));
    restore(saved);
    probed
}

/// Arms a fresh window on the current thread: counts reset to zero, and
/// every allocator call this thread makes from now on is counted until
/// [`disarm`] (except while [`suspend`]ed). Arming an armed window restarts
/// it. Cost: a few thread-local stores, no allocation.
pub fn arm() {
    let _ = STATE.try_with(|s| {
        s.counts.set(AllocCounts::default());
        s.armed.set(true);
        s.update_charging();
    });
}

/// The current thread's window counts so far (the window stays armed).
/// Zero when no window was armed, or when
/// [`CountingAlloc`](super::CountingAlloc) is not installed.
#[must_use]
pub fn read() -> AllocCounts {
    current_counts()
}

/// Disarms the current thread's window and returns its final counts.
pub fn disarm() -> AllocCounts {
    STATE
        .try_with(|s| {
            s.armed.set(false);
            s.update_charging();
            s.counts.get()
        })
        .unwrap_or_default()
}

/// Whether the current thread has an armed window.
#[must_use]
pub fn is_armed() -> bool {
    STATE.try_with(|s| s.armed.get()).unwrap_or(false)
}

/// Runs `f` inside a fresh window and returns its result with what it
/// counted.
///
/// Windows nest: an enclosing window (from [`arm`] or an outer
/// `count_allocs`) is paused while `f` runs and is then charged with what
/// `f` allocated, so the outer window still sees everything inside it. The
/// enclosing state is restored even if `f` panics. Inside a [`suspend`],
/// nothing is counted.
///
/// ```
/// use laige_core::alloc_watch;
///
/// let (sum, counts) = alloc_watch::count_allocs(|| (1..=10).sum::<u32>());
/// assert_eq!(sum, 55);
/// assert_eq!(counts.allocations(), 0);
/// ```
pub fn count_allocs<R>(f: impl FnOnce() -> R) -> (R, AllocCounts) {
    struct Restore(Option<Saved>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(saved) = self.0.take() {
                let inner = current_counts();
                restore(saved);
                charge_outer(&inner);
            }
        }
    }
    let mut guard = Restore(Some(save()));
    start_window();
    let result = f();
    let inner = current_counts();
    if let Some(saved) = guard.0.take() {
        restore(saved);
    }
    charge_outer(&inner);
    (result, inner)
}

/// Sets the current thread's attribution label until the guard drops (then
/// the previous label is back). A window reports the label current at its
/// first allocation as [`AllocCounts::first_label`]: set it to the running
/// system's or stage's name. Cost: two thread-local accesses.
///
/// ```
/// use laige_core::alloc_watch;
///
/// let outer = alloc_watch::label("physics");
/// {
///     let _inner = alloc_watch::label("physics/broadphase");
///     assert_eq!(alloc_watch::current_label(), Some("physics/broadphase"));
/// }
/// assert_eq!(alloc_watch::current_label(), Some("physics"));
/// drop(outer);
/// assert_eq!(alloc_watch::current_label(), None);
/// ```
#[must_use = "the label is cleared again when the guard drops"]
pub fn label(name: &'static str) -> LabelGuard {
    let previous = STATE
        .try_with(|s| s.label.replace(Some(name)))
        .unwrap_or(None);
    LabelGuard {
        previous,
        _not_send: PhantomData,
    }
}

/// The current thread's attribution label, if any.
#[must_use]
pub fn current_label() -> Option<&'static str> {
    STATE.try_with(|s| s.label.get()).unwrap_or(None)
}

/// Stops charging the current thread's window until the guard drops.
///
/// This is the attribution rule: work done on behalf of the diagnostics
/// (formatting an event, registering a rate-limit key, the summary) is the
/// diagnostics' own, not the watched code's, so
/// [`event!`](crate::event!), [`report`](crate::diag::report) and the
/// summary run suspended. Suspensions nest. Cost: two thread-local
/// accesses.
#[must_use = "the suspension ends when the guard drops"]
pub fn suspend() -> SuspendGuard {
    let _ = STATE.try_with(|s| {
        s.suspended.set(s.suspended.get().saturating_add(1));
        s.update_charging();
    });
    SuspendGuard {
        _not_send: PhantomData,
    }
}

/// Restores the previous attribution label when dropped (see [`label`]).
/// Not `Send`: the label belongs to the thread that set it.
#[derive(Debug)]
pub struct LabelGuard {
    previous: Option<&'static str>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for LabelGuard {
    fn drop(&mut self) {
        let _ = STATE.try_with(|s| s.label.set(self.previous));
    }
}

/// Ends one level of suspension when dropped (see [`suspend`]).
/// Not `Send`: the suspension belongs to the thread that started it.
#[derive(Debug)]
pub struct SuspendGuard {
    _not_send: PhantomData<*const ()>,
}

impl Drop for SuspendGuard {
    fn drop(&mut self) {
        let _ = STATE.try_with(|s| {
            s.suspended.set(s.suspended.get().saturating_sub(1));
            s.update_charging();
        });
    }
}

// ---- helpers ----

/// The window part of the state (labels and suspension are scoped by their
/// own guards and left alone).
#[derive(Clone, Copy)]
struct Saved {
    armed: bool,
    counts: AllocCounts,
}

fn save() -> Saved {
    STATE
        .try_with(|s| Saved {
            armed: s.armed.get(),
            counts: s.counts.get(),
        })
        .unwrap_or(Saved {
            armed: false,
            counts: AllocCounts::default(),
        })
}

fn restore(saved: Saved) {
    let _ = STATE.try_with(|s| {
        s.armed.set(saved.armed);
        s.counts.set(saved.counts);
        s.update_charging();
    });
}

fn start_window() {
    arm();
}

fn current_counts() -> AllocCounts {
    STATE.try_with(|s| s.counts.get()).unwrap_or_default()
}

/// Adds a nested window's counts to the restored enclosing window, if armed.
fn charge_outer(inner: &AllocCounts) {
    let _ = STATE.try_with(|s| {
        if s.armed.get() {
            let mut outer = s.counts.get();
            outer.merge(inner);
            s.counts.set(outer);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    // These tests run without `CountingAlloc` installed (the unit-test
    // binary uses the default allocator); the counting itself is proven by
    // the integration tests, which install it. Here: the state machine.

    #[test]
    fn counts_are_charged_only_while_armed_and_not_suspended() {
        arm();
        on_alloc(16);
        {
            let _s = suspend();
            on_alloc(1000);
            on_dealloc();
            {
                let _nested = suspend();
                on_alloc(1000);
            }
            on_realloc(1000);
        }
        on_realloc(32);
        on_dealloc();
        let counts = disarm();
        assert_eq!(
            counts,
            AllocCounts {
                allocs: 1,
                reallocs: 1,
                deallocs: 1,
                bytes: 48,
                first_label: None
            }
        );
        on_alloc(8);
        assert_eq!(read(), counts);
        assert!(!is_armed());
    }

    #[test]
    fn the_first_allocation_fixes_the_label() {
        arm();
        on_dealloc();
        let first = label("first");
        on_alloc(1);
        drop(first);
        let _second = label("second");
        on_alloc(1);
        assert_eq!(disarm().first_label, Some("first"));
    }

    #[test]
    fn a_realloc_can_be_the_first_allocation() {
        arm();
        let _l = label("grow");
        on_realloc(64);
        let c = disarm();
        assert_eq!((c.reallocs, c.bytes, c.first_label), (1, 64, Some("grow")));
        assert_eq!(c.allocations(), 1);
    }

    #[test]
    fn rearming_restarts_the_window() {
        arm();
        on_alloc(4);
        arm();
        assert_eq!(read(), AllocCounts::default());
        assert!(disarm().is_empty());
    }

    #[test]
    fn nested_windows_charge_the_enclosing_one() {
        arm();
        on_dealloc();
        let ((), inner) = count_allocs(|| {
            let _l = label("inner");
            on_alloc(10);
        });
        assert_eq!((inner.allocs, inner.first_label), (1, Some("inner")));
        on_alloc(5);
        let outer = disarm();
        assert_eq!(
            (outer.allocs, outer.deallocs, outer.bytes, outer.first_label),
            (2, 1, 15, Some("inner"))
        );
    }

    #[test]
    fn an_unarmed_caller_stays_unarmed_after_count_allocs() {
        let ((), _) = count_allocs(|| on_alloc(1));
        assert!(!is_armed());
        assert_eq!(read(), AllocCounts::default());
    }

    #[test]
    fn a_panicking_closure_restores_the_enclosing_window() {
        arm();
        on_alloc(1);
        let caught = std::panic::catch_unwind(|| {
            count_allocs(|| {
                on_alloc(2);
                panic!("boom");
            })
        });
        assert!(caught.is_err());
        assert!(is_armed());
        // The inner allocation and whatever the panic machinery allocated
        // are charged to the outer window.
        let outer = disarm();
        assert!(outer.allocs >= 2, "{outer:?}");
    }

    #[test]
    fn labels_nest_and_restore() {
        assert_eq!(current_label(), None);
        let a = label("a");
        let b = label("b");
        assert_eq!(current_label(), Some("b"));
        drop(b);
        assert_eq!(current_label(), Some("a"));
        drop(a);
        assert_eq!(current_label(), None);
    }

    #[test]
    fn without_the_counting_allocator_nothing_is_installed() {
        assert!(!is_installed());
        assert!(!is_installed());
    }

    #[test]
    fn the_probe_restores_the_callers_window_and_suspension() {
        arm();
        on_alloc(3);
        let s = suspend();
        assert!(!probe());
        assert!(is_armed());
        // Still suspended: not charged.
        on_alloc(100);
        drop(s);
        assert_eq!((read().allocs, read().bytes), (1, 3));
        disarm();
    }

    #[test]
    fn public_types_are_send_and_sync_where_expected() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<AllocCounts>();
        send_sync::<super::super::CountingAlloc>();
    }
}
