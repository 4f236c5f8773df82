//! Replays reproduce runs: record the reference workload with scripted
//! input, play it back headless on a fresh world, and every recorded state
//! hash matches — on both backends, in memory and through a file. A
//! seeded divergence (one input or one component changed mid-run) is
//! named at its first differing tick.

use laige_core::{ErrorCode, Fp32Pinned, Fpx16_16, MathBackend, SimScalar, Vec2};
use laige_sim::events;
use laige_sim::replay::{
    self, ENGINE_VERSION, Replay, ReplayHeader, ReplayInput, ReplayRecorder, WorldTarget,
};
use laige_sim::workload::{self, Velocity, WorkloadConfig};
use laige_sim::{StateHash, StateHasher, World};

/// One tick's scripted input: a velocity impulse for every entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Impulse {
    dx: i16,
    dy: i16,
}

impl ReplayInput for Impulse {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.dx.to_le_bytes());
        out.extend_from_slice(&self.dy.to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> laige_core::Result<Self> {
        match bytes {
            [a, b, c, d] => Ok(Self {
                dx: i16::from_le_bytes([*a, *b]),
                dy: i16::from_le_bytes([*c, *d]),
            }),
            _ => Err(replay::input_invalid(
                "Impulse",
                format!("{} bytes", bytes.len()),
                "4 bytes",
            )),
        }
    }
}

fn script(tick: u64) -> Impulse {
    // Deterministic and varied: mostly no-ops, a push every few ticks.
    let t = i16::try_from(tick % 97).unwrap();
    if tick.is_multiple_of(5) {
        Impulse { dx: t - 48, dy: 3 }
    } else {
        Impulse { dx: 0, dy: 0 }
    }
}

fn config(seed: u64) -> WorkloadConfig {
    WorkloadConfig {
        entities: 64,
        seed,
        ..WorkloadConfig::default()
    }
}

fn config_hash(c: &WorkloadConfig) -> u64 {
    let mut h = StateHasher::default();
    h.write_u32(c.entities);
    h.write_u32(c.tick_rate_hz);
    h.write_u32(c.half_extent.cast_unsigned());
    h.write_u32(c.max_speed.cast_unsigned());
    h.write_u32(c.attraction.cast_unsigned());
    h.finish()
}

fn world<S: SimScalar + StateHash>(c: &WorkloadConfig) -> World {
    let mut w = World::default();
    workload::install::<S>(&mut w, c).unwrap();
    w
}

fn apply<S: SimScalar + StateHash>(
    w: &mut World,
    _tick: u64,
    input: &[u8],
) -> laige_core::Result<()> {
    let i = Impulse::decode(input)?;
    if i.dx == 0 && i.dy == 0 {
        return Ok(());
    }
    let push = Vec2::new(
        S::from_ratio(i32::from(i.dx), 16),
        S::from_ratio(i32::from(i.dy), 16),
    );
    for v in w.ecs_mut().query_mut::<&mut Velocity<S>>() {
        v.0 += push;
    }
    Ok(())
}

/// Records `ticks` ticks; `input_at` may alter the scripted input.
fn record<S: SimScalar + StateHash>(
    seed: u64,
    ticks: u64,
    interval: u32,
    input_at: impl Fn(u64) -> Impulse,
) -> Vec<u8> {
    let c = config(seed);
    let mut w = world::<S>(&c);
    let schedule = w.schedule_systems();
    let mut header = ReplayHeader::new(S::BACKEND, seed, config_hash(&c));
    header.hash_interval = interval;
    let mut rec = ReplayRecorder::new(Vec::new(), header).unwrap();
    assert!(rec.wants_hash(0));
    rec.record_hash(0, w.state_hash()).unwrap();
    for tick in 0..ticks {
        let input = input_at(tick);
        rec.record_input(tick, &input).unwrap();
        let mut bytes = Vec::new();
        input.encode(&mut bytes);
        apply::<S>(&mut w, tick, &bytes).unwrap();
        w.run_systems(&schedule).unwrap();
        if rec.wants_hash(w.tick()) {
            rec.record_hash(w.tick(), w.state_hash()).unwrap();
        }
    }
    rec.finish().unwrap()
}

