//! The deterministic state hash: [`StateHash`], [`StateHasher`] and
//! `#[derive(StateHash)]`.
//!
//! Every component that belongs to the deterministic simulation state
//! implements [`StateHash`]: it feeds a canonical byte encoding of itself
//! into a [`StateHasher`]. [`World::state_hash`](crate::World::state_hash)
//! combines those per entity into one `u64` that two runs of the same
//! simulation must agree on bit for bit (replays, `cargo xtask detcheck`).
//!
//! # The encoding
//!
//! * The hasher is **FNV-1a 64** (offset basis `0xcbf2_9ce4_8422_2325`,
//!   prime `0x0000_0100_0000_01b3`) over bytes. It has no seed and no
//!   per-process state — unlike `std`'s `RandomState`, which is randomized
//!   per process on purpose and therefore useless here.
//! * Integers: little-endian, at their declared width; `usize`/`isize` as
//!   64-bit (the value, not the platform width, is the state); `bool` one
//!   byte `0`/`1`; `char` its `u32` scalar value.
//! * `Fpx16_16`: its raw `i32`; `Fp32Pinned`: its bits with every NaN
//!   canonicalized ([`SimScalar::to_hash_bits`](laige_core::SimScalar)) —
//!   Rust leaves a NaN's sign and payload unspecified, so two builds may
//!   produce different NaN bits for the same computation.
//! * `Vec2`/`Vec3`: the components in order; arrays: the elements in order
//!   (the length is part of the type); slices and `Vec`: the length as a
//!   `u64`, then the elements; `Option`: a tag byte (`0` none, `1` some)
//!   then the value; tuples: the elements in order.
//! * Derived structs: the fields in declaration order; derived enums: the
//!   variant's declaration index as `u32`, then its fields.
//!
//! # Per-type lines and field breakdowns
//!
//! Snapshots keep one hash per component type per saved tick (a desync
//! report's data, folded into a network session's checksum). Those lines
//! hash the same canonical encoding a word at a time
//! ([`StateHash::hash_words`] into a [`WordHasher`]: every integer of the
//! encoding one `u64` word, so the line is platform-independent too) —
//! several times cheaper than byte-wise FNV-1a, and never mixed with the
//! canonical state hash above, which stays FNV-1a. A desync report breaks
//! a differing value down by field ([`StateHash::hash_fields`] into
//! [`FieldHashes`]); `#[derive(StateHash)]` provides both, and a
//! hand-written impl gets working defaults (its state hash as one word; no
//! field names).
//!
//! # Floats do not hash
//!
//! `f32` and `f64` deliberately do **not** implement [`StateHash`], so a sim
//! component with a raw float field does not compile:
//!
//! ```compile_fail,E0277
//! use laige_sim::StateHash;
//!
//! #[derive(StateHash)]
//! struct Position {
//!     x: f32, // error: the trait `StateHash` is not implemented for `f32`
//!     y: f32,
//! }
//! ```
//!
//! The same component written with SimMath scalars compiles:
//!
//! ```
//! use laige_core::Fpx16_16;
//! use laige_sim::{StateHash, StateHasher};
//!
//! #[derive(StateHash)]
//! struct Position {
//!     x: Fpx16_16,
//!     y: Fpx16_16,
//! }
//!
//! let mut h = StateHasher::default();
//! Position { x: Fpx16_16::ONE, y: Fpx16_16::ZERO }.hash_state(&mut h);
//! assert_ne!(h.finish(), StateHasher::default().finish());
//! ```

mod codec;
mod impls;
mod records;

pub use codec::{DecodeError, DecodeErrorKind, StateReader, StateWriter};
pub(crate) use records::{KeyStep, SortScratch, sort_records};

/// The FNV-1a 64 offset basis: the hasher's initial state.
pub const FNV1A64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// The FNV-1a 64 prime.
pub const FNV1A64_PRIME: u64 = 0x0000_0100_0000_01b3;

/// A deterministic FNV-1a 64 hasher: no seed, no per-process state, the
/// same bytes give the same hash on every platform and in every build.
///
/// ```
/// use laige_sim::StateHasher;
/// let mut h = StateHasher::default();
/// h.write_bytes(b"a");
/// assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c); // the published FNV-1a 64 of "a"
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateHasher {
    state: u64,
}

impl Default for StateHasher {
    fn default() -> Self {
        Self {
            state: FNV1A64_OFFSET,
        }
    }
}

