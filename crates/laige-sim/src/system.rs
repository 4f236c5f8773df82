//! Named systems, their declared order, and the [`SystemSchedule`].
//!
//! A system is a closure or function `FnMut(&mut SystemContext) ->
//! Result<()>` registered on the [`World`](crate::World) with a name and an
//! order key. [`World::schedule_systems`](crate::World::schedule_systems)
//! computes the run order once — ascending order key, ties in registration
//! order — and [`World::run_systems`](crate::World::run_systems) runs it,
//! one tick.
//!
//! # Staleness
//!
//! Every registration bumps the world's system generation. A schedule
//! remembers the world and the generation it was computed for, so:
//!
//! * a schedule computed before a later registration is **stale**: running
//!   it is `InvalidArgument` `system/schedule_stale`;
//! * a schedule from another world, or a default-constructed one, is
//!   **invalid**: `InvalidArgument` `system/schedule_invalid`.
//!
//! Validation precedes dispatch: a rejected schedule runs no system and
//! leaves the world untouched (tick counter included).
//!
//! # Why boxed systems
//!
//! Systems are registered at run time and are heterogeneous closures, so
//! the registry is a `Vec` of boxed `FnMut`s: static dispatch would make
//! `World` generic over a type-level list of every system, which the
//! engine's builder and the game code would all have to spell. The cost is
//! one indirect call per system per tick (not per entity — the per-entity
//! loops inside a system are fully monomorphized), and registering boxes
//! the closure once (a cold path). Running a schedule allocates nothing.
//!
//! # Failures
//!
//! A system returning `Err` fails the tick: later systems do not run, the
//! world's tick counter does not advance, the system's own error is returned
//! unchanged, and [`World::failed_system`](crate::World::failed_system)
//! names the system. A panicking system is caught (`catch_unwind`) and
//! becomes an [`ErrorCode::Failed`] `system/system_panicked` error naming
//! the system —
//! a misbehaving system never unwinds through the loop. (Builds with
//! `panic = "abort"` cannot catch: the process aborts, as Rust defines.) The
//! effects a failed or panicking system made before it stopped stay in the
//! world: there is no rollback.

// det-allow-file(wall-clock): `SteadyClock` times systems for the profiler only (diagnostic samples, never sim state)

use std::any::Any;
use std::ops::{Deref, DerefMut};
use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_core::{Error, ErrorCode, Result, panic_message};

use crate::entities::Entities;
use crate::input::TickInput;
use crate::profiler::Profiler;
use crate::resources::Resources;
use crate::{emit, events};

