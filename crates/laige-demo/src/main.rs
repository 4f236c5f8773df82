//! `laige-demo`: the demo game's binary (the game itself is the library,
//! `laige_demo::Demo`; its essay — motivation, implementation, controls —
//! opens `src/lib.rs`).
//!
//! Headless by default: a scripted 5-second session with progress lines,
//! then the report. `--window` opens a real window. `--net host|join|
//! spectate` plays one swarm over UDP, `--synctest N` checks the game's
//! determinism under rollback. `--help` lists the options and the exit
//! codes.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line program prints its report and its usage errors"
)]

use std::process::ExitCode;
use std::time::Duration;

use laige_demo::net::{self as demo_net, NetPlan, Role};
use laige_demo::{Args, Demo, NetDemo, NetMode, WindowPilot, args, replay_identity};
use laige_engine::net::NetConfig;
use laige_engine::net::fault::Faults;
use laige_engine::{
    EXIT_REPLAY_DIVERGED, EXIT_REPLAY_TORN, EXIT_SETUP_FAILED, EXIT_USAGE, Engine, EngineConfig,
    EngineOptions, FrameCapture, HeadlessRender, Pacing, RunLimit,
};

/// Sprites reserved beyond one per entity: the attractors and the HUD's
/// panel and glyphs (about 130), so the buffers never grow after warm-up.
const SPRITE_HEADROOM: usize = 256;

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
    let args = match Args::parse_args(std::env::args_os().skip(1)) {
        Ok(a) => a,
        Err(e) if e.use_stderr() => {
            // The reason, the usage line and "try '--help'": not the whole
            // help.
            let _ = e.print();
            return ExitCode::from(EXIT_USAGE);
        }
        Err(e) => {
            // --help, --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
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
        if args.window {
            return view_replay(args, path, &config, entities);
        }
        if !args.seek.is_empty() {
            return seek(
                path,
                &config,
                entities,
                &args.seek,
                args.dump_dir.as_deref(),
            );
        }
        return play_back(path, &config, entities, args.quiet);
    }
    if args.is_session() {
        return run_net(args, &config, entities);
    }
    let game = Demo {
        entities,
        progress_every_frames: if args.quiet {
            0
        } else {
            u64::from(frame_rate(&config))
        },
        mark_first_tick: args.mark_startup,
        ..Demo::default()
    };
    let options = options_of(args, &config, entities);
    let report = run_game(args, &config, options, limit_of(args), game, entities)?;
    print_report(args, report)
}

/// The engine options of the command line.
fn options_of(args: &Args, config: &EngineConfig, entities: u32) -> EngineOptions {
    EngineOptions {
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
        sprite_capacity: entities as usize + SPRITE_HEADROOM,
        ..EngineOptions::default()
    }
}

