//! Session epochs over real UDP on 127.0.0.1 (one thread per peer, the
//! host's control links on TCP):
//! - join in progress: two players play a room of three seats; a third
//!   joins once the host is past tick 600, receives the encoded world of
//!   the boundary tick, and from then on all three agree on every
//!   confirmed tick's state hash until tick 2,400;
//! - rejoin, a late spectator and an input delay change: three players; one
//!   vanishes at tick 900 (its sockets close, as on SIGKILL) and comes
//!   back at once with the same seat wanted; the host changes the input
//!   delay at tick 1,200; a spectator joins after tick 1,500; every peer
//!   agrees with the host on every confirmed tick it has;
//! - control-link faults: refused without epochs or out of range.

mod support;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::fault::Faults;
use laige_net::{
    Advance, EpochChange, NetConfig, NetSession, NetStats, Seat, TickPacer, UdpNonBlockingSocket,
};
use support::{Steer, epoch_sockets, game, script_input};

const RATE_HZ: usize = 120;
const JOIN_AFTER: u64 = 600;
const UNTIL: u64 = 2_400;

fn config() -> NetConfig {
    NetConfig {
        players: 3,
        max_prediction: 8,
        input_delay: 2,
        tick_rate_hz: RATE_HZ,
        confirmed_log: 4096,
        ..NetConfig::default()
    }
}

struct Result3 {
    stats: NetStats,
    confirmed: Vec<(u64, u64)>,
    changes: Vec<EpochChange>,
}

impl Result3 {
    fn of(session: &NetSession<Steer>) -> Self {
        Self {
            stats: session.stats(),
            confirmed: session.confirmed_hashes().to_vec(),
            changes: session.driver().epoch_changes().to_vec(),
        }
    }
}

/// Player `me` of the players on `ports` (loopback; the other seats of
/// the room of three empty), in a session with epochs: the host
/// (`listener`) or a member of the host at `host`.
fn seated(
    me: usize,
    ports: &[u16],
    host: SocketAddr,
    listener: Option<TcpListener>,
    config: NetConfig,
) -> NetSession<Steer> {
    let mut seats = vec![Seat::Empty; 3];
    for (seat, port) in ports.iter().enumerate() {
        seats[seat] = if seat == me {
            Seat::Local
        } else {
            Seat::Remote(SocketAddr::from(([127, 0, 0, 1], *port)))
        };
    }
    let socket = UdpNonBlockingSocket::bind_to_port(ports[me]).unwrap();
    let mut session =
        NetSession::<Steer>::p2p(game::<Fpx16_16>(64, 3), config, &seats, socket).unwrap();
    let factory = epoch_sockets(Faults::default());
    match listener {
        Some(listener) => session.driver_mut().host_epochs(listener, factory),
        None => session.driver_mut().member_epochs(host, Some(me), factory),
    }
    .unwrap();
    session
}

fn run(me: usize, session: &mut NetSession<Steer>, host_tick: &AtomicU64, done: &AtomicU32) {
    run_until(me, session, host_tick, done, 3, None, None);
}

/// Runs a peer until every one of `peers` has confirmed [`UNTIL`], or (with
/// `vanish_at`) until its world reaches that tick: then `false`. Player 9
/// is a spectator (no input). The host (`me == 0`) publishes its tick and
/// changes the input delay at `delay_change`.
fn run_until(
    me: usize,
    session: &mut NetSession<Steer>,
    host_tick: &AtomicU64,
    done: &AtomicU32,
    peers: u32,
    vanish_at: Option<u64>,
    mut delay_change: Option<(u64, usize)>,
) -> bool {
    let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap(), 4);
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut reached = false;
    loop {
        assert!(Instant::now() < deadline, "peer {me} stuck: {session:?}");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            if me < 9 {
                script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            }
            if session.advance().unwrap() == Advance::Ended {
                break;
            }
        }
        if reached && session.end().is_some() {
            // The host left once everyone had confirmed the last tick.
            return true;
        }
        assert!(session.end().is_none(), "peer {me}: {:?}", session.end());
        let tick = session.world().tick();
        if me == 0 {
            host_tick.store(tick, Ordering::SeqCst);
        }
        if let Some((at, delay)) = delay_change
            && tick >= at
        {
            session.driver_mut().change_input_delay(delay).unwrap();
            delay_change = None;
        }
        if vanish_at.is_some_and(|at| tick >= at) {
            return false;
        }
        let confirmed = session.confirmed_hashes().last().map_or(0, |c| c.0);
        if confirmed >= UNTIL && !reached {
            reached = true;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == peers {
            return true;
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
    }
}

