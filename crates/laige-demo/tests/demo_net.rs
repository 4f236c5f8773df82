//! The demo over the network, as users run it: two (or three) demo
//! processes on 127.0.0.1, each datagram through laige-net's `FaultyTransport`
//! (50 ms each way: 100 ms RTT, ±20 ms jitter, 5 % loss).
//!
//! - rollback for 1,200 ticks: every confirmed tick's state hash is the
//!   same in both processes, and rollbacks happened;
//! - lockstep with the same faults: the same agreement, no rollback;
//! - 1 % and 5 % of the datagrams damaged (flipped bits, cut, extended),
//!   old ones replayed, 30 ± 15 ms, 5 % loss: every damaged datagram is
//!   dropped and counted, the same agreement, no desync;
//! - a peer that is killed: the other reports the disconnect and ends in
//!   order with exit code 10;
//! - a spectator process simulates the ticks the players agree on;
//! - `--synctest 7` for 600 ticks on both math backends;
//! - `--record` on both players: each record replays bit for bit with
//!   `--replay`, and the two records hold the same state hashes.
//!
//! Ticks run at 120 Hz (1,200 ticks in 10 s) on 500 sprites.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

mod net_support;
mod support;

use net_support::{FAULTS, Scratch, finish, free_port, hashes, spawn};
use support::run;

/// Ticks compared; each peer runs a little longer so that the other's
/// inputs for these ticks are confirmed on both.
const COMPARED: u64 = 1_200;
const RUN_TICKS: &str = "1260";

/// The number after `label` in the report's `net:` line.
fn net_figure(out: &str, label: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with("net:"))
        .unwrap_or_else(|| panic!("no net line in:\n{out}"));
    let before = line
        .split(label)
        .next()
        .unwrap_or_else(|| panic!("no {label:?} in {line}"));
    before
        .rsplit(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no figure before {label:?} in {line}"))
}

/// Runs a host and a joiner of `ticks` ticks through the faults, each
/// with `output` (the flag) naming its own file in `files`, plus `extra`;
/// both must end with code 0. Returns their stdout.
fn run_pair(
    scratch: &Scratch,
    ticks: &str,
    output: &str,
    files: [&str; 2],
    extra: &[&str],
) -> [String; 2] {
    run_pair_through(scratch, ticks, output, files, [&FAULTS, &FAULTS], extra)
}

/// [`run_pair`] with each peer's own fault flags (host, joiner).
fn run_pair_through(
    scratch: &Scratch,
    ticks: &str,
    output: &str,
    files: [&str; 2],
    faults: [&[&str]; 2],
    extra: &[&str],
) -> [String; 2] {
    let port = free_port().to_string();
    let common = |file: &str, faults: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "--config",
            &scratch.config(),
            "--entities",
            "500",
            "--ticks",
            ticks,
            "--quiet",
            output,
            &scratch.path(file).to_string_lossy(),
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        a.extend(faults.iter().chain(extra).map(|s| (*s).to_owned()));
        a
    };
    let mut host = common(files[0], faults[0]);
    host.extend(["--net", "host", "--port", &port].map(String::from));
    let mut join = common(files[1], faults[1]);
    join.extend(["--net", "join", &format!("127.0.0.1:{port}")].map(String::from));
    let (h, j) = (spawn(&host), spawn(&join));
    let (hc, hout, herr) = finish(h, Duration::from_secs(60));
    let (jc, jout, jerr) = finish(j, Duration::from_secs(10));
    assert_eq!(hc, 0, "host:\n{hout}\n{herr}\njoiner:\n{jout}\n{jerr}");
    assert_eq!(jc, 0, "joiner:\n{jout}\n{jerr}\nhost:\n{hout}\n{herr}");
    [hout, jout]
}

/// Runs a host and a joiner with `extra` arguments each; both must end
/// with code 0. Returns their stdout and confirmed-hash files.
fn play_pair(scratch: &Scratch, extra: &[&str]) -> [(String, BTreeMap<u64, String>); 2] {
    let [hout, jout] = run_pair(
        scratch,
        RUN_TICKS,
        "--net-hashes",
        ["host.txt", "join.txt"],
        extra,
    );
    [
        (hout, hashes(&scratch.path("host.txt"))),
        (jout, hashes(&scratch.path("join.txt"))),
    ]
}

