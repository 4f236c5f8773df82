//! Encoded snapshots: a [`WorldSnapshot`] as versioned, checksummed,
//! little-endian bytes ([`SnapshotRing::encode`],
//! [`SnapshotRing::decode`], and [`World::encode_snapshot`] /
//! [`World::decode_snapshot`] for one-off use). The layout and the
//! checks are documented in `bytes.md` (the `snapshot` module's docs).

use hecs::Entity;
use laige_core::{Error, ErrorCode, Result};

use super::body_sum::{SUM_BATCH, body_sum};
use super::{SavedArchetype, SnapshotRing, WorldSnapshot};
use crate::events;
use crate::replay::crc32::crc32;
use crate::resources::{read_name, write_name};
use crate::state_hash::{DecodeError, DecodeErrorKind, StateReader, StateWriter};
use crate::world::World;

/// The first bytes of every encoded snapshot.
pub const SNAPSHOT_MAGIC: [u8; 8] = *b"LAIGESNP";
/// The format version this build writes (it reads version 1 too: the
/// keyframes of older recordings carry it).
pub const SNAPSHOT_FORMAT_VERSION: u16 = 2;
/// Bytes before the body in the version this build writes: magic,
/// version, flags, body length, body checksum (`u64`), 4 reserved bytes
/// (zero).
pub const SNAPSHOT_HEADER_LEN: usize = 32;
/// Bytes before the body in version 1: magic, version, flags, body
/// length, CRC-32.
const V1_HEADER_LEN: usize = 24;
/// The largest body this build accepts (1 GiB): a length field past it is
/// refused before anything is read or reserved.
pub const MAX_SNAPSHOT_BODY: u64 = 1 << 30;

/// Flag bit 0: the stored body is LZ4-compressed
/// ([`SnapshotCompression::Lz4`]).
pub const SNAPSHOT_FLAG_LZ4: u16 = 1;

/// How an encoded snapshot's body is stored. Decoding reads either (the
/// header's flags say which), so a peer may pick per transfer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SnapshotCompression {
    /// The body as written: the fastest to encode and decode.
    #[default]
    None,
    /// The body as an LZ4 block (`lz4_flex`) after its raw length (`u64`):
    /// smaller for a network transfer or a file, at the cost of a
    /// compression pass on encode and a decompression buffer on decode.
    Lz4,
}

/// LZ4 expands at most 255 bytes of output per input byte: a raw length
/// past that bound is refused before its buffer is reserved.
const LZ4_MAX_RATIO: u64 = 255;

/// The layout key of a decoded snapshot: no world has this identity, so a
/// load of it always rebuilds the entities (the archetype indices of
/// another world mean nothing here) and leaves the world a fresh layout.
const DECODED_LAYOUT_KEY: (u64, u64) = (u64::MAX, u64::MAX);

impl SnapshotRing {
    /// Appends the snapshot in `slot` to `out` as encoded bytes (the
    /// format of `bytes.md`: header with a checksum of the body, then the
    /// tick, the registry's component and part names with their layout
    /// hashes, the entity allocator, the archetype table, every column and
    /// every part).
    ///
    /// # Errors
    /// `snapshot/slot_invalid` for a slot out of range or never saved;
    /// `snapshot/unencodable` (field `component`, `resource` or `part`)
    /// when a registered type has no byte codec. `out` is unchanged then.
    pub fn encode(&self, slot: usize, world: &World, out: &mut Vec<u8>) -> Result<()> {
        self.encode_with(slot, world, out, SnapshotCompression::None)
    }

