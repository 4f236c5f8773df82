//! The single-slot frame handoff: one producer (the main/sim thread), one
//! consumer (the render thread), one pending frame at most, no lock, no
//! queue, no allocation.
//!
//! # Timelines
//!
//! ```text
//!  sim/main thread (Producer)                  render thread (Consumer)
//!  ──────────────────────────                  ──────────────────────────────────
//!  publish #1 ─┐ seq odd, 4 words,             (parked: PARKED bit set)
//!              │ swap state ← P|buf|gen 1      ◄── unpark (swap saw PARKED)
//!              └ seq even                      claim #1: seqlock read, CAS P→0, F=1
//!                                              batch #1 ── submit #1 ── finish
//!  publish #2 ─── swap: P was clear ─────────► claim #2        (rendered 1, F=0)
//!                                              batch #2 ─────────────────────────
//!  publish #3 ─── swap: P was clear            │ (#3 pending, #2 in flight:
//!                                              │  outstanding = 2)
//!  publish #4 ─── swap: P was SET → #3 dropped │
//!                 in place, its buffer is the  │
//!                 producer's next write buffer ── submit #2 ── finish
//!                                              claim #4 ──── batch #4 ── ...
//!  ─────────────── time ───────────────────────────────────────────────────────►
//! ```
//!
//! The consumer lags by one frame at most: a publish that finds a frame still
//! pending replaces it (backpressure by dropping, never by queueing or
//! blocking). Every published frame is in exactly one bucket at every
//! instant:
//!
//! ```text
//! submitted = rendered + dropped + outstanding,   outstanding = pending (≤ 1) + in_flight (≤ 1)
//! ```
//!
//! # Shared words
//!
//! | word | written by | meaning |
//! |---|---|---|
//! | `seq` | producer | descriptor seqlock: `2 × published`, odd while a publication is being written |
//! | `words[0..4]` | producer | the descriptor ([`FrameDescriptor::to_words`]) |
//! | `dropped` | producer | frames replaced while pending |
//! | `state` | both (RMW) | `gen << 4 \| back << 2 \| PARKED << 1 \| PENDING` (below) |
//! | `cons` | consumer | `rendered << 1 \| IN_FLIGHT` |
//! | `cseq` | consumer | odd while a claim moves a frame from pending to in flight |
//!
//! `state` bit layout: bit 0 `PENDING` (a published frame waits in the
//! slot), bit 1 `PARKED` (the consumer is about to park or parked; the next
//! publish must unpark it), bits 2–3 `back` (the payload buffer the slot owns:
//! the pending frame's, or a free one), bits 4–63 `gen` (the publication
//! number of the frame last put in the slot; 60 bits = 1.15 × 10¹⁸
//! publications, 36 years at one per nanosecond — it never wraps, so a
//! compare-and-swap on `state` can never succeed on a recycled value: no ABA).
//!
//! # Protocol and memory orders
//!
//! **Publish** (producer, wait-free: plain stores and one `swap`):
//!
//! 1. `seq.store(2k+1, Relaxed)` — "writing". Relaxed suffices: every later
//!    write of the publication is a Release store/RMW, which orders this
//!    store before it; a reader that sees any later write (through Acquire)
//!    therefore sees `seq ≥ 2k+1` on its re-check.
//! 2. `words[i].store(w_i, Release)` — Release (not Relaxed) so a consumer
//!    that reads a *new* word also sees the odd `seq` from step 1 (the seq
//!    re-check then fails and the torn copy is discarded). Each word is an
//!    8-byte atomic: single-copy atomic, never torn itself.
//! 3. `state.swap(PENDING | write << 2 | gen, AcqRel)` — Release publishes the
//!    payload buffer's contents (plain writes through [`PayloadWriter`]) and
//!    the words to the consumer that acquires this value in its claim CAS;
//!    Acquire makes the consumer's reads of the buffer we get back (released
//!    by its claim CAS, a Release) happen before we write it again. The
//!    returned value says, exactly and atomically, whether the previous frame
//!    was still pending (`PENDING` set → **dropped in place**: its buffer is
//!    ours again, unseen) or had been claimed, and whether the consumer had
//!    parked (→ the caller unparks it). The new value clears `PARKED`.
//! 4. If dropped: `dropped.store(d+1, Release)` (Release for the stats
//!    seqlock: a stats reader that sees it also sees the odd `seq`).
//! 5. `seq.store(2k+2, Release)` — "done": a reader that acquires the even
//!    value sees every write of steps 2–4.
//!
//! **Claim** (consumer, lock-free: retries only when a publication raced):
//!
//! 1. `w = state.load(Acquire)`; no `PENDING` → nothing to claim. Acquire:
//!    pairs with the publish swap so the odd `seq` of that publication is
//!    visible to step 2.
//! 2. Seqlock read: `s1 = seq.load(Acquire)` (odd → retry; Acquire pairs with
//!    step 5 so the words read next are at least that publication's), the
//!    four words with `Acquire` (pairs with step 2: a new word implies the odd
//!    `seq` is visible), `s2 = seq.load(Relaxed)` (ordered after the Acquire
//!    word loads). `s1 != s2` → a newer publication crossed the copy window:
//!    retry. `s1 / 2 != gen(w)` → `w` is stale: retry.
//! 3. `cseq.store(odd, Relaxed)`, then `state.compare_exchange(w, back =
//!    front, PENDING cleared, AcqRel, Acquire)`. Success means the slot still
//!    held publication `gen(w)` — the one whose words were just read — so the
//!    descriptor and the buffer belong to the same frame. Acquire: the
//!    producer's buffer writes are visible; Release: our reads of the old
//!    front buffer (now handed back) happen before the producer reuses it.
//!    Then `cons.store(rendered << 1 | 1, Release)` and `cseq.store(even,
//!    Release)`.
//!
//! **Finish** (consumer): `cons.store((rendered + 1) << 1, Release)` — one
//! store moves the frame from in flight to rendered; Release makes the
//! stages' effects visible to a [`Producer::stats`]/`is_idle` reader that
//! acquires it (so `wait_idle` returning means the work is done).
//!
//! **Stats** (any thread): a double seqlock read over `seq` (the producer's
//! bracket) and `cseq` (the consumer's claim bracket): both even and
//! unchanged around Acquire loads of `state`, `cons` and `dropped` means no
//! multi-word transition overlapped the read, and the single-word ones
//! (finish; the claim CAS itself) are atomic. The snapshot is therefore
//! **exact**: the invariant holds for every value [`Producer::stats`] or
//! [`Consumer::stats`] returns, from any thread, at any time.
//!
//! **Park** (consumer): `state.compare_exchange(w, w | PARKED)` only while
//! `w` has no `PENDING`; both sides' RMWs on one word are totally ordered, so
//! either the publish swap sees `PARKED` (and the caller unparks) or the CAS
//! fails because `PENDING` appeared — a wake-up is never lost, with no
//! `SeqCst` fence on the publish path.

