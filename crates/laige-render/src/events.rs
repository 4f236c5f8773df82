//! Every event id laige-render raises, in one place, and their emission.
//!
//! Every id is part of the contract (tests and dashboards match on the
//! `subsystem/event` text): the render thread's ids are public; those of
//! the GL pipeline (the batcher, text, textures, the GL context, the
//! sprite renderer and stages) are crate-private constants, reached through
//! the errors and events that carry them. Emission goes through one macro
//! so the crate's events all look alike: `subsystem/event`, a severity,
//! named fields.

use laige_core::{Error, EventId};

/// Info: the render thread was spawned (once per `RenderThread`).
pub const THREAD_STARTED: EventId = EventId::new("render_thread", "thread_started");
/// Info: the render thread was stopped and joined (once per actual stop).
pub const THREAD_STOPPED: EventId = EventId::new("render_thread", "thread_stopped");
/// Warn (rate-limited): a pending frame was replaced before it was rendered.
/// Fields `dropped_frame`, `new_frame` (frame indices).
pub const FRAME_DROPPED: EventId = EventId::new("render_thread", "frame_dropped");
/// Error: a stage or hook panicked; the render thread stopped rendering.
/// Fields `stage`, `message`.
pub const STAGE_PANICKED: EventId = EventId::new("render_thread", "stage_panicked");
/// Error: a stage or hook returned an error; the render thread stopped
/// rendering. Fields `stage`, `error`.
pub const STAGE_FAILED: EventId = EventId::new("render_thread", "stage_failed");
/// `render_thread/stage_stuck` (Error): a stage had not returned when the
/// owner's deadline (the bounded shutdown) passed; fields `stage`,
/// `during`. The thread is left running and reported, not joined.
pub const STAGE_STUCK: EventId = EventId::new("render_thread", "stage_stuck");
/// The id of the `InvalidArgument` a stopped render thread returns (never
/// logged: asking a stopped thread is a precondition query).
pub const NOT_RUNNING: EventId = EventId::new("render_thread", "not_running");
/// The id of the error a thread that could not be spawned returns.
pub const SPAWN_FAILED: EventId = EventId::new("render_thread", "spawn_failed");
/// Warn (rate-limited): a `FrameClock` was asked for a rate outside 1–1000 Hz.
pub const FRAME_RATE_INVALID: EventId = EventId::new("render_thread", "frame_rate_invalid");

/// `sprite_batcher/view_invalid`: a view rectangle that is not finite or
/// has `min >= max` (InvalidArgument).
pub(crate) const BATCH_VIEW_INVALID: EventId = EventId::new("sprite_batcher", "view_invalid");
/// `sprite_batcher/alpha_invalid`: an interpolation alpha outside `[0, 1]`
/// (InvalidArgument).
pub(crate) const BATCH_ALPHA_INVALID: EventId = EventId::new("sprite_batcher", "alpha_invalid");
/// `sprite_batcher/sprite_rejected` (Warn, rate-limited): sprites with
/// non-finite geometry were dropped; fields `rejected`, `input`.
pub(crate) const SPRITE_REJECTED: EventId = EventId::new("sprite_batcher", "sprite_rejected");
/// `sprite_batcher/too_many_sprites`: more sprites in one frame than
/// [`MAX_SPRITES_PER_FRAME`](crate::gl::MAX_SPRITES_PER_FRAME)
/// (InvalidArgument).
pub(crate) const TOO_MANY_SPRITES: EventId = EventId::new("sprite_batcher", "too_many_sprites");

/// `text/font_invalid`: a font file could not be read or parsed, or a size
/// is out of range.
#[cfg(feature = "gl")]
pub(crate) const FONT_INVALID: EventId = EventId::new("text", "font_invalid");

/// `texture/load_failed`: a PNG file could not be read or decoded (Io or
/// Corrupt; the detail says why).
#[cfg(feature = "gl")]
pub(crate) const IMAGE_LOAD_FAILED: EventId = EventId::new("texture", "load_failed");
/// `texture/image_invalid`: an image with a zero or too large side, or
/// texels of the wrong length (InvalidArgument).
#[cfg(feature = "gl")]
pub(crate) const IMAGE_INVALID: EventId = EventId::new("texture", "image_invalid");
/// `texture/queue_full`: more than `u32::MAX` textures were requested from
/// one queue.
#[cfg(feature = "gl")]
pub(crate) const TEXTURE_QUEUE_FULL: EventId = EventId::new("texture", "queue_full");

