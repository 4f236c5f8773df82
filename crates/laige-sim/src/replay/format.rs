//! The replay file format, versions 2 and 3 (version 1 is still read): the
//! header ([`ReplayHeader`]) and the record framing. The byte layout is documented in
//! the `laige_sim::replay` docs; this file is its single implementation.

use laige_core::{Error, ErrorCode, MathBackend, Result};

use super::crc32::crc32;
use super::{CORRUPT, HEADER_INVALID, IDENTITY_MISMATCH, VERSION_UNSUPPORTED};

/// The eight bytes every replay file starts with.
pub const MAGIC: [u8; 8] = *b"LAIGERPL";
/// The format version this build writes for a recording that starts at
/// tick 0. It reads this one, [`FORMAT_VERSION_V3`] and
/// [`FORMAT_VERSION_V1`] (a version-1 file has no keyframe interval in its
/// header and no keyframe records).
pub const FORMAT_VERSION: u16 = 2;
/// The format version of a recording that starts at a later tick (a
/// player who joined a running session): version 2 with the start tick in
/// its header, and a keyframe of that tick before the first input. A
/// recording from tick 0 is written as version 2, byte for byte as before.
pub const FORMAT_VERSION_V3: u16 = 3;
/// The first format version, still read: the version-2 header without its
/// keyframe interval.
pub const FORMAT_VERSION_V1: u16 = 1;
/// Largest keyframe payload (an encoded world snapshot): 64 MiB, a world
/// of about a million small entities. A keyframe's length is covered by
/// its record's CRC-32 before it is trusted; the cap bounds what a file
/// of valid records can make the reader hold.
pub const MAX_KEYFRAME_BYTES: u32 = 64 << 20;
/// The default keyframe interval of a recording: none (0). A keyframe is a
/// whole-world snapshot; the engine picks its own default
/// (`laige_engine::EngineConfig`'s `replay.keyframe_interval`).
pub const DEFAULT_KEYFRAME_INTERVAL: u32 = 0;
/// Largest payload of one record: 1 MiB. An input payload is one tick's
/// input (a few bytes to a few KiB in practice); the cap keeps a corrupt
/// length field from asking for gigabytes.
pub const MAX_PAYLOAD_BYTES: u32 = 1 << 20;
/// Longest engine version string (bytes): 64, ample for a semver with
/// pre-release and build metadata.
pub const MAX_ENGINE_VERSION_BYTES: usize = 64;
/// The engine version this build stamps into the replays it records (the
/// workspace version every laige crate shares).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The default state-hash interval: every tick, so a divergence is named
/// at the exact first tick whose hash differs (the cost is one
/// [`World::state_hash`](crate::World::state_hash) per tick; raise it for
/// large worlds, trading precision for time).
pub const DEFAULT_HASH_INTERVAL: u32 = 1;

/// Largest replay file the reader accepts: 1 GiB. A recording holds one
/// input record per tick (17 bytes plus the input), a 25-byte state hash
/// record every `hash_interval` ticks and a keyframe (an encoded
/// snapshot) every `keyframe_interval` ticks: an hour at 60 Hz with 1 KiB
/// of input per tick is 226 MB, and 100 000 ticks of a 10 000-entity world
/// with a keyframe every 256 ticks about 200 MB more. The reader keeps the
/// payloads in memory, so the cap bounds what a file of valid records (a
/// hostile one, or a recording gone wrong) can make it hold.
pub const MAX_REPLAY_BYTES: usize = 1 << 30;

/// Longest possible header: magic (8), version (2), backend id (1 + 255),
/// seed (8), config hash (8), hash interval (4), keyframe interval (4,
/// version 2), start tick (8, version 3), engine version (1 + 255), CRC
/// (4). The reader reads at most this much before the first record.
pub(crate) const MAX_HEADER_BYTES: usize = 8 + 2 + 1 + 255 + 8 + 8 + 4 + 4 + 8 + 1 + 255 + 4;

/// Bytes of a record before its payload: kind (1), tick (8), length (4).
pub(crate) const RECORD_PREFIX: usize = 13;
/// Bytes of a record's trailing CRC-32.
pub(crate) const RECORD_CRC: usize = 4;

