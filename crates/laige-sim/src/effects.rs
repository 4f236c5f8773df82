//! Rollback-safe presentation effects: sounds, particles and screen shakes
//! that systems emit during a tick ([`SystemContext::effect`](crate::SystemContext::effect)) and that
//! presentation receives exactly once, whatever a rollback session
//! re-simulates.
//!
//! An effect is a small `Copy + PartialEq` value of the game's own type
//! (`enum Sfx { Hit, Goal }`, a particle burst with a position), enabled
//! once per world with [`World::enable_effects`](crate::World::enable_effects). It is not world state:
//! it never enters the state hash or a snapshot, and systems cannot read
//! it back, so it cannot change the simulation.
//!
//! The log keeps, per tick that is not final yet, the effects its last
//! simulation emitted. When a tick completes, its effects are matched
//! with those of its earlier simulation (if a rollback re-simulated it):
//! equal values, in emission order, are the same effect and are not
//! handed over again; a new one is [`EffectKind::Predicted`]; one the new
//! simulation no longer emits is [`EffectKind::Cancelled`] (stop the
//! sound). When the tick becomes final ([`World::confirm_effects`](crate::World::confirm_effects), which
//! a rollback session calls with its confirmed tick), each of its effects
//! is [`EffectKind::Confirmed`]. A world run without a session confirms a
//! tick as it completes: its effects arrive once, as `Confirmed` with
//! `predicted: false`. A session that re-runs ticks already final (peers
//! settling on a lost player's last input) mutes the log meanwhile
//! ([`World::mute_effects`](crate::World::mute_effects)): the past is not
//! presented again.
//!
//! Presentation reads the events each frame: from game code that sees the
//! world shared (`&World`, as an engine's frame hooks do) through its own
//! [`EffectReader`] ([`World::read_effects`](crate::World::read_effects)), or by draining them
//! ([`World::drain_effects`](crate::World::drain_effects)): play on `Predicted`, and on
//! `Confirmed { predicted: false }`; stop on `Cancelled`. The events wait
//! in a ring of [`EffectConfig::outbox`]: a reader that falls further
//! behind misses the oldest (counted in [`EffectReader::missed`]).
//!
//! ```
//! use laige_sim::effects::{EffectConfig, EffectKind};
//! use laige_sim::World;
//!
//! #[derive(Clone, Copy, Debug, PartialEq)]
//! enum Sfx {
//!     Bounce,
//! }
//!
//! let mut world = World::default();
//! world.enable_effects::<Sfx>(EffectConfig::default())?;
//! world.register_system("ball", 0, |ctx| {
//!     if ctx.tick() % 2 == 0 {
//!         ctx.effect(Sfx::Bounce)?;
//!     }
//!     Ok(())
//! })?;
//! let schedule = world.schedule_systems();
//! for _ in 0..4 {
//!     world.run_systems(&schedule)?;
//! }
//! let mut played = Vec::new();
//! world.drain_effects::<Sfx>(|e| played.push((e.tick, e.kind)))?;
//! let once = EffectKind::Confirmed { predicted: false };
//! assert_eq!(played, [(0, once), (2, once)]);
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! Nothing allocates after the log's buffers reach their configured
//! sizes: an effect past [`EffectConfig::per_tick`] is dropped, and a tick
//! past [`EffectConfig::window`] unconfirmed ticks with effects confirms
//! the oldest early; each is counted in [`EffectStats::dropped`] and
//! reported (`effects/dropped`, rate-limited).

use std::any::TypeId;
use std::collections::VecDeque;

use laige_core::{Error, Result};

use crate::resources::Resources;
use crate::{emit, events};

/// What happened to an effect (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EffectKind {
    /// First handed over, from a tick that a rollback may still change.
    Predicted,
    /// The tick is final and the effect stands; `predicted` says whether
    /// it was handed over before as [`Predicted`](Self::Predicted).
    Confirmed {
        /// Handed over before, as predicted.
        predicted: bool,
    },
    /// A predicted effect that the tick's re-simulation no longer emits.
    Cancelled,
}

/// One hand-over: the effect, the tick whose simulation emitted it, and
/// what happened to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EffectEvent<E> {
    /// The tick being computed when a system emitted it
    /// ([`SystemContext::tick`](crate::SystemContext::tick)).
    pub tick: u64,
    /// The game's value.
    pub effect: E,
    /// Predicted, confirmed or cancelled.
    pub kind: EffectKind,
}

/// The log's sizes: reserved when it is enabled, never exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EffectConfig {
    /// Effects one tick may emit (1..=65 536; default 64).
    pub per_tick: usize,
    /// Unconfirmed ticks with effects the log remembers (1..=4 096;
    /// default 128): at least the session's prediction window.
    pub window: usize,
    /// Events kept for readers (1..=1 048 576; default 4 096): a ring
    /// whose oldest event a new one replaces.
    pub outbox: usize,
}

