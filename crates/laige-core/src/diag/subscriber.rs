//! [`init_subscriber`]: the one-call default `tracing` subscriber for
//! binaries (behind the crate's `subscriber` feature, on by default).
//!
//! A library never installs a subscriber; a binary (a game, a tool, the
//! bench) calls [`init_subscriber`] once at startup. The subscriber is a
//! target filter (levels per module path, from a `RUST_LOG`-style string)
//! plus either the compact human format or JSON lines, written to stderr. [`build_subscriber`] builds the same subscriber over any
//! writer, for tests and for games that want to compose it themselves.

use std::borrow::Cow;
use std::io::IsTerminal;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Layered, SubscriberExt};
use tracing_subscriber::{Layer, Registry};

use crate::{Error, EventId, Result};

/// The id of the error for a filter string that does not parse.
pub const FILTER_INVALID: EventId = EventId::new("diag", "filter_invalid");

/// What the filter accepts, as stated in [`FILTER_INVALID`] errors.
const FILTER_ACCEPTED: &str = "comma-separated directives, each a level or `target=level` \
     with a target of Rust identifiers joined by `::`, such as `info` or \
     `warn,laige_sim=debug` (levels: off, error, warn, info, debug, trace)";

/// The level names a directive may use (any case, as `tracing` reads them).
const LEVELS: [(&str, LevelFilter); 6] = [
    ("off", LevelFilter::OFF),
    ("error", LevelFilter::ERROR),
    ("warn", LevelFilter::WARN),
    ("info", LevelFilter::INFO),
    ("debug", LevelFilter::DEBUG),
    ("trace", LevelFilter::TRACE),
];

/// How events are rendered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// One compact human-readable line per event:
    /// `<time> WARN laige_sim::game_loop: subsystem=loop event=tick_dropped dropped=8`.
    #[default]
    Compact,
    /// One JSON object per line, fields flattened beside `timestamp`,
    /// `level` and `target`:
    /// `{"timestamp":"..","level":"WARN","subsystem":"loop","event":"tick_dropped","dropped":8,"target":".."}`.
    Json,
}

/// Whether the compact format uses ANSI colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Color {
    /// Colours when stderr is a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always emit ANSI colour codes.
    Always,
    /// Never emit ANSI colour codes.
    Never,
}

/// Configuration of [`init_subscriber`] / [`build_subscriber`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriberConfig {
    /// The filter used when `env_var` is unset or empty. Default `"info"`:
    /// laige's Info events are lifecycle lines (a thread started, stopped),
    /// rare by construction; Warn and Error carry every degradation; Debug
    /// and Trace are developer detail, off unless asked for.
    pub default_filter: Cow<'static, str>,
    /// The environment variable whose value, when set and non-empty,
    /// replaces `default_filter`. Default `RUST_LOG` (the `tracing`
    /// ecosystem's convention); `None` ignores the environment.
    pub env_var: Option<Cow<'static, str>>,
    /// Human lines or JSON lines. Default [`LogFormat::Compact`].
    pub format: LogFormat,
    /// ANSI colours (compact format only). Default [`Color::Auto`].
    pub color: Color,
    /// Whether each line starts with a timestamp. Default `true`.
    pub timestamps: bool,
    /// Whether each line names its `tracing` target (the emitting module).
    /// Default `true`.
    pub targets: bool,
}

impl Default for SubscriberConfig {
    fn default() -> Self {
        Self {
            default_filter: Cow::Borrowed("info"),
            env_var: Some(Cow::Borrowed("RUST_LOG")),
            format: LogFormat::Compact,
            color: Color::Auto,
            timestamps: true,
            targets: true,
        }
    }
}

/// What [`init_subscriber`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubscriberInit {
    /// The subscriber is now the process's global default.
    Installed,
    /// A global default subscriber was already set (by an earlier call or by
    /// the game itself); it was left in place and this one dropped.
    AlreadyInstalled,
}

