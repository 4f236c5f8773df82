//! The fixed-timestep [`GameLoop`]: integer ticks on one exact grid and
//! the lifecycle Init → Running ⇄ Paused → Shutdown.
//!
//! The loop separates two cadences: **presentation frames** — the caller
//! calls [`frame`](GameLoop::frame) once per presented frame; a frame
//! carries no simulation time — and **simulation ticks** at
//! [`GameLoopOptions::tick_rate_hz`], all simulation time in integer ticks.
//! Frames faster than the tick rate run zero ticks, slower frames several
//! (catch-up, bounded by `max_catch_up_ticks`; the excess is dropped,
//! counted and logged).
//!
//! ```
//! use laige_core::clock::SyntheticClock;
//! use laige_sim::{GameLoop, GameLoopOptions};
//! use laige_sim::World;
//!
//! let mut world = World::default();
//! world.register_system("noop", 0, |_| Ok(()))?;
//! let schedule = world.schedule_systems();
//! let clock = SyntheticClock::new(0);
//! let mut game = GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())?;
//! game.frame()?; // starts the loop: the reference is this reading
//! clock.advance_ns(50_000_000); // 50 ms at 60 Hz: 3 ticks due
//! let frame = game.frame()?;
//! assert_eq!(frame.ticks_run, 3);
//! assert_eq!(game.current_tick(), 3);
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! # The due computation
//!
//! All simulation time is integer ticks on the loop's tick grid
//! ([`laige_core::RateGrid`] at `tick_rate_hz`, anchored at the start
//! reading, shifted forward by every pause). After `elapsed` ns of running
//! time `⌊elapsed × rate / 10⁹⌋` ticks are due, in exact integers; nothing
//! is accumulated, so nothing drifts — the remainder is re-derived from the
//! clock on every frame. 10 s at 60 Hz is exactly 600 ticks whatever the
//! frame steps (a floating millisecond accumulator ends at 599). The frame's
//! [`Alpha`] is the same grid's fraction past the consumed ticks, and input
//! stamps ([`GameLoop::input_stamp`]) are the grid's index of an event's
//! running time.
//!
//! # Ownership: one live loop per world
//!
//! The loop **owns** the [`World`] and its [`SystemSchedule`]: a world can
//! be inside at most one loop, so the misuse "two loops on one world
//! double-tick the simulation" cannot be written. Between frames the
//! caller reaches the world through [`world`](GameLoop::world) /
//! [`world_mut`](GameLoop::world_mut) and takes it back with
//! [`into_parts`](GameLoop::into_parts). Registering a system through
//! `world_mut` makes the loop's schedule stale: frames then fail with
//! `system/schedule_stale` until [`set_schedule`](GameLoop::set_schedule)
//! installs a recomputed one (recreating the loop's schedule).

// det-allow-file(wall-clock): the loop reads its `MonotonicClock` (the one time door: the tick sequence is a pure function of the readings, game_loop.md "Determinism scope") and `SteadyClock` for profiler samples, which never enter sim state

mod hooks;
mod input;
mod lifecycle;
mod options;
mod stats;

use std::panic::{AssertUnwindSafe, catch_unwind};

#[cfg(debug_assertions)]
use laige_core::alloc_watch;
use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_core::{Error, ErrorCode, RateGrid, Result, panic_message};

pub use hooks::{DueTick, LoopHooks, OnBeginFrame, OnEndFrame, OnTick};
/// The presentation alpha of a frame (defined in laige-core beside the
/// tick grid it is a fraction of, so the renderer can name it too).
pub use laige_core::Alpha;
pub use lifecycle::LoopState;
pub use options::{
    AllocCheck, DEFAULT_MAX_CATCH_UP_TICKS, DEFAULT_TICK_RATE_HZ, GameLoopOptions,
    MAX_CATCH_UP_TICKS, MAX_TICK_RATE_HZ, MIN_TICK_RATE_HZ,
};
pub use stats::{FrameInfo, GameLoopStats};

use crate::profiler::Profiler;
use crate::system::SystemSchedule;
use crate::{World, emit, events};
use lifecycle::{Transition, next_state};

