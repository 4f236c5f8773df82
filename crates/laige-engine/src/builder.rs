//! [`EngineBuilder`] → [`Engine`]: configuration, registrations, options;
//! then one run (`run_headless` / `run_windowed`).

use std::path::{Path, PathBuf};

use hecs::Component;
use laige_core::Result;
use laige_sim::input::{InputKind, ScriptAt};
use laige_sim::{StateHash, SystemContext, World};

use crate::EngineConfig;
use crate::game::{Game, NoGame, Registration};
use crate::options::EngineOptions;

/// Builds an [`Engine`]: the config (defaults, a TOML file or a value),
/// the game, builder-level components and systems, scripted input and the
/// run options.
///
/// ```
/// use laige_engine::{Engine, RunLimit, Pacing, EngineOptions, StateHash};
///
/// #[derive(Clone, Copy, StateHash)]
/// struct Counter(u32);
///
/// let report = Engine::builder()
///     .component::<Counter>("guide.counter")
///     .system("count", 0, |ctx| {
///         for c in ctx.query_mut::<&mut Counter>() {
///             c.0 += 1;
///         }
///         Ok(())
///     })
///     .setup(|world| {
///         world.spawn((Counter(0),));
///         Ok(())
///     })
///     .options(EngineOptions { pacing: Pacing::Unpaced, handle_ctrl_c: false, ..Default::default() })
///     .build()?
///     .run_headless(RunLimit::Frames(60))?;
/// assert_eq!(report.ticks, 60); // 60 frames of 1/60 s at 60 Hz
/// assert_eq!(report.exit_code(), 0);
/// # Ok::<(), laige_core::Error>(())
/// ```
pub struct EngineBuilder<G = NoGame> {
    pub(crate) game: G,
    pub(crate) config: EngineConfig,
    pub(crate) registrations: Vec<Registration>,
    pub(crate) script: Vec<(ScriptAt, InputKind)>,
    pub(crate) options: EngineOptions,
    /// Where the run is recorded ([`record`](EngineBuilder::record)).
    pub(crate) record: Option<crate::record::RecordTarget>,
    /// The game's part of the replay identity.
    pub(crate) replay_identity: u64,
    /// The network session that owns the ticks ([`net`](EngineBuilder::net)).
    pub(crate) net: crate::session::NetStart,
}

impl Default for EngineBuilder<NoGame> {
    fn default() -> Self {
        Self {
            game: NoGame,
            config: EngineConfig::default(),
            registrations: Vec::new(),
            script: Vec::new(),
            options: EngineOptions::default(),
            record: None,
            replay_identity: 0,
            net: Default::default(),
        }
    }
}

impl<G: Game> EngineBuilder<G> {
    /// Uses `game` (its `setup` runs first, then the builder's own
    /// registrations, in the order they were added).
    pub fn game<G2: Game>(self, game: G2) -> EngineBuilder<G2> {
        EngineBuilder {
            game,
            config: self.config,
            registrations: self.registrations,
            script: self.script,
            options: self.options,
            record: self.record,
            replay_identity: self.replay_identity,
            net: self.net,
        }
    }

    /// Plays the run as one peer of a network session (feature `net`):
    /// `start` receives the world after the game's setup and the builder's
    /// registrations and returns the session that drives it
    /// (`laige_net::NetDriver::p2p`, `spectator` or `sync_test`, boxed).
    /// From then on the session owns the ticks: each due tick of the
    /// frame step is one `advance` (a save, rollbacks and re-simulated
    /// ticks, or a skipped tick while it synchronizes, waits for a remote
    /// input or slows down for time sync); the rest of the frame step
    /// (callbacks, input, presentation, shutdown) is unchanged. A session
    /// that ends (a disconnect, a desync, a sync timeout) ends the run
    /// through the ordered shutdown with its exit code
    /// ([`ExitReason::SessionEnded`](crate::ExitReason)); the report
    /// carries the session's counters (`RunReport::net`).
    #[cfg(feature = "net")]
    #[must_use]
    pub fn net(
        mut self,
        start: impl FnOnce(&mut World) -> Result<Box<dyn laige_net::TickDriver>> + 'static,
    ) -> Self {
        self.net = Some(Box::new(start));
        self
    }

    /// Uses `config` (validated by [`build`](Self::build)).
    #[must_use]
    pub fn config(mut self, config: EngineConfig) -> Self {
        self.config = config;
        self
    }

    /// Loads the config from a TOML file (see [`EngineConfig`]).
    ///
    /// # Errors
    /// Whatever [`EngineConfig::from_toml_file`] returns.
    pub fn config_file(mut self, path: impl AsRef<Path>) -> Result<Self> {
        self.config = EngineConfig::from_toml_file(path)?;
        Ok(self)
    }

    /// The configuration so far.
    #[must_use]
    pub fn current_config(&self) -> &EngineConfig {
        &self.config
    }

    /// Sets the run options.
    #[must_use]
    pub fn options(mut self, options: EngineOptions) -> Self {
        self.options = options;
        self
    }

