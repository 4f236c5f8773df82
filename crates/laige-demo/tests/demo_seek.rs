//! `--replay FILE --seek TICK` as a user runs it: a recording with
//! keyframes (`[replay] keyframe_interval`) reaches any tick from the
//! nearest keyframe at or before it with the state hash the recorded run
//! had there; a damaged keyframe is named and the one before it used.

use std::path::{Path, PathBuf};

use laige_engine::sim::replay::Replay;

mod support;

use support::run;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("laige-demo-seek-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Records the 4-second scripted session (bursts spawn at 1 s and 2 s, one
/// despawns at 3 s) of 400 sprites with a keyframe every 32 ticks.
fn record(d: &Path) -> PathBuf {
    let cfg = d.join("keyframes.toml");
    std::fs::write(&cfg, "[replay]\nkeyframe_interval = 32\n").unwrap();
    let file = d.join("run.lrp");
    let (code, out, err) = run(&[
        "--unpaced",
        "--quiet",
        "--entities",
        "400",
        "--seconds",
        "4",
        "--config",
        cfg.to_str().unwrap(),
        "--record",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    file
}

/// Runs `--replay file --seek …` and returns (exit code, its output, the
/// `(tick, hash)` of every seek).
fn seek(file: &Path, ticks: &[u64]) -> (i32, String, Vec<(u64, u64)>) {
    let mut args = vec![
        "--replay".to_owned(),
        file.to_str().unwrap().to_owned(),
        "--entities".to_owned(),
        "400".to_owned(),
    ];
    for t in ticks {
        args.extend(["--seek".to_owned(), t.to_string()]);
    }
    let (code, out, err) = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let reached = out
        .lines()
        .filter_map(|l| l.strip_prefix("laige-demo: tick "))
        .map(|l| {
            let (tick, hash) = l.split_once(" state hash 0x").unwrap();
            (
                tick.parse().unwrap(),
                u64::from_str_radix(hash.trim(), 16).unwrap(),
            )
        })
        .collect();
    (code, format!("{out}\n{err}"), reached)
}

#[test]
fn seeking_reaches_the_recorded_state_of_every_tick_asked() {
    let d = dir("ok");
    let file = record(&d);
    let replay = Replay::read(&file).unwrap();
    assert_eq!(replay.header().keyframe_interval, 32);
    let kf: Vec<u64> = replay.keyframes().map(|k| k.tick).collect();
    assert_eq!(kf, (0..240).step_by(32).collect::<Vec<_>>());
    // Forward, back one tick, past a burst, the end, the start.
    let ticks = [200, 199, 70, 240, 0, 130, 61];
    let (code, out, reached) = seek(&file, &ticks);
    assert_eq!(code, 0, "{out}");
    assert_eq!(reached.len(), ticks.len(), "{out}");
    for (&t, &(at, hash)) in ticks.iter().zip(&reached) {
        assert_eq!(at, t, "{out}");
        assert_eq!(Some(hash), replay.hash_at(t), "seek to {t}: {out}");
    }
    assert!(out.contains("seek at tick 200: from the keyframe of tick 192, 8 tick(s) re-simulated, 9 state hash(es) checked, all match"), "{out}");
    assert!(
        out.contains("seek at tick 199: from the keyframe of tick 192, 7 tick(s)"),
        "{out}"
    );
}

#[test]
fn a_damaged_keyframe_is_named_and_the_one_before_it_used() {
    let d = dir("damaged");
    let file = record(&d);
    let mut bytes = std::fs::read(&file).unwrap();
    let replay = Replay::parse(&bytes).unwrap();
    let k = replay.keyframes().find(|k| k.tick == 192).unwrap();
    let at = bytes.windows(64).position(|w| w == &k.bytes[..64]).unwrap();
    bytes[at + 500] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let (code, out, reached) = seek(&file, &[200]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(reached, [(200, replay.hash_at(200).unwrap())], "{out}");
    assert!(
        out.contains("from the keyframe of tick 160, 40 tick(s) re-simulated"),
        "{out}"
    );
    assert!(out.contains("skipped: replay/keyframe_damaged"), "{out}");
    assert!(
        out.contains("the keyframe of tick 192 is unusable"),
        "{out}"
    );
}
