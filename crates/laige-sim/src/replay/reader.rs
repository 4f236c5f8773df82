//! [`Replay`]: a parsed, checked replay file (or the valid prefix of a
//! damaged one).

use std::path::Path;

use laige_core::{Error, ErrorCode, Result};

use super::format::{
    Cursor, Kind, MAX_PAYLOAD_BYTES, RECORD_CRC, RECORD_PREFIX, ReplayHeader, corrupt,
    decode_header,
};
use super::{IO_FAILED, ReplayInput, crc32::crc32};
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
        /// The number of ticks recorded.
        ticks: u64,
    },
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
/// rec.record_input_bytes(0, b"jump")?;
/// let bytes = rec.finish()?;
///
/// assert_eq!(Replay::parse(&bytes)?.input(0), Some(&b"jump"[..]));
/// // A crash cut the file short: the strict parse refuses it...
/// let torn = &bytes[..bytes.len() - 3];
/// assert_eq!(Replay::parse(torn).unwrap_err().code(), ErrorCode::Corrupt);
/// // ...and the prefix parse keeps what is valid and says what is not.
/// let prefix = Replay::parse_prefix(torn)?;
/// assert_eq!(prefix.replay.ticks(), 1);
/// assert!(prefix.damage.is_some());
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Replay {
    header: ReplayHeader,
    bytes: Vec<u8>,
    records: Vec<Index>,
    /// `inputs[t]` is the record index of tick `t`'s input.
    inputs: Vec<usize>,
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
        Self::parse_owned(bytes.to_vec())
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
        let bytes = std::fs::read(path).map_err(|e| {
            let err = Error::new(ErrorCode::Io, IO_FAILED)
                .with_field("path")
                .with_value(path.display())
                .with_detail("reading the replay file")
                .with_source(e);
            emit::report(&err);
            err
        })?;
        Self::parse_owned(bytes)
    }

    fn strict(prefix: ReplayPrefix) -> Result<Self> {
        match prefix.damage {
            None => Ok(prefix.replay),
            Some(e) => Err(e),
        }
    }

    fn parse_owned(bytes: Vec<u8>) -> Result<ReplayPrefix> {
        let (header, start) = decode_header(&bytes).inspect_err(emit::report)?;
        let mut replay = Self {
            header,
            bytes: Vec::new(),
            records: Vec::new(),
            inputs: Vec::new(),
            complete: false,
        };
        let damage = replay.index_records(&bytes, start).err();
        if let Some(e) = &damage {
            emit::report(e);
        }
        replay.bytes = bytes;
        Ok(ReplayPrefix { replay, damage })
    }

    /// Indexes the records from `pos` on; stops at the first damaged one.
    fn index_records(&mut self, bytes: &[u8], mut pos: usize) -> Result<()> {
        let mut last_hash: Option<u64> = None;
        loop {
            let n = self.records.len();
            let ticks = self.inputs.len() as u64;
            let here = || {
                let after = if ticks == 0 {
                    "before the first tick's input".to_owned()
                } else {
                    format!("after tick {}'s input", ticks - 1)
                };
                format!("record {n} at byte offset {pos}, {after}")
            };
            let rest = bytes.len() - pos;
            if rest == 0 {
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
                return Err(corrupt(
                    "trailing_bytes",
                    format!("{rest} bytes"),
                    "nothing after the end record",
                    here(),
                ));
            }
            let mut c = Cursor::new(&bytes[pos..]);
            let (Some(kind_byte), Some(tick), Some(len)) = (c.u8(), c.u64(), c.u32()) else {
                return Err(corrupt(
                    "record",
                    format!("{rest} bytes"),
                    format!("at least {} bytes", RECORD_PREFIX + RECORD_CRC),
                    format!("{}: the file ends inside a record (torn tail)", here()),
                ));
            };
            if len > MAX_PAYLOAD_BYTES {
                return Err(corrupt(
                    "payload_length",
                    len,
                    "at most 1048576 bytes",
                    format!("{}: the length field is damaged", here()),
                ));
            }
            let len = len as usize;
            let total = RECORD_PREFIX + len + RECORD_CRC;
            if rest < total {
                return Err(corrupt(
                    "record",
                    format!("{rest} bytes"),
                    format!("{total} bytes (its declared length)"),
                    format!(
                        "{}: the file ends inside a record (torn tail, or a damaged length)",
                        here()
                    ),
                ));
            }
            let body = &bytes[pos..pos + RECORD_PREFIX + len];
            let stored_at = pos + RECORD_PREFIX + len;
            let stored = bytes
                .get(stored_at..stored_at + RECORD_CRC)
                .and_then(|s| s.try_into().ok())
                .map_or(0, u32::from_le_bytes);
            let computed = crc32(body);
            if stored != computed {
                return Err(corrupt(
                    "record_crc",
                    format!("{stored:#010x}"),
                    format!("{computed:#010x} (the CRC-32 of the record)"),
                    format!("{}: the record is damaged", here()),
                ));
            }
            let Some(kind) = Kind::from_byte(kind_byte) else {
                return Err(corrupt(
                    "record_kind",
                    kind_byte,
                    "1 (input), 2 (state hash) or 3 (end)",
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
            match kind {
                Kind::Input => expect_tick("tick")?,
                Kind::Hash => {
                    expect_tick("hash_tick")?;
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
                    last_hash = Some(tick);
                }
                Kind::End => {
                    expect_tick("end_tick")?;
                    if len != 0 {
                        return Err(corrupt(
                            "payload_length",
                            len,
                            "0 bytes (an end record)",
                            here(),
                        ));
                    }
                    self.complete = true;
                }
            }
            if kind == Kind::Input {
                self.inputs.push(self.records.len());
            }
            self.records.push(Index {
                kind,
                tick,
                start: pos + RECORD_PREFIX,
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

    /// The number of ticks recorded (input records).
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.inputs.len() as u64
    }

    /// Whether the file ends with its end record (a finished recording).
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The input applied to `tick`, if recorded.
    #[must_use]
    pub fn input(&self, tick: u64) -> Option<&[u8]> {
        let idx = *self.inputs.get(usize::try_from(tick).ok()?)?;
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
                format!("0..{} (the recorded ticks)", self.ticks()),
            )
        })?;
        I::decode(bytes)
    }

    /// The recorded state hashes as `(completed ticks, hash)`, in order.
    pub fn checkpoints(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.records().filter_map(|r| match r {
            Record::Hash { tick, hash } => Some((tick, hash)),
            _ => None,
        })
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
            }
        })
    }

    fn payload(&self, r: &Index) -> Option<&[u8]> {
        self.bytes.get(r.start..r.start.checked_add(r.len)?)
    }
}
