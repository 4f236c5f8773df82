//! One run's session: building the world, the lifecycle and control
//! requests, stamped input, **the frame step** every driver runs, and the
//! ordered shutdown.
//!
//! The headless and windowed runs are thin drivers of [`Session`]: they
//! decide *when* a frame happens (the frame clock's deadline, virtual time,
//! the event loop's wake-up) and call [`Session::next_frame`] and
//! [`Session::frame`]; everything a frame does is here, once:
//!
//! ```text
//! next_frame(scheduled)   exit decided? Ctrl-C? the limit reached? → stop
//! frame(reading):
//!   Game::on_frame + its requests (actions, pause, steps, interpolation, exit)
//!   GameLoop::frame_with   the due ticks, input delivered at each tick's start
//!   [unpaced: wait for the renderer to finish the previous frame]
//!   Presenter::publish     Game::present → sprites, FrameDescriptor {
//!                          frame, tick, reading, alpha at reading, interpolate }
//! ```
//!
//! Every exit reason is decided here (the game's exit, a failing tick, the
//! render side failing, Ctrl-C, the limit); a driver only names the reason
//! it ends for when the session has none (the window closed).
//!
//! Errors are logged once, where the session decides what they mean: a
//! failing tick as `engine/system_failed`, a failing render side as
//! `engine/render_failed` (at shutdown, when the render thread's error is
//! collected), a failed setup as `engine/setup_failed` unless the part that
//! rejected an argument already warned it; each is then
//! carried in the report (or returned) and not logged again. Errors the
//! engine only passes back to its caller before a run starts are logged,
//! if at all, where they are made.

// det-allow-file(wall-clock): the engine reads `SteadyClock` for the run report's wall times only (diagnostics, never sim state)

use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_core::diag::{self, Severity};
use laige_core::{Error, ErrorCode, MathBackend, Result, event};
use laige_render::gl::Sprite;
use laige_render::{FrameDescriptor, FrameStats};
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::{GameLoop, LoopHooks, LoopState, Profiler, World};

use crate::frame::{FpsWindow, Frame, RunStats};
use crate::game::{Control, EngineScalar, Game, Registration, Setup};
use crate::options::{EngineOptions, RunLimit};
use crate::presenter::Presenter;
use crate::report::{ExitReason, RunReport};
use crate::{EngineConfig, events};

/// The world of a run: input capacity, the engine's resources (the seeded
/// rng), the game's setup for `S`, then the builder's registrations in
/// order.
pub(crate) fn build_world<G: Game, S: EngineScalar>(
    game: &mut G,
    config: &EngineConfig,
    registrations: Vec<Registration>,
    options: &EngineOptions,
) -> Result<World> {
    let mut world = World::default();
    world.input_mut().set_capacity(options.input_capacity)?;
    crate::resources::insert_engine_resources(&mut world, config)?;
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

/// A failed setup ends the run before it starts; the error is returned and
/// logged once. A rejected argument was already logged where it was
/// rejected (laige-sim warns each rejection under the error's own id, as the
/// game loop's options must by their contract): it is not logged again.
/// Any other error (the game's own, one returned unlogged) is logged here,
/// as `engine/setup_failed` naming it.
fn setup_failed(err: Error) -> Error {
    if !warned(&err) {
        event!(Warn, events::SETUP_FAILED, error = %err);
    }
    err
}

/// Whether a Warn under `err`'s id was reported in this process, emitted
/// or counted by the rate limiter: the layer that made the error logged it
/// (an id is one that its owner reports or one that it never does).
fn warned(err: &Error) -> bool {
    let stats = diag::rate_stats(err.id(), Severity::Warn);
    stats.emitted + stats.suppressed > 0
}

/// The network session a run is one peer of, made from the built world
/// (`EngineBuilder::net`; feature `net`).
#[cfg(feature = "net")]
pub(crate) type NetStart =
    Option<Box<dyn FnOnce(&mut World) -> Result<Box<dyn laige_net::TickDriver>>>>;
/// Without the `net` feature a run has no network session.
#[cfg(not(feature = "net"))]
pub(crate) type NetStart = ();

/// How long a network session keeps answering its peers after the run
/// ended by itself, so that they receive this peer's last inputs and reach
/// their own end: 1 s, five of GGRS's 200 ms resend intervals.
#[cfg(feature = "net")]
pub(crate) const NET_LINGER: std::time::Duration = std::time::Duration::from_secs(1);

/// How a driver runs its frames (fixed when the run starts).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunPlan {
    /// `headless` or `windowed` (the `engine/started` event's `mode`).
    pub(crate) mode: &'static str,
    /// The frame rate the driver paces at.
    pub(crate) frame_rate_hz: u32,
    /// When the run ends by itself.
    pub(crate) limit: RunLimit,
    /// Publish a frame only once the renderer finished the previous one
    /// (the unpaced run: every frame presented, none dropped).
    pub(crate) wait_for_render: bool,
}

