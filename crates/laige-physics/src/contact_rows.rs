//! The contact rows over bundles: warm start, the biased and relaxing
//! passes, restitution and the impulses' return to the contact cache.
//!
//! Each pass loads a bundle's bodies' velocities into lanes, runs every
//! row lane by lane with the backend's [`RowMath`], and stores them back.
//! A lane's work is the scalar row's, operation for operation, written
//! without branches (both impulses computed, one selected), so the
//! compiler runs the four lanes in one vector register where the unit has
//! the operations, with the same bits as one lane at a time.

use laige_core::{SimScalar, Vec2};

use crate::bundle::{Bundle, LANES, Lanes};
use crate::rot::{Rot, cross, cross_sv, right_perp};
use crate::row_math::{RowArms, RowMass, RowMath, RowVel};
use crate::solver::{Softness, SolverBody};
use crate::state::PhysicsState;

/// A bundle's bodies' velocities, lane by lane.
#[derive(Clone, Copy)]
struct LaneVel<S> {
    vax: Lanes<S>,
    vay: Lanes<S>,
    wa: Lanes<S>,
    vbx: Lanes<S>,
    vby: Lanes<S>,
    wb: Lanes<S>,
}

impl<S: SimScalar> LaneVel<S> {
    #[inline(always)]
    fn load(bodies: &[SolverBody<S>], k: &Bundle<S>) -> Self {
        let mut v = Self {
            vax: [S::ZERO; LANES],
            vay: [S::ZERO; LANES],
            wa: [S::ZERO; LANES],
            vbx: [S::ZERO; LANES],
            vby: [S::ZERO; LANES],
            wb: [S::ZERO; LANES],
        };
        for l in 0..LANES {
            let (a, b) = (&bodies[k.a[l] as usize], &bodies[k.b[l] as usize]);
            v.vax[l] = a.v.x;
            v.vay[l] = a.v.y;
            v.wa[l] = a.w;
            v.vbx[l] = b.v.x;
            v.vby[l] = b.v.y;
            v.wb[l] = b.w;
        }
        v
    }

    /// Writes the velocities back (a lane's fixed or kinematic body goes
    /// to the spare entry).
    #[inline(always)]
    fn store(&self, bodies: &mut [SolverBody<S>], k: &Bundle<S>) {
        for l in 0..LANES {
            let a = &mut bodies[k.wa[l] as usize];
            a.v = Vec2::new(self.vax[l], self.vay[l]);
            a.w = self.wa[l];
            let b = &mut bodies[k.wb[l] as usize];
            b.v = Vec2::new(self.vbx[l], self.vby[l]);
            b.w = self.wb[l];
        }
    }

    #[inline(always)]
    fn lane(&self, l: usize) -> RowVel<S> {
        RowVel {
            va: Vec2::new(self.vax[l], self.vay[l]),
            wa: self.wa[l],
            vb: Vec2::new(self.vbx[l], self.vby[l]),
            wb: self.wb[l],
        }
    }

    #[inline(always)]
    fn set_lane(&mut self, l: usize, v: &RowVel<S>) {
        self.vax[l] = v.va.x;
        self.vay[l] = v.va.y;
        self.wa[l] = v.wa;
        self.vbx[l] = v.vb.x;
        self.vby[l] = v.vb.y;
        self.wb[l] = v.wb;
    }
}

/// `a` where `c`, else `b` (a select, not a branch).
#[inline(always)]
fn select<S: Copy>(c: bool, a: S, b: S) -> S {
    if c { a } else { b }
}

/// `x` if above zero, else `+0` (an accumulated normal impulse never
/// pulls).
#[inline(always)]
fn at_least_zero<S: SimScalar>(x: S) -> S {
    select(x.gt(S::ZERO), x, S::ZERO)
}

/// `x` bounded to `−bound ..= bound` (a friction impulse within the cone).
#[inline(always)]
fn within<S: SimScalar>(x: S, bound: S) -> S {
    x.clamp(-bound, bound)
}

/// A bundle's per-constraint values the rows read (its points apart).
struct Head<S> {
    ma: Lanes<S>,
    ia: Lanes<S>,
    mb: Lanes<S>,
    ib: Lanes<S>,
    nx: Lanes<S>,
    ny: Lanes<S>,
}

impl<S: SimScalar> Head<S> {
    #[inline(always)]
    fn of(k: &Bundle<S>) -> Self {
        Self {
            ma: k.ma,
            ia: k.ia,
            mb: k.mb,
            ib: k.ib,
            nx: k.nx,
            ny: k.ny,
        }
    }

    #[inline(always)]
    fn mass(&self, l: usize) -> RowMass<S> {
        RowMass {
            ma: self.ma[l],
            ia: self.ia[l],
            mb: self.mb[l],
            ib: self.ib[l],
        }
    }

