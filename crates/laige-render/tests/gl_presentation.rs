//! What a small game presents, against real pixels on a headless EGL
//! context (Mesa's llvmpipe on CI): PNG textures through the texture queue
//! (texels, atlas regions, nearest and linear filtering, premultiplied
//! blending), the embedded font's glyphs, a glyph of a loaded TrueType font
//! (DejaVu Sans through ab_glyph), a circle's edge, layers and
//! screen space (a HUD over the world, the scale factor), and the
//! letterbox bars after the target is resized. Skipped (one printed line)
//! without EGL unless `LAIGE_REQUIRE_GL=1`.

#![cfg(feature = "gl")]

mod gl_support;

use gl_support::*;
use laige_render::gl::{
    Align, BatchParams, CurrentGlContext, Font, HeadlessConfig, Space, Sprite, SpriteBatcher,
    SpriteRenderer, TextStyle, TextureFilter, TextureOptions, TextureQueue, ViewPolicy, ViewRect,
};

fn config() -> HeadlessConfig {
    HeadlessConfig {
        width: W,
        height: H,
        ..HeadlessConfig::default()
    }
}

/// Clears, draws `sprites` in the `view` and reads the whole target back.
fn render_view(
    ctx: &CurrentGlContext,
    renderer: &mut SpriteRenderer,
    view: ViewRect,
    sprites: &[Sprite],
) -> Vec<u8> {
    let mut batcher = SpriteBatcher::default();
    batcher
        .build(sprites, &BatchParams { view, alpha: 1.0 })
        .unwrap();
    renderer.clear(ctx, CLEAR).unwrap();
    renderer.draw(ctx, &batcher).unwrap();
    let (w, h) = ctx.size();
    ctx.read_pixels(0, 0, w, h).unwrap()
}

fn render(ctx: &CurrentGlContext, renderer: &mut SpriteRenderer, sprites: &[Sprite]) -> Vec<u8> {
    let view = ViewRect::new(0.0, 0.0, W as f32, H as f32).unwrap();
    render_view(ctx, renderer, view, sprites)
}

