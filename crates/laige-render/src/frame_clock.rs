//! [`FrameClock`]: the frame deadline grid and the pacer that waits for it.
//!
//! ```text
//! deadline_ns(n) = reference_ns + ⌈n × 10⁹ / frame_rate_hz⌉   (n 1-based; exact integers)
//! period_ns      = ⌊10⁹ / frame_rate_hz⌋                      (nominal: display, estimates)
//! ```
//!
//! The deadlines are the [`RateGrid`] at the frame rate — the same exact
//! grid the loop's ticks and an unpaced run's virtual frame times sit on:
//! frame `n`'s deadline is computed from `n`, never accumulated, so
//! nothing drifts (60 Hz: frame 60 lands exactly one second after the
//! reference, and each frame's deadline is the first nanosecond of its
//! interval, so an on-time frame at 60 Hz runs exactly the ticks due at
//! 60 Hz). Beyond `i64::MAX` ns (292 years) deadlines clamp to `i64::MAX`
//! instead of overflowing.
//!
//! # Pacing
//!
//! [`FrameClock::wait_frame`] sleeps natively until *deadline − margin*, then
//! spins to the deadline, yielding the CPU on every turn
//! (`std::thread::yield_now`, then a clock read). The
//! margin is learned online: every native sleep records its overshoot (how
//! much later than asked the OS woke the thread), and the margin is the
//! [`OVERSHOOT_PERCENTILE`] of the last [`OVERSHOOT_WINDOW`] overshoots plus
//! [`MARGIN_GUARD_NS`], clamped to [`MIN_MARGIN_NS`]..=[`MAX_MARGIN_NS`]. A
//! machine whose sleeps overshoot by ~60–150 µs (Linux's default 50 µs timer
//! slack plus the wake-up) spins only about that long per frame, instead of
//! a fixed worst-case margin. The cap matters on a loaded machine: an
//! overshoot of milliseconds is run-queue delay, not timer slack, and a
//! spinning thread is preempted just the same — spinning longer would burn
//! the core without landing earlier.
//!
//! The spin yields rather than busy-waits because the tail of the lateness
//! is set by what the scheduler does to a thread that is still running at
//! the deadline: a thread that burns the core in `spin_loop` is, to the
//! scheduler, a CPU hog like any other, and one preemption in its spin
//! costs a whole time slice of whatever runs instead (milliseconds). A
//! `sched_yield` on every turn returns at once when nothing else is
//! runnable (the precision stays at the clock read, about a microsecond)
//! and otherwise lets the waiting task run *before* the deadline, while
//! the pacer can still afford it, instead of at an arbitrary instant of
//! the spin. It is the spin the `spin_sleep` crate uses, whose tail is the
//! reference the pacing budget holds this one to. Measured figures are in
//! the laige-render crate docs (`cargo xtask bench`).
//!
//! Timer slack (`prctl(PR_SET_TIMERSLACK)`) would shrink the overshoot
//! further, but it changes a process-wide-visible property of the caller's
//! thread and needs `libc` and `unsafe`; the learned margin meets the budget
//! without it.

use std::time::Duration;

use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_core::{Error, RateGrid, Result};

use crate::events;

/// The lowest accepted frame rate (spec: 1–1000 Hz).
pub const MIN_FRAME_RATE_HZ: u32 = 1;
/// The highest accepted frame rate (spec: 1–1000 Hz; 1 ms frames).
pub const MAX_FRAME_RATE_HZ: u32 = 1000;
/// The default frame rate: the most common display refresh rate.
pub const DEFAULT_FRAME_RATE_HZ: u32 = 60;