    /// [`encode`](Self::encode), with the body stored as `compression`
    /// says ([`decode`](Self::decode) reads either).
    ///
    /// # Errors
    /// As [`encode`](Self::encode).
    pub fn encode_with(
        &self,
        slot: usize,
        world: &World,
        out: &mut Vec<u8>,
        compression: SnapshotCompression,
    ) -> Result<()> {
        self.check(world, slot)?;
        let snap = &self.slots[slot];
        if !snap.filled {
            return Err(super::slot_invalid(
                slot,
                "a slot that holds a saved snapshot",
            ));
        }
        self.check_encodable(world)?;
        let start = out.len();
        out.extend_from_slice(&[0; SNAPSHOT_HEADER_LEN]);
        // A stored raw body is summed as it is written; an LZ4 body after
        // its compression.
        let mut w = match compression {
            SnapshotCompression::None => StateWriter::summing(out, start + SNAPSHOT_HEADER_LEN),
            SnapshotCompression::Lz4 => StateWriter::new(out),
        };
        w.write_u64(snap.tick);
        w.write_u32(len_u32(self.layout.components.len()));
        for c in &self.layout.components {
            write_name(&mut w, c.name);
            w.write_u64(c.layout);
        }
        w.write_u32(len_u32(self.layout.parts.len()));
        for p in &self.layout.parts {
            write_name(&mut w, p.name);
            w.write_u64(p.layout);
        }
        write_entities(&mut w, &snap.entities);
        write_entities(&mut w, &snap.freelist);
        w.write_u32(len_u32(snap.archetypes.len()));
        for a in &snap.archetypes {
            w.write_u32(a.len);
            w.write_u32(a.types_len);
            // Ascending: hecs orders an archetype's types by `TypeId`,
            // which differs from build to build; the bytes do not. Each
            // next one is the least above the last (an archetype's types
            // are distinct and few), so nothing is allocated to sort them.
            let types = types_of(snap, a);
            let mut last = None;
            for _ in types {
                let next = types
                    .iter()
                    .copied()
                    .filter(|&t| last.is_none_or(|l| t > l))
                    .min()
                    .unwrap_or_else(|| unreachable!("one per distinct type"));
                w.write_u16(next);
                last = Some(next);
            }
        }
        for (ops, column) in self.layout.components.iter().zip(&snap.columns) {
            (ops.encode)(&**column, &mut w);
        }
        for (ops, saved) in self.layout.parts.iter().zip(&snap.parts) {
            (ops.encode)(&**saved, &mut w);
        }
        let running = w.finish_sum();
        let flags = match compression {
            SnapshotCompression::None => 0,
            SnapshotCompression::Lz4 if compress_body(out, start + SNAPSHOT_HEADER_LEN) => {
                SNAPSHOT_FLAG_LZ4
            }
            SnapshotCompression::Lz4 => 0,
        };
        let body = &out[start + SNAPSHOT_HEADER_LEN..];
        let body_len = body.len() as u64;
        let sum = match running {
            Some(running) if flags == 0 => running.finish(out, flags),
            _ => body_sum(body, flags),
        };
        let header = &mut out[start..start + SNAPSHOT_HEADER_LEN];
        header[0..8].copy_from_slice(&SNAPSHOT_MAGIC);
        header[8..10].copy_from_slice(&SNAPSHOT_FORMAT_VERSION.to_le_bytes());
        header[10..12].copy_from_slice(&flags.to_le_bytes());
        header[12..20].copy_from_slice(&body_len.to_le_bytes());
        header[20..28].copy_from_slice(&sum.to_le_bytes());
        // 28..32: reserved, zero.
        Ok(())
    }

    /// Reads encoded bytes into `slot` (the slot then holds the encoded
    /// world's state, ready for [`load`](Self::load)). Every byte is
    /// checked first — header, checksum, the registry against this ring's
    /// (names and layouts), the entity allocator, every value — and the
    /// slot is replaced only when all of it is valid.
    ///
    /// # Errors
    /// `snapshot/slot_invalid`; `snapshot/bytes_corrupt` (field `bytes`:
    /// damaged, truncated or not a snapshot of this format);
    /// `snapshot/bytes_mismatch` (field `component`, `part` or `resource`:
    /// another build's world, naming the first differing one). The slot
    /// keeps what it held then.
    pub fn decode(&mut self, slot: usize, world: &World, bytes: &[u8]) -> Result<()> {
        self.check(world, slot)?;
        let mut snap = self
            .spare
            .take()
            .unwrap_or_else(|| WorldSnapshot::new(self.layout.clone()));
        snap.reset_for_decode();
        let decoded = decode_into(&mut snap, world, bytes);
        if decoded.is_ok() {
            std::mem::swap(&mut self.slots[slot], &mut snap);
        }
        self.spare = Some(snap);
        decoded
    }