/// The fixed-timestep game loop over one owned [`World`] (see the module
/// docs), generic over its clock (`SteadyClock` in games, `SyntheticClock`
/// in tests and replays).
#[doc = include_str!("contract.md")]
pub struct GameLoop<C: MonotonicClock = SteadyClock> {
    world: World,
    schedule: SystemSchedule,
    clock: C,
    options: GameLoopOptions,
    /// The tick grid at `options.tick_rate_hz`: due ticks, input slots,
    /// alpha and simulation time are all read off it.
    grid: RateGrid,
    state: LoopState,
    /// The first reading (at start); never moves.
    start_reference_ns: Option<i64>,
    /// The due computation's base: the start reference shifted forward by
    /// every paused span.
    reference_ns: i64,
    /// The last effective reading (clamped: never decreases).
    last_reading_ns: i64,
    /// The effective reading at `pause()`.
    paused_at_ns: i64,
    /// Ticks of the clock grid consumed: run by frames, or dropped.
    consumed: u64,
    stats: GameLoopStats,
    profiler: Profiler,
    alpha: Alpha,
}

impl GameLoop<SteadyClock> {
    /// A loop on the process steady clock.
    ///
    /// # Errors
    /// `loop/tick_rate_invalid` or `loop/catchup_invalid` (InvalidArgument,
    /// after one rate-limited warn); the world is dropped with the error —
    /// validate the options first if it must be kept
    /// ([`GameLoopOptions::validate`]).
    pub fn new(world: World, schedule: SystemSchedule, options: GameLoopOptions) -> Result<Self> {
        Self::with_clock(world, schedule, options, SteadyClock)
    }
}

impl<C: MonotonicClock> GameLoop<C> {
    /// A loop on `clock`. The schedule is not checked here: a stale or
    /// foreign schedule makes every frame fail (`system/schedule_stale` /
    /// `system/schedule_invalid`).
    ///
    /// # Errors
    /// As [`GameLoop::new`].
    pub fn with_clock(
        mut world: World,
        schedule: SystemSchedule,
        options: GameLoopOptions,
        clock: C,
    ) -> Result<Self> {
        options.validate()?;
        let grid = tick_grid(options.tick_rate_hz)?;
        world.tick_grid = grid;
        Ok(Self {
            world,
            schedule,
            clock,
            options,
            grid,
            state: LoopState::Init,
            start_reference_ns: None,
            reference_ns: 0,
            last_reading_ns: 0,
            paused_at_ns: 0,
            consumed: 0,
            stats: GameLoopStats::default(),
            profiler: Profiler::default(),
            alpha: Alpha::ZERO,
        })
    }

    // ---- lifecycle -------------------------------------------------------

    /// The lifecycle state.
    #[must_use]
    pub fn state(&self) -> LoopState {
        self.state
    }

    /// Init → Running: takes the clock reference (the time base of the due
    /// computation and of [`start_reference_ns`](Self::start_reference_ns)).
    /// The first `frame()` does this implicitly.
    ///
    /// # Errors
    /// `loop/invalid_transition` (InvalidState) from any other state.
    pub fn start(&mut self) -> Result<()> {
        self.state = next_state(self.state, Transition::Start)?;
        let now = self.clock.now_ns();
        self.start_reference_ns = Some(now);
        self.reference_ns = now;
        self.last_reading_ns = now;
        Ok(())
    }

    /// Running → Paused: frames go on (hooks, presentation), ticks stop,
    /// alpha freezes.
    ///
    /// # Errors
    /// `loop/invalid_transition` (InvalidState) unless Running.
    pub fn pause(&mut self) -> Result<()> {
        let next = next_state(self.state, Transition::Pause)?;
        self.paused_at_ns = self.read_clock();
        self.state = next;
        Ok(())
    }

