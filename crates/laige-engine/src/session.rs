//! What the headless and windowed runs share: the one `match` on the math
//! backend, building the world, the per-frame session (callbacks, control
//! requests, stamped input) and the ordered shutdown.

// det-allow-file(wall-clock): the engine reads `SteadyClock` for the run report's wall times only (diagnostics, never sim state)

use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_core::{Error, Fp32Pinned, Fpx16_16, MathBackend, Result, event};
use laige_render::FrameStats;
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::{FrameInfo, GameLoop, LoopHooks, LoopState, Profiler, World};

use crate::builder::{EngineOptions, RunLimit};
use crate::game::{Control, EngineScalar, Game, Registration, Setup};
use crate::report::{ExitReason, RunReport};
use crate::{EngineConfig, events};

/// Code generic over the simulation scalar, run for the backend chosen at
/// runtime by [`dispatch`].
pub trait ScalarVisitor {
    /// What the visit returns (the same for every backend).
    type Output;
    /// The code, instantiated for `S`.
    fn visit<S: EngineScalar>(self) -> Self::Output;
}

/// **The** one `match` between the configured backend and the statically
/// dispatched simulation: every run of the engine goes through it, and the
/// whole run — world, systems, loop — is instantiated for that one scalar.
///
/// ```
/// use laige_engine::{EngineScalar, MathBackend, ScalarVisitor, dispatch};
///
/// struct Which;
/// impl ScalarVisitor for Which {
///     type Output = MathBackend;
///     fn visit<S: EngineScalar>(self) -> MathBackend {
///         S::BACKEND
///     }
/// }
/// assert_eq!(dispatch(MathBackend::FloatPinned32, Which), MathBackend::FloatPinned32);
/// ```
pub fn dispatch<V: ScalarVisitor>(backend: MathBackend, visitor: V) -> V::Output {
    match backend {
        MathBackend::FixedPoint16_16 => visitor.visit::<Fpx16_16>(),
        MathBackend::FloatPinned32 => visitor.visit::<Fp32Pinned>(),
    }
}

/// The world of a run: input capacity, the game's setup for `S`, then the
/// builder's registrations in order.
pub(crate) fn build_world<G: Game, S: EngineScalar>(
    game: &mut G,
    config: &EngineConfig,
    registrations: Vec<Registration>,
    options: &EngineOptions,
) -> Result<World> {
    let mut world = World::default();
    world.input_mut().set_capacity(options.input_capacity)?;
    game.setup::<S>(&mut Setup {
        world: &mut world,
        config,
    })
    .map_err(setup_failed)?;
    for registration in registrations {
        registration(&mut world).map_err(setup_failed)?;
    }
    Ok(world)
}

fn setup_failed(err: Error) -> Error {
    laige_core::diag::report(&err);
    event!(Warn, events::SETUP_FAILED, error = %err);
    err
}

/// The render side as the session sees it (the GL pipeline, or nothing).
pub(crate) trait Presenter {
    /// The last frame rendered (`wait_idle`), then the render thread
    /// stopped (its `on_stop` releases the GL context on it).
    fn finish(&mut self) -> Result<()>;
    /// The handoff's frame accounting.
    fn frame_stats(&self) -> FrameStats;
}

/// No rendering.
pub(crate) struct NoPresenter;

impl Presenter for NoPresenter {
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
    fn frame_stats(&self) -> FrameStats {
        FrameStats::default()
    }
}

/// The loop hooks of a run: the game's `on_tick`, and the wall time of
/// the first completed tick.
struct EngineHooks<'a, G> {
    game: &'a mut G,
    first_tick_wall: &'a mut Option<i64>,
}

impl<G: Game> LoopHooks for EngineHooks<'_, G> {
    fn on_tick(&mut self, world: &World, tick: u64) {
        if self.first_tick_wall.is_none() {
            *self.first_tick_wall = Some(SteadyClock.now_ns());
        }
        self.game.on_tick(world, tick);
    }
}

