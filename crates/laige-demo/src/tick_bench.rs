//! The demo's tick-time run, one home for the `web` bench area's two sides:
//! natively (laige-bench, in-process) and in a page (`laige-demo-web`'s
//! `laige_bench_ticks`), the same game, backend, entity count and ticks,
//! headless and unpaced, no input: the engine's profiler gives the median
//! and p99 tick time (system dispatch), the world's state hash says both
//! sides simulated the same bits.
//!
//! ```
//! use laige_demo::tick_bench;
//! use laige_engine::MathBackend;
//!
//! let run = tick_bench::run(MathBackend::FixedPoint16_16, 100, 30)?;
//! assert_eq!(run.ticks, 30);
//! assert!(run.tick_p50_ns > 0);
//! # Ok::<(), laige_engine::Error>(())
//! ```

use laige_engine::{Engine, EngineConfig, EngineOptions, MathBackend, Pacing, Result, RunLimit};

use crate::Demo;

/// What one tick-time run measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickRun {
    /// Ticks run.
    pub ticks: u64,
    /// Median tick time, ns (the profiler's window: the last ticks).
    pub tick_p50_ns: u64,
    /// 99th-percentile tick time, ns.
    pub tick_p99_ns: u64,
    /// Ticks the percentiles are over.
    pub samples: u64,
    /// The world's state hash at the end.
    pub state_hash: u64,
}

/// Runs the demo with `entities` for `ticks` ticks on `backend` (see the
/// module docs).
///
/// # Errors
/// What the engine's headless run returns before it starts (setup).
pub fn run(backend: MathBackend, entities: u32, ticks: u64) -> Result<TickRun> {
    let mut config = EngineConfig::default();
    config.determinism.math = backend;
    let game = Demo {
        entities,
        progress_every_frames: 0,
        ..Demo::default()
    };
    let report = Engine::builder()
        .game(game)
        .config(config)
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            install_log_subscriber: false,
            sprite_capacity: entities as usize + 256,
            ..EngineOptions::default()
        })
        .build()?
        .run_headless(RunLimit::Ticks(ticks))?;
    Ok(TickRun {
        ticks: report.ticks,
        tick_p50_ns: report.tick_p50_ns,
        tick_p99_ns: report.tick_p99_ns,
        samples: report.tick_samples as u64,
        state_hash: report.state_hash,
    })
}
