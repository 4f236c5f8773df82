//! # Record a run, then verify its replay
//!
//! **Motivation.** A deterministic game is only as good as the proof that
//! it is: record a run, play it back, and have the engine name the first
//! tick whose state differs. This is the loop a game's CI runs, and the
//! one a player's bug report ("here is my replay") goes through.
//!
//! **Implementation.** A random walker: each tick it steps by a draw from
//! the engine's seeded `SimRng`, and every input action nudges it by the
//! action's value times the event's **sub-tick** offset (so the replay
//! must reproduce timestamps exactly, not just ticks). The run is recorded
//! with `EngineBuilder::record`, replayed with `Engine::replay` (on the
//! recorded backend and seed), and replayed once more with a deliberately
//! changed game to show the divergence report.
//!
//! ```text
//! cargo run -p laige-engine --example record_replay
//! ```
//! Exit code 0 when the faithful replay verifies and the changed one is
//! caught; otherwise the replay's own exit code.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program prints its report"
)]

use laige_engine::prelude::*;

#[derive(Clone, Copy, Default, StateHash)]
struct Walker(i64);

struct Walk {
    /// From this tick on the walk changes (`None`: the faithful game).
    change_at: Option<u64>,
}

impl Game for Walk {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let rate = u64::from(setup.tick_rate_hz());
        let change_at = self.change_at;
        let world = setup.world();
        world.insert_hashed_resource("walk.walker", Walker::default())?;
        world.register_system("walk", 0, move |ctx| {
            let tick = ctx.tick();
            let start = i64::try_from((tick * 1_000_000_000).div_ceil(rate)).unwrap_or(0);
            let mut nudge = 0;
            for ev in ctx.input() {
                if let InputKind::Action { value, .. } = ev.kind {
                    nudge += i64::from(value) * (ev.time_ns - start);
                }
            }
            let step = ctx.resource_mut::<SimRng>()?.range_i32(-3, 4);
            let changed = i64::from(change_at.is_some_and(|c| tick >= c));
            ctx.resource_mut::<Walker>()?.0 += i64::from(step) + nudge + changed;
            Ok(())
        })
    }
}

fn options() -> EngineOptions {
    EngineOptions {
        pacing: Pacing::Unpaced,
        ..EngineOptions::default()
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(code) => std::process::ExitCode::from(code),
        Err(e) => {
            eprintln!("record_replay: {e}");
            std::process::ExitCode::from(laige_engine::EXIT_SETUP_FAILED)
        }
    }
}

fn run() -> Result<u8> {
    let path = std::env::temp_dir().join(format!("laige-record-replay-{}.lrp", std::process::id()));
    // Actions at odd instants: 7.3 ms, 31.1 ms, ... (not at tick starts).
    let script = (0..30_i64).map(|i| {
        (
            ScriptAt::TimeNs(i * 23_800_000 + 7_300_000),
            InputKind::Action {
                id: 1,
                value: i32::try_from(i % 5).unwrap_or(0) - 2,
            },
        )
    });
    let mut config = EngineConfig::default();
    config.determinism.seed = 2024;
    let recorded = Engine::builder()
        .game(Walk { change_at: None })
        .config(config)
        .scripted_input(script)
        .options(options())
        .record(&path)
        .build()?
        .run_headless(RunLimit::Ticks(600))?;
    if let Some(r) = &recorded.recording {
        println!("record_replay: {r}");
    }

    let faithful = Engine::builder()
        .game(Walk { change_at: None })
        .options(options())
        .build()?
        .replay(&path)?;
    println!("record_replay: {faithful}");

    let changed = Engine::builder()
        .game(Walk {
            change_at: Some(400),
        })
        .options(options())
        .build()?
        .replay(&path)?;
    println!("record_replay: changed game: {changed}");
    let _ = std::fs::remove_file(&path);

    if !faithful.outcome.is_verified() {
        return Ok(faithful.exit_code());
    }
    match changed.outcome {
        ReplayOutcome::Diverged(d) if d.tick == 401 => Ok(0),
        _ => Ok(laige_engine::EXIT_REPLAY_DIVERGED),
    }
}
