//! A resizable window (X11, e.g. under Xvfb) resized through winit's
//! request: open 64×48, draw a letterboxed 4:3 world with a HUD line of
//! the embedded font, request 160×60 with `Window::request_inner_size`,
//! wait for the `Resized` event, resize the surface, draw again and check
//! the letterbox bars, the view and the HUD's exact pixels on the back
//! buffer (before the swap). Both frames are written as PNG screenshots
//! to `LAIGE_SCREENSHOT_DIR` when it is set.
//!
//! `harness = false`: winit's event loop must run on the main thread.
//! Display: the session's, else a private Xvfb (as `gl_windowed`); neither:
//! one `SKIPPED` line, or a failure with `LAIGE_REQUIRE_DISPLAY=1`.

mod gl_support;
#[path = "gl_support/windowed.rs"]
mod windowed_support;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gl_support::*;
use laige_render::gl::{
    BatchParams, CurrentGlContext, Font, Sprite, SpriteBatcher, SpriteRenderer, TextStyle,
    TextureQueue, ViewPolicy, ViewRect, WindowedConfig,
};
use windowed_support::{Outcome, WindowedTest};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::window::{Window, WindowId};

const BAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const BAR_PX: [u8; 4] = [0, 0, 0, 255];
const WHITE_PX: [u8; 4] = [255; 4];
/// The size requested after the first frame.
const RESIZED: (u32, u32) = (160, 60);
/// How long to wait for the `Resized` event.
const RESIZE_TIMEOUT: Duration = Duration::from_secs(10);

struct Live {
    ctx: CurrentGlContext,
    renderer: SpriteRenderer,
    font: Font,
    batcher: SpriteBatcher,
    sprites: Vec<Sprite>,
    deadline: Instant,
}

impl Live {
    /// Draws the frame at the current size and returns its read-back.
    fn frame(&mut self) -> Result<Vec<u8>, String> {
        // A 4:3 world, white, with red corner markers.
        let view = ViewRect::new(0.0, 0.0, 40.0, 30.0).map_err(|e| e.to_string())?;
        self.sprites.clear();
        self.sprites.extend([
            Sprite::quad([20.0, 15.0], [40.0, 30.0], [1.0; 4]),
            Sprite::quad([1.0, 1.0], [2.0, 2.0], RED),
            Sprite::quad([39.0, 29.0], [2.0, 2.0], RED),
        ]);
        // The HUD: "OK" in green at the window's top-left, over the bars.
        let h = self.ctx.size().1;
        self.font.draw(
            &mut self.sprites,
            "OK",
            &TextStyle {
                position: [0.0, h as f32],
                size: 8.0,
                color: GREEN,
                ..TextStyle::default()
            },
        );
        self.batcher
            .build(&self.sprites, &BatchParams { view, alpha: 1.0 })
            .map_err(|e| e.to_string())?;
        self.renderer
            .clear(&self.ctx, CLEAR)
            .map_err(|e| e.to_string())?;
        self.renderer
            .draw(&self.ctx, &self.batcher)
            .map_err(|e| e.to_string())?;
        let (w, h) = self.ctx.size();
        let rgba = self
            .ctx
            .read_pixels(0, 0, w, h)
            .map_err(|e| e.to_string())?;
        self.ctx.swap_buffers().map_err(|e| e.to_string())?;
        Ok(rgba)
    }
}

#[derive(Default)]
struct App {
    live: Option<Live>,
    outcome: Option<Result<String, String>>,
}

fn at(rgba: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * width + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

fn expect(
    rgba: &[u8],
    width: u32,
    x: u32,
    y: u32,
    want: [u8; 4],
    what: &str,
) -> Result<(), String> {
    let got = at(rgba, width, x, y);
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "{what}: pixel ({x}, {y}) is {got:?}, expected {want:?}"
        ))
    }
}

/// Writes a read-back (bottom row first) as a PNG (top row first).
fn save_png(rgba: &[u8], width: u32, height: u32, name: &str) -> Result<Option<String>, String> {
    let Some(dir) = std::env::var_os("LAIGE_SCREENSHOT_DIR") else {
        return Ok(None);
    };
    let path = std::path::Path::new(&dir).join(name);
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    let row = (width * 4) as usize;
    let flipped: Vec<u8> = rgba.chunks_exact(row).rev().flatten().copied().collect();
    w.write_image_data(&flipped).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())?;
    Ok(Some(path.display().to_string()))
}

/// The "OK" HUD's exact pixels at the top-left: the top row of the 'O'
/// glyph, from the font data itself (bit 0 is the leftmost pixel), green
/// where a bit is set and `background` elsewhere.
fn check_hud(rgba: &[u8], width: u32, height: u32, background: [u8; 4]) -> Result<(), String> {
    let top_row = font8x8::legacy::BASIC_LEGACY['O' as usize][0];
    for x in 0..8 {
        let want = if top_row >> x & 1 == 1 {
            GREEN_PX
        } else {
            background
        };
        expect(rgba, width, x, height - 1, want, "HUD: the 'O' top row")?;
    }
    Ok(())
}

