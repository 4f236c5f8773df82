//! The profiler: fixed-size rings of tick, frame and per-system durations.
//!
//! A [`Profiler`] allocates all of its storage once, in [`Profiler::new`]:
//! one ring for tick durations, one for frame durations, one per system
//! slot, and one scratch buffer for the summaries. Recording is O(1) — one
//! store and two index bumps — and never allocates, locks or logs. A
//! disabled profiler costs its caller one branch (the loop checks
//! [`Profiler::is_enabled`] before reading the clock at all).
//!
//! The game loop feeds it (`GameLoop::set_profiler`): the tick body's
//! duration per completed tick, each system's duration within the tick, and
//! each frame's duration. A failed tick is not recorded (it is not counted
//! either). Durations are wall-clock nanoseconds from
//! [`SteadyClock`](laige_core::clock::SteadyClock) — diagnostics only: they
//! never enter the tick count, the state hash or a replay.
//!
//! ```
//! use laige_sim::{Profiler, ProfilerConfig};
//!
//! let mut p = Profiler::new(ProfilerConfig { capacity: 4, max_systems: 1 })?;
//! for ns in [10, 20, 30, 40, 50] {
//!     p.record_tick(ns); // the ring keeps the last 4: 20 30 40 50
//! }
//! let s = p.tick_summary();
//! assert_eq!((s.samples, s.recorded), (4, 5));
//! assert_eq!((s.mean_ns, s.p50_ns, s.p99_ns, s.max_ns), (35, 30, 50, 50));
//! # Ok::<(), laige_core::Error>(())
//! ```

use std::fmt;

use laige_core::{Error, Result};

use crate::{emit, events};

/// Default samples per ring: 1024 — about 17 s of ticks at 60 Hz, enough
/// for a stable p99 (10 samples above it) at 8 KiB per ring.
pub const DEFAULT_RING_CAPACITY: usize = 1024;
/// Largest accepted ring capacity: 2^20 samples (8 MiB per ring).
pub const MAX_RING_CAPACITY: usize = 1 << 20;
/// Default per-system slots: 32 (more systems than a small game registers;
/// systems beyond the slots are timed into no ring and counted in
/// [`Profiler::untracked_system_samples`]).
pub const DEFAULT_MAX_SYSTEMS: usize = 32;
/// Largest accepted number of per-system slots.
pub const MAX_SYSTEM_SLOTS: usize = 1024;

/// The profiler's fixed sizes, chosen at construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfilerConfig {
    /// Samples kept per ring, 1..=[`MAX_RING_CAPACITY`] (default
    /// [`DEFAULT_RING_CAPACITY`]).
    pub capacity: usize,
    /// Per-system rings, 0..=[`MAX_SYSTEM_SLOTS`] (default
    /// [`DEFAULT_MAX_SYSTEMS`]); slot `i` is the `i`-th system in schedule
    /// order.
    pub max_systems: usize,
}

impl Default for ProfilerConfig {
    fn default() -> Self {
        Self {
            capacity: DEFAULT_RING_CAPACITY,
            max_systems: DEFAULT_MAX_SYSTEMS,
        }
    }
}

/// Summary statistics over the samples currently in a ring.
///
/// Percentiles are nearest-rank over the sorted window: `p50` is the
/// `ceil(n/2)`-th smallest sample, `p99` the `ceil(99n/100)`-th; the mean is
/// the floor of the integer mean. All zero when the ring is empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleSummary {
    /// Samples in the window (at most the capacity).
    pub samples: usize,
    /// Samples recorded since creation (or the last [`Profiler::clear`]).
    pub recorded: u64,
    /// Mean duration over the window, in ns.
    pub mean_ns: u64,
    /// Median (nearest rank), in ns.
    pub p50_ns: u64,
    /// 99th percentile (nearest rank), in ns.
    pub p99_ns: u64,
    /// Largest sample in the window, in ns.
    pub max_ns: u64,
}

