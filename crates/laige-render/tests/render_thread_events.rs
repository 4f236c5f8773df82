//! The render thread's diagnostic events, captured from every thread (the
//! render thread emits `stage_panicked` itself). One test in this binary:
//! the subscriber is process-global and the rate limiter is per id.

use std::fmt::Write as _;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use laige_core::Result;
use laige_render::{FrameDescriptor, RenderStages, RenderThread, RenderThreadConfig};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<String>>>);

struct Line(String);
impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={:?}", field.name(), value);
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={}", field.name(), value);
    }
}

impl<S: tracing::Subscriber> Layer<S> for Lines {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let mut line = Line(event.metadata().level().to_string());
        event.record(&mut line);
        self.0.lock().expect("lines").push(line.0);
    }
}

/// Blocks in `batch` of frame 1 until the test releases it, then panics in
/// `submit` of frame 4.
struct Gate {
    release: mpsc::Receiver<()>,
}

impl RenderStages<()> for Gate {
    fn batch(&mut self, f: &FrameDescriptor, _: &[()]) -> Result<()> {
        if f.frame_index == 1 {
            // Bounded: the test releases it well within this.
            let _ = self.release.recv_timeout(Duration::from_secs(10));
        }
        Ok(())
    }
    fn submit(&mut self, f: &FrameDescriptor, _: &[()]) -> Result<()> {
        assert!(
            f.frame_index != 4,
            "stage exploded on frame {}",
            f.frame_index
        );
        Ok(())
    }
}

fn desc(n: u64) -> FrameDescriptor {
    FrameDescriptor {
        frame_index: n,
        ..FrameDescriptor::default()
    }
}

#[test]
fn lifecycle_drop_and_panic_events() {
    let lines = Lines::default();
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(lines.clone()))
        .expect("the only subscriber in this binary");

    let (release, gate) = mpsc::channel();
    let mut rt =
        RenderThread::new(RenderThreadConfig::default(), Gate { release: gate }).expect("spawn");
    rt.submit_frame(desc(1)).expect("running");
    // Wait until frame 1 is in flight (claimed), so 2 is pending and 3 drops it.
    while !rt.stats().in_flight {
        std::thread::yield_now();
    }
    rt.submit_frame(desc(2)).expect("running");
    rt.submit_frame(desc(3)).expect("running");
    release.send(()).expect("gate");
    rt.wait_idle().expect("frames 1 and 3 render");
    let s = rt.stats();
    assert_eq!((s.submitted, s.rendered, s.dropped), (3, 2, 1));
    rt.submit_frame(desc(4)).expect("running");
    let err = rt.wait_idle().expect_err("frame 4 panics");
    assert!(
        err.to_string().contains("stage exploded on frame 4"),
        "{err}"
    );
    let _ = rt.shutdown();

    let text = lines.0.lock().expect("lines").join("\n");
    insta::assert_snapshot!(text, @r#"
    INFO subsystem=render_thread event=thread_started thread=laige-render
    WARN subsystem=render_thread event=frame_dropped dropped_frame=2 new_frame=3
    ERROR subsystem=render_thread event=stage_panicked stage=submit message=stage exploded on frame 4
    INFO subsystem=render_thread event=thread_stopped submitted=4 rendered=2 dropped=1 outstanding=1
    "#);
}
