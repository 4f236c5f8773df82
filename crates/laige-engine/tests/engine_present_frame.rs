//! What `Game::present` gets besides the sprites: the run's numbers as of
//! each frame are the run's real ones — the frame index and tick of that
//! frame, the fps of the run's clock, the state hash of the world at that
//! tick (the same as a run stopped there), the tick-time percentiles and
//! drop counters the report ends with — on both backends, through headless
//! GL (EGL); skipped without EGL unless `LAIGE_REQUIRE_GL=1` (CI).

use laige_engine::prelude::*;
use laige_engine::sim::workload::{self, WorkloadConfig};

/// What one `present` saw.
#[derive(Clone, Copy, Debug)]
struct Seen {
    stats: RunStats,
    p50: u64,
    p99: u64,
    samples: usize,
    hash: u64,
    glyphs: usize,
}

/// The reference workload, plus a tick that sleeps when `slow_ns` > 0 (so
/// a paced run drops ticks for certain).
struct Watcher {
    slow_ns: u64,
    seen: Vec<Seen>,
}

impl Game for Watcher {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let config = WorkloadConfig {
            entities: 500,
            ..WorkloadConfig::default()
        };
        workload::install::<S>(setup.world(), &config)?;
        let slow = self.slow_ns;
        setup.world().register_system("test/slow", 1_000, move |_| {
            if slow > 0 {
                std::thread::sleep(std::time::Duration::from_nanos(slow));
            }
            Ok(())
        })
    }

    fn present<S: EngineScalar>(&mut self, _world: &World, frame: &mut Frame<'_>) {
        let times = frame.tick_times();
        let glyphs = frame.text("tick", &TextStyle::default());
        self.seen.push(Seen {
            stats: *frame.stats(),
            p50: times.p50_ns,
            p99: times.p99_ns,
            samples: times.samples,
            hash: frame.state_hash(),
            glyphs,
        });
    }
}

fn options(pacing: Pacing) -> EngineOptions {
    EngineOptions {
        pacing,
        handle_ctrl_c: false,
        headless_render: HeadlessRender::Gl {
            width: 64,
            height: 64,
        },
        ..EngineOptions::default()
    }
}

fn config(backend: MathBackend) -> EngineConfig {
    let mut config = EngineConfig::default();
    config.determinism.math = backend;
    config
}

/// A run, or `None` (after a SKIPPED line) without EGL.
fn run(
    game: &mut Watcher,
    config: EngineConfig,
    options: EngineOptions,
    frames: u64,
) -> Option<RunReport> {
    let result = Engine::builder()
        .game(game)
        .config(config)
        .options(options)
        .build()
        .unwrap()
        .run_headless(RunLimit::Frames(frames));
    match result {
        Ok(report) => Some(report),
        Err(e)
            if e.code() == laige_engine::ErrorCode::Unsupported
                && std::env::var("LAIGE_REQUIRE_GL").as_deref() != Ok("1") =>
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stdout().lock(),
                "SKIPPED: engine_present_frame: no usable EGL ({e}); set LAIGE_REQUIRE_GL=1 to make this a failure"
            );
            None
        }
        Err(e) => panic!("run: {e}"),
    }
}

#[test]
fn every_frame_sees_the_runs_real_numbers_on_both_backends() {
    for backend in MathBackend::ALL {
        let mut game = Watcher {
            slow_ns: 0,
            seen: Vec::with_capacity(128),
        };
        let Some(report) = run(&mut game, config(backend), options(Pacing::Unpaced), 120) else {
            return;
        };
        assert_eq!(report.exit_code(), 0, "{report}");
        assert_eq!(game.seen.len(), 120, "{backend}: one present per frame");
        for (i, seen) in game.seen.iter().enumerate() {
            let k = i as u64 + 1;
            // Unpaced at 60 frames and 60 ticks per second: frame k after tick k.
            assert_eq!((seen.stats.frame, seen.stats.tick), (k, k), "{backend}");
            assert_eq!(seen.stats.backend, backend);
            assert!(!seen.stats.paused);
            // Unpaced runs wait for the previous frame: k − 1 finished.
            assert_eq!(seen.stats.frames_presented, k - 1);
            assert_eq!(
                seen.samples,
                usize::try_from(k).unwrap(),
                "one tick-time sample per tick"
            );
            assert!(seen.p50 <= seen.p99 && seen.p99 > 0);
            assert_eq!(seen.glyphs, 4, "the default font draws");
        }
        // The fps of the run's clock (virtual: exactly 60 frames per second,
        // every one presented) once the window spans two frames.
        let last = game.seen[119];
        assert!((last.stats.fps - 60.0).abs() < 0.01, "{}", last.stats.fps);
        assert_eq!(game.seen[0].stats.fps, 0.0, "one frame has no rate yet");
        // The last frame's numbers are the report's.
        assert_eq!(last.stats.tick, report.ticks);
        assert_eq!(last.hash, report.state_hash, "{backend}");
        assert_eq!(
            (last.p50, last.p99),
            (report.tick_p50_ns, report.tick_p99_ns)
        );
        assert_eq!(last.samples, report.tick_samples);
        assert_eq!(last.stats.dropped_ticks, report.dropped_ticks);
        assert_eq!(last.stats.dropped_frames, report.dropped_frames);
        assert_eq!(
            last.stats.frames_render_dropped,
            report.frames_render_dropped
        );
        // A frame's hash is the world's at that tick: a run stopped after
        // 60 frames (no rendering) ends with the hash frame 60 saw.
        let stopped = Engine::builder()
            .game(Watcher {
                slow_ns: 0,
                seen: Vec::new(),
            })
            .config(config(backend))
            .options(EngineOptions {
                headless_render: HeadlessRender::Off,
                ..options(Pacing::Unpaced)
            })
            .build()
            .unwrap()
            .run_headless(RunLimit::Frames(60))
            .unwrap();
        assert_eq!(game.seen[59].hash, stopped.state_hash, "{backend}");
        assert_ne!(
            game.seen[59].hash, last.hash,
            "the hash moves with the world"
        );
    }
}

#[test]
fn dropped_ticks_are_counted_live_as_the_report_counts_them() {
    // Ticks of 40 ms at 60 Hz on the real clock, at most 2 caught up per
    // frame: the loop falls behind and drops ticks every frame after the
    // first few.
    let mut config = config(MathBackend::FixedPoint16_16);
    config.game_loop.max_catch_up_ticks = 2;
    let mut game = Watcher {
        slow_ns: 40_000_000,
        seen: Vec::with_capacity(32),
    };
    let Some(report) = run(&mut game, config, options(Pacing::FrameClock), 12) else {
        return;
    };
    assert_eq!(report.exit_code(), 0, "{report}");
    let last = game.seen.last().copied().expect("frames presented");
    assert!(report.dropped_ticks > 0, "{report}");
    assert_eq!(last.stats.dropped_ticks, report.dropped_ticks);
    assert_eq!(last.stats.dropped_frames, report.dropped_frames);
    // Counters only grow, frame after frame.
    for pair in game.seen.windows(2) {
        assert!(pair[1].stats.dropped_ticks >= pair[0].stats.dropped_ticks);
        assert!(pair[1].stats.tick >= pair[0].stats.tick);
    }
}
