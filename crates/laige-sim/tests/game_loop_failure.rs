//! Failure behaviour: stale/foreign schedules, failing and panicking
//! systems and hooks. A failed tick is not counted, fires no hook, and each
//! later frame fails the same way.

use laige_core::clock::SyntheticClock;
use laige_core::diag::capture_events;
use laige_core::{Error, ErrorCode, EventId};
use laige_sim::{GameLoop, GameLoopOptions, LoopHooks, OnTick};
use laige_sim::{SystemSchedule, World, events};

const TICK: i64 = 16_666_667;

fn world_with_counter() -> World {
    let mut world = World::default();
    world.spawn((0_u32,));
    world
        .register_system("bump", 0, |ctx| {
            for v in ctx.query_mut::<&mut u32>() {
                *v += 1;
            }
            Ok(())
        })
        .unwrap();
    world
}

fn counter(world: &World) -> u32 {
    world.ecs().query::<&u32>().iter().copied().sum()
}

fn looped(world: World, schedule: SystemSchedule) -> (GameLoop<SyntheticClock>, SyntheticClock) {
    let clock = SyntheticClock::new(0);
    let g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    (g, clock)
}

fn assert_fails_untouched(g: &mut GameLoop<SyntheticClock>, clock: &SyntheticClock, id: EventId) {
    if g.state() == laige_sim::LoopState::Init {
        // The first frame only takes the reference: nothing is due yet.
        assert_eq!(g.frame().unwrap().ticks_run, 0);
    }
    let before_tick = g.current_tick();
    let before_counter = counter(g.world());
    let before_hash = g.world().state_hash();
    let mut fired = 0;
    for _ in 0..3 {
        clock.advance_ns(2 * TICK);
        let err = g
            .frame_with(&mut OnTick(|_: &World, _| fired += 1))
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert_eq!(err.id(), id);
    }
    assert_eq!(fired, 0, "a failed tick fires no hook");
    assert_eq!(g.current_tick(), before_tick, "the tick count freezes");
    assert_eq!(counter(g.world()), before_counter, "no system ran");
    assert_eq!(g.world().state_hash(), before_hash);
    assert_eq!(
        g.stats().dropped_ticks,
        0,
        "a failing loop accounts no drops"
    );
}

#[test]
fn stale_schedule_fails_every_frame_and_runs_nothing() {
    let mut world = world_with_counter();
    let schedule = world.schedule_systems();
    world.register_system("late", 1, |_| Ok(())).unwrap();
    let (mut g, clock) = looped(world, schedule);
    assert_fails_untouched(&mut g, &clock, events::SCHEDULE_STALE);
    assert_eq!(g.stats().frames, 4);
}

#[test]
fn registering_through_the_loop_makes_its_schedule_stale_until_replaced() {
    let world = world_with_counter();
    let schedule = world.schedule_systems();
    let (mut g, clock) = looped(world, schedule);
    g.frame().unwrap();
    clock.advance_ns(TICK);
    g.frame().unwrap();
    assert_eq!(g.current_tick(), 1);
    g.world_mut()
        .register_system("late", 1, |_| Ok(()))
        .unwrap();
    assert_fails_untouched(&mut g, &clock, events::SCHEDULE_STALE);
    let fresh = g.world().schedule_systems();
    g.set_schedule(fresh);
    // The frozen demand is re-derived: 6 periods passed, 5 run, 1 dropped.
    let f = g.frame().unwrap();
    assert_eq!((f.ticks_run, f.dropped_ticks), (5, 1));
    assert_eq!(g.current_tick(), 6);
}

#[test]
fn foreign_and_default_schedules_are_invalid() {
    let other = World::default();
    let foreign = other.schedule_systems();
    let (mut g, clock) = looped(world_with_counter(), foreign);
    assert_fails_untouched(&mut g, &clock, events::SCHEDULE_INVALID);
    let (mut g, clock) = looped(world_with_counter(), SystemSchedule::default());
    assert_fails_untouched(&mut g, &clock, events::SCHEDULE_INVALID);
}

#[test]
fn run_systems_rejects_before_dispatch() {
    let mut world = world_with_counter();
    let stale = world.schedule_systems();
    world.register_system("later", 5, |_| Ok(())).unwrap();
    let err = world.run_systems(&stale).unwrap_err();
    assert_eq!(err.id(), events::SCHEDULE_STALE);
    assert_eq!(world.tick(), 0);
    assert_eq!(counter(&world), 0);
    insta::assert_snapshot!(err.to_string(), @"system/schedule_stale: invalid argument: schedule = system generation 1; accepted: the current generation 2 (a system was registered after scheduling; call schedule_systems() again)");
    let err = world.run_systems(&SystemSchedule::default()).unwrap_err();
    assert_eq!(err.id(), events::SCHEDULE_INVALID);
    assert!(
        err.to_string().starts_with(
            "system/schedule_invalid: invalid argument: schedule = an unscheduled (default) schedule; \
             accepted: a schedule from this world's schedule_systems() (world #"
        ),
        "{err}"
    );
}

