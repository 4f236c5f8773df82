//! [`GameLoopStats`] and [`FrameInfo`].

use super::{Alpha, LoopState};

/// The since-construction loop counters. Presentation/diagnostic state —
/// the frame cadence is the caller's — never authoritative simulation
/// state (the tick number is: [`World::tick`](crate::World::tick)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameLoopStats {
    /// Frames processed (Running or Paused; failed frames included; calls
    /// rejected in Shutdown are not frames).
    pub frames: u64,
    /// Completed ticks (frame ticks and single steps; failed ticks are not
    /// counted).
    pub ticks: u64,
    /// Ticks dropped by the catch-up bound: the sum over frames of
    /// `want − max_catch_up` where `want > max_catch_up`.
    pub dropped_ticks: u64,
    /// Frames that dropped at least one tick.
    pub dropped_frames: u64,
}

/// What one frame did, returned by `frame()` and passed to the frame hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    /// The frame's 1-based index (`stats().frames` after it began).
    pub frame: u64,
    /// The loop's state during the frame.
    pub state: LoopState,
    /// The frame's effective clock reading (ns; never below the previous
    /// frame's).
    pub now_ns: i64,
    /// Ticks the frame ran (0..=max_catch_up).
    pub ticks_run: u32,
    /// Ticks the frame dropped.
    pub dropped_ticks: u64,
    /// The world's tick after the frame's ticks.
    pub tick: u64,
    /// The presentation alpha at the frame's reading (after its ticks).
    pub alpha: Alpha,
}
