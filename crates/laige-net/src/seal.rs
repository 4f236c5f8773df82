//! [`SealedSocket`]: the GGRS socket of every laige-net session. Each
//! message is encoded as GGRS's own UDP socket encodes it (bincode 1) and
//! sealed with a keyed tag over the whole datagram (SipHash-2-4 under the
//! session's [`SessionKey`]); a received datagram reaches GGRS only if it
//! comes from an address the session sends to and its tag verifies. The
//! rest are dropped and counted ([`IntegrityStats`]), never delivered: a
//! damaged or spoofed datagram must never steer or end a session.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ggrs::{Message, NonBlockingSocket};
use laige_core::{Result, event};
use siphasher::sip::SipHasher24;

use crate::events;
use crate::fault::{Faults, FaultyTransport};
use crate::transport::{Transport, UdpTransport};

/// Bytes of the tag at the end of each datagram.
pub const TAG_BYTES: usize = 8;
/// The largest datagram read (as GGRS's own socket).
const RECV_BUFFER: usize = 4096;
/// Most peer addresses one socket accepts datagrams from.
const MAX_PEERS: usize = 64;

/// The 128-bit key a session's datagrams are sealed under. Every peer of
/// a session must use the same key.
///
/// - [`SessionKey::PUBLIC`] (the default) is known to every laige build:
///   it makes the tag a strong checksum against damage, not proof of the
///   sender.
/// - [`SessionKey::random`] is secret: epochs' host draws one per session
///   and hands it to each peer over the control link, so an off-path
///   sender cannot inject datagrams into a later epoch.
/// - [`SessionKey::from_secret`] derives one from a secret the players
///   share out of band.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SessionKey([u8; 16]);

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key itself is never printed.
        f.write_str("SessionKey(..)")
    }
}

impl Default for SessionKey {
    fn default() -> Self {
        Self::PUBLIC
    }
}

impl SessionKey {
    /// The key known to every laige build (integrity against damage only).
    pub const PUBLIC: Self = Self(*b"laige-net seal 1");

    /// A key from its bytes.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// The key's bytes (to hand to a peer over a private channel).
    #[must_use]
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// A key derived from a secret the peers share (SipHash-2-4 of the
    /// secret under two fixed keys).
    #[must_use]
    pub fn from_secret(secret: &[u8]) -> Self {
        let half = |k: u64| {
            let mut h = SipHasher24::new_with_keys(k, !k);
            h.write(secret);
            h.finish().to_le_bytes()
        };
        let mut out = [0; 16];
        out[..8].copy_from_slice(&half(0x6c61_6967_652d_6e65));
        out[8..].copy_from_slice(&half(0x7420_7365_616c_2031));
        Self(out)
    }

    /// A fresh secret key from the operating system's random source (in
    /// a browser, `crypto.getRandomValues`); should that fail, from the
    /// standard library's randomly keyed hasher over a counter.
    #[must_use]
    pub fn random() -> Self {
        let mut out = [0; 16];
        if getrandom::getrandom(&mut out).is_err() {
            static DRAWN: AtomicU64 = AtomicU64::new(0);
            for half in out.chunks_exact_mut(8) {
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u64(DRAWN.fetch_add(1, Ordering::Relaxed));
                half.copy_from_slice(&h.finish().to_le_bytes());
            }
        }
        Self(out)
    }

    fn tag(self, bytes: &[u8]) -> [u8; TAG_BYTES] {
        let (k0, k1) = self.0.split_at(8);
        let mut h = SipHasher24::new_with_keys(
            u64::from_le_bytes(k0.try_into().unwrap_or_default()),
            u64::from_le_bytes(k1.try_into().unwrap_or_default()),
        );
        h.write(bytes);
        h.finish().to_le_bytes()
    }
}

/// What a [`SealedSocket`] sent, delivered and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntegrityStats {
    /// Datagrams sealed and sent.
    pub sent: u64,
    /// Datagrams verified and handed to GGRS.
    pub delivered: u64,
    /// Datagrams dropped because their tag did not verify (damaged,
    /// truncated, extended, sealed under another key, or not a session
    /// datagram at all: say a lobby's own message arriving late on the
    /// session's port) or they did not decode.
    pub dropped_damaged: u64,
    /// Datagrams dropped because they came from an address the session
    /// does not send to.
    pub dropped_unknown_peer: u64,
}

