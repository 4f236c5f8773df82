//! Hostile and torn replay files: bounded reads, the header's hash
//! interval enforced, no vacuous verification, and a torn file's prefix
//! verified as what it is.

use laige_engine::core::{ErrorCode, MathBackend};
use laige_engine::sim::replay::{
    self, PrefixVerification, Replay, ReplayHeader, ReplayRecorder, WorldTarget,
};
use laige_engine::sim::{StateHash, World, events};

use super::{Scratch, bytes_read};

#[derive(Clone, Copy, StateHash)]
struct Counter(u32);

fn world() -> World {
    let mut w = World::default();
    w.register_hashed_as::<Counter>("counter").unwrap();
    w.register_system("count", 0, |ctx| {
        for c in ctx.query_mut::<&mut Counter>() {
            c.0 += 1;
        }
        Ok(())
    })
    .unwrap();
    w.spawn((Counter(0),));
    w
}

fn apply(w: &mut World, _tick: u64, input: &[u8]) -> laige_engine::Result<()> {
    for c in w.ecs_mut().query_mut::<&mut Counter>() {
        c.0 += u32::from(input.first().copied().unwrap_or(0));
    }
    Ok(())
}

/// A complete recording of `ticks` ticks with a hash after every one.
fn recording(ticks: u64) -> Vec<u8> {
    let mut w = world();
    let schedule = w.schedule_systems();
    let header = ReplayHeader::new(MathBackend::FixedPoint16_16, 1, 2);
    let mut rec = ReplayRecorder::new(Vec::new(), header).unwrap();
    rec.record_hash(0, w.state_hash()).unwrap();
    for t in 0..ticks {
        let input = [(t % 3) as u8];
        rec.record_input_bytes(t, &input).unwrap();
        apply(&mut w, t, &input).unwrap();
        w.run_systems(&schedule).unwrap();
        rec.record_hash(w.tick(), w.state_hash()).unwrap();
    }
    rec.finish().unwrap()
}

fn verify_prefix(bytes: &[u8]) -> laige_engine::Result<PrefixVerification> {
    let mut w = world();
    let schedule = w.schedule_systems();
    let prefix = Replay::parse_prefix(bytes)?;
    replay::verify_prefix(prefix, &mut WorldTarget::new(&mut w, &schedule, apply))
}

/// Offsets of the record boundaries of `bytes` (the header's end first).
fn boundaries(bytes: &[u8]) -> Vec<usize> {
    // Format version 2: the keyframe interval (4 bytes) after the hash
    // interval.
    let header_len = 8 + 2 + 1 + 17 + 8 + 8 + 4 + 4 + 1 + replay::ENGINE_VERSION.len() + 4;
    let mut at = vec![header_len];
    let mut pos = header_len;
    while pos < bytes.len() {
        let len = u32::from_le_bytes(bytes[pos + 9..pos + 13].try_into().unwrap()) as usize;
        pos += 13 + len + 4;
        at.push(pos);
    }
    at
}

/// Fault: every state-hash record stripped (before: "replay verified: 300
/// ticks, 0 state hashes match", exit 0).
#[test]
fn a_replay_without_its_hashes_is_damage_named_with_its_tick() {
    let bytes = recording(5);
    let ends = boundaries(&bytes);
    // Keep the header and the input and end records only.
    let mut stripped = bytes[..ends[0]].to_vec();
    for w in ends.windows(2) {
        if bytes[w[0]] != 2 {
            stripped.extend_from_slice(&bytes[w[0]..w[1]]);
        }
    }
    let e = Replay::parse(&stripped).unwrap_err();
    assert_eq!(e.id(), events::CORRUPT);
    assert_eq!((e.field(), e.value()), (Some("hash_missing"), Some("0")));
    // Dropping one hash mid-file names that tick.
    let mut one_gone = bytes[..ends[6]].to_vec(); // through the hash after tick 2
    one_gone.extend_from_slice(&bytes[ends[7]..]); // skip the hash after 3
    let e = Replay::parse(&one_gone).unwrap_err();
    assert_eq!((e.field(), e.value()), (Some("hash_missing"), Some("3")));
    assert!(
        e.detail().unwrap().contains("after 3 completed tick(s)"),
        "{e}"
    );
    // Damage inside the file is not a torn tail: the prefix is refused.
    let e = verify_prefix(&stripped).unwrap_err();
    assert_eq!(e.field(), Some("hash_missing"));
}

