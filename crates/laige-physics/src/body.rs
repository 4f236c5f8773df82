//! Bodies and colliders as components: [`RigidBody`] (motion, mass, sleep)
//! and [`Colliders`] (up to four shapes with materials and filters) on the
//! same entity; [`BodyDef`] and [`Collider`] describe them, checked
//! against the supported ranges when the body is created.

use laige_core::{BinaryAngle, Result, SimScalar, Vec2};
use laige_sim::{Entities, StateHash};

use crate::error::{invalid, out_of_range};
use crate::events::{BODY_INVALID, CAPACITY_EXCEEDED, SHAPE_INVALID};
use crate::limits::{
    MAX_COLLIDERS, MAX_DAMPING, MAX_DENSITY, MAX_FRICTION, MAX_GRAVITY_SCALE, MAX_INERTIA,
    MAX_MASS, MAX_SPEED, MAX_SPIN, MIN_INERTIA_DENOM, MIN_MASS_DENOM, WORLD_HALF_EXTENT,
};
use crate::rot::{Rot, Transform};
use crate::shape::{MassData, Shape};

/// How a body moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
pub enum BodyKind {
    /// Never moves; infinite mass.
    #[default]
    Static,
    /// Moves at the velocity it is given; infinite mass; pushes dynamic
    /// bodies, is not pushed.
    Kinematic,
    /// Moved by gravity, contacts and joints.
    Dynamic,
}

/// A rigid body: a component (registered hashed by `Physics::install`).
/// Positions are the body's origin; velocities are its centre of mass's.
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
pub struct RigidBody<S> {
    /// Static, kinematic or dynamic.
    pub kind: BodyKind,
    /// The body origin in the world, metres.
    pub position: Vec2<S>,
    /// The body's rotation.
    pub rotation: Rot<S>,
    /// The centre of mass's velocity, m/s.
    pub linear_velocity: Vec2<S>,
    /// rad/s, counter-clockwise.
    pub angular_velocity: S,
    /// The centre of mass in the body's frame.
    pub local_center: Vec2<S>,
    /// kg (zero unless dynamic).
    pub mass: S,
    /// 1/kg (zero unless dynamic).
    pub inv_mass: S,
    /// kg·m² about the centre of mass (zero unless dynamic and rotating).
    pub inertia: S,
    /// 1/(kg·m²).
    pub inv_inertia: S,
    /// Linear damping, 1/s.
    pub linear_damping: S,
    /// Angular damping, 1/s.
    pub angular_damping: S,
    /// Gravity multiplier.
    pub gravity_scale: S,
    /// Never rotates (inverse inertia zero).
    pub fixed_rotation: bool,
    /// May fall asleep.
    pub allow_sleep: bool,
    /// Asleep: not integrated, not solved, until something wakes its island.
    pub sleeping: bool,
    /// Seconds spent slower than the sleep thresholds.
    pub sleep_time: S,
}

impl<S: SimScalar> Default for RigidBody<S> {
    fn default() -> Self {
        Self {
            kind: BodyKind::Static,
            position: Vec2::ZERO,
            rotation: Rot::IDENTITY,
            linear_velocity: Vec2::ZERO,
            angular_velocity: S::ZERO,
            local_center: Vec2::ZERO,
            mass: S::ZERO,
            inv_mass: S::ZERO,
            inertia: S::ZERO,
            inv_inertia: S::ZERO,
            linear_damping: S::ZERO,
            angular_damping: S::ZERO,
            gravity_scale: S::ONE,
            fixed_rotation: false,
            allow_sleep: true,
            sleeping: false,
            sleep_time: S::ZERO,
        }
    }
}

impl<S: SimScalar> RigidBody<S> {
    /// The transform of the body's origin.
    #[must_use]
    pub fn transform(&self) -> Transform<S> {
        Transform {
            p: self.position,
            q: self.rotation,
        }
    }

    /// The centre of mass in the world.
    #[must_use]
    pub fn world_center(&self) -> Vec2<S> {
        self.position + self.rotation.rotate(self.local_center)
    }