impl StateHasher {
    /// Resumes hashing from a state previously returned by
    /// [`finish`](Self::finish) (FNV-1a's state is its output, so a stream
    /// can be split: hashing `a` then resuming to hash `b` equals hashing
    /// `a ++ b`).
    #[must_use]
    pub const fn from_state(state: u64) -> Self {
        Self { state }
    }

    /// Feeds raw bytes.
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        let mut s = self.state;
        for &b in bytes {
            s ^= u64::from(b);
            s = s.wrapping_mul(FNV1A64_PRIME);
        }
        self.state = s;
    }

    /// Feeds one byte.
    #[inline]
    pub fn write_u8(&mut self, v: u8) {
        self.write_bytes(&[v]);
    }

    /// Feeds a `u16`, little-endian.
    #[inline]
    pub fn write_u16(&mut self, v: u16) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// Feeds a `u32`, little-endian.
    #[inline]
    pub fn write_u32(&mut self, v: u32) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// Feeds a `u64`, little-endian.
    #[inline]
    pub fn write_u64(&mut self, v: u64) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// Feeds a `u128`, little-endian.
    #[inline]
    pub fn write_u128(&mut self, v: u128) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// The hash of everything fed so far (the hasher stays usable).
    #[must_use]
    pub const fn finish(&self) -> u64 {
        self.state
    }
}

/// A value that is part of the deterministic simulation state.
///
/// Implement it with `#[derive(StateHash)]` (fields in declaration order);
/// hand-written impls must feed a canonical encoding (see the module docs):
/// equal logical values must feed equal bytes on every platform.
///
/// Not implemented for `f32`/`f64`, on purpose: see the module docs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not deterministic simulation state: it does not implement `StateHash`",
    label = "not hashable sim state",
    note = "sim state is SimMath only: use `Fpx16_16`/`Fp32Pinned` (or integers) instead of raw `f32`/`f64`; see the laige_sim::World docs"
)]
pub trait StateHash {
    /// Feeds this value's canonical encoding into `hasher`.
    fn hash_state(&self, hasher: &mut StateHasher);

    /// Feeds the same canonical encoding, a word at a time, into the
    /// per-type lines' [`WordHasher`] (snapshots' per-type hashes, the
    /// session checksum's buckets). Derived and built-in impls feed each
    /// integer as a word (values of 32 bits or less as half words, paired);
    /// the default feeds the value's
    /// [`hash_state`](Self::hash_state) hash as one word, so a hand-written
    /// impl needs nothing more (it is only slower).
    #[inline]
    fn hash_words(&self, hasher: &mut WordHasher) {
        hasher.write_u64(hash_of(self));
    }

    /// Reports this value's fields, by name, into `fields` (a desync
    /// report's field breakdown; a cold path that allocates) and returns
    /// `true`; `false` for a value without named parts (an integer, a
    /// scalar, a hand-written impl), which is reported whole. Derived
    /// impls report every field (`name`, or the index of a tuple field;
    /// an enum's variant name first), nested derived fields as a path
    /// (`velocity.x`).
    fn hash_fields(&self, fields: &mut FieldHashes) -> bool {
        let _ = fields;
        false
    }

    /// The value as short text without spaces, for a report that names a
    /// differing field with both values (`1.5`, `-3`, `true`); `None`
    /// (the default) for a type that does not say. The built-in integers,
    /// `bool`, `char`, `Fpx16_16` (its exact decimal) and `Fp32Pinned`
    /// say. A cold path.
    fn value_text(&self) -> Option<String> {
        None
    }

    /// Whether [`encode_state`](Self::encode_state) and
    /// [`decode_state`](Self::decode_state) implement the encoding:
    /// `true` for the built-in impls and derived impls whose fields all
    /// are; `false` (the default) for a hand-written impl that does not
    /// provide them. An encoded snapshot refuses a type without it (an
    /// error naming the type) before writing anything.
    const ENCODABLE: bool = false;