#[test]
fn a_player_joins_a_running_session_and_all_three_agree() {
    let ports = [support::free_port(), support::free_port()];
    let host_addr = SocketAddr::from(([127, 0, 0, 1], ports[0]));
    let listener = TcpListener::bind(host_addr).unwrap();
    let done = Arc::new(AtomicU32::new(0));
    let host_tick = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for me in 0..2_usize {
        let (done, host_tick) = (done.clone(), host_tick.clone());
        let listener = (me == 0).then(|| listener.try_clone().unwrap());
        threads.push(std::thread::spawn(move || {
            let mut session = seated(me, &ports, host_addr, listener, config());
            run(me, &mut session, &host_tick, &done);
            Result3::of(&session)
        }));
    }
    {
        let (done, host_tick) = (done.clone(), host_tick.clone());
        threads.push(std::thread::spawn(move || {
            while host_tick.load(Ordering::SeqCst) < JOIN_AFTER {
                std::thread::sleep(Duration::from_millis(5));
            }
            let mut session = NetSession::<Steer>::join(
                game::<Fpx16_16>(64, 3),
                config(),
                host_addr,
                None,
                epoch_sockets(Faults::default()),
            )
            .unwrap();
            run(2, &mut session, &host_tick, &done);
            Result3::of(&session)
        }));
    }
    let results: Vec<Result3> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let boundary = results[2]
        .changes
        .first()
        .expect("the joiner began an epoch");
    assert!(boundary.tick >= JOIN_AFTER, "{boundary:?}");
    assert_eq!(boundary.joined, vec![2]);
    assert!(boundary.snapshot_bytes > 0);
    for r in &results {
        // Changes at the last tick are the others leaving at the end.
        let changes: Vec<_> = r.changes.iter().filter(|c| c.tick < UNTIL).collect();
        assert_eq!(changes.len(), 1, "{:?}", r.changes);
        assert_eq!(r.changes[0].tick, boundary.tick);
        assert_eq!(r.stats.epochs, r.changes.len() as u64);
    }
    assert!(results[0].stats.snapshot_bytes > 0);
    // A join never leaves a member's state apart from the host's.
    assert!(results.iter().all(|r| r.stats.resyncs == 0));
    let find = |log: &[(u64, u64)], t: u64| log.iter().find(|(tick, _)| *tick == t).map(|p| p.1);
    for t in 1..=UNTIL {
        let (a, b) = (
            find(&results[0].confirmed, t),
            find(&results[1].confirmed, t),
        );
        assert!(a.is_some(), "tick {t} not confirmed by the host");
        assert_eq!(a, b, "tick {t}: host and member");
        if t >= boundary.tick {
            assert_eq!(
                a,
                find(&results[2].confirmed, t),
                "tick {t}: host and joiner"
            );
        }
    }
    assert!(
        results
            .iter()
            .all(|r| r.stats.rollbacks > 0 || r.stats.ticks > 0)
    );
}

const VANISH_AT: u64 = 900;
const DELAY_AT: u64 = 1_200;
const SPECTATE_AFTER: u64 = 1_500;

/// A vanished peer is disconnected after 1 s (a shorter timeout would
/// also drop a live peer whose thread the loaded test machine stalls).
fn config_fast_disconnect() -> NetConfig {
    NetConfig {
        disconnect_timeout: Duration::from_secs(1),
        disconnect_notify: Duration::from_millis(400),
        ..config()
    }
}

