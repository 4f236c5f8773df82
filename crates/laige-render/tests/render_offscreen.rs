//! The offscreen proof: a known scene rendered headless THROUGH THE REAL
//! RENDER THREAD (`RenderThread::spawn` + `SpriteStages`: the GL context
//! released here, taken over in `on_start`, handed back in `on_stop`), with
//! the pixels read back on the render thread before the present, checked
//! exactly, and snapshotted. Prints one machine-readable line per case:
//!
//! `render-thread: kind=<lowrate|3000|slowed> frames=<n> rendered=<n> dropped=<n> pixel=ok status=ok`
//!
//! - lowrate: a few frames, each published after the previous one finished
//!   (`wait_idle`): no drops.
//! - 3000: 3000 frames published back to back (after the first, which
//!   waits for the take-over): drops expected, the accounting exact.
//! - slowed: a deliberately slow batch stage (20 ms) fed every 1 ms: drops
//!   certain, the accounting exact.
//!
//! The last published frame can never be dropped (only a newer frame
//! replaces a pending one), so after `wait_idle` the read-back is always
//! the last frame's: each frame carries a marker pixel at a position
//! derived from its index, and the test checks the marker of the last one.
//!
//! Without EGL: one `SKIPPED` line and a pass, unless `LAIGE_REQUIRE_GL=1`.

#![cfg(feature = "gl")]

mod gl_support;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use gl_support::*;
use laige_core::{ErrorCode, Result};
use laige_render::gl::{
    BatchParams, CurrentGlContext, HeadlessConfig, Sprite, SpriteFrameHook, SpriteStages,
    SpriteStagesConfig, TextureUpload, ViewRect,
};
use laige_render::{FrameDescriptor, FrameStats, RenderThread, RenderThreadConfig};

const WHITE: [f32; 4] = [1.0; 4];
const WHITE_PX: [u8; 4] = [255; 4];

/// What the render thread's hook saw, shared with the test.
#[derive(Default)]
struct Seen {
    /// `after_draw` calls (one per rendered frame).
    draws: u64,
    /// The frame index of the last read-back.
    last_frame: u64,
    /// The last read-back (whole target, RGBA8, bottom row first).
    rgba: Vec<u8>,
}

/// The test hook: fixed view, an optional delay in the batch stage (the
/// "slowed" case), and a full read-back before every present.
struct ReadBack {
    seen: Arc<Mutex<Seen>>,
    delay: Duration,
    buf: Vec<u8>,
}

impl SpriteFrameHook for ReadBack {
    fn params(&mut self, _frame: &FrameDescriptor) -> BatchParams {
        if !self.delay.is_zero() {
            std::thread::sleep(self.delay);
        }
        BatchParams {
            view: ViewRect::new(0.0, 0.0, W as f32, H as f32).expect("valid view"),
            alpha: 1.0,
        }
    }

    fn after_draw(&mut self, ctx: &CurrentGlContext, frame: &FrameDescriptor) -> Result<()> {
        ctx.read_pixels_into(0, 0, W, H, &mut self.buf)?;
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.draws += 1;
        seen.last_frame = frame.frame_index;
        seen.rgba.clone_from(&self.buf);
        Ok(())
    }
}

/// The marker of frame `n`: a 1×4 white column at x = 44 + n % 16, y 40..44.
fn marker_x(frame: u64) -> u32 {
    44 + (frame % 16) as u32
}

/// The known scene plus frame `n`'s marker.
fn write_frame(rt: &mut RenderThread<Sprite>, n: u64) {
    let mut w = rt.writer();
    w.clear();
    w.extend(scene());
    w.push(Sprite::quad(
        [marker_x(n) as f32 + 0.5, 42.0],
        [1.0, 4.0],
        WHITE,
    ));
}

fn spawn(test: &str, delay: Duration) -> Option<(RenderThread<Sprite>, Arc<Mutex<Seen>>)> {
    let config = HeadlessConfig {
        width: W,
        height: H,
        ..HeadlessConfig::default()
    };
    let ctx = headless_or_skip(test, &config)?;
    // The hand-off: released here, taken over by the render thread.
    let gl = ctx
        .release()
        .expect("release the context for the render thread");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let hook = ReadBack {
        seen: Arc::clone(&seen),
        delay,
        buf: vec![0; (W * H * 4) as usize],
    };
    let stages_config = SpriteStagesConfig {
        clear_color: CLEAR,
        sprite_capacity: 8,
        ..SpriteStagesConfig::default()
    };
    let rt = RenderThread::spawn(
        RenderThreadConfig {
            payload_capacity: 8,
            ..RenderThreadConfig::default()
        },
        move || Ok(SpriteStages::new(gl, stages_config, hook)),
    )
    .expect("spawn the render thread");
    Some((rt, seen))
}

