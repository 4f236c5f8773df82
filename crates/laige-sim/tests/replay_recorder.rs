//! The recorder: ticks in order or nothing is written, a failed write
//! stops it and leaves a readable prefix, oversized input is refused, and
//! steady-state recording allocates nothing (this binary installs the
//! counting allocator).

use std::io::{self, Write};

use laige_core::alloc_watch::{self, CountingAlloc};
use laige_core::{ErrorCode, MathBackend};
use laige_sim::events;
use laige_sim::replay::{MAX_PAYLOAD_BYTES, Replay, ReplayHeader, ReplayRecorder};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn header() -> ReplayHeader {
    ReplayHeader::new(MathBackend::FixedPoint16_16, 5, 6)
}

#[test]
fn ticks_out_of_order_are_refused_and_nothing_is_written() {
    let mut rec = ReplayRecorder::new(Vec::new(), header()).unwrap();
    let before = rec.get_ref().len();
    let e = rec.record_input_bytes(1, b"x").unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(e.id(), events::TICK_OUT_OF_ORDER);
    assert_eq!(e.field(), Some("tick"));
    assert_eq!(e.value(), Some("1"));
    let e = rec.record_hash(3, 0).unwrap_err();
    assert_eq!(e.field(), Some("completed"));
    rec.record_hash(0, 1).unwrap();
    let e = rec.record_hash(0, 1).unwrap_err();
    assert_eq!(e.id(), events::TICK_OUT_OF_ORDER, "one hash per tick");
    assert!(!rec.wants_hash(0));
    assert_eq!(rec.get_ref().len(), before + 25);
    rec.record_input_bytes(0, b"x").unwrap();
    assert_eq!(rec.next_tick(), 1);
    assert!(rec.wants_hash(1));
    assert!(!rec.wants_hash(2));
    let r = Replay::parse(&rec.finish().unwrap()).unwrap();
    assert_eq!(r.ticks(), 1);
}

#[test]
fn the_hash_interval_decides_which_ticks_want_a_hash() {
    let mut h = header();
    h.hash_interval = 3;
    let mut rec = ReplayRecorder::new(io::sink(), h).unwrap();
    let mut wanted = Vec::new();
    for t in 0..10 {
        if rec.wants_hash(t) {
            wanted.push(t);
            rec.record_hash(t, t).unwrap();
        }
        rec.record_input_bytes(t, &[]).unwrap();
    }
    assert_eq!(wanted, vec![0, 3, 6, 9]);
}

#[test]
fn oversized_input_is_refused() {
    let mut rec = ReplayRecorder::new(io::sink(), header()).unwrap();
    let big = vec![0_u8; MAX_PAYLOAD_BYTES as usize + 1];
    let e = rec.record_input_bytes(0, &big).unwrap_err();
    assert_eq!(e.id(), events::INPUT_TOO_LARGE);
    assert_eq!(rec.next_tick(), 0);
    rec.record_input(0, &vec![0_u8; MAX_PAYLOAD_BYTES as usize])
        .unwrap();
}

#[test]
fn a_bad_header_is_refused() {
    let mut h = header();
    h.hash_interval = 0;
    let e = ReplayRecorder::new(Vec::new(), h).unwrap_err();
    assert_eq!(e.id(), events::HEADER_INVALID);
    assert_eq!(e.field(), Some("hash_interval"));
    let dir = std::env::temp_dir().join("laige-no-such-dir-for-replays/x/y");
    let e = ReplayRecorder::create(dir.join("r.lrp"), header()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(e.id(), events::IO_FAILED);
}

/// A sink that accepts `budget` bytes, then fails every write.
struct Failing {
    data: Vec<u8>,
    budget: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.data.len() + buf.len() > self.budget {
            let room = self.budget - self.data.len();
            if room == 0 {
                return Err(io::Error::other("disk full"));
            }
            self.data.extend_from_slice(&buf[..room]);
            return Ok(room);
        }
        self.data.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_write_stops_the_recorder_and_leaves_a_readable_prefix() {
    let mut rec = ReplayRecorder::new(
        Failing {
            data: Vec::new(),
            budget: 120,
        },
        header(),
    )
    .unwrap();
    let mut failed_at = None;
    for t in 0..20 {
        if let Err(e) = rec.record_input_bytes(t, b"abcd") {
            assert_eq!(e.code(), ErrorCode::Io);
            assert_eq!(e.id(), events::IO_FAILED);
            assert!(e.to_string().contains("disk full"), "{e}");
            failed_at = Some(t);
            break;
        }
    }
    let t = failed_at.expect("the sink fills up");
    let e = rec.record_input_bytes(t, b"abcd").unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidState);
    assert_eq!(e.id(), events::RECORDER_STOPPED);
    assert!(rec.record_hash(t, 0).is_err());
    assert!(!rec.wants_hash(t));
    let data = rec.get_ref().data.clone();
    assert!(rec.finish().is_err());
    let p = Replay::parse_prefix(&data).unwrap();
    assert_eq!(p.replay.ticks(), t, "every record before the failure");
    assert_eq!(p.damage.unwrap().field(), Some("record"), "the torn record");
}

#[test]
fn steady_state_recording_allocates_nothing() {
    assert!(alloc_watch::is_installed());
    let mut rec = ReplayRecorder::new(io::sink(), header()).unwrap();
    rec.record_hash(0, 0).unwrap();
    let input = vec![7_u8; 64];
    // Warm up: the first records may not grow anything either, but the
    // claim is about the steady state.
    rec.record_input(0, &input).unwrap();
    rec.record_hash(1, 1).unwrap();
    let ((), counts) = alloc_watch::count_allocs(|| {
        for t in 1..1000 {
            rec.record_input(t, &input).unwrap();
            if rec.wants_hash(t + 1) {
                rec.record_hash(t + 1, t).unwrap();
            }
        }
    });
    assert_eq!(counts.allocations(), 0, "{counts:?}");
    let mut file = ReplayRecorder::new(io::BufWriter::new(io::sink()), header()).unwrap();
    file.record_input_bytes(0, &input).unwrap();
    let ((), counts) = alloc_watch::count_allocs(|| {
        for t in 1..1000 {
            file.record_input_bytes(t, &input).unwrap();
        }
    });
    assert_eq!(counts.allocations(), 0, "through a BufWriter: {counts:?}");
}
