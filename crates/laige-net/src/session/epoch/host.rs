//! The host's side of an epoch change: its links to the members and the
//! joiners, choosing the joiner's seat and the boundary tick, and sending
//! the next roster once every state at the boundary is final and equal.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use laige_core::{Result, event};
use laige_sim::{SystemSchedule, World};

use super::super::NetDriver;
use super::super::wire::{Link, Msg};
use super::{EpochStart, Epochs, Role, epoch_failed};
use crate::events;
use crate::input::PlayerInput;
use crate::outcome::Advance;
use crate::seat::Seat;

/// A peer's link as the host holds it.
pub(super) struct Peer {
    pub(super) link: Link,
    /// The seat of a member player (`None` until its hello, and for a
    /// spectator; a joiner's seat is chosen by the host).
    pub(super) seat: Option<usize>,
    /// A spectator (a member, or a joiner with `joiner`).
    pub(super) spectator: bool,
    /// Waiting to enter at the next change.
    pub(super) joiner: bool,
    /// The seat a joiner asked for.
    pub(super) wants: Option<usize>,
    /// The UDP port of the next epoch (a joiner's from its hello, a
    /// member's from its ack).
    pub(super) next_port: Option<u16>,
    pub(super) final_hash: Option<u64>,
    /// With `final_hash`: from which tick the member simulated each
    /// seat's input as disconnected (see `Msg::Final`).
    pub(super) cuts: Vec<u64>,
    /// The tick a member stopped at for the change under way.
    pub(super) stopped_at: Option<u64>,
    /// Its link failed or it misbehaved (dropped after the change under
    /// way).
    pub(super) gone: bool,
}

impl Peer {
    /// A member of the running epoch (player or spectator) the host
    /// proposes changes to.
    fn member(&self) -> bool {
        !self.gone && !self.joiner && (self.seat.is_some() || self.spectator)
    }
}

/// An epoch change in progress, host side.
pub(super) struct Change {
    epoch: u32,
    tick: u64,
    /// The peer entering (index into `peers`) and, for a player, its seat.
    enter: Option<(usize, Option<usize>)>,
    input_delay: usize,
    acked: bool,
    /// The peers' cuts were compared (and, where they differed, the
    /// agreed ones sent).
    cut: bool,
}

/// What a change does: who enters (peer index; seat for a player), which
/// seat is emptied, the input delay after it.
type Next = (Option<(usize, Option<usize>)>, Option<usize>, usize);

impl<I: PlayerInput> NetDriver<I> {
    /// What the next change does, if anything waits: empty a lost seat
    /// first, then let one joiner in, then change the input delay.
    fn next_change(&mut self, peers: &mut [Peer]) -> Option<Next> {
        let delay = self.config.input_delay;
        if let Some(&seat) = self
            .lost_seats
            .iter()
            .find(|&&s| matches!(self.roster.get(s), Some(Seat::Remote(_))))
        {
            return Some((None, Some(seat), delay));
        }
        if let Some(j) = peers.iter().position(|p| p.joiner && !p.gone) {
            if peers[j].spectator {
                return Some((Some((j, None)), None, delay));
            }
            let wants = peers[j].wants;
            let free = match wants {
                Some(seat) => (self.roster.get(seat) == Some(&Seat::Empty)).then_some(seat),
                None => self.roster.iter().position(|s| *s == Seat::Empty),
            };
            if let Some(seat) = free {
                return Some((Some((j, Some(seat))), None, delay));
            }
            let reason = match wants {
                Some(seat) => format!("seat {seat} is not free"),
                None => format!("all {} seats are taken", self.roster.len()),
            };
            let _ = peers[j].link.send(&Msg::Refuse { reason });
            peers[j].gone = true;
            return None;
        }
        self.pending_delay.take().map(|d| (None, None, d))
    }

