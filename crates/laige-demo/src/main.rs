//! `laige-demo`: the demo game's binary (the game itself is the library,
//! `laige_demo::Demo`; its essay — motivation, implementation, controls —
//! opens `src/lib.rs`).
//!
//! Headless by default: a scripted 5-second session with progress lines,
//! then the report. `--window` opens a real window. `--help` lists the
//! options and the exit codes.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line program prints its report and its usage errors"
)]

use std::process::ExitCode;
use std::time::Duration;

use laige_demo::{Args, Demo, USAGE, args, replay_identity};
use laige_engine::{
    EXIT_SETUP_FAILED, EXIT_USAGE, Engine, EngineConfig, EngineOptions, FrameCapture,
    HeadlessRender, Pacing, RunLimit,
};

fn main() -> ExitCode {
    // First, before anything is created: from here on SIGINT, SIGTERM and
    // SIGHUP end the run through the ordered shutdown (a signal that
    // arrives while the run is still being set up ends it at its first
    // frame), and none can leave a half-made file behind by killing the
    // process outright.
    if let Err(e) = laige_engine::interrupt::install_handler() {
        eprintln!("laige-demo: {e}");
        return ExitCode::from(EXIT_SETUP_FAILED);
    }
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("laige-demo: {message}\n\n{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("laige-demo: {e}");
            ExitCode::from(EXIT_SETUP_FAILED)
        }
    }
}

fn first_present_marker() {
    println!("laige-demo: first frame presented");
}

fn run(args: &Args) -> laige_engine::Result<u8> {
    let config = match &args.config {
        Some(path) => EngineConfig::from_toml_file(path)?,
        None => EngineConfig::default(),
    };
    let entities = args.entities.unwrap_or(10_000);
    if let Some(path) = &args.replay {
        return play_back(path, &config, entities, args.quiet);
    }
    let game = Demo {
        entities,
        progress_every_frames: if args.quiet {
            0
        } else {
            u64::from(frame_rate(&config))
        },
        mark_first_tick: args.mark_startup,
    };
    let options = EngineOptions {
        pacing: if args.unpaced {
            Pacing::Unpaced
        } else {
            Pacing::FrameClock
        },
        headless_render: if args.gl {
            HeadlessRender::Gl {
                width: config.render.window_width,
                height: config.render.window_height,
            }
        } else {
            HeadlessRender::Off
        },
        close_after_frames: args.close_after_frames,
        capture: args.screenshot.as_ref().map(|path| FrameCapture {
            frame: args
                .screenshot_frame
                .unwrap_or(args::DEFAULT_SCREENSHOT_FRAME),
            path: path.clone(),
        }),
        on_first_present: args.mark_startup.then_some(first_present_marker as fn()),
        sprite_capacity: entities as usize + 1,
        ..EngineOptions::default()
    };
    let report = run_game(args, &config, options, limit_of(args), game, entities)?;
    if args.profile {
        print!("{}", report.profile);
    }
    println!("{report}");
    if let Some(recorded) = &report.recording {
        match &recorded.error {
            None => println!("laige-demo: {recorded}"),
            Some(e) => {
                // The run already ended with this error (exit 3) when the
                // write failed during it; one that failed writing the end
                // record ends here.
                eprintln!(
                    "laige-demo: the recording {} is incomplete (it holds every record before \
                     the failure; --replay verifies that prefix): {e}",
                    recorded.path.display()
                );
                return Ok(report.exit_code().max(laige_engine::EXIT_SYSTEM_FAILED));
            }
        }
    }
    Ok(report.exit_code())
}

/// The run limit of the command line.
fn limit_of(args: &Args) -> RunLimit {
    match (args.frames, args.seconds) {
        (Some(n), _) => RunLimit::Frames(n),
        (None, Some(s)) => RunLimit::Duration(Duration::from_secs(s)),
        (None, None) if args.window => RunLimit::Unlimited,
        (None, None) => RunLimit::Duration(Duration::from_secs(args::DEFAULT_SECONDS)),
    }
}

/// Runs `game` windowed or headless (with the scripted session).
fn run_game<G: laige_engine::Game>(
    args: &Args,
    config: &EngineConfig,
    options: EngineOptions,
    limit: RunLimit,
    game: G,
    entities: u32,
) -> laige_engine::Result<laige_engine::RunReport> {
    let mut builder = Engine::builder()
        .game(game)
        .config(config.clone())
        .options(options)
        .replay_identity(replay_identity(entities));
    if let Some(path) = &args.record {
        builder = builder.record(path);
    }
    if args.window {
        builder.build()?.run_windowed(limit)
    } else {
        let seconds = match limit {
            RunLimit::Duration(d) => d.as_secs(),
            RunLimit::Frames(n) => n.div_ceil(u64::from(frame_rate(config))),
            RunLimit::Ticks(_) | RunLimit::Unlimited => args::DEFAULT_SECONDS,
        };
        builder = builder.scripted_input(laige_demo::headless_script(
            seconds,
            config.game_loop.tick_rate_hz,
        ));
        builder.build()?.run_headless(limit)
    }
}

/// `--replay FILE`: plays the recorded input back headless and unpaced on
/// the recorded backend and seed, comparing the state hash after every
/// tick (`Engine::replay`); the first differing tick is printed and exits
/// with code 5. A torn file (no end record: a crash, a kill, a full disk)
/// plays its valid prefix: "torn after tick N; verified ticks 0..M", exit
/// code 6. Damage inside the file is refused (exit 1).
fn play_back(
    path: &std::path::Path,
    config: &EngineConfig,
    entities: u32,
    quiet: bool,
) -> laige_engine::Result<u8> {
    let demo = Demo {
        entities,
        progress_every_frames: if quiet { 0 } else { 600 },
        mark_first_tick: false,
    };
    let verdict = Engine::builder()
        .game(demo)
        .config(config.clone())
        .options(EngineOptions {
            sprite_capacity: entities as usize + 1,
            ..EngineOptions::default()
        })
        .replay_identity(replay_identity(entities))
        .build()?
        .replay(path)?;
    if let Some(damage) = &verdict.damage {
        eprintln!("laige-demo: {damage}");
    }
    println!("{}", verdict.run);
    println!("laige-demo: {verdict}");
    Ok(verdict.exit_code())
}

/// The frame rate a headless run paces at (0 in the config: 60).
fn frame_rate(config: &EngineConfig) -> u32 {
    match config.render.frame_rate_hz {
        0 => 60,
        r => r,
    }
}
