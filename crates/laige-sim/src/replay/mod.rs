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
//! The byte layout, versioning and every error are in the `laige_sim::replay` docs.
//!
#![doc = include_str!("contract.md")]

mod compare;
pub(crate) mod crc32;
mod format;
mod reader;
mod seek;
mod verify;
mod writer;

use laige_core::{Error, ErrorCode, Result};

pub use compare::{ReplayDifference, first_difference};
pub use format::{
    DEFAULT_HASH_INTERVAL, DEFAULT_KEYFRAME_INTERVAL, ENGINE_VERSION, FORMAT_VERSION,
    FORMAT_VERSION_V1, FORMAT_VERSION_V3, MAGIC, MAX_ENGINE_VERSION_BYTES, MAX_KEYFRAME_BYTES,
    MAX_PAYLOAD_BYTES, MAX_REPLAY_BYTES, ReplayHeader,
};
pub use reader::{Keyframe, Record, Replay, ReplayPrefix};
pub use seek::{ReplayPlayer, SeekReport, SeekStart, SeekTarget, load_start_keyframe};
pub use verify::{
    Divergence, PrefixVerification, ReplayTarget, TornVerification, Verification, WorldTarget,
    verify, verify_prefix,
};
pub use writer::ReplayRecorder;

// The replay event ids live with every other id in `events`; the
// submodules name them through this import.
use crate::events::{
    CORRUPT, DIVERGED, HEADER_INVALID, IDENTITY_MISMATCH, INCOMPLETE, INPUT_INVALID,
    INPUT_TOO_LARGE, IO_FAILED, KEYFRAME_DAMAGED, NOTHING_VERIFIED, RECORDER_STOPPED,
    TICK_OUT_OF_ORDER, TICK_OUT_OF_RANGE, VERSION_UNSUPPORTED, WORLD_NOT_AT_START,
};

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
