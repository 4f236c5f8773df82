//! # Billiards: a small game on laige-physics
//!
//! **Motivation.** The physics crate inside a whole game: rigid bodies,
//! colliders with restitution and damping, static cushions, sensor pockets
//! whose begin events the game reads, despawning a pocketed ball and
//! putting the cue ball back — all world state, so the run replays and
//! hashes bit for bit like any other laige game.
//!
//! **Implementation.** A top-down table of 24 × 12 m with no gravity,
//! four static cushions and six pockets (sensor circles at the corners and
//! the middle of the long sides), fifteen object balls racked in a
//! triangle and the cue ball. Systems, in order: `billiards/shot` (order 0)
//! — when every ball is at rest, the bot strikes the cue ball towards the
//! lowest-numbered ball left, with a random aim offset and speed drawn
//! from the engine's `SimRng`; `physics_step` (order 10, laige-physics at
//! the tick length); `billiards/pockets` (order 20) — each sensor begin
//! between a pocket and a ball pockets the ball: an object ball is
//! despawned and scored, the cue ball is put back on its spot (a foul).
//! The score is a hashed resource.
//!
//! **Check** (headless, what CI runs): 3 600 ticks (a minute at 60 Hz) of
//! bot play; the run fails unless shots were taken, balls were pocketed,
//! every ball left is on the table (none passed through a cushion) and,
//! on the default `fixed_point_16_16` backend, the final state hash equals
//! [`KNOWN_HASH`] (Q16.16 is bit-exact on every target and build: a
//! change to it is a change to the physics or to this game).
//!
//! **Controls** (with `--window`): watch the bot play; Escape quits.
//!
//! ```text
//! cargo run -p laige-engine --features physics --example billiards
//! cargo run -p laige-engine --features physics --example billiards -- --window
//! cargo run -p laige-engine --features physics --example billiards -- --window --screenshot b.ppm
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program prints its report"
)]

#[cfg(not(target_arch = "wasm32"))]
#[path = "support/screenshot.rs"]
mod screenshot;

use std::fmt::Write as _;

use laige_engine::physics::{
    BodyDef, Collider, Physics, PhysicsConfig, PhysicsEventKind, PhysicsState, RigidBody,
    Shape as Body, spawn_body,
};
use laige_engine::prelude::*;

/// Table size, metres (the play area; cushions lie outside it).
const W: i32 = 24;
const H: i32 = 12;
/// Ball radius: 3/10 m.
const R_NUM: i32 = 3;
const R_DEN: i32 = 10;
/// Object balls.
#[cfg(not(target_arch = "wasm32"))]
const OBJECT_BALLS: u8 = 15;
/// Ticks of the headless run.
#[cfg(not(target_arch = "wasm32"))]
const HEADLESS_TICKS: u64 = 3_600;
/// The final state hash of the headless run on `fixed_point_16_16`.
#[cfg(not(target_arch = "wasm32"))]
const KNOWN_HASH: u64 = 0xcabd_be2f_b8af_92f7;

/// A ball: 0 is the cue ball, 1..=15 the object balls. Hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
struct Ball(u8);

/// A pocket (a sensor body). Hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
struct Pocket;

/// The score: a hashed resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
struct Score {
    shots: u32,
    pocketed: u32,
    fouls: u32,
}

fn m<S: EngineScalar>(v: i32) -> S {
    S::from_i32(v)
}

fn v2<S: EngineScalar>(x: S, y: S) -> Vec2<S> {
    Vec2::new(x, y)
}

/// The cue ball's spot.
fn cue_spot<S: EngineScalar>() -> Vec2<S> {
    v2(m(6), m(H / 2))
}

fn ball_def<S: EngineScalar>(at: Vec2<S>) -> BodyDef<S> {
    let mut def = BodyDef::dynamic(at);
    // Cloth drag: balls roll to a stop in a few seconds.
    def.linear_damping = S::from_ratio(3, 5);
    def.angular_damping = S::ONE;
    def
}

fn ball_collider<S: EngineScalar>() -> Result<Collider<S>> {
    Ok(Collider::new(Body::circle(S::from_ratio(R_NUM, R_DEN))?)
        .restitution(S::from_ratio(9, 10))
        .friction(S::from_ratio(1, 10)))
}

