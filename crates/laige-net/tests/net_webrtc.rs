//! Sessions over real WebRTC on loopback (feature `webrtc`): a matchbox
//! signaling server in this process (one per test: a full-mesh server is
//! one room), each peer on a thread of its own with its own
//! `WebRtcTransport`, `SealedSocket` and `NetSession`. Two peers play
//! 1,200 ticks with rollback and agree on every confirmed tick, on a clean
//! link and through 30 ± 15 ms latency and 5 % loss; three seats agree;
//! a spectator follows two players and agrees with them; lockstep agrees
//! without a rollback; a peer that leaves is a disconnect naming its peer
//! id; a signaling server that is not there, or a room that does not
//! fill, is a clear error, not a hang.
//! The runs print their rollbacks, agreement and connect times (WebRTC
//! beside UDP).

#![allow(
    clippy::print_stdout,
    reason = "the runs' rollbacks, agreement and connect times are reported"
)]

mod support;

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::fault::Faults;
use laige_net::{
    Advance, NetConfig, NetEnd, NetSession, NetStats, PeerAddr, PeerId, SealedSocket, Seat,
    SessionKey, TickPacer, Transport, UdpNonBlockingSocket, WebRtcRoom, WebRtcTransport, events,
};
use support::{Steer, free_port, game, player_seats, script_input};

const RATE_HZ: usize = 120;
const TICKS: u64 = 1200;
/// The ticks of the seat and role tests (three seats, a spectator,
/// lockstep): 5 s each at 120 Hz, run side by side.
const SHORT_TICKS: u64 = 600;

fn config() -> NetConfig {
    config_for(2, 8)
}

/// `players` seats; `max_prediction` 0 is lockstep.
fn config_for(players: usize, max_prediction: usize) -> NetConfig {
    NetConfig {
        players,
        max_prediction,
        input_delay: if max_prediction == 0 { 2 } else { 1 },
        tick_rate_hz: RATE_HZ,
        confirmed_log: 4096,
        ..NetConfig::default()
    }
}

fn key() -> SessionKey {
    SessionKey::from_secret(b"net_webrtc")
}

fn faults(seed: u64) -> Faults {
    Faults {
        latency: Duration::from_millis(30),
        jitter: Duration::from_millis(15),
        loss_per_mille: 50,
        seed,
        ..Faults::default()
    }
}

struct Run<A> {
    stats: NetStats,
    confirmed: Vec<(u64, u64)>,
    end: Option<NetEnd<A>>,
    /// From the session's start to its first simulated tick.
    to_first_tick: Duration,
    /// From the session's start to its end (a vanished peer's loss).
    elapsed: Duration,
}

/// Plays `session` (player `me` scripts its input; `None`: a spectator)
/// until it and the room's other `peers - 1` peers confirmed `until`
/// ticks (`done` counts the peers there), it ends, or its world reaches
/// `vanish_at` (then it drops the session).
fn play<A: PeerAddr>(
    mut session: NetSession<Steer, A>,
    me: Option<u8>,
    until: u64,
    vanish_at: Option<u64>,
    (done, peers): (&AtomicU32, u32),
) -> Run<A> {
    let started = Instant::now();
    let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap(), 4);
    let deadline = started + Duration::from_secs(90);
    let (mut reached, mut first_tick) = (false, None);
    loop {
        assert!(Instant::now() < deadline, "peer {me:?} stuck: {session:?}");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            if let Some(me) = me {
                script_input(session.world_mut(), me, tick);
            }
            let advanced = session.advance().unwrap();
            if advanced == Advance::Ticked && first_tick.is_none() {
                first_tick = Some(started.elapsed());
            }
            if advanced == Advance::Ended {
                break;
            }
        }
        if vanish_at.is_some_and(|t| session.world().tick() >= t) || session.end().is_some() {
            break;
        }
        let confirmed = session.confirmed_hashes().last().map_or(0, |c| c.0);
        if confirmed >= until && !reached {
            reached = true;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == peers {
            break;
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
    }
    if !reached {
        done.fetch_add(1, Ordering::SeqCst);
    }
    // Let the other peers receive the last inputs before the socket closes.
    if vanish_at.is_none() {
        session.linger(Duration::from_millis(300));
    }
    Run {
        stats: session.stats(),
        confirmed: session.confirmed_hashes().to_vec(),
        end: session.into_end(),
        to_first_tick: first_tick.unwrap_or_default(),
        elapsed: started.elapsed(),
    }
}

