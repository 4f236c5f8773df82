//! Headless GlContext + sprite renderer against real pixels (Mesa's
//! llvmpipe on CI): exact colors, textures, rotation, mirroring, blending,
//! the thread hand-off, and the error paths. Skipped (one printed line)
//! without EGL unless `LAIGE_REQUIRE_GL=1`.

#![cfg(feature = "gl")]

mod gl_support;

use gl_support::*;
use laige_core::ErrorCode;
use laige_render::gl::{
    BatchParams, CurrentGlContext, GlContext, GlTarget, HeadlessConfig, HeadlessSurface, Sprite,
    SpriteBatcher, SpriteRenderer, TextureFilter, TextureId, TextureOptions, ViewRect,
};

fn config(surface: HeadlessSurface) -> HeadlessConfig {
    HeadlessConfig {
        width: W,
        height: H,
        surface,
    }
}

fn view() -> ViewRect {
    ViewRect::new(0.0, 0.0, W as f32, H as f32).unwrap()
}

/// Clears, draws `sprites` and reads the whole frame back.
fn render(ctx: &CurrentGlContext, renderer: &mut SpriteRenderer, sprites: &[Sprite]) -> Vec<u8> {
    let mut batcher = SpriteBatcher::default();
    batcher
        .build(
            sprites,
            &BatchParams {
                view: view(),
                alpha: 1.0,
            },
        )
        .unwrap();
    renderer.clear(ctx, CLEAR).unwrap();
    renderer.draw(ctx, &batcher).unwrap();
    ctx.swap_buffers().unwrap();
    ctx.read_pixels(0, 0, W, H).unwrap()
}

fn scene_in(surface: HeadlessSurface, name: &str) {
    let Some(ctx) = headless_or_skip(name, &config(surface)) else {
        return;
    };
    assert_eq!(ctx.size(), (W, H));
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    let rgba = render(&ctx, &mut renderer, &scene());
    assert_scene_pixels(&rgba);
    // Identical frames are bit-identical.
    assert_eq!(render(&ctx, &mut renderer, &scene()), rgba);
    insta::assert_snapshot!("headless_scene", ascii_art(&rgba, W, H));
    renderer.destroy(&ctx);
}

#[test]
fn surfaceless_scene_has_exact_pixels() {
    scene_in(
        HeadlessSurface::Surfaceless,
        "surfaceless_scene_has_exact_pixels",
    );
}

#[test]
fn pbuffer_scene_has_exact_pixels() {
    scene_in(HeadlessSurface::Pbuffer, "pbuffer_scene_has_exact_pixels");
}

#[test]
fn headless_context_reports_its_target_and_ignores_vsync() {
    let Some(mut ctx) = headless_or_skip(
        "headless_context_reports_its_target",
        &config(HeadlessSurface::Surfaceless),
    ) else {
        return;
    };
    assert_eq!(ctx.target(), GlTarget::HeadlessSurfaceless);
    assert_eq!(ctx.refresh_rate_hz(), 0);
    assert!(ctx.window().is_none());
    assert!(!ctx.vsync());
    ctx.set_vsync(true).unwrap();
    assert!(ctx.vsync());
    ctx.swap_buffers().unwrap();
    let v = ctx.gl();
    assert!(glow::HasContext::version(v).major >= 3);
}

