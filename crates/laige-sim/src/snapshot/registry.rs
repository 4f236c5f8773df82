//! What a snapshot holds: one [`ComponentOps`] per registered component
//! type (filled by the world's hashed-component registration) and one
//! [`PartOps`] per other piece of world state ([`SnapshotPart`]).

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicU64, Ordering};

use hecs::{Archetype, Component, EntityBuilder};
use laige_core::VectorUnit;

use crate::state_hash::{
    DecodeError, DecodeErrorKind, FieldHashes, StateHash, StateHasher, StateReader, StateWriter,
    WordHasher, hash_of, layout_hash,
};
use crate::world::World;

/// A saved column: the values of one component type, in archetype order,
/// then row order. Its capacity is kept across saves.
pub(crate) trait SavedColumn: Send {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn clear(&mut self);
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
    /// `T`'s [`StateHash::ENCODABLE`].
    pub(crate) encodable: bool,
    /// `T`'s [`layout_hash`].
    pub(crate) layout: u64,
    /// Appends every value of the saved column, in order.
    pub(crate) encode: fn(&dyn SavedColumn, &mut StateWriter<'_>),
    /// Decodes `n` values and appends them to the saved column.
    pub(crate) decode:
        fn(&mut dyn SavedColumn, usize, &mut StateReader<'_>) -> Result<(), DecodeError>,
}

fn encode_column<T: Component + StateHash>(saved: &dyn SavedColumn, out: &mut StateWriter<'_>) {
    out.write_fixed(column::<T>(saved));
}

fn decode_column<T: Component + StateHash>(
    saved: &mut dyn SavedColumn,
    n: usize,
    input: &mut StateReader<'_>,
) -> Result<(), DecodeError> {
    let saved = saved
        .as_any_mut()
        .downcast_mut::<Vec<T>>()
        .unwrap_or_else(|| unreachable!("a saved column holds its own type"));
    // Reserves no more than the input can hold.
    input.read_fixed(n, saved)
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
    let values = column::<T>(saved);
    MultisetHash {
        count: values.len() as u64,
        sum: multiset_sum(values),
    }
}

/// The wrapping sum of every value's word hash ([`WordHasher`]) over
/// `values`: the portable loop every build computes the same way (LLVM
/// vectorizes it with the target's baseline vector unit: SSE2 on x86-64,
/// where each word's three multiplies are one `pmuludq` each).
#[inline(always)]
fn portable_sum<T: StateHash>(values: &[T]) -> u64 {
    let mut sum = 0_u64;
    for v in values {
        let mut h = WordHasher::default();
        v.hash_words(&mut h);
        sum = sum.wrapping_add(h.finish());
    }
    sum
}

/// [`portable_sum`] built for the widest vector unit of the CPU
/// ([`VectorUnit`]): AVX-512 (eight lanes) or AVX2 (four lanes) where the
/// CPU has them. The same integer arithmetic, so the same sum on every CPU
/// (a test compares every unit); only its speed depends on the CPU.
#[inline]
fn multiset_sum<T: StateHash>(values: &[T]) -> u64 {
    VectorUnit::widest().run(
        #[inline(always)]
        || portable_sum(values),
    )
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
            encodable: T::ENCODABLE,
            layout: layout_hash::<T>(),
            encode: encode_column::<T>,
            decode: decode_column::<T>,
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

    /// Whether [`encode`](Self::encode) and [`decode`](Self::decode)
    /// implement the part's bytes in an encoded snapshot (the default:
    /// not, and an encoded snapshot of a world with this part is refused,
    /// naming it).
    const ENCODABLE: bool = false;

    /// Appends a saved value's bytes (little-endian, the same on every
    /// platform; [`StateHash::encode_state`] of its fields is the usual
    /// way). Only called where [`ENCODABLE`](Self::ENCODABLE) is `true`.
    fn encode(saved: &Self::Saved, out: &mut StateWriter<'_>) {
        let _ = (saved, out);
    }

    /// Reads what [`encode`](Self::encode) wrote into `saved`, checking
    /// every byte; `world` is the world the snapshot will be loaded into
    /// (what the part may be checked against). Nothing of `world` changes.
    ///
    /// # Errors
    /// A [`DecodeError`]; the default [`DecodeErrorKind::Unsupported`].
    fn decode(
        world: &World,
        input: &mut StateReader<'_>,
        saved: &mut Self::Saved,
    ) -> Result<(), DecodeError> {
        let _ = (world, saved);
        Err(DecodeError {
            offset: input.position(),
            kind: DecodeErrorKind::Unsupported {
                type_name: Self::NAME,
            },
        })
    }

    /// Feeds a description of the bytes' layout into `hasher` (two builds
    /// whose layouts differ refuse each other's snapshots, naming the
    /// part); the default feeds the part's name.
    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(Self::NAME.as_bytes());
    }
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
    pub(crate) encodable: bool,
    pub(crate) layout: u64,
    pub(crate) encode: fn(&(dyn Any + Send), &mut StateWriter<'_>),
    pub(crate) decode:
        fn(&World, &mut StateReader<'_>, &mut (dyn Any + Send)) -> Result<(), DecodeError>,
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
            encodable: P::ENCODABLE,
            layout: {
                let mut h = StateHasher::default();
                P::hash_layout(&mut h);
                h.finish()
            },
            encode: |saved, out| P::encode(part_saved::<P>(saved), out),
            decode: |world, input, saved| {
                let saved = (saved as &mut dyn Any)
                    .downcast_mut::<P::Saved>()
                    .unwrap_or_else(|| unreachable!("a saved part holds its own type"));
                P::decode(world, input, saved)
            },
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

/// The order-independent hash of a multiset of values: a count and a
/// wrapping sum of each value's word hash (so equal multisets agree in any
/// row order). A value's word hash is a bijection of each of its words
/// given the others ([`WordHasher`]), so a value that differs in one word
/// always changes the sum, and [`finish`](Self::finish) is injective in the
/// sum for one name and count.
#[derive(Clone, Copy, Default)]
pub(crate) struct MultisetHash {
    count: u64,
    sum: u64,
}

impl MultisetHash {
    /// The line: the type's name, the count and the sum through a
    /// [`WordHasher`] (the sum last, so the line is a bijection of the sum
    /// for one name and count).
    pub(crate) fn finish(self, name: &str) -> u64 {
        let mut h = WordHasher::default();
        h.write_bytes(name.as_bytes());
        h.write_u64(self.count);
        h.write_u64(self.sum);
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use laige_core::{Fp32Pinned, Fpx16_16, Vec2, Vec3, VectorUnit};

    use super::{MultisetHash, StateHash, multiset_sum, portable_sum};

    /// A deterministic stream of words (splitmix64).
    fn words(n: usize, seed: u64) -> Vec<u64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            })
            .collect()
    }

    #[expect(
        clippy::cast_possible_truncation,
        reason = "the halves of a word, on purpose"
    )]
    fn halves(w: u64) -> (u32, u32) {
        (w as u32, (w >> 32) as u32)
    }

