//! What a snapshot holds: one [`ComponentOps`] per registered component
//! type (filled by the world's hashed-component registration) and one
//! [`PartOps`] per other piece of world state ([`SnapshotPart`]).

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicU64, Ordering};

use hecs::{Archetype, Component, EntityBuilder};

use crate::state_hash::{FieldHashes, StateHash, StateHasher, WordHasher, hash_of};
use crate::world::World;

/// A saved column: the values of one component type, in archetype order,
/// then row order. Its capacity is kept across saves.
pub(crate) trait SavedColumn: Send {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn clear(&mut self);
    fn len(&self) -> usize;
}

impl<T: Clone + Send + 'static> SavedColumn for Vec<T> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn clear(&mut self) {
        Vec::clear(self);
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
}

/// The type-erased snapshot operations of one registered component type.
#[derive(Clone, Copy)]
pub(crate) struct ComponentOps {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
    pub(crate) new_column: fn() -> Box<dyn SavedColumn>,
    /// Appends the archetype's `T` column (if it has one) to the saved
    /// column; `false` if the archetype has no `T`.
    pub(crate) save: fn(&Archetype, &mut dyn SavedColumn) -> bool,
    /// Copies `saved[start..start + archetype.len()]` back over the
    /// archetype's `T` column (same layout as at save).
    pub(crate) load_in_place: fn(&Archetype, &dyn SavedColumn, usize),
    /// Adds `saved[index]` to an entity being rebuilt.
    pub(crate) add_to: fn(&mut EntityBuilder, &dyn SavedColumn, usize),
    /// The [`StateHash`] of `saved[index]` (the canonical FNV-1a hash of
    /// one value: dumps and difference reports).
    pub(crate) value_hash: fn(&dyn SavedColumn, usize) -> u64,
    /// The per-type line of a whole column: every value's
    /// [`StateHash::hash_words`] folded into a [`MultisetHash`], in one
    /// call (one downcast, the per-value hashing inlined).
    pub(crate) column_hash: fn(&dyn SavedColumn) -> MultisetHash,
    /// The field breakdown of `saved[index]` ([`StateHash::hash_fields`]);
    /// `false` for a type without named parts.
    pub(crate) field_hashes: fn(&dyn SavedColumn, usize, &mut FieldHashes) -> bool,
}

fn column<T: 'static>(saved: &dyn SavedColumn) -> &Vec<T> {
    saved
        .as_any()
        .downcast_ref::<Vec<T>>()
        .unwrap_or_else(|| unreachable!("a saved column holds its own type"))
}

fn save_column<T: Component + Clone>(archetype: &Archetype, saved: &mut dyn SavedColumn) -> bool {
    let Some(values) = archetype.get::<&T>() else {
        return false;
    };
    let saved = saved
        .as_any_mut()
        .downcast_mut::<Vec<T>>()
        .unwrap_or_else(|| unreachable!("a saved column holds its own type"));
    // `extend_from_slice` of a `Copy` type is one memcpy.
    saved.extend_from_slice(&values);
    true
}

fn load_column<T: Component + Clone>(archetype: &Archetype, saved: &dyn SavedColumn, start: usize) {
    if let Some(mut values) = archetype.get::<&mut T>() {
        let n = values.len();
        values.clone_from_slice(&column::<T>(saved)[start..start + n]);
    }
}

fn add_value<T: Component + Clone>(
    builder: &mut EntityBuilder,
    saved: &dyn SavedColumn,
    index: usize,
) {
    builder.add(column::<T>(saved)[index].clone());
}

fn value_hash<T: Component + StateHash>(saved: &dyn SavedColumn, index: usize) -> u64 {
    hash_of(&column::<T>(saved)[index])
}

fn column_hash<T: Component + StateHash>(saved: &dyn SavedColumn) -> MultisetHash {
    let mut m = MultisetHash::default();
    for v in column::<T>(saved) {
        let mut h = WordHasher::default();
        v.hash_words(&mut h);
        m.add_sum(h.finish());
    }
    m.count = saved.len() as u64;
    m
}

fn field_hashes<T: Component + StateHash>(
    saved: &dyn SavedColumn,
    index: usize,
    fields: &mut FieldHashes,
) -> bool {
    column::<T>(saved)[index].hash_fields(fields)
}

impl ComponentOps {
    pub(crate) fn of<T: Component + StateHash + Clone>(name: &'static str) -> Self {
        Self {
            type_id: TypeId::of::<T>(),
            name,
            new_column: || Box::new(Vec::<T>::new()),
            save: save_column::<T>,
            load_in_place: load_column::<T>,
            add_to: add_value::<T>,
            value_hash: value_hash::<T>,
            column_hash: column_hash::<T>,
            field_hashes: field_hashes::<T>,
        }
    }
}