    /// Paused → Running. The paused span is not simulation time: the
    /// reference moves forward by it, so resuming runs no catch-up for the
    /// pause.
    ///
    /// # Errors
    /// `loop/invalid_transition` (InvalidState) unless Paused.
    pub fn resume(&mut self) -> Result<()> {
        let next = next_state(self.state, Transition::Resume)?;
        let now = self.read_clock();
        self.reference_ns = self.reference_ns.saturating_add(now - self.paused_at_ns);
        self.state = next;
        Ok(())
    }

    /// Any state but Shutdown → Shutdown (terminal): later frames and steps
    /// fail with `loop/shut_down` and touch nothing. The world stays
    /// readable ([`world`](Self::world), [`into_parts`](Self::into_parts)).
    ///
    /// # Errors
    /// `loop/invalid_transition` (InvalidState) when already shut down.
    pub fn shutdown(&mut self) -> Result<()> {
        self.state = next_state(self.state, Transition::Shutdown)?;
        Ok(())
    }

    // ---- frames and ticks ------------------------------------------------

    /// One presentation frame without hooks: see
    /// [`frame_with`](Self::frame_with).
    ///
    /// # Errors
    /// As [`frame_with`](Self::frame_with).
    pub fn frame(&mut self) -> Result<FrameInfo> {
        self.frame_with(&mut ())
    }

    /// One presentation frame.
    ///
    /// In order: (Init only: start) → one clock read → `World::begin_frame`
    /// → `hooks.on_begin_frame` → when Running, the due ticks — `want =
    /// due(now) − consumed`; `min(want, max_catch_up)` ticks run, each one
    /// schedule dispatch followed by `hooks.on_tick`; the rest (`want −
    /// max_catch_up` when positive) is dropped, counted and reported by one
    /// rate-limited `loop/tick_dropped` warn — → the alpha → `hooks.on_end_frame`.
    /// Paused frames run no tick.
    ///
    /// # Errors
    /// * `loop/shut_down` (InvalidState) after shutdown: nothing touched,
    ///   nothing logged.
    /// * A failing tick's error (`system/schedule_stale`,
    ///   `system/schedule_invalid`, a system's error or panic): the failed
    ///   tick is not counted, fires no hook, the frame stops there (ticks it
    ///   completed before stay counted) and no drop is accounted. Each later
    ///   frame re-derives the demand from the clock and fails the same way
    ///   until the cause is fixed.
    /// * `loop/hook_panicked` (Failed) when a hook panicked.
    /// * Debug builds with [`AllocCheck::Error`]: `alloc/sim_tick_allocation`
    ///   (Failed) when a tick allocated.
    pub fn frame_with<H: LoopHooks>(&mut self, hooks: &mut H) -> Result<FrameInfo> {
        let frame_t0 = self.profiler.is_enabled().then(|| SteadyClock.now_ns());
        match self.state {
            LoopState::Shutdown => return Err(shut_down("frame()")),
            LoopState::Init => self.start()?,
            LoopState::Running | LoopState::Paused => {}
        }
        let now = self.read_clock();
        self.stats.frames += 1;
        self.world.begin_frame();
        let mut info = FrameInfo {
            frame: self.stats.frames,
            state: self.state,
            now_ns: now,
            ticks_run: 0,
            dropped_ticks: 0,
            tick: self.world.tick(),
            alpha: self.alpha,
        };
        guard_hook(
            || hooks.on_begin_frame(&self.world, &info),
            "on_begin_frame",
        )?;

        if self.state == LoopState::Running {
            let due = self.grid.index_at(now - self.reference_ns);
            let want = due.saturating_sub(self.consumed);
            let cap = u64::from(self.options.max_catch_up_ticks);
            let run = want.min(cap);
            for _ in 0..run {
                let before = self.stats.ticks;
                self.run_one_tick(hooks, true)?;
                // A due tick a tick-owning hook skipped ran none.
                info.ticks_run += u32::from(self.stats.ticks != before);
            }
            let dropped = want - run;
            if dropped > 0 {
                self.consumed += dropped;
                self.stats.dropped_ticks += dropped;
                self.stats.dropped_frames += 1;
                info.dropped_ticks = dropped;
                emit::tick_dropped(
                    dropped,
                    self.stats.dropped_ticks,
                    self.options.max_catch_up_ticks,
                    self.options.tick_rate_hz,
                );
            }
        }

        self.alpha = self.alpha_at_reading(now);
        info.alpha = self.alpha;
        info.tick = self.world.tick();
        guard_hook(|| hooks.on_end_frame(&self.world, &info), "on_end_frame")?;
        if let Some(t0) = frame_t0 {
            self.profiler.record_frame(elapsed_since(t0));
        }
        Ok(info)
    }

