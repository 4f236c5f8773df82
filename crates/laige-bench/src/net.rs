//! Bench area `net`: whole-world snapshots (`laige_sim::snapshot`) on the
//! 10k-entity reference workload, beside a plain copy of the same
//! component bytes and beside Clone-per-component snapshots (the approach
//! of bevy_ggrs: each registered component of each entity cloned through
//! a per-entity lookup into a fresh buffer), all on the same hecs world,
//! measured interleaved in one run.
//!
//! - `net.snapshot.<fx|fp>.10k.{save,load,copy_out,copy_in,clone_save,clone_load}_us`:
//!   median µs per operation. `save`/`load`: `SnapshotRing::save` (a
//!   copy: a session hashes only the saves it exchanges checksums of) /
//!   `load` (same layout: values copied back). `copy_out`/`copy_in`: the three
//!   component columns copied into / out of preallocated `Vec`s (the
//!   memory-bandwidth floor). `clone_save`/`clone_load`: the anchor.
//! - `net.snapshot.<b>.10k.save_vs_copy` / `load_vs_copy`: ours over the
//!   plain copy; `save_vs_clone` / `load_vs_clone`: ours over the anchor.
//! - `net.rollback.<b>.10k.frame_ms`: the worst-case rollback frame: one
//!   load, then 8 ticks each followed by a save (GGRS's default window),
//!   as a P2P session does it: the saves of ticks on the desync interval
//!   (`laige_net::DESYNC_INTERVAL`, 1 of any 8) also compute the state
//!   hash and the per-type hashes the checksum folds in.
//!   `net.rollback.<b>.10k.plain_hash_frame_ms`: the same frame, interleaved,
//!   with the hashed save's state hash computed the plain way (below).
//! - `net.state_hash.<b>.10k.{ours,plain}_us`: `World::state_hash` beside
//!   the same hash computed the plain way (every record byte through
//!   FNV-1a, the records sorted by `sort_unstable`), interleaved.
//! - `net.type_hash.<b>.10k.pct_of_tick`: every per-type hash of one
//!   snapshot (what a desync report exchanges per confirmed tick) as a
//!   share of one tick of the workload, the two measured interleaved: the
//!   median over 200 rounds of each round's share (a ratio of two medians
//!   does not cancel the load drift between rounds);
//!   `.ratio_of_medians` beside it, the figure as it was before.
//! - `net.snapshot_bytes.<b>.10k.{encode,decode,decode_load,copy}_us`: a
//!   saved slot encoded as snapshot bytes into a reused buffer
//!   (`SnapshotRing::encode`), those bytes decoded into a slot
//!   (`SnapshotRing::decode`, every byte checked), decoded and loaded into
//!   a world (`World::decode_snapshot`: what a joining peer does once), and
//!   the plain copy of the component columns, interleaved;
//!   `encode_vs_copy` / `decode_vs_copy` are the ratios, `bytes_per_entity`
//!   the encoded size over the entity count; `{encode,decode}_lz4_us`,
//!   `lz4_bytes_per_entity` and `lz4_ratio` the same with
//!   `SnapshotCompression::Lz4` (no budget: reported).
//! - `net.integrity.*`: the integrity tag's cost per datagram and per
//!   60 Hz tick (`net_integrity`).
//! - `net.join.*`: joining a session in progress (`net_join`).
//! - `net.webrtc.*`: a session over WebRTC beside UDP (`net_webrtc`,
//!   feature `webrtc`).

use std::hint::black_box;

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar};
use laige_sim::snapshot::{SnapshotCompression, SnapshotRing};
use laige_sim::workload::{self, Position, PrevPosition, Velocity, WorkloadConfig};
use laige_sim::{FNV1A64_OFFSET, StateHash, StateHasher, World};

use crate::harness::{Bench, paired_ratio};

