//! [`TickPacer`]: due ticks on a wall-clock tick grid, for hosts that drive
//! a [`NetSession`](crate::NetSession) without the engine's loop.

use std::time::Duration;

use web_time::Instant;
/// Counts the ticks due on a fixed-rate grid since it started: the host
/// calls [`due`](Self::due) each frame and advances the session that many
/// times. Time sync slows the simulation by skipping some of these due
/// ticks (`Advance::Skipped`), never by sleeping.
#[derive(Clone, Copy, Debug)]
pub struct TickPacer {
    start: Instant,
    period: Duration,
    counted: u64,
    max_catch_up: u64,
}

impl TickPacer {
    /// A grid of `rate_hz` ticks per second (clamped to 1..=1000) starting
    /// now; at most `max_catch_up` ticks are due per call (a stalled host
    /// does not burst).
    #[must_use]
    pub fn new(rate_hz: u32, max_catch_up: u32) -> Self {
        Self {
            start: Instant::now(),
            period: Duration::from_nanos(1_000_000_000 / u64::from(rate_hz.clamp(1, 1000))),
            counted: 0,
            max_catch_up: u64::from(max_catch_up.max(1)),
        }
    }

    /// The ticks due since the last call (ticks beyond the catch-up bound
    /// are dropped from the grid).
    pub fn due(&mut self) -> u64 {
        let elapsed = self.start.elapsed().as_nanos();
        let on_grid = u64::try_from(elapsed / self.period.as_nanos()).unwrap_or(u64::MAX);
        let due = on_grid.saturating_sub(self.counted);
        self.counted = on_grid;
        due.min(self.max_catch_up)
    }

    /// The time until the next tick is due.
    #[must_use]
    pub fn until_next(&self) -> Duration {
        let next = self.period * u32::try_from(self.counted + 1).unwrap_or(u32::MAX);
        next.saturating_sub(self.start.elapsed())
    }
}
