//! The scenario's per-tick input ([`TickInput`]) and the script that
//! generates it ([`Script`]): a pure function of the seed and the tick.

use laige_core::Result;
use laige_sim::replay::{self, ReplayInput};
use laige_sim::workload::SplitMix64;

/// Most spawns (and despawns) one tick's input asks for.
pub const MAX_PER_TICK: usize = 2;

/// One entity to spawn, in 1/256 units (position) and 1/256 units/s
/// (velocity) — integers, turned into scalars with `S::from_ratio`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spawn {
    /// Position x, y in 1/256 units.
    pub pos: [i32; 2],
    /// Velocity x, y in 1/256 units/s.
    pub vel: [i32; 2],
}

/// One tick's scripted input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TickInput {
    /// A velocity impulse in 1/16 units/s for every entity right of the
    /// centre (`pos.x > 0`); `[0, 0]` is none.
    pub impulse: [i16; 2],
    /// Entities to spawn: the first `n_spawn` of `spawns`.
    pub spawns: [Spawn; MAX_PER_TICK],
    /// How many of `spawns` are used (0..=2).
    pub n_spawn: u8,
    /// Entities to despawn (0..=2), chosen by `despawn_key` (see
    /// `scenario::despawn_one`).
    pub n_despawn: u8,
    /// The selector of the despawned entities.
    pub despawn_key: u64,
}

impl ReplayInput for TickInput {
    /// `impulse` (2 × i16), `n_spawn` (u8), `n_spawn` × 4 × i32,
    /// `n_despawn` (u8), then `despawn_key` (u64) if `n_despawn > 0`.
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.impulse[0].to_le_bytes());
        out.extend_from_slice(&self.impulse[1].to_le_bytes());
        out.push(self.n_spawn);
        for s in self.spawns.iter().take(usize::from(self.n_spawn)) {
            for v in s.pos.iter().chain(&s.vel) {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out.push(self.n_despawn);
        if self.n_despawn > 0 {
            out.extend_from_slice(&self.despawn_key.to_le_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Result<Self> {
        let bad = |what: &'static str| {
            replay::input_invalid(
                "TickInput",
                format!("{} bytes ({what})", bytes.len()),
                "the encoding of TickInput::encode",
            )
        };
        let mut rest = bytes;
        let mut take = |what: &'static str, n: usize| -> Result<&[u8]> {
            if rest.len() < n {
                return Err(bad(what));
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        let le16 = |b: &[u8], k: usize| i16::from_le_bytes([b[2 * k], b[2 * k + 1]]);
        let le32 = |b: &[u8], k: usize| {
            i32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        };
        let mut input = Self::default();
        let imp = take("impulse", 4)?;
        input.impulse = [le16(imp, 0), le16(imp, 1)];
        input.n_spawn = take("spawn count", 1)?[0];
        if usize::from(input.n_spawn) > MAX_PER_TICK {
            return Err(bad("spawn count over 2"));
        }
        for s in input.spawns.iter_mut().take(usize::from(input.n_spawn)) {
            let raw = take("spawn", 16)?;
            s.pos = [le32(raw, 0), le32(raw, 1)];
            s.vel = [le32(raw, 2), le32(raw, 3)];
        }
        input.n_despawn = take("despawn count", 1)?[0];
        if usize::from(input.n_despawn) > MAX_PER_TICK {
            return Err(bad("despawn count over 2"));
        }
        if input.n_despawn > 0 {
            let k = take("despawn key", 8)?;
            let mut b = [0_u8; 8];
            b.copy_from_slice(k);
            input.despawn_key = u64::from_le_bytes(b);
        }
        if !rest.is_empty() {
            return Err(bad("trailing bytes"));
        }
        Ok(input)
    }
}

/// The input script: every 7th tick on average an impulse, every 8th tick
/// 1–2 spawns, every 8th tick (offset 4) 1–2 despawns — a zero-drift
/// population walk that the scenario bounds to `[n/2, 2n]`.
#[derive(Clone, Debug)]
pub struct Script {
    rng: SplitMix64,
    half_extent: i32,
    max_speed: i32,
}

impl Script {
    /// The script of `seed` for a world of `half_extent` units and spawn
    /// speeds up to `max_speed` units/s.
    #[must_use]
    pub fn new(seed: u64, half_extent: i32, max_speed: i32) -> Self {
        Self {
            // A stream independent of the workload's spawn stream.
            rng: SplitMix64::new(seed ^ 0x5c1d_e7c4_ec4b_0001),
            half_extent,
            max_speed,
        }
    }

    /// The input of `tick` (call once per tick, in order).
    pub fn next(&mut self, tick: u64) -> TickInput {
        let mut input = TickInput::default();
        if self.rng.next().is_multiple_of(7) {
            let dx = i16::try_from(self.rng.next_in(64)).unwrap_or(0);
            let dy = i16::try_from(self.rng.next_in(64)).unwrap_or(0);
            input.impulse = [dx, dy];
        }
        if tick.is_multiple_of(8) {
            input.n_spawn = 1 + u8::from(self.rng.next().is_multiple_of(2));
            let extent = self.half_extent.saturating_mul(256);
            let speed = self.max_speed.saturating_mul(256);
            for s in input.spawns.iter_mut().take(usize::from(input.n_spawn)) {
                s.pos = [self.rng.next_in(extent), self.rng.next_in(extent)];
                s.vel = [self.rng.next_in(speed), self.rng.next_in(speed)];
            }
        }
        if tick % 8 == 4 {
            input.n_despawn = 1 + u8::from(self.rng.next().is_multiple_of(2));
            input.despawn_key = self.rng.next();
        }
        input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_round_trip_through_their_encoding() {
        let mut script = Script::new(1, 4096, 64);
        let mut buf = Vec::new();
        let mut kinds = [0_u32; 3];
        for t in 0..2000 {
            let input = script.next(t);
            kinds[0] += u32::from(input.impulse != [0, 0]);
            kinds[1] += u32::from(input.n_spawn);
            kinds[2] += u32::from(input.n_despawn);
            buf.clear();
            input.encode(&mut buf);
            assert_eq!(TickInput::decode(&buf).unwrap(), input, "tick {t}");
        }
        assert!(
            kinds.iter().all(|&k| k > 100),
            "every kind occurs: {kinds:?}"
        );
    }

    #[test]
    fn damaged_inputs_are_errors() {
        let mut buf = Vec::new();
        let input = TickInput {
            n_spawn: 1,
            n_despawn: 1,
            ..TickInput::default()
        };
        input.encode(&mut buf);
        for cut in 0..buf.len() {
            assert!(TickInput::decode(&buf[..cut]).is_err(), "cut {cut}");
        }
        let mut long = buf.clone();
        long.push(0);
        assert!(TickInput::decode(&long).is_err());
        let mut many = buf;
        many[4] = 3;
        assert!(TickInput::decode(&many).is_err());
    }

    #[test]
    fn the_script_is_a_pure_function_of_the_seed() {
        let a: Vec<_> = {
            let mut s = Script::new(9, 100, 10);
            (0..500).map(|t| s.next(t)).collect()
        };
        let b: Vec<_> = {
            let mut s = Script::new(9, 100, 10);
            (0..500).map(|t| s.next(t)).collect()
        };
        assert_eq!(a, b);
        let mut c = Script::new(10, 100, 10);
        assert!((0..500).any(|t| c.next(t) != a[t as usize]));
    }
}