#[test]
fn a_failing_system_fails_the_tick_with_its_own_error() {
    const BOOM: EventId = EventId::new("game", "boom");
    let mut world = world_with_counter();
    world
        .register_system("fail_at_3", 10, |ctx| {
            if ctx.tick() == 2 {
                Err(Error::new(ErrorCode::OutOfRange, BOOM))
            } else {
                Ok(())
            }
        })
        .unwrap();
    world.register_system("after", 20, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let (mut g, clock) = looped(world, schedule);
    g.frame().unwrap();
    clock.advance_ns(5 * TICK);
    assert_eq!(g.world().failed_system(), None);
    let mut ticks = Vec::new();
    let (result, captured) =
        capture_events(|| g.frame_with(&mut OnTick(|_: &World, t| ticks.push(t))));
    let err = result.unwrap_err();
    // Returned, not logged: the caller decides and logs it once.
    assert!(captured.is_empty(), "{captured:?}");
    assert_eq!(g.world().failed_system(), Some("fail_at_3"));
    assert_eq!(err.id(), BOOM);
    assert_eq!(err.code(), ErrorCode::OutOfRange);
    // Ticks 1 and 2 completed; the third failed (after "bump" ran in it: no
    // rollback) and is not counted.
    assert_eq!(ticks, [1, 2]);
    assert_eq!(g.current_tick(), 2);
    assert_eq!(g.stats().ticks, 2);
    assert_eq!(counter(g.world()), 3);
    // Each later frame re-derives the demand and fails the same way.
    clock.advance_ns(TICK);
    assert_eq!(g.frame().unwrap_err().id(), BOOM);
    assert_eq!(g.current_tick(), 2);
}

#[test]
fn a_panicking_system_is_caught_and_named() {
    let mut world = world_with_counter();
    world
        .register_system("explodes", 1, |ctx| {
            if ctx.tick() >= 1 {
                panic!("kaboom at {}", ctx.tick());
            }
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    let (mut g, clock) = looped(world, schedule);
    g.frame().unwrap();
    clock.advance_ns(3 * TICK);
    let (result, captured) = capture_events(|| g.frame());
    let err = result.unwrap_err();
    assert!(captured.is_empty(), "{captured:?}");
    assert_eq!(g.world().failed_system(), Some("explodes"));
    assert_eq!(err.code(), ErrorCode::Failed);
    assert_eq!(err.id(), events::SYSTEM_PANICKED);
    assert_eq!(err.field(), Some("system"));
    assert_eq!(err.value(), Some("explodes"));
    assert!(err.detail().unwrap().contains("kaboom at 1"));
    assert_eq!(g.current_tick(), 1);
    // The loop is still usable: the world can be inspected and hashed.
    let _ = g.world().state_hash();
    clock.advance_ns(TICK);
    assert_eq!(g.frame().unwrap_err().id(), events::SYSTEM_PANICKED);
}

struct PanicOnTick;

impl LoopHooks for PanicOnTick {
    fn on_tick(&mut self, _world: &World, tick: u64) {
        assert!(tick < 2, "hook gives up at tick {tick}");
    }
}

#[test]
fn a_panicking_hook_is_caught() {
    let (mut g, clock) = looped(world_with_counter(), SystemSchedule::default());
    let schedule = g.world().schedule_systems();
    g.set_schedule(schedule);
    g.frame_with(&mut PanicOnTick).unwrap();
    clock.advance_ns(3 * TICK);
    let (result, captured) = capture_events(|| g.frame_with(&mut PanicOnTick));
    let err = result.unwrap_err();
    assert!(captured.is_empty(), "{captured:?}");
    // A hook, not a system, failed this frame (its tick completed).
    assert_eq!(g.world().failed_system(), None);
    assert_eq!(err.code(), ErrorCode::Failed);
    assert_eq!(err.id(), events::HOOK_PANICKED);
    assert_eq!(err.value(), Some("on_tick"));
    // The tick itself completed before its hook panicked.
    assert_eq!(g.current_tick(), 2);
}

#[test]
fn invalid_options_are_rejected_with_their_ids() {
    let bad_rate = GameLoopOptions {
        tick_rate_hz: 121,
        ..GameLoopOptions::default()
    };
    let err = GameLoop::new(World::default(), SystemSchedule::default(), bad_rate).unwrap_err();
    assert_eq!(
        (err.code(), err.id(), err.field()),
        (
            ErrorCode::InvalidArgument,
            events::TICK_RATE_INVALID,
            Some("tick_rate_hz")
        )
    );
    let bad_cap = GameLoopOptions {
        max_catch_up_ticks: 0,
        ..GameLoopOptions::default()
    };
    let err = GameLoop::new(World::default(), SystemSchedule::default(), bad_cap).unwrap_err();
    assert_eq!(
        (err.code(), err.id(), err.field()),
        (
            ErrorCode::InvalidArgument,
            events::CATCHUP_INVALID,
            Some("max_catch_up")
        )
    );
}
