//! [`RenderThread`]: the consumer thread that runs the frame pipeline's
//! stages, fed by the [handoff](crate::handoff).
//!
//! ```text
//!  owner (main/sim)                       render thread "laige-render"
//!  RenderThread::new ── spawn ──────────► make_stages(), on_start()
//!  thread_started (Info)                  │
//!  submit_frame(d1) ── publish ─(unpark)─► claim d1 → batch → submit → finish
//!  submit_frame(d2) ── publish ──────────► claim d2 → batch → submit → finish
//!  wait_idle() ... returns when outstanding == 0
//!  shutdown() ── stop + unpark ──────────► loop exits; on_stop()
//!             ◄── join ───────────────────  thread ends
//!  thread_stopped (Info)
//! ```
//!
//! Lifecycle: *running* from the constructor until `shutdown` (or `Drop`);
//! *failed* when a stage or hook panics or returns an error (the render
//! thread reports it as an Error event, stops rendering, runs `on_stop` if
//! `on_start` had succeeded, and exits); *stopped* once `shutdown` joined
//! the thread. Calls on a failed thread return [`ErrorCode::Failed`] until
//! it is shut down; calls on a stopped thread are no-ops (`wait_idle`,
//! `shutdown`) or `InvalidArgument` (`submit_frame`).
//!
//! Frame accounting after a failure: the frame whose stage failed is neither
//! rendered nor dropped — it stays counted in `outstanding` (in flight), as
//! does a frame left pending, so `submitted = rendered + dropped +
//! outstanding` keeps holding exactly.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

use laige_core::{Error, ErrorCode, Result, panic_message};

use crate::events::{self, emit};
use crate::handoff::{Consumer, HandoffConfig, Producer, StatsView, handoff};
use crate::{FrameDescriptor, FrameStats, PayloadWriter};

/// The render thread's name (visible in debuggers, `top -H`, panic messages).
pub const THREAD_NAME: &str = "laige-render";

/// The frame pipeline's stages, run on the render thread with static
/// dispatch (the `RenderThread` is generic over them; no `dyn`).
///
/// Per rendered frame: `batch`, then `submit`, each given the frame's
/// descriptor and payload. `on_start` runs once before the first frame (the
/// GL context take-over: make it current here), `on_stop` once after the
/// last (hand it back: release it here — a context last held by a dead
/// thread cannot be rebound on some EGL stacks).
///
/// Stages must be bounded: a stage that blocks blocks `wait_idle` and the
/// shutdown join. A stage that panics or returns an error fails the render
/// thread (module docs); it never hangs the owner.
pub trait RenderStages<T> {
    /// Runs once on the render thread before the first frame.
    ///
    /// # Errors
    /// An error fails the render thread; `on_stop` then does not run.
    fn on_start(&mut self) -> Result<()> {
        Ok(())
    }

    /// The cull/batch stage of one frame.
    ///
    /// # Errors
    /// An error fails the render thread.
    fn batch(&mut self, frame: &FrameDescriptor, payload: &[T]) -> Result<()>;

    /// The GPU submit stage of one frame (after `batch`).
    ///
    /// # Errors
    /// An error fails the render thread.
    fn submit(&mut self, frame: &FrameDescriptor, payload: &[T]) -> Result<()>;

