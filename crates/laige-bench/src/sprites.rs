//! Bench area `sprites`: the sprite batcher's cull + instance build (the
//! render thread's `batch` stage) and the GL draw on a headless context.
//!
//! - `sprites.batch_10k` / `sprites.batch_100k` (`.median`, `.p99`, ms):
//!   one [`SpriteBatcher::build`] over N sprites in steady state (buffers
//!   already grown). The scene is the batcher's realistic worst case: about
//!   three quarters of the sprites in view (spread over a world 1.15× the
//!   view on each axis), every sprite moving (interpolated at alpha 0.5), a
//!   third rotated (bounding-circle cull), four textures in runs of 64
//!   sprites (so N/64 batches).
//! - `sprites.batch_textured_100k` (`.median`, `.p99`, ms): the same
//!   scene as textured sprites from a sprite sheet — every sprite its own
//!   16×16-cell atlas region (uv rectangle) on one of four sheets — side
//!   by side with the flat quads above: the uv rectangles are copied, not
//!   computed, so the cost should match.
//! - `sprites.batch_glyphs_10k` (`.median`, `.p99`, ms): a HUD's text —
//!   10k glyphs of the embedded font laid out by `Font::draw` (200 lines of
//!   50 visible characters, screen space, layer 255) over 1k world sprites on layer
//!   0, then one build (the layer sort runs: two layers). Layout + build,
//!   what a frame of text costs the render side.
//! - `sprites.gl_frame_10k` (`.median`, ms; informational, no budget): a
//!   whole headless frame of 10k visible 8×8 sprites on a 256×256 target —
//!   build, clear, upload + instanced draw, and `glFinish`. On CI this is
//!   Mesa's llvmpipe, a software rasterizer: the figure measures Mesa's fill
//!   rate as much as the renderer. Skipped (with a note) without EGL.

use laige_render::gl::{
    BatchParams, CurrentGlContext, Font, HeadlessConfig, Sprite, SpriteBatcher, SpriteRenderer,
    TextStyle, TextureId, TextureOptions, TextureQueue, ViewRect,
};

use crate::harness::Bench;

/// Runs the area.
pub fn run(b: &mut Bench) {
    batch(b);
    batch_textured(b);
    batch_glyphs(b);
    gl_frame(b);
}

fn view_params() -> BatchParams {
    BatchParams {
        view: ViewRect::new(0.0, 0.0, 1920.0, 1080.0).expect("a valid view"),
        alpha: 0.5,
    }
}

fn batch_textured(b: &mut Bench) {
    let params = view_params();
    let mut input = scene(100_000);
    for (i, s) in input.iter_mut().enumerate() {
        // A 16×16 grid of cells on each sheet: cell i mod 256.
        let (col, row) = ((i % 16) as f32, (i / 16 % 16) as f32);
        s.uv_rect = [
            col / 16.0,
            row / 16.0,
            (col + 1.0) / 16.0,
            (row + 1.0) / 16.0,
        ];
    }
    let mut batcher = SpriteBatcher::with_capacity(input.len());
    let stats = batcher.build(&input, &params).expect("valid params");
    eprintln!(
        "   batch_textured_100k: {} sprites, {} visible, {} batches",
        stats.input, stats.visible, stats.batches
    );
    let s = b.measure(b.scaled(100), 1, || {
        batcher
            .build(&input, &params)
            .map(|s| s.visible)
            .unwrap_or(0)
    });
    b.record("sprites.batch_textured_100k.median", s.median / 1e6, "ms");
    b.record("sprites.batch_textured_100k.p99", s.p99 / 1e6, "ms");
}

fn batch_glyphs(b: &mut Bench) {
    let params = view_params();
    let queue = TextureQueue::default();
    let Ok(font) = Font::embedded(&queue) else {
        eprintln!("   batch_glyphs_10k: skipped, the embedded font failed to build");
        return;
    };
    let world = scene(1000);
    let line = "TICK:000123|FPS:60.0|P50:0.41ms|P99:1.20ms|DROP:00";
    // 50 visible characters (no spaces): 200 lines are 10k glyph quads.
    let mut sprites: Vec<Sprite> = Vec::with_capacity(world.len() + 10_000);
    let mut batcher = SpriteBatcher::with_capacity(world.len() + 10_000);
    let mut frame = |sprites: &mut Vec<Sprite>| {
        sprites.clear();
        sprites.extend_from_slice(&world);
        let mut glyphs = 0;
        for row in 0..200 {
            let style = TextStyle {
                position: [
                    4.0 + (row % 4) as f32 * 400.0,
                    1076.0 - (row / 4) as f32 * 20.0,
                ],
                size: 16.0,
                ..TextStyle::default()
            };
            glyphs += font.draw(sprites, line, &style);
        }
        let visible = batcher
            .build(sprites, &params)
            .map(|s| s.visible)
            .unwrap_or(0);
        (glyphs, visible)
    };
    let (glyphs, visible) = frame(&mut sprites);
    eprintln!("   batch_glyphs_10k: {glyphs} glyphs + 1000 world sprites, {visible} visible");
    let s = b.measure(b.scaled(200), 1, || frame(&mut sprites));
    b.record("sprites.batch_glyphs_10k.median", s.median / 1e6, "ms");
    b.record("sprites.batch_glyphs_10k.p99", s.p99 / 1e6, "ms");
}

