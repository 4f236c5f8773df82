//! The browser run (`wasm32-unknown-unknown`, feature `web`): winit 0.30's
//! web event loop on the page's one thread, the engine's one frame step
//! driven by `requestAnimationFrame`, the sprite pipeline drawing on a
//! canvas's WebGL2 on the same thread.
//!
//! ```text
//!  page thread (winit's web event loop: spawn_app, returns at once)
//!  resumed: window on the page's <canvas>, its WebGL2 context,
//!           the engine's sprite stages started on it, Session::start
//!           request_redraw ─► requestAnimationFrame
//!  window_event: key / pointer / button ─► stamp on the loop clock
//!                (performance.now()), queue, Game::on_input
//!                resized ─► the drawing buffer's size for the next frame
//!  RedrawRequested (the animation frame's callback):
//!                Session::next_frame, scripted input fed,
//!                Session::frame: Game::on_frame → GameLoop::frame (the due
//!                ticks on the RateGrid, at most max_catch_up, the excess
//!                dropped and counted) → Game::present → publish:
//!                   batch + draw the frame at once (WebPresenter)
//!                → request_redraw (the next animation frame)
//!  the run ends (limit, game's exit, failure) ─► the ordered shutdown,
//!                the report handed to the caller's `on_end`
//! ```
//!
//! **The handoff's contract on one thread.** A desktop run publishes each
//! frame to the render thread and never waits for it. A page has no
//! blocking render thread, so the web presenter draws the frame inside its
//! `publish`, right after the frame's ticks, from the state just
//! published — the latest, and there is never an older one waiting, so no
//! frame is dropped and none is outstanding after `publish` returns. The
//! simulation still never waits for presentation: WebGL calls only queue
//! commands (there is no swap to block on, no vsync wait, no `glFinish`;
//! the browser composites the canvas after the callback returns), and
//! simulation time is not the frame's time: the next frame's due ticks
//! come from `performance.now()` on the loop's `RateGrid`, so whatever a
//! draw costs turns into catch-up ticks of the next frame — bounded and
//! counted like any late frame — never into a slower or stalled
//! simulation clock.
//!
//! `[render] frame_rate_hz` does not apply: the browser's animation frames
//! pace the page (the display's rate; none while the tab is hidden, after
//! which the first frame catches up within the bound). What a page cannot
//! do has a browser equivalent or is refused with an error before the run
//! starts: a recording goes into memory (`EngineBuilder::record_in_memory`,
//! the bytes in the report, for the page to offer as a download) — one to
//! a file (`EngineBuilder::record`) is refused; a replay is played from
//! bytes (`Engine::replay_bytes`, headless and unpaced on the page's
//! thread); a headless GL context is refused; there are no signals (no
//! Ctrl-C handler: the page's own controls end a run).

use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_core::math::BackendVisitor;
use laige_core::{Error, ErrorCode, Result};
use laige_render::gl::{CurrentGlContext, GlContext, Sprite, SurfaceSize, ViewRect};
use laige_render::{FrameDescriptor, FrameStats, RenderStages};
use laige_sim::input::{InputKind, InputPoint, ScriptedInput};
use web_sys::HtmlCanvasElement;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::platform::web::{EventLoopExtWebSys, WindowAttributesExtWebSys};
use winit::window::{Window, WindowId};

use crate::builder::{Engine, EngineBuilder};
use crate::frame::Assets;
use crate::game::{EngineScalar, Game};
use crate::gl_present::{EngineStages, engine_stages, latest_screen};
use crate::options::{EngineOptions, RunLimit};
use crate::presenter::Presenter;
use crate::record::RecordTarget;
use crate::report::{ExitReason, RunReport};
use crate::session::{RunPlan, Session, build_world};
use crate::winit_input::input_kind;
use crate::{EngineConfig, events};

/// What receives a web run's report when the run ends (the page's event
/// loop outlives the call that started it).
pub type WebRunEnd = Box<dyn FnOnce(Result<RunReport>)>;

