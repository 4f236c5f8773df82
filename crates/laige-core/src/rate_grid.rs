//! The one time grid: `hz` equal intervals per second on the nanosecond
//! time line, in exact integers.
//!
//! Ticks, input stamps and frame deadlines all sit on a grid of this kind.
//! Interval `k` (0-based) covers the real instants `[k / hz, (k + 1) / hz)`
//! seconds after the grid's origin. On integer nanoseconds that gives
//!
//! ```text
//! index_at(t)  = ⌊t × hz / 10⁹⌋          which interval holds t
//! start_ns(k)  = ⌈k × 10⁹ / hz⌉          the first ns that lies in interval k (or later)
//! span_ns(k)   = ⌊k × 10⁹ / hz⌋          the length of k whole intervals, rounded down
//! fraction(t, k) = t × hz − k × 10⁹       how far t lies past the start of k, in
//!                                         parts per billion of one interval
//! ```
//!
//! Nothing is accumulated: every value is re-derived from `t` or `k`, so
//! nothing drifts — 10 s at 60 Hz is exactly 600 intervals, and
//! `start_ns(3600)` at 60 Hz is exactly 60 s. `index_at(start_ns(k)) == k`
//! and `index_at(start_ns(k) − 1) == k − 1` for every `k ≥ 1` the `i64` time
//! line holds: the two directions are exact inverses on the grid points.
//!
//! Every product is taken in 128-bit integers (`index_at` splits the time
//! into whole seconds and the rest first), so each conversion is exact for
//! any `i64` time, any `u64` index and any `u32` rate; a result beyond its
//! type saturates.
//!
//! [`Alpha`] is the fraction as a presentation factor: how far an instant
//! lies past the last consumed interval, clamped into `[0, 1)`.

/// Nanoseconds per second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// An exact grid of `hz` equal intervals per second (see the module docs).
///
/// ```
/// use laige_core::RateGrid;
/// let g = RateGrid::new(60).expect("60 Hz is a rate");
/// assert_eq!(g.index_at(10_000_000_000), 600); // 10 s, no drift
/// assert_eq!(g.index_at(16_666_666), 0); // one ns short of interval 1
/// assert_eq!(g.start_ns(1), 16_666_667);
/// assert_eq!(g.index_at(g.start_ns(1)), 1);
/// assert_eq!(g.span_ns(1), 16_666_666);
/// assert_eq!(g.start_ns(3600), 60_000_000_000);
/// assert_eq!(g.fraction_ppb(8_333_334, 0), 500_000_040); // half an interval, rounded up
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RateGrid {
    hz: u32,
}

impl RateGrid {
    /// A grid of `hz` intervals per second; `None` for 0.
    #[must_use]
    pub const fn new(hz: u32) -> Option<Self> {
        if hz == 0 { None } else { Some(Self { hz }) }
    }

    /// Intervals per second.
    #[must_use]
    pub const fn hz(self) -> u32 {
        self.hz
    }

    /// The interval that holds `time_ns`: `⌊time_ns × hz / 10⁹⌋`, exact. A
    /// negative time (before the origin) counts as interval 0.
    #[inline]
    #[must_use]
    pub const fn index_at(self, time_ns: i64) -> u64 {
        if time_ns <= 0 {
            return 0;
        }
        let t = time_ns as u64;
        let hz = self.hz as u64;
        // Whole seconds × hz can exceed u64 for rates above ~2·10⁹ Hz:
        // u128, then saturate.
        let whole = (t / NANOS_PER_SEC) as u128 * hz as u128;
        let part = ((t % NANOS_PER_SEC) as u128 * hz as u128) / NANOS_PER_SEC as u128;
        let sum = whole + part;
        if sum > u64::MAX as u128 {
            u64::MAX
        } else {
            sum as u64
        }
    }

    /// The first nanosecond that lies in interval `index` (or later):
    /// `⌈index × 10⁹ / hz⌉`, saturating at `i64::MAX`.
    #[inline]
    #[must_use]
    pub const fn start_ns(self, index: u64) -> i64 {
        let ns = (index as u128 * NANOS_PER_SEC as u128).div_ceil(self.hz as u128);
        if ns > i64::MAX as u128 {
            i64::MAX
        } else {
            ns as i64
        }
    }