/// The loop hooks of a run: the game's `on_tick`, the wall time of the
/// first completed tick, and the network session that owns the ticks.
struct EngineHooks<'a, G, S> {
    game: &'a mut G,
    first_tick_wall: &'a mut Option<i64>,
    /// The run's tick limit ([`RunLimit::Ticks`]): a due tick past it runs
    /// none, so a frame that catches up several ticks ends the run on the
    /// limit's tick exactly.
    tick_limit: Option<u64>,
    #[cfg(feature = "net")]
    net: Option<&'a mut (dyn laige_net::TickDriver + 'static)>,
    scalar: std::marker::PhantomData<fn() -> S>,
}

impl<G: Game, S: EngineScalar> EngineHooks<'_, G, S> {
    /// A network session runs the due tick (its GGRS requests: save, load,
    /// advance); an ended session fails the tick, and the frame step turns
    /// that into the session's end. `None` without a session.
    #[cfg(feature = "net")]
    fn net_tick(
        &mut self,
        world: &mut World,
        schedule: &laige_sim::SystemSchedule,
    ) -> Option<Result<laige_sim::DueTick>> {
        use laige_net::Advance;
        let net = self.net.as_deref_mut()?;
        // A network tick is outside the loop's zero-allocation window:
        // GGRS allocates every frame (its request list, its messages).
        #[cfg(debug_assertions)]
        let _ggrs = laige_core::alloc_watch::suspend();
        Some(net.advance(world, schedule).and_then(|advance| {
            match advance {
                Advance::Ticked => Ok(laige_sim::DueTick::Ran),
                Advance::Synchronizing | Advance::Skipped | Advance::Waiting => {
                    Ok(laige_sim::DueTick::Skipped)
                }
                Advance::Ended => Err(Error::new(
                    ErrorCode::Failed,
                    laige_net::events::SESSION_FAILED,
                )
                .with_detail("the network session ended")),
            }
        }))
    }

    /// Without the `net` feature there is no session: the loop runs the
    /// tick.
    #[cfg(not(feature = "net"))]
    #[allow(clippy::unused_self, reason = "the `net` build's signature")]
    fn net_tick(
        &mut self,
        _world: &mut World,
        _schedule: &laige_sim::SystemSchedule,
    ) -> Option<Result<laige_sim::DueTick>> {
        None
    }
}

impl<G: Game, S: EngineScalar> LoopHooks for EngineHooks<'_, G, S> {
    /// No tick past the run's tick limit; a network session runs the
    /// others ([`net_tick`](Self::net_tick)).
    fn run_tick(
        &mut self,
        world: &mut World,
        schedule: &laige_sim::SystemSchedule,
    ) -> Option<Result<laige_sim::DueTick>> {
        if self.tick_limit.is_some_and(|n| world.tick() >= n) {
            return Some(Ok(laige_sim::DueTick::Skipped));
        }
        self.net_tick(world, schedule)
    }

    fn on_tick(&mut self, world: &World, tick: u64) {
        if self.first_tick_wall.is_none() {
            *self.first_tick_wall = Some(SteadyClock.now_ns());
        }
        self.game.on_tick::<S>(world, tick);
    }
}

