//! The contact rows' arithmetic, one implementation per backend
//! ([`RowMath`]): the solver's rows are written once, generic, and call
//! these for their dot products, impulses and velocity updates.
//!
//! - `Fp32Pinned`: each operation one IEEE binary32 operation, in the
//!   order written.
//! - `Fpx16_16`: each expression is computed with the exact `i64` products
//!   of the raw values (Q32.32), summed exactly and rounded once to
//!   nearest, ties to even, then saturated once — instead of one rounding
//!   and one saturation per `*` and one saturation per `+`. A velocity
//!   update `v − a·b` is one rounding of `v·2¹⁶ − a·b`.
//!
//! Range: every sum here stays below 2⁶³ in magnitude for any inputs a
//! step can hold (unit normals, tangents and rotations, so their products
//! are below 2⁴⁸), except a spin times a lever arm, a product of two
//! arbitrary values (below 2⁶²): two of them overflow only when both
//! spins and both arms exceed ~23 000 (rad/s and m), beyond the supported
//! ranges by a factor of 100 (`limits.rs`). The sums wrap there (the same
//! bits everywhere, never a panic); within the ranges nothing saturates.

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2, VectorUnit};

use crate::rot::{Rot, cross, right_perp};

/// A constraint's two bodies' velocities while its rows run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowVel<S> {
    pub(crate) va: Vec2<S>,
    pub(crate) wa: S,
    pub(crate) vb: Vec2<S>,
    pub(crate) wb: S,
}

/// A constraint's two bodies' inverse masses and inverse inertias.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowMass<S> {
    pub(crate) ma: S,
    pub(crate) ia: S,
    pub(crate) mb: S,
    pub(crate) ib: S,
}

/// What the rows keep per contact point for their velocity updates: the
/// inverse masses and inertias already multiplied by the rows' directions
/// and lever arms (one product per update).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RowArms<S> {
    /// `n·ma` and `n·mb` (the tangent's are their right perpendiculars).
    pub(crate) lin_a: Vec2<S>,
    pub(crate) lin_b: Vec2<S>,
    /// `ia·(ra × n)`, `ib·(rb × n)`.
    pub(crate) ang_n: (S, S),
    /// `ia·(ra × t)`, `ib·(rb × t)`.
    pub(crate) ang_t: (S, S),
}

/// A contact point's values that stay fixed through a step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointSetup<S> {
    /// `[ra × n, rb × n, ra × t, rb × t]`.
    pub(crate) levers: [S; 4],
    /// The effective masses' inverses along the normal and the tangent:
    /// `ma + mb + ia·(ra × d)² + ib·(rb × d)²`.
    pub(crate) k_normal: S,
    pub(crate) k_tangent: S,
    /// The separation less the arms' difference along the normal: the
    /// separation at any later motion is this plus the motion's part.
    pub(crate) adjusted_separation: S,
    pub(crate) arms: RowArms<S>,
}

/// The contact rows' arithmetic (see the module docs for each backend's
/// rule).
pub(crate) trait RowMath: SimScalar {
    /// Whether a row with zero masses and zero impulses leaves every value
    /// exactly as it was (Q16.16: yes; binary32: `−0 − (+0·x)` may flip a
    /// zero's sign), so a pass may skip such rows.
    const EXACT_ZERO_ROWS: bool;

    /// The widest vector unit worth the rows' while (a wider one computes
    /// the same bits, but not faster).
    const WIDEST_USEFUL: VectorUnit;

    /// The relative speed along `dir`: `(vb − va)·dir + wb·rb_dir −
    /// wa·ra_dir` (`rX_dir` the lever arms' `r × dir`).
    fn row_speed(v: &RowVel<Self>, dir: Vec2<Self>, ra_dir: Self, rb_dir: Self) -> Self;

    /// The current separation: `(dp + (dqb·rb − dqa·ra))·n + adjusted`.
    fn separation(
        dp: Vec2<Self>,
        rotations: (Rot<Self>, Rot<Self>),
        arms: (Vec2<Self>, Vec2<Self>),
        n: Vec2<Self>,
        adjusted: Self,
    ) -> Self;

    /// A normal row's impulse `−m·scale·(vn + bias) − keep·accumulated`
    /// (the rows pick `bias`, `scale` and `keep` per case: a speculative
    /// row closes the gap and no more, a soft row is a spring-damper, a
    /// rigid one stops the approach).
    fn normal_impulse(
        m: Self,
        vn: Self,
        bias: Self,
        scale: Self,
        keep: Self,
        accumulated: Self,
    ) -> Self;

