//! A session record replays offline, bit for bit: two rollback peers over
//! UDP on 127.0.0.1 (50 ms each way, ±20 ms, 5 % loss) each record their
//! session (every confirmed tick's inputs of both players and the state
//! hash after it); laige-sim's replay verifier re-runs each record on a
//! fresh world and reproduces every recorded hash, and both records hold
//! the same hashes.

mod support;

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};

use laige_core::{Fpx16_16, MathBackend};
use laige_net::fault::Faults;
use laige_net::{NetConfig, NetSession, TickPacer, UdpNonBlockingSocket, replay_session};
use laige_sim::replay::{Replay, ReplayHeader};
use support::{Steer, free_port, game, player_seats, script_input};

/// A `Write` the test can read back after the session dropped its end.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const TICKS: u64 = 360;

/// Plays peer `me` until it confirmed `TICKS` (plus a margin for the
/// other); returns its record and its rollbacks.
fn peer(me: usize, ports: [u16; 2]) -> (Vec<u8>, u64) {
    let seats = player_seats(me, ports);
    let faults = Faults {
        latency: Duration::from_millis(50),
        jitter: Duration::from_millis(20),
        loss_per_mille: 50,
        seed: 7 + me as u64,
        ..Faults::default()
    };
    let socket = UdpNonBlockingSocket::bind_to_port(ports[me])
        .unwrap()
        .with_faults(faults)
        .unwrap();
    let config = NetConfig {
        tick_rate_hz: 120,
        max_prediction: 12,
        confirmed_log: 4096,
        ..NetConfig::default()
    };
    let mut session =
        NetSession::<Steer>::p2p(game::<Fpx16_16>(64, 2), config, &seats, socket).unwrap();
    let out = Shared::default();
    let header = ReplayHeader::new(MathBackend::FixedPoint16_16, 0, 0x5e55);
    session.record_to(out.clone(), header).unwrap();
    let mut pacer = TickPacer::new(120, 4);
    let deadline = Instant::now() + Duration::from_secs(60);
    while session.confirmed_hashes().last().map_or(0, |c| c.0) < TICKS + 60 {
        assert!(Instant::now() < deadline, "peer {me} stuck: {session:?}");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            session.advance().unwrap();
        }
        assert!(session.end().is_none(), "{:?}", session.end());
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
    }
    let rollbacks = session.stats().rollbacks;
    session.finish_record().unwrap();
    session.linger(Duration::from_millis(600));
    drop(session);
    let bytes = out.0.borrow().clone();
    (bytes, rollbacks)
}

fn checkpoints(replay: &Replay) -> Vec<(u64, u64)> {
    replay.checkpoints().collect()
}

/// Both peers' records and rollbacks.
fn play_pair() -> Vec<(Vec<u8>, u64)> {
    let ports = [free_port(), free_port()];
    let handles: Vec<_> = (0..2)
        .map(|me| std::thread::spawn(move || peer(me, ports)))
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn each_peers_record_replays_bit_for_bit_and_both_hold_the_same_hashes() {
    let results = play_pair();
    assert!(
        results.iter().map(|r| r.1).sum::<u64>() > 0,
        "no rollback: the record would prove less"
    );
    let mut all = Vec::new();
    for (bytes, _) in &results {
        let replay = Replay::parse(bytes).unwrap();
        assert!(replay.is_complete());
        assert!(replay.ticks() >= TICKS, "{} ticks recorded", replay.ticks());
        let mut world = game::<Fpx16_16>(64, 2);
        let verdict = replay_session::<Steer>(&replay, &mut world).unwrap();
        assert!(verdict.divergence.is_none(), "{:?}", verdict.divergence);
        assert_eq!(verdict.ticks, replay.ticks());
        assert_eq!(verdict.checkpoints, replay.ticks() + 1);
        all.push(checkpoints(&replay));
    }
    let n = all[0].len().min(all[1].len());
    assert!(n as u64 > TICKS);
    assert_eq!(all[0][..n], all[1][..n]);
}

#[test]
fn a_changed_game_diverges_from_the_record_at_its_first_changed_tick() {
    let results = play_pair();
    let replay = Replay::parse(&results[0].0).unwrap();
    let mut world = game::<Fpx16_16>(64, 2);
    world
        .register_system("test/changed", 99, |ctx| {
            if ctx.tick() == 100 {
                for a in ctx.query_mut::<&mut support::Avatar>() {
                    a.x += 1;
                }
            }
            Ok(())
        })
        .unwrap();
    let verdict = replay_session::<Steer>(&replay, &mut world).unwrap();
    let d = verdict.divergence.expect("the changed game diverges");
    assert_eq!(d.tick, 101, "{d:?}");
    assert_eq!(d.last_match, Some(100), "{d:?}");
}