/// One run's loop and lifecycle state.
pub(crate) struct Session<C: MonotonicClock> {
    pub(crate) game_loop: GameLoop<C>,
    control: Control,
    interpolation: bool,
    backend: MathBackend,
    started_wall: i64,
    first_tick_wall: Option<i64>,
    /// Why the run ends, once decided (only the session's own methods set
    /// it).
    exit: Option<ExitReason>,
    handle_ctrl_c: bool,
    plan: RunPlan,
    /// Frames run: the next frame's 1-based index is `frames + 1`.
    frames: u64,
    /// What [`Game::view`] reads, every frame (the camera travels with the
    /// frame's sprites as its first item).
    view_config: EngineConfig,
    /// The loop was paused by a focus loss (and resumes on focus).
    focus_paused: bool,
    /// The network session that owns the ticks (feature `net`).
    #[cfg(feature = "net")]
    net: Option<Box<dyn laige_net::TickDriver>>,
    /// The last frames' readings and presented counts (the fps figure).
    fps: FpsWindow,
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
            // A signal that arrived before this point (the flag is taken
            // down only by the shutdown of a run it ended) counts: it ends
            // this run at its first frame, as does one that arrives while
            // the GL context and the render thread are made.
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
            view_config: config.clone(),
            backend,
            started_wall: SteadyClock.now_ns(),
            first_tick_wall: None,
            exit: None,
            handle_ctrl_c: options.handle_ctrl_c,
            plan: RunPlan {
                mode: "headless",
                frame_rate_hz: 0,
                limit: RunLimit::Unlimited,
                wait_for_render: false,
            },
            frames: 0,
            focus_paused: false,
            #[cfg(feature = "net")]
            net: None,
            fps: FpsWindow::default(),
        })
    }

    /// Makes the run one peer of the network session `start` builds on
    /// the world (nothing without one, or without the `net` feature).
    ///
    /// # Errors
    /// The session's own (a bad config, an unregistered component, GGRS
    /// refusing), as a failed setup.
    #[cfg_attr(
        not(feature = "net"),
        allow(
            clippy::unnecessary_wraps,
            clippy::unused_self,
            unused_variables,
            reason = "the net feature's"
        )
    )]
    pub(crate) fn attach_net(&mut self, start: NetStart) -> Result<()> {
        #[cfg(feature = "net")]
        if let Some(start) = start {
            self.net = Some(start(self.game_loop.world_mut()).map_err(setup_failed)?);
        }
        Ok(())
    }

    /// One poll of the network session after the run ended by itself, for
    /// a driver that cannot wait ([`NET_LINGER`] of them, the page's
    /// animation frames, instead of the shutdown's blocking linger):
    /// whether the session is still live (it is not ended, a peer may
    /// still need this peer's last inputs). Cold path.
    #[cfg(all(feature = "net", feature = "web", target_arch = "wasm32"))]
    pub(crate) fn linger_poll(&mut self) -> bool {
        match self.net.as_mut() {
            Some(net) if net.report().end.is_none() => {
                net.linger(std::time::Duration::ZERO);
                true
            }
            _ => false,
        }
    }

    /// The end of the network session, once it ended.
    #[cfg(feature = "net")]
    fn net_end(&self) -> Option<ExitReason> {
        let (exit_code, reason) = self.net.as_ref()?.report().end?;
        Some(ExitReason::SessionEnded { exit_code, reason })
    }

    /// Init → Running under `plan`: the clock reference of the run
    /// (running time 0).
    pub(crate) fn start(&mut self, plan: RunPlan) -> Result<()> {
        self.plan = plan;
        let (mode, frame_rate_hz) = (plan.mode, plan.frame_rate_hz);
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

    /// Whether the run should end: an exit was decided, or a stop signal.
    pub(crate) fn should_stop(&mut self) -> bool {
        if self.exit.is_none()
            && self.handle_ctrl_c
            && let Some(signal) = crate::interrupt::requested()
        {
            self.exit = Some(ExitReason::Interrupted(signal));
        }
        self.exit.is_some()
    }

    /// The index of the next frame (1-based) when the run goes on to it,
    /// scheduled `scheduled_ns` after the start; `None` when the run ends
    /// first — an exit was decided, Ctrl-C, or the limit is reached.
    pub(crate) fn next_frame(&mut self, scheduled_ns: i64) -> Option<u64> {
        let k = self.frames + 1;
        let limit_reached = match self.plan.limit {
            RunLimit::Frames(n) => k > n,
            RunLimit::Ticks(n) => self.game_loop.current_tick() >= n,
            RunLimit::Duration(d) => {
                // The later of the frame's slot and the clock: an overloaded
                // paced run falls behind its slots, and its limit is still
                // the real time that passed.
                let elapsed = self
                    .game_loop
                    .start_reference_ns()
                    .map_or(0, |r| self.game_loop.clock().now_ns().saturating_sub(r));
                i128::from(scheduled_ns.max(elapsed))
                    > i128::try_from(d.as_nanos()).unwrap_or(i128::MAX)
            }
            RunLimit::Unlimited => false,
        };
        if self.should_stop() {
            return None;
        }
        if limit_reached {
            self.exit = Some(ExitReason::Completed);
            return None;
        }
        Some(k)
    }

    /// Runs frame [`next_frame`](Self::next_frame) returned, presented at
    /// `reading_ns` (a reading of the loop's clock): the game's frame
    /// callback and its requests, the due ticks, then the frame published
    /// to `presenter` (after the previous one finished, when the plan asks
    /// for it). Returns whether the run goes on; when it does not, the
    /// reason is decided (the game's exit, a failing tick, the render side
    /// failing).
    pub(crate) fn frame<G: Game, S: EngineScalar, P: Presenter>(
        &mut self,
        game: &mut G,
        presenter: &mut P,
        reading_ns: i64,
    ) -> bool {
        let k = self.frames + 1;
        // A span per frame (feature `trace`): callbacks, ticks, publish.
        #[cfg(feature = "trace")]
        let _span = tracing::info_span!("frame", frame = k).entered();
        self.refresh_control(presenter.presented());
        self.control.frame = k;
        let world = self.game_loop.world();
        let control = &mut self.control;
        if let Err(err) = catch_callback("on_frame", || game.on_frame::<S>(world, control)) {
            self.fail_tick(err);
            return false;
        }
        self.apply::<G, S>(game, reading_ns);
        if self.exit.is_some() {
            return false;
        }
        let mut hooks = EngineHooks::<G, S> {
            game: &mut *game,
            first_tick_wall: &mut self.first_tick_wall,
            tick_limit: self.plan.limit.ticks(),
            #[cfg(feature = "net")]
            net: self.net.as_deref_mut(),
            scalar: std::marker::PhantomData,
        };
        if let Err(err) = self.game_loop.frame_with(&mut hooks) {
            #[cfg(feature = "net")]
            if let Some(end) = self.net_end() {
                self.exit.get_or_insert(end);
                return false;
            }
            self.fail_tick(err);
            return false;
        }
        let descriptor = FrameDescriptor {
            frame_index: k,
            sim_tick: self.game_loop.current_tick(),
            render_time_ns: reading_ns,
            alpha: self.game_loop.alpha_at(reading_ns),
            interpolate: self.interpolation,
        };
        let mut callback_failed = None;
        let waited = if self.plan.wait_for_render {
            presenter.wait_idle()
        } else {
            Ok(())
        };
        let stats = self.run_stats(k, reading_ns, presenter);
        let (world, profiler) = self.game_loop.world_and_profiler_mut();
        let published = waited.and_then(|()| {
            presenter.publish(descriptor, |sprites, assets| {
                // The frame's camera first: the renderer takes its view from
                // it, so a view that changes every frame stays in step with
                // the sprites it was computed with.
                let view_config = &self.view_config;
                let drawn = catch_callback("view", || game.view(view_config))
                    .map(|view| sprites.push(Sprite::camera(view)))
                    .and_then(|()| {
                        let mut frame = Frame {
                            sprites,
                            stats,
                            world,
                            profiler,
                            assets,
                        };
                        catch_callback("present", || game.present::<S>(world, &mut frame))
                    });
                if let Err(err) = drawn {
                    // A half-built frame is not drawn: the frame goes out
                    // empty and the run ends after it.
                    sprites.clear();
                    callback_failed = Some(err);
                }
            })
        });
        if let Some(err) = callback_failed {
            self.fail_tick(err);
            return false;
        }
        if let Err(err) = published {
            self.exit = Some(ExitReason::RenderFailed(err));
            return false;
        }
        self.frames = k;
        true
    }

    /// The run's numbers for frame `k`'s presentation (after its ticks),
    /// read at `reading_ns`; records the frame in the fps window.
    fn run_stats<P: Presenter>(&mut self, k: u64, reading_ns: i64, presenter: &P) -> RunStats {
        let presented = presenter.presented();
        let loop_stats = self.game_loop.stats();
        RunStats {
            frame: k,
            tick: self.game_loop.current_tick(),
            fps: self.fps.push(reading_ns, presented),
            frames_presented: presented,
            dropped_ticks: loop_stats.dropped_ticks,
            dropped_frames: loop_stats.dropped_frames,
            frames_render_dropped: presenter.frame_stats().dropped,
            backend: self.backend,
            paused: self.game_loop.state() == LoopState::Paused,
        }
    }

    /// The window gained or lost focus (when `[render]
    /// pause_on_focus_lost` is on): a loss pauses a running loop, the
    /// regained focus resumes it — only if the loss paused it, so a pause
    /// the game asked for stays.
    #[cfg_attr(
        not(feature = "window"),
        allow(dead_code, reason = "the windowed run's; headless runs have no focus")
    )]
    pub(crate) fn focus_changed(&mut self, focused: bool) {
        let state = self.game_loop.state();
        if !focused && state == LoopState::Running {
            self.focus_paused = self.game_loop.pause().is_ok();
        } else if focused && self.focus_paused {
            self.focus_paused = false;
            if state == LoopState::Paused {
                let _ = self.game_loop.resume();
            }
        }
    }

    /// Frames run so far.
    pub(crate) fn frames(&self) -> u64 {
        self.frames
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

    /// A platform event: stamped at `reading_ns`, queued for the
    /// simulation, shown to `Game::on_input`, its requests carried out.
    #[cfg_attr(
        not(feature = "window"),
        allow(
            dead_code,
            reason = "the windowed run's; headless runs have no platform events"
        )
    )]
    pub(crate) fn input_event<G: Game, S: EngineScalar>(
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
        let control = &mut self.control;
        if let Err(err) = catch_callback("on_input", || game.on_input::<S>(&event, control)) {
            self.fail_tick(err);
            return;
        }
        self.apply::<G, S>(game, reading_ns);
    }

    /// Carries out the control requests, in the documented order: actions,
    /// pause/resume, steps, interpolation, a failure, exit.
    fn apply<G: Game, S: EngineScalar>(&mut self, game: &mut G, reading_ns: i64) {
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
            let mut hooks = EngineHooks::<G, S> {
                game: &mut *game,
                first_tick_wall: &mut self.first_tick_wall,
                tick_limit: self.plan.limit.ticks(),
                #[cfg(feature = "net")]
                net: self.net.as_deref_mut(),
                scalar: std::marker::PhantomData,
            };
            if let Err(err) = self.game_loop.step_with(&mut hooks) {
                #[cfg(feature = "net")]
                if let Some(end) = self.net_end() {
                    self.exit.get_or_insert(end);
                    break;
                }
                self.fail_tick(err);
            }
        }
        if let Some(on) = self.control.set_interpolation {
            self.interpolation = on;
        }
        if let Some(err) = self.control.failure.take() {
            self.fail_tick(err);
        }
        if self.control.exit && self.exit.is_none() {
            self.exit = Some(ExitReason::GameExit);
        }
        self.control.reset_requests();
    }

    fn fail_tick(&mut self, err: Error) {
        let tick = self.game_loop.current_tick();
        // The one log of the failure: laige-sim returns a system's error or
        // panic without logging it, and names the system.
        let system = self.game_loop.world().failed_system().unwrap_or("-");
        event!(Error, events::SYSTEM_FAILED, tick, system, error = %err);
        if self.exit.is_none() {
            self.exit = Some(ExitReason::SystemFailed(err));
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
    /// 5. `engine/stopped` (Info) and the report;
    /// 6. [`Game::finish`] with the final world and the report.
    ///
    /// The reason is the one the session decided, or `ended_by` (what the
    /// driver saw end the run: the window closed) when it decided none.
    pub(crate) fn shutdown<G: Game, S: EngineScalar, P: Presenter>(
        mut self,
        game: &mut G,
        presenter: &mut P,
        ended_by: ExitReason,
    ) -> RunReport {
        let mut reason = self.exit.take().unwrap_or(ended_by);
        #[cfg(feature = "net")]
        let net = self.net.take().map(|mut net| {
            // A run that ended by its limit lets the peers reach theirs; a
            // desync lets them receive this peer's last checksum report
            // before the socket closes (a WebRTC socket's sends go out on
            // its own loop): without it a peer that had not compared yet
            // would see this one vanish instead of the desync.
            let end = net.report().end;
            if end.is_none_or(|(code, _)| code == laige_net::EXIT_DESYNC) {
                net.linger(NET_LINGER);
            }
            net.finish();
            net.report()
        });
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
        if let Err(err) = presenter.finish() {
            event!(Error, events::RENDER_FAILED, error = %err);
            if reason.error().is_none() {
                reason = ExitReason::RenderFailed(err);
            }
        }
        let frame_stats: FrameStats = presenter.frame_stats();
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
        if self.handle_ctrl_c && matches!(reason, ExitReason::Interrupted(_)) {
            // The signal is spent: the next run in this process starts clean.
            crate::interrupt::clear();
        }
        let mut report = RunReport {
            backend: self.backend,
            ticks: world.tick(),
            frames: stats.frames,
            dropped_ticks: stats.dropped_ticks,
            dropped_frames: stats.dropped_frames,
            frames_rendered: frame_stats.rendered,
            frames_render_dropped: frame_stats.dropped,
            frames_submitted: frame_stats.submitted,
            frames_outstanding: frame_stats.outstanding,
            tick_p50_ns: ticks.p50_ns,
            tick_p99_ns: ticks.p99_ns,
            tick_samples: ticks.samples,
            state_hash,
            entities: world.len(),
            input: world.input().stats(),
            wall_ns: SteadyClock.now_ns() - self.started_wall,
            first_tick_wall_ns: self.first_tick_wall.map(|t| t - self.started_wall),
            profile,
            recording: None,
            #[cfg(feature = "net")]
            net,
            exit: reason,
        };
        // 6. the game's `finish`, with the final world and the report (a
        //    panic in it fails the run like any callback's).
        if let Err(err) = catch_callback("finish", || game.finish::<S>(world, &report))
            && report.exit.error().is_none()
        {
            report.exit = ExitReason::SystemFailed(err);
        }
        report
    }
}

/// Runs one game callback. A panic in it becomes `engine/callback_panicked`
/// (Failed; field = the callback, detail = the panic message): the caller
/// ends the run as for a failing system, through the ordered shutdown.
fn catch_callback<T>(callback: &'static str, f: impl FnOnce() -> T) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        Error::new(ErrorCode::Failed, events::CALLBACK_PANICKED)
            .with_field(callback)
            .with_detail(laige_core::panic_message(&*payload).to_owned())
    })
}

