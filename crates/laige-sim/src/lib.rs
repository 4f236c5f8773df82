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
//! 4. **[`Alpha`]**: each frame's presentation factor, the tick grid's
//!    fraction past the last consumed tick (the engine hands it to the
//!    renderer, which interpolates each sprite between its previous and
//!    current position).
//! 5. **[`replay`]**: record a run's identity and per-tick input, play it
//!    back headless and name the first tick whose state hash differs.
//! 6. **[`input`]**: timestamped input events, assigned to the tick they
//!    fall in and delivered at its start in a deterministic order.
//! 7. **[`snapshot`]**: whole-world snapshots in a reusable ring (every
//!    registered component, the entity allocator, the tick, registered
//!    parts) for rollback sessions, the report naming where two
//!    snapshots differ, and their byte format (versioned, checksummed,
//!    little-endian, optionally LZ4) for the wire and for disk.
//! 8. **[`effects`]**: presentation effects systems emit
//!    (`ctx.effect(value)`), handed to presentation once whatever a
//!    rollback re-simulates: predicted, cancelled or confirmed.
//! 9. **[`workload`]**: the reference workload every budget is measured on
//!    (a benchmark fixture, not part of a game's API).
//!
//! # Paths
//!
//! Every item has one path. What a game names often — the loop, the world,
//! systems, the profiler, the state hash, the frame's alpha — sits at
//! the crate root (`laige_sim::GameLoop`, `laige_sim::World`). Six groups
//! stay modules because their items are many, belong together and read
//! best with the module's name in front:
//!
//! * [`input`]: the key, button and point vocabulary (`input::KeyCode::A`),
//!   the event, its queue and the scripted source;
//! * [`replay`]: the file format, its records, the recorder and
//!   [`replay::verify`];
//! * [`events`]: every event id this crate raises (`events::TICK_DROPPED`);
//! * [`snapshot`]: the ring, its snapshots, parts, difference report and
//!   byte format;
//! * [`effects`]: the effect log's config, events, reader and counts;
//! * [`workload`]: the reference workload (components, systems, config):
//!   public because the bench, detcheck, the demo and the tests measure the
//!   same world, and a module so that it stays out of the root a game reads.
//!
//! What is promised bit for bit, per backend and per target, and how it is
//! checked: [`determinism`].
//!
//! ```
//! use laige_core::{Fpx16_16, clock::SyntheticClock};
//! use laige_sim::workload::{self, WorkloadConfig};
//! use laige_sim::{GameLoop, GameLoopOptions, World};
//!
//! let mut world = World::default();
//! workload::install::<Fpx16_16>(&mut world, &WorkloadConfig { entities: 256, ..Default::default() })?;
//! let schedule = world.schedule_systems();
//! let clock = SyntheticClock::new(0);
//! let mut game = GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())?;
//! game.frame()?;
//! for _ in 0..60 {
//!     clock.advance_ns(16_666_667); // one 60 Hz period per frame
//!     let frame = game.frame()?;
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
//! determinism scope) is in the docs of each item (`GameLoop`, `World`,
//! `profiler.md`; presentation is `presentation.md`).
//!
//! **Architecture invariant:** nothing in this crate reads wall-clock time
//! into simulation state: the only time input is the loop's
//! `MonotonicClock`, and the tick sequence is a pure function of its
//! readings; the steady clock is read only for profiler samples.

// The derive macro names `::laige_sim`; this makes that path resolve
// inside this crate too.
extern crate self as laige_sim;

pub mod effects;
mod emit;
mod entities;
pub mod events;
mod game_loop;
mod guardrails;
pub mod input;
mod profiler;
pub mod replay;
pub mod resources;
mod rng;
pub mod snapshot;
mod state_hash;
mod system;

/// The determinism promise per backend, build and target, with the
/// supported-pairs table generated from the detcheck matrix.
#[doc = include_str!("determinism.md")]
#[doc = include_str!("determinism_pairs.md")]
#[doc = include_str!("determinism_detcheck.md")]
pub mod determinism {}
pub mod workload;
mod world;

pub use entities::Entities;
pub use game_loop::{
    AllocCheck, Alpha, DEFAULT_MAX_CATCH_UP_TICKS, DEFAULT_TICK_RATE_HZ, DueTick, FrameInfo,
    GameLoop, GameLoopOptions, GameLoopStats, LoopHooks, LoopState, MAX_CATCH_UP_TICKS,
    MAX_TICK_RATE_HZ, MIN_TICK_RATE_HZ, OnBeginFrame, OnEndFrame, OnTick,
};
pub use guardrails::{ChurnBudget, ChurnStats, DEFAULT_CHURN_BUDGET};
pub use laige_macros::StateHash;
pub use profiler::{
    DEFAULT_MAX_SYSTEMS, DEFAULT_RING_CAPACITY, MAX_RING_CAPACITY, MAX_SYSTEM_SLOTS, Profiler,
    ProfilerConfig, SampleSummary,
};
pub use rng::SimRng;
pub use state_hash::{
    DecodeError, DecodeErrorKind, FNV1A64_OFFSET, FNV1A64_PRIME, FieldHashes, StateHash,
    StateHasher, StateReader, StateWriter, WordHasher, decode_exact, fixed_size_of, hash_of,
    layout_hash,
};
pub use system::{SystemContext, SystemSchedule};
pub use world::{World, WorldConfig};

// The root joins the two layers: the loop is what a script feeds, and the
// script (below the loop) names it only through this trait.
impl<C: laige_core::clock::MonotonicClock> input::ScriptTarget for GameLoop<C> {
    fn reach_tick(&self) -> u64 {
        self.current_tick()
            .saturating_add(u64::from(self.max_catch_up_ticks()))
    }

    fn input_queue_mut(&mut self) -> &mut input::InputQueue {
        self.world_mut().input_mut()
    }
}

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