    fn check_encodable(&self, world: &World) -> Result<()> {
        if let Some(c) = self.layout.components.iter().find(|c| !c.encodable) {
            return Err(unencodable("component", c.name));
        }
        if let Some(p) = self.layout.parts.iter().find(|p| !p.encodable) {
            return Err(unencodable("part", p.name));
        }
        if let Some((name, type_name)) = world.resources.first_unencodable() {
            return Err(unencodable("resource", name)
                .with_detail(format!("the resource's type is {type_name}")));
        }
        Ok(())
    }
}

impl World {
    /// This world's state as encoded snapshot bytes, appended to `out`
    /// ([`SnapshotRing::encode`] of a one-slot ring; a session that keeps
    /// a ring encodes its slots instead).
    ///
    /// ```
    /// use laige_core::Fpx16_16;
    /// use laige_sim::{StateHash, World};
    ///
    /// #[derive(StateHash, Clone, Debug, PartialEq)]
    /// struct Pos(Fpx16_16);
    ///
    /// let mut world = World::default();
    /// world.register_hashed_as::<Pos>("game.pos")?;
    /// world.ecs_mut().spawn((Pos(Fpx16_16::ONE),));
    /// let mut bytes = Vec::new();
    /// world.encode_snapshot(&mut bytes)?;
    ///
    /// let mut joiner = World::default();
    /// joiner.register_hashed_as::<Pos>("game.pos")?;
    /// joiner.decode_snapshot(&bytes)?;
    /// assert_eq!(joiner.state_hash(), world.state_hash());
    /// assert!(joiner.decode_snapshot(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`SnapshotRing::save`] and [`SnapshotRing::encode`].
    pub fn encode_snapshot(&self, out: &mut Vec<u8>) -> Result<()> {
        self.encode_snapshot_with(out, SnapshotCompression::None)
    }

    /// [`encode_snapshot`](Self::encode_snapshot), with the body stored as
    /// `compression` says.
    ///
    /// # Errors
    /// As [`encode_snapshot`](Self::encode_snapshot).
    pub fn encode_snapshot_with(
        &self,
        out: &mut Vec<u8>,
        compression: SnapshotCompression,
    ) -> Result<()> {
        let mut ring = SnapshotRing::new(self, 1)?;
        ring.save(0, self)?;
        ring.encode_with(0, self, out, compression)
    }

    /// Replaces this world's state with the encoded snapshot's: every
    /// byte is checked before anything changes ([`SnapshotRing::decode`]),
    /// then it is loaded ([`SnapshotRing::load`]).
    ///
    /// # Errors
    /// As [`SnapshotRing::decode`]; the world is untouched then.
    pub fn decode_snapshot(&mut self, bytes: &[u8]) -> Result<()> {
        let mut ring = SnapshotRing::new(self, 1)?;
        ring.decode(0, self, bytes)?;
        ring.load(0, self)
    }
}

/// A handle list: its length (`u64`), then each handle's bits (`u64`),
/// written into a buffer sized once.
fn write_entities(w: &mut StateWriter<'_>, entities: &[Entity]) {
    w.write_u64(entities.len() as u64);
    w.write_chunks(entities, 8, |e, out| {
        out.copy_from_slice(&e.to_bits().get().to_le_bytes());
    });
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn types_of<'s>(snap: &'s WorldSnapshot, a: &SavedArchetype) -> &'s [u16] {
    &snap.archetype_types[a.types_start as usize..(a.types_start + a.types_len) as usize]
}

#[cold]
fn unencodable(kind: &'static str, name: &str) -> Error {
    Error::invalid_argument(
        events::SNAPSHOT_UNENCODABLE,
        kind,
        name.to_owned(),
        "a type with a byte codec (#[derive(StateHash)], or encode_state/decode_state and ENCODABLE = true in a hand-written impl; SnapshotPart::encode/decode for a part)",
    )
}

