//! Contact constraints four at a time: each step colours the touching
//! contacts so that no two of a colour share a dynamic body, and packs each
//! colour into bundles of [`LANES`] constraints stored lane by lane (one
//! array of four per field). The rows then run a bundle's four constraints
//! side by side (`contact_rows.rs`), which the compiler turns into vector
//! instructions, and their result does not depend on how wide the vector
//! unit is: the four lanes touch four different bodies, so their order
//! does not matter.
//!
//! The colouring is greedy in contact order (each contact takes the first
//! colour neither of its dynamic bodies has yet), so the solve order is a
//! pure function of the world. A body in more than 64 colours sends its
//! later contacts to the overflow: one constraint per bundle, after the
//! colours, in contact order.

use laige_core::{SimScalar, Vec2};

use crate::row_math::{RowMass, RowMath};
use crate::solver::{Softness, SolverBody};
use crate::state::{Contact, PhysicsState};
use crate::step::{BodyEntry, PhysicsScratch};

/// Constraints per bundle.
pub(crate) const LANES: usize = 4;

/// One value per lane.
pub(crate) type Lanes<S> = [S; LANES];

/// The colours a body can be in before its contacts overflow.
const COLOURS: usize = 64;

/// A contact point of each of a bundle's four constraints. A lane whose
/// constraint has fewer points, or no constraint, holds zero masses and
/// impulses there: its rows apply zero.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BundlePoint<S> {
    pub(crate) rax: Lanes<S>,
    pub(crate) ray: Lanes<S>,
    pub(crate) rbx: Lanes<S>,
    pub(crate) rby: Lanes<S>,
    /// `ra × n`, `rb × n`, `ra × t`, `rb × t`: the lever arms' share of a
    /// normal or tangent impulse.
    pub(crate) rna: Lanes<S>,
    pub(crate) rnb: Lanes<S>,
    pub(crate) rta: Lanes<S>,
    pub(crate) rtb: Lanes<S>,
    pub(crate) adjusted_separation: Lanes<S>,
    /// The separation the last relax pass computed (the bodies have not
    /// moved since, so the next substep's biased pass reads it).
    pub(crate) separation: Lanes<S>,
    pub(crate) normal_mass: Lanes<S>,
    pub(crate) tangent_mass: Lanes<S>,
    pub(crate) normal_impulse: Lanes<S>,
    pub(crate) tangent_impulse: Lanes<S>,
    pub(crate) max_normal_impulse: Lanes<S>,
    pub(crate) relative_velocity: Lanes<S>,
    /// The backend's precomputed factors of the velocity updates
    /// ([`RowArms`](crate::row_math::RowArms), lane by lane): `n·ma`,
    /// `n·mb`, `ia·(ra × n)`, `ib·(rb × n)`, `ia·(ra × t)`, `ib·(rb × t)`.
    pub(crate) lin_ax: Lanes<S>,
    pub(crate) lin_ay: Lanes<S>,
    pub(crate) lin_bx: Lanes<S>,
    pub(crate) lin_by: Lanes<S>,
    pub(crate) ang_na: Lanes<S>,
    pub(crate) ang_nb: Lanes<S>,
    pub(crate) ang_ta: Lanes<S>,
    pub(crate) ang_tb: Lanes<S>,
}

/// Four contact constraints that share no dynamic body.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Bundle<S> {
    /// The bodies' indices in the solver's list, read.
    pub(crate) a: [u32; LANES],
    pub(crate) b: [u32; LANES],
    /// Where their velocities are written: the body for a dynamic one,
    /// else the solver's spare entry (a fixed or kinematic body's velocity
    /// is not the rows' to change, and several lanes may share it).
    pub(crate) wa: [u32; LANES],
    pub(crate) wb: [u32; LANES],
    /// The contact in the state's cache, or `u32::MAX` for an empty lane.
    pub(crate) contact: [u32; LANES],
    /// Each lane's number of points (0 for an empty lane).
    pub(crate) count: [u8; LANES],
    /// The largest of `count`: the rows run this many points.
    pub(crate) points_used: u8,
    pub(crate) nx: Lanes<S>,
    pub(crate) ny: Lanes<S>,
    pub(crate) friction: Lanes<S>,
    pub(crate) restitution: Lanes<S>,
    pub(crate) bias_rate: Lanes<S>,
    pub(crate) mass_scale: Lanes<S>,
    pub(crate) impulse_scale: Lanes<S>,
    pub(crate) points: [BundlePoint<S>; 2],
}