#![allow(
    unsafe_code,
    reason = "the payload buffers are UnsafeCells whose ownership the protocol decides"
)]

use crossbeam_utils::CachePadded;

use crate::FrameDescriptor;
pub use crate::frame::FrameStats;
use crate::payload::{PAYLOAD_BUFFERS, PayloadPool, PayloadWriter};
use crate::sync::{Arc, AtomicU64, ConstPtr, Ordering, spin_loop, yield_now};

const PENDING: u64 = 1;
const PARKED: u64 = 1 << 1;
const BACK_SHIFT: u32 = 2;
const BACK_MASK: u64 = 0b11 << BACK_SHIFT;
const GEN_SHIFT: u32 = 4;
/// The largest publication number the state word holds (60 bits).
const GEN_MAX: u64 = u64::MAX >> GEN_SHIFT;
const IN_FLIGHT: u64 = 1;

const fn back_of(state: u64) -> usize {
    // The mask keeps two bits: the value is 0..=3, and only 0..=2 are ever stored.
    ((state & BACK_MASK) >> BACK_SHIFT) as usize
}

const fn gen_of(state: u64) -> u64 {
    state >> GEN_SHIFT
}

const fn pack(pending: bool, back: usize, generation: u64) -> u64 {
    (generation << GEN_SHIFT) | ((back as u64) << BACK_SHIFT) | (pending as u64)
}

/// Sizes the handoff's payload buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandoffConfig {
    /// Elements reserved in each of the three payload buffers at creation
    /// (default 0: buffers grow on first use and keep their capacity). Set
    /// it to the expected per-frame maximum (for example the sprite count)
    /// so that not even the first frames allocate.
    pub payload_capacity: usize,
}