#[cold]
fn corrupt(e: &DecodeError) -> Error {
    match &e.kind {
        DecodeErrorKind::Mismatch {
            what,
            found,
            expected,
        } => Error::invalid_argument(
            events::SNAPSHOT_BYTES_MISMATCH,
            *what,
            found.clone(),
            expected.clone(),
        )
        .with_detail(format!(
            "the snapshot is another build's (at byte {} of the body)",
            e.offset
        )),
        _ => Error::new(ErrorCode::Corrupt, events::SNAPSHOT_BYTES_CORRUPT)
            .with_field("bytes")
            .with_detail(format!("{e} (offsets count from the body's start)")),
    }
}

#[cold]
fn header_corrupt(value: impl std::fmt::Display, accepted: &'static str) -> Error {
    Error::new(ErrorCode::Corrupt, events::SNAPSHOT_BYTES_CORRUPT)
        .with_field("bytes")
        .with_value(value)
        .with_accepted(accepted)
}

/// Checks an encoded snapshot's header and body checksum without decoding
/// it (a replay reader's check of a keyframe it only indexes).
///
/// # Errors
/// `snapshot/bytes_corrupt`, as [`SnapshotRing::decode`] for a damaged
/// header or body.
pub(crate) fn check_encoded(bytes: &[u8]) -> Result<()> {
    let h = header(bytes)?;
    match h.deferred_sum {
        Some(want) => check_sum(body_sum(h.body, h.flags), want),
        None => Ok(()),
    }
}

/// An encoded snapshot's header, checked.
struct Header<'b> {
    /// The stored body (after the header).
    body: &'b [u8],
    flags: u16,
    /// The version-2 checksum of a raw body, to be compared once the body
    /// is read (the decode sums it as it goes); `None` when the header
    /// check already compared it (version 1's CRC-32, an LZ4 body).
    deferred_sum: Option<u64>,
}

/// Reads and checks the header of `bytes` (either version): magic,
/// version, flags, reserved bytes, body length and, for version 1 and an
/// LZ4 body, the body's checksum.
fn header(bytes: &[u8]) -> Result<Header<'_>> {
    if bytes.len() < V1_HEADER_LEN {
        return Err(header_corrupt(
            format!("{} bytes", bytes.len()),
            "at least a header (24 bytes in version 1, 32 in version 2)",
        ));
    }
    if bytes[0..8] != SNAPSHOT_MAGIC {
        return Err(header_corrupt(
            format!("magic {:02x?}", &bytes[0..8]),
            "an encoded laige snapshot (magic `LAIGESNP`)",
        ));
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    let header_len = match version {
        1 => V1_HEADER_LEN,
        2 => SNAPSHOT_HEADER_LEN,
        _ => {
            return Err(header_corrupt(
                format!("format version {version}"),
                "format version 2 (this build's) or 1",
            ));
        }
    };
    if bytes.len() < header_len {
        return Err(header_corrupt(
            format!("{} bytes of a version-{version} snapshot", bytes.len()),
            "at least its 32-byte header",
        ));
    }
    let flags = u16::from_le_bytes([bytes[10], bytes[11]]);
    if flags & !SNAPSHOT_FLAG_LZ4 != 0 {
        return Err(header_corrupt(
            format!("flags {flags:#06x}"),
            "flags 0 or 1 (bit 0: an LZ4 body; no other flag is defined)",
        ));
    }
    let word = |at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let len = word(12);
    let have = (bytes.len() - header_len) as u64;
    if len > MAX_SNAPSHOT_BODY || len != have {
        return Err(header_corrupt(
            format!("body length {len} with {have} bytes after the header"),
            "a body length equal to the bytes that follow, at most 1 GiB",
        ));
    }
    let body = &bytes[header_len..];
    if version == 1 {
        let crc = u32::from_le_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
        let actual = crc32(body);
        if crc != actual {
            return Err(header_corrupt(
                format!("body CRC-32 {actual:#010x}, header says {crc:#010x}"),
                "an undamaged body (equal CRC-32s)",
            ));
        }
        return Ok(Header {
            body,
            flags,
            deferred_sum: None,
        });
    }
    if bytes[28..32] != [0; 4] {
        return Err(header_corrupt(
            format!("reserved header bytes {:02x?}", &bytes[28..32]),
            "zero (no use is defined in version 2)",
        ));
    }
    let sum = word(20);
    if flags & SNAPSHOT_FLAG_LZ4 != 0 {
        // Checked before anything is decompressed.
        check_sum(body_sum(body, flags), sum)?;
        return Ok(Header {
            body,
            flags,
            deferred_sum: None,
        });
    }
    Ok(Header {
        body,
        flags,
        deferred_sum: Some(sum),
    })
}