impl Default for EffectConfig {
    fn default() -> Self {
        Self {
            per_tick: 64,
            window: 128,
            outbox: 4_096,
        }
    }
}

impl EffectConfig {
    /// Checks the ranges.
    ///
    /// # Errors
    /// `effects/config_invalid` naming the field, the value and the range.
    pub fn validate(&self) -> Result<()> {
        for (field, value, max, accepted) in [
            (
                "per_tick",
                self.per_tick,
                65_536,
                "1..=65536 effects per tick",
            ),
            ("window", self.window, 4_096, "1..=4096 unconfirmed ticks"),
            ("outbox", self.outbox, 1 << 20, "1..=1048576 kept events"),
        ] {
            if !(1..=max).contains(&value) {
                return Err(Error::invalid_argument(
                    events::EFFECTS_CONFIG_INVALID,
                    field,
                    value,
                    accepted,
                ));
            }
        }
        Ok(())
    }
}

/// Counts of one effect type's log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EffectStats {
    /// Events handed over as [`EffectKind::Predicted`].
    pub predicted: u64,
    /// Events handed over as [`EffectKind::Confirmed`].
    pub confirmed: u64,
    /// Events handed over as [`EffectKind::Cancelled`].
    pub cancelled: u64,
    /// Re-simulated effects matched with an earlier simulation's (not
    /// handed over again).
    pub matched: u64,
    /// Effects dropped past `per_tick`, and ticks confirmed early for
    /// want of window.
    pub dropped: u64,
    /// Undrained events the ring replaced with newer ones.
    pub overwritten: u64,
}

/// A reader's place in an effect type's events ([`World::read_effects`](crate::World::read_effects)):
/// each reader sees every event once, in order, while it keeps up with
/// the ring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EffectReader {
    /// The next event's sequence number; `None` before the first read,
    /// which starts at the oldest kept event.
    next: Option<u64>,
    /// Events the ring replaced before this reader read them.
    pub missed: u64,
}

/// The effects of one tick's last simulation.
struct TickRecord<E> {
    tick: u64,
    effects: Vec<E>,
}

/// One effect type's log: a non-hashed resource of the world.
pub(crate) struct EffectLog<E> {
    config: EffectConfig,
    /// Emitted by the tick running now.
    current: Vec<E>,
    /// Ticks not final yet, ascending, each with its last simulation's
    /// effects.
    records: VecDeque<TickRecord<E>>,
    /// Empty effect lists to reuse.
    spare: Vec<Vec<E>>,
    /// Which of a record's effects the re-simulation matched.
    matched: Vec<bool>,
    outbox: VecDeque<EffectEvent<E>>,
    /// The sequence number of `outbox[0]` (events are numbered from 0).
    first_seq: u64,
    /// Ticks below this are final.
    final_below: u64,
    /// Whether a session confirms ticks ([`World::predict_effects`](crate::World::predict_effects));
    /// otherwise each tick is final when it completes.
    predicting: bool,
    /// Ticks re-run that were final already: nothing is handed over.
    muted: bool,
    stats: EffectStats,
}

