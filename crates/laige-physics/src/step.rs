//! One physics step: gather the bodies in entity-bit order, the
//! sort-and-sweep broadphase, the narrowphase against the contact cache
//! (warm-start impulses matched by feature id, begin/end events), islands
//! and sleep, the soft-step solver, and the write-back. Every order here
//! is a pure function of the world: bodies by entity bits, proxies by
//! (4 m band, lower x; ties in any order, which changes no pair), pairs and
//! contacts by pair key.

use hecs::Entity;
use laige_core::{SimScalar, Vec2, event};
use laige_sim::Entities;

use crate::body::{BodyKind, Collider, Colliders, RigidBody};
use crate::bundle::BundleScratch;
use crate::events::RANGE_CLAMPED;
use crate::joint::{Joint, JointEntry};
use crate::limits::{MAX_SPIN, WORLD_HALF_EXTENT};
use crate::manifold::{NarrowConsts, collide_within, speculative_distance};
use crate::shape::Aabb;
use crate::solver::{self, SolverBody};
use crate::state::{Contact, ContactPoint, PhysicsEvent, PhysicsEventKind, PhysicsState};

/// One body as the step sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyEntry<S> {
    pub(crate) bits: u64,
    pub(crate) entity: Entity,
    pub(crate) body: RigidBody<S>,
    /// Its colliders: `colliders[first..first + count]` of the scratch.
    pub(crate) first: u32,
    pub(crate) count: u8,
    /// Dynamic and in an awake island this step.
    pub(crate) awake: bool,
    /// Touched by a moving kinematic body this step.
    pub(crate) pushed: bool,
}

/// A collider's box in one band of the sweep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proxy<S> {
    /// The horizontal band (`⌊y / BAND_HEIGHT⌋`); a box spanning several
    /// bands has a proxy in each.
    pub(crate) band: i32,
    pub(crate) aabb: Aabb<S>,
    pub(crate) body: u32,
    pub(crate) collider: u8,
}

/// A candidate pair, ordered by key.
#[derive(Clone, Copy, Debug)]
struct Pair {
    key: (u64, u8, u64, u8),
    /// The key's order as one number: the bodies' indices (in entity-bit
    /// order, so the same order as their bits) and colliders, packed.
    order: u128,
    body_a: u32,
    body_b: u32,
    sensor: bool,
}

/// The step's working memory: a plain (unhashed) resource, rewritten from
/// the world at every step, its capacity kept so a warm step allocates
/// nothing.
#[derive(Debug, Default)]
pub struct PhysicsScratch<S> {
    pub(crate) bodies: Vec<BodyEntry<S>>,
    pub(crate) colliders: Vec<Collider<S>>,
    pub(crate) proxies: Vec<Proxy<S>>,
    pairs: Vec<Pair>,
    contacts: Vec<Contact<S>>,
    /// Per contact of the state's cache, in its order: the indices of its
    /// two bodies in `bodies` (found once by the broadphase, not searched
    /// again by the islands and the solver).
    pub(crate) contact_bodies: Vec<(u32, u32)>,
    pub(crate) solver: Vec<SolverBody<S>>,
    /// The contact constraints, coloured and packed four wide.
    pub(crate) bundle: BundleScratch<S>,
    pub(crate) joints: Vec<JointEntry<S>>,
    /// Per contact of the cache: its constraint, or `u32::MAX`.
    parent: Vec<u32>,
    island_time: Vec<S>,
    island_pushed: Vec<bool>,
}

impl<S: SimScalar> PhysicsScratch<S> {
    /// The index of the body with entity bits `bits`.
    pub(crate) fn body_index(&self, bits: u64) -> Option<usize> {
        self.bodies.binary_search_by_key(&bits, |b| b.bits).ok()
    }
}

fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let p = parent[i as usize];
        parent[i as usize] = parent[p as usize];
        i = p;
    }
    i
}

fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    // The smaller index is the root: the result depends on nothing else.
    if ra < rb {
        parent[rb as usize] = ra;
    } else if rb < ra {
        parent[ra as usize] = rb;
    }
}

