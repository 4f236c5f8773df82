//! [`SimRng`]: the seeded, deterministic random generator of the
//! simulation.
//!
//! The generator is **xoshiro256++** (Blackman and Vigna, "Scrambled
//! linear pseudorandom number generators", 2021; the reference C code is
//! public domain): 256 bits of state, period 2^256 − 1, passes BigCrush
//! and PractRand, and costs a few integer ops per draw. The state is
//! filled from a 64-bit seed by **SplitMix64** (the seeding the authors
//! recommend), so every seed — 0 included — gives a valid, well-mixed
//! state. Both algorithms are fixed here: a seed gives the same sequence
//! on every platform, build and version of laige (the tests pin the
//! reference outputs), which is what replays and lockstep need.
//!
//! **Streams.** [`SimRng::stream`] derives an independent generator per
//! purpose from the seed and a name (`"spawn"`, `"loot"`, …): the name's
//! FNV-1a 64 hash is mixed into the seed through SplitMix64. Adding a new
//! consumer of randomness then changes no other stream's sequence.
//!
//! **Ranges** have no modulo bias: integers by Lemire's multiply-and-reject
//! ([`below`](SimRng::below)), scalars by the backend's exact rule
//! ([`next_in`](SimRng::next_in); Q16.16: every raw value equally likely).
//!
//! The generator is plain state: `Clone`, `PartialEq`, and [`StateHash`]
//! (its four state words), so a world that holds it as a resource hashes
//! it with everything else.
//!
//! ```
//! use laige_core::Fpx16_16;
//! use laige_sim::SimRng;
//!
//! let mut spawn = SimRng::new(42).stream("spawn");
//! let x: Fpx16_16 = spawn.next_in(Fpx16_16::from_i32(-10), Fpx16_16::from_i32(10));
//! assert!(x >= Fpx16_16::from_i32(-10) && x < Fpx16_16::from_i32(10));
//! let die = spawn.range_i32(1, 7); // 1..=6
//! assert!((1..7).contains(&die));
//! // Same seed, same name: the same sequence, everywhere.
//! let mut again = SimRng::new(42).stream("spawn");
//! assert_eq!(again.next_in(Fpx16_16::from_i32(-10), Fpx16_16::from_i32(10)), x);
//! ```

use laige_core::SimScalar;

use crate::state_hash::{DecodeError, StateHash, StateHasher, StateReader, StateWriter};

/// A seeded xoshiro256++ generator (see the module docs): deterministic,
/// platform-independent, cheap to clone and hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimRng {
    s: [u64; 4],
}

/// One SplitMix64 step: advances `state` and returns the mixed output.
#[inline]
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a 64 of `bytes` (the stream name hash).
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl SimRng {
    /// The generator of `seed`: its state is four SplitMix64 outputs of
    /// the seed (never all zero).
    #[must_use]
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Self::from_state(s)
    }

    /// The generator with exactly this state (e.g. restored from a
    /// snapshot). The all-zero state, the one state xoshiro cannot leave,
    /// is replaced by the state of seed 0.
    #[must_use]
    pub fn from_state(s: [u64; 4]) -> Self {
        if s == [0; 4] {
            return Self::new(0);
        }
        Self { s }
    }

    /// The current state (for snapshots; [`from_state`](Self::from_state)
    /// restores it).
    #[must_use]
    pub fn state(&self) -> [u64; 4] {
        self.s
    }

    /// An independent generator for one purpose, derived from this
    /// generator's **current state** and `name` (this generator does not
    /// advance). Derive streams once, right after seeding, so each stream
    /// depends only on the seed and its name.
    #[must_use]
    pub fn stream(&self, name: &str) -> Self {
        let mut sm = self.s[0]
            ^ self.s[1].rotate_left(17)
            ^ self.s[2].rotate_left(31)
            ^ self.s[3].rotate_left(47)
            ^ fnv1a64(name.as_bytes());
        Self::new(splitmix64(&mut sm))
    }

    /// The next 64 random bits (xoshiro256++).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// The next 32 random bits (the high half of a 64-bit draw, the better
    /// mixed one).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A uniform integer in `0..n`, without modulo bias (Lemire's
    /// multiply-and-reject; usually one draw). `n = 0` gives 0 without
    /// drawing.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform integer in `lo..hi` (half-open), unbiased; `hi <= lo`
    /// gives `lo` without drawing.
    #[inline]
    pub fn range_i32(&mut self, lo: i32, hi: i32) -> i32 {
        if hi <= lo {
            return lo;
        }
        let span = (i64::from(hi) - i64::from(lo)) as u64;
        (i64::from(lo) + self.below(span) as i64) as i32
    }

    /// `true` with probability exactly `num / den` (`num >= den` always,
    /// `num = 0` or `den = 0` never).
    #[inline]
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        if den == 0 || num == 0 {
            return false;
        }
        num >= den || self.below(u64::from(den)) < u64::from(num)
    }

    /// A scalar in `[lo, hi)` on either backend, without bias (Q16.16:
    /// every raw value in the range equally likely; binary32: a uniform
    /// multiple of `2^−24` of the span — see
    /// [`SimScalar::uniform_in`]). An empty range gives `lo`.
    #[inline]
    pub fn next_in<S: SimScalar>(&mut self, lo: S, hi: S) -> S {
        S::uniform_in(lo, hi, |n| self.below(n))
    }
}

