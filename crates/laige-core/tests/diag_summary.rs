//! The `rate_limited` summary: one event per suppressed key with its count,
//! each suppressed occurrence reported exactly once. One test (the summary
//! reads every key in the process, so it owns this binary).

#![cfg(feature = "subscriber")]

use std::time::Duration;

use laige_core::diag::{self, Color, LogFormat, Severity, SubscriberConfig, SuppressedKey};
use laige_core::{Error, EventId, event};

const TICK_DROPPED: EventId = EventId::new("loop", "tick_dropped");
const FRAME_DROPPED: EventId = EventId::new("render_thread", "frame_dropped");
const TICK_RATE_INVALID: EventId = EventId::new("loop", "tick_rate_invalid");
const QUIET: EventId = EventId::new("loop", "quiet");

#[test]
fn the_summary_reports_each_suppressed_occurrence_once() {
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
    // A sustained overload: 48 dropped-tick frames, 5 dropped frames, 3
    // rejected configs, a Warn and an Error of one id, one lone event.
    for dropped in 0..48_u32 {
        event!(Warn, TICK_DROPPED, dropped);
    }
    for seq in 0..5_u64 {
        event!(Warn, FRAME_DROPPED, seq);
    }
    event!(Error, FRAME_DROPPED, seq = 99_u64);
    event!(Error, FRAME_DROPPED, seq = 100_u64);
    let err = Error::invalid_argument(TICK_RATE_INVALID, "tick_rate_hz", 7, "20..=120 Hz");
    for _ in 0..3 {
        diag::report(&err);
    }
    event!(Info, QUIET);

    let cfg = SubscriberConfig {
        default_filter: "trace".into(),
        env_var: None,
        format: LogFormat::Compact,
        color: Color::Never,
        timestamps: false,
        targets: false,
    };
    let (summary, text) = diag::capture_rendered(&cfg, diag::emit_rate_limited_summary).unwrap();
    assert_eq!(
        summary,
        [
            SuppressedKey {
                id: TICK_DROPPED,
                severity: Severity::Warn,
                suppressed: 47
            },
            SuppressedKey {
                id: TICK_RATE_INVALID,
                severity: Severity::Warn,
                suppressed: 2
            },
            SuppressedKey {
                id: FRAME_DROPPED,
                severity: Severity::Warn,
                suppressed: 4
            },
            SuppressedKey {
                id: FRAME_DROPPED,
                severity: Severity::Error,
                suppressed: 1
            },
        ]
    );
    insta::assert_snapshot!("summary_lines", text);

    // Reported once: nothing new, nothing emitted.
    let (again, text) = diag::capture_rendered(&cfg, diag::emit_rate_limited_summary).unwrap();
    assert!(again.is_empty());
    assert_eq!(text, "");
    // Totals survive; pending is consumed.
    let stats = diag::rate_stats(TICK_DROPPED, Severity::Warn);
    assert_eq!((stats.emitted, stats.suppressed, stats.pending), (1, 47, 0));

    // New suppressions after a summary are reported by the next one.
    event!(Warn, TICK_DROPPED, dropped = 1_u32);
    event!(Warn, TICK_DROPPED, dropped = 2_u32);
    let ((), events) = diag::capture_events(|| {
        let next = diag::emit_rate_limited_summary();
        assert_eq!(
            next,
            [SuppressedKey {
                id: TICK_DROPPED,
                severity: Severity::Warn,
                suppressed: 2
            }]
        );
    });
    assert_eq!(events.len(), 1);
    assert!(events[0].is(laige_core::events::RATE_LIMITED));
    assert_eq!(events[0].level, tracing::Level::WARN);
    assert_eq!(events[0].field("key"), Some("loop/tick_dropped"));
    assert_eq!(events[0].field("severity"), Some("warn"));
    assert_eq!(events[0].field("suppressed"), Some("2"));
}
