//! # laige-engine
//!
//! Where laige's parts meet: the configuration ([`EngineConfig`], from
//! TOML), and (being built, issue 6) the headless and windowed run loops,
//! the lifecycle and the ordered shutdown.
//!
//! **Architecture invariant:** this is the only crate that depends on both
//! laige-sim and laige-render.

pub mod config;
mod config_toml;

pub use config::{DeterminismConfig, EngineConfig, LogConfig, RenderConfig};
pub use config_toml::CONFIG_PARSE_FAILED;
