//! The event lines a person reads, as the default subscriber renders them
//! (compact human format and JSON lines), pinned with insta snapshots.
//! Timestamps and colours are off so the text is deterministic.

#![cfg(feature = "subscriber")]

use std::time::Duration;

use laige_core::diag::{self, Color, LogFormat, SubscriberConfig};
use laige_core::{Error, EventId, event};

fn config(format: LogFormat) -> SubscriberConfig {
    SubscriberConfig {
        default_filter: "trace".into(),
        env_var: None,
        format,
        color: Color::Never,
        timestamps: false,
        targets: true,
    }
}

fn long_window() {
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
}

/// The spec's events: a dropped tick, a dropped frame, a rejected config
/// value, a lifecycle line, a tick that allocated.
fn emit_spec_events(tag: &'static str) {
    let tick_dropped = EventId::new(tag, "tick_dropped");
    let frame_dropped = EventId::new(tag, "frame_dropped");
    let tick_rate_invalid = EventId::new(tag, "tick_rate_invalid");
    let thread_started = EventId::new(tag, "thread_started");
    let sim_tick_allocation = EventId::new(tag, "sim_tick_allocation");
    event!(
        Warn,
        tick_dropped,
        dropped = 8_u32,
        total_dropped = 8_u64,
        max_catch_up = 2_u32,
        tick_rate_hz = 60_u32
    );
    // Suppressed: same key, same window.
    event!(Warn, tick_dropped, dropped = 16_u32, total_dropped = 24_u64);
    event!(
        Warn,
        frame_dropped,
        frame_seq = 1042_u64,
        frames_dropped = 3_u64
    );
    diag::report(&Error::invalid_argument(
        tick_rate_invalid,
        "tick_rate_hz",
        7,
        "20..=120 Hz",
    ));
    event!(Info, thread_started, thread = "laige-render");
    event!(
        Error,
        sim_tick_allocation,
        tick = 1200_u64,
        allocs = 1_u64,
        site = "scratch_system"
    );
}

#[test]
fn compact_lines() {
    long_window();
    let ((), text) = diag::capture_rendered(&config(LogFormat::Compact), || {
        emit_spec_events("snap_compact")
    })
    .unwrap();
    insta::assert_snapshot!(text);
}

#[test]
fn compact_lines_without_targets() {
    long_window();
    let cfg = SubscriberConfig {
        targets: false,
        ..config(LogFormat::Compact)
    };
    let ((), text) = diag::capture_rendered(&cfg, || emit_spec_events("snap_no_target")).unwrap();
    insta::assert_snapshot!(text);
}

#[test]
fn json_lines() {
    long_window();
    let ((), text) =
        diag::capture_rendered(&config(LogFormat::Json), || emit_spec_events("snap_json")).unwrap();
    // Every line is one JSON object with the id as top-level fields.
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["subsystem"] == "snap_json", "{line}");
        assert!(v["event"].is_string(), "{line}");
        assert!(v["level"].is_string(), "{line}");
    }
    insta::assert_snapshot!(text);
}

#[test]
fn the_filter_selects_by_level_and_target() {
    long_window();
    let cfg = SubscriberConfig {
        default_filter: "warn,diag_snapshots=error".into(),
        ..config(LogFormat::Compact)
    };
    let ((), text) = diag::capture_rendered(&cfg, || emit_spec_events("snap_filtered")).unwrap();
    // Only the Error event from this module and the report (another target,
    // Warn) survive.
    insta::assert_snapshot!(text);
}
