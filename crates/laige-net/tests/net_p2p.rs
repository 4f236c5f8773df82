//! Two peers over real UDP on 127.0.0.1 (one thread each), every packet
//! through a `FaultyTransport`: 50 ms one-way latency (100 ms RTT), ±20 ms
//! jitter, 5 % loss. Rollback for 1,200 ticks ends with identical state
//! hashes on every confirmed tick and rollbacks, and the presentation
//! effects of each peer are handed over once (predicted, cancelled when a
//! rollback removes them, confirmed once final); lockstep with the same
//! faults agrees with no rollback; a peer that vanishes gives the other a
//! disconnect and an orderly end.
//!
//! Ticks run at 120 Hz (1,200 ticks in about 10 s) on a small world.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::fault::Faults;
use laige_net::{
    Advance, EXIT_DISCONNECTED, NetConfig, NetEnd, NetSession, NetStats, Seat, TickPacer,
    UdpNonBlockingSocket,
};
use support::{
    Avatar, BumpLog, Bumps, Steer, enable_bumps, free_port, game, player_seats, script_input,
};

const RATE_HZ: usize = 120;

fn faults(seed: u64) -> Faults {
    Faults {
        latency: Duration::from_millis(50),
        jitter: Duration::from_millis(20),
        loss_per_mille: 50,
        seed,
        ..Faults::default()
    }
}

struct PeerResult {
    stats: NetStats,
    confirmed: Vec<(u64, u64)>,
    end: Option<NetEnd>,
    /// The session's in-memory dump of a desynced tick.
    desync_dump: Option<(u64, String)>,
    /// With `Plan::effects`: what presentation saw, and the bumps the
    /// final world's timeline emitted.
    bumps: Option<(BumpLog, u64)>,
}

/// Runs peer `me` of two until it has confirmed `until` ticks and the
/// other peer did too (it keeps advancing meanwhile, so the other's
/// inputs keep being confirmed), or until it ends, or until `vanish_at`
/// (then it drops its session: a vanished peer).
struct Plan {
    config: NetConfig,
    until: u64,
    /// Peer 1 drops its session at this tick.
    vanish_at: Option<u64>,
    /// Peer 1 runs a system the other does not: it moves every avatar at
    /// this tick (the state after it differs).
    diverge: Option<u64>,
    faults: bool,
    /// Where peers dump a desynced tick (`{dir}/peer{me}`).
    dump_dir: Option<std::path::PathBuf>,
    /// Both peers emit `Bump` effects and drain them every frame.
    effects: bool,
}

fn peer(me: usize, ports: [u16; 2], plan: &Plan, done: &AtomicU32) -> PeerResult {
    let (config, until) = (plan.config, plan.until);
    let vanish_at = plan.vanish_at.filter(|_| me == 1);
    let seats = player_seats(me, ports);
    let socket = UdpNonBlockingSocket::bind_to_port(ports[me])
        .unwrap()
        .with_faults(if plan.faults {
            faults(0xfa17 + me as u64)
        } else {
            Faults::default()
        })
        .unwrap();
    let mut world = game::<Fpx16_16>(64, 2);
    if let Some(at) = plan.diverge.filter(|_| me == 1) {
        world
            .register_system("test/diverge", 60, move |ctx| {
                if ctx.tick() == at {
                    for a in ctx.query_mut::<&mut Avatar>() {
                        a.x += 1000;
                    }
                }
                Ok(())
            })
            .unwrap();
    }
    if plan.effects {
        enable_bumps(&mut world);
    }
    let mut log = BumpLog::default();
    let mut session = NetSession::<Steer>::p2p(world, config, &seats, socket).unwrap();
    if let Some(dir) = &plan.dump_dir {
        session.dump_desyncs_to(dir.join(format!("peer{me}")).to_string_lossy());
    }
    let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap(), 4);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut reached = false;
    loop {
        assert!(Instant::now() < deadline, "peer {me} stuck: {session:?}");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            let advanced = session.advance().unwrap();
            if plan.effects {
                log.drain(session.world_mut());
            }
            if advanced == Advance::Ended {
                break;
            }
        }
        let tick = session.world().tick();
        if vanish_at.is_some_and(|t| tick >= t) || session.end().is_some() {
            break;
        }
        let confirmed = session.confirmed_hashes().last().map_or(0, |c| c.0);
        if confirmed >= until && !reached {
            reached = true;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == 2 {
            break;
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
    }
    if !reached {
        done.fetch_add(1, Ordering::SeqCst);
    }
    let bumps = plan
        .effects
        .then(|| (log, session.world().resource::<Bumps>().unwrap().0));
    PeerResult {
        stats: session.stats(),
        confirmed: session.confirmed_hashes().to_vec(),
        desync_dump: session.desync_dump().map(|(t, d)| (t, d.to_owned())),
        end: session.into_end(),
        bumps,
    }
}

