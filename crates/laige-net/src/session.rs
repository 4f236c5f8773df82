//! [`NetDriver`]: a GGRS session (P2P rollback
//! or lockstep, spectator, sync test), with whole-world snapshots.

use std::marker::PhantomData;
use std::net::SocketAddr;
use std::time::Duration;

use ggrs::{
    GgrsError, GgrsEvent, GgrsRequest, P2PSession, SessionState, SpectatorSession, SyncTestSession,
};
use laige_core::{Error, ErrorCode, Result, event};
use laige_sim::input::InputQueue;
use laige_sim::replay::ReplayHeader;
use laige_sim::snapshot::{SnapshotRing, WorldSnapshot};
use laige_sim::{SystemSchedule, World};
use web_time::Instant;

use crate::config::{DESYNC_INTERVAL, NetConfig};
use crate::desync::{self, checksum};
use crate::events;
use crate::input::{PlayerInput, PlayerInputs};
use crate::outcome::{Advance, NetEnd, NetStats};
use crate::record::{self, SessionRecorder};
use crate::seal::IntegrityStats;
use crate::seat::Seat;
use crate::transport::PeerAddr;

mod epoch;
mod start;

/// The held slots of a P2P session, after its save slots and the scratch
/// slot: each compared tick (a multiple of [`DESYNC_INTERVAL`]) is saved
/// into one of them instead of its save slot, round robin, and GGRS loads
/// it from there. A held slot keeps its tick for
/// `HELD_COMPARED * DESYNC_INTERVAL` ticks (32: longer than the save slots
/// keep theirs, at most 18), so a desync found after the save slots moved
/// past its tick (a slow peer, a late checksum report) still has the
/// tick's snapshot to dump. One save per compared tick, no copy.
const HELD_COMPARED: usize = 4;
mod wire;

pub use epoch::{EpochChange, EpochSocket, SocketFactory};

/// GGRS's compile-time configuration for a game's input type and the
/// peers' address type: the state GGRS keeps per saved frame is only the
/// ring slot (`u32`); the snapshot itself stays in laige's ring.
pub struct GgrsConfig<I, A = SocketAddr>(PhantomData<fn() -> (I, A)>);

impl<I: PlayerInput, A: PeerAddr> ggrs::Config for GgrsConfig<I, A> {
    type Input = I;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = u32;
    type Address = A;
}

/// The epoch step a session with epochs runs before each tick (installed
/// only by the `SocketAddr` sessions that enable epochs: their control
/// link is TCP).
type EpochHook<I, A> = fn(&mut NetDriver<I, A>, &mut World, &SystemSchedule) -> Option<Advance>;

enum Kind<I: PlayerInput, A: PeerAddr = SocketAddr> {
    P2P {
        session: Box<P2PSession<GgrsConfig<I, A>>>,
        local: Vec<usize>,
    },
    Spectator(Box<SpectatorSession<GgrsConfig<I, A>>>),
    SyncTest {
        session: Box<SyncTestSession<GgrsConfig<I, A>>>,
        check_distance: usize,
    },
    /// A joiner before its first epoch: no GGRS session yet.
    Joining,
}

