//! The demo's command line (clap derive): every flag with its own help
//! (`--help`), `--version`, `--flag=value` or `--flag value`, and a usage
//! error that names the bad argument in two lines and ends with "try
//! '--help'" (exit code 2).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// The exit codes, printed after the options by `--help`.
pub const EXIT_CODES: &str = "\
exit codes: 0 done, 1 setup failed (also: an unreadable, damaged or
mismatched replay), 2 bad usage, 3 a system failed or the recording
could not be written (a full disk: the file keeps its valid prefix),
4 rendering failed (also: the X server was lost),
5 the replay diverged or compared no state hash (the first differing
tick is printed), 6 the replay file is torn (it ends early; its valid
prefix was verified: \"torn after tick N; verified ticks 0..M\"),
10 a network peer disconnected or timed out, 11 a desync (network peers'
state hashes differ, or --synctest re-simulated a tick differently),
12 the network peers did not synchronize in time (or a WebRTC room did not fill,
or its signaling server is not there),
130 / 143 / 129 stopped by SIGINT (Ctrl-C) / SIGTERM / SIGHUP (a second
one exits at once); a recording ends complete in each of these";

/// Which side of a network session this process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NetMode {
    /// Player 0: waits on --port for the other players (and spectators),
    /// then plays.
    Host,
    /// A player joining the host at ADDR (from --port, or any free port).
    Join,
    /// Watches the host at ADDR: simulates the players' confirmed inputs.
    Spectate,
    /// A player of a WebRTC room (--signal ws://HOST:PORT/ROOM, --players
    /// N): seats by peer id once the room is full (a build with the
    /// `webrtc` feature).
    Webrtc,
}

