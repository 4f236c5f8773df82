//! The headless run loop: frames paced on the frame clock's deadline grid
//! (real time) or unpaced on virtual time, optionally through the whole GL
//! pipeline on a headless context.
//!
//! Per frame `k` (1-based), the Caffeine frame:
//!
//! ```text
//! wait for frame k (pacer)            ── the frame clock's deadline, or virtual time
//! processInput: script.feed, Game::on_frame, control requests
//! fixed updates: GameLoop::frame      ── the due ticks, input delivered at each tick's start
//! render(alpha): Game::present → payload, submit_frame(alpha word)
//!               (unpaced: after the renderer finished the previous frame,
//!               so an unpaced run presents every frame)
//! endFrame: next k; Ctrl-C, exit and the limit are checked before each frame
//! ```

// det-allow-file(wall-clock): the paced run reads the process steady clock through the frame clock (the one time door); sim state sees only the loop's tick sequence

use laige_core::Result;
use laige_core::clock::{MonotonicClock, SteadyClock, SyntheticClock};
use laige_render::{FrameClock, FrameClockConfig};
use laige_sim::input::ScriptedInput;

use crate::EngineConfig;
use crate::builder::{Engine, EngineBuilder, HeadlessRender, Pacing, RunLimit};
use crate::game::{EngineScalar, Game};
use crate::report::RunReport;
use crate::run::{NoPresenter, ScalarVisitor, Session, build_world, dispatch};

impl<G: Game> Engine<G> {
    /// Runs headless until `limit` (or the game's exit, a failing system,
    /// Ctrl-C), then shuts down in order and reports. Setup happens first,
    /// for the configured backend's scalar (the one `match`,
    /// [`dispatch`]).
    ///
    /// # Errors
    /// Only failures before the run starts (exit code 1): the game's setup,
    /// a builder registration, the scripted input, the Ctrl-C handler, the
    /// headless GL context. Everything after the start ends in the ordered
    /// shutdown and is reported in [`RunReport::exit`].
    pub fn run_headless(self, limit: RunLimit) -> Result<RunReport> {
        let backend = self.parts.config.determinism.math;
        dispatch(
            backend,
            HeadlessRun {
                parts: self.parts,
                limit,
            },
        )
    }
}

struct HeadlessRun<G> {
    parts: EngineBuilder<G>,
    limit: RunLimit,
}

/// The frame rate a run paces at: `[render] frame_rate_hz`, 0 meaning the
/// default (60) outside a window.
pub(crate) fn frame_rate(config: &EngineConfig, display_hz: u32) -> u32 {
    match (config.render.frame_rate_hz, display_hz) {
        (0, 0) => FrameClockConfig::default().frame_rate_hz,
        (0, display) => display.min(laige_render::frame_clock::MAX_FRAME_RATE_HZ),
        (configured, _) => configured,
    }
}

impl<G: Game> ScalarVisitor for HeadlessRun<G> {
    type Output = Result<RunReport>;

    fn visit<S: EngineScalar>(self) -> Result<RunReport> {
        let EngineBuilder {
            mut game,
            config,
            registrations,
            script,
            options,
        } = self.parts;
        let world = build_world::<G, S>(&mut game, &config, registrations, &options)?;
        let script = ScriptedInput::new(config.game_loop.tick_rate_hz, script)?;
        let rate = frame_rate(&config, 0);
        let backend = config.determinism.math;
        match options.pacing {
            Pacing::FrameClock => {
                let pacer = RealPacer(FrameClock::new(FrameClockConfig {
                    frame_rate_hz: rate,
                })?);
                let session = Session::new(world, &config, &options, backend, SteadyClock)?;
                run_loop::<S, G, _, _>(
                    game, session, pacer, script, &config, &options, self.limit, rate,
                )
            }
            Pacing::Unpaced => {
                let clock = SyntheticClock::new(0);
                let pacer = VirtualPacer {
                    clock: clock.clone(),
                    rate,
                    start: 0,
                };
                let session = Session::new(world, &config, &options, backend, clock)?;
                run_loop::<S, G, _, _>(
                    game, session, pacer, script, &config, &options, self.limit, rate,
                )
            }
        }
    }
}

/// When frames happen.
trait Pacer {
    /// Anchors frame 0 at the loop's start reading.
    fn anchor(&mut self, start_reading_ns: i64);
    /// Frame `k`'s scheduled time after the start, ns.
    fn scheduled_ns(&self, k: u64) -> i64;
    /// Waits for frame `k`; returns its reading of the loop's clock.
    fn wait(&mut self, k: u64) -> i64;
}

/// Real time: the frame clock's deadline grid on the steady clock.
struct RealPacer(FrameClock<SteadyClock>);

impl Pacer for RealPacer {
    fn anchor(&mut self, start_reading_ns: i64) {
        self.0.reanchor(start_reading_ns);
    }
    fn scheduled_ns(&self, k: u64) -> i64 {
        self.0.deadline_ns(k) - self.0.reference_ns()
    }
    fn wait(&mut self, k: u64) -> i64 {
        self.0.wait_frame(k)
    }
}

