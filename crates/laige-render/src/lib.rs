//! # laige-render
//!
//! The render side of laige, in order of importance:
//!
//! 1. **The frame handoff** ([`handoff`]): a [`FrameDescriptor`] and its
//!    payload buffer move from the main/sim thread to the render thread
//!    through a single slot of atomic words — publish is wait-free and
//!    allocation-free, a frame still pending is dropped in place and counted,
//!    and `submitted = rendered + dropped + outstanding` holds at every
//!    instant (verified with loom and a 10-million-frame stress test).
//! 2. **The render thread** ([`RenderThread`]): spawned by its constructor,
//!    runs the [`RenderStages`] (batch, then submit) once per rendered frame,
//!    survives a panicking stage, and shuts down in order.
//! 3. **The frame clock** ([`FrameClock`]): the exact deadline grid
//!    `reference + n × period` and a pacer that lands on it within
//!    microseconds without burning a core.
//!
//! **Architecture invariant:** laige-render depends on laige-core only and
//! never names a simulation type; it sees frames (descriptors and per-frame
//! payloads), never the world.
//!
//! ```
//! use laige_render::{FrameDescriptor, RenderStages, RenderThread, RenderThreadConfig};
//!
//! struct Count(u64);
//! impl RenderStages<u32> for Count {
//!     fn batch(&mut self, _: &FrameDescriptor, payload: &[u32]) -> laige_core::Result<()> {
//!         self.0 += payload.len() as u64;
//!         Ok(())
//!     }
//!     fn submit(&mut self, _: &FrameDescriptor, _: &[u32]) -> laige_core::Result<()> {
//!         Ok(())
//!     }
//! }
//!
//! let mut rt = RenderThread::new(RenderThreadConfig::default(), Count(0))?;
//! rt.writer().extend([1, 2, 3]);
//! rt.submit_frame(FrameDescriptor { frame_index: 1, ..Default::default() })?;
//! rt.wait_idle()?;
//! assert_eq!(rt.stats().rendered, 1);
//! rt.shutdown()?;
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
#![doc = include_str!("frame_pipeline.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod events;
mod frame;
pub mod frame_clock;
pub mod gl;
pub mod handoff;
pub mod payload;
pub mod render_thread;
mod sync;

pub use events::{
    FRAME_DROPPED, FRAME_RATE_INVALID, NOT_RUNNING, SPAWN_FAILED, STAGE_FAILED, STAGE_PANICKED,
    STAGE_STUCK, THREAD_STARTED, THREAD_STOPPED,
};
pub use frame::{FrameDescriptor, FrameStats};
pub use frame_clock::{FrameClock, FrameClockConfig};
pub use payload::PayloadWriter;
pub use render_thread::{RenderStages, RenderThread, RenderThreadConfig};

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