/// A swarm of sprites around moving attractors, on laige-engine.
///
/// Headless by default: a scripted 5-second session, paced at the frame
/// rate, with progress lines and a final report. --window opens a window
/// (mouse: attractor; Space: pause; S or Right: step; B/D: spawn/despawn
/// a burst; I: interpolation on/off; Esc or Q: quit). With --net two to
/// four processes play one swarm over UDP, each player steering their own
/// attractor.
#[derive(Clone, Debug, Default, PartialEq, Eq, Parser)]
#[command(name = "laige-demo", version, after_help = EXIT_CODES)]
pub struct Args {
    /// Open a window instead of the headless run.
    #[arg(long, conflicts_with_all = ["unpaced", "gl"])]
    pub window: bool,
    /// Load the engine config (TOML; see the laige-engine crate docs).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Run N seconds (headless default 5; windowed: until closed).
    #[arg(long, value_name = "N", value_parser = at_least_1, conflicts_with_all = ["frames", "ticks"])]
    pub seconds: Option<u64>,
    /// Run exactly N frames.
    #[arg(long, value_name = "N", value_parser = at_least_1, conflicts_with = "ticks")]
    pub frames: Option<u64>,
    /// Run until the simulation completed N ticks (a network run: its
    /// peers' common length).
    #[arg(long, value_name = "N", value_parser = at_least_1)]
    pub ticks: Option<u64>,
    /// Sprites at the start (default 10000).
    #[arg(long, value_name = "N", value_parser = entity_count)]
    pub entities: Option<u32>,
    /// Headless: run as fast as possible on virtual time.
    #[arg(long)]
    pub unpaced: bool,
    /// Headless: render every frame through the GL pipeline on an
    /// offscreen (EGL) context.
    #[arg(long)]
    pub gl: bool,
    /// Write a rendered frame to FILE (binary PPM).
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<PathBuf>,
    /// The frame to capture (default 30).
    #[arg(long, value_name = "N", value_parser = at_least_1)]
    pub screenshot_frame: Option<u64>,
    /// Windowed: request the window's close after N frames.
    #[arg(long, value_name = "N", value_parser = at_least_1)]
    pub close_after_frames: Option<u64>,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
    /// Print the profiler's report (tick, frame, per system).
    #[arg(long)]
    pub profile: bool,
    /// Print `laige-demo: first tick` and `laige-demo: first frame
    /// presented` when they happen.
    #[arg(long)]
    pub mark_startup: bool,
    /// Record the run as a replay (identity, every tick's input, the state
    /// hash after every tick); with --net host or join, the session: every
    /// confirmed tick's inputs of all players and the state hash after it.
    /// --replay FILE verifies either.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Play FILE back headless and unpaced, comparing the state hash after
    /// every tick; the backend and seed come from the replay (use the same
    /// --config and --entities as the recording). With --window: open it
    /// in the replay viewer, paused at tick 0 with a timeline (space
    /// play/pause, arrows step and jump 60, page up/down 600, -/= speed,
    /// click or drag the timeline).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["record", "net", "synctest"])]
    pub replay: Option<PathBuf>,
    /// With --replay: go to tick N from the nearest keyframe at or before
    /// it (the recording's `[replay] keyframe_interval`), re-simulating the
    /// rest and checking every recorded state hash on the way; prints
    /// where it started, the ticks re-simulated and the state hash there.
    /// Repeat it (`--seek 900 --seek 30`) to seek again from there.
    #[arg(long, value_name = "TICK", requires = "replay")]
    pub seek: Vec<u64>,
    /// With --seek: write the state reached by each seek to
    /// DIR/tick-N.dump (every component value and field, with its hash and
    /// value: what `cargo xtask replay-diff` compares). With --net: on a
    /// desync, write the desynced tick's state to DIR/desync-tick-N.dump
    /// (what `cargo xtask desync-diff` compares with the other peer's).
    #[arg(long, value_name = "DIR")]
    pub dump_dir: Option<PathBuf>,
    /// Headless: play the input log FILE (what the demo's page exports:
    /// every event at its recorded tick and time) instead of the scripted
    /// session. With --replay and --window: the replay viewer's keys and
    /// pointer, at the viewer's ticks.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["net", "synctest"])]
    pub input_log: Option<PathBuf>,
    /// Play over the network: `host` (with --port and --players), `join
    /// ADDR`, `spectate ADDR`, or `webrtc` (with --signal and --players).
    #[arg(long, value_name = "MODE")]
    pub net: Option<NetMode>,
    /// The WebRTC room (`--net webrtc`): a matchbox signaling server's
    /// `ws://HOST:PORT/ROOM`.
    #[arg(long, value_name = "URL", requires = "net")]
    pub signal: Option<String>,
    /// The host's address (`--net join ADDR`, `--net spectate ADDR`).
    #[arg(value_name = "ADDR", requires = "net")]
    pub addr: Option<SocketAddr>,
    /// The UDP port of this peer (the host's is required; a joiner's
    /// default is any free port).
    #[arg(long, value_name = "P")]
    pub port: Option<u16>,
    /// Players in the host's session, 2..=4 (default 2).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(2..=4))]
    pub players: Option<u8>,
    /// Spectators the host waits for before the game starts (default 0).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=4))]
    pub spectators: Option<u8>,
    /// Keep the host's session open: players may join while it runs (into
    /// an empty seat), a player who leaves empties its seat (the others
    /// play on) and may come back with the same command, spectators may
    /// join late. Without it a player who leaves ends the session (exit
    /// code 10).
    #[arg(long)]
    pub open: bool,
    /// Seats in the host's room, --players..=4 (default --players): the
    /// game starts with --players and the other seats wait, empty, for
    /// players who join later (needs --open).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(2..=4))]
    pub seats: Option<u8>,
    /// Ticks a peer may simulate ahead of the confirmed inputs, 0..=16
    /// (default 8; 0 is lockstep: no rollback).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=16))]
    pub max_prediction: Option<u8>,
    /// Ticks between a local input and the tick it applies to, 0..=16
    /// (default 2; lockstep: cover the one-way latency).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=16))]
    pub input_delay: Option<u8>,
    /// Test aid: delay every datagram this peer sends by MS (with the
    /// other --fault-* flags: laige-net's FaultyTransport, under the
    /// integrity check). Latency, jitter and loss also delay its epoch
    /// control messages (a lost one comes a retransmission timeout late).
    #[arg(long, value_name = "MS", requires = "net")]
    pub fault_latency_ms: Option<u64>,
    /// Test aid: ± this many ms of random extra delay per packet.
    #[arg(long, value_name = "MS", requires = "net")]
    pub fault_jitter_ms: Option<u64>,
    /// Test aid: drop this many packets in a thousand.
    #[arg(long, value_name = "N", requires = "net", value_parser = clap::value_parser!(u16).range(0..=1000))]
    pub fault_loss_per_mille: Option<u16>,
    /// Test aid: flip bits (--fault-corrupt-bits, default 1) in this many
    /// sent datagrams in a thousand (0..=500).
    #[arg(long, value_name = "N", requires = "net", value_parser = clap::value_parser!(u16).range(0..=500))]
    pub fault_corrupt_per_mille: Option<u16>,
    /// Test aid: bits flipped in a corrupted datagram, 1..=64.
    #[arg(long, value_name = "K", requires = "net", value_parser = clap::value_parser!(u8).range(1..=64))]
    pub fault_corrupt_bits: Option<u8>,
    /// Test aid: cut short this many sent datagrams in a thousand, and
    /// append bytes to as many (0..=500).
    #[arg(long, value_name = "N", requires = "net", value_parser = clap::value_parser!(u16).range(0..=500))]
    pub fault_resize_per_mille: Option<u16>,
    /// Test aid: after this many sends in a thousand, send one of the last
    /// 32 datagrams again (0..=500).
    #[arg(long, value_name = "N", requires = "net", value_parser = clap::value_parser!(u16).range(0..=500))]
    pub fault_replay_per_mille: Option<u16>,
    /// Write every confirmed tick's state hash to FILE (`tick hash` lines,
    /// hexadecimal hash) when the network run ends.
    #[arg(long, value_name = "FILE")]
    pub net_hashes: Option<PathBuf>,
    /// Windowed network play without a hand on the controls (tests,
    /// unattended demos): this player's attractor follows the scripted
    /// path and presses B at 2 s and 4 s and D at 6 s of ticks, raised every
    /// frame as game actions stamped on the loop's clock like the window's
    /// own events.
    #[arg(long, requires_all = ["window", "net"])]
    pub pilot: bool,
    /// Run a GGRS sync test: every tick, roll back N ticks (1..=7) and
    /// re-simulate them, comparing state hashes (a mismatch exits 11).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=7), conflicts_with = "net")]
    pub synctest: Option<u8>,
}