fn run_pair(config: NetConfig, until: u64, vanish_at: Option<u64>) -> [PeerResult; 2] {
    run_plan(Plan {
        config,
        until,
        vanish_at,
        diverge: None,
        faults: true,
        dump_dir: None,
        effects: false,
    })
}

fn run_plan(plan: Plan) -> [PeerResult; 2] {
    let ports = [free_port(), free_port()];
    let done = Arc::new(AtomicU32::new(0));
    let plan = Arc::new(plan);
    let handles: Vec<_> = (0..2)
        .map(|me| {
            let (done, plan) = (done.clone(), plan.clone());
            std::thread::spawn(move || peer(me, ports, &plan, &done))
        })
        .collect();
    let mut results = handles.into_iter().map(|h| h.join().unwrap());
    [results.next().unwrap(), results.next().unwrap()]
}

fn config(max_prediction: usize, input_delay: usize) -> NetConfig {
    NetConfig {
        players: 2,
        max_prediction,
        input_delay,
        tick_rate_hz: RATE_HZ,
        confirmed_log: 4096,
        ..NetConfig::default()
    }
}

/// Every tick in `1..=until` is confirmed on both peers with equal hashes.
fn assert_agree(results: &[PeerResult; 2], until: u64) {
    for r in results {
        assert!(r.end.is_none(), "{:?}", r.end);
    }
    let [a, b] = results;
    let find = |log: &[(u64, u64)], t: u64| log.iter().find(|(tick, _)| *tick == t).map(|p| p.1);
    for t in 1..=until {
        let (ha, hb) = (find(&a.confirmed, t), find(&b.confirmed, t));
        assert!(
            ha.is_some() && hb.is_some(),
            "tick {t} not confirmed: {ha:?} {hb:?}"
        );
        assert_eq!(ha, hb, "tick {t}");
    }
}

#[test]
fn rollback_peers_agree_on_every_confirmed_tick_through_faults() {
    let results = run_plan(Plan {
        config: config(12, 2),
        until: 1_200,
        vanish_at: None,
        diverge: None,
        faults: true,
        dump_dir: None,
        effects: true,
    });
    assert_agree(&results, 1_200);
    for r in &results {
        let (log, emitted) = r.bumps.as_ref().unwrap();
        // What is playing is exactly the final timeline's effects: each
        // predicted once, the mispredicted ones cancelled, and every
        // confirmed tick's effects confirmed once.
        assert!(*emitted > 50, "{emitted}");
        assert_eq!(log.predicted - log.cancelled, *emitted, "{log:?}");
        assert_eq!(log.live.len() as u64, *emitted);
        // The state at the last confirmed tick C is final: the effects of
        // the ticks below C are confirmed, and only they.
        let c = r.confirmed.last().unwrap().0;
        assert!(c >= 1_200);
        let due = log.live.iter().filter(|k| k.0 < c).count() as u64;
        assert_eq!(log.confirmed, due, "confirmed below {c}: {log:?}");
    }
    let cancelled: u64 = results
        .iter()
        .map(|r| r.bumps.as_ref().unwrap().0.cancelled)
        .sum();
    assert!(cancelled > 0, "mispredicted steering cancels some bumps");
    let rollbacks: u64 = results.iter().map(|r| r.stats.rollbacks).sum();
    assert!(
        rollbacks > 0,
        "{:?} {:?}",
        results[0].stats,
        results[1].stats
    );
    for r in &results {
        assert_eq!(r.stats.desyncs, 0);
        assert!(r.stats.rtt_ms > 0, "{:?}", r.stats);
    }
}

#[test]
fn lockstep_peers_agree_without_rollback_through_faults() {
    let results = run_pair(config(0, 10), 1_200, None);
    assert_agree(&results, 1_200);
    for r in &results {
        assert_eq!(r.stats.rollbacks, 0, "{:?}", r.stats);
    }
}

#[test]
fn a_vanished_peer_is_a_disconnect_and_an_orderly_end() {
    let config = NetConfig {
        disconnect_timeout: Duration::from_millis(600),
        disconnect_notify: Duration::from_millis(200),
        ..config(12, 2)
    };
    let [a, b] = run_pair(config, 100_000, Some(120));
    assert!(b.end.is_none());
    let end = a.end.expect("peer 0 ended");
    assert_eq!(end.exit_code(), EXIT_DISCONNECTED);
    assert!(
        matches!(end, NetEnd::Disconnected { peer } if peer.ip().is_loopback()),
        "{end:?}"
    );
}

/// The first tick P2P peers compare at or after `tick`.
fn compared_tick(tick: u64) -> u64 {
    tick.next_multiple_of(u64::from(laige_net::DESYNC_INTERVAL))
}

