//! [`FaultyTransport`]: a [`Transport`] wrapper that adds latency, jitter,
//! loss, duplication, reordering, damage (flipped bits, truncation,
//! appended bytes) and replays of old datagrams, byte for byte, for tests
//! of sessions over loopback. Wrap a session's transport with
//! [`SealedSocket::with_faults`](crate::SealedSocket::with_faults): the
//! faults happen below the integrity check, as on a real network.

use std::time::Duration;

use laige_core::{Error, Result};
use web_time::Instant;

use crate::events;
use crate::transport::Transport;

/// Old datagrams kept for replays.
const REPLAY_HISTORY: usize = 32;

/// The faults a [`FaultyTransport`] adds to every datagram it sends. Rates
/// are in parts per thousand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Faults {
    /// One-way delay added to every datagram (RTT = 2 × latency between
    /// two faulty peers). 0..=1 s.
    pub latency: Duration,
    /// Each datagram's delay varies uniformly in ±jitter around `latency`
    /// (so datagrams overtake each other), 0..=latency.
    pub jitter: Duration,
    /// Datagrams dropped, ‰ (0..=500).
    pub loss_per_mille: u32,
    /// Datagrams sent twice, ‰ (0..=500).
    pub duplicate_per_mille: u32,
    /// Datagrams held back an extra `latency` (reordered past their
    /// successors), ‰ (0..=500).
    pub reorder_per_mille: u32,
    /// Datagrams damaged by flipping `corrupt_bits` random bits, ‰
    /// (0..=500).
    pub corrupt_per_mille: u32,
    /// Bits flipped in a corrupted datagram, 1..=64.
    pub corrupt_bits: u32,
    /// Datagrams cut short by 1..=8 bytes (never below one byte), ‰
    /// (0..=500).
    pub truncate_per_mille: u32,
    /// Datagrams given 1..=8 random bytes at the end, ‰ (0..=500).
    pub append_per_mille: u32,
    /// Sends after which one of the last 32 datagrams (to any address) is
    /// sent again to its address, ‰ (0..=500): an old datagram replayed.
    pub replay_per_mille: u32,
    /// Most datagrams in flight; one beyond it is dropped (the bound in
    /// count; the bound in time is `2 × latency + jitter`). 1..=65536.
    pub max_in_flight: usize,
    /// The seed of the fault stream (a fixed seed gives the same decisions
    /// for the same datagram sequence).
    pub seed: u64,
}

impl Default for Faults {
    /// No faults (a pass-through transport).
    fn default() -> Self {
        Self {
            latency: Duration::ZERO,
            jitter: Duration::ZERO,
            loss_per_mille: 0,
            duplicate_per_mille: 0,
            reorder_per_mille: 0,
            corrupt_per_mille: 0,
            corrupt_bits: 1,
            truncate_per_mille: 0,
            append_per_mille: 0,
            replay_per_mille: 0,
            max_in_flight: 4096,
            seed: 0x5eed,
        }
    }
}

impl Faults {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// `net/config_invalid` naming the field.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, value: String, accepted: &'static str| {
            Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                field,
                value,
                accepted,
            ))
        };
        if self.latency > Duration::from_secs(1) {
            return bad("latency", format!("{:?}", self.latency), "0..=1 s");
        }
        if self.jitter > self.latency {
            return bad("jitter", format!("{:?}", self.jitter), "0..=latency");
        }
        for (field, v) in [
            ("loss_per_mille", self.loss_per_mille),
            ("duplicate_per_mille", self.duplicate_per_mille),
            ("reorder_per_mille", self.reorder_per_mille),
            ("corrupt_per_mille", self.corrupt_per_mille),
            ("truncate_per_mille", self.truncate_per_mille),
            ("append_per_mille", self.append_per_mille),
            ("replay_per_mille", self.replay_per_mille),
        ] {
            if v > 500 {
                return bad(field, v.to_string(), "0..=500 per mille");
            }
        }
        if !(1..=64).contains(&self.corrupt_bits) {
            return bad("corrupt_bits", self.corrupt_bits.to_string(), "1..=64 bits");
        }
        if !(1..=65_536).contains(&self.max_in_flight) {
            return bad(
                "max_in_flight",
                self.max_in_flight.to_string(),
                "1..=65536 datagrams",
            );
        }
        Ok(())
    }
}

