//! Bounded catch-up: exact drops, counted, the frame's work bounded.

use laige_core::clock::SyntheticClock;
use laige_sim::World;
use laige_sim::{GameLoop, GameLoopOptions, OnTick};

/// The time at which `k` ticks are due at 60 Hz from the reference.
fn due_at(k: u64) -> i64 {
    (k * 1_000_000_000).div_ceil(60) as i64
}

#[test]
fn overload_drops_exactly_the_documented_amount() {
    let mut world = World::default();
    world.register_system("noop", 0, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let options = GameLoopOptions {
        tick_rate_hz: 60,
        max_catch_up_ticks: 2,
        ..GameLoopOptions::default()
    };
    let mut game = GameLoop::with_clock(world, schedule, options, clock.clone()).unwrap();
    game.frame().unwrap();

    // Demands of 10, 18 and 26 ticks with a cap of 2: drops 8, 16, 24.
    let mut consumed = 0;
    for (want, drop) in [(10_u64, 8_u64), (18, 16), (26, 24)] {
        consumed += want;
        clock.set_ns(due_at(consumed));
        let f = game.frame().unwrap();
        assert_eq!(f.ticks_run, 2);
        assert_eq!(f.dropped_ticks, drop);
    }
    let s = game.stats();
    assert_eq!(s.dropped_ticks, 48);
    assert_eq!(s.dropped_frames, 3);
    assert_eq!(s.ticks, 6);
    assert_eq!(game.current_tick(), 6);

    // The dropped demand is gone: the next frame runs only its own time.
    clock.set_ns(due_at(consumed + 1));
    let f = game.frame().unwrap();
    assert_eq!((f.ticks_run, f.dropped_ticks), (1, 0));
}

#[test]
fn sustained_overload_stays_bounded_per_frame() {
    let mut world = World::default();
    world.register_system("noop", 0, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut game =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    game.frame().unwrap();
    let mut max_ticks_in_a_frame = 0;
    let mut ticks = 0;
    let mut hook = OnTick(|_: &World, _| ticks += 1);
    for _ in 0..100 {
        clock.advance_ns(500_000_000); // 30 ticks due per frame
        let f = game.frame_with(&mut hook).unwrap();
        max_ticks_in_a_frame = max_ticks_in_a_frame.max(f.ticks_run);
        assert_eq!(f.dropped_ticks, 25);
    }
    assert_eq!(max_ticks_in_a_frame, 5);
    assert_eq!(ticks, 500);
    let s = game.stats();
    assert_eq!(
        (s.ticks, s.dropped_ticks, s.dropped_frames),
        (500, 2500, 100)
    );
}

#[test]
fn a_demand_of_exactly_the_cap_drops_nothing() {
    let world = World::default();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut game =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    game.frame().unwrap();
    clock.set_ns(due_at(5));
    let f = game.frame().unwrap();
    assert_eq!((f.ticks_run, f.dropped_ticks), (5, 0));
    clock.set_ns(due_at(11));
    let f = game.frame().unwrap();
    assert_eq!((f.ticks_run, f.dropped_ticks), (5, 1));
}
