//! What a session allocates per tick, measured with laige-core's alloc
//! watch (this binary installs the counting allocator): a sync test (check
//! distance 7) and each peer of a two-peer P2P session over loopback, after
//! a warm-up. The snapshots themselves allocate nothing after their first
//! save (`laige-sim/tests/snapshot_ring.rs`); what is counted here is
//! GGRS's per-frame work (its request list, its input queue, its
//! messages). The figures are printed (`--nocapture`); the tests hold them
//! steady: the second window allocates no more than the first, so nothing
//! grows with the session's length.

#![allow(clippy::print_stderr, reason = "the measurement is printed")]

mod support;

use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_core::alloc_watch::{self, AllocCounts, CountingAlloc};
use laige_net::{Advance, NetConfig, NetSession, TickPacer, UdpNonBlockingSocket};
use support::{Steer, free_port, game, player_seats, script_input};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const WINDOW: u64 = 200;

/// Runs `ticks` simulated ticks of `session`, counting what they allocate.
fn measure(session: &mut NetSession<Steer>, me: u8, ticks: u64, paced: bool) -> AllocCounts {
    let mut pacer = TickPacer::new(120, 4);
    let until = session.world().tick() + ticks;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut total = AllocCounts::default();
    while session.world().tick() < until {
        assert!(Instant::now() < deadline, "stuck: {session:?}");
        let due = if paced { pacer.due() } else { 1 };
        for _ in 0..due {
            let tick = session.world().tick();
            script_input(session.world_mut(), me, tick);
            let (advance, counts) = alloc_watch::count_allocs(|| session.advance());
            assert_ne!(advance.unwrap(), Advance::Ended, "{:?}", session.end());
            total.allocs += counts.allocs;
            total.reallocs += counts.reallocs;
            total.bytes += counts.bytes;
        }
        if paced {
            std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
        }
    }
    total
}

fn per_tick(c: &AllocCounts) -> String {
    format!(
        "{:.1} allocations, {:.0} bytes per tick",
        c.allocations() as f64 / WINDOW as f64,
        c.bytes as f64 / WINDOW as f64
    )
}

#[test]
fn a_sync_test_allocates_a_steady_amount_per_tick() {
    assert!(alloc_watch::is_installed());
    let config = NetConfig {
        max_prediction: 8,
        ..NetConfig::default()
    };
    let mut s = NetSession::<Steer>::sync_test(game::<Fpx16_16>(64, 2), config, 7).unwrap();
    measure(&mut s, 0, 100, false);
    let first = measure(&mut s, 0, WINDOW, false);
    let second = measure(&mut s, 0, WINDOW, false);
    eprintln!(
        "net alloc: sync test, check distance 7: {}",
        per_tick(&first)
    );
    // The same work per tick: 25 % more than the first window is growth.
    assert!(
        second.allocations() * 4 <= first.allocations() * 5,
        "{first:?} then {second:?}"
    );
}

/// Two P2P peers over loopback (with `epochs`: the host's control
/// listener and the member's link enabled, no change under way): each
/// peer's first and second window.
fn p2p_windows(epochs: bool) -> Vec<(AllocCounts, AllocCounts, u64)> {
    let ports = [free_port(), free_port()];
    let host = std::net::SocketAddr::from(([127, 0, 0, 1], ports[0]));
    let listener = epochs.then(|| std::net::TcpListener::bind(host).unwrap());
    let peers: Vec<_> = (0..2_usize)
        .map(|me| {
            let listener = listener.as_ref().map(|l| l.try_clone().unwrap());
            std::thread::spawn(move || {
                let seats = player_seats(me, ports);
                let socket = UdpNonBlockingSocket::bind_to_port(ports[me]).unwrap();
                let config = NetConfig {
                    tick_rate_hz: 120,
                    ..NetConfig::default()
                };
                let mut s =
                    NetSession::<Steer>::p2p(game::<Fpx16_16>(64, 2), config, &seats, socket)
                        .unwrap();
                if epochs {
                    let no_socket: laige_net::SocketFactory =
                        Box::new(|| unreachable!("no epoch change in this test"));
                    match listener {
                        Some(l) if me == 0 => s.driver_mut().host_epochs(l, no_socket),
                        _ => s.driver_mut().member_epochs(host, Some(me), no_socket),
                    }
                    .unwrap();
                }
                let me8 = u8::try_from(me).unwrap();
                measure(&mut s, me8, 100, true);
                let first = measure(&mut s, me8, WINDOW, true);
                let second = measure(&mut s, me8, WINDOW, true);
                s.linger(Duration::from_millis(500));
                (first, second, s.stats().rollbacks)
            })
        })
        .collect();
    peers.into_iter().map(|p| p.join().unwrap()).collect()
}

#[test]
fn each_p2p_peer_allocates_a_steady_amount_per_tick() {
    for (me, (first, second, rollbacks)) in p2p_windows(false).into_iter().enumerate() {
        eprintln!(
            "net alloc: P2P peer {me} (loopback, {rollbacks} rollbacks): {}",
            per_tick(&first)
        );
        // A window with more rollbacks allocates a little more; 25 % more
        // than the first is growth, not noise.
        assert!(
            second.allocations() * 4 <= first.allocations() * 5,
            "{first:?} then {second:?}"
        );
    }
}

/// Epochs enabled and idle (the host polls its listener and links, the
/// member its link, every tick): each window allocates what GGRS does in
/// a plain P2P session, within the same 25 % as one window to the next
/// (an idle epoch step reads would-block from non-blocking sockets into a
/// stack buffer; measured around the step alone it allocated twice in the
/// whole run, at the member's hello).
#[test]
fn idle_epochs_allocate_as_a_plain_session() {
    let plain = p2p_windows(false);
    let with_epochs = p2p_windows(true);
    for me in 0..2 {
        let (p, e) = (&plain[me].0, &with_epochs[me].0);
        eprintln!(
            "net alloc: P2P peer {me} with epochs: {} (without: {})",
            per_tick(e),
            per_tick(p)
        );
        assert!(
            e.allocations() * 4 <= p.allocations() * 5 + 4 * WINDOW / 10,
            "with epochs {e:?}, without {p:?}"
        );
    }
}
