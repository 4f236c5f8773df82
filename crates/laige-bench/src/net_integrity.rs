//! Bench area `net`, part `net.integrity`: the cost of sealing every
//! datagram (laige-net's `SealedSocket`: bincode 1 as GGRS's own socket,
//! plus an 8-byte SipHash-2-4 tag written on send and verified on
//! receive), measured interleaved beside the same message encoded and
//! decoded without a tag (what GGRS's `UdpNonBlockingSocket` does apart
//! from its syscalls), both over an in-memory transport so the figure is
//! the CPU work alone.
//!
//! - `net.integrity.{sealed,plain}_ns`: median ns per datagram, one send
//!   and one receive of a typical GGRS input message (64 bytes encoded:
//!   two peers' connection status, 16 input bytes).
//! - `net.integrity.overhead_ns`: sealed − plain (two tags and the copy).
//! - `net.integrity.us_per_tick_60hz`: the overhead for the datagrams of
//!   one tick of a 4-player session at 60 Hz, taken as
//!   [`DATAGRAMS_PER_TICK`] (each of 3 remote peers: an input and an ack
//!   each way); `pct_of_tick_60hz` that as a share of the 16.7 ms tick.

use std::net::SocketAddr;

use ggrs::{Message, NonBlockingSocket};
use laige_net::{SealedSocket, SessionKey, Transport};

use crate::harness::{Bench, paired_ratio};

/// Datagrams a 4-player session sends and receives per 60 Hz tick: to and
/// from each of 3 remote peers, an input and an ack each way.
pub const DATAGRAMS_PER_TICK: f64 = 12.0;

/// An in-memory transport: a datagram sent is the next one received
/// (one buffer, reused: no allocation in the loop).
struct Mem {
    buf: Vec<u8>,
    full: bool,
    from: SocketAddr,
}

impl Transport for Mem {
    type Addr = SocketAddr;
    fn send_to(&mut self, datagram: &[u8], _to: &SocketAddr) {
        self.buf.clear();
        self.buf.extend_from_slice(datagram);
        self.full = true;
    }
    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        if !std::mem::take(&mut self.full) {
            return None;
        }
        let n = self.buf.len().min(buf.len());
        buf[..n].copy_from_slice(&self.buf[..n]);
        Some((n, self.from))
    }
}

/// A GGRS input message as GGRS encodes it: magic, variant 2 (Input), two
/// connection statuses, disconnect flag, start and ack frames, 16 bytes.
fn input_message() -> Message {
    let mut b = 0x5eed_u16.to_le_bytes().to_vec();
    b.extend_from_slice(&2_u32.to_le_bytes());
    b.extend_from_slice(&2_u64.to_le_bytes());
    for frame in [600_i32, 601] {
        b.push(0);
        b.extend_from_slice(&frame.to_le_bytes());
    }
    b.push(0);
    b.extend_from_slice(&598_i32.to_le_bytes());
    b.extend_from_slice(&597_i32.to_le_bytes());
    b.extend_from_slice(&16_u64.to_le_bytes());
    b.extend_from_slice(&[7; 16]);
    bincode::deserialize(&b).unwrap_or_else(|e| panic!("the input message: {e}"))
}

/// Runs the part.
pub fn run(b: &mut Bench) {
    if !b.wants("net.integrity") {
        return;
    }
    let peer: SocketAddr = ([127, 0, 0, 1], 7000).into();
    let msg = input_message();
    let mem = Mem {
        buf: Vec::with_capacity(512),
        full: false,
        from: peer,
    };
    let mut sealed = SealedSocket::new(mem, SessionKey::random());
    sealed.add_peers([peer]);
    let mut plain_buf = Vec::with_capacity(512);
    let per_round = 200_u64;
    let samples = b.scaled(400).max(10);
    let mut sealed_round = || {
        let mut n = 0;
        for _ in 0..per_round {
            sealed.send_to(&msg, &peer);
            n += sealed.receive_all_messages().len();
        }
        n
    };
    let mut plain_round = || {
        let mut n = 0;
        for _ in 0..per_round {
            // GGRS's socket: encode (it allocates a fresh Vec; this
            // reuses one, in our favour), decode into a fresh Vec of
            // messages.
            plain_buf.clear();
            let _ = bincode::serialize_into(&mut plain_buf, &msg);
            let mut out: Vec<(SocketAddr, Message)> = Vec::new();
            if let Ok(m) = bincode::deserialize::<Message>(&plain_buf) {
                out.push((peer, m));
            }
            n += out.len();
        }
        n
    };
    let rounds = b.interleaved_rounds(
        samples,
        per_round,
        &mut [&mut sealed_round, &mut plain_round],
    );
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (s, p) = (median(&rounds[0]), median(&rounds[1]));
    let overhead = (s - p).max(0.0);
    b.record("net.integrity.sealed_ns", s, "ns");
    b.record("net.integrity.plain_ns", p, "ns");
    b.record(
        "net.integrity.sealed_vs_plain",
        paired_ratio(&rounds[0], &rounds[1]),
        "x",
    );
    b.record("net.integrity.overhead_ns", overhead, "ns");
    let per_tick_us = overhead * DATAGRAMS_PER_TICK / 1e3;
    b.record("net.integrity.us_per_tick_60hz", per_tick_us, "us");
    b.record(
        "net.integrity.pct_of_tick_60hz",
        100.0 * per_tick_us / (1e6 / 60.0),
        "%",
    );
}