impl<S: SimScalar> Bundle<S> {
    /// A bundle of empty lanes whose bodies are all `spare`.
    fn empty(spare: u32) -> Self {
        Self {
            a: [spare; LANES],
            b: [spare; LANES],
            wa: [spare; LANES],
            wb: [spare; LANES],
            contact: [u32::MAX; LANES],
            ..Self::default()
        }
    }
}

impl<S: SimScalar> BundlePoint<S> {
    /// Zero in every field of `lane`: a point that applies nothing.
    fn clear(&mut self, lane: usize) {
        for field in [
            &mut self.rax,
            &mut self.ray,
            &mut self.rbx,
            &mut self.rby,
            &mut self.rna,
            &mut self.rnb,
            &mut self.rta,
            &mut self.rtb,
            &mut self.adjusted_separation,
            &mut self.separation,
            &mut self.normal_mass,
            &mut self.tangent_mass,
            &mut self.normal_impulse,
            &mut self.tangent_impulse,
            &mut self.max_normal_impulse,
            &mut self.relative_velocity,
            &mut self.lin_ax,
            &mut self.lin_ay,
            &mut self.lin_bx,
            &mut self.lin_by,
            &mut self.ang_na,
            &mut self.ang_nb,
            &mut self.ang_ta,
            &mut self.ang_tb,
        ] {
            field[lane] = S::ZERO;
        }
    }
}

impl<S: SimScalar> Bundle<S> {
    /// Makes `lane` empty: no constraint, zero in every value, its bodies
    /// the spare entry.
    fn clear(&mut self, lane: usize, spare: u32) {
        self.a[lane] = spare;
        self.b[lane] = spare;
        self.wa[lane] = spare;
        self.wb[lane] = spare;
        self.contact[lane] = u32::MAX;
        self.count[lane] = 0;
        for field in [
            &mut self.nx,
            &mut self.ny,
            &mut self.friction,
            &mut self.restitution,
            &mut self.bias_rate,
            &mut self.mass_scale,
            &mut self.impulse_scale,
        ] {
            field[lane] = S::ZERO;
        }
        for p in &mut self.points {
            p.clear(lane);
        }
    }
}

/// The colouring's working memory, kept between steps.
#[derive(Debug, Default)]
pub(crate) struct BundleScratch<S> {
    pub(crate) bundles: Vec<Bundle<S>>,
    /// Per solver body: the colours it is in (bit `c`).
    masks: Vec<u64>,
    /// Per touching contact, in contact order: (contact, colour;
    /// `COLOURS` is the overflow).
    coloured: Vec<(u32, u8)>,
}

/// The softness of a contact's rows: stiffer against a fixed body.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSoftness<S> {
    pub(crate) between_dynamic: Softness<S>,
    pub(crate) against_fixed: Softness<S>,
}

