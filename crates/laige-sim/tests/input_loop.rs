//! Input through the game loop: the exact time → tick assignment at the
//! boundaries, delivery at the start of the right tick in (tick, time,
//! sequence) order, late and paused events, overflow, and no allocation in
//! steady state (this binary installs the counting allocator, so the
//! loop's zero-allocation window is live around every tick, delivery included).

use std::sync::{Arc, Mutex};

use laige_core::alloc_watch::{self, CountingAlloc};
use laige_core::clock::{MonotonicClock, SyntheticClock};
use laige_sim::events::QUEUE_OVERFLOW;
use laige_sim::input::{
    ButtonState, CoordSpace, InputKind, InputPoint, KeyCode, ScriptAt, ScriptedInput,
};
use laige_sim::{GameLoop, GameLoopOptions, OnTick};
use laige_sim::{LoopState, World};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

/// 60 Hz: the first ns of tick k's interval, ⌈k·10⁹/60⌉.
fn tick_start(k: i64) -> i64 {
    (k * 1_000_000_000 + 59) / 60
}

fn act(id: u32) -> InputKind {
    InputKind::Action { id, value: 0 }
}

type Seen = Arc<Mutex<Vec<(u64, u32, i64)>>>;

/// A loop whose one system records `(ctx.tick(), action id, time)` of
/// every action it is delivered, and checks the delivery order itself.
fn recording_game(start_ns: i64) -> (GameLoop<SyntheticClock>, SyntheticClock, Seen) {
    // Reserved so recording inside a tick does not allocate (the zero-allocation window is live).
    let seen: Seen = Arc::new(Mutex::new(Vec::with_capacity(256)));
    let sink = Arc::clone(&seen);
    let mut world = World::default();
    world
        .register_system("record", 0, move |ctx| {
            let input = ctx.input();
            assert!(input.is_sorted_by_key(|e| e.order_key()));
            assert!(input.iter().all(|e| e.tick == ctx.tick()));
            let mut out = sink.lock().unwrap();
            for ev in input {
                if let InputKind::Action { id, .. } = ev.kind {
                    out.push((ctx.tick(), id, ev.time_ns));
                }
            }
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(start_ns);
    let game =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    (game, clock, seen)
}

/// A copy of what was recorded (outside any tick), keeping the reserve.
fn take(seen: &Seen) -> Vec<(u64, u32, i64)> {
    let mut out = seen.lock().unwrap();
    let copy = out.clone();
    out.clear();
    copy
}

#[test]
fn events_land_on_the_tick_whose_interval_holds_them() {
    let base = 5_000;
    let (mut game, clock, seen) = recording_game(base);
    game.frame().unwrap(); // start: running time 0 = reading `base`
    // Either side of every boundary of the first 10 ticks.
    for k in 1..=10 {
        let b = base + tick_start(k);
        let before = game.input_stamp(b - 1);
        let at = game.input_stamp(b);
        assert_eq!(
            (before.tick, at.tick),
            ((k - 1) as u64, k as u64),
            "boundary {k}"
        );
        assert!(!before.late && !at.late);
        game.push_input(b - 1, act(100 + k as u32)).unwrap();
        game.push_input(b, act(200 + k as u32)).unwrap();
    }
    // Run 12 ticks, one per frame.
    for k in 1..=12 {
        clock.set_ns(base + tick_start(k));
        let f = game.frame().unwrap();
        assert_eq!(f.ticks_run, 1);
    }
    let got = take(&seen);
    let mut want = Vec::new();
    for k in 0..=10_i64 {
        if k >= 1 {
            want.push((k as u64, 200 + k as u32, tick_start(k)));
        }
        if k <= 9 {
            want.push((k as u64, 101 + k as u32, tick_start(k + 1) - 1));
        }
    }
    assert_eq!(got, want);
    assert_eq!(game.world().input().stats().delivered, 20);
    assert_eq!(game.world().input().stats().late, 0);
}

#[test]
fn same_tick_events_order_by_time_then_push_order() {
    let (mut game, clock, seen) = recording_game(0);
    game.frame().unwrap();
    game.push_input(900, act(3)).unwrap();
    game.push_input(100, act(1)).unwrap();
    game.push_input(900, act(4)).unwrap(); // same time as 3: pushed later
    game.push_input(500, act(2)).unwrap();
    clock.set_ns(tick_start(1));
    game.frame().unwrap();
    let ids: Vec<u32> = take(&seen).iter().map(|e| e.1).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
}

#[test]
fn late_events_go_to_the_next_tick_and_are_counted() {
    let (mut game, clock, seen) = recording_game(0);
    game.frame().unwrap();
    clock.set_ns(tick_start(3) + 10); // ticks 0, 1, 2 run
    assert_eq!(game.frame().unwrap().ticks_run, 3);
    // Tick 1's interval has passed: the event belongs to tick 3 now.
    let s = game.input_stamp(tick_start(1) + 7);
    assert_eq!((s.tick, s.late, s.time_ns), (3, true, tick_start(1) + 7));
    game.push_input(tick_start(1) + 7, act(1)).unwrap();
    game.push_input(tick_start(3) + 5, act(2)).unwrap(); // on time, tick 3
    clock.set_ns(tick_start(4));
    game.frame().unwrap();
    assert_eq!(
        take(&seen),
        [(3, 1, tick_start(1) + 7), (3, 2, tick_start(3) + 5)]
    );
    assert_eq!(game.world().input().stats().late, 1);
}

#[test]
fn paused_events_wait_for_the_next_tick_at_the_pause_instant() {
    let (mut game, clock, seen) = recording_game(0);
    game.frame().unwrap();
    clock.set_ns(tick_start(2) + 100);
    game.frame().unwrap(); // ticks 0, 1
    game.pause().unwrap();
    let pause_time = tick_start(2) + 100;
    clock.advance_ns(5_000_000_000); // 5 s in pause
    let s = game.input_stamp(clock.now_ns());
    assert_eq!((s.tick, s.time_ns, s.late), (2, pause_time, false));
    game.push_input_now(act(1)).unwrap();
    game.frame().unwrap(); // paused: nothing delivered
    assert!(take(&seen).is_empty());
    game.step().unwrap(); // single step: tick 2
    assert_eq!(take(&seen), [(2, 1, pause_time)]);
    // While still paused, the next event belongs to tick 3.
    game.push_input_now(act(2)).unwrap();
    game.resume().unwrap();
    assert_eq!(game.state(), LoopState::Running);
    // Resuming does not replay the pause; tick 3 runs when its time comes.
    clock.advance_ns(tick_start(3) - pause_time + 1_000);
    game.frame().unwrap();
    assert_eq!(take(&seen), [(3, 2, pause_time)]);
}

#[test]
fn events_before_start_belong_to_the_first_tick() {
    let (mut game, clock, seen) = recording_game(0);
    let s = game.input_stamp(123);
    assert_eq!((s.tick, s.time_ns), (0, 0));
    game.push_input(123, act(9)).unwrap();
    game.frame().unwrap();
    clock.set_ns(tick_start(1));
    game.frame().unwrap();
    assert_eq!(take(&seen), [(0, 9, 0)]);
}

#[test]
fn a_full_queue_rejects_counts_and_reports() {
    let (mut game, _clock, _seen) = recording_game(0);
    game.world_mut().input_mut().set_capacity(3).unwrap();
    for i in 0..3 {
        game.push_input(0, act(i)).unwrap();
    }
    let (result, events) = laige_core::diag::capture_events(|| game.push_input(0, act(3)));
    assert_eq!(result.unwrap_err().id(), QUEUE_OVERFLOW);
    assert!(events.iter().any(|e| e.is(QUEUE_OVERFLOW)));
    let stats = game.world().input().stats();
    assert_eq!((stats.pushed, stats.overflowed), (3, 1));
}

#[test]
fn a_script_delivers_the_same_ticks_whatever_the_frame_steps() {
    let script = || {
        ScriptedInput::new(
            60,
            [
                (ScriptAt::Tick(5), act(5)),
                (ScriptAt::TimeNs(tick_start(2)), act(2)),
                (ScriptAt::TimeNs(tick_start(9) - 1), act(8)),
                (ScriptAt::Tick(0), act(0)),
            ],
        )
        .unwrap()
    };
    let mut results = Vec::new();
    for step_ns in [16_666_667, 5_000_000, 40_000_000] {
        let (mut game, clock, seen) = recording_game(0);
        let mut s = script();
        while game.current_tick() < 12 {
            s.feed(&mut game);
            game.frame().unwrap();
            clock.advance_ns(step_ns);
        }
        assert_eq!(s.remaining(), 0);
        let ticks: Vec<(u64, u32)> = take(&seen).iter().map(|e| (e.0, e.1)).collect();
        results.push(ticks);
    }
    assert_eq!(results[0], [(0, 0), (2, 2), (5, 5), (8, 8)]);
    assert!(results.iter().all(|r| *r == results[0]));
}

#[test]
fn the_delivered_record_is_readable_after_each_tick() {
    let (mut game, clock, _seen) = recording_game(0);
    game.frame().unwrap();
    let key = InputKind::Key {
        key: KeyCode::SPACE,
        state: ButtonState::Pressed,
    };
    let mv = InputKind::MouseMove {
        position: InputPoint::from_units(10, 20),
        space: CoordSpace::World,
    };
    game.push_input(10, key).unwrap();
    game.push_input(tick_start(1) + 3, mv).unwrap();
    let mut record = Vec::with_capacity(16);
    clock.set_ns(tick_start(3));
    game.frame_with(&mut OnTick(|world: &World, tick: u64| {
        let q = world.input();
        assert_eq!(q.delivered_tick(), Some(tick - 1));
        for e in q.delivered() {
            record.push((e.tick, e.kind));
        }
    }))
    .unwrap();
    assert_eq!(record, [(0, key), (1, mv)]);
}

#[test]
fn steady_state_push_and_delivery_allocate_nothing() {
    assert!(alloc_watch::is_installed());
    let (mut game, clock, _seen) = recording_game(0);
    // The recording system's Vec would allocate; swap in a reader that
    // does not.
    let mut world = World::default();
    world
        .register_system("read", 0, |ctx| {
            let mut sum = 0_i64;
            for ev in ctx.input() {
                if let InputKind::Action { value, .. } = ev.kind {
                    sum += i64::from(value);
                }
            }
            assert!(sum >= 0);
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    drop(game);
    game =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    game.push_input(0, act(0)).unwrap(); // first push reserves the storage
    game.frame().unwrap();
    let ((), counts) = alloc_watch::count_allocs(|| {
        for _ in 0..300 {
            for i in 0..8 {
                let now = clock.now_ns() + i * 1_000;
                game.push_input(now, InputKind::Action { id: 1, value: 1 })
                    .unwrap();
            }
            clock.advance_ns(16_666_667);
            game.frame().unwrap();
        }
    });
    assert_eq!(counts.allocations(), 0, "{counts:?}");
    assert_eq!(game.world().input().stats().delivered, 1 + 300 * 8);
}
