//! Input: timestamped events, assigned to the tick they fall in and
//! delivered to the systems at the start of that tick, in a deterministic
//! order (the spec's "high-precision event system").
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
//! slot(t) = floor(t × tick_rate_hz / 10⁹)      (game_loop::due_ticks: exact integers)
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

use std::collections::VecDeque;
use std::fmt;

use laige_core::{Error, ErrorCode, EventId, Result, SimScalar, Vec2, event};

use crate::game_loop::due_ticks;

/// `input/queue_overflow` (Warn): a push found the queue full; the event
/// was rejected. Fields `capacity`, `overflowed` (total), `tick`.
pub const QUEUE_OVERFLOW: EventId = EventId::new("input", "queue_overflow");
/// `input/capacity_invalid`: a queue capacity outside
/// `1..=MAX_INPUT_CAPACITY`, or below the events already pending
/// (InvalidArgument + one rate-limited warn).
pub const CAPACITY_INVALID: EventId = EventId::new("input", "capacity_invalid");
/// `input/script_invalid`: a scripted input entry with a negative time
/// (InvalidArgument + one rate-limited warn).
pub const SCRIPT_INVALID: EventId = EventId::new("input", "script_invalid");

/// Default pending-event capacity: 1024. A 1000 Hz mouse produces ~17
/// events per 60 Hz frame and a fast typist ~20 keys per second, so 1024
/// holds about a second of continuous pointer motion while the loop is
/// paused (no tick drains the queue then) — and costs 2 × 1024 × 40 bytes
/// (pending + delivered buffers).
pub const DEFAULT_INPUT_CAPACITY: usize = 1024;
/// Largest accepted capacity: 2^20 events (40 MiB per buffer).
pub const MAX_INPUT_CAPACITY: usize = 1 << 20;

/// A keyboard key, by its **USB HID usage id** (keyboard page 0x07): a
/// physical key position, stable across platforms and layouts, and the
/// number a replay file stores. `KeyCode::A` is the key labelled A on a
/// US layout (wherever it is on others).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyCode(pub u16);

macro_rules! key_consts {
    ($($name:ident = $code:expr),* $(,)?) => {
        impl KeyCode {
            $(
                #[doc = concat!("HID usage `", stringify!($code), "`.")]
                pub const $name: KeyCode = KeyCode($code);
            )*
        }
    };
}

key_consts!(
    A = 0x04,
    B = 0x05,
    C = 0x06,
    D = 0x07,
    E = 0x08,
    F = 0x09,
    G = 0x0A,
    H = 0x0B,
    I = 0x0C,
    J = 0x0D,
    K = 0x0E,
    L = 0x0F,
    M = 0x10,
    N = 0x11,
    O = 0x12,
    P = 0x13,
    Q = 0x14,
    R = 0x15,
    S = 0x16,
    T = 0x17,
    U = 0x18,
    V = 0x19,
    W = 0x1A,
    X = 0x1B,
    Y = 0x1C,
    Z = 0x1D,
    DIGIT1 = 0x1E,
    DIGIT2 = 0x1F,
    DIGIT3 = 0x20,
    DIGIT4 = 0x21,
    DIGIT5 = 0x22,
    DIGIT6 = 0x23,
    DIGIT7 = 0x24,
    DIGIT8 = 0x25,
    DIGIT9 = 0x26,
    DIGIT0 = 0x27,
    ENTER = 0x28,
    ESCAPE = 0x29,
    BACKSPACE = 0x2A,
    TAB = 0x2B,
    SPACE = 0x2C,
    MINUS = 0x2D,
    EQUAL = 0x2E,
    BRACKET_LEFT = 0x2F,
    BRACKET_RIGHT = 0x30,
    BACKSLASH = 0x31,
    SEMICOLON = 0x33,
    QUOTE = 0x34,
    BACKQUOTE = 0x35,
    COMMA = 0x36,
    PERIOD = 0x37,
    SLASH = 0x38,
    F1 = 0x3A,
    F2 = 0x3B,
    F3 = 0x3C,
    F4 = 0x3D,
    F5 = 0x3E,
    F6 = 0x3F,
    F7 = 0x40,
    F8 = 0x41,
    F9 = 0x42,
    F10 = 0x43,
    F11 = 0x44,
    F12 = 0x45,
    INSERT = 0x49,
    HOME = 0x4A,
    PAGE_UP = 0x4B,
    DELETE = 0x4C,
    END = 0x4D,
    PAGE_DOWN = 0x4E,
    ARROW_RIGHT = 0x4F,
    ARROW_LEFT = 0x50,
    ARROW_DOWN = 0x51,
    ARROW_UP = 0x52,
    CONTROL_LEFT = 0xE0,
    SHIFT_LEFT = 0xE1,
    ALT_LEFT = 0xE2,
    SUPER_LEFT = 0xE3,
    CONTROL_RIGHT = 0xE4,
    SHIFT_RIGHT = 0xE5,
    ALT_RIGHT = 0xE6,
    SUPER_RIGHT = 0xE7,
);