impl IntegrityStats {
    /// The sum of two sockets' counters.
    #[must_use]
    pub fn plus(self, o: Self) -> Self {
        Self {
            sent: self.sent + o.sent,
            delivered: self.delivered + o.delivered,
            dropped_damaged: self.dropped_damaged + o.dropped_damaged,
            dropped_unknown_peer: self.dropped_unknown_peer + o.dropped_unknown_peer,
        }
    }
}

/// The counters a socket shares with the session that reads them.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    sent: AtomicU64,
    delivered: AtomicU64,
    damaged: AtomicU64,
    unknown: AtomicU64,
}

impl Counters {
    pub(crate) fn read(&self) -> IntegrityStats {
        IntegrityStats {
            sent: self.sent.load(Ordering::Relaxed),
            delivered: self.delivered.load(Ordering::Relaxed),
            dropped_damaged: self.damaged.load(Ordering::Relaxed),
            dropped_unknown_peer: self.unknown.load(Ordering::Relaxed),
        }
    }
}

fn bump(c: &AtomicU64) -> u64 {
    c.fetch_add(1, Ordering::Relaxed) + 1
}

/// A GGRS socket over a [`Transport`] whose datagrams carry a keyed
/// integrity tag (see the module docs). Every session constructor takes
/// one; [`UdpNonBlockingSocket`](crate::UdpNonBlockingSocket) is the UDP
/// one.
///
/// ```no_run
/// use laige_net::fault::Faults;
/// use laige_net::{SessionKey, UdpNonBlockingSocket};
///
/// let socket = UdpNonBlockingSocket::bind_to_port(7000)?
///     .with_key(SessionKey::from_secret(b"our table"))
///     .with_faults(Faults { corrupt_per_mille: 10, ..Faults::default() })?;
/// assert_eq!(socket.stats().dropped_damaged, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SealedSocket<T: Transport> {
    transport: T,
    key: SessionKey,
    /// The addresses this socket sent to: the only ones it accepts
    /// datagrams from.
    peers: Vec<T::Addr>,
    /// The datagram being sealed (reused).
    send_buf: Vec<u8>,
    /// The datagram being read (reused).
    recv_buf: Box<[u8]>,
    counters: Arc<Counters>,
}

impl<T: Transport> std::fmt::Debug for SealedSocket<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealedSocket")
            .field("peers", &self.peers)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl SealedSocket<UdpTransport> {
    /// A UDP socket on `0.0.0.0:port`, sealed under [`SessionKey::PUBLIC`].
    ///
    /// # Errors
    /// The operating system's, if the port cannot be bound.
    pub fn bind_to_port(port: u16) -> std::io::Result<Self> {
        UdpTransport::bind_to_port(port).map(|t| Self::new(t, SessionKey::PUBLIC))
    }
}

impl<T: Transport> SealedSocket<T> {
    /// Seals `transport`'s datagrams under `key`.
    pub fn new(transport: T, key: SessionKey) -> Self {
        Self {
            transport,
            key,
            peers: Vec::new(),
            send_buf: Vec::with_capacity(512),
            recv_buf: vec![0; RECV_BUFFER].into_boxed_slice(),
            counters: Arc::default(),
        }
    }

    /// The same socket under `key`.
    #[must_use]
    pub fn with_key(mut self, key: SessionKey) -> Self {
        self.key = key;
        self
    }

    /// Replaces the key (every peer must change with it).
    pub fn set_key(&mut self, key: SessionKey) {
        self.key = key;
    }

    /// The same socket with `faults` injected into its datagrams below
    /// the seal (see [`FaultyTransport`]).
    ///
    /// # Errors
    /// `net/config_invalid` for faults outside their ranges.
    pub fn with_faults(self, faults: Faults) -> Result<SealedSocket<FaultyTransport<T>>> {
        Ok(SealedSocket {
            transport: FaultyTransport::new(self.transport, faults)?,
            key: self.key,
            peers: self.peers,
            send_buf: self.send_buf,
            recv_buf: self.recv_buf,
            counters: self.counters,
        })
    }

