//! Whole-world snapshots: [`SnapshotRing`], [`WorldSnapshot`],
//! [`SnapshotPart`], the coverage check and the difference report.
//!
#![doc = include_str!("contract.md")]
#![doc = include_str!("bytes.md")]

pub(crate) mod body_sum;
mod bytes;
mod diff;
mod parts;
mod registry;

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use hecs::{Entity, EntityBuilder};
use laige_core::{Error, ErrorCode, Result};

use crate::events;
use crate::world::World;

pub(crate) use bytes::check_encoded;
pub use bytes::{
    MAX_SNAPSHOT_BODY, SNAPSHOT_FLAG_LZ4, SNAPSHOT_FORMAT_VERSION, SNAPSHOT_HEADER_LEN,
    SNAPSHOT_MAGIC, SnapshotCompression,
};
pub use diff::SnapshotDifference;
use diff::describe_entity;
pub(crate) use parts::register_world_parts;
pub use registry::SnapshotPart;
pub(crate) use registry::SnapshotRegistry;
use registry::{ComponentOps, PartOps, SavedColumn};

/// Most slots a [`SnapshotRing`] accepts: 64 (GGRS's default prediction
/// window is 8; a ring of prediction + 2 slots never needs more).
pub const MAX_RING_SLOTS: usize = 64;

/// The registry a ring was built for, shared by its slots.
struct Layout {
    generation: u64,
    components: Vec<ComponentOps>,
    parts: Vec<PartOps>,
}

/// One saved archetype: its position among the world's archetypes, its row
/// count and the registry indices of its component types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SavedArchetype {
    index: u32,
    len: u32,
    types_start: u32,
    types_len: u32,
}

/// One saved world state: the tick, every registered component of every
/// entity (column by column, in the world's archetype and row order), the
/// entity allocator (live handles and hecs's free list), and every
/// registered [`SnapshotPart`].
///
/// Lives in a [`SnapshotRing`] slot and is overwritten in place.
pub struct WorldSnapshot {
    layout: Arc<Layout>,
    filled: bool,
    tick: u64,
    /// Valid when `hashed` ([`SnapshotRing::save_hashed`]).
    state_hash: u64,
    hashed: bool,
    /// The world's identity and entity-layout value at the save
    /// (`World::layout_key`).
    layout_key: (u64, u64),
    entities: Vec<Entity>,
    freelist: Vec<Entity>,
    archetypes: Vec<SavedArchetype>,
    archetype_types: Vec<u16>,
    columns: Vec<Box<dyn SavedColumn>>,
    parts: Vec<Box<dyn Any + Send>>,
    /// A decode's marks of the entity ids it has seen (kept so a warm
    /// decode reuses them).
    id_marks: Vec<u8>,
}

impl fmt::Debug for WorldSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorldSnapshot")
            .field("filled", &self.filled)
            .field("tick", &self.tick)
            .field("state_hash", &format_args!("{:#018x}", self.state_hash))
            .field("entities", &self.entities.len())
            .field("archetypes", &self.archetypes.len())
            .finish_non_exhaustive()
    }
}

impl WorldSnapshot {
    fn new(layout: Arc<Layout>) -> Self {
        Self {
            columns: layout.components.iter().map(|c| (c.new_column)()).collect(),
            parts: layout.parts.iter().map(|p| (p.new_saved)()).collect(),
            layout,
            filled: false,
            tick: 0,
            state_hash: 0,
            hashed: false,
            layout_key: (0, 0),
            entities: Vec::new(),
            freelist: Vec::new(),
            archetypes: Vec::new(),
            archetype_types: Vec::new(),
            id_marks: Vec::new(),
        }
    }

    /// Empties the snapshot for a decode, keeping its column and handle
    /// buffers; its parts start from their defaults (a part's decoder
    /// reads into a fresh value, as it always has).
    fn reset_for_decode(&mut self) {
        self.filled = false;
        self.tick = 0;
        self.state_hash = 0;
        self.hashed = false;
        self.layout_key = (0, 0);
        self.entities.clear();
        self.freelist.clear();
        self.archetypes.clear();
        self.archetype_types.clear();
        for column in &mut self.columns {
            column.clear();
        }
        for (ops, saved) in self.layout.parts.iter().zip(&mut self.parts) {
            *saved = (ops.new_saved)();
        }
    }