/// Runs the area.
pub fn run(b: &mut Bench) {
    if b.wants("net.snapshot.fx")
        || b.wants("net.rollback.fx")
        || b.wants("net.state_hash.fx")
        || b.wants("net.type_hash.fx")
    {
        backend::<Fpx16_16>(b, "fx");
    }
    if b.wants("net.snapshot.fp")
        || b.wants("net.rollback.fp")
        || b.wants("net.state_hash.fp")
        || b.wants("net.type_hash.fp")
    {
        backend::<Fp32Pinned>(b, "fp");
    }
    if b.wants("net.snapshot_bytes.fx") {
        snapshot_bytes::<Fpx16_16>(b, "fx");
    }
    if b.wants("net.snapshot_bytes.fp") {
        snapshot_bytes::<Fp32Pinned>(b, "fp");
    }
    crate::net_integrity::run(b);
    crate::net_join::run(b);
    #[cfg(feature = "webrtc")]
    crate::net_webrtc::run(b);
}

/// The encoded snapshot of the 10k-entity workload beside the plain copy.
fn snapshot_bytes<S: SimScalar + StateHash>(b: &mut Bench, label: &str) {
    let samples = b.scaled(200).max(5);
    let w = world::<S>(10_000);
    let mut ring = SnapshotRing::new(&w, 2).expect("ring");
    ring.save(0, &w).expect("save");
    let mut bytes = Vec::new();
    ring.encode(0, &w, &mut bytes).expect("encode");
    let mut joiner = world::<S>(10_000);
    joiner.decode_snapshot(&bytes).expect("decode");
    assert_eq!(joiner.state_hash(), w.state_hash(), "the bytes round-trip");
    let mut plain = Plain::<S> {
        pos: Vec::with_capacity(10_000),
        prev: Vec::with_capacity(10_000),
        vel: Vec::with_capacity(10_000),
    };
    let size = bytes.len();
    let mut lz4 = Vec::new();
    ring.encode_with(0, &w, &mut lz4, SnapshotCompression::Lz4)
        .expect("encode");
    let lz4_size = lz4.len();
    let ring = std::cell::RefCell::new(ring);
    let bytes = std::cell::RefCell::new(bytes);
    let lz4 = std::cell::RefCell::new(lz4);
    let joiner = std::cell::RefCell::new(joiner);
    let stats = b.interleaved(
        samples,
        1,
        &mut [
            &mut || {
                let mut out = bytes.borrow_mut();
                out.clear();
                ring.borrow()
                    .encode(0, &w, &mut out)
                    .map_or(0, |()| out.len())
            },
            &mut || {
                let out = bytes.borrow();
                ring.borrow_mut().decode(1, &w, &out).map_or(0, |()| 1)
            },
            &mut || {
                let out = bytes.borrow();
                joiner.borrow_mut().decode_snapshot(&out).map_or(0, |()| 1)
            },
            &mut || copy_out(&w, &mut plain),
            &mut || {
                let mut out = lz4.borrow_mut();
                out.clear();
                ring.borrow()
                    .encode_with(0, &w, &mut out, SnapshotCompression::Lz4)
                    .map_or(0, |()| out.len())
            },
            &mut || {
                let out = lz4.borrow();
                ring.borrow_mut().decode(1, &w, &out).map_or(0, |()| 1)
            },
        ],
    );
    let us: Vec<f64> = stats.iter().map(|s| s.median / 1_000.0).collect();
    let name = format!("net.snapshot_bytes.{label}.10k");
    for (i, what) in [
        "encode",
        "decode",
        "decode_load",
        "copy",
        "encode_lz4",
        "decode_lz4",
    ]
    .iter()
    .enumerate()
    {
        b.record(&format!("{name}.{what}_us"), us[i], "us");
    }
    b.ratio(&format!("{name}.encode_vs_copy"), us[0], us[3]);
    b.ratio(&format!("{name}.decode_vs_copy"), us[1], us[3]);
    #[allow(clippy::cast_precision_loss, reason = "a size, reported")]
    b.record(
        &format!("{name}.bytes_per_entity"),
        size as f64 / f64::from(w.len()),
        "B",
    );
    #[allow(clippy::cast_precision_loss, reason = "a size, reported")]
    {
        b.record(
            &format!("{name}.lz4_bytes_per_entity"),
            lz4_size as f64 / f64::from(w.len()),
            "B",
        );
        b.ratio(&format!("{name}.lz4_ratio"), lz4_size as f64, size as f64);
    }
}

