//! The contact rows over bundles: warm start, the biased and relaxing
//! passes, restitution and the impulses' return to the contact cache.
//!
//! Each pass loads a bundle's bodies' velocities into lanes, runs every
//! row lane by lane with the backend's [`RowMath`], and stores them back.
//! A lane's work has no branches (a normal row's three cases are one
//! expression whose terms are picked by selects), so the compiler runs
//! the four lanes in one vector register where the unit has the
//! operations, with the same bits as one lane at a time.

use laige_core::{SimScalar, Vec2};

use crate::bundle::{Bundle, LANES, Lanes};
use crate::rot::{Rot, cross, right_perp};
use crate::row_math::{RowArms, RowMath, RowVel};
use crate::solver::SolverBody;
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

/// `x` if above `floor`, else `floor`.
#[inline(always)]
fn at_least<S: SimScalar>(x: S, floor: S) -> S {
    select(x.gt(floor), x, floor)
}

/// `x` if above zero, else `+0` (an accumulated normal impulse never
/// pulls).
#[inline(always)]
fn at_least_zero<S: SimScalar>(x: S) -> S {
    at_least(x, S::ZERO)
}

/// `x` bounded to `−bound ..= bound` (a friction impulse within the cone).
#[inline(always)]
fn within<S: SimScalar>(x: S, bound: S) -> S {
    x.clamp(-bound, bound)
}

/// A bundle's per-constraint values the rows read (its points apart).
struct Head<S> {
    nx: Lanes<S>,
    ny: Lanes<S>,
    friction: Lanes<S>,
    bias_rate: Lanes<S>,
    mass_scale: Lanes<S>,
    impulse_scale: Lanes<S>,
}

impl<S: SimScalar> Head<S> {
    #[inline(always)]
    fn of(k: &Bundle<S>) -> Self {
        Self {
            nx: k.nx,
            ny: k.ny,
            friction: k.friction,
            bias_rate: k.bias_rate,
            mass_scale: k.mass_scale,
            impulse_scale: k.impulse_scale,
        }
    }

    #[inline(always)]
    fn normal(&self, l: usize) -> Vec2<S> {
        Vec2::new(self.nx[l], self.ny[l])
    }
}

/// How a pass walks a bundle's lanes. Either way each lane runs the same
/// operations in the same order, so the results are the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneOrder {
    /// Each row across the four lanes, then the next row: straight-line
    /// code the compiler runs in vector registers.
    Across,
    /// One lane's rows after another, the lane's velocities kept in
    /// registers, empty lanes and missing points skipped: for a unit
    /// without the backend's vector operations (Q16.16 needs 64-bit
    /// multiplies and compares, which baseline x86-64 lacks). Skipping is
    /// exact only where a zero impulse changes nothing at all, so this
    /// order is for Q16.16 ([`RowMath::EXACT_ZERO_ROWS`]).
    Along,
}

/// One lane's velocities read from the bodies.
#[inline(always)]
fn lane_velocity<S: SimScalar>(bodies: &[SolverBody<S>], k: &Bundle<S>, l: usize) -> RowVel<S> {
    let (a, b) = (&bodies[k.a[l] as usize], &bodies[k.b[l] as usize]);
    RowVel {
        va: a.v,
        wa: a.w,
        vb: b.v,
        wb: b.w,
    }
}

/// One lane's velocities written back (to the spare entry for a fixed or
/// kinematic body).
#[inline(always)]
fn store_lane<S: SimScalar>(bodies: &mut [SolverBody<S>], k: &Bundle<S>, l: usize, v: &RowVel<S>) {
    let a = &mut bodies[k.wa[l] as usize];
    a.v = v.va;
    a.w = v.wa;
    let b = &mut bodies[k.wb[l] as usize];
    b.v = v.vb;
    b.w = v.wb;
}

