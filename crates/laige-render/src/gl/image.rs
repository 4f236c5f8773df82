//! [`Image`]: RGBA8 texels with premultiplied alpha, decoded from PNG on
//! the caller's thread (at load time, where a bad file is the caller's
//! error) and uploaded later on the render thread.
//!
//! Why premultiplied: the renderer blends `ONE, ONE_MINUS_SRC_ALPHA`, the
//! blend that filters correctly — a linear sample between an opaque texel
//! and a transparent one (whose straight colour is arbitrary, often black)
//! is a correctly weighted mix only when the colour was already scaled by
//! its alpha; with straight alpha the dark fringe of the transparent
//! texel's colour bleeds in. So every texel is stored as
//! `(r·a, g·a, b·a, a)` (rounded to nearest), once, at load time.

use std::path::Path;

use crate::events::{IMAGE_INVALID, IMAGE_LOAD_FAILED};
use laige_core::{Error, ErrorCode, EventId, Result, diag};

/// The largest image side accepted at load time: 8192 texels.
///
/// Where it comes from: every desktop GL 3.3 driver in use reports a
/// `GL_MAX_TEXTURE_SIZE` of at least 8192 (Mesa's llvmpipe 16384), and a
/// 8192² RGBA8 image is already 256 MiB; refusing larger images when they
/// are loaded keeps the render thread's upload from failing later, far
/// from the file that caused it.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// RGBA8 texels, premultiplied alpha, rows in image order (the top row
/// first).
///
/// ```
/// use laige_render::gl::Image;
/// // Half-transparent white becomes half grey with half alpha.
/// let img = Image::from_straight_rgba(1, 1, vec![255, 255, 255, 128])?;
/// assert_eq!(img.texels(), &[128, 128, 128, 128]);
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    texels: Vec<u8>,
}

impl Image {
    /// Wraps texels that are already premultiplied.
    ///
    /// # Errors
    ///
    /// `texture/image_invalid` (`InvalidArgument`): a side of 0 or above
    /// [`MAX_IMAGE_SIDE`], or `texels.len() != width × height × 4`.
    pub fn from_premultiplied_rgba(width: u32, height: u32, texels: Vec<u8>) -> Result<Self> {
        check_size(width, height, texels.len()).map_err(diag::reported)?;
        Ok(Self {
            width,
            height,
            texels,
        })
    }

    /// Converts straight-alpha RGBA8 texels to premultiplied ones.
    ///
    /// # Errors
    ///
    /// As [`from_premultiplied_rgba`](Self::from_premultiplied_rgba).
    pub fn from_straight_rgba(width: u32, height: u32, mut texels: Vec<u8>) -> Result<Self> {
        check_size(width, height, texels.len()).map_err(diag::reported)?;
        premultiply(&mut texels);
        Ok(Self {
            width,
            height,
            texels,
        })
    }