    /// Whether the slot holds a saved state.
    #[must_use]
    pub fn is_filled(&self) -> bool {
        self.filled
    }

    /// The saved tick ([`World::tick`]).
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The saved world's [`World::state_hash`] (the session checksum),
    /// when the slot was saved with [`SnapshotRing::save_hashed`]; `None`
    /// after a plain [`save`](SnapshotRing::save), which only copies.
    #[must_use]
    pub fn state_hash(&self) -> Option<u64> {
        self.hashed.then_some(self.state_hash)
    }

    /// The number of saved entities.
    #[must_use]
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// The saved live entity handles, in the world's archetype and row
    /// order.
    #[must_use]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }
}

/// A ring of reusable [`WorldSnapshot`] slots for one world (a rollback
/// session needs max prediction + 2).
///
/// Save and load reuse each slot's buffers: once every slot has held the
/// world at its largest, neither allocates. A load restores the entity
/// allocator exactly (live handles, hecs's free list and its generations),
/// so a rollback across spawns and despawns re-creates the same
/// `hecs::Entity` values, in the same archetype rows.
pub struct SnapshotRing {
    layout: Arc<Layout>,
    slots: Vec<WorldSnapshot>,
    cursors: Vec<usize>,
    builder: EntityBuilder,
    /// The live handles and the free list of the world layout `handles_key`
    /// names, in save order: a save whose world still has that layout
    /// copies them instead of walking every entity again (structural
    /// changes give the world a new layout value, so a stale list is never
    /// reused).
    handles: Vec<Entity>,
    free: Vec<Entity>,
    handles_key: Option<(u64, u64)>,
    /// A rebuilding load's saved live handles in reverse spawn order (the
    /// free list that makes each spawn yield its saved handle).
    spawn_order: Vec<Entity>,
    /// The snapshot a [`decode`](Self::decode) fills before it becomes
    /// the slot (the slot's old buffers become the next decode's): warm
    /// decodes reuse their column and handle buffers.
    spare: Option<WorldSnapshot>,
}