/// A GGRS session (P2P rollback or lockstep, spectator, sync test) over a
/// world it does not own: the part of a [`NetSession`](crate::NetSession) that a loop owning
/// the world drives (the engine's frame step does, through
/// [`TickDriver`](crate::TickDriver)).
///
/// Call [`advance`](Self::advance) once per due tick with the world and
/// its schedule. It moves the world's pending input events into its own
/// queue (systems see every player's input only through
/// [`PlayerInputs`]: a peer's raw events are not simulation state the
/// others have), builds the local player's input from the events stamped
/// for the current tick (through [`PlayerInput::from_events`]), hands it
/// to GGRS, and fulfils GGRS's requests in order: save (into the snapshot
/// ring), load (a rollback), advance (write [`PlayerInputs`], run the
/// systems once).
///
/// `A` is the peers' address type: `SocketAddr` over UDP (the default;
/// epochs, joins in progress and late spectators need it), a WebRTC peer
/// id over WebRTC.
pub struct NetDriver<I: PlayerInput, A: PeerAddr = SocketAddr> {
    kind: Kind<I, A>,
    ring: SnapshotRing,
    /// The local player's input events, out of the world's queue.
    local_events: InputQueue,
    /// The spectators this peer serves: one that leaves ends nothing.
    spectators: Vec<A>,
    /// The session record ([`record_to`](Self::record_to)).
    recorder: Option<SessionRecorder>,
    /// A joining peer's record, begun once the host's world arrives.
    pending_record: Option<(Box<dyn std::io::Write>, ReplayHeader)>,
    /// The inputs of each tick's last simulation, by `tick % len`.
    last_inputs: Vec<(u64, PlayerInputs<I>)>,
    /// One input record's bytes (reused).
    record_buf: Vec<u8>,
    /// Ring slots GGRS saves into; the one after them is a sync test's
    /// scratch slot for re-saves.
    save_slots: usize,
    inputs_entity: hecs::Entity,
    local_input: I,
    /// The tick of the last event moved out of the world's queue (the
    /// next one is given at least this tick).
    stamp_floor: u64,
    /// The world tick `local_input` was built for: GGRS fixes a frame's
    /// local input at its first `advance_frame` (it registers the input
    /// even when the prediction window is full and drops a second one for
    /// the same frame), so a tick that waits sends the same input again
    /// and the events that arrive meanwhile go to the next tick.
    input_tick: Option<u64>,
    config: NetConfig,
    stats: NetStats,
    skip_credit: u32,
    end: Option<NetEnd<A>>,
    started: Instant,
    confirmed: Vec<(u64, u64)>,
    next_confirmed: u64,
    mismatch: Option<String>,
    dump_prefix: Option<String>,
    /// The desynced tick and its snapshot's dump, kept from a P2P desync
    /// (filled only then: nothing is built while the peers agree).
    desync_dump: Option<(u64, String)>,
    /// The room's seats as this peer sees them (`NetConfig::players` of
    /// them; a P2P session's players are the seats not empty).
    roster: Vec<Seat<A>>,
    /// The seat of each GGRS player handle.
    seat_of: Vec<usize>,
    /// The world tick of the GGRS session's frame 0 (the epoch's first
    /// tick).
    base: u64,
    /// The epoch number (0: the first session).
    epoch: u32,
    /// The epoch control state, once enabled.
    epochs: Option<Box<epoch::Epochs>>,
    /// The step that drives `epochs` (set with them).
    epoch_hook: Option<EpochHook<I, A>>,
    changes: Vec<EpochChange>,
    /// Seats whose player GGRS disconnected while epochs are on: the host
    /// empties them in its next change (then they may be rejoined).
    lost_seats: Vec<usize>,
    /// An input delay the host will change to at its next epoch.
    pending_delay: Option<usize>,
    /// Seats a player has held in some epoch (a later join there is a
    /// rejoin).
    ever_seated: Vec<bool>,
    /// The integrity counters of every socket this session used (one per
    /// epoch).
    integrity: Vec<std::sync::Arc<crate::seal::Counters>>,
}

impl<I: PlayerInput, A: PeerAddr> std::fmt::Debug for NetDriver<I, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetDriver")
            .field("stats", &self.stats)
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

#[cold]
fn ggrs_failed(err: &GgrsError) -> Error {
    Error::new(ErrorCode::Failed, events::SESSION_FAILED).with_detail(err.to_string())
}