impl<G: Game + 'static> Engine<G> {
    /// Starts the run on `canvas` and returns at once: winit's web event
    /// loop drives it from the page's animation frames until `limit` (or
    /// the game's exit, a failing system, the render side failing), then
    /// the ordered shutdown hands the report — or the error that kept the
    /// run from starting (no WebGL2, a failed setup in the page) — to
    /// `on_end`.
    ///
    /// The canvas's drawing buffer is its `width × height` attributes at
    /// the start, then its CSS size × the device pixel ratio (winit
    /// follows the element's size).
    ///
    /// A recording asked for with
    /// [`record_in_memory`](EngineBuilder::record_in_memory) is finished
    /// in the shutdown: its bytes are the report's
    /// [`recording`](RunReport::recording) (the page offers them as a
    /// download; [`Engine::replay_bytes`] plays such bytes back).
    ///
    /// # Errors
    /// Before anything runs: a recording to a file was asked for
    /// (`engine/window_failed`, Unsupported: a page has no files), the game's setup, a
    /// builder registration, the scripted input, winit's event loop.
    pub fn run_web(
        mut self,
        canvas: HtmlCanvasElement,
        limit: RunLimit,
        on_end: impl FnOnce(Result<RunReport>) + 'static,
    ) -> Result<()> {
        if self.parts.options.install_log_subscriber {
            install_console_subscriber(&self.parts.config)?;
        }
        match self.parts.record.take() {
            None => {}
            Some(RecordTarget::File(path)) => {
                return Err(laige_core::diag::reported(
                    Error::new(ErrorCode::Unsupported, events::WINDOW_FAILED)
                        .with_field("record")
                        .with_value(path.display())
                        .with_detail(
                            "a page has no file system to record a run into \
                             (EngineBuilder::record_in_memory records into the report)",
                        ),
                ));
            }
            Some(target @ RecordTarget::Memory) => {
                // The recording is finished in the shutdown and put into
                // the report before `on_end` sees it.
                let (engine, slot) = crate::record::recorded_in_shutdown(self.parts, target)?;
                return engine.run_web_now(canvas, limit, move |outcome| {
                    on_end(outcome.map(|mut report| {
                        report.recording = slot.borrow_mut().take();
                        report
                    }));
                });
            }
        }
        self.run_web_now(canvas, limit, on_end)
    }

    /// [`run_web`](Self::run_web) without the recording step.
    fn run_web_now(
        self,
        canvas: HtmlCanvasElement,
        limit: RunLimit,
        on_end: impl FnOnce(Result<RunReport>) + 'static,
    ) -> Result<()> {
        let backend = self.parts.config.determinism.math;
        backend.run(WebRun {
            parts: self.parts,
            canvas,
            limit,
            on_end: Box::new(on_end),
        })
    }
}

/// laige's subscriber writing to the browser's console (errors to
/// `console.error`, warnings to `console.warn`, the rest to `console.log`),
/// without timestamps (a page's `SystemTime` is not there; the console
/// stamps its own lines).
fn install_console_subscriber(config: &EngineConfig) -> Result<()> {
    let mut cfg = config.log.subscriber_config();
    cfg.timestamps = false;
    cfg.color = laige_core::diag::Color::Never;
    let subscriber = laige_core::diag::build_subscriber(&cfg, Console)?;
    // A subscriber already set (the game's own) stays.
    let _ = tracing::subscriber::set_global_default(subscriber);
    Ok(())
}

/// The console as tracing's writer: one console call per event.
struct Console;

/// One event's text, handed to the console when the formatter drops it.
struct ConsoleLine {
    level: tracing::Level,
    text: Vec<u8>,
}

impl std::io::Write for ConsoleLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ConsoleLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.text);
        let line = wasm_bindgen::JsValue::from_str(text.trim_end());
        match self.level {
            tracing::Level::ERROR => web_sys::console::error_1(&line),
            tracing::Level::WARN => web_sys::console::warn_1(&line),
            _ => web_sys::console::log_1(&line),
        }
    }
}

impl<'w> tracing_subscriber::fmt::MakeWriter<'w> for Console {
    type Writer = ConsoleLine;

    fn make_writer(&'w self) -> ConsoleLine {
        ConsoleLine {
            level: tracing::Level::INFO,
            text: Vec::new(),
        }
    }

    fn make_writer_for(&'w self, meta: &tracing::Metadata<'_>) -> ConsoleLine {
        ConsoleLine {
            level: *meta.level(),
            text: Vec::new(),
        }
    }
}

struct WebRun<G> {
    parts: EngineBuilder<G>,
    canvas: HtmlCanvasElement,
    limit: RunLimit,
    on_end: WebRunEnd,
}

impl<G: Game + 'static, S: EngineScalar> BackendVisitor<S> for WebRun<G> {
    type Output = Result<()>;

    fn visit(self) -> Result<()> {
        let EngineBuilder {
            mut game,
            config,
            registrations,
            script,
            options,
            net,
            ..
        } = self.parts;
        let world = build_world::<G, S>(&mut game, &config, registrations, &options)?;
        let script = ScriptedInput::new(config.game_loop.tick_rate_hz, script)?;
        let backend = config.determinism.math;
        let mut session = Session::new(world, &config, &options, backend, SteadyClock)?;
        session.attach_net(net)?;
        let event_loop = EventLoop::new().map_err(|e| {
            laige_core::diag::reported(
                Error::new(ErrorCode::Unsupported, events::WINDOW_FAILED)
                    .with_detail("starting winit's web event loop")
                    .with_source(e),
            )
        })?;
        let app = WebApp::<G, S> {
            view: game.view(&config),
            game,
            config,
            options,
            limit: self.limit,
            canvas: Some(self.canvas),
            script,
            surface: SurfaceSize::default(),
            pending: Some(session),
            live: None,
            on_end: Some(self.on_end),
            cursor: InputPoint::default(),
            linger_until: None,
            _scalar: std::marker::PhantomData,
        };
        event_loop.spawn_app(app);
        Ok(())
    }
}

