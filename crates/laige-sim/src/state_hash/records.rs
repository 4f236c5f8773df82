//! The two costly steps of [`World::state_hash`](crate::World::state_hash)
//! done faster with the same result: FNV-1a over a component's key from any
//! state in one multiply ([`KeyStep`]), and the sort of the per-entity
//! records by their top bits ([`sort_records`]).

use super::{FNV1A64_PRIME, StateHasher};

/// FNV-1a's prime to the 8th power: eight byte steps multiply a state by it.
const PRIME_POW_8: u64 = FNV1A64_PRIME.wrapping_pow(8);

/// FNV-1a 64 over one fixed 8-byte word (a hashed component's key) from
/// any state, in one multiply and one table read instead of eight
/// multiplies, with the same result.
///
/// Why it is exact: a byte step is `s' = (s ^ b) · P` (mod 2⁶⁴). Write
/// `s ^ b = s + d`, where `d` depends only on the low byte of `s` (the xor
/// touches nothing else). So `s' = s·P + d·P`, and the low byte of `s'`
/// depends only on the low bytes of `s` and `b` (a product's low bits come
/// from its factors' low bits). By induction over the eight bytes,
/// `fnv(s, key) = s·P⁸ + C(s mod 256)`, where `C` depends only on the low
/// byte of `s` and on the key: the table holds `C(t) = fnv(t, key) − t·P⁸`
/// for the 256 low bytes `t`.
#[derive(Clone, Debug)]
pub(crate) struct KeyStep {
    table: Box<[u64; 256]>,
}

impl KeyStep {
    /// The step over `key`'s 8 little-endian bytes (2 KiB, made when a
    /// component type is registered).
    pub(crate) fn new(key: u64) -> Self {
        let mut table = Box::new([0_u64; 256]);
        for (t, c) in (0_u64..).zip(table.iter_mut()) {
            let mut h = StateHasher::from_state(t);
            h.write_u64(key);
            *c = h.finish().wrapping_sub(t.wrapping_mul(PRIME_POW_8));
        }
        Self { table }
    }

    /// `state` after FNV-1a over the key's bytes.
    #[inline]
    pub(crate) fn apply(&self, state: u64) -> u64 {
        state
            .wrapping_mul(PRIME_POW_8)
            .wrapping_add(self.table[usize::from(state.to_le_bytes()[0])])
    }
}

/// Fewer records than this are sorted with `sort_unstable` alone.
const BUCKET_MIN: usize = 256;
/// The finishing insertion pass gives up (and `sort_unstable` finishes)
/// once it has moved records this many times the record count: many
/// distinct records sharing their top bits, which FNV-1a records do not.
const MAX_MOVES_PER_RECORD: usize = 8;

/// The scratch of [`sort_records`], kept by the world (grown with the
/// records' buffer; no allocation of its own after).
#[derive(Debug, Default)]
pub(crate) struct SortScratch {
    out: Vec<u64>,
    ends: Vec<u32>,
}

/// Sorts `records` ascending (the same order as `sort_unstable`: equal
/// records are indistinguishable).
///
/// The records are FNV-1a hashes, spread over the `u64` range, so one
/// scatter by their top bits into two to four times as many buckets as
/// records leaves them sorted but for the few that share a bucket, which
/// one insertion pass over the whole array puts in place: a count, a
/// scatter and a mostly well-predicted pass instead of a comparison sort's
/// `n log n` mispredicted branches. Equal records share a bucket without
/// ever being moved; if the pass has to move records many times (distinct
/// records with equal top bits), `sort_unstable` finishes.
pub(crate) fn sort_records(records: &mut Vec<u64>, scratch: &mut SortScratch) {
    let n = records.len();
    if n < BUCKET_MIN {
        records.sort_unstable();
        return;
    }
    // The scratch follows the records' capacity, not their count, so it
    // grows only when the records' buffer does (no allocation of its own
    // while the entity count stays within it). 2..4 buckets per record of
    // capacity: 2^(floor(log2 capacity) + 2), at most 2^26.
    let capacity = records.capacity();
    let bits = (usize::BITS - capacity.leading_zeros() + 1).min(26);
    let shift = 64 - bits;
    let bucket = |r: u64| usize::try_from(r >> shift).unwrap_or(0);
    let ends = &mut scratch.ends;
    ends.clear();
    ends.resize(1 << bits, 0);
    for &r in records.iter() {
        ends[bucket(r)] += 1;
    }
    // Exclusive prefix sums: each bucket's start (its cursor below).
    let mut sum = 0_u32;
    for e in ends.iter_mut() {
        let count = *e;
        *e = sum;
        sum += count;
    }
    let out = &mut scratch.out;
    out.clear();
    if out.capacity() < capacity {
        out.reserve_exact(capacity);
    }
    out.resize(n, 0);
    for &r in records.iter() {
        let cursor = &mut ends[bucket(r)];
        out[*cursor as usize] = r;
        *cursor += 1;
    }
    let mut moves = 0;
    for i in 1..n {
        let r = out[i];
        if r < out[i - 1] {
            let mut j = i;
            while j > 0 && out[j - 1] > r {
                out[j] = out[j - 1];
                j -= 1;
            }
            out[j] = r;
            moves += i - j;
            if moves > MAX_MOVES_PER_RECORD * n {
                out.sort_unstable();
                break;
            }
        }
    }
    std::mem::swap(records, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::SplitMix64;

    #[test]
    fn the_key_step_is_fnv_1a_over_the_key_from_every_low_byte_and_random_states() {
        let mut rng = SplitMix64::new(0x4b65_7953);
        for key in [
            0,
            1,
            u64::MAX,
            0x0123_4567_89ab_cdef,
            rng.next(),
            rng.next(),
        ] {
            let step = KeyStep::new(key);
            for low in 0..=255_u64 {
                for _ in 0..8 {
                    let state = (rng.next() & !0xff) | low;
                    let mut h = StateHasher::from_state(state);
                    h.write_u64(key);
                    assert_eq!(
                        step.apply(state),
                        h.finish(),
                        "key {key:#x} state {state:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn records_sort_as_sort_unstable_does() {
        let mut rng = SplitMix64::new(0x5052_5453);
        let mut scratch = SortScratch::default();
        let few_distinct = |rng: &mut SplitMix64| rng.next() % 3;
        let top_heavy = |rng: &mut SplitMix64| rng.next() | (0xffff << 48);
        for n in [0, 1, 2, 255, 256, 257, 1000, 10_000, 40_000] {
            for kind in 0..5 {
                let mut records: Vec<u64> = (0..n)
                    .map(|i| match kind {
                        0 => rng.next(),
                        1 => few_distinct(&mut rng),
                        2 => top_heavy(&mut rng),
                        3 => (rng.next() >> 20) | (0xabc << 52),
                        _ => u64::try_from(n - i).unwrap_or(0) << 40,
                    })
                    .collect();
                let mut expected = records.clone();
                expected.sort_unstable();
                sort_records(&mut records, &mut scratch);
                assert_eq!(records, expected, "n {n}, kind {kind}");
            }
        }
    }
}