// The rows are macros rather than functions: written out in each pass's
// lane loop, a row stays one block of straight-line code that the
// compiler vectorizes across the lanes. The same rows as
// `#[inline(always)]` functions left the lanes scalar (the pyramid's step
// 658 us against 424 us on Q16.16, 289 us against 244 us on binary32).
// `$v` is the lane's `RowVel`, updated in place.

/// One point's warm start in lane `$l`: its accumulated impulses applied.
macro_rules! warm_row {
    ($S:ty, $p:ident, $l:ident, $v:ident) => {
        let arms = RowArms {
            lin_a: Vec2::new($p.lin_ax[$l], $p.lin_ay[$l]),
            lin_b: Vec2::new($p.lin_bx[$l], $p.lin_by[$l]),
            ang_n: ($p.ang_na[$l], $p.ang_nb[$l]),
            ang_t: ($p.ang_ta[$l], $p.ang_tb[$l]),
        };
        <$S>::warm_point(
            &mut $v,
            ($p.normal_impulse[$l], $p.tangent_impulse[$l]),
            &arms,
        );
    };
}

/// One point's normal row in lane `$l` at the current separation `$s`:
/// the impulse (speculative for a gap: close it, no more; soft when
/// touching in a biased pass: a spring-damper pushing out at most
/// `$max_push`; rigid when touching in the relax pass), its accumulation
/// (never pulling) and its application.
macro_rules! normal_row {
    ($S:ty, $use_bias:ident, $p:ident, $l:ident, $head:ident, $s:ident, $v:ident,
     $inv_h:ident, $max_push:ident) => {
        let n = $head.normal($l);
        $p.separation[$l] = $s;
        let vn = <$S>::row_speed(&$v, n, $p.rna[$l], $p.rnb[$l]);
        let gap = $s.gt(<$S>::ZERO);
        let bias = if $use_bias {
            select(
                gap,
                $s * $inv_h,
                at_least($head.bias_rate[$l] * $s, -$max_push),
            )
        } else {
            select(gap, $s * $inv_h, <$S>::ZERO)
        };
        let stiff = gap || !$use_bias;
        let impulse = <$S>::normal_impulse(
            $p.normal_mass[$l],
            vn,
            bias,
            select(stiff, <$S>::ONE, $head.mass_scale[$l]),
            select(stiff, <$S>::ZERO, $head.impulse_scale[$l]),
            $p.normal_impulse[$l],
        );
        let old = $p.normal_impulse[$l];
        let new = at_least_zero(old + impulse);
        let applied = new - old;
        $p.normal_impulse[$l] = new;
        $p.max_normal_impulse[$l] = at_least(applied, $p.max_normal_impulse[$l]);
        <$S>::apply_row(
            &mut $v,
            applied,
            (
                Vec2::new($p.lin_ax[$l], $p.lin_ay[$l]),
                Vec2::new($p.lin_bx[$l], $p.lin_by[$l]),
            ),
            ($p.ang_na[$l], $p.ang_nb[$l]),
        );
    };
}

/// One point's friction row in lane `$l`: the tangent impulse within the
/// friction cone of the point's normal impulse, applied.
macro_rules! tangent_row {
    ($S:ty, $p:ident, $l:ident, $head:ident, $v:ident) => {
        let t = right_perp($head.normal($l));
        let vt = <$S>::row_speed(&$v, t, $p.rta[$l], $p.rtb[$l]);
        let (impulse, max_f) = <$S>::friction_impulse(
            $p.tangent_mass[$l],
            vt,
            $head.friction[$l],
            $p.normal_impulse[$l],
        );
        let old = $p.tangent_impulse[$l];
        let new = within(old + impulse, max_f);
        let applied = new - old;
        $p.tangent_impulse[$l] = new;
        <$S>::apply_row(
            &mut $v,
            applied,
            (
                right_perp(Vec2::new($p.lin_ax[$l], $p.lin_ay[$l])),
                right_perp(Vec2::new($p.lin_bx[$l], $p.lin_by[$l])),
            ),
            ($p.ang_ta[$l], $p.ang_tb[$l]),
        );
    };
}