/// The engine's sprite stages on the page's thread: each published frame
/// is batched and drawn inside `publish` (see the module docs for how that
/// keeps the handoff's contract).
pub(crate) struct WebPresenter {
    stages: EngineStages,
    /// The frame's sprites (reused: no allocation after the first frames).
    payload: Vec<Sprite>,
    assets: Assets,
    surface: Option<SurfaceSize>,
    presented: std::sync::Arc<std::sync::atomic::AtomicU64>,
    stats: FrameStats,
    stopped: bool,
}

impl WebPresenter {
    /// The stages over `gl`, started (the renderer built, the textures
    /// queued so far uploaded).
    fn new(
        gl: GlContext,
        options: &EngineOptions,
        view: ViewRect,
        surface: Option<SurfaceSize>,
    ) -> Result<Self> {
        let (assets, parts) = engine_stages(gl, options, view, surface.clone())?;
        let presented = std::sync::Arc::clone(&parts.presented);
        let mut stages = parts.build();
        stages.on_start()?;
        Ok(Self {
            stages,
            payload: Vec::with_capacity(options.sprite_capacity),
            assets,
            surface,
            presented,
            stats: FrameStats::default(),
            stopped: false,
        })
    }
}

impl Presenter for WebPresenter {
    fn presented(&self) -> u64 {
        // Relaxed: a counter on one thread.
        self.presented.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Every frame is drawn within its `publish`: nothing to wait for.
    fn wait_idle(&mut self) -> Result<()> {
        Ok(())
    }

    fn publish<F: FnOnce(&mut Vec<Sprite>, &Assets)>(
        &mut self,
        frame: FrameDescriptor,
        fill: F,
    ) -> Result<()> {
        if let Some((screen, scale)) = latest_screen(self.surface.as_ref()) {
            self.assets.screen = screen;
            self.assets.pixel_scale = scale;
        }
        self.payload.clear();
        fill(&mut self.payload, &self.assets);
        self.stats.submitted += 1;
        self.stages.batch(&frame, &self.payload)?;
        self.stages.submit(&frame, &self.payload)?;
        self.stats.rendered += 1;
        Ok(())
    }

    /// The renderer's GL objects freed (once).
    fn finish(&mut self) -> Result<()> {
        if std::mem::replace(&mut self.stopped, true) {
            return Ok(());
        }
        self.stages.on_stop()
    }

    fn frame_stats(&self) -> FrameStats {
        self.stats
    }
}

/// A running page: its loop, presenter and window.
struct Live {
    session: Session<SteadyClock>,
    presenter: WebPresenter,
    window: Window,
}

struct WebApp<G, S> {
    game: G,
    config: EngineConfig,
    options: EngineOptions,
    limit: RunLimit,
    view: ViewRect,
    /// The page's canvas, until the window takes it.
    canvas: Option<HtmlCanvasElement>,
    script: ScriptedInput,
    /// The canvas's latest size, for the next frame.
    surface: SurfaceSize,
    pending: Option<Session<SteadyClock>>,
    live: Option<Live>,
    on_end: Option<WebRunEnd>,
    cursor: InputPoint,
    /// Set when the run reached its limit with a network session live:
    /// until this reading (ns) the frames only poll the session, so that
    /// the peers receive this peer's last inputs (the native shutdown's
    /// linger, which a page's thread cannot wait through).
    linger_until: Option<i64>,
    _scalar: std::marker::PhantomData<fn() -> S>,
}

impl<G: Game, S: EngineScalar> WebApp<G, S> {
    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<Live> {
        let failed = |what: &'static str| {
            Error::new(ErrorCode::Unsupported, events::WINDOW_FAILED).with_detail(what)
        };
        let canvas = self
            .canvas
            .take()
            .ok_or_else(|| failed("the page's canvas was already taken"))?;
        let attributes = Window::default_attributes()
            .with_title(self.config.render.window_title.clone())
            .with_canvas(Some(canvas.clone()));
        let window = event_loop
            .create_window(attributes)
            .map_err(|e| failed("a window on the page's canvas").with_source(e))?;
        let ctx = CurrentGlContext::canvas(&canvas)?;
        let presenter = WebPresenter::new(
            ctx.release()?,
            &self.options,
            self.view,
            Some(self.surface.clone()),
        )?;
        let Some(mut session) = self.pending.take() else {
            return Err(Error::new(ErrorCode::InvalidState, events::WINDOW_FAILED)
                .with_detail("the page's run was already started once"));
        };
        session.start(RunPlan {
            mode: "web",
            frame_rate_hz: 0,
            limit: self.limit,
            wait_for_render: false,
        })?;
        Ok(Live {
            session,
            presenter,
            window,
        })
    }

