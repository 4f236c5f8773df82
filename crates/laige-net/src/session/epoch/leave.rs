//! Exact leaves: the confirmed states and inputs a survivor keeps, its
//! cut of a lost player (the first tick it simulated the seat as
//! disconnected), and the re-simulation from a kept state when the
//! survivors' cuts differ (see `net.md`, "Exact leaves").

use laige_core::{Error, Result, event};
use laige_sim::snapshot::SnapshotRing;
use laige_sim::{SystemSchedule, World};

use super::super::NetDriver;
use crate::events;
use crate::input::{InputStatus, PlayerInput, PlayerInputs};
use crate::seat::Seat;

/// Confirmed states kept for exact leaves: every [`KEY_EVERY`] confirmed
/// ticks (and at each boundary) the state is encoded into the oldest of
/// [`KEYS`] buffers, reused (no allocation once each has held the world at
/// its largest). Kept only in sessions of three players or more: with two,
/// a leave leaves one survivor.
pub(super) struct Keys {
    /// `(tick, encoded state)`; `u64::MAX` for a buffer not filled.
    slots: Vec<(u64, Vec<u8>)>,
    next: usize,
    last: Option<u64>,
    /// A one-slot ring the world is saved into to encode it.
    scratch: Option<SnapshotRing>,
    /// Keeping failed once (a type without a byte codec): no more tries.
    off: bool,
}

/// Confirmed ticks between two kept states.
const KEY_EVERY: u64 = 32;
/// Kept states: a leave re-simulates from up to `KEYS × KEY_EVERY` ticks
/// before its boundary.
const KEYS: usize = 8;
/// Ticks of simulated inputs kept (`NetDriver::last_inputs`) once epochs
/// are on: more than the kept states span.
pub(super) const INPUT_LOG: usize = 512;

impl Keys {
    pub(super) fn new() -> Self {
        Self {
            slots: (0..KEYS).map(|_| (u64::MAX, Vec::new())).collect(),
            next: 0,
            last: None,
            scratch: None,
            off: false,
        }
    }

    /// Keeps the state at a boundary (final on every peer).
    pub(super) fn keep_boundary(&mut self, world: &World) {
        if self.off {
            return;
        }
        if let Err(err) = self.keep_world(world) {
            self.failed(world.tick(), &err);
        }
    }

    #[cold]
    fn failed(&mut self, tick: u64, err: &Error) {
        event!(Warn, events::EPOCH_LEAVE_REPLAY, tick, error = %err, kept = false);
        self.off = true;
    }

    /// Whether a state of `tick` is due (the last kept is `KEY_EVERY`
    /// ticks older, or none is).
    fn due(&self, tick: u64) -> bool {
        !self.off && self.last.is_none_or(|last| tick >= last + KEY_EVERY)
    }

    /// Keeps the world's state (a final one).
    fn keep_world(&mut self, world: &World) -> Result<()> {
        let mut ring = match self.scratch.take() {
            Some(ring) => ring,
            None => SnapshotRing::new(world, 1)?,
        };
        let kept = ring
            .save(0, world)
            .and_then(|()| self.keep_with(world.tick(), |out| ring.encode(0, world, out)));
        self.scratch = Some(ring);
        kept
    }

    fn keep_with(
        &mut self,
        tick: u64,
        encode: impl FnOnce(&mut Vec<u8>) -> Result<()>,
    ) -> Result<()> {
        let (at, buf) = &mut self.slots[self.next];
        buf.clear();
        *at = u64::MAX;
        encode(buf)?;
        *at = tick;
        self.next = (self.next + 1) % self.slots.len();
        self.last = Some(tick);
        Ok(())
    }

    /// The latest kept state at or before `tick`.
    fn at_or_before(&self, tick: u64) -> Option<&(u64, Vec<u8>)> {
        self.slots
            .iter()
            .filter(|(at, _)| *at != u64::MAX && *at <= tick)
            .max_by_key(|(at, _)| *at)
    }

    /// Forgets the states after `tick` (they held inputs since dropped).
    fn forget_after(&mut self, tick: u64) {
        for (at, _) in &mut self.slots {
            if *at != u64::MAX && *at > tick {
                *at = u64::MAX;
            }
        }
        self.last = self
            .slots
            .iter()
            .map(|s| s.0)
            .filter(|&t| t != u64::MAX)
            .max();
    }
}

impl<I: PlayerInput, A: crate::transport::PeerAddr> NetDriver<I, A> {
    /// After a tick (`tick`: the latest confirmed tick, its state final):
    /// keeps its state when one is due, in sessions with epochs and three
    /// players or more.
    pub(in crate::session) fn keep_key(&mut self, world: &World, tick: u64) {
        let slot = self.slot_of(tick);
        let Some(e) = self.epochs.as_deref_mut() else {
            return;
        };
        if !e.keys.due(tick) || self.roster.iter().filter(|s| **s != Seat::Empty).count() < 3 {
            return;
        }
        let kept = if tick == world.tick() {
            e.keys.keep_world(world)
        } else {
            match self.ring.get(slot) {
                Ok(s) if s.is_filled() && s.tick() == tick => {
                    let ring = &self.ring;
                    e.keys.keep_with(tick, |out| ring.encode(slot, world, out))
                }
                _ => return,
            }
        };
        if let Err(err) = kept {
            e.keys.failed(tick, &err);
        }
    }
}

