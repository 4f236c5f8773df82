//! Local input stamped the way the engine's loop stamps a window's events
//! reaches every peer once, in order, while the session waits.
//!
//! The engine stamps a platform event with the world tick of the due slot
//! it falls in, counting every due tick from now on as one world tick
//! (`GameLoop::input_stamp`: `world tick + slot − consumed`). A network
//! session uses up due ticks without a world tick whenever the prediction
//! window is full, so an event queued in a frame that then waited carries a
//! later tick than one queued in the next frame. Here two peers on
//! loopback, 40 ms apart one way with a prediction window of 2 ticks (the
//! window is full most of the time), running uneven frames (25 ms, then
//! 8 ms: three 120 Hz due ticks, then one), each press a numbered button once per frame, stamped as the engine would (the last due slot of the frame), for
//! 400 ticks. Every press must be simulated exactly once on both peers
//! (the tally of presses per player equals the presses made), in the order
//! made (each tick's last press number never goes down), and both peers end
//! with identical confirmed-tick hashes.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::fault::Faults;
use laige_net::{
    Advance, NetConfig, NetSession, PlayerInput, PlayerInputs, TickPacer, UdpNonBlockingSocket,
};
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::{StateHash, World};
use support::{free_port, player_seats};

const RATE_HZ: u32 = 120;
/// The press action's id.
const PRESS: u32 = 7;
/// Presses stop at this tick; the peers go on until both confirmed
/// `CONFIRMED` ticks, so every press is confirmed on both.
const PRESS_UNTIL: u64 = 400;
const CONFIRMED: u64 = 520;

/// One tick's presses: how many, and the number of the last.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize,
)]
struct Presses {
    count: u8,
    last: u16,
}

impl PlayerInput for Presses {
    fn from_events(previous: Self, events: &[InputEvent]) -> Self {
        let mut p = Self {
            count: 0,
            last: previous.last,
        };
        for e in events {
            if let InputKind::Action { id: PRESS, value } = e.kind {
                p.count = p.count.saturating_add(1);
                p.last = u16::try_from(value).unwrap_or(u16::MAX);
            }
        }
        p
    }
}

/// Each player's presses as simulated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
struct Tally {
    player: u8,
    total: u32,
    last: u16,
    /// A tick's last press number was below an earlier tick's.
    out_of_order: u32,
}

fn game() -> World {
    let mut world = support::game::<Fpx16_16>(16, 2);
    world.register_hashed_as::<Tally>("test.tally").unwrap();
    world
        .register_system("test/tally", 40, |ctx| {
            let Some(inputs) = PlayerInputs::<Presses>::of(ctx) else {
                return Ok(());
            };
            for t in ctx.query_mut::<&mut Tally>() {
                let p = inputs.get(usize::from(t.player));
                if p.count > 0 {
                    t.total += u32::from(p.count);
                    if p.last < t.last {
                        t.out_of_order += 1;
                    }
                    t.last = p.last;
                }
            }
            Ok(())
        })
        .unwrap();
    for player in 0..2 {
        world.ecs_mut().spawn((Tally {
            player,
            ..Tally::default()
        },));
    }
    world
}

struct Peer {
    pressed: u32,
    waited: u64,
    tallies: [Tally; 2],
    confirmed: Vec<(u64, u64)>,
}

fn peer(me: usize, ports: [u16; 2], done: &AtomicU32) -> Peer {
    let config = NetConfig {
        players: 2,
        max_prediction: 2,
        input_delay: 0,
        tick_rate_hz: RATE_HZ as usize,
        confirmed_log: 1024,
        ..NetConfig::default()
    };
    let socket = UdpNonBlockingSocket::bind_to_port(ports[me])
        .unwrap()
        .with_faults(Faults {
            latency: Duration::from_millis(40),
            seed: 0x57a + me as u64,
            ..Faults::default()
        })
        .unwrap();
    let seats = player_seats(me, ports);
    let mut session = NetSession::<Presses>::p2p(game(), config, &seats, socket).unwrap();
    let mut pacer = TickPacer::new(RATE_HZ, 4);
    let mut frame = 0_u64;
    let deadline = Instant::now() + Duration::from_secs(40);
    let (mut pressed, mut due_ticks, mut reached) = (0_u32, 0_u64, false);
    loop {
        assert!(Instant::now() < deadline, "peer {me} stuck: {session:?}");
        let due = pacer.due();
        if due > 0 && session.world().tick() < PRESS_UNTIL && session.driver().stats().ticks > 0 {
            // The engine's stamp of an event at "now", the frame's last due
            // slot: the world tick, plus the due ticks before that slot.
            let tick = session.world().tick() + (due - 1);
            let time_ns =
                i64::try_from((due_ticks + due - 1) * 1_000_000_000 / u64::from(RATE_HZ)).unwrap();
            pressed += 1;
            let value = i32::try_from(pressed).unwrap();
            session
                .world_mut()
                .input_mut()
                .push_at(tick, time_ns, InputKind::Action { id: PRESS, value })
                .unwrap();
        }
        for _ in 0..due {
            due_ticks += 1;
            let advance = session.advance().unwrap();
            assert_ne!(advance, Advance::Ended, "peer {me}: {:?}", session.end());
        }
        let confirmed = session.confirmed_hashes().last().map_or(0, |c| c.0);
        if confirmed >= CONFIRMED && !reached {
            reached = true;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == 2 {
            break;
        }
        // Uneven frames, as a loaded window has: 25 ms then 8 ms (three
        // due ticks, then one).
        frame += 1;
        std::thread::sleep(Duration::from_millis(if frame.is_multiple_of(2) {
            25
        } else {
            8
        }));
    }
    session.linger(Duration::from_millis(300));
    let mut tallies = [Tally::default(); 2];
    for t in session.world().ecs().query::<&Tally>().iter() {
        tallies[usize::from(t.player)] = *t;
    }
    Peer {
        pressed,
        waited: session.stats().waited,
        tallies,
        confirmed: session.confirmed_hashes().to_vec(),
    }
}

#[test]
fn presses_stamped_like_window_events_reach_both_peers_once_and_in_order() {
    let ports = [free_port(), free_port()];
    let done = Arc::new(AtomicU32::new(0));
    let handles: Vec<_> = (0..2)
        .map(|me| {
            let done = done.clone();
            std::thread::spawn(move || peer(me, ports, &done))
        })
        .collect();
    let peers: Vec<Peer> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    for (me, p) in peers.iter().enumerate() {
        assert!(
            p.waited > 0,
            "peer {me} never waited: the window was never full"
        );
        for (player, t) in p.tallies.iter().enumerate() {
            assert_eq!(
                t.total, peers[player].pressed,
                "peer {me} simulated {} of player {player}'s {} presses",
                t.total, peers[player].pressed
            );
            assert_eq!(
                t.out_of_order, 0,
                "peer {me}: player {player}'s presses out of order"
            );
            assert_eq!(u32::from(t.last), peers[player].pressed);
        }
    }
    assert_eq!(peers[0].tallies, peers[1].tallies);
    let find = |log: &[(u64, u64)], t: u64| log.iter().find(|(tick, _)| *tick == t).map(|p| p.1);
    for t in 1..=CONFIRMED {
        let (a, b) = (find(&peers[0].confirmed, t), find(&peers[1].confirmed, t));
        assert!(
            a.is_some() && b.is_some(),
            "tick {t} not confirmed: {a:?} {b:?}"
        );
        assert_eq!(a, b, "tick {t}");
    }
}
