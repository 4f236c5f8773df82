//! The soft-step contact solver (Box2D v3's): per substep integrate
//! velocities, warm start, solve with a soft positional bias, integrate
//! positions, relax without bias; then restitution, then the impulses go
//! back to the contact cache for the next step's warm start. The
//! iteration count is fixed (one solve and one relax per substep).

use std::any::Any;

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2};

use crate::body::BodyKind;
use crate::limits::MAX_SPEED;
use crate::rot::{Rot, cross, cross_sv, right_perp};
use crate::row_math::{RowArms, RowMass, RowMath, RowVel};
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

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintPoint<S> {
    ra: Vec2<S>,
    rb: Vec2<S>,
    /// `ra × n`, `rb × n`, `ra × t`, `rb × t`: the lever arms' share of a
    /// normal or tangent impulse, so a spin's part of a point's velocity
    /// along `n` is `w·(r × n)`.
    rna: S,
    rnb: S,
    rta: S,
    rtb: S,
    adjusted_separation: S,
    /// The separation the last relax pass computed: the bodies have not
    /// moved since, so the next substep's biased pass reads it.
    separation: S,
    normal_mass: S,
    tangent_mass: S,
    normal_impulse: S,
    tangent_impulse: S,
    max_normal_impulse: S,
    relative_velocity: S,
    /// The backend's precomputed factors of the velocity updates.
    arms: RowArms<S>,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Constraint<S> {
    a: u32,
    b: u32,
    ma: S,
    ia: S,
    mb: S,
    ib: S,
    contact: u32,
    normal: Vec2<S>,
    friction: S,
    restitution: S,
    soft: Softness<S>,
    count: u8,
    points: [ConstraintPoint<S>; 2],
}

fn inv_or_zero<S: SimScalar>(k: S) -> S {
    if k.gt(S::ZERO) { S::ONE / k } else { S::ZERO }
}

/// Runs the solver over the scratch's bodies and the state's contacts;
/// returns how many speed clamps it made.
///
/// The rows' arithmetic is each backend's [`RowMath`], chosen here by
/// type (`SimScalar` is sealed to the two backends; the type test is
/// decided at compile time, so each backend's step calls its rows
/// directly).
pub(crate) fn solve<S: SimScalar>(
    state: &mut PhysicsState<S>,
    scratch: &mut PhysicsScratch<S>,
) -> u64 {
    let (state, scratch): (&mut dyn Any, &mut dyn Any) = (state, scratch);
    if let (Some(state), Some(scratch)) = (
        state.downcast_mut::<PhysicsState<Fpx16_16>>(),
        scratch.downcast_mut::<PhysicsScratch<Fpx16_16>>(),
    ) {
        return solve_with(state, scratch);
    }
    if let (Some(state), Some(scratch)) = (
        state.downcast_mut::<PhysicsState<Fp32Pinned>>(),
        scratch.downcast_mut::<PhysicsScratch<Fp32Pinned>>(),
    ) {
        return solve_with(state, scratch);
    }
    0
}

fn solve_with<S: RowMath>(state: &mut PhysicsState<S>, scratch: &mut PhysicsScratch<S>) -> u64 {
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
        let mut s = SolverBody {
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
        };
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

    // Contacts.
    scratch.constraints.clear();
    for (ci, (c, &(a, b))) in state
        .contacts
        .iter()
        .zip(&scratch.contact_bodies)
        .enumerate()
    {
        if !c.touching || c.sensor || c.count == 0 {
            continue;
        }
        let (a, b) = (a as usize, b as usize);
        let (sa, sb) = (&scratch.solver[a], &scratch.solver[b]);
        if !sa.dynamic && !sb.dynamic {
            continue;
        }
        let (ea, eb) = (&scratch.bodies[a], &scratch.bodies[b]);
        let col_a = &scratch.colliders[ea.first as usize + c.collider_a as usize];
        let col_b = &scratch.colliders[eb.first as usize + c.collider_b as usize];
        let (ma, ia, mb, ib) = (sa.inv_mass, sa.inv_i, sb.inv_mass, sb.inv_i);
        let ca = ea.body.rotation.rotate(ea.body.local_center);
        let cb = eb.body.rotation.rotate(eb.body.local_center);
        let normal = c.normal;
        let tangent = right_perp(normal);
        let mut k = Constraint {
            a: a as u32,
            b: b as u32,
            ma,
            ia,
            mb,
            ib,
            contact: ci as u32,
            normal,
            friction: (col_a.friction * col_b.friction).sqrt(),
            restitution: col_a.restitution.max(col_b.restitution),
            soft: if ma == S::ZERO || mb == S::ZERO {
                static_soft
            } else {
                soft
            },
            count: c.count,
            points: [ConstraintPoint::default(); 2],
        };
        for (j, cp) in c.points[..c.count as usize].iter().enumerate() {
            let ra = cp.anchor_a - ca;
            let rb = cp.anchor_b - cb;
            let rna = cross(ra, normal);
            let rnb = cross(rb, normal);
            let kn = ma + mb + ia * rna * rna + ib * rnb * rnb;
            let rta = cross(ra, tangent);
            let rtb = cross(rb, tangent);
            let kt = ma + mb + ia * rta * rta + ib * rtb * rtb;
            let dv = sb.v + cross_sv(sb.w, rb) - sa.v - cross_sv(sa.w, ra);
            k.points[j] = ConstraintPoint {
                ra,
                rb,
                rna,
                rnb,
                rta,
                rtb,
                adjusted_separation: cp.separation - (rb - ra).dot(normal),
                separation: S::ZERO,
                normal_mass: inv_or_zero(kn),
                tangent_mass: inv_or_zero(kt),
                normal_impulse: cp.normal_impulse,
                tangent_impulse: cp.tangent_impulse,
                max_normal_impulse: S::ZERO,
                relative_velocity: normal.dot(dv),
                arms: S::row_arms(&RowMass { ma, ia, mb, ib }, normal, [rna, rnb, rta, rtb]),
            };
        }
        scratch.constraints.push(k);
    }

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
        warm_start(&mut scratch.solver, &scratch.constraints);
        for j in scratch.joints.iter_mut().filter(|j| j.active) {
            j.solve(&mut scratch.solver, joint_soft, true);
        }
        // Each pass is its own instance of the rows: the pass's tests are
        // decided at compile time, outside the loops.
        if substep == 0 {
            solve_contacts::<S, FIRST>(&mut scratch.solver, &mut scratch.constraints, inv_h, push);
        } else {
            solve_contacts::<S, BIASED>(&mut scratch.solver, &mut scratch.constraints, inv_h, push);
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
        solve_contacts::<S, RELAX>(&mut scratch.solver, &mut scratch.constraints, inv_h, push);
    }
    restitution(
        &mut scratch.solver,
        &mut scratch.constraints,
        cfg.restitution_threshold,
    );

    // Impulses back to the cache (the next step's warm start).
    for k in &scratch.constraints {
        let c = &mut state.contacts[k.contact as usize];
        for (cp, p) in c.points.iter_mut().zip(&k.points[..k.count as usize]) {
            cp.normal_impulse = p.normal_impulse;
            cp.tangent_impulse = p.tangent_impulse;
            cp.max_normal_impulse = p.max_normal_impulse;
        }
    }

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

#[inline]
fn apply<S: SimScalar>(
    bodies: &mut [SolverBody<S>],
    k: &Constraint<S>,
    ra: Vec2<S>,
    rb: Vec2<S>,
    p: Vec2<S>,
) {
    let a = &mut bodies[k.a as usize];
    a.v -= p * a.inv_mass;
    a.w -= a.inv_i * cross(ra, p);
    let b = &mut bodies[k.b as usize];
    b.v += p * b.inv_mass;
    b.w += b.inv_i * cross(rb, p);
}

fn relative_velocity<S: SimScalar>(
    bodies: &[SolverBody<S>],
    k: &Constraint<S>,
    ra: Vec2<S>,
    rb: Vec2<S>,
) -> Vec2<S> {
    let (a, b) = (&bodies[k.a as usize], &bodies[k.b as usize]);
    b.v + cross_sv(b.w, rb) - a.v - cross_sv(a.w, ra)
}

fn warm_start<S: RowMath>(bodies: &mut [SolverBody<S>], constraints: &[Constraint<S>]) {
    for k in constraints {
        let tangent = right_perp(k.normal);
        // The bodies' velocities in locals for the whole constraint (the
        // same operations in the same order as one `apply` per point).
        let (sa, sb) = (&bodies[k.a as usize], &bodies[k.b as usize]);
        let mut v = RowVel {
            va: sa.v,
            wa: sa.w,
            vb: sb.v,
            wb: sb.w,
        };
        let m = RowMass {
            ma: sa.inv_mass,
            ia: sa.inv_i,
            mb: sb.inv_mass,
            ib: sb.inv_i,
        };
        for p in &k.points[..k.count as usize] {
            S::warm_point(
                &mut v,
                &m,
                (k.normal, tangent),
                (p.normal_impulse, p.tangent_impulse),
                (p.ra, p.rb),
                &p.arms,
            );
        }
        store_velocities(bodies, k, (v.va, v.wa), (v.vb, v.wb));
    }
}

/// Writes a constraint's two bodies' velocities back (linear, angular),
/// after a loop kept them in locals.
#[inline]
fn store_velocities<S: SimScalar>(
    bodies: &mut [SolverBody<S>],
    k: &Constraint<S>,
    (va, wa): (Vec2<S>, S),
    (vb, wb): (Vec2<S>, S),
) {
    let sa = &mut bodies[k.a as usize];
    sa.v = va;
    sa.w = wa;
    let sb = &mut bodies[k.b as usize];
    sb.v = vb;
    sb.w = wb;
}

// The passes of the contact rows within a substep (`solve_contacts`'s
// `PASS`):
/// The first substep's biased pass: separations from the motion so far.
const FIRST: u8 = 0;
/// A later substep's biased pass: the bodies have not moved since the
/// previous relax pass, so its separations are read, not recomputed
/// (the same inputs and operations: the same bits wherever binary32
/// arithmetic rounds every operation — on x87 (i586) the recomputation
/// kept 80-bit intermediates, so reading the stored value changed that
/// target's pinned-float answer).
const BIASED: u8 = 1;
/// The relax pass, after the positions moved: separations computed and
/// kept for the next substep.
const RELAX: u8 = 2;

fn solve_contacts<S: RowMath, const PASS: u8>(
    bodies: &mut [SolverBody<S>],
    constraints: &mut [Constraint<S>],
    inv_h: S,
    max_push: S,
) {
    let use_bias = PASS != RELAX;
    for k in constraints.iter_mut() {
        let normal = k.normal;
        let tangent = right_perp(normal);
        let m = RowMass {
            ma: k.ma,
            ia: k.ia,
            mb: k.mb,
            ib: k.ib,
        };
        let (sa, sb) = (&bodies[k.a as usize], &bodies[k.b as usize]);
        let (dpa, dqa) = (sa.dp, sa.dq);
        let (dpb, dqb) = (sb.dp, sb.dq);
        let mut v = RowVel {
            va: sa.v,
            wa: sa.w,
            vb: sb.v,
            wb: sb.w,
        };
        let dp = dpb - dpa;
        for p in &mut k.points[..k.count as usize] {
            // The current separation from the motion so far.
            let s = if PASS == BIASED {
                p.separation
            } else {
                S::separation(dp, (dqa, dqb), (p.ra, p.rb), normal, p.adjusted_separation)
            };
            p.separation = s;
            let vn = S::row_speed(&v, normal, p.rna, p.rnb);
            // Rigid rows (speculative, or relaxing) have mass scale one and
            // impulse scale zero: `x·1 = x` and `x − 0·impulse = x` exactly
            // on both backends (the accumulated impulse is never −0: it is
            // a `max` with +0), so they skip those two products.
            let impulse = if s.gt(S::ZERO) {
                S::speculative_impulse(p.normal_mass, vn, s, inv_h)
            } else if use_bias {
                S::soft_impulse(p.normal_mass, &k.soft, (vn, s), max_push, p.normal_impulse)
            } else {
                S::rigid_impulse(p.normal_mass, vn)
            };
            let new = (p.normal_impulse + impulse).max(S::ZERO);
            let applied = new - p.normal_impulse;
            p.normal_impulse = new;
            p.max_normal_impulse = p.max_normal_impulse.max(applied);
            S::apply_row(
                &mut v,
                &m,
                (normal, applied),
                (p.rna, p.rnb),
                (p.arms.lin_a, p.arms.lin_b),
                p.arms.ang_n,
            );
        }
        for p in &mut k.points[..k.count as usize] {
            let vt = S::row_speed(&v, tangent, p.rta, p.rtb);
            let (impulse, max_f) =
                S::friction_impulse(p.tangent_mass, vt, k.friction, p.normal_impulse);
            let new = (p.tangent_impulse + impulse).clamp(-max_f, max_f);
            let applied = new - p.tangent_impulse;
            p.tangent_impulse = new;
            S::apply_row(
                &mut v,
                &m,
                (tangent, applied),
                (p.rta, p.rtb),
                (right_perp(p.arms.lin_a), right_perp(p.arms.lin_b)),
                p.arms.ang_t,
            );
        }
        store_velocities(bodies, k, (v.va, v.wa), (v.vb, v.wb));
    }
}

fn restitution<S: SimScalar>(
    bodies: &mut [SolverBody<S>],
    constraints: &mut [Constraint<S>],
    threshold: S,
) {
    for k in constraints.iter_mut() {
        if k.restitution == S::ZERO {
            continue;
        }
        let normal = k.normal;
        for j in 0..k.count as usize {
            let p = k.points[j];
            if p.relative_velocity.gt(-threshold) || p.max_normal_impulse == S::ZERO {
                continue;
            }
            let vn = relative_velocity(bodies, k, p.ra, p.rb).dot(normal);
            let impulse = -p.normal_mass * (vn + k.restitution * p.relative_velocity);
            let new = (p.normal_impulse + impulse).max(S::ZERO);
            let applied = new - p.normal_impulse;
            let pt = &mut k.points[j];
            pt.normal_impulse = new;
            pt.max_normal_impulse = pt.max_normal_impulse.max(applied);
            apply(bodies, k, p.ra, p.rb, normal * applied);
        }
    }
}
