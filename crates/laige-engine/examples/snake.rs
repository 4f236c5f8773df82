//! # Snake: a small game written from the README and the rustdoc alone
//!
//! **Motivation.** A second complete game, written the way a new user
//! would write one — only the README's guide, the prelude and the item
//! docs — to find what the API still makes hard (the findings are in the
//! commit that added it).
//!
//! **Implementation.** The field is 32 × 18 cells. The whole game state is
//! one hashed resource, `Snake`: the body as a ring of cells, the heading,
//! the food, the counters — so the state hash covers all of it, and a
//! replay reproduces it. Systems, in order: `snake/steer` reads the arrow
//! keys (`ctx.input().just_pressed`) — a first key press hands the snake
//! from the bot to the player — or lets the bot pick the turn (ahead,
//! left, right) that does not bite and brings the head nearest the food;
//! `snake/move` moves one cell every [`STEP`] ticks (wrapping at the
//! edges), grows on food (the next food drawn from the engine's seeded
//! `SimRng`), and restarts a snake that bit itself. Presentation: one
//! quad per body cell, the food as a circle, the score as text in the
//! engine's default font.
//!
//! **Controls** (`--window`): the arrow keys steer; Escape quits. Headless
//! (what CI runs): 60 s of the bot, which must eat at least five times,
//! else the exit code is 1.
//!
//! ```text
//! cargo run -p laige-engine --example snake              # headless, checked
//! cargo run -p laige-engine --example snake -- --window  # play it
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program prints its report"
)]

use std::fmt::Write as _;

use laige_engine::prelude::*;

const GW: i32 = 32;
const GH: i32 = 18;
/// Ticks per move (60 Hz: ten cells a second).
const STEP: u64 = 6;
/// The longest snake.
const CAP: usize = 128;

/// The whole game (a hashed resource).
#[derive(Clone, Copy, StateHash)]
struct Snake {
    /// The body ring: cells `start .. start + len` (mod `CAP`), tail first.
    body: [(i32, i32); CAP],
    start: u32,
    len: u32,
    dir: (i32, i32),
    food: (i32, i32),
    bot: bool,
    eaten: u32,
    deaths: u32,
}

impl Snake {
    fn new() -> Self {
        let mut body = [(0, 0); CAP];
        for (i, cell) in body.iter_mut().take(3).enumerate() {
            *cell = (4 + i as i32, GH / 2);
        }
        Self {
            body,
            start: 0,
            len: 3,
            dir: (1, 0),
            food: (GW / 2, GH / 2),
            bot: true,
            eaten: 0,
            deaths: 0,
        }
    }

    fn cell(&self, i: u32) -> (i32, i32) {
        self.body[((self.start + i) as usize) % CAP]
    }

    fn head(&self) -> (i32, i32) {
        self.cell(self.len - 1)
    }

    /// Whether `c` is on the body (the tail's cell excluded when it moves
    /// away this step).
    fn bites(&self, c: (i32, i32)) -> bool {
        (1..self.len).any(|i| self.cell(i) == c)
    }
}

fn ahead(c: (i32, i32), d: (i32, i32)) -> (i32, i32) {
    ((c.0 + d.0).rem_euclid(GW), (c.1 + d.1).rem_euclid(GH))
}

fn distance(a: (i32, i32), b: (i32, i32)) -> i32 {
    let dx = (a.0 - b.0).abs();
    let dy = (a.1 - b.1).abs();
    dx.min(GW - dx) + dy.min(GH - dy)
}

/// The bot's turn: ahead, left or right, whichever does not bite and is
/// nearest the food (ahead on ties).
fn bot_turn(s: &Snake) -> (i32, i32) {
    let (dx, dy) = s.dir;
    let mut best = s.dir;
    let mut best_score = i32::MAX;
    for d in [(dx, dy), (-dy, dx), (dy, -dx)] {
        let next = ahead(s.head(), d);
        let score = if s.bites(next) {
            i32::MAX - 1
        } else {
            distance(next, s.food)
        };
        if score < best_score {
            (best, best_score) = (d, score);
        }
    }
    best
}

/// A free cell for the food (a few draws; the last one wins).
fn place_food(s: &Snake, rng: &mut SimRng) -> (i32, i32) {
    let mut food = s.food;
    for _ in 0..16 {
        food = (rng.range_i32(0, GW), rng.range_i32(0, GH));
        if !s.bites(food) && s.head() != food {
            break;
        }
    }
    food
}

struct Game1 {
    /// The final snake, read in `finish`.
    result: Option<Snake>,
}