/// Installs the default subscriber (see [`SubscriberConfig`]) writing to
/// stderr as the process's global `tracing` subscriber.
///
/// Errors: a filter string (from `env_var` or `default_filter`) that does
/// not parse, or an `env_var` value that is not Unicode, is an
/// [`ErrorCode::InvalidArgument`](crate::ErrorCode) (`diag/filter_invalid`)
/// naming the variable (or `default_filter`) and the value; nothing is
/// installed. A second call is not an error: it returns
/// [`SubscriberInit::AlreadyInstalled`] and changes nothing.
///
/// ```
/// use laige_core::diag::{self, SubscriberConfig, SubscriberInit};
///
/// let cfg = SubscriberConfig { env_var: None, ..SubscriberConfig::default() };
/// assert_eq!(diag::init_subscriber(&cfg).unwrap(), SubscriberInit::Installed);
/// assert_eq!(diag::init_subscriber(&cfg).unwrap(), SubscriberInit::AlreadyInstalled);
///
/// let bad = SubscriberConfig { default_filter: "laige_sim=loud".into(), ..cfg };
/// let err = diag::init_subscriber(&bad).unwrap_err();
/// assert_eq!(err.field(), Some("default_filter"));
/// ```
pub fn init_subscriber(cfg: &SubscriberConfig) -> Result<SubscriberInit> {
    let subscriber = build_subscriber(cfg, std::io::stderr)?;
    Ok(match tracing::subscriber::set_global_default(subscriber) {
        Ok(()) => SubscriberInit::Installed,
        Err(_) => SubscriberInit::AlreadyInstalled,
    })
}

type Filtered = Layered<Targets, Registry>;

/// Builds the default subscriber over `writer` without installing it (for
/// tests — `tracing::subscriber::with_default` — and for games composing
/// their own). Same errors as [`init_subscriber`].
pub fn build_subscriber<W>(
    cfg: &SubscriberConfig,
    writer: W,
) -> Result<impl tracing::Subscriber + Send + Sync + 'static>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let env_value = match cfg.env_var.as_deref() {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(value) => Some(value),
            Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(raw)) => {
                return Err(Error::invalid_argument(
                    FILTER_INVALID,
                    var.to_owned(),
                    raw.to_string_lossy(),
                    "a Unicode filter string",
                ));
            }
        },
    };
    let filter = parse_filter(cfg, env_value.as_deref())?;
    let ansi = match cfg.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let layer = format_layer(cfg, ansi, writer);
    Ok(Registry::default().with(filter).with(layer))
}

/// The filter from the environment value (when set and non-empty) or the
/// configured default, or the error naming whichever did not parse.
fn parse_filter(cfg: &SubscriberConfig, env_value: Option<&str>) -> Result<Targets> {
    let (field, text): (Cow<'static, str>, &str) = match (cfg.env_var.as_ref(), env_value) {
        (Some(var), Some(value)) if !value.trim().is_empty() => (var.clone(), value),
        _ => (Cow::Borrowed("default_filter"), &cfg.default_filter),
    };
    parse_directives(text).map_err(|detail| {
        Error::invalid_argument(FILTER_INVALID, field, Error::quoted(text), FILTER_ACCEPTED)
            .with_detail(detail)
    })
}

/// Reads a filter string strictly. `tracing`'s own parsers take any bare
/// word for a target, so a misspelt level (`ingo`) would silently enable
/// one unknown target and turn every other log line off. Here a bare
/// directive must be a level (the default for every target), and a target
/// must be Rust identifiers joined by `::`, followed by `=level`. An event
/// passes at the level of the longest directive target that prefixes its
/// own target, else at the default level, else not at all. Span and field
/// filters (`target[span{field}]=level`) are refused: laige's events are
/// selected by target and level.
fn parse_directives(text: &str) -> std::result::Result<Targets, String> {
    let level = |s: &str| {
        LEVELS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s.trim()))
            .map(|&(_, level)| level)
    };
    let is_ident = |s: &str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut targets = Targets::new();
    for (n, directive) in text.split(',').enumerate() {
        let d = directive.trim();
        if d.is_empty() {
            continue;
        }
        let shown = Error::quoted(d);
        let Some((lhs, level_text)) = d.rsplit_once('=') else {
            match level(d) {
                Some(default) => targets = targets.with_default(default),
                None => {
                    return Err(format!(
                        "directive {n}, {shown}, is not a level; a target needs `=level`"
                    ));
                }
            }
            continue;
        };
        let Some(target_level) = level(level_text) else {
            return Err(format!(
                "directive {n}, {shown}: {} is not a level",
                Error::quoted(level_text.trim())
            ));
        };
        let target = lhs.trim();
        if target.contains(['[', '{']) {
            return Err(format!(
                "directive {n}, {shown}: span and field filters are not supported; \
                 select by target and level"
            ));
        }
        if target.is_empty() {
            return Err(format!("directive {n}, {shown}, has no target before `=`"));
        }
        if !target.split("::").all(is_ident) {
            return Err(format!(
                "directive {n}, {shown}: the target {} is not Rust identifiers joined by `::`",
                Error::quoted(target)
            ));
        }
        targets = targets.with_target(target, target_level);
    }
    Ok(targets)
}

