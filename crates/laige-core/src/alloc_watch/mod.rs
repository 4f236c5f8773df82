//! The allocation watch: per-thread counting of heap traffic, to prove
//! that hot paths (a tick, a frame, a publish) allocate nothing — the
//! zero-allocation check of the game loop (a tick must not allocate).
//!
//! - [`CountingAlloc`] wraps [`std::alloc::System`]; a binary or test opts
//!   in with one `#[global_allocator]` line. [`is_installed`] says whether
//!   it is.
//! - A **window** counts the current thread's allocations, reallocations,
//!   deallocations and bytes: [`arm`] / [`read`] / [`disarm`], or the
//!   scoped [`count_allocs`].
//! - **Attribution**: [`label`] sets a cheap `&'static str` label (the
//!   running system's name); a window reports the label current at its
//!   first allocation ([`AllocCounts::first_label`]) — the "first offending
//!   site".
//! - **The diagnostics' own allocations are not charged**: [`suspend`]
//!   excludes a scope; the [`event!`](crate::event!) emit path,
//!   [`report`](crate::diag::report) and the rate-limit summary run
//!   suspended, so a documented in-tick degradation logs without tripping
//!   the check.
//!
//! Cost with no window armed: one thread-local flag read per allocator
//! call. The full contract is the `laige_core::alloc_watch` docs.
//!
//! ```
//! use laige_core::alloc_watch::{self, CountingAlloc};
//!
//! #[global_allocator]
//! static ALLOC: CountingAlloc = CountingAlloc::new();
//!
//! fn main() {
//!     let (_, quiet) = alloc_watch::count_allocs(|| 2 + 2);
//!     assert_eq!(quiet.allocations(), 0);
//!
//!     let (v, noisy) = alloc_watch::count_allocs(|| {
//!         let _site = alloc_watch::label("scratch_system");
//!         vec![1_u32, 2, 3]
//!     });
//!     assert_eq!(noisy.allocs, 1);
//!     assert_eq!(noisy.first_label, Some("scratch_system"));
//!     drop(v);
//! }
//! ```
//!
#![doc = include_str!("contract.md")]

mod allocator;
mod window;

pub use allocator::CountingAlloc;
pub use window::{
    AllocCounts, LabelGuard, SuspendGuard, arm, count_allocs, current_label, disarm, is_armed,
    is_installed, label, read, suspend,
};
