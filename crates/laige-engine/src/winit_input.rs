//! winit's window events as laige input (features `window` and `web`: the
//! same mapping for a desktop window and a browser canvas): physical keys
//! to USB HID usage ids, mouse buttons, and pointer positions to Q24.8
//! window pixels or world units through the view's viewport.

// det-allow-file(float-type, float-cast): converts the platform's f64 pointer coordinates to Q24.8 integers before they enter the simulation

use laige_render::gl::{ViewPolicy, ViewRect, view_viewport};
use laige_sim::input::{
    ButtonState, CoordSpace, InputKind, InputPoint, KeyCode, MouseButton as Button,
};
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, MouseButton, WindowEvent};
use winit::keyboard::{KeyCode as Wk, PhysicalKey};

/// The input a window event carries, if any: a key (not its auto-repeat)
/// laige names, a pointer move (which updates `cursor`, in `space`), a
/// mouse button at `cursor`. `view` is the view and how it sits on the
/// `size`-pixel target (for world coordinates).
pub(crate) fn input_kind(
    event: &WindowEvent,
    cursor: &mut InputPoint,
    space: CoordSpace,
    view: (&ViewRect, ViewPolicy),
    size: PhysicalSize<u32>,
) -> Option<InputKind> {
    match event {
        WindowEvent::KeyboardInput { event, .. } if !event.repeat => {
            let PhysicalKey::Code(code) = event.physical_key else {
                return None;
            };
            Some(InputKind::Key {
                key: hid_key(code)?,
                state: button_state(event.state),
            })
        }
        WindowEvent::CursorMoved { position, .. } => {
            *cursor = to_point(space, view.0, view.1, size, *position);
            Some(InputKind::MouseMove {
                position: *cursor,
                space,
            })
        }
        WindowEvent::MouseInput { state, button, .. } => Some(InputKind::MouseButton {
            button: mouse_button(*button),
            state: button_state(*state),
            position: *cursor,
            space,
        }),
        _ => None,
    }
}

pub(crate) fn button_state(state: ElementState) -> ButtonState {
    match state {
        ElementState::Pressed => ButtonState::Pressed,
        ElementState::Released => ButtonState::Released,
    }
}

pub(crate) fn mouse_button(button: MouseButton) -> Button {
    match button {
        MouseButton::Left => Button::LEFT,
        MouseButton::Right => Button::RIGHT,
        MouseButton::Middle => Button::MIDDLE,
        MouseButton::Back => Button::BACK,
        MouseButton::Forward => Button::FORWARD,
        MouseButton::Other(n) => Button(n.saturating_add(5)),
    }
}

/// A platform position as Q24.8: window pixels (y down) or the view's
/// world units (y up), rounded to the nearest 1/256. World units map
/// through the rectangle the view is drawn into under `policy` (the
/// renderer's [`view_viewport`]), so with a letterbox a click lands on the
/// world point drawn under it; a click on a bar maps beyond the view's edge.
pub(crate) fn to_point(
    space: CoordSpace,
    view: &ViewRect,
    policy: ViewPolicy,
    size: PhysicalSize<u32>,
    pos: PhysicalPosition<f64>,
) -> InputPoint {
    let q = |v: f64| (v * f64::from(InputPoint::SUBUNITS)).round() as i32;
    match space {
        CoordSpace::Window => InputPoint {
            x: q(pos.x),
            y: q(pos.y),
        },
        CoordSpace::World => {
            // The rectangle the renderer draws the view into (the same
            // rule: letterboxed or stretched, whole pixels, from the
            // bottom-left), turned into window pixels from the top-left.
            let (vx, vy, vw, vh) =
                view_viewport(*view, (size.width.max(1), size.height.max(1)), policy);
            let left = f64::from(vx);
            let top = f64::from(size.height.max(1)) - f64::from(vy) - f64::from(vh);
            let (w, h) = (f64::from(vw.max(1)), f64::from(vh.max(1)));
            let (min, max) = (view.min(), view.max());
            let (min_x, min_y) = (f64::from(min[0]), f64::from(min[1]));
            let (max_x, max_y) = (f64::from(max[0]), f64::from(max[1]));
            InputPoint {
                x: q(min_x + (pos.x - left) / w * (max_x - min_x)),
                y: q(max_y - (pos.y - top) / h * (max_y - min_y)),
            }
        }
    }
}

