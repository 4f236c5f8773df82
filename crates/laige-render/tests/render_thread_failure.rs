//! A stage that panics or fails never hangs the owner: the render thread is
//! marked failed, the owner gets `Failed`, and the books stay exact.

use std::time::Duration;

use laige_core::{Error, ErrorCode, EventId, Result};
use laige_render::{FrameDescriptor, RenderStages, RenderThread, RenderThreadConfig};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Where {
    Make,
    Start,
    Batch,
    Submit,
    Stop,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum How {
    Panic,
    Error,
}

struct Faulty {
    at: Where,
    how: How,
    on_frame: u64,
}

const TEST_FAILED: EventId = EventId::new("test", "stage_failed");

impl Faulty {
    fn hit(&self, here: Where, frame: u64) -> Result<()> {
        if self.at == here && frame >= self.on_frame {
            match self.how {
                How::Panic => panic!("boom in {here:?}"),
                How::Error => return Err(Error::new(ErrorCode::Io, TEST_FAILED).with_detail("gl")),
            }
        }
        Ok(())
    }
}

impl RenderStages<()> for Faulty {
    fn on_start(&mut self) -> Result<()> {
        self.hit(Where::Start, 0)
    }
    fn batch(&mut self, f: &FrameDescriptor, _: &[()]) -> Result<()> {
        self.hit(Where::Batch, f.frame_index)
    }
    fn submit(&mut self, f: &FrameDescriptor, _: &[()]) -> Result<()> {
        self.hit(Where::Submit, f.frame_index)
    }
    fn on_stop(&mut self) -> Result<()> {
        self.hit(Where::Stop, 0)
    }
}

fn desc(n: u64) -> FrameDescriptor {
    FrameDescriptor {
        frame_index: n,
        ..FrameDescriptor::default()
    }
}

fn spawn(at: Where, how: How, on_frame: u64) -> RenderThread<()> {
    let stages = Faulty { at, how, on_frame };
    if at == Where::Make {
        RenderThread::spawn(RenderThreadConfig::default(), move || -> Result<Faulty> {
            match how {
                How::Panic => panic!("boom in make"),
                How::Error => Err(Error::new(ErrorCode::Io, TEST_FAILED)),
            }
        })
        .expect("spawn")
    } else {
        let _ = &stages;
        RenderThread::new(RenderThreadConfig::default(), stages).expect("spawn")
    }
}

/// Submits until the thread reports the failure (bounded), returning it.
fn drive_to_failure(rt: &mut RenderThread<()>) -> Error {
    for n in 1..=10_000 {
        if let Err(e) = rt.submit_frame(desc(n)) {
            return e;
        }
        if let Err(e) = rt.wait_idle() {
            return e;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    panic!("the failure was never reported");
}

fn check_failed_thread(mut rt: RenderThread<()>, stage: &str, id: EventId) {
    let err = drive_to_failure(&mut rt);
    assert_eq!(err.code(), ErrorCode::Failed, "{err}");
    assert_eq!(err.id(), id);
    assert_eq!(err.field(), Some(stage));
    assert!(!rt.running());
    // Every owner call reports it until shutdown, and none hangs.
    assert_eq!(
        rt.submit_frame(desc(1_000_000)).expect_err("failed").code(),
        ErrorCode::Failed
    );
    assert_eq!(
        rt.wait_idle().expect_err("failed").code(),
        ErrorCode::Failed
    );
    let s = rt.stats();
    assert!(s.is_consistent(), "{s:?}");
    let err = rt.shutdown().expect_err("shutdown reports the failure");
    assert_eq!(err.code(), ErrorCode::Failed);
    rt.shutdown().expect("then it is a stopped no-op");
    assert_eq!(
        rt.submit_frame(desc(1)).expect_err("stopped").code(),
        ErrorCode::InvalidArgument
    );
    assert!(rt.stats().is_consistent());
}

#[test]
fn panic_in_batch_fails_the_thread_and_keeps_the_frame_outstanding() {
    let mut rt = spawn(Where::Batch, How::Panic, 3);
    let err = drive_to_failure(&mut rt);
    assert!(err.to_string().contains("boom in Batch"), "{err}");
    let s = rt.stats();
    assert!(s.in_flight, "the failed frame stays in flight: {s:?}");
    assert_eq!(s.rendered, 2);
    assert!(s.is_consistent());
    check_failed_thread(rt, "batch", laige_render::STAGE_PANICKED);
}

#[test]
fn panic_in_submit_fails_the_thread() {
    check_failed_thread(
        spawn(Where::Submit, How::Panic, 1),
        "submit",
        laige_render::STAGE_PANICKED,
    );
}

#[test]
fn panic_in_on_start_fails_the_thread() {
    check_failed_thread(
        spawn(Where::Start, How::Panic, 0),
        "on_start",
        laige_render::STAGE_PANICKED,
    );
}

#[test]
fn panic_in_make_stages_fails_the_thread() {
    check_failed_thread(
        spawn(Where::Make, How::Panic, 0),
        "make_stages",
        laige_render::STAGE_PANICKED,
    );
}

#[test]
fn error_from_a_stage_fails_the_thread_with_its_message() {
    let mut rt = spawn(Where::Submit, How::Error, 2);
    let err = drive_to_failure(&mut rt);
    assert_eq!(err.id(), laige_render::STAGE_FAILED);
    assert!(err.to_string().contains("test/stage_failed"), "{err}");
    check_failed_thread(rt, "submit", laige_render::STAGE_FAILED);
}

#[test]
fn panic_in_on_stop_is_reported_by_shutdown() {
    let mut rt = spawn(Where::Stop, How::Panic, 0);
    rt.submit_frame(desc(1)).expect("running");
    rt.wait_idle().expect("healthy until stop");
    let err = rt.shutdown().expect_err("on_stop panicked");
    assert_eq!(err.code(), ErrorCode::Failed);
    assert_eq!(err.field(), Some("on_stop"));
    assert_eq!(rt.stats().rendered, 1);
}

#[test]
fn a_failed_thread_is_joined_by_drop_without_hanging() {
    let mut rt = spawn(Where::Batch, How::Panic, 1);
    let _ = drive_to_failure(&mut rt);
    drop(rt);
}

/// Blocks in `submit` until the test lets it go.
struct Stuck(std::sync::mpsc::Receiver<()>);

impl RenderStages<()> for Stuck {
    fn batch(&mut self, _: &FrameDescriptor, _: &[()]) -> Result<()> {
        Ok(())
    }
    fn submit(&mut self, _: &FrameDescriptor, _: &[()]) -> Result<()> {
        let _ = self.0.recv();
        Ok(())
    }
}

#[test]
fn a_stage_that_never_returns_is_named_at_the_deadline_and_not_joined() {
    let (release, wait) = std::sync::mpsc::channel();
    let mut rt = RenderThread::new(RenderThreadConfig::default(), Stuck(wait)).unwrap();
    rt.submit_frame(desc(1)).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_millis(100);
    let (idle, events) = laige_core::diag::capture_events(|| {
        let idle = rt.wait_idle_until(Some(deadline));
        let stopped = rt.shutdown_until(Some(deadline));
        (idle, stopped)
    });
    for err in [idle.0.unwrap_err(), idle.1.unwrap_err()] {
        assert_eq!(err.id(), laige_render::STAGE_STUCK);
        assert_eq!(err.field(), Some("submit"), "{err}");
    }
    // Reported once, naming the stage; the thread is no longer owned.
    let stuck: Vec<_> = events
        .iter()
        .filter(|e| e.is(laige_render::STAGE_STUCK))
        .collect();
    assert_eq!(stuck.len(), 1, "{events:?}");
    assert_eq!(stuck[0].field("stage"), Some("submit"));
    assert!(!rt.running());
    assert!(rt.shutdown().is_ok(), "a second shutdown is a no-op");
    drop(rt);
    let _ = release.send(());
}
