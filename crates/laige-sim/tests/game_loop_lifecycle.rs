//! The loop's lifecycle: Init → Running ⇄ Paused → Shutdown, pause
//! semantics, single-step, frame hooks.

use laige_core::ErrorCode;
use laige_core::clock::SyntheticClock;
use laige_sim::{Alpha, FrameInfo, GameLoop, GameLoopOptions, LoopHooks, LoopState};
use laige_sim::{World, events};

const TICK: i64 = 16_666_667; // ≥ one 60 Hz period

fn game() -> (GameLoop<SyntheticClock>, SyntheticClock) {
    let mut world = World::default();
    world.register_system("noop", 0, |_| Ok(())).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    (
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap(),
        clock,
    )
}

#[test]
fn transitions_follow_the_diagram() {
    let (mut g, _clock) = game();
    assert_eq!(g.state(), LoopState::Init);
    g.start().unwrap();
    assert_eq!(g.state(), LoopState::Running);
    g.pause().unwrap();
    assert_eq!(g.state(), LoopState::Paused);
    g.resume().unwrap();
    assert_eq!(g.state(), LoopState::Running);
    g.shutdown().unwrap();
    assert_eq!(g.state(), LoopState::Shutdown);
}

#[test]
fn invalid_transitions_are_errors_and_change_nothing() {
    let (mut g, _clock) = game();
    for err in [g.pause().unwrap_err(), g.resume().unwrap_err()] {
        assert_eq!(err.code(), ErrorCode::InvalidState);
        assert_eq!(err.id(), events::INVALID_TRANSITION);
    }
    assert_eq!(g.state(), LoopState::Init);
    g.start().unwrap();
    assert_eq!(g.start().unwrap_err().code(), ErrorCode::InvalidState);
    assert_eq!(g.resume().unwrap_err().code(), ErrorCode::InvalidState);
    g.pause().unwrap();
    assert_eq!(g.pause().unwrap_err().code(), ErrorCode::InvalidState);
    assert_eq!(g.state(), LoopState::Paused);
    g.shutdown().unwrap();
    for err in [
        g.start().unwrap_err(),
        g.pause().unwrap_err(),
        g.resume().unwrap_err(),
        g.shutdown().unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::InvalidState);
    }
    assert_eq!(g.state(), LoopState::Shutdown);
}

#[test]
fn shutdown_from_init_is_allowed() {
    let (mut g, _clock) = game();
    g.shutdown().unwrap();
    assert_eq!(g.state(), LoopState::Shutdown);
}

#[test]
fn the_first_frame_starts_the_loop() {
    let (mut g, _clock) = game();
    let f = g.frame().unwrap();
    assert_eq!(f.state, LoopState::Running);
    assert_eq!(g.state(), LoopState::Running);
}

#[test]
fn shut_down_loop_fails_frames_without_touching_the_world() {
    let (mut g, clock) = game();
    g.frame().unwrap();
    clock.advance_ns(TICK);
    g.frame().unwrap();
    g.shutdown().unwrap();
    let before = (g.current_tick(), g.stats(), g.world().churn_stats());
    clock.advance_ns(10 * TICK);
    let err = g.frame().unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidState);
    assert_eq!(err.id(), events::SHUT_DOWN);
    assert_eq!(g.step().unwrap_err().id(), events::SHUT_DOWN);
    assert_eq!(
        before,
        (g.current_tick(), g.stats(), g.world().churn_stats())
    );
}

#[test]
fn paused_frames_run_no_ticks_and_resume_skips_the_paused_time() {
    let (mut g, clock) = game();
    g.frame().unwrap();
    clock.advance_ns(3 * TICK);
    assert_eq!(g.frame().unwrap().ticks_run, 3);
    g.pause().unwrap();
    for _ in 0..60 {
        clock.advance_ns(TICK);
        let f = g.frame().unwrap();
        assert_eq!(
            (f.ticks_run, f.dropped_ticks, f.state),
            (0, 0, LoopState::Paused)
        );
    }
    assert_eq!(g.current_tick(), 3);
    assert_eq!(g.stats().frames, 62);
    let running_before = g.elapsed_running_ns();
    g.resume().unwrap();
    assert_eq!(g.elapsed_running_ns(), running_before);
    // A frame right after resuming runs nothing for the paused second...
    let f = g.frame().unwrap();
    assert_eq!((f.ticks_run, f.dropped_ticks), (0, 0));
    // ...and the next tick comes one period later.
    clock.advance_ns(TICK);
    assert_eq!(g.frame().unwrap().ticks_run, 1);
    assert_eq!(g.stats().dropped_ticks, 0);
}

