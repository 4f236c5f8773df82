//! The join scenario, many times, through faults: two players play a room
//! of three seats over real UDP on 127.0.0.1 (every datagram through a
//! `FaultyTransport`: 50 ms ± 25 ms latency, 5 % loss, in every epoch); a
//! third joins once the host is past tick 60; the run ends when all three
//! have confirmed tick 300. Every run must end (no hang: a run that does
//! not finish in 60 s fails) with every tick that two peers confirmed
//! equal on both (0 mismatches). The join time (from `join` to the
//! joiner's first simulated tick) is printed as min / median / max.
//!
//! `LAIGE_JOIN_RUNS` sets the number of runs (default 100, four at a time;
//! `cargo xtask test` runs the default). Ignored by a plain `cargo test`: it takes
//! minutes.

#![allow(clippy::print_stderr, reason = "the scenario table is printed")]

mod support;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::fault::Faults;
use laige_net::{Advance, NetConfig, NetSession, Seat, TickPacer, UdpNonBlockingSocket};
use support::{Steer, epoch_sockets, game, script_input};

const RATE_HZ: usize = 240;
const JOIN_AFTER: u64 = 60;
const UNTIL: u64 = 300;
/// Runs in flight at once.
const PARALLEL_RUNS: usize = 4;

fn config() -> NetConfig {
    NetConfig {
        players: 3,
        max_prediction: 8,
        input_delay: 2,
        tick_rate_hz: RATE_HZ,
        confirmed_log: 1024,
        ..NetConfig::default()
    }
}

fn faults(seed: u64) -> Faults {
    Faults {
        latency: Duration::from_millis(50),
        jitter: Duration::from_millis(25),
        loss_per_mille: 50,
        seed,
        ..Faults::default()
    }
}

struct Peer {
    confirmed: Vec<(u64, u64)>,
    /// The joiner's time from `join` to its first simulated tick.
    join_time: Option<Duration>,
    /// Control-link frames this peer sent, and of them those whose first
    /// transmission the faults lost.
    control: (u64, u64),
}

/// Runs one peer until all three confirmed [`UNTIL`]; `Err` on a session
/// end or the deadline.
fn run(
    me: usize,
    session: &mut NetSession<Steer>,
    host_tick: &AtomicU64,
    done: &AtomicU32,
    started: Instant,
) -> Result<Option<Duration>, String> {
    let mut pacer = TickPacer::new(u32::try_from(RATE_HZ).unwrap(), 4);
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut reached, mut first_tick) = (false, None);
    loop {
        if Instant::now() > deadline {
            return Err(format!("peer {me} hung: {session:?}"));
        }
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            if session.advance().map_err(|e| e.to_string())? == Advance::Ticked {
                first_tick.get_or_insert_with(|| started.elapsed());
            }
        }
        if let Some(end) = session.end() {
            if reached {
                return Ok(first_tick);
            }
            return Err(format!("peer {me} ended: {end:?}"));
        }
        if me == 0 {
            host_tick.store(session.world().tick(), Ordering::SeqCst);
        }
        let confirmed = session.confirmed_hashes().last().map_or(0, |c| c.0);
        if confirmed >= UNTIL && !reached {
            reached = true;
            done.fetch_add(1, Ordering::SeqCst);
        }
        if reached && done.load(Ordering::SeqCst) == 3 {
            return Ok(first_tick);
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(1)));
    }
}

/// A run's peers and mismatched ticks, or what failed.
type RunResult = Result<(Vec<Peer>, usize), String>;

