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
//! Each module's contract (ranges, events, failure behaviour, threading,
//! determinism scope) is in `docs/api/` (`game_loop.md`, `world.md`,
//! `profiler.md`, `presentation.md`).

// The derive macro names `::laige_sim`; this makes that path resolve
// inside this crate too.
extern crate self as laige_sim;

mod emit;
pub mod events;
pub mod game_loop;
pub mod guardrails;
pub mod presentation;
pub mod profiler;
pub mod state_hash;
pub mod system;
pub mod workload;
pub mod world;

pub use game_loop::{
    Alpha, FrameInfo, GameLoop, GameLoopOptions, GameLoopStats, LoopHooks, LoopState,
};
pub use guardrails::{ChurnBudget, ChurnStats};
pub use laige_macros::StateHash;
pub use profiler::{Profiler, ProfilerConfig, SampleSummary};
pub use state_hash::{StateHash, StateHasher};
pub use system::{SystemContext, SystemSchedule};
pub use world::{World, WorldConfig};
