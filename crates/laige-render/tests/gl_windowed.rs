//! Windowed GL smoke test (X11, e.g. under `xvfb-run -a`): open a 64×48
//! window through winit 0.30's `ApplicationHandler::resumed`, draw the known
//! scene, read the back buffer before the swap and check exact colors; then
//! hand the context to another thread and back (release-then-bind) and
//! check again.
//!
//! `harness = false`: winit's event loop must run on the main thread.
//!
//! Display: the session's (`DISPLAY`/`WAYLAND_DISPLAY`), else — when the
//! `Xvfb` binary is installed (Debian: `xvfb`) — a private Xvfb this test
//! starts on a free display number, re-running itself against it and
//! stopping it afterwards (so plain `cargo test` covers the windowed path
//! on CI and on any machine with Xvfb). Neither: one `SKIPPED` line and
//! success, unless `LAIGE_REQUIRE_DISPLAY=1` (CI), which makes it a failure.

mod gl_support;
#[path = "gl_support/windowed.rs"]
mod windowed_support;

use std::process::ExitCode;

use gl_support::*;
use std::sync::{Arc, Mutex};
use windowed_support::{Outcome, WindowedTest};

use laige_core::Error;
use laige_render::gl::{
    BatchParams, CurrentGlContext, GlContext, GlTarget, SpriteBatcher, SpriteFrameHook,
    SpriteRenderer, SpriteStages, SpriteStagesConfig, ViewRect, WindowedConfig,
};
use laige_render::{FrameDescriptor, RenderThread, RenderThreadConfig};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowId};

/// The checks run inside `resumed`; the outcome is reported after the loop.
#[derive(Default)]
struct App {
    outcome: Option<Result<String, String>>,
}

impl App {
    fn run_checks(event_loop: &ActiveEventLoop, prefer_egl: bool) -> Result<String, String> {
        let attributes = Window::default_attributes()
            .with_title("laige gl_windowed")
            .with_inner_size(PhysicalSize::new(W, H))
            .with_resizable(false);
        let config = WindowedConfig {
            attributes,
            vsync: true,
            prefer_egl,
        };
        let ctx = CurrentGlContext::windowed(event_loop, config).map_err(|e| e.to_string())?;
        if ctx.target() != GlTarget::Window || ctx.window().is_none() {
            return Err(format!("target {:?}, expected a window", ctx.target()));
        }
        if ctx.size() != (W, H) {
            return Err(format!(
                "surface size {:?}, expected {:?}",
                ctx.size(),
                (W, H)
            ));
        }
        let refresh = ctx.refresh_rate_hz();
        if refresh > 1000 {
            return Err(format!("refresh rate {refresh} Hz is not plausible"));
        }
        let mut renderer = SpriteRenderer::new(&ctx).map_err(|e| e.to_string())?;
        draw_and_check(&ctx, &mut renderer).map_err(|e| format!("first frame: {e}"))?;

        // The render thread's take-over and hand-back.
        let released = ctx.release().map_err(|e| e.to_string())?;
        let (released, mut renderer) = std::thread::spawn(move || {
            let result = (|| {
                let mut ctx = released.make_current()?;
                ctx.set_vsync(false)?;
                draw_and_check(&ctx, &mut renderer)?;
                ctx.release()
            })();
            result
                .map(|r| (r, renderer))
                .map_err(|e| format!("render thread: {e}"))
        })
        .join()
        .map_err(|_| "the render thread panicked".to_owned())??;
        let ctx = released.make_current().map_err(|e| e.to_string())?;
        if ctx.vsync() {
            return Err("vsync should be off after set_vsync(false)".to_owned());
        }
        draw_and_check(&ctx, &mut renderer).map_err(|e| format!("frame after hand-back: {e}"))?;
        hold_for_screenshot(&ctx, &mut renderer);
        renderer.destroy(&ctx);
        let rendered = through_render_thread(ctx.release().map_err(|e| e.to_string())?)?;
        Ok(format!(
            "gl_windowed: ok ({} first: {}x{} window, refresh {} Hz, vsync toggled, thread hand-off, \
             {rendered} frames presented by the render thread)",
            if prefer_egl { "EGL" } else { "GLX" },
            W,
            H,
            refresh
        ))
    }
}

