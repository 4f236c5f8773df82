//! The detcheck scenario: the reference workload plus scripted input,
//! spawns and despawns, hashed every `checkpoint_every` ticks, recorded as
//! a replay and verified by playing that replay back on a fresh world.
//! At every checkpoint the live world is encoded as snapshot bytes, decoded
//! into a fresh world, checked to hash the same, and the run goes on from
//! the decoded world: the final hash then also proves that the byte format
//! carries everything that shapes the future, on the target that ran it.

use hecs::Entity;
use laige_core::math::BackendVisitor;
use laige_core::{Error, ErrorCode, MathBackend, Result, SimScalar, Vec2};
use laige_sim::replay::{
    self, Divergence, ENGINE_VERSION, Replay, ReplayHeader, ReplayInput, ReplayRecorder,
    WorldTarget,
};
use laige_sim::workload::{self, Position, PrevPosition, Velocity, WorkloadConfig};
use laige_sim::{StateHash, StateHasher, World, hash_of};

use crate::input::{Script, TickInput};
use crate::physics_scene;

pub use crate::events::CONFIG_INVALID;

/// The scenario's version: bump it with any change to the scenario's
/// behaviour (the known answers change with it).
pub const SCENARIO_VERSION: u32 = 1;

/// Which world the scenario drives with its script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scene {
    /// The reference workload ([`laige_sim::workload`]): impulses, spawns
    /// and despawns of its entities.
    #[default]
    Workload,
    /// The physics scene ([`crate::physics_scene`]): a pyramid and falling
    /// hinge chains on laige-physics, impulses and dropped balls.
    Physics,
}

impl Scene {
    /// The scene's id on the command line.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Self::Workload => "workload",
            Self::Physics => "physics",
        }
    }
}

/// What the scenario runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenarioConfig {
    /// The world the script drives.
    pub scene: Scene,
    /// Ticks to run (≥ 1).
    pub ticks: u64,
    /// The workload (entity count, seed, world size).
    pub workload: WorkloadConfig,
    /// A state hash every this many ticks, and at 0 and at the end
    /// (1..=`u32::MAX`).
    pub checkpoint_every: u64,
    /// The negative control: nudge one entity's velocity by 2^-16 units/s
    /// while running this tick (live run only — the replay playback does
    /// not, so it must report the divergence too).
    pub perturb_at: Option<u64>,
    /// Record the run as a replay and verify it by playback.
    pub verify_replay: bool,
}

/// Entities of the scenario: 96 keeps a debug build's 100k ticks of both
/// backends, recorded and replayed, in well under a minute on one core
/// (`laige_sim::determinism` has the measured figure) while every system
/// still runs over a few archetype rows.
pub const ENTITIES: u32 = 96;

impl ScenarioConfig {
    /// The full scenario: 100 000 ticks (long enough for rare paths to show),
    /// a checkpoint every 5 000.
    #[must_use]
    pub fn full() -> Self {
        Self {
            scene: Scene::Workload,
            ticks: 100_000,
            workload: WorkloadConfig {
                entities: ENTITIES,
                seed: 0xde7c_4ec4,
                ..WorkloadConfig::default()
            },
            checkpoint_every: 5_000,
            perturb_at: None,
            verify_replay: true,
        }
    }

    /// The quick scenario (`--quick`): 10 000 ticks, a checkpoint every
    /// 1 000; its own known answers.
    #[must_use]
    pub fn quick() -> Self {
        Self {
            ticks: 10_000,
            checkpoint_every: 1_000,
            ..Self::full()
        }
    }

    /// The physics scene (`--scene physics`): 3 000 ticks (50 s at
    /// 60 Hz: the pyramid settles and sleeps, the chains fall, tangle and
    /// are pushed about), a checkpoint every 500; its own known answers, one
    /// length on every target (emulated ones included).
    #[must_use]
    pub fn physics() -> Self {
        Self {
            scene: Scene::Physics,
            ticks: 3_000,
            checkpoint_every: 500,
            ..Self::full()
        }
    }

    /// The tick the negative control perturbs: the middle of the run.
    #[must_use]
    pub fn control_tick(&self) -> u64 {
        self.ticks / 2
    }

