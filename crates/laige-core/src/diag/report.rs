//! [`report`]: the rate-limited Warn event of an [`Error`], and the
//! validation helpers built on it.

use super::{Callsite, Severity};
use crate::{Error, Result};

/// Emits `err`'s rate-limited Warn event; returns whether it was emitted
/// (`false`: suppressed within the window, counted for the summary).
///
/// The event's key is `(err.id(), Warn)`, shared with any
/// `event!(Warn, <same id>, ..)`. Its fields: `subsystem`, `event` (the
/// error's id), `code` (the [`ErrorCode`](crate::ErrorCode) variant name,
/// e.g. `InvalidArgument`), and whichever of `field`, `value`, `accepted`,
/// `detail` and `source` the error carries. Its target is
/// `laige_core::diag::report`. Emission runs with the allocation watch
/// suspended.
///
/// This is the validation convention: a part that rejects input builds an
/// [`Error`], reports it, and returns it — see [`reported`] and [`fail`] for
/// the one-expression forms.
///
/// ```
/// use laige_core::{Error, EventId, diag};
///
/// const CATCHUP_INVALID: EventId = EventId::new("doc_report", "catchup_invalid");
/// let err = Error::invalid_argument(CATCHUP_INVALID, "max_catch_up", 0, ">= 1");
/// assert!(diag::report(&err)); // first in its window: emitted
/// assert!(!diag::report(&err)); // suppressed, counted
/// ```
pub fn report(err: &Error) -> bool {
    static CALLSITE: Callsite = Callsite::new();
    let id = err.id();
    if !CALLSITE.check(id, Severity::Warn) {
        return false;
    }
    let _suspend = crate::alloc_watch::suspend();
    let source = std::error::Error::source(err);
    tracing::warn!(
        subsystem = %id.subsystem(),
        event = %id.event(),
        code = ?err.code(),
        field = err.field(),
        value = err.value(),
        accepted = err.accepted(),
        detail = err.detail(),
        source = source.map(tracing::field::display),
    );
    true
}

/// Reports `err` (see [`report`]) and hands it back: `return
/// Err(diag::reported(Error::invalid_argument(..)))`.
#[must_use]
pub fn reported(err: Error) -> Error {
    report(&err);
    err
}

/// Reports `err` (see [`report`]) and returns it as an `Err`: the tail of a
/// validation branch, `return diag::fail(Error::invalid_argument(..))`.
///
/// ```
/// use laige_core::{Error, EventId, Result, diag};
///
/// const TICK_RATE_INVALID: EventId = EventId::new("doc_fail", "tick_rate_invalid");
///
/// fn validate(tick_rate_hz: u32) -> Result<u32> {
///     if !(20..=120).contains(&tick_rate_hz) {
///         return diag::fail(Error::invalid_argument(
///             TICK_RATE_INVALID,
///             "tick_rate_hz",
///             tick_rate_hz,
///             "20..=120 Hz",
///         ));
///     }
///     Ok(tick_rate_hz)
/// }
/// assert!(validate(7).is_err());
/// assert_eq!(validate(60).unwrap(), 60);
/// ```
pub fn fail<T>(err: Error) -> Result<T> {
    Err(reported(err))
}
