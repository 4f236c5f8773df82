//! Known-answer determinism hashes: a seeded 4096-tick sequence of every
//! math op (scalars, `Vec2`, `Vec3`, both length paths, conversions) run
//! once per backend and hashed (FNV-1a 64 over `to_hash_bits`). The
//! expected hashes are committed: any change in any result of any op — a
//! rounding, a saturation, an evaluation order — fails this test.
//!
//! The hashes of `Fpx16_16` `sin` and `cos` over every one of the 2^32
//! inputs are taken by the exhaustive pass that checks those values
//! (`tests/math_trig_exhaustive.rs`), which computes them anyway.
//!
//! If a change of results is intended (a spec change), it breaks every
//! recorded replay: update the constants only together with a note in
//! the `laige_core::math` module docs and the replay format version.

use laige_core::{BinaryAngle, Fp32Pinned, Fpx16_16, MathBackend, SimScalar, Vec2, Vec3};

/// Expected hash of the sequence on `Fpx16_16` (bit-exact everywhere).
const FIXED_HASH: u64 = 0x0200_cbec_f5b9_1a72;
/// Expected hash of the sequence on `Fp32Pinned` (bit-exact per
/// platform/ISA; IEEE basic ops and sqrt are correctly rounded, so it is
/// expected to hold on every IEEE target without FMA contraction).
const PINNED_HASH: u64 = 0xd2fc_f4cf_459d_5894;

/// Expected hash of the game-ops sequence (trigonometry, rounding,
/// binary angles) on `Fpx16_16`.
const GAME_OPS_FIXED_HASH: u64 = 0xce99_e7b2_b367_82bd;
/// Expected hash of the game-ops sequence on `Fp32Pinned` (pure-Rust
/// `libm`: the same on every IEEE target).
const GAME_OPS_PINNED_HASH: u64 = 0xf59d_6f52_52f1_c779;

const TICKS: u32 = 4096;
const SEED: u64 = 0x1A16_E5EE_D000_0001;

struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A signed integer in `-bound..bound`.
    fn int(&mut self, bound: u32) -> i32 {
        (self.next_u64() % (2 * u64::from(bound))) as i32 - bound as i32
    }

    /// A scalar `num / den` with a numerator magnitude chosen per draw so
    /// small, medium, world-scale and saturating values all occur.
    fn scalar<S: SimScalar>(&mut self) -> S {
        let bound = [4, 200, 20_000, 40_000][(self.next_u64() % 4) as usize];
        let den = 1 + (self.next_u64() % 997) as i32;
        S::from_ratio(self.int(bound) * den / 7 + self.int(7), den)
    }
}

struct Fnv1a(u64);

impl Fnv1a {
    fn word(&mut self, w: u32) {
        for b in w.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }

    fn s<S: SimScalar>(&mut self, v: S) {
        self.word(v.to_hash_bits());
    }

    fn v2<S: SimScalar>(&mut self, v: Vec2<S>) {
        self.s(v.x);
        self.s(v.y);
    }

    fn v3<S: SimScalar>(&mut self, v: Vec3<S>) {
        self.s(v.x);
        self.s(v.y);
        self.s(v.z);
    }
}

/// The 4096-tick op sequence, generic over the backend.
fn sequence<S: SimScalar>() -> u64 {
    let mut rng = SplitMix64(SEED);
    let mut h = Fnv1a(0xCBF2_9CE4_8422_2325);
    let dt = S::from_ratio(1, 60);
    let lo = Vec2::splat(S::from_i32(-1000));
    let hi = Vec2::splat(S::from_i32(1000));
    let mut pos = [Vec2::<S>::ZERO; 8];
    let mut vel = [Vec2::<S>::ZERO; 8];
    let mut acc3 = Vec3::<S>::ZERO;
    for tick in 0..TICKS {
        let (a, b, c) = (rng.scalar::<S>(), rng.scalar::<S>(), rng.scalar::<S>());
        let t = S::from_ratio(rng.int(1500), 1000); // extrapolates too
        // Scalar ops, including division by zero every 64 ticks.
        let divisor = if tick % 64 == 0 { S::ZERO } else { b };
        for v in [
            a + b,
            a - b,
            a * b,
            a / divisor,
            -a,
            a.sqrt(),
            a.abs(),
            a.min(b),
            a.max(b),
            a.clamp(b.min(c), b.max(c)),
            a.lerp(b, t),
            S::from_i32(rng.int(40_000)),
            S::from_ratio(rng.int(100), rng.int(3)),
        ] {
            h.s(v);
        }
        h.word(a.to_f32().to_bits());
        h.word(u32::from(a.lt(b)) | u32::from(a.le(b)) << 1 | u32::from(a.equals(b)) << 2);
        let mut acc = a;
        acc += b;
        acc -= c;
        acc *= t;
        acc /= c;
        h.s(acc);

        // Vec2: integrate, clamp, and every vector op.
        let i = (tick % 8) as usize;
        vel[i] = (vel[i] + Vec2::new(a, b) * dt).clamp(lo, hi);
        pos[i] += vel[i] * dt;
        pos[i] = pos[i].clamp(lo, hi);
        let d = pos[i] - pos[(i + 3) % 8];
        let u = Vec2::new(b, c);
        h.v2(pos[i]);
        h.s(d.dot(u));
        h.s(d.length());
        h.v2(d.normalize());
        h.s(u.length_wide());
        h.s(pos[i].distance_wide(u));
        h.v2(u.normalize_wide());
        h.v2(d.lerp(u, t));
        h.v2(d * u / Vec2::new(c, a) - -u);
        h.word(u32::from(d.equals(u)) | u32::from(d.not_equals(u)) << 1);

        // Vec3.
        let w = Vec3::new(a, b, c);
        acc3 = (acc3 + w * dt).lerp(w, t);
        h.v3(acc3);
        h.s(w.dot(acc3));
        h.s(w.length());
        h.v3(w.normalize());
        h.s(w.length_wide());
        h.s(w.distance_wide(acc3));
        h.v3(w.normalize_wide());
    }
    h.0
}

