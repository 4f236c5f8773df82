//! Overload: the catch-up bound has an upper limit, and an overloaded
//! frame runs exactly the bound and drops exactly the rest.

use laige_engine::EngineConfig;
use laige_engine::core::clock::SyntheticClock;
use laige_engine::sim::World;
use laige_engine::sim::{GameLoop, GameLoopOptions};

/// Fault: `loop.max_catch_up_ticks = 4294967295` (before: accepted, and a
/// 40 ms tick spiralled through 406 ticks in one frame).
#[test]
fn an_unbounded_catch_up_is_rejected_naming_field_value_and_range() {
    for v in ["21", "4294967295", "99999999999"] {
        let e = EngineConfig::from_toml_str(&format!("[loop]\nmax_catch_up_ticks = {v}\n"), "t")
            .unwrap_err();
        assert_eq!(e.field(), Some("loop.max_catch_up_ticks"));
        assert_eq!(e.value(), Some(v));
        assert_eq!(e.accepted(), Some("1..=20 ticks per frame"));
    }
    let cfg = EngineConfig::from_toml_str("[loop]\nmax_catch_up_ticks = 20\n", "t").unwrap();
    assert_eq!(cfg.game_loop.max_catch_up_ticks, 20);
}

/// Fault: a 16 s stall at a 40 ms tick (25 Hz: 400 ticks due at once)
/// with the largest accepted bound. The frame runs 20 ticks and drops
/// exactly 380; the next frame runs only its own time.
#[test]
fn an_overloaded_frame_runs_the_bound_and_drops_exactly_the_rest() {
    let mut world = World::default();
    world.register_system("noop", 0, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let options = GameLoopOptions {
        tick_rate_hz: 25,
        max_catch_up_ticks: 20,
        ..GameLoopOptions::default()
    };
    let mut game = GameLoop::with_clock(world, schedule, options, clock.clone()).unwrap();
    game.frame().unwrap();
    clock.set_ns(16_000_000_000);
    let f = game.frame().unwrap();
    assert_eq!((f.ticks_run, f.dropped_ticks), (20, 380));
    clock.set_ns(16_040_000_000);
    let f = game.frame().unwrap();
    assert_eq!((f.ticks_run, f.dropped_ticks), (1, 0));
    let s = game.stats();
    assert_eq!((s.ticks, s.dropped_ticks, s.dropped_frames), (21, 380, 1));
}
