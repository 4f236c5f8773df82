//! Bench area `render_pipeline`: the frame handoff's publish cost, the
//! publish-to-consume latency, and the frame clock's pacing accuracy and CPU
//! cost, each beside a reference measured in the same run.
//!
//! - `render_pipeline.publish.{ours,triple_buffer,mutex}`: one publication
//!   of a 32-byte `FrameDescriptor` (ns/op, median and p99 over samples of
//!   1000), measured interleaved: `handoff::Producer::publish` (payload type
//!   `()`, so the buffer rotation is included), the `triple_buffer` crate's
//!   `Input::write`, and a `Mutex<Option<FrameDescriptor>>` replace. No
//!   reader runs, so every contender works on warm cache lines (ours takes
//!   its drop path: every publish replaces a pending frame and counts it).
//!   `publish_vs_triple_buffer` = our median / theirs.
//! - `render_pipeline.latency.{parked,spinning}`: publish-to-`batch`
//!   latency through a live `RenderThread` (µs): the producer stamps the
//!   steady clock into the descriptor, the stage reads the clock. One frame
//!   every 2 ms; `parked` uses the default 20 µs idle spin (the thread parks
//!   and the publish unparks it), `spinning` an idle spin longer than the
//!   gap (the thread never parks: the lower bound).
//! - `render_pipeline.pacing_{60,240}hz.{frame_clock,sleep,spin_sleep}`:
//!   lateness of each frame against its deadline on an exact grid (µs:
//!   p50, p99, max), and the pacing thread's CPU time as a percentage of one
//!   core (`cpu_pct`). Contenders: `FrameClock::wait_frame`, a plain
//!   `thread::sleep` to the deadline, and `spin_sleep::sleep` (its default
//!   125 µs native accuracy). Runs are interleaved in 0.5 s segments so
//!   background load hits all three alike; 2 s each per rate (0.5 s quick).
//!   `pacing_60hz.p99_over_spin_sleep_us` = our p99 − spin_sleep's p99.
//!
//! CPU time is the thread's own on-CPU time from
//! `/proc/thread-self/schedstat` (first field, nanoseconds; the scheduler's
//! exact accounting, unlike the 10 ms-tick `utime`/`stime` of `stat`), read
//! before and after each segment on the pacing thread itself; std has no
//! `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` and `getrusage` would need libc.

use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use laige_core::clock::{MonotonicClock, SteadyClock};
use laige_render::handoff::{HandoffConfig, handoff};
use laige_render::{
    FrameClock, FrameClockConfig, FrameDescriptor, RenderStages, RenderThread, RenderThreadConfig,
};

use crate::harness::{Bench, Stats};

/// Runs the area.
pub fn run(b: &mut Bench) {
    publish(b);
    latency(b);
    let secs = if b.quick() { 0.5 } else { 2.0 };
    pacing(b, 60, secs);
    pacing(b, 240, secs);
}

fn desc(n: u64) -> FrameDescriptor {
    FrameDescriptor {
        frame_index: n,
        sim_tick: n,
        render_time_ns: 0,
        payload: n,
    }
}

fn publish(b: &mut Bench) {
    const OPS: u64 = 1000;
    let samples = b.scaled(2000);
    let (mut tx, _rx) = handoff::<()>(HandoffConfig::default());
    let (mut input, _output) = triple_buffer::triple_buffer(&FrameDescriptor::default());
    let slot = Mutex::new(None::<FrameDescriptor>);
    let mut n = 0u64;
    let mut m = 0u64;
    let mut k = 0u64;
    let stats = b.interleaved(
        samples,
        OPS,
        &mut [
            &mut || {
                for _ in 0..OPS {
                    n += 1;
                    let _ = black_box(tx.publish(black_box(desc(n))));
                }
            },
            &mut || {
                for _ in 0..OPS {
                    m += 1;
                    input.write(black_box(desc(m)));
                }
            },
            &mut || {
                for _ in 0..OPS {
                    k += 1;
                    let mut g = slot
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    black_box(g.replace(black_box(desc(k))));
                }
            },
        ],
    );
    b.record_stats("render_pipeline.publish.ours", &stats[0], "ns");
    b.record_stats("render_pipeline.publish.triple_buffer", &stats[1], "ns");
    b.record_stats("render_pipeline.publish.mutex", &stats[2], "ns");
    b.ratio(
        "render_pipeline.publish_vs_triple_buffer",
        stats[0].median,
        stats[1].median,
    );
    let s = tx.stats();
    assert!(
        s.is_consistent(),
        "publish bench broke the accounting: {s:?}"
    );
}

/// Records `now − desc.payload` (the producer's stamp) per frame.
struct Stamp {
    latencies: Arc<Mutex<Vec<i64>>>,
}

impl RenderStages<()> for Stamp {
    fn batch(&mut self, frame: &FrameDescriptor, _: &[()]) -> laige_core::Result<()> {
        let now = SteadyClock.now_ns();
        let sent = i64::try_from(frame.payload).unwrap_or(now);
        self.latencies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(now - sent);
        Ok(())
    }
    fn submit(&mut self, _: &FrameDescriptor, _: &[()]) -> laige_core::Result<()> {
        Ok(())
    }
}