/// `--net …` / `--synctest N`: the lobby, then the demo as one peer of
/// the session (the session owns the ticks), then the report with the
/// session's counters (and `--net-hashes FILE`).
fn run_net(args: &Args, config: &EngineConfig, entities: u32) -> laige_engine::Result<u8> {
    let port = args.port.unwrap_or(0);
    let role = match (args.net, args.addr, args.synctest) {
        (_, _, Some(check_distance)) => Role::SyncTest { check_distance },
        (Some(NetMode::Host), _, _) => Role::Host {
            port,
            players: args.players.unwrap_or(2),
            spectators: args.spectators.unwrap_or(0),
            seats: args.seats.unwrap_or(0),
            open: args.open,
        },
        (Some(NetMode::Webrtc), _, _) => Role::WebRtc {
            signal: args.signal.clone().unwrap_or_default(),
            players: args.players.unwrap_or(2),
        },
        (Some(NetMode::Spectate), Some(host), _) => Role::Spectate { host, port },
        (_, Some(host), _) => Role::Join { host, port },
        // The command line's own check refuses the other combinations.
        _ => return Ok(EXIT_USAGE),
    };
    let defaults = NetConfig::default();
    let ms = |v: Option<u64>| Duration::from_millis(v.unwrap_or(0));
    let plan = NetPlan {
        role,
        config: NetConfig {
            max_prediction: args
                .max_prediction
                .map_or(defaults.max_prediction, usize::from),
            input_delay: args.input_delay.map_or(defaults.input_delay, usize::from),
            tick_rate_hz: config.game_loop.tick_rate_hz as usize,
            // Only `--net-hashes` reads the log: without it no save beyond
            // the checksum ticks' is hashed.
            confirmed_log: if args.net_hashes.is_some() {
                demo_net::CONFIRMED_LOG
            } else {
                0
            },
            ..defaults
        },
        faults: Faults {
            latency: ms(args.fault_latency_ms),
            jitter: ms(args.fault_jitter_ms),
            loss_per_mille: args.fault_loss_per_mille.map_or(0, u32::from),
            corrupt_per_mille: args.fault_corrupt_per_mille.map_or(0, u32::from),
            corrupt_bits: args.fault_corrupt_bits.map_or(1, u32::from),
            truncate_per_mille: args.fault_resize_per_mille.map_or(0, u32::from),
            append_per_mille: args.fault_resize_per_mille.map_or(0, u32::from),
            replay_per_mille: args.fault_replay_per_mille.map_or(0, u32::from),
            ..Faults::default()
        },
        record: args
            .record
            .clone()
            .map(|path| (path, demo_net::session_record_header(config, entities))),
    };
    let seating = match demo_net::seat(&plan.role) {
        Ok(s) => s,
        // The lobby, the WebRTC room or its signaling server not there in
        // time: the peers did not synchronize.
        Err(e)
            if [
                demo_net::LOBBY_TIMEOUT,
                laige_engine::net::events::ROOM_TIMEOUT,
                laige_engine::net::events::SIGNALING_FAILED,
            ]
            .contains(&e.id()) =>
        {
            eprintln!("laige-demo: {e}");
            return Ok(laige_engine::net::EXIT_SYNC_TIMEOUT);
        }
        Err(e) => return Err(e),
    };
    if !args.quiet {
        match seating.seat {
            Some(seat) if seating.room.is_some() => println!(
                "laige-demo: player {seat} of {} in the WebRTC room {}",
                seating.players,
                args.signal.as_deref().unwrap_or("")
            ),
            Some(seat) if args.synctest.is_none() => println!(
                "laige-demo: player {seat} of {} on UDP port {}",
                seating.players, seating.port
            ),
            Some(_) => println!("laige-demo: sync test, {} players", seating.players),
            None if seating.late => println!("laige-demo: joining the session in progress"),
            None => println!("laige-demo: spectator on UDP port {}", seating.port),
        }
    }
    let game = NetDemo {
        demo: Demo {
            entities,
            progress_every_frames: if args.quiet {
                0
            } else {
                u64::from(frame_rate(config))
            },
            mark_first_tick: args.mark_startup,
            ..Demo::default()
        },
        players: seating.players,
        pilot: seating
            .seat
            .filter(|_| args.pilot)
            .map(|seat| WindowPilot::new(seat, config.game_loop.tick_rate_hz)),
    };
    let limit = limit_of(args);
    let rate = config.game_loop.tick_rate_hz;
    // A changed build diverges from its peers: their desync detection
    // catches it (the browser's WebRTC test).
    let mut builder = perturbed(
        Engine::builder()
            .game(game)
            .config(config.clone())
            .options(options_of(args, config, entities))
            .replay_identity(replay_identity(entities)),
    )?;
    if let (Some(seat), false) = (seating.seat, args.window) {
        builder = builder.scripted_input(laige_demo::pilot_script(
            seat,
            script_seconds(limit, config),
            rate,
        ));
    }
    let plan_seating = seating.clone();
    let builder = builder.net(move |world| demo_net::driver(&plan, &plan_seating, world));
    let report = if args.window {
        run_windowed(builder.build()?, limit)?
    } else {
        builder.build()?.run_headless(limit)?
    };
    if let (Some(path), Some(net)) = (&args.net_hashes, &report.net) {
        let mut text = String::with_capacity(net.confirmed.len() * 24);
        for (tick, hash) in &net.confirmed {
            text.push_str(&format!("{tick} {hash:016x}\n"));
        }
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("laige-demo: writing {}: {e}", path.display());
            return Ok(EXIT_SETUP_FAILED);
        }
    }
    if let (Some(dir), Some((tick, dump))) = (
        &args.dump_dir,
        report.net.as_ref().and_then(|n| n.desync_dump.as_ref()),
    ) {
        let path = dir.join(format!("desync-tick-{tick}.dump"));
        match std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, dump)) {
            Ok(()) => println!("laige-demo: desynced tick dumped to {}", path.display()),
            // The run's own end (the desync's code) stays the exit code.
            Err(e) => eprintln!("laige-demo: writing {}: {e}", path.display()),
        }
    }
    print_report(args, report)
}