impl Game for Game1 {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let world = setup.world();
        world.insert_hashed_resource("snake.state", Snake::new())?;
        world.register_system("snake/steer", 0, |ctx| {
            let input = ctx.input();
            let snake = ctx.resource_mut::<Snake>()?;
            let mut turn = None;
            for (key, d) in [
                (KeyCode::ARROW_LEFT, (-1, 0)),
                (KeyCode::ARROW_RIGHT, (1, 0)),
                (KeyCode::ARROW_UP, (0, 1)),
                (KeyCode::ARROW_DOWN, (0, -1)),
            ] {
                if input.just_pressed(key) {
                    snake.bot = false;
                    turn = Some(d);
                }
            }
            if snake.bot {
                turn = Some(bot_turn(snake));
            }
            // No reversing into the neck.
            if let Some(d) = turn.filter(|&d| d != (-snake.dir.0, -snake.dir.1)) {
                snake.dir = d;
            }
            Ok(())
        })?;
        world.register_system("snake/move", 10, |ctx| {
            if ctx.tick() % STEP != 0 {
                return Ok(());
            }
            // Two resources at once: the snake and the engine's rng.
            let (s, rng) = ctx.resources_mut::<Snake, SimRng>()?;
            let head = ahead(s.head(), s.dir);
            if s.bites(head) {
                *s = Snake {
                    bot: s.bot,
                    eaten: s.eaten,
                    deaths: s.deaths + 1,
                    ..Snake::new()
                };
            } else {
                let grows = head == s.food && (s.len as usize) < CAP;
                s.body[((s.start + s.len) as usize) % CAP] = head;
                if grows {
                    s.len += 1;
                    s.eaten += 1;
                    s.food = place_food(s, rng);
                } else {
                    s.start = (s.start + 1) % CAP as u32;
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
        let Ok(s) = world.resource::<Snake>() else {
            return;
        };
        let centre = |c: (i32, i32)| [c.0 as f32 + 0.5, c.1 as f32 + 0.5];
        for i in 0..s.len {
            let shade = 0.5 + 0.5 * (i + 1) as f32 / s.len as f32;
            frame.push(Sprite::quad(
                centre(s.cell(i)),
                [0.9, 0.9],
                [0.2 * shade, shade, 0.3 * shade, 1.0],
            ));
        }
        frame.push(Sprite {
            shape: Shape::Circle,
            ..Sprite::quad(centre(s.food), [0.8, 0.8], [1.0, 0.3, 0.2, 1.0])
        });
        let mut text = ArrayString::<48>::new();
        let _ = write!(
            text,
            "length {}  eaten {}  deaths {}",
            s.len, s.eaten, s.deaths
        );
        frame.text(
            &text,
            &TextStyle {
                position: [0.5, GH as f32 - 0.3],
                size: 0.6,
                space: Space::World,
                color: [0.9, 0.9, 0.9, 1.0],
                ..TextStyle::default()
            },
        );
    }

    fn view(&self, _config: &EngineConfig) -> ViewRect {
        const FIELD: ViewRect = ViewRect::from_bounds(0.0, 0.0, GW as f32, GH as f32);
        FIELD
    }

    fn finish<S: EngineScalar>(&mut self, world: &World, _report: &RunReport) {
        self.result = world.resource::<Snake>().ok().copied();
    }
}

/// In a browser (`cargo xtask web` builds the page): the same game on the
/// page's canvas, the arrow keys to steer.
#[cfg(target_arch = "wasm32")]
fn main() {
    laige_engine::page::run(Engine::builder().game(Game1 { result: None }));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let window = args.iter().any(|a| a == "--window");
    // `--ticks N`: a shorter headless run (`cargo xtask web`'s test compares
    // a page's state hash with it).
    let ticks = args
        .iter()
        .position(|a| a == "--ticks")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(3600);
    let mut game = Game1 { result: None };
    let builder = Engine::builder().game(&mut game);
    let run = if window {
        builder
            .build()
            .and_then(|e| e.run_windowed(RunLimit::Unlimited))
    } else {
        builder
            .options(EngineOptions {
                pacing: Pacing::Unpaced,
                ..EngineOptions::default()
            })
            .build()
            .and_then(|e| e.run_headless(RunLimit::Ticks(ticks)))
    };
    let report = match run {
        Ok(report) => report,
        Err(e) => {
            eprintln!("snake: {e}");
            return std::process::ExitCode::from(laige_engine::EXIT_SETUP_FAILED);
        }
    };
    println!("{report}");
    let Some(s) = game.result else {
        eprintln!("snake: no final state");
        return std::process::ExitCode::FAILURE;
    };
    println!(
        "snake: length {}, eaten {}, deaths {}",
        s.len, s.eaten, s.deaths
    );
    if report.exit_code() != 0 {
        return std::process::ExitCode::from(report.exit_code());
    }
    if !window && ticks >= 3600 && s.eaten < 5 {
        eprintln!("snake: the bot ate only {} times in 60 s", s.eaten);
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
