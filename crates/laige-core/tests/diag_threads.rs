//! The limiter under contention: two threads (both cores of the CI
//! machine) hammer the same keys; every occurrence is counted exactly once
//! as emitted or suppressed, and every emitted one reaches the subscriber.

#![cfg(feature = "subscriber")]

use std::sync::Barrier;
use std::time::Duration;

use laige_core::diag::{self, Severity};
use laige_core::{EventId, event};

const PER_THREAD: u64 = 200_000;

/// Runs `PER_THREAD` occurrences of `id` on each of two threads, each with
/// its own capturing subscriber; returns (emitted flags, captured events)
/// summed over both threads.
fn hammer(id: EventId) -> (u64, u64) {
    let barrier = Barrier::new(2);
    let totals: Vec<(u64, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2_u64)
            .map(|thread| {
                let barrier = &barrier;
                s.spawn(move || {
                    let (flagged, events) = diag::capture_events(|| {
                        barrier.wait();
                        let mut flagged = 0_u64;
                        for i in 0..PER_THREAD {
                            if event!(Warn, id, thread, i) {
                                flagged += 1;
                            }
                        }
                        flagged
                    });
                    let captured = events.iter().filter(|e| e.is(id)).count() as u64;
                    (flagged, captured)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    totals
        .iter()
        .fold((0, 0), |(f, c), &(tf, tc)| (f + tf, c + tc))
}

#[test]
fn two_threads_on_one_key_within_one_window() {
    let _serial = WINDOW_LOCK.lock().unwrap();
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
    const ID: EventId = EventId::new("threads_test", "one_window");
    let (flagged, captured) = hammer(ID);
    let stats = diag::rate_stats(ID, Severity::Warn);
    assert_eq!(stats.emitted + stats.suppressed, 2 * PER_THREAD);
    assert_eq!(stats.emitted, 1, "one window, one event");
    assert_eq!(flagged, stats.emitted);
    assert_eq!(captured, stats.emitted);
}

#[test]
fn two_threads_on_one_key_with_every_occurrence_emitted() {
    // Window 0 disables limiting: every occurrence is emitted and captured.
    // (This binary's tests run in one process; the window is global, so
    // the tests here serialise on it.)
    let _serial = WINDOW_LOCK.lock().unwrap();
    diag::set_rate_window(Duration::ZERO).unwrap();
    const ID: EventId = EventId::new("threads_test", "no_window");
    let (flagged, captured) = hammer(ID);
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
    let stats = diag::rate_stats(ID, Severity::Warn);
    assert_eq!(stats.emitted, 2 * PER_THREAD);
    assert_eq!(stats.suppressed, 0);
    assert_eq!(flagged, 2 * PER_THREAD);
    assert_eq!(captured, 2 * PER_THREAD);
}

#[test]
fn two_threads_on_one_key_across_many_short_windows() {
    let _serial = WINDOW_LOCK.lock().unwrap();
    // The shortest window the time base resolves: windows open and close
    // while the threads race.
    let res = Duration::from_nanos(diag::time_resolution_ns().unsigned_abs());
    diag::set_rate_window(res).unwrap();
    const ID: EventId = EventId::new("threads_test", "short_windows");
    let (flagged, captured) = hammer(ID);
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
    let stats = diag::rate_stats(ID, Severity::Warn);
    assert_eq!(stats.emitted + stats.suppressed, 2 * PER_THREAD);
    assert!(stats.emitted >= 1);
    assert_eq!(flagged, stats.emitted);
    assert_eq!(captured, stats.emitted);
}

static WINDOW_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
