//! What the HUD tests share: reading a frame capture (binary PPM) and
//! reading the HUD's text back from it, glyph by glyph.

use laige_demo::{HUD_MARGIN, HUD_TEXT_SIZE};

/// A frame capture: width, height, RGB pixels (top row first).
pub struct Shot {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<[u8; 3]>,
}

impl Shot {
    /// Reads a binary PPM (P6, 8-bit) as the engine's capture writes it.
    pub fn read(path: &std::path::Path) -> Self {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(32)]).into_owned();
        let fields: Vec<&str> = text.split_ascii_whitespace().take(4).collect();
        assert_eq!((fields[0], fields[3]), ("P6", "255"), "an 8-bit P6 image");
        let (width, height): (usize, usize) =
            (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        let header = format!("P6\n{width} {height}\n255\n").len();
        let pixels: Vec<[u8; 3]> = bytes[header..]
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        assert_eq!(pixels.len(), width * height);
        Self {
            width,
            height,
            pixels,
        }
    }

    /// The pixel at `(x, y)`, `(0, 0)` the top-left.
    pub fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels[y * self.width + x]
    }

    /// Reads the HUD's line `line` back, up to `cells` characters: each
    /// 16-pixel cell's 2 × 2 blocks must be uniform, white where the
    /// embedded font's glyph has a bit and not white elsewhere.
    pub fn hud_line(&self, line: usize, cells: usize) -> String {
        let origin = (2.0 * HUD_MARGIN) as usize; // 16
        self.text_at(origin, origin, line, cells)
    }

    /// Reads `cells` characters of 16-pixel text whose first line's
    /// top-left corner is `(x, y)`, on line `line`, as
    /// [`hud_line`](Self::hud_line) does.
    pub fn text_at(&self, x: usize, y: usize, line: usize, cells: usize) -> String {
        let glyph = HUD_TEXT_SIZE as usize; // 16
        let texel = glyph / 8; // 2
        let mut text = String::new();
        for cell in 0..cells {
            let (x0, y0) = (x + cell * glyph, y + line * glyph);
            let mut rows = [0_u8; 8];
            for (r, bits) in rows.iter_mut().enumerate() {
                for c in 0..8 {
                    let (x, y) = (x0 + c * texel, y0 + r * texel);
                    let lit = self.at(x, y) == [255; 3];
                    for (dx, dy) in [(1, 0), (0, 1), (1, 1)] {
                        assert_eq!(
                            self.at(x + dx, y + dy) == [255; 3],
                            lit,
                            "line {line} cell {cell}: texel ({c}, {r}) is not a uniform 2x2 block"
                        );
                    }
                    if lit {
                        *bits |= 1 << c;
                    }
                }
            }
            let c = (0x20..0x7f_u8)
                .find(|&c| font8x8::legacy::BASIC_LEGACY[usize::from(c)] == rows)
                .unwrap_or_else(|| panic!("line {line} cell {cell}: no glyph matches {rows:?}"));
            text.push(char::from(c));
        }
        text.trim_end().to_owned()
    }
}
