//! The supported ranges, in metres, kilograms and seconds, chosen so that
//! Q16.16 (±32 768, resolution 2⁻¹⁶ ≈ 15 µm) never saturates inside a
//! step of a scene within them. The same limits hold on both backends, so
//! a scene runs on either.
//!
//! Why these numbers:
//! - positions stay within [`WORLD_HALF_EXTENT`]: the difference of two
//!   positions (±16 384) fits;
//! - every shape lies within [`MAX_SHAPE_EXTENT`] of its body's origin, so
//!   the narrowphase's products of local coordinates (at most
//!   `2·32 · 4·32 = 8192`) fit;
//! - speed is at most [`MAX_SPEED`] and spin at most [`MAX_SPIN`]: a lever
//!   arm times a spin, an impulse times an inverse mass, fit; the step
//!   clamps to them and counts every clamp (`PhysicsStats::clamped`,
//!   event `physics/range_clamped`);
//! - a dynamic body's mass lies in `[1/256, MAX_MASS]` and its rotational
//!   inertia in `[1/1024, MAX_INERTIA]` (unless its rotation is fixed): below,
//!   Q16.16 would hold the inverse to fewer than 6 bits; above, the
//!   mass-property sums could saturate. Creation checks a bound computed
//!   in integers before any of the sums run.

/// Positions lie within `±WORLD_HALF_EXTENT` metres on each axis.
pub const WORLD_HALF_EXTENT: i32 = 8192;
/// Every shape point (radius included) lies within this many metres of
/// its body's origin.
pub const MAX_SHAPE_EXTENT: i32 = 32;
/// The smallest radius, half-extent or edge length: `1 / MIN_SIZE_DENOM`
/// metres.
pub const MIN_SIZE_DENOM: i32 = 64;
/// The largest speed, m/s (2.1 m per step at 60 Hz; speculative contacts
/// as long as a step's closing distance keep such a body from crossing a
/// thin wall).
pub const MAX_SPEED: i32 = 128;
/// The largest spin, rad/s.
pub const MAX_SPIN: i32 = 120;
/// The largest density, kg/m².
pub const MAX_DENSITY: i32 = 256;
/// The largest mass of a dynamic body, kg.
pub const MAX_MASS: i32 = 4096;
/// The largest rotational inertia of a dynamic body, kg·m².
pub const MAX_INERTIA: i32 = 30_000;
/// The smallest mass of a dynamic body: `1 / MIN_MASS_DENOM` kg.
pub const MIN_MASS_DENOM: i32 = 256;
/// The smallest rotational inertia: `1 / MIN_INERTIA_DENOM` kg·m².
pub const MIN_INERTIA_DENOM: i32 = 1024;
/// The largest friction coefficient.
pub const MAX_FRICTION: i32 = 16;
/// The largest damping, 1/s.
pub const MAX_DAMPING: i32 = 100;
/// The largest `|gravity scale|`.
pub const MAX_GRAVITY_SCALE: i32 = 16;
/// Colliders one body holds.
pub const MAX_COLLIDERS: usize = 4;
/// Vertices of a convex polygon.
pub const MAX_POLYGON_VERTICES: usize = 8;
/// The largest supported mass ratio between two touching dynamic bodies
/// for a stable stack (a solver limit, not a range check): 100:1.
pub const MAX_MASS_RATIO: i32 = 100;