    /// The same socket over a boxed transport (one type for sockets over
    /// any transport, as [`SocketFactory`](crate::SocketFactory) returns).
    #[must_use]
    pub fn boxed(self) -> SealedSocket<Box<dyn Transport<Addr = T::Addr>>>
    where
        T: 'static,
    {
        SealedSocket {
            transport: Box::new(self.transport),
            key: self.key,
            peers: self.peers,
            send_buf: self.send_buf,
            recv_buf: self.recv_buf,
            counters: self.counters,
        }
    }

    /// Also accepts datagrams from `peers` (a socket accepts them from
    /// the addresses it sends to; a session adds its peers' up front).
    pub fn add_peers(&mut self, peers: impl IntoIterator<Item = T::Addr>) {
        for addr in peers {
            if !self.peers.contains(&addr) && self.peers.len() < MAX_PEERS {
                self.peers.push(addr);
            }
        }
    }

    /// The transport (a [`FaultyTransport`]'s stats, say).
    pub fn transport(&self) -> &T {
        &self.transport
    }

    /// What the socket sent, delivered and dropped so far.
    #[must_use]
    pub fn stats(&self) -> IntegrityStats {
        self.counters.read()
    }

    /// The counters, shared with the session that owns this socket.
    pub(crate) fn counters(&self) -> Arc<Counters> {
        Arc::clone(&self.counters)
    }

    /// Seals `bytes` (the message's encoding) into `send_buf`.
    fn seal(&mut self) {
        let tag = self.key.tag(&self.send_buf);
        self.send_buf.extend_from_slice(&tag);
    }

    /// The message in `recv_buf[..len]` if its tag verifies.
    fn open(&self, len: usize) -> Option<Message> {
        let body_len = len.checked_sub(TAG_BYTES)?;
        let (body, tag) = self.recv_buf[..len].split_at(body_len);
        // Equality of a keyed tag: a timing side channel would leak only
        // the tag of a datagram the attacker already holds.
        if self.key.tag(body) != tag {
            return None;
        }
        bincode::deserialize(body).ok()
    }

    #[cold]
    fn dropped(&self, from: &T::Addr, damaged: bool) {
        let (reason, total) = if damaged {
            ("damaged", bump(&self.counters.damaged))
        } else {
            ("unknown_peer", bump(&self.counters.unknown))
        };
        event!(
            Warn,
            events::DATAGRAM_DROPPED,
            reason,
            peer = ?from,
            total
        );
    }
}

impl<T: Transport> NonBlockingSocket<T::Addr> for SealedSocket<T> {
    fn send_to(&mut self, msg: &Message, addr: &T::Addr) {
        if !self.peers.contains(addr) && self.peers.len() < MAX_PEERS {
            self.peers.push(addr.clone());
        }
        self.send_buf.clear();
        if bincode::serialize_into(&mut self.send_buf, msg).is_err() {
            return;
        }
        self.seal();
        self.transport.send_to(&self.send_buf, addr);
        bump(&self.counters.sent);
    }

