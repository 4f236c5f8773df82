//! Seeking in a replay: a recording with keyframes (whole-world encoded
//! snapshots) reaches any tick from the nearest keyframe at or before it,
//! with the state hash a straight run had there; a damaged keyframe is
//! reported and the one before it (or tick 0) is used; the format is
//! versioned (version 1 files still read, unknown versions refused by
//! name); a torn file keeps its valid prefix.

use laige_core::{Fpx16_16, SimScalar, Vec2};
use laige_sim::events;
use laige_sim::replay::{
    self, FORMAT_VERSION, FORMAT_VERSION_V3, Record, Replay, ReplayHeader, ReplayPlayer,
    ReplayRecorder, SeekStart, WorldTarget,
};
use laige_sim::workload::{self, Position, PrevPosition, Velocity, WorkloadConfig};
use laige_sim::{SimRng, World};

type S = Fpx16_16;

const TICKS: u64 = 600;
const KEYFRAMES: u32 = 64;

fn world() -> World {
    let mut w = World::default();
    let c = WorkloadConfig {
        entities: 48,
        seed: 11,
        ..WorkloadConfig::default()
    };
    workload::install::<S>(&mut w, &c).unwrap();
    w
}

/// The tick's input (one byte): 1 spawns an entity, 2 despawns the
/// oldest, 3 pushes every velocity; so keyframes hold free lists and
/// reused handles.
fn input_at(tick: u64) -> u8 {
    match tick % 13 {
        0 => 1,
        5 if tick.is_multiple_of(2) => 2,
        7 => 3,
        _ => 0,
    }
}

