//! The [`event!`](crate::event!) macro.

/// Emits a rate-limited structured diagnostic event on `tracing`.
///
/// ```text
/// laige_core::event!(Severity, ID, field = value, other = %display, dbg = ?debug);
/// ```
///
/// - `Severity` is one of `Trace`, `Debug`, `Info`, `Warn`, `Error` (the
///   variant names of [`diag::Severity`](crate::diag::Severity)); it selects
///   the `tracing` level.
/// - `ID` is an [`EventId`](crate::EventId) expression, usually a `const`.
/// - The fields follow `tracing`'s syntax: `name = value` for integers,
///   floats, bools and `&str`; `name = %value` records with `Display`,
///   `name = ?value` with `Debug`.
///
/// The event carries the id as two leading fields, `subsystem` and `event`
/// (`subsystem=loop event=tick_dropped` in the human format,
/// `"subsystem":"loop","event":"tick_dropped"` in JSON lines), then the
/// caller's fields. Its `tracing` target is the calling module, so
/// `RUST_LOG=laige_sim=warn` style filters apply.
///
/// The macro evaluates to a `bool`: `true` when the rate limiter let this
/// occurrence through to `tracing` (whether a subscriber then records it is
/// the subscriber's filter's business), `false` when it was suppressed. It
/// is usable as a statement.
///
/// # Rate limiting
///
/// At most one event per `(subsystem, event, severity)` key per window
/// ([`diag::rate_window`](crate::diag::rate_window), default one second),
/// shared by every callsite that emits the key. Every suppressed occurrence
/// is counted ([`diag::rate_stats`](crate::diag::rate_stats)) and reported
/// by [`diag::emit_rate_limited_summary`](crate::diag::emit_rate_limited_summary).
///
/// # Cost
///
/// The check runs on every occurrence: a few relaxed atomics and a coarse
/// clock read, no allocation, no lock, no formatting. The field expressions
/// are not even evaluated unless the occurrence is emitted and a subscriber
/// is interested, so do not put side effects in them. The emit path runs
/// with the [allocation watch](crate::alloc_watch) suspended: the formatting
/// the subscriber does is the diagnostics' own, not the caller's.
///
/// ```
/// use laige_core::EventId;
///
/// const TICK_DROPPED: EventId = EventId::new("doc_loop", "tick_dropped");
/// let (dropped, total) = (8_u32, 48_u64);
/// let emitted = laige_core::event!(Warn, TICK_DROPPED, dropped, total_dropped = total);
/// assert!(emitted);
/// // The same key within the window is suppressed, and counted.
/// assert!(!laige_core::event!(Warn, TICK_DROPPED, dropped = 16_u32));
/// ```
///
/// Anything but the five severity names is a compile error:
///
/// ```compile_fail
/// laige_core::event!(Warning, laige_core::EventId::new("doc", "typo"));
/// ```
#[macro_export]
macro_rules! event {
    (Trace, $($rest:tt)+) => { $crate::__laige_event!(Trace, TRACE, $($rest)+) };
    (Debug, $($rest:tt)+) => { $crate::__laige_event!(Debug, DEBUG, $($rest)+) };
    (Info, $($rest:tt)+) => { $crate::__laige_event!(Info, INFO, $($rest)+) };
    (Warn, $($rest:tt)+) => { $crate::__laige_event!(Warn, WARN, $($rest)+) };
    (Error, $($rest:tt)+) => { $crate::__laige_event!(Error, ERROR, $($rest)+) };
    ($($other:tt)*) => {
        ::core::compile_error!(
            "laige_core::event!: expected `Trace|Debug|Info|Warn|Error, ID, fields...`"
        )
    };
}

/// The body of [`event!`](crate::event!) (not public API).
#[doc(hidden)]
#[macro_export]
macro_rules! __laige_event {
    ($sev:ident, $level:ident, $id:expr $(,)?) => {{
        static __LAIGE_CALLSITE: $crate::diag::Callsite = $crate::diag::Callsite::new();
        let __laige_id: $crate::EventId = $id;
        if __LAIGE_CALLSITE.check(__laige_id, $crate::diag::Severity::$sev) {
            let _laige_suspend = $crate::alloc_watch::suspend();
            $crate::diag::__private::tracing::event!(
                $crate::diag::__private::tracing::Level::$level,
                subsystem = %__laige_id.subsystem(),
                event = %__laige_id.event()
            );
            true
        } else {
            false
        }
    }};
    ($sev:ident, $level:ident, $id:expr, $($fields:tt)+) => {{
        static __LAIGE_CALLSITE: $crate::diag::Callsite = $crate::diag::Callsite::new();
        let __laige_id: $crate::EventId = $id;
        if __LAIGE_CALLSITE.check(__laige_id, $crate::diag::Severity::$sev) {
            let _laige_suspend = $crate::alloc_watch::suspend();
            $crate::diag::__private::tracing::event!(
                $crate::diag::__private::tracing::Level::$level,
                subsystem = %__laige_id.subsystem(),
                event = %__laige_id.event(),
                $($fields)+
            );
            true
        } else {
            false
        }
    }};
}
