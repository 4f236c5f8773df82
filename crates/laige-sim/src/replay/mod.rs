//! Replays: record a run's identity and per-tick input, play it back
//! headless, and compare the state hash with the hashes recorded beside
//! the inputs.
//!
//! A replay reproduces a run because the simulation is a pure function of
//! *inputs + seed + math backend + config* (sim_math.md "Backends",
//! game_loop.md "Determinism scope"): the [`ReplayHeader`] holds the
//! identity (format version, backend id, seed, config hash, engine
//! version), the records hold each tick's input and, every
//! `hash_interval` ticks, [`World::state_hash`](crate::World::state_hash)
//! (which covers the tick counter and every hashed component).
//!
//! * [`ReplayRecorder`] writes incrementally — one CRC-32-checked record per
//!   write, flushed — so a crash leaves a readable prefix.
//! * [`Replay::parse`] / [`Replay::read`] check everything and refuse any
//!   damage; [`Replay::parse_prefix`] / [`Replay::read_prefix`] return the
//!   valid prefix and the damage. Bad bytes are a `replay/corrupt` error
//!   naming the byte offset, the tick and the check — never a panic.
//! * [`verify`] plays the inputs of a complete replay on a [`ReplayTarget`]
//!   (a [`WorldTarget`] for a plain world) and names the first tick whose
//!   hash differs; [`verify_prefix`] plays the valid prefix of a torn file
//!   and says so in its type ([`PrefixVerification::Torn`]: "torn after
//!   tick N; verified ticks 0..M"). A playback that compared no state hash
//!   is a failure (`replay/nothing_verified`), never a success.
//!
//! The module is generic over the input: a record holds bytes, and the
//! game's input type implements [`ReplayInput`] to encode and decode them.
//! The byte layout, versioning and every error are in `docs/api/replay.md`.

mod crc32;
mod format;
mod reader;
mod verify;
mod writer;

use laige_core::{Error, ErrorCode, EventId, Result};

pub use format::{
    DEFAULT_HASH_INTERVAL, ENGINE_VERSION, FORMAT_VERSION, MAGIC, MAX_ENGINE_VERSION_BYTES,
    MAX_PAYLOAD_BYTES, MAX_REPLAY_BYTES, ReplayHeader,
};
pub use reader::{Record, Replay, ReplayPrefix};
pub use verify::{
    Divergence, PrefixVerification, ReplayTarget, TornVerification, Verification, WorldTarget,
    verify, verify_prefix,
};
pub use writer::ReplayRecorder;

/// `replay/corrupt` (Corrupt): a damaged header or record, a torn tail, a
/// missing end record; field = the failed check (`magic`, `header_crc`,
/// `record`, `record_crc`, `record_kind`, `payload_length`, `tick`,
/// `hash_tick`, `hash_missing`, `end_tick`, `end_record`,
/// `trailing_bytes`, `file_size`, `backend`, `engine_version`, `header`),
/// detail = byte offset and tick.
pub const CORRUPT: EventId = EventId::new("replay", "corrupt");
/// `replay/version_unsupported` (Corrupt): the file's format version is
/// not the one this build reads (field `version`).
pub const VERSION_UNSUPPORTED: EventId = EventId::new("replay", "version_unsupported");
/// `replay/identity_mismatch` (InvalidArgument): the replay was recorded
/// with another backend, config hash or engine version.
pub const IDENTITY_MISMATCH: EventId = EventId::new("replay", "identity_mismatch");
/// `replay/header_invalid` (InvalidArgument): a header with a zero hash
/// interval or an empty / over-long engine version.
pub const HEADER_INVALID: EventId = EventId::new("replay", "header_invalid");
/// `replay/io_failed` (Io): the file could not be created, written or read.
pub const IO_FAILED: EventId = EventId::new("replay", "io_failed");
/// `replay/tick_out_of_order` (InvalidArgument): a record for a tick other
/// than the next one (nothing is written).
pub const TICK_OUT_OF_ORDER: EventId = EventId::new("replay", "tick_out_of_order");
/// `replay/tick_out_of_range` (InvalidArgument): a tick the replay does not
/// hold.
pub const TICK_OUT_OF_RANGE: EventId = EventId::new("replay", "tick_out_of_range");
/// `replay/input_too_large` (InvalidArgument): one tick's input over
/// [`MAX_PAYLOAD_BYTES`].
pub const INPUT_TOO_LARGE: EventId = EventId::new("replay", "input_too_large");
/// `replay/input_invalid` (Corrupt): recorded input bytes that do not
/// decode (use it in [`ReplayInput::decode`]).
pub const INPUT_INVALID: EventId = EventId::new("replay", "input_invalid");
/// `replay/recorder_stopped` (InvalidState): recording after a write
/// failure.
pub const RECORDER_STOPPED: EventId = EventId::new("replay", "recorder_stopped");
/// `replay/world_not_at_start` (InvalidState): a [`WorldTarget`]'s world
/// is not at the tick the replay plays next.
pub const WORLD_NOT_AT_START: EventId = EventId::new("replay", "world_not_at_start");
/// `replay/diverged` (Failed): playback produced a state hash other than
/// the recorded one ([`Divergence::to_error`]).
pub const DIVERGED: EventId = EventId::new("replay", "diverged");
/// `replay/nothing_verified` (Failed): a playback compared no recorded
/// state hash, so it proves nothing (a failure, not a vacuous success).
pub const NOTHING_VERIFIED: EventId = EventId::new("replay", "nothing_verified");
/// `replay/incomplete` (InvalidArgument): [`verify`] was given the prefix
/// of a torn or damaged file; [`verify_prefix`] verifies one and says so.
pub const INCOMPLETE: EventId = EventId::new("replay", "incomplete");