#[cfg(test)]
mod tests {
    use laige_core::clock::SyntheticClock;
    use laige_sim::input::{ButtonState, InputKind, KeyCode};

    use super::*;
    use crate::frame::{Assets, Frame};
    use crate::game::NoGame;
    use crate::presenter::NoPresenter;
    use laige_core::{ErrorCode, Fpx16_16};
    use laige_render::gl::Sprite;

    /// Records every descriptor it is handed; fails on `fail_at`.
    #[derive(Default)]
    struct Record {
        frames: Vec<FrameDescriptor>,
        /// The first sprite of every frame (the camera item).
        firsts: Vec<Option<Sprite>>,
        fail_at: Option<u64>,
    }

    impl Presenter for Record {
        fn presented(&self) -> u64 {
            self.frames.len() as u64
        }
        fn wait_idle(&mut self) -> Result<()> {
            Ok(())
        }
        fn publish<F: FnOnce(&mut Vec<Sprite>, &Assets)>(
            &mut self,
            frame: FrameDescriptor,
            fill: F,
        ) -> Result<()> {
            if self.fail_at == Some(frame.frame_index) {
                return Err(Error::new(ErrorCode::Failed, events::RENDER_FAILED));
            }
            let mut sprites = Vec::new();
            let assets = Assets::for_tests();
            fill(&mut sprites, &assets);
            self.firsts.push(sprites.first().copied());
            self.frames.push(frame);
            Ok(())
        }
        fn finish(&mut self) -> Result<()> {
            Ok(())
        }
        fn frame_stats(&self) -> FrameStats {
            FrameStats::default()
        }
    }