/// The game ops (trigonometry, rounding and integer conversion, binary
/// angles) over the same kind of seeded inputs: small, world-scale (up to
/// ±32768 rad) and saturating arguments.
fn game_ops_sequence<S: SimScalar>() -> u64 {
    let mut rng = SplitMix64(SEED ^ 0x7A16);
    let mut h = Fnv1a(0xCBF2_9CE4_8422_2325);
    let mut heading = BinaryAngle::ZERO;
    for _ in 0..TICKS {
        let (a, b) = (rng.scalar::<S>(), rng.scalar::<S>());
        let unit = S::from_ratio(rng.int(1100), 1000); // asin/acos domain and a bit beyond
        let (s, c) = a.sin_cos();
        for v in [
            a.sin(),
            a.cos(),
            s,
            c,
            a.tan(),
            a.atan2(b),
            a.atan(),
            unit.asin(),
            unit.acos(),
            a.floor(),
            a.ceil(),
            a.round(),
            a.trunc(),
            a.fract(),
            a.rem_euclid(b),
            a.rem_euclid(S::TAU),
            a.signum(),
            S::PI * a,
            S::FRAC_PI_2 + b,
        ] {
            h.s(v);
        }
        h.word(a.to_i32_floor() as u32);
        h.word(a.to_i32_ceil() as u32);
        heading += BinaryAngle::from_radians(a);
        h.word(heading.to_bits());
        h.s(heading.to_radians::<S>());
        h.s(heading.to_radians::<S>().sin());
    }
    h.0
}

#[test]
fn game_ops_fixed_sequence_matches_the_committed_hash() {
    let fixed = game_ops_sequence::<Fpx16_16>();
    assert_eq!(
        fixed, GAME_OPS_FIXED_HASH,
        "Fpx16_16 game-ops known-answer hash changed: {fixed:#018x}"
    );
}

// Apart from the fixed-point one: on a target whose floats are not IEEE
// binary32 (x87), the pinned-float hash may differ and is recorded there,
// while the fixed-point hash must still hold.
#[test]
fn game_ops_pinned_sequence_matches_the_committed_hash() {
    let pinned = game_ops_sequence::<Fp32Pinned>();
    assert_eq!(
        pinned, GAME_OPS_PINNED_HASH,
        "Fp32Pinned game-ops known-answer hash changed: {pinned:#018x}"
    );
}

#[test]
fn fixed_point_sequence_matches_the_committed_hash() {
    let got = sequence::<Fpx16_16>();
    assert_eq!(
        got, FIXED_HASH,
        "Fpx16_16 known-answer hash changed: {got:#018x}"
    );
}

#[test]
fn pinned_float_sequence_matches_the_committed_hash() {
    let got = sequence::<Fp32Pinned>();
    assert_eq!(
        got, PINNED_HASH,
        "Fp32Pinned known-answer hash changed: {got:#018x}"
    );
}

#[test]
fn the_sequence_is_repeatable_and_backend_specific() {
    assert_eq!(sequence::<Fpx16_16>(), sequence::<Fpx16_16>());
    assert_eq!(sequence::<Fp32Pinned>(), sequence::<Fp32Pinned>());
    assert_ne!(sequence::<Fpx16_16>(), sequence::<Fp32Pinned>());
    assert_eq!(
        <Fpx16_16 as SimScalar>::BACKEND,
        MathBackend::FixedPoint16_16
    );
}