    /// The host's epoch step: start the next change, wait for the acks
    /// (frozen), run to the boundary, make it final, compare the
    /// members' hashes, send the roster and begin the epoch.
    pub(super) fn host_step(
        &mut self,
        e: &mut Epochs,
        world: &mut World,
        schedule: &SystemSchedule,
    ) -> Result<Option<Advance>> {
        let current = world.tick();
        let Role::Host {
            peers,
            change: slot,
            ..
        } = &mut e.role
        else {
            return Ok(None);
        };
        // Start a change once every player still seated has its link.
        let members_here = |roster: &[Seat], lost: &[usize], peers: &[Peer]| {
            roster.iter().enumerate().all(|(seat, s)| {
                !matches!(s, Seat::Remote(_))
                    || lost.contains(&seat)
                    || peers.iter().any(|p| p.member() && p.seat == Some(seat))
            })
        };
        if slot.is_none()
            && members_here(&self.roster, &self.lost_seats, peers)
            && let Some((enter, leave, input_delay)) = self.next_change(peers)
        {
            let epoch = self.epoch + 1;
            for p in peers.iter_mut() {
                if p.member() && (leave.is_none() || p.seat != leave) {
                    p.next_port = None;
                    p.final_hash = None;
                    p.stopped_at = None;
                    p.link.send(&Msg::Propose {
                        epoch,
                        tick: current,
                    })?;
                } else if p.member() {
                    // The player who left: no part in the next epoch.
                    p.gone = true;
                }
            }
            e.pending = epoch;
            e.stop_at = None;
            e.final_hash = None;
            *slot = Some(Change {
                epoch,
                tick: current,
                enter,
                input_delay,
                acked: false,
                cut: false,
            });
        }
        let Some(change) = slot else {
            return Ok(None);
        };
        if !change.acked {
            // Frozen until every member stopped and acked.
            if peers.iter().any(|p| p.member() && p.next_port.is_none()) {
                return Ok(Some(Advance::Waiting));
            }
            // The boundary: the latest tick anyone stopped at.
            change.tick = peers
                .iter()
                .filter(|p| p.member())
                .filter_map(|p| p.stopped_at)
                .fold(current, u64::max);
            for p in peers.iter_mut().filter(|p| p.member()) {
                p.link.send(&Msg::Commit {
                    epoch: change.epoch,
                    tick: change.tick,
                })?;
            }
            change.acked = true;
            let (socket, port) = (e.sockets)()?;
            e.next = Some(socket);
            e.next_port = port;
            e.stop_at = Some(change.tick);
        }
        if current < change.tick {
            return Ok(None);
        }
        if e.final_hash.is_none() {
            e.final_hash = self.finalize(world, schedule)?;
        }
        if e.final_hash.is_none() {
            return Ok(Some(Advance::Waiting));
        }
        if peers.iter().any(|p| p.member() && p.final_hash.is_none()) {
            return Ok(Some(Advance::Waiting));
        }
        if !change.cut {
            // A lost player's input ends, for every peer, at the least
            // tick any peer dropped it from: a peer that simulated more of
            // it re-simulates from a kept confirmed state without it.
            change.cut = true;
            let mine = self.leave_cuts(change.tick);
            let mut agreed = mine.clone();
            for p in peers.iter().filter(|p| p.member()) {
                for (a, c) in agreed.iter_mut().zip(&p.cuts) {
                    *a = (*a).min(*c);
                }
            }
            if peers.iter().any(|p| p.member() && p.cuts != agreed) || mine != agreed {
                for p in peers.iter_mut().filter(|p| p.member()) {
                    p.final_hash = None;
                    p.link.send(&Msg::Cut {
                        epoch: change.epoch,
                        cuts: agreed.clone(),
                    })?;
                }
                if mine != agreed {
                    let replayed = self.replay_cut(&mut e.keys, world, schedule, &agreed)?;
                    e.final_hash = Some(replayed);
                }
                return Ok(Some(Advance::Waiting));
            }
        }
        let Some(hash) = e.final_hash else {
            return Ok(Some(Advance::Waiting));
        };
        // A member whose state at the boundary differs from the host's gets
        // the host's (GGRS's disconnect handling can leave peers apart: each
        // drops a lost player at the last input it received from it, and
        // they do not always settle on one frame before it is confirmed).
        let apart = |p: &Peer| p.member() && p.final_hash != Some(hash);
        for p in peers.iter().filter(|p| apart(p)) {
            event!(
                Warn,
                events::EPOCH_RESYNC,
                tick = change.tick,
                peer = %p.link.peer,
                ours = hash,
                theirs = p.final_hash.unwrap_or(0)
            );
        }
        let resyncs = peers.iter().filter(|p| apart(p)).count();
        // Everyone is final at the boundary: the next roster, as the host
        // sees it (the host's own entry is the unspecified address with
        // its port: each peer reaches the host at the address it knows).
        let mut seats: Vec<Option<SocketAddr>> = vec![None; self.roster.len()];
        seats[0] = Some(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            e.next_port,
        ));
        let mut spectators = Vec::new();
        let entering = change.enter.filter(|(j, _)| !peers[*j].gone);
        for (i, p) in peers.iter().enumerate() {
            let Some(port) = p.next_port else { continue };
            let addr = SocketAddr::new(p.link.peer.ip(), port);
            let seat = match entering {
                Some((j, seat)) if j == i => seat,
                _ if p.member() => p.seat,
                _ => continue,
            };
            match seat {
                Some(seat) if seat < seats.len() => seats[seat] = Some(addr),
                Some(_) => {}
                None => spectators.push(addr),
            }
        }
        if entering.is_some() || resyncs > 0 {
            e.snapshot.clear();
            world.encode_snapshot(&mut e.snapshot)?;
        }
        let input_delay = u8::try_from(change.input_delay).unwrap_or(0);
        for (i, p) in peers.iter_mut().enumerate() {
            let entrant = entering.is_some_and(|(j, _)| j == i);
            let resync = apart(p);
            if !entrant && !p.member() {
                continue;
            }
            let your_seat = match entering {
                Some((j, seat)) if j == i => seat,
                _ => p.seat,
            };
            p.link.send(&Msg::Go {
                epoch: change.epoch,
                tick: change.tick,
                input_delay,
                key: e.key.to_bytes(),
                seats: seats.clone(),
                spectators: spectators.clone(),
                your_seat: your_seat.and_then(|s| u8::try_from(s).ok()),
                snapshot: if entrant || resync {
                    e.snapshot.clone()
                } else {
                    Vec::new()
                },
            })?;
        }
        let bytes = match entering {
            Some((j, seat)) => {
                let p = &mut peers[j];
                p.seat = seat;
                p.joiner = false;
                e.snapshot.len()
            }
            None => 0,
        } + resyncs * e.snapshot.len();
        self.stats.resyncs += resyncs as u64;
        peers.retain(|p| !p.gone);
        let (epoch, tick) = (change.epoch, change.tick);
        *slot = None;
        let roster = seats
            .iter()
            .enumerate()
            .map(|(seat, addr)| match (seat, addr) {
                (0, _) => Seat::Local,
                (_, Some(addr)) => Seat::Remote(*addr),
                (_, None) => Seat::Empty,
            })
            .collect();
        let start = EpochStart {
            epoch,
            tick,
            input_delay,
            roster,
            spectators,
            snapshot_bytes: bytes,
            key: e.key,
        };
        self.begin_epoch(world, start, &mut e.next)?;
        e.keys.keep_boundary(world);
        e.stop_at = None;
        e.final_hash = None;
        Ok(Some(Advance::Waiting))
    }
}