/// What a [`Producer::publish`] did besides publishing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use = "a parked consumer must be unparked, and a drop should be reported"]
pub struct PublishOutcome {
    /// The `frame_index` of the pending frame this publish replaced (dropped
    /// in place, counted in [`FrameStats::dropped`]), if any. Exact: decided
    /// by the same atomic swap that published.
    pub dropped_frame: Option<u64>,
    /// The consumer had parked (or was about to) waiting for a frame: the
    /// caller must unpark the consumer's thread.
    pub consumer_parked: bool,
}

struct ProducerWords {
    seq: AtomicU64,
    words: [AtomicU64; 4],
    dropped: AtomicU64,
}

struct ConsumerWords {
    cons: AtomicU64,
    cseq: AtomicU64,
}

struct Shared<T> {
    producer: CachePadded<ProducerWords>,
    state: CachePadded<AtomicU64>,
    consumer: CachePadded<ConsumerWords>,
    pool: PayloadPool<T>,
}

// SAFETY: `Shared` is !Sync only because of the payload pool's UnsafeCells.
// The protocol gives each buffer to exactly one party at a time (module
// docs); the producer moves `T`s in and drops them (needs `T: Send` because
// the last `Arc` may drop the pool on either thread) and the consumer reads
// `&T` on its thread (needs `T: Sync`).
unsafe impl<T: Send + Sync> Sync for Shared<T> {}
// SAFETY: as above; sending the shared block sends the `T`s it owns.
unsafe impl<T: Send + Sync> Send for Shared<T> {}

impl<T> Shared<T> {
    fn snapshot(&self) -> FrameStats {
        let mut backoff = 0u32;
        loop {
            // Acquire: pairs with the brackets' final Release stores, so the
            // data loads below see at least that transition's writes.
            let s1 = self.producer.seq.load(Ordering::Acquire);
            let c1 = self.consumer.cseq.load(Ordering::Acquire);
            if (s1 | c1) & 1 == 0 {
                // Acquire: a value written inside a bracket carries the
                // bracket's odd store with it (all those writes are Release),
                // so the re-check below fails if any was observed.
                let state = self.state.load(Ordering::Acquire);
                let cons = self.consumer.cons.load(Ordering::Acquire);
                let dropped = self.producer.dropped.load(Ordering::Acquire);
                // Relaxed: program-ordered after the Acquire loads above.
                let s2 = self.producer.seq.load(Ordering::Relaxed);
                let c2 = self.consumer.cseq.load(Ordering::Relaxed);
                if s1 == s2 && c1 == c2 {
                    let pending = state & PENDING != 0;
                    let in_flight = cons & IN_FLIGHT != 0;
                    return FrameStats {
                        submitted: s1 / 2,
                        rendered: cons >> 1,
                        dropped,
                        outstanding: u64::from(pending) + u64::from(in_flight),
                        pending,
                        in_flight,
                    };
                }
            }
            pause(&mut backoff);
        }
    }
}

/// Spin a little, then yield: a bracket is a handful of instructions, so a
/// reader only waits long when the writer was preempted inside one.
fn pause(backoff: &mut u32) {
    if *backoff < 64 {
        *backoff += 1;
        spin_loop();
    } else {
        yield_now();
    }
}

