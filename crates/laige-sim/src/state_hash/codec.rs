//! The canonical encoding as bytes: [`StateWriter`] appends the exact byte
//! stream [`StateHash::hash_state`](super::StateHash::hash_state) feeds the
//! hasher, and [`StateReader`] reads it back, checking every byte it is
//! given (length, tags, ranges) — the value codec of encoded snapshots.
//!
//! One encoding serves both: the FNV-1a 64 of a value's
//! [`encode_state`](super::StateHash::encode_state) bytes is its
//! [`hash_of`](super::hash_of) (a test holds every built-in and derived
//! impl to it), so a decoded value hashes as the one that was encoded.

use std::fmt;

use super::StateHash;
use crate::snapshot::body_sum::{RunningSum, SUM_BATCH};

/// Appends a value's canonical encoding (little-endian integers at their
/// declared width, the module docs of [`StateHash`](super::StateHash)) to
/// a byte buffer.
///
/// ```
/// use laige_sim::{StateHash, StateWriter, hash_of};
/// let mut bytes = Vec::new();
/// (7_u16, Some(true)).encode_state(&mut StateWriter::new(&mut bytes));
/// assert_eq!(bytes, [7, 0, 1, 1]);
/// let mut fnv = laige_sim::StateHasher::default();
/// fnv.write_bytes(&bytes);
/// assert_eq!(fnv.finish(), hash_of(&(7_u16, Some(true))));
/// ```
#[derive(Debug)]
pub struct StateWriter<'a> {
    out: &'a mut Vec<u8>,
    /// The body checksum of an encoded snapshot, summed batch by batch as
    /// the bytes are written (`None`: nothing summed).
    sum: Option<RunningSum>,
}

impl<'a> StateWriter<'a> {
    /// A writer appending to `out` (its contents are kept).
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out, sum: None }
    }

    /// A writer that also sums the bytes from `out[start..]` on (the body
    /// checksum of an encoded snapshot), each bulk batch while it is in
    /// the cache; [`finish_sum`](Self::finish_sum) gives the checksum.
    pub(crate) fn summing(out: &'a mut Vec<u8>, start: usize) -> Self {
        Self {
            out,
            sum: Some(RunningSum::new(start)),
        }
    }

    /// The running sum so far, every written byte caught up to the
    /// last whole stripe (`None` for a writer made by [`new`](Self::new)).
    pub(crate) fn finish_sum(mut self) -> Option<RunningSum> {
        self.catch_up();
        self.sum
    }

    /// Sums the bytes written since the last catch-up.
    #[inline]
    fn catch_up(&mut self) {
        if let Some(sum) = &mut self.sum {
            sum.catch_up(self.out, self.out.len());
        }
    }

    /// Appends raw bytes.
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// Appends one byte.
    #[inline]
    pub fn write_u8(&mut self, v: u8) {
        self.out.push(v);
    }

    /// Appends a `u16`, little-endian.
    #[inline]
    pub fn write_u16(&mut self, v: u16) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// Appends a `u32`, little-endian.
    #[inline]
    pub fn write_u32(&mut self, v: u32) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// Appends a `u64`, little-endian.
    #[inline]
    pub fn write_u64(&mut self, v: u64) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// Appends a `u128`, little-endian.
    #[inline]
    pub fn write_u128(&mut self, v: u128) {
        self.write_bytes(&v.to_le_bytes());
    }

    /// Appends the encoding of every value of `values`, in order: the
    /// bytes of [`encode_state`](StateHash::encode_state) of each, written
    /// through [`encode_fixed`](StateHash::encode_fixed) into a buffer
    /// sized once when `T` has a [`FIXED_SIZE`](StateHash::FIXED_SIZE)
    /// (one little-endian store per field, no per-value length check; the
    /// same code and the same bytes on every target), value by value
    /// otherwise.
    ///
    /// ```
    /// use laige_core::{Fpx16_16, Vec2};
    /// use laige_sim::{StateHash, StateWriter};
    /// let values = [Vec2::new(Fpx16_16::ONE, -Fpx16_16::ONE), Vec2::ZERO];
    /// let (mut bulk, mut each) = (Vec::new(), Vec::new());
    /// StateWriter::new(&mut bulk).write_fixed(&values);
    /// for v in &values {
    ///     v.encode_state(&mut StateWriter::new(&mut each));
    /// }
    /// assert_eq!(bulk, each);
    /// assert_eq!(bulk.len(), 16);
    /// ```
    #[inline]
    pub fn write_fixed<T: StateHash>(&mut self, values: &[T]) {
        if T::FIXED_SIZE == 0 {
            for v in values {
                v.encode_state(self);
            }
            return;
        }
        self.write_chunks(values, T::FIXED_SIZE, T::encode_fixed);
    }

    /// Writes `size` (> 0) bytes per item with `store` (given the item and
    /// its chunk, zeroed), in batches of a few KiB: each batch is sized,
    /// stored and summed (when summing) while it is in the cache.
    #[inline]
    pub(crate) fn write_chunks<T>(
        &mut self,
        items: &[T],
        size: usize,
        store: impl Fn(&T, &mut [u8]),
    ) {
        for batch in items.chunks((SUM_BATCH / size).max(1)) {
            let start = self.out.len();
            self.out.resize(start + batch.len() * size, 0);
            for (v, out) in batch.iter().zip(self.out[start..].chunks_exact_mut(size)) {
                store(v, out);
            }
            self.catch_up();
        }
    }

    /// The bytes written so far, with what the buffer held before.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        self.out
    }
}

