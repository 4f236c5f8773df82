//! Presentation: interpolating the last two completed ticks for rendering.
//!
//! The simulation advances in whole ticks; frames land between them. A
//! [`PresentationSnapshot<C>`] keeps, per entity, copies of component `C`
//! as of the last two completed ticks (`prev`, `curr`): it is a
//! [`LoopHooks`] whose `on_tick` captures `C` after every completed tick.
//! A renderer then draws `lerp(prev, curr, alpha)` with the frame's
//! [`Alpha`] — the sub-tick remainder from the loop's integer clock, in
//! `[0, 1)` (see `docs/api/presentation.md`, "The alpha contract"):
//!
//! ```
//! use laige_core::clock::SyntheticClock;
//! use laige_core::Fpx16_16;
//! use laige_sim::{GameLoop, GameLoopOptions};
//! use laige_sim::PresentationSnapshot;
//! use laige_sim::workload::{self, Position, WorkloadConfig};
//! use laige_sim::World;
//!
//! let mut world = World::default();
//! workload::install::<Fpx16_16>(&mut world, &WorkloadConfig { entities: 100, ..Default::default() })?;
//! let schedule = world.schedule_systems();
//! let clock = SyntheticClock::new(0);
//! let mut game = GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())?;
//! let mut snapshot = PresentationSnapshot::<Position<Fpx16_16>>::with_capacity(100);
//! game.frame_with(&mut snapshot)?;
//! clock.advance_ns(25_000_000); // 1.5 ticks
//! let frame = game.frame_with(&mut snapshot)?;
//! assert_eq!((snapshot.curr_tick(), frame.alpha.ppb()), (1, 500_000_000));
//! for (_entity, [x, y]) in snapshot.interpolated(frame.alpha) {
//!     assert!(x.is_finite() && y.is_finite()); // render-space f32
//! }
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! Allocation: the buffers grow only when the captured entity count (or
//! the largest entity index) exceeds every earlier one; steady state
//! allocates nothing. That growth is the snapshot's own amortized
//! bookkeeping and is not charged to the loop's G-R1 window (reserve with
//! [`with_capacity`](PresentationSnapshot::with_capacity) to avoid it).

// det-allow-file(float-type, float-cast, float-literal): interpolation output is render-space f32 (`SimScalar::to_f32`, "for rendering only"); nothing here feeds back into sim state
#![expect(
    clippy::disallowed_types,
    reason = "render-space interpolation output (f32 for the renderer), never sim state; the det-allow-file above covers the same sites in the syn lint"
)]

use hecs::{Component, Entity};
use laige_core::{SimScalar, Vec2, Vec3};

use crate::World;
use crate::game_loop::{Alpha, LoopHooks};
use crate::workload::{Position, PrevPosition};

/// Render-space linear interpolation between two captured values.
pub trait Interpolate {
    /// The render-space result (f32s: rendering only, never sim state).
    type Output;
    /// `prev + (curr − prev) × alpha`, in render space.
    fn interpolate(prev: &Self, curr: &Self, alpha: Alpha) -> Self::Output;
}