    /// Runs exactly one tick while Paused (single-step), without hooks.
    ///
    /// # Errors
    /// As [`step_with`](Self::step_with).
    pub fn step(&mut self) -> Result<()> {
        self.step_with(&mut ())
    }

    /// Runs exactly one tick while Paused (single-step), firing
    /// `hooks.on_tick`. The stepped tick is extra simulation time: it is
    /// counted (`stats().ticks`, `current_tick()`) but consumes no clock
    /// time, so resuming still runs only what the clock says is due.
    ///
    /// # Errors
    /// `loop/invalid_transition` (InvalidState) unless Paused;
    /// `loop/shut_down` after shutdown; otherwise a failing tick's error as
    /// in [`frame_with`](Self::frame_with).
    pub fn step_with<H: LoopHooks>(&mut self, hooks: &mut H) -> Result<()> {
        match self.state {
            LoopState::Paused => self.run_one_tick(hooks, false),
            LoopState::Shutdown => Err(shut_down("step()")),
            LoopState::Init | LoopState::Running => Err(Error::new(
                ErrorCode::InvalidState,
                events::INVALID_TRANSITION,
            )
            .with_field("state")
            .with_value(self.state)
            .with_accepted("paused")
            .with_detail("step()")),
        }
    }

    /// One tick inside (debug builds) the zero-allocation window.
    fn run_one_tick<H: LoopHooks>(&mut self, hooks: &mut H, from_clock: bool) -> Result<()> {
        #[cfg(debug_assertions)]
        if self.options.alloc_check != AllocCheck::Off && alloc_watch::is_installed() {
            // `count_allocs` nests: an enclosing window (a test's, the
            // engine's per-frame one) is still charged with the tick.
            let (result, counts) = alloc_watch::count_allocs(|| self.tick_body(hooks, from_clock));
            let tick = result?; // a failed tick is not checked
            if counts.allocations() > 0 {
                return self.tick_allocated(tick, &counts);
            }
            return Ok(());
        }
        self.tick_body(hooks, from_clock).map(|_| ())
    }

    /// One tick: the schedule dispatch (timed when profiling), the counters
    /// and `on_tick`. Returns the new tick number.
    fn tick_body<H: LoopHooks>(&mut self, hooks: &mut H, from_clock: bool) -> Result<u64> {
        let t0 = self.profiler.is_enabled().then(|| SteadyClock.now_ns());
        if let Some(run) = hooks.run_tick(&mut self.world, &self.schedule) {
            if let Some(t0) = t0 {
                // The owner's whole tick (its rollbacks included).
                self.profiler.record_tick(elapsed_since(t0));
            }
            let run = run?; // a failed tick is not consumed, as below
            if from_clock {
                self.consumed += 1;
            }
            if run == DueTick::Skipped {
                return Ok(self.world.tick());
            }
            self.stats.ticks += 1;
            let tick = self.world.tick();
            #[cfg(debug_assertions)]
            let _label = alloc_watch::label("on_tick");
            guard_hook(|| hooks.on_tick(&self.world, tick), "on_tick")?;
            return Ok(tick);
        }
        if self.profiler.is_enabled() {
            let t0 = SteadyClock.now_ns();
            self.world
                .run_tick(&self.schedule, Some(&mut self.profiler))?;
            self.profiler.record_tick(elapsed_since(t0));
        } else {
            self.world.run_tick(&self.schedule, None)?;
        }
        if from_clock {
            self.consumed += 1;
        }
        self.stats.ticks += 1;
        let tick = self.world.tick();
        #[cfg(debug_assertions)]
        let _label = alloc_watch::label("on_tick");
        guard_hook(|| hooks.on_tick(&self.world, tick), "on_tick")?;
        Ok(tick)
    }