    fn plan(limit: RunLimit) -> RunPlan {
        RunPlan {
            mode: "test",
            frame_rate_hz: 60,
            limit,
            wait_for_render: false,
        }
    }

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
        fn on_input<S: EngineScalar>(&mut self, event: &InputEvent, control: &mut Control) {
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
        session_with(RunLimit::Unlimited)
    }

    fn session_with(limit: RunLimit) -> (Session<SyntheticClock>, SyntheticClock) {
        let (mut s, clock) = unstarted(false);
        s.start(plan(limit)).unwrap();
        (s, clock)
    }

    fn unstarted(handle_ctrl_c: bool) -> (Session<SyntheticClock>, SyntheticClock) {
        let config = EngineConfig::default();
        let options = EngineOptions {
            handle_ctrl_c,
            ..EngineOptions::default()
        };
        let mut world =
            build_world::<NoGame, laige_core::Fpx16_16>(&mut NoGame, &config, Vec::new(), &options)
                .unwrap();
        world.register_system("noop", 0, |_| Ok(())).unwrap();
        let clock = SyntheticClock::new(0);
        let s = Session::new(
            world,
            &config,
            &options,
            MathBackend::FixedPoint16_16,
            clock.clone(),
        )
        .unwrap();
        (s, clock)
    }

