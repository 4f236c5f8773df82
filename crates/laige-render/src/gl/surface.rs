//! [`SurfaceSize`]: a window's new size and scale factor, from the thread
//! that sees the window's events to the render thread that owns the GL
//! surface, in one atomic word.
//!
//! The window's event loop (the main thread) stores; the render thread
//! loads once per frame and resizes the surface when the word changed.
//! Only the latest size matters (a drag sends many), so one word that is
//! overwritten is the whole protocol: no queue, no lock, no allocation.
//!
//! Word layout: bits 0..16 width, 16..32 height (each ≤ 16384), 32..64 the
//! scale factor's `f32` bits. Zero means "nothing requested yet".

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Shared by the window's event handler and the render stages; cheap to
/// clone (all clones are one word).
///
/// ```
/// use laige_render::gl::SurfaceSize;
/// let size = SurfaceSize::default();
/// assert_eq!(size.latest(), None);
/// size.request(1280, 720, 1.5);
/// assert_eq!(size.latest(), Some((1280, 720, 1.5)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SurfaceSize {
    word: Arc<AtomicU64>,
}

impl PartialEq for SurfaceSize {
    /// Two handles are equal when they share one word.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.word, &other.word)
    }
}

impl SurfaceSize {
    /// Records the window's new inner size in physical pixels and its
    /// scale factor. Sides are clamped to `1..=65535` (the surface's own
    /// validation refuses more than its limit, 16384, when applied).
    pub fn request(&self, width: u32, height: u32, scale_factor: f32) {
        let w = u64::from(width.clamp(1, 0xFFFF));
        let h = u64::from(height.clamp(1, 0xFFFF));
        let word = w | h << 16 | u64::from(scale_factor.to_bits()) << 32;
        // Relaxed: the word is self-contained (no other memory is published
        // with it) and only the latest value matters.
        self.word.store(word, Ordering::Relaxed);
    }

    /// The latest request, `(width, height, scale_factor)`, or `None`.
    #[must_use]
    pub fn latest(&self) -> Option<(u32, u32, f32)> {
        // Relaxed: see `request`.
        let word = self.word.load(Ordering::Relaxed);
        (word != 0).then(|| {
            (
                (word & 0xFFFF) as u32,
                (word >> 16 & 0xFFFF) as u32,
                f32::from_bits((word >> 32) as u32),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_request_wins_and_clones_share_it() {
        let a = SurfaceSize::default();
        let b = a.clone();
        assert_eq!(a, b);
        a.request(640, 360, 1.0);
        a.request(800, 600, 2.0);
        assert_eq!(b.latest(), Some((800, 600, 2.0)));
        a.request(0, 100_000, 1.0);
        assert_eq!(b.latest(), Some((1, 0xFFFF, 1.0)));
        assert_ne!(a, SurfaceSize::default());
    }
}