fn apply(w: &mut World, tick: u64, input: &[u8]) -> laige_core::Result<()> {
    match input.first() {
        Some(1) => {
            let v = i32::try_from(tick % 50).unwrap();
            let p = Vec2::new(S::from_ratio(v, 1), S::from_ratio(-v, 1));
            w.spawn((
                Position(p),
                PrevPosition(p),
                Velocity(Vec2::new(S::from_ratio(1, 1), S::ZERO)),
            ));
        }
        Some(2) => {
            let first = w
                .ecs_mut()
                .query_mut::<(hecs::Entity, &Velocity<S>)>()
                .into_iter()
                .map(|(e, _)| e)
                .min_by_key(|e| e.to_bits());
            if let Some(e) = first {
                w.despawn(e)?;
            }
        }
        Some(3) => {
            for v in w.ecs_mut().query_mut::<&mut Velocity<S>>() {
                v.0.y += S::from_ratio(1, 8);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Records `TICKS` ticks with a keyframe every `KEYFRAMES`; returns the
/// file and the state hash after every tick count (a straight run).
fn record(keyframe_interval: u32) -> (Vec<u8>, Vec<u64>) {
    record_changed(keyframe_interval, None)
}

/// [`record`] by a changed build: one velocity nudged at tick `perturb`.
fn record_changed(keyframe_interval: u32, perturb: Option<u64>) -> (Vec<u8>, Vec<u64>) {
    let mut w = world();
    let schedule = w.schedule_systems();
    let mut header = ReplayHeader::new(S::BACKEND, 11, 0);
    header.keyframe_interval = keyframe_interval;
    let mut rec = ReplayRecorder::new(Vec::new(), header).unwrap();
    let mut hashes = vec![w.state_hash()];
    let mut snapshot = Vec::new();
    rec.record_hash(0, hashes[0]).unwrap();
    for tick in 0..TICKS {
        if rec.wants_keyframe(tick) {
            snapshot.clear();
            w.encode_snapshot(&mut snapshot).unwrap();
            rec.record_keyframe(tick, &snapshot).unwrap();
        }
        let input = [input_at(tick)];
        rec.record_input_bytes(tick, &input).unwrap();
        apply(&mut w, tick, &input).unwrap();
        if perturb == Some(tick) {
            for v in w
                .ecs_mut()
                .query_mut::<&mut Velocity<S>>()
                .into_iter()
                .take(1)
            {
                v.0.x += S::from_ratio(1, 65_536);
            }
        }
        w.run_systems(&schedule).unwrap();
        hashes.push(w.state_hash());
        rec.record_hash(tick + 1, w.state_hash()).unwrap();
    }
    (rec.finish().unwrap(), hashes)
}

#[test]
fn seeking_to_fifty_random_ticks_gives_the_straight_runs_hash() {
    let (bytes, hashes) = record(KEYFRAMES);
    let replay = Replay::parse(&bytes).unwrap();
    assert_eq!(replay.format_version(), FORMAT_VERSION);
    // Tick 0 and every 64 ticks below 600.
    let kf: Vec<u64> = replay.keyframes().map(|k| k.tick).collect();
    assert_eq!(kf, (0..TICKS).step_by(64).collect::<Vec<_>>());
    assert!(replay.keyframes().all(|k| k.damage.is_none()));

    let mut w = world();
    let schedule = w.schedule_systems();
    let mut player = ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, apply)).unwrap();
    let mut rng = SimRng::new(2024);
    let mut targets: Vec<u64> = (0..46).map(|_| rng.next_u64() % (TICKS + 1)).collect();
    // The edges too: the start, a keyframe, the tick before one, the end.
    targets.extend([0, 128, 127, TICKS]);
    assert_eq!(targets.len(), 50);
    for &t in &targets {
        let report = player.seek(t).unwrap();
        assert_eq!(report.tick, t);
        assert!(report.divergence.is_none(), "{report}");
        assert!(report.skipped.is_empty(), "{report}");
        assert_eq!(
            player.state_hash(),
            hashes[t as usize],
            "seek to {t}: {report}"
        );
        // Never more than a keyframe interval re-simulated.
        assert!(report.resimulated < u64::from(KEYFRAMES), "{report}");
        // Every tick re-simulated had a recorded hash, and each matched.
        let loaded = u64::from(!matches!(report.start, SeekStart::Current(_)));
        assert_eq!(report.checked, report.resimulated + loaded, "{report}");
    }
    // Stepping back one tick at a time.
    player.seek(300).unwrap();
    for t in (290..300).rev() {
        let r = player.seek(t).unwrap();
        assert_eq!(r.start, SeekStart::Keyframe(256));
        assert_eq!(player.state_hash(), hashes[t as usize]);
    }
    // Forward from where it is when that is nearer than a keyframe.
    let r = player.seek(295).unwrap();
    assert_eq!((r.start, r.resimulated), (SeekStart::Current(290), 5));
    assert!(player.seek(TICKS + 1).is_err());
}

#[test]
fn a_changed_build_is_caught_by_the_hashes_after_the_keyframe() {
    let (bytes, _) = record(KEYFRAMES);
    let replay = Replay::parse(&bytes).unwrap();
    let mut w = world();
    let schedule = w.schedule_systems();
    // This "build" adds a velocity nudge at tick 200.
    let perturbed = |w: &mut World, tick: u64, input: &[u8]| {
        apply(w, tick, input)?;
        if tick == 200 {
            for v in w
                .ecs_mut()
                .query_mut::<&mut Velocity<S>>()
                .into_iter()
                .take(1)
            {
                v.0.x += S::from_ratio(1, 65_536);
            }
        }
        Ok(())
    };
    let mut player =
        ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, perturbed)).unwrap();
    let before = player.seek(199).unwrap();
    assert!(before.divergence.is_none());
    let r = player.seek(250).unwrap();
    let d = r.divergence.expect("the nudge diverges");
    assert_eq!((d.tick, d.last_match), (201, Some(200)));
    // Past the next keyframe the recorded state is loaded again, and the
    // ticks after it re-simulate the same.
    let r = player.seek(260).unwrap();
    assert_eq!(r.start, SeekStart::Keyframe(256));
    assert!(r.divergence.is_none(), "{r}");
}

