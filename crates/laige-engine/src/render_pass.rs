//! [`RenderPass`]: a GL pass of the game's own, drawn by the render thread
//! in every frame of a run around the engine's sprites.
//!
//! ```text
//! render thread (per run)            per frame (submit stage)
//! factory() → Box<dyn RenderPass>    clear
//! pass.start(ctx)                    pass.before_sprites(ctx, frame)   a background
//!                                    sprites (world, then screen/HUD layers)
//!                                    pass.after_sprites(ctx, frame)    an overlay, a post effect
//! pass.stop(ctx)                     [capture], swap
//! ```
//!
//! The pass lives on the render thread only: it is made there by the
//! [`RenderPassFactory`] of [`EngineOptions::render_pass`](crate::EngineOptions::render_pass)
//! (a fresh pass per run), so its GL objects never cross threads. What it
//! knows of the simulation is the frame's
//! [`FrameDescriptor`](laige_render::FrameDescriptor): the frame index, the
//! tick, the presentation time and alpha — data the game wants to hand it
//! every frame goes through its own channel (an atomic, a triple buffer).
//! The GL bindings are [`laige_render::gl::glow`], reached through
//! [`CurrentGlContext::gl`].

use std::sync::Arc;

use laige_core::Result;
use laige_render::FrameDescriptor;
use laige_render::gl::CurrentGlContext;

/// A GL pass of the game's own (see the module docs). Every method has a
/// default that does nothing.
///
/// The sprite renderer binds the target and sets every GL state it draws
/// with itself (program, vertex array, buffer, blending, viewport, texture
/// unit 0), so a pass may change those freely; it draws into the bound
/// target (the window's back buffer or the headless framebuffer), whose
/// size is [`CurrentGlContext::size`] in physical pixels.
pub trait RenderPass: Send + 'static {
    /// Once per run, on the render thread, with the context current:
    /// compile shaders, create buffers.
    ///
    /// # Errors
    /// The run fails to start (the error is the run's).
    fn start(&mut self, ctx: &CurrentGlContext) -> Result<()> {
        let _ = ctx;
        Ok(())
    }

    /// Every frame, after the clear and before the sprites.
    ///
    /// # Errors
    /// An error fails the render thread: the run ends with exit code 4.
    fn before_sprites(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
        let _ = (ctx, frame);
        Ok(())
    }

    /// Every frame, after the sprites (the HUD included) and before a
    /// capture and the swap.
    ///
    /// # Errors
    /// As [`before_sprites`](Self::before_sprites).
    fn after_sprites(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
        let _ = (ctx, frame);
        Ok(())
    }

    /// Once per run, before the context is released: delete the pass's GL
    /// objects.
    fn stop(&mut self, ctx: &CurrentGlContext) {
        let _ = ctx;
    }
}

/// Makes a [`RenderPass`] on the render thread when a run starts (cheap to
/// clone: every clone is the same factory).
///
/// ```
/// use laige_engine::{EngineOptions, RenderPass, RenderPassFactory};
///
/// struct Nothing;
/// impl RenderPass for Nothing {}
///
/// let options = EngineOptions {
///     render_pass: Some(RenderPassFactory::new(|| Nothing)),
///     ..EngineOptions::default()
/// };
/// # let _ = options;
/// ```
#[derive(Clone)]
pub struct RenderPassFactory(Arc<dyn Fn() -> Box<dyn RenderPass> + Send + Sync>);

impl RenderPassFactory {
    /// A factory calling `make` once per run.
    pub fn new<P: RenderPass, F: Fn() -> P + Send + Sync + 'static>(make: F) -> Self {
        Self(Arc::new(move || Box::new(make())))
    }

    /// A new pass.
    pub(crate) fn make(&self) -> Box<dyn RenderPass> {
        (self.0)()
    }
}

impl std::fmt::Debug for RenderPassFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RenderPassFactory")
    }
}
