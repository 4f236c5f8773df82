//! The body checksum of snapshot format version 2: a Fletcher-style sum
//! over the body's little-endian `u64` words in eight lanes, cheap enough
//! to run beside the column writes and reads while each batch of bytes is
//! still in the cache (CRC-32, version 1's, costs more than a copy of the
//! body).
//!
//! Definition (the same on every target: integers only, wrapping):
//! - the body is read as little-endian `u64` words, its tail padded with
//!   zero bytes to a whole stripe of 64 bytes (eight words);
//! - word `i` goes to lane `j = i % 8`: `A[j] += w`, then after each
//!   stripe `B[j] += A[j]` for every lane;
//! - `h = Σ A[j]·C[j] + B[j]·E[j]`, each `C[j]` odd and each `E[j]` even;
//! - the checksum is `mix(h ^ mix(length ^ flags << 48 ^ SEED))`, `mix`
//!   the 64-bit MurmurHash3 finalizer (a bijection).
//!
//! What it detects for sure: any change confined to one 8-byte word (so
//! every flipped bit). Such a change of `d ≠ 0` in lane `j`, `m ≥ 1`
//! stripes from the end, changes `h` by `d·(C[j] + m·E[j])`, an odd
//! multiple of `d`, never 0 modulo 2^64, and `mix` keeps values apart.
//! Words swapped between stripes change `B`. The length and the flags are
//! mixed in, so a header that names another storage fails the check too;
//! other damage passes it by chance only (about 2^-64 for random bytes).
//! It is a check against damage, not against a forger.

/// Bytes a stripe holds: one word per lane.
pub(crate) const STRIPE: usize = 64;
/// Lanes (independent sums; eight `u64`s fill two AVX2 or four SSE2 /
/// wasm simd128 registers for `A`, as many for `B`).
const LANES: usize = STRIPE / 8;
/// Bytes encoded or decoded between two catch-ups of the sum: small
/// enough that a batch is still in the first-level cache when it is summed.
pub(crate) const SUM_BATCH: usize = 4096;

/// Weights of `A[j]` (odd).
const C: [u64; LANES] = [
    0x0025_603b_b4fb_59e5,
    0xb8f8_dd45_de47_becd,
    0x6870_471e_e1a6_851f,
    0xbd1a_3c48_e9d0_99e5,
    0xc91e_c8c6_8812_817d,
    0xbd90_99b1_46ef_0d65,
    0xc260_b09f_bcd5_5561,
    0xfae2_3239_9c2f_11a9,
];
/// Weights of `B[j]` (even).
const E: [u64; LANES] = [
    0x0ebd_3ced_0b89_0c62,
    0x141d_29af_dc2f_ea2a,
    0x3994_ef88_ddfb_4b8a,
    0xf696_e158_fae3_6672,
    0xe8d0_5409_5a09_8bb6,
    0x65d3_4636_b261_a7be,
    0xd28c_2c50_c49a_2166,
    0xc519_d217_e06a_7d2a,
];
/// Mixed with the length and flags (`"laige_v2"`).
const SEED: u64 = 0x6c61_6967_655f_7632;

/// The running sums of whole stripes.
#[derive(Clone, Copy, Debug, Default)]
struct Lanes {
    a: [u64; LANES],
    b: [u64; LANES],
}

impl Lanes {
    /// Adds every whole stripe of `bytes` (a remainder is ignored: callers
    /// pass whole stripes, or pad the tail).
    #[inline]
    fn stripes(&mut self, bytes: &[u8]) {
        // Locals, not fields: the lanes stay in registers.
        let (mut a, mut b) = (self.a, self.b);
        for stripe in bytes.chunks_exact(STRIPE) {
            for (j, word) in stripe.chunks_exact(8).enumerate() {
                let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                a[j] = a[j].wrapping_add(w);
                b[j] = b[j].wrapping_add(a[j]);
            }
        }
        (self.a, self.b) = (a, b);
    }

    fn finish(mut self, tail: &[u8], len: u64, flags: u16) -> u64 {
        if !tail.is_empty() {
            let mut last = [0; STRIPE];
            last[..tail.len()].copy_from_slice(tail);
            self.stripes(&last);
        }
        let mut h = 0_u64;
        for j in 0..LANES {
            h = h
                .wrapping_add(self.a[j].wrapping_mul(C[j]))
                .wrapping_add(self.b[j].wrapping_mul(E[j]));
        }
        mix(h ^ mix(len ^ (u64::from(flags) << 48) ^ SEED))
    }
}

