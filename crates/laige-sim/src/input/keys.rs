//! The input vocabulary: keys by USB HID usage id, mouse buttons, button
//! states and Q24.8 integer positions.

use laige_core::{SimScalar, Vec2};

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, crate::StateHash)]
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

#[cfg(test)]
mod tests {
    use super::*;

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