    /// The ordered shutdown, the report handed over, the loop ended.
    fn end(&mut self, event_loop: &ActiveEventLoop, reason: ExitReason) {
        if let Some(mut live) = self.live.take() {
            let report =
                live.session
                    .shutdown::<G, S, _>(&mut self.game, &mut live.presenter, reason);
            if let Some(on_end) = self.on_end.take() {
                on_end(Ok(report));
            }
        }
        event_loop.exit();
    }

    fn end_if_decided(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.as_mut().is_some_and(|l| l.session.should_stop()) {
            // The session's own reason wins over this placeholder.
            self.end(event_loop, ExitReason::Completed);
        }
    }

    fn platform_event(&mut self, kind: InputKind) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let reading = SteadyClock.now_ns();
        let presented = live.presenter.presented();
        live.session
            .input_event::<G, S>(&mut self.game, reading, kind, presented);
    }

    /// One animation frame: the frame step, drawn, the next one asked for.
    fn frame(&mut self, event_loop: &ActiveEventLoop) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let now = SteadyClock.now_ns();
        if let Some(until) = self.linger_until {
            if now < until && lingers(&mut live.session) {
                live.window.request_redraw();
            } else {
                self.end(event_loop, ExitReason::Completed);
            }
            return;
        }
        let since_start = now - live.session.game_loop.start_reference_ns().unwrap_or(now);
        if live.session.next_frame(since_start).is_none() {
            if lingers(&mut live.session) {
                self.linger_until = Some(now.saturating_add(linger_ns()));
                live.window.request_redraw();
                return;
            }
            self.end(event_loop, ExitReason::Completed);
            return;
        }
        self.script.feed(&mut live.session.game_loop);
        if !live
            .session
            .frame::<G, S, _>(&mut self.game, &mut live.presenter, now)
        {
            // The session decided why.
            self.end(event_loop, ExitReason::Completed);
            return;
        }
        live.window.request_redraw();
    }
}

/// Whether a run that ended by itself keeps answering its network
/// session's peers (one poll each frame: `Session::linger_poll`).
#[cfg(feature = "net")]
fn lingers(session: &mut Session<SteadyClock>) -> bool {
    session.linger_poll()
}

#[cfg(not(feature = "net"))]
fn lingers(_session: &mut Session<SteadyClock>) -> bool {
    false
}

/// How long a page keeps polling its session after the run's end
/// (the native shutdown's linger).
#[cfg(feature = "net")]
fn linger_ns() -> i64 {
    i64::try_from(crate::session::NET_LINGER.as_nanos()).unwrap_or(i64::MAX)
}

#[cfg(not(feature = "net"))]
fn linger_ns() -> i64 {
    0
}

impl<G: Game, S: EngineScalar> ApplicationHandler for WebApp<G, S> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() || self.pending.is_none() {
            return;
        }
        match self.open(event_loop) {
            Ok(live) => {
                live.window.request_redraw();
                self.live = Some(live);
                event_loop.set_control_flow(ControlFlow::Wait);
            }
            Err(err) => {
                if let Some(on_end) = self.on_end.take() {
                    on_end(Err(err));
                }
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if self.live.is_none() {
            return;
        }
        match event {
            WindowEvent::RedrawRequested => self.frame(event_loop),
            WindowEvent::CloseRequested | WindowEvent::Destroyed => {
                self.end(event_loop, ExitReason::WindowClosed);
                return;
            }
            WindowEvent::Resized(size) => {
                let scale = self.live.as_ref().map_or(1.0, |l| l.window.scale_factor());
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "device pixel ratios are small"
                )]
                self.surface.request(size.width, size.height, scale as f32);
            }
            WindowEvent::Focused(focused) => {
                if self.config.render.pause_on_focus_lost
                    && let Some(live) = self.live.as_mut()
                {
                    live.session.focus_changed(focused);
                }
            }
            other => {
                if let Some(live) = self.live.as_ref()
                    && let Some(kind) = input_kind(
                        &other,
                        &mut self.cursor,
                        self.options.pointer_space,
                        (&self.view, self.options.view_policy),
                        live.window.inner_size(),
                    )
                {
                    self.platform_event(kind);
                }
            }
        }
        self.end_if_decided(event_loop);
    }

    fn exiting(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() {
            self.end(event_loop, ExitReason::WindowClosed);
        }
    }
}