#[test]
fn two_recordings_are_bisected_to_their_first_differing_tick() {
    let (a, _) = record(KEYFRAMES);
    let (b, _) = record_changed(KEYFRAMES, Some(300));
    let (a, b) = (Replay::parse(&a).unwrap(), Replay::parse(&b).unwrap());
    let d = replay::first_difference(&a, &b)
        .unwrap()
        .expect("they differ");
    assert_eq!((d.tick, d.last_equal), (301, Some(300)));
    assert_eq!(d.keyframe, Some(256));
    assert_eq!(d.input, None);
    assert!(
        d.to_string()
            .contains("first differ at tick 301 (tick 300 is equal)"),
        "{d}"
    );
    assert_eq!(replay::first_difference(&a, &a).unwrap(), None);
    // Not one run: refused, naming the field.
    let mut rec = ReplayRecorder::new(Vec::new(), ReplayHeader::new(S::BACKEND, 12, 0)).unwrap();
    rec.record_hash(0, 0).unwrap();
    let c = Replay::parse(&rec.finish().unwrap()).unwrap();
    let e = replay::first_difference(&a, &c).unwrap_err();
    assert_eq!(e.field(), Some("seed"));
}

/// The byte offset of the keyframe record of `tick` in `bytes`.
fn keyframe_offset(bytes: &[u8], tick: u64) -> usize {
    let replay = Replay::parse(bytes).unwrap();
    let k = replay.keyframes().find(|k| k.tick == tick).unwrap();
    let needle = &k.bytes[..64];
    bytes.windows(64).position(|w| w == needle).unwrap()
}

#[test]
fn a_damaged_keyframe_is_reported_and_the_one_before_it_is_used() {
    let (mut bytes, hashes) = record(KEYFRAMES);
    // A flipped bit inside the snapshot of tick 128 (past its 32-byte
    // header: the body's checksum catches it).
    let at = keyframe_offset(&bytes, 128);
    bytes[at + 200] ^= 0x10;
    // The file still reads in full: inputs and hashes are intact.
    let replay = Replay::parse(&bytes).unwrap();
    assert!(replay.is_complete());
    let damaged: Vec<_> = replay.keyframes().filter(|k| k.damage.is_some()).collect();
    assert_eq!(damaged.len(), 1);
    let e = damaged[0].damage.unwrap();
    assert_eq!(e.id(), events::KEYFRAME_DAMAGED);
    assert_eq!((e.field(), e.value()), (Some("keyframe"), Some("128")));
    assert!(e.to_string().contains("body checksum"), "{e}");

    let mut w = world();
    let schedule = w.schedule_systems();
    let mut player = ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, apply)).unwrap();
    let r = player.seek(150).unwrap();
    assert_eq!(r.start, SeekStart::Keyframe(64));
    assert_eq!(r.resimulated, 86);
    assert_eq!(r.skipped.len(), 1);
    assert_eq!(r.skipped[0].0, 128);
    let text = r.to_string();
    assert!(
        text.contains("skipped") && text.contains("keyframe of tick 128"),
        "{text}"
    );
    assert_eq!(player.state_hash(), hashes[150]);
}

#[test]
fn with_the_first_keyframe_damaged_a_seek_starts_from_tick_zero() {
    let (mut bytes, hashes) = record(KEYFRAMES);
    let at = keyframe_offset(&bytes, 0);
    bytes[at + 100] ^= 1;
    let replay = Replay::parse(&bytes).unwrap();
    let mut w = world();
    let schedule = w.schedule_systems();
    let mut player = ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, apply)).unwrap();
    player.seek(40).unwrap();
    let r = player.seek(30).unwrap();
    assert_eq!((r.start, r.resimulated), (SeekStart::Origin, 30));
    assert_eq!(r.skipped.iter().map(|s| s.0).collect::<Vec<_>>(), [0]);
    assert!(r.to_string().contains("from tick 0"), "{r}");
    assert_eq!(player.state_hash(), hashes[30]);
}

