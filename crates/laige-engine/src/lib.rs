//! # laige-engine
//!
//! Where laige's parts meet, and what a game crate depends on. In order of
//! importance:
//!
//! 1. **The runs**: [`Engine::run_headless`] (frames paced on the frame
//!    clock, or unpaced on virtual time — both on the same exact frame
//!    grid; optionally through the whole GL pipeline on a headless context,
//!    feature `gl`) and `Engine::run_windowed` (feature `window`: a winit
//!    0.30 event loop and the simulation on the main thread, rendering on
//!    the render thread through the lock-free handoff, presentation
//!    interpolated with the loop's alpha) and `Engine::run_web` (feature
//!    `web`, `wasm32-unknown-unknown`: winit's web event loop driving the
//!    frame step from `requestAnimationFrame`, drawing on a canvas's
//!    WebGL2 on the page's thread; `page::run` is a game's whole browser
//!    `main` around it). All are thin drivers of one frame step
//!    (the session's): callbacks, ticks, publish.
//! 2. **The lifecycle** Init → Running ⇄ Paused → Shutdown, driven by the
//!    game ([`Control`]) and by window events (close, focus), and **one
//!    ordered shutdown** for every way a run ends — the limit, the game's
//!    exit, the window closing, a stop signal, a failing system — with an exit
//!    code that says which ([`ExitReason`], [`RunReport`]).
//! 3. **The configuration** ([`EngineConfig`], TOML) and the **builder**
//!    ([`EngineBuilder`]): a [`Game`] registers its components and systems
//!    generic over the scalar; the configured math backend picks the one
//!    instantiation ([`MathBackend::run`], the one `match`) and the report
//!    names it.
//! 4. **Input**: platform events and scripted input are stamped on the
//!    loop's clock, assigned to the tick they fall in and delivered at its
//!    start (`laige_sim::input`, re-exported here as [`input`]).
//!
//! ```
//! use laige_engine::{Engine, EngineOptions, Pacing, RunLimit, StateHash};
//!
//! #[derive(Clone, Copy, StateHash)]
//! struct Ticks(u64);
//!
//! let report = Engine::builder()
//!     .component::<Ticks>("example.ticks")
//!     .setup(|world| {
//!         world.spawn((Ticks(0),));
//!         Ok(())
//!     })
//!     .system("count", 0, |ctx| {
//!         for t in ctx.query_mut::<&mut Ticks>() {
//!             t.0 += 1;
//!         }
//!         Ok(())
//!     })
//!     .options(EngineOptions { pacing: Pacing::Unpaced, handle_ctrl_c: false, ..Default::default() })
//!     .build()?
//!     .run_headless(RunLimit::Frames(120))?;
//! assert_eq!((report.ticks, report.exit_code()), (120, 0));
//! println!("{report}");
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! The contract (config keys, lifecycle, shutdown order, exit codes,
//! events) is the laige-engine crate docs; input is the `laige_sim::input` docs.
//!
//! **Architecture invariant:** this is the only crate that depends on both
//! laige-sim and laige-render; a game needs no other laige dependency (the
//! parts are re-exported: [`core`], [`sim`], [`render`]).
//!
//!
#![doc = include_str!("engine.md")]
#![doc = include_str!("presentation.md")]
#![doc = include_str!("trace.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The module graph runs one way (each module uses only those above it):
// events, interrupt, config → options, report, resources → frame → game → presenter →
// session → gl_present → builder → headless → record → winit_input → windowed, web.

// The derive names `::laige_engine::sim` for a crate that depends on
// laige-engine alone; this makes that path resolve inside this crate too.
extern crate self as laige_engine;

pub mod config;
mod config_toml;

pub mod events;
pub mod interrupt;
mod options;
mod report;
mod resources;

mod frame;
mod game;
mod presenter;
mod session;

#[cfg(feature = "gl")]
mod gl_present;
#[cfg(feature = "gl")]
mod render_pass;

mod builder;
mod headless;
#[cfg(all(feature = "web", target_arch = "wasm32"))]
pub mod page;
pub mod prelude;
pub mod record;
mod replay_player;
#[cfg(feature = "gl")]
mod replay_viewer;
#[cfg(all(feature = "web", target_arch = "wasm32"))]
mod web;
// A page has no window of its own: in a browser the `web` run draws on a
// canvas, and `window` compiles nothing more there.
#[cfg(all(feature = "window", not(target_arch = "wasm32")))]
mod windowed;
#[cfg(any(feature = "window", all(feature = "web", target_arch = "wasm32")))]
mod winit_input;
#[cfg(all(feature = "window", unix))]
mod x11_loss;

pub use builder::{Engine, EngineBuilder};
pub use config::{
    DEFAULT_KEYFRAME_INTERVAL, DeterminismConfig, EngineConfig, LogConfig, RenderConfig,
    ReplayConfig,
};
pub use frame::{FPS_WINDOW, Frame, RunStats};
pub use game::{Control, EngineScalar, Game, GameWrapper, MAX_ACTIONS_PER_CALLBACK, NoGame, Setup};
pub use options::{
    DEFAULT_RENDER_STOP_TIMEOUT, EngineOptions, FrameCapture, HeadlessRender,
    MAX_RENDER_STOP_TIMEOUT, Pacing, ResizeRequest, RunLimit,
};
pub use record::{Recorded, ReplayOutcome, ReplayReport};
#[cfg(feature = "gl")]
pub use render_pass::{RenderPass, RenderPassFactory};
pub use replay_player::{EngineTarget, ReplayPlayback};
#[cfg(feature = "gl")]
pub use replay_viewer::{ReplayViewer, ViewerStatus};
pub use report::{
    EXIT_INTERRUPTED, EXIT_OK, EXIT_RENDER_FAILED, EXIT_REPLAY_DIVERGED, EXIT_REPLAY_TORN,
    EXIT_SETUP_FAILED, EXIT_SYSTEM_FAILED, EXIT_USAGE, ExitReason, RunReport,
};
pub use resources::RNG_RESOURCE;

// The parts, for game crates that depend on laige-engine alone.
pub use arrayvec::ArrayString;
pub use hecs;
/// An entity handle (hecs's): what `spawn` returns and queries can yield.
pub use hecs::Entity;
pub use laige_core as core;
#[cfg(feature = "net")]
pub use laige_net as net;
#[cfg(feature = "physics")]
pub use laige_physics as physics;
pub use laige_render as render;
pub use laige_sim as sim;

pub use laige_core::{
    Error, ErrorCode, Fp32Pinned, Fpx16_16, MathBackend, Result, SimScalar, Vec2,
};
pub use laige_sim::{Alpha, LoopState, SimRng, StateHash, SystemContext, World};
pub use laige_sim::{effects, input};

/// The README's guide, compiled and run as a doctest (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