/// Gathers the world's bodies into the scratch, sorted by entity bits.
pub(crate) fn gather<S: SimScalar>(scratch: &mut PhysicsScratch<S>, entities: &Entities) {
    scratch.bodies.clear();
    scratch.colliders.clear();
    let mut query = entities.query::<(Entity, &RigidBody<S>, &Colliders<S>)>();
    for (entity, body, colliders) in query.iter() {
        let list = colliders.as_slice();
        scratch.bodies.push(BodyEntry {
            bits: entity.to_bits().get(),
            entity,
            body: *body,
            first: scratch.colliders.len() as u32,
            count: list.len() as u8,
            awake: false,
            pushed: false,
        });
        // Copied, not cloned: the derived `Clone` of a generic struct
        // goes field by field.
        scratch.colliders.extend(list.iter().copied());
    }
    scratch.bodies.sort_unstable_by_key(|b| b.bits);
    drop(query);
    scratch.joints.clear();
    let mut joints = entities.query::<(Entity, &Joint<S>)>();
    for (entity, joint) in joints.iter() {
        let (Some(a), Some(b)) = (
            scratch.body_index(joint.body_a),
            scratch.body_index(joint.body_b),
        ) else {
            continue; // a body was removed: the joint holds nothing.
        };
        scratch
            .joints
            .push(JointEntry::new(entity, *joint, a as u32, b as u32));
    }
    scratch.joints.sort_unstable_by_key(|j| j.entity.to_bits());
}

/// The sweep's band height, metres (a power of two: `y / 4` is exact on
/// both backends). Sweeping along x inside horizontal bands keeps a stack
/// or a column of bodies from putting everything into one x-window (plain
/// sort-and-sweep is O(n·√n) on a grid; banded, O(n log n)).
const BAND_HEIGHT: i32 = 4;