/// Builds the table: cushions, pockets, the rack and the cue ball.
fn build<S: EngineScalar>(world: &mut World) -> Result<()> {
    let cushion = |hw: i32, hh: i32| -> Result<Collider<S>> {
        Ok(Collider::new(Body::rect(m(hw), m(hh))?).restitution(S::from_ratio(4, 5)))
    };
    // Cushions 1 m thick, just outside the play area.
    for (at, hw, hh) in [
        (v2(m(W / 2), m(-1)), W / 2 + 2, 1),
        (v2(m(W / 2), m(H + 1)), W / 2 + 2, 1),
        (v2(m(-1), m(H / 2)), 1, H / 2),
        (v2(m(W + 1), m(H / 2)), 1, H / 2),
    ] {
        spawn_body(world, &BodyDef::fixed(at), &[cushion(hw, hh)?])?;
    }
    let mouth = Collider::new(Body::circle(S::from_ratio(3, 5))?).sensor(true);
    for (x, y) in [(0, 0), (W / 2, 0), (W, 0), (0, H), (W / 2, H), (W, H)] {
        let e = spawn_body(world, &BodyDef::fixed(v2(m(x), m(y))), &[mouth])?;
        world.insert(e, (Pocket,))?;
    }
    let ball = ball_collider::<S>()?;
    let e = spawn_body(world, &ball_def(cue_spot()), &[ball])?;
    world.insert(e, (Ball(0),))?;
    // The rack: rows of 1..=5 balls, apex at x = 16, 0.62 m apart.
    let gap = S::from_ratio(62, 100);
    let mut n = 1;
    for row in 0..5 {
        for k in 0..=row {
            let x = m::<S>(16) + S::from_i32(row) * gap * S::from_ratio(87, 100);
            let y = m::<S>(H / 2) + (S::from_i32(2 * k - row) * gap) / m(2);
            let e = spawn_body(world, &ball_def(v2(x, y)), &[ball])?;
            world.insert(e, (Ball(n),))?;
            n += 1;
        }
    }
    Ok(())
}

/// Strikes the cue ball towards the lowest-numbered ball left: `offset`
/// (radians) turns the aim, `speed` m/s.
fn strike<S: EngineScalar>(ctx: &mut SystemContext<'_>, offset: S, speed: S) {
    let mut cue = None;
    let mut target: Option<(u8, Vec2<S>)> = None;
    for (ball, body) in ctx.query_mut::<(&Ball, &RigidBody<S>)>() {
        if ball.0 == 0 {
            cue = Some(body.position);
        } else if target.is_none_or(|(n, _)| ball.0 < n) {
            target = Some((ball.0, body.position));
        }
    }
    let (Some(from), Some((_, to))) = (cue, target) else {
        return;
    };
    let d = to - from;
    let len = d.length_wide();
    if len <= S::ZERO {
        return;
    }
    let (sin, cos) = offset.sin_cos();
    let dir = v2(d.x * cos - d.y * sin, d.x * sin + d.y * cos) / len;
    for (ball, body) in ctx.query_mut::<(&Ball, &mut RigidBody<S>)>() {
        if ball.0 == 0 {
            body.linear_velocity = dir * speed;
            body.wake();
        }
    }
}

struct Billiards {
    final_score: Option<Score>,
    /// Balls off the table at the end (must be none).
    off_table: u32,
    /// Balls left at the end.
    left: u32,
}

impl Game for Billiards {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let config = PhysicsConfig {
            gravity: Vec2::default(),
            dt: S::from_ratio(1, i32::try_from(setup.tick_rate_hz()).unwrap_or(60)),
            ..PhysicsConfig::default()
        };
        let world = setup.world();
        world.register_hashed_as::<Ball>("billiards.ball")?;
        world.register_hashed_as::<Pocket>("billiards.pocket")?;
        world.insert_hashed_resource("billiards.score", Score::default())?;
        Physics::install(world, config, 10)?;
        build::<S>(world)?;

        world.register_system("billiards/shot", 0, |ctx| {
            // At rest: every ball asleep or slower than 2 cm/s.
            let slow = S::from_ratio(1, 50);
            let moving = ctx
                .query_mut::<(&Ball, &RigidBody<S>)>()
                .any(|(_, b)| !b.sleeping && b.linear_velocity.length_wide() > slow);
            if moving {
                return Ok(());
            }
            // ±0.06 rad of aim error, 9..=15 m/s.
            let rng = ctx.resource_mut::<SimRng>()?;
            let offset = S::from_ratio(rng.range_i32(-60, 61), 1000);
            let speed = m(rng.range_i32(9, 16));
            strike::<S>(ctx, offset, speed);
            ctx.resource_mut::<Score>()?.shots += 1;
            Ok(())
        })?;

