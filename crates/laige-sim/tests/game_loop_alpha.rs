//! The loop's presentation alpha: in [0, 1), never NaN, from the integer
//! tick grid; late frames clamp; paused frames freeze it.

use laige_core::clock::{MonotonicClock, SyntheticClock};
use laige_core::{ErrorCode, EventId};
use laige_sim::World;
use laige_sim::{Alpha, GameLoop, GameLoopOptions};

fn steps(seed: u64) -> impl FnMut() -> i64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 120_000_000) as i64
    }
}

#[test]
fn alpha_stays_in_the_half_open_unit_interval() {
    for rate in [20_u32, 60, 120] {
        let mut world = World::default();
        world.register_system("noop", 0, |_| Ok(())).unwrap();
        let schedule = world.schedule_systems();
        let clock = SyntheticClock::new(0);
        let options = GameLoopOptions {
            tick_rate_hz: rate,
            max_catch_up_ticks: 3,
            ..GameLoopOptions::default()
        };
        let mut g = GameLoop::with_clock(world, schedule, options, clock.clone()).unwrap();
        g.frame().unwrap();
        let mut next = steps(u64::from(rate));
        for _ in 0..5_000 {
            clock.advance_ns(next());
            let f = g.frame().unwrap();
            let a = f.alpha.as_f32();
            assert!(!a.is_nan() && (0.0..1.0).contains(&a), "{a}");
            assert!(f.alpha.as_f64() < 1.0);
            // The exact integer definition: the remainder past the consumed
            // tick grid (drops included), as a fraction of the period.
            let elapsed = i128::from(g.elapsed_running_ns());
            let consumed = i128::from(g.stats().ticks + g.stats().dropped_ticks);
            let num = elapsed * i128::from(rate) - consumed * 1_000_000_000;
            assert_eq!(i128::from(f.alpha.ppb()), num);
        }
    }
}

#[test]
fn a_late_frame_clamps_below_one() {
    const FAIL: EventId = EventId::new("test_presentation", "fail");
    let mut world = World::default();
    world
        .register_system("fails_later", 0, |ctx| {
            if ctx.tick() >= 1 {
                Err(laige_core::Error::new(ErrorCode::Failed, FAIL))
            } else {
                Ok(())
            }
        })
        .unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    g.frame().unwrap();
    clock.advance_ns(16_666_667);
    g.frame().unwrap();
    clock.advance_ns(100_000_000);
    assert!(g.frame().is_err());
    // The sim is frozen behind the clock: the presented instant is more
    // than a whole tick past the last completed one.
    let late = g.alpha_at(200_000_000);
    assert_eq!(late, Alpha::MAX);
    assert!(late.as_f32() < 1.0);
}

#[test]
fn alpha_before_start_is_zero() {
    let world = World::default();
    let schedule = world.schedule_systems();
    let g = GameLoop::with_clock(
        world,
        schedule,
        GameLoopOptions::default(),
        SyntheticClock::new(5),
    )
    .unwrap();
    assert_eq!(g.alpha_at(1_000_000_000), Alpha::ZERO);
}

#[test]
fn paused_frames_freeze_the_alpha() {
    let mut world = World::default();
    world.register_system("noop", 0, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    g.frame().unwrap();
    clock.advance_ns(3 * 16_666_667 + 4_000_000);
    let f = g.frame().unwrap();
    assert_eq!(f.ticks_run, 3);
    // 4 ms past tick 3's start (50_000_001 ns): 0.24 of a 60 Hz period.
    assert_eq!(f.alpha, g.tick_grid().alpha_at(54_000_001, 3));
    assert_eq!(f.alpha.ppb(), 240_000_060);
    // Paused: frames continue, the alpha holds still.
    g.pause().unwrap();
    clock.advance_ns(7_000_000);
    let paused = g.frame().unwrap();
    assert_eq!(paused.ticks_run, 0);
    assert_eq!(paused.alpha, f.alpha);
    assert_eq!(g.alpha_at(clock.now_ns()), f.alpha);
}
