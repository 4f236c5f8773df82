//! A small game written against the README and the rustdoc alone (the
//! prelude, resources, held keys, the seeded rng, `finish`, record and
//! replay): a collector that walks with the arrow keys and picks up coins
//! the rng scatters. The test plays it headless with scripted key holds,
//! checks the score it reads in `finish`, and verifies its replay.

use laige_engine::core::RateGrid;
use laige_engine::hecs::Entity;
use laige_engine::prelude::*;

#[derive(Clone, Copy, StateHash)]
struct Player<S: EngineScalar>(Vec2<S>);

#[derive(Clone, Copy, StateHash)]
struct Coin<S: EngineScalar>(Vec2<S>);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
struct Collected(u32);

#[derive(Default)]
struct Collector {
    score: Option<u32>,
    coins_drawn: usize,
}

impl Game for Collector {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let world = setup.world();
        world.register_hashed_as::<Player<S>>("collector.player")?;
        world.register_hashed_as::<Coin<S>>("collector.coin")?;
        world.insert_hashed_resource("collector.collected", Collected::default())?;
        world.spawn((Player(Vec2::new(S::ZERO, S::ZERO)),));
        // Ten coins on a line to the right, at random heights near 0.
        let mut rng = world.resource::<SimRng>()?.stream("coins");
        for i in 1..=10 {
            let y = rng.range_i32(-1, 2);
            world.spawn((Coin(Vec2::new(S::from_i32(i * 4), S::from_i32(y))),));
        }
        world.register_system("collector/walk", 0, |ctx| {
            let input = ctx.input();
            let mut step = Vec2::new(S::ZERO, S::ZERO);
            if input.is_down(KeyCode::ARROW_RIGHT) {
                step.x += S::ONE;
            }
            if input.is_down(KeyCode::ARROW_LEFT) {
                step.x -= S::ONE;
            }
            for p in ctx.query_mut::<&mut Player<S>>() {
                p.0 += step;
            }
            Ok(())
        })?;
        // Reserved here: the tick path must not allocate.
        let mut taken: Vec<Entity> = Vec::with_capacity(16);
        world.register_system("collector/pick", 10, move |ctx| {
            let Some(at) = ctx.query_mut::<&Player<S>>().next().map(|p| p.0) else {
                return Ok(());
            };
            taken.clear();
            for (e, c) in ctx.query_mut::<(Entity, &Coin<S>)>() {
                if (c.0.x - at.x).abs() <= S::ONE && (c.0.y - at.y).abs() <= S::ONE {
                    taken.push(e);
                }
            }
            for e in &taken {
                ctx.despawn(*e)?;
            }
            ctx.resource_mut::<Collected>()?.0 += u32::try_from(taken.len()).unwrap_or(0);
            Ok(())
        })
    }

    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        let sprites = frame.sprites();
        let coins = world.ecs().query::<&Coin<S>>().iter().count();
        self.coins_drawn = coins;
        for c in world.ecs().query::<&Coin<S>>().iter() {
            sprites.push(Sprite::quad(
                [c.0.x.to_f32(), c.0.y.to_f32()],
                [1.0, 1.0],
                [1.0, 0.8, 0.0, 1.0],
            ));
        }
    }

    fn finish<S: EngineScalar>(&mut self, world: &World, _report: &RunReport) {
        self.score = world.resource::<Collected>().ok().map(|c| c.0);
    }
}

fn hold(key: KeyCode, from_tick: u64, to_tick: u64) -> [(ScriptAt, InputKind); 2] {
    let grid = RateGrid::new(60).expect("60 Hz");
    // Pressed a third of the way into the tick, released at the start.
    let at = grid.start_ns(from_tick) + 5_000_000;
    [
        (
            ScriptAt::TimeNs(at),
            InputKind::Key {
                key,
                state: ButtonState::Pressed,
            },
        ),
        (
            ScriptAt::Tick(to_tick),
            InputKind::Key {
                key,
                state: ButtonState::Released,
            },
        ),
    ]
}

#[test]
fn a_new_users_game_plays_scores_and_replays() {
    let path = std::env::temp_dir().join(format!("laige-collector-{}.lrp", std::process::id()));
    let mut game = Collector::default();
    let report = Engine::builder()
        .game(&mut game)
        .scripted_input(hold(KeyCode::ARROW_RIGHT, 10, 52))
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            ..Default::default()
        })
        .record(&path)
        .build()
        .unwrap()
        .run_headless(RunLimit::Ticks(90))
        .unwrap();
    assert_eq!(report.exit_code(), 0, "{report}");
    // Walked 42 units right: every coin up to x = 40 lies within reach.
    let score = game.score.expect("finish ran");
    assert_eq!(score, 10, "{report}");
    assert_eq!(report.entities, 1);

    let verdict = Engine::builder()
        .game(Collector::default())
        .options(EngineOptions {
            handle_ctrl_c: false,
            ..Default::default()
        })
        .build()
        .unwrap()
        .replay(&path)
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(verdict.outcome.is_verified(), "{verdict}");
}
