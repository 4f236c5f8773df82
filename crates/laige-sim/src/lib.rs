//! # laige-sim
//!
//! The deterministic simulation core, in order of importance:
//!
//! 1. **[`GameLoop`]**: integer ticks at a fixed, validated rate (20–120 Hz,
//!    default 60), the exact integer due computation, bounded and counted
//!    catch-up, the lifecycle Init → Running ⇄ Paused → Shutdown.
//! 2. **[`World`]**: hecs entities and components, named systems with a
//!    declared order and a [`SystemSchedule`], churn guardrails, and the
//!    deterministic [`state hash`](World::state_hash) over components that
//!    implement [`StateHash`] (derive it; raw floats do not implement it).
//! 3. **[`Profiler`]**: fixed-size rings of tick, frame and per-system
//!    durations.
//!
//! 4. **[`presentation`]**: the integer-derived [`Alpha`] and the
//!    [`PresentationSnapshot`] a renderer interpolates from.
//! 5. **[`workload`]**: the reference workload every budget is measured on.
//! 6. **[`replay`]**: record a run's identity and per-tick input, play it
//!    back headless and name the first tick whose state hash differs.
//! 7. **[`input`]**: timestamped input events, assigned to the tick they
//!    fall in and delivered at its start in a deterministic order.
//!
//! ```
//! use laige_core::{Fpx16_16, clock::SyntheticClock};
//! use laige_sim::workload::{self, Position, WorkloadConfig};
//! use laige_sim::{GameLoop, GameLoopOptions, PresentationSnapshot, World};
//!
//! let mut world = World::default();
//! workload::install::<Fpx16_16>(&mut world, &WorkloadConfig { entities: 256, ..Default::default() })?;
//! let schedule = world.schedule_systems();
//! let clock = SyntheticClock::new(0);
//! let mut game = GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())?;
//! let mut snapshot = PresentationSnapshot::<Position<Fpx16_16>>::with_capacity(256);
//! game.frame_with(&mut snapshot)?;
//! for _ in 0..60 {
//!     clock.advance_ns(16_666_667); // one 60 Hz period per frame
//!     let frame = game.frame_with(&mut snapshot)?;
//!     assert!(frame.alpha.as_f32() < 1.0);
//! }
//! assert_eq!(game.current_tick(), 60);
//! assert_eq!(game.elapsed_sim_ns(), 1_000_000_000);
//! let hash = game.world().state_hash(); // what a replay compares
//! # let _ = hash;
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! Each module's contract (ranges, events, failure behaviour, threading,
//! determinism scope) is in `docs/api/` (`game_loop.md`, `world.md`,
//! `profiler.md`, `presentation.md`).
//!
//! **Architecture invariant:** nothing in this crate reads wall-clock time
//! into simulation state: the only time input is the loop's
//! `MonotonicClock`, and the tick sequence is a pure function of its
//! readings; the steady clock is read only for profiler samples.

// The derive macro names `::laige_sim`; this makes that path resolve
// inside this crate too.
extern crate self as laige_sim;

mod emit;
pub mod events;
pub mod game_loop;
pub mod guardrails;
pub mod input;
pub mod presentation;
pub mod profiler;
pub mod replay;
mod rng;
pub mod state_hash;
pub mod system;
pub mod workload;
pub mod world;

pub use game_loop::{
    Alpha, FrameInfo, GameLoop, GameLoopOptions, GameLoopStats, LoopHooks, LoopState,
};
pub use guardrails::{ChurnBudget, ChurnStats};
pub use input::{InputEvent, InputKind, InputQueue, InputStamp, ScriptAt, ScriptedInput};
pub use laige_macros::StateHash;
pub use presentation::{Interpolate, PresentationSnapshot};
pub use profiler::{Profiler, ProfilerConfig, SampleSummary};
pub use replay::{Replay, ReplayHeader, ReplayInput, ReplayRecorder};
pub use rng::SimRng;
pub use state_hash::{StateHash, StateHasher};
pub use system::{SystemContext, SystemSchedule};
pub use world::{World, WorldConfig};
