//! What the examples share for their screenshot check: the command line
//! (`--window`, `--screenshot PATH`, `--ticks N`) and reading back the binary PPM the
//! engine's frame capture writes (`EngineOptions::capture`).

use std::path::{Path, PathBuf};

/// The frame a screenshot is taken of, and the frame the window closes
/// after (windowed runs with `--screenshot`).
pub const SHOT_FRAME: u64 = 30;
/// See [`SHOT_FRAME`].
pub const CLOSE_AFTER: u64 = 45;

/// `--window`, `--screenshot PATH` and `--ticks N` from the command line.
pub struct Args {
    /// Open a window (else headless).
    pub window: bool,
    /// Where to write the screenshot of frame [`SHOT_FRAME`].
    pub screenshot: Option<PathBuf>,
    /// How many ticks a headless run plays (else the example's own count;
    /// `cargo xtask web`'s test compares a page's state hash with it).
    #[allow(dead_code, reason = "read by the examples that have a page")]
    pub ticks: Option<u64>,
}

impl Args {
    /// Parses the process's arguments (unknown ones are ignored).
    pub fn parse() -> Self {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let screenshot = args
            .iter()
            .position(|a| a == "--screenshot")
            .and_then(|i| args.get(i + 1))
            .map(PathBuf::from);
        let ticks = args
            .iter()
            .position(|a| a == "--ticks")
            .and_then(|i| args.get(i + 1))
            .and_then(|n| n.parse().ok());
        Self {
            window: args.iter().any(|a| a == "--window"),
            screenshot,
            ticks,
        }
    }
}

/// A screenshot: RGB pixels, top row first.
pub struct Shot {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Shot {
    /// Reads a binary PPM (P6, 8-bit) as the engine writes it.
    pub fn read(path: &Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut fields = Vec::new();
        let mut at = 0;
        while fields.len() < 4 {
            while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
                at += 1;
            }
            let start = at;
            while bytes.get(at).is_some_and(|b| !b.is_ascii_whitespace()) {
                at += 1;
            }
            fields.push(String::from_utf8_lossy(&bytes[start..at]).into_owned());
        }
        if fields[0] != "P6" || fields[3] != "255" {
            return Err(format!("{}: not an 8-bit P6 PPM", path.display()));
        }
        let width: usize = fields[1].parse().map_err(|_| "bad width")?;
        let height: usize = fields[2].parse().map_err(|_| "bad height")?;
        let rgb: Vec<[u8; 3]> = bytes[at + 1..]
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        if rgb.len() != width * height {
            return Err(format!(
                "{}: {} pixels for {width}x{height}",
                path.display(),
                rgb.len()
            ));
        }
        Ok(Self { width, height, rgb })
    }

    /// The pixel at `(x, y)`, `(0, 0)` the top-left.
    pub fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }

    /// How many pixels satisfy `f`.
    pub fn count(&self, f: impl Fn([u8; 3]) -> bool) -> usize {
        self.rgb.iter().filter(|&&p| f(p)).count()
    }
}

/// Whether every channel of `a` is within `tolerance` of `b`.
pub fn near(a: [u8; 3], b: [u8; 3], tolerance: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tolerance)
}