/// Counters of what a [`FaultyTransport`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultStats {
    /// Datagrams the layer above sent.
    pub sent: u64,
    /// Datagrams dropped by `loss_per_mille`.
    pub lost: u64,
    /// Extra copies sent.
    pub duplicated: u64,
    /// Datagrams held back to arrive out of order.
    pub reordered: u64,
    /// Datagrams with flipped bits.
    pub corrupted: u64,
    /// Datagrams cut short.
    pub truncated: u64,
    /// Datagrams with bytes appended.
    pub appended: u64,
    /// Old datagrams sent again.
    pub replayed: u64,
    /// Datagrams dropped because `max_in_flight` were in flight.
    pub overflowed: u64,
}

/// The fault stream: SplitMix64 from the faults' seed, so a seed gives
/// the same decisions for the same sequence of sends.
#[derive(Debug)]
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn chance(&mut self, per_mille: u32) -> bool {
        per_mille > 0 && self.next() % 1000 < u64::from(per_mille)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n.max(1) as u64).unwrap_or(0)
    }

    /// `latency`, moved uniformly within ±`jitter`.
    fn delay(&mut self, faults: &Faults) -> Duration {
        let jitter_ns = u64::try_from(faults.jitter.as_nanos()).unwrap_or(0);
        if jitter_ns == 0 {
            return faults.latency;
        }
        let offset = self.next() % (2 * jitter_ns + 1);
        (faults.latency + Duration::from_nanos(offset)).saturating_sub(faults.jitter)
    }
}

/// The shortest wait before TCP sends a lost segment again (Linux's
/// minimum retransmission timeout).
const RTO_MIN: Duration = Duration::from_millis(200);

/// Counters of what the control link's injected faults did
/// ([`NetDriver::control_faults`](crate::NetDriver::control_faults)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamFaultStats {
    /// Frames held back by the faults.
    pub frames: u64,
    /// Frames whose first transmission was lost (each arrived a
    /// retransmission timeout later).
    pub retransmitted: u64,
}

/// The faults of a reliable, ordered byte stream (an epoch session's TCP
/// control link). TCP delivers every byte once and in order, so of
/// [`Faults`] only these apply: each frame waits `latency` ± `jitter`, and
/// with `loss_per_mille` its first transmission is lost and it waits a
/// retransmission timeout more (`max(200 ms, 2 × (latency + jitter))`). A
/// frame never overtakes the one sent before it; duplication, reordering,
/// damage and replays do not happen on a stream and are ignored.
#[derive(Debug)]
pub(crate) struct StreamFaults {
    faults: Faults,
    dice: Dice,
    /// Frames waiting for their time, in send order, each due no earlier
    /// than the one before it.
    held: std::collections::VecDeque<(Instant, Vec<u8>)>,
    stats: StreamFaultStats,
}

impl StreamFaults {
    /// Faults for one link; `stream` tells links of one peer apart (each
    /// draws its own decisions from the seed).
    pub(crate) fn new(faults: Faults, stream: u64) -> Result<Self> {
        faults.validate()?;
        Ok(Self {
            dice: Dice(faults.seed ^ stream.wrapping_mul(0xa076_1d64_78bd_642f)),
            faults,
            held: std::collections::VecDeque::new(),
            stats: StreamFaultStats::default(),
        })
    }

    /// Holds `frame`, sent at `now`, until its time.
    pub(crate) fn hold(&mut self, frame: Vec<u8>, now: Instant) {
        self.stats.frames += 1;
        let mut due = now + self.dice.delay(&self.faults);
        if self.dice.chance(self.faults.loss_per_mille) {
            self.stats.retransmitted += 1;
            due += RTO_MIN.max(2 * (self.faults.latency + self.faults.jitter));
        }
        if let Some(&(last, _)) = self.held.back() {
            due = due.max(last);
        }
        self.held.push_back((due, frame));
    }

