//! Input: timestamped events, assigned to the tick they fall in and
//! delivered to the systems at the start of that tick, in a deterministic
//! order.
//!
//! ```text
//!  platform / script                 GameLoop::input_stamp(reading)         World::run_tick(T)
//!  key, mouse, action ──stamp──► InputStamp { tick, time_ns, late } ──push──► InputQueue ──deliver(T)──► ctx.input()
//!                                 (the loop's exact integer time→tick map)   pending, sorted    (tick, time, seq)
//! ```
//!
//! # Which tick an event belongs to
//!
//! An event is stamped with a reading of the loop's monotonic clock
//! ([`GameLoop::input_stamp`](crate::GameLoop::input_stamp)). The reading
//! becomes **running time** `t` — nanoseconds since the loop started, with
//! every paused span removed (the same base the due computation uses) — and
//! `t` lies in exactly one slot of the tick grid:
//!
//! ```text
//! slot(t) = floor(t × tick_rate_hz / 10⁹)      (laige_core::RateGrid::index_at: exact integers)
//! ```
//!
//! Slot `k` is the interval `[k·P, (k+1)·P)` of running time (`P` = one tick
//! period); it is simulated by the tick that consumes slot `k`. With
//! `consumed` the slots already run or dropped and `next` the next tick
//! number to run (`World::tick()`):
//!
//! * `slot ≥ consumed` → the event belongs to tick `next + (slot − consumed)`.
//!   In a healthy run (no drops, no single steps) that is tick `slot` itself.
//! * `slot < consumed` (the interval's tick already ran, or was dropped by
//!   the catch-up bound) → the event is **late**: it belongs to `next`, the
//!   next tick to run, keeps its real timestamp (so it sorts before that
//!   tick's on-time events) and is counted in [`InputStats::late`]. Late
//!   events are never dropped and never re-ordered before events already
//!   delivered.
//! * Before the loop has started, every event belongs to the first tick.
//! * **While paused**, running time stands still at the pause instant: an
//!   event stamped during a pause gets that instant as its time and belongs
//!   to the next tick that runs — a single step's, or the first after
//!   resuming.
//!
//! A tick delivered as scheduled runs at a frame whose reading is past the
//! end of its interval, so an event is never delivered before it happened.
//! Under overload (ticks dropped by the catch-up bound) and after single
//! steps, tick numbers and grid slots drift apart by the drops and steps;
//! the assignment above is still exact and deterministic, and the tick an
//! event was delivered at is what a replay records.
//!
//! # Delivery and order
//!
//! [`World::run_tick`](crate::World::run_systems) delivers, after
//! validating the schedule and before the first system runs, every pending
//! event whose tick is `≤` the tick being computed (an event queued for a
//! tick that has passed — e.g. pushed with an explicit past tick — is
//! delivered now and counted late). Delivered events carry the tick they
//! were delivered at and are ordered by **(tick, time, sequence)**; the
//! sequence number is the queue's push counter, so equal timestamps keep
//! push order. Every system of the tick sees the same slice through
//! [`SystemContext::input`](crate::SystemContext::input); after the tick it
//! stays readable through [`InputQueue::delivered`] — the per-tick record a
//! replay stores (read it from a `LoopHooks::on_tick` hook) and feeds back
//! with [`InputQueue::push_at`]. A failed tick that is run again keeps its
//! delivered events (and adds any newly due ones).
//!
//! # Capacity
//!
//! The queue holds at most [`InputQueue::capacity`] pending events (default
//! [`DEFAULT_INPUT_CAPACITY`]). Storage for that many is reserved at the
//! first push; after it no push and no delivery allocates. A push into a
//! full queue is rejected: counted in [`InputStats::overflowed`], reported
//! by one rate-limited `input/queue_overflow` Warn, and returned as an
//! error — never a silent drop, never growth.
//!
//! # Determinism
//!
//! Events carry integers only: key codes are USB HID usage ids, positions
//! are Q24.8 integers ([`InputPoint`]); converting a platform's float
//! coordinates happens once, outside the simulation, when the event is
//! made. What the systems see is therefore a pure function of the recorded
//! events.
//!
//! # Files
//!
//! `keys.rs` is the vocabulary (key codes, mouse buttons, points),
//! `event.rs` the event and its stamp, `queue.rs` the bounded queue a world
//! owns, `state.rs` the per-tick key, button and pointer state derived from
//! the delivered events ([`InputState`], [`TickInput`]), `script.rs` the
//! scripted source for headless runs.
//!
#![doc = include_str!("contract.md")]

mod event;
mod keys;
mod queue;
mod script;
mod state;

pub use event::{InputEvent, InputKind, InputStamp};
pub use keys::{ButtonState, CoordSpace, InputPoint, KeyCode, MouseButton};
pub use queue::{DEFAULT_INPUT_CAPACITY, InputQueue, InputStats, MAX_INPUT_CAPACITY};
pub use script::{ScriptAt, ScriptTarget, ScriptedInput};
pub use state::{InputState, TickInput};