impl<E: Copy + PartialEq + Send + 'static> EffectLog<E> {
    fn new(config: EffectConfig) -> Self {
        Self {
            current: Vec::with_capacity(config.per_tick),
            records: VecDeque::with_capacity(config.window),
            spare: (0..config.window)
                .map(|_| Vec::with_capacity(config.per_tick))
                .collect(),
            matched: Vec::with_capacity(config.per_tick),
            outbox: VecDeque::with_capacity(config.outbox),
            first_seq: 0,
            final_below: 0,
            predicting: false,
            muted: false,
            stats: EffectStats::default(),
            config,
        }
    }

    pub(crate) fn push(&mut self, effect: E) {
        if self.current.len() < self.config.per_tick {
            self.current.push(effect);
        } else {
            self.drop_one("per_tick");
        }
    }

    fn send(&mut self, tick: u64, effect: E, kind: EffectKind) {
        if self.outbox.len() >= self.config.outbox {
            self.outbox.pop_front();
            self.first_seq += 1;
            self.stats.overwritten += 1;
        }
        match kind {
            EffectKind::Predicted => self.stats.predicted += 1,
            EffectKind::Confirmed { .. } => self.stats.confirmed += 1,
            EffectKind::Cancelled => self.stats.cancelled += 1,
        }
        self.outbox.push_back(EffectEvent { tick, effect, kind });
    }

    #[cold]
    fn drop_one(&mut self, limit: &'static str) {
        self.stats.dropped += 1;
        emit::effect_dropped(limit, self.stats.dropped);
    }

    /// The tick `tick` completed: reconcile its effects with its earlier
    /// simulation's and hand over what changed.
    fn end_tick(&mut self, tick: u64) {
        let final_now = !self.predicting || tick < self.final_below;
        if self.muted {
            self.current.clear();
            if final_now {
                self.confirm(tick + 1);
            }
            return;
        }
        let at = self.records.iter().position(|r| r.tick == tick);
        if let Some(i) = at {
            let mut old = std::mem::take(&mut self.records[i].effects);
            self.matched.clear();
            self.matched.resize(old.len(), false);
            for n in 0..self.current.len() {
                let e = self.current[n];
                let hit = (0..old.len()).find(|&k| !self.matched[k] && old[k] == e);
                if let Some(k) = hit {
                    self.matched[k] = true;
                    self.stats.matched += 1;
                } else {
                    self.send(tick, e, EffectKind::Predicted);
                }
            }
            for (k, &e) in old.iter().enumerate() {
                if !self.matched[k] {
                    self.send(tick, e, EffectKind::Cancelled);
                }
            }
            old.clear();
            old.extend_from_slice(&self.current);
            self.records[i].effects = old;
        } else if final_now {
            for n in 0..self.current.len() {
                let e = self.current[n];
                self.send(tick, e, EffectKind::Confirmed { predicted: false });
            }
        } else if !self.current.is_empty() {
            // Remembered first: a full window confirms its oldest tick,
            // whose events come before this tick's.
            self.remember(tick);
            for n in 0..self.current.len() {
                let e = self.current[n];
                self.send(tick, e, EffectKind::Predicted);
            }
        }
        self.current.clear();
        if final_now {
            self.confirm(tick + 1);
        }
    }

    /// Keeps the current effects as `tick`'s record, in tick order.
    fn remember(&mut self, tick: u64) {
        if self.records.len() == self.config.window {
            // No room: the oldest unconfirmed tick is taken as final.
            self.drop_one("window");
            let oldest = self.records.front().map_or(tick, |r| r.tick);
            self.confirm(oldest + 1);
        }
        let mut list = self
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(self.config.per_tick));
        list.extend_from_slice(&self.current);
        let at = self.records.partition_point(|r| r.tick < tick);
        self.records.insert(
            at,
            TickRecord {
                tick,
                effects: list,
            },
        );
    }

    /// Ticks below `below` are final: their effects are confirmed.
    fn confirm(&mut self, below: u64) {
        self.final_below = self.final_below.max(below);
        while let Some(r) = self.records.front() {
            if r.tick >= self.final_below {
                break;
            }
            let Some(mut r) = self.records.pop_front() else {
                break;
            };
            for n in 0..r.effects.len() {
                let e = r.effects[n];
                self.send(r.tick, e, EffectKind::Confirmed { predicted: true });
            }
            r.effects.clear();
            self.spare.push(r.effects);
        }
    }

    /// A tick failed: what it emitted never happened.
    fn abort_tick(&mut self) {
        self.current.clear();
    }
}

/// The type-erased hooks of one effect type, called by the world.
#[derive(Clone, Copy)]
pub(crate) struct EffectHooks {
    pub(crate) type_id: TypeId,
    pub(crate) end_tick: fn(&mut Resources, u64),
    pub(crate) abort_tick: fn(&mut Resources),
    pub(crate) confirm: fn(&mut Resources, u64),
    pub(crate) predict: fn(&mut Resources, bool),
    pub(crate) mute: fn(&mut Resources, bool),
}

impl EffectHooks {
    fn of<E: Copy + PartialEq + Send + 'static>() -> Self {
        Self {
            type_id: TypeId::of::<E>(),
            end_tick: |r, tick| {
                if let Ok(log) = r.get_mut::<EffectLog<E>>() {
                    log.end_tick(tick);
                }
            },
            abort_tick: |r| {
                if let Ok(log) = r.get_mut::<EffectLog<E>>() {
                    log.abort_tick();
                }
            },
            confirm: |r, below| {
                if let Ok(log) = r.get_mut::<EffectLog<E>>() {
                    log.confirm(below);
                }
            },
            predict: |r, on| {
                if let Ok(log) = r.get_mut::<EffectLog<E>>() {
                    log.predicting = on;
                }
            },
            mute: |r, on| {
                if let Ok(log) = r.get_mut::<EffectLog<E>>() {
                    log.muted = on;
                }
            },
        }
    }
}

