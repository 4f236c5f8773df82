//! # Pong: a complete small game on laige-engine
//!
//! **Motivation.** The smallest game that uses every part a real one needs:
//! hashed components generic over the math backend, a hashed resource for
//! the score, the engine's seeded random generator for the serve, held-key
//! input for the player's paddle, a bot, presentation with interpolation,
//! and the game's state read after the run.
//!
//! **Implementation.** The field is 320 × 180 world units. Three entities:
//! two paddles (`Paddle`) and the ball (`Ball`), each with a `Pos` and the
//! previous tick's `Prev` (copied at the start of each tick, so the
//! renderer can interpolate). Systems, in order: `pong/prev` copies
//! positions, `pong/paddles` moves the left paddle by W/S while either is
//! held (`ctx.input().is_down`) and otherwise lets the bot track the ball
//! like the right one, `pong/ball` moves the ball, bounces it off the walls
//! and paddles, and on a miss adds a point to the `Score` resource and
//! serves again with a random vertical direction drawn from the engine's
//! `SimRng`. Everything is integer or `S` arithmetic, so the run replays
//! bit for bit.
//!
//! **Effects.** A paddle hit emits a `Hit` effect (`ctx.effect`); the game
//! reads them each frame (`World::read_effects`) and lights the paddle's
//! halo for a few frames: on `Predicted`, or on `Confirmed` of an effect
//! not predicted before (a run without a rollback session confirms each
//! tick as it completes), and puts it out on `Cancelled` — in a rollback
//! session a hit that a re-simulation removes stops flashing, and one it
//! keeps flashes once.
//!
//! **Controls** (with `--window`): W / S move the left paddle; Escape
//! quits. Headless by default (what CI runs): 1200 ticks of bot against
//! bot, then the score and the report.
//!
//! ```text
//! cargo run -p laige-engine --example pong              # headless, 20 s of play
//! cargo run -p laige-engine --example pong -- --window  # play it
//! cargo run -p laige-engine --example pong -- --window --screenshot pong.ppm
//!                        # frame 30 read back and checked, closed after 45
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

use laige_engine::prelude::*;

const W: i32 = 320;
const H: i32 = 180;
const PADDLE_H: i32 = 30;
const BALL: i32 = 4;

#[derive(Clone, Copy, StateHash)]
struct Pos<S: EngineScalar>(Vec2<S>);

#[derive(Clone, Copy, StateHash)]
struct Prev<S: EngineScalar>(Vec2<S>);

#[derive(Clone, Copy, StateHash)]
struct Vel<S: EngineScalar>(Vec2<S>);

/// 0 = left, 1 = right.
#[derive(Clone, Copy, StateHash)]
struct Paddle(u8);

#[derive(Clone, Copy, StateHash)]
struct Ball;

/// The score: a hashed resource, so it is part of every state hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
struct Score {
    left: u32,
    right: u32,
}

fn units<S: EngineScalar>(v: i32) -> S {
    S::from_i32(v)
}

/// A serve from the center, towards `dir` (±1), with a random slope.
fn serve<S: EngineScalar>(rng: &mut SimRng, dir: i32) -> (Vec2<S>, Vec2<S>) {
    let dy = rng.range_i32(-4, 5); // -2..=2 units per tick, in halves
    (
        Vec2::new(units(W / 2), units(H / 2)),
        Vec2::new(S::from_ratio(dir * 5, 2), S::from_ratio(dy, 2)),
    )
}

/// A paddle hit the ball: the presentation effect (`ctx.effect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hit {
    side: u8,
}

/// Frames a hit's halo stays lit.
const FLASH_FRAMES: u32 = 12;

struct Pong {
    /// The final score, read in `finish`.
    final_score: Option<Score>,
    /// Where this game is in the hit effects.
    hits: EffectReader,
    /// Frames left of each paddle's halo.
    flash: [u32; 2],
    /// Hits shown (predicted or confirmed unpredicted) and cancelled.
    shown: u64,
    cancelled: u64,
}

impl Game for Pong {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let world = setup.world();
        world.register_hashed_as::<Pos<S>>("pong.pos")?;
        world.register_hashed_as::<Prev<S>>("pong.prev")?;
        world.register_hashed_as::<Vel<S>>("pong.vel")?;
        world.register_hashed_as::<Paddle>("pong.paddle")?;
        world.register_hashed_as::<Ball>("pong.ball")?;
        world.insert_hashed_resource("pong.score", Score::default())?;
        world.enable_effects::<Hit>(EffectConfig::default())?;
        for (side, x) in [(0_u8, 10), (1, W - 10)] {
            let p = Vec2::new(units::<S>(x), units::<S>(H / 2));
            world.spawn((Paddle(side), Pos(p), Prev(p)));
        }
        let (p, v) = serve::<S>(world.resource_mut::<SimRng>()?, 1);
        world.spawn((Ball, Pos(p), Prev(p), Vel(v)));

