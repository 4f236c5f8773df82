//! The render thread's diagnostic event ids and their emission.
//!
//! Every id is part of the public contract (tests and dashboards match on
//! them). Emission goes through one macro so the crate's events all look
//! alike: `subsystem/event`, a severity, named fields.

use laige_core::{Error, EventId};

/// Info: the render thread was spawned (once per `RenderThread`).
pub const THREAD_STARTED: EventId = EventId::new("render_thread", "thread_started");
/// Info: the render thread was stopped and joined (once per actual stop).
pub const THREAD_STOPPED: EventId = EventId::new("render_thread", "thread_stopped");
/// Warn (rate-limited): a pending frame was replaced before it was rendered.
/// Fields `dropped_frame`, `new_frame` (frame indices).
pub const FRAME_DROPPED: EventId = EventId::new("render_thread", "frame_dropped");
/// Error: a stage or hook panicked; the render thread stopped rendering.
/// Fields `stage`, `message`.
pub const STAGE_PANICKED: EventId = EventId::new("render_thread", "stage_panicked");
/// Error: a stage or hook returned an error; the render thread stopped
/// rendering. Fields `stage`, `error`.
pub const STAGE_FAILED: EventId = EventId::new("render_thread", "stage_failed");
/// `render_thread/stage_stuck` (Error): a stage had not returned when the
/// owner's deadline (the bounded shutdown) passed; fields `stage`,
/// `during`. The thread is left running and reported, not joined.
pub const STAGE_STUCK: EventId = EventId::new("render_thread", "stage_stuck");
/// The id of the `InvalidArgument` a stopped render thread returns (never
/// logged: asking a stopped thread is a precondition query).
pub const NOT_RUNNING: EventId = EventId::new("render_thread", "not_running");
/// The id of the error a thread that could not be spawned returns.
pub const SPAWN_FAILED: EventId = EventId::new("render_thread", "spawn_failed");
/// Warn (rate-limited): a `FrameClock` was asked for a rate outside 1–1000 Hz.
pub const FRAME_RATE_INVALID: EventId = EventId::new("render_thread", "frame_rate_invalid");

/// Emits a structured event: `emit!(Warn, ID, field = value, ...)`.
// A thin alias of `laige_core::event!` (rate-limited per id and severity;
// fields are not evaluated when suppressed), discarding its "emitted" flag.
macro_rules! emit {
    ($sev:ident, $($rest:tt)+) => {{
        let _ = ::laige_core::event!($sev, $($rest)+);
    }};
}
pub(crate) use emit;

/// Reports a validation error as its rate-limited Warn event.
pub(crate) fn report(err: &Error) {
    let _ = laige_core::diag::report(err);
}
