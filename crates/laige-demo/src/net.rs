//! The demo's network sessions: a small lobby that tells every peer the
//! others' addresses (GGRS needs them up front), then a laige-net session
//! (P2P rollback or lockstep, spectator, or a local sync test) that owns
//! the engine's ticks (`EngineBuilder::net`).
//!
//! The lobby runs on the UDP port the session then uses, before the
//! session binds it: every joiner sends `laige-demo hello player` (or
//! `spectator`) to the host every 100 ms; once the host has heard from
//! every player and spectator it answers each with its seat and the
//! players' addresses (`laige-demo welcome SEAT PLAYERS ADDR1 …`, seat 0
//! being the host itself). A lost welcome is answered again at the next
//! hello.
//!
//! An open host (`--open`) binds a TCP listener on its port number once
//! its lobby is full (before the welcomes): every lobby player opens its
//! control link there (laige-net's session epochs), and a player or
//! spectator that finds no lobby answering but the listener there joins
//! the running session (`NetDriver::join`): a player who left comes back
//! with the same command.
//!
//! A WebRTC player (`--net webrtc`, the `webrtc` feature) has no lobby of
//! its own: the matchbox signaling server's room seats the players, each
//! peer ordering them by peer id.

use std::fs::File;
use std::io::BufWriter;
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use laige_engine::core::EventId;
use laige_engine::net::fault::Faults;
use laige_engine::net::{
    MAX_PLAYERS, NetConfig, NetDriver, PeerAddr, Seat, SocketFactory, TickDriver,
    UdpNonBlockingSocket,
};
use laige_engine::sim::replay::ReplayHeader;
use laige_engine::{EngineConfig, Error, ErrorCode, MathBackend, Result, World};

use crate::sim::PilotInput;

/// `demo/lobby_timeout`: the lobby did not fill (or no welcome came) in
/// time; the demo exits with laige-net's sync-timeout code (12).
pub const LOBBY_TIMEOUT: EventId = EventId::new("demo", "lobby_timeout");
/// `demo/lobby_failed`: the lobby's socket failed or a message was
/// malformed (exit code 1).
pub const LOBBY_FAILED: EventId = EventId::new("demo", "lobby_failed");

/// How long the lobby waits for its peers: 30 s (peers started by hand,
/// or under an emulator, take seconds to come up).
pub const LOBBY_TIMEOUT_AFTER: Duration = Duration::from_secs(30);

const HELLO_PLAYER: &str = "laige-demo hello player";
const HELLO_SPECTATOR: &str = "laige-demo hello spectator";
const WELCOME: &str = "laige-demo welcome";
/// The entries of a confirmed-hash log: 65 536 ticks (18 minutes at 60 Hz;
/// 1 MiB, allocated once).
pub const CONFIRMED_LOG: usize = 1 << 16;

/// Who this process is in the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Player 0, on `port`, waiting for `players - 1` players and
    /// `spectators` spectators.
    Host {
        /// The UDP port.
        port: u16,
        /// Players the game starts with (2..=4).
        players: u8,
        /// Spectators to wait for.
        spectators: u8,
        /// Seats in the room (`players..=4`; the others wait empty).
        seats: u8,
        /// Players may join, leave and rejoin while the session runs.
        open: bool,
    },
    /// A player joining `host` from `port` (0: any free port).
    Join {
        /// The host's address.
        host: SocketAddr,
        /// This peer's UDP port (0: any).
        port: u16,
    },
    /// A spectator of `host`.
    Spectate {
        /// The host's address.
        host: SocketAddr,
        /// This peer's UDP port (0: any).
        port: u16,
    },
    /// A player of the WebRTC room at `signal`.
    WebRtc {
        /// The signaling server's room, `ws://HOST:PORT/ROOM`.
        signal: String,
        /// Players in the room (2..=4).
        players: u8,
    },
    /// A local GGRS sync test with this check distance (both players'
    /// input from the local script).
    SyncTest {
        /// Ticks rolled back and re-simulated every tick.
        check_distance: u8,
    },
}

