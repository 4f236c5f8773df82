//! [`EngineConfig`]: the engine's TOML configuration.
//!
//! ```toml
//! [loop]
//! tick_rate_hz = 60          # 20..=120 (game_loop.md)
//! max_catch_up_ticks = 5     # 1..=20
//!
//! [determinism]
//! math = "fixed_point_16_16" # or "float_pinned_32"
//! seed = 0                   # any u64; part of the replay identity
//!
//! [render]
//! frame_rate_hz = 60         # 1..=1000; windowed: 0 = the display's refresh rate
//! vsync = true
//! interpolation = true
//! window_width = 1280        # 1..=16384
//! window_height = 720        # 1..=16384
//! window_title = "laige"    # 1..=256 characters, no control characters
//! pause_on_focus_lost = false
//!
//! [replay]
//! keyframe_interval = 64     # a keyframe every N recorded ticks; 0 = none
//!
//! [log]
//! filter = "info"            # levels and target=level, e.g. "warn,laige_sim=debug"
//! format = "compact"         # or "json"
//! ```
//!
//! Every key is optional (the defaults above work without any file); an
//! unknown key, a wrong type, a duplicate table or a TOML syntax error is
//! an error naming the line, the column and the key (or the table); a file
//! over [`MAX_CONFIG_BYTES`] or one that is not UTF-8 is refused naming the
//! path and the size or the byte offset. Every value an error echoes is
//! cut at [`Error::MAX_QUOTED_CHARS`] characters. Every range is checked by the same
//! validation the parts use (`GameLoopOptions::validate`,
//! `FrameClockConfig::validate`, `MathBackend::from_str`, the subscriber's
//! filter parser), so a config error and a direct API error say the same
//! thing — with the config's dotted key as the field.
//!
//! ```
//! use laige_engine::EngineConfig;
//!
//! let cfg = EngineConfig::from_toml_str("[loop]\ntick_rate_hz = 30\n", "inline")?;
//! assert_eq!(cfg.game_loop.tick_rate_hz, 30);
//! assert_eq!(cfg.game_loop.max_catch_up_ticks, 5);
//!
//! let err = EngineConfig::from_toml_str("[loop]\ntick_rate_hz = 500\n", "inline").unwrap_err();
//! assert_eq!(err.field(), Some("loop.tick_rate_hz"));
//! # Ok::<(), laige_core::Error>(())
//! ```

use std::io::Read;
use std::path::Path;

use laige_core::diag::{LogFormat, SubscriberConfig};
use laige_core::{Error, ErrorCode, MathBackend};
use laige_render::FrameClockConfig;
use laige_sim::GameLoopOptions;
use serde::Deserialize;

use crate::config_toml;
use crate::events::{
    CONFIG_PARSE_FAILED, CONFIG_READ_FAILED, CONFIG_TOO_LARGE, LOG_FORMAT_INVALID, WINDOW_INVALID,
};

/// The largest accepted config: 1 MiB. Every key of the file fits in well
/// under a kilobyte; the cap keeps a wrong path (`/dev/zero`, a log file, a
/// disk image) from being read into memory before it is refused.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// The longest accepted window title: 256 characters, more than any title
/// bar shows, and far below what one X11 request carries without the
/// BIG-REQUESTS extension (256 KiB), so a title never fails in the window
/// system after the config accepted it.
pub const MAX_WINDOW_TITLE_CHARS: usize = 256;

/// The largest accepted window side in pixels: 16384, the maximum texture
/// and framebuffer size OpenGL 3.3 implementations commonly support
/// (`GL_MAX_RENDERBUFFER_SIZE` on llvmpipe and desktop GPUs).
pub const MAX_WINDOW_SIDE: u32 = 16_384;

/// The whole engine configuration (validated).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineConfig {
    /// `[loop]`: the fixed-timestep loop.
    pub game_loop: GameLoopOptions,
    /// `[determinism]`: the math backend and the seed.
    pub determinism: DeterminismConfig,
    /// `[render]`: frame pacing, vsync, interpolation, the window.
    pub render: RenderConfig,
    /// `[log]`: the default subscriber.
    pub log: LogConfig,
    /// `[replay]`: what a recording (`EngineBuilder::record`) carries
    /// besides inputs and hashes.
    pub replay: ReplayConfig,
}