#[test]
fn a_p2p_desync_ends_both_peers_naming_the_component_and_dumps_the_tick() {
    let dir = std::env::temp_dir().join(format!("laige-net-desync-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = run_plan(Plan {
        config: config(8, 2),
        until: 100_000,
        vanish_at: None,
        diverge: Some(60),
        faults: false,
        dump_dir: Some(dir.clone()),
        effects: false,
    });
    let expected = compared_tick(61);
    for (me, r) in results.iter().enumerate() {
        let end = r.end.as_ref().expect("ended");
        assert_eq!(end.exit_code(), laige_net::EXIT_DESYNC, "{end:?}");
        let NetEnd::Desync { tick, report } = end else {
            panic!("{end:?}");
        };
        assert_eq!(*tick, expected, "{report}");
        assert!(
            report.contains("differing components: test.avatar"),
            "{report}"
        );
        assert!(!report.contains("workload."), "{report}");
        assert_eq!(r.stats.desyncs, 1);
        let dump = dir.join(format!("peer{me}-tick{expected}.txt"));
        assert!(report.contains("snapshot dumped to"), "{report}");
        let text = std::fs::read_to_string(&dump).unwrap();
        assert!(
            text.starts_with(&format!("laige-snapshot 1\ntick {expected}\n")),
            "{text}"
        );
        // The same text in memory, for a peer that writes no file.
        assert_eq!(r.desync_dump.as_ref(), Some(&(expected, text)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checksums only on the desync interval's ticks (no confirmed log, so
/// no other save is hashed): hundreds of ticks into a session with
/// rollbacks, jitter and loss, a divergence is still found at the first
/// compared tick after it on both peers.
#[test]
fn p2p_desync_is_detected_late_in_a_faulty_session() {
    let results = run_plan(Plan {
        config: NetConfig {
            confirmed_log: 0,
            ..config(8, 2)
        },
        until: 100_000,
        vanish_at: None,
        diverge: Some(601),
        faults: true,
        dump_dir: None,
        effects: false,
    });
    let rollbacks: u64 = results.iter().map(|r| r.stats.rollbacks).sum();
    assert!(rollbacks > 0, "{:?}", results[0].stats);
    let mut desyncs = 0;
    for r in &results {
        assert!(r.confirmed.is_empty());
        match r.end.as_ref().expect("ended") {
            NetEnd::Desync { tick, report } => {
                assert_eq!(*tick, compared_tick(602), "{report}");
                // Found late or not, the tick's snapshot is dumped (from
                // its held slot, which outlives the save slots).
                let dump = r.desync_dump.as_ref().map(|d| d.0);
                assert_eq!(dump, Some(*tick), "{report}");
                desyncs += 1;
            }
            // The first peer to see it ends; its own checksum packet may
            // have been the one lost, so the other may see it leave.
            NetEnd::Disconnected { .. } => {}
            end => panic!("{end:?}"),
        }
    }
    assert!(desyncs >= 1);
}

#[test]
fn a_spectator_simulates_the_confirmed_ticks_the_players_agree_on() {
    let ports = [free_port(), free_port(), free_port()];
    let addr = move |i: usize| SocketAddr::from(([127, 0, 0, 1], ports[i]));
    let config = config(8, 2);
    let until = 240;
    let players: Vec<_> = (0..2)
        .map(|me| {
            std::thread::spawn(move || {
                let mut seats = player_seats(me, [ports[0], ports[1]]);
                if me == 0 {
                    seats.push(Seat::Spectator(addr(2)));
                }
                let socket = UdpNonBlockingSocket::bind_to_port(ports[me]).unwrap();
                let mut s =
                    NetSession::<Steer>::p2p(game::<Fpx16_16>(64, 2), config, &seats, socket)
                        .unwrap();
                drive(&mut s, me, until + 60);
                s.confirmed_hashes().to_vec()
            })
        })
        .collect();
    let socket = UdpNonBlockingSocket::bind_to_port(ports[2]).unwrap();
    let mut spectator =
        NetSession::<Steer>::spectator(game::<Fpx16_16>(64, 2), config, addr(0), socket).unwrap();
    drive(&mut spectator, 9, until);
    assert!(spectator.end().is_none(), "{:?}", spectator.end());
    let logs: Vec<Vec<(u64, u64)>> = players.into_iter().map(|h| h.join().unwrap()).collect();
    let seen = spectator.confirmed_hashes();
    assert!(seen.len() as u64 >= until - 1, "{} ticks", seen.len());
    for (tick, hash) in seen.iter().filter(|(t, _)| *t >= 1) {
        for log in &logs {
            let theirs = log.iter().find(|(t, _)| t == tick).map(|p| p.1);
            assert_eq!(theirs, Some(*hash), "tick {tick}");
        }
    }
}

/// Advances `session` on a 120 Hz grid until its world reaches `until`
/// ticks (player `me` scripts its input; 9 is a spectator: none).
fn drive(session: &mut NetSession<Steer>, me: usize, until: u64) {
    let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap(), 4);
    let deadline = Instant::now() + Duration::from_secs(30);
    while session.world().tick() < until && session.end().is_none() {
        assert!(Instant::now() < deadline, "stuck: {session:?}");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            if me < 2 {
                script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            }
            session.advance().unwrap();
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
    }
}
