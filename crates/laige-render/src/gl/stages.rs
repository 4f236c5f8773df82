//! [`SpriteStages`]: the sprite batcher and renderer as the render thread's
//! stages (`RenderStages<Sprite>`), owning the GL context on that thread.
//!
//! ```text
//!  owner thread                          render thread
//!  gl = CurrentGlContext::headless(..)?
//!       .release()?            ──Send──► make_stages: SpriteStages::new(gl, ..)
//!                                        on_start:  make_current, renderer, textures,
//!                                                   hook.on_start
//!  writer().extend(sprites)
//!  submit_frame(desc)          ────────► batch:     hook.params(frame) → build
//!                                        submit:    clear, hook.before_draw, draw,
//!                                                   hook.after_draw, swap
//!  shutdown()                  ────────► on_stop:   hook.on_stop, destroy renderer,
//!                                                   release context
//! ```
//!
//! Built on the render thread through `RenderThread::spawn`, so the stages —
//! which hold a [`CurrentGlContext`] between `on_start` and `on_stop` — never
//! need to be `Send`; only the released [`GlContext`] crosses threads.

use crate::events::STAGES_NOT_RUNNING;
use laige_core::{Error, ErrorCode, Result};

use super::batcher::{BatchParams, Sprite, SpriteBatcher};
use super::context::{CurrentGlContext, GlContext};
use super::sprite_renderer::{DrawStats, SpriteRenderer, TextureOptions, ViewPolicy};
use super::surface::SurfaceSize;
use super::texture_queue::TextureQueue;
use crate::{FrameDescriptor, RenderStages};

/// Per-frame decisions of [`SpriteStages`], with static dispatch.
pub trait SpriteFrameHook {
    /// The frame's view and interpolation alpha (the batch stage's input
    /// beside the sprites). Called once per rendered frame, first.
    fn params(&mut self, frame: &FrameDescriptor) -> BatchParams;

    /// Called once on the render thread when the stages start, with the
    /// context current: the place to create GL objects of a pass of the
    /// game's own. Default: nothing.
    ///
    /// # Errors
    ///
    /// An error fails the start (the context is released again).
    fn on_start(&mut self, ctx: &CurrentGlContext) -> Result<()> {
        let _ = ctx;
        Ok(())
    }

    /// Called every frame after the clear and before the sprites are drawn,
    /// with the target bound: a background pass. The sprite renderer then
    /// binds the target again and sets every GL state it draws with itself
    /// (program, vertex array, buffer, blending, viewport, texture unit 0),
    /// so a pass may change those freely. Default: nothing.
    ///
    /// # Errors
    ///
    /// An error fails the render thread.
    fn before_draw(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
        let _ = (ctx, frame);
        Ok(())
    }

    /// Called once when the stages stop, before the renderer's GL objects
    /// are freed and the context is released: free the pass's own GL
    /// objects here. Default: nothing.
    fn on_stop(&mut self, ctx: &CurrentGlContext) {
        let _ = ctx;
    }

    /// Called after the frame is drawn and before it is presented: the
    /// read-back point (a window's back buffer is still readable here) for
    /// tests and screenshots. Default: nothing.
    ///
    /// # Errors
    ///
    /// An error fails the render thread.
    fn after_draw(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
        let _ = (ctx, frame);
        Ok(())
    }
}

/// The ready-made hook: the same [`BatchParams`] every frame, nothing after
/// the draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedView(pub BatchParams);

impl SpriteFrameHook for FixedView {
    fn params(&mut self, _frame: &FrameDescriptor) -> BatchParams {
        self.0
    }
}

/// One texture to upload when the stages start (ids 1, 2, … in order;
/// id 0 is the built-in white).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureUpload {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// `width × height × 4` bytes of RGBA8, top row first.
    pub rgba: Vec<u8>,
    /// Sampling options.
    pub options: TextureOptions,
}

/// Configures [`SpriteStages`].
#[derive(Clone, Debug, PartialEq)]
pub struct SpriteStagesConfig {
    /// The color each frame starts from (straight RGBA, `0..=1`). Default
    /// opaque black.
    pub clear_color: [f32; 4],
    /// Textures uploaded in `on_start`, in order.
    pub textures: Vec<TextureUpload>,
    /// Sprites the batcher reserves room for up front (so the first frames
    /// do not grow its buffers). Default 0.
    pub sprite_capacity: usize,
    /// Textures (PNG images, font atlases) loaded while the stages run:
    /// uploaded on the render thread before the next draw. Its ids start
    /// at 1 like `textures`': use one or the other. Default none.
    pub texture_queue: Option<TextureQueue>,
    /// How the world view sits on the target. Default
    /// [`ViewPolicy::Stretch`].
    pub view_policy: ViewPolicy,
    /// The window's size and scale factor as its event loop last saw them:
    /// `submit` resizes the surface (and sets the renderer's scale factor)
    /// when it changed. Default none (the target keeps its size).
    pub surface_size: Option<SurfaceSize>,
}

