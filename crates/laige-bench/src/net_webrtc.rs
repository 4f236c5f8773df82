//! Bench area `net.webrtc` (feature `webrtc`): a two-player rollback
//! session of the demo's input over WebRTC beside the same session over
//! UDP, on 127.0.0.1 without faults, the runs of the two links alternated
//! in one run so both see the same load.
//!
//! WebRTC: two matchbox sockets (laige-net's `WebRtcTransport`, host
//! candidates only) meet through laige-testkit's signaling server started
//! in this process (one per run: a full-mesh server is one room). UDP: two
//! sockets on free loopback ports. Each peer is a thread with its own
//! `NetSession<PilotInput>` at 60 Hz (`NetConfig`'s defaults: input delay
//! 2, prediction 8), its pointer on the demo's pilot path
//! (`laige_demo::pilot_point`, a new input every few ticks). The world is
//! the reference workload's 64 entities: what goes over the link depends
//! on the input type and the session's settings, not on the world.
//!
//! - `net.webrtc.connect.{webrtc,udp}_ms`: from both peers joining (the
//!   room opened / the socket bound, at one instant on both threads) to
//!   the later of the two peers' first synchronized tick; median over the
//!   runs. `net.webrtc.room.webrtc_ms`: the part of it until both rooms
//!   were full (signaling, ICE, DTLS and the data channel opened).
//! - `net.webrtc.rtt.{webrtc,udp}_ms`: the round-trip time GGRS reports
//!   (its network stats' ping, whole ms) after the measured span; median
//!   over the runs and peers.
//! - `net.webrtc.bytes_per_s.{webrtc,udp}`: bytes per second one peer sends
//!   (the sealed datagrams GGRS's messages travel in: inputs, their acks,
//!   quality reports, checksums) from tick 60 to the end of the run;
//!   `datagrams_per_s` the datagrams. Below the datagram nothing is
//!   counted: UDP/IPv4 adds 28 bytes per datagram, WebRTC its SCTP, DTLS
//!   and UDP/IP headers (about 80).
//!
//! The issue sets no goal for these: reported, no budgets.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_demo::{PilotInput, pilot_point};
use laige_net::{
    Advance, NetConfig, NetSession, PeerAddr, SealedSocket, Seat, SessionKey, TickPacer, Transport,
    UdpTransport, WebRtcRoom, WebRtcTransport,
};
use laige_sim::World;
use laige_sim::input::{CoordSpace, InputKind};

use crate::harness::Bench;

const RATE_HZ: u32 = 60;
/// Ticks each peer plays; the traffic is measured from [`STEADY_FROM`].
const TICKS: u64 = 300;
const STEADY_FROM: u64 = 60;

/// What one peer of one run measured.
#[derive(Clone, Copy, Debug, Default)]
struct Peer {
    /// From joining to the room being full (WebRTC; zero for UDP).
    room: Duration,
    /// From joining to the first synchronized tick.
    first_tick: Duration,
    rtt_ms: u64,
    bytes_per_s: f64,
    datagrams_per_s: f64,
}

/// A transport that counts what it sends (bytes, datagrams).
struct Counted<T> {
    inner: T,
    bytes: Arc<AtomicU64>,
    datagrams: Arc<AtomicU64>,
}

impl<T: Transport> Transport for Counted<T> {
    type Addr = T::Addr;

    fn send_to(&mut self, datagram: &[u8], to: &Self::Addr) {
        self.bytes
            .fetch_add(datagram.len() as u64, Ordering::Relaxed);
        self.datagrams.fetch_add(1, Ordering::Relaxed);
        self.inner.send_to(datagram, to);
    }

    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, Self::Addr)> {
        self.inner.recv_from(buf)
    }
}