/// The window's context driven by the real render thread: `SpriteStages`
/// takes it over, each frame is read back (hook, before the present) and
/// checked, and `on_stop` hands it back. Returns the frames rendered.
fn through_render_thread(gl: GlContext) -> Result<u64, String> {
    struct Check {
        failures: Arc<Mutex<Vec<String>>>,
    }
    impl SpriteFrameHook for Check {
        fn params(&mut self, _: &FrameDescriptor) -> BatchParams {
            BatchParams {
                view: ViewRect::new(0.0, 0.0, W as f32, H as f32).expect("valid view"),
                alpha: 1.0,
            }
        }
        fn after_draw(&mut self, ctx: &CurrentGlContext, f: &FrameDescriptor) -> Result<(), Error> {
            let rgba = ctx.read_pixels(0, 0, W, H)?;
            if let Err(p) = std::panic::catch_unwind(|| assert_scene_pixels(&rgba)) {
                let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
                let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
                failures.push(format!("frame {}: {msg}", f.frame_index));
            }
            Ok(())
        }
    }
    let failures = Arc::new(Mutex::new(Vec::new()));
    let hook = Check {
        failures: Arc::clone(&failures),
    };
    let config = SpriteStagesConfig {
        clear_color: CLEAR,
        ..SpriteStagesConfig::default()
    };
    let mut rt: RenderThread<laige_render::gl::Sprite> =
        RenderThread::spawn(RenderThreadConfig::default(), move || {
            Ok(SpriteStages::new(gl, config, hook))
        })
        .map_err(|e| e.to_string())?;
    for n in 1..=3 {
        rt.writer().clear();
        rt.writer().extend(scene());
        rt.submit_frame(FrameDescriptor {
            frame_index: n,
            ..FrameDescriptor::default()
        })
        .map_err(|e| e.to_string())?;
        rt.wait_idle().map_err(|e| e.to_string())?;
    }
    let rendered = rt.stats().rendered;
    rt.shutdown().map_err(|e| format!("render thread: {e}"))?;
    let failures = failures.lock().unwrap_or_else(|e| e.into_inner());
    if !failures.is_empty() {
        return Err(failures.join("; "));
    }
    if rendered != 3 {
        return Err(format!("{rendered} frames rendered, expected 3"));
    }
    Ok(rendered)
}

/// With `LAIGE_WINDOWED_HOLD_MS=n`, keeps presenting the scene for `n` ms
/// so a person can capture the window (`import -window root shot.png`).
fn hold_for_screenshot(ctx: &CurrentGlContext, renderer: &mut SpriteRenderer) {
    let Some(ms) = std::env::var("LAIGE_WINDOWED_HOLD_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    let end = std::time::Instant::now() + std::time::Duration::from_millis(ms);
    while std::time::Instant::now() < end {
        let _ = draw_and_check(ctx, renderer);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Draws the scene, reads it back before the swap, checks it, swaps.
fn draw_and_check(ctx: &CurrentGlContext, renderer: &mut SpriteRenderer) -> Result<(), Error> {
    let mut batcher = SpriteBatcher::default();
    let view = ViewRect::new(0.0, 0.0, W as f32, H as f32)?;
    batcher.build(&scene(), &BatchParams { view, alpha: 1.0 })?;
    renderer.clear(ctx, CLEAR)?;
    renderer.draw(ctx, &batcher)?;
    let rgba = ctx.read_pixels(0, 0, W, H)?;
    // assert_scene_pixels panics with a message naming the pixel; turn it
    // into an error for the report.
    std::panic::catch_unwind(|| assert_scene_pixels(&rgba)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "pixel check failed".to_owned());
        Error::new(
            laige_core::ErrorCode::Failed,
            laige_core::EventId::new("test", "pixels"),
        )
        .with_detail(msg)
    })?;
    ctx.swap_buffers()
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.outcome.is_none() {
            // GLX first (glutin-winit's default), then EGL first.
            let outcome = Self::run_checks(event_loop, false).and_then(|glx| {
                Self::run_checks(event_loop, true).map(|egl| format!("{glx}\n{egl}"))
            });
            self.outcome = Some(outcome);
        }
        event_loop.exit();
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        if event == WindowEvent::CloseRequested {
            event_loop.exit();
        }
    }
}

impl Outcome for App {
    fn outcome(&mut self) -> Option<Result<String, String>> {
        self.outcome.take()
    }
}

fn main() -> ExitCode {
    WindowedTest {
        name: "gl_windowed",
        passed: 2,
        xvfb_displays: 90..130,
        rerun_marker: "LAIGE_GL_WINDOWED_PRIVATE_XVFB",
    }
    .main::<App>()
}
