//! Scripted input: a list of `(when, event)` mapped onto the exact tick grid
//! and fed to a queue ahead of the ticks it belongs to.

use laige_core::{Error, RateGrid, Result};

use super::event::InputKind;
use super::queue::InputQueue;
use crate::events::SCRIPT_INVALID;

/// When a scripted event happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScriptAt {
    /// At the start of tick `k`: time `⌈k × 10⁹ / rate⌉` ns, the first
    /// instant of its interval.
    Tick(u64),
    /// At running time `ns` (≥ 0): it belongs to tick `floor(ns × rate /
    /// 10⁹)`, the tick whose interval contains it.
    TimeNs(i64),
    /// Exactly at tick `tick` with running time `time_ns`, unchecked: a
    /// recorded event played back as it was delivered (a late event's
    /// time lies before its tick, an event stamped while paused at the
    /// pause instant).
    Exact {
        /// The tick the event was delivered at.
        tick: u64,
        /// Its recorded running time in ns.
        time_ns: i64,
    },
}

/// A scripted input source for headless runs: a list of `(when, event)`
/// fed to a loop's queue ahead of the ticks they belong to.
///
/// Times are mapped to ticks on the exact grid (not through the live
/// clock), so a script delivers the same events at the same ticks on every
/// run, paced or not, loaded or not.
///
/// ```
/// use laige_core::clock::SyntheticClock;
/// use laige_sim::input::{InputKind, ScriptAt, ScriptedInput};
/// use laige_sim::{GameLoop, GameLoopOptions, World};
///
/// let mut world = World::default();
/// world.register_system("noop", 0, |_| Ok(()))?;
/// let schedule = world.schedule_systems();
/// let clock = SyntheticClock::new(0);
/// let mut game = GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())?;
/// let mut script = ScriptedInput::new(60, [
///     (ScriptAt::Tick(3), InputKind::Action { id: 7, value: 1 }),
///     (ScriptAt::TimeNs(100_000_000), InputKind::Action { id: 8, value: 1 }), // tick 6
/// ])?;
/// script.feed(&mut game);
/// assert_eq!(game.world().input().pending_len(), 1); // tick 3 is within the next frame's reach
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ScriptedInput {
    /// `(tick, time_ns, kind)` sorted by (tick, time), stable.
    entries: Vec<(u64, i64, InputKind)>,
    next: usize,
}

impl ScriptedInput {
    /// A script for a loop ticking at `tick_rate_hz`. Entries may come in
    /// any order; equal (tick, time) keep their order.
    ///
    /// # Errors
    /// `input/script_invalid` (InvalidArgument) for a negative time or a
    /// tick rate of 0.
    pub fn new(
        tick_rate_hz: u32,
        entries: impl IntoIterator<Item = (ScriptAt, InputKind)>,
    ) -> Result<Self> {
        let Some(grid) = RateGrid::new(tick_rate_hz) else {
            return Err(laige_core::diag::reported(Error::invalid_argument(
                SCRIPT_INVALID,
                "tick_rate_hz",
                0,
                "the loop's tick rate (20..=120 Hz)",
            )));
        };
        let mut list = Vec::new();
        for (idx, (at, kind)) in entries.into_iter().enumerate() {
            let (tick, time) = match at {
                ScriptAt::Tick(k) => (k, grid.start_ns(k)),
                ScriptAt::TimeNs(ns) if ns >= 0 => (grid.index_at(ns), ns),
                ScriptAt::Exact { tick, time_ns } => (tick, time_ns),
                ScriptAt::TimeNs(ns) => {
                    return Err(laige_core::diag::reported(
                        Error::invalid_argument(
                            SCRIPT_INVALID,
                            "time_ns",
                            ns,
                            "a running time >= 0 ns",
                        )
                        .with_detail(format!("script entry {idx}")),
                    ));
                }
            };
            list.push((tick, time, kind));
        }
        list.sort_by_key(|&(tick, time, _)| (tick, time));
        Ok(Self {
            entries: list,
            next: 0,
        })
    }

    /// Entries not yet fed.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.entries.len() - self.next
    }

    /// Entries in the script.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the script has no entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Pushes every entry whose tick is `≤ until_tick` into `queue` (with
    /// its exact tick); returns how many were pushed. An entry the full
    /// queue rejects is counted there (overflow) and skipped.
    pub fn feed_until(&mut self, queue: &mut InputQueue, until_tick: u64) -> usize {
        let start = self.next;
        while let Some(&(tick, time, kind)) = self.entries.get(self.next) {
            if tick > until_tick {
                break;
            }
            self.next += 1;
            // A rejected entry was counted and reported by the queue.
            let _ = queue.push_at(tick, time, kind);
        }
        self.next - start
    }

    /// Feeds everything `target`'s next frame can reach: entries up to
    /// [`ScriptTarget::reach_tick`] (for a [`GameLoop`](crate::GameLoop),
    /// tick `current_tick + max_catch_up_ticks`: the next frame plus a
    /// single step before it). Call it once before every frame.
    pub fn feed(&mut self, target: &mut impl ScriptTarget) -> usize {
        let until = target.reach_tick();
        self.feed_until(target.input_queue_mut(), until)
    }
}

/// What a [`ScriptedInput`] feeds: a queue, and the last tick the next
/// frame can run. Implemented by [`GameLoop`](crate::GameLoop); the script
/// itself knows nothing of the loop, so input sits below the loop in the
/// module graph.
pub trait ScriptTarget {
    /// The last tick the next frame can run (entries up to it are fed).
    fn reach_tick(&self) -> u64;
    /// The queue the entries go to.
    fn input_queue_mut(&mut self) -> &mut InputQueue;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(id: u32) -> InputKind {
        InputKind::Action { id, value: 0 }
    }

    #[test]
    fn script_maps_times_to_the_tick_whose_interval_holds_them() {
        // 60 Hz: tick 1 starts at ceil(1e9/60) = 16_666_667 ns.
        let mut s = ScriptedInput::new(
            60,
            [
                (ScriptAt::TimeNs(16_666_667), act(2)),
                (ScriptAt::TimeNs(16_666_666), act(1)),
                (ScriptAt::Tick(0), act(0)),
            ],
        )
        .unwrap();
        let mut q = InputQueue::default();
        assert_eq!(s.feed_until(&mut q, 0), 2);
        assert_eq!(s.remaining(), 1);
        q.deliver(0);
        let got: Vec<_> = q.delivered().iter().map(|e| (e.time_ns, e.kind)).collect();
        assert_eq!(got, [(0, act(0)), (16_666_666, act(1))]);
        s.feed_until(&mut q, 10);
        q.deliver(1);
        assert_eq!(q.delivered()[0].kind, act(2));
        assert_eq!(
            ScriptedInput::new(60, [(ScriptAt::TimeNs(-1), act(0))])
                .unwrap_err()
                .id(),
            SCRIPT_INVALID
        );
    }

    #[test]
    fn a_tick_entry_starts_inside_its_own_interval() {
        for rate in [20_u32, 30, 60, 90, 120] {
            for k in [0_u64, 1, 2, 7, 59, 60, 61, 1_000, 123_457] {
                let s = ScriptedInput::new(rate, [(ScriptAt::Tick(k), act(0))]).unwrap();
                let (tick, t, _) = s.entries[0];
                assert_eq!(tick, k);
                let grid = RateGrid::new(rate).unwrap();
                assert_eq!(grid.index_at(t), k, "rate {rate} tick {k}");
                if k > 0 {
                    assert_eq!(grid.index_at(t - 1), k - 1);
                }
            }
        }
    }
}