impl fmt::Display for SampleSummary {
    /// `n=<samples> mean=<ms> p50=<ms> p99=<ms> max=<ms>` (ms with 3
    /// decimals).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "n={} mean={} p50={} p99={} max={}",
            self.samples,
            Ms(self.mean_ns),
            Ms(self.p50_ns),
            Ms(self.p99_ns),
            Ms(self.max_ns)
        )
    }
}

/// Nanoseconds rendered as milliseconds with three decimals (integer math).
struct Ms(u64);

impl fmt::Display for Ms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0 / 1_000;
        write!(f, "{}.{:03}ms", us / 1_000, us % 1_000)
    }
}

#[derive(Debug, Default)]
struct Ring {
    samples: Box<[u64]>,
    next: usize,
    len: usize,
    recorded: u64,
}

impl Ring {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            samples: vec![0; capacity].into_boxed_slice(),
            next: 0,
            len: 0,
            recorded: 0,
        }
    }

    #[inline]
    fn record(&mut self, ns: u64) {
        let cap = self.samples.len();
        if let Some(slot) = self.samples.get_mut(self.next) {
            *slot = ns;
            self.next += 1;
            if self.next == cap {
                self.next = 0;
            }
            if self.len < cap {
                self.len += 1;
            }
            self.recorded += 1;
        }
    }

    fn clear(&mut self) {
        self.next = 0;
        self.len = 0;
        self.recorded = 0;
    }

    fn summarize(&self, scratch: &mut Vec<u64>) -> SampleSummary {
        let n = self.len;
        if n == 0 {
            return SampleSummary {
                recorded: self.recorded,
                ..SampleSummary::default()
            };
        }
        // The window is the first `len` slots (the ring fills from 0 and
        // only wraps once full), so no unwrapping is needed. `scratch` has
        // the ring capacity reserved: no allocation.
        scratch.clear();
        scratch.extend_from_slice(&self.samples[..n]);
        scratch.sort_unstable();
        let sum: u128 = scratch.iter().map(|&v| u128::from(v)).sum();
        let mean = u64::try_from(sum / n as u128).unwrap_or(u64::MAX);
        let rank = |num: usize, den: usize| (n * num).div_ceil(den).max(1) - 1;
        SampleSummary {
            samples: n,
            recorded: self.recorded,
            mean_ns: mean,
            p50_ns: scratch[rank(1, 2)],
            p99_ns: scratch[rank(99, 100)],
            max_ns: scratch[n - 1],
        }
    }
}

#[derive(Debug, Default)]
struct SystemSlot {
    name: &'static str,
    ring: Ring,
}

/// Fixed-size rings of tick, frame and per-system durations.
///
/// `Profiler::default()` is a disabled profiler with no storage (records
/// are no-ops, summaries are empty): what a loop holds when none is
/// attached.
#[derive(Debug, Default)]
#[doc = include_str!("profiler.md")]
pub struct Profiler {
    enabled: bool,
    ticks: Ring,
    frames: Ring,
    systems: Box<[SystemSlot]>,
    untracked_systems: u64,
    scratch: Vec<u64>,
}

impl Profiler {
    /// An enabled profiler with all storage allocated now.
    ///
    /// # Errors
    /// [`ErrorCode::InvalidArgument`](laige_core::ErrorCode::InvalidArgument)
    /// `profiler/config_invalid` (after one rate-limited warn) when
    /// `capacity` is outside 1..=[`MAX_RING_CAPACITY`] or `max_systems`
    /// above [`MAX_SYSTEM_SLOTS`].
    pub fn new(config: ProfilerConfig) -> Result<Self> {
        if !(1..=MAX_RING_CAPACITY).contains(&config.capacity) {
            let err = Error::invalid_argument(
                events::PROFILER_CONFIG_INVALID,
                "capacity",
                config.capacity,
                format!("1..={MAX_RING_CAPACITY} samples"),
            );
            emit::report(&err);
            return Err(err);
        }
        if config.max_systems > MAX_SYSTEM_SLOTS {
            let err = Error::invalid_argument(
                events::PROFILER_CONFIG_INVALID,
                "max_systems",
                config.max_systems,
                format!("0..={MAX_SYSTEM_SLOTS}"),
            );
            emit::report(&err);
            return Err(err);
        }
        Ok(Self {
            enabled: true,
            ticks: Ring::with_capacity(config.capacity),
            frames: Ring::with_capacity(config.capacity),
            systems: (0..config.max_systems)
                .map(|_| SystemSlot {
                    name: "",
                    ring: Ring::with_capacity(config.capacity),
                })
                .collect(),
            untracked_systems: 0,
            scratch: Vec::with_capacity(config.capacity),
        })
    }