/// One tick's input as replay bytes. The encoding is the game's; it must
/// be a pure function of the value (no pointers, no `HashMap` order, no
/// platform widths), and `decode(encode(x)) == x`.
///
/// ```
/// use laige_sim::replay::{self, ReplayInput};
///
/// #[derive(Debug, PartialEq)]
/// struct Thrust { player: u8, dx: i16 }
///
/// impl ReplayInput for Thrust {
///     fn encode(&self, out: &mut Vec<u8>) {
///         out.push(self.player);
///         out.extend_from_slice(&self.dx.to_le_bytes());
///     }
///     fn decode(bytes: &[u8]) -> laige_core::Result<Self> {
///         match bytes {
///             [player, a, b] => Ok(Thrust { player: *player, dx: i16::from_le_bytes([*a, *b]) }),
///             _ => Err(replay::input_invalid("Thrust", bytes.len(), "3 bytes")),
///         }
///     }
/// }
///
/// let mut buf = Vec::new();
/// Thrust { player: 1, dx: -5 }.encode(&mut buf);
/// assert_eq!(Thrust::decode(&buf)?, Thrust { player: 1, dx: -5 });
/// assert!(Thrust::decode(&[1]).is_err());
/// # Ok::<(), laige_core::Error>(())
/// ```
pub trait ReplayInput {
    /// Appends this value's encoding to `out` (must not allocate beyond
    /// growing `out`, which the recorder reuses).
    fn encode(&self, out: &mut Vec<u8>);

    /// Decodes a value from exactly the bytes `encode` wrote.
    ///
    /// # Errors
    /// Bytes that are not an encoding of `Self`: return
    /// [`input_invalid`] (`replay/input_invalid`, Corrupt).
    fn decode(bytes: &[u8]) -> Result<Self>
    where
        Self: Sized;
}

/// A `replay/input_invalid` (Corrupt) error for input bytes that do not
/// decode as `what`: `value` is what was found, `accepted` what is.
#[cold]
#[must_use]
pub fn input_invalid(
    what: &'static str,
    value: impl std::fmt::Display,
    accepted: &'static str,
) -> Error {
    Error::new(ErrorCode::Corrupt, INPUT_INVALID)
        .with_field(what)
        .with_value(value)
        .with_accepted(accepted)
}

/// No input: an empty record per tick.
impl ReplayInput for () {
    fn encode(&self, _out: &mut Vec<u8>) {}

    fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.is_empty() {
            Ok(())
        } else {
            Err(input_invalid(
                "()",
                format!("{} bytes", bytes.len()),
                "0 bytes",
            ))
        }
    }
}

/// Raw bytes, verbatim.
impl ReplayInput for Vec<u8> {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self);
    }

    fn decode(bytes: &[u8]) -> Result<Self> {
        Ok(bytes.to_vec())
    }
}
