//! The resources the engine puts into every run's world before the game's
//! setup: the simulation's random generator, seeded from the config.
//!
//! ```
//! use laige_engine::{Engine, EngineOptions, Pacing, RunLimit, SimRng};
//!
//! let report = Engine::builder()
//!     .system("roll", 0, |ctx| {
//!         let _die = ctx.resource_mut::<SimRng>()?.range_i32(1, 7);
//!         Ok(())
//!     })
//!     .options(EngineOptions { pacing: Pacing::Unpaced, handle_ctrl_c: false, ..Default::default() })
//!     .build()?
//!     .run_headless(RunLimit::Ticks(10))?;
//! assert_eq!(report.ticks, 10);
//! # Ok::<(), laige_core::Error>(())
//! ```

use laige_core::Result;
use laige_sim::{SimRng, World};

use crate::EngineConfig;

/// The hashed-resource name of the engine's [`SimRng`]: part of every run's
/// state hash, so a replay that draws differently is caught at the first
/// differing tick.
pub const RNG_RESOURCE: &str = "engine.rng";

/// Inserts the engine's resources: `SimRng::new([determinism] seed)`,
/// hashed as [`RNG_RESOURCE`]. Derive per-purpose streams from it with
/// [`SimRng::stream`] in setup.
pub(crate) fn insert_engine_resources(world: &mut World, config: &EngineConfig) -> Result<()> {
    world
        .insert_hashed_resource(RNG_RESOURCE, SimRng::new(config.determinism.seed))
        .map(|_| ())
}