/// A piece of world state outside the entities that a snapshot saves and
/// restores (the world's resources, its random generator): registered once
/// with [`World::register_snapshot_part`], then in every snapshot.
///
/// `Saved` is the part's buffer inside each ring slot: it is created once
/// (`Default`) and reused, so a part whose `save` only overwrites values
/// (`clone_from`, `copy_from_slice`) keeps saving allocation-free.
pub trait SnapshotPart: 'static {
    /// The part's stable name (desync reports and dumps name it).
    const NAME: &'static str;
    /// The saved copy of the part.
    type Saved: Default + Send + 'static;
    /// Copies the part's current value from `world` into `saved`.
    fn save(world: &World, saved: &mut Self::Saved);
    /// Restores the part in `world` from `saved`.
    fn load(world: &mut World, saved: &Self::Saved);
    /// The deterministic hash of a saved value (the part's line in the
    /// per-type hashes).
    fn hash(saved: &Self::Saved) -> u64;
}

/// The type-erased operations of one [`SnapshotPart`].
#[derive(Clone, Copy)]
pub(crate) struct PartOps {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
    pub(crate) new_saved: fn() -> Box<dyn Any + Send>,
    pub(crate) save: fn(&World, &mut (dyn Any + Send)),
    pub(crate) load: fn(&mut World, &(dyn Any + Send)),
    pub(crate) hash: fn(&(dyn Any + Send)) -> u64,
}

fn part_saved<P: SnapshotPart>(saved: &(dyn Any + Send)) -> &P::Saved {
    (saved as &dyn Any)
        .downcast_ref::<P::Saved>()
        .unwrap_or_else(|| unreachable!("a saved part holds its own type"))
}

impl PartOps {
    fn of<P: SnapshotPart>() -> Self {
        Self {
            type_id: TypeId::of::<P>(),
            name: P::NAME,
            new_saved: || Box::new(P::Saved::default()),
            save: |world, saved| {
                let saved = (saved as &mut dyn Any)
                    .downcast_mut::<P::Saved>()
                    .unwrap_or_else(|| unreachable!("a saved part holds its own type"));
                P::save(world, saved);
            },
            load: |world, saved| P::load(world, part_saved::<P>(saved)),
            hash: |saved| P::hash(part_saved::<P>(saved)),
        }
    }
}

/// Every component type and part a snapshot of this world holds. Each
/// change takes a new process-unique `generation`, so a ring built earlier
/// (or for another world) refuses to save or load.
#[derive(Default)]
pub(crate) struct SnapshotRegistry {
    pub(crate) components: Vec<ComponentOps>,
    pub(crate) parts: Vec<PartOps>,
    pub(crate) generation: u64,
}

impl SnapshotRegistry {
    /// Adds `T` (called by the world's hashed registration, after its own
    /// checks; idempotent for a type already present).
    pub(crate) fn register_component<T: Component + StateHash + Clone>(
        &mut self,
        name: &'static str,
    ) {
        if self
            .components
            .iter()
            .any(|c| c.type_id == TypeId::of::<T>())
        {
            return;
        }
        self.components.push(ComponentOps::of::<T>(name));
        self.components.sort_by(|a, b| a.name.cmp(b.name));
        self.generation = next_generation();
    }

    pub(crate) fn register_part<P: SnapshotPart>(&mut self) -> bool {
        if self
            .parts
            .iter()
            .any(|p| p.type_id == TypeId::of::<P>() || p.name == P::NAME)
        {
            return false;
        }
        self.parts.push(PartOps::of::<P>());
        self.parts.sort_by(|a, b| a.name.cmp(b.name));
        self.generation = next_generation();
        true
    }

    pub(crate) fn index_of(&self, type_id: TypeId) -> Option<usize> {
        self.components.iter().position(|c| c.type_id == type_id)
    }
}

/// Registry generations, unique in the process (0: nothing registered).
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    // Relaxed: a unique counter, no other memory is published.
    NEXT_GENERATION.fetch_add(1, Ordering::Relaxed)
}

/// The order-independent hash of a multiset of value hashes: a count and a
/// wrapping sum of each value's hash after a bijective finalizer (so equal
/// multisets agree in any row order, and one changed value always changes
/// the sum).
#[derive(Clone, Copy, Default)]
pub(crate) struct MultisetHash {
    count: u64,
    sum: u64,
}

impl MultisetHash {
    /// Adds one value's hash to the sum (the caller sets the count), after
    /// a bijective finalizer (xor-shift, multiply, xor-shift: the word
    /// hash's high bits mixed into its weaker low bits).
    #[inline]
    fn add_sum(&mut self, value: u64) {
        let z = (value ^ (value >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
        self.sum = self.sum.wrapping_add(z ^ (z >> 32));
    }

    pub(crate) fn finish(self, name: &str) -> u64 {
        let mut h = StateHasher::default();
        h.write_bytes(name.as_bytes());
        h.write_u64(self.count);
        h.write_u64(self.sum);
        h.finish()
    }
}