/// One run's loop and lifecycle state.
pub(crate) struct Session<C: MonotonicClock> {
    pub(crate) game_loop: GameLoop<C>,
    pub(crate) control: Control,
    pub(crate) interpolation: bool,
    pub(crate) backend: MathBackend,
    started_wall: i64,
    first_tick_wall: Option<i64>,
    pub(crate) exit: Option<ExitReason>,
    handle_ctrl_c: bool,
}

impl<C: MonotonicClock> Session<C> {
    /// A loop over `world` on `clock`, with the profiler on. Installs the
    /// Ctrl-C handler when the options ask for it.
    pub(crate) fn new(
        world: World,
        config: &EngineConfig,
        options: &EngineOptions,
        backend: MathBackend,
        clock: C,
    ) -> Result<Self> {
        if options.handle_ctrl_c {
            crate::interrupt::install_handler()?;
        }
        let schedule = world.schedule_systems();
        let mut game_loop = GameLoop::with_clock(world, schedule, config.game_loop, clock)?;
        let mut profiler = Profiler::new(options.profiler)?;
        profiler.set_enabled(true);
        game_loop.set_profiler(profiler);
        Ok(Self {
            game_loop,
            control: Control::new(config.render.interpolation),
            interpolation: config.render.interpolation,
            backend,
            started_wall: SteadyClock.now_ns(),
            first_tick_wall: None,
            exit: None,
            handle_ctrl_c: options.handle_ctrl_c,
        })
    }

    /// Init → Running: the clock reference of the run (running time 0).
    pub(crate) fn start(&mut self, mode: &'static str, frame_rate_hz: u32) -> Result<()> {
        if self.handle_ctrl_c {
            // An interrupt that ended an earlier run must not end this one.
            crate::interrupt::clear();
        }
        self.started_wall = SteadyClock.now_ns();
        self.game_loop.start()?;
        event!(
            Info,
            events::STARTED,
            mode,
            backend = self.backend.id(),
            tick_rate_hz = self.game_loop.tick_rate_hz(),
            frame_rate_hz,
            entities = self.game_loop.world().len()
        );
        Ok(())
    }

    /// Whether the run should end: an exit was decided, or Ctrl-C.
    pub(crate) fn should_stop(&mut self) -> bool {
        if self.exit.is_none() && self.handle_ctrl_c && crate::interrupt::is_requested() {
            self.exit = Some(ExitReason::Interrupted);
        }
        self.exit.is_some()
    }

    /// Whether `limit` is reached before frame `next_frame` (1-based),
    /// scheduled `next_frame_time_ns` after the start.
    pub(crate) fn limit_reached(
        &self,
        limit: RunLimit,
        next_frame: u64,
        next_frame_time_ns: i64,
    ) -> bool {
        match limit {
            RunLimit::Frames(n) => next_frame > n,
            RunLimit::Ticks(n) => self.game_loop.current_tick() >= n,
            RunLimit::Duration(d) => {
                i128::from(next_frame_time_ns) > i128::try_from(d.as_nanos()).unwrap_or(i128::MAX)
            }
            RunLimit::Unlimited => false,
        }
    }

    fn refresh_control(&mut self, presented: u64) {
        let c = &mut self.control;
        c.reset_requests();
        c.state = self.game_loop.state();
        c.frame = self.game_loop.frame_count();
        c.tick = self.game_loop.current_tick();
        c.running_time_ns = self.game_loop.elapsed_running_ns();
        c.interpolation = self.interpolation;
        c.frames_presented = presented;
    }

    /// The frame callback (`Game::on_frame`) and its requests, stamped at
    /// `reading_ns`. `frame` is the index of the frame about to run.
    pub(crate) fn frame_callback<G: Game>(
        &mut self,
        game: &mut G,
        frame: u64,
        reading_ns: i64,
        presented: u64,
    ) {
        self.refresh_control(presented);
        self.control.frame = frame;
        game.on_frame(self.game_loop.world(), &mut self.control);
        self.apply(game, reading_ns);
    }

