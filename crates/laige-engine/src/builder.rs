//! [`EngineBuilder`] → [`Engine`]: configuration, registrations, options;
//! then one run (`run_headless` / `run_windowed`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use hecs::Component;
use laige_core::{Error, Result};
use laige_sim::input::{CoordSpace, DEFAULT_INPUT_CAPACITY, InputKind, ScriptAt};
use laige_sim::{ProfilerConfig, StateHash, SystemContext, World};

use crate::game::{Game, NoGame, Registration};
use crate::{EngineConfig, events};

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
    /// which batches and draws them (needs the `window` feature and EGL).
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
    /// Until this many ticks completed (checked after each frame).
    Ticks(u64),
    /// Every frame scheduled at most this long after the start (real time
    /// when paced, virtual time when unpaced): 10 s at 60 frames/s is 600
    /// frames.
    Duration(Duration),
    /// Until something else ends it (the game, the window, Ctrl-C).
    Unlimited,
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

/// Engine options that are not part of the TOML config (they describe the
/// run, not the game).
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Headless pacing (default [`Pacing::FrameClock`]).
    pub pacing: Pacing,
    /// Headless rendering (default [`HeadlessRender::Off`]).
    pub headless_render: HeadlessRender,
    /// Install the Ctrl-C handler and end the run in order on SIGINT
    /// (default true; see [`crate::interrupt`]).
    pub handle_ctrl_c: bool,
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
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            pacing: Pacing::default(),
            headless_render: HeadlessRender::default(),
            handle_ctrl_c: true,
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
        if self.close_after_frames == Some(0) {
            return bad("close_after_frames", "0".into(), ">= 1 frame, or None");
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

/// Builds an [`Engine`]: the config (defaults, a TOML file or a value),
/// the game, builder-level components and systems, scripted input and the
/// run options.
///
/// ```
/// use laige_engine::{Engine, RunLimit, Pacing, EngineOptions, StateHash};
///
/// #[derive(Clone, Copy, StateHash)]
/// #[state_hash(crate = laige_engine::sim)]
/// struct Counter(u32);
///
/// let report = Engine::builder()
///     .component::<Counter>("guide.counter")
///     .system("count", 0, |ctx| {
///         for c in ctx.query_mut::<&mut Counter>() {
///             c.0 += 1;
///         }
///         Ok(())
///     })
///     .setup(|world| {
///         world.spawn((Counter(0),));
///         Ok(())
///     })
///     .options(EngineOptions { pacing: Pacing::Unpaced, handle_ctrl_c: false, ..Default::default() })
///     .build()?
///     .run_headless(RunLimit::Frames(60))?;
/// assert_eq!(report.ticks, 60); // 60 frames of 1/60 s at 60 Hz
/// assert_eq!(report.exit_code(), 0);
/// # Ok::<(), laige_core::Error>(())
/// ```
pub struct EngineBuilder<G = NoGame> {
    pub(crate) game: G,
    pub(crate) config: EngineConfig,
    pub(crate) registrations: Vec<Registration>,
    pub(crate) script: Vec<(ScriptAt, InputKind)>,
    pub(crate) options: EngineOptions,
}

impl Default for EngineBuilder<NoGame> {
    fn default() -> Self {
        Self {
            game: NoGame,
            config: EngineConfig::default(),
            registrations: Vec::new(),
            script: Vec::new(),
            options: EngineOptions::default(),
        }
    }
}

impl<G: Game> EngineBuilder<G> {
    /// Uses `game` (its `setup` runs first, then the builder's own
    /// registrations, in the order they were added).
    pub fn game<G2: Game>(self, game: G2) -> EngineBuilder<G2> {
        EngineBuilder {
            game,
            config: self.config,
            registrations: self.registrations,
            script: self.script,
            options: self.options,
        }
    }

    /// Uses `config` (validated by [`build`](Self::build)).
    #[must_use]
    pub fn config(mut self, config: EngineConfig) -> Self {
        self.config = config;
        self
    }

    /// Loads the config from a TOML file (see [`EngineConfig`]).
    ///
    /// # Errors
    /// Whatever [`EngineConfig::from_toml_file`] returns.
    pub fn config_file(mut self, path: impl AsRef<Path>) -> Result<Self> {
        self.config = EngineConfig::from_toml_file(path)?;
        Ok(self)
    }

    /// The configuration so far.
    #[must_use]
    pub fn current_config(&self) -> &EngineConfig {
        &self.config
    }

    /// Sets the run options.
    #[must_use]
    pub fn options(mut self, options: EngineOptions) -> Self {
        self.options = options;
        self
    }

    /// Declares `T` part of the hashed simulation state under the stable
    /// `name` (`World::register_hashed_as`).
    #[must_use]
    pub fn component<T: Component + StateHash>(mut self, name: &'static str) -> Self {
        self.registrations
            .push(Box::new(move |w| w.register_hashed_as::<T>(name)));
        self
    }

    /// Registers a system (`World::register_system`: a name, an order key
    /// — ascending, ties in registration order — and the function).
    #[must_use]
    pub fn system<F>(mut self, name: &'static str, order: i32, system: F) -> Self
    where
        F: FnMut(&mut SystemContext<'_>) -> Result<()> + Send + 'static,
    {
        self.registrations
            .push(Box::new(move |w| w.register_system(name, order, system)));
        self
    }

    /// Runs `f` on the world during setup (spawn the initial entities).
    #[must_use]
    pub fn setup(mut self, f: impl FnOnce(&mut World) -> Result<()> + 'static) -> Self {
        self.registrations.push(Box::new(f));
        self
    }

    /// Scripted input for headless runs: `(when, event)` entries fed to the
    /// input queue ahead of their ticks (see `laige_sim::input::ScriptedInput`).
    #[must_use]
    pub fn scripted_input(
        mut self,
        entries: impl IntoIterator<Item = (ScriptAt, InputKind)>,
    ) -> Self {
        self.script.extend(entries);
        self
    }

    /// Validates the config and the options.
    ///
    /// # Errors
    /// The first invalid config field or option.
    pub fn build(self) -> Result<Engine<G>> {
        self.config.validate()?;
        self.options.validate()?;
        Ok(Engine { parts: self })
    }
}

/// A configured engine, ready for one run.
pub struct Engine<G = NoGame> {
    pub(crate) parts: EngineBuilder<G>,
}

impl Engine<NoGame> {
    /// A builder with the default config, no game and default options.
    #[must_use]
    pub fn builder() -> EngineBuilder<NoGame> {
        EngineBuilder::default()
    }
}

impl<G: Game> Engine<G> {
    /// The validated configuration.
    #[must_use]
    pub fn config(&self) -> &EngineConfig {
        &self.parts.config
    }

    /// The run options.
    #[must_use]
    pub fn options(&self) -> &EngineOptions {
        &self.parts.options
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> &G {
        &self.parts.game
    }

    /// The game, exclusively.
    pub fn game_mut(&mut self) -> &mut G {
        &mut self.parts.game
    }
}

impl<G> std::fmt::Debug for Engine<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.parts.config)
            .field("options", &self.parts.options)
            .field("registrations", &self.parts.registrations.len())
            .field("script", &self.parts.script.len())
            .finish_non_exhaustive()
    }
}

impl<G> std::fmt::Debug for EngineBuilder<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("config", &self.config)
            .field("options", &self.options)
            .field("registrations", &self.registrations.len())
            .field("script", &self.script.len())
            .finish_non_exhaustive()
    }
}