    /// Appends to `out` every frame due at `now`, in send order.
    pub(crate) fn release(&mut self, now: Instant, out: &mut Vec<u8>) {
        while self.held.front().is_some_and(|(due, _)| *due <= now) {
            if let Some((_, frame)) = self.held.pop_front() {
                out.extend_from_slice(&frame);
            }
        }
    }

    /// What the faults did so far.
    pub(crate) fn stats(&self) -> StreamFaultStats {
        self.stats
    }
}

/// A datagram waiting for its time.
struct Flight<A> {
    due: Instant,
    bytes: Vec<u8>,
    to: A,
}

/// Wraps a [`Transport`] (typically [`UdpTransport`](crate::UdpTransport))
/// and delays, drops, duplicates, reorders, damages and replays what it
/// sends. Delayed datagrams leave on the next `send_to` or `recv_from`
/// after they are due (a session polls both every tick), so precision is
/// a poll interval. Datagram buffers are recycled.
pub struct FaultyTransport<T: Transport> {
    inner: T,
    faults: Faults,
    dice: Dice,
    in_flight: Vec<Flight<T::Addr>>,
    /// The last datagrams handed to the inner transport (replay sources),
    /// by `replay_next % REPLAY_HISTORY`.
    history: Vec<(Vec<u8>, T::Addr)>,
    replay_next: usize,
    /// Spare datagram buffers.
    pool: Vec<Vec<u8>>,
    stats: FaultStats,
}