/// What a record holds (its first byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    /// One tick's input; `tick` is the tick it is applied to.
    Input = 1,
    /// A state hash (payload: `u64` LE); `tick` is the completed tick count.
    Hash = 2,
    /// The clean end of the recording; `tick` is the completed tick count
    /// at the end (the number of ticks from a start at tick 0).
    End = 3,
    /// An encoded world snapshot (replay format 2); `tick` is the completed tick
    /// count it holds. Its CRC-32 covers the 13-byte prefix only: the
    /// payload carries the snapshot format's own checksum, so a damaged
    /// keyframe is found, reported and skipped without ending the file.
    Keyframe = 4,
}

impl Kind {
    pub(crate) fn from_byte(b: u8) -> Option<Self> {
        match b {
            1 => Some(Self::Input),
            2 => Some(Self::Hash),
            3 => Some(Self::End),
            4 => Some(Self::Keyframe),
            _ => None,
        }
    }
}

/// A replay's identity and recording parameters: what must match for a
/// replay to reproduce a run (replay = inputs + seed + math backend +
/// config hash, sim_math.md "Backends").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayHeader {
    /// The math backend the run used. Cross-backend replays are not
    /// bit-exact and are refused ([`check_compatible`](Self::check_compatible)).
    pub backend: MathBackend,
    /// The run's seed (the player sets the world up from it).
    pub seed: u64,
    /// A hash of every configuration value that affects the simulation
    /// (tick rate, world parameters — the game decides; computed with
    /// [`StateHasher`](crate::StateHasher) so it is stable across builds).
    pub config_hash: u64,
    /// A state hash is recorded every this many ticks (≥ 1; default
    /// [`DEFAULT_HASH_INTERVAL`]), and at tick 0.
    pub hash_interval: u32,
    /// A keyframe (an encoded whole-world snapshot) is recorded every this
    /// many ticks, and at tick 0; 0 records none (default
    /// [`DEFAULT_KEYFRAME_INTERVAL`]). A seek starts from the nearest
    /// keyframe at or before its tick.
    pub keyframe_interval: u32,
    /// The completed tick count the recording starts from (default 0: the
    /// world as set up). A later start — a player who joined a running
    /// session from the host's world — is a format-version-3 file whose
    /// first records are the keyframe of this tick and its state hash:
    /// playback loads that keyframe instead of setting the world up.
    pub start_tick: u64,
    /// The engine version that recorded the run (1..=64 bytes of UTF-8;
    /// default [`ENGINE_VERSION`]).
    pub engine_version: String,
}

impl ReplayHeader {
    /// A header for this engine version with the default hash interval.
    #[must_use]
    pub fn new(backend: MathBackend, seed: u64, config_hash: u64) -> Self {
        Self {
            backend,
            seed,
            config_hash,
            hash_interval: DEFAULT_HASH_INTERVAL,
            keyframe_interval: DEFAULT_KEYFRAME_INTERVAL,
            start_tick: 0,
            engine_version: ENGINE_VERSION.to_owned(),
        }
    }

    /// The format version this header is written in: 2 from tick 0,
    /// 3 from a later start tick.
    #[must_use]
    pub fn format_version(&self) -> u16 {
        if self.start_tick == 0 {
            FORMAT_VERSION
        } else {
            FORMAT_VERSION_V3
        }
    }

    /// Checks the recording parameters.
    ///
    /// # Errors
    /// `replay/header_invalid` (InvalidArgument) naming `hash_interval`
    /// (accepted ≥ 1) or `engine_version` (1..=64 bytes).
    pub fn validate(&self) -> Result<()> {
        if self.hash_interval == 0 {
            return Err(Error::invalid_argument(
                HEADER_INVALID,
                "hash_interval",
                0,
                ">= 1 tick",
            ));
        }
        let n = self.engine_version.len();
        if n == 0 || n > MAX_ENGINE_VERSION_BYTES {
            return Err(Error::invalid_argument(
                HEADER_INVALID,
                "engine_version",
                format!("{:?} ({n} bytes)", self.engine_version),
                "1..=64 bytes of UTF-8",
            ));
        }
        Ok(())
    }