/// Colours the state's touching contacts and fills `scratch.bundle`'s
/// bundles with their constraints (the solver bodies are set up, the last
/// one the spare).
pub(crate) fn build<S: RowMath>(
    state: &PhysicsState<S>,
    scratch: &mut PhysicsScratch<S>,
    soft: ContactSoftness<S>,
) {
    let spare = (scratch.solver.len() - 1) as u32;
    let work = &mut scratch.bundle;
    work.masks.clear();
    work.masks.resize(scratch.solver.len(), 0);
    work.coloured.clear();
    let mut per_colour = [0u32; COLOURS + 1];
    for (ci, (c, &(a, b))) in state
        .contacts
        .iter()
        .zip(&scratch.contact_bodies)
        .enumerate()
    {
        if !c.touching || c.sensor || c.count == 0 {
            continue;
        }
        let (da, db) = (
            scratch.solver[a as usize].dynamic,
            scratch.solver[b as usize].dynamic,
        );
        if !da && !db {
            continue;
        }
        let used = if da { work.masks[a as usize] } else { 0 }
            | if db { work.masks[b as usize] } else { 0 };
        let colour = (!used).trailing_zeros() as usize;
        if colour < COLOURS {
            let bit = 1u64 << colour;
            if da {
                work.masks[a as usize] |= bit;
            }
            if db {
                work.masks[b as usize] |= bit;
            }
        }
        per_colour[colour] += 1;
        work.coloured.push((ci as u32, colour as u8));
    }

    // Each colour's first bundle; the overflow takes a bundle per contact.
    let mut first = [0u32; COLOURS + 1];
    let mut total = 0u32;
    for (colour, &n) in per_colour.iter().enumerate() {
        first[colour] = total;
        total += if colour < COLOURS {
            n.div_ceil(LANES as u32)
        } else {
            n
        };
    }
    // Every lane of every bundle is written below (a constraint or an
    // empty lane), so a reused bundle keeps nothing of the last step.
    if work.bundles.len() < total as usize {
        work.bundles.resize(total as usize, Bundle::empty(spare));
    }
    work.bundles.truncate(total as usize);
    let mut placed = [0u32; COLOURS + 1];
    let mut mixed = FrictionMix::default();
    for &(ci, colour) in &work.coloured {
        let colour = usize::from(colour);
        let nth = placed[colour];
        placed[colour] += 1;
        let (bundle, lane) = if colour < COLOURS {
            (
                first[colour] + nth / LANES as u32,
                (nth % LANES as u32) as usize,
            )
        } else {
            (first[colour] + nth, 0)
        };
        let (a, b) = scratch.contact_bodies[ci as usize];
        let c = &state.contacts[ci as usize];
        let (ea, eb) = (&scratch.bodies[a as usize], &scratch.bodies[b as usize]);
        let col_a = &scratch.colliders[ea.first as usize + c.collider_a as usize];
        let col_b = &scratch.colliders[eb.first as usize + c.collider_b as usize];
        let (sa, sb) = (&scratch.solver[a as usize], &scratch.solver[b as usize]);
        let k = &mut work.bundles[bundle as usize];
        k.a[lane] = a;
        k.b[lane] = b;
        k.wa[lane] = if sa.dynamic { a } else { spare };
        k.wb[lane] = if sb.dynamic { b } else { spare };
        k.contact[lane] = ci;
        k.count[lane] = c.count;
        k.points_used = if lane == 0 {
            c.count
        } else {
            k.points_used.max(c.count)
        };
        k.friction[lane] = mixed.of(col_a.friction, col_b.friction);
        k.restitution[lane] = col_a.restitution.max(col_b.restitution);
        fill_lane(k, lane, c, (ea, eb), (sa, sb), soft);
        // A point the constraint lacks applies zero in its lane.
        for p in &mut k.points[usize::from(c.count)..] {
            p.clear(lane);
        }
    }
    // The empty lanes: a colour's last bundle's tail, an overflow
    // bundle's lanes after the first.
    for (colour, &n) in per_colour.iter().enumerate() {
        let (last, from) = if colour < COLOURS {
            if n % LANES as u32 == 0 {
                continue;
            }
            (
                first[colour] + n / LANES as u32,
                (n % LANES as u32) as usize,
            )
        } else {
            (first[colour], 1)
        };
        let bundles = if colour < COLOURS { 1 } else { n };
        for k in &mut work.bundles[last as usize..(last + bundles) as usize] {
            for lane in from..LANES {
                k.clear(lane, spare);
            }
        }
    }
}

/// The friction of two colliders' materials, `√(fa·fb)`, with the last
/// pair's root kept (most contacts of a scene mix the same materials, and
/// a root is the costliest operation of a constraint's set-up).
#[derive(Default)]
struct FrictionMix<S> {
    last: Option<(S, S, S)>,
}