/// Creates a handoff and returns its two halves: the [`Producer`] for the
/// main/sim thread and the [`Consumer`] for the render thread.
///
/// Allocates the shared block and the three payload buffers (with
/// `config.payload_capacity` each) — the only allocation the handoff makes.
///
/// ```
/// use laige_render::FrameDescriptor;
/// use laige_render::handoff::{handoff, HandoffConfig};
///
/// let (mut tx, mut rx) = handoff::<()>(HandoffConfig::default());
/// let d = |n| FrameDescriptor { frame_index: n, ..FrameDescriptor::default() };
/// let _ = tx.publish(d(1));
/// let out = tx.publish(d(2)); // #1 still pending: dropped in place
/// assert_eq!(out.dropped_frame, Some(1));
/// let frame = rx.try_claim().expect("#2 is pending");
/// assert_eq!(frame.descriptor().frame_index, 2);
/// drop(frame); // finished: rendered
/// let s = tx.stats();
/// assert_eq!((s.submitted, s.rendered, s.dropped, s.outstanding), (2, 1, 1, 0));
/// ```
#[must_use]
pub fn handoff<T: Send + Sync>(config: HandoffConfig) -> (Producer<T>, Consumer<T>) {
    let shared = Arc::new(Shared {
        producer: CachePadded::new(ProducerWords {
            seq: AtomicU64::new(0),
            words: std::array::from_fn(|_| AtomicU64::new(0)),
            dropped: AtomicU64::new(0),
        }),
        // Initial ownership: buffer 0 the producer's, 1 the slot's (free),
        // 2 the consumer's.
        state: CachePadded::new(AtomicU64::new(pack(false, 1, 0))),
        consumer: CachePadded::new(ConsumerWords {
            cons: AtomicU64::new(0),
            cseq: AtomicU64::new(0),
        }),
        pool: PayloadPool::with_capacity(config.payload_capacity),
    });
    let producer = Producer {
        shared: Arc::clone(&shared),
        write_idx: 0,
        published: 0,
        dropped: 0,
        last_frame_index: 0,
    };
    let consumer = Consumer {
        shared,
        front_idx: 2,
        rendered: 0,
        cseq: 0,
        poisoned: false,
    };
    (producer, consumer)
}

/// The publishing half (the one producer: the main/sim thread).
///
/// `publish` takes `&mut self`, and the type is not `Clone`: the
/// single-producer rule is enforced by the borrow checker.
pub struct Producer<T> {
    shared: Arc<Shared<T>>,
    write_idx: usize,
    published: u64,
    dropped: u64,
    last_frame_index: u64,
}

impl<T> Producer<T> {
    /// The payload buffer the next [`publish`](Self::publish) hands over
    /// (empty after each publish; capacity kept).
    pub fn writer(&mut self) -> PayloadWriter<'_, T> {
        PayloadWriter::new(self.shared.pool.write(self.write_idx))
    }

    /// Publishes `desc` and the current write buffer. Wait-free: six plain
    /// atomic stores, one atomic swap, no allocation, no lock, no log.
    ///
    /// A frame still pending is dropped in place (counted; reported in the
    /// outcome). If the outcome says the consumer parked, unpark its thread.
    pub fn publish(&mut self, desc: FrameDescriptor) -> PublishOutcome {
        let shared = &*self.shared;
        let generation = self.published + 1;
        debug_assert!(generation <= GEN_MAX, "publication counter exhausted");
        let seq = 2 * self.published;
        // Relaxed: ordered before the Release stores below (module docs, step 1).
        shared.producer.seq.store(seq + 1, Ordering::Relaxed);
        for (slot, word) in shared.producer.words.iter().zip(desc.to_words()) {
            // Release: a reader that sees this word sees the odd seq (step 2).
            slot.store(word, Ordering::Release);
        }
        // AcqRel: Release hands the write buffer and words to the consumer's
        // claim; Acquire receives the buffer the consumer released (step 3).
        let old = shared
            .state
            .swap(pack(true, self.write_idx, generation), Ordering::AcqRel);
        let dropped_frame = if old & PENDING != 0 {
            self.dropped += 1;
            // Release: inside the stats bracket (step 4).
            shared
                .producer
                .dropped
                .store(self.dropped, Ordering::Release);
            Some(self.last_frame_index)
        } else {
            None
        };
        self.write_idx = back_of(old);
        // Release: completes the publication (step 5).
        shared.producer.seq.store(seq + 2, Ordering::Release);
        self.published = generation;
        self.last_frame_index = desc.frame_index;
        // Recycle: the buffer we got back is ours alone now (the dropped
        // frame's, or the one the consumer released), so start it empty.
        let buffer = shared.pool.write(self.write_idx);
        // SAFETY: protocol state "write buffer": `write_idx` came out of the
        // state word by our swap, so neither the slot nor the consumer holds
        // it; the consumer's last reads of it (if it was its front buffer)
        // happen before our swap's Acquire read its claim CAS's Release.
        unsafe { buffer.deref() }.clear();
        PublishOutcome {
            dropped_frame,
            consumer_parked: old & PARKED != 0,
        }
    }

    /// An exact snapshot of the accounting (see [`FrameStats`]).
    #[must_use]
    pub fn stats(&self) -> FrameStats {
        self.shared.snapshot()
    }

    /// True when no frame is pending and none is in flight. When it returns
    /// true, every rendered frame's stage effects happen-before the return.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.shared.snapshot().outstanding == 0
    }

    /// A cloneable, `Send + Sync` read-only view of the accounting for other
    /// threads (a profiler, a stats sampler).
    #[must_use]
    pub fn stats_view(&self) -> StatsView<T> {
        StatsView {
            shared: Arc::clone(&self.shared),
        }
    }
}

