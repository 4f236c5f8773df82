//! Record and replay through the engine's public API: a recorded run plays
//! back with every state hash matching on both backends, the events reach
//! the systems at the same ticks with the same sub-tick times (compared
//! exactly), a changed game is caught at its first differing tick, and a
//! torn or foreign file says so.

use std::path::PathBuf;

use laige_engine::input::{InputKind, ScriptAt};
use laige_engine::{
    EXIT_REPLAY_DIVERGED, EXIT_REPLAY_TORN, Engine, EngineConfig, EngineOptions, EngineScalar,
    ErrorCode, Game, MathBackend, Pacing, ReplayOutcome, RunLimit, Setup, StateHash, World,
};

/// Hashed: the sum of every delivered action value times its sub-tick
/// offset, so the times themselves reach the state hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
struct Acc(i64);

/// Sees every delivered event (tick, time, kind); `break_at` changes the
/// simulation from that tick on.
#[derive(Default)]
struct Probe {
    seen: Vec<(u64, i64, InputKind)>,
    break_at: Option<u64>,
}

impl Game for Probe {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        let rate = i64::from(setup.tick_rate_hz());
        let break_at = self.break_at;
        let world = setup.world();
        world.insert_hashed_resource("test.acc", Acc::default())?;
        world.register_system("acc", 0, move |ctx| {
            let tick = ctx.tick();
            let start = (tick * 1_000_000_000).div_ceil(u64::try_from(rate).unwrap());
            let start = i64::try_from(start).unwrap();
            let mut add = 0;
            for ev in ctx.input() {
                if let InputKind::Action { value, .. } = ev.kind {
                    add += i64::from(value) * (ev.time_ns - start + 1);
                }
            }
            if break_at.is_some_and(|b| tick >= b) {
                add += 1;
            }
            ctx.resource_mut::<Acc>()?.0 += add;
            Ok(())
        })?;
        self.seen.reserve(1024);
        Ok(())
    }

    fn on_tick<S: EngineScalar>(&mut self, world: &World, _tick: u64) {
        for ev in world.input().delivered() {
            self.seen.push((ev.tick, ev.time_ns, ev.kind));
        }
    }
}

fn options() -> EngineOptions {
    EngineOptions {
        pacing: Pacing::Unpaced,
        handle_ctrl_c: false,
        ..Default::default()
    }
}

