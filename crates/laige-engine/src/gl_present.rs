//! The engine's render side (feature `gl`): the render thread running
//! laige-render's sprite stages on a GL context it took over, fed one
//! frame at a time through the handoff — the game's sprites in the payload
//! pool, the presentation alpha and the interpolate flag in the frame's
//! descriptor.
//!
//! ```text
//!  main thread (sim)                           render thread "laige-render"
//!  Game::present::<S>(world) → writer (Vec<Sprite>)
//!  submit_frame{frame, tick, render_time,
//!               alpha, interpolate} ──────────► batch: view + blend factor → cull/instances
//!                                                    submit: clear, draw, [capture], swap
//!                                                    first frame: on_first_present()
//!  shutdown: wait_idle (last frame) ─────────────────► ...
//!            shutdown (stop + join) ─────────────────► on_stop: renderer destroyed,
//!                                                      context released; stages dropped
//!                                                      (the context destroyed) on this thread
//! ```

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use laige_core::{Result, event};
#[cfg(not(target_arch = "wasm32"))]
use laige_render::gl::HeadlessConfig;
use laige_render::gl::{
    BatchParams, CurrentGlContext, GlContext, Sprite, SpriteFrameHook, SpriteStages,
    SpriteStagesConfig, SurfaceSize, ViewRect,
};
use laige_render::{FrameDescriptor, RenderStages};
#[cfg(not(target_arch = "wasm32"))]
use laige_render::{FrameStats, RenderThread, RenderThreadConfig};

use crate::events;
use crate::frame::Assets;
use crate::options::{EngineOptions, FrameCapture};
#[cfg(not(target_arch = "wasm32"))]
use crate::presenter::Presenter;
use crate::render_pass::{RenderPass, RenderPassFactory};

/// The per-frame decisions: the game's view and the frame's blend factor
/// ([`FrameDescriptor::blend_factor`]); the optional capture of one frame.
struct EngineFrameHook {
    view: ViewRect,
    capture: Option<FrameCapture>,
    /// The game's own GL pass, made on the render thread.
    pass: Option<Box<dyn RenderPass>>,
    factory: Option<RenderPassFactory>,
}

impl SpriteFrameHook for EngineFrameHook {
    fn params(&mut self, frame: &FrameDescriptor) -> BatchParams {
        BatchParams {
            view: self.view,
            alpha: frame.blend_factor(),
        }
    }

    fn on_start(&mut self, ctx: &CurrentGlContext) -> Result<()> {
        if let Some(factory) = self.factory.take() {
            let mut pass = factory.make();
            pass.start(ctx)?;
            self.pass = Some(pass);
        }
        Ok(())
    }

    fn before_draw(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
        self.pass
            .as_mut()
            .map_or(Ok(()), |p| p.before_sprites(ctx, frame))
    }

    fn on_stop(&mut self, ctx: &CurrentGlContext) {
        if let Some(mut pass) = self.pass.take() {
            pass.stop(ctx);
        }
    }

    fn after_draw(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
        if let Some(pass) = self.pass.as_mut() {
            pass.after_sprites(ctx, frame)?;
        }
        if self
            .capture
            .as_ref()
            .is_some_and(|c| frame.frame_index >= c.frame)
            && let Some(capture) = self.capture.take()
        {
            let (w, h) = ctx.size();
            let outcome = ctx
                .read_pixels(0, 0, w, h)
                .map_err(|e| e.to_string())
                .and_then(|rgba| write_ppm(&capture.path, w, h, &rgba).map_err(|e| e.to_string()));
            if let Err(error) = outcome {
                event!(
                    Warn,
                    events::CAPTURE_FAILED,
                    path = %capture.path.display(),
                    error = %error
                );
            }
        }
        Ok(())
    }
}

/// Writes a GL read-back (RGBA8, bottom row first) as a binary PPM (P6,
/// RGB8, top row first).
pub(crate) fn write_ppm(
    path: &std::path::Path,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    write!(out, "P6\n{width} {height}\n255\n")?;
    let row = width as usize * 4;
    for y in (0..height as usize).rev() {
        let line = rgba.get(y * row..(y + 1) * row).unwrap_or(&[]);
        for px in line.chunks_exact(4) {
            out.write_all(&px[..3])?;
        }
    }
    out.flush()
}

