//! Bench area `diag`: the cost of the diagnostics' hot checks and of the
//! allocation watch.
//!
//! - `diag.event_suppressed`: one `event!` occurrence the rate limiter
//!   suppresses (the check every repeat of a degradation pays).
//! - `diag.event_filtered_out`: one occurrence the limiter lets through
//!   (zero window) but the subscriber's filter rejects: the check plus
//!   `tracing`'s level/interest test; fields are never formatted.
//! - `diag.event_emitted_compact`: one occurrence emitted and formatted into
//!   a memory buffer by the default compact subscriber (informational: the
//!   cold path's cost, with no I/O).
//! - `diag.alloc_watch.window_unarmed` / `window_armed`: allocation-free
//!   work (summing 64 integers) alone, and inside `count_allocs`; the
//!   difference is `window_overhead`.
//! - `diag.alloc_watch.alloc_system` / `alloc_counting_unarmed` /
//!   `alloc_counting_armed`: one 64-byte `alloc` + `dealloc` pair through
//!   `System` and through a `CountingAlloc` (called directly, so the bench
//!   binary keeps `System` as its global allocator); the differences are
//!   per-pair overheads (two allocator calls each).

#![allow(
    unsafe_code,
    reason = "calling GlobalAlloc::alloc/dealloc directly is the only stable way to time one \
              allocator call against another"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::time::Duration;

use laige_core::EventId;
use laige_core::alloc_watch::{self, CountingAlloc};
use laige_core::diag::{self, Color, SubscriberConfig};

use crate::harness::Bench;

const SUPPRESSED: EventId = EventId::new("bench", "suppressed");
const FILTERED: EventId = EventId::new("bench", "filtered_out");
const EMITTED: EventId = EventId::new("bench", "emitted");

/// Runs the area.
pub fn run(b: &mut Bench) {
    events(b);
    window(b);
    allocator(b);
}

fn quiet_config(filter: &'static str) -> SubscriberConfig {
    SubscriberConfig {
        default_filter: filter.into(),
        env_var: None,
        color: Color::Never,
        timestamps: false,
        ..SubscriberConfig::default()
    }
}

fn events(b: &mut Bench) {
    const OPS: u64 = 10_000;
    let samples = b.scaled(300);
    let previous = diag::rate_window();

    // Suppressed: the key emitted once (to a subscriber that shows nothing)
    // and the window is longer than the run.
    diag::set_rate_window(Duration::from_secs(3600)).expect("window in range");
    let (stats, _) = diag::capture_rendered(&quiet_config("off"), || {
        laige_core::event!(Warn, SUPPRESSED);
        b.measure(samples, OPS, || {
            let mut emitted = 0_u32;
            for i in 0..OPS {
                emitted += u32::from(laige_core::event!(Warn, SUPPRESSED, i = black_box(i)));
            }
            emitted
        })
    })
    .expect("valid filter");
    b.record_stats("diag.event_suppressed", &stats, "ns");

    // Filtered out: zero window (every occurrence passes the limiter), a
    // subscriber that only shows errors.
    diag::set_rate_window(Duration::ZERO).expect("window in range");
    let (stats, text) = diag::capture_rendered(&quiet_config("error"), || {
        b.measure(samples, OPS, || {
            let mut emitted = 0_u32;
            for i in 0..OPS {
                emitted += u32::from(laige_core::event!(Warn, FILTERED, i = black_box(i)));
            }
            emitted
        })
    })
    .expect("valid filter");
    debug_assert!(text.is_empty());
    b.record_stats("diag.event_filtered_out", &stats, "ns");

    // Emitted and formatted (compact, into memory).
    let emit_ops = 1_000;
    let (stats, _) = diag::capture_rendered(&quiet_config("warn"), || {
        b.measure(b.scaled(50), emit_ops, || {
            for i in 0..emit_ops {
                laige_core::event!(
                    Warn,
                    EMITTED,
                    dropped = black_box(i),
                    total_dropped = 48_u64
                );
            }
        })
    })
    .expect("valid filter");
    b.record_stats("diag.event_emitted_compact", &stats, "ns");

    diag::set_rate_window(previous).expect("window in range");
}

fn window(b: &mut Bench) {
    const OPS: u64 = 10_000;
    let samples = b.scaled(300);
    let data: Vec<u32> = (0..64).collect();
    let work = |data: &[u32]| {
        black_box(data)
            .iter()
            .copied()
            .fold(0_u32, u32::wrapping_add)
    };
    let mut unarmed = || {
        let mut acc = 0_u32;
        for _ in 0..OPS {
            acc = acc.wrapping_add(work(&data));
        }
        acc
    };
    let mut armed = || {
        let mut acc = 0_u32;
        for _ in 0..OPS {
            let (sum, counts) = alloc_watch::count_allocs(|| work(&data));
            acc = acc.wrapping_add(sum).wrapping_add(counts.allocs as u32);
        }
        acc
    };
    let stats = b.interleaved(samples, OPS, &mut [&mut unarmed, &mut armed]);
    b.record_stats("diag.alloc_watch.window_unarmed", &stats[0], "ns");
    b.record_stats("diag.alloc_watch.window_armed", &stats[1], "ns");
    b.record(
        "diag.alloc_watch.window_overhead",
        stats[1].median - stats[0].median,
        "ns",
    );
}

fn allocator(b: &mut Bench) {
    const OPS: u64 = 10_000;
    let samples = b.scaled(300);
    let layout = Layout::from_size_align(64, 8).expect("valid layout");
    let counting = CountingAlloc::new();

    fn pairs(a: &impl GlobalAlloc, layout: Layout) -> usize {
        let mut acc = 0_usize;
        for _ in 0..OPS {
            // SAFETY: `layout` has non-zero size; the pointer is checked for
            // null and freed with the same allocator and layout right away.
            unsafe {
                let p = a.alloc(layout);
                if !p.is_null() {
                    acc = acc.wrapping_add(black_box(p) as usize);
                    a.dealloc(p, layout);
                }
            }
        }
        acc
    }

    let mut system = || pairs(&System, layout);
    let mut unarmed = || pairs(&counting, layout);
    let mut armed = || {
        alloc_watch::arm();
        let acc = pairs(&counting, layout);
        black_box(alloc_watch::disarm());
        acc
    };
    let stats = b.interleaved(samples, OPS, &mut [&mut system, &mut unarmed, &mut armed]);
    b.record_stats("diag.alloc_watch.alloc_system", &stats[0], "ns");
    b.record_stats("diag.alloc_watch.alloc_counting_unarmed", &stats[1], "ns");
    b.record_stats("diag.alloc_watch.alloc_counting_armed", &stats[2], "ns");
    b.record(
        "diag.alloc_watch.alloc_overhead_unarmed",
        stats[1].median - stats[0].median,
        "ns",
    );
    b.record(
        "diag.alloc_watch.alloc_overhead_armed",
        stats[2].median - stats[0].median,
        "ns",
    );
}
