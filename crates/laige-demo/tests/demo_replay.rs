//! `--record` / `--replay` as a user runs them: a recorded headless
//! session replays with every state hash matching (both backends); a
//! seeded divergence (one tick's recorded input changed) names its first
//! differing tick and exits 5; a torn file verifies its valid prefix and
//! exits 6; a damaged or mismatched file exits 1 with a clear message,
//! never a panic.

use std::path::{Path, PathBuf};

use laige_engine::input::InputKind;
use laige_engine::sim::replay::{Record, Replay, ReplayRecorder};

mod support;

use support::run;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("laige-demo-replay-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn record(path: &Path, extra: &[&str]) -> String {
    let p = path.to_str().unwrap();
    let args = [
        &[
            "--unpaced",
            "--quiet",
            "--entities",
            "400",
            "--seconds",
            "4",
            "--record",
            p,
        ][..],
        extra,
    ]
    .concat();
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("laige-demo: recorded 240 ticks to"), "{out}");
    out
}

#[test]
fn a_recorded_session_replays_with_every_hash_matching() {
    let d = dir("ok");
    for (backend, config) in [
        ("fixed_point_16_16", None),
        (
            "float_pinned_32",
            Some("[determinism]\nmath = \"float_pinned_32\"\nseed = 7\n"),
        ),
    ] {
        let file = d.join(format!("{backend}.lrp"));
        let mut extra = Vec::new();
        let cfg = d.join("cfg.toml");
        if let Some(text) = config {
            std::fs::write(&cfg, text).unwrap();
            extra = vec!["--config", cfg.to_str().unwrap()];
        }
        record(&file, &extra);
        let replay = Replay::read(&file).unwrap();
        assert_eq!(replay.header().backend.id(), backend);
        assert_eq!(replay.ticks(), 240);
        assert_eq!(replay.checkpoints().count(), 241, "a hash after every tick");
        // The scripted session's events were recorded at their ticks: a
        // pointer move every 6 ticks, the bursts at 1 s, 2 s and 3 s.
        assert!(!replay.input(60).unwrap().is_empty());
        // The replay takes backend and seed from the file (no --config).
        let (code, out, err) = run(&[
            "--replay",
            file.to_str().unwrap(),
            "--entities",
            "400",
            "--quiet",
        ]);
        assert_eq!(code, 0, "{out}\n{err}");
        assert!(
            out.contains("laige-demo: replay verified: 240 ticks, 241 state hashes match"),
            "{out}"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Rewrites `src` with tick `at`'s input replaced by "no events".
fn with_input_dropped(src: &Path, dst: &Path, at: u64) {
    let replay = Replay::read(src).unwrap();
    let mut rec = ReplayRecorder::new(Vec::new(), replay.header().clone()).unwrap();
    let mut none = Vec::new();
    laige_engine::record::encode_tick_input(&[], &mut none);
    for r in replay.records() {
        match r {
            Record::Input { tick, payload } => {
                let p = if tick == at { &none[..] } else { payload };
                rec.record_input_bytes(tick, p).unwrap();
            }
            Record::Hash { tick, hash } => rec.record_hash(tick, hash).unwrap(),
            Record::Keyframe { tick, payload } => rec.record_keyframe(tick, payload).unwrap(),
            Record::End { .. } => {}
        }
    }
    std::fs::write(dst, rec.finish().unwrap()).unwrap();
}

#[test]
fn a_changed_input_is_reported_at_its_first_differing_tick() {
    let d = dir("diverge");
    let good = d.join("good.lrp");
    record(&good, &[]);
    // Tick 66 moves the attractor (one pointer move every 6 ticks): without
    // it, the state after tick 66 — completed tick count 67 — differs.
    let replay = Replay::read(&good).unwrap();
    let events = laige_engine::record::decode_tick_input(replay.input(66).unwrap()).unwrap();
    assert!(
        events
            .iter()
            .any(|(_, k)| matches!(k, InputKind::MouseMove { .. })),
        "{events:?}"
    );
    let bad = d.join("bad.lrp");
    with_input_dropped(&good, &bad, 66);
    let (code, out, err) = run(&[
        "--replay",
        bad.to_str().unwrap(),
        "--entities",
        "400",
        "--quiet",
    ]);
    assert_eq!(code, 5, "{out}\n{err}");
    assert!(
        out.contains("laige-demo: replay diverged at tick 67: recorded state hash"),
        "{out}"
    );
    assert!(out.contains("(tick 66 matched)"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn damaged_or_mismatched_replays_are_clear_errors() {
    let d = dir("bad");
    let good = d.join("good.lrp");
    // Without keyframes: every byte is an input or a hash record, so a cut
    // or a flip anywhere is the file's damage (a keyframe's own damage is
    // tests/demo_seek.rs's).
    let cfg = d.join("no-keyframes.toml");
    std::fs::write(&cfg, "[replay]\nkeyframe_interval = 0\n").unwrap();
    record(&good, &["--config", cfg.to_str().unwrap()]);
    let bytes = std::fs::read(&good).unwrap();

    // Cut short (a crash mid-recording): the valid prefix is verified and
    // reported as torn (exit 6), naming the torn record.
    let torn = d.join("torn.lrp");
    std::fs::write(&torn, &bytes[..bytes.len() / 2]).unwrap();
    let (code, out, err) = run(&["--replay", torn.to_str().unwrap(), "--entities", "400"]);
    assert_eq!(
        code,
        i32::from(laige_engine::EXIT_REPLAY_TORN),
        "{out}\n{err}"
    );
    assert!(err.contains("replay/corrupt"), "{err}");
    assert!(err.contains("byte offset"), "{err}");
    let prefix = Replay::parse_prefix(&bytes[..bytes.len() / 2]).unwrap();
    let n = prefix.replay.ticks();
    let verified = prefix.replay.checkpoints().last().unwrap().0;
    assert!(
        out.contains(&format!(
            "laige-demo: replay torn after tick {n}; verified ticks 0..{verified}"
        )),
        "{out}"
    );

    // A flipped byte in the middle: the record's CRC names it.
    // (A flip inside a length field reads as a torn tail, so take the
    // first byte from a third in whose flip the reader calls damage.)
    let flipped = (bytes.len() / 3..bytes.len())
        .map(|at| {
            let mut f = bytes.clone();
            f[at] ^= 0x40;
            f
        })
        .find(|f| Replay::parse_prefix(f).is_ok_and(|p| p.damage.is_some() && !p.is_torn()))
        .expect("a flip the CRC catches");
    let f = d.join("flipped.lrp");
    std::fs::write(&f, &flipped).unwrap();
    let (code, _, err) = run(&["--replay", f.to_str().unwrap(), "--entities", "400"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("replay/corrupt"), "{err}");

    // Not a replay at all.
    let junk = d.join("junk.lrp");
    std::fs::write(&junk, b"hello").unwrap();
    let (code, _, err) = run(&["--replay", junk.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("replay/corrupt"), "{err}");

    // Another config: a different entity count is another run.
    let (code, _, err) = run(&["--replay", good.to_str().unwrap(), "--entities", "401"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("replay/identity_mismatch") && err.contains("config_hash"),
        "{err}"
    );

    // A missing file.
    let (code, _, err) = run(&["--replay", d.join("nope.lrp").to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("replay/io_failed"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}
