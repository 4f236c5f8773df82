//! [`GlContext`] (not current, `Send`) and [`CurrentGlContext`] (current on
//! the holding thread, not `Send`): the two states of one OpenGL context.
//!
//! The state is the type. A context can only be made current by consuming a
//! [`GlContext`], and only released by consuming the [`CurrentGlContext`], so
//! "current on this thread" is a fact the compiler checks: GL functions are
//! reachable only through [`CurrentGlContext::gl`], and a value of that type
//! cannot leave the thread it is current on (glutin's
//! `PossiblyCurrentContext` is `!Send`, and so is this type). The hand-off to
//! the render thread is release-then-bind: the creating thread calls
//! [`CurrentGlContext::release`], sends the [`GlContext`], and the render
//! thread calls [`GlContext::make_current`].

#![allow(
    unsafe_code,
    reason = "glow's GL entry points and glutin's platform constructors are unsafe FFI"
)]

use std::mem::ManuallyDrop;
use std::num::NonZeroU32;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::events::{MAKE_CURRENT_FAILED, RELEASE_FAILED, SWAP_FAILED, VSYNC_FAILED};
use glow::HasContext;
use glutin::context::{NotCurrentContext, PossiblyCurrentContext};
use glutin::prelude::{GlSurface, NotCurrentGlContext, PossiblyCurrentGlContext};
use glutin::surface::{PbufferSurface, Surface, SwapInterval, WindowSurface};
use laige_core::{Error, ErrorCode, Result};
use winit::window::Window;

pub use super::target::{GlTarget, MAX_TARGET_SIZE};
pub(crate) use super::target::{check_gl_error, gl_i32, read_rgba, region_len, validate_size};

/// The surface a context is bound with.
#[cfg_attr(
    target_vendor = "apple",
    expect(
        dead_code,
        reason = "no GL context is made on Apple platforms yet (headless and windowed return Unsupported)"
    )
)]
pub(crate) enum BoundSurface {
    /// A window surface; the window is kept alive as long as the surface.
    Window {
        /// The glutin surface (declared first: dropped before the window).
        surface: Surface<WindowSurface>,
        /// The winit window it presents to.
        window: Arc<Window>,
    },
    /// A pbuffer surface (headless).
    Pbuffer(Surface<PbufferSurface>),
    /// No surface: `EGL_KHR_surfaceless_context` (headless).
    Surfaceless,
}

/// The offscreen framebuffer of a headless context.
#[derive(Clone, Copy)]
pub(crate) struct Offscreen {
    pub(crate) fbo: glow::Framebuffer,
    pub(crate) color: glow::Renderbuffer,
}

/// Everything but the glutin context itself; identical in both states.
pub(crate) struct Parts {
    pub(crate) surface: BoundSurface,
    pub(crate) gl: glow::Context,
    pub(crate) offscreen: Option<Offscreen>,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) max_size: u32,
    pub(crate) vsync: bool,
    pub(crate) id: u64,
}

/// Source of [`Parts::id`]: a process-unique context identity, so a
/// renderer can refuse a context it was not created with.
static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(1);

#[cfg_attr(
    target_vendor = "apple",
    expect(
        dead_code,
        reason = "no GL context is made on Apple platforms yet (headless and windowed return Unsupported)"
    )
)]
pub(crate) fn next_context_id() -> u64 {
    // Relaxed: the value is only an identity; no memory is published with it.
    NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// An OpenGL context that is **not current** on any thread.
///
/// This is the form that crosses threads: it is `Send`, and the only thing
/// it can do is become current again ([`GlContext::make_current`]) on the
/// thread that calls it. Obtain one from [`CurrentGlContext::release`].
///
/// Dropping it destroys the context, its surface and its GL objects.
pub struct GlContext {
    // Declared first: destroyed before the surface and the display.
    ctx: NotCurrentContext,
    parts: Parts,
}

impl std::fmt::Debug for GlContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlContext")
            .field("target", &self.parts.target())
            .field("width", &self.parts.width)
            .field("height", &self.parts.height)
            .finish_non_exhaustive()
    }
}