/// A world with the reference workload of `n` entities installed (the net
/// area's figures share it).
pub(crate) fn world<S: SimScalar + StateHash>(n: u32) -> World {
    let mut world = World::default();
    workload::install::<S>(
        &mut world,
        &WorkloadConfig {
            entities: n,
            ..WorkloadConfig::default()
        },
    )
    .expect("valid workload");
    world
}

/// The three columns as plain buffers (the copy contender).
struct Plain<S> {
    pos: Vec<Position<S>>,
    prev: Vec<PrevPosition<S>>,
    vel: Vec<Velocity<S>>,
}

fn copy_out<S: SimScalar>(w: &World, p: &mut Plain<S>) -> usize {
    p.pos.clear();
    p.prev.clear();
    p.vel.clear();
    for a in w.ecs().archetypes() {
        if let Some(c) = a.get::<&Position<S>>() {
            p.pos.extend_from_slice(&c);
        }
        if let Some(c) = a.get::<&PrevPosition<S>>() {
            p.prev.extend_from_slice(&c);
        }
        if let Some(c) = a.get::<&Velocity<S>>() {
            p.vel.extend_from_slice(&c);
        }
    }
    p.pos.len()
}

// The copy contender and the anchor write columns through `World::ecs` (hecs
// checks each column borrow at run time): `World::ecs_mut` would mark the
// entity layout changed and so charge the next save and load a handle walk
// that no tick causes.
fn copy_in<S: SimScalar>(w: &World, p: &Plain<S>) -> usize {
    let mut at = 0;
    for a in w.ecs().archetypes() {
        let n = a.len() as usize;
        if let Some(mut c) = a.get::<&mut Position<S>>() {
            c.copy_from_slice(&p.pos[at..at + n]);
        }
        if let Some(mut c) = a.get::<&mut PrevPosition<S>>() {
            c.copy_from_slice(&p.prev[at..at + n]);
        }
        if let Some(mut c) = a.get::<&mut Velocity<S>>() {
            c.copy_from_slice(&p.vel[at..at + n]);
        }
        at += n;
    }
    at
}

/// The anchor's saved state: per component type, (entity, clone) pairs.
type Cloned<S> = (
    Vec<(hecs::Entity, Position<S>)>,
    Vec<(hecs::Entity, PrevPosition<S>)>,
    Vec<(hecs::Entity, Velocity<S>)>,
);

/// Clone-per-component: every entity, every registered component, looked
/// up and cloned into a fresh buffer.
fn clone_save<S: SimScalar>(w: &World) -> Cloned<S> {
    let ecs = w.ecs();
    let entities: Vec<hecs::Entity> = ecs.iter().map(|e| e.entity()).collect();
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for &e in &entities {
        if let Ok(c) = ecs.get::<&Position<S>>(e) {
            out.0.push((e, *c));
        }
        if let Ok(c) = ecs.get::<&PrevPosition<S>>(e) {
            out.1.push((e, *c));
        }
        if let Ok(c) = ecs.get::<&Velocity<S>>(e) {
            out.2.push((e, *c));
        }
    }
    out
}

fn clone_load<S: SimScalar>(w: &World, saved: &Cloned<S>) -> usize {
    let ecs = w.ecs();
    for (e, v) in &saved.0 {
        if let Ok(mut c) = ecs.get::<&mut Position<S>>(*e) {
            *c = *v;
        }
    }
    for (e, v) in &saved.1 {
        if let Ok(mut c) = ecs.get::<&mut PrevPosition<S>>(*e) {
            *c = *v;
        }
    }
    for (e, v) in &saved.2 {
        if let Ok(mut c) = ecs.get::<&mut Velocity<S>>(*e) {
            *c = *v;
        }
    }
    saved.0.len()
}

