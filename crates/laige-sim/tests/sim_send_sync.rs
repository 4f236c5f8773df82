//! Thread-safety of the public types, asserted at compile time.

use laige_core::clock::{SteadyClock, SyntheticClock};
use laige_sim::{Alpha, FrameInfo, GameLoop, GameLoopOptions, GameLoopStats};
use laige_sim::{Profiler, SystemSchedule, World};

fn send<T: Send>() {}
fn send_sync<T: Send + Sync>() {}

#[test]
fn owned_state_can_move_to_the_thread_that_runs_it() {
    // Single owner: Send, not Sync (systems are FnMut + Send).
    send::<World>();
    send::<GameLoop<SteadyClock>>();
    send::<GameLoop<SyntheticClock>>();
    // Plain data: shareable.
    send_sync::<Profiler>();
    send_sync::<SystemSchedule>();
    send_sync::<GameLoopOptions>();
    send_sync::<GameLoopStats>();
    send_sync::<FrameInfo>();
    send_sync::<Alpha>();
}