    /// Checks that this recording can be replayed by a run with the given
    /// backend, config hash and engine version (the seed is the replay's
    /// own: the player uses it).
    ///
    /// # Errors
    /// `replay/identity_mismatch` (InvalidArgument) naming the first field
    /// that differs (`backend`, `config_hash`, `engine_version`), with the
    /// recorded value and the run's value.
    pub fn check_compatible(
        &self,
        backend: MathBackend,
        config_hash: u64,
        engine_version: &str,
    ) -> Result<()> {
        if self.backend != backend {
            return Err(Error::invalid_argument(
                IDENTITY_MISMATCH,
                "backend",
                self.backend,
                format!("{backend} (this run's backend)"),
            )
            .with_detail(format!(
                "the replay was recorded with {}; cross-backend replays are not bit-exact and are not supported",
                self.backend
            )));
        }
        if self.config_hash != config_hash {
            return Err(Error::invalid_argument(
                IDENTITY_MISMATCH,
                "config_hash",
                format!("{:#018x}", self.config_hash),
                format!("{config_hash:#018x} (this run's config hash)"),
            )
            .with_detail("the replay was recorded with a different simulation config"));
        }
        if self.engine_version != engine_version {
            return Err(Error::invalid_argument(
                IDENTITY_MISMATCH,
                "engine_version",
                format!("{:?}", self.engine_version),
                format!("{engine_version:?} (this engine)"),
            )
            .with_detail("state hashes are promised only within one engine version"));
        }
        Ok(())
    }

    /// The encoded header: magic, version, identity, CRC-32.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.format_version().to_le_bytes());
        let id = self.backend.id().as_bytes();
        // Backend ids are short constants (< 32 bytes); the engine version
        // is validated to <= 64 bytes before encoding.
        out.push(u8::try_from(id.len()).unwrap_or(u8::MAX));
        out.extend_from_slice(id);
        out.extend_from_slice(&self.seed.to_le_bytes());
        out.extend_from_slice(&self.config_hash.to_le_bytes());
        out.extend_from_slice(&self.hash_interval.to_le_bytes());
        out.extend_from_slice(&self.keyframe_interval.to_le_bytes());
        if self.start_tick > 0 {
            out.extend_from_slice(&self.start_tick.to_le_bytes());
        }
        let v = self.engine_version.as_bytes();
        out.push(u8::try_from(v.len()).unwrap_or(u8::MAX));
        out.extend_from_slice(v);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
}

/// A bounds-checked little-endian cursor: every read is `None` past the
/// end, never a panic.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|s| s[0])
    }

    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.take(2)?.try_into().ok().map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.take(8)?.try_into().ok().map(u64::from_le_bytes)
    }
}

/// A `replay/corrupt` error: `field` failed its check at `offset`.
#[cold]
pub(crate) fn corrupt(
    field: &'static str,
    value: impl std::fmt::Display,
    accepted: impl Into<std::borrow::Cow<'static, str>>,
    detail: String,
) -> Error {
    Error::new(ErrorCode::Corrupt, CORRUPT)
        .with_field(field)
        .with_value(value)
        .with_accepted(accepted)
        .with_detail(detail)
}

