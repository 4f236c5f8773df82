//! Per-frame bulk data: a pool of three reusable `Vec<T>` buffers that ride
//! the frame handoff.
//!
//! A [`FrameDescriptor`](crate::FrameDescriptor) is 32 bytes; a frame's
//! sprite instances are kilobytes to megabytes. They travel in a
//! `PayloadPool` of exactly **three** buffers, each owned by exactly one
//! party at every instant:
//!
//! | buffer role | owner | access |
//! |---|---|---|
//! | *write* | the producer | `&mut Vec<T>` through [`PayloadWriter`] |
//! | *back* | the handoff's state word | nobody (it is the pending frame's buffer, or a free one) |
//! | *front* | the consumer | `&[T]` through [`Frame::payload`](crate::handoff::Frame::payload) |
//!
//! Three suffices for one producer + one pending frame + one in-flight frame.
//! Ownership moves only by the handoff's atomic operations on its state word
//! (the triple-buffer exchange, see [`crate::handoff`]):
//!
//! - **publish** swaps *write* into *back* and takes the old *back* as the
//!   new *write*: either the buffer the consumer released at its last claim,
//!   or — when the pending frame was dropped — the dropped frame's own
//!   buffer, which the consumer never saw. Either way it is recycled,
//!   cleared (`Vec::clear`, capacity kept), and written next.
//! - **claim** swaps *front* (the previous, finished frame's buffer) into
//!   *back* and takes the pending frame's buffer as the new *front*.
//!
//! A buffer index therefore never names a buffer that two parties hold, so
//! `&mut` (producer) and `&` (consumer) never alias: no data race, no lock.
//! In the steady state nothing allocates: the buffers keep their capacity,
//! and after the first few frames each has grown to the largest frame it
//! carried ([`HandoffConfig::payload_capacity`](crate::handoff::HandoffConfig)
//! preallocates them so that even the first frames do not allocate).
//!
//! Why the buffer index rides in the state word and not in the
//! [`FrameDescriptor`](crate::FrameDescriptor): the consumer must take
//! ownership of the pending buffer *in the same atomic operation* that
//! decides "claimed, not dropped" — a separate word would let the producer
//! recycle a buffer the consumer had just read the index of. The
//! descriptor carries only the frame's facts (index, tick, time, alpha).

#![allow(
    unsafe_code,
    reason = "the pool hands out &mut / & to UnsafeCell buffers; ownership is the handoff protocol's"
)]

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use crate::sync::{ConstPtr, MutPtr, UnsafeCell};

/// The number of payload buffers: one written by the producer, one pending
/// in the slot, one being rendered.
pub const PAYLOAD_BUFFERS: usize = 3;

/// The three buffers. Which party may touch which buffer is decided by the
/// handoff protocol (crate-internal: the safe API is [`PayloadWriter`] and
/// [`Frame::payload`](crate::handoff::Frame::payload)).
pub(crate) struct PayloadPool<T> {
    buffers: [UnsafeCell<Vec<T>>; PAYLOAD_BUFFERS],
}

impl<T> PayloadPool<T> {
    /// Three buffers with `capacity` elements reserved each.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self {
            buffers: std::array::from_fn(|_| UnsafeCell::new(Vec::with_capacity(capacity))),
        }
    }

    /// A tracked shared pointer to buffer `idx`.
    pub(crate) fn read(&self, idx: usize) -> ConstPtr<Vec<T>> {
        self.buffers[idx].get()
    }

    /// A tracked exclusive pointer to buffer `idx`.
    pub(crate) fn write(&self, idx: usize) -> MutPtr<Vec<T>> {
        self.buffers[idx].get_mut()
    }
}

/// The producer's exclusive view of its current write buffer: a `Vec<T>`
/// (through `Deref`/`DerefMut`) that the next
/// [`Producer::publish`](crate::handoff::Producer::publish) hands to the
/// consumer.
///
/// The buffer arrives empty after each publish (recycled, capacity kept), so
/// fill it with `push`/`extend`; `clear()` is harmless. Growing past the
/// buffer's capacity allocates, as any `Vec` does; keep a steady maximum and
/// the pipeline stops allocating after the first frames.
///
/// ```
/// use laige_render::FrameDescriptor;
/// use laige_render::handoff::{handoff, HandoffConfig};
///
/// let (mut tx, mut rx) = handoff::<u32>(HandoffConfig { payload_capacity: 16 });
/// {
///     let mut w = tx.writer();
///     w.clear();
///     w.extend([1, 2, 3]);
/// } // the writer's borrow of the producer ends here
/// let _ = tx.publish(FrameDescriptor { frame_index: 1, ..FrameDescriptor::default() });
/// let frame = rx.try_claim().expect("one frame is pending");
/// assert_eq!(frame.payload(), &[1, 2, 3]);
/// ```
pub struct PayloadWriter<'a, T> {
    ptr: MutPtr<Vec<T>>,
    // Borrows the producer mutably: no publish while a writer lives.
    _producer: PhantomData<&'a mut Vec<T>>,
}

impl<'a, T> PayloadWriter<'a, T> {
    /// Wraps the producer's write-buffer pointer; the caller (the producer)
    /// lends itself mutably for `'a`.
    pub(crate) fn new(ptr: MutPtr<Vec<T>>) -> Self {
        Self {
            ptr,
            _producer: PhantomData,
        }
    }
}

impl<T> Deref for PayloadWriter<'_, T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        // SAFETY: protocol state "write buffer": the index this pointer was
        // made from is the producer's `write_idx`, which is in neither the
        // state word (back) nor the consumer's `front_idx`; only the producer
        // touches it, and the producer is mutably borrowed for the writer's
        // lifetime.
        unsafe { self.ptr.deref() }
    }
}

impl<T> DerefMut for PayloadWriter<'_, T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        // SAFETY: as in `deref`: the write buffer is the producer's alone,
        // and `&mut self` makes this the only live reference into it.
        unsafe { self.ptr.deref() }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for PayloadWriter<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayloadWriter")
            .field("buffer", &**self)
            .finish()
    }
}