/// Native sleeps whose overshoot the pacer remembers (about one second at
/// 60 Hz: the margin follows the machine's state within a second).
pub const OVERSHOOT_WINDOW: usize = 64;
/// The percentile of the remembered overshoots the margin covers: high
/// enough that ~1 frame in 10 reaches the spin late by more than the guard,
/// low enough that a few preemptions do not move it.
pub const OVERSHOOT_PERCENTILE: usize = 90;
/// Added to the learned overshoot percentile: covers most of the spread
/// between that percentile and the tail of the next sleeps' overshoots.
pub const MARGIN_GUARD_NS: i64 = 20_000;
/// The smallest margin: below ~20 µs the wake-up latency alone exceeds it.
pub const MIN_MARGIN_NS: i64 = 20_000;
/// The largest margin: 250 µs is 1.7× the measured p99 timer overshoot of a
/// plain sleep on the CI machines (145 µs measured). Beyond it the delay is
/// scheduling (run-queue wait on a loaded machine), which spinning cannot
/// beat; the cap bounds the spin at 1.5 % of a core at 60 Hz even then
/// (the budget is 2 %).
pub const MAX_MARGIN_NS: i64 = 250_000;
/// The margin before anything is learned: the measured p99 overshoot of a
/// plain `thread::sleep` on the CI machines (145 µs measured) plus the guard.
pub const INITIAL_MARGIN_NS: i64 = 165_000;

/// Configures a [`FrameClock`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameClockConfig {
    /// Frames per second, `MIN_FRAME_RATE_HZ..=MAX_FRAME_RATE_HZ` (default
    /// 60). Windowed: the display's refresh rate (the GL context's
    /// `refresh_rate_hz()`, or the target rate when that is 0); headless: the
    /// target pace.
    pub frame_rate_hz: u32,
}

impl FrameClockConfig {
    /// Checks the frame rate (the same check [`FrameClock::with_clock`]
    /// makes; the engine's config uses it too).
    ///
    /// # Errors
    /// `frame_rate_hz` outside `1..=1000` → `InvalidArgument`
    /// (`render_thread/frame_rate_invalid`, field `frame_rate_hz`), reported
    /// as a rate-limited Warn.
    pub fn validate(&self) -> Result<()> {
        let rate = self.frame_rate_hz;
        if !(MIN_FRAME_RATE_HZ..=MAX_FRAME_RATE_HZ).contains(&rate) {
            let err = Error::invalid_argument(
                events::FRAME_RATE_INVALID,
                "frame_rate_hz",
                rate,
                "1..=1000 Hz",
            );
            events::report(&err);
            return Err(err);
        }
        Ok(())
    }
}

impl Default for FrameClockConfig {
    fn default() -> Self {
        Self {
            frame_rate_hz: DEFAULT_FRAME_RATE_HZ,
        }
    }
}

/// The frame deadline grid on a monotonic clock, and its pacer.
///
/// ```
/// use laige_core::clock::SyntheticClock;
/// use laige_render::{FrameClock, FrameClockConfig};
///
/// let clock = SyntheticClock::new(1_000);
/// let fc = FrameClock::with_clock(FrameClockConfig { frame_rate_hz: 60 }, clock.clone())?;
/// assert_eq!(fc.period_ns(), 16_666_666); // nominal
/// assert_eq!(fc.deadline_ns(1), 1_000 + 16_666_667); // ⌈10⁹ / 60⌉
/// assert_eq!(fc.deadline_ns(3), 1_000 + 50_000_000); // exact, no drift
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Debug)]
pub struct FrameClock<C = SteadyClock> {
    clock: C,
    /// The deadline grid at the frame rate.
    grid: RateGrid,
    reference_ns: i64,
    pacer: Pacer,
}

impl FrameClock<SteadyClock> {
    /// A clock on the process's [`SteadyClock`], its reference the current
    /// reading. Bad rate → `InvalidArgument` (`render_thread/frame_rate_invalid`,
    /// field `frame_rate_hz`) and one rate-limited Warn event.
    ///
    /// # Errors
    /// `frame_rate_hz` outside `1..=1000`.
    pub fn new(config: FrameClockConfig) -> Result<Self> {
        Self::with_clock(config, SteadyClock)
    }
}