/// A network session's plan: the role, the session's options, the faults
/// this peer's socket adds.
#[derive(Clone, Debug)]
pub struct NetPlan {
    /// Who this process is.
    pub role: Role,
    /// Prediction, input delay, tick rate (the player count comes from
    /// the lobby).
    pub config: NetConfig,
    /// Packet faults on this peer's socket (none by default).
    pub faults: Faults,
    /// Where this player records the session (`--record`): every confirmed
    /// tick's inputs of all players and the state hash after it, with this
    /// header ([`session_record_header`]); `laige-demo --replay` verifies
    /// it.
    pub record: Option<(PathBuf, ReplayHeader)>,
}

/// What the lobby settled.
#[derive(Clone, Debug)]
pub struct Seating {
    /// This peer's seats (players first, then spectators; empty for a
    /// spectator, a late joiner or a sync test).
    pub seats: Vec<Seat>,
    /// This player's seat (`None`: a spectator, a late joiner (its seat
    /// comes with the host's world) or a sync test).
    pub seat: Option<u8>,
    /// Seats in the room (a late joiner: 4, until the host's world says).
    pub players: u8,
    /// The UDP port the session binds.
    pub port: u16,
    /// The host found running: this peer joins the session in progress.
    pub late: bool,
    /// An open host's control listener.
    pub listener: Option<Arc<TcpListener>>,
    /// A WebRTC room's connected transport and seats (the session takes
    /// them).
    pub room: Option<Arc<Mutex<Option<Room>>>>,
}

/// A full WebRTC room: the transport and its seats by peer id.
#[cfg(feature = "webrtc")]
pub type Room = (
    laige_engine::net::WebRtcTransport,
    Vec<Seat<laige_engine::net::PeerId>>,
);
/// A full WebRTC room (none without the `webrtc` feature).
#[cfg(not(feature = "webrtc"))]
pub type Room = std::convert::Infallible;

fn lobby_failed(detail: String) -> Error {
    Error::new(ErrorCode::Io, LOBBY_FAILED).with_detail(detail)
}

/// Runs the lobby for `role` (nothing for a sync test).
///
/// # Errors
/// `demo/lobby_timeout` after [`LOBBY_TIMEOUT_AFTER`];
/// `demo/lobby_failed` for a socket error or a malformed welcome.
pub fn seat(role: &Role) -> Result<Seating> {
    match *role {
        Role::Host {
            port,
            players,
            spectators,
            seats,
            open,
        } => host_lobby(port, players, spectators, seats.max(players), open),
        Role::Join { host, port } => join_lobby(host, port, false),
        Role::Spectate { host, port } => join_lobby(host, port, true),
        Role::WebRtc {
            ref signal,
            players,
        } => webrtc_room(signal, players),
        Role::SyncTest { .. } => Ok(Seating {
            seats: Vec::new(),
            seat: Some(0),
            players: 2,
            port: 0,
            late: false,
            listener: None,
            room: None,
        }),
    }
}

fn bind(port: u16) -> Result<UdpSocket> {
    let socket = UdpSocket::bind(("0.0.0.0", port))
        .map_err(|e| lobby_failed(format!("binding UDP port {port}: {e}")))?;
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .map_err(|e| lobby_failed(e.to_string()))?;
    Ok(socket)
}

