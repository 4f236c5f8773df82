//! [`Presenter`]: the render side as a run's frame step sees it — the GL
//! pipeline on the render thread (`gl_present::Renderer`, feature `gl`),
//! or nothing.

use laige_core::Result;
use laige_render::gl::Sprite;
use laige_render::{FrameDescriptor, FrameStats};

use crate::frame::Assets;

/// Where a run's frames go.
pub(crate) trait Presenter {
    /// Frames the render side finished (0 when nothing renders).
    fn presented(&self) -> u64;

    /// Blocks until every frame handed over so far is finished (the
    /// unpaced run's back-pressure: no frame is dropped).
    ///
    /// # Errors
    /// The render thread failed.
    fn wait_idle(&mut self) -> Result<()>;

    /// Publishes one frame: `fill` appends its sprites to the (empty)
    /// payload buffer, with the presenter's [`Assets`] (the default font,
    /// the texture queue, the target's size), then `frame` is handed over
    /// with them. A presenter that renders nothing does not call `fill`.
    ///
    /// # Errors
    /// The render thread failed.
    fn publish<F: FnOnce(&mut Vec<Sprite>, &Assets)>(
        &mut self,
        frame: FrameDescriptor,
        fill: F,
    ) -> Result<()>;

    /// The last frame rendered (`wait_idle`), then the render thread
    /// stopped (its `on_stop` releases the GL context on it).
    ///
    /// # Errors
    /// The render thread failed, now or earlier.
    fn finish(&mut self) -> Result<()>;

    /// The handoff's frame accounting.
    fn frame_stats(&self) -> FrameStats;
}

/// No rendering: every frame is simulated, none is drawn (the headless
/// presenter of a build without the GL pipeline).
#[cfg(any(test, not(feature = "gl"), target_arch = "wasm32"))]
pub(crate) struct NoPresenter;

#[cfg(any(test, not(feature = "gl"), target_arch = "wasm32"))]
impl Presenter for NoPresenter {
    fn presented(&self) -> u64 {
        0
    }
    fn wait_idle(&mut self) -> Result<()> {
        Ok(())
    }
    fn publish<F: FnOnce(&mut Vec<Sprite>, &Assets)>(
        &mut self,
        _: FrameDescriptor,
        _: F,
    ) -> Result<()> {
        Ok(())
    }
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
    fn frame_stats(&self) -> FrameStats {
        FrameStats::default()
    }
}

/// A presenter that may be absent (a headless run renders only when asked
/// to): `None` renders nothing.
impl<P: Presenter> Presenter for Option<P> {
    fn presented(&self) -> u64 {
        self.as_ref().map_or(0, P::presented)
    }
    fn wait_idle(&mut self) -> Result<()> {
        self.as_mut().map_or(Ok(()), P::wait_idle)
    }
    fn publish<F: FnOnce(&mut Vec<Sprite>, &Assets)>(
        &mut self,
        frame: FrameDescriptor,
        fill: F,
    ) -> Result<()> {
        self.as_mut().map_or(Ok(()), |p| p.publish(frame, fill))
    }
    fn finish(&mut self) -> Result<()> {
        self.as_mut().map_or(Ok(()), P::finish)
    }
    fn frame_stats(&self) -> FrameStats {
        self.as_ref()
            .map_or_else(FrameStats::default, P::frame_stats)
    }
}