/// Applies every constraint's accumulated impulses (the last step's, or
/// this step's so far) to its bodies.
#[inline(always)]
pub(crate) fn warm_start<S: RowMath>(
    bodies: &mut [SolverBody<S>],
    bundles: &[Bundle<S>],
    order: LaneOrder,
) {
    for k in bundles {
        if order == LaneOrder::Along {
            for l in 0..LANES {
                let mut v = lane_velocity(bodies, k, l);
                for p in &k.points[..usize::from(k.count[l])] {
                    warm_row!(S, p, l, v);
                }
                store_lane(bodies, k, l, &v);
            }
            continue;
        }
        let mut vel = LaneVel::load(bodies, k);
        for p in &k.points[..usize::from(k.points_used)] {
            for l in 0..LANES {
                let mut v = vel.lane(l);
                warm_row!(S, p, l, v);
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
    order: LaneOrder,
    inv_h: S,
    max_push: S,
) {
    let use_bias = PASS != RELAX;
    for k in bundles.iter_mut() {
        let head = Head::of(k);
        if order == LaneOrder::Along {
            for l in 0..LANES {
                if k.contact[l] == u32::MAX {
                    continue;
                }
                let (a, b) = (&bodies[k.a[l] as usize], &bodies[k.b[l] as usize]);
                let (dp, dqa, dqb) = (b.dp - a.dp, a.dq, b.dq);
                let mut v = lane_velocity(bodies, k, l);
                let count = usize::from(k.count[l]);
                for p in &mut k.points[..count] {
                    let s = if PASS == BIASED {
                        p.separation[l]
                    } else {
                        S::separation(
                            dp,
                            (dqa, dqb),
                            (Vec2::new(p.rax[l], p.ray[l]), Vec2::new(p.rbx[l], p.rby[l])),
                            head.normal(l),
                            p.adjusted_separation[l],
                        )
                    };
                    normal_row!(S, use_bias, p, l, head, s, v, inv_h, max_push);
                }
                for p in &mut k.points[..count] {
                    tangent_row!(S, p, l, head, v);
                }
                store_lane(bodies, k, l, &v);
            }
            continue;
        }
        let mut vel = LaneVel::load(bodies, k);
        let motion = (PASS != BIASED).then(|| LaneMotion::load(bodies, k));
        let used = usize::from(k.points_used);
        for p in &mut k.points[..used] {
            for l in 0..LANES {
                // The current separation from the motion so far.
                let s = match &motion {
                    Some(m) => S::separation(
                        Vec2::new(m.dpx[l], m.dpy[l]),
                        (m.dqa[l], m.dqb[l]),
                        (Vec2::new(p.rax[l], p.ray[l]), Vec2::new(p.rbx[l], p.rby[l])),
                        head.normal(l),
                        p.adjusted_separation[l],
                    ),
                    None => p.separation[l],
                };
                let mut v = vel.lane(l);
                normal_row!(S, use_bias, p, l, head, s, v, inv_h, max_push);
                vel.set_lane(l, &v);
            }
        }
        for p in &mut k.points[..used] {
            for l in 0..LANES {
                let mut v = vel.lane(l);
                tangent_row!(S, p, l, head, v);
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
                let (ra, rb) = (Vec2::new(p.rax[l], p.ray[l]), Vec2::new(p.rbx[l], p.rby[l]));
                let (a, b) = (&bodies[a as usize], &bodies[b as usize]);
                let dv = SolverBody::relative_velocity(a, b, ra, rb);
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
            for (cp, p) in c
                .points
                .iter_mut()
                .zip(&k.points[..usize::from(k.count[l])])
            {
                cp.normal_impulse = p.normal_impulse[l];
                cp.tangent_impulse = p.tangent_impulse[l];
                cp.max_normal_impulse = p.max_normal_impulse[l];
            }
        }
    }
}