fn host_lobby(port: u16, players: u8, spectators: u8, seats: u8, open: bool) -> Result<Seating> {
    let socket = bind(port)?;
    let deadline = Instant::now() + LOBBY_TIMEOUT_AFTER;
    let (mut joined, mut watching) = (Vec::<SocketAddr>::new(), Vec::<SocketAddr>::new());
    let mut buf = [0_u8; 512];
    let full = |j: &Vec<_>, w: &Vec<_>| {
        j.len() + 1 == usize::from(players) && w.len() == usize::from(spectators)
    };
    // Seats past the players wait empty (`-`).
    let welcome = |joined: &[SocketAddr], to: SocketAddr| -> String {
        match joined.iter().position(|a| *a == to) {
            Some(i) => {
                let mut addrs: Vec<String> = joined.iter().map(ToString::to_string).collect();
                addrs.resize(usize::from(seats) - 1, "-".to_owned());
                format!("{WELCOME} {} {seats} {}", i + 1, addrs.join(" "))
            }
            None => format!("{WELCOME} spectator {seats}"),
        }
    };
    while !full(&joined, &watching) {
        if Instant::now() > deadline {
            return Err(
                Error::new(ErrorCode::Failed, LOBBY_TIMEOUT).with_detail(format!(
                    "{} of {} players and {} of {spectators} spectators joined port {port} in {} s",
                    joined.len() + 1,
                    players,
                    watching.len(),
                    LOBBY_TIMEOUT_AFTER.as_secs()
                )),
            );
        }
        let Ok((n, from)) = socket.recv_from(&mut buf) else {
            continue;
        };
        match std::str::from_utf8(&buf[..n]) {
            Ok(HELLO_PLAYER)
                if !joined.contains(&from) && joined.len() + 1 < usize::from(players) =>
            {
                joined.push(from)
            }
            Ok(HELLO_SPECTATOR)
                if !watching.contains(&from) && watching.len() < usize::from(spectators) =>
            {
                watching.push(from);
            }
            _ => {}
        }
    }
    // Everyone is here. An open host listens for control links before
    // the welcomes, so every player's link finds it.
    let listener = if open {
        let l = TcpListener::bind(("0.0.0.0", port)).map_err(|e| {
            lobby_failed(format!(
                "binding the control listener on TCP port {port}: {e}"
            ))
        })?;
        Some(Arc::new(l))
    } else {
        None
    };
    // Each gets its welcome (again at each later hello, for a short
    // while, in case one was lost).
    let send_all = |socket: &UdpSocket| {
        for &to in joined.iter().chain(&watching) {
            let _ = socket.send_to(welcome(&joined, to).as_bytes(), to);
        }
    };
    send_all(&socket);
    let linger = Instant::now() + Duration::from_millis(300);
    while Instant::now() < linger {
        if let Ok((_, from)) = socket.recv_from(&mut buf)
            && (joined.contains(&from) || watching.contains(&from))
        {
            let _ = socket.send_to(welcome(&joined, from).as_bytes(), from);
        }
    }
    let mut roster = vec![Seat::Local];
    roster.extend(joined.iter().map(|a| Seat::Remote(*a)));
    roster.resize(usize::from(seats), Seat::Empty);
    roster.extend(watching.iter().map(|a| Seat::Spectator(*a)));
    Ok(Seating {
        seats: roster,
        seat: Some(0),
        players: seats,
        port,
        late: false,
        listener,
        room: None,
    })
}

fn join_lobby(host: SocketAddr, port: u16, spectator: bool) -> Result<Seating> {
    let socket = bind(port)?;
    let port = socket
        .local_addr()
        .map_err(|e| lobby_failed(e.to_string()))?
        .port();
    let hello = if spectator {
        HELLO_SPECTATOR
    } else {
        HELLO_PLAYER
    };
    let started = Instant::now();
    let deadline = started + LOBBY_TIMEOUT_AFTER;
    let mut buf = [0_u8; 512];
    let mut probed = started;
    loop {
        if Instant::now() > deadline {
            return Err(
                Error::new(ErrorCode::Failed, LOBBY_TIMEOUT).with_detail(format!(
                    "no welcome from the host at {host} in {} s",
                    LOBBY_TIMEOUT_AFTER.as_secs()
                )),
            );
        }
        // No lobby answering for a second: an open host in session
        // listens for control links on its port.
        if probed.elapsed() > Duration::from_secs(1) {
            probed = Instant::now();
            if TcpStream::connect_timeout(&host, Duration::from_millis(200)).is_ok() {
                return Ok(Seating {
                    seats: Vec::new(),
                    seat: None,
                    players: u8::try_from(MAX_PLAYERS).unwrap_or(4),
                    port,
                    late: true,
                    listener: None,
                    room: None,
                });
            }
        }
        let _ = socket.send_to(hello.as_bytes(), host);
        let Ok((n, from)) = socket.recv_from(&mut buf) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(&buf[..n]) else {
            continue;
        };
        let Some(rest) = text.strip_prefix(WELCOME) else {
            continue;
        };
        if from.port() != host.port() {
            continue;
        }
        return parse_welcome(rest, host, port, spectator);
    }
}

