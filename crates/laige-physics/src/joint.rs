//! Joints: revolute (a shared point) and distance (a fixed length between
//! two anchors), each a hashed component on its own entity, naming its two
//! bodies by entity bits. Their accumulated impulses (the next step's warm
//! start) live in the component, so snapshots carry them. Solved softly in
//! the same substeps as the contacts, before them (Box2D v3's order).

use laige_core::{Result, SimScalar, Vec2};
use laige_sim::{Entities, StateHash};

use crate::body::{BodyKind, RigidBody};
use crate::error::{invalid, out_of_range};
use crate::events::BODY_INVALID;
use crate::limits::MAX_SHAPE_EXTENT;
use crate::rot::{cross, left_perp};
use crate::solver::{Softness, SolverBody};

/// What a [`Joint`] keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
pub enum JointKind {
    /// The two anchors stay one point; the bodies turn freely about it.
    #[default]
    Revolute,
    /// The two anchors stay `length` apart.
    Distance,
}

/// A joint between two bodies (a component on its own entity).
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Joint<S> {
    /// Revolute or distance.
    pub kind: JointKind,
    /// Body A's entity bits.
    pub body_a: u64,
    /// Body B's entity bits.
    pub body_b: u64,
    /// The anchor on A, in A's frame (relative to its origin).
    pub local_anchor_a: Vec2<S>,
    /// The anchor on B, in B's frame.
    pub local_anchor_b: Vec2<S>,
    /// The kept length (distance joints).
    pub length: S,
    /// The accumulated point impulse (revolute), N·s.
    pub linear_impulse: Vec2<S>,
    /// The accumulated axial impulse (distance), N·s.
    pub axial_impulse: S,
}

fn body_of<S: SimScalar>(
    entities: &Entities,
    e: hecs::Entity,
    field: &'static str,
) -> Result<RigidBody<S>> {
    entities.get_copied::<RigidBody<S>>(e).ok_or_else(|| {
        invalid(
            BODY_INVALID,
            field,
            format!("{e:?}"),
            "a live entity with a RigidBody",
        )
    })
}

fn check_pair<S: SimScalar>(
    a: &RigidBody<S>,
    b: &RigidBody<S>,
    ea: hecs::Entity,
    eb: hecs::Entity,
) -> Result<()> {
    if ea == eb {
        return Err(invalid(
            BODY_INVALID,
            "body_b",
            format!("{eb:?}"),
            "two different bodies",
        ));
    }
    if a.kind != BodyKind::Dynamic && b.kind != BodyKind::Dynamic {
        return Err(invalid(
            BODY_INVALID,
            "body_b",
            format!("{eb:?}"),
            "at least one dynamic body",
        ));
    }
    Ok(())
}

fn check_lever<S: SimScalar>(field: &'static str, local: Vec2<S>) -> Result<()> {
    let r = local.length_wide();
    if !r.le(S::from_i32(MAX_SHAPE_EXTENT)) {
        return Err(out_of_range(
            BODY_INVALID,
            field,
            r,
            "an anchor within 32 m of its body's origin",
        ));
    }
    Ok(())
}

/// Joins `a` and `b` at the world point `anchor` with a revolute joint;
/// returns the joint's entity.
///
/// # Errors
/// `physics/body_invalid`: a body missing, the same body twice, no
/// dynamic body, or the anchor farther than 32 m from a body's origin.
pub fn spawn_revolute<S: SimScalar>(
    entities: &mut Entities,
    a: hecs::Entity,
    b: hecs::Entity,
    anchor: Vec2<S>,
) -> Result<hecs::Entity> {
    let (ba, bb) = (
        body_of::<S>(entities, a, "body_a")?,
        body_of::<S>(entities, b, "body_b")?,
    );
    check_pair(&ba, &bb, a, b)?;
    let joint = Joint {
        kind: JointKind::Revolute,
        body_a: a.to_bits().get(),
        body_b: b.to_bits().get(),
        local_anchor_a: ba.transform().apply_inv(anchor),
        local_anchor_b: bb.transform().apply_inv(anchor),
        ..Joint::default()
    };
    check_lever("anchor", joint.local_anchor_a)?;
    check_lever("anchor", joint.local_anchor_b)?;
    Ok(entities.spawn((joint,)))
}

