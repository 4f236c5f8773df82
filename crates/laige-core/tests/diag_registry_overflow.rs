//! More distinct keys than the lock-free registry has slots: the overflow
//! keys still get their own state, found again by every callsite.

use std::time::Duration;

use laige_core::diag::{self, Severity};
use laige_core::{EventId, event};

#[test]
fn keys_beyond_the_table_are_still_limited_per_key() {
    diag::set_rate_window(Duration::from_secs(3600)).unwrap();
    const KEYS: usize = 1500; // > 1024 slots
    let ids: Vec<EventId> = (0..KEYS)
        .map(|i| {
            let event: &'static str = Box::leak(format!("key_{i}").into_boxed_str());
            EventId::new("overflow_test", event)
        })
        .collect();
    // One callsite, every id: the first pass emits each key once.
    for &id in &ids {
        assert!(event!(Info, id), "{id}");
    }
    // A second callsite and the uncached check see the same keys.
    for &id in &ids {
        assert!(!event!(Info, id), "{id}");
        assert!(!diag::check(id, Severity::Info), "{id}");
    }
    for &id in &ids {
        let stats = diag::rate_stats(id, Severity::Info);
        assert_eq!((stats.emitted, stats.suppressed), (1, 2), "{id}");
    }
    let summary = diag::emit_rate_limited_summary();
    assert_eq!(summary.len(), KEYS);
    assert!(summary.iter().all(|k| k.suppressed == 2));
    // Sorted by id: key_0, key_1, key_10, ...
    assert_eq!(summary[0].id.event(), "key_0");
    assert_eq!(summary[2].id.event(), "key_10");
}
