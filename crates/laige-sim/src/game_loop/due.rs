//! The exact integer due computation and the presentation alpha.
//!
//! All simulation time is integer ticks. The number of ticks due after
//! `elapsed_ns` of running time at `rate` Hz is
//!
//! ```text
//! due(elapsed) = floor(elapsed × rate / 10⁹)
//!              = (elapsed / 10⁹) × rate + (elapsed mod 10⁹) × rate / 10⁹
//! ```
//!
//! evaluated in integers only: the split form never overflows `u64` for
//! any `i64` elapsed (≤ 9.3·10⁹ s × 120 and < 10⁹ × 120), and since nothing
//! is accumulated, nothing drifts — the remainder is re-derived from the
//! clock on every frame. 10 s at 60 Hz is exactly 600 ticks, whatever the
//! frame steps (a floating millisecond accumulator ends at 599).

// det-allow-file(float-type, float-literal, float-cast): `Alpha` converts an exact integer fraction to f32/f64 for rendering only; it never enters sim state, the tick count or the state hash
#![expect(
    clippy::disallowed_types,
    reason = "Alpha converts an exact integer fraction to f32/f64 for rendering only; the det-allow-file above covers the same sites in the syn lint"
)]

use std::fmt;

/// Nanoseconds per second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Ticks due after `elapsed_ns` at `tick_rate_hz`:
/// `floor(elapsed_ns × tick_rate_hz / 10⁹)`, exact. A negative elapsed (a
/// clock reading below the reference) counts as 0.
///
/// ```
/// use laige_sim::due_ticks;
/// assert_eq!(due_ticks(10_000_000_000, 60), 600);
/// assert_eq!(due_ticks(16_666_666, 60), 0); // one ns short of the first tick
/// assert_eq!(due_ticks(16_666_667, 60), 1);
/// assert_eq!(due_ticks(-5, 60), 0);
/// ```
#[inline]
#[must_use]
pub const fn due_ticks(elapsed_ns: i64, tick_rate_hz: u32) -> u64 {
    if elapsed_ns <= 0 {
        return 0;
    }
    let elapsed = elapsed_ns as u64;
    let rate = tick_rate_hz as u64;
    (elapsed / NANOS_PER_SEC) * rate + (elapsed % NANOS_PER_SEC) * rate / NANOS_PER_SEC
}

/// Simulation time of `ticks` ticks at `tick_rate_hz`, in ns:
/// `floor(ticks × 10⁹ / tick_rate_hz)` (exact; saturates at `u64::MAX`).
///
/// ```
/// use laige_sim::ticks_to_ns;
/// assert_eq!(ticks_to_ns(3600, 60), 60_000_000_000); // 60.000 s, no drift
/// assert_eq!(ticks_to_ns(1, 60), 16_666_666);
/// ```
#[must_use]
pub fn ticks_to_ns(ticks: u64, tick_rate_hz: u32) -> u64 {
    if tick_rate_hz == 0 {
        return 0;
    }
    let ns = u128::from(ticks) * u128::from(NANOS_PER_SEC) / u128::from(tick_rate_hz);
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// The presentation interpolation factor: how far the presented instant
/// lies past the last completed tick, as a fraction of the tick period, in
/// `[0, 1)`.
///
/// Held as integer parts per billion (`0..10⁹`), computed from the same
/// integer clock as the due computation, then converted:
/// [`as_f32`](Self::as_f32) and [`as_f64`](Self::as_f64) are never NaN and never
/// reach 1. A late frame — one more whole tick behind than the clock says
/// (failing ticks, a frame read between a tick's due time and its run) —
/// clamps to [`Alpha::MAX`], the last representable value below 1.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Alpha {
    ppb: u32,
}

/// The largest `f32` below 1: `1 − 2⁻²⁴`.
const F32_BELOW_ONE: f32 = 1.0 - f32::EPSILON / 2.0;
/// The largest `f64` below 1: `1 − 2⁻⁵³`.
const F64_BELOW_ONE: f64 = 1.0 - f64::EPSILON / 2.0;

impl Alpha {
    /// Alpha 0: the presented instant is the last completed tick.
    pub const ZERO: Self = Self { ppb: 0 };
    /// The clamp for late frames: `(10⁹ − 1) / 10⁹`.
    pub const MAX: Self = Self {
        ppb: (NANOS_PER_SEC - 1) as u32,
    };

    /// From parts per billion, clamped to [`Alpha::MAX`].
    #[must_use]
    pub const fn from_ppb(ppb: u64) -> Self {
        if ppb >= NANOS_PER_SEC {
            Self::MAX
        } else {
            Self { ppb: ppb as u32 }
        }
    }

