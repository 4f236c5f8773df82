//! Resources: typed singletons a [`World`](crate::World) holds beside its
//! entities — a score, the match clock, the simulation's [`SimRng`](crate::SimRng).
//!
//! ```
//! use laige_sim::{StateHash, World};
//!
//! #[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
//! struct Score { left: u32, right: u32 }
//!
//! let mut world = World::default();
//! world.insert_hashed_resource("pong.score", Score::default())?;
//! world.register_system("goal", 0, |ctx| {
//!     ctx.resource_mut::<Score>()?.left += 1;
//!     Ok(())
//! })?;
//! let schedule = world.schedule_systems();
//! let before = world.state_hash();
//! world.run_systems(&schedule)?;
//! assert_eq!(world.resource::<Score>()?.left, 1);
//! assert_ne!(world.state_hash(), before);
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! # Hashed and plain resources
//!
//! A resource inserted with
//! [`insert_hashed_resource`](crate::World::insert_hashed_resource) is part
//! of the deterministic state: it needs [`StateHash`], so a resource with a
//! raw float field does not compile, exactly as for components:
//!
//! ```compile_fail,E0277
//! use laige_sim::{StateHash, World};
//!
//! #[derive(StateHash)]
//! struct Timer { seconds: f32 } // error: `f32` does not implement `StateHash`
//!
//! let mut world = World::default();
//! world.insert_hashed_resource("timer", Timer { seconds: 0.0 }).unwrap();
//! ```
//!
//! A resource inserted with [`insert_resource`](crate::World::insert_resource)
//! is not hashed (caches, handles, anything outside the simulated state)
//! and may hold any `Send + 'static` value. Re-inserting a type replaces
//! its value and keeps how it was first inserted (hashed under its name, or
//! plain).
//!
//! # Cost
//!
//! Lookup is a linear scan of the resource table comparing `TypeId`s —
//! games hold a handful of resources, and a scan of a few entries beats a
//! hash map's hashing. Reads and writes allocate nothing; inserting boxes
//! the value once (a cold call).

use std::any::{Any, TypeId, type_name};

use laige_core::{Error, Result};

use crate::state_hash::{
    DecodeError, FNV1A64_OFFSET, StateHash, StateHasher, StateReader, StateWriter, hash_str,
    layout_hash,
};
use crate::{emit, events};

/// A hashed resource's stable name, its key, its encoder and its snapshot
/// copies.
struct Hashed {
    name: &'static str,
    key: u64,
    hash: fn(&dyn Any, &mut StateHasher),
    save: fn(&dyn Any, &mut Option<Box<dyn Any + Send>>),
    load: fn(&mut dyn Any, &dyn Any),
    codec: ResourceCodec,
}

/// A hashed resource type's byte codec (encoded snapshots).
#[derive(Clone, Copy)]
struct ResourceCodec {
    encodable: bool,
    layout: u64,
    encode: fn(&dyn Any, &mut StateWriter<'_>),
    decode: fn(&mut StateReader<'_>) -> Result<Box<dyn Any + Send>, DecodeError>,
}

impl ResourceCodec {
    fn of<T: StateHash + Send + 'static>() -> Self {
        Self {
            encodable: T::ENCODABLE,
            layout: layout_hash::<T>(),
            encode: |value, out| {
                if let Some(v) = value.downcast_ref::<T>() {
                    v.encode_state(out);
                }
            },
            decode: |input| Ok(Box::new(T::decode_state(input)?)),
        }
    }
}

struct Entry {
    type_id: TypeId,
    type_name: &'static str,
    value: Box<dyn Any + Send>,
    hashed: Option<Hashed>,
}

/// Copies the `T` behind `value` into `slot`: `clone_from` into the copy
/// a previous save left there (no allocation for a `T` that keeps its
/// capacity), a new box only the first time.
fn save_value<T: Clone + Send + 'static>(value: &dyn Any, slot: &mut Option<Box<dyn Any + Send>>) {
    let Some(v) = value.downcast_ref::<T>() else {
        return;
    };
    match slot.as_mut().and_then(|b| b.downcast_mut::<T>()) {
        Some(saved) => saved.clone_from(v),
        None => *slot = Some(Box::new(v.clone())),
    }
}

/// Restores the `T` behind `value` from the `T` behind `saved`.
fn load_value<T: Clone + 'static>(value: &mut dyn Any, saved: &dyn Any) {
    if let (Some(v), Some(s)) = (value.downcast_mut::<T>(), saved.downcast_ref::<T>()) {
        v.clone_from(s);
    }
}

