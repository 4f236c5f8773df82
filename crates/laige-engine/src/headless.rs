//! The headless driver: frames paced on the frame clock's deadline grid
//! (real time) or unpaced on virtual time, optionally through the whole GL
//! pipeline on a headless context (feature `gl`).
//!
//! Per frame `k` (1-based):
//!
//! ```text
//! Session::next_frame(scheduled k)   ── exit, Ctrl-C, the limit
//! wait for frame k (pacer)           ── the frame clock's deadline, or virtual time
//! script.feed                        ── scripted input queued ahead of its ticks
//! Session::frame(reading)            ── on_frame, the due ticks, publish
//!                                       (unpaced: after the renderer finished
//!                                       the previous frame, so every frame is
//!                                       presented)
//! ```
//!
//! Both pacers put frame `k` at the frame-rate grid's `start_ns(k)` after
//! the run's start ([`laige_core::RateGrid`]): a paced and an unpaced run
//! see the same frame times, and so the same ticks per frame.

// det-allow-file(wall-clock): the paced run reads the process steady clock through the frame clock (the one time door); sim state sees only the loop's tick sequence

use laige_core::clock::{MonotonicClock, SteadyClock, SyntheticClock};
use laige_core::math::BackendVisitor;
use laige_core::{RateGrid, Result};
use laige_render::{FrameClock, FrameClockConfig};
use laige_sim::input::ScriptedInput;

use crate::EngineConfig;
use crate::builder::{Engine, EngineBuilder};
use crate::game::{EngineScalar, Game};
use crate::options::{EngineOptions, HeadlessRender, Pacing, RunLimit};
use crate::report::{ExitReason, RunReport};
use crate::session::{RunPlan, Session, build_world};

impl<G: Game> Engine<G> {
    /// Runs headless until `limit` (or the game's exit, a failing system,
    /// Ctrl-C), then shuts down in order and reports. Setup happens first,
    /// for the configured backend's scalar (the one `match`,
    /// [`MathBackend::run`](laige_core::MathBackend::run)).
    ///
    /// # Errors
    /// Only failures before the run starts (exit code 1): the game's setup,
    /// a builder registration, the scripted input, the Ctrl-C handler, the
    /// headless GL context; in a browser (wasm32) frame-clock pacing
    /// (`engine/options_invalid`: a page's thread cannot wait). Everything after the start ends in the ordered
    /// shutdown and is reported in [`RunReport::exit`].
    pub fn run_headless(mut self, limit: RunLimit) -> Result<RunReport> {
        self.install_log_subscriber()?;
        if let Some(target) = self.parts.record.take() {
            return crate::record::run_recorded(self.parts, target, |e| e.run_headless_now(limit));
        }
        self.run_headless_now(limit)
    }

    /// [`run_headless`](Self::run_headless) without the recording step.
    pub(crate) fn run_headless_now(self, limit: RunLimit) -> Result<RunReport> {
        let backend = self.parts.config.determinism.math;
        backend.run(HeadlessRun {
            parts: self.parts,
            limit,
        })
    }
}

struct HeadlessRun<G> {
    parts: EngineBuilder<G>,
    limit: RunLimit,
}

/// The frame rate a run paces at: `[render] frame_rate_hz`, 0 meaning the
/// display's rate in a window (`display_hz`, capped at the frame clock's
/// maximum) and the default (60) outside one.
pub(crate) fn frame_rate(config: &EngineConfig, display_hz: u32) -> u32 {
    match (config.render.frame_rate_hz, display_hz) {
        (0, 0) => FrameClockConfig::default().frame_rate_hz,
        (0, display) => display.min(laige_render::frame_clock::MAX_FRAME_RATE_HZ),
        (configured, _) => configured,
    }
}

impl<G: Game, S: EngineScalar> BackendVisitor<S> for HeadlessRun<G> {
    type Output = Result<RunReport>;

