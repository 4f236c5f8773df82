//! The game's side of the engine: the [`Game`] trait (setup, per-frame and
//! per-input callbacks, presentation), the [`Setup`] it registers into, and
//! the [`Control`] through which it drives the lifecycle.
//!
//! # Presentation
//!
//! The simulation advances in whole ticks; frames land between them. Once
//! per presented frame the engine asks the game for its sprites
//! ([`Game::present`]): each [`Sprite`](laige_render::gl::Sprite) carries its `position` at the last
//! completed tick and its `prev_position` at the tick before (a game keeps
//! the previous value in its own hashed state, copied at the start of each
//! integrate step). The engine publishes them with the frame's
//! [`FrameDescriptor`](laige_render::FrameDescriptor) — the loop's
//! [`Alpha`](laige_core::Alpha) at the frame's presentation time and
//! whether interpolation is on ([`Control::set_interpolation`]) — and the
//! render thread draws `prev_position + (position − prev_position) × alpha`
//! (or `position` when interpolation is off). Nothing on the render side
//! names a simulation type, and nothing the renderer computes flows back.

use laige_core::{Error, Result, SimScalar};
use laige_render::gl::ViewRect;
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::{LoopState, StateHash, World};

use crate::EngineConfig;
use crate::frame::Frame;
use crate::report::RunReport;

/// A scalar the engine can run a simulation on: a [`SimScalar`] whose
/// values enter the state hash — the bound of the engine's generic code.
/// Implemented by both backends' scalars (`Fpx16_16`, `Fp32Pinned`); the
/// one `match` on the configured backend
/// ([`MathBackend::run`](laige_core::MathBackend::run)) picks which.
pub trait EngineScalar: SimScalar + StateHash {}

impl<T: SimScalar + StateHash> EngineScalar for T {}

/// What a game gets to build its world with, once, before the first frame.
#[derive(Debug)]
pub struct Setup<'a> {
    pub(crate) world: &'a mut World,
    pub(crate) config: &'a EngineConfig,
}

impl Setup<'_> {
    /// The world: register hashed components (`register_hashed_as`),
    /// systems (`register_system`), spawn the initial entities.
    pub fn world(&mut self) -> &mut World {
        self.world
    }

    /// The validated configuration of this run.
    #[must_use]
    pub fn config(&self) -> &EngineConfig {
        self.config
    }

    /// The simulation seed (`[determinism] seed`).
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.config.determinism.seed
    }

    /// The tick rate (`[loop] tick_rate_hz`): systems integrate with
    /// `dt = 1 / tick_rate_hz` (`S::from_ratio(1, rate)`).
    #[must_use]
    pub fn tick_rate_hz(&self) -> u32 {
        self.config.game_loop.tick_rate_hz
    }
}

/// A game: registers its components and systems for the backend's scalar,
/// and (all optional) drives the lifecycle from input and frames, observes
/// completed ticks, and presents sprites.
///
/// Every method is statically dispatched and generic over the scalar `S`
/// of the configured backend (instantiated once, for that scalar), so a
/// hook reads the game's `S`-typed components directly
/// (`world.query::<&Position<S>>()`).
///
/// A game that wraps another game (a recorder, a debug overlay) implements
/// [`GameWrapper`] instead: every hook it does not override forwards to
/// the inner game, so forgetting one (say `present`) cannot silently drop
/// the inner game's rendering.
pub trait Game {
    /// Registers components and systems and spawns the initial world.
    /// Called once per run, before the first frame, with `S` the scalar of
    /// `[determinism] math`.
    ///
    /// # Errors
    /// Any error ends the run before it starts (`run_*` returns it).
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()>;

    /// A platform input event (windowed runs), after it was stamped and
    /// queued for the simulation: the place for engine-level reactions
    /// (pause, single step, interpolation, exit) through `control`.
    /// Default: nothing.
    fn on_input<S: EngineScalar>(&mut self, event: &InputEvent, control: &mut Control) {
        let _ = (event, control);
    }

    /// Once per frame, before the frame's ticks (the place a classic game
    /// loop processes input): progress output, scripted lifecycle changes.
    /// Default: nothing.
    fn on_frame<S: EngineScalar>(&mut self, world: &World, control: &mut Control) {
        let _ = (world, control);
    }