/// Decodes and checks the header; returns it, the file's format version
/// and the byte offset of the first record.
pub(crate) fn decode_header(bytes: &[u8]) -> Result<(ReplayHeader, u16, usize)> {
    let mut c = Cursor::new(bytes);
    let truncated = |c: &Cursor<'_>, what: &str| {
        corrupt(
            "header",
            format!("{} bytes", bytes.len()),
            "a complete header",
            format!(
                "the file ends inside the header (reading {what} at byte offset {})",
                c.pos
            ),
        )
    };
    let magic = c.take(8).ok_or_else(|| truncated(&c, "the magic"))?;
    if magic != MAGIC {
        return Err(corrupt(
            "magic",
            format!("{magic:02x?}"),
            "\"LAIGERPL\"",
            "byte offset 0: not a laige replay file".to_owned(),
        ));
    }
    let version = c.u16().ok_or_else(|| truncated(&c, "the version"))?;
    if !(FORMAT_VERSION_V1..=FORMAT_VERSION_V3).contains(&version) {
        return Err(Error::new(ErrorCode::Corrupt, VERSION_UNSUPPORTED)
            .with_field("version")
            .with_value(version)
            .with_accepted("1, 2 or 3")
            .with_detail(format!(
                "byte offset 8: the file is replay format version {version}; this build \
                 reads versions {FORMAT_VERSION_V1} to {FORMAT_VERSION_V3}"
            )));
    }
    let id_len = c.u8().ok_or_else(|| truncated(&c, "the backend id"))?;
    let id = c
        .take(usize::from(id_len))
        .ok_or_else(|| truncated(&c, "the backend id"))?;
    let seed = c.u64().ok_or_else(|| truncated(&c, "the seed"))?;
    let config_hash = c.u64().ok_or_else(|| truncated(&c, "the config hash"))?;
    let hash_interval = c.u32().ok_or_else(|| truncated(&c, "the hash interval"))?;
    let keyframe_interval = if version == FORMAT_VERSION_V1 {
        0
    } else {
        c.u32()
            .ok_or_else(|| truncated(&c, "the keyframe interval"))?
    };
    let start_tick = if version == FORMAT_VERSION_V3 {
        c.u64().ok_or_else(|| truncated(&c, "the start tick"))?
    } else {
        0
    };
    let v_len = c.u8().ok_or_else(|| truncated(&c, "the engine version"))?;
    let version_bytes = c
        .take(usize::from(v_len))
        .ok_or_else(|| truncated(&c, "the engine version"))?;
    let body_end = c.pos;
    let stored = c.u32().ok_or_else(|| truncated(&c, "the header CRC"))?;
    let computed = crc32(&bytes[..body_end]);
    if stored != computed {
        return Err(corrupt(
            "header_crc",
            format!("{stored:#010x}"),
            format!("{computed:#010x} (the CRC-32 of bytes 0..{body_end})"),
            format!("byte offset {body_end}: the header is damaged"),
        ));
    }
    // The CRC matched, so the fields below were written by a recorder; a
    // failure here is a file from an incompatible writer.
    let backend = std::str::from_utf8(id)
        .ok()
        .and_then(|s| s.parse::<MathBackend>().ok())
        .ok_or_else(|| {
            corrupt(
                "backend",
                format!("{:?}", String::from_utf8_lossy(id)),
                "\"fixed_point_16_16\" or \"float_pinned_32\"",
                "byte offset 11: unknown math backend id".to_owned(),
            )
        })?;
    let engine_version = std::str::from_utf8(version_bytes)
        .map_err(|_| {
            corrupt(
                "engine_version",
                format!("{version_bytes:02x?}"),
                "UTF-8 text",
                format!("byte offset {}", body_end - version_bytes.len()),
            )
        })?
        .to_owned();
    let header = ReplayHeader {
        backend,
        seed,
        config_hash,
        hash_interval,
        keyframe_interval,
        start_tick,
        engine_version,
    };
    if version == FORMAT_VERSION_V3 && start_tick == 0 {
        return Err(corrupt(
            "start_tick",
            0,
            "a start tick >= 1 (version 3 holds a recording that starts after tick 0)",
            "the header is not one a recorder writes".to_owned(),
        ));
    }
    header.validate().map_err(|e| {
        corrupt(
            "header",
            e.to_string(),
            "a header a recorder writes",
            "the header's values are out of range".to_owned(),
        )
    })?;
    Ok((header, version, c.pos))
}