/// Default headless run length: 5 s (long enough to see the bursts of 1 s,
/// 2 s and 3 s and a lap of the attractor; short enough to try often).
pub const DEFAULT_SECONDS: u64 = 5;
/// Default frame to capture: 30 (half a second in, the swarm has moved).
pub const DEFAULT_SCREENSHOT_FRAME: u64 = 30;

impl Args {
    /// Parses the arguments after the program name.
    ///
    /// # Errors
    /// clap's error: a usage error (`use_stderr()`: print it, exit 2), or
    /// `--help` / `--version` (print it, exit 0).
    pub fn parse_args(
        args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
    ) -> Result<Self, clap::Error> {
        let argv = std::iter::once(std::ffi::OsString::from("laige-demo"))
            .chain(args.into_iter().map(Into::into));
        let parsed = Self::try_parse_from(argv)?;
        parsed.check()?;
        Ok(parsed)
    }

    /// The rules between flags clap's attributes do not state.
    fn check(&self) -> Result<(), clap::Error> {
        use clap::CommandFactory;
        let bad = |message: &str| {
            Err(Self::command().error(clap::error::ErrorKind::ArgumentConflict, message))
        };
        match (self.net, self.addr, self.port) {
            (Some(NetMode::Webrtc), _, _) if self.signal.is_none() => {
                bad("--net webrtc needs --signal ws://HOST:PORT/ROOM")
            }
            (Some(NetMode::Webrtc), addr, port)
                if addr.is_some()
                    || port.is_some()
                    || self.spectators.is_some()
                    || self.open
                    || self.seats.is_some() =>
            {
                bad(
                    "--net webrtc takes the room (--signal) and --players only: no ADDR, \
                     --port, --spectators, --open or --seats",
                )
            }
            (Some(NetMode::Host | NetMode::Join | NetMode::Spectate), _, _)
                if self.signal.is_some() =>
            {
                bad("--signal names a WebRTC room: it needs --net webrtc")
            }
            (Some(NetMode::Host), Some(_), _) => {
                bad("--net host takes no ADDR (the others join it at --port)")
            }
            (Some(NetMode::Host), None, None) => bad("--net host needs --port P"),
            (Some(NetMode::Join | NetMode::Spectate), None, _) => {
                bad("--net join and --net spectate need the host's ADDR")
            }
            (Some(NetMode::Join | NetMode::Spectate), Some(_), _)
                if self.players.is_some()
                    || self.spectators.is_some()
                    || self.open
                    || self.seats.is_some() =>
            {
                bad(
                    "--players, --spectators, --open and --seats are the host's (drop them when joining)",
                )
            }
            (Some(NetMode::Host), _, _) if self.seats.is_some() && !self.open => {
                bad("--seats leaves seats empty for players who join later: it needs --open")
            }
            (Some(NetMode::Host), _, _)
                if self.seats.is_some_and(|s| s < self.players.unwrap_or(2)) =>
            {
                bad("--seats counts the room's seats: at least --players")
            }
            (None, _, Some(_)) => bad("--port needs --net"),
            (None, _, _)
                if self.players.is_some()
                    || self.spectators.is_some()
                    || self.open
                    || self.seats.is_some() =>
            {
                bad("--players, --spectators, --open and --seats need --net host")
            }
            (Some(_), _, _) if self.unpaced => bad(
                "--unpaced runs on virtual time: a network session needs real time (drop --unpaced)",
            ),
            _ if self.replay.is_some()
                && !self.window
                && (self.seconds.is_some() || self.frames.is_some() || self.ticks.is_some()) =>
            {
                bad(
                    "--replay plays the whole recording: --seconds, --frames and --ticks \
                     limit the replay viewer only (add --window)",
                )
            }
            _ if self.input_log.is_some() && self.window && self.replay.is_none() => bad(
                "--input-log plays a headless run, or scripts the replay viewer \
                 (--replay FILE --window); a window takes its input from the keyboard",
            ),
            _ if self.input_log.is_some() && self.replay.is_some() && !self.window => {
                bad("--input-log with --replay scripts the replay viewer: add --window")
            }
            _ if self.dump_dir.is_some() && self.seek.is_empty() && self.net.is_none() => bad(
                "--dump-dir writes the states --seek reaches, or a network session's \
                 desynced tick: add --seek or --net",
            ),
            _ if self.replay.is_some() && self.window && !self.seek.is_empty() => {
                bad("--seek is the headless replay's; in the viewer, seek with the timeline")
            }
            _ if self.record.is_some()
                && (self.synctest.is_some() || self.net == Some(NetMode::Spectate)) =>
            {
                bad(
                    "--record records a local run or a player's session (--net host or join); \
                     drop it with --synctest and --net spectate",
                )
            }
            _ => Ok(()),
        }
    }

