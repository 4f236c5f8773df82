//! # laige-render
//!
//! The render side of laige (being built; see issue 5).
//!
//! **Architecture invariant:** laige-render depends on laige-core only and
//! never names a simulation type; it sees frames (descriptors and per-frame
//! payloads), never the world.

#[cfg(feature = "gl")]
pub mod gl;
