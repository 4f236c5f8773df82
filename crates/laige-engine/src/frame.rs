//! [`Frame`]: what [`Game::present`](crate::Game::present) draws into — the
//! frame's sprites, the engine's default font and texture queue, and the
//! run's statistics as of this frame ([`RunStats`]).
//!
//! ```text
//! Session::frame            the due ticks, then
//!   RunStats                tick, frame, fps, dropped ticks/frames, backend (copied, O(1))
//!   Frame { sprites, stats, world, profiler, font, textures }
//!     Game::present(world, &mut frame)
//!       frame.push(sprite)                       world or screen sprites
//!       frame.text("tick 42", &style)            glyph sprites, default font
//!       frame.tick_times()                       p50/p99 over the profiler's window (sorts: on call only)
//!       frame.state_hash()                       the world's hash now (hashes: on call only)
//! ```
//!
//! The cheap numbers are in [`Frame::stats`]; the two that cost work
//! (sorting the tick-time window, hashing the world) are computed only when
//! the game asks, so a game without a HUD pays nothing for them.

use laige_core::MathBackend;
use laige_render::gl::Sprite;
use laige_sim::{Profiler, SampleSummary, World};

/// The run's numbers as of one presented frame (after its ticks): the
/// same quantities the [`RunReport`](crate::RunReport) holds at the end,
/// live.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunStats {
    /// The frame's 1-based index.
    pub frame: u64,
    /// Completed ticks (the world's tick after this frame's ticks).
    pub tick: u64,
    /// Frames the renderer finished per second of the run's clock, over
    /// the last [`FPS_WINDOW`] frames (0 until two frames were seen). The
    /// run's clock is real time in paced and windowed runs and virtual time
    /// in unpaced ones (where it is the frame rate the run simulates).
    pub fps: f32,
    /// Frames the renderer finished so far.
    pub frames_presented: u64,
    /// Ticks dropped by the catch-up bound so far.
    pub dropped_ticks: u64,
    /// Frames that dropped ticks so far.
    pub dropped_frames: u64,
    /// Frames the render handoff dropped so far because the renderer
    /// lagged (replaced before it drew them).
    pub frames_render_dropped: u64,
    /// The math backend the simulation runs on.
    pub backend: MathBackend,
    /// Whether the loop is paused (ticks stop, frames go on).
    pub paused: bool,
}

/// Frames the fps figure of [`RunStats::fps`] averages over.
pub const FPS_WINDOW: usize = 32;

/// The last [`FPS_WINDOW`] frames' clock readings and presented counts: a
/// fixed ring, no allocation.
#[derive(Clone, Debug)]
pub(crate) struct FpsWindow {
    samples: [(i64, u64); FPS_WINDOW],
    next: usize,
    len: usize,
}

impl Default for FpsWindow {
    fn default() -> Self {
        Self {
            samples: [(0, 0); FPS_WINDOW],
            next: 0,
            len: 0,
        }
    }
}

impl FpsWindow {
    /// Records a frame at `reading_ns` with `presented` frames finished,
    /// and returns the fps over the window (oldest sample to this one).
    pub(crate) fn push(&mut self, reading_ns: i64, presented: u64) -> f32 {
        self.samples[self.next] = (reading_ns, presented);
        self.next = (self.next + 1) % FPS_WINDOW;
        self.len = (self.len + 1).min(FPS_WINDOW);
        let oldest = self.samples[(self.next + FPS_WINDOW - self.len) % FPS_WINDOW];
        let span_ns = reading_ns.saturating_sub(oldest.0);
        if self.len < 2 || span_ns <= 0 {
            return 0.0;
        }
        #[expect(
            clippy::cast_precision_loss,
            reason = "a presentation figure: f64 is exact far past any run's frame count"
        )]
        let fps = presented.saturating_sub(oldest.1) as f64 * 1e9 / span_ns as f64;
        #[expect(clippy::cast_possible_truncation, reason = "a rate, shown rounded")]
        let fps = fps as f32;
        fps
    }
}