/// Fault: a playback that compares nothing (before: a success).
#[test]
fn a_verification_that_compared_nothing_fails() {
    let bytes = recording(3);
    let header_only = &bytes[..boundaries(&bytes)[0]];
    let e = verify_prefix(header_only).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Failed);
    assert_eq!(e.id(), events::NOTHING_VERIFIED);
    // A prefix handed to the full verification is refused by type of use.
    let prefix = Replay::parse_prefix(&bytes[..bytes.len() - 1]).unwrap();
    let mut w = world();
    let schedule = w.schedule_systems();
    let e = replay::verify(
        &prefix.replay,
        &mut WorldTarget::new(&mut w, &schedule, apply),
    )
    .unwrap_err();
    assert_eq!(e.id(), events::INCOMPLETE);
}

/// Fault: a recording torn at every record boundary and inside every
/// record (a crash, a kill, a full disk): the prefix verifies, reported
/// as torn with its tick, never as a full verification.
#[test]
fn a_torn_recording_verifies_its_prefix_and_says_so() {
    let bytes = recording(6);
    let ends = boundaries(&bytes);
    match verify_prefix(&bytes).unwrap() {
        PrefixVerification::Complete(v) => assert_eq!((v.ticks, v.checkpoints), (6, 7)),
        PrefixVerification::Torn(t) => panic!("a complete file reported torn: {t}"),
    }
    for cut in ends[1]..bytes.len() {
        let PrefixVerification::Torn(t) = verify_prefix(&bytes[..cut]).unwrap() else {
            panic!("cut {cut}: a torn file reported complete");
        };
        // Records whole before the cut: hash 0, then (input, hash) pairs.
        let whole = ends.iter().filter(|&&e| e <= cut).count() - 1;
        let ticks = (whole / 2) as u64;
        let verified = ((whole - 1) / 2) as u64;
        assert_eq!(t.torn_after_tick, ticks, "cut {cut}");
        assert_eq!(t.verification.verified_ticks, verified, "cut {cut}");
        assert!(t.verification.divergence.is_none());
        assert!(
            t.to_string().starts_with(&format!(
                "torn after tick {ticks}; verified ticks 0..{verified}"
            )),
            "cut {cut}: {t}"
        );
        assert!(matches!(t.damage.field(), Some("record" | "end_record")));
    }
}

/// Fault: a 1 GiB sparse file that is not a replay, and `/dev/zero`
/// (before: 1 GB read and 6 s before "not a laige replay"; the device
/// until out of memory). Refused on the magic, after reading the header.
#[test]
fn foreign_files_are_refused_on_their_header() {
    let dir = Scratch::new("replay-foreign");
    let sparse = dir.0.join("disk.img");
    let f = std::fs::File::create(&sparse).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    let before = bytes_read();
    for path in [sparse.as_path(), std::path::Path::new("/dev/zero")] {
        let e = Replay::read(path).unwrap_err();
        assert_eq!(e.id(), events::CORRUPT, "{}", path.display());
        assert_eq!(e.field(), Some("magic"), "{e}");
        assert!(e.detail().unwrap().contains("not a laige replay"), "{e}");
    }
    // Both are refused after their first bytes (the bound leaves room for
    // the parallel tests' own reads).
    assert!(bytes_read() - before < 64 << 20);

    // A valid header followed by a gigabyte of zeros: the first record
    // fails its check; nothing after it is read.
    let head = &recording(0)[..boundaries(&recording(0))[0]];
    let path = dir.file("zeros.lrp", head);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let before = bytes_read();
    let p = Replay::read_prefix(&path).unwrap();
    assert!(bytes_read() - before < 64 << 20);
    assert_eq!(p.replay.ticks(), 0);
    assert!(!p.is_torn(), "zeros are damage, not a torn tail");
    assert_eq!(p.damage.unwrap().field(), Some("record_crc"));
}
