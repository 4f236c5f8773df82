//! The alpha contract: in [0, 1), never NaN, from the integer clock; late
//! frames clamp; paused frames freeze it.

use laige_core::clock::SyntheticClock;
use laige_core::{ErrorCode, EventId, Fpx16_16};
use laige_sim::PresentationSnapshot;
use laige_sim::World;
use laige_sim::workload::{self, Position, WorkloadConfig};
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
fn snapshot_interpolates_between_the_last_two_ticks() {
    let mut world = World::default();
    workload::install::<Fpx16_16>(
        &mut world,
        &WorkloadConfig {
            entities: 64,
            ..WorkloadConfig::default()
        },
    )
    .unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    let mut snap = PresentationSnapshot::<Position<Fpx16_16>>::with_capacity(64);
    g.frame_with(&mut snap).unwrap();
    clock.advance_ns(3 * 16_666_667 + 4_000_000);
    let f = g.frame_with(&mut snap).unwrap();
    assert_eq!(f.ticks_run, 3);
    assert_eq!((snap.prev_tick(), snap.curr_tick()), (Some(2), 3));
    // prev/curr are exactly the workload's PrevPosition/Position now.
    for (e, prev, curr) in snap.pairs() {
        let p = g
            .world()
            .get_copied::<laige_sim::workload::PrevPosition<Fpx16_16>>(e)
            .unwrap();
        assert_eq!(prev.0, p.0);
        assert_eq!(curr, g.world().get_copied::<Position<Fpx16_16>>(e).unwrap());
    }
    // Interpolated points lie on the segment prev → curr.
    for ((_, [x, _]), (_, prev, curr)) in snap.interpolated(f.alpha).zip(snap.pairs()) {
        let (a, b) = (prev.0.x.to_f32(), curr.0.x.to_f32());
        assert!(x >= a.min(b) - 1e-3 && x <= a.max(b) + 1e-3);
    }
    // Paused: frames continue, the snapshot and alpha hold still.
    g.pause().unwrap();
    clock.advance_ns(7_000_000);
    let paused = g.frame_with(&mut snap).unwrap();
    assert_eq!(paused.alpha, f.alpha);
    assert_eq!(snap.curr_tick(), 3);
}