/// A registered system: boxed because systems are heterogeneous closures
/// (see the module docs).
pub(crate) type SystemFn = Box<dyn FnMut(&mut SystemContext<'_>) -> Result<()> + Send>;

pub(crate) struct SystemEntry {
    pub(crate) name: &'static str,
    pub(crate) order: i32,
    pub(crate) func: SystemFn,
}

/// The world's systems and their generation (bumped by each registration).
#[derive(Default)]
pub(crate) struct SystemRegistry {
    pub(crate) entries: Vec<SystemEntry>,
    pub(crate) generation: u64,
}

impl SystemRegistry {
    pub(crate) fn register(
        &mut self,
        name: &'static str,
        order: i32,
        func: SystemFn,
    ) -> Result<()> {
        if name.is_empty() || name.trim() != name {
            let err = Error::invalid_argument(
                events::SYSTEM_NAME_INVALID,
                "name",
                format!("{name:?}"),
                "a non-empty name without leading or trailing whitespace",
            );
            emit::report(&err);
            return Err(err);
        }
        if self.entries.iter().any(|e| e.name == name) {
            let err = Error::invalid_argument(
                events::SYSTEM_NAME_INVALID,
                "name",
                format!("{name:?}"),
                "a name not yet registered in this world",
            )
            .with_detail("system names are unique per world");
            emit::report(&err);
            return Err(err);
        }
        self.entries.push(SystemEntry { name, order, func });
        self.generation += 1;
        Ok(())
    }

    pub(crate) fn schedule(&self, world_id: u64) -> SystemSchedule {
        let mut order: Vec<u32> = (0..self.entries.len())
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        // Stable sort: equal order keys keep registration order.
        order.sort_by_key(|&i| self.entries[i as usize].order);
        SystemSchedule {
            world_id,
            generation: self.generation,
            order: order.into_boxed_slice(),
        }
    }

    /// Whether `schedule` may run on this registry (no allocation, no log).
    pub(crate) fn is_valid(&self, world_id: u64, schedule: &SystemSchedule) -> bool {
        schedule.world_id == world_id
            && schedule.generation == self.generation
            && schedule.order.len() == self.entries.len()
            && schedule
                .order
                .iter()
                .all(|&i| (i as usize) < self.entries.len())
    }

    /// Validation only: no system runs, nothing is touched.
    pub(crate) fn validate(&self, world_id: u64, schedule: &SystemSchedule) -> Result<()> {
        if self.is_valid(world_id, schedule) {
            return Ok(());
        }
        let err = if schedule.world_id != world_id {
            Some(Error::invalid_argument(
                events::SCHEDULE_INVALID,
                "schedule",
                if schedule.world_id == 0 {
                    "an unscheduled (default) schedule".to_owned()
                } else {
                    format!("a schedule of world #{}", schedule.world_id)
                },
                format!("a schedule from this world's schedule_systems() (world #{world_id})"),
            ))
        } else if schedule.generation != self.generation {
            Some(
                Error::invalid_argument(
                    events::SCHEDULE_STALE,
                    "schedule",
                    format!("system generation {}", schedule.generation),
                    format!("the current generation {}", self.generation),
                )
                .with_detail(
                    "a system was registered after scheduling; call schedule_systems() again",
                ),
            )
        } else if schedule.order.len() != self.entries.len()
            || schedule
                .order
                .iter()
                .any(|&i| i as usize >= self.entries.len())
        {
            Some(Error::invalid_argument(
                events::SCHEDULE_INVALID,
                "schedule",
                format!("{} entries", schedule.order.len()),
                format!("{} systems of this world", self.entries.len()),
            ))
        } else {
            None
        };
        match err {
            Some(err) => {
                emit::report(&err);
                Err(err)
            }
            None => Ok(()),
        }
    }
}

/// The run order of a world's systems, computed by
/// [`World::schedule_systems`](crate::World::schedule_systems).
///
/// Valid for the world that computed it until the next system registration
/// (see the module docs). `SystemSchedule::default()` belongs to no world:
/// running it is `system/schedule_invalid`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemSchedule {
    world_id: u64,
    generation: u64,
    order: Box<[u32]>,
}

impl SystemSchedule {
    /// Number of systems in the schedule.
    #[must_use]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the schedule runs no system.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The system generation this schedule was computed for.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn order(&self) -> &[u32] {
        &self.order
    }
}

/// What a running system sees: the entity store, the tick being computed,
/// the tick's input events and its own name.
///
/// The entity API (spawn, despawn, insert, remove, queries) is
/// [`Entities`]'s, reached through `Deref`: the same methods as on a
/// [`World`](crate::World), counted against the same churn budgets.
pub struct SystemContext<'w> {
    entities: &'w mut Entities,
    resources: &'w mut Resources,
    tick: u64,
    tick_start_ns: i64,
    name: &'static str,
    input: TickInput<'w>,
}

