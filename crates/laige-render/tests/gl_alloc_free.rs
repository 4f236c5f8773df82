//! The frame's hot paths allocate nothing in steady state: the batcher's
//! build, and (with a headless context) the renderer's clear + draw + the
//! headless swap. Counted with laige-core's CountingAlloc (Rust
//! allocations; the GL driver's own C allocations are not the engine's).

#![cfg(feature = "gl")]

mod gl_support;

use gl_support::*;
use laige_core::alloc_watch::{self, CountingAlloc};
use laige_render::gl::{
    BatchParams, HeadlessConfig, Sprite, SpriteBatcher, SpriteRenderer, TextureId, ViewRect,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn sprites(n: usize) -> Vec<Sprite> {
    (0..n)
        .map(|i| {
            let x = (i % 97) as f32 * 1.5 - 8.0;
            let y = (i % 53) as f32 * 1.1 - 4.0;
            let mut s = Sprite::quad([x, y], [3.0, 2.0], [1.0, 0.5, 0.25, 1.0]);
            s.prev_position = [x - 1.0, y];
            s.rotation = if i % 3 == 0 { 0.5 } else { 0.0 };
            s.texture = TextureId::from_index(u32::from(i % 200 < 100));
            s
        })
        .collect()
}

#[test]
fn batcher_build_allocates_nothing_in_steady_state() {
    assert!(alloc_watch::is_installed());
    let input = sprites(5000);
    let params = BatchParams {
        view: ViewRect::new(0.0, 0.0, 100.0, 50.0).unwrap(),
        alpha: 0.5,
    };
    let mut batcher = SpriteBatcher::default();
    // The first build grows the buffers — and the watch sees it.
    let (_, first) = alloc_watch::count_allocs(|| batcher.build(&input, &params).unwrap());
    assert!(first.allocations() > 0, "{first:?}");
    for _ in 0..5 {
        let (stats, counts) = alloc_watch::count_allocs(|| batcher.build(&input, &params).unwrap());
        assert!(
            stats.visible > 0 && stats.culled > 0 && stats.batches > 1,
            "{stats:?}"
        );
        assert_eq!(counts.allocations(), 0, "{counts:?}");
    }
}

#[test]
fn renderer_draw_allocates_nothing_in_steady_state() {
    let config = HeadlessConfig {
        width: W,
        height: H,
        ..HeadlessConfig::default()
    };
    let Some(ctx) = headless_or_skip("renderer_draw_allocates_nothing", &config) else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer
        .upload_texture(&ctx, 1, 1, &[9, 9, 9, 255], Default::default())
        .unwrap();
    let input = sprites(2000);
    let params = BatchParams {
        view: ViewRect::new(0.0, 0.0, 100.0, 50.0).unwrap(),
        alpha: 1.0,
    };
    let mut batcher = SpriteBatcher::default();
    let mut frame = || {
        batcher.build(&input, &params).unwrap();
        renderer.clear(&ctx, CLEAR).unwrap();
        let stats = renderer.draw(&ctx, &batcher).unwrap();
        ctx.swap_buffers().unwrap();
        stats
    };
    frame(); // first frame: buffers grow
    for _ in 0..5 {
        let (stats, counts) = alloc_watch::count_allocs(&mut frame);
        assert!(stats.instances > 0 && stats.draw_calls > 1, "{stats:?}");
        assert_eq!(counts.allocations(), 0, "{counts:?}");
    }
    renderer.destroy(&ctx);
}