/// Prints the report (and the profile, the recording's summary); the exit
/// code.
fn print_report(args: &Args, report: laige_engine::RunReport) -> laige_engine::Result<u8> {
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
                    recorded
                        .path
                        .as_deref()
                        .unwrap_or(std::path::Path::new("in memory"))
                        .display()
                );
                return Ok(report.exit_code().max(laige_engine::EXIT_SYSTEM_FAILED));
            }
        }
    }
    Ok(report.exit_code())
}

/// The run limit of the command line.
fn limit_of(args: &Args) -> RunLimit {
    match (args.frames, args.seconds, args.ticks) {
        (Some(n), _, _) => RunLimit::Frames(n),
        (None, Some(s), _) => RunLimit::Duration(Duration::from_secs(s)),
        (None, None, Some(t)) => RunLimit::Ticks(t),
        (None, None, None) if args.window => RunLimit::Unlimited,
        (None, None, None) => RunLimit::Duration(Duration::from_secs(args::DEFAULT_SECONDS)),
    }
}

/// The seconds of scripted input a headless run of `limit` needs.
fn script_seconds(limit: RunLimit, config: &EngineConfig) -> u64 {
    match limit {
        RunLimit::Duration(d) => d.as_secs(),
        RunLimit::Frames(n) => n.div_ceil(u64::from(frame_rate(config))),
        RunLimit::Ticks(n) => n.div_ceil(u64::from(config.game_loop.tick_rate_hz)) + 1,
        RunLimit::Unlimited => args::DEFAULT_SECONDS,
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
    let mut builder = perturbed(
        Engine::builder()
            .game(game)
            .config(config.clone())
            .options(options)
            .replay_identity(replay_identity(entities)),
    )?;
    if let Some(path) = &args.record {
        builder = builder.record(path);
    }
    if args.window {
        run_windowed(builder.build()?, limit)
    } else {
        let seconds = match limit {
            RunLimit::Ticks(_) => args::DEFAULT_SECONDS,
            other => script_seconds(other, config),
        };
        let script = match &args.input_log {
            Some(path) => read_input_log(path)?,
            None => laige_demo::headless_script(seconds, config.game_loop.tick_rate_hz),
        };
        builder = builder.scripted_input(script);
        builder.build()?.run_headless(limit)
    }
}

/// The windowed run (feature `window`).
#[cfg(feature = "window")]
fn run_windowed<G: laige_engine::Game>(
    engine: Engine<G>,
    limit: RunLimit,
) -> laige_engine::Result<laige_engine::RunReport> {
    engine.run_windowed(limit)
}

/// A build without the `window` feature has no windowed run.
#[cfg(not(feature = "window"))]
fn run_windowed<G: laige_engine::Game>(
    _engine: Engine<G>,
    _limit: RunLimit,
) -> laige_engine::Result<laige_engine::RunReport> {
    Err(laige_engine::Error::new(
        laige_engine::ErrorCode::Unsupported,
        laige_engine::events::WINDOW_FAILED,
    )
    .with_field("window")
    .with_detail("this laige-demo was built without its `window` feature"))
}

/// The script of the input log at `path` (`--input-log`).
fn read_input_log(
    path: &std::path::Path,
) -> laige_engine::Result<
    Vec<(
        laige_engine::input::ScriptAt,
        laige_engine::input::InputKind,
    )>,
> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        laige_engine::Error::new(
            laige_engine::ErrorCode::Failed,
            laige_demo::input_log::INPUT_LOG_INVALID,
        )
        .with_field("input_log")
        .with_value(path.display())
        .with_source(e)
    })?;
    laige_demo::input_log::parse(&text)
}

/// `--replay FILE --window` in a build without the `window` feature.
#[cfg(not(feature = "window"))]
fn view_replay(
    _args: &Args,
    _path: &std::path::Path,
    _config: &EngineConfig,
    _entities: u32,
) -> laige_engine::Result<u8> {
    run_windowed(Engine::builder().build()?, RunLimit::Unlimited).map(|r| r.exit_code())
}

