//! Capturing events in tests: [`capture_events`] (structured) and
//! [`capture_rendered`] (the lines the default subscriber would print).
//!
//! Both install a subscriber for the current thread only
//! (`tracing::subscriber::with_default`) while the closure runs, so tests
//! running in parallel do not see each other's events, and events emitted
//! on other threads are not captured. Remember that the rate limiter is
//! process-global: give each test its own event ids.

use std::fmt::{self, Write as _};
use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::field::{Field, Visit};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::Registry;

use super::{Severity, SubscriberConfig, build_subscriber};
use crate::{EventId, Result};

/// One captured `tracing` event: its level, target and fields in order,
/// each value rendered as text (strings raw, `Display` fields with
/// `Display`, `Debug` fields with `Debug`, numbers and bools plainly).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedEvent {
    /// The `tracing` level.
    pub level: tracing::Level,
    /// The `tracing` target (the emitting module for laige events).
    pub target: String,
    /// `(name, value)` pairs in emission order.
    pub fields: Vec<(String, String)>,
}

impl CapturedEvent {
    /// The value of field `name`, if present.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a laige event with id `id` (its `subsystem` and
    /// `event` fields).
    #[must_use]
    pub fn is(&self, id: EventId) -> bool {
        self.field("subsystem") == Some(id.subsystem()) && self.field("event") == Some(id.event())
    }

    /// The severity matching the event's level.
    #[must_use]
    pub fn severity(&self) -> Severity {
        match self.level {
            tracing::Level::TRACE => Severity::Trace,
            tracing::Level::DEBUG => Severity::Debug,
            tracing::Level::INFO => Severity::Info,
            tracing::Level::WARN => Severity::Warn,
            tracing::Level::ERROR => Severity::Error,
        }
    }
}

/// `LEVEL name=value name=value ...` — one line, deterministic (no time,
/// no target), for snapshots.
impl fmt::Display for CapturedEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.level)?;
        for (name, value) in &self.fields {
            write!(f, " {name}={value}")?;
        }
        Ok(())
    }
}

/// Runs `f` with a capturing subscriber (every level) as the current
/// thread's default, and returns its result with the events it emitted on
/// this thread.
///
/// ```
/// use laige_core::{EventId, diag};
///
/// const HIT: EventId = EventId::new("doc_capture", "hit");
/// let ((), events) = diag::capture_events(|| {
///     laige_core::event!(Warn, HIT, n = 3_u32, name = "x");
/// });
/// assert_eq!(events.len(), 1);
/// assert!(events[0].is(HIT));
/// assert_eq!(events[0].field("n"), Some("3"));
/// assert_eq!(events[0].to_string(), "WARN subsystem=doc_capture event=hit n=3 name=x");
/// ```
pub fn capture_events<R>(f: impl FnOnce() -> R) -> (R, Vec<CapturedEvent>) {
    let sink = Arc::new(Mutex::new(Vec::new()));
    let subscriber = Registry::default().with(CaptureLayer {
        sink: Arc::clone(&sink),
    });
    let result = tracing::subscriber::with_default(subscriber, f);
    let events = std::mem::take(&mut *sink.lock().unwrap_or_else(PoisonError::into_inner));
    (result, events)
}

/// Runs `f` with the default subscriber built from `cfg` (see
/// [`build_subscriber`]) writing into a buffer, as the current thread's
/// default; returns the result and the text written. Use
/// `timestamps: false, color: Color::Never` for snapshots.
///
/// Errors: as [`build_subscriber`] (a filter that does not parse).
pub fn capture_rendered<R>(cfg: &SubscriberConfig, f: impl FnOnce() -> R) -> Result<(R, String)> {
    let buffer = SharedBuffer::default();
    let subscriber = build_subscriber(cfg, buffer.clone())?;
    let result = tracing::subscriber::with_default(subscriber, f);
    let bytes = std::mem::take(&mut *buffer.0.lock().unwrap_or_else(PoisonError::into_inner));
    Ok((result, String::from_utf8_lossy(&bytes).into_owned()))
}

struct CaptureLayer {
    sink: Arc<Mutex<Vec<CapturedEvent>>>,
}

impl<S: tracing::Subscriber> Layer<S> for CaptureLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let mut visitor = FieldVisitor(Vec::new());
        event.record(&mut visitor);
        let captured = CapturedEvent {
            level: *event.metadata().level(),
            target: event.metadata().target().to_owned(),
            fields: visitor.0,
        };
        self.sink
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(captured);
    }
}

struct FieldVisitor(Vec<(String, String)>);

impl FieldVisitor {
    fn push(&mut self, field: &Field, value: String) {
        self.0.push((field.name().to_owned(), value));
    }
}

impl Visit for FieldVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field, value.to_owned());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.push(field, value.to_string());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.push(field, value.to_string());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.push(field, value.to_string());
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.push(field, value.to_string());
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.push(field, value.to_string());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let mut text = String::new();
        let _ = write!(text, "{value:?}");
        self.push(field, text);
    }
}

/// A `MakeWriter` appending to a shared byte buffer.
#[derive(Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl io::Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'w> MakeWriter<'w> for SharedBuffer {
    type Writer = Self;

    fn make_writer(&'w self) -> Self::Writer {
        self.clone()
    }
}
