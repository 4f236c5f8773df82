//! CRC-32 (IEEE 802.3; the zlib/PNG/gzip CRC): reflected polynomial
//! `0xEDB8_8320`, initial value and final XOR `0xFFFF_FFFF`.
//!
//! Written here rather than taken from `crc32fast`: a replay record is a
//! few dozen bytes per tick, so a 1 KiB table-driven loop costs well under
//! a microsecond per record and the sim crate stays free of a dependency
//! (and of its `unsafe` SIMD paths) for a 20-line function whose output is
//! pinned by the published check value (`"123456789"` → `0xCBF4_3926`).

/// The byte-at-a-time lookup table, built at compile time.
const TABLE: [u32; 256] = build_table();

const fn build_table() -> [u32; 256] {
    let mut table = [0_u32; 256];
    let mut i = 0;
    while i < 256 {
        #[allow(
            clippy::cast_possible_truncation,
            reason = "i < 256: the index always fits"
        )]
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

/// An incremental CRC-32: feed bytes with [`update`](Self::update), read
/// the checksum with [`finish`](Self::finish).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Self { state: 0xFFFF_FFFF }
    }
}

impl Crc32 {
    /// Feeds `bytes`.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        let mut c = self.state;
        for &b in bytes {
            c = TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
        }
        self.state = c;
    }

    /// The checksum of everything fed so far.
    pub(crate) fn finish(self) -> u32 {
        self.state ^ 0xFFFF_FFFF
    }
}

/// The CRC-32 of `bytes`.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut c = Crc32::default();
    c.update(bytes);
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_check_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    #[test]
    fn incremental_equals_one_shot() {
        let mut c = Crc32::default();
        c.update(b"1234");
        c.update(b"56789");
        assert_eq!(c.finish(), 0xCBF4_3926);
    }

    #[test]
    fn every_single_bit_flip_changes_the_checksum() {
        let data = *b"laige replay record";
        let good = crc32(&data);
        for i in 0..data.len() {
            for bit in 0..8 {
                let mut d = data;
                d[i] ^= 1 << bit;
                assert_ne!(crc32(&d), good, "byte {i} bit {bit}");
            }
        }
    }
}
