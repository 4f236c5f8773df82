//! RenderThread lifecycle: stage order, hooks on the render thread,
//! wait_idle, shutdown, drop, stopped-state errors, Send/Sync.

use std::sync::{Arc, Mutex};

use laige_core::{ErrorCode, Result};
use laige_render::{
    FrameDescriptor, FrameStats, PayloadWriter, RenderStages, RenderThread, RenderThreadConfig,
};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Call {
    Start(Option<String>),
    Batch(u64, Vec<u32>),
    Submit(u64, Vec<u32>),
    Stop(Option<String>),
}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<Call>>>);

impl Log {
    fn push(&self, c: Call) {
        self.0.lock().expect("log").push(c);
    }
    fn calls(&self) -> Vec<Call> {
        self.0.lock().expect("log").clone()
    }
}

fn thread_name() -> Option<String> {
    std::thread::current().name().map(str::to_owned)
}

struct Recorder(Log);

impl RenderStages<u32> for Recorder {
    fn on_start(&mut self) -> Result<()> {
        self.0.push(Call::Start(thread_name()));
        Ok(())
    }
    fn batch(&mut self, f: &FrameDescriptor, p: &[u32]) -> Result<()> {
        self.0.push(Call::Batch(f.frame_index, p.to_vec()));
        Ok(())
    }
    fn submit(&mut self, f: &FrameDescriptor, p: &[u32]) -> Result<()> {
        self.0.push(Call::Submit(f.frame_index, p.to_vec()));
        Ok(())
    }
    fn on_stop(&mut self) -> Result<()> {
        self.0.push(Call::Stop(thread_name()));
        Ok(())
    }
}

fn desc(n: u64) -> FrameDescriptor {
    FrameDescriptor {
        frame_index: n,
        sim_tick: n,
        render_time_ns: 0,
        ..FrameDescriptor::default()
    }
}

fn render_one(rt: &mut RenderThread<u32>, n: u64) {
    {
        let mut w = rt.writer();
        w.clear();
        w.extend([u32::try_from(n).unwrap_or(0), 7]);
    }
    rt.submit_frame(desc(n)).expect("running");
    rt.wait_idle().expect("healthy");
}

#[test]
fn stages_run_in_order_once_per_frame_with_hooks_on_the_render_thread() {
    let log = Log::default();
    let mut rt =
        RenderThread::new(RenderThreadConfig::default(), Recorder(log.clone())).expect("spawn");
    assert!(rt.running());
    for n in 1..=3 {
        render_one(&mut rt, n);
    }
    rt.shutdown().expect("clean stop");
    assert!(!rt.running());
    let render = Some("laige-render".to_owned());
    assert_ne!(thread_name(), render, "the test runs on another thread");
    let mut expected = vec![Call::Start(render.clone())];
    for n in 1..=3u32 {
        expected.push(Call::Batch(u64::from(n), vec![n, 7]));
        expected.push(Call::Submit(u64::from(n), vec![n, 7]));
    }
    expected.push(Call::Stop(render));
    assert_eq!(log.calls(), expected);
    let s = rt.stats();
    assert_eq!(
        (s.submitted, s.rendered, s.dropped, s.outstanding),
        (3, 3, 0, 0)
    );
}

#[test]
fn wait_idle_returns_only_when_nothing_is_outstanding() {
    let log = Log::default();
    let mut rt =
        RenderThread::new(RenderThreadConfig::default(), Recorder(log.clone())).expect("spawn");
    for n in 1..=100 {
        rt.writer().push(1);
        rt.submit_frame(desc(n)).expect("running");
    }
    rt.wait_idle().expect("healthy");
    let s = rt.stats();
    assert_eq!(s.outstanding, 0);
    assert_eq!(s.submitted, 100);
    assert_eq!(s.rendered + s.dropped, 100);
    assert!(s.is_consistent());
    // Every rendered frame's stages ran exactly once: batch+submit pairs.
    let calls = log.calls();
    let batches = calls
        .iter()
        .filter(|c| matches!(c, Call::Batch(..)))
        .count();
    let submits = calls
        .iter()
        .filter(|c| matches!(c, Call::Submit(..)))
        .count();
    assert_eq!(u64::try_from(batches).ok(), Some(s.rendered));
    assert_eq!(batches, submits);
    // The last frame is never dropped: nothing replaced it.
    assert!(calls.contains(&Call::Submit(100, vec![1])));
}

