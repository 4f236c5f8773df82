//! Ctrl-C: the interrupt flag the run loops check once per frame.
//!
//! The engine installs one process-wide SIGINT handler (the `ctrlc`
//! crate: a small, widely used crate that does the async-signal-safe part
//! correctly — a self-pipe and a dedicated thread, so the handler below
//! runs as ordinary Rust code, not inside the signal handler) the first
//! time a run asks for it ([`EngineOptions::handle_ctrl_c`](crate::EngineOptions)).
//! The first Ctrl-C only raises the flag: the running loop notices it at
//! its next frame and ends through the ordered shutdown with exit code
//! [`EXIT_INTERRUPTED`](crate::EXIT_INTERRUPTED) (130). A **second** Ctrl-C
//! while the flag is still up exits the process at once with 130 — the way
//! out when something hangs.
//!
//! [`request`] raises the same flag from code (tests, a supervisor
//! thread).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use laige_core::{Error, ErrorCode, Result};

use crate::events;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static INSTALLED: OnceLock<std::result::Result<(), String>> = OnceLock::new();

/// Installs the process's Ctrl-C handler (once; later calls return the
/// first call's outcome).
///
/// # Errors
/// `engine/signal_handler_failed` (Failed) when the platform refused, or
/// another SIGINT handler was installed through `ctrlc` first.
pub fn install_handler() -> Result<()> {
    let outcome = INSTALLED.get_or_init(|| {
        ctrlc::set_handler(|| {
            // SeqCst: a flag read by another thread; ordering with other
            // memory does not matter, the swap's atomicity does (a second
            // Ctrl-C must see the first).
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(i32::from(crate::EXIT_INTERRUPTED));
            }
        })
        .map_err(|e| e.to_string())
    });
    outcome.clone().map_err(|message| {
        laige_core::diag::reported(
            Error::new(ErrorCode::Failed, events::SIGNAL_HANDLER_FAILED)
                .with_detail(format!("installing the Ctrl-C handler: {message}")),
        )
    })
}

/// Raises the interrupt flag, as a Ctrl-C does: the running loop ends at
/// its next frame with [`ExitReason::Interrupted`](crate::ExitReason).
pub fn request() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether the flag is up.
#[must_use]
pub fn is_requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Takes the flag down. A run does this as it installs the handler, before
/// anything slow, so an interrupt that ended an earlier run does not end
/// the next one and an interrupt at any later instant is never lost.
pub fn clear() {
    INTERRUPTED.store(false, Ordering::SeqCst);
}
