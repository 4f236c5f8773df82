//! FrameClock deadline arithmetic and the late-frame contract, on a
//! SyntheticClock (no timing assertions: the pacing accuracy is measured by
//! `cargo xtask bench`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use laige_core::ErrorCode;
use laige_core::clock::SyntheticClock;
use laige_render::frame_clock::{DEFAULT_FRAME_RATE_HZ, MAX_FRAME_RATE_HZ, MIN_FRAME_RATE_HZ};
use laige_render::{FrameClock, FrameClockConfig};

fn clock_at(rate: u32, start: i64) -> (FrameClock<SyntheticClock>, SyntheticClock) {
    let c = SyntheticClock::new(start);
    let fc = FrameClock::with_clock(
        FrameClockConfig {
            frame_rate_hz: rate,
        },
        c.clone(),
    )
    .expect("valid rate");
    (fc, c)
}

#[test]
fn default_rate_is_60_hz() {
    assert_eq!(FrameClockConfig::default().frame_rate_hz, 60);
    assert_eq!(DEFAULT_FRAME_RATE_HZ, 60);
    let (fc, _) = clock_at(FrameClockConfig::default().frame_rate_hz, 0);
    assert_eq!(fc.period_ns(), 16_666_666);
}

#[test]
fn grid_is_exact_integer_arithmetic() {
    let (fc, _) = clock_at(60, 123_456);
    assert_eq!(fc.reference_ns(), 123_456);
    assert_eq!(fc.frame_rate_hz(), 60);
    assert_eq!(fc.deadline_ns(0), 123_456);
    // Frame n's deadline is the first ns of its interval: ⌈n × 10⁹ / 60⌉.
    assert_eq!(fc.deadline_ns(1), 123_456 + 16_666_667);
    assert_eq!(fc.deadline_ns(2), 123_456 + 33_333_334);
    assert_eq!(fc.deadline_ns(3), 123_456 + 50_000_000);
    // No drift: frame 60·k is exactly k seconds from the reference.
    assert_eq!(fc.deadline_ns(60), 123_456 + 1_000_000_000);
    assert_eq!(fc.deadline_ns(3_600_000), 123_456 + 60_000_000_000_000);
    for n in [1u64, 2, 59, 60, 61, 1_000_003] {
        let step = fc.deadline_ns(n + 1) - fc.deadline_ns(n);
        // Each step is the nominal period or one ns more.
        assert!((0..=1).contains(&(step - fc.period_ns())), "n {n}");
        // The deadline is the first reading of frame n's interval.
        assert_eq!(fc.frame_at(fc.deadline_ns(n)), n);
        assert_eq!(fc.frame_at(fc.deadline_ns(n) - 1), n - 1);
        assert_eq!(fc.deadline_ns(n) - fc.reference_ns(), fc.grid().start_ns(n));
    }
    let (fc, _) = clock_at(144, -1_000);
    assert_eq!(fc.period_ns(), 1_000_000_000 / 144);
    // ⌈7 × 10⁹ / 144⌉ = 48_611_112.
    assert_eq!(fc.deadline_ns(7), -1_000 + 48_611_112);
    assert_eq!(fc.frame_at(-5_000), 0);
}

#[test]
fn bounds_1_and_1000_hz_are_accepted() {
    let (fc, _) = clock_at(MIN_FRAME_RATE_HZ, 0);
    assert_eq!((fc.frame_rate_hz(), fc.period_ns()), (1, 1_000_000_000));
    let (fc, _) = clock_at(MAX_FRAME_RATE_HZ, 0);
    assert_eq!((fc.frame_rate_hz(), fc.period_ns()), (1000, 1_000_000));
}

#[test]
fn invalid_rates_are_invalid_argument_naming_field_and_value() {
    for bad in [0u32, 1001, u32::MAX] {
        let err = FrameClock::with_clock(
            FrameClockConfig { frame_rate_hz: bad },
            SyntheticClock::new(0),
        )
        .expect_err("rejected");
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert_eq!(err.id(), laige_render::FRAME_RATE_INVALID);
        assert_eq!(err.field(), Some("frame_rate_hz"));
        assert_eq!(err.value(), Some(bad.to_string().as_str()));
        assert_eq!(err.accepted(), Some("1..=1000 Hz"));
    }
    let err = FrameClock::new(FrameClockConfig { frame_rate_hz: 0 }).expect_err("rejected");
    insta::assert_snapshot!(
        err.to_string(),
        @"render_thread/frame_rate_invalid: invalid argument: frame_rate_hz = 0; accepted: 1..=1000 Hz"
    );
}

#[test]
fn deadlines_clamp_to_i64_max_instead_of_overflowing() {
    let (fc, _) = clock_at(1, i64::MAX - 10);
    assert_eq!(fc.deadline_ns(0), i64::MAX - 10);
    assert_eq!(fc.deadline_ns(1), i64::MAX);
    assert_eq!(fc.deadline_ns(u64::MAX), i64::MAX);
    let (fc, _) = clock_at(1000, 0);
    // 2^63 ns / 1 ms = 9_223_372_036_854 frames: the last one that fits.
    let last = 9_223_372_036_854u64;
    assert_eq!(
        fc.deadline_ns(last),
        i64::try_from(last).unwrap_or(0) * 1_000_000
    );
    assert_eq!(fc.deadline_ns(last + 1), i64::MAX);
}

#[test]
fn late_frame_returns_the_real_reading() {
    let (mut fc, clock) = clock_at(60, 1_000);
    clock.set_ns(fc.deadline_ns(5) + 1_234);
    assert_eq!(fc.wait_frame(5), fc.deadline_ns(5) + 1_234);
    assert_eq!(fc.wait_frame(1), fc.deadline_ns(5) + 1_234);
    // Exactly on the deadline: the deadline (which is also the reading).
    clock.set_ns(fc.deadline_ns(6));
    assert_eq!(fc.wait_frame(6), fc.deadline_ns(6));
}

#[test]
fn on_time_frame_waits_for_the_clock_and_returns_the_deadline() {
    let (mut fc, clock) = clock_at(1000, 0);
    let target = fc.deadline_ns(2);
    let done = Arc::new(AtomicBool::new(false));
    let d = Arc::clone(&done);
    let advancer = std::thread::spawn(move || {
        while !d.load(Ordering::Acquire) {
            clock.advance_ns(50_000);
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    });
    let presented = fc.wait_frame(2);
    done.store(true, Ordering::Release);
    advancer.join().expect("advancer");
    assert_eq!(presented, target);
    assert!(fc.now_ns() >= target);
}

#[test]
fn reanchor_moves_the_grid() {
    let (mut fc, clock) = clock_at(100, 0);
    fc.reanchor(5_000_000);
    assert_eq!(fc.reference_ns(), 5_000_000);
    assert_eq!(fc.deadline_ns(1), 15_000_000);
    clock.set_ns(77);
    fc.reanchor_now();
    assert_eq!(fc.deadline_ns(2), 77 + 20_000_000);
}