    fn agree<T: StateHash>(what: &str, values: &[T]) {
        let expected = portable_sum(values);
        for unit in VectorUnit::all_here() {
            let sum = unit.run(
                #[inline(always)]
                || portable_sum(values),
            );
            assert_eq!(
                sum,
                expected,
                "{what}, {} values: the {unit:?} build",
                values.len()
            );
        }
        assert_eq!(
            multiset_sum(values),
            expected,
            "{what}: the dispatched build"
        );
    }

    #[test]
    fn every_vector_build_of_the_column_loop_gives_the_portable_sum() {
        // Lengths around every vector width's main loop and remainder.
        for n in [
            0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1_000,
        ] {
            let w = words(n * 3, n as u64);
            let fx: Vec<Vec2<Fpx16_16>> = w
                .iter()
                .map(|&w| {
                    let (x, y) = halves(w);
                    Vec2::new(
                        Fpx16_16::from_raw(x.cast_signed()),
                        Fpx16_16::from_raw(y.cast_signed()),
                    )
                })
                .take(n)
                .collect();
            agree("Vec2<Fpx16_16>", &fx);
            let fp: Vec<Vec2<Fp32Pinned>> = w
                .iter()
                .map(|&w| {
                    let (x, y) = halves(w);
                    Vec2::new(Fp32Pinned::from_bits(x), Fp32Pinned::from_bits(y))
                })
                .take(n)
                .collect();
            agree("Vec2<Fp32Pinned>", &fp);
            let v3: Vec<Vec3<Fpx16_16>> = w
                .chunks_exact(3)
                .map(|c| {
                    let r = |w: u64| Fpx16_16::from_raw(halves(w).0.cast_signed());
                    Vec3::new(r(c[0]), r(c[1]), r(c[2]))
                })
                .collect();
            agree("Vec3<Fpx16_16>", &v3);
            let mixed: Vec<(u8, u64, bool)> = w
                .iter()
                .take(n)
                .map(|&w| (halves(w).0 as u8, w, w & 1 == 1))
                .collect();
            agree("(u8, u64, bool)", &mixed);
            agree("u64", &w[..n]);
        }
        // The sum is the one every value's own term gives.
        let w = words(5, 7);
        let one_by_one = w.iter().fold(0_u64, |s, v| {
            s.wrapping_add(portable_sum(std::slice::from_ref(v)))
        });
        assert_eq!(multiset_sum(&w), one_by_one);
        assert_ne!(one_by_one, 0);
    }

