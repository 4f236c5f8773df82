//! [`EngineConfig`]: the engine's TOML configuration.
//!
//! ```toml
//! [loop]
//! tick_rate_hz = 60          # 20..=120 (game_loop.md)
//! max_catch_up_ticks = 5     # >= 1
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
//! window_title = "laige"
//! pause_on_focus_lost = false
//!
//! [log]
//! filter = "info"            # tracing directives, e.g. "warn,laige_sim=debug"
//! format = "compact"         # or "json"
//! ```
//!
//! Every key is optional (the defaults above work without any file); an
//! unknown key, a wrong type or a TOML syntax error is an error naming the
//! line, the column and the key; every range is checked by the same
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

use std::path::Path;

use laige_core::diag::{LogFormat, SubscriberConfig};
use laige_core::{Error, ErrorCode, EventId, MathBackend};
use laige_render::FrameClockConfig;
use laige_sim::GameLoopOptions;
use serde::Deserialize;

use crate::config_toml;

/// `config/read_failed`: the config file could not be read.
pub const CONFIG_READ_FAILED: EventId = EventId::new("config", "read_failed");
/// `config/window_invalid`: a window size or title is not accepted.
pub const WINDOW_INVALID: EventId = EventId::new("config", "window_invalid");

/// `config/log_format_invalid`: `log.format` is not `compact` or `json`.
pub const LOG_FORMAT_INVALID: EventId = EventId::new("config", "log_format_invalid");

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
    /// Window title (default "laige"); must not be empty.
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
        let raw: RawConfig =
            config_toml::parse(text, source).map_err(laige_core::diag::reported)?;
        // Each part reports its own validation failure; the config reports
        // the ones it finds itself.
        Self::from_raw(raw)
    }

    /// Reads, parses and validates a TOML file.
    ///
    /// # Errors
    /// `config/read_failed` (I/O) and everything [`from_toml_str`](Self::from_toml_str) returns.
    pub fn from_toml_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            laige_core::diag::reported(
                Error::new(ErrorCode::Io, CONFIG_READ_FAILED)
                    .with_field("path")
                    .with_value(path.display())
                    .with_source(e),
            )
        })?;
        Self::from_toml_str(&text, &path.display().to_string())
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
                        format!("{format:?}"),
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
            let value = format!("{:?}", cfg.log.filter);
            laige_core::diag::reported(e.with_field("log.filter").with_value(value))
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
    if r.window_title.trim().is_empty() {
        return Err(Error::invalid_argument(
            WINDOW_INVALID,
            "render.window_title",
            format!("{:?}", r.window_title),
            "a non-empty title",
        ));
    }
    Ok(())
}
