//! Text as batched glyph sprites: a [`Font`] is a glyph atlas (one
//! texture) and the metrics of its glyphs; [`Font::draw`] appends one
//! textured [`Sprite`] per visible glyph to the frame's sprites, so text
//! batches with everything else (one draw call per run of the atlas).
//!
//! Two sources, one layout:
//! - [`Font::embedded`]: the engine's default font, the public-domain 8×8
//!   bitmap glyphs of Daniel Hepper's `font8x8` (the `font8x8` crate, MIT
//!   licensed; the glyph data itself is in the public domain), sampled
//!   nearest — pixel-exact at whole multiples of 8 px.
//! - [`Font::from_ttf_file`] / [`Font::from_ttf_bytes`]: a game's own
//!   TrueType/OpenType font, rasterized once by `ab_glyph` at the pixel
//!   size given, sampled linearly (draw near that size for crisp text).
//!
//! Both cover printable ASCII (U+0020..=U+007E); any other character draws
//! as `?`. `\n` starts a new line. No kerning.
//!
//! Layout units: `size` is the line's nominal pixel height in the target
//! space (world units or screen pixels); the anchor is the top of the
//! first line (its left end, centre or right end per [`Align`]), lines go
//! down (y decreases: world and screen spaces point y up).
//!
//! Drawing allocates nothing: it appends to the caller's sprite vector
//! (the frame's payload, reused frame after frame).

use std::path::Path;

use crate::events::FONT_INVALID;
use laige_core::{Error, ErrorCode, Result, diag};

use super::batcher::{Space, Sprite, TextureId};
use super::image::Image;
use super::sprite_renderer::{TextureFilter, TextureOptions};
use super::texture_queue::TextureQueue;

/// The first character a font holds (space).
const FIRST: u32 = 0x20;
/// The number of characters (printable ASCII, U+0020..=U+007E).
const COUNT: usize = 95;
/// Index of the replacement character `?`.
const FALLBACK: usize = ('?' as u32 - FIRST) as usize;

/// Horizontal alignment of each line against the anchor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Align {
    /// The anchor is each line's left end — the default.
    #[default]
    Left,
    /// The anchor is each line's centre.
    Center,
    /// The anchor is each line's right end.
    Right,
}

/// How [`Font::draw`] lays text out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextStyle {
    /// The anchor: the top of the first line (see [`Align`]).
    pub position: [f32; 2],
    /// The line's nominal height in the target space's units (for the
    /// embedded font, 8, 16, 24 … draw whole pixels). Default 16.
    pub size: f32,
    /// Straight RGBA. Default opaque white.
    pub color: [f32; 4],
    /// Line alignment. Default left.
    pub align: Align,
    /// World or screen coordinates. Default [`Space::Screen`] (text is
    /// usually a HUD).
    pub space: Space,
    /// Draw order ([`Sprite::layer`]). Default 255 (over the world).
    pub layer: u8,
}

impl Default for TextStyle {
    fn default() -> Self {
        Self {
            position: [0.0, 0.0],
            size: 16.0,
            color: [1.0; 4],
            align: Align::Left,
            space: Space::Screen,
            layer: 255,
        }
    }
}

/// One glyph's placement in font pixels (at the font's native size).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Glyph {
    /// Pen advance.
    advance: f32,
    /// The bitmap's top-left relative to the pen at the line's top, y down.
    offset: [f32; 2],
    /// The bitmap's size; zero for a glyph with nothing to draw.
    size: [f32; 2],
    /// The bitmap's region in the atlas.
    uv: [f32; 4],
}

/// A glyph atlas and its metrics: printable ASCII (anything else draws as
/// `?`), laid out from the top of the first line downwards, `size` being
/// the line's nominal height in the target space's units.
///
/// ```
/// use laige_render::gl::{Font, TextureQueue};
/// let queue = TextureQueue::default();
/// let font = Font::embedded(&queue)?;
/// assert_eq!(font.measure("HUD", 16.0), [48.0, 16.0]);
/// let mut sprites = Vec::new();
/// font.draw(&mut sprites, "HI", &Default::default());
/// assert_eq!(sprites.len(), 2);
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Font {
    texture: TextureId,
    /// The native pixel size `size` is measured against.
    px: f32,
    /// Line advance in native pixels.
    line_height: f32,
    glyphs: [Glyph; COUNT],
}