/// `SEAT PLAYERS ADDR1 …` (a player) or `spectator PLAYERS`.
fn parse_welcome(rest: &str, host: SocketAddr, port: u16, spectator: bool) -> Result<Seating> {
    let malformed = || lobby_failed(format!("malformed welcome {rest:?}"));
    let mut words = rest.split_whitespace();
    let seat_word = words.next().ok_or_else(malformed)?;
    let players: u8 = words
        .next()
        .and_then(|w| w.parse().ok())
        .filter(|p| (2..=4).contains(p))
        .ok_or_else(malformed)?;
    if spectator {
        return Ok(Seating {
            seats: Vec::new(),
            seat: None,
            players,
            port,
            late: false,
            listener: None,
            room: None,
        });
    }
    let seat: u8 = seat_word
        .parse()
        .ok()
        .filter(|s| (1..players).contains(s))
        .ok_or_else(malformed)?;
    // `-`: a seat that waits empty.
    let others: Vec<Option<SocketAddr>> = words
        .map(|w| match w {
            "-" => Ok(None),
            w => w.parse().map(Some).map_err(|_| malformed()),
        })
        .collect::<Result<_>>()?;
    if others.len() + 1 != usize::from(players) {
        return Err(malformed());
    }
    let seats = (0..players)
        .map(|i| match i {
            i if i == seat => Seat::Local,
            0 => Seat::Remote(host),
            i => others[usize::from(i) - 1].map_or(Seat::Empty, Seat::Remote),
        })
        .collect();
    Ok(Seating {
        seats,
        seat: Some(seat),
        players,
        port,
        late: false,
        listener: None,
        room: None,
    })
}

/// The session of `plan` for the seating the lobby settled, as the
/// engine's tick owner (`EngineBuilder::net`).
///
/// # Errors
/// The socket's bind, or the session's own errors (laige-net).
pub fn driver(plan: &NetPlan, seating: &Seating, world: &mut World) -> Result<Box<dyn TickDriver>> {
    let config = NetConfig {
        players: usize::from(seating.players),
        ..plan.config
    };
    if let Role::SyncTest { check_distance } = plan.role {
        let d = NetDriver::<PilotInput>::sync_test(world, config, usize::from(check_distance))?;
        return Ok(Box::new(d));
    }
    if let Some(room) = &seating.room {
        return webrtc_driver(plan, seating, config, room, world);
    }
    let udp = UdpNonBlockingSocket::bind_to_port(seating.port).map_err(|e| {
        lobby_failed(format!(
            "binding the session's UDP port {}: {e}",
            seating.port
        ))
    })?;
    let faults = Faults {
        seed: u64::from(seating.seat.unwrap_or(9)),
        ..plan.faults
    };
    let socket = udp.with_faults(faults)?;
    let host = match plan.role {
        Role::Join { host, .. } | Role::Spectate { host, .. } => Some(host),
        _ => None,
    };
    if let (true, Some(host)) = (seating.late, host) {
        drop(socket);
        let sockets = epoch_sockets(faults);
        let late = NetConfig {
            players: MAX_PLAYERS,
            ..config
        };
        let d = if matches!(plan.role, Role::Spectate { .. }) {
            NetDriver::<PilotInput>::join_spectator(world, late, host, sockets)?
        } else {
            NetDriver::<PilotInput>::join(world, late, host, None, sockets)?
        };
        let mut d = d;
        fault_control_link(&mut d, faults);
        // A record of a peer that joins a running session starts at the
        // tick the host's world arrives with.
        record(plan, &mut d, world)?;
        return Ok(Box::new(d));
    }
    if let (Role::Spectate { .. }, Some(host)) = (&plan.role, host) {
        let mut d = NetDriver::<PilotInput>::spectator(world, config, host, socket)?;
        // An open host takes the spectator's control link; any other
        // refuses it, and the spectator watches a fixed roster.
        let _ = d.member_epochs(host, None, epoch_sockets(faults));
        fault_control_link(&mut d, faults);
        return Ok(Box::new(d));
    }
    let mut d = NetDriver::<PilotInput>::p2p(world, config, &seating.seats, socket)?;
    if let Some(listener) = &seating.listener {
        let listener = listener
            .try_clone()
            .map_err(|e| lobby_failed(format!("the control listener: {e}")))?;
        d.host_epochs(listener, epoch_sockets(faults))?;
    } else if let (Some(host), Some(seat)) = (host, seating.seat) {
        // As for a spectator: only an open host listens.
        let _ = d.member_epochs(host, Some(usize::from(seat)), epoch_sockets(faults));
    }
    fault_control_link(&mut d, faults);
    record(plan, &mut d, world)?;
    Ok(Box::new(d))
}

