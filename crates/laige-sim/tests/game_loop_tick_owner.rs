//! A hook that owns the ticks (`LoopHooks::run_tick`, what a network
//! session is): it runs or skips each due tick, the loop's tick accounting
//! moves on either way, `on_tick` fires for the ticks that ran, and its
//! error fails the frame like a failing system.

use laige_core::clock::SyntheticClock;
use laige_core::{Error, ErrorCode, EventId, Result};
use laige_sim::{DueTick, GameLoop, GameLoopOptions, LoopHooks, SystemSchedule, World};

/// Runs the schedule on even due ticks, skips odd ones, fails at `fail_at`.
#[derive(Default)]
struct EveryOther {
    due: u64,
    on_ticks: Vec<u64>,
    fail_at: Option<u64>,
}

impl LoopHooks for EveryOther {
    fn run_tick(
        &mut self,
        world: &mut World,
        schedule: &SystemSchedule,
    ) -> Option<Result<DueTick>> {
        let due = self.due;
        self.due += 1;
        if self.fail_at == Some(due) {
            return Some(Err(Error::new(
                ErrorCode::Failed,
                EventId::new("test", "owner_failed"),
            )));
        }
        Some(if due.is_multiple_of(2) {
            world.run_systems(schedule).map(|()| DueTick::Ran)
        } else {
            Ok(DueTick::Skipped)
        })
    }

    fn on_tick(&mut self, _world: &World, tick: u64) {
        self.on_ticks.push(tick);
    }
}

fn game() -> (GameLoop<SyntheticClock>, SyntheticClock) {
    let mut world = World::default();
    world.register_system("noop", 0, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let game =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    (game, clock)
}

#[test]
fn skipped_due_ticks_are_consumed_and_only_ticks_that_ran_count() {
    let (mut game, clock) = game();
    let mut owner = EveryOther::default();
    game.frame_with(&mut owner).unwrap();
    // 80 ms at 60 Hz: 4 due ticks (under the catch-up bound of 5); the
    // owner ran 2 of them.
    clock.advance_ns(80_000_000);
    let frame = game.frame_with(&mut owner).unwrap();
    assert_eq!(owner.due, 4);
    assert_eq!(frame.ticks_run, 2);
    assert_eq!((frame.dropped_ticks, game.stats().dropped_ticks), (0, 0));
    assert_eq!(game.current_tick(), 2);
    assert_eq!(game.stats().ticks, 2);
    assert_eq!(owner.on_ticks, [1, 2]);
    // Nothing more is due: the skipped ticks were used up, not owed.
    let again = game.frame_with(&mut owner).unwrap();
    assert_eq!((again.ticks_run, owner.due), (0, 4));
}

#[test]
fn an_owner_error_fails_the_frame_and_fires_no_hook() {
    let (mut game, clock) = game();
    let mut owner = EveryOther {
        fail_at: Some(2),
        ..EveryOther::default()
    };
    game.frame_with(&mut owner).unwrap();
    clock.advance_ns(80_000_000);
    let err = game.frame_with(&mut owner).unwrap_err();
    assert_eq!(err.id(), EventId::new("test", "owner_failed"));
    assert_eq!(owner.on_ticks, [1]);
    assert_eq!(game.current_tick(), 1);
}

#[test]
fn without_an_owner_the_loop_runs_the_schedule_itself() {
    let (mut game, clock) = game();
    game.frame().unwrap();
    clock.advance_ns(80_000_000);
    assert_eq!(game.frame().unwrap().ticks_run, 4);
    assert_eq!(game.current_tick(), 4);
}