impl<I: PlayerInput, A: PeerAddr> NetDriver<I, A> {
    /// Records the session from here on: every confirmed tick's inputs of
    /// all players and the state hash after it, in laige-sim's replay
    /// format under `header` (the caller's backend, seed and config
    /// hash), written to `out` as ticks become final. Call it before the
    /// first tick, with the session's world. [`crate::replay_session`]
    /// re-runs the record offline.
    ///
    /// On a peer that joins a running session ([`join`](Self::join),
    /// [`join_spectator`](Self::join_spectator)) the record begins when the
    /// host's world arrives: it starts at that boundary tick
    /// (`header.start_tick`, replay format version 3) with the world's
    /// keyframe and state hash, so it replays from there.
    ///
    /// # Errors
    /// `net/config_invalid` after the first tick; the recorder's own
    /// (`replay/header_invalid`, `replay/io_failed`).
    pub fn record_to(
        &mut self,
        out: impl std::io::Write + 'static,
        header: ReplayHeader,
        world: &World,
    ) -> Result<()> {
        if world.tick() != 0 {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "world.tick",
                world.tick(),
                "0 (record a session from its start)",
            ));
        }
        if matches!(self.kind, Kind::Joining) {
            header.validate()?;
            self.pending_record = Some((Box::new(out), header));
            return Ok(());
        }
        let mut recorder = SessionRecorder::new(Box::new(out), header)?;
        recorder.record_hash(0, world.state_hash())?;
        self.recorder = Some(recorder);
        Ok(())
    }

    /// Begins a joining peer's record ([`record_to`](Self::record_to)) at
    /// the host's world, just loaded: the world's tick is the start, its
    /// keyframe and state hash the first records. A failure is logged
    /// (`net/record_failed`) and the peer plays on unrecorded.
    pub(crate) fn begin_joined_record(&mut self, world: &World) {
        let Some((out, mut header)) = self.pending_record.take() else {
            return;
        };
        let tick = world.tick();
        header.start_tick = tick;
        let begun = SessionRecorder::new(out, header).and_then(|mut recorder| {
            let mut keyframe = Vec::new();
            world.encode_snapshot(&mut keyframe)?;
            recorder.record_keyframe(tick, &keyframe)?;
            recorder.record_hash(tick, world.state_hash())?;
            Ok(recorder)
        });
        match begun {
            Ok(recorder) => self.recorder = Some(recorder),
            Err(err) => record::record_failed(&err),
        }
    }

    /// Ends the session record where this peer's confirmed past is
    /// rewritten at a boundary (the host's world replacing its own, a
    /// resync; or a re-simulation without a lost player's late inputs):
    /// its recorded inputs no longer lead to its state. The record,
    /// verifiable as written, is finished, with a `net/record_failed`
    /// warning naming the tick.
    pub(crate) fn end_record_at_rewrite(&mut self, tick: u64) {
        if self.recorder.is_none() {
            return;
        }
        event!(
            Warn,
            events::RECORD_FAILED,
            tick,
            detail = "the session record ends here: this peer's confirmed past was rewritten at an epoch boundary"
        );
        let _ = self.finish_record();
    }

    /// Ends the session record (its end record, flushed): the ticks
    /// confirmed so far are in it. Nothing without a record.
    ///
    /// # Errors
    /// The recorder's (`replay/io_failed`); also logged as
    /// `net/record_failed`.
    pub fn finish_record(&mut self) -> Result<()> {
        let Some(recorder) = self.recorder.take() else {
            return Ok(());
        };
        recorder
            .finish()
            .and_then(|mut out| {
                out.flush().map_err(|e| {
                    Error::new(ErrorCode::Io, events::RECORD_FAILED).with_detail(e.to_string())
                })
            })
            .inspect_err(record::record_failed)
    }

    /// On a P2P desync, write the desynced tick's snapshot
    /// ([`WorldSnapshot::dump`]) to `{prefix}-tick{N}.txt`, for
    /// `cargo xtask desync-diff` against the other peer's file. Without a
    /// prefix the dump is kept in memory only ([`desync_dump`](Self::desync_dump)).
    pub fn dump_desyncs_to(&mut self, prefix: impl Into<String>) {
        self.dump_prefix = Some(prefix.into());
    }

    /// After a P2P desync: the desynced tick and its snapshot's dump (the
    /// text [`dump_desyncs_to`](Self::dump_desyncs_to) writes and
    /// `cargo xtask desync-diff` compares: every component value, the
    /// differing types' down to the field), so that a peer with no files
    /// (a browser page) can hand it on. `None` before a desync, for other
    /// ends, and when the session's snapshot ring no longer held the tick.
    #[must_use]
    pub fn desync_dump(&self) -> Option<(u64, &str)> {
        self.desync_dump.as_ref().map(|(t, d)| (*t, d.as_str()))
    }

    /// The counters (with the sockets' integrity counters, summed over
    /// the epochs).
    #[must_use]
    pub fn stats(&self) -> NetStats {
        let integrity = self
            .integrity
            .iter()
            .fold(IntegrityStats::default(), |sum, c| sum.plus(c.read()));
        NetStats {
            dropped_damaged: integrity.dropped_damaged,
            dropped_unknown_peer: integrity.dropped_unknown_peer,
            ..self.stats
        }
    }

    /// Why the session ended, once it has.
    #[must_use]
    pub fn end(&self) -> Option<&NetEnd<A>> {
        self.end.as_ref()
    }

    /// Why the session ended (consuming it).
    #[must_use]
    pub fn into_end(self) -> Option<NetEnd<A>> {
        self.end
    }

    /// Keeps polling the peers for up to `time` without simulating, so
    /// that they receive this peer's last inputs (GGRS resends unacknowledged
    /// inputs every 200 ms) before the socket closes: a run that ends by
    /// its limit lets the others reach theirs. Returns early once the
    /// session ended (a peer left). Cold path.
    pub fn linger(&mut self, time: Duration) {
        let until = Instant::now() + time;
        crate::driver::poll_until(until, Duration::from_millis(5), || match &mut self.kind {
            Kind::P2P { session, .. } => {
                session.poll_remote_clients();
                session
                    .events()
                    .any(|e| matches!(e, GgrsEvent::Disconnected { .. }))
            }
            Kind::Spectator(s) => {
                s.poll_remote_clients();
                s.events()
                    .any(|e| matches!(e, GgrsEvent::Disconnected { .. }))
            }
            Kind::SyncTest { .. } | Kind::Joining => true,
        });
    }

    /// The confirmed `(tick, state hash)` pairs, oldest first (up to
    /// `NetConfig::confirmed_log`; later ones are not kept).
    #[must_use]
    pub fn confirmed_hashes(&self) -> &[(u64, u64)] {
        &self.confirmed
    }

    /// Advances by one due tick (see the type's docs).
    ///
    /// # Errors
    /// `net/session_failed` if GGRS rejects a request in a way that is not
    /// a session end (a bug); ends (disconnect, desync, timeout, a failing
    /// system) are [`Advance::Ended`] with [`end`](Self::end) set.
    pub fn advance(&mut self, world: &mut World, schedule: &SystemSchedule) -> Result<Advance> {
        if self.end.is_some() {
            return Ok(Advance::Ended);
        }
        // Out of the world's queue before any system runs (a rejected
        // event is counted by the queue), in the order they happened, each
        // at a tick no earlier than the one before it: the loop stamps an
        // event with the tick of its due slot as if every due tick from now
        // on ran a world tick, and the due ticks this session waits or
        // skips do not, so an event queued in a frame that then waited can
        // carry a later tick than one queued in the next frame. Without the
        // floor the later event would be simulated first.
        for ev in world.input().pending() {
            let tick = ev.tick.max(self.stamp_floor);
            self.stamp_floor = tick;
            let _ = self.local_events.push_at(tick, ev.time_ns, ev.kind);
        }
        world.input_mut().clear_pending();
        self.poll_events();
        if self.end.is_some() {
            return Ok(Advance::Ended);
        }
        if let Some(step) = self.epoch_hook
            && let Some(advance) = step(self, world, schedule)
        {
            return Ok(advance);
        }
        if !self.running() {
            if self.started.elapsed() > self.config.sync_timeout {
                event!(Error, events::SYNC_TIMEOUT);
                self.end = Some(NetEnd::SyncTimeout);
                return Ok(Advance::Ended);
            }
            return Ok(Advance::Synchronizing);
        }
        if self.skip_credit > 0 {
            self.skip_credit -= 1;
            self.stats.skipped += 1;
            return Ok(Advance::Skipped);
        }
        let tick = world.tick();
        if self.input_tick != Some(tick) {
            // Once per world tick (see `input_tick`): a tick that waits
            // re-sends the same input; events due meanwhile go to the next.
            self.local_events.deliver(tick);
            self.local_input = I::from_events(self.local_input, self.local_events.delivered());
            self.input_tick = Some(tick);
        }
        let requests = match self.add_input_and_advance() {
            Ok(requests) => requests,
            Err(GgrsError::PredictionThreshold | GgrsError::NotSynchronized) => {
                self.stats.waited += 1;
                event!(Debug, events::PREDICTION_STALL, tick);
                return Ok(Advance::Waiting);
            }
            Err(GgrsError::MismatchedChecksum { current_frame, .. }) => {
                let report = self
                    .mismatch
                    .take()
                    .unwrap_or_else(|| format!("checksums differ by frame {current_frame}"));
                return Ok(self.desync(tick.saturating_sub(1), report));
            }
            Err(e) => return Err(ggrs_failed(&e)),
        };
        let before = world.tick();
        let mut ticked = false;
        for request in requests {
            if let Err(end) = self.fulfil(request, world, schedule, &mut ticked) {
                self.end = Some(end);
                return Ok(Advance::Ended);
            }
        }
        if let Some(report) = self.mismatch.take() {
            return Ok(self.desync(before, report));
        }
        self.after_tick(world);
        Ok(if ticked {
            self.stats.ticks += 1;
            Advance::Ticked
        } else {
            self.stats.waited += 1;
            Advance::Waiting
        })
    }

    fn running(&self) -> bool {
        match &self.kind {
            Kind::P2P { session, .. } => session.current_state() == SessionState::Running,
            Kind::Spectator(s) => s.current_state() == SessionState::Running,
            Kind::SyncTest { .. } => true,
            Kind::Joining => false,
        }
    }

    fn add_input_and_advance(
        &mut self,
    ) -> std::result::Result<Vec<GgrsRequest<GgrsConfig<I, A>>>, GgrsError> {
        // GGRS asserts its own invariants by panicking (one a network can
        // reach: survivors whose last frames of a lost player differ by
        // more than the prediction window make it roll back out of it).
        // The session ends on it with an error instead; the GGRS session
        // is not used again.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.advance_ggrs()))
            .unwrap_or_else(|payload| {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(GgrsError::InvalidRequest {
                    info: format!("GGRS panicked while advancing: {what}"),
                })
            })
    }

    fn advance_ggrs(
        &mut self,
    ) -> std::result::Result<Vec<GgrsRequest<GgrsConfig<I, A>>>, GgrsError> {
        let input = self.local_input;
        match &mut self.kind {
            Kind::P2P { session, local } => {
                for &handle in local.iter() {
                    session.add_local_input(handle, input)?;
                }
                session.advance_frame()
            }
            Kind::Spectator(s) => s.advance_frame(),
            Kind::Joining => Err(GgrsError::NotSynchronized),
            Kind::SyncTest { session, .. } => {
                for handle in 0..self.config.players {
                    session.add_local_input(handle, input)?;
                }
                session.advance_frame()
            }
        }
    }

    fn fulfil(
        &mut self,
        request: GgrsRequest<GgrsConfig<I, A>>,
        world: &mut World,
        schedule: &SystemSchedule,
        ticked: &mut bool,
    ) -> std::result::Result<(), NetEnd<A>> {
        match request {
            GgrsRequest::SaveGameState { cell, frame } => {
                let tick = self.base + frame_tick(frame);
                let slot = self.slot_of(tick);
                let sync_test = matches!(self.kind, Kind::SyncTest { .. });
                let resave = sync_test
                    && self
                        .ring
                        .get(slot)
                        .is_ok_and(|s| s.is_filled() && s.tick() == tick);
                // GGRS reads a checksum only where it compares one: every
                // frame of a sync test's window, a P2P session's frames at
                // the desync interval (see `DESYNC_INTERVAL`).
                let compared = sync_test || tick.is_multiple_of(u64::from(DESYNC_INTERVAL));
                let hash = if resave {
                    let scratch = self.save_slots;
                    let hash = self.save(scratch, world, true)?;
                    let (first, again) = (self.ring.get(slot), self.ring.get(scratch));
                    if let (Ok(first), Ok(again)) = (first, again)
                        && first.state_hash() != hash
                        && self.mismatch.is_none()
                    {
                        self.mismatch = Some(first.first_difference(again).map_or_else(
                            || format!("tick {tick}: state hashes differ"),
                            |d| d.to_string(),
                        ));
                    }
                    self.ring.get(slot).ok().and_then(WorldSnapshot::state_hash)
                } else {
                    self.save(slot, world, compared || self.keeps_hashes())?
                };
                let checksum = match (compared, hash, self.ring.get(slot)) {
                    (true, Some(hash), Ok(snap)) => Some(checksum(hash, snap)),
                    _ => None,
                };
                let slot = u32::try_from(slot).unwrap_or(0);
                cell.save(frame, Some(slot), checksum);
            }
            GgrsRequest::LoadGameState { cell, frame } => {
                let from = world.tick();
                let slot = cell.load().map_or(usize::MAX, |s| s as usize);
                self.ring.load(slot, world).map_err(NetEnd::SystemFailed)?;
                debug_assert_eq!(world.tick(), self.base + frame_tick(frame));
                self.stats.rollbacks += 1;
                self.stats.rolled_back_ticks += from.saturating_sub(world.tick());
            }
            GgrsRequest::AdvanceFrame { inputs } => {
                let tick = world.tick();
                if let Some(current) =
                    world.query_one_mut::<&mut PlayerInputs<I>>(self.inputs_entity)
                {
                    // The first `input_delay` frames of a later epoch
                    // have GGRS's default inputs: every seat keeps its
                    // input of the tick before the boundary instead.
                    let carried =
                        self.base > 0 && tick - self.base < self.config.input_delay as u64;
                    if carried {
                        current.mark_empty(&self.seat_of);
                    } else {
                        current.set_seats(&inputs, &self.seat_of);
                    }
                    let n = self.last_inputs.len() as u64;
                    self.last_inputs[usize::try_from(tick % n).unwrap_or(0)] = (tick, *current);
                }
                world.run_systems(schedule).map_err(NetEnd::SystemFailed)?;
                // Lockstep and spectators simulate final ticks only: each
                // is logged as it is made (a spectator catching up makes
                // several per call).
                let final_ticks =
                    self.config.max_prediction == 0 || matches!(self.kind, Kind::Spectator(_));
                if final_ticks && self.keeps_hashes() {
                    self.log_confirmed(world.tick(), world.state_hash());
                }
                *ticked = true;
            }
        }
        Ok(())
    }

    /// Saves into `slot`, with the state hash when `hashed`.
    fn save(
        &mut self,
        slot: usize,
        world: &World,
        hashed: bool,
    ) -> std::result::Result<Option<u64>, NetEnd<A>> {
        if hashed {
            self.ring.save_hashed(slot, world).map(Some)
        } else {
            self.ring.save(slot, world).map(|()| None)
        }
        .map_err(NetEnd::SystemFailed)
    }

    /// Whether every confirmed tick's state hash is wanted: the confirmed
    /// log has room ([`NetConfig::confirmed_log`]) or a session record is
    /// written. Only then is every save hashed.
    fn keeps_hashes(&self) -> bool {
        self.confirmed.len() < self.confirmed.capacity() || self.recorder.is_some()
    }

    fn log_confirmed(&mut self, tick: u64, hash: u64) {
        if tick < self.next_confirmed {
            return;
        }
        self.next_confirmed = tick + 1;
        if self.confirmed.len() < self.confirmed.capacity() {
            self.confirmed.push((tick, hash));
        }
        if let Some(recorder) = &mut self.recorder
            && tick > recorder.header().start_tick
        {
            // The state at `tick` is final: the inputs of tick − 1 (its
            // last simulation) made it.
            let n = self.last_inputs.len() as u64;
            let (at, inputs) = self.last_inputs[usize::try_from((tick - 1) % n).unwrap_or(0)];
            let written = if at == tick - 1 {
                record::encode(&inputs, &mut self.record_buf);
                recorder
                    .record_input_bytes(tick - 1, &self.record_buf)
                    .and_then(|()| recorder.record_hash(tick, hash))
            } else {
                Err(
                    Error::new(ErrorCode::InvalidState, events::RECORD_FAILED).with_detail(
                        format!("the inputs of tick {} are no longer kept", tick - 1),
                    ),
                )
            };
            if let Err(err) = written {
                record::record_failed(&err);
                self.recorder = None;
            }
        }
    }

    /// After a tick: the prediction depth, time sync, and the newly
    /// confirmed ticks' hashes (a state at tick `t` is final once the
    /// inputs of tick `t - 1` are confirmed).
    fn after_tick(&mut self, world: &mut World) {
        let current = world.tick();
        let base = i64::try_from(self.base).unwrap_or(i64::MAX);
        let final_up_to = match &mut self.kind {
            Kind::P2P { session, .. } => {
                if let Some(&handle) = session.remote_player_handles().first()
                    && let Ok(stats) = session.network_stats(handle)
                {
                    self.stats.rtt_ms = u64::try_from(stats.ping).unwrap_or(0);
                }
                u64::try_from(base + i64::from(session.confirmed_frame()) + 1).unwrap_or(0)
            }
            Kind::Spectator(_) => current,
            Kind::SyncTest { check_distance, .. } => current.saturating_sub(*check_distance as u64),
            Kind::Joining => return,
        };
        // The effects of a tick are final with the state it made.
        world.confirm_effects(final_up_to.min(current));
        self.keep_key(world, final_up_to.min(current));
        self.stats.max_prediction_depth = self
            .stats
            .max_prediction_depth
            .max(current.saturating_sub(final_up_to));
        if self.config.max_prediction == 0 || !self.keeps_hashes() {
            return;
        }
        let mut tick = self
            .next_confirmed
            .max(final_up_to.saturating_sub(self.save_slots as u64 - 1));
        while tick <= final_up_to.min(current) {
            let slot = self.slot_of(tick);
            if tick == current {
                let hash = world.state_hash();
                self.log_confirmed(tick, hash);
            } else if let Ok(s) = self.ring.get(slot)
                && s.is_filled()
                && s.tick() == tick
                && let Some(hash) = s.state_hash()
            {
                self.log_confirmed(tick, hash);
            }
            tick += 1;
        }
    }

    /// The ring slot tick `tick` is saved into, and loaded from: a P2P
    /// session's compared ticks go to the held slots (see
    /// [`HELD_COMPARED`]), every other tick to save slot
    /// `tick % save_slots`.
    fn slot_of(&self, tick: u64) -> usize {
        let held = matches!(self.kind, Kind::P2P { .. })
            && tick.is_multiple_of(u64::from(DESYNC_INTERVAL));
        if held {
            let nth = usize::try_from(tick / u64::from(DESYNC_INTERVAL)).unwrap_or(0);
            self.save_slots + 1 + nth % HELD_COMPARED
        } else {
            usize::try_from(tick).unwrap_or(0) % self.save_slots
        }
    }

    /// A P2P desync at `tick` (see [`desync::report`]): the tick's snapshot
    /// from its slot, while that still holds it.
    #[cold]
    fn p2p_desync(&mut self, tick: u64, local: u128, remote: u128, addr: A) -> NetEnd<A> {
        let of_tick = |s: &&WorldSnapshot| s.is_filled() && s.tick() == tick;
        let snap = self.ring.get(self.slot_of(tick)).ok().filter(of_tick);
        // The type lines' names are the same in every snapshot of the ring.
        let names = (0..self.ring.len())
            .filter_map(|slot| self.ring.get(slot).ok())
            .find(|s| s.is_filled());
        let (end, dump) = desync::report(
            names,
            snap,
            tick,
            (local, remote),
            &addr,
            self.dump_prefix.as_deref(),
        );
        self.desync_dump = dump.map(|d| (tick, d));
        end
    }

    fn desync(&mut self, tick: u64, report: String) -> Advance {
        self.stats.desyncs += 1;
        event!(
            Error,
            events::SYNC_TEST_MISMATCH,
            tick,
            report = report.as_str()
        );
        self.end = Some(NetEnd::Desync { tick, report });
        Advance::Ended
    }

    fn poll_events(&mut self) {
        let mut ended = None;
        let mut desync = None;
        let mut skip = 0;
        let spectators = &self.spectators;
        let base = self.base;
        let mut lost = Vec::new();
        let roster = &self.roster;
        let epochs_on = self.epochs.is_some();
        // The seat of a remote player whose loss does not end the session:
        // with epochs on, any player but the host (seat 0, the
        // coordinator).
        let lost_seat = |addr: &A| {
            epochs_on
                .then(|| {
                    roster
                        .iter()
                        .position(|s| matches!(s, Seat::Remote(a) if a == addr))
                })
                .flatten()
                .filter(|&seat| seat != 0)
        };
        let mut drain = |e: GgrsEvent<GgrsConfig<I, A>>| match e {
            GgrsEvent::Synchronizing { .. } => {}
            GgrsEvent::Synchronized { addr } => {
                event!(Info, events::SYNCHRONIZED, peer = %addr);
            }
            GgrsEvent::Disconnected { addr } if spectators.contains(&addr) => {
                // A spectator that left: the players play on.
                event!(Warn, events::DISCONNECTED, peer = %addr, spectator = true);
            }
            GgrsEvent::Disconnected { addr } => match lost_seat(&addr) {
                // With epochs, a player who leaves empties its seat at
                // the host's next change; the others play on.
                Some(seat) => {
                    event!(Warn, events::DISCONNECTED, peer = %addr, seat);
                    lost.push(seat);
                }
                None => {
                    event!(Warn, events::DISCONNECTED, peer = %addr);
                    ended.get_or_insert(NetEnd::Disconnected { peer: addr });
                }
            },
            GgrsEvent::NetworkInterrupted {
                addr,
                disconnect_timeout,
            } => {
                let disconnect_in_ms = u64::try_from(disconnect_timeout).unwrap_or(u64::MAX);
                event!(Warn, events::NETWORK_INTERRUPTED, peer = %addr, disconnect_in_ms);
            }
            GgrsEvent::NetworkResumed { addr } => {
                event!(Info, events::NETWORK_RESUMED, peer = %addr);
            }
            GgrsEvent::WaitRecommendation { skip_frames } => skip += skip_frames,
            GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                addr,
            } => {
                desync.get_or_insert((
                    base + frame_tick(frame),
                    local_checksum,
                    remote_checksum,
                    addr,
                ));
            }
        };
        match &mut self.kind {
            Kind::P2P { session, .. } => {
                session.poll_remote_clients();
                session.events().for_each(&mut drain);
            }
            Kind::Spectator(s) => {
                s.poll_remote_clients();
                s.events().for_each(&mut drain);
            }
            Kind::SyncTest { .. } | Kind::Joining => {}
        }
        self.skip_credit = self.skip_credit.saturating_add(skip);
        for seat in lost {
            if !self.lost_seats.contains(&seat) {
                self.lost_seats.push(seat);
            }
        }
        match desync {
            // While a lost player's leave is pending in a session with
            // epochs, the survivors may hold different amounts of its
            // input (each drops it at the last input it got), so their
            // states differ from the earliest of those ticks on. The
            // leave's boundary settles it (exact leaves) and compares
            // every peer's state there (a resync if they still differ):
            // a GGRS desync report meanwhile is deferred to it.
            Some((tick, _, _, addr)) if self.epochs.is_some() && !self.lost_seats.is_empty() => {
                event!(Warn, events::DESYNC, tick, peer = %addr, deferred = true);
            }
            Some((tick, local, remote, addr)) => {
                ended = Some(self.p2p_desync(tick, local, remote, addr));
            }
            None => {}
        }
        if let Some(end) = ended {
            if matches!(end, NetEnd::Desync { .. }) {
                self.stats.desyncs += 1;
            }
            self.end = Some(end);
        }
    }
}

/// Registers [`PlayerInputs`] (`net.player_inputs`) on `world` and spawns
/// the entity that holds them for `players` players (a session's, and a
/// session record's playback).
///
/// # Errors
/// The registration's (a name or type already registered otherwise).
pub(crate) fn install_inputs<I: PlayerInput>(
    world: &mut World,
    players: usize,
) -> Result<hecs::Entity> {
    world.register_hashed_as::<PlayerInputs<I>>("net.player_inputs")?;
    Ok(world.ecs_mut().spawn((PlayerInputs::<I>::new(players),)))
}

/// The entity holding the session's [`PlayerInputs`] in `world` (a
/// loaded snapshot's: the host's world, a kept state, a record's start).
pub(crate) fn inputs_entity<I: PlayerInput>(world: &mut World) -> Option<hecs::Entity> {
    world
        .ecs_mut()
        .query_mut::<(hecs::Entity, &PlayerInputs<I>)>()
        .into_iter()
        .next()
        .map(|(entity, _)| entity)
}

/// A GGRS frame (`i32`, −1 before the first) as a laige tick.
fn frame_tick(frame: ggrs::Frame) -> u64 {
    u64::try_from(frame).unwrap_or(0)
}