/// The body checksum's comparison.
fn check_sum(actual: u64, header: u64) -> Result<()> {
    if actual == header {
        Ok(())
    } else {
        Err(header_corrupt(
            format!("body checksum {actual:#018x}, header says {header:#018x}"),
            "an undamaged body (equal checksums)",
        ))
    }
}

/// Replaces the raw body at `out[from..]` with its raw length (`u64`) and
/// its LZ4 block; `false` (the raw body kept as it was) should the codec
/// refuse, which it cannot with room for the largest block it produces.
fn compress_body(out: &mut Vec<u8>, from: usize) -> bool {
    let raw = out.split_off(from);
    out.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    let at = out.len();
    out.resize(at + lz4_flex::block::get_maximum_output_size(raw.len()), 0);
    if let Ok(n) = lz4_flex::block::compress_into(&raw, &mut out[at..]) {
        out.truncate(at + n);
        true
    } else {
        out.truncate(from);
        out.extend_from_slice(&raw);
        false
    }
}

/// The raw body of an LZ4 body (its raw length, then the block), every
/// length checked before the buffer is reserved.
fn decompress_body(stored: &[u8]) -> Result<Vec<u8>> {
    let Some((len, block)) = stored.split_first_chunk::<8>() else {
        return Err(header_corrupt(
            format!("an LZ4 body of {} bytes", stored.len()),
            "its raw length (8 bytes) and an LZ4 block",
        ));
    };
    let raw_len = u64::from_le_bytes(*len);
    let bound = (block.len() as u64).saturating_mul(LZ4_MAX_RATIO);
    if raw_len > MAX_SNAPSHOT_BODY || raw_len > bound {
        return Err(header_corrupt(
            format!(
                "an LZ4 raw length of {raw_len} bytes from a {}-byte block",
                block.len()
            ),
            "at most 1 GiB and at most 255 bytes per block byte",
        ));
    }
    let mut raw = vec![0; usize::try_from(raw_len).unwrap_or(0)];
    match lz4_flex::block::decompress_into(block, &mut raw) {
        Ok(n) if n == raw.len() => Ok(raw),
        Ok(n) => Err(header_corrupt(
            format!("an LZ4 block of {n} raw bytes, header says {raw_len}"),
            "a block that decompresses to its stated raw length",
        )),
        Err(e) => Err(header_corrupt(
            format!("an LZ4 block that does not decompress ({e})"),
            "a valid LZ4 block",
        )),
    }
}

fn decode_into(snap: &mut WorldSnapshot, world: &World, bytes: &[u8]) -> Result<()> {
    let h = header(bytes)?;
    let raw;
    let body = if h.flags & SNAPSHOT_FLAG_LZ4 == 0 {
        h.body
    } else {
        raw = decompress_body(h.body)?;
        &raw[..]
    };
    // A version-2 raw body is summed as it is read, batch by batch; the
    // slot is replaced only after the sums agree.
    let mut r = match h.deferred_sum {
        Some(_) => StateReader::summing(body),
        None => StateReader::new(body),
    };
    let decoded = decode_body(snap, world, &mut r).and_then(|()| {
        if r.is_empty() {
            Ok(())
        } else {
            Err(r.invalid(
                r.position(),
                "trailing bytes",
                r.remaining() as u128,
                "nothing after the last part",
            ))
        }
    });
    // Damage is named as damage whatever check of the body it reached
    // first: the checksum (of every byte, read or not) before the body's
    // own errors.
    if let (Some(want), Some(actual)) = (h.deferred_sum, r.finish_sum(h.flags)) {
        check_sum(actual, want)?;
    }
    decoded.map_err(|e| corrupt(&e))?;
    snap.layout_key = DECODED_LAYOUT_KEY;
    snap.hashed = false;
    snap.filled = true;
    Ok(())
}