/// `--replay FILE --window`: the replay viewer (`Engine::replay_viewer`),
/// paused at tick 0 with a timeline; `--input-log FILE` scripts its keys
/// and pointer (at the viewer's own ticks). At the end it prints the tick
/// it shows, that tick's state hash and the hash check; a recorded hash
/// that a seek did not reproduce exits 5.
#[cfg(feature = "window")]
fn view_replay(
    args: &Args,
    path: &std::path::Path,
    config: &EngineConfig,
    entities: u32,
) -> laige_engine::Result<u8> {
    let demo = Demo {
        entities,
        progress_every_frames: 0,
        ..Demo::default()
    };
    let mut builder = perturbed(
        Engine::builder()
            .game(demo)
            .config(config.clone())
            .options(options_of(args, config, entities))
            .replay_identity(replay_identity(entities)),
    )?;
    if let Some(log) = &args.input_log {
        builder = builder.scripted_input(read_input_log(log)?);
    }
    let viewer = builder.build()?.replay_viewer(path)?;
    if let Some(damage) = &viewer.game().playback().damage {
        eprintln!("laige-demo: {damage}");
    }
    let status = viewer.game().status();
    let report = run_windowed(viewer, limit_of(args))?;
    let check = match status.diverged_at() {
        None => format!("hash ok ({} checked)", status.hashes_checked()),
        Some(tick) => format!("diverged at tick {tick}"),
    };
    println!(
        "laige-demo: viewer at tick {} state hash {:#018x}, {check}, {} damaged keyframe(s) passed over",
        status.tick(),
        status.state_hash(),
        status.keyframes_skipped()
    );
    Ok(match (report.exit_code(), status.diverged_at()) {
        (0, Some(_)) => laige_engine::EXIT_REPLAY_DIVERGED,
        (code, _) => code,
    })
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
        ..Demo::default()
    };
    if let Some(code) = play_back_session(path, config, entities)? {
        return Ok(code);
    }
    let verdict = perturbed(
        Engine::builder()
            .game(demo)
            .config(config.clone())
            .options(EngineOptions {
                sprite_capacity: entities as usize + SPRITE_HEADROOM,
                ..EngineOptions::default()
            })
            .replay_identity(replay_identity(entities)),
    )?
    .build()?
    .replay(path)?;
    if let Some(damage) = &verdict.damage {
        eprintln!("laige-demo: {damage}");
    }
    println!("{}", verdict.run);
    println!("laige-demo: {verdict}");
    Ok(verdict.exit_code())
}

/// The test aid of `LAIGE_DEMO_PERTURB_TICK=N` (`laige_demo::PERTURB_ENV`):
/// a changed build, for the divergence tools' tests.
fn perturbed<G: laige_engine::Game>(
    builder: laige_engine::EngineBuilder<G>,
) -> laige_engine::Result<laige_engine::EngineBuilder<G>> {
    let Some(text) = std::env::var_os(laige_demo::PERTURB_ENV) else {
        return Ok(builder);
    };
    let at = text
        .to_str()
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(|| {
            laige_engine::Error::invalid_argument(
                laige_engine::events::OPTIONS_INVALID,
                laige_demo::PERTURB_ENV,
                text.to_string_lossy(),
                "a tick number",
            )
        })?;
    eprintln!(
        "laige-demo: a changed build ({}={at})",
        laige_demo::PERTURB_ENV
    );
    Ok(builder.system("demo/perturb", 150, laige_demo::perturbation(at)))
}

/// `--replay FILE --seek TICK…`: opens the replay for seeking
/// (`Engine::replay_player`) and goes to each tick in turn, printing each
/// seek's report (`laige-demo: seek …`) and the state hash reached; a
/// recorded hash that differs on the way exits 5, a damaged keyframe is
/// named and the one before it used. With `--dump-dir DIR` each reached
/// tick's state is written as `DIR/tick-N.dump` (`WorldSnapshot::dump_fields`
/// of every value: what `cargo xtask replay-diff` compares).
fn seek(
    path: &std::path::Path,
    config: &EngineConfig,
    entities: u32,
    ticks: &[u64],
    dump_dir: Option<&std::path::Path>,
) -> laige_engine::Result<u8> {
    let demo = Demo {
        entities,
        progress_every_frames: 0,
        ..Demo::default()
    };
    let mut playback = perturbed(
        Engine::builder()
            .game(demo)
            .config(config.clone())
            .replay_identity(replay_identity(entities)),
    )?
    .build()?
    .replay_player(path)?;
    if let Some(damage) = &playback.damage {
        eprintln!("laige-demo: {damage}");
    }
    let mut code = 0;
    for &tick in ticks {
        let started = std::time::Instant::now();
        let report = playback.seek(tick)?;
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let hash = playback.state_hash();
        println!("laige-demo: seek {report} ({ms:.1} ms)");
        println!(
            "laige-demo: tick {} state hash {hash:#018x}",
            playback.tick()
        );
        if report.divergence.is_some() {
            code = laige_engine::EXIT_REPLAY_DIVERGED;
        }
        if let Some(dir) = dump_dir {
            let world = playback.world();
            let mut ring = laige_engine::sim::snapshot::SnapshotRing::new(world, 1)?;
            ring.save_hashed(0, world)?;
            let dump = ring.get(0)?.dump_fields(|_, _| true);
            let file = dir.join(format!("tick-{}.dump", playback.tick()));
            std::fs::write(&file, dump).map_err(|e| {
                laige_engine::Error::new(
                    laige_engine::ErrorCode::Io,
                    laige_engine::sim::events::IO_FAILED,
                )
                .with_field("dump_dir")
                .with_value(file.display())
                .with_source(e)
            })?;
        }
    }
    Ok(code)
}