    /// A column's per-type line, as `WorldSnapshot::type_hash` computes it.
    fn line<T: StateHash>(values: &[T]) -> u64 {
        MultisetHash {
            count: values.len() as u64,
            sum: multiset_sum(values),
        }
        .finish("t")
    }

    /// One value's term of the sum.
    fn term<T: StateHash>(value: T) -> u64 {
        portable_sum(&[value])
    }

    fn fx(raw: u64) -> Fpx16_16 {
        Fpx16_16::from_raw(halves(raw).0.cast_signed())
    }

    fn vec2(f: &[u64]) -> Vec2<Fpx16_16> {
        Vec2::new(fx(f[0]), fx(f[1]))
    }

    fn vec3(f: &[u64]) -> Vec3<Fpx16_16> {
        Vec3::new(fx(f[0]), fx(f[1]), fx(f[2]))
    }

    /// Three words: two whole ones and a lone half.
    fn mixed(f: &[u64]) -> (u64, u64, u32) {
        (f[0], f[1], halves(f[2]).0)
    }

    /// `n` values of `widths.len()` random fields each (masked to their
    /// widths in bits).
    fn fields(n: usize, widths: &[u32], seed: u64) -> Vec<Vec<u64>> {
        let w = words(n * widths.len(), seed);
        w.chunks_exact(widths.len())
            .map(|c| {
                c.iter()
                    .zip(widths)
                    .map(|(&v, &bits)| if bits == 64 { v } else { v & ((1 << bits) - 1) })
                    .collect()
            })
            .collect()
    }

    /// Flips every bit of every field of every value of a column, one at a
    /// time, and checks the column's line changes each time.
    fn every_flip_changes_the_line<T: StateHash>(
        what: &str,
        make: fn(&[u64]) -> T,
        widths: &[u32],
    ) {
        let raw = fields(48, widths, 11);
        let mut column: Vec<T> = raw.iter().map(|f| make(f)).collect();
        let base = line(&column);
        for (i, f) in raw.iter().enumerate() {
            for (field, &bits) in widths.iter().enumerate() {
                for bit in 0..bits {
                    let mut g = f.clone();
                    g[field] ^= 1 << bit;
                    column[i] = make(&g);
                    assert_ne!(
                        line(&column),
                        base,
                        "{what}: value {i}, field {field}, bit {bit}"
                    );
                }
            }
            column[i] = make(f);
        }
        assert_eq!(line(&column), base);
    }