fn decode_body(
    snap: &mut WorldSnapshot,
    world: &World,
    r: &mut StateReader<'_>,
) -> std::result::Result<(), DecodeError> {
    let layout = snap.layout.clone();
    snap.tick = r.read_u64()?;
    // The registry: the same names and layouts in the same order.
    let ours: Vec<(&str, u64)> = layout
        .components
        .iter()
        .map(|c| (c.name, c.layout))
        .collect();
    check_registry(r, "component type", &ours)?;
    let ours: Vec<(&str, u64)> = layout.parts.iter().map(|p| (p.name, p.layout)).collect();
    check_registry(r, "snapshot part", &ours)?;
    // The entity allocator: live handles and the free list, whose ids
    // together are exactly 0..n (hecs allocates ids densely).
    // Most snapshots hold the ids in order (live handles, then the free
    // list, have ids 0, 1, 2, ...: a world spawned and never despawned
    // from): each batch is checked against its positions in one
    // vectorized pass, and `total` ids at positions 0..total are each of
    // 0..total exactly once. From the first batch out of order on, the
    // ids are marked instead (the earlier ones too): `total` ids, each
    // below `total`, that mark `total` distinct places are each of
    // 0..total exactly once — branch-free marks and one (vectorized)
    // count; only damaged bytes take the pass that names the first id out
    // of range or seen twice. An id past the range marks the last place,
    // which no valid id has. The marks are counted eight at a time (each
    // a byte of 0 or 1, so a word's set bits are its marks), in a buffer
    // the snapshot keeps.
    let total = allocator_len(r);
    let mut ids = IdCheck {
        marks: &mut snap.id_marks,
        last: total,
        next: 0,
        ordered: true,
    };
    read_entities(r, "live entity count", &mut snap.entities, &[], &mut ids)?;
    read_entities(
        r,
        "free list length",
        &mut snap.freelist,
        &snap.entities,
        &mut ids,
    )?;
    let ordered = ids.ordered;
    let (live, free) = (&snap.entities, &snap.freelist);
    let covered = total == live.len() + free.len()
        && (ordered || {
            let seen = &snap.id_marks[..];
            let marked = seen
                .chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])).count_ones() as usize)
                .sum::<usize>();
            seen[total] == 0 && marked == total
        });
    if !covered {
        let total = live.len() + free.len();
        snap.id_marks
            .resize((total + 1).max(snap.id_marks.len()), 0);
        let seen = &mut snap.id_marks[..];
        seen.fill(0);
        for (i, e) in live.iter().chain(free).enumerate() {
            let id = e.id() as usize;
            if id >= total || seen[id] != 0 {
                return Err(r.invalid(
                    0,
                    if i < live.len() {
                        "live entity id"
                    } else {
                        "free entity id"
                    },
                    u128::from(e.id()),
                    "ids that, live and free together, are each of 0..count exactly once",
                ));
            }
            seen[id] = 1;
        }
    }
    // The archetype table: row counts and component type indices.
    let at = r.position();
    let n_arch = r.read_u32()? as usize;
    if n_arch > r.remaining() {
        return Err(r.invalid(
            at,
            "archetype count",
            n_arch as u128,
            "a count no larger than the bytes that follow",
        ));
    }
    let mut rows = 0_usize;
    let mut counts = vec![0_usize; layout.components.len()];
    for _ in 0..n_arch {
        let at = r.position();
        let len = r.read_u32()?;
        let n_types = r.read_u32()?;
        if len == 0 {
            return Err(r.invalid(
                at,
                "archetype row count",
                0,
                "at least one row (empty archetypes are not saved)",
            ));
        }
        if n_types as usize > layout.components.len() {
            return Err(r.invalid(
                at,
                "archetype type count",
                u128::from(n_types),
                "at most the registered component types",
            ));
        }
        let types_start = snap.archetype_types.len();
        for _ in 0..n_types {
            let at = r.position();
            let t = r.read_u16()?;
            if usize::from(t) >= layout.components.len()
                || snap.archetype_types[types_start..]
                    .last()
                    .is_some_and(|&before| before >= t)
            {
                return Err(r.invalid(
                    at,
                    "archetype component type index",
                    u128::from(t),
                    "ascending indices of registered component types",
                ));
            }
            snap.archetype_types.push(t);
            counts[usize::from(t)] += len as usize;
        }
        rows += len as usize;
        snap.archetypes.push(SavedArchetype {
            index: u32::MAX,
            len,
            types_start: len_u32(types_start),
            types_len: n_types,
        });
    }
    if rows != snap.entities.len() {
        return Err(r.invalid(
            at,
            "archetype rows",
            rows as u128,
            "as many rows as live entities",
        ));
    }
    for ((ops, column), &n) in layout.components.iter().zip(&mut snap.columns).zip(&counts) {
        (ops.decode)(&mut **column, n, r)?;
    }
    for (ops, saved) in layout.parts.iter().zip(&mut snap.parts) {
        (ops.decode)(world, r, &mut **saved)?;
    }
    Ok(())
}