    /// After every completed tick, with the new tick count
    /// (`world.input().delivered()` holds the tick's input). It runs inside
    /// the tick: its time counts against the tick's budget, and it is inside
    /// the zero-allocation check of debug builds, which covers **every**
    /// tick, the first included (when the counting allocator is installed;
    /// `AllocCheck::Panic` by default). So it allocates nothing, ever:
    /// reserve what it fills in `setup` or in the game's constructor. Bounded
    /// work on the calling thread is fine; waiting on another thread is not.
    /// The engine's own recorder
    /// ([`EngineBuilder::record`](crate::EngineBuilder::record)) is such a
    /// hook: it encodes the tick into a buffer reserved when the run was
    /// built and writes and flushes one record per tick — a system call,
    /// no allocation, no waiting on a thread (`tests/engine_zero_alloc.rs`
    /// proves both). Default: nothing.
    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        let _ = (world, tick);
    }

    /// The frame's sprites, appended to `frame` ([`Frame::push`], text in
    /// the default font with [`Frame::text`]): `position` at the last
    /// completed tick, `prev_position` at the one before; the renderer
    /// interpolates between them with the frame's alpha (or shows
    /// `position` when interpolation is off; see the module docs). The
    /// frame also carries the run's numbers as of this frame
    /// ([`Frame::stats`], [`Frame::tick_times`], [`Frame::state_hash`])
    /// for a HUD. Called once per presented frame, on the main thread, and
    /// only when something renders. Default: nothing.
    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        let _ = (world, frame);
    }

    /// The world rectangle the window (or the headless target) shows: the
    /// camera. Called for every presented frame, on the main thread, and
    /// carried with that frame's sprites (as their first item, a
    /// [`Sprite::camera`](laige_render::gl::Sprite::camera)), so a camera
    /// that moves or zooms (state the game updates in `on_tick` or
    /// `on_frame`) is drawn with the sprites of the same frame. A window of
    /// another aspect shows it per `EngineOptions::view_policy` (default:
    /// letterboxed). Default: `0..width × 0..height` of the configured
    /// window, one world unit per pixel.
    fn view(&self, config: &EngineConfig) -> ViewRect {
        default_view(config)
    }

    /// Once, when the run has ended (after the ordered shutdown, before
    /// `run_*` returns), with the final world and the report: the place to
    /// read the game's state after a run (a final score, a summary). It
    /// sees every tick, the last ones included. Default: nothing.
    fn finish<S: EngineScalar>(&mut self, world: &World, report: &RunReport) {
        let _ = (world, report);
    }
}

/// A game that wraps another: implement [`inner`](Self::inner) and
/// [`inner_mut`](Self::inner_mut), override the hooks the wrapper adds
/// to (calling the inner game's itself where it should run too), and the
/// wrapper is a [`Game`] whose every other hook forwards to the inner
/// game.
///
/// ```
/// use laige_engine::{Engine, EngineOptions, EngineScalar, Game, GameWrapper, NoGame, Pacing, RunLimit, World};
///
/// /// Counts ticks, and is otherwise the game it wraps (rendering included).
/// struct TickCounter<G> { inner: G, ticks: u64 }
///
/// impl<G: Game> GameWrapper for TickCounter<G> {
///     type Inner = G;
///     fn inner(&self) -> &G { &self.inner }
///     fn inner_mut(&mut self) -> &mut G { &mut self.inner }
///     fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
///         self.ticks += 1;
///         self.inner.on_tick::<S>(world, tick);
///     }
/// }
///
/// let mut counted = TickCounter { inner: NoGame, ticks: 0 };
/// Engine::builder()
///     .game(&mut counted)
///     .options(EngineOptions { pacing: Pacing::Unpaced, handle_ctrl_c: false, ..Default::default() })
///     .build()?
///     .run_headless(RunLimit::Ticks(30))?;
/// assert_eq!(counted.ticks, 30);
/// # Ok::<(), laige_core::Error>(())
/// ```
///
/// Why a second trait and not default methods on `Game`: a default must
/// not depend on a field, so only a trait that knows the inner game can
/// forward by default. `Game` is implemented for every `GameWrapper`; a
/// type implements one or the other.
pub trait GameWrapper {
    /// The wrapped game.
    type Inner: Game + ?Sized;