    /// A friction row's impulse `−m·vt` and its bound `friction·normal`
    /// (the `*` operator's values on both backends).
    fn friction_impulse(m: Self, vt: Self, friction: Self, normal: Self) -> (Self, Self);

    /// A contact point's set-up from its lever arms `ra`, `rb` (from the
    /// bodies' centres), the normal `n` and the manifold's separation.
    fn point_setup(
        m: &RowMass<Self>,
        n: Vec2<Self>,
        arms: (Vec2<Self>, Vec2<Self>),
        separation: Self,
    ) -> PointSetup<Self>;

    /// Applies a row's impulse `applied` (along its direction) to the two
    /// bodies: A loses `lin.0·applied` and `ang.0·applied`, B gains
    /// `lin.1·applied` and `ang.1·applied` (`lin`, `ang`: the row's part of
    /// the point's [`RowArms`]).
    fn apply_row(
        v: &mut RowVel<Self>,
        applied: Self,
        lin: (Vec2<Self>, Vec2<Self>),
        ang: (Self, Self),
    );

    /// Warm start of one point: its accumulated normal and tangent
    /// impulses applied through its [`RowArms`].
    fn warm_point(v: &mut RowVel<Self>, impulses: (Self, Self), row_arms: &RowArms<Self>);
}

impl RowMath for Fp32Pinned {
    const EXACT_ZERO_ROWS: bool = false;
    // Four binary32 lanes fill a 128-bit register; the AVX-512 build of
    // the rows was measured 6 % slower than the AVX2 one (pyramid, 231 us
    // against 246 us per step).
    const WIDEST_USEFUL: VectorUnit = VectorUnit::Avx2;

    #[inline(always)]
    fn row_speed(v: &RowVel<Self>, dir: Vec2<Self>, ra_dir: Self, rb_dir: Self) -> Self {
        (v.vb - v.va).dot(dir) + v.wb * rb_dir - v.wa * ra_dir
    }

    #[inline(always)]
    fn separation(
        dp: Vec2<Self>,
        (dqa, dqb): (Rot<Self>, Rot<Self>),
        (ra, rb): (Vec2<Self>, Vec2<Self>),
        n: Vec2<Self>,
        adjusted: Self,
    ) -> Self {
        let d = dp + (dqb.rotate(rb) - dqa.rotate(ra));
        d.dot(n) + adjusted
    }

    #[inline(always)]
    fn normal_impulse(
        m: Self,
        vn: Self,
        bias: Self,
        scale: Self,
        keep: Self,
        accumulated: Self,
    ) -> Self {
        -m * scale * (vn + bias) - keep * accumulated
    }

    #[inline(always)]
    fn friction_impulse(m: Self, vt: Self, friction: Self, normal: Self) -> (Self, Self) {
        (-m * vt, friction * normal)
    }

    #[inline(always)]
    fn point_setup(
        m: &RowMass<Self>,
        n: Vec2<Self>,
        (ra, rb): (Vec2<Self>, Vec2<Self>),
        separation: Self,
    ) -> PointSetup<Self> {
        let t = right_perp(n);
        let (rna, rnb) = (cross(ra, n), cross(rb, n));
        let (rta, rtb) = (cross(ra, t), cross(rb, t));
        PointSetup {
            levers: [rna, rnb, rta, rtb],
            k_normal: m.ma + m.mb + m.ia * rna * rna + m.ib * rnb * rnb,
            k_tangent: m.ma + m.mb + m.ia * rta * rta + m.ib * rtb * rtb,
            adjusted_separation: separation - (rb - ra).dot(n),
            arms: RowArms {
                lin_a: n * m.ma,
                lin_b: n * m.mb,
                ang_n: (m.ia * rna, m.ib * rnb),
                ang_t: (m.ia * rta, m.ib * rtb),
            },
        }
    }

    #[inline(always)]
    fn apply_row(
        v: &mut RowVel<Self>,
        applied: Self,
        (lin_a, lin_b): (Vec2<Self>, Vec2<Self>),
        (ang_a, ang_b): (Self, Self),
    ) {
        v.va -= lin_a * applied;
        v.wa -= ang_a * applied;
        v.vb += lin_b * applied;
        v.wb += ang_b * applied;
    }

    #[inline(always)]
    fn warm_point(v: &mut RowVel<Self>, (normal, tangent): (Self, Self), k: &RowArms<Self>) {
        // The tangent's arms are the normal's right perpendiculars.
        v.va -= k.lin_a * normal + right_perp(k.lin_a) * tangent;
        v.wa -= k.ang_n.0 * normal + k.ang_t.0 * tangent;
        v.vb += k.lin_b * normal + right_perp(k.lin_b) * tangent;
        v.wb += k.ang_n.1 * normal + k.ang_t.1 * tangent;
    }
}