    #[inline(always)]
    fn normal(&self, l: usize) -> Vec2<S> {
        Vec2::new(self.nx[l], self.ny[l])
    }
}

/// Applies every constraint's accumulated impulses (the last step's, or
/// this step's so far) to its bodies.
#[inline(always)]
pub(crate) fn warm_start<S: RowMath>(bodies: &mut [SolverBody<S>], bundles: &[Bundle<S>]) {
    for k in bundles {
        let mut vel = LaneVel::load(bodies, k);
        let head = Head::of(k);
        for p in &k.points[..usize::from(k.points_used)] {
            for l in 0..LANES {
                let n = head.normal(l);
                let mut v = vel.lane(l);
                let arms = RowArms {
                    lin_a: Vec2::new(p.lin_ax[l], p.lin_ay[l]),
                    lin_b: Vec2::new(p.lin_bx[l], p.lin_by[l]),
                    ang_n: (p.ang_na[l], p.ang_nb[l]),
                    ang_t: (p.ang_ta[l], p.ang_tb[l]),
                };
                S::warm_point(
                    &mut v,
                    &head.mass(l),
                    (n, right_perp(n)),
                    (p.normal_impulse[l], p.tangent_impulse[l]),
                    (
                        Vec2::new(p.rax[l], p.ray[l]),
                        Vec2::new(p.rbx[l], p.rby[l]),
                    ),
                    &arms,
                );
                vel.set_lane(l, &v);
            }
        }
        vel.store(bodies, k);
    }
}

// The passes of the contact rows within a substep (`solve`'s `PASS`):
/// The first substep's biased pass: separations from the motion so far.
pub(crate) const FIRST: u8 = 0;
/// A later substep's biased pass: the bodies have not moved since the
/// previous relax pass, so its separations are read, not recomputed.
pub(crate) const BIASED: u8 = 1;
/// The relax pass, after the positions moved: separations computed and
/// kept for the next substep.
pub(crate) const RELAX: u8 = 2;

/// A bundle's bodies' motion since the step began, lane by lane.
struct LaneMotion<S> {
    dpx: Lanes<S>,
    dpy: Lanes<S>,
    dqa: [Rot<S>; LANES],
    dqb: [Rot<S>; LANES],
}

impl<S: SimScalar> LaneMotion<S> {
    #[inline(always)]
    fn load(bodies: &[SolverBody<S>], k: &Bundle<S>) -> Self {
        let mut m = Self {
            dpx: [S::ZERO; LANES],
            dpy: [S::ZERO; LANES],
            dqa: [Rot::IDENTITY; LANES],
            dqb: [Rot::IDENTITY; LANES],
        };
        for l in 0..LANES {
            let (a, b) = (&bodies[k.a[l] as usize], &bodies[k.b[l] as usize]);
            let dp = b.dp - a.dp;
            m.dpx[l] = dp.x;
            m.dpy[l] = dp.y;
            m.dqa[l] = a.dq;
            m.dqb[l] = b.dq;
        }
        m
    }
}

