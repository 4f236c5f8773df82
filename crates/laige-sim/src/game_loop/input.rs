//! The loop's half of input: the exact time → tick assignment
//! ([`GameLoop::input_stamp`]) and stamped pushes. The contract is in
//! [`crate::input`] ("Which tick an event belongs to").

use laige_core::Result;
use laige_core::clock::MonotonicClock;

use super::{GameLoop, LoopState};
use crate::input::{InputKind, InputStamp};

impl<C: MonotonicClock> GameLoop<C> {
    /// Running time at a clock reading: ns since start with the paused
    /// spans removed; frozen at the pause instant while Paused; 0 before
    /// start (and for readings before the reference).
    #[must_use]
    pub fn running_time_at(&self, reading_ns: i64) -> i64 {
        if self.start_reference_ns.is_none() {
            return 0;
        }
        let at = match self.state {
            LoopState::Paused => reading_ns.min(self.paused_at_ns),
            _ => reading_ns,
        };
        at.saturating_sub(self.reference_ns).max(0)
    }

    /// Where an event that happened at `reading_ns` (a reading of this
    /// loop's clock) belongs: its running time, the tick whose interval
    /// holds it, or — when that tick already ran or was dropped — the next
    /// tick to run, marked late. Read off the loop's tick grid
    /// ([`laige_core::RateGrid::index_at`], the due computation's); see [`crate::input`] for the full rule.
    ///
    /// ```
    /// use laige_core::clock::SyntheticClock;
    /// use laige_sim::{GameLoop, GameLoopOptions, World};
    ///
    /// let mut world = World::default();
    /// world.register_system("noop", 0, |_| Ok(()))?;
    /// let schedule = world.schedule_systems();
    /// let clock = SyntheticClock::new(1_000);
    /// let mut game = GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())?;
    /// game.frame()?; // start: running time 0 is reading 1_000
    /// // 60 Hz: tick 1's interval starts at 16_666_667 ns of running time.
    /// assert_eq!(game.input_stamp(1_000 + 16_666_666).tick, 0);
    /// assert_eq!(game.input_stamp(1_000 + 16_666_667).tick, 1);
    /// clock.advance_ns(20_000_000);
    /// game.frame()?; // runs tick 0
    /// let late = game.input_stamp(1_000 + 5);
    /// assert_eq!((late.tick, late.late), (1, true));
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    #[must_use]
    pub fn input_stamp(&self, reading_ns: i64) -> InputStamp {
        self.input_stamp_at_time(self.running_time_at(reading_ns))
    }

    /// [`input_stamp`](Self::input_stamp) for a running time (ns since
    /// start, pauses excluded) instead of a clock reading.
    #[must_use]
    pub fn input_stamp_at_time(&self, time_ns: i64) -> InputStamp {
        let time_ns = time_ns.max(0);
        let next = self.world.tick();
        let slot = self.grid.index_at(time_ns);
        if slot >= self.consumed {
            InputStamp {
                tick: next.saturating_add(slot - self.consumed),
                time_ns,
                late: false,
            }
        } else {
            InputStamp {
                tick: next,
                time_ns,
                late: true,
            }
        }
    }

    /// Stamps `kind` at `reading_ns` and queues it in the world's input
    /// queue; returns its sequence number.
    ///
    /// # Errors
    /// `input/queue_overflow` when the queue is full (counted, reported).
    pub fn push_input(&mut self, reading_ns: i64, kind: InputKind) -> Result<u64> {
        let stamp = self.input_stamp(reading_ns);
        self.world.input_mut().push(stamp, kind)
    }

    /// [`push_input`](Self::push_input) at the clock's current reading.
    ///
    /// # Errors
    /// As [`push_input`](Self::push_input).
    pub fn push_input_now(&mut self, kind: InputKind) -> Result<u64> {
        let now = self.clock.now_ns();
        self.push_input(now, kind)
    }
}
