//! Every event id laige-engine raises, in one place (the ids are part of
//! the public contract: the laige-engine crate docs lists when each fires):
//! the run's, then the config's.

use laige_core::EventId;

/// `engine/started` (Info): a run began; fields `mode` (`headless` /
/// `windowed`), `backend`, `tick_rate_hz`, `frame_rate_hz`, `entities`.
pub const STARTED: EventId = EventId::new("engine", "started");
/// `engine/shutdown` (Info): the ordered shutdown began; fields `reason`,
/// `exit_code`, `ticks`, `frames`.
pub const SHUTDOWN: EventId = EventId::new("engine", "shutdown");
/// `engine/profiler_summary` (Info): emitted by the shutdown after the
/// render thread stopped; fields `ticks`, `tick_p50_ns`, `tick_p99_ns`,
/// `tick_max_ns`, `frame_p50_ns`, `frame_p99_ns`.
pub const PROFILER_SUMMARY: EventId = EventId::new("engine", "profiler_summary");
/// `engine/stopped` (Info): the shutdown finished (the last event of a
/// run); fields `reason`, `exit_code`, `state_hash`.
pub const STOPPED: EventId = EventId::new("engine", "stopped");
/// `engine/system_failed` (Error): a tick failed and the run is shutting
/// down; fields `tick`, `system` (the failing system, `-` when the
/// failure was not a system's), `error`. The failure's one log.
pub const SYSTEM_FAILED: EventId = EventId::new("engine", "system_failed");
/// `engine/render_failed` (Error): the render thread failed and the run is
/// shutting down; field `error`.
pub const RENDER_FAILED: EventId = EventId::new("engine", "render_failed");
/// `engine/setup_failed`: the game's setup or a builder registration
/// failed (the error is returned; reported as a Warn).
pub const SETUP_FAILED: EventId = EventId::new("engine", "setup_failed");
/// `engine/signal_handler_failed`: the stop-signal handler could not be
/// installed (Failed; returned by `interrupt::install_handler`).
pub const SIGNAL_HANDLER_FAILED: EventId = EventId::new("engine", "signal_handler_failed");
/// `engine/actions_dropped` (Warn): a callback raised more than
/// `MAX_ACTIONS_PER_CALLBACK` actions; field `dropped`.
pub const ACTIONS_DROPPED: EventId = EventId::new("engine", "actions_dropped");
/// `engine/options_invalid`: an [`EngineOptions`](crate::EngineOptions)
/// value out of range (InvalidArgument).
pub const OPTIONS_INVALID: EventId = EventId::new("engine", "options_invalid");
/// `engine/capture_failed` (Warn): the frame capture could not be written;
/// fields `path`, `error`.
pub const CAPTURE_FAILED: EventId = EventId::new("engine", "capture_failed");
/// `engine/window_failed`: the window or its GL context could not be
/// created, or the event loop failed (Unsupported/Failed; returned).
pub const WINDOW_FAILED: EventId = EventId::new("engine", "window_failed");
/// `engine/callback_panicked` (Failed): a game callback (`on_frame`,
/// `on_input`, `on_tick`, `view`, `present`, `finish`) panicked; field = the callback, detail =
/// the panic message. The run ends like a failing system: exit code 3,
/// through the ordered shutdown.
pub const CALLBACK_PANICKED: EventId = EventId::new("engine", "callback_panicked");
/// `engine/display_lost` (Failed): the windowed run's X server connection
/// broke (the server ended or was killed); field `DISPLAY`. The run ends
/// like a render failure: exit code 4, through the ordered shutdown.
pub const DISPLAY_LOST: EventId = EventId::new("engine", "display_lost");
/// `engine/viewer_keyframe_skipped` (Warn): the replay viewer's seek passed
/// over a damaged keyframe and started from an earlier one (or tick 0);
/// fields `tick` (the damaged keyframe's), `why`.
pub const REPLAY_VIEWER_KEYFRAME_SKIPPED: EventId =
    EventId::new("engine", "viewer_keyframe_skipped");

/// `config/read_failed` (Io): the config file could not be read.
pub const CONFIG_READ_FAILED: EventId = EventId::new("config", "read_failed");
/// `config/parse_failed` (InvalidArgument): the config text is not valid
/// TOML or has the wrong shape (unknown key, wrong type); the error names
/// the line, the column and the key.
pub const CONFIG_PARSE_FAILED: EventId = EventId::new("config", "parse_failed");
/// `config/too_large` (InvalidArgument): the config text is over
/// [`MAX_CONFIG_BYTES`](crate::config::MAX_CONFIG_BYTES).
pub const CONFIG_TOO_LARGE: EventId = EventId::new("config", "too_large");
/// `config/window_invalid` (InvalidArgument): a window size or title is
/// not accepted.
pub const WINDOW_INVALID: EventId = EventId::new("config", "window_invalid");
/// `config/log_format_invalid` (InvalidArgument): `log.format` is not
/// `compact` or `json`.
pub const LOG_FORMAT_INVALID: EventId = EventId::new("config", "log_format_invalid");