/// Runs the area (`net.webrtc`).
pub fn run(b: &mut Bench) {
    if !b.wants("net.webrtc") {
        return;
    }
    let runs = b.scaled(5).max(2);
    let (mut webrtc, mut udp) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        match webrtc_run() {
            Ok(p) => webrtc.extend(p),
            Err(e) => eprintln!("net.webrtc: a WebRTC run failed: {e}"),
        }
        match udp_run() {
            Ok(p) => udp.extend(p),
            Err(e) => eprintln!("net.webrtc: a UDP run failed: {e}"),
        }
    }
    if webrtc.is_empty() || udp.is_empty() {
        eprintln!("net.webrtc: no figures (every run of a link failed)");
        return;
    }
    let rows = [("webrtc", summary(&webrtc)), ("udp", summary(&udp))];
    for (link, s) in &rows {
        b.record(&format!("net.webrtc.connect.{link}_ms"), s.connect_ms, "ms");
        b.record(&format!("net.webrtc.rtt.{link}_ms"), s.rtt_ms, "ms");
        b.record(
            &format!("net.webrtc.bytes_per_s.{link}"),
            s.bytes_per_s,
            "B/s",
        );
        b.record(
            &format!("net.webrtc.datagrams_per_s.{link}"),
            s.datagrams_per_s,
            "1/s",
        );
    }
    b.record("net.webrtc.room.webrtc_ms", rows[0].1.room_ms, "ms");
    eprintln!(
        "  net.webrtc: {runs} runs per link, 2 peers, {TICKS} ticks at {RATE_HZ} Hz, loopback, no faults"
    );
    eprintln!(
        "  {:<8} {:>12} {:>12} {:>9} {:>13} {:>15}",
        "link", "room ms", "connect ms", "rtt ms", "bytes/s/peer", "datagrams/s/peer"
    );
    for (link, s) in &rows {
        eprintln!(
            "  {link:<8} {:>12.1} {:>12.1} {:>9.1} {:>13.0} {:>15.1}",
            s.room_ms, s.connect_ms, s.rtt_ms, s.bytes_per_s, s.datagrams_per_s
        );
    }
}

/// Medians over the peers of every run of one link.
struct Summary {
    room_ms: f64,
    connect_ms: f64,
    rtt_ms: f64,
    bytes_per_s: f64,
    datagrams_per_s: f64,
}

