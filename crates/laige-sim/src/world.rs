//! The [`World`]: entities and components (hecs inside), the tick counter,
//! the registered systems, the churn guardrails and the state hash.
//!
//! ```
//! use laige_sim::{StateHash, World};
//!
//! #[derive(Clone, Copy, StateHash)]
//! struct Health(u32);
//!
//! let mut world = World::default();
//! world.register_hashed_as::<Health>("health")?;
//! world.register_system("regen", 10, |ctx| {
//!     for h in ctx.query_mut::<&mut Health>() {
//!         h.0 = (h.0 + 1).min(100);
//!     }
//!     Ok(())
//! })?;
//! let e = world.spawn((Health(7),));
//! let schedule = world.schedule_systems();
//! let before = world.state_hash();
//! world.run_systems(&schedule)?;
//! assert_eq!(world.tick(), 1);
//! assert_eq!(world.ecs().get::<&Health>(e).unwrap().0, 8);
//! assert_ne!(world.state_hash(), before);
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! # The state hash
//!
//! [`World::state_hash`] is a pure function of the world's *logical*
//! content: the tick counter and, for every entity that has at least one
//! hashed component, the set of its hashed components and their values.
//! It does not depend on hecs entity ids, archetype layout, the order
//! entities were spawned in or components were inserted in, or on despawn
//! history. The canonical form:
//!
//! 1. Hashed component types are ordered by their registered name (the
//!    type name from [`World::register_hashed`], or the stable name given
//!    to [`World::register_hashed_as`]) — not by registration order.
//! 2. Each entity's *record* is the FNV-1a 64 stream of, for each hashed
//!    component it has in that order, the FNV-1a 64 of the name (a `u64`,
//!    little-endian) followed by the component's [`StateHash`] encoding.
//! 3. The records are sorted ascending (a sorted multiset: equal entities
//!    contribute equal records, and duplicates are kept).
//! 4. The world hash is FNV-1a 64 over `tick` (`u64`), the record count
//!    (`u64`) and the sorted records (`u64` each),
//! 5. followed, when the world holds at least one hashed
//!    [resource](crate::resources), by the hashed-resource count (`u64`)
//!    and one record (`u64`) per hashed resource in name order: the
//!    FNV-1a 64 stream of the name's FNV-1a 64 (a `u64`, little-endian)
//!    followed by the resource's [`StateHash`] encoding. A world without hashed resources hashes exactly as if
//!    resources did not exist (the committed known answers of
//!    resource-free worlds stay valid).
//!
//! Entity *identity* is deliberately not hashed — hecs ids depend on
//! allocation history. A component that refers to another entity must hold
//! a game-level id (a hashed integer), not a `hecs::Entity` (which does not
//! implement `StateHash`).
//!
//! Cost: O(entities × hashed components) plus a sort of one `u64` per
//! entity, in a scratch buffer the world keeps — no allocation once the
//! buffer has grown to the entity count.

use std::any::{TypeId, type_name};
use std::cell::Cell;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};

use hecs::{Archetype, Component};
use laige_core::{Error, Result};

use crate::entities::Entities;
use crate::guardrails::{ChurnBudget, ChurnGuard, ChurnStats};
use crate::input::{InputQueue, InputState, TickInput};
use crate::profiler::Profiler;
use crate::resources::Resources;
use crate::snapshot::SnapshotRegistry;
use crate::state_hash::{
    FNV1A64_OFFSET, KeyStep, SortScratch, StateHash, StateHasher, hash_str, sort_records,
};
use crate::system::{SystemContext, SystemRegistry, SystemSchedule, run_validated};
use crate::{emit, events};

/// World construction options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldConfig {
    /// The per-frame churn budgets (validated: each ≥ 1).
    pub churn: ChurnBudget,
}

struct HashedComponent {
    type_id: TypeId,
    name: &'static str,
    /// FNV-1a over the type's key (the hash of its name), in one step.
    key: KeyStep,
    hash_column: fn(&Archetype, &mut [u64], &KeyStep) -> bool,
}