        world.register_system("billiards/pockets", 20, |ctx| {
            // The step's sensor begins: (pocket?, other) entity bits.
            // (A fixed array: the tick allocates nothing; more than eight
            // pocketings in one tick wait for no one — they cannot happen
            // with six pockets and a sensor begin per ball.)
            let mut hits = [(0_u64, 0_u64); 8];
            let mut n = 0;
            for e in ctx.resource::<PhysicsState<S>>()?.events() {
                if e.kind == PhysicsEventKind::SensorBegin && n < hits.len() {
                    hits[n] = (e.body_a, e.body_b);
                    n += 1;
                }
            }
            for &(a, b) in &hits[..n] {
                for (me, other) in [(a, b), (b, a)] {
                    let (Some(me), Some(other)) = (Entity::from_bits(me), Entity::from_bits(other))
                    else {
                        continue;
                    };
                    if ctx.get_copied::<Pocket>(me).is_none() {
                        continue;
                    }
                    let Some(ball) = ctx.get_copied::<Ball>(other) else {
                        continue;
                    };
                    if ball.0 == 0 {
                        if let Some(body) = ctx.query_one_mut::<&mut RigidBody<S>>(other) {
                            body.position = cue_spot();
                            body.linear_velocity = Vec2::default();
                            body.angular_velocity = S::ZERO;
                            body.wake();
                        }
                        ctx.resource_mut::<Score>()?.fouls += 1;
                    } else {
                        ctx.despawn(other)?;
                        ctx.resource_mut::<Score>()?.pocketed += 1;
                    }
                }
            }
            Ok(())
        })
    }

    fn on_input<S: EngineScalar>(&mut self, event: &InputEvent, control: &mut Control) {
        if let InputKind::Key {
            key: KeyCode::ESCAPE,
            state: ButtonState::Pressed,
        } = event.kind
        {
            control.exit();
        }
    }

    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        let xy = |v: Vec2<S>| [v.x.to_f32(), v.y.to_f32()];
        // The cloth and the cushions.
        frame.push(Sprite::quad(
            [W as f32 / 2.0, H as f32 / 2.0],
            [W as f32 + 2.0, H as f32 + 2.0],
            [0.35, 0.2, 0.1, 1.0],
        ));
        frame.push(Sprite::quad(
            [W as f32 / 2.0, H as f32 / 2.0],
            [W as f32, H as f32],
            [0.0, 0.45, 0.2, 1.0],
        ));
        for (_, b) in world.ecs().query::<(&Pocket, &RigidBody<S>)>().iter() {
            frame.push(Sprite {
                shape: Shape::Circle,
                ..Sprite::quad(xy(b.position), [1.2, 1.2], [0.0, 0.0, 0.0, 1.0])
            });
        }
        for (ball, b) in world.ecs().query::<(&Ball, &RigidBody<S>)>().iter() {
            let color = if ball.0 == 0 {
                [1.0, 1.0, 1.0, 1.0]
            } else if ball.0 % 2 == 1 {
                [0.95, 0.75, 0.1, 1.0]
            } else {
                [0.8, 0.1, 0.1, 1.0]
            };
            let d = 2.0 * R_NUM as f32 / R_DEN as f32;
            frame.push(Sprite {
                shape: Shape::Circle,
                ..Sprite::quad(xy(b.position), [d, d], color)
            });
        }
        if let Ok(score) = world.resource::<Score>() {
            let mut text = ArrayString::<48>::new();
            let _ = write!(
                text,
                "shots {}  pocketed {}  fouls {}",
                score.shots, score.pocketed, score.fouls
            );
            frame.text(
                &text,
                &TextStyle {
                    position: [W as f32 / 2.0, -1.6],
                    size: 0.8,
                    align: Align::Center,
                    space: Space::World,
                    color: [0.8, 0.8, 0.8, 1.0],
                    ..TextStyle::default()
                },
            );
        }
    }

    fn view(&self, _config: &EngineConfig) -> ViewRect {
        // 30 × 16.875 m: the table, its cushions and the score line, at
        // the window's 16:9.
        const TABLE: ViewRect = ViewRect::from_bounds(-3.0, -2.5, W as f32 + 3.0, 14.375);
        TABLE
    }

    fn finish<S: EngineScalar>(&mut self, world: &World, _report: &RunReport) {
        self.final_score = world.resource::<Score>().ok().copied();
        for (_, b) in world.ecs().query::<(&Ball, &RigidBody<S>)>().iter() {
            self.left += 1;
            let (x, y) = (b.position.x, b.position.y);
            if x < S::ZERO || y < S::ZERO || x > m(W) || y > m(H) {
                self.off_table += 1;
            }
        }
    }
}