    /// The only test in this binary that raises the process-wide interrupt
    /// flag (every other session here has `handle_ctrl_c: false`).
    #[test]
    fn an_interrupt_before_the_start_ends_the_run_and_its_shutdown_clears_it() {
        let (mut s, _clock) = unstarted(true);
        // Ctrl-C after the handler exists, before the run starts (while a
        // real run makes its GL context and render thread).
        crate::interrupt::request();
        s.start(plan(RunLimit::Unlimited)).unwrap();
        assert_eq!(s.next_frame(0), None);
        assert!(matches!(
            s.exit,
            Some(ExitReason::Interrupted(
                crate::interrupt::StopSignal::Interrupt
            ))
        ));
        // A signal before the session exists is kept, too.
        let (mut t, _clock) = unstarted(true);
        t.start(plan(RunLimit::Unlimited)).unwrap();
        assert_eq!(t.next_frame(0), None);
        drop(t);
        // The shutdown of the run it ended takes the flag down: the next
        // session starts clean.
        let report =
            s.shutdown::<_, Fpx16_16, _>(&mut NoGame, &mut NoPresenter, ExitReason::Completed);
        assert_eq!(report.exit_code(), crate::EXIT_INTERRUPTED);
        assert!(!crate::interrupt::is_requested());
        let (mut u, _clock) = unstarted(true);
        u.start(plan(RunLimit::Unlimited)).unwrap();
        assert_eq!(u.next_frame(0), Some(1));
    }

    #[test]
    fn platform_events_are_queued_shown_and_drive_the_lifecycle() {
        let (mut s, clock) = session();
        let mut game = Keys::default();
        // A key at 20 ms (tick 1's interval) is queued for tick 1 and shown.
        s.input_event::<_, Fpx16_16>(&mut game, 20_000_000, press(KeyCode::B), 0);
        assert_eq!(game.seen, [(1, press(KeyCode::B))]);
        assert_eq!(s.game_loop.world().input().pending_len(), 1);
        // An action raised by a callback is stamped like its event.
        s.input_event::<_, Fpx16_16>(&mut game, 21_000_000, press(KeyCode::A), 0);
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
        let mut presenter = Record::default();
        assert_eq!(s.next_frame(40_000_000), Some(1));
        assert!(s.frame::<_, Fpx16_16, _>(&mut game, &mut presenter, 40_000_000)); // ticks 0 and 1
        assert_eq!(s.game_loop.current_tick(), 2);
        s.input_event::<_, Fpx16_16>(&mut game, 40_000_000, press(KeyCode::P), 0);
        assert_eq!(s.game_loop.state(), LoopState::Paused);
        s.input_event::<_, Fpx16_16>(&mut game, 40_000_000, press(KeyCode::S), 0);
        s.input_event::<_, Fpx16_16>(&mut game, 40_000_000, press(KeyCode::S), 0);
        assert_eq!(s.game_loop.current_tick(), 4);
        s.input_event::<_, Fpx16_16>(&mut game, 40_000_000, press(KeyCode::P), 0);
        assert_eq!(s.game_loop.state(), LoopState::Running);
        // The published frame carries the alpha at its reading: 40 ms at
        // 60 Hz is 2.4 ticks, 2 consumed by the clock (steps consume none).
        assert_eq!(presenter.frames[0].alpha.ppb(), 400_000_000);
        assert!(presenter.frames[0].interpolate);
        assert_eq!(presenter.frames[0].sim_tick, 2);
        // Interpolation off: the descriptor says "draw the last tick".
        s.input_event::<_, Fpx16_16>(&mut game, 45_000_000, press(KeyCode::I), 0);
        clock.set_ns(45_000_000);
        assert_eq!(s.next_frame(45_000_000), Some(2));
        assert!(s.frame::<_, Fpx16_16, _>(&mut game, &mut presenter, 45_000_000));
        let off = presenter.frames[1];
        assert_eq!((off.frame_index, off.sim_tick), (2, 4));
        assert_eq!((off.alpha.ppb(), off.interpolate), (700_000_000, false));
        assert_eq!(off.blend_factor(), 1.0);
        // Exit: the ordered shutdown reports the game's exit.
        s.input_event::<_, Fpx16_16>(&mut game, 46_000_000, press(KeyCode::Q), 0);
        assert!(s.should_stop());
        assert_eq!(s.next_frame(50_000_000), None);
        let report =
            s.shutdown::<_, Fpx16_16, _>(&mut NoGame, &mut presenter, ExitReason::WindowClosed);
        assert!(matches!(report.exit, ExitReason::GameExit));
        assert_eq!(report.ticks, 4);
    }