/// winit's physical key → its USB HID usage id (the keys laige names; the
/// rest are not forwarded).
pub(crate) fn hid_key(code: Wk) -> Option<KeyCode> {
    use Wk::*;
    let k = match code {
        KeyA => KeyCode::A,
        KeyB => KeyCode::B,
        KeyC => KeyCode::C,
        KeyD => KeyCode::D,
        KeyE => KeyCode::E,
        KeyF => KeyCode::F,
        KeyG => KeyCode::G,
        KeyH => KeyCode::H,
        KeyI => KeyCode::I,
        KeyJ => KeyCode::J,
        KeyK => KeyCode::K,
        KeyL => KeyCode::L,
        KeyM => KeyCode::M,
        KeyN => KeyCode::N,
        KeyO => KeyCode::O,
        KeyP => KeyCode::P,
        KeyQ => KeyCode::Q,
        KeyR => KeyCode::R,
        KeyS => KeyCode::S,
        KeyT => KeyCode::T,
        KeyU => KeyCode::U,
        KeyV => KeyCode::V,
        KeyW => KeyCode::W,
        KeyX => KeyCode::X,
        KeyY => KeyCode::Y,
        KeyZ => KeyCode::Z,
        Digit1 => KeyCode::DIGIT1,
        Digit2 => KeyCode::DIGIT2,
        Digit3 => KeyCode::DIGIT3,
        Digit4 => KeyCode::DIGIT4,
        Digit5 => KeyCode::DIGIT5,
        Digit6 => KeyCode::DIGIT6,
        Digit7 => KeyCode::DIGIT7,
        Digit8 => KeyCode::DIGIT8,
        Digit9 => KeyCode::DIGIT9,
        Digit0 => KeyCode::DIGIT0,
        Enter => KeyCode::ENTER,
        Escape => KeyCode::ESCAPE,
        Backspace => KeyCode::BACKSPACE,
        Tab => KeyCode::TAB,
        Space => KeyCode::SPACE,
        Minus => KeyCode::MINUS,
        Equal => KeyCode::EQUAL,
        BracketLeft => KeyCode::BRACKET_LEFT,
        BracketRight => KeyCode::BRACKET_RIGHT,
        Backslash => KeyCode::BACKSLASH,
        Semicolon => KeyCode::SEMICOLON,
        Quote => KeyCode::QUOTE,
        Backquote => KeyCode::BACKQUOTE,
        Comma => KeyCode::COMMA,
        Period => KeyCode::PERIOD,
        Slash => KeyCode::SLASH,
        F1 => KeyCode::F1,
        F2 => KeyCode::F2,
        F3 => KeyCode::F3,
        F4 => KeyCode::F4,
        F5 => KeyCode::F5,
        F6 => KeyCode::F6,
        F7 => KeyCode::F7,
        F8 => KeyCode::F8,
        F9 => KeyCode::F9,
        F10 => KeyCode::F10,
        F11 => KeyCode::F11,
        F12 => KeyCode::F12,
        Insert => KeyCode::INSERT,
        Home => KeyCode::HOME,
        PageUp => KeyCode::PAGE_UP,
        Delete => KeyCode::DELETE,
        End => KeyCode::END,
        PageDown => KeyCode::PAGE_DOWN,
        ArrowRight => KeyCode::ARROW_RIGHT,
        ArrowLeft => KeyCode::ARROW_LEFT,
        ArrowDown => KeyCode::ARROW_DOWN,
        ArrowUp => KeyCode::ARROW_UP,
        ControlLeft => KeyCode::CONTROL_LEFT,
        ShiftLeft => KeyCode::SHIFT_LEFT,
        AltLeft => KeyCode::ALT_LEFT,
        SuperLeft => KeyCode::SUPER_LEFT,
        ControlRight => KeyCode::CONTROL_RIGHT,
        ShiftRight => KeyCode::SHIFT_RIGHT,
        AltRight => KeyCode::ALT_RIGHT,
        SuperRight => KeyCode::SUPER_RIGHT,
        _ => return None,
    };
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_maps_window_pixels_to_the_view() {
        let view = ViewRect::new(-100.0, -50.0, 100.0, 50.0).unwrap();
        let size = PhysicalSize::new(200, 100);
        let at = |x, y| {
            to_point(
                CoordSpace::World,
                &view,
                ViewPolicy::Stretch,
                size,
                PhysicalPosition::new(x, y),
            )
        };
        assert_eq!(at(100.0, 50.0), InputPoint { x: 0, y: 0 }); // centre
        assert_eq!(at(0.0, 0.0), InputPoint::from_units(-100, 50)); // top-left
        assert_eq!(at(200.0, 100.0), InputPoint::from_units(100, -50));
        assert_eq!(at(100.5, 50.0).x, 128); // half a pixel = 0.5 units
        let win = to_point(
            CoordSpace::Window,
            &view,
            LETTERBOX,
            size,
            PhysicalPosition::new(3.25, 7.0),
        );
        assert_eq!(win, InputPoint { x: 832, y: 1792 });
    }

    const LETTERBOX: ViewPolicy = ViewPolicy::Letterbox {
        bar_color: [0.0, 0.0, 0.0, 1.0],
    };

    #[test]
    fn pointer_maps_through_the_letterbox() {
        // A 2:1 view in a 400×400 window: the renderer draws it into the
        // 400×200 band at y 100..300 (window pixels from the top).
        let view = ViewRect::new(-100.0, -50.0, 100.0, 50.0).unwrap();
        let size = PhysicalSize::new(400, 400);
        assert_eq!(
            view_viewport(view, (400, 400), LETTERBOX),
            (0, 100, 400, 200)
        );
        let at = |x, y| {
            to_point(
                CoordSpace::World,
                &view,
                LETTERBOX,
                size,
                PhysicalPosition::new(x, y),
            )
        };
        assert_eq!(at(200.0, 200.0), InputPoint { x: 0, y: 0 }); // centre
        assert_eq!(at(0.0, 100.0), InputPoint::from_units(-100, 50)); // band's top-left
        assert_eq!(at(400.0, 300.0), InputPoint::from_units(100, -50)); // bottom-right
        // In the bar above the picture: beyond the view's top edge.
        assert_eq!(at(200.0, 50.0), InputPoint::from_units(0, 75));
        // Bars left and right: a 1:2 view in the same window is drawn at
        // x 100..300, so the window's x 100 is the view's left edge.
        let tall = ViewRect::new(0.0, 0.0, 10.0, 20.0).unwrap();
        let at = |x, y| {
            to_point(
                CoordSpace::World,
                &tall,
                LETTERBOX,
                size,
                PhysicalPosition::new(x, y),
            )
        };
        assert_eq!(at(100.0, 400.0), InputPoint::from_units(0, 0));
        assert_eq!(at(300.0, 0.0), InputPoint::from_units(10, 20));
        // Stretch keeps mapping the whole window onto the view.
        let stretched = to_point(
            CoordSpace::World,
            &view,
            ViewPolicy::Stretch,
            size,
            PhysicalPosition::new(0.0, 100.0),
        );
        assert_eq!(stretched, InputPoint::from_units(-100, 25));
    }

    #[test]
    fn keys_map_to_hid_usage_ids() {
        assert_eq!(hid_key(Wk::KeyA), Some(KeyCode(0x04)));
        assert_eq!(hid_key(Wk::Space), Some(KeyCode(0x2C)));
        assert_eq!(hid_key(Wk::Escape), Some(KeyCode(0x29)));
        assert_eq!(hid_key(Wk::ArrowUp), Some(KeyCode(0x52)));
        assert_eq!(hid_key(Wk::NumLock), None);
        assert_eq!(mouse_button(MouseButton::Other(2)), Button(7));
    }
}