/// Every tick in `1..=COMPARED` is confirmed in both logs with one hash.
fn assert_agree(peers: &[(String, BTreeMap<u64, String>); 2]) {
    let [(_, a), (_, b)] = peers;
    for t in 1..=COMPARED {
        let (ha, hb) = (a.get(&t), b.get(&t));
        assert!(
            ha.is_some() && hb.is_some(),
            "tick {t} not confirmed: {ha:?} {hb:?}"
        );
        assert_eq!(ha, hb, "tick {t}");
    }
}

#[test]
fn two_rollback_processes_agree_on_every_confirmed_tick_through_faults() {
    let scratch = Scratch::new("rollback");
    let peers = play_pair(&scratch, &[]);
    assert_agree(&peers);
    let rollbacks: u64 = peers
        .iter()
        .map(|(out, _)| net_figure(out, " rollbacks"))
        .sum();
    assert!(rollbacks > 0, "{}\n{}", peers[0].0, peers[1].0);
    for (out, _) in &peers {
        assert_eq!(net_figure(out, " desyncs"), 0, "{out}");
        // 50 ms each way with at most ±20 ms of jitter on each leg: the
        // round trip GGRS reports (its latest ping, one sample) is at least
        // 100 − 2 × 20 = 60 ms.
        assert!(net_figure(out, " ms,") >= 60, "{out}");
        assert!(out.contains("exit:       completed (code 0)"), "{out}");
        // Loss, delay and reordering damage no datagram. The only ones
        // dropped are the lobby's last hellos and welcomes (plain text on
        // the same port, sent before the peer was seated): a few at most.
        assert!(datagram_figure(out, " dropped damaged") <= 10, "{out}");
        assert_eq!(datagram_figure(out, " dropped from unknown"), 0, "{out}");
    }
}

/// The number after `label` in the report's `datagrams:` line.
fn datagram_figure(out: &str, label: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with("datagrams:"))
        .unwrap_or_else(|| panic!("no datagrams line in:\n{out}"));
    net_figure(&line.replacen("datagrams:", "net:", 1), label)
}

#[test]
fn damaged_and_replayed_datagrams_are_dropped_and_the_processes_still_agree() {
    // 30 ± 15 ms each way, 5 % loss, replays of old datagrams, and damage:
    // the host flips a bit in 1 % of its datagrams, the joiner in 5 % (and
    // cuts or extends 1 % each). Before every datagram carried its
    // integrity tag, damage like this ended such a run with a desync.
    let net = |corrupt: &'static str| -> Vec<&'static str> {
        vec![
            "--fault-latency-ms",
            "30",
            "--fault-jitter-ms",
            "15",
            "--fault-loss-per-mille",
            "50",
            "--fault-replay-per-mille",
            "20",
            "--fault-corrupt-per-mille",
            corrupt,
        ]
    };
    let (host, mut join) = (net("10"), net("50"));
    join.extend(["--fault-resize-per-mille", "10"]);
    let scratch = Scratch::new("damage");
    let [hout, jout] = run_pair_through(
        &scratch,
        RUN_TICKS,
        "--net-hashes",
        ["host.txt", "join.txt"],
        [&host, &join],
        &[],
    );
    let peers = [
        (hout, hashes(&scratch.path("host.txt"))),
        (jout, hashes(&scratch.path("join.txt"))),
    ];
    assert_agree(&peers);
    for (out, _) in &peers {
        assert_eq!(net_figure(out, " desyncs"), 0, "{out}");
        assert!(datagram_figure(out, " dropped damaged") > 0, "{out}");
        assert_eq!(datagram_figure(out, " dropped from unknown"), 0, "{out}");
    }
    // The host receives the joiner's 5 % (about 200 of its datagrams in
    // runs by hand): far more than the lobby's few stragglers.
    assert!(
        datagram_figure(&peers[0].0, " dropped damaged") > 50,
        "{}",
        peers[0].0
    );
}

#[test]
fn two_lockstep_processes_agree_without_rollback_through_faults() {
    let scratch = Scratch::new("lockstep");
    let peers = play_pair(&scratch, &["--max-prediction", "0", "--input-delay", "10"]);
    assert_agree(&peers);
    for (out, _) in &peers {
        assert_eq!(net_figure(out, " rollbacks"), 0, "{out}");
        assert_eq!(net_figure(out, " prediction depth"), 0, "{out}");
    }
}

