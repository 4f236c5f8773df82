//! The game-facing hooks through the public API: hooks generic over the
//! scalar read `S`-typed components, `finish` sees the final world and the
//! report, and a wrapper that overrides one hook still forwards the rest
//! (its inner game's `present` is not lost).

use laige_engine::render::gl::Sprite;
use laige_engine::{
    Control, Engine, EngineOptions, EngineScalar, Frame, Game, GameWrapper, MathBackend, Pacing,
    RunLimit, RunReport, Setup, StateHash, World,
};

#[derive(Clone, Copy, StateHash)]
struct Pos<S: EngineScalar>(S);

/// Moves one entity one unit per tick; every hook reads it as `Pos<S>`.
#[derive(Default)]
struct Mover {
    last_seen_in_tick: i32,
    frames: u64,
    finished: Option<(u64, i32, u64)>,
    /// The sprite position of the last `present`.
    presented: Option<[f32; 2]>,
}

fn units<S: EngineScalar>(world: &World) -> i32 {
    world
        .ecs()
        .query::<&Pos<S>>()
        .iter()
        .next()
        .map_or(-1, |p| p.0.to_i32_floor())
}

impl Game for Mover {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        let world = setup.world();
        world.register_hashed_as::<Pos<S>>("test.pos")?;
        world.spawn((Pos(S::ZERO),));
        world.register_system("move", 0, |ctx| {
            for p in ctx.query_mut::<&mut Pos<S>>() {
                p.0 += S::ONE;
            }
            Ok(())
        })
    }

    fn on_tick<S: EngineScalar>(&mut self, world: &World, _tick: u64) {
        self.last_seen_in_tick = units::<S>(world);
    }

    fn on_frame<S: EngineScalar>(&mut self, world: &World, _control: &mut Control) {
        assert!(units::<S>(world) >= 0);
        self.frames += 1;
    }

    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        let x = units::<S>(world) as f32;
        frame.push(Sprite {
            position: [x, 0.0],
            ..Sprite::default()
        });
        self.presented = Some([x, 0.0]);
    }

    fn finish<S: EngineScalar>(&mut self, world: &World, report: &RunReport) {
        self.finished = Some((world.tick(), units::<S>(world), report.ticks));
    }
}

fn options() -> EngineOptions {
    EngineOptions {
        pacing: Pacing::Unpaced,
        handle_ctrl_c: false,
        ..Default::default()
    }
}

#[test]
fn hooks_see_the_backend_scalar_and_finish_sees_the_last_tick() {
    for backend in MathBackend::ALL {
        let mut config = laige_engine::EngineConfig::default();
        config.determinism.math = backend;
        let mut game = Mover::default();
        let report = Engine::builder()
            .game(&mut game)
            .config(config)
            .options(options())
            .build()
            .unwrap()
            .run_headless(RunLimit::Ticks(45))
            .unwrap();
        assert_eq!(report.ticks, 45);
        assert_eq!(game.last_seen_in_tick, 45, "{backend}");
        assert!(game.frames > 0);
        // After the run: the final world (all 45 ticks) and the report.
        assert_eq!(game.finished, Some((45, 45, 45)), "{backend}");
    }
}

/// Overrides only `on_tick`; everything else forwards.
struct Counting<G> {
    inner: G,
    ticks: u64,
}

impl<G: Game> GameWrapper for Counting<G> {
    type Inner = G;
    fn inner(&self) -> &G {
        &self.inner
    }
    fn inner_mut(&mut self) -> &mut G {
        &mut self.inner
    }
    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        self.ticks += 1;
        self.inner.on_tick::<S>(world, tick);
    }
}

#[test]
fn a_wrapper_forwards_every_hook_it_does_not_override() {
    let mut wrapped = Counting {
        inner: Mover::default(),
        ticks: 0,
    };
    Engine::builder()
        .game(&mut wrapped)
        .options(options())
        .build()
        .unwrap()
        .run_headless(RunLimit::Ticks(12))
        .unwrap();
    assert_eq!(wrapped.ticks, 12);
    // setup, on_tick, on_frame and finish reached the inner game.
    assert_eq!(wrapped.inner.last_seen_in_tick, 12);
    assert!(wrapped.inner.frames > 0);
    assert_eq!(wrapped.inner.finished, Some((12, 12, 12)));
    // And so does present, which the wrapper never mentions (a run that
    // renders, on a headless EGL context).
    let mut wrapped = Counting {
        inner: Mover::default(),
        ticks: 0,
    };
    let run = Engine::builder()
        .game(&mut wrapped)
        .options(EngineOptions {
            headless_render: laige_engine::HeadlessRender::Gl {
                width: 32,
                height: 32,
            },
            ..options()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Ticks(12));
    match run {
        Ok(report) => assert_eq!(report.ticks, 12),
        Err(e)
            if e.code() == laige_engine::ErrorCode::Unsupported
                && std::env::var("LAIGE_REQUIRE_GL").as_deref() != Ok("1") =>
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stdout().lock(),
                "SKIPPED: the present half: no usable EGL ({e})"
            );
            return;
        }
        Err(e) => panic!("run: {e}"),
    }
    assert_eq!(wrapped.inner.presented, Some([12.0, 0.0]));
}