#[allow(clippy::cast_precision_loss, reason = "milliseconds, reported")]
fn summary(peers: &[Peer]) -> Summary {
    let median = |f: &dyn Fn(&Peer) -> f64| {
        let mut v: Vec<f64> = peers.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    // A run's connect time is its later peer's: the pairs are adjacent.
    let mut connect: Vec<f64> = peers
        .chunks(2)
        .map(|pair| {
            pair.iter()
                .map(|p| p.first_tick.as_secs_f64() * 1e3)
                .fold(0.0, f64::max)
        })
        .collect();
    connect.sort_by(f64::total_cmp);
    Summary {
        room_ms: median(&|p| p.room.as_secs_f64() * 1e3),
        connect_ms: connect[connect.len() / 2],
        rtt_ms: median(&|p| p.rtt_ms as f64),
        bytes_per_s: median(&|p| p.bytes_per_s),
        datagrams_per_s: median(&|p| p.datagrams_per_s),
    }
}

fn world() -> World {
    crate::net::world::<Fpx16_16>(64)
}

/// Two WebRTC peers in a fresh room.
fn webrtc_run() -> Result<Vec<Peer>, String> {
    let url = format!(
        "ws://127.0.0.1:{}/laige-bench",
        laige_testkit::signaling::start()
    );
    let go = Arc::new(Barrier::new(2));
    let done = Arc::new(AtomicU32::new(0));
    let peers: Vec<_> = (0..2)
        .map(|_| {
            let (url, go, done) = (url.clone(), go.clone(), done.clone());
            std::thread::spawn(move || -> Result<Peer, String> {
                go.wait();
                let joined = Instant::now();
                let transport = WebRtcTransport::connect(&WebRtcRoom::new(url, 2))
                    .map_err(|e| e.to_string())?;
                let room = joined.elapsed();
                let seats = transport.seats();
                let mut peer = play(&seats, transport, joined, &done)?;
                peer.room = room;
                Ok(peer)
            })
        })
        .collect();
    join_all(peers)
}

/// Two UDP peers on free loopback ports.
fn udp_run() -> Result<Vec<Peer>, String> {
    let mut transports = Vec::new();
    for _ in 0..2 {
        transports.push(UdpTransport::bind_to_port(0).map_err(|e| e.to_string())?);
    }
    let addrs = transports
        .iter()
        .map(|t| {
            t.local_addr()
                .map(|a| std::net::SocketAddr::from(([127, 0, 0, 1], a.port())))
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| e.to_string())?;
    let go = Arc::new(Barrier::new(2));
    let done = Arc::new(AtomicU32::new(0));
    let peers: Vec<_> = transports
        .into_iter()
        .enumerate()
        .map(|(me, transport)| {
            let (go, done, addrs) = (go.clone(), done.clone(), addrs.clone());
            std::thread::spawn(move || {
                let seats: Vec<Seat> = addrs
                    .iter()
                    .enumerate()
                    .map(|(s, a)| {
                        if s == me {
                            Seat::Local
                        } else {
                            Seat::Remote(*a)
                        }
                    })
                    .collect();
                go.wait();
                play(&seats, transport, Instant::now(), &done)
            })
        })
        .collect();
    join_all(peers)
}

fn join_all(
    peers: Vec<std::thread::JoinHandle<Result<Peer, String>>>,
) -> Result<Vec<Peer>, String> {
    peers
        .into_iter()
        .map(|h| h.join().map_err(|_| "a peer panicked".to_owned())?)
        .collect()
}

/// Plays this peer's seat of `seats` over `transport` for [`TICKS`] ticks
/// (then on until the other peer is there too, so neither sees the other
/// leave); `joined` is when it joined.
fn play<A: PeerAddr>(
    seats: &[Seat<A>],
    transport: impl Transport<Addr = A> + 'static,
    joined: Instant,
    done: &AtomicU32,
) -> Result<Peer, String> {
    let err = |e: laige_core::Error| e.to_string();
    let me = seats
        .iter()
        .position(|s| *s == Seat::Local)
        .and_then(|s| u8::try_from(s).ok())
        .ok_or("no local seat")?;
    let (bytes, datagrams) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let socket = SealedSocket::new(
        Counted {
            inner: transport,
            bytes: bytes.clone(),
            datagrams: datagrams.clone(),
        },
        SessionKey::PUBLIC,
    );
    let mut session =
        NetSession::<PilotInput, A>::p2p(world(), NetConfig::default(), seats, socket)
            .map_err(err)?;
    let mut pacer = TickPacer::new(RATE_HZ, 4);
    let deadline = joined + Duration::from_secs(60);
    let mut peer = Peer::default();
    let (mut first_tick, mut steady, mut reached) = (None, None, false);
    loop {
        if Instant::now() > deadline {
            return Err(format!("peer {me} timed out: {session:?}"));
        }
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            let position = pilot_point(me, tick, RATE_HZ);
            session
                .world_mut()
                .input_mut()
                .push_at(
                    tick,
                    0,
                    InputKind::MouseMove {
                        position,
                        space: CoordSpace::World,
                    },
                )
                .map_err(err)?;
            if session.advance().map_err(err)? == Advance::Ticked && first_tick.is_none() {
                first_tick = Some(joined.elapsed());
            }
        }
        if let Some(end) = session.end() {
            return Err(format!("peer {me} ended: {end:?}"));
        }
        let tick = session.world().tick();
        if steady.is_none() && tick >= STEADY_FROM {
            steady = Some((
                Instant::now(),
                bytes.load(Ordering::Relaxed),
                datagrams.load(Ordering::Relaxed),
            ));
        }
        if !reached
            && tick >= TICKS
            && let Some((at, b0, d0)) = steady
        {
            reached = true;
            let secs = at.elapsed().as_secs_f64();
            #[allow(clippy::cast_precision_loss, reason = "a rate, reported")]
            {
                peer.bytes_per_s = (bytes.load(Ordering::Relaxed) - b0) as f64 / secs;
                peer.datagrams_per_s = (datagrams.load(Ordering::Relaxed) - d0) as f64 / secs;
            }
            peer.rtt_ms = session.stats().rtt_ms;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == 2 {
            break;
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(1)));
    }
    session.linger(Duration::from_millis(100));
    peer.first_tick = first_tick.unwrap_or_default();
    Ok(peer)
}
