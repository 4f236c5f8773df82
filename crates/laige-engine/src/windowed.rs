//! The windowed run (feature `window`): winit 0.30's `ApplicationHandler`
//! on the main thread, the simulation on the main thread, rendering on the
//! render thread through the handoff.
//!
//! ```text
//!  main thread (winit event loop + sim)                 render thread
//!  resumed: window + GL context (current here)
//!           release ──────── GlContext (Send) ────────► on_start: make_current
//!  window_event: key / pointer / button ─► stamp on the loop clock, queue,
//!                Game::on_input (pause, step, exit...)
//!                close requested / proxy close ─► the ordered shutdown
//!                focus lost ─► pause (if configured)
//!  about_to_wait: at frame deadline k (the frame clock's grid):
//!                Session::next_frame, Session::frame: Game::on_frame →
//!                GameLoop::frame (ticks, input delivered) → Game::present
//!                → submit_frame(alpha, interpolate) ──► batch, draw, swap
//!                → WaitUntil(the next future deadline)
//! ```
//!
//! Frames are paced by the frame clock's deadline grid at the display's
//! refresh rate (or `[render] frame_rate_hz`) through `ControlFlow::WaitUntil`,
//! so the event loop keeps delivering input between frames instead of
//! sleeping in the handler. A frame whose deadline passed while the loop was
//! busy is not made up: the next frame waits for the next future deadline.

// det-allow-file(wall-clock, float-type, float-cast): the windowed run stamps platform events on the steady clock (the loop's own clock, the one time door) and converts the platform's f64 pointer coordinates to Q24.8 integers before they enter the simulation

use std::sync::Arc;

use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_core::math::BackendVisitor;
use laige_core::{Error, ErrorCode, Result};
use laige_render::gl::{CurrentGlContext, SurfaceSize, ViewRect, WindowedConfig};
use laige_render::{FrameClock, FrameClockConfig};
use laige_sim::input::{InputKind, InputPoint, ScriptedInput};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::window::{Window, WindowId};

use crate::builder::{Engine, EngineBuilder};
use crate::game::{EngineScalar, Game};
use crate::gl_present::Renderer;
use crate::headless::frame_rate;
use crate::options::{EngineOptions, RunLimit};
use crate::presenter::Presenter;
use crate::report::{ExitReason, RunReport};
use crate::session::{RunPlan, Session, build_world};
use crate::winit_input::input_kind;
use crate::{EngineConfig, events};

impl<G: Game> Engine<G> {
    /// Opens the configured window and runs until it closes (or `limit`,
    /// the game's exit, a failing system, the render thread failing,
    /// Ctrl-C), then shuts down in order and reports. Must be called on
    /// the main thread (winit's event loop lives there).
    ///
    /// # Errors
    /// Failures before the run starts (exit code 1): setup, no display
    /// (`engine/window_failed`, Unsupported), no window or GL 3.3 context,
    /// the event loop refusing to start.
    pub fn run_windowed(mut self, limit: RunLimit) -> Result<RunReport> {
        self.install_log_subscriber()?;
        if let Some(target) = self.parts.record.take() {
            return crate::record::run_recorded(self.parts, target, |e| e.run_windowed_now(limit));
        }
        self.run_windowed_now(limit)
    }

    /// [`run_windowed`](Self::run_windowed) without the recording step.
    fn run_windowed_now(self, limit: RunLimit) -> Result<RunReport> {
        let backend = self.parts.config.determinism.math;
        backend.run(WindowedRun {
            parts: self.parts,
            limit,
        })
    }
}

struct WindowedRun<G> {
    parts: EngineBuilder<G>,
    limit: RunLimit,
}

/// The engine's own event-loop event: the close request of
/// `EngineOptions::close_after_frames` (and of anything holding a proxy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EngineEvent {
    Close,
}

