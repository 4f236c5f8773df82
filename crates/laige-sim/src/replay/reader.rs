//! [`Replay`]: a parsed, checked replay file (or the valid prefix of a
//! damaged one).
//!
//! Reading streams: the magic is checked from the first 8 bytes, then the
//! header, then one record at a time, each checked before the next is
//! read, so a foreign or damaged file costs the bytes up to its first
//! damage, and a file of valid records stops at [`MAX_REPLAY_BYTES`].
//! Only the payloads are kept in memory.

use std::io::Read;
use std::path::Path;

use laige_core::{Error, ErrorCode, Result};

use super::crc32::Crc32;
use super::format::{
    Cursor, FORMAT_VERSION, Kind, MAGIC, MAX_HEADER_BYTES, MAX_KEYFRAME_BYTES, MAX_PAYLOAD_BYTES,
    MAX_REPLAY_BYTES, RECORD_CRC, RECORD_PREFIX, ReplayHeader, corrupt, decode_header,
};
use super::{IO_FAILED, ReplayInput};
use crate::emit;

/// One record of a replay, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record<'a> {
    /// The input applied to tick `tick` (before it ran).
    Input {
        /// The tick the input is applied to (0-based).
        tick: u64,
        /// The encoded input.
        payload: &'a [u8],
    },
    /// The state hash after `tick` completed ticks.
    Hash {
        /// The completed tick count (`World::tick()`).
        tick: u64,
        /// The recorded state hash.
        hash: u64,
    },
    /// The clean end of the recording.
    End {
        /// The completed tick count at the end (the number of ticks
        /// recorded, from a start at tick 0).
        ticks: u64,
    },
    /// A keyframe: the encoded world snapshot after `tick` completed ticks
    /// (format version 2). Its payload may be damaged (its own CRC-32
    /// failed): see [`Replay::keyframes`].
    Keyframe {
        /// The completed tick count the snapshot holds.
        tick: u64,
        /// The encoded snapshot (`World::decode_snapshot`'s bytes).
        payload: &'a [u8],
    },
}

/// One keyframe of a replay ([`Replay::keyframes`]).
#[derive(Clone, Copy, Debug)]
pub struct Keyframe<'a> {
    /// The completed tick count the snapshot holds.
    pub tick: u64,
    /// The encoded snapshot.
    pub bytes: &'a [u8],
    /// Why it cannot be used, when its bytes failed the snapshot format's
    /// header and checksum checks at read time (`replay/keyframe_damaged`).
    pub damage: Option<&'a Error>,
}

#[derive(Clone, Copy, Debug)]
struct Index {
    kind: Kind,
    tick: u64,
    start: usize,
    len: usize,
}

/// A parsed replay: the header and every record, checked (CRC-32 per
/// record, consecutive ticks, hash records at the tick count they follow,
/// nothing after the end record).
///
/// ```
/// use laige_core::{ErrorCode, MathBackend};
/// use laige_sim::replay::{Replay, ReplayHeader, ReplayRecorder};
///
/// let mut rec = ReplayRecorder::new(Vec::new(), ReplayHeader::new(MathBackend::default(), 1, 2))?;
/// rec.record_hash(0, 0x5eed)?; // the state after setup
/// rec.record_input_bytes(0, b"jump")?;
/// rec.record_hash(1, 0x5eee)?; // due after every tick (the default interval)
/// let bytes = rec.finish()?;
///
/// assert_eq!(Replay::parse(&bytes)?.input(0), Some(&b"jump"[..]));
/// // A crash cut the file short: the strict parse refuses it...
/// let torn = &bytes[..bytes.len() - 3];
/// assert_eq!(Replay::parse(torn).unwrap_err().code(), ErrorCode::Corrupt);
/// // ...and the prefix parse keeps what is valid and says what is not.
/// let prefix = Replay::parse_prefix(torn)?;
/// assert_eq!(prefix.replay.ticks(), 1);
/// assert!(prefix.damage.is_some() && prefix.is_torn());
///
/// // A state hash the header's interval promises, removed: damage, named
/// // with its tick.
/// let mut rec = ReplayRecorder::new(Vec::new(), ReplayHeader::new(MathBackend::default(), 1, 2))?;
/// rec.record_input_bytes(0, b"jump")?;
/// let e = Replay::parse(&rec.finish()?).unwrap_err();
/// assert_eq!((e.field(), e.value()), (Some("hash_missing"), Some("0")));
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Replay {
    header: ReplayHeader,
    bytes: Vec<u8>,
    records: Vec<Index>,
    /// `inputs[t]` is the record index of tick `t`'s input.
    inputs: Vec<usize>,
    /// `(completed ticks, hash)` of every state hash record, in order.
    hashes: Vec<(u64, u64)>,
    /// `(record index, damage)` of every keyframe record, in order.
    keyframes: Vec<(usize, Option<Error>)>,
    /// The file's format version.
    version: u16,
    complete: bool,
}