    /// The first checkpoint whose hash a perturbation at `tick` changes.
    #[must_use]
    pub fn first_affected_checkpoint(&self, tick: u64) -> u64 {
        let after = tick + 1;
        after
            .div_ceil(self.checkpoint_every)
            .saturating_mul(self.checkpoint_every)
            .min(self.ticks)
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// `detcheck/config_invalid` naming the field; the workload's own
    /// validation.
    pub fn validate(&self) -> Result<()> {
        self.workload.validate()?;
        if self.ticks == 0 {
            return Err(Error::invalid_argument(CONFIG_INVALID, "ticks", 0, ">= 1"));
        }
        if self.checkpoint_every == 0 || u32::try_from(self.checkpoint_every).is_err() {
            return Err(Error::invalid_argument(
                CONFIG_INVALID,
                "checkpoint_every",
                self.checkpoint_every,
                "1..=4294967295 ticks",
            ));
        }
        Ok(())
    }

    /// The replay's config hash: every value that shapes the simulation.
    #[must_use]
    pub fn config_hash(&self) -> u64 {
        let w = &self.workload;
        let mut h = StateHasher::default();
        h.write_bytes(b"laige-detcheck");
        h.write_u32(SCENARIO_VERSION);
        h.write_u32(w.entities);
        h.write_u32(w.tick_rate_hz);
        h.write_u32(w.half_extent.cast_unsigned());
        h.write_u32(w.max_speed.cast_unsigned());
        h.write_u32(w.attraction.cast_unsigned());
        h.write_u64(self.checkpoint_every);
        // The workload scene's hash predates scenes: it stays as it was.
        if self.scene == Scene::Physics {
            h.write_bytes(b"physics");
        }
        h.finish()
    }
}

/// What the replay playback found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// Not recorded (`verify_replay: false`).
    Skipped,
    /// Every recorded hash reproduced; the count of checkpoints.
    Verified(u64),
    /// The playback diverged.
    Diverged(Divergence),
}

/// One scenario run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// The backend it ran on.
    pub backend: MathBackend,
    /// Ticks run.
    pub ticks: u64,
    /// Live entities at the end.
    pub entities: u32,
    /// Entities spawned / despawned by the script.
    pub spawned: u64,
    /// Entities despawned by the script.
    pub despawned: u64,
    /// `(completed ticks, state hash)` at 0, every `checkpoint_every` ticks
    /// and at the end.
    pub checkpoints: Vec<(u64, u64)>,
    /// The replay playback's verdict.
    pub replay: ReplayOutcome,
    /// FNV-1a 64 of the recorded replay's bytes: the replay format is
    /// little-endian on every platform, so equal runs on any two targets
    /// (of either byte order) have equal recordings.
    pub recording: u64,
    /// The recorded replay's bytes (empty when `verify_replay` is off):
    /// what `--write-replay` writes for another target to play.
    pub recorded: Vec<u8>,
    /// FNV-1a 64 of every checkpoint's encoded snapshot bytes, in order:
    /// the snapshot format is little-endian with fixed widths, so equal
    /// runs on any two targets have equal snapshot bytes.
    pub snapshots: u64,
}

impl RunResult {
    /// The final state hash.
    #[must_use]
    pub fn final_hash(&self) -> u64 {
        self.checkpoints.last().map_or(0, |c| c.1)
    }

    /// One hash over every checkpoint (FNV-1a 64 of the `(tick, hash)`
    /// pairs): equal digests, equal checkpoint sequences.
    #[must_use]
    pub fn digest(&self) -> u64 {
        let mut h = StateHasher::default();
        for (t, v) in &self.checkpoints {
            h.write_u64(*t);
            h.write_u64(*v);
        }
        h.finish()
    }
}

/// Runs the scenario on `backend`.
///
/// # Errors
/// An invalid config; a failing system or replay error (none expected).
pub fn run(backend: MathBackend, config: &ScenarioConfig) -> Result<RunResult> {
    config.validate()?;
    backend.run(RunScenario(config))
}

/// The scenario as a [`BackendVisitor`]: laige-core's one dispatch from the
/// runtime backend to the scalar type picks `S`; the hashed components add
/// the `StateHash` bound.
struct RunScenario<'a>(&'a ScenarioConfig);