impl<S: SimScalar> FrictionMix<S> {
    fn of(&mut self, fa: S, fb: S) -> S {
        match self.last {
            Some((a, b, mixed)) if a == fa && b == fb => mixed,
            _ => {
                let mixed = (fa * fb).sqrt();
                self.last = Some((fa, fb, mixed));
                mixed
            }
        }
    }
}

/// A constraint's masses, normal, softness and points into `lane` of `k`.
fn fill_lane<S: RowMath>(
    k: &mut Bundle<S>,
    lane: usize,
    c: &Contact<S>,
    (ea, eb): (&BodyEntry<S>, &BodyEntry<S>),
    (sa, sb): (&SolverBody<S>, &SolverBody<S>),
    soft: ContactSoftness<S>,
) {
    let (ma, ia, mb, ib) = (sa.inv_mass, sa.inv_i, sb.inv_mass, sb.inv_i);
    let normal = c.normal;
    k.nx[lane] = normal.x;
    k.ny[lane] = normal.y;
    let soft = if ma == S::ZERO || mb == S::ZERO {
        soft.against_fixed
    } else {
        soft.between_dynamic
    };
    k.bias_rate[lane] = soft.bias_rate;
    k.mass_scale[lane] = soft.mass_scale;
    k.impulse_scale[lane] = soft.impulse_scale;
    let ca = centre_offset(ea);
    let cb = centre_offset(eb);
    // The closing speed is read only by restitution.
    let bounces = k.restitution[lane] != S::ZERO;
    let m = RowMass { ma, ia, mb, ib };
    for (cp, p) in c.points[..c.count as usize].iter().zip(&mut k.points) {
        let ra = cp.anchor_a - ca;
        let rb = cp.anchor_b - cb;
        let set = S::point_setup(&m, normal, (ra, rb), cp.separation);
        let ([rna, rnb, rta, rtb], arms) = (set.levers, set.arms);
        p.rax[lane] = ra.x;
        p.ray[lane] = ra.y;
        p.rbx[lane] = rb.x;
        p.rby[lane] = rb.y;
        p.rna[lane] = rna;
        p.rnb[lane] = rnb;
        p.rta[lane] = rta;
        p.rtb[lane] = rtb;
        p.adjusted_separation[lane] = set.adjusted_separation;
        p.separation[lane] = S::ZERO;
        p.normal_mass[lane] = inv_or_zero(set.k_normal);
        p.tangent_mass[lane] = inv_or_zero(set.k_tangent);
        p.normal_impulse[lane] = cp.normal_impulse;
        p.tangent_impulse[lane] = cp.tangent_impulse;
        p.max_normal_impulse[lane] = S::ZERO;
        p.relative_velocity[lane] = if bounces {
            normal.dot(SolverBody::relative_velocity(sa, sb, ra, rb))
        } else {
            S::ZERO
        };
        p.lin_ax[lane] = arms.lin_a.x;
        p.lin_ay[lane] = arms.lin_a.y;
        p.lin_bx[lane] = arms.lin_b.x;
        p.lin_by[lane] = arms.lin_b.y;
        p.ang_na[lane] = arms.ang_n.0;
        p.ang_nb[lane] = arms.ang_n.1;
        p.ang_ta[lane] = arms.ang_t.0;
        p.ang_tb[lane] = arms.ang_t.1;
    }
}

/// A body's centre of mass relative to its origin, in world axes (zero,
/// without the rotation, for a shape centred on the origin).
fn centre_offset<S: SimScalar>(e: &BodyEntry<S>) -> Vec2<S> {
    if e.body.local_center == Vec2::ZERO {
        Vec2::ZERO
    } else {
        e.body.rotation.rotate(e.body.local_center)
    }
}

