//! The engine's one error type: [`Error`] with an [`ErrorCode`].
//!
//! Every fallible laige API returns `Result<T, laige_core::Error>`. An error
//! carries what a person needs to fix the cause without reading the source:
//! a code, the `subsystem/event` id, and — for bad input — the field, the
//! offending value and what is accepted, rendered as one sentence:
//!
//! ```
//! use laige_core::{Error, ErrorCode, EventId};
//!
//! const TICK_RATE_INVALID: EventId = EventId::new("loop", "tick_rate_invalid");
//! let err = Error::invalid_argument(TICK_RATE_INVALID, "tick_rate_hz", 7, "20..=120 Hz");
//! assert_eq!(err.code(), ErrorCode::InvalidArgument);
//! assert_eq!(
//!     err.to_string(),
//!     "loop/tick_rate_invalid: invalid argument: tick_rate_hz = 7; accepted: 20..=120 Hz"
//! );
//! ```
//!
//! Constructing, rendering and returning an error never panics. The value is
//! rendered once, when the error is built (the cold path); the hot paths of
//! the engine do not build errors on success.

use std::borrow::Cow;
use std::fmt;

use crate::EventId;

/// What kind of failure an [`Error`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// An argument or configuration value is not accepted (wrong range,
    /// unknown id, malformed text), or an object was used in a state that
    /// does not allow the call (a stale schedule, a stopped render thread).
    InvalidArgument,
    /// A value is well-formed but outside what the operation can represent.
    OutOfRange,
    /// Reading or writing a file or device failed.
    Io,
    /// Stored data (a replay file, a snapshot) is damaged: bad checksum,
    /// truncated record, wrong version.
    Corrupt,
    /// The platform lacks something required (no EGL device, no GL 3.3).
    Unsupported,
    /// User code (a system, a stage, a callback) failed or panicked.
    Failed,
    /// An invalid lifecycle transition or a call out of order.
    InvalidState,
}

impl ErrorCode {
    /// A short lowercase name, as rendered in messages (`invalid argument`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArgument => "invalid argument",
            Self::OutOfRange => "out of range",
            Self::Io => "i/o error",
            Self::Corrupt => "corrupt data",
            Self::Unsupported => "unsupported",
            Self::Failed => "failed",
            Self::InvalidState => "invalid state",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The laige error: a code, an event id, and the context of the failure.
///
/// The struct is one pointer wide, so `Result<T, Error>` stays small on the
/// paths that return it.
#[doc = include_str!("error.md")]
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    code: ErrorCode,
    id: EventId,
    field: Option<Cow<'static, str>>,
    value: Option<String>,
    accepted: Option<Cow<'static, str>>,
    detail: Option<Cow<'static, str>>,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    /// The most characters of an input text an error echoes. 64 shows any
    /// value a person typed (a number, a name, a title) in full, while a
    /// damaged or hostile input (a 20 MB line, a binary file read as
    /// text) cannot make a message larger than a line of a terminal.
    pub const MAX_QUOTED_CHARS: usize = 64;

    /// `text` as an error echoes it: `Debug`-escaped (control characters
    /// and quotes visible), cut at [`MAX_QUOTED_CHARS`](Self::MAX_QUOTED_CHARS)
    /// characters with `…` and the full length in bytes after the cut. Every
    /// error that echoes a piece of its input goes through this one cut.
    ///
    /// ```
    /// use laige_core::Error;
    ///
    /// assert_eq!(Error::quoted("a\tb"), r#""a\tb""#);
    /// let long = "x".repeat(100);
    /// assert_eq!(Error::quoted(&long), format!("{:?}… (100 bytes)", &long[..64]));
    /// ```
    #[must_use]
    pub fn quoted(text: &str) -> String {
        match Self::cut(text, Self::MAX_QUOTED_CHARS) {
            Some(head) => format!("{head:?}… ({} bytes)", text.len()),
            None => format!("{text:?}"),
        }
    }

    /// The most characters of another library's message an error
    /// repeats: 256, room for its whole sentence ("unknown field `x`,
    /// expected one of ...") but not for an input value it embeds in full.
    pub const MAX_MESSAGE_CHARS: usize = 256;

