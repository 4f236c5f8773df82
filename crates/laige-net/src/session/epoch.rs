//! Session epochs: at a tick every peer agrees on, the running GGRS
//! session ends and a new one begins whose frame 0 is that tick, with a
//! new roster — so a player can join a game in progress.
//!
//! The host (seat 0) coordinates over a TCP control link to each peer
//! (`wire`); the GGRS traffic stays on UDP. A change runs in five steps:
//!
//! 1. **Propose.** A change waits (a joiner's hello, a seat to empty, a
//!    new input delay): the host stops simulating where it is (it keeps
//!    polling GGRS) and asks every member to stop too.
//! 2. **Ack.** Each member stops where it is, names that tick and the UDP
//!    port it opened for the next epoch.
//! 3. **Commit.** With every ack in, the host sets the boundary `T` to
//!    the latest tick anyone stopped at (so no peer is past it) and sends
//!    it; everyone runs on to `T`.
//! 4. **Final.** Each peer simulates up to `T` and waits until the inputs
//!    of every tick before `T` are confirmed; one more GGRS advance
//!    re-simulates any mispredicted tick, and its request to simulate `T`
//!    itself is not fulfilled. The state at `T` is now final; each member
//!    reports its state hash and, for each seat, the tick from which it
//!    simulated that seat as disconnected (its cut). Where the cuts of a
//!    lost player differ (each survivor's GGRS dropped it at the last
//!    input it got), the host sends the least; a peer with a later one
//!    re-simulates from a kept confirmed state without the lost player's
//!    inputs from the agreed cut on, and reports again. The host compares
//!    the hashes; a member still apart gets the host's world (a resync).
//! 5. **Go.** The host sends every peer the next roster (and the joiner
//!    the encoded world at `T`), and every peer starts a new GGRS session
//!    on its new socket, frame 0 being tick `T`. The old session is kept,
//!    polled, until then, so that a peer still waiting for an input of the
//!    old epoch gets it resent.
//!
//! Nothing of the world changes at the boundary. A GGRS session gives
//! every player the default input for its first `input_delay` frames; for
//! those ticks laige repeats instead every seat's input (and status) of
//! the tick before the boundary, which every peer holds in its world.

use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use web_time::Instant;

use ggrs::{GgrsError, GgrsRequest};
use laige_core::{Error, ErrorCode, Result, event};
use laige_sim::{SystemSchedule, World};

use super::wire::{Link, Msg};
use host::{Change, Peer, host_message, new_peer};
use leave::Keys;

mod host;
mod leave;
use super::{Kind, NetDriver, inputs_entity};
use crate::events;
use crate::fault::{Faults, StreamFaultStats, StreamFaults};
use crate::input::PlayerInput;
use crate::outcome::{Advance, NetEnd};
use crate::seal::{SealedSocket, SessionKey};
use crate::seat::Seat;
use crate::transport::Transport;

/// What begins an epoch: its number and first tick, the input delay, the
/// seats and spectators as this peer sees them, and the encoded world's
/// bytes this peer sent or received for it.
pub(super) struct EpochStart {
    pub(super) epoch: u32,
    pub(super) tick: u64,
    pub(super) input_delay: u8,
    pub(super) roster: Vec<Seat>,
    pub(super) spectators: Vec<SocketAddr>,
    pub(super) snapshot_bytes: usize,
    /// The key the epoch's datagrams are sealed under (the host's).
    pub(super) key: SessionKey,
}

/// A session's socket over any transport (each epoch listens on a fresh
/// port, so a late datagram of the previous epoch reaches nobody).
pub type EpochSocket = SealedSocket<Box<dyn Transport<Addr = SocketAddr>>>;

/// Opens the next epoch's UDP socket: the socket (`SealedSocket::boxed`;
/// add faults first with `SealedSocket::with_faults` to test with them)
/// and the local port it is bound to. The session seals each epoch under
/// the host's secret key, whatever key the socket comes with.
pub type SocketFactory = Box<dyn FnMut() -> Result<(EpochSocket, u16)>>;