/// The `--fault-*` flags delay the epoch control link too, as a network
/// delays a TCP stream (latency, jitter, and loss as retransmissions).
/// A session without epochs has no control link to delay.
fn fault_control_link(d: &mut NetDriver<PilotInput>, faults: Faults) {
    if faults.latency > Duration::ZERO || faults.loss_per_mille > 0 {
        // Its only error here is "no epochs" (the faults were checked
        // when the UDP socket took them).
        let _ = d.control_faults(faults);
    }
}

/// Records the session to the plan's `--record` file, if any.
fn record<A: PeerAddr>(
    plan: &NetPlan,
    d: &mut NetDriver<PilotInput, A>,
    world: &World,
) -> Result<()> {
    if let Some((path, header)) = &plan.record {
        let file = File::create(path).map_err(|e| {
            Error::new(ErrorCode::Io, laige_engine::net::events::RECORD_FAILED)
                .with_field("record")
                .with_value(path.display().to_string())
                .with_detail(format!("creating the session record: {e}"))
        })?;
        d.record_to(BufWriter::new(file), header.clone(), world)?;
    }
    Ok(())
}

/// Joins the WebRTC room at `signal` and waits for it to fill (up to
/// [`LOBBY_TIMEOUT_AFTER`]); this player's seat is its place among the
/// room's peer ids. A page cannot wait: it polls the room from its frames
/// ([`webrtc_room_of`]) and seats itself with [`webrtc_seating`].
#[cfg(feature = "webrtc")]
fn webrtc_room(signal: &str, players: u8) -> Result<Seating> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let transport =
            laige_engine::net::WebRtcTransport::connect(&webrtc_room_of(signal, players))?;
        Ok(webrtc_seating(transport, players))
    }
    #[cfg(target_arch = "wasm32")]
    let _ = players;
    #[cfg(target_arch = "wasm32")]
    Err(Error::invalid_argument(
        LOBBY_FAILED,
        "signal",
        signal,
        "a page polls the room from its frames (net::webrtc_seating), it cannot wait for it",
    ))
}

/// The WebRTC room at `signal` for `players` players, waited for up to
/// [`LOBBY_TIMEOUT_AFTER`].
#[cfg(feature = "webrtc")]
#[must_use]
pub fn webrtc_room_of(signal: &str, players: u8) -> laige_engine::net::WebRtcRoom {
    let mut room = laige_engine::net::WebRtcRoom::new(signal, usize::from(players));
    room.timeout = LOBBY_TIMEOUT_AFTER;
    room
}