/// `--replay FILE` of a session record (`--record` with `--net`: the
/// header's config hash is the session identity's): the demo's world is set
/// up as the session's was (the recorded backend and seed, the recorded
/// player count), then laige-net's `replay_session` re-runs every recorded
/// tick's inputs of all players and compares every recorded state hash.
/// Prints the verdict and returns the exit code (0 verified, 5 diverged or
/// no hash compared, 6 torn: its valid prefix was verified); `None` for a
/// file that is not a session record of this demo (a local recording).
fn play_back_session(
    path: &std::path::Path,
    config: &EngineConfig,
    entities: u32,
) -> laige_engine::Result<Option<u8>> {
    use laige_engine::sim::replay::{ENGINE_VERSION, Replay};
    let (replay, damage) = Replay::read_prefix(path)?.into_playable()?;
    // Damage is only ever returned for a torn file.
    let torn = damage.is_some();
    let header = replay.header().clone();
    let mut config = config.clone();
    config.determinism.math = header.backend;
    config.determinism.seed = header.seed;
    let identity = demo_net::session_identity(entities);
    if header.config_hash != laige_engine::record::config_hash(&config, identity) {
        return Ok(None);
    }
    header.check_compatible(
        header.backend,
        laige_engine::record::config_hash(&config, identity),
        ENGINE_VERSION,
    )?;
    let start = replay.start_tick();
    let players = replay
        .input(start)
        .and_then(|b| b.first())
        .map_or(2, |&p| p);
    let verdict = std::rc::Rc::new(std::cell::RefCell::new(None));
    let cell = verdict.clone();
    let game = NetDemo {
        demo: Demo {
            entities,
            progress_every_frames: 0,
            mark_first_tick: false,
            ..Demo::default()
        },
        players,
        pilot: None,
    };
    Engine::builder()
        .game(game)
        .config(config)
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            sprite_capacity: entities as usize + SPRITE_HEADROOM,
            ..EngineOptions::default()
        })
        .replay_identity(identity)
        .net(move |world| {
            *cell.borrow_mut() = Some(laige_engine::net::replay_session::<laige_demo::PilotInput>(
                &replay, world,
            )?);
            Ok(Box::new(demo_net::Replayed))
        })
        .build()?
        .run_headless(RunLimit::Ticks(0))?;
    let Some(v) = verdict.borrow_mut().take() else {
        return Err(laige_engine::Error::new(
            laige_engine::ErrorCode::InvalidState,
            laige_engine::events::SETUP_FAILED,
        )
        .with_detail("the session record was not played back"));
    };
    if let Some(damage) = &damage {
        eprintln!("laige-demo: {damage}");
    }
    let what = format!(
        "session record of {players} players on {} (seed {:#x})",
        header.backend, header.seed
    );
    Ok(Some(match (&v.divergence, torn) {
        (Some(d), _) => {
            println!("laige-demo: {what}: {d}");
            EXIT_REPLAY_DIVERGED
        }
        (None, true) => {
            println!(
                "laige-demo: {what}: torn after tick {}; verified ticks {start}..{}",
                start + v.ticks,
                v.verified_ticks
            );
            EXIT_REPLAY_TORN
        }
        (None, false) if v.checkpoints == 0 => {
            println!("laige-demo: {what}: not verified (no state hash compared)");
            EXIT_REPLAY_DIVERGED
        }
        (None, false) => {
            println!(
                "laige-demo: {what}: verified {} ticks ({} state hashes matched){}",
                v.ticks,
                v.checkpoints,
                if start > 0 {
                    format!(", from its start at tick {start} (a player who joined later)")
                } else {
                    String::new()
                }
            );
            0
        }
    }))
}

/// The frame rate a headless run paces at (0 in the config: 60).
fn frame_rate(config: &EngineConfig) -> u32 {
    match config.render.frame_rate_hz {
        0 => 60,
        r => r,
    }
}
