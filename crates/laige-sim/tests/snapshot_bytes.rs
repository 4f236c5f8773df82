//! Encoded snapshots: a world decoded from its bytes has the same state
//! hash and the same future (entity allocator, resources, generator), on
//! both backends; bad bytes — truncated, flipped, oversized counts,
//! another build's layout, a type without a codec — are errors that name
//! what is wrong and leave the world untouched.

use laige_core::{ErrorCode, Fp32Pinned, Fpx16_16, SimScalar};
use laige_sim::snapshot::{
    SNAPSHOT_FLAG_LZ4, SNAPSHOT_HEADER_LEN, SnapshotCompression, SnapshotRing,
};
use laige_sim::workload::{self, WorkloadConfig};
use laige_sim::{StateHash, StateHasher, SystemSchedule, World, events};
use proptest::prelude::*;

fn workload_world<S: SimScalar + StateHash>(entities: u32) -> (World, SystemSchedule) {
    let mut world = World::default();
    let config = WorkloadConfig {
        entities,
        ..WorkloadConfig::default()
    };
    workload::install::<S>(&mut world, &config).unwrap();
    let schedule = world.schedule_systems();
    (world, schedule)
}

#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
struct Life(u32);
#[derive(Clone, Debug, PartialEq, StateHash)]
enum Tag {
    Plain,
    Named { id: u32, trail: Vec<i16> },
}
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
struct Score {
    left: u32,
    right: u32,
}

/// A world with churn (spawns, despawns, two archetypes, reused ids) and
/// a hashed resource the system changes.
fn churn_world() -> (World, SystemSchedule) {
    let mut world = World::default();
    world.register_hashed_as::<Life>("test.life").unwrap();
    world.register_hashed_as::<Tag>("test.tag").unwrap();
    world
        .insert_hashed_resource("test.score", Score { left: 0, right: 0 })
        .unwrap();
    world
        .register_system("churn", 0, |ctx| {
            let tick = u32::try_from(ctx.tick()).unwrap();
            let mut dead = [hecs::Entity::DANGLING; 8];
            let mut n_dead = 0;
            for (e, life) in ctx.query_mut::<(hecs::Entity, &mut Life)>() {
                life.0 = life.0.saturating_sub(1);
                if life.0 == 0 && n_dead < dead.len() {
                    dead[n_dead] = e;
                    n_dead += 1;
                }
            }
            for &e in &dead[..n_dead] {
                ctx.despawn(e)?;
            }
            ctx.spawn((Life(1 + tick % 7),));
            if tick % 3 == 0 {
                let tag = if tick % 2 == 0 {
                    Tag::Plain
                } else {
                    Tag::Named {
                        id: tick,
                        trail: vec![-1, i16::try_from(tick % 100).unwrap()],
                    }
                };
                ctx.spawn((Life(2 + tick % 5), tag));
            }
            let score = ctx.resource_mut::<Score>()?;
            score.left += tick % 2;
            score.right += 1;
            Ok(())
        })
        .unwrap();
    for i in 0..6 {
        world.spawn((Life(1 + i),));
    }
    let schedule = world.schedule_systems();
    (world, schedule)
}

fn handles(world: &World) -> Vec<u64> {
    let mut v: Vec<u64> = world
        .ecs()
        .iter()
        .map(|e| e.entity().to_bits().get())
        .collect();
    v.sort_unstable();
    v
}

/// Encodes `source` at its tick, decodes into `fresh`, and checks both
/// run the same `ticks` more ticks with equal hashes and handles.
fn same_future(
    source: &mut World,
    schedule: &SystemSchedule,
    fresh: &mut World,
    fresh_schedule: &SystemSchedule,
    ticks: u32,
) {
    let mut bytes = Vec::new();
    source.encode_snapshot(&mut bytes).unwrap();
    fresh.decode_snapshot(&bytes).unwrap();
    assert_eq!(fresh.tick(), source.tick());
    assert_eq!(fresh.state_hash(), source.state_hash());
    assert_eq!(handles(fresh), handles(source));
    for _ in 0..ticks {
        source.run_systems(schedule).unwrap();
        fresh.run_systems(fresh_schedule).unwrap();
        assert_eq!(
            fresh.state_hash(),
            source.state_hash(),
            "tick {}",
            source.tick()
        );
        assert_eq!(handles(fresh), handles(source));
    }
}