/// The seating of a full WebRTC room (`transport` connected): the seats by
/// peer id, this player's among them; [`driver`] takes the transport.
#[cfg(feature = "webrtc")]
#[must_use]
pub fn webrtc_seating(transport: laige_engine::net::WebRtcTransport, players: u8) -> Seating {
    let seats = transport.seats();
    let seat = seats
        .iter()
        .position(|s| *s == Seat::Local)
        .and_then(|s| u8::try_from(s).ok());
    Seating {
        seats: Vec::new(),
        seat,
        players,
        port: 0,
        late: false,
        listener: None,
        room: Some(Arc::new(Mutex::new(Some((transport, seats))))),
    }
}

#[cfg(not(feature = "webrtc"))]
fn webrtc_room(_signal: &str, _players: u8) -> Result<Seating> {
    Err(Error::invalid_argument(
        LOBBY_FAILED,
        "net",
        "webrtc",
        "host, join or spectate (this laige-demo was built without the webrtc feature)",
    ))
}

/// The P2P session over the WebRTC room the lobby step filled.
#[cfg(feature = "webrtc")]
fn webrtc_driver(
    plan: &NetPlan,
    seating: &Seating,
    config: NetConfig,
    room: &Mutex<Option<Room>>,
    world: &mut World,
) -> Result<Box<dyn TickDriver>> {
    use laige_engine::net::{PeerId, SealedSocket, SessionKey};
    let (transport, seats) = room
        .lock()
        .ok()
        .and_then(|mut r| r.take())
        .ok_or_else(|| lobby_failed("the WebRTC room was used already".into()))?;
    let faults = Faults {
        seed: u64::from(seating.seat.unwrap_or(9)),
        ..plan.faults
    };
    // Sealed under the public key, as the UDP sessions' sockets are.
    let socket = SealedSocket::new(transport, SessionKey::PUBLIC).with_faults(faults)?;
    let mut d = NetDriver::<PilotInput, PeerId>::p2p(world, config, &seats, socket)?;
    record(plan, &mut d, world)?;
    Ok(Box::new(d))
}

#[cfg(not(feature = "webrtc"))]
fn webrtc_driver(
    _plan: &NetPlan,
    _seating: &Seating,
    _config: NetConfig,
    room: &Mutex<Option<Room>>,
    _world: &mut World,
) -> Result<Box<dyn TickDriver>> {
    match room.lock().ok().and_then(|mut r| r.take()) {
        Some(never) => match never {},
        None => Err(lobby_failed("no WebRTC room in this build".into())),
    }
}

/// `demo/pair_not_promised`: a session's backend is not promised to agree
/// between the peers' targets (the supported-pairs table): the session
/// does not start.
pub const PAIR_NOT_PROMISED: EventId = EventId::new("demo", "pair_not_promised");

/// The supported-pairs table, generated from the detcheck matrix
/// (`laige_sim::determinism`), as this build was made with it.
pub const PAIRS_TABLE: &str = include_str!("../../laige-sim/src/determinism_pairs.md");

/// Where [`PAIRS_TABLE`] comes from, for a refusal's message.
pub const PAIRS_TABLE_NAME: &str =
    "the supported-pairs table (laige_sim::determinism, crates/laige-sim/src/determinism_pairs.md)";

/// The targets of a browser page playing against a native x86_64 peer:
/// the page's `wasm32-unknown-unknown` (V8) and `x86_64-unknown-linux-gnu`.
pub const BROWSER_AND_NATIVE: [&str; 2] = ["wasm32-unknown-unknown", "x86_64-unknown-linux-gnu"];