    /// A tick that allocated: the Error event, then the configured failure.
    #[cfg(debug_assertions)]
    #[cold]
    fn tick_allocated(&self, tick: u64, counts: &alloc_watch::AllocCounts) -> Result<()> {
        let site = counts.first_label.unwrap_or("loop");
        let allocs = counts.allocations();
        emit::sim_tick_allocation(tick, allocs, site);
        match self.options.alloc_check {
            AllocCheck::Panic => panic!(
                "zero-allocation rule broken: sim tick {tick} allocated {allocs} time(s); first site: {site} \
                 (the tick path must not allocate)"
            ),
            AllocCheck::Error | AllocCheck::Off => {
                Err(Error::new(ErrorCode::Failed, events::SIM_TICK_ALLOCATION)
                    .with_field("site")
                    .with_value(site)
                    .with_detail(format!("tick {tick} allocated {allocs} time(s)")))
            }
        }
    }

    /// The clock reading, clamped so it never decreases (a backward reading
    /// contributes no time and fires a rate-limited `loop/clock_backward`).
    fn read_clock(&mut self) -> i64 {
        let raw = self.clock.now_ns();
        if raw < self.last_reading_ns {
            emit::clock_backward(raw, self.last_reading_ns);
            return self.last_reading_ns;
        }
        self.last_reading_ns = raw;
        raw
    }

    fn alpha_at_reading(&self, reading_ns: i64) -> Alpha {
        let at = if self.state == LoopState::Paused {
            self.paused_at_ns
        } else {
            reading_ns
        };
        self.grid.alpha_at(at - self.reference_ns, self.consumed)
    }

    // ---- queries -----------------------------------------------------------

    /// The completed tick count (`World::tick`).
    #[must_use]
    pub fn current_tick(&self) -> u64 {
        self.world.tick()
    }

    /// The configured tick rate.
    #[must_use]
    pub fn tick_rate_hz(&self) -> u32 {
        self.options.tick_rate_hz
    }

    /// The configured catch-up bound.
    #[must_use]
    pub fn max_catch_up_ticks(&self) -> u32 {
        self.options.max_catch_up_ticks
    }

    /// The validated options.
    #[must_use]
    pub fn options(&self) -> &GameLoopOptions {
        &self.options
    }

    /// The since-construction counters. O(1), no allocation.
    #[must_use]
    pub fn stats(&self) -> GameLoopStats {
        self.stats
    }

    /// Frames processed (`stats().frames`).
    #[must_use]
    pub fn frame_count(&self) -> u64 {
        self.stats.frames
    }

    /// The clock reading at start (the first frame, or `start()`); `None`
    /// before. The anchor of the alpha computation (shifted forward by
    /// paused spans internally; this value does not move).
    #[must_use]
    pub fn start_reference_ns(&self) -> Option<i64> {
        self.start_reference_ns
    }

    /// Elapsed simulation time: `⌊current_tick() × 10⁹ / tick_rate_hz⌋` ns,
    /// exact (3600 ticks at 60 Hz are 60 000 000 000 ns;
    /// [`RateGrid::span_ns`]).
    #[must_use]
    pub fn elapsed_sim_ns(&self) -> u64 {
        self.grid.span_ns(self.world.tick())
    }

    /// The tick grid (`tick_rate_hz` intervals per second from the start
    /// reference, pauses excluded).
    #[must_use]
    pub fn tick_grid(&self) -> RateGrid {
        self.grid
    }

    /// Clock time spent Running since start, pauses excluded (ns; 0 before
    /// start; frozen while Paused).
    #[must_use]
    pub fn elapsed_running_ns(&self) -> i64 {
        if self.start_reference_ns.is_none() {
            return 0;
        }
        let at = if self.state == LoopState::Paused {
            self.paused_at_ns
        } else {
            self.last_reading_ns
        };
        (at - self.reference_ns).max(0)
    }