/// One epoch change, as the game sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpochChange {
    /// The new epoch's number (the first session is epoch 0).
    pub epoch: u32,
    /// Its first tick (the GGRS session's frame 0).
    pub tick: u64,
    /// The seats taken in this change.
    pub joined: Vec<usize>,
    /// The seats left empty in this change.
    pub left: Vec<usize>,
    /// Bytes of the encoded world sent to (host) or received by (joiner)
    /// this peer; 0 for a member that needed none.
    pub snapshot_bytes: usize,
    /// Spectators in the new epoch (as this peer knows them: the host
    /// serves them all).
    pub spectators: usize,
}

fn epoch_failed(detail: String) -> Error {
    Error::new(ErrorCode::Failed, events::EPOCH_FAILED).with_detail(detail)
}

enum Role {
    Host {
        listener: TcpListener,
        peers: Vec<Peer>,
        change: Option<Change>,
    },
    /// A member (`joined`), or a joiner waiting for its first epoch.
    Peer { link: Link, joined: bool },
}

/// The epoch state a driver carries once epochs are enabled.
pub(super) struct Epochs {
    role: Role,
    sockets: SocketFactory,
    /// The next epoch's socket, opened at the ack (or the joiner's hello).
    next: Option<EpochSocket>,
    /// The local port of `next` (the host's, for the roster it sends).
    next_port: u16,
    /// The boundary this peer stops at, and its state hash once final.
    stop_at: Option<u64>,
    final_hash: Option<u64>,
    /// Whether `stop_at` is the committed boundary (not only where this
    /// member stopped for a proposal).
    committed: bool,
    /// The epoch number being entered.
    pending: u32,
    snapshot: Vec<u8>,
    /// The session's secret key: drawn by the host, received by the
    /// others with each epoch's `Go`; every epoch after the first is
    /// sealed under it.
    key: SessionKey,
    /// Delays injected on the control links (`control_faults`), and the
    /// links given them so far (each draws its own decisions).
    control_faults: Option<Faults>,
    faulted_links: u64,
    /// Kept confirmed states to re-simulate a leave from.
    keys: Keys,
}