impl crate::World {
    /// Enables effects of type `E` (see [`effects`](crate::effects)):
    /// systems emit them with [`SystemContext::effect`](crate::SystemContext::effect), presentation
    /// drains them with [`drain_effects`](Self::drain_effects).
    ///
    /// # Errors
    /// `effects/config_invalid` for a size out of range;
    /// `effects/already_enabled` (field `effect`, value the type) when
    /// `E` is enabled already. The world is unchanged then.
    pub fn enable_effects<E: Copy + PartialEq + Send + 'static>(
        &mut self,
        config: EffectConfig,
    ) -> Result<()> {
        config.validate()?;
        if self
            .effect_hooks
            .iter()
            .any(|h| h.type_id == TypeId::of::<E>())
        {
            return Err(Error::invalid_argument(
                events::EFFECTS_ALREADY_ENABLED,
                "effect",
                std::any::type_name::<E>(),
                "an effect type enabled once per world",
            ));
        }
        self.resources.insert(EffectLog::<E>::new(config));
        self.effect_hooks.push(EffectHooks::of::<E>());
        Ok(())
    }

    /// Hands every kept event of effect type `E` to `f`, oldest first,
    /// and empties the ring.
    ///
    /// # Errors
    /// `effects/not_enabled` (field `effect`, value the type) when `E` is
    /// not enabled.
    pub fn drain_effects<E: Copy + PartialEq + Send + 'static>(
        &mut self,
        mut f: impl FnMut(EffectEvent<E>),
    ) -> Result<()> {
        let log = self
            .resources
            .get_mut::<EffectLog<E>>()
            .map_err(|_| not_enabled::<E>())?;
        while let Some(e) = log.outbox.pop_front() {
            log.first_seq += 1;
            f(e);
        }
        Ok(())
    }

    /// Hands `f` the events of effect type `E` that `reader` has not seen,
    /// oldest first, without taking them from other readers: what game
    /// code with a shared `&World` (a frame hook) uses.
    ///
    /// # Errors
    /// `effects/not_enabled` (field `effect`, value the type) when `E` is
    /// not enabled.
    pub fn read_effects<E: Copy + PartialEq + Send + 'static>(
        &self,
        reader: &mut EffectReader,
        mut f: impl FnMut(EffectEvent<E>),
    ) -> Result<()> {
        let log = self
            .resources
            .get::<EffectLog<E>>()
            .map_err(|_| not_enabled::<E>())?;
        let mut next = reader.next.unwrap_or(log.first_seq);
        if next < log.first_seq {
            reader.missed += log.first_seq - next;
            next = log.first_seq;
        }
        let skip = usize::try_from(next - log.first_seq).unwrap_or(usize::MAX);
        for e in log.outbox.iter().skip(skip) {
            f(*e);
        }
        reader.next = Some(log.first_seq + log.outbox.len() as u64);
        Ok(())
    }

    /// The counts of effect type `E`'s log.
    ///
    /// # Errors
    /// As [`drain_effects`](Self::drain_effects).
    pub fn effect_stats<E: Copy + PartialEq + Send + 'static>(&self) -> Result<EffectStats> {
        self.resources
            .get::<EffectLog<E>>()
            .map(|log| log.stats)
            .map_err(|_| not_enabled::<E>())
    }

    /// Ticks below `below` are final (a rollback session's confirmed
    /// state): every effect type confirms their effects.
    pub fn confirm_effects(&mut self, below: u64) {
        for h in &self.effect_hooks {
            (h.confirm)(&mut self.resources, below);
        }
    }

    /// Whether ticks wait for [`confirm_effects`](Self::confirm_effects)
    /// (a rollback session sets it) or are final as they complete (the
    /// default).
    pub fn predict_effects(&mut self, on: bool) {
        for h in &self.effect_hooks {
            (h.predict)(&mut self.resources, on);
        }
    }

    /// Whether the ticks run from now on re-run ticks that were final
    /// already (a session re-simulating its confirmed past, when peers
    /// settle on a lost player's last input): their effects are not
    /// handed over (presentation does not replay the past), and nothing
    /// is counted. Off again, effects flow as before.
    pub fn mute_effects(&mut self, on: bool) {
        for h in &self.effect_hooks {
            (h.mute)(&mut self.resources, on);
        }
    }

    /// Every effect type's end of tick `tick` (after its last system).
    pub(crate) fn effects_end_tick(&mut self, tick: u64) {
        for h in &self.effect_hooks {
            (h.end_tick)(&mut self.resources, tick);
        }
    }

    /// Every effect type's failed tick.
    pub(crate) fn effects_abort_tick(&mut self) {
        for h in &self.effect_hooks {
            (h.abort_tick)(&mut self.resources);
        }
    }
}

/// `effects/not_enabled` for `E`.
#[cold]
pub(crate) fn not_enabled<E>() -> Error {
    Error::invalid_argument(
        events::EFFECTS_NOT_ENABLED,
        "effect",
        std::any::type_name::<E>(),
        "an effect type the world enabled (World::enable_effects)",
    )
}
