//! `event!`, `report` and the rate limiter as a caller sees them: names,
//! fields, levels, return values and counts, through a capturing subscriber.
//!
//! The rate-limit state is process-global: every test uses its own ids,
//! and every test first sets the same long window (one hour) so that
//! "within the window" can never be broken by a slow machine.

#![cfg(feature = "subscriber")]

use std::cell::Cell;
use std::fmt;
use std::time::Duration;

use laige_core::diag::{self, Color, RateStats, Severity, SubscriberConfig};
use laige_core::{Error, ErrorCode, EventId, event};

fn long_window() {
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
}

/// A `Display` value that counts how often it is formatted.
struct Counted<'a>(&'a Cell<u32>);

impl fmt::Display for Counted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.set(self.0.get() + 1);
        f.write_str("counted")
    }
}

#[test]
fn an_event_carries_its_id_level_and_fields() {
    long_window();
    const TICK_DROPPED: EventId = EventId::new("events_test_loop", "tick_dropped");
    let (dropped, total_dropped) = (8_u32, 48_u64);
    let (emitted, events) = diag::capture_events(|| {
        event!(
            Warn,
            TICK_DROPPED,
            dropped,
            total_dropped,
            max_catch_up = 2_u32,
            tick_rate_hz = 60_u32
        )
    });
    assert!(emitted);
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e.level, tracing::Level::WARN);
    assert_eq!(e.severity(), Severity::Warn);
    assert!(e.is(TICK_DROPPED));
    assert_eq!(e.target, "diag_events");
    let names: Vec<&str> = e.fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "subsystem",
            "event",
            "dropped",
            "total_dropped",
            "max_catch_up",
            "tick_rate_hz"
        ]
    );
    assert_eq!(e.field("subsystem"), Some("events_test_loop"));
    assert_eq!(e.field("event"), Some("tick_dropped"));
    assert_eq!(e.field("dropped"), Some("8"));
    assert_eq!(e.field("total_dropped"), Some("48"));
}

#[test]
fn each_severity_maps_to_its_tracing_level() {
    long_window();
    const ID: EventId = EventId::new("events_test", "levels");
    let ((), events) = diag::capture_events(|| {
        event!(Trace, ID);
        event!(Debug, ID);
        event!(Info, ID);
        event!(Warn, ID);
        event!(Error, ID);
    });
    let levels: Vec<tracing::Level> = events.iter().map(|e| e.level).collect();
    assert_eq!(
        levels,
        [
            tracing::Level::TRACE,
            tracing::Level::DEBUG,
            tracing::Level::INFO,
            tracing::Level::WARN,
            tracing::Level::ERROR,
        ]
    );
    // Five severities are five keys: each got its own first emission.
    for sev in Severity::ALL {
        assert_eq!(diag::rate_stats(ID, sev).emitted, 1, "{sev}");
    }
}

#[test]
fn display_debug_and_trailing_comma_fields_are_accepted() {
    long_window();
    const ID: EventId = EventId::new("events_test", "field_forms");
    let path = std::path::Path::new("replay.bin");
    let ((), events) = diag::capture_events(|| {
        event!(
            Info,
            ID,
            file = %path.display(),
            code = ?ErrorCode::Corrupt,
            ok = false,
            ratio = 0.5_f64,
            delta = -3_i64,
            name = "plain",
        );
    });
    assert_eq!(
        events[0].to_string(),
        "INFO subsystem=events_test event=field_forms file=replay.bin code=Corrupt ok=false \
         ratio=0.5 delta=-3 name=plain"
    );
}

#[test]
fn the_second_occurrence_in_a_window_is_suppressed_and_counted() {
    long_window();
    const ID: EventId = EventId::new("events_test", "repeat");
    let (flags, events) = diag::capture_events(|| {
        (0..10_u32)
            .map(|i| event!(Warn, ID, i))
            .collect::<Vec<bool>>()
    });
    assert_eq!(flags.iter().filter(|&&f| f).count(), 1);
    assert!(flags[0]);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].field("i"), Some("0"));
    assert_eq!(
        diag::rate_stats(ID, Severity::Warn),
        RateStats {
            emitted: 1,
            suppressed: 9,
            pending: 9
        }
    );
}

#[test]
fn callsites_of_one_key_share_its_window() {
    long_window();
    const ID: EventId = EventId::new("events_test", "shared_key");
    let ((a, b, c), events) = diag::capture_events(|| {
        let a = event!(Warn, ID, site = "a");
        let b = event!(Warn, ID, site = "b");
        // Another severity is another key.
        let c = event!(Error, ID, site = "c");
        (a, b, c)
    });
    assert!(a && !b && c);
    assert_eq!(events.len(), 2);
    assert_eq!(diag::rate_stats(ID, Severity::Warn).suppressed, 1);
    assert_eq!(diag::rate_stats(ID, Severity::Error).suppressed, 0);
}

#[test]
fn one_callsite_with_changing_ids_limits_each_id_separately() {
    long_window();
    const A: EventId = EventId::new("events_test", "alternating_a");
    const B: EventId = EventId::new("events_test", "alternating_b");
    let ((), events) = diag::capture_events(|| {
        for i in 0..6 {
            let id = if i % 2 == 0 { A } else { B };
            event!(Info, id, i);
        }
    });
    let seen: Vec<&str> = events.iter().map(|e| e.field("event").unwrap()).collect();
    assert_eq!(seen, ["alternating_a", "alternating_b"]);
    assert_eq!(diag::rate_stats(A, Severity::Info).suppressed, 2);
    assert_eq!(diag::rate_stats(B, Severity::Info).suppressed, 2);
}