impl<S: SimScalar + StateHash> BackendVisitor<S> for RunScenario<'_> {
    type Output = Result<RunResult>;

    fn visit(self) -> Result<RunResult> {
        run_typed::<S>(self.0)
    }
}

#[derive(Default)]
pub(crate) struct Churn {
    spawned: u64,
    despawned: u64,
}

pub(crate) fn set_up<S: SimScalar + StateHash>(config: &ScenarioConfig) -> Result<World> {
    let mut world = World::default();
    match config.scene {
        Scene::Workload => workload::install::<S>(&mut world, &config.workload)?,
        Scene::Physics => physics_scene::install::<S>(&mut world)?,
    }
    Ok(world)
}

fn run_typed<S: SimScalar + StateHash>(config: &ScenarioConfig) -> Result<RunResult> {
    let mut world = set_up::<S>(config)?;
    let mut schedule = world.schedule_systems();
    let interval = u32::try_from(config.checkpoint_every).unwrap_or(u32::MAX);
    let mut header = ReplayHeader::new(S::BACKEND, config.workload.seed, config.config_hash());
    header.hash_interval = interval;
    let mut rec = ReplayRecorder::new(Vec::new(), header)?;
    let mut script = Script::new(
        config.workload.seed,
        config.workload.half_extent,
        config.workload.max_speed,
    );
    let mut churn = Churn::default();
    let mut checkpoints = Vec::new();
    let mut bytes = Vec::new();
    let mut snapshot = Vec::new();
    let mut snapshots = StateHasher::default();
    let h0 = world.state_hash();
    rec.record_hash(0, h0)?;
    checkpoints.push((0, h0));
    for tick in 0..config.ticks {
        let input = script.next(tick);
        rec.record_input(tick, &input)?;
        bytes.clear();
        input.encode(&mut bytes);
        apply::<S>(&mut world, config, &bytes, &mut churn)?;
        if config.perturb_at == Some(tick) {
            match config.scene {
                Scene::Workload => nudge::<S>(&mut world),
                Scene::Physics => physics_scene::nudge::<S>(&mut world),
            }
        }
        world.run_systems(&schedule)?;
        let done = world.tick();
        if rec.wants_hash(done) || done == config.ticks {
            let h = world.state_hash();
            rec.record_hash(done, h)?;
            checkpoints.push((done, h));
            world = round_trip::<S>(config, &world, h, &mut snapshot)?;
            snapshots.write_bytes(&snapshot);
            schedule = world.schedule_systems();
        }
    }
    let recording = rec.finish()?;
    let mut bytes_hash = StateHasher::default();
    bytes_hash.write_bytes(&recording);
    let replay = if config.verify_replay {
        play_back::<S>(config, &recording)?
    } else {
        ReplayOutcome::Skipped
    };
    Ok(RunResult {
        backend: S::BACKEND,
        ticks: world.tick(),
        entities: world.len(),
        spawned: churn.spawned,
        despawned: churn.despawned,
        checkpoints,
        replay,
        recording: bytes_hash.finish(),
        recorded: if config.verify_replay {
            recording
        } else {
            Vec::new()
        },
        snapshots: snapshots.finish(),
    })
}

/// Encodes `world` into `bytes`, decodes them into a fresh world set up
/// as the scenario's, and returns it when it hashes as `world` (`hash`).
fn round_trip<S: SimScalar + StateHash>(
    config: &ScenarioConfig,
    world: &World,
    hash: u64,
    bytes: &mut Vec<u8>,
) -> Result<World> {
    bytes.clear();
    world.encode_snapshot(bytes)?;
    let mut decoded = set_up::<S>(config)?;
    decoded.decode_snapshot(bytes)?;
    let back = decoded.state_hash();
    if back != hash {
        return Err(Error::new(ErrorCode::Failed, crate::events::SNAPSHOT_ROUND_TRIP)
            .with_field("tick")
            .with_value(world.tick())
            .with_detail(format!(
                "the world hashed {hash:#018x}; decoded from its {}-byte snapshot it hashed {back:#018x}",
                bytes.len()
            )));
    }
    Ok(decoded)
}