/// `sprite_stages/not_running`: a stage ran while the stages hold no
/// current context (before `on_start`, after `on_stop`, or after a failed
/// take-over).
#[cfg(feature = "gl")]
pub(crate) const STAGES_NOT_RUNNING: EventId = EventId::new("sprite_stages", "not_running");

/// `gl_context/create_failed`: a platform call creating the context, its
/// surface or its framebuffer failed (Failed), or the platform lacks EGL, a
/// matching config or OpenGL 3.3 core (Unsupported); in a browser, the
/// canvas gives no WebGL2 context (Unsupported).
#[cfg(feature = "gl")]
pub(crate) const CONTEXT_CREATE_FAILED: EventId = EventId::new("gl_context", "create_failed");
/// `gl_context/size_invalid`: a target size outside the accepted range
/// (InvalidArgument).
#[cfg(feature = "gl")]
pub(crate) const CONTEXT_SIZE_INVALID: EventId = EventId::new("gl_context", "size_invalid");
/// `gl_context/make_current_failed`: `eglMakeCurrent`/`glXMakeCurrent`
/// failed while binding.
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
pub(crate) const MAKE_CURRENT_FAILED: EventId = EventId::new("gl_context", "make_current_failed");
/// `gl_context/release_failed`: releasing (make-not-current) failed.
// A canvas is never released, swapped or given a swap interval.
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
pub(crate) const RELEASE_FAILED: EventId = EventId::new("gl_context", "release_failed");
/// `gl_context/swap_failed`: the buffer swap failed.
// A canvas is never released, swapped or given a swap interval.
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
pub(crate) const SWAP_FAILED: EventId = EventId::new("gl_context", "swap_failed");
/// `gl_context/vsync_failed`: setting the swap interval failed.
// A canvas is never released, swapped or given a swap interval.
#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
pub(crate) const VSYNC_FAILED: EventId = EventId::new("gl_context", "vsync_failed");
/// `gl_context/read_region_invalid`: a read-back region or buffer that does
/// not fit the target (InvalidArgument).
#[cfg(feature = "gl")]
pub(crate) const READ_REGION_INVALID: EventId = EventId::new("gl_context", "read_region_invalid");
/// `gl_context/gl_error`: a GL error was raised by a context operation
/// (read-back, resize).
#[cfg(feature = "gl")]
pub(crate) const GL_ERROR: EventId = EventId::new("gl_context", "gl_error");

/// `sprite_renderer/shader_failed`: compiling or linking the sprite
/// shaders failed (the info log is the detail).
#[cfg(feature = "gl")]
pub(crate) const SHADER_FAILED: EventId = EventId::new("sprite_renderer", "shader_failed");
/// `sprite_renderer/create_failed`: creating a GL object failed.
#[cfg(feature = "gl")]
pub(crate) const RENDERER_CREATE_FAILED: EventId = EventId::new("sprite_renderer", "create_failed");
/// `sprite_renderer/context_mismatch`: the renderer was used with a context
/// it was not created on.
#[cfg(feature = "gl")]
pub(crate) const CONTEXT_MISMATCH: EventId = EventId::new("sprite_renderer", "context_mismatch");
/// `sprite_renderer/texture_unknown`: a batch names a texture this renderer
/// did not issue.
#[cfg(feature = "gl")]
pub(crate) const TEXTURE_UNKNOWN: EventId = EventId::new("sprite_renderer", "texture_unknown");
/// `sprite_renderer/texture_invalid`: a texture upload with a bad size or
/// data length.
#[cfg(feature = "gl")]
pub(crate) const TEXTURE_INVALID: EventId = EventId::new("sprite_renderer", "texture_invalid");
/// `sprite_renderer/texture_upload_failed`: a queued texture the driver
/// refused (it draws as the white texture).
#[cfg(feature = "gl")]
pub(crate) const TEXTURE_UPLOAD_FAILED: EventId =
    EventId::new("sprite_renderer", "texture_upload_failed");
/// `sprite_renderer/scale_factor_invalid`: a scale factor that is not
/// finite and positive.
#[cfg(feature = "gl")]
pub(crate) const SCALE_INVALID: EventId = EventId::new("sprite_renderer", "scale_factor_invalid");

/// Emits a structured event: `emit!(Warn, ID, field = value, ...)`.
// A thin alias of `laige_core::event!` (rate-limited per id and severity;
// fields are not evaluated when suppressed), discarding its "emitted" flag.
macro_rules! emit {
    ($sev:ident, $($rest:tt)+) => {{
        let _ = ::laige_core::event!($sev, $($rest)+);
    }};
}
pub(crate) use emit;

/// Reports a validation error as its rate-limited Warn event.
pub(crate) fn report(err: &Error) {
    let _ = laige_core::diag::report(err);
}