#[test]
fn suppressed_fields_are_neither_evaluated_nor_formatted() {
    long_window();
    const ID: EventId = EventId::new("events_test", "lazy_fields");
    let formatted = Cell::new(0_u32);
    let evaluated = Cell::new(0_u32);
    let ((), events) = diag::capture_events(|| {
        for _ in 0..100 {
            event!(
                Warn,
                ID,
                value = %Counted(&formatted),
                n = {
                    evaluated.set(evaluated.get() + 1);
                    1_u32
                }
            );
        }
    });
    assert_eq!(events.len(), 1);
    assert_eq!(formatted.get(), 1);
    assert_eq!(evaluated.get(), 1);
}

#[test]
fn an_event_the_filter_rejects_passes_the_limiter_but_is_never_formatted() {
    long_window();
    const ID: EventId = EventId::new("events_test", "filtered_out");
    let formatted = Cell::new(0_u32);
    let cfg = SubscriberConfig {
        default_filter: "error".into(),
        env_var: None,
        timestamps: false,
        color: Color::Never,
        ..SubscriberConfig::default()
    };
    let (emitted, text) =
        diag::capture_rendered(&cfg, || event!(Warn, ID, value = %Counted(&formatted))).unwrap();
    assert!(emitted, "the limiter let it through");
    assert_eq!(text, "", "the subscriber filtered it out");
    assert_eq!(formatted.get(), 0);
    assert_eq!(diag::rate_stats(ID, Severity::Warn).emitted, 1);
}

#[test]
fn report_emits_the_errors_warn_event_with_its_context() {
    long_window();
    const TICK_RATE_INVALID: EventId = EventId::new("events_test_loop", "tick_rate_invalid");
    let err = Error::invalid_argument(TICK_RATE_INVALID, "tick_rate_hz", 7, "20..=120 Hz");
    let ((first, second), events) =
        diag::capture_events(|| (diag::report(&err), diag::report(&err)));
    assert!(first && !second);
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].to_string(),
        "WARN subsystem=events_test_loop event=tick_rate_invalid code=InvalidArgument \
         field=tick_rate_hz value=7 accepted=20..=120 Hz"
    );
    assert_eq!(events[0].target, "laige_core::diag::report");
    // report shares the key with event!(Warn, same id).
    assert!(!event!(Warn, TICK_RATE_INVALID));
    assert_eq!(
        diag::rate_stats(TICK_RATE_INVALID, Severity::Warn),
        RateStats {
            emitted: 1,
            suppressed: 2,
            pending: 2
        }
    );
}

#[test]
fn report_carries_detail_and_source_when_present() {
    long_window();
    const REPLAY_IO: EventId = EventId::new("events_test_replay", "read_failed");
    let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
    let err = Error::new(ErrorCode::Io, REPLAY_IO)
        .with_detail("reading replay.bin")
        .with_source(io);
    let (_, events) = diag::capture_events(|| diag::report(&err));
    assert_eq!(
        events[0].to_string(),
        "WARN subsystem=events_test_replay event=read_failed code=Io \
         detail=reading replay.bin source=no such file"
    );
}

#[test]
fn fail_reports_and_returns_the_error() {
    long_window();
    const CATCHUP_INVALID: EventId = EventId::new("events_test_loop", "catchup_invalid");
    fn validate(max_catch_up: u32) -> laige_core::Result<u32> {
        if max_catch_up == 0 {
            return diag::fail(Error::invalid_argument(
                CATCHUP_INVALID,
                "max_catch_up",
                max_catch_up,
                ">= 1",
            ));
        }
        Ok(max_catch_up)
    }
    let (result, events) = diag::capture_events(|| validate(0));
    let err = result.unwrap_err();
    assert_eq!(err.id(), CATCHUP_INVALID);
    assert_eq!(events.len(), 1);
    assert!(events[0].is(CATCHUP_INVALID));
    assert_eq!(events[0].field("field"), Some("max_catch_up"));
    let (ok, none) = diag::capture_events(|| validate(5));
    assert_eq!(ok.unwrap(), 5);
    assert!(none.is_empty(), "no log on the success path");
}

#[test]
fn a_rejected_rate_window_is_reported_and_leaves_the_window_alone() {
    long_window();
    let (result, events) =
        diag::capture_events(|| diag::set_rate_window(Duration::from_secs(3601)));
    let err = result.unwrap_err();
    assert_eq!(err.code(), ErrorCode::OutOfRange);
    assert_eq!(err.id(), laige_core::events::RATE_WINDOW_INVALID);
    assert_eq!(
        err.to_string(),
        "diag/rate_window_invalid: out of range: rate_window = 3601s; accepted: 0 s ..= 3600 s"
    );
    assert!(
        events
            .iter()
            .any(|e| e.is(laige_core::events::RATE_WINDOW_INVALID))
    );
    assert_eq!(diag::rate_window(), Duration::from_secs(3600));
}
