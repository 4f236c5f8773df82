//! # laige-core
//!
//! The foundation every other laige crate stands on, in order of importance:
//!
//! 1. **Deterministic math** ([`math`]): the Q16.16 fixed-point backend
//!    [`Fpx16_16`] (bit-exact everywhere) and the pinned IEEE binary32
//!    backend [`Fp32Pinned`], behind one op surface ([`SimScalar`],
//!    [`Vec2`], [`Vec3`]) with static dispatch.
//! 2. **Errors** ([`Error`], [`ErrorCode`]): one error type that names the
//!    field, the value and what is accepted.
//! 3. **Diagnostics** ([`diag`]): structured, rate-limited events on
//!    `tracing`, and the allocation watch ([`alloc_watch`]) that proves the
//!    hot paths allocate nothing.
//! 4. **Time** ([`clock`], [`RateGrid`]): the monotonic clock trait, the
//!    steady clock, the synthetic clock tests and replays use, and the one
//!    exact integer time grid that ticks, input stamps and frame deadlines
//!    sit on.
//! 5. **Vector units** ([`VectorUnit`]): a hot loop built for the widest
//!    vector unit of the CPU it runs on, picked at run time, with the same
//!    result bits.
//!
//! **Architecture invariant:** laige-core depends on no other laige crate,
//! spawns no thread and does no I/O beyond what a binary asks of it (the
//! subscriber setup writes to stderr).

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod alloc_watch;
pub mod clock;
pub mod diag;
mod error;
mod event_id;
pub mod events;
pub mod math;
mod panic;
mod rate_grid;
pub mod vector_unit;

pub use error::{Error, ErrorCode, Result};
pub use event_id::EventId;
pub use math::{BinaryAngle, Fp32Pinned, Fpx16_16, MathBackend, SimScalar, Vec2, Vec3};
pub use panic::panic_message;
pub use rate_grid::{Alpha, NANOS_PER_SEC, RateGrid};
pub use vector_unit::VectorUnit;

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
