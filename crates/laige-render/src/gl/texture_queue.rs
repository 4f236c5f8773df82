//! [`TextureQueue`]: textures handed to the render thread without waiting
//! for it.
//!
//! ```text
//!  game / sim thread                       render thread
//!  ─────────────────                       ─────────────
//!  queue.load_png("hero.png", ..)?
//!    decode + premultiply (here: a bad
//!    file is this call's error)
//!    id = next id (at once) ──► pending ──► draw: pending > 0 → take the
//!  sprites use `id` in the next frame       list, glTexImage2D each, then draw
//! ```
//!
//! The game gets its [`TextureId`] at once; the upload happens on the
//! render thread at the start of the next draw, before any frame that
//! could name the id (the game can only name an id after `add` returned,
//! and the frame that names it is published after that, so the handoff's
//! publish/claim ordering puts the upload first).
//!
//! The render thread's check is one atomic load while nothing is pending:
//! no lock, no allocation in steady state. The lock is taken only when a
//! texture waits, i.e. at load time.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::events::TEXTURE_QUEUE_FULL;
use laige_core::{Error, ErrorCode, Result, diag};

use super::batcher::TextureId;
use super::image::Image;
use super::sprite_renderer::TextureOptions;

/// One texture waiting for the render thread.
#[derive(Debug)]
pub(super) struct PendingTexture {
    pub(super) id: TextureId,
    pub(super) image: Image,
    pub(super) options: TextureOptions,
}

#[derive(Debug)]
struct Inner {
    /// The next id to hand out (1 first: 0 is the built-in white).
    next: AtomicU32,
    /// How many textures wait in `list`: the render thread's lock-free
    /// "anything to do?" test.
    pending: AtomicUsize,
    list: Mutex<Vec<PendingTexture>>,
}

/// Hands textures to a [`SpriteRenderer`](super::SpriteRenderer) on the
/// render thread; cheap to clone (all clones are one queue).
///
/// A renderer takes its textures either from one queue
/// ([`SpriteRenderer::attach_texture_queue`](super::SpriteRenderer::attach_texture_queue))
/// or from direct [`upload_texture`](super::SpriteRenderer::upload_texture)
/// calls on its own thread — both number textures from 1, so they do not
/// mix on one renderer.
///
/// ```
/// use laige_render::gl::{Image, TextureId, TextureOptions, TextureQueue};
/// let queue = TextureQueue::default();
/// let img = Image::from_straight_rgba(1, 1, vec![255, 0, 0, 255])?;
/// assert_eq!(queue.add(img.clone(), TextureOptions::default())?, TextureId::from_index(1));
/// assert_eq!(queue.add(img, TextureOptions::default())?, TextureId::from_index(2));
/// assert_eq!(queue.pending(), 2);
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TextureQueue {
    inner: Arc<Inner>,
}

impl PartialEq for TextureQueue {
    /// Two handles are equal when they are clones of one queue.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Default for TextureQueue {
    fn default() -> Self {
        Self {
            inner: Arc::new(Inner {
                next: AtomicU32::new(1),
                pending: AtomicUsize::new(0),
                list: Mutex::new(Vec::new()),
            }),
        }
    }
}

impl TextureQueue {
    /// Queues `image` for upload and returns its id at once.
    ///
    /// # Errors
    ///
    /// `texture/queue_full` (`OutOfRange`) after `u32::MAX - 1` textures.
    pub fn add(&self, image: Image, options: TextureOptions) -> Result<TextureId> {
        // Relaxed: the counter only has to hand out distinct values; the
        // texture itself is published by the lock and `pending` below.
        let index = self
            .inner
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
            .map_err(|_| {
                diag::reported(
                    Error::new(ErrorCode::OutOfRange, TEXTURE_QUEUE_FULL)
                        .with_detail("a texture queue hands out at most u32::MAX - 1 ids"),
                )
            })?;
        let id = TextureId::from_index(index);
        let mut list = self
            .inner
            .list
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        list.push(PendingTexture { id, image, options });
        // Release (and under the lock): a render thread that sees the count
        // also sees the pushed entry once it takes the lock.
        self.inner.pending.fetch_add(1, Ordering::Release);
        Ok(id)
    }

    /// Reads and decodes a PNG file now ([`Image::from_png_file`]) and
    /// queues it.
    ///
    /// # Errors
    ///
    /// `texture/load_failed` naming the path (missing, unreadable or
    /// damaged file), `texture/image_invalid` (too large), or
    /// `texture/queue_full`.
    pub fn load_png(
        &self,
        path: impl AsRef<std::path::Path>,
        options: TextureOptions,
    ) -> Result<TextureId> {
        self.add(Image::from_png_file(path)?, options)
    }

    /// Textures queued and not yet taken by the render thread.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.inner.pending.load(Ordering::Acquire)
    }

    /// Moves the waiting textures into `out` (the render thread's side).
    /// One atomic load and nothing else while none waits.
    pub(super) fn take_into(&self, out: &mut Vec<PendingTexture>) {
        // Acquire pairs with `add`'s Release: entries counted are pushed.
        if self.inner.pending.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut list = self
            .inner
            .list
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.inner.pending.fetch_sub(list.len(), Ordering::Relaxed);
        out.append(&mut list);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_handed_out_in_order_and_taken_once() {
        let q = TextureQueue::default();
        let img = Image::from_straight_rgba(1, 1, vec![1, 2, 3, 255]).unwrap();
        let a = q.add(img.clone(), TextureOptions::default()).unwrap();
        let b = q.clone().add(img, TextureOptions::default()).unwrap();
        assert_eq!((a.index(), b.index()), (1, 2));
        let mut out = Vec::new();
        q.take_into(&mut out);
        assert_eq!(out.iter().map(|p| p.id.index()).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(q.pending(), 0);
        q.take_into(&mut out);
        assert_eq!(out.len(), 2, "nothing taken twice");
    }

    #[test]
    fn a_missing_png_is_an_error_at_load_time() {
        let q = TextureQueue::default();
        let e = q
            .load_png("/nonexistent/hero.png", TextureOptions::default())
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        assert!(e.to_string().contains("/nonexistent/hero.png"), "{e}");
        assert_eq!(q.pending(), 0);
    }
}