/// One run.
fn scenario(seed: u64) -> RunResult {
    // The players' sockets and the host's listener are bound here, on any
    // free port, and kept: a port read and released could be taken by a
    // parallel run before it is bound again.
    let mut sockets = Vec::new();
    for _ in 0..2 {
        sockets.push(Some(
            UdpNonBlockingSocket::bind_to_port(0).map_err(|e| e.to_string())?,
        ));
    }
    let mut ports = [0; 2];
    for (port, socket) in ports.iter_mut().zip(&sockets) {
        let socket = socket.as_ref().expect("bound above");
        *port = socket
            .transport()
            .local_addr()
            .map_err(|e| e.to_string())?
            .port();
    }
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let host_addr = listener.local_addr().map_err(|e| e.to_string())?;
    let done = Arc::new(AtomicU32::new(0));
    let host_tick = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for me in 0..3_usize {
        let (done, host_tick) = (done.clone(), host_tick.clone());
        let listener = (me == 0).then(|| listener.try_clone().unwrap());
        let socket = sockets.get_mut(me).and_then(Option::take);
        threads.push(std::thread::spawn(move || -> Result<Peer, String> {
            let seed = seed * 7 + me as u64;
            let mut session = if me < 2 {
                let seats: Vec<Seat> = (0..3)
                    .map(|seat| match seat {
                        2 => Seat::Empty,
                        s if s == me => Seat::Local,
                        s => Seat::Remote(SocketAddr::from(([127, 0, 0, 1], ports[s]))),
                    })
                    .collect();
                let socket = socket
                    .expect("players 0 and 1 have a socket")
                    .with_faults(faults(seed))
                    .map_err(|e| e.to_string())?;
                let mut s =
                    NetSession::<Steer>::p2p(game::<Fpx16_16>(64, 3), config(), &seats, socket)
                        .map_err(|e| e.to_string())?;
                match listener {
                    Some(l) => s.driver_mut().host_epochs(l, epoch_sockets(faults(seed))),
                    None => s.driver_mut().member_epochs(
                        host_addr,
                        Some(me),
                        epoch_sockets(faults(seed)),
                    ),
                }
                .map_err(|e| e.to_string())?;
                s
            } else {
                let deadline = Instant::now() + Duration::from_secs(60);
                while host_tick.load(Ordering::SeqCst) < JOIN_AFTER {
                    if Instant::now() > deadline {
                        return Err("the host never reached the join tick".into());
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                NetSession::<Steer>::join(
                    game::<Fpx16_16>(64, 3),
                    config(),
                    host_addr,
                    None,
                    epoch_sockets(faults(seed)),
                )
                .map_err(|e| e.to_string())?
            };
            // The control link suffers the same network (as TCP does:
            // delayed, and a lost segment retransmitted later).
            session
                .driver_mut()
                .control_faults(faults(seed))
                .map_err(|e| e.to_string())?;
            let started = Instant::now();
            let first = run(me, &mut session, &host_tick, &done, started);
            if first.is_err() {
                // Let the others see the end rather than wait for it.
                done.fetch_add(100, Ordering::SeqCst);
            }
            let first = first?;
            Ok(Peer {
                confirmed: session.confirmed_hashes().to_vec(),
                join_time: (me == 2).then_some(first).flatten(),
                control: {
                    let c = session.driver().control_fault_stats();
                    (c.frames, c.retransmitted)
                },
            })
        }));
    }
    let peers: Vec<Peer> = threads
        .into_iter()
        .map(|t| t.join().map_err(|_| "a peer panicked".to_owned())?)
        .collect::<Result<_, _>>()?;
    let mut mismatches = 0;
    for a in 0..3 {
        for b in a + 1..3 {
            for (tick, hash) in &peers[a].confirmed {
                if let Some((_, other)) = peers[b].confirmed.iter().find(|(t, _)| t == tick)
                    && other != hash
                {
                    mismatches += 1;
                }
            }
        }
    }
    Ok((peers, mismatches))
}

#[test]
#[ignore = "heavy: minutes of real sessions (cargo xtask test runs it)"]
fn the_join_scenario_through_faults_never_mismatches_or_hangs() {
    let runs: u64 = std::env::var("LAIGE_JOIN_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let started = Instant::now();
    let (mut join_ms, mut mismatches, mut failures) = (Vec::new(), 0, Vec::new());
    let (mut control_frames, mut retransmitted) = (0, 0);
    // Four runs at a time, each worker taking the next run as it finishes
    // one (a peer sleeps between its ticks: the runs wait on the network
    // far more than on the CPU).
    let next = AtomicU64::new(0);
    let mut results: Vec<(u64, RunResult)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..PARALLEL_RUNS)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let run = next.fetch_add(1, Ordering::SeqCst);
                        if run >= runs {
                            return mine;
                        }
                        mine.push((run, scenario(run + 1)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    results.sort_by_key(|r| r.0);
    for (run, result) in results {
        match result {
            Ok((peers, m)) => {
                mismatches += m;
                let joiner = &peers[2];
                assert!(
                    joiner.confirmed.last().is_some_and(|c| c.0 >= UNTIL),
                    "run {run}: the joiner confirmed {:?}",
                    joiner.confirmed.last()
                );
                for p in &peers {
                    control_frames += p.control.0;
                    retransmitted += p.control.1;
                }
                join_ms.push(joiner.join_time.map_or(f64::NAN, |d| d.as_secs_f64() * 1e3));
            }
            Err(why) => failures.push(format!("run {run}: {why}")),
        }
    }
    join_ms.sort_by(f64::total_cmp);
    let pick = |q: f64| join_ms[((join_ms.len() - 1) as f64 * q) as usize];
    eprintln!(
        "join scenario: {runs} runs, {} failed, {mismatches} mismatched ticks, join time min {:.0} / median {:.0} / max {:.0} ms, {:.0} s in all (50 ms ± 25 latency, 5 % loss, {RATE_HZ} Hz; on the control links too: {control_frames} frames, {retransmitted} retransmitted)",
        failures.len(),
        pick(0.0),
        pick(0.5),
        pick(1.0),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(mismatches, 0);
    // Every peer's control link went through the faults; over enough
    // frames (10 expected losses at 5 %) some were lost and retransmitted.
    assert!(
        control_frames >= 3 * runs,
        "{control_frames} control frames"
    );
    assert!(
        control_frames < 200 || retransmitted > 0,
        "the control links' faults: {control_frames} frames, none lost at 5 %"
    );
}