    /// The angle in radians, in `[−π, π]`.
    #[must_use]
    pub fn angle(&self) -> S {
        self.rotation.angle()
    }

    /// Wakes the body (its island wakes with it on the next step).
    pub fn wake(&mut self) {
        self.sleeping = false;
        self.sleep_time = S::ZERO;
    }
}

/// Which colliders meet: `a` and `b` collide when `a.category & b.mask`
/// and `b.category & a.mask` are both non-zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
pub struct Filter {
    /// The layers this collider is on.
    pub category: u32,
    /// The layers it collides with.
    pub mask: u32,
}

impl Default for Filter {
    fn default() -> Self {
        Self {
            category: 1,
            mask: u32::MAX,
        }
    }
}

impl Filter {
    /// Do `self` and `other` collide?
    #[inline]
    #[must_use]
    pub fn accepts(&self, other: &Self) -> bool {
        self.category & other.mask != 0 && other.category & self.mask != 0
    }
}

/// A shape with its material, on a body.
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Collider<S> {
    /// The shape in the body's frame.
    pub shape: Shape<S>,
    /// kg/m² (dynamic bodies get their mass from it).
    pub density: S,
    /// Coulomb friction; a pair uses `√(fa·fb)`.
    pub friction: S,
    /// Bounciness in `0..=1`; a pair uses the larger.
    pub restitution: S,
    /// Reports overlaps (sensor events) and never pushes.
    pub sensor: bool,
    /// Layers and mask.
    pub filter: Filter,
}

impl<S: SimScalar> Collider<S> {
    /// A collider of `shape` with density 1, friction 0.6, restitution 0.
    #[must_use]
    pub fn new(shape: Shape<S>) -> Self {
        Self {
            shape,
            density: S::ONE,
            friction: S::from_ratio(3, 5),
            restitution: S::ZERO,
            sensor: false,
            filter: Filter::default(),
        }
    }

    /// With this density.
    #[must_use]
    pub fn density(mut self, density: S) -> Self {
        self.density = density;
        self
    }

    /// With this friction.
    #[must_use]
    pub fn friction(mut self, friction: S) -> Self {
        self.friction = friction;
        self
    }

    /// With this restitution.
    #[must_use]
    pub fn restitution(mut self, restitution: S) -> Self {
        self.restitution = restitution;
        self
    }

    /// A sensor (or not).
    #[must_use]
    pub fn sensor(mut self, sensor: bool) -> Self {
        self.sensor = sensor;
        self
    }

    /// With this filter.
    #[must_use]
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filter = filter;
        self
    }

    fn validate(&self) -> Result<()> {
        let in_range = |v: S, hi: i32| v.ge(S::ZERO) && v.le(S::from_i32(hi));
        if !in_range(self.density, MAX_DENSITY) {
            return Err(out_of_range(
                SHAPE_INVALID,
                "density",
                self.density,
                "0 ..= 256 kg/m²",
            ));
        }
        if !in_range(self.friction, MAX_FRICTION) {
            return Err(out_of_range(
                SHAPE_INVALID,
                "friction",
                self.friction,
                "0 ..= 16",
            ));
        }
        if !in_range(self.restitution, 1) {
            return Err(out_of_range(
                SHAPE_INVALID,
                "restitution",
                self.restitution,
                "0 ..= 1",
            ));
        }
        Ok(())
    }
}

/// The colliders of one body: a component holding up to
/// [`MAX_COLLIDERS`], in the order given (a collider's index is its
/// identity in contacts and events).
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Colliders<S> {
    len: u8,
    items: [Collider<S>; MAX_COLLIDERS],
}

impl<S: SimScalar> Colliders<S> {
    /// The colliders, in index order.
    #[must_use]
    pub fn as_slice(&self) -> &[Collider<S>] {
        &self.items[..self.len as usize]
    }
}