#[inline]
fn lerp_f32(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

impl<S: SimScalar> Interpolate for Vec2<S> {
    type Output = [f32; 2];
    #[inline]
    fn interpolate(prev: &Self, curr: &Self, alpha: Alpha) -> [f32; 2] {
        let t = alpha.as_f32();
        [
            lerp_f32(prev.x.to_f32(), curr.x.to_f32(), t),
            lerp_f32(prev.y.to_f32(), curr.y.to_f32(), t),
        ]
    }
}

impl<S: SimScalar> Interpolate for Vec3<S> {
    type Output = [f32; 3];
    #[inline]
    fn interpolate(prev: &Self, curr: &Self, alpha: Alpha) -> [f32; 3] {
        let t = alpha.as_f32();
        [
            lerp_f32(prev.x.to_f32(), curr.x.to_f32(), t),
            lerp_f32(prev.y.to_f32(), curr.y.to_f32(), t),
            lerp_f32(prev.z.to_f32(), curr.z.to_f32(), t),
        ]
    }
}

impl<S: SimScalar> Interpolate for Position<S> {
    type Output = [f32; 2];
    #[inline]
    fn interpolate(prev: &Self, curr: &Self, alpha: Alpha) -> [f32; 2] {
        Vec2::interpolate(&prev.0, &curr.0, alpha)
    }
}

impl<S: SimScalar> Interpolate for PrevPosition<S> {
    type Output = [f32; 2];
    #[inline]
    fn interpolate(prev: &Self, curr: &Self, alpha: Alpha) -> [f32; 2] {
        Vec2::interpolate(&prev.0, &curr.0, alpha)
    }
}

/// A previous-tick value, tagged with the tick it was captured at (so a
/// stale slot of an entity absent for a while is never mistaken for its
/// previous value).
#[derive(Clone, Copy)]
struct PrevSlot<C> {
    entity: Entity,
    tick: u64,
    value: C,
}

/// Per-entity copies of `C` at the last two completed ticks.
///
/// `curr` is the dense list captured at [`curr_tick`](Self::curr_tick) (in
/// hecs iteration order); `prev` is looked up per entity in a slot table
/// indexed by the entity's id, valid only if captured at
/// [`prev_tick`](Self::prev_tick) for the same entity (generation
/// included). An entity new in `curr` has no `prev`: it interpolates from
/// its `curr` value (it appears where it is, no streak).
pub struct PresentationSnapshot<C> {
    curr: Vec<(Entity, C)>,
    prev: Vec<Option<PrevSlot<C>>>,
    curr_tick: u64,
    prev_tick: Option<u64>,
    captures: u64,
}

impl<C> Default for PresentationSnapshot<C> {
    fn default() -> Self {
        Self {
            curr: Vec::new(),
            prev: Vec::new(),
            curr_tick: 0,
            prev_tick: None,
            captures: 0,
        }
    }
}

impl<C: Component + Copy> PresentationSnapshot<C> {
    /// A snapshot with room for `entities` entities (both buffers), so that
    /// capturing up to that many (with entity ids below it) never allocates.
    #[must_use]
    pub fn with_capacity(entities: usize) -> Self {
        Self {
            curr: Vec::with_capacity(entities),
            prev: vec![None; entities],
            ..Self::default()
        }
    }

    /// Captures `C` of every entity that has it, as of `world.tick()`: the
    /// previous `curr` becomes `prev`. Called by `on_tick`; call it
    /// directly when driving the world without a loop.
    pub fn capture(&mut self, world: &World) {
        let prev_tick = self.curr_tick;
        if self.captures > 0 {
            for &(entity, value) in &self.curr {
                let idx = entity.id() as usize;
                if idx >= self.prev.len() {
                    #[cfg(debug_assertions)]
                    let _growth = laige_core::alloc_watch::suspend();
                    self.prev.resize(idx + 1, None);
                }
                self.prev[idx] = Some(PrevSlot {
                    entity,
                    tick: prev_tick,
                    value,
                });
            }
            self.prev_tick = Some(prev_tick);
        }
        self.curr.clear();
        let mut query = world.ecs().query::<(Entity, &C)>();
        let iter = {
            // hecs's query-cache rebuild (first use, or after the archetype
            // set changed) and buffer growth are bookkeeping, not tick work.
            #[cfg(debug_assertions)]
            let _bookkeeping = laige_core::alloc_watch::suspend();
            let iter = query.iter();
            self.curr.reserve(iter.len());
            iter
        };
        self.curr.extend(iter.map(|(e, c)| (e, *c)));
        self.curr_tick = world.tick();
        self.captures += 1;
    }

    /// The tick `curr` was captured at (0 before the first capture).
    #[must_use]
    pub fn curr_tick(&self) -> u64 {
        self.curr_tick
    }

    /// The tick `prev` values were captured at (`None` until the second
    /// capture).
    #[must_use]
    pub fn prev_tick(&self) -> Option<u64> {
        self.prev_tick
    }

    /// Entities in `curr`.
    #[must_use]
    pub fn len(&self) -> usize {
        self.curr.len()
    }

    /// Whether `curr` is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.curr.is_empty()
    }

    fn prev_of(&self, entity: Entity, curr: &C) -> C {
        match (self.prev_tick, self.prev.get(entity.id() as usize)) {
            (Some(tick), Some(Some(slot))) if slot.entity == entity && slot.tick == tick => {
                slot.value
            }
            _ => *curr,
        }
    }

    /// `(entity, prev, curr)` for every entity in `curr` (`prev == curr`
    /// for an entity new at `curr_tick`).
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (Entity, C, C)> + '_ {
        self.curr.iter().map(|&(e, c)| (e, self.prev_of(e, &c), c))
    }

    /// The `(prev, curr)` pair of one entity, if it is in `curr`. O(n).
    #[must_use]
    pub fn get(&self, entity: Entity) -> Option<(C, C)> {
        self.curr
            .iter()
            .find(|(e, _)| *e == entity)
            .map(|&(e, c)| (self.prev_of(e, &c), c))
    }
}

