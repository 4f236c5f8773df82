//! [`Severity`]: the five levels a laige event can carry, and their mapping
//! onto `tracing` levels.

use std::fmt;
use std::str::FromStr;

use crate::Error;
use crate::events::SEVERITY_INVALID;

/// The severity of a diagnostic event, from least to most severe.
///
/// It is part of the rate-limit key — `(subsystem, event, severity)` — and
/// maps one-to-one onto the `tracing` level the event is emitted at:
///
/// | `Severity` | `tracing::Level` | name (`as_str`, `FromStr`) | used for |
/// |---|---|---|---|
/// | `Trace` | `TRACE` | `trace` | step-by-step detail, off by default |
/// | `Debug` | `DEBUG` | `debug` | developer detail, off by default |
/// | `Info`  | `INFO`  | `info`  | lifecycle (a thread started or stopped) |
/// | `Warn`  | `WARN`  | `warn`  | a documented degradation or rejected input |
/// | `Error` | `ERROR` | `error` | a broken invariant (a tick that allocated) |
///
/// ```
/// use laige_core::diag::Severity;
/// assert!(Severity::Warn > Severity::Info);
/// assert_eq!(Severity::Warn.level(), tracing::Level::WARN);
/// assert_eq!("warn".parse::<Severity>().unwrap(), Severity::Warn);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Step-by-step detail (`tracing::Level::TRACE`).
    Trace,
    /// Developer detail (`tracing::Level::DEBUG`).
    Debug,
    /// Lifecycle and rare notable facts (`tracing::Level::INFO`).
    Info,
    /// A documented degradation or rejected input (`tracing::Level::WARN`).
    Warn,
    /// A broken invariant (`tracing::Level::ERROR`).
    Error,
}

impl Severity {
    /// Every severity, least severe first.
    pub const ALL: [Self; 5] = [
        Self::Trace,
        Self::Debug,
        Self::Info,
        Self::Warn,
        Self::Error,
    ];

    /// The `tracing` level events of this severity are emitted at.
    #[must_use]
    pub const fn level(self) -> tracing::Level {
        match self {
            Self::Trace => tracing::Level::TRACE,
            Self::Debug => tracing::Level::DEBUG,
            Self::Info => tracing::Level::INFO,
            Self::Warn => tracing::Level::WARN,
            Self::Error => tracing::Level::ERROR,
        }
    }

    /// The lowercase name (`"warn"`), as used in summaries and config.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Trace => "trace",
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Error => "error",
        }
    }

    /// A dense index `0..5` (`Trace` = 0), for per-severity tables.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl From<Severity> for tracing::Level {
    fn from(severity: Severity) -> Self {
        severity.level()
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = Error;

    /// Parses a lowercase name (`trace`, `debug`, `info`, `warn`, `error`).
    /// Anything else is an [`ErrorCode::InvalidArgument`](crate::ErrorCode)
    /// (`diag/severity_invalid`, field `severity`), reported through
    /// [`report`](super::report).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|sev| sev.as_str() == s)
            .ok_or_else(|| {
                super::reported(Error::invalid_argument(
                    SEVERITY_INVALID,
                    "severity",
                    format_args!("{s:?}"),
                    "one of trace, debug, info, warn, error",
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_one_to_one_onto_tracing_levels() {
        let levels: Vec<tracing::Level> = Severity::ALL.iter().map(|s| s.level()).collect();
        assert_eq!(
            levels,
            [
                tracing::Level::TRACE,
                tracing::Level::DEBUG,
                tracing::Level::INFO,
                tracing::Level::WARN,
                tracing::Level::ERROR,
            ]
        );
        for (i, sev) in Severity::ALL.iter().enumerate() {
            assert_eq!(sev.index(), i);
            assert_eq!(tracing::Level::from(*sev), sev.level());
        }
    }

    #[test]
    fn orders_least_severe_first() {
        assert!(Severity::Trace < Severity::Debug);
        assert!(Severity::Debug < Severity::Info);
        assert!(Severity::Info < Severity::Warn);
        assert!(Severity::Warn < Severity::Error);
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_rejected() {
        for sev in Severity::ALL {
            assert_eq!(sev.as_str().parse::<Severity>().unwrap(), sev);
            assert_eq!(sev.to_string(), sev.as_str());
        }
        let err = "WARN".parse::<Severity>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "diag/severity_invalid: invalid argument: severity = \"WARN\"; \
             accepted: one of trace, debug, info, warn, error"
        );
    }
}