impl<G: Game, S: EngineScalar> BackendVisitor<S> for WindowedRun<G> {
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
        let world = build_world::<G, S>(&mut game, &config, registrations, &options)?;
        let script = ScriptedInput::new(config.game_loop.tick_rate_hz, script)?;
        let event_loop = EventLoop::<EngineEvent>::with_user_event()
            .build()
            .map_err(|e| window_failed(ErrorCode::Unsupported, "connecting to the display", e))?;
        let backend = config.determinism.math;
        let mut session = Session::new(world, &config, &options, backend, SteadyClock)?;
        session.attach_net(net)?;
        let mut app = App::<G, S> {
            view: game.view(&config),
            surface: SurfaceSize::default(),
            game,
            config,
            options,
            limit: self.limit,
            pending: Some(session),
            live: None,
            outcome: None,
            proxy: event_loop.create_proxy(),
            cursor: InputPoint::default(),
            script,
            _scalar: std::marker::PhantomData,
        };
        event_loop
            .run_app(&mut app)
            .map_err(|e| window_failed(ErrorCode::Failed, "running the event loop", e))?;
        if let Some(live) = app.live.take() {
            // The loop ended without our exit (the platform closed it).
            app.outcome = Some(Ok(
                live.finish::<G, S>(&mut app.game, ExitReason::WindowClosed)
            ));
        }
        app.outcome.unwrap_or_else(|| {
            Err(laige_core::diag::reported(
                Error::new(ErrorCode::Failed, events::WINDOW_FAILED)
                    .with_detail("the event loop ended before the window was created"),
            ))
        })
    }
}

fn window_failed(
    code: ErrorCode,
    what: &'static str,
    source: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    laige_core::diag::reported(
        Error::new(code, events::WINDOW_FAILED)
            .with_detail(what)
            .with_source(source),
    )
}

/// A running window: its loop, renderer and pacing.
struct Live {
    session: Session<SteadyClock>,
    renderer: Renderer,
    window: Arc<Window>,
    clock: FrameClock,
    /// The next deadline slot of the frame clock's grid.
    slot: u64,
}

impl Live {
    /// The ordered shutdown; `ended_by` is the reason unless the session
    /// decided one.
    fn finish<G: Game, S: EngineScalar>(mut self, game: &mut G, ended_by: ExitReason) -> RunReport {
        let report = self
            .session
            .shutdown::<G, S, _>(game, &mut self.renderer, ended_by);
        // The window goes last, on this (the event loop's) thread: the
        // render thread destroyed the GL surface before it ended.
        drop(self.window);
        report
    }
}

struct App<G, S> {
    game: G,
    config: EngineConfig,
    options: EngineOptions,
    limit: RunLimit,
    view: ViewRect,
    /// The window's latest size, for the render thread.
    surface: SurfaceSize,
    pending: Option<Session<SteadyClock>>,
    live: Option<Live>,
    outcome: Option<Result<RunReport>>,
    proxy: EventLoopProxy<EngineEvent>,
    cursor: InputPoint,
    /// The builder's scripted input, fed ahead of every frame as in a
    /// headless run (beside the window's own events).
    script: ScriptedInput,
    _scalar: std::marker::PhantomData<fn() -> S>,
}

impl<G: Game, S: EngineScalar> App<G, S> {
    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<Live> {
        let r = &self.config.render;
        let attributes = Window::default_attributes()
            .with_title(r.window_title.clone())
            .with_inner_size(PhysicalSize::new(r.window_width, r.window_height))
            .with_resizable(true);
        let ctx = CurrentGlContext::windowed(
            event_loop,
            WindowedConfig {
                attributes,
                vsync: r.vsync,
                prefer_egl: false,
            },
        )?;
        // A lost X server ends this run in order (instead of Xlib's exit).
        #[cfg(unix)]
        if let Ok(handle) = winit::raw_window_handle::HasDisplayHandle::display_handle(event_loop)
            && let winit::raw_window_handle::RawDisplayHandle::Xlib(xlib) = handle.as_raw()
        {
            crate::x11_loss::install(xlib.display.map_or(std::ptr::null_mut(), |d| d.as_ptr()));
        }
        let rate = frame_rate(&self.config, ctx.refresh_rate_hz());
        let window = ctx.window().cloned().ok_or_else(|| {
            Error::new(ErrorCode::Failed, events::WINDOW_FAILED)
                .with_detail("the windowed context has no window")
        })?;
        let renderer = Renderer::spawn(
            ctx.release()?,
            &self.options,
            self.view,
            Some(self.surface.clone()),
        )?;
        let Some(mut session) = self.pending.take() else {
            return Err(Error::new(ErrorCode::InvalidState, events::WINDOW_FAILED)
                .with_detail("the window was already opened once"));
        };
        session.start(RunPlan {
            mode: "windowed",
            frame_rate_hz: rate,
            limit: self.limit,
            wait_for_render: false,
        })?;
        let mut clock = FrameClock::new(FrameClockConfig {
            frame_rate_hz: rate,
        })?;
        clock.reanchor(session.game_loop.start_reference_ns().unwrap_or(0));
        Ok(Live {
            session,
            renderer,
            window,
            clock,
            slot: 1,
        })
    }