/// A mouse button: 0 left, 1 right, 2 middle, 3 back, 4 forward, then any
/// other button the platform numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MouseButton(pub u16);

impl MouseButton {
    /// The primary button.
    pub const LEFT: MouseButton = MouseButton(0);
    /// The secondary button.
    pub const RIGHT: MouseButton = MouseButton(1);
    /// The wheel button.
    pub const MIDDLE: MouseButton = MouseButton(2);
    /// The "back" side button.
    pub const BACK: MouseButton = MouseButton(3);
    /// The "forward" side button.
    pub const FORWARD: MouseButton = MouseButton(4);
}

/// Pressed or released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ButtonState {
    /// Went down.
    Pressed,
    /// Went up.
    Released,
}

/// Which coordinates an [`InputPoint`] is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoordSpace {
    /// Window pixels: origin at the top-left corner, y down (the
    /// platform's convention).
    Window,
    /// World units of the game's view: y up (the renderer's convention).
    World,
}

/// A position as **Q24.8 integers**: `x` and `y` in 1/256 units (pixels or
/// world units, see [`CoordSpace`]). Integers keep input deterministic and
/// replayable; 1/256 is finer than any pointer resolution, and ±8 388 607
/// units covers every window and the whole Q16.16 world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct InputPoint {
    /// x in 1/256 units.
    pub x: i32,
    /// y in 1/256 units.
    pub y: i32,
}

impl InputPoint {
    /// Sub-units per unit: 256 (8 fraction bits).
    pub const SUBUNITS: i32 = 256;

    /// The point at whole units `(x, y)` (saturating).
    #[must_use]
    pub const fn from_units(x: i32, y: i32) -> Self {
        Self {
            x: x.saturating_mul(Self::SUBUNITS),
            y: y.saturating_mul(Self::SUBUNITS),
        }
    }

    /// The point in the simulation's scalar: `x / 256`, `y / 256` through
    /// the deterministic [`SimScalar::from_ratio`].
    ///
    /// ```
    /// use laige_core::{Fpx16_16, Vec2};
    /// use laige_sim::input::InputPoint;
    /// let p = InputPoint { x: 384, y: -512 };
    /// assert_eq!(p.to_vec2::<Fpx16_16>(), Vec2::new("1.5".parse()?, Fpx16_16::from_i32(-2)));
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    #[must_use]
    pub fn to_vec2<S: SimScalar>(self) -> Vec2<S> {
        Vec2::new(
            S::from_ratio(self.x, Self::SUBUNITS),
            S::from_ratio(self.y, Self::SUBUNITS),
        )
    }
}

/// What happened. Plain integers only (see the module docs on
/// determinism).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// A key went down or up. Platform auto-repeat is not an event (the
    /// OS's repeat rate must not reach the simulation).
    Key {
        /// The physical key.
        key: KeyCode,
        /// Down or up.
        state: ButtonState,
    },
    /// The pointer moved.
    MouseMove {
        /// The new position.
        position: InputPoint,
        /// Its coordinates.
        space: CoordSpace,
    },
    /// A mouse button went down or up.
    MouseButton {
        /// Which button.
        button: MouseButton,
        /// Down or up.
        state: ButtonState,
        /// The pointer position at the time.
        position: InputPoint,
        /// Its coordinates.
        space: CoordSpace,
    },
    /// A game-defined action (an id of the game's choosing and a value).
    Action {
        /// The game's action id.
        id: u32,
        /// The action's value (an axis, a count, 1 for "triggered").
        value: i32,
    },
}