impl<'w> SystemContext<'w> {
    /// The 0-based index of the tick being computed: the world's completed
    /// tick count before this tick (after the tick completes,
    /// `World::tick() == ctx.tick() + 1`).
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Where the tick being computed starts on the simulation's own time
    /// line, in ns: `⌈tick × 10⁹ / tick_rate_hz⌉` (`RateGrid::start_ns`),
    /// so the same in every run and replay. A world ticked by hand
    /// (`World::run_systems`, no game loop) counts at 60 Hz, the default
    /// rate. Input timestamps (`InputEvent::time_ns`) are on the run's
    /// clock: while no tick was dropped, an event of this tick lies in
    /// `tick_start_ns()..tick_start_ns() + period`, so
    /// `time_ns - tick_start_ns()` is its offset inside the tick; each
    /// dropped tick moves the run's clock one period ahead of this line.
    #[must_use]
    pub fn tick_start_ns(&self) -> i64 {
        self.tick_start_ns
    }

    /// The running system's registered name.
    #[must_use]
    pub fn system_name(&self) -> &'static str {
        self.name
    }

    /// Emits a presentation effect of the game's type `E` (a sound, a
    /// particle burst) from this tick: presentation receives it once,
    /// whatever a rollback re-simulates (see [`effects`](crate::effects)).
    ///
    /// # Errors
    /// `effects/not_enabled` (field `effect`, value the type) when the
    /// world did not [`enable_effects`](crate::World::enable_effects) `E`.
    pub fn effect<E: Copy + PartialEq + Send + 'static>(&mut self, effect: E) -> Result<()> {
        match self.resources.get_mut::<crate::effects::EffectLog<E>>() {
            Ok(log) => {
                log.push(effect);
                Ok(())
            }
            Err(_) => Err(crate::effects::not_enabled::<E>()),
        }
    }

    /// The world's resource of type `T` (see
    /// [`resources`](crate::resources)).
    ///
    /// # Errors
    /// `world/no_such_resource` (InvalidArgument, value = the type name)
    /// when the world holds none.
    pub fn resource<T: 'static>(&self) -> Result<&T> {
        self.resources.get::<T>()
    }

    /// The world's resource of type `T`, exclusively. It borrows the
    /// context: to hold it while querying, use
    /// [`resource_and_entities_mut`](Self::resource_and_entities_mut).
    ///
    /// # Errors
    /// As [`resource`](Self::resource).
    pub fn resource_mut<T: 'static>(&mut self) -> Result<&mut T> {
        self.resources.get_mut::<T>()
    }

    /// The world's resource of type `T` and the entity store, both
    /// exclusively and at once: a system that updates a resource from a
    /// query holds both (where `resource_mut` alone would borrow the
    /// whole context).
    ///
    /// ```
    /// use laige_sim::World;
    ///
    /// #[derive(Clone, Copy)]
    /// struct Hp(i32);
    /// struct Total(i32);
    ///
    /// let mut world = World::default();
    /// world.insert_resource(Total(0));
    /// world.spawn((Hp(3),));
    /// world.spawn((Hp(4),));
    /// world.register_system("sum", 0, |ctx| {
    ///     let (total, entities) = ctx.resource_and_entities_mut::<Total>()?;
    ///     for hp in entities.query_mut::<&mut Hp>() {
    ///         total.0 += hp.0;
    ///         hp.0 -= 1;
    ///     }
    ///     Ok(())
    /// })?;
    /// let schedule = world.schedule_systems();
    /// world.run_systems(&schedule)?;
    /// assert_eq!(world.resource::<Total>()?.0, 7);
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`resource`](Self::resource).
    pub fn resource_and_entities_mut<T: 'static>(&mut self) -> Result<(&mut T, &mut Entities)> {
        let resource = self.resources.get_mut::<T>()?;
        Ok((resource, &mut *self.entities))
    }

    /// Two different resources, both exclusively and at once (a game's
    /// state and the engine's `SimRng`, say).
    ///
    /// ```
    /// use laige_sim::World;
    ///
    /// struct Hits(u32);
    /// struct Log([u32; 4]);
    ///
    /// let mut world = World::default();
    /// world.insert_resource(Hits(0));
    /// world.insert_resource(Log([0; 4]));
    /// world.register_system("hit", 0, |ctx| {
    ///     let (hits, log) = ctx.resources_mut::<Hits, Log>()?;
    ///     hits.0 += 1;
    ///     log.0[hits.0 as usize % 4] = hits.0;
    ///     Ok(())
    /// })?;
    /// let schedule = world.schedule_systems();
    /// world.run_systems(&schedule)?;
    /// assert_eq!(world.resource::<Log>()?.0, [0, 1, 0, 0]);
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// `world/no_such_resource` (InvalidArgument) naming the type the world
    /// does not hold, or `A` itself when `A` and `B` are one type.
    pub fn resources_mut<A: 'static, B: 'static>(&mut self) -> Result<(&mut A, &mut B)> {
        self.resources.get_pair_mut::<A, B>()
    }

    /// The tick's input: the events delivered to it, in delivery order
    /// (tick, time, sequence) — the same for every system of the tick (see
    /// [`input`](crate::input)) — and the key, button and pointer state
    /// they leave (`ctx.input().is_down(KeyCode::W)`, `just_pressed`,
    /// `just_released`, `pointer`; see [`InputState`](crate::input::InputState)).
    /// It does not borrow the context, so a system can read it while
    /// spawning or querying: `for ev in ctx.input() { ... ctx.spawn(..); }`.
    #[must_use]
    pub fn input(&self) -> TickInput<'w> {
        self.input
    }
}