impl fmt::Debug for SnapshotRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SnapshotRing")
            .field("slots", &self.slots.len())
            .field(
                "components",
                &self
                    .layout
                    .components
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>(),
            )
            .field(
                "parts",
                &self.layout.parts.iter().map(|p| p.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl SnapshotRing {
    /// A ring of `slots` empty snapshots for `world`'s registered
    /// component types and parts (register everything first).
    ///
    /// # Errors
    /// `snapshot/ring_invalid` (field `slots`) outside
    /// `1..=`[`MAX_RING_SLOTS`].
    pub fn new(world: &World, slots: usize) -> Result<Self> {
        if !(1..=MAX_RING_SLOTS).contains(&slots) {
            return Err(Error::invalid_argument(
                events::SNAPSHOT_RING_INVALID,
                "slots",
                slots,
                "1..=64 snapshot slots",
            ));
        }
        let registry = &world.snapshot;
        let layout = Arc::new(Layout {
            generation: registry.generation,
            components: registry.components.clone(),
            parts: registry.parts.clone(),
        });
        Ok(Self {
            slots: (0..slots)
                .map(|_| WorldSnapshot::new(layout.clone()))
                .collect(),
            cursors: vec![0; layout.components.len()],
            layout,
            builder: EntityBuilder::new(),
            handles: Vec::new(),
            free: Vec::new(),
            handles_key: None,
            spawn_order: Vec::new(),
            spare: None,
        })
    }

    /// The number of slots.
    #[must_use]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Always `false`: a ring has at least one slot.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The snapshot in `slot`.
    ///
    /// # Errors
    /// `snapshot/slot_invalid` for a slot out of range.
    pub fn get(&self, slot: usize) -> Result<&WorldSnapshot> {
        self.slots
            .get(slot)
            .ok_or_else(|| slot_invalid(slot, "a slot below the ring's length"))
    }

    fn check(&self, world: &World, slot: usize) -> Result<()> {
        if world.snapshot.generation != self.layout.generation {
            return Err(Error::new(ErrorCode::InvalidState, events::SNAPSHOT_REGISTRY_CHANGED)
                .with_detail(
                    "the world's registered components or parts changed after the ring was built; build a new ring",
                ));
        }
        if slot >= self.slots.len() {
            return Err(slot_invalid(slot, "a slot below the ring's length"));
        }
        Ok(())
    }

    /// Saves `world` into `slot` (overwriting it): a copy, no hash (the
    /// slot's [`state_hash`](WorldSnapshot::state_hash) is `None`). A
    /// rollback saves every tick but needs the hash of few of them: use
    /// [`save_hashed`](Self::save_hashed) for those.
    ///
    /// # Errors
    /// `snapshot/registry_changed`, `snapshot/slot_invalid`, or
    /// `snapshot/unregistered_component` when an entity holds a component
    /// type that is not registered (the slot is left empty then).
    pub fn save(&mut self, slot: usize, world: &World) -> Result<()> {
        self.check(world, slot)?;
        let snap = &mut self.slots[slot];
        snap.filled = false;
        snap.hashed = false;
        snap.entities.clear();
        snap.freelist.clear();
        snap.archetypes.clear();
        snap.archetype_types.clear();
        for column in &mut snap.columns {
            column.clear();
        }
        let ecs = world.ecs();
        for (index, archetype) in ecs.archetypes().enumerate() {
            if archetype.is_empty() {
                continue;
            }
            let types_start = snap.archetype_types.len();
            for type_id in archetype.component_types() {
                let Some(t) = index_of(&self.layout.components, type_id) else {
                    return Err(unregistered(world, archetype, type_id));
                };
                snap.archetype_types.push(t);
            }
            for &t in &snap.archetype_types[types_start..] {
                let ops = &self.layout.components[usize::from(t)];
                (ops.save)(archetype, &mut *snap.columns[usize::from(t)]);
            }
            snap.archetypes.push(SavedArchetype {
                index: u32::try_from(index).unwrap_or(u32::MAX),
                len: archetype.len(),
                types_start: u32::try_from(types_start).unwrap_or(u32::MAX),
                types_len: u32::try_from(snap.archetype_types.len() - types_start)
                    .unwrap_or(u32::MAX),
            });
        }
        let key = world.layout_key();
        if self.handles_key != Some(key) {
            self.handles.clear();
            self.handles.extend(ecs.iter().map(|e| e.entity()));
            self.free.clear();
            self.free.extend(ecs.freelist());
            self.handles_key = Some(key);
        }
        snap.entities.extend_from_slice(&self.handles);
        snap.freelist.extend_from_slice(&self.free);
        for (ops, saved) in self.layout.parts.iter().zip(&mut snap.parts) {
            (ops.save)(world, &mut **saved);
        }
        snap.tick = world.tick();
        snap.layout_key = key;
        snap.filled = true;
        Ok(())
    }

    /// [`save`](Self::save), then [`World::state_hash`] (kept in the slot
    /// and returned): the hash walks every hashed value, several times the
    /// copy's cost.
    ///
    /// # Errors
    /// As [`save`](Self::save).
    pub fn save_hashed(&mut self, slot: usize, world: &World) -> Result<u64> {
        self.save(slot, world)?;
        let hash = world.state_hash();
        let snap = &mut self.slots[slot];
        snap.state_hash = hash;
        snap.hashed = true;
        Ok(hash)
    }

    /// Restores `world` to the state in `slot`: the tick, every registered
    /// component of every entity, the entity allocator and every part.
    ///
    /// When the world's entities are laid out as at the save (the same
    /// handles in the same archetype rows: no spawn, despawn or archetype
    /// move since), the values are copied back column by column.
    /// Otherwise every entity is re-spawned at its saved handle, in saved
    /// order (a rollback across structural changes; it reuses the world's
    /// archetype storage).
    ///
    /// Whether the layout is the saved one is known without walking the
    /// entities when nothing that can move an entity happened since the
    /// save or since a load of it (the world's layout value is the saved
    /// one: every spawn, despawn, insert, remove and
    /// [`World::ecs_mut`] replaces it with a value never used before);
    /// otherwise every handle and row is compared.
    ///
    /// # Errors
    /// `snapshot/registry_changed`, or `snapshot/slot_invalid` for a slot
    /// out of range or never saved. The world is untouched then.
    pub fn load(&mut self, slot: usize, world: &mut World) -> Result<()> {
        self.check(world, slot)?;
        let snap = &self.slots[slot];
        if !snap.filled {
            return Err(slot_invalid(slot, "a slot that holds a saved snapshot"));
        }
        self.cursors.fill(0);
        let same_layout = world.layout_key() == snap.layout_key;
        let ecs = world.ecs_mut();
        if same_layout || layout_matches(ecs, snap) {
            let mut archetypes = ecs.archetypes().enumerate();
            for a in &snap.archetypes {
                let Some((_, archetype)) = archetypes.find(|(i, _)| *i == a.index as usize) else {
                    break;
                };
                for &t in &snap.archetype_types
                    [a.types_start as usize..(a.types_start + a.types_len) as usize]
                {
                    let t = usize::from(t);
                    (self.layout.components[t].load_in_place)(
                        archetype,
                        &*snap.columns[t],
                        self.cursors[t],
                    );
                    self.cursors[t] += a.len as usize;
                }
            }
        } else {
            let mut rebuild = Rebuild {
                components: &self.layout.components,
                builder: &mut self.builder,
                cursors: &mut self.cursors,
                spawn_order: &mut self.spawn_order,
                snap,
            };
            if !rebuild.by_free_list(ecs) {
                rebuild.by_handle(ecs);
            }
        }
        ecs.set_freelist(&snap.freelist);
        world.restore_layout_key(snap.layout_key);
        world.tick = snap.tick;
        for (ops, saved) in self.layout.parts.iter().zip(&snap.parts) {
            (ops.load)(world, &**saved);
        }
        Ok(())
    }
}

/// A load that re-spawns every saved entity, in saved archetype and row
/// order, at its saved handle.
struct Rebuild<'a> {
    components: &'a [ComponentOps],
    builder: &'a mut EntityBuilder,
    cursors: &'a mut [usize],
    spawn_order: &'a mut Vec<Entity>,
    snap: &'a WorldSnapshot,
}

impl Rebuild<'_> {
    /// Spawns every entity, in order, through `spawn`: one value per type
    /// into the builder, then `spawn(handle, builder)`.
    fn each(&mut self, mut spawn: impl FnMut(Entity, &mut EntityBuilder) -> bool) -> bool {
        self.cursors.fill(0);
        let snap = self.snap;
        let mut next_entity = 0_usize;
        for a in &snap.archetypes {
            let types = &snap.archetype_types
                [a.types_start as usize..(a.types_start + a.types_len) as usize];
            for row in 0..a.len as usize {
                for &t in types {
                    let t = usize::from(t);
                    (self.components[t].add_to)(
                        self.builder,
                        &*snap.columns[t],
                        self.cursors[t] + row,
                    );
                }
                if !spawn(snap.entities[next_entity], self.builder) {
                    self.builder.clear();
                    return false;
                }
                next_entity += 1;
            }
            for &t in types {
                self.cursors[usize::from(t)] += a.len as usize;
            }
        }
        true
    }

    /// The fast rebuild: the saved live handles, last first, become the
    /// world's free list, so each plain spawn yields the next saved handle
    /// (`spawn_at` would search the free list once per entity: quadratic
    /// in the entity count). Every handle is checked; `false` (the world
    /// cleared again) if the allocator handed out another one.
    fn by_free_list(&mut self, ecs: &mut hecs::World) -> bool {
        ecs.clear();
        self.spawn_order.clear();
        self.spawn_order.extend(self.snap.entities.iter().rev());
        ecs.set_freelist(self.spawn_order);
        let done = self.each(|want, builder| ecs.spawn(builder.build()) == want);
        if !done {
            ecs.clear();
        }
        done
    }

    /// The rebuild by `spawn_at` (hecs's documented way to place a handle).
    fn by_handle(&mut self, ecs: &mut hecs::World) {
        ecs.clear();
        self.each(|want, builder| {
            ecs.spawn_at(want, builder.build());
            true
        });
    }
}