/// One event as the systems see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InputEvent {
    /// The tick it belongs to; once delivered, the tick it was delivered at.
    pub tick: u64,
    /// When it happened, as running time: ns since the loop started,
    /// pauses excluded (the module docs). `time_ns − tick_start` is its
    /// sub-tick position; a late event's time lies before its tick.
    pub time_ns: i64,
    /// The queue's push counter: the last tie-breaker of the order.
    pub seq: u64,
    /// What happened.
    pub kind: InputKind,
}

impl InputEvent {
    /// The delivery order key: (tick, time, sequence).
    #[must_use]
    pub fn order_key(&self) -> (u64, i64, u64) {
        (self.tick, self.time_ns, self.seq)
    }
}

/// Where an event lands: made by
/// [`GameLoop::input_stamp`](crate::GameLoop::input_stamp) (or by hand for
/// a scripted or replayed event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InputStamp {
    /// The tick the event belongs to.
    pub tick: u64,
    /// Its running time in ns (see [`InputEvent::time_ns`]).
    pub time_ns: i64,
    /// Its interval's tick had already run (or been dropped): it was moved
    /// to the next tick and is counted late.
    pub late: bool,
}

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

/// When a scripted event happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScriptAt {
    /// At the start of tick `k`: time `⌈k × 10⁹ / rate⌉` ns, the first
    /// instant of its interval.
    Tick(u64),
    /// At running time `ns` (≥ 0): it belongs to tick `floor(ns × rate /
    /// 10⁹)`, the tick whose interval contains it.
    TimeNs(i64),
}

/// A scripted input source for headless runs: a list of `(when, event)`
/// fed to a loop's queue ahead of the ticks they belong to.
///
/// Times are mapped to ticks on the exact grid (not through the live
/// clock), so a script delivers the same events at the same ticks on every
/// run, paced or not, loaded or not.
///
/// ```
/// use laige_core::clock::SyntheticClock;
/// use laige_sim::input::{InputKind, ScriptAt, ScriptedInput};
/// use laige_sim::{GameLoop, GameLoopOptions, World};
///
/// let mut world = World::default();
/// world.register_system("noop", 0, |_| Ok(()))?;
/// let schedule = world.schedule_systems();
/// let clock = SyntheticClock::new(0);
/// let mut game = GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())?;
/// let mut script = ScriptedInput::new(60, [
///     (ScriptAt::Tick(3), InputKind::Action { id: 7, value: 1 }),
///     (ScriptAt::TimeNs(100_000_000), InputKind::Action { id: 8, value: 1 }), // tick 6
/// ])?;
/// script.feed(&mut game);
/// assert_eq!(game.world().input().pending_len(), 1); // tick 3 is within the next frame's reach
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ScriptedInput {
    /// `(tick, time_ns, kind)` sorted by (tick, time), stable.
    entries: Vec<(u64, i64, InputKind)>,
    next: usize,
}

impl ScriptedInput {
    /// A script for a loop ticking at `tick_rate_hz`. Entries may come in
    /// any order; equal (tick, time) keep their order.
    ///
    /// # Errors
    /// `input/script_invalid` (InvalidArgument) for a negative time or a
    /// tick rate of 0.
    pub fn new(
        tick_rate_hz: u32,
        entries: impl IntoIterator<Item = (ScriptAt, InputKind)>,
    ) -> Result<Self> {
        if tick_rate_hz == 0 {
            return Err(laige_core::diag::reported(Error::invalid_argument(
                SCRIPT_INVALID,
                "tick_rate_hz",
                0,
                "the loop's tick rate (20..=120 Hz)",
            )));
        }
        let mut list = Vec::new();
        for (idx, (at, kind)) in entries.into_iter().enumerate() {
            let (tick, time) = match at {
                ScriptAt::Tick(k) => (k, tick_start_ns(k, tick_rate_hz)),
                ScriptAt::TimeNs(ns) if ns >= 0 => (due_ticks(ns, tick_rate_hz), ns),
                ScriptAt::TimeNs(ns) => {
                    return Err(laige_core::diag::reported(
                        Error::invalid_argument(
                            SCRIPT_INVALID,
                            "time_ns",
                            ns,
                            "a running time >= 0 ns",
                        )
                        .with_detail(format!("script entry {idx}")),
                    ));
                }
            };
            list.push((tick, time, kind));
        }
        list.sort_by_key(|&(tick, time, _)| (tick, time));
        Ok(Self {
            entries: list,
            next: 0,
        })
    }