fn latency(b: &mut Bench) {
    let frames = b.scaled(500);
    for (name, idle_spin_ns) in [("parked", 20_000), ("spinning", 5_000_000)] {
        let latencies = Arc::new(Mutex::new(Vec::with_capacity(frames)));
        let stages = Stamp {
            latencies: Arc::clone(&latencies),
        };
        let config = RenderThreadConfig {
            idle_spin_ns,
            ..RenderThreadConfig::default()
        };
        let Ok(mut rt) = RenderThread::new(config, stages) else {
            eprintln!("  render_pipeline.latency.{name}: could not spawn a thread; skipped");
            continue;
        };
        for n in 1..=frames as u64 {
            std::thread::sleep(Duration::from_millis(2));
            let stamp = u64::try_from(SteadyClock.now_ns()).unwrap_or(0);
            if rt
                .submit_frame(FrameDescriptor {
                    payload: stamp,
                    ..desc(n)
                })
                .is_err()
            {
                break;
            }
        }
        let _ = rt.wait_idle();
        let _ = rt.shutdown();
        let v = latencies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let stats = Stats::of_ns(&v);
        record_us(b, &format!("render_pipeline.latency.{name}"), &stats);
    }
}

fn record_us(b: &mut Bench, name: &str, ns: &Stats) {
    b.record(&format!("{name}.p50_us"), ns.median / 1000.0, "us");
    b.record(&format!("{name}.p99_us"), ns.p99 / 1000.0, "us");
    b.record(&format!("{name}.max_us"), ns.max / 1000.0, "us");
}

/// The calling thread's on-CPU time in ns (`/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// One pacing contender's accumulated results.
#[derive(Default)]
struct Pacing {
    lateness_ns: Vec<i64>,
    cpu_ns: u64,
    wall_ns: u64,
}

trait Pacer {
    /// Waits until `deadline_ns` on the steady clock.
    fn wait_until(&mut self, deadline_ns: i64);
}

struct ClockPacer {
    clock: FrameClock,
    n: u64,
}

impl Pacer for ClockPacer {
    fn wait_until(&mut self, _deadline_ns: i64) {
        self.n += 1;
        black_box(self.clock.wait_frame(self.n));
    }
}

struct SleepPacer;
impl Pacer for SleepPacer {
    fn wait_until(&mut self, deadline_ns: i64) {
        let now = SteadyClock.now_ns();
        if deadline_ns > now {
            std::thread::sleep(Duration::from_nanos((deadline_ns - now).unsigned_abs()));
        }
    }
}

struct SpinSleepPacer(spin_sleep::SpinSleeper);
impl Pacer for SpinSleepPacer {
    fn wait_until(&mut self, deadline_ns: i64) {
        let now = SteadyClock.now_ns();
        if deadline_ns > now {
            self.0
                .sleep(Duration::from_nanos((deadline_ns - now).unsigned_abs()));
        }
    }
}

/// Runs `frames` frames of `pacer` on a grid anchored now; the deadlines are
/// the FrameClock's own grid for the FrameClock contender.
fn segment(pacer: &mut dyn Pacer, grid: &mut dyn FnMut(u64) -> i64, frames: u64, out: &mut Pacing) {
    let cpu0 = thread_cpu_ns();
    let wall0 = Instant::now();
    for i in 1..=frames {
        let deadline = grid(i);
        pacer.wait_until(deadline);
        let now = SteadyClock.now_ns();
        out.lateness_ns.push(now - deadline);
    }
    out.wall_ns += u64::try_from(wall0.elapsed().as_nanos()).unwrap_or(u64::MAX);
    if let (Some(a), Some(b)) = (cpu0, thread_cpu_ns()) {
        out.cpu_ns += b.saturating_sub(a);
    }
}

fn pacing(b: &mut Bench, rate: u32, secs: f64) {
    let Ok(clock) = FrameClock::new(FrameClockConfig {
        frame_rate_hz: rate,
    }) else {
        return;
    };
    let period = clock.period_ns();
    let segments = 4u32;
    let per_segment = ((secs * f64::from(rate)) / f64::from(segments))
        .ceil()
        .max(1.0) as u64;
    let mut ours = ClockPacer { clock, n: 0 };
    let mut results: [Pacing; 3] = Default::default();
    for _ in 0..segments {
        // FrameClock: re-anchor, then its own grid.
        ours.clock.reanchor_now();
        ours.n = 0;
        let reference = ours.clock.reference_ns();
        let mut grid = |i: u64| reference + i64::try_from(i).unwrap_or(0) * period;
        segment(&mut ours, &mut grid, per_segment, &mut results[0]);
        // The references on an identical grid anchored at their start.
        let reference = SteadyClock.now_ns();
        let mut grid = |i: u64| reference + i64::try_from(i).unwrap_or(0) * period;
        segment(&mut SleepPacer, &mut grid, per_segment, &mut results[1]);
        let reference = SteadyClock.now_ns();
        let mut grid = |i: u64| reference + i64::try_from(i).unwrap_or(0) * period;
        segment(
            &mut SpinSleepPacer(spin_sleep::SpinSleeper::default()),
            &mut grid,
            per_segment,
            &mut results[2],
        );
    }
    let mut p99 = [0.0f64; 3];
    for (i, name) in ["frame_clock", "sleep", "spin_sleep"].iter().enumerate() {
        let r = &results[i];
        let stats = Stats::of_ns(&r.lateness_ns);
        p99[i] = stats.p99 / 1000.0;
        let base = format!("render_pipeline.pacing_{rate}hz.{name}");
        record_us(b, &base, &stats);
        let pct = if r.wall_ns > 0 {
            r.cpu_ns as f64 / r.wall_ns as f64 * 100.0
        } else {
            0.0
        };
        b.record(&format!("{base}.cpu_pct"), pct, "%");
    }
    b.record(
        &format!("render_pipeline.pacing_{rate}hz.p99_over_spin_sleep_us"),
        p99[0] - p99[2],
        "us",
    );
    b.record(
        &format!("render_pipeline.pacing_{rate}hz.frame_clock.margin_us"),
        ours.clock.margin_ns() as f64 / 1000.0,
        "us",
    );
}
