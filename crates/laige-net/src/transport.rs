//! [`Transport`]: the byte-datagram layer under a session's socket (UDP
//! here; any unreliable, unordered datagram channel can implement it), and
//! [`UdpTransport`], its UDP implementation.

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};

/// An unreliable, unordered, non-blocking datagram channel between
/// addresses of type [`Addr`](Self::Addr). Datagrams may be lost,
/// duplicated, reordered or damaged on the way; the
/// [`SealedSocket`](crate::SealedSocket) above it checks each one.
pub trait Transport {
    /// A peer's address (a `SocketAddr` for UDP).
    type Addr: Clone + PartialEq + Eq + Hash + Debug;

    /// Sends one datagram to `to`; a failure is the datagram lost.
    fn send_to(&mut self, datagram: &[u8], to: &Self::Addr);

    /// The next received datagram, copied into `buf` (a longer one is
    /// cut to `buf.len()`): its length and its sender, or `None` when
    /// nothing is waiting. Never blocks.
    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, Self::Addr)>;
}

/// The address of a session's peer, as GGRS keys its peers (a
/// `SocketAddr` over UDP; a WebRTC peer id): shown in the session's
/// events and its [`NetEnd`](crate::NetEnd).
pub trait PeerAddr:
    Clone + PartialEq + Eq + Hash + Send + Sync + Debug + Display + 'static
{
}

impl<A: Clone + PartialEq + Eq + Hash + Send + Sync + Debug + Display + 'static> PeerAddr for A {}

impl<T: Transport + ?Sized> Transport for Box<T> {
    type Addr = T::Addr;

    fn send_to(&mut self, datagram: &[u8], to: &Self::Addr) {
        (**self).send_to(datagram, to);
    }

    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, Self::Addr)> {
        (**self).recv_from(buf)
    }
}

/// A non-blocking UDP socket as a [`Transport`].
#[derive(Debug)]
pub struct UdpTransport {
    socket: UdpSocket,
}

impl UdpTransport {
    /// Binds `0.0.0.0:port` (0: any free port), non-blocking.
    ///
    /// # Errors
    /// The operating system's, if the port cannot be bound.
    pub fn bind_to_port(port: u16) -> std::io::Result<Self> {
        let socket = UdpSocket::bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), port))?;
        socket.set_nonblocking(true)?;
        Ok(Self { socket })
    }

    /// The bound address (its port when bound to 0).
    ///
    /// # Errors
    /// The operating system's.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.socket.local_addr()
    }
}

impl Transport for UdpTransport {
    type Addr = SocketAddr;

    fn send_to(&mut self, datagram: &[u8], to: &SocketAddr) {
        // A failed send is a lost datagram: the session resends.
        let _ = self.socket.send_to(datagram, to);
    }

    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        loop {
            match self.socket.recv_from(buf) {
                Ok(got) => return Some(got),
                // An ICMP port-unreachable from an earlier send surfaces
                // here on some systems: not a datagram, read on.
                Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
                Err(_) => return None,
            }
        }
    }
}
