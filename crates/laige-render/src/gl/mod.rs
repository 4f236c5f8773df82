//! OpenGL on glutin and glow: the [`GlContext`] (windowed or headless) and
//! the sprite batcher (cull + instance build on the CPU, instanced quads on
//! the GPU).
//!
//! Behind the default `gl` cargo feature; a build without it keeps the frame
//! handoff, the render thread and the frame clock and links no GL at all.
//!
//! ```text
//!  main thread                          render thread
//!  ───────────                          ─────────────
//!  CurrentGlContext::headless(..)
//!     or ::windowed(event_loop, ..)
//!  .release() ──► GlContext (Send) ──►  .make_current() ──► CurrentGlContext
//!                                        SpriteBatcher::build   (batch stage)
//!                                        SpriteRenderer::draw   (submit stage)
//!                                        swap_buffers
//!                 GlContext ◄──────────  .release()             (on_stop)
//! ```
//!
//! [`SpriteStages`] packages the right-hand column as the render thread's
//! `RenderStages<Sprite>` (build it on the render thread with
//! `RenderThread::spawn`).
//!
//! The two context states are two types: [`GlContext`] is not current on
//! any thread and is `Send`, so it can cross to the render thread;
//! [`CurrentGlContext`] is current on the thread that holds it, is not
//! `Send`, and is the only way to reach the GL functions ([`CurrentGlContext::gl`]).
//! The contract is in `docs/api/gl_context.md` and `docs/api/sprite_batcher.md`.

mod batcher;
mod context;
mod headless;
mod image;
mod shapes;
mod sprite_renderer;
mod stages;
mod text;
mod texture_queue;
mod windowed;

pub use batcher::{
    Batch, BatchParams, BatchStats, MAX_SPRITES_PER_FRAME, Shape, Space, Sprite, SpriteBatcher,
    SpriteInstance, TextureId, ViewRect,
};
pub use context::{CurrentGlContext, GlContext, GlTarget, MAX_TARGET_SIZE};
pub use headless::{HeadlessConfig, HeadlessSurface};
pub use image::{Image, MAX_IMAGE_SIDE};
pub use sprite_renderer::{
    DrawStats, SpriteRenderer, TextureFilter, TextureOptions, ViewPolicy, view_viewport,
};
pub use stages::{FixedView, SpriteFrameHook, SpriteStages, SpriteStagesConfig, TextureUpload};
pub use text::{Align, Font, TextStyle};
pub use texture_queue::TextureQueue;
pub use windowed::WindowedConfig;