/// Feeds the `T` column of `archetype` (if it has one) into the per-row
/// record states: the type's key, then the value.
fn hash_column<T: Component + StateHash>(
    archetype: &Archetype,
    records: &mut [u64],
    key: &KeyStep,
) -> bool {
    let Some(column) = archetype.get::<&T>() else {
        return false;
    };
    for (state, value) in records.iter_mut().zip(column.iter()) {
        let mut h = StateHasher::from_state(key.apply(*state));
        value.hash_state(&mut h);
        *state = h.finish();
    }
    true
}

/// The buffers [`World::state_hash`] reuses: one record per entity and the
/// sort's scratch.
#[derive(Debug, Default)]
struct HashScratch {
    records: Vec<u64>,
    sort: SortScratch,
}

/// Unique world ids; 0 is "no world" (a default schedule).
static NEXT_WORLD_ID: AtomicU64 = AtomicU64::new(1);

/// Entities and components, the tick counter, the systems and the churn
/// guardrails of one simulation.
///
/// Single owner: a `World` is `Send` (it can move to the thread that runs
/// it) but not `Sync`; all access happens on the owner thread.
#[doc = include_str!("world.md")]
pub struct World {
    entities: Entities,
    id: u64,
    pub(crate) tick: u64,
    hashed: Vec<HashedComponent>,
    hash_scratch: Cell<HashScratch>,
    systems: SystemRegistry,
    /// The system whose error or panic failed the last tick run.
    failed_system: Option<&'static str>,
    input: InputQueue,
    pub(crate) input_state: InputState,
    pub(crate) resources: Resources,
    /// The enabled effect types' hooks (`effects.rs`).
    pub(crate) effect_hooks: Vec<crate::effects::EffectHooks>,
    /// What a snapshot saves (filled by the hashed registration).
    pub(crate) snapshot: SnapshotRegistry,
    /// The tick grid systems read their tick's start from
    /// (`SystemContext::tick_start_ns`): the game loop's, else 60 Hz.
    pub(crate) tick_grid: laige_core::RateGrid,
}

/// The tick grid of a world no game loop runs: 60 Hz, the default rate.
const DEFAULT_TICK_GRID: laige_core::RateGrid = match laige_core::RateGrid::new(60) {
    Some(g) => g,
    None => unreachable!(),
};

impl Default for World {
    /// An empty world with the default churn budgets.
    fn default() -> Self {
        Self::build(ChurnBudget::default())
    }
}