/// A read-only view of a handoff's accounting, usable from any thread.
pub struct StatsView<T> {
    shared: Arc<Shared<T>>,
}

impl<T> StatsView<T> {
    /// An exact snapshot of the accounting (see [`FrameStats`]).
    #[must_use]
    pub fn stats(&self) -> FrameStats {
        self.shared.snapshot()
    }
}

impl<T> Clone for StatsView<T> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> std::fmt::Debug for StatsView<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatsView")
            .field("stats", &self.stats())
            .finish()
    }
}

impl<T> std::fmt::Debug for Producer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer")
            .field("published", &self.published)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// The consuming half (the one consumer: the render thread).
pub struct Consumer<T> {
    shared: Arc<Shared<T>>,
    front_idx: usize,
    rendered: u64,
    cseq: u64,
    poisoned: bool,
}

impl<T> Consumer<T> {
    /// True when a frame waits in the slot (a cheap hint for an idle loop;
    /// [`try_claim`](Self::try_claim) is the authority).
    #[must_use]
    pub fn has_pending(&self) -> bool {
        // Relaxed: a hint only; try_claim re-reads with Acquire.
        !self.poisoned && self.shared.state.load(Ordering::Relaxed) & PENDING != 0
    }

    /// Claims the pending frame, if any: the frame moves from pending to in
    /// flight. Dropping the returned [`Frame`] finishes it (counted as
    /// rendered). Lock-free; retries only while a publication races.
    ///
    /// Returns `None` when nothing is pending, or after a frame was
    /// [abandoned](Frame::abandon).
    pub fn try_claim(&mut self) -> Option<Frame<'_, T>> {
        if self.poisoned {
            return None;
        }
        let shared = &*self.shared;
        let mut backoff = 0u32;
        loop {
            // Acquire: pairs with the publish swap (claim step 1).
            let w = shared.state.load(Ordering::Acquire);
            if w & PENDING == 0 {
                return None;
            }
            // Seqlock read of the descriptor (claim step 2).
            let s1 = shared.producer.seq.load(Ordering::Acquire);
            if s1 & 1 != 0 {
                // The producer is between its swap and its final seq store.
                pause(&mut backoff);
                continue;
            }
            let words: [u64; 4] =
                std::array::from_fn(|i| shared.producer.words[i].load(Ordering::Acquire));
            // Relaxed: program-ordered after the Acquire word loads.
            let s2 = shared.producer.seq.load(Ordering::Relaxed);
            if s1 != s2 || s1 / 2 != gen_of(w) {
                // Torn copy, or `w` is older than the words: try again.
                pause(&mut backoff);
                continue;
            }
            // Claim step 3, inside the consumer's stats bracket.
            // Relaxed: ordered before the AcqRel CAS that follows.
            shared.consumer.cseq.store(self.cseq + 1, Ordering::Relaxed);
            let claimed = pack(false, self.front_idx, gen_of(w));
            // AcqRel on success: Acquire takes the pending buffer's contents,
            // Release gives back our previous front buffer. Acquire on
            // failure: the retry's loads are at least as new.
            let result =
                shared
                    .state
                    .compare_exchange(w, claimed, Ordering::AcqRel, Ordering::Acquire);
            if result.is_ok() {
                // Release: inside the bracket (stats readers acquire it).
                shared
                    .consumer
                    .cons
                    .store((self.rendered << 1) | IN_FLIGHT, Ordering::Release);
            }
            self.cseq += 2;
            // Release: closes the bracket.
            shared.consumer.cseq.store(self.cseq, Ordering::Release);
            if result.is_err() {
                continue;
            }
            self.front_idx = back_of(w);
            let payload = shared.pool.read(self.front_idx);
            return Some(Frame {
                desc: FrameDescriptor::from_words(words),
                payload,
                consumer: self,
                abandoned: false,
            });
        }
    }

    /// Prepares to park: sets the state word's `PARKED` bit if no frame is
    /// pending. Returns true if the caller may now park its thread (the next
    /// publish reports `consumer_parked`, and its caller unparks); false if a
    /// frame arrived (claim it instead).
    ///
    /// Spurious wake-ups are harmless: re-check and park again.
    pub fn prepare_park(&mut self) -> bool {
        if self.poisoned {
            return true;
        }
        // Relaxed on all three: the bit only has to be ordered with the
        // producer's swap, and both are RMWs/loads of the same word (its
        // modification order is total); the park/unpark pair carries the
        // happens-before edge for the frame itself.
        let w = self.shared.state.load(Ordering::Relaxed);
        if w & PENDING != 0 {
            return false;
        }
        self.shared
            .state
            .compare_exchange(w, w | PARKED, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// An exact snapshot of the accounting (see [`FrameStats`]).
    #[must_use]
    pub fn stats(&self) -> FrameStats {
        self.shared.snapshot()
    }

    /// A cloneable, `Send + Sync` read-only view of the accounting (usable
    /// while a [`Frame`] borrows the consumer).
    #[must_use]
    pub fn stats_view(&self) -> StatsView<T> {
        StatsView {
            shared: Arc::clone(&self.shared),
        }
    }

    fn finish(&mut self) {
        self.rendered += 1;
        // Release: the stages' effects happen-before a reader that acquires
        // the new count (wait_idle); one store moves the frame from in flight
        // to rendered, so the invariant holds across it.
        self.shared
            .consumer
            .cons
            .store(self.rendered << 1, Ordering::Release);
    }
}

impl<T> std::fmt::Debug for Consumer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consumer")
            .field("rendered", &self.rendered)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

/// A claimed frame: its descriptor and its payload, readable until the frame
/// is dropped (finished: counted as rendered) or
/// [abandoned](Frame::abandon).
pub struct Frame<'a, T> {
    desc: FrameDescriptor,
    payload: ConstPtr<Vec<T>>,
    consumer: &'a mut Consumer<T>,
    abandoned: bool,
}