impl<C: Component + Copy + Interpolate> PresentationSnapshot<C> {
    /// `(entity, interpolate(prev, curr, alpha))` for every entity in
    /// `curr`: what a renderer draws this frame.
    pub fn interpolated(
        &self,
        alpha: Alpha,
    ) -> impl ExactSizeIterator<Item = (Entity, C::Output)> + '_ {
        self.pairs()
            .map(move |(e, p, c)| (e, C::interpolate(&p, &c, alpha)))
    }
}

impl<C: Component + Copy> LoopHooks for PresentationSnapshot<C> {
    fn on_tick(&mut self, world: &World, _tick: u64) {
        self.capture(world);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_core::Fpx16_16;

    fn pos(x: i32) -> Position<Fpx16_16> {
        Position(Vec2::new(Fpx16_16::from_i32(x), Fpx16_16::ZERO))
    }

    fn advance(world: &mut World, schedule: &crate::SystemSchedule) {
        world.run_systems(schedule).unwrap();
    }

    #[test]
    fn keeps_the_last_two_ticks_per_entity() {
        let mut w = World::default();
        w.register_system("move", 0, |ctx| {
            for p in ctx.query_mut::<&mut Position<Fpx16_16>>() {
                p.0.x += Fpx16_16::from_i32(10);
            }
            Ok(())
        })
        .unwrap();
        let s = w.schedule_systems();
        let a = w.spawn((pos(0),));
        let mut snap = PresentationSnapshot::<Position<Fpx16_16>>::default();
        snap.capture(&w);
        assert_eq!(snap.prev_tick(), None);
        assert_eq!(snap.get(a), Some((pos(0), pos(0))));
        advance(&mut w, &s);
        snap.capture(&w);
        assert_eq!((snap.prev_tick(), snap.curr_tick()), (Some(0), 1));
        assert_eq!(snap.get(a), Some((pos(0), pos(10))));
        // A new entity has no previous value: it does not streak.
        let b = w.spawn((pos(100),));
        advance(&mut w, &s);
        snap.capture(&w);
        assert_eq!(snap.get(a), Some((pos(10), pos(20))));
        assert_eq!(snap.get(b), Some((pos(110), pos(110))));
        // Despawned entities leave curr; a recycled id is not confused
        // with its previous owner.
        w.despawn(a).unwrap();
        let c = w.spawn((pos(-50),));
        advance(&mut w, &s);
        snap.capture(&w);
        assert_eq!(snap.get(a), None);
        assert_eq!(snap.get(c), Some((pos(-40), pos(-40))));
        assert_eq!(snap.len(), 2);
    }

    #[test]
    fn interpolates_in_render_space() {
        let mut w = World::default();
        w.register_system("move", 0, |ctx| {
            for p in ctx.query_mut::<&mut Position<Fpx16_16>>() {
                p.0.x += Fpx16_16::from_i32(8);
            }
            Ok(())
        })
        .unwrap();
        let s = w.schedule_systems();
        w.spawn((pos(0),));
        let mut snap = PresentationSnapshot::<Position<Fpx16_16>>::with_capacity(4);
        snap.capture(&w);
        advance(&mut w, &s);
        snap.capture(&w);
        let at = |ppb| snap.interpolated(Alpha::from_ppb(ppb)).next().unwrap().1;
        assert_eq!(at(0), [0.0, 0.0]);
        assert_eq!(at(250_000_000), [2.0, 0.0]);
        assert!(at(999_999_999)[0] < 8.0);
    }
}