/// The sprite stages, plus the first-present callback after the swap.
pub(crate) struct EngineStages {
    inner: SpriteStages<EngineFrameHook>,
    on_first_present: Option<fn()>,
    presented: Arc<AtomicU64>,
}

impl RenderStages<Sprite> for EngineStages {
    fn on_start(&mut self) -> Result<()> {
        self.inner.on_start()
    }
    fn batch(&mut self, frame: &FrameDescriptor, payload: &[Sprite]) -> Result<()> {
        self.inner.batch(frame, payload)
    }
    fn submit(&mut self, frame: &FrameDescriptor, payload: &[Sprite]) -> Result<()> {
        self.inner.submit(frame, payload)?;
        // Relaxed: a counter read for progress and the report only.
        if self.presented.fetch_add(1, Ordering::Relaxed) == 0
            && let Some(f) = self.on_first_present.take()
        {
            f();
        }
        Ok(())
    }
    fn on_stop(&mut self) -> Result<()> {
        self.inner.on_stop()
    }
}

/// Everything [`EngineStages`] is made of, made where the run starts; the
/// stages themselves are built where they run ([`build`](Self::build): on
/// the render thread, or on a page's one thread).
pub(crate) struct StagesParts {
    gl: GlContext,
    config: SpriteStagesConfig,
    hook: EngineFrameHook,
    on_first_present: Option<fn()>,
    /// Frames presented, shared with the presenter.
    pub(crate) presented: Arc<AtomicU64>,
}

impl StagesParts {
    /// The stages (their `on_start` takes the context over).
    pub(crate) fn build(self) -> EngineStages {
        EngineStages {
            inner: SpriteStages::new(self.gl, self.config, self.hook),
            on_first_present: self.on_first_present,
            presented: self.presented,
        }
    }
}

/// The engine's sprite stages over `gl`, and the assets every frame's
/// presentation borrows (the default font queued first on the game's
/// texture queue, or on the engine's own).
pub(crate) fn engine_stages(
    gl: GlContext,
    options: &EngineOptions,
    view: ViewRect,
    surface: Option<SurfaceSize>,
) -> Result<(Assets, StagesParts)> {
    let textures = options.texture_queue.clone().unwrap_or_default();
    #[expect(
        clippy::cast_precision_loss,
        reason = "target sides are at most 16384: exact in f32"
    )]
    let screen = {
        let (w, h) = gl.size();
        [w as f32, h as f32]
    };
    let assets = Assets::new(textures.clone(), screen)?;
    let config = SpriteStagesConfig {
        clear_color: options.clear_color,
        textures: Vec::new(),
        sprite_capacity: options.sprite_capacity,
        texture_queue: Some(textures),
        view_policy: options.view_policy,
        surface_size: surface,
    };
    let hook = EngineFrameHook {
        view,
        capture: options.capture.clone(),
        pass: None,
        factory: options.render_pass.clone(),
    };
    Ok((
        assets,
        StagesParts {
            gl,
            config,
            hook,
            on_first_present: options.on_first_present,
            presented: Arc::new(AtomicU64::new(0)),
        },
    ))
}

/// The next frame's screen size in logical pixels and its scale factor
/// (physical pixels per logical one), from a window's latest size
/// (`None`: unchanged).
pub(crate) fn latest_screen(surface: Option<&SurfaceSize>) -> Option<([f32; 2], f32)> {
    let (w, h, scale) = surface.and_then(SurfaceSize::latest)?;
    #[expect(
        clippy::cast_precision_loss,
        reason = "window sides are at most 65535: exact in f32"
    )]
    let physical = [w as f32, h as f32];
    // The renderer's accepted range; outside it, it draws at 1.
    let scale = if (0.25..=16.0).contains(&scale) {
        scale
    } else {
        1.0
    };
    Some(([physical[0] / scale, physical[1] / scale], scale))
}

/// The render thread with the engine's sprite stages (a page has no render
/// thread: the web run presents on its one thread, `web.rs`).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) struct Renderer {
    thread: RenderThread<Sprite>,
    presented: Arc<AtomicU64>,
    /// The shutdown's bound on the last frame and the join together.
    stop_timeout: std::time::Duration,
    /// The default font, the texture queue and the target's size, lent to
    /// every frame's presentation.
    assets: Assets,
    /// A window's latest size (the screen size of the next frame).
    surface: Option<SurfaceSize>,
}