/// The pixel at `(x, y)` of a `width`-wide read-back.
fn px_w(rgba: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * width + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

/// A PNG file of straight RGBA texels in a fresh temporary directory.
fn png_file(name: &str, width: u32, height: u32, rgba: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("laige-gl-presentation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut enc = png::Encoder::new(file, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(rgba).unwrap();
    w.finish().unwrap();
    path
}

#[test]
fn png_texels_land_on_their_pixels_and_blend_premultiplied() {
    let Some(ctx) = headless_or_skip("png_texels", &config()) else {
        return;
    };
    let queue = TextureQueue::default();
    // A 4×2 sprite sheet, top row first: red, green, white, half-transparent
    // red / black, black, black, fully transparent green.
    #[rustfmt::skip]
    let texels = [
        255, 0, 0, 255,   0, 255, 0, 255,   255, 255, 255, 255,   255, 0, 0, 128,
        0, 0, 0, 255,     0, 0, 0, 255,     0, 0, 0, 255,         0, 255, 0, 0,
    ];
    let path = png_file("sheet.png", 4, 2, &texels);
    let sheet = queue.load_png(&path, TextureOptions::default()).unwrap();
    assert_eq!(queue.pending(), 1, "queued, not yet uploaded");
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.attach_texture_queue(queue.clone());
    // The whole sheet at 4 px per texel: x 8..24, y 8..16.
    let whole = Sprite {
        texture: sheet,
        ..Sprite::quad([16.0, 12.0], [16.0, 8.0], [1.0; 4])
    };
    // One atlas region (the top row's second cell, green) on 8×8 px.
    let region = Sprite {
        texture: sheet,
        uv_rect: [0.25, 0.0, 0.5, 0.5],
        ..Sprite::quad([40.0, 12.0], [8.0, 8.0], [1.0; 4])
    };
    let rgba = render(&ctx, &mut renderer, &[whole, region]);
    assert_eq!(queue.pending(), 0, "the draw uploaded it");
    assert_eq!(px(&rgba, 9, 15), RED_PX, "top-left texel");
    assert_eq!(px(&rgba, 13, 14), GREEN_PX);
    assert_eq!(px(&rgba, 18, 13), [255, 255, 255, 255]);
    assert_eq!(px(&rgba, 10, 9), [0, 0, 0, 255], "bottom row");
    // Half-transparent red over the blue clear: (255·0.5 + 0, 0, 255·0.5).
    let [r, g, b, a] = px(&rgba, 22, 14);
    assert!(
        (127..=128).contains(&r) && g == 0 && (127..=128).contains(&b) && a == 255,
        "premultiplied blend gave {:?}",
        [r, g, b, a]
    );
    assert_eq!(
        px(&rgba, 22, 9),
        CLEAR_PX,
        "a transparent texel leaves the clear"
    );
    assert_eq!(px(&rgba, 36, 8), GREEN_PX, "the region's corner");
    assert_eq!(px(&rgba, 43, 15), GREEN_PX, "the region's far corner");
    assert_eq!(px(&rgba, 44, 12), CLEAR_PX, "right of the region");
    renderer.destroy(&ctx);
}

#[test]
fn linear_filtering_mixes_neighbouring_texels_and_nearest_does_not() {
    let Some(ctx) = headless_or_skip("linear_filtering", &config()) else {
        return;
    };
    let queue = TextureQueue::default();
    let black_white = [0, 0, 0, 255, 255, 255, 255, 255];
    let path = png_file("bw.png", 2, 1, &black_white);
    let nearest = queue.load_png(&path, TextureOptions::default()).unwrap();
    let linear = queue
        .load_png(
            &path,
            TextureOptions {
                filter: TextureFilter::Linear,
            },
        )
        .unwrap();
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.attach_texture_queue(queue);
    // Each texture over 4 pixels: pixel centres sample u = 1/8, 3/8, 5/8, 7/8.
    let row = |texture, y| Sprite {
        texture,
        ..Sprite::quad([10.0, y], [4.0, 1.0], [1.0; 4])
    };
    let rgba = render(
        &ctx,
        &mut renderer,
        &[row(nearest, 10.5), row(linear, 20.5)],
    );
    let reds = |y| (8..12).map(|x| px(&rgba, x, y)[0]).collect::<Vec<_>>();
    assert_eq!(reds(10), [0, 0, 255, 255]);
    let lin = reds(20);
    assert_eq!((lin[0], lin[3]), (0, 255), "clamped to the edge texels");
    assert!(
        (60..=68).contains(&lin[1]) && (187..=195).contains(&lin[2]),
        "a quarter and three quarters of the way: {lin:?}"
    );
    renderer.destroy(&ctx);
}

#[test]
fn embedded_glyphs_have_exact_pixels() {
    let Some(ctx) = headless_or_skip("embedded_glyphs", &config()) else {
        return;
    };
    let queue = TextureQueue::default();
    let font = Font::embedded(&queue).unwrap();
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.attach_texture_queue(queue);
    let mut sprites = Vec::new();
    // "A" at 16 px (2 pixels per font pixel), its top-left at (4, 44).
    let style = TextStyle {
        position: [4.0, 44.0],
        size: 16.0,
        color: RED,
        ..TextStyle::default()
    };
    font.draw(&mut sprites, "A", &style);
    // "Hi!" right-aligned against x = 62, top at y = 20, at 8 px.
    font.draw(
        &mut sprites,
        "Hi!",
        &TextStyle {
            position: [62.0, 20.0],
            size: 8.0,
            color: GREEN,
            align: Align::Right,
            ..TextStyle::default()
        },
    );
    let rgba = render(&ctx, &mut renderer, &sprites);
    // font8x8's 'A', top row first; bit 0 is the leftmost pixel.
    let a: [u8; 8] = [0x0C, 0x1E, 0x33, 0x33, 0x3F, 0x33, 0x33, 0x00];
    for (row, bits) in a.iter().enumerate() {
        for col in 0..8_u32 {
            let lit = bits >> col & 1 == 1;
            // The centre of the 2×2 block of font pixel (col, row).
            let (x, y) = (4 + 2 * col, 43 - 2 * row as u32);
            let want = if lit { RED_PX } else { CLEAR_PX };
            assert_eq!(px(&rgba, x, y), want, "glyph pixel ({col}, {row})");
            assert_eq!(px(&rgba, x + 1, y - 1), want, "glyph pixel ({col}, {row})");
        }
    }
    assert_eq!(font.measure("Hi!", 8.0), [24.0, 8.0]);
    insta::assert_snapshot!("presentation_glyphs", ascii_art(&rgba, W, H));
    renderer.destroy(&ctx);
}

#[test]
fn a_circle_is_filled_inside_clear_outside_and_blended_on_its_edge() {
    let Some(ctx) = headless_or_skip("circle_edge", &config()) else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    let rgba = render(
        &ctx,
        &mut renderer,
        &[Sprite::circle([32.0, 24.0], 10.0, RED)],
    );
    // Pixel centres at .5: (32.5, 24.5) is the centre pixel.
    assert_eq!(px(&rgba, 32, 24), RED_PX);
    assert_eq!(px(&rgba, 39, 24), RED_PX, "7.5 from the centre: inside");
    assert_eq!(px(&rgba, 24, 24), RED_PX, "8.5 left: inside");
    assert_eq!(px(&rgba, 32, 32), RED_PX, "7.5 up: inside");
    // The quad's corners are outside the disc: the clear colour.
    assert_eq!(px(&rgba, 23, 15), CLEAR_PX, "the quad's corner");
    assert_eq!(px(&rgba, 40, 32), CLEAR_PX, "the quad's corner");
    assert_eq!(px(&rgba, 43, 24), CLEAR_PX, "11.5 right: outside the quad");
    // On the edge: the pixel at x = 41, y = 23 has its centre (41.5, 23.5)
    // 9.51 from the circle's centre (32, 24), within a pixel of the radius
    // 10: partly covered, a red/blue mix.
    let [r, g, b, _] = px(&rgba, 41, 23);
    assert!(r > 0 && b > 0 && g == 0, "edge pixel {:?}", [r, g, b]);
    // Symmetric: the pixel mirrored through the centre, (22, 24) with its
    // centre at (22.5, 24.5), has the same colour.
    assert_eq!(px(&rgba, 41, 23), px(&rgba, 22, 24));
    assert_eq!(px(&rgba, 42, 24), CLEAR_PX, "10.5 from the centre: outside");
    renderer.destroy(&ctx);
}

#[test]
fn the_hud_layer_draws_over_the_world_in_screen_pixels() {
    let Some(ctx) = headless_or_skip("hud_layer", &config()) else {
        return;
    };
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.set_scale_factor(2.0).unwrap();
    // The HUD comes first in the input but is on layer 255; its screen
    // position is in logical pixels (physical ÷ 2): logical (4..12, 4..12)
    // is physical 8..24.
    let hud = Sprite {
        space: Space::Screen,
        layer: 255,
        ..Sprite::quad([8.0, 8.0], [8.0, 8.0], GREEN)
    };
    // The world view is zoomed out ×4 (0..256 × 0..192): a world quad of
    // 80×80 at (64, 64) covers physical 6..26 — under the HUD.
    let world = Sprite::quad([64.0, 64.0], [80.0, 80.0], RED);
    let view = ViewRect::new(0.0, 0.0, 256.0, 192.0).unwrap();
    let rgba = render_view(&ctx, &mut renderer, view, &[hud, world]);
    assert_eq!(px(&rgba, 8, 8), GREEN_PX, "HUD over the world");
    assert_eq!(px(&rgba, 23, 23), GREEN_PX);
    assert_eq!(px(&rgba, 24, 24), RED_PX, "the world around the HUD");
    assert_eq!(px(&rgba, 6, 6), RED_PX);
    assert_eq!(px(&rgba, 5, 5), CLEAR_PX);
    assert!(renderer.set_scale_factor(0.0).is_err());
    assert!(renderer.set_scale_factor(f32::NAN).is_err());
    renderer.destroy(&ctx);
}

#[test]
fn letterbox_bars_follow_a_resize() {
    let Some(mut ctx) = headless_or_skip("letterbox", &config()) else {
        return;
    };
    const BAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
    const BAR_PX: [u8; 4] = [0, 0, 0, 255];
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.set_view_policy(ViewPolicy::Letterbox { bar_color: BAR });
    // A 4:3 view filled with white, its corners marked red.
    let view = ViewRect::new(0.0, 0.0, 40.0, 30.0).unwrap();
    let scene = [
        Sprite::quad([20.0, 15.0], [40.0, 30.0], [1.0; 4]),
        Sprite::quad([1.0, 1.0], [2.0, 2.0], RED),
        Sprite::quad([39.0, 29.0], [2.0, 2.0], RED),
    ];
    // 64×48 is 4:3: no bars.
    let rgba = render_view(&ctx, &mut renderer, view, &scene);
    assert_eq!(px(&rgba, 0, 0), RED_PX);
    assert_eq!(px(&rgba, 63, 47), RED_PX);

    // Wider (64×32): the view is 43 px wide (round(32 × 4/3)), bars of 10
    // and 11 px left and right.
    ctx.resize(64, 32).unwrap();
    let rgba = render_view(&ctx, &mut renderer, view, &scene);
    let at = |x, y| px_w(&rgba, 64, x, y);
    assert_eq!((at(0, 16), at(9, 16), at(9, 0)), (BAR_PX, BAR_PX, BAR_PX));
    assert_eq!(at(10, 0), RED_PX, "the view's bottom-left corner");
    assert_eq!(at(30, 16), [255; 4]);
    assert_eq!(at(52, 31), RED_PX, "the view's top-right corner");
    assert_eq!((at(53, 31), at(63, 0)), (BAR_PX, BAR_PX));

    // Taller (32×64): 24 px high, bars of 20 px below and above.
    ctx.resize(32, 64).unwrap();
    let rgba = render_view(&ctx, &mut renderer, view, &scene);
    let at = |x, y| px_w(&rgba, 32, x, y);
    assert_eq!((at(16, 0), at(16, 19), at(0, 19)), (BAR_PX, BAR_PX, BAR_PX));
    assert_eq!(at(0, 20), RED_PX);
    assert_eq!(at(31, 43), RED_PX);
    assert_eq!((at(16, 44), at(31, 63)), (BAR_PX, BAR_PX));
    let mut art = String::new();
    for y in (0..64).rev().step_by(4) {
        for x in 0..32 {
            art.push(match at(x, y) {
                BAR_PX => '#',
                RED_PX => 'R',
                [255, 255, 255, 255] => 'W',
                _ => '?',
            });
        }
        art.push('\n');
    }
    insta::assert_snapshot!("presentation_letterbox_tall", art);
    renderer.destroy(&ctx);
}

#[test]
fn hud_text_draws_over_a_letterboxed_world() {
    let Some(ctx) = headless_or_skip("hud_text_letterboxed", &config()) else {
        return;
    };
    let queue = TextureQueue::default();
    let font = Font::embedded(&queue).unwrap();
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.attach_texture_queue(queue);
    renderer.set_view_policy(ViewPolicy::Letterbox {
        bar_color: [0.0, 0.0, 0.0, 1.0],
    });
    let view = ViewRect::new(0.0, 0.0, 40.0, 30.0).unwrap();
    let mut sprites = vec![Sprite::quad([20.0, 15.0], [40.0, 30.0], [1.0; 4])];
    font.draw(
        &mut sprites,
        "OK",
        &TextStyle {
            position: [0.0, H as f32],
            size: 8.0,
            color: GREEN,
            ..TextStyle::default()
        },
    );
    let rgba = render_view(&ctx, &mut renderer, view, &sprites);
    // The 'O' glyph's top row, from the font data itself (bit 0 leftmost).
    let top_row = font8x8::legacy::BASIC_LEGACY['O' as usize][0];
    assert_ne!(top_row, 0);
    for x in 0..8 {
        let want = if top_row >> x & 1 == 1 {
            GREEN_PX
        } else {
            [255; 4]
        };
        assert_eq!(px(&rgba, x, H - 1), want, "the 'O' top row at x = {x}");
    }
    assert_eq!(px(&rgba, 30, 20), [255; 4], "the world under no text");
    renderer.destroy(&ctx);
}

/// A freely licensed TrueType font every CI machine has: DejaVu Sans from
/// Debian's `fonts-dejavu-core` (installed by `.ci/run`; the Bitstream Vera
/// licence and its DejaVu changes are public domain — anyone may use and
/// redistribute it).
const DEJAVU_SANS: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

#[test]
fn a_ttf_glyph_lands_with_its_rasterized_coverage() {
    let Some(ctx) = headless_or_skip("ttf_glyph", &config()) else {
        return;
    };
    if !std::path::Path::new(DEJAVU_SANS).exists() {
        assert!(
            !gl_required(),
            "{DEJAVU_SANS} is missing: install Debian's fonts-dejavu-core"
        );
        visible_line(&format!(
            "SKIPPED: ttf_glyph: {DEJAVU_SANS} is missing (Debian's fonts-dejavu-core)"
        ));
        return;
    }
    let size = 24.0;
    let queue = TextureQueue::default();
    let font = Font::from_ttf_file(&queue, DEJAVU_SANS, size).unwrap();
    let mut renderer = SpriteRenderer::new(&ctx).unwrap();
    renderer.attach_texture_queue(queue);
    // At its own size and a whole-pixel anchor, each atlas texel covers one
    // pixel, so linear filtering samples texel centres: the exact coverage.
    let (left, top) = (20_i32, 40_i32);
    let mut sprites = Vec::new();
    let style = TextStyle {
        position: [left as f32, top as f32],
        size,
        color: [1.0; 4],
        ..TextStyle::default()
    };
    assert_eq!(font.draw(&mut sprites, "R", &style), 1);
    let rgba = render(&ctx, &mut renderer, &sprites);

    // The same glyph rasterized here by ab_glyph: its pixel box below the
    // line's top (the ascent) and its coverage, row 0 at the top.
    use ab_glyph::{Font as _, ScaleFont as _};
    let bytes = std::fs::read(DEJAVU_SANS).unwrap();
    let ttf = ab_glyph::FontRef::try_from_slice(&bytes).unwrap();
    let ascent = ttf.as_scaled(size).ascent();
    let glyph = ttf
        .glyph_id('R')
        .with_scale_and_position(size, ab_glyph::point(0.0, ascent));
    let outlined = ttf.outline_glyph(glyph).unwrap();
    let bounds = outlined.px_bounds();
    let (w, h) = (bounds.width() as i32, bounds.height() as i32);
    let mut coverage = vec![0_u8; (w * h) as usize];
    outlined.draw(|x, y, c| {
        if (x as i32) < w && (y as i32) < h {
            coverage[(y as i32 * w + x as i32) as usize] =
                (c.clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    });
    let (x0, y_top) = (left + bounds.min.x as i32, top - bounds.min.y as i32);
    let (mut full, mut partial) = (0, 0);
    // The glyph's box and a ring of two pixels around it (clear there).
    for row in -2..h + 2 {
        for col in -2..w + 2 {
            let inside = (0..w).contains(&col) && (0..h).contains(&row);
            let a = if inside {
                coverage[(row * w + col) as usize]
            } else {
                0
            };
            full += usize::from(a == 255);
            partial += usize::from(a > 0 && a < 255);
            // White premultiplied over the blue clear colour: red and green
            // are the coverage, blue and alpha stay full.
            let (x, y) = (x0 + col, y_top - 1 - row);
            assert_eq!(
                px(&rgba, x as u32, y as u32),
                [a, a, 255, 255],
                "glyph texel ({col}, {row}) at pixel ({x}, {y})"
            );
        }
    }
    assert!(full > 20 && partial > 10, "{full} full, {partial} partial");
    renderer.destroy(&ctx);
}
