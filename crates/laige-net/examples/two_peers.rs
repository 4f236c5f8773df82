//! Two peers of one rollback session in one process, over UDP on
//! 127.0.0.1.
//!
//! **Motivation.** A rollback game is two (or more) copies of one
//! deterministic simulation that exchange only their players' inputs. This
//! example shows the whole path on one machine: each peer owns a laige
//! [`World`] (the reference workload plus one avatar per player), a
//! [`NetSession`] over a real UDP socket, and a [`TickPacer`] that says how
//! many ticks are due.
//!
//! **Implementation.** Each peer runs on its own thread. Every due tick it
//! queues its scripted input as an input event (`Action` 1 = steer left or
//! right), and `NetSession::advance` turns that into the local player's
//! [`PlayerInput`], exchanges it through GGRS, and saves, loads (rolls
//! back) and re-simulates the world as GGRS asks. The sockets go through
//! [`FaultyTransport`](laige_net::fault::FaultyTransport) (50 ms one-way latency, ±20 ms jitter, 5 % loss), so
//! predictions fail and rollbacks happen. At the end both peers print
//! their counters and the state hash of the last scripted tick, which both
//! confirmed; the example exits with an error unless both have that hash
//! and it is the same.
//!
//! **Controls.** `cargo run -p laige-net --example two_peers [TICKS]`
//! (default 600 ticks at 120 Hz, about five seconds).

#![allow(clippy::print_stdout, reason = "an example prints its result")]

use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use laige_core::Fpx16_16;
use laige_net::fault::Faults;
use laige_net::{
    Advance, NetConfig, NetSession, PlayerInput, PlayerInputs, Seat, TickPacer,
    UdpNonBlockingSocket,
};
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::workload::{self, WorkloadConfig};
use laige_sim::{StateHash, World};

/// One player's input: steer left (-1), not at all (0) or right (1).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize,
)]
struct Steer(i8);

impl PlayerInput for Steer {
    fn from_events(previous: Self, events: &[InputEvent]) -> Self {
        events.iter().fold(previous, |s, e| match e.kind {
            InputKind::Action { id: 1, value } => {
                Steer(i8::try_from(value.clamp(-1, 1)).unwrap_or(0))
            }
            _ => s,
        })
    }
}

/// A player's avatar on a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
struct Avatar {
    player: u8,
    x: i32,
}

fn game() -> laige_core::Result<World> {
    let mut world = World::default();
    workload::install::<Fpx16_16>(
        &mut world,
        &WorkloadConfig {
            entities: 1_000,
            ..WorkloadConfig::default()
        },
    )?;
    world.register_hashed_as::<Avatar>("example.avatar")?;
    world.register_system("example/steer", 50, |ctx| {
        if let Some(inputs) = PlayerInputs::<Steer>::of(ctx) {
            for a in ctx.query_mut::<&mut Avatar>() {
                a.x += i32::from(inputs.get(usize::from(a.player)).0);
            }
        }
        Ok(())
    })?;
    for player in 0..2 {
        world.ecs_mut().spawn((Avatar { player, x: 0 },));
    }
    Ok(world)
}

/// What a peer ends with: the state hash it confirmed for tick `ticks`
/// (`None` when that tick was never confirmed), and its report line.
type PeerEnd = (Option<u64>, String);

fn peer(me: usize, ports: [u16; 2], ticks: u64) -> laige_core::Result<PeerEnd> {
    let addr = |i: usize| SocketAddr::from(([127, 0, 0, 1], ports[i]));
    let seats = [0, 1].map(|i| {
        if i == me {
            Seat::Local
        } else {
            Seat::Remote(addr(i))
        }
    });
    let udp = UdpNonBlockingSocket::bind_to_port(ports[me]).map_err(|e| {
        laige_core::Error::new(laige_core::ErrorCode::Io, laige_net::events::SESSION_FAILED)
            .with_detail(e.to_string())
    })?;
    let faults = Faults {
        latency: Duration::from_millis(50),
        jitter: Duration::from_millis(20),
        loss_per_mille: 50,
        seed: me as u64,
        ..Faults::default()
    };
    let config = NetConfig {
        tick_rate_hz: 120,
        max_prediction: 12,
        confirmed_log: usize::try_from(ticks).unwrap_or(0) + 64,
        ..NetConfig::default()
    };
    let mut session = NetSession::<Steer>::p2p(game()?, config, &seats, udp.with_faults(faults)?)?;
    let mut pacer = TickPacer::new(120, 4);
    // Run past `ticks` so the other peer's last inputs are confirmed too.
    while session.world().tick() < ticks + 60 {
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            if tick % (17 + 6 * me as u64) == 0 {
                let value = i32::try_from((tick / 17 + me as u64) % 3).unwrap_or(0) - 1;
                session.world_mut().input_mut().push_at(
                    tick,
                    0,
                    InputKind::Action { id: 1, value },
                )?;
            }
            if session.advance()? == Advance::Ended {
                return Ok((None, format!("peer {me}: ended: {:?}", session.end())));
            }
        }
        std::thread::sleep(pacer.until_next());
    }
    let hash = session
        .confirmed_hashes()
        .iter()
        .find(|(t, _)| *t == ticks)
        .map(|(_, h)| *h);
    let shown = hash.map_or_else(|| "never confirmed".to_owned(), |h| format!("{h:#018x}"));
    let line = format!(
        "peer {me}: tick {ticks} hash {shown}; {:?}",
        session.stats()
    );
    Ok((hash, line))
}

fn main() -> laige_core::Result<()> {
    let ticks = std::env::args()
        .nth(1)
        .and_then(|t| t.parse().ok())
        .unwrap_or(600);
    let free = || {
        UdpSocket::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .map_or(7000, |a| a.port())
    };
    let ports = [free(), free()];
    let peers: Vec<_> = (0..2)
        .map(|me| std::thread::spawn(move || peer(me, ports, ticks)))
        .collect();
    let mut hashes = Vec::new();
    for p in peers {
        let (hash, line) = p.join().map_err(|_| {
            laige_core::Error::new(
                laige_core::ErrorCode::Failed,
                laige_net::events::SESSION_FAILED,
            )
            .with_detail("a peer thread panicked")
        })??;
        println!("{line}");
        hashes.push(hash);
    }
    match hashes.as_slice() {
        [Some(a), Some(b)] if a == b => {
            println!("both peers confirmed tick {ticks} with one state hash");
            Ok(())
        }
        _ => Err(laige_core::Error::new(
            laige_core::ErrorCode::Failed,
            laige_net::events::SESSION_FAILED,
        )
        .with_detail(format!(
            "the peers' hashes of tick {ticks} differ or are missing: {hashes:?}"
        ))),
    }
}
