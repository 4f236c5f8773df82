//! What a session reports: [`Advance`] per due tick, [`NetStats`], and
//! [`NetEnd`] with its process exit code.

use std::net::SocketAddr;

use laige_core::Error;

/// Exit code: the session ended because a peer disconnected or timed out.
pub const EXIT_DISCONNECTED: u8 = 10;
/// Exit code: a desync (P2P checksums differ, or a sync test re-simulated
/// a tick differently).
pub const EXIT_DESYNC: u8 = 11;
/// Exit code: the peers never synchronized within the timeout.
pub const EXIT_SYNC_TIMEOUT: u8 = 12;
/// Exit code: a system failed (the engine's code for it).
pub const EXIT_SYSTEM_FAILED: u8 = 3;

/// Why a session ended, and its process exit code (`A`: the peers'
/// address type, as the session's [`Seat`](crate::Seat)s).
#[derive(Debug)]
pub enum NetEnd<A = SocketAddr> {
    /// A peer disconnected or timed out (exit code 10).
    Disconnected {
        /// The peer's address.
        peer: A,
    },
    /// A desync (exit code 11): the report names the tick and, where it
    /// can, the component and the entity.
    Desync {
        /// The first differing tick.
        tick: u64,
        /// What differs (component, entity, hashes).
        report: String,
    },
    /// The handshake did not finish in time (exit code 12).
    SyncTimeout,
    /// A system failed (exit code 3).
    SystemFailed(Error),
}

impl<A> NetEnd<A> {
    /// The documented process exit code.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Disconnected { .. } => EXIT_DISCONNECTED,
            Self::Desync { .. } => EXIT_DESYNC,
            Self::SyncTimeout => EXIT_SYNC_TIMEOUT,
            Self::SystemFailed(_) => EXIT_SYSTEM_FAILED,
        }
    }
}

/// What one [`NetDriver::advance`](crate::NetDriver::advance) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The handshake is still running; no tick.
    Synchronizing,
    /// One tick was simulated (after any rollback it asked for).
    Ticked,
    /// Time sync: this peer is ahead of the others, so this due tick is
    /// skipped (the loop's tick accounting slows down; nothing sleeps).
    Skipped,
    /// A remote peer is too far behind (the prediction window is full,
    /// or lockstep waits for an input); no tick.
    Waiting,
    /// The session has ended ([`NetDriver::end`](crate::NetDriver::end) says why).
    Ended,
}

/// Counters of one session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetStats {
    /// Ticks simulated for the first time.
    pub ticks: u64,
    /// Rollbacks (snapshot loads).
    pub rollbacks: u64,
    /// Ticks re-simulated by rollbacks.
    pub rolled_back_ticks: u64,
    /// The deepest prediction seen: ticks simulated past the last
    /// confirmed one.
    pub max_prediction_depth: u64,
    /// Due ticks skipped by time sync.
    pub skipped: u64,
    /// Due ticks that waited for a remote peer.
    pub waited: u64,
    /// Desyncs detected (the session ends at the first).
    pub desyncs: u64,
    /// The last round-trip time measured to a peer, ms (0 before one).
    pub rtt_ms: u64,
    /// Epoch changes (each a new GGRS session from a tick every peer
    /// agreed on).
    pub epochs: u64,
    /// Seats taken by players who joined while the session ran (a seat
    /// nobody held before).
    pub joins: u64,
    /// Seats taken again after their player left.
    pub rejoins: u64,
    /// Epoch boundaries where a member's state differed from the host's
    /// and was replaced by it (counted by the host and by the member).
    pub resyncs: u64,
    /// Epoch boundaries where this peer re-simulated from a kept
    /// confirmed state to drop a lost player's inputs after the frame the
    /// survivors agreed on (see `net.md`, exact leaves).
    pub leave_replays: u64,
    /// Bytes of encoded world this peer sent or received for joins.
    pub snapshot_bytes: u64,
    /// Received datagrams dropped because their integrity tag did not
    /// verify (damaged on the way, sealed under another key, or not a
    /// session datagram: a lobby's late message on the same port): GGRS
    /// never saw them.
    pub dropped_damaged: u64,
    /// Received datagrams dropped because they came from an address not
    /// in the session.
    pub dropped_unknown_peer: u64,
}
