//! Shared by the GL integration tests: the skip rule and the known scene.
//!
//! Skip rule: a machine without a usable EGL makes `headless()` return
//! `ErrorCode::Unsupported`; the test then prints one `SKIPPED` line and
//! passes — unless `LAIGE_REQUIRE_GL=1` (set by CI), which turns the skip
//! into a failure. Any other error is a failure.

#![allow(dead_code, reason = "each test target uses a different subset")]

use laige_core::ErrorCode;
use laige_render::gl::{CurrentGlContext, HeadlessConfig, Sprite};

/// Scene size in pixels (and world units: the view is `0..W × 0..H`).
pub const W: u32 = 64;
/// Scene height.
pub const H: u32 = 48;

pub const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
pub const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
pub const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

pub const CLEAR_PX: [u8; 4] = [0, 0, 255, 255];
pub const RED_PX: [u8; 4] = [255, 0, 0, 255];
pub const GREEN_PX: [u8; 4] = [0, 255, 0, 255];

/// Whether a missing GL must fail the test (CI).
pub fn gl_required() -> bool {
    std::env::var("LAIGE_REQUIRE_GL").is_ok_and(|v| v == "1")
}

/// Writes one line straight to the process's stdout. libtest captures
/// `println!` (shown only for failing tests); a direct write is not
/// captured, so skip notices and machine lines always reach the log.
pub fn visible_line(line: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A headless context, or `None` (after printing why) when the machine has
/// no usable EGL and `LAIGE_REQUIRE_GL` is not `1`.
pub fn headless_or_skip(test: &str, config: &HeadlessConfig) -> Option<CurrentGlContext> {
    match CurrentGlContext::headless(config) {
        Ok(ctx) => Some(ctx),
        Err(e) if e.code() == ErrorCode::Unsupported && !gl_required() => {
            visible_line(&format!(
                "SKIPPED: {test}: no usable OpenGL 3.3 via EGL on this machine ({e}); \
                 set LAIGE_REQUIRE_GL=1 to make this a failure"
            ));
            None
        }
        Err(e) => panic!("{test}: headless GL context: {e}"),
    }
}

/// The known scene, drawn over the `CLEAR` color in a `W × H` view:
/// a red 20×20 quad at x 8..28, y 8..28; a green 20×20 quad at x 20..40,
/// y 16..36 drawn after it (so it covers the overlap x 20..28, y 16..28);
/// one sprite far outside the view (culled).
pub fn scene() -> Vec<Sprite> {
    vec![
        Sprite::quad([18.0, 18.0], [20.0, 20.0], RED),
        Sprite::quad([30.0, 26.0], [20.0, 20.0], GREEN),
        Sprite::quad([500.0, 500.0], [20.0, 20.0], RED),
    ]
}

/// The pixel at `(x, y)` (GL convention: y from the bottom) of a full-frame
/// read-back.
pub fn px(rgba: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * W + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

/// Asserts the scene's chosen pixels: clear color, red, green, and the
/// overlap (green on top).
pub fn assert_scene_pixels(rgba: &[u8]) {
    assert_eq!(rgba.len(), (W * H * 4) as usize);
    assert_eq!(
        px(rgba, 0, 0),
        CLEAR_PX,
        "clear color at the bottom-left corner"
    );
    assert_eq!(
        px(rgba, 63, 47),
        CLEAR_PX,
        "clear color at the top-right corner"
    );
    assert_eq!(px(rgba, 10, 10), RED_PX, "red quad");
    assert_eq!(
        px(rgba, 27, 15),
        RED_PX,
        "red quad, just below the green one"
    );
    assert_eq!(px(rgba, 35, 30), GREEN_PX, "green quad");
    assert_eq!(
        px(rgba, 24, 20),
        GREEN_PX,
        "overlap: green drawn last, on top"
    );
    assert_eq!(
        px(rgba, 8, 8),
        RED_PX,
        "red quad's first pixel (pixel centers at .5)"
    );
    assert_eq!(px(rgba, 7, 8), CLEAR_PX, "left of the red quad");
    assert_eq!(px(rgba, 28, 10), CLEAR_PX, "right of the red quad");
    assert_eq!(px(rgba, 39, 35), GREEN_PX, "green quad's last pixel");
    assert_eq!(px(rgba, 40, 35), CLEAR_PX, "right of the green quad");
    assert_eq!(px(rgba, 39, 36), CLEAR_PX, "above the green quad");
}

/// One character per pixel, top row first (image order): `.` clear, `R`
/// red, `G` green, `?` anything else — a reviewable picture of the frame
/// for an insta snapshot.
pub fn ascii_art(rgba: &[u8], width: u32, height: u32) -> String {
    let mut out = String::with_capacity(((width + 1) * height) as usize);
    for y in (0..height).rev() {
        for x in 0..width {
            let i = ((y * width + x) * 4) as usize;
            out.push(match [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]] {
                CLEAR_PX => '.',
                RED_PX => 'R',
                GREEN_PX => 'G',
                [255, 255, 255, 255] => 'W',
                [0, 0, 0, 255] => 'K',
                _ => '?',
            });
        }
        out.push('\n');
    }
    out
}

/// FNV-1a 64 of the bytes: a compact fingerprint of the exact frame.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