/// The raw value, widened.
#[inline(always)]
fn w(x: Fpx16_16) -> i64 {
    i64::from(x.to_raw())
}

/// `q / 2¹⁶` rounded to nearest, ties to even (`q` a Q32.32 value: a sum
/// of raw products), not saturated.
#[inline(always)]
fn round_q32(q: i64) -> i64 {
    q.wrapping_add(0x7FFF + ((q >> 16) & 1)) >> 16
}

/// The Q16.16 value nearest to the Q32.32 `q` (ties to even), saturated:
/// one rounding and one saturation for a whole sum of products.
#[inline(always)]
pub(crate) fn settle(q: i64) -> Fpx16_16 {
    Fpx16_16::from_raw(round_q32(q).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
}

/// `x − a·b` with one rounding and one saturation.
#[inline(always)]
fn sub_mul(x: Fpx16_16, a: Fpx16_16, b: Fpx16_16) -> Fpx16_16 {
    settle((w(x) << 16).wrapping_sub(w(a) * w(b)))
}

/// `x + a·b` with one rounding and one saturation.
#[inline(always)]
fn add_mul(x: Fpx16_16, a: Fpx16_16, b: Fpx16_16) -> Fpx16_16 {
    settle((w(x) << 16).wrapping_add(w(a) * w(b)))
}

/// `a·b`, rounded and saturated (the `*` operator's value).
#[inline(always)]
fn mul(a: Fpx16_16, b: Fpx16_16) -> Fpx16_16 {
    settle(w(a) * w(b))
}

/// `q·v` exactly, in Q32.32 (`|q.c|, |q.s| <= 1`: below 2⁴⁸).
#[inline(always)]
fn rotate_q32(q: Rot<Fpx16_16>, v: Vec2<Fpx16_16>) -> (i64, i64) {
    (
        (w(q.c) * w(v.x)).wrapping_sub(w(q.s) * w(v.y)),
        (w(q.s) * w(v.x)).wrapping_add(w(q.c) * w(v.y)),
    )
}

impl RowMath for Fpx16_16 {
    const EXACT_ZERO_ROWS: bool = true;
    // AVX-512 has the 64-bit multiply, shift and min/max the lanes use.
    const WIDEST_USEFUL: VectorUnit = VectorUnit::Avx512;

    #[inline(always)]
    fn row_speed(v: &RowVel<Self>, dir: Vec2<Self>, ra_dir: Self, rb_dir: Self) -> Self {
        let dx = w(v.vb.x) - w(v.va.x);
        let dy = w(v.vb.y) - w(v.va.y);
        settle(
            dx.wrapping_mul(w(dir.x))
                .wrapping_add(dy.wrapping_mul(w(dir.y)))
                .wrapping_add(w(v.wb) * w(rb_dir))
                .wrapping_sub(w(v.wa) * w(ra_dir)),
        )
    }

    #[inline(always)]
    fn separation(
        dp: Vec2<Self>,
        (dqa, dqb): (Rot<Self>, Rot<Self>),
        (ra, rb): (Vec2<Self>, Vec2<Self>),
        n: Vec2<Self>,
        adjusted: Self,
    ) -> Self {
        // The rotated arms' difference rounded once per component (below
        // 2³⁴ with the motion added), then the dot product rounded once.
        let (bx, by) = rotate_q32(dqb, rb);
        let (ax, ay) = rotate_q32(dqa, ra);
        let dx = round_q32(bx.wrapping_sub(ax)) + w(dp.x);
        let dy = round_q32(by.wrapping_sub(ay)) + w(dp.y);
        settle(
            dx.wrapping_mul(w(n.x))
                .wrapping_add(dy.wrapping_mul(w(n.y)))
                .wrapping_add(w(adjusted) << 16),
        )
    }

    #[inline(always)]
    fn normal_impulse(
        m: Self,
        vn: Self,
        bias: Self,
        scale: Self,
        keep: Self,
        accumulated: Self,
    ) -> Self {
        // `m·scale` rounded once (exact when `scale` is one), then the
        // rest as one sum of products.
        let scaled = mul(m, scale);
        settle(
            (w(vn) + w(bias))
                .wrapping_mul(w(scaled))
                .wrapping_neg()
                .wrapping_sub(w(keep) * w(accumulated)),
        )
    }

    #[inline(always)]
    fn friction_impulse(m: Self, vt: Self, friction: Self, normal: Self) -> (Self, Self) {
        // The same values as `-m * vt` and `friction * normal`: `−m` is
        // exact (a mass is never `MIN`), and rounding to nearest with ties
        // to even is symmetric, so one rounding of the signed product
        // equals the operator's rounding of the magnitudes with the sign
        // applied after; both saturate at the same bounds.
        (settle(-(w(m) * w(vt))), mul(friction, normal))
    }

    #[inline(always)]
    fn point_setup(
        m: &RowMass<Self>,
        n: Vec2<Self>,
        (ra, rb): (Vec2<Self>, Vec2<Self>),
        separation: Self,
    ) -> PointSetup<Self> {
        // `r × n = r.x·n.y − r.y·n.x`; with `t = (n.y, −n.x)`,
        // `r × t = −(r·n)`: each one sum, rounded once.
        let cross_n = |r: Vec2<Self>| settle(w(r.x) * w(n.y) - w(r.y) * w(n.x));
        let cross_t = |r: Vec2<Self>| settle(-(w(r.x) * w(n.x) + w(r.y) * w(n.y)));
        let (rna, rnb, rta, rtb) = (cross_n(ra), cross_n(rb), cross_t(ra), cross_t(rb));
        let ang_n = (mul(m.ia, rna), mul(m.ib, rnb));
        let ang_t = (mul(m.ia, rta), mul(m.ib, rtb));
        // `ma + mb + (ia·r)·r` for both bodies: the arms' products reused,
        // one rounding for the sum.
        let base = (w(m.ma) + w(m.mb)) << 16;
        let k = |(a, b): (Self, Self), ra: Self, rb: Self| {
            settle(base.wrapping_add(w(a) * w(ra)).wrapping_add(w(b) * w(rb)))
        };
        let dx = w(rb.x) - w(ra.x);
        let dy = w(rb.y) - w(ra.y);
        PointSetup {
            levers: [rna, rnb, rta, rtb],
            k_normal: k(ang_n, rna, rnb),
            k_tangent: k(ang_t, rta, rtb),
            adjusted_separation: settle(
                (w(separation) << 16)
                    .wrapping_sub(dx.wrapping_mul(w(n.x)))
                    .wrapping_sub(dy.wrapping_mul(w(n.y))),
            ),
            arms: RowArms {
                lin_a: Vec2::new(mul(n.x, m.ma), mul(n.y, m.ma)),
                lin_b: Vec2::new(mul(n.x, m.mb), mul(n.y, m.mb)),
                ang_n,
                ang_t,
            },
        }
    }

    #[inline(always)]
    fn apply_row(
        v: &mut RowVel<Self>,
        applied: Self,
        (lin_a, lin_b): (Vec2<Self>, Vec2<Self>),
        (ang_a, ang_b): (Self, Self),
    ) {
        v.va.x = sub_mul(v.va.x, applied, lin_a.x);
        v.va.y = sub_mul(v.va.y, applied, lin_a.y);
        v.wa = sub_mul(v.wa, applied, ang_a);
        v.vb.x = add_mul(v.vb.x, applied, lin_b.x);
        v.vb.y = add_mul(v.vb.y, applied, lin_b.y);
        v.wb = add_mul(v.wb, applied, ang_b);
    }

    #[inline(always)]
    fn warm_point(v: &mut RowVel<Self>, (normal, tangent): (Self, Self), k: &RowArms<Self>) {
        // The tangent's arms are the normal's right perpendiculars:
        // `t·m = (n.y·m, −n.x·m)`.
        let (n, t) = (w(normal), w(tangent));
        // `x + n·a + t·b` in Q32.32.
        let two = |x: Fpx16_16, a: i64, b: i64| {
            (w(x) << 16)
                .wrapping_add(n.wrapping_mul(a))
                .wrapping_add(t.wrapping_mul(b))
        };
        let neg = |x: Fpx16_16| -w(x);
        v.va.x = settle(two(v.va.x, neg(k.lin_a.x), neg(k.lin_a.y)));
        v.va.y = settle(two(v.va.y, neg(k.lin_a.y), w(k.lin_a.x)));
        v.wa = settle(two(v.wa, neg(k.ang_n.0), neg(k.ang_t.0)));
        v.vb.x = settle(two(v.vb.x, w(k.lin_b.x), w(k.lin_b.y)));
        v.vb.y = settle(two(v.vb.y, w(k.lin_b.y), neg(k.lin_b.x)));
        v.wb = settle(two(v.wb, w(k.ang_n.1), w(k.ang_t.1)));
    }
}