    fn visit(self) -> Result<RunReport> {
        let EngineBuilder {
            mut game,
            config,
            registrations,
            script,
            options,
            net,
            ..
        } = self.parts;
        // A page's one thread must not block: the frame clock's wait
        // (a sleep, then a spin) cannot run there.
        #[cfg(target_arch = "wasm32")]
        if options.pacing == Pacing::FrameClock {
            return Err(laige_core::diag::reported(
                laige_core::Error::invalid_argument(
                    crate::events::OPTIONS_INVALID,
                    "pacing",
                    "FrameClock",
                    "Pacing::Unpaced in a browser (a page's thread cannot wait for a frame \
                 deadline; `Engine::run_web` paces by the browser's animation frames)",
                ),
            ));
        }
        let world = build_world::<G, S>(&mut game, &config, registrations, &options)?;
        let script = ScriptedInput::new(config.game_loop.tick_rate_hz, script)?;
        let rate = frame_rate(&config, 0);
        let backend = config.determinism.math;
        let plan = RunPlan {
            mode: "headless",
            frame_rate_hz: rate,
            limit: self.limit,
            wait_for_render: options.pacing == Pacing::Unpaced,
        };
        let run = Drive {
            script,
            plan,
            options: &options,
            config: &config,
        };
        match options.pacing {
            Pacing::FrameClock => {
                let pacer = RealPacer(FrameClock::new(FrameClockConfig {
                    frame_rate_hz: rate,
                })?);
                let mut session = Session::new(world, &config, &options, backend, SteadyClock)?;
                session.attach_net(net)?;
                run.drive::<S, G, _, _>(game, session, pacer)
            }
            Pacing::Unpaced => {
                let clock = SyntheticClock::new(0);
                let pacer = VirtualPacer::new(clock.clone(), rate)?;
                let mut session = Session::new(world, &config, &options, backend, clock)?;
                session.attach_net(net)?;
                run.drive::<S, G, _, _>(game, session, pacer)
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

/// Real time: the frame clock's deadline grid on its clock (the steady
/// clock in a run).
struct RealPacer<C: MonotonicClock>(FrameClock<C>);

impl<C: MonotonicClock> Pacer for RealPacer<C> {
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

/// Virtual time: frame `k` at exactly the frame-rate grid's `start_ns(k)`
/// (`⌈k × 10⁹ / rate⌉` ns) after the start, set on a synthetic clock (no
/// waiting) — the frame clock's deadline grid, without the wait.
struct VirtualPacer {
    clock: SyntheticClock,
    grid: RateGrid,
    start: i64,
}

impl VirtualPacer {
    /// A pacer at `rate` (validated with the config: never 0).
    fn new(clock: SyntheticClock, rate: u32) -> Result<Self> {
        let grid = RateGrid::new(rate).ok_or_else(|| {
            laige_core::Error::invalid_argument(
                laige_render::FRAME_RATE_INVALID,
                "frame_rate_hz",
                rate,
                "1..=1000 Hz",
            )
        })?;
        Ok(Self {
            clock,
            grid,
            start: 0,
        })
    }
}

impl Pacer for VirtualPacer {
    fn anchor(&mut self, start_reading_ns: i64) {
        self.start = start_reading_ns;
    }
    fn scheduled_ns(&self, k: u64) -> i64 {
        self.grid.start_ns(k)
    }
    fn wait(&mut self, k: u64) -> i64 {
        let t = self.start.saturating_add(self.scheduled_ns(k));
        self.clock.set_ns(t);
        t
    }
}

/// What a headless run drives its session with, besides the pacer.
struct Drive<'a> {
    script: ScriptedInput,
    plan: RunPlan,
    options: &'a EngineOptions,
    config: &'a EngineConfig,
}

impl Drive<'_> {
    fn drive<S: EngineScalar, G: Game, C: MonotonicClock, P: Pacer>(
        mut self,
        mut game: G,
        mut session: Session<C>,
        mut pacer: P,
    ) -> Result<RunReport> {
        let mut presenter = match self.options.headless_render {
            HeadlessRender::Off => None,
            HeadlessRender::Gl { width, height } => Some(headless_renderer(
                &game,
                self.config,
                self.options,
                width,
                height,
            )?),
        };
        session.start(self.plan)?;
        pacer.anchor(session.game_loop.start_reference_ns().unwrap_or(0));
        while let Some(k) = session.next_frame(pacer.scheduled_ns(session.frames() + 1)) {
            let reading = pacer.wait(k);
            if session.should_stop() {
                break;
            }
            self.script.feed(&mut session.game_loop);
            if !session.frame::<G, S, _>(&mut game, &mut presenter, reading) {
                break;
            }
        }
        Ok(session.shutdown::<G, S, _>(&mut game, &mut presenter, ExitReason::Completed))
    }
}

#[cfg(all(feature = "gl", not(target_arch = "wasm32")))]
fn headless_renderer<G: Game>(
    game: &G,
    config: &EngineConfig,
    options: &EngineOptions,
    width: u32,
    height: u32,
) -> Result<crate::gl_present::Renderer> {
    crate::gl_present::Renderer::headless(width, height, options, game.view(config))
}

#[cfg(any(not(feature = "gl"), target_arch = "wasm32"))]
fn headless_renderer<G: Game>(
    _game: &G,
    _config: &EngineConfig,
    _options: &EngineOptions,
    _width: u32,
    _height: u32,
) -> Result<crate::presenter::NoPresenter> {
    Err(laige_core::diag::reported(
        laige_core::Error::new(
            laige_core::ErrorCode::Unsupported,
            crate::events::WINDOW_FAILED,
        )
        .with_field("headless_render")
        .with_detail(if cfg!(target_arch = "wasm32") {
            "a page has no headless GL context (the web run draws on a canvas: `Engine::run_web`)"
        } else {
            "this build has no GL pipeline (laige-engine's `gl` feature is off)"
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paced grid (frame clock deadlines, each frame on time) and the
    /// unpaced grid (virtual time) give every frame the same time.
    #[test]
    fn paced_and_unpaced_frames_sit_on_the_same_grid() {
        for rate in [1_u32, 24, 30, 59, 60, 75, 144, 240, 1000] {
            let start = 1_234_567;
            let real_clock = SyntheticClock::new(0);
            let mut paced = RealPacer(
                FrameClock::with_clock(
                    FrameClockConfig {
                        frame_rate_hz: rate,
                    },
                    real_clock.clone(),
                )
                .unwrap(),
            );
            let mut unpaced = VirtualPacer::new(SyntheticClock::new(0), rate).unwrap();
            paced.anchor(start);
            unpaced.anchor(start);
            let grid = RateGrid::new(rate).unwrap();
            for k in 1..=5_000_u64 {
                let scheduled = paced.scheduled_ns(k);
                assert_eq!(scheduled, unpaced.scheduled_ns(k), "rate {rate} frame {k}");
                assert_eq!(scheduled, grid.start_ns(k));
                // An on-time paced frame: the clock reaches its deadline.
                real_clock.set_ns(start + scheduled);
                let reading = paced.wait(k);
                assert_eq!(reading, unpaced.wait(k), "rate {rate} frame {k}");
                assert_eq!(reading, unpaced.clock.now_ns());
                assert_eq!(grid.index_at(reading - start), k);
            }
        }
    }
}