impl StateHash for SimRng {
    /// The four state words in order.
    fn hash_state(&self, hasher: &mut StateHasher) {
        for w in self.s {
            w.hash_state(hasher);
        }
    }

    const ENCODABLE: bool = true;

    fn encode_state(&self, out: &mut StateWriter<'_>) {
        self.s.encode_state(out);
    }

    /// The four state words; the all-zero state (which no generator
    /// reaches) is refused.
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let at = input.position();
        let s = <[u64; 4]>::decode_state(input)?;
        if s == [0; 4] {
            return Err(input.invalid(
                at,
                "SimRng state",
                0,
                "four words not all zero (the all-zero state is xoshiro's fixed point)",
            ));
        }
        Ok(Self { s })
    }

    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"SimRng[u64;4]");
    }
}

#[cfg(test)]
mod tests {
    use laige_core::{Fp32Pinned, Fpx16_16};

    use super::*;

    #[test]
    fn xoshiro_matches_the_reference_outputs() {
        // The reference implementation's first outputs from state [1, 2, 3, 4].
        let mut r = SimRng::from_state([1, 2, 3, 4]);
        let expected: [u64; 10] = [
            41943041,
            58720359,
            3588806011781223,
            3591011842654386,
            9228616714210784205,
            9973669472204895162,
            14011001112246962877,
            12406186145184390807,
            15849039046786891736,
            10450023813501588000,
        ];
        for e in expected {
            assert_eq!(r.next_u64(), e);
        }
    }

    #[test]
    fn splitmix_seeding_matches_the_reference() {
        // SplitMix64's reference outputs for seed 0.
        let mut sm = 0u64;
        assert_eq!(splitmix64(&mut sm), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut sm), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(
            SimRng::new(0).state()[..2],
            [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4]
        );
        assert_eq!(SimRng::from_state([0; 4]), SimRng::new(0));
    }

    #[test]
    fn streams_are_stable_distinct_and_leave_the_parent_alone() {
        let root = SimRng::new(7);
        let before = root.clone();
        let mut a = root.stream("spawn");
        let mut b = root.stream("loot");
        assert_eq!(root, before);
        assert_ne!(a.next_u64(), b.next_u64());
        let mut a2 = SimRng::new(7).stream("spawn");
        let mut a = root.stream("spawn");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), a2.next_u64());
        }
        assert_ne!(
            SimRng::new(8).stream("spawn").next_u64(),
            root.stream("spawn").next_u64()
        );
    }

    #[test]
    fn below_is_in_range_and_unbiased_on_a_small_span() {
        let mut r = SimRng::new(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        // 10000 expected each; 5 sigma is about 456.
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
        for _ in 0..1000 {
            assert!(r.below(u64::MAX) < u64::MAX);
        }
    }

    #[test]
    fn ranges_cover_their_ends_and_nothing_else() {
        let mut r = SimRng::new(2);
        let (mut saw_lo, mut saw_hi) = (false, false);
        for _ in 0..10_000 {
            let v = r.range_i32(-3, 4);
            assert!((-3..4).contains(&v));
            saw_lo |= v == -3;
            saw_hi |= v == 3;
        }
        assert!(saw_lo && saw_hi);
        assert_eq!(r.range_i32(5, 5), 5);
        let v = r.range_i32(i32::MIN, i32::MAX);
        assert!(v < i32::MAX);
        assert!(!r.chance(0, 3) && r.chance(3, 3) && !r.chance(1, 0));
    }

    #[test]
    fn next_in_on_both_backends() {
        let mut r = SimRng::new(3);
        let (lo, hi) = (Fpx16_16::from_raw(-2), Fpx16_16::from_raw(2));
        let mut seen = [false; 4];
        for _ in 0..1000 {
            let v = r.next_in(lo, hi);
            assert!(v >= lo && v < hi);
            seen[(v.to_raw() + 2) as usize] = true;
        }
        assert_eq!(seen, [true; 4]);
        assert_eq!(r.next_in(hi, lo), hi);
        let full = r.next_in(Fpx16_16::MIN, Fpx16_16::MAX);
        assert!(full < Fpx16_16::MAX);
        // det-allow(float-literal): a test builds the binary32 range ends from exact literals
        let (lo, hi) = (Fp32Pinned::from_f32(-1.0), Fp32Pinned::from_f32(1.0));
        for _ in 0..1000 {
            let v = r.next_in(lo, hi);
            assert!(v >= lo && v < hi);
        }
        assert_eq!(
            r.next_in(Fp32Pinned::NAN, hi).to_bits(),
            Fp32Pinned::NAN.to_bits()
        );
        assert_eq!(r.next_in(Fp32Pinned::MIN, Fp32Pinned::MAX), Fp32Pinned::MIN);
    }

    #[test]
    fn state_hash_covers_the_state() {
        let hash = |r: &SimRng| {
            let mut h = StateHasher::default();
            r.hash_state(&mut h);
            h.finish()
        };
        let mut r = SimRng::new(9);
        let h0 = hash(&r);
        assert_eq!(h0, hash(&SimRng::new(9)));
        r.next_u64();
        assert_ne!(hash(&r), h0);
    }
}