impl Deref for SystemContext<'_> {
    type Target = Entities;

    fn deref(&self) -> &Entities {
        self.entities
    }
}

impl DerefMut for SystemContext<'_> {
    fn deref_mut(&mut self) -> &mut Entities {
        self.entities
    }
}

/// Runs one tick's worth of systems in schedule order (already
/// validated): the tick's index and its start on the tick grid. Times each
/// system into `profiler` when it is enabled. A failure comes back with the
/// failing system's name.
pub(crate) fn run_validated(
    entries: &mut [SystemEntry],
    schedule: &SystemSchedule,
    entities: &mut Entities,
    resources: &mut Resources,
    (tick, tick_start_ns): (u64, i64),
    input: TickInput<'_>,
    profiler: Option<&mut Profiler>,
) -> std::result::Result<(), (&'static str, Error)> {
    let mut profiler = profiler.filter(|p| p.is_enabled());
    let mut last = profiler.as_ref().map(|_| SteadyClock.now_ns());
    for (slot, &idx) in schedule.order().iter().enumerate() {
        let entry = &mut entries[idx as usize];
        let name = entry.name;
        let mut ctx = SystemContext {
            entities: &mut *entities,
            resources: &mut *resources,
            tick,
            tick_start_ns,
            name,
            input,
        };
        let outcome = {
            // A span per system (feature `trace`): a profiler's timeline.
            #[cfg(feature = "trace")]
            let _span = tracing::info_span!("system", name).entered();
            #[cfg(debug_assertions)]
            let _label = laige_core::alloc_watch::label(name);
            catch_unwind(AssertUnwindSafe(|| (entry.func)(&mut ctx)))
        };
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(err)) => return Err((name, err)),
            Err(payload) => return Err((name, panic_error(name, tick, payload.as_ref()))),
        }
        if let (Some(p), Some(t0)) = (profiler.as_deref_mut(), last.as_mut()) {
            let t1 = SteadyClock.now_ns();
            p.record_system(slot, name, u64::try_from(t1 - *t0).unwrap_or(0));
            *t0 = t1;
        }
    }
    Ok(())
}

#[cold]
fn panic_error(name: &'static str, tick: u64, payload: &(dyn Any + Send)) -> Error {
    Error::new(ErrorCode::Failed, events::SYSTEM_PANICKED)
        .with_field("system")
        .with_value(name)
        .with_detail(format!(
            "panicked at tick {tick}: {}",
            panic_message(payload)
        ))
}
