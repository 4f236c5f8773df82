//! Structured, rate-limited diagnostics on `tracing`.
//!
//! Every degradation the engine documents — a dropped tick, a dropped
//! frame, a rejected config value, a tick that allocated — is reported as a
//! structured event: an [`EventId`](crate::EventId) (`subsystem/event`), a
//! [`Severity`] and named fields, emitted as an ordinary `tracing` event so
//! any subscriber a game installs shows it. The contract, in short (the
//! full page is the `laige_core::diag` docs):
//!
//! - **Emit** with [`event!`](crate::event!): `event!(Warn, TICK_DROPPED,
//!   dropped = 8, total_dropped = 48)`. The event's fields start with
//!   `subsystem` and `event`; the level is the severity's ([`Severity::level`]).
//! - **Rate limit** per `(subsystem, event, severity)`: at most one event
//!   per window ([`rate_window`], default one second, [`set_rate_window`]),
//!   shared by all callsites of the key; every suppressed occurrence is
//!   counted ([`rate_stats`]).
//! - **Never silent**: [`emit_rate_limited_summary`] (at shutdown or on
//!   demand) emits one `diag/rate_limited` event per key with suppressed
//!   occurrences.
//! - **Errors** report themselves: [`report`] emits an
//!   [`Error`](crate::Error)'s rate-limited Warn event; validation code
//!   returns [`fail`]`(err)`.
//! - **Cheap when quiet**: the check allocates nothing, formats nothing and
//!   takes no lock; fields are evaluated only for emitted events; the emit
//!   path is not charged to the [allocation watch](crate::alloc_watch).
//! - **Binaries** install the default subscriber with [`init_subscriber`]
//!   (feature `subscriber`).
//!
//! ```
//! use laige_core::{EventId, diag::{self, Severity}};
//!
//! const FRAME_DROPPED: EventId = EventId::new("doc_render_thread", "frame_dropped");
//! for seq in 0..100_u64 {
//!     laige_core::event!(Warn, FRAME_DROPPED, seq);
//! }
//! let stats = diag::rate_stats(FRAME_DROPPED, Severity::Warn);
//! assert_eq!(stats.emitted + stats.suppressed, 100);
//! ```
//!
#![doc = include_str!("contract.md")]

#[cfg(feature = "subscriber")]
mod capture;
mod limiter;
mod macros;
mod rate_limiter;
mod registry;
mod report;
mod severity;
#[cfg(feature = "subscriber")]
mod subscriber;
mod summary;
mod time;

#[cfg(feature = "subscriber")]
pub use capture::{CapturedEvent, capture_events, capture_rendered};
pub use limiter::{
    Callsite, DEFAULT_RATE_WINDOW, MAX_RATE_WINDOW, RateStats, check, rate_stats, rate_window,
    set_rate_window,
};
pub use rate_limiter::RateLimiter;
pub use report::{fail, report, reported};
pub use severity::Severity;
#[cfg(feature = "subscriber")]
pub use subscriber::{
    Color, FILTER_INVALID, LogFormat, SubscriberConfig, SubscriberInit, build_subscriber,
    init_subscriber,
};
pub use summary::{SuppressedKey, emit_rate_limited_summary};
pub use time::resolution_ns as time_resolution_ns;

/// Re-exports the [`event!`](crate::event!) expansion uses, so callers need
/// no `tracing` dependency of their own (not public API).
#[doc(hidden)]
pub mod __private {
    pub use tracing;
}
