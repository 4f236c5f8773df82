//! [`NetConfig`]: a session's options and their ranges.

use std::time::Duration;

use laige_core::{Error, Result};

use crate::events;
use crate::input::MAX_PLAYERS;

/// Session options. Every field has a range, checked when the session
/// starts (`net/config_invalid`, naming the field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetConfig {
    /// Players in the session, 1..=4 (P2P needs 2 or more). Default 2.
    pub players: usize,
    /// How many ticks a peer may simulate past the last confirmed input,
    /// 0..=16. 0 is lockstep: no prediction, no rollback, every tick waits
    /// for every input. Default 8 (GGRS's default: about 130 ms at 60 Hz).
    pub max_prediction: usize,
    /// Ticks between a local input and the tick it applies to, 0..=16.
    /// Default 2 (hides about 33 ms of latency at 60 Hz, so fewer
    /// rollbacks). In lockstep, cover one-way latency with it.
    pub input_delay: usize,
    /// The tick rate, 20..=240 Hz: GGRS's time sync counts in ticks.
    /// Default 60.
    pub tick_rate_hz: usize,
    /// A peer silent this long is disconnected. Default 2 s (GGRS's).
    pub disconnect_timeout: Duration,
    /// A peer silent this long raises `net/network_interrupted`. Default
    /// 500 ms (GGRS's).
    pub disconnect_notify: Duration,
    /// The handshake may take this long before `net/sync_timeout` ends
    /// the session. Default 10 s.
    pub sync_timeout: Duration,
    /// How many confirmed `(tick, state hash)` pairs the session keeps for
    /// [`NetDriver::confirmed_hashes`](crate::NetDriver::confirmed_hashes) (allocated once; 0 keeps none, the
    /// default). While the log has room, or a session record is written,
    /// every save computes the state hash; otherwise only the checksum
    /// ticks' saves do ([`DESYNC_INTERVAL`]).
    pub confirmed_log: usize,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self {
            players: 2,
            max_prediction: 8,
            input_delay: 2,
            tick_rate_hz: 60,
            disconnect_timeout: Duration::from_secs(2),
            disconnect_notify: Duration::from_millis(500),
            sync_timeout: Duration::from_secs(10),
            confirmed_log: 0,
        }
    }
}

/// Ticks between the checksums P2P peers exchange and compare: 8.
///
/// A save only copies; the checksum (the state hash, several times the
/// copy's cost) is computed for the saves of ticks that are multiples of
/// this, the only ones GGRS reads: a desync is still reported within 8
/// ticks (about 133 ms at 60 Hz) of the tick becoming confirmed, and a
/// rollback frame of 8 re-simulated ticks hashes 1 of its saves, not 8
/// (at 10k entities the state hash costs several ticks of the float
/// backend; with 4, two hashed saves put that frame over 1.5 ms).
///
/// Why GGRS 0.13 never reads a save without a checksum: it sends the
/// checksum of frame `last sent + interval` once that frame is confirmed,
/// taking the frame's cell, or, only when that cell was already
/// overwritten, the latest saved frame up to the confirmed one (which
/// would move the sequence off the multiples for good, each later cell
/// read lacking a checksum). That cell is never overwritten: GGRS keeps
/// the last `max_prediction + 1` saved frames, every frame is saved, the
/// current frame runs at most `max_prediction` past the confirmed one, and
/// the frame to send is never below the current frame minus
/// `max_prediction` (it advances by the interval each time one is sent,
/// while the current frame advances by at most one per call). The test
/// `p2p_desync_is_detected_late_in_a_faulty_session` holds it to that: a
/// divergence hundreds of ticks into a session with rollbacks is found.
pub const DESYNC_INTERVAL: u32 = 8;

/// Most prediction (and input delay) [`NetConfig`] accepts.
pub const MAX_PREDICTION: usize = 16;

impl NetConfig {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// `net/config_invalid` naming the field.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, value: usize, accepted: &'static str| {
            Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                field,
                value,
                accepted,
            ))
        };
        if !(1..=MAX_PLAYERS).contains(&self.players) {
            return bad("players", self.players, "1..=4 players");
        }
        if self.max_prediction > MAX_PREDICTION {
            return bad("max_prediction", self.max_prediction, "0..=16 ticks");
        }
        if self.input_delay > MAX_PREDICTION {
            return bad("input_delay", self.input_delay, "0..=16 ticks");
        }
        if !(20..=240).contains(&self.tick_rate_hz) {
            return bad("tick_rate_hz", self.tick_rate_hz, "20..=240 Hz");
        }
        let ms = |d: Duration| usize::try_from(d.as_millis()).unwrap_or(usize::MAX);
        if self.disconnect_timeout < Duration::from_millis(100) {
            return bad(
                "disconnect_timeout",
                ms(self.disconnect_timeout),
                "at least 100 ms",
            );
        }
        if self.sync_timeout < Duration::from_millis(100) {
            return bad("sync_timeout", ms(self.sync_timeout), "at least 100 ms");
        }
        Ok(())
    }
}
