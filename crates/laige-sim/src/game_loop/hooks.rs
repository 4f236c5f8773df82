//! [`LoopHooks`]: the per-frame and per-tick callbacks, passed to
//! [`GameLoop::frame_with`](super::GameLoop::frame_with).
//!
//! Hooks are passed per call instead of stored in the loop, so they can
//! borrow caller state (a replay recorder, a counter) without
//! `'static` bounds or shared ownership, and they are statically dispatched.
//! Compose several with a tuple: `loop.frame_with(&mut (recorder,
//! counter))`.
//!
//! Contract (game_loop.md): hooks run on the loop's thread inside the
//! frame's budget — they must not block, and `on_tick` must not allocate
//! (it runs inside the tick's zero-allocation window). A panicking hook is caught
//! and turns the frame into a `loop/hook_panicked` error.

use laige_core::Result;

use super::FrameInfo;
use crate::World;
use crate::system::SystemSchedule;

/// What a hook that owns the ticks ([`LoopHooks::run_tick`]) did with one
/// due tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DueTick {
    /// The world advanced by one tick (`on_tick` fires).
    Ran,
    /// The due tick is used up without a tick: the tick's owner is not
    /// ready (a network session still synchronizing, waiting for a remote
    /// input, or slowing down for time sync). The loop's tick accounting
    /// moves on; `on_tick` does not fire.
    Skipped,
}

/// Callbacks around the loop's frames and ticks. Every method defaults to
/// doing nothing.
pub trait LoopHooks {
    /// At the start of every frame (Running or Paused), after
    /// `World::begin_frame` and before the frame's ticks. `frame.ticks_run`
    /// is 0 and `frame.alpha` is the previous frame's.
    fn on_begin_frame(&mut self, world: &World, frame: &FrameInfo) {
        let _ = (world, frame);
    }

    /// After every completed tick (the systems succeeded), with the new
    /// tick number (`world.tick()`, already incremented). A failed tick
    /// fires nothing.
    fn on_tick(&mut self, world: &World, tick: u64) {
        let _ = (world, tick);
    }

    /// At the end of every frame that did not fail, with the frame's ticks,
    /// drops and alpha.
    fn on_end_frame(&mut self, world: &World, frame: &FrameInfo) {
        let _ = (world, frame);
    }

    /// Runs one due tick instead of the loop, for a caller that owns the
    /// ticks (a network session saves, rolls back and re-simulates inside
    /// one due tick, or skips it). `None` (the default): the loop runs the
    /// schedule once itself. The tick runs inside the loop's
    /// zero-allocation window like the loop's own.
    ///
    /// # Errors
    /// An error fails the tick as a failing system does.
    fn run_tick(
        &mut self,
        world: &mut World,
        schedule: &SystemSchedule,
    ) -> Option<Result<DueTick>> {
        let _ = (world, schedule);
        None
    }
}

/// No hooks.
impl LoopHooks for () {}

impl<H: LoopHooks + ?Sized> LoopHooks for &mut H {
    fn on_begin_frame(&mut self, world: &World, frame: &FrameInfo) {
        (**self).on_begin_frame(world, frame);
    }
    fn on_tick(&mut self, world: &World, tick: u64) {
        (**self).on_tick(world, tick);
    }
    fn on_end_frame(&mut self, world: &World, frame: &FrameInfo) {
        (**self).on_end_frame(world, frame);
    }
    fn run_tick(
        &mut self,
        world: &mut World,
        schedule: &SystemSchedule,
    ) -> Option<Result<DueTick>> {
        (**self).run_tick(world, schedule)
    }
}

macro_rules! impl_tuple {
    ($($h:ident . $i:tt),+) => {
        /// Runs each element's hook in tuple order.
        impl<$($h: LoopHooks),+> LoopHooks for ($($h,)+) {
            fn on_begin_frame(&mut self, world: &World, frame: &FrameInfo) {
                $(self.$i.on_begin_frame(world, frame);)+
            }
            fn on_tick(&mut self, world: &World, tick: u64) {
                $(self.$i.on_tick(world, tick);)+
            }
            fn on_end_frame(&mut self, world: &World, frame: &FrameInfo) {
                $(self.$i.on_end_frame(world, frame);)+
            }
            /// The first element that owns the tick runs it.
            fn run_tick(
                &mut self,
                world: &mut World,
                schedule: &SystemSchedule,
            ) -> Option<Result<DueTick>> {
                $(if let Some(r) = self.$i.run_tick(world, schedule) {
                    return Some(r);
                })+
                None
            }
        }
    };
}

impl_tuple!(A.0);
impl_tuple!(A.0, B.1);
impl_tuple!(A.0, B.1, C.2);
impl_tuple!(A.0, B.1, C.2, D.3);

/// A closure as the `on_tick` hook: `FnMut(&World, u64)`.
#[derive(Clone, Copy, Debug)]
pub struct OnTick<F>(pub F);

impl<F: FnMut(&World, u64)> LoopHooks for OnTick<F> {
    fn on_tick(&mut self, world: &World, tick: u64) {
        (self.0)(world, tick);
    }
}

/// A closure as the `on_begin_frame` hook: `FnMut(&World, &FrameInfo)`.
#[derive(Clone, Copy, Debug)]
pub struct OnBeginFrame<F>(pub F);

impl<F: FnMut(&World, &FrameInfo)> LoopHooks for OnBeginFrame<F> {
    fn on_begin_frame(&mut self, world: &World, frame: &FrameInfo) {
        (self.0)(world, frame);
    }
}

/// A closure as the `on_end_frame` hook: `FnMut(&World, &FrameInfo)`.
#[derive(Clone, Copy, Debug)]
pub struct OnEndFrame<F>(pub F);

impl<F: FnMut(&World, &FrameInfo)> LoopHooks for OnEndFrame<F> {
    fn on_end_frame(&mut self, world: &World, frame: &FrameInfo) {
        (self.0)(world, frame);
    }
}