/// The live and free handle counts at the reader's position added, when
/// both are counts of handles that follow (else 0: reading the lists then
/// fails on the count that is not).
fn allocator_len(r: &StateReader<'_>) -> usize {
    let fits = |n: Option<u64>, after: usize| {
        n.and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= r.remaining().saturating_sub(after) / 8)
    };
    let Some(live) = fits(r.peek_u64(0), 8) else {
        return 0;
    };
    fits(r.peek_u64(8 + live * 8), 16 + live * 8).map_or(0, |free| live + free)
}

/// The entity-id check of a decode's handle lists: whether every id so
/// far is its position (`next` ids read), else the marks of every id.
struct IdCheck<'m> {
    /// One byte per id of `0..=last`, set when the id is read (valid
    /// only once `ordered` is `false`).
    marks: &'m mut Vec<u8>,
    /// The id count (both lists); an id past it is marked at `last`.
    last: usize,
    next: usize,
    ordered: bool,
}

impl IdCheck<'_> {
    /// Leaves the in-order check: marks every id read so far (`before`,
    /// then `so_far`) and marks from here on.
    #[cold]
    fn unordered(&mut self, before: &[Entity], so_far: &[Entity]) {
        self.ordered = false;
        self.marks.clear();
        self.marks.resize((self.last + 1).next_multiple_of(8), 0);
        for e in before.iter().chain(so_far) {
            self.marks[(e.id() as usize).min(self.last)] = 1;
        }
    }
}