    /// Whether records are taken.
    #[inline]
    #[must_use]
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Turns recording on or off (the rings keep their samples).
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
    }

    /// Samples per ring (0 for a default, storage-less profiler).
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.ticks.samples.len()
    }

    /// Records one completed tick's duration. O(1), no allocation; a no-op
    /// when disabled.
    #[inline]
    pub fn record_tick(&mut self, ns: u64) {
        if self.enabled {
            self.ticks.record(ns);
        }
    }

    /// Records one frame's duration. O(1), no allocation; a no-op when
    /// disabled.
    #[inline]
    pub fn record_frame(&mut self, ns: u64) {
        if self.enabled {
            self.frames.record(ns);
        }
    }

    /// Records one system's duration in slot `slot` (its position in the
    /// schedule). A slot that changes system (a new schedule) starts its
    /// ring afresh; a slot beyond `max_systems` is counted in
    /// [`untracked_system_samples`](Self::untracked_system_samples). O(1),
    /// no allocation; a no-op when disabled.
    #[inline]
    pub fn record_system(&mut self, slot: usize, name: &'static str, ns: u64) {
        if !self.enabled {
            return;
        }
        match self.systems.get_mut(slot) {
            Some(s) => {
                if !std::ptr::eq(s.name, name) {
                    s.name = name;
                    s.ring.clear();
                }
                s.ring.record(ns);
            }
            None => self.untracked_systems += 1,
        }
    }

    /// System samples that had no slot (more systems than `max_systems`).
    #[must_use]
    pub fn untracked_system_samples(&self) -> u64 {
        self.untracked_systems
    }

    /// Summary of the tick ring. Sorts a copy in the preallocated scratch
    /// buffer: O(capacity log capacity), no allocation.
    pub fn tick_summary(&mut self) -> SampleSummary {
        self.ticks.summarize(&mut self.scratch)
    }

    /// Summary of the frame ring (see [`tick_summary`](Self::tick_summary)).
    pub fn frame_summary(&mut self) -> SampleSummary {
        self.frames.summarize(&mut self.scratch)
    }

    /// The name and summary of system slot `slot`, or `None` when the slot
    /// does not exist or has never recorded.
    pub fn system_summary(&mut self, slot: usize) -> Option<(&'static str, SampleSummary)> {
        let s = self.systems.get(slot)?;
        if s.ring.recorded == 0 {
            return None;
        }
        Some((s.name, s.ring.summarize(&mut self.scratch)))
    }

    /// Number of per-system slots.
    #[must_use]
    pub fn system_slots(&self) -> usize {
        self.systems.len()
    }

    /// Forgets every sample (capacity and enabled state are kept).
    pub fn clear(&mut self) {
        self.ticks.clear();
        self.frames.clear();
        for s in &mut self.systems {
            s.ring.clear();
            s.name = "";
        }
        self.untracked_systems = 0;
    }

    /// Writes the human-readable report: one line for ticks, one for
    /// frames, one per system slot that recorded (cold path; the lines are
    /// what the engine prints at shutdown).
    ///
    /// # Errors
    /// Whatever `out` returns.
    pub fn write_report(&mut self, out: &mut impl fmt::Write) -> fmt::Result {
        let ticks = self.tick_summary();
        writeln!(out, "tick   {ticks}")?;
        let frames = self.frame_summary();
        writeln!(out, "frame  {frames}")?;
        for slot in 0..self.systems.len() {
            if let Some((name, s)) = self.system_summary(slot) {
                writeln!(out, "system {name}: {s}")?;
            }
        }
        if self.untracked_systems > 0 {
            writeln!(out, "untracked system samples: {}", self.untracked_systems)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_core::ErrorCode;

    fn profiler(capacity: usize, max_systems: usize) -> Profiler {
        Profiler::new(ProfilerConfig {
            capacity,
            max_systems,
        })
        .unwrap()
    }

    #[test]
    fn rejects_bad_sizes_naming_the_field() {
        let e = Profiler::new(ProfilerConfig {
            capacity: 0,
            max_systems: 1,
        })
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert_eq!(e.field(), Some("capacity"));
        let e = Profiler::new(ProfilerConfig {
            capacity: 8,
            max_systems: MAX_SYSTEM_SLOTS + 1,
        })
        .unwrap_err();
        assert_eq!(e.field(), Some("max_systems"));
        assert_eq!(e.id(), events::PROFILER_CONFIG_INVALID);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut p = profiler(100, 0);
        for ns in (1..=100).rev() {
            p.record_tick(ns);
        }
        let s = p.tick_summary();
        assert_eq!(s.samples, 100);
        assert_eq!(s.p50_ns, 50);
        assert_eq!(s.p99_ns, 99);
        assert_eq!(s.max_ns, 100);
        assert_eq!(s.mean_ns, 50); // 5050 / 100 floored
        let mut one = profiler(8, 0);
        one.record_frame(7);
        let s = one.frame_summary();
        assert_eq!((s.p50_ns, s.p99_ns, s.max_ns, s.mean_ns), (7, 7, 7, 7));
    }

    #[test]
    fn ring_keeps_only_the_last_capacity_samples() {
        let mut p = profiler(3, 0);
        for ns in [1000, 1, 2, 3] {
            p.record_tick(ns);
        }
        let s = p.tick_summary();
        assert_eq!((s.samples, s.recorded, s.max_ns), (3, 4, 3));
    }

    #[test]
    fn disabled_and_default_profilers_record_nothing() {
        let mut p = profiler(4, 1);
        p.set_enabled(false);
        p.record_tick(5);
        p.record_frame(5);
        p.record_system(0, "a", 5);
        assert_eq!(p.tick_summary(), SampleSummary::default());
        assert_eq!(p.system_summary(0), None);
        let mut d = Profiler::default();
        assert!(!d.is_enabled());
        d.set_enabled(true);
        d.record_tick(5); // no storage: a no-op, never a panic
        d.record_system(3, "x", 1);
        assert_eq!(d.tick_summary().samples, 0);
        assert_eq!(d.capacity(), 0);
    }

    #[test]
    fn system_slots_track_names_and_overflow() {
        let mut p = profiler(4, 2);
        p.record_system(0, "integrate", 10);
        p.record_system(1, "attract", 20);
        p.record_system(2, "extra", 30);
        assert_eq!(p.system_summary(0).unwrap().0, "integrate");
        assert_eq!(p.system_summary(1).unwrap().1.max_ns, 20);
        assert_eq!(p.untracked_system_samples(), 1);
        p.record_system(0, "other", 1);
        let (name, s) = p.system_summary(0).unwrap();
        assert_eq!((name, s.recorded), ("other", 1));
    }

    #[test]
    fn report_lists_rings() {
        let mut p = profiler(4, 1);
        p.record_tick(1_500_000);
        p.record_frame(16_000_000);
        p.record_system(0, "integrate", 250_000);
        let mut out = String::new();
        p.write_report(&mut out).unwrap();
        insta::assert_snapshot!(out, @r"
        tick   n=1 mean=1.500ms p50=1.500ms p99=1.500ms max=1.500ms
        frame  n=1 mean=16.000ms p50=16.000ms p99=16.000ms max=16.000ms
        system integrate: n=1 mean=0.250ms p50=0.250ms p99=0.250ms max=0.250ms
        ");
    }
}
