//! [`FaultySocket`]: a GGRS socket wrapper that adds latency, jitter,
//! loss, duplication and reordering, for tests of sessions over loopback.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use ggrs::{Message, NonBlockingSocket};
use laige_core::{Error, Result};

use crate::events;

/// The faults a [`FaultySocket`] adds to every packet it sends. Rates are
/// in parts per thousand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Faults {
    /// One-way delay added to every packet (RTT = 2 × latency between two
    /// faulty peers). 0..=1 s.
    pub latency: Duration,
    /// Each packet's delay varies uniformly in ±jitter around `latency`
    /// (so packets overtake each other), 0..=latency.
    pub jitter: Duration,
    /// Packets dropped, ‰ (0..=500).
    pub loss_per_mille: u32,
    /// Packets sent twice, ‰ (0..=500).
    pub duplicate_per_mille: u32,
    /// Packets held back an extra `latency` (reordered past their
    /// successors), ‰ (0..=500).
    pub reorder_per_mille: u32,
    /// Most packets in flight; a packet beyond it is dropped (the bound in
    /// count; the bound in time is `2 × latency + jitter`). 1..=65536.
    pub max_in_flight: usize,
    /// The seed of the fault stream (a fixed seed gives the same decisions
    /// for the same packet sequence).
    pub seed: u64,
}

impl Default for Faults {
    /// No faults (a pass-through socket).
    fn default() -> Self {
        Self {
            latency: Duration::ZERO,
            jitter: Duration::ZERO,
            loss_per_mille: 0,
            duplicate_per_mille: 0,
            reorder_per_mille: 0,
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
        ] {
            if v > 500 {
                return bad(field, v.to_string(), "0..=500 per mille");
            }
        }
        if !(1..=65_536).contains(&self.max_in_flight) {
            return bad(
                "max_in_flight",
                self.max_in_flight.to_string(),
                "1..=65536 packets",
            );
        }
        Ok(())
    }
}

/// Counters of what a [`FaultySocket`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultStats {
    /// Packets the session sent.
    pub sent: u64,
    /// Packets dropped by `loss_per_mille`.
    pub lost: u64,
    /// Extra copies sent.
    pub duplicated: u64,
    /// Packets held back to arrive out of order.
    pub reordered: u64,
    /// Packets dropped because `max_in_flight` were in flight.
    pub overflowed: u64,
}

/// Wraps a GGRS socket (typically [`ggrs::UdpNonBlockingSocket`]) and
/// delays, drops, duplicates and reorders what it sends. Delayed packets
/// leave on the next `send_to` or `receive_all_messages` after they are
/// due (GGRS polls both every tick), so precision is a poll interval.
pub struct FaultySocket<S> {
    inner: S,
    faults: Faults,
    rng: u64,
    in_flight: Vec<(Instant, Message, SocketAddr)>,
    stats: FaultStats,
}

impl<S> std::fmt::Debug for FaultySocket<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultySocket")
            .field("faults", &self.faults)
            .field("in_flight", &self.in_flight.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<S: NonBlockingSocket<SocketAddr>> FaultySocket<S> {
    /// Wraps `inner`.
    ///
    /// # Errors
    /// `net/config_invalid` for faults outside their ranges.
    pub fn new(inner: S, faults: Faults) -> Result<Self> {
        faults.validate()?;
        Ok(Self {
            inner,
            rng: faults.seed,
            in_flight: Vec::with_capacity(faults.max_in_flight.min(1024)),
            faults,
            stats: FaultStats::default(),
        })
    }

    /// What the socket did so far.
    #[must_use]
    pub fn stats(&self) -> FaultStats {
        self.stats
    }

    /// SplitMix64: the fault stream.
    fn next(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn chance(&mut self, per_mille: u32) -> bool {
        per_mille > 0 && self.next() % 1000 < u64::from(per_mille)
    }

    fn delay(&mut self) -> Duration {
        let jitter_ns = u64::try_from(self.faults.jitter.as_nanos()).unwrap_or(0);
        let latency = self.faults.latency;
        if jitter_ns == 0 {
            return latency;
        }
        let offset = self.next() % (2 * jitter_ns + 1);
        (latency + Duration::from_nanos(offset)).saturating_sub(self.faults.jitter)
    }

    fn enqueue(&mut self, msg: &Message, addr: SocketAddr, extra: Duration) {
        if self.in_flight.len() >= self.faults.max_in_flight {
            self.stats.overflowed += 1;
            return;
        }
        let due = Instant::now() + self.delay() + extra;
        self.in_flight.push((due, msg.clone(), addr));
    }

    /// Sends every packet that is due.
    fn flush(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.in_flight.len() {
            if self.in_flight[i].0 <= now {
                let (_, msg, addr) = self.in_flight.swap_remove(i);
                self.inner.send_to(&msg, &addr);
            } else {
                i += 1;
            }
        }
    }
}

impl<S: NonBlockingSocket<SocketAddr>> NonBlockingSocket<SocketAddr> for FaultySocket<S> {
    fn send_to(&mut self, msg: &Message, addr: &SocketAddr) {
        self.stats.sent += 1;
        self.flush();
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
        self.enqueue(msg, *addr, extra);
        if self.chance(self.faults.duplicate_per_mille) {
            self.stats.duplicated += 1;
            self.enqueue(msg, *addr, Duration::ZERO);
        }
        self.flush();
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        self.flush();
        self.inner.receive_all_messages()
    }
}
