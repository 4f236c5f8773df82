//! Join in progress: two players play a room of three seats over real UDP
//! on 127.0.0.1 (one thread each, the host's control link on TCP); a third
//! player joins once the host is past tick 600, receives the encoded world
//! of the boundary tick over the control link, and from then on all three
//! agree on every confirmed tick's state hash until tick 2,400.

mod support;

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::fault::{Faults, FaultySocket};
use laige_net::{
    Advance, EpochChange, NetConfig, NetSession, NetStats, Seat, SocketFactory, TickPacer,
    UdpNonBlockingSocket,
};
use support::{Steer, game, script_input};

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

/// Opens each epoch's socket on a fresh loopback port.
fn sockets(faults: Faults) -> SocketFactory {
    Box::new(move || {
        let port = UdpSocket::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .map(|a| a.port())
            .map_err(|e| {
                laige_core::Error::new(laige_core::ErrorCode::Io, laige_net::events::EPOCH_FAILED)
                    .with_detail(e.to_string())
            })?;
        let socket = UdpNonBlockingSocket::bind_to_port(port).map_err(|e| {
            laige_core::Error::new(laige_core::ErrorCode::Io, laige_net::events::EPOCH_FAILED)
                .with_detail(e.to_string())
        })?;
        Ok((Box::new(FaultySocket::new(socket, faults)?) as _, port))
    })
}

struct Result3 {
    stats: NetStats,
    confirmed: Vec<(u64, u64)>,
    changes: Vec<EpochChange>,
}

fn run(me: usize, session: &mut NetSession<Steer>, host_tick: &AtomicU64, done: &AtomicU32) {
    let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap(), 4);
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut reached = false;
    loop {
        assert!(Instant::now() < deadline, "peer {me} stuck: {session:?}");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            if session.advance().unwrap() == Advance::Ended {
                break;
            }
        }
        assert!(session.end().is_none(), "peer {me}: {:?}", session.end());
        if me == 0 {
            host_tick.store(session.world().tick(), Ordering::SeqCst);
        }
        let confirmed = session.confirmed_hashes().last().map_or(0, |c| c.0);
        if confirmed >= UNTIL && !reached {
            reached = true;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == 3 {
            break;
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
                NetSession::<Steer>::p2p(game::<Fpx16_16>(64, 3), config(), &seats, socket)
                    .unwrap();
            let factory = sockets(Faults::default());
            match listener {
                Some(listener) => session.driver_mut().host_epochs(listener, factory),
                None => session.driver_mut().member_epochs(host_addr, me, factory),
            }
            .unwrap();
            run(me, &mut session, &host_tick, &done);
            Result3 {
                stats: session.stats(),
                confirmed: session.confirmed_hashes().to_vec(),
                changes: session.driver().epoch_changes().to_vec(),
            }
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
                sockets(Faults::default()),
            )
            .unwrap();
            run(2, &mut session, &host_tick, &done);
            Result3 {
                stats: session.stats(),
                confirmed: session.confirmed_hashes().to_vec(),
                changes: session.driver().epoch_changes().to_vec(),
            }
        }));
    }
    let results: Vec<Result3> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let boundary = results[2]
        .changes
        .first()
        .expect("the joiner began an epoch");
    assert!(boundary.tick > JOIN_AFTER, "{boundary:?}");
    assert_eq!(boundary.joined, vec![2]);
    assert!(boundary.snapshot_bytes > 0);
    for r in &results {
        assert_eq!(r.changes.len(), 1, "{:?}", r.changes);
        assert_eq!(r.changes[0].tick, boundary.tick);
        assert_eq!(r.stats.epochs, 1);
    }
    assert!(results[0].stats.snapshot_bytes > 0);
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
