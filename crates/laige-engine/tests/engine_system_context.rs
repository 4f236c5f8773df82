//! What a system and a game hold at once, through the prelude alone: a
//! resource and a query together (`resource_and_entities_mut`), the tick's
//! start on the tick grid (`tick_start_ns`, the base of an input event's
//! sub-tick offset), entity handles (`Entity`) kept across the run, and a
//! view from literal bounds (`ViewRect::from_bounds`).

use laige_engine::prelude::*;

#[derive(Clone, Copy, StateHash)]
struct Hp(i32);

/// The sum of every `Hp`, recomputed each tick (a hashed resource).
#[derive(Clone, Copy, Default, StateHash)]
struct Total(i32);

/// The sub-tick offsets of the last 8 events (`time_ns − tick_start_ns`)
/// and the ticks they came in.
#[derive(Clone, Copy, Default)]
struct Offsets {
    seen: [(u64, i64, i64); 8],
    n: usize,
}

const RATE: u32 = 30;

#[derive(Default)]
struct Keeper {
    /// Handles from setup, read back in `finish`.
    kept: Vec<Entity>,
    hp_at_end: Vec<i32>,
    total: i32,
    offsets: Offsets,
}

impl Game for Keeper {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let world = setup.world();
        world.register_hashed_as::<Hp>("ctx.hp")?;
        world.insert_hashed_resource("ctx.total", Total::default())?;
        world.insert_resource(Offsets::default());
        self.kept = (1..=3).map(|i| world.spawn((Hp(10 * i),))).collect();
        world.register_system("ctx/sum", 0, |ctx| {
            // The resource and a query at once: no copy-out, no write-back.
            let (total, entities) = ctx.resource_and_entities_mut::<Total>()?;
            total.0 = 0;
            for hp in entities.query_mut::<&mut Hp>() {
                hp.0 -= 1;
                total.0 += hp.0;
            }
            Ok(())
        })?;
        world.register_system("ctx/offsets", 1, |ctx| {
            let (tick, start) = (ctx.tick(), ctx.tick_start_ns());
            let input = ctx.input();
            let offsets = ctx.resource_mut::<Offsets>()?;
            for event in input {
                let slot = offsets.n % 8;
                offsets.seen[slot] = (tick, start, event.time_ns - start);
                offsets.n += 1;
            }
            Ok(())
        })
    }

    fn view(&self, _config: &EngineConfig) -> ViewRect {
        const VIEW: ViewRect = ViewRect::from_bounds(-1.0, -1.0, 1.0, 1.0);
        VIEW
    }

    fn finish<S: EngineScalar>(&mut self, world: &World, _report: &RunReport) {
        self.hp_at_end = self
            .kept
            .iter()
            .map(|&e| world.ecs().get::<&Hp>(e).map_or(-1, |hp| hp.0))
            .collect();
        self.total = world.resource::<Total>().map_or(-1, |t| t.0);
        self.offsets = world.resource::<Offsets>().copied().unwrap_or_default();
    }
}

#[test]
fn a_system_holds_a_resource_and_a_query_and_reads_its_ticks_start() {
    let mut config = EngineConfig::default();
    config.game_loop.tick_rate_hz = RATE;
    // Three events inside ticks 4, 7 and 7 (at 30 Hz a tick is 33.33 ms).
    let script = [
        (
            ScriptAt::TimeNs(140_000_000),
            InputKind::Action { id: 1, value: 0 },
        ),
        (
            ScriptAt::TimeNs(233_400_000),
            InputKind::Action { id: 2, value: 0 },
        ),
        (
            ScriptAt::TimeNs(266_000_000),
            InputKind::Action { id: 3, value: 0 },
        ),
    ];
    let mut game = Keeper::default();
    let report = Engine::builder()
        .game(&mut game)
        .config(config)
        .scripted_input(script)
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            ..EngineOptions::default()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Ticks(9))
        .unwrap();
    assert_eq!(report.ticks, 9);
    // Nine ticks of −1 each, through the handles kept since setup.
    assert_eq!(game.hp_at_end, [1, 11, 21]);
    assert_eq!(game.total, 33);
    // Each event's tick starts at ⌈tick × 10⁹ / 30⌉ and the event lies
    // inside it: its offset is its time minus that start.
    let seen = &game.offsets.seen[..game.offsets.n];
    let start = |t: u64| i64::try_from((u128::from(t) * 1_000_000_000).div_ceil(30)).unwrap();
    assert_eq!(
        seen,
        [
            (4, start(4), 140_000_000 - start(4)),
            (7, start(7), 233_400_000 - start(7)),
            (7, start(7), 266_000_000 - start(7)),
        ]
    );
    let period = 1_000_000_000 / i64::from(RATE);
    assert!(seen.iter().all(|&(_, _, off)| (0..=period).contains(&off)));
}

#[test]
fn two_resources_at_once_and_the_errors_that_name_them() {
    struct A(u32);
    struct B(u32);
    struct Missing;
    let mut world = World::default();
    world.insert_resource(A(1));
    world.insert_resource(B(2));
    world
        .register_system("pair", 0, |ctx| {
            let (a, b) = ctx.resources_mut::<A, B>()?;
            (a.0, b.0) = (b.0, a.0 + b.0);
            let (b, a) = ctx.resources_mut::<B, A>()?;
            b.0 += a.0;
            let same = ctx.resources_mut::<A, A>().err().expect("one type twice");
            assert_eq!(same.field(), Some("resource pair"));
            assert!(same.to_string().contains("A"), "{same}");
            let missing = ctx
                .resources_mut::<A, Missing>()
                .err()
                .expect("no such resource");
            assert!(missing.to_string().contains("Missing"), "{missing}");
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    world.run_systems(&schedule).unwrap();
    assert_eq!(
        (
            world.resource::<A>().unwrap().0,
            world.resource::<B>().unwrap().0
        ),
        (2, 5)
    );
}
