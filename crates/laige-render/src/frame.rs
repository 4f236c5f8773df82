//! [`FrameDescriptor`]: the 32 bytes that describe one frame to the render
//! thread, and [`FrameStats`]: how the pipeline counts frames.

use laige_core::Alpha;

/// One frame as the producer (the main/sim thread) hands it to the render
/// thread: 32 bytes, `Copy`, four 8-byte words on the handoff.
///
/// The handoff moves the descriptor as four independent atomic words
/// ([`to_words`](Self::to_words)) and proves, with a sequence re-check,
/// that all four come from the same publication (see [`crate::handoff`]).
/// None of the fields is validated by the handoff: they are the producer's
/// facts, passed through unchanged. Bulk per-frame data (the sprites)
/// travels beside the descriptor in the payload pool ([`crate::payload`]);
/// the descriptor says how to present it.
///
/// ```
/// use laige_core::Alpha;
/// use laige_render::FrameDescriptor;
///
/// let d = FrameDescriptor {
///     frame_index: 1,
///     sim_tick: 3,
///     render_time_ns: 16_666_667,
///     alpha: Alpha::from_ppb(250_000_000),
///     interpolate: true,
/// };
/// assert_eq!(FrameDescriptor::from_words(d.to_words()), d);
/// assert_eq!(std::mem::size_of::<FrameDescriptor>(), 32);
/// assert_eq!(d.blend_factor(), 0.25);
/// let current = FrameDescriptor { interpolate: false, ..d };
/// assert_eq!(current.blend_factor(), 1.0); // draw the last tick as is
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct FrameDescriptor {
    /// The producer's 1-based frame counter (the `n` of
    /// [`FrameClock::wait_frame`](crate::FrameClock::wait_frame)).
    pub frame_index: u64,
    /// The last completed simulation tick when the frame was published.
    pub sim_tick: u64,
    /// The frame's presentation time in nanoseconds on the engine's
    /// monotonic time base (the value `FrameClock::wait_frame` returned).
    /// A wall-clock fact: never part of replay state or the state hash.
    pub render_time_ns: i64,
    /// How far the presentation instant lies past `sim_tick`, as a
    /// fraction of a tick: the loop's alpha at `render_time_ns`.
    pub alpha: Alpha,
    /// Whether the renderer blends each item's previous state into its
    /// current one with [`alpha`](Self::alpha); `false` draws the current
    /// state (the last completed tick) as is.
    pub interpolate: bool,
}

// The descriptor is exactly four words: the handoff stores it as four
// `AtomicU64`s, and it must fit the 32 bytes of one cache-line half.
const _: () = assert!(std::mem::size_of::<FrameDescriptor>() == 32);
const _: () = assert!(std::mem::align_of::<FrameDescriptor>() == 8);

/// The fourth word's layout: alpha in ppb in the low 32 bits (`< 10⁹ <
/// 2³²`), the interpolate flag in bit 32.
const INTERPOLATE_BIT: u64 = 1 << 32;
const ALPHA_MASK: u64 = 0xFFFF_FFFF;

impl FrameDescriptor {
    /// The descriptor as the four words the handoff stores, in field
    /// order; the fourth packs `alpha` (low 32 bits) and `interpolate`
    /// (bit 32).
    #[must_use]
    pub const fn to_words(&self) -> [u64; 4] {
        let presentation =
            self.alpha.ppb() as u64 | if self.interpolate { INTERPOLATE_BIT } else { 0 };
        [
            self.frame_index,
            self.sim_tick,
            // Bit-for-bit reinterpretation: the word round-trips exactly.
            self.render_time_ns.cast_unsigned(),
            presentation,
        ]
    }

    /// Rebuilds a descriptor from [`FrameDescriptor::to_words`]'s words
    /// (exact for them; any other fourth word decodes to a clamped alpha).
    #[must_use]
    pub const fn from_words(words: [u64; 4]) -> Self {
        Self {
            frame_index: words[0],
            sim_tick: words[1],
            render_time_ns: words[2].cast_signed(),
            alpha: Alpha::from_ppb(words[3] & ALPHA_MASK),
            interpolate: words[3] & INTERPOLATE_BIT != 0,
        }
    }

    /// The render-space factor to blend previous → current state with:
    /// the alpha as `f32` in `[0, 1)` when interpolating, `1.0` (exactly
    /// the current state) when not.
    #[must_use]
    pub fn blend_factor(&self) -> f32 {
        if self.interpolate {
            self.alpha.as_f32()
        } else {
            1.0
        }
    }
}

/// A consistent snapshot of the handoff's accounting.
///
/// Invariant, exact in every snapshot:
/// `submitted == rendered + dropped + outstanding` with
/// `outstanding == pending as u64 + in_flight as u64 <= 2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FrameStats {
    /// Frames published (every successful `publish` / `submit_frame`).
    pub submitted: u64,
    /// Frames whose stages completed (the consumer finished them).
    pub rendered: u64,
    /// Frames replaced while pending, before the consumer ever saw them.
    pub dropped: u64,
    /// `pending + in_flight` (0..=2).
    pub outstanding: u64,
    /// A frame waits in the slot.
    pub pending: bool,
    /// The consumer holds a claimed frame whose stages have not finished.
    pub in_flight: bool,
}

impl FrameStats {
    /// True when the accounting invariant holds (it always does for a
    /// snapshot this module returns; tests assert it).
    #[must_use]
    pub fn is_consistent(&self) -> bool {
        self.outstanding == u64::from(self.pending) + u64::from(self.in_flight)
            && self.outstanding <= 2
            && self
                .rendered
                .checked_add(self.dropped)
                .and_then(|s| s.checked_add(self.outstanding))
                == Some(self.submitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_including_negative_times() {
        let d = FrameDescriptor {
            frame_index: u64::MAX,
            sim_tick: 7,
            render_time_ns: -5,
            alpha: Alpha::MAX,
            interpolate: true,
        };
        let w = d.to_words();
        assert_eq!(w[2], (-5i64).cast_unsigned());
        assert_eq!(w[3], 999_999_999 | INTERPOLATE_BIT);
        assert_eq!(FrameDescriptor::from_words(w), d);
        for ppb in [0, 1, 500_000_000, 999_999_999] {
            for interpolate in [false, true] {
                let d = FrameDescriptor {
                    alpha: Alpha::from_ppb(ppb),
                    interpolate,
                    ..d
                };
                assert_eq!(FrameDescriptor::from_words(d.to_words()), d);
            }
        }
        // A foreign fourth word still decodes to an alpha below 1.
        let odd = FrameDescriptor::from_words([0, 0, 0, u64::MAX]);
        assert_eq!((odd.alpha, odd.interpolate), (Alpha::MAX, true));
    }

    #[test]
    fn blend_factor_is_the_alpha_or_the_current_state() {
        let d = FrameDescriptor {
            alpha: Alpha::from_ppb(500_000_000),
            interpolate: true,
            ..FrameDescriptor::default()
        };
        assert_eq!(d.blend_factor(), 0.5);
        let late = FrameDescriptor {
            alpha: Alpha::MAX,
            ..d
        };
        assert!(late.blend_factor() < 1.0);
        let off = FrameDescriptor {
            interpolate: false,
            ..d
        };
        assert_eq!(off.blend_factor(), 1.0);
        assert_eq!(FrameDescriptor::default().blend_factor(), 1.0);
    }

    #[test]
    fn default_is_all_zero() {
        assert_eq!(FrameDescriptor::default().to_words(), [0; 4]);
    }
}