pub(crate) fn play_back<S: SimScalar + StateHash>(
    config: &ScenarioConfig,
    recording: &[u8],
) -> Result<ReplayOutcome> {
    let replay = Replay::parse(recording)?;
    let h = replay.header();
    h.check_compatible(S::BACKEND, config.config_hash(), ENGINE_VERSION)?;
    let mut world = set_up::<S>(config)?;
    let schedule = world.schedule_systems();
    let mut churn = Churn::default();
    let mut target = WorldTarget::new(&mut world, &schedule, |w: &mut World, _t, input: &[u8]| {
        apply::<S>(w, config, input, &mut churn)
    });
    let report = replay::verify(&replay, &mut target)?;
    Ok(match report.divergence {
        Some(d) => ReplayOutcome::Diverged(d),
        None => ReplayOutcome::Verified(report.checkpoints),
    })
}

/// Applies one tick's encoded input (the live run and the playback share
/// this path): the impulse, then the spawns (while under 2n entities),
/// then the despawns (while over n/2).
pub(crate) fn apply<S: SimScalar + StateHash>(
    world: &mut World,
    config: &ScenarioConfig,
    bytes: &[u8],
    churn: &mut Churn,
) -> Result<()> {
    let input = TickInput::decode(bytes)?;
    if config.scene == Scene::Physics {
        churn.spawned += physics_scene::apply::<S>(world, &input)?;
        return Ok(());
    }
    if input.impulse != [0, 0] {
        let push = Vec2::new(
            S::from_ratio(i32::from(input.impulse[0]), 16),
            S::from_ratio(i32::from(input.impulse[1]), 16),
        );
        for (pos, vel) in world
            .ecs_mut()
            .query_mut::<(&Position<S>, &mut Velocity<S>)>()
        {
            if pos.0.x > S::ZERO {
                vel.0 += push;
            }
        }
    }
    let n = config.workload.entities;
    for s in input.spawns.iter().take(usize::from(input.n_spawn)) {
        if world.len() < n.saturating_mul(2) {
            let p = Vec2::new(S::from_ratio(s.pos[0], 256), S::from_ratio(s.pos[1], 256));
            let v = Vec2::new(S::from_ratio(s.vel[0], 256), S::from_ratio(s.vel[1], 256));
            world.spawn((Position(p), PrevPosition(p), Velocity(v)));
            churn.spawned += 1;
        }
    }
    for k in 0..input.n_despawn {
        if world.len() > n / 2
            && let Some(e) = select::<S>(world, input.despawn_key.wrapping_add(u64::from(k)))
        {
            world.despawn(e)?;
            churn.despawned += 1;
        }
    }
    Ok(())
}

/// The entity whose state hash XOR `key` is smallest — a choice that
/// depends only on hashed state (not on entity ids or storage order); a
/// tie means identical components, so either choice leaves the same state.
fn select<S: SimScalar + StateHash>(world: &World, key: u64) -> Option<Entity> {
    let mut query = world
        .ecs()
        .query::<(Entity, &Position<S>, &PrevPosition<S>, &Velocity<S>)>();
    query
        .iter()
        .map(|(e, p, q, v)| (hash_of(&(*p, *q, *v)) ^ key, e))
        .min_by_key(|&(h, _)| h)
        .map(|(_, e)| e)
}