fn backend<S: SimScalar + StateHash>(b: &mut Bench, label: &str) {
    let samples = b.scaled(200).max(5);
    let w = world::<S>(10_000);
    let schedule = w.schedule_systems();
    let mut ring = SnapshotRing::new(&w, 10).expect("ring");
    for slot in 0..ring.len() {
        ring.save(slot, &w).expect("save");
    }
    let mut plain = Plain::<S> {
        pos: Vec::with_capacity(10_000),
        prev: Vec::with_capacity(10_000),
        vel: Vec::with_capacity(10_000),
    };
    copy_out(&w, &mut plain);
    let cloned = clone_save::<S>(&w);

    let name = format!("net.snapshot.{label}.10k");
    if b.wants(&name) {
        let w = std::cell::RefCell::new(w);
        let ring = std::cell::RefCell::new(ring);
        let plain = std::cell::RefCell::new(plain);
        let stats = b.interleaved(
            samples,
            1,
            &mut [
                &mut || ring.borrow_mut().save(0, &w.borrow()).map_or(0, |()| 1),
                &mut || {
                    ring.borrow_mut()
                        .load(0, &mut w.borrow_mut())
                        .map_or(0, |()| 1)
                },
                &mut || copy_out(&w.borrow(), &mut plain.borrow_mut()),
                &mut || copy_in(&w.borrow(), &plain.borrow()),
                &mut || clone_save::<S>(&w.borrow()).0.len(),
                &mut || clone_load::<S>(&w.borrow(), &cloned),
            ],
        );
        let us: Vec<f64> = stats.iter().map(|s| s.median / 1_000.0).collect();
        for (i, what) in [
            "save",
            "load",
            "copy_out",
            "copy_in",
            "clone_save",
            "clone_load",
        ]
        .iter()
        .enumerate()
        {
            b.record(&format!("{name}.{what}_us"), us[i], "us");
        }
        b.ratio(&format!("{name}.save_vs_copy"), us[0], us[2]);
        b.ratio(&format!("{name}.load_vs_copy"), us[1], us[3]);
        b.ratio(&format!("{name}.save_vs_clone"), us[0], us[4]);
        b.ratio(&format!("{name}.load_vs_clone"), us[1], us[5]);
        return rest::<S>(
            b,
            label,
            w.into_inner(),
            ring.into_inner(),
            &schedule,
            samples,
        );
    }
    rest::<S>(b, label, w, ring, &schedule, samples);
}