#[test]
fn a_killed_peer_is_a_disconnect_and_an_orderly_end_with_code_10() {
    let scratch = Scratch::new("kill");
    let port = free_port().to_string();
    let base = |role: &[&str]| -> Vec<String> {
        [
            &[
                "--config",
                &scratch.config(),
                "--entities",
                "500",
                "--ticks",
                "100000",
            ][..],
            &FAULTS,
            role,
        ]
        .concat()
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let mut host = spawn(&base(&["--net", "host", "--port", &port]));
    let mut joiner = spawn(&base(&[
        "--net",
        "join",
        &format!("127.0.0.1:{port}"),
        "--quiet",
    ]));
    // The host's progress lines: wait until the session is well under way.
    let stdout = host.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let line = lines
            .next()
            .expect("the host prints until it ends")
            .unwrap();
        seen.push_str(&line);
        seen.push('\n');
        let tick = line
            .split(" tick ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|t| t.parse::<u64>().ok());
        if tick.is_some_and(|t| t >= 240) {
            break;
        }
        assert!(Instant::now() < deadline, "no progress:\n{seen}");
    }
    joiner.kill().unwrap();
    let _ = joiner.wait();
    let killed_at = Instant::now();
    let (code, rest, err) = finish(host, Duration::from_secs(20));
    let rest: String = lines.map_while(Result::ok).collect::<Vec<_>>().join("\n") + &rest;
    // GGRS's disconnect timeout is 2 s; the end follows in order.
    assert!(killed_at.elapsed() < Duration::from_secs(15));
    assert_eq!(code, 10, "{seen}{rest}\n{err}");
    assert!(
        rest.contains("exit:       session_ended (peer 127.0.0.1:"),
        "{rest}"
    );
    assert!(rest.contains("disconnected) (code 10)"), "{rest}");
    assert!(err.contains("subsystem=net event=disconnected"), "{err}");
}

#[test]
fn a_spectator_process_simulates_the_ticks_the_players_agree_on() {
    let scratch = Scratch::new("spectator");
    let port = free_port().to_string();
    let args = |hashes: &str, role: &[&str]| -> Vec<String> {
        [
            &[
                "--config",
                &scratch.config(),
                "--entities",
                "300",
                "--quiet",
                "--net-hashes",
                &scratch.path(hashes).to_string_lossy(),
            ][..],
            role,
        ]
        .concat()
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let host = spawn(&args(
        "host.txt",
        &[
            "--net",
            "host",
            "--port",
            &port,
            "--spectators",
            "1",
            "--ticks",
            "480",
        ],
    ));
    let addr = format!("127.0.0.1:{port}");
    let join = spawn(&args(
        "join.txt",
        &["--net", "join", &addr, "--ticks", "480"],
    ));
    let watch = spawn(&args(
        "watch.txt",
        &["--net", "spectate", &addr, "--ticks", "360"],
    ));
    let results = [host, join, watch].map(|c| finish(c, Duration::from_secs(60)));
    for (code, out, err) in &results {
        assert_eq!(*code, 0, "{out}\n{err}");
    }
    let [host, join, watch] =
        ["host.txt", "join.txt", "watch.txt"].map(|f| hashes(&scratch.path(f)));
    assert!(watch.len() >= 300, "{} ticks watched", watch.len());
    for (tick, hash) in &watch {
        assert_eq!(host.get(tick), Some(hash), "tick {tick}");
        assert_eq!(join.get(tick), Some(hash), "tick {tick}");
    }
}

#[test]
fn the_demo_passes_a_sync_test_of_distance_7_on_both_backends() {
    let scratch = Scratch::new("synctest");
    let float = scratch.path("float.toml");
    std::fs::write(&float, "[determinism]\nmath = \"float_pinned_32\"\n").unwrap();
    for config in [None, Some(float.to_string_lossy().into_owned())] {
        let mut args = vec![
            "--synctest",
            "7",
            "--ticks",
            "600",
            "--unpaced",
            "--entities",
            "200",
            "--quiet",
        ];
        if let Some(c) = &config {
            args.extend(["--config", c.as_str()]);
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{out}\n{err}");
        assert!(out.contains("ticks:      600 "), "{out}");
        assert_eq!(net_figure(&out, " desyncs"), 0, "{out}");
        // Every tick after the first 7 re-simulates 7 ticks.
        assert!(net_figure(&out, " ticks re-simulated") >= 7 * 590, "{out}");
    }
}

#[test]
fn bad_network_usage_is_named_in_a_short_message() {
    let (code, _, err) = run(&["--net", "host"]);
    assert_eq!(code, 2);
    assert!(err.contains("--net host needs --port P"), "{err}");
    assert!(err.trim_end().ends_with("try '--help'."), "{err}");
    let (code, _, err) = run(&["--net", "join", "127.0.0.1:1", "--unpaced"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("drop --unpaced"), "{err}");
    let (code, _, err) = run(&["--synctest", "7", "--record", "r.lrp"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("drop it with --synctest"), "{err}");
}

#[test]
fn both_players_record_the_session_and_each_record_replays_bit_for_bit() {
    let scratch = Scratch::new("record");
    run_pair(&scratch, "400", "--record", ["host.lrp", "join.lrp"], &[]);
    let mut checkpoints = Vec::new();
    for name in ["host.lrp", "join.lrp"] {
        let file = scratch.path(name);
        let (code, out, err) = run(&[
            "--config",
            &scratch.config(),
            "--entities",
            "500",
            "--replay",
            &file.to_string_lossy(),
        ]);
        assert_eq!(code, 0, "{name}:\n{out}\n{err}");
        assert!(
            out.contains("laige-demo: session record of 2 players on"),
            "{out}"
        );
        let replay = laige_engine::sim::replay::Replay::read(&file).unwrap();
        assert!(replay.ticks() >= 300, "{name}: {} ticks", replay.ticks());
        assert!(
            out.contains(&format!("verified {} ticks", replay.ticks())),
            "{out}"
        );
        checkpoints.push(replay.checkpoints().collect::<BTreeMap<u64, u64>>());
    }
    // The peers confirmed the same ticks with the same hashes.
    let common_ticks: Vec<_> = checkpoints[0]
        .keys()
        .filter(|t| checkpoints[1].contains_key(t))
        .collect();
    assert!(
        common_ticks.len() >= 300,
        "{} common ticks",
        common_ticks.len()
    );
    for t in common_ticks {
        assert_eq!(checkpoints[0][t], checkpoints[1][t], "tick {t}");
    }
    // Another entity count is another simulation: the record is refused.
    let (code, _, err) = run(&[
        "--config",
        &scratch.config(),
        "--entities",
        "400",
        "--replay",
        &scratch.path("host.lrp").to_string_lossy(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("config_hash"), "{err}");
}

/// An open host's session as users run it, through the faults: two
/// players start in a room of three seats; a third process joins once the
/// host is past tick 600; the second player is killed (SIGKILL) past tick
/// 900 and started again with the same command, and rejoins; a spectator
/// process joins past tick 1,500. Every process ends with code 0 at tick
/// 2,400 (the spectator at 2,300), every tick two processes confirmed has one hash in both, each
/// late process confirmed every tick from its first, and the host's
/// report counts the epochs, the join, the rejoin and the snapshot bytes.
#[test]
fn an_open_host_takes_a_late_player_a_rejoin_and_a_late_spectator() {
    let scratch = Scratch::new("open");
    let port = free_port().to_string();
    let host_addr = format!("127.0.0.1:{port}");
    // The spectator trails the players: it stops first, as users would
    // stop watching before the host closes its game.
    let base = |role: &[&str], file: &str| -> Vec<String> {
        let file = scratch.path(file).to_string_lossy().into_owned();
        let ticks = if role.contains(&"spectate") {
            "2300"
        } else {
            "2400"
        };
        [
            &[
                "--config",
                &scratch.config(),
                "--entities",
                "500",
                "--ticks",
                ticks,
                "--net-hashes",
                &file,
            ][..],
            &FAULTS,
            role,
        ]
        .concat()
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let join = |file: &str| base(&["--net", "join", &host_addr, "--quiet"], file);
    let mut host = spawn(&base(
        &[
            "--net",
            "host",
            "--port",
            &port,
            "--players",
            "2",
            "--seats",
            "3",
            "--open",
        ],
        "host.txt",
    ));
    let member = spawn(&join("member.txt"));
    let stdout = host.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut seen = String::new();
    // Reads the host's progress lines until one says `tick`; false if the
    // host ended first.
    let mut wait_for = |tick: u64| -> bool {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let Some(Ok(line)) = lines.next() else {
                return false;
            };
            seen.push_str(&line);
            seen.push('\n');
            let at = line
                .split(" tick ")
                .nth(1)
                .and_then(|t| t.split(' ').next())
                .and_then(|t| t.parse::<u64>().ok());
            if at.is_some_and(|t| t >= tick) {
                return true;
            }
            assert!(Instant::now() < deadline, "no progress to {tick}");
        }
    };
    let mut ended_early = None;
    let mut reach = |tick: u64| {
        if ended_early.is_none() && !wait_for(tick) {
            ended_early = Some(tick);
        }
    };
    reach(600);
    // The late player records its session: from the tick the host's
    // world arrives with (checked after the run).
    let record = scratch.path("late.lrp");
    let mut recording = join("late.txt");
    recording.extend(["--record".to_owned(), record.to_string_lossy().into_owned()]);
    let late = spawn(&recording);
    reach(900);
    let mut member = member;
    member.kill().unwrap();
    let _ = member.wait();
    let rejoined = spawn(&join("rejoined.txt"));
    reach(1500);
    let spectator = spawn(&base(
        &["--net", "spectate", &host_addr, "--quiet"],
        "spectator.txt",
    ));
    let (code, rest, err) = finish(host, Duration::from_secs(60));
    let rest: String = lines.map_while(Result::ok).collect::<Vec<_>>().join("\n") + &rest;
    assert_eq!(
        ended_early, None,
        "the host ended early:\n{seen}{rest}\n{err}"
    );
    assert_eq!(code, 0, "host:\n{rest}\n{err}");
    let mut outs = std::collections::HashMap::new();
    for (name, child) in [
        ("late", late),
        ("rejoined", rejoined),
        ("spectator", spectator),
    ] {
        let (code, out, err) = finish(child, Duration::from_secs(20));
        assert_eq!(code, 0, "{name}:\n{out}\n{err}");
        outs.insert(name, out);
    }
    assert!(
        rest.contains("epochs:     4 (1 joins, 1 rejoins, "),
        "{rest}"
    );
    // The late player's record starts where it joined and replays bit
    // for bit; its hashes are the ones it confirmed while playing.
    let replay = laige_engine::sim::replay::Replay::read(&record).unwrap();
    let late_log = hashes(&scratch.path("late.txt"));
    assert_eq!(
        replay.start_tick(),
        *late_log.keys().next().unwrap(),
        "the record starts at the late player's first confirmed tick"
    );
    assert!(replay.ticks() >= 100, "{} ticks", replay.ticks());
    // A peer whose confirmed past is rewritten at the leave's boundary (a
    // leave replay: it held more of the killed player's input than the
    // host) ends its record there, with the hashes it first confirmed;
    // its log holds the rewritten ones from the cut on (after the kill,
    // at host tick 900 or later).
    let rewritten = !outs["late"].contains(" 0 leave replays,");
    for (t, h) in replay.checkpoints() {
        if rewritten && t >= 850 {
            continue;
        }
        assert_eq!(
            late_log.get(&t),
            Some(&format!("{h:016x}")),
            "late record, tick {t}"
        );
    }
    let last = *late_log.keys().next_back().unwrap();
    assert_eq!(
        replay.end_tick() < last,
        rewritten,
        "the record ends at {} of {last}",
        replay.end_tick()
    );
    let (code, out, err) = run(&[
        "--config",
        &scratch.config(),
        "--entities",
        "500",
        "--replay",
        &record.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "late record:\n{out}\n{err}");
    assert!(
        out.contains(&format!("verified {} ticks", replay.ticks())),
        "{out}"
    );
    let host_log = hashes(&scratch.path("host.txt"));
    // The last ticks wait for inputs of players who already stopped.
    let missing: Vec<u64> = (1..=2340).filter(|t| !host_log.contains_key(t)).collect();
    assert!(
        missing.is_empty(),
        "the host did not confirm {missing:?}:\n{rest}"
    );
    let rejoined_from = *hashes(&scratch.path("rejoined.txt")).keys().next().unwrap();
    for name in ["late", "rejoined", "spectator"] {
        let log = hashes(&scratch.path(&format!("{name}.txt")));
        let first = *log.keys().next().unwrap();
        assert!(first >= 600, "{name} from {first}");
        // GGRS drops a killed player at the last input each peer got from
        // it; when the peers' frames differ, their states part until the
        // leave's boundary, where the peers that held more of its input
        // re-simulate without it and rewrite those ticks' hashes (a leave
        // replay); only if that fails does the host's state replace the
        // other's (a resync, in the report): none here, so every tick
        // agrees.
        assert!(
            outs[name].contains(" 0 resyncs,"),
            "{name} was resynced:\n{}",
            outs[name]
        );
        for t in first..=*log.keys().next_back().unwrap() {
            let theirs = log.get(&t);
            assert!(theirs.is_some(), "{name}: tick {t} missing");
            if let Some(ours) = host_log.get(&t) {
                assert_eq!(
                    theirs,
                    Some(ours),
                    "{name}: tick {t} differs (rejoin at {rejoined_from}):\n{}",
                    outs[name]
                );
            }
        }
    }
}