impl GlContext {
    /// Makes the context current on the calling thread (the render thread's
    /// take-over, `on_start`) and rebinds its target: the offscreen
    /// framebuffer of a headless context or the window's back buffer, with
    /// the viewport set to the full target.
    ///
    /// # Errors
    ///
    /// `gl_context/make_current_failed` (`ErrorCode::Failed`) when the
    /// platform refuses; the context is destroyed in that case (glutin
    /// consumes it), so the caller creates a new one.
    pub fn make_current(self) -> Result<CurrentGlContext> {
        let GlContext { ctx, parts } = self;
        let bound = match &parts.surface {
            BoundSurface::Window { surface, .. } => ctx.make_current(surface).map_err(|e| {
                Error::new(ErrorCode::Failed, MAKE_CURRENT_FAILED)
                    .with_detail("binding the window surface")
                    .with_source(e)
            }),
            BoundSurface::Pbuffer(surface) => ctx.make_current(surface).map_err(|e| {
                Error::new(ErrorCode::Failed, MAKE_CURRENT_FAILED)
                    .with_detail("binding the pbuffer surface")
                    .with_source(e)
            }),
            BoundSurface::Surfaceless => make_current_surfaceless(ctx),
        }?;
        let current = CurrentGlContext { ctx: bound, parts };
        current.bind_target();
        Ok(current)
    }

    /// What the context renders into.
    #[must_use]
    pub fn target(&self) -> GlTarget {
        self.parts.target()
    }

    /// The target size in pixels, `(width, height)`.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.parts.width, self.parts.height)
    }

    /// The refresh rate of the window's monitor in whole Hz (rounded), or 0
    /// when unknown or headless. See [`CurrentGlContext::refresh_rate_hz`].
    #[must_use]
    pub fn refresh_rate_hz(&self) -> u32 {
        self.parts.refresh_rate_hz()
    }

    /// The winit window of a windowed context (`None` when headless), for
    /// the event loop's own calls (`request_redraw`, `inner_size`).
    #[must_use]
    pub fn window(&self) -> Option<&Arc<Window>> {
        self.parts.window()
    }
}

/// Makes a surfaceless EGL context current.
fn make_current_surfaceless(ctx: NotCurrentContext) -> Result<PossiblyCurrentContext> {
    match ctx {
        #[cfg(all(any(windows, unix), not(target_vendor = "apple")))]
        NotCurrentContext::Egl(egl) => egl
            .make_current_surfaceless()
            .map(PossiblyCurrentContext::Egl)
            .map_err(|e| {
                Error::new(ErrorCode::Failed, MAKE_CURRENT_FAILED)
                    .with_detail("binding without a surface (EGL_KHR_surfaceless_context)")
                    .with_source(e)
            }),
        #[allow(
            unreachable_patterns,
            reason = "on EGL-only builds every surfaceless context is EGL"
        )]
        _ => Err(Error::new(ErrorCode::Unsupported, MAKE_CURRENT_FAILED)
            .with_detail("a surfaceless context needs EGL")),
    }
}

/// An OpenGL context that is **current on the calling thread**.
///
/// The only door to the GL functions ([`CurrentGlContext::gl`]). Not `Send`:
/// to move the context to another thread, [`release`](Self::release) it
/// and send the resulting [`GlContext`].
///
/// Created current by [`CurrentGlContext::headless`] or
/// [`CurrentGlContext::windowed`]. Dropping it makes the context not current
/// on this thread and destroys it.
///
/// It cannot be sent to another thread (the compiler refuses):
///
/// ```compile_fail
/// fn assert_send<T: Send>() {}
/// assert_send::<laige_render::gl::CurrentGlContext>();
/// ```
pub struct CurrentGlContext {
    // Declared first: destroyed before the surface and the display.
    ctx: PossiblyCurrentContext,
    parts: Parts,
}