/// Refuses a session on `backend` unless `table` (a supported-pairs table
/// as [`PAIRS_TABLE`]) marks every one of `targets` ✓ in the backend's
/// column: a rollback session agrees bit for bit only where the backend's
/// results are promised equal on both sides.
///
/// ```
/// use laige_demo::net::{BROWSER_AND_NATIVE, PAIRS_TABLE, session_pair_promised};
/// use laige_engine::MathBackend;
/// session_pair_promised(PAIRS_TABLE, MathBackend::FixedPoint16_16, &BROWSER_AND_NATIVE)?;
/// # Ok::<(), laige_engine::Error>(())
/// ```
///
/// # Errors
/// `demo/pair_not_promised` naming the backend, the target and the table
/// when a target's cell is not ✓, the target has no row or the table no
/// column for the backend.
pub fn session_pair_promised(table: &str, backend: MathBackend, targets: &[&str]) -> Result<()> {
    let refused = |target: &str, why: &str| {
        Error::invalid_argument(
            PAIR_NOT_PROMISED,
            "backend",
            backend.id(),
            "a backend the supported-pairs table promises on both peers' targets",
        )
        .with_detail(format!(
            "{} sessions between {} are not promised: {target} {why} in {PAIRS_TABLE_NAME}",
            backend.id(),
            targets.join(" and ")
        ))
    };
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let column = format!("`{}`", backend.id());
    let mut rows = table.lines().filter(|l| l.trim_start().starts_with('|'));
    let header = rows.next().map(cells).unwrap_or_default();
    let Some(at) = header.iter().position(|c| *c == column) else {
        return Err(refused(
            targets.first().copied().unwrap_or(""),
            "has no column for the backend",
        ));
    };
    let rows: Vec<Vec<String>> = rows.map(cells).collect();
    for target in targets {
        let name = format!("`{target}`");
        match rows.iter().find(|r| r.first() == Some(&name)) {
            None => return Err(refused(target, "has no row")),
            Some(r) if !r.get(at).is_some_and(|c| c.starts_with('✓')) => {
                return Err(refused(target, "is not marked ✓"));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Each later epoch's UDP socket: a free port, with this peer's faults.
fn epoch_sockets(faults: Faults) -> SocketFactory {
    let mut epoch = 0;
    Box::new(move || {
        epoch += 1;
        let io = |e: std::io::Error| lobby_failed(format!("an epoch's UDP socket: {e}"));
        let port = UdpSocket::bind(("0.0.0.0", 0))
            .and_then(|s| s.local_addr())
            .map_err(io)?
            .port();
        let udp = UdpNonBlockingSocket::bind_to_port(port).map_err(io)?;
        let faults = Faults {
            seed: faults.seed.wrapping_mul(31).wrapping_add(epoch),
            ..faults
        };
        Ok((udp.with_faults(faults)?.boxed(), port))
    })
}

/// The driver of a session record's playback: the record was verified on
/// the set-up world before the run (`laige_net::replay_session`), so it
/// runs no tick.
#[derive(Debug)]
pub struct Replayed;

impl TickDriver for Replayed {
    fn advance(
        &mut self,
        _world: &mut World,
        _schedule: &laige_engine::sim::SystemSchedule,
    ) -> Result<laige_engine::net::Advance> {
        Ok(laige_engine::net::Advance::Skipped)
    }

    fn report(&self) -> laige_engine::net::NetReport {
        laige_engine::net::NetReport::default()
    }

    fn linger(&mut self, _time: Duration) {}
}

/// The replay identity of a demo network session of `entities` sprites:
/// not a local run's ([`replay_identity`](crate::replay_identity)), so
/// `--replay` tells a session record (players' inputs per tick) from a
/// local recording (input events) by the header's config hash. The player
/// count is in every input record.
#[must_use]
pub fn session_identity(entities: u32) -> u64 {
    let mut h = laige_engine::sim::StateHasher::default();
    h.write_bytes(b"laige-demo net session");
    h.write_u64(crate::replay_identity(entities));
    h.finish()
}

/// The header of a session record of a run of `config` with `entities`
/// sprites: its backend and seed, and the config hash of
/// [`session_identity`].
#[must_use]
pub fn session_record_header(config: &EngineConfig, entities: u32) -> ReplayHeader {
    ReplayHeader::new(
        config.determinism.math,
        config.determinism.seed,
        laige_engine::record::config_hash(config, session_identity(entities)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_and_native_session_is_promised_on_both_backends_by_this_table() {
        for backend in MathBackend::ALL {
            session_pair_promised(PAIRS_TABLE, backend, &BROWSER_AND_NATIVE).unwrap();
        }
    }

    #[test]
    fn a_pinned_session_is_refused_where_the_table_does_not_mark_the_browser() {
        // The table as it would be if V8's pinned floats differed from x86_64's.
        let table = PAIRS_TABLE
            .lines()
            .map(|l| {
                if l.starts_with("| `wasm32-unknown-unknown`") {
                    l.replacen(
                        "| ✓ promised: = x86_64-linux |",
                        "| ✗ not promised across targets |",
                        1,
                    )
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_ne!(table, PAIRS_TABLE.trim_end());
        let e = session_pair_promised(&table, MathBackend::FloatPinned32, &BROWSER_AND_NATIVE)
            .unwrap_err();
        assert_eq!(e.id(), PAIR_NOT_PROMISED);
        let text = e.to_string();
        for part in [
            "float_pinned_32",
            "wasm32-unknown-unknown",
            "supported-pairs table",
        ] {
            assert!(text.contains(part), "{text}");
        }
        // Fixed point stays promised there; a target without a row is not.
        session_pair_promised(&table, MathBackend::FixedPoint16_16, &BROWSER_AND_NATIVE).unwrap();
        let e = session_pair_promised(
            PAIRS_TABLE,
            MathBackend::FixedPoint16_16,
            &["riscv64gc-unknown-linux-gnu"],
        )
        .unwrap_err();
        assert!(e.to_string().contains("has no row"), "{e}");
    }

    #[test]
    fn a_welcome_seats_the_joiner_among_the_players() {
        let host: SocketAddr = "127.0.0.1:7000".parse().unwrap();
        let s = parse_welcome(" 2 3 127.0.0.1:7001 127.0.0.1:7002", host, 7002, false).unwrap();
        assert_eq!(s.seat, Some(2));
        assert_eq!(
            s.seats,
            [
                Seat::Remote(host),
                Seat::Remote("127.0.0.1:7001".parse().unwrap()),
                Seat::Local
            ]
        );
        assert!(parse_welcome(" 3 3 127.0.0.1:7001 127.0.0.1:7002", host, 1, false).is_err());
        assert!(parse_welcome(" 1 2", host, 1, false).is_err());
        let s = parse_welcome(" spectator 2", host, 7005, true).unwrap();
        assert_eq!((s.seat, s.players, s.seats.len()), (None, 2, 0));
    }

    #[test]
    fn a_host_seats_its_joiners_in_the_order_they_came() {
        let port = UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let host = std::thread::spawn(move || {
            seat(&Role::Host {
                port,
                players: 3,
                spectators: 1,
                seats: 3,
                open: false,
            })
        });
        let to = SocketAddr::from(([127, 0, 0, 1], port));
        let join = |spectate| {
            std::thread::spawn(move || {
                let role = if spectate {
                    Role::Spectate { host: to, port: 0 }
                } else {
                    Role::Join { host: to, port: 0 }
                };
                seat(&role)
            })
        };
        let (a, b, c) = (join(false), join(false), join(true));
        let host = host.join().unwrap().unwrap();
        let (a, b, c) = (
            a.join().unwrap().unwrap(),
            b.join().unwrap().unwrap(),
            c.join().unwrap().unwrap(),
        );
        assert_eq!((host.players, host.seats.len()), (3, 4));
        assert!(matches!(host.seats[3], Seat::Spectator(_)));
        let mut seats = [a.seat.unwrap(), b.seat.unwrap()];
        seats.sort_unstable();
        assert_eq!(seats, [1, 2]);
        assert_eq!((c.seat, c.players), (None, 3));
        for j in [&a, &b] {
            let me = usize::from(j.seat.unwrap());
            assert_eq!(j.seats[me], Seat::Local);
            assert_eq!(j.seats[0], Seat::Remote(to));
            assert_eq!(
                host.seats[me],
                Seat::Remote(SocketAddr::from(([127, 0, 0, 1], j.port)))
            );
        }
    }
}