impl<I: PlayerInput> NetDriver<I> {
    /// Makes this P2P session's host (seat 0, local) accept players who
    /// join while it runs: it listens for control links on `listener`
    /// (TCP; the demo binds the port number of its UDP socket), and opens
    /// each later epoch's socket with `sockets`.
    ///
    /// # Errors
    /// `net/config_invalid` if this is not a P2P session whose seat 0 is
    /// local; `net/epoch_failed` if the listener cannot be made
    /// non-blocking.
    pub fn host_epochs(&mut self, listener: TcpListener, sockets: SocketFactory) -> Result<()> {
        if !matches!(self.roster.first(), Some(Seat::Local))
            || !matches!(self.kind, Kind::P2P { .. })
        {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "seats[0]",
                "not local",
                "the host of an epoch session sits in seat 0",
            ));
        }
        listener
            .set_nonblocking(true)
            .map_err(|e| epoch_failed(format!("control listener: {e}")))?;
        self.widen_input_log();
        self.epochs = Some(Box::new(Epochs::new(
            Role::Host {
                listener,
                peers: Vec::new(),
                change: None,
            },
            sockets,
        )));
        self.epoch_hook = Some(Self::epoch_step);
        Ok(())
    }

    /// Makes this peer a member of the host's epochs: the player in
    /// `seat` of a P2P session, or (`None`) a spectator of the host. It
    /// opens the control link to `host` (the host's
    /// [`host_epochs`](Self::host_epochs) listener) and follows the epoch
    /// changes the host starts; without it, the first change leaves this
    /// peer behind.
    ///
    /// # Errors
    /// `net/config_invalid` if `seat` is not a local seat of a P2P
    /// session (or `None` for a session that is not a spectator's);
    /// `net/epoch_failed` if the host cannot be reached.
    pub fn member_epochs(
        &mut self,
        host: SocketAddr,
        seat: Option<usize>,
        sockets: SocketFactory,
    ) -> Result<()> {
        let fits = match seat {
            Some(seat) => {
                self.roster.get(seat) == Some(&Seat::Local) && matches!(self.kind, Kind::P2P { .. })
            }
            None => matches!(self.kind, Kind::Spectator(_)),
        };
        if !fits {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "seat",
                format!("{seat:?}"),
                "a local seat of this P2P session, or None for a spectator",
            ));
        }
        let mut link = connect(host)?;
        link.send(&Msg::Hello {
            member: true,
            spectator: seat.is_none(),
            seat: seat.and_then(|s| u8::try_from(s).ok()),
            udp_port: 0,
        })?;
        self.widen_input_log();
        self.epochs = Some(Box::new(Epochs::new(
            Role::Peer { link, joined: true },
            sockets,
        )));
        self.epoch_hook = Some(Self::epoch_step);
        Ok(())
    }

    /// A player joining the session of the host at `host` while it runs
    /// (`seat`: the seat it wants, e.g. its own to rejoin; `None`: any
    /// free one). The world has the game's systems and registrations;
    /// its state is replaced by the host's at the boundary tick. Until
    /// then [`advance`](Self::advance) returns
    /// [`Advance::Synchronizing`] (and the session ends with
    /// `net/sync_timeout` after `NetConfig::sync_timeout`).
    ///
    /// # Errors
    /// As [`p2p`](Self::p2p); `net/epoch_failed` if the host cannot be
    /// reached.
    pub fn join(
        world: &mut World,
        config: crate::NetConfig,
        host: SocketAddr,
        seat: Option<usize>,
        sockets: SocketFactory,
    ) -> Result<Self> {
        Self::enter(world, config, host, Some(seat), sockets)
    }

    /// A spectator joining the session of the host at `host` while it
    /// runs: as [`join`](Self::join), then it follows the confirmed
    /// inputs as [`spectator`](Self::spectator) does.
    ///
    /// # Errors
    /// As [`join`](Self::join).
    pub fn join_spectator(
        world: &mut World,
        config: crate::NetConfig,
        host: SocketAddr,
        sockets: SocketFactory,
    ) -> Result<Self> {
        Self::enter(world, config, host, None, sockets)
    }

    /// A peer entering a running session: a player (`Some(seat wanted)`)
    /// or a spectator (`None`).
    fn enter(
        world: &mut World,
        config: crate::NetConfig,
        host: SocketAddr,
        player: Option<Option<usize>>,
        mut sockets: SocketFactory,
    ) -> Result<Self> {
        let (socket, udp_port) = sockets()?;
        let mut link = connect(host)?;
        link.send(&Msg::Hello {
            member: false,
            spectator: player.is_none(),
            seat: player.flatten().and_then(|s| u8::try_from(s).ok()),
            udp_port,
        })?;
        let mut driver = Self::build(world, config, Kind::Joining)?;
        driver.roster = vec![Seat::Empty; config.players];
        let mut epochs = Epochs::new(
            Role::Peer {
                link,
                joined: false,
            },
            sockets,
        );
        epochs.next = Some(socket);
        driver.widen_input_log();
        driver.epochs = Some(Box::new(epochs));
        driver.epoch_hook = Some(Self::epoch_step);
        Ok(driver)
    }

    /// Changes the input delay (0..=16 ticks) through an epoch: the host
    /// starts a change at its next opportunity, and every peer uses the
    /// new delay from the boundary on.
    ///
    /// # Errors
    /// `net/config_invalid` for a delay over 16 or on a peer that is not
    /// an epoch host.
    pub fn change_input_delay(&mut self, input_delay: usize) -> Result<()> {
        if input_delay > crate::MAX_PREDICTION {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "input_delay",
                input_delay,
                "0..=16 ticks",
            ));
        }
        if !self
            .epochs
            .as_ref()
            .is_some_and(|e| matches!(e.role, Role::Host { .. }))
        {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "input_delay",
                input_delay,
                "a change by the epoch host (host_epochs)",
            ));
        }
        self.pending_delay = Some(input_delay);
        Ok(())
    }

    /// Delays this peer's epoch control messages from now on — its link to
    /// the host, or on the host its links to every peer, those accepted
    /// later included — as `faults` say, to test joins and rejoins over a
    /// slow network (with [`SealedSocket::with_faults`] on the
    /// datagrams). Each message waits `latency` ± `jitter`; with
    /// `loss_per_mille` its first transmission is lost and it arrives a
    /// retransmission timeout later (`max(200 ms, 2 × (latency +
    /// jitter))`); no message overtakes an earlier one. A TCP stream
    /// loses, duplicates, reorders and damages nothing, so the other
    /// fields of [`Faults`] are ignored.
    ///
    /// # Errors
    /// `net/config_invalid` for faults outside their ranges, or on a
    /// session without epochs (call [`host_epochs`](Self::host_epochs),
    /// [`member_epochs`](Self::member_epochs), [`join`](Self::join) or
    /// [`join_spectator`](Self::join_spectator) first).
    pub fn control_faults(&mut self, faults: Faults) -> Result<()> {
        faults.validate()?;
        let Some(e) = self.epochs.as_deref_mut() else {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "control_faults",
                "a session without epochs",
                "a session with epochs (host_epochs, member_epochs, join or join_spectator)",
            ));
        };
        e.control_faults = Some(faults);
        let mut links: Vec<&mut Link> = match &mut e.role {
            Role::Host { peers, .. } => peers.iter_mut().map(|p| &mut p.link).collect(),
            Role::Peer { link, .. } => vec![link],
        };
        for (k, link) in links.iter_mut().enumerate() {
            link.set_faults(StreamFaults::new(faults, k as u64)?);
        }
        e.faulted_links = links.len() as u64;
        Ok(())
    }

    /// What the control faults did on this peer's links (frames held,
    /// first transmissions lost), summed; zero without
    /// [`control_faults`](Self::control_faults).
    #[must_use]
    pub fn control_fault_stats(&self) -> StreamFaultStats {
        let mut sum = StreamFaultStats::default();
        let mut add = |link: &Link| {
            if let Some(s) = link.fault_stats() {
                sum.frames += s.frames;
                sum.retransmitted += s.retransmitted;
            }
        };
        match self.epochs.as_deref().map(|e| &e.role) {
            Some(Role::Host { peers, .. }) => peers.iter().for_each(|p| add(&p.link)),
            Some(Role::Peer { link, .. }) => add(link),
            None => {}
        }
        sum
    }

    /// Every epoch change so far, oldest first.
    #[must_use]
    pub fn epoch_changes(&self) -> &[EpochChange] {
        &self.changes
    }

    /// The epoch step of one [`advance`](Self::advance), before any tick:
    /// `Some` when this due tick must not simulate (a change is under
    /// way), `None` to tick as usual.
    pub(super) fn epoch_step(
        &mut self,
        world: &mut World,
        schedule: &SystemSchedule,
    ) -> Option<Advance> {
        let mut epochs = self.epochs.take()?;
        let step = self.epoch_step_with(&mut epochs, world, schedule);
        self.epochs = Some(epochs);
        match step {
            Ok(advance) => advance,
            Err(err) => {
                event!(Error, events::EPOCH_FAILED, error = %err);
                // A member whose link to the host closed: the host left.
                let host = match &self.epochs.as_ref().map(|e| &e.role) {
                    Some(Role::Peer { link, joined: true }) if err.code() == ErrorCode::Io => {
                        Some(link.peer)
                    }
                    _ => None,
                };
                self.end = Some(match host {
                    Some(peer) => NetEnd::Disconnected { peer },
                    None => NetEnd::SystemFailed(err),
                });
                Some(Advance::Ended)
            }
        }
    }

    fn epoch_step_with(
        &mut self,
        e: &mut Epochs,
        world: &mut World,
        schedule: &SystemSchedule,
    ) -> Result<Option<Advance>> {
        let current = world.tick();
        // Messages first: they may set the boundary or start the epoch.
        match &mut e.role {
            Role::Host {
                listener, peers, ..
            } => {
                while let Ok((stream, _)) = listener.accept() {
                    let mut link = Link::new(stream)?;
                    if let Some(faults) = e.control_faults {
                        link.set_faults(StreamFaults::new(faults, e.faulted_links)?);
                        e.faulted_links += 1;
                    }
                    peers.push(new_peer(link));
                }
                for peer in peers.iter_mut().filter(|p| !p.gone) {
                    loop {
                        let failed = match peer.link.poll() {
                            Ok(Some(msg)) => match host_message(peer, msg, e.pending, e.stop_at) {
                                Ok(()) => continue,
                                Err(err) => {
                                    let reason = err.to_string();
                                    let _ = peer.link.send(&Msg::Refuse { reason });
                                    err
                                }
                            },
                            Ok(None) => break,
                            Err(err) => err,
                        };
                        // A peer whose link fails or misbehaves is dropped;
                        // a player's seat is emptied at the next change. A
                        // link that closes before its hello (a probe whether
                        // the host is in session) is no peer: dropped quietly.
                        let introduced = peer.seat.is_some() || peer.joiner || peer.spectator;
                        if introduced {
                            event!(Warn, events::EPOCH_FAILED, peer = %peer.link.peer, error = %failed);
                        }
                        peer.gone = true;
                        if let Some(seat) = peer.seat.filter(|_| !peer.joiner)
                            && !self.lost_seats.contains(&seat)
                        {
                            self.lost_seats.push(seat);
                        }
                        break;
                    }
                }
            }
            Role::Peer { link, joined: true } => {
                while let Some(msg) = link.poll()? {
                    match msg {
                        Msg::Propose { epoch, .. } => {
                            // Stop here until the host commits a boundary.
                            let (socket, udp_port) = (e.sockets)()?;
                            e.next = Some(socket);
                            e.stop_at = Some(current);
                            e.committed = false;
                            e.final_hash = None;
                            e.pending = epoch;
                            link.send(&Msg::Ack {
                                epoch,
                                current,
                                udp_port,
                            })?;
                        }
                        Msg::Commit { epoch, tick } if epoch == e.pending => {
                            if current > tick {
                                return Err(epoch_failed(format!(
                                    "the boundary tick {tick} of epoch {epoch} is behind this peer's tick {current}"
                                )));
                            }
                            e.stop_at = Some(tick);
                            e.committed = true;
                        }
                        Msg::Cut { epoch, cuts }
                            if epoch == e.pending
                                && e.final_hash.is_some()
                                && e.stop_at == Some(current) =>
                        {
                            // The peers dropped a lost player at different
                            // ticks: drop it at the agreed one.
                            let hash = self.replay_cut(&mut e.keys, world, schedule, &cuts)?;
                            e.final_hash = Some(hash);
                            link.send(&Msg::Final {
                                epoch,
                                hash,
                                cuts: self.leave_cuts(current),
                            })?;
                        }
                        Msg::Go {
                            epoch,
                            tick,
                            input_delay,
                            key,
                            seats,
                            spectators,
                            your_seat,
                            snapshot,
                        } => {
                            if e.final_hash.is_none() || e.stop_at != Some(tick) {
                                return Err(epoch_failed(format!(
                                    "epoch {epoch} began at tick {tick} before this peer's state there was final"
                                )));
                            }
                            if !snapshot.is_empty() {
                                // This peer's state at the boundary was not
                                // the host's: the host's replaces it.
                                self.end_record_at_rewrite(tick);
                                self.load_host_world(world, &snapshot, tick)?;
                                if let Some(last) = self.confirmed.last_mut()
                                    && last.0 == tick
                                {
                                    last.1 = world.state_hash();
                                }
                                self.stats.resyncs += 1;
                            }
                            let roster = roster_for(&seats, your_seat, link.peer.ip());
                            let start = EpochStart {
                                epoch,
                                tick,
                                input_delay,
                                roster,
                                spectators,
                                snapshot_bytes: snapshot.len(),
                                key: SessionKey::from_bytes(key),
                            };
                            self.begin_epoch(world, start, &mut e.next)?;
                            e.keys.keep_boundary(world);
                            e.stop_at = None;
                            e.final_hash = None;
                            return Ok(Some(Advance::Waiting));
                        }
                        Msg::Refuse { reason } => {
                            return Err(epoch_failed(format!("the host refused: {reason}")));
                        }
                        other => {
                            return Err(epoch_failed(format!(
                                "unexpected control message from the host: {other:?}"
                            )));
                        }
                    }
                }
            }
            Role::Peer { link, joined } => {
                let mut go = None;
                while let Some(msg) = link.poll()? {
                    match msg {
                        msg @ Msg::Go { .. } => {
                            go = Some(msg);
                            break;
                        }
                        Msg::Refuse { reason } => {
                            return Err(epoch_failed(format!("the host refused: {reason}")));
                        }
                        _ => {}
                    }
                }
                let Some(Msg::Go {
                    epoch,
                    tick,
                    input_delay,
                    key,
                    seats,
                    spectators,
                    your_seat,
                    snapshot,
                }) = go
                else {
                    return Ok(Some(Advance::Synchronizing));
                };
                self.load_host_world(world, &snapshot, tick)?;
                self.begin_joined_record(world);
                // The boundary's state is final: the joiner's first
                // confirmed tick.
                self.next_confirmed = tick;
                if self.keeps_hashes() {
                    self.log_confirmed(tick, world.state_hash());
                }
                let roster = roster_for(&seats, your_seat, link.peer.ip());
                // The seats as they were before: everyone else was there.
                self.roster = roster
                    .iter()
                    .map(|s| if *s == Seat::Local { Seat::Empty } else { *s })
                    .collect();
                *joined = true;
                let start = EpochStart {
                    epoch,
                    tick,
                    input_delay,
                    roster,
                    spectators,
                    snapshot_bytes: snapshot.len(),
                    key: SessionKey::from_bytes(key),
                };
                self.begin_epoch(world, start, &mut e.next)?;
                e.keys.keep_boundary(world);
                return Ok(Some(Advance::Waiting));
            }
        }
        if matches!(e.role, Role::Host { .. }) {
            if let Some(advance) = self.host_step(e, world, schedule)? {
                return Ok(Some(advance));
            }
            return Ok(None);
        }
        // A member: stop at the boundary, make the state final, report it.
        if e.stop_at == Some(current) {
            if e.committed
                && e.final_hash.is_none()
                && let Some(hash) = self.finalize(world, schedule)?
            {
                e.final_hash = Some(hash);
                let cuts = self.leave_cuts(current);
                if let Role::Peer { link, .. } = &mut e.role {
                    link.send(&Msg::Final {
                        epoch: e.pending,
                        hash,
                        cuts,
                    })?;
                }
            }
            return Ok(Some(Advance::Waiting));
        }
        Ok(None)
    }

    /// Loads the host's encoded world of the boundary `tick` (a joiner's
    /// first state, or a member's that differed from the host's).
    fn load_host_world(&mut self, world: &mut World, snapshot: &[u8], tick: u64) -> Result<()> {
        self.load_state(world, snapshot, tick, "the host's snapshot")
    }

    /// Loads an encoded world that must hold `tick` (`what` names it in
    /// the error) and finds its player inputs.
    pub(super) fn load_state(
        &mut self,
        world: &mut World,
        bytes: &[u8],
        tick: u64,
        what: &str,
    ) -> Result<()> {
        world.decode_snapshot(bytes)?;
        if world.tick() != tick {
            return Err(epoch_failed(format!(
                "{what} is of tick {}, not {tick}",
                world.tick()
            )));
        }
        self.inputs_entity = inputs_entity::<I>(world)
            .ok_or_else(|| epoch_failed(format!("{what} has no player inputs")))?;
        Ok(())
    }

    /// Makes the state at the boundary (the world's tick) final: `Some`
    /// with its state hash once the inputs of every earlier tick are
    /// confirmed and any mispredicted tick is re-simulated.
    fn finalize(&mut self, world: &mut World, schedule: &SystemSchedule) -> Result<Option<u64>> {
        let tick = world.tick();
        let Kind::P2P { session, .. } = &mut self.kind else {
            return Ok(Some(world.state_hash()));
        };
        let confirmed =
            self.base + u64::try_from(i64::from(session.confirmed_frame()) + 1).unwrap_or(0);
        if confirmed < tick {
            return Ok(None);
        }
        if self.config.max_prediction > 0 {
            // One more advance: GGRS re-simulates any tick whose
            // prediction was wrong; its request to simulate the boundary
            // tick itself is not fulfilled (the old session ends here).
            let requests = match self.add_input_and_advance() {
                Ok(requests) => requests,
                Err(GgrsError::PredictionThreshold | GgrsError::NotSynchronized) => {
                    return Ok(None);
                }
                Err(err) => return Err(super::ggrs_failed(&err)),
            };
            let mut ticked = false;
            for request in requests {
                if matches!(request, GgrsRequest::AdvanceFrame { .. }) && world.tick() == tick {
                    break;
                }
                if let Err(end) = self.fulfil(request, world, schedule, &mut ticked) {
                    return Err(match end {
                        NetEnd::SystemFailed(err) => err,
                        other => epoch_failed(format!("{other:?}")),
                    });
                }
            }
            if world.tick() != tick {
                return Err(epoch_failed(format!(
                    "finalizing the boundary tick {tick} left the world at tick {}",
                    world.tick()
                )));
            }
        }
        self.after_tick(world);
        Ok(Some(world.state_hash()))
    }

    /// Replaces the GGRS session by the next epoch's, frame 0 being
    /// `start.tick` (the world's tick, final on every peer), on the socket
    /// opened for it (`next`).
    pub(super) fn begin_epoch(
        &mut self,
        world: &World,
        start: EpochStart,
        next: &mut Option<EpochSocket>,
    ) -> Result<()> {
        let EpochStart {
            epoch,
            tick,
            input_delay,
            roster,
            spectators,
            snapshot_bytes,
            key,
        } = start;
        let mut socket = next
            .take()
            .ok_or_else(|| epoch_failed(format!("no socket was opened for epoch {epoch}")))?;
        debug_assert_eq!(world.tick(), tick);
        let joined: Vec<usize> = (0..roster.len())
            .filter(|&s| self.roster.get(s) == Some(&Seat::Empty) && roster[s] != Seat::Empty)
            .collect();
        let left: Vec<usize> = (0..roster.len())
            .filter(|&s| self.roster.get(s) != Some(&Seat::Empty) && roster[s] == Seat::Empty)
            .collect();
        self.config.input_delay = usize::from(input_delay);
        // Only the host serves spectators (their sessions reach it alone).
        let served: &[SocketAddr] = if roster.first() == Some(&Seat::Local) {
            &spectators
        } else {
            &[]
        };
        socket.set_key(key);
        self.integrity.push(socket.counters());
        let (kind, seat_of) = if roster.contains(&Seat::Local) {
            Self::start_p2p(&self.config, &roster, served, socket)?
        } else {
            let Some(Seat::Remote(host)) = roster.first().copied() else {
                return Err(epoch_failed("a spectator's roster without the host".into()));
            };
            Self::start_spectator(&self.config, &roster, host, socket)?
        };
        let rejoined = joined
            .iter()
            .filter(|&&s| self.ever_seated.get(s) == Some(&true))
            .count();
        for (seat, s) in roster.iter().enumerate() {
            if *s != Seat::Empty && seat < self.ever_seated.len() {
                self.ever_seated[seat] = true;
            }
        }
        self.lost_seats.retain(|s| !left.contains(s));
        self.kind = kind;
        self.seat_of = seat_of;
        self.roster = roster;
        self.spectators = spectators;
        self.base = tick;
        self.epoch = epoch;
        self.skip_credit = 0;
        self.started = Instant::now();
        self.stats.epochs += 1;
        self.stats.joins += (joined.len() - rejoined) as u64;
        self.stats.rejoins += rejoined as u64;
        self.stats.snapshot_bytes += snapshot_bytes as u64;
        event!(
            Info,
            events::EPOCH,
            epoch,
            tick,
            joined = ?joined,
            left = ?left,
            snapshot_bytes
        );
        self.changes.push(EpochChange {
            epoch,
            tick,
            joined,
            left,
            snapshot_bytes,
            spectators: self.spectators.len(),
        });
        Ok(())
    }
}