impl<T: Transport> std::fmt::Debug for FaultyTransport<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultyTransport")
            .field("faults", &self.faults)
            .field("in_flight", &self.in_flight.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<T: Transport> FaultyTransport<T> {
    /// Wraps `inner`.
    ///
    /// # Errors
    /// `net/config_invalid` for faults outside their ranges.
    pub fn new(inner: T, faults: Faults) -> Result<Self> {
        faults.validate()?;
        Ok(Self {
            inner,
            dice: Dice(faults.seed),
            in_flight: Vec::with_capacity(faults.max_in_flight.min(1024)),
            history: Vec::with_capacity(REPLAY_HISTORY),
            replay_next: 0,
            pool: Vec::new(),
            faults,
            stats: FaultStats::default(),
        })
    }

    /// What the transport did so far.
    #[must_use]
    pub fn stats(&self) -> FaultStats {
        self.stats
    }

    fn next(&mut self) -> u64 {
        self.dice.next()
    }

    fn chance(&mut self, per_mille: u32) -> bool {
        self.dice.chance(per_mille)
    }

    fn below(&mut self, n: usize) -> usize {
        self.dice.below(n)
    }

    fn delay(&mut self) -> Duration {
        self.dice.delay(&self.faults)
    }

    /// A buffer holding `bytes`, from the pool when one is spare.
    fn copy(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut buf = self.pool.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(bytes);
        buf
    }

    /// Damages `bytes` as the faults say.
    fn damage(&mut self, bytes: &mut Vec<u8>) {
        if self.chance(self.faults.corrupt_per_mille) && !bytes.is_empty() {
            self.stats.corrupted += 1;
            for _ in 0..self.faults.corrupt_bits {
                let bit = self.below(bytes.len() * 8);
                bytes[bit / 8] ^= 1 << (bit % 8);
            }
        }
        if self.chance(self.faults.truncate_per_mille) && bytes.len() > 1 {
            self.stats.truncated += 1;
            let cut = (1 + self.below(8)).min(bytes.len() - 1);
            bytes.truncate(bytes.len() - cut);
        }
        if self.chance(self.faults.append_per_mille) {
            self.stats.appended += 1;
            for _ in 0..=self.below(8) {
                bytes.push(self.next().to_le_bytes()[0]);
            }
        }
    }

    fn enqueue(&mut self, bytes: Vec<u8>, to: T::Addr, extra: Duration) {
        if self.in_flight.len() >= self.faults.max_in_flight {
            self.stats.overflowed += 1;
            self.pool.push(bytes);
            return;
        }
        let due = Instant::now() + self.delay() + extra;
        self.in_flight.push(Flight { due, bytes, to });
    }

    /// Hands every due datagram to the inner transport (and keeps it for
    /// replays).
    fn flush(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.in_flight.len() {
            if self.in_flight[i].due <= now {
                let Flight { bytes, to, .. } = self.in_flight.swap_remove(i);
                self.inner.send_to(&bytes, &to);
                self.remember(bytes, to);
            } else {
                i += 1;
            }
        }
    }

    fn remember(&mut self, bytes: Vec<u8>, to: T::Addr) {
        if self.faults.replay_per_mille == 0 {
            self.pool.push(bytes);
        } else if self.history.len() < REPLAY_HISTORY {
            self.history.push((bytes, to));
        } else {
            let slot = self.replay_next % REPLAY_HISTORY;
            self.replay_next += 1;
            let (old, _) = std::mem::replace(&mut self.history[slot], (bytes, to));
            self.pool.push(old);
        }
    }
}

impl<T: Transport> Transport for FaultyTransport<T> {
    type Addr = T::Addr;

    fn send_to(&mut self, datagram: &[u8], to: &T::Addr) {
        self.stats.sent += 1;
        self.flush();
        if self.chance(self.faults.replay_per_mille) && !self.history.is_empty() {
            self.stats.replayed += 1;
            let pick = self.below(self.history.len());
            let (bytes, old_to) = &self.history[pick];
            self.inner.send_to(bytes, old_to);
        }
        if self.chance(self.faults.loss_per_mille) {
            self.stats.lost += 1;
            return;
        }
        let extra = if self.chance(self.faults.reorder_per_mille) {
            self.stats.reordered += 1;
            self.faults.latency
        } else {
            Duration::ZERO
        };
        let mut bytes = self.copy(datagram);
        self.damage(&mut bytes);
        if self.chance(self.faults.duplicate_per_mille) {
            self.stats.duplicated += 1;
            let copy = self.copy(&bytes);
            self.enqueue(copy, to.clone(), Duration::ZERO);
        }
        self.enqueue(bytes, to.clone(), extra);
        self.flush();
    }

    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, T::Addr)> {
        self.flush();
        self.inner.recv_from(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loopback transport: what is sent is received, from address 1.
    #[derive(Default)]
    struct Loop(Vec<Vec<u8>>);

    impl Transport for Loop {
        type Addr = u8;
        fn send_to(&mut self, datagram: &[u8], _to: &u8) {
            self.0.push(datagram.to_vec());
        }
        fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, u8)> {
            let d = self.0.pop()?;
            buf[..d.len()].copy_from_slice(&d);
            Some((d.len(), 1))
        }
    }

    #[test]
    fn every_fault_kind_happens_at_its_rate_and_is_counted() {
        let faults = Faults {
            corrupt_per_mille: 100,
            corrupt_bits: 3,
            truncate_per_mille: 100,
            append_per_mille: 100,
            replay_per_mille: 100,
            duplicate_per_mille: 100,
            loss_per_mille: 100,
            ..Faults::default()
        };
        let mut t = FaultyTransport::new(Loop::default(), faults).unwrap();
        let original = [0x55_u8; 40];
        for _ in 0..2000 {
            t.send_to(&original, &2);
        }
        let s = t.stats();
        for (name, n) in [
            ("corrupted", s.corrupted),
            ("truncated", s.truncated),
            ("appended", s.appended),
            ("replayed", s.replayed),
            ("duplicated", s.duplicated),
            ("lost", s.lost),
        ] {
            assert!((120..=280).contains(&n), "{name}: {n} of 2000 at 10 %");
        }
        let datagrams = &t.inner.0;
        let changed = datagrams.iter().filter(|d| d[..] != original[..]).count();
        assert!(changed > 300, "{changed} damaged datagrams arrived");
        assert!(datagrams.iter().any(|d| d.len() < 40) && datagrams.iter().any(|d| d.len() > 40));
    }

    #[test]
    fn a_fault_outside_its_range_is_refused() {
        for faults in [
            Faults {
                corrupt_bits: 0,
                ..Faults::default()
            },
            Faults {
                replay_per_mille: 501,
                ..Faults::default()
            },
        ] {
            let err = FaultyTransport::new(Loop::default(), faults).unwrap_err();
            assert_eq!(err.id(), events::CONFIG_INVALID);
        }
    }

    /// Frames `0..n`, each 4 bytes of its number, held at `now`.
    fn hold_frames(f: &mut StreamFaults, n: u32, now: Instant) {
        for k in 0..n {
            f.hold(k.to_le_bytes().to_vec(), now);
        }
    }

    #[test]
    fn a_stream_delays_frames_in_order_and_loses_none() {
        let faults = Faults {
            latency: Duration::from_millis(50),
            jitter: Duration::from_millis(25),
            loss_per_mille: 100,
            // Ignored on a stream:
            duplicate_per_mille: 500,
            corrupt_per_mille: 500,
            replay_per_mille: 500,
            seed: 7,
            ..Faults::default()
        };
        let mut f = StreamFaults::new(faults, 0).unwrap();
        let t0 = Instant::now();
        hold_frames(&mut f, 1000, t0);
        let mut out = Vec::new();
        f.release(t0 + Duration::from_millis(24), &mut out);
        assert!(out.is_empty(), "a frame left before latency - jitter");
        // Every frame is out by the worst case (latency + jitter + one
        // retransmission timeout), whole, once and in order.
        f.release(t0 + Duration::from_millis(75) + RTO_MIN, &mut out);
        let got: Vec<u32> = out
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, (0..1000).collect::<Vec<_>>());
        let s = f.stats();
        assert_eq!(s.frames, 1000);
        assert!((50..=150).contains(&s.retransmitted), "{s:?} at 10 %");
    }

    #[test]
    fn a_lost_frame_holds_back_every_later_one() {
        let faults = Faults {
            latency: Duration::from_millis(10),
            loss_per_mille: 500,
            seed: 3,
            ..Faults::default()
        };
        let mut f = StreamFaults::new(faults, 0).unwrap();
        let t0 = Instant::now();
        hold_frames(&mut f, 64, t0);
        assert!(f.stats().retransmitted > 0);
        let mut out = Vec::new();
        // At latency, exactly the frames before the first lost one leave.
        f.release(t0 + Duration::from_millis(10), &mut out);
        let mut probe = StreamFaults::new(faults, 0).unwrap();
        let first_lost = (0..64)
            .position(|k| {
                let before = probe.stats().retransmitted;
                probe.hold(vec![k], t0);
                probe.stats().retransmitted > before
            })
            .unwrap();
        assert_eq!(out.len(), first_lost * 4);
        f.release(t0 + Duration::from_millis(10) + RTO_MIN, &mut out);
        assert_eq!(out.len(), 64 * 4);
    }

    #[test]
    fn links_of_one_peer_draw_their_own_decisions() {
        let faults = Faults {
            latency: Duration::from_millis(50),
            jitter: Duration::from_millis(50),
            seed: 11,
            ..Faults::default()
        };
        let t0 = Instant::now();
        let first_release = |stream| {
            let mut f = StreamFaults::new(faults, stream).unwrap();
            hold_frames(&mut f, 1, t0);
            (0..=100)
                .find(|ms| {
                    let mut out = Vec::new();
                    f.release(t0 + Duration::from_millis(*ms), &mut out);
                    !out.is_empty()
                })
                .unwrap()
        };
        let times: std::collections::BTreeSet<u64> = (0..8).map(first_release).collect();
        assert!(times.len() > 1, "eight links, one delay: {times:?}");
    }
}
