//! Deterministic 2D rigid-body physics on laige's math: bodies,
//! colliders, contacts and a soft-step solver, generic over
//! [`SimScalar`](laige_core::SimScalar), so a scene runs bit-exact on
//! `Fpx16_16` everywhere and on `Fp32Pinned` where that backend is
//! promised.
//!
//! Everything that carries from one step to the next is world state:
//! bodies ([`RigidBody`], with their sleep timers) and colliders
//! ([`Colliders`]) are hashed components, and the contact cache (with the
//! warm-start impulses), the step's events and counters are the hashed
//! resource [`PhysicsState`]. Snapshots, rollback, replays and the state
//! hash therefore cover the physics with no work by the game. The step's
//! working memory ([`PhysicsScratch`]) is rebuilt from the world at every
//! step and never read across steps.
//!
//! Orders are pure functions of the world: bodies by entity bits, the
//! broadphase's proxies by (4 m band, lower x, entity bits, collider index), pairs,
//! contacts and events by pair key. No hash map is iterated, no address
//! is compared.
//!
//! Units are metres, kilograms and seconds; the supported ranges are in
//! [`limits`]. A value outside them at creation is an error; a body that
//! leaves them during a step is clamped, counted
//! ([`PhysicsStats::clamped`]) and reported (`physics/range_clamped`).
//!
//! Fast bodies: the broadphase sweeps each box along its body's motion
//! over the step, and a pair's contacts are speculative as far as the pair
//! can close in a step (relative linear speed × dt), so a body up to
//! [`limits::MAX_SPEED`] stops at a thin wall instead of passing it
//! (`tests/behaviour.rs`: a 0.1 m ball at 128 m/s against a 0.1 m wall).
//!
//! What the solver leaves out: time-of-impact continuous collision (the
//! speculative margin covers linear motion, not a fast spin's sweep; a
//! speculative point can also catch a corner the body would have missed,
//! a brief ghost contact), joints other than revolute and distance (and
//! their limits, motors and springs), rolling resistance, a solver on
//! several threads, and joint or contact softness per pair (one
//! stiffness for the world).
//!
//! The contact rows run four constraints at a time: each step colours the
//! contacts in contact order so that no two of a colour share a dynamic
//! body, and the rows of four same-coloured constraints run side by side
//! on the CPU's widest vector unit (SSE2, AVX2 or AVX-512 on x86-64), with
//! the same bits on every unit (`tests/vector_units.rs`). Joints are
//! solved one at a time, before the contacts.
//!
//! Precision: on Q16.16 a velocity is resolved to 1/65536 m per substep
//! (0.0037 m/s at 240 Hz), so with sleep turned off a tall stack creeps
//! (the 210-box pyramid's top: about 3 mm/s, `tests/behaviour.rs`);
//! sleeping, on by default, stops it once an island is slow.

mod body;
mod bundle;
mod cast;
mod contact_rows;
mod error;
pub mod events;
mod joint;
pub mod limits;
mod manifold;
mod plugin;
mod query;
mod rot;
mod row_math;
mod shape;
mod solver;
mod state;
mod step;

pub use body::{BodyDef, BodyKind, Collider, Colliders, Filter, RigidBody, spawn_body};
pub use cast::{CAST_TOLERANCE, MAX_CAST_STEPS, shape_cast, shape_cast_all};
pub use joint::{Joint, JointKind, spawn_distance, spawn_revolute};
pub use manifold::{Manifold, ManifoldPoint, collide, contains_point};
pub use plugin::Physics;
pub use query::{
    ColliderRef, MAX_RAY_LENGTH, RayHit, query_aabb, query_overlap, query_point, ray_cast,
    ray_cast_all,
};
pub use rot::{Rot, Transform, cross};
pub use shape::{Aabb, MassData, Shape, ShapeKind};
pub use state::{
    Contact, ContactPoint, PhysicsConfig, PhysicsEvent, PhysicsEventKind, PhysicsState,
    PhysicsStats,
};
pub use step::{PhysicsScratch, step};
