//! [`ReplayPlayback`]: a recorded run that can jump to any of its ticks
//! (`Engine::replay_player`): the game's world, built by its own setup on
//! the recorded backend and seed, played by laige-sim's
//! [`ReplayPlayer`] from the nearest keyframe at or before a tick, every
//! recorded state hash checked on the way.
//!
//! A tick is played as the engine's frame step plays it: the recorded
//! events of the tick are queued at their recorded tick and time (as
//! `ScriptAt::Exact` does in `Engine::replay`) and the world runs its
//! schedule once, delivering them at the tick's start. Nothing else of a
//! frame changes the world (the game's callbacks read it), so the state
//! hashes are the recorded run's.

use std::path::Path;

use laige_core::math::BackendVisitor;
use laige_core::{Error, MathBackend, Result};
use laige_sim::replay::{
    ENGINE_VERSION, Replay, ReplayPlayer, ReplayTarget, SeekReport, SeekTarget,
};
use laige_sim::{GameLoop, SystemSchedule, World};

use crate::game::{EngineScalar, Game, Registration};
use crate::record::{config_hash, decode_tick_input};
use crate::session::build_world;
use crate::{EngineConfig, EngineOptions};

/// The world of a replay and its schedule: what a [`ReplayPlayer`] plays
/// the engine's recorded tick input on.
#[derive(Debug)]
pub struct EngineTarget {
    world: World,
    schedule: SystemSchedule,
}

impl EngineTarget {
    /// The world played on.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }
}

impl ReplayTarget for EngineTarget {
    fn run_tick(&mut self, tick: u64, input: &[u8]) -> Result<()> {
        for (time_ns, kind) in decode_tick_input(input)? {
            self.world.input_mut().push_at(tick, time_ns, kind)?;
        }
        self.world.run_systems(&self.schedule)
    }

    fn state_hash(&mut self) -> u64 {
        self.world.state_hash()
    }
}

impl SeekTarget for EngineTarget {
    fn tick(&self) -> u64 {
        self.world.tick()
    }

    fn save_state(&mut self, out: &mut Vec<u8>) -> Result<()> {
        self.world.encode_snapshot(out)
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        // Events queued for ticks the state is not at would be delivered
        // to the wrong tick: a seek starts with an empty queue.
        self.world.decode_snapshot(bytes)?;
        self.world.input_mut().clear_pending();
        Ok(())
    }
}

/// A recorded run ready to seek ([`Engine::replay_player`](crate::Engine::replay_player)).
#[derive(Debug)]
pub struct ReplayPlayback {
    player: ReplayPlayer<EngineTarget>,
    /// The damage that tore the file (a torn file only): its valid prefix
    /// is what plays.
    pub damage: Option<Error>,
}

impl ReplayPlayback {
    /// Goes to `tick` (`0..=ticks()`): from the nearest usable keyframe at
    /// or before it (or from the current tick when nearer), re-simulating
    /// the rest and checking every recorded hash ([`SeekReport`]: where it
    /// started, what it checked, the first divergence, the keyframes it
    /// skipped as damaged). Back-stepping is `seek(tick() - 1)`.
    ///
    /// # Errors
    /// `replay/tick_out_of_range` past the recorded ticks; a system's
    /// error in a re-simulated tick.
    pub fn seek(&mut self, tick: u64) -> Result<SeekReport> {
        self.player.seek(tick)
    }

    /// The tick the world is at.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.player.tick()
    }

    /// The recorded ticks.
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.player.replay().ticks()
    }

    /// The world at [`tick`](Self::tick).
    #[must_use]
    pub fn world(&self) -> &World {
        self.player.target().world()
    }

    /// The world's state hash.
    pub fn state_hash(&mut self) -> u64 {
        self.player.state_hash()
    }

    /// The replay.
    #[must_use]
    pub fn replay(&self) -> &Replay {
        self.player.replay()
    }
}

struct BuildWorld<'a, G> {
    game: &'a mut G,
    config: &'a EngineConfig,
    registrations: Vec<Registration>,
    options: &'a EngineOptions,
}

impl<G: Game, S: EngineScalar> BackendVisitor<S> for BuildWorld<'_, G> {
    type Output = Result<World>;

    fn visit(self) -> Result<World> {
        build_world::<G, S>(self.game, self.config, self.registrations, self.options)
    }
}

impl<G: Game> crate::Engine<G> {
    /// Opens the replay at `path` for seeking: the game's world is built by
    /// its setup on the recorded backend and seed (the rest of the
    /// configuration is this engine's, as [`replay`](Self::replay)), at
    /// tick 0. A torn file plays its valid prefix
    /// ([`ReplayPlayback::damage`]).
    ///
    /// # Errors
    /// `replay/io_failed`, `replay/corrupt` (damage inside the file),
    /// `replay/identity_mismatch`, the game's setup.
    pub fn replay_player(self, path: impl AsRef<Path>) -> Result<ReplayPlayback> {
        self.install_log_subscriber()?;
        let mut parts = self.parts;
        open(&mut parts, path.as_ref())
    }
}

/// Opens the replay at `path` for `parts`' game: its world built by the
/// game's setup and the builder's registrations (taken) on the recorded
/// backend and seed, which `parts`' config then holds.
pub(crate) fn open<G: Game>(
    parts: &mut crate::EngineBuilder<G>,
    path: &Path,
) -> Result<ReplayPlayback> {
    let (replay, damage) = Replay::read_prefix(path)?.into_playable()?;
    let backend: MathBackend = replay.header().backend;
    parts.config.determinism.math = backend;
    parts.config.determinism.seed = replay.header().seed;
    replay.header().check_compatible(
        backend,
        config_hash(&parts.config, parts.replay_identity),
        ENGINE_VERSION,
    )?;
    let world = backend.run(BuildWorld {
        game: &mut parts.game,
        config: &parts.config,
        registrations: std::mem::take(&mut parts.registrations),
        options: &parts.options,
    })?;
    let schedule = world.schedule_systems();
    // The loop sets the world's tick grid (what `time_ns` of a tick
    // is) from the tick rate; its parts are the world and schedule a
    // run would tick.
    let (world, schedule) = GameLoop::new(world, schedule, parts.config.game_loop)?.into_parts();
    let player = ReplayPlayer::new(replay, EngineTarget { world, schedule })?;
    Ok(ReplayPlayback { player, damage })
}