        world.register_system("pong/prev", 0, |ctx| {
            for (p, prev) in ctx.query_mut::<(&Pos<S>, &mut Prev<S>)>() {
                prev.0 = p.0;
            }
            Ok(())
        })?;
        world.register_system("pong/paddles", 10, |ctx| {
            let input = ctx.input();
            let human = match (input.is_down(KeyCode::W), input.is_down(KeyCode::S)) {
                (true, false) => Some(3),
                (false, true) => Some(-3),
                _ => None,
            };
            let ball_y = ctx
                .query_mut::<(&Ball, &Pos<S>)>()
                .next()
                .map(|(_, p)| p.0.y);
            let Some(ball_y) = ball_y else {
                return Ok(());
            };
            let half = units::<S>(PADDLE_H / 2);
            for (paddle, p) in ctx.query_mut::<(&Paddle, &mut Pos<S>)>() {
                let step = match (paddle.0, human) {
                    (0, Some(dy)) => units(dy),
                    // The bot: towards the ball, 1.5 units per tick at
                    // most, so a steep serve beats it.
                    _ => (ball_y - p.0.y).clamp(S::from_ratio(-3, 2), S::from_ratio(3, 2)),
                };
                p.0.y = (p.0.y + step).clamp(half, units::<S>(H) - half);
            }
            Ok(())
        })?;
        world.register_system("pong/ball", 20, |ctx| {
            let mut paddles = [Vec2::<S>::default(); 2];
            for (paddle, p) in ctx.query_mut::<(&Paddle, &Pos<S>)>() {
                paddles[usize::from(paddle.0)] = p.0;
            }
            let mut missed = None;
            let mut hits = [false; 2];
            for (_, p, v) in ctx.query_mut::<(&Ball, &mut Pos<S>, &mut Vel<S>)>() {
                p.0 += v.0;
                if p.0.y < units(BALL / 2) || p.0.y > units(H - BALL / 2) {
                    v.0.y = -v.0.y;
                    p.0.y = p.0.y.clamp(units(BALL / 2), units(H - BALL / 2));
                }
                for (side, paddle) in paddles.iter().enumerate() {
                    let facing = if side == 0 {
                        v.0.x < S::ZERO
                    } else {
                        v.0.x > S::ZERO
                    };
                    let hit = (p.0.x - paddle.x).abs() < units(3)
                        && (p.0.y - paddle.y).abs() < units(PADDLE_H / 2 + BALL / 2);
                    if facing && hit {
                        v.0.x = -v.0.x;
                        // Off-center hits steer the ball.
                        v.0.y += (p.0.y - paddle.y) / units(8);
                        hits[side] = true;
                    }
                }
                if p.0.x < S::ZERO {
                    missed = Some(0);
                } else if p.0.x > units(W) {
                    missed = Some(1);
                }
            }
            for (side, _) in hits.iter().enumerate().filter(|(_, h)| **h) {
                ctx.effect(Hit {
                    side: u8::try_from(side).unwrap_or(0),
                })?;
            }
            if let Some(side) = missed {
                let score = ctx.resource_mut::<Score>()?;
                if side == 0 {
                    score.right += 1;
                } else {
                    score.left += 1;
                }
                let (np, nv) = serve::<S>(
                    ctx.resource_mut::<SimRng>()?,
                    if side == 0 { 1 } else { -1 },
                );
                for (_, p, prev, v) in
                    ctx.query_mut::<(&Ball, &mut Pos<S>, &mut Prev<S>, &mut Vel<S>)>()
                {
                    (p.0, prev.0, v.0) = (np, np, nv);
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

    fn on_frame<S: EngineScalar>(&mut self, world: &World, _control: &mut Control) {
        for f in &mut self.flash {
            *f = f.saturating_sub(1);
        }
        let (flash, shown, cancelled) = (&mut self.flash, &mut self.shown, &mut self.cancelled);
        let _ = world.read_effects::<Hit>(&mut self.hits, |e| {
            let side = usize::from(e.effect.side.min(1));
            match e.kind {
                EffectKind::Predicted | EffectKind::Confirmed { predicted: false } => {
                    flash[side] = FLASH_FRAMES;
                    *shown += 1;
                }
                EffectKind::Cancelled => {
                    flash[side] = 0;
                    *cancelled += 1;
                }
                EffectKind::Confirmed { predicted: true } => {}
            }
        });
    }

    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        let xy = |v: Vec2<S>| [v.x.to_f32(), v.y.to_f32()];
        // A lit halo behind a paddle that just hit the ball.
        for (paddle, p) in world.ecs().query::<(&Paddle, &Pos<S>)>().iter() {
            let lit = self.flash[usize::from(paddle.0.min(1))];
            if lit > 0 {
                let size = [10.0, PADDLE_H as f32 + 6.0];
                let glow = lit as f32 / FLASH_FRAMES as f32;
                frame.push(Sprite::quad(xy(p.0), size, [1.0, 0.8, 0.2, glow]));
            }
        }
        for (paddle, p, prev) in world
            .ecs()
            .query::<(Option<&Paddle>, &Pos<S>, &Prev<S>)>()
            .iter()
        {
            let size = if paddle.is_some() {
                [4.0, PADDLE_H as f32]
            } else {
                [BALL as f32; 2]
            };
            frame.push(Sprite {
                position: xy(p.0),
                prev_position: xy(prev.0),
                size,
                shape: if paddle.is_some() {
                    Shape::Quad
                } else {
                    Shape::Circle
                },
                ..Sprite::quad(xy(p.0), size, [1.0, 1.0, 1.0, 1.0])
            });
        }
        // The score, centred at the top of the field, in world units (it
        // scales with the field), in the engine's default font.
        if let Ok(score) = world.resource::<Score>() {
            let mut text = ArrayString::<24>::new();
            let _ = write!(text, "{}   {}", score.left, score.right);
            frame.text(
                &text,
                &TextStyle {
                    position: [W as f32 / 2.0, H as f32 - 6.0],
                    size: 16.0,
                    align: Align::Center,
                    space: Space::World,
                    color: [0.8, 0.8, 0.8, 1.0],
                    ..TextStyle::default()
                },
            );
        }
    }

    fn view(&self, _config: &EngineConfig) -> ViewRect {
        const FIELD: ViewRect = ViewRect::from_bounds(0.0, 0.0, W as f32, H as f32);
        FIELD
    }

    fn finish<S: EngineScalar>(&mut self, world: &World, _report: &RunReport) {
        self.final_score = world.resource::<Score>().ok().copied();
    }
}

/// The pixels a windowed frame must have: the paddles and the ball in
/// white, the score's glyphs in grey, the clear colour around them.
#[cfg(not(target_arch = "wasm32"))]
fn check(path: &std::path::Path) -> std::result::Result<String, String> {
    let shot = screenshot::Shot::read(path)?;
    let white = shot.count(|p| p == [255; 3]);
    let score = shot.count(|p| p == [204; 3]);
    let corner = shot.at(0, shot.height - 1);
    // Two 4 × 30-unit paddles at the window's scale (1280 × 720 shows the
    // 320 × 180 field 4×: 16 × 120 px each), the ball a 16 px circle.
    if white < 2 * 16 * 120 {
        return Err(format!("{white} white pixels: the paddles are missing"));
    }
    if score < 40 {
        return Err(format!("{score} score pixels: the score text is missing"));
    }
    // The engine's default clear colour, [0.06, 0.07, 0.10] × 255.
    if !screenshot::near(corner, [15, 18, 26], 1) {
        return Err(format!("the corner is {corner:?}, not the clear colour"));
    }
    Ok(format!(
        "{}x{}: {white} paddle/ball pixels, {score} score-text pixels",
        shot.width, shot.height
    ))
}

impl Pong {
    fn new() -> Self {
        Pong {
            final_score: None,
            hits: EffectReader::default(),
            flash: [0; 2],
            shown: 0,
            cancelled: 0,
        }
    }
}

/// In a browser (`cargo xtask web` builds the page): the same game on the
/// page's canvas, W / S for the left paddle.
#[cfg(target_arch = "wasm32")]
fn main() {
    laige_engine::page::run(Engine::builder().game(Pong::new()));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    let args = screenshot::Args::parse();
    let mut pong = Pong::new();
    let builder = Engine::builder().game(&mut pong);
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
            .and_then(|e| e.run_headless(RunLimit::Ticks(args.ticks.unwrap_or(1200))))
    };
    let report = match run {
        Ok(report) => report,
        Err(e) => {
            eprintln!("pong: {e}");
            return std::process::ExitCode::from(laige_engine::EXIT_SETUP_FAILED);
        }
    };
    println!("{report}");
    let score = pong.final_score.unwrap_or_default();
    println!("pong: final score {} : {}", score.left, score.right);
    println!(
        "pong: {} paddle hits flashed, {} cancelled",
        pong.shown, pong.cancelled
    );
    if report.ticks > 600 && pong.shown == 0 {
        eprintln!("pong: no paddle hit reached presentation");
        return std::process::ExitCode::FAILURE;
    }
    if report.exit_code() != 0 {
        return std::process::ExitCode::from(report.exit_code());
    }
    if let Some(path) = args.screenshot.as_deref().filter(|_| args.window) {
        match check(path) {
            Ok(summary) => println!("pong: screenshot ok ({summary})"),
            Err(e) => {
                eprintln!("pong: screenshot check FAILED: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
