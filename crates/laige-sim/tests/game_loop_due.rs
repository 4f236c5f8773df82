//! The exact integer due computation through the loop: ExactTicksOverTenSeconds,
//! the 3600-frame no-drift criterion (60.000 s ± 0.001 s), irregular frame steps.

use laige_core::RateGrid;
use laige_core::clock::SyntheticClock;
use laige_sim::World;
use laige_sim::{GameLoop, GameLoopOptions};

fn counting_loop(rate: u32, cap: u32) -> (GameLoop<SyntheticClock>, SyntheticClock) {
    let mut world = World::default();
    world.register_system("noop", 0, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(1_000);
    let options = GameLoopOptions {
        tick_rate_hz: rate,
        max_catch_up_ticks: cap,
        ..GameLoopOptions::default()
    };
    let game = GameLoop::with_clock(world, schedule, options, clock.clone()).unwrap();
    (game, clock)
}

/// xorshift64: deterministic irregular steps.
fn steps(seed: u64, max_ns: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        1 + x % max_ns
    }
}

#[test]
fn exact_ticks_over_ten_seconds() {
    // 600 frames of 1/60 s rounded up to the ns: 10.0000002 s.
    let (mut game, clock) = counting_loop(60, 5);
    game.frame().unwrap();
    for _ in 0..600 {
        clock.advance_ns(16_666_667);
        game.frame().unwrap();
    }
    assert_eq!(game.current_tick(), 600);
    assert_eq!(game.stats().dropped_ticks, 0);

    // Exactly 10 s in 1 ms frames (a float ms accumulator of 1e-3 steps
    // ends at 599 here).
    let (mut game, clock) = counting_loop(60, 5);
    game.frame().unwrap();
    for _ in 0..10_000 {
        clock.advance_ns(1_000_000);
        game.frame().unwrap();
    }
    assert_eq!(game.current_tick(), 600);
    assert_eq!(game.stats().frames, 10_001);

    // The contrast: a floating millisecond accumulator over
    // the same 1 ms frames floors to 599.
    let (mut acc, mut float_ticks) = (0.0_f64, 0_u32);
    for _ in 0..10_000 {
        acc += 1.0;
        while acc >= 1000.0 / 60.0 {
            acc -= 1000.0 / 60.0;
            float_ticks += 1;
        }
    }
    assert_eq!(float_ticks, 599);
}

#[test]
fn exact_ticks_over_ten_seconds_with_irregular_steps() {
    for seed in [1_u64, 7, 0xdead_beef, 42_424_242] {
        let (mut game, clock) = counting_loop(60, 20);
        game.frame().unwrap();
        let mut next = steps(seed, 40_000_000);
        let mut elapsed = 0_u64;
        while elapsed < 10_000_000_000 {
            let step = next().min(10_000_000_000 - elapsed);
            clock.advance_ns(step as i64);
            elapsed += step;
            game.frame().unwrap();
            // The tick count is a pure function of the elapsed time.
            assert_eq!(
                game.current_tick(),
                RateGrid::new(60).unwrap().index_at(elapsed as i64)
            );
        }
        assert_eq!(game.current_tick(), 600, "seed {seed}");
    }
}

#[test]
fn every_rate_lands_exactly_on_its_count() {
    for rate in [20_u32, 30, 50, 60, 75, 90, 120] {
        let (mut game, clock) = counting_loop(rate, 20);
        game.frame().unwrap();
        let mut next = steps(u64::from(rate), 33_000_000);
        let mut elapsed = 0_u64;
        while elapsed < 10_000_000_000 {
            let step = next().min(10_000_000_000 - elapsed);
            clock.advance_ns(step as i64);
            elapsed += step;
            game.frame().unwrap();
        }
        assert_eq!(game.current_tick(), u64::from(rate) * 10, "rate {rate}");
    }
}

#[test]
fn thirty_six_hundred_frames_are_sixty_seconds_without_drift() {
    // The acceptance criterion: 3600 frames of one fixed step each
    // accumulate 60.0 s ± 0.001. Frame k presents at ceil(k × 1e9 / 60) ns
    // (the exact 60 Hz grid), so each frame runs exactly one tick.
    let (mut game, clock) = counting_loop(60, 5);
    game.frame().unwrap();
    let start = clock.clone();
    let base = {
        use laige_core::clock::MonotonicClock;
        start.now_ns()
    };
    for k in 1..=3600_i64 {
        clock.set_ns(base + (k as u64 * 1_000_000_000).div_ceil(60) as i64);
        let f = game.frame().unwrap();
        assert_eq!(f.ticks_run, 1, "frame {k}");
    }
    assert_eq!(game.current_tick(), 3600);
    assert_eq!(game.elapsed_sim_ns(), 60_000_000_000); // exactly, not ± 0.001
    let drift = game.elapsed_sim_ns().abs_diff(60_000_000_000);
    assert!(drift <= 1_000_000, "within ± 0.001 s");
    assert_eq!(game.frame_count(), 3601);
}

#[test]
fn fast_frames_run_zero_ticks_and_slow_frames_catch_up() {
    let (mut game, clock) = counting_loop(60, 5);
    game.frame().unwrap();
    clock.advance_ns(1_000_000); // 1 ms: nothing due
    assert_eq!(game.frame().unwrap().ticks_run, 0);
    clock.advance_ns(65_666_668); // total 66.67 ms: 4 ticks due
    assert_eq!(game.frame().unwrap().ticks_run, 4);
    // A healthy 30 Hz machine: 2 ticks per frame, never a drop.
    for _ in 0..300 {
        clock.advance_ns(33_333_334);
        assert_eq!(game.frame().unwrap().ticks_run, 2);
    }
    assert_eq!(game.stats().dropped_ticks, 0);
}

#[test]
fn the_first_frame_takes_the_reference_and_runs_nothing() {
    let (mut game, clock) = counting_loop(60, 5);
    assert_eq!(game.start_reference_ns(), None);
    clock.set_ns(5_000_000_000);
    let f = game.frame().unwrap();
    assert_eq!(f.ticks_run, 0);
    assert_eq!(game.start_reference_ns(), Some(5_000_000_000));
}

#[test]
fn backward_readings_contribute_no_time() {
    let (mut game, clock) = counting_loop(60, 5);
    game.frame().unwrap(); // reference 1_000
    clock.advance_ns(50_000_000);
    assert_eq!(game.frame().unwrap().ticks_run, 3);
    clock.set_ns(-10_000_000_000); // far below the start reference
    let f = game.frame().unwrap();
    assert_eq!(f.ticks_run, 0);
    assert_eq!(f.now_ns, 50_001_000); // clamped to the last reading
    clock.set_ns(1_000 + 50_000_000 + 16_666_667);
    assert_eq!(game.frame().unwrap().ticks_run, 1);
    assert_eq!(game.current_tick(), 4);
}

#[test]
fn identical_clock_sequences_give_identical_tick_sequences() {
    let run = || {
        let (mut game, clock) = counting_loop(60, 3);
        game.frame().unwrap();
        let mut next = steps(99, 120_000_000);
        let mut ticks = Vec::new();
        for _ in 0..500 {
            clock.advance_ns(next() as i64);
            game.frame().unwrap();
            ticks.push((game.current_tick(), game.stats().dropped_ticks));
        }
        ticks
    };
    assert_eq!(run(), run());
}
