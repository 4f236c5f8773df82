//! The epoch control channel's messages and their framing: a TCP stream
//! beside the session's UDP socket (reliable and ordered, so a snapshot of
//! any size arrives whole or the connection fails), one frame per message:
//! a `u32` little-endian length, then the message (tag byte, fields
//! little-endian). Reads and writes never block: a frame is kept until it
//! is whole, and unwritten bytes wait for the next poll.

use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};

use web_time::Instant;

use laige_core::{Error, ErrorCode, Result};

use crate::events;
use crate::fault::{StreamFaultStats, StreamFaults};

/// The largest frame accepted: a snapshot (at most 1 GiB by its own
/// format) plus the message's other fields.
const MAX_FRAME: usize = (1 << 30) + 4096;

/// One control message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Msg {
    /// A peer introduces itself to the host: a member of the running
    /// epoch (`seat: Some`, `member: true`), a player asking to join
    /// (`seat`: the seat it wants back, or any), or a spectator.
    Hello {
        member: bool,
        spectator: bool,
        seat: Option<u8>,
        udp_port: u16,
    },
    /// The host (frozen at `tick`) asks every member to stop where it is
    /// for epoch `epoch`.
    Propose { epoch: u32, tick: u64 },
    /// A member stopped at `current` and listens on `udp_port` in the
    /// next epoch.
    Ack {
        epoch: u32,
        current: u64,
        udp_port: u16,
    },
    /// The boundary of epoch `epoch`: every member runs to `tick` (no
    /// member is past it) and stops there.
    Commit { epoch: u32, tick: u64 },
    /// A member's state at the boundary is final, with this hash; `cuts`
    /// gives for each seat the first tick from which the member simulated
    /// that seat's input as disconnected, through the boundary (the
    /// boundary itself for a seat it never saw leave).
    Final {
        epoch: u32,
        hash: u64,
        cuts: Vec<u64>,
    },
    /// The members' `cuts` differed: every peer drops each seat's input
    /// from `cuts` on (the least any peer reported) and re-simulates to
    /// the boundary, then reports its state again.
    Cut { epoch: u32, cuts: Vec<u64> },
    /// The next epoch begins at `tick`: the seats' addresses (the
    /// unspecified address stands for the host, as the receiver reaches
    /// it), the spectators, the receiver's own seat (`None`: a spectator),
    /// the session's secret key the epoch's datagrams are sealed under,
    /// and for a joiner the encoded world at `tick`.
    Go {
        epoch: u32,
        tick: u64,
        input_delay: u8,
        key: [u8; 16],
        seats: Vec<Option<SocketAddr>>,
        spectators: Vec<SocketAddr>,
        your_seat: Option<u8>,
        snapshot: Vec<u8>,
    },
    /// The host refuses a joiner (the room is full, a seat is taken).
    Refuse { reason: String },
}

fn malformed(detail: impl Into<String>) -> Error {
    Error::new(ErrorCode::Corrupt, events::EPOCH_FAILED).with_detail(detail.into())
}