    /// The length of `count` whole intervals, rounded down:
    /// `⌊count × 10⁹ / hz⌋`, saturating at `u64::MAX`.
    #[inline]
    #[must_use]
    pub const fn span_ns(self, count: u64) -> u64 {
        let ns = count as u128 * NANOS_PER_SEC as u128 / self.hz as u128;
        if ns > u64::MAX as u128 {
            u64::MAX
        } else {
            ns as u64
        }
    }

    /// The length of one interval rounded down, `⌊10⁹ / hz⌋`: a nominal
    /// figure for display and sleep estimates. Positions on the grid come
    /// from [`start_ns`](Self::start_ns), never from multiples of this.
    #[must_use]
    pub const fn nominal_period_ns(self) -> u64 {
        NANOS_PER_SEC / self.hz as u64
    }

    /// How far `time_ns` lies past the start of interval `index`, in parts
    /// per billion of one interval: `time_ns × hz − index × 10⁹` in exact
    /// 128-bit arithmetic, 0 when `time_ns` lies before that start (a
    /// negative time counts as 0), saturating at `u64::MAX`. With
    /// `index = index_at(time_ns)` the result is in `0..10⁹`; a caller
    /// holding an older index sees values of a whole interval or more.
    #[inline]
    #[must_use]
    pub const fn fraction_ppb(self, time_ns: i64, index: u64) -> u64 {
        let t = if time_ns < 0 { 0 } else { time_ns as u64 };
        let num = t as u128 * self.hz as u128;
        let base = index as u128 * NANOS_PER_SEC as u128;
        if num <= base {
            0
        } else if num - base > u64::MAX as u128 {
            u64::MAX
        } else {
            (num - base) as u64
        }
    }

    /// The presentation factor of `time_ns` when `index` intervals have
    /// been consumed: [`fraction_ppb`](Self::fraction_ppb) as an [`Alpha`]
    /// (clamped to [`Alpha::MAX`] when `time_ns` lies a whole interval or
    /// more past them).
    ///
    /// ```
    /// use laige_core::{Alpha, RateGrid};
    /// let g = RateGrid::new(60).expect("60 Hz is a rate");
    /// assert_eq!(g.alpha_at(8_333_334, 0).ppb(), 500_000_040);
    /// assert_eq!(g.alpha_at(1_000_000_000, 0), Alpha::MAX); // late
    /// assert_eq!(g.alpha_at(1, 5), Alpha::ZERO); // consumed ahead of the time
    /// ```
    #[inline]
    #[must_use]
    pub const fn alpha_at(self, time_ns: i64, index: u64) -> Alpha {
        Alpha::from_ppb(self.fraction_ppb(time_ns, index))
    }
}

/// The presentation interpolation factor: how far the presented instant
/// lies past the last completed tick, as a fraction of the tick period, in
/// `[0, 1)`.
///
/// Held as integer parts per billion (`0..10⁹`), computed on the tick
/// grid ([`RateGrid::alpha_at`]), then converted for rendering:
/// [`as_f32`](Self::as_f32) and [`as_f64`](Self::as_f64) are never NaN and
/// never reach 1. A late frame — one more whole tick behind than the clock
/// says (failing ticks, a frame read between a tick's due time and its
/// run) — clamps to [`Alpha::MAX`], the last representable value below 1,
/// so a renderer never extrapolates past the last completed tick.
///
/// The float conversions are for rendering only: an `Alpha` never enters
/// simulation state, the tick count or the state hash.
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

