//! The P2P desync round trip: two peers over UDP on 127.0.0.1, one of them
//! running a system the other does not (it moves one avatar's `x` at tick
//! 60), end in a desync whose report names the component; both dump the
//! desynced tick, and `cargo xtask desync-diff` (the built binary) names
//! the component, the entity and the field from the two files.

#[path = "../../crates/laige-net/tests/support/mod.rs"]
mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use laige_core::Fpx16_16;
use laige_net::{Advance, NetConfig, NetEnd, NetSession, TickPacer, UdpNonBlockingSocket};
use support::{Avatar, Steer, free_port, game, player_seats, script_input};

/// Runs peer `me` until its session ends (a desync) and returns the end.
fn peer(me: usize, ports: [u16; 2], dir: &std::path::Path) -> NetEnd {
    let socket = UdpNonBlockingSocket::bind_to_port(ports[me]).unwrap();
    let mut world = game::<Fpx16_16>(64, 2);
    if me == 1 {
        world
            .register_system("test/diverge", 60, |ctx| {
                if ctx.tick() == 60 {
                    for a in ctx.query_mut::<&mut Avatar>() {
                        if a.player == 1 {
                            a.x += 1000;
                        }
                    }
                }
                Ok(())
            })
            .unwrap();
    }
    let config = NetConfig {
        players: 2,
        max_prediction: 8,
        input_delay: 2,
        tick_rate_hz: 120,
        ..NetConfig::default()
    };
    let seats = player_seats(me, ports);
    let mut session = NetSession::<Steer>::p2p(world, config, &seats, socket).unwrap();
    session.dump_desyncs_to(dir.join(format!("peer{me}")).to_string_lossy());
    let mut pacer = TickPacer::new(120, 4);
    let deadline = Instant::now() + Duration::from_secs(60);
    while session.end().is_none() {
        assert!(Instant::now() < deadline, "peer {me} never desynced");
        for _ in 0..pacer.due() {
            let tick = session.world().tick();
            script_input(session.world_mut(), u8::try_from(me).unwrap(), tick);
            if session.advance().unwrap() == Advance::Ended {
                break;
            }
        }
        std::thread::sleep(pacer.until_next().min(Duration::from_millis(2)));
    }
    session.into_end().unwrap()
}

#[test]
fn a_p2p_desync_dumps_both_peers_and_desync_diff_names_the_field() {
    let dir = std::env::temp_dir().join(format!("laige-desync-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ports = [free_port(), free_port()];
    let handles: Vec<_> = (0..2)
        .map(|me| {
            let dir = dir.clone();
            std::thread::spawn(move || peer(me, ports, &dir))
        })
        .collect();
    let mut dumps = Vec::new();
    for h in handles {
        let end = h.join().unwrap();
        let NetEnd::Desync { tick, report } = end else {
            panic!("{end:?}");
        };
        assert!(
            report.contains("differing components: test.avatar"),
            "{report}"
        );
        let path = dir.join(format!("peer{}-tick{tick}.txt", dumps.len()));
        assert!(report.contains("snapshot dumped to"), "{report}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\nfield test.avatar "), "{text}");
        dumps.push(path);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("desync-diff")
        .args(&dumps)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "the dumps differ: {stdout}");
    // Player 1's avatar: its x alone differs.
    let avatar_line = stdout
        .lines()
        .find(|l| l.starts_with("component test.avatar, entity "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(avatar_line.contains(", field x: hash 0x"), "{stdout}");
    assert!(
        !stdout.contains("field y") && !stdout.contains("field player"),
        "{stdout}"
    );
    assert!(!stdout.contains("workload."), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