    /// Whether the run is a network session (`--net`) or a sync test.
    #[must_use]
    pub fn is_session(&self) -> bool {
        self.net.is_some() || self.synctest.is_some()
    }
}

fn at_least_1(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| "expected an integer >= 1".to_owned())
}

fn entity_count(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&n| n <= 1 << 24)
        .ok_or_else(|| "accepted 0..=16777216".to_owned())
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::parse_args(args.iter().copied())
    }

    fn error(args: &[&str]) -> String {
        parse(args).unwrap_err().to_string()
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }

    #[test]
    fn flags_and_values() {
        let a = parse(&["--window", "--entities", "500", "--seconds", "3"]).unwrap();
        assert!(a.window);
        assert_eq!((a.entities, a.seconds), (Some(500), Some(3)));
        let a = parse(&["--frames=10", "--unpaced", "--gl", "--quiet"]).unwrap();
        assert_eq!(a.frames, Some(10));
        assert!(a.unpaced && a.gl && a.quiet);
        assert_eq!(parse(&[]).unwrap(), Args::default());
        let a = parse(&["--net", "host", "--port", "7000", "--players", "3"]).unwrap();
        assert_eq!(
            (a.net, a.port, a.players),
            (Some(NetMode::Host), Some(7000), Some(3))
        );
        let a = parse(&["--net=join", "127.0.0.1:7000", "--ticks", "1200"]).unwrap();
        assert_eq!(a.addr, Some("127.0.0.1:7000".parse().unwrap()));
        assert_eq!((a.net, a.ticks), (Some(NetMode::Join), Some(1200)));
        assert_eq!(parse(&["--synctest", "7"]).unwrap().synctest, Some(7));
    }

    #[test]
    fn a_webrtc_player_names_its_room_and_nothing_of_udp() {
        let room = "ws://127.0.0.1:3536/game";
        let a = parse(&["--net", "webrtc", "--signal", room, "--players", "3"]).unwrap();
        assert_eq!(
            (a.net, a.signal.as_deref(), a.players),
            (Some(NetMode::Webrtc), Some(room), Some(3))
        );
        assert!(error(&["--net", "webrtc"]).contains("--net webrtc needs --signal"));
        let e = error(&["--net", "webrtc", "--signal", room, "--port", "7000"]);
        assert!(e.contains("no ADDR, --port"), "{e}");
        let e = error(&["--net", "host", "--port", "7000", "--signal", room]);
        assert!(e.contains("it needs --net webrtc"), "{e}");
    }

    #[test]
    fn bad_usage_is_named_in_a_short_message() {
        let e = error(&["--nope"]);
        assert!(e.contains("unexpected argument '--nope'"), "{e}");
        assert!(e.trim_end().ends_with("try '--help'."), "{e}");
        assert!(e.lines().count() <= 8, "{e}");
        assert!(error(&["--seconds"]).contains("a value is required for '--seconds <N>'"));
        assert!(error(&["--seconds", "0"]).contains("expected an integer >= 1"));
        assert!(error(&["--entities", "99999999"]).contains("16777216"));
        assert!(error(&["--seconds", "1", "--frames", "2"]).contains("cannot be used with"));
        assert!(parse(&["--window", "--unpaced"]).is_err());
        let a = parse(&["--replay", "a", "--window", "--input-log", "l"]).unwrap();
        assert!(a.window && a.replay.is_some() && a.input_log.is_some());
        assert!(error(&["--replay", "a", "--ticks", "5"]).contains("add --window"));
        assert!(error(&["--replay", "a", "--input-log", "l"]).contains("add --window"));
        assert!(error(&["--window", "--input-log", "l"]).contains("replay viewer"));
        assert!(error(&["--replay", "a", "--window", "--seek", "3"]).contains("timeline"));
        assert!(parse(&["--replay", "a", "--record", "b"]).is_err());
        assert!(parse(&["--record"]).is_err());
        assert!(parse(&["--seek", "5"]).is_err());
        assert!(error(&["--dump-dir", "d"]).contains("add --seek or --net"));
        let a = parse(&[
            "--net",
            "webrtc",
            "--signal",
            "ws://h:1/r",
            "--dump-dir",
            "d",
        ])
        .unwrap();
        assert_eq!(a.dump_dir, Some(PathBuf::from("d")));
        let a = parse(&["--replay", "a", "--seek", "5", "--seek", "2"]).unwrap();
        assert_eq!(a.seek, [5, 2]);
        let a = parse(&["--record", "run.lrp", "--unpaced"]).unwrap();
        assert_eq!(a.record, Some(PathBuf::from("run.lrp")));
        assert!(error(&["--net", "host"]).contains("--port"));
        assert!(error(&["--net", "join"]).contains("ADDR"));
        assert!(error(&["--net", "lobby"]).contains("possible values: host, join, spectate"));
        assert!(error(&["--players", "2"]).contains("--net host"));
        assert!(error(&["--synctest", "8"]).contains("1..=7"));
        assert!(parse(&["--pilot", "--net", "host", "--port", "1"]).is_err());
        assert!(parse(&["--pilot", "--window"]).is_err());
        let a = parse(&["--window", "--pilot", "--net", "host", "--port", "1"]).unwrap();
        assert!(a.pilot && a.window);
        assert!(parse(&["--synctest", "3", "--net", "host", "--port", "1"]).is_err());
        let host = ["--net", "host", "--port", "1"];
        let a = parse(
            &[
                &host[..],
                &[
                    "--fault-corrupt-per-mille",
                    "50",
                    "--fault-corrupt-bits",
                    "3",
                ],
            ]
            .concat(),
        )
        .unwrap();
        assert_eq!(
            (a.fault_corrupt_per_mille, a.fault_corrupt_bits),
            (Some(50), Some(3))
        );
        assert!(parse(&[&host[..], &["--fault-corrupt-per-mille", "501"]].concat()).is_err());
        assert!(parse(&[&host[..], &["--fault-corrupt-bits", "0"]].concat()).is_err());
        assert!(parse(&[&host[..], &["--fault-replay-per-mille", "600"]].concat()).is_err());
        assert!(parse(&["--fault-resize-per-mille", "10"]).is_err());
    }

    #[test]
    fn help_and_version_are_not_errors() {
        let help = parse(&["--help"]).unwrap_err();
        assert_eq!(help.kind(), ErrorKind::DisplayHelp);
        let text = help.to_string();
        assert!(text.contains("--max-prediction <N>") && text.contains("10 a network peer"));
        assert_eq!(
            parse(&["--version"]).unwrap_err().kind(),
            ErrorKind::DisplayVersion
        );
    }
}