    #[test]
    fn one_changed_bit_of_any_word_of_a_value_changes_the_line() {
        // By construction: a value's word hash is a bijection of each word
        // given the others, the sum then changes by a nonzero amount, and
        // the line is a bijection of the sum. Checked on whole columns.
        every_flip_changes_the_line("Vec2<Fpx16_16>", vec2, &[32, 32]);
        every_flip_changes_the_line("Vec3<Fpx16_16>", vec3, &[32, 32, 32]);
        every_flip_changes_the_line("(u64, u64, u32)", mixed, &[64, 64, 32]);
        // And every bit of 10 000 more one-word values (a changed term is a
        // changed sum and line).
        for f in fields(10_000, &[32, 32], 12) {
            let t = term(vec2(&f));
            for bit in 0..64 {
                let mut g = f.clone();
                g[bit / 32] ^= 1 << (bit % 32);
                assert_ne!(term(vec2(&g)), t, "{f:x?}, bit {bit}");
            }
        }
    }

    #[test]
    fn fields_swapped_within_a_value_change_the_line() {
        let raw = fields(64, &[64, 64, 32], 13);
        let base2: Vec<_> = raw.iter().map(|f| vec2(f)).collect();
        let base3: Vec<_> = raw.iter().map(|f| vec3(f)).collect();
        let base_mixed: Vec<_> = raw.iter().map(|f| mixed(f)).collect();
        let (l2, l3, lm) = (line(&base2), line(&base3), line(&base_mixed));
        for (i, f) in raw.iter().enumerate() {
            let mut c = base2.clone();
            c[i] = vec2(&[f[1], f[0]]);
            assert_ne!(line(&c), l2, "Vec2 {i}: x and y swapped");
            for p in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                let mut c = base3.clone();
                c[i] = vec3(&[f[p[0]], f[p[1]], f[p[2]]]);
                assert_ne!(line(&c), l3, "Vec3 {i}: fields as {p:?}");
            }
            let mut c = base_mixed.clone();
            c[i] = mixed(&[f[1], f[0], f[2]]);
            assert_ne!(line(&c), lm, "(u64, u64, u32) {i}: the words swapped");
        }
        // Swapping whole values between rows (or any reordering) is the
        // same multiset: the same line.
        let mut c = base2.clone();
        c.swap(3, 40);
        c.reverse();
        assert_eq!(line(&c), l2);
    }

    #[test]
    fn changes_of_two_values_that_would_cancel_in_a_plain_sum_change_the_line() {
        // A bit set in one value and cleared in another, or one field
        // moved by +d in one value and -d in another (what a physics
        // desync looks like), leaves a plain sum of the words unchanged.
        let raw = fields(400, &[32, 32], 14);
        for pair in raw.chunks_exact(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let before = line(&[vec2(a), vec2(b)]);
            for bit in 0..64 {
                let (field, mask) = (bit / 32, 1_u64 << (bit % 32));
                if (a[field] ^ b[field]) & mask == 0 {
                    continue;
                }
                let (mut a2, mut b2) = (a.clone(), b.clone());
                a2[field] ^= mask;
                b2[field] ^= mask;
                assert_ne!(line(&[vec2(&a2), vec2(&b2)]), before, "bit {bit} moved");
            }
            for field in 0..2 {
                for d in (0..32).map(|k| 1_u64 << k).chain([3, 100, 65_535]) {
                    let (mut a2, mut b2) = (a.clone(), b.clone());
                    a2[field] = a2[field].wrapping_add(d) & 0xffff_ffff;
                    b2[field] = b2[field].wrapping_sub(d) & 0xffff_ffff;
                    assert_ne!(line(&[vec2(&a2), vec2(&b2)]), before, "field {field} +-{d}");
                }
            }
        }
    }

    #[test]
    fn line_known_answers() {
        // Pinned: peers on different platforms (x86-64 with any vector
        // unit, i586, wasm32, big-endian s390x) compare these lines.
        let column: Vec<_> = fields(16, &[32, 32], 15).iter().map(|f| vec2(f)).collect();
        assert_eq!(line(&column), 0xcfbb_2591_7c5e_6a73);
        assert_eq!(line::<Vec2<Fpx16_16>>(&[]), 0x15cb_8e94_addb_3e57);
        let mixed: Vec<_> = fields(5, &[64, 64, 32], 16)
            .iter()
            .map(|f| mixed(f))
            .collect();
        assert_eq!(line(&mixed), 0x6fde_69c1_2bb1_9848);
    }
}
