//! What every context shares, whatever creates it (glutin on a desktop,
//! a canvas's WebGL2 in a browser): the target kinds, the size limits, the
//! read-back rules and GL's error flag.

#![allow(unsafe_code, reason = "glow's GL entry points are unsafe FFI")]

use std::num::NonZeroU32;

use crate::events::{CONTEXT_SIZE_INVALID, GL_ERROR, READ_REGION_INVALID};
use glow::HasContext;
use laige_core::{Error, ErrorCode, Result};

/// The largest width or height accepted for a target, in pixels.
///
/// Where it comes from: 16384 is the `GL_MAX_RENDERBUFFER_SIZE` /
/// `GL_MAX_TEXTURE_SIZE` of current desktop drivers, Mesa's llvmpipe
/// included; the driver's own limit (queried at creation) applies when it is
/// lower.
pub const MAX_TARGET_SIZE: u32 = 16_384;

/// What a context renders into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GlTarget {
    /// A winit window's back buffer (presented by `CurrentGlContext::swap_buffers`).
    Window,
    /// A framebuffer object of the configured size, on a surfaceless EGL context.
    HeadlessSurfaceless,
    /// A framebuffer object of the configured size, on an EGL context bound
    /// to a 1×1 pbuffer (for drivers without `EGL_KHR_surfaceless_context`).
    HeadlessPbuffer,
    /// A browser canvas's WebGL2 drawing buffer (`wasm32`, feature `web`):
    /// the browser composites it after the frame's callback returns.
    Canvas,
}

/// Converts a size already validated to ≤ [`MAX_TARGET_SIZE`] to GL's `i32`.
pub(crate) fn gl_i32(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// Validates a target size against `1..=max`.
pub(crate) fn validate_size(width: u32, height: u32, max: u32) -> Result<(NonZeroU32, NonZeroU32)> {
    let accepted = || format!("1..={max} pixels (the driver's limit, at most {MAX_TARGET_SIZE})");
    let w = NonZeroU32::new(width)
        .filter(|w| w.get() <= max)
        .ok_or_else(|| Error::invalid_argument(CONTEXT_SIZE_INVALID, "width", width, accepted()))?;
    let h = NonZeroU32::new(height)
        .filter(|h| h.get() <= max)
        .ok_or_else(|| {
            Error::invalid_argument(CONTEXT_SIZE_INVALID, "height", height, accepted())
        })?;
    Ok((w, h))
}

/// Checks a read-back region against the target and returns its byte length.
pub(crate) fn region_len(
    x: u32,
    y: u32,
    width: u32,
    height: u32,
    target_w: u32,
    target_h: u32,
) -> Result<usize> {
    let fits = |start: u32, len: u32, max: u32| {
        len > 0 && start.checked_add(len).is_some_and(|end| end <= max)
    };
    if !fits(x, width, target_w) {
        return Err(Error::invalid_argument(
            READ_REGION_INVALID,
            "x + width",
            format!("{x} + {width}"),
            format!("width ≥ 1 and x + width ≤ {target_w} (the target width)"),
        ));
    }
    if !fits(y, height, target_h) {
        return Err(Error::invalid_argument(
            READ_REGION_INVALID,
            "y + height",
            format!("{y} + {height}"),
            format!("height ≥ 1 and y + height ≤ {target_h} (the target height)"),
        ));
    }
    // Both ≤ MAX_TARGET_SIZE (2^14): the product × 4 fits in 2^30.
    Ok(width as usize * height as usize * 4)
}

/// Returns `gl_context/gl_error` if GL's error flag is set (and clears it).
///
/// # Safety
/// `gl`'s context is current on this thread.
pub(crate) unsafe fn check_gl_error(gl: &glow::Context, doing: &'static str) -> Result<()> {
    // SAFETY: the caller's contract.
    let code = unsafe { gl.get_error() };
    if code == glow::NO_ERROR {
        return Ok(());
    }
    // Drain the remaining flags so the next check starts clean (bounded:
    // GL keeps at most one flag per error kind).
    for _ in 0..8 {
        // SAFETY: as above.
        if unsafe { gl.get_error() } == glow::NO_ERROR {
            break;
        }
    }
    Err(Error::new(ErrorCode::Failed, GL_ERROR)
        .with_value(format!("GL error 0x{code:04X}"))
        .with_detail(doing))
}

/// Reads the RGBA8 region `(x, y, width, height)` of a `target`-sized
/// framebuffer — the offscreen framebuffer `fbo`, or the default
/// framebuffer's back buffer — into `out`, bottom row first.
///
/// # Errors
/// `gl_context/read_region_invalid` when the region leaves the target, is
/// empty, or `out` is not `width × height × 4` bytes; `gl_context/gl_error`
/// when GL reports an error.
///
/// # Safety
/// `gl`'s context is current on this thread and `fbo` was created by it.
pub(crate) unsafe fn read_rgba(
    gl: &glow::Context,
    fbo: Option<glow::Framebuffer>,
    (x, y, width, height): (u32, u32, u32, u32),
    target: (u32, u32),
    out: &mut [u8],
) -> Result<()> {
    let len = region_len(x, y, width, height, target.0, target.1)?;
    if out.len() != len {
        return Err(Error::invalid_argument(
            READ_REGION_INVALID,
            "out.len()",
            out.len(),
            format!("exactly width × height × 4 = {len} bytes"),
        ));
    }
    // SAFETY: the caller's contract; the region lies inside the target and,
    // with a pack alignment of 1, GL writes exactly `len` bytes, all inside
    // `out`.
    unsafe {
        match fbo {
            Some(fbo) => {
                gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
                gl.read_buffer(glow::COLOR_ATTACHMENT0);
            }
            None => {
                gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
                gl.read_buffer(glow::BACK);
            }
        }
        gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
        gl.read_pixels(
            gl_i32(x),
            gl_i32(y),
            gl_i32(width),
            gl_i32(height),
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(out)),
        );
        check_gl_error(gl, "reading pixels")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_validation_names_field_and_range() {
        let e = validate_size(0, 10, 4096).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert_eq!(e.field(), Some("width"));
        let e = validate_size(10, 4097, 4096).unwrap_err();
        assert_eq!(e.field(), Some("height"));
        insta::assert_snapshot!(e.to_string(), @"gl_context/size_invalid: invalid argument: height = 4097; accepted: 1..=4096 pixels (the driver's limit, at most 16384)");
        assert!(validate_size(4096, 1, 4096).is_ok());
    }

    #[test]
    fn read_region_must_fit_the_target() {
        assert_eq!(region_len(0, 0, 4, 2, 4, 2).unwrap(), 32);
        assert_eq!(region_len(3, 1, 1, 1, 4, 2).unwrap(), 4);
        let e = region_len(3, 0, 2, 1, 4, 2).unwrap_err();
        assert_eq!(e.field(), Some("x + width"));
        let e = region_len(0, 0, 1, 0, 4, 2).unwrap_err();
        assert_eq!(e.field(), Some("y + height"));
        let e = region_len(u32::MAX, 0, 2, 1, 4, 2).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        insta::assert_snapshot!(e.to_string(), @"gl_context/read_region_invalid: invalid argument: x + width = 4294967295 + 2; accepted: width ≥ 1 and x + width ≤ 4 (the target width)");
    }
}