    fn receive_all_messages(&mut self) -> Vec<(T::Addr, Message)> {
        let mut out = Vec::new();
        while let Some((len, from)) = self.transport.recv_from(&mut self.recv_buf) {
            if !self.peers.contains(&from) {
                self.dropped(&from, false);
                continue;
            }
            match self.open(len) {
                Some(msg) => {
                    bump(&self.counters.delivered);
                    out.push((from, msg));
                }
                None => self.dropped(&from, true),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddr};

    use laige_core::diag::Severity;

    use super::*;

    fn bind() -> (SealedSocket<UdpTransport>, SocketAddr) {
        let s = SealedSocket::bind_to_port(0).unwrap();
        let port = s.transport().local_addr().unwrap().port();
        (s, SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
    }

    /// A checksum report for frame `frame` as GGRS encodes it (magic,
    /// variant 6, checksum, frame).
    fn report(frame: i32) -> Message {
        let mut bytes = 0x1234_u16.to_le_bytes().to_vec();
        bytes.extend_from_slice(&6_u32.to_le_bytes());
        bytes.extend_from_slice(&0xabcd_u128.to_le_bytes());
        bytes.extend_from_slice(&frame.to_le_bytes());
        bincode::deserialize(&bytes).unwrap()
    }

    /// Everything `s` receives within a second of polling (until `n`).
    fn receive(s: &mut impl NonBlockingSocket<SocketAddr>, n: usize) -> Vec<(SocketAddr, Message)> {
        let mut got = Vec::new();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while got.len() < n && std::time::Instant::now() < until {
            got.extend(s.receive_all_messages());
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        got
    }

    #[test]
    fn a_sealed_message_arrives_whole_and_a_damaged_one_is_dropped_and_counted() {
        let (a, a_addr) = bind();
        let (mut b, b_addr) = bind();
        let mut a = a
            .with_faults(Faults {
                corrupt_per_mille: 500,
                corrupt_bits: 1,
                truncate_per_mille: 100,
                append_per_mille: 100,
                ..Faults::default()
            })
            .unwrap();
        b.add_peers([a_addr]);
        for frame in 0..200 {
            a.send_to(&report(frame), &b_addr);
        }
        let got = receive(&mut b, 200);
        let s = b.stats();
        let damaged = a.transport().stats();
        assert!(damaged.corrupted > 50, "{damaged:?}");
        assert_eq!(s.delivered as usize, got.len());
        // Every delivered message is one that was sent, unchanged; every
        // other datagram was dropped as damaged.
        assert!(
            got.iter()
                .all(|(from, m)| *from == a_addr && (0..200).any(|f| report(f) == *m))
        );
        assert_eq!(s.delivered + s.dropped_damaged, 200, "{s:?}");
        assert!(s.dropped_damaged >= damaged.corrupted, "{s:?} {damaged:?}");
    }

    #[test]
    fn a_third_address_with_a_valid_payload_is_dropped_and_counted() {
        let (mut a, a_addr) = bind();
        let (mut b, b_addr) = bind();
        let (mut stranger, _) = bind();
        // a and b are each other's peers (a sent first, b was told).
        b.add_peers([a_addr]);
        a.send_to(&report(1), &b_addr);
        // The stranger seals a valid report under the same key.
        stranger.send_to(&report(2), &b_addr);
        a.send_to(&report(3), &b_addr);
        let before = laige_core::diag::rate_stats(events::DATAGRAM_DROPPED, Severity::Warn);
        let (mut got, seen) = laige_core::diag::capture_events(|| {
            let mut got = receive(&mut b, 2);
            std::thread::sleep(std::time::Duration::from_millis(20));
            got.extend(b.receive_all_messages());
            got
        });
        // The drop is an event (or, within the rate limit's window of
        // another test's drop, a suppressed one).
        let after = laige_core::diag::rate_stats(events::DATAGRAM_DROPPED, Severity::Warn);
        assert!(
            seen.iter().any(|e| e.is(events::DATAGRAM_DROPPED)
                && e.field("reason") == Some("unknown_peer")
                && e.field("total") == Some("1"))
                || after.suppressed > before.suppressed,
            "{seen:?}"
        );
        got.extend(b.receive_all_messages());
        assert_eq!(got, vec![(a_addr, report(1)), (a_addr, report(3))]);
        let s = b.stats();
        assert_eq!(
            (s.delivered, s.dropped_unknown_peer, s.dropped_damaged),
            (2, 1, 0)
        );
    }

    #[test]
    fn a_datagram_unsealed_or_under_another_key_is_dropped() {
        let (a, a_addr) = bind();
        let (mut b, b_addr) = bind();
        b.add_peers([a_addr]);
        let mut a = a.with_key(SessionKey::from_secret(b"another table"));
        a.send_to(&report(1), &b_addr);
        // GGRS's own encoding, without a tag: what a plain socket sends.
        let raw = bincode::serialize(&report(2)).unwrap();
        a.transport.send_to(&raw, &b_addr);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(receive(&mut b, 1).is_empty());
        assert_eq!(b.stats().dropped_damaged, 2);
        assert_ne!(SessionKey::random(), SessionKey::random());
        assert_eq!(format!("{:?}", SessionKey::PUBLIC), "SessionKey(..)");
    }
}