    /// Appends the canonical encoding to `out`: exactly the bytes
    /// [`hash_state`](Self::hash_state) feeds (the FNV-1a 64 of what it
    /// writes is [`hash_of`] the value). The default writes nothing; it is
    /// only called where [`ENCODABLE`](Self::ENCODABLE) is `true`.
    #[inline]
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        let _ = out;
    }

    /// Reads a value written by [`encode_state`](Self::encode_state),
    /// checking every byte (truncation, tags, ranges).
    ///
    /// # Errors
    /// A [`DecodeError`] naming the offset and what was wrong; the
    /// default (a hand-written impl without a decoder)
    /// [`DecodeErrorKind::Unsupported`].
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError>
    where
        Self: Sized,
    {
        Err(DecodeError {
            offset: input.position(),
            kind: DecodeErrorKind::Unsupported {
                type_name: std::any::type_name::<Self>(),
            },
        })
    }

    /// The length in bytes of every value's encoding when it is the same
    /// for every value of the type (the integers, `bool`, `char`, the
    /// scalars, `Vec2`/`Vec3`, tuples of such types, and
    /// derived structs whose fields all have one); 0 (the default) when it
    /// varies or the type does not say. Where it is not 0,
    /// [`encode_fixed`](Self::encode_fixed) and
    /// [`decode_fixed`](Self::decode_fixed) must write and read exactly
    /// the bytes of [`encode_state`](Self::encode_state): an encoded
    /// snapshot then writes and reads a whole column through them at once
    /// ([`StateWriter::write_fixed`], [`StateReader::read_fixed`]: the
    /// buffer sized once, no per-value length checks).
    const FIXED_SIZE: usize = 0;

    /// Writes the encoding into `out`, which is exactly
    /// [`FIXED_SIZE`](Self::FIXED_SIZE) bytes long: the bytes
    /// [`encode_state`](Self::encode_state) appends. Only called where
    /// `FIXED_SIZE` is not 0; the default writes nothing.
    #[inline]
    fn encode_fixed(&self, out: &mut [u8]) {
        let _ = out;
    }

    /// Reads a value from exactly [`FIXED_SIZE`](Self::FIXED_SIZE)
    /// bytes; `None` for bytes that are no value of the type (a `bool` of
    /// 2): [`decode_state`](Self::decode_state) of the same bytes then
    /// names what is wrong. Only called where `FIXED_SIZE` is not 0; the
    /// default is `None` (every value read through `decode_state`).
    #[inline]
    fn decode_fixed(bytes: &[u8]) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = bytes;
        None
    }

    /// Feeds a description of the type's encoding (its name, its fields'
    /// names and their layouts, in order) into `hasher`: two builds whose
    /// layout hashes of a type differ cannot read each other's encoding
    /// of it. The default feeds the type's name.
    fn hash_layout(hasher: &mut StateHasher)
    where
        Self: Sized,
    {
        hasher.write_bytes(std::any::type_name::<Self>().as_bytes());
    }
}

/// The layout hash of `T` ([`StateHash::hash_layout`] on a fresh hasher).
#[must_use]
pub fn layout_hash<T: StateHash>() -> u64 {
    let mut h = StateHasher::default();
    T::hash_layout(&mut h);
    h.finish()
}

/// The [`StateHash::FIXED_SIZE`] of a value made of fields whose fixed
/// sizes are `sizes`, in order: their sum, or 0 when one of them is 0 (or
/// there are none).
#[doc(hidden)]
#[must_use]
pub const fn fixed_size_of(sizes: &[usize]) -> usize {
    let mut sum = 0_usize;
    let mut i = 0;
    while i < sizes.len() {
        if sizes[i] == 0 {
            return 0;
        }
        sum += sizes[i];
        i += 1;
    }
    sum
}

/// Decodes one `T` from all of `bytes` (nothing may follow it).
///
/// # Errors
/// As [`StateHash::decode_state`], or [`DecodeErrorKind::Invalid`] for
/// bytes left over.
pub fn decode_exact<T: StateHash>(bytes: &[u8]) -> Result<T, DecodeError> {
    let mut r = StateReader::new(bytes);
    let v = T::decode_state(&mut r)?;
    if r.is_empty() {
        Ok(v)
    } else {
        Err(r.invalid(
            r.position(),
            "trailing bytes",
            r.remaining() as u128,
            "nothing after the value",
        ))
    }
}