impl std::fmt::Debug for Alpha {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Alpha({}/1e9)", self.ppb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(hz: u32) -> RateGrid {
        RateGrid::new(hz).expect("non-zero rate")
    }

    /// floor(t × hz / 1e9) in 128-bit, the definition.
    fn reference_index(t: i64, hz: u32) -> u64 {
        if t <= 0 {
            return 0;
        }
        u64::try_from(i128::from(t) * i128::from(hz) / 1_000_000_000).unwrap_or(u64::MAX)
    }

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn zero_rate_is_not_a_grid() {
        assert_eq!(RateGrid::new(0), None);
        assert_eq!(grid(1).hz(), 1);
    }

    #[test]
    fn index_equals_the_wide_product_everywhere() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for hz in (1..=1000).chain([u32::MAX / 2, u32::MAX]) {
            for _ in 0..300 {
                let v = xorshift(&mut x);
                let t = (v >> 1) as i64 >> (v % 40);
                assert_eq!(
                    grid(hz).index_at(t),
                    reference_index(t, hz),
                    "hz {hz} t {t}"
                );
            }
            assert_eq!(grid(hz).index_at(i64::MAX), reference_index(i64::MAX, hz));
            assert_eq!(grid(hz).index_at(i64::MIN), 0);
        }
    }

    #[test]
    fn start_and_index_are_inverse_on_grid_points() {
        for hz in [1_u32, 20, 30, 60, 90, 120, 144, 240, 1000] {
            let g = grid(hz);
            for k in 1..=2_000_u64 {
                let s = g.start_ns(k);
                assert_eq!(g.index_at(s), k, "hz {hz} k {k}");
                assert_eq!(g.index_at(s - 1), k - 1, "hz {hz} k {k}");
                assert_eq!(g.fraction_ppb(s - 1, k), 0);
                assert!(g.fraction_ppb(s, k) < u64::from(hz));
            }
            // Far out on the time line too.
            for k in [1_u64 << 40, 1 << 50, 9_000_000_000] {
                let s = g.start_ns(k);
                if s < i64::MAX {
                    assert_eq!(g.index_at(s), k);
                    assert_eq!(g.index_at(s - 1), k - 1);
                }
            }
        }
    }

    #[test]
    fn spans_and_starts_do_not_drift() {
        let g = grid(60);
        assert_eq!(g.start_ns(3600), 60_000_000_000);
        assert_eq!(g.span_ns(3600), 60_000_000_000);
        assert_eq!(g.span_ns(1), 16_666_666);
        assert_eq!(g.start_ns(1), 16_666_667);
        assert_eq!(grid(120).span_ns(7), 58_333_333);
        assert_eq!(grid(20).span_ns(u64::MAX), u64::MAX);
        assert_eq!(grid(20).start_ns(u64::MAX), i64::MAX);
        assert_eq!(g.nominal_period_ns(), 16_666_666);
        // Every start lies within one ns above the rounded-down span.
        for k in 0..10_000_u64 {
            let d = g.start_ns(k) as u64 - g.span_ns(k);
            assert!(d <= 1, "k {k}");
        }
    }

    #[test]
    fn fraction_is_the_sub_interval_remainder() {
        let g = grid(60);
        assert_eq!(g.fraction_ppb(8_333_334, 0), 500_000_040);
        assert_eq!(g.fraction_ppb(16_666_667, 1), 20);
        assert_eq!(g.fraction_ppb(0, 0), 0);
        assert_eq!(g.fraction_ppb(-7, 0), 0);
        assert_eq!(g.fraction_ppb(1, 5), 0); // index ahead of the time
        // A whole interval behind: at least 10⁹.
        assert!(g.fraction_ppb(1_000_000_000, 0) >= 1_000_000_000);
        let mut x: u64 = 7;
        for _ in 0..10_000 {
            let t = (xorshift(&mut x) >> 2) as i64;
            let k = g.index_at(t);
            assert!(g.fraction_ppb(t, k) < 1_000_000_000, "t {t}");
        }
    }

    #[test]
    fn alpha_is_the_sub_interval_remainder() {
        let g = grid(60);
        let a = g.alpha_at(8_333_334, 0);
        assert_eq!(a.ppb(), 500_000_040);
        assert!((a.as_f64() - 0.5).abs() < 1e-6);
        assert_eq!(g.alpha_at(16_666_667, 1).ppb(), 20);
        assert_eq!(g.alpha_at(0, 0), Alpha::ZERO);
        // Consumed ahead of the clock: 0, not negative.
        assert_eq!(g.alpha_at(1, 5), Alpha::ZERO);
    }

    #[test]
    fn late_frames_clamp_below_one() {
        let late = grid(60).alpha_at(1_000_000_000, 0);
        assert_eq!(late, Alpha::MAX);
        assert!(late.as_f32() < 1.0);
        assert!(late.as_f64() < 1.0);
        assert_eq!(late.as_f32(), F32_BELOW_ONE);
        // Just below a whole tick still converts below 1 in f32.
        let near = Alpha::from_ppb(999_999_990);
        assert!(near.as_f32() < 1.0 && !near.as_f32().is_nan());
        assert_eq!(Alpha::from_ppb(u64::MAX), Alpha::MAX);
        assert_eq!(format!("{:?}", Alpha::from_ppb(5)), "Alpha(5/1e9)");
    }
}
