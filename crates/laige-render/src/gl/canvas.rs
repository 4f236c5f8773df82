//! The browser's context (`wasm32`, feature `web`): a canvas's WebGL2
//! through glow, with the same two types and the same API as the desktop
//! context, so the sprite renderer, the stages, textures and text run on it
//! unchanged.
//!
//! A page has one thread: "current on this thread" always holds, so
//! [`GlContext::make_current`] and [`CurrentGlContext::release`] only move
//! the context between its two types. Presenting is the browser's: the
//! canvas is composited after the frame's `requestAnimationFrame` callback
//! returns, so [`CurrentGlContext::swap_buffers`] does nothing and never
//! blocks.
//!
//! The drawing buffer is made with `alpha: false` and `antialias: false`
//! (as the desktop's offscreen target: one sample, opaque) and
//! `preserveDrawingBuffer: true`, so a test or a screenshot reads the last
//! presented frame at any time.

#![allow(unsafe_code, reason = "glow's GL entry points are unsafe FFI")]

use std::sync::atomic::{AtomicU64, Ordering};

use glow::HasContext;
use laige_core::{Error, ErrorCode, Result};
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, WebGl2RenderingContext, WebGlContextAttributes};

use crate::events::CONTEXT_CREATE_FAILED;

pub use super::target::{GlTarget, MAX_TARGET_SIZE};
pub(crate) use super::target::{check_gl_error, gl_i32, read_rgba, validate_size};

/// Source of [`Parts::id`]: a process-unique context identity.
static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The context's parts, identical in both states.
struct Parts {
    gl: glow::Context,
    canvas: HtmlCanvasElement,
    width: u32,
    height: u32,
    max_size: u32,
    vsync: bool,
    id: u64,
}

/// A canvas's WebGL2 context, **not current** (the desktop's hand-off
/// form; in a page it only becomes current again).
pub struct GlContext {
    parts: Parts,
}

impl std::fmt::Debug for GlContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlContext")
            .field("target", &GlTarget::Canvas)
            .field("width", &self.parts.width)
            .field("height", &self.parts.height)
            .finish_non_exhaustive()
    }
}

impl GlContext {
    /// The context, current (a page has one thread) with its default
    /// framebuffer bound and the viewport set to all of it.
    ///
    /// # Errors
    /// None in a page; the signature is the desktop's.
    pub fn make_current(self) -> Result<CurrentGlContext> {
        let current = CurrentGlContext { parts: self.parts };
        current.bind_target();
        Ok(current)
    }

    /// What the context renders into: [`GlTarget::Canvas`].
    #[must_use]
    pub fn target(&self) -> GlTarget {
        GlTarget::Canvas
    }

    /// The drawing buffer's size in pixels, `(width, height)`.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.parts.width, self.parts.height)
    }

    /// 0: a page does not say its display's refresh rate
    /// (`requestAnimationFrame` follows it).
    #[must_use]
    pub fn refresh_rate_hz(&self) -> u32 {
        0
    }
}

/// A canvas's WebGL2 context, current on the page's thread: the only door
/// to the GL functions ([`gl`](Self::gl)), as on a desktop.
pub struct CurrentGlContext {
    parts: Parts,
}

impl std::fmt::Debug for CurrentGlContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CurrentGlContext")
            .field("target", &GlTarget::Canvas)
            .field("width", &self.parts.width)
            .field("height", &self.parts.height)
            .finish_non_exhaustive()
    }
}

fn canvas_failed(detail: &'static str) -> Error {
    Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
        .with_field("canvas")
        .with_detail(detail)
}