    /// The wrapped game.
    fn inner(&self) -> &Self::Inner;

    /// The wrapped game, exclusively.
    fn inner_mut(&mut self) -> &mut Self::Inner;

    /// [`Game::setup`]; forwards by default.
    ///
    /// # Errors
    /// As [`Game::setup`].
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        self.inner_mut().setup::<S>(setup)
    }

    /// [`Game::on_input`]; forwards by default.
    fn on_input<S: EngineScalar>(&mut self, event: &InputEvent, control: &mut Control) {
        self.inner_mut().on_input::<S>(event, control);
    }

    /// [`Game::on_frame`]; forwards by default.
    fn on_frame<S: EngineScalar>(&mut self, world: &World, control: &mut Control) {
        self.inner_mut().on_frame::<S>(world, control);
    }

    /// [`Game::on_tick`]; forwards by default.
    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        self.inner_mut().on_tick::<S>(world, tick);
    }

    /// [`Game::present`]; forwards by default.
    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        self.inner_mut().present::<S>(world, frame);
    }

    /// [`Game::view`]; forwards by default.
    fn view(&self, config: &EngineConfig) -> ViewRect {
        self.inner().view(config)
    }

    /// [`Game::finish`]; forwards by default.
    fn finish<S: EngineScalar>(&mut self, world: &World, report: &RunReport) {
        self.inner_mut().finish::<S>(world, report);
    }
}

impl<W: GameWrapper> Game for W {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        GameWrapper::setup::<S>(self, setup)
    }
    fn on_input<S: EngineScalar>(&mut self, event: &InputEvent, control: &mut Control) {
        GameWrapper::on_input::<S>(self, event, control);
    }
    fn on_frame<S: EngineScalar>(&mut self, world: &World, control: &mut Control) {
        GameWrapper::on_frame::<S>(self, world, control);
    }
    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        GameWrapper::on_tick::<S>(self, world, tick);
    }
    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        GameWrapper::present::<S>(self, world, frame);
    }
    fn view(&self, config: &EngineConfig) -> ViewRect {
        GameWrapper::view(self, config)
    }
    fn finish<S: EngineScalar>(&mut self, world: &World, report: &RunReport) {
        GameWrapper::finish::<S>(self, world, report);
    }
}

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

const fn unit_view() -> ViewRect {
    ViewRect::from_bounds(0.0, 0.0, 1.0, 1.0)
}

/// A game lent for one run: the caller keeps it and reads what it
/// observed afterwards (`.game(&mut my_game)`).
impl<G: Game + ?Sized> GameWrapper for &mut G {
    type Inner = G;
    fn inner(&self) -> &G {
        self
    }
    fn inner_mut(&mut self) -> &mut G {
        self
    }
}

/// The game of an engine that has none: setup does nothing (the builder's
/// own registrations still run).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoGame;

impl Game for NoGame {
    fn setup<S: EngineScalar>(&mut self, _setup: &mut Setup<'_>) -> Result<()> {
        Ok(())
    }
}

/// Most game-defined actions one callback can raise (they are stamped and
/// queued when the callback returns).
pub const MAX_ACTIONS_PER_CALLBACK: usize = 16;

/// The game's handle on the engine during a callback: the loop's state,
/// and requests the engine carries out when the callback returns — in
/// this order: actions queued, pause/resume, single steps, interpolation,
/// a failure ([`Control::fail`]), exit.
#[derive(Debug)]
pub struct Control {
    pub(crate) state: LoopState,
    pub(crate) frame: u64,
    pub(crate) tick: u64,
    pub(crate) running_time_ns: i64,
    pub(crate) interpolation: bool,
    pub(crate) frames_presented: u64,
    pub(crate) pause: Option<bool>,
    pub(crate) steps: u32,
    pub(crate) set_interpolation: Option<bool>,
    pub(crate) exit: bool,
    pub(crate) failure: Option<Error>,
    pub(crate) actions: [Option<InputKind>; MAX_ACTIONS_PER_CALLBACK],
    pub(crate) n_actions: usize,
    pub(crate) dropped_actions: u32,
}