    /// A platform event: stamped at `reading_ns`, queued for the
    /// simulation, shown to `Game::on_input`, its requests carried out.
    #[allow(
        dead_code,
        reason = "the windowed run's; headless runs have no platform events"
    )]
    pub(crate) fn input_event<G: Game>(
        &mut self,
        game: &mut G,
        reading_ns: i64,
        kind: InputKind,
        presented: u64,
    ) {
        let stamp = self.game_loop.input_stamp(reading_ns);
        // A full queue rejects (counted, reported); the game still sees it.
        let seq = self
            .game_loop
            .world_mut()
            .input_mut()
            .push(stamp, kind)
            .unwrap_or(u64::MAX);
        let event = InputEvent {
            tick: stamp.tick,
            time_ns: stamp.time_ns,
            seq,
            kind,
        };
        self.refresh_control(presented);
        game.on_input(&event, &mut self.control);
        self.apply(game, reading_ns);
    }

    /// Carries out the control requests, in the documented order: actions,
    /// pause/resume, steps, interpolation, exit.
    fn apply<G: Game>(&mut self, game: &mut G, reading_ns: i64) {
        let n = self.control.n_actions;
        for slot in 0..n {
            if let Some(kind) = self.control.actions[slot].take() {
                // Rejected actions are counted and reported by the queue.
                let _ = self.game_loop.push_input(reading_ns, kind);
            }
        }
        if self.control.dropped_actions > 0 {
            event!(
                Warn,
                events::ACTIONS_DROPPED,
                dropped = self.control.dropped_actions
            );
        }
        match (self.control.pause, self.game_loop.state()) {
            (Some(true), LoopState::Running) => {
                let _ = self.game_loop.pause();
            }
            (Some(false), LoopState::Paused) => {
                let _ = self.game_loop.resume();
            }
            _ => {}
        }
        for _ in 0..self.control.steps {
            if self.game_loop.state() != LoopState::Paused || self.exit.is_some() {
                break;
            }
            let mut hooks = EngineHooks {
                game: &mut *game,
                first_tick_wall: &mut self.first_tick_wall,
            };
            if let Err(err) = self.game_loop.step_with(&mut hooks) {
                self.fail_tick(err);
            }
        }
        if let Some(on) = self.control.set_interpolation {
            self.interpolation = on;
        }
        if self.control.exit && self.exit.is_none() {
            self.exit = Some(ExitReason::GameExit);
        }
        self.control.reset_requests();
    }

    /// Runs one loop frame with the engine's hooks. A failing tick ends
    /// the run (`SystemFailed`); returns the frame's info on success.
    pub(crate) fn run_frame<G: Game>(&mut self, game: &mut G) -> Option<FrameInfo> {
        let mut hooks = EngineHooks {
            game,
            first_tick_wall: &mut self.first_tick_wall,
        };
        match self.game_loop.frame_with(&mut hooks) {
            Ok(info) => Some(info),
            Err(err) => {
                self.fail_tick(err);
                None
            }
        }
    }

    fn fail_tick(&mut self, err: Error) {
        let tick = self.game_loop.current_tick();
        event!(Error, events::SYSTEM_FAILED, tick, error = %err);
        if self.exit.is_none() {
            self.exit = Some(ExitReason::SystemFailed(err));
        }
    }

    /// The presentation alpha word of the frame presented at `render_time_ns`
    /// (a reading of the loop's clock): the alpha in parts per billion, or
    /// [`ALPHA_CURRENT`] when interpolation is off (draw the last tick).
    #[cfg_attr(
        not(feature = "window"),
        allow(dead_code, reason = "only the GL presenter publishes frames")
    )]
    pub(crate) fn alpha_word(&self, render_time_ns: i64) -> u64 {
        if self.interpolation {
            u64::from(self.game_loop.alpha_at(render_time_ns).ppb())
        } else {
            ALPHA_CURRENT
        }
    }

    /// The ordered shutdown (the same for every exit reason):
    ///
    /// 1. the loop → Shutdown; `engine/shutdown` (Info);
    /// 2. the last frame rendered (`wait_idle`), the render thread stopped
    ///    — its `on_stop` releases the GL context on it, and the context is
    ///    destroyed there;
    /// 3. the profiler summary (`engine/profiler_summary`);
    /// 4. the rate-limit summary (`diag/rate_limited`, one per key with
    ///    suppressed events);
    /// 5. `engine/stopped` (Info) and the report.
    pub(crate) fn shutdown<P: Presenter>(mut self, presenter: Option<&mut P>) -> RunReport {
        let mut reason = self.exit.take().unwrap_or(ExitReason::Completed);
        if self.game_loop.state() != LoopState::Shutdown {
            let _ = self.game_loop.shutdown();
        }
        let stats = self.game_loop.stats();
        event!(
            Info,
            events::SHUTDOWN,
            reason = reason.as_str(),
            exit_code = reason.exit_code(),
            ticks = self.game_loop.current_tick(),
            frames = stats.frames
        );
        let mut frame_stats = FrameStats::default();
        if let Some(p) = presenter {
            if let Err(err) = p.finish() {
                event!(Error, events::RENDER_FAILED, error = %err);
                if reason.error().is_none() {
                    reason = ExitReason::RenderFailed(err);
                }
            }
            frame_stats = p.frame_stats();
        }
        let profiler = self.game_loop.profiler_mut();
        let ticks = profiler.tick_summary();
        let frames = profiler.frame_summary();
        let mut profile = String::new();
        let _ = profiler.write_report(&mut profile);
        event!(
            Info,
            events::PROFILER_SUMMARY,
            ticks = ticks.recorded,
            tick_p50_ns = ticks.p50_ns,
            tick_p99_ns = ticks.p99_ns,
            tick_max_ns = ticks.max_ns,
            frame_p50_ns = frames.p50_ns,
            frame_p99_ns = frames.p99_ns
        );
        laige_core::diag::emit_rate_limited_summary();
        let world = self.game_loop.world();
        let state_hash = world.state_hash();
        event!(
            Info,
            events::STOPPED,
            reason = reason.as_str(),
            exit_code = reason.exit_code(),
            state_hash = %format_args!("{state_hash:016x}")
        );
        RunReport {
            backend: self.backend,
            ticks: world.tick(),
            frames: stats.frames,
            dropped_ticks: stats.dropped_ticks,
            dropped_frames: stats.dropped_frames,
            frames_rendered: frame_stats.rendered,
            frames_render_dropped: frame_stats.dropped,
            tick_p50_ns: ticks.p50_ns,
            tick_p99_ns: ticks.p99_ns,
            tick_samples: ticks.samples,
            state_hash,
            entities: world.len(),
            input: world.input().stats(),
            wall_ns: SteadyClock.now_ns() - self.started_wall,
            first_tick_wall_ns: self.first_tick_wall.map(|t| t - self.started_wall),
            profile,
            exit: reason,
        }
    }
}