/// Everything a new body needs besides its colliders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyDef<S> {
    /// Static, kinematic or dynamic.
    pub kind: BodyKind,
    /// The origin, metres.
    pub position: Vec2<S>,
    /// The rotation.
    pub angle: BinaryAngle,
    /// m/s.
    pub linear_velocity: Vec2<S>,
    /// rad/s.
    pub angular_velocity: S,
    /// 1/s.
    pub linear_damping: S,
    /// 1/s.
    pub angular_damping: S,
    /// Gravity multiplier.
    pub gravity_scale: S,
    /// Never rotates.
    pub fixed_rotation: bool,
    /// May fall asleep.
    pub allow_sleep: bool,
}

impl<S: SimScalar> BodyDef<S> {
    /// A body of `kind` at `position`, at rest, no damping, gravity scale 1.
    #[must_use]
    pub fn new(kind: BodyKind, position: Vec2<S>) -> Self {
        Self {
            kind,
            position,
            angle: BinaryAngle::ZERO,
            linear_velocity: Vec2::ZERO,
            angular_velocity: S::ZERO,
            linear_damping: S::ZERO,
            angular_damping: S::ZERO,
            gravity_scale: S::ONE,
            fixed_rotation: false,
            allow_sleep: true,
        }
    }

    /// A dynamic body at `position`.
    #[must_use]
    pub fn dynamic(position: Vec2<S>) -> Self {
        Self::new(BodyKind::Dynamic, position)
    }

    /// A static body at `position`.
    #[must_use]
    pub fn fixed(position: Vec2<S>) -> Self {
        Self::new(BodyKind::Static, position)
    }

    /// Checks the ranges, computes the mass properties and builds the two
    /// components.
    ///
    /// # Errors
    /// `physics/body_invalid` (OutOfRange) for a position, velocity,
    /// damping or gravity scale outside `limits`, or a dynamic body whose
    /// mass or inertia would leave its range; `physics/shape_invalid` for
    /// a collider's material; `physics/capacity_exceeded` for more than
    /// four colliders.
    pub fn build(&self, colliders: &[Collider<S>]) -> Result<(RigidBody<S>, Colliders<S>)> {
        let world = S::from_i32(WORLD_HALF_EXTENT);
        let p = self.position;
        if !(p.x.abs().le(world) && p.y.abs().le(world)) {
            return Err(out_of_range(
                BODY_INVALID,
                "position",
                p,
                "|x|, |y| <= 8192 m",
            ));
        }
        if !self
            .linear_velocity
            .length_wide()
            .le(S::from_i32(MAX_SPEED))
        {
            return Err(out_of_range(
                BODY_INVALID,
                "linear_velocity",
                self.linear_velocity,
                "speed <= 128 m/s",
            ));
        }
        if !self.angular_velocity.abs().le(S::from_i32(MAX_SPIN)) {
            return Err(out_of_range(
                BODY_INVALID,
                "angular_velocity",
                self.angular_velocity,
                "|w| <= 120 rad/s",
            ));
        }
        for (field, v) in [
            ("linear_damping", self.linear_damping),
            ("angular_damping", self.angular_damping),
        ] {
            if !(v.ge(S::ZERO) && v.le(S::from_i32(MAX_DAMPING))) {
                return Err(out_of_range(BODY_INVALID, field, v, "0 ..= 100 per second"));
            }
        }
        if !self.gravity_scale.abs().le(S::from_i32(MAX_GRAVITY_SCALE)) {
            return Err(out_of_range(
                BODY_INVALID,
                "gravity_scale",
                self.gravity_scale,
                "-16 ..= 16",
            ));
        }
        if colliders.len() > MAX_COLLIDERS {
            return Err(invalid(
                CAPACITY_EXCEEDED,
                "colliders",
                colliders.len(),
                "at most 4 colliders per body",
            ));
        }
        let mut set = Colliders::default();
        for (i, c) in colliders.iter().enumerate() {
            c.validate()?;
            set.items[i] = *c;
        }
        set.len = colliders.len() as u8;

        let mut body = RigidBody {
            kind: self.kind,
            position: p,
            rotation: Rot::from_angle(self.angle),
            linear_velocity: self.linear_velocity,
            angular_velocity: self.angular_velocity,
            linear_damping: self.linear_damping,
            angular_damping: self.angular_damping,
            gravity_scale: self.gravity_scale,
            fixed_rotation: self.fixed_rotation,
            allow_sleep: self.allow_sleep,
            ..RigidBody::default()
        };
        if self.kind == BodyKind::Static {
            body.linear_velocity = Vec2::ZERO;
            body.angular_velocity = S::ZERO;
        }
        if self.kind == BodyKind::Dynamic {
            self.mass_properties(&mut body, set.as_slice())?;
        }
        Ok((body, set))
    }