/// The per-type lines' hasher: the canonical encoding a word at a time,
/// with no seed, no per-process state and no dependence on the platform's
/// width or byte order (every word is an integer value, never memory).
///
/// Values of 32 bits or less ([`write_u32`](Self::write_u32): scalars,
/// small integers, tags) are paired into one 64-bit word, the first in the
/// low half; a lone half (before a 64-bit write, or at the end) is a word
/// of its own. Each word `w` updates the state `s` to
/// `mix(s.rotate_left(26) ^ w)`, where `mix` is a bijection of 64-bit words
/// built only from what SSE2, AVX2 and wasm SIMD do natively (32×32→64-bit
/// unsigned multiplies, 64-bit adds, xors and shifts; no 64×64-bit
/// multiply): three multiply-adds `x + (x mod 2³²) · e` (`e` even, so the
/// low half is multiplied by the odd `e + 1` and the high half gains the
/// product's carry: invertible) with `x ^ (x >> 32)` between them. For a
/// fixed state the update is a bijection of the word, and for a fixed word
/// a bijection of the state, so two encodings of one type that differ in
/// one word always hash differently. It is a different function from
/// [`StateHasher`]'s FNV-1a (which stays the canonical state hash): a
/// per-type line is only ever compared with the same line computed the
/// same way on another peer or snapshot.
///
/// ```
/// use laige_sim::{StateHash, WordHasher};
/// let mut a = WordHasher::default();
/// (1_u32, 2_u32).hash_words(&mut a);
/// let mut b = WordHasher::default();
/// b.write_u64(1 | 2 << 32);
/// assert_eq!(a.finish(), b.finish()); // two halves, one word
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordHasher {
    state: u64,
    half: Option<u32>,
}

/// [`WordHasher`]'s initial state (the first 64 fraction bits of pi).
const WORD_SEED: u64 = 0x243f_6a88_85a3_08d3;
/// [`word_mix`]'s three multipliers, each even and below 2³² (the low half
/// is multiplied by the odd `e + 1`): well-known odd 32-bit hash
/// multipliers, less one.
const WORD_MIX: [u64; 3] = [0x9e37_79b8, 0x85eb_ca6a, 0xc2b2_ae34];

/// [`WordHasher`]'s per-word bijection of 64-bit words: three
/// multiply-adds with `x ^ (x >> 32)` between them (see [`WordHasher`]).
/// Every operation is one that SSE2, AVX2 and wasm SIMD have for 64-bit
/// lanes (`pmuludq`, `paddq`, `psrlq`, `pxor`), so a column of values
/// vectorizes without 64×64-bit multiplies.
#[inline(always)]
#[must_use]
pub(crate) fn word_mix(word: u64) -> u64 {
    let x = mul_add_low(word, WORD_MIX[0]);
    let x = mul_add_low(x ^ (x >> 32), WORD_MIX[1]);
    mul_add_low(x ^ (x >> 32), WORD_MIX[2])
}

/// `x + (x mod 2³²) · e` (wrapping) for an even `e` below 2³²: one
/// 32×32→64-bit multiply. A bijection: the low half becomes the low half
/// times the odd `e + 1` (mod 2³²), the high half gains the product's
/// upper bits, which the low half determines.
#[inline(always)]
fn mul_add_low(x: u64, e: u64) -> u64 {
    x.wrapping_add((x & 0xffff_ffff) * e)
}

impl Default for WordHasher {
    fn default() -> Self {
        Self {
            state: WORD_SEED,
            half: None,
        }
    }
}

impl WordHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.state = word_mix(self.state.rotate_left(26) ^ word);
    }

    #[inline]
    fn flush(&mut self) {
        if let Some(low) = self.half.take() {
            self.mix(u64::from(low));
        }
    }

    /// Feeds a value of 32 bits or less: the low half of the next word,
    /// or its high half when a low half waits.
    #[inline]
    pub fn write_u32(&mut self, v: u32) {
        match self.half.take() {
            None => self.half = Some(v),
            Some(low) => self.mix(u64::from(low) | (u64::from(v) << 32)),
        }
    }

    /// Feeds one word (after a waiting half, as a word of its own).
    #[inline]
    pub fn write_u64(&mut self, word: u64) {
        self.flush();
        self.mix(word);
    }

    /// Feeds a `u128` as two words, low first.
    #[inline]
    pub fn write_u128(&mut self, v: u128) {
        #[allow(clippy::cast_possible_truncation, reason = "the low word, on purpose")]
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }

    /// Feeds bytes: their count, then 8 at a time as little-endian words
    /// (the last one zero-padded).
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.write_u64(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0_u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0_u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w));
        }
    }

    /// The hash of everything fed so far (a waiting half included; the
    /// hasher stays usable).
    #[inline]
    #[must_use]
    pub fn finish(&self) -> u64 {
        let mut end = *self;
        end.flush();
        end.state
    }
}