impl<I: PlayerInput> NetDriver<I> {
    /// Keeps every simulated tick's inputs for [`INPUT_LOG`] ticks (a
    /// leave re-simulates with them).
    pub(super) fn widen_input_log(&mut self) {
        if self.last_inputs.len() >= INPUT_LOG {
            return;
        }
        let blank = (u64::MAX, PlayerInputs::new(self.config.players));
        let kept = std::mem::replace(&mut self.last_inputs, vec![blank; INPUT_LOG]);
        let n = INPUT_LOG as u64;
        for entry in kept.into_iter().filter(|e| e.0 != u64::MAX) {
            self.last_inputs[usize::try_from(entry.0 % n).unwrap_or(0)] = entry;
        }
    }

    /// For each seat, the first tick from which this peer simulated its
    /// input as disconnected through `boundary` (not before this epoch's
    /// first tick); `boundary` for a seat it has not seen leave.
    pub(super) fn leave_cuts(&self, boundary: u64) -> Vec<u64> {
        let n = self.last_inputs.len() as u64;
        (0..self.roster.len())
            .map(|seat| {
                let mut cut = boundary;
                if self.roster[seat] == Seat::Empty {
                    return cut;
                }
                while cut > self.base {
                    let (at, inputs) =
                        &self.last_inputs[usize::try_from((cut - 1) % n).unwrap_or(0)];
                    if *at != cut - 1 || inputs.status(seat) != InputStatus::Disconnected {
                        break;
                    }
                    cut -= 1;
                }
                cut
            })
            .collect()
    }

    /// At the boundary (the world's tick, final): re-simulates from the
    /// latest kept state at or before the earliest seat whose `agreed`
    /// cut is before this peer's, with every seat's input from its cut on
    /// replaced by the disconnected (default) input. Returns the state
    /// hash at the boundary; unchanged (the host's world will replace it)
    /// when no kept state or logged input reaches back far enough.
    pub(super) fn replay_cut(
        &mut self,
        keys: &mut Keys,
        world: &mut World,
        schedule: &SystemSchedule,
        agreed: &[u64],
    ) -> Result<u64> {
        let boundary = world.tick();
        let mine = self.leave_cuts(boundary);
        let Some(from) = mine
            .iter()
            .zip(agreed)
            .filter(|(m, a)| a < m)
            .map(|(_, a)| *a)
            .min()
        else {
            return Ok(world.state_hash());
        };
        let n = self.last_inputs.len() as u64;
        let at = |t: u64| usize::try_from(t % n).unwrap_or(0);
        let start = keys
            .at_or_before(from)
            .map(|k| k.0)
            .filter(|&start| (start..boundary).all(|t| self.last_inputs[at(t)].0 == t));
        let Some((start, bytes)) = start.and_then(|s| keys.at_or_before(s)) else {
            event!(
                Warn,
                events::EPOCH_LEAVE_REPLAY,
                boundary,
                cut = from,
                kept = false
            );
            return Ok(world.state_hash());
        };
        let start = *start;
        // The ticks re-run were final: a record of them ends here, and
        // their effects were handed over when they first ran.
        self.end_record_at_rewrite(boundary);
        self.load_state(world, bytes, start, "a kept state")?;
        world.mute_effects(true);
        let replayed = self.replay_ticks(world, schedule, (start, from, boundary), agreed);
        world.mute_effects(false);
        replayed?;
        keys.forget_after(from);
        self.stats.leave_replays += 1;
        event!(
            Info,
            events::EPOCH_LEAVE_REPLAY,
            boundary,
            from = start,
            cut = from
        );
        Ok(world.state_hash())
    }

    /// Runs ticks `start..boundary` with their logged inputs, each seat's
    /// disconnected from its `agreed` cut on; rewrites the confirmed
    /// hashes from `from` on.
    fn replay_ticks(
        &mut self,
        world: &mut World,
        schedule: &SystemSchedule,
        (start, from, boundary): (u64, u64, u64),
        agreed: &[u64],
    ) -> Result<()> {
        let n = self.last_inputs.len() as u64;
        let at = |t: u64| usize::try_from(t % n).unwrap_or(0);
        for t in start..boundary {
            let (_, inputs) = &mut self.last_inputs[at(t)];
            for (seat, &cut) in agreed.iter().enumerate() {
                if cut <= t {
                    inputs.set_disconnected(seat);
                }
            }
            let inputs = *inputs;
            if let Some(current) = world.query_one_mut::<&mut PlayerInputs<I>>(self.inputs_entity) {
                *current = inputs;
            }
            world.run_systems(schedule)?;
            if t >= from {
                let hash = world.state_hash();
                if let Ok(i) = self.confirmed.binary_search_by_key(&(t + 1), |c| c.0) {
                    self.confirmed[i].1 = hash;
                }
            }
        }
        Ok(())
    }
}