#[test]
fn a_keyframe_of_another_world_is_skipped_when_it_does_not_load() {
    // A keyframe whose bytes are intact but belong to another world (a
    // registry the player's world lacks): refused on load, skipped.
    let (bytes, hashes) = record(KEYFRAMES);
    let replay = Replay::parse(&bytes).unwrap();
    let mut other = World::default();
    other
        .register_hashed_as::<Velocity<S>>("other.velocity")
        .unwrap();
    let mut foreign = Vec::new();
    other.encode_snapshot(&mut foreign).unwrap();
    // Rebuild the file with the tick-64 keyframe swapped for the foreign one.
    let mut rec = ReplayRecorder::new(Vec::new(), replay.header().clone()).unwrap();
    for r in replay.records() {
        match r {
            Record::Input { tick, payload } => rec.record_input_bytes(tick, payload).unwrap(),
            Record::Hash { tick, hash } => rec.record_hash(tick, hash).unwrap(),
            Record::Keyframe { tick: 64, .. } => rec.record_keyframe(64, &foreign).unwrap(),
            Record::Keyframe { tick, payload } => rec.record_keyframe(tick, payload).unwrap(),
            Record::End { .. } => {}
        }
    }
    let replay = Replay::parse(&rec.finish().unwrap()).unwrap();
    let mut w = world();
    let schedule = w.schedule_systems();
    let mut player = ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, apply)).unwrap();
    let r = player.seek(100).unwrap();
    // The player is at tick 0 already: nearer than the keyframe of tick 0.
    assert_eq!((r.start, r.resimulated), (SeekStart::Current(0), 100));
    assert_eq!(r.skipped.len(), 1);
    assert!(
        r.skipped[0].1.contains("bytes_mismatch"),
        "{}",
        r.skipped[0].1
    );
    assert_eq!(player.state_hash(), hashes[100]);
}

#[test]
fn a_torn_recording_keeps_its_prefix_and_its_keyframes() {
    let (bytes, hashes) = record(KEYFRAMES);
    // Cut inside the keyframe of tick 320.
    let at = keyframe_offset(&bytes, 320);
    let prefix = Replay::parse_prefix(&bytes[..at + 1000]).unwrap();
    assert!(prefix.is_torn());
    let replay = prefix.replay;
    assert_eq!(replay.ticks(), 320);
    assert_eq!(replay.keyframes().last().unwrap().tick, 256);
    let mut w = world();
    let schedule = w.schedule_systems();
    let mut player = ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, apply)).unwrap();
    let r = player.seek(320).unwrap();
    assert_eq!(r.start, SeekStart::Keyframe(256));
    assert_eq!(player.state_hash(), hashes[320]);
}

#[test]
fn version_one_files_still_read_and_unknown_versions_are_named() {
    let (bytes, _) = record(0);
    let v2 = Replay::parse(&bytes).unwrap();
    assert_eq!(v2.keyframes().len(), 0);
    // The same recording as version 1: the header without the keyframe
    // interval (the 4 bytes after the hash interval), its CRC redone.
    let id_len = usize::from(bytes[10]);
    let kf_at = 11 + id_len + 8 + 8 + 4;
    let v_len = usize::from(bytes[kf_at + 4]);
    let header_end = kf_at + 4 + 1 + v_len;
    let mut v1 = Vec::new();
    v1.extend_from_slice(&bytes[..kf_at]);
    v1.extend_from_slice(&bytes[kf_at + 4..header_end]);
    v1[8..10].copy_from_slice(&1_u16.to_le_bytes());
    let crc = crc32fast::hash(&v1);
    v1.extend_from_slice(&crc.to_le_bytes());
    v1.extend_from_slice(&bytes[header_end + 4..]);
    let old = Replay::parse(&v1).unwrap();
    assert_eq!(old.format_version(), 1);
    assert_eq!(old.header().keyframe_interval, 0);
    assert_eq!(old.ticks(), v2.ticks());
    assert!(old.checkpoints().eq(v2.checkpoints()));

    // A version this build does not know: refused, naming it.
    let mut v4 = bytes.clone();
    v4[8..10].copy_from_slice(&4_u16.to_le_bytes());
    let e = Replay::parse(&v4).unwrap_err();
    assert_eq!(e.id(), events::VERSION_UNSUPPORTED);
    assert_eq!((e.field(), e.value()), (Some("version"), Some("4")));
    assert!(e.to_string().contains("version 4"), "{e}");

    // A keyframe record in a version-1 file is damage.
    let (with_kf, _) = record(KEYFRAMES);
    let mut bad = with_kf.clone();
    bad[8..10].copy_from_slice(&1_u16.to_le_bytes());
    assert!(Replay::parse(&bad).is_err());
}