/// One hashed resource in a snapshot: its key, its encoder and its value.
struct SavedResource {
    name: &'static str,
    key: u64,
    hash: fn(&dyn Any, &mut StateHasher),
    codec: ResourceCodec,
    value: Option<Box<dyn Any + Send>>,
}

/// The hashed resources of a world as a snapshot saved them, in name order
/// (the snapshot part `world.resources` keeps one per snapshot slot).
#[derive(Default)]
pub(crate) struct SavedResources {
    slots: Vec<SavedResource>,
}

/// Feeds the `T` behind `value` into `hasher` (`value` is always a `T`:
/// the entry's `TypeId` is `T`'s).
fn hash_value<T: StateHash + 'static>(value: &dyn Any, hasher: &mut StateHasher) {
    if let Some(v) = value.downcast_ref::<T>() {
        v.hash_state(hasher);
    }
}

/// The resource table of one world. Hashed entries are kept sorted by
/// name (the canonical order of the state hash), plain ones after them.
#[derive(Default)]
pub(crate) struct Resources {
    entries: Vec<Entry>,
}

impl Resources {
    fn position<T: 'static>(&self) -> Option<usize> {
        let id = TypeId::of::<T>();
        self.entries.iter().position(|e| e.type_id == id)
    }

    /// Inserts or replaces a plain resource; returns the value it replaced.
    pub(crate) fn insert<T: Send + 'static>(&mut self, value: T) -> Option<T> {
        if let Some(i) = self.position::<T>() {
            let old = std::mem::replace(&mut self.entries[i].value, Box::new(value));
            return old.downcast::<T>().ok().map(|b| *b);
        }
        self.entries.push(Entry {
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>(),
            value: Box::new(value),
            hashed: None,
        });
        self.sort();
        None
    }

    /// Inserts or replaces a hashed resource under `name`.
    pub(crate) fn insert_hashed<T: StateHash + Clone + Send + 'static>(
        &mut self,
        name: &'static str,
        value: T,
    ) -> Result<Option<T>> {
        let clash = |accepted: &'static str| {
            let err = Error::invalid_argument(
                events::RESOURCE_NAME_INVALID,
                "name",
                format!("{name:?}"),
                accepted,
            )
            .with_detail(format!("inserting resource {}", type_name::<T>()));
            emit::report(&err);
            Err(err)
        };
        if name.is_empty() {
            return clash("a non-empty name");
        }
        if let Some(i) = self.position::<T>() {
            return match &self.entries[i].hashed {
                Some(h) if h.name == name => Ok(self.insert(value)),
                Some(_) => clash("the name this resource is already hashed under"),
                None => clash("a type not already inserted as a plain (unhashed) resource"),
            };
        }
        if self
            .entries
            .iter()
            .any(|e| e.hashed.as_ref().is_some_and(|h| h.name == name))
        {
            return clash("a name no other hashed resource uses");
        }
        self.entries.push(Entry {
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>(),
            value: Box::new(value),
            hashed: Some(Hashed {
                name,
                key: hash_str(name),
                hash: hash_value::<T>,
                save: save_value::<T>,
                load: load_value::<T>,
                codec: ResourceCodec::of::<T>(),
            }),
        });
        self.sort();
        Ok(None)
    }

    /// Hashed entries first, by name; plain ones after, by type name.
    fn sort(&mut self) {
        self.entries
            .sort_by(|a, b| match (a.hashed.as_ref(), b.hashed.as_ref()) {
                (Some(x), Some(y)) => x.name.cmp(y.name),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.type_name.cmp(b.type_name),
            });
    }

    pub(crate) fn remove<T: 'static>(&mut self) -> Option<T> {
        let i = self.position::<T>()?;
        self.entries
            .remove(i)
            .value
            .downcast::<T>()
            .ok()
            .map(|b| *b)
    }

    pub(crate) fn get<T: 'static>(&self) -> Result<&T> {
        self.entries
            .iter()
            .find(|e| e.type_id == TypeId::of::<T>())
            .and_then(|e| e.value.downcast_ref::<T>())
            .ok_or_else(missing::<T>)
    }

    pub(crate) fn get_mut<T: 'static>(&mut self) -> Result<&mut T> {
        self.entries
            .iter_mut()
            .find(|e| e.type_id == TypeId::of::<T>())
            .and_then(|e| e.value.downcast_mut::<T>())
            .ok_or_else(missing::<T>)
    }

    /// Two different resources, both exclusively.
    pub(crate) fn get_pair_mut<A: 'static, B: 'static>(&mut self) -> Result<(&mut A, &mut B)> {
        if TypeId::of::<A>() == TypeId::of::<B>() {
            return Err(Error::invalid_argument(
                events::NO_SUCH_RESOURCE,
                "resource pair",
                type_name::<A>(),
                "two different resource types (one type is one resource: use resource_mut)",
            ));
        }
        let a = self.position::<A>().ok_or_else(missing::<A>)?;
        let b = self.position::<B>().ok_or_else(missing::<B>)?;
        // a != b: the types differ, and each type has at most one entry.
        let (low, high) = self.entries.split_at_mut(a.max(b));
        let (ea, eb) = if a < b {
            (&mut low[a], &mut high[0])
        } else {
            (&mut high[0], &mut low[b])
        };
        match (ea.value.downcast_mut::<A>(), eb.value.downcast_mut::<B>()) {
            (Some(x), Some(y)) => Ok((x, y)),
            (None, _) => Err(missing::<A>()),
            (_, None) => Err(missing::<B>()),
        }
    }

    pub(crate) fn contains<T: 'static>(&self) -> bool {
        self.position::<T>().is_some()
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The hashed resources' names, in canonical (name) order.
    pub(crate) fn hashed_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries
            .iter()
            .filter_map(|e| e.hashed.as_ref().map(|h| h.name))
    }

    /// Saves every hashed resource into `saved`, in name order (the slots
    /// grow only when the world holds more hashed resources than before).
    pub(crate) fn save_into(&self, saved: &mut SavedResources) {
        let mut n = 0;
        for entry in &self.entries {
            let Some(hashed) = &entry.hashed else {
                continue;
            };
            if n == saved.slots.len() {
                saved.slots.push(SavedResource {
                    name: hashed.name,
                    key: hashed.key,
                    hash: hashed.hash,
                    codec: hashed.codec,
                    value: None,
                });
            }
            let slot = &mut saved.slots[n];
            if slot.key != hashed.key {
                *slot = SavedResource {
                    name: hashed.name,
                    key: hashed.key,
                    hash: hashed.hash,
                    codec: hashed.codec,
                    value: None,
                };
            }
            (hashed.save)(entry.value.as_ref(), &mut slot.value);
            n += 1;
        }
        saved.slots.truncate(n);
    }

    /// The hash of a saved set: the count, then per resource FNV-1a of its
    /// key and its encoding, in name order.
    pub(crate) fn hash_saved(saved: &SavedResources) -> u64 {
        let mut h = StateHasher::from_state(FNV1A64_OFFSET);
        h.write_u64(saved.slots.len() as u64);
        for slot in &saved.slots {
            let mut record = StateHasher::from_state(FNV1A64_OFFSET);
            record.write_u64(slot.key);
            if let Some(v) = &slot.value {
                (slot.hash)(v.as_ref(), &mut record);
            }
            h.write_u64(record.finish());
        }
        h.finish()
    }

    /// The first hashed resource whose type has no byte codec
    /// ([`StateHash::ENCODABLE`] false): its name and type.
    pub(crate) fn first_unencodable(&self) -> Option<(&'static str, &'static str)> {
        self.entries.iter().find_map(|e| {
            e.hashed
                .as_ref()
                .filter(|h| !h.codec.encodable)
                .map(|h| (h.name, e.type_name))
        })
    }

    /// Appends a saved set's bytes: the count (`u32`), then per resource
    /// in name order its name (`u32` length + UTF-8), its type's layout
    /// hash (`u64`) and its value's encoding. Every resource's type is
    /// encodable (checked before, [`first_unencodable`](Self::first_unencodable)).
    pub(crate) fn encode_saved(saved: &SavedResources, out: &mut StateWriter<'_>) {
        out.write_u32(u32::try_from(saved.slots.len()).unwrap_or(u32::MAX));
        for slot in &saved.slots {
            write_name(out, slot.name);
            out.write_u64(slot.codec.layout);
            if let Some(v) = &slot.value {
                (slot.codec.encode)(v.as_ref(), out);
            }
        }
    }

    /// Reads [`encode_saved`](Self::encode_saved)'s bytes into `saved`:
    /// the resources must be exactly this table's hashed ones (same names,
    /// same layouts), in name order. `self` is not changed.
    pub(crate) fn decode_saved(
        &self,
        input: &mut StateReader<'_>,
        saved: &mut SavedResources,
    ) -> Result<(), DecodeError> {
        let at = input.position();
        let n = input.read_u32()? as usize;
        let ours: Vec<(&Entry, &Hashed)> = self
            .entries
            .iter()
            .filter_map(|e| e.hashed.as_ref().map(|h| (e, h)))
            .collect();
        if n != ours.len() {
            return Err(DecodeError::mismatch(
                at,
                "hashed resource count",
                n.to_string(),
                format!("{} (this world's: {})", ours.len(), names(&ours)),
            ));
        }
        saved.slots.clear();
        for (entry, hashed) in ours {
            let at = input.position();
            let name = read_name(input)?;
            if name != hashed.name {
                return Err(DecodeError::mismatch(
                    at,
                    "hashed resource",
                    name.to_owned(),
                    format!(
                        "`{}` (this world's next resource in name order)",
                        hashed.name
                    ),
                ));
            }
            let layout_at = input.position();
            let layout = input.read_u64()?;
            if layout != hashed.codec.layout {
                return Err(DecodeError::mismatch(
                    layout_at,
                    "hashed resource layout",
                    format!("`{name}` with layout {layout:#018x}"),
                    format!(
                        "{:#018x}, the layout of {} in this build",
                        hashed.codec.layout, entry.type_name
                    ),
                ));
            }
            let value = (hashed.codec.decode)(input)?;
            saved.slots.push(SavedResource {
                name: hashed.name,
                key: hashed.key,
                hash: hashed.hash,
                codec: hashed.codec,
                value: Some(value),
            });
        }
        Ok(())
    }

    /// Restores every hashed resource `saved` holds (matched by name).
    pub(crate) fn load_from(&mut self, saved: &SavedResources) {
        for slot in &saved.slots {
            let Some(value) = &slot.value else {
                continue;
            };
            if let Some(entry) = self
                .entries
                .iter_mut()
                .find(|e| e.hashed.as_ref().is_some_and(|h| h.key == slot.key))
                && let Some(hashed) = &entry.hashed
            {
                (hashed.load)(entry.value.as_mut(), value.as_ref());
            }
        }
    }

    /// Feeds the hashed resources into `h` (step 5 of the canonical form in
    /// the world's docs): nothing when there is none, else their count and
    /// one record per resource, in name order.
    pub(crate) fn hash_into(&self, h: &mut StateHasher) {
        let n = self.entries.iter().filter(|e| e.hashed.is_some()).count();
        if n == 0 {
            return;
        }
        h.write_u64(n as u64);
        for entry in &self.entries {
            let Some(hashed) = &entry.hashed else {
                continue;
            };
            let mut record = StateHasher::from_state(FNV1A64_OFFSET);
            record.write_u64(hashed.key);
            (hashed.hash)(entry.value.as_ref(), &mut record);
            h.write_u64(record.finish());
        }
    }
}