#[test]
fn textures_sample_upright_with_nearest_filter() {
    let Some(ctx) = headless_or_skip(
        "textures_sample_upright",
        &config(HeadlessSurface::Surfaceless),
    ) else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    // 2×2, top row first: red, green / white, black.
    #[rustfmt::skip]
    let texels = [
        255, 0, 0, 255,    0, 255, 0, 255,
        255, 255, 255, 255, 0, 0, 0, 255,
    ];
    let tex = renderer
        .upload_texture(&ctx, 2, 2, &texels, TextureOptions::default())
        .unwrap();
    assert_eq!(tex, TextureId::from_index(1));
    assert_eq!(renderer.texture_count(), 2);
    let whole = Sprite {
        texture: tex,
        ..Sprite::quad([16.0, 16.0], [16.0, 16.0], [1.0; 4])
    };
    // A region of one texel: the top-right one (green).
    let one_texel = Sprite {
        texture: tex,
        uv_rect: [0.5, 0.0, 1.0, 0.5],
        ..Sprite::quad([48.0, 16.0], [8.0, 8.0], [1.0; 4])
    };
    // Mirrored on x: red moves to the top-right.
    let mirrored = Sprite {
        texture: tex,
        ..Sprite::quad([48.0, 36.0], [-16.0, 16.0], [1.0; 4])
    };
    let rgba = render(&ctx, &mut renderer, &[whole, one_texel, mirrored]);
    // The whole quad covers x 8..24, y 8..24; its top half is the top row.
    assert_eq!(
        px(&rgba, 10, 22),
        RED_PX,
        "top-left texel at the quad's top-left"
    );
    assert_eq!(px(&rgba, 22, 22), GREEN_PX, "top-right texel");
    assert_eq!(px(&rgba, 10, 10), [255, 255, 255, 255], "bottom-left texel");
    assert_eq!(px(&rgba, 22, 10), [0, 0, 0, 255], "bottom-right texel");
    assert_eq!(px(&rgba, 44, 12), GREEN_PX, "a one-texel region");
    assert_eq!(px(&rgba, 51, 19), GREEN_PX, "a one-texel region");
    assert_eq!(px(&rgba, 54, 42), RED_PX, "mirrored: red at the top-right");
    assert_eq!(
        px(&rgba, 42, 42),
        GREEN_PX,
        "mirrored: green at the top-left"
    );
    insta::assert_snapshot!("headless_textures", ascii_art(&rgba, W, H));
    renderer.destroy(&ctx);
}

#[test]
fn color_tints_the_texture_and_alpha_blends() {
    let Some(ctx) = headless_or_skip(
        "color_tints_the_texture",
        &config(HeadlessSurface::Surfaceless),
    ) else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    let half_red = Sprite::quad([16.0, 16.0], [8.0, 8.0], [1.0, 0.0, 0.0, 0.5]);
    let rgba = render(&ctx, &mut renderer, &[half_red]);
    let [r, g, b, a] = px(&rgba, 16, 16);
    // 0.5 × red + 0.5 × blue; 8-bit rounding may land on either side of 127.5.
    assert!(
        (127..=128).contains(&r) && g == 0 && (127..=128).contains(&b),
        "blended {:?}",
        [r, g, b, a]
    );
    assert_eq!(
        a, 255,
        "destination alpha stays opaque (ONE, ONE_MINUS_SRC_ALPHA)"
    );
    renderer.destroy(&ctx);
}

#[test]
fn rotation_turns_the_quad_about_its_center() {
    let Some(ctx) = headless_or_skip(
        "rotation_turns_the_quad",
        &config(HeadlessSurface::Surfaceless),
    ) else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    // A 20×4 bar at (32, 24) turned 90°: a 4×20 bar, x 30..34, y 14..34.
    let bar = Sprite {
        rotation: std::f32::consts::FRAC_PI_2,
        ..Sprite::quad([32.0, 24.0], [20.0, 4.0], RED)
    };
    let rgba = render(&ctx, &mut renderer, &[bar]);
    assert_eq!(px(&rgba, 31, 15), RED_PX);
    assert_eq!(px(&rgba, 32, 32), RED_PX);
    assert_eq!(
        px(&rgba, 36, 24),
        CLEAR_PX,
        "the unrotated bar would cover this"
    );
    assert_eq!(
        px(&rgba, 24, 24),
        CLEAR_PX,
        "the unrotated bar would cover this"
    );
    assert_eq!(px(&rgba, 32, 35), CLEAR_PX);
    renderer.destroy(&ctx);
}

#[test]
fn context_moves_to_another_thread_and_back() {
    let Some(ctx) = headless_or_skip(
        "context_moves_to_another_thread",
        &config(HeadlessSurface::Surfaceless),
    ) else {
        return;
    };
    let renderer = SpriteRenderer::new(&ctx).unwrap();
    let released: GlContext = ctx.release().unwrap();
    assert_eq!(released.size(), (W, H));
    let (released, renderer) = std::thread::spawn(move || {
        let ctx = released.make_current().unwrap();
        let mut renderer = renderer;
        let rgba = render(&ctx, &mut renderer, &scene());
        assert_scene_pixels(&rgba);
        (ctx.release().unwrap(), renderer)
    })
    .join()
    .unwrap();
    // Back on this thread, the framebuffer still holds the frame drawn there.
    let ctx = released.make_current().unwrap();
    assert_scene_pixels(&ctx.read_pixels(0, 0, W, H).unwrap());
    renderer.destroy(&ctx);
}