    fn end(&mut self, event_loop: &ActiveEventLoop, reason: ExitReason) {
        if let Some(live) = self.live.take() {
            self.outcome = Some(Ok(live.finish::<G, S>(&mut self.game, reason)));
        }
        event_loop.exit();
    }

    /// Ends the run if the session decided to (exit request, failure,
    /// a stop signal), or the X server is gone.
    fn end_if_decided(&mut self, event_loop: &ActiveEventLoop) {
        #[cfg(unix)]
        if let Some(live) = self.live.as_mut()
            && crate::x11_loss::display_lost()
        {
            let err = crate::x11_loss::lost_error();
            laige_core::event!(Error, events::DISPLAY_LOST, error = %err);
            crate::x11_loss::shutdown_begun();
            live.renderer.bound_stop(crate::x11_loss::LOST_STOP_TIMEOUT);
            self.end(event_loop, ExitReason::RenderFailed(err));
            return;
        }
        let stop = self.live.as_mut().is_some_and(|l| l.session.should_stop());
        if stop {
            // The session's own reason wins over this placeholder.
            self.end(event_loop, ExitReason::Completed);
        }
    }

    fn platform_event(&mut self, kind: InputKind) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let reading = SteadyClock.now_ns();
        let presented = live.renderer.presented();
        live.session
            .input_event::<G, S>(&mut self.game, reading, kind, presented);
    }

    fn frame(&mut self, event_loop: &ActiveEventLoop) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let now = SteadyClock.now_ns();
        let deadline = live.clock.deadline_ns(live.slot);
        if now >= deadline {
            let scheduled = deadline - live.clock.reference_ns();
            self.script.feed(&mut live.session.game_loop);
            if live.session.next_frame(scheduled).is_none()
                || !live
                    .session
                    .frame::<G, S, _>(&mut self.game, &mut live.renderer, now)
            {
                // The session decided why (the limit, the game's exit, a
                // failure); the placeholder is not used.
                self.end(event_loop, ExitReason::Completed);
                return;
            }
            if let Some(r) = self.options.resize_request
                && r.frame == live.session.frames()
            {
                // As a user's drag: the `Resized` event follows.
                let _ = live
                    .window
                    .request_inner_size(PhysicalSize::new(r.width, r.height));
            }
            if self.options.close_after_frames == Some(live.session.frames()) {
                // The same path as the window system's close request.
                let _ = self.proxy.send_event(EngineEvent::Close);
            }
            // The next future deadline (missed slots are not made up).
            live.slot = live.clock.frame_at(now) + 1;
        }
        let next = SteadyClock::ns_to_instant(live.clock.deadline_ns(live.slot));
        event_loop.set_control_flow(ControlFlow::WaitUntil(next));
    }
}

impl<G: Game, S: EngineScalar> ApplicationHandler<EngineEvent> for App<G, S> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() || self.outcome.is_some() {
            return;
        }
        match self.open(event_loop) {
            Ok(live) => {
                let first = SteadyClock::ns_to_instant(live.clock.deadline_ns(1));
                self.live = Some(live);
                event_loop.set_control_flow(ControlFlow::WaitUntil(first));
            }
            Err(err) => {
                self.outcome = Some(Err(err));
                // Poll: the exit is taken without waiting for a message
                // (winit on Windows would otherwise block in its wait, with
                // no window to send one).
                event_loop.set_control_flow(ControlFlow::Poll);
                event_loop.exit();
            }
        }
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: EngineEvent) {
        match event {
            EngineEvent::Close => self.end(event_loop, ExitReason::WindowClosed),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if self.live.is_none() {
            return;
        }
        match event {
            WindowEvent::CloseRequested => {
                self.end(event_loop, ExitReason::WindowClosed);
                return;
            }
            WindowEvent::Resized(size) => {
                // The render thread resizes the surface before its next frame.
                let scale = self.live.as_ref().map_or(1.0, |l| l.window.scale_factor());
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "monitor scale factors are small"
                )]
                self.surface.request(size.width, size.height, scale as f32);
            }
            WindowEvent::ScaleFactorChanged { scale_factor, .. } => {
                if let Some(live) = self.live.as_ref() {
                    let size = live.window.inner_size();
                    #[expect(
                        clippy::cast_possible_truncation,
                        reason = "monitor scale factors are small"
                    )]
                    self.surface
                        .request(size.width, size.height, scale_factor as f32);
                }
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

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        self.end_if_decided(event_loop);
        self.frame(event_loop);
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(live) = self.live.take() {
            self.outcome = Some(Ok(
                live.finish::<G, S>(&mut self.game, ExitReason::WindowClosed)
            ));
        }
    }
}