/// A P2P player of `seats` over `socket`: its seat and session.
fn player<A: PeerAddr>(
    seats: &[Seat<A>],
    socket: SealedSocket<impl Transport<Addr = A> + 'static>,
    config: NetConfig,
) -> (u8, NetSession<Steer, A>) {
    let me = seats.iter().position(|s| *s == Seat::Local).unwrap();
    let players = u8::try_from(config.players).unwrap();
    let session =
        NetSession::<Steer, A>::p2p(game::<Fpx16_16>(64, players), config, seats, socket).unwrap();
    (u8::try_from(me).unwrap(), session)
}

/// `n` peers in a fresh room, each on a thread of its own: `peer` gets
/// its transport once the room is full and the time that took.
fn in_room<R: Send + 'static>(
    n: usize,
    peer: impl Fn(usize, WebRtcTransport, Duration) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let url = format!(
        "ws://127.0.0.1:{}/laige-test",
        laige_testkit::signaling::start()
    );
    let peer = Arc::new(peer);
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let (url, peer) = (url.clone(), peer.clone());
            std::thread::spawn(move || {
                let opened = Instant::now();
                let transport = WebRtcTransport::connect(&WebRtcRoom::new(url, n)).unwrap();
                peer(i, transport, opened.elapsed())
            })
        })
        .collect();
    threads.into_iter().map(|h| h.join().unwrap()).collect()
}

/// The room's peer ids in seat order (every peer derives the same).
fn ids_of(transport: &WebRtcTransport) -> Vec<PeerId> {
    let own = transport.id().unwrap();
    transport
        .seats()
        .iter()
        .map(|s| match s {
            Seat::Remote(id) => *id,
            _ => own,
        })
        .collect()
}

/// One WebRTC peer's run and what its room took.
struct WebRtcRun {
    run: Run<PeerId>,
    id: PeerId,
    /// From opening the room to the room being full.
    connect: Duration,
}

/// Two WebRTC peers in a fresh room; peer 1 drops its session at
/// `vanish_at`.
fn webrtc_pair(faulty: bool, vanish_at: Option<u64>) -> [WebRtcRun; 2] {
    let done = AtomicU32::new(0);
    let runs = in_room(2, move |n, transport, connect| {
        let id = transport.id().unwrap();
        let seats = transport.seats();
        let socket = SealedSocket::new(transport, key())
            .with_faults(if faulty {
                faults(0x3eb + n as u64)
            } else {
                Faults::default()
            })
            .unwrap();
        let (me, session) = player(&seats, socket, config());
        let vanish = vanish_at.filter(|_| n == 1);
        let run = play(session, Some(me), TICKS, vanish, (&done, 2));
        WebRtcRun { run, id, connect }
    });
    let mut runs = runs.into_iter();
    [runs.next().unwrap(), runs.next().unwrap()]
}

/// Every tick in `1..=until` is confirmed on both with equal hashes;
/// returns how many ticks were compared.
fn assert_agree<A: PeerAddr>(a: &Run<A>, b: &Run<A>, until: u64) -> u64 {
    assert_agree_from(a, b, 1, until)
}

/// Every tick in `from..=until` is confirmed on both with equal hashes;
/// returns how many ticks were compared.
fn assert_agree_from<A: PeerAddr>(a: &Run<A>, b: &Run<A>, from: u64, until: u64) -> u64 {
    assert!(
        a.end.is_none() && b.end.is_none(),
        "{:?} {:?}",
        a.end,
        b.end
    );
    let find = |log: &[(u64, u64)], t: u64| log.iter().find(|(tick, _)| *tick == t).map(|p| p.1);
    for t in from..=until {
        let (ha, hb) = (find(&a.confirmed, t), find(&b.confirmed, t));
        assert!(
            ha.is_some() && hb.is_some(),
            "tick {t} not confirmed: {ha:?} {hb:?}"
        );
        assert_eq!(ha, hb, "tick {t}");
    }
    until + 1 - from
}

