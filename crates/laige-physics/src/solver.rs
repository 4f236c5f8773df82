//! The soft-step contact solver (Box2D v3's): per substep integrate
//! velocities, warm start, solve with a soft positional bias, integrate
//! positions, relax without bias; then restitution, then the impulses go
//! back to the contact cache for the next step's warm start. The
//! iteration count is fixed (one solve and one relax per substep).
//!
//! The contacts are solved as coloured bundles of four (`bundle.rs`,
//! `contact_rows.rs`); the joints one at a time before them.

use std::any::Any;

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2, VectorUnit};

use crate::body::BodyKind;
use crate::bundle::{self, ContactSoftness};
use crate::contact_rows::{self, BIASED, FIRST, LaneOrder, RELAX};
use crate::limits::MAX_SPEED;
use crate::rot::{Rot, cross_sv};
use crate::row_math::RowMath;
use crate::state::PhysicsState;
use crate::step::PhysicsScratch;

/// A body's velocity and motion within the step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverBody<S> {
    pub(crate) v: Vec2<S>,
    pub(crate) w: S,
    /// Motion of the centre of mass since the step began.
    pub(crate) dp: Vec2<S>,
    /// The sum of the substeps' velocities: `dp = vsum·h`, one rounding
    /// per substep for the whole motion instead of one per substep's part
    /// (a velocity below half an ulp per substep still moves the body).
    vsum: Vec2<S>,
    /// Rotation since the step began.
    pub(crate) dq: Rot<S>,
    pub(crate) inv_mass: S,
    pub(crate) inv_i: S,
    linear_damping: S,
    angular_damping: S,
    gravity_scale: S,
    /// Integrated: awake dynamic (velocity and position) or kinematic
    /// (position).
    pub(crate) dynamic: bool,
    moves: bool,
    clamped: bool,
}

impl<S: SimScalar> SolverBody<S> {
    /// How fast the point at arm `rb` of `b` moves relative to the point at
    /// arm `ra` of `a` (arms from the centres of mass).
    #[inline]
    pub(crate) fn relative_velocity(a: &Self, b: &Self, ra: Vec2<S>, rb: Vec2<S>) -> Vec2<S> {
        b.v + cross_sv(b.w, rb) - a.v - cross_sv(a.w, ra)
    }

    /// A body that neither moves nor takes impulses (a fixed one's entry).
    fn at_rest() -> Self {
        Self {
            v: Vec2::ZERO,
            w: S::ZERO,
            dp: Vec2::ZERO,
            vsum: Vec2::ZERO,
            dq: Rot::IDENTITY,
            inv_mass: S::ZERO,
            inv_i: S::ZERO,
            linear_damping: S::ONE,
            angular_damping: S::ONE,
            gravity_scale: S::ZERO,
            dynamic: false,
            moves: false,
            clamped: false,
        }
    }
}

/// A spring-damper's constants for one substep length.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Softness<S> {
    pub(crate) bias_rate: S,
    pub(crate) mass_scale: S,
    pub(crate) impulse_scale: S,
}