impl<T> Frame<'_, T> {
    /// The frame's descriptor (all four words from one publication).
    #[must_use]
    pub fn descriptor(&self) -> &FrameDescriptor {
        &self.desc
    }

    /// The frame's payload, as the producer wrote it before publishing.
    #[must_use]
    pub fn payload(&self) -> &[T] {
        // SAFETY: protocol state "front buffer": the index was taken out of
        // the state word by our successful claim CAS and is not in it again
        // until our next claim, which needs `&mut Consumer` — borrowed by
        // this frame. The producer never writes a buffer it has not got back
        // from the state word, so nobody writes this one while we read it;
        // the CAS's Acquire made the producer's writes visible.
        unsafe { self.payload.deref() }.as_slice()
    }

    /// Gives the frame up without finishing it (a stage failed). The frame
    /// stays counted as in flight forever, and the consumer claims nothing
    /// any more: `submitted = rendered + dropped + outstanding` keeps
    /// holding, with the failed frame (and any frame left pending) in
    /// `outstanding`.
    pub fn abandon(mut self) {
        self.abandoned = true;
        self.consumer.poisoned = true;
    }
}

impl<T> Drop for Frame<'_, T> {
    fn drop(&mut self) {
        if !self.abandoned {
            self.consumer.finish();
        }
    }
}

impl<T> std::fmt::Debug for Frame<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("desc", &self.desc)
            .finish_non_exhaustive()
    }
}