/// The valid prefix of a replay file and what ended it early, if anything.
#[derive(Debug)]
pub struct ReplayPrefix {
    /// Every record before the first damaged one.
    pub replay: Replay,
    /// Why the file stops being valid: `replay/corrupt` naming the byte
    /// offset, the last good tick and the failed check (a torn tail, a bad
    /// CRC, a missing end record). `None` for an intact, finished file.
    pub damage: Option<Error>,
}

impl ReplayPrefix {
    /// Whether the file is *torn*: intact up to a point where it simply
    /// ends (inside a record, or on a record boundary without the end
    /// record), as a crash, a kill or a full disk leaves a recording.
    /// `false` for a complete file and for damage inside the file (a bad
    /// CRC, a broken tick sequence, a missing state hash).
    #[must_use]
    pub fn is_torn(&self) -> bool {
        self.damage
            .as_ref()
            .is_some_and(|e| matches!(e.field(), Some("record" | "end_record")))
    }

    /// The records a playback may verify: the whole replay of an intact
    /// file, or the valid prefix of a torn one together with why it ends
    /// (the caller reports the run as torn).
    ///
    /// # Errors
    /// The damage itself when it sits inside the file (a bad CRC, a broken
    /// tick sequence): nothing of such a file is played back.
    pub fn into_playable(self) -> Result<(Replay, Option<Error>)> {
        let torn = self.is_torn();
        match self.damage {
            None => Ok((self.replay, None)),
            Some(damage) if torn => Ok((self.replay, Some(damage))),
            Some(damage) => Err(damage),
        }
    }
}

