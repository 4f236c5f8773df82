//! The bounded, ordered queue of pending and delivered input events a world
//! owns.

use std::collections::VecDeque;
use std::fmt;

use laige_core::{Error, ErrorCode, Result, event};

use super::event::{InputEvent, InputKind, InputStamp};
use crate::events::{CAPACITY_INVALID, QUEUE_OVERFLOW};

/// Default pending-event capacity: 1024. A 1000 Hz mouse produces ~17
/// events per 60 Hz frame and a fast typist ~20 keys per second, so 1024
/// holds about a second of continuous pointer motion while the loop is
/// paused (no tick drains the queue then) — and costs 2 × 1024 × 40 bytes
/// (pending + delivered buffers).
pub const DEFAULT_INPUT_CAPACITY: usize = 1024;
/// Largest accepted capacity: 2^20 events (40 MiB per buffer).
pub const MAX_INPUT_CAPACITY: usize = 1 << 20;

/// The queue's since-construction counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct InputStats {
    /// Events accepted by a push.
    pub pushed: u64,
    /// Events delivered to a tick.
    pub delivered: u64,
    /// Events delivered after the tick of their interval (stamped late, or
    /// queued for a tick that had passed).
    pub late: u64,
    /// Pushes rejected because the queue was full.
    pub overflowed: u64,
    /// The most events pending at once.
    pub peak_pending: usize,
}

/// The bounded, ordered queue of input events of one world (see the module
/// docs). Owned by the [`World`](crate::World): push through
/// [`World::input_mut`](crate::World::input_mut) or
/// [`GameLoop::push_input`](crate::GameLoop::push_input).
///
/// ```
/// use laige_sim::input::{InputKind, InputQueue, InputStamp};
///
/// let mut q = InputQueue::default();
/// let jump = InputKind::Action { id: 1, value: 1 };
/// q.push(InputStamp { tick: 2, time_ns: 40_000_000, late: false }, jump)?;
/// q.deliver(1);
/// assert!(q.delivered().is_empty()); // not yet: it belongs to tick 2
/// q.deliver(2);
/// assert_eq!(q.delivered()[0].kind, jump);
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone)]
pub struct InputQueue {
    pending: VecDeque<InputEvent>,
    delivered: Vec<InputEvent>,
    delivered_tick: Option<u64>,
    capacity: usize,
    next_seq: u64,
    stats: InputStats,
}

impl Default for InputQueue {
    /// An empty queue of [`DEFAULT_INPUT_CAPACITY`] (storage reserved at the
    /// first push).
    fn default() -> Self {
        Self {
            pending: VecDeque::new(),
            delivered: Vec::new(),
            delivered_tick: None,
            capacity: DEFAULT_INPUT_CAPACITY,
            next_seq: 0,
            stats: InputStats::default(),
        }
    }
}

