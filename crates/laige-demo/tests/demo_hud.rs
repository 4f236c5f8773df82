//! The demo's HUD, through headless GL (EGL): the screenshot of frame 30
//! is read back glyph by glyph (every 2 × 2 block of the HUD's text cells
//! against the embedded font's bitmaps) and says the run's real numbers —
//! `tick 30  fps 60.0`, no drops, the tick times, and the state hash a run
//! stopped at tick 30 ends with, and the backend's name — on a dimmed
//! panel over the world; and the presentation (world sprites and HUD)
//! allocates nothing after warm-up. Skipped without EGL unless
//! `LAIGE_REQUIRE_GL=1` (CI).

mod hud_support;

use laige_demo::Demo;
use laige_engine::core::alloc_watch::{self, AllocCounts, CountingAlloc};
use laige_engine::{
    Engine, EngineConfig, EngineOptions, EngineScalar, ErrorCode, Frame, FrameCapture, Game,
    GameWrapper, HeadlessRender, MathBackend, Pacing, RunLimit, World,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const W: usize = 640;
const H: usize = 360;
const ENTITIES: u32 = 2_000;

/// The demo, with the heap traffic of its `present` counted from frame
/// `from` on.
struct Counted {
    demo: Demo,
    frames: u64,
    from: u64,
    after_warm_up: AllocCounts,
    first_frame: AllocCounts,
}

impl GameWrapper for Counted {
    type Inner = Demo;
    fn inner(&self) -> &Demo {
        &self.demo
    }
    fn inner_mut(&mut self) -> &mut Demo {
        &mut self.demo
    }
    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        self.frames += 1;
        let ((), counts) = alloc_watch::count_allocs(|| self.demo.present::<S>(world, frame));
        if self.frames == 1 {
            self.first_frame = counts;
        } else if self.frames >= self.from {
            self.after_warm_up.allocs += counts.allocs;
            self.after_warm_up.reallocs += counts.reallocs;
        }
    }
}

fn demo() -> Demo {
    Demo {
        entities: ENTITIES,
        progress_every_frames: 0,
        mark_first_tick: false,
        ..Demo::default()
    }
}

fn config(backend: MathBackend) -> EngineConfig {
    let mut config = EngineConfig::default();
    config.render.window_width = W as u32;
    config.render.window_height = H as u32;
    config.determinism.math = backend;
    config
}

#[test]
fn the_hud_shows_the_runs_real_numbers_and_allocates_nothing_after_warm_up() {
    assert!(alloc_watch::is_installed());
    let backend = MathBackend::FixedPoint16_16;
    let shot_path = std::env::temp_dir().join(format!("laige-demo-hud-{}.ppm", std::process::id()));
    let mut game = Counted {
        demo: demo(),
        frames: 0,
        from: 21,
        after_warm_up: AllocCounts::default(),
        first_frame: AllocCounts::default(),
    };
    let run = Engine::builder()
        .game(&mut game)
        .config(config(backend))
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            headless_render: HeadlessRender::Gl {
                width: W as u32,
                height: H as u32,
            },
            capture: Some(FrameCapture {
                frame: 30,
                path: shot_path.clone(),
            }),
            sprite_capacity: ENTITIES as usize + 512,
            ..EngineOptions::default()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Frames(120));
    let report = match run {
        Ok(report) => report,
        Err(e)
            if e.code() == ErrorCode::Unsupported
                && std::env::var("LAIGE_REQUIRE_GL").as_deref() != Ok("1") =>
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stdout().lock(),
                "SKIPPED: demo_hud: no usable EGL ({e}); set LAIGE_REQUIRE_GL=1 to make this a failure"
            );
            return;
        }
        Err(e) => panic!("run: {e}"),
    };
    assert_eq!(report.exit_code(), 0, "{report}");
    assert_eq!(report.frames_rendered, 120, "{report}");

    // The presentation path: the first frame grows the buffers (the
    // watch sees it), frames 21..=120 allocate nothing.
    assert!(
        game.first_frame.allocs + game.first_frame.reallocs > 0,
        "the watch sees the first frame's growth"
    );
    assert_eq!(
        (game.after_warm_up.allocs, game.after_warm_up.reallocs),
        (0, 0),
        "present after warm-up"
    );

    // The state hash at tick 30, from a run that stops there.
    let at_30 = Engine::builder()
        .game(demo())
        .config(config(backend))
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            ..EngineOptions::default()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Frames(30))
        .unwrap();

    let shot = hud_support::Shot::read(&shot_path);
    let _ = std::fs::remove_file(&shot_path);
    assert_eq!((shot.width, shot.height), (W, H));
    let pixels = &shot.pixels;
    let lines: Vec<String> = (0..5).map(|l| shot.hud_line(l, 37)).collect();
    assert_eq!(lines[0], "tick 30  fps 60.0", "{lines:#?}");
    let times: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        (times[0], times[1], times[3], times[4], times[6]),
        ("tick", "p50", "ms", "p99", "ms"),
        "{lines:#?}"
    );
    let ms = |s: &str| {
        s.parse::<f64>()
            .unwrap_or_else(|_| panic!("{s} in {lines:#?}"))
    };
    assert!(ms(times[2]) <= ms(times[5]), "p50 ≤ p99: {lines:#?}");
    assert_eq!(lines[2], "dropped 0 ticks / 0 frames, render 0");
    assert_eq!(lines[3], format!("hash {:016x} @30", at_30.state_hash));
    assert_eq!(lines[4], format!("math {}", backend.id()));

    // The panel: every pixel inside it is a glyph's white or the world
    // dimmed to 40 % (no channel above 0.4 × 255, rounded up).
    let longest = lines.iter().map(String::len).max().unwrap();
    let (right, bottom) = (16 + 16 * longest + 8, 16 + 16 * 5 + 8);
    for y in 8..bottom {
        for x in 8..right {
            let p = pixels[y * W + x];
            assert!(
                p == [255; 3] || p.iter().all(|&c| c <= 103),
                "pixel ({x}, {y}) = {p:?} inside the HUD panel"
            );
        }
    }
    // Around the panel the world shows undimmed: the sprites' colours
    // reach above the panel's 40 % somewhere in the frame.
    assert!(
        pixels
            .iter()
            .any(|p| p.iter().any(|&c| c > 110) && *p != [255; 3])
    );
}
