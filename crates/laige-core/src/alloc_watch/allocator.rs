//! [`CountingAlloc`]: the global allocator wrapper that feeds the watch.

#![allow(
    unsafe_code,
    reason = "implementing GlobalAlloc is unsafe by definition; every method forwards to \
              std::alloc::System under the caller's unchanged contract"
)]

use std::alloc::{GlobalAlloc, Layout, System};

use super::window;

/// A global allocator over [`std::alloc::System`] that counts the current
/// thread's allocations, reallocations, deallocations and bytes while an
/// allocation-watch window is armed on that thread.
///
/// A binary or test opts in with one line:
///
/// ```
/// #[global_allocator]
/// static ALLOC: laige_core::alloc_watch::CountingAlloc =
///     laige_core::alloc_watch::CountingAlloc::new();
///
/// fn main() {
///     assert!(laige_core::alloc_watch::is_installed());
/// }
/// ```
///
/// Cost: every allocator call forwards to `System` and then reads one
/// thread-local flag; only when the thread has an armed, unsuspended window
/// does it also bump a few thread-local counters (plain `Cell`s: no atomics,
/// no locks). The thread-local state is `const`-initialised and has no
/// destructor, so the allocator never allocates or registers anything
/// itself and is safe to call during thread start-up and teardown.
/// Only successful calls are counted (a null return is not).
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingAlloc {
    _private: (),
}

impl CountingAlloc {
    /// The allocator (usable in the `#[global_allocator]` static).
    #[must_use]
    pub const fn new() -> Self {
        Self { _private: () }
    }
}

// SAFETY: every method delegates to `System`, which upholds the
// `GlobalAlloc` contract; the counting around it touches only the calling
// thread's const-initialised, destructor-free thread-local `Cell`s, which
// neither allocate nor unwind.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: our caller guarantees `layout` has non-zero size, the one
        // precondition of `GlobalAlloc::alloc`; it is passed on unchanged.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            window::on_alloc(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`: the caller's non-zero-size `layout`,
        // unchanged.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            window::on_alloc(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: our caller guarantees `ptr` was allocated by this
        // allocator — i.e. by `System`, to which every allocation is
        // forwarded — with this same `layout`.
        unsafe { System.dealloc(ptr, layout) };
        window::on_dealloc();
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: our caller guarantees `ptr` is a live `System` allocation
        // (every allocation is forwarded to `System`) of `layout`, and that
        // `new_size` is non-zero and does not overflow when rounded to
        // `layout.align()`; all passed on unchanged.
        let new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if !new_ptr.is_null() {
            window::on_realloc(new_size);
        }
        new_ptr
    }
}