    #[test]
    fn focus_loss_pauses_and_only_its_own_pause_is_resumed() {
        let (mut s, _clock) = session();
        s.focus_changed(false);
        assert_eq!(s.game_loop.state(), LoopState::Paused);
        s.focus_changed(true);
        assert_eq!(s.game_loop.state(), LoopState::Running);
        // A pause the game asked for survives a focus round trip.
        s.game_loop.pause().unwrap();
        s.focus_changed(false);
        s.focus_changed(true);
        assert_eq!(s.game_loop.state(), LoopState::Paused);
    }

    #[test]
    fn the_limit_and_the_render_side_end_the_run_from_inside() {
        let (mut s, clock) = session_with(RunLimit::Frames(2));
        let mut presenter = Record::default();
        for k in 1..=2 {
            let t = i64::try_from(k).unwrap() * 16_666_667;
            clock.set_ns(t);
            assert_eq!(s.next_frame(t), Some(k));
            assert!(s.frame::<_, Fpx16_16, _>(&mut NoGame, &mut presenter, t));
        }
        assert_eq!(s.next_frame(50_000_001), None);
        assert_eq!(s.frames(), 2);
        let report =
            s.shutdown::<_, Fpx16_16, _>(&mut NoGame, &mut presenter, ExitReason::WindowClosed);
        assert!(matches!(report.exit, ExitReason::Completed));
        assert_eq!((report.frames, report.ticks), (2, 2));

        let (mut s, _clock) = session();
        let mut failing = Record {
            fail_at: Some(1),
            ..Record::default()
        };
        assert_eq!(s.next_frame(0), Some(1));
        assert!(!s.frame::<_, Fpx16_16, _>(&mut NoGame, &mut failing, 0));
        assert_eq!(s.next_frame(0), None);
        let report = s.shutdown::<_, Fpx16_16, _>(&mut NoGame, &mut failing, ExitReason::Completed);
        assert!(matches!(report.exit, ExitReason::RenderFailed(_)));
        assert_eq!(report.exit_code(), crate::EXIT_RENDER_FAILED);
    }

    #[test]
    fn a_duration_limit_is_time_on_the_run_clock_not_scheduled_frames() {
        let limit = RunLimit::Duration(std::time::Duration::from_millis(100));
        // On time: the slots decide (frame 6 at 100 ms runs, frame 7 not).
        let (mut s, clock) = session_with(limit);
        let mut presenter = Record::default();
        for k in 1..=6_u64 {
            let t = laige_core::RateGrid::new(60).unwrap().start_ns(k);
            clock.set_ns(t);
            assert_eq!(s.next_frame(t), Some(k));
            assert!(s.frame::<_, Fpx16_16, _>(&mut NoGame, &mut presenter, t));
        }
        assert_eq!(s.next_frame(116_666_667), None);
        assert!(matches!(s.exit, Some(ExitReason::Completed)));
        // Overloaded: the clock is past the limit while the slots lag.
        let (mut s, clock) = session_with(limit);
        assert_eq!(s.next_frame(16_666_667), Some(1));
        clock.set_ns(250_000_000);
        assert!(s.frame::<_, Fpx16_16, _>(&mut NoGame, &mut presenter, 250_000_000));
        assert_eq!(s.next_frame(33_333_334), None);
        assert!(matches!(s.exit, Some(ExitReason::Completed)));
    }

