//! [`Seat`]: who sits where in a P2P session.

use std::net::SocketAddr;

/// One seat of a P2P session; `A` is the peers' address type (a WebRTC
/// peer id instead of a `SocketAddr`, say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat<A = SocketAddr> {
    /// A player on this machine.
    Local,
    /// A player on the peer at this address.
    Remote(A),
    /// A seat nobody takes (yet): its input is the default, with the
    /// status [`Disconnected`](crate::InputStatus::Disconnected). A player
    /// who joins while the session runs takes it
    /// ([`NetDriver::join`](crate::NetDriver::join)).
    Empty,
    /// A spectator at this address (after the players' seats; not counted
    /// in `NetConfig::players`): this peer sends it every confirmed input.
    Spectator(A),
}