    fn mass_properties(&self, body: &mut RigidBody<S>, colliders: &[Collider<S>]) -> Result<()> {
        // The integer bound first: M <= ρ·4R² and I <= M·R² about the
        // origin, so no sum below can saturate once these fit.
        let mut bound: i64 = 0;
        for c in colliders.iter().filter(|c| !c.sensor) {
            let r = i64::from(c.shape.extent_ceil());
            let d64 = i64::from((c.density * S::from_i32(64)).to_i32_ceil());
            bound += d64 * 4 * r * r * r * r / 64 + 1;
        }
        if bound > i64::from(MAX_INERTIA) {
            return Err(out_of_range(
                BODY_INVALID,
                "mass",
                bound,
                "a dynamic body's density x extent^4 bound <= 30000 (lower the density or size)",
            ));
        }
        let parts = colliders
            .iter()
            .filter(|c| !c.sensor)
            .map(|c| c.shape.mass(c.density));
        let mut mass = S::ZERO;
        let mut moment = Vec2::<S>::ZERO;
        for m in parts.clone() {
            mass += m.mass;
            moment += m.center * m.mass;
        }
        let min_mass = S::from_ratio(1, MIN_MASS_DENOM);
        if !(mass.ge(min_mass) && mass.le(S::from_i32(MAX_MASS))) {
            return Err(out_of_range(
                BODY_INVALID,
                "mass",
                mass,
                "1/256 ..= 4096 kg for a dynamic body (set the colliders' density)",
            ));
        }
        let center = moment / mass;
        let mut inertia = S::ZERO;
        for MassData {
            mass: m,
            center: c,
            inertia: i,
        } in parts
        {
            let d = c - center;
            inertia += i + m * d.dot(d);
        }
        body.mass = mass;
        body.inv_mass = S::ONE / mass;
        body.local_center = center;
        if !self.fixed_rotation {
            if !(inertia.ge(S::from_ratio(1, MIN_INERTIA_DENOM))
                && inertia.le(S::from_i32(MAX_INERTIA)))
            {
                return Err(out_of_range(
                    BODY_INVALID,
                    "inertia",
                    inertia,
                    "1/1024 ..= 30000 kg m² (raise the density, or fix the rotation)",
                ));
            }
            body.inertia = inertia;
            body.inv_inertia = S::ONE / inertia;
        }
        Ok(())
    }
}

/// Spawns a body with its colliders: one entity with a [`RigidBody`] and
/// a [`Colliders`].
///
/// ```
/// use laige_core::{Fpx16_16 as F, Vec2};
/// use laige_physics::{BodyDef, Collider, Shape, spawn_body};
/// use laige_sim::World;
///
/// let mut world = World::default();
/// let ball = Collider::new(Shape::circle(F::from_ratio(1, 2))?);
/// let e = spawn_body(&mut world, &BodyDef::dynamic(Vec2::new(F::ZERO, F::from_i32(4))), &[ball])?;
/// assert!(world.contains(e));
/// # Ok::<(), laige_core::Error>(())
/// ```
///
/// # Errors
/// As [`BodyDef::build`]; nothing is spawned then.
pub fn spawn_body<S: SimScalar>(
    entities: &mut Entities,
    def: &BodyDef<S>,
    colliders: &[Collider<S>],
) -> Result<hecs::Entity> {
    let (body, set) = def.build(colliders)?;
    Ok(entities.spawn((body, set)))
}
