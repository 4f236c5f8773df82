//! The physics world state: the configuration, the contact cache with its
//! warm-start impulses, the step's events and counters — one hashed
//! resource, so snapshots, rollback, replays and the state hash carry all
//! of it.

use laige_core::{Result, SimScalar, Vec2};
use laige_sim::StateHash;

use crate::error::out_of_range;
use crate::events::BODY_INVALID;

/// The step's settings (Box2D v3's defaults, in laige's units).
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
pub struct PhysicsConfig<S> {
    /// m/s².
    pub gravity: Vec2<S>,
    /// The step length, seconds (the tick length: `1/60` by default).
    pub dt: S,
    /// Substeps per step (each: integrate, solve with bias, relax).
    pub substeps: u8,
    /// Contact stiffness, Hz (capped at a quarter of the substep rate).
    pub contact_hertz: S,
    /// Contact damping ratio.
    pub contact_damping_ratio: S,
    /// The fastest a contact pushes overlapping bodies apart, m/s.
    pub contact_push_max_velocity: S,
    /// Below this approach speed restitution is ignored, m/s.
    pub restitution_threshold: S,
    /// Slower than this counts towards sleep, m/s.
    pub linear_sleep_tolerance: S,
    /// Slower than this counts towards sleep, rad/s.
    pub angular_sleep_tolerance: S,
    /// An island this long below the tolerances falls asleep, seconds.
    pub time_to_sleep: S,
    /// Whether islands sleep at all.
    pub enable_sleep: bool,
}

impl<S: SimScalar> Default for PhysicsConfig<S> {
    fn default() -> Self {
        Self {
            gravity: Vec2::new(S::ZERO, S::from_i32(-10)),
            dt: S::from_ratio(1, 60),
            substeps: 4,
            contact_hertz: S::from_i32(30),
            contact_damping_ratio: S::from_i32(10),
            contact_push_max_velocity: S::from_i32(3),
            restitution_threshold: S::ONE,
            linear_sleep_tolerance: S::from_ratio(1, 20),
            angular_sleep_tolerance: S::from_ratio(1, 30),
            time_to_sleep: S::from_ratio(1, 2),
            enable_sleep: true,
        }
    }
}

impl<S: SimScalar> PhysicsConfig<S> {
    /// Checks the ranges.
    ///
    /// # Errors
    /// `physics/body_invalid` (OutOfRange) for a step outside
    /// `1/240 ..= 1/20` s, substeps outside `1..=8`, gravity above 100 m/s²
    /// on an axis, or a non-positive stiffness.
    pub fn validate(&self) -> Result<()> {
        if !(self.dt.ge(S::from_ratio(1, 240)) && self.dt.le(S::from_ratio(1, 20))) {
            return Err(out_of_range(
                BODY_INVALID,
                "dt",
                self.dt,
                "1/240 ..= 1/20 s",
            ));
        }
        if !(1..=8).contains(&self.substeps) {
            return Err(out_of_range(
                BODY_INVALID,
                "substeps",
                self.substeps,
                "1..=8",
            ));
        }
        let g = S::from_i32(100);
        if !(self.gravity.x.abs().le(g) && self.gravity.y.abs().le(g)) {
            return Err(out_of_range(
                BODY_INVALID,
                "gravity",
                self.gravity,
                "|g| <= 100 m/s² per axis",
            ));
        }
        if !(self.contact_hertz.gt(S::ZERO) && self.contact_hertz.le(S::from_i32(240))) {
            return Err(out_of_range(
                BODY_INVALID,
                "contact_hertz",
                self.contact_hertz,
                "0 < hz <= 240",
            ));
        }
        Ok(())
    }
}

/// One contact point of the cache: where the last narrowphase found it,
/// and the impulses the solver accumulated (warm-start values of the next
/// step, matched by `id`).
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct ContactPoint<S> {
    /// Relative to body A's origin, world orientation.
    pub anchor_a: Vec2<S>,
    /// Relative to body B's origin, world orientation.
    pub anchor_b: Vec2<S>,
    /// Negative when penetrating.
    pub separation: S,
    /// The normal impulse, N·s.
    pub normal_impulse: S,
    /// The friction impulse, N·s.
    pub tangent_impulse: S,
    /// The largest normal impulse of one iteration this step (restitution
    /// applies only where it is positive).
    pub max_normal_impulse: S,
    /// The feature id.
    pub id: u16,
}