/// A message from a peer, at the host.
pub(super) fn host_message(
    peer: &mut Peer,
    msg: Msg,
    pending: u32,
    stop_at: Option<u64>,
) -> Result<()> {
    match msg {
        Msg::Hello {
            member: true,
            spectator,
            seat,
            ..
        } => {
            peer.seat = seat.map(usize::from);
            peer.spectator = spectator;
        }
        Msg::Hello {
            spectator,
            seat,
            udp_port,
            ..
        } => {
            peer.joiner = true;
            peer.spectator = spectator;
            peer.wants = seat.map(usize::from);
            peer.next_port = Some(udp_port);
        }
        Msg::Ack {
            epoch,
            udp_port,
            current,
        } if epoch == pending => {
            peer.next_port = Some(udp_port);
            peer.stopped_at = Some(current);
        }
        Msg::Final { epoch, hash, cuts } if epoch == pending => {
            peer.final_hash = Some(hash);
            peer.cuts = cuts;
        }
        other => {
            return Err(epoch_failed(format!(
                "unexpected control message from {} (epoch {pending}, boundary {stop_at:?}): {other:?}",
                peer.link.peer
            )));
        }
    }
    Ok(())
}

/// A new link at the host (its role comes with its hello).
pub(super) fn new_peer(link: Link) -> Peer {
    Peer {
        link,
        seat: None,
        spectator: false,
        joiner: false,
        wants: None,
        next_port: None,
        final_hash: None,
        cuts: Vec::new(),
        stopped_at: None,
        gone: false,
    }
}