impl Epochs {
    fn new(role: Role, sockets: SocketFactory) -> Self {
        Self {
            role,
            sockets,
            next: None,
            next_port: 0,
            stop_at: None,
            committed: false,
            final_hash: None,
            pending: 0,
            snapshot: Vec::new(),
            key: SessionKey::random(),
            control_faults: None,
            faulted_links: 0,
            keys: Keys::new(),
        }
    }
}

fn connect(host: SocketAddr) -> Result<Link> {
    let stream = TcpStream::connect_timeout(&host, std::time::Duration::from_secs(5))
        .map_err(|e| epoch_failed(format!("the host's control link at {host}: {e}")))?;
    Link::new(stream)
}

/// The seats of a `Go` as this peer sees them: its own seat local, the
/// host's unspecified address replaced by the host's IP.
fn roster_for(seats: &[Option<SocketAddr>], your_seat: Option<u8>, host_ip: IpAddr) -> Vec<Seat> {
    seats
        .iter()
        .enumerate()
        .map(|(seat, addr)| match addr {
            _ if your_seat.map(usize::from) == Some(seat) => Seat::Local,
            Some(addr) if addr.ip().is_unspecified() => {
                Seat::Remote(SocketAddr::new(host_ip, addr.port()))
            }
            Some(addr) => Seat::Remote(*addr),
            None => Seat::Empty,
        })
        .collect()
}
