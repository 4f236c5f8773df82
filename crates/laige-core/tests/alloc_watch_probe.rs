//! `is_installed` probes correctly even when its first call comes from
//! inside a suspension and an armed window (the probe must neither be
//! hidden by the suspension nor leak into the caller's window).

use laige_core::alloc_watch::{self, AllocCounts, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

#[test]
fn the_first_probe_inside_a_suspended_window_still_sees_the_allocator() {
    alloc_watch::arm();
    {
        let _s = alloc_watch::suspend();
        assert!(alloc_watch::is_installed());
    }
    assert_eq!(alloc_watch::disarm(), AllocCounts::default());
    assert!(alloc_watch::is_installed());
}
