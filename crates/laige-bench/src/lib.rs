//! laige's benchmark areas and harness (the binary `laige-bench` runs them;
//! `cargo xtask bench` builds and runs the binary in release).
//!
//! An area is a module with `pub fn run(b: &mut Bench)`, registered in
//! [`AREAS`] with one line; nothing else names the areas (the runner's
//! progress lines, the report and its pictures read what they recorded).

#![allow(clippy::print_stderr, reason = "progress lines go to stderr")]

pub mod diag;
pub mod engine;
pub mod harness;
pub mod math;
mod math_workload;
pub mod net;
pub mod net_integrity;
pub mod net_join;
#[cfg(feature = "webrtc")]
pub mod net_webrtc;
pub mod physics;
pub mod render_pipeline;
pub mod replay;
pub mod report;
pub mod sim;
pub mod sprites;
pub mod web;

use harness::Bench;

/// An area's entry point.
pub type AreaFn = fn(&mut Bench);

/// The bench areas, one line each: `(name, entry point)`.
pub const AREAS: &[(&str, AreaFn)] = &[
    ("diag", diag::run),
    ("engine", engine::run),
    ("math", math::run),
    ("net", net::run),
    ("physics", physics::run),
    ("sim", sim::run),
    ("sprites", sprites::run),
    ("render_pipeline", render_pipeline::run),
    ("replay", replay::run),
    ("web", web::run),
];