/// One rasterized glyph before packing.
struct Raster {
    w: u32,
    h: u32,
    /// `w × h` coverage bytes, rows top first.
    coverage: Vec<u8>,
    offset: [f32; 2],
    advance: f32,
}

/// Atlas cell padding in texels (linear sampling never reads a neighbour).
const PAD: u32 = 1;

impl Font {
    /// The embedded 8×8 font, its atlas queued on `queue` (nearest
    /// filtering). The line height is 8 px: lines touch, as the glyphs
    /// keep their own blank bottom row.
    ///
    /// # Errors
    ///
    /// `texture/queue_full` only.
    pub fn embedded(queue: &TextureQueue) -> Result<Self> {
        const CELL: u32 = 8 + 2 * PAD;
        const COLS: u32 = 16;
        let rows = (COUNT as u32).div_ceil(COLS);
        let (aw, ah) = (COLS * CELL, rows * CELL);
        let mut texels = vec![0_u8; (aw * ah * 4) as usize];
        let mut glyphs = [Glyph::default(); COUNT];
        for (i, glyph) in glyphs.iter_mut().enumerate() {
            let bitmap = font8x8::legacy::BASIC_LEGACY[FIRST as usize + i];
            let (cx, cy) = (
                (i as u32 % COLS) * CELL + PAD,
                (i as u32 / COLS) * CELL + PAD,
            );
            for (row, bits) in bitmap.iter().enumerate() {
                for col in 0..8 {
                    // Bit 0 is the leftmost pixel.
                    if bits >> col & 1 == 1 {
                        let at = (((cy + row as u32) * aw + cx + col) * 4) as usize;
                        texels[at..at + 4].copy_from_slice(&[255; 4]);
                    }
                }
            }
            *glyph = Glyph {
                advance: 8.0,
                offset: [0.0, 0.0],
                size: if bitmap.iter().all(|r| *r == 0) {
                    [0.0, 0.0]
                } else {
                    [8.0, 8.0]
                },
                uv: uv_rect(cx, cy, 8, 8, aw, ah),
            };
        }
        let image = Image::from_premultiplied_rgba(aw, ah, texels)?;
        let texture = queue.add(
            image,
            TextureOptions {
                filter: TextureFilter::Nearest,
            },
        )?;
        Ok(Self {
            texture,
            px: 8.0,
            line_height: 8.0,
            glyphs,
        })
    }