/// Whether the world's live entities sit exactly where the snapshot saved
/// them: the same non-empty archetypes with the same lengths, and the same
/// handles in the same rows.
fn layout_matches(ecs: &hecs::World, snap: &WorldSnapshot) -> bool {
    if ecs.len() as usize != snap.entities.len() {
        return false;
    }
    let mut saved = snap.archetypes.iter();
    for (index, archetype) in ecs.archetypes().enumerate() {
        if archetype.is_empty() {
            continue;
        }
        match saved.next() {
            Some(a) if a.index as usize == index && a.len == archetype.len() => {}
            _ => return false,
        }
    }
    saved.next().is_none()
        && ecs
            .iter()
            .map(|e| e.entity())
            .eq(snap.entities.iter().copied())
}

fn index_of(components: &[ComponentOps], type_id: std::any::TypeId) -> Option<u16> {
    components
        .iter()
        .position(|c| c.type_id == type_id)
        .and_then(|i| u16::try_from(i).ok())
}

#[cold]
fn slot_invalid(slot: usize, accepted: &'static str) -> Error {
    Error::invalid_argument(events::SNAPSHOT_SLOT_INVALID, "slot", slot, accepted)
}

#[cold]
fn unregistered(world: &World, archetype: &hecs::Archetype, type_id: std::any::TypeId) -> Error {
    let registry = &world.snapshot;
    let beside: Vec<&str> = archetype
        .component_types()
        .filter_map(|t| registry.index_of(t).map(|i| registry.components[i].name))
        .collect();
    let entity = archetype.ids().first().and_then(|&id| {
        world
            .ecs()
            .iter()
            .map(|e| e.entity())
            .find(|e| e.id() == id)
    });
    Error::invalid_argument(
        events::SNAPSHOT_UNREGISTERED_COMPONENT,
        "component",
        format!("{type_id:?}"),
        "a component type registered on the world (World::register_hashed_as)",
    )
    .with_detail(format!(
        "held by {} entities (first {}) beside [{}]; a snapshot would lose it: register it, or keep it out of the simulated world",
        archetype.len(),
        entity.map_or_else(|| "?".to_owned(), |e| describe_entity(e.to_bits().get())),
        beside.join(", ")
    ))
}

