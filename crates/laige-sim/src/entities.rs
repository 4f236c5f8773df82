//! [`Entities`]: the entity store and its one API, shared by
//! [`World`](crate::World) (setup, and code outside the systems) and
//! [`SystemContext`](crate::SystemContext) (inside a system).
//!
//! Both dereference to the same `Entities`, so `world.spawn(..)` and
//! `ctx.spawn(..)` are one method: spawns and despawns are counted by the
//! churn guardrails wherever they happen, and every failure names the same
//! event id.

use hecs::{
    Bundle, Component, ComponentError, DynamicBundle, Entity, Query, QueryBorrow, QueryIter,
};
use laige_core::{Error, Result};

use crate::events;
use crate::guardrails::ChurnGuard;

/// Entities and their components (hecs inside), with spawns and despawns
/// counted against the per-frame churn budgets
/// ([`ChurnBudget`](crate::ChurnBudget)).
///
/// Reached through a [`World`](crate::World) or a
/// [`SystemContext`](crate::SystemContext) (both dereference to it).
/// Queries are hecs's: [`query_mut`](Self::query_mut) for exclusive
/// iteration (the fast path: no dynamic borrow checks, hecs's per-world
/// archetype-match cache), [`query`](Self::query) for shared, dynamically
/// checked borrows.
pub struct Entities {
    pub(crate) ecs: hecs::World,
    pub(crate) churn: ChurnGuard,
    /// Names the entity layout (which handles sit in which archetype
    /// rows): replaced by a never-used value on every change that can
    /// alter it, so two equal values mean the same layout (a snapshot
    /// load compares it instead of walking every handle).
    pub(crate) layout: u64,
    /// The next never-used layout value (only grows).
    next_layout: u64,
}

impl Entities {
    pub(crate) fn new(churn: ChurnGuard) -> Self {
        Self {
            ecs: hecs::World::new(),
            churn,
            layout: 0,
            next_layout: 1,
        }
    }

    /// Marks the layout changed: a value no earlier layout had.
    pub(crate) fn layout_changed(&mut self) {
        self.layout = self.next_layout;
        self.next_layout += 1;
    }

    /// Read access to the hecs world (shared queries, lookups).
    #[must_use]
    pub fn ecs(&self) -> &hecs::World {
        &self.ecs
    }

    /// Number of live entities.
    #[must_use]
    pub fn len(&self) -> u32 {
        self.ecs.len()
    }

    /// Whether there is no entity.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ecs.is_empty()
    }

    /// Spawns an entity (counted against the spawn budget once the first
    /// frame has begun).
    pub fn spawn(&mut self, components: impl DynamicBundle) -> Entity {
        self.churn.on_spawn();
        self.layout_changed();
        self.ecs.spawn(components)
    }

    /// Despawns an entity (counted against the despawn budget).
    ///
    /// # Errors
    /// `world/no_such_entity` (InvalidArgument) if it is not alive
    /// (nothing counted).
    pub fn despawn(&mut self, entity: Entity) -> Result<()> {
        match self.ecs.despawn(entity) {
            Ok(()) => {
                self.churn.on_despawn();
                self.layout_changed();
                Ok(())
            }
            Err(_) => Err(no_such_entity(entity)),
        }
    }

    /// Adds (or replaces) components on a live entity.
    ///
    /// # Errors
    /// `world/no_such_entity` if it is not alive.
    pub fn insert(&mut self, entity: Entity, components: impl DynamicBundle) -> Result<()> {
        self.layout_changed();
        self.ecs
            .insert(entity, components)
            .map_err(|_| no_such_entity(entity))
    }

    /// Removes and returns a bundle of components.
    ///
    /// # Errors
    /// `world/no_such_entity` or `world/missing_component`.
    pub fn remove<T: Bundle + 'static>(&mut self, entity: Entity) -> Result<T> {
        self.layout_changed();
        self.ecs.remove::<T>(entity).map_err(|e| match e {
            ComponentError::NoSuchEntity => no_such_entity(entity),
            ComponentError::MissingComponent(m) => Error::invalid_argument(
                events::MISSING_COMPONENT,
                "entity",
                format!("{entity:?}"),
                "an entity that has every component of the bundle",
            )
            .with_detail(m.to_string()),
        })
    }

    /// Whether the entity is alive.
    #[must_use]
    pub fn contains(&self, entity: Entity) -> bool {
        self.ecs.contains(entity)
    }

    /// A copy of one component, if the entity is alive and has it.
    #[must_use]
    pub fn get_copied<T: Component + Copy>(&self, entity: Entity) -> Option<T> {
        self.ecs.get::<&T>(entity).ok().map(|r| *r)
    }

    /// A shared, dynamically borrow-checked query (`&T` and `&mut T` both
    /// allowed; see hecs). Iterate it with `.iter()`.
    ///
    /// Debug builds warm hecs's per-world query cache for `Q` here, outside
    /// the tick's allocation window (see [`query_mut`](Self::query_mut)).
    pub fn query<Q: Query>(&self) -> QueryBorrow<'_, Q> {
        #[cfg(debug_assertions)]
        {
            let _ecs_bookkeeping = laige_core::alloc_watch::suspend();
            drop(self.ecs.query::<Q>().iter());
        }
        self.ecs.query::<Q>()
    }

    /// An exclusive query, ready to iterate (no dynamic borrow checks).
    /// Filter with hecs's `With`/`Without`/`Or` query types.
    ///
    /// hecs keeps a per-world cache of which archetypes match each query
    /// type and rebuilds it (allocating) on a query type's first use and
    /// after the archetype set changed. That rebuild is the ECS's own
    /// bookkeeping, not the system's heap use, so it runs here with the
    /// allocation watch suspended: a steady-state tick that queries
    /// allocates nothing, and the first tick is not a false positive of the
    /// no-allocation-per-tick check.
    pub fn query_mut<Q: Query>(&mut self) -> QueryIter<'_, Q> {
        #[cfg(debug_assertions)]
        let _ecs_bookkeeping = laige_core::alloc_watch::suspend();
        self.ecs.query_mut::<Q>().into_iter()
    }

    /// Exclusive access to one entity's components
    /// (`ctx.query_one_mut::<&mut Pos>(e)`); `None` if the entity is dead
    /// or lacks a component.
    pub fn query_one_mut<Q: Query>(&mut self, entity: Entity) -> Option<Q::Item<'_>> {
        self.ecs.query_one_mut::<Q>(entity).ok()
    }
}

#[cold]
fn no_such_entity(entity: Entity) -> Error {
    Error::invalid_argument(
        events::NO_SUCH_ENTITY,
        "entity",
        format!("{entity:?}"),
        "a live entity",
    )
}