impl<C: MonotonicClock> FrameClock<C> {
    /// A clock on `clock` (tests pass a `SyntheticClock`), its reference the
    /// clock's current reading.
    ///
    /// # Errors
    /// `frame_rate_hz` outside `1..=1000` → `InvalidArgument`
    /// (`render_thread/frame_rate_invalid`), reported as a rate-limited Warn.
    pub fn with_clock(config: FrameClockConfig, clock: C) -> Result<Self> {
        config.validate()?;
        let grid = RateGrid::new(config.frame_rate_hz).ok_or_else(|| {
            Error::invalid_argument(
                events::FRAME_RATE_INVALID,
                "frame_rate_hz",
                0,
                "1..=1000 Hz",
            )
        })?;
        let reference_ns = clock.now_ns();
        Ok(Self {
            clock,
            grid,
            reference_ns,
            pacer: Pacer::default(),
        })
    }

    /// The frame rate in Hz.
    #[must_use]
    pub fn frame_rate_hz(&self) -> u32 {
        self.grid.hz()
    }

    /// The nominal frame period in ns (`⌊10⁹ / frame_rate_hz⌋`): for
    /// display and sleep estimates; deadlines come from the grid
    /// ([`deadline_ns`](Self::deadline_ns)), never from multiples of this.
    #[must_use]
    pub fn period_ns(&self) -> i64 {
        // At most 10⁹ (1 Hz): fits an i64.
        self.grid.nominal_period_ns().cast_signed()
    }

    /// The deadline grid (frame `n`'s deadline is `reference_ns +
    /// grid.start_ns(n)`).
    #[must_use]
    pub fn grid(&self) -> RateGrid {
        self.grid
    }

    /// The frame whose interval holds `reading_ns` (a reading of the
    /// clock): `0` before the first deadline, `n` from deadline `n` up to
    /// (not including) deadline `n + 1`.
    #[must_use]
    pub fn frame_at(&self, reading_ns: i64) -> u64 {
        self.grid
            .index_at(reading_ns.saturating_sub(self.reference_ns))
    }

    /// The grid's reference (frame 0's time) in ns.
    #[must_use]
    pub fn reference_ns(&self) -> i64 {
        self.reference_ns
    }

    /// The clock's current reading in ns.
    #[must_use]
    pub fn now_ns(&self) -> i64 {
        self.clock.now_ns()
    }

    /// Frame `n`'s deadline: `reference_ns + ⌈n × 10⁹ / frame_rate_hz⌉`
    /// ([`RateGrid::start_ns`]), exact, clamped to `i64::MAX` (never
    /// overflows).
    #[must_use]
    pub fn deadline_ns(&self, n: u64) -> i64 {
        self.reference_ns.saturating_add(self.grid.start_ns(n))
    }

    /// Moves the grid: frame `n`'s deadline becomes `reference_ns +
    /// grid.start_ns(n)`. Use after a pause so the next frames are not all
    /// "late".
    pub fn reanchor(&mut self, reference_ns: i64) {
        self.reference_ns = reference_ns;
    }

    /// [`reanchor`](Self::reanchor)s to the clock's current reading.
    pub fn reanchor_now(&mut self) {
        self.reference_ns = self.clock.now_ns();
    }

    /// The pacer's current sleep margin in ns (how early native sleep ends
    /// before the spin takes over).
    #[must_use]
    pub fn margin_ns(&self) -> i64 {
        self.pacer.margin_ns
    }