fn play<S: SimScalar + StateHash>(
    replay: &Replay,
    perturb_at: Option<u64>,
) -> replay::Verification {
    let h = replay.header();
    h.check_compatible(S::BACKEND, h.config_hash, ENGINE_VERSION)
        .unwrap();
    let c = config(h.seed);
    let mut w = world::<S>(&c);
    let schedule = w.schedule_systems();
    let mut target = WorldTarget::new(&mut w, &schedule, |w: &mut World, tick, input: &[u8]| {
        apply::<S>(w, tick, input)?;
        if perturb_at == Some(tick) {
            // One component of one entity nudged by the smallest step.
            if let Some(v) = w
                .ecs_mut()
                .query_mut::<&mut Velocity<S>>()
                .into_iter()
                .next()
            {
                v.0.x += S::from_ratio(1, 65_536);
            }
        }
        Ok(())
    });
    replay::verify(replay, &mut target).unwrap()
}

fn round_trip<S: SimScalar + StateHash>() {
    let bytes = record::<S>(7, 300, 1, script);
    let replay = Replay::parse(&bytes).unwrap();
    assert!(replay.is_complete());
    assert_eq!(replay.ticks(), 300);
    assert_eq!(replay.header().backend, S::BACKEND);
    assert_eq!(replay.checkpoints().count(), 301);
    assert_eq!(replay.input_as::<Impulse>(10).unwrap(), script(10));
    let report = play::<S>(&replay, None);
    assert_eq!(report.ticks, 300);
    assert_eq!(report.checkpoints, 301);
    assert_eq!(report.divergence, None);
    assert!(report.into_result().is_ok());
}

#[test]
fn round_trip_reproduces_every_hash_fixed_point() {
    round_trip::<Fpx16_16>();
}

#[test]
fn round_trip_reproduces_every_hash_pinned_float() {
    round_trip::<Fp32Pinned>();
}

#[test]
fn recording_is_itself_deterministic() {
    let a = record::<Fpx16_16>(3, 120, 1, script);
    let b = record::<Fpx16_16>(3, 120, 1, script);
    assert_eq!(a, b, "same run, same bytes");
    let c = record::<Fpx16_16>(4, 120, 1, script);
    assert_ne!(a, c, "another seed, another run");
}

#[test]
fn a_changed_component_is_named_at_its_first_differing_tick() {
    let replay = Replay::parse(&record::<Fpx16_16>(7, 200, 1, script)).unwrap();
    // The nudge is applied while replaying tick 137: the state after tick
    // 137 (completed count 138) is the first to differ.
    let report = play::<Fpx16_16>(&replay, Some(137));
    let d = report.divergence.expect("a nudged component diverges");
    assert_eq!(d.tick, 138);
    assert_eq!(d.last_match, Some(137));
    assert_eq!(report.ticks, 138);
    assert_eq!(report.checkpoints, 138);
    let err = report.into_result().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Failed);
    assert_eq!(err.id(), events::DIVERGED);
    assert_eq!(err.value(), Some("138"));
    let same = Replay::parse(&record::<Fp32Pinned>(7, 200, 1, script)).unwrap();
    let d = play::<Fp32Pinned>(&same, Some(20)).divergence.unwrap();
    assert_eq!(d.tick, 21);
}

#[test]
fn a_changed_input_is_named_at_its_first_differing_tick() {
    let good = record::<Fpx16_16>(7, 200, 1, script);
    // A recording whose tick-90 input differs from the script: playing the
    // scripted run's recording against it pins the divergence at tick 91.
    let bad = record::<Fpx16_16>(7, 200, 1, |t| {
        if t == 90 {
            Impulse { dx: 1, dy: 0 }
        } else {
            script(t)
        }
    });
    let good = Replay::parse(&good).unwrap();
    let bad = Replay::parse(&bad).unwrap();
    let first_diff = good
        .checkpoints()
        .zip(bad.checkpoints())
        .find(|(a, b)| a != b)
        .map(|(a, _)| a.0);
    assert_eq!(first_diff, Some(91));
    // Replaying the altered inputs reproduces the altered recording.
    assert_eq!(play::<Fpx16_16>(&bad, None).divergence, None);
}

