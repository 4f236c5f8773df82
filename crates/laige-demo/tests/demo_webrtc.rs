//! Two demo processes over WebRTC (`--net webrtc`, feature `webrtc`)
//! through a matchbox signaling server in the test process play 1,200
//! ticks with rollback and agree on every confirmed tick's state hash
//! (`--net-hashes`), and each records the session (`--record`) in a file
//! that replays bit for bit; a room whose signaling server is not there
//! ends with code 12 and a message naming the URL.

#![allow(
    clippy::print_stdout,
    reason = "the runs' net lines (rollbacks, rtt) are reported"
)]

mod net_support;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::time::Duration;

use net_support::{Scratch, finish, hashes, spawn};

const COMPARED: u64 = 1_200;

fn peer_args(scratch: &Scratch, signal: &str, file: &str) -> Vec<String> {
    let record = scratch.path(&format!("{file}.lrp"));
    [
        "--record",
        &record.to_string_lossy(),
        "--config",
        &scratch.config(),
        "--entities",
        "500",
        "--ticks",
        "1260",
        "--quiet",
        "--net-hashes",
        &scratch.path(file).to_string_lossy(),
        "--net",
        "webrtc",
        "--signal",
        signal,
        "--players",
        "2",
        "--fault-latency-ms",
        "30",
        "--fault-jitter-ms",
        "15",
        "--fault-loss-per-mille",
        "50",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

#[test]
fn two_webrtc_processes_agree_on_every_confirmed_tick_through_faults() {
    let scratch = Scratch::new("webrtc");
    let signal = format!(
        "ws://127.0.0.1:{}/laige-demo",
        laige_testkit::signaling::start()
    );
    let a = spawn(&peer_args(&scratch, &signal, "a.txt"));
    let b = spawn(&peer_args(&scratch, &signal, "b.txt"));
    let (ac, aout, aerr) = finish(a, Duration::from_secs(90));
    let (bc, bout, berr) = finish(b, Duration::from_secs(20));
    assert_eq!(ac, 0, "a:\n{aout}\n{aerr}\nb:\n{bout}\n{berr}");
    assert_eq!(bc, 0, "b:\n{bout}\n{berr}\na:\n{aout}\n{aerr}");
    let (ha, hb): (BTreeMap<u64, String>, BTreeMap<u64, String>) = (
        hashes(&scratch.path("a.txt")),
        hashes(&scratch.path("b.txt")),
    );
    for t in 1..=COMPARED {
        let (x, y) = (ha.get(&t), hb.get(&t));
        assert!(
            x.is_some() && y.is_some(),
            "tick {t} not confirmed: {x:?} {y:?}"
        );
        assert_eq!(x, y, "tick {t}");
    }
    for out in [&aout, &bout] {
        for line in out.lines().filter(|l| l.starts_with("net:")) {
            println!("webrtc demo (30±15 ms, 5% loss): {line}");
        }
        assert!(out.contains("exit:       completed (code 0)"), "{out}");
        assert!(out.contains(" 0 desyncs"), "{out}");
    }
    // Session records work over WebRTC as over UDP: each peer's record
    // replays offline with every recorded state hash verified.
    for file in ["a.txt", "b.txt"] {
        let record = scratch.path(&format!("{file}.lrp"));
        let replay = spawn(&[
            "--config".to_owned(),
            scratch.config(),
            "--entities".to_owned(),
            "500".to_owned(),
            "--replay".to_owned(),
            record.to_string_lossy().into_owned(),
        ]);
        let (code, out, err) = finish(replay, Duration::from_secs(60));
        assert_eq!(code, 0, "{file}'s record:\n{out}\n{err}");
        assert!(
            out.contains("laige-demo: session record of 2 players on"),
            "{out}"
        );
        let ticks = laige_engine::sim::replay::Replay::read(&record)
            .unwrap()
            .ticks();
        assert!(ticks >= COMPARED, "{file}: {ticks} ticks recorded");
        assert!(out.contains(&format!("verified {ticks} ticks")), "{out}");
    }
}

#[test]
fn a_webrtc_room_without_its_signaling_server_ends_with_code_12() {
    let scratch = Scratch::new("webrtc-nobody");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let signal = format!("ws://127.0.0.1:{port}/nobody");
    let (code, out, err) = finish(
        spawn(&peer_args(&scratch, &signal, "x.txt")),
        Duration::from_secs(30),
    );
    assert_eq!(code, 12, "{out}\n{err}");
    assert!(err.contains(&signal) && err.contains("signaling"), "{err}");
}
