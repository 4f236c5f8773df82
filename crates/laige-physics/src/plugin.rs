//! Installing physics into a world: the hashed components and resource,
//! the scratch, and the step as a named system at a fixed `dt`.

use laige_core::{Error, ErrorCode, Result, SimScalar};
use laige_sim::{StateHash, World};

use crate::body::{Colliders, RigidBody};
use crate::events::NOT_INSTALLED;
use crate::joint::Joint;
use crate::state::{PhysicsConfig, PhysicsState};
use crate::step::{PhysicsScratch, step};

/// The physics plugin.
pub struct Physics;

impl Physics {
    /// The stable names the state hash and snapshots know the physics by.
    pub const BODY_NAME: &'static str = "laige_physics::RigidBody";
    /// See [`BODY_NAME`](Self::BODY_NAME).
    pub const COLLIDERS_NAME: &'static str = "laige_physics::Colliders";
    /// See [`BODY_NAME`](Self::BODY_NAME).
    pub const JOINT_NAME: &'static str = "laige_physics::Joint";
    /// See [`BODY_NAME`](Self::BODY_NAME).
    pub const STATE_NAME: &'static str = "laige_physics::PhysicsState";
    /// The step system's name.
    pub const SYSTEM_NAME: &'static str = "physics_step";

    /// Registers [`RigidBody`], [`Colliders`] and [`Joint`] as hashed components,
    /// inserts the [`PhysicsState`] (hashed) and the step's scratch, and
    /// registers the step as the system `physics_step` at `order` (each
    /// tick advances `config.dt`: give it the tick length).
    ///
    /// ```
    /// use laige_core::{Fpx16_16 as F, Vec2};
    /// use laige_physics::{BodyDef, Collider, Physics, PhysicsConfig, PhysicsState, Shape, spawn_body};
    /// use laige_sim::{StateHash, World};
    ///
    /// let mut world = World::default();
    /// Physics::install(&mut world, PhysicsConfig::<F>::default(), 0)?;
    /// let ball = Collider::new(Shape::circle(F::from_ratio(1, 2))?);
    /// let e = spawn_body(&mut world, &BodyDef::dynamic(Vec2::new(F::ZERO, F::from_i32(10))), &[ball])?;
    /// let schedule = world.schedule_systems();
    /// for _ in 0..60 {
    ///     world.run_systems(&schedule)?;
    /// }
    /// let y = world.get_copied::<laige_physics::RigidBody<F>>(e).unwrap().position.y;
    /// assert!(y < F::from_i32(6)); // one second of free fall: 5 m
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// The config's range errors (`physics/body_invalid`), and the world's
    /// registration errors (a name taken by another type).
    pub fn install<S: SimScalar + StateHash>(
        world: &mut World,
        config: PhysicsConfig<S>,
        order: i32,
    ) -> Result<()> {
        config.validate()?;
        world.register_hashed_as::<RigidBody<S>>(Self::BODY_NAME)?;
        world.register_hashed_as::<Colliders<S>>(Self::COLLIDERS_NAME)?;
        world.register_hashed_as::<Joint<S>>(Self::JOINT_NAME)?;
        world.insert_hashed_resource(Self::STATE_NAME, PhysicsState::new(config))?;
        world.insert_resource(PhysicsScratch::<S>::default());
        world.register_system(Self::SYSTEM_NAME, order, |ctx| {
            let tick = ctx.tick();
            let mut scratch = std::mem::take(ctx.resource_mut::<PhysicsScratch<S>>()?);
            let (state, entities) = ctx.resource_and_entities_mut::<PhysicsState<S>>()?;
            step(state, &mut scratch, entities, tick);
            *ctx.resource_mut::<PhysicsScratch<S>>()? = scratch;
            Ok(())
        })
    }

    /// The world's physics state.
    ///
    /// # Errors
    /// `physics/not_installed` (InvalidState) before [`install`](Self::install).
    pub fn state<S: SimScalar>(world: &World) -> Result<&PhysicsState<S>> {
        world.resource::<PhysicsState<S>>().map_err(|_| {
            Error::new(ErrorCode::InvalidState, NOT_INSTALLED)
                .with_accepted("a world after Physics::install")
        })
    }
}