/// The keyframe interval of a recording unless the config says otherwise:
/// a whole-world snapshot every 64 ticks (about 1.07 s at 60 Hz). Chosen
/// from `cargo xtask bench replay` on the 10 000-entity demo (Fpx16_16):
/// a seek loads one keyframe and re-simulates at most 63 ticks, each about
/// 1.3 ms with its state hash checked, so its worst case is near 85 ms
/// (256 would be about 330 ms; 32 meets a 50 ms goal at twice the size);
/// a keyframe of the demo is about 470 KB and costs about 0.4 ms to write,
/// under 0.5 % of a recorded tick spread over 64 ticks, but its size
/// dominates the file: about 27 MB per minute against 0.18 MB without
/// keyframes (budgets.json's `replay.*` rows hold the measured figures).
pub const DEFAULT_KEYFRAME_INTERVAL: u32 = 64;

/// `[replay]`.
///
/// ```
/// use laige_engine::{DEFAULT_KEYFRAME_INTERVAL, EngineConfig};
///
/// assert_eq!(EngineConfig::default().replay.keyframe_interval, DEFAULT_KEYFRAME_INTERVAL);
/// let cfg = EngineConfig::from_toml_str("[replay]\nkeyframe_interval = 0\n", "inline")?;
/// assert_eq!(cfg.replay.keyframe_interval, 0);
/// let err = EngineConfig::from_toml_str("[replay]\nkeyframe_interval = -1\n", "inline").unwrap_err();
/// assert_eq!(err.field(), Some("replay.keyframe_interval"));
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayConfig {
    /// A keyframe (the world encoded as snapshot bytes) every this many
    /// ticks of a recording, and at tick 0; 0 records none (a seek then
    /// re-simulates from tick 0). Default [`DEFAULT_KEYFRAME_INTERVAL`].
    pub keyframe_interval: u32,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        Self {
            keyframe_interval: DEFAULT_KEYFRAME_INTERVAL,
        }
    }
}

/// `[determinism]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeterminismConfig {
    /// The math backend (`determinism.math`); default `fixed_point_16_16`.
    pub math: MathBackend,
    /// The simulation seed (`determinism.seed`); default 0.
    pub seed: u64,
}

/// `[render]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderConfig {
    /// Target frames per second, 1..=1000 (default 60: the common display
    /// rate). In a windowed run, 0 means "the display's refresh rate" (60
    /// when the display does not say).
    pub frame_rate_hz: u32,
    /// Swap with vsync (default on: no tearing, and the display paces).
    pub vsync: bool,
    /// Interpolate presentation between the last two ticks with alpha
    /// (default on; off shows the last tick's state as is).
    pub interpolation: bool,
    /// Window width in pixels, 1..=16384 (default 1280).
    pub window_width: u32,
    /// Window height in pixels, 1..=16384 (default 720).
    pub window_height: u32,
    /// Window title (default "laige"): 1..=256 characters
    /// (`MAX_WINDOW_TITLE_CHARS`), not only spaces, and no control
    /// characters (a NUL or a newline cannot be a window title).
    pub window_title: String,
    /// Pause the game loop when the window loses focus (default off).
    pub pause_on_focus_lost: bool,
}

impl Default for RenderConfig {
    fn default() -> Self {
        Self {
            frame_rate_hz: FrameClockConfig::default().frame_rate_hz,
            vsync: true,
            interpolation: true,
            window_width: 1280,
            window_height: 720,
            window_title: "laige".to_owned(),
            pause_on_focus_lost: false,
        }
    }
}

/// `[log]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogConfig {
    /// tracing filter directives (default "info"); `RUST_LOG` overrides it.
    pub filter: String,
    /// Human lines or JSON lines (default compact).
    pub format: LogFormat,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            filter: "info".to_owned(),
            format: LogFormat::Compact,
        }
    }
}

impl LogConfig {
    /// The subscriber configuration this section describes.
    #[must_use]
    pub fn subscriber_config(&self) -> SubscriberConfig {
        SubscriberConfig {
            default_filter: self.filter.clone().into(),
            format: self.format,
            ..SubscriberConfig::default()
        }
    }
}

// ---- the raw TOML shape -------------------------------------------------

