//! The engine's frame path allocates nothing in steady state: with the
//! counting allocator installed, a window armed at frame 20 and read at
//! frame 300 (from `Game::on_frame`, on the loop's thread) sees no
//! allocation — frame callbacks, control requests, scripted input fed and
//! delivered, the loop's frames and ticks (the zero-allocation window checks each tick too),
//! the profiler's records.

use laige_engine::core::alloc_watch::{self, AllocCounts, CountingAlloc};
use laige_engine::input::{InputKind, ScriptAt};
use laige_engine::sim::workload::{self, WorkloadConfig};
use laige_engine::{
    Control, Engine, EngineOptions, EngineScalar, ExitReason, Game, Pacing, RunLimit, Setup, World,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

struct Watch {
    counts: Option<AllocCounts>,
    /// The negative control: allocate once at frame 100.
    leak_at_100: bool,
}

impl Game for Watch {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        let config = WorkloadConfig {
            entities: 2_000,
            ..WorkloadConfig::default()
        };
        workload::install::<S>(setup.world(), &config)
    }

    fn on_frame<S: EngineScalar>(&mut self, _world: &World, control: &mut Control) {
        match control.frame() {
            20 => alloc_watch::arm(),
            300 => self.counts = Some(alloc_watch::disarm()),
            _ => {}
        }
        if self.leak_at_100 && control.frame() == 100 {
            std::hint::black_box(vec![1_u8; 16]);
        }
        if control.frame().is_multiple_of(50) {
            control.action(1, 1); // stamped and queued from a callback
        }
    }
}

fn run(leak_at_100: bool) -> AllocCounts {
    run_with(leak_at_100, None)
}

fn run_with(leak_at_100: bool, record: Option<&std::path::Path>) -> AllocCounts {
    let mut game = Watch {
        counts: None,
        leak_at_100,
    };
    let script: Vec<_> = (0..300)
        .step_by(7)
        .map(|t| (ScriptAt::Tick(t), InputKind::Action { id: 2, value: 0 }))
        .collect();
    let mut builder = Engine::builder().game(&mut game);
    if let Some(path) = record {
        builder = builder.record(path);
    }
    let report = builder
        .scripted_input(script)
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            ..EngineOptions::default()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Frames(310))
        .unwrap();
    assert!(matches!(report.exit, ExitReason::Completed), "{report}");
    assert!(report.input.delivered > 40);
    game.counts.expect("frame 300 ran")
}

#[test]
fn steady_state_frames_allocate_nothing() {
    assert!(alloc_watch::is_installed());
    let counts = run(false);
    assert_eq!(counts.allocations(), 0, "{counts:?}");
    // The window does see an allocation on this path (negative control).
    assert!(run(true).allocations() >= 1);
}

/// Recording (every tick's input encoded and written, a state hash after
/// every tick) adds no allocation to the steady state either.
#[test]
fn recorded_steady_state_frames_allocate_nothing() {
    let path = std::env::temp_dir().join(format!("laige-zero-alloc-{}.lrp", std::process::id()));
    let counts = run_with(false, Some(&path));
    let replay = laige_engine::sim::replay::Replay::read(&path).unwrap();
    assert!(replay.ticks() > 290);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(counts.allocations(), 0, "{counts:?}");
}