impl Msg {
    /// Appends the message's frame to `out`.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        match self {
            Self::Hello {
                member,
                spectator,
                seat,
                udp_port,
            } => {
                out.push(1);
                out.push(u8::from(*member) | u8::from(*spectator) << 1);
                out.push(seat.unwrap_or(u8::MAX));
                out.extend_from_slice(&udp_port.to_le_bytes());
            }
            Self::Propose { epoch, tick } => {
                out.push(2);
                out.extend_from_slice(&epoch.to_le_bytes());
                out.extend_from_slice(&tick.to_le_bytes());
            }
            Self::Ack {
                epoch,
                current,
                udp_port,
            } => {
                out.push(3);
                out.extend_from_slice(&epoch.to_le_bytes());
                out.extend_from_slice(&current.to_le_bytes());
                out.extend_from_slice(&udp_port.to_le_bytes());
            }
            Self::Final { epoch, hash, cuts } => {
                out.push(4);
                out.extend_from_slice(&epoch.to_le_bytes());
                out.extend_from_slice(&hash.to_le_bytes());
                put_cuts(out, cuts);
            }
            Self::Cut { epoch, cuts } => {
                out.push(8);
                out.extend_from_slice(&epoch.to_le_bytes());
                put_cuts(out, cuts);
            }
            Self::Go {
                epoch,
                tick,
                input_delay,
                key,
                seats,
                spectators,
                your_seat,
                snapshot,
            } => {
                out.push(5);
                out.extend_from_slice(&epoch.to_le_bytes());
                out.extend_from_slice(&tick.to_le_bytes());
                out.push(*input_delay);
                out.extend_from_slice(key);
                out.push(your_seat.unwrap_or(u8::MAX));
                out.push(u8::try_from(seats.len()).unwrap_or(u8::MAX));
                for seat in seats {
                    put_addr(out, *seat);
                }
                out.push(u8::try_from(spectators.len()).unwrap_or(u8::MAX));
                for s in spectators {
                    put_addr(out, Some(*s));
                }
                out.extend_from_slice(snapshot);
            }
            Self::Commit { epoch, tick } => {
                out.push(7);
                out.extend_from_slice(&epoch.to_le_bytes());
                out.extend_from_slice(&tick.to_le_bytes());
            }
            Self::Refuse { reason } => {
                out.push(6);
                out.extend_from_slice(reason.as_bytes());
            }
        }
        let len = u32::try_from(out.len() - start - 4).unwrap_or(u32::MAX);
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    }

    /// Decodes one frame's payload.
    pub(crate) fn decode(payload: &[u8]) -> Result<Self> {
        let mut r = Reader(payload);
        let msg = match r.u8()? {
            1 => {
                let flags = r.u8()?;
                let seat = r.u8()?;
                Self::Hello {
                    member: flags & 1 != 0,
                    spectator: flags & 2 != 0,
                    seat: (seat != u8::MAX).then_some(seat),
                    udp_port: r.u16()?,
                }
            }
            2 => Self::Propose {
                epoch: r.u32()?,
                tick: r.u64()?,
            },
            3 => Self::Ack {
                epoch: r.u32()?,
                current: r.u64()?,
                udp_port: r.u16()?,
            },
            4 => Self::Final {
                epoch: r.u32()?,
                hash: r.u64()?,
                cuts: r.cuts()?,
            },
            8 => Self::Cut {
                epoch: r.u32()?,
                cuts: r.cuts()?,
            },
            5 => {
                let epoch = r.u32()?;
                let tick = r.u64()?;
                let input_delay = r.u8()?;
                let key = r.take::<16>()?;
                let your_seat = r.u8()?;
                let n = usize::from(r.u8()?);
                let mut seats = Vec::with_capacity(n);
                for _ in 0..n {
                    seats.push(r.addr()?);
                }
                let n = usize::from(r.u8()?);
                let mut spectators = Vec::with_capacity(n);
                for _ in 0..n {
                    spectators.push(
                        r.addr()?
                            .ok_or_else(|| malformed("a spectator without address"))?,
                    );
                }
                Self::Go {
                    epoch,
                    tick,
                    input_delay,
                    key,
                    seats,
                    spectators,
                    your_seat: (your_seat != u8::MAX).then_some(your_seat),
                    snapshot: r.0.to_vec(),
                }
            }
            7 => Self::Commit {
                epoch: r.u32()?,
                tick: r.u64()?,
            },
            6 => Self::Refuse {
                reason: String::from_utf8_lossy(r.0).into_owned(),
            },
            tag => return Err(malformed(format!("unknown control message tag {tag}"))),
        };
        Ok(msg)
    }
}

/// A seat count (`u8`), then each seat's tick (`u64`).
fn put_cuts(out: &mut Vec<u8>, cuts: &[u64]) {
    out.push(u8::try_from(cuts.len()).unwrap_or(u8::MAX));
    for cut in cuts.iter().take(usize::from(u8::MAX)) {
        out.extend_from_slice(&cut.to_le_bytes());
    }
}

fn put_addr(out: &mut Vec<u8>, addr: Option<SocketAddr>) {
    match addr {
        None => out.push(0),
        Some(SocketAddr::V4(a)) => {
            out.push(4);
            out.extend_from_slice(&a.ip().octets());
            out.extend_from_slice(&a.port().to_le_bytes());
        }
        Some(SocketAddr::V6(a)) => {
            out.push(6);
            out.extend_from_slice(&a.ip().octets());
            out.extend_from_slice(&a.port().to_le_bytes());
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        if self.0.len() < N {
            return Err(malformed("a control message ends early"));
        }
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        let mut out = [0; N];
        out.copy_from_slice(head);
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.take()?))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take()?))
    }
    fn cuts(&mut self) -> Result<Vec<u64>> {
        let n = usize::from(self.u8()?);
        if n > crate::MAX_PLAYERS {
            return Err(malformed(format!(
                "{n} seats' cuts; at most {} are accepted",
                crate::MAX_PLAYERS
            )));
        }
        (0..n).map(|_| self.u64()).collect()
    }
    fn addr(&mut self) -> Result<Option<SocketAddr>> {
        let ip = match self.u8()? {
            0 => return Ok(None),
            4 => IpAddr::V4(Ipv4Addr::from(self.take::<4>()?)),
            6 => IpAddr::V6(Ipv6Addr::from(self.take::<16>()?)),
            k => return Err(malformed(format!("unknown address kind {k}"))),
        };
        Ok(Some(SocketAddr::new(ip, self.u16()?)))
    }
}

/// One control connection: non-blocking, framed.
#[derive(Debug)]
pub(crate) struct Link {
    stream: TcpStream,
    /// Bytes read and not yet a whole frame.
    inbox: Vec<u8>,
    /// Bytes not yet written.
    outbox: Vec<u8>,
    /// Injected delays on what this side sends (tests; `None` in play).
    faults: Option<StreamFaults>,
    /// Where the other end is (its IP is the peer's address for UDP too).
    pub(crate) peer: SocketAddr,
}

