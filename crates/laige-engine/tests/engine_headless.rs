//! The headless engine end to end: exact tick counts from virtual time,
//! scripted input delivered on the right tick, the same state hash twice,
//! another seed or backend → another hash, the lifecycle driven by the
//! game, and every way a run ends with its exit code.

use laige_engine::core::EventId;
use laige_engine::input::{InputKind, ScriptAt};
use laige_engine::sim::workload::{self, Velocity, WorkloadConfig};
use laige_engine::{
    Control, Engine, EngineConfig, EngineOptions, EngineScalar, ExitReason, Game, MathBackend,
    Pacing, RunLimit, RunReport, Setup, World,
};
use laige_engine::{Error, ErrorCode, LoopState};

/// The reference workload plus a probe system: `Action { id: 1, value }`
/// adds `value` units/s to every velocity's x (so input reaches the state
/// hash); `Action { id: 99 }` makes the system fail.
#[derive(Default)]
struct Probe {
    entities: u32,
    /// (tick the event was delivered at, kind), from `on_tick`.
    delivered: Vec<(u64, InputKind)>,
    /// Lifecycle script: (frame, what).
    script: Vec<(u64, Cmd)>,
    states: Vec<(u64, LoopState)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmd {
    Pause,
    Step,
    Resume,
    Exit,
    Interrupt,
}

const BOOM: EventId = EventId::new("probe", "boom");

impl Game for Probe {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        let config = WorkloadConfig {
            entities: self.entities,
            seed: setup.seed(),
            tick_rate_hz: setup.tick_rate_hz(),
            ..WorkloadConfig::default()
        };
        workload::install::<S>(setup.world(), &config)?;
        setup.world().register_system("probe", 0, |ctx| {
            for ev in ctx.input() {
                match ev.kind {
                    InputKind::Action { id: 99, .. } => {
                        return Err(Error::new(ErrorCode::Failed, BOOM)
                            .with_detail(format!("tick {}", ctx.tick())));
                    }
                    InputKind::Action { id: 1, value } => {
                        let dv = S::from_i32(value);
                        for v in ctx.query_mut::<&mut Velocity<S>>() {
                            v.0.x += dv;
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        })
    }

    fn on_frame<S: EngineScalar>(&mut self, _world: &World, control: &mut Control) {
        self.states.push((control.frame(), control.state()));
        for &(frame, cmd) in &self.script {
            if frame == control.frame() {
                match cmd {
                    Cmd::Pause => control.pause(),
                    Cmd::Step => control.step(),
                    Cmd::Resume => control.resume(),
                    Cmd::Exit => control.exit(),
                    Cmd::Interrupt => laige_engine::interrupt::request(),
                }
            }
        }
    }

    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        for ev in world.input().delivered() {
            assert_eq!(ev.tick, tick - 1);
            self.delivered.push((ev.tick, ev.kind));
        }
    }
}

fn options() -> EngineOptions {
    EngineOptions {
        pacing: Pacing::Unpaced,
        handle_ctrl_c: false,
        ..EngineOptions::default()
    }
}

fn config(seed: u64, math: MathBackend, tick_rate_hz: u32, frame_rate_hz: u32) -> EngineConfig {
    let mut c = EngineConfig::default();
    c.determinism.seed = seed;
    c.determinism.math = math;
    c.game_loop.tick_rate_hz = tick_rate_hz;
    c.render.frame_rate_hz = frame_rate_hz;
    c
}

fn run(
    game: &mut Probe,
    config: EngineConfig,
    script: Vec<(ScriptAt, InputKind)>,
    limit: RunLimit,
) -> RunReport {
    Engine::builder()
        .game(game)
        .config(config)
        .scripted_input(script)
        .options(options())
        .build()
        .unwrap()
        .run_headless(limit)
        .unwrap()
}

fn act(id: u32, value: i32) -> InputKind {
    InputKind::Action { id, value }
}

fn probe(entities: u32) -> Probe {
    Probe {
        entities,
        delivered: Vec::new(),
        script: Vec::new(),
        states: Vec::new(),
    }
}

#[test]
fn n_frames_run_the_exact_tick_count_of_virtual_time() {
    for (tick_rate, frame_rate, frames, ticks) in [
        (60, 60, 600, 600),   // one tick per frame, 10 s
        (30, 60, 600, 300),   // every other frame ticks
        (60, 144, 1440, 600), // 10 s at 144 frames/s
        (120, 50, 500, 1200), // catch-up: 2.4 ticks per frame, never dropped
        (20, 1000, 1000, 20),
    ] {
        let mut game = probe(64);
        let report = run(
            &mut game,
            config(1, MathBackend::FixedPoint16_16, tick_rate, frame_rate),
            Vec::new(),
            RunLimit::Frames(frames),
        );
        assert_eq!(report.frames, frames, "{tick_rate} Hz / {frame_rate} fps");
        assert_eq!(report.ticks, ticks, "{tick_rate} Hz / {frame_rate} fps");
        assert_eq!(report.dropped_ticks, 0);
        assert_eq!(report.exit_code(), 0);
        assert!(matches!(report.exit, ExitReason::Completed));
    }
}

#[test]
fn duration_and_tick_limits() {
    let mut game = probe(16);
    let c = config(1, MathBackend::FixedPoint16_16, 60, 60);
    let r = run(
        &mut game,
        c.clone(),
        Vec::new(),
        RunLimit::Duration(std::time::Duration::from_secs(2)),
    );
    assert_eq!((r.frames, r.ticks), (120, 120));
    let r = run(&mut game, c, Vec::new(), RunLimit::Ticks(45));
    assert_eq!(r.ticks, 45);
    // Three ticks per frame (120 Hz at 40 frames/s): the frame that
    // reaches the limit runs no tick past it.
    for limit in [44, 45, 46] {
        let c = config(1, MathBackend::FixedPoint16_16, 120, 40);
        let r = run(&mut game, c, Vec::new(), RunLimit::Ticks(limit));
        assert_eq!(r.ticks, limit);
        assert_eq!(r.frames, limit.div_ceil(3));
    }
}

#[test]
fn a_paced_run_follows_the_frame_clock_grid() {
    let mut game = probe(16);
    let report = Engine::builder()
        .game(&mut game)
        .config(config(1, MathBackend::FixedPoint16_16, 60, 100))
        .options(EngineOptions {
            pacing: Pacing::FrameClock,
            handle_ctrl_c: false,
            ..EngineOptions::default()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Duration(std::time::Duration::from_millis(100)))
        .unwrap();
    // Frames k = 1..=10 have deadlines k × 10 ms ≤ 100 ms; frame 10 reads
    // the clock at or after its deadline, when ≥ 6 ticks are due at 60 Hz.
    assert_eq!(report.frames, 10);
    assert!(report.ticks >= 6, "{report}");
    assert!(report.wall_ns >= 100_000_000);
}

#[test]
fn scripted_input_is_delivered_on_its_tick_and_changes_the_state() {
    let script = vec![
        (ScriptAt::Tick(10), act(1, 5)),
        (ScriptAt::TimeNs(500_000_000), act(1, -3)), // 0.5 s at 60 Hz: tick 30
        (ScriptAt::TimeNs(16_666_666), act(7, 0)),   // still tick 0's interval
        (ScriptAt::TimeNs(16_666_667), act(8, 0)),   // tick 1
    ];
    let c = config(7, MathBackend::FixedPoint16_16, 60, 60);
    let mut game = probe(256);
    let with_input = run(&mut game, c.clone(), script.clone(), RunLimit::Frames(60));
    assert_eq!(
        game.delivered,
        [
            (0, act(7, 0)),
            (1, act(8, 0)),
            (10, act(1, 5)),
            (30, act(1, -3))
        ]
    );
    assert_eq!(with_input.input.delivered, 4);
    // Same run again: the same hash. Without the input: another one.
    let mut again = probe(256);
    let second = run(&mut again, c.clone(), script, RunLimit::Frames(60));
    assert_eq!(second.state_hash, with_input.state_hash);
    assert_eq!(again.delivered, game.delivered);
    let mut quiet = probe(256);
    let without = run(&mut quiet, c, Vec::new(), RunLimit::Frames(60));
    assert_ne!(without.state_hash, with_input.state_hash);
}

#[test]
fn same_config_same_hash_other_seed_or_backend_other_hash() {
    let hash = |seed, math| {
        let mut g = probe(1_000);
        let r = run(
            &mut g,
            config(seed, math, 60, 60),
            Vec::new(),
            RunLimit::Frames(120),
        );
        assert_eq!(r.backend, math);
        assert_eq!(r.ticks, 120);
        r.state_hash
    };
    let a = hash(3, MathBackend::FixedPoint16_16);
    assert_eq!(a, hash(3, MathBackend::FixedPoint16_16));
    assert_ne!(a, hash(4, MathBackend::FixedPoint16_16));
    let f = hash(3, MathBackend::FloatPinned32);
    assert_eq!(f, hash(3, MathBackend::FloatPinned32));
    assert_ne!(a, f);
}

#[test]
fn the_game_pauses_steps_and_resumes() {
    let mut game = probe(8);
    game.script = vec![
        (10, Cmd::Pause), // after frame 9: 9 ticks
        (12, Cmd::Step),
        (13, Cmd::Step),
        (20, Cmd::Resume), // frames 10..=19 paused: their time is not replayed
    ];
    // 50 Hz / 50 frames/s: the 20 ms period is exact, so the paused span is
    // exactly 10 frames (at 60 Hz the ⌈k·10⁹/60⌉ grid makes it 1 ns longer
    // than 10 periods and the last frame lands 1 ns short of a tick).
    let r = run(
        &mut game,
        config(1, MathBackend::FixedPoint16_16, 50, 50),
        Vec::new(),
        RunLimit::Frames(30),
    );
    // 9 ticks before the pause, 2 steps, then frames 20..=30 run 11 ticks
    // (resuming does not replay the 10 paused frames).
    assert_eq!(r.ticks, 9 + 2 + 11);
    assert_eq!(r.frames, 30);
    let state = |f: u64| game.states.iter().find(|s| s.0 == f).unwrap().1;
    assert_eq!(state(1), LoopState::Running);
    assert_eq!(state(11), LoopState::Paused);
    assert_eq!(state(21), LoopState::Running);
}

#[test]
fn a_failing_system_ends_the_run_in_order_with_code_3() {
    let mut game = probe(8);
    let (r, events) = laige_engine::core::diag::capture_events(|| {
        run(
            &mut game,
            config(1, MathBackend::FixedPoint16_16, 60, 60),
            vec![(ScriptAt::Tick(42), act(99, 0))],
            RunLimit::Frames(600),
        )
    });
    // The failure is logged once, by the engine, naming the system; the
    // sim returned it without a log of its own.
    let failures: Vec<_> = events
        .iter()
        .filter(|e| e.is(laige_engine::events::SYSTEM_FAILED))
        .collect();
    assert_eq!(failures.len(), 1, "{events:?}");
    assert_eq!(failures[0].field("system"), Some("probe"), "{events:?}");
    assert_eq!(failures[0].field("tick"), Some("42"), "{events:?}");
    assert!(
        !events
            .iter()
            .any(|e| e.to_string().contains("subsystem=system")),
        "{events:?}"
    );
    assert_eq!(r.exit_code(), 3);
    match &r.exit {
        ExitReason::SystemFailed(e) => assert_eq!(e.id(), BOOM),
        other => panic!("{other:?}"),
    }
    assert_eq!(r.ticks, 42, "tick 42 failed: 0..=41 completed");
    assert!(r.frames < 600);
}

#[test]
fn the_game_exits_with_code_0() {
    let mut game = probe(8);
    game.script = vec![(25, Cmd::Exit)];
    let r = run(
        &mut game,
        config(1, MathBackend::FixedPoint16_16, 60, 60),
        Vec::new(),
        RunLimit::Unlimited,
    );
    assert!(matches!(r.exit, ExitReason::GameExit));
    assert_eq!((r.exit_code(), r.frames), (0, 24));
}

#[test]
fn an_interrupt_ends_the_run_in_order_with_code_130() {
    let mut game = probe(8);
    game.script = vec![(15, Cmd::Interrupt)];
    let report = Engine::builder()
        .game(&mut game)
        .config(config(1, MathBackend::FixedPoint16_16, 60, 60))
        .options(EngineOptions {
            handle_ctrl_c: true, // the real handler; the flag it raises
            ..options()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Unlimited)
        .unwrap();
    assert!(matches!(
        report.exit,
        ExitReason::Interrupted(laige_engine::interrupt::StopSignal::Interrupt)
    ));
    assert_eq!(report.exit_code(), 130);
    // Raised during frame 15's callback: frame 15 still runs, 16 does not.
    assert_eq!(report.frames, 15);
    // The shutdown of the run the flag ended took it down.
    assert!(!laige_engine::interrupt::is_requested());
}

#[test]
fn setup_errors_are_returned_before_the_run() {
    let err = Engine::builder()
        .system("", 0, |_| Ok(()))
        .options(options())
        .build()
        .unwrap()
        .run_headless(RunLimit::Frames(1))
        .unwrap_err();
    assert_eq!(err.field(), Some("name"));
    let mut bad = EngineConfig::default();
    bad.game_loop.tick_rate_hz = 500;
    assert!(Engine::builder().config(bad).build().is_err());
}