#[test]
fn shutdown_is_idempotent_and_a_stopped_thread_rejects_submits() {
    let mut rt =
        RenderThread::new(RenderThreadConfig::default(), Recorder(Log::default())).expect("spawn");
    render_one(&mut rt, 1);
    rt.shutdown().expect("first stop");
    rt.shutdown().expect("second stop is a no-op");
    assert!(!rt.running());
    let err = rt.submit_frame(desc(2)).expect_err("stopped");
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert_eq!(err.id(), laige_render::NOT_RUNNING);
    rt.wait_idle().expect("no-op on a stopped thread");
    assert_eq!(
        rt.stats().submitted,
        1,
        "the rejected frame was not published"
    );
}

#[test]
fn shutdown_does_not_flush_a_pending_frame_but_keeps_the_books() {
    // A stage slow enough that frames queue up behind it.
    struct Slow;
    impl RenderStages<()> for Slow {
        fn batch(&mut self, _: &FrameDescriptor, _: &[()]) -> Result<()> {
            std::thread::sleep(std::time::Duration::from_millis(5));
            Ok(())
        }
        fn submit(&mut self, _: &FrameDescriptor, _: &[()]) -> Result<()> {
            Ok(())
        }
    }
    let mut rt = RenderThread::new(RenderThreadConfig::default(), Slow).expect("spawn");
    for n in 1..=5 {
        rt.submit_frame(desc(n)).expect("running");
    }
    rt.shutdown().expect("clean stop");
    let s: FrameStats = rt.stats();
    assert!(s.is_consistent(), "{s:?}");
    assert!(!s.in_flight, "the in-flight frame finished before the join");
    assert_eq!(s.submitted, 5);
}

#[test]
fn drop_joins_the_thread_and_runs_on_stop() {
    let log = Log::default();
    {
        let mut rt =
            RenderThread::new(RenderThreadConfig::default(), Recorder(log.clone())).expect("spawn");
        render_one(&mut rt, 1);
    }
    // The drop joined: on_stop has already run, on the render thread.
    assert_eq!(
        log.calls().last(),
        Some(&Call::Stop(Some("laige-render".to_owned())))
    );
}

#[test]
fn spawn_builds_non_send_stages_on_the_render_thread() {
    struct Local {
        _not_send: std::rc::Rc<()>,
        frames: Arc<Mutex<u64>>,
    }
    impl RenderStages<()> for Local {
        fn batch(&mut self, _: &FrameDescriptor, _: &[()]) -> Result<()> {
            Ok(())
        }
        fn submit(&mut self, _: &FrameDescriptor, _: &[()]) -> Result<()> {
            *self.frames.lock().expect("count") += 1;
            Ok(())
        }
    }
    let frames = Arc::new(Mutex::new(0));
    let f = Arc::clone(&frames);
    let mut rt = RenderThread::spawn(RenderThreadConfig::default(), move || {
        Ok(Local {
            _not_send: std::rc::Rc::new(()),
            frames: f,
        })
    })
    .expect("spawn");
    rt.submit_frame(desc(1)).expect("running");
    rt.wait_idle().expect("healthy");
    rt.shutdown().expect("stop");
    assert_eq!(*frames.lock().expect("count"), 1);
}

#[test]
fn public_types_are_send_and_sync_where_promised() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<RenderThread<u32>>();
    send_sync::<RenderThread<()>>();
    send_sync::<FrameDescriptor>();
    send_sync::<FrameStats>();
    send_sync::<laige_render::FrameClock>();
    send_sync::<laige_render::handoff::Producer<u32>>();
    send_sync::<laige_render::handoff::Consumer<u32>>();
    send::<laige_render::handoff::Producer<String>>();
    send_sync::<laige_render::handoff::StatsView<u32>>();
    // A writer borrows the producer: it may not outlive it, and it is not
    // required to cross threads.
    let _ = std::marker::PhantomData::<PayloadWriter<'static, u32>>;
}