impl<S: SimScalar> Softness<S> {
    fn new(hertz: S, zeta: S, h: S) -> Self {
        if hertz == S::ZERO {
            return Self {
                bias_rate: S::ZERO,
                mass_scale: S::ONE,
                impulse_scale: S::ZERO,
            };
        }
        let omega = S::TAU * hertz;
        let a1 = S::from_i32(2) * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = S::ONE / (S::ONE + a2);
        Self {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

/// Runs the solver over the scratch's bodies and the state's contacts;
/// returns how many speed clamps it made.
///
/// The rows' arithmetic is each backend's [`RowMath`], chosen here by
/// type (`SimScalar` is sealed to the two backends; the type test is
/// decided at compile time, so each backend's step calls its rows
/// directly). The solver is built for each vector unit and runs on the
/// widest the CPU has, up to the backend's [`RowMath::WIDEST_USEFUL`]:
/// every unit computes the same bits.
pub(crate) fn solve<S: SimScalar>(
    state: &mut PhysicsState<S>,
    scratch: &mut PhysicsScratch<S>,
) -> u64 {
    let (state, scratch): (&mut dyn Any, &mut dyn Any) = (state, scratch);
    if let (Some(state), Some(scratch)) = (
        state.downcast_mut::<PhysicsState<Fpx16_16>>(),
        scratch.downcast_mut::<PhysicsScratch<Fpx16_16>>(),
    ) {
        let unit = VectorUnit::widest().min(Fpx16_16::WIDEST_USEFUL);
        return unit.run(
            #[inline(always)]
            || solve_with(state, scratch, unit),
        );
    }
    if let (Some(state), Some(scratch)) = (
        state.downcast_mut::<PhysicsState<Fp32Pinned>>(),
        scratch.downcast_mut::<PhysicsScratch<Fp32Pinned>>(),
    ) {
        let unit = VectorUnit::widest().min(Fp32Pinned::WIDEST_USEFUL);
        return unit.run(
            #[inline(always)]
            || solve_with(state, scratch, unit),
        );
    }
    0
}

#[inline(always)]
fn solve_with<S: RowMath>(
    state: &mut PhysicsState<S>,
    scratch: &mut PhysicsScratch<S>,
    unit: VectorUnit,
) -> u64 {
    // Q16.16's lanes need 64-bit multiplies and compares: without them
    // (baseline x86-64, other architectures) a lane at a time is faster.
    let order = if S::EXACT_ZERO_ROWS && unit == VectorUnit::Portable {
        LaneOrder::Along
    } else {
        LaneOrder::Across
    };
    let cfg = state.config;
    let substeps = S::from_i32(i32::from(cfg.substeps));
    let h = cfg.dt / substeps;
    let inv_h = substeps / cfg.dt;
    let hertz = cfg.contact_hertz.min(S::from_ratio(1, 4) * inv_h);
    let soft = Softness::new(hertz, cfg.contact_damping_ratio, h);
    let static_soft = Softness::new(S::from_i32(2) * hertz, cfg.contact_damping_ratio, h);
    let joint_soft = Softness::new(S::from_i32(2) * hertz, S::from_i32(2), h);

    // Bodies.
    scratch.solver.clear();
    for b in &scratch.bodies {
        let body = &b.body;
        let mut s = SolverBody::at_rest();
        match body.kind {
            BodyKind::Dynamic if b.awake => {
                s.v = body.linear_velocity;
                s.w = body.angular_velocity;
                s.inv_mass = body.inv_mass;
                s.inv_i = body.inv_inertia;
                s.linear_damping = S::ONE / (S::ONE + h * body.linear_damping);
                s.angular_damping = S::ONE / (S::ONE + h * body.angular_damping);
                s.gravity_scale = body.gravity_scale;
                s.dynamic = true;
                s.moves = true;
            }
            BodyKind::Kinematic => {
                s.v = body.linear_velocity;
                s.w = body.angular_velocity;
                s.moves = true;
            }
            _ => {}
        }
        scratch.solver.push(s);
    }

    // Joints.
    for j in &mut scratch.joints {
        let (a, b) = (j.a as usize, j.b as usize);
        j.prepare(
            &scratch.bodies[a].body,
            &scratch.bodies[b].body,
            &scratch.solver[a],
            &scratch.solver[b],
        );
    }

    // The spare entry: where the contact rows write a fixed or kinematic
    // body's velocity, and the bodies of a bundle's empty lanes.
    scratch.solver.push(SolverBody::at_rest());

    // Contacts.
    bundle::build(
        state,
        scratch,
        ContactSoftness {
            between_dynamic: soft,
            against_fixed: static_soft,
        },
    );

    let gravity = cfg.gravity;
    let max_speed = S::from_i32(MAX_SPEED);
    let half_speed = S::from_i32(MAX_SPEED / 2);
    let push = cfg.contact_push_max_velocity;
    for substep in 0..cfg.substeps {
        // Integrate velocities.
        for s in scratch.solver.iter_mut().filter(|s| s.dynamic) {
            s.v = s.v * s.linear_damping + gravity * (h * s.gravity_scale);
            s.w *= s.angular_damping;
            if (s.v.x.abs().gt(half_speed) || s.v.y.abs().gt(half_speed))
                && s.v.length_wide().gt(max_speed)
            {
                s.v = s.v.normalize_wide() * max_speed;
                s.clamped = true;
            }
        }
        for j in scratch.joints.iter().filter(|j| j.active) {
            j.warm_start(&mut scratch.solver);
        }
        contact_rows::warm_start(&mut scratch.solver, &scratch.bundle.bundles, order);
        for j in scratch.joints.iter_mut().filter(|j| j.active) {
            j.solve(&mut scratch.solver, joint_soft, true);
        }
        // Each pass is its own instance of the rows: the pass's tests are
        // decided at compile time, outside the loops.
        let (bodies, bundles) = (&mut scratch.solver, &mut scratch.bundle.bundles);
        if substep == 0 {
            contact_rows::solve::<S, FIRST>(bodies, bundles, order, inv_h, push);
        } else {
            contact_rows::solve::<S, BIASED>(bodies, bundles, order, inv_h, push);
        }
        // Integrate positions.
        for s in scratch.solver.iter_mut().filter(|s| s.moves) {
            s.vsum += s.v;
            s.dp = s.vsum * h;
            s.dq = s.dq.integrate(h * s.w);
        }
        for j in scratch.joints.iter_mut().filter(|j| j.active) {
            j.solve(&mut scratch.solver, joint_soft, false);
        }
        contact_rows::solve::<S, RELAX>(
            &mut scratch.solver,
            &mut scratch.bundle.bundles,
            order,
            inv_h,
            push,
        );
    }
    contact_rows::restitution(
        &mut scratch.solver,
        &mut scratch.bundle.bundles,
        cfg.restitution_threshold,
    );

    // Impulses back to the cache (the next step's warm start).
    contact_rows::store_impulses(state, &scratch.bundle.bundles);

    // Finalize the moving bodies.
    let mut clamps = 0;
    for (b, s) in scratch.bodies.iter_mut().zip(&scratch.solver) {
        if !s.moves {
            continue;
        }
        let body = &mut b.body;
        let center = body.world_center() + s.dp;
        if s.dq != Rot::IDENTITY {
            body.rotation = s.dq.then(body.rotation).normalized();
        }
        body.position = center - body.rotation.rotate(body.local_center);
        if s.dynamic {
            body.linear_velocity = s.v;
            body.angular_velocity = s.w;
        }
        clamps += u64::from(s.clamped);
    }
    clamps
}