impl fmt::Debug for InputQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputQueue")
            .field("capacity", &self.capacity)
            .field("pending", &self.pending.len())
            .field("delivered_tick", &self.delivered_tick)
            .field("delivered", &self.delivered.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl InputQueue {
    /// An empty queue holding at most `capacity` pending events.
    ///
    /// # Errors
    /// `input/capacity_invalid` (InvalidArgument) outside
    /// `1..=MAX_INPUT_CAPACITY`.
    pub fn with_capacity(capacity: usize) -> Result<Self> {
        let mut q = Self::default();
        q.set_capacity(capacity)?;
        Ok(q)
    }

    /// Changes the capacity (a cold call: reserves the storage now).
    ///
    /// # Errors
    /// `input/capacity_invalid` (InvalidArgument, after one rate-limited
    /// warn) outside `1..=MAX_INPUT_CAPACITY` or below the events pending
    /// now; nothing changes then.
    pub fn set_capacity(&mut self, capacity: usize) -> Result<()> {
        let floor = self.pending.len().max(1);
        if !(floor..=MAX_INPUT_CAPACITY).contains(&capacity) {
            return Err(laige_core::diag::reported(Error::invalid_argument(
                CAPACITY_INVALID,
                "input_capacity",
                capacity,
                format!("{floor}..={MAX_INPUT_CAPACITY} events (at least the events pending)"),
            )));
        }
        self.capacity = capacity;
        self.pending.shrink_to(capacity);
        self.pending
            .reserve_exact(capacity.saturating_sub(self.pending.len()));
        self.delivered.shrink_to(capacity);
        self.delivered
            .reserve_exact(capacity.saturating_sub(self.delivered.len()));
        Ok(())
    }

    /// The most events that can be pending at once.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Queues `kind` for `stamp.tick` with `stamp.time_ns`; returns its
    /// sequence number. O(1) for events pushed in order, O(pending) when
    /// inserted before later ones; no allocation after the first push.
    ///
    /// # Errors
    /// `input/queue_overflow` (OutOfRange) when `capacity` events are
    /// pending: the event is rejected, counted and reported (one
    /// rate-limited Warn).
    pub fn push(&mut self, stamp: InputStamp, kind: InputKind) -> Result<u64> {
        if self.pending.len() >= self.capacity {
            return Err(self.overflow(stamp.tick));
        }
        if self.pending.capacity() < self.capacity {
            self.reserve();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let ev = InputEvent {
            tick: stamp.tick,
            time_ns: stamp.time_ns,
            seq,
            kind,
        };
        let key = (ev.tick, ev.time_ns);
        if self
            .pending
            .back()
            .is_none_or(|b| (b.tick, b.time_ns) <= key)
        {
            self.pending.push_back(ev);
        } else {
            let at = self.pending.partition_point(|e| (e.tick, e.time_ns) <= key);
            self.pending.insert(at, ev);
        }
        self.stats.pushed += 1;
        self.stats.late += u64::from(stamp.late);
        self.stats.peak_pending = self.stats.peak_pending.max(self.pending.len());
        Ok(seq)
    }

    /// Queues `kind` for an explicit tick (scripted input, a replay):
    /// [`push`](Self::push) with a stamp that is not late.
    ///
    /// # Errors
    /// As [`push`](Self::push).
    pub fn push_at(&mut self, tick: u64, time_ns: i64, kind: InputKind) -> Result<u64> {
        self.push(
            InputStamp {
                tick,
                time_ns,
                late: false,
            },
            kind,
        )
    }

    #[cold]
    fn reserve(&mut self) {
        self.pending
            .reserve_exact(self.capacity.saturating_sub(self.pending.len()));
        self.delivered
            .reserve_exact(self.capacity.saturating_sub(self.delivered.len()));
    }

    #[cold]
    fn overflow(&mut self, tick: u64) -> Error {
        self.stats.overflowed += 1;
        let capacity = self.capacity;
        let overflowed = self.stats.overflowed;
        event!(Warn, QUEUE_OVERFLOW, capacity, overflowed, tick);
        Error::new(ErrorCode::OutOfRange, QUEUE_OVERFLOW)
            .with_field("input_queue")
            .with_value(format!("{capacity} events pending"))
            .with_accepted(format!("at most {capacity} pending events"))
            .with_detail("the event was rejected; raise the capacity or deliver (tick) more often")
    }

    /// Delivers tick `tick`: moves every pending event with `tick ≤ tick`
    /// into [`delivered`](Self::delivered), stamped with `tick` and ordered
    /// by (time, sequence). Called by the world at the start of each tick
    /// (before the first system); call it yourself only when driving a
    /// queue without a world. Re-delivering the same tick (a failed tick run
    /// again) keeps what was delivered and adds what is newly due. No
    /// allocation.
    pub fn deliver(&mut self, tick: u64) {
        if self.delivered_tick != Some(tick) {
            self.delivered.clear();
            self.delivered_tick = Some(tick);
        }
        let before = self.delivered.len();
        while self.delivered.len() < self.capacity {
            match self.pending.front() {
                Some(front) if front.tick <= tick => {}
                _ => break,
            }
            let Some(mut ev) = self.pending.pop_front() else {
                break;
            };
            if ev.tick < tick {
                self.stats.late += 1;
                ev.tick = tick;
            }
            self.delivered.push(ev);
        }
        let added = self.delivered.len() - before;
        if added > 0 {
            self.stats.delivered += added as u64;
            let key = |e: &InputEvent| (e.time_ns, e.seq);
            if !self.delivered.is_sorted_by_key(key) {
                self.delivered.sort_unstable_by_key(key);
            }
        }
    }

    /// The events delivered to the last delivered tick, in delivery order
    /// — what the systems saw ([`SystemContext::input`](crate::SystemContext::input)).
    /// After a completed tick (in `on_tick`) these are the events of tick
    /// `world.tick() − 1`: the record a replay stores.
    #[must_use]
    pub fn delivered(&self) -> &[InputEvent] {
        &self.delivered
    }

    /// The tick [`delivered`](Self::delivered) belongs to (`None` before the
    /// first tick).
    #[must_use]
    pub fn delivered_tick(&self) -> Option<u64> {
        self.delivered_tick
    }

    /// Events waiting for their tick.
    #[must_use]
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The pending events in delivery order.
    pub fn pending(&self) -> impl ExactSizeIterator<Item = &InputEvent> + '_ {
        self.pending.iter()
    }

    /// The counters.
    #[must_use]
    pub fn stats(&self) -> InputStats {
        self.stats
    }

    /// Drops every pending event (counted nowhere: an explicit reset, e.g.
    /// before loading a replay). Delivered events and counters are kept.
    pub fn clear_pending(&mut self) {
        self.pending.clear();
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn act(id: u32) -> InputKind {
        InputKind::Action { id, value: 0 }
    }

    fn stamp(tick: u64, time_ns: i64) -> InputStamp {
        InputStamp {
            tick,
            time_ns,
            late: false,
        }
    }

    #[test]
    fn delivery_order_is_tick_time_sequence() {
        let mut q = InputQueue::default();
        q.push(stamp(1, 30), act(1)).unwrap();
        q.push(stamp(0, 10), act(2)).unwrap();
        q.push(stamp(1, 20), act(3)).unwrap();
        q.push(stamp(1, 20), act(4)).unwrap(); // same time: push order
        q.push(stamp(0, 5), act(5)).unwrap();
        q.deliver(0);
        let ids: Vec<_> = q.delivered().iter().map(|e| e.kind).collect();
        assert_eq!(ids, [act(5), act(2)]);
        q.deliver(1);
        let ids: Vec<_> = q.delivered().iter().map(|e| e.kind).collect();
        assert_eq!(ids, [act(3), act(4), act(1)]);
        assert!(q.delivered().iter().all(|e| e.tick == 1));
        assert_eq!(q.stats().delivered, 5);
    }

    #[test]
    fn past_ticks_are_delivered_next_and_counted_late() {
        let mut q = InputQueue::default();
        q.deliver(0);
        q.deliver(1);
        q.push_at(0, 100, act(1)).unwrap(); // tick 0 already went by
        q.push_at(2, 5, act(2)).unwrap();
        q.deliver(2);
        let got: Vec<_> = q.delivered().iter().map(|e| (e.tick, e.kind)).collect();
        // The late event keeps its time (100) and sorts by it within tick 2.
        assert_eq!(got, [(2, act(2)), (2, act(1))]);
        assert_eq!(q.stats().late, 1);
    }

    #[test]
    fn redelivering_a_failed_tick_keeps_its_events() {
        let mut q = InputQueue::default();
        q.push_at(3, 0, act(1)).unwrap();
        q.deliver(3);
        q.push_at(3, 1, act(2)).unwrap();
        q.deliver(3); // the same tick again (it failed the first time)
        assert_eq!(q.delivered().len(), 2);
        q.deliver(4);
        assert!(q.delivered().is_empty());
        assert_eq!(q.delivered_tick(), Some(4));
    }

    #[test]
    fn overflow_is_rejected_counted_and_never_grows() {
        let mut q = InputQueue::with_capacity(2).unwrap();
        q.push_at(0, 0, act(1)).unwrap();
        q.push_at(0, 0, act(2)).unwrap();
        let err = q.push_at(0, 0, act(3)).unwrap_err();
        assert_eq!(err.id(), QUEUE_OVERFLOW);
        assert_eq!(err.code(), ErrorCode::OutOfRange);
        assert_eq!(q.stats().overflowed, 1);
        assert_eq!(q.pending_len(), 2);
        assert_eq!(q.capacity(), 2);
        q.deliver(0);
        assert_eq!(q.delivered().len(), 2);
        q.push_at(1, 0, act(4)).unwrap(); // room again
    }

    #[test]
    fn capacity_is_validated() {
        assert_eq!(
            InputQueue::with_capacity(0).unwrap_err().id(),
            CAPACITY_INVALID
        );
        assert!(InputQueue::with_capacity(MAX_INPUT_CAPACITY + 1).is_err());
        let mut q = InputQueue::with_capacity(4).unwrap();
        for i in 0..3 {
            q.push_at(0, 0, act(i)).unwrap();
        }
        let err = q.set_capacity(2).unwrap_err();
        assert_eq!(err.field(), Some("input_capacity"));
        assert_eq!(q.capacity(), 4);
        q.set_capacity(3).unwrap();
    }
}