    /// Reads a TrueType/OpenType file and rasterizes it at `px` pixels
    /// (`4.0..=256.0`) into an atlas queued on `queue` (linear filtering).
    ///
    /// # Errors
    ///
    /// `text/font_invalid`: `Io` when the file cannot be read, `Corrupt`
    /// when it is not a font, `InvalidArgument` for `px` out of range —
    /// each naming the path.
    pub fn from_ttf_file(queue: &TextureQueue, path: impl AsRef<Path>, px: f32) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            diag::reported(
                Error::new(ErrorCode::Io, FONT_INVALID)
                    .with_field("path")
                    .with_value(path.display())
                    .with_detail("cannot read the font file")
                    .with_source(e),
            )
        })?;
        Self::from_ttf_bytes(queue, &bytes, &path.display().to_string(), px)
    }

    /// As [`from_ttf_file`](Self::from_ttf_file) from bytes; `name` is the
    /// errors' value.
    ///
    /// # Errors
    ///
    /// As [`from_ttf_file`](Self::from_ttf_file), without the `Io` case.
    pub fn from_ttf_bytes(queue: &TextureQueue, bytes: &[u8], name: &str, px: f32) -> Result<Self> {
        use ab_glyph::{Font as _, ScaleFont as _};
        if !(4.0..=256.0).contains(&px) {
            return Err(diag::reported(Error::invalid_argument(
                FONT_INVALID,
                "px",
                px,
                "4.0..=256.0 pixels",
            )));
        }
        let font = ab_glyph::FontRef::try_from_slice(bytes).map_err(|e| {
            diag::reported(
                Error::new(ErrorCode::Corrupt, FONT_INVALID)
                    .with_field("path")
                    .with_value(name)
                    .with_detail(format!("not a TrueType/OpenType font: {e}")),
            )
        })?;
        let scaled = font.as_scaled(px);
        let ascent = scaled.ascent();
        let line_height = (scaled.height() + scaled.line_gap()).ceil().max(1.0);
        // Rasterize every glyph, then pack them on shelves of a square-ish atlas.
        let mut bitmaps: Vec<Raster> = Vec::with_capacity(COUNT);
        for i in 0..COUNT {
            let c = char::from_u32(FIRST + i as u32).unwrap_or('?');
            let id = font.glyph_id(c);
            let advance = scaled.h_advance(id);
            let glyph = id.with_scale_and_position(px, ab_glyph::point(0.0, ascent));
            match font.outline_glyph(glyph) {
                Some(outlined) => {
                    let b = outlined.px_bounds();
                    let (w, h) = (b.width() as u32, b.height() as u32);
                    let mut cov = vec![0_u8; (w * h) as usize];
                    outlined.draw(|x, y, c| {
                        if x < w && y < h {
                            cov[(y * w + x) as usize] = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
                        }
                    });
                    bitmaps.push(Raster {
                        w,
                        h,
                        coverage: cov,
                        offset: [b.min.x, b.min.y],
                        advance,
                    });
                }
                None => bitmaps.push(Raster {
                    w: 0,
                    h: 0,
                    coverage: Vec::new(),
                    offset: [0.0, 0.0],
                    advance,
                }),
            }
        }
        let atlas_w = (px.ceil() as u32 + 2 * PAD) * 12;
        let (mut x, mut y, mut shelf) = (0_u32, 0_u32, 0_u32);
        let mut places = [(0_u32, 0_u32); COUNT];
        for (place, Raster { w, h, .. }) in places.iter_mut().zip(&bitmaps) {
            let (cw, ch) = (w + 2 * PAD, h + 2 * PAD);
            if x + cw > atlas_w {
                (x, y, shelf) = (0, y + shelf, 0);
            }
            *place = (x + PAD, y + PAD);
            x += cw;
            shelf = shelf.max(ch);
        }
        let atlas_h = (y + shelf).max(1);
        let mut texels = vec![0_u8; (atlas_w * atlas_h * 4) as usize];
        let mut glyphs = [Glyph::default(); COUNT];
        for ((glyph, r), (gx, gy)) in glyphs.iter_mut().zip(&bitmaps).zip(places) {
            let Raster {
                w,
                h,
                coverage: cov,
                offset,
                advance,
            } = r;
            for row in 0..*h {
                for col in 0..*w {
                    let a = cov[(row * w + col) as usize];
                    let at = (((gy + row) * atlas_w + gx + col) * 4) as usize;
                    // White, premultiplied: every channel is the coverage.
                    texels[at..at + 4].copy_from_slice(&[a; 4]);
                }
            }
            *glyph = Glyph {
                advance: *advance,
                offset: *offset,
                size: [*w as f32, *h as f32],
                uv: uv_rect(gx, gy, *w, *h, atlas_w, atlas_h),
            };
        }
        let image = Image::from_premultiplied_rgba(atlas_w, atlas_h, texels)?;
        let texture = queue.add(
            image,
            TextureOptions {
                filter: TextureFilter::Linear,
            },
        )?;
        Ok(Self {
            texture,
            px,
            line_height,
            glyphs,
        })
    }

    /// The atlas texture.
    #[must_use]
    pub fn texture(&self) -> TextureId {
        self.texture
    }

    fn glyph(&self, c: char) -> &Glyph {
        let i = (c as u32).wrapping_sub(FIRST) as usize;
        self.glyphs.get(i).unwrap_or(&self.glyphs[FALLBACK])
    }

    /// The width of one line (no `\n` inside) at `size`.
    fn line_width(&self, line: &str, size: f32) -> f32 {
        let scale = size / self.px;
        line.chars().map(|c| self.glyph(c).advance).sum::<f32>() * scale
    }

    /// `[width, height]` of `text` at `size`: the widest line's advance and
    /// the number of lines × the line height.
    #[must_use]
    pub fn measure(&self, text: &str, size: f32) -> [f32; 2] {
        let mut width = 0.0_f32;
        let mut lines = 0_u32;
        for line in text.split('\n') {
            width = width.max(self.line_width(line, size));
            lines += 1;
        }
        [width, lines as f32 * self.line_height * size / self.px]
    }

    /// Appends one sprite per visible glyph of `text` to `out`, each line
    /// aligned against `style.position` (the top of the first line; `\n`
    /// starts the next line one line height lower). Returns the number
    /// appended; allocates nothing once `out` has grown.
    pub fn draw(&self, out: &mut Vec<Sprite>, text: &str, style: &TextStyle) -> usize {
        let scale = style.size / self.px;
        let mut top = style.position[1];
        let mut n = 0;
        for line in text.split('\n') {
            let width = match style.align {
                Align::Left => 0.0,
                Align::Center | Align::Right => self.line_width(line, style.size),
            };
            let mut pen = match style.align {
                Align::Left => style.position[0],
                Align::Center => style.position[0] - width * 0.5,
                Align::Right => style.position[0] - width,
            };
            for c in line.chars() {
                let g = self.glyph(c);
                if g.size[0] > 0.0 {
                    let (w, h) = (g.size[0] * scale, g.size[1] * scale);
                    let left = pen + g.offset[0] * scale;
                    let gtop = top - g.offset[1] * scale;
                    let center = [left + w * 0.5, gtop - h * 0.5];
                    out.push(Sprite {
                        uv_rect: g.uv,
                        texture: self.texture,
                        space: style.space,
                        layer: style.layer,
                        ..Sprite::quad(center, [w, h], style.color)
                    });
                    n += 1;
                }
                pen += g.advance * scale;
            }
            top -= self.line_height * scale;
        }
        n
    }
}