fn format_layer<W>(
    cfg: &SubscriberConfig,
    ansi: bool,
    writer: W,
) -> Box<dyn Layer<Filtered> + Send + Sync + 'static>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let base = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_target(cfg.targets);
    match (cfg.format, cfg.timestamps) {
        (LogFormat::Compact, true) => base.compact().with_ansi(ansi).boxed(),
        (LogFormat::Compact, false) => base.compact().with_ansi(ansi).without_time().boxed(),
        (LogFormat::Json, true) => base
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .with_ansi(false)
            .boxed(),
        (LogFormat::Json, false) => base
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .with_ansi(false)
            .without_time()
            .boxed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unset_environment_uses_the_default_filter() {
        let cfg = SubscriberConfig::default();
        let filter = parse_filter(&cfg, None).unwrap();
        assert_eq!(filter.default_level(), Some(LevelFilter::INFO));
        assert_eq!(filter.to_string(), "info");
        let blank = parse_filter(&cfg, Some("  ")).unwrap();
        assert_eq!(blank.default_level(), Some(LevelFilter::INFO));
    }

    #[test]
    fn the_environment_overrides_the_default_filter() {
        let cfg = SubscriberConfig::default();
        let filter = parse_filter(&cfg, Some("warn,laige_sim=debug")).unwrap();
        assert_eq!(filter.to_string(), "laige_sim=debug,warn");
        assert_eq!(filter.default_level(), Some(LevelFilter::WARN));
        assert!(filter.would_enable("laige_sim::game_loop", &tracing::Level::DEBUG));
        assert!(!filter.would_enable("laige_sim::game_loop", &tracing::Level::TRACE));
        assert!(!filter.would_enable("laige_render", &tracing::Level::INFO));
        assert!(filter.would_enable("laige_render", &tracing::Level::WARN));
    }

    #[test]
    fn a_bad_environment_filter_names_the_variable_and_value() {
        let cfg = SubscriberConfig::default();
        let err = parse_filter(&cfg, Some("laige_sim=loud")).unwrap_err();
        assert_eq!(err.id(), FILTER_INVALID);
        assert_eq!(err.field(), Some("RUST_LOG"));
        assert_eq!(err.value(), Some("\"laige_sim=loud\""));
        assert!(err.accepted().unwrap().contains("warn,laige_sim=debug"));
    }

    #[test]
    fn a_bad_filter_is_returned_not_logged() {
        // The caller decides what a bad filter means (the engine's config
        // reports it under its dotted key; a binary prints it): logging it
        // here too would log it twice.
        let cfg = SubscriberConfig {
            env_var: None,
            default_filter: "info,=warn=".into(),
            ..SubscriberConfig::default()
        };
        let (result, events) =
            super::super::capture_events(|| build_subscriber(&cfg, std::io::sink).map(drop));
        assert_eq!(result.unwrap_err().id(), FILTER_INVALID);
        assert!(events.is_empty(), "{events:?}");
    }

    #[test]
    fn misspelt_levels_and_bad_targets_are_rejected() {
        let cfg = SubscriberConfig {
            env_var: None,
            ..SubscriberConfig::default()
        };
        let check = |filter: &'static str| {
            parse_filter(
                &SubscriberConfig {
                    default_filter: filter.into(),
                    ..cfg.clone()
                },
                None,
            )
        };
        for good in [
            "info",
            "WARN",
            "warn,laige_sim=debug",
            "laige_sim::replay=trace, off",
            "info,",
        ] {
            assert!(check(good).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("ingo", "directive 0, \"ingo\", is not a level"),
            (
                "warn,laige_sim",
                "directive 1, \"laige_sim\", is not a level",
            ),
            ("laige_sim=loud", "\"loud\" is not a level"),
            (
                "laige-sim=debug",
                "the target \"laige-sim\" is not Rust identifiers",
            ),
            ("a::=info", "the target \"a::\" is not Rust identifiers"),
            ("=info", "has no target before `=`"),
            (
                "laige_sim[tick]=debug",
                "span and field filters are not supported",
            ),
        ] {
            let err = check(bad).unwrap_err();
            assert_eq!(err.id(), FILTER_INVALID, "{bad}");
            assert_eq!(err.value(), Some(format!("{bad:?}").as_str()));
            assert!(err.detail().unwrap().contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn an_ignored_environment_is_ignored() {
        let cfg = SubscriberConfig {
            env_var: None,
            default_filter: "error".into(),
            ..SubscriberConfig::default()
        };
        let filter = parse_filter(&cfg, Some("trace")).unwrap();
        assert_eq!(filter.default_level(), Some(LevelFilter::ERROR));
        let bad = SubscriberConfig {
            default_filter: "=nope=".into(),
            ..cfg
        };
        assert_eq!(
            parse_filter(&bad, None).unwrap_err().field(),
            Some("default_filter")
        );
    }
}
