//! The frame's hot paths allocate nothing in steady state: the batcher's
//! build, text layout with the layer sort, and (with a headless context)
//! the renderer's clear + draw + the headless swap, with a texture queue
//! attached. Counted with laige-core's CountingAlloc (Rust
//! allocations; the GL driver's own C allocations are not the engine's).

#![cfg(feature = "gl")]

mod gl_support;

use gl_support::*;
use laige_core::alloc_watch::{self, CountingAlloc};
use laige_render::gl::{
    BatchParams, Font, HeadlessConfig, Space, Sprite, SpriteBatcher, SpriteRenderer, TextStyle,
    TextureId, TextureQueue, ViewRect,
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

#[test]
fn text_layers_and_the_texture_queue_allocate_nothing_in_steady_state() {
    let config = HeadlessConfig {
        width: W,
        height: H,
        ..HeadlessConfig::default()
    };
    let Some(ctx) = headless_or_skip("text_layers_allocate_nothing", &config) else {
        return;
    };
    let queue = TextureQueue::default();
    let font = Font::embedded(&queue).unwrap();
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.attach_texture_queue(queue);
    let world = sprites(1000);
    let params = BatchParams {
        view: ViewRect::new(0.0, 0.0, 100.0, 50.0).unwrap(),
        alpha: 1.0,
    };
    let mut frame_sprites: Vec<Sprite> = Vec::new();
    let mut hud = String::new();
    let mut batcher = SpriteBatcher::default();
    let mut frame = |n: u64| {
        use std::fmt::Write as _;
        hud.clear();
        let _ = write!(hud, "tick {n}\nfps 60.0");
        frame_sprites.clear();
        frame_sprites.extend_from_slice(&world);
        frame_sprites.push(Sprite {
            space: Space::Screen,
            layer: 254,
            ..Sprite::circle([10.0, 10.0], 4.0, [1.0; 4])
        });
        font.draw(&mut frame_sprites, &hud, &TextStyle::default());
        batcher.build(&frame_sprites, &params).unwrap();
        renderer.clear(&ctx, CLEAR).unwrap();
        let stats = renderer.draw(&ctx, &batcher).unwrap();
        ctx.swap_buffers().unwrap();
        stats
    };
    frame(1); // warm-up: the atlas uploads, the buffers grow
    for n in 2..8 {
        let (stats, counts) = alloc_watch::count_allocs(|| frame(n));
        assert!(stats.draw_calls > 2, "{stats:?}");
        assert_eq!(counts.allocations(), 0, "{counts:?}");
    }
    renderer.destroy(&ctx);
}
