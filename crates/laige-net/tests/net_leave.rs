//! Exact leaves, over real UDP on 127.0.0.1 (one thread per peer, the
//! host's control links on TCP): three players with epochs; player 2
//! stops reaching player 1 at tick 604 (its datagrams to it are lost from
//! then on) and vanishes `GAP` ticks later (its sockets close, as on
//! SIGKILL), steering all the while. Each survivor's GGRS drops player 2
//! at the last input it got from it, so the host simulates `GAP` more
//! ticks of player 2's input than player 1. At the leave's boundary both
//! drop it from the earlier tick (the host re-simulates from a kept
//! confirmed state): their states there agree without a resync, and so
//! does every confirmed tick as they hold it after the boundary. (The
//! ticks where they differ before the boundary include tick 608, whose
//! checksum GGRS's desync detection compares.)
//!
//! `GAP` stays under the prediction window: GGRS 0.13 panics ("cannot
//! load frame outside of prediction window") on a survivor whose last
//! input of the lost player is more than about `max_prediction` frames
//! past another survivor's (see `net.md`, exact leaves); the session
//! catches it and ends with an error, which the second test checks.

mod support;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::fault::Faults;
use laige_net::{
    Advance, EpochChange, NetConfig, NetSession, NetStats, SealedSocket, Seat, SessionKey,
    TickPacer, Transport, UdpTransport,
};
use laige_sim::input::InputKind;
use support::{Steer, epoch_sockets, game, script_input};

const RATE_HZ: usize = 120;
const CUT_AT: u64 = 604;
const GAP: u64 = 4;
const UNTIL: u64 = 1_200;

fn config() -> NetConfig {
    NetConfig {
        players: 3,
        max_prediction: 8,
        input_delay: 2,
        tick_rate_hz: RATE_HZ,
        confirmed_log: 4096,
        disconnect_timeout: Duration::from_secs(1),
        disconnect_notify: Duration::from_millis(400),
        ..NetConfig::default()
    }
}

/// UDP that loses every datagram to `to` once `cut` is set.
struct Cuttable {
    udp: UdpTransport,
    to: SocketAddr,
    cut: Arc<AtomicBool>,
}

impl Transport for Cuttable {
    type Addr = SocketAddr;

    fn send_to(&mut self, datagram: &[u8], to: &SocketAddr) {
        if !(self.cut.load(Ordering::SeqCst) && *to == self.to) {
            self.udp.send_to(datagram, to);
        }
    }

    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        self.udp.recv_from(buf)
    }
}

fn seated(
    me: usize,
    ports: &[u16; 3],
    host: SocketAddr,
    listener: Option<TcpListener>,
    cut: &Arc<AtomicBool>,
) -> NetSession<Steer> {
    let addr = |seat: usize| SocketAddr::from(([127, 0, 0, 1], ports[seat]));
    let seats: Vec<Seat> = (0..3)
        .map(|seat| {
            if seat == me {
                Seat::Local
            } else {
                Seat::Remote(addr(seat))
            }
        })
        .collect();
    let udp = UdpTransport::bind_to_port(ports[me]).unwrap();
    // Only the leaver's datagrams to player 1 are cut.
    let cut = if me == 2 {
        cut.clone()
    } else {
        Arc::new(AtomicBool::new(false))
    };
    let transport = Cuttable {
        udp,
        to: addr(1),
        cut,
    };
    let socket = SealedSocket::new(transport, SessionKey::PUBLIC);
    let mut session =
        NetSession::<Steer>::p2p(game::<Fpx16_16>(64, 3), config(), &seats, socket).unwrap();
    let factory = epoch_sockets(Faults::default());
    match listener {
        Some(listener) => session.driver_mut().host_epochs(listener, factory),
        None => session.driver_mut().member_epochs(host, Some(me), factory),
    }
    .unwrap();
    session
}