impl std::fmt::Debug for CurrentGlContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CurrentGlContext")
            .field("target", &self.parts.target())
            .field("width", &self.parts.width)
            .field("height", &self.parts.height)
            .field("vsync", &self.parts.vsync)
            .finish_non_exhaustive()
    }
}

impl Drop for CurrentGlContext {
    fn drop(&mut self) {
        // Unbind before glutin destroys the context: a context destroyed
        // while current stays alive (deferred) until the thread binds
        // another one. A failure here has no one to report to; the
        // destruction still happens, deferred.
        let _ = self.ctx.make_not_current_in_place();
    }
}

impl CurrentGlContext {
    #[cfg_attr(
        target_vendor = "apple",
        expect(
            dead_code,
            reason = "no GL context is made on Apple platforms yet (headless and windowed return Unsupported)"
        )
    )]
    pub(crate) fn from_parts(ctx: PossiblyCurrentContext, parts: Parts) -> Self {
        Self { ctx, parts }
    }

    /// Makes the context not current on this thread and returns the
    /// `Send` form, for the hand-off to (or back from) the render thread.
    ///
    /// # Errors
    ///
    /// `gl_context/release_failed` (`ErrorCode::Failed`) when the platform
    /// refuses; the context is destroyed in that case.
    pub fn release(self) -> Result<GlContext> {
        let this = ManuallyDrop::new(self);
        // SAFETY: `this` is wrapped in ManuallyDrop, so its Drop (which would
        // use `ctx`) never runs and neither field is dropped in place; each
        // field is read exactly once here and never touched through `this`
        // again, so every value is moved out exactly once.
        let (ctx, parts) = unsafe { (ptr::read(&this.ctx), ptr::read(&this.parts)) };
        // Make sure every GL command issued on this thread is submitted
        // before another thread takes the context over.
        // SAFETY: the context is current on this thread (type invariant).
        unsafe { parts.gl.flush() };
        let ctx = ctx.make_not_current().map_err(|e| {
            Error::new(ErrorCode::Failed, RELEASE_FAILED)
                .with_detail("making the context not current")
                .with_source(e)
        });
        let ctx = ctx?;
        Ok(GlContext { ctx, parts })
    }

    /// The glow function table. Every call on it is `unsafe` in glow; the
    /// "context is current on this thread" half of their safety contract is
    /// what this type guarantees.
    #[must_use]
    pub fn gl(&self) -> &glow::Context {
        &self.parts.gl
    }

    /// What the context renders into.
    #[must_use]
    pub fn target(&self) -> GlTarget {
        self.parts.target()
    }

    /// The target size in pixels, `(width, height)`: the offscreen
    /// framebuffer's size, or the window surface's (as of the last
    /// [`resize`](Self::resize) or creation).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.parts.width, self.parts.height)
    }

    /// The refresh rate of the monitor the window is on, in whole Hz
    /// (rounded from winit's millihertz), or 0 when unknown (no monitor, the
    /// platform does not say) or headless. Queried on each call: a window
    /// that moves to another monitor reports the new rate.
    #[must_use]
    pub fn refresh_rate_hz(&self) -> u32 {
        self.parts.refresh_rate_hz()
    }

    /// The winit window of a windowed context (`None` when headless).
    #[must_use]
    pub fn window(&self) -> Option<&Arc<Window>> {
        self.parts.window()
    }

    /// Whether vsync was requested (the last [`set_vsync`](Self::set_vsync)
    /// or the creation config).
    #[must_use]
    pub fn vsync(&self) -> bool {
        self.parts.vsync
    }

    /// The first lines of every shader compiled on this context: GLSL
    /// 3.30 core (desktop GL 3.3).
    #[must_use]
    pub fn glsl_header(&self) -> &'static str {
        "#version 330 core\n"
    }

    /// A process-unique identity of this context (the same in both states).
    pub(crate) fn id(&self) -> u64 {
        self.parts.id
    }

    /// Presents the frame. Windowed: swaps the window's buffers (blocks for
    /// the vertical blank when vsync is on — see the Wayland note in
    /// the `laige_render::gl` docs). Headless: `glFinish`, so the frame is
    /// complete in the framebuffer when this returns (the offscreen
    /// equivalent of a present).
    ///
    /// # Errors
    ///
    /// `gl_context/swap_failed` (`ErrorCode::Failed`) when the platform swap
    /// fails (a lost surface).
    pub fn swap_buffers(&self) -> Result<()> {
        match &self.parts.surface {
            BoundSurface::Window { surface, .. } => surface.swap_buffers(&self.ctx).map_err(|e| {
                Error::new(ErrorCode::Failed, SWAP_FAILED)
                    .with_detail("swapping the window surface")
                    .with_source(e)
            }),
            BoundSurface::Pbuffer(_) | BoundSurface::Surfaceless => {
                // SAFETY: the context is current on this thread (type invariant).
                unsafe { self.parts.gl.finish() };
                Ok(())
            }
        }
    }

    /// Turns vsync on (swap interval 1) or off (0). Headless: recorded and
    /// otherwise a no-op (an offscreen framebuffer has no vertical blank;
    /// the frame clock paces headless frames).
    ///
    /// # Errors
    ///
    /// `gl_context/vsync_failed` (`ErrorCode::Unsupported`) when the
    /// platform rejects the interval; the previous setting stays.
    pub fn set_vsync(&mut self, on: bool) -> Result<()> {
        if let BoundSurface::Window { surface, .. } = &self.parts.surface {
            let interval = if on {
                SwapInterval::Wait(NonZeroU32::MIN)
            } else {
                SwapInterval::DontWait
            };
            surface
                .set_swap_interval(&self.ctx, interval)
                .map_err(|e| {
                    Error::new(ErrorCode::Unsupported, VSYNC_FAILED)
                        .with_field("vsync")
                        .with_value(on)
                        .with_source(e)
                })?;
        }
        self.parts.vsync = on;
        Ok(())
    }

    /// Resizes the target: the window surface (call it with the window's new
    /// inner size) or the offscreen framebuffer's storage (its contents are
    /// then undefined until the next draw). Sets the viewport to the full
    /// target.
    ///
    /// # Errors
    ///
    /// `gl_context/size_invalid` (`ErrorCode::InvalidArgument`) for a zero
    /// side or one above the driver's limit (at most [`MAX_TARGET_SIZE`]);
    /// nothing changes in that case.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<()> {
        let (w, h) = validate_size(width, height, self.parts.max_size)?;
        match &self.parts.surface {
            BoundSurface::Window { surface, .. } => surface.resize(&self.ctx, w, h),
            BoundSurface::Pbuffer(_) | BoundSurface::Surfaceless => {
                if let Some(off) = self.parts.offscreen {
                    // SAFETY: the context is current on this thread (type
                    // invariant); `off.color` was created by this context and
                    // the size is within the driver's renderbuffer limit.
                    unsafe {
                        let gl = &self.parts.gl;
                        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(off.color));
                        gl.renderbuffer_storage(
                            glow::RENDERBUFFER,
                            glow::RGBA8,
                            gl_i32(width),
                            gl_i32(height),
                        );
                        gl.bind_renderbuffer(glow::RENDERBUFFER, None);
                    }
                }
            }
        }
        self.parts.width = width;
        self.parts.height = height;
        self.bind_target();
        self.check_gl_error("resizing the target")
    }

    /// Reads an RGBA8 region of the current frame (before the swap, for a
    /// window) into a new buffer. See [`read_pixels_into`](Self::read_pixels_into).
    ///
    /// # Errors
    ///
    /// As [`read_pixels_into`](Self::read_pixels_into).
    pub fn read_pixels(&self, x: u32, y: u32, width: u32, height: u32) -> Result<Vec<u8>> {
        let len = region_len(x, y, width, height, self.parts.width, self.parts.height)?;
        let mut out = vec![0_u8; len];
        self.read_pixels_into(x, y, width, height, &mut out)?;
        Ok(out)
    }

    /// Reads an RGBA8 region into `out` (`width × height × 4` bytes),
    /// allocation-free. GL's convention: `(x, y)` is the region's
    /// bottom-left pixel counted from the target's bottom-left corner, and
    /// the rows come bottom row first. A window is read from its back
    /// buffer, so read before [`swap_buffers`](Self::swap_buffers).
    ///
    /// # Errors
    ///
    /// `gl_context/read_region_invalid` (`ErrorCode::InvalidArgument`) when
    /// the region leaves the target, is empty, or `out` has the wrong
    /// length; `gl_context/gl_error` (`ErrorCode::Failed`) when GL reports
    /// an error.
    pub fn read_pixels_into(
        &self,
        x: u32,
        y: u32,
        width: u32,
        height: u32,
        out: &mut [u8],
    ) -> Result<()> {
        // SAFETY: the context is current on this thread (type invariant);
        // the offscreen FBO, when present, was created by it.
        unsafe {
            read_rgba(
                &self.parts.gl,
                self.parts.offscreen.map(|o| o.fbo),
                (x, y, width, height),
                (self.parts.width, self.parts.height),
                out,
            )
        }
    }

    /// Binds the render target (the offscreen FBO or the window's default
    /// framebuffer) for drawing and sets the viewport to all of it.
    pub fn bind_target(&self) {
        let gl = &self.parts.gl;
        // SAFETY: the context is current on this thread (type invariant);
        // the FBO, when present, was created by this context.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, self.parts.offscreen.map(|o| o.fbo));
            gl.viewport(0, 0, gl_i32(self.parts.width), gl_i32(self.parts.height));
        }
    }

    /// Returns `gl_context/gl_error` if GL's error flag is set (and clears it).
    pub(crate) fn check_gl_error(&self, doing: &'static str) -> Result<()> {
        // SAFETY: the context is current on this thread (type invariant).
        unsafe { check_gl_error(&self.parts.gl, doing) }
    }
}

