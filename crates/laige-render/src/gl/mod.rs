//! OpenGL on glutin and glow: the [`GlContext`] (windowed or headless) and
//! the sprite batcher (cull + instance build on the CPU, instanced quads on
//! the GPU).
//!
//! The context, the renderer and the stages are behind the default `gl`
//! cargo feature; a build without it keeps the frame handoff, the render
//! thread, the frame clock and the sprite batcher's plain data and CPU
//! side ([`Sprite`], [`ViewRect`], [`SpriteBatcher`]) and links no GL at
//! all, so code that produces sprites compiles the same either way.
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
//! The contract is in the `laige_render::gl` docs and the `SpriteBatcher` docs.
//!
#![doc = include_str!("context.md")]

mod batcher;
// The context: glutin's on a desktop, a canvas's WebGL2 in a browser
// (wasm32, feature `web`); both with the same API, over `target`'s rules.
#[cfg(all(feature = "gl", target_arch = "wasm32"))]
#[path = "canvas.rs"]
mod context;
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
mod context;
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
mod headless;
#[cfg(feature = "gl")]
mod image;
mod shapes;
#[cfg(feature = "gl")]
mod sprite_renderer;
#[cfg(feature = "gl")]
mod stages;
#[cfg(feature = "gl")]
mod surface;
#[cfg(feature = "gl")]
mod target;
#[cfg(feature = "gl")]
mod text;
#[cfg(feature = "gl")]
mod texture_queue;
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
mod windowed;

pub use batcher::{
    Batch, BatchParams, BatchStats, MAX_SPRITES_PER_FRAME, Shape, Space, Sprite, SpriteBatcher,
    SpriteInstance, TextureId, ViewRect,
};
#[cfg(feature = "gl")]
pub use context::{CurrentGlContext, GlContext, GlTarget, MAX_TARGET_SIZE};
/// The GL bindings [`CurrentGlContext::gl`] hands out, for a pass of the
/// game's own (`SpriteFrameHook::before_draw`, the engine's `RenderPass`).
#[cfg(feature = "gl")]
pub use glow;
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
pub use headless::{HeadlessConfig, HeadlessSurface};
#[cfg(feature = "gl")]
pub use image::{Image, MAX_IMAGE_SIDE};
#[cfg(feature = "gl")]
pub use sprite_renderer::{
    DrawStats, SpriteRenderer, TextureFilter, TextureOptions, ViewPolicy, view_viewport,
};
#[cfg(feature = "gl")]
pub use stages::{FixedView, SpriteFrameHook, SpriteStages, SpriteStagesConfig, TextureUpload};
#[cfg(feature = "gl")]
pub use surface::SurfaceSize;
#[cfg(feature = "gl")]
pub use text::{Align, Font, TextStyle};
#[cfg(feature = "gl")]
pub use texture_queue::TextureQueue;
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
pub use windowed::WindowedConfig;