/// The negative control's nudge: one entity's velocity x by 2^-16 units/s
/// (one Q16.16 step; exact in binary32 at the workload's magnitudes).
fn nudge<S: SimScalar + StateHash>(world: &mut World) {
    if let Some(e) = select::<S>(world, 0)
        && let Ok(mut v) = world.ecs_mut().get::<&mut Velocity<S>>(e)
    {
        v.0.x += S::from_ratio(1, 65_536);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> ScenarioConfig {
        ScenarioConfig {
            ticks: 600,
            checkpoint_every: 100,
            ..ScenarioConfig::full()
        }
    }

    #[test]
    fn a_run_verifies_by_replay_and_churns() {
        for backend in MathBackend::ALL {
            let r = run(backend, &small()).unwrap();
            assert_eq!(r.ticks, 600);
            assert_eq!(r.replay, ReplayOutcome::Verified(7), "{backend}");
            assert_eq!(
                r.checkpoints.iter().map(|c| c.0).collect::<Vec<_>>(),
                vec![0, 100, 200, 300, 400, 500, 600]
            );
            assert!(r.spawned > 50 && r.despawned > 50, "{r:?}");
            assert_eq!(
                u64::from(r.entities),
                u64::from(ENTITIES) + r.spawned - r.despawned
            );
        }
    }

    #[test]
    fn runs_are_repeatable_and_backends_differ() {
        let a = run(MathBackend::FixedPoint16_16, &small()).unwrap();
        let b = run(MathBackend::FixedPoint16_16, &small()).unwrap();
        assert_eq!(a, b);
        let f = run(MathBackend::FloatPinned32, &small()).unwrap();
        assert_ne!(a.final_hash(), f.final_hash());
    }

    #[test]
    fn the_negative_control_diverges_at_the_first_affected_checkpoint() {
        let config = small();
        let clean = run(MathBackend::FixedPoint16_16, &config).unwrap();
        for at in [0, 99, 100, 300, 599] {
            let perturbed = ScenarioConfig {
                perturb_at: Some(at),
                ..config
            };
            let expect = config.first_affected_checkpoint(at);
            for backend in MathBackend::ALL {
                let base = if backend == MathBackend::FixedPoint16_16 {
                    clean.clone()
                } else {
                    run(backend, &config).unwrap()
                };
                let p = run(backend, &perturbed).unwrap();
                let first = base
                    .checkpoints
                    .iter()
                    .zip(&p.checkpoints)
                    .find(|(a, b)| a != b)
                    .map(|(a, _)| a.0);
                assert_eq!(first, Some(expect), "{backend} perturbed at {at}");
                let ReplayOutcome::Diverged(d) = p.replay else {
                    panic!("{backend}: the playback must diverge: {:?}", p.replay);
                };
                assert_eq!(d.tick, expect);
            }
        }
    }

    /// The physics scene: its replay verifies, its balls drop, its
    /// backends differ, and a 2^-16 nudge shows at the next checkpoint (and
    /// in the playback).
    #[test]
    fn the_physics_scene_verifies_and_detects_its_control() {
        let config = ScenarioConfig {
            ticks: 300,
            checkpoint_every: 100,
            ..ScenarioConfig::physics()
        };
        let mut finals = Vec::new();
        for backend in MathBackend::ALL {
            let r = run(backend, &config).unwrap();
            assert_eq!(r.replay, ReplayOutcome::Verified(4), "{backend}");
            assert!(r.spawned > 10 && r.despawned == 0, "{r:?}");
            assert_eq!(u64::from(r.entities), 1 + 36 + 30 + 25 + r.spawned);
            let p = run(
                backend,
                &ScenarioConfig {
                    perturb_at: Some(150),
                    ..config
                },
            )
            .unwrap();
            let first = r
                .checkpoints
                .iter()
                .zip(&p.checkpoints)
                .find(|(a, b)| a != b)
                .map(|(a, _)| a.0);
            assert_eq!(first, Some(200), "{backend}");
            assert!(matches!(p.replay, ReplayOutcome::Diverged(d) if d.tick == 200));
            finals.push(r.final_hash());
        }
        assert_ne!(finals[0], finals[1]);
        assert_ne!(config.config_hash(), ScenarioConfig::full().config_hash());
    }

    #[test]
    fn first_affected_checkpoint_rounds_up_and_clamps() {
        let c = small();
        assert_eq!(c.first_affected_checkpoint(0), 100);
        assert_eq!(c.first_affected_checkpoint(99), 100);
        assert_eq!(c.first_affected_checkpoint(100), 200);
        assert_eq!(c.first_affected_checkpoint(599), 600);
        let odd = ScenarioConfig { ticks: 550, ..c };
        assert_eq!(odd.first_affected_checkpoint(520), 550);
    }

    #[test]
    fn bad_configs_name_the_field() {
        let e = ScenarioConfig {
            ticks: 0,
            ..small()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field(), Some("ticks"));
        let e = ScenarioConfig {
            checkpoint_every: 0,
            ..small()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field(), Some("checkpoint_every"));
    }
}