fn report(link: &str, runs: &[WebRtcRun; 2], agreed: u64) {
    for (n, r) in runs.iter().enumerate() {
        let s = &r.run.stats;
        println!(
            "webrtc {link} peer {n}: room full after {} ms, first tick {} ms later; {} ticks, \
             {} rollbacks ({} ticks re-simulated), rtt {} ms, {} dropped damaged; \
             {agreed} confirmed ticks agree",
            r.connect.as_millis(),
            r.run.to_first_tick.as_millis(),
            s.ticks,
            s.rollbacks,
            s.rolled_back_ticks,
            s.rtt_ms,
            s.dropped_damaged
        );
    }
}

#[test]
fn two_webrtc_peers_agree_on_every_confirmed_tick_on_a_clean_link() {
    let runs = webrtc_pair(false, None);
    assert_ne!(runs[0].id, runs[1].id);
    let agreed = assert_agree(&runs[0].run, &runs[1].run, TICKS);
    report("clean", &runs, agreed);
}

#[test]
fn two_webrtc_peers_agree_through_latency_jitter_and_loss_with_rollbacks() {
    let runs = webrtc_pair(true, None);
    let agreed = assert_agree(&runs[0].run, &runs[1].run, TICKS);
    report("30±15 ms, 5% loss", &runs, agreed);
    assert!(
        runs.iter().any(|r| r.run.stats.rollbacks > 0),
        "a faulty link mispredicts"
    );
}

#[test]
fn a_webrtc_peer_that_leaves_is_a_disconnect_naming_its_peer_id() {
    let runs = webrtc_pair(false, Some(300));
    let [stayed, left] = &runs;
    match &stayed.run.end {
        Some(NetEnd::Disconnected { peer }) => assert_eq!(*peer, left.id),
        other => panic!("expected the left peer's disconnect, got {other:?}"),
    }
    assert_eq!(
        stayed.run.end.as_ref().unwrap().exit_code(),
        laige_net::EXIT_DISCONNECTED
    );
    // The end comes after the left peer's last tick within the disconnect
    // timeout (and the loop's deadline bounds it).
    println!(
        "webrtc leave: the other peer ended after {} ms of session ({} ms to the leave, timeout {} ms)",
        stayed.run.elapsed.as_millis(),
        left.run.elapsed.as_millis(),
        config().disconnect_timeout.as_millis()
    );
}

#[test]
fn a_signaling_server_that_is_not_there_is_a_clear_error() {
    // A port nothing listens on (bound, read, released).
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("ws://127.0.0.1:{port}/nobody");
    let mut room = WebRtcRoom::new(url.clone(), 2);
    room.timeout = Duration::from_secs(5);
    let err = WebRtcTransport::connect(&room).unwrap_err();
    assert_eq!(err.id(), events::SIGNALING_FAILED, "{err}");
    assert!(err.to_string().contains(&url), "{err}");
    println!("no signaling server: {err}");
}

#[test]
fn a_room_that_does_not_fill_is_a_timeout_naming_who_arrived() {
    let url = format!("ws://127.0.0.1:{}/alone", laige_testkit::signaling::start());
    let mut room = WebRtcRoom::new(url.clone(), 3);
    room.timeout = Duration::from_secs(1);
    let err = WebRtcTransport::connect(&room).unwrap_err();
    assert_eq!(err.id(), events::ROOM_TIMEOUT, "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&url) && text.contains("1 of 3 players"),
        "{text}"
    );
}

#[test]
fn udp_reference_for_the_connect_time() {
    // The same pair over UDP, for the printed comparison of the time to
    // the first tick (and the rtt) with the WebRTC runs above.
    let ports = [free_port(), free_port()];
    let done = Arc::new(AtomicU32::new(0));
    let peers: Vec<_> = (0..2)
        .map(|me| {
            let done = done.clone();
            std::thread::spawn(move || {
                let socket = UdpNonBlockingSocket::bind_to_port(ports[me]).unwrap();
                let (me, session) = player(&player_seats(me, ports), socket, config());
                play(session, Some(me), TICKS, None, (&done, 2))
            })
        })
        .collect();
    let runs: Vec<_> = peers.into_iter().map(|h| h.join().unwrap()).collect();
    let agreed = assert_agree(&runs[0], &runs[1], TICKS);
    for (n, r) in runs.iter().enumerate() {
        println!(
            "udp clean peer {n}: first tick {} ms after the session began; {} rollbacks, rtt {} ms; \
             {agreed} confirmed ticks agree",
            r.to_first_tick.as_millis(),
            r.stats.rollbacks,
            r.stats.rtt_ms
        );
    }
}