#[test]
fn a_decoded_churning_world_has_the_same_hash_and_future() {
    let (mut source, schedule) = churn_world();
    for _ in 0..45 {
        source.run_systems(&schedule).unwrap();
    }
    assert!(source.ecs().freelist().len() > 0, "the churn frees ids");
    let (mut fresh, fresh_schedule) = churn_world();
    same_future(&mut source, &schedule, &mut fresh, &fresh_schedule, 40);
}

fn workload_round_trip<S: SimScalar + StateHash>() {
    let (mut source, schedule) = workload_world::<S>(300);
    for _ in 0..30 {
        source.run_systems(&schedule).unwrap();
    }
    let (mut fresh, fresh_schedule) = workload_world::<S>(300);
    same_future(&mut source, &schedule, &mut fresh, &fresh_schedule, 30);
}

#[test]
fn the_workload_round_trips_on_both_backends() {
    workload_round_trip::<Fpx16_16>();
    workload_round_trip::<Fp32Pinned>();
}

#[test]
fn a_ring_slot_encodes_what_it_saved() {
    let (mut world, schedule) = churn_world();
    let mut ring = SnapshotRing::new(&world, 2).unwrap();
    for _ in 0..20 {
        world.run_systems(&schedule).unwrap();
    }
    let at_20 = ring.save_hashed(0, &world).unwrap();
    for _ in 0..5 {
        world.run_systems(&schedule).unwrap();
    }
    let mut bytes = Vec::new();
    ring.encode(0, &world, &mut bytes).unwrap();
    // Decoded into the other slot of the same ring, then loaded.
    ring.decode(1, &world, &bytes).unwrap();
    ring.load(1, &mut world).unwrap();
    assert_eq!(world.tick(), 20);
    assert_eq!(world.state_hash(), at_20);
    // An empty slot does not encode.
    let other = SnapshotRing::new(&world, 1).unwrap();
    let err = other.encode(0, &world, &mut bytes).unwrap_err();
    assert_eq!(err.id(), events::SNAPSHOT_SLOT_INVALID);
}

fn encoded(world: &World) -> Vec<u8> {
    let mut bytes = Vec::new();
    world.encode_snapshot(&mut bytes).unwrap();
    bytes
}

/// Recomputes the header's body checksum after a change of the body or
/// the flags (to reach the checks behind the checksum).
fn reseal(bytes: &mut [u8]) {
    let flags = u16::from_le_bytes([bytes[10], bytes[11]]);
    let sum = body_sum(&bytes[SNAPSHOT_HEADER_LEN..], flags);
    bytes[20..28].copy_from_slice(&sum.to_le_bytes());
}

