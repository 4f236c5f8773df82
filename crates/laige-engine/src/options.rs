//! The run options that are not part of the TOML config (they describe
//! the run, not the game): [`EngineOptions`], headless [`Pacing`] and
//! [`HeadlessRender`], the [`RunLimit`], the [`FrameCapture`] and the
//! [`ResizeRequest`].

use std::path::PathBuf;
use std::time::Duration;

use laige_core::{Error, Result};
use laige_sim::ProfilerConfig;
use laige_sim::input::{CoordSpace, DEFAULT_INPUT_CAPACITY};

use crate::events;

/// How a headless run paces its frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pacing {
    /// On the frame clock's deadline grid at `[render] frame_rate_hz`
    /// (real time: a 10-second run takes 10 seconds). The default.
    #[default]
    FrameClock,
    /// As fast as possible on virtual time: frame `k` happens at exactly
    /// `⌈k × 10⁹ / frame_rate_hz⌉` ns of a synthetic clock, so the tick
    /// count is exact and the run reproducible (tests, benchmarks). With
    /// rendering, each frame is published once the renderer finished the
    /// previous one, so every frame is presented (the pipeline's
    /// throughput, nothing dropped).
    Unpaced,
}

/// Whether a headless run renders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeadlessRender {
    /// No rendering: the simulation alone. The default.
    #[default]
    Off,
    /// The whole GL pipeline on a headless EGL context of this size: the
    /// sprites of every frame go through the handoff to the render thread,
    /// which batches and draws them (needs the `gl` feature and EGL).
    Gl {
        /// Framebuffer width in pixels.
        width: u32,
        /// Framebuffer height in pixels.
        height: u32,
    },
}

/// How long a run goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunLimit {
    /// Exactly this many frames.
    Frames(u64),
    /// Exactly this many ticks: a frame that catches up several ticks
    /// runs none past the limit, and the run ends after that frame.
    Ticks(u64),
    /// Until this long has passed since the start on the run's clock: real
    /// (wall-clock) time when paced, virtual time when unpaced. A frame
    /// scheduled past it, or due when the clock already is past it (an
    /// overloaded paced run), is not run: 10 s at 60 frames/s is 600 frames
    /// unpaced, and an overloaded 5 s run ends after 5 s of real time, with
    /// fewer frames.
    Duration(Duration),
    /// Until something else ends it (the game, the window, Ctrl-C).
    Unlimited,
}

impl RunLimit {
    /// The tick count of [`Ticks`](Self::Ticks), else `None`.
    pub(crate) fn ticks(self) -> Option<u64> {
        match self {
            Self::Ticks(n) => Some(n),
            _ => None,
        }
    }
}

/// Reads back one rendered frame into a binary PPM (P6) file: the first
/// rendered frame whose index is at least `frame` (frames can be dropped by
/// the handoff, the last one never is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameCapture {
    /// The 1-based frame index to capture from.
    pub frame: u64,
    /// Where to write the image (top row first, RGB8).
    pub path: PathBuf,
}

/// Windowed: asks the window system for a new inner size through winit's
/// `Window::request_inner_size` once frame `frame` ran — as a user's drag
/// would (smoke tests, screenshots of a resized window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResizeRequest {
    /// The 1-based frame after which the request is made.
    pub frame: u64,
    /// The requested inner width, physical pixels.
    pub width: u32,
    /// The requested inner height, physical pixels.
    pub height: u32,
}