#[cfg(not(target_arch = "wasm32"))]
impl Renderer {
    /// Spawns the render thread; the stages take `gl` over in `on_start`.
    /// `view` is the fallback of a frame without a camera item; `surface`
    /// carries a window's resizes to the render thread.
    pub(crate) fn spawn(
        gl: GlContext,
        options: &EngineOptions,
        view: ViewRect,
        surface: Option<SurfaceSize>,
    ) -> Result<Self> {
        let (assets, make_stages) = engine_stages(gl, options, view, surface.clone())?;
        let presented = Arc::clone(&make_stages.presented);
        let thread = RenderThread::spawn(
            RenderThreadConfig {
                payload_capacity: options.sprite_capacity,
                ..RenderThreadConfig::default()
            },
            move || Ok(make_stages.build()),
        )?;
        Ok(Self {
            thread,
            presented,
            stop_timeout: options.render_stop_timeout,
            assets,
            surface,
        })
    }

    /// A headless EGL context of `width × height`, handed to a new render
    /// thread.
    pub(crate) fn headless(
        width: u32,
        height: u32,
        options: &EngineOptions,
        view: ViewRect,
    ) -> Result<Self> {
        let ctx = CurrentGlContext::headless(&HeadlessConfig {
            width,
            height,
            ..HeadlessConfig::default()
        })?;
        Self::spawn(ctx.release()?, options, view, None)
    }

    /// Shortens the shutdown's bound to `bound` (when it is shorter): for a
    /// render thread whose GL calls may never return (a lost display).
    #[cfg_attr(
        not(all(feature = "window", unix)),
        expect(dead_code, reason = "only the windowed run loses a display (X11)")
    )]
    pub(crate) fn bound_stop(&mut self, bound: std::time::Duration) {
        self.stop_timeout = self.stop_timeout.min(bound);
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Presenter for Renderer {
    fn presented(&self) -> u64 {
        // Relaxed: progress only.
        self.presented.load(Ordering::Relaxed)
    }

    /// Bounded like the shutdown: a frame the render thread has not
    /// finished within `stop_timeout` ends the run (its stage named).
    fn wait_idle(&mut self) -> Result<()> {
        self.thread
            .wait_idle_until(Some(std::time::Instant::now() + self.stop_timeout))
    }

    fn publish<F: FnOnce(&mut Vec<Sprite>, &Assets)>(
        &mut self,
        frame: FrameDescriptor,
        fill: F,
    ) -> Result<()> {
        if let Some((screen, scale)) = latest_screen(self.surface.as_ref()) {
            self.assets.screen = screen;
            self.assets.pixel_scale = scale;
        }
        {
            let mut writer = self.thread.writer();
            writer.clear();
            fill(&mut writer, &self.assets);
        }
        self.thread.submit_frame(frame)
    }

    /// The last frame, then the join, both within one `stop_timeout`: a
    /// stage still running at the deadline is named
    /// (`render_thread/stage_stuck`) and the thread is not joined.
    fn finish(&mut self) -> Result<()> {
        let deadline = std::time::Instant::now() + self.stop_timeout;
        let idle = self.thread.wait_idle_until(Some(deadline));
        let stopped = self.thread.shutdown_until(Some(deadline));
        idle.and(stopped)
    }

    fn frame_stats(&self) -> FrameStats {
        self.thread.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppm_is_top_row_first_rgb() {
        let dir = std::env::temp_dir().join(format!("laige-ppm-{}", std::process::id()));
        // 1×2: bottom pixel red, top pixel green (GL order: bottom first).
        let rgba = [255, 0, 0, 255, 0, 255, 0, 255];
        write_ppm(&dir, 1, 2, &rgba).unwrap();
        let bytes = std::fs::read(&dir).unwrap();
        let _ = std::fs::remove_file(&dir);
        assert_eq!(&bytes[..9], b"P6\n1 2\n25");
        let pixels = &bytes[bytes.len() - 6..];
        assert_eq!(pixels, [0, 255, 0, 255, 0, 0]);
    }
}