    /// Runs once on the render thread after the last frame (at shutdown or
    /// after a failed stage), if `on_start` succeeded.
    ///
    /// # Errors
    /// An error is reported like a failed stage.
    fn on_stop(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Configures a [`RenderThread`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderThreadConfig {
    /// Elements reserved in each of the three payload buffers (see
    /// [`HandoffConfig::payload_capacity`]). Default 0.
    pub payload_capacity: usize,
    /// How long the render thread spins (`spin_loop`, watching the slot)
    /// after a frame before it parks. Default 20 µs: catches a producer that
    /// publishes back to back, and costs ~0.1 % of a core at 60 Hz; a parked
    /// thread is woken by the next publish (an `unpark`, ~tens of µs).
    pub idle_spin_ns: u64,
}

impl Default for RenderThreadConfig {
    fn default() -> Self {
        Self {
            payload_capacity: 0,
            idle_spin_ns: 20_000,
        }
    }
}

#[derive(Clone, Debug)]
struct Failure {
    id: laige_core::EventId,
    stage: &'static str,
    message: String,
}

/// The stages the render thread runs, by the index [`Control::stage`]
/// holds (0: between stages).
const STAGE_NAMES: [&str; 7] = [
    "idle",
    "make_stages",
    "on_start",
    "batch",
    "submit",
    "on_stop",
    "drop",
];

#[derive(Default)]
struct Control {
    stop: AtomicBool,
    failed: AtomicBool,
    failure: Mutex<Option<Failure>>,
    /// The stage the render thread is in (an index into [`STAGE_NAMES`]),
    /// for naming a stage that never returns. Relaxed: diagnostic only.
    stage: AtomicU8,
    /// A stuck stage was reported (it is logged once).
    stuck_reported: AtomicBool,
}

impl Control {
    /// Records the first failure (render thread), then raises the flag.
    fn fail(&self, failure: Failure) {
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(failure);
        }
        drop(slot);
        // Release: the record above is visible to an owner that acquires the flag.
        self.failed.store(true, Ordering::Release);
    }

    /// The name of the stage the render thread is in.
    fn stage_name(&self) -> &'static str {
        STAGE_NAMES
            .get(usize::from(self.stage.load(Ordering::Relaxed)))
            .copied()
            .unwrap_or("idle")
    }

    fn is_failed(&self) -> bool {
        // Acquire: pairs with `fail`'s Release.
        self.failed.load(Ordering::Acquire)
    }

    fn error(&self) -> Error {
        let failure = self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match failure {
            Some(f) => Error::new(ErrorCode::Failed, f.id)
                .with_field(f.stage)
                .with_detail(f.message),
            None => Error::new(ErrorCode::Failed, events::STAGE_PANICKED)
                .with_detail("the render thread exited unexpectedly"),
        }
    }
}

/// The render thread: the consumer of the frame handoff, running the
/// [`RenderStages`] once per rendered frame. Owned by the producer thread
/// (the main/sim thread): `submit_frame`, `writer`, `wait_idle` and
/// `shutdown` take `&mut self`/`&self` on the owner.
///
/// Dropping it shuts it down (stop, join) without flushing a pending frame;
/// call [`wait_idle`](Self::wait_idle) first when the last frame must render.
pub struct RenderThread<T: Send + Sync + 'static = ()> {
    producer: Producer<T>,
    control: std::sync::Arc<Control>,
    thread: Thread,
    handle: Option<JoinHandle<()>>,
}