impl Default for SpriteStagesConfig {
    fn default() -> Self {
        Self {
            clear_color: [0.0, 0.0, 0.0, 1.0],
            textures: Vec::new(),
            sprite_capacity: 0,
            texture_queue: None,
            view_policy: ViewPolicy::Stretch,
            surface_size: None,
        }
    }
}

enum State {
    /// Built, not started: the released context waits for `on_start`.
    Idle(GlContext),
    /// Between `on_start` and `on_stop`: current on the render thread.
    Running {
        ctx: CurrentGlContext,
        renderer: SpriteRenderer,
    },
    /// The context is gone (a failed take-over destroyed it).
    Gone,
}

/// The sprite pipeline as the render thread's stages: `batch` culls and
/// builds the instances from the frame's [`Sprite`] payload, `submit` draws
/// and presents; `on_start`/`on_stop` take the GL context over and hand it
/// back. See the `SpriteBatcher` docs.
///
/// ```
/// use laige_render::gl::{
///     BatchParams, CurrentGlContext, FixedView, HeadlessConfig, Sprite, SpriteStages,
///     SpriteStagesConfig, ViewRect,
/// };
/// use laige_render::{FrameDescriptor, RenderThread, RenderThreadConfig};
///
/// let Ok(ctx) = CurrentGlContext::headless(&HeadlessConfig::default()) else {
///     return Ok(()); // no EGL on this machine
/// };
/// let gl = ctx.release()?;
/// let view = BatchParams { view: ViewRect::new(0.0, 0.0, 256.0, 256.0)?, alpha: 1.0 };
/// let mut rt = RenderThread::spawn(RenderThreadConfig::default(), move || {
///     Ok(SpriteStages::new(gl, SpriteStagesConfig::default(), FixedView(view)))
/// })?;
/// rt.writer().push(Sprite::quad([128.0, 128.0], [32.0, 32.0], [1.0, 0.0, 0.0, 1.0]));
/// rt.submit_frame(FrameDescriptor { frame_index: 1, ..FrameDescriptor::default() })?;
/// rt.wait_idle()?;
/// assert_eq!(rt.stats().rendered, 1);
/// rt.shutdown()?;
/// # Ok::<(), laige_core::Error>(())
/// ```
pub struct SpriteStages<H> {
    state: State,
    batcher: SpriteBatcher,
    config: SpriteStagesConfig,
    hook: H,
    last_draw: DrawStats,
}

impl<H: SpriteFrameHook> SpriteStages<H> {
    /// Stages that will take `ctx` over in `on_start`.
    #[must_use]
    pub fn new(ctx: GlContext, config: SpriteStagesConfig, hook: H) -> Self {
        Self {
            state: State::Idle(ctx),
            batcher: SpriteBatcher::with_capacity(config.sprite_capacity),
            config,
            hook,
            last_draw: DrawStats::default(),
        }
    }

    /// The hook.
    #[must_use]
    pub fn hook(&self) -> &H {
        &self.hook
    }

    /// The batcher, holding the last frame's instances and stats.
    #[must_use]
    pub fn batcher(&self) -> &SpriteBatcher {
        &self.batcher
    }

    /// What the last `submit` drew.
    #[must_use]
    pub fn last_draw(&self) -> DrawStats {
        self.last_draw
    }

    /// Whether the context is current here (between `on_start` and `on_stop`).
    #[must_use]
    pub fn is_running(&self) -> bool {
        matches!(self.state, State::Running { .. })
    }

    fn not_running(stage: &'static str) -> Error {
        Error::new(ErrorCode::InvalidState, STAGES_NOT_RUNNING)
                .with_field(stage)
                .with_detail("the stages hold no current GL context (on_start has not run, failed, or on_stop ran)")
    }