#[test]
fn a_vanished_player_rejoins_a_spectator_joins_late_and_the_delay_changes() {
    let ports = [
        support::free_port(),
        support::free_port(),
        support::free_port(),
    ];
    let host_addr = SocketAddr::from(([127, 0, 0, 1], ports[0]));
    let listener = TcpListener::bind(host_addr).unwrap();
    let done = Arc::new(AtomicU32::new(0));
    let host_tick = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for me in 0..3_usize {
        let (done, host_tick) = (done.clone(), host_tick.clone());
        let listener = (me == 0).then(|| listener.try_clone().unwrap());
        threads.push(std::thread::spawn(move || {
            let cfg = config_fast_disconnect();
            let mut session = seated(me, &ports, host_addr, listener, cfg);
            let vanish = (me == 2).then_some(VANISH_AT);
            let delay = (me == 0).then_some((DELAY_AT, 4));
            if !run_until(me, &mut session, &host_tick, &done, 4, vanish, delay) {
                // Gone as on SIGKILL (its sockets close), then back with
                // the same command: a joiner that wants its seat.
                drop(session);
                session = NetSession::<Steer>::join(
                    game::<Fpx16_16>(64, 3),
                    cfg,
                    host_addr,
                    Some(me),
                    epoch_sockets(Faults::default()),
                )
                .unwrap();
                assert!(run_until(
                    me,
                    &mut session,
                    &host_tick,
                    &done,
                    4,
                    None,
                    None
                ));
            }
            Result3::of(&session)
        }));
    }
    {
        let (done, host_tick) = (done.clone(), host_tick.clone());
        threads.push(std::thread::spawn(move || {
            while host_tick.load(Ordering::SeqCst) < SPECTATE_AFTER {
                std::thread::sleep(Duration::from_millis(5));
            }
            let mut session = NetSession::<Steer>::join_spectator(
                game::<Fpx16_16>(64, 3),
                config_fast_disconnect(),
                host_addr,
                epoch_sockets(Faults::default()),
            )
            .unwrap();
            assert!(run_until(9, &mut session, &host_tick, &done, 4, None, None));
            Result3::of(&session)
        }));
    }
    let results: Vec<Result3> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let host = &results[0];
    // The leave, the rejoin, the delay change, the spectator: in the order
    // the host made them (the rejoin waits for the leave).
    let leave = host
        .changes
        .iter()
        .find(|c| c.left == vec![2])
        .expect("a leave");
    let rejoin = host
        .changes
        .iter()
        .find(|c| c.joined == vec![2])
        .expect("a rejoin");
    // The host notices the vanished peer within a prediction window of
    // the tick it vanished at.
    assert!(
        leave.tick + 16 > VANISH_AT && rejoin.tick >= leave.tick,
        "{:?}",
        host.changes
    );
    assert!(
        host.changes
            .iter()
            .any(|c| c.spectators == 1 && c.tick >= SPECTATE_AFTER)
    );
    assert_eq!(host.stats.rejoins, 1, "{:?}", host.stats);
    assert_eq!(host.stats.joins, 0);
    assert_eq!(host.stats.epochs, host.changes.len() as u64);
    assert!(host.changes.len() >= 4, "{:?}", host.changes);
    assert!(host.stats.snapshot_bytes > 0);
    let find = |log: &[(u64, u64)], t: u64| log.iter().find(|(tick, _)| *tick == t).map(|p| p.1);
    for t in 1..=UNTIL {
        let ours = find(&host.confirmed, t);
        assert!(ours.is_some(), "tick {t} not confirmed by the host");
        for (i, r) in results.iter().enumerate().skip(1) {
            if let Some(theirs) = find(&r.confirmed, t) {
                assert_eq!(Some(theirs), ours, "tick {t}: peer {i}");
            }
        }
    }
    // The rejoined player and the spectator agree from their first tick.
    for (i, r) in results.iter().enumerate().skip(2) {
        let first = r.changes.first().unwrap().tick;
        let missing: Vec<u64> = (first..=UNTIL)
            .filter(|&t| find(&r.confirmed, t).is_none())
            .collect();
        assert!(missing.is_empty(), "peer {i} from {first}: {missing:?}");
    }
}

#[test]
fn control_faults_need_epochs_and_faults_in_range() {
    let ports = [support::free_port(), support::free_port()];
    let seats = [
        Seat::Local,
        Seat::Remote(SocketAddr::from(([127, 0, 0, 1], ports[1]))),
    ];
    let socket = UdpNonBlockingSocket::bind_to_port(ports[0]).unwrap();
    let two = NetConfig {
        players: 2,
        ..config()
    };
    let mut plain = NetSession::<Steer>::p2p(game::<Fpx16_16>(8, 2), two, &seats, socket).unwrap();
    let slow = Faults {
        latency: Duration::from_millis(40),
        loss_per_mille: 50,
        ..Faults::default()
    };
    let err = plain.driver_mut().control_faults(slow).unwrap_err();
    assert_eq!(err.id(), laige_net::events::CONFIG_INVALID);
    assert!(err.to_string().contains("control_faults"), "{err}");

    // The host of an epoch session takes them (for links it accepts
    // later too); faults out of range are refused naming the field.
    let host_addr = SocketAddr::from(([127, 0, 0, 1], ports[0] + 1));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut host = seated(
        0,
        &[support::free_port(), ports[1]],
        host_addr,
        Some(listener),
        config(),
    );
    host.driver_mut().control_faults(slow).unwrap();
    assert_eq!(host.driver().control_fault_stats().frames, 0);
    let err = host
        .driver_mut()
        .control_faults(Faults {
            jitter: Duration::from_millis(50),
            ..slow
        })
        .unwrap_err();
    assert!(err.to_string().contains("jitter"), "{err}");
}