#[test]
fn a_coarse_interval_names_the_first_checked_tick_and_the_window() {
    let replay = Replay::parse(&record::<Fpx16_16>(7, 200, 50, script)).unwrap();
    assert_eq!(
        replay.checkpoints().map(|c| c.0).collect::<Vec<_>>(),
        vec![0, 50, 100, 150, 200]
    );
    let d = play::<Fpx16_16>(&replay, Some(120)).divergence.unwrap();
    assert_eq!(d.tick, 150);
    assert_eq!(d.last_match, Some(100));
    insta::assert_snapshot!(d.to_string());
}

#[test]
fn a_replay_refuses_another_backend_config_or_engine() {
    let replay = Replay::parse(&record::<Fpx16_16>(7, 10, 1, script)).unwrap();
    let h = replay.header();
    let e = h
        .check_compatible(MathBackend::FloatPinned32, h.config_hash, ENGINE_VERSION)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(e.id(), events::IDENTITY_MISMATCH);
    assert_eq!(e.field(), Some("backend"));
    insta::assert_snapshot!("backend_mismatch", e.to_string());
    let e = h
        .check_compatible(h.backend, h.config_hash ^ 1, ENGINE_VERSION)
        .unwrap_err();
    assert_eq!(e.field(), Some("config_hash"));
    let e = h
        .check_compatible(h.backend, h.config_hash, "9.9.9")
        .unwrap_err();
    assert_eq!(e.field(), Some("engine_version"));
    assert!(
        h.check_compatible(h.backend, h.config_hash, ENGINE_VERSION)
            .is_ok()
    );
}

#[test]
fn a_world_not_at_the_start_is_refused() {
    let replay = Replay::parse(&record::<Fpx16_16>(7, 10, 1, script)).unwrap();
    let mut w = world::<Fpx16_16>(&config(7));
    let schedule = w.schedule_systems();
    w.run_systems(&schedule).unwrap();
    // With a tick-0 hash recorded, the wrong start is a divergence at 0...
    let mut target = WorldTarget::new(&mut w, &schedule, apply::<Fpx16_16>);
    let d = replay::verify(&replay, &mut target)
        .unwrap()
        .divergence
        .unwrap();
    assert_eq!((d.tick, d.last_match), (0, None));
    // ...and without one, the target refuses to run tick 0 on a world at 1.
    let mut rec = ReplayRecorder::new(Vec::new(), replay.header().clone()).unwrap();
    rec.record_input(0, &script(0)).unwrap();
    let inputs_only = Replay::parse(&rec.finish().unwrap()).unwrap();
    let e = replay::verify(&inputs_only, &mut target).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidState);
    assert_eq!(e.id(), events::WORLD_NOT_AT_START);
}

#[test]
fn files_on_disk_round_trip() {
    let dir = std::env::temp_dir().join(format!("laige-replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.lrp");
    let header = ReplayHeader::new(MathBackend::FixedPoint16_16, 1, 2);
    let mut rec = ReplayRecorder::create(&path, header.clone()).unwrap();
    rec.record_hash(0, 11).unwrap();
    rec.record_input(0, &Impulse { dx: 1, dy: 2 }).unwrap();
    // Flushed per record: a reader sees the prefix while recording goes on.
    let prefix = Replay::read_prefix(&path).unwrap();
    assert_eq!(prefix.replay.ticks(), 1);
    assert_eq!(
        prefix.damage.as_ref().map(laige_core::Error::field),
        Some(Some("end_record"))
    );
    assert!(Replay::read(&path).is_err());
    rec.record_hash(1, 12).unwrap();
    rec.finish().unwrap();
    let replay = Replay::read(&path).unwrap();
    assert_eq!(replay.header(), &header);
    assert_eq!(
        replay.checkpoints().collect::<Vec<_>>(),
        vec![(0, 11), (1, 12)]
    );
    let missing = Replay::read(dir.join("missing.lrp")).unwrap_err();
    assert_eq!(missing.code(), ErrorCode::Io);
    assert_eq!(missing.field(), Some("path"));
    std::fs::remove_dir_all(&dir).unwrap();
}