// The payload pool's buffer count and the state word's two index bits agree.
const _: () = assert!(PAYLOAD_BUFFERS <= 4);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn d(n: u64) -> FrameDescriptor {
        FrameDescriptor {
            frame_index: n,
            sim_tick: n * 3,
            render_time_ns: i64::try_from(n).unwrap_or(0) * 16_666_666,
            alpha: laige_core::Alpha::from_ppb(n * 7),
            interpolate: n % 2 == 1,
        }
    }

    #[test]
    fn state_word_packs_and_unpacks() {
        let w = pack(true, 2, GEN_MAX);
        assert_eq!(w & PENDING, PENDING);
        assert_eq!(w & PARKED, 0);
        assert_eq!(back_of(w), 2);
        assert_eq!(gen_of(w), GEN_MAX);
    }

    #[test]
    fn publish_claim_finish_counts_rendered() {
        let (mut tx, mut rx) = handoff::<u8>(HandoffConfig::default());
        assert!(rx.try_claim().is_none());
        let out = tx.publish(d(1));
        assert_eq!(out, PublishOutcome::default());
        let s = tx.stats();
        assert!(s.pending && !s.in_flight && s.is_consistent());
        let frame = rx.try_claim().expect("pending");
        assert_eq!(*frame.descriptor(), d(1));
        let s = tx.stats();
        assert!(!s.pending && s.in_flight && s.is_consistent());
        drop(frame);
        let s = tx.stats();
        assert_eq!(
            (s.submitted, s.rendered, s.dropped, s.outstanding),
            (1, 1, 0, 0)
        );
        assert!(tx.is_idle());
    }

    #[test]
    fn pending_frame_is_dropped_in_place_and_its_buffer_recycled() {
        let (mut tx, mut rx) = handoff::<u32>(HandoffConfig {
            payload_capacity: 4,
        });
        tx.writer().extend([1, 1]);
        let _ = tx.publish(d(1));
        tx.writer().extend([2, 2]);
        let out = tx.publish(d(2));
        assert_eq!(out.dropped_frame, Some(1));
        // The dropped frame's buffer came back to the producer, emptied.
        assert!(tx.writer().is_empty());
        let frame = rx.try_claim().expect("#2 pending");
        assert_eq!(frame.descriptor().frame_index, 2);
        assert_eq!(frame.payload(), &[2, 2]);
        drop(frame);
        let s = rx.stats();
        assert_eq!((s.submitted, s.rendered, s.dropped), (2, 1, 1));
        assert!(s.is_consistent());
    }

    #[test]
    fn outstanding_reaches_two_with_one_pending_and_one_in_flight() {
        let (mut tx, mut rx) = handoff::<()>(HandoffConfig::default());
        let _ = tx.publish(d(1));
        let frame = rx.try_claim().expect("#1");
        let _ = tx.publish(d(2));
        let s = tx.stats();
        assert_eq!(s.outstanding, 2);
        assert!(s.is_consistent());
        let out = tx.publish(d(3));
        assert_eq!(out.dropped_frame, Some(2));
        drop(frame);
        let frame = rx.try_claim().expect("#3");
        assert_eq!(frame.descriptor(), &d(3));
        drop(frame);
        let s = tx.stats();
        assert_eq!(
            (s.submitted, s.rendered, s.dropped, s.outstanding),
            (3, 2, 1, 0)
        );
    }

    #[test]
    fn buffers_rotate_without_aliasing() {
        let (mut tx, mut rx) = handoff::<u64>(HandoffConfig::default());
        for n in 1..=50u64 {
            tx.writer().extend([n; 3]);
            let _ = tx.publish(d(n));
            if n % 3 != 0 {
                let frame = rx.try_claim().expect("pending");
                let k = frame.descriptor().frame_index;
                assert_eq!(frame.payload(), &[k; 3]);
            }
        }
        assert!(tx.stats().is_consistent());
    }

    #[test]
    fn abandoned_frame_stays_outstanding_and_poisons_the_consumer() {
        let (mut tx, mut rx) = handoff::<()>(HandoffConfig::default());
        let _ = tx.publish(d(1));
        rx.try_claim().expect("#1").abandon();
        let _ = tx.publish(d(2));
        assert!(rx.try_claim().is_none());
        assert!(!rx.has_pending());
        let s = tx.stats();
        assert_eq!(
            (s.submitted, s.rendered, s.dropped, s.outstanding),
            (2, 0, 0, 2)
        );
        assert!(s.is_consistent());
    }

    #[test]
    fn park_bit_is_reported_once_and_refused_while_pending() {
        let (mut tx, mut rx) = handoff::<()>(HandoffConfig::default());
        assert!(rx.prepare_park());
        let out = tx.publish(d(1));
        assert!(out.consumer_parked);
        assert!(!rx.prepare_park(), "a frame is pending");
        let out = tx.publish(d(2));
        assert!(!out.consumer_parked);
    }
}
