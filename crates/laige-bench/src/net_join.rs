//! Bench area `net.join`: how long a player waits to join a session in
//! progress, over real UDP and TCP on 127.0.0.1 with no faults.
//!
//! Two players (threads) play the 10k-entity reference workload on
//! `Fpx16_16` at 60 Hz in a room of three seats; once the host is past
//! tick 60 a third calls `NetDriver::join` and the time until its first
//! simulated tick is one sample: the host's change (every peer stops, the
//! boundary is committed and made final), the encoded world (about
//! 320 KiB) over the control link, its decode and load, and the new GGRS
//! session's handshake.
//!
//! - `net.join.fx.10k.{median,max}_ms` over the runs; `snapshot_kib` the
//!   encoded world the joiner received.

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::{
    Advance, NetConfig, NetSession, PlayerInput, Seat, SocketFactory, TickPacer,
    UdpNonBlockingSocket,
};
use laige_sim::StateHash;
use laige_sim::World;
use laige_sim::input::InputEvent;

use crate::harness::Bench;

/// A player input that never changes (the join's cost does not depend on
/// it).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize,
)]
struct Still {
    x: u8,
}

impl PlayerInput for Still {
    fn from_events(previous: Self, _events: &[InputEvent]) -> Self {
        previous
    }
}

const RATE_HZ: usize = 60;
const JOIN_AFTER: u64 = 60;

/// Runs the area.
pub fn run(b: &mut Bench) {
    if !b.wants("net.join.fx") {
        return;
    }
    let runs = b.scaled(7).max(2);
    let mut samples = Vec::with_capacity(runs);
    let mut bytes = 0;
    for _ in 0..runs {
        match join_once() {
            Ok((time, size)) => {
                samples.push(time.as_secs_f64() * 1e3);
                bytes = size;
            }
            Err(e) => {
                eprintln!("net.join: a run failed: {e}");
                return;
            }
        }
    }
    samples.sort_by(f64::total_cmp);
    b.record(
        "net.join.fx.10k.median_ms",
        samples[samples.len() / 2],
        "ms",
    );
    b.record("net.join.fx.10k.max_ms", samples[samples.len() - 1], "ms");
    b.record("net.join.fx.10k.snapshot_kib", bytes as f64 / 1024.0, "KiB");
}

fn world() -> World {
    crate::net::world::<Fpx16_16>(10_000)
}

fn config() -> NetConfig {
    NetConfig {
        players: 3,
        tick_rate_hz: RATE_HZ,
        ..NetConfig::default()
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(UdpSocket::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn sockets() -> SocketFactory {
    Box::new(|| {
        let io = |e: std::io::Error| {
            laige_core::Error::new(laige_core::ErrorCode::Io, laige_net::events::EPOCH_FAILED)
                .with_detail(e.to_string())
        };
        let socket = UdpNonBlockingSocket::bind_to_port(0).map_err(io)?;
        let port = socket.transport().local_addr().map_err(io)?.port();
        Ok((socket.boxed(), port))
    })
}

/// One join: the time from `join` to the joiner's first tick, and the
/// snapshot bytes it received.
fn join_once() -> Result<(Duration, usize), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let ports = [
        free_port().map_err(|e| err(&e))?,
        free_port().map_err(|e| err(&e))?,
    ];
    let host = SocketAddr::from(([127, 0, 0, 1], ports[0]));
    let listener = TcpListener::bind(host).map_err(|e| err(&e))?;
    let stop = Arc::new(AtomicBool::new(false));
    let host_tick = Arc::new(AtomicU64::new(0));
    let players: Vec<_> = (0..2_usize)
        .map(|me| {
            let (stop, host_tick) = (stop.clone(), host_tick.clone());
            let listener = listener.try_clone();
            std::thread::spawn(move || -> Result<(), String> {
                let seats: Vec<Seat> = (0..3)
                    .map(|s| match s {
                        2 => Seat::Empty,
                        s if s == me => Seat::Local,
                        s => Seat::Remote(SocketAddr::from(([127, 0, 0, 1], ports[s]))),
                    })
                    .collect();
                let socket = UdpNonBlockingSocket::bind_to_port(ports[me]).map_err(|e| err(&e))?;
                let mut s = NetSession::<Still>::p2p(world(), config(), &seats, socket)
                    .map_err(|e| err(&e))?;
                if me == 0 {
                    let l = listener.map_err(|e| err(&e))?;
                    s.driver_mut().host_epochs(l, sockets())
                } else {
                    s.driver_mut().member_epochs(host, Some(me), sockets())
                }
                .map_err(|e| err(&e))?;
                let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap_or(60), 4);
                let deadline = Instant::now() + Duration::from_secs(60);
                while !stop.load(Ordering::SeqCst) {
                    if Instant::now() > deadline {
                        return Err(format!("player {me} timed out: {s:?}"));
                    }
                    for _ in 0..pacer.due() {
                        s.advance().map_err(|e| err(&e))?;
                    }
                    if let Some(end) = s.end() {
                        return Err(format!("player {me} ended: {end:?}"));
                    }
                    if me == 0 {
                        host_tick.store(s.world().tick(), Ordering::SeqCst);
                    }
                    std::thread::sleep(pacer.until_next().min(Duration::from_millis(1)));
                }
                Ok(())
            })
        })
        .collect();
    let joined = (|| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while host_tick.load(Ordering::SeqCst) < JOIN_AFTER {
            if Instant::now() > deadline {
                return Err("the host never reached the join tick".to_owned());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let started = Instant::now();
        let mut s = NetSession::<Still>::join(world(), config(), host, None, sockets())
            .map_err(|e| err(&e))?;
        let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap_or(60), 4);
        loop {
            if started.elapsed() > Duration::from_secs(30) {
                return Err(format!("the joiner timed out: {s:?}"));
            }
            for _ in 0..pacer.due() {
                if s.advance().map_err(|e| err(&e))? == Advance::Ticked {
                    let time = started.elapsed();
                    let bytes = s
                        .driver()
                        .epoch_changes()
                        .first()
                        .map_or(0, |c| c.snapshot_bytes);
                    return Ok((time, bytes));
                }
            }
            if let Some(end) = s.end() {
                return Err(format!("the joiner ended: {end:?}"));
            }
            std::thread::sleep(pacer.until_next().min(Duration::from_millis(1)));
        }
    })();
    stop.store(true, Ordering::SeqCst);
    for p in players {
        p.join().map_err(|_| "a player panicked".to_owned())??;
    }
    joined
}