/// The pixels a windowed frame must have: cloth green, the white cue ball,
/// the balls' yellow, the clear colour in the corner.
#[cfg(not(target_arch = "wasm32"))]
fn check(path: &std::path::Path) -> std::result::Result<String, String> {
    let shot = screenshot::Shot::read(path)?;
    let cloth = shot.count(|p| screenshot::near(p, [0, 115, 51], 2));
    let white = shot.count(|p| p == [255; 3]);
    let yellow = shot.count(|p| screenshot::near(p, [242, 191, 26], 2));
    let corner = shot.at(0, shot.height - 1);
    let area = shot.width * shot.height;
    if cloth < area / 4 {
        return Err(format!(
            "{cloth} cloth pixels of {area}: the table is missing"
        ));
    }
    if white < 100 {
        return Err(format!("{white} white pixels: the cue ball is missing"));
    }
    if yellow < 400 {
        return Err(format!(
            "{yellow} yellow pixels: the object balls are missing"
        ));
    }
    if !screenshot::near(corner, [15, 18, 26], 1) {
        return Err(format!("the corner is {corner:?}, not the clear colour"));
    }
    Ok(format!(
        "{}x{}: {cloth} cloth, {white} cue-ball, {yellow} yellow-ball pixels",
        shot.width, shot.height
    ))
}

/// In a browser (`cargo xtask web` builds the page): the same table on the
/// page's canvas, the bot playing.
#[cfg(target_arch = "wasm32")]
fn main() {
    laige_engine::page::run(Engine::builder().game(Billiards {
        final_score: None,
        off_table: 0,
        left: 0,
    }));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    let args = screenshot::Args::parse();
    let ticks = args.ticks.unwrap_or(HEADLESS_TICKS);
    let mut game = Billiards {
        final_score: None,
        off_table: 0,
        left: 0,
    };
    let builder = Engine::builder().game(&mut game);
    let run = if args.window {
        let mut options = EngineOptions::default();
        if let Some(path) = &args.screenshot {
            options.capture = Some(laige_engine::FrameCapture {
                frame: screenshot::SHOT_FRAME,
                path: path.clone(),
            });
            options.close_after_frames = Some(screenshot::CLOSE_AFTER);
        }
        builder
            .options(options)
            .build()
            .and_then(|e| e.run_windowed(RunLimit::Unlimited))
    } else {
        builder
            .options(EngineOptions {
                pacing: Pacing::Unpaced,
                ..Default::default()
            })
            .build()
            .and_then(|e| e.run_headless(RunLimit::Ticks(ticks)))
    };
    let report = match run {
        Ok(report) => report,
        Err(e) => {
            eprintln!("billiards: {e}");
            return std::process::ExitCode::from(laige_engine::EXIT_SETUP_FAILED);
        }
    };
    println!("{report}");
    let score = game.final_score.unwrap_or_default();
    println!(
        "billiards: {} shots, {} pocketed, {} fouls; {} balls left, {} off the table; state hash {:#018x}",
        score.shots, score.pocketed, score.fouls, game.left, game.off_table, report.state_hash
    );
    if report.exit_code() != 0 {
        return std::process::ExitCode::from(report.exit_code());
    }
    let mut failed = Vec::new();
    if game.off_table > 0 {
        failed.push(format!("{} balls passed through a cushion", game.off_table));
    }
    if game.left + score.pocketed != u32::from(OBJECT_BALLS) + 1 {
        failed.push(format!(
            "{} balls left and {} pocketed: not the 16 racked",
            game.left, score.pocketed
        ));
    }
    // The minute of play's checks (a shorter `--ticks` run has only the
    // table's).
    if !args.window && ticks == HEADLESS_TICKS {
        if score.shots < 3 || score.pocketed == 0 {
            failed.push(format!(
                "{} shots pocketed {} balls in a minute of play",
                score.shots, score.pocketed
            ));
        }
        if report.backend == MathBackend::FixedPoint16_16 && report.state_hash != KNOWN_HASH {
            failed.push(format!(
                "the final state hash {:#018x} is not the known {KNOWN_HASH:#018x}",
                report.state_hash
            ));
        }
    }
    if let Some(path) = args.screenshot.as_deref().filter(|_| args.window) {
        match check(path) {
            Ok(summary) => println!("billiards: screenshot ok ({summary})"),
            Err(e) => failed.push(format!("screenshot check: {e}")),
        }
    }
    if failed.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        for f in failed {
            eprintln!("billiards: FAILED: {f}");
        }
        std::process::ExitCode::FAILURE
    }
}