/// A deterministic xorshift64* stream in `[0, 1)`.
struct Rng(u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` sprites over a world 1.15× the 1920×1080 view on each axis.
fn scene(n: usize) -> Vec<Sprite> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..n)
        .map(|i| {
            let x = rng.next_f32() * 1920.0 * 1.15 - 144.0;
            let y = rng.next_f32() * 1080.0 * 1.15 - 81.0;
            let mut s = Sprite::quad([x, y], [16.0, 16.0], [1.0, 1.0, 1.0, 1.0]);
            s.prev_position = [x - 2.0, y + 1.0];
            if i % 3 == 0 {
                s.rotation = rng.next_f32() * std::f32::consts::TAU;
            }
            s.texture = TextureId::from_index(1 + (i / 64 % 4) as u32);
            s
        })
        .collect()
}

fn batch(b: &mut Bench) {
    let params = BatchParams {
        view: ViewRect::new(0.0, 0.0, 1920.0, 1080.0).expect("a valid view"),
        alpha: 0.5,
    };
    for (name, n, samples) in [("batch_10k", 10_000, 400), ("batch_100k", 100_000, 100)] {
        let input = scene(n);
        let mut batcher = SpriteBatcher::with_capacity(n);
        let stats = batcher.build(&input, &params).expect("valid params");
        eprintln!(
            "   {name}: {} sprites, {} visible, {} culled, {} batches",
            stats.input, stats.visible, stats.culled, stats.batches
        );
        let s = b.measure(b.scaled(samples), 1, || {
            batcher
                .build(&input, &params)
                .map(|s| s.visible)
                .unwrap_or(0)
        });
        b.record(&format!("sprites.{name}.median"), s.median / 1e6, "ms");
        b.record(&format!("sprites.{name}.p99"), s.p99 / 1e6, "ms");
    }
}

fn gl_frame(b: &mut Bench) {
    let config = HeadlessConfig {
        width: 256,
        height: 256,
        ..HeadlessConfig::default()
    };
    let ctx = match CurrentGlContext::headless(&config) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("   gl_frame_10k: skipped, no headless GL ({e})");
            return;
        }
    };
    let Ok(mut renderer) = SpriteRenderer::new(&ctx) else {
        eprintln!("   gl_frame_10k: skipped, the sprite renderer failed to build");
        return;
    };
    let texels: Vec<u8> = (0..16 * 16)
        .flat_map(|i| [i as u8, 128, 255 - i as u8, 255])
        .collect();
    for _ in 0..4 {
        if renderer
            .upload_texture(&ctx, 16, 16, &texels, TextureOptions::default())
            .is_err()
        {
            eprintln!("   gl_frame_10k: skipped, texture upload failed");
            return;
        }
    }
    let mut rng = Rng(7);
    let input: Vec<Sprite> = (0..10_000)
        .map(|i| {
            let mut s = Sprite::quad(
                [rng.next_f32() * 256.0, rng.next_f32() * 256.0],
                [8.0, 8.0],
                [1.0, 1.0, 1.0, 1.0],
            );
            s.texture = TextureId::from_index(1 + (i / 64 % 4) as u32);
            s
        })
        .collect();
    let params = BatchParams {
        view: ViewRect::new(0.0, 0.0, 256.0, 256.0).expect("a valid view"),
        alpha: 1.0,
    };
    let mut batcher = SpriteBatcher::with_capacity(input.len());
    let mut frame = || -> laige_core::Result<u32> {
        batcher.build(&input, &params)?;
        renderer.clear(&ctx, [0.0, 0.0, 0.0, 1.0])?;
        let drawn = renderer.draw(&ctx, &batcher)?;
        ctx.swap_buffers()?;
        Ok(drawn.instances)
    };
    if let Err(e) = frame() {
        eprintln!("   gl_frame_10k: skipped, the first frame failed ({e})");
        return;
    }
    let s = b.measure(b.scaled(60), 1, || frame().unwrap_or(0));
    b.record("sprites.gl_frame_10k.median", s.median / 1e6, "ms");
    renderer.destroy(&ctx);
}