/// Every collider's box, grown by the speculative distance and swept
/// along the body's motion over the step, one proxy per band it spans,
/// sorted by (band, lower x).
pub(crate) fn build_proxies<S: SimScalar>(scratch: &mut PhysicsScratch<S>, dt: S) {
    let margin = Vec2::splat(speculative_distance::<S>());
    let inv_band = S::from_ratio(1, BAND_HEIGHT);
    scratch.proxies.clear();
    for (bi, b) in scratch.bodies.iter().enumerate() {
        let xf = b.body.transform();
        let sweep = if b.body.sleeping {
            Vec2::ZERO
        } else {
            b.body.linear_velocity * dt
        };
        for ci in 0..b.count {
            let c = &scratch.colliders[b.first as usize + ci as usize];
            let mut aabb = c.shape.aabb(xf);
            aabb.min += sweep.min(Vec2::ZERO) - margin;
            aabb.max += sweep.max(Vec2::ZERO) + margin;
            let lo = (aabb.min.y * inv_band).to_i32_floor();
            let hi = (aabb.max.y * inv_band).to_i32_floor();
            for band in lo..=hi {
                scratch.proxies.push(Proxy {
                    band,
                    aabb,
                    body: bi as u32,
                    collider: ci,
                });
            }
        }
    }
    // Ties (same band, same lower x) stay in any order: the sweep finds
    // the same set of pairs whichever of two tied proxies comes first (the
    // earlier one meets the later before any proxy starting beyond its
    // upper x), and the pairs are then sorted by their own unique key.
    scratch.proxies.sort_unstable_by(|p, q| {
        p.band.cmp(&q.band).then(
            p.aabb
                .min
                .x
                .partial_cmp(&q.aabb.min.x)
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
}

/// The sweep, band by band: every pair of boxes overlapping on both axes
/// that may interact, sorted by pair key, each once.
fn find_pairs<S: SimScalar>(scratch: &mut PhysicsScratch<S>) {
    scratch.pairs.clear();
    let (proxies, bodies, colliders) = (&scratch.proxies, &scratch.bodies, &scratch.colliders);
    for (i, p) in proxies.iter().enumerate() {
        for q in &proxies[i + 1..] {
            if q.band != p.band || q.aabb.min.x.gt(p.aabb.max.x) {
                break;
            }
            if p.body == q.body || !p.aabb.overlaps(&q.aabb) {
                continue;
            }
            let (ba, bb) = (&bodies[p.body as usize], &bodies[q.body as usize]);
            let ca = &colliders[ba.first as usize + p.collider as usize];
            let cb = &colliders[bb.first as usize + q.collider as usize];
            let sensor = ca.sensor || cb.sensor;
            if (ca.sensor && cb.sensor) || !ca.filter.accepts(&cb.filter) {
                continue;
            }
            let (ka, kb) = (ba.body.kind, bb.body.kind);
            let dynamic = ka == BodyKind::Dynamic || kb == BodyKind::Dynamic;
            let moving = ka != BodyKind::Static || kb != BodyKind::Static;
            if !(dynamic || (sensor && moving)) {
                continue;
            }
            let (x, y) = ((ba.bits, p.collider), (bb.bits, q.collider));
            let (a, b) = if x < y { (p, q) } else { (q, p) };
            let pair = Pair {
                key: (x.min(y).0, x.min(y).1, x.max(y).0, x.max(y).1),
                order: u128::from(a.body) << 72
                    | u128::from(a.collider) << 64
                    | u128::from(b.body) << 8
                    | u128::from(b.collider),
                body_a: a.body,
                body_b: b.body,
                sensor,
            };
            scratch.pairs.push(pair);
        }
    }
    scratch.pairs.sort_unstable_by_key(|p| p.order);
    // Two boxes sharing several bands met in each.
    scratch.pairs.dedup_by_key(|p| p.order);
}

fn event_for(c: &Contact<impl Copy>, begin: bool) -> PhysicsEvent {
    let kind = match (c.sensor, begin) {
        (false, true) => PhysicsEventKind::ContactBegin,
        (false, false) => PhysicsEventKind::ContactEnd,
        (true, true) => PhysicsEventKind::SensorBegin,
        (true, false) => PhysicsEventKind::SensorEnd,
    };
    PhysicsEvent {
        kind,
        body_a: c.body_a,
        collider_a: c.collider_a,
        body_b: c.body_b,
        collider_b: c.collider_b,
    }
}

/// Does this body need its contacts recomputed (not static, not asleep)?
fn active<S: SimScalar>(b: &BodyEntry<S>) -> bool {
    b.body.kind != BodyKind::Static && !b.body.sleeping
}

/// The narrowphase over the sorted pairs, merged against the sorted cache.
fn update_contacts<S: SimScalar>(state: &mut PhysicsState<S>, scratch: &mut PhysicsScratch<S>) {
    let dt = state.config.dt;
    let narrow = NarrowConsts::new();
    let spec_base = speculative_distance::<S>();
    state.events.clear();
    scratch.contacts.clear();
    scratch.contact_bodies.clear();
    let old = &state.contacts;
    let mut oi = 0;
    let vanish = |c: &Contact<S>, events: &mut Vec<PhysicsEvent>, bodies: &mut [BodyEntry<S>]| {
        if c.touching {
            events.push(event_for(c, false));
            for bits in [c.body_a, c.body_b] {
                if let Ok(i) = bodies.binary_search_by_key(&bits, |b| b.bits) {
                    bodies[i].body.wake();
                }
            }
        }
    };
    for pair in &scratch.pairs {
        while oi < old.len() && old[oi].key() < pair.key {
            vanish(&old[oi], &mut state.events, &mut scratch.bodies);
            oi += 1;
        }
        let prev = if oi < old.len() && old[oi].key() == pair.key {
            oi += 1;
            Some(old[oi - 1])
        } else {
            None
        };
        let (ba, bb) = (
            &scratch.bodies[pair.body_a as usize],
            &scratch.bodies[pair.body_b as usize],
        );
        let contact = match prev {
            Some(p) if !active(ba) && !active(bb) => p,
            _ => {
                let ca = &scratch.colliders[ba.first as usize + pair.key.1 as usize];
                let cb = &scratch.colliders[bb.first as usize + pair.key.3 as usize];
                // Speculative contacts as far as the pair can close in a
                // step: a fast body stops at a thin wall, never skips it.
                let rel = (bb.body.linear_velocity - ba.body.linear_velocity).abs();
                let spec = spec_base + (rel.x + rel.y) * dt;
                let m = collide_within(
                    &ca.shape,
                    ba.body.transform(),
                    &cb.shape,
                    bb.body.transform(),
                    spec,
                    &narrow,
                );
                let mut c = Contact {
                    body_a: pair.key.0,
                    collider_a: pair.key.1,
                    body_b: pair.key.2,
                    collider_b: pair.key.3,
                    sensor: pair.sensor,
                    normal: m.normal,
                    count: m.count,
                    ..Contact::default()
                };
                let mut overlap = false;
                for (k, mp) in m.points[..m.count as usize].iter().enumerate() {
                    let mut cp = ContactPoint {
                        anchor_a: mp.anchor_a,
                        anchor_b: mp.anchor_b,
                        separation: mp.separation,
                        id: mp.id,
                        ..ContactPoint::default()
                    };
                    if let Some(p) = &prev
                        && let Some(old) =
                            p.points[..p.count as usize].iter().find(|o| o.id == mp.id)
                    {
                        cp.normal_impulse = old.normal_impulse;
                        cp.tangent_impulse = old.tangent_impulse;
                    }
                    overlap |= !mp.separation.gt(S::ZERO);
                    c.points[k] = cp;
                }
                c.touching = if pair.sensor { overlap } else { m.count > 0 };
                if pair.sensor {
                    // A sensor keeps no points: it never pushes.
                    c.count = 0;
                    c.points = [ContactPoint::default(); 2];
                }
                c
            }
        };
        let was = prev.is_some_and(|p| p.touching);
        if contact.touching != was {
            state.events.push(event_for(&contact, contact.touching));
        }
        scratch.contacts.push(contact);
        scratch.contact_bodies.push((pair.body_a, pair.body_b));
    }
    while oi < old.len() {
        vanish(&old[oi], &mut state.events, &mut scratch.bodies);
        oi += 1;
    }
    std::mem::swap(&mut state.contacts, &mut scratch.contacts);
}

/// Islands of touching dynamic bodies; an island sleeps once every body
/// in it has been slow for `time_to_sleep`.
fn update_islands<S: SimScalar>(state: &PhysicsState<S>, scratch: &mut PhysicsScratch<S>) {
    let n = scratch.bodies.len();
    scratch.parent.clear();
    scratch.parent.extend(0..n as u32);
    for (c, &(a, b)) in state.contacts.iter().zip(&scratch.contact_bodies) {
        if !c.touching || c.sensor {
            continue;
        }
        let (a, b) = (a as usize, b as usize);
        let (ka, kb) = (scratch.bodies[a].body.kind, scratch.bodies[b].body.kind);
        if ka == BodyKind::Dynamic && kb == BodyKind::Dynamic {
            union(&mut scratch.parent, a as u32, b as u32);
        }
        // A moving kinematic body keeps what it touches awake.
        for (me, other) in [(a, b), (b, a)] {
            let o = &scratch.bodies[other].body;
            if o.kind == BodyKind::Kinematic
                && (o.linear_velocity != Vec2::ZERO || o.angular_velocity != S::ZERO)
            {
                scratch.bodies[me].pushed = true;
            }
        }
    }
    for j in &scratch.joints {
        let (ka, kb) = (
            scratch.bodies[j.a as usize].body.kind,
            scratch.bodies[j.b as usize].body.kind,
        );
        if ka == BodyKind::Dynamic && kb == BodyKind::Dynamic {
            union(&mut scratch.parent, j.a, j.b);
        }
    }
    let cfg = &state.config;
    scratch.island_time.clear();
    scratch.island_time.resize(n, S::from_i32(32767));
    scratch.island_pushed.clear();
    scratch.island_pushed.resize(n, false);
    for i in 0..n {
        let root = find(&mut scratch.parent, i as u32) as usize;
        let b = &scratch.bodies[i];
        let t = if b.body.allow_sleep {
            b.body.sleep_time
        } else {
            S::ZERO
        };
        scratch.island_time[root] = scratch.island_time[root].min(t);
        scratch.island_pushed[root] |= b.pushed;
    }
    for i in 0..n {
        let root = find(&mut scratch.parent, i as u32) as usize;
        let b = &mut scratch.bodies[i];
        if b.body.kind != BodyKind::Dynamic {
            continue;
        }
        let asleep = cfg.enable_sleep
            && !scratch.island_pushed[root]
            && scratch.island_time[root].ge(cfg.time_to_sleep);
        if asleep {
            b.body.linear_velocity = Vec2::ZERO;
            b.body.angular_velocity = S::ZERO;
        }
        b.body.sleeping = asleep;
        b.awake = !asleep;
    }
}

/// Clamps the body to the supported ranges; true when anything changed.
fn clamp_body<S: SimScalar>(body: &mut RigidBody<S>) -> bool {
    let mut clamped = false;
    let limit = S::from_i32(WORLD_HALF_EXTENT);
    for (p, v) in [
        (&mut body.position.x, &mut body.linear_velocity.x),
        (&mut body.position.y, &mut body.linear_velocity.y),
    ] {
        if !p.abs().le(limit) {
            *p = p.clamp(-limit, limit);
            *v = S::ZERO;
            clamped = true;
        }
    }
    let spin = S::from_i32(MAX_SPIN);
    if !body.angular_velocity.abs().le(spin) {
        body.angular_velocity = body.angular_velocity.clamp(-spin, spin);
        clamped = true;
    }
    clamped
}

/// One step of `state.config.dt` over every body of `entities`.
pub fn step<S: SimScalar>(
    state: &mut PhysicsState<S>,
    scratch: &mut PhysicsScratch<S>,
    entities: &mut Entities,
    tick: u64,
) {
    gather(scratch, entities);
    build_proxies(scratch, state.config.dt);
    find_pairs(scratch);
    update_contacts(state, scratch);
    update_islands(state, scratch);
    let speed_clamps = solver::solve(state, scratch);

    let cfg = state.config;
    let mut clamped = speed_clamps;
    let (mut touching, mut sleeping) = (0u32, 0u32);
    for c in &state.contacts {
        touching += u32::from(c.touching && !c.sensor);
    }
    for b in &mut scratch.bodies {
        let body = &mut b.body;
        if body.kind == BodyKind::Static {
            continue;
        }
        if body.sleeping {
            sleeping += 1;
        }
        clamped += u64::from(clamp_body(body));
        let (v, tol) = (body.linear_velocity, cfg.linear_sleep_tolerance);
        // A component above the tolerance decides without the root.
        let slow = v.x.abs().le(tol)
            && v.y.abs().le(tol)
            && v.length_wide().le(tol)
            && body.angular_velocity.abs().le(cfg.angular_sleep_tolerance);
        body.sleep_time = if slow && !b.pushed {
            (body.sleep_time + cfg.dt).min(S::from_i32(1024))
        } else {
            S::ZERO
        };
        if let Some(dst) = entities.query_one_mut::<&mut RigidBody<S>>(b.entity) {
            *dst = *body;
        }
    }
    for j in &scratch.joints {
        if j.active
            && let Some(dst) = entities.query_one_mut::<&mut Joint<S>>(j.entity)
        {
            *dst = j.joint;
        }
    }
    state.stats.steps += 1;
    state.stats.touching = touching;
    state.stats.sleeping = sleeping;
    if clamped > 0 {
        state.stats.clamped += clamped;
        report_clamped(tick, clamped, state.stats.clamped);
    }
}

#[cold]
fn report_clamped(tick: u64, clamped: u64, total: u64) {
    event!(
        Warn,
        RANGE_CLAMPED,
        tick,
        clamped,
        total,
        fix = "keep bodies inside the supported ranges (laige_physics::limits)"
    );
}