/// The render thread's stop bound by default: 5 s. A healthy frame of the
/// slowest supported setup (100k sprites on a software rasterizer) takes
/// about 0.3 s, so 5 s is over ten of them, and still short enough for a
/// person waiting on a hung exit.
pub const DEFAULT_RENDER_STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest accepted render stop bound: a minute (past that, a stuck
/// exit is indistinguishable from a hung one).
pub const MAX_RENDER_STOP_TIMEOUT: Duration = Duration::from_secs(60);

/// Engine options that are not part of the TOML config (they describe the
/// run, not the game).
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Headless pacing (default [`Pacing::FrameClock`]).
    pub pacing: Pacing,
    /// Headless rendering (default [`HeadlessRender::Off`]).
    pub headless_render: HeadlessRender,
    /// Install laige's log subscriber from the config's `[log]` section
    /// when the run starts (default `true`). A process-wide subscriber
    /// that is already installed — the game's own, or an earlier run's —
    /// is kept either way; set `false` for a game that installs its own
    /// later.
    pub install_log_subscriber: bool,
    /// Install the stop-signal handler and end the run in order on
    /// SIGINT, SIGTERM and SIGHUP (default true; see [`crate::interrupt`]).
    pub handle_ctrl_c: bool,
    /// How long the ordered shutdown waits for the render thread (its last
    /// frame, then its join) before it names the stage that never returned
    /// and ends the run with exit code 4 without joining it (default
    /// [`DEFAULT_RENDER_STOP_TIMEOUT`]; 1 ms..=60 s).
    pub render_stop_timeout: Duration,
    /// The profiler's rings (default: 8192 samples, ~2 min of ticks at
    /// 60 Hz — the run report's percentiles cover a whole short run — and
    /// 32 system slots).
    pub profiler: ProfilerConfig,
    /// The input queue's capacity (default
    /// [`DEFAULT_INPUT_CAPACITY`]).
    pub input_capacity: usize,
    /// Windowed: request the window's close through the event loop proxy
    /// after this many frames — the same path as the window system's close
    /// request (smoke tests, benchmarks). Default `None`.
    pub close_after_frames: Option<u64>,
    /// Windowed: request a new window size after a frame (default `None`).
    pub resize_request: Option<ResizeRequest>,
    /// Read one rendered frame back into a file (default `None`).
    pub capture: Option<FrameCapture>,
    /// Called once on the render thread right after the first frame was
    /// presented (swapped), e.g. to print a marker line. Default `None`.
    pub on_first_present: Option<fn()>,
    /// Sprites the payload buffers and the batcher reserve up front, so the
    /// first frames do not grow them (default 0: grow as needed, once).
    pub sprite_capacity: usize,
    /// The color each frame starts from (straight RGBA; default a dark
    /// blue-grey, `[0.06, 0.07, 0.10, 1.0]`).
    pub clear_color: [f32; 4],
    /// The coordinates of windowed pointer events (default
    /// [`CoordSpace::World`]: the game's view, y up).
    pub pointer_space: CoordSpace,
    /// How the game's view sits in a window of another aspect (default
    /// letterbox with black bars: the view keeps its aspect, whatever the
    /// window's size).
    #[cfg(feature = "gl")]
    pub view_policy: laige_render::gl::ViewPolicy,
    /// Textures (PNGs, fonts) the game loads while it runs: keep a clone to
    /// load into (`TextureQueue::load_png`, `Font::embedded`), and the
    /// render thread uploads them before the next frame. Default `None`.
    #[cfg(feature = "gl")]
    pub texture_queue: Option<laige_render::gl::TextureQueue>,
    /// A GL pass of the game's own around the sprites, made on the render
    /// thread for each run ([`RenderPass`](crate::RenderPass)). Default
    /// `None`.
    #[cfg(feature = "gl")]
    pub render_pass: Option<crate::RenderPassFactory>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            pacing: Pacing::default(),
            headless_render: HeadlessRender::default(),
            install_log_subscriber: true,
            handle_ctrl_c: true,
            render_stop_timeout: DEFAULT_RENDER_STOP_TIMEOUT,
            profiler: ProfilerConfig {
                capacity: 8192,
                ..ProfilerConfig::default()
            },
            input_capacity: DEFAULT_INPUT_CAPACITY,
            close_after_frames: None,
            capture: None,
            on_first_present: None,
            sprite_capacity: 0,
            clear_color: [0.06, 0.07, 0.10, 1.0],
            pointer_space: CoordSpace::World,
            #[cfg(feature = "gl")]
            view_policy: laige_render::gl::ViewPolicy::Letterbox {
                bar_color: [0.0, 0.0, 0.0, 1.0],
            },
            #[cfg(feature = "gl")]
            texture_queue: None,
            #[cfg(feature = "gl")]
            render_pass: None,
            resize_request: None,
        }
    }
}

impl EngineOptions {
    /// Checks the ranges.
    ///
    /// # Errors
    /// `engine/options_invalid` (InvalidArgument) naming the field.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, value: String, accepted: &'static str| {
            Err(laige_core::diag::reported(Error::invalid_argument(
                events::OPTIONS_INVALID,
                field,
                value,
                accepted,
            )))
        };
        if let HeadlessRender::Gl { width, height } = self.headless_render
            && (!(1..=crate::config::MAX_WINDOW_SIDE).contains(&width)
                || !(1..=crate::config::MAX_WINDOW_SIDE).contains(&height))
        {
            return bad(
                "headless_render",
                format!("{width}x{height}"),
                "1..=16384 pixels per side",
            );
        }
        if !(Duration::from_millis(1)..=MAX_RENDER_STOP_TIMEOUT).contains(&self.render_stop_timeout)
        {
            return bad(
                "render_stop_timeout",
                format!("{:?}", self.render_stop_timeout),
                "1 ms..=60 s",
            );
        }
        if self.close_after_frames == Some(0) {
            return bad("close_after_frames", "0".into(), ">= 1 frame, or None");
        }
        if let Some(r) = self.resize_request
            && (r.frame == 0
                || !(1..=crate::config::MAX_WINDOW_SIDE).contains(&r.width)
                || !(1..=crate::config::MAX_WINDOW_SIDE).contains(&r.height))
        {
            return bad(
                "resize_request",
                format!("frame {} {}x{}", r.frame, r.width, r.height),
                "frame >= 1 and 1..=16384 pixels per side",
            );
        }
        if self.capture.as_ref().is_some_and(|c| c.frame == 0) {
            return bad("capture.frame", "0".into(), ">= 1 (frames are 1-based)");
        }
        if self.sprite_capacity > laige_sim::workload::MAX_ENTITIES as usize {
            return bad(
                "sprite_capacity",
                self.sprite_capacity.to_string(),
                "0..=16777216 sprites",
            );
        }
        if !self
            .clear_color
            .iter()
            .all(|c| c.is_finite() && (0.0..=1.0).contains(c))
        {
            return bad(
                "clear_color",
                format!("{:?}", self.clear_color),
                "four components in 0.0..=1.0",
            );
        }
        laige_sim::input::InputQueue::with_capacity(self.input_capacity)?;
        laige_sim::Profiler::new(self.profiler)?;
        Ok(())
    }
}
