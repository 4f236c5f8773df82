//! [`FrameDescriptor`]: the 32 bytes that describe one frame to the render
//! thread, and [`FrameStats`]: how the pipeline counts frames.

/// One frame as the producer (the main/sim thread) hands it to the render
/// thread: four 8-byte words, 32 bytes, `Copy`.
///
/// The handoff moves the descriptor as four independent atomic words and
/// proves, with a sequence re-check, that all four come from the same
/// publication (see [`crate::handoff`]). None of the fields is validated by
/// the handoff: they are the producer's facts, passed through unchanged.
///
/// ```
/// use laige_render::FrameDescriptor;
///
/// let d = FrameDescriptor { frame_index: 1, sim_tick: 3, render_time_ns: 16_666_666, payload: 0 };
/// assert_eq!(FrameDescriptor::from_words(d.to_words()), d);
/// assert_eq!(std::mem::size_of::<FrameDescriptor>(), 32);
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
    /// One opaque word for the producer's own use (a snapshot generation, a
    /// tag). The handoff carries it unchanged; bulk per-frame data travels
    /// in the payload pool instead (see [`crate::payload`]).
    pub payload: u64,
}

// The descriptor is exactly four words: the handoff stores it as four
// `AtomicU64`s, and the spec fixes its size at 32 bytes.
const _: () = assert!(std::mem::size_of::<FrameDescriptor>() == 32);
const _: () = assert!(std::mem::align_of::<FrameDescriptor>() == 8);

impl FrameDescriptor {
    /// The descriptor as the four words the handoff stores, in field order.
    #[must_use]
    pub const fn to_words(&self) -> [u64; 4] {
        [
            self.frame_index,
            self.sim_tick,
            // Bit-for-bit reinterpretation: the word round-trips exactly.
            self.render_time_ns.cast_unsigned(),
            self.payload,
        ]
    }

    /// Rebuilds a descriptor from [`FrameDescriptor::to_words`]'s words.
    #[must_use]
    pub const fn from_words(words: [u64; 4]) -> Self {
        Self {
            frame_index: words[0],
            sim_tick: words[1],
            render_time_ns: words[2].cast_signed(),
            payload: words[3],
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
            payload: 0xDEAD_BEEF,
        };
        let w = d.to_words();
        assert_eq!(w[2], (-5i64).cast_unsigned());
        assert_eq!(FrameDescriptor::from_words(w), d);
    }

    #[test]
    fn default_is_all_zero() {
        assert_eq!(FrameDescriptor::default().to_words(), [0; 4]);
    }
}
