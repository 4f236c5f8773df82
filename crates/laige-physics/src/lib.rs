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
//! broadphase's proxies by (lower x, entity bits, collider index), pairs,
//! contacts and events by pair key. No hash map is iterated, no address
//! is compared.
//!
//! Units are metres, kilograms and seconds; the supported ranges are in
//! [`limits`]. A value outside them at creation is an error; a body that
//! leaves them during a step is clamped, counted
//! ([`PhysicsStats::clamped`]) and reported (`physics/range_clamped`).
//!
//! What the solver leaves out: continuous collision (a body faster than
//! its own thickness per step can pass a thin wall: [`limits::MAX_SPEED`]
//! bounds the speed instead), joints other than revolute and distance
//! (and their limits, motors and springs), rolling resistance, and
//! Box2D's graph colouring (the solver runs one thread, in contact order).

mod body;
mod error;
pub mod events;
mod joint;
pub mod limits;
mod manifold;
mod plugin;
mod query;
mod rot;
mod shape;
mod solver;
mod state;
mod step;

pub use body::{BodyDef, BodyKind, Collider, Colliders, Filter, RigidBody, spawn_body};
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