impl App {
    fn start(event_loop: &ActiveEventLoop) -> Result<Live, String> {
        let attributes = Window::default_attributes()
            .with_title("laige gl_windowed_resize")
            .with_inner_size(PhysicalSize::new(W, H))
            .with_resizable(true);
        let config = WindowedConfig {
            attributes,
            vsync: false,
            prefer_egl: true,
        };
        let ctx = CurrentGlContext::windowed(event_loop, config).map_err(|e| e.to_string())?;
        let queue = TextureQueue::default();
        let font = Font::embedded(&queue).map_err(|e| e.to_string())?;
        let mut renderer = SpriteRenderer::new(&ctx).map_err(|e| e.to_string())?;
        renderer.attach_texture_queue(queue);
        renderer.set_view_policy(ViewPolicy::Letterbox { bar_color: BAR });
        let scale = ctx.window().map_or(1.0, |w| w.scale_factor()) as f32;
        visible_line(&format!(
            "gl_windowed_resize: scale factor {scale}, size {:?}",
            ctx.size()
        ));
        renderer
            .set_scale_factor(scale)
            .map_err(|e| e.to_string())?;
        let mut live = Live {
            ctx,
            renderer,
            font,
            batcher: SpriteBatcher::default(),
            sprites: Vec::new(),
            deadline: Instant::now() + RESIZE_TIMEOUT,
        };
        // 64×48 is the view's 4:3: no bars, the corners are the markers.
        let rgba = live.frame()?;
        expect(&rgba, W, 0, 0, RED_PX, "first frame: bottom-left marker")?;
        expect(&rgba, W, W - 1, 0, WHITE_PX, "first frame: the view")?;
        check_hud(&rgba, W, H, WHITE_PX)?;
        save_png(&rgba, W, H, "resize_before.png")?;
        Ok(live)
    }

    /// After the `Resized` event: resize the surface, draw, check.
    fn after_resize(live: &mut Live, size: PhysicalSize<u32>) -> Result<String, String> {
        let (w, h) = (size.width, size.height);
        if (w, h) != RESIZED {
            return Err(format!("resized to {w}x{h}, requested {RESIZED:?}"));
        }
        live.ctx.resize(w, h).map_err(|e| e.to_string())?;
        let rgba = live.frame()?;
        // 160×60 for a 4:3 view: 80 px wide at x = 40, bars of 40 px.
        expect(&rgba, w, 39, 30, BAR_PX, "left bar")?;
        expect(&rgba, w, 40, 0, RED_PX, "the view's bottom-left marker")?;
        expect(&rgba, w, 80, 30, WHITE_PX, "the view")?;
        expect(&rgba, w, 119, 59, RED_PX, "the view's top-right marker")?;
        expect(&rgba, w, 120, 30, BAR_PX, "right bar")?;
        expect(&rgba, w, 159, 0, BAR_PX, "right bar corner")?;
        // The HUD is in screen space: at the window's top-left, over the bar.
        check_hud(&rgba, w, h, BAR_PX)?;
        let shot = save_png(&rgba, w, h, "resize_after.png")?;
        Ok(format!(
            "gl_windowed_resize: ok (64x48 -> {w}x{h} through request_inner_size, letterbox bars 40 px, HUD at the top-left{})",
            shot.map(|p| format!(", screenshot {p}"))
                .unwrap_or_default()
        ))
    }

    fn finish(&mut self, event_loop: &ActiveEventLoop, outcome: Result<String, String>) {
        self.outcome = Some(outcome);
        if let Some(live) = self.live.take() {
            live.renderer.destroy(&live.ctx);
        }
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.outcome.is_some() || self.live.is_some() {
            return;
        }
        match Self::start(event_loop) {
            Ok(live) => {
                let window = live.ctx.window().cloned();
                self.live = Some(live);
                let Some(window) = window else {
                    return self.finish(event_loop, Err("no window".into()));
                };
                // Some platforms apply the size at once and return it.
                if let Some(size) =
                    window.request_inner_size(PhysicalSize::new(RESIZED.0, RESIZED.1))
                    && let Some(live) = &mut self.live
                {
                    let outcome = Self::after_resize(live, size);
                    self.finish(event_loop, outcome);
                }
            }
            Err(e) => self.finish(event_loop, Err(e)),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::Resized(size) if size != PhysicalSize::new(W, H) => {
                if let Some(live) = &mut self.live {
                    let outcome = Self::after_resize(live, size);
                    self.finish(event_loop, outcome);
                }
            }
            WindowEvent::CloseRequested => {
                self.finish(event_loop, Err("the window was closed".into()));
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(live) = &self.live {
            if Instant::now() > live.deadline {
                self.finish(
                    event_loop,
                    Err(format!("no Resized event within {RESIZE_TIMEOUT:?}")),
                );
            } else {
                event_loop.set_control_flow(ControlFlow::WaitUntil(
                    Instant::now() + Duration::from_millis(50),
                ));
            }
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
        name: "gl_windowed_resize",
        passed: 1,
        xvfb_displays: 130..170,
        rerun_marker: "LAIGE_GL_WINDOWED_RESIZE_PRIVATE_XVFB",
    }
    .main::<App>()
}