/// What the engine lends every frame's presentation: the default font and
/// the texture queue the render thread uploads from.
#[derive(Debug)]
pub(crate) struct Assets {
    #[cfg(feature = "gl")]
    pub(crate) font: laige_render::gl::Font,
    #[cfg(feature = "gl")]
    pub(crate) textures: laige_render::gl::TextureQueue,
    /// The target's size in logical pixels (screen space's extent).
    pub(crate) screen: [f32; 2],
    /// Physical pixels per logical pixel (the window's scale factor; 1
    /// for an offscreen target).
    pub(crate) pixel_scale: f32,
}

impl Assets {
    /// The default font queued on `textures`, for a target of `screen`
    /// logical pixels.
    ///
    /// # Errors
    /// `texture/queue_full` only.
    #[cfg(feature = "gl")]
    pub(crate) fn new(
        textures: laige_render::gl::TextureQueue,
        screen: [f32; 2],
    ) -> laige_core::Result<Self> {
        Ok(Self {
            font: laige_render::gl::Font::embedded(&textures)?,
            textures,
            screen,
            pixel_scale: 1.0,
        })
    }
}

#[cfg(test)]
impl Assets {
    /// The assets of a test presenter: a 64 × 48 target.
    pub(crate) fn for_tests() -> Self {
        #[cfg(feature = "gl")]
        let assets = Self::new(laige_render::gl::TextureQueue::default(), [64.0, 48.0])
            .unwrap_or_else(|e| unreachable!("a fresh queue takes the font: {e}"));
        #[cfg(not(feature = "gl"))]
        let assets = Self {
            screen: [64.0, 48.0],
            pixel_scale: 1.0,
        };
        assets
    }
}

/// One presented frame, as [`Game::present`](crate::Game::present) sees
/// it: append sprites ([`push`](Self::push)), text in the default font
/// ([`text`](Self::text)), read the run's numbers ([`stats`](Self::stats),
/// [`tick_times`](Self::tick_times), [`state_hash`](Self::state_hash)).
///
/// ```
/// use laige_engine::prelude::*;
///
/// struct Hud;
/// impl Game for Hud {
///     fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> Result<()> { Ok(()) }
///     fn present<S: EngineScalar>(&mut self, _world: &World, frame: &mut Frame<'_>) {
///         let stats = *frame.stats();
///         let mut line = ArrayString::<64>::new();
///         let _ = write!(line, "tick {} fps {:.0}", stats.tick, stats.fps);
///         let top = frame.screen_size()[1] - 8.0;
///         frame.text(&line, &TextStyle { position: [8.0, top], ..TextStyle::default() });
///     }
/// }
/// # use std::fmt::Write as _;
/// let report = Engine::builder()
///     .game(Hud)
///     .options(EngineOptions {
///         pacing: Pacing::Unpaced,
///         handle_ctrl_c: false,
///         headless_render: HeadlessRender::Gl { width: 64, height: 64 },
///         ..Default::default()
///     })
///     .build()?
///     .run_headless(RunLimit::Frames(3));
/// # let Ok(report) = report else { return Ok(()) }; // no EGL on this machine
/// assert_eq!(report.frames_rendered + report.frames_render_dropped, 3);
/// # Ok::<(), laige_engine::Error>(())
/// ```
pub struct Frame<'a> {
    pub(crate) sprites: &'a mut Vec<Sprite>,
    pub(crate) stats: RunStats,
    pub(crate) world: &'a World,
    pub(crate) profiler: &'a mut Profiler,
    pub(crate) assets: &'a Assets,
}

