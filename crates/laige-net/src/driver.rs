//! [`TickDriver`]: a network session as the owner of a loop's ticks, and
//! [`NetReport`], what it reports when the run ends.

use std::fmt;
use std::time::Duration;

use laige_core::Result;
use laige_sim::{SystemSchedule, World};
use web_time::Instant;

use crate::input::PlayerInput;
use crate::outcome::{Advance, NetEnd, NetStats};
use crate::session::NetDriver;
use crate::transport::PeerAddr;

/// What a loop that owns the world needs from a network session, object
/// safe so the loop need not know the game's input type: one call per due
/// tick, the report at the end, and a linger before the socket closes.
pub trait TickDriver {
    /// Advances by one due tick ([`NetDriver::advance`]).
    ///
    /// # Errors
    /// As [`NetDriver::advance`].
    fn advance(&mut self, world: &mut World, schedule: &SystemSchedule) -> Result<Advance>;

    /// The counters, the end (if any), the confirmed hashes and a
    /// desync's dump.
    fn report(&self) -> NetReport;

    /// Keeps answering the peers for up to `time` without simulating (see
    /// [`NetDriver::linger`]).
    fn linger(&mut self, time: Duration);

    /// Ends the session record, if one is written
    /// ([`NetDriver::finish_record`]; a failure is logged there).
    fn finish(&mut self) {}
}

impl<I: PlayerInput, A: PeerAddr> TickDriver for NetDriver<I, A> {
    fn advance(&mut self, world: &mut World, schedule: &SystemSchedule) -> Result<Advance> {
        NetDriver::advance(self, world, schedule)
    }

    fn report(&self) -> NetReport {
        NetReport {
            stats: self.stats(),
            end: self.end().map(|e| (e.exit_code(), e.to_string())),
            confirmed: self.confirmed_hashes().to_vec(),
            desync_dump: self.desync_dump().map(|(tick, d)| (tick, d.to_owned())),
        }
    }

    fn linger(&mut self, time: Duration) {
        NetDriver::linger(self, time);
    }

    fn finish(&mut self) {
        let _ = self.finish_record();
    }
}

/// A session's outcome, for a run's report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetReport {
    /// The counters.
    pub stats: NetStats,
    /// Why the session ended, if it did: the exit code and a sentence.
    pub end: Option<(u8, String)>,
    /// The confirmed `(tick, state hash)` pairs (up to
    /// `NetConfig::confirmed_log`).
    pub confirmed: Vec<(u64, u64)>,
    /// After a P2P desync: the tick and its snapshot's dump
    /// ([`NetDriver::desync_dump`]).
    pub desync_dump: Option<(u64, String)>,
}

impl fmt::Display for NetReport {
    /// `net:        1200 ticks, 31 rollbacks (96 ticks re-simulated), prediction depth ≤ 7, rtt 104 ms, 0 desyncs (12 skipped, 40 waited)`,
    /// then `datagrams:  3 dropped damaged, 0 dropped from unknown peers`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.stats;
        write!(
            f,
            "net:        {} ticks, {} rollbacks ({} ticks re-simulated), prediction depth ≤ {}, \
             rtt {} ms, {} desyncs ({} skipped, {} waited; {} confirmed hashes)",
            s.ticks,
            s.rollbacks,
            s.rolled_back_ticks,
            s.max_prediction_depth,
            s.rtt_ms,
            s.desyncs,
            s.skipped,
            s.waited,
            self.confirmed.len()
        )?;
        write!(
            f,
            "\ndatagrams:  {} dropped damaged, {} dropped from unknown peers",
            s.dropped_damaged, s.dropped_unknown_peer
        )?;
        if s.epochs > 0 {
            write!(
                f,
                "\nepochs:     {} ({} joins, {} rejoins, {} resyncs, {} leave replays, {} snapshot bytes)",
                s.epochs, s.joins, s.rejoins, s.resyncs, s.leave_replays, s.snapshot_bytes
            )?;
        }
        if let Some((code, why)) = &self.end {
            write!(f, "\nnet end:    {why} (code {code})")?;
        }
        Ok(())
    }
}

impl<A: fmt::Display> fmt::Display for NetEnd<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Disconnected { peer } => write!(f, "peer {peer} disconnected"),
            Self::Desync { tick, report } => write!(f, "desync at tick {tick}: {report}"),
            Self::SyncTimeout => f.write_str("the peers did not synchronize in time"),
            Self::SystemFailed(e) => write!(f, "a system failed: {e}"),
        }
    }
}

/// Sleeps in steps of `step` until `until` or until `done` says so.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn poll_until(until: Instant, step: Duration, mut done: impl FnMut() -> bool) {
    while Instant::now() < until && !done() {
        std::thread::sleep(step);
    }
}

/// On wasm32 one poll only: a page's thread must not sleep (std's sleep
/// panics there), and the socket's own work (a browser's data channels)
/// runs on that thread only after the caller returns.
#[cfg(target_arch = "wasm32")]
pub(crate) fn poll_until(_until: Instant, _step: Duration, mut done: impl FnMut() -> bool) {
    let _ = done();
}
