//! Every event id laige-physics raises or reports, in one place.

use laige_core::EventId;

/// `physics/body_invalid`: a body definition out of the supported ranges
/// (position, velocity, damping, gravity scale, or the mass and inertia
/// its colliders give). InvalidArgument / OutOfRange, returned.
pub const BODY_INVALID: EventId = EventId::new("physics", "body_invalid");
/// `physics/shape_invalid`: a shape out of the supported ranges (size,
/// vertex count, a polygon that is not convex and counter-clockwise) or a
/// material out of range. InvalidArgument / OutOfRange, returned.
pub const SHAPE_INVALID: EventId = EventId::new("physics", "shape_invalid");
/// `physics/range_clamped` (Warn, rate-limited): a step clamped a body's
/// speed, spin or position to the supported range; fields `tick`,
/// `clamped` (this step), `total` (since install). Counted in
/// `PhysicsStats::clamped`.
pub const RANGE_CLAMPED: EventId = EventId::new("physics", "range_clamped");
/// `physics/capacity_exceeded` (Warn, rate-limited): more colliders or
/// joints than a body or the world holds. InvalidArgument, returned.
pub const CAPACITY_EXCEEDED: EventId = EventId::new("physics", "capacity_exceeded");
/// `physics/not_installed`: a physics call on a world without
/// `Physics::install`. InvalidState, returned.
pub const NOT_INSTALLED: EventId = EventId::new("physics", "not_installed");
