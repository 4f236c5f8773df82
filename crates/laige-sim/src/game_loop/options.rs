//! [`GameLoopOptions`], its ranges and defaults, and validation.

use laige_core::{Error, Result};

use crate::{emit, events};

/// Lowest accepted tick rate: 20 Hz (50 ms per tick — below this, input
/// latency from a single tick becomes visible).
pub const MIN_TICK_RATE_HZ: u32 = 20;
/// Highest accepted tick rate: 120 Hz (8.3 ms per tick — above this the
/// per-tick budget cannot hold the reference workload).
pub const MAX_TICK_RATE_HZ: u32 = 120;
/// Default tick rate: 60 Hz (the common display rate, so a 60 Hz display
/// shows one tick per frame).
pub const DEFAULT_TICK_RATE_HZ: u32 = 60;
/// Default catch-up bound: 5 ticks per frame (~83 ms of simulation at
/// 60 Hz: a healthy 30 Hz machine runs 2 per frame and never drops; a
/// drop means a real overload; game_loop.md).
pub const DEFAULT_MAX_CATCH_UP_TICKS: u32 = 5;
/// Highest accepted catch-up bound: 20 ticks per frame. At the slowest
/// accepted tick rate (20 Hz, 50 ms per tick) that is one second of
/// simulation in one frame, and at 120 Hz 167 ms. A machine that fell
/// further behind than that cannot afford to replay the backlog: running
/// it takes longer than the backlog itself on an overloaded machine, so
/// the next frame is due later still and the loop spirals (with no bound,
/// one frame at a 40 ms tick ran 406 ticks in 16 s). Beyond the bound
/// the backlog is dropped, counted and reported instead.
pub const MAX_CATCH_UP_TICKS: u32 = 20;

/// What the debug-build zero-allocation check (a completed tick must not allocate) does when a completed
/// tick allocated. Release builds compile the check out whatever this says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AllocCheck {
    /// Emit `alloc/sim_tick_allocation` and fail a debug assertion (panic):
    /// a developer assertion, and the default.
    #[default]
    Panic,
    /// Emit `alloc/sim_tick_allocation` and return an
    /// [`ErrorCode::Failed`](laige_core::ErrorCode::Failed) error from the
    /// frame (the tick itself completed and is counted).
    Error,
    /// Do not check.
    Off,
}

/// Game loop configuration. Validated by [`GameLoop`](super::GameLoop)
/// construction.
///
/// | field | range | default | rejected with |
/// |---|---|---|---|
/// | `tick_rate_hz` | 20..=120 | 60 | `loop/tick_rate_invalid` (field `tick_rate_hz`) |
/// | `max_catch_up_ticks` | 1..=20 ([`MAX_CATCH_UP_TICKS`]) | 5 | `loop/catchup_invalid` (field `max_catch_up`) |
///
/// Both rejections are `InvalidArgument` plus one rate-limited warn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameLoopOptions {
    /// Simulation ticks per second.
    pub tick_rate_hz: u32,
    /// Most ticks one frame may run; the rest of a larger demand is dropped
    /// (counted and logged). Bounds per-frame work, not the rate.
    pub max_catch_up_ticks: u32,
    /// The zero-allocation check's failure mode (debug builds).
    pub alloc_check: AllocCheck,
}

impl Default for GameLoopOptions {
    fn default() -> Self {
        Self {
            tick_rate_hz: DEFAULT_TICK_RATE_HZ,
            max_catch_up_ticks: DEFAULT_MAX_CATCH_UP_TICKS,
            alloc_check: AllocCheck::default(),
        }
    }
}

impl GameLoopOptions {
    /// Checks every field (tick rate first).
    ///
    /// # Errors
    /// `loop/tick_rate_invalid` or `loop/catchup_invalid`
    /// (InvalidArgument), after one rate-limited warn.
    pub fn validate(&self) -> Result<()> {
        if !(MIN_TICK_RATE_HZ..=MAX_TICK_RATE_HZ).contains(&self.tick_rate_hz) {
            let err = Error::invalid_argument(
                events::TICK_RATE_INVALID,
                "tick_rate_hz",
                self.tick_rate_hz,
                "20..=120 Hz",
            );
            emit::report(&err);
            return Err(err);
        }
        if !(1..=MAX_CATCH_UP_TICKS).contains(&self.max_catch_up_ticks) {
            let err = Error::invalid_argument(
                events::CATCHUP_INVALID,
                "max_catch_up",
                self.max_catch_up_ticks,
                "1..=20 ticks per frame",
            );
            emit::report(&err);
            return Err(err);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_core::ErrorCode;

    #[test]
    fn defaults_are_the_specs() {
        let o = GameLoopOptions::default();
        assert_eq!((o.tick_rate_hz, o.max_catch_up_ticks), (60, 5));
        assert!(o.validate().is_ok());
    }

    #[test]
    fn tick_rate_range_is_inclusive() {
        for (rate, ok) in [
            (0, false),
            (19, false),
            (20, true),
            (60, true),
            (120, true),
            (121, false),
        ] {
            let o = GameLoopOptions {
                tick_rate_hz: rate,
                ..GameLoopOptions::default()
            };
            assert_eq!(o.validate().is_ok(), ok, "rate {rate}");
        }
    }

    #[test]
    fn rejections_name_id_field_and_range() {
        let e = GameLoopOptions {
            tick_rate_hz: 7,
            ..GameLoopOptions::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert_eq!(e.id(), events::TICK_RATE_INVALID);
        insta::assert_snapshot!(e.to_string(), @"loop/tick_rate_invalid: invalid argument: tick_rate_hz = 7; accepted: 20..=120 Hz");
        let e = GameLoopOptions {
            max_catch_up_ticks: 0,
            ..GameLoopOptions::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.id(), events::CATCHUP_INVALID);
        assert_eq!(e.field(), Some("max_catch_up"));
        insta::assert_snapshot!(e.to_string(), @"loop/catchup_invalid: invalid argument: max_catch_up = 0; accepted: 1..=20 ticks per frame");
    }

    #[test]
    fn catch_up_bound_is_inclusive_and_bounded() {
        for (cap, ok) in [
            (0, false),
            (1, true),
            (MAX_CATCH_UP_TICKS, true),
            (MAX_CATCH_UP_TICKS + 1, false),
            (u32::MAX, false),
        ] {
            let o = GameLoopOptions {
                max_catch_up_ticks: cap,
                ..GameLoopOptions::default()
            };
            assert_eq!(o.validate().is_ok(), ok, "cap {cap}");
        }
        let e = GameLoopOptions {
            max_catch_up_ticks: u32::MAX,
            ..GameLoopOptions::default()
        }
        .validate()
        .unwrap_err();
        insta::assert_snapshot!(e.to_string(), @"loop/catchup_invalid: invalid argument: max_catch_up = 4294967295; accepted: 1..=20 ticks per frame");
    }
}