impl CurrentGlContext {
    /// A WebGL2 context on `canvas`, drawing into its drawing buffer
    /// (`canvas.width × canvas.height` pixels).
    ///
    /// # Errors
    /// `gl_context/create_failed` (`Unsupported`) when the browser
    /// has no WebGL2 (or refuses this canvas a context);
    /// `gl_context/size_invalid` for an empty canvas.
    pub fn canvas(canvas: &HtmlCanvasElement) -> Result<Self> {
        let attributes = WebGlContextAttributes::new();
        attributes.set_alpha(false);
        attributes.set_antialias(false);
        attributes.set_depth(false);
        attributes.set_stencil(false);
        attributes.set_premultiplied_alpha(true);
        attributes.set_preserve_drawing_buffer(true);
        let webgl = canvas
            .get_context_with_context_options("webgl2", &attributes)
            .map_err(|_| canvas_failed("getContext(\"webgl2\") threw"))?
            .ok_or_else(|| canvas_failed("this browser has no WebGL2 for the canvas"))?
            .dyn_into::<WebGl2RenderingContext>()
            .map_err(|_| canvas_failed("getContext(\"webgl2\") gave another kind of context"))?;
        let gl = glow::Context::from_webgl2_context(webgl);
        // SAFETY: the context was just created on this (the page's) thread.
        let driver_max = unsafe { gl.get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE) };
        let max_size = u32::try_from(driver_max).unwrap_or(0).min(MAX_TARGET_SIZE);
        let (width, height) = (canvas.width(), canvas.height());
        validate_size(width, height, max_size)?;
        let ctx = Self {
            parts: Parts {
                gl,
                canvas: canvas.clone(),
                width,
                height,
                max_size,
                vsync: true,
                // Relaxed: the value is only an identity.
                id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
            },
        };
        ctx.bind_target();
        Ok(ctx)
    }

    /// The desktop's hand-off form (nothing to unbind in a page).
    ///
    /// # Errors
    /// None in a page; the signature is the desktop's.
    pub fn release(self) -> Result<GlContext> {
        Ok(GlContext { parts: self.parts })
    }

    /// The glow function table.
    #[must_use]
    pub fn gl(&self) -> &glow::Context {
        &self.parts.gl
    }

    /// What the context renders into: [`GlTarget::Canvas`].
    #[must_use]
    pub fn target(&self) -> GlTarget {
        GlTarget::Canvas
    }

    /// The drawing buffer's size in pixels, `(width, height)`, as of the
    /// last [`resize`](Self::resize) or creation.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.parts.width, self.parts.height)
    }

    /// 0: a page does not say its display's refresh rate.
    #[must_use]
    pub fn refresh_rate_hz(&self) -> u32 {
        0
    }

    /// The canvas drawn into.
    #[must_use]
    pub fn html_canvas(&self) -> &HtmlCanvasElement {
        &self.parts.canvas
    }

    /// Whether vsync was requested: the browser composites on its display
    /// refresh whatever this says.
    #[must_use]
    pub fn vsync(&self) -> bool {
        self.parts.vsync
    }

    /// Recorded only: a page's frames follow `requestAnimationFrame`.
    ///
    /// # Errors
    /// None in a page; the signature is the desktop's.
    pub fn set_vsync(&mut self, on: bool) -> Result<()> {
        self.parts.vsync = on;
        Ok(())
    }

    /// The first lines of every shader compiled on this context: GLSL ES
    /// 3.00 (WebGL2) with high float and int precision, so one shader body
    /// serves both this and desktop GL 3.3.
    #[must_use]
    pub fn glsl_header(&self) -> &'static str {
        "#version 300 es\nprecision highp float;\nprecision highp int;\n"
    }

    /// A process-unique identity of this context.
    pub(crate) fn id(&self) -> u64 {
        self.parts.id
    }

    /// Nothing: the browser presents the canvas after the frame's callback
    /// returns (never a blocking swap).
    ///
    /// # Errors
    /// None; the signature is the desktop's.
    pub fn swap_buffers(&self) -> Result<()> {
        Ok(())
    }

    /// Resizes the canvas's drawing buffer to `width × height` (when it is
    /// not that size already) and sets the viewport to all of it.
    ///
    /// # Errors
    /// `gl_context/size_invalid` for a zero side or one above the driver's
    /// limit; nothing changes in that case.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<()> {
        validate_size(width, height, self.parts.max_size)?;
        if self.parts.canvas.width() != width {
            self.parts.canvas.set_width(width);
        }
        if self.parts.canvas.height() != height {
            self.parts.canvas.set_height(height);
        }
        self.parts.width = width;
        self.parts.height = height;
        self.bind_target();
        self.check_gl_error("resizing the target")
    }

    /// Reads an RGBA8 region of the drawing buffer into a new buffer
    /// (bottom row first). See [`read_pixels_into`](Self::read_pixels_into).
    ///
    /// # Errors
    /// As [`read_pixels_into`](Self::read_pixels_into).
    pub fn read_pixels(&self, x: u32, y: u32, width: u32, height: u32) -> Result<Vec<u8>> {
        let len =
            super::target::region_len(x, y, width, height, self.parts.width, self.parts.height)?;
        let mut out = vec![0_u8; len];
        self.read_pixels_into(x, y, width, height, &mut out)?;
        Ok(out)
    }

    /// Reads an RGBA8 region into `out` (`width × height × 4` bytes), GL's
    /// convention: `(x, y)` from the bottom-left, bottom row first.
    ///
    /// # Errors
    /// `gl_context/read_region_invalid` for a region outside the target or
    /// a wrong `out` length; `gl_context/gl_error` when WebGL reports one.
    pub fn read_pixels_into(
        &self,
        x: u32,
        y: u32,
        width: u32,
        height: u32,
        out: &mut [u8],
    ) -> Result<()> {
        // SAFETY: the context is current on the page's one thread; the
        // default framebuffer is the canvas's.
        unsafe {
            read_rgba(
                &self.parts.gl,
                None,
                (x, y, width, height),
                (self.parts.width, self.parts.height),
                out,
            )
        }
    }

    /// Binds the canvas's framebuffer for drawing and sets the viewport to
    /// all of it.
    pub fn bind_target(&self) {
        // SAFETY: the context is current on the page's one thread.
        unsafe {
            self.parts.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            self.parts
                .gl
                .viewport(0, 0, gl_i32(self.parts.width), gl_i32(self.parts.height));
        }
    }

    /// Returns `gl_context/gl_error` if WebGL's error flag is set (and
    /// clears it).
    pub(crate) fn check_gl_error(&self, doing: &'static str) -> Result<()> {
        // SAFETY: the context is current on the page's one thread.
        unsafe { check_gl_error(&self.parts.gl, doing) }
    }
}
