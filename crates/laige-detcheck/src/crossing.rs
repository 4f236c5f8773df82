//! Replays that cross machines: a run's recording written on one target
//! (`--write-replay FILE`) and played on another (`--verify-replay FILE`):
//! the scenario's world set up here, the recorded input applied tick by
//! tick, every recorded hash compared. Where the two targets part, the
//! state at the first differing checkpoint is dumped field by field
//! (`--dump-at TICK`), on both, so that `cargo xtask detcheck` names the
//! entity, the component and the field that differ.
//!
//! ```
//! use laige_core::MathBackend;
//! use laige_detcheck::crossing;
//! use laige_detcheck::scenario::{self, ReplayOutcome, ScenarioConfig};
//!
//! let config = ScenarioConfig { ticks: 120, checkpoint_every: 40, ..ScenarioConfig::quick() };
//! let run = scenario::run(MathBackend::FixedPoint16_16, &config)?;
//! let played = crossing::verify(&run.recorded, &config, Some(40))?;
//! assert_eq!(played.outcome, ReplayOutcome::Verified(4));
//! let (tick, dump) = played.dump.expect("asked for");
//! assert_eq!(tick, 40);
//! assert!(dump.lines().any(|l| l.starts_with("field ")));
//! # Ok::<(), laige_core::Error>(())
//! ```

use laige_core::math::BackendVisitor;
use laige_core::{Error, ErrorCode, MathBackend, Result, SimScalar};
use laige_sim::StateHash;
use laige_sim::events::TICK_OUT_OF_RANGE;
use laige_sim::replay::Replay;
use laige_sim::snapshot::SnapshotRing;

use crate::scenario::{self, Churn, ReplayOutcome, ScenarioConfig};

/// What playing a recording made elsewhere found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crossing {
    /// The recording's backend (its header's).
    pub backend: MathBackend,
    /// Verified (the checkpoints reproduced) or the first divergence.
    pub outcome: ReplayOutcome,
    /// The state after `(tick, …)` as `WorldSnapshot::dump_fields` of every
    /// value (the format `cargo xtask desync-diff` compares), if asked.
    pub dump: Option<(u64, String)>,
}

/// Plays the recording `bytes` on this target with the scenario `config`
/// (the recording's own: its config hash must match) on the backend its
/// header names, and with `dump_at`, dumps the state after that tick.
///
/// # Errors
/// A recording that does not parse or was made with another scenario
/// config (`replay/…`); `dump_at` past the recording
/// (`replay/tick_out_of_range`); a failing system.
pub fn verify(bytes: &[u8], config: &ScenarioConfig, dump_at: Option<u64>) -> Result<Crossing> {
    config.validate()?;
    let replay = Replay::parse(bytes)?;
    let backend = replay.header().backend;
    backend.run(Play {
        bytes,
        replay: &replay,
        config,
        dump_at,
    })
}

struct Play<'a> {
    bytes: &'a [u8],
    replay: &'a Replay,
    config: &'a ScenarioConfig,
    dump_at: Option<u64>,
}

impl<S: SimScalar + StateHash> BackendVisitor<S> for Play<'_> {
    type Output = Result<Crossing>;

    fn visit(self) -> Result<Crossing> {
        let outcome = scenario::play_back::<S>(self.config, self.bytes)?;
        let dump = match self.dump_at {
            None => None,
            Some(tick) => Some((tick, dump_after::<S>(self.replay, self.config, tick)?)),
        };
        Ok(Crossing {
            backend: S::BACKEND,
            outcome,
            dump,
        })
    }
}

/// The state after `ticks` ticks of the recorded input, dumped.
fn dump_after<S: SimScalar + StateHash>(
    replay: &Replay,
    config: &ScenarioConfig,
    ticks: u64,
) -> Result<String> {
    if ticks > replay.ticks() {
        return Err(Error::invalid_argument(
            TICK_OUT_OF_RANGE,
            "dump_at",
            ticks,
            format!("0..={} (the recorded ticks)", replay.ticks()),
        ));
    }
    let mut world = scenario::set_up::<S>(config)?;
    let schedule = world.schedule_systems();
    let mut churn = Churn::default();
    for tick in 0..ticks {
        let input = replay.input(tick).ok_or_else(|| {
            Error::new(ErrorCode::InvalidArgument, TICK_OUT_OF_RANGE)
                .with_field("tick")
                .with_value(tick)
                .with_detail("the recording has no input for this tick")
        })?;
        scenario::apply::<S>(&mut world, config, input, &mut churn)?;
        world.run_systems(&schedule)?;
    }
    let mut ring = SnapshotRing::new(&world, 1)?;
    ring.save_hashed(0, &world)?;
    Ok(ring.get(0)?.dump_fields(|_, _| true))
}
