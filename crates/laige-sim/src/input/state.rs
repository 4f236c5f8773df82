//! Per-tick input state: which keys and buttons are down, which went down
//! or up during the tick, and where the pointer is — derived from the
//! delivered events alone.
//!
//! ```
//! use laige_sim::World;
//! use laige_sim::input::{ButtonState, InputKind, KeyCode};
//!
//! let mut world = World::default();
//! world.register_system("move", 0, |ctx| {
//!     let input = ctx.input();
//!     if input.is_down(KeyCode::W) {
//!         // thrust every tick the key is held
//!     }
//!     if input.just_pressed(KeyCode::SPACE) {
//!         // jump once per press
//!     }
//!     Ok(())
//! })?;
//! let schedule = world.schedule_systems();
//! let press = InputKind::Key { key: KeyCode::W, state: ButtonState::Pressed };
//! world.input_mut().push_at(0, 0, press)?;
//! world.run_systems(&schedule)?; // tick 0: W went down
//! assert!(world.input_state().is_down(KeyCode::W));
//! assert!(world.input_state().just_pressed(KeyCode::W));
//! world.run_systems(&schedule)?; // tick 1: W still held, no new press
//! assert!(world.input_state().is_down(KeyCode::W));
//! assert!(!world.input_state().just_pressed(KeyCode::W));
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! # The rule
//!
//! At the start of tick `T`, after its events are delivered, the state is
//! the state at the end of tick `T − 1` with tick `T`'s delivered events
//! applied in delivery order (tick, time, sequence):
//!
//! * `is_down(k)`: the last event of `k` up to and including tick `T` was
//!   a press.
//! * `just_pressed(k)`: during tick `T`, `k` went from up to down at least
//!   once (a press and release within one tick counts as pressed *and*
//!   released, so a tap shorter than a tick is never lost). A second press
//!   while already down is not a transition.
//! * `just_released(k)`: during tick `T`, `k` went from down to up.
//! * The pointer: the position of the last `MouseMove` or `MouseButton`
//!   event in [`CoordSpace::World`] (world units, y up; the engine delivers
//!   pointer events in world units by default), and separately the last
//!   one in [`CoordSpace::Window`].
//!
//! Ticks that do not run (a paused loop) change nothing: events pushed
//! while paused reach the state with the tick that delivers them — a
//! single step's, or the first after resuming. A failed tick run again is
//! recomputed from the end of the previous tick, so its events count once.
//!
//! The state is a pure function of the delivered events, which a replay
//! records; it is therefore not part of the state hash (what a game
//! derives from it, in its hashed components and resources, is).
//!
//! Key codes `0..=255` (the whole USB HID keyboard page, which ends at
//! `0xE7`) and mouse buttons `0..=63` are tracked; events of other codes
//! stay in the event stream only (`is_down` is `false` for them). The
//! state is fixed-size bit sets: updating it allocates nothing.

use std::slice;

use laige_core::{SimScalar, Vec2};

use crate::StateHash;

use super::event::{InputEvent, InputKind};
use super::keys::{ButtonState, CoordSpace, InputPoint, KeyCode, MouseButton};

/// 256 bits: one per key code `0..=255`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, StateHash)]
struct KeyBits([u64; 4]);

/// Down / went down / went up for one family of codes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, StateHash)]
struct Transitions<B> {
    down: B,
    pressed: B,
    released: B,
}

/// A fixed-size set of codes (codes outside it are never set).
trait Bits: Copy + Default {
    fn get(&self, code: u16) -> bool;
    fn set(&mut self, code: u16, on: bool);
}

impl Bits for KeyBits {
    fn get(&self, code: u16) -> bool {
        code < 256 && self.0[usize::from(code >> 6)] & (1 << (code & 63)) != 0
    }

    fn set(&mut self, code: u16, on: bool) {
        if code >= 256 {
            return;
        }
        let (word, bit) = (usize::from(code >> 6), 1_u64 << (code & 63));
        if on {
            self.0[word] |= bit;
        } else {
            self.0[word] &= !bit;
        }
    }
}

impl Bits for u64 {
    fn get(&self, code: u16) -> bool {
        code < 64 && *self & (1 << code) != 0
    }
    fn set(&mut self, code: u16, on: bool) {
        if code < 64 {
            if on {
                *self |= 1 << code;
            } else {
                *self &= !(1 << code);
            }
        }
    }
}