#[test]
fn the_recorder_refuses_a_keyframe_out_of_order() {
    let mut header = ReplayHeader::new(S::BACKEND, 1, 0);
    header.keyframe_interval = 4;
    let mut rec = ReplayRecorder::new(Vec::new(), header).unwrap();
    assert!(rec.wants_keyframe(0));
    let w = world();
    let mut snap = Vec::new();
    w.encode_snapshot(&mut snap).unwrap();
    assert!(rec.record_keyframe(1, &snap).is_err());
    rec.record_keyframe(0, &snap).unwrap();
    assert!(!rec.wants_keyframe(0));
    assert!(rec.record_keyframe(0, &snap).is_err());
    rec.record_hash(0, w.state_hash()).unwrap();
    for t in 0..4 {
        rec.record_input_bytes(t, &[]).unwrap();
        rec.record_hash(t + 1, 0).unwrap();
        assert_eq!(rec.wants_keyframe(t + 1), t + 1 == 4);
    }
    let mut h0 = ReplayHeader::new(S::BACKEND, 1, 0);
    h0.keyframe_interval = 0;
    let rec = ReplayRecorder::new(Vec::new(), h0).unwrap();
    assert!(!rec.wants_keyframe(0));
}

/// A recording that starts at `start` (a player who joined a running
/// game): the straight run's world up to `start` unrecorded, then its
/// keyframe, its hash, and every later tick as usual.
fn record_from(start: u64, keyframe_interval: u32) -> (Vec<u8>, Vec<u64>) {
    let mut w = world();
    let schedule = w.schedule_systems();
    let mut hashes = vec![w.state_hash()];
    for tick in 0..start {
        apply(&mut w, tick, &[input_at(tick)]).unwrap();
        w.run_systems(&schedule).unwrap();
        hashes.push(w.state_hash());
    }
    let mut header = ReplayHeader::new(S::BACKEND, 11, 0);
    header.keyframe_interval = keyframe_interval;
    header.start_tick = start;
    let mut rec = ReplayRecorder::new(Vec::new(), header).unwrap();
    assert_eq!(rec.next_tick(), start);
    // Nothing before the start keyframe.
    let e = rec.record_input_bytes(start, &[0]).unwrap_err();
    assert_eq!(e.field(), Some("tick"));
    assert!(rec.wants_keyframe(start) && rec.wants_hash(start));
    let mut snapshot = Vec::new();
    for tick in start..TICKS {
        if rec.wants_keyframe(tick) {
            snapshot.clear();
            w.encode_snapshot(&mut snapshot).unwrap();
            rec.record_keyframe(tick, &snapshot).unwrap();
        }
        if rec.wants_hash(tick) {
            rec.record_hash(tick, w.state_hash()).unwrap();
        }
        let input = [input_at(tick)];
        rec.record_input_bytes(tick, &input).unwrap();
        apply(&mut w, tick, &input).unwrap();
        w.run_systems(&schedule).unwrap();
        hashes.push(w.state_hash());
    }
    rec.record_hash(TICKS, w.state_hash()).unwrap();
    (rec.finish().unwrap(), hashes)
}

