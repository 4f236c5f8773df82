//! The demo's ticks allocate nothing, bursts included: this binary
//! installs the counting allocator, so in a debug build the game loop
//! checks every tick — a tick that allocated would panic the run
//! (`AllocCheck::Panic`, the default).

use laige_demo::{BURST, Demo, headless_script};
use laige_engine::core::alloc_watch::{self, CountingAlloc};
use laige_engine::{Engine, EngineConfig, EngineOptions, ExitReason, Pacing, RunLimit};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

#[test]
fn five_scripted_seconds_with_bursts_allocate_nothing_per_tick() {
    assert!(alloc_watch::is_installed());
    let config = EngineConfig::default();
    let entities = 2_000;
    let report = Engine::builder()
        .game(Demo {
            entities,
            progress_every_frames: 0,
            mark_first_tick: false,
            ..Demo::default()
        })
        .config(config.clone())
        .scripted_input(headless_script(5, config.game_loop.tick_rate_hz))
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            ..EngineOptions::default()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Frames(300))
        .unwrap();
    assert!(matches!(report.exit, ExitReason::Completed), "{report}");
    assert_eq!(report.ticks, 300);
    // Two bursts spawned, one despawned, plus the attractor entity.
    assert_eq!(report.entities, entities + 2 * BURST - BURST + 1);
}