    /// Entries not yet fed.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.entries.len() - self.next
    }

    /// Entries in the script.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the script has no entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Pushes every entry whose tick is `≤ until_tick` into `queue` (with
    /// its exact tick); returns how many were pushed. An entry the full
    /// queue rejects is counted there (overflow) and skipped.
    pub fn feed_until(&mut self, queue: &mut InputQueue, until_tick: u64) -> usize {
        let start = self.next;
        while let Some(&(tick, time, kind)) = self.entries.get(self.next) {
            if tick > until_tick {
                break;
            }
            self.next += 1;
            // A rejected entry was counted and reported by the queue.
            let _ = queue.push_at(tick, time, kind);
        }
        self.next - start
    }

    /// Feeds everything the loop's next frame (plus a single step before
    /// it) can reach: entries up to tick `current_tick + max_catch_up_ticks`.
    /// Call it once before every frame.
    pub fn feed<C: laige_core::clock::MonotonicClock>(
        &mut self,
        game: &mut crate::GameLoop<C>,
    ) -> usize {
        let until = game
            .current_tick()
            .saturating_add(u64::from(game.max_catch_up_ticks()));
        self.feed_until(game.world_mut().input_mut(), until)
    }
}

/// The first ns of tick `k`'s interval: `⌈k × 10⁹ / rate⌉` (saturating).
fn tick_start_ns(k: u64, tick_rate_hz: u32) -> i64 {
    let ns = (u128::from(k) * 1_000_000_000).div_ceil(u128::from(tick_rate_hz));
    i64::try_from(ns).unwrap_or(i64::MAX)
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

    #[test]
    fn script_maps_times_to_the_tick_whose_interval_holds_them() {
        // 60 Hz: tick 1 starts at ceil(1e9/60) = 16_666_667 ns.
        let mut s = ScriptedInput::new(
            60,
            [
                (ScriptAt::TimeNs(16_666_667), act(2)),
                (ScriptAt::TimeNs(16_666_666), act(1)),
                (ScriptAt::Tick(0), act(0)),
            ],
        )
        .unwrap();
        let mut q = InputQueue::default();
        assert_eq!(s.feed_until(&mut q, 0), 2);
        assert_eq!(s.remaining(), 1);
        q.deliver(0);
        let got: Vec<_> = q.delivered().iter().map(|e| (e.time_ns, e.kind)).collect();
        assert_eq!(got, [(0, act(0)), (16_666_666, act(1))]);
        s.feed_until(&mut q, 10);
        q.deliver(1);
        assert_eq!(q.delivered()[0].kind, act(2));
        assert_eq!(
            ScriptedInput::new(60, [(ScriptAt::TimeNs(-1), act(0))])
                .unwrap_err()
                .id(),
            SCRIPT_INVALID
        );
    }

    #[test]
    fn a_tick_entry_starts_inside_its_own_interval() {
        for rate in [20_u32, 30, 60, 90, 120] {
            for k in [0_u64, 1, 2, 7, 59, 60, 61, 1_000, 123_457] {
                let t = tick_start_ns(k, rate);
                assert_eq!(due_ticks(t, rate), k, "rate {rate} tick {k}");
                if k > 0 {
                    assert_eq!(due_ticks(t - 1, rate), k - 1);
                }
            }
        }
    }

    #[test]
    fn points_convert_exactly() {
        use laige_core::{Fp32Pinned, Fpx16_16};
        let p = InputPoint::from_units(3, -4);
        assert_eq!((p.x, p.y), (768, -1024));
        assert_eq!(
            p.to_vec2::<Fpx16_16>(),
            Vec2::new(Fpx16_16::from_i32(3), Fpx16_16::from_i32(-4))
        );
        assert_eq!(
            InputPoint { x: 1, y: 0 }.to_vec2::<Fp32Pinned>().x,
            Fp32Pinned::from_ratio(1, 256)
        );
        assert_eq!(KeyCode::A.0, 0x04);
        assert_eq!(KeyCode::SPACE.0, 0x2C);
    }
}
