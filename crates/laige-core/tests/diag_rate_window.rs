//! The window's length: a key emits again once a full window has passed,
//! and a zero window disables limiting. One test (it changes the global
//! window), using sleeps only as lower bounds — never timing assertions.

use std::time::Duration;

use laige_core::diag::{self, Severity};
use laige_core::{EventId, event};

#[test]
fn a_key_emits_again_after_a_full_window() {
    assert_eq!(diag::rate_window(), diag::DEFAULT_RATE_WINDOW);
    assert_eq!(diag::DEFAULT_RATE_WINDOW, Duration::from_secs(1));

    const ID: EventId = EventId::new("window_test", "spike");
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
    assert!(event!(Warn, ID));
    assert!(!event!(Warn, ID));

    // A short window; after sleeping the window plus two ticks of the time
    // base (a coarse clock), the next occurrence must be emitted.
    let window = Duration::from_millis(30);
    let tick = Duration::from_nanos(diag::time_resolution_ns().unsigned_abs());
    diag::set_rate_window(window).unwrap();
    std::thread::sleep(window + 2 * tick);
    assert!(event!(Warn, ID));
    std::thread::sleep(window + 2 * tick);
    assert!(event!(Warn, ID));

    // Zero: every occurrence.
    diag::set_rate_window(Duration::ZERO).unwrap();
    assert!(event!(Warn, ID));
    assert!(event!(Warn, ID));
    assert_eq!(
        diag::rate_stats(ID, Severity::Warn),
        diag::RateStats {
            emitted: 5,
            suppressed: 1,
            pending: 1
        }
    );

    // The longest accepted window, and one nanosecond more.
    diag::set_rate_window(diag::MAX_RATE_WINDOW).unwrap();
    assert!(diag::set_rate_window(diag::MAX_RATE_WINDOW + Duration::from_nanos(1)).is_err());
    assert_eq!(diag::rate_window(), diag::MAX_RATE_WINDOW);
}