/// A value's field breakdown for a desync report: `(path, hash)` per
/// field, paths joined with `.` (`0.x`, `velocity.y`, `Seek.target.x`),
/// each hash the field's [`hash_of`]. Filled by
/// [`StateHash::hash_fields`]; a cold path (it allocates).
///
/// ```
/// use laige_core::{Fpx16_16, Vec2};
/// use laige_sim::{FieldHashes, StateHash};
///
/// #[derive(StateHash)]
/// struct Body {
///     velocity: Vec2<Fpx16_16>,
///     mass: u8,
/// }
///
/// let body = Body { velocity: Vec2::new(Fpx16_16::ONE, Fpx16_16::ZERO), mass: 3 };
/// let fields = FieldHashes::of(&body).unwrap();
/// let paths: Vec<&str> = fields.iter().map(|(p, _)| p.as_str()).collect();
/// assert_eq!(paths, ["velocity.x", "velocity.y", "mass"]);
/// assert!(FieldHashes::of(&3_u8).is_none()); // no named parts
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldHashes {
    path: String,
    fields: Vec<(String, u64)>,
    /// Each field's [`StateHash::value_text`], beside `fields`.
    texts: Vec<Option<String>>,
}

impl FieldHashes {
    /// The breakdown of `value`, or `None` when it has no named parts.
    #[must_use]
    pub fn of<T: StateHash + ?Sized>(value: &T) -> Option<Vec<(String, u64)>> {
        let mut f = Self::default();
        value.hash_fields(&mut f).then_some(f.fields)
    }

    /// Reports the field `name` of the value being broken down: its own
    /// fields under `name.` when it has named parts, else its hash.
    pub fn field<T: StateHash + ?Sized>(&mut self, name: &str, value: &T) {
        let len = self.enter(name);
        if !value.hash_fields(self) {
            self.fields.push((self.path.clone(), hash_of(value)));
            self.texts.push(value.value_text());
        }
        self.path.truncate(len);
    }

    /// Reports the enum variant `name`: the fields `report` adds go under
    /// `name.`; a variant without fields is reported as `name` itself.
    pub fn variant(&mut self, name: &str, report: impl FnOnce(&mut Self)) {
        let len = self.enter(name);
        let before = self.fields.len();
        report(self);
        if self.fields.len() == before {
            self.fields.push((self.path.clone(), hash_of(&())));
            self.texts.push(None);
        }
        self.path.truncate(len);
    }

    /// The `(path, hash)` pairs reported so far, in report order.
    #[must_use]
    pub fn into_fields(self) -> Vec<(String, u64)> {
        self.fields
    }

    /// The `(path, hash, value text)` of every field reported so far, in
    /// report order (the text where the field's type says one:
    /// [`StateHash::value_text`]).
    #[must_use]
    pub fn into_entries(self) -> Vec<(String, u64, Option<String>)> {
        self.fields
            .into_iter()
            .zip(self.texts)
            .map(|((p, h), t)| (p, h, t))
            .collect()
    }

    fn enter(&mut self, name: &str) -> usize {
        let len = self.path.len();
        if len > 0 {
            self.path.push('.');
        }
        self.path.push_str(name);
        len
    }
}

/// Hashes one value on a fresh hasher: `hash_of(&v)` is
/// `{ let mut h = StateHasher::default(); v.hash_state(&mut h); h.finish() }`.
#[must_use]
pub fn hash_of<T: StateHash + ?Sized>(value: &T) -> u64 {
    let mut h = StateHasher::default();
    value.hash_state(&mut h);
    h.finish()
}

/// The FNV-1a 64 hash of a string's UTF-8 bytes (used for component keys).
#[must_use]
pub(crate) fn hash_str(s: &str) -> u64 {
    let mut h = StateHasher::default();
    h.write_bytes(s.as_bytes());
    h.finish()
}

#[cfg(test)]
mod tests {
    use laige_core::math::{Fp32Pinned, Fpx16_16, Vec2, Vec3};

    use super::*;
    use crate::StateHash as DeriveStateHash;