    /// Blocks until frame `n`'s deadline and returns its presentation time:
    /// the deadline when the call arrives before it, or the clock's reading
    /// when the call arrives late (the deadline already passed; a late frame
    /// presents when it can, never in the past).
    ///
    /// Sleeps natively to *deadline − margin*, then spins to the deadline
    /// (module docs). The wait reads time only through the clock `C`, so with
    /// a `SyntheticClock` it returns once another thread advances the clock
    /// to the deadline.
    pub fn wait_frame(&mut self, n: u64) -> i64 {
        let deadline = self.deadline_ns(n);
        let now = self.clock.now_ns();
        if now >= deadline {
            return now;
        }
        let mut now = now;
        loop {
            let remaining = deadline.saturating_sub(now);
            if remaining <= 0 {
                return deadline;
            }
            if remaining > self.pacer.margin_ns {
                let wake_at = deadline - self.pacer.margin_ns;
                let asked = wake_at - now;
                std::thread::sleep(Duration::from_nanos(asked.unsigned_abs()));
                now = self.clock.now_ns();
                self.pacer.record(now - wake_at);
            } else {
                // Spin by yielding (module docs, "Pacing").
                std::thread::yield_now();
                now = self.clock.now_ns();
            }
        }
    }
}

/// The learned sleep margin (module docs).
#[derive(Clone, Debug)]
struct Pacer {
    overshoots: [i64; OVERSHOOT_WINDOW],
    len: usize,
    next: usize,
    margin_ns: i64,
}

impl Default for Pacer {
    fn default() -> Self {
        Self {
            overshoots: [0; OVERSHOOT_WINDOW],
            len: 0,
            next: 0,
            margin_ns: INITIAL_MARGIN_NS,
        }
    }
}

impl Pacer {
    fn record(&mut self, overshoot_ns: i64) {
        self.overshoots[self.next] = overshoot_ns.clamp(0, MAX_MARGIN_NS);
        self.next = (self.next + 1) % OVERSHOOT_WINDOW;
        self.len = (self.len + 1).min(OVERSHOOT_WINDOW);
        if self.len < 4 {
            // Too few samples for a percentile: keep the initial margin.
            return;
        }
        let mut sorted = self.overshoots;
        let window = &mut sorted[..self.len];
        window.sort_unstable();
        // Nearest-rank percentile.
        let rank = (self.len * OVERSHOOT_PERCENTILE)
            .div_ceil(100)
            .clamp(1, self.len);
        let high = window[rank - 1];
        self.margin_ns = (high + MARGIN_GUARD_NS).clamp(MIN_MARGIN_NS, MAX_MARGIN_NS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_learns_a_high_percentile_that_ignores_outliers() {
        let mut p = Pacer::default();
        for _ in 0..3 {
            p.record(50_000);
        }
        assert_eq!(p.margin_ns, INITIAL_MARGIN_NS, "too few samples");
        p.record(50_000);
        assert_eq!(p.margin_ns, 50_000 + MARGIN_GUARD_NS);
        // Fill the window: 60 samples of 50 µs, 4 preemptions of 5 ms.
        for i in 0..OVERSHOOT_WINDOW {
            p.record(if i % 16 == 3 { 5_000_000 } else { 50_000 });
        }
        assert_eq!(p.margin_ns, 50_000 + MARGIN_GUARD_NS, "p90 ignores 4 of 64");
        // A machine whose timer overshoot really is larger moves the margin.
        for i in 0..OVERSHOOT_WINDOW {
            p.record(if i % 2 == 0 { 90_000 } else { 40_000 });
        }
        assert_eq!(p.margin_ns, 90_000 + MARGIN_GUARD_NS);
        // Sustained overload: capped.
        for _ in 0..OVERSHOOT_WINDOW {
            p.record(5_000_000);
        }
        assert_eq!(p.margin_ns, MAX_MARGIN_NS);
        for _ in 0..OVERSHOOT_WINDOW {
            p.record(-7);
        }
        assert_eq!(p.margin_ns, MIN_MARGIN_NS);
    }

    #[test]
    fn real_clock_wait_is_never_early() {
        let mut fc = FrameClock::new(FrameClockConfig {
            frame_rate_hz: 1000,
        })
        .expect("valid rate");
        for n in 1..=5 {
            let t = fc.wait_frame(n);
            assert!(fc.now_ns() >= fc.deadline_ns(n));
            assert!(t >= fc.deadline_ns(n));
        }
    }
}