impl Replay {
    /// Parses a whole replay, refusing any damage.
    ///
    /// # Errors
    /// `replay/corrupt` (Corrupt) for a damaged header or record, a
    /// truncated file or a missing end record; `replay/version_unsupported`
    /// (Corrupt) for another format version. The message names the byte
    /// offset, the tick and the check that failed.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        Self::strict(Self::parse_prefix(bytes)?)
    }

    /// Parses the valid prefix of a replay: a file a crash cut short (or
    /// damaged later on) yields every record before the damage, and the
    /// damage as [`ReplayPrefix::damage`].
    ///
    /// # Errors
    /// As [`parse`](Self::parse), for a damaged header only (no prefix
    /// exists without a header).
    pub fn parse_prefix(bytes: &[u8]) -> Result<ReplayPrefix> {
        Self::from_reader(bytes)
    }

    /// Reads and parses the file at `path`, refusing any damage.
    ///
    /// # Errors
    /// `replay/io_failed` (Io, naming the path) if it cannot be read; as
    /// [`parse`](Self::parse) otherwise.
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        Self::strict(Self::read_prefix(path)?)
    }

    /// Reads the valid prefix of the file at `path` (see
    /// [`parse_prefix`](Self::parse_prefix)).
    ///
    /// # Errors
    /// `replay/io_failed` if it cannot be read; a damaged header.
    pub fn read_prefix(path: impl AsRef<Path>) -> Result<ReplayPrefix> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| {
            let err = Error::new(ErrorCode::Io, IO_FAILED)
                .with_field("path")
                .with_value(path.display())
                .with_detail("opening the replay file")
                .with_source(e);
            emit::report(&err);
            err
        })?;
        Self::from_reader(std::io::BufReader::new(file)).map_err(|e| {
            if e.id() == IO_FAILED {
                e.with_field("path").with_value(path.display())
            } else {
                e
            }
        })
    }

    fn strict(prefix: ReplayPrefix) -> Result<Self> {
        match prefix.damage {
            None => Ok(prefix.replay),
            Some(e) => Err(e),
        }
    }

    /// Streams a replay from `src` (see the module docs): the magic, the
    /// header, then the records up to the first damage.
    fn from_reader(mut src: impl Read) -> Result<ReplayPrefix> {
        let mut head = Vec::with_capacity(MAX_HEADER_BYTES);
        read_up_to(&mut src, &mut head, MAGIC.len()).inspect_err(emit::report)?;
        if head.len() == MAGIC.len() && head[..] == MAGIC {
            read_up_to(&mut src, &mut head, MAX_HEADER_BYTES - MAGIC.len())
                .inspect_err(emit::report)?;
        }
        // A foreign file fails here on its first 8 bytes.
        let (header, version, start) = decode_header(&head).inspect_err(emit::report)?;
        let mut replay = Self {
            header,
            bytes: Vec::new(),
            records: Vec::new(),
            inputs: Vec::new(),
            hashes: Vec::new(),
            keyframes: Vec::new(),
            version,
            complete: false,
        };
        let rest = head.split_off(start);
        let damage = replay
            .index_records(&mut (&rest[..]).chain(src), start)
            .err();
        if let Some(e) = &damage {
            emit::report(e);
        }
        Ok(ReplayPrefix { replay, damage })
    }

    /// Reads and indexes the records from `src` (which starts at byte
    /// offset `pos` of the file); stops at the first damaged one. Payloads
    /// are kept in `self.bytes`.
    fn index_records(&mut self, src: &mut impl Read, mut pos: usize) -> Result<()> {
        let mut last_hash: Option<u64> = None;
        let mut last_keyframe: Option<u64> = None;
        let interval = u64::from(self.header.hash_interval);
        let start_tick = self.header.start_tick;
        let mut prefix = [0_u8; RECORD_PREFIX];
        let mut crc_bytes = [0_u8; RECORD_CRC];
        loop {
            let n = self.records.len();
            let first = self.inputs.is_empty();
            // The completed tick count so far: the start plus the inputs.
            let ticks = start_tick + self.inputs.len() as u64;
            let here = || {
                let after = if first {
                    "before the first tick's input".to_owned()
                } else {
                    format!("after tick {}'s input", ticks - 1)
                };
                format!("record {n} at byte offset {pos}, {after}")
            };
            let got = read_full(src, &mut prefix)?;
            if got == 0 {
                if self.complete {
                    return Ok(());
                }
                return Err(corrupt(
                    "end_record",
                    "missing",
                    "an end record",
                    format!(
                        "{}: the recording stopped after {ticks} tick(s) without finishing \
                         (a crash, or still being written)",
                        here()
                    ),
                ));
            }
            if self.complete {
                let more = if got == RECORD_PREFIX { " or more" } else { "" };
                return Err(corrupt(
                    "trailing_bytes",
                    format!("{got}{more} bytes"),
                    "nothing after the end record",
                    here(),
                ));
            }
            let mut c = Cursor::new(&prefix[..got]);
            let (Some(kind_byte), Some(tick), Some(len)) = (c.u8(), c.u64(), c.u32()) else {
                return Err(corrupt(
                    "record",
                    format!("{got} bytes"),
                    format!("at least {} bytes", RECORD_PREFIX + RECORD_CRC),
                    format!("{}: the file ends inside a record (torn tail)", here()),
                ));
            };
            // The kind byte is not trusted yet (the CRC comes after the
            // payload): it only picks the cap the length is held to.
            let is_keyframe = kind_byte == Kind::Keyframe as u8;
            let (cap, cap_text) = if is_keyframe {
                (MAX_KEYFRAME_BYTES, "at most 67108864 bytes (a keyframe)")
            } else {
                (MAX_PAYLOAD_BYTES, "at most 1048576 bytes")
            };
            if len > cap {
                return Err(corrupt(
                    "payload_length",
                    len,
                    cap_text,
                    format!("{}: the length field is damaged", here()),
                ));
            }
            let len = len as usize;
            let total = RECORD_PREFIX + len + RECORD_CRC;
            if pos.saturating_add(total) > MAX_REPLAY_BYTES {
                return Err(corrupt(
                    "file_size",
                    format!("more than {MAX_REPLAY_BYTES} bytes"),
                    "at most 268435456 bytes (256 MiB)",
                    format!("{}: the file is larger than a replay may be", here()),
                ));
            }
            let start = self.bytes.len();
            self.bytes.resize(start + len, 0);
            let got_payload = read_full(src, &mut self.bytes[start..])?;
            let got_crc = if got_payload == len {
                read_full(src, &mut crc_bytes)?
            } else {
                0
            };
            if got_payload + got_crc < len + RECORD_CRC {
                self.bytes.truncate(start);
                return Err(corrupt(
                    "record",
                    format!("{} bytes", RECORD_PREFIX + got_payload + got_crc),
                    format!("{total} bytes (its declared length)"),
                    format!(
                        "{}: the file ends inside a record (torn tail, or a damaged length)",
                        here()
                    ),
                ));
            }
            let stored = u32::from_le_bytes(crc_bytes);
            let mut crc = Crc32::default();
            crc.update(&prefix);
            // A keyframe's CRC covers its prefix; its payload has its own.
            if !is_keyframe {
                crc.update(&self.bytes[start..]);
            }
            let computed = crc.finish();
            // Until the record is accepted below, its payload is not kept.
            let keep = start;
            if stored != computed {
                self.bytes.truncate(keep);
                return Err(corrupt(
                    "record_crc",
                    format!("{stored:#010x}"),
                    format!("{computed:#010x} (the CRC-32 of the record)"),
                    format!("{}: the record is damaged", here()),
                ));
            }
            let kind = Kind::from_byte(kind_byte)
                .filter(|k| *k != Kind::Keyframe || self.version >= FORMAT_VERSION);
            let Some(kind) = kind else {
                self.bytes.truncate(keep);
                return Err(corrupt(
                    "record_kind",
                    kind_byte,
                    if self.version >= FORMAT_VERSION {
                        "1 (input), 2 (state hash), 3 (end) or 4 (keyframe)"
                    } else {
                        "1 (input), 2 (state hash) or 3 (end) in a version-1 file"
                    },
                    here(),
                ));
            };
            let expect_tick = |field: &'static str| {
                if tick == ticks {
                    Ok(())
                } else {
                    Err(corrupt(
                        field,
                        tick,
                        format!("{ticks} (the ticks before it)"),
                        format!("{}: the tick sequence is broken", here()),
                    ))
                }
            };
            // The header's interval is a promise: a state hash after every
            // `hash_interval` ticks (and after setup, tick 0). An input or
            // the end record where one is due but absent is damage.
            let expect_hash = || {
                let due = ticks.is_multiple_of(interval) || ticks == start_tick;
                if due && last_hash != Some(ticks) {
                    Err(corrupt(
                        "hash_missing",
                        ticks,
                        format!(
                            "a state hash after every {interval} tick(s) (the header's \
                             hash_interval) and at the start"
                        ),
                        format!(
                            "{}: the state hash after {ticks} completed tick(s) is missing",
                            here()
                        ),
                    ))
                } else {
                    Ok(())
                }
            };
            // A recording from a later start is played from its start
            // tick's keyframe: it comes before the first input.
            let expect_start_keyframe = || {
                if start_tick > 0 && first && last_keyframe != Some(start_tick) {
                    Err(corrupt(
                        "keyframe_missing",
                        start_tick,
                        "the keyframe of the start tick before the first input",
                        format!(
                            "{}: a recording that starts at tick {start_tick} has no \
                             state to play from",
                            here()
                        ),
                    ))
                } else {
                    Ok(())
                }
            };
            let checked = match kind {
                Kind::Input => expect_tick("tick")
                    .and_then(|()| expect_hash())
                    .and_then(|()| expect_start_keyframe()),
                Kind::Hash => expect_tick("hash_tick").and_then(|()| {
                    if last_hash == Some(tick) {
                        return Err(corrupt(
                            "hash_tick",
                            tick,
                            "one state hash per tick",
                            format!("{}: a duplicate state hash", here()),
                        ));
                    }
                    if len != 8 {
                        return Err(corrupt(
                            "payload_length",
                            len,
                            "8 bytes (a u64 state hash)",
                            here(),
                        ));
                    }
                    Ok(())
                }),
                Kind::End => expect_tick("end_tick").and_then(|()| {
                    if len != 0 {
                        return Err(corrupt(
                            "payload_length",
                            len,
                            "0 bytes (an end record)",
                            here(),
                        ));
                    }
                    expect_hash().and_then(|()| expect_start_keyframe())
                }),
                Kind::Keyframe => expect_tick("keyframe_tick").and_then(|()| {
                    if last_keyframe == Some(tick) {
                        return Err(corrupt(
                            "keyframe_tick",
                            tick,
                            "one keyframe per tick",
                            format!("{}: a duplicate keyframe", here()),
                        ));
                    }
                    Ok(())
                }),
            };
            if let Err(e) = checked {
                self.bytes.truncate(keep);
                return Err(e);
            }
            match kind {
                Kind::Input => {}
                Kind::Hash => {
                    last_hash = Some(tick);
                    let hash = self.bytes[keep..keep + 8]
                        .try_into()
                        .map_or(0, u64::from_le_bytes);
                    self.hashes.push((tick, hash));
                }
                Kind::End => self.complete = true,
                Kind::Keyframe => {
                    last_keyframe = Some(tick);
                    // A damaged snapshot is reported and skipped: the
                    // inputs and hashes around it are intact.
                    let damage = crate::snapshot::check_encoded(&self.bytes[keep..])
                        .err()
                        .map(|e| keyframe_damaged(tick, &e, &here()));
                    if let Some(e) = &damage {
                        emit::report(e);
                    }
                    self.keyframes.push((self.records.len(), damage));
                }
            }
            if kind == Kind::Input {
                self.inputs.push(self.records.len());
            }
            self.records.push(Index {
                kind,
                tick,
                start: keep,
                len,
            });
            pos += total;
        }
    }

    /// The header (the run's identity).
    #[must_use]
    pub fn header(&self) -> &ReplayHeader {
        &self.header
    }

    /// The file's format version ([`FORMAT_VERSION`](super::FORMAT_VERSION),
    /// [`FORMAT_VERSION_V3`](super::FORMAT_VERSION_V3) for a later start, or
    /// the older [`FORMAT_VERSION_V1`](super::FORMAT_VERSION_V1)).
    #[must_use]
    pub fn format_version(&self) -> u16 {
        self.version
    }

    /// The keyframes, in tick order; a damaged one carries its
    /// `replay/keyframe_damaged` error.
    pub fn keyframes(&self) -> impl ExactSizeIterator<Item = Keyframe<'_>> + '_ {
        self.keyframes.iter().map(|(idx, damage)| {
            let r = &self.records[*idx];
            Keyframe {
                tick: r.tick,
                bytes: self.payload(r).unwrap_or(&[]),
                damage: damage.as_ref(),
            }
        })
    }

    /// The recorded state hash after `completed` ticks, if one was
    /// recorded (a binary search).
    #[must_use]
    pub fn hash_at(&self, completed: u64) -> Option<u64> {
        self.hashes
            .binary_search_by_key(&completed, |&(t, _)| t)
            .ok()
            .map(|i| self.hashes[i].1)
    }

    /// The number of ticks recorded (input records).
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.inputs.len() as u64
    }

    /// The completed tick count the recording starts from: 0, or the
    /// header's later start ([`ReplayHeader::start_tick`], a format-version-3
    /// file whose playback loads that tick's keyframe).
    #[must_use]
    pub fn start_tick(&self) -> u64 {
        self.header.start_tick
    }

    /// The completed tick count after the last recorded input
    /// ([`start_tick`](Self::start_tick) + [`ticks`](Self::ticks)).
    #[must_use]
    pub fn end_tick(&self) -> u64 {
        self.header.start_tick + self.ticks()
    }

    /// The keyframe of the start tick, which a recording from a later
    /// start is played from (`None` for a start at tick 0 without one).
    #[must_use]
    pub fn start_keyframe(&self) -> Option<Keyframe<'_>> {
        self.keyframes().find(|k| k.tick == self.header.start_tick)
    }

    /// Whether the file ends with its end record (a finished recording).
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The input applied to `tick`, if recorded.
    #[must_use]
    pub fn input(&self, tick: u64) -> Option<&[u8]> {
        let at = tick.checked_sub(self.header.start_tick)?;
        let idx = *self.inputs.get(usize::try_from(at).ok()?)?;
        self.payload(&self.records[idx])
    }

    /// The input applied to `tick`, decoded.
    ///
    /// # Errors
    /// `replay/tick_out_of_range` (InvalidArgument) if `tick` was not
    /// recorded; the decoder's error otherwise.
    pub fn input_as<I: ReplayInput>(&self, tick: u64) -> Result<I> {
        let bytes = self.input(tick).ok_or_else(|| {
            Error::invalid_argument(
                super::TICK_OUT_OF_RANGE,
                "tick",
                tick,
                format!(
                    "{}..{} (the recorded ticks)",
                    self.start_tick(),
                    self.end_tick()
                ),
            )
        })?;
        I::decode(bytes)
    }

    /// The recorded state hashes as `(completed ticks, hash)`, in order.
    pub fn checkpoints(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.hashes.iter().copied()
    }

    /// Every record, in file order.
    pub fn records(&self) -> impl ExactSizeIterator<Item = Record<'_>> + '_ {
        self.records.iter().map(|r| {
            let payload = self.payload(r).unwrap_or(&[]);
            match r.kind {
                Kind::Input => Record::Input {
                    tick: r.tick,
                    payload,
                },
                Kind::Hash => Record::Hash {
                    tick: r.tick,
                    hash: payload.try_into().ok().map_or(0, u64::from_le_bytes),
                },
                Kind::End => Record::End { ticks: r.tick },
                Kind::Keyframe => Record::Keyframe {
                    tick: r.tick,
                    payload,
                },
            }
        })
    }

    fn payload(&self, r: &Index) -> Option<&[u8]> {
        self.bytes.get(r.start..r.start.checked_add(r.len)?)
    }
}

/// A `replay/keyframe_damaged` error for the keyframe of `tick`, whose
/// snapshot check failed with `e`.
#[cold]
pub(crate) fn keyframe_damaged(tick: u64, e: &Error, where_: &str) -> Error {
    Error::new(ErrorCode::Corrupt, super::KEYFRAME_DAMAGED)
        .with_field("keyframe")
        .with_value(tick)
        .with_accepted("an intact encoded snapshot of this build's world")
        .with_detail(format!(
            "{where_}: the keyframe of tick {tick} is unusable: {e}"
        ))
}

/// Reads until `buf` is full or the source ends; returns the bytes read.
fn read_full(src: &mut impl Read, buf: &mut [u8]) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match src.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read_failed(e)),
        }
    }
    Ok(got)
}

/// Appends up to `n` more bytes of `src` to `out` (fewer at its end).
fn read_up_to(src: &mut impl Read, out: &mut Vec<u8>, n: usize) -> Result<()> {
    src.take(n as u64).read_to_end(out).map_err(read_failed)?;
    Ok(())
}

fn read_failed(e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, IO_FAILED)
        .with_detail("reading the replay file")
        .with_source(e)
}