#[test]
fn a_recording_from_a_later_start_plays_from_its_start_keyframe() {
    // 250 is not a multiple of the keyframe interval: the start keyframe
    // is the start's own, the next ones fall on the interval.
    let start = 250;
    let (bytes, hashes) = record_from(start, KEYFRAMES);
    let replay = Replay::parse(&bytes).unwrap();
    assert_eq!(replay.format_version(), FORMAT_VERSION_V3);
    assert_eq!(
        (replay.start_tick(), replay.ticks(), replay.end_tick()),
        (start, TICKS - start, TICKS)
    );
    let kf: Vec<u64> = replay.keyframes().map(|k| k.tick).collect();
    assert_eq!(kf, [250, 256, 320, 384, 448, 512, 576]);
    assert_eq!(replay.input(start - 1), None);
    assert_eq!(replay.input(start), Some(&[input_at(start)][..]));
    assert_eq!(replay.hash_at(start), Some(hashes[start as usize]));

    // A fresh world (the game's registrations, tick 0): the player loads
    // the start keyframe and reaches every later tick's straight-run hash.
    let mut w = world();
    let schedule = w.schedule_systems();
    let mut player = ReplayPlayer::new(
        Replay::parse(&bytes).unwrap(),
        WorldTarget::new(&mut w, &schedule, apply),
    )
    .unwrap();
    assert_eq!(player.tick(), start);
    for tick in [599, 251, start, 300, 600] {
        let report = player.seek(tick).unwrap();
        assert!(report.divergence.is_none(), "{tick}: {report:?}");
        assert_eq!(player.state_hash(), hashes[tick as usize], "{tick}");
    }
    // Before the start: out of range, named.
    let e = player.seek(start - 1).unwrap_err();
    assert_eq!((e.field(), e.value()), (Some("tick"), Some("249")));
    assert!(e.to_string().contains("250..=600"), "{e}");

    // verify on a world that holds the start state: every hash matches;
    // on the world as set up (tick 0's state), the start tick diverges.
    let mut w = world();
    w.decode_snapshot(replay.start_keyframe().unwrap().bytes)
        .unwrap();
    let schedule = w.schedule_systems();
    let v = replay::verify(&replay, &mut WorldTarget::new(&mut w, &schedule, apply)).unwrap();
    assert!(v.divergence.is_none());
    assert_eq!((v.ticks, v.verified_ticks), (TICKS - start, TICKS));
    let mut w = world();
    let schedule = w.schedule_systems();
    let v = replay::verify(&replay, &mut WorldTarget::new(&mut w, &schedule, apply)).unwrap();
    assert_eq!(v.divergence.map(|d| d.tick), Some(start));
}

#[test]
fn a_later_start_without_its_keyframe_is_damage_and_cannot_be_played() {
    let start = 100;
    let (bytes, _) = record_from(start, 0);
    let replay = Replay::parse(&bytes).unwrap();
    assert_eq!(
        replay.keyframes().map(|k| k.tick).collect::<Vec<_>>(),
        [start]
    );
    // The keyframe record cut out: the records around it are intact, the
    // first input is refused as damage naming the missing keyframe.
    // The record starts 13 bytes (kind, tick, length) before its payload.
    let at = keyframe_offset(&bytes, start) - 13;
    let len = u32::from_le_bytes(bytes[at + 9..at + 13].try_into().unwrap()) as usize;
    let mut cut = bytes[..at].to_vec();
    cut.extend_from_slice(&bytes[at + 13 + len + 4..]);
    let e = Replay::parse(&cut).unwrap_err();
    assert_eq!(
        (e.field(), e.value()),
        (Some("keyframe_missing"), Some("100"))
    );
    let prefix = Replay::parse_prefix(&cut).unwrap();
    assert_eq!(prefix.replay.ticks(), 0);

    // The keyframe damaged: the file reads, the player refuses to start.
    let mut bad = bytes.clone();
    bad[at + 13 + len / 2] ^= 0x10;
    let replay = Replay::parse(&bad).unwrap();
    assert!(replay.start_keyframe().unwrap().damage.is_some());
    let mut w = world();
    let schedule = w.schedule_systems();
    let e = ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, apply)).unwrap_err();
    assert_eq!(e.id(), events::KEYFRAME_DAMAGED);
    assert_eq!((e.field(), e.value()), (Some("keyframe"), Some("100")));
}