    /// Panics in the callback it names; every other callback is the default.
    struct PanicIn(&'static str);
    impl Game for PanicIn {
        fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> Result<()> {
            Ok(())
        }
        fn on_frame<S: EngineScalar>(&mut self, _: &World, _: &mut Control) {
            assert_ne!(self.0, "on_frame", "game bug in on_frame");
        }
        fn on_input<S: EngineScalar>(&mut self, _: &InputEvent, _: &mut Control) {
            assert_ne!(self.0, "on_input", "game bug in on_input");
        }
        fn present<S: EngineScalar>(&mut self, _: &World, frame: &mut Frame<'_>) {
            frame.push(Sprite::default());
            assert_ne!(self.0, "present", "game bug in present");
        }
        fn view(&self, config: &EngineConfig) -> laige_render::gl::ViewRect {
            assert_ne!(self.0, "view", "game bug in view");
            crate::game::default_view(config)
        }
    }

    #[test]
    fn a_panicking_callback_ends_the_run_like_a_failing_system() {
        for callback in ["on_frame", "on_input", "view", "present"] {
            let (mut s, _clock) = session();
            let mut game = PanicIn(callback);
            let mut presenter = Record::default();
            assert_eq!(s.next_frame(0), Some(1));
            if callback == "on_input" {
                s.input_event::<_, Fpx16_16>(&mut game, 0, press(KeyCode::A), 0);
            } else {
                assert!(!s.frame::<_, Fpx16_16, _>(&mut game, &mut presenter, 0));
            }
            assert_eq!(s.next_frame(0), None, "{callback}");
            if callback == "view" || callback == "present" {
                // The frame went out empty: nothing half-built is drawn.
                assert_eq!(presenter.firsts, [None], "{callback}");
            }
            let report =
                s.shutdown::<_, Fpx16_16, _>(&mut NoGame, &mut presenter, ExitReason::Completed);
            assert_eq!(report.exit_code(), crate::EXIT_SYSTEM_FAILED, "{callback}");
            let ExitReason::SystemFailed(err) = &report.exit else {
                panic!("{callback}: {:?}", report.exit);
            };
            assert_eq!(err.id(), events::CALLBACK_PANICKED);
            assert_eq!(err.field(), Some(callback));
            assert!(err.detail().unwrap().contains("game bug in"), "{err}");
        }
    }

    #[test]
    fn a_game_that_fails_ends_the_run_with_its_error() {
        struct Fails;
        impl Game for Fails {
            fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> Result<()> {
                Ok(())
            }
            fn on_frame<S: EngineScalar>(&mut self, _: &World, control: &mut Control) {
                if control.frame() == 2 {
                    let id = laige_core::EventId::new("test", "disk_full");
                    control.fail(Error::new(ErrorCode::Io, id));
                    control.fail(Error::new(ErrorCode::Failed, events::RENDER_FAILED));
                }
            }
        }
        let (mut s, _clock) = session();
        let mut presenter = Record::default();
        assert_eq!(s.next_frame(0), Some(1));
        assert!(s.frame::<_, Fpx16_16, _>(&mut Fails, &mut presenter, 0));
        assert_eq!(s.next_frame(0), Some(2));
        assert!(!s.frame::<_, Fpx16_16, _>(&mut Fails, &mut presenter, 0));
        let report =
            s.shutdown::<_, Fpx16_16, _>(&mut Fails, &mut presenter, ExitReason::Completed);
        assert_eq!(report.exit_code(), crate::EXIT_SYSTEM_FAILED);
        // The first failure wins; the frame it ended ran no tick.
        assert_eq!(
            report.exit.error().map(|e| e.id().event()),
            Some("disk_full")
        );
        assert_eq!(report.frames, 1);
    }

    #[test]
    fn each_frame_carries_the_game_view_of_that_frame_as_its_camera() {
        /// Pans one world unit right per frame.
        struct Pan(f32);
        impl Game for Pan {
            fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> Result<()> {
                Ok(())
            }
            fn on_frame<S: EngineScalar>(&mut self, _: &World, _: &mut Control) {
                self.0 += 1.0;
            }
            fn view(&self, _: &EngineConfig) -> laige_render::gl::ViewRect {
                laige_render::gl::ViewRect::new(self.0, 0.0, self.0 + 64.0, 48.0).unwrap()
            }
        }
        let (mut s, clock) = session();
        let mut presenter = Record::default();
        let mut game = Pan(0.0);
        for k in 1..=3 {
            let t = i64::try_from(k).unwrap() * 16_666_667;
            clock.set_ns(t);
            assert_eq!(s.next_frame(t), Some(k));
            assert!(s.frame::<_, Fpx16_16, _>(&mut game, &mut presenter, t));
        }
        let cameras: Vec<[f32; 2]> = presenter
            .firsts
            .iter()
            .map(|c| {
                let c = c.expect("a camera item");
                assert_eq!(c.shape, laige_render::gl::Shape::Camera);
                assert_eq!(c.size, [64.0, 48.0]);
                c.position
            })
            .collect();
        assert_eq!(cameras, [[33.0, 24.0], [34.0, 24.0], [35.0, 24.0]]);
    }

    #[test]
    fn too_many_actions_in_one_callback_are_counted_not_queued() {
        struct Spam;
        impl Game for Spam {
            fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> Result<()> {
                Ok(())
            }
            fn on_frame<S: EngineScalar>(&mut self, _: &World, control: &mut Control) {
                for i in 0..20 {
                    control.action(i, 0);
                }
            }
        }
        let (mut s, _clock) = session();
        let (_, events) = laige_core::diag::capture_events(|| {
            s.frame::<_, Fpx16_16, _>(&mut Spam, &mut NoPresenter, 0);
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