/// Checks the accounting and the last frame's pixels, prints the machine
/// line, and returns the last frame's pixels.
fn finish(kind: &str, mut rt: RenderThread<Sprite>, seen: &Mutex<Seen>, frames: u64) -> Vec<u8> {
    rt.wait_idle().expect("wait_idle");
    let s: FrameStats = rt.stats();
    assert!(s.is_consistent(), "{s:?}");
    assert_eq!(s.submitted, frames, "{s:?}");
    assert_eq!(s.outstanding, 0, "{s:?}");
    assert_eq!(s.rendered + s.dropped, frames, "{s:?}");
    rt.shutdown()
        .expect("ordered shutdown (on_stop released the context)");
    assert!(!rt.running());

    let seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
    assert_eq!(seen.draws, s.rendered, "one read-back per rendered frame");
    assert_eq!(seen.last_frame, frames, "the last frame is never dropped");
    let rgba = seen.rgba.clone();
    assert_scene_pixels(&rgba);
    let mx = marker_x(frames);
    for y in 40..44 {
        assert_eq!(
            px(&rgba, mx, y),
            WHITE_PX,
            "frame {frames}'s marker at ({mx}, {y})"
        );
    }
    assert_eq!(px(&rgba, mx - 1, 41), CLEAR_PX, "left of the marker");
    assert_eq!(px(&rgba, mx + 1, 41), CLEAR_PX, "right of the marker");
    let markers = (44..60).filter(|&x| px(&rgba, x, 41) == WHITE_PX).count();
    assert_eq!(markers, 1, "exactly one frame's marker");

    // A leading newline: libtest may have printed `test name ... ` on this line.
    visible_line(&format!(
        "\nrender-thread: kind={kind} frames={frames} rendered={} dropped={} pixel=ok status=ok",
        s.rendered, s.dropped
    ));
    rgba
}

#[test]
fn lowrate_frames_all_render() {
    let Some((mut rt, seen)) = spawn("lowrate_frames_all_render", Duration::ZERO) else {
        return;
    };
    const FRAMES: u64 = 5;
    for n in 1..=FRAMES {
        write_frame(&mut rt, n);
        rt.submit_frame(FrameDescriptor {
            frame_index: n,
            sim_tick: n,
            ..FrameDescriptor::default()
        })
        .unwrap();
        // Slower than the consumer: the frame is done before the next.
        rt.wait_idle().unwrap();
    }
    let stats = rt.stats();
    assert_eq!((stats.rendered, stats.dropped), (FRAMES, 0));
    let rgba = finish("lowrate", rt, &seen, FRAMES);
    insta::assert_snapshot!("offscreen_lowrate_last_frame", ascii_art(&rgba, W, H));
    insta::assert_snapshot!(
        "offscreen_lowrate_fnv1a64",
        format!("{:016x}", fnv1a64(&rgba))
    );
}

#[test]
fn three_thousand_frames_as_fast_as_possible() {
    let Some((mut rt, seen)) = spawn("three_thousand_frames", Duration::ZERO) else {
        return;
    };
    const FRAMES: u64 = 3000;
    // Frame 1 waits for the take-over (on_start: make_current, shaders), so
    // the burst measures the handoff, not the context setup.
    write_frame(&mut rt, 1);
    rt.submit_frame(FrameDescriptor {
        frame_index: 1,
        ..FrameDescriptor::default()
    })
    .unwrap();
    rt.wait_idle().unwrap();
    for n in 2..=FRAMES {
        write_frame(&mut rt, n);
        rt.submit_frame(FrameDescriptor {
            frame_index: n,
            ..FrameDescriptor::default()
        })
        .unwrap();
        let s = rt.stats();
        assert!(s.is_consistent() && s.submitted == n, "{s:?}");
    }
    finish("3000", rt, &seen, FRAMES);
}

#[test]
fn slowed_stage_drops_frames_and_keeps_the_accounting() {
    let Some((mut rt, seen)) = spawn("slowed_stage", Duration::from_millis(20)) else {
        return;
    };
    const FRAMES: u64 = 40;
    for n in 1..=FRAMES {
        write_frame(&mut rt, n);
        rt.submit_frame(FrameDescriptor {
            frame_index: n,
            ..FrameDescriptor::default()
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
    // 40 frames at ≥ 1 ms intervals against a 20 ms stage: at most a couple
    // render while publishing, so most frames must have been dropped.
    let s = rt.stats();
    assert!(
        s.dropped > 0,
        "a 3 ms stage fed every 0.5 ms must drop: {s:?}"
    );
    finish("slowed", rt, &seen, FRAMES);
}

#[test]
fn a_failing_take_over_fails_the_render_thread_with_the_cause() {
    let config = HeadlessConfig {
        width: W,
        height: H,
        ..HeadlessConfig::default()
    };
    let Some(ctx) = headless_or_skip("a_failing_take_over", &config) else {
        return;
    };
    let gl = ctx.release().unwrap();
    // A texture whose data is one byte short: on_start fails.
    let stages_config = SpriteStagesConfig {
        textures: vec![TextureUpload {
            width: 2,
            height: 2,
            rgba: vec![0; 15],
            options: Default::default(),
        }],
        ..SpriteStagesConfig::default()
    };
    let view = BatchParams {
        view: ViewRect::new(0.0, 0.0, 1.0, 1.0).unwrap(),
        alpha: 1.0,
    };
    let mut rt: RenderThread<Sprite> =
        RenderThread::spawn(RenderThreadConfig::default(), move || {
            Ok(SpriteStages::new(
                gl,
                stages_config,
                laige_render::gl::FixedView(view),
            ))
        })
        .unwrap();
    let e = rt.wait_idle().and_then(|()| {
        rt.submit_frame(FrameDescriptor {
            frame_index: 1,
            ..FrameDescriptor::default()
        })?;
        rt.wait_idle()
    });
    let e = e.expect_err("the failed on_start must reach the owner");
    assert_eq!(e.code(), ErrorCode::Failed);
    assert!(
        e.to_string().contains("rgba.len() = 15"),
        "the cause is carried: {e}"
    );
    assert!(rt.shutdown().is_err(), "shutdown reports the failure too");
    assert!(!rt.running());
}