/// One pass of every contact row: per bundle, the normal rows of each
/// point, then the friction rows.
#[inline(always)]
pub(crate) fn solve<S: RowMath, const PASS: u8>(
    bodies: &mut [SolverBody<S>],
    bundles: &mut [Bundle<S>],
    inv_h: S,
    max_push: S,
) {
    let use_bias = PASS != RELAX;
    for k in bundles.iter_mut() {
        let mut vel = LaneVel::load(bodies, k);
        let motion = (PASS != BIASED).then(|| LaneMotion::load(bodies, k));
        let head = Head::of(k);
        let (friction, bias_rate, mass_scale, impulse_scale) =
            (k.friction, k.bias_rate, k.mass_scale, k.impulse_scale);
        let used = usize::from(k.points_used);
        for p in &mut k.points[..used] {
            for l in 0..LANES {
                let n = head.normal(l);
                // The current separation from the motion so far.
                let s = match &motion {
                    Some(m) => S::separation(
                        Vec2::new(m.dpx[l], m.dpy[l]),
                        (m.dqa[l], m.dqb[l]),
                        (
                            Vec2::new(p.rax[l], p.ray[l]),
                            Vec2::new(p.rbx[l], p.rby[l]),
                        ),
                        n,
                        p.adjusted_separation[l],
                    ),
                    None => p.separation[l],
                };
                p.separation[l] = s;
                let mut v = vel.lane(l);
                let vn = S::row_speed(&v, n, p.rna[l], p.rnb[l]);
                let m = p.normal_mass[l];
                // Speculative (a gap to close, no more), soft (biased) or
                // rigid (relaxing): both candidates computed, one taken.
                let speculative = S::speculative_impulse(m, vn, s, inv_h);
                let touching = if use_bias {
                    let soft = Softness {
                        bias_rate: bias_rate[l],
                        mass_scale: mass_scale[l],
                        impulse_scale: impulse_scale[l],
                    };
                    S::soft_impulse(m, &soft, (vn, s), max_push, p.normal_impulse[l])
                } else {
                    S::rigid_impulse(m, vn)
                };
                let impulse = select(s.gt(S::ZERO), speculative, touching);
                let old = p.normal_impulse[l];
                let new = at_least_zero(old + impulse);
                let applied = new - old;
                p.normal_impulse[l] = new;
                p.max_normal_impulse[l] = select(
                    applied.gt(p.max_normal_impulse[l]),
                    applied,
                    p.max_normal_impulse[l],
                );
                S::apply_row(
                    &mut v,
                    &head.mass(l),
                    (n, applied),
                    (p.rna[l], p.rnb[l]),
                    (
                        Vec2::new(p.lin_ax[l], p.lin_ay[l]),
                        Vec2::new(p.lin_bx[l], p.lin_by[l]),
                    ),
                    (p.ang_na[l], p.ang_nb[l]),
                );
                vel.set_lane(l, &v);
            }
        }
        for p in &mut k.points[..used] {
            for l in 0..LANES {
                let t = right_perp(head.normal(l));
                let mut v = vel.lane(l);
                let vt = S::row_speed(&v, t, p.rta[l], p.rtb[l]);
                let (impulse, max_f) = S::friction_impulse(
                    p.tangent_mass[l],
                    vt,
                    friction[l],
                    p.normal_impulse[l],
                );
                let old = p.tangent_impulse[l];
                let new = within(old + impulse, max_f);
                let applied = new - old;
                p.tangent_impulse[l] = new;
                S::apply_row(
                    &mut v,
                    &head.mass(l),
                    (t, applied),
                    (p.rta[l], p.rtb[l]),
                    (
                        right_perp(Vec2::new(p.lin_ax[l], p.lin_ay[l])),
                        right_perp(Vec2::new(p.lin_bx[l], p.lin_by[l])),
                    ),
                    (p.ang_ta[l], p.ang_tb[l]),
                );
                vel.set_lane(l, &v);
            }
        }
        vel.store(bodies, k);
    }
}

/// Restitution, once per step after the substeps: a point that closed
/// faster than `threshold` and pushed gets the normal impulse that makes
/// it separate at `restitution` times its closing speed. One lane and one
/// point at a time (few constraints have restitution; this is not a pass
/// of every row).
#[inline(always)]
pub(crate) fn restitution<S: SimScalar>(
    bodies: &mut [SolverBody<S>],
    bundles: &mut [Bundle<S>],
    threshold: S,
) {
    for k in bundles.iter_mut() {
        for l in 0..LANES {
            let e = k.restitution[l];
            if e == S::ZERO {
                continue;
            }
            let n = Vec2::new(k.nx[l], k.ny[l]);
            let (a, b, wa, wb) = (k.a[l], k.b[l], k.wa[l], k.wb[l]);
            for p in &mut k.points[..usize::from(k.count[l])] {
                let closing = p.relative_velocity[l];
                if closing.gt(-threshold) || p.max_normal_impulse[l] == S::ZERO {
                    continue;
                }
                let (ra, rb) = (
                    Vec2::new(p.rax[l], p.ray[l]),
                    Vec2::new(p.rbx[l], p.rby[l]),
                );
                let (a, b) = (&bodies[a as usize], &bodies[b as usize]);
                let dv = b.v + cross_sv(b.w, rb) - a.v - cross_sv(a.w, ra);
                let vn = dv.dot(n);
                let impulse = -p.normal_mass[l] * (vn + e * closing);
                let old = p.normal_impulse[l];
                let new = (old + impulse).max(S::ZERO);
                let applied = new - old;
                p.normal_impulse[l] = new;
                p.max_normal_impulse[l] = p.max_normal_impulse[l].max(applied);
                let pv = n * applied;
                let a = &mut bodies[wa as usize];
                a.v -= pv * a.inv_mass;
                a.w -= a.inv_i * cross(ra, pv);
                let b = &mut bodies[wb as usize];
                b.v += pv * b.inv_mass;
                b.w += b.inv_i * cross(rb, pv);
            }
        }
    }
}

/// The accumulated impulses back to the contact cache: the next step's
/// warm start.
pub(crate) fn store_impulses<S: SimScalar>(state: &mut PhysicsState<S>, bundles: &[Bundle<S>]) {
    for k in bundles {
        for l in 0..LANES {
            let Some(c) = state.contacts.get_mut(k.contact[l] as usize) else {
                continue;
            };
            for (cp, p) in c.points.iter_mut().zip(&k.points[..usize::from(k.count[l])]) {
                cp.normal_impulse = p.normal_impulse[l];
                cp.tangent_impulse = p.tangent_impulse[l];
                cp.max_normal_impulse = p.max_normal_impulse[l];
            }
        }
    }
}