fn file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("laige-engine-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Actions at sub-tick times: 0.3, 1.7, 2.05 … ticks into the run.
fn script() -> Vec<(ScriptAt, InputKind)> {
    (0..40_i64)
        .map(|i| {
            let at = i * 23_456_789 + 4_321;
            let value = i32::try_from(i % 7).unwrap() - 3;
            (ScriptAt::TimeNs(at), InputKind::Action { id: 1, value })
        })
        .collect()
}

fn record(path: &PathBuf, backend: MathBackend) -> (Probe, laige_engine::RunReport) {
    let mut config = EngineConfig::default();
    config.determinism.math = backend;
    config.determinism.seed = 99;
    let mut probe = Probe::default();
    let report = Engine::builder()
        .game(&mut probe)
        .config(config)
        .scripted_input(script())
        .options(options())
        .record(path)
        .build()
        .unwrap()
        .run_headless(RunLimit::Ticks(60))
        .unwrap();
    (probe, report)
}

#[test]
fn a_recorded_run_replays_exactly_on_both_backends() {
    for backend in MathBackend::ALL {
        let path = file(&format!("ok-{}.lrp", backend.id()));
        let (recorded, report) = record(&path, backend);
        let rec = report.recording.as_ref().expect("a recorded run says so");
        assert!(rec.error.is_none(), "{rec}");
        assert_eq!(rec.ticks, 60);
        assert!(report.to_string().contains("recorded 60 ticks"), "{report}");
        // Sub-tick times: not every event sits at its tick's start.
        assert!(recorded.seen.len() >= 40);
        assert!(recorded.seen.iter().any(|(t, time, _)| {
            *time != i64::try_from((*t * 1_000_000_000).div_ceil(60)).unwrap()
        }));

        // The playback takes backend and seed from the file.
        let mut replayed = Probe::default();
        let verdict = Engine::builder()
            .game(&mut replayed)
            .options(options())
            .build()
            .unwrap()
            .replay(&path)
            .unwrap();
        assert_eq!(
            verdict.outcome,
            ReplayOutcome::Verified {
                ticks: 60,
                matched: 61
            },
            "{verdict}"
        );
        assert_eq!(verdict.exit_code(), 0);
        assert_eq!((verdict.backend, verdict.seed), (backend, 99));
        assert_eq!(verdict.run.state_hash, report.state_hash);
        // Every event at the same tick with the same time, in order.
        assert_eq!(replayed.seen, recorded.seen);
    }
}

/// A recording in memory (a page's) holds the file's bytes, and plays back
/// from those bytes; damaged bytes are refused, never played.
#[test]
fn a_recording_in_memory_is_the_file_and_replays_from_bytes() {
    let path = file("memory-twin.lrp");
    let (_, on_disk) = record(&path, MathBackend::FixedPoint16_16);
    let mut config = EngineConfig::default();
    config.determinism.seed = 99;
    let report = Engine::builder()
        .game(Probe::default())
        .config(config)
        .scripted_input(script())
        .options(options())
        .record_in_memory()
        .build()
        .unwrap()
        .run_headless(RunLimit::Ticks(60))
        .unwrap();
    let rec = report.recording.expect("a recorded run says so");
    assert!(rec.error.is_none(), "{rec}");
    assert_eq!((rec.path.as_ref(), rec.ticks), (None, 60));
    assert!(rec.to_string().contains("to memory"), "{rec}");
    assert_eq!(rec.bytes, std::fs::read(&path).unwrap());
    assert_eq!(report.state_hash, on_disk.state_hash);

    let verdict = Engine::builder()
        .game(Probe::default())
        .options(options())
        .build()
        .unwrap()
        .replay_bytes(&rec.bytes)
        .unwrap();
    assert!(verdict.outcome.is_verified(), "{verdict}");
    assert_eq!(verdict.run.state_hash, report.state_hash);

    let mut damaged = rec.bytes.clone();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x40;
    let refused = Engine::builder()
        .game(Probe::default())
        .options(options())
        .build()
        .unwrap()
        .replay_bytes(&damaged);
    assert!(refused.is_err(), "damaged bytes were played: {refused:?}");
}

#[test]
fn a_changed_game_is_caught_at_its_first_differing_tick() {
    let path = file("diverge.lrp");
    record(&path, MathBackend::FixedPoint16_16);
    let mut changed = Probe {
        break_at: Some(25),
        ..Probe::default()
    };
    let verdict = Engine::builder()
        .game(&mut changed)
        .options(options())
        .build()
        .unwrap()
        .replay(&path)
        .unwrap();
    let ReplayOutcome::Diverged(d) = verdict.outcome else {
        panic!("{verdict}");
    };
    // Tick 25 is the first that differs: the state after it, completed
    // tick count 26.
    assert_eq!((d.tick, d.last_match), (26, Some(25)));
    assert_eq!(verdict.exit_code(), EXIT_REPLAY_DIVERGED);
}

#[test]
fn a_torn_file_verifies_its_prefix_and_a_foreign_one_is_refused() {
    let path = file("torn-src.lrp");
    record(&path, MathBackend::FixedPoint16_16);
    let bytes = std::fs::read(&path).unwrap();
    let torn = file("torn.lrp");
    std::fs::write(&torn, &bytes[..bytes.len() / 2]).unwrap();
    let verdict = Engine::builder()
        .game(Probe::default())
        .options(options())
        .build()
        .unwrap()
        .replay(&torn)
        .unwrap();
    let ReplayOutcome::Torn {
        torn_after_tick,
        verified_ticks,
        ..
    } = verdict.outcome
    else {
        panic!("{verdict}");
    };
    assert!(torn_after_tick > 0 && torn_after_tick < 60);
    assert!(verified_ticks <= torn_after_tick);
    assert_eq!(verdict.exit_code(), EXIT_REPLAY_TORN);
    assert!(verdict.damage.is_some());

    // Another identity (something outside the config shapes the run).
    let err = Engine::builder()
        .game(Probe::default())
        .options(options())
        .replay_identity(7)
        .build()
        .unwrap()
        .replay(&path)
        .unwrap_err();
    assert!(err.to_string().contains("config_hash"), "{err}");

    // Not a replay.
    let junk = file("junk.lrp");
    std::fs::write(&junk, b"hello").unwrap();
    let err = Engine::builder()
        .game(Probe::default())
        .build()
        .unwrap()
        .replay(&junk)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt);
}