#[test]
fn three_webrtc_seats_agree_on_every_confirmed_tick() {
    let done = AtomicU32::new(0);
    let runs = in_room(3, move |_, transport, _| {
        let seats = transport.seats();
        let (me, session) = player(
            &seats,
            SealedSocket::new(transport, key()),
            config_for(3, 8),
        );
        play(session, Some(me), SHORT_TICKS, None, (&done, 3))
    });
    assert_agree(&runs[0], &runs[1], SHORT_TICKS);
    let agreed = assert_agree(&runs[0], &runs[2], SHORT_TICKS);
    for (n, r) in runs.iter().enumerate() {
        println!(
            "webrtc three seats, peer {n}: {} ticks, {} rollbacks, rtt {} ms; {agreed} confirmed \
             ticks agree",
            r.stats.ticks, r.stats.rollbacks, r.stats.rtt_ms
        );
    }
}

#[test]
fn a_webrtc_spectator_simulates_the_confirmed_ticks_the_players_agree_on() {
    // The room's third peer id (in seat order) watches the first, the
    // host, who serves it; the first two play.
    let done = AtomicU32::new(0);
    let runs = in_room(3, move |_, transport, _| {
        let ids = ids_of(&transport);
        let own = transport.id().unwrap();
        let socket = SealedSocket::new(transport, key());
        let config = config_for(2, 8);
        if own == ids[2] {
            let world = game::<Fpx16_16>(64, 2);
            let session = NetSession::<Steer, PeerId>::spectator(world, config, ids[0], socket);
            return (
                true,
                play(session.unwrap(), None, SHORT_TICKS, None, (&done, 3)),
            );
        }
        let mut seats: Vec<Seat<PeerId>> = ids[..2]
            .iter()
            .map(|&id| {
                if id == own {
                    Seat::Local
                } else {
                    Seat::Remote(id)
                }
            })
            .collect();
        if own == ids[0] {
            seats.push(Seat::Spectator(ids[2]));
        }
        let (me, session) = player(&seats, socket, config);
        (
            false,
            play(session, Some(me), SHORT_TICKS, None, (&done, 3)),
        )
    });
    let spectator = &runs.iter().find(|r| r.0).unwrap().1;
    let players: Vec<_> = runs.iter().filter(|r| !r.0).map(|r| &r.1).collect();
    assert_eq!(players.len(), 2);
    assert_agree(players[0], players[1], SHORT_TICKS);
    // A spectator's log starts at its first simulated tick.
    let agreed = assert_agree_from(spectator, players[0], 2, SHORT_TICKS);
    println!(
        "webrtc spectator: {} ticks simulated, {agreed} confirmed ticks agree with both players",
        spectator.stats.ticks
    );
}

#[test]
fn webrtc_lockstep_peers_agree_without_a_rollback() {
    let done = AtomicU32::new(0);
    let runs = in_room(2, move |_, transport, _| {
        let seats = transport.seats();
        let (me, session) = player(
            &seats,
            SealedSocket::new(transport, key()),
            config_for(2, 0),
        );
        play(session, Some(me), SHORT_TICKS, None, (&done, 2))
    });
    let agreed = assert_agree(&runs[0], &runs[1], SHORT_TICKS);
    for (n, r) in runs.iter().enumerate() {
        assert_eq!(r.stats.rollbacks, 0, "peer {n}: lockstep never rolls back");
        println!(
            "webrtc lockstep, peer {n}: {} ticks ({} waited), 0 rollbacks; {agreed} confirmed \
             ticks agree",
            r.stats.ticks, r.stats.waited
        );
    }
}
