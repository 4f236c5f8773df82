//! The ids of the events and errors laige-core raises, one home for all of
//! them (each crate of the engine keeps its own ids in its `events.rs`).

use crate::EventId;

/// A malformed decimal text given to `Fpx16_16::from_str`.
pub const PARSE_INVALID: EventId = EventId::new("math", "parse_invalid");
/// A decimal text whose rounded value is outside the Q16.16 range.
pub const PARSE_OUT_OF_RANGE: EventId = EventId::new("math", "parse_out_of_range");
/// An unknown math backend config id.
pub const BACKEND_UNKNOWN: EventId = EventId::new("math", "backend_unknown");
/// An unknown vector unit name given to `VectorUnit::from_str`.
pub const VECTOR_UNIT_UNKNOWN: EventId = EventId::new("math", "vector_unit_unknown");

/// The error [`diag::set_rate_window`](crate::diag::set_rate_window)
/// returns for a window above
/// [`diag::MAX_RATE_WINDOW`](crate::diag::MAX_RATE_WINDOW).
pub const RATE_WINDOW_INVALID: EventId = EventId::new("diag", "rate_window_invalid");
/// The shutdown summary's events: how many occurrences of each
/// (subsystem, event, severity) the rate limiter suppressed.
pub const RATE_LIMITED: EventId = EventId::new("diag", "rate_limited");
/// The error [`Severity::from_str`](crate::diag::Severity) returns for an
/// unknown severity name.
pub const SEVERITY_INVALID: EventId = EventId::new("diag", "severity_invalid");