impl Control {
    pub(crate) fn new(interpolation: bool) -> Self {
        Self {
            state: LoopState::Init,
            frame: 0,
            tick: 0,
            running_time_ns: 0,
            interpolation,
            frames_presented: 0,
            pause: None,
            steps: 0,
            set_interpolation: None,
            exit: false,
            failure: None,
            actions: [None; MAX_ACTIONS_PER_CALLBACK],
            n_actions: 0,
            dropped_actions: 0,
        }
    }

    /// The loop's lifecycle state.
    #[must_use]
    pub fn state(&self) -> LoopState {
        self.state
    }

    /// Whether the loop is paused (or a pause was requested in this
    /// callback).
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.pause.unwrap_or(self.state == LoopState::Paused)
    }

    /// The current frame's 1-based index (the frame about to run in
    /// `on_frame`; the last frame in `on_input`).
    #[must_use]
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Completed ticks.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Running time of the loop in ns (pauses excluded).
    #[must_use]
    pub fn running_time_ns(&self) -> i64 {
        self.running_time_ns
    }

    /// Frames the renderer has finished (0 when nothing renders).
    #[must_use]
    pub fn frames_presented(&self) -> u64 {
        self.frames_presented
    }

    /// Whether presentation interpolates between ticks (as of the request).
    #[must_use]
    pub fn interpolation(&self) -> bool {
        self.set_interpolation.unwrap_or(self.interpolation)
    }

    /// Requests Running → Paused (ticks stop; frames and presentation go
    /// on). Ignored unless Running.
    pub fn pause(&mut self) {
        self.pause = Some(true);
    }

    /// Requests Paused → Running (the paused time is not replayed).
    /// Ignored unless Paused.
    pub fn resume(&mut self) {
        self.pause = Some(false);
    }

    /// Pause when running, resume when paused.
    pub fn toggle_pause(&mut self) {
        self.pause = Some(!self.is_paused());
    }

    /// Requests one single-step tick (only while paused; ignored
    /// otherwise). Several calls step several ticks.
    pub fn step(&mut self) {
        self.steps = self.steps.saturating_add(1);
    }

    /// Turns presentation interpolation on or off.
    pub fn set_interpolation(&mut self, on: bool) {
        self.set_interpolation = Some(on);
    }

    /// Flips presentation interpolation.
    pub fn toggle_interpolation(&mut self) {
        self.set_interpolation = Some(!self.interpolation());
    }

    /// Requests the end of the run: the ordered shutdown, exit code 0.
    pub fn exit(&mut self) {
        self.exit = true;
    }

    /// Ends the run as a failure: the ordered shutdown with
    /// [`ExitReason::SystemFailed`](crate::ExitReason) carrying `err`
    /// (logged once as `engine/system_failed`), exit code 3 — for what the
    /// game does beside its systems and cannot go on without (a recording
    /// that cannot be written). The first failure of a run wins.
    pub fn fail(&mut self, err: Error) {
        self.failure.get_or_insert(err);
    }

    /// Whether an exit was requested.
    #[must_use]
    pub fn exit_requested(&self) -> bool {
        self.exit
    }

    /// Queues a game-defined action for the simulation, stamped like the
    /// event (or frame) being handled. At most
    /// [`MAX_ACTIONS_PER_CALLBACK`] per callback; more are dropped and
    /// counted (reported by the engine as `engine/actions_dropped`).
    pub fn action(&mut self, id: u32, value: i32) {
        if self.n_actions < MAX_ACTIONS_PER_CALLBACK {
            self.actions[self.n_actions] = Some(InputKind::Action { id, value });
            self.n_actions += 1;
        } else {
            self.dropped_actions = self.dropped_actions.saturating_add(1);
        }
    }

    /// Forgets the actions raised in this callback (a replay's playback:
    /// the recording holds them).
    pub(crate) fn drop_actions(&mut self) {
        self.actions = [None; MAX_ACTIONS_PER_CALLBACK];
        self.n_actions = 0;
        self.dropped_actions = 0;
    }

    /// Clears the requests (the engine does this before each callback).
    pub(crate) fn reset_requests(&mut self) {
        self.pause = None;
        self.steps = 0;
        self.set_interpolation = None;
        self.n_actions = 0;
        self.dropped_actions = 0;
    }
}

/// A builder-level registration, run on the world after the game's setup.
pub(crate) type Registration = Box<dyn FnOnce(&mut World) -> Result<(), Error>>;