impl<T: Send + Sync + 'static> RenderThread<T> {
    /// Spawns the render thread with `stages` (moved to it). Emits
    /// `render_thread/thread_started` (Info).
    ///
    /// # Errors
    /// The OS refused to spawn a thread (`Failed`, `render_thread/spawn_failed`).
    pub fn new<S>(config: RenderThreadConfig, stages: S) -> Result<Self>
    where
        S: RenderStages<T> + Send + 'static,
    {
        Self::spawn(config, move || Ok(stages))
    }

    /// Spawns the render thread and builds the stages *on* it with
    /// `make_stages` (so the stages need not be `Send`: a GL context that
    /// must never leave the render thread is created or taken over there).
    /// An error or panic from `make_stages` fails the thread like a failed
    /// `on_start`.
    ///
    /// # Errors
    /// The OS refused to spawn a thread (`Failed`, `render_thread/spawn_failed`).
    pub fn spawn<S, F>(config: RenderThreadConfig, make_stages: F) -> Result<Self>
    where
        S: RenderStages<T> + 'static,
        F: FnOnce() -> Result<S> + Send + 'static,
    {
        let (producer, consumer) = handoff::<T>(HandoffConfig {
            payload_capacity: config.payload_capacity,
        });
        let control = std::sync::Arc::new(Control::default());
        let thread_control = std::sync::Arc::clone(&control);
        let idle_spin = Duration::from_nanos(config.idle_spin_ns);
        let handle = std::thread::Builder::new()
            .name(THREAD_NAME.to_owned())
            .spawn(move || run(consumer, &thread_control, make_stages, idle_spin))
            .map_err(|e| {
                Error::new(ErrorCode::Failed, events::SPAWN_FAILED)
                    .with_detail("spawning the render thread")
                    .with_source(e)
            })?;
        emit!(Info, events::THREAD_STARTED, thread = THREAD_NAME);
        Ok(Self {
            producer,
            control,
            thread: handle.thread().clone(),
            handle: Some(handle),
        })
    }

    /// The payload buffer the next [`submit_frame`](Self::submit_frame)
    /// hands to the stages (empty after each submit; see [`PayloadWriter`]).
    pub fn writer(&mut self) -> PayloadWriter<'_, T> {
        self.producer.writer()
    }

    /// Publishes `desc` and the writer's payload to the render thread: the
    /// hot path — wait-free, no allocation, no lock, no log while healthy. A
    /// frame still pending is dropped in place (counted; one rate-limited
    /// `render_thread/frame_dropped` Warn with `dropped_frame`, `new_frame`).
    ///
    /// # Errors
    /// - stopped (after `shutdown`) → `InvalidArgument`
    ///   (`render_thread/not_running`), not logged;
    /// - failed (a stage panicked or failed) → `Failed` with the stage and
    ///   message (the failure was logged once, by the render thread).
    pub fn submit_frame(&mut self, desc: FrameDescriptor) -> Result<()> {
        if self.handle.is_none() {
            return Err(not_running());
        }
        if self.control.is_failed() {
            return Err(self.control.error());
        }
        let out = self.producer.publish(desc);
        if out.consumer_parked {
            self.thread.unpark();
        }
        if let Some(dropped) = out.dropped_frame {
            emit!(
                Warn,
                events::FRAME_DROPPED,
                dropped_frame = dropped,
                new_frame = desc.frame_index
            );
        }
        Ok(())
    }

    /// Blocks until no frame is pending and none is in flight (every
    /// submitted frame rendered or dropped), so the stages' effects are
    /// visible. Bounded by one frame's stage work; spins briefly, then
    /// yields, then sleeps in 50 µs steps. A no-op on a stopped thread.
    ///
    /// # Errors
    /// The render thread failed (before or while waiting) → `Failed`.
    pub fn wait_idle(&self) -> Result<()> {
        self.wait_idle_until(None)
    }

    /// [`wait_idle`](Self::wait_idle), but gives up at `deadline`: a stage
    /// that has not returned by then is reported (the error names it).
    ///
    /// # Errors
    /// The render thread failed → `Failed`; the deadline passed with a
    /// frame still in a stage → `Failed`, `render_thread/stage_stuck`,
    /// field = the stage (`batch`, `submit`, ...).
    pub fn wait_idle_until(&self, deadline: Option<Instant>) -> Result<()> {
        let Some(handle) = &self.handle else {
            return Ok(());
        };
        let mut round = 0u32;
        loop {
            if self.control.is_failed() {
                return Err(self.control.error());
            }
            if self.producer.is_idle() {
                return Ok(());
            }
            if handle.is_finished() {
                // The thread ended without recording a failure (a panic
                // outside the guarded stages): still never hang.
                if !self.control.is_failed() {
                    self.control.fail(Failure {
                        id: events::STAGE_PANICKED,
                        stage: "render_thread",
                        message: "the render thread exited unexpectedly".to_owned(),
                    });
                }
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(self.stuck("waiting for the last frame"));
            }
            round += 1;
            if round < 64 {
                std::hint::spin_loop();
            } else if round < 80 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    /// Stops and joins the render thread, in order: stop request, unpark,
    /// join (the thread runs `on_stop` before it ends), stopped mark, one
    /// `render_thread/thread_stopped` Info event. Does not flush a pending
    /// frame (call [`wait_idle`](Self::wait_idle) first for that).
    /// Idempotent: a second call is a no-op returning `Ok`.
    ///
    /// # Errors
    /// The render thread had failed → `Failed` with the stage and message
    /// (the thread is stopped all the same).
    pub fn shutdown(&mut self) -> Result<()> {
        self.shutdown_until(None)
    }

    /// [`shutdown`](Self::shutdown), but the join gives up at `deadline`:
    /// a render thread still inside a stage then is **left running,
    /// reported** (one `render_thread/stage_stuck` Error event naming the
    /// stage) and no longer owned (it ends with the process); the thread
    /// counts as stopped.
    ///
    /// # Errors
    /// As [`shutdown`](Self::shutdown); a join that timed out →
    /// `Failed`, `render_thread/stage_stuck`, field = the stage.
    pub fn shutdown_until(&mut self, deadline: Option<Instant>) -> Result<()> {
        let Some(handle) = self.handle.take() else {
            return Ok(());
        };
        // Release: orders nothing the thread needs; the unpark/park pair and
        // the join carry the edges. Kept Release for clarity of intent.
        self.control.stop.store(true, Ordering::Release);
        handle.thread().unpark();
        if let Some(deadline) = deadline {
            while !handle.is_finished() {
                if Instant::now() >= deadline {
                    let err = self.stuck("joining the render thread");
                    // Dropping the handle detaches the thread: it is stuck in
                    // a stage and cannot be stopped from outside; the error
                    // above names it.
                    drop(handle);
                    return Err(err);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        if handle.join().is_err() && !self.control.is_failed() {
            self.control.fail(Failure {
                id: events::STAGE_PANICKED,
                stage: "render_thread",
                message: "the render thread panicked outside a stage".to_owned(),
            });
        }
        let s = self.producer.stats();
        emit!(
            Info,
            events::THREAD_STOPPED,
            submitted = s.submitted,
            rendered = s.rendered,
            dropped = s.dropped,
            outstanding = s.outstanding
        );
        if self.control.is_failed() {
            Err(self.control.error())
        } else {
            Ok(())
        }
    }

    /// The error (logged once here) for a render thread still inside a
    /// stage when a deadline passed, `while` doing what.
    fn stuck(&self, during: &'static str) -> Error {
        let stage = self.control.stage_name();
        // Relaxed: a log-once latch on the owner's thread.
        if !self.control.stuck_reported.swap(true, Ordering::Relaxed) {
            emit!(Error, events::STAGE_STUCK, stage = stage, during = during);
        }
        Error::new(ErrorCode::Failed, events::STAGE_STUCK)
            .with_field(stage)
            .with_detail(format!(
                "the render thread did not return from its {stage} stage in time ({during})"
            ))
    }

    /// An exact snapshot of the frame accounting (`submitted = rendered +
    /// dropped + outstanding` holds in every snapshot; see [`FrameStats`]).
    #[must_use]
    pub fn stats(&self) -> FrameStats {
        self.producer.stats()
    }

    /// A `Send + Sync` view of [`stats`](Self::stats) for other threads
    /// (a profiler).
    #[must_use]
    pub fn stats_view(&self) -> StatsView<T> {
        self.producer.stats_view()
    }

    /// True while the render thread runs: false once it failed or was shut
    /// down.
    #[must_use]
    pub fn running(&self) -> bool {
        self.handle.is_some() && !self.control.is_failed()
    }
}

impl<T: Send + Sync + 'static> Drop for RenderThread<T> {
    fn drop(&mut self) {
        // A failure was already logged by the render thread; Drop cannot
        // return it.
        let _ = self.shutdown();
    }
}

impl<T: Send + Sync + 'static> std::fmt::Debug for RenderThread<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderThread")
            .field("running", &self.running())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

fn not_running() -> Error {
    Error::new(ErrorCode::InvalidArgument, events::NOT_RUNNING)
        .with_detail("the render thread is stopped; submit_frame needs a running thread")
}

/// Runs `f` (a stage or hook), turning a panic or an error into a
/// [`Failure`] that is logged once as an Error event.
fn guarded<R>(
    control: &Control,
    stage: &'static str,
    f: impl FnOnce() -> Result<R>,
) -> Result<R, Failure> {
    let index = STAGE_NAMES.iter().position(|&n| n == stage).unwrap_or(0);
    // Relaxed: diagnostic (the owner names a stage that never returns).
    control
        .stage
        .store(u8::try_from(index).unwrap_or(0), Ordering::Relaxed);
    let outcome = catch_unwind(AssertUnwindSafe(f));
    control.stage.store(0, Ordering::Relaxed);
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => {
            let message = err.to_string();
            emit!(Error, events::STAGE_FAILED, stage = stage, error = %message);
            Err(Failure {
                id: events::STAGE_FAILED,
                stage,
                message,
            })
        }
        Err(payload) => {
            let message = panic_message(payload.as_ref()).to_owned();
            emit!(Error, events::STAGE_PANICKED, stage = stage, message = %message);
            Err(Failure {
                id: events::STAGE_PANICKED,
                stage,
                message,
            })
        }
    }
}

/// The render thread's body.
fn run<T, S, F>(mut consumer: Consumer<T>, control: &Control, make_stages: F, idle_spin: Duration)
where
    S: RenderStages<T>,
    F: FnOnce() -> Result<S>,
{
    let mut stages = match guarded(control, "make_stages", make_stages) {
        Ok(stages) => stages,
        Err(failure) => return control.fail(failure),
    };
    if let Err(failure) = guarded(control, "on_start", || stages.on_start()) {
        control.fail(failure);
        drop_stages(stages, control);
        return;
    }
    'frames: loop {
        // Acquire: pairs with shutdown's store (the flag carries no data).
        if control.stop.load(Ordering::Acquire) {
            break;
        }
        if let Some(frame) = consumer.try_claim() {
            let desc = *frame.descriptor();
            // A span per render stage (feature `trace`).
            let result = guarded(control, "batch", || {
                #[cfg(feature = "trace")]
                let _span =
                    tracing::info_span!("render_stage", stage = "batch", frame = desc.frame_index)
                        .entered();
                stages.batch(&desc, frame.payload())
            })
            .and_then(|()| {
                guarded(control, "submit", || {
                    #[cfg(feature = "trace")]
                    let _span = tracing::info_span!(
                        "render_stage",
                        stage = "submit",
                        frame = desc.frame_index
                    )
                    .entered();
                    stages.submit(&desc, frame.payload())
                })
            });
            match result {
                Ok(()) => drop(frame), // finished: counted as rendered
                Err(failure) => {
                    frame.abandon(); // stays outstanding (module docs)
                    control.fail(failure);
                    break;
                }
            }
            continue;
        }
        // Idle: spin briefly, then park until a publish (or shutdown) wakes us.
        let idle_since = Instant::now();
        while idle_since.elapsed() < idle_spin {
            if consumer.has_pending() || control.stop.load(Ordering::Relaxed) {
                continue 'frames;
            }
            std::hint::spin_loop();
        }
        if consumer.prepare_park() && !control.stop.load(Ordering::Acquire) {
            // Woken by the publish that saw PARKED, by shutdown, or
            // spuriously; the loop re-checks all three.
            std::thread::park();
        }
    }
    if let Err(failure) = guarded(control, "on_stop", || stages.on_stop()) {
        control.fail(failure);
    }
    drop_stages(stages, control);
}

/// Drops the stages on the render thread, catching a panicking `Drop`.
fn drop_stages<S>(stages: S, control: &Control) {
    if let Err(failure) = guarded(control, "drop", move || {
        drop(stages);
        Ok(())
    }) {
        control.fail(failure);
    }
}