/// Keeps the world points `anchor_a` (on `a`) and `anchor_b` (on `b`) at
/// their current distance; returns the joint's entity.
///
/// # Errors
/// As [`spawn_revolute`], and a length outside `1/64 ..= 64` m.
pub fn spawn_distance<S: SimScalar>(
    entities: &mut Entities,
    a: hecs::Entity,
    b: hecs::Entity,
    anchor_a: Vec2<S>,
    anchor_b: Vec2<S>,
) -> Result<hecs::Entity> {
    let (ba, bb) = (
        body_of::<S>(entities, a, "body_a")?,
        body_of::<S>(entities, b, "body_b")?,
    );
    check_pair(&ba, &bb, a, b)?;
    let length = anchor_a.distance_wide(anchor_b);
    if !(length.ge(S::from_ratio(1, 64)) && length.le(S::from_i32(64))) {
        return Err(out_of_range(
            BODY_INVALID,
            "length",
            length,
            "1/64 ..= 64 m",
        ));
    }
    let joint = Joint {
        kind: JointKind::Distance,
        body_a: a.to_bits().get(),
        body_b: b.to_bits().get(),
        local_anchor_a: ba.transform().apply_inv(anchor_a),
        local_anchor_b: bb.transform().apply_inv(anchor_b),
        length,
        ..Joint::default()
    };
    check_lever("anchor_a", joint.local_anchor_a)?;
    check_lever("anchor_b", joint.local_anchor_b)?;
    Ok(entities.spawn((joint,)))
}

/// A joint as the step solves it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointEntry<S> {
    pub(crate) entity: hecs::Entity,
    pub(crate) joint: Joint<S>,
    pub(crate) a: u32,
    pub(crate) b: u32,
    /// Anchors relative to the centres of mass, world orientation, at the
    /// step's start.
    ra: Vec2<S>,
    rb: Vec2<S>,
    /// `centre_b − centre_a` at the step's start.
    delta_center: Vec2<S>,
    axis: Vec2<S>,
    axial_mass: S,
    /// Both bodies asleep or fixed: skipped.
    pub(crate) active: bool,
}

impl<S: SimScalar> JointEntry<S> {
    pub(crate) fn new(entity: hecs::Entity, joint: Joint<S>, a: u32, b: u32) -> Self {
        Self {
            entity,
            joint,
            a,
            b,
            ra: Vec2::ZERO,
            rb: Vec2::ZERO,
            delta_center: Vec2::ZERO,
            axis: Vec2::ZERO,
            axial_mass: S::ZERO,
            active: false,
        }
    }

    pub(crate) fn prepare(
        &mut self,
        ba: &RigidBody<S>,
        bb: &RigidBody<S>,
        sa: &SolverBody<S>,
        sb: &SolverBody<S>,
    ) {
        let j = &self.joint;
        self.ra = ba.rotation.rotate(j.local_anchor_a - ba.local_center);
        self.rb = bb.rotation.rotate(j.local_anchor_b - bb.local_center);
        self.delta_center = bb.world_center() - ba.world_center();
        let d = self.delta_center + self.rb - self.ra;
        self.axis = d.normalize_wide();
        let cra = cross(self.ra, self.axis);
        let crb = cross(self.rb, self.axis);
        let k = sa.inv_mass + sb.inv_mass + sa.inv_i * cra * cra + sb.inv_i * crb * crb;
        self.axial_mass = if k.gt(S::ZERO) { S::ONE / k } else { S::ZERO };
        self.active = sa.dynamic || sb.dynamic;
    }

