//! [`Seat`]: who sits where in a P2P session.

use std::net::SocketAddr;

/// One seat of a P2P session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A player on this machine.
    Local,
    /// A player on the peer at this address.
    Remote(SocketAddr),
    /// A spectator at this address (after the players' seats; not counted
    /// in `NetConfig::players`): this peer sends it every confirmed input.
    Spectator(SocketAddr),
}