    /// Reads and decodes a PNG file (any colour type and bit depth: palette,
    /// grey and RGB are expanded, 16-bit channels stripped to 8 bits, tRNS
    /// transparency honoured) and premultiplies it.
    ///
    /// # Errors
    ///
    /// `texture/load_failed` with the path as the value: `Io` when the file
    /// cannot be read (the OS error is the source), `Corrupt` when it is not
    /// a valid PNG (the decoder's message is the detail); and
    /// `texture/image_invalid` for a side above [`MAX_IMAGE_SIDE`].
    pub fn from_png_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            diag::reported(
                Error::new(ErrorCode::Io, IMAGE_LOAD_FAILED)
                    .with_field("path")
                    .with_value(path.display())
                    .with_detail("cannot read the file")
                    .with_source(e),
            )
        })?;
        Self::decode_png(&bytes, &path.display().to_string())
    }

    /// Decodes PNG bytes; `name` (a path, an asset name) is the error's value.
    ///
    /// # Errors
    ///
    /// As [`from_png_file`](Self::from_png_file), without the `Io` case.
    pub fn from_png_bytes(bytes: &[u8], name: &str) -> Result<Self> {
        Self::decode_png(bytes, name)
    }

    fn decode_png(bytes: &[u8], name: &str) -> Result<Self> {
        let corrupt = |what: String| {
            diag::reported(
                Error::new(ErrorCode::Corrupt, IMAGE_LOAD_FAILED)
                    .with_field("path")
                    .with_value(name)
                    .with_detail(what),
            )
        };
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder
            .read_info()
            .map_err(|e| corrupt(format!("not a valid PNG: {e}")))?;
        let (width, height) = {
            let info = reader.info();
            (info.width, info.height)
        };
        check_size(width, height, width as usize * height as usize * 4)
            .map_err(|e| diag::reported(e.with_detail(format!("image {name}"))))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| corrupt("the decoded image does not fit in memory".into()))?;
        let mut buf = vec![0_u8; size];
        let out = reader
            .next_frame(&mut buf)
            .map_err(|e| corrupt(format!("damaged PNG data: {e}")))?;
        let texels = to_rgba8(&buf, &out)
            .ok_or_else(|| corrupt(format!("unexpected decoded layout {out:?}")))?;
        let mut img = Self {
            width,
            height,
            texels,
        };
        premultiply(&mut img.texels);
        Ok(img)
    }

    /// Width in texels.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// `width × height × 4` bytes, premultiplied RGBA8, the top row first.
    #[must_use]
    pub fn texels(&self) -> &[u8] {
        &self.texels
    }
}

/// The size rule of every image (unreported: the caller reports once).
fn check_size(width: u32, height: u32, len: usize) -> Result<()> {
    check_rgba_size(
        IMAGE_INVALID,
        (width, height, MAX_IMAGE_SIDE, " texels"),
        ("texels.len()", len),
    )
}

/// The size rule of a block of RGBA8 texels, for images and GL textures
/// alike (unreported: the caller reports once): each side in `1..=max`
/// (`limit` says what the bound is), and the block (`field`, `len` bytes)
/// exactly `width × height × 4` bytes. Errors carry `id`.
pub(super) fn check_rgba_size(
    id: EventId,
    (width, height, max, limit): (u32, u32, u32, &str),
    (field, len): (&'static str, usize),
) -> Result<()> {
    for (side, v) in [("width", width), ("height", height)] {
        if v == 0 || v > max {
            return Err(Error::invalid_argument(
                id,
                side,
                v,
                format!("1..={max}{limit}"),
            ));
        }
    }
    // Both sides ≤ max ≤ u32::MAX: the product is taken in u64 and fits the
    // comparison without overflow.
    let expected = u64::from(width) * u64::from(height) * 4;
    if u64::try_from(len) != Ok(expected) {
        return Err(Error::invalid_argument(
            id,
            field,
            len,
            format!("width × height × 4 = {expected} bytes"),
        ));
    }
    Ok(())
}

/// Expands the decoder's 8-bit output (grey, grey + alpha, RGB or RGBA
/// after `normalize_to_color8`) to RGBA8; `None` for any other layout.
fn to_rgba8(buf: &[u8], out: &png::OutputInfo) -> Option<Vec<u8>> {
    if out.bit_depth != png::BitDepth::Eight {
        return None;
    }
    let channels = match out.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return None,
    };
    let (w, h) = (out.width as usize, out.height as usize);
    let mut rgba = Vec::with_capacity(w * h * 4);
    for row in 0..h {
        let line = buf.get(row * out.line_size..row * out.line_size + w * channels)?;
        for px in line.chunks_exact(channels) {
            let texel = match *px {
                [g] => [g, g, g, 255],
                [g, a] => [g, g, g, a],
                [r, g, b] => [r, g, b, 255],
                [r, g, b, a] => [r, g, b, a],
                _ => return None,
            };
            rgba.extend_from_slice(&texel);
        }
    }
    Some(rgba)
}

