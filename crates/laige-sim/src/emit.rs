//! The cold-path emitters: one function per event laige-sim raises, so the
//! hot paths stay a branch and a call (no field formatting inline).
//!
//! Every emitter goes through the rate-limited diagnostics facade
//! (`laige_core::event!` / `laige_core::diag::report`): at most one event
//! per (subsystem, event, severity) per window, suppressed occurrences
//! counted for the shutdown summary, emission suspended from the
//! allocation watch (an in-tick degradation logs without tripping the zero-allocation check).

use laige_core::{Error, diag, event};

use crate::events;

/// Reports a validation or failure error (its rate-limited Warn event).
#[cold]
pub(crate) fn report(err: &Error) {
    diag::report(err);
}

#[cold]
pub(crate) fn tick_dropped(dropped: u64, total_dropped: u64, max_catch_up: u32, tick_rate_hz: u32) {
    event!(
        Warn,
        events::TICK_DROPPED,
        dropped,
        total_dropped,
        max_catch_up,
        tick_rate_hz,
        fix = "lower the per-tick work or the tick rate, or raise max_catch_up_ticks"
    );
}

#[cold]
pub(crate) fn effect_dropped(limit: &'static str, dropped: u64) {
    event!(
        Warn,
        events::EFFECT_DROPPED,
        limit,
        dropped,
        fix = "raise the EffectConfig size it names, or drain effects every frame"
    );
}

#[cold]
pub(crate) fn clock_backward(reading_ns: i64, last_ns: i64) {
    event!(Warn, events::CLOCK_BACKWARD, reading_ns, last_ns);
}

#[cold]
pub(crate) fn spawn_budget_exceeded(frame: u64, spawns: u32, budget: u32) {
    event!(Warn, events::SPAWN_BUDGET_EXCEEDED, frame, spawns, budget);
}

#[cold]
pub(crate) fn despawn_budget_exceeded(frame: u64, despawns: u32, budget: u32) {
    event!(
        Warn,
        events::DESPAWN_BUDGET_EXCEEDED,
        frame,
        despawns,
        budget
    );
}

#[cold]
#[cfg_attr(
    not(debug_assertions),
    expect(dead_code, reason = "the zero-allocation check is debug-only")
)]
pub(crate) fn sim_tick_allocation(tick: u64, allocs: u64, site: &str) {
    event!(Error, events::SIM_TICK_ALLOCATION, tick, allocs, site);
}