    /// The alpha of an instant `elapsed_ns` after the reference, when
    /// `ticks` ticks of the clock's tick grid have been consumed:
    /// `(elapsed × rate − ticks × 10⁹) / 10⁹`, clamped to `[0, MAX]`. In
    /// exact 128-bit integer arithmetic.
    #[must_use]
    pub fn at(elapsed_ns: i64, ticks: u64, tick_rate_hz: u32) -> Self {
        let num = i128::from(elapsed_ns.max(0)) * i128::from(tick_rate_hz)
            - i128::from(ticks) * i128::from(NANOS_PER_SEC);
        if num <= 0 {
            Self::ZERO
        } else {
            Self::from_ppb(u64::try_from(num).unwrap_or(u64::MAX))
        }
    }

    /// Parts per billion, `0..10⁹`.
    #[must_use]
    pub const fn ppb(self) -> u32 {
        self.ppb
    }

    /// As `f32` in `[0, 1)` (for rendering): the rounded value, clamped to
    /// the largest `f32` below 1 (`0.99999994`).
    #[must_use]
    pub fn as_f32(self) -> f32 {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "rounding to f32 is the point; clamped below 1 after"
        )]
        let v = (f64::from(self.ppb) / NANOS_PER_SEC as f64) as f32;
        v.min(F32_BELOW_ONE)
    }

    /// As `f64` in `[0, 1)`.
    #[must_use]
    pub fn as_f64(self) -> f64 {
        (f64::from(self.ppb) / NANOS_PER_SEC as f64).min(F64_BELOW_ONE)
    }
}

impl fmt::Debug for Alpha {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Alpha({}/1e9)", self.ppb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reference due: floor(elapsed × rate / 1e9) in 128-bit.
    fn reference(elapsed: i64, rate: u32) -> u64 {
        if elapsed <= 0 {
            return 0;
        }
        (i128::from(elapsed) * i128::from(rate) / 1_000_000_000) as u64
    }

    #[test]
    fn split_form_equals_the_wide_product_everywhere() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for rate in 20..=120 {
            for _ in 0..2_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let elapsed = (x >> 1) as i64 >> (x % 40); // spread magnitudes
                assert_eq!(due_ticks(elapsed, rate), reference(elapsed, rate));
            }
            assert_eq!(due_ticks(i64::MAX, rate), reference(i64::MAX, rate));
        }
    }

    #[test]
    fn tick_boundaries_are_exact() {
        for rate in [20_u32, 30, 60, 90, 120] {
            for k in 1..=1_000_u64 {
                // The first ns at which tick k is due: ceil(k e9 / rate).
                let t = (k * NANOS_PER_SEC).div_ceil(u64::from(rate)) as i64;
                assert_eq!(due_ticks(t, rate), k);
                assert_eq!(due_ticks(t - 1, rate), k - 1);
            }
        }
    }

    #[test]
    fn ticks_to_ns_has_no_drift() {
        assert_eq!(ticks_to_ns(3600, 60), 60_000_000_000);
        assert_eq!(ticks_to_ns(600, 60), 10_000_000_000);
        assert_eq!(ticks_to_ns(7, 120), 58_333_333);
        assert_eq!(ticks_to_ns(u64::MAX, 20), u64::MAX);
    }

    #[test]
    fn alpha_is_the_sub_tick_remainder() {
        // 60 Hz, 8_333_334 ns past the reference: half a tick (rounded up).
        let a = Alpha::at(8_333_334, 0, 60);
        assert_eq!(a.ppb(), 500_000_040);
        assert!((a.as_f64() - 0.5).abs() < 1e-6);
        assert_eq!(Alpha::at(16_666_667, 1, 60).ppb(), 20);
        assert_eq!(Alpha::at(0, 0, 60), Alpha::ZERO);
        // Consumed ahead of the clock: 0, not negative.
        assert_eq!(Alpha::at(1, 5, 60), Alpha::ZERO);
    }

    #[test]
    fn late_frames_clamp_below_one() {
        let late = Alpha::at(1_000_000_000, 0, 60);
        assert_eq!(late, Alpha::MAX);
        assert!(late.as_f32() < 1.0);
        assert!(late.as_f64() < 1.0);
        assert_eq!(late.as_f32(), F32_BELOW_ONE);
        // Just below a whole tick still converts below 1 in f32.
        let near = Alpha::from_ppb(999_999_990);
        assert!(near.as_f32() < 1.0 && !near.as_f32().is_nan());
        assert_eq!(Alpha::from_ppb(u64::MAX), Alpha::MAX);
    }
}