impl<B: Bits> Transitions<B> {
    fn apply(&mut self, code: u16, state: ButtonState) {
        let was = self.down.get(code);
        match state {
            ButtonState::Pressed if !was => {
                self.down.set(code, true);
                self.pressed.set(code, true);
            }
            ButtonState::Released if was => {
                self.down.set(code, false);
                self.released.set(code, true);
            }
            _ => {}
        }
    }

    /// The state carried into the next tick: what is down, no transitions.
    fn carried(&self) -> Self {
        Self {
            down: self.down,
            pressed: B::default(),
            released: B::default(),
        }
    }
}

/// The input state of the last delivered tick (see the module docs):
/// [`World::input_state`](crate::World::input_state), and through
/// [`SystemContext::input`](crate::SystemContext::input) in systems.
/// Its [`StateHash`] encoding is its bytes in encoded snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, StateHash)]
pub struct InputState {
    /// The tick the state is of (`None` before the first).
    tick: Option<u64>,
    /// The state at the end of the tick before `tick`.
    base: Snapshot,
    /// The state of `tick`.
    now: Snapshot,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, StateHash)]
struct Snapshot {
    keys: Transitions<KeyBits>,
    buttons: Transitions<u64>,
    pointer_world: Option<InputPoint>,
    pointer_window: Option<InputPoint>,
}

impl Snapshot {
    fn carried(&self) -> Self {
        Self {
            keys: self.keys.carried(),
            buttons: self.buttons.carried(),
            ..*self
        }
    }

    fn point(&mut self, position: InputPoint, space: CoordSpace) {
        match space {
            CoordSpace::World => self.pointer_world = Some(position),
            CoordSpace::Window => self.pointer_window = Some(position),
        }
    }
}

impl InputState {
    /// Recomputes the state of `tick` from the end of the tick before and
    /// `delivered` (all of the tick's events, in delivery order). Called by
    /// the world after delivering each tick's input.
    pub(crate) fn update(&mut self, tick: u64, delivered: &[InputEvent]) {
        if self.tick != Some(tick) {
            self.base = self.now.carried();
            self.tick = Some(tick);
        }
        let mut s = self.base;
        for ev in delivered {
            match ev.kind {
                InputKind::Key { key, state } => s.keys.apply(key.0, state),
                InputKind::MouseButton {
                    button,
                    state,
                    position,
                    space,
                } => {
                    s.buttons.apply(button.0, state);
                    s.point(position, space);
                }
                InputKind::MouseMove { position, space } => s.point(position, space),
                InputKind::Action { .. } => {}
            }
        }
        self.now = s;
    }

    /// The tick this state is of (`None` before the first tick ran).
    #[must_use]
    pub fn tick(&self) -> Option<u64> {
        self.tick
    }

    /// Whether `key` is held at this tick.
    #[must_use]
    pub fn is_down(&self, key: KeyCode) -> bool {
        self.now.keys.down.get(key.0)
    }

    /// Whether `key` went down during this tick.
    #[must_use]
    pub fn just_pressed(&self, key: KeyCode) -> bool {
        self.now.keys.pressed.get(key.0)
    }

    /// Whether `key` went up during this tick.
    #[must_use]
    pub fn just_released(&self, key: KeyCode) -> bool {
        self.now.keys.released.get(key.0)
    }

    /// Whether mouse `button` is held at this tick.
    #[must_use]
    pub fn button_down(&self, button: MouseButton) -> bool {
        self.now.buttons.down.get(button.0)
    }

    /// Whether mouse `button` went down during this tick.
    #[must_use]
    pub fn button_just_pressed(&self, button: MouseButton) -> bool {
        self.now.buttons.pressed.get(button.0)
    }

    /// Whether mouse `button` went up during this tick.
    #[must_use]
    pub fn button_just_released(&self, button: MouseButton) -> bool {
        self.now.buttons.released.get(button.0)
    }

    /// The pointer's last position in world units (`None` until a pointer
    /// event in [`CoordSpace::World`] was delivered).
    #[must_use]
    pub fn pointer(&self) -> Option<InputPoint> {
        self.now.pointer_world
    }

    /// [`pointer`](Self::pointer) in the simulation's scalar
    /// ([`InputPoint::to_vec2`]: exact).
    #[must_use]
    pub fn pointer_world<S: SimScalar>(&self) -> Option<Vec2<S>> {
        self.now.pointer_world.map(InputPoint::to_vec2)
    }