/// `world/no_such_resource`, naming the type (returned, not logged: a
/// query of state, like a missing entity).
#[cold]
fn missing<T>() -> Error {
    Error::invalid_argument(
        events::NO_SUCH_RESOURCE,
        "resource",
        type_name::<T>(),
        "a resource type inserted into this world (World::insert_resource / insert_hashed_resource)",
    )
}

fn names(ours: &[(&Entry, &Hashed)]) -> String {
    let v: Vec<&str> = ours.iter().map(|(_, h)| h.name).collect();
    format!("[{}]", v.join(", "))
}

/// A name as a `u32` byte length and its UTF-8 bytes.
pub(crate) fn write_name(out: &mut StateWriter<'_>, name: &str) {
    out.write_u32(u32::try_from(name.len()).unwrap_or(u32::MAX));
    out.write_bytes(name.as_bytes());
}

/// A name written by [`write_name`] (at most 4 KiB of UTF-8).
pub(crate) fn read_name<'a>(input: &mut StateReader<'a>) -> Result<&'a str, DecodeError> {
    let at = input.position();
    let n = input.read_u32()?;
    if n > 4096 {
        return Err(input.invalid(at, "name length", u128::from(n), "at most 4096 bytes"));
    }
    let bytes = input.read_bytes(n as usize)?;
    std::str::from_utf8(bytes).map_err(|_| input.invalid(at, "name", u128::from(n), "UTF-8 text"))
}