    fn apply(&self, bodies: &mut [SolverBody<S>], ra: Vec2<S>, rb: Vec2<S>, p: Vec2<S>) {
        let a = &mut bodies[self.a as usize];
        a.v -= p * a.inv_mass;
        a.w -= a.inv_i * cross(ra, p);
        let b = &mut bodies[self.b as usize];
        b.v += p * b.inv_mass;
        b.w += b.inv_i * cross(rb, p);
    }

    fn anchors(&self, bodies: &[SolverBody<S>]) -> (Vec2<S>, Vec2<S>, Vec2<S>) {
        let (a, b) = (&bodies[self.a as usize], &bodies[self.b as usize]);
        let ra = a.dq.rotate(self.ra);
        let rb = b.dq.rotate(self.rb);
        let sep = (b.dp - a.dp) + self.delta_center + rb - ra;
        (ra, rb, sep)
    }

    pub(crate) fn warm_start(&self, bodies: &mut [SolverBody<S>]) {
        let (ra, rb, _) = self.anchors(bodies);
        let p = match self.joint.kind {
            JointKind::Revolute => self.joint.linear_impulse,
            JointKind::Distance => self.axis * self.joint.axial_impulse,
        };
        self.apply(bodies, ra, rb, p);
    }

    pub(crate) fn solve(
        &mut self,
        bodies: &mut [SolverBody<S>],
        soft: Softness<S>,
        use_bias: bool,
    ) {
        let (ra, rb, sep) = self.anchors(bodies);
        let (a, b) = (&bodies[self.a as usize], &bodies[self.b as usize]);
        let (ma, ia, mb, ib) = (a.inv_mass, a.inv_i, b.inv_mass, b.inv_i);
        let vr = SolverBody::relative_velocity(a, b, ra, rb);
        let (scale, impulse_scale, bias_rate) = if use_bias {
            (soft.mass_scale, soft.impulse_scale, soft.bias_rate)
        } else {
            (S::ONE, S::ZERO, S::ZERO)
        };
        match self.joint.kind {
            JointKind::Revolute => {
                let bias = sep * bias_rate;
                let x = solve_point(ma + mb, ia, left_perp(ra), ib, left_perp(rb), vr + bias);
                let impulse = -(x * scale) - self.joint.linear_impulse * impulse_scale;
                self.joint.linear_impulse += impulse;
                self.apply(bodies, ra, rb, impulse);
            }
            JointKind::Distance => {
                let axis = sep.normalize_wide();
                let c = sep.length_wide() - self.joint.length;
                let cdot = axis.dot(vr);
                let impulse = -scale * self.axial_mass * (cdot + bias_rate * c)
                    - impulse_scale * self.joint.axial_impulse;
                self.joint.axial_impulse += impulse;
                self.apply(bodies, ra, rb, axis * impulse);
            }
        }
    }
}

/// `K⁻¹·v` for the point constraint's mass matrix
/// `K = m·I + iA·pA·pAᵀ + iB·pB·pBᵀ` (`pX` the perpendicular lever arms),
/// by Sherman–Morrison twice: no determinant, so none of the large,
/// cancelling products a 2×2 inverse forms (a light bob on a long arm
/// would saturate them in Q16.16).
fn solve_point<S: SimScalar>(m: S, ia: S, pa: Vec2<S>, ib: S, pb: Vec2<S>, v: Vec2<S>) -> Vec2<S> {
    if !m.gt(S::ZERO) {
        return Vec2::ZERO;
    }
    let da = m + ia * pa.dot(pa);
    let ka = if da.gt(S::ZERO) { ia / da } else { S::ZERO };
    let m1_inv = |x: Vec2<S>| (x - pa * (pa.dot(x) * ka)) / m;
    let u = m1_inv(v);
    let w = m1_inv(pb);
    let den = S::ONE + ib * pb.dot(w);
    let kb = if den.gt(S::ZERO) { ib / den } else { S::ZERO };
    u - w * (pb.dot(u) * kb)
}
