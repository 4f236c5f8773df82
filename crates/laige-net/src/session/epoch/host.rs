//! The host's side of an epoch change: its links to the members and the
//! joiners, choosing the joiner's seat and the boundary tick, and sending
//! the next roster once every state at the boundary is final and equal.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use laige_core::Result;
use laige_sim::{SystemSchedule, World};

use super::super::NetDriver;
use super::super::wire::{Link, Msg};
use super::{Epochs, Role, epoch_failed};
use crate::input::PlayerInput;
use crate::outcome::Advance;
use crate::seat::Seat;

/// A peer's link as the host holds it.
pub(super) struct Peer {
    pub(super) link: Link,
    /// The seat of a member (`None` until its hello; a joiner's seat is
    /// chosen by the host).
    pub(super) seat: Option<usize>,
    pub(super) joiner: bool,
    /// The seat a joiner asked for.
    pub(super) wants: Option<usize>,
    /// The UDP port of the next epoch (a joiner's from its hello, a
    /// member's from its ack).
    pub(super) next_port: Option<u16>,
    pub(super) final_hash: Option<u64>,
    /// A joiner whose link failed (dropped after the change under way).
    pub(super) gone: bool,
}

/// An epoch change in progress, host side.
pub(super) struct Change {
    epoch: u32,
    tick: u64,
    /// The joiner (index into `peers`) and its seat.
    joiner: usize,
    seat: usize,
    acked: bool,
}

impl<I: PlayerInput> NetDriver<I> {
    /// The host's epoch step: start a change for a waiting joiner, wait
    /// for the acks (frozen), run to the boundary, make it final, compare
    /// the members' hashes, send the roster and begin the epoch.
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
        // Start a change for the first joiner once every remote seat's
        // member has its link.
        if slot.is_none()
            && let Some(joiner) = peers.iter().position(|p| p.joiner && !p.gone)
        {
            let members_here = self.roster.iter().enumerate().all(|(seat, s)| {
                !matches!(s, Seat::Remote(_)) || peers.iter().any(|p| p.seat == Some(seat))
            });
            if members_here {
                let wants = peers[joiner].wants;
                let free = match wants {
                    Some(seat) => (self.roster.get(seat) == Some(&Seat::Empty)).then_some(seat),
                    None => self.roster.iter().position(|s| *s == Seat::Empty),
                };
                let Some(seat) = free else {
                    let reason = match wants {
                        Some(seat) => format!("seat {seat} is not free"),
                        None => format!("all {} seats are taken", self.roster.len()),
                    };
                    let _ = peers[joiner].link.send(&Msg::Refuse { reason });
                    peers.remove(joiner);
                    return Ok(None);
                };
                let tick = current
                    + self.config.input_delay as u64
                    + self.config.max_prediction as u64
                    + 2;
                let epoch = self.epoch + 1;
                for p in peers.iter_mut().filter(|p| p.seat.is_some()) {
                    p.next_port = None;
                    p.final_hash = None;
                    p.link.send(&Msg::Propose { epoch, tick })?;
                }
                e.pending = epoch;
                e.stop_at = None;
                e.final_hash = None;
                *slot = Some(Change {
                    epoch,
                    tick,
                    joiner,
                    seat,
                    acked: false,
                });
            }
        }
        let Some(change) = slot else {
            return Ok(None);
        };
        if !change.acked {
            // Frozen until every member promised to stop at the boundary.
            if peers
                .iter()
                .any(|p| p.seat.is_some() && p.next_port.is_none())
            {
                return Ok(Some(Advance::Waiting));
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
        let Some(hash) = e.final_hash else {
            return Ok(Some(Advance::Waiting));
        };
        let members = peers.iter().filter(|p| p.seat.is_some());
        if members.clone().any(|p| p.final_hash.is_none()) {
            return Ok(Some(Advance::Waiting));
        }
        if let Some(p) = members.clone().find(|p| p.final_hash != Some(hash)) {
            let (ours, theirs) = (hash, p.final_hash.unwrap_or(0));
            return Err(epoch_failed(format!(
                "the states at the boundary tick {} differ: hash {ours:#018x} here, {theirs:#018x} at seat {}",
                change.tick,
                p.seat.unwrap_or(usize::MAX)
            )));
        }
        // Everyone is final at the boundary: the next roster, as the host
        // sees it (the host's own entry is the unspecified address with
        // its port: each peer reaches the host at the address it knows).
        let mut seats: Vec<Option<SocketAddr>> = vec![None; self.roster.len()];
        seats[0] = Some(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            e.next_port,
        ));
        for p in peers.iter() {
            if let (Some(seat), Some(port)) = (p.seat, p.next_port)
                && seat < seats.len()
            {
                seats[seat] = Some(SocketAddr::new(p.link.peer.ip(), port));
            }
        }
        let joiner = &peers[change.joiner];
        if !joiner.gone {
            let port = joiner.next_port.unwrap_or(0);
            seats[change.seat] = Some(SocketAddr::new(joiner.link.peer.ip(), port));
        }
        world.encode_snapshot(&mut e.snapshot)?;
        let input_delay = u8::try_from(self.config.input_delay).unwrap_or(0);
        for (i, p) in peers.iter_mut().enumerate().filter(|(_, p)| !p.gone) {
            let (your_seat, snapshot) = if i == change.joiner {
                (change.seat, e.snapshot.clone())
            } else if let Some(seat) = p.seat {
                (seat, Vec::new())
            } else {
                continue;
            };
            p.link.send(&Msg::Go {
                epoch: change.epoch,
                tick: change.tick,
                input_delay,
                seats: seats.clone(),
                spectators: Vec::new(),
                your_seat: u8::try_from(your_seat).ok(),
                snapshot,
            })?;
        }
        let joined = &mut peers[change.joiner];
        let bytes = if joined.gone { 0 } else { e.snapshot.len() };
        if !joined.gone {
            joined.seat = Some(change.seat);
            joined.joiner = false;
        }
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
        let socket = e
            .next
            .take()
            .ok_or_else(|| epoch_failed("no socket was opened for the next epoch".into()))?;
        self.begin_epoch(
            world,
            epoch,
            tick,
            input_delay,
            roster,
            Vec::new(),
            socket,
            bytes,
        )?;
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
            member: true, seat, ..
        } => peer.seat = seat.map(usize::from),
        Msg::Hello {
            spectator: false,
            seat,
            udp_port,
            ..
        } => {
            peer.joiner = true;
            peer.wants = seat.map(usize::from);
            peer.next_port = Some(udp_port);
        }
        Msg::Ack {
            epoch, udp_port, ..
        } if epoch == pending => peer.next_port = Some(udp_port),
        Msg::Final { epoch, hash } if epoch == pending => peer.final_hash = Some(hash),
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
        joiner: false,
        wants: None,
        next_port: None,
        final_hash: None,
        gone: false,
    }
}