/// The version-2 body checksum as the format defines it, word by word:
/// the test's own. Eight lanes of little-endian `u64` words (the tail
/// zero-padded to 64 bytes), `A[j] += w` and `B[j] += A[j]` per stripe,
/// `h = Σ A[j]·C[j] + B[j]·E[j]`, then `mix(h ^ mix(len ^ flags << 48 ^
/// seed))` with the MurmurHash3 finalizer.
fn body_sum(body: &[u8], flags: u16) -> u64 {
    const C: [u64; 8] = [
        0x0025_603b_b4fb_59e5,
        0xb8f8_dd45_de47_becd,
        0x6870_471e_e1a6_851f,
        0xbd1a_3c48_e9d0_99e5,
        0xc91e_c8c6_8812_817d,
        0xbd90_99b1_46ef_0d65,
        0xc260_b09f_bcd5_5561,
        0xfae2_3239_9c2f_11a9,
    ];
    const E: [u64; 8] = [
        0x0ebd_3ced_0b89_0c62,
        0x141d_29af_dc2f_ea2a,
        0x3994_ef88_ddfb_4b8a,
        0xf696_e158_fae3_6672,
        0xe8d0_5409_5a09_8bb6,
        0x65d3_4636_b261_a7be,
        0xd28c_2c50_c49a_2166,
        0xc519_d217_e06a_7d2a,
    ];
    fn mix(mut x: u64) -> u64 {
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
    let mut padded = body.to_vec();
    padded.resize(body.len().next_multiple_of(64), 0);
    let (mut a, mut b) = ([0_u64; 8], [0_u64; 8]);
    for stripe in padded.chunks(64) {
        for j in 0..8 {
            let w = u64::from_le_bytes(stripe[8 * j..8 * j + 8].try_into().unwrap());
            a[j] = a[j].wrapping_add(w);
            b[j] = b[j].wrapping_add(a[j]);
        }
    }
    let h = (0..8).fold(0_u64, |h, j| {
        h.wrapping_add(a[j].wrapping_mul(C[j]))
            .wrapping_add(b[j].wrapping_mul(E[j]))
    });
    let seed = body.len() as u64 ^ (u64::from(flags) << 48) ^ 0x6c61_6967_655f_7632;
    mix(h ^ mix(seed))
}

fn fingerprint(world: &World) -> (u64, u64, Vec<u64>) {
    (world.tick(), world.state_hash(), handles(world))
}

/// A churned world (the target) that a bad decode must leave as it is.
fn target() -> World {
    let (mut w, s) = churn_world();
    for _ in 0..7 {
        w.run_systems(&s).unwrap();
    }
    w
}

#[test]
fn every_truncation_and_every_flipped_byte_is_refused_and_changes_nothing() {
    let (mut source, schedule) = churn_world();
    for _ in 0..33 {
        source.run_systems(&schedule).unwrap();
    }
    let bytes = encoded(&source);
    let mut world = target();
    let before = fingerprint(&world);
    for n in 0..bytes.len() {
        let err = world.decode_snapshot(&bytes[..n]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "prefix {n}: {err}");
        assert_eq!(err.field(), Some("bytes"));
    }
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 1 << (i % 8);
        let err = world.decode_snapshot(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "flip at {i}: {err}");
        // Damage is named by the checksum, whatever the decode met first.
        // (The header's other fields are refused by their own checks.)
        if (20..28).contains(&i) || i >= SNAPSHOT_HEADER_LEN {
            assert!(err.to_string().contains("checksum"), "flip at {i}: {err}");
        }
    }
    assert_eq!(fingerprint(&world), before);
    world.decode_snapshot(&bytes).unwrap();
    assert_eq!(world.state_hash(), source.state_hash());
}

/// Byte offset of the live-entity count in the body of a churn world's
/// snapshot: after the tick, the two component names and the parts.
fn find_u64(body: &[u8], value: u64) -> usize {
    body.windows(8)
        .position(|w| w == value.to_le_bytes())
        .expect("the value is in the body")
}

