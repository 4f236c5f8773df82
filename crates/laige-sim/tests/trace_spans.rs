//! With the `trace` feature, a tick opens a `tick` span (its number) and
//! each system a `system` span (its name) inside it, in schedule order.

use std::sync::{Arc, Mutex};

use laige_sim::World;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// The spans opened, in order: (span name, its field values as text, the
/// parent span's name).
type Seen = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

struct Record(Seen);

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={value:?} ", field.name()));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push_str(&format!("{}={value} ", field.name()));
    }
}

impl<S> Layer<S> for Record
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields(String::new());
        attrs.record(&mut fields);
        let parent = ctx.current_span().metadata().map(|m| m.name().to_owned());
        self.0.lock().unwrap().push((
            attrs.metadata().name().to_owned(),
            fields.0.trim_end().to_owned(),
            parent,
        ));
    }
}

#[test]
fn ticks_and_systems_open_named_spans() {
    let seen: Seen = Arc::default();
    let subscriber = tracing_subscriber::registry().with(Record(seen.clone()));
    tracing::subscriber::with_default(subscriber, || {
        let mut world = World::default();
        world.register_system("a/first", 0, |_| Ok(())).unwrap();
        world.register_system("b/second", 1, |_| Ok(())).unwrap();
        let schedule = world.schedule_systems();
        world.run_systems(&schedule).unwrap();
        world.run_systems(&schedule).unwrap();
    });
    let seen = seen.lock().unwrap().clone();
    let tick = |n: u64| ("tick".to_owned(), format!("tick={n}"), None);
    let system = |name: &str| {
        (
            "system".to_owned(),
            format!("name={name}"),
            Some("tick".to_owned()),
        )
    };
    assert_eq!(
        seen,
        vec![
            tick(0),
            system("a/first"),
            system("b/second"),
            tick(1),
            system("a/first"),
            system("b/second"),
        ]
    );
}
