//! # laige-detcheck
//!
//! The scenario `cargo xtask detcheck` builds under a matrix of compiler
//! configurations and runs on both math backends: the reference workload
//! ([`laige_sim::workload`]) plus scripted input — velocity impulses,
//! spawns and despawns ([`input`]) — for 100 000 ticks, hashed every 5 000
//! ticks, recorded as a replay and verified by playing it back
//! ([`scenario`]). Every build must print the same hashes, equal to the
//! known answers committed in `known_answers.toml`. A second scene,
//! `--scene physics` ([`physics_scene`]), drives a laige-physics world
//! with the same script, checkpoints, snapshot round trips and replay.
//!
//! ```
//! use laige_core::MathBackend;
//! use laige_detcheck::scenario::{self, ReplayOutcome, ScenarioConfig};
//!
//! let config = ScenarioConfig { ticks: 200, checkpoint_every: 50, ..ScenarioConfig::quick() };
//! let run = scenario::run(MathBackend::FixedPoint16_16, &config)?;
//! assert_eq!(run.checkpoints.len(), 5); // ticks 0, 50, 100, 150, 200
//! assert_eq!(run.replay, ReplayOutcome::Verified(5));
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! The binary's output format (parsed by `xtask/src/detcheck.rs`) is in
//! [`report`].

pub mod cli;
pub mod crossing;
pub mod events;
pub mod input;
pub mod physics_scene;
pub mod report;
pub mod scenario;