/// The alpha word meaning "interpolation off: draw the last tick as is"
/// (one past the largest ppb alpha).
#[cfg_attr(
    not(feature = "window"),
    allow(dead_code, reason = "only the GL presenter publishes frames")
)]
pub(crate) const ALPHA_CURRENT: u64 = 1_000_000_000;

#[cfg(test)]
mod tests {
    use laige_core::clock::SyntheticClock;
    use laige_sim::input::{ButtonState, InputKind, KeyCode};

    use super::*;
    use crate::game::NoGame;

    /// A game that pauses on P, steps on S, toggles interpolation on I,
    /// raises action 7 on A and exits on Q — and records what it saw.
    #[derive(Default)]
    struct Keys {
        seen: Vec<(u64, InputKind)>,
    }

    impl Game for Keys {
        fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> Result<()> {
            Ok(())
        }
        fn on_input(&mut self, event: &InputEvent, control: &mut Control) {
            self.seen.push((event.tick, event.kind));
            if let InputKind::Key {
                key,
                state: ButtonState::Pressed,
            } = event.kind
            {
                match key {
                    KeyCode::P => control.toggle_pause(),
                    KeyCode::S => control.step(),
                    KeyCode::I => control.toggle_interpolation(),
                    KeyCode::A => control.action(7, 3),
                    KeyCode::Q => control.exit(),
                    _ => {}
                }
            }
        }
    }