/// Runs a survivor until both have confirmed [`UNTIL`]; the leaver (seat
/// 2) until its world reaches `CUT_AT + gap`. A survivor's session error
/// ends its run and is returned.
fn run(
    me: usize,
    session: &mut NetSession<Steer>,
    (cut, gap): (&AtomicBool, u64),
    done: &AtomicU32,
) -> Option<laige_core::Error> {
    let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap(), 4);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut reached = false;
    loop {
        assert!(Instant::now() < deadline, "peer {me} stuck: {session:?}");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            if me == 2 && tick == CUT_AT - 4 {
                // Steering held until it leaves: the inputs the survivors
                // hold of it differ from the neutral input.
                session
                    .world_mut()
                    .input_mut()
                    .push_at(tick, 0, InputKind::Action { id: 1, value: 1 })
                    .unwrap();
            }
            match session.advance() {
                Ok(Advance::Ended) => break,
                Ok(_) => {}
                Err(e) => {
                    // The other survivor stops waiting for this one.
                    done.fetch_add(1, Ordering::SeqCst);
                    return Some(e);
                }
            }
            let tick = session.world().tick();
            if me == 2 && tick >= CUT_AT {
                cut.store(true, Ordering::SeqCst);
                if tick >= CUT_AT + gap {
                    return None;
                }
            }
        }
        // Past the prediction window a session may also end in a desync
        // (the survivors' sessions differ from the cut on).
        if (reached || gap > GAP) && session.end().is_some() {
            done.fetch_add(u32::from(!reached), Ordering::SeqCst);
            return None;
        }
        assert!(session.end().is_none(), "peer {me}: {:?}", session.end());
        let confirmed = session.confirmed_hashes().last().map_or(0, |c| c.0);
        if confirmed >= UNTIL && !reached {
            reached = true;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == 2 {
            return None;
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
    }
}

/// What a survivor ends with.
struct Outcome {
    stats: NetStats,
    confirmed: Vec<(u64, u64)>,
    changes: Vec<EpochChange>,
    error: Option<laige_core::Error>,
}

/// Three players; player 2 stops reaching player 1 at `CUT_AT` and
/// vanishes `gap` ticks later: the survivors' outcomes (host first).
fn leave(gap: u64) -> Vec<Outcome> {
    let ports = [
        support::free_port(),
        support::free_port(),
        support::free_port(),
    ];
    let host_addr = SocketAddr::from(([127, 0, 0, 1], ports[0]));
    let listener = TcpListener::bind(host_addr).unwrap();
    let done = Arc::new(AtomicU32::new(0));
    let cut = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for me in 0..3_usize {
        let (done, cut) = (done.clone(), cut.clone());
        let listener = (me == 0).then(|| listener.try_clone().unwrap());
        threads.push(std::thread::spawn(move || {
            let mut session = seated(me, &ports, host_addr, listener, &cut);
            let error = run(me, &mut session, (&cut, gap), &done);
            if me == 2 {
                drop(session);
                return None;
            }
            Some(Outcome {
                stats: session.stats(),
                confirmed: session.confirmed_hashes().to_vec(),
                changes: session.driver().epoch_changes().to_vec(),
                error,
            })
        }));
    }
    threads
        .into_iter()
        .filter_map(|t| t.join().unwrap())
        .collect()
}

#[test]
fn survivors_agree_at_a_leave_without_a_resync() {
    let results = leave(GAP);
    assert!(results.iter().all(|r| r.error.is_none()));
    let (host, member) = (&results[0], &results[1]);
    let leave = host
        .changes
        .iter()
        .find(|c| c.left == vec![2])
        .expect("a leave");
    assert_eq!(
        member.changes.iter().find(|c| c.left == vec![2]),
        Some(leave)
    );
    assert_eq!(
        (host.stats.resyncs, member.stats.resyncs),
        (0, 0),
        "the survivors' states at the boundary {} differed",
        leave.tick
    );
    // The host held more of player 2's input than player 1 and dropped
    // it at the boundary (without the re-simulation, their states there
    // differ and the host's world replaces player 1's: a resync).
    assert_eq!(host.stats.leave_replays, 1, "{:?}", host.stats);
    assert_eq!(member.stats.leave_replays, 0, "{:?}", member.stats);
    // Every confirmed tick agrees, those between the cut and the boundary
    // too (as the survivors hold them after the boundary).
    let find = |log: &[(u64, u64)], t: u64| log.iter().find(|(tick, _)| *tick == t).map(|p| p.1);
    for t in 1..=UNTIL {
        let ours = find(&host.confirmed, t);
        assert!(ours.is_some(), "tick {t} not confirmed by the host");
        assert_eq!(find(&member.confirmed, t), ours, "tick {t}");
    }
}

/// Past the prediction window GGRS 0.13 itself fails (it asserts by
/// panicking, see the module docs): the survivor that held more of the
/// lost player's input ends its session with an error naming it; no
/// panic leaves the session.
#[test]
fn a_gap_past_the_prediction_window_ends_the_session_with_an_error_not_a_panic() {
    // `leave` joins every peer's thread: none panicked.
    let results = leave(20);
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| r.error.as_ref().map(ToString::to_string))
        .collect();
    assert!(
        errors.iter().all(|e| e.contains("GGRS panicked")),
        "{errors:?}"
    );
    assert!(!errors.is_empty(), "no survivor reached GGRS's failure");
}