impl Parts {
    fn target(&self) -> GlTarget {
        match self.surface {
            BoundSurface::Window { .. } => GlTarget::Window,
            BoundSurface::Pbuffer(_) => GlTarget::HeadlessPbuffer,
            BoundSurface::Surfaceless => GlTarget::HeadlessSurfaceless,
        }
    }

    fn window(&self) -> Option<&Arc<Window>> {
        match &self.surface {
            BoundSurface::Window { window, .. } => Some(window),
            BoundSurface::Pbuffer(_) | BoundSurface::Surfaceless => None,
        }
    }

    fn refresh_rate_hz(&self) -> u32 {
        self.window()
            .and_then(|w| w.current_monitor())
            .and_then(|m| m.refresh_rate_millihertz())
            .map_or(0, millihertz_to_hz)
    }
}

/// Rounds millihertz to the nearest whole Hz (59_940 mHz → 60 Hz).
pub(crate) fn millihertz_to_hz(mhz: u32) -> u32 {
    mhz / 1000 + u32::from(mhz % 1000 >= 500)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millihertz_rounds_to_nearest_hz() {
        assert_eq!(millihertz_to_hz(0), 0);
        assert_eq!(millihertz_to_hz(59_940), 60);
        assert_eq!(millihertz_to_hz(60_000), 60);
        assert_eq!(millihertz_to_hz(143_856), 144);
        assert_eq!(millihertz_to_hz(59_499), 59);
        assert_eq!(millihertz_to_hz(59_500), 60);
    }

    #[test]
    fn not_current_context_is_send_and_current_is_not() {
        fn assert_send<T: Send>() {}
        assert_send::<GlContext>();
        // `CurrentGlContext: !Send` is the compile_fail doctest on its type.
    }
}
