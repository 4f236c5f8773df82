//! One input event, what it says happened and where it lands on the tick
//! grid.

use super::keys::{ButtonState, CoordSpace, InputPoint, KeyCode, MouseButton};

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