impl std::fmt::Debug for Frame<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("sprites", &self.sprites.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Frame<'_> {
    /// Appends one sprite (world or screen space, any layer).
    pub fn push(&mut self, sprite: Sprite) {
        self.sprites.push(sprite);
    }

    /// The frame's sprites so far (the engine's camera item first), to
    /// append to, extend, or hand to a function that fills a
    /// `&mut Vec<Sprite>`. Grown once, then reused frame after frame.
    pub fn sprites(&mut self) -> &mut Vec<Sprite> {
        self.sprites
    }

    /// The run's numbers as of this frame (after its ticks). O(1).
    #[must_use]
    pub fn stats(&self) -> &RunStats {
        &self.stats
    }

    /// Tick durations (system dispatch) over the profiler's window: the
    /// same figures the report's `tick_p50_ns` / `tick_p99_ns` hold at the
    /// end. Sorts a copy of the window in the profiler's scratch: O(n log n)
    /// in the window's samples (8192 by default), no allocation.
    pub fn tick_times(&mut self) -> SampleSummary {
        self.profiler.tick_summary()
    }

    /// The world's state hash now ([`World::state_hash`]: the report's
    /// `state_hash` when no tick follows). Hashes every hashed component:
    /// O(entities), no allocation once warmed up.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.world.state_hash()
    }

    /// The target's size in logical pixels: the extent of screen space
    /// ([`Space::Screen`](laige_render::gl::Space::Screen), origin at the
    /// bottom-left, y up). A window's latest size, so a HUD anchored to the
    /// top follows a resize.
    #[must_use]
    pub fn screen_size(&self) -> [f32; 2] {
        self.assets.screen
    }

    /// Physical pixels per logical pixel: the window's scale factor (1 for
    /// an offscreen target). Window-space pointer positions
    /// ([`CoordSpace::Window`](laige_sim::input::CoordSpace::Window)) are
    /// physical pixels from the top-left; divide by this to compare them
    /// with [`screen_size`](Self::screen_size).
    #[must_use]
    pub fn pixel_scale(&self) -> f32 {
        self.assets.pixel_scale
    }

    /// The same frame presenting `world` at `tick` instead: what a wrapper
    /// that holds a second world (the replay viewer's recorded run) hands
    /// its game's `present`.
    #[cfg(feature = "gl")]
    pub(crate) fn with_world<'b>(&'b mut self, world: &'b World, tick: u64) -> Frame<'b> {
        Frame {
            sprites: self.sprites,
            stats: RunStats { tick, ..self.stats },
            world,
            profiler: self.profiler,
            assets: self.assets,
        }
    }
}

#[cfg(feature = "gl")]
impl Frame<'_> {
    /// The engine's default font (the embedded 8×8 bitmap font; whole
    /// multiples of 8 draw pixel-exact): to [`measure`](laige_render::gl::Font::measure)
    /// text, or to draw it into another vector.
    #[must_use]
    pub fn font(&self) -> &laige_render::gl::Font {
        &self.assets.font
    }

    /// Draws `text` in the default font ([`Font::draw`](laige_render::gl::Font::draw)):
    /// one glyph sprite per visible character, by default in screen space
    /// on layer 255 (over the world). Returns the glyphs appended; no
    /// allocation once the sprite buffer has grown.
    pub fn text(&mut self, text: &str, style: &laige_render::gl::TextStyle) -> usize {
        self.assets.font.draw(self.sprites, text, style)
    }

    /// The texture queue the render thread uploads from: load an image
    /// (`load_png`) or a font (`Font::from_ttf_file`) here and use its id
    /// from the next frame on. The one of
    /// [`EngineOptions::texture_queue`](crate::EngineOptions::texture_queue)
    /// when the game set one.
    #[must_use]
    pub fn textures(&self) -> &laige_render::gl::TextureQueue {
        &self.assets.textures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fps_is_presented_frames_over_the_window_span() {
        let mut w = FpsWindow::default();
        assert_eq!(w.push(0, 0), 0.0, "one sample has no span");
        // 60 frames/s, every frame presented one frame late.
        let mut last = 0.0;
        for k in 1..100_i64 {
            let t = (k * 1_000_000_000 + 59) / 60;
            last = w.push(t, u64::try_from(k - 1).unwrap());
        }
        assert!((last - 60.0).abs() < 1e-3, "{last}");
        // Half the frames dropped by the renderer: 30 presented per second.
        for k in 100..200_i64 {
            let t = (k * 1_000_000_000 + 59) / 60;
            last = w.push(t, 99 + u64::try_from(k - 100).unwrap() / 2);
        }
        assert!((last - 30.0).abs() < 1.0, "{last}");
        // A frozen clock (paused readings) gives 0, not a division by zero.
        let mut f = FpsWindow::default();
        f.push(5, 1);
        assert_eq!(f.push(5, 2), 0.0);
    }
}