    fn press(key: KeyCode) -> InputKind {
        InputKind::Key {
            key,
            state: ButtonState::Pressed,
        }
    }

    fn session() -> (Session<SyntheticClock>, SyntheticClock) {
        let config = EngineConfig::default();
        let options = EngineOptions {
            handle_ctrl_c: false,
            ..EngineOptions::default()
        };
        let mut world =
            build_world::<NoGame, laige_core::Fpx16_16>(&mut NoGame, &config, Vec::new(), &options)
                .unwrap();
        world.register_system("noop", 0, |_| Ok(())).unwrap();
        let clock = SyntheticClock::new(0);
        let mut s = Session::new(
            world,
            &config,
            &options,
            MathBackend::FixedPoint16_16,
            clock.clone(),
        )
        .unwrap();
        s.start("test", 60).unwrap();
        (s, clock)
    }

    #[test]
    fn platform_events_are_queued_shown_and_drive_the_lifecycle() {
        let (mut s, clock) = session();
        let mut game = Keys::default();
        // A key at 20 ms (tick 1's interval) is queued for tick 1 and shown.
        s.input_event(&mut game, 20_000_000, press(KeyCode::B), 0);
        assert_eq!(game.seen, [(1, press(KeyCode::B))]);
        assert_eq!(s.game_loop.world().input().pending_len(), 1);
        // An action raised by a callback is stamped like its event.
        s.input_event(&mut game, 21_000_000, press(KeyCode::A), 0);
        let pending: Vec<_> = s
            .game_loop
            .world()
            .input()
            .pending()
            .map(|e| e.kind)
            .collect();
        assert_eq!(
            pending,
            [
                press(KeyCode::B),
                press(KeyCode::A),
                InputKind::Action { id: 7, value: 3 }
            ]
        );
        // Pause, step twice while paused, resume.
        clock.set_ns(40_000_000);
        assert!(s.run_frame(&mut game).is_some()); // ticks 0 and 1
        assert_eq!(s.game_loop.current_tick(), 2);
        s.input_event(&mut game, 40_000_000, press(KeyCode::P), 0);
        assert_eq!(s.game_loop.state(), LoopState::Paused);
        s.input_event(&mut game, 40_000_000, press(KeyCode::S), 0);
        s.input_event(&mut game, 40_000_000, press(KeyCode::S), 0);
        assert_eq!(s.game_loop.current_tick(), 4);
        s.input_event(&mut game, 40_000_000, press(KeyCode::P), 0);
        assert_eq!(s.game_loop.state(), LoopState::Running);
        // Interpolation off: the alpha word says "draw the last tick".
        assert!(s.interpolation);
        assert!(s.alpha_word(45_000_000) < ALPHA_CURRENT);
        s.input_event(&mut game, 45_000_000, press(KeyCode::I), 0);
        assert!(!s.interpolation);
        assert_eq!(s.alpha_word(45_000_000), ALPHA_CURRENT);
        // Exit: the ordered shutdown reports the game's exit.
        s.input_event(&mut game, 46_000_000, press(KeyCode::Q), 0);
        assert!(s.should_stop());
        let report = s.shutdown(None::<&mut NoPresenter>);
        assert!(matches!(report.exit, ExitReason::GameExit));
        assert_eq!(report.ticks, 4);
    }

    #[test]
    fn too_many_actions_in_one_callback_are_counted_not_queued() {
        struct Spam;
        impl Game for Spam {
            fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> Result<()> {
                Ok(())
            }
            fn on_frame(&mut self, _: &World, control: &mut Control) {
                for i in 0..20 {
                    control.action(i, 0);
                }
            }
        }
        let (mut s, _clock) = session();
        let (_, events) = laige_core::diag::capture_events(|| {
            s.frame_callback(&mut Spam, 1, 0, 0);
        });
        assert_eq!(
            s.game_loop.world().input().pending_len(),
            crate::MAX_ACTIONS_PER_CALLBACK
        );
        assert!(
            events
                .iter()
                .any(|e| e.is(events::ACTIONS_DROPPED) && e.field("dropped") == Some("4"))
        );
    }
}
