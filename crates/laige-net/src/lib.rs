//! # laige-net
//!
//! Multiplayer for laige games on [GGRS](https://github.com/gschup/ggrs)
//! (the Rust reimagination of GGPO): players on different machines share
//! one deterministic simulation by sending only their inputs.
//!
//! In order of importance:
//!
//! 1. **[`NetSession`]**: a laige [`World`](laige_sim::World) run by a GGRS
//!    session — P2P rollback (2–4 players over UDP, or WebRTC with the
//!    `webrtc` feature: `WebRtcTransport`), lockstep
//!    (`max_prediction: 0`), spectator, sync test — with whole-world
//!    snapshots ([`laige_sim::snapshot`]) for every save and load GGRS asks
//!    for, in order.
//! 2. **[`PlayerInput`]**: the game's small fixed-size input per player per
//!    tick, built from the local input events; systems read every player's
//!    input and its status through [`PlayerInputs`].
//! 3. **Reports**: disconnects, timeouts and desyncs as structured,
//!    rate-limited events ([`events`]) and an orderly [`NetEnd`] with an
//!    exit code; a sync-test mismatch names the component and the entity.
//! 4. **[`SealedSocket`]**: every datagram carries a keyed integrity tag,
//!    verified before GGRS sees it; a damaged or foreign one is dropped and
//!    counted ([`NetStats::dropped_damaged`]), never delivered.
//! 5. **[`fault::FaultyTransport`]**: latency, jitter, loss, duplication,
//!    reordering, flipped bits, truncation, appended bytes and replays on
//!    loopback, for tests of a game's own sessions.
//!
//! **Architecture invariants:** laige-net never depends on laige-render: a
//! session is simulation only; presentation reads the world it advances.
//! No received byte reaches GGRS unless its datagram's integrity tag
//! verified and its sender is a peer of the session.
#![doc = include_str!("net.md")]

mod config;
mod desync;
mod driver;
pub mod events;
pub mod fault;
mod input;
mod outcome;
mod owned;
mod pace;
mod record;
mod seal;
mod seat;
mod session;
mod transport;
#[cfg(feature = "webrtc")]
mod webrtc;

pub use config::{DESYNC_INTERVAL, MAX_PREDICTION, NetConfig};
pub use driver::{NetReport, TickDriver};
pub use input::{InputStatus, MAX_PLAYERS, PlayerInput, PlayerInputs};
pub use outcome::{
    Advance, EXIT_DESYNC, EXIT_DISCONNECTED, EXIT_SYNC_TIMEOUT, EXIT_SYSTEM_FAILED, NetEnd,
    NetStats,
};
pub use owned::NetSession;
pub use pace::TickPacer;
pub use record::replay_session;
pub use seal::{IntegrityStats, SealedSocket, SessionKey, TAG_BYTES};
pub use seat::Seat;
pub use transport::{PeerAddr, Transport, UdpTransport};
#[cfg(feature = "webrtc")]
pub use webrtc::{PeerId, WebRtcRoom, WebRtcTransport};

/// The UDP socket of a session: [`UdpTransport`] datagrams, sealed.
pub type UdpNonBlockingSocket = SealedSocket<UdpTransport>;
pub use session::{EpochChange, EpochSocket, GgrsConfig, NetDriver, SocketFactory};
