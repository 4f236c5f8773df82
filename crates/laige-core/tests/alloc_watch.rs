//! The allocation watch with `CountingAlloc` installed: both directions
//! (allocation-free code reads zero; a deliberate allocation is caught and
//! attributed), the attribution rule (the diagnostics' own allocations are
//! not charged), per-thread windows, nesting and labels.

#![cfg(feature = "subscriber")]

use std::hint::black_box;
use std::time::Duration;

use laige_core::alloc_watch::{self, AllocCounts, CountingAlloc};
use laige_core::diag::{self, Color, SubscriberConfig};
use laige_core::{Error, EventId, event};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn long_window() {
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
}

#[test]
fn the_counting_allocator_is_installed() {
    assert!(alloc_watch::is_installed());
    // The probe leaves an enclosing window untouched.
    alloc_watch::arm();
    assert!(alloc_watch::is_installed());
    assert_eq!(alloc_watch::disarm(), AllocCounts::default());
}

#[test]
fn allocation_free_work_reads_zero() {
    let data: Vec<u64> = (0..1024).collect();
    let mut scratch = Vec::with_capacity(1024);
    let (sum, counts) = alloc_watch::count_allocs(|| {
        let _l = alloc_watch::label("sum_system");
        scratch.clear();
        scratch.extend(data.iter().map(|x| x * 3)); // within capacity
        black_box(&scratch).iter().sum::<u64>()
    });
    assert_eq!(sum, 3 * 1023 * 1024 / 2);
    assert_eq!(counts, AllocCounts::default());
    assert!(counts.is_empty());
}

#[test]
fn a_vec_push_is_caught_and_attributed_to_the_running_label() {
    let (v, counts) = alloc_watch::count_allocs(|| {
        let _system = alloc_watch::label("scratch_system");
        let mut v: Vec<u32> = black_box(Vec::new());
        v.push(black_box(7));
        v
    });
    assert_eq!(counts.allocs, 1);
    assert_eq!(counts.reallocs, 0);
    assert_eq!(counts.allocations(), 1);
    assert!(counts.bytes >= 4, "{counts:?}");
    assert_eq!(counts.first_label, Some("scratch_system"));
    drop(v);
}

#[test]
fn reallocations_deallocations_and_bytes_are_counted_exactly() {
    let (_, counts) = alloc_watch::count_allocs(|| {
        let mut v: Vec<u8> = Vec::with_capacity(100);
        v.extend_from_slice(&[1; 100]);
        v.reserve_exact(156); // grows to 256: one realloc
        v.push(black_box(2));
        drop(black_box(v));
    });
    assert_eq!(
        counts,
        AllocCounts {
            allocs: 1,
            reallocs: 1,
            deallocs: 1,
            bytes: 100 + 256,
            first_label: None,
        }
    );
}

#[test]
fn the_first_allocation_names_the_offending_site_and_labels_restore() {
    let (_, counts) = alloc_watch::count_allocs(|| {
        let _frame = alloc_watch::label("frame");
        let quiet = alloc_watch::label("physics");
        black_box(1 + 1);
        drop(quiet);
        let _ai = alloc_watch::label("ai");
        let first = black_box(Box::new(1_u64));
        {
            let _render = alloc_watch::label("render_prep");
            drop(black_box(Box::new(2_u64)));
        }
        assert_eq!(alloc_watch::current_label(), Some("ai"));
        drop(first);
    });
    assert_eq!(counts.allocs, 2);
    assert_eq!(counts.first_label, Some("ai"));
    assert_eq!(alloc_watch::current_label(), None);
}

#[test]
fn an_event_emitted_inside_a_window_is_not_charged() {
    long_window();
    const SPIKE: EventId = EventId::new("alloc_test", "spike");
    let cfg = SubscriberConfig {
        default_filter: "trace".into(),
        env_var: None,
        color: Color::Never,
        timestamps: false,
        ..SubscriberConfig::default()
    };
    let ((emitted, counts), text) = diag::capture_rendered(&cfg, || {
        alloc_watch::count_allocs(|| {
            let name = "a field the formatter copies";
            // First emission: registers the key, formats, writes the line.
            event!(Warn, SPIKE, name, n = 1_u32)
        })
    })
    .unwrap();
    assert!(emitted);
    assert!(text.contains("event=spike"), "{text}");
    assert_eq!(counts, AllocCounts::default());
}

#[test]
fn report_and_the_summary_inside_a_window_are_not_charged() {
    long_window();
    const BAD: EventId = EventId::new("alloc_test", "config_invalid");
    let err = Error::invalid_argument(BAD, "max_catch_up", 0, ">= 1");
    let ((), events) = diag::capture_events(|| {
        let (_, counts) = alloc_watch::count_allocs(|| {
            diag::report(&err);
            diag::report(&err);
            let summary = diag::emit_rate_limited_summary();
            // The summary's own list is dropped outside the suspension: the
            // one deallocation the caller sees.
            drop(summary);
        });
        assert_eq!(counts.allocations(), 0, "{counts:?}");
    });
    assert!(events.iter().any(|e| e.is(BAD)));
    assert!(
        events
            .iter()
            .any(|e| e.is(laige_core::events::RATE_LIMITED))
    );
}

#[test]
fn the_suppressed_check_allocates_nothing() {
    long_window();
    const HOT: EventId = EventId::new("alloc_test", "hot");
    event!(Warn, HOT); // registers the key and uses up the window
    let (_, counts) = alloc_watch::count_allocs(|| {
        for i in 0..1000_u32 {
            event!(Warn, HOT, i);
        }
    });
    assert_eq!(counts, AllocCounts::default());
}

#[test]
fn suspended_work_is_not_charged_but_the_rest_is() {
    alloc_watch::arm();
    {
        let _s = alloc_watch::suspend();
        drop(black_box(vec![0_u8; 64]));
    }
    drop(black_box(vec![0_u8; 8]));
    let counts = alloc_watch::disarm();
    assert_eq!((counts.allocs, counts.deallocs, counts.bytes), (1, 1, 8));
}

#[test]
fn windows_are_per_thread() {
    alloc_watch::arm();
    let other = std::thread::spawn(|| {
        // Not armed on this thread: nothing counted here.
        drop(black_box(vec![0_u8; 32]));
        alloc_watch::read()
    })
    .join()
    .unwrap();
    let here = alloc_watch::disarm();
    assert_eq!(other, AllocCounts::default());
    // Spawning and joining the thread allocates on this thread; the other
    // thread's vec is not among it (exactly 32 bytes would be).
    assert!(here.allocations() >= 1);
}

#[test]
fn nested_windows_add_up_in_the_enclosing_one() {
    let (_, outer) = alloc_watch::count_allocs(|| {
        drop(black_box(Box::new(1_u8)));
        let (_, inner) = alloc_watch::count_allocs(|| {
            let _l = alloc_watch::label("inner");
            drop(black_box(Box::new(2_u16)));
        });
        assert_eq!(inner.allocs, 1);
        assert_eq!(inner.first_label, Some("inner"));
    });
    assert_eq!(outer.allocs, 2);
    assert_eq!(outer.deallocs, 2);
    // The outer window's first allocation happened before the label.
    assert_eq!(outer.first_label, None);
}