/// Reads a handle list (its length, then each handle's bits) into `out`
/// (emptied first), checking each handle's id ([`IdCheck`]; `before` is
/// the list read before this one).
fn read_entities(
    r: &mut StateReader<'_>,
    what: &'static str,
    out: &mut Vec<Entity>,
    before: &[Entity],
    ids: &mut IdCheck<'_>,
) -> std::result::Result<(), DecodeError> {
    let at = r.position();
    let n = r.read_u64()?;
    let n = usize::try_from(n)
        .ok()
        .filter(|&n| n <= r.remaining() / 8)
        .ok_or_else(|| {
            r.invalid(
                at,
                what,
                u128::from(n),
                "a count whose handles (8 bytes each) follow",
            )
        })?;
    let handle = |b: &[u8]| {
        let mut bits = [0; 8];
        bits.copy_from_slice(b);
        u64::from_le_bytes(bits)
    };
    out.clear();
    out.reserve(n);
    // Batch by batch, while each is in the cache: every handle checked
    // (a generation above 0, and whether each id is its position: one
    // branch-free, vectorized pass; only damaged bytes look for the first
    // bad one), then all appended at once and summed.
    let mut left = n;
    while left > 0 {
        let k = left.min(SUM_BATCH / 8);
        let start = r.position();
        let bytes = r.read_bytes(k * 8)?;
        // A generation `g` (< 2^32) is 0 exactly when `(g - 1) & !g`
        // has bit 63 set: whole-word subtracts, ands and ors, which SSE2,
        // AVX2 and simd128 do on several handles at once.
        let first = ids.next as u64;
        let (zero_generation, off_order) =
            bytes
                .chunks_exact(8)
                .zip(first..)
                .fold((0, 0), |(zero, off), (b, position)| {
                    let bits = handle(b);
                    let g = bits >> 32;
                    (
                        zero | (g.wrapping_sub(1) & !g),
                        off | ((bits & 0xffff_ffff) ^ position),
                    )
                });
        if zero_generation >> 63 != 0
            && let Some(i) = bytes
                .chunks_exact(8)
                .position(|b| Entity::from_bits(handle(b)).is_none())
        {
            let bits = handle(&bytes[i * 8..i * 8 + 8]);
            return Err(r.invalid(
                start + i * 8,
                "entity handle",
                u128::from(bits),
                "a hecs entity handle (generation above 0)",
            ));
        }
        // Every generation is above 0, so the `max` changes none: it
        // only tells the compiler so, and the conversion needs no branch.
        // It is taken of the generation as a `u32`: a few 32-bit lane ops
        // (one in SSE4.1, AVX2 and simd128), where a 64-bit max of the
        // whole handle is, in SSE2, a 32-bit compare, shuffles and a
        // blend per pair of handles, which made this append cost more
        // than the check above.
        let entity = |b: &[u8]| {
            let bits = handle(b);
            let g = ((bits >> 32) as u32).max(1);
            Entity::from_bits(u64::from(g) << 32 | (bits & 0xffff_ffff))
                .unwrap_or_else(|| unreachable!("checked above"))
        };
        if ids.ordered && off_order != 0 {
            ids.unordered(before, out);
        }
        if ids.ordered {
            out.extend(bytes.chunks_exact(8).map(entity));
        } else {
            let (marks, last) = (&mut ids.marks[..], ids.last);
            out.extend(bytes.chunks_exact(8).map(|b| {
                let e = entity(b);
                marks[(e.id() as usize).min(last)] = 1;
                e
            }));
        }
        ids.next += k;
        r.catch_up();
        left -= k;
    }
    Ok(())
}

/// Reads a registry list (count, then name and layout hash per entry) and
/// compares it with `ours` (name order): the first name that differs — in
/// the bytes and not here, or here and not in the bytes — or the first
/// equal name with another layout is the error.
fn check_registry(
    r: &mut StateReader<'_>,
    what: &'static str,
    ours: &[(&str, u64)],
) -> std::result::Result<(), DecodeError> {
    let at = r.position();
    let n = r.read_u32()? as usize;
    // Each entry takes at least 12 bytes (length, layout).
    if n > r.remaining() / 12 {
        return Err(r.invalid(at, what, n as u128, "a count whose entries follow"));
    }
    let mut theirs = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.position();
        let name = read_name(r)?;
        let l = r.read_u64()?;
        theirs.push((at, name, l));
    }
    for i in 0..n.max(ours.len()) {
        match (theirs.get(i), ours.get(i)) {
            (Some(&(at, name, l)), Some(&(our_name, our_l))) if name == our_name => {
                if l != our_l {
                    return Err(DecodeError::mismatch(
                        at,
                        match what {
                            "component type" => "component type layout",
                            _ => "snapshot part layout",
                        },
                        format!("`{name}` with layout {l:#018x}"),
                        format!("{our_l:#018x} for `{name}` in this build"),
                    ));
                }
            }
            (Some(&(at, name, _)), Some(&(our_name, _))) => {
                let (found, expected) = if name < our_name {
                    (
                        format!("`{name}`"),
                        "no such one (it is not registered here)".to_owned(),
                    )
                } else {
                    (
                        format!("no `{our_name}`"),
                        format!("`{our_name}` registered"),
                    )
                };
                return Err(DecodeError::mismatch(at, what, found, expected));
            }
            (Some(&(at, name, _)), None) => {
                return Err(DecodeError::mismatch(
                    at,
                    what,
                    format!("`{name}`"),
                    "no such one (it is not registered here)".to_owned(),
                ));
            }
            (None, Some(&(our_name, _))) => {
                return Err(DecodeError::mismatch(
                    at,
                    what,
                    format!("no `{our_name}`"),
                    format!("`{our_name}` registered"),
                ));
            }
            (None, None) => {}
        }
    }
    Ok(())
}