/// A pair of colliders whose boxes overlap, with its manifold. The pair
/// is ordered: `(body_a, collider_a) < (body_b, collider_b)` by entity
/// bits, then collider index.
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Contact<S> {
    /// Body A's entity bits.
    pub body_a: u64,
    /// A's collider index.
    pub collider_a: u8,
    /// Body B's entity bits.
    pub body_b: u64,
    /// B's collider index.
    pub collider_b: u8,
    /// One collider is a sensor: reported, never solved.
    pub sensor: bool,
    /// Has points (a sensor: overlaps).
    pub touching: bool,
    /// From A to B.
    pub normal: Vec2<S>,
    /// Points in use.
    pub count: u8,
    /// The points.
    pub points: [ContactPoint<S>; 2],
}

impl<S> Contact<S> {
    /// The pair's sort key.
    #[inline]
    #[must_use]
    pub fn key(&self) -> (u64, u8, u64, u8) {
        (self.body_a, self.collider_a, self.body_b, self.collider_b)
    }
}

/// What a [`PhysicsEvent`] reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
pub enum PhysicsEventKind {
    /// Two solid colliders started touching.
    #[default]
    ContactBegin,
    /// They stopped (or one was removed).
    ContactEnd,
    /// A sensor started overlapping a collider.
    SensorBegin,
    /// It stopped (or one was removed).
    SensorEnd,
}

/// A begin or end of a contact or sensor overlap, in the step that saw it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
pub struct PhysicsEvent {
    /// Begin or end, contact or sensor.
    pub kind: PhysicsEventKind,
    /// Body A's entity bits (`hecs::Entity::from_bits`).
    pub body_a: u64,
    /// A's collider index.
    pub collider_a: u8,
    /// Body B's entity bits.
    pub body_b: u64,
    /// B's collider index.
    pub collider_b: u8,
}

/// Counters since install.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
pub struct PhysicsStats {
    /// Steps taken.
    pub steps: u64,
    /// Clamps of a speed, spin or position to the supported range.
    pub clamped: u64,
    /// Touching solid contacts after the last step.
    pub touching: u32,
    /// Bodies asleep after the last step.
    pub sleeping: u32,
}

/// The physics world: a hashed resource (`Physics::install` inserts it).
/// Its `clone_from` reuses the vectors' capacity, so a warm snapshot save
/// or load allocates nothing.
#[derive(Debug, PartialEq, StateHash)]
pub struct PhysicsState<S> {
    /// The settings.
    pub config: PhysicsConfig<S>,
    /// The contact cache, sorted by pair key.
    pub(crate) contacts: Vec<Contact<S>>,
    /// The last step's events, in pair-key order.
    pub(crate) events: Vec<PhysicsEvent>,
    /// Counters.
    pub(crate) stats: PhysicsStats,
}

impl<S: Clone> Clone for PhysicsState<S> {
    fn clone(&self) -> Self {
        Self {
            config: self.config.clone(),
            contacts: self.contacts.clone(),
            events: self.events.clone(),
            stats: self.stats,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.config.clone_from(&source.config);
        self.contacts.clone_from(&source.contacts);
        self.events.clone_from(&source.events);
        self.stats = source.stats;
    }
}

impl<S: SimScalar> PhysicsState<S> {
    /// A state with `config`.
    #[must_use]
    pub fn new(config: PhysicsConfig<S>) -> Self {
        Self {
            config,
            contacts: Vec::new(),
            events: Vec::new(),
            stats: PhysicsStats::default(),
        }
    }

    /// The contact cache, sorted by pair key (touching or not).
    #[must_use]
    pub fn contacts(&self) -> &[Contact<S>] {
        &self.contacts
    }

    /// The last step's begin/end events, in pair-key order.
    #[must_use]
    pub fn events(&self) -> &[PhysicsEvent] {
        &self.events
    }

    /// The counters.
    #[must_use]
    pub fn stats(&self) -> PhysicsStats {
        self.stats
    }
}