fn inv_or_zero<S: SimScalar>(k: S) -> S {
    if k.gt(S::ZERO) { S::ONE / k } else { S::ZERO }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use laige_core::{Fpx16_16 as F, Vec2};
    use laige_sim::World;

    use super::LANES;
    use crate::{BodyDef, Collider, Physics, PhysicsConfig, PhysicsScratch, Shape, spawn_body};

    fn at(x: i32, y: i32) -> Vec2<F> {
        Vec2::new(F::from_ratio(x, 100), F::from_ratio(y, 100))
    }

    /// A ground, a ten-row pyramid, and a plank carrying 80 circles (more
    /// contacts on one dynamic body than there are colours).
    fn scene() -> World {
        let mut world = World::default();
        Physics::install(&mut world, PhysicsConfig::<F>::default(), 0).unwrap();
        let ground = Collider::new(Shape::rect(F::from_i32(30), F::ONE).unwrap());
        spawn_body(&mut world, &BodyDef::fixed(at(0, -100)), &[ground]).unwrap();
        let half = F::from_ratio(1, 2);
        for row in 0..10 {
            for i in row..10 {
                let x = (row + 1) * 50 + (i - row) * 100 - 2000;
                let def = BodyDef::dynamic(at(x, (2 * row + 1) * 50));
                spawn_body(
                    &mut world,
                    &def,
                    &[Collider::new(Shape::rect(half, half).unwrap())],
                )
                .unwrap();
            }
        }
        let plank = Collider::new(Shape::rect(F::from_i32(10), F::from_ratio(1, 4)).unwrap())
            .density(F::from_ratio(1, 4));
        spawn_body(&mut world, &BodyDef::dynamic(at(1000, 25)), &[plank]).unwrap();
        for i in 0..80 {
            let ball = Collider::new(Shape::circle(F::from_ratio(12, 100)).unwrap())
                .density(F::from_i32(4));
            spawn_body(&mut world, &BodyDef::dynamic(at(i * 25 + 13, 45)), &[ball]).unwrap();
        }
        world
    }

    #[test]
    fn every_touching_contact_is_in_one_lane_and_no_bundle_shares_a_dynamic_body() {
        let mut world = scene();
        let schedule = world.schedule_systems();
        let mut overflowed = false;
        for _ in 0..30 {
            world.run_systems(&schedule).unwrap();
            let state = Physics::state::<F>(&world).unwrap();
            let scratch = world.resource::<PhysicsScratch<F>>().unwrap();
            let spare = (scratch.solver.len() - 1) as u32;
            let mut seen = BTreeSet::new();
            for k in &scratch.bundle.bundles {
                let mut moving = BTreeSet::new();
                for l in 0..LANES {
                    if k.contact[l] == u32::MAX {
                        assert_eq!((k.wa[l], k.wb[l], k.count[l]), (spare, spare, 0));
                        continue;
                    }
                    assert!(seen.insert(k.contact[l]), "contact {} twice", k.contact[l]);
                    assert!(k.count[l] <= k.points_used);
                    for w in [k.wa[l], k.wb[l]] {
                        if w != spare {
                            assert!(moving.insert(w), "body {w} twice in one bundle");
                        }
                    }
                }
                assert!(!moving.is_empty());
            }
            // Exactly the contacts the solver must see.
            let want: BTreeSet<u32> = state
                .contacts
                .iter()
                .zip(&scratch.contact_bodies)
                .enumerate()
                .filter(|(_, (c, (a, b)))| {
                    c.touching
                        && !c.sensor
                        && c.count > 0
                        && (scratch.solver[*a as usize].dynamic
                            || scratch.solver[*b as usize].dynamic)
                })
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(seen, want);
            // The plank (the last body but the 80 circles) in more than
            // 64 contacts: some of them overflowed.
            let plank = (scratch.bodies.len() - 81) as u32;
            let on_plank = scratch
                .contact_bodies
                .iter()
                .enumerate()
                .filter(|&(i, &(a, b))| seen.contains(&(i as u32)) && (a == plank || b == plank))
                .count();
            overflowed |= on_plank > 64;
        }
        assert!(overflowed, "the plank never carried more than 64 contacts");
    }
}