    /// Builds the renderer and uploads the textures on a current context.
    fn start(&self, ctx: &CurrentGlContext) -> Result<SpriteRenderer> {
        let mut renderer = SpriteRenderer::new(ctx)?;
        renderer.set_view_policy(self.config.view_policy);
        if let Some(queue) = &self.config.texture_queue {
            renderer.attach_texture_queue(queue.clone());
        }
        for t in &self.config.textures {
            if let Err(e) = renderer.upload_texture(ctx, t.width, t.height, &t.rgba, t.options) {
                renderer.destroy(ctx);
                return Err(e);
            }
        }
        Ok(renderer)
    }
}

impl<H: SpriteFrameHook> RenderStages<Sprite> for SpriteStages<H> {
    /// Makes the context current on the render thread, builds the renderer
    /// and uploads the configured textures. On a failure after the
    /// take-over, the context is released again (`on_stop` does not run
    /// after a failed `on_start`).
    fn on_start(&mut self) -> Result<()> {
        let gl = match std::mem::replace(&mut self.state, State::Gone) {
            State::Idle(gl) => gl,
            running @ State::Running { .. } => {
                self.state = running;
                return Ok(());
            }
            State::Gone => return Err(Self::not_running("on_start")),
        };
        let ctx = gl.make_current()?;
        let started = self
            .start(&ctx)
            .and_then(|renderer| match self.hook.on_start(&ctx) {
                Ok(()) => Ok(renderer),
                Err(e) => {
                    renderer.destroy(&ctx);
                    Err(e)
                }
            });
        match started {
            Ok(renderer) => {
                self.state = State::Running { ctx, renderer };
                Ok(())
            }
            Err(e) => {
                if let Ok(gl) = ctx.release() {
                    self.state = State::Idle(gl);
                }
                Err(e)
            }
        }
    }

    /// `hook.params(frame)`, then [`SpriteBatcher::build`] over the payload.
    fn batch(&mut self, frame: &FrameDescriptor, payload: &[Sprite]) -> Result<()> {
        if !self.is_running() {
            return Err(Self::not_running("batch"));
        }
        let params = self.hook.params(frame);
        self.batcher.build(payload, &params).map(|_| ())
    }

    /// Clear, `hook.before_draw`, draw the batches, `hook.after_draw`,
    /// present.
    fn submit(&mut self, frame: &FrameDescriptor, _payload: &[Sprite]) -> Result<()> {
        let State::Running { ctx, renderer } = &mut self.state else {
            return Err(Self::not_running("submit"));
        };
        if let Some((w, h, scale)) = self
            .config
            .surface_size
            .as_ref()
            .and_then(SurfaceSize::latest)
            && ((w, h) != ctx.size() || scale != renderer.scale_factor())
        {
            // A size the surface refuses (0, above its limit) is the
            // window's transient state: keep drawing at the old size.
            if (w, h) != ctx.size() {
                let _ = ctx.resize(w, h);
            }
            let _ = renderer.set_scale_factor(scale);
        }
        renderer.clear(ctx, self.config.clear_color)?;
        self.hook.before_draw(ctx, frame)?;
        self.last_draw = renderer.draw(ctx, &self.batcher)?;
        self.hook.after_draw(ctx, frame)?;
        ctx.swap_buffers()
    }

    /// Frees the renderer's GL objects and releases the context (the
    /// hand-back), before the render thread ends.
    fn on_stop(&mut self) -> Result<()> {
        match std::mem::replace(&mut self.state, State::Gone) {
            State::Running { ctx, renderer } => {
                self.hook.on_stop(&ctx);
                renderer.destroy(&ctx);
                self.state = State::Idle(ctx.release()?);
                Ok(())
            }
            other => {
                self.state = other;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gl::ViewRect;

    #[test]
    fn fixed_view_returns_its_params_for_every_frame() {
        let p = BatchParams {
            view: ViewRect::new(0.0, 0.0, 10.0, 10.0).unwrap(),
            alpha: 0.25,
        };
        let mut hook = FixedView(p);
        for i in [1, 2, 99] {
            let d = FrameDescriptor {
                frame_index: i,
                ..FrameDescriptor::default()
            };
            assert_eq!(hook.params(&d), p);
        }
    }

    #[test]
    fn default_config_is_opaque_black_without_textures() {
        let c = SpriteStagesConfig::default();
        assert_eq!(c.clear_color, [0.0, 0.0, 0.0, 1.0]);
        assert!(c.textures.is_empty());
        assert_eq!(c.sprite_capacity, 0);
        assert!(c.texture_queue.is_none() && c.surface_size.is_none());
        assert_eq!(c.view_policy, ViewPolicy::Stretch);
    }
}