/// Why bytes do not decode: where (the byte offset in the reader's input)
/// and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset of the value that failed, from the start of the
    /// reader's input.
    pub offset: usize,
    /// What was wrong there.
    pub kind: DecodeErrorKind,
}

/// What a [`DecodeError`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The input ended inside a value.
    Truncated {
        /// Bytes the value needed.
        needed: usize,
        /// Bytes that were left.
        left: usize,
    },
    /// A value outside what its type accepts (a `bool` of 2, an enum
    /// variant index past the last, a length longer than the input).
    Invalid {
        /// The value's type or role (`bool`, `enum Shape`, `Vec length`).
        what: &'static str,
        /// The value read.
        value: u128,
        /// What the type accepts.
        accepted: &'static str,
    },
    /// The bytes describe another build's world: a type, resource or part
    /// by another name or layout, or another count of them.
    Mismatch {
        /// What differs (`component type`, `hashed resource layout`, …).
        what: &'static str,
        /// What the bytes hold.
        found: String,
        /// What this world has.
        expected: String,
    },
    /// The type has a hand-written `StateHash` without a decoder.
    Unsupported {
        /// The type's name.
        type_name: &'static str,
    },
}

impl DecodeError {
    /// [`DecodeErrorKind::Mismatch`] at `offset`: the bytes hold `found`
    /// where this build has `expected`.
    #[cold]
    #[must_use]
    pub fn mismatch(offset: usize, what: &'static str, found: String, expected: String) -> Self {
        Self {
            offset,
            kind: DecodeErrorKind::Mismatch {
                what,
                found,
                expected,
            },
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            DecodeErrorKind::Truncated { needed, left } => write!(
                f,
                "truncated at byte {}: a value needs {needed} bytes, {left} left",
                self.offset
            ),
            DecodeErrorKind::Invalid {
                what,
                value,
                accepted,
            } => write!(
                f,
                "invalid {what} at byte {}: {value}; accepted: {accepted}",
                self.offset
            ),
            DecodeErrorKind::Mismatch {
                what,
                found,
                expected,
            } => write!(
                f,
                "another build's snapshot at byte {}: {what} {found}; this world has {expected}",
                self.offset
            ),
            DecodeErrorKind::Unsupported { type_name } => write!(
                f,
                "{type_name} cannot be decoded: its StateHash impl is hand-written without decode_state (derive StateHash, or implement encode_state and decode_state)"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Reads a canonical encoding back, value by value, from a byte slice;
/// every read checks that the bytes are there.
///
/// ```
/// use laige_sim::{StateHash, StateReader};
/// let mut r = StateReader::new(&[7, 0, 1, 1]);
/// assert_eq!(<(u16, Option<bool>)>::decode_state(&mut r), Ok((7, Some(true))));
/// assert!(r.is_empty());
/// let mut bad = StateReader::new(&[7, 0, 1, 2]); // a bool of 2
/// assert!(<(u16, Option<bool>)>::decode_state(&mut bad).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct StateReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The body checksum of an encoded snapshot, summed batch by batch as
    /// the bytes are read (`None`: nothing summed).
    sum: Option<RunningSum>,
}

impl<'a> StateReader<'a> {
    /// A reader at the start of `bytes`.
    #[must_use]
    pub fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            sum: None,
        }
    }

    /// A reader that also sums every byte it reads (the body checksum of
    /// an encoded snapshot, `bytes` being the body), each bulk batch
    /// while it is in the cache; [`finish_sum`](Self::finish_sum) gives
    /// the checksum.
    pub(crate) fn summing(bytes: &'a [u8]) -> Self {
        Self {
            sum: Some(RunningSum::new(0)),
            ..Self::new(bytes)
        }
    }

    /// The checksum of the whole input with `flags` (the bytes not read
    /// yet summed now), or `None` for a reader made by [`new`](Self::new).
    pub(crate) fn finish_sum(&self, flags: u16) -> Option<u64> {
        self.sum.map(|s| s.finish(self.bytes, flags))
    }

    /// Sums the bytes read since the last catch-up.
    #[inline]
    pub(crate) fn catch_up(&mut self) {
        if let Some(sum) = &mut self.sum {
            sum.catch_up(self.bytes, self.pos);
        }
    }

    /// The offset of the next byte.
    #[must_use]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The little-endian `u64` at `ahead` bytes past the position, if the
    /// input holds it (nothing is read).
    pub(crate) fn peek_u64(&self, ahead: usize) -> Option<u64> {
        let at = self.pos.checked_add(ahead)?;
        let bytes = self.bytes.get(at..at.checked_add(8)?)?;
        Some(u64::from_le_bytes(bytes.try_into().ok()?))
    }

    /// Bytes not read yet.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Whether every byte was read.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next `n` bytes.
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`] when fewer are left.
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let left = self.remaining();
        if n > left {
            return Err(DecodeError {
                offset: self.pos,
                kind: DecodeErrorKind::Truncated { needed: n, left },
            });
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0; N];
        out.copy_from_slice(self.read_bytes(N)?);
        Ok(out)
    }

    /// One byte.
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`] at the end of the input.
    pub fn read_u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    /// A little-endian `u16`.
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`] when fewer than 2 bytes are left.
    pub fn read_u16(&mut self) -> Result<u16, DecodeError> {
        self.array().map(u16::from_le_bytes)
    }

    /// A little-endian `u32`.
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`] when fewer than 4 bytes are left.
    pub fn read_u32(&mut self) -> Result<u32, DecodeError> {
        self.array().map(u32::from_le_bytes)
    }

    /// A little-endian `u64`.
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`] when fewer than 8 bytes are left.
    pub fn read_u64(&mut self) -> Result<u64, DecodeError> {
        self.array().map(u64::from_le_bytes)
    }

    /// A little-endian `u128`.
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`] when fewer than 16 bytes are left.
    pub fn read_u128(&mut self) -> Result<u128, DecodeError> {
        self.array().map(u128::from_le_bytes)
    }

    /// A length (`u64`) that is at most the bytes left (every element
    /// this encoding counts takes at least one byte, so a longer count
    /// cannot be honest and is refused before anything is reserved).
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`], or [`DecodeErrorKind::Invalid`]
    /// (`what`) for a count past the input.
    pub fn read_len(&mut self, what: &'static str) -> Result<usize, DecodeError> {
        let at = self.pos;
        let n = self.read_u64()?;
        match usize::try_from(n) {
            Ok(n) if n <= self.remaining() => Ok(n),
            _ => Err(DecodeError {
                offset: at,
                kind: DecodeErrorKind::Invalid {
                    what,
                    value: u128::from(n),
                    accepted: "a count no larger than the bytes that follow",
                },
            }),
        }
    }

    /// Reads `n` values and appends them to `into`: through
    /// [`decode_fixed`](StateHash::decode_fixed) in batches of a few KiB
    /// when `T` has a [`FIXED_SIZE`](StateHash::FIXED_SIZE) (the count
    /// bounded by the input once, then per batch every value checked, then
    /// all appended; a type whose every bit pattern is a value skips the
    /// check), value by value through
    /// [`decode_state`](StateHash::decode_state) otherwise and from the
    /// first value that does not decode (so the error names it as
    /// `decode_state` does). Nothing is reserved past what the input can
    /// hold.
    ///
    /// ```
    /// use laige_sim::StateReader;
    /// let mut r = StateReader::new(&[1, 0, 2, 0, 3]);
    /// let mut values: Vec<u16> = Vec::new();
    /// r.read_fixed(2, &mut values).unwrap();
    /// assert_eq!(values, [1, 2]);
    /// assert!(r.read_fixed(1, &mut values).is_err()); // 1 byte left
    /// let mut flags: Vec<bool> = Vec::new();
    /// let err = StateReader::new(&[1, 0, 7]).read_fixed(3, &mut flags).unwrap_err();
    /// assert_eq!(err.offset, 2); // the bool of 7
    /// ```
    ///
    /// # Errors
    /// As [`decode_state`](StateHash::decode_state) of the first value
    /// that does not decode; `into` then holds the values before it.
    pub fn read_fixed<T: StateHash>(
        &mut self,
        n: usize,
        into: &mut Vec<T>,
    ) -> Result<(), DecodeError> {
        let size = T::FIXED_SIZE;
        let len = n
            .checked_mul(size)
            .filter(|&len| size > 0 && len <= self.remaining());
        let mut done = 0;
        if let Some(len) = len {
            let all = self.bytes;
            into.reserve(n);
            // Batch by batch (each checked, appended and summed while it is
            // in the cache), up to the first value that does not decode.
            for bytes in all[self.pos..self.pos + len].chunks((SUM_BATCH / size).max(1) * size) {
                // The values that decode, up to the first that does not (for
                // a type whose every bit pattern is a value this folds away).
                let count = bytes.len() / size;
                let valid = bytes
                    .chunks_exact(size)
                    .position(|b| T::decode_fixed(b).is_none())
                    .unwrap_or(count);
                // `map` over exact chunks has a trusted length: the values
                // are written without a capacity check each.
                into.extend(
                    bytes[..valid * size].chunks_exact(size).map(|b| {
                        T::decode_fixed(b).unwrap_or_else(|| unreachable!("checked above"))
                    }),
                );
                done += valid;
                self.pos += valid * size;
                self.catch_up();
                if valid < count {
                    break;
                }
            }
        } else {
            into.reserve(n.min(self.remaining()));
        }
        for _ in done..n {
            into.push(T::decode_state(self)?);
        }
        Ok(())
    }

    /// An [`DecodeErrorKind::Invalid`] error for a value read at `offset`.
    #[must_use]
    pub fn invalid(
        &self,
        offset: usize,
        what: &'static str,
        value: u128,
        accepted: &'static str,
    ) -> DecodeError {
        DecodeError {
            offset,
            kind: DecodeErrorKind::Invalid {
                what,
                value,
                accepted,
            },
        }
    }

    /// An enum's variant index (`u32`), checked below `count`.
    ///
    /// # Errors
    /// [`DecodeErrorKind::Truncated`], or [`DecodeErrorKind::Invalid`]
    /// (`what`: the enum) for an index of no variant.
    pub fn read_variant(&mut self, what: &'static str, count: u32) -> Result<u32, DecodeError> {
        let at = self.pos;
        let v = self.read_u32()?;
        if v < count {
            Ok(v)
        } else {
            Err(self.invalid(
                at,
                what,
                u128::from(v),
                "the declaration index of one of its variants",
            ))
        }
    }
}