/// Appends one framed record (kind, tick, length, payload, CRC-32) to
/// `out`. The payload length is checked by the caller.
pub(crate) fn encode_record(out: &mut Vec<u8>, kind: Kind, tick: u64, payload: &[u8]) {
    let start = out.len();
    out.push(kind as u8);
    out.extend_from_slice(&tick.to_le_bytes());
    let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(payload);
    // A keyframe's CRC covers its prefix; its payload has its own.
    let covered = if kind == Kind::Keyframe {
        &out[start..start + RECORD_PREFIX]
    } else {
        &out[start..]
    };
    let crc = crc32(covered);
    out.extend_from_slice(&crc.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_has_the_documented_layout() {
        let h = ReplayHeader {
            backend: MathBackend::FloatPinned32,
            seed: 0x0102_0304_0506_0708,
            config_hash: 7,
            hash_interval: 60,
            keyframe_interval: 256,
            start_tick: 0,
            engine_version: "0.1.0".to_owned(),
        };
        let mut out = Vec::new();
        h.encode(&mut out);
        assert_eq!(&out[..8], b"LAIGERPL");
        assert_eq!(&out[8..10], &[2, 0]);
        assert_eq!(out[10], 15); // "float_pinned_32"
        assert_eq!(&out[11..26], b"float_pinned_32");
        assert_eq!(&out[26..34], &[8, 7, 6, 5, 4, 3, 2, 1]);
        // 8 magic + 2 version + 1+15 id + 8 seed + 8 config + 4 interval
        // + 4 keyframe interval + 1+5 version + 4 crc
        assert_eq!(out.len(), 60);
        assert_eq!(&out[46..50], &256_u32.to_le_bytes());
        let (back, version, end) = decode_header(&out).unwrap();
        assert_eq!((back, version), (h.clone(), 2));
        assert_eq!(end, out.len());

        // A later start: version 3, the start tick after the keyframe
        // interval, 8 bytes longer.
        let late = ReplayHeader {
            start_tick: 0x1122_3344_5566_7788,
            ..h
        };
        let mut out3 = Vec::new();
        late.encode(&mut out3);
        assert_eq!(&out3[8..10], &[3, 0]);
        assert_eq!(out3.len(), 68);
        assert_eq!(&out3[50..58], &0x1122_3344_5566_7788_u64.to_le_bytes());
        assert_eq!(out3[10..50], out[10..50]);
        let (back, version, end) = decode_header(&out3).unwrap();
        assert_eq!((back, version, end), (late, 3, 68));
    }

    #[test]
    fn a_version_3_header_with_start_tick_0_is_refused() {
        let mut out = Vec::new();
        ReplayHeader::new(MathBackend::FixedPoint16_16, 1, 2).encode(&mut out);
        // Rewrite it as version 3 with a zero start tick and a valid CRC.
        let body_end = out.len() - 4;
        let mut v3 = out[..8].to_vec();
        v3.extend_from_slice(&3_u16.to_le_bytes());
        // id len + id + seed + config + hash interval + keyframe interval
        let fixed = 1 + usize::from(out[10]) + 8 + 8 + 4 + 4;
        v3.extend_from_slice(&out[10..10 + fixed]);
        v3.extend_from_slice(&0_u64.to_le_bytes());
        v3.extend_from_slice(&out[10 + fixed..body_end]);
        let crc = crc32(&v3);
        v3.extend_from_slice(&crc.to_le_bytes());
        let e = decode_header(&v3).unwrap_err();
        assert_eq!((e.field(), e.value()), (Some("start_tick"), Some("0")));
    }

    #[test]
    fn record_framing_has_the_documented_layout() {
        let mut out = Vec::new();
        encode_record(&mut out, Kind::Input, 5, &[0xaa, 0xbb]);
        assert_eq!(out.len(), RECORD_PREFIX + 2 + RECORD_CRC);
        assert_eq!(out[0], 1);
        assert_eq!(&out[1..9], &5_u64.to_le_bytes());
        assert_eq!(&out[9..13], &2_u32.to_le_bytes());
        assert_eq!(&out[13..15], &[0xaa, 0xbb]);
        assert_eq!(&out[15..19], &crc32(&out[..15]).to_le_bytes());
    }

    #[test]
    fn header_validation_names_the_field() {
        let mut h = ReplayHeader::new(MathBackend::FixedPoint16_16, 1, 2);
        assert!(h.validate().is_ok());
        h.hash_interval = 0;
        assert_eq!(h.validate().unwrap_err().field(), Some("hash_interval"));
        h.hash_interval = 1;
        h.engine_version = "x".repeat(65);
        assert_eq!(h.validate().unwrap_err().field(), Some("engine_version"));
        h.engine_version.clear();
        assert_eq!(h.validate().unwrap_err().field(), Some("engine_version"));
    }

    #[test]
    fn cursor_never_reads_past_the_end() {
        let mut c = Cursor::new(&[1, 2, 3]);
        assert_eq!(c.u16(), Some(0x0201));
        assert_eq!(c.u16(), None);
        assert_eq!(c.u8(), Some(3));
        assert_eq!(c.u8(), None);
        assert_eq!(c.take(usize::MAX), None);
    }
}
