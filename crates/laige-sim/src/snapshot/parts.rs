//! The snapshot parts every world has beside its components: the hashed
//! resources (the simulation's singletons, the engine's rng among them)
//! and the input state (held keys and buttons, the pointer), so that a
//! rollback restores everything a system can read.

use std::hash::{Hash, Hasher};

use crate::input::InputState;
use crate::resources::{Resources, SavedResources};
use crate::state_hash::{
    DecodeError, FNV1A64_OFFSET, StateHash, StateHasher, StateReader, StateWriter,
};
use crate::world::World;

use super::SnapshotPart;
use super::registry::SnapshotRegistry;

/// Registers the world's own parts (at world construction, before any
/// snapshot exists).
pub(crate) fn register_world_parts(registry: &mut SnapshotRegistry) {
    let resources = registry.register_part::<ResourcesPart>();
    let input = registry.register_part::<InputStatePart>();
    debug_assert!(resources && input, "a new world registers its parts once");
}

/// The hashed resources, saved and restored by value (`clone_from`, no
/// allocation after the first save of each). Plain resources are not
/// simulation state and are not saved. A hashed resource inserted after a
/// save keeps its value when that save is loaded, and one removed after it
/// is not brought back: insert them in setup.
pub(crate) struct ResourcesPart;

impl SnapshotPart for ResourcesPart {
    const NAME: &'static str = "world.resources";
    type Saved = SavedResources;

    fn save(world: &World, saved: &mut SavedResources) {
        world.resources.save_into(saved);
    }

    fn load(world: &mut World, saved: &SavedResources) {
        world.resources.load_from(saved);
    }

    fn hash(saved: &SavedResources) -> u64 {
        Resources::hash_saved(saved)
    }

    const ENCODABLE: bool = true;

    fn encode(saved: &SavedResources, out: &mut StateWriter<'_>) {
        Resources::encode_saved(saved, out);
    }

    fn decode(
        world: &World,
        input: &mut StateReader<'_>,
        saved: &mut SavedResources,
    ) -> Result<(), DecodeError> {
        world.resources.decode_saved(input, saved)
    }

    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"world.resources:u32 count,(name,layout u64,value)*");
    }
}

/// The input state of the last delivered tick (a copy).
pub(crate) struct InputStatePart;

impl SnapshotPart for InputStatePart {
    const NAME: &'static str = "world.input_state";
    type Saved = InputState;

    fn save(world: &World, saved: &mut InputState) {
        *saved = world.input_state;
    }

    fn load(world: &mut World, saved: &InputState) {
        world.input_state = *saved;
    }

    fn hash(saved: &InputState) -> u64 {
        let mut h = LeHasher(StateHasher::from_state(FNV1A64_OFFSET));
        saved.hash(&mut h);
        h.0.finish()
    }

    const ENCODABLE: bool = true;

    fn encode(saved: &InputState, out: &mut StateWriter<'_>) {
        saved.encode_state(out);
    }

    fn decode(
        _world: &World,
        input: &mut StateReader<'_>,
        saved: &mut InputState,
    ) -> Result<(), DecodeError> {
        *saved = InputState::decode_state(input)?;
        Ok(())
    }

    fn hash_layout(hasher: &mut StateHasher) {
        <InputState as StateHash>::hash_layout(hasher);
    }
}

/// `std::hash::Hasher` over the state hasher with every integer written
/// little-endian and `usize`/`isize` as 64 bits: the same bytes on every
/// platform, so the part's hash is too.
struct LeHasher(StateHasher);

impl Hasher for LeHasher {
    fn finish(&self) -> u64 {
        self.0.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write_bytes(bytes);
    }
    fn write_u8(&mut self, i: u8) {
        self.0.write_u8(i);
    }
    fn write_u16(&mut self, i: u16) {
        self.0.write_u16(i);
    }
    fn write_u32(&mut self, i: u32) {
        self.0.write_u32(i);
    }
    fn write_u64(&mut self, i: u64) {
        self.0.write_u64(i);
    }
    fn write_u128(&mut self, i: u128) {
        self.0.write_u128(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.0.write_u64(i as u64);
    }
    fn write_isize(&mut self, i: isize) {
        self.0.write_u64(i as i64 as u64);
    }
}