    /// Declares `T` part of the hashed simulation state under the stable
    /// `name` (`World::register_hashed_as`).
    #[must_use]
    pub fn component<T: Component + StateHash + Clone>(mut self, name: &'static str) -> Self {
        self.registrations
            .push(Box::new(move |w| w.register_hashed_as::<T>(name)));
        self
    }

    /// Registers a system (`World::register_system`: a name, an order key
    /// — ascending, ties in registration order — and the function).
    #[must_use]
    pub fn system<F>(mut self, name: &'static str, order: i32, system: F) -> Self
    where
        F: FnMut(&mut SystemContext<'_>) -> Result<()> + Send + 'static,
    {
        self.registrations
            .push(Box::new(move |w| w.register_system(name, order, system)));
        self
    }

    /// Runs `f` on the world during setup (spawn the initial entities).
    #[must_use]
    pub fn setup(mut self, f: impl FnOnce(&mut World) -> Result<()> + 'static) -> Self {
        self.registrations.push(Box::new(f));
        self
    }

    /// Scripted input for headless and windowed runs: `(when, event)`
    /// entries fed to the input queue ahead of their ticks (see
    /// `laige_sim::input::ScriptedInput`); a window's own events join them
    /// in the same queue.
    #[must_use]
    pub fn scripted_input(
        mut self,
        entries: impl IntoIterator<Item = (ScriptAt, InputKind)>,
    ) -> Self {
        self.script.extend(entries);
        self
    }

    /// Records the run to a replay file at `path` (created, or truncated,
    /// when the run starts; see [`record`](crate::record)): the header,
    /// every tick's input with its sub-tick times, and the state hash after
    /// every tick. [`RunReport::recording`](crate::RunReport::recording)
    /// says what was written; [`Engine::replay`] plays it back.
    #[must_use]
    pub fn record(mut self, path: impl Into<PathBuf>) -> Self {
        self.record = Some(crate::record::RecordTarget::File(path.into()));
        self
    }

    /// Records the run as [`record`](Self::record) does, into memory
    /// instead of a file: the finished recording's bytes are
    /// [`Recorded::bytes`](crate::Recorded::bytes) of the report. How a
    /// page records (it has no files; it offers the bytes as a download).
    /// The buffer grows with the recording (by doubling: an allocation now
    /// and then, unlike a file's recording, whose buffer is reused).
    #[must_use]
    pub fn record_in_memory(mut self) -> Self {
        self.record = Some(crate::record::RecordTarget::Memory);
        self
    }

    /// The game's part of the replay identity: a value that changes when
    /// something outside the config shapes the simulation (an entity count
    /// from the command line, a level). A replay recorded with another
    /// identity is refused (`replay/identity_mismatch`, field
    /// `config_hash`). Default 0.
    #[must_use]
    pub fn replay_identity(mut self, identity: u64) -> Self {
        self.replay_identity = identity;
        self
    }

    /// Validates the config and the options.
    ///
    /// # Errors
    /// The first invalid config field or option.
    pub fn build(self) -> Result<Engine<G>> {
        self.config.validate()?;
        self.options.validate()?;
        Ok(Engine { parts: self })
    }
}

/// A configured engine, ready for one run.
pub struct Engine<G = NoGame> {
    pub(crate) parts: EngineBuilder<G>,
}

impl Engine<NoGame> {
    /// A builder with the default config, no game and default options.
    #[must_use]
    pub fn builder() -> EngineBuilder<NoGame> {
        EngineBuilder::default()
    }
}

impl<G: Game> Engine<G> {
    /// Installs the `[log]` subscriber when the options ask for it (see
    /// [`EngineOptions::install_log_subscriber`]); one already installed
    /// stays.
    pub(crate) fn install_log_subscriber(&self) -> Result<()> {
        if self.parts.options.install_log_subscriber {
            laige_core::diag::init_subscriber(&self.parts.config.log.subscriber_config())?;
        }
        Ok(())
    }

    /// The validated configuration.
    #[must_use]
    pub fn config(&self) -> &EngineConfig {
        &self.parts.config
    }

    /// The run options.
    #[must_use]
    pub fn options(&self) -> &EngineOptions {
        &self.parts.options
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> &G {
        &self.parts.game
    }

    /// The game, exclusively.
    pub fn game_mut(&mut self) -> &mut G {
        &mut self.parts.game
    }
}

impl<G> std::fmt::Debug for Engine<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.parts.config)
            .field("options", &self.parts.options)
            .field("registrations", &self.parts.registrations.len())
            .field("script", &self.parts.script.len())
            .field("record", &self.parts.record)
            .finish_non_exhaustive()
    }
}

impl<G> std::fmt::Debug for EngineBuilder<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("config", &self.config)
            .field("options", &self.options)
            .field("registrations", &self.registrations.len())
            .field("script", &self.script.len())
            .field("record", &self.record)
            .finish_non_exhaustive()
    }
}
