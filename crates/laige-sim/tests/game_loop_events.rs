//! The loop's events: fields, severity, and one event per rate window.
//!
//! One test function on purpose: the rate limiter is process-global, so
//! the assertions about "exactly once in the window" must not race other
//! tests emitting the same ids.

use laige_core::clock::SyntheticClock;
use laige_core::diag::{self, Severity, capture_events};
use laige_sim::{GameLoop, GameLoopOptions};
use laige_sim::{SystemSchedule, World, events};

fn due_at(k: u64) -> i64 {
    (k * 1_000_000_000).div_ceil(60) as i64
}

#[test]
fn loop_events_carry_the_spec_fields_and_are_rate_limited() {
    // -- loop/tick_dropped: demands 10/18/26 with a cap of 2.
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
    let before = diag::rate_stats(events::TICK_DROPPED, Severity::Warn);
    let ((), captured) = capture_events(|| {
        game.frame().unwrap();
        let mut consumed = 0;
        for want in [10, 18, 26] {
            consumed += want;
            clock.set_ns(due_at(consumed));
            game.frame().unwrap();
        }
    });
    let dropped: Vec<_> = captured
        .iter()
        .filter(|e| e.is(events::TICK_DROPPED))
        .collect();
    assert_eq!(dropped.len(), 1, "one event per rate window: {captured:?}");
    let e = dropped[0];
    assert_eq!(e.severity(), Severity::Warn);
    assert_eq!(e.field("dropped"), Some("8"));
    assert_eq!(e.field("total_dropped"), Some("8"));
    assert_eq!(e.field("max_catch_up"), Some("2"));
    assert_eq!(e.field("tick_rate_hz"), Some("60"));
    insta::assert_snapshot!(e.to_string(), @"WARN subsystem=loop event=tick_dropped dropped=8 total_dropped=8 max_catch_up=2 tick_rate_hz=60 fix=lower the per-tick work or the tick rate, or raise max_catch_up_ticks");
    // Every drop still counted while the event was suppressed.
    assert_eq!(game.stats().dropped_ticks, 48);
    let after = diag::rate_stats(events::TICK_DROPPED, Severity::Warn);
    assert_eq!(
        after.emitted + after.suppressed - before.emitted - before.suppressed,
        3
    );

    // -- loop/tick_rate_invalid and loop/catchup_invalid: one warn each.
    let ((), captured) = capture_events(|| {
        for rate in [7, 200] {
            let o = GameLoopOptions {
                tick_rate_hz: rate,
                ..GameLoopOptions::default()
            };
            assert!(GameLoop::new(World::default(), SystemSchedule::default(), o).is_err());
        }
        let o = GameLoopOptions {
            max_catch_up_ticks: 0,
            ..GameLoopOptions::default()
        };
        assert!(GameLoop::new(World::default(), SystemSchedule::default(), o).is_err());
    });
    let rate: Vec<_> = captured
        .iter()
        .filter(|e| e.is(events::TICK_RATE_INVALID))
        .collect();
    assert_eq!(rate.len(), 1, "{captured:?}");
    assert_eq!(rate[0].field("field"), Some("tick_rate_hz"));
    assert_eq!(rate[0].field("value"), Some("7"));
    assert_eq!(rate[0].field("code"), Some("InvalidArgument"));
    let catchup: Vec<_> = captured
        .iter()
        .filter(|e| e.is(events::CATCHUP_INVALID))
        .collect();
    assert_eq!(catchup.len(), 1);
    assert_eq!(catchup[0].field("field"), Some("max_catch_up"));

    // -- system/schedule_stale: reported once per window, every frame fails.
    let mut world = World::default();
    let stale = world.schedule_systems();
    world.register_system("late", 0, |_| Ok(())).unwrap();
    let clock = SyntheticClock::new(0);
    let mut game =
        GameLoop::with_clock(world, stale, GameLoopOptions::default(), clock.clone()).unwrap();
    let ((), captured) = capture_events(|| {
        game.frame().unwrap();
        for _ in 0..5 {
            clock.advance_ns(20_000_000);
            assert!(game.frame().is_err());
        }
    });
    let stale_events: Vec<_> = captured
        .iter()
        .filter(|e| e.is(events::SCHEDULE_STALE))
        .collect();
    assert_eq!(stale_events.len(), 1, "{captured:?}");
    assert!(
        captured.iter().all(|e| !e.is(events::TICK_DROPPED)),
        "the loop adds no event of its own to a failing tick"
    );

    // -- world/spawn_budget_exceeded: once, with its fields.
    let mut world = World::with_config(laige_sim::WorldConfig {
        churn: laige_sim::ChurnBudget {
            max_spawns_per_frame: 2,
            max_despawns_per_frame: 2,
        },
    })
    .unwrap();
    let ((), captured) = capture_events(|| {
        world.begin_frame();
        for i in 0..6 {
            world.spawn((i,));
        }
    });
    let over: Vec<_> = captured
        .iter()
        .filter(|e| e.is(events::SPAWN_BUDGET_EXCEEDED))
        .collect();
    assert_eq!(over.len(), 1);
    insta::assert_snapshot!(over[0].to_string(), @"WARN subsystem=world event=spawn_budget_exceeded frame=1 spawns=3 budget=2");
}