/// The MurmurHash3 64-bit finalizer: a bijection that spreads every bit.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The version-2 checksum of a whole body stored with `flags`.
pub(crate) fn body_sum(body: &[u8], flags: u16) -> u64 {
    let whole = body.len() - body.len() % STRIPE;
    let mut lanes = Lanes::default();
    lanes.stripes(&body[..whole]);
    lanes.finish(&body[whole..], body.len() as u64, flags)
}

/// A body sum computed while the body is written or read: the body starts
/// at `start` of a buffer, and every whole stripe before `summed` is in
/// the lanes. [`catch_up`](Self::catch_up) after each batch sums the
/// stripes written or read since, while they are in the cache.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunningSum {
    lanes: Lanes,
    start: usize,
    summed: usize,
}

impl RunningSum {
    /// A sum of the body that starts at `start` of the buffer.
    pub(crate) fn new(start: usize) -> Self {
        Self {
            lanes: Lanes::default(),
            start,
            summed: start,
        }
    }

    /// Sums the whole stripes of `buf[..upto]` not summed yet (`buf` is
    /// the buffer the body is in; bytes before `upto` never change again).
    #[inline]
    pub(crate) fn catch_up(&mut self, buf: &[u8], upto: usize) {
        let end = upto - (upto - self.start) % STRIPE;
        if end > self.summed {
            self.lanes.stripes(&buf[self.summed..end]);
            self.summed = end;
        }
    }

    /// The checksum of the body `buf[start..]`, stored with `flags`.
    pub(crate) fn finish(mut self, buf: &[u8], flags: u16) -> u64 {
        self.catch_up(buf, buf.len());
        self.lanes
            .finish(&buf[self.summed..], (buf.len() - self.start) as u64, flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, word by word.
    fn reference(body: &[u8], flags: u16) -> u64 {
        let mut padded = body.to_vec();
        padded.resize(body.len().next_multiple_of(STRIPE), 0);
        let (mut a, mut b) = ([0_u64; 8], [0_u64; 8]);
        for stripe in padded.chunks(STRIPE) {
            for j in 0..8 {
                let w = u64::from_le_bytes(stripe[8 * j..8 * j + 8].try_into().unwrap());
                a[j] = a[j].wrapping_add(w);
                b[j] = b[j].wrapping_add(a[j]);
            }
        }
        let h = (0..8).fold(0_u64, |h, j| {
            h.wrapping_add(a[j].wrapping_mul(C[j]))
                .wrapping_add(b[j].wrapping_mul(E[j]))
        });
        mix(h ^ mix(body.len() as u64 ^ (u64::from(flags) << 48) ^ SEED))
    }

    fn bytes(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
            .collect()
    }

    #[test]
    fn the_weights_have_the_parities_the_detection_needs() {
        assert!(C.iter().all(|c| c % 2 == 1));
        assert!(E.iter().all(|e| e % 2 == 0));
    }

    #[test]
    fn a_running_sum_in_any_batches_is_the_whole_sum() {
        for n in [0, 1, 7, 8, 63, 64, 65, 200, 4096 + 3] {
            let body = bytes(n);
            let want = reference(&body, 0);
            assert_eq!(body_sum(&body, 0), want, "{n} bytes");
            for prefix in [0, 3, 64] {
                let mut buf = vec![0xAA; prefix];
                buf.extend_from_slice(&body);
                for step in [1, 5, 64, 100] {
                    let mut sum = RunningSum::new(prefix);
                    let mut at = prefix;
                    while at < buf.len() {
                        at = (at + step).min(buf.len());
                        sum.catch_up(&buf, at);
                    }
                    assert_eq!(sum.finish(&buf, 0), want, "{n} bytes, step {step}");
                }
            }
        }
    }

    #[test]
    fn every_flipped_bit_and_every_length_and_flag_change_is_seen() {
        let body = bytes(300);
        let sum = body_sum(&body, 0);
        for i in 0..body.len() * 8 {
            let mut bad = body.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert_ne!(body_sum(&bad, 0), sum, "bit {i}");
        }
        assert_ne!(body_sum(&body, 1), sum);
        // Zero bytes appended (what the padding adds) are seen by the length.
        let mut longer = body.clone();
        longer.push(0);
        assert_ne!(body_sum(&longer, 0), sum);
        // Words swapped between stripes are seen.
        let mut swapped = body.clone();
        swapped.copy_within(0..8, 64);
        swapped[0..8].copy_from_slice(&body[64..72]);
        assert_ne!(body_sum(&swapped, 0), sum);
    }
}
