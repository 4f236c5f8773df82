//! The one loom switch: every synchronization primitive the frame pipeline
//! uses comes from here, so the same code runs on `std` in builds and on
//! [loom](https://docs.rs/loom)'s model checker under `--cfg loom`
//! (the crossbeam-utils `primitive` / tokio `src/loom` pattern).
//!
//! `UnsafeCell` is the one shape difference between the two: loom's cell
//! hands out tracked guards (`ConstPtr` / `MutPtr`) so the model checker sees
//! every read and write of the payload buffers for as long as a guard lives.
//! The `std` build gets the same API as zero-cost wrappers around raw
//! pointers.

#![allow(
    unsafe_code,
    reason = "the std twin of loom's UnsafeCell guards dereferences raw pointers"
)]

#[cfg(loom)]
pub(crate) use loom::cell::{ConstPtr, MutPtr, UnsafeCell};
#[cfg(loom)]
pub(crate) use loom::hint::spin_loop;
#[cfg(loom)]
pub(crate) use loom::sync::Arc;
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU64, Ordering};
#[cfg(loom)]
pub(crate) use loom::thread::yield_now;

#[cfg(not(loom))]
pub(crate) use std::hint::spin_loop;
#[cfg(not(loom))]
pub(crate) use std::sync::Arc;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;

#[cfg(not(loom))]
pub(crate) use self::std_cell::{ConstPtr, MutPtr, UnsafeCell};

#[cfg(not(loom))]
mod std_cell {
    /// `std::cell::UnsafeCell` with loom's guard API.
    #[derive(Debug)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    /// A shared-access pointer into an [`UnsafeCell`] (loom tracks it; std
    /// does not).
    #[derive(Debug)]
    pub(crate) struct ConstPtr<T>(*const T);

    /// An exclusive-access pointer into an [`UnsafeCell`].
    #[derive(Debug)]
    pub(crate) struct MutPtr<T>(*mut T);

    impl<T> UnsafeCell<T> {
        pub(crate) fn new(value: T) -> Self {
            Self(std::cell::UnsafeCell::new(value))
        }

        pub(crate) fn get(&self) -> ConstPtr<T> {
            ConstPtr(self.0.get())
        }

        pub(crate) fn get_mut(&self) -> MutPtr<T> {
            MutPtr(self.0.get())
        }
    }

    impl<T> ConstPtr<T> {
        /// # Safety
        /// No `&mut T` to the cell's value may exist while the returned
        /// reference lives (the caller's protocol guarantees it).
        pub(crate) unsafe fn deref(&self) -> &T {
            // SAFETY: the pointer comes from a live `UnsafeCell` (the guard
            // borrows the owner of the cell), and the caller guarantees the
            // absence of a concurrent writer.
            unsafe { &*self.0 }
        }
    }

    impl<T> MutPtr<T> {
        /// # Safety
        /// No other reference to the cell's value may exist while the
        /// returned reference lives (the caller's protocol guarantees it).
        #[expect(
            clippy::mut_from_ref,
            reason = "loom's MutPtr::deref has this exact signature; exclusivity is the caller's protocol"
        )]
        pub(crate) unsafe fn deref(&self) -> &mut T {
            // SAFETY: the pointer comes from a live `UnsafeCell`, and the
            // caller guarantees exclusive access.
            unsafe { &mut *self.0 }
        }
    }
}