impl fmt::Debug for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("World")
            .field("id", &self.id)
            .field("tick", &self.tick)
            .field("entities", &self.entities.len())
            .field(
                "hashed",
                &self.hashed.iter().map(|h| h.name).collect::<Vec<_>>(),
            )
            .field("resources", &self.resources.len())
            .field(
                "systems",
                &self
                    .systems
                    .entries
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl World {
    fn build(churn: ChurnBudget) -> Self {
        let mut world = Self {
            entities: Entities::new(ChurnGuard::new(churn)),
            // Relaxed: a unique counter, no other memory is published.
            id: NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed),
            tick: 0,
            hashed: Vec::new(),
            hash_scratch: Cell::new(HashScratch::default()),
            systems: SystemRegistry::default(),
            failed_system: None,
            input: InputQueue::default(),
            input_state: InputState::default(),
            resources: Resources::default(),
            effect_hooks: Vec::new(),
            snapshot: SnapshotRegistry::default(),
            tick_grid: DEFAULT_TICK_GRID,
        };
        crate::snapshot::register_world_parts(&mut world.snapshot);
        world
    }

    /// A world with explicit options.
    ///
    /// # Errors
    /// `world/churn_budget_invalid` (InvalidArgument, after one
    /// rate-limited warn) for a zero budget.
    pub fn with_config(config: WorldConfig) -> Result<Self> {
        config.churn.validate()?;
        Ok(Self::build(config.churn))
    }

    /// The completed tick count: advanced by one per successful
    /// [`run_systems`](Self::run_systems). Part of the state hash.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// This world's identity and its current entity-layout value
    /// (`Entities::layout`): equal pairs mean the same handles in the same
    /// archetype rows.
    pub(crate) fn layout_key(&self) -> (u64, u64) {
        (self.id, self.entities.layout)
    }

    /// After a snapshot load: the world's layout is the one `key` names
    /// (from [`layout_key`](Self::layout_key) at the save). A key of
    /// another world keeps the fresh value the load's changes left.
    pub(crate) fn restore_layout_key(&mut self, key: (u64, u64)) {
        if key.0 == self.id {
            self.entities.layout = key.1;
        }
    }

    /// Exclusive access to the hecs world, for setup and bulk work outside
    /// the systems. Spawns and despawns made through it are **not** counted
    /// by the churn guardrails — use [`spawn`](Entities::spawn) /
    /// [`despawn`](Entities::despawn) for counted churn.
    pub fn ecs_mut(&mut self) -> &mut hecs::World {
        // Any change through it may move entities: a snapshot load then
        // compares the layout handle by handle.
        self.entities.layout_changed();
        &mut self.entities.ecs
    }

    /// Declares `T` part of the deterministic state under its type name
    /// ([`std::any::type_name`]): it enters [`state_hash`](Self::state_hash)
    /// and every snapshot ([`SnapshotRing`](crate::snapshot::SnapshotRing)).
    /// Requires [`StateHash`], which raw floats do not implement.
    /// Idempotent.
    ///
    /// Type names are stable for a pinned toolchain and unchanged code, but
    /// they include module paths: for hashes that must survive refactors
    /// (committed known-answer hashes), use
    /// [`register_hashed_as`](Self::register_hashed_as) with a stable name.
    ///
    /// # Errors
    /// `world/hashed_name_invalid` (InvalidArgument) if `T` is already
    /// registered under another name, or the name is taken by another type.
    pub fn register_hashed<T: Component + StateHash + Clone>(&mut self) -> Result<()> {
        self.register_hashed_as::<T>(type_name::<T>())
    }

    /// Declares `T` part of the deterministic state under the stable key
    /// `name` (hashed into every record of an entity that has `T`, and the
    /// canonical sort key of the component), and in every snapshot (saved
    /// and restored by `Clone`, a memcpy for `Copy` types). Idempotent for
    /// the same name.
    ///
    /// # Errors
    /// `world/hashed_name_invalid` (InvalidArgument, after one rate-limited
    /// warn) for an empty name, a name taken by another type, or `T`
    /// already registered under another name. Nothing changes then.
    pub fn register_hashed_as<T: Component + StateHash + Clone>(
        &mut self,
        name: &'static str,
    ) -> Result<()> {
        let type_id = TypeId::of::<T>();
        let clash = |accepted: &'static str| {
            let err = Error::invalid_argument(
                events::HASHED_NAME_INVALID,
                "name",
                format!("{name:?}"),
                accepted,
            )
            .with_detail(format!("registering {}", type_name::<T>()));
            emit::report(&err);
            Err(err)
        };
        if name.is_empty() {
            return clash("a non-empty name");
        }
        if let Some(existing) = self.hashed.iter().find(|h| h.type_id == type_id) {
            if existing.name == name {
                return Ok(());
            }
            return clash("the name this type is already registered under");
        }
        if self.hashed.iter().any(|h| h.name == name) {
            return clash("a name no other hashed component uses");
        }
        self.hashed.push(HashedComponent {
            type_id,
            name,
            key: KeyStep::new(hash_str(name)),
            hash_column: hash_column::<T>,
        });
        self.hashed.sort_by(|a, b| a.name.cmp(b.name));
        self.snapshot.register_component::<T>(name);
        Ok(())
    }

    /// The names of the hashed components, in canonical (name) order.
    pub fn hashed_components(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.hashed.iter().map(|h| h.name)
    }

    /// The deterministic hash of the tick counter and every hashed
    /// component (the canonical form is in the module docs).
    ///
    /// Must not be called while a query holds a component column uniquely
    /// (hecs would panic on the conflicting borrow).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut scratch = self.hash_scratch.take();
        let records = &mut scratch.records;
        records.clear();
        for archetype in self.entities.ecs.archetypes() {
            let n = archetype.len() as usize;
            if n == 0 {
                continue;
            }
            let start = records.len();
            records.resize(start + n, FNV1A64_OFFSET);
            let mut any = false;
            for component in &self.hashed {
                any |= (component.hash_column)(archetype, &mut records[start..], &component.key);
            }
            if !any {
                records.truncate(start);
            }
        }
        sort_records(records, &mut scratch.sort);
        let mut h = StateHasher::default();
        h.write_u64(self.tick);
        h.write_u64(records.len() as u64);
        for record in records.iter() {
            h.write_u64(*record);
        }
        self.resources.hash_into(&mut h);
        self.hash_scratch.set(scratch);
        h.finish()
    }

    /// Inserts (or replaces) the plain, unhashed resource of type `T`
    /// (see [`resources`](crate::resources)); returns the value it
    /// replaced. A type first inserted hashed stays hashed under its name.
    pub fn insert_resource<T: Send + 'static>(&mut self, value: T) -> Option<T> {
        self.resources.insert(value)
    }

    /// Inserts (or replaces) the resource of type `T` as part of the
    /// deterministic state under the stable `name`: it enters
    /// [`state_hash`](Self::state_hash) and every snapshot (restored by
    /// value on a rollback: `Clone`, as for hashed components). Requires
    /// [`StateHash`], which raw floats do not implement. Returns the value
    /// it replaced.
    ///
    /// # Errors
    /// `world/resource_name_invalid` (InvalidArgument, after one
    /// rate-limited warn) for an empty name, a name another hashed resource
    /// uses, `T` already hashed under another name, or `T` already inserted
    /// as a plain resource. Nothing changes then.
    pub fn insert_hashed_resource<T: StateHash + Clone + Send + 'static>(
        &mut self,
        name: &'static str,
        value: T,
    ) -> Result<Option<T>> {
        self.resources.insert_hashed(name, value)
    }

    /// Removes the resource of type `T` (and its hashed registration).
    pub fn remove_resource<T: 'static>(&mut self) -> Option<T> {
        self.resources.remove::<T>()
    }

    /// The resource of type `T`.
    ///
    /// # Errors
    /// `world/no_such_resource` (InvalidArgument, value = the type name)
    /// when the world holds none.
    pub fn resource<T: 'static>(&self) -> Result<&T> {
        self.resources.get::<T>()
    }

    /// The resource of type `T`, exclusively.
    ///
    /// # Errors
    /// As [`resource`](Self::resource).
    pub fn resource_mut<T: 'static>(&mut self) -> Result<&mut T> {
        self.resources.get_mut::<T>()
    }

    /// Whether the world holds a resource of type `T`.
    #[must_use]
    pub fn contains_resource<T: 'static>(&self) -> bool {
        self.resources.contains::<T>()
    }

    /// The names of the hashed resources, in canonical (name) order.
    pub fn hashed_resources(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.resources.hashed_names()
    }

    /// The input queue: pending events and the last tick's delivered ones
    /// (see [`input`](crate::input)).
    #[must_use]
    pub fn input(&self) -> &InputQueue {
        &self.input
    }

    /// The key, button and pointer state of the last delivered tick (see
    /// [`InputState`]): what the systems of that tick saw through
    /// [`SystemContext::input`]; after a completed tick (in `on_tick`, in
    /// `present`) the state of tick `tick() − 1`.
    #[must_use]
    pub fn input_state(&self) -> &InputState {
        &self.input_state
    }

    /// The input queue, exclusively (pushing events, changing its
    /// capacity). Systems read their tick's events through
    /// [`SystemContext::input`] instead.
    pub fn input_mut(&mut self) -> &mut InputQueue {
        &mut self.input
    }

    /// Opens a new per-frame churn window (closing the previous one). The
    /// game loop calls it once per presentation frame, before the frame's
    /// ticks; without a loop, call it once per frame yourself.
    pub fn begin_frame(&mut self) {
        self.entities.churn.begin_frame();
    }

    /// The churn counters.
    #[must_use]
    pub fn churn_stats(&self) -> ChurnStats {
        self.entities.churn.stats()
    }

    /// The churn budgets.
    #[must_use]
    pub fn churn_budget(&self) -> ChurnBudget {
        self.entities.churn.budget()
    }

    /// Registers a named system with an order key (ascending; ties run in
    /// registration order). Makes every earlier schedule of this world
    /// stale.
    ///
    /// # Errors
    /// `system/name_invalid` (InvalidArgument, after one rate-limited warn)
    /// for an empty or whitespace-padded name, or a name already
    /// registered. Nothing is registered then.
    pub fn register_system<F>(&mut self, name: &'static str, order: i32, system: F) -> Result<()>
    where
        F: FnMut(&mut SystemContext<'_>) -> Result<()> + Send + 'static,
    {
        self.systems.register(name, order, Box::new(system))
    }

    /// The registered systems as `(name, order)`, in registration order.
    pub fn systems(&self) -> impl ExactSizeIterator<Item = (&'static str, i32)> + '_ {
        self.systems.entries.iter().map(|e| (e.name, e.order))
    }

    /// Computes the run order of the registered systems (valid until the
    /// next registration).
    #[must_use]
    pub fn schedule_systems(&self) -> SystemSchedule {
        self.systems.schedule(self.id)
    }

    /// The system names of `schedule`, in run order; empty
    /// when the schedule is not valid for this world.
    pub fn scheduled_names<'a>(
        &'a self,
        schedule: &'a SystemSchedule,
    ) -> impl Iterator<Item = &'static str> + 'a {
        let valid = self.systems.is_valid(self.id, schedule);
        schedule
            .order()
            .iter()
            .filter(move |_| valid)
            .map(|&i| self.systems.entries[i as usize].name)
    }

    /// Runs one tick: delivers the tick's input (every pending event of
    /// [`input`](Self::input) whose tick is `≤ tick()`), runs every system
    /// of `schedule` once, in order, then advances the tick counter.
    ///
    /// # Errors
    /// * `system/schedule_stale` / `system/schedule_invalid`
    ///   (InvalidArgument, rate-limited warn): no system runs, the world is
    ///   untouched.
    /// * A system's own error, unchanged, or `system/system_panicked`
    ///   ([`ErrorCode::Failed`](laige_core::ErrorCode::Failed)) for a caught
    ///   panic: later systems do not run and the tick counter does not
    ///   advance. Neither is logged here: the caller decides what the
    ///   failure means (the engine ends the run and logs it once), and
    ///   [`failed_system`](Self::failed_system) names the system.
    pub fn run_systems(&mut self, schedule: &SystemSchedule) -> Result<()> {
        self.run_tick(schedule, None)
    }

    /// [`run_systems`](Self::run_systems), timing each system into
    /// `profiler` when it is enabled.
    pub(crate) fn run_tick(
        &mut self,
        schedule: &SystemSchedule,
        profiler: Option<&mut Profiler>,
    ) -> Result<()> {
        self.systems.validate(self.id, schedule)?;
        // A span per tick (feature `trace`), the systems' spans inside it.
        #[cfg(feature = "trace")]
        let _span = tracing::info_span!("tick", tick = self.tick).entered();
        // The tick's input, delivered before its first system (input.rs).
        self.input.deliver(self.tick);
        self.input_state.update(self.tick, self.input.delivered());
        self.failed_system = None;
        let ran = run_validated(
            &mut self.systems.entries,
            schedule,
            &mut self.entities,
            &mut self.resources,
            (self.tick, self.tick_grid.start_ns(self.tick)),
            TickInput::new(self.input.delivered(), &self.input_state),
            profiler,
        );
        if let Err((system, err)) = ran {
            self.failed_system = Some(system);
            self.effects_abort_tick();
            return Err(err);
        }
        self.effects_end_tick(self.tick);
        self.tick += 1;
        Ok(())
    }

    /// The system whose error or panic failed the last tick this world
    /// ran, or `None` when that tick did not fail in a system (it
    /// completed, or its schedule was rejected before any system ran).
    /// What a caller that logs the failure names it by.
    #[must_use]
    pub fn failed_system(&self) -> Option<&'static str> {
        self.failed_system
    }
}

/// The entity API ([`Entities`]: spawn, despawn, insert, remove, queries),
/// the same one a system reaches through its
/// [`SystemContext`](crate::SystemContext).
impl Deref for World {
    type Target = Entities;

    fn deref(&self) -> &Entities {
        &self.entities
    }
}

impl DerefMut for World {
    fn deref_mut(&mut self) -> &mut Entities {
        &mut self.entities
    }
}
