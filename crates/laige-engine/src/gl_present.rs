//! The engine's render side (feature `window`): the render thread running
//! laige-render's sprite stages on a GL context it took over, fed one
//! frame at a time through the handoff — the game's sprites in the payload
//! pool, the presentation alpha in the descriptor's payload word.
//!
//! ```text
//!  main thread (sim)                           render thread "laige-render"
//!  Game::present::<S>(world) → writer (Vec<Sprite>)
//!  submit_frame{frame, tick, render_time, alpha} ──► batch: view + alpha → cull/instances
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

use laige_core::clock::MonotonicClock;
use laige_core::{Result, event};
use laige_render::gl::{
    BatchParams, CurrentGlContext, GlContext, HeadlessConfig, Sprite, SpriteFrameHook,
    SpriteStages, SpriteStagesConfig, ViewRect,
};
use laige_render::{FrameDescriptor, FrameStats, RenderStages, RenderThread, RenderThreadConfig};

use crate::builder::{EngineOptions, FrameCapture};
use crate::game::{EngineScalar, Game};
use crate::run::{ALPHA_CURRENT, Presenter, Session};
use crate::{EngineConfig, events};

/// The default view: the configured window, one world unit per pixel,
/// origin at the bottom-left.
pub(crate) fn default_view(config: &EngineConfig) -> ViewRect {
    #[expect(
        clippy::cast_precision_loss,
        reason = "window sides are at most 16384: exact in f32"
    )]
    let (w, h) = (
        config.render.window_width as f32,
        config.render.window_height as f32,
    );
    ViewRect::new(0.0, 0.0, w.max(1.0), h.max(1.0)).unwrap_or_else(|_| unit_view())
}

fn unit_view() -> ViewRect {
    match ViewRect::new(0.0, 0.0, 1.0, 1.0) {
        Ok(v) => v,
        // 0 < 1 on both axes with finite bounds: ViewRect::new accepts it.
        Err(_) => unreachable!("the unit view is valid"),
    }
}

/// The alpha of a descriptor's payload word (see `Session::alpha_word`).
fn alpha_of(word: u64) -> f32 {
    if word >= ALPHA_CURRENT {
        1.0
    } else {
        #[expect(
            clippy::cast_precision_loss,
            reason = "a ppb value below 1e9 to a render-space fraction"
        )]
        let a = word as f32 / 1e9;
        a.clamp(0.0, 1.0)
    }
}

/// The per-frame decisions: the game's view and the frame's alpha; the
/// optional capture of one frame.
struct EngineFrameHook {
    view: ViewRect,
    capture: Option<FrameCapture>,
}

impl SpriteFrameHook for EngineFrameHook {
    fn params(&mut self, frame: &FrameDescriptor) -> BatchParams {
        BatchParams {
            view: self.view,
            alpha: alpha_of(frame.payload),
        }
    }

    fn after_draw(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
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
struct EngineStages {
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

/// The render thread with the engine's sprite stages.
pub(crate) struct Renderer {
    thread: RenderThread<Sprite>,
    presented: Arc<AtomicU64>,
}

impl Renderer {
    /// Spawns the render thread; the stages take `gl` over in `on_start`.
    pub(crate) fn spawn(gl: GlContext, options: &EngineOptions, view: ViewRect) -> Result<Self> {
        let stages_config = SpriteStagesConfig {
            clear_color: options.clear_color,
            textures: Vec::new(),
            sprite_capacity: options.sprite_capacity,
        };
        let hook = EngineFrameHook {
            view,
            capture: options.capture.clone(),
        };
        let presented = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&presented);
        let on_first_present = options.on_first_present;
        let thread = RenderThread::spawn(
            RenderThreadConfig {
                payload_capacity: options.sprite_capacity,
                ..RenderThreadConfig::default()
            },
            move || {
                Ok(EngineStages {
                    inner: SpriteStages::new(gl, stages_config, hook),
                    on_first_present,
                    presented: counter,
                })
            },
        )?;
        Ok(Self { thread, presented })
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
        Self::spawn(ctx.release()?, options, view)
    }

    /// Frames the render thread presented.
    pub(crate) fn presented(&self) -> u64 {
        // Relaxed: progress only.
        self.presented.load(Ordering::Relaxed)
    }

    /// Blocks until the render thread finished every frame handed to it
    /// (the unpaced headless run's back-pressure: no frame is dropped).
    pub(crate) fn wait_idle(&self) -> Result<()> {
        self.thread.wait_idle()
    }

    /// Fills the payload with the game's sprites and publishes frame
    /// `frame` presented at `render_time_ns` (a reading of the loop's clock).
    pub(crate) fn publish<G: Game, S: EngineScalar>(
        &mut self,
        game: &mut G,
        session: &Session<impl MonotonicClock>,
        frame: u64,
        render_time_ns: i64,
    ) -> Result<()> {
        {
            let mut writer = self.thread.writer();
            writer.clear();
            game.present::<S>(session.game_loop.world(), &mut writer);
        }
        self.thread.submit_frame(FrameDescriptor {
            frame_index: frame,
            sim_tick: session.game_loop.current_tick(),
            render_time_ns,
            payload: session.alpha_word(render_time_ns),
        })
    }
}

impl Presenter for Renderer {
    fn finish(&mut self) -> Result<()> {
        let idle = self.thread.wait_idle();
        let stopped = self.thread.shutdown();
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
    fn alpha_words_decode() {
        assert_eq!(alpha_of(0), 0.0);
        assert_eq!(alpha_of(500_000_000), 0.5);
        assert_eq!(alpha_of(ALPHA_CURRENT), 1.0);
        assert!(alpha_of(999_999_999) <= 1.0);
    }

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
