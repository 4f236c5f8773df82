//! Without `CountingAlloc` as the global allocator the watch says so, and
//! windows read zero (which is why a zero-allocation check asserts
//! `is_installed()` first).

use std::hint::black_box;

use laige_core::alloc_watch::{self, AllocCounts};

#[test]
fn the_watch_reports_it_is_not_installed_and_counts_nothing() {
    assert!(!alloc_watch::is_installed());
    let (_, counts) = alloc_watch::count_allocs(|| drop(black_box(vec![1_u8; 16])));
    assert_eq!(counts, AllocCounts::default());
}