impl World {
    /// Checks that a snapshot of this world loses nothing: every component
    /// type present on any entity is registered. A session calls it before
    /// its first tick.
    ///
    /// # Errors
    /// `snapshot/unregistered_component` (field `component`: the type's id;
    /// detail: how many entities hold it, one of them, and the registered
    /// components beside it).
    pub fn check_snapshot_coverage(&self) -> Result<()> {
        for archetype in self.ecs().archetypes() {
            if archetype.is_empty() {
                continue;
            }
            for type_id in archetype.component_types() {
                if self.snapshot.index_of(type_id).is_none() {
                    return Err(unregistered(self, archetype, type_id));
                }
            }
        }
        Ok(())
    }

    /// Adds a piece of world state outside the entities to every snapshot
    /// of this world (build rings after registering).
    ///
    /// # Errors
    /// `snapshot/part_invalid` (field `part`) when `P` or its name is
    /// already registered.
    pub fn register_snapshot_part<P: SnapshotPart>(&mut self) -> Result<()> {
        if self.snapshot.register_part::<P>() {
            Ok(())
        } else {
            Err(Error::invalid_argument(
                events::SNAPSHOT_PART_INVALID,
                "part",
                P::NAME,
                "a part type and name not registered before",
            ))
        }
    }

    /// The names of the registered snapshot parts, in name order.
    pub fn snapshot_parts(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.snapshot.parts.iter().map(|p| p.name)
    }
}