    /// The pointer's last position in window pixels (`None` until a pointer
    /// event in [`CoordSpace::Window`] was delivered).
    #[must_use]
    pub fn pointer_window(&self) -> Option<InputPoint> {
        self.now.pointer_window
    }
}

/// What a system sees of its tick's input: the delivered events (the
/// slice, by `Deref`, and by iteration) and the [`InputState`] they leave.
/// `Copy`, and not borrowing the context, so a system can read it while
/// spawning or querying.
#[derive(Clone, Copy, Debug)]
pub struct TickInput<'w> {
    events: &'w [InputEvent],
    state: &'w InputState,
}

impl<'w> TickInput<'w> {
    pub(crate) fn new(events: &'w [InputEvent], state: &'w InputState) -> Self {
        Self { events, state }
    }

    /// The tick's events, in delivery order (tick, time, sequence).
    #[must_use]
    pub fn events(&self) -> &'w [InputEvent] {
        self.events
    }

    /// The key, button and pointer state of the tick.
    #[must_use]
    pub fn state(&self) -> &'w InputState {
        self.state
    }

    /// Whether `key` is held at this tick.
    #[must_use]
    pub fn is_down(&self, key: KeyCode) -> bool {
        self.state.is_down(key)
    }

    /// Whether `key` went down during this tick.
    #[must_use]
    pub fn just_pressed(&self, key: KeyCode) -> bool {
        self.state.just_pressed(key)
    }

    /// Whether `key` went up during this tick.
    #[must_use]
    pub fn just_released(&self, key: KeyCode) -> bool {
        self.state.just_released(key)
    }

    /// Whether mouse `button` is held at this tick.
    #[must_use]
    pub fn button_down(&self, button: MouseButton) -> bool {
        self.state.button_down(button)
    }

    /// The pointer's last position in world units.
    #[must_use]
    pub fn pointer(&self) -> Option<InputPoint> {
        self.state.pointer()
    }

    /// The pointer's last position in world units, in the scalar `S`.
    #[must_use]
    pub fn pointer_world<S: SimScalar>(&self) -> Option<Vec2<S>> {
        self.state.pointer_world()
    }
}

impl std::ops::Deref for TickInput<'_> {
    type Target = [InputEvent];

    fn deref(&self) -> &[InputEvent] {
        self.events
    }
}

impl<'w> IntoIterator for TickInput<'w> {
    type Item = &'w InputEvent;
    type IntoIter = slice::Iter<'w, InputEvent>;

    fn into_iter(self) -> Self::IntoIter {
        self.events.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tick: u64, seq: u64, key: KeyCode, state: ButtonState) -> InputEvent {
        InputEvent {
            tick,
            time_ns: 0,
            seq,
            kind: InputKind::Key { key, state },
        }
    }

    #[test]
    fn a_tap_inside_one_tick_is_pressed_and_released() {
        let mut s = InputState::default();
        s.update(
            0,
            &[
                key(0, 0, KeyCode::A, ButtonState::Pressed),
                key(0, 1, KeyCode::A, ButtonState::Released),
            ],
        );
        assert!(s.just_pressed(KeyCode::A) && s.just_released(KeyCode::A));
        assert!(!s.is_down(KeyCode::A));
        s.update(1, &[]);
        assert!(!s.just_pressed(KeyCode::A) && !s.just_released(KeyCode::A));
    }

    #[test]
    fn re_delivering_a_tick_counts_its_events_once() {
        let mut s = InputState::default();
        s.update(0, &[key(0, 0, KeyCode::A, ButtonState::Pressed)]);
        s.update(1, &[key(1, 1, KeyCode::A, ButtonState::Released)]);
        // Tick 1 failed and runs again with one more event.
        s.update(
            1,
            &[
                key(1, 1, KeyCode::A, ButtonState::Released),
                key(1, 2, KeyCode::B, ButtonState::Pressed),
            ],
        );
        assert!(s.just_released(KeyCode::A) && !s.is_down(KeyCode::A));
        assert!(s.just_pressed(KeyCode::B) && s.is_down(KeyCode::B));
    }

    #[test]
    fn codes_out_of_the_tracked_range_are_never_down() {
        let mut s = InputState::default();
        s.update(0, &[key(0, 0, KeyCode(300), ButtonState::Pressed)]);
        assert!(!s.is_down(KeyCode(300)));
        s.update(0, &[key(0, 0, KeyCode(255), ButtonState::Pressed)]);
        assert!(s.is_down(KeyCode(255)));
    }
}