// Integers are read as i64 so a negative or huge value gets the same range
// message as any other out-of-range value, not a serde type error.

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawConfig {
    #[serde(rename = "loop")]
    game_loop: RawLoop,
    determinism: RawDeterminism,
    render: RawRender,
    log: RawLog,
    replay: RawReplay,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawReplay {
    keyframe_interval: Option<u32>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawLoop {
    tick_rate_hz: Option<i64>,
    max_catch_up_ticks: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawDeterminism {
    math: Option<String>,
    seed: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawRender {
    frame_rate_hz: Option<i64>,
    vsync: Option<bool>,
    interpolation: Option<bool>,
    window_width: Option<i64>,
    window_height: Option<i64>,
    window_title: Option<String>,
    pause_on_focus_lost: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawLog {
    filter: Option<String>,
    format: Option<String>,
}

/// A u32 field: out-of-u32 values are still run through the part's
/// validation (as 0, which every part rejects) so the message names the
/// part's accepted range, then the real value is put back in the error.
fn to_u32(raw: i64) -> u32 {
    u32::try_from(raw).unwrap_or(0)
}

/// Re-targets a part's validation error at the config key and value.
fn at_key(err: Error, key: &'static str, raw: impl std::fmt::Display) -> Error {
    err.with_field(key).with_value(raw)
}

impl EngineConfig {
    /// Parses and validates a TOML text. `source` names it in errors (a
    /// path, `"inline"`).
    ///
    /// # Errors
    /// `config/parse_failed` for syntax errors, unknown keys and wrong
    /// types (with line, column and key); the part's own id
    /// (`loop/tick_rate_invalid`, `render_thread/frame_rate_invalid`,
    /// `math/backend_invalid`, `diag/filter_invalid`, ...) for a value out
    /// of range, with the dotted key as the field. Each is also reported as
    /// a rate-limited Warn event.
    pub fn from_toml_str(text: &str, source: &str) -> Result<Self, Error> {
        if text.len() > MAX_CONFIG_BYTES {
            return Err(laige_core::diag::reported(too_large(
                source,
                format!("{} bytes", text.len()),
            )));
        }
        let raw: RawConfig =
            config_toml::parse(text, source).map_err(laige_core::diag::reported)?;
        // Each part reports its own validation failure; the config reports
        // the ones it finds itself.
        Self::from_raw(raw)
    }

    /// Reads, parses and validates a TOML file. At most
    /// 1 MiB + 1 bytes are read, whatever the path is (a
    /// device, a pipe, a huge file).
    ///
    /// # Errors
    /// `config/read_failed` (I/O); `config/too_large` (InvalidArgument)
    /// naming the path and the size for a file over 1 MiB;
    /// `config/parse_failed` naming the path and the byte offset for text
    /// that is not UTF-8; everything [`from_toml_str`](Self::from_toml_str)
    /// returns.
    pub fn from_toml_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let read_failed = |e: std::io::Error| {
            laige_core::diag::reported(
                Error::new(ErrorCode::Io, CONFIG_READ_FAILED)
                    .with_field("path")
                    .with_value(&shown)
                    .with_source(e),
            )
        };
        let file = std::fs::File::open(path).map_err(read_failed)?;
        // A regular file says its size: refuse a large one unread.
        if let Ok(meta) = file.metadata()
            && meta.is_file()
            && meta.len() > MAX_CONFIG_BYTES as u64
        {
            return Err(laige_core::diag::reported(too_large(
                &shown,
                format!("{} bytes", meta.len()),
            )));
        }
        let mut bytes = Vec::new();
        file.take(MAX_CONFIG_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(read_failed)?;
        if bytes.len() > MAX_CONFIG_BYTES {
            return Err(laige_core::diag::reported(too_large(
                &shown,
                format!("more than {MAX_CONFIG_BYTES} bytes"),
            )));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let offset = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            laige_core::diag::reported(
                Error::invalid_argument(CONFIG_PARSE_FAILED, "path", &shown, "UTF-8 text")
                    .with_detail(format!(
                        "byte offset {offset} (line {line}) is not UTF-8: byte {:#04x}",
                        e.as_bytes()[offset]
                    )),
            )
        })?;
        Self::from_toml_str(&text, &shown)
    }

    /// Checks every field through the parts' own validation.
    ///
    /// # Errors
    /// The first invalid field, as [`from_toml_str`](Self::from_toml_str).
    pub fn validate(&self) -> Result<(), Error> {
        self.game_loop.validate()?;
        if self.render.frame_rate_hz != 0 {
            FrameClockConfig {
                frame_rate_hz: self.render.frame_rate_hz,
            }
            .validate()?;
        }
        validate_window(&self.render).map_err(laige_core::diag::reported)?;
        laige_core::diag::build_subscriber(&self.log.subscriber_config(), std::io::sink)?;
        Ok(())
    }

    fn from_raw(raw: RawConfig) -> Result<Self, Error> {
        let mut cfg = Self::default();

        // [loop]
        if let Some(v) = raw.game_loop.tick_rate_hz {
            cfg.game_loop.tick_rate_hz = to_u32(v);
            GameLoopOptions {
                tick_rate_hz: cfg.game_loop.tick_rate_hz,
                ..GameLoopOptions::default()
            }
            .validate()
            .map_err(|e| at_key(e, "loop.tick_rate_hz", v))?;
        }
        if let Some(v) = raw.game_loop.max_catch_up_ticks {
            cfg.game_loop.max_catch_up_ticks = to_u32(v);
            GameLoopOptions {
                max_catch_up_ticks: cfg.game_loop.max_catch_up_ticks,
                ..GameLoopOptions::default()
            }
            .validate()
            .map_err(|e| at_key(e, "loop.max_catch_up_ticks", v))?;
        }

        // [determinism]
        if let Some(m) = raw.determinism.math {
            cfg.determinism.math = m
                .parse::<MathBackend>()
                .map_err(|e| laige_core::diag::reported(e.with_field("determinism.math")))?;
        }
        if let Some(seed) = raw.determinism.seed {
            cfg.determinism.seed = seed;
        }

        // [render]
        let r = raw.render;
        if let Some(v) = r.frame_rate_hz {
            cfg.render.frame_rate_hz = to_u32(v);
            if v != 0 {
                FrameClockConfig {
                    frame_rate_hz: cfg.render.frame_rate_hz,
                }
                .validate()
                .map_err(|e| at_key(e, "render.frame_rate_hz", v))?;
            }
        }
        cfg.render.vsync = r.vsync.unwrap_or(cfg.render.vsync);
        cfg.render.interpolation = r.interpolation.unwrap_or(cfg.render.interpolation);
        cfg.render.pause_on_focus_lost = r
            .pause_on_focus_lost
            .unwrap_or(cfg.render.pause_on_focus_lost);
        for (key, raw_side, side) in [
            (
                "render.window_width",
                r.window_width,
                &mut cfg.render.window_width,
            ),
            (
                "render.window_height",
                r.window_height,
                &mut cfg.render.window_height,
            ),
        ] {
            if let Some(v) = raw_side {
                if !(1..=i64::from(MAX_WINDOW_SIDE)).contains(&v) {
                    return Err(laige_core::diag::reported(Error::invalid_argument(
                        WINDOW_INVALID,
                        key,
                        v,
                        "1..=16384 pixels",
                    )));
                }
                *side = to_u32(v);
            }
        }
        if let Some(title) = r.window_title {
            cfg.render.window_title = title;
        }
        validate_window(&cfg.render).map_err(laige_core::diag::reported)?;

        // [replay]
        if let Some(k) = raw.replay.keyframe_interval {
            cfg.replay.keyframe_interval = k;
        }

        // [log]
        if let Some(filter) = raw.log.filter {
            cfg.log.filter = filter;
        }
        if let Some(format) = raw.log.format {
            cfg.log.format = match format.as_str() {
                "compact" => LogFormat::Compact,
                "json" => LogFormat::Json,
                _ => {
                    return Err(laige_core::diag::reported(Error::invalid_argument(
                        LOG_FORMAT_INVALID,
                        "log.format",
                        Error::quoted(&format),
                        "\"compact\" or \"json\"",
                    )));
                }
            };
        }
        let probe = SubscriberConfig {
            env_var: None,
            ..cfg.log.subscriber_config()
        };
        laige_core::diag::build_subscriber(&probe, std::io::sink).map_err(|e| {
            laige_core::diag::reported(
                e.with_field("log.filter")
                    .with_value(Error::quoted(&cfg.log.filter)),
            )
        })?;
        Ok(cfg)
    }
}

fn validate_window(r: &RenderConfig) -> Result<(), Error> {
    for (key, v) in [
        ("render.window_width", r.window_width),
        ("render.window_height", r.window_height),
    ] {
        if !(1..=MAX_WINDOW_SIDE).contains(&v) {
            return Err(Error::invalid_argument(
                WINDOW_INVALID,
                key,
                v,
                "1..=16384 pixels",
            ));
        }
    }
    let title = &r.window_title;
    let bad_title = |detail: String| {
        Error::invalid_argument(
            WINDOW_INVALID,
            "render.window_title",
            Error::quoted(title),
            TITLE_ACCEPTED,
        )
        .with_detail(detail)
    };
    if title.trim().is_empty() {
        return Err(bad_title("the title is empty or only spaces".to_owned()));
    }
    if let Some((at, c)) = title.chars().enumerate().find(|(_, c)| c.is_control()) {
        return Err(bad_title(format!(
            "character {at} is the control character U+{:04X}",
            u32::from(c)
        )));
    }
    let n = title.chars().count();
    if n > MAX_WINDOW_TITLE_CHARS {
        return Err(bad_title(format!("the title has {n} characters")));
    }
    Ok(())
}

/// What a window title may be, as rejections state it.
const TITLE_ACCEPTED: &str = "1..=256 characters, not only spaces, no control characters";

/// A `config/too_large` error for the config `source` of `size`.
fn too_large(source: &str, size: String) -> Error {
    Error::invalid_argument(
        CONFIG_TOO_LARGE,
        "path",
        source,
        "a config of at most 1048576 bytes (1 MiB)",
    )
    .with_detail(format!("the config is {size}"))
}