#[test]
fn read_back_regions_are_checked() {
    let Some(ctx) = headless_or_skip(
        "read_back_regions_are_checked",
        &config(HeadlessSurface::Surfaceless),
    ) else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    let full = render(&ctx, &mut renderer, &scene());
    // A sub-region matches the same pixels of the full read.
    let sub = ctx.read_pixels(20, 16, 3, 2).unwrap();
    assert_eq!(&sub[0..4], &px(&full, 20, 16));
    assert_eq!(&sub[20..24], &px(&full, 22, 17));
    let e = ctx.read_pixels(60, 0, 5, 1).unwrap_err();
    assert_eq!(
        (e.code(), e.field()),
        (ErrorCode::InvalidArgument, Some("x + width"))
    );
    insta::assert_snapshot!(e.to_string(), @"gl_context/read_region_invalid: invalid argument: x + width = 60 + 5; accepted: width ≥ 1 and x + width ≤ 64 (the target width)");
    let e = ctx.read_pixels(0, 0, 1, 0).unwrap_err();
    assert_eq!(e.field(), Some("y + height"));
    let mut small = [0_u8; 3];
    let e = ctx.read_pixels_into(0, 0, 1, 1, &mut small).unwrap_err();
    assert_eq!(e.field(), Some("out.len()"));
    renderer.destroy(&ctx);
}

#[test]
fn resize_changes_the_framebuffer() {
    let Some(mut ctx) = headless_or_skip(
        "resize_changes_the_framebuffer",
        &config(HeadlessSurface::Surfaceless),
    ) else {
        return;
    };
    let renderer = SpriteRenderer::new(&ctx).unwrap();
    ctx.resize(16, 8).unwrap();
    assert_eq!(ctx.size(), (16, 8));
    renderer.clear(&ctx, RED).unwrap();
    let rgba = ctx.read_pixels(0, 0, 16, 8).unwrap();
    assert!(rgba.chunks_exact(4).all(|p| p == RED_PX));
    let e = ctx.resize(0, 8).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(ctx.size(), (16, 8), "a rejected resize changes nothing");
    renderer.destroy(&ctx);
}

#[test]
fn renderer_rejects_unknown_textures_bad_uploads_and_foreign_contexts() {
    let Some(ctx) = headless_or_skip("renderer_rejects", &config(HeadlessSurface::Surfaceless))
    else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    let mut batcher = SpriteBatcher::default();
    let s = Sprite {
        texture: TextureId::from_index(5),
        ..Sprite::quad([8.0, 8.0], [4.0, 4.0], RED)
    };
    batcher
        .build(
            &[s],
            &BatchParams {
                view: view(),
                alpha: 1.0,
            },
        )
        .unwrap();
    let e = renderer.draw(&ctx, &batcher).unwrap_err();
    insta::assert_snapshot!(e.to_string(), @"sprite_renderer/texture_unknown: invalid argument: batch texture = 5; accepted: 0..1 (the textures this renderer issued)");

    let e = renderer
        .upload_texture(&ctx, 2, 2, &[0; 15], TextureOptions::default())
        .unwrap_err();
    insta::assert_snapshot!(e.to_string(), @"sprite_renderer/texture_invalid: invalid argument: rgba.len() = 15; accepted: width × height × 4 = 16 bytes");
    let e = renderer
        .upload_texture(
            &ctx,
            0,
            2,
            &[],
            TextureOptions {
                filter: TextureFilter::Linear,
            },
        )
        .unwrap_err();
    assert_eq!(e.field(), Some("width"));
    assert_eq!(renderer.texture_count(), 1, "failed uploads add nothing");

    // A second context: the renderer refuses it.
    let other = ctx.release().unwrap();
    let Some(second) = headless_or_skip("renderer_rejects", &config(HeadlessSurface::Surfaceless))
    else {
        return;
    };
    let e = renderer.clear(&second, RED).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(e.id().to_string(), "sprite_renderer/context_mismatch");
    drop(second);
    let ctx = other.make_current().unwrap();
    renderer.destroy(&ctx);
}