#[test]
fn sub_tick_time_before_a_pause_is_kept() {
    let (mut g, clock) = game();
    g.frame().unwrap();
    clock.advance_ns(10_000_000); // 0.6 of a tick
    assert_eq!(g.frame().unwrap().ticks_run, 0);
    g.pause().unwrap();
    clock.advance_ns(5_000_000_000);
    g.resume().unwrap();
    clock.advance_ns(6_666_667); // the rest of the first period
    assert_eq!(g.frame().unwrap().ticks_run, 1);
}

#[test]
fn alpha_freezes_while_paused() {
    let (mut g, clock) = game();
    g.frame().unwrap();
    clock.advance_ns(TICK + 8_333_333);
    let running = g.frame().unwrap().alpha;
    assert!(running > Alpha::ZERO);
    g.pause().unwrap();
    for _ in 0..10 {
        clock.advance_ns(7_000_000);
        assert_eq!(g.frame().unwrap().alpha, running);
    }
}

#[test]
fn step_runs_exactly_one_tick_while_paused() {
    let (mut g, clock) = game();
    g.frame().unwrap();
    assert_eq!(g.step().unwrap_err().code(), ErrorCode::InvalidState);
    g.pause().unwrap();
    g.step().unwrap();
    g.step().unwrap();
    assert_eq!(g.current_tick(), 2);
    assert_eq!(g.stats().ticks, 2);
    assert_eq!(g.elapsed_sim_ns(), 33_333_333);
    // Stepped ticks consume no clock time: resuming then one period runs 1.
    g.resume().unwrap();
    clock.advance_ns(TICK);
    assert_eq!(g.frame().unwrap().ticks_run, 1);
    assert_eq!(g.current_tick(), 3);
}

#[derive(Default)]
struct Trace {
    events: Vec<String>,
}

impl LoopHooks for Trace {
    fn on_begin_frame(&mut self, world: &World, frame: &FrameInfo) {
        self.events
            .push(format!("begin {} t{}", frame.frame, world.tick()));
    }
    fn on_tick(&mut self, _world: &World, tick: u64) {
        self.events.push(format!("tick {tick}"));
    }
    fn on_end_frame(&mut self, world: &World, frame: &FrameInfo) {
        self.events.push(format!(
            "end {} ran {} t{}",
            frame.frame,
            frame.ticks_run,
            world.tick()
        ));
    }
}

#[test]
fn hooks_fire_in_frame_order() {
    let (mut g, clock) = game();
    let mut trace = Trace::default();
    g.frame_with(&mut trace).unwrap();
    clock.advance_ns(2 * TICK);
    g.frame_with(&mut trace).unwrap();
    g.pause().unwrap();
    g.frame_with(&mut trace).unwrap();
    g.step_with(&mut trace).unwrap();
    assert_eq!(
        trace.events,
        [
            "begin 1 t0",
            "end 1 ran 0 t0",
            "begin 2 t0",
            "tick 1",
            "tick 2",
            "end 2 ran 2 t2",
            "begin 3 t2",
            "end 3 ran 0 t2",
            "tick 3",
        ]
    );
}

#[test]
fn begin_frame_runs_once_per_frame_before_the_ticks() {
    let mut world = World::default();
    world
        .register_system("spawner", 0, |ctx| {
            ctx.spawn((1_u32,));
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    g.frame().unwrap();
    clock.advance_ns(4 * TICK);
    g.frame().unwrap();
    // Four ticks in one frame: one churn window holds all four spawns.
    let churn = g.world().churn_stats();
    assert_eq!(
        (churn.frames, churn.frame_spawns, churn.total_spawns),
        (2, 4, 4)
    );
    clock.advance_ns(TICK);
    g.frame().unwrap();
    let churn = g.world().churn_stats();
    assert_eq!((churn.frames, churn.frame_spawns), (3, 1));
}

#[test]
fn on_tick_sees_the_incremented_tick_and_the_new_state() {
    let mut world = World::default();
    let e = world.spawn((0_u64,));
    world
        .register_system("count", 0, move |ctx| {
            if let Some(v) = ctx.query_one_mut::<&mut u64>(e) {
                *v += 1;
            }
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    let mut seen = Vec::new();
    let mut hook = laige_sim::OnTick(|w: &World, tick| {
        seen.push((tick, w.get_copied::<u64>(e).unwrap()));
    });
    g.frame_with(&mut hook).unwrap();
    clock.advance_ns(3 * TICK);
    g.frame_with(&mut hook).unwrap();
    assert_eq!(seen, [(1, 1), (2, 2), (3, 3)]);
}