    /// A message of another library that may embed an input value (a TOML
    /// parser's "invalid type: string ..."), cut as [`quoted`](Self::quoted)
    /// cuts a value, at [`MAX_MESSAGE_CHARS`](Self::MAX_MESSAGE_CHARS)
    /// characters and without quotes.
    #[must_use]
    pub fn clipped(text: &str) -> Cow<'_, str> {
        match Self::cut(text, Self::MAX_MESSAGE_CHARS) {
            Some(head) => Cow::Owned(format!("{head}… ({} bytes)", text.len())),
            None => Cow::Borrowed(text),
        }
    }

    /// The first `max` characters of `text` when it is longer, `None` when
    /// it fits: the one cut behind [`quoted`](Self::quoted) and
    /// [`clipped`](Self::clipped).
    fn cut(text: &str, max: usize) -> Option<&str> {
        text.char_indices().nth(max).map(|(at, _)| &text[..at])
    }

    /// A bare error with a code and an id; add context with the `with_*`
    /// builders.
    #[must_use]
    pub fn new(code: ErrorCode, id: EventId) -> Self {
        Self {
            inner: Box::new(Inner {
                code,
                id,
                field: None,
                value: None,
                accepted: None,
                detail: None,
                source: None,
            }),
        }
    }

    /// An [`ErrorCode::InvalidArgument`] for `field = value`, naming what is
    /// `accepted`.
    #[must_use]
    pub fn invalid_argument(
        id: EventId,
        field: impl Into<Cow<'static, str>>,
        value: impl fmt::Display,
        accepted: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ErrorCode::InvalidArgument, id)
            .with_field(field)
            .with_value(value)
            .with_accepted(accepted)
    }

    /// An [`ErrorCode::OutOfRange`] for `field = value`, naming the range.
    #[must_use]
    pub fn out_of_range(
        id: EventId,
        field: impl Into<Cow<'static, str>>,
        value: impl fmt::Display,
        accepted: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ErrorCode::OutOfRange, id)
            .with_field(field)
            .with_value(value)
            .with_accepted(accepted)
    }

    /// Names the field (config key, argument) that holds the bad value.
    #[must_use]
    pub fn with_field(mut self, field: impl Into<Cow<'static, str>>) -> Self {
        self.inner.field = Some(field.into());
        self
    }

    /// Records the offending value, rendered with `Display`.
    #[must_use]
    pub fn with_value(mut self, value: impl fmt::Display) -> Self {
        self.inner.value = Some(value.to_string());
        self
    }

    /// Says what is accepted instead (a range, a set of ids).
    #[must_use]
    pub fn with_accepted(mut self, accepted: impl Into<Cow<'static, str>>) -> Self {
        self.inner.accepted = Some(accepted.into());
        self
    }

    /// Adds a free-form detail sentence (which tick, which check failed).
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<Cow<'static, str>>) -> Self {
        self.inner.detail = Some(detail.into());
        self
    }

    /// Attaches the underlying cause (an `io::Error`, a TOML parse error).
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.inner.source = Some(Box::new(source));
        self
    }

    /// The failure kind.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        self.inner.code
    }

    /// The `subsystem/event` id of the failure.
    #[must_use]
    pub fn id(&self) -> EventId {
        self.inner.id
    }

    /// The field that holds the bad value, if any.
    #[must_use]
    pub fn field(&self) -> Option<&str> {
        self.inner.field.as_deref()
    }

    /// The offending value as rendered when the error was built, if any.
    #[must_use]
    pub fn value(&self) -> Option<&str> {
        self.inner.value.as_deref()
    }

    /// What is accepted instead, if stated.
    #[must_use]
    pub fn accepted(&self) -> Option<&str> {
        self.inner.accepted.as_deref()
    }

    /// The free-form detail, if any.
    #[must_use]
    pub fn detail(&self) -> Option<&str> {
        self.inner.detail.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        write!(f, "{}: {}", i.id, i.code)?;
        match (&i.field, &i.value) {
            (Some(field), Some(value)) => write!(f, ": {field} = {value}")?,
            (Some(field), None) => write!(f, ": {field}")?,
            (None, Some(value)) => write!(f, ": {value}")?,
            (None, None) => {}
        }
        if let Some(accepted) = &i.accepted {
            write!(f, "; accepted: {accepted}")?;
        }
        if let Some(detail) = &i.detail {
            write!(f, " ({detail})")?;
        }
        if let Some(source) = &i.source {
            write!(f, ": {source}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        let mut d = f.debug_struct("Error");
        d.field("code", &i.code).field("id", &i.id);
        if let Some(field) = &i.field {
            d.field("field", field);
        }
        if let Some(value) = &i.value {
            d.field("value", value);
        }
        if let Some(accepted) = &i.accepted {
            d.field("accepted", accepted);
        }
        if let Some(detail) = &i.detail {
            d.field("detail", detail);
        }
        if let Some(source) = &i.source {
            d.field("source", source);
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

/// `Result<T, laige_core::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    const ID: EventId = EventId::new("test", "thing_invalid");

    #[test]
    fn renders_field_value_and_accepted_in_one_sentence() {
        let e = Error::invalid_argument(ID, "max_catch_up", 0, ">= 1");
        assert_eq!(
            e.to_string(),
            "test/thing_invalid: invalid argument: max_catch_up = 0; accepted: >= 1"
        );
        assert_eq!(e.field(), Some("max_catch_up"));
        assert_eq!(e.value(), Some("0"));
        assert_eq!(e.accepted(), Some(">= 1"));
    }

    #[test]
    fn renders_detail_and_source() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = Error::new(ErrorCode::Io, ID)
            .with_detail("reading replay.bin")
            .with_source(io);
        assert_eq!(
            e.to_string(),
            "test/thing_invalid: i/o error (reading replay.bin): no such file"
        );
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn bare_error_renders_id_and_code() {
        let e = Error::new(ErrorCode::InvalidState, ID);
        assert_eq!(e.to_string(), "test/thing_invalid: invalid state");
        assert_eq!(e.code(), ErrorCode::InvalidState);
        assert_eq!(e.id(), ID);
    }

    #[test]
    fn error_is_one_pointer_and_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Error>();
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }
}
