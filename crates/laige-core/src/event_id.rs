//! [`EventId`]: the `subsystem/event` name every diagnostic event and every
//! [`Error`](crate::Error) carries.

use std::fmt;

/// The stable identity of a diagnostic event or error: `subsystem/event`,
/// for example `loop/tick_dropped` or `render_thread/frame_dropped`.
///
/// Both halves are `&'static str` so an id costs nothing to copy, compare or
/// hash and never allocates. Ids are the keys of the rate limiter and the
/// names tests and dashboards match on, so they are part of the public
/// contract: renaming one is a breaking change.
///
/// ```
/// use laige_core::EventId;
/// const TICK_DROPPED: EventId = EventId::new("loop", "tick_dropped");
/// assert_eq!(TICK_DROPPED.to_string(), "loop/tick_dropped");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    subsystem: &'static str,
    event: &'static str,
}

impl EventId {
    /// Creates an id from its two halves.
    #[must_use]
    pub const fn new(subsystem: &'static str, event: &'static str) -> Self {
        Self { subsystem, event }
    }

    /// The subsystem half (`loop` in `loop/tick_dropped`).
    #[must_use]
    pub const fn subsystem(&self) -> &'static str {
        self.subsystem
    }

    /// The event half (`tick_dropped` in `loop/tick_dropped`).
    #[must_use]
    pub const fn event(&self) -> &'static str {
        self.event
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.subsystem, self.event)
    }
}

impl fmt::Debug for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EventId({}/{})", self.subsystem, self.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_subsystem_slash_event() {
        let id = EventId::new("render_thread", "frame_dropped");
        assert_eq!(id.to_string(), "render_thread/frame_dropped");
        assert_eq!(id.subsystem(), "render_thread");
        assert_eq!(id.event(), "frame_dropped");
    }

    #[test]
    fn orders_by_subsystem_then_event() {
        let a = EventId::new("a", "z");
        let b = EventId::new("b", "a");
        assert!(a < b);
        assert_ne!(a, b);
    }
}