/// `(r, g, b, a) → (r·a, g·a, b·a, a)` per texel, rounded to nearest.
fn premultiply(texels: &mut [u8]) {
    for t in texels.chunks_exact_mut(4) {
        let a = u16::from(t[3]);
        if a == 255 {
            continue;
        }
        for c in &mut t[..3] {
            // (c·a + 127) / 255 ≤ 255: the exact rounded product.
            *c = ((u16::from(*c) * a + 127) / 255) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG of `rgba` texels encoded by the `png` crate itself.
    fn encode(width: u32, height: u32, color: png::ColorType, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(color);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(data).unwrap();
        w.finish().unwrap();
        out
    }

    #[test]
    fn decodes_rgba_and_premultiplies() {
        let png = encode(
            2,
            1,
            png::ColorType::Rgba,
            &[255, 0, 0, 255, 200, 100, 50, 0],
        );
        let img = Image::from_png_bytes(&png, "two.png").unwrap();
        assert_eq!((img.width(), img.height()), (2, 1));
        assert_eq!(img.texels(), &[255, 0, 0, 255, 0, 0, 0, 0]);
    }

    #[test]
    fn expands_grey_and_rgb() {
        let img = Image::from_png_bytes(&encode(1, 2, png::ColorType::Grayscale, &[7, 200]), "g")
            .unwrap();
        assert_eq!(img.texels(), &[7, 7, 7, 255, 200, 200, 200, 255]);
        let img =
            Image::from_png_bytes(&encode(1, 1, png::ColorType::Rgb, &[1, 2, 3]), "rgb").unwrap();
        assert_eq!(img.texels(), &[1, 2, 3, 255]);
        let img = Image::from_png_bytes(
            &encode(1, 1, png::ColorType::GrayscaleAlpha, &[255, 51]),
            "ga",
        )
        .unwrap();
        assert_eq!(img.texels(), &[51, 51, 51, 51]);
    }

    #[test]
    fn premultiply_rounds_to_nearest() {
        let mut t = [255, 128, 1, 128, 9, 9, 9, 0, 3, 4, 5, 255];
        premultiply(&mut t);
        assert_eq!(t, [128, 64, 1, 128, 0, 0, 0, 0, 3, 4, 5, 255]);
    }

    #[test]
    fn missing_and_damaged_files_name_the_path_and_the_problem() {
        let dir = std::env::temp_dir().join(format!("laige-image-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.png");
        let e = Image::from_png_file(&missing).unwrap_err();
        assert_eq!((e.code(), e.field()), (ErrorCode::Io, Some("path")));
        assert!(e.to_string().contains("missing.png"), "{e}");

        let damaged = dir.join("damaged.png");
        let mut bytes = encode(4, 4, png::ColorType::Rgba, &[9; 64]);
        bytes.truncate(bytes.len() - 20);
        std::fs::write(&damaged, &bytes).unwrap();
        let e = Image::from_png_file(&damaged).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Corrupt);
        assert!(e.to_string().contains("damaged.png"), "{e}");

        let e = Image::from_png_bytes(b"GIF89a not a png", "logo.gif").unwrap_err();
        insta::assert_snapshot!(e.to_string(), @"texture/load_failed: corrupt data: path = logo.gif (not a valid PNG: Invalid PNG signature.)");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_sizes_and_lengths_are_rejected() {
        let e = Image::from_straight_rgba(0, 1, vec![]).unwrap_err();
        assert_eq!(e.field(), Some("width"));
        let e = Image::from_premultiplied_rgba(MAX_IMAGE_SIDE + 1, 1, vec![]).unwrap_err();
        assert_eq!(e.field(), Some("width"));
        let e = Image::from_premultiplied_rgba(2, 2, vec![0; 15]).unwrap_err();
        insta::assert_snapshot!(e.to_string(), @"texture/image_invalid: invalid argument: texels.len() = 15; accepted: width × height × 4 = 16 bytes");
    }
}