    /// The last frame's presentation alpha, in `[0, 1)`.
    #[must_use]
    pub fn alpha(&self) -> Alpha {
        self.alpha
    }

    /// The alpha at an arbitrary reading of the loop's clock (the windowed
    /// path's presentation time): the fraction of a tick period between the
    /// last consumed tick and `now_ns`, clamped to `[0, Alpha::MAX]`.
    /// Frozen at the pause instant while Paused; `Alpha::ZERO` before start.
    #[must_use]
    pub fn alpha_at(&self, now_ns: i64) -> Alpha {
        if self.start_reference_ns.is_none() {
            return Alpha::ZERO;
        }
        self.alpha_at_reading(now_ns)
    }

    /// The world.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, exclusively (between frames). See the module docs on
    /// registering systems through it.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The schedule the loop runs.
    #[must_use]
    pub fn schedule(&self) -> &SystemSchedule {
        &self.schedule
    }

    /// Replaces the schedule (after registering systems through
    /// [`world_mut`](Self::world_mut)); returns the old one. The tick state
    /// is kept.
    pub fn set_schedule(&mut self, schedule: SystemSchedule) -> SystemSchedule {
        std::mem::replace(&mut self.schedule, schedule)
    }

    /// The loop's clock.
    #[must_use]
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The attached profiler (`Profiler::default()` — disabled, no storage
    /// — unless one was set).
    #[must_use]
    pub fn profiler(&self) -> &Profiler {
        &self.profiler
    }

    /// The attached profiler, exclusively (enable/disable, summaries).
    pub fn profiler_mut(&mut self) -> &mut Profiler {
        &mut self.profiler
    }

    /// The world and the profiler at once: a frame's presentation reads
    /// the world while it summarizes the profiler's rings (a summary sorts
    /// into the profiler's own scratch, so it needs the profiler
    /// exclusively).
    pub fn world_and_profiler_mut(&mut self) -> (&World, &mut Profiler) {
        (&self.world, &mut self.profiler)
    }

    /// Attaches a profiler (owned by the loop from now on); returns the
    /// previous one. While it is enabled the loop records each completed
    /// tick's dispatch time, each system's time and each frame's time.
    pub fn set_profiler(&mut self, profiler: Profiler) -> Profiler {
        std::mem::replace(&mut self.profiler, profiler)
    }

    /// Takes the world and schedule back (the loop is consumed).
    #[must_use]
    pub fn into_parts(self) -> (World, SystemSchedule) {
        (self.world, self.schedule)
    }
}

impl<C: MonotonicClock> std::fmt::Debug for GameLoop<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameLoop")
            .field("state", &self.state)
            .field("options", &self.options)
            .field("tick", &self.world.tick())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// The grid of a validated tick rate (validation rejects 0, so the error
/// is unreachable from a checked `GameLoopOptions`).
fn tick_grid(tick_rate_hz: u32) -> Result<RateGrid> {
    RateGrid::new(tick_rate_hz).ok_or_else(|| {
        Error::invalid_argument(
            events::TICK_RATE_INVALID,
            "tick_rate_hz",
            tick_rate_hz,
            "20..=120 Hz",
        )
    })
}

fn elapsed_since(t0: i64) -> u64 {
    u64::try_from(SteadyClock.now_ns() - t0).unwrap_or(0)
}

#[cold]
fn shut_down(call: &'static str) -> Error {
    Error::new(ErrorCode::InvalidState, events::SHUT_DOWN)
        .with_field("state")
        .with_value(LoopState::Shutdown)
        .with_detail(call)
}

/// Runs a hook, turning a panic into `loop/hook_panicked`.
fn guard_hook(f: impl FnOnce(), hook: &'static str) -> Result<()> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => Ok(()),
        Err(payload) => {
            let err = Error::new(ErrorCode::Failed, events::HOOK_PANICKED)
                .with_field("hook")
                .with_value(hook)
                .with_detail(format!("panicked: {}", panic_message(payload.as_ref())));
            // Returned, not logged: whoever ends the run on it logs it once.
            Err(err)
        }
    }
}
