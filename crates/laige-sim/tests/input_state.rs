//! Per-tick input state through the public API: a system sees
//! `is_down` / `just_pressed` / `just_released` and the pointer as the
//! rule says, through a running loop, a pause and single steps.

use std::sync::{Arc, Mutex};

use laige_core::clock::SyntheticClock;
use laige_sim::input::{ButtonState, CoordSpace, InputKind, InputPoint, KeyCode, MouseButton};
use laige_sim::{GameLoop, GameLoopOptions, World};

const P: i64 = 16_666_667; // one 60 Hz tick, rounded up

/// What the system saw at each tick: (tick, W down, W pressed, W released,
/// left button down, pointer).
type Seen = Arc<Mutex<Vec<(u64, bool, bool, bool, bool, Option<InputPoint>)>>>;

fn key(key: KeyCode, state: ButtonState) -> InputKind {
    InputKind::Key { key, state }
}

fn game() -> (GameLoop<SyntheticClock>, SyntheticClock, Seen) {
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let mut world = World::default();
    world
        .register_system("watch", 0, move |ctx| {
            let input = ctx.input();
            sink.lock().unwrap().push((
                ctx.tick(),
                input.is_down(KeyCode::W),
                input.just_pressed(KeyCode::W),
                input.just_released(KeyCode::W),
                input.button_down(MouseButton::LEFT),
                input.pointer(),
            ));
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    (g, clock, seen)
}

#[test]
fn key_state_follows_the_delivered_events_tick_by_tick() {
    let (mut g, clock, seen) = game();
    g.frame().unwrap(); // starts the loop at 0
    // W down inside tick 1's interval, up inside tick 3's.
    g.push_input(P + 1000, key(KeyCode::W, ButtonState::Pressed))
        .unwrap();
    g.push_input(3 * P + 5, key(KeyCode::W, ButtonState::Released))
        .unwrap();
    let at = InputPoint::from_units(12, -3);
    g.push_input(
        2 * P,
        InputKind::MouseButton {
            button: MouseButton::LEFT,
            state: ButtonState::Pressed,
            position: at,
            space: CoordSpace::World,
        },
    )
    .unwrap();
    clock.set_ns(5 * P);
    g.frame().unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            (0, false, false, false, false, None),
            (1, true, true, false, false, None),
            (2, true, false, false, true, Some(at)),
            (3, false, false, true, true, Some(at)),
            (4, false, false, false, true, Some(at)),
        ]
    );
    // After the tick, the world shows the state the last tick saw.
    assert_eq!(g.world().input_state().tick(), Some(4));
    assert!(g.world().input_state().button_down(MouseButton::LEFT));
    assert_eq!(
        g.world()
            .input_state()
            .pointer_world::<laige_core::Fpx16_16>(),
        Some(at.to_vec2())
    );
}

#[test]
fn input_state_holds_across_a_pause_and_changes_only_with_single_steps() {
    let (mut g, clock, seen) = game();
    g.frame().unwrap();
    g.push_input(10, key(KeyCode::W, ButtonState::Pressed))
        .unwrap();
    clock.set_ns(2 * P);
    g.frame().unwrap(); // ticks 0, 1
    g.pause().unwrap();
    // Frames while paused run no tick: the state does not move.
    clock.set_ns(10 * P);
    g.frame().unwrap();
    assert_eq!(seen.lock().unwrap().len(), 2);
    // Released while paused: the next tick that runs (a single step) sees
    // the release, once.
    g.push_input(10 * P, key(KeyCode::W, ButtonState::Released))
        .unwrap();
    g.step().unwrap();
    g.step().unwrap();
    // Pressed again while paused, then resumed: the first tick after the
    // resume sees the press.
    g.push_input(11 * P, key(KeyCode::W, ButtonState::Pressed))
        .unwrap();
    g.resume().unwrap();
    clock.set_ns(11 * P + P);
    g.frame().unwrap();
    let seen = seen.lock().unwrap().clone();
    let w: Vec<_> = seen.iter().map(|s| (s.0, s.1, s.2, s.3)).collect();
    assert_eq!(
        w,
        [
            (0, true, true, false),
            (1, true, false, false),
            (2, false, false, true),  // first step: the release
            (3, false, false, false), // second step: nothing new
            (4, true, true, false),   // after resume: the press
            (5, true, false, false),  // held
        ]
    );
}

#[test]
fn the_same_events_give_the_same_state_sequence() {
    let run = || {
        let (mut g, clock, seen) = game();
        g.frame().unwrap();
        for i in 0..40_i64 {
            let state = if i % 3 == 0 {
                ButtonState::Released
            } else {
                ButtonState::Pressed
            };
            g.push_input(i * P / 2 + i, key(KeyCode::W, state)).unwrap();
        }
        for f in 1..=25 {
            clock.set_ns(f * P);
            g.frame().unwrap();
        }
        seen.lock().unwrap().clone()
    };
    let a = run();
    assert_eq!(a.len(), 25);
    assert!(a.iter().any(|s| s.2) && a.iter().any(|s| s.3));
    assert_eq!(a, run());
}