/// The normalized region of a `w × h` cell at `(x, y)` in an atlas.
fn uv_rect(x: u32, y: u32, w: u32, h: u32, aw: u32, ah: u32) -> [f32; 4] {
    let (aw, ah) = (aw as f32, ah as f32);
    [
        x as f32 / aw,
        y as f32 / ah,
        (x + w) as f32 / aw,
        (y + h) as f32 / ah,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_counts_advances_and_lines() {
        let q = TextureQueue::default();
        let f = Font::embedded(&q).unwrap();
        assert_eq!(f.measure("", 8.0), [0.0, 8.0]);
        assert_eq!(f.measure("abc", 8.0), [24.0, 8.0]);
        assert_eq!(f.measure("ab\nwxyz", 16.0), [64.0, 32.0]);
        assert_eq!(f.measure("é", 8.0), [8.0, 8.0], "non-ASCII draws as '?'");
        assert_eq!(q.pending(), 1, "one atlas queued");
    }

    #[test]
    fn draw_places_glyphs_per_alignment_and_skips_blanks() {
        let q = TextureQueue::default();
        let f = Font::embedded(&q).unwrap();
        let mut out = Vec::new();
        let style = TextStyle {
            position: [100.0, 50.0],
            size: 16.0,
            ..TextStyle::default()
        };
        assert_eq!(f.draw(&mut out, "A B", &style), 2, "the space has no quad");
        assert_eq!(out[0].position, [108.0, 42.0]);
        assert_eq!(out[1].position, [140.0, 42.0]);
        assert_eq!(out[0].size, [16.0, 16.0]);
        assert_eq!((out[0].space, out[0].layer), (Space::Screen, 255));
        out.clear();
        f.draw(
            &mut out,
            "AB\nC",
            &TextStyle {
                align: Align::Right,
                ..style
            },
        );
        assert_eq!(out[1].position, [92.0, 42.0], "B ends at the anchor");
        assert_eq!(out[2].position, [92.0, 26.0], "C on the second line");
        out.clear();
        f.draw(
            &mut out,
            "AB",
            &TextStyle {
                align: Align::Center,
                ..style
            },
        );
        assert_eq!(out[0].position, [92.0, 42.0]);
    }

    #[test]
    fn drawing_reuses_the_output_vector() {
        let q = TextureQueue::default();
        let f = Font::embedded(&q).unwrap();
        let mut out = Vec::with_capacity(64);
        let ptr = out.as_ptr();
        for _ in 0..10 {
            out.clear();
            f.draw(&mut out, "tick 123 fps 60", &TextStyle::default());
        }
        assert_eq!(out.as_ptr(), ptr);
    }

    #[test]
    fn bad_font_data_and_sizes_are_errors() {
        let q = TextureQueue::default();
        let e = Font::from_ttf_bytes(&q, b"not a font", "hud.ttf", 16.0).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Corrupt);
        assert!(e.to_string().contains("hud.ttf"), "{e}");
        let e = Font::from_ttf_bytes(&q, b"", "hud.ttf", 1000.0).unwrap_err();
        assert_eq!(e.field(), Some("px"));
        let e = Font::from_ttf_file(&q, "/nonexistent/hud.ttf", 16.0).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        assert_eq!(q.pending(), 0);
    }
}