    #[test]
    fn fnv1a64_matches_published_vectors() {
        assert_eq!(hash_str(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash_str("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash_str("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn integers_hash_little_endian_at_declared_width() {
        let mut a = StateHasher::default();
        0x0102_0304_u32.hash_state(&mut a);
        let mut b = StateHasher::default();
        b.write_bytes(&[4, 3, 2, 1]);
        assert_eq!(a, b);
        assert_ne!(hash_of(&1_u32), hash_of(&1_u64));
        assert_eq!(hash_of(&-1_i32), hash_of(&u32::MAX));
        assert_eq!(hash_of(&7_usize), hash_of(&7_u64));
    }

    #[test]
    fn split_stream_resumes() {
        let mut whole = StateHasher::default();
        whole.write_bytes(b"abcdef");
        let mut first = StateHasher::default();
        first.write_bytes(b"abc");
        let mut rest = StateHasher::from_state(first.finish());
        rest.write_bytes(b"def");
        assert_eq!(whole.finish(), rest.finish());
    }

    #[test]
    fn pinned_nan_hashes_canonically() {
        let quiet = Fp32Pinned::from_bits(0x7fc0_0000);
        let negative_payload = Fp32Pinned::from_bits(0xffc0_1234);
        assert_eq!(hash_of(&quiet), hash_of(&negative_payload));
        assert_eq!(hash_of(&quiet), hash_of(&0x7fc0_0000_u32));
        assert_ne!(
            hash_of(&Fp32Pinned::from_bits(0x3f80_0000)),
            hash_of(&quiet)
        );
        // Signed zeros are distinct values with distinct bits.
        assert_ne!(
            hash_of(&Fp32Pinned::from_bits(0)),
            hash_of(&Fp32Pinned::from_bits(0x8000_0000))
        );
    }

    #[test]
    fn fixed_point_hashes_raw_bits() {
        assert_eq!(
            hash_of(&Fpx16_16::from_raw(0x0001_8000)),
            hash_of(&0x0001_8000_i32)
        );
        let v = Vec2::new(Fpx16_16::ONE, Fpx16_16::ZERO);
        assert_eq!(hash_of(&v), hash_of(&(Fpx16_16::ONE, Fpx16_16::ZERO)));
        let w = Vec3::new(Fpx16_16::ONE, Fpx16_16::ZERO, Fpx16_16::ONE);
        assert_eq!(hash_of(&w), hash_of(&[65_536_i32, 0, 65_536]));
    }

    #[test]
    fn options_slices_and_arrays_are_distinguished() {
        assert_ne!(hash_of(&None::<u8>), hash_of(&Some(0_u8)));
        assert_ne!(hash_of(&vec![1_u8]), hash_of(&[1_u8]));
        assert_ne!(hash_of(&vec![0_u8; 0]), hash_of(&()));
        assert_eq!(hash_of(&[1_u8, 2]), hash_of(&(1_u8, 2_u8)));
    }

    fn words_of<T: StateHash + ?Sized>(v: &T) -> u64 {
        let mut h = WordHasher::default();
        v.hash_words(&mut h);
        h.finish()
    }

    /// The inverse of [`word_mix`], step by step: each multiply-add undone
    /// by the inverse of `e + 1` modulo 2³², each xor-shift by itself.
    fn word_unmix(y: u64) -> u64 {
        fn inverse_mod_2_32(odd: u64) -> u64 {
            // Newton's iteration: each step doubles the correct low bits.
            let mut inv = odd;
            for _ in 0..5 {
                inv = inv.wrapping_mul(2_u64.wrapping_sub(odd.wrapping_mul(inv)));
            }
            inv & 0xffff_ffff
        }
        let mut x = y;
        for (i, &e) in WORD_MIX.iter().enumerate().rev() {
            let low = ((x & 0xffff_ffff) * inverse_mod_2_32(e + 1)) & 0xffff_ffff;
            x = x.wrapping_sub(low * e);
            if i > 0 {
                x ^= x >> 32;
            }
        }
        x
    }

    #[test]
    fn the_word_mix_is_a_bijection() {
        // Each multiplier is even and below 2^32 (what makes a
        // multiply-add invertible and one 32x32->64-bit multiply).
        assert!(WORD_MIX.iter().all(|&e| e % 2 == 0 && e < 1 << 32));
        // Inverted exactly: so a word hash is a bijection of each word.
        let mut s = 0_u64;
        let mut edges = vec![0, 1, u64::MAX, 1 << 63, 0xffff_ffff, 1 << 32];
        edges.extend((0..64).map(|b| 1_u64 << b));
        for w in edges.into_iter().chain((0..100_000).map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            (s ^ (s >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9)
        })) {
            assert_eq!(word_unmix(word_mix(w)), w, "{w:#x}");
        }
    }

    #[test]
    fn word_hash_known_answers() {
        // Pinned values: the per-type lines are compared between peers on
        // different platforms, so they must not change with the platform.
        let v = Vec2::new(Fpx16_16::ONE, Fpx16_16::from_raw(-1));
        assert_eq!(words_of(&v), 0x8cfa_99d9_ee04_139f);
        let mut h = WordHasher::default();
        h.write_bytes(b"abc");
        assert_eq!(h.finish(), 0x7939_311b_9143_1dba);
    }

    #[test]
    fn word_hash_sees_each_word_and_its_position() {
        assert_ne!(words_of(&(1_u32, 2_u32)), words_of(&(2_u32, 1_u32)));
        assert_ne!(words_of(&None::<u8>), words_of(&Some(0_u8)));
        assert_eq!(words_of(&-1_i32), words_of(&u32::MAX));
        assert_eq!(words_of(&7_usize), words_of(&7_u64));
        assert_eq!(words_of(&true), words_of(&1_u8));
        assert_ne!(words_of(&vec![0_u8; 0]), words_of(&()));
        // A hand-written impl falls back to its state hash as one word.
        struct Hand;
        impl StateHash for Hand {
            fn hash_state(&self, hasher: &mut StateHasher) {
                hasher.write_u8(9);
            }
        }
        assert_eq!(words_of(&Hand), words_of(&hash_of(&9_u8)));
        // A lone half is a word of its own; two halves pair up.
        assert_eq!(words_of(&7_u32), words_of(&7_u64));
        assert_ne!(words_of(&(0_u32, 7_u32)), words_of(&(7_u32, 0_u32)));
    }

    #[test]
    fn derived_word_hashes_follow_the_fields() {
        assert_eq!(words_of(&Named { a: 5, b: true }), words_of(&(5_u32, true)));
        assert_eq!(
            words_of(&Shape::Circle { r: Fpx16_16::ONE }),
            words_of(&(1_u32, 65_536_i32))
        );
        assert_eq!(words_of(&Shape::Dot), words_of(&0_u32));
    }

    #[derive(DeriveStateHash)]
    struct Named {
        a: u32,
        b: bool,
    }

    #[derive(DeriveStateHash)]
    struct Tuple(u32, bool);

    #[derive(DeriveStateHash)]
    struct Unit;

    #[derive(DeriveStateHash)]
    enum Shape {
        Dot,
        Circle { r: Fpx16_16 },
        Pair(u8, u8),
    }

    #[derive(DeriveStateHash)]
    struct Generic<S> {
        v: Vec2<S>,
    }

    #[test]
    fn derive_feeds_fields_in_declaration_order() {
        let named = hash_of(&Named { a: 5, b: true });
        let tuple = hash_of(&Tuple(5, true));
        assert_eq!(named, tuple);
        assert_eq!(named, hash_of(&(5_u32, true)));
        assert_ne!(named, hash_of(&Named { a: 5, b: false }));
        assert_eq!(hash_of(&Unit), StateHasher::default().finish());
    }

    #[test]
    fn derive_enum_tags_variants_by_index() {
        assert_eq!(hash_of(&Shape::Dot), hash_of(&0_u32));
        assert_eq!(
            hash_of(&Shape::Circle { r: Fpx16_16::ONE }),
            hash_of(&(1_u32, 65_536_i32))
        );
        assert_eq!(hash_of(&Shape::Pair(1, 2)), hash_of(&(2_u32, 1_u8, 2_u8)));
        assert_ne!(hash_of(&Shape::Pair(1, 2)), hash_of(&Shape::Pair(2, 1)));
    }

    #[test]
    fn derive_bounds_generic_parameters() {
        let g = Generic {
            v: Vec2::new(Fpx16_16::ONE, Fpx16_16::from_raw(3)),
        };
        assert_eq!(hash_of(&g), hash_of(&(65_536_i32, 3_i32)));
        let p = Generic {
            v: Vec2::new(Fp32Pinned::from_bits(1), Fp32Pinned::from_bits(2)),
        };
        assert_eq!(hash_of(&p), hash_of(&(1_u32, 2_u32)));
    }
}
