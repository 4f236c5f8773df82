//! The loop lifecycle: Init → Running ⇄ Paused → Shutdown.
//!
//! ```text
//!  Init ──start()──► Running ◄──resume()── Paused
//!    │                 │  └───pause()────►   │
//!    │                 ▼                     │
//!    └──shutdown()──► Shutdown ◄─shutdown()──┘
//! ```
//!
//! Every other call is an [`ErrorCode::InvalidState`] error
//! (`loop/invalid_transition`), never a panic, and leaves the loop as it
//! was. `Shutdown` is terminal.

use std::fmt;

use laige_core::{Error, ErrorCode};

use crate::events;

/// Where a [`GameLoop`](super::GameLoop) is in its lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopState {
    /// Created, not started: no clock reference yet. The first `frame()`
    /// (or `start()`) starts it.
    Init,
    /// Frames run the due ticks.
    Running,
    /// Frames (and their hooks and presentation) go on; no tick runs except
    /// by `step()`. Resuming does not run the paused time.
    Paused,
    /// Stopped for good: `frame()` and `step()` fail without touching the
    /// world.
    Shutdown,
}

impl LoopState {
    /// The lowercase name (`running`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Init => "init",
            Self::Running => "running",
            Self::Paused => "paused",
            Self::Shutdown => "shutdown",
        }
    }
}

impl fmt::Display for LoopState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A lifecycle transition request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transition {
    Start,
    Pause,
    Resume,
    Shutdown,
}

impl Transition {
    fn call(self) -> &'static str {
        match self {
            Self::Start => "start()",
            Self::Pause => "pause()",
            Self::Resume => "resume()",
            Self::Shutdown => "shutdown()",
        }
    }

    fn accepted(self) -> &'static str {
        match self {
            Self::Start => "init",
            Self::Pause => "running",
            Self::Resume => "paused",
            Self::Shutdown => "init, running or paused",
        }
    }
}

/// The state after `transition` from `from`, or the InvalidState error.
pub(crate) fn next_state(from: LoopState, transition: Transition) -> Result<LoopState, Error> {
    use LoopState as S;
    use Transition as T;
    match (from, transition) {
        (S::Init, T::Start) => Ok(S::Running),
        (S::Running, T::Pause) => Ok(S::Paused),
        (S::Paused, T::Resume) => Ok(S::Running),
        (S::Init | S::Running | S::Paused, T::Shutdown) => Ok(S::Shutdown),
        _ => Err(
            Error::new(ErrorCode::InvalidState, events::INVALID_TRANSITION)
                .with_field("state")
                .with_value(from)
                .with_accepted(transition.accepted())
                .with_detail(transition.call()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_transitions_and_only_those() {
        use LoopState as S;
        use Transition as T;
        let states = [S::Init, S::Running, S::Paused, S::Shutdown];
        let allowed = [
            (S::Init, T::Start, S::Running),
            (S::Running, T::Pause, S::Paused),
            (S::Paused, T::Resume, S::Running),
            (S::Init, T::Shutdown, S::Shutdown),
            (S::Running, T::Shutdown, S::Shutdown),
            (S::Paused, T::Shutdown, S::Shutdown),
        ];
        for from in states {
            for t in [T::Start, T::Pause, T::Resume, T::Shutdown] {
                let expect = allowed
                    .iter()
                    .find(|(f, tr, _)| *f == from && *tr == t)
                    .map(|a| a.2);
                match (next_state(from, t), expect) {
                    (Ok(to), Some(e)) => assert_eq!(to, e),
                    (Err(err), None) => {
                        assert_eq!(err.code(), ErrorCode::InvalidState);
                        assert_eq!(err.id(), events::INVALID_TRANSITION);
                    }
                    (got, want) => panic!("{from:?} {t:?}: got {got:?}, want {want:?}"),
                }
            }
        }
    }

    #[test]
    fn invalid_transition_message() {
        let e = next_state(LoopState::Paused, Transition::Pause).unwrap_err();
        insta::assert_snapshot!(e.to_string(), @"loop/invalid_transition: invalid state: state = paused; accepted: running (pause())");
    }
}