/// Virtual time: frame `k` at exactly `⌈k × 10⁹ / rate⌉` ns after the
/// start, set on a synthetic clock (no waiting).
struct VirtualPacer {
    clock: SyntheticClock,
    rate: u32,
    start: i64,
}

impl Pacer for VirtualPacer {
    fn anchor(&mut self, start_reading_ns: i64) {
        self.start = start_reading_ns;
    }
    fn scheduled_ns(&self, k: u64) -> i64 {
        let ns = (u128::from(k) * 1_000_000_000).div_ceil(u128::from(self.rate.max(1)));
        i64::try_from(ns).unwrap_or(i64::MAX)
    }
    fn wait(&mut self, k: u64) -> i64 {
        let t = self.start.saturating_add(self.scheduled_ns(k));
        self.clock.set_ns(t);
        t
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "one private call site; the pieces are the run's parts"
)]
fn run_loop<S: EngineScalar, G: Game, C: MonotonicClock, P: Pacer>(
    mut game: G,
    mut session: Session<C>,
    mut pacer: P,
    mut script: ScriptedInput,
    config: &EngineConfig,
    options: &crate::EngineOptions,
    limit: RunLimit,
    rate: u32,
) -> Result<RunReport> {
    let mut renderer = match options.headless_render {
        HeadlessRender::Off => None,
        HeadlessRender::Gl { width, height } => {
            Some(headless_renderer(&game, config, options, width, height)?)
        }
    };
    session.start("headless", rate)?;
    pacer.anchor(session.game_loop.start_reference_ns().unwrap_or(0));
    let mut k: u64 = 1;
    loop {
        if session.should_stop() || session.limit_reached(limit, k, pacer.scheduled_ns(k)) {
            break;
        }
        let reading = pacer.wait(k);
        if session.should_stop() {
            break;
        }
        script.feed(&mut session.game_loop);
        let presented = renderer.as_ref().map_or(0, |r| r.presented());
        session.frame_callback(&mut game, k, reading, presented);
        if session.exit.is_some() || session.run_frame(&mut game).is_none() {
            break;
        }
        // Unpaced: as fast as possible without dropping frames — wait for
        // the renderer to finish the previous frame before publishing
        // (the next frame's ticks already overlapped its drawing).
        if let Some(r) = renderer.as_mut()
            && let Err(err) = (if options.pacing == Pacing::Unpaced {
                r.wait_idle()
            } else {
                Ok(())
            })
            .and_then(|()| r.publish::<G, S>(&mut game, &session, k, reading))
        {
            session.exit = Some(crate::ExitReason::RenderFailed(err));
            break;
        }
        k += 1;
    }
    Ok(match renderer.as_mut() {
        Some(r) => session.shutdown(Some(r)),
        None => session.shutdown(None::<&mut NoPresenter>),
    })
}

#[cfg(feature = "window")]
fn headless_renderer<G: Game>(
    game: &G,
    config: &EngineConfig,
    options: &crate::EngineOptions,
    width: u32,
    height: u32,
) -> Result<crate::gl_present::Renderer> {
    crate::gl_present::Renderer::headless(width, height, options, game.view(config))
}

#[cfg(not(feature = "window"))]
fn headless_renderer<G: Game>(
    _game: &G,
    _config: &EngineConfig,
    _options: &crate::EngineOptions,
    _width: u32,
    _height: u32,
) -> Result<NoRenderer> {
    Err(laige_core::diag::reported(
        laige_core::Error::new(
            laige_core::ErrorCode::Unsupported,
            crate::events::WINDOW_FAILED,
        )
        .with_field("headless_render")
        .with_detail("this build has no GL pipeline (laige-engine's `window` feature is off)"),
    ))
}

/// Stands in for the renderer in builds without GL: it has no value, so
/// the render branch of the loop is statically dead there.
#[cfg(not(feature = "window"))]
pub(crate) enum NoRenderer {}

#[cfg(not(feature = "window"))]
impl NoRenderer {
    fn presented(&self) -> u64 {
        match *self {}
    }
    fn wait_idle(&self) -> Result<()> {
        match *self {}
    }
    #[allow(
        clippy::extra_unused_type_parameters,
        reason = "the same call as the GL renderer's publish"
    )]
    fn publish<G: Game, S: EngineScalar>(
        &mut self,
        _game: &mut G,
        _session: &Session<impl MonotonicClock>,
        _frame: u64,
        _reading: i64,
    ) -> Result<()> {
        match *self {}
    }
}

#[cfg(not(feature = "window"))]
impl crate::run::Presenter for NoRenderer {
    fn finish(&mut self) -> Result<()> {
        match *self {}
    }
    fn frame_stats(&self) -> laige_render::FrameStats {
        match *self {}
    }
}
