//! [`emit_rate_limited_summary`]: the `diag/rate_limited` events that make
//! suppression visible.

use super::{Severity, registry};
use crate::EventId;
use crate::events::RATE_LIMITED;

/// One line of the rate-limit summary: a key and how many of its
/// occurrences were suppressed since the previous summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuppressedKey {
    /// The suppressed events' id.
    pub id: EventId,
    /// The suppressed events' severity.
    pub severity: Severity,
    /// Occurrences suppressed since the previous summary (always > 0).
    pub suppressed: u64,
}

/// Emits one `diag/rate_limited` event per key with suppressed occurrences
/// not yet summarized, and returns those keys (sorted by subsystem, event,
/// severity).
///
/// Each event is emitted at the suppressed key's own severity (a filter that
/// shows the Warn events also shows the summary of the suppressed ones),
/// with fields `subsystem=diag event=rate_limited key=<subsystem/event>
/// severity=<severity> suppressed=<count>`. Summary events are not
/// themselves rate-limited.
///
/// Semantics: each call reports the occurrences suppressed since the
/// previous call (or since the process started) and marks them reported,
/// so calling it on demand and again at shutdown reports every suppressed
/// occurrence exactly once; a key with nothing new is skipped. The
/// process-lifetime totals in [`rate_stats`](super::rate_stats) are not
/// reset (its `pending` drops to zero). Concurrent callers never report
/// the same occurrence twice. The rate windows are untouched: a key in the
/// middle of its window stays suppressed.
///
/// Runs with the allocation watch suspended; it allocates (the key list and
/// the formatting), so call it at shutdown or on demand, not per frame.
///
/// ```
/// use laige_core::{EventId, diag::{self, Severity}};
///
/// const DOC_SUMMARY: EventId = EventId::new("doc_summary", "spike");
/// for _ in 0..5 {
///     laige_core::event!(Warn, DOC_SUMMARY);
/// }
/// let summary = diag::emit_rate_limited_summary();
/// let line = summary.iter().find(|k| k.id == DOC_SUMMARY).unwrap();
/// assert_eq!((line.severity, line.suppressed), (Severity::Warn, 4));
/// // Reported once: the next summary has nothing new for this key.
/// assert!(diag::emit_rate_limited_summary().iter().all(|k| k.id != DOC_SUMMARY));
/// ```
pub fn emit_rate_limited_summary() -> Vec<SuppressedKey> {
    let _suspend = crate::alloc_watch::suspend();
    let mut lines = Vec::new();
    for key in registry::all_keys() {
        let suppressed = key.limiter().take_unsummarized();
        if suppressed == 0 {
            continue;
        }
        let line = SuppressedKey {
            id: key.id(),
            severity: key.severity(),
            suppressed,
        };
        emit_line(&line);
        lines.push(line);
    }
    lines
}

fn emit_line(line: &SuppressedKey) {
    macro_rules! emit_at {
        ($level:ident) => {
            tracing::event!(
                tracing::Level::$level,
                subsystem = %RATE_LIMITED.subsystem(),
                event = %RATE_LIMITED.event(),
                key = %line.id,
                severity = %line.severity,
                suppressed = line.suppressed,
            )
        };
    }
    match line.severity {
        Severity::Trace => emit_at!(TRACE),
        Severity::Debug => emit_at!(DEBUG),
        Severity::Info => emit_at!(INFO),
        Severity::Warn => emit_at!(WARN),
        Severity::Error => emit_at!(ERROR),
    }
}