impl Link {
    pub(crate) fn new(stream: TcpStream) -> Result<Self> {
        let io = |e: std::io::Error| {
            Error::new(ErrorCode::Io, events::EPOCH_FAILED).with_detail(e.to_string())
        };
        stream.set_nonblocking(true).map_err(io)?;
        let _ = stream.set_nodelay(true);
        let peer = stream.peer_addr().map_err(io)?;
        Ok(Self {
            stream,
            inbox: Vec::new(),
            outbox: Vec::new(),
            faults: None,
            peer,
        })
    }

    /// Delays what this side sends from now on as `faults` say.
    pub(crate) fn set_faults(&mut self, faults: StreamFaults) {
        self.faults = Some(faults);
    }

    /// What the injected faults did (`None` without faults).
    pub(crate) fn fault_stats(&self) -> Option<StreamFaultStats> {
        self.faults.as_ref().map(StreamFaults::stats)
    }

    /// Queues `msg` and writes what the socket takes now (with faults:
    /// once its time has come).
    pub(crate) fn send(&mut self, msg: &Msg) -> Result<()> {
        match &mut self.faults {
            Some(faults) => {
                let mut frame = Vec::new();
                msg.encode(&mut frame);
                faults.hold(frame, Instant::now());
            }
            None => msg.encode(&mut self.outbox),
        }
        self.flush()
    }

    /// Writes queued bytes without blocking.
    pub(crate) fn flush(&mut self) -> Result<()> {
        if let Some(faults) = &mut self.faults {
            faults.release(Instant::now(), &mut self.outbox);
        }
        while !self.outbox.is_empty() {
            match self.stream.write(&self.outbox) {
                Ok(0) => return Err(self.closed("the connection closed")),
                Ok(n) => {
                    self.outbox.drain(..n);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(self.closed(&e.to_string())),
            }
        }
        Ok(())
    }

    /// The next whole message, if one has arrived.
    ///
    /// # Errors
    /// `net/epoch_failed`: the peer closed the connection, it failed, or
    /// a frame is malformed or oversized.
    pub(crate) fn poll(&mut self) -> Result<Option<Msg>> {
        self.flush()?;
        let mut buf = [0_u8; 16 * 1024];
        loop {
            if let Some(msg) = self.next_frame()? {
                return Ok(Some(msg));
            }
            match self.stream.read(&mut buf) {
                Ok(0) => return Err(self.closed("the peer closed the connection")),
                Ok(n) => self.inbox.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(self.closed(&e.to_string())),
            }
        }
    }

    fn next_frame(&mut self) -> Result<Option<Msg>> {
        let Some(head) = self.inbox.first_chunk::<4>() else {
            return Ok(None);
        };
        let len = u32::from_le_bytes(*head) as usize;
        if len > MAX_FRAME {
            return Err(malformed(format!(
                "a control frame of {len} bytes from {} (at most {MAX_FRAME})",
                self.peer
            )));
        }
        if self.inbox.len() < 4 + len {
            return Ok(None);
        }
        let msg = Msg::decode(&self.inbox[4..4 + len]);
        self.inbox.drain(..4 + len);
        msg.map(Some)
    }

    #[cold]
    fn closed(&self, why: &str) -> Error {
        Error::new(ErrorCode::Io, events::EPOCH_FAILED)
            .with_detail(format!("control link to {}: {why}", self.peer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_round_trips_and_a_cut_one_is_an_error() {
        let msgs = [
            Msg::Hello {
                member: true,
                spectator: false,
                seat: Some(2),
                udp_port: 7000,
            },
            Msg::Hello {
                member: false,
                spectator: true,
                seat: None,
                udp_port: 1,
            },
            Msg::Propose {
                epoch: 3,
                tick: 600,
            },
            Msg::Ack {
                epoch: 3,
                current: 590,
                udp_port: 40000,
            },
            Msg::Final {
                epoch: 3,
                hash: 0xdead_beef,
                cuts: vec![600, 581, 600],
            },
            Msg::Cut {
                epoch: 3,
                cuts: vec![600, 577],
            },
            Msg::Go {
                epoch: 3,
                tick: 600,
                input_delay: 2,
                key: [7; 16],
                seats: vec![
                    Some("0.0.0.0:7000".parse().unwrap()),
                    None,
                    Some("[::1]:7002".parse().unwrap()),
                ],
                spectators: vec!["127.0.0.1:9".parse().unwrap()],
                your_seat: Some(2),
                snapshot: vec![1, 2, 3],
            },
            Msg::Refuse {
                reason: "full".into(),
            },
        ];
        for msg in msgs {
            let mut frame = Vec::new();
            msg.encode(&mut frame);
            let len = u32::from_le_bytes(frame[..4].try_into().unwrap()) as usize;
            assert_eq!(len, frame.len() - 4);
            assert_eq!(Msg::decode(&frame[4..]).unwrap(), msg);
            if !matches!(msg, Msg::Go { .. } | Msg::Refuse { .. }) {
                assert!(Msg::decode(&frame[4..frame.len() - 1]).is_err(), "{msg:?}");
            }
        }
        assert!(Msg::decode(&[9]).is_err());
        assert!(Msg::decode(&[]).is_err());
    }
}