fn rest<S: SimScalar + StateHash>(
    b: &mut Bench,
    label: &str,
    w: World,
    mut ring: SnapshotRing,
    schedule: &laige_sim::SystemSchedule,
    samples: usize,
) {
    let samples = samples.min(b.scaled(60).max(5));
    ring.save(0, &w).expect("save");
    let mut records = Vec::with_capacity(10_000);
    assert_eq!(
        plain_state_hash::<S>(&w, &mut records),
        w.state_hash(),
        "the plain state hash is World::state_hash"
    );
    let name = format!("net.state_hash.{label}.10k");
    if b.wants(&name) {
        let stats = b.interleaved(
            samples,
            1,
            &mut [&mut || w.state_hash(), &mut || {
                plain_state_hash::<S>(&w, &mut records)
            }],
        );
        let us: Vec<f64> = stats.iter().map(|s| s.median / 1_000.0).collect();
        b.record(&format!("{name}.ours_us"), us[0], "us");
        b.record(&format!("{name}.plain_us"), us[1], "us");
        b.ratio(&format!("{name}.ours_vs_plain"), us[0], us[1]);
    }
    let name = format!("net.rollback.{label}.10k.frame_ms");
    let w = std::cell::RefCell::new(w);
    let ring = std::cell::RefCell::new(ring);
    if b.wants(&name) {
        let interval = u64::from(laige_net::DESYNC_INTERVAL);
        // The frame as a session runs it, and beside it the same frame with
        // the hashed save's state hash computed the plain way.
        let frame = |plain: bool, records: &mut Vec<u64>| {
            let (mut w, mut ring) = (w.borrow_mut(), ring.borrow_mut());
            let mut lines = [0_u64; 8];
            ring.load(0, &mut w).expect("load");
            for k in 1..=8 {
                w.run_systems(schedule).expect("tick");
                if w.tick().is_multiple_of(interval) {
                    if plain {
                        ring.save(k, &w).expect("save");
                        black_box(plain_state_hash::<S>(&w, records));
                    } else {
                        ring.save_hashed(k, &w).expect("save");
                    }
                    ring.get(k).expect("slot").type_hashes_into(&mut lines);
                } else {
                    ring.save(k, &w).expect("save");
                }
            }
            black_box(lines);
            w.tick()
        };
        let mut plain_records = Vec::with_capacity(10_000);
        let stats = b.interleaved(
            samples,
            1,
            &mut [&mut || frame(false, &mut Vec::new()), &mut || {
                frame(true, &mut plain_records)
            }],
        );
        b.record(&name, stats[0].median / 1e6, "ms");
        b.record(
            &format!("net.rollback.{label}.10k.plain_hash_frame_ms"),
            stats[1].median / 1e6,
            "ms",
        );
    }
    let (w, mut ring) = (w.into_inner(), ring.into_inner());
    let name = format!("net.type_hash.{label}.10k.pct_of_tick");
    if b.wants(&name) {
        ring.save(0, &w).expect("save");
        let snap = ring.get(0).expect("slot");
        let mut lines = [0_u64; 8];
        // Interleaved, so the two sides see the same load.
        let w = std::cell::RefCell::new(w);
        let rounds = b.interleaved_rounds(
            samples.max(b.scaled(200)),
            1,
            &mut [&mut || snap.type_hashes_into(&mut lines), &mut || {
                w.borrow_mut().run_systems(schedule).map_or(0, |()| 1)
            }],
        );
        black_box(lines);
        b.record(&name, 100.0 * paired_ratio(&rounds[0], &rounds[1]), "%");
        let median = |r: &[f64]| crate::harness::Stats::of(&mut r.to_vec()).median;
        b.record(
            &format!("{name}.ratio_of_medians"),
            100.0 * median(&rounds[0]) / median(&rounds[1]),
            "%",
        );
    }
}

/// The canonical state hash of the workload world computed the plain way,
/// as `World::state_hash` did before its one-step key and its bucket sort:
/// every byte of every record through FNV-1a (the key, then the value, per
/// registered type in name order), the records sorted by `sort_unstable`.
/// The same hash (asserted before it is measured).
fn plain_state_hash<S: SimScalar + StateHash>(w: &World, records: &mut Vec<u64>) -> u64 {
    fn column<T: hecs::Component + StateHash>(
        a: &hecs::Archetype,
        records: &mut [u64],
        name: &str,
    ) -> bool {
        let Some(column) = a.get::<&T>() else {
            return false;
        };
        let mut key = StateHasher::default();
        key.write_bytes(name.as_bytes());
        let key = key.finish();
        for (state, value) in records.iter_mut().zip(column.iter()) {
            let mut h = StateHasher::from_state(*state);
            h.write_u64(key);
            value.hash_state(&mut h);
            *state = h.finish();
        }
        true
    }
    records.clear();
    for a in w.ecs().archetypes() {
        let n = a.len() as usize;
        if n == 0 {
            continue;
        }
        let start = records.len();
        records.resize(start + n, FNV1A64_OFFSET);
        let rows = &mut records[start..];
        let any = column::<Position<S>>(a, rows, "workload.position")
            | column::<PrevPosition<S>>(a, rows, "workload.prev_position")
            | column::<Velocity<S>>(a, rows, "workload.velocity");
        if !any {
            records.truncate(start);
        }
    }
    records.sort_unstable();
    let mut h = StateHasher::default();
    h.write_u64(w.tick());
    h.write_u64(records.len() as u64);
    for r in records.iter() {
        h.write_u64(*r);
    }
    h.finish()
}