#[test]
fn oversized_counts_behind_a_valid_checksum_are_refused() {
    let (mut source, schedule) = churn_world();
    for _ in 0..12 {
        source.run_systems(&schedule).unwrap();
    }
    let bytes = encoded(&source);
    let live = source.ecs().len() as u64;
    let mut world = target();
    let before = fingerprint(&world);
    let body = &bytes[SNAPSHOT_HEADER_LEN..];
    // The first u64 equal to the live count after the registry is it.
    let at = SNAPSHOT_HEADER_LEN + find_u64(&body[8..], live) + 8;
    for huge in [u64::MAX, 1 << 40, live + 1_000_000] {
        let mut bad = bytes.clone();
        bad[at..at + 8].copy_from_slice(&huge.to_le_bytes());
        reseal(&mut bad);
        let err = world.decode_snapshot(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
        assert!(err.to_string().contains("live entity count"), "{err}");
    }
    // A body length past the limit is refused from the header alone.
    let mut bad = bytes.clone();
    bad[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    let err = world.decode_snapshot(&bad).unwrap_err();
    assert!(err.to_string().contains("body length"), "{err}");
    assert_eq!(fingerprint(&world), before);
}

/// Handle ids that are not each of `0..live + free` exactly once (one
/// repeated, one past the range) are refused behind a valid checksum.
#[test]
fn entity_ids_not_covering_the_allocator_once_are_refused() {
    let (mut source, schedule) = churn_world();
    for _ in 0..12 {
        source.run_systems(&schedule).unwrap();
    }
    let bytes = encoded(&source);
    let live = source.ecs().len() as u64;
    let mut world = target();
    let before = fingerprint(&world);
    let at = SNAPSHOT_HEADER_LEN + find_u64(&bytes[SNAPSHOT_HEADER_LEN + 8..], live) + 16;
    let handle =
        |i: usize| u64::from_le_bytes(bytes[at + 8 * i..at + 8 * i + 8].try_into().unwrap());
    let generation = |bits: u64| bits & !0xffff_ffff;
    // The second live handle with the first's id; then with an id past all.
    for id in [handle(0) & 0xffff_ffff, 1 << 20] {
        let mut bad = bytes.clone();
        let bits = generation(handle(1)) | id;
        bad[at + 8..at + 16].copy_from_slice(&bits.to_le_bytes());
        reseal(&mut bad);
        let err = world.decode_snapshot(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
        assert!(err.to_string().contains("live entity id"), "{err}");
    }
    assert_eq!(fingerprint(&world), before);
}

/// A world whose handles hold ids 0, 1, 2, ... in order (checked by
/// position, without marks) that leave that order in a later batch of
/// handles: a repeat of an id from an earlier batch and an id past the
/// range are refused; two ids swapped across batches (still each once)
/// decode.
#[test]
fn ids_leaving_their_order_after_the_first_batch_are_still_checked() {
    let (source, _) = workload_world::<Fpx16_16>(1_200);
    let bytes = encoded(&source);
    let at = SNAPSHOT_HEADER_LEN + find_u64(&bytes[SNAPSHOT_HEADER_LEN + 8..], 1_200) + 16;
    let handle =
        |i: usize| u64::from_le_bytes(bytes[at + 8 * i..at + 8 * i + 8].try_into().unwrap());
    assert!(
        (0..1_200).all(|i| handle(i) & 0xffff_ffff == i as u64),
        "the workload's ids are in order"
    );
    let set = |bad: &mut Vec<u8>, i: usize, id: u64| {
        let bits = (handle(i) & !0xffff_ffff) | id;
        bad[at + 8 * i..at + 8 * i + 8].copy_from_slice(&bits.to_le_bytes());
    };
    let (mut world, _) = workload_world::<Fpx16_16>(10);
    let before = fingerprint(&world);
    for (i, id) in [(700, 3), (1_199, 1_200), (1_199, 1 << 20), (513, 512)] {
        let mut bad = bytes.clone();
        set(&mut bad, i, id);
        reseal(&mut bad);
        let err = world.decode_snapshot(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
        assert!(err.to_string().contains("live entity id"), "{err}");
    }
    assert_eq!(fingerprint(&world), before);
    let mut swapped = bytes.clone();
    set(&mut swapped, 5, 900);
    set(&mut swapped, 900, 5);
    reseal(&mut swapped);
    let mut ring = SnapshotRing::new(&world, 1).unwrap();
    ring.decode(0, &world, &swapped).unwrap();
    let ids: Vec<u32> = ring
        .get(0)
        .unwrap()
        .entities()
        .iter()
        .map(|e| e.id())
        .collect();
    assert_eq!((ids[5], ids[900], ids[6]), (900, 5, 6));
}

#[test]
fn another_builds_layout_is_refused_naming_the_first_differing_type() {
    #[derive(Clone, Copy, Debug, PartialEq, StateHash)]
    struct Life(u64); // widened
    let (source, _) = churn_world();
    let bytes = encoded(&source);

    let mut other = World::default();
    other.register_hashed_as::<Life>("test.life").unwrap();
    other.register_hashed_as::<Tag>("test.tag").unwrap();
    other
        .insert_hashed_resource("test.score", Score { left: 0, right: 0 })
        .unwrap();
    let before = fingerprint(&other);
    let err = other.decode_snapshot(&bytes).unwrap_err();
    assert_eq!(err.id(), events::SNAPSHOT_BYTES_MISMATCH);
    assert_eq!(err.field(), Some("component type layout"));
    assert!(err.to_string().contains("test.life"), "{err}");

    let mut fewer = World::default();
    fewer.register_hashed_as::<Tag>("test.tag").unwrap();
    let err = fewer.decode_snapshot(&bytes).unwrap_err();
    assert_eq!(err.id(), events::SNAPSHOT_BYTES_MISMATCH);
    assert!(err.to_string().contains("test.life"), "{err}");

    let (mut renamed_res, _) = {
        let mut w = World::default();
        w.register_hashed_as::<self::Life>("test.life").unwrap();
        w.register_hashed_as::<Tag>("test.tag").unwrap();
        w.insert_hashed_resource("test.points", Score { left: 0, right: 0 })
            .unwrap();
        let s = w.schedule_systems();
        (w, s)
    };
    let err = renamed_res.decode_snapshot(&bytes).unwrap_err();
    assert_eq!(err.id(), events::SNAPSHOT_BYTES_MISMATCH);
    assert_eq!(err.field(), Some("hashed resource"));
    assert!(err.to_string().contains("test.score"), "{err}");
    assert_eq!(fingerprint(&other), before);
}

/// A hand-written `StateHash` without a codec.
#[derive(Clone, Copy, Debug)]
struct Opaque(u32);
impl StateHash for Opaque {
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u32(self.0);
    }
}

#[test]
fn a_type_without_a_codec_is_named_and_nothing_is_written() {
    let mut world = World::default();
    world.register_hashed_as::<Opaque>("test.opaque").unwrap();
    world.spawn((Opaque(3),));
    let mut out = vec![1, 2, 3];
    let err = world.encode_snapshot(&mut out).unwrap_err();
    assert_eq!(err.id(), events::SNAPSHOT_UNENCODABLE);
    assert_eq!(err.field(), Some("component"));
    assert!(err.to_string().contains("test.opaque"), "{err}");
    assert_eq!(out, [1, 2, 3]);

    let mut world = World::default();
    world
        .insert_hashed_resource("test.opaque", Opaque(1))
        .unwrap();
    let err = world.encode_snapshot(&mut out).unwrap_err();
    assert_eq!(err.field(), Some("resource"));
    assert_eq!(out, [1, 2, 3]);
}

fn compressed(world: &World) -> Vec<u8> {
    let mut bytes = Vec::new();
    world
        .encode_snapshot_with(&mut bytes, SnapshotCompression::Lz4)
        .unwrap();
    bytes
}

#[test]
fn an_lz4_snapshot_is_smaller_and_decodes_to_the_same_world() {
    let (mut source, schedule) = workload_world::<Fpx16_16>(2_000);
    for _ in 0..20 {
        source.run_systems(&schedule).unwrap();
    }
    let raw = encoded(&source);
    let lz4 = compressed(&source);
    assert_eq!(u16::from_le_bytes([lz4[10], lz4[11]]), SNAPSHOT_FLAG_LZ4);
    assert_eq!(u16::from_le_bytes([raw[10], raw[11]]), 0);
    assert!(lz4.len() < raw.len(), "{} vs {}", lz4.len(), raw.len());
    let (mut fresh, fresh_schedule) = workload_world::<Fpx16_16>(2_000);
    fresh.decode_snapshot(&lz4).unwrap();
    assert_eq!(fresh.state_hash(), source.state_hash());
    // The decoded world encodes to the same raw bytes, and runs on alike.
    assert_eq!(encoded(&fresh), raw);
    for _ in 0..10 {
        source.run_systems(&schedule).unwrap();
        fresh.run_systems(&fresh_schedule).unwrap();
    }
    assert_eq!(fresh.state_hash(), source.state_hash());
}

#[test]
fn damaged_lz4_bytes_are_refused_and_change_nothing() {
    let (mut source, schedule) = churn_world();
    for _ in 0..30 {
        source.run_systems(&schedule).unwrap();
    }
    let bytes = compressed(&source);
    let mut world = target();
    let before = fingerprint(&world);
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 1 << (i % 8);
        let err = world.decode_snapshot(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "flip at {i}: {err}");
    }
    // A raw length no block of this size can produce is refused before
    // its buffer is reserved (behind a valid checksum).
    for raw_len in [u64::MAX, 1 << 30, 1 << 29] {
        let mut bad = bytes.clone();
        let at = SNAPSHOT_HEADER_LEN;
        bad[at..at + 8].copy_from_slice(&raw_len.to_le_bytes());
        reseal(&mut bad);
        let err = world.decode_snapshot(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
        assert!(err.to_string().contains("LZ4 raw length"), "{err}");
    }
    // Another raw length within the bound: the block does not fill it.
    let mut bad = bytes.clone();
    let at = SNAPSHOT_HEADER_LEN;
    let stated = u64::from_le_bytes(bad[at..at + 8].try_into().unwrap());
    bad[at..at + 8].copy_from_slice(&(stated + 1).to_le_bytes());
    reseal(&mut bad);
    let err = world.decode_snapshot(&bad).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
    // An undefined flag is refused.
    let mut bad = bytes.clone();
    bad[10] |= 2;
    let err = world.decode_snapshot(&bad).unwrap_err();
    assert!(err.to_string().contains("flags"), "{err}");
    assert_eq!(fingerprint(&world), before);
    world.decode_snapshot(&bytes).unwrap();
    assert_eq!(world.state_hash(), source.state_hash());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random damage inside an LZ4 body behind a valid checksum: an error
    /// that leaves the world as it was, or a world whose raw encoding the
    /// damaged block decompressed to.
    #[test]
    fn resealed_lz4_damage_never_panics_and_never_half_loads(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let (mut source, schedule) = churn_world();
        for _ in 0..25 {
            source.run_systems(&schedule).unwrap();
        }
        let mut bad = compressed(&source);
        for (i, v) in &edits {
            let at = SNAPSHOT_HEADER_LEN + 8 + i.index(bad.len() - SNAPSHOT_HEADER_LEN - 8);
            bad[at] = *v;
        }
        reseal(&mut bad);
        let mut world = target();
        let before = fingerprint(&world);
        match world.decode_snapshot(&bad) {
            Ok(()) => {
                let mut again = Vec::new();
                world.encode_snapshot_with(&mut again, SnapshotCompression::Lz4).unwrap();
                let mut fresh = target();
                fresh.decode_snapshot(&again).unwrap();
                prop_assert_eq!(fresh.state_hash(), world.state_hash());
            }
            Err(e) => {
                prop_assert!(
                    e.id() == events::SNAPSHOT_BYTES_CORRUPT || e.id() == events::SNAPSHOT_BYTES_MISMATCH,
                    "{}", e
                );
                prop_assert_eq!(fingerprint(&world), before);
            }
        }
    }

    /// Random damage behind a valid checksum: an error that leaves the
    /// world as it was, or a decode whose world re-encodes to the same
    /// bytes (the damage hit only values, which are then state).
    #[test]
    fn resealed_damage_never_panics_and_never_half_loads(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let (mut source, schedule) = churn_world();
        for _ in 0..25 {
            source.run_systems(&schedule).unwrap();
        }
        let mut bad = encoded(&source);
        for (i, v) in &edits {
            let at = SNAPSHOT_HEADER_LEN + i.index(bad.len() - SNAPSHOT_HEADER_LEN);
            bad[at] = *v;
        }
        if let Some(c) = cut {
            let n = SNAPSHOT_HEADER_LEN + c.index(bad.len() - SNAPSHOT_HEADER_LEN);
            bad.truncate(n);
            let len = (n - SNAPSHOT_HEADER_LEN) as u64;
            bad[12..20].copy_from_slice(&len.to_le_bytes());
        }
        reseal(&mut bad);
        let mut world = target();
        let before = fingerprint(&world);
        match world.decode_snapshot(&bad) {
            Ok(()) => {
                prop_assert_eq!(encoded(&world), bad);
            }
            Err(e) => {
                prop_assert!(
                    e.id() == events::SNAPSHOT_BYTES_CORRUPT || e.id() == events::SNAPSHOT_BYTES_MISMATCH,
                    "{}", e
                );
                prop_assert_eq!(fingerprint(&world), before);
            }
        }
    }
}

/// FNV-1a 64 of `bytes` (the test's own).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The churn world at tick 45 and the 64-entity fixed-point workload at
/// tick 10: the worlds whose encodings are pinned.
fn pinned_worlds() -> (World, World) {
    let (mut churn, schedule) = churn_world();
    for _ in 0..45 {
        churn.run_systems(&schedule).unwrap();
    }
    let (mut fx, schedule) = workload_world::<Fpx16_16>(64);
    for _ in 0..10 {
        fx.run_systems(&schedule).unwrap();
    }
    (churn, fx)
}

/// Version 1 of the format (CRC-32, a 24-byte header) is still read: the
/// keyframes of older recordings carry it. These are the pinned worlds'
/// encodings by the last build that wrote version 1 (their FNV-1a 64s are
/// that build's pins); each decodes into its world, whose encoding now is
/// version 2. Damage to them is refused as before.
#[test]
fn version_1_bytes_still_decode() {
    let (churn, fx) = pinned_worlds();
    let v1_churn = include_bytes!("fixtures/snapshot_v1_churn.bin");
    let v1_fx = include_bytes!("fixtures/snapshot_v1_fx64.bin");
    assert_eq!(
        (v1_churn.len(), fnv1a(v1_churn)),
        (570, 12_090_478_631_266_518_309)
    );
    assert_eq!(
        (v1_fx.len(), fnv1a(v1_fx)),
        (2527, 17_809_236_421_443_696_725)
    );
    let targets = [
        (&v1_churn[..], &churn, target()),
        (&v1_fx[..], &fx, workload_world::<Fpx16_16>(64).0),
    ];
    for (v1, source, mut world) in targets {
        assert_eq!(u16::from_le_bytes([v1[8], v1[9]]), 1);
        world.decode_snapshot(v1).unwrap();
        assert_eq!(fingerprint(&world), fingerprint(source));
        assert_eq!(encoded(&world), encoded(source));
        let before = fingerprint(&world);
        for i in (0..v1.len()).step_by(7) {
            let mut bad = v1.to_vec();
            bad[i] ^= 1 << (i % 8);
            let err = world.decode_snapshot(&bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::Corrupt, "flip at {i}: {err}");
        }
        let err = world.decode_snapshot(&v1[..v1.len() - 1]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
        assert_eq!(fingerprint(&world), before);
    }
}

/// The format's bytes are pinned: the encodings of two small worlds (an
/// integer-only churning world with a free list, an enum column, a
/// `Vec` field and a hashed resource; the fixed-point workload) have the
/// sizes and FNV-1a 64 hashes version 2 of the format gave when these
/// values were taken. A faster codec must write the same bytes, so an
/// encoded snapshot of an older build keeps decoding.
#[test]
fn the_encoding_of_small_worlds_is_pinned() {
    let (churn, fx) = pinned_worlds();
    let bytes = encoded(&churn);
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 2);
    assert_eq!(
        (bytes.len(), fnv1a(&bytes)),
        (578, 15_371_973_479_360_127_101),
        "churn world"
    );
    let bytes = encoded(&fx);
    assert_eq!(
        (bytes.len(), fnv1a(&bytes)),
        (2535, 11_429_586_614_771_560_550),
        "Fpx16_16 workload"
    );
    // The pinned bytes decode into the world they came from.
    let (mut fresh, _) = workload_world::<Fpx16_16>(64);
    fresh.decode_snapshot(&bytes).unwrap();
    assert_eq!(fresh.state_hash(), fx.state_hash());
    assert_eq!(encoded(&fresh), bytes);
}

/// A ring decodes into buffers it reuses (a failed decode's half-filled
/// ones too): every failed decode leaves the slot as it was, and each
/// decode after one gives exactly the encoded world.
#[test]
fn a_ring_reusing_its_decode_buffers_after_failures_decodes_exactly() {
    let (mut world, schedule) = churn_world();
    let mut ring = SnapshotRing::new(&world, 2).unwrap();
    let mut encodings = Vec::new();
    for _ in 0..3 {
        for _ in 0..9 {
            world.run_systems(&schedule).unwrap();
        }
        let hash = ring.save_hashed(0, &world).unwrap();
        let mut bytes = Vec::new();
        ring.encode(0, &world, &mut bytes).unwrap();
        encodings.push((world.tick(), hash, bytes));
    }
    for (round, (tick, hash, bytes)) in encodings.iter().enumerate() {
        // Damaged copies first: each fails part-way through the body.
        for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes[..cut].to_vec();
            let len = (cut - SNAPSHOT_HEADER_LEN) as u64;
            bad[12..20].copy_from_slice(&len.to_le_bytes());
            reseal(&mut bad);
            assert!(
                ring.decode(1, &world, &bad).is_err(),
                "round {round}, cut {cut}"
            );
            if round > 0 {
                // The slot still holds the previous round's decode.
                assert_eq!(ring.get(1).unwrap().tick(), encodings[round - 1].0);
            }
        }
        ring.decode(1, &world, bytes).unwrap();
        ring.load(1, &mut world).unwrap();
        assert_eq!((world.tick(), world.state_hash()), (*tick, *hash));
        assert_eq!(&encoded(&world), bytes);
    }
}
